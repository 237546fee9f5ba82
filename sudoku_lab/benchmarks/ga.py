"""``sudoku-lab bench ga``: the GA's numba kernel next to a straightforward numpy generation, in generations/s.

Both breed the same number of generations of the same configuration (the
paper's: population 150, tournament 3, crossover 0.3, mutation 0.3, one
elite) on the same puzzle from the same seeds, timed in interleaved passes in
one process (:func:`._kernel_vs_numpy.kernel_vs_numpy`); the ratio kernel / numpy is
printed. :class:`NumpyGA` is the same algorithm written the way one would in
numpy (whole population at once); it draws its random numbers in another
order, so it is not draw-for-draw identical to the kernel (the tests check
what can be checked: the same fitness, the same tournament winners from the
same draws, the same bands chosen, valid children).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._checks import checked
from ..model.puzzle import Puzzle
from ._kernel_vs_numpy import Flag, kernel_vs_numpy, reference_way, register_kernel_benchmark, solver_way

__all__ = ["NumpyGA", "bench_ga", "numpy_fitness"]


@checked
def numpy_fitness(pop: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct-count fitness of every row of ``pop`` (P, C), with the per-row and per-column counts (P, N)."""
    N = n * n
    P = pop.shape[0]
    g = pop.reshape(P, N, N).astype(np.int64)

    def distinct(lines):  # (P, N, N): lines along the last axis
        present = np.zeros(lines.shape[:2] + (N + 1,), dtype=bool)
        np.put_along_axis(present, lines, True, axis=2)
        return present[:, :, 1:].sum(axis=2)

    rows = distinct(g)
    cols = distinct(g.transpose(0, 2, 1))
    return rows.sum(axis=1) + cols.sum(axis=1), rows, cols


