"""Slow work off the GUI thread: puzzle checks, AC3 for pencil marks, anything that may compile kernels.

:class:`Jobs` runs a function on a daemon thread and hands its result back to
the GUI thread through a queued signal, but only if it is still *current*: a
newer job with the same key supersedes the older one, whose result is dropped
(choosing another puzzle while the first is being checked never loads the
first one). Daemon threads, so a long exact search never delays quitting.

The numba kernels release the GIL (``nogil=True``), so the event loop keeps
running while a job computes.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Callable

from PySide6.QtCore import QObject, Signal, Slot

__all__ = ["Jobs"]


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
