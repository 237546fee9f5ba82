"""``sudoku-lab animate``: one solver run written as an animated GIF or an MP4 (board and one view)."""

from __future__ import annotations

import argparse
import sys
import time

from .._checks import checked
from ..analysis.animation import CAPTION_RANGE, DEFAULT_CAPTION, DEFAULT_FRAMES, DPI_RANGE, FPS_RANGE
from ..errors import ParameterError
from ..solvers.base import DEFAULT_SEED
from ._console import add_solver_params, argparse_type, int_option, seed_option

__all__ = ["add_cli", "cmd_animate"]

#: The stopping rule when --until is not given.
DEFAULT_UNTIL = "solved,10000it"


def _every(text: str) -> int | str:
    """``--every``: a number of iterations (at least 1) or ``phase``."""
    if text.strip().lower() == "phase":
        return "phase"
    try:
        value = int(text.strip())
    except ValueError:
        raise ValueError(f"must be an integer >= 1 or 'phase', got {text!r}") from None
    if value < 1:
        raise ValueError(f"must be an integer >= 1 or 'phase', got {value}")
    return value


_every_option = argparse_type(_every)


def _size(text: str) -> tuple[int, int]:
    """``--size WxH``: the frame's width and height in pixels."""
    w, x, h = text.strip().lower().partition("x")
    try:
        if not x:
            raise ValueError
        return int(w), int(h)
    except ValueError:
        raise ValueError(f"must be WIDTHxHEIGHT in pixels, like 1920x1080, got {text!r}") from None


