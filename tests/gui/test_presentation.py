"""Presentation mode and the lab's keys, driven with real key presses (offscreen, 1920 x 1080 screen)."""

from __future__ import annotations

import re
from pathlib import Path

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QToolBar

from sudoku_lab.solvers import registry
from sudoku_lab_ui.presentation import CAPTION_BAR, PlotStyler, describe_event
from sudoku_lab_ui.widgets import theme
from sudoku_lab_ui.widgets.convergence import ConvergencePlot

from lab_helpers import button, iteration

pytestmark = pytest.mark.gui

DOCS = Path(__file__).resolve().parents[2] / "docs" / "lab.md"


def _press(qtbot, win, key: str) -> None:
    """Press ``key`` ("F11", "Shift+V", "Ctrl+PgDown") on the window as a user would."""
    combo = QKeySequence(key)[0]
    qtbot.keyClick(win, combo.key(), combo.keyboardModifiers())


def _settle(qtbot, win, action_key: str | None = None) -> None:
    qtbot.waitUntil(win.settled)


def _shown_docks(win) -> list[str]:
    return sorted(d.objectName() for d in win.findChildren(type(win.puzzle_dock)) if d.isVisible())


def _axis(view) -> pg.AxisItem:
    for gv in view.findChildren(pg.GraphicsView):
        for item in gv.scene().items():
            if isinstance(item, pg.AxisItem) and item.isVisible():
                return item
    raise AssertionError("no axis")


def _colour_bar(view) -> pg.ColorBarItem:
    for gv in view.findChildren(pg.GraphicsView):
        for item in gv.scene().items():
            if isinstance(item, pg.ColorBarItem):
                return item
    raise AssertionError("no colour bar")


def _steps(qtbot, win, n: int) -> None:
    start = iteration(win) or 0
    for _ in range(n):
        _press(qtbot, win, "Right")
        qtbot.waitUntil(lambda: win.controller.state == "idle")
    qtbot.waitUntil(lambda: iteration(win) == start + n)
    qtbot.waitUntil(win.settled)


def test_presentation_mode_shows_the_board_and_one_view_large_and_restores_the_layout(window, qtbot):
    win = window("ai_escargot")
    _steps(qtbot, win, 3)  # every view has drawn: the saved layout is the lab's settled one
    state, geometry = bytes(win.saveState()), win.geometry()
    prob = win.views["probability"]
    tick_pt = _axis(prob).style["tickFont"].pointSizeF()
    readout_pt = prob.readout.font().pointSizeF()
    assert _colour_bar(prob.prob_panel).colorMap().name == theme.PROB_COLORMAP

    _press(qtbot, win, "F11")
    p = win.presentation
    qtbot.waitUntil(lambda: win.isFullScreen())
    assert p.active and win.presentation.act_present.isChecked()
    assert _shown_docks(win) == ["dock_probability"]  # exactly the board (central) and the chosen view
    assert win.board.isVisible() and not win.show_best.isVisible()
    assert not win.run_toolbar.isVisible() and not win.menuBar().isVisible() and not win.statusBar().isVisible()
    assert win.findChild(QToolBar, CAPTION_BAR).isVisible()
    # large type: the view's axes and read-out, the caption, the board's digits
    assert _axis(prob).style["tickFont"].pointSizeF() >= 1.5 * tick_pt
    assert prob.readout.font().pointSizeF() >= 1.5 * readout_pt
    assert p.caption.main.font().pointSizeF() >= 1.5 * theme.ui_font(15).pointSizeF()
    # the high-contrast palette: black lines on the board, cividis heatmaps, black axes
    assert win.board.presenting()
    assert win.board._colors["thick_line"].name() == "#000000"
    assert win.board._colors["given_bg"].name().upper() == theme.PRESENTATION["board"]["given_bg"]
    assert _colour_bar(prob.prob_panel).colorMap().name == theme.PRESENTATION["colormap"]
    assert _axis(prob).pen().color().name() == "#000000" and _axis(prob).pen().widthF() >= 2

    _press(qtbot, win, "Right")  # Step works in the mode, and the caption says where the run is
    qtbot.waitUntil(lambda: iteration(win) == 4)
    s = win.controller.latest.snapshot
    qtbot.waitUntil(lambda: f"EDA step {s.iteration:,}, cost {s.cost} (best {s.best_cost})" in p.caption.main.text())
    assert "RESEDA" in p.caption.main.text()
    qtbot.waitUntil(win.settled)

    _press(qtbot, win, "Esc")  # leaves the mode; it does not stop the run
    qtbot.waitUntil(lambda: not win.isFullScreen())
    qtbot.waitUntil(lambda: bytes(win.saveState()) == state)
    assert win.geometry() == geometry
    assert win.controller.state == "idle"
    assert not p.active and not win.board.presenting()
    assert win.puzzle_dock.isVisible() and win.run_toolbar.isVisible() and win.menuBar().isVisible()
    assert not win.findChild(QToolBar, CAPTION_BAR).isVisible()
    assert _axis(prob).style["tickFont"].pointSizeF() == tick_pt
    assert prob.readout.font().pointSizeF() == readout_pt
    assert _colour_bar(prob.prob_panel).colorMap().name == theme.PROB_COLORMAP
    assert win.board._colors["thick_line"].name().upper() == theme.BOARD["thick_line"].upper()
    assert win.act_stop.shortcut().toString() == "Esc"  # Esc stops again outside the mode


