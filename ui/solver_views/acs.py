"""The ant colony system's built-in view: where the ants failed, on the grid and ant by ant.

Chosen by the ``ant_failures`` layer role (int64 (C,): how many ants of the latest iteration left
each cell empty). Top: that count as an N x N heatmap laid out like the board (0 to the number of
ants). Bottom: the ``ant_failed`` layer, one row per ant and one column per cell in reading order,
a mark where the ant left the cell empty, the iteration's best ant's row outlined. Mid-iteration
(stepped by phases) both show the failures so far. The pheromone itself is the shared probability
view (the ``prob`` layer, normalised per cell); the ants' failed-cell counts are the generic
population histogram (``ant_costs``).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from sudoku_lab.model.geometry import cell_name
from sudoku_lab_ui.screenshots import Shot, register_shot
from sudoku_lab_ui.views import ViewSpec, register_view
from sudoku_lab_ui.widgets import theme

__all__ = ["AntFailuresView", "failure_summary"]


def failure_summary(failed: np.ndarray, ant_failed: np.ndarray, best_ant: int, N: int) -> str:
    """One line on where the ants failed: totals, the best ant, the cells most ants left empty.

    >>> import numpy as np
    >>> f = np.zeros(16, dtype=np.int64); f[5] = 2; f[6] = 1
    >>> a = np.zeros((2, 16), dtype=bool); a[0, 5] = a[1, 5] = a[1, 6] = True
    >>> failure_summary(f, a, 0, 4)
    '2 ants left 3 cells empty in all (2 different cells); best ant 1 (1 empty); most: r2c2 (2 of 2)'
    """
    A = int(ant_failed.shape[0])
    if A == 0:
        return "no iteration yet"
    total = int(failed.sum())
    if total == 0:
        return f"{A} ant{'s' if A != 1 else ''}: no cell left empty"
    distinct = int(np.count_nonzero(failed))
    order = np.argsort(-failed, kind="stable")[:3]
    most = ", ".join(f"{cell_name(int(c), N)} ({int(failed[c])} of {A})" for c in order if failed[c] > 0)
    best = ""
    if 0 <= best_ant < A:
        best = f"; best ant {best_ant + 1} ({int(ant_failed[best_ant].sum())} empty)"
    return (
        f"{A} ant{'s' if A != 1 else ''} left {total} cell{'s' if total != 1 else ''} empty in all "
        f"({distinct} different cell{'s' if distinct != 1 else ''}){best}; most: {most}"
    )


class AntFailuresView(QWidget):
    """Failures per cell (board layout) and per ant (ants x cells raster) for the latest iteration."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.view = pg.GraphicsLayoutWidget()
        self.view.setBackground(theme.PLOT["background"])
        cmap = pg.colormap.get(theme.PROB_COLORMAP)
        self.grid_plot = self.view.addPlot(row=0, col=0)
        self.grid_plot.setTitle("ants that left each cell empty", size="9pt", color=theme.PLOT["foreground"])
        self.ants_plot = self.view.addPlot(row=1, col=0)
        self.ants_plot.setTitle("cells each ant left empty (rows: ants)", size="9pt", color=theme.PLOT["foreground"])
        for plot in (self.grid_plot, self.ants_plot):
            plot.hideAxis("bottom")
            plot.setMenuEnabled(False)
            plot.hideButtons()
            vb = plot.getViewBox()
            vb.setMouseEnabled(False, False)
            vb.invertY(True)
        self.grid_plot.hideAxis("left")
        self.grid_plot.getViewBox().setAspectLocked(True)
        self.ants_plot.setLabel("left", "ant")
        self.grid_image = pg.ImageItem(axisOrder="row-major")
        self.grid_image.setLookupTable(cmap.getLookupTable(nPts=256))
        self.grid_plot.addItem(self.grid_image)
        self.box_lines = pg.PlotCurveItem(pen=pg.mkPen(theme.PLOT["foreground"], width=1.0), connect="pairs")
        self.grid_plot.addItem(self.box_lines)
        self.ants_image = pg.ImageItem(axisOrder="row-major")
        self.ants_image.setLookupTable(np.array([[245, 245, 245], [213, 94, 0]], dtype=np.ubyte))
        self.ants_plot.addItem(self.ants_image)
        self.best_outline = pg.PlotCurveItem(pen=pg.mkPen("#009E73", width=2.0))
        self.ants_plot.addItem(self.best_outline)
        self.bar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=cmap, label="ants", interactive=False, width=14)
        self.bar.setImageItem(self.grid_image, insert_in=None)
        self.view.addItem(self.bar, row=0, col=1)
        self.view.ci.layout.setRowStretchFactor(0, 3)
        self.view.ci.layout.setRowStretchFactor(1, 2)
        self.readout = QLabel("no run yet")
        self.readout.setObjectName("acs_failures_readout")
        self.readout.setFont(theme.mono_font())
        self.readout.setWordWrap(True)
        self.readout.setContentsMargins(8, 4, 8, 4)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.view, 1)
        lay.addWidget(self.readout)
        self._n = 0

    # ------------------------------------------------------------ lab hooks
    def on_puzzle(self, puzzle) -> None:
        self.readout.setText("no run yet")
        self.grid_image.clear()
        self.ants_image.clear()
        self.best_outline.setData([], [])

    def on_progress(self, prog) -> None:
        snap = prog.snapshot
        failed = snap.layers.get("failed")
        if failed is None:
            return
        self.show_failures(
            np.asarray(failed), np.asarray(snap.layers["ant_failed"]), int(snap.layers["best_ant"]), snap.puzzle.n
        )
        word = "so far" if snap.phase else ""
        it = snap.iteration + (1 if snap.phase else 0)
        self.readout.setText(f"iteration {it:,}{' ' + word if word else ''}: " + self.summary)

    # ------------------------------------------------------------------ API
    def show_failures(self, failed: np.ndarray, ant_failed: np.ndarray, best_ant: int, n: int) -> None:
        """Draw the per-cell counts ``failed`` (C,) and the raster ``ant_failed`` (A, C)."""
        N = n * n
        A = max(int(ant_failed.shape[0]), 1)
        if n != self._n:
            self._box_lines(n)
            self._n = n
        self.grid_image.setImage(failed.reshape(N, N).astype(float), autoLevels=False, levels=(0.0, float(A)))
        self.bar.setLevels((0.0, float(A)))
        if ant_failed.shape[0]:
            self.ants_image.setImage(ant_failed.astype(np.uint8), autoLevels=False, levels=(0, 1))
            self.ants_plot.getViewBox().setRange(
                xRange=(0, ant_failed.shape[1]), yRange=(0, ant_failed.shape[0]), padding=0.0
            )
        else:
            self.ants_image.clear()
        if 0 <= best_ant < ant_failed.shape[0]:
            C = ant_failed.shape[1]
            y0, y1 = best_ant, best_ant + 1
            self.best_outline.setData([0, C, C, 0, 0], [y0, y0, y1, y1, y0])
        else:
            self.best_outline.setData([], [])
        self.summary = failure_summary(failed, ant_failed, best_ant, N)

    summary = "no iteration yet"

    def _box_lines(self, n: int) -> None:
        N = n * n
        xs, ys = [], []
        for k in range(0, N + 1, n):
            xs += [0, N, k, k]
            ys += [k, k, 0, N]
        self.box_lines.setData(np.array(xs, dtype=float), np.array(ys, dtype=float))
        self.grid_plot.getViewBox().setRange(xRange=(0, N), yRange=(0, N), padding=0.02)


register_view(
    ViewSpec(
        "acs_failures",
        "Ant failures",
        AntFailuresView,
        requires_role="ant_failures",
        area=Qt.RightDockWidgetArea,
        tab_with="probability",
    ),
    replace=True,
)

# ``python -m sudoku_lab_ui.screenshots docs --only acs --only phase-acs`` (under a display)
register_shot(Shot("screenshot-acs.png", "acs", "lewis_25x25_45_01", 400, seed=0, front=("probability",)))
