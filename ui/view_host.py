"""The view host: one dock per registered view, shown per solver, and the frame scheduler that feeds them.

Docks are built from :func:`sudoku_lab_ui.views.views` (built-ins and UI
plugins) in registration order and grouped as tabs by each view's
``tab_with`` (:meth:`ViewHost.group_tabs`, once the window is shown). A view
shows when its ``applies(solver_class)`` says so. Plots cost about 10 ms of
GUI-thread time per repaint, so while a run goes they are redrawn at most
every :attr:`ViewHost.VIEW_INTERVAL` seconds, one per frame and at most one
every :attr:`ViewHost.REDRAW_GAP` seconds over all views, the most overdue
first; hidden views are marked stale and drawn when shown; the last frame of a
run (and the frame after a reset, a step or a parameter change) is drawn
everywhere, one view per event-loop turn (every :attr:`ViewHost.FINAL_GAP_MS`),
so that no single turn paints every plot at once; a run that starts meanwhile
supersedes the views not drawn yet (its own frames draw them, throttled), so a
reset followed at once by Run does not paint every plot while the solver steps.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QFrame, QMainWindow, QScrollArea, QWidget

from .views import ViewSpec, views
from .widgets.plot_size import plots_least

__all__ = ["ViewHost", "DockScroll", "make_dock"]


class DockScroll(QScrollArea):
    """A dock's content, filling the dock, with scroll bars only while the dock is smaller than it can shrink.

    Without it a dock cannot be smaller than its content's minimum size, and
    the window as a whole no smaller than the sum of its docks': on a small
    screen it opened larger than the screen. The content gets the viewport's
    size, but never less than its minimum size, its height counted for its
    width (word-wrapped labels grow taller as the dock gets narrower). A
    QScrollArea that resizes its widget itself takes a layout's *preferred*
    height for that width as the least, so a plot that could shrink scrolled
    instead. Its size hint is the content's, unbounded (a plain QScrollArea
    caps it at a few hundred pixels).
    """

    def __init__(self, widget: QWidget, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName(f"scroll_{widget.objectName()}" if widget.objectName() else "dock_scroll")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidgetResizable(False)
        self.setWidget(widget)
        self._hint = QSize()
        widget.installEventFilter(self)

    #: Content no taller than this at its least keeps that height as the dock's least: a few lines of
    #: text (the hill-climbing state) stay whole instead of scrolling in a squeezed dock.
    WHOLE_HEIGHT = 140

    def sizeHint(self) -> QSize:
        return self.widget().sizeHint() if self.widget() is not None else super().sizeHint()

    #: Content no wider than this at its least keeps that width as the dock's least: a plot's axes and colour
    #: bar stay inside their view instead of being cut by a narrow dock.
    WHOLE_WIDTH = 480

    def minimumSizeHint(self) -> QSize:
        least = super().minimumSizeHint()
        if self.widget() is None:
            return least
        need = self.least_size(max(self.viewport().width(), 1)).height()
        content = self.least_size(1)
        wide = content.width() + self.frameWidth() * 2  # its least width, not the width it has
        if need > self.maximumViewportSize().height():  # it scrolls: the scroll bar's width too
            wide += self.verticalScrollBar().sizeHint().width()
        return QSize(
            max(least.width(), wide) if wide <= self.WHOLE_WIDTH else least.width(),
            max(least.height(), need) if need <= self.WHOLE_HEIGHT else least.height(),
        )

    def least_size(self, width: int) -> QSize:
        """The content's least size at ``width`` (its minimum size, the height for that width)."""
        w = self.widget()
        least = w.minimumSizeHint().expandedTo(w.minimumSize())
        width = max(width, least.width())
        lay = w.layout()
        height = least.height()
        if lay is not None and lay.hasHeightForWidth():
            height = max(height, lay.totalMinimumHeightForWidth(width))
        return QSize(width, height)

    def fit_content(self) -> None:
        """Give the content the viewport's size, or its least size where that is larger (then it scrolls)."""
        w = self.widget()
        if w is None:
            return
        plots_least(w)
        view = self.maximumViewportSize()  # the viewport without scroll bars
        least = self.least_size(view.width())
        if least.height() > view.height():  # a vertical scroll bar takes some of the width
            least = self.least_size(view.width() - self.verticalScrollBar().sizeHint().width())
            view.setWidth(view.width() - self.verticalScrollBar().sizeHint().width())
        if least.width() > view.width():
            view.setHeight(view.height() - self.horizontalScrollBar().sizeHint().height())
        size = least.expandedTo(view)
        if size != w.size():
            w.resize(size)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_content()

    def eventFilter(self, obj, event) -> bool:
        if obj is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            hint = self.minimumSizeHint()
            if hint != self._hint:  # its least size changed, and with it this one's: relayout the window
                self._hint = hint
                self.updateGeometry()
            QTimer.singleShot(0, self, self.fit_content)
        return super().eventFilter(obj, event)

    def overflow(self) -> QSize:
        """How far the content sticks out of the view (0, 0 when it fits): what the scroll bars scroll."""
        w, view = self.widget(), self.viewport().size()
        return QSize(max(0, w.width() - view.width()), max(0, w.height() - view.height()))


