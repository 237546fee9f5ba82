"""The lab window driven like a user: real buttons, shortcuts and dialogs, offscreen."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from sudoku_lab.model import library
from sudoku_lab_ui.app import create_window

from lab_helpers import button, iteration  # noqa: E402

pytestmark = pytest.mark.gui


def _wait(qtbot, cond, timeout=60_000, what="condition"):
    qtbot.waitUntil(cond, timeout=timeout)


def test_opens_on_default_puzzle_with_reseda_ready(qtbot):
    win = create_window()
    qtbot.addWidget(win)
    win.show()
    _wait(qtbot, lambda: win.controller.latest is not None and win.controller.state == "idle")
    assert win.controller.puzzle.name == library.DEFAULT_PUZZLE
    assert win.controller.solver_name == "reseda"
    assert win.solver_box.currentData() == "reseda"
    assert button(win, win.act_run).isEnabled()
    assert win.view_docks["probability"].isVisible()
    win.close()


def test_run_until_solved_shows_the_exact_solution(window, qtbot):
    win = window("reseda_fig3_1_easy")
    qtbot.mouseClick(button(win, win.act_run), Qt.LeftButton)
    _wait(qtbot, lambda: win.controller.latest is not None and win.controller.latest.snapshot.done)
    snap = win.controller.latest.snapshot
    assert snap.solved
    pz = library.puzzle("reseda_fig3_1_easy")
    assert np.array_equal(win.board.shown_digits(), pz.check())
    assert win.status_labels["cost"].text() == "solved"
    assert win.status_labels["iteration"].text() == f"EDA step {snap.iteration:,}"
    win.close()


def test_pause_then_step_moves_the_counter_exactly(window, qtbot):
    win = window("ai_escargot")  # cannot be solved in a few steps, so the run is still going
    win.speed_box.setCurrentIndex(5)  # 100 steps/s so the run is still going when we pause
    qtbot.keyClick(win, Qt.Key_Space)  # Run
    _wait(qtbot, lambda: win.controller.state == "running")
    _wait(qtbot, lambda: (iteration(win) or 0) >= 3)
    qtbot.keyClick(win, Qt.Key_Space)  # Pause
    _wait(qtbot, lambda: win.controller.state == "idle")
    QApplication.processEvents()
    time.sleep(0.1)
    win.controller.poll()
    before = iteration(win)
    qtbot.mouseClick(button(win, win.act_step), Qt.LeftButton)
    _wait(qtbot, lambda: iteration(win) == before + 1)
    win.step_n.setValue(10)
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    _wait(qtbot, lambda: iteration(win) == before + 11)
    qtbot.keyClick(win, Qt.Key_Right)  # Step 1 shortcut
    _wait(qtbot, lambda: iteration(win) == before + 12)
    time.sleep(0.3)
    win.controller.poll()
    assert iteration(win) == before + 12  # and no further
    win.close()


def test_changing_alpha_while_running_is_logged_and_marked(window, qtbot):
    win = window("ai_escargot")
    win.speed_box.setCurrentIndex(4)  # 30 steps/s
    qtbot.mouseClick(button(win, win.act_run), Qt.LeftButton)
    _wait(qtbot, lambda: win.controller.state == "running" and (iteration(win) or 0) > 2)
    spin = win.params_panel.spin_box("alpha")
    spin.setValue(0.9)  # what typing + Enter does
    _wait(qtbot, lambda: win.controller.latest.snapshot.params["alpha"] == 0.9)
    snap = win.controller.latest.snapshot
    events = [e for e in snap.events if e.kind == "param" and e.name == "alpha"]
    assert events and events[-1].old == 0.7 and events[-1].new == 0.9
    conv = win.views["convergence"]
    _wait(qtbot, lambda: any("alpha" in t for t in conv.marker_labels()))
    qtbot.mouseClick(button(win, win.act_stop), Qt.LeftButton)
    _wait(qtbot, lambda: win.controller.state == "stopped")
    assert not button(win, win.act_step).isEnabled()
    qtbot.mouseClick(button(win, win.act_reset), Qt.LeftButton)
    _wait(qtbot, lambda: win.controller.state == "idle" and iteration(win) == 0)
    assert win.controller.latest.snapshot.params["alpha"] == 0.9  # the user's setting survives a reset
    win.close()


def test_a_parameter_that_needs_a_reset_is_editable_exactly_while_the_run_is_at_its_start(window, qtbot):
    """Issue 18: hill climbing's queue_capacity (live=False) was editable after Step N and locked after Reset, one
    state change late: the lock followed the frame the GUI timer had polled, which lags the worker's state signal."""
    win = window("ai_escargot", "hill_climb")
    c, panel = win.controller, win.params_panel

    def click(action):  # the worker's "idle" that ends the request, then its last frame drawn
        with qtbot.waitSignal(c.stateChanged, check_params_cb=lambda state: state == "idle"):
            qtbot.mouseClick(button(win, action), Qt.LeftButton)
        qtbot.waitUntil(win.settled)

    def locked():
        return not panel.editors["queue_capacity"].isEnabled(), not panel.editors["initial_order"].isEnabled()

    assert locked() == (False, False)
    win.step_n.setValue(10)
    for _ in range(3):
        click(win.act_step_n)
        assert iteration(win) > 0 and locked() == (True, True)
        assert panel.editors["plateau"].isEnabled()  # a live parameter stays editable
        click(win.act_reset)
        assert iteration(win) == 0 and locked() == (False, False)
    click(win.act_step)
    assert locked() == (True, True)
    with qtbot.waitSignal(c.stateChanged, check_params_cb=lambda state: state == "idle"):
        win.solver_box.setCurrentIndex(win.solver_box.findData("reseda"))  # a new run of another solver
    qtbot.waitUntil(win.settled)
    assert iteration(win) == 0 and panel.editors["coupling"].isEnabled()
    click(win.act_step)
    assert not panel.editors["coupling"].isEnabled()
    win.close()


