"""The timeline driven like a user: drag the bar, Back 1 / Back N, continue from there, branch, the memory setting."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from sudoku_lab.solvers import create
from sudoku_lab.testing import assert_snapshots_equal
from sudoku_lab_ui.timeline import MemoryLimitDialog

from lab_helpers import button, iteration  # noqa: E402

pytestmark = pytest.mark.gui


def _headless(win, *stops):
    """The same run (solver, parameters, puzzle, seed) without a window: its snapshots after each of ``stops``."""
    c = win.controller
    s = create(c.solver_name, **c.current_params())
    s.reset(c.puzzle, seed=c.seed)
    out = {}
    for stop in stops:
        s.step(stop - s.iteration)
        out[stop] = s.snapshot()
    return out


def _settle(qtbot, win, it):
    """Wait until the window shows iteration ``it``, idle, its frame drawn everywhere."""
    qtbot.waitUntil(lambda: iteration(win) == it and win.settled())


def _run_for(qtbot, win, n):
    """Run "for N iterations" with the toolbar, as a user does; wait for its end."""
    win.until_box.setCurrentIndex(1)
    win.until_value.setValue(n)
    start = iteration(win)
    with qtbot.waitSignal(win.controller.runEnded):
        qtbot.mouseClick(button(win, win.act_run), Qt.LeftButton)
    _settle(qtbot, win, start + n)


def _drag(qtbot, bar, start, end):
    y = bar.height() // 2
    qtbot.mousePress(bar, Qt.LeftButton, pos=QPoint(bar.x_of(start), y))
    qtbot.mouseMove(bar, QPoint((bar.x_of(start) + bar.x_of(end)) // 2, y))
    qtbot.mouseMove(bar, QPoint(bar.x_of(end), y))
    qtbot.mouseRelease(bar, Qt.LeftButton, pos=QPoint(bar.x_of(end), y))


def test_drag_back_step_back_and_continue_from_there_show_the_exact_run(window, qtbot):
    win = window("ai_escargot")
    c, bar = win.controller, win.timeline.bar
    ref = _headless(win, 99, 109, 119, 120, 300)
    _run_for(qtbot, win, 300)
    first_end = c.latest.snapshot
    assert_snapshots_equal(first_end, ref[300], "the window's run is the headless one")
    assert (bar.origin, bar.furthest, bar.iteration) == (0, 300, 300)
    assert "rewound" not in win.status_labels["iteration"].text()

    _drag(qtbot, bar, 250, 120)
    _settle(qtbot, win, 120)
    assert_snapshots_equal(c.latest.snapshot, ref[120], "dragged to 120")
    grid = ref[120].best_grid if win.show_best.isChecked() else ref[120].grid
    assert np.array_equal(win.board.shown_digits(), np.where(c.puzzle.grid > 0, c.puzzle.grid, grid))
    assert not np.array_equal(ref[120].grid, ref[300].grid)  # the board really went back
    assert win.status_labels["iteration"].text() == "iteration 120 of 300 (rewound)"
    conv = win.views["convergence"]
    assert conv.cursor_iteration() == 120.0
    assert conv.x_range()[1] >= 300  # the curves' range still spans the recorded run
    assert c.state == "idle" and bar.furthest == 300

    qtbot.mouseClick(button(win, win.timeline.act_back), Qt.LeftButton)  # Back 1
    _settle(qtbot, win, 119)
    assert_snapshots_equal(c.latest.snapshot, ref[119], "Back 1")
    win.step_n.setValue(10)
    qtbot.mouseClick(button(win, win.timeline.act_back_n), Qt.LeftButton)  # Back N
    _settle(qtbot, win, 109)
    assert_snapshots_equal(c.latest.snapshot, ref[109], "Back N")
    qtbot.keyClick(win, Qt.Key_Left, Qt.ShiftModifier)  # Back N's shortcut
    _settle(qtbot, win, 99)
    assert_snapshots_equal(c.latest.snapshot, ref[99], "Shift+Left")

    _run_for(qtbot, win, 201)  # continue from here: the recorded run is replayed
    assert_snapshots_equal(c.latest.snapshot, first_end, "continued from 99 to 300")
    assert bar.furthest == 300 and "rewound" not in win.status_labels["iteration"].text()
    assert conv.cursor_iteration() is None


def test_a_parameter_change_is_a_mark_and_after_a_rewind_it_branches(window, qtbot):
    win = window("ai_escargot")
    c, bar = win.controller, win.timeline.bar
    win.step_n.setValue(200)
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    _settle(qtbot, win, 200)
    win.params_panel.spin_box("alpha").setValue(0.9)
    qtbot.waitUntil(lambda: c.latest.snapshot.params["alpha"] == 0.9)
    _run_for(qtbot, win, 100)
    qtbot.waitUntil(lambda: any(m.kind == "param" for m in bar.markers()))
    params = [m for m in bar.markers() if m.kind == "param"]
    assert [(m.iteration, m.label) for m in params] == [(200.0, "alpha 0.7 -> 0.9")]

    _drag(qtbot, bar, 300, 120)
    _settle(qtbot, win, 120)
    assert c.latest.snapshot.params["alpha"] == 0.7  # the state at 120, before the change
    assert c.timeline_info.furthest == 300
    win.params_panel.spin_box("alpha").setValue(0.8)  # a change after a rewind: a new branch
    qtbot.waitUntil(lambda: c.timeline_info is not None and c.timeline_info.furthest == 120)
    qtbot.waitUntil(
        lambda: [(m.iteration, m.label) for m in bar.markers() if m.kind == "param"] == [(120.0, "alpha 0.7 -> 0.8")]
    )
    assert "rewound" not in win.status_labels["iteration"].text()
    _run_for(qtbot, win, 30)
    assert c.timeline_info.furthest == 150 and c.latest.snapshot.params["alpha"] == 0.8


def test_the_memory_limit_setting_reaches_the_next_runs_history(window, qtbot):
    win = window("ai_escargot")
    c = win.controller
    assert c.worker.history.memory_limit == 200_000_000  # the default
    win.timeline.act_memory.trigger()  # Run > History memory limit...
    dlg = win.findChild(MemoryLimitDialog, "memory_dialog")
    assert dlg is not None and dlg.spin.value() == 200
    dlg.spin.setValue(3)
    dlg.accept()
    assert win.timeline.memory_limit_mb() == 3
    with qtbot.waitSignal(c.stateChanged, check_params_cb=lambda state: state == "idle"):
        qtbot.mouseClick(button(win, win.act_reset), Qt.LeftButton)
    qtbot.waitUntil(lambda: c.timeline_info is not None and c.timeline_info.memory_limit == 3_000_000)
    assert c.worker.history.memory_limit == 3_000_000
    assert "of 3.0 MB" in win.timeline.label.text()


def test_a_session_record_still_being_checked_is_hatched_and_said(window, qtbot):
    """Issue 27: the stretches of a reopened session's record that no replay has confirmed yet are drawn hatched,
    and the label and its tooltip say the record is being checked."""
    from sudoku_lab_ui.worker import TimelineInfo

    win = window("ai_escargot")
    t = win.timeline
    t.on_timeline(TimelineInfo(45, 0, 60, (), 1_000, 2_000, unverified=((10, 45), (45, 60))))
    assert t.bar.unverified == ((10, 45), (45, 60))
    assert "checking" in t.label.text() and "memory" not in t.label.text()
    assert t.label.toolTip().endswith(
        "; 50 iterations of the session's recorded run are still being checked against its replay (hatched)"
    )
    image = t.bar.grab().toImage()
    y = t.bar.height() // 2

    def orange(x0, x1):
        return sum(
            1
            for x in range(x0, x1)
            for dy in range(-3, 4)
            if (lambda c: c.red() > 180 and 120 < c.green() < 190 and c.blue() < 90)(image.pixelColor(x, y + dy))
        )

    assert orange(t.bar.x_of(12), t.bar.x_of(58)) > 10  # the hatch
    assert orange(t.bar.x_of(1), t.bar.x_of(9)) == 0  # confirmed: not hatched
    t.on_timeline(TimelineInfo(45, 0, 60, (), 1_000, 2_000, unverified=()))
    assert "checking" not in t.label.text() and t.bar.unverified == ()
    win.close()