def make_dock(window: QMainWindow, title: str, widget: QWidget, area, key: str) -> QDockWidget:
    """A movable, floatable, closable dock named ``dock_<key>`` (saved layouts use the name).

    ``widget`` goes in a :class:`DockScroll`, so the dock can shrink below its
    content's minimum size (scrolling then) on a small screen.
    """
    d = QDockWidget(title, window)
    d.setObjectName(f"dock_{key}")
    d.setWidget(DockScroll(widget))
    d.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetFloatable | QDockWidget.DockWidgetClosable)
    window.addDockWidget(area, d)
    return d


class ViewHost(QObject):
    """Docks for the registered views of a window, and their throttled redraws.

    Attributes
    ----------
    specs : dict of str to ViewSpec
    views : dict of str to QWidget
    docks : dict of str to QDockWidget
    """

    #: Plots redraw at most this often while running (the board follows every frame).
    VIEW_INTERVAL = 0.1
    #: Least seconds between two plot redraws of any views while running: the views on screen share
    #: these redraws (the most overdue first), so the GUI thread's drawing, which takes the CPU
    #: from the solver on a busy machine, stays bounded however many views a solver shows.
    REDRAW_GAP = 0.15
    #: Milliseconds between two views drawn for a final frame (one view per event-loop turn).
    FINAL_GAP_MS = 10

    def __init__(self, window: QMainWindow):
        super().__init__(window)
        self.window = window
        self.specs: dict[str, ViewSpec] = dict(views())
        self.views: dict[str, QWidget] = {}
        self.docks: dict[str, QDockWidget] = {}
        self._applies: dict[str, bool] = {}
        self._drawn: dict[str, float] = {}
        self._stale: dict[str, bool] = {}
        self._last = None
        self._last_redraw = 0.0
        self._last_final = True
        self._pending: list[str] = []  # views still to draw for the last final frame, in order
        self._drain = QTimer(self)
        self._drain.setSingleShot(True)
        self._drain.setInterval(self.FINAL_GAP_MS)
        self._drain.timeout.connect(self._draw_next)
        for key, spec in self.specs.items():
            w = spec.factory(None)
            self.views[key] = w
            dock = make_dock(window, spec.title, w, spec.area, key)
            dock.visibilityChanged.connect(lambda visible: visible and self.redraw_stale())
            # A dock's visibilityChanged can come before its view is visible (a tab brought to the front:
            # the Nests and population tests wait forever without this): the view's show event draws it.
            w.installEventFilter(self)
            self.docks[key] = dock

    def group_tabs(self) -> None:
        """Put each view's dock in a tab next to its ``tab_with`` dock (the latter in front).

        Call it once the window is shown: Qt 6.11 leaves a stray, visible tab
        bar for the second tab group made before the window is shown.
        """
        for key, spec in self.specs.items():
            if spec.tab_with in self.docks and spec.tab_with != key:
                self.window.tabifyDockWidget(self.docks[spec.tab_with], self.docks[key])
                self.docks[spec.tab_with].raise_()

    def on_solver(self, cls) -> None:
        """Show the views that apply to solver class ``cls`` and hide the others."""
        for key, spec in self.specs.items():
            applies = bool(spec.applies(cls))
            self._applies[key] = applies
            dock = self.docks[key]
            if dock.isHidden() == applies:  # setVisible(True) on a shown tabified dock leaves a stray tab bar
                dock.setVisible(applies)
            dock.toggleViewAction().setEnabled(applies)
            w = self.views[key]
            if applies and hasattr(w, "on_solver"):
                w.on_solver(cls)
        self.cancel_pending()
        self._last = None

    def on_puzzle(self, puzzle) -> None:
        self.cancel_pending()
        for w in self.views.values():
            w.on_puzzle(puzzle)

    def on_progress(self, prog, final: bool) -> None:
        """Feed the newest progress to the views that are due (all of them when ``final``)."""
        self._last = prog
        self._last_final = final
        now = time.perf_counter()
        due = []
        for key, w in self.views.items():
            if not (self._applies.get(key, True) and w.isVisible()):
                self._stale[key] = True  # draw it when it is shown again
            elif final or now - self._drawn.get(key, 0.0) >= self.VIEW_INTERVAL:
                due.append(key)
        if final:
            self._pending = []  # a newer final frame: every view draws it
            self._draw_in_turns(due)
            return
        self.cancel_pending()
        # One plot per frame, the most overdue first: two plot repaints in one frame would be a
        # visible hitch in the event loop; and none until REDRAW_GAP has passed since the last one.
        if now - self._last_redraw < self.REDRAW_GAP:
            return
        due = sorted(due, key=lambda k: self._drawn.get(k, 0.0))[:1]
        if due:
            self._last_redraw = now
        for key in due:
            self._draw(key, prog, now)

    def _draw(self, key: str, prog, now: float) -> None:
        self.views[key].on_progress(prog)
        self._drawn[key] = now
        self._stale[key] = False

    def _draw_in_turns(self, keys: list[str]) -> None:
        """Draw the last frame in these views too, one per event-loop turn: all in one turn is a long hitch."""
        idle = not self._pending
        self._pending += [k for k in keys if k not in self._pending]
        if idle and self._pending:
            self._draw_next()

    def _draw_next(self) -> None:
        """Draw the next view of the final frame, and schedule the one after."""
        while self._pending:
            key = self._pending.pop(0)
            if self._applies.get(key, True) and self.views[key].isVisible():
                now = time.perf_counter()
                self._draw(key, self._last, now)
                self._last_redraw = now
                break
            self._stale[key] = True
        if self._pending:
            self._drain.start()

    def finish(self) -> None:
        """The run ended: draw its last frame everywhere it is not drawn yet.

        If that frame came while the run was still going, it was drawn throttled: draw it everywhere. If it
        came as final but the run's queued "running" state arrived after it (a busy GUI thread polls the
        worker's frame before it handles the worker's signals), that state cancelled the views not drawn
        yet: draw those, one per event-loop turn, after the views still waiting for it.
        """
        if self._last is None:
            return
        if not self._last_final:
            self.on_progress(self._last, True)
            return
        self._draw_in_turns(self._stale_shown())

    def cancel_pending(self) -> None:
        """A run started: the views not drawn yet for the last final frame wait for its frames.

        They stay marked stale, so a dock shown meanwhile still draws the latest state.
        """
        for key in self._pending:
            self._stale[key] = True
        self._pending = []
        self._drain.stop()

    def pending(self) -> bool:
        """True while views of the last final frame are still to be drawn."""
        return bool(self._pending)

    def redraw_stale(self) -> None:
        """A dock brought to the front shows the latest state at once."""
        if self._last is None:
            return
        for key in self._stale_shown():
            self.views[key].on_progress(self._last)
            self._stale[key] = False

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Show:
            QTimer.singleShot(0, self, self.redraw_stale)  # after the show: isVisible() is true by then
        return False

    def _stale_shown(self) -> list[str]:
        """Views on screen (they apply and are visible) that have not drawn the latest frame."""
        return [
            key
            for key, stale in self._stale.items()
            if stale and self._applies.get(key, True) and self.views[key].isVisible()
        ]

    def raise_solver_views(self) -> None:
        """Bring the views chosen by the solver's declarations (a required role or an own ``applies``) to the
        front of their tab groups, in registration order (so a solver's own views end in front)."""
        for key, spec in self.specs.items():
            if self._applies.get(key) and not spec.for_every_solver:
                self.docks[key].raise_()

    def visible_titles(self) -> list[str]:
        """Titles of the views that apply and are on screen (not hidden behind another tab)."""
        return [self.specs[k].title for k, w in self.views.items() if self._applies.get(k) and w.isVisible()]

    def bottom_docks(self) -> list[QDockWidget]:
        """Visible docks of the bottom area (the window gives them a modest height)."""
        return [
            d
            for k, d in self.docks.items()
            if self.window.dockWidgetArea(d) == Qt.BottomDockWidgetArea and not d.isHidden()
        ]
