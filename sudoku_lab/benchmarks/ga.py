"""``sudoku-lab bench ga``: the GA's numba kernel next to a straightforward numpy generation, in generations/s.

Both breed the same number of generations of the same configuration (the
paper's: population 150, tournament 3, crossover 0.3, mutation 0.3, one
elite) on the same puzzle from the same seeds, timed in interleaved passes in
one process (:func:`._timing.side_by_side`); the ratio kernel / numpy is
printed. :class:`NumpyGA` is the same algorithm written the way one would in
numpy (whole population at once); it draws its random numbers in another
order, so it is not draw-for-draw identical to the kernel (the tests check
what can be checked: the same fitness, the same tournament winners from the
same draws, the same bands chosen, valid children).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np

from . import register_benchmark
from ._timing import ratio, ratio_text, side_by_side
from .._checks import checked
from ..puzzle import Puzzle

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

    def __init__(self, puzzle: Puzzle, population: int = 150, tournament: int = 3, crossover_rate: float = 0.3,
                 mutation_rate: float = 0.3, elites: int = 1, ties: str = "coin", seed: int = 0):
        from ..solvers.ga import box_tables

        self.n, self.N, self.C = puzzle.n, puzzle.N, puzzle.C
        self.P, self.T, self.pc, self.pm, self.E, self.ties = (population, tournament, crossover_rate, mutation_rate,
                                                               elites, ties)
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
def bench_ga(generations: int = 300, seeds: int = 5, puzzle: str = "nbcoin_106_difficult",
             out: Callable[[str], object] = print) -> dict:
    """Generations per second of the kernel and of :class:`NumpyGA`, side by side.

    Parameters
    ----------
    generations : int
        Generations bred by each implementation per seed and pass.
    seeds : int
        Seeds 0..seeds-1: the passes of :func:`side_by_side` (best pass counts).
    puzzle : str
        A bundled puzzle; the default is not solved within a few hundred generations, so every
        generation is a full one.
    out : callable
        Receives each line of the report.

    Returns
    -------
    dict
        ``kernel_generations_per_second``, ``numpy_generations_per_second``, ``kernel_over_numpy``.
    """
    from .. import library
    from ..solvers import create
    from ..warmup import warm_up

    pz = library.puzzle(puzzle)
    warm_up(("ga",))
    done = {"kernel": 0, "numpy": 0}
    state = {"seed": 0}

    def kernel():
        s = create("ga")
        s.reset(pz, seed=state["seed"])
        done["kernel"] += s.step(generations)

    def numpy_version():
        ref = NumpyGA(pz, seed=state["seed"])
        for _ in range(generations):
            if ref.generation():
                break
        done["numpy"] += ref.generations
        state["seed"] += 1

    best = side_by_side({"kernel": kernel, "numpy": numpy_version}, seeds)
    k_rate = generations / best["kernel"]
    np_rate = generations / best["numpy"]
    speedup = ratio(k_rate, np_rate)
    out(f"GA (Sato & Inoue), paper parameters (population 150, tournament 3, crossover 0.3, mutation 0.3, "
        f"1 elite, no local search) on {puzzle}, one process, kernels compiled before timing")
    out(f"  {generations} generations per pass, {seeds} passes (seeds 0..{seeds - 1}), the two interleaved, "
        f"best pass of each: numba kernel {k_rate:,.0f} generations/s, straightforward numpy "
        f"{np_rate:,.0f} generations/s")
    out(f"    kernel / numpy, generations per second (above 1: the kernel is faster): {ratio_text(speedup, 0)}")
    return {"kernel_generations_per_second": k_rate, "numpy_generations_per_second": np_rate,
            "kernel_over_numpy": speedup}


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    from .._console import int_option

    parser.add_argument("--generations", type=int_option(1, 1_000_000), default=300,
                        help="generations per pass of each implementation (default 300)")
    parser.add_argument("--passes", type=int_option(1, 1000), default=5,
                        help="interleaved passes, the best counts (default 5)")
    parser.add_argument("--puzzle", default="nbcoin_106_difficult", help="bundled puzzle (default "
                        "nbcoin_106_difficult)")


def _run(args: argparse.Namespace, out: Callable[[str], object]) -> int:
    bench_ga(generations=args.generations, seeds=args.passes, puzzle=args.puzzle, out=out)
    return 0


register_benchmark(
    "ga", help="GA: kernel / numpy in generations/s (side by side)", add_arguments=_add_arguments, run=_run,
    solver="ga", description="Time the GA of Sato and Inoue with the paper's parameters. Measured side by side: "
    "generations per second of the numba kernel and of a straightforward numpy generation (the whole population "
    "at once), on nbcoin_106_difficult from the same seeds, interleaved pass by pass; printed as the ratio "
    "kernel / numpy.")
