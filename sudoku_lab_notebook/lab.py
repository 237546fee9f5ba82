"""The live lab in a notebook: one solver on one puzzle, stepped, run, rewound and tuned from ipywidgets.

:class:`Lab` is the Qt lab's centre in a notebook cell (see ``docs/notebook.md``): the board, the
solver's main view (its probability model when it declares one), the convergence curves, a form
generated from the solver's parameter declarations, Step / Step phase / Step back / Run / Reset
buttons, a timeline over the recorded run and a caption line saying what the last phase did.

Everything goes through a :class:`~sudoku_lab.stepping.history.History`, so Step back and the
timeline give the exact state of any iteration reached, and parameter changes are recorded and
replayed as in the Qt lab. Run steps in a background thread in chunks of about 50 ms and updates the
lines and the board at most every :attr:`Lab.refresh_interval` seconds; every action takes the same
lock, so the solver is never touched by two threads at once.

The view and the curves are matplotlib figures drawn headless
(:func:`sudoku_lab.analysis.view_figures.view_figure`) and shown as PNG images: no ipympl, no
JavaScript beyond ipywidgets' own. Drawing them is what costs (about a second of CPU for both on a
busy 2-core machine, against a few milliseconds for stepping, the board's SVG and the lines), so an
action never waits for it: it updates the lines and the board, then hands the new snapshot to a
drawing thread of its own, which draws only the panes shown (each pane's check box hides it), only
the latest state (snapshots handed over while it draws replace each other: ten quick Steps draw
once or twice, not ten times), and nothing that did not change. :meth:`Lab.wait_drawn` waits for it.
"""

from __future__ import annotations

import io
import threading
import time
import traceback
from collections.abc import Mapping
from typing import Any, NamedTuple

import ipywidgets as widgets
import numpy as np

from sudoku_lab.analysis.view_figures import view_figure, view_names, view_title
from sudoku_lab.errors import ParameterError, ParameterTypeError, SudokuLabError
from sudoku_lab.model import library
from sudoku_lab.model.puzzle import Puzzle
from sudoku_lab.solvers import Param, PhaseStep, Snapshot, Solver, create, get_solver_class
from sudoku_lab.stepping.history import History

from .board import board_html

__all__ = ["Lab", "figure_png", "main_view"]

#: One figure drawn at a time in this package (matplotlib is not thread-safe): the lab's drawing thread and a
#: cell's :func:`figure_png` / ``show_view`` take turns.
_DRAWING = threading.RLock()

#: Bytes a notebook lab's history may hold by default: 50 MB, a quarter of the window's, as a notebook (a JupyterHub
#: server, a class's kernels) shares its machine.
DEFAULT_MEMORY_LIMIT = 50_000_000

#: Views that are not a solver's "main" view (the board and curves have panes of their own).
_NOT_MAIN = ("board", "convergence", "ac3", "runs")


def figure_png(fig: Any, dpi: int | None = None) -> bytes:
    """A matplotlib Figure as PNG bytes (drawn by Agg, headless; the figure's own dpi unless given)."""
    buf = io.BytesIO()
    with _DRAWING:
        fig.savefig(buf, format="png", dpi=dpi if dpi is not None else fig.get_dpi())
    return buf.getvalue()


def main_view(solver: Any) -> str:
    """The view a notebook shows beside the board: ``probability`` if the solver declares a model, else its own.

    Parameters
    ----------
    solver : Solver subclass, Solver, str or Snapshot
        As :func:`~sudoku_lab.analysis.view_figures.view_names` takes it.

    Returns
    -------
    str
        ``probability``, else the first view a layer role of the solver adds (``nests``,
        ``population``, ``tabu``, ``unit_counts``...), else ``ac3``.
    """
    names = view_names(solver)
    if "probability" in names:
        return "probability"
    own = [v for v in names if v not in _NOT_MAIN]
    return own[0] if own else "ac3"


