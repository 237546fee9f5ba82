"""Slow work off the GUI thread: puzzle checks, AC3 for pencil marks, anything that may compile kernels.

:class:`Jobs` runs a function on a daemon thread and hands its result back to
the GUI thread through a queued signal, but only if it is still *current*: a
newer job with the same key supersedes the older one, whose result is dropped
(choosing another puzzle while the first is being checked never loads the
first one). Daemon threads, so a long exact search never delays quitting.

The numba kernels release the GIL (``nogil=True``), so the event loop keeps
running while a job computes.

:class:`Task` is one long, cancellable piece of work of a dialog (an animation
export, correctness grades, a batch experiment): a daemon thread with a cancel
flag whose progress and end reach the GUI thread as queued signals, and whose
exception is one line for the status under the dialog's progress bar, never a
dead thread. :class:`TaskDialog` is such a dialog (running, Cancel, closing
cancels); :func:`show_idle` and :func:`show_count` set its progress bar.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Callable

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QDialog, QLabel, QProgressBar

from sudoku_lab.errors import SudokuLabError, printable

__all__ = ["Jobs", "Task", "TaskDialog", "one_line", "show_count", "show_idle"]


class Jobs(QObject):
    """Keyed background jobs whose results reach the GUI thread if still current.

    Signals
    -------
    busyChanged(str, bool)
        A key started (True) or has no job running any more (False).
    """

    busyChanged = Signal(str, bool)
    _finished = Signal(str, int, bool, object)  # key, token, ok, value (emitted from the job's thread)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._tokens: dict[str, int] = {}
        self._callbacks: dict[tuple[str, int], tuple[Callable, Callable | None]] = {}
        self._finished.connect(self._deliver)

    def submit(
        self,
        key: str,
        fn: Callable[[], Any],
        on_result: Callable[[Any], None],
        on_error: Callable[[BaseException], None] | None = None,
    ) -> int:
        """Run ``fn()`` on a new daemon thread; ``on_result(value)`` in the GUI thread when it ends.

        Parameters
        ----------
        key : str
            Jobs with the same key supersede each other: only the newest one's
            callback runs.
        fn : callable
            The work; it must not touch widgets.
        on_result, on_error : callable
            Called in the GUI thread with the value, or with the exception
            ``fn`` raised (without ``on_error`` the exception goes to
            :data:`sys.excepthook`, which the lab turns into a message).

        Returns
        -------
        int
            The job's token (see :meth:`current`).
        """
        token = self._tokens.get(key, 0) + 1
        self._tokens[key] = token
        self._callbacks = {k: v for k, v in self._callbacks.items() if k[0] != key}
        self._callbacks[(key, token)] = (on_result, on_error)
        emit = self._finished.emit

        def body():
            try:
                value, ok = fn(), True
            except BaseException as e:  # noqa: BLE001 - delivered to the GUI thread
                value, ok = e, False
            try:
                emit(key, token, ok, value)
            except RuntimeError:  # the owner is gone (window closed): nobody wants the result
                pass

        threading.Thread(target=body, name=f"sudoku-lab {key}", daemon=True).start()
        self.busyChanged.emit(key, True)
        return token

    def cancel(self, key: str) -> None:
        """Drop the result of the running job of ``key``, if any."""
        if any(k[0] == key for k in self._callbacks):
            self._tokens[key] = self._tokens.get(key, 0) + 1
            self._callbacks = {k: v for k, v in self._callbacks.items() if k[0] != key}
            self.busyChanged.emit(key, False)

    def busy(self, key: str) -> bool:
        """Whether a current job of ``key`` is still running."""
        return (key, self._tokens.get(key, 0)) in self._callbacks

    def current(self, key: str) -> int:
        """Token of the newest job of ``key`` (0 if none was submitted)."""
        return self._tokens.get(key, 0)

    @Slot(str, int, bool, object)
    def _deliver(self, key: str, token: int, ok: bool, value) -> None:
        callbacks = self._callbacks.pop((key, token), None)
        if callbacks is None or token != self._tokens.get(key):
            return  # superseded
        self.busyChanged.emit(key, False)
        on_result, on_error = callbacks
        if ok:
            on_result(value)
        elif on_error is not None:
            on_error(value)
        else:
            sys.excepthook(type(value), value, value.__traceback__)


def one_line(e: BaseException) -> str:
    """An error as one line: its message's first line (a bug names its type), control characters escaped."""
    # A SudokuLabError's str() escapes its line breaks with the rest (errors.printable): cut the raw text.
    raw = (Exception.__str__(e) if isinstance(e, SudokuLabError) else str(e)).strip()
    text = printable(raw.splitlines()[0]) if raw else ""
    if isinstance(e, SudokuLabError):
        return text or type(e).__name__
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


