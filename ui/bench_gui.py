"""``sudoku-lab bench gui``: solver throughput with the window drawing, against headless, in one run.

Run as ``python -m sudoku_lab_ui.bench_gui`` (the core's ``sudoku-lab bench gui`` starts it
in a subprocess, so ``sudoku_lab`` never imports Qt).

Method: for each solver asked for (``--algo``, repeatable; ``all`` is every
registered metaheuristic), the solver runs on the puzzle and with the
parameters of its first declared example (``Solver.examples[0]``; RESEDA:
``reseda_fig4_1_hard``, defaults) for seeds 0, 1, 2, ..., each run until
solved or ``--iterations``, both headless through :func:`sudoku_lab.stepping.loop.run`
(carrying the adapted chunk size from run to run, as the worker does) and in
the real main window with the solver chosen in its algorithm box, so that its
own views dock and draw (worker thread, board at 30 Hz, plots at 10 Hz), in
alternating blocks of seeds so that drifts of a shared machine hit both alike.
Throughput = iterations / seconds spent in the stepping loop, summed over the
same seeds in both settings (reset round trips are not counted). A 10 ms
QTimer records how late each tick fires while the window runs: its
99th-percentile lateness is the event loop's latency.

It also measures the Compare side by side window
(:mod:`sudoku_lab_ui.compare_window`; ``--panes``, default ``1,2,4``, ``--panes ""``
skips it): the first solver asked for, with the same
parameters and seed in every pane, runs in lockstep by iteration to
``--iterations`` with 1, 2 and 4 panes, the counts alternating in each round.
Per pane: iterations / seconds in that pane's stepping loop; total: all panes'
iterations / wall seconds from Run to the end of the comparison; each printed
with its ratio to the first count.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np


def _termination(iterations: int):
    from sudoku_lab.stepping import loop

    return loop.AnyOf(loop.Solved(), loop.MaxIterations(iterations)) if iterations else loop.Solved()


def _headless(name, params, puzzle, seeds, iterations) -> tuple[int, float]:
    from sudoku_lab.solvers import create
    from sudoku_lab.stepping import loop

    steps = 0
    seconds = 0.0
    chunk = 1
    for seed in seeds:
        s = create(name, **params)
        s.reset(puzzle, seed=seed)
        last = loop.run(s, _termination(iterations), chunk=chunk)  # carries the chunk size over, as the worker does
        chunk = last.chunk
        steps += last.snapshot.iteration
        seconds += last.elapsed
    return steps, seconds


class _Window:
    """The real main window driven seed by seed, with a 10 ms timer measuring event-loop lateness."""

    def __init__(self, puzzle, timeout: float):
        from PySide6.QtCore import QElapsedTimer, QTimer
        from PySide6.QtWidgets import QApplication

        from .app import create_window

        self.app = QApplication.instance() or QApplication(sys.argv[:1])
        self.win = create_window(puzzle)
        self.win.resize(1600, 1000)
        self.win.show()
        self.c = self.win.controller
        self.timeout = timeout
        self.ends: list[str] = []
        self.c.runEnded.connect(lambda reason: self.ends.append(reason))
        self.late_running: list[float] = []
        self.late_all: list[float] = []
        self.history_peak = 0  # most bytes a run's history held (the lab records every run)
        self.history_limit = 0
        self._clock = QElapsedTimer()
        self._last = 0
        self._timer = QTimer()
        self._timer.setInterval(10)
        self._timer.timeout.connect(self._tick)
        self.wait(lambda: self.c.state == "idle" and self.c.latest is not None, 120)

    def _tick(self) -> None:
        now = self._clock.elapsed()
        late = max(0, now - self._last - 10)
        self._last = now
        self.late_all.append(late)
        if self.c.state == "running":
            self.late_running.append(late)

    def wait(self, cond, limit: float) -> None:
        from PySide6.QtCore import QEventLoop, QTimer

        t0 = time.perf_counter()
        while not cond():
            loop = QEventLoop()
            QTimer.singleShot(5, loop.quit)
            loop.exec()
            if time.perf_counter() - t0 > limit:
                raise TimeoutError("the window did not respond in time")

    def select(self, name: str, params: dict, puzzle) -> None:
        """Choose the solver in the window's algorithm box, as a user would, then its parameters and puzzle."""
        box = self.win.solver_box
        box.setCurrentIndex(box.findData(name))
        for key, value in params.items():
            err = self.c.set_param(key, value)
            if err:
                raise ValueError(err)
        if self.c.puzzle is not puzzle:
            self.c.load_puzzle(puzzle)
        self.wait(
            lambda: self.c.state == "idle" and self.c.latest is not None and self.c.latest.snapshot.solver == name,
            self.timeout,
        )
        self.win.view_host.raise_solver_views()  # the solver's own views in front, drawing
        self.wait(lambda: True, 1)

    def solve(self, seeds, iterations: int) -> tuple[int, float]:
        """Solve for each seed as a user would (seed box, Run); steps and seconds in the stepping loop."""
        c = self.c
        steps, seconds = 0, 0.0
        c.timeline.connect(self._on_timeline)
        self._clock.start()
        self._last = 0
        self._timer.start()
        for seed in seeds:
            self.win.seed_box.setValue(seed)  # resets with this seed
            self.wait(
                lambda: c.state == "idle" and c.latest is not None and c.latest.snapshot.iteration == 0, self.timeout
            )
            self.ends.clear()
            c.run(_termination(iterations))
            self.wait(lambda: bool(self.ends) and c.latest is not None and c.latest.done, self.timeout)
            steps += c.latest.snapshot.iteration
            seconds += c.latest.elapsed
        self._timer.stop()
        c.timeline.disconnect(self._on_timeline)
        return steps, seconds

    def _on_timeline(self, info) -> None:
        """The peak of the bytes the run's history (its keyframes) held, over the frames shown."""
        self.history_peak = max(self.history_peak, info.memory_used)
        self.history_limit = info.memory_limit

    def close(self) -> None:
        self.win.close()


