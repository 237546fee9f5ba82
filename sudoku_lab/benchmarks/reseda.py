"""``sudoku-lab bench reseda``: RESEDA's numba kernel next to a straightforward numpy step, and its times to solve.

The measured ratio is steps per second of the kernel over :class:`NumpyReseda`
(the same algorithm written the way one would in numpy), both run on the same
puzzle with the same seeds, alternating run by run in one process. The times
per attempt and to solve are absolute, for this machine; the paper's figures
(other hardware) are printed next to them for orientation, not as a ratio.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence

import numpy as np

from . import register_benchmark
from ._timing import ratio, ratio_text
from .._checks import checked
from ..puzzle import Puzzle

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

    def __init__(self, puzzle: Puzzle, alpha: float = 0.7, beta: float = 0.6, Q: int = 100, Q1: int = 10,
                 seed: int = 0):
        from ..ac3 import initial_domains
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
def bench_reseda(attempts: int = 200, puzzles: int = 50, numpy_runs: int = 20,
                 out: Callable[[str], object] = print, fiendish: Sequence | None = None) -> dict:
    """Time RESEDA: kernel against numpy in steps/s, attempts on the easy puzzle, fiendish time to solve.

    Parameters
    ----------
    attempts : int
        Attempts (one run plus partial restarts, default parameters) on
        ``reseda_fig3_1_easy``, seeds 0..attempts-1.
    puzzles : int
        Kennett fiendish puzzles solved with the recommended strategy.
    numpy_runs : int
        Runs of the numpy reference and of the kernel (same seeds, alternating)
        for the steps-per-second ratio.
    out : callable
        Receives each line of the report.
    fiendish : sequence of Puzzle, optional
        Puzzles to use instead of the first ``puzzles`` Kennett fiendish ones.

    Returns
    -------
    dict
        ``kernel_over_numpy`` (the measured ratio of ``kernel_same_step_per_second``
        to ``numpy_steps_per_second``), ``steps_per_second`` (over the attempts), ``time_per_attempt``, ``easy_solved``,
        ``fiendish_mean_time_to_solve`` and ``fiendish_times`` (seconds).
    """
    from .. import library, loop
    from ..solvers import create
    from ..warmup import warm_up

    easy = library.puzzle("reseda_fig3_1_easy")
    warm_up(("reseda",))
    # 1. the same step in numpy and in the kernel, on the same puzzle and configuration (restart none),
    #    same seeds, alternating run by run so that a slow patch of the machine hits both
    np_steps, np_time, k_steps, k_time = 0, 0.0, 0, 0.0
    for seed in range(numpy_runs):
        ref = NumpyReseda(easy, seed=seed)
        t = time.perf_counter()
        while ref.step() == "running" and ref.steps < 10_000:
            pass
        np_time += time.perf_counter() - t
        np_steps += ref.steps
        s = create("reseda", restart="none")
        s.reset(easy, seed)
        t = time.perf_counter()
        loop.run(s, loop.Solved())
        k_time += time.perf_counter() - t
        k_steps += s.iteration
    np_rate, k_rate = np_steps / np_time, k_steps / k_time
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
    speedup = ratio(k_rate, np_rate)
    out("RESEDA, default parameters (alpha 0.7, Q 100, Q1 10, blocks + pre-computation, sort), one process, "
        "kernels compiled before timing")
    out(f"  same step side by side (reseda_fig3_1_easy, restart=none, seeds 0..{numpy_runs - 1}, alternating): "
        f"numba kernel {k_rate:,.0f} steps/s, straightforward numpy {np_rate:,.0f} steps/s")
    out(f"    kernel / numpy, steps per second (above 1: the kernel is faster): {ratio_text(speedup, 0)}")
    out(f"  reseda_fig3_1_easy, {attempts} attempts (restart=partial): {solved}/{attempts} solved, "
        f"mean {t_attempt * 1e3:.2f} ms per attempt, {kernel_rate:,.0f} steps/s "
        f"(absolute, this machine; the paper's C++: {PAPER_ATTEMPT_S * 1e3:.0f} ms on its hardware)")
    out(f"  kennett/fiendish, {len(pzs)} puzzles, recommended strategy (partial restarts over the diagonal boxes, "
        f"then full restarts): mean time to solve {t_fiendish:.3f} s, median {np.median(solve_times):.3f} s, "
        f"max {np.max(solve_times):.3f} s (absolute, this machine; the paper: {PAPER_FIENDISH_S} s on its hardware)")
    return {"time_per_attempt": t_attempt, "steps_per_second": kernel_rate, "numpy_steps_per_second": np_rate,
            "kernel_same_step_per_second": k_rate,
            "kernel_over_numpy": speedup, "fiendish_mean_time_to_solve": t_fiendish,
            "fiendish_times": solve_times, "easy_solved": solved}


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    from .._console import int_option

    parser.add_argument("--attempts", type=int_option(1, 100_000), default=200,
                        help="attempts on the easy puzzle (default 200)")
    parser.add_argument("--numpy-runs", type=int_option(1, 10_000), default=20,
                        help="runs of each implementation (default 20)")
    parser.add_argument("--puzzles", type=int_option(1, 200), default=50,
                        help="fiendish puzzles to solve (default 50)")


def _run(args: argparse.Namespace, out: Callable[[str], object]) -> int:
    bench_reseda(attempts=args.attempts, puzzles=args.puzzles, numpy_runs=args.numpy_runs, out=out)
    return 0


register_benchmark(
    "reseda", help="RESEDA: kernel / numpy in steps/s (side by side); time per attempt and fiendish time to "
    "solve (absolute, next to the paper's)", add_arguments=_add_arguments, run=_run, solver="reseda",
    description="Time RESEDA with its default parameters. Measured side by side: steps per second of the numba "
    "kernel and of a straightforward numpy implementation of the same step, on reseda_fig3_1_easy with the same "
    "seeds, alternating run by run; printed as the ratio kernel / numpy. Absolute, for this machine: the mean "
    "time per attempt on reseda_fig3_1_easy and the mean time to solve Kennett fiendish puzzles with the "
    "paper's recommended strategy, each next to the paper's figure (other hardware, not a ratio).")