@checked
class NumpyGA:
    """Sato and Inoue's GA with numpy operations over the whole population (the benchmark's reference).

    Parameters
    ----------
    puzzle : Puzzle
    population, tournament, crossover, mutation, elites, ties :
        As the ``ga`` solver's parameters (no local search).
    seed : int
    """

    def __init__(
        self,
        puzzle: Puzzle,
        population: int = 150,
        tournament: int = 3,
        crossover_rate: float = 0.3,
        mutation_rate: float = 0.3,
        elites: int = 1,
        ties: str = "coin",
        seed: int = 0,
    ):
        from ..solvers.ga import box_tables

        self.n, self.N, self.C = puzzle.n, puzzle.N, puzzle.C
        self.P, self.T, self.pc, self.pm, self.E, self.ties = (
            population,
            tournament,
            crossover_rate,
            mutation_rate,
            elites,
            ties,
        )
        self.givens = puzzle.grid.astype(np.int8)
        self.box_free, self.box_nfree, self.box_missing, self.mut_boxes, self.n_mut = box_tables(puzzle.grid, puzzle.n)
        self.rng = np.random.default_rng(seed)
        cells = np.arange(self.C)
        self.row_band = (cells // self.N) // self.n  # band of boxes of each cell, horizontal and vertical
        self.col_band = (cells % self.N) // self.n
        self.pop = np.stack([self._random_individual() for _ in range(self.P)])
        self.fit, self.rows, self.cols = numpy_fitness(self.pop, self.n)
        self.generations = 0

    def _random_individual(self) -> np.ndarray:
        g = self.givens.copy()
        for b in range(self.N):
            m = self.box_nfree[b]
            g[self.box_free[b, :m]] = self.rng.permutation(self.box_missing[b, :m])
        return g

    def tournament(self, draws: np.ndarray) -> np.ndarray:
        """Winners of tournaments given their uniform draws (k, T): the fittest, the first drawn on ties."""
        idx = (draws * self.P).astype(np.int64)
        return idx[np.arange(len(idx)), np.argmax(self.fit[idx], axis=1)]

    def band_children(self, a: np.ndarray, b: np.ndarray, coins: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Children 1 (horizontal bands by row scores) and 2 (vertical bands by column scores) of pairs (a, b).

        ``coins`` (k, 2, n) of booleans decide tied bands (True: parent a); with ``ties="first"`` they are ignored.
        """
        n = self.n
        k = len(a)
        ra = self.rows[a].reshape(k, n, n).sum(axis=2)
        rb = self.rows[b].reshape(k, n, n).sum(axis=2)
        ca = self.cols[a].reshape(k, n, n).sum(axis=2)
        cb = self.cols[b].reshape(k, n, n).sum(axis=2)
        tie = coins if self.ties == "coin" else np.ones_like(coins)
        take_r = (ra > rb) | ((ra == rb) & tie[:, 0])
        take_c = (ca > cb) | ((ca == cb) & tie[:, 1])
        A, B = self.pop[a], self.pop[b]
        c1 = np.where(take_r[:, self.row_band], A, B)
        c2 = np.where(take_c[:, self.col_band], A, B)
        return c1, c2

    def generation(self) -> bool:
        """Breed the next generation; True if it holds a solution."""
        rng, P, E = self.rng, self.P, self.E
        elite = np.argsort(-self.fit, kind="stable")[:E]
        pairs = (P - E + 1) // 2
        winners = self.tournament(rng.random((2 * pairs, self.T)))
        a, b = winners[0::2], winners[1::2]
        cross = rng.random(pairs) < self.pc
        c1, c2 = self.pop[a].copy(), self.pop[b].copy()
        if cross.any():
            x1, x2 = self.band_children(a[cross], b[cross], rng.random((int(cross.sum()), 2, self.n)) < 0.5)
            c1[cross], c2[cross] = x1, x2
        children = np.empty((2 * pairs, self.C), dtype=np.int8)
        children[0::2], children[1::2] = c1, c2
        children = children[: P - E]
        mut = np.flatnonzero(rng.random(len(children)) < self.pm)
        if len(mut) and self.n_mut:
            boxes = self.mut_boxes[(rng.random(len(mut)) * self.n_mut).astype(np.int64)]
            m = self.box_nfree[boxes]
            i = (rng.random(len(mut)) * m).astype(np.int64)
            j = (rng.random(len(mut)) * (m - 1)).astype(np.int64)
            j += j >= i
            ci, cj = self.box_free[boxes, i], self.box_free[boxes, j]
            vi, vj = children[mut, ci].copy(), children[mut, cj].copy()
            children[mut, ci], children[mut, cj] = vj, vi
        fit, rows, cols = numpy_fitness(children, self.n)
        self.pop = np.concatenate([self.pop[elite], children])
        self.fit = np.concatenate([self.fit[elite], fit])
        self.rows = np.concatenate([self.rows[elite], rows])
        self.cols = np.concatenate([self.cols[elite], cols])
        self.generations += 1
        return bool(self.fit.max() == 2 * self.N * self.N)


@checked
def bench_ga(
    generations: int = 300,
    seeds: int = 1,
    passes: int = 5,
    puzzle: str = "nbcoin_106_difficult",
    out: Callable[[str], object] = print,
) -> dict:
    """The GA kernel's generations per second over :class:`NumpyGA`'s (see :func:`._kernel_vs_numpy.kernel_vs_numpy`).

    Parameters
    ----------
    generations : int
        Most generations bred by each implementation per seed and pass.
    seeds : int
        Seeds 0..seeds-1, run by both implementations in every pass.
    passes : int
        Interleaved passes; the fastest of each way counts.
    puzzle : str
        A bundled puzzle; the default is not solved within a few hundred generations, so every
        generation is a full one.
    out : callable
        Receives each line of the report.

    Returns
    -------
    dict
        ``kernel_generations_per_second``, ``numpy_generations_per_second``, ``kernel_over_numpy``,
        ``same_work``.
    """
    from ..model import library

    pz = library.puzzle(puzzle)

    m = kernel_vs_numpy(
        solver="ga",
        title="GA (Sato & Inoue), paper parameters (population 150, tournament 3, crossover 0.3, "
        f"mutation 0.3, 1 elite, no local search), at most {generations} generations a run",
        puzzle=puzzle,
        unit="generations",
        seeds=range(seeds),
        passes=passes,
        kernel=solver_way("ga", pz, generations),
        numpy=reference_way(NumpyGA, pz, generations, NumpyGA.generation, "generations"),
        kernel_label="solver.step",
        numpy_label="the whole population at once",
        setup="set-up included",
        out=out,
    )
    return m.as_dict("generations")


register_kernel_benchmark(
    "ga",
    bench_ga,
    solver="ga",
    help="GA: kernel / numpy in generations/s (side by side)",
    flags=(
        Flag("--generations", "generations", "most generations per run of each implementation", 1, 1_000_000),
        Flag("--passes", "passes", "interleaved passes, the best counts", 1, 1000),
        Flag("--seeds", "seeds", "seeds 0..SEEDS-1 in every pass", 1, 1000),
        Flag("--puzzle", "puzzle", "bundled puzzle"),
    ),
    description="Time the GA of Sato and Inoue with the paper's parameters. Measured side by side: "
    "generations per second of the numba kernel and of a straightforward numpy generation (the whole population "
    "at once), on nbcoin_106_difficult from the same seeds, interleaved pass by pass; printed as the ratio "
    "kernel / numpy.",
)
