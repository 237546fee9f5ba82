"""The Task behind the export animation, grades and batch dialogs: its end, its failures in one line, Cancel."""

import threading

import pytest

from sudoku_lab.errors import SudokuLabError
from sudoku_lab_ui.background import Task


def _task(qtbot):
    task = Task("test task", "Thing", "Cannot do: ")
    seen: list = []
    task.runningChanged.connect(lambda running: seen.append(("running", running, task.running)))
    task.finished.connect(lambda value: seen.append(("finished", value, task.running)))
    task.failed.connect(lambda text: seen.append(("failed", text, task.running)))
    return task, seen


def test_the_value_arrives_after_running_ends(qtbot):
    task, seen = _task(qtbot)
    with qtbot.waitSignal(task.finished):
        assert task.start(lambda t: 42)
        assert not task.start(lambda t: 0)  # one work at a time
    assert seen == [("running", True, True), ("running", False, False), ("finished", 42, False)]


@pytest.mark.parametrize(
    "error, line",
    [
        (SudokuLabError("no such puzzle 'x'\nsecond line"), "Cannot do: no such puzzle 'x'"),
        (TypeError("bad argument\nmore"), "Thing failed: TypeError: bad argument"),
        (KeyError(), "Thing failed: KeyError"),
    ],
)
def test_an_exception_is_one_line(qtbot, error, line):
    task, seen = _task(qtbot)

    def work(t):
        raise error

    with qtbot.waitSignal(task.failed):
        task.start(work)
    assert seen[-1] == ("failed", line, False)


def test_cancel_reaches_the_work(qtbot):
    task, seen = _task(qtbot)
    started = threading.Event()

    def work(t):
        started.set()
        while not t.should_stop():
            t.progress.emit(1)
            threading.Event().wait(0.01)
        return "stopped"

    assert not task.cancel()  # nothing running
    with qtbot.waitSignal(task.finished):
        task.start(work)
        assert started.wait(timeout=30)
        assert task.cancel() and task.cancelled
    assert seen[-1] == ("finished", "stopped", False)
