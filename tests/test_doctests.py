"""The examples (``>>>``) in the package's docstrings run and print what they show.

Every module of ``sudoku_lab`` whose source holds an example is found here, so a new one is run without
being listed; the docs site shows these examples on its Python API page.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sudoku_lab"


def _modules_with_examples() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if ">>> " in path.read_text(encoding="utf-8"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = _modules_with_examples()


def test_examples_are_found():
    assert "sudoku_lab.model.library" in MODULES and "sudoku_lab.exact.solver" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_of_a_module_run(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = [t for t in finder.find(module, name) if t.examples]
    assert tests, f"{name} has '>>> ' in its source but no docstring example"
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed (output above)"