def _param_widget(p: Param, value: Any) -> widgets.Widget:
    """A form field for one declared parameter (the Qt form's choices: a slider where the range is a slider's)."""
    common: dict[str, Any] = {
        "description": p.label,
        "style": {"description_width": "9em"},
        "layout": widgets.Layout(width="21em"),
    }
    tip = f"{p.help} Default {p.default!r}; {p.range_text()}." + ("" if p.live else " Needs a reset.")
    if p.kind == "bool":
        w: widgets.Widget = widgets.Checkbox(value=bool(value), indent=False, **common)
    elif p.kind == "choice":
        w = widgets.Dropdown(options=list(p.choices or ()), value=value, **common)
    elif p.kind == "float" and p.low is not None and p.high is not None and p.step:
        w = widgets.FloatSlider(
            value=float(value),
            min=float(p.low),
            max=float(p.high),
            step=float(p.step),
            continuous_update=False,
            readout_format=".2f",
            **common,
        )
    elif p.kind == "float":
        w = widgets.FloatText(value=float(value), **common)
    else:
        # A text box, not a bounded one: a value out of range is refused in words by the declaration.
        w = widgets.IntText(value=int(value), **common)
    w.tooltip = tip
    return w


class Lab:
    """A live lab for one solver on one puzzle, shown by displaying it in a notebook cell.

    Parameters
    ----------
    solver : str
        A registered solver's name (``sudoku_lab.solvers.registry()``).
    puzzle : str or Puzzle
        A bundled puzzle's name (``ai_escargot``, ``collection:k``) or a :class:`~sudoku_lab.model.Puzzle`.
    seed : int
        The run's seed (as ``sudoku-lab solve --seed``).
    params : Mapping of str to value, optional
        Parameters other than the solver's defaults, e.g. ``{"alpha": 0.5}`` (as the form's fields and
        :meth:`set_params` take them).
    memory_limit : int, optional
        Bytes the history's keyframes may hold, as :class:`~sudoku_lab.stepping.history.History` takes it
        (``50_000_000`` for 50 MB); None for the default, 50 MB (a notebook shares its machine).

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind: ``params`` that is not a mapping (``"alpha=0.5"``), a ``memory_limit``
        that is not an int (``"50MB"``), a seed that is not an int (also a ParameterError and a TypeError).
    ParameterError
        An unknown solver or parameter, a value out of range, a negative seed, a ``memory_limit`` that is not
        positive or smaller than one keyframe of the solver.
    PuzzleError
        No bundled puzzle by that name, or a puzzle whose givens clash.

    Attributes
    ----------
    widget : ipywidgets.VBox
        The whole lab (what displaying the Lab shows).
    step_button, phase_button, back_button, run_button, reset_button : ipywidgets.Button
        The controls; ``run_button`` reads Run, or Pause while running.
    timeline : ipywidgets.IntSlider
        The recorded run, from its origin to the furthest iteration: moving it seeks.
    param_widgets : dict of str to ipywidgets.Widget
        One field per declared parameter; a change applies at once (through the history).
    view_select : ipywidgets.Dropdown
        The view shown beside the board.
    view_shown, curves_shown : ipywidgets.Checkbox
        Whether the view and the convergence curves are shown; a hidden one is not drawn until shown again.
    board, status, caption, error : ipywidgets.HTML
        The board (SVG), the iteration and costs, what the last phase did, and the last error (one line).
    view_image, curves_image : ipywidgets.Image
        The chosen view and the convergence curves (PNG), drawn by the lab's drawing thread.
    """

    #: Seconds between updates of the lines and the board while running (the images follow as fast as they draw).
    refresh_interval = 0.5
    #: Seconds the drawing thread waits for actions to pause before it draws (a burst of Steps draws once), and
    #: at most ten times this while they go on.
    render_delay = 0.03
    #: Seconds of stepping per chunk while running (the chunk size never changes the run).
    chunk_seconds = 0.05
    #: Most (width, height) in pixels of the view beside the board and of the curves: each figure keeps its own
    #: proportions and is drawn at the resolution that fits (72 dpi at most).
    view_pixels = (640, 440)
    curves_pixels = (600, 330)

    def __init__(
        self,
        solver: str = "reseda",
        puzzle: str | Puzzle = "ai_escargot",
        seed: int = 0,
        params: Mapping[str, Any] | None = None,
        memory_limit: int | None = None,
    ):
        # The core's argument checker (sudoku_lab._checks) is private to the core, so the kinds are checked here,
        # in its words: "Lab: NAME must be KIND, got TYPE VALUE".
        if not isinstance(solver, str):
            raise ParameterTypeError(f"Lab: solver must be a solver's name, got {_got(solver)}", name="solver")
        if isinstance(puzzle, str):
            puzzle = library.puzzle(puzzle)
        if not isinstance(puzzle, Puzzle):
            raise ParameterTypeError(
                f"Lab: puzzle must be a bundled puzzle's name or a Puzzle, got {_got(puzzle)}", name="puzzle"
            )
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
            raise ParameterTypeError(f"Lab: seed must be an int, got {_got(seed)}", name="seed")
        if params is None:
            params = {}
        elif not isinstance(params, Mapping):
            raise ParameterTypeError(
                f"Lab: params must be a mapping of parameter names to values, such as {{'alpha': 0.5}}, "
                f"got {_got(params)}",
                name="params",
            )
        not_names = [k for k in params if not isinstance(k, str)]
        if not_names:
            raise ParameterTypeError(
                f"Lab: params' keys must be parameter names (str), got {_got(not_names[0])}", name="params"
            )
        if memory_limit is None:
            memory_limit = DEFAULT_MEMORY_LIMIT
        elif isinstance(memory_limit, (bool, np.bool_)) or not isinstance(memory_limit, (int, np.integer)):
            # Bytes as an int, as History, restore_history and the window's setting (MB, stored as bytes) take
            # them: no unit is parsed anywhere else, so "50MB" is refused with the value to write instead.
            raise ParameterTypeError(
                f"Lab: memory_limit must be an int, a number of bytes (50_000_000 for 50 MB), got {_got(memory_limit)}",
                name="memory_limit",
            )
        elif memory_limit <= 0:
            raise ParameterError(
                f"Lab: memory_limit must be a positive number of bytes, got {memory_limit}", name="memory_limit"
            )
        self._cls: type[Solver] = get_solver_class(solver)
        self._puzzle: Puzzle = puzzle
        self._seed = int(seed)
        self._memory_limit = int(memory_limit)
        self._lock = threading.RLock()
        self._local = threading.local()  # .syncing: widgets being set from the state, not by the user
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._changed: np.ndarray | None = None
        self._caption = ""
        #: The full report of the last unexpected error (the widget shows one line of it).
        self.last_traceback: str | None = None
        # The drawing thread (started when there is something to draw, gone when there is not): the frame it is
        # to draw next, how many were handed over (to wait for a burst to end), and what each pane shows now.
        self._draw_cv = threading.Condition()
        self._pending: _Frame | None = None
        self._handed = 0
        self._drawer: threading.Thread | None = None
        self._drawn: dict[str, tuple] = {}
        self._closed = False
        self._start(dict(params))
        self._build()
        self._refresh()

    # ------------------------------------------------------------ state
    def _start(self, params: dict[str, Any]) -> None:
        s = create(self._cls.name, **params)
        s.reset(self._puzzle, self._seed)
        self._solver = s
        self._history = History(s, memory_limit=self._memory_limit)
        self._changed = None
        self._caption = "Ready: Step, Step phase or Run."

    @property
    def solver(self) -> Solver:
        """The solver (step it through the lab or :attr:`history` only)."""
        return self._solver

    @property
    def history(self) -> History:
        """The run's recording."""
        return self._history

    @property
    def iteration(self) -> int:
        """The solver's current iteration."""
        return int(self._solver.iteration)

    @property
    def running(self) -> bool:
        """True while Run steps in the background."""
        return self._thread is not None

    def snapshot(self) -> Snapshot:
        """The solver's snapshot now."""
        with self._lock:
            return self._solver.snapshot()

    # ------------------------------------------------------------ widgets
    def _build(self) -> None:
        cls = self._cls
        button = widgets.Layout(width="auto")
        self.step_button = widgets.Button(description="Step", tooltip="One iteration", layout=button)
        self.phase_button = widgets.Button(
            description="Step phase", tooltip="One phase of the iteration (solvers that declare phases)", layout=button
        )
        self.back_button = widgets.Button(description="Step back", tooltip="One iteration back", layout=button)
        self.run_button = widgets.Button(
            description="Run", button_style="success", tooltip="Run until solved; Pause", layout=button
        )
        self.reset_button = widgets.Button(
            description="Reset", tooltip="Start again from the puzzle with the same seed", layout=button
        )
        self.phase_button.disabled = not cls.phases
        self.step_button.on_click(lambda _b: self.step())
        self.phase_button.on_click(lambda _b: self.step_phase())
        self.back_button.on_click(lambda _b: self.back())
        self.run_button.on_click(lambda _b: self.pause() if self.running else self.run())
        self.reset_button.on_click(lambda _b: self.reset())
        self.timeline = widgets.IntSlider(
            value=0,
            min=0,
            max=0,
            description="timeline",
            continuous_update=False,
            style={"description_width": "5em"},
            layout=widgets.Layout(width="100%"),
        )
        self.timeline.observe(self._on_timeline, names="value")
        views = [v for v in view_names(cls) if v not in ("board", "convergence")]
        self.view_select = widgets.Dropdown(
            options=[(view_title(v), v) for v in views], value=main_view(cls), description="view"
        )
        self.view_select.observe(lambda _c: self._refresh(), names="value")
        self.view_shown = widgets.Checkbox(
            value=True, description="show", indent=False, layout=widgets.Layout(width="auto")
        )
        self.curves_shown = widgets.Checkbox(
            value=True, description="convergence curves", indent=False, layout=widgets.Layout(width="auto")
        )
        for box in (self.view_shown, self.curves_shown):
            box.observe(lambda _c: self._refresh(), names="value")
        self.param_widgets: dict[str, widgets.Widget] = {}
        params = self._solver.get_params()
        for p in cls.params:
            w = _param_widget(p, params[p.name])
            w.observe(self._on_param, names="value")
            self.param_widgets[p.name] = w
        self.title = widgets.HTML(
            f"<b>{cls.title}</b> on <b>{self._puzzle.name or 'a puzzle'}</b>, seed {self._seed}"
            + (f" <span style='color:#666'>({cls.paper})</span>" if cls.paper else "")
        )
        self.status = widgets.HTML()
        self.caption = widgets.HTML(layout=widgets.Layout(min_height="1.6em"))
        self.error = widgets.HTML(layout=widgets.Layout(min_height="1.4em"))
        self.board = widgets.HTML()
        self.view_image = widgets.Image(format="png")
        self.curves_image = widgets.Image(format="png")
        form = widgets.VBox(
            [widgets.HTML("<b>Parameters</b>"), *self.param_widgets.values()]
            if self.param_widgets
            else [widgets.HTML("<i>no parameters</i>")],
            layout=widgets.Layout(max_height="330px", overflow="auto", padding="0 0 0 12px"),
        )
        controls = widgets.HBox(
            [self.step_button, self.phase_button, self.back_button, self.run_button, self.reset_button]
        )
        # A narrow notebook puts the view under the board (and the form under the curves) instead of shrinking them.
        wrap = widgets.Layout(flex_flow="row wrap", align_items="flex-start", grid_gap="8px")
        self.widget = widgets.VBox(
            [
                self.title,
                controls,
                self.timeline,
                self.status,
                self.caption,
                self.error,
                widgets.HBox(
                    [self.board, widgets.VBox([widgets.HBox([self.view_select, self.view_shown]), self.view_image])],
                    layout=wrap,
                ),
                widgets.HBox([widgets.VBox([self.curves_shown, self.curves_image]), form], layout=wrap),
            ],
            layout=widgets.Layout(width="100%"),
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)  # what a page that cannot show widgets (GitHub) shows instead
        return bundle

    def __repr__(self) -> str:
        where = "" if self._solver.puzzle is None else f" on {self._puzzle.name or 'a puzzle'}"
        return (
            f"<Sudoku Lab: {self._cls.title}{where}, seed {self._seed}, {self._cls.iteration_name} "
            f"{self.iteration:,} (run the notebook to use the live lab)>"
        )

    @property
    def _syncing(self) -> bool:
        return getattr(self._local, "syncing", False)

    def _refresh(self) -> None:
        """Show the solver's state in every widget (the widgets' own observers ignore these changes).

        The lines, the board and the form at once; the images are handed to the drawing thread.
        """
        with self._lock:
            self._local.syncing = True
            try:
                self._draw()
            finally:
                self._local.syncing = False

    def _draw(self) -> None:
        s, h, cls = self._solver, self._history, self._cls
        snap = s.snapshot()
        furthest = h.furthest
        t = self.timeline
        if furthest >= t.max:
            t.max = furthest
            t.min = h.origin
        else:
            t.min = h.origin
            t.value = min(t.value, furthest)
            t.max = furthest
        t.value = h.iteration
        where = f"{cls.iteration_name} {snap.iteration:,}"
        if snap.iteration < furthest:
            where += f" of {furthest:,} (rewound)"
        phase = f" + phase {s.phase}/{len(cls.phases)} of the next" if s.phase else ""
        state = "running" if self.running else "paused" if snap.status == "running" else snap.status
        self.status.value = (
            f"{where}{phase} &nbsp;|&nbsp; cost {snap.cost} &nbsp;|&nbsp; best cost {snap.best_cost} "
            f"&nbsp;|&nbsp; evaluations {snap.evaluations:,} &nbsp;|&nbsp; <b>{state}</b>"
        )
        self.caption.value = f"<i>{_escape(self._caption)}</i>"
        self.board.value = board_html(snap, changed=self._changed)
        panes = []
        for pane, shown, view, pixels in (
            ("view", self.view_shown.value, self.view_select.value, self.view_pixels),
            ("curves", self.curves_shown.value, "convergence", self.curves_pixels),
        ):
            self._images[pane].layout.display = None if shown else "none"
            if shown:
                panes.append((pane, view, pixels))
        self._hand_over(_Frame(snap, tuple(panes)))
        params = snap.params
        started = snap.iteration > 0 or furthest > h.origin
        for name, w in self.param_widgets.items():
            if w.value != params[name]:
                w.value = params[name]
            w.disabled = started and not cls.param(name).live
        self.run_button.description = "Pause" if self.running else "Run"
        self.run_button.button_style = "warning" if self.running else "success"
        self.back_button.disabled = snap.iteration <= h.origin and not s.phase

    @property
    def _images(self) -> dict[str, widgets.Image]:
        return {"view": self.view_image, "curves": self.curves_image}

    # ------------------------------------------------------------ drawing (its own thread)
    def _hand_over(self, frame: _Frame) -> None:
        """Make ``frame`` the next one to draw (replacing any not yet drawn); start the drawing thread if needed."""
        with self._draw_cv:
            if self._closed:
                return
            self._pending = frame
            self._handed += 1
            if self._drawer is None:
                self._drawer = threading.Thread(target=self._draw_loop, name="sudoku-lab-notebook-draw", daemon=True)
                self._drawer.start()
            self._draw_cv.notify_all()

    def _draw_loop(self) -> None:
        try:
            self._draw_frames()
        except BaseException:
            # Never left for dead while marked as drawing (wait_drawn would wait for ever): the next frame starts
            # a new thread.
            with self._draw_cv:
                self._drawer = None
                self._draw_cv.notify_all()
            raise

    def _draw_frames(self) -> None:
        cv = self._draw_cv
        while True:
            with cv:
                # A burst of actions (a loop of lab.step(), clicks in quick succession) draws once, at its end.
                waited = 0.0
                while waited < 10 * self.render_delay:
                    handed = self._handed
                    cv.wait(self.render_delay)
                    waited += self.render_delay
                    if self._handed == handed:
                        break
                frame, self._pending = self._pending, None
                if frame is None:
                    self._drawer = None
                    cv.notify_all()
                    return
            for pane, view, pixels in frame.panes:
                with cv:
                    if self._pending is not None:
                        break  # a newer state came while the last pane drew: draw that one instead
                try:
                    key = (view, pixels, _state_key(frame.snapshot))
                    if self._drawn.get(pane) == key:
                        continue  # nothing this pane shows has changed (a refused value, Pause, showing it again)
                    self._images[pane].value = _png(frame.snapshot, view, pixels)
                    self._drawn[pane] = key
                except Exception as exc:  # noqa: BLE001 - one line in the widget, never a dead thread
                    self._drawn.pop(pane, None)
                    self._fail(exc)

    def wait_drawn(self, timeout: float | None = None) -> bool:
        """Wait until the images show the latest state (the drawing thread has nothing left); True if they do.

        Parameters
        ----------
        timeout : float, optional
            Seconds to wait at most (default: as long as it takes).
        """
        with self._draw_cv:
            return self._draw_cv.wait_for(lambda: self._drawer is None, timeout)

    def close(self) -> None:
        """Stop a run and the drawing (a figure being drawn is finished first), and close the lab's widgets.

        What a notebook does with a lab it no longer shows; the solver and :attr:`history` stay usable.
        """
        self.pause()
        with self._draw_cv:
            self._closed = True
            self._pending = None
            self._draw_cv.notify_all()
        self.wait_drawn()
        stack: list[Any] = [self.widget]
        while stack:
            w = stack.pop()
            stack.extend(getattr(w, "children", ()))
            w.close()

    def _fail(self, exc: BaseException) -> None:
        """Show an error in one line: the message of a refused value, or the kind of an unexpected failure."""
        if isinstance(exc, SudokuLabError):
            text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        else:
            self.last_traceback = "".join(traceback.format_exception(exc))
            text = f"unexpected error ({type(exc).__name__}): {str(exc).splitlines()[0] if str(exc) else ''}"
        self.error.value = f"<span style='color:#C0392B'>{_escape(text)}</span>"

    def _act(self, action: Any, *, pause: bool = True) -> Any:
        """Run one user action under the lock: errors become the error line, then everything is redrawn."""
        if pause:
            self.pause()
        with self._lock:
            self.error.value = ""
            try:
                return action()
            except Exception as exc:  # noqa: BLE001 - a notebook widget shows one line, never a traceback
                self._fail(exc)
                return None
            finally:
                self._refresh()

    # ------------------------------------------------------------ actions
    def step(self, n: int = 1) -> int:
        """Advance ``n`` iterations (Step); returns how many were done."""

        def go() -> int:
            done = self._history.step(n)
            self._changed = None
            self._caption = self._whole_caption(done)
            return done

        return self._act(go) or 0

    def step_phase(self) -> PhaseStep | None:
        """Advance one phase of the current iteration (Step phase); returns what it did."""

        def go() -> PhaseStep | None:
            if not self._cls.phases:
                raise ParameterError(f"{self._cls.title} declares no phases: step it by whole iterations")
            out = self._history.step_phase()
            if out is None:
                self._caption = "The run is over: nothing to step."
                return None
            cells = out.changed.get("cells")
            self._changed = None if cells is None else np.asarray(cells, bool)
            self._caption = (
                f"{self._cls.iteration_name} {out.iteration:,}, phase {out.index + 1}/{len(self._cls.phases)} "
                f"({out.name}): {out.caption}"
            )
            return out

        return self._act(go)

    def back(self, n: int = 1) -> None:
        """Go ``n`` iterations back (Step back); in the middle of an iteration, back to its start first."""

        def go() -> None:
            h, s = self._history, self._solver
            target = h.iteration if s.phase else h.iteration - n
            self._seek(max(h.origin, target))

        self._act(go)

    def seek(self, iteration: int) -> None:
        """Show the exact state after ``iteration`` of the recorded run (as the timeline does)."""
        self._act(lambda: self._seek(iteration))

    def _seek(self, iteration: int) -> None:
        self._history.seek(iteration)
        self._changed = None
        self._caption = f"Back at {self._cls.iteration_name} {iteration:,}: Step or Run replays the recorded run."

    def set_params(self, **changes: Any) -> None:
        """Change parameters now (as the form does), recorded by the history so a rewind replays them.

        A parameter that needs a reset (``live=False``) starts the run again with it, while the run is
        at its start; later it is refused. A refused value shows one line in the widget.
        """

        def go() -> None:
            cls = self._cls
            dead = [k for k in changes if k in {p.name for p in cls.params} and not cls.param(k).live]
            if dead and self._history.furthest == self._history.origin and self._solver.iteration == 0:
                merged = {**self._solver.get_params(), **changes}
                cls.validate_params(merged)
                self._start(merged)
                self._caption = f"Started again with {', '.join(f'{k}={v!r}' for k, v in changes.items())}."
                return
            events = self._history.set_params(**changes)
            if events:
                said = ", ".join(f"{e.name} {e.old!r} -> {e.new!r}" for e in events)
                self._caption = f"From {cls.iteration_name} {self._solver.iteration + 1:,} on: {said}."

        self._act(go, pause=False)

    def reset(self) -> None:
        """Start again from the puzzle, with the same seed and the parameters in force."""
        self._act(lambda: self._start(self._solver.get_params()))

    def run(self) -> None:
        """Run in the background until solved (or the solver gives up) or :meth:`pause`."""
        with self._lock:
            if self._thread is not None or self._solver.done:
                if self._solver.done:
                    self.error.value = ""
                    self._caption = "The run is over: Reset to start again, or go back on the timeline."
                    self._refresh()
                return
            self.error.value = ""
            self._stop.clear()
            self._thread = threading.Thread(target=self._run_loop, name="sudoku-lab-notebook-run", daemon=True)
            self._thread.start()
            self._refresh()

    def pause(self) -> None:
        """Stop a run started by :meth:`run` (waits for its current chunk)."""
        thread = self._thread
        if thread is None:
            return
        self._stop.set()
        if thread is not threading.current_thread():
            thread.join()

    def _run_loop(self) -> None:
        chunk, last = 1, 0.0
        try:
            while not self._stop.is_set():
                with self._lock:
                    if self._solver.done:
                        break
                    t0 = time.perf_counter()
                    done = self._history.step(chunk)
                    took = time.perf_counter() - t0
                    self._changed = None
                    self._caption = self._whole_caption(done)
                    if took < self.chunk_seconds / 2:
                        chunk = min(chunk * 2, 1 << 20)
                    elif took > self.chunk_seconds * 2 and chunk > 1:
                        chunk //= 2
                    if time.perf_counter() - last >= self.refresh_interval:
                        self._refresh()
                        last = time.perf_counter()
                time.sleep(0)  # let a click waiting for the lock in
        except Exception as exc:  # noqa: BLE001 - shown in the widget in one line
            with self._lock:
                self._fail(exc)
        finally:
            with self._lock:
                self._thread = None
                self._refresh()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until a run started by :meth:`run` stops by itself (solved, given up); True if it has."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return self._thread is None

    def _whole_caption(self, done: int) -> str:
        s, cls = self._solver, self._cls
        if s.status == "solved":
            return f"Solved at {cls.iteration_name} {s.iteration:,}."
        if s.status == "failed":
            return f"The run gave up at {cls.iteration_name} {s.iteration:,}."
        if done == 0:
            return "Nothing to step."
        return f"{done:,} {cls.iteration_name}{'s' if done != 1 else ''} done: cost {s.cost}, best cost {s.best_cost}."

    # ------------------------------------------------------------ observers
    def _on_timeline(self, change: Mapping[str, Any]) -> None:
        if self._syncing:
            return
        target = int(change["new"])
        if target != self._solver.iteration or self._solver.phase:
            self.seek(target)

    def _on_param(self, change: Mapping[str, Any]) -> None:
        if self._syncing:
            return
        name = next(k for k, w in self.param_widgets.items() if w is change["owner"])
        self.set_params(**{name: change["new"]})

    @property
    def board_html(self) -> str:
        """The board's HTML as shown now."""
        return str(self.board.value)


