"""``sudoku-lab bench cuckoo``: the cuckoo search kernel next to a straightforward numpy iteration.

The measured ratio is iterations per second of the kernel over
:class:`NumpyCuckoo` (the same iteration written the way one would in numpy:
costs of whole populations at once from digit-presence tables, feasible pairs
of a mutation from a broadcast domain test, PMX and the sorting crossover
with vectorised position look-ups, the randomised backtracking that rebuilds
abandoned nests with numpy candidate arrays), both on the same puzzle with the
same parameters and seeds, in interleaved passes in one process
(:func:`._kernel_vs_numpy.kernel_vs_numpy`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._checks import checked
from ..model.puzzle import Puzzle
from ._kernel_vs_numpy import Flag, kernel_vs_numpy, reference_way, register_kernel_benchmark, solver_way

__all__ = ["NumpyCuckoo", "bench_cuckoo"]


@checked
class NumpyCuckoo:
    """The cuckoo search written the way one would in numpy; its draws are its own, not the kernel's.

    Parameters
    ----------
    puzzle : Puzzle
        Its givens and the cells the solver's prefilter fixes stay in every egg.
    nests, pa, p_pmx, p_mut : as the solver's parameters.
    weights : (float, float, float)
        Relative mask weights of the sorting crossover.
    fill_nodes : int
        Node limit of the backtracking that fills a row.
    seed : int
    """

    def __init__(
        self,
        puzzle: Puzzle,
        nests: int = 22,
        pa: float = 0.3,
        p_pmx: float = 0.65,
        p_mut: float = 0.9,
        weights: tuple[float, float, float] = (5.0, 3.0, 1.0),
        fill_nodes: int = 10_000,
        seed: int = 0,
    ):
        from ..solvers.cuckoo import prefilter

        self.n, self.N, self.C = puzzle.n, puzzle.N, puzzle.C
        N = self.N
        dom, pre, _ = prefilter(puzzle)
        self.pre = pre.astype(np.int64)
        self.ok = ((dom[:, None].astype(np.int64) >> np.arange(N)) & 1).astype(bool)  # (C, N): digit d+1 allowed
        g = self.pre.reshape(N, N)
        self.free = [np.flatnonzero(g[r] == 0) for r in range(N)]
        self.missing = [np.setdiff1d(np.arange(1, N + 1), g[r][g[r] > 0]) for r in range(N)]
        self.mut_rows = np.array([r for r in range(N) if len(self.free[r]) >= 2])
        self.units = puzzle.geometry.units[N:].astype(np.int64)  # columns and boxes
        self.nests, self.pa, self.p_pmx, self.p_mut = nests, pa, p_pmx, p_mut
        w = np.asarray(weights, dtype=float)
        self.w = w / w.sum()
        self.fill_nodes = fill_nodes
        self.rng = np.random.default_rng(seed)
        self.eggs = np.stack([self.build_egg() for _ in range(nests)])
        self.costs = self.cost(self.eggs)
        self.best = int(np.argmin(self.costs))
        self.best_grid = self.eggs[self.best].copy()
        self.best_cost = int(self.costs[self.best])
        self.iterations = 0

    # ------------------------------------------------------------ pieces
    def fill_row(self, egg: np.ndarray, r: int) -> bool:
        """Randomised backtracking over the domains for row ``r`` (else a random permutation of its missing digits)."""
        N = self.N
        cells = r * N + self.free[r]
        m = len(cells)
        if m == 0:
            return True
        used = np.zeros(N + 1, dtype=bool)
        used[self.pre[r * N : (r + 1) * N]] = True
        chosen = np.zeros(m, dtype=np.int64)
        stack = [self.rng.permutation(np.flatnonzero(self.ok[cells[0]] & ~used[1:]) + 1)]
        pos = [0]
        nodes = 1
        while stack:
            k = len(stack) - 1
            if chosen[k]:
                used[chosen[k]] = False
                chosen[k] = 0
            if pos[k] < len(stack[k]):
                d = stack[k][pos[k]]
                pos[k] += 1
                chosen[k] = d
                used[d] = True
                if k == m - 1:
                    egg[cells] = chosen
                    return True
                if nodes >= self.fill_nodes:
                    break
                nodes += 1
                stack.append(self.rng.permutation(np.flatnonzero(self.ok[cells[k + 1]] & ~used[1:]) + 1))
                pos.append(0)
            else:
                stack.pop()
                pos.pop()
        egg[cells] = self.rng.permutation(self.missing[r])
        return False

    def build_egg(self) -> np.ndarray:
        egg = self.pre.copy()
        for r in range(self.N):
            self.fill_row(egg, r)
        return egg

    def cost(self, eggs: np.ndarray) -> np.ndarray:
        """Missing symbols over columns and boxes of each egg (eggs: int64 (P, C) or (C,))."""
        eggs = np.atleast_2d(eggs)
        vals = eggs[:, self.units]  # (P, 2N, N)
        present = np.zeros(vals.shape[:2] + (self.N + 1,), bool)
        np.put_along_axis(present, vals, True, axis=2)
        return (self.N - present[:, :, 1:].sum(axis=2)).sum(axis=1)

    @staticmethod
    def pmx_row(p1: np.ndarray, p2: np.ndarray, lo: int, hi: int) -> np.ndarray:
        N = len(p1)
        child = np.zeros(N, dtype=p1.dtype)
        child[lo : hi + 1] = p1[lo : hi + 1]
        where2 = np.empty(N + 1, dtype=np.int64)
        where2[p2] = np.arange(N)
        seg = p2[lo : hi + 1]
        for v, i in zip(seg[~np.isin(seg, child[lo : hi + 1])], np.flatnonzero(~np.isin(seg, child[lo : hi + 1])) + lo):
            t = i
            while lo <= t <= hi:
                t = where2[p1[t]]
            child[t] = v
        empty = child == 0
        child[empty] = p2[empty]
        return child

    @staticmethod
    def sorting_row(parents: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """parents: (3, N); mask: parent index (0-based) per position."""
        x = parents.copy()
        rows = np.arange(3)
        for i, k in enumerate(mask):
            v = x[k, i]
            p = np.argmax(x == v, axis=1)  # where each parent holds v
            x[rows, p] = x[rows, i]
            x[rows, i] = v
        return x[0]

    def mutate(self, egg: np.ndarray) -> bool:
        if len(self.mut_rows) == 0:
            return False
        N = self.N
        r = self.rng.choice(self.mut_rows)
        cells = r * N + self.free[r]
        d = egg[cells]
        ok = self.ok[cells]  # (m, N)
        feasible = np.triu(ok[:, d - 1] & ok[:, d - 1].T, 1)  # [a, b]: a's domain has b's digit and vice versa
        a, b = np.nonzero(feasible)
        if len(a) == 0:
            return False
        t = self.rng.integers(len(a))
        egg[cells[a[t]]], egg[cells[b[t]]] = d[b[t]], d[a[t]]
        return True

    def feasible_rows(self, eggs_rows: np.ndarray, r: int) -> bool:
        return bool(self.ok[r * self.N + np.arange(self.N), eggs_rows - 1].all())

    # ------------------------------------------------------------ iteration
    def iteration(self) -> bool:
        """One iteration; True if the best egg is a solution."""
        N, rng, nests = self.N, self.rng, self.nests
        b = self.best
        i = int(rng.integers(nests))
        new = self.eggs[i].copy()
        if i != b:
            if rng.random() < self.p_pmx:
                cuts = np.sort(rng.integers(0, N, size=(N, 2)), axis=1)
                for r in range(N):
                    child = self.pmx_row(
                        self.best_grid[r * N : (r + 1) * N], self.eggs[i, r * N : (r + 1) * N], *cuts[r]
                    )
                    if self.feasible_rows(child, r):
                        new[r * N : (r + 1) * N] = child
            else:
                masks = rng.choice(3, size=(N, N), p=self.w)
                for r in range(N):
                    sl = slice(r * N, (r + 1) * N)
                    child = self.sorting_row(
                        np.stack([self.best_grid[sl], self.eggs[b, sl], self.eggs[i, sl]]), masks[r]
                    )
                    if self.feasible_rows(child, r):
                        new[sl] = child
            if rng.random() < self.p_mut:
                self.mutate(new)
            c_new = int(self.cost(new)[0])
        else:
            c_new = int(self.costs[i])
        j = int(rng.integers(nests - 1))
        j += j >= i
        if c_new < self.costs[j]:
            self.eggs[j], self.costs[j] = new, c_new
            if c_new < self.costs[b]:
                b = j
        gone = np.flatnonzero(rng.random(nests) < self.pa)
        gone = gone[gone != b]
        for k in gone:
            self.eggs[k] = self.build_egg()
        if len(gone):
            self.costs[gone] = self.cost(self.eggs[gone])
        low = int(np.argmin(self.costs))
        if self.costs[low] < self.costs[b]:
            b = low
        self.best = b
        if self.costs[b] < self.best_cost:
            self.best_cost = int(self.costs[b])
            self.best_grid = self.eggs[b].copy()
        self.iterations += 1
        return self.best_cost == 0


@checked
def bench_cuckoo(
    iterations: int = 2000, repeat: int = 3, puzzle: str = "mk_hard_a", out: Callable[[str], object] = print
) -> dict:
    """Cuckoo search: iterations per second of its kernel over those of :class:`NumpyCuckoo`.

    Parameters
    ----------
    iterations : int
        Iterations per pass of each implementation (a run that solves the puzzle sooner counts the
        iterations it did).
    repeat : int
        Interleaved passes; the fastest pass of each counts.
    puzzle : str
        A bundled puzzle.
    out : callable
        Receives each line of the report.

    Returns
    -------
    dict
        ``kernel_iterations_per_second``, ``numpy_iterations_per_second``, ``kernel_over_numpy``, ``same_work``.
    """
    from ..model import library

    np_iterations = max(1, iterations // 20)  # the numpy version is far slower: fewer iterations per pass
    pz = library.puzzle(puzzle)

    m = kernel_vs_numpy(
        solver="cuckoo",
        title="Cuckoo search, default parameters (22 nests, pa 0.3, p_pmx 0.65, p_mut 0.9, weights 5:3:1)",
        puzzle=puzzle,
        unit="iterations",
        seeds=(0,),
        passes=repeat,
        kernel=solver_way("cuckoo", pz, iterations, {"iterations": 0}),
        numpy=reference_way(NumpyCuckoo, pz, np_iterations, NumpyCuckoo.iteration, "iterations"),
        kernel_label="solver.step",
        numpy_label="whole-population costs, vectorised crossovers, numpy backtracking",
        setup="set-up included",
        out=out,
    )
    return m.as_dict("iterations")


register_kernel_benchmark(
    "cuckoo",
    bench_cuckoo,
    solver="cuckoo",
    help="cuckoo search: kernel / numpy in iterations/s (side by side)",
    flags=(
        Flag(
            "--iterations",
            "iterations",
            "kernel iterations per pass; the numpy version does a twentieth",
            20,
            10_000_000,
        ),
        Flag("--passes", "repeat", "interleaved passes, the best counts", 1, 100, aliases=("--repeat",)),
    ),
    description="Time the cuckoo search with its default parameters on mk_hard_a. Measured side by side in "
    "interleaved passes: iterations per second of the numba kernel and of a straightforward numpy implementation "
    "of the same iteration (crossovers, feasible mutation, replacement, abandoned nests rebuilt by randomised "
    "backtracking, whole-population costs), same seed; printed as the ratio kernel / numpy.",
)
