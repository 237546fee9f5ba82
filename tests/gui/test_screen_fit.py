"""Every screen a class uses shows everything: the window, its presentation mode and every dialog.

The offscreen platform has four screens (tests/gui/screens.json, set up by
tests/conftest.py): 1920x1080, 1366x768, 1280x720 and 1024x768. On each, one
window (shared by every check of that screen): for every solver, chosen in the
window as a user would, after a few iterations, with each dock of each tab
group brought to the front in turn; then every view of that solver alone in
presentation mode; a long run (thousands of iterations: the legend, the axis
ranges and the event marks grow) in both; and every dialog the lab opens. Each
must lie inside the screen's available area less a window manager's frame
(:data:`FRAME`: the offscreen platform draws none), and nothing in it may be
cut: no dock's content wider than the dock, no word-wrapped label shorter than
its text, plot items and axis titles inside their views, legends inside their
plots, header texts elided to no fewer than :data:`MIN_HEADER_CHARS`
characters, buttons whole. At 1280x720 and below the board must not be the
smallest view.
"""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QMargins, QRect, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QDialog,
    QLabel,
    QMessageBox,
    QScrollArea,
    QTabBar,
    QTableView,
    QWidget,
)

from sudoku_lab.model import library
from sudoku_lab.solvers import registry

from lab_helpers import wait_ready

pytestmark = pytest.mark.gui

#: The window manager's frame the checks allow for (left, top, right, bottom). Openbox under Xvfb draws
#: 1, 20, 1, 5 (its _NET_FRAME_EXTENTS, read with xprop); KWin and Xfwm draw title bars of about 30 px: the
#: checks take the larger, a 32 px title bar and 4 px borders (8 px at the bottom).
FRAME = QMargins(4, 32, 4, 8)
OPENBOX_FRAME = QMargins(1, 20, 1, 5)
#: A table header may be elided, but must show at least this many characters of its text (or all of it).
MIN_HEADER_CHARS = 8
SCREENS = {"desktop": (1920, 1080), "laptop": (1366, 768), "hd": (1280, 720), "xga": (1024, 768)}
#: Iterations of the long run (RESEDA on AI Escargot, unsolved: about 20 restarts, merged event marks).
LONG_RUN = 2500


def _screen(name: str):
    found = [s for s in QApplication.screens() if s.name() == name]
    assert found, (
        f"no offscreen screen {name!r}: is QT_QPA_PLATFORM {QApplication.platformName()!r} "
        "configured by tests/conftest.py?"
    )
    return found[0]


def _open_on(qtbot, screen, puzzle="ai_escargot"):
    """The window opened on ``screen`` as on a primary screen of that size (fitted to it before it is shown)."""
    from sudoku_lab_ui.app import create_window

    win = create_window(library.puzzle(puzzle))
    qtbot.addWidget(win)
    win.setScreen(screen)
    win.fit_to_screen()
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
    if not win.controller.latest.snapshot.done and steps:  # the exact solver is done at its first frame
        start = win.controller.latest.snapshot.iteration
        win.step_n.setValue(steps)
        win.act_step_n.trigger()
        qtbot.waitUntil(
            lambda: win.controller.latest.snapshot.iteration >= start + steps or win.controller.latest.snapshot.done,
            timeout=300_000,
        )
    qtbot.waitUntil(
        lambda: win.controller.state in ("idle", "finished") and not win.view_host.pending(), timeout=60_000
    )


def fits_with_frame(widget: QWidget, area: QRect) -> bool:
    """True when top-level ``widget``'s client area, grown by :data:`FRAME`, lies inside ``area``."""
    return area.contains(widget.geometry().marginsAdded(FRAME))


def _outside(inner, outer, slack: float = 1.0) -> bool:
    return (
        inner.left() < outer.left() - slack
        or inner.top() < outer.top() - slack
        or inner.right() > outer.right() + slack
        or inner.bottom() > outer.bottom() + slack
    )


