"""The plugin's part of the lab: a view for its ``toy_heat`` layer and a board overlay for that role.

Imported only by the lab window (entry-point group ``sudoku_lab.ui_plugins``),
so the headless plugin never needs Qt.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from sudoku_lab_ui.overlays import OverlaySpec, register_overlay
from sudoku_lab_ui.views import ViewSpec, register_view


class HeatView(QWidget):
    """The hottest cells (most accepted swaps, decaying) as a ranked list."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        self.label = QLabel("no run yet")
        self.label.setObjectName("toy_heat_label")
        self.label.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        lay.addWidget(self.label)

    def on_puzzle(self, puzzle) -> None:
        self.label.setText("no run yet")

    def on_progress(self, prog) -> None:
        heat = prog.snapshot.layers.get("heat")
        if heat is None:
            return
        top = np.argsort(-heat, kind="stable")[:5]
        self.label.setText("hottest cells: " + ", ".join(f"{int(c)} ({heat[c]:.1f})" for c in top))


def hottest(heat: np.ndarray, k: int = 5) -> np.ndarray:
    """Mask of the ``k`` cells with the most heat (the overlay's cells)."""
    mask = np.zeros(heat.shape[0], dtype=bool)
    mask[np.argsort(-heat, kind="stable")[:k]] = True
    return mask


def _draw_heat(canvas, name, value, snapshot) -> None:
    canvas.highlight(name, np.flatnonzero(hottest(value)), color="#D55E00")


register_view(ViewSpec("toy_heat", "Swap heat", HeatView, requires_role="toy_heat", area=Qt.RightDockWidgetArea))
register_overlay(OverlaySpec("toy_heat", _draw_heat, "Hot cells", "the five cells swapped most recently"))