def test_cycling_the_view_shows_the_next_view_alone(window, qtbot):
    win = window("ai_escargot")
    _press(qtbot, win, "F11")
    qtbot.waitUntil(lambda: win.isFullScreen())
    keys = win.presentation.view_keys()
    assert keys == ["convergence", "probability", "runs", "ac3"]
    first = win.presentation.shown_view()
    assert first == "probability"
    _press(qtbot, win, "V")
    assert win.presentation.shown_view() == "runs"
    assert _shown_docks(win) == ["dock_runs"]
    qtbot.waitUntil(lambda: win.views["runs"].isVisible())
    _press(qtbot, win, "Shift+V")
    _press(qtbot, win, "Shift+V")
    assert win.presentation.shown_view() == "convergence"
    assert _shown_docks(win) == ["dock_convergence"]
    conv = win.views["convergence"]
    qtbot.waitUntil(lambda: _axis(conv).style["tickFont"] is not None)
    assert _axis(conv).style["tickFont"].pointSizeF() >= 1.5 * 10
    _press(qtbot, win, "F11")
    qtbot.waitUntil(lambda: not win.isFullScreen())
    assert win.presentation.shown_view() is None
    assert _axis(conv).style["tickFont"].pointSizeF() == pytest.approx(10)


def test_the_run_goes_on_in_the_same_worker_while_toggling(window, qtbot):
    win = window("ai_escargot")
    worker = win.controller.worker
    win.speed_box.setCurrentIndex(5)  # 100 steps/s
    _press(qtbot, win, "Space")
    qtbot.waitUntil(lambda: win.controller.state == "running" and (iteration(win) or 0) >= 2)
    _press(qtbot, win, "F11")
    qtbot.waitUntil(lambda: win.isFullScreen())
    at = iteration(win)
    qtbot.waitUntil(lambda: iteration(win) > at + 5)
    qtbot.waitUntil(lambda: f"EDA step {iteration(win):,}" in win.presentation.caption.main.text())
    _press(qtbot, win, "F11")
    qtbot.waitUntil(lambda: not win.isFullScreen())
    at = iteration(win)
    qtbot.waitUntil(lambda: iteration(win) > at + 5)
    assert win.controller.state == "running" and win.controller.worker is worker
    _press(qtbot, win, "Space")
    qtbot.waitUntil(lambda: win.controller.state == "idle")


