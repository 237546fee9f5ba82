"""Run animations: one solver run drawn frame by frame with matplotlib and written as a GIF or an MP4.

:func:`animate` runs a solver on a puzzle, takes a snapshot every ``every``
iterations (and the first and the last), and draws each as one frame: the
board (givens, the current grid, conflicts, cells the solver holds fixed;
:func:`~sudoku_lab.analysis.figures.board_figure` draws the same) beside one
view chosen from the solver's declarations (:func:`views`):

``convergence``
    its declared trace columns up to the frame's iteration, on the axes of the
    whole run, with a cursor at the frame;
``probability``
    its layer of role ``probability`` (p[cell, digit]) as the figures module
    draws it (:func:`~sudoku_lab.analysis.figures.probability_figure`).

A caption says the solver, the iteration, the cost and the best cost so far.
Frames are drawn from snapshots, never grabbed from a screen, so this works
without a display. A ``.gif`` is written by Pillow (which matplotlib brings) and
a ``.mp4`` (H.264) by the ffmpeg that the ``imageio-ffmpeg`` wheel bundles: no
program has to be installed. Where no ffmpeg runs (:func:`ffmpeg_problem`), an
``.mp4`` is refused in one line saying so and what to do, before any work.

**For a slide.** ``iterations=(14, 18)`` draws only that stretch of the run
(it is still run from the puzzle, the first 14 iterations undrawn);
``size=(1920, 1080)`` sets the frame's pixels (:func:`frame_size`; the frame
stays 5.12 inches high, so texts keep their share of it), and
``caption_size`` the caption's points (default 14: a line of caption is about
3.5 % of the frame's height, at every size). A caption too wide for the frame is
broken into lines in a band of its own above the panels, which never move.

The run is done twice with the same seed: once to learn its length (and the
axes of its curves), then again to draw it, stopping at that same iteration.
Solvers are deterministic for a seed (the conformance kit checks it), so the
second run is the first one again, and a time budget (``30s``) becomes the
number of iterations the first run reached. Frames go to the file one at a
time (memory does not grow with their number), through
:func:`sudoku_lab.files.write_file`: a failed or cancelled export leaves no
file (an old one stays as it was).

**Frames by phase.** With ``every="phase"``, a solver that declares the phases
of its iteration (:attr:`~sudoku_lab.solvers.Solver.phases`) is drawn after every
phase: the second run steps it with :meth:`~sudoku_lab.solvers.Solver.step_phase`
(the same run, draw for draw), and each frame's caption says the iteration, the
phase and what it did (``"RESEDA ..., EDA step 3, phase 2/4 select: kept ..."``,
:func:`phase_caption`), with the cells the phase changed
(``changed["cells"]``) outlined on the board. A run of ``L`` iterations of a
solver with ``P`` phases has ``1 + L * P`` frames: the start, then one per phase
(fewer only when a phase ends its iteration early, by solving the puzzle; more
when a phase is declared ``repeats=True``, as the ant colony system's "place",
one frame per placement: then the count is known only as the frames are drawn,
and the export stops with ParameterError when it passes ``MAX_FRAMES``). A
solver that declares no phases is refused before any work.

**Parameter changes.** ``changes=[(i, {name: value}), ...]`` makes each change
when the run has done ``i`` iterations (as :meth:`~sudoku_lab.solvers.Solver.set_params`
would then: it applies from iteration ``i + 1``, and is logged as an event at
``i``), in both runs, so a run whose parameters were changed while it ran (the
lab window's) is drawn as it was. :func:`changes_from_events` turns a run's event
log into this list.

Examples
--------
>>> from sudoku_lab.analysis import animation
>>> animation.views("reseda")
('convergence', 'probability')
>>> animation.frame_iterations(10, 4)
(0, 4, 8, 10)
"""

from __future__ import annotations

import math
import os
import struct
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Callable

import numpy as np

from .._checks import checked
from ..errors import DataFileError, ParameterError
from ..files import check_writable, os_reason, write_file
from ..model.puzzle import Puzzle
from ..solvers.base import DEFAULT_SEED, Event, PhaseStep, Snapshot, Solver
from ..stepping.loop import Termination

__all__ = [
    "FORMATS",
    "FPS_RANGE",
    "DPI_RANGE",
    "WIDTH_RANGE",
    "HEIGHT_RANGE",
    "CAPTION_RANGE",
    "DEFAULT_CAPTION",
    "MAX_FRAMES",
    "AnimationResult",
    "views",
    "frame_iterations",
    "caption",
    "check_animation",
    "check_range",
    "frame_size",
    "ffmpeg_problem",
    "check_changes",
    "changes_from_events",
    "phase_caption",
    "animate",
]

#: File suffixes and what writes them.
FORMATS = {".gif": "GIF (Pillow)", ".mp4": "MP4, H.264 (the ffmpeg of imageio-ffmpeg)"}
#: Frames per second: GIF delays are counted in hundredths of a second, and browsers slow down anything
#: shorter than two of them.
FPS_RANGE = (1, 50)
#: Resolutions of a frame (10.24 x 5.12 inches): 100 dpi is 1024 x 512 pixels.
DPI_RANGE = (40, 300)
#: Frame sizes ``size=(width, height)`` may take, in pixels; the board and the view sit side by side, so a
#: frame is from square to three times as wide as high.
WIDTH_RANGE = (320, 3840)
HEIGHT_RANGE = (240, 2160)
ASPECT_RANGE = (1.0, 3.0)
#: Caption sizes in points of a frame 5.12 inches high (its height at every size: a size keeps its share of
#: the frame). The default, 14 pt, makes a line of caption about 3.5 % of the frame's height: a slide's caption.
CAPTION_RANGE = (6.0, 48.0)
DEFAULT_CAPTION = 14.0
#: The most frames one animation may have: at about 20 a second, ten thousand frames take an hour to draw.
MAX_FRAMES = 10_000
#: Frames chosen when ``every`` is not given: about this many.
DEFAULT_FRAMES = 100
#: ``every`` for a frame after every phase.
PHASE = "phase"
#: How long a GIF holds its last frame (seconds), so that a looping animation shows how the run ended.
_GIF_HOLD = 1.5
_SIZE = (10.24, 5.12)  # inches: 1024 x 512 pixels at 100 dpi
_CHANGED = "#E69F00"  # orange (Okabe-Ito): the outline of a cell a phase changed


