"""``sudoku-lab bench nbcoin``: NB-COIN's numba kernel next to a straightforward numpy generation.

The measured ratio is generations per second of the kernel over
:class:`NumpyNBCoin` (the same generation written the way one would in numpy:
sampling vectorised over the population, fitness and the update on whole
arrays), both on the same puzzle with the same seeds, in interleaved passes in one
process (:func:`._kernel_vs_numpy.kernel_vs_numpy`), the best of each counting.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._checks import checked
from ..model.puzzle import Puzzle
from ._kernel_vs_numpy import Flag, kernel_vs_numpy, reference_way, register_kernel_benchmark, solver_way

__all__ = ["NumpyNBCoin", "bench_nbcoin"]


@checked
class NumpyNBCoin:
    """A straightforward numpy implementation of one NB-COIN generation (not draw-for-draw the kernel's).

    The reference of ``sudoku-lab bench nbcoin``: sampling vectorised over the population, fitness and the
    update on whole arrays.

    Parameters
    ----------
    puzzle : Puzzle
    population, C, k, upper : as the solver's parameters.
    counts : bool
        The update's ``counts`` reading (the paper's raw sums, the solver's default) rather than frequencies.
    seed : int
    """

    def __init__(
        self,
        puzzle: Puzzle,
        population: int = 150,
        C: float = 25.0,
        k: float = 0.4,
        upper: float = 0.99,
        counts: bool = True,
        seed: int = 0,
    ):
        from ..solvers.nbcoin import box_tables, initial_model, selected_count

        self.n, self.N, self.C = puzzle.n, puzzle.N, puzzle.C
        self.base = puzzle.grid.astype(np.int64)
        self.M, self.allowed = initial_model(puzzle.grid, puzzle.n)
        self.box_cells, _, _, _ = box_tables(puzzle.grid, puzzle.n)
        self.box_cells = self.box_cells.astype(np.int64)
        self.free_pos = self.base[self.box_cells] == 0  # (N boxes, N positions)
        self.P, self.G = population, selected_count(population, C)
        self.k, self.upper, self.counts = k, upper, counts
        self.units = puzzle.geometry.units[: 2 * self.N]
        self.rng = np.random.default_rng(seed)
        self.generations = 0

    def sample(self) -> np.ndarray:
        """P individuals (int64, shape (P, C)), one permutation per box drawn position by position."""
        P, N, rng = self.P, self.N, self.rng
        pop = np.repeat(self.base[None, :], P, axis=0)
        rows = np.arange(P)
        for b in range(N):
            cells = self.box_cells[b]
            free = np.flatnonzero(self.free_pos[b])
            m = len(free)
            if m == 0:
                continue
            avail = np.ones((P, N), bool)
            avail[:, self.base[cells][self.base[cells] > 0] - 1] = False
            order = free[np.argsort(rng.random((P, m)), axis=1)]  # a random order of the free positions
            for t in range(m):
                pos = order[:, t]
                w = self.M[b, pos] * avail  # (P, N)
                tot = w.sum(axis=1)
                starved = tot <= 0
                w[starved] = avail[starved]
                cum = w.cumsum(axis=1)
                u = rng.random(P) * cum[:, -1]
                d = (cum > u[:, None]).argmax(axis=1)
                pop[rows, cells[pos]] = d + 1
                avail[rows, d] = False
        return pop

    def fitness(self, pop: np.ndarray) -> np.ndarray:
        """Distinct-count fitness of each individual (int64, shape (P,))."""
        vals = pop[:, self.units]  # (P, 2N, N)
        present = np.zeros(vals.shape[:2] + (self.N + 1,), bool)
        np.put_along_axis(present, vals, True, axis=2)
        return present[:, :, 1:].sum(axis=(1, 2))

    def select(self, fit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The G best (best first) and G worst (worst first); ties by index, as the kernel."""
        ranked = np.lexsort((np.arange(len(fit)), -fit))
        return ranked[: self.G], ranked[::-1][: self.G]

    def update(self, pop: np.ndarray, good: np.ndarray, bad: np.ndarray) -> None:
        """Reward the good set, punish the bad set, clip, forbid, renormalise (free positions only)."""
        N = self.N
        digits = np.arange(1, N + 1)
        cells = self.box_cells  # (N, N)
        f = (pop[good][:, cells, None] == digits).sum(axis=0).astype(float)  # (N, N, N)
        h = (pop[bad][:, cells, None] == digits).sum(axis=0).astype(float)
        if not self.counts:
            f /= len(good)
            h /= len(bad)
        a, c = self.k / N, self.k / (N * N)
        v = self.M + a * f - c * f.sum(axis=2, keepdims=True)
        v = v - a * h + c * h.sum(axis=2, keepdims=True)
        v = np.where(self.allowed, np.clip(v, 0.0, self.upper), 0.0)
        tot = v.sum(axis=2, keepdims=True)
        uniform = self.allowed / self.allowed.sum(axis=2, keepdims=True)
        v = np.where(tot > 0, v / np.where(tot > 0, tot, 1.0), uniform)
        self.M = np.where(self.free_pos[:, :, None], v, self.M)

    def generation(self) -> bool:
        """One generation; True if an individual is a solution."""
        pop = self.sample()
        fit = self.fitness(pop)
        self.generations += 1
        if fit.max() == 2 * self.N * self.N:
            return True
        good, bad = self.select(fit)
        self.update(pop, good, bad)
        return False


@checked
def bench_nbcoin(
    runs: int = 6,
    generations: int = 300,
    puzzle: str = "nbcoin_106_difficult",
    out: Callable[[str], object] = print,
    passes: int = 3,
) -> dict:
    """Time NB-COIN's kernel against :class:`NumpyNBCoin` in generations per second, on the same seeds.

    Parameters
    ----------
    runs : int
        Runs of each implementation per pass (seeds 0..runs-1).
    generations : int
        Most generations per run (a run also ends when solved).
    puzzle : str
        A bundled puzzle.
    out : callable
        Receives each line of the report.
    passes : int
        Interleaved passes; the fastest of each way counts.

    Returns
    -------
    dict
        ``kernel_generations_per_second``, ``numpy_generations_per_second``, ``kernel_over_numpy`` and
        ``same_work``.
    """
    from ..model import library

    pz = library.puzzle(puzzle)

    m = kernel_vs_numpy(
        solver="nbcoin",
        title="NB-COIN, default parameters (population 150, C 25, k 0.4, upper 0.99, update counts), "
        f"at most {generations} generations a run",
        puzzle=puzzle,
        unit="generations",
        seeds=range(runs),
        passes=passes,
        kernel=solver_way("nbcoin", pz, generations, {"generations": generations}, setup_timed=False),
        numpy=reference_way(NumpyNBCoin, pz, generations, NumpyNBCoin.generation, "generations", setup_timed=False),
        kernel_label="solver.step",
        numpy_label="sampling vectorised over the population, fitness and update on whole arrays",
        setup="set-up excluded on both sides",
        out=out,
    )
    return m.as_dict("generations")


register_kernel_benchmark(
    "nbcoin",
    bench_nbcoin,
    solver="nbcoin",
    help="NB-COIN: kernel / numpy in generations/s (side by side)",
    flags=(
        Flag("--runs", "runs", "runs of each implementation per pass", 1, 10_000),
        Flag("--generations", "generations", "most generations per run", 1, 1_000_000),
        Flag("--passes", "passes", "interleaved passes, the best counts", 1, 1000),
    ),
    description="Time NB-COIN with its default parameters. Measured side by side: generations per second of the "
    "numba kernel and of a straightforward numpy implementation of the same generation (sampling, fitness, "
    "selection, update), on nbcoin_106_difficult with the same seeds, in interleaved passes of which the best "
    "counts; printed as the ratio kernel / numpy.",
)
