"""``sudoku-lab bench acs``: the ant colony system's numba kernel next to a straightforward numpy colony.

The measured ratio is iterations per second of the kernel over :class:`NumpyAcs` (the same iteration
written the way one would in numpy: boards as boolean candidate arrays, each placement's propagation
as whole-array operations over peers and units, repeated to a fixed point), both on the same puzzle
with the same seeds, in interleaved passes in one process (:func:`._kernel_vs_numpy.kernel_vs_numpy`),
the best of each counting.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._checks import checked
from ..model.puzzle import Puzzle
from ._kernel_vs_numpy import Flag, kernel_vs_numpy, reference_way, register_kernel_benchmark, solver_way

__all__ = ["NumpyAcs", "bench_acs"]


@checked
class NumpyAcs:
    """A straightforward numpy implementation of the ant colony system (not draw-for-draw the kernel's).

    The reference of ``sudoku-lab bench acs``: a board is a bool array (C, N) of candidates; after each
    placement, naked singles strike their digit from their peers and hidden singles are found from the
    per-unit digit counts, whole arrays at a time, until nothing changes. The ants take turns as in the
    kernel; the local and global updates and best-value evaporation are the same formulas.

    Parameters
    ----------
    puzzle : Puzzle
    ants, q0, rho, evap, xi : as the solver's parameters (tau0 = 1 / C).
    seed : int
    """

    def __init__(
        self,
        puzzle: Puzzle,
        ants: int = 10,
        q0: float = 0.9,
        rho: float = 0.9,
        evap: float = 0.005,
        xi: float = 0.1,
        seed: int = 0,
    ):
        geo = puzzle.geometry
        self.N, self.C = puzzle.N, puzzle.C
        self.peers = geo.peers.astype(np.int64)
        self.units = geo.units.astype(np.int64)
        self.ants, self.q0, self.rho, self.evap, self.xi = ants, q0, rho, evap, xi
        self.tau0 = 1.0 / self.C
        self.pher = np.full((self.C, self.N), self.tau0)
        self.rng = np.random.default_rng(seed)
        self.iterations = 0
        self.best_pher = 0.0
        self.best: np.ndarray | None = None
        base = np.ones((self.C, self.N), dtype=bool)
        done = np.zeros(self.C, dtype=bool)
        for c in np.flatnonzero(puzzle.grid):
            d = int(puzzle.grid[c]) - 1
            if base[c, d] and base[c].sum() > 1:
                base[c] = False
                base[c, d] = True
                self.propagate(base, done)
        self.base, self.base_done = base, done

    def propagate(self, cand: np.ndarray, done: np.ndarray) -> None:
        """Naked and hidden singles to a fixed point (``done``: singles already struck from their peers)."""
        while True:
            count = cand.sum(axis=1)
            new = np.flatnonzero((count == 1) & ~done)
            if len(new):
                for c in new:
                    d = int(np.argmax(cand[c]))
                    if cand[c, d]:
                        cand[self.peers[c], d] = False
                    done[c] = True
                continue
            per_unit = cand[self.units]  # (3N, N cells, N digits)
            once = per_unit.sum(axis=1) == 1  # (3N, N digits)
            hits = per_unit & once[:, None, :] & (per_unit.sum(axis=2) > 1)[:, :, None]
            where = np.argwhere(hits)  # (unit, position, digit) rows
            if len(where) == 0:
                return
            cell = int(self.units[where[0, 0], where[0, 1]])
            cand[cell] = False
            cand[cell, where[0, 2]] = True

    def iteration(self) -> bool:
        """One iteration; True if an ant filled every cell."""
        A, C = self.ants, self.C
        boards = [self.base.copy() for _ in range(A)]
        dones = [self.base_done.copy() for _ in range(A)]
        start = (self.rng.random(A) * C).astype(np.int64)
        for step in range(C):
            for a in range(A):
                c = (start[a] + step) % C
                cand = boards[a][c]
                if cand.sum() < 2:
                    continue
                ds = np.flatnonzero(cand)
                w = self.pher[c, ds]
                if self.rng.random() < self.q0:
                    d = int(ds[np.argmax(w)])
                else:
                    cum = np.cumsum(w)
                    d = int(ds[min(np.searchsorted(cum, self.rng.random() * cum[-1], side="right"), len(ds) - 1)])
                self.pher[c, d] = (1 - self.xi) * self.pher[c, d] + self.xi * self.tau0
                boards[a][c] = False
                boards[a][c, d] = True
                self.propagate(boards[a], dones[a])
        self.iterations += 1
        failed = np.array([int((b.sum(axis=1) != 1).sum()) for b in boards])
        ib = int(np.argmin(failed))
        f = int(failed[ib])
        if f == 0:
            return True
        if C / f > self.best_pher:
            self.best, self.best_pher = boards[ib], C / f
        assert self.best is not None
        fixed = self.best.sum(axis=1) == 1
        cells = np.flatnonzero(fixed)
        digits = np.argmax(self.best[cells], axis=1)
        self.pher[cells, digits] = (1 - self.rho) * self.pher[cells, digits] + self.rho * self.best_pher
        self.best_pher *= 1 - self.evap
        return False


@checked
def bench_acs(
    runs: int = 8,
    iterations: int = 5,
    puzzle: str = "lewis_16x16_35_00",
    out: Callable[[str], object] = print,
    passes: int = 3,
) -> dict:
    """Time the ant colony system's kernel against :class:`NumpyAcs` in iterations per second, on the same seeds.

    Parameters
    ----------
    runs : int
        Runs of each implementation per pass (seeds 0..runs-1).
    iterations : int
        Most iterations per run (a run also ends when solved).
    puzzle : str
        A bundled puzzle.
    out : callable
        Receives each line of the report.
    passes : int
        Interleaved passes; the fastest of each way counts.

    Returns
    -------
    dict
        ``kernel_iterations_per_second``, ``numpy_iterations_per_second``, ``kernel_over_numpy`` and
        ``same_work``.
    """
    from ..model import library

    pz = library.puzzle(puzzle)
    m = kernel_vs_numpy(
        solver="acs",
        title=f"ACS, default parameters (10 ants, q0 0.9, rho 0.9, evap 0.005, xi 0.1), at most {iterations} "
        "iterations a run",
        puzzle=puzzle,
        unit="iterations",
        seeds=range(runs),
        passes=passes,
        kernel=solver_way("acs", pz, iterations, {}, setup_timed=False),
        numpy=reference_way(NumpyAcs, pz, iterations, NumpyAcs.iteration, "iterations", setup_timed=False),
        kernel_label="solver.step",
        numpy_label="bool candidate arrays, propagation as whole-array operations to a fixed point",
        setup="set-up excluded on both sides",
        out=out,
    )
    return m.as_dict("iterations")


register_kernel_benchmark(
    "acs",
    bench_acs,
    solver="acs",
    help="ACS: kernel / numpy in iterations/s (side by side)",
    flags=(
        Flag("--runs", "runs", "runs of each implementation per pass", 1, 10_000),
        Flag("--iterations", "iterations", "most iterations per run", 1, 1_000_000),
        Flag("--passes", "passes", "interleaved passes, the best counts", 1, 1000),
    ),
    description="Time the ant colony system with its default parameters. Measured side by side: iterations per "
    "second of the numba kernel and of a straightforward numpy implementation of the same iteration (the ants' "
    "walks with propagation to a fixed point, the local and global updates, best-value evaporation), on "
    "lewis_16x16_35_00 with the same seeds, in interleaved passes of which the best counts; printed as the ratio "
    "kernel / numpy.",
)