@checked
@dataclass(frozen=True)
class AnimationResult:
    """What :func:`animate` did.

    Attributes
    ----------
    path : Path or None
        The file written (None when cancelled).
    frames : int
        Frames written (0 when cancelled).
    iterations : tuple of int
        The iteration of each frame, in order (a phase's frame: the iteration the phase belongs to,
        counted from 1).
    captions : tuple of str
        The caption of each frame, in order.
    every : int or str
        Iterations between frames, or ``"phase"``.
    size : (int, int)
        Width and height of a frame in pixels.
    last : Snapshot or None
        The run's last snapshot (None when cancelled before the run ended).
    reason : str
        Why the run stopped (``solved``, ``max_iterations``, ...), or ``cancelled``.
    """

    path: Path | None
    frames: int
    iterations: tuple[int, ...]
    captions: tuple[str, ...]
    every: int | str
    size: tuple[int, int]
    last: Snapshot | None
    reason: str
    #: The phase of each frame, in order ("" for a frame between iterations): frames every phase only.
    phases: tuple[str, ...] = ()

    @property
    def cancelled(self) -> bool:
        return self.reason == "cancelled"


@checked
def views(algo: str) -> tuple[str, ...]:
    """The views :func:`animate` can draw beside the board for the registered solver ``algo``.

    ``convergence`` for every solver; ``probability`` for one that declares a
    layer of role ``probability``.

    Raises
    ------
    ParameterError
        ``algo`` is not a registered solver.
    """
    from ..solvers import get_solver_class

    return tuple(_views(get_solver_class(algo)))


def _views(cls: type[Solver]) -> dict[str, str | None]:
    """View name -> the layer it draws (None for the curves)."""
    out: dict[str, str | None] = {"convergence": None}
    prob = [layer.name for layer in cls.layers if layer.role == "probability" and layer.shape is not None]
    if prob:
        out["probability"] = prob[0]
    return out


@checked
def frame_iterations(last: int, every: int, first: int = 0) -> tuple[int, ...]:
    """The iterations a run is drawn at from ``first`` to ``last``: first, first + every, ..., and ``last``.

    >>> frame_iterations(60, 20), frame_iterations(0, 5), frame_iterations(18, 1, first=14)
    ((0, 20, 40, 60), (0,), (14, 15, 16, 17, 18))
    """
    if last < first or first < 0 or every < 1:
        raise ParameterError(
            f"frame_iterations needs 0 <= first <= last and every >= 1, got first {first}, last {last}, every {every}",
            name="every",
        )
    its = list(range(first, last + 1, every))
    if its[-1] != last:
        its.append(last)
    return tuple(its)


@checked
def check_range(iterations: tuple[int, int | None] | None) -> tuple[int, int | None]:
    """The stretch of the run to draw, ``(start, stop)``: from the state after ``start`` iterations to the
    state after ``stop`` (None: the run's end); None is the whole run, ``(0, None)``.

    >>> check_range((14, 18)), check_range(None), check_range((5, None))
    ((14, 18), (0, None), (5, None))

    Raises
    ------
    ParameterError
        A start below 0, or a stop before the start.
    """
    if iterations is None:
        return 0, None
    start, stop = iterations
    if start < 0:
        raise ParameterError(f"the iterations drawn start at 0 or later, got {start}", name="iterations")
    if stop is not None and stop < start:
        raise ParameterError(
            f"the iterations drawn end at or after their start, got {start} to {stop}", name="iterations"
        )
    return int(start), None if stop is None else int(stop)


@checked
def frame_size(size: tuple[int, int] | None = None, dpi: int | None = None) -> tuple[int, int]:
    """A frame's width and height in pixels: ``size`` itself, else 10.24 x 5.12 inches at ``dpi`` (default 100),
    rounded up to even numbers (H.264 needs them).

    >>> frame_size(), frame_size(dpi=150), frame_size((1920, 1080))
    ((1024, 512), (1536, 768), (1920, 1080))

    Raises
    ------
    ParameterError
        Both given (both say how many pixels), ``dpi`` out of :data:`DPI_RANGE`, a width or height out of
        :data:`WIDTH_RANGE` or :data:`HEIGHT_RANGE`, or a frame narrower than square or wider than 3:1.
    """
    if size is not None and dpi is not None:
        raise ParameterError(
            "give the frame's size or its dpi, not both: both say how many pixels it has "
            f"(size {size[0]} x {size[1]}, dpi {dpi})",
            name="size",
        )
    if size is None:
        dpi = 100 if dpi is None else dpi
        lo, hi = DPI_RANGE
        if not lo <= dpi <= hi:
            raise ParameterError(f"dpi must be from {lo} to {hi}, got {dpi}", name="dpi")
        return tuple(2 * math.ceil(round(inches * dpi, 6) / 2) for inches in _SIZE)  # type: ignore[return-value]
    w, h = size
    for what, value, (lo, hi) in (("width", w, WIDTH_RANGE), ("height", h, HEIGHT_RANGE)):
        if not lo <= value <= hi:
            raise ParameterError(f"a frame's {what} must be from {lo} to {hi} pixels, got {w} x {h}", name="size")
    if not ASPECT_RANGE[0] <= w / h <= ASPECT_RANGE[1]:
        raise ParameterError(
            f"a frame {w} x {h} is {'taller than wide' if w < h else 'more than 3 times as wide as high'}: the "
            "board and the view sit side by side, so a frame is from square (1:1) to 3:1",
            name="size",
        )
    return int(w), int(h)