def test_the_new_keys_drive_the_lab(window, qtbot):
    win = window("reseda_fig3_1_easy")
    speed = win.speed_box.currentIndex()
    _press(qtbot, win, "-")
    assert win.speed_box.currentIndex() == speed - 1
    _press(qtbot, win, "+")
    assert win.speed_box.currentIndex() == speed
    names = [win.puzzle_panel.proxy.index(r, 0).data() for r in range(win.puzzle_panel.proxy.rowCount())]
    here = names.index(win.controller.puzzle.name)
    _press(qtbot, win, "PgDown")
    qtbot.waitUntil(lambda: win.controller.puzzle.name == names[(here + 1) % len(names)])
    _press(qtbot, win, "PgUp")
    qtbot.waitUntil(lambda: win.controller.puzzle.name == names[here])
    algo = win.solver_box.currentIndex()
    _press(qtbot, win, "Ctrl+PgDown")
    qtbot.waitUntil(lambda: win.controller.solver_name == win.solver_box.itemData(algo + 1))
    _press(qtbot, win, "Ctrl+PgUp")
    qtbot.waitUntil(lambda: win.controller.solver_name == win.solver_box.itemData(algo))
    qtbot.waitUntil(lambda: win.controller.state == "idle")


def test_every_listed_key_triggers_its_action(window, qtbot):
    win = window()
    rows = win.shortcut_rows()
    by_key = {k: a for a in win.actions() for k in [a.shortcut().toString(QKeySequence.NativeText)] if k}
    assert [k for k, _ in rows] == list(by_key)
    fired = []
    for key, action in by_key.items():
        action.triggered.disconnect()  # no dialog, no quitting: only that the key reaches the action
        action.setEnabled(True)
        action.triggered.connect(lambda _=False, key=key: fired.append(key))
    for key in by_key:
        _press(qtbot, win, key)
    assert fired == list(by_key)


def test_an_algorithm_chosen_in_the_mode_gets_its_own_view(window, qtbot):
    win = window("ai_escargot")
    _press(qtbot, win, "F11")
    qtbot.waitUntil(lambda: win.isFullScreen())
    idx = win.solver_box.findData("cuckoo")
    while win.solver_box.currentIndex() != idx:
        _press(qtbot, win, "Ctrl+PgDown")
    qtbot.waitUntil(lambda: win.controller.solver_name == "cuckoo")
    qtbot.waitUntil(lambda: win.presentation.shown_view() in win.presentation.view_keys(), timeout=5000)
    shown = win.presentation.shown_view()
    assert shown == "nests"  # the solver's own view first
    qtbot.waitUntil(lambda: _shown_docks(win) == [f"dock_{shown}"], timeout=5000)
    _press(qtbot, win, "F11")
    qtbot.waitUntil(lambda: not win.isFullScreen())
    assert not win.view_docks["probability"].isVisible()  # the lab's layout, for the cuckoo search
    assert win.view_docks["convergence"].isVisible()


def _docs_table(section: str) -> list[tuple[str, str]]:
    text = DOCS.read_text(encoding="utf-8")
    start = text.index(f"## {section}")
    end = text.find("\n## ", start + 1)
    body = text[start : end if end > 0 else len(text)]
    rows = re.findall(r"^\| (.+?) \| (.+?) \|$", body, flags=re.M)
    return [(k.strip("`"), what) for k, what in rows if k != "Key" and not set(k) <= {"-"}]


def test_the_docs_table_lists_every_key_of_the_window(window):
    win = window()
    assert _docs_table("Presentation mode") == win.shortcut_rows()
    # The shorter table higher up names only real keys.
    keys = {k for k, _ in win.shortcut_rows()}
    text = DOCS.read_text(encoding="utf-8")
    head = text[: text.index("## Presentation mode")]
    rows = re.findall(r"^\| (.+?) \| (.+?) \|$", head, flags=re.M)
    assert {k for k, _ in rows if k != "Key" and "-" not in k} <= keys


def test_events_in_words():
    from sudoku_lab.solvers.base import Event

    assert describe_event(Event(300, "param", "alpha", 0.7, 0.9)) == "Iteration 300: alpha changed from 0.7 to 0.9"
    restart = describe_event(Event(1200, "restart", "partial", None, "box 3"))
    assert restart == "Iteration 1,200: partial restart (box 3)"


