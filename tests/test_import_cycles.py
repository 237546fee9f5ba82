"""No import cycle in sudoku_lab: its static import graph, read with ``ast``, is acyclic.

The graph has one node per module of the package (``__init__.py`` is the
package itself) and an edge A -> B when A's source imports B anywhere: at
module level, inside a function, or under ``if TYPE_CHECKING:`` (a type-only
import is still a dependency, and the usual way of hiding a cycle). Relative
imports are resolved; ``from . import x`` points at the submodule ``x`` when
there is one, and at the package (whose ``__init__`` defines ``x``) otherwise;
importing ``a.b.c`` from outside package ``a.b`` also points at ``a.b``, whose
``__init__`` runs first. Imports by name at run time (``importlib`` in the
registries and plugin loaders) are not part of the static graph.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "sudoku_lab"


# --------------------------------------------------------------- the graph
def modules(root: Path) -> dict[str, tuple[Path, bool]]:
    """Every module under the package directory ``root``: dotted name -> (file, is_package)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        out[".".join(parts)] = (path, is_package)
    return out


def _resolve(node: ast.ImportFrom, package: str) -> str | None:
    """The absolute module a ``from ... import`` names (None for a relative import above the root)."""
    if node.level == 0:
        return node.module
    base = package.split(".")
    if node.level - 1 >= len(base):
        return None
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph(root: Path) -> dict[str, set[str]]:
    """Static import graph of the package at ``root`` (edges only between its own modules)."""
    mods = modules(root)
    graph: dict[str, set[str]] = {}
    for name, (path, is_package) in mods.items():
        package = name if is_package else name.rpartition(".")[0]
        targets: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                node.body = []  # imports for annotations only: never run, so never part of a cycle
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name in mods)
            elif isinstance(node, ast.ImportFrom):
                module = _resolve(node, package)
                if module is None:
                    continue
                for alias in node.names:
                    sub = f"{module}.{alias.name}"
                    if sub in mods:
                        targets.add(sub)
                    elif module in mods:
                        targets.add(module)
        edges = set()
        for target in targets:
            edges.add(target)
            # Importing a.b.c runs a.b's __init__ first, unless the importer is inside a.b already.
            parent = target.rpartition(".")[0]
            while parent and not (name == parent or name.startswith(parent + ".")):
                edges.add(parent)
                parent = parent.rpartition(".")[0]
        edges.discard(name)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle ``[a, b, ..., a]`` per strongly connected component that has one, sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:  # Tarjan's algorithm, iteratively
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(component)
    return sorted(_one_cycle(graph, c) for c in components)


def _one_cycle(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest cycle through the component's first module (breadth-first inside the component)."""
    start = min(component)
    previous = {start: None}
    queue = [start]
    for node in queue:
        for child in sorted(graph[node] & component):
            if child == start:
                path = [node]
                while previous[path[-1]] is not None:
                    path.append(previous[path[-1]])
                return [start] + path[::-1][1:] + [start]
            if child not in previous:
                previous[child] = node
                queue.append(child)
    raise AssertionError(f"no cycle through {start} in {sorted(component)}")  # pragma: no cover


def _show(cycle: list[str]) -> str:
    return " -> ".join(cycle)


# ------------------------------------------------------------------- tests
def test_sudoku_lab_has_no_import_cycle():
    found = cycles(import_graph(CORE))
    assert not found, "import cycles in sudoku_lab:\n" + "\n".join(_show(c) for c in found)


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_the_graph_sees_every_kind_of_import(tmp_path):
    root = _package(
        tmp_path,
        {
            "__init__.py": "from .base import VERSION\n",
            "base.py": "VERSION = 1\n",
            "model.py": """
            from typing import TYPE_CHECKING
            if TYPE_CHECKING:
                from .algo import run
            def check():
                from . import algo
                return algo
        """,
            "algo.py": "import pkg.base\nfrom . import VERSION\n",
            "sub/__init__.py": "",
            "sub/deep.py": "from .. import model\nfrom ..sub import helper\nfrom ... import outside\n",
            "sub/helper.py": "import os, numpy\nfrom pkg.sub.deep import thing\n",
            "cli.py": "def main():\n    from .sub.deep import x\n",
        },
    )
    assert import_graph(root) == {
        "pkg": {"pkg.base"},
        "pkg.base": set(),
        "pkg.model": {"pkg.algo"},  # the function-level `from . import algo` (not the TYPE_CHECKING import)
        "pkg.algo": {"pkg.base", "pkg"},  # `from . import VERSION` is the package's attribute
        "pkg.sub": set(),
        "pkg.sub.deep": {"pkg.model", "pkg.sub.helper"},  # a relative import above the root is ignored
        "pkg.sub.helper": {"pkg.sub.deep"},  # inside pkg.sub: no edge to pkg.sub itself
        "pkg.cli": {"pkg.sub.deep", "pkg.sub"},  # pkg.sub's __init__ runs before pkg.sub.deep
    }


def test_cycles_are_found_and_shown_as_paths(tmp_path):
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "puzzle.py": "def candidates():\n    from .ac3 import domains\n",
            "ac3.py": "from .geometry import peers\n",
            "geometry.py": "from .puzzle import Puzzle\n",
            "a.py": "from . import b\n",
            # c imports typed, which names c's class only for annotations: never run, so no cycle
            "typed.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import C\n",
            "c.py": "from . import typed\n",
            "b.py": "from .a import x\n",
            "ok.py": "from . import a, puzzle\n",
        },
    )
    found = cycles(import_graph(root))
    assert [_show(c) for c in found] == ["pkg.a -> pkg.b -> pkg.a", "pkg.ac3 -> pkg.geometry -> pkg.puzzle -> pkg.ac3"]
    assert cycles({"x": {"y"}, "y": set()}) == []