@checked
def ffmpeg_problem() -> str | None:
    """Why an MP4 cannot be written here, in words (no ffmpeg to run), or None when ffmpeg runs.

    The ffmpeg is imageio-ffmpeg's: the one ``IMAGEIO_FFMPEG_EXE`` names, else the one its wheel bundles
    (or a system one). It is run once with ``-version`` to see that it starts.
    """
    import subprocess

    named = os.environ.get("IMAGEIO_FFMPEG_EXE")
    try:
        import imageio_ffmpeg

        exe = imageio_ffmpeg.get_ffmpeg_exe()
    except ImportError:
        return (
            "MP4 needs ffmpeg, and imageio-ffmpeg (which brings one) is not installed: "
            "`python -m pip install imageio-ffmpeg`, or write a .gif"
        )
    except RuntimeError:
        return (
            "MP4 needs ffmpeg, and imageio-ffmpeg found none: reinstall imageio-ffmpeg with pip (its wheel "
            "bundles one) or `apt install ffmpeg`, or write a .gif"
        )
    try:
        ok = (
            subprocess.run([exe, "-version"], stdin=subprocess.DEVNULL, capture_output=True, timeout=60).returncode == 0
        )
        why = "" if ok else "it exits with an error"
    except OSError as e:
        why = os_reason(e)
    except subprocess.TimeoutExpired:
        why = "it did not answer within a minute"
    if not why:
        return None
    if named:
        return (
            f"MP4 needs ffmpeg, and the one IMAGEIO_FFMPEG_EXE names, {named}, does not run ({why}): point it at "
            "an ffmpeg, or unset it for the one imageio-ffmpeg bundles; or write a .gif"
        )
    return (
        f"MP4 needs ffmpeg, and imageio-ffmpeg's {exe} does not run ({why}): reinstall imageio-ffmpeg with "
        "pip (its wheel bundles one) or `apt install ffmpeg`, or write a .gif"
    )


@checked
def caption(snapshot: Snapshot, solver: type[Solver] | None = None) -> str:
    """A frame's caption: ``"Hill climbing (steepest ascent), move 120, cost 4 (best 2)"``.

    The iteration is named as the solver names it (RESEDA: EDA step); a
    snapshot of a finished solver says so (``: solved``, ``: failed``).
    """
    from ..solvers import get_solver_class

    cls = solver or get_solver_class(snapshot.solver)
    text = f"{cls.title}, {cls.iteration_name} {snapshot.iteration:,}, cost {snapshot.cost} (best {snapshot.best_cost})"
    return f"{text}: {snapshot.status}" if snapshot.done else text


@checked
def phase_caption(step: PhaseStep, solver: type[Solver], snapshot: Snapshot | None = None) -> str:
    """A phase frame's caption: ``"RESEDA (...), EDA step 3, phase 2/4 select: kept the 10 best ..."``.

    With ``snapshot`` (the solver's after the phase), its cost and best cost follow in brackets.
    """
    n = len(solver.phases)
    text = (
        f"{solver.title}, {solver.iteration_name} {step.iteration:,}, phase {step.index + 1}/{n} "
        f"{step.name}: {step.caption}"
    )
    if snapshot is not None:
        text += f" (cost {snapshot.cost}, best {snapshot.best_cost})"
    return text


@checked
def check_changes(
    algo: str, params: Mapping[str, Any] | None, changes: Sequence[tuple[int, Mapping[str, Any]]] | None
) -> list[tuple[int, dict[str, Any]]]:
    """Check parameter changes for :func:`animate` before any work; the values coerced, in order.

    Parameters
    ----------
    algo : str
        A registered solver.
    params : mapping, optional
        The run's parameters at its start.
    changes : sequence of (int, mapping), optional
        ``(i, {name: value})``: made when the run has done ``i`` iterations, in iteration order.

    Raises
    ------
    ParameterError
        An iteration below 0 or out of order, an unknown parameter, a value out of its range, a
        parameter that cannot change while a solver runs (``live=False``), or a set of parameters
        that breaks the solver's rules, naming the change.
    """
    from ..solvers import get_solver_class

    cls = get_solver_class(algo)
    current = cls.full_params(dict(params or {}))
    out: list[tuple[int, dict[str, Any]]] = []
    last = 0
    for k, (it, values) in enumerate(changes or ()):
        where = f"change {k} (at iteration {it})"
        if it < last:
            raise ParameterError(
                f"{where}: changes must be in iteration order, from 0 (the one before is at {last})", name="changes"
            )
        last = it
        done = {}
        for name, value in values.items():
            try:
                prm = cls.param(name)
                done[name] = prm.validate(value)
            except ParameterError as e:
                raise ParameterError(f"{where}: {e}", name="changes") from None
            if not prm.live:
                raise ParameterError(
                    f"{where}: {cls.name}'s {name} cannot change while it runs (it applies at a reset)", name="changes"
                )
        try:
            current = cls.validate_params({**current, **done})
        except ParameterError as e:
            raise ParameterError(f"{where}: {e}", name="changes") from None
        out.append((int(it), done))
    return out


@checked
def changes_from_events(events: Sequence[Event]) -> list[tuple[int, dict[str, Any]]]:
    """The parameter changes of a run's event log, for :func:`animate`'s ``changes``.

    Each ``param`` event becomes a change at its iteration (changes at one iteration in one
    mapping, the later value of a name winning); other events (restarts, a run's end) are not
    changes and are left out.

    >>> from sudoku_lab.solvers import Event
    >>> changes_from_events([Event(30, "param", "alpha", 0.7, 0.9), Event(31, "restart", "full")])
    [(30, {'alpha': 0.9})]
    """
    out: list[tuple[int, dict[str, Any]]] = []
    for e in events:
        if e.kind != "param":
            continue
        if not out or out[-1][0] != e.iteration:
            out.append((int(e.iteration), {}))
        out[-1][1][e.name] = e.new
    return out


