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

from .solver import (
    LOCKED_CANDIDATES_MIN_BOX,
    SearchResult,
    as_grid,
    count_solutions,
    find_solutions,
    is_unique,
    random_solution,
    search,
    solve,
    solve_many,
)

__all__ = [
    "as_grid",
    "SearchResult",
    "search",
    "solve",
    "count_solutions",
    "find_solutions",
    "is_unique",
    "solve_many",
    "random_solution",
    "LOCKED_CANDIDATES_MIN_BOX",
]
