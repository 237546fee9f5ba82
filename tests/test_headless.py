"""The core stays headless: sudoku_lab never imports sudoku_lab_ui (ui/), PySide6 or pyqtgraph."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "sudoku_lab"
FORBIDDEN = ("sudoku_lab_ui", "ui", "PySide6", "pyqtgraph", "shiboken6", "matplotlib.pyplot")


def _imports(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module, node.lineno


def test_no_core_module_imports_the_gui_stack():
    bad = []
    for path in sorted(CORE.rglob("*.py")):
        for mod, line in _imports(path):
            if any(mod == f or mod.startswith(f + ".") for f in FORBIDDEN):
                bad.append(f"{path.relative_to(CORE.parent)}:{line} imports {mod}")
    assert not bad, "\n".join(bad)


def test_importing_everything_and_running_commands_loads_no_qt():
    code = r"""
import importlib, pkgutil, sys, io, contextlib
import sudoku_lab
for m in pkgutil.walk_packages(sudoku_lab.__path__, "sudoku_lab."):
    if m.name != "sudoku_lab.__main__":
        importlib.import_module(m.name)
from sudoku_lab import cli
with contextlib.redirect_stdout(io.StringIO()):
    assert cli.main(["library"]) == 0
    assert cli.main(["check", "reseda_fig3_1_easy"]) == 0
    assert cli.main(["solve", "--algo", "reseda", "--quiet", "reseda_fig3_1_easy"]) == 0
    assert cli.main(["generate", "--box", "2", "--clues", "6"]) == 0
loaded = [m for m in sys.modules if m.split(".")[0] in ("sudoku_lab_ui", "ui", "PySide6", "pyqtgraph", "shiboken6")]
assert not loaded, loaded
assert "matplotlib.pyplot" not in sys.modules
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "ok"
