"""FlowLayout: widgets left to right, wrapping onto the next row when the width runs out.

Qt has no flow layout of its own (its documentation ships one as an example);
this is that layout, for rows of buttons and check boxes that must stay whole
in a narrow dock or on a small screen instead of widening the window.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QSizePolicy, QWidget

__all__ = ["FlowLayout"]


class FlowLayout(QLayout):
    """Lay items out in rows, as many to a row as the width allows (height for width).

    Its minimum width is that of its widest item, so it never makes its parent
    wider than one item; hidden widgets take no room.
    """

    def __init__(self, parent: QWidget | None = None, spacing: int = -1):
        super().__init__(parent)
        self._items = []
        self._spacing = spacing

    def __del__(self):
        while self.takeAt(0) is not None:
            pass

    # ----------------------------------------------------------- QLayout API
    def addItem(self, item) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int):
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int):
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:
        """All items on one row."""
        m = self.contentsMargins()
        shown = [it for it in self._items if not it.isEmpty()]
        w = sum(it.sizeHint().width() for it in shown) + self._gap(Qt.Orientation.Horizontal) * max(0, len(shown) - 1)
        h = max((it.sizeHint().height() for it in shown), default=0)
        return QSize(w + m.left() + m.right(), h + m.top() + m.bottom())

    def minimumSize(self) -> QSize:
        """The widest item (one item a row)."""
        size = QSize()
        for it in self._items:
            if not it.isEmpty():
                size = size.expandedTo(it.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    # ------------------------------------------------------------- internals
    def _gap(self, orientation: Qt.Orientation) -> int:
        if self._spacing >= 0:
            return self._spacing
        parent = self.parentWidget() if self.parent() is not None else None
        if parent is None:
            return 6
        control = QSizePolicy.ControlType.CheckBox
        return max(0, parent.style().layoutSpacing(control, control, orientation))

    def _arrange(self, rect: QRect, move: bool) -> int:
        """Place the items in ``rect`` (when ``move``); return the height they take."""
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, row_h = area.x(), area.y(), 0
        dx, dy = self._gap(Qt.Orientation.Horizontal), self._gap(Qt.Orientation.Vertical)
        for it in self._items:
            if it.isEmpty():
                continue
            hint = it.sizeHint()
            if x > area.x() and x + hint.width() > area.right() + 1:
                x, y, row_h = area.x(), y + row_h + dy, 0
            if move:
                it.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + dx
            row_h = max(row_h, hint.height())
        return y + row_h - rect.y() + m.bottom()