def test_out_of_range_and_inconsistent_parameters_are_refused(window, qtbot):
    win = window()
    spin = win.params_panel.spin_box("alpha")
    assert spin.maximum() == 1.0 and spin.minimum() == 0.0  # typing 2 is impossible
    beta = win.params_panel.spin_box("beta")
    assert beta.minimum() > 0.0  # beta lies in (0, 1]
    q = win.params_panel.spin_box("Q")
    q1 = win.params_panel.spin_box("Q1")
    q1.setValue(200)  # more than Q = 100
    assert "Q1 must be at most Q" in win.params_panel.error_label.text()
    assert q1.value() == 10 and win.controller.current_params()["Q1"] == 10
    q.setValue(300)
    assert not win.params_panel.error_label.isVisible()
    win.close()


@pytest.mark.parametrize(
    "text,expected",
    [
        ("1234", "found 4 cells; a 4x4 puzzle has 16"),
        (
            "..867.4.24.23...9.37..2.......4...5.89.251.67.1...3.......9..73.3...52.17.5.329.*",
            "unexpected character '*'",
        ),
        ("5.867.4.24.23...9.37..2.......4...5.89.251.67.1...3.......9..73.3...52.17.5.329.5", "givens clash"),
    ],
)
def test_bad_pasted_puzzles_show_the_error(window, qtbot, text, expected):
    win = window()
    before = win.controller.puzzle
    QApplication.clipboard().setText(text)
    qtbot.mouseClick(win.puzzle_panel.paste_button, Qt.LeftButton)
    assert expected in win.puzzle_panel.error_label.text()
    assert win.puzzle_panel.error_label.isVisible()
    assert win.controller.puzzle is before  # the lab keeps the puzzle it had
    if expected == "givens clash":  # the refused puzzle opens in the editor, clashing cells marked
        assert "r9c3 and r9c9 both hold 5" in win.puzzle_panel.error_label.text()
        assert win.board.is_editable() and win.board.highlighted_cells() == {74, 80}
    win.close()


def test_edit_mode_types_givens_and_highlights_clashes(window, qtbot):
    win = window("reseda_fig3_1_easy")
    qtbot.mouseClick(win.puzzle_panel.edit_button, Qt.LeftButton)
    assert win.board.is_editable()
    board = win.board
    free = int(np.flatnonzero(library.puzzle("reseda_fig3_1_easy").grid == 0)[0])  # r1c1
    qtbot.mouseClick(board, Qt.LeftButton, pos=board.cell_rect(free).center().toPoint())
    qtbot.keyClick(board, Qt.Key_8)  # an 8 is already at r1c3 (row 1) and r5c1 (column 1)
    assert board.highlighted_cells() == {0, 2, 36}
    assert "givens clash: r1c1 and r1c3 both hold 8" in win.puzzle_panel.error_label.text()
    qtbot.keyClick(board, Qt.Key_1)  # 1 is the solution's digit there
    assert board.highlighted_cells() == frozenset()
    qtbot.mouseClick(win.puzzle_panel.edit_button, Qt.LeftButton)  # leave edit mode: use it
    _wait(qtbot, lambda: win.controller.puzzle.n_givens == 36)
    assert win.controller.puzzle[0, 0] == 1
    win.close()


