"""Windows and dialogs that fit their screen, the window manager's frame counted.

A top-level window's size is its client area; the window manager adds a
frame (a title bar, borders) around it, which Qt learns only some time after
the window is shown. A window sized to the screen's whole available area
before that therefore sticks out by its frame: its title bar above the screen
or its status bar below it. Every window and dialog of the lab is sized here:
to its preferred size where the screen has room for it, else to the
screen's available area less the frame: the real frame once the window manager
has drawn it, :data:`ASSUMED_FRAME` before (and on platforms that report none,
such as the offscreen one the tests use).
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QRect, QSize
from PySide6.QtGui import QScreen
from PySide6.QtWidgets import QWidget

__all__ = ["ASSUMED_FRAME", "frame_margins", "usable_area", "fit_window", "keep_inside"]

#: The frame assumed while the real one is unknown (left, top, right, bottom, in pixels): a title bar of up
#: to 32 px and borders of up to 4 px (8 px at the bottom), at least what common window managers draw.
#: Openbox under Xvfb draws 1, 20, 1, 5 (its ``_NET_FRAME_EXTENTS``); KWin and Xfwm about 30 px of title.
ASSUMED_FRAME = QMargins(4, 32, 4, 8)


def frame_margins(window: QWidget) -> QMargins:
    """The frame around top-level ``window``: the window manager's once Qt knows it, else :data:`ASSUMED_FRAME`.

    A frame counts as the window manager's once it has a title bar (its top
    is deeper than its bottom): before the window manager has framed a window
    Qt reports none, and platforms without one report a plain border (the
    offscreen platform's 2 px), which a window manager would replace.
    """
    if window.isVisible():
        outer, inner = window.frameGeometry(), window.geometry()
        m = QMargins(
            inner.left() - outer.left(),
            inner.top() - outer.top(),
            outer.right() - inner.right(),
            outer.bottom() - inner.bottom(),
        )
        if m.top() > m.bottom():
            return m
    return QMargins(ASSUMED_FRAME)


def usable_area(window: QWidget, screen: QScreen | None = None, available: QRect | None = None) -> QRect:
    """Where ``window``'s client area may lie: ``available`` (default: the available geometry of ``screen``, or
    of the window's screen; without task bars and panels) less the window's frame."""
    area = available if available is not None else (screen or window.screen()).availableGeometry()
    return area.marginsRemoved(frame_margins(window))


def fit_window(
    window: QWidget,
    preferred: QSize,
    anchor: QWidget | None = None,
    screen: QScreen | None = None,
    available: QRect | None = None,
) -> QRect:
    """Give top-level ``window`` its ``preferred`` size, or the room its screen has where that is less, centred
    on ``anchor`` (another window, e.g. the dialog's parent) or else on the screen, and wholly inside the
    screen's available area with its frame; the client geometry set is returned.

    ``screen`` defaults to ``anchor``'s screen, else the window's own.
    """
    if screen is None and anchor is not None and available is None:
        screen = anchor.screen()
    area = usable_area(window, screen, available)
    size = preferred.boundedTo(area.size())
    centre = anchor.geometry().center() if anchor is not None and anchor.isVisible() else area.center()
    rect = QRect(0, 0, size.width(), size.height())
    rect.moveCenter(centre)
    rect = _inside(rect, area)
    window.setGeometry(rect)
    return rect


def keep_inside(window: QWidget, available: QRect | None = None) -> None:
    """Shrink and move top-level ``window`` back inside its screen's available area (frame counted) where it
    sticks out; a window that fits is left where it is."""
    area = usable_area(window, available=available)
    rect = window.geometry()
    size = rect.size().boundedTo(area.size())
    moved = _inside(QRect(rect.topLeft(), size), area)
    if moved != rect:
        window.setGeometry(moved)


def _inside(rect: QRect, area: QRect) -> QRect:
    """``rect`` moved (not resized) the least distance that puts it inside ``area`` (its top left first)."""
    x = max(area.left(), min(rect.left(), area.left() + area.width() - rect.width()))
    y = max(area.top(), min(rect.top(), area.top() + area.height() - rect.height()))
    return QRect(x, y, rect.width(), rect.height())