@checked
def check_animation(
    out: str | os.PathLike[str],
    algo: str,
    *,
    view: str = "convergence",
    every: int | str | None = None,
    fps: int = 10,
    dpi: int | None = None,
    size: tuple[int, int] | None = None,
    caption_size: float = DEFAULT_CAPTION,
    iterations: tuple[int, int | None] | None = None,
) -> Path:
    """Check an animation's options before any work; return ``out`` as a Path.

    Raises
    ------
    ParameterError
        A suffix other than .gif or .mp4, a view the solver does not have (the
        message names those it has), ``every`` below 1, ``every="phase"`` for a
        solver that declares no phases (or another word), ``fps``, ``dpi``,
        ``size`` or ``caption_size`` out of range (:data:`FPS_RANGE`,
        :func:`frame_size`, :data:`CAPTION_RANGE`), ``iterations`` out of order
        (:func:`check_range`), an unknown solver; an ``.mp4`` when no ffmpeg
        runs here (:func:`ffmpeg_problem` says why, and what to do), or with an
        odd width or height.
    DataFileError
        ``out`` cannot be written (a read-only directory, a directory), or is a terminal.
    """
    from ..solvers import get_solver_class

    path = Path(out)
    if path.suffix.lower() not in FORMATS:
        raise ParameterError(
            f"animations are written as .gif or .mp4 (the suffix chooses), not {path.name!r}", name="out"
        )
    cls = get_solver_class(algo)
    known = _views(cls)
    if view not in known:
        raise ParameterError(
            f"{cls.name} has no view {view!r}: its views are {', '.join(known)} "
            "(probability needs a solver with a probability model)",
            name="view",
        )
    if isinstance(every, str):
        if every != PHASE:
            raise ParameterError(f"every must be a number of iterations or 'phase', got {every!r}", name="every")
        if not cls.phases:
            from ..solvers import registry

            have = ", ".join(n for n, c in registry().items() if c.phases) or "none yet"
            raise ParameterError(
                f"{cls.name} declares no phases, so it has no frame per phase: take a frame every N iterations "
                f"(solvers declaring phases: {have})",
                name="every",
            )
    elif every is not None and every < 1:
        raise ParameterError(f"every must be at least 1 iteration, got {every}", name="every")
    lo, hi = FPS_RANGE
    if not lo <= fps <= hi:
        raise ParameterError(f"fps must be from {lo} to {hi}, got {fps}", name="fps")
    w, h = frame_size(size, dpi)
    lo_pt, hi_pt = CAPTION_RANGE
    if not lo_pt <= caption_size <= hi_pt:
        raise ParameterError(
            f"the caption size must be from {lo_pt:g} to {hi_pt:g} points, got {caption_size:g}", name="caption_size"
        )
    check_range(iterations)
    if path.suffix.lower() == ".mp4":
        if w % 2 or h % 2:
            raise ParameterError(f"an MP4 (H.264) frame needs an even width and height, got {w} x {h}", name="size")
        problem = ffmpeg_problem()
        if problem is not None:
            raise ParameterError(problem, name="out")
    return check_writable(path, "animation", binary=True)


