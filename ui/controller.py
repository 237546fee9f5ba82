"""The lab's state and the one place that talks to the solver worker.

Widgets call the controller (load a puzzle, choose an algorithm, change a
parameter, run, step...) and listen to its signals; the controller turns
requests into thread-safe worker calls and polls the worker's newest
progress on a ~30 Hz timer, so a fast solver never floods the event loop.

A puzzle is checked off the GUI thread (the exact solver proves it has a
solution, and whether it is unique); the newest choice wins. Puzzles with
several solutions load and run (the metaheuristics do not need uniqueness);
only what compares with *the* solution is unavailable for them. Clashing or
unsolvable puzzles are refused with a message naming the cells.
"""

from __future__ import annotations

import random

import numpy as np
from PySide6.QtCore import QObject, QThread, QTimer, Signal

from sudoku_lab.errors import ParameterError, PuzzleError
from sudoku_lab.model.puzzle import Puzzle
from sudoku_lab.solvers import DEFAULT_SEED, get_solver_class, registry
from sudoku_lab.stepping import loop

from .background import Jobs
from .worker import SolverWorker, WorkerState

__all__ = ["Controller", "SPEEDS", "check_puzzle"]

#: Speed choices (label, iterations per second; None = as fast as possible).
SPEEDS = (
    ("1 step/s", 1.0),
    ("2 steps/s", 2.0),
    ("5 steps/s", 5.0),
    ("10 steps/s", 10.0),
    ("30 steps/s", 30.0),
    ("100 steps/s", 100.0),
    ("1000 steps/s", 1000.0),
    ("as fast as possible", None),
)


def check_puzzle(puzzle: Puzzle) -> tuple[np.ndarray | None, bool]:
    """Validate ``puzzle`` with the exact solver (slow on hard grids: run it off the GUI thread).

    Returns
    -------
    (solution, several) : (ndarray of int8 (C,) or None, bool)
        The unique solution and False, or None and True when the puzzle has
        several solutions.

    Raises
    ------
    PuzzleError
        Clashing givens, or no solution (naming the cell AC3 empties, if any).
    """
    try:
        return puzzle.check(unique=True), False
    except PuzzleError as e:
        if e.kind == "several_solutions":
            return None, True
        raise


