"""ConvergencePlot: a solver's declared trace columns per iteration, with its events, on runs of any length.

Everything drawn comes from the solver's declarations
(:mod:`sudoku_lab.solvers.declare`): one y axis per declared :class:`Axis`
(left and right, their labels and fixed limits), one curve per declared
:class:`Column` (its colour, or the shared palette of
:func:`sudoku_lab.solvers.declare.column_colours`, so the lab and exported figures
agree; its line style and legend label; hidden when ``shown=False`` but
switchable from the "Curves" menu or the legend), and a horizontal line per
:class:`Threshold` at the parameter's current value (RESEDA's beta on the rho
axis). A trace column nobody declared still gets a curve on the first axis.

Long runs stay readable: event markers (run ends, restarts, parameter
changes) come from :func:`sudoku_lab.stepping.markers.event_markers` for the visible
range only, recomputed (throttled) when the range or the events change, so
neighbouring run ends merge into one thin line with a count and a tooltip.
Labels go to parameter changes and unmerged markers, never closer than
:data:`LABEL_SPACING_PX`. The x range follows the whole run or the last W
iterations (the range box); zooming or panning with the mouse detaches it
until a range is picked again.

Curves are created once per solver and only get ``setData``; they are
peak-downsampled and clipped to the view.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFont, QFontMetrics
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QSizePolicy,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from sudoku_lab.solvers.base import Solver
from sudoku_lab.solvers.declare import Axis, Column
from sudoku_lab.stepping.markers import Marker, event_markers

from . import theme
from .axis_titles import AxisTitles
from .plot_size import plots_least

__all__ = ["ConvergencePlot", "MAX_MARKERS", "LABELLED_MARKERS", "LABEL_SPACING_PX", "RANGES"]

#: Most markers per kind (run, param) in the visible range; more events are merged into this many bins.
MAX_MARKERS = 40
#: Most markers that carry a text label at once.
LABELLED_MARKERS = 24
#: Least distance on screen between two labelled markers (labels run vertically).
LABEL_SPACING_PX = 20
#: Markers are recomputed at most this often (milliseconds) while the range or the events change.
MARKER_DELAY_MS = 120
#: Choices of the range box: label and window (iterations; None = the whole run).
RANGES = (("Whole run", None), ("Last 1,000", 1000), ("Last 10,000", 10_000))
_CUSTOM = "Custom (zoomed)"
#: Most of the view's width a legend beside the plot takes (longer labels are elided, whole in their tooltips).
LEGEND_SIDE_SHARE = 0.4

_STYLES = {
    "solid": Qt.PenStyle.SolidLine,
    "dashed": Qt.PenStyle.DashLine,
    "dotted": Qt.PenStyle.DotLine,
    "steps": Qt.PenStyle.SolidLine,
}


class _ElidedLabel(QLabel):
    """A one-line label that takes the width it is given, its text elided to it (whole in its tooltip)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._full = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        self._full = text
        self.setToolTip(text)
        self._elide()

    def text(self) -> str:
        """The whole text (what is drawn may be elided)."""
        return self._full

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, max(self.width(), 0))
        super().setText(shown if self.width() > 0 else self._full)


def _label_font(label: pg.LabelItem) -> QFont:
    """The font a legend label is drawn in: its declared size (``"10pt"``, ``"18px"``) on the default family."""
    font = theme.ui_font(10)
    size = str(label.opts.get("size") or "")
    try:
        if size.endswith("px"):
            font.setPixelSize(max(1, round(float(size[:-2]))))
        elif size.endswith("pt"):
            font.setPointSizeF(float(size[:-2]))
    except ValueError:  # a size pyqtgraph itself would not understand: the default
        pass
    return font


def _nice_ceiling(v: float, steps=(1.0, 2.0, 5.0, 10.0)) -> float:
    """The smallest of ``steps`` x 10^k that is >= v (v > 0): 1, 2, 5 x 10^k by default."""
    k = 10.0 ** np.floor(np.log10(v))
    for m in steps:
        if m * k >= v:
            return float(m * k)
    return float(10 * k)


