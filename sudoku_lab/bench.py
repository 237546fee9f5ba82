"""Benchmarks: speed ratios measured side by side in one run.

Each benchmark is a function that times several ways of doing the same work
in one process, prints how it measured and what it found, and returns the
numbers as a dict; tests call the functions with tiny inputs and never
assert times. ``sudoku-lab bench BENCHMARK`` runs them: :func:`add_arguments`
declares one sub-command per benchmark and :func:`main` runs the chosen one.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from . import exact
from .errors import ParameterError
from .geometry import SYMBOLS
from .collection_io import load_puzzles
from .puzzle import is_valid_solution

__all__ = ["bench_exact", "bench_reseda", "NumpyReseda", "add_arguments", "main"]


def _best_time(fn: Callable[[], object], repeat: int) -> float:
    """Shortest wall time of ``repeat`` calls: the least disturbed by other load."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _line(grid: np.ndarray) -> str:
    return "".join("." if d == 0 else SYMBOLS[d - 1] for d in grid)


def _run_qqwing(qqwing: str, text: str) -> tuple[float, list[str]]:
    t0 = time.perf_counter()
    done = subprocess.run([qqwing, "--solve", "--one-line"], input=text, capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, done.stdout.splitlines()


def bench_exact(puzzles, out: Callable[[str], object] = print, repeat: int = 3) -> dict:
    """Time the exact solver on a set of puzzles, next to qqwing when it is installed.

    Measured in one run, each the best of ``repeat`` passes over all puzzles,
    after one warm-up call of every kernel (so no compilation is timed):

    (a) ``exact.solve`` per puzzle in a Python loop (what a user's script pays:
        input checks, dispatch, search);
    (b) ``exact.solve_many``: the whole set in one kernel call;
    (c) ``exact.count_solutions(limit=2)`` per puzzle in a Python loop (a
        uniqueness proof);
    (d) for 9 x 9 sets, when ``qqwing`` is on the PATH: ``qqwing --solve
        --one-line`` fed every puzzle on stdin, timed as a whole process, once
        more with empty input to show its start-up time.

    Every solution of (a) is checked to be a valid grid that keeps the givens
    and, for puzzles with a unique solution, to equal qqwing's.

    Parameters
    ----------
    puzzles : sequence of (str, array_like of int, shape (C,)), or str or Path
        ``(name, grid)`` pairs of one size, or a puzzle file in any format
        :func:`sudoku_lab.collection_io.load_puzzles` reads.
    out : callable
        Receives each line of the report.
    repeat : int
        Passes per measurement.

    Returns
    -------
    dict
        ``puzzles``, ``n``, ``seconds`` and ``per_second`` (dicts keyed by
        ``solve``, ``batch``, ``count2`` and, when measured, ``qqwing``),
        ``qqwing_startup_s``, ``ratio_to_qqwing`` (ours / qqwing puzzles per
        second, per key), ``valid`` (all our solutions valid),
        ``matches_qqwing`` (None when qqwing was not run), ``unsolvable``
        (names without a solution).
    """
    if isinstance(puzzles, (str, Path)):
        puzzles = [(p.name, p.grid) for p in load_puzzles(puzzles)]
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise ParameterError(f"repeat must be a positive integer, got {repeat!r}", name="repeat")
    names, grids, n = _stack(puzzles)
    P = len(names)

    # Warm-up: load or compile every kernel before anything is timed
    # (random_solution loads the kernel of solve's restarts).
    exact.solve(grids[0])
    exact.random_solution(n, 0)
    exact.count_solutions(grids[0], limit=2)
    exact.solve_many(grids[:1], n)

    solutions: list[np.ndarray | None] = []
    counts: list[int] = []

    def solve_all():
        solutions[:] = [exact.solve(g) for g in grids]

    def count_all():
        counts[:] = [exact.count_solutions(g, limit=2) for g in grids]

    seconds = {
        "solve": _best_time(solve_all, repeat),
        "batch": _best_time(lambda: exact.solve_many(grids, n), repeat),
        "count2": _best_time(count_all, repeat),
    }
    unsolvable = [name for name, s in zip(names, solutions) if s is None]
    valid = all(
        s is None or (is_valid_solution(s, n) and np.array_equal(s[g > 0], g[g > 0])) for s, g in zip(solutions, grids)
    )

    qqwing = shutil.which("qqwing") if n == 3 else None
    startup = None
    matches = None
    if qqwing:
        text = "".join(_line(g) + "\n" for g in grids)
        runs = [_run_qqwing(qqwing, text) for _ in range(repeat)]
        seconds["qqwing"] = min(t for t, _ in runs)
        startup = min(_run_qqwing(qqwing, "")[0] for _ in range(repeat))
        theirs = runs[0][1]
        matches = len(theirs) == P and all(
            c != 1 or _line(s) == q for s, q, c in zip(solutions, theirs, counts)
        )

    per_second = {k: P / v for k, v in seconds.items()}
    ratios = {k: per_second[k] / per_second["qqwing"] for k in ("solve", "batch", "count2")} if qqwing else {}
    _report(out, P, n * n, seconds, per_second, ratios, startup, valid, matches, unsolvable, counts, repeat,
            qqwing is not None, n == 3)
    return {
        "puzzles": P,
        "n": n,
        "seconds": seconds,
        "per_second": per_second,
        "qqwing_startup_s": startup,
        "ratio_to_qqwing": ratios,
        "valid": valid,
        "matches_qqwing": matches,
        "unsolvable": unsolvable,
    }


def _stack(puzzles: Sequence) -> tuple[list[str], np.ndarray, int]:
    """Names, an int8 (P, C) array and the box size of (name, grid) pairs of one size."""
    puzzles = list(puzzles)
    if not puzzles:
        raise ParameterError("no puzzles to benchmark", name="puzzles")
    checked = [exact.as_grid(g) for _, g in puzzles]
    if len({n for _, n in checked}) > 1:
        raise ParameterError("benchmark puzzles must all have the same Sudoku size", name="puzzles")
    names = [str(name) for name, _ in puzzles]
    return names, np.stack([g for g, _ in checked]), checked[0][1]


def _report(out, P, N, seconds, per_second, ratios, startup, valid, matches, unsolvable, counts, repeat,
            with_qqwing, is_9x9):
    out(f"exact solver on {P} {N}x{N} puzzles: best of {repeat} passes, one process, one core, "
        "kernels compiled before timing")
    labels = {
        "solve": "exact.solve, Python loop",
        "batch": "exact.solve_many, one kernel call",
        "count2": "exact.count_solutions(limit=2), Python loop",
        "qqwing": "qqwing --solve, whole process",
    }
    for key, label in labels.items():
        if key in seconds:
            ratio = f"   {ratios[key]:6.1f} x qqwing" if key in ratios else ""
            out(f"  {label:<46} {per_second[key]:>10,.0f} puzzles/s  ({seconds[key] * 1e3:8.1f} ms){ratio}")
    if with_qqwing:
        out(f"  qqwing start-up (empty input): {startup * 1e3:.1f} ms, included in its time above")
    elif is_9x9:
        out("  qqwing not found on PATH: no comparison")
    unique = sum(c == 1 for c in counts)
    out(f"  {unique} of {P} puzzles have a unique solution, {len(unsolvable)} have none")
    out(f"  solutions valid and keep the givens: {'yes' if valid else 'NO'}"
        + ("" if matches is None else f"; equal to qqwing's where unique: {'yes' if matches else 'NO'}"))


# ---------------------------------------------------------------------- RESEDA
class NumpyReseda:
    """A straightforward numpy implementation of RESEDA's step (blocks + pre-computation, sort selection).

    The same algorithm as the numba kernel (``sudoku_lab/_kernels/reseda.py``),
    written the way one would in numpy: samples vectorised over Q, the
    permutation draw of each box done position by position for all samples at
    once. It is the speed reference of ``sudoku-lab bench reseda`` (not
    draw-for-draw identical to the kernel).
    """

    def __init__(self, puzzle, alpha=0.7, beta=0.6, Q=100, Q1=10, seed=0):
        from .ac3 import initial_domains
        from .solvers.reseda import _initial_p

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
                ok = ~starved
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


def bench_reseda(attempts: int = 200, puzzles: int = 50, numpy_runs: int = 20, out=print,
                 fiendish: Sequence | None = None) -> dict:
    """Time RESEDA: attempts on the easy puzzle, steps/s against numpy, fiendish time to solve.

    Parameters
    ----------
    attempts : int
        Attempts (one run plus partial restarts, default parameters) on
        ``reseda_fig3_1_easy``, seeds 0..attempts-1.
    puzzles : int
        Kennett fiendish puzzles solved with the recommended strategy.
    numpy_runs : int
        Runs of the numpy reference (and of the kernel, same seeds) for the
        steps-per-second ratio.
    """
    from . import library, loop
    from .solvers import create

    easy = library.puzzle("reseda_fig3_1_easy")
    warm = create("reseda")
    warm.reset(easy, 0)
    warm.step(5)
    # 1. attempts on the easy puzzle
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
    # 2. the same step in numpy, on the same puzzle and configuration (restart none), same seeds
    np_steps, np_time, k_steps, k_time = 0, 0.0, 0, 0.0
    for seed in range(numpy_runs):
        ref = NumpyReseda(easy, seed=seed)
        t = time.perf_counter()
        while ref.step() == "running" and ref.steps < 10_000:
            pass
        np_time += time.perf_counter() - t
        np_steps += ref.steps
        s = create("reseda", restart="none")
        t = time.perf_counter()
        s.reset(easy, seed)
        loop.run(s, loop.Solved())
        k_time += time.perf_counter() - t
        k_steps += s.iteration
    np_rate, k_rate = np_steps / np_time, k_steps / k_time
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
    out("RESEDA, default parameters (alpha 0.7, Q 100, Q1 10, blocks + pre-computation, sort), one process, "
        "kernels compiled before timing")
    out(f"  reseda_fig3_1_easy, {attempts} attempts (restart=partial): {solved}/{attempts} solved, "
        f"mean {t_attempt * 1e3:.2f} ms per attempt, {kernel_rate:,.0f} steps/s")
    out(f"    target <= 10 ms per attempt: {'met' if t_attempt <= 0.01 else 'NOT met'}; the paper's C++ took 30 ms "
        f"(ratio paper/ours {0.03 / t_attempt:.1f}x, different hardware)")
    out(f"  same step, restart=none, seeds 0..{numpy_runs - 1}: numba kernel {k_rate:,.0f} steps/s, "
        f"straightforward numpy {np_rate:,.0f} steps/s: kernel / numpy = {k_rate / np_rate:.1f}x")
    out(f"  kennett/fiendish, {len(pzs)} puzzles, recommended strategy (partial restarts over the diagonal boxes, "
        f"then full restarts): mean time to solve {t_fiendish:.3f} s, median {np.median(solve_times):.3f} s, "
        f"max {np.max(solve_times):.3f} s")
    out(f"    target <= 1 s: {'met' if t_fiendish <= 1.0 else 'NOT met'}; the paper: 3.71 s "
        f"(ratio paper/ours {3.71 / t_fiendish:.1f}x, different hardware)")
    return {"time_per_attempt": t_attempt, "steps_per_second": kernel_rate, "numpy_steps_per_second": np_rate,
            "kernel_over_numpy": k_rate / np_rate, "fiendish_mean_time_to_solve": t_fiendish,
            "fiendish_times": solve_times, "easy_solved": solved}


# ------------------------------------------------------------------------ CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the benchmarks as sub-commands of ``sudoku-lab bench``."""
    from ._console import int_option

    sub = parser.add_subparsers(dest="benchmark", metavar="BENCHMARK", required=True,
                                help="what to measure: exact, reseda or gui")
    ex = sub.add_parser("exact", help="exact solver (solve, batch, uniqueness) next to qqwing, in puzzles/s",
                        description="Time the exact solver on a puzzle set: exact.solve per puzzle, "
                        "exact.solve_many in one call, count_solutions(limit=2) per puzzle, and for 9x9 sets "
                        "qqwing --solve as a whole process when it is installed; print puzzles/s and ratios.")
    ex.add_argument("--set", default="kennett/fiendish",
                    help="bundled collection, file, or puzzle (default kennett/fiendish)")
    ex.add_argument("--repeat", type=int_option(1, 1000), default=3,
                    help="passes per measurement, the best counts (default 3)")
    ex.set_defaults(run_benchmark=_main_exact)
    rs = sub.add_parser("reseda", help="RESEDA: time per attempt, steps/s next to numpy, fiendish time to solve",
                        description="Time RESEDA with its default parameters: mean time per attempt on "
                        "reseda_fig3_1_easy, steps per second of the numba kernel next to a straightforward "
                        "numpy implementation of the same step (same run), and the mean time to solve Kennett "
                        "fiendish puzzles with the paper's recommended strategy.")
    rs.add_argument("--attempts", type=int_option(1, 100_000), default=200,
                    help="attempts on the easy puzzle (default 200)")
    rs.add_argument("--numpy-runs", type=int_option(1, 10_000), default=20,
                    help="runs of each implementation (default 20)")
    rs.add_argument("--puzzles", type=int_option(1, 200), default=50, help="fiendish puzzles to solve (default 50)")
    rs.set_defaults(run_benchmark=_main_reseda)
    gui = sub.add_parser("gui", help="solver throughput with the window drawing vs headless; event-loop latency",
                         description="Open the lab window (offscreen without a display) and compare RESEDA's "
                         "throughput while the window draws with headless throughput on reseda_fig4_1_hard, "
                         "and measure the GUI event loop's latency with a 10 ms timer. Runs in a subprocess: "
                         "the core never imports Qt.")
    gui.add_argument("--runs", type=int_option(1, 100_000), default=150, help="seeded solves per setting (default 150)")
    gui.add_argument("--rounds", type=int_option(1, 1000), default=5, help="alternating blocks (default 5)")
    gui.set_defaults(run_benchmark=_main_gui)


def main(args: argparse.Namespace) -> int:
    """Run the benchmark chosen on the command line; returns the exit status."""
    return args.run_benchmark(args)


def _main_reseda(args: argparse.Namespace) -> int:
    bench_reseda(attempts=args.attempts, puzzles=args.puzzles, numpy_runs=args.numpy_runs)
    return 0


def _main_gui(args: argparse.Namespace) -> int:
    import sys

    cmd = [sys.executable, "-m", "sudoku_lab_ui.bench_gui", "--runs", str(args.runs), "--rounds", str(args.rounds)]
    return subprocess.run(cmd).returncode


def _main_exact(args: argparse.Namespace) -> int:
    from ._console import ReadProgress, resolve_puzzles

    reading = ReadProgress(args.set)
    puzzles = [(p.name or f"{args.set} #{k + 1}", p.grid) for k, p in enumerate(resolve_puzzles(args.set, reading))]
    reading.close()
    bench_exact(puzzles, repeat=args.repeat)
    return 0
