"""``sudoku-lab bench hill_climb``: the hill-climbing kernel next to a straightforward numpy steepest-ascent move.

The measured ratio is moves per second of the numba kernel (``solver.step``:
steepest ascent with delta evaluation, plateau escapes and restarts) over
:func:`numpy_move` (one steepest-ascent move the way one would write it in
numpy: every in-box swap applied to its own copy of the grid, all copies
scored at once), timed side by side in interleaved passes on the same states
of the same puzzle in one process (:func:`._kernel_vs_numpy.kernel_vs_numpy`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._checks import checked
from ..model.puzzle import Puzzle
from ._kernel_vs_numpy import Flag, kernel_vs_numpy, register_kernel_benchmark, solver_way

__all__ = ["NumpyMove", "numpy_move", "bench_hill_climb"]


@checked
class NumpyMove:
    """Every in-box swap of two free cells of a puzzle, and its tables, for :func:`numpy_move`.

    Attributes
    ----------
    pairs : ndarray of int64, shape (S, 2)
        The swaps in the kernel's order (box by box, pairs i < j in reading order).
    free : ndarray of int64, shape (F,)
        Free cells.
    """

    def __init__(self, puzzle: Puzzle, w1: float = 1.0, w2: float = -1.0):
        from ..solvers.hill_climb import hill_tables

        self.N, self.C = puzzle.N, puzzle.C
        self.base = puzzle.grid.astype(np.int64)
        box_free, box_nfree, _, GR, GC = hill_tables(puzzle.grid, puzzle.n)
        pairs = [
            (box_free[b, i], box_free[b, j])
            for b in range(self.N)
            for i in range(box_nfree[b] - 1)
            for j in range(i + 1, box_nfree[b])
        ]
        self.pairs = np.array(pairs, dtype=np.int64).reshape(-1, 2)
        self.free = np.flatnonzero(self.base == 0)
        self.GR, self.GC = GR.astype(np.int64), GC.astype(np.int64)
        self.units = puzzle.geometry.units[: 2 * self.N].astype(np.int64)  # rows and columns
        self.w1, self.w2 = w1, w2

    def scores(self, grids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(f1, f2)`` of each grid of ``grids`` (S, C), from scratch."""
        S = grids.shape[0]
        vals = grids[:, self.units]  # (S, 2N, N)
        present = np.zeros((S, 2 * self.N, self.N + 1), dtype=bool)
        np.put_along_axis(present, vals, True, axis=2)
        f1 = present[:, :, 1:].sum(axis=(1, 2))
        d = grids[:, self.free] - 1
        f2 = (self.GR[self.free // self.N, d] + self.GC[self.free % self.N, d]).sum(axis=1)
        return f1, f2


@checked
def numpy_move(mv: NumpyMove, grid: np.ndarray) -> tuple[int, int, float, np.ndarray]:
    """One steepest-ascent move in plain numpy: score every swapped grid, keep the first best.

    Returns
    -------
    a, b : int
        The best swap's cells.
    delta : float
        Its change of f (the move is applied only when positive).
    grid : ndarray of int64, shape (C,)
        The grid after the move.
    """
    g = np.asarray(grid, dtype=np.int64)
    f1, f2 = mv.scores(g[None, :])
    grids = np.repeat(g[None, :], len(mv.pairs), axis=0)
    rows = np.arange(len(mv.pairs))
    a, b = mv.pairs[:, 0], mv.pairs[:, 1]
    grids[rows, a], grids[rows, b] = g[b], g[a]
    s1, s2 = mv.scores(grids)
    delta = mv.w1 * (s1 - f1[0]) + mv.w2 * (s2 - f2[0])
    k = int(np.argmax(delta))
    out = grids[k] if delta[k] > 0 else g
    return int(a[k]), int(b[k]), float(delta[k]), out


@checked
def bench_hill_climb(
    moves: int = 3000, repeat: int = 3, puzzle: str = "kennett_hard_007", out: Callable[[str], object] = print
) -> dict:
    """Moves per second of the kernel and of :func:`numpy_move`, side by side on the same states.

    Parameters
    ----------
    moves : int
        Moves of the kernel run whose states both ways then score.
    repeat : int
        Interleaved passes; the fastest of each way counts.
    puzzle : str
        Bundled puzzle.
    out : callable
        Receives each line of the report.

    Returns
    -------
    dict
        ``kernel_moves_per_second``, ``numpy_moves_per_second``, ``kernel_over_numpy``, ``same_work``.
    """
    from ..model import library
    from ..solvers import create

    pz = library.puzzle(puzzle)
    mv = NumpyMove(pz)

    def numpy_version(seed):
        # the states a real run visits (restarts and plateau escapes included), one per move; not timed
        probe = create("hill_climb", budget=0)
        probe.reset(pz, seed=seed)
        states = []
        for _ in range(min(moves, 400)):
            states.append(probe.grid.copy())
            if probe.step(1) == 0:
                break

        def run():
            for g in states:
                numpy_move(mv, g)
            return len(states)

        return run

    m = kernel_vs_numpy(
        solver="hill_climb",
        title=f"Hill climbing, default parameters ({len(mv.pairs)} in-box swaps scored per move)",
        puzzle=puzzle,
        unit="moves",
        seeds=(0,),
        passes=repeat,
        numpy=numpy_version,
        kernel=solver_way("hill_climb", pz, moves, {"budget": 0}),
        kernel_label="solver.step: delta evaluation, plateau queue and restarts",
        numpy_label="steepest-ascent move scoring every swapped grid at once, on the states of the same run",
        setup="set-up included (the states the numpy move scores collected before)",
        out=out,
    )
    return m.as_dict("moves")


register_kernel_benchmark(
    "hill_climb",
    bench_hill_climb,
    solver="hill_climb",
    help="hill climbing: kernel / numpy in moves/s (side by side, same puzzle and states)",
    flags=(
        Flag("--moves", "moves", "kernel moves per pass", 10, 10_000_000),
        Flag("--passes", "repeat", "interleaved passes, the best counts", 1, 100, aliases=("--repeat",)),
    ),
    description="Time hill climbing with its default parameters on kennett_hard_007. Measured side by side in "
    "interleaved passes: moves per second of the numba kernel (steepest ascent with delta evaluation, plateau "
    "escapes and restarts) and of a straightforward numpy steepest-ascent move that scores every swapped grid "
    "from scratch, on the states of the same run; printed as the ratio kernel / numpy.",
)
