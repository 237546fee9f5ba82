"""Sessions in the window (issue 19, item 4): save a run in progress, reopen it paused, refuse a bad file."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from sudoku_lab.model import library
from sudoku_lab.stepping.session import load_session, restore_solver
from sudoku_lab_ui.app import create_window
from sudoku_lab_ui.main_window import RECENT_SESSIONS, MainWindow

from lab_helpers import iteration, wait_ready

pytestmark = pytest.mark.gui


def _settings(tmp_path) -> QSettings:
    return QSettings(str(tmp_path / "lab.ini"), QSettings.Format.IniFormat)


def _saved_run(window, qtbot, path):
    """A GA run on a hard puzzle, a parameter changed, saved while it runs; the window and the saved session."""
    win = window("ai_escargot", "ga")
    win.seed_box.setValue(11)
    wait_ready(qtbot, win)  # the reset with the new seed
    win.speed_box.setCurrentIndex(4)  # 30 steps/s: still running when the keyframe is taken
    win.step_n.setValue(7)
    win.algo_dock.hide()  # a layout of its own, which the session keeps
    win.controller.set_param("mutation_rate", 0.2)
    win.controller.run()
    qtbot.waitUntil(lambda: win.controller.state == "running" and (iteration(win) or 0) >= 5)
    with qtbot.waitSignal(win.sessionSaved) as saved:
        win.save_session(path)
    assert saved.args == [str(path)]
    assert win.controller.state == "running"  # saving did not stop the run
    win.controller.pause()
    qtbot.waitUntil(lambda: win.controller.state == "idle")
    return win, load_session(path)


def test_a_session_saved_while_running_reopens_paused_where_it_was(window, qtbot, tmp_path):
    path = tmp_path / "run.sudoku-session"
    first, session = _saved_run(window, qtbot, path)
    assert session.solver == "ga" and session.seed == 11 and session.iteration >= 5
    assert session.params["mutation_rate"] == 0.2 and session.ui["speed"] == 4 and session.ui["step_n"] == 7
    first.close()

    win = window("reseda_fig3_1_easy", "reseda")  # another puzzle, algorithm, seed and layout
    win.speed_box.setCurrentIndex(0)
    with qtbot.waitSignal(win.sessionOpened):
        assert win.open_session(path)
    assert win.statusBar().currentMessage() == f"Opened run.sudoku-session: paused at iteration {session.iteration:,}"
    c = win.controller
    qtbot.waitUntil(lambda: c.state == "idle" and c.latest is not None and c.latest.snapshot.solver == "ga")
    qtbot.waitUntil(win.settled)
    snap = c.latest.snapshot
    assert snap.iteration == session.iteration and c.puzzle == library.puzzle("ai_escargot")
    assert c.solver_name == "ga" and win.solver_box.currentData() == "ga"
    assert c.current_params()["mutation_rate"] == 0.2 and win.params_panel.spin_box("mutation_rate").value() == 0.2
    assert c.seed == 11 and win.seed_box.value() == 11
    assert win.speed_box.currentIndex() == 4 and win.step_n.value() == 7
    assert not win.algo_dock.isVisible() and win.puzzle_dock.isVisible()  # the saved dock layout
    assert not c.at_start  # paused mid-run: the parameters that need a reset are locked
    reference = restore_solver(session)
    ref = reference.snapshot()
    assert np.array_equal(snap.grid, ref.grid) and snap.events == ref.events and snap.best_cost == ref.best_cost

    # The next steps continue the saved run exactly.
    with qtbot.waitSignal(c.stateChanged, check_params_cb=lambda state: state == "idle"):
        c.step(20)
    qtbot.waitUntil(lambda: iteration(win) == session.iteration + 20)
    reference.step(20)
    snap, ref = c.latest.snapshot, reference.snapshot()
    assert np.array_equal(snap.grid, ref.grid) and np.array_equal(snap.best_grid, ref.best_grid)
    assert (snap.cost, snap.best_cost, snap.evaluations) == (ref.cost, ref.best_cost, ref.evaluations)
    assert all(np.array_equal(snap.trace[k], ref.trace[k]) for k in ref.trace)
    win.close()


@pytest.mark.parametrize(
    "content",
    [b"garbage \x00\xff" * 50, b"PK\x03\x04truncated", None],
    ids=["garbage", "truncated", "missing"],
)
def test_a_bad_session_file_is_one_line_and_changes_nothing(window, qtbot, tmp_path, content):
    win = window("reseda_fig3_1_easy", "hill_climb")
    c = win.controller
    c.set_param("w1", 0.5)
    win.step_n.setValue(3)
    with qtbot.waitSignal(c.stateChanged, check_params_cb=lambda state: state == "idle"):
        c.step(3)
    qtbot.waitUntil(lambda: iteration(win) == 3)
    before = (c.puzzle, c.solver_name, c.current_params(), c.seed, iteration(win), bytes(win.saveState()))
    path = tmp_path / "bad.sudoku-session"
    if content is not None:
        path.write_bytes(content)
    assert not win.open_session(path)
    boxes = [b for b in win.findChildren(QMessageBox) if b.objectName() == "error_box" and b.isVisible()]
    assert len(boxes) == 1
    text = boxes[0].text()
    assert "\n" not in text and str(path) in text and text.startswith("Could not open the session: ")
    QApplication.processEvents()
    time.sleep(0.2)
    c.poll()
    assert (c.puzzle, c.solver_name, c.current_params(), c.seed, iteration(win), bytes(win.saveState())) == before
    assert c.checking is None
    boxes[0].close()
    win.close()


def test_recent_sessions_list_the_newest_first_and_show_missing_files_disabled(qtbot, tmp_path):
    settings = _settings(tmp_path)
    win = create_window(library.puzzle("reseda_fig3_1_easy"), "hill_climb", settings=settings)
    qtbot.addWidget(win)
    win.show()
    wait_ready(qtbot, win)
    paths = [tmp_path / f"s{i}.sudoku-session" for i in range(RECENT_SESSIONS + 2)]
    for p in paths:
        with qtbot.waitSignal(win.sessionSaved):
            win.save_session(p)
    recent = win.recent_sessions()
    assert recent == [str(p) for p in reversed(paths)][:RECENT_SESSIONS]
    assert _settings(tmp_path).value("recent_sessions")[0] == str(paths[-1])  # kept in QSettings
    paths[-2].unlink()
    win.recent_menu.aboutToShow.emit()
    acts = [a for a in win.recent_menu.actions() if not a.isSeparator()]
    assert [a.toolTip() for a in acts[:RECENT_SESSIONS]] == recent
    assert acts[0].isEnabled() and not acts[1].isEnabled() and acts[1].text().endswith("(missing)")
    # Opening one moves it to the top.
    with qtbot.waitSignal(win.sessionOpened):
        acts[3].trigger()
    assert win.recent_sessions()[0] == recent[3]
    win.recent_menu.aboutToShow.emit()
    acts = [a for a in win.recent_menu.actions() if not a.isSeparator()]
    assert acts[0].toolTip() == recent[3] and acts[-1].text() == "Clear the list"
    acts[-1].trigger()
    assert win.recent_sessions() == []
    win.close()


def test_gui_session_opens_the_file(qapp, qtbot, tmp_path, monkeypatch, window):
    from sudoku_lab import cli
    from sudoku_lab_ui.app import run_app

    path = tmp_path / "class.sudoku-session"
    first, session = _saved_run(window, qtbot, path)
    first.close()
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    names = qapp.applicationName(), qapp.organizationName()
    fmt, scope = QSettings.Format.NativeFormat, QSettings.Scope.UserScope
    QSettings.setPath(fmt, scope, str(tmp_path / "settings"))
    seen, state = {}, {"done": False, "t0": time.monotonic()}

    def look():
        if state["done"]:
            return
        wins = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        c = wins[0].controller if wins else None
        if c is not None and c.latest is not None and c.latest.snapshot.solver == "ga" and c.state == "idle":
            seen.update(
                iteration=c.latest.snapshot.iteration,
                solver=c.solver_name,
                seed=wins[0].seed_box.value(),
                recent=wins[0].recent_sessions(),
            )
            wins[0].close()
        elif time.monotonic() - state["t0"] > 120:
            for w in wins:
                w.close()
        else:
            QTimer.singleShot(50, look)

    QTimer.singleShot(0, look)
    try:
        status = run_app(cli.gui_options(["gui", "--session", str(path)]))
    finally:
        state["done"] = True
        qapp.setApplicationName(names[0])
        qapp.setOrganizationName(names[1])
        QSettings.setPath(fmt, scope, os.environ.get("XDG_CONFIG_HOME", str(Path.home() / ".config")))
    assert status == 0
    assert seen == {"iteration": session.iteration, "solver": "ga", "seed": 11, "recent": [str(path)]}


@pytest.mark.parametrize(
    "argv,words",
    [
        (["gui", "--session", "{bad}"], "session file {bad}: not a session file (not a zip archive)"),
        (["gui", "easy", "--session", "{bad}"], "not both"),
    ],
)
def test_gui_session_refuses_in_one_line(argv, words, tmp_path, capsys):
    from sudoku_lab import cli
    from sudoku_lab_ui.app import run_app

    bad = tmp_path / "bad.sudoku-session"
    bad.write_bytes(b"not a session")
    argv = [a.replace("{bad}", str(bad)) for a in argv]
    assert run_app(cli.gui_options(argv)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("sudoku-lab: error: ") and words.replace("{bad}", str(bad)) in err


def test_the_session_actions_have_their_keys(window):
    win = window()
    assert win.act_save_session.shortcut().toString() == "Ctrl+S"
    assert win.act_open_session.shortcut().toString() == "Ctrl+Shift+O"
    rows = dict(win.shortcut_rows())
    assert "Ctrl+S" in rows and "Ctrl+Shift+O" in rows
    assert win.recent_menu.title() == "Recent sessions"
    assert Qt.WindowShortcut == win.act_save_session.shortcutContext()
    win.close()