def parse_panes(text: str) -> list[int]:
    """Pane counts from ``--panes`` ("1,2,4"); SystemExit naming what is wrong."""
    try:
        counts = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        counts = []
    if not counts or any(not 1 <= n <= 4 for n in counts):
        raise SystemExit(f"sudoku-lab bench gui: --panes takes pane counts from 1 to 4 such as 1,2,4, got {text!r}")
    return counts


def compare_panes(name: str, params: dict, puzzle, counts, iterations: int, rounds: int, timeout: float) -> dict:
    """Run the Compare side by side window with each pane count in turn; {count: (iterations, pane s, wall s)}.

    Every pane runs ``name`` with ``params`` and the round's seed (the same in every pane, so every pane does
    the same work), in lockstep by iteration (chunks of 500) to ``iterations`` (or until solved).
    """
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from .compare_window import CompareWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])  # noqa: F841 (kept alive)

    def wait(cond) -> None:
        t0 = time.perf_counter()
        while not cond():
            ev = QEventLoop()
            QTimer.singleShot(5, ev.quit)
            ev.exec()
            if time.perf_counter() - t0 > timeout:
                raise TimeoutError("the comparison window did not respond in time")

    win = CompareWindow(puzzle, [(name, params)] * counts[0], seed=0)
    win.resize(1600, 1000)
    win.show()
    totals = {n: [0, 0.0, 0.0] for n in counts}
    try:
        for r in range(rounds):
            for n in counts:
                win.configure([(name, params)] * n, mode="iterations", chunk=500, limit=iterations or None)
                win.seed_box.setValue(r)  # resets every pane with the round's seed
                wait(lambda: win.ready)
                t0 = time.perf_counter()
                win.run()
                wait(lambda: not win.running)
                wall = time.perf_counter() - t0
                t = totals[n]
                t[0] += sum(p.latest.snapshot.iteration for p in win.panes)
                t[1] += sum(p.seconds for p in win.panes)
                t[2] += wall
    finally:
        win.close()
    return {n: tuple(v) for n, v in totals.items()}


def _print_panes(name: str, pname: str, counts, iterations: int, rounds: int, totals: dict) -> None:
    from sudoku_lab.solvers import get_solver_class

    cls = get_solver_class(name)
    unit = cls.iteration_name + "s"
    print(
        f"Compare side by side: {cls.title} [{name}] on {pname} in every pane, the same seed in every pane "
        f"(seeds 0..{rounds - 1}), lockstep by iteration (chunks of 500) to {iterations or 'solved'}, "
        f"pane counts {', '.join(map(str, counts))} alternating in {rounds} round(s)"
    )
    base = None
    for n in counts:
        its, pane_sec, wall = totals[n]
        per_pane = its / pane_sec if pane_sec else float("nan")
        total = its / wall if wall else float("nan")
        if base is None:
            base = (per_pane, total)
        print(
            f"  {n} pane{'s' if n > 1 else ' '}: {its:9d} {unit} in {wall:7.3f} s wall; per pane {per_pane:11,.0f} /s "
            f"(ratio {per_pane / base[0]:.2f}), total {total:11,.0f} /s (ratio {total / base[1]:.2f})"
        )