class Controller(QObject):
    """Application state: puzzle, algorithm, parameters, seed; drives the worker.

    Signals
    -------
    puzzleChanged(object)
        A validated :class:`Puzzle` was loaded (``solution`` and
        ``several_solutions`` are set before).
    puzzleRejected(str, object, object)
        A puzzle was refused: the message, the cells involved (tuple) and the
        puzzle.
    checkingChanged(bool)
        A puzzle check started (True) or ended (False).
    solverChanged(str)
        The algorithm changed (registry name).
    paramsChanged(object)
        The parameter dict for the current algorithm changed.
    progress(object)
        The newest :class:`~sudoku_lab.stepping.loop.Progress` (at most ~30 per second).
    stateChanged(str)
        A :class:`~sudoku_lab_ui.worker.WorkerState` value; :attr:`at_start` is set before it.
    runEnded(str)
        Why the last run or step request of the current run ended (a previous run's end, arriving after a
        reset, is not said).
    stepEnded(object, object)
        A Step (N whole iterations) of the current run ended: the snapshot shown when it was asked for and
        the newest progress (its last frame), for a caption of what those iterations did.
    message(str)
        A status-bar message.
    errorOccurred(str)
        An error for a message box.
    sessionOpened(object)
        A :class:`~sudoku_lab.stepping.session.Session` was opened: its puzzle, algorithm, parameters and seed
        are the controller's (signalled before), and its solver is being restored in the worker.
    sessionRestored()
        The worker restored the solver of the session opened last (its frame is published).
    timeline(object)
        The :class:`~sudoku_lab_ui.worker.TimelineInfo` of the newest frame (emitted just before its ``progress``).
    """

    puzzleChanged = Signal(object)
    puzzleRejected = Signal(str, object, object)
    checkingChanged = Signal(bool)
    solverChanged = Signal(str)
    paramsChanged = Signal(object)
    progress = Signal(object)
    stateChanged = Signal(str)
    runEnded = Signal(str)
    stepEnded = Signal(object, object)
    message = Signal(str)
    errorOccurred = Signal(str)
    sessionOpened = Signal(object)
    sessionRestored = Signal()
    timeline = Signal(object)

    def __init__(self, parent=None, poll_ms: int = 33):
        super().__init__(parent)
        self.puzzle: Puzzle | None = None
        self.solution = None  #: the unique solution of ``puzzle``, None if it has several
        self.several_solutions = False
        self.checking: Puzzle | None = None  #: the puzzle being checked, if any
        self._jobs = Jobs(self)
        self.solver_name = next(iter(registry()))
        self.params: dict[str, dict] = {name: {} for name in registry()}
        self.seed = DEFAULT_SEED  # as `sudoku-lab solve`: the window's first run is the command line's
        self.state = WorkerState.IDLE
        #: No iteration since the solver's reset, as the worker said with its last state (not the polled frame,
        #: which lags it): the parameters that need a reset (``live=False``) can change exactly then.
        self.at_start = True
        self.latest = None
        self.timeline_info = None  #: the newest frame's TimelineInfo (the recorded run), None before a run
        #: The number of the current run, one more at every reset or session restored: the worker tags its frames
        #: with the run they belong to, and a frame of another run (a previous solver's, still in flight after a
        #: switch, or one compiled slowly on a cold cache) never reaches the views.
        self.run_number = 0
        #: The run_number of the run restored from a session file (someone's prepared moment), if that is the
        #: current one.
        self.session_run: int | None = None
        self._step_from = None  # (run, snapshot shown) when a Step was asked for
        self._thread = QThread()
        self._thread.setObjectName("sudoku-lab solver")
        self.worker = SolverWorker()
        self.worker.moveToThread(self._thread)
        self._thread.started.connect(self.worker.loop)
        self.worker.stateChanged.connect(self._on_state)
        self.worker.runEndedIn.connect(self._on_run_ended)
        self.worker.error.connect(self.errorOccurred)
        self.worker.message.connect(self.message)
        self._timer = QTimer(self)
        self._timer.setInterval(poll_ms)
        self._timer.timeout.connect(self.poll)
        self._started = False
        self._pending_session = None  #: a session whose puzzle is being checked before it opens
        self._session_path = ""  #: the file of the session opened last ("" for one given as a value)
        self._keyframe_waiters: dict[int, object] = {}
        self.worker.keyframe.connect(self._on_keyframe)
        self.worker.restored.connect(self.sessionRestored)

    # -------------------------------------------------------------- lifetime
    def start(self) -> None:
        """Start the worker thread; it compiles the current solver's kernels first ("compiling" state)."""
        if not self._started:
            self._started = True
            self._thread.start()
            self._timer.start()
            self.worker.request_warm([self.solver_name])

    def shutdown(self) -> None:
        """Stop the worker and join its thread (called when the window closes)."""
        if not self._started:
            return
        self._timer.stop()
        self._jobs.cancel("check")
        self.worker.request_quit()
        self._thread.quit()
        self._thread.wait()
        self._started = False

    @property
    def solver_class(self):
        return get_solver_class(self.solver_name)

    def current_params(self) -> dict:
        """Full parameter set of the current algorithm (defaults plus the user's changes)."""
        return {**self.solver_class.defaults(), **self.params[self.solver_name]}

    # --------------------------------------------------------------- puzzle
    def load_puzzle(self, puzzle: Puzzle) -> bool:
        """Check ``puzzle`` off the GUI thread, then load it (puzzleChanged) or refuse it (puzzleRejected).

        Clashing givens are refused at once (False). Otherwise the exact
        solver runs in the background (checkingChanged) and True is returned;
        the current puzzle stays until the check ends, and a newer
        ``load_puzzle`` supersedes this one.
        """
        self._pending_session = None  # a newer choice supersedes a session being opened
        try:
            puzzle.check_clashes()
        except PuzzleError as e:
            self._jobs.cancel("check")
            self._set_checking(None)
            self._reject(e, puzzle)
            return False
        self._set_checking(puzzle)
        self.message.emit(f"Checking {puzzle.name or 'the puzzle'}...")
        self._jobs.submit(
            "check",
            lambda: check_puzzle(puzzle),
            lambda result: self._checked(puzzle, *result),
            lambda exc: self._check_failed(puzzle, exc),
        )
        return True

    def cancel_check(self) -> None:
        """Forget the puzzle being checked (its result will not load)."""
        self._pending_session = None
        if self.checking is not None:
            self._jobs.cancel("check")
            self._set_checking(None)

    def _set_checking(self, puzzle: Puzzle | None) -> None:
        was = self.checking is not None
        self.checking = puzzle
        if was != (puzzle is not None) or puzzle is not None:
            self.checkingChanged.emit(puzzle is not None)

    def _checked(self, puzzle: Puzzle, solution, several: bool) -> None:
        self._set_checking(None)
        self.solution = solution
        self.several_solutions = several
        session, self._pending_session = self._pending_session, None
        if session is not None and session.puzzle is puzzle:
            self._open_checked_session(session)
            return
        self.puzzle = puzzle
        self.puzzleChanged.emit(puzzle)
        what = "several solutions" if several else "a unique solution"
        self.message.emit(f"Loaded {puzzle.name or 'puzzle'}: {puzzle.N}x{puzzle.N}, {puzzle.n_givens} givens, {what}")
        self.reset()

    def _check_failed(self, puzzle: Puzzle, exc: BaseException) -> None:
        self._set_checking(None)
        self._pending_session = None
        if isinstance(exc, PuzzleError):
            self._reject(exc, puzzle)
        else:
            import sys

            sys.excepthook(type(exc), exc, exc.__traceback__)

    def _reject(self, e: PuzzleError, puzzle: Puzzle) -> None:
        self.puzzleRejected.emit(str(e), tuple(e.cells or ()), puzzle)
        self.message.emit(f"Puzzle refused: {e}")

    # -------------------------------------------------------------- sessions
    def open_session(self, session, path: str = "") -> bool:
        """Open a :class:`~sudoku_lab.stepping.session.Session`: its puzzle is checked off the GUI thread (as any
        puzzle), then its algorithm, parameters and seed become the controller's and the worker restores its
        solver, paused at the saved point (sessionOpened), in the middle of an iteration if it was saved there.
        False if its puzzle is refused at once (clashes). ``path`` (its file) names it in messages about its
        recorded run, which the worker confirms by replay (see :mod:`~sudoku_lab_ui.worker`).
        """
        if not self.load_puzzle(session.puzzle):
            return False
        self._pending_session = session
        self._session_path = str(path)
        return True

    def _open_checked_session(self, session) -> None:
        name = session.solver
        self.puzzle = session.puzzle
        self.params[name] = dict(session.params)
        self.seed = session.seed if session.seed is not None else DEFAULT_SEED
        self.latest = None
        if name != self.solver_name:
            self.solver_name = name
            self.solverChanged.emit(name)
        self.paramsChanged.emit(self.current_params())
        self.puzzleChanged.emit(session.puzzle)
        self.sessionOpened.emit(session)
        if session.state is None:
            self.reset()
        else:
            self.start()
            self._new_run()
            self.session_run = self.run_number
            self.worker.request_restore(session, self._session_path, run=self.run_number)

    def request_keyframe(self, callback) -> None:
        """Call ``callback(state)`` in the GUI thread with the running solver's ``state_dict()`` (None before a
        reset), taken by the worker between chunks: a run goes on."""
        self.start()
        self._keyframe_waiters[self.worker.request_keyframe()] = callback

    def request_session_parts(self, callback, max_history_bytes: int | None = None) -> None:
        """Call ``callback(state, record, note)`` in the GUI thread with the running solver's ``state_dict()`` and
        its history's :meth:`~sudoku_lab.stepping.history.History.record`, taken together by the worker between
        chunks (a run goes on): ``record`` is None, and ``note`` says why, when there is no recorded run or its
        keyframes hold more than ``max_history_bytes`` (None: no limit)."""
        self.start()
        number = self.worker.request_history_record(max_history_bytes)
        self._keyframe_waiters[number] = lambda payload: callback(*payload)

    def _on_keyframe(self, number: int, state) -> None:
        callback = self._keyframe_waiters.pop(number, None)
        if callback is not None:
            callback(state)

    # ------------------------------------------------------------ algorithm
    def set_solver(self, name: str) -> None:
        get_solver_class(name)  # raises for an unknown name
        if name == self.solver_name:
            return
        self.solver_name = name
        self.solverChanged.emit(name)
        self.paramsChanged.emit(self.current_params())
        if self._started:
            self.worker.request_warm([name])
        self.reset()

    def set_param(self, name: str, value) -> str | None:
        """Validate and apply one parameter; return an error message, or None if accepted.

        Live parameters reach a running solver between chunks; the others are
        kept and apply at the next reset.
        """
        cls = self.solver_class
        self._take_shown_params()
        try:
            prm = cls.param(name)
            v = prm.validate(value)
            merged = {**self.current_params(), name: v}
            cls.check_params(merged)
        except ParameterError as e:
            self.message.emit(str(e))
            return str(e)
        self.params[self.solver_name][name] = v
        self.paramsChanged.emit(self.current_params())
        if prm.live:
            self.worker.request_params(**{name: v})
        elif not self.at_start:
            self.message.emit(f"{name} applies when you press Reset")
        else:
            self.reset()
        return None

    def _take_shown_params(self) -> None:
        """Rewound on the timeline, a change continues from the frame shown (a new branch): the live parameters
        in force there become the controller's, not the ones the recorded run reached later."""
        info, latest = self.timeline_info, self.latest
        if info is None or latest is None or not info.rewound:
            return
        s = latest.snapshot
        if s.solver != self.solver_name or s.iteration != info.iteration:
            return
        live = {p.name for p in self.solver_class.params if p.live}
        self.params[self.solver_name].update({k: v for k, v in s.params.items() if k in live})

    def set_seed(self, seed: int) -> None:
        self.seed = int(seed)
        if self.state in (WorkerState.RUNNING,):
            self.message.emit("the new seed applies when you press Reset")
        else:
            self.reset()

    def randomize_seed(self) -> int:
        self.set_seed(random.SystemRandom().randrange(2**31))
        return self.seed

    def set_speed(self, rate: float | None) -> None:
        self.worker.set_max_rate(rate)

    # -------------------------------------------------------------- running
    def _new_run(self) -> None:
        """A new run is asked for: frames and run ends of the previous one are dropped from now on."""
        self.run_number += 1
        self.latest = None
        self.timeline_info = None
        self._step_from = None

    def reset(self) -> None:
        if self.puzzle is None:
            return
        self.start()
        self._new_run()
        self.worker.request_reset(self.solver_name, self.current_params(), self.puzzle, self.seed, self.run_number)

    def run(self, termination: loop.Termination | None = None) -> None:
        self.start()
        self.worker.request_run(termination or loop.Solved())

    def pause(self) -> None:
        self.worker.request_pause()

    def toggle_run(self, termination: loop.Termination | None = None) -> None:
        if self.state == WorkerState.RUNNING:
            self.pause()
        else:
            self.run(termination)

    def step(self, n: int = 1) -> None:
        self.start()
        if self.latest is not None:  # what the caption of the step compares with
            self._step_from = (self.run_number, self.latest.snapshot)
        self.worker.request_step(n)

    def step_phase(self) -> None:
        """One phase of the current iteration (solvers that declare phases); its frame carries the PhaseStep."""
        self.start()
        self.worker.request_step_phase()

    def stop(self) -> None:
        self.worker.request_stop()

    # ------------------------------------------------------------- timeline
    def seek(self, iteration: int) -> None:
        """Pause and show the recorded run at ``iteration``; Run or Step then replays it until something changes."""
        self.start()
        self.worker.request_seek(iteration)

    def step_back(self, n: int = 1) -> None:
        """Pause and show the recorded run ``n`` iterations back."""
        self.start()
        self.worker.request_step_back(n)

    def set_memory_limit(self, nbytes: int) -> None:
        """The history's memory limit in bytes, for the next reset (the current run keeps its own)."""
        self.worker.set_memory_limit(nbytes)

    # --------------------------------------------------------------- worker
    def poll(self) -> None:
        """Take the worker's newest progress, if any (timer slot; dropped frames are fine).

        A frame of another run than the current one (published before the worker took the newest reset) is
        dropped: it would show a previous solver's grid and curves under the new choice.
        """
        prog, info, run = self.worker.take_run_frame()
        if run != self.run_number:
            return
        if info is not None:
            self.timeline_info = info
            self.timeline.emit(info)
        if prog is not None:
            self.latest = prog
            self.progress.emit(prog)

    def _on_run_ended(self, reason: str, run: int, asked: str) -> None:
        if run != self.run_number:
            return  # the end of a run that a reset has replaced
        self.poll()  # the request's last frame was published before this signal: show it first
        self.runEnded.emit(reason)
        start, self._step_from = self._step_from, None
        if asked == "step" and start is not None and start[0] == run and self.latest is not None:
            self.stepEnded.emit(start[1], self.latest)

    def _on_state(self, state: str, at_start: bool) -> None:
        was = self.state
        self.state = state
        self.at_start = bool(at_start)
        if state == WorkerState.COMPILING:
            self.message.emit("Compiling kernels (first use only; numba caches them)...")
        elif was == WorkerState.COMPILING:
            self.message.emit("Ready: press Run (Space) or Step (Right)")
        self.stateChanged.emit(state)