#: Steps of the whole-run x range: fine enough that the run fills most of the plot.
_X_STEPS = (1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


class ConvergencePlot(QWidget):
    """Declared trace columns of a run on their declared axes, threshold lines and event markers.

    Signals
    -------
    rangeModeChanged(object)
        The range box changed: a window in iterations, None for the whole run,
        or ``"custom"`` after the user zoomed or panned.
    """

    rangeModeChanged = Signal(object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        fg = theme.PLOT["foreground"]
        self.range_box = QComboBox()
        for label, window in RANGES:
            self.range_box.addItem(label, window)
        self.range_box.addItem(_CUSTOM, "custom")
        self.range_box.setToolTip(
            "Show the whole run, or follow the latest iterations; zoom with the mouse "
            "wheel, pan by dragging (then pick a range to follow again)"
        )
        self.curves_button = QToolButton()
        self.curves_button.setText("Curves")
        self.curves_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.curves_button.setToolTip("Show or hide each declared trace column (clicking a legend entry does too)")
        self.curves_menu = QMenu(self.curves_button)
        self.curves_button.setMenu(self.curves_menu)
        # A long run's note ("272 events in view, merged into 32 marks") must not widen the view past its
        # dock, nor make the controls' row taller: one line, elided to the room the controls leave it.
        self.markers_note = _ElidedLabel()
        self.markers_note.setStyleSheet("color: #555;")
        controls = QHBoxLayout()
        controls.setContentsMargins(4, 2, 4, 0)
        controls.addWidget(QLabel("Range"))
        controls.addWidget(self.range_box)
        controls.addWidget(self.curves_button)
        controls.addStretch(1)
        controls.addWidget(self.markers_note)

        self.view = pg.GraphicsLayoutWidget()
        self.view.setBackground(theme.PLOT["background"])
        # The legend sits in its own row above the plot, where it never hides data.
        self.legend = pg.LegendItem(labelTextColor=fg, labelTextSize="10pt", colCount=5)
        self.view.addItem(self.legend, row=0, col=0)
        self.plot = self.view.addPlot(row=1, col=0)
        self.plot.setMenuEnabled(False)
        self.plot.showAxis("right")
        self._label_style = {"color": fg, "font-size": "11pt"}
        for name in ("left", "bottom", "right"):
            axis = self.plot.getAxis(name)
            axis.setPen(fg)
            axis.setTextPen(fg)
            axis.setTickFont(theme.ui_font(10))
        # Titles no longer than their axes (a long declared label was cut at the view's edges).
        self.axis_titles = AxisTitles(self.plot, self._label_style)
        self.axis_titles.set("bottom", "iteration")
        vb = self.plot.getViewBox()
        vb.setMouseEnabled(x=True, y=False)
        vb.enableAutoRange(x=False, y=False)
        # A second ViewBox for the right axis, sharing X with the main one.
        self.right_view = pg.ViewBox(enableMenu=False)
        self.plot.scene().addItem(self.right_view)
        self.plot.getAxis("right").linkToView(self.right_view)
        self.right_view.setXLink(self.plot)
        self.right_view.setMouseEnabled(x=False, y=False)
        self.right_view.enableAutoRange(x=False, y=False)
        vb.sigResized.connect(self._sync_views)
        vb.sigResized.connect(self._schedule_markers)
        vb.sigXRangeChanged.connect(self._on_x_range)
        vb.sigRangeChangedManually.connect(self._detach)

        self.curves: dict[str, pg.PlotDataItem] = {}
        self.thresholds: dict[tuple[str, str], pg.InfiniteLine] = {}
        self._columns: dict[str, Column] = {}
        self._axes: dict[str, Axis] = {}
        self._column_actions: dict[str, QAction] = {}
        self._colours: dict[str, str] = {}
        self._params: Mapping = {}
        self._trace: Mapping[str, np.ndarray] | None = None
        self._trace_key: tuple | None = None
        self._y_ranges: dict[str, tuple[float, float]] = {}
        self._dense = False
        self._legend_side = False
        self._x_range: tuple[float, float] | None = None
        self._window: int | None = None
        self._follow = True
        self._events: tuple = ()
        self._pool: list[pg.InfiniteLine] = []
        self._drawn: list[tuple[pg.InfiniteLine, Marker, bool]] = []
        self.max_markers = MAX_MARKERS
        # The moment shown after a rewind on the timeline (hidden at the end of the recorded run).
        self.cursor = pg.InfiniteLine(
            angle=90, movable=False, pen=pg.mkPen("#c0392b", width=2, style=Qt.PenStyle.DashLine)
        )
        self.cursor.setZValue(20)
        self.cursor.setVisible(False)
        self.plot.addItem(self.cursor, ignoreBounds=True)
        self._extent: float | None = None
        self._marker_timer = QTimer(self)
        self._marker_timer.setSingleShot(True)
        self._marker_timer.setInterval(MARKER_DELAY_MS)
        self._marker_timer.timeout.connect(self.update_markers)
        self.range_box.currentIndexChanged.connect(self._on_range_box)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(controls)
        layout.addWidget(self.view, 1)
        self.view.installEventFilter(self)
        self.view.viewport().installEventFilter(self)  # tooltips that go when the pointer leaves their mark
        self.marked_events = tuple(Solver.marked_events)
        self.set_declarations(Solver.columns, Solver.axes)

    # ----------------------------------------------------------- declarations
    def set_solver(self, cls) -> None:
        """Take a solver class's declared axes, columns and iteration name (and forget the trace)."""
        self.marked_events = tuple(cls.marked_events)  # which event kinds are run markers: the solver's declaration
        self.set_declarations(cls.columns, cls.axes, cls.iteration_name)

    def set_declarations(
        self, columns: Sequence[Column], axes: Sequence[Axis], iteration_name: str | None = None
    ) -> None:
        """Build the axes, curves, legend, curve menu and threshold lines of these declarations.

        The trace shown is forgotten: it belongs to the previous declarations.
        """
        from sudoku_lab.solvers.declare import column_colours

        for name in list(self.curves):
            self._remove_curve(name)
        for line in self.thresholds.values():
            vb = line.getViewBox()
            if vb is not None:
                vb.removeItem(line)
        self.thresholds.clear()
        self.legend.clear()
        self.curves_menu.clear()
        self._column_actions.clear()
        self._axes = {a.key: a for a in axes}
        self._columns = {c.name: c for c in columns}
        self._colours = column_colours(columns)
        self._y_ranges.clear()
        self._dense = False
        sides = {a.side: a for a in axes}
        for side in ("left", "right"):
            a = sides.get(side)
            self.plot.showAxis(side, a is not None)
            if a is not None:
                self.axis_titles.set(side, a.label)
                if a.limits is not None:
                    lo, hi = a.limits
                    self._view_of(a.key).setYRange(lo, hi + 0.02 * (hi - lo), padding=0)
        if iteration_name:
            self.set_iteration_name(iteration_name)
        for c in columns:
            self._add_curve(c)
        self._fit_legend()
        self._trace = None  # a trace belongs to its solver's declarations
        self._trace_key = None

    def _fit_legend(self) -> None:
        """As many legend columns above the plot as fit its width; beside the plot when rows would crowd it.

        Above the plot, long declared labels wrap onto more rows; in a short,
        wide dock (a small screen) those rows would take most of the height
        and leave the curves a strip a few pixels tall, so the legend then
        goes to the right of the plot, one entry a row, its labels elided to
        at most :data:`LEGEND_SIDE_SHARE` of the width (whole in their
        tooltips). Labels are measured in the size they are drawn in
        (presentation mode makes them larger), so the legend never makes the
        plot wider than its view.
        """
        entries = [label for _, label in self.legend.items]
        if not entries:
            return
        for label in entries:  # a label set anew (a new curve, presentation's larger type) is whole again
            if getattr(label, "full_text", None) is None or label.text != label.full_text:
                label.full_text = label.text
        fms = [QFontMetrics(_label_font(label)) for label in entries]
        texts = [label.full_text for label in entries]
        sample = 45  # the sample line and spacing
        widths = [fm.horizontalAdvance(t) + sample for fm, t in zip(fms, texts)]
        width = self.view.width()
        room = max(width - 30, 200)
        cols = 1
        for k in range(len(entries), 0, -1):
            per_col = [max(widths[i::k]) for i in range(k)]
            if sum(per_col) <= room:
                cols = k
                break
        row_h = max(max(fm.height() for fm in fms), 20) + 4  # a legend row: its 20 px sample or its label
        height = self.view.height()
        crowded = -(-len(entries) // cols) * row_h > height / 3
        beside = crowded and len(entries) * row_h <= height - 20
        if crowded and not beside:  # too short for either: more columns above, the labels elided to fit them
            rows = max(1, int(height / 3 // row_h))
            cols = min(len(entries), -(-len(entries) // rows))
        if beside != self._legend_side:
            self._legend_side = beside
            layout = self.view.ci
            layout.removeItem(self.legend)
            layout.addItem(self.legend, row=1 if beside else 0, col=1 if beside else 0)
            layout.layout.setAlignment(self.legend, Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        cols = 1 if beside else cols
        if cols != self.legend.columnCount:
            self.legend.setColumnCount(cols)
        most = (LEGEND_SIDE_SHARE * width if beside else room / cols) - sample
        for label, fm, text in zip(entries, fms, texts):
            shown = (
                text
                if fm.horizontalAdvance(text) <= most
                else fm.elidedText(text, Qt.TextElideMode.ElideRight, int(most))
            )
            if shown != label.text or shown != getattr(label, "shown_text", text):
                label.setText(shown)
                label.shown_text = shown
                label.text = text  # the entry's label stays the whole one (what is drawn may be elided)
            label.setToolTip(text if shown != text else "")
        QTimer.singleShot(0, self, self._fit_layout)

    def _fit_layout(self) -> None:
        """The plot's layout in the view's rectangle again, and the view no smaller than the layout's least size.

        A legend that changed rows re-lays out the plot at its own preferred size, larger than the view
        (the plot ran past the view's edges until the next resize); a view smaller than the layout's least
        size scrolls in its dock instead of cutting the plot.
        """
        plots_least(self)
        self.view.setRange(self.view.range, padding=0, disableAutoPixel=False)

    def fonts_changed(self) -> None:
        """The type was made larger or smaller (presentation mode): fit the legend to it again."""
        self._fit_legend()

    @property
    def legend_beside(self) -> bool:
        """True when the legend is to the right of the plot (a short, wide view), False when above it."""
        return self._legend_side

    def axis_title(self, side: str) -> str:
        """The title shown on axis ``side`` (the declared label, elided if it did not fit; whole in the tooltip)."""
        return self.axis_titles.shown(side)

    def eventFilter(self, obj, event) -> bool:
        # The view's own resize, not this widget's: in this widget's resizeEvent the view still has its old
        # size, and a legend fitted to it stayed wider than a view that had shrunk.
        if obj is self.view and event.type() == QEvent.Type.Resize:
            self._fit_legend()
        elif obj is self.view.viewport() and event.type() == QEvent.Type.ToolTip:
            return self._show_tooltip(event)
        elif obj is self.view.viewport() and event.type() == QEvent.Type.Leave:
            QToolTip.hideText()  # the pointer left the plot: its help goes with it
        return super().eventFilter(obj, event)

    def _show_tooltip(self, event) -> bool:
        """The tooltip of the mark (or legend entry) under the pointer, for as long as the pointer is on it.

        A QGraphicsScene shows an item's tooltip with no area of its own, so
        Qt kept it on show while the pointer moved anywhere over the plot.
        """
        for item in self.view.items(event.pos()):
            tip = item.toolTip()
            if tip and item.isVisible():
                area = self.view.mapFromScene(item.sceneBoundingRect()).boundingRect().adjusted(-2, -2, 2, 2)
                QToolTip.showText(event.globalPos(), tip, self.view.viewport(), area)
                return True
        QToolTip.hideText()
        event.ignore()
        return True

    def _view_of(self, axis_key: str) -> pg.ViewBox:
        a = self._axes.get(axis_key)
        if a is not None and a.side == "right":
            return self.right_view
        return self.plot.getViewBox()

    def _add_curve(self, c: Column) -> pg.PlotDataItem:
        color = self._colours.get(c.name) or self._next_colour()
        self._colours[c.name] = color
        pen = self._pen(c, color, dense=False)
        curve = pg.PlotDataItem(pen=pen, skipFiniteCheck=True, stepMode="right" if c.style == "steps" else None)
        vb = self._view_of(c.axis)
        if vb is self.plot.getViewBox():
            self.plot.addItem(curve)
        else:
            vb.addItem(curve)
        # After addItem, which applies the PlotItem's own (off) downsampling to its items. Peak
        # downsampling keeps each pixel column's min and max, so one bin per pixel loses nothing
        # visible (pyqtgraph's default draws ~5 per pixel, five times the path to stroke).
        curve.setDownsampling(auto=True, method="peak")
        curve.opts["autoDownsampleFactor"] = 1.0
        curve.setClipToView(True)
        curve.setVisible(c.shown)
        self.curves[c.name] = curve
        self.legend.addItem(curve, c.label)
        tip = f"{c.label}" + (f" ({c.unit})" if c.unit else "")
        act = QAction(c.label, self.curves_menu)
        act.setCheckable(True)
        act.setChecked(c.shown)
        act.setToolTip(tip)
        act.toggled.connect(lambda on, name=c.name: self.set_column_visible(name, on))
        self.curves_menu.addAction(act)
        self._column_actions[c.name] = act
        curve.visibleChanged.connect(lambda name=c.name: self._on_curve_visibility(name))
        for t in c.thresholds:
            line = pg.InfiniteLine(
                angle=0,
                movable=False,
                pen=pg.mkPen(color, width=1.5, style=Qt.PenStyle.DashLine),
                label=f"{t.label or t.param} {{value:.3g}}",
                labelOpts={"position": 0.99, "color": color, "anchors": [(1, 1), (1, 1)]},
            )
            line.setToolTip(t.meaning or f"{t.label or t.param}: a parameter of the solver")
            vb.addItem(line, ignoreBounds=True)
            line.setVisible(False)
            self.thresholds[(c.name, t.param)] = line
        return curve

    @staticmethod
    def _pen(c: Column, color: str, dense: bool):
        """The column's pen; dashed and dotted styles become a lighter solid line where data are dense.

        Qt strokes a dash pattern along the whole path: a noisy curve with
        several samples per pixel is a path hundreds of thousands of pixels
        long, about a second per repaint, and its dots merge into a solid band
        anyway.
        """
        width = 2.0 if c.style == "steps" else 1.5
        if dense and c.style in ("dashed", "dotted"):
            return pg.mkPen(theme.qcolor(color, 150), width=1.0)
        return pg.mkPen(color, width=width, style=_STYLES[c.style])

    def _update_pens(self, visible_points: int) -> None:
        dense = visible_points > max(self.plot.getViewBox().width(), 1.0) / 4
        if dense == self._dense:
            return
        self._dense = dense
        for name, c in self._columns.items():
            if c.style in ("dashed", "dotted") and name in self.curves:
                self.curves[name].setPen(self._pen(c, self._colours[name], dense))

    def _next_colour(self) -> str:
        from sudoku_lab.solvers.declare import PALETTE

        used = set(self._colours.values())
        return next((p for p in PALETTE if p not in used), PALETTE[len(self._colours) % len(PALETTE)])

    def _remove_curve(self, name: str) -> None:
        curve = self.curves.pop(name)
        vb = curve.getViewBox()
        if vb is self.plot.getViewBox():
            self.plot.removeItem(curve)
        elif vb is not None:
            vb.removeItem(curve)

    # ------------------------------------------------------------------- API
    def set_trace(self, trace: Mapping[str, np.ndarray]) -> None:
        """Show a run's trace.

        Parameters
        ----------
        trace : mapping of str to ndarray of float64, shape (T,)
            Column ``"iteration"`` plus the solver's columns (a column
            nobody declared gets a curve of its own on the first axis).
            Arrays are kept by reference, not copied, so they must not change
            afterwards (``Snapshot.trace`` views never do).
        """
        x = trace["iteration"]
        names = tuple(k for k in trace if k != "iteration")
        key = (len(x), float(x[-1]) if len(x) else None, names)
        if key == self._trace_key:
            return  # the same trace as the last frame: nothing to redraw
        self._trace_key = key
        self._trace = trace
        for name in names:
            if name not in self.curves:
                first = next(iter(self._axes), "cost")
                self._columns[name] = Column(name, axis=first)
                self._add_curve(self._columns[name])
            self.curves[name].setData(x, trace[name])
        for name, curve in self.curves.items():
            if name not in trace and curve.xData is not None:
                curve.clear()
        self._update_x_range()
        self._update_y_ranges()

    def set_params(self, params: Mapping) -> None:
        """Place each threshold line at its parameter's current value (hidden when the parameter is absent)."""
        self._params = params
        for (column, param), line in self.thresholds.items():
            value = params.get(param)
            show = value is not None and self.curves[column].isVisible()
            if value is not None and float(value) != line.value():
                line.setVisible(True)  # first: a hidden line's label ignores value changes
                line.setValue(float(value))
            line.setVisible(show)

    def set_events(self, events: Sequence) -> None:
        """The run's events (``Snapshot.events``); markers follow within :data:`MARKER_DELAY_MS`."""
        events = tuple(events)
        old = self._events
        if len(events) == len(old) and (not events or (events[-1] == old[-1] and events[0] == old[0])):
            return
        self._events = events
        if not events:
            self.update_markers()
        else:
            self._schedule_markers()

    def set_cursor(self, iteration: float | None, extent: float | None = None) -> None:
        """Show a vertical cursor at ``iteration`` (None: none) and keep the whole-run range up to ``extent``.

        After a rewind the trace ends at the iteration shown; the range still spans the recorded run
        (its furthest iteration, ``extent``), so the cursor shows where in it the moment is.
        """
        self.cursor.setVisible(iteration is not None)
        if iteration is not None and float(iteration) != self.cursor.value():
            self.cursor.setValue(float(iteration))
        extent = None if iteration is None or extent is None else float(extent)
        if extent != self._extent:
            self._extent = extent
            self._update_x_range()

    def cursor_iteration(self) -> float | None:
        """Where the cursor is, or None when it is hidden."""
        return float(self.cursor.value()) if self.cursor.isVisible() else None

    def set_iteration_name(self, name: str) -> None:
        """Label of the X axis, e.g. ``"EDA step"`` (a solver's ``iteration_name``)."""
        self.axis_titles.set("bottom", name)

    def set_column_visible(self, name: str, visible: bool) -> None:
        """Show or hide a column's curve (and its threshold lines)."""
        self.curves[name].setVisible(bool(visible))

    def column_visible(self, name: str) -> bool:
        return self.curves[name].isVisible()

    def set_range_mode(self, window: int | None) -> None:
        """Follow the whole run (None) or the last ``window`` iterations; one of :data:`RANGES`."""
        idx = self.range_box.findData(window)
        if idx < 0:
            raise ValueError(f"no range of {window!r} iterations; choose from {[w for _, w in RANGES]}")
        if idx == self.range_box.currentIndex():
            self._on_range_box(idx)
        else:
            self.range_box.setCurrentIndex(idx)

    def range_mode(self):
        """The window followed (None: the whole run), or ``"custom"`` after a zoom or pan."""
        return self._window if self._follow else "custom"

    def x_range(self) -> tuple[float, float]:
        """The visible range of iterations."""
        x0, x1 = self.plot.getViewBox().viewRange()[0]
        return float(x0), float(x1)

    def clear(self) -> None:
        """Forget the trace and the events (a new run, solver or puzzle); declarations, range mode and thresholds
        stay.

        The x range starts anew (0 to 10 iterations, as a run's first frames show) and so do the y ranges of
        the axes without fixed limits: a new run's first frame has no trace row yet, and the previous run's
        range used to stay on screen until the new one had its first iterations.
        """
        for curve in self.curves.values():
            curve.clear()
        self._trace = None
        self._trace_key = None
        self._extent = None
        self.cursor.setVisible(False)
        self._y_ranges.clear()
        if not self._follow:
            self._follow = True
            self._select_range_item(self._window)
        self._x_range = (0.0, 10.0)
        self.plot.setXRange(*self._x_range, padding=0.01)
        for key, a in self._axes.items():
            if a.limits is None:
                self._view_of(key).setYRange(0.0, 1.0, padding=0.02)
        self._events = ()
        self.update_markers()

    def markers(self) -> list[pg.InfiniteLine]:
        """The marker lines drawn, in iteration order (at most 2 x :data:`MAX_MARKERS`)."""
        return [line for line, _, _ in self._drawn]

    def drawn_markers(self) -> list[Marker]:
        """The markers drawn (:class:`sudoku_lab.stepping.markers.Marker`), in iteration order."""
        return [m for _, m, _ in self._drawn]

    def marker_labels(self) -> list[str]:
        """The text of each marker drawn (its tooltip's first line)."""
        return [m.label for _, m, _ in self._drawn]

    def labelled_markers(self) -> list[str]:
        """The labels shown on the plot right now."""
        return [line.label.format for line, _, _ in self._drawn if line.label.isVisible()]

    @property
    def n_events(self) -> int:
        """Events of the run shown."""
        return len(self._events)

    # ------------------------------------------------------------- x range
    def _on_range_box(self, idx: int) -> None:
        window = self.range_box.itemData(idx)
        if window == "custom":
            return
        self._window = window
        self._follow = True
        self._x_range = None
        self._update_x_range()
        self._update_y_ranges()
        self.rangeModeChanged.emit(window)

    def _select_range_item(self, window) -> None:
        self.range_box.blockSignals(True)
        self.range_box.setCurrentIndex(self.range_box.findData(window))
        self.range_box.blockSignals(False)

    def _detach(self, *_) -> None:
        """The user zoomed or panned: stop following until a range is picked again."""
        if self._follow:
            self._follow = False
            self._select_range_item("custom")
            self.rangeModeChanged.emit("custom")

    def _update_x_range(self) -> None:
        if not self._follow or self._trace is None:
            return
        x = self._trace["iteration"]
        if not len(x):
            return
        first, last = float(x[0]), float(x[-1])
        if self._window is None or last <= self._window:
            top = _nice_ceiling(max(last, self._extent or 0.0, 10.0), _X_STEPS)
            rng = (first if first > top / 2 else 0.0, top)
        else:
            rng = (last - self._window, last + 0.02 * self._window)
        if rng != self._x_range:
            self._x_range = rng
            self.plot.setXRange(*rng, padding=0.01)

    def _on_x_range(self, *_) -> None:
        if not self._follow:
            self._update_y_ranges()
        self._schedule_markers()

    def _update_y_ranges(self) -> None:
        """Axes without fixed limits span their visible curves' values in the visible range, in 1-2-5 steps."""
        if self._trace is None:
            return
        x = self._trace["iteration"]
        x0, x1 = self.x_range()
        i0, i1 = int(np.searchsorted(x, x0, "left")), int(np.searchsorted(x, x1, "right"))
        self._update_pens(i1 - i0)
        for key, a in self._axes.items():
            if a.limits is not None:
                continue
            lo, hi = math.inf, -math.inf
            for name, c in self._columns.items():
                if c.axis != key or name not in self._trace or not self.curves[name].isVisible():
                    continue
                y = np.asarray(self._trace[name][i0:i1])
                y = y[np.isfinite(y)]
                if y.size:
                    lo, hi = min(lo, float(y.min())), max(hi, float(y.max()))
            if not math.isfinite(hi):
                lo, hi = 0.0, 1.0
            # Steps of 1, 2, 5 x 10^k: between steps pyqtgraph reuses its tick layout and curves do not jitter.
            top = _nice_ceiling(max(hi, 1.0))
            bottom = 0.0 if lo >= 0 else -_nice_ceiling(-lo)
            if self._y_ranges.get(key) != (bottom, top):
                self._y_ranges[key] = (bottom, top)
                self._view_of(key).setYRange(bottom, top, padding=0.02)

    def _on_curve_visibility(self, name: str) -> None:
        visible = self.curves[name].isVisible()
        act = self._column_actions.get(name)
        if act is not None and act.isChecked() != visible:
            act.blockSignals(True)
            act.setChecked(visible)
            act.blockSignals(False)
        self.set_params(self._params)
        self._y_ranges.clear()
        self._update_y_ranges()

    # -------------------------------------------------------------- markers
    def _schedule_markers(self, *_) -> None:
        if not self._marker_timer.isActive():
            self._marker_timer.start()

    def update_markers(self) -> None:
        """Recompute the markers for the visible range now (the plot calls it, throttled, on changes)."""
        self._marker_timer.stop()
        x0, x1 = self.x_range()
        inside = [e for e in self._events if x0 <= e.iteration <= x1]
        # A run end and the restart it triggers share an iteration, hence one marker: a kind is merged
        # into bins only when it has more distinct iterations in view than markers allowed.
        M = self.max_markers
        merged = {
            "run": len({e.iteration for e in inside if e.kind in self.marked_events}) > M,
            "param": len({e.iteration for e in inside if e.kind == "param"}) > M,
        }
        ms = []
        if any(merged.values()):
            ms += [m for m in event_markers(inside, x0, x1, M, self.marked_events) if merged[m.kind]]
        if not all(merged.values()):
            ms += [
                m for m in event_markers(inside, x0, x1, max(M, len(inside)), self.marked_events) if not merged[m.kind]
            ]
        ms.sort(key=lambda m: m.iteration)
        while len(self._pool) < len(ms):
            line = pg.InfiniteLine(
                angle=90,
                movable=False,
                label="",
                labelOpts={"rotateAxis": (1, 0), "anchors": [(1, 1), (1, 1)], "position": 0.98},
            )
            self.plot.addItem(line, ignoreBounds=True)
            self._pool.append(line)
        old = {id(line): (m, b) for line, m, b in self._drawn}
        self._drawn = []
        for line, m in zip(self._pool, ms):
            if old.get(id(line)) != (m, merged[m.kind]):  # restyling re-lays out the label's text: skip it
                self._style_marker(line, m, merged[m.kind])
            line.setVisible(True)
            self._drawn.append((line, m, merged[m.kind]))
        for line in self._pool[len(ms) :]:
            line.setVisible(False)
        n_bins = sum(1 for _, _, b in self._drawn if b)
        self.markers_note.setText(
            f"{len(inside)} events in view, merged into {n_bins} marks" if any(merged.values()) else ""
        )
        self._relabel()

    def _style_marker(self, line: pg.InfiniteLine, m: Marker, binned: bool) -> None:
        if m.kind == "param":
            color = theme.MARKERS["param"]
            line.setPen(pg.mkPen(theme.qcolor(color, 200), width=1.2, style=Qt.PenStyle.DashLine))
            text = m.label
        else:
            color = theme.MARKERS["solved" if m.solved else "run"]
            width = 1.0 if not binned else min(3.0, 1.0 + 0.5 * math.log2(max(m.count, 1)))
            line.setPen(pg.mkPen(theme.qcolor(color, 80 if binned else 110), width=width))
            # A run end and its restart share a marker: its label names what comes next (the restart),
            # the tooltip has both.
            text = f"×{m.count}" if binned else m.label.split(" / ")[-1]
        line.setValue(m.iteration)
        line.label.setColor(color)
        # InfLineLabel formats its text with str.format(value=...).
        line.label.setFormat(text.replace("{", "{{").replace("}", "}}"))
        line.setToolTip(m.label + ("\n" + m.detail if m.detail and m.detail != m.label else ""))

    def _relabel(self) -> None:
        """Label parameter changes first, then unmerged markers, then bins, newest first, spaced on screen."""
        vb = self.plot.getViewBox()
        x0, x1 = vb.viewRange()[0]
        scale = max(vb.width(), 1.0) / max(x1 - x0, 1e-12)

        def rank(i: int) -> tuple:
            _, m, binned = self._drawn[i]
            return (0 if m.kind == "param" else 2 if binned else 1, -m.iteration)

        order = sorted(range(len(self._drawn)), key=rank)
        taken: list[float] = []
        shown = set()
        for i in order:
            if len(shown) >= LABELLED_MARKERS:
                break
            px = self._drawn[i][1].iteration * scale
            if all(abs(px - q) >= LABEL_SPACING_PX for q in taken):
                taken.append(px)
                shown.add(i)
        for i, (line, _, _) in enumerate(self._drawn):
            line.label.setVisible(i in shown)

    # -------------------------------------------------------------- internals
    def _sync_views(self) -> None:
        self.right_view.setGeometry(self.plot.getViewBox().sceneBoundingRect())
        self.right_view.linkedViewChanged(self.plot.getViewBox(), self.right_view.XAxis)
