"""``sudoku-lab bench reseda``: RESEDA's numba kernel next to a straightforward numpy step, and its times to solve.

The measured ratio is steps per second of the kernel over :class:`NumpyReseda`
(the same algorithm written the way one would in numpy), both run on the same
puzzle with the same seeds, in interleaved passes in one process
(:func:`._kernel_vs_numpy.kernel_vs_numpy`), the best of each counting. The times
per attempt and to solve are absolute, for this machine; the paper's figures
(other hardware) are printed next to them for orientation, not as a ratio.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from .._checks import checked
from ..model.puzzle import Puzzle
from ._kernel_vs_numpy import Flag, kernel_vs_numpy, reference_way, register_kernel_benchmark, solver_way

__all__ = ["bench_reseda", "NumpyReseda"]

#: The RESEDA paper's figures (its C++ on its hardware).
PAPER_ATTEMPT_S = 0.030
PAPER_FIENDISH_S = 3.71


@checked
class NumpyReseda:
    """A straightforward numpy implementation of RESEDA's step (blocks + pre-computation, sort selection).

    The same algorithm as the numba kernel (``sudoku_lab/_kernels/reseda.py``),
    written the way one would in numpy: samples vectorised over Q, the
    permutation draw of each box done position by position for all samples at
    once. It is the speed reference of ``sudoku-lab bench reseda`` (not
    draw-for-draw identical to the kernel).
    """

    def __init__(
        self, puzzle: Puzzle, alpha: float = 0.7, beta: float = 0.6, Q: int = 100, Q1: int = 10, seed: int = 0
    ):
        from ..exact.ac3 import initial_domains
        from ..solvers.reseda import _initial_p

        self.N, self.n, self.C = puzzle.N, puzzle.n, puzzle.C
        self.base = puzzle.grid.astype(np.int64)
        self.p = _initial_p(puzzle.grid, initial_domains(puzzle.grid, puzzle.n, one_pass=True), self.N, True)
        self.free = np.flatnonzero(self.base == 0)
        geo = puzzle.geometry
        self.units = geo.units
        self.boxes = []
        for b in range(self.N):
            cells = geo.units[2 * self.N + b]
            free = cells[self.base[cells] == 0]
            avail = np.ones(self.N, bool)
            avail[self.base[cells][self.base[cells] > 0] - 1] = False
            self.boxes.append((free, avail))
        self.alpha, self.beta, self.Q, self.Q1 = alpha, beta, Q, Q1
        self.rng = np.random.default_rng(seed)
        self.steps = 0

    def _sample(self) -> np.ndarray:
        Q, rng = self.Q, self.rng
        S = np.repeat(self.base[None, :], Q, axis=0)
        rows = np.arange(Q)
        for free, avail0 in self.boxes:
            m = len(free)
            if m == 0:
                continue
            avail = np.repeat(avail0[None, :], Q, axis=0)
            left = np.ones((Q, m), bool)
            P0 = self.p[free]  # (m, N)
            for _ in range(m):
                P = P0[None, :, :] * avail[:, None, :]  # (Q, m, N)
                tot = P.sum(axis=2)
                starved = (left & (tot <= 0)).any(axis=1)
                score = np.where(left, P.max(axis=2) / np.where(tot > 0, tot, 1.0), -1.0)
                pick = score.argmax(axis=1)
                probs = P[rows, pick]
                cum = probs.cumsum(axis=1)
                u = rng.random(Q) * cum[:, -1]
                d = (cum > u[:, None]).argmax(axis=1)
                ok = ~starved & left.any(axis=1)  # rows already complete (uniform fill) stay as they are
                S[rows[ok], free[pick[ok]]] = d[ok] + 1
                avail[rows[ok], d[ok]] = False
                left[rows[ok], pick[ok]] = False
                for q in np.flatnonzero(starved & left.any(axis=1)):  # uniform fill of the rest
                    cells = free[left[q]]
                    S[q, cells] = rng.permutation(np.flatnonzero(avail[q]) + 1)[: len(cells)]
                    left[q] = False
        return S

    def _costs(self, S: np.ndarray) -> np.ndarray:
        vals = S[:, self.units]  # (Q, 3N, N)
        present = np.zeros(vals.shape[:2] + (self.N + 1,), bool)
        np.put_along_axis(present, vals, True, axis=2)
        return (self.N - present[:, :, 1:].sum(axis=2)).sum(axis=1)

    def step(self) -> str:
        """One EDA step; returns "solved", "converged" or "running"."""
        S = self._sample()
        costs = self._costs(S)
        self.steps += 1
        if costs.min() == 0:
            return "solved"
        kept = np.lexsort((self.rng.random(self.Q), costs))[: self.Q1]
        r = np.zeros((self.C, self.N))
        np.add.at(r, (np.broadcast_to(np.arange(self.C), (self.Q1, self.C)), S[kept] - 1), 1.0 / self.Q1)
        f = self.free
        self.p[f] = self.alpha * self.p[f] + (1.0 - self.alpha) * r[f]
        return "converged" if self.p[f].max(axis=1).min() > self.beta else "running"


@checked
def bench_reseda(
    attempts: int = 200,
    puzzles: int = 50,
    numpy_runs: int = 20,
    out: Callable[[str], object] = print,
    fiendish: Sequence | None = None,
    passes: int = 3,
) -> dict:
    """Time RESEDA: kernel against numpy in steps/s, attempts on the easy puzzle, fiendish time to solve.

    Parameters
    ----------
    attempts : int
        Attempts (one run plus partial restarts, default parameters) on
        ``reseda_fig3_1_easy``, seeds 0..attempts-1.
    puzzles : int
        Kennett fiendish puzzles solved with the recommended strategy.
    numpy_runs : int
        Runs of the numpy reference and of the kernel per pass (seeds 0..numpy_runs-1, restart none, each
        to its end) for the steps-per-second ratio.
    out : callable
        Receives each line of the report.
    fiendish : sequence of Puzzle, optional
        Puzzles to use instead of the first ``puzzles`` Kennett fiendish ones.
    passes : int
        Interleaved passes of the steps-per-second comparison; the fastest of each way counts.

    Returns
    -------
    dict
        ``kernel_over_numpy`` (the measured ratio of ``kernel_same_step_per_second``
        to ``numpy_steps_per_second``), ``steps_per_second`` (over the attempts), ``time_per_attempt``, ``easy_solved``,
        ``fiendish_mean_time_to_solve``, ``fiendish_times`` (seconds) and ``same_work``.
    """
    from ..model import library
    from ..solvers import create
    from ..stepping import loop

    easy = library.puzzle("reseda_fig3_1_easy")

    # 1. the same step in numpy and in the kernel, on the same puzzle and configuration (restart none)
    m = kernel_vs_numpy(
        solver="reseda",
        title="RESEDA, default parameters (alpha 0.7, Q 100, Q1 10, blocks + pre-computation, "
        "sort), restart none, each run to its end",
        puzzle="reseda_fig3_1_easy",
        unit="steps",
        seeds=range(numpy_runs),
        passes=passes,
        kernel=solver_way("reseda", easy, 10_000, {"restart": "none"}, setup_timed=False),
        numpy=reference_way(NumpyReseda, easy, 10_000, lambda ref: ref.step() != "running", "steps", setup_timed=False),
        kernel_label="solver.step",
        numpy_label="samples vectorised over Q, box permutations drawn position by position",
        setup="set-up excluded on both sides",
        out=out,
    )
    # 2. attempts on the easy puzzle
    times, steps, solved = [], 0, 0
    for seed in range(attempts):
        s = create("reseda", restart="partial")
        t = time.perf_counter()
        s.reset(easy, seed)
        last = loop.run(s, loop.Solved())
        times.append(time.perf_counter() - t)
        steps += last.snapshot.iteration
        solved += last.snapshot.solved
    t_attempt = float(np.mean(times))
    kernel_rate = steps / float(np.sum(times))
    # 3. recommended strategy on fiendish puzzles, until solved
    pzs = list(fiendish if fiendish is not None else library.collection("kennett/fiendish")[:puzzles])
    solve_times = []
    for k, pz in enumerate(pzs):
        s = create("reseda", restart="partial+full", zones="diagonal")
        t = time.perf_counter()
        s.reset(pz, k)
        last = loop.run(s, loop.AnyOf(loop.Solved(), loop.MaxSeconds(120)))
        solve_times.append(time.perf_counter() - t)
        if not last.snapshot.solved:
            out(f"  warning: {pz.name} not solved within 120 s")
    t_fiendish = float(np.mean(solve_times))
    out(
        f"  reseda_fig3_1_easy, {attempts} attempts (restart=partial): {solved}/{attempts} solved, "
        f"mean {t_attempt * 1e3:.2f} ms per attempt, {kernel_rate:,.0f} steps/s "
        f"(absolute, this machine; the paper's C++: {PAPER_ATTEMPT_S * 1e3:.0f} ms on its hardware)"
    )
    out(
        f"  kennett/fiendish, {len(pzs)} puzzles, recommended strategy (partial restarts over the diagonal boxes, "
        f"then full restarts): mean time to solve {t_fiendish:.3f} s, median {np.median(solve_times):.3f} s, "
        f"max {np.max(solve_times):.3f} s (absolute, this machine; the paper: {PAPER_FIENDISH_S} s on its hardware)"
    )
    return {
        "time_per_attempt": t_attempt,
        "steps_per_second": kernel_rate,
        "numpy_steps_per_second": m.numpy_rate,
        "kernel_same_step_per_second": m.kernel_rate,
        "kernel_over_numpy": m.ratio,
        "fiendish_mean_time_to_solve": t_fiendish,
        "fiendish_times": solve_times,
        "easy_solved": solved,
        "same_work": m.same_work,
    }


register_kernel_benchmark(
    "reseda",
    bench_reseda,
    solver="reseda",
    help="RESEDA: kernel / numpy in steps/s (side by side); time per attempt and fiendish time to solve (absolute, "
    "next to the paper's)",
    flags=(
        Flag("--attempts", "attempts", "attempts on the easy puzzle", 1, 100_000),
        Flag("--numpy-runs", "numpy_runs", "runs of each implementation per pass", 1, 10_000),
        Flag("--passes", "passes", "interleaved passes of the kernel / numpy comparison, the best counts", 1, 100),
        Flag("--puzzles", "puzzles", "fiendish puzzles to solve", 1, 200),
    ),
    description="Time RESEDA with its default parameters. Measured side by side: steps per second of the numba "
    "kernel and of a straightforward numpy implementation of the same step, on reseda_fig3_1_easy with the same "
    "seeds, in interleaved passes of which the best counts; printed as the ratio kernel / numpy. Absolute, for "
    "this machine: the mean time per attempt on reseda_fig3_1_easy and the mean time to solve Kennett fiendish "
    "puzzles with the paper's recommended strategy, each next to the paper's figure (other hardware, not a "
    "ratio).",
)
