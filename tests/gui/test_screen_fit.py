"""The window on a 1366x768 laptop and a 1920x1080 desktop: it fits the screen, and nothing in it is cut.

The offscreen platform has both screens (tests/gui/screens.json, set up by
tests/conftest.py). For every solver, chosen in the window as a user would,
after a few iterations, with each dock of each tab group brought to the front
in turn: the window's frame lies inside the screen's available area, no dock's
content is wider than the dock, no word-wrapped label is shorter than its
text, and in every plot the laid-out items and the axis titles stay inside
the view.
"""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication, QLabel, QScrollArea

from sudoku_lab.model import library
from sudoku_lab.solvers import registry

from lab_helpers import wait_ready

pytestmark = pytest.mark.gui


def _screen(name: str):
    found = [s for s in QApplication.screens() if s.name() == name]
    assert found, (
        f"no offscreen screen {name!r}: is QT_QPA_PLATFORM {QApplication.platformName()!r} "
        "configured by tests/conftest.py?"
    )
    return found[0]


def _open_on(qtbot, screen, puzzle="mk_hard_a"):
    from sudoku_lab_ui.app import create_window

    win = create_window(library.puzzle(puzzle))
    qtbot.addWidget(win)
    win.setScreen(screen)  # opened there, placed near the corner as a window manager would
    win.move(screen.availableGeometry().topLeft() + QPoint(40, 30))
    win.show()
    wait_ready(qtbot, win)
    return win


def _choose(qtbot, win, algo: str, steps: int = 25) -> None:
    """Pick ``algo`` in the solver box and run ``steps`` iterations with Step N, as a user would."""
    box = win.solver_box
    box.setCurrentIndex(box.findData(algo))
    qtbot.waitUntil(
        lambda: (
            win.controller.state == "idle"
            and win.controller.latest is not None
            and win.controller.latest.snapshot.solver == algo
        ),
        timeout=120_000,
    )
    if not win.controller.latest.snapshot.done:  # the exact solver is done at its first frame
        win.step_n.setValue(steps)
        win.act_step_n.trigger()
        qtbot.waitUntil(
            lambda: win.controller.latest.snapshot.iteration >= steps or win.controller.latest.snapshot.done,
            timeout=120_000,
        )
    qtbot.waitUntil(
        lambda: win.controller.state in ("idle", "finished") and not win.view_host.pending(), timeout=60_000
    )


def _outside(inner, outer, slack: float = 1.0) -> bool:
    return (
        inner.left() < outer.left() - slack
        or inner.top() < outer.top() - slack
        or inner.right() > outer.right() + slack
        or inner.bottom() > outer.bottom() + slack
    )


