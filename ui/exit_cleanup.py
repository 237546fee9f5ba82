"""Lab windows still alive when the interpreter exits are deleted before PySide's own clean-up.

At exit PySide destroys the QApplication and, with it, every widget still
alive, once Python has begun to tear itself down. Clearing a plot's scene
then re-lays out pyqtgraph items whose Python overrides run in an interpreter
that can no longer report an error, and the process dies with SIGSEGV after
its work is done (seen in CI: a script that opened the lab window, stepped a
plugin solver, printed its results and closed the window; three runs in six on
this machine). The window is usually kept alive past its ``close()`` by the
reference cycles of its views and signals. Python runs ``atexit`` calls last
registered first, and PySide registers its clean-up when ``QtCore`` is
imported, so a hook registered with the first window runs before it: it closes
a window still shown (joining its worker threads) and deletes every tracked
window while Python is whole. ``sudoku-lab gui``, a script's
:func:`~sudoku_lab_ui.app.create_window` and the test suite all take this path.
"""

from __future__ import annotations

import atexit
import weakref

import shiboken6

__all__ = ["track", "delete_windows"]

_windows: weakref.WeakSet = weakref.WeakSet()
_state = {"registered": False}


def track(window) -> None:
    """Delete ``window`` at interpreter exit if it is still alive then (registers the hook once)."""
    if not _state["registered"]:
        atexit.register(delete_windows)
        _state["registered"] = True
    _windows.add(window)


def delete_windows() -> int:
    """Close the tracked windows still shown and delete every one still alive; returns how many were deleted."""
    deleted = 0
    for window in list(_windows):
        if not shiboken6.isValid(window):
            continue  # deleted already (a compare window goes with the main window that owns it)
        if window.isVisible():
            window.close()
        if shiboken6.isValid(window):
            shiboken6.delete(window)
            deleted += 1
    _windows.clear()
    return deleted