def test_views_follow_the_solver_capabilities(window, qtbot):
    win = window()
    assert win.view_docks["probability"].isVisible() and win.view_docks["runs"].toggleViewAction().isEnabled()
    win.solver_box.setCurrentIndex(win.solver_box.findData("exact"))
    _wait(qtbot, lambda: win.controller.solver_name == "exact" and win.controller.state == "idle")
    assert not win.view_docks["probability"].isVisible()
    assert not win.view_docks["runs"].toggleViewAction().isEnabled()
    assert win.view_docks["convergence"].isVisible()
    qtbot.mouseClick(button(win, win.act_step), Qt.LeftButton)
    _wait(qtbot, lambda: win.controller.latest is not None and win.controller.latest.snapshot.solved)
    win.close()


def test_shortcuts_dialog_lists_the_keys(window, qtbot):
    win = window()
    dlg = win.show_shortcuts()
    keys = {k for k, _ in win.shortcut_rows()}
    assert {"Space", "Right", "Ctrl+R", "Esc", "F1"} <= keys
    assert dlg.isVisible()
    dlg.close()
    win.close()


def test_closing_while_running_joins_the_worker(window, qtbot):
    win = window("ai_escargot")
    qtbot.mouseClick(button(win, win.act_run), Qt.LeftButton)
    _wait(qtbot, lambda: win.controller.state == "running")
    thread = win.controller._thread
    win.close()
    assert not thread.isRunning()


def test_export_figures_writes_files(window, qtbot, tmp_path):
    win = window()
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    _wait(qtbot, lambda: (iteration(win) or 0) >= 1)
    paths = win.export_figures(str(tmp_path))
    assert {p.name for p in paths} == {"sudoku-lab-probability.pdf", "sudoku-lab-convergence.pdf"}
    assert all(p.stat().st_size > 1000 for p in paths)
    win.close()


def test_double_clicking_the_browser_loads_a_puzzle(window, qtbot):
    win = window()
    panel = win.puzzle_panel
    panel.select_collection("kennett/hard")
    assert panel.select_puzzle("kennett_hard_007")
    view = panel.table
    index = view.currentIndex().siblingAtColumn(0)
    assert index.row() == 6  # the collection's own order
    rect = view.visualRect(index)
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=rect.center())  # a real double-click starts with a press
    qtbot.mouseDClick(view.viewport(), Qt.LeftButton, pos=rect.center())
    _wait(
        qtbot,
        lambda: (
            win.controller.puzzle.name == "kennett_hard_007"
            and win.controller.latest is not None
            and win.controller.latest.snapshot.puzzle.name == "kennett_hard_007"
        ),
    )
    assert win.board.puzzle() == library.puzzle("kennett_hard_007")
    assert "kennett_hard_007" in win.windowTitle()


