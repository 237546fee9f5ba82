"""The cuckoo search's built-in view: nest costs sorted, their history as an image, operator counts over time.

Chosen by the ``nests`` layer role (the cost of each nest's egg). Read by
name when the solver declares them: ``best_nest`` (int), ``abandoned`` (bool
per nest: rebuilt in the latest iteration), ``picked`` / ``replaced`` (ints),
``operator`` (str) and ``mutated`` (bool) of the latest iteration,
``nest_history`` (int (K, P): row ``k`` holds each nest's cost after
iteration ``history_start + (k + 1) * history_stride``) and the trace columns ``pmx``, ``sorting``, ``mutations`` and
``abandoned`` (cumulative counts).

- Top: one bar per nest, sorted by cost, the best in green, nests abandoned in
  the latest iteration in vermillion, the nest that received the new egg
  outlined.
- Middle: nests (rows, in nest order) by iterations (columns), coloured by
  cost: a nest rebuilt after abandonment shows as a bright stripe, the best
  nest as a dark line.
- Bottom: operator counts over the run.

After a **Step phase**, the nests the phase touched (its ``changed["members"]``:
the nest picked, the one compared and replaced, the nests abandoned) are marked
over their bars with vermillion diamonds, and the read-out names them.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from sudoku_lab_ui.screenshots import Shot, register_shot
from sudoku_lab_ui.views import SIDE_DOCK_HINT, ViewSpec, _RoleView, layer_of, register_view
from sudoku_lab_ui.widgets import theme

__all__ = ["NestsView", "OPERATOR_COLUMNS", "bar_colours", "thin"]

#: Trace columns drawn in the operator plot, with their colours (Okabe-Ito) and legend names.
OPERATOR_COLUMNS = (
    ("pmx", "#0072B2", "PMX"),
    ("sorting", "#E69F00", "sorting crossover"),
    ("mutations", "#009E73", "mutations"),
    ("abandoned", "#D55E00", "nests abandoned"),
)
BEST, ABANDONED, OTHER = "#009E73", "#D55E00", "#56B4E9"
#: Most points per operator curve (cumulative counts, so every k-th point loses nothing visible).
MAX_POINTS = 2000


def bar_colours(order: np.ndarray, best: int, abandoned: np.ndarray | None) -> list[str]:
    """Colour of each bar of the sorted chart: the best nest, nests just abandoned, the rest.

    Parameters
    ----------
    order : ndarray of int
        Nest indices sorted by cost (bar ``i`` is nest ``order[i]``).
    best : int
        The best nest (-1 if unknown).
    abandoned : ndarray of bool, optional
        Per nest: rebuilt in the latest iteration.
    """
    out = []
    for nest in order.tolist():
        if nest == best:
            out.append(BEST)
        elif abandoned is not None and nest < len(abandoned) and abandoned[nest]:
            out.append(ABANDONED)
        else:
            out.append(OTHER)
    return out


def thin(x: np.ndarray, y: np.ndarray, most: int = MAX_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """Every k-th point of a curve (and its last), at most about ``most`` points."""
    if len(x) <= most:
        return x, y
    k = -(-len(x) // most)
    idx = np.r_[np.arange(0, len(x), k), len(x) - 1]
    return x[idx], y[idx]


class NestsView(_RoleView, QWidget):
    """Nest costs as a sorted bar chart, their history as an image, and operator counts over time.

    Attributes
    ----------
    bars : pg.BarGraphItem
    image : pg.ImageItem
    curves : dict of str to pg.PlotDataItem
    readout : QLabel
    order : ndarray of int
        Nests in the order of the bars (cheapest first) after the latest draw.
    """

    def __init__(self, parent=None):
        super().__init__(parent)
        self.readout = QLabel("no run yet")
        self.readout.setObjectName("nests_readout")
        self.readout.setFont(theme.mono_font())
        self.readout.setWordWrap(True)
        self.view = pg.GraphicsLayoutWidget()
        self.view.setBackground(theme.PLOT["background"])
        fg = theme.PLOT["foreground"]

        # The bar and operator plots span the colour bar's column too, and the titles stay short: a plot's
        # title sets its least width, and a layout wider than its view was cut at the dock's edge.
        self.bar_plot = self.view.addPlot(row=0, col=0, colspan=2)
        self.bar_plot.setTitle(
            f"nest costs, cheapest first (<span style='color:{BEST}'>best</span>, "
            f"<span style='color:{ABANDONED}'>abandoned</span>)",
            size="9pt",
            color=fg,
        )
        self.bar_plot.setLabel("left", "cost")
        self.bar_plot.setLabel("bottom", "nests by rank")
        self.bar_plot.setMenuEnabled(False)
        self.bar_plot.setMouseEnabled(False, False)
        self.bars = pg.BarGraphItem(x=[0.0], height=[0.0], width=0.8, brushes=[OTHER], pen=None)
        self.bar_plot.addItem(self.bars)
        self.replaced_mark = pg.ScatterPlotItem(symbol="t", size=11, brush=pg.mkBrush("#000000"), pen=None)
        self.bar_plot.addItem(self.replaced_mark)
        self.phase_mark = pg.ScatterPlotItem(
            symbol="d", size=13, brush=pg.mkBrush(ABANDONED), pen=pg.mkPen("#000000", width=1)
        )
        self.bar_plot.addItem(self.phase_mark)
        self.marked = np.zeros(0, dtype=np.int64)  # nests marked by the latest phase step

        self.hist_plot = self.view.addPlot(row=1, col=0)
        self.hist_plot.setTitle("nest costs over the run (rows: nests)", size="9pt", color=fg)
        self.hist_plot.setLabel("left", "nest")
        self.hist_plot.setLabel("bottom", "iteration")
        self.hist_plot.setMenuEnabled(False)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setLookupTable(pg.colormap.get("viridis").getLookupTable(nPts=256))
        self.hist_plot.addItem(self.image)
        self.cbar = pg.ColorBarItem(
            values=(0, 1), colorMap=pg.colormap.get("viridis"), label="cost", interactive=False, width=12
        )
        self.cbar.setImageItem(self.image, insert_in=None)
        self.view.addItem(self.cbar, row=1, col=1)

        self.op_plot = self.view.addPlot(row=2, col=0, colspan=2)
        self.op_plot.setTitle("operators applied so far", size="9pt", color=fg)
        self.op_plot.setLabel("bottom", "iteration")
        self.op_plot.setLabel("left", "count")
        self.op_plot.setMenuEnabled(False)
        self.op_plot.addLegend(offset=(5, 5), labelTextSize="8pt")
        self.curves = {
            key: self.op_plot.plot([], [], pen=pg.mkPen(colour, width=2), name=name)
            for key, colour, name in OPERATOR_COLUMNS
        }
        # Every axis counts something (nests, iterations, cost, operators): no "x0.001" scale prefixes,
        # which pyqtgraph put on the empty history's axes before the first iteration.
        for plot in (self.bar_plot, self.hist_plot, self.op_plot):
            for name in ("left", "bottom"):
                plot.getAxis(name).enableAutoSIPrefix(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.readout)
        lay.addWidget(self.view, 1)
        self.order = np.zeros(0, dtype=np.int64)
        self._shown_key = None

    def sizeHint(self):
        return SIDE_DOCK_HINT

    # ------------------------------------------------------------ lab hooks
    def on_puzzle(self, puzzle) -> None:
        self.readout.setText("no run yet")
        self.bars.setOpts(x=[0.0], height=[0.0], brushes=[OTHER])
        self.replaced_mark.setData([], [])
        self.phase_mark.setData([], [])
        self.marked = np.zeros(0, dtype=np.int64)
        self.image.clear()
        self.show_no_history()
        for c in self.curves.values():
            c.setData([], [])
        self.order = np.zeros(0, dtype=np.int64)
        self._shown_key = None

    def on_progress(self, prog) -> None:
        s = prog.snapshot
        cls = self._cls(s)
        step = getattr(prog, "phase", None)
        key = (s.solver, s.iteration, id(s.puzzle), None if step is None else (step.iteration, step.index))
        if key == self._shown_key:
            return
        self._shown_key = key
        L = s.layers
        name = layer_of(cls, "nests")
        if name is None or L.get(name) is None:  # a snapshot of another solver, in the moment of a switch
            return
        costs = np.asarray(L[name], dtype=float).reshape(-1)
        best = int(L.get("best_nest", int(np.argmin(costs)) if costs.size else -1))
        abandoned = np.asarray(L["abandoned"], dtype=bool) if L.get("abandoned") is not None else None
        replaced = int(L.get("replaced", -1) or -1) if "replaced" in L else -1
        self.show_costs(costs, best, abandoned, replaced)
        hist = L.get("nest_history")
        if hist is not None and np.asarray(hist).size:
            self.show_history(np.asarray(hist), int(L.get("history_stride", 1) or 1), int(L.get("history_start", 0)))
        else:  # before the first recorded iteration
            self.show_no_history(costs.size, s.iteration)
        self.show_operators(s.trace or {})
        op = L.get("operator")
        it_name = cls.iteration_name
        parts = [
            f"{it_name} {s.iteration}: best cost {int(costs.min()) if costs.size else '-'}"
            + (f" (nest {best + 1})" if best >= 0 else "")
            + (f", mean {costs.mean():.1f}" if costs.size else "")
        ]
        if op is not None and s.iteration > 0:
            picked = L.get("picked", -1)
            what = {
                "pmx": "PMX with the best egg",
                "sorting": "multiparental sorting crossover",
                "none": "nothing (the best nest was picked)",
            }.get(op, op)
            mut = " + mutation" if L.get("mutated") else ""
            where = f"nest {picked + 1}: " if picked is not None and picked >= 0 else ""
            into = f"; new egg into nest {replaced + 1}" if replaced >= 0 else "; new egg not better, dropped"
            parts.append(f"latest: {where}{what}{mut}{into}")
        if abandoned is not None:
            parts.append(f"{int(abandoned.sum())} nest{'s' * (int(abandoned.sum()) != 1)} abandoned")
        self.show_phase_members(step.changed.get("members") if step is not None else None, costs)
        if step is not None:
            nests = ", ".join(str(int(m) + 1) for m in self.marked[:12]) + ("..." if len(self.marked) > 12 else "")
            parts.append(f"phase {step.name}: nest{'s' * (len(self.marked) != 1)} {nests or 'none'}")
        self.readout.setText("; ".join(parts))

    def show_phase_members(self, members, costs: np.ndarray) -> None:
        """Mark the nests ``members`` (a phase step's, int) over their bars; None or empty clears the marks."""
        m = np.asarray(members if members is not None else (), dtype=np.int64)
        m = m[(m >= 0) & (m < len(costs))]
        self.marked = m
        if not m.size:
            self.phase_mark.setData([], [])
            return
        rank = np.argsort(self.order, kind="stable")  # nest -> its bar
        self.phase_mark.setData(rank[m].astype(float), costs[m].astype(float) + 1.2)

    # ------------------------------------------------------------------ API
    def show_costs(self, costs: np.ndarray, best: int, abandoned=None, replaced: int = -1) -> None:
        """Draw one bar per nest, sorted by cost (ties by nest index)."""
        self.order = np.argsort(costs, kind="stable")
        x = np.arange(len(costs), dtype=float)
        self.bars.setOpts(x=x, height=costs[self.order], brushes=bar_colours(self.order, best, abandoned))
        if 0 <= replaced < len(costs):
            rank = int(np.flatnonzero(self.order == replaced)[0])
            self.replaced_mark.setData([float(rank)], [float(costs[replaced]) + 0.6])
            self.replaced_mark.setToolTip(f"nest {replaced + 1} received the new egg")
        else:
            self.replaced_mark.setData([], [])
        top = float(costs.max()) if costs.size else 1.0
        self.bar_plot.setRange(xRange=(-0.6, max(len(costs), 1) - 0.4), yRange=(0, max(top, 1.0) * 1.15 + 1), padding=0)

    def show_history(self, hist: np.ndarray, stride: int, start: int = 0) -> None:
        """Draw the nests x iterations image: ``nest_history`` row ``k`` is iteration ``start + (k + 1) * stride``."""
        img = hist.T.astype(float)  # rows: nests, columns: recorded iterations
        lo, hi = float(img.min()), float(img.max())
        if hi <= lo:
            hi = lo + 1.0
        self.image.setImage(img, autoLevels=False, levels=(lo, hi))
        self.image.setRect(float(start), 0.0, float(hist.shape[0] * stride), float(hist.shape[1]))
        self.cbar.setLevels((lo, hi))
        self.hist_plot.setRange(xRange=(start, start + hist.shape[0] * stride), yRange=(0, hist.shape[1]), padding=0)

    def show_no_history(self, nests: int = 1, iteration: int = 0) -> None:
        """An empty history: the frame it will fill (nests by the iterations from ``iteration`` on), not a
        range about zero."""
        self.image.clear()
        self.cbar.setLevels((0.0, 1.0))
        self.hist_plot.setRange(xRange=(iteration, iteration + 1), yRange=(0, max(nests, 1)), padding=0)

    def show_operators(self, arrays) -> None:
        """Cumulative operator counts from the trace columns of :data:`OPERATOR_COLUMNS`."""
        it = arrays.get("iteration")
        for key, curve in self.curves.items():
            y = arrays.get(key)
            if y is None or it is None or len(y) == 0:
                curve.setData([], [])
                continue
            curve.setData(*thin(np.asarray(it, dtype=float), np.asarray(y, dtype=float)))


register_view(
    ViewSpec("nests", "Nests", NestsView, requires_role="nests", area=Qt.RightDockWidgetArea, tab_with="ac3"),
    replace=True,
)


# ``python -m sudoku_lab_ui.screenshots docs --only cuckoo-short --only cuckoo`` (under a display)
register_shot(Shot("screenshot-cuckoo-short.png", "cuckoo", "mk_hard_a", 60, seed=1, front=("nests",), whole=False))
register_shot(Shot("screenshot-cuckoo.png", "cuckoo", "mk_hard_c", 8000, seed=3, front=("nests",)))
