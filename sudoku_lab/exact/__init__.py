"""Exact tools: the exact solver (ground truth), AC3 with its removal log, the puzzle generator.

The exact solver's functions are served from this package itself, so
``from sudoku_lab import exact; exact.solve(grid)`` reads as before; AC3 and
the generator are its modules :mod:`sudoku_lab.exact.ac3` and
:mod:`sudoku_lab.exact.generate`.

This layer sits beside :mod:`sudoku_lab.model`: a puzzle checks its own
uniqueness with the exact solver, and the generator returns puzzles, so the
two may import each other (lazily, inside functions); neither imports a solver,
the stepping loop or anything above them.
"""

# The exact solver's public names, listed once (in solver.py).
from .solver import *  # noqa: F403
from .solver import __all__ as __all__
