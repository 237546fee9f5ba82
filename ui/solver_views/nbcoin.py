"""NB-COIN's built-in view: the box models as N small heatmaps, the positions that moved most outlined.

Chosen by the ``box_models`` layer role (float64 (N, N, N): box, position,
digit). The shared probability view and board shading come from the
``prob`` layer's ``probability`` role; the population histogram from the
``population`` role (generic views).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from sudoku_lab_ui.screenshots import Shot, register_shot
from sudoku_lab_ui.views import ViewSpec, register_view
from sudoku_lab_ui.widgets import theme

__all__ = ["BoxModelsView", "top_movers"]


def top_movers(moved: np.ndarray, k: int) -> list[tuple[int, int]]:
    """The ``k`` (box, position) pairs whose model row moved most in the latest update (largest first).

    Parameters
    ----------
    moved : ndarray of float64, shape (N, N)
        Largest absolute change per (box, position) (the ``moved`` layer).
    k : int
        How many; pairs that did not move at all are left out.

    Returns
    -------
    list of (int, int)
        Ties broken by box, then position (a stable order).
    """
    flat = np.asarray(moved).reshape(-1)
    order = np.argsort(-flat, kind="stable")[:k]
    N = moved.shape[1]
    return [(int(i) // N, int(i) % N) for i in order if flat[i] > 0]


class BoxModelsView(QWidget):
    """One heatmap per box: rows are the box's positions (reading order), columns the digits 1..N.

    Images are created once per box size and only updated afterwards; the
    lab feeds the view only while it is visible. Positions among the
    ``marks`` top movers of the latest update get an outline.
    """

    def __init__(self, parent: QWidget | None = None, marks: int | None = None):
        super().__init__(parent)
        self.marks = marks
        self._n = 0
        self.images: list[pg.ImageItem] = []
        self.plots: list[pg.PlotItem] = []
        self.outline_items: list[pg.PlotCurveItem] = []
        self.marked: list[tuple[int, int]] = []
        self.view = pg.GraphicsLayoutWidget()
        self.view.setBackground(theme.PLOT["background"])
        self.readout = QLabel("no run yet")
        self.readout.setObjectName("nbcoin_box_models_readout")
        self.readout.setFont(theme.mono_font())
        self.readout.setWordWrap(True)
        self.readout.setContentsMargins(8, 4, 8, 4)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.view, 1)
        lay.addWidget(self.readout)
        self.bar = None

    def _build(self, n: int) -> None:
        N = n * n
        self.view.clear()
        self.images, self.plots, self.outline_items = [], [], []
        for b in range(N):
            plot = self.view.addPlot(row=b // n, col=b % n)
            plot.hideAxis("left")
            plot.hideAxis("bottom")
            plot.setMenuEnabled(False)
            plot.hideButtons()
            plot.setTitle(f"box {b + 1}", size="8pt", color=theme.PLOT["foreground"])
            vb = plot.getViewBox()
            vb.setAspectLocked(True)
            vb.setMouseEnabled(False, False)
            vb.invertY(True)
            img = pg.ImageItem(axisOrder="row-major")
            img.setLevels((0.0, 1.0))
            img.setLookupTable(pg.colormap.get(theme.PROB_COLORMAP).getLookupTable(nPts=256))
            plot.addItem(img)
            outline = pg.PlotCurveItem(pen=pg.mkPen("#D55E00", width=2.0), connect="pairs")
            plot.addItem(outline)
            vb.setRange(xRange=(0, N), yRange=(0, N), padding=0.02)
            self.images.append(img)
            self.plots.append(plot)
            self.outline_items.append(outline)
        self.bar = pg.ColorBarItem(
            values=(0.0, 1.0),
            colorMap=pg.colormap.get(theme.PROB_COLORMAP),
            label="M[position, digit]",
            interactive=False,
            width=14,
        )
        self.bar.setImageItem(self.images, insert_in=None)
        self.view.addItem(self.bar, row=0, col=n, rowspan=n)
        self._n = n

    # ------------------------------------------------------------ lab hooks
    def on_puzzle(self, puzzle) -> None:
        self.readout.setText("no run yet")
        for img in self.images:
            img.clear()
        for o in self.outline_items:
            o.setData([], [])

    def on_progress(self, prog) -> None:
        snap = prog.snapshot
        M = snap.layers.get("models")
        if M is None:
            return
        self.show_models(np.asarray(M), np.asarray(snap.layers["moved"]), snap.puzzle.n)
        it = snap.iteration
        top = self.marked[0] if self.marked else None
        moved = float(np.asarray(snap.layers["moved"]).max()) if top else 0.0
        where = f"; moved most: box {top[0] + 1} position {top[1] + 1} ({moved:.3f})" if top else ""
        self.readout.setText(f"generation {it}: outlined the {len(self.marked)} positions that moved most{where}")

    # ------------------------------------------------------------------ API
    def show_models(self, M: np.ndarray, moved: np.ndarray, n: int) -> None:
        """Draw ``M`` (N, N, N) and outline the top movers of ``moved`` (N, N)."""
        N = n * n
        if n != self._n:
            self._build(n)
        for b in range(N):
            self.images[b].setImage(M[b], autoLevels=False, levels=(0.0, 1.0))
            self.images[b].setToolTip(_tooltip(M[b], moved[b], b))
        self.marked = top_movers(moved, self.marks or N)
        by_box: dict[int, list[int]] = {}
        for b, pos in self.marked:
            by_box.setdefault(b, []).append(pos)
        for b in range(N):
            rows = by_box.get(b, [])
            if not rows:
                self.outline_items[b].setData([], [])
                continue
            y0 = np.asarray(rows, dtype=float) + 0.05
            y1 = y0 + 0.9
            x0, x1 = np.full_like(y0, 0.05), np.full_like(y0, N - 0.05)
            xs = np.stack([x0, x1, x1, x1, x1, x0, x0, x0], axis=1).reshape(-1)
            ys = np.stack([y0, y0, y0, y1, y1, y1, y1, y0], axis=1).reshape(-1)
            self.outline_items[b].setData(xs, ys)

    def marked_rows(self) -> dict[int, list[int]]:
        """Box -> outlined positions, read back from the drawn outlines (for tests)."""
        out = {}
        for b, item in enumerate(self.outline_items):
            _, ys = item.getData()
            if ys is not None and len(ys):
                out[b] = sorted({int(np.floor(y)) for y in ys[::8]})
        return out


def _tooltip(Mb: np.ndarray, moved_b: np.ndarray, b: int) -> str:
    lines = [f"box {b + 1}: rows = positions, columns = digits"]
    for i in range(Mb.shape[0]):
        d = int(np.argmax(Mb[i]))
        lines.append(f"position {i + 1}: top digit {d + 1} ({Mb[i, d]:.2f}), moved {moved_b[i]:.3f}")
    return "\n".join(lines)


register_view(
    ViewSpec(
        "nbcoin_box_models",
        "Box models",
        BoxModelsView,
        requires_role="box_models",
        area=Qt.RightDockWidgetArea,
        tab_with="probability",
    ),
    replace=True,
)


# ``python -m sudoku_lab_ui.screenshots docs --only nbcoin-short --only nbcoin`` (under a display)
register_shot(
    Shot(
        "screenshot-nbcoin-short.png",
        "nbcoin",
        "nbcoin_77_difficult",
        40,
        seed=1,
        front=("nbcoin_box_models",),
        whole=False,
    )
)
register_shot(
    Shot("screenshot-nbcoin.png", "nbcoin", "nbcoin_77_difficult", 3000, seed=1, front=("nbcoin_box_models",))
)