class _Frame(NamedTuple):
    """What the drawing thread is to draw: a snapshot, and the (pane, view, pixels) of each pane shown."""

    snapshot: Snapshot
    panes: tuple[tuple[str, str, tuple[int, int]], ...]


def _state_key(snap: Snapshot) -> tuple:
    """What tells two snapshots of one lab apart: a run is its seed, its parameters and changes, and how far it is."""
    return (
        snap.solver,
        snap.iteration,
        snap.phase,
        snap.evaluations,
        snap.status,
        snap.cost,
        snap.best_cost,
        tuple(sorted(snap.params.items())),
        len(snap.events),
        snap.events[-1:],
    )


def _png(snapshot: Snapshot, view: str, pixels: tuple[int, int]) -> bytes:
    """One view as a PNG at most ``pixels`` (width, height), its text a little larger than a paper figure's."""
    with _DRAWING:
        fig = view_figure(snapshot, view, font_size=11)
        w, h = fig.get_size_inches()
        return figure_png(fig, dpi=int(min(72, pixels[0] / w, pixels[1] / h)))


def _got(value: Any) -> str:
    """A wrong value in a message: its kind and a short form of it (``str '50MB'``, ``None``)."""
    if value is None:
        return "None"
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def _escape(text: str) -> str:
    from html import escape

    return escape(text, quote=False)
