"""A lab window still alive at interpreter exit is closed and deleted before PySide's own clean-up.

Without it a script that ends with its window open aborted ("QThread: Destroyed while thread is still
running", status 134 every time), and one that closed a window which had stepped a solver with a right-axis
curve died with SIGSEGV in PySide's clean-up after printing its results (about half the runs; seen in CI).
"""

from __future__ import annotations

import os
import subprocess
import sys

import shiboken6

from lab_helpers import button

SCRIPT = r"""
import sys, time
from PySide6.QtWidgets import QApplication
from sudoku_lab.model import library
from sudoku_lab_ui.app import create_window

app = QApplication.instance() or QApplication(["lab"])
win = create_window(library.puzzle("ai_escargot"), "ga")
win.show()
while not (win.controller.state == "idle" and win.controller.latest is not None):
    app.processEvents()
    time.sleep(0.01)
win.act_run.trigger()  # the worker is busy when the script ends
while win.controller.state != "running":  # the GA does not solve AI Escargot in seconds
    app.processEvents()
    time.sleep(0.01)
print("running", flush=True)
"""


def test_a_script_may_end_with_its_window_open_and_running(tmp_path):
    """The exit hook closes the shown window (joining its worker) and deletes it: status 0, nothing on stderr
    but Qt's offscreen notes."""
    script = tmp_path / "open.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONFAULTHANDLER": "1"}
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600, env=env)
    assert res.stdout.strip() == "running", res.stderr
    assert res.returncode == 0, res.stderr
    problems = [line for line in res.stderr.splitlines() if line and "propagateSizeHints" not in line]
    assert problems == [], res.stderr


def test_delete_windows_closes_a_shown_window_and_deletes_the_closed_ones(qtbot):
    from PySide6.QtCore import Qt

    from sudoku_lab.model import library
    from sudoku_lab_ui import exit_cleanup, gui_gc
    from sudoku_lab_ui.app import create_window

    from lab_helpers import wait_ready

    exit_cleanup.delete_windows()  # the windows earlier tests closed, kept alive by their cycles
    shown = create_window(library.puzzle("ai_escargot"), "ga")
    closed = create_window(library.puzzle("ai_escargot"), "ga")
    shown.show()
    closed.show()
    wait_ready(qtbot, shown)
    wait_ready(qtbot, closed)
    qtbot.mouseClick(button(shown, shown.act_run), Qt.LeftButton)
    qtbot.waitUntil(lambda: shown.controller.state == "running")
    closed.close()
    assert gui_gc.active()  # `shown` is still open
    assert exit_cleanup.delete_windows() == 2
    assert not shiboken6.isValid(shown) and not shiboken6.isValid(closed)
    assert not gui_gc.active()  # `shown` went through its closeEvent: collection is back
    assert exit_cleanup.delete_windows() == 0  # nothing left to delete (no_thread_leaks: no worker still runs)


def test_every_deferred_call_of_the_window_names_its_receiver():
    """``QTimer.singleShot(ms, receiver, fn)``, never ``singleShot(ms, fn)`` on a widget's method: a call still
    pending when its widget is deleted (a window deleted at exit, a dock's content replaced) is then dropped by
    Qt instead of running on a deleted object (``fit_content`` of a deleted dock did, found by the test above)."""
    import re
    from pathlib import Path

    ui = Path(__file__).resolve().parents[2] / "ui"
    loose = []
    for f in sorted(ui.rglob("*.py")):
        for n, line in enumerate(f.read_text().splitlines(), 1):
            m = re.search(r"QTimer\.singleShot\(\s*[^,]+,\s*([^,)]+)\)", line)
            if m and not m.group(1).strip().endswith(".quit"):  # a local event loop's quit (bench_gui)
                loose.append(f"{f.relative_to(ui.parent)}:{n}: {line.strip()}")
    assert loose == []