def test_an_error_in_the_worker_becomes_a_message_box(window, qtbot, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from sudoku_lab.solvers.reseda import Reseda

    win = window("ai_escargot")

    def broken(self, n):
        raise RuntimeError("kernel exploded")

    monkeypatch.setattr(Reseda, "_step", broken)
    qtbot.mouseClick(button(win, win.act_step), Qt.LeftButton)
    _wait(qtbot, lambda: any(b.isVisible() for b in win.findChildren(QMessageBox)))
    box = next(b for b in win.findChildren(QMessageBox) if b.isVisible())
    assert "kernel exploded" in box.text() and "solver thread" in box.text()
    assert win.controller.state == "stopped"
    box.close()
    monkeypatch.undo()
    qtbot.mouseClick(button(win, win.act_reset), Qt.LeftButton)  # the lab recovers with a reset
    _wait(qtbot, lambda: win.controller.state == "idle" and iteration(win) == 0)
    qtbot.mouseClick(button(win, win.act_step), Qt.LeftButton)
    _wait(qtbot, lambda: iteration(win) == 1)
    win.close()


@pytest.mark.parametrize(
    "content,expected",
    [
        # '²' passed str.isdigit() and int() then raised ValueError: the window showed nothing at all
        (" ".join("0" * 20) + " ² " + " ".join("0" * 60), "line 1, column 41: unexpected character '²'"),
        (b"\x89PNG\r\n\x1a\n", "not a text file: line 1 holds byte 0x89, which is not UTF-8"),
    ],
)
def test_opening_a_bad_file_shows_the_error_in_red(window, qtbot, tmp_path, content, expected):
    win = window()
    before = win.controller.puzzle
    f = tmp_path / "bad.txt"
    f.write_bytes(content.encode() if isinstance(content, str) else content)
    win.puzzle_panel.open_file(str(f))
    label = win.puzzle_panel.error_label
    assert label.isVisible() and expected in label.text() and str(f) in label.text()
    assert "#b00020" in label.styleSheet()  # red
    assert win.controller.puzzle is before
    win.close()


def test_opening_a_directory_or_a_huge_collection(window, qtbot, tmp_path):
    win = window()
    win.puzzle_panel.open_file(str(tmp_path))
    assert "is a directory, not a file" in win.puzzle_panel.error_label.text()
    big = tmp_path / "big.txt"
    lines = [p.to_line() for p in library.collection("kennett/hard")]
    big.write_text("".join(ln + "\n" for ln in lines * 250))  # 50,000 puzzles: only the first is read
    win.puzzle_panel.open_file(str(big))
    _wait(qtbot, lambda: win.controller.puzzle is not None and win.controller.puzzle.name == "big:1")
    assert win.controller.puzzle == library.collection("kennett/hard")[0]
    assert not win.puzzle_panel.error_label.isVisible()
    win.close()


def test_export_into_a_folder_that_cannot_be_written_says_so(window, qtbot, tmp_path):
    from PySide6.QtWidgets import QMessageBox

    win = window()
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert win.export_figures(str(blocker)) == []  # the "folder" is a file: nothing can be written in it
    _wait(qtbot, lambda: any(b.isVisible() for b in win.findChildren(QMessageBox)))
    box = next(b for b in win.findChildren(QMessageBox) if b.isVisible())
    assert box.text().startswith("Export failed: cannot write figure") and str(blocker) in box.text()
    box.close()
    win.close()


def test_a_last_frame_polled_before_the_running_state_is_still_drawn_in_every_view(window, qtbot):
    """A busy GUI thread can take a step's last frame from the worker before it handles the worker's queued
    "running" and "idle" signals: "running" then cancels the views not drawn yet, and "idle" must draw them
    (they stayed at "no run yet" on a loaded machine)."""
    from lab_helpers import wait_ready

    win = window("mk_hard_c", "cuckoo")
    wait_ready(qtbot, win)
    win.view_docks["nests"].raise_()
    qtbot.waitUntil(lambda: win.views["nests"].isVisible())
    host, c = win.view_host, win.controller
    drawn = []
    for key, view in host.views.items():
        original = view.on_progress
        view.on_progress = lambda prog, key=key, original=original: (drawn.append(key), original(prog))
    prog = c.latest
    c.progress.emit(prog)  # the worker's last frame, taken while the window still thinks it is idle: final
    c.stateChanged.emit("running")  # the queued signals, handled after it
    c.stateChanged.emit("idle")
    visible = {k for k, v in host.views.items() if v.isVisible()}
    assert "nests" in visible
    qtbot.waitUntil(lambda: visible <= set(drawn) and not host.pending())


def test_gui_on_a_file_whose_givens_clash_opens_it_in_the_editor(qapp, tmp_path, monkeypatch):
    """`sudoku-lab gui CLASHFILE` as a puzzle with no solution does: the window opens, the editor shows the
    puzzle with the clashing cells outlined and the reason in red (it exited 2 without a window)."""
    import sys
    import threading
    from pathlib import Path

    from PySide6.QtCore import QSettings, QTimer

    from sudoku_lab import cli
    from sudoku_lab_ui.app import run_app
    from sudoku_lab_ui.main_window import MainWindow

    clash = tmp_path / "clash.txt"
    clash.write_text("5.867.4.24.23...9.37..2.......4...5.89.251.67.1...3.......9..73.3...52.17.5.329.5\n")
    # run_app saves the window's layout in QSettings and installs its exception hooks: both stay in the test
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    names = qapp.applicationName(), qapp.organizationName()
    fmt, scope = QSettings.Format.NativeFormat, QSettings.Scope.UserScope
    QSettings.setPath(fmt, scope, str(tmp_path / "settings"))
    seen, state = {}, {"done": False, "t0": time.monotonic()}

    def look():  # runs inside run_app's event loop: wait for the editor, note what it shows, close like a user
        if state["done"]:
            return
        wins = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        if wins and wins[0].is_editing() and wins[0].puzzle_panel.error_label.text():
            win = wins[0]
            seen.update(
                cells=set(win.board.highlighted_cells()),
                error=win.puzzle_panel.error_label.text(),
                editable=win.board.is_editable(),
            )
            win.close()
        elif time.monotonic() - state["t0"] > 120:
            for w in wins:
                w.close()
        else:
            QTimer.singleShot(50, look)

    QTimer.singleShot(0, look)
    try:
        status = run_app(cli.gui_options(["gui", str(clash)]))
    finally:
        state["done"] = True
        qapp.setApplicationName(names[0])
        qapp.setOrganizationName(names[1])
        QSettings.setPath(fmt, scope, os.environ.get("XDG_CONFIG_HOME", str(Path.home() / ".config")))
    assert status == 0
    assert seen, "the window never showed the puzzle in its editor"
    assert seen["editable"] and seen["cells"] == {74, 80}
    assert "givens clash: r9c3 and r9c9 both hold 5" in seen["error"]


def test_the_window_starts_from_the_command_lines_default_seed(window):
    """`sudoku-lab solve --algo X` and the window's first run must be the same run."""
    from sudoku_lab import cli

    win = window()
    cli_default = cli.build_parser().parse_args(["solve", "x"]).seed
    assert win.seed_box.value() == win.controller.seed == cli_default
    from sudoku_lab.solvers import DEFAULT_SEED  # the one place both read it from

    assert cli_default == DEFAULT_SEED
    win.close()


def test_the_puzzle_browser_says_whose_difficulty_rating_it_shows(window):
    """Debian qqwing rates the RESEDA paper's hard puzzle "simple": the column must say the rating is qqwing's."""
    win = window()
    panel = win.puzzle_panel
    panel.select_collection("papers")
    model = panel.model
    headers = [model.headerData(c, Qt.Horizontal) for c in range(model.columnCount())]
    col = next(c for c, h in enumerate(headers) if "qqwing" in h.lower())
    assert "qqwing" in model.headerData(col, Qt.Horizontal, Qt.ToolTipRole)
    row = next(r for r in range(model.rowCount()) if model.item(r, 0).text() == "reseda_fig4_1_hard")
    assert model.item(row, col).text() == "simple" and "qqwing" in model.item(row, col).toolTip()
    assert not panel.table.isColumnHidden(col)
    win.close()


def test_gui_seed_and_parameter_options_make_the_first_run_the_one_solve_makes(qapp, tmp_path, monkeypatch):
    """`sudoku-lab gui PUZZLE --algo reseda --seed 1 --alpha 0.5`: the window's first run is the one `solve` makes with
    those options (it was refused: "unrecognized arguments: --seed 1")."""
    import sys
    import threading
    from pathlib import Path

    from PySide6.QtCore import QSettings, QTimer

    from sudoku_lab import cli
    from sudoku_lab.solvers import create
    from sudoku_lab.testing import assert_snapshots_equal
    from sudoku_lab_ui.app import run_app
    from sudoku_lab_ui.main_window import MainWindow

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    names = qapp.applicationName(), qapp.organizationName()
    fmt, scope = QSettings.Format.NativeFormat, QSettings.Scope.UserScope
    QSettings.setPath(fmt, scope, str(tmp_path / "settings"))
    seen, state = {}, {"done": False, "t0": time.monotonic()}

    def look():  # inside run_app's event loop: wait for the first frame, note what the window shows, close
        if state["done"]:
            return
        wins = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        c = wins[0].controller if wins else None
        if c is not None and c.latest is not None and c.state == "idle" and c.worker.solver is not None:
            win = wins[0]
            seen.update(
                box=win.seed_box.value(),
                seed=c.seed,
                solver_seed=c.worker.solver.seed,
                alpha=win.params_panel.value("alpha"),
                snapshot=c.latest.snapshot,
            )
            win.close()
        elif time.monotonic() - state["t0"] > 120:
            for w in wins:
                w.close()
        else:
            QTimer.singleShot(50, look)

    QTimer.singleShot(0, look)
    try:
        argv = ["gui", "reseda_fig3_1_easy", "--algo", "reseda", "--seed", "1", "--alpha", "0.5"]
        status = run_app(cli.gui_options(argv))
    finally:
        state["done"] = True
        qapp.setApplicationName(names[0])
        qapp.setOrganizationName(names[1])
        QSettings.setPath(fmt, scope, os.environ.get("XDG_CONFIG_HOME", str(Path.home() / ".config")))
    assert status == 0 and seen, "the window never showed its first run"
    assert seen["box"] == seen["seed"] == seen["solver_seed"] == 1
    assert seen["alpha"] == 0.5 and seen["snapshot"].params["alpha"] == 0.5
    ref = create("reseda", alpha=0.5)
    ref.reset(library.puzzle("reseda_fig3_1_easy"), seed=1)
    assert_snapshots_equal(seen["snapshot"], ref.snapshot(), "the first run is solve's")


def test_the_run_keys_work_after_typing_in_a_box(window, qtbot):
    """Before: after typing a seed, Space did nothing (the seed box kept the focus and swallowed it), and Esc
    there stopped the run. Now Space in a number box commits it and runs; Enter or Esc hand the keys back to
    the board (Esc putting back the value in force); a space still types in a text field."""
    from PySide6.QtWidgets import QApplication

    win = window("ai_escargot")
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win)
    c = win.controller
    box = win.seed_box
    box.setFocus()
    qtbot.waitUntil(box.hasFocus)
    box.lineEdit().selectAll()
    qtbot.keyClicks(box, "7")  # typed, not entered
    assert c.seed == 0
    qtbot.keyClick(box, Qt.Key_Space)  # Space: the seed applies, then the run goes
    qtbot.waitUntil(lambda: c.state == "running" or (c.latest is not None and c.latest.snapshot.done))
    assert c.seed == 7 and c.worker.solver.seed == 7 and not box.hasFocus()
    qtbot.keyClick(win, Qt.Key_Space)  # the board has the keys: Space pauses
    qtbot.waitUntil(lambda: c.state in ("idle", "finished"))
    # Enter in Step N: committed, the board has the keys, Shift+Right steps that many
    win.act_reset.trigger()
    qtbot.waitUntil(lambda: c.state == "idle" and iteration(win) == 0 and win.settled())
    win.step_n.setFocus()
    qtbot.waitUntil(win.step_n.hasFocus)
    win.step_n.lineEdit().selectAll()
    qtbot.keyClicks(win.step_n, "3")
    qtbot.keyClick(win.step_n, Qt.Key_Return)
    qtbot.waitUntil(lambda: not win.step_n.hasFocus())
    qtbot.keyClick(win, Qt.Key_Right, Qt.ShiftModifier)
    qtbot.waitUntil(lambda: iteration(win) == 3 and win.settled())
    # Esc in a box: the value in force comes back, the run is not stopped
    win.step_n.setFocus()
    qtbot.waitUntil(win.step_n.hasFocus)
    win.step_n.lineEdit().selectAll()
    qtbot.keyClicks(win.step_n, "99")
    qtbot.keyClick(win.step_n, Qt.Key_Escape)
    assert win.step_n.text() == "3" and win.step_n.value() == 3 and not win.step_n.hasFocus()
    assert c.state == "idle"
    qtbot.keyClick(win, Qt.Key_Right)
    qtbot.waitUntil(lambda: iteration(win) == 4 and win.settled())
    # A text field keeps its spaces
    edit = win.puzzle_panel.filter_edit
    edit.setFocus()
    qtbot.waitUntil(edit.hasFocus)
    qtbot.keyClicks(edit, "ai esc")
    assert edit.text() == "ai esc" and c.state == "idle" and iteration(win) == 4


