"""The exact solver: ground truth, uniqueness checks and random complete grids.

Every function takes a puzzle as either an integer grid (1-D of length C or
2-D N x N, 0 for a blank, digits 1..N; the box size is inferred from the
number of cells) or any object with ``.grid`` and ``.n`` attributes such as
:class:`sudoku_lab.model.puzzle.Puzzle`.

The search itself (bitmask depth-first search with naked and hidden singles,
dom/wdeg branching, locked candidates from 16 x 16 up) is in
:mod:`sudoku_lab._kernels.exact`. :func:`solve` adds randomised restarts on
top of it, which is what keeps 25 x 25 puzzles near the phase transition
(40-45 % givens, many solutions) in the sub-second range; counting is
always one complete deterministic search.

Notes
-----
The exact solver of docs/algorithms.md ("Exact solver"), extended with dom/wdeg
branching, locked candidates and restarts for the large grids.

Examples
--------
>>> import numpy as np
>>> from sudoku_lab import exact
>>> grid = np.zeros(16, dtype=np.int8)          # the empty 4 x 4 grid
>>> exact.count_solutions(grid, limit=1000)     # every 4 x 4 Sudoku
288
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._checks import checked
from .._kernels import lazy
from ..errors import ParameterError, PuzzleError
from ..model.geometry import BOX_SIZES, PuzzleLike, as_grid, check_digits, geometry

_k = lazy("sudoku_lab._kernels.exact")

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

#: Smallest box size whose searches also propagate locked candidates. On 9 x 9
#: the extra scan costs more than the nodes it saves (fiendish: about 40 %
#: fewer puzzles/s); on 25 x 25 it is what removes the heavy tail.
LOCKED_CANDIDATES_MIN_BOX = 4

#: Branches of the first, deterministic attempt of :func:`solve`. Almost every
#: 9 x 9 and 16 x 16 puzzle is solved within it.
_FIRST_BUDGET = 2000
#: Budget growth between restarts: geometric, so the restarts cost at most a
#: constant factor over the one search that succeeds, and the search stays
#: complete (an unsolvable puzzle is still proven so).
_BUDGET_GROWTH = 1.5
#: Seed of the digit order of :func:`solve`'s restarts, so that the solution
#: it returns does not change from run to run.
_RESTART_SEED = 20240229
#: Node budget of one attempt of :func:`random_solution`, per cell. Filling
#: the empty grid takes about 0.75 branches per cell; the slack makes a
#: retry rare, while a lost attempt stays cheap.
_FILL_BUDGET_PER_CELL = 4
_UNLIMITED = np.iinfo(np.int64).max


@checked
@dataclass(frozen=True)
class SearchResult:
    """What one depth-first search found.

    Attributes
    ----------
    solutions : ndarray of int8, shape (k, C)
        The solutions found, in search order (read-only).
    count : int
        Number of solutions found, at most the limit asked for.
    nodes : int
        Branches tried (search nodes below the root); 0 when propagation
        alone decided the puzzle, a rough measure of its difficulty.
    complete : bool
        True if the search ran to its end or to the limit; False if the node
        budget stopped it first, and then ``count`` is only a lower bound.
    """

    solutions: np.ndarray
    count: int
    nodes: int
    complete: bool


#: Box size by number of cells, for the grids :func:`_checked_grid` passes without :func:`as_grid`.
_BOX_BY_CELLS = {k**4: k for k in BOX_SIZES}


def _puzzle_class() -> Any:
    """:class:`sudoku_lab.model.puzzle.Puzzle`, imported on first use (the puzzle model imports this module)."""
    global _PUZZLE
    if _PUZZLE is None:
        from ..model.puzzle import Puzzle

        _PUZZLE = Puzzle
    return _PUZZLE


_PUZZLE: type | None = None


def _checked_grid(puzzle: Any) -> tuple[np.ndarray, int]:
    """:func:`as_grid`, with a short way for what needs no conversion.

    A :class:`~sudoku_lab.model.puzzle.Puzzle` was checked when it was made
    (its grid is a read-only C-contiguous int8 array of digits 0..N), and a
    C-contiguous 1-D int8 array of a puzzle's length only needs its digits
    checked (one pass, through uint8 so that negative values count as
    large). Anything else, and any grid that fails the check, goes through
    :func:`as_grid`, which gives the error.
    """
    if type(puzzle) is _puzzle_class():
        return puzzle.grid, puzzle.n
    if type(puzzle) is np.ndarray and puzzle.dtype == np.int8 and puzzle.ndim == 1 and puzzle.flags.c_contiguous:
        n = _BOX_BY_CELLS.get(puzzle.size)
        if n is not None and np.max(puzzle.view(np.uint8)) <= n * n:
            return puzzle, n
    return as_grid(puzzle)


def _check_limit(limit) -> int:
    if isinstance(limit, (bool, np.bool_)) or not isinstance(limit, (int, np.integer)) or limit < 1:
        raise ParameterError(f"limit must be a positive integer, got {limit!r}", name="limit")
    return int(limit)


def _run(grid: np.ndarray, n: int, limit: int, keep: int, node_budget: int):
    """One deterministic search.

    Returns
    -------
    out : ndarray of int8, shape (keep, C)
        The first ``min(keep, count)`` solutions.
    count : int
    stats : ndarray of int64, shape (N_STATS,)
    weights : ndarray of int64, shape (3N,)
        The unit weights the search ended with.
    """
    geo = geometry(n)
    out = np.zeros((keep, geo.C), dtype=np.int8)
    stats = np.zeros(_k.N_STATS, dtype=np.int64)
    weights = np.ones(3 * geo.N, dtype=np.int64)
    count = _k.solve_grid(
        grid,
        geo.peers,
        geo.units,
        geo.cell_units,
        n >= LOCKED_CANDIDATES_MIN_BOX,
        limit,
        node_budget,
        weights,
        out,
        stats,
    )
    return out, int(count), stats, weights


@checked
def search(puzzle: PuzzleLike | npt.ArrayLike, limit: int = 2, *, node_budget: int | None = None) -> SearchResult:
    """Deterministic depth-first search for up to ``limit`` solutions.

    Parameters
    ----------
    puzzle : Puzzle-like or array_like of int, shape (C,) or (N, N)
    limit : int
        Stop after this many solutions.
    node_budget : int, optional
        Stop after this many branches (then ``complete`` is False); no
        limit by default.

    Returns
    -------
    SearchResult
    """
    grid, n = _checked_grid(puzzle)
    limit = _check_limit(limit)
    out, count, stats, _ = _run(grid, n, limit, limit, _UNLIMITED if node_budget is None else int(node_budget))
    sols = out[:count]
    sols.setflags(write=False)
    return SearchResult(sols, count, int(stats[_k.STAT_NODES]), not stats[_k.STAT_EXHAUSTED])


@checked
def solve(puzzle: PuzzleLike | npt.ArrayLike) -> np.ndarray | None:
    """The first solution found, or None if the puzzle has none.

    A deterministic search runs first; if it has not finished after
    ``_FIRST_BUDGET`` branches, the search restarts with a random digit order
    (fixed seed) and a 1.5 times larger budget each time, keeping the unit
    weights it has learnt. The answer is the same on every run.

    Parameters
    ----------
    puzzle : Puzzle-like or array_like of int, shape (C,) or (N, N)

    Returns
    -------
    ndarray of int8, shape (C,), or None
        Read-only. For a puzzle with several solutions, one of them.
    """
    grid, n = _checked_grid(puzzle)
    budget = _FIRST_BUDGET
    out, found, stats, weights = _run(grid, n, 1, 1, budget)
    if not found and stats[_k.STAT_EXHAUSTED]:
        geo = geometry(n)
        rng = np.random.default_rng(_RESTART_SEED)
        locked = n >= LOCKED_CANDIDATES_MIN_BOX
        while not found and stats[_k.STAT_EXHAUSTED]:
            budget = int(budget * _BUDGET_GROWTH)
            found = _k.random_fill(grid, geo.peers, geo.units, geo.cell_units, locked, budget, weights, rng, out, stats)
    if not found:
        return None
    sol = out[0]
    sol.setflags(write=False)
    return sol


@checked
def count_solutions(puzzle: PuzzleLike | npt.ArrayLike, limit: int = 2) -> int:
    """Number of solutions, counting stops at ``limit``.

    Parameters
    ----------
    puzzle : Puzzle-like or array_like of int, shape (C,) or (N, N)
    limit : int
        ``limit=2`` is the uniqueness test: 0 none, 1 unique, 2 several.

    Returns
    -------
    int
        ``min(number of solutions, limit)``; 0 for clashing givens.
    """
    grid, n = _checked_grid(puzzle)
    return _run(grid, n, _check_limit(limit), 0, _UNLIMITED)[1]


@checked
def find_solutions(puzzle: PuzzleLike | npt.ArrayLike, limit: int = 2) -> np.ndarray:
    """Up to ``limit`` solutions, in search order.

    Parameters
    ----------
    puzzle : Puzzle-like or array_like of int, shape (C,) or (N, N)
    limit : int

    Returns
    -------
    ndarray of int8, shape (k, C)
        ``k = min(number of solutions, limit)``; read-only.
    """
    return search(puzzle, limit).solutions


@checked
def is_unique(puzzle: PuzzleLike | npt.ArrayLike) -> bool:
    """True if the puzzle has exactly one solution."""
    return count_solutions(puzzle, limit=2) == 1


@checked
def solve_many(grids: npt.ArrayLike, n: int, limit: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Search many puzzles of one size in a single kernel call.

    Each grid gets one complete deterministic search (no restarts), so this
    is the fast path for batches of 9 x 9 puzzles and for counting; prefer
    :func:`solve` for single hard 25 x 25 puzzles.

    Parameters
    ----------
    grids : array_like of int, shape (P, C)
        One puzzle per row, 0 for a blank.
    n : int
        Box size (2..5).
    limit : int
        Count solutions of each puzzle up to this many.

    Returns
    -------
    solutions : ndarray of int8, shape (P, C)
        First solution of each puzzle; a row of zeros where there is none.
    counts : ndarray of int64, shape (P,)
        ``min(number of solutions, limit)`` per puzzle.
    """
    if n not in BOX_SIZES:
        raise PuzzleError(f"box size must be one of {BOX_SIZES}, got {n!r}", kind="box_size")
    geo = geometry(n)
    a = np.asarray(grids)
    if a.ndim != 2 or a.shape[1] != geo.C:
        raise PuzzleError(
            f"grids must have shape (P, {geo.C}) for box size {n}, got {a.shape}",
            kind="cell_count",
            found=int(a.shape[-1]) if a.ndim else 0,
        )
    check_digits(a, n)
    a = np.ascontiguousarray(a, dtype=np.int8)
    limit = _check_limit(limit)
    solutions = np.zeros_like(a)
    counts = np.zeros(len(a), dtype=np.int64)
    nodes = np.zeros(len(a), dtype=np.int64)
    _k.solve_batch(
        a, geo.peers, geo.units, geo.cell_units, n >= LOCKED_CANDIDATES_MIN_BOX, limit, solutions, counts, nodes
    )
    return solutions, counts