def cut_parts(win, where: str) -> list[str]:
    """What is cut or out of reach in the window as it is now, one description each (empty when nothing is)."""
    problems = []
    area = win.screen().availableGeometry()
    frame = win.frameGeometry()
    if not area.contains(frame):
        problems.append(f"{where}: the window {frame.getRect()} is not inside the screen's area {area.getRect()}")
    docks = [win.puzzle_dock, win.algo_dock, *win.view_docks.values()]
    shown = [d for d in docks if not d.isHidden() and not d.visibleRegion().isEmpty()]  # not behind a tab
    contents = [win.centralWidget()]
    for d in shown:
        content = d.widget().widget() if isinstance(d.widget(), QScrollArea) else d.widget()
        room = d.widget().viewport().width() if isinstance(d.widget(), QScrollArea) else d.widget().width()
        wide = max(content.width(), content.minimumSizeHint().width())
        if wide > room:
            problems.append(f"{where}: {d.objectName()} is {wide - room} px narrower than its content")
        contents.append(content)
    for root in contents:
        for label in [root, *root.findChildren(QLabel)]:
            if isinstance(label, QLabel) and label.isVisible() and label.wordWrap() and label.text():
                need = label.heightForWidth(label.width())
                if label.height() < need:
                    problems.append(
                        f"{where}: the label {label.text()[:50]!r} is {label.height()} px tall for "
                        f"text that needs {need}"
                    )
        for gv in root.findChildren(pg.GraphicsView):
            if not gv.isVisible():
                continue
            item = gv.centralWidget
            if (
                max(item.minimumWidth(), item.geometry().width()) > gv.width() + 1
                or max(item.minimumHeight(), item.geometry().height()) > gv.height() + 1
            ):
                problems.append(
                    f"{where}: a plot of {root.objectName() or type(root).__name__} is laid out on "
                    f"{item.geometry().width():.0f} x {item.geometry().height():.0f} px (at least "
                    f"{item.minimumWidth():.0f} x {item.minimumHeight():.0f}), its view has "
                    f"{gv.width()} x {gv.height()}"
                )
            view_rect = gv.mapToScene(gv.viewport().rect()).boundingRect()
            for axis in (i for i in gv.scene().items() if isinstance(i, pg.AxisItem)):
                if axis.isVisible() and axis.label.isVisible() and axis.labelText:
                    m = axis.label.document().documentMargin()  # blank around the text
                    rect = axis.label.mapRectToScene(axis.label.boundingRect().adjusted(m, m, -m, -m))
                    if _outside(rect, view_rect, slack=2):
                        problems.append(
                            f"{where}: the axis title {axis.labelText!r} at {rect.getRect()} is cut at the "
                            f"view's edge {view_rect.getRect()}"
                        )
    return problems


@pytest.mark.parametrize("screen_name", ["laptop", "desktop"])
def test_the_window_fits_the_screen_for_every_solver(qtbot, screen_name):
    screen = _screen(screen_name)
    win = _open_on(qtbot, screen)
    area = screen.availableGeometry()
    if screen_name == "laptop":  # too small for the preferred size: the whole available area, frame included
        assert win.frameGeometry() == area, (win.frameGeometry().getRect(), area.getRect())
    else:
        from sudoku_lab_ui.main_window import PREFERRED_SIZE

        assert win.size() == PREFERRED_SIZE and area.contains(win.frameGeometry()), win.frameGeometry().getRect()
    problems = []
    for algo in registry():
        _choose(qtbot, win, algo)
        groups = {}
        for dock in win.view_docks.values():
            if not dock.isHidden():
                tabbed = tuple(sorted(d.objectName() for d in win.tabifiedDockWidgets(dock)) + [dock.objectName()])
                groups.setdefault(tuple(sorted(tabbed)), []).append(dock)
        for docks in groups.values():
            for dock in docks:  # each tab of the group in front in turn
                dock.raise_()
                qtbot.wait(60)
                problems += cut_parts(win, f"{algo}, {dock.objectName()} in front")
    win.close()
    assert not problems, "\n".join(problems)


def test_a_new_axis_title_is_centred_on_an_axis_that_keeps_its_size(qtbot):
    """pyqtgraph places an axis title only when the axis is resized: after a shorter title, a longer one on
    an axis of the same size kept the shorter one's left edge and ran off the view (the GA's population
    title after NB-COIN's, at 1366x768)."""
    from sudoku_lab_ui.widgets.axis_titles import AxisTitles

    view = pg.PlotWidget()
    qtbot.addWidget(view)
    view.resize(600, 300)
    view.show()
    qtbot.waitExposed(view)
    titles = AxisTitles(view.getPlotItem())
    axis = view.getPlotItem().getAxis("bottom")
    for title in ("short", "a much longer title than the first, still short enough for the axis"):
        titles.set("bottom", title)
        qtbot.wait(20)
        assert titles.shown("bottom") == title
        centre = axis.label.mapRectToItem(axis, axis.label.boundingRect()).center().x()
        assert abs(centre - axis.size().width() / 2) <= 1, (title, centre, axis.size().width())