def cut_inside(root: QWidget, where: str) -> list[str]:
    """What is cut in ``root`` (a dock's content, a dialog, a view): labels, plots, legends, headers, buttons."""
    problems = []
    for label in [root, *root.findChildren(QLabel)]:
        if isinstance(label, QLabel) and label.isVisible() and label.wordWrap() and label.text():
            need = label.heightForWidth(label.width())
            if label.height() < need:
                problems.append(
                    f"{where}: the label {label.text()[:50]!r} is {label.height()} px tall for text that needs {need}"
                )
    views = [root] if isinstance(root, pg.GraphicsView) else []
    for gv in views + root.findChildren(pg.GraphicsView):
        if not gv.isVisible():
            continue
        item = gv.centralWidget
        if item is not None and (
            max(item.minimumWidth(), item.geometry().width()) > gv.width() + 1
            or max(item.minimumHeight(), item.geometry().height()) > gv.height() + 1
        ):
            problems.append(
                f"{where}: a plot of {root.objectName() or type(root).__name__} is laid out on "
                f"{item.geometry().width():.0f} x {item.geometry().height():.0f} px (at least "
                f"{item.minimumWidth():.0f} x {item.minimumHeight():.0f}), its view has {gv.width()} x {gv.height()}"
            )
        view_rect = gv.mapToScene(gv.viewport().rect()).boundingRect()
        for it in gv.scene().items():
            if isinstance(it, pg.AxisItem) and it.isVisible() and it.label.isVisible() and it.labelText:
                m = it.label.document().documentMargin()  # blank around the text
                rect = it.label.mapRectToScene(it.label.boundingRect().adjusted(m, m, -m, -m))
                if _outside(rect, view_rect, slack=2):
                    problems.append(
                        f"{where}: the axis title {it.labelText!r} at {rect.getRect()} is cut at the view's "
                        f"edge {view_rect.getRect()}"
                    )
            elif isinstance(it, pg.AxisItem) and it.isVisible() and _across_cut(it, view_rect):
                problems.append(f"{where}: the {it.orientation} axis {it.sceneBoundingRect().getRect()} is cut")
            elif isinstance(it, pg.LegendItem) and it.isVisible() and it.items:
                if _outside(it.sceneBoundingRect(), view_rect, slack=2):
                    problems.append(
                        f"{where}: the legend {it.sceneBoundingRect().getRect()} is cut at {view_rect.getRect()}"
                    )
    for table in (
        [root, *root.findChildren(QTableView)] if isinstance(root, QTableView) else root.findChildren(QTableView)
    ):
        if table.isVisible():
            problems += _header_cuts(table, where)
    for button in root.findChildren(QAbstractButton):
        if button.isVisible() and button.width() > 0:
            seen = button.visibleRegion().boundingRect()
            if not seen.isEmpty() and seen != _scrolled_part(button):
                problems.append(
                    f"{where}: the button {button.text() or button.objectName()!r} is cut: {seen.getRect()} of "
                    f"{button.rect().getRect()} visible"
                )
    return problems


def _scrolled_part(widget: QWidget) -> QRect:
    """The part of ``widget`` (its own coordinates) inside every scroll area's viewport around it: what is left
    of it when only scrolling hides the rest (it is reachable); anything else that hides it cuts it."""
    rect = widget.rect()
    parent = widget.parentWidget()
    while parent is not None and not parent.isWindow():
        if isinstance(parent, QScrollArea):
            vp = parent.viewport()
            rect &= QRect(widget.mapFrom(vp, vp.rect().topLeft()), vp.size())
        parent = parent.parentWidget()
    return rect


def _across_cut(axis: pg.AxisItem, view_rect) -> bool:
    """True when ``axis`` runs out of the view across its length (its tick labels or title cut); along its
    length the end labels may stick out by half their height, as pyqtgraph draws them."""
    rect = axis.sceneBoundingRect()
    if axis.orientation in ("left", "right"):
        return rect.left() < view_rect.left() - 2 or rect.right() > view_rect.right() + 2
    return rect.top() < view_rect.top() - 2 or rect.bottom() > view_rect.bottom() + 2


def _header_cuts(table: QTableView, where: str) -> list[str]:
    header = table.horizontalHeader()
    if header.isHidden() or table.model() is None:
        return []
    fm = header.fontMetrics()
    pad = 2 * header.style().pixelMetric(header.style().PixelMetric.PM_HeaderMargin, None, header) + 2
    problems = []
    for col in range(table.model().columnCount()):
        if header.isSectionHidden(col):
            continue
        text = str(table.model().headerData(col, Qt.Orientation.Horizontal) or "")
        whole = fm.horizontalAdvance(text) + pad
        least = min(whole, fm.horizontalAdvance(text[:MIN_HEADER_CHARS] + "…") + pad)
        if header.sectionSize(col) < least:
            problems.append(
                f"{where}: the header {text!r} of {table.objectName() or type(table.parent()).__name__} is "
                f"{header.sectionSize(col)} px wide, less than {least} px ({MIN_HEADER_CHARS} characters)"
            )
    return problems


def _views_shown(win) -> dict[str, QWidget]:
    return {k: v for k, v in win.views.items() if v.isVisible() and not v.visibleRegion().isEmpty()}


