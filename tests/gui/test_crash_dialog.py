"""Internal errors in the window: one line in a message box and the status bar, the report in a file."""

from __future__ import annotations

import sys
import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QPushButton, QToolBar

from sudoku_lab.model import library
from sudoku_lab_ui.app import create_window, install_exception_hook

pytestmark = pytest.mark.gui


@pytest.fixture
def reports(tmp_path, monkeypatch):
    """Crash reports go to a directory of this test (XDG_STATE_HOME); returns a lister of them."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return lambda: sorted((tmp_path / "state" / "sudoku-lab").glob("crash-*.txt"))


@pytest.fixture
def window(qtbot):
    win = create_window(library.puzzle("ai_escargot"))
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.controller.state == "idle" and win.controller.latest is not None, timeout=60_000)
    yield win
    win.close()


def _visible_box(win, name):
    return next((b for b in win.findChildren(QMessageBox, name) if b.isVisible()), None)


def _check_one_line(win, qtbot, reports, what: str, prefix: str = "", name: str = "internal_error_box") -> str:
    """The box shows one line naming ``what`` and the report file, which holds the traceback."""
    qtbot.waitUntil(lambda: _visible_box(win, name) is not None, timeout=30_000)
    box = _visible_box(win, name)
    text = box.text()
    assert "\n" not in text and "Traceback" not in text, text
    assert text.startswith(f"{prefix}internal error ({what}); full report in "), text
    [report] = reports()
    assert text.endswith(f"full report in {report}. Please report it.")
    content = report.read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in content and what in content
    assert win.statusBar().currentMessage() == text
    box.close()
    return content


@pytest.mark.qt_no_exception_capture  # the lab's own hook must see the exception, not pytest-qt's
def test_an_exception_in_a_slot_becomes_one_line(window, qtbot, reports, monkeypatch, capfd):
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    install_exception_hook(window)

    def broken():
        raise RuntimeError("slot exploded")

    button = QPushButton("Break", window)
    button.clicked.connect(broken)
    button.show()
    qtbot.mouseClick(button, Qt.LeftButton)
    content = _check_one_line(window, qtbot, reports, "RuntimeError: slot exploded")
    assert window.findChild(QMessageBox, "internal_error_box").windowModality() == Qt.NonModal
    assert "in broken" in content  # the report has the real frames
    err = capfd.readouterr().err
    assert err.splitlines() == [f"sudoku-lab: error: {window.statusBar().currentMessage()}"], err
    # the lab still works after it
    qtbot.mouseClick(
        next(
            tb.widgetForAction(window.act_step)
            for tb in window.findChildren(QToolBar)
            if tb.widgetForAction(window.act_step) is not None
        ),
        Qt.LeftButton,
    )
    qtbot.waitUntil(lambda: window.controller.latest.snapshot.iteration == 1, timeout=30_000)


def test_an_exception_in_another_thread_is_shown_in_the_gui_thread(window, qtbot, reports, monkeypatch, capfd):
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    handler = install_exception_hook(window)
    assert sys.excepthook is handler

    def worker():
        raise ZeroDivisionError("thread exploded")

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    _check_one_line(window, qtbot, reports, "ZeroDivisionError: thread exploded")
    assert "thread exploded" in capfd.readouterr().err


def test_an_unexpected_error_in_the_solver_is_one_line(window, qtbot, reports, monkeypatch):
    from sudoku_lab.solvers.reseda import Reseda

    def broken(self, n):
        raise RuntimeError("kernel exploded")

    monkeypatch.setattr(Reseda, "_step", broken)
    window.controller.step(1)
    content = _check_one_line(
        window, qtbot, reports, "RuntimeError: kernel exploded", prefix="The solver thread stopped: ", name="error_box"
    )
    assert "context: solver thread, step command, solver 'reseda'" in content
    assert window.controller.state == "stopped"