@checked
def random_solution(n: int, rng: np.random.Generator | int) -> np.ndarray:
    """A random complete valid grid.

    The empty grid is solved with a random digit order; a search that exceeds
    its node budget (rare, mostly 25 x 25) is abandoned and restarted with
    the next random numbers, so the result is a pure function of the
    generator's state.

    Parameters
    ----------
    n : int
        Box size (2..5).
    rng : numpy.random.Generator or int
        Source of randomness (advanced in place), or a seed for one.

    Returns
    -------
    ndarray of int8, shape (C,)
        A solved grid (writable, owned by the caller).

    Notes
    -----
    Not uniform over all Sudoku grids: depth-first search with random digit
    order favours some grids slightly. Every grid is reachable.
    """
    if n not in BOX_SIZES:
        raise PuzzleError(f"box size must be one of {BOX_SIZES}, got {n!r}", kind="box_size")
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    geo = geometry(n)
    empty = np.zeros(geo.C, dtype=np.int8)
    out = np.zeros((1, geo.C), dtype=np.int8)
    stats = np.zeros(_k.N_STATS, dtype=np.int64)
    locked = n >= LOCKED_CANDIDATES_MIN_BOX
    while True:
        weights = np.ones(3 * geo.N, dtype=np.int64)
        if _k.random_fill(
            empty, geo.peers, geo.units, geo.cell_units, locked, _FILL_BUDGET_PER_CELL * geo.C, weights, rng, out, stats
        ):
            return out[0].copy()