def cut_parts(win, where: str) -> list[str]:
    """What is cut or out of reach in the window as it is now, one description each (empty when nothing is)."""
    problems = []
    area = win.screen().availableGeometry()
    if not fits_with_frame(win, area):
        problems.append(
            f"{where}: the window {win.geometry().getRect()} with a frame {FRAME} is not inside the screen's "
            f"area {area.getRect()}"
        )
    docks = [win.puzzle_dock, win.algo_dock, *win.view_docks.values()]
    shown = [d for d in docks if not d.isHidden() and not d.visibleRegion().isEmpty()]  # not behind a tab
    problems += cut_inside(win.centralWidget(), where)
    for d in shown:
        content = d.widget().widget() if isinstance(d.widget(), QScrollArea) else d.widget()
        room = d.widget().viewport().width() if isinstance(d.widget(), QScrollArea) else d.widget().width()
        wide = max(content.width(), content.minimumSizeHint().width())
        if wide > room:
            problems.append(f"{where}: {d.objectName()} is {wide - room} px narrower than its content")
        problems += cut_inside(content, f"{where}, {d.objectName()}")
    for button in win.puzzle_panel.findChildren(QAbstractButton):  # the puzzle dock's own buttons: whole
        if button.isVisible() and button.visibleRegion().boundingRect() != button.rect():
            problems.append(f"{where}: the puzzle dock's button {button.text()!r} is not wholly visible")
    if area.height() <= 768:
        board = win.board
        side = min(board.width(), board.height())
        others = {k: min(v.width(), v.height()) for k, v in _views_shown(win).items()}
        if others and side < min(others.values()):
            problems.append(f"{where}: the board ({side} px) is the smallest view: {others}")
    return problems


def presentation_cuts(win, where: str) -> list[str]:
    """What is cut in presentation mode: the stage, the view alone beside the board, the caption."""
    problems = []
    screen = win.screen().geometry()
    if win.geometry() != screen:
        problems.append(f"{where}: the stage {win.geometry().getRect()} is not the screen {screen.getRect()}")
    key = win.presentation.shown_view()
    dock = win.view_docks[key]
    rect = QRect(dock.mapTo(win, dock.rect().topLeft()), dock.size())
    if not win.rect().contains(rect):
        problems.append(f"{where}: the view's dock {rect.getRect()} is outside the stage {win.rect().getRect()}")
    content = dock.widget().widget() if isinstance(dock.widget(), QScrollArea) else dock.widget()
    room = dock.widget().viewport().width() if isinstance(dock.widget(), QScrollArea) else dock.width()
    if max(content.width(), content.minimumSizeHint().width()) > room:
        problems.append(f"{where}: the view is wider than its place ({content.width()} > {room})")
    problems += cut_inside(content, where)
    problems += cut_inside(win.centralWidget(), f"{where}, the board")
    caption = win.presentation.caption_bar
    for bar in win.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly):
        if bar.isVisible() and bar.count() and not bar.visibleRegion().isEmpty():
            problems.append(f"{where}: a stray tab bar {[bar.tabText(i) for i in range(bar.count())]} is on show")
    if not caption.isVisible() or not win.rect().contains(caption.geometry()):
        problems.append(f"{where}: the caption {caption.geometry().getRect()} is not on the stage")
    return problems


def dialog_cuts(dialog: QWidget, area: QRect, where: str) -> list[str]:
    problems = []
    if not fits_with_frame(dialog, area):
        problems.append(
            f"{where}: {dialog.geometry().getRect()} with a frame {FRAME} is not inside the screen's area "
            f"{area.getRect()}"
        )
    problems += cut_inside(dialog, where)
    return problems


def _in_front_in_turn(qtbot, win, where: str) -> list[str]:
    """Bring each tab of each group of view docks to the front in turn and look for cut parts each time."""
    problems = []
    groups = {}
    for dock in win.view_docks.values():
        if not dock.isHidden():
            tabbed = tuple(sorted(d.objectName() for d in win.tabifiedDockWidgets(dock)) + [dock.objectName()])
            groups.setdefault(tuple(sorted(tabbed)), []).append(dock)
    for docks in groups.values():
        for dock in docks:
            dock.raise_()
            qtbot.wait(60)
            problems += cut_parts(win, f"{where}, {dock.objectName()} in front")
    return problems


