"""Step phase in the window, driven like a user: the toolbar button and its key, what the views mark, the
caption under the board and in presentation mode, the action greyed out for a solver without phases, and the
parameter form showing the values in force on a rewound timeline."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from sudoku_lab.solvers import create, registry
from sudoku_lab.testing import assert_snapshots_equal
from sudoku_lab_ui.board_panel import describe_phase

from lab_helpers import button, iteration

pytestmark = pytest.mark.gui


def _headless(win):
    """The window's run (solver, parameters, puzzle, seed) without a window, at its start."""
    c = win.controller
    s = create(c.solver_name, **c.current_params())
    s.reset(c.puzzle, seed=c.seed)
    return s


def _press(qtbot, win, key: str) -> None:
    combo = QKeySequence(key)[0]
    qtbot.keyClick(win, combo.key(), combo.keyboardModifiers())


def _steps(qtbot, win, n: int) -> None:
    start = iteration(win)
    for _ in range(n):
        _press(qtbot, win, "Right")
        qtbot.waitUntil(lambda: win.controller.state == "idle")
    qtbot.waitUntil(lambda: iteration(win) == start + n and win.settled())


def _click_phase(qtbot, win, index: int, it: int):
    """Click Step phase; wait until the window shows phase ``index`` of iteration ``it``, drawn everywhere."""
    qtbot.mouseClick(button(win, win.act_step_phase), Qt.LeftButton)

    def shown():
        p = win.controller.latest.phase if win.controller.latest is not None else None
        return p is not None and (p.iteration, p.index) == (it, index) and win.settled()

    qtbot.waitUntil(shown)
    return win.controller.latest


def test_step_phase_through_a_reseda_iteration_equals_one_step_and_marks_what_each_phase_changed(window, qtbot):
    win = window("ai_escargot")
    assert win.act_step_phase.isEnabled() and win.act_step_phase.shortcut().toString() == "Ctrl+Right"
    _steps(qtbot, win, 3)
    ref = _headless(win)
    ref.step(3)
    cls = registry()["reseda"]
    prob = win.views["probability"]
    caption = win.board_panel.phase_caption
    names = []
    for k in range(len(cls.phases)):
        prog = _click_phase(qtbot, win, k, 4)
        want = ref.step_phase()
        got = prog.phase
        names.append(got.name)
        assert (got.name, got.caption, got.ended) == (want.name, want.caption, want.ended)
        assert got.changed.keys() == want.changed.keys()
        for key in want.changed:
            np.testing.assert_array_equal(got.changed[key], want.changed[key])
        assert_snapshots_equal(prog.snapshot, ref.snapshot(), f"after phase {k}")
        # the line under the board
        assert caption.isVisible()
        assert caption.text() == f"EDA step 4, phase {k + 1}/4 ({want.name}): {want.caption}"
        assert caption.text() == describe_phase(cls, got)
        # the board outlines the cells the phase changed, the model the rows it moved
        cells = got.changed.get("cells")
        assert win.board.highlighted_cells() == frozenset(np.flatnonzero(cells) if cells is not None else ())
        rows = got.changed.get("rows")
        np.testing.assert_array_equal(prob.marked_rows(), np.flatnonzero(rows) if rows is not None else [])
        if k == 0:
            assert len(win.board.highlighted_cells()) > 0  # the sample changed cells
        if k == 2:
            assert len(prob.marked_rows()) > 0  # the update moved rows of p
        if got.ended:
            break
    assert names == ["sample", "select", "update", "restart check"]
    assert iteration(win) == 4
    one = _headless(win)
    one.step(4)
    assert_snapshots_equal(win.controller.latest.snapshot, one.snapshot(), "four phases = one Step")
    # the next whole step clears the marks; its line says what the step did
    _steps(qtbot, win, 1)
    assert win.controller.latest.phase is None
    qtbot.waitUntil(lambda: caption.text().startswith("EDA step 5 (Step 1): cost (missing symbols) "))
    assert caption.isVisible() and win.board.highlighted_cells() == frozenset()
    assert len(prob.marked_rows()) == 0
    assert_snapshots_equal(win.controller.latest.snapshot, (one.step(1), one.snapshot())[1])


