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

__all__ = ["__version__", "SudokuLabError", "PuzzleError", "ParameterError", "DataFileError"]
