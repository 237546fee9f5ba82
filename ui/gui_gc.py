"""Python's cyclic garbage collector runs in the GUI thread only while a lab window is open.

Automatic collection runs in whichever thread happens to allocate when a
threshold is crossed. When that is the solver's worker thread and the garbage
holds Qt objects of the GUI thread (a closed dialog, a replaced view), their
destruction disconnects signals from the wrong thread: the worker then holds
Qt's connection lock and waits for the GIL while the GUI thread, holding the
GIL inside a Qt call, waits for that lock. That deadlock was seen in CI (a
window starting while its worker warmed up the kernels). So while a window is
open, automatic collection is off and a timer in the GUI thread collects with
the same thresholds (the pattern of pyqtgraph's ``GarbageCollector``); the
last window to close restores automatic collection.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

__all__ = ["acquire", "release", "active"]

#: Milliseconds between two checks of the collector's counts.
INTERVAL_MS = 500

_state: dict = {"users": 0, "timer": None, "was_enabled": True}


def _check() -> None:
    """Collect the generations whose counts passed their thresholds, youngest first (in the GUI thread)."""
    t0, t1, t2 = gc.get_threshold()
    c0, c1, c2 = gc.get_count()
    if c0 > t0:
        gc.collect(0)
        if c1 > t1:
            gc.collect(1)
            if c2 > t2:
                gc.collect(2)


def acquire(owner: QObject) -> None:
    """A window opens: the first one turns automatic collection off and starts the GUI-thread timer."""
    if _state["users"] == 0:
        _state["was_enabled"] = gc.isenabled()
        gc.disable()
        timer = QTimer()
        timer.setInterval(INTERVAL_MS)
        timer.timeout.connect(_check)
        timer.start()
        _state["timer"] = timer
    _state["users"] += 1


def release() -> None:
    """A window closes: the last one stops the timer, collects once here and restores automatic collection."""
    if _state["users"] == 0:
        return
    _state["users"] -= 1
    if _state["users"] == 0:
        timer = _state["timer"]
        if timer is not None:
            timer.stop()
        _state["timer"] = None
        gc.collect()
        if _state["was_enabled"]:
            gc.enable()


def active() -> bool:
    """True while automatic collection is handed to the GUI thread."""
    return _state["users"] > 0