def test_the_cuckoo_nests_view_marks_the_nests_abandoned(window, qtbot):
    win = window("mk_hard_a", "cuckoo")
    nests = win.views["nests"]
    win.view_docks["nests"].raise_()
    qtbot.waitUntil(nests.isVisible)
    ref = _headless(win)
    for k in range(len(registry()["cuckoo"].phases)):
        prog = _click_phase(qtbot, win, k, 1)
        want = ref.step_phase()
        np.testing.assert_array_equal(prog.phase.changed["members"], want.changed["members"])
        np.testing.assert_array_equal(nests.marked, want.changed["members"])
    assert prog.phase.name == "abandon" and prog.phase.ended and len(nests.marked) > 0
    assert f"phase abandon: nests {int(nests.marked[0]) + 1}" in nests.readout.text()
    _steps(qtbot, win, 1)
    assert len(nests.marked) == 0


def test_step_phase_is_greyed_out_for_a_solver_without_phases(window, qtbot):
    win = window("reseda_fig3_1_easy", "exact")
    assert not registry()["exact"].phases
    assert not win.act_step_phase.isEnabled() and not button(win, win.act_step_phase).isEnabled()
    _press(qtbot, win, "Ctrl+Right")  # the key does nothing either
    qtbot.wait(200)
    assert win.controller.latest.phase is None and iteration(win) == 0
    win.solver_box.setCurrentIndex(win.solver_box.findData("reseda"))
    qtbot.waitUntil(lambda: win.controller.state == "idle" and win.act_step_phase.isEnabled())
    assert button(win, win.act_step_phase).isEnabled()


def test_presentation_caption_shows_the_phase_in_large_words(window, qtbot):
    win = window("ai_escargot")
    _press(qtbot, win, "F11")
    qtbot.waitUntil(win.isFullScreen)
    _press(qtbot, win, "Ctrl+Right")
    qtbot.waitUntil(lambda: win.controller.latest.phase is not None and win.settled())
    step = win.controller.latest.phase
    main = win.presentation.caption.main
    cls = registry()["reseda"]
    full = f"{cls.title}: {describe_phase(cls, step)}"
    qtbot.waitUntil(lambda: main.full_text() == full)
    assert main.toolTip() == full
    # Whole: wrapped at words, every line within the label, every line's height given (it fits three lines).
    lines = main.lines()
    assert " ".join(lines) == full and len(lines) >= 1
    assert max(main.fontMetrics().horizontalAdvance(line) for line in lines) <= main.contentsRect().width()
    assert main.height() >= len(lines) * main.fontMetrics().lineSpacing()
    _press(qtbot, win, "Esc")
    qtbot.waitUntil(lambda: not win.isFullScreen())


def test_the_parameter_form_shows_the_values_in_force_when_rewound(window, qtbot):
    win = window("ai_escargot")
    panel, c = win.params_panel, win.controller
    win.step_n.setValue(20)
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    qtbot.waitUntil(lambda: iteration(win) == 20 and win.settled())
    panel.spin_box("alpha").setValue(0.9)  # typed in the form: recorded at 20
    qtbot.waitUntil(lambda: c.latest.snapshot.params["alpha"] == 0.9)
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    qtbot.waitUntil(lambda: iteration(win) == 40 and win.settled())
    win.step_n.setValue(25)
    _press(qtbot, win, "Shift+Left")  # Back N: iteration 15, before the change
    qtbot.waitUntil(lambda: iteration(win) == 15 and win.settled())
    assert panel.value("alpha") == pytest.approx(0.7)
    assert panel.rewound_label.isVisible() and "EDA step 15 (rewound)" in panel.rewound_label.text()
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)  # replay to the live end
    qtbot.waitUntil(lambda: iteration(win) == 40 and win.settled())
    assert panel.value("alpha") == pytest.approx(0.9) and not panel.rewound_label.isVisible()
    # A change while rewound continues from there: the values in force there, not the recorded run's later ones.
    win.step_n.setValue(30)
    _press(qtbot, win, "Shift+Left")
    qtbot.waitUntil(lambda: iteration(win) == 10 and win.settled())
    panel.spin_box("Q1").setValue(12)
    qtbot.waitUntil(lambda: c.latest.snapshot.params["Q1"] == 12 and c.timeline_info.furthest == 10)
    assert c.current_params()["alpha"] == pytest.approx(0.7) and panel.value("alpha") == pytest.approx(0.7)
    assert not panel.rewound_label.isVisible()


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_the_timeline_label_is_never_cut(window, qtbot, size):
    """Its text fits its width whole at 1280 x 800 and 1920 x 1080 (a shorter form on a narrow window), the bar keeps
    most of the panel, and the tooltip holds everything."""
    win = window("ai_escargot")
    win.resize(*size)
    win.step_n.setValue(30)
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    qtbot.waitUntil(lambda: iteration(win) == 30 and win.settled())
    _press(qtbot, win, "Left")
    qtbot.waitUntil(lambda: iteration(win) == 29 and win.settled())
    t = win.timeline
    qtbot.waitUntil(lambda: t.panel.width() > 0 and t.label.width() <= 0.45 * t.panel.width() + 1)
    text = t.label.text()
    assert text.startswith("29") and "rewound" in text
    assert t.label.fontMetrics().horizontalAdvance(text) <= t.label.contentsRect().width()
    assert t.bar.width() >= t.label.width() // 2
    assert "bytes" in t.label.toolTip()
    if size == (1920, 1080):
        assert text.startswith("29 of 30 (rewound) · ") and text.endswith(" of 200 MB")