_WARMED = False


def warm_kernels(puzzles=None) -> None:
    """Run every kernel of the exact search once (compiling it on a cold cache), on ``puzzles``.

    Default: :func:`sudoku_lab.model.library.warm_up_puzzles`. The commands call this through
    :func:`sudoku_lab.stepping.warmup.warm_once`, which also says "compiling" on stderr; the generator
    calls it so that compiling never eats into its time limit. A second call with the default puzzles
    returns at once.
    """
    global _WARMED
    if puzzles is None:
        if _WARMED:
            return
        from ..model.library import warm_up_puzzles

        puzzles = warm_up_puzzles()
    exact = sys.modules[__name__]
    for p in puzzles:
        writable = np.array(p.grid)
        for grid in (p, writable):  # a Puzzle's read-only grid and a writable array are two kernel types
            exact.solve(grid)
            exact.count_solutions(grid, limit=2)
            exact.solve_many(np.asarray(getattr(grid, "grid", grid))[None, :], p.n, limit=2)
        _warm_restarts(p)
        exact.random_solution(p.n, 0)
    _WARMED = True


def _warm_restarts(p) -> None:
    """The restart kernel ``exact.solve`` calls on hard puzzles (rare, so not reached by easy ones), both grid types."""
    exact = sys.modules[__name__]
    geo = geometry(p.n)
    out = np.zeros((1, p.C), dtype=np.int8)
    for grid in (p.grid, np.array(p.grid)):
        _k.random_fill(
            grid,
            geo.peers,
            geo.units,
            geo.cell_units,
            p.n >= exact.LOCKED_CANDIDATES_MIN_BOX,
            1,
            np.ones(3 * p.N, dtype=np.int64),
            np.random.default_rng(0),
            out,
            np.zeros(_k.N_STATS, dtype=np.int64),
        )
