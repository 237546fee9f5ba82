"""ConvergencePlot: a solver's per-iteration trace with its events, fast enough for hour-long runs.

Costs go on the left axis; rho and entropy (values in [0, 1]) on a right axis
whose ViewBox is linked on X. Events (restarts, run ends, parameter changes)
are vertical lines with short labels. Curves are created once and only get
``setData``; they are peak-downsampled and clipped to the view, and event
lines are created only for new events, at most :data:`MAX_MARKERS` of them
(the latest), recycling the oldest line.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QVBoxLayout, QWidget

from sudoku_lab.solvers.base import Event

from . import theme

__all__ = ["ConvergencePlot", "MAX_MARKERS", "LABELLED_MARKERS", "event_label"]

#: Most event lines drawn at once (the latest ones).
MAX_MARKERS = 200
#: Most event lines that also carry a text label (the latest ones).
LABELLED_MARKERS = 24
#: Least distance on screen between two labelled event lines (labels run vertically).
LABEL_SPACING_PX = 16

#: Trace columns drawn against the left (cost) axis and the right ([0, 1]) axis.
LEFT_COLUMNS = ("cost", "mean_cost", "best_cost")
RIGHT_COLUMNS = ("rho", "entropy")


def _value(v) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def _pen(name: str):
    color, width, dashed, _ = theme.CURVES[name]
    return pg.mkPen(color, width=width, style=Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)


def event_label(event: Event) -> str:
    """A short label for an event line: ``partial: box 5``, ``failed``, ``alpha 0.7->0.9``."""
    if event.kind == "param":
        return f"{event.name} {_value(event.old)}->{_value(event.new)}"
    if event.kind == "restart":
        return f"{event.name}: {event.new}" if event.new not in (None, "") else f"{event.name} restart"
    if event.kind == "run_end":
        return event.name
    return f"{event.kind} {event.name}"


def _nice_ceiling(v: float) -> float:
    """The smallest of 1, 2, 5 x 10^k that is >= v (v > 0)."""
    k = 10.0 ** np.floor(np.log10(v))
    for m in (1.0, 2.0, 5.0, 10.0):
        if m * k >= v:
            return float(m * k)
    return float(10 * k)


class ConvergencePlot(QWidget):
    """Convergence curves of a run (cost, best cost, mean cost, rho, entropy) and its events.

    Notes
    -----
    For RESEDA (Maire & Prissette 2012, section 2.3; docs/algorithms.md#reseda)
    a run fails when rho rises above beta, drawn as a dashed line by
    :meth:`set_beta`. Solvers that record only ``cost`` and
    ``best_cost`` get just those curves and legend entries.
    """

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        fg = theme.PLOT["foreground"]
        self.view = pg.GraphicsLayoutWidget()
        self.view.setBackground(theme.PLOT["background"])
        # The legend sits in its own row above the plot, where it never hides data.
        self.legend = pg.LegendItem(labelTextColor=fg, labelTextSize="10pt", colCount=len(theme.CURVES))
        self.view.addItem(self.legend, row=0, col=0)
        self.plot = self.view.addPlot(row=1, col=0)
        self.plot.setMenuEnabled(False)
        self.plot.showAxis("right")
        for name in ("left", "bottom", "right"):
            axis = self.plot.getAxis(name)
            axis.setPen(fg)
            axis.setTextPen(fg)
            axis.setTickFont(theme.ui_font(10))
        label_style = {"color": fg, "font-size": "11pt"}
        self.plot.setLabel("left", "cost (missing symbols)", **label_style)
        self.plot.setLabel("right", "rho, entropy", **label_style)
        self.plot.setLabel("bottom", "iteration", **label_style)
        # Costs always show from 0 (a solved grid); set_trace sets the top, the X axis follows the data.
        self.plot.getViewBox().setMouseEnabled(x=True, y=False)
        self.plot.getViewBox().enableAutoRange(y=False)

        # Second ViewBox for [0, 1] series, sharing X with the main one.
        self.right_view = pg.ViewBox(enableMenu=False)
        self.plot.scene().addItem(self.right_view)
        self.plot.getAxis("right").linkToView(self.right_view)
        self.right_view.setXLink(self.plot)
        self.right_view.setYRange(0.0, 1.02, padding=0)
        self.right_view.setMouseEnabled(x=False, y=False)
        self.plot.getViewBox().sigResized.connect(self._sync_views)
        self.plot.getViewBox().sigResized.connect(self._relabel)
        self.plot.getViewBox().sigXRangeChanged.connect(self._relabel)

        self.curves: dict[str, pg.PlotDataItem] = {}
        for name in LEFT_COLUMNS + RIGHT_COLUMNS:
            curve = pg.PlotDataItem(pen=_pen(name), skipFiniteCheck=True)
            if name in LEFT_COLUMNS:
                self.plot.addItem(curve)
            else:
                self.right_view.addItem(curve)
            # After addItem, which applies the PlotItem's own (off) downsampling to its items.
            curve.setDownsampling(auto=True, method="peak")
            curve.setClipToView(True)
            self.curves[name] = curve

        self.beta_line = pg.InfiniteLine(
            angle=0, pen=_pen("beta"), label="beta {value:.2f}",
            labelOpts={"position": 0.99, "color": theme.CURVES["beta"][0], "anchors": [(1, 1), (1, 1)]})
        self.right_view.addItem(self.beta_line, ignoreBounds=True)
        self.beta_line.setVisible(False)

        self._legend_columns: tuple[str, ...] = ()

        self._markers: deque[_Marker] = deque()
        self._n_events = 0
        self._first_event: Event | None = None
        self._trace_key: tuple | None = None
        self._x_top: float | None = None
        self._y_top: float | None = None
        self._follow_x = True  # until the user zooms or pans
        self.plot.getViewBox().enableAutoRange(x=False)
        self.plot.getViewBox().sigRangeChangedManually.connect(self._stop_following)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)

    # ------------------------------------------------------------------- API
    def set_trace(self, trace: Mapping[str, np.ndarray]) -> None:
        """Show a run's trace.

        Parameters
        ----------
        trace : mapping of str to ndarray of float64, shape (T,)
            Column ``"iteration"`` plus any of ``"cost"``, ``"best_cost"``,
            ``"mean_cost"``, ``"rho"``, ``"entropy"`` (other columns are
            ignored). Arrays are kept by reference, not copied, so they must
            not change afterwards (``Snapshot.trace`` views never do).
        """
        x = trace["iteration"]
        columns = tuple(name for name in self.curves if name in trace)
        key = (len(x), float(x[-1]) if len(x) else None, columns)
        if key == self._trace_key:
            return  # the same trace as the last frame: nothing to redraw
        self._trace_key = key
        for name, curve in self.curves.items():
            if name in trace:
                curve.setData(x, trace[name])
            elif curve.xData is not None:
                curve.clear()
        top = max((float(np.max(trace[name])) for name in LEFT_COLUMNS if name in trace and len(x)), default=1.0)
        # Axes move in steps (1, 2, 5 x 10^k): between steps pyqtgraph reuses its cached tick layout,
        # which is most of a repaint, and the curves do not jitter while the class watches.
        y_top = _nice_ceiling(max(top, 1.0))
        if y_top != self._y_top:
            self._y_top = y_top
            self.plot.setYRange(0.0, y_top, padding=0.02)
        if self._follow_x and len(x):
            x_top = _nice_ceiling(max(float(x[-1]), 10.0))
            if x_top != self._x_top:
                self._x_top = x_top
                self.plot.setXRange(float(x[0]) if x[0] > x_top / 2 else 0.0, x_top, padding=0.01)
        if columns != self._legend_columns:
            self._legend_columns = columns
            self.legend.clear()
            for name in columns:
                self.legend.addItem(self.curves[name], theme.CURVES[name][3])
        self.plot.showAxis("right", any(name in trace for name in RIGHT_COLUMNS) or self.beta_line.isVisible())

    def set_events(self, events: Sequence[Event]) -> None:
        """Draw event lines; call with the run's whole event list each frame.

        Parameters
        ----------
        events : sequence of Event
            ``Snapshot.events``: only events past those already drawn get a
            new line; a shorter or different list (a new run) starts over.
        """
        if len(events) < self._n_events or (events and self._first_event is not None
                                             and events[0] != self._first_event):
            self._clear_markers()
        if not events:
            return
        self._first_event = events[0]
        new = events[self._n_events:]
        if not new:
            return
        self._n_events = len(events)
        for event in new[-MAX_MARKERS:]:
            self._add_marker(event)
        self._relabel()

    def set_beta(self, beta: float | None) -> None:
        """Draw beta (a run fails when rho exceeds it) as a dashed line on the right axis; None hides it."""
        if beta is None:
            self.beta_line.setVisible(False)
            return
        self.beta_line.setVisible(True)  # first: a hidden line's label ignores value changes
        self.beta_line.setValue(float(beta))
        self.plot.showAxis("right", True)

    def _stop_following(self, *_) -> None:
        self._follow_x = False

    def set_iteration_name(self, name: str) -> None:
        """Label of the X axis, e.g. ``"EDA step"`` (a solver's ``iteration_name``)."""
        self.plot.setLabel("bottom", name, color=theme.PLOT["foreground"], **{"font-size": "11pt"})

    def clear(self) -> None:
        """Forget the trace and the events (a new run); beta stays."""
        for curve in self.curves.values():
            curve.clear()
        self._trace_key = None
        self._x_top = self._y_top = None
        self._follow_x = True
        self._clear_markers()

    def markers(self) -> list[pg.InfiniteLine]:
        """The event lines drawn, oldest first (at most :data:`MAX_MARKERS`)."""
        return [m.line for m in self._markers]

    def marker_labels(self) -> list[str]:
        """The label of each event line, oldest first (events at one iteration share a line)."""
        return [m.text for m in self._markers]

    @property
    def n_events(self) -> int:
        """Events seen since the last :meth:`clear` (drawn or not)."""
        return self._n_events

    # -------------------------------------------------------------- internals
    def _sync_views(self) -> None:
        self.right_view.setGeometry(self.plot.getViewBox().sceneBoundingRect())
        self.right_view.linkedViewChanged(self.plot.getViewBox(), self.right_view.XAxis)

    def _add_marker(self, event: Event) -> None:
        color = theme.EVENTS.get(event.kind, theme.GREY)
        text, tip = event_label(event), event.describe()
        last = self._markers[-1] if self._markers else None
        if last is not None and last.line.value() == event.iteration:
            # A run end and the restart it triggers share an iteration: one line, one joined label.
            last.text, last.tooltip = f"{last.text} · {text}", f"{last.tooltip}\n{tip}"
            marker = last
        else:
            if len(self._markers) >= MAX_MARKERS:
                marker = self._markers.popleft()  # recycle the oldest line
            else:
                line = pg.InfiniteLine(angle=90, movable=False, label="",
                                       labelOpts={"rotateAxis": (1, 0), "anchors": [(1, 1), (1, 1)],
                                                  "position": 0.98})
                self.plot.addItem(line, ignoreBounds=True)
                marker = _Marker(line)
            marker.text, marker.tooltip = text, tip
            marker.line.setValue(event.iteration)
            self._markers.append(marker)
        marker.line.setPen(pg.mkPen(theme.qcolor(color, 150), width=1))
        marker.line.label.setColor(color)
        # InfLineLabel formats its text with str.format(value=...).
        marker.line.label.setFormat(marker.text.replace("{", "{{").replace("}", "}}"))
        marker.line.setToolTip(marker.tooltip)

    def _relabel(self) -> None:
        """Label the newest lines that are at least LABEL_SPACING_PX apart on screen (up to LABELLED_MARKERS)."""
        if not self._markers:
            return
        vb = self.plot.getViewBox()
        x0, x1 = vb.viewRange()[0]
        scale = vb.width() / max(x1 - x0, 1e-12)
        last_px = None
        shown = 0
        for marker in reversed(self._markers):
            px = marker.line.value() * scale
            visible = (shown < LABELLED_MARKERS and x0 <= marker.line.value() <= x1
                       and (last_px is None or abs(last_px - px) >= LABEL_SPACING_PX))
            if visible != marker.labelled:
                marker.line.label.setVisible(visible)
                marker.labelled = visible
            if visible:
                last_px = px
                shown += 1

    def _clear_markers(self) -> None:
        for marker in self._markers:
            self.plot.removeItem(marker.line)
        self._markers.clear()
        self._n_events = 0
        self._first_event = None


class _Marker:
    """One event line and the text of the event(s) it marks."""

    __slots__ = ("line", "text", "tooltip", "labelled")

    def __init__(self, line: pg.InfiniteLine):
        self.line = line
        self.text = ""
        self.tooltip = ""
        self.labelled = True