def test_the_readme_names_every_key_of_the_window(window):
    """The README's table of keys (two keys to a row, `A` / `B` for a pair) holds exactly the window's keys."""
    readme = (DOCS.parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## In the lab") : readme.index("## Documentation")]
    cells = re.findall(r"^\|(.+)\|$", section, flags=re.M)
    keys = set()
    for row in cells:
        for i, cell in enumerate(c.strip() for c in row.split("|")):
            if i % 2 == 0:  # the key columns
                keys.update(re.findall(r"`([^`]+)`", cell))
    assert keys == {k for k, _ in window().shortcut_rows()}


@pytest.mark.parametrize("name", sorted(registry()))
def test_every_curve_of_every_solver_has_its_own_colour_and_style_in_presentation_mode(qtbot, name):
    """Sky blue became bluish green and RESEDA's beta line took rho's colour: rho, the kept samples' mean
    cost and beta were three green lines. Now no two lines of a plot share colour and style, none is yellow,
    and the legend's samples are drawn as their curves."""
    plot = ConvergencePlot()
    qtbot.addWidget(plot)
    plot.resize(900, 500)
    plot.show()
    cls = registry()[name]
    plot.set_solver(cls)
    plot.set_params({p.name: p.default for p in cls.params})
    for c in cls.columns:
        plot.set_column_visible(c.name, True)
    styler = PlotStyler(scale=1.8, line_scale=2.5)
    styler.apply(plot)
    lines = [(k, pg.mkPen(c.opts["pen"])) for k, c in plot.curves.items()]
    lines += [(f"{k[1]} line", t.pen) for k, t in plot.thresholds.items()]
    drawn = [(k, p.color().name().upper(), p.style()) for k, p in lines]
    assert len({(c, s) for _, c, s in drawn}) == len(drawn), drawn
    assert all(c != theme.YELLOW.upper() for _, c, _ in drawn), drawn
    # The legend draws each sample with its PlotDataItem's pen, the one checked above (a curve styled alone
    # left the sample in the old colour).
    assert {id(sample.item) for sample, _ in plot.legend.items} <= {id(c) for c in plot.curves.values()}
    if name == "reseda":
        colours = {k: c for k, c, _ in drawn}
        assert len({colours["rho"], colours["mean_cost"], colours["beta line"]}) == 3, colours
    styler.restore()
    for k, c in plot.curves.items():
        assert pg.mkPen(c.opts["pen"]).color().name().upper() == plot._colours[k].upper()


def test_presentation_styles_are_unique_and_keep_strong_colours():
    own = [(theme.BLUE, "solid"), (theme.SKY_BLUE, "dotted"), (theme.GREEN, "solid"), (theme.GREEN, "dashed")]
    assert theme.presentation_styles(own) == [
        (theme.BLUE, "solid"),
        (theme.ORANGE, "dotted"),
        (theme.GREEN, "solid"),
        (theme.PURPLE, "dashed"),
    ]
    many = [(theme.BLUE, "solid")] * 12  # more lines than colours: styles tell the rest apart
    out = theme.presentation_styles(many)
    assert len(set(out)) == 12 and theme.YELLOW not in {c for c, _ in out}


def test_leaving_the_mode_while_rewound_mid_iteration_redraws_the_curves_at_once(window, qtbot):
    """Leaving reset every view for the solver and drew nothing: the convergence plot stayed blank until the
    next step."""
    win = window("ai_escargot")
    _steps(qtbot, win, 6)
    qtbot.mouseClick(button(win, win.timeline.act_back), Qt.MouseButton.LeftButton)  # Back 1: rewound
    qtbot.waitUntil(lambda: iteration(win) == 5 and win.settled())
    qtbot.mouseClick(button(win, win.act_step_phase), Qt.MouseButton.LeftButton)  # mid-iteration, rewound
    qtbot.waitUntil(lambda: win.controller.latest.phase is not None and win.settled())
    shown = win.controller.latest
    _press(qtbot, win, "F11")
    qtbot.waitUntil(lambda: win.isFullScreen())
    _press(qtbot, win, "F11")
    qtbot.waitUntil(lambda: not win.presentation.active and win.views["convergence"].isVisible())
    assert win.controller.latest is shown  # no new frame came: what is drawn is drawn from what was shown
    curve = win.views["convergence"].curves["cost"]
    assert curve.xData is not None and len(curve.xData) == len(shown.snapshot.trace["iteration"]) > 0