def test_a_parameter_changed_mid_iteration_applies_when_the_iteration_ends(window, qtbot):
    win = window("ai_escargot")
    c = win.controller
    _click_phase(qtbot, win, 0, 1)
    with qtbot.waitSignal(c.message, check_params_cb=lambda text: "applies when EDA step 1 ends" in text):
        win.params_panel.spin_box("alpha").setValue(0.9)
    _click_phase(qtbot, win, 1, 1)
    assert c.latest.snapshot.params["alpha"] == 0.7  # not in the middle of the iteration
    _click_phase(qtbot, win, 2, 1)
    _click_phase(qtbot, win, 3, 1)  # the iteration ends: the change is made there
    assert c.latest.snapshot.params["alpha"] == 0.9
    ref = _headless(win)  # alpha 0.9 in the controller's parameters: start the reference at 0.7
    ref.set_params(alpha=0.7)
    ref.step(1)
    ref.set_params(alpha=0.9)
    s = c.latest.snapshot
    assert [(e.iteration, e.name, e.new) for e in s.events if e.kind == "param"][-1] == (1, "alpha", 0.9)
    _steps(qtbot, win, 2)
    ref.step(2)
    assert c.latest.snapshot.trace["cost"].tolist() == ref.snapshot().trace["cost"].tolist()


def test_the_population_view_marks_the_members_and_the_selection_of_a_phase(qtbot):
    from sudoku_lab.solvers import PhaseStep
    from sudoku_lab_ui.solver_views.population import PopulationView

    view = PopulationView()
    qtbot.addWidget(view)
    values = np.array([5.0, 3.0, 9.0, 4.0, 7.0])
    view.set_values(values)
    step = PhaseStep(
        2, 1, "replace", "two replaced", {"members": np.array([4, 0]), "selected": np.array([1, 3])}, False
    )
    view.set_phase_marks(step, values)
    assert view.marked["members"].tolist() == [4, 0] and view.marked["selected"].tolist() == [1, 3]
    assert view.phase_marks["members"].getData()[0].tolist() == [7.0, 5.0]
    assert "this phase: 2 replaced, 2 selected" in view.summary.text()
    other = PhaseStep(2, 0, "sample", "samples", {"selected": np.array([1, 40])}, False)  # not population indices
    view.set_phase_marks(other, values)
    assert view.marked["selected"].size == 0 and view.marked["members"].size == 0
    view.set_phase_marks(None, values)
    assert view.phase_marks["members"].getData()[0].size == 0


def _pixel(image, x: float, y: float):
    c = image.pixelColor(int(x), int(y))
    return np.array([c.red(), c.green(), c.blue()])


def _near(got, hex_colour: str, tol: int = 40) -> bool:
    from PySide6.QtGui import QColor

    want = QColor(hex_colour)
    return bool(np.abs(got - np.array([want.red(), want.green(), want.blue()])).max() <= tol)


