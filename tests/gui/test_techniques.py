"""View > Techniques: the board coloured by the technique each cell needed; the grades dialog's Techniques box."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from sudoku_lab.analysis.difficulty import TECHNIQUE_COLOURS
from sudoku_lab.exact.human import rate
from sudoku_lab.model import library
from sudoku_lab.model.puzzle import Puzzle


def _view_action(win, text: str):
    view = next(a.menu() for a in win.menuBar().actions() if a.text() == "&View")
    return next(a for a in view.actions() if a.text() == text)


def test_the_techniques_overlay_colours_each_free_cell_and_has_a_legend(window, qtbot):
    win = window("kennett_hard_130", "hill_climb")
    board, panel = win.board, win.board_panel
    act = _view_action(win, "Techniques")
    assert act is win.act_techniques and act.isCheckable() and not act.isChecked()
    assert board.cell_colors() == {} and not panel.technique_legend.isVisible()
    act.trigger()
    qtbot.waitUntil(lambda: len(board.cell_colors()) > 0, timeout=10_000)
    p = library.puzzle("kennett_hard_130")
    r = rate(p)
    got = {c: col.name() for c, col in board.cell_colors().items()}
    assert got == {c: TECHNIQUE_COLOURS[t] for c, t in enumerate(r.cell_technique.tolist()) if t >= 0}
    assert sorted(got) == np.flatnonzero(~p.givens).tolist()
    legend = panel.technique_legend
    assert legend.isVisible()
    assert "hard (HoDoKu score 614)" in legend.text() and "X-wing (1)" in legend.text()
    assert "XY-wing (1)" in legend.text() and "full house (19)" in legend.text()
    free = int(np.flatnonzero(~p.givens)[0])

    def corner_colour() -> str:  # a point of the cell away from its digit and its lines
        rect = board.cell_rect(free)
        return board.grab().toImage().pixelColor(int(rect.left()) + 4, int(rect.top()) + 4).name()

    assert corner_colour() == got[free]
    win.act_edit.trigger()  # editing the givens: the plain board
    qtbot.waitUntil(board.is_editable)
    assert corner_colour() != got[free]
    win.act_edit.trigger()
    qtbot.waitUntil(lambda: not board.is_editable() and corner_colour() == got[free], timeout=10_000)
    act.trigger()  # off again
    assert not act.isChecked() and board.cell_colors() == {} and not legend.isVisible()


def test_a_puzzle_with_several_solutions_says_so_in_the_legend(window, qtbot):
    several = Puzzle.parse("1" + "." * 71 + "2" + "." * 8)
    win = window(several, "hill_climb")
    win.act_techniques.trigger()
    legend = win.board_panel.technique_legend
    qtbot.waitUntil(lambda: "several solutions" in legend.text(), timeout=10_000)
    assert win.board.cell_colors() == {}


def test_the_grades_dialog_draws_the_grades_with_techniques(qtbot, tmp_path):
    from sudoku_lab_ui.grades_dialog import GradesDialog

    d = GradesDialog()
    qtbot.addWidget(d)
    d.set_defaults(library.puzzle("reseda_fig3_2_medium"), "hill_climb", {})
    d.runs_box.setValue(4)
    d.budget_box.setValue(60)
    d.jobs_box.setValue(1)
    d.results_edit.setText(str(tmp_path / "d.runs"))
    d.show()
    with qtbot.waitSignal(d.gradesFinished, timeout=120_000):
        qtbot.mouseClick(d.run_button, Qt.LeftButton)
    assert not d.figure.legends  # the plain grade figure
    qtbot.mouseClick(d.techniques_box, Qt.LeftButton)
    assert d.techniques_box.isChecked()
    labels = [t.get_text() for t in d.figure.legends[0].get_texts()]
    r = rate(library.puzzle("reseda_fig3_2_medium"))
    used = sorted({int(t) for t in r.cell_technique.tolist() if t >= 0})
    assert len(labels) == len(used) and labels[0].startswith("full house (easy, ")
    assert "Spearman's rho between the fraction of correct runs and the technique's rank" in d.summary.text()
    qtbot.mouseClick(d.techniques_box, Qt.LeftButton)
    assert not d.figure.legends
