"""The "Population" view: a live histogram of any solver's ``population`` layer.

Shown for every solver that declares a layer with role ``population`` (float
(P,): the fitness or cost of each member of a population). The histogram
reuses one bar item and three marker lines (best, mean, worst), so a redraw
only replaces their data; the view host feeds it only while it is visible
(and draws it once when it is shown again). Which end is "best" follows the
solver's :class:`~sudoku_lab.solvers.declare.Objective`: the higher values
when the solver declares a native objective it maximises, the lower ones
otherwise (a cost). The x axis label is the layer's ``help``. The view names
no solver.

After a **Step phase**, the members the phase replaced (its ``changed["members"]``)
are marked under the bars at their values (vermillion triangles), and the ones it
selected (``changed["selected"]``, when they index the population) in green.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from sudoku_lab_ui.views import SIDE_DOCK_HINT, ViewSpec, _RoleView, layer_of, register_view
from sudoku_lab_ui.widgets.axis_titles import AxisTitles

__all__ = ["PopulationView", "histogram_edges", "higher_is_better"]

#: Integer-valued populations spanning at most this many values get one bar per value.
MAX_INTEGER_BINS = 80
#: Bars otherwise.
BINS = 40
MARK_COLOURS = {"best": "#009E73", "mean": "#CC79A7", "worst": "#D55E00"}
#: Where the marks' labels sit along their lines (0 bottom, 1 top), on the first row.
LABEL_TOP = 0.92


def histogram_edges(values: np.ndarray) -> np.ndarray:
    """Bin edges for a population: one bin per integer value when they are few integers, else :data:`BINS` bins."""
    v = np.asarray(values, dtype=float)
    lo, hi = float(v.min()), float(v.max())
    if np.all(v == np.round(v)) and hi - lo <= MAX_INTEGER_BINS:
        return np.arange(lo - 0.5, hi + 1.0, 1.0)
    if hi == lo:
        return np.array([lo - 0.5, hi + 0.5])
    return np.histogram_bin_edges(v, bins=BINS)


def higher_is_better(cls) -> bool:
    """True when the solver declares a native objective it maximises (a fitness), False for a cost."""
    obj = cls.objective
    return obj.native is not None and obj.native_sense == "max"


class PopulationView(_RoleView, QWidget):
    """Histogram of the current population's values with best, mean and worst marked.

    Attributes
    ----------
    edges, counts : ndarray
        The histogram drawn last (``numpy.histogram`` of the layer with these edges).
    marks : dict of str to float
        The values of the ``best``, ``mean`` and ``worst`` lines.
    """

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        self.summary = QLabel("no population yet")
        self.summary.setObjectName("population_summary")
        self.summary.setWordWrap(True)
        lay.addWidget(self.summary)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setMenuEnabled(False)
        self.axis_titles = AxisTitles(self.plot.getPlotItem(), sizes=(10, 9, 8))  # within their axes
        self.axis_titles.set("left", "individuals")
        self.plot.showGrid(x=False, y=True, alpha=0.3)
        lay.addWidget(self.plot, 1)
        self.bars = pg.BarGraphItem(x=[0.0], height=[0.0], width=1.0, brush="#56B4E9", pen=pg.mkPen("#0072B2"))
        self.plot.addItem(self.bars)
        self.lines: dict[str, pg.InfiniteLine] = {}
        for key, colour in MARK_COLOURS.items():
            line = pg.InfiniteLine(
                angle=90,
                movable=False,
                pen=pg.mkPen(colour, width=2, style=Qt.DashLine if key == "mean" else Qt.SolidLine),
                label=key,
                labelOpts={"position": LABEL_TOP, "color": colour, "movable": False},
            )
            line.setVisible(False)
            self.plot.addItem(line)
            self.lines[key] = line
        # A phase step's members (replaced: vermillion) and selection (green), at their values under the bars.
        self.phase_marks = {
            "members": pg.ScatterPlotItem(symbol="t1", size=12, brush=pg.mkBrush("#D55E00"), pen=None),
            "selected": pg.ScatterPlotItem(symbol="t1", size=9, brush=pg.mkBrush("#009E73"), pen=None),
        }
        for item in self.phase_marks.values():
            self.plot.addItem(item)
        self.marked: dict[str, np.ndarray] = {}
        self.plot.getViewBox().sigResized.connect(self._place_labels)
        self.plot.getViewBox().sigXRangeChanged.connect(self._place_labels)
        self.legend_text = ""
        self.edges = np.zeros(0)
        self.counts = np.zeros(0, dtype=np.int64)
        self.marks: dict[str, float] = {}
        self._ranges: tuple | None = None
        self._layer: str | None = None
        self._higher = True
        self.redraws = 0

    def sizeHint(self) -> QSize:
        return SIDE_DOCK_HINT

    def on_solver(self, cls) -> None:
        super().on_solver(cls)
        self._layer = layer_of(cls, "population")
        decl = cls.layer(self._layer) if self._layer else None
        self._higher = higher_is_better(cls)
        self.axis_titles.set("bottom", decl.help if decl else "value")
        self.on_puzzle(None)

    def on_puzzle(self, puzzle) -> None:
        self.bars.setOpts(x=[0.0], height=[0.0], width=1.0)
        for line in self.lines.values():
            line.setVisible(False)
        self.edges = np.zeros(0)
        self.counts = np.zeros(0, dtype=np.int64)
        self.marks = {}
        self.summary.setText("no population yet")
        # A plain 0..1 frame until the first population (the empty bar would auto-range to nonsense),
        # and the next population sets its own range.
        self._ranges = None
        self.plot.setXRange(0, 1, padding=0)
        self.plot.setYRange(0, 1, padding=0)

    def on_progress(self, prog) -> None:
        s = prog.snapshot
        cls = self._cls(s)
        if self._layer is None or cls.layer(self._layer) is None:
            self.on_solver(cls)
        values = s.layers.get(self._layer) if self._layer else None
        if values is None or len(values) == 0 or not self.isVisible():
            return
        self.set_values(np.asarray(values, dtype=float), s.iteration, cls.iteration_name)
        self.set_phase_marks(getattr(prog, "phase", None), np.asarray(values, dtype=float))

    def set_phase_marks(self, step, values: np.ndarray) -> None:
        """Mark the members a phase step replaced and the ones it selected (None: clear the marks)."""
        self.marked = {}
        for key, item in self.phase_marks.items():
            idx = step.changed.get(key) if step is not None else None
            idx = np.asarray(idx if idx is not None else (), dtype=np.int64)
            if idx.size and (idx.min() < 0 or idx.max() >= len(values)):
                idx = np.zeros(0, dtype=np.int64)  # not indices into the population (e.g. into samples)
            self.marked[key] = idx
            item.setData(values[idx], np.zeros(idx.size))
        if step is not None:
            words = {"members": "replaced", "selected": "selected"}
            parts = [f"{len(v)} {words[k]}" for k, v in self.marked.items() if len(v)]
            self.summary.setText(self.summary.text() + (f"; this phase: {', '.join(parts)}" if parts else ""))

    def set_values(self, values: np.ndarray, iteration: int = 0, iteration_name: str = "iteration") -> None:
        """Draw the histogram of ``values`` and mark best, mean and worst."""
        edges = histogram_edges(values)
        counts, _ = np.histogram(values, bins=edges)
        self.edges, self.counts = edges, counts
        centres = (edges[:-1] + edges[1:]) / 2
        self.bars.setOpts(x=centres, height=counts, width=float(edges[1] - edges[0]) * 0.9)
        hi, lo = float(values.max()), float(values.min())
        best, worst = (hi, lo) if self._higher else (lo, hi)
        self.marks = {"best": best, "mean": float(values.mean()), "worst": worst}
        for key, line in self.lines.items():
            line.setValue(self.marks[key])
            line.setVisible(True)
        pad = float(edges[1] - edges[0])
        # The x range snapped outwards to a 1-2-5 step of about a quarter of the span, so it (and the axes'
        # tick layout, which costs most of a repaint) stays put while the population drifts a little.
        lo_x, hi_x = float(edges[0]) - pad, float(edges[-1]) + pad
        step = _nice_top((hi_x - lo_x) / 4)
        ranges = (math.floor(lo_x / step) * step, math.ceil(hi_x / step) * step, _nice_top(int(counts.max()) * 1.15))
        if ranges != self._ranges:  # a new range re-lays out the axes: only when it changes
            self._ranges = ranges
            self.plot.setXRange(ranges[0], ranges[1], padding=0)
            self.plot.setYRange(0, ranges[2], padding=0)
        self._place_labels()
        self.summary.setText(
            f"{iteration_name} {iteration}: {len(values)} individuals, best {_fmt(best)}, "
            f"mean {values.mean():.2f}, worst {_fmt(worst)}"
        )
        self.redraws += 1

    def _place_labels(self, *_) -> None:
        """Put a mark's label a row lower where it would overlap one on the row above.

        Once a population converges, best, mean and worst are a few pixels apart
        (or equal), and labels at one height printed on top of each other.
        """
        vb = self.plot.getViewBox()
        height = max(vb.height(), 1.0)
        (x0, x1), _ = vb.viewRange()
        scale = vb.width() / (x1 - x0) if x1 > x0 else 0.0
        rows: list[list[tuple[float, float]]] = []  # per row: the labels' (left, right) in pixels
        for key in sorted(self.marks, key=lambda k: self.marks[k]):
            label = self.lines[key].label
            # Beside its line, towards the middle of the view (pyqtgraph's own rule, which it applies only once
            # the line's view geometry has caught up with the new value).
            side = 0.0 if self.marks[key] < (x0 + x1) / 2 else 1.0
            label.setAnchor((side, 0.5))
            w, h = label.boundingRect().width(), label.boundingRect().height()
            left = (self.marks[key] - x0) * scale - side * w
            span = (left - 2, left + w + 2)
            row = next(
                (i for i, taken in enumerate(rows) if all(span[1] < a or span[0] > b for a, b in taken)), len(rows)
            )
            if row == len(rows):
                rows.append([])
            rows[row].append(span)
            label.setPosition(max(0.0, LABEL_TOP - row * (h + 2) / height))


def _nice_top(x: float) -> float:
    """The next of 1, 2, 5 x 10^k at or above ``x`` (so the y range changes rarely)."""
    k = 1.0
    while True:
        for m in (1.0, 2.0, 5.0):
            if m * k >= x:
                return m * k
        k *= 10.0


def _fmt(x: float) -> str:
    return f"{x:g}"


register_view(
    ViewSpec("population", "Population", PopulationView, area=Qt.RightDockWidgetArea, requires_role="population")
)