def _answer_keep_box(qtbot, win, name: str) -> None:
    """Click button ``name`` (keep_run_save, keep_run_discard, keep_run_cancel) of the "worth keeping" question."""
    from PySide6.QtWidgets import QAbstractButton

    qtbot.waitUntil(lambda: win.keep_run_box is not None and win.keep_run_box.isVisible())
    box = win.keep_run_box
    button = box.findChild(QAbstractButton, name)
    qtbot.mouseClick(button, Qt.LeftButton)
    qtbot.waitUntil(lambda: not box.isVisible())


@pytest.mark.parametrize("answer", ["keep_run_cancel", "keep_run_discard", "keep_run_save"])
def test_choosing_another_algorithm_asks_before_dropping_a_run_worth_keeping(
    window, qtbot, tmp_path, monkeypatch, answer
):
    """Before: choosing another algorithm dropped any run silently, a long one or one with a parameter changed
    during it included. A short run is still replaced without a question (the same seed remakes it)."""
    from PySide6.QtWidgets import QFileDialog

    from sudoku_lab.stepping.session import load_session

    win = window("ai_escargot")
    c, box = win.controller, win.solver_box
    win.step_n.setValue(20)
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    qtbot.waitUntil(lambda: iteration(win) == 20 and win.settled())
    assert win.run_worth_keeping() is None
    win.params_panel.spin_box("alpha").setValue(0.9)  # a live change: a rerun with the seed would not repeat it
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    qtbot.waitUntil(lambda: iteration(win) == 40 and win.settled())
    assert win.run_worth_keeping() == "a parameter was changed during it"
    path = tmp_path / "kept.sls"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), ""))
    box.setCurrentIndex(box.findData("ga"))
    assert "reseda" in win.windowTitle().lower() or "RESEDA" in win.windowTitle()
    text = win.keep_run_box.text() if win.keep_run_box is not None else ""
    assert "EDA step 40" in text and "a parameter was changed during it" in text and "Choosing" in text
    if answer == "keep_run_save":
        with qtbot.waitSignal(win.sessionSaved):
            _answer_keep_box(qtbot, win, answer)
    else:
        _answer_keep_box(qtbot, win, answer)
    if answer == "keep_run_cancel":  # nothing changes: the run, its solver, the box
        qtbot.wait(300)
        assert c.solver_name == "reseda" and box.currentData() == "reseda"
        assert c.worker.solver.name == "reseda" and c.worker.solver.iteration == 40 and iteration(win) == 40
        return
    qtbot.waitUntil(lambda: c.latest is not None and c.latest.snapshot.solver == "ga" and win.settled())
    assert c.solver_name == "ga" and iteration(win) == 0
    if answer == "keep_run_save":  # the run kept as a session, exactly where it was
        session = load_session(path)
        assert (session.solver, session.iteration, session.params["alpha"]) == ("reseda", 40, 0.9)


