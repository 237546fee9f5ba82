"""plots_least: pyqtgraph views no smaller than the plots laid out in them."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QGraphicsWidget, QWidget

__all__ = ["plots_least"]


def plots_least(root: QWidget) -> None:
    """Make each pyqtgraph view under ``root`` no smaller than the least size of the plots laid out in it.

    A GraphicsView does not pass its scene's least size on to the widgets around it: a dock narrower than
    a plot's axes and colour bar cut them at the view's edge. With it, the dock keeps that width (or its
    content scrolls).
    """
    for gv in root.findChildren(pg.GraphicsView):
        item = gv.centralWidget
        if isinstance(item, QGraphicsWidget):  # (pyqtgraph's GraphicsLayout hides layout() behind an attribute)
            least = item.effectiveSizeHint(Qt.SizeHint.MinimumSize)
            own = getattr(gv, "_own_minimum", None)
            if own is None:  # the view's own least size, before this made it larger
                own = gv._own_minimum = gv.minimumSize()
            size = QSize(int(least.width()) + 1, int(least.height()) + 1).expandedTo(own)
            if size != gv.minimumSize():  # larger type (presentation mode) and back: it follows both ways
                gv.setMinimumSize(size)