def _peak_rss_mb() -> float:
    """The process's peak resident memory in MB (getrusage; NaN where it is not available)."""
    try:
        import resource
    except ImportError:  # not on Windows
        return float("nan")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1e6 if sys.platform == "darwin" else peak / 1e3  # bytes on macOS, kilobytes on Linux


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="sudoku-lab bench gui", description=__doc__)
    ap.add_argument(
        "--algo",
        action="append",
        default=[],
        help="solver to measure (repeatable; 'all': every registered metaheuristic; default reseda)",
    )
    ap.add_argument("--runs", type=int, default=150, help="seeded runs in each setting (default 150)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating headless/window blocks (default 5)")
    ap.add_argument(
        "--iterations", type=int, default=20_000, help="most iterations of one run (0: until solved; default 20000)"
    )
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for one solve in the window")
    ap.add_argument(
        "--panes",
        default="1,2,4",
        help='the Compare side by side window with these pane counts (default 1,2,4; "" skips it)',
    )
    ap.add_argument("--no-window", action="store_true", help="skip the lab window's measurement (with --panes)")
    args = ap.parse_args(argv)
    counts = parse_panes(args.panes) if args.panes else []
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from sudoku_lab.benchmarks.gui import gui_solvers
    from sudoku_lab.errors import ParameterError
    from sudoku_lab.model import library
    from sudoku_lab.solvers import get_solver_class

    try:
        names = gui_solvers(args.algo)
    except ParameterError as e:
        raise SystemExit(f"sudoku-lab bench gui: {e}") from None
    seeds = list(range(args.runs))
    window = None
    platform = os.environ.get("QT_QPA_PLATFORM") or "xcb"
    measured = [] if args.no_window and counts else names
    if measured:
        print(
            f"Throughput with the lab window drawing / headless, seeds 0..{args.runs - 1}, runs until solved or "
            f"{args.iterations} iterations, one process, Qt platform {platform}; target >= 0.80 for each solver"
        )
    for name in measured:
        cls = get_solver_class(name)
        params, pname = cls.examples[0] if cls.examples else ({}, "reseda_fig4_1_hard")
        params = dict(params)
        puzzle = library.puzzle(pname)
        _headless(name, params, puzzle, seeds[:2], args.iterations)  # compile or load the kernels first
        if window is None:
            window = _Window(puzzle, args.timeout)
        window.select(name, params, puzzle)
        h_steps = g_steps = 0
        h_sec = g_sec = 0.0
        ratios = []
        window.late_running.clear()
        window.late_all.clear()
        window.history_peak = 0
        # Alternate blocks of seeds between the two settings, so a slow patch of a shared machine
        # slows both alike instead of deciding the ratio.
        for block in np.array_split(np.array(seeds), max(1, args.rounds)):
            hs, ht = _headless(name, params, puzzle, block.tolist(), args.iterations)
            gs, gt = window.solve(block.tolist(), args.iterations)
            h_steps, h_sec, g_steps, g_sec = h_steps + hs, h_sec + ht, g_steps + gs, g_sec + gt
            ratios.append((gs / gt) / (hs / ht))
        h_rate, g_rate = h_steps / h_sec, g_steps / g_sec
        late = np.array(window.late_running)
        late_all = np.array(window.late_all)
        p99 = float(np.percentile(late, 99)) if late.size else float("nan")
        unit = cls.iteration_name + "s"
        shown = ", ".join(f"{k}={v}" for k, v in params.items()) or "default parameters"
        print(f"{cls.title} [{name}] on {pname} ({shown}), views: " + ", ".join(window.win.view_host.visible_titles()))
        print(f"  headless (loop.run)           {h_steps:8d} {unit} in {h_sec:7.3f} s = {h_rate:11,.0f} /s")
        print(f"  window drawing (worker+GUI)   {g_steps:8d} {unit} in {g_sec:7.3f} s = {g_rate:11,.0f} /s")
        print(
            f"  throughput with the window / headless: {g_rate / h_rate:.2f} (target >= 0.80); per round: "
            + ", ".join(f"{r:.2f}" for r in ratios)
        )
        print(
            f"  GUI event loop while runs draw: 10 ms timer, {late.size} ticks, lateness median "
            f"{np.median(late) if late.size else float('nan'):.1f} ms, 99th percentile {p99:.1f} ms "
            f"(target < 50 ms); with the resets: 99th percentile "
            f"{np.percentile(late_all, 99) if late_all.size else float('nan'):.1f} ms"
        )
        print(
            f"  memory: the runs' history (keyframes) peaked at {window.history_peak / 1e6:,.2f} MB "
            f"(limit {window.history_limit / 1e6:,.0f} MB); process peak RSS so far {_peak_rss_mb():,.0f} MB"
        )
        if g_steps != h_steps:
            print(f"  note: iteration counts differ ({g_steps} vs {h_steps}): the runs were not identical")
    if window is not None:
        window.close()
    if counts:
        name = names[0]
        cls = get_solver_class(name)
        params, pname = cls.examples[0] if cls.examples else ({}, "reseda_fig4_1_hard")
        puzzle = library.puzzle(pname)
        _headless(name, dict(params), puzzle, seeds[:1], min(args.iterations, 50))  # the kernels loaded first
        totals = compare_panes(name, dict(params), puzzle, counts, args.iterations, args.rounds, args.timeout)
        _print_panes(name, pname, counts, args.iterations, args.rounds, totals)
    return 0


if __name__ == "__main__":
    sys.exit(main())
