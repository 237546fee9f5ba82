"""``sudoku-lab generate``: puzzles with a unique solution, reproducibly from a seed."""

from __future__ import annotations

import argparse
import sys
import time

from .._checks import checked
from ..engine._progress import ProgressBar, RunProgress, interruptible
from ..solvers.base import DEFAULT_SEED
from ._console import (
    int_option,
    print_puzzle as _print_puzzle,
    seed_option,
)

__all__ = ["add_cli", "cmd_generate"]


@checked
def add_cli(sub: argparse._SubParsersAction, algo: str | None = None) -> None:
    """Declare ``sudoku-lab generate`` on ``sub`` (``algo``: the ``--algo`` of the command line, for ``--help``)."""
    gen = sub.add_parser(
        "generate",
        help="generate puzzles with a unique solution",
        description="Generate puzzles of box size --box (2: 4x4 .. 5: 25x25) with --clues "
        "givens and a unique solution, reproducibly from --seed.",
    )
    gen.add_argument("--box", type=int, default=3, choices=(2, 3, 4, 5), help="box size n (grid n^2 x n^2)")
    gen.add_argument("--clues", type=int_option(0, 625), required=True, help="number of givens to keep")
    gen.add_argument(
        "--seed",
        type=seed_option,
        default=DEFAULT_SEED,
        help=f"random seed (puzzle k uses seed+k; default {DEFAULT_SEED})",
    )
    gen.add_argument("--count", type=int_option(1, 1_000_000), default=1, help="how many puzzles (default 1)")
    gen.add_argument(
        "--symmetry",
        default="none",
        choices=("none", "rotate180"),
        help="rotate180: a clue pattern symmetric under a half turn (default none)",
    )
    gen.add_argument(
        "--format",
        default="line",
        choices=("line", "grid", "numbers", "kennett", "sdk", "csv"),
        help="output format (default line)",
    )
    gen.add_argument(
        "--time-limit", default="2m", help="give up on one puzzle after this long, e.g. 30s, 5m, or 'none' (default 2m)"
    )
    gen.add_argument("--quiet", action="store_true", help="no progress output")
    gen.set_defaults(func=cmd_generate)


@checked
def cmd_generate(args: argparse.Namespace) -> int:
    from ..exact.generate import GenerationStopped, generate, parse_time_limit
    from ..model.collections import format_collection
    from ..stepping.warmup import warm_once

    limit = parse_time_limit(args.time_limit)
    warm_once(shared=True)  # "compiling kernels, once" on a cold cache, before any time limit starts
    intr = interruptible()
    bar = ProgressBar(enabled=not args.quiet, unit="puzzles", label="generating") if args.count > 1 else None
    status = 0
    with intr as stop:
        for k in range(args.count):
            report = None if args.quiet else _GenerateReport(k, args.count)
            try:
                p = generate(
                    args.box,
                    args.clues,
                    seed=args.seed + k,
                    symmetry=args.symmetry,
                    time_limit=limit,
                    should_stop=stop.is_set,
                    progress=report,
                )
            except GenerationStopped as e:
                if report:
                    report.close()
                print(f"sudoku-lab: interrupted: {e}", file=sys.stderr)
                status = intr.exit_status
                break
            if report:
                report.close()
            # Printed as each puzzle is made, so an interrupted batch keeps what it finished.
            if args.format == "csv":
                text = format_collection([p], "csv")  # a header line, then the puzzle's row
                print(text if k == 0 else text.split("\n", 1)[1], end="")
            else:
                _print_puzzle(p, args.format, first=k == 0)
            sys.stdout.flush()
            if bar:
                bar.update(k + 1, args.count)
    if bar:
        bar.close()
    return status


class _GenerateReport:
    """Progress of one generation on stderr, shown only once it has taken more than a second."""

    def __init__(self, k: int, count: int):
        self.label = f"puzzle {k + 1} of {count}: " if count > 1 else ""
        self.shown = False
        self.t0 = self.last = time.perf_counter()
        self.printer = RunProgress(enabled=True)

    def __call__(self, tries: int, max_tries: int, givens: int, target: int, fewest: int) -> None:
        now = time.perf_counter()
        if now - self.t0 < 1.0 or (not self.printer.tty and now - self.last < 5.0):
            return
        self.shown = True
        self.last = now
        line = (
            f"{self.label}try {tries} of {max_tries}, {givens} givens left (target {target}, fewest so far "
            f"{fewest}), {time.perf_counter() - self.t0:.0f} s"
        )
        self.printer.line(line)

    def close(self) -> None:
        if self.shown:
            self.printer.close()
