"""ProbabilityView: RESEDA's model p[cell, digit] as one image, and the per-cell entropy map.

The C x N model is drawn as a single (N*n) x (N*n) image: cell (r, c) is an
n x n tile and digit d (1-based) of that cell is the pixel
``(n*r + (d-1)//n, n*c + (d-1)%n)``, so a 9x9 model is a 27 x 27 image whose
tiles read like a pencil-mark grid. Both views use a FIXED 0..1 colour scale
with a colour bar, so frames of a run compare at a glance.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from sudoku_lab.model.geometry import SYMBOLS, box_size_for_cells, cell_name

from . import theme

__all__ = ["ProbabilityView", "model_image"]

MODES = ("probability", "entropy")


def model_image(p: np.ndarray, n: int) -> np.ndarray:
    """Arrange a model as one image.

    Parameters
    ----------
    p : ndarray of float64, shape (C, N)
        ``p[cell, d - 1]``.
    n : int
        Box size.

    Returns
    -------
    ndarray of float64, shape (N*n, N*n)
        Row-major image: digit d of cell (r, c) at ``[n*r + (d-1)//n, n*c + (d-1)%n]``.
    """
    N = n * n
    return p.reshape(N, N, n, n).transpose(0, 2, 1, 3).reshape(N * n, N * n)


class _ImagePanel(QWidget):
    """One locked-aspect image with cell/box lines, given outlines and a fixed 0..1 colour bar."""

    def __init__(self, colormap: str, bar_label: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.view = pg.GraphicsLayoutWidget()
        self.view.setBackground(theme.PLOT["background"])
        fg = theme.PLOT["foreground"]
        self.plot = self.view.addPlot()
        self.plot.hideAxis("left")
        self.plot.hideAxis("bottom")
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        vb = self.plot.getViewBox()
        vb.setAspectLocked(True)
        vb.setMouseEnabled(False, False)
        vb.invertY(True)
        vb.setDefaultPadding(0.01)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plot.addItem(self.image)
        self.thin = pg.PlotCurveItem(pen=pg.mkPen(theme.PLOT["grid_thin"], width=1), connect="pairs")
        self.thick = pg.PlotCurveItem(pen=pg.mkPen(theme.PLOT["grid_thick"], width=2.5), connect="pairs")
        self.givens = pg.PlotCurveItem(pen=pg.mkPen(theme.PLOT["given_outline"], width=1.5), connect="pairs")
        # Tiles of the cells a phase step moved (RESEDA's update: the rows of p it changed).
        self.marks = pg.PlotCurveItem(pen=pg.mkPen("#FFFFFF", width=2), connect="pairs")  # white on the colour map
        for item in (self.thin, self.thick, self.givens, self.marks):
            self.plot.addItem(item)
        self.bar = pg.ColorBarItem(
            values=(0.0, 1.0), colorMap=pg.colormap.get(colormap), label=bar_label, interactive=False, width=18
        )
        self.bar.setImageItem(self.image, insert_in=self.plot)
        for name in ("left", "right"):
            axis = self.bar.getAxis(name)
            axis.setPen(fg)
            axis.setTextPen(fg)
            axis.setTickFont(theme.ui_font(10))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)

    def set_lines(self, side: int, thin_step: int, thick_step: int) -> None:
        """Grid lines over a side x side image: thin every ``thin_step`` pixels, thick every ``thick_step``."""
        thin = [k for k in range(0, side + 1, thin_step) if k % thick_step]
        thick = list(range(0, side + 1, thick_step))
        self.thin.setData(*_segments(thin, side))
        self.thick.setData(*_segments(thick, side))
        self.plot.getViewBox().setRange(xRange=(0, side), yRange=(0, side), padding=0.01)

    def set_outlines(self, cells: np.ndarray, N: int, tile: int) -> None:
        """Outline the tiles of ``cells`` (int, flat indices); a tile is ``tile`` pixels wide."""
        self.givens.setData(*_tile_edges(cells, N, tile, 0.08))

    def set_marks(self, cells: np.ndarray, N: int, tile: int) -> None:
        """Mark the tiles of ``cells`` (a phase step's rows), inside the given outlines."""
        self.marks.setData(*_tile_edges(cells, N, tile, 0.16))

    def pixel_at(self, scene_pos: QPointF) -> tuple[int, int] | None:
        """Image (row, column) under a scene position, or None outside the image."""
        if self.image.image is None:
            return None
        pt = self.plot.getViewBox().mapSceneToView(scene_pos)
        h, w = self.image.image.shape
        col, row = int(np.floor(pt.x())), int(np.floor(pt.y()))
        if 0 <= row < h and 0 <= col < w:
            return row, col
        return None

    def clear(self) -> None:
        self.image.clear()
        for item in (self.thin, self.thick, self.givens, self.marks):
            item.setData([], [])


def _tile_edges(cells, N: int, tile: int, inset: float) -> tuple[np.ndarray, np.ndarray]:
    """Four edges per tile of ``cells`` as (start, end) pairs for connect="pairs", ``inset`` tiles inside."""
    r, c = np.divmod(np.asarray(cells, dtype=np.int64), N)
    inset = inset * tile
    x0, y0 = c * tile + inset, r * tile + inset
    x1, y1 = x0 + tile - 2 * inset, y0 + tile - 2 * inset
    xs = np.stack([x0, x1, x1, x1, x1, x0, x0, x0], axis=1).reshape(-1)
    ys = np.stack([y0, y0, y0, y1, y1, y1, y1, y0], axis=1).reshape(-1)
    return xs.astype(float), ys.astype(float)


def _segments(positions: list[int], side: int) -> tuple[np.ndarray, np.ndarray]:
    """Vertical and horizontal full-length segments at ``positions``, as connect="pairs" arrays."""
    k = np.asarray(positions, dtype=float)
    zeros, full = np.zeros_like(k), np.full_like(k, side)
    xs = np.concatenate([np.stack([k, k], 1).reshape(-1), np.stack([zeros, full], 1).reshape(-1)])
    ys = np.concatenate([np.stack([zeros, full], 1).reshape(-1), np.stack([k, k], 1).reshape(-1)])
    return xs, ys


class ProbabilityView(QWidget):
    """Two tabs: the model p as one image, and the per-cell normalised entropy.

    Signals
    -------
    cellHovered(int)
        The cell under the mouse in either tab, -1 when it leaves the image.

    Notes
    -----
    RESEDA (Maire & Prissette 2012, section 2; docs/algorithms.md#reseda):
    the model p(n) whose entropy falls as a run converges and whose
    ``rho = min_cells max_k p`` ends a run when it exceeds beta.
    """

    cellHovered = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._p: np.ndarray | None = None
        self._h: np.ndarray | None = None
        self._n = 0
        self._givens: np.ndarray | None = None
        self._hovered = -1
        self._marked = np.zeros(0, dtype=np.int64)

        self.prob_panel = _ImagePanel(theme.PROB_COLORMAP, "p")
        self.entropy_panel = _ImagePanel(theme.ENTROPY_COLORMAP, "entropy")
        self.tabs = QTabWidget()
        self.tabs.addTab(self.prob_panel, "Model p[cell, digit]")
        self.tabs.addTab(self.entropy_panel, "Entropy per cell")
        self.readout = QLabel()
        self.readout.setFont(theme.mono_font())
        self.readout.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.readout.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.readout.setContentsMargins(8, 4, 8, 4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.readout)
        for panel in (self.prob_panel, self.entropy_panel):
            panel.view.scene().sigMouseMoved.connect(lambda pos, panel=panel: self._on_mouse(panel, pos))
            panel.view.installEventFilter(self)

    # ------------------------------------------------------------------- API
    def set_model(self, p: np.ndarray, n: int, givens_mask: np.ndarray | None = None) -> None:
        """Show a model.

        Parameters
        ----------
        p : ndarray of float64, shape (C, N)
            ``p[cell, d - 1]`` in [0, 1].
        n : int
            Box size (N = n*n, C = N*N).
        givens_mask : ndarray of bool, shape (C,), optional
            Cells whose tiles get an outline (the givens, or every fixed cell).
        """
        p = np.asarray(p)
        N = n * n
        if p.shape != (N * N, N):
            raise ValueError(f"p must have shape ({N * N}, {N}) for box size {n}, got {p.shape}")
        self._p = p
        givens = None if givens_mask is None else np.asarray(givens_mask, dtype=bool)
        if n != self._n or not _same(givens, self._givens):
            self._set_layout(n, givens)
        self.prob_panel.image.setImage(model_image(p, n), autoLevels=False, levels=(0.0, 1.0))
        self._update_readout()

    def set_entropy(self, h: np.ndarray) -> None:
        """Show the entropy map: ndarray of float64, shape (C,), normalised to [0, 1] (0 = decided).

        The box size comes from the length of ``h`` if no model was set.
        """
        h = np.asarray(h)
        n = box_size_for_cells(h.size) if h.ndim == 1 else None
        if n is None:
            raise ValueError(f"entropy must be a (C,) array for a 4x4..25x25 grid, got shape {h.shape}")
        if n != self._n:
            self._set_layout(n, self._givens if self._givens is not None and self._givens.size == h.size else None)
        self._h = h
        N = n * n
        # Normalised entropy can come out as -0.0 or 1 + eps; the scale is fixed anyway.
        self.entropy_panel.image.setImage(np.clip(h, 0.0, 1.0).reshape(N, N), autoLevels=False, levels=(0.0, 1.0))
        self._update_readout()

    def set_marked_rows(self, rows: np.ndarray | None) -> None:
        """Mark the cells whose rows of p a phase step moved (bool (C,)); None or all False clears the marks."""
        cells = np.zeros(0, dtype=np.int64) if rows is None else np.flatnonzero(np.asarray(rows, dtype=bool))
        self._marked = cells
        n = self._n
        if not n:
            return
        N = n * n
        self.prob_panel.set_marks(cells, N, n)
        self.entropy_panel.set_marks(cells, N, 1)

    def marked_rows(self) -> np.ndarray:
        """The cells marked by :meth:`set_marked_rows` (flat indices, ascending)."""
        return self._marked.copy()

    def clear(self) -> None:
        """Forget the model and entropy (a new run or a solver without a model)."""
        self._marked = np.zeros(0, dtype=np.int64)
        self._p = self._h = self._givens = None
        self._n = 0
        self._hovered = -1
        self.prob_panel.clear()
        self.entropy_panel.clear()
        self.readout.setText("No probability model.")

    def set_mode(self, mode: str) -> None:
        """Show ``"probability"`` (the model image) or ``"entropy"`` (the entropy map)."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        self.tabs.setCurrentIndex(MODES.index(mode))

    def mode(self) -> str:
        """The tab shown: ``"probability"`` or ``"entropy"``."""
        return MODES[self.tabs.currentIndex()]

    def probability_image(self) -> np.ndarray | None:
        """The float64 (N*n, N*n) array the model's ImageItem shows, or None."""
        return self.prob_panel.image.image

    def entropy_image(self) -> np.ndarray | None:
        """The float64 (N, N) array the entropy ImageItem shows, or None."""
        return self.entropy_panel.image.image

    def hovered_cell(self) -> int:
        """The cell under the mouse, or -1."""
        return self._hovered

    def describe_cell(self, cell: int) -> str:
        """``r4c5: 1 .02  2 .00 ... 9 .71  H .45``: the cell's N probabilities and its entropy."""
        if self._n == 0:
            return ""
        N = self._n * self._n
        parts = [cell_name(cell, N) + ":"]
        if self._p is not None:
            parts.append("  ".join(f"{SYMBOLS[d]} {_short(self._p[cell, d])}" for d in range(N)))
        if self._h is not None:
            parts.append(f"  H {_short(min(1.0, max(0.0, float(self._h[cell]))))}")
        return " ".join(parts)

    def cell_at_scene(self, panel: str, scene_pos: QPointF) -> int:
        """The cell under a scene position of the ``"probability"`` or ``"entropy"`` panel, or -1."""
        if self._n == 0:
            return -1
        target = self.prob_panel if panel == "probability" else self.entropy_panel
        px = target.pixel_at(scene_pos)
        if px is None:
            return -1
        scale = self._n if target is self.prob_panel else 1
        N = self._n * self._n
        return (px[0] // scale) * N + px[1] // scale

    # -------------------------------------------------------------- internals
    def eventFilter(self, obj, event) -> bool:
        if event.type() == event.Type.Leave and self._hovered != -1:
            self._hovered = -1
            self.cellHovered.emit(-1)
            self._update_readout()
        return False

    def _on_mouse(self, panel: _ImagePanel, scene_pos: QPointF) -> None:
        cell = self.cell_at_scene("probability" if panel is self.prob_panel else "entropy", scene_pos)
        if cell != self._hovered:
            self._hovered = cell
            self.cellHovered.emit(cell)
            self._update_readout()

    def readout_text(self, cell: int) -> str:
        """The read-out under the images: the cell, its entropy, then its N probabilities laid out as its tile.

        With ``cell = -1`` it explains where each digit sits in a tile.
        """
        n = self._n
        if n == 0:
            return "No probability model."
        rows = [[SYMBOLS[r * n + k] for k in range(n)] for r in range(n)]
        if cell < 0:
            head = "Hover a cell. Each cell is a tile\nwith its digits at:"  # two lines: a narrow dock
            return "\n".join([head] + ["  " + "  ".join(r) for r in rows])
        head = cell_name(cell, n * n)
        if self._h is not None:
            head += f"   entropy {_short(min(1.0, max(0.0, float(self._h[cell]))))}"
        if self._p is None:
            return head
        body = [
            "  " + "   ".join(f"{sym} {_short(self._p[cell, r * n + k]):>4}" for k, sym in enumerate(row))
            for r, row in enumerate(rows)
        ]
        return "\n".join([head] + body)

    def _update_readout(self) -> None:
        self.readout.setText(self.readout_text(self._hovered))

    def _set_layout(self, n: int, givens: np.ndarray | None) -> None:
        """Lines and given outlines for box size n (only when n or the givens change)."""
        N = n * n
        self._n, self._givens = n, givens
        self.prob_panel.set_lines(N * n, n, N)
        self.entropy_panel.set_lines(N, 1, n)
        cells = np.zeros(0, dtype=np.int64) if givens is None else np.flatnonzero(givens)
        self.prob_panel.set_outlines(cells, N, n)
        self.entropy_panel.set_outlines(cells, N, 1)
        marked = self._marked[self._marked < N * N]
        self.prob_panel.set_marks(marked, N, n)
        self.entropy_panel.set_marks(marked, N, 1)
        if self._hovered >= N * N:
            self._hovered = -1
        # Room for the longest read-out, so the images do not jump while the mouse moves.
        self.readout.setMinimumHeight(self.readout.fontMetrics().lineSpacing() * (n + 1) + 12)


def _short(v: float) -> str:
    """Two decimals without the leading zero: ``.71``, ``.00``, ``1.00``."""
    s = f"{v:.2f}"
    return s[1:] if s.startswith("0") else s


def _same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    if a is None or b is None:
        return a is b
    return a.shape == b.shape and bool(np.array_equal(a, b))
