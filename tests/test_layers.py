"""The core's layers (pyproject.toml, ``[tool.importlinter]``): checked by import-linter, and kept complete.

``lint-imports`` checks three contracts: the layers of ``sudoku_lab`` (a module
imports only from its own layer and those below it, lazy imports included),
the core never importing the window or Qt, and the window importing neither the
command line nor the core's private helpers. The tests below also keep the
contract honest: every package and top-level module of the core is in a layer
(a new one cannot slip past it), argparse lives only in ``sudoku_lab/cli``,
the package's top level stays a short list of entry points, and no module of
the window imports an underscore module of the core.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "sudoku_lab"
UI = ROOT / "ui"


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]


def _layer_names() -> set[str]:
    (layers,) = [c for c in _config()["contracts"] if c["type"] == "layers"]
    names = set()
    for layer in layers["layers"]:
        for part in layer.replace(":", "|").split("|"):
            names.add(part.strip())
    return names


def test_lint_imports_keeps_every_contract(capsys):
    importlinter_cli = pytest.importorskip("importlinter.cli", reason="import-linter is in the test extra")
    status = importlinter_cli.lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    out = capsys.readouterr().out
    assert status == 0, out
    assert "Contracts: 4 kept, 0 broken." in out


def test_every_package_and_top_level_module_of_the_core_is_in_a_layer():
    children = {p.stem for p in CORE.glob("*.py") if p.name != "__init__.py"}
    children |= {p.parent.name for p in CORE.glob("*/__init__.py")}
    missing = sorted(children - _layer_names())
    assert not missing, f"not in any layer of [tool.importlinter] in pyproject.toml: {missing}"


def test_the_top_level_holds_only_entry_points_and_the_lowest_helpers():
    modules = sorted(p.stem for p in CORE.glob("*.py"))
    assert len(modules) <= 12, modules


def _imports(path: Path, package: str = "") -> list[tuple[int, str]]:
    """(line, absolute module) of every import in a file, relative ones resolved against ``package``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            out.append((node.lineno, base))
            out += [(node.lineno, f"{base}.{a.name}") for a in node.names]
    return out


def test_argparse_is_used_only_by_the_command_line():
    offenders = []
    for path in sorted(CORE.rglob("*.py")):
        if path.relative_to(CORE).parts[0] == "cli":
            continue
        text = path.read_text(encoding="utf-8")
        uses = [m for _, m in _imports(path) if m == "argparse" or m.startswith("argparse.")]
        if uses or ".add_argument(" in text or "ArgumentParser(" in text:
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, f"argparse outside sudoku_lab/cli: {offenders}"


def test_the_window_imports_no_private_module_and_no_command_line_of_the_core():
    offenders = []
    for path in sorted(UI.rglob("*.py")):
        package = ".".join(("sudoku_lab_ui", *path.relative_to(UI).parts[:-1]))
        for line, module in _imports(path, package):
            parts = module.split(".")
            if parts[0] == "sudoku_lab" and (
                any(p.startswith("_") and not p.startswith("__") for p in parts[1:2]) or parts[1:2] == ["cli"]
            ):
                offenders.append(f"{path.relative_to(ROOT)}:{line}: {module}")
    assert not offenders, "\n".join(offenders)


def test_the_scans_see_a_private_import_and_argparse(tmp_path):
    """The two scans above find what they look for (a scan that sees nothing would pass on anything)."""
    (tmp_path / "pkg").mkdir()
    probe = tmp_path / "pkg" / "probe.py"
    probe.write_text("import argparse\nfrom sudoku_lab._checks import checked\nfrom sudoku_lab import cli\n")
    found = [m for _, m in _imports(probe)]
    assert "argparse" in found
    assert "sudoku_lab._checks" in found
    assert "sudoku_lab.cli" in found


def test_an_old_module_path_still_imports_the_same_module_and_says_where_it_went():
    import importlib
    import sys

    from sudoku_lab import MOVED_MODULES
    from sudoku_lab.model import puzzle

    sys.modules.pop("sudoku_lab.puzzle", None)
    with pytest.warns(DeprecationWarning, match=r"sudoku_lab\.puzzle has moved to sudoku_lab\.model\.puzzle"):
        old = importlib.import_module("sudoku_lab.puzzle")
    assert old is puzzle
    for name, new in MOVED_MODULES.items():  # every entry names a module that exists, and no old file is left
        assert importlib.util.find_spec(f"sudoku_lab.{new}") is not None, new
        assert not (CORE / f"{name}.py").exists(), name
