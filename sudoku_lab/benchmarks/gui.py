"""``sudoku-lab bench gui``: the lab window's solver throughput against headless, and event-loop latency.

The measurement lives in ``sudoku_lab_ui.bench_gui`` and runs in a subprocess,
so the core never imports Qt; this module only declares the sub-command and
starts it.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

from .._checks import int_range
from ..errors import ParameterError
from . import BenchmarkOption, register_benchmark

#: The sub-command's options.
_OPTIONS = (
    BenchmarkOption(
        "--algo",
        action="append",
        default=[],
        metavar="NAME",
        help="solver to measure (repeatable; 'all': every registered metaheuristic; default reseda)",
    ),
    BenchmarkOption(
        "--runs", type=int_range(1, 100_000), default=150, help="seeded runs per setting and solver (default 150)"
    ),
    BenchmarkOption(
        "--iterations",
        type=int_range(0, 10**9),
        default=20_000,
        help="most iterations of one run (0: until solved; default 20000)",
    ),
    BenchmarkOption("--rounds", type=int_range(1, 1000), default=5, help="alternating blocks (default 5)"),
    BenchmarkOption(
        "--panes",
        default="1,2,4",
        metavar="LIST",
        help="measure the Compare side by side window with these pane counts (default 1,2,4; '' skips it; the first "
        "--algo in every pane, lockstep by iteration to --iterations): iterations/s per pane and in total, "
        "and their ratios to the first count",
    ),
    BenchmarkOption("--no-window", action="store_true", help="with --panes: skip the lab window's measurement"),
)


def gui_solvers(asked: list[str]) -> list[str]:
    """The solvers ``bench gui --algo ...`` measures: those named, every stochastic one for ``all``, else RESEDA.

    Raises
    ------
    ParameterError
        A name no solver is registered under.
    """
    from ..solvers import registry

    reg = registry()
    unknown = [a for a in asked if a != "all" and a not in reg]
    if unknown:
        raise ParameterError(f"unknown algorithm {unknown[0]!r}; choose from {', '.join(reg)} or all", name="algo")
    if "all" in asked:
        return [n for n, c in reg.items() if c.stochastic]
    return list(asked) or ["reseda"]


def _run(args, out: Callable[[str], object]) -> int:
    from ..errors import SudokuLabError
    from ..plugins import missing_window_packages, window_missing_message
    from ..stepping.warmup import warm_up

    names = gui_solvers(args.algo)
    missing = missing_window_packages()
    if missing:  # the gui extra is not installed: one line, not the child's ModuleNotFoundError
        raise SudokuLabError(window_missing_message(missing))
    warm_up(tuple(names))  # the subprocess then loads the kernels from numba's cache instead of compiling them
    cmd = [
        sys.executable,
        "-m",
        "sudoku_lab_ui.bench_gui",
        "--runs",
        str(args.runs),
        "--rounds",
        str(args.rounds),
        "--iterations",
        str(args.iterations),
    ]
    for name in names:
        cmd += ["--algo", name]
    cmd += ["--panes", getattr(args, "panes", "1,2,4")]
    if getattr(args, "no_window", False):
        cmd.append("--no-window")
    done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    for line in done.stdout.splitlines():
        out(line)
    return done.returncode


register_benchmark(
    "gui",
    help="each solver's throughput with the window and its views drawing / headless (side by side); "
    "GUI event-loop latency",
    options=_OPTIONS,
    run=_run,
    solver=None,
    description="Open the lab window (offscreen without a display) and measure each solver's throughput while the "
    "window and the solver's own views draw against headless throughput, on the puzzle and parameters of the "
    "solver's first declared example (RESEDA: reseda_fig4_1_hard), in alternating blocks of the same seeds; "
    "printed as the ratio window / headless. Also the GUI event loop's latency (absolute) with a 10 ms timer. "
    "Runs in a subprocess: the core never imports Qt.",
)
