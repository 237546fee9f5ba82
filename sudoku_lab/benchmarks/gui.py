"""``sudoku-lab bench gui``: the lab window's solver throughput against headless, and event-loop latency.

The measurement lives in ``sudoku_lab_ui.bench_gui`` and runs in a subprocess,
so the core never imports Qt; this module only declares the sub-command and
starts it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Callable

from . import register_benchmark


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    from .._console import int_option

    parser.add_argument("--runs", type=int_option(1, 100_000), default=150,
                        help="seeded solves per setting (default 150)")
    parser.add_argument("--rounds", type=int_option(1, 1000), default=5, help="alternating blocks (default 5)")


def _run(args: argparse.Namespace, out: Callable[[str], object]) -> int:
    from ..warmup import warm_up

    warm_up(("reseda",))  # the subprocess then loads the kernels from numba's cache instead of compiling them
    cmd = [sys.executable, "-m", "sudoku_lab_ui.bench_gui", "--runs", str(args.runs), "--rounds", str(args.rounds)]
    done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    for line in done.stdout.splitlines():
        out(line)
    return done.returncode


register_benchmark(
    "gui", help="RESEDA's throughput with the window drawing / headless (side by side); GUI event-loop latency",
    add_arguments=_add_arguments, run=_run, solver="reseda",
    description="Open the lab window (offscreen without a display) and measure RESEDA's throughput while the "
    "window draws against headless throughput on reseda_fig4_1_hard, in alternating blocks of the same seeds; "
    "printed as the ratio window / headless. Also the GUI event loop's latency (absolute) with a 10 ms timer. "
    "Runs in a subprocess: the core never imports Qt.")
