"""Sudoku Lab: the headless core.

Puzzle model, exact solver, AC3, puzzle generator, bundled collections, the
metaheuristic solvers and their stepping loop, experiments, grades, figures and
benchmarks. Nothing in this package imports Qt (``ui`` builds on it).
"""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("sudoku-lab")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0+unknown"

from .errors import DataFileError, ParameterError, PuzzleError, SudokuLabError  # noqa: E402

__all__ = [
    "__version__",
    "SudokuLabError",
    "PuzzleError",
    "ParameterError",
    "DataFileError",
    "Puzzle",
    "is_valid_solution",
]

#: Names served from submodules on first access (PEP 562), so ``import sudoku_lab`` stays light
#: (``sudoku-lab --version`` loads no numpy) while ``from sudoku_lab import Puzzle`` works.
_LAZY = {"Puzzle": "puzzle", "is_valid_solution": "puzzle"}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
