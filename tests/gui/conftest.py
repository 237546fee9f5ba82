"""GUI test fixtures: every test runs offscreen and must not leave a QThread running."""

from __future__ import annotations

import gc

import pytest


@pytest.fixture(autouse=True)
def no_thread_leaks(qapp):
    """Fail any test that leaves a QThread running (closing a window must join its worker)."""
    from PySide6.QtCore import QThread

    yield
    qapp.processEvents()
    gc.collect()
    running = [obj for obj in gc.get_objects() if isinstance(obj, QThread) and _alive(obj) and obj.isRunning()]
    for t in running:  # stop them so the next test starts clean, then fail this one
        t.quit()
        t.wait(5000)
    assert not running, f"{len(running)} QThread(s) still running after the test"


def _alive(obj) -> bool:
    try:
        import shiboken6

        return shiboken6.isValid(obj)
    except Exception:
        return False