class Task(QObject):
    """One cancellable long piece of work on a daemon thread, its voice in the GUI thread.

    The work (:meth:`start`) is given the task: it reads :meth:`should_stop` and may emit
    :attr:`progress`, :attr:`partial` and :attr:`note` from its thread (they reach the GUI thread
    queued). Its end is delivered in the GUI thread after :attr:`running` became False: its return
    value by :attr:`finished`, or what it raised as one line by :attr:`failed` (a
    :class:`~sudoku_lab.errors.SudokuLabError` as ``refused`` + its message's first line, any other
    exception as ``"<what> failed: TypeName: first line"``).

    Parameters
    ----------
    name : str
        The thread's name (``sudoku-lab <name>``).
    what : str
        What the work is, for a bug's line (``"Export"``: ``"Export failed: TypeError: ..."``).
    refused : str
        The prefix of a refusal's line (``"Cannot run: "``).

    Signals
    -------
    progress(object), partial(object), note(str)
        Emitted by the work, as its owner agrees with it (how far it is, a partial result, a line to show).
    runningChanged(bool)
        The work started (True) or ended (False, just before :attr:`finished` or :attr:`failed`).
    finished(object)
        The work returned this value (also when it stopped because it was cancelled).
    failed(str)
        The work raised: the one line saying why.
    """

    progress = Signal(object)
    partial = Signal(object)
    note = Signal(str)
    runningChanged = Signal(bool)
    finished = Signal(object)
    failed = Signal(str)
    _ended = Signal(bool, object)  # ok, the value or the failure's line (emitted from the work's thread)

    def __init__(self, name: str, what: str, refused: str, parent: QObject | None = None):
        super().__init__(parent)
        self.name, self.what, self.refused = name, what, refused
        self._thread: threading.Thread | None = None
        self._cancel = threading.Event()
        self.should_stop = self._cancel.is_set  # for the work: True once cancelled
        self._ended.connect(self._deliver)

    @property
    def running(self) -> bool:
        """Whether the work was started and its end not delivered yet."""
        return self._thread is not None

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called since the work started."""
        return self._cancel.is_set()

    def failure(self, e: BaseException) -> str:
        """The one line an exception of the work is (see the class docstring)."""
        if isinstance(e, SudokuLabError):
            return f"{self.refused}{one_line(e)}"
        return f"{self.what} failed: {one_line(e)}"

    def start(self, work: Callable[[Task], Any]) -> bool:
        """Run ``work(self)`` on a new daemon thread; False (nothing started) if the task is running."""
        if self.running:
            return False
        self._cancel.clear()
        ended = self._ended.emit

        def body() -> None:
            try:
                try:
                    value, ok = work(self), True
                except Exception as e:  # noqa: BLE001 - a bug is one line here, never a dead thread
                    value, ok = self.failure(e), False
                ended(ok, value)
            except RuntimeError:  # the owner is gone (its window closed): nobody wants the result
                pass

        self._thread = threading.Thread(target=body, name=f"sudoku-lab {self.name}", daemon=True)
        self.runningChanged.emit(True)
        self._thread.start()
        return True

    def cancel(self) -> bool:
        """Ask the running work to stop (it reads :meth:`should_stop`); False if nothing is running."""
        if not self.running:
            return False
        self._cancel.set()
        return True

    def join(self, timeout: float | None = None) -> None:
        """Wait up to ``timeout`` seconds for the work's thread (the window is closing)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout=timeout)

    @Slot(bool, object)
    def _deliver(self, ok: bool, value) -> None:
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=30)  # it has emitted its last signal: it is ending
        self.runningChanged.emit(False)
        if ok:
            self.finished.emit(value)
        else:
            self.failed.emit(value)


def show_idle(bar: QProgressBar) -> None:
    """A progress bar of no work going on: empty."""
    bar.setRange(0, 1)
    bar.setValue(0)


def show_count(bar: QProgressBar, done: int, total: int) -> None:
    """A progress bar at ``done`` of ``total`` (a total of 0 shows as 1)."""
    bar.setRange(0, max(1, total))
    bar.setValue(done)


class TaskDialog(QDialog):
    """A dialog whose long work is a :class:`Task`, with a progress bar and a status line under it.

    A subclass sets ``_job`` (its task), ``progress_bar`` and ``status`` in its ``__init__``, and may set
    :attr:`CANCELLING` and :attr:`SHUTDOWN_SECONDS`. Closing the dialog cancels the work going on.
    """

    #: The status line while the work is being cancelled.
    CANCELLING = "Cancelling..."
    #: How long :meth:`shutdown` waits for the work's thread.
    SHUTDOWN_SECONDS = 60.0

    _job: Task
    progress_bar: QProgressBar
    status: QLabel

    @property
    def running(self) -> bool:
        """Whether the work is going on."""
        return self._job.running

    def cancel(self) -> None:
        """Stop the work going on (what it keeps is the subclass's: see its :attr:`CANCELLING`)."""
        if self._job.cancel():
            self.status.setText(self.CANCELLING)

    def show_failure(self, text: str) -> None:
        """The work failed: ``text`` in the status line, the progress bar empty."""
        self.status.setText(text)
        show_idle(self.progress_bar)

    def closeEvent(self, event) -> None:
        self.cancel()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Cancel the work going on and wait for its thread (the window is closing)."""
        self.cancel()
        self._job.join(timeout=self.SHUTDOWN_SECONDS)
