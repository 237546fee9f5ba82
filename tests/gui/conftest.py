"""GUI test fixtures: every test runs offscreen and must not leave a QThread running."""

from __future__ import annotations

import functools
import gc
from pathlib import Path

import pytest

#: How long a qtbot wait (waitUntil, waitSignal, ...) given no timeout may last: a guard against a hung window, not a
#: speed requirement. pytest-qt's own default, 5 s, is less than a starved 2-core machine takes to show ten
#: iterations in the window (two view tests failed that way with the cores busy and the tests niced).
WAIT_MS = 120_000


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marks
def pytest_collection_modifyitems(config, items):
    """Every test in tests/gui starts Qt (the autouse ``no_thread_leaks`` takes ``qapp``): all are marked ``gui``."""
    here = Path(__file__).parent
    for item in items:
        if item.path.is_relative_to(here):
            item.add_marker(pytest.mark.gui)


@pytest.fixture
def qtbot(qtbot):
    """pytest-qt's qtbot, with :data:`WAIT_MS` as the timeout of every wait that names none."""
    for name in ("waitUntil", "waitSignal", "waitSignals", "waitExposed", "waitActive", "waitCallback"):
        setattr(qtbot, name, functools.partial(_guarded, getattr(qtbot, name)))
    return qtbot


def _guarded(wait, *args, timeout=WAIT_MS, **kwargs):
    return wait(*args, timeout=timeout, **kwargs)


@pytest.fixture(autouse=True)
def no_thread_leaks(qapp):
    """Fail any test that leaves a QThread running (closing a window must join its worker)."""
    from PySide6.QtCore import QThread

    yield
    qapp.processEvents()
    gc.collect()
    # type(), not isinstance(): isinstance asks a dead weakref.proxy (matplotlib keeps some) for its __class__,
    # which raises ReferenceError.
    running = [obj for obj in gc.get_objects() if issubclass(type(obj), QThread) and _alive(obj) and obj.isRunning()]
    for t in running:  # stop them so the next test starts clean, then fail this one
        t.quit()
        t.wait(5000)
    assert not running, f"{len(running)} QThread(s) still running after the test"
    from sudoku_lab_ui import gui_gc

    # Every window closed: automatic garbage collection is back (it is off while a window is open).
    assert not gui_gc.active() and gc.isenabled(), (
        "a lab window was left open (garbage collection still handed to the GUI thread)"
    )


def _alive(obj) -> bool:
    try:
        import shiboken6

        return shiboken6.isValid(obj)
    except Exception:
        return False


@pytest.fixture
def window(qtbot):
    """``window(puzzle, algo)``: a shown lab window, ready; closed after the test."""
    from sudoku_lab.model import library
    from sudoku_lab_ui.app import create_window

    from lab_helpers import wait_ready

    made = []

    def make(puzzle="reseda_fig3_1_easy", algo=None):
        win = create_window(library.puzzle(puzzle) if isinstance(puzzle, str) else puzzle, algo)
        qtbot.addWidget(win)
        win.show()
        wait_ready(qtbot, win)
        made.append(win)
        return win

    yield make
    for win in made:
        win.close()
