"""The solver worker: one QObject on a QThread that owns the solver and nothing else touches.

The GUI thread talks to it only through thread-safe requests (a command queue,
a locked dict of pending parameter changes, events), never through signals
*into* the worker, which would queue behind its stepping loop. The worker
publishes immutable :class:`~sudoku_lab.stepping.loop.Progress` objects in a one-slot
mailbox that the GUI polls on a timer, so frames are dropped, never queued;
rare state changes (compiling, running, idle, finished, errors) are signals.

Every run is recorded: the worker steps its solver through a
:class:`~sudoku_lab.stepping.history.History`, so :meth:`SolverWorker.request_seek` can show any
iteration reached (re-simulated from a keyframe in this thread, never in the GUI's) and Run or Step
afterwards replays the recorded run until something is changed. Each published frame comes with a
:class:`TimelineInfo` (the recorded range, its events, the memory the keyframes hold).

:meth:`SolverWorker.request_step_phase` steps one phase of an iteration (solvers that declare phases),
through the history too; its frame's ``Progress.phase`` is the :class:`~sudoku_lab.solvers.PhaseStep`,
so the views can show what that phase changed. Parameter changes asked for in the middle of an
iteration wait for its end (a solver refuses them there).

A session opened with its recorded run (:meth:`SolverWorker.request_restore`) shows its saved moment at
once, the phase under way included (the last phase step is recomputed by replay, so its caption and
marks are what was shown when it was saved). Its record is untrusted until replayed: the worker
confirms it in the background while idle, in short slices between commands (``TimelineInfo.unverified``
says what is left, the timeline shows it), and a seek into a part not confirmed yet first replays up to
there in slices too, saying so in the status bar; a newer command interrupts it and the progress is
kept. A record that is not its run is refused in one line naming the file and the iteration; the run
then goes on from where it is, with a recording that starts there.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
from PySide6.QtCore import QObject, Signal, Slot

from sudoku_lab.crash import internal_error_message
from sudoku_lab.errors import HistoryError, SudokuLabError
from sudoku_lab.solvers import PhaseStep, create, frozen_copy
from sudoku_lab.solvers.declare import CHANGE_KEYS
from sudoku_lab.stepping import loop
from sudoku_lab.stepping.history import DEFAULT_MEMORY_LIMIT, History
from sudoku_lab.stepping.session import restore_history, restore_solver

__all__ = ["SolverWorker", "TimelineInfo", "WorkerState", "phase_step_ui", "warm_up"]


def warm_up(names, progress=None) -> None:
    """Load or compile the kernels of the solvers ``names`` and the shared ones (``warmup.warm_up`` of the core).

    Runs on the worker thread, which shows the "compiling kernels" state
    meanwhile.

    Parameters
    ----------
    names : iterable of str
        Registry names of solvers.
    progress : callable, optional
        ``progress(text)``: before each item, which it loads (or compiles), and each time a kernel starts
        compiling (a cold cache), which one.
    """
    from sudoku_lab.stepping.warmup import UNCACHED, warm_up as warm

    def report(done, total, name):
        if progress is not None and name is not None:
            progress(f"loading kernels: {name} ({done + 1}/{total})...")

    def compiling(kernel, done, total, item):
        if progress is not None:  # a kernel numba keeps no cache of (a plugin's) compiles at every start
            once = "" if kernel.endswith(UNCACHED) else ", once"
            progress(f"compiling kernels{once} ({done + 1}/{total}): {item}: {kernel}...")

    # Every shared group (exact search, AC3), not only those the solver uses: the window's puzzle checks run
    # the exact search, and would otherwise compile it at the same time, under numba's one compile lock.
    # Since the exact search is one kernel of one signature, that is one compile (issue 28).
    warm(list(names), report, shared=True, on_compile=compiling)


#: Seconds a background check of a session's record must have taken to be announced when done (a short one
#: only leaves the timeline's "checking" label for a moment; the status line keeps saying the session opened).
_SAY_CONFIRMED_AFTER = 3.0

#: Longest phase caption read back from a session's window settings (a caption is one line of words).
_MAX_CAPTION = 400


def phase_step_ui(step: PhaseStep | None) -> dict | None:
    """The window's record of a phase step shown, for a session's ``ui`` (``phase_step``): plain values.

    Only what :func:`_phase_step_from_ui` can check against the reopened solver goes in: the
    iteration, the phase's index, its caption and the changes shaped like the board (one value per
    cell: ``cells``, ``rows``, ``sample``). A session saved with its recorded run recomputes the whole
    step instead (:meth:`History.replay_phases <sudoku_lab.stepping.history.History.replay_phases>`).
    """
    if step is None or step.ended:
        return None
    return {
        "iteration": int(step.iteration),
        "index": int(step.index),
        "caption": str(step.caption),
        "changed": {k: np.array(v) for k, v in step.changed.items() if CHANGE_KEYS.get(k, ("", ()))[1] == ("C",)},
    }


def _phase_step_from_ui(solver, value) -> PhaseStep | None:
    """The phase step a session's ``ui`` says was shown, if it fits the reopened solver exactly; else None.

    The file is untrusted: the index must be a phase the solver can be after, the iteration the one under
    way, the caption plain text (no control characters, no markup), each change the declared dtype and
    one value per cell of this puzzle (a digit for ``sample``); anything else is dropped.
    """
    if not isinstance(value, dict):
        return None
    it, index, caption, changed = (value.get(k) for k in ("iteration", "index", "caption", "changed"))
    phases = solver.phases
    ints = all(isinstance(x, int) and not isinstance(x, bool) for x in (it, index))
    if not ints or not isinstance(caption, str) or it != solver.iteration + 1 or not 0 <= index <= solver.phase:
        return None
    if index >= len(phases) or not isinstance(changed, dict):
        return None
    text = "".join(c if c.isprintable() else " " for c in caption[:_MAX_CAPTION]).replace("<", "‹").replace(">", "›")
    shown = {}
    C, N = solver.puzzle.C, solver.puzzle.N
    for key, a in changed.items():
        dtype, shape = CHANGE_KEYS.get(key, ("", ()))
        if shape != ("C",) or not isinstance(a, np.ndarray) or a.dtype != np.dtype(dtype) or a.shape != (C,):
            continue
        if key == "sample" and (a.min(initial=0) < 0 or a.max(initial=0) > N):
            continue
        shown[key] = frozen_copy(a)
    return PhaseStep(it, index, phases[index].name, text, MappingProxyType(shown), False, ())


class WorkerState:
    IDLE = "idle"  #: ready, not stepping (after reset, pause or a finished step request)
    COMPILING = "compiling"  #: numba kernels compiling or loading from cache
    RUNNING = "running"
    FINISHED = "finished"  #: the solver solved the puzzle or gave up
    STOPPED = "stopped"  #: the user stopped the run; reset to start again


@dataclass(frozen=True)
class TimelineInfo:
    """The recorded run as the worker left it with a published frame (immutable: it crosses threads).

    Attributes
    ----------
    iteration : int
        The iteration of the frame shown.
    origin, furthest : int
        The recorded range: any iteration in it can be shown again.
    events : tuple of Event
        The recorded run's events up to ``furthest`` (restarts, parameter changes...), for the timeline's marks.
    memory_used, memory_limit : int
        Bytes the history's keyframes hold, and the most they may hold.
    seconds : float
        Seconds the run has stepped since its reset or restore, over every Run and Step (the work a
        new choice of algorithm or puzzle would throw away).
    unverified : tuple of (int, int)
        Stretches ``(from, to)`` of a recorded run read from a session that no replay has confirmed yet
        (:attr:`History.unverified <sudoku_lab.stepping.history.History.unverified>`); empty for a run
        recorded here.
    """

    iteration: int
    origin: int
    furthest: int
    events: tuple
    memory_used: int
    memory_limit: int
    seconds: float = 0.0
    unverified: tuple = ()

    @property
    def rewound(self) -> bool:
        """True when the frame shown is before the end of the recorded run."""
        return self.iteration < self.furthest


@dataclass(frozen=True)
class _Cmd:
    kind: str
    args: tuple = ()


class SolverWorker(QObject):
    """Owns one solver; runs commands from the GUI in its own thread.

    Signals
    -------
    stateChanged(str, bool)
        A :class:`WorkerState` value, and whether the solver is at its start (no iteration since its reset,
        or no solver yet): parameters declared ``live=False`` may change exactly then. Both travel in one
        signal so the GUI never judges the lock from a frame its timer has not polled yet.
    runEnded(str)
        Why a run or step request ended (``solved``, ``failed``,
        ``max_iterations``, ``max_seconds``, ``cancelled``...; ``steps`` when a Step N did its N iterations,
        ``phase`` after a phase step).
    runEndedIn(str, int, str)
        The same, with the number of the run it ended (the ``run`` of :meth:`request_reset` or
        :meth:`request_restore`) and what was asked (``"run"``, ``"step"``, ``"phase"``, ``"stop"``): a
        run's end that arrives after another run was asked for is not that other run's.
    error(str)
        A message for the user (bad parameter, unexpected exception).
    message(str)
        A status line (what the warm-up compiles).
    restored()
        A :meth:`request_restore` is done: the session's solver is the worker's, its frame published.
    keyframe(int, object)
        The answer to :meth:`request_keyframe` number ``int``: the solver's ``state_dict()`` taken between
        two chunks of a run (or at once when idle), or None when there is no solver yet.
    """

    stateChanged = Signal(str, bool)
    runEnded = Signal(str)
    runEndedIn = Signal(str, int, str)
    error = Signal(str)
    message = Signal(str)
    keyframe = Signal(int, object)
    restored = Signal()

    def __init__(self):
        super().__init__()
        self._commands: queue.Queue[_Cmd] = queue.Queue()
        self._params_lock = threading.Lock()
        self._pending_params: dict = {}
        self._pending_after: dict[str, int] = {}  # under _params_lock: per pending change, resets asked before it
        self._resets_asked = 0  # under _params_lock: resets asked for so far (numbers the reset commands)
        self._pending_keyframes: list[int] = []  # under _params_lock: keyframe requests not answered yet
        self._pending_records: dict[int, int | None] = {}  # under _params_lock: those that want the history too
        self._next_keyframe = 0
        self._interrupt = threading.Event()  # pause/stop/quit/new command: leave the stepping loop now
        self._quit = threading.Event()
        self._latest_lock = threading.Lock()
        self._latest = None
        self._latest_run = 0  # under _latest_lock: the run the frame in the mailbox belongs to
        self._run = 0  # the number of the run the worker's solver is (the GUI drops frames of another)
        self._run_seconds = 0.0  # seconds this run has stepped so far (Run and Step, over every request)
        self._rate_lock = threading.Lock()
        self._max_rate: float | None = None
        self._warmed: set[str] = set()
        self._chunk: dict[str, int] = {}  # adapted chunk size per solver, reused by the next run
        self._published_iteration = -1  # iteration of the last progress published
        self._seek_target: int | None = None  # under _params_lock: the newest seek asked for (scrubbing coalesces)
        self._memory_limit = DEFAULT_MEMORY_LIMIT  # under _rate_lock: the next history's limit
        self._timeline: TimelineInfo | None = None  # under _latest_lock, published with each frame
        self._source = ""  # the session file the history was read from ("" for a run recorded here)
        self._verify_chunk = 16  # iterations per background slice of a record's verification, adapted
        self._checking_since = 0.0  # when the session whose record is being confirmed was opened
        self.solver = None
        self.history: History | None = None  #: records the solver's run; all stepping goes through it
        self.state = WorkerState.IDLE

    # ---------------------------------------------------------- GUI side API
    def request_reset(self, solver_name: str, params: dict, puzzle, seed: int, run: int = 0) -> None:
        """A new run: ``solver_name`` with ``params`` on ``puzzle`` from ``seed``; its frames are tagged ``run``.

        A reset still queued behind a newer reset or restore is skipped (its solver would never be
        seen: browsing algorithms on a cold cache compiles only the one chosen last).
        """
        with self._params_lock:
            self._resets_asked += 1
            number = self._resets_asked
        self._send(_Cmd("reset", (solver_name, dict(params), puzzle, seed, number, int(run))))

    def request_warm(self, names) -> None:
        """Compile the kernels of solvers ``names`` now (those not warmed yet), in the "compiling" state.

        A warm-up still queued behind a newer one is skipped: the solver chosen last is the one wanted.
        """
        self._send(_Cmd("warm", (tuple(names),)))

    def request_run(self, termination: loop.Termination) -> None:
        self._send(_Cmd("run", (termination,)))

    def request_step(self, n: int) -> None:
        self._send(_Cmd("step", (int(n),)))

    def request_step_phase(self) -> None:
        """Step one phase of the current iteration (a solver that declares phases; others step nothing)."""
        self._send(_Cmd("phase"))

    def request_pause(self) -> None:
        self._send(_Cmd("pause"))

    def request_stop(self) -> None:
        self._send(_Cmd("stop"))

    def request_params(self, **changes) -> None:
        """Queue parameter changes; applied between chunks (or at once when idle)."""
        with self._params_lock:
            self._pending_params.update(changes)
            self._pending_after.update(dict.fromkeys(changes, self._resets_asked))
        self._commands.put(_Cmd("params"))  # no interrupt: a running loop picks them up between chunks

    def request_keyframe(self) -> int:
        """Ask for the solver's keyframe; :attr:`keyframe` answers with the number returned here.

        A run is not interrupted: the keyframe is taken between two chunks, after the parameter changes
        queued before it, so it is a state the run really passed through.
        """
        with self._params_lock:
            self._next_keyframe += 1
            number = self._next_keyframe
            self._pending_keyframes.append(number)
        self._commands.put(_Cmd("keyframe"))  # no interrupt: a running loop answers between chunks
        return number

    def request_history_record(self, max_bytes: int | None = None) -> int:
        """Ask for the solver's keyframe together with its history's record (for a session that can rewind).

        :attr:`keyframe` answers with the number returned here and ``(state, record, note)``: the
        solver's ``state_dict()`` and :meth:`History.record() <sudoku_lab.stepping.history.History.record>`
        taken together in this thread between two chunks (a run goes on), or ``record`` None and ``note``
        saying why in words (no run recorded, its keyframes holding more than ``max_bytes``). A solver
        in the middle of an iteration stepped by phases is saved there: its keyframe holds the phase.
        The record shares the keyframes' arrays, which are
        never written again, so the GUI thread may encode it while the run goes on.
        """
        with self._params_lock:
            self._next_keyframe += 1
            number = self._next_keyframe
            self._pending_keyframes.append(number)
            self._pending_records[number] = max_bytes
        self._commands.put(_Cmd("keyframe"))  # no interrupt: a running loop answers between chunks
        return number

    def _history_record(self, solver, max_bytes: int | None) -> tuple:
        """(record, note) of the history recording ``solver`` (see :meth:`request_history_record`)."""
        h = self.history
        if h is None or solver is None or h.solver is not solver:
            return None, "no run is recorded yet"
        if max_bytes is not None and h.memory_used > max_bytes:
            return None, (
                f"its history holds {h.memory_used / 1e6:.0f} MB, over the {max_bytes / 1e6:.0f} MB saved by default"
            )
        try:
            return h.record(), ""
        except (RuntimeError, HistoryError) as e:  # a bug, or a refused record (replaced before any save)
            return None, str(e).splitlines()[0]

    def request_seek(self, iteration: int) -> None:
        """Pause and show the recorded run's state after ``iteration`` (clamped to the recorded range).

        Scrubbing sends many: only the newest one not yet done is done.
        """
        with self._params_lock:
            self._seek_target = int(iteration)
        self._send(_Cmd("seek"))

    def request_step_back(self, n: int) -> None:
        """Pause and show the state ``n`` iterations before the current one (not before the recording's origin)."""
        self._send(_Cmd("back", (int(n),)))

    def set_memory_limit(self, nbytes: int) -> None:
        """Most bytes the history's keyframes may hold, from the next reset (or session opened) on."""
        with self._rate_lock:
            self._memory_limit = int(nbytes)

    def take_frame(self) -> tuple:
        """(:meth:`take_latest`, the :class:`TimelineInfo` published with that frame or None), taken together."""
        return self.take_run_frame()[:2]

    def take_run_frame(self) -> tuple:
        """(:meth:`take_latest`, its :class:`TimelineInfo` or None, the number of the run it belongs to)."""
        with self._latest_lock:
            p, self._latest = self._latest, None
            info, self._timeline = self._timeline, None
            run = self._latest_run
        return p, info, run

    def request_restore(self, session, path: str = "", run: int = 0) -> None:
        """Replace the solver by the one a :class:`~sudoku_lab.stepping.session.Session` saved, paused there.

        ``path`` names the session's file in messages about its recorded run; its frames are tagged ``run``.
        """
        self._send(_Cmd("restore", (session, str(path), int(run))))

    def set_max_rate(self, rate: float | None) -> None:
        """Iterations per second for teaching speeds; None = as fast as possible."""
        with self._rate_lock:
            self._max_rate = rate

    def request_quit(self) -> None:
        self._quit.set()
        self._send(_Cmd("quit"))

    def take_latest(self):
        """The newest Progress published since the last call, or None (the GUI timer polls this)."""
        with self._latest_lock:
            p, self._latest = self._latest, None
        return p

    def has_new_frame(self) -> bool:
        """True if a Progress was published that :meth:`take_latest` has not taken yet."""
        with self._latest_lock:
            return self._latest is not None

    def _send(self, cmd: _Cmd) -> None:
        self._commands.put(cmd)
        self._interrupt.set()

    # -------------------------------------------------------- worker thread
    @Slot()
    def loop(self) -> None:
        """The thread's body: execute commands until quit; idle, confirm a session's recorded run in slices."""
        while not self._quit.is_set():
            background = self._verifying()
            try:
                cmd = self._commands.get(timeout=0 if background else 0.1)
            except queue.Empty:
                if background:
                    self._guarded(_Cmd("verify"), self._verify_some)
                continue
            if cmd.kind == "quit":
                break
            self._guarded(cmd, lambda c=cmd: self._execute(c))

    def _guarded(self, cmd: _Cmd, work) -> None:
        try:
            work()
        except HistoryError as e:  # a session's record that is not its run: refused, the run goes on
            self._history_refused(e)
        except SudokuLabError as e:
            self.error.emit(str(e))
            self._set_state(WorkerState.IDLE if self.solver is not None else WorkerState.STOPPED)
        except Exception as e:  # a bug must become a message box, never a frozen window
            line = internal_error_message(
                e, f"solver thread, {cmd.kind} command, solver {getattr(self.solver, 'name', None)!r}"
            )
            self.error.emit(f"The solver thread stopped: {line}")
            self._set_state(WorkerState.STOPPED)

    def _superseded(self, *kinds: str) -> bool:
        """True when a command of one of ``kinds`` waits in the queue behind the one being done."""
        with self._commands.mutex:
            return any(c.kind in kinds for c in self._commands.queue)

    def _ended(self, reason: str, asked: str) -> None:
        """Say why a request ``asked`` ("run", "step", "phase", "stop") ended, and in which run."""
        self.runEnded.emit(reason)
        self.runEndedIn.emit(reason, self._run, asked)

    def _execute(self, cmd: _Cmd) -> None:
        self._interrupt.clear()
        if cmd.kind == "reset":
            if not self._superseded("reset", "restore"):  # a newer choice is queued: this run is never seen
                self._reset(*cmd.args)
        elif cmd.kind == "warm":
            before = self.state
            if not self._superseded("warm") and self._warm(cmd.args[0]):
                self._set_state(WorkerState.IDLE if before == WorkerState.COMPILING else before)
        elif cmd.kind == "params":
            if self._apply_params():
                self._publish_now()
        elif cmd.kind == "keyframe":
            self._answer_keyframes()
        elif cmd.kind == "restore":
            self._restore(*cmd.args)
        elif cmd.kind == "phase":
            self._step_phase()
        elif cmd.kind in ("seek", "back"):
            self._seek(cmd.args[0] if cmd.kind == "back" else None)
        elif cmd.kind in ("run", "step"):
            if self.solver is None or self.state == WorkerState.STOPPED:
                return
            if self.solver.done:
                self._set_state(WorkerState.FINISHED)
                self._ended(self.solver.status, cmd.kind)
                return
            term = cmd.args[0] if cmd.kind == "run" else loop.MaxIterations(cmd.args[0])
            self._drive(term, throttle=cmd.kind == "run")
        elif cmd.kind == "pause":
            if self.state == WorkerState.RUNNING:
                self._set_state(WorkerState.IDLE)
        elif cmd.kind == "stop":
            if self.solver is not None:
                self._set_state(WorkerState.STOPPED)
                self._ended("stopped", "stop")

    def _reset(self, name: str, params: dict, puzzle, seed: int, number: int = 0, run: int = 0) -> None:
        with self._params_lock:  # changes asked for before this reset are in its params; later ones apply after it
            keep = {k for k, after in self._pending_after.items() if after >= number}
            self._pending_params = {k: v for k, v in self._pending_params.items() if k in keep}
            self._pending_after = {k: v for k, v in self._pending_after.items() if k in keep}
        self._warm((name,))
        solver = create(name, **params)
        solver.reset(puzzle, seed=seed)
        self._source = ""
        self.history = self._record(solver)
        self.solver = solver
        self._run, self._run_seconds = run, 0.0
        self._publish_now()
        self._set_state(WorkerState.IDLE)

    def _restore(self, session, path: str = "", run: int = 0) -> None:
        with self._params_lock:
            self._pending_params.clear()
            self._pending_after.clear()
        self._warm((session.solver,))
        self._source = path
        if session.history is not None:  # the saved recording: the run can be rewound before the saved iteration
            with self._rate_lock:
                limit = max(self._memory_limit, int(session.history.get("memory_limit", 0) or 0))
            self.history = restore_history(session, memory_limit=limit)
            solver = self.history.solver
        else:
            solver = restore_solver(session)
            self.history = self._record(solver)  # the session's saved moment is the origin of the recording
        self.solver = solver
        self._run, self._run_seconds = run, 0.0
        refused = None
        try:
            step = self._saved_phase_step(session)
        except HistoryError as e:  # the replay to the saved phase found another run: the saved moment still opens
            refused, step = e, _phase_step_from_ui(solver, session.ui.get("phase_step"))
        reason = solver.status if solver.done else ""
        if refused is not None:
            self._history_refused(refused)
        self._publish(loop.Progress(solver.snapshot(), 0.0, 0.0, solver.done, reason, 0.0, phase=step))
        self._set_state(WorkerState.FINISHED if self.solver.done else WorkerState.IDLE)
        self.restored.emit()
        self._checking_since = time.monotonic()  # the timeline says "checking the record" meanwhile

    def _saved_phase_step(self, session) -> PhaseStep | None:
        """The last phase step of a session saved in the middle of an iteration: recomputed by replaying its
        recorded run (exactly what was shown), else the caption the window kept in the session (``ui``)."""
        s, h = self.solver, self.history
        if s is None or h is None or not s.phase:
            return None
        steps = h.replay_phases() if session.history is not None else ()
        if steps:
            return steps[-1]
        return _phase_step_from_ui(s, session.ui.get("phase_step"))

    def _record(self, solver) -> History:
        with self._rate_lock:
            limit = self._memory_limit
        return History(solver, memory_limit=limit)

    def _seek(self, back: int | None) -> None:
        """Show an earlier (or later) iteration of the recorded run: the newest seek asked for, or ``back`` steps."""
        with self._params_lock:
            target, self._seek_target = self._seek_target, None
        h = self.history
        if h is None or self.solver is None:
            return
        mid = bool(self.solver.phase)  # in the middle of an iteration: Back 1 goes to its start
        if back is not None:
            target = h.iteration - back + mid
        elif target is None:
            return  # coalesced: a newer seek was done already
        with self._params_lock:
            pending = bool(self._pending_params)
        if pending and self.solver.phase:  # where the run was is the end of the iteration under way
            h.step(1)
        self._apply_params()  # changes asked for before the seek are made where the run was
        target = max(h.origin, min(int(target), h.furthest))
        if not self._confirm_for_seek(h, target):
            return  # a newer command came meanwhile (a newer seek does this one's work, the progress kept)
        if target != h.iteration or mid:
            h.seek(target)  # from the nearest keyframe: re-simulated here, never in the GUI thread
        self._publish_now()
        self._set_state(WorkerState.FINISHED if self.solver.done else WorkerState.IDLE)

    def _confirm_for_seek(self, h: History, target: int) -> bool:
        """Replay, in slices, the part of a session's record a seek to ``target`` needs confirmed first, saying
        so; False if a newer command interrupted it."""
        total = h.unconfirmed(target)
        if not total:
            return True
        shown = 0.0
        while True:
            left = h.unconfirmed(target)
            if not left:
                return True
            if self._interrupt.is_set() or self._quit.is_set():
                return False
            now = time.monotonic()
            if now - shown > 0.25:
                shown = now
                done = total - left
                self.message.emit(  # the timeline's handle stays where it was pressed meanwhile (no new info)
                    f"Checking the recorded run before showing iteration {target:,}: {done:,} of {total:,} "
                    "iterations replayed..."
                )
            self._answer_keyframes()  # a session saved meanwhile
            self._verify_slice(lambda n: h.verify(n, target))

    def _verifying(self) -> bool:
        """A session's record still to confirm, and nothing else to do (not running)."""
        h = self.history
        return (
            h is not None
            and h.solver is self.solver
            and bool(h.unverified)
            and self.state not in (WorkerState.RUNNING, WorkerState.COMPILING)
        )

    def _verify_some(self) -> None:
        """One background slice (about 30 ms) of confirming the session's record; says when it is done."""
        h = self.history
        if h is None:
            return
        self._verify_slice(h.verify)
        self._publish_timeline()
        if not h.unverified and time.monotonic() - self._checking_since > _SAY_CONFIRMED_AFTER:
            self.message.emit(
                f"The recorded run is confirmed: iterations {h.origin:,} to {h.furthest:,} replay exactly"
            )

    def _verify_slice(self, verify) -> None:
        """``verify(n)`` for a number of iterations taking about 30 ms, adapted from the last slices."""
        t0 = time.perf_counter()
        verify(self._verify_chunk)
        dt = time.perf_counter() - t0
        if dt < 0.015:
            self._verify_chunk = min(self._verify_chunk * 2, 1 << 20)
        elif dt > 0.06:
            self._verify_chunk = max(1, self._verify_chunk // 2)

    def _history_refused(self, e: HistoryError) -> None:
        """A session's record is not its run: say so about the file; the run goes on, recorded from where it is."""
        s = self.solver
        where = f" of {self._source}" if self._source else " of the session"
        self.error.emit(
            f"The recorded run{where} is refused: {e}. The run goes on from {s.iteration_name} {s.iteration:,}, "
            "where it is now; going back before it is not available."
        )
        self.history = self._record(s)
        self._source = ""
        self._publish_now()
        self._set_state(WorkerState.FINISHED if s.done else WorkerState.IDLE)

    def _step_phase(self) -> None:
        """One phase through the history, published with its PhaseStep."""
        s, h = self.solver, self.history
        if s is None or h is None or self.state == WorkerState.STOPPED or not s.phases:
            return
        if s.phase == 0:
            self._apply_params()  # changes asked for meanwhile apply before the iteration's draws
        step = h.step_phase() if not s.done else None
        if s.phase == 0:
            self._apply_params()  # changes asked for during the iteration: made at its end
        self._publish(loop.Progress(s.snapshot(), 0.0, 0.0, s.done, s.status if s.done else "", 0.0, phase=step))
        self._set_state(WorkerState.FINISHED if s.done else WorkerState.IDLE)
        self._ended(s.status if s.done else "phase", "phase")

    def _answer_keyframes(self, solver=None) -> None:
        solver = solver or self.solver
        with self._params_lock:
            numbers, self._pending_keyframes = self._pending_keyframes, []
            records, self._pending_records = self._pending_records, {}
        if not numbers:
            return
        self._apply_params(solver)  # the changes asked for before the keyframe are in it
        state = solver.state_dict() if solver is not None and solver.puzzle is not None else None
        for number in numbers:
            if number in records:  # with the history's record, taken at the same moment
                self.keyframe.emit(number, (state, *self._history_record(solver, records[number])))
            else:
                self.keyframe.emit(number, state)

    def _between_chunks(self, solver) -> None:
        self._apply_params(solver)
        self._answer_keyframes(solver)

    def _warm(self, names) -> bool:
        """Warm the kernels of the solvers of ``names`` not warmed yet; True if there were any."""
        todo = [n for n in names if n not in self._warmed]
        if not todo:
            return False
        self._set_state(WorkerState.COMPILING)
        warm_up(todo, self.message.emit)
        self._warmed.update(todo)
        return True

    def _apply_params(self, solver=None) -> bool:
        solver = solver or self.solver
        with self._params_lock:
            changes, self._pending_params = self._pending_params, {}
            after, self._pending_after = self._pending_after, {}
        if not changes or solver is None:
            return False
        if solver.phase:  # in the middle of an iteration stepped by phases: they apply when it ends
            with self._params_lock:
                self._pending_params = {**changes, **self._pending_params}
                self._pending_after = {**after, **self._pending_after}
            self.message.emit(
                f"{', '.join(sorted(changes))}: applies when {solver.iteration_name} {solver.iteration + 1} ends "
                "(Step phase to its end, or Step)"
            )
            return False
        h = self.history
        try:
            if h is not None and h.solver is solver:
                return bool(h.set_params(**changes))  # recorded (after a seek back: a new branch)
            return bool(solver.set_params(**changes))
        except SudokuLabError as e:
            self.error.emit(str(e))
            return False

    def _should_stop(self) -> bool:
        return self._interrupt.is_set() or self._quit.is_set()

    def _rate(self) -> float | None:
        with self._rate_lock:
            return self._max_rate

    def _drive(self, term: loop.Termination, throttle: bool) -> None:
        """Step under ``term`` (Run, or Step N unthrottled), publishing progress until it ends or is interrupted."""
        self._set_state(WorkerState.RUNNING)
        last = None
        for last in loop.iterate(
            self.solver,
            term,
            min_interval=1 / 30,
            should_stop=self._should_stop,
            before_chunk=self._between_chunks,
            max_rate=self._rate if throttle else None,
            wait=self._interrupt.wait,
            chunk=self._chunk.get(self.solver.name, 1),
            step=self.history.step if self.history is not None else None,
        ):
            if last.done or last.snapshot.iteration != self._published_iteration:
                # A run's first progress repeats the frame on screen (the reset or the pause): the GUI
                # would redraw a plot for nothing at the start of every run, which costs short runs.
                self._publish(last)
        if last is not None and throttle and self._rate() is None:
            self._chunk[self.solver.name] = last.chunk  # the next run starts at full speed
        if last is not None:
            self._run_seconds += last.elapsed
        reason = last.reason if last is not None else "cancelled"
        if not throttle and reason == "max_iterations":  # Step N did its N iterations: no budget was reached
            reason = "steps"
        if self._apply_params():  # asked for in the middle of an iteration this step finished
            self._publish_now()
        if self.solver.done:
            self._set_state(WorkerState.FINISHED)
        elif self.state == WorkerState.RUNNING:
            self._set_state(WorkerState.IDLE)
        self._ended(reason, "run" if throttle else "step")

    def _publish(self, progress) -> None:
        # No sleep(0) to hand the GIL over: the GUI thread takes it while the next kernel call runs
        # (the kernels release it), and handing it over here made the worker wait for it back.
        info = self._timeline_info(progress.snapshot.iteration, self._run_seconds + (progress.elapsed or 0.0))
        with self._latest_lock:
            self._latest = progress
            self._timeline = info
            self._latest_run = self._run
        self._published_iteration = progress.snapshot.iteration

    def _timeline_info(self, iteration: int, seconds: float = 0.0) -> TimelineInfo | None:
        h = self.history
        if h is None or h.solver is not self.solver:
            return None
        return TimelineInfo(
            int(iteration), h.origin, h.furthest, h.events, h.memory_used, h.memory_limit, float(seconds), h.unverified
        )

    def _publish_timeline(self) -> None:
        """Publish the recorded run's TimelineInfo alone (a background check moved on; the frame is the same)."""
        info = self._timeline_info(self._published_iteration, self._run_seconds)
        with self._latest_lock:
            self._timeline = info

    def _publish_now(self) -> None:
        """Publish a snapshot of the current state outside a run (after reset, params, step)."""
        s = self.solver
        self._publish(loop.Progress(s.snapshot(), 0.0, 0.0, s.done, s.status if s.done else "", 0.0))

    def at_start(self) -> bool:
        """True when no iteration has run since the solver's reset (or there is no solver yet)."""
        return self.solver is None or (self.solver.iteration == 0 and self.solver.phase == 0)

    def _set_state(self, state: str) -> None:
        self.state = state
        self.stateChanged.emit(state, self.at_start())
