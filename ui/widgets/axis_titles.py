"""AxisTitles: a plot's axis titles kept within their axes, whatever the size of the dock.

pyqtgraph centres an axis title on its axis and lets a longer one run past the
plot and out of the view, which cuts it ("ost, clashes with givens, queue").
This keeps each title within the view: in a smaller font first, else elided,
with the whole title in the axis's tooltip.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics

__all__ = ["AxisTitles"]


class AxisTitles:
    """The titles of a :class:`pyqtgraph.PlotItem`'s axes, refitted whenever its plot area changes size.

    Parameters
    ----------
    plot : pyqtgraph.PlotItem
    style : mapping
        Label style for :meth:`pyqtgraph.AxisItem.setLabel` (its ``font-size`` is set here).
    sizes : sequence of float
        Point sizes to try, largest first; below the last one the title is elided.
    """

    #: Pixels kept free at each end of an axis.
    MARGIN = 3

    def __init__(self, plot: pg.PlotItem, style: Mapping | None = None, sizes: Sequence[float] = (11, 10, 9)):
        self.plot = plot
        self.style = dict(style or {})
        self.sizes = tuple(sizes)
        self._titles: dict[str, str] = {}
        self._shown: dict[str, tuple[str, float]] = {}
        self.scale = 1.0
        plot.axis_titles = self  # found by presentation mode, which scales the sizes instead of the titles
        plot.getViewBox().sigResized.connect(self.fit)

    def set_scale(self, scale: float) -> None:
        """Try every size ``scale`` times larger (presentation mode's type), still within the axes."""
        self.scale = float(scale)
        self._shown.clear()
        self.fit()

    def set(self, side: str, title: str) -> None:
        """Show ``title`` on axis ``side`` (``left``, ``right``, ``bottom`` or ``top``)."""
        self._titles[side] = title
        self._shown.pop(side, None)
        self.plot.getAxis(side).setToolTip(title)
        self.fit()

    def clear(self) -> None:
        """Forget every title (the axes keep what they show until they get a new one)."""
        self._titles.clear()
        self._shown.clear()

    def shown(self, side: str) -> str:
        """The title on axis ``side`` as drawn (elided if the whole one did not fit), or ""."""
        return self._shown.get(side, ("", 0))[0]

    def room(self, side: str) -> float:
        """The longest title axis ``side`` can show whole: centred on the plot area, within the view."""
        box = self.plot.getViewBox().sceneBoundingRect()
        scene = self.plot.scene()
        views = scene.views() if scene is not None else []
        if not views:
            return box.height() if side in ("left", "right") else box.width()
        area = views[0].mapToScene(views[0].viewport().rect()).boundingRect()
        if side in ("left", "right"):
            c = box.center().y()
            return 2 * min(c - area.top(), area.bottom() - c)
        c = box.center().x()
        return 2 * min(c - area.left(), area.right() - c)

    def fit(self, *_) -> None:
        """Fit each title to the room its axis has at the current size (:meth:`room`)."""
        for side, title in self._titles.items():
            length = int(self.room(side)) - 2 * self.MARGIN
            text, size, fm = title, self.sizes[0] * self.scale, None
            for size in (s * self.scale for s in self.sizes):
                font = QFont()
                font.setPointSizeF(size)
                fm = QFontMetrics(font)
                if fm.horizontalAdvance(title) <= length:
                    break
            else:
                text = fm.elidedText(title, Qt.TextElideMode.ElideRight, max(length, 12))
            if self._shown.get(side) != (text, size):
                self._shown[side] = (text, size)
                self.plot.setLabel(side, text, **{**self.style, "font-size": f"{size}pt"})
                # pyqtgraph centres a title only when its axis is resized: a new title on an axis of the same
                # size kept the old one's position, so a longer one ran off the view (GA after NB-COIN)
                self.plot.getAxis(side).resizeEvent()