def _points(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    lo, hi = CAPTION_RANGE
    if not lo <= value <= hi:
        raise ValueError(f"must be a size in points from {lo:g} to {hi:g}, got {text!r}")
    return value


_size_option = argparse_type(_size)
_points_option = argparse_type(_points)


@checked
def add_cli(sub: argparse._SubParsersAction, algo: str | None = None) -> None:
    """Declare ``sudoku-lab animate`` on ``sub`` (``algo``: the ``--algo`` of the command line, for ``--help``)."""
    a = sub.add_parser(
        "animate",
        help="write a run as an animated GIF or an MP4 (board and one view)",
        description="Run --algo on PUZZLE and write the run as an animation: a frame every --every "
        "iterations (and the first and the last), each the board (givens, the current grid, conflicts) "
        "beside one view (--view) and a caption with the iteration and the cost. The suffix of --out "
        "chooses the format: .gif (Pillow) or .mp4 (H.264, by the ffmpeg that imageio-ffmpeg bundles). "
        "Frames are drawn by matplotlib, so no display is needed. The run is done twice with the same "
        "seed (first to learn its length, then to draw it), so a time budget becomes the iterations the "
        "first run reached. --every phase draws a frame after every phase of an iteration instead (for solvers "
        "that declare phases: RESEDA, the cuckoo search...), the phase and what it did in the caption and the "
        "cells it changed outlined: a run of L iterations of P phases has 1 + L*P frames. For a slide, "
        "--from 14 --to 18 draws only that stretch of the run, --size 1920x1080 sets the frame's pixels and "
        "--caption-size its caption's points. Every option is checked before the run (an .mp4 where no ffmpeg "
        "runs included); Ctrl-C stops and writes nothing.",
    )
    a.add_argument("puzzle", help="file, '-' for stdin, bundled puzzle name or puzzle text (the first puzzle is used)")
    a.add_argument("--algo", required=True, help="algorithm (see `sudoku-lab algorithms`)")
    a.add_argument(
        "--seed",
        type=seed_option,
        default=DEFAULT_SEED,
        help=f"random seed, a non-negative integer (default {DEFAULT_SEED}, as in the lab window)",
    )
    a.add_argument(
        "--until",
        default=DEFAULT_UNTIL,
        help=f"stopping rule: solved, 500 (iterations), 30s, 2m, 1e5evals; comma = first that holds "
        f"(default {DEFAULT_UNTIL})",
    )
    a.add_argument(
        "--every",
        type=_every_option,
        default=None,
        metavar="N|phase",
        help=f"a frame every N iterations, at least 1 (default: the run in about {DEFAULT_FRAMES} frames), or "
        "'phase': a frame after every phase of every iteration, with the phase's caption (solvers that declare "
        "phases only; one line refuses the others before any work)",
    )
    a.add_argument(
        "--from",
        dest="from_iteration",
        type=int_option(0),
        default=None,
        metavar="START",
        help="draw the run from the state after START iterations (it still starts from the puzzle; the first START "
        "iterations are run, not drawn); default 0",
    )
    a.add_argument(
        "--to",
        dest="to_iteration",
        type=int_option(0),
        default=None,
        metavar="STOP",
        help="draw it to the state after STOP iterations, where the run stops whatever --until says (--from 14 "
        "--to 18: EDA steps 14 to 18 of RESEDA, for a slide); default: the run's end",
    )
    a.add_argument(
        "--view",
        default="convergence",
        help="what is drawn beside the board: convergence (the declared curves up to the frame, with a "
        "cursor) or probability (the model p[cell, digit], for solvers that have one); default convergence",
    )
    a.add_argument("--out", required=True, help="the animation file: .gif or .mp4")
    a.add_argument(
        "--fps",
        type=int_option(*FPS_RANGE),
        default=10,
        help=f"frames per second, {FPS_RANGE[0]} to {FPS_RANGE[1]} (default 10)",
    )
    a.add_argument(
        "--dpi",
        type=int_option(*DPI_RANGE),
        default=None,
        help=f"resolution, {DPI_RANGE[0]} to {DPI_RANGE[1]}: a frame is 10.24 x 5.12 inches "
        "(default 100: 1024 x 512 pixels); or give --size",
    )
    a.add_argument(
        "--size",
        type=_size_option,
        default=None,
        metavar="WxH",
        help="the frame's width and height in pixels instead of --dpi, e.g. 1920x1080 (from square to 3:1; even "
        "numbers for .mp4); the texts keep their share of the frame at every size",
    )
    a.add_argument(
        "--caption-size",
        type=_points_option,
        default=DEFAULT_CAPTION,
        metavar="PT",
        help=f"the caption's size in points of a frame 5.12 inches high, {CAPTION_RANGE[0]:g} to "
        f"{CAPTION_RANGE[1]:g} (default {DEFAULT_CAPTION:g}: a line about 3.5 %% of the frame's height)",
    )
    a.add_argument("--quiet", action="store_true", help="no progress bar")
    add_solver_params(a, algo)
    a.set_defaults(func=cmd_animate)


@checked
def cmd_animate(args: argparse.Namespace) -> int:
    from ..analysis import animation
    from ..engine._progress import ProgressBar, RunProgress, interruptible
    from ..model.resolve import resolve_puzzle
    from ..stepping.loop import parse_until
    from ._console import solver_params

    # Every option is checked before the run: the solver's parameters, the stopping rule, the puzzle, then the
    # view, the suffix and the file (last, as checking that it can be written makes its folder).
    params = solver_params(args.algo, args)
    parse_until(args.until)
    puzzle = resolve_puzzle(args.puzzle)
    span = None
    if args.from_iteration is not None or args.to_iteration is not None:
        span = (args.from_iteration or 0, args.to_iteration)
        if span[1] is not None and span[1] < span[0]:
            raise ParameterError(f"--to {span[1]} is before --from {span[0]}: nothing to draw", name="to")
    look = {"fps": args.fps, "dpi": args.dpi, "size": args.size, "caption_size": args.caption_size}
    animation.check_animation(args.out, args.algo, view=args.view, every=args.every, iterations=span, **look)

    show = _Progress(not args.quiet, ProgressBar(enabled=not args.quiet, unit="frames"), RunProgress(not args.quiet))
    intr = interruptible("stopping: the animation is not written (Ctrl-C again to quit at once)")
    try:
        with intr as stop:
            result = animation.animate(
                puzzle,
                args.algo,
                args.out,
                params=params,
                seed=args.seed,
                until=args.until,
                every=args.every,
                view=args.view,
                iterations=span,
                progress=show,
                should_stop=stop.is_set,
                **look,
            )
    finally:
        show.close()
    if result.cancelled:
        print("sudoku-lab: interrupted; no animation written", file=sys.stderr)
        return intr.exit_status
    from ..solvers import get_solver_class

    last = result.last
    assert last is not None  # a run that was not cancelled has its last snapshot
    name = get_solver_class(args.algo).iteration_name
    w, h = result.size
    if isinstance(result.every, int):
        every = f"a frame every {result.every:,} {name}{'s' if result.every > 1 else ''}"
    else:
        every = "a frame every phase"
    if span is not None:
        every += f" from {span[0]:,} to {last.iteration:,}"
    print(
        f"wrote {result.path}: {result.frames} frames of {w} x {h}, {every}; {args.algo} seed {args.seed}: "
        f"{result.reason} after {last.iteration:,} {name}s, best cost {last.best_cost}"
    )
    return 0


class _Progress:
    """``animate``'s progress: the run's iterations on one line, then a bar of the frames written."""

    def __init__(self, enabled: bool, bar, line):
        self.enabled = enabled
        self.bar = bar
        self.line = line
        self.total = 0
        self._last = time.perf_counter()  # a short run says nothing while it runs

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if total == 0:  # the first run: its length is not known yet
            now = time.perf_counter()
            if now - self._last >= (0.25 if self.line.tty else 5.0):
                self._last = now
                self.line.line(f"running: {done:,} iterations")
            return
        if not self.total:
            self.line.close()
            self.total = total
        self.bar.update(done, total)

    def close(self) -> None:
        if self.total:
            self.bar.close()
        else:
            self.line.close()
