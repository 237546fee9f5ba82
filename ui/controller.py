"""The lab's state and the one place that talks to the solver worker.

Widgets call the controller (load a puzzle, choose an algorithm, change a
parameter, run, step...) and listen to its signals; the controller turns
requests into thread-safe worker calls and polls the worker's newest
progress on a ~30 Hz timer, so a fast solver never floods the event loop.
"""

from __future__ import annotations

import random

from PySide6.QtCore import QObject, QThread, QTimer, Signal

from sudoku_lab import loop
from sudoku_lab.errors import ParameterError, PuzzleError
from sudoku_lab.puzzle import Puzzle
from sudoku_lab.solvers import get_solver_class, registry

from .worker import SolverWorker, WorkerState

__all__ = ["Controller", "SPEEDS"]

#: Speed choices (label, iterations per second; None = as fast as possible).
SPEEDS = (("1 step/s", 1.0), ("2 steps/s", 2.0), ("5 steps/s", 5.0), ("10 steps/s", 10.0),
          ("30 steps/s", 30.0), ("100 steps/s", 100.0), ("1000 steps/s", 1000.0), ("as fast as possible", None))


class Controller(QObject):
    """Application state: puzzle, algorithm, parameters, seed; drives the worker.

    Signals
    -------
    puzzleChanged(object)
        A validated :class:`Puzzle` was loaded.
    puzzleRejected(str, object)
        A puzzle was refused: the message and the cells involved (tuple).
    solverChanged(str)
        The algorithm changed (registry name).
    paramsChanged(object)
        The parameter dict for the current algorithm changed.
    progress(object)
        The newest :class:`~sudoku_lab.loop.Progress` (at most ~30 per second).
    stateChanged(str)
        A :class:`~sudoku_lab_ui.worker.WorkerState` value.
    runEnded(str)
        Why the last run or step request ended.
    message(str)
        A status-bar message.
    errorOccurred(str)
        An error for a message box.
    """

    puzzleChanged = Signal(object)
    puzzleRejected = Signal(str, object)
    solverChanged = Signal(str)
    paramsChanged = Signal(object)
    progress = Signal(object)
    stateChanged = Signal(str)
    runEnded = Signal(str)
    message = Signal(str)
    errorOccurred = Signal(str)

    def __init__(self, parent=None, poll_ms: int = 33):
        super().__init__(parent)
        self.puzzle: Puzzle | None = None
        self.solution = None
        self.solver_name = next(iter(registry()))
        self.params: dict[str, dict] = {name: {} for name in registry()}
        self.seed = 1
        self.state = WorkerState.IDLE
        self.latest = None
        self._thread = QThread()
        self._thread.setObjectName("sudoku-lab solver")
        self.worker = SolverWorker()
        self.worker.moveToThread(self._thread)
        self._thread.started.connect(self.worker.loop)
        self.worker.stateChanged.connect(self._on_state)
        self.worker.runEnded.connect(self.runEnded)
        self.worker.error.connect(self.errorOccurred)
        self._timer = QTimer(self)
        self._timer.setInterval(poll_ms)
        self._timer.timeout.connect(self.poll)
        self._started = False

    # -------------------------------------------------------------- lifetime
    def start(self) -> None:
        if not self._started:
            self._started = True
            self._thread.start()
            self._timer.start()

    def shutdown(self) -> None:
        """Stop the worker and join its thread (called when the window closes)."""
        if not self._started:
            return
        self._timer.stop()
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
    def load_puzzle(self, puzzle: Puzzle, require_unique: bool = True) -> bool:
        """Validate and load ``puzzle``; on failure emit puzzleRejected and keep the current one."""
        try:
            self.solution = puzzle.check(unique=require_unique)
        except PuzzleError as e:
            self.puzzleRejected.emit(str(e), e.cells)
            self.message.emit(f"Puzzle refused: {e}")
            return False
        self.puzzle = puzzle
        self.puzzleChanged.emit(puzzle)
        self.message.emit(f"Loaded {puzzle.name or 'puzzle'}: {puzzle.N}x{puzzle.N}, {puzzle.n_givens} givens")
        self.reset()
        return True

    # ------------------------------------------------------------ algorithm
    def set_solver(self, name: str) -> None:
        get_solver_class(name)  # raises for an unknown name
        if name == self.solver_name:
            return
        self.solver_name = name
        self.solverChanged.emit(name)
        self.paramsChanged.emit(self.current_params())
        self.reset()

    def set_param(self, name: str, value) -> str | None:
        """Validate and apply one parameter; return an error message, or None if accepted.

        Live parameters reach a running solver between chunks; the others are
        kept and apply at the next reset.
        """
        cls = self.solver_class
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
        elif self.latest is not None and self.latest.snapshot.iteration > 0:
            self.message.emit(f"{name} applies when you press Reset")
        else:
            self.reset()
        return None

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
    def reset(self) -> None:
        if self.puzzle is None:
            return
        self.start()
        self.latest = None
        self.worker.request_reset(self.solver_name, self.current_params(), self.puzzle, self.seed)

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
        self.worker.request_step(n)

    def stop(self) -> None:
        self.worker.request_stop()

    # --------------------------------------------------------------- worker
    def poll(self) -> None:
        """Take the worker's newest progress, if any (timer slot; dropped frames are fine)."""
        prog = self.worker.take_latest()
        if prog is not None:
            self.latest = prog
            self.progress.emit(prog)

    def _on_state(self, state: str) -> None:
        was = self.state
        self.state = state
        if state == WorkerState.COMPILING:
            self.message.emit("Compiling the solver's kernels (first use only)...")
        elif was == WorkerState.COMPILING:
            self.message.emit("Ready: press Run (Space) or Step (Right)")
        self.stateChanged.emit(state)