def test_choosing_another_puzzle_after_a_long_run_asks_first(window, qtbot, monkeypatch):
    """The same for a puzzle from the browser after a run of at least KEEP_SECONDS (made 0 here): Cancel keeps
    the run, Discard loads the puzzle."""
    import sudoku_lab_ui.main_window as mw

    monkeypatch.setattr(mw, "KEEP_SECONDS", 0.0)
    win = window("ai_escargot")
    c = win.controller
    qtbot.keyClick(win, Qt.Key_Right)
    qtbot.waitUntil(lambda: iteration(win) == 1 and win.settled())
    assert win.run_worth_keeping().endswith("s of run time")
    panel = win.puzzle_panel
    panel.select_collection("kennett/hard")
    assert panel.select_puzzle("kennett_hard_007")
    panel.table.activated.emit(panel.table.currentIndex())  # Enter on the row, as a double click
    _answer_keep_box(qtbot, win, "keep_run_cancel")
    qtbot.wait(300)
    assert c.puzzle.name == "ai_escargot" and c.checking is None and iteration(win) == 1
    panel.select_puzzle("kennett_hard_007")
    panel.table.activated.emit(panel.table.currentIndex())
    assert "Loading kennett_hard_007 discards it" in win.keep_run_box.text()
    _answer_keep_box(qtbot, win, "keep_run_discard")
    qtbot.waitUntil(lambda: c.latest is not None and c.latest.snapshot.puzzle.name == "kennett_hard_007")
    assert win.windowTitle().startswith("Sudoku Lab - kennett_hard_007")