def _presentation(qtbot, win, where: str) -> list[str]:
    """Every view of the solver alone beside the board in presentation mode; the lab's layout back after."""
    problems = []
    p = win.presentation
    p.enter()
    qtbot.waitUntil(lambda: win.isFullScreen(), timeout=10_000)
    for key in p.view_keys():
        p._show_view(key)
        qtbot.wait(150)  # the stage's fit and restyle run on the next turns (again while the view overflows)
        qtbot.waitUntil(lambda: not win.view_host.pending() and not p.fitting(), timeout=60_000)
        problems += presentation_cuts(win, f"{where}, presentation, {key}")
    p.leave()
    qtbot.wait(100)
    return problems


def _dialogs(qtbot, win, area: QRect, where: str) -> list[str]:
    """Every dialog the lab opens, each checked then closed."""
    problems = []
    opened = [
        ("grades", win.show_grades),
        ("shortcuts", win.show_shortcuts),
        ("export view", win.export_view),
        ("export animation", win.export_animation),
        ("batch panel", win.batch_experiment),
        ("compare window", lambda: win.open_compare([("hill_climb", {}), ("reseda", {})])),
    ]
    for name, open_it in opened:
        dialog = open_it()
        qtbot.waitExposed(dialog)
        qtbot.wait(200)
        problems += dialog_cuts(dialog, area, f"{where}, {name}")
        if name == "shortcuts":
            problems += _shortcut_cells(dialog, where)
        if name == "compare window":
            state = dialog.panes[0].view
            if state is not None and state.width() < 20 * state.fontMetrics().averageCharWidth():
                problems.append(
                    f"{where}: the compare window's {dialog.panes[0].view_key} view is {state.width()} px wide"
                )
        dialog.close()
    about = [None]

    def grab_about():
        box = next((w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()), None)
        if box is None:
            return False
        about[0] = box
        return True

    from PySide6.QtCore import QTimer

    def check_and_close():
        if grab_about():
            problems.extend(dialog_cuts(about[0], area, f"{where}, about"))
            about[0].accept()
        else:
            QTimer.singleShot(50, check_and_close)

    QTimer.singleShot(100, check_and_close)
    win.show_about()  # modal: the timer checks it and closes it
    assert about[0] is not None, "About Sudoku Lab did not open"
    return problems


def _shortcut_cells(dialog: QDialog, where: str) -> list[str]:
    table = dialog.findChild(QTableView, "shortcuts_table")
    problems = []
    fm = table.fontMetrics()
    for row in range(table.model().rowCount()):
        for col in range(2):
            index = table.model().index(row, col)
            rect = table.visualRect(index)
            text = str(index.data())
            need = fm.boundingRect(QRect(0, 0, max(rect.width() - 8, 1), 10_000), Qt.TextFlag.TextWordWrap, text)
            cut = rect.right() > table.viewport().width()  # past the view's right edge: cut (or scrolled sideways)
            if cut or need.height() > rect.height() or fm.horizontalAdvance(text.split(" ")[0]) > rect.width() - 6:
                problems.append(f"{where}: the shortcut cell {text!r} ({rect.width()} x {rect.height()}) is cut")
    return problems


@pytest.mark.parametrize("screen_name", list(SCREENS))
def test_every_screen_shows_everything(qtbot, screen_name):
    """One window per screen: every solver's docks, its presentation views, a long run, every dialog."""
    assert all(
        FRAME.__getattribute__(s)() >= OPENBOX_FRAME.__getattribute__(s)() for s in ("left", "top", "right", "bottom")
    )
    screen = _screen(screen_name)
    assert (screen.size().width(), screen.size().height()) == SCREENS[screen_name]
    win = _open_on(qtbot, screen)
    area = screen.availableGeometry()
    from sudoku_lab_ui.main_window import PREFERRED_SIZE

    if area.size().width() >= PREFERRED_SIZE.width() + 8 and area.size().height() >= PREFERRED_SIZE.height() + 40:
        assert win.size() == PREFERRED_SIZE, win.geometry().getRect()
    assert fits_with_frame(win, area), (win.geometry().getRect(), area.getRect())
    problems = []
    try:
        for algo in registry():
            _choose(qtbot, win, algo)
            problems += _in_front_in_turn(qtbot, win, algo)
            problems += _presentation(qtbot, win, algo)
        _choose(qtbot, win, "reseda", 0)
        _choose(qtbot, win, "reseda", LONG_RUN)
        problems += _in_front_in_turn(qtbot, win, f"reseda after {LONG_RUN:,} iterations")
        problems += _presentation(qtbot, win, f"reseda after {LONG_RUN:,} iterations")
        problems += _dialogs(qtbot, win, area, screen_name)
    finally:
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