@checked
def animate(
    puzzle: Puzzle,
    algo: str,
    out: str | os.PathLike[str],
    *,
    params: Mapping[str, Any] | None = None,
    seed: int = DEFAULT_SEED,
    until: Termination | str | None = "solved,10000it",
    every: int | str | None = None,
    view: str = "convergence",
    fps: int = 10,
    dpi: int | None = None,
    size: tuple[int, int] | None = None,
    caption_size: float = DEFAULT_CAPTION,
    iterations: tuple[int, int | None] | None = None,
    progress: Callable[[int, int], object] | None = None,
    should_stop: Callable[[], bool] | None = None,
    changes: Sequence[tuple[int, Mapping[str, Any]]] | None = None,
) -> AnimationResult:
    """Run ``algo`` on ``puzzle`` and write the run as an animation (GIF or MP4, by the suffix of ``out``).

    Parameters
    ----------
    puzzle : Puzzle
    algo : str
        A registered solver.
    out : path
        ``.gif`` or ``.mp4``. Written to a temporary file and renamed into
        place at the end; a symlink is followed.
    params : mapping, optional
        Solver parameters (checked before anything runs).
    seed : int
        The run's seed.
    until : Termination or str, optional
        When the run stops (a stopping rule such as ``"solved,500"`` or
        ``"30s"``; the solver finishing always stops it). Default
        ``solved,10000it``; None: until solved.
    every : int or "phase", optional
        Iterations between frames; the first and the last iteration drawn always
        get one. Default: the run (or ``iterations``) in about 100 frames.
        ``"phase"``: a frame after every phase (solvers declaring phases; see
        the module notes).
    view : str
        What is drawn beside the board: one of :func:`views` of ``algo``.
    fps : int
        Frames per second, in :data:`FPS_RANGE`.
    dpi : int, optional
        A frame is 10.24 x 5.12 inches at this resolution (default 100: 1024 x 512 pixels).
    size : (int, int), optional
        The frame's width and height in pixels instead (``(1920, 1080)``; see
        :func:`frame_size`): the frame stays 5.12 inches high at ``height / 5.12``
        dpi, so its texts keep their share of it at every size.
    caption_size : float
        The caption's size in points of that 5.12-inch frame (:data:`CAPTION_RANGE`;
        default 14, a line about 3.5 % of the frame's height). A caption wider than the
        frame is broken into lines (two are kept for frames every phase; a longer one
        is made smaller to fit them).
    iterations : (int, int or None), optional
        Draw only the run from the state after ``start`` iterations to the state after
        ``stop`` (None: its end): ``(14, 18)`` is EDA steps 14 to 18 of RESEDA. The run
        still starts from the puzzle (its first ``start`` iterations are run, not drawn),
        and stops at ``stop`` whatever ``until`` says; frames every phase draw the
        state after ``start``, then every phase of iterations ``start + 1`` to ``stop``.
    progress : callable, optional
        ``progress(done, total)``: while the solver runs, ``total`` is 0 and
        ``done`` the iterations so far; then, ``done`` frames written of
        ``total``.
    should_stop : callable, optional
        Polled while the solver runs and between frames; True cancels: no file
        is written and the result's ``reason`` is ``cancelled``.
    changes : sequence of (int, mapping), optional
        Parameter changes made while the run goes: ``(i, {name: value})`` is
        made when the run has done ``i`` iterations (see the module notes and
        :func:`check_changes`, which checks them before any work).

    Returns
    -------
    AnimationResult

    Raises
    ------
    ParameterError
        A bad option (see :func:`check_animation`; an ``.mp4`` when no ffmpeg
        runs here, before any work), a solver parameter or stopping rule that
        cannot be used, a run longer than :data:`MAX_FRAMES` frames at this
        ``every``, or a run that ended before the start of ``iterations``.
    DataFileError
        ``out`` cannot be written.

    Notes
    -----
    Every option is checked before the solver runs. The kernels are loaded
    (or compiled) before the first run's clock starts, so a time budget
    counts solving only.
    """
    from ..solvers import create
    from ..stepping import loop
    from ..stepping.warmup import warm_once

    path = check_animation(
        out,
        algo,
        view=view,
        every=every,
        fps=fps,
        dpi=dpi,
        size=size,
        caption_size=caption_size,
        iterations=iterations,
    )
    pixels = frame_size(size, dpi)
    start, stop = check_range(iterations)
    termination = loop.as_termination(until)
    if stop is not None:
        termination = termination | loop.MaxIterations(stop)
    planned = check_changes(algo, params, changes)
    solver = create(algo, **dict(params or {}))
    cls = type(solver)
    layer = _views(cls)[view]
    report = progress or (lambda done, total: None)
    stop_asked = should_stop or (lambda: False)

    warm_once([cls.name])
    # First run: how long it is, and the whole trace (the axes of the curves).
    solver.reset(puzzle, seed=seed)
    report(0, 0)
    first = None
    plan = _Changes(planned)
    for first in loop.iterate(
        solver, _Every(termination, None, plan.at), min_interval=0.25, should_stop=stop_asked, before_chunk=plan.apply
    ):
        report(first.snapshot.iteration, 0)
    assert first is not None  # iterate yields at least the final progress
    if first.reason == "cancelled":
        return _cancelled(every or 1, pixels, first.snapshot)
    whole = first.snapshot
    length = whole.iteration
    if start > length:
        ended = whole.status if whole.done else first.reason
        raise ParameterError(
            f"the run ended after {length:,} {cls.iteration_name}s ({ended}), before the iterations to draw "
            f"start ({start:,}): nothing to draw; start sooner or let the run go further (until)",
            name="iterations",
        )
    renderer = _Renderer(
        cls,
        whole,
        layer,
        pixels,
        caption_size,
        2 if every == PHASE else 1,
        f"{puzzle.name or 'puzzle'}, seed {seed}",
    )
    if every == PHASE:
        again = create(algo, **dict(params or {}))  # the parameters of the start: the first run changed them
        return _animate_phases(
            again, puzzle, seed, planned, start, length, whole, first.reason, renderer, path, fps, report, stop_asked
        )
    if every is None:
        every = max(1, -(-(length - start) // (DEFAULT_FRAMES - 1)))
    assert isinstance(every, int)
    wanted = frame_iterations(length, every, start)
    if len(wanted) > MAX_FRAMES:
        raise ParameterError(
            f"the run took {length:,} {cls.iteration_name}s: a frame every {every:,} makes {len(wanted):,} frames, "
            f"more than {MAX_FRAMES:,}; take a larger every (at least {-(-(length - start) // (MAX_FRAMES - 1)):,})",
            name="every",
        )
    report(0, len(wanted))

    # Second run: the same seed, stopped at the same iteration, drawn as it goes.
    captions: list[str] = []
    drawn: list[int] = []

    def frames():
        """The frames of the second run, each an RGB array, drawn as the loop reaches their iterations."""
        nonlocal solver
        solver = create(algo, **dict(params or {}))  # the parameters of the start: the first run changed them
        solver.reset(puzzle, seed=seed)
        again = _Changes(planned)
        # Chunks end on the frames' iterations (and where a change is made).
        term = _Every(loop.MaxIterations(length), every, again.at, start)
        last = None
        for last in loop.iterate(solver, term, min_interval=0.0, should_stop=stop_asked, before_chunk=again.apply):
            if last.reason == "cancelled" or stop_asked():
                raise _Cancelled
            snap = last.snapshot
            if len(drawn) < len(wanted) and snap.iteration == wanted[len(drawn)]:
                yield draw(snap)
        if tuple(drawn) != wanted:
            raise RuntimeError(
                f"{cls.name} ran differently the second time with seed {seed}: frames at {tuple(drawn)[-3:]}, "
                f"expected {wanted[-3:]} (a solver must repeat a run exactly for its seed)"
            )

    def draw(snap: Snapshot) -> np.ndarray:
        text = caption(snap, cls)
        image = renderer.frame(snap, text)
        captions.append(text)
        drawn.append(snap.iteration)
        report(len(drawn), len(wanted))
        return image

    try:
        _write(path, frames(), fps, renderer.size)
    except _Cancelled:
        return _cancelled(every, pixels, None)
    return AnimationResult(path, len(drawn), tuple(drawn), tuple(captions), every, renderer.size, whole, first.reason)


def _write(path: Path, frames, fps: int, size: tuple[int, int]) -> None:
    if path.suffix.lower() == ".gif":
        delay, hold = 100 / fps, max(100 / fps, 100 * _GIF_HOLD)
        write_file(path, lambda fh: _write_gif(fh, frames, delay, hold), "animation", binary=True)
    else:
        _write_mp4(path, frames, fps, size)


def _animate_phases(
    solver: Solver,
    puzzle: Puzzle,
    seed: int,
    planned: list[tuple[int, dict[str, Any]]],
    start: int,
    length: int,
    whole: Snapshot,
    reason: str,
    renderer: _Renderer,
    path: Path,
    fps: int,
    report: Callable[[int, int], object],
    stop: Callable[[], bool],
) -> AnimationResult:
    """The second run of :func:`animate` with ``every="phase"``: run to ``start``, draw it, then a frame after
    every phase up to ``length``."""
    from ..stepping import loop

    cls = type(solver)
    total = 1 + (length - start) * len(cls.phases)  # a lower bound when a phase repeats
    repeats = [p.name for p in cls.phases if p.repeats]
    if total > MAX_FRAMES:
        raise ParameterError(
            f"the run took {length - start:,} {cls.iteration_name}s: a frame every phase ({len(cls.phases)} an "
            f"iteration) makes {total:,} frames, more than {MAX_FRAMES:,}; stop it sooner or take a frame every N "
            "iterations",
            name="every",
        )
    report(0, total)
    captions: list[str] = []
    drawn: list[int] = []
    names: list[str] = []

    def draw(snap: Snapshot, text: str, it: int, phase: str, cells=None) -> np.ndarray:
        if repeats and len(drawn) >= MAX_FRAMES:
            raise ParameterError(
                f"a frame every phase of {length - start:,} {cls.iteration_name}s makes more than {MAX_FRAMES:,} "
                f"frames (its phase {repeats[0]!r} repeats); stop it sooner or take a frame every N iterations",
                name="every",
            )
        image = renderer.frame(snap, text, cells)
        captions.append(text)
        drawn.append(it)
        names.append(phase)
        report(len(drawn), max(total, len(drawn)))
        return image

    def frames():
        solver.reset(puzzle, seed=seed)
        plan = _Changes(planned)
        if start:  # to the first state drawn by whole iterations, the changes made on the way
            to_start = _Every(loop.MaxIterations(start), None, plan.at)
            for _ in loop.iterate(solver, to_start, min_interval=0.0, should_stop=stop, before_chunk=plan.apply):
                pass
            if stop():
                raise _Cancelled
            if solver.iteration != start:
                raise RuntimeError(
                    f"{cls.name} ran differently the second time with seed {seed}: it stopped at iteration "
                    f"{solver.iteration}, not {start}"
                )
        plan.apply(solver)
        yield draw(solver.snapshot(), caption(solver.snapshot(), cls), start, "")
        while solver.iteration < length and not solver.done:
            if stop():
                raise _Cancelled
            if solver.phase == 0:
                plan.apply(solver)
            step = solver.step_phase()
            if step is None:
                break
            snap = solver.snapshot()
            cells = step.changed.get("cells")
            yield draw(snap, phase_caption(step, cls, snap), step.iteration, step.name, cells)
        if solver.iteration != length:
            raise RuntimeError(
                f"{cls.name} ran differently phase by phase with seed {seed}: it stopped at iteration "
                f"{solver.iteration}, the run by iterations at {length} (phase steps must repeat the run exactly)"
            )

    try:
        _write(path, frames(), fps, renderer.size)
    except _Cancelled:
        return _cancelled(PHASE, renderer.size, None)
    return AnimationResult(
        path, len(drawn), tuple(drawn), tuple(captions), PHASE, renderer.size, whole, reason, tuple(names)
    )


class _Changes:
    """The planned parameter changes of a run, made as it reaches their iterations (``apply`` before each chunk)."""

    def __init__(self, planned: list[tuple[int, dict[str, Any]]]):
        self.planned = planned
        self.next = 0
        self.at = tuple(it for it, _ in planned)

    def apply(self, solver: Solver) -> None:
        while self.next < len(self.planned) and self.planned[self.next][0] <= solver.iteration:
            it, values = self.planned[self.next]
            if it == solver.iteration:
                solver.set_params(**values)
            self.next += 1  # one the run went past (it finished on the way) is dropped


class _Cancelled(Exception):
    """``should_stop`` said so while the frames were drawn: the file being written is dropped."""


def _cancelled(every: int | str, size: tuple[int, int], last: Snapshot | None) -> AnimationResult:
    return AnimationResult(None, 0, (), (), every, size, last, "cancelled")


class _Every(Termination):
    """``inner``, with every chunk ending on ``first`` and then every ``every`` iterations after it (if given)
    and on the iterations ``at`` (the planned changes): the loop stops on each frame's iteration and where a
    change is made."""

    def __init__(self, inner: Termination, every: int | None, at: tuple[int, ...] = (), first: int = 0):
        self.inner = inner
        self.every = every
        self.at = at
        self.first = first
        self.reason = inner.reason

    def start(self, solver: Solver, now: float) -> None:
        self.inner.start(solver, now)

    def done(self, solver: Solver, now: float) -> bool:
        done = self.inner.done(solver, now)
        self.reason = self.inner.reason  # an AnyOf's says which of its rules held
        return done

    def progress(self, solver: Solver, now: float) -> float:
        return self.inner.progress(solver, now)

    def cap(self, solver: Solver) -> int | None:
        caps = [c for c in (self.inner.cap(solver),) if c is not None]
        if self.every is not None:
            i = solver.iteration
            caps.append(self.first - i if i < self.first else self.every - (i - self.first) % self.every)
        ahead = [it - solver.iteration for it in self.at if it > solver.iteration]
        if ahead:
            caps.append(min(ahead))
        return min(caps) if caps else None


# ------------------------------------------------------------------ drawing
#: The caption's line spacing (in font sizes) and its margins above and below (points).
_LINE_SPACING = 1.2
_CAPTION_PAD = 5.0


class _Renderer:
    """One figure, built once: the board and the view are updated in place for each frame, then rasterised.

    The frame is ``size`` pixels, 5.12 inches high (at ``height / 5.12`` dpi, so every text keeps its share of
    the frame at every size). The caption has a band of its own at the top, ``lines`` lines of
    ``caption_size`` points high, so the panels below never move from frame to frame.
    """

    def __init__(
        self,
        cls: type[Solver],
        whole: Snapshot,
        layer: str | None,
        size: tuple[int, int],
        caption_size: float,
        lines: int,
        board_title: str,
    ):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.layout_engine import ConstrainedLayoutEngine

        from . import figures

        self.layer = layer
        self.n = whole.puzzle.n
        self.size = size
        self.dpi = size[1] / _SIZE[1]
        self.caption_size = caption_size
        self.caption_lines = lines
        band = (lines * caption_size * _LINE_SPACING + 2 * _CAPTION_PAD) / 72 / _SIZE[1]
        layout = ConstrainedLayoutEngine(rect=(0, 0, 1, 1 - band))  # the panels below the caption's band
        fig = Figure(figsize=(size[0] / self.dpi, _SIZE[1]), dpi=self.dpi, layout=layout)
        self.canvas = FigureCanvasAgg(fig)
        left, right = fig.subplots(1, 2, width_ratios=(1.0, 1.25 if layer is None else 1.1))
        self.board = figures._Board(left, whole.puzzle)
        left.set_title(board_title, fontsize=10)
        from matplotlib.patches import Rectangle

        N = whole.puzzle.N
        self.marks = []  # an outline per cell, shown on the cells a phase changed
        for cell in range(N * N):
            r, c = divmod(cell, N)
            mark = Rectangle((c + 0.06, r + 0.06), 0.88, 0.88, fill=False, ec=_CHANGED, lw=2.2, zorder=5)
            mark.set_visible(False)
            left.add_patch(mark)
            self.marks.append(mark)
        if layer is None:
            self.curves = figures._draw_convergence(right, whole, cls)
            if len(self.curves.iterations):
                right.set_xlim(0, max(1.0, float(whole.iteration)))
            for ax in fig.axes:  # the limits of the whole run, kept while the curves grow
                if ax is not left:
                    ax.set_autoscale_on(False)
            self.cursor = right.axvline(0.0, color="#444444", lw=1.0, zorder=5)
            right.set_title("convergence", fontsize=10)
            self.image = None
        else:
            self.image = figures._draw_probability(right, np.asarray(whole.layers[layer]), self.n, whole.puzzle.givens)
            fig.colorbar(self.image, ax=right, fraction=0.046, pad=0.03, label="probability")
            right.set_title(f"p[cell, digit] ({layer})", fontsize=10)
        top = 1 - _CAPTION_PAD / 72 / _SIZE[1]
        self.title = fig.text(
            0.5, top, "", ha="center", va="top", fontsize=caption_size, linespacing=_LINE_SPACING, wrap=False
        )
        self.fig = fig

    def caption_lines_of(self, text: str) -> tuple[list[str], float]:
        """``text`` broken into lines that fit the frame's width, and the size they are drawn at: the caption's
        size, or smaller when more lines than the band holds would be needed (never below 6 points)."""
        renderer = self.canvas.get_renderer()
        prop = self.title.get_fontproperties().copy()
        room = 0.96 * self.size[0]
        size = self.caption_size
        while True:
            prop.set_size(size)
            lines: list[str] = []
            for word in text.split(" "):
                line = f"{lines[-1]} {word}" if lines else word
                if lines and renderer.get_text_width_height_descent(line, prop, ismath=False)[0] <= room:
                    lines[-1] = line
                else:
                    lines.append(word)
            if len(lines) <= self.caption_lines or size <= CAPTION_RANGE[0]:
                return lines, size
            size = max(CAPTION_RANGE[0], 0.9 * size)

    def frame(self, snap: Snapshot, text: str, cells: np.ndarray | None = None) -> np.ndarray:
        """The frame of ``snap``: uint8 (H, W, 3) of :attr:`size`; ``cells`` (bool (C,)) outlined on the board."""
        from . import figures

        self.board.show(snap.grid, snap.fixed)
        marked = np.zeros(len(self.marks), bool) if cells is None else np.asarray(cells, bool).reshape(-1)
        for mark, on in zip(self.marks, marked.tolist()):
            if mark.get_visible() != on:
                mark.set_visible(on)
        if self.layer is None:
            self.curves.upto(snap.iteration)
            self.cursor.set_xdata([snap.iteration, snap.iteration])
        else:
            assert self.image is not None
            self.image.set_data(figures.probability_image(np.asarray(snap.layers[self.layer]), self.n))
        lines, size = self.caption_lines_of(text)
        self.title.set_text("\n".join(lines))
        self.title.set_fontsize(size)
        self.canvas.draw()
        rgba = np.asarray(self.canvas.buffer_rgba())
        w, h = self.size
        out = np.full((h, w, 3), 255, np.uint8)  # the canvas may round a pixel short of the size asked for
        hh, ww = min(h, rgba.shape[0]), min(w, rgba.shape[1])
        out[:hh, :ww] = rgba[:hh, :ww, :3]
        return out


# ------------------------------------------------------------------ writing
def _write_mp4(path: Path, frames, fps: int, size: tuple[int, int]) -> None:
    """H.264 by the ffmpeg of imageio-ffmpeg, into a private temporary file, then copied through write_file.

    Nothing is drawn before ffmpeg has started: one that does not is one line saying so (never an error about
    the file being written).

    ffmpeg writes a file by its name and seeks in it (the index goes at the front), so it gets a
    temporary directory of its own; the copy then goes where ``path`` says, renamed into place.
    """
    import imageio_ffmpeg

    with tempfile.TemporaryDirectory(prefix="sudoku-lab-animation-") as tmp:
        video = os.path.join(tmp, "run.mp4")
        try:
            writer = imageio_ffmpeg.write_frames(
                video,
                size,
                fps=fps,
                codec="libx264",
                quality=7,
                macro_block_size=2,  # H.264 (yuv420p) needs even sizes; the frames are (frame_size)
                ffmpeg_log_level="error",
                output_params=["-movflags", "+faststart"],
            )
            try:
                writer.send(None)  # starts ffmpeg
            except OSError:  # it was there when the options were checked, and is gone (or broken) now
                raise ParameterError(ffmpeg_problem() or "MP4 needs ffmpeg, which did not start", name="out") from None
            try:
                for image in frames:
                    writer.send(np.ascontiguousarray(image))
            finally:
                writer.close()  # waits for ffmpeg to finish the file (or stops it)
        except OSError as e:  # a full disk while drawing or encoding: the same one line as writing the file
            if e.errno is None and "FFMPEG COMMAND" in str(e):  # imageio-ffmpeg's words for ffmpeg gone mid-way
                first = str(e).strip().splitlines()[0]
                raise DataFileError(
                    f"cannot write animation {path}: ffmpeg stopped while encoding ({first})", path=path
                ) from None
            raise DataFileError(f"cannot write animation {path}: {os_reason(e)}", path=path) from None

        def copy(fh: BinaryIO) -> None:
            with open(video, "rb") as src:
                while block := src.read(1 << 20):
                    fh.write(block)

        write_file(path, copy, "animation", binary=True)


def _write_gif(fh: BinaryIO, frames, delay: float, hold: float) -> None:
    """A looping GIF, written frame by frame (``delay`` hundredths of a second each, ``hold`` for the last):
    memory holds three frames, as each is written when the next one comes (the last is known at the end).

    Each frame after the first is cropped to the rectangle that changed and
    drawn over the previous one (disposal 1), with a palette of its own (a
    local colour table of up to 256 colours, from Pillow's quantizer).
    Pillow's own animated GIF writer keeps every frame until the end.
    """
    pending: list = []
    for image in frames:
        if pending:
            _write_gif_image(fh, pending, delay)
        pending = [image, *pending[:1]]
    if pending:
        _write_gif_image(fh, pending, hold)
    fh.write(b";")


def _write_gif_image(fh: BinaryIO, pending: list, delay_f: float) -> None:
    """Write ``pending[0]``, drawn over ``pending[1]`` (the frame before, if any), with its delay."""
    image = pending[0]
    previous = pending[1] if len(pending) > 1 else None
    h, w = image.shape[:2]
    if previous is None:
        fh.write(b"GIF89a" + struct.pack("<HHBBB", w, h, 0, 0, 0))  # no global colour table
        fh.write(b"!\xff\x0bNETSCAPE2.0\x03\x01" + struct.pack("<H", 0) + b"\x00")  # loop forever
        x0, y0, x1, y1 = 0, 0, w, h
    else:
        changed = np.any(image != previous, axis=2)
        rows, cols = np.flatnonzero(changed.any(axis=1)), np.flatnonzero(changed.any(axis=0))
        if rows.size:
            y0, y1, x0, x1 = int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1
        else:
            x0, y0, x1, y1 = 0, 0, 1, 1  # nothing changed: one pixel, as it was
    _write_gif_frame(fh, image[y0:y1, x0:x1], (x0, y0), int(round(delay_f)))


def _write_gif_frame(fh: BinaryIO, rgb: np.ndarray, offset: tuple[int, int], delay: int) -> None:
    """One GIF image block: its graphic control extension (``delay`` in hundredths of a second, disposal 1),
    its descriptor at ``offset`` with a local colour table, and the LZW data Pillow encodes."""
    import io

    from PIL import Image

    im = Image.fromarray(rgb, "RGB").quantize(256)
    one = io.BytesIO()
    im.save(one, "GIF", interlace=False)
    table, interlaced, data = _gif_parts(one.getvalue())
    h, w = rgb.shape[:2]
    bits = max(1, (len(table) // 3 - 1).bit_length()) - 1  # the table holds 2 ** (bits + 1) colours
    fh.write(b"!\xf9\x04" + struct.pack("<BHBB", 1 << 2, delay, 0, 0))
    fh.write(b"," + struct.pack("<HHHHB", offset[0], offset[1], w, h, 0x80 | interlaced | bits) + table + data)


def _gif_parts(gif: bytes) -> tuple[bytes, int, bytes]:
    """The colour table, the interlace flag (0x40 or 0) and the image data (LZW code size and sub-blocks,
    through the block terminator) of the first image of a GIF file."""
    flags = gif[10]
    pos = 13
    table = b""
    if flags & 0x80:
        size = 3 * (2 ** ((flags & 7) + 1))
        table, pos = gif[pos : pos + size], pos + size
    while gif[pos : pos + 1] == b"!":  # extensions: label, then sub-blocks to a zero length
        pos += 2
        while gif[pos]:
            pos += gif[pos] + 1
        pos += 1
    if gif[pos : pos + 1] != b",":
        raise RuntimeError("Pillow wrote a GIF without an image block")
    local = gif[pos + 9]
    pos += 10
    if local & 0x80:
        size = 3 * (2 ** ((local & 7) + 1))
        table, pos = gif[pos : pos + size], pos + size
    start = pos
    pos += 1  # LZW minimum code size
    while gif[pos]:
        pos += gif[pos] + 1
    return table, local & 0x40, gif[start : pos + 1]
