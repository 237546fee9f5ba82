"""The lab's timeline: go back to any iteration of the run, step back, continue from there.

Every run in the lab is recorded by the worker (a :class:`~sudoku_lab.stepping.history.History`).
:class:`TimelineBar` is a bar from the recording's origin to its furthest iteration with the
iteration shown; dragging it asks the worker for that iteration (the worker pauses the run,
re-simulates from the nearest keyframe in its own thread and publishes the exact snapshot, so the
board, every view and the curves show that moment; the newest request wins). Restarts, run ends
and parameter changes are marks on it, merged when crowded by
:func:`sudoku_lab.stepping.markers.event_markers` (as the curves' markers), with tooltips naming them.

:class:`Timeline` puts it in a dock under the views and adds **Back 1** (Left) and **Back N**
(Shift+Left, N from the Step N box) beside Step in the run toolbar and the Run menu, and
**History memory limit...** (a setting kept in QSettings, default 200 MB, for the next run). Run or
Step after going back replays the recorded run ("continue from here") until a parameter is changed:
that starts a new branch and the recorded future goes.

A session opened with its recorded run shows the stretches of that record no replay has confirmed
yet hatched over the bar (``TimelineInfo.unverified``; the label says "checking the record"): the
worker confirms them in the background, and going there replays up to there first.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QSizePolicy,
    QSpinBox,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from sudoku_lab.solvers import registry
from sudoku_lab.stepping.history import DEFAULT_MEMORY_LIMIT
from sudoku_lab.stepping.markers import Marker, event_markers

from .run_toolbar import make_action
from .worker import TimelineInfo, WorkerState

__all__ = ["Timeline", "TimelineBar", "MemoryLimitDialog", "MEMORY_SETTING", "DEFAULT_MEMORY_MB"]

#: QSettings key of the history's memory limit, in MB.
MEMORY_SETTING = "history_memory_mb"
#: The default limit in MB (the history's own default).
DEFAULT_MEMORY_MB = DEFAULT_MEMORY_LIMIT // 1_000_000
#: Least pixels per mark: more events than fit are merged into bins.
MARK_SPACING_PX = 8
#: Marks are recomputed at most this often (milliseconds) while a run grows.
MARK_DELAY_MS = 150

_PLAYED = QColor("#3b7dd8")
_RECORDED = QColor("#cfd6df")
_UNVERIFIED = QColor("#e3a21a")  # a session's recorded run not confirmed by its replay yet (hatched over the bar)
_RUN_MARK = QColor("#5d6d7e")
_SOLVED_MARK = QColor("#1e8449")
_PARAM_MARK = QColor("#d35400")


def _mb(nbytes: int) -> str:
    if nbytes < 1e6:
        return f"{nbytes / 1e3:,.0f} kB"
    return f"{nbytes / 1e6:,.1f} MB" if nbytes < 10e6 else f"{nbytes / 1e6:,.0f} MB"


class TimelineBar(QWidget):
    """A draggable bar over the recorded run: origin to furthest, the iteration shown, event marks.

    Signals
    -------
    seekRequested(int)
        The user pressed or dragged to this iteration.
    """

    seekRequested = Signal(int)
    MARGIN = 10

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("timeline_bar")
        self.setMinimumHeight(30)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMouseTracking(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.origin = 0
        self.furthest = 0
        self.iteration = 0
        self.unverified: tuple = ()  #: stretches (from, to) of a session's record its replay has not confirmed yet
        self._events: tuple = ()
        self._marked: tuple[str, ...] | None = None
        self._markers: list[Marker] = []
        self._marks_key: tuple | None = None
        self._dragging = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(MARK_DELAY_MS)
        self._timer.timeout.connect(self.update_markers)

    def sizeHint(self) -> QSize:
        return QSize(600, 30)

    # ------------------------------------------------------------------ state
    def set_marked(self, kinds) -> None:
        """The event kinds drawn as run marks (the solver's ``marked_events``); parameter changes always are."""
        self._marked = tuple(kinds)
        self._marks_key = None
        self.update_markers()

    def set_state(self, origin: int, furthest: int, iteration: int, events=(), unverified=()) -> None:
        """The recorded range, the iteration shown (kept where the mouse is while dragging), the events and the
        stretches of a session's record not confirmed yet (drawn hatched)."""
        self.origin, self.furthest = int(origin), int(furthest)
        self.unverified = tuple((int(a), int(b)) for a, b in unverified)
        if not self._dragging:
            self.iteration = int(iteration)
        if events is not self._events:
            self._events = tuple(events)
        if not self._timer.isActive():
            self._timer.start()
        self.update()

    def clear(self) -> None:
        self.set_state(0, 0, 0, ())
        self.update_markers()

    def markers(self) -> list[Marker]:
        """The marks drawn (merged ones count several events), in iteration order per kind."""
        return list(self._markers)

    def update_markers(self) -> None:
        key = (self.origin, self.furthest, len(self._events), self.width(), self._marked)
        if key == self._marks_key:
            return
        self._marks_key = key
        most = max(4, self._track_width() // MARK_SPACING_PX)
        self._markers = event_markers(self._events, self.origin, self.furthest, most, self._marked)
        self.update()

    # --------------------------------------------------------------- geometry
    def _track_width(self) -> int:
        return max(1, self.width() - 2 * self.MARGIN)

    def x_of(self, iteration: float) -> int:
        """The x coordinate (pixels in the bar) of ``iteration``."""
        span = self.furthest - self.origin
        frac = 0.0 if span <= 0 else (float(iteration) - self.origin) / span
        return self.MARGIN + round(min(1.0, max(0.0, frac)) * self._track_width())

    def iteration_at(self, x: float) -> int:
        """The iteration under the x coordinate ``x`` (clamped to the recorded range)."""
        frac = (float(x) - self.MARGIN) / self._track_width()
        it = self.origin + round(min(1.0, max(0.0, frac)) * (self.furthest - self.origin))
        return int(it)

    def marker_at(self, x: float, slack: int = 5) -> Marker | None:
        """The mark nearest ``x`` within ``slack`` pixels, or None."""
        best, dist = None, slack + 1
        for m in self._markers:
            d = abs(self.x_of(m.iteration) - x)
            if d < dist:
                best, dist = m, d
        return best

    # ------------------------------------------------------------------ mouse
    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.furthest > self.origin:
            self._dragging = True
            self._drag_to(event.position().x())
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        if self._dragging:
            self._drag_to(event.position().x())
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        if self._dragging and event.button() == Qt.MouseButton.LeftButton:
            self._drag_to(event.position().x())
            self._dragging = False
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def _drag_to(self, x: float) -> None:
        it = self.iteration_at(x)
        if it != self.iteration or self._dragging:
            self.iteration = it
            self.update()
            self.seekRequested.emit(it)

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            x = event.pos().x()
            m = self.marker_at(x)
            if m is not None:
                where = f"iteration {int(m.iteration):,}"
                if m.end != m.iteration:
                    where = f"iterations {int(m.iteration):,} to {int(m.end):,}"
                QToolTip.showText(event.globalPos(), f"{m.label} ({where})\n{m.detail}", self)
            elif self.furthest > self.origin:
                it = self.iteration_at(x)
                text = f"iteration {it:,}: press or drag to go back there"
                if any(a <= it <= b for a, b in self.unverified):
                    text += (
                        "\n(the session's recorded run is being checked against its replay here: going there "
                        "replays it up to there first)"
                    )
                QToolTip.showText(event.globalPos(), text, self)
            else:
                QToolTip.hideText()
            return True
        return super().event(event)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.update_markers()

    # ------------------------------------------------------------------ paint
    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        h = self.height()
        mid = h / 2
        x0, x1 = self.MARGIN, self.MARGIN + self._track_width()
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(_RECORDED)
        p.drawRoundedRect(QRectF(x0, mid - 4, x1 - x0, 8), 4, 4)
        xc = self.x_of(self.iteration)
        if self.furthest > self.origin:
            p.setBrush(_PLAYED)
            p.drawRoundedRect(QRectF(x0, mid - 4, max(0, xc - x0), 8), 4, 4)
        for a, b in self.unverified:  # still being checked against its replay: hatched
            xa, xb = self.x_of(a), self.x_of(b)
            p.setBrush(QBrush(_UNVERIFIED, Qt.BrushStyle.BDiagPattern))
            p.drawRect(QRectF(xa, mid - 4, max(1, xb - xa), 8))
        # Marks: one line per event (or bin of events); merged bins are drawn thinner and lighter.
        for m in self._markers:
            colour = _PARAM_MARK if m.kind == "param" else (_SOLVED_MARK if m.solved else _RUN_MARK)
            binned = m.count > 1 and m.end != m.iteration
            colour = QColor(colour)
            if binned:
                colour.setAlpha(150)
            width = 2.0 if m.kind == "param" and not binned else 1.0
            p.setPen(QPen(colour, width))
            x = self.x_of(m.iteration) + 0.5
            top, bottom = (2, mid + 1) if m.kind == "param" else (mid - 1, h - 2)
            p.drawLine(QPointF(x, top), QPointF(x, bottom))
        # The iteration shown: a handle on the bar.
        p.setPen(QPen(QColor("#1f3a5f"), 1.5))
        p.setBrush(QColor("white"))
        p.drawEllipse(QPointF(xc, mid), 6, 6)
        p.end()


class MemoryLimitDialog(QDialog):
    """How much memory the recording of a run may use (keyframes), in MB."""

    def __init__(self, mb: int, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("memory_dialog")
        self.setWindowTitle("History memory limit")
        lay = QVBoxLayout(self)
        text = QLabel(
            "Every run in the lab is recorded so you can go back to any iteration. The recording's keyframes "
            "stay within this limit: past it they are thinned, and going far back re-simulates a little more. "
            "Applies from the next run (Reset)."
        )
        text.setWordWrap(True)
        lay.addWidget(text)
        self.spin = QSpinBox()
        self.spin.setObjectName("memory_spin")
        self.spin.setRange(1, 100_000)
        self.spin.setSuffix(" MB")
        self.spin.setValue(int(mb))
        lay.addWidget(self.spin)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.buttons = buttons
        self.resize(420, 160)


class Timeline(QObject):
    """The window's timeline: the dock with the bar, Back 1 / Back N, the memory setting, the cursor on the curves."""

    def __init__(self, window: QMainWindow):
        super().__init__(window)
        self.window = window
        self.controller = c = window.controller
        self.bar = TimelineBar()
        self.label = QLabel()
        self.label.setObjectName("timeline_label")
        self.label.setStyleSheet("color: #444;")
        # A width of its own, so the bar does not jump as the text changes: room for a typical text
        # ("57,868 of 57,868 (rewound) · memory 12.3 MB of 200 MB"), but at most 45% of the panel on a
        # narrow window, where a shorter form of the text is shown (the tooltip has it all).
        self._label_room = self.label.fontMetrics().horizontalAdvance(
            "888,888 of 888,888 (rewound) · memory 88.8 MB of 200 MB"
        )
        panel = QWidget()
        panel.setObjectName("timeline")
        lay = QHBoxLayout(panel)
        lay.setContentsMargins(4, 2, 8, 2)
        title = QLabel("Timeline")
        title.setStyleSheet("font-weight: bold;")
        lay.addWidget(title)
        lay.addWidget(self.bar, 1)
        lay.addWidget(self.label)
        self.panel = panel
        panel.installEventFilter(self)  # a new width: the label's width and text again
        self._size_label()
        self.dock = dock = QDockWidget("Timeline", window)
        dock.setObjectName("dock_timeline")
        dock.setWidget(panel)
        dock.setTitleBarWidget(QWidget())  # one line under the views: no title bar of its own
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable)
        panel.setFixedHeight(34)
        window.addDockWidget(Qt.BottomDockWidgetArea, dock, Qt.Vertical)

        tb = window.run_toolbar
        self.act_back = make_action(window, "Back 1", "Left", lambda: c.step_back(1), "One iteration back")
        self.act_back_n = make_action(
            window, "Back N", "Shift+Left", lambda: c.step_back(tb.step_n.value()), "N iterations back (N in the box)"
        )
        self.act_memory = make_action(
            window,
            "History memory limit...",
            None,
            self.edit_memory_limit,
            "How much memory the recording of a run may use (from the next run)",
        )
        for a in (self.act_back, self.act_back_n):
            tb.insertAction(tb.act_stop, a)
        menu = getattr(window, "run_menu", None)
        if menu is not None:
            before = next((a for a in menu.actions() if a is tb.act_stop), None)
            menu.insertActions(before, [self.act_back, self.act_back_n])
            menu.addSeparator()
            menu.addAction(self.act_memory)
            view = next((a.menu() for a in window.menuBar().actions() if a.text() == "&View"), None)
            if view is not None:
                view.addAction(dock.toggleViewAction())
        c.set_memory_limit(self.memory_limit_mb() * 1_000_000)

        self.bar.seekRequested.connect(c.seek)
        c.timeline.connect(self.on_timeline)
        c.stateChanged.connect(self.on_state)
        c.solverChanged.connect(self._on_solver)
        c.puzzleChanged.connect(lambda _p: self.clear())
        self._on_solver(c.solver_name)
        self.on_state(c.state)
        self.info: TimelineInfo | None = None
        self.clear()

    # ------------------------------------------------------------ settings
    def memory_limit_mb(self) -> int:
        """The history memory limit setting in MB (QSettings ``history_memory_mb``, default 200)."""
        settings = self.window.settings
        value = settings.value(MEMORY_SETTING) if settings is not None else getattr(self, "_mb", None)
        try:
            mb = int(value)
        except (TypeError, ValueError):
            return DEFAULT_MEMORY_MB
        return mb if mb > 0 else DEFAULT_MEMORY_MB

    def set_memory_limit_mb(self, mb: int) -> None:
        """Keep the setting and hand it to the worker: the next run's history gets it."""
        mb = int(mb)
        if self.window.settings is not None:
            self.window.settings.setValue(MEMORY_SETTING, mb)
        else:
            self._mb = mb
        self.controller.set_memory_limit(mb * 1_000_000)
        self.window.statusBar().showMessage(f"History memory limit {mb:,} MB: applies from the next run (Reset)", 8000)

    def edit_memory_limit(self) -> MemoryLimitDialog:
        dlg = MemoryLimitDialog(self.memory_limit_mb(), self.window)
        dlg.accepted.connect(lambda: self.set_memory_limit_mb(dlg.spin.value()))
        dlg.open()
        return dlg

    # --------------------------------------------------------------- signals
    def on_timeline(self, info: TimelineInfo) -> None:
        self.info = info
        self.bar.set_state(info.origin, info.furthest, info.iteration, info.events, info.unverified)
        self.label.setText(self._label_text(info))
        checking = ""
        if info.unverified:
            left = sum(b - a for a, b in info.unverified)
            checking = (
                f"; {left:,} iterations of the session's recorded run are still being checked against its replay "
                "(hatched)"
            )
        self.label.setToolTip(
            f"Recorded iterations {info.origin:,} to {info.furthest:,}; the keyframes hold {info.memory_used:,} "
            f"bytes (limit {info.memory_limit:,}: History memory limit... in the Run menu){checking}"
        )
        conv = self.window.views.get("convergence")
        if conv is not None and hasattr(conv, "set_cursor"):
            conv.set_cursor(info.iteration if info.rewound else None, info.furthest)

    def _size_label(self) -> None:
        """The label's width: room for a typical text, at most 45% of the panel."""
        width = max(80, min(self._label_room + 12, int(self.panel.width() * 0.45)))
        if width != self.label.width() or self.label.minimumWidth() != width:
            self.label.setFixedWidth(width)

    def _label_text(self, info: TimelineInfo) -> str:
        """The longest of the label's forms that fits its width (the tooltip has it all)."""
        where = f"{info.iteration:,} of {info.furthest:,}" + (" (rewound)" if info.rewound else "")
        used, limit = _mb(info.memory_used), _mb(info.memory_limit)
        short = f"{info.iteration:,}/{info.furthest:,}" + (" (rewound)" if info.rewound else "")
        forms: tuple[str, ...] = (
            f"{where} · memory {used} of {limit}",
            f"{where} · {used} of {limit}",
            f"{short} · {used}/{limit}",
            short,
        )
        if info.unverified:  # a session's record being checked: said first, the memory dropped first
            forms = (f"{where} · checking the record", f"{short} · checking", short)
        fm, room = self.label.fontMetrics(), self.label.width() - 6
        fitting = [f for f in forms if fm.horizontalAdvance(f) <= room]
        return fitting[0] if fitting else fm.elidedText(short, Qt.TextElideMode.ElideRight, room)

    def eventFilter(self, obj, event) -> bool:
        if obj is self.panel and event.type() == QEvent.Type.Resize:
            self._size_label()
            info = getattr(self, "info", None)
            if info is not None:
                self.label.setText(self._label_text(info))
        return False

    def on_state(self, state: str) -> None:
        ok = state != WorkerState.COMPILING
        self.act_back.setEnabled(ok)
        self.act_back_n.setEnabled(ok)

    def _on_solver(self, name: str) -> None:
        self.bar.set_marked(registry()[name].marked_events)

    def clear(self) -> None:
        self.info = None
        self.bar.clear()
        self.label.setText("")