@pytest.mark.parametrize("presenting", [False, True], ids=["normal", "presentation"])
def test_changed_cells_and_conflicts_differ_in_colour_and_in_shape(window, qtbot, presenting):
    """Before: the cells a phase changed were outlined and tinted in vermillion, the colour of conflicting digits,
    and a conflict was marked by colour alone outside presentation mode."""
    from sudoku_lab_ui.widgets import theme

    win = window("mk_hard_a", "hill_climb")
    if presenting:
        _press(qtbot, win, "F11")
        qtbot.waitUntil(win.isFullScreen)
    board = win.board
    phases = registry()["hill_climb"].phases
    for k in range(2 * len(phases)):  # phase by phase until one moves cells
        _click_phase(qtbot, win, k % len(phases), 1 + k // len(phases))
        if board.highlighted_cells():
            break
    changed = sorted(board.highlighted_cells())
    conflicts = [int(c) for c in board.conflict_cells() if c not in changed]
    assert changed and conflicts
    palette = {**theme.BOARD, **(theme.PRESENTATION["board"] if presenting else {})}
    assert not board.highlight_filled()
    assert board.highlight_color().name().upper() == palette["changed"].upper()
    assert palette["changed"].upper() != palette["conflict_fg"].upper()
    image = board.grab().toImage()
    width = max(2.0, board.board_rect().width() / 9 / 14)
    for cell in changed:  # a blue outline, the cell's middle left as it was
        r = board.cell_rect(cell)
        edge = _pixel(image, r.left() + width / 2 + 1, r.center().y())
        assert _near(edge, palette["changed"]), (cell, edge)
        corner = _pixel(image, r.left() + r.width() * 0.12, r.top() + r.height() * 0.12)
        assert not _near(corner, palette["changed"], 60) and not _near(corner, palette["conflict_fg"], 60)
    for cell in conflicts:  # a vermillion digit, underlined
        mark = board.conflict_mark_rect(cell).center()
        assert _near(_pixel(image, mark.x(), mark.y()), palette["conflict_fg"]), cell
    if presenting:
        _press(qtbot, win, "F11")
        qtbot.waitUntil(lambda: not win.isFullScreen())


def test_a_whole_iteration_step_says_what_it_did_and_numbers_its_phases_as_the_status_bar(window, qtbot):
    """Before: Step wrote no line under the board and "Iteration budget reached." came after every Step N; the
    phase line said "EDA step 17" while the status bar said "it 16" of the same moment."""
    from sudoku_lab_ui.board_panel import describe_steps

    win = window("mk_hard_b", "ac3_tabu")
    qtbot.waitUntil(lambda: win.controller.latest.snapshot.solver == "ac3_tabu")
    win.seed_box.setValue(2)  # a run that goes on past 12 iterations
    qtbot.waitUntil(lambda: win.controller.state == "idle" and iteration(win) == 0 and win.settled())
    cls = registry()["ac3_tabu"]
    caption, status = win.board_panel.phase_caption, win.statusBar()
    before = win.controller.latest.snapshot
    status.clearMessage()
    _steps(qtbot, win, 1)
    after = win.controller.latest.snapshot
    qtbot.waitUntil(lambda: caption.isVisible())
    assert caption.text() == describe_steps(cls, before, after)
    assert caption.text().startswith("iteration 1 (Step 1): cost (open cells (domains that are not a single digit)) ")
    assert "moves +1" in caption.text() or "wipeouts +" in caption.text()
    assert "budget" not in status.currentMessage()
    win.step_n.setValue(10)
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    qtbot.waitUntil(lambda: iteration(win) == 11 and win.settled())
    qtbot.waitUntil(lambda: caption.text().startswith("iterations 2 to 11 (Step 10): cost "))
    assert "budget" not in status.currentMessage()
    assert win.status_labels["iteration"].text() == "iteration 11"
    # A phase of the iteration under way: the twelfth, in the line and in the status bar alike.
    prog = _click_phase(qtbot, win, 0, 12)
    assert prog.snapshot.iteration == 11
    assert caption.text().startswith("iteration 12, phase 1/4 (candidates): ")
    assert win.status_labels["iteration"].text() == "iteration 12, phase 1/4"
    for k in (1, 2, 3):
        prog = _click_phase(qtbot, win, k, 12)
    assert prog.phase.ended and win.status_labels["iteration"].text() == "iteration 12"
    # A budget reached says so: the Run box's, then the solver's own.
    win.until_box.setCurrentIndex(1)
    win.until_value.setValue(3)
    qtbot.mouseClick(button(win, win.act_run), Qt.LeftButton)
    qtbot.waitUntil(lambda: iteration(win) == 15 and win.settled())
    qtbot.waitUntil(lambda: status.currentMessage() == "Iteration budget reached: 3 iterations (the Run box).")
    win.params_panel.spin_box("iterations").setValue(17)
    win.until_box.setCurrentIndex(0)
    qtbot.mouseClick(button(win, win.act_run), Qt.LeftButton)
    qtbot.waitUntil(lambda: win.controller.state == "finished")
    qtbot.waitUntil(
        lambda: status.currentMessage() == "Iteration budget reached: 17 iterations (iterations = 17), not solved."
    )
