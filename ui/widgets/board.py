"""BoardView: a custom-painted Sudoku board for every box size (4x4 .. 25x25).

The board draws a puzzle's givens, a solver's grid and optional overlays
(conflicts, pencil marks, removed marks, shading, difference to a solution,
highlights and a focus cell), plus any number of named cell sets (outlined
regions: a restart zone, tabu cells) and linked cell pairs (swaps), which the
window's layer overlays (:mod:`sudoku_lab_ui.overlays`) fill from a solver's
declared layers. It holds only immutable data handed to it, never
a solver, and repaints from that data; every setter ends with one
``update()``, so a 30 Hz refresh costs one paint.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import numpy as np
from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen, QPolygonF, QStaticText, QTransform
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from sudoku_lab.exact.ac3 import mask_to_digits
from sudoku_lab.model.geometry import SYMBOLS, cell_name, geometry
from sudoku_lab.model.puzzle import Puzzle

from . import theme

__all__ = ["BoardView", "OVERLAYS", "MARGIN_SIDES"]

#: Overlay names accepted by :meth:`BoardView.set_overlay`.
OVERLAYS = ("conflicts", "pencil", "removed", "shading", "diff")

#: Sides of the board that can hold margin texts (:meth:`BoardView.set_margins`).
MARGIN_SIDES = ("left", "top", "right", "bottom")

#: Width of a margin band, in cells.
MARGIN_BAND = 0.6

#: Colour of margin texts drawn without one (and of zero counts): a quiet grey.
_QUIET = "#A8A8A8"

#: Smallest mini-cell (pixels) at which pencil marks are still drawn.
MIN_PENCIL_PX = 8.0

_CLEAR_KEYS = {Qt.Key.Key_Backspace, Qt.Key.Key_Delete, Qt.Key.Key_0, Qt.Key.Key_Period, Qt.Key.Key_Space}
_ARROWS = {Qt.Key.Key_Left: (0, -1), Qt.Key.Key_Right: (0, 1), Qt.Key.Key_Up: (-1, 0), Qt.Key.Key_Down: (1, 0)}


class BoardView(QWidget):
    """A square Sudoku board that scales with the widget.

    Signals
    -------
    cellHovered(int)
        The cell under the mouse (flat index), -1 when the mouse leaves the board.
    cellClicked(int)
        A left click on a cell.
    cellEdited(int, int)
        Edit mode only: ``(cell, digit)`` after a symbol key (1-9, A-P up to
        N); digit 0 for ``0``, ``.``, space, Backspace or Delete. The view does
        not change its puzzle itself: the owner answers with
        :meth:`set_puzzle`.

    Notes
    -----
    Cells are flat indices ``r * N + c``; digit masks hold digit ``d`` as bit
    ``d - 1`` (:mod:`sudoku_lab.model.geometry`). Arrays are kept by reference and
    must not be mutated afterwards (snapshot arrays are read-only).
    """

    cellHovered = Signal(int)
    cellClicked = Signal(int)
    cellEdited = Signal(int, int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self._colors = {k: theme.qcolor(v) for k, v in theme.BOARD.items()}
        self._presenting = False
        self._puzzle: Puzzle | None = None
        self._grid: np.ndarray | None = None
        self._fixed: np.ndarray | None = None
        self._domains: np.ndarray | None = None
        self._removed: np.ndarray | None = None
        self._shading: np.ndarray | None = None
        self._solution: np.ndarray | None = None
        self._highlight: frozenset[int] = frozenset()
        self._highlight_color = self._colors["highlight"]
        self._highlight_key: str | None = None  # a palette key: the colour follows presentation mode
        self._highlight_fill = True
        self._cell_sets: dict[str, tuple[frozenset[int], object]] = {}
        self._cell_colors: dict[int, QColor] = {}
        self._links: dict[str, tuple[np.ndarray, object]] = {}
        self._margins: dict[str, dict[int, tuple[str, object]]] = {}
        self._focus = -1
        self._selected = -1
        self._hovered = -1
        self._lines_cache: tuple | None = None
        self._text_cache: tuple | None = None  # (size key, static texts of the digits)
        self._editable = False
        self._overlays = dict.fromkeys(OVERLAYS, True)
        self._tooltip_provider: Callable[[int], str | None] | None = None
        # Derived per-cell arrays, recomputed by _refresh() when the data change.
        self._shown = np.zeros(0, dtype=np.int8)
        self._conflicts = np.zeros(0, dtype=bool)
        self._diff = np.zeros(0, dtype=bool)

    # ------------------------------------------------------------------ data
    def set_puzzle(self, puzzle: Puzzle | None) -> None:
        """Show a puzzle's givens and drop every per-run layer.

        Parameters
        ----------
        puzzle : Puzzle or None
            None empties the board. The grid, domains, removed marks,
            shading, solution, highlight and focus are cleared, since they
            described the previous puzzle; the selection is kept when the
            size does not change (so editing a cell keeps it selected).
        """
        same_size = puzzle is not None and self._puzzle is not None and puzzle.n == self._puzzle.n
        self._puzzle = puzzle
        self._grid = self._fixed = self._domains = self._removed = self._shading = self._solution = None
        self._highlight = frozenset()
        self._cell_sets, self._links, self._margins = {}, {}, {}
        self._cell_colors = {}
        self._focus = -1
        if not same_size:
            self._selected = -1
            self._hovered = -1
        self._refresh()

    def puzzle(self) -> Puzzle | None:
        """The puzzle shown, or None."""
        return self._puzzle

    def set_grid(self, grid: np.ndarray | None = None, fixed: np.ndarray | None = None) -> None:
        """Show a solver's grid.

        Parameters
        ----------
        grid : ndarray of int8, shape (C,), or None
            Digits 1..N, 0 where the solver has none; drawn in the solver
            colour on non-given cells.
        fixed : ndarray of bool, shape (C,), or None
            Cells the solver treats as given; those that are not givens (a
            restart zone, AC3-prefilled cells) get the "fixed" tint.
        """
        grid, fixed = self._checked(grid, "grid"), self._checked(fixed, "fixed")
        if _same(grid, self._grid) and _same(fixed, self._fixed):
            return  # a paused run repaints nothing
        self._grid, self._fixed = grid, fixed
        self._refresh()

    def set_domains(self, domains: np.ndarray | None) -> None:
        """Pencil marks: ndarray of uint32, shape (C,), digit d as bit d-1; None hides them.

        Drawn in cells that show no digit (and in cells with removed marks).
        """
        domains = self._checked(domains, "domains")
        if not _same(domains, self._domains):
            self._domains = domains
            self.update()

    def domains(self) -> np.ndarray | None:
        """The pencil-mark domains shown (uint32 (C,)), or None."""
        return self._domains

    def set_removed(self, removed: np.ndarray | None) -> None:
        """Removed marks: ndarray of uint32, shape (C,), digits drawn struck through; None hides them.

        They are drawn in the pencil marks of the cells that show no digit: a cell that shows a digit (a
        given, or a solver's decided cell, its candidates struck down to one) draws that digit.
        """
        removed = self._checked(removed, "removed")
        if not _same(removed, self._removed):  # the window sets them every frame: repaint only on a change
            self._removed = removed
            self.update()

    def removed(self) -> np.ndarray | None:
        """The removed marks shown (uint32 (C,)), or None."""
        return self._removed

    def set_shading(self, values: np.ndarray | None) -> None:
        """Cell shading: ndarray of float, shape (C,), in [0, 1] (e.g. max probability); None hides it."""
        values = self._checked(values, "shading")
        if not _same(values, self._shading):
            self._shading = values
            self.update()

    def set_solution(self, solution: np.ndarray | None) -> None:
        """Known solution: ndarray of int8, shape (C,); shown digits that differ get a marker."""
        self._solution = self._checked(solution, "solution")
        self._refresh()

    def set_highlight(self, cells: Iterable[int], color=None, fill: bool = True) -> None:
        """Outline (and tint) some cells, e.g. clashing givens, or the cells a phase changed.

        Parameters
        ----------
        cells : iterable of int
            Flat cell indices; empty to clear.
        color : QColor, hex str, a key of :data:`theme.BOARD` or None
            Defaults to the theme's highlight colour (vermillion). A key (``"changed"``) follows the
            board's palette, presentation mode's included.
        fill : bool
            Tint the cells too (True), or outline them only (False: the cells a phase changed, told
            apart from conflicts, which colour and underline the digit, by the shape as well as the colour).
        """
        self._highlight = frozenset(int(c) for c in cells)
        self._highlight_key = color if isinstance(color, str) and color in theme.BOARD else None
        self._highlight_fill = bool(fill)
        if self._highlight_key is not None:
            self._highlight_color = self._colors[self._highlight_key]
        else:
            self._highlight_color = self._colors["highlight"] if color is None else theme.qcolor(color)
        self.update()

    def highlighted_cells(self) -> frozenset[int]:
        """The cells of :meth:`set_highlight`."""
        return self._highlight

    def highlight_color(self) -> QColor:
        """The colour the highlighted cells are outlined in."""
        return QColor(self._highlight_color)

    def highlight_filled(self) -> bool:
        """Whether the highlighted cells are tinted as well as outlined."""
        return self._highlight_fill

    def set_cell_sets(self, sets: Mapping[str, tuple[Iterable[int], object]]) -> None:
        """Named sets of cells, each drawn as its region's outline over a light tint.

        Parameters
        ----------
        sets : mapping of str to (iterable of int, colour or None)
            Flat cell indices per name (e.g. a layer name); a None colour takes
            the next of :data:`theme.SET_COLOURS` in name order. An empty
            mapping clears them.
        """
        palette = iter(theme.SET_COLOURS * (1 + len(sets) // len(theme.SET_COLOURS)))
        new = {}
        for name in sorted(sets):
            cells, color = sets[name]
            auto = next(palette)
            new[name] = (frozenset(int(c) for c in cells), theme.qcolor(auto if color is None else color))
        if new.keys() != self._cell_sets.keys() or any(
            new[k][0] != self._cell_sets[k][0] or new[k][1] != self._cell_sets[k][1] for k in new
        ):
            self._cell_sets = new
            self.update()

    def set_cell_colors(self, colors: Mapping[int, object] | None) -> None:
        """A background colour per cell (e.g. the technique each cell needed), over the other backgrounds.

        Parameters
        ----------
        colors : mapping of int to colour, or None
            Flat cell index to a colour (``"#rrggbb"`` or QColor); None or empty clears them.
        """
        new = {int(c): theme.qcolor(v) for c, v in (colors or {}).items()}
        if new != self._cell_colors:
            self._cell_colors = new
            self.update()

    def cell_colors(self) -> dict[int, QColor]:
        """The per-cell background colours of :meth:`set_cell_colors`."""
        return dict(self._cell_colors)

    def cell_sets(self) -> dict[str, frozenset[int]]:
        """The named cell sets shown (:meth:`set_cell_sets`)."""
        return {k: cells for k, (cells, _) in self._cell_sets.items()}

    def cell_set_color(self, name: str):
        """The QColor a named cell set is drawn in."""
        return self._cell_sets[name][1]

    def set_links(self, links: Mapping[str, tuple[np.ndarray, object]]) -> None:
        """Named groups of linked cell pairs (e.g. a swap), drawn as a line between the two cells' centres.

        Parameters
        ----------
        links : mapping of str to (ndarray of int (k, 2), colour or None)
            Pairs of flat cell indices per name; an empty mapping clears them.
        """
        palette = iter(theme.LINK_COLOURS * (1 + len(links) // len(theme.LINK_COLOURS)))
        new = {}
        for name in sorted(links):
            pairs, color = links[name]
            auto = next(palette)
            new[name] = (
                np.asarray(pairs, dtype=np.int64).reshape(-1, 2),
                theme.qcolor(auto if color is None else color),
            )
        if new.keys() != self._links.keys() or any(
            not np.array_equal(new[k][0], self._links[k][0]) or new[k][1] != self._links[k][1] for k in new
        ):
            self._links = new
            self.update()

    def links(self) -> dict[str, np.ndarray]:
        """The linked cell pairs shown (:meth:`set_links`), int (k, 2) per name."""
        return {k: pairs for k, (pairs, _) in self._links.items()}

    def set_margins(self, margins: Mapping[str, Mapping[int, tuple[str, object]]]) -> None:
        """Short texts in the margins around the board (e.g. a count per row and per column).

        Parameters
        ----------
        margins : mapping of side to mapping of int to (str, colour or None)
            Sides ``"left"``, ``"top"``, ``"right"``, ``"bottom"``; then the row
            (left, right) or column (top, bottom) index and its text. The board
            shrinks to leave room on every side that has texts. An empty mapping
            clears them; a None colour is the theme's quiet grey.
        """
        new = {}
        for side, texts in margins.items():
            if side not in MARGIN_SIDES:
                raise ValueError(f"unknown margin side {side!r}; choose from {', '.join(MARGIN_SIDES)}")
            if texts:
                new[side] = {int(i): (str(t), theme.qcolor(_QUIET if c is None else c)) for i, (t, c) in texts.items()}
        if new != self._margins:
            self._margins = new
            self._lines_cache = None
            self.update()

    def margins(self) -> dict[str, dict[int, str]]:
        """The margin texts shown (:meth:`set_margins`): side -> index -> text."""
        return {side: {i: t for i, (t, _) in texts.items()} for side, texts in self._margins.items()}

    def margin_color(self, side: str, index: int):
        """The QColor of one margin text."""
        return self._margins[side][index][1]

    def margin_rect(self, side: str, index: int) -> QRectF:
        """Where the margin text of row or column ``index`` on ``side`` is drawn, in widget coordinates."""
        xs, ys = self._lines()
        band = self._margin_band()
        if side == "right":
            return QRectF(xs[-1] + 2, ys[index], band - 2, ys[index + 1] - ys[index])
        if side == "left":
            return QRectF(xs[0] - band, ys[index], band - 2, ys[index + 1] - ys[index])
        if side == "bottom":
            return QRectF(xs[index], ys[-1] + 2, xs[index + 1] - xs[index], band - 2)
        return QRectF(xs[index], ys[0] - band, xs[index + 1] - xs[index], band - 2)

    def set_presentation(self, on: bool) -> None:
        """Presentation mode's look (:data:`theme.PRESENTATION`): black lines twice as thick, larger digits,
        givens in the heaviest weight and solver digits in a normal one (conflicts are underlined in both
        looks); off restores the lab's own look."""
        self._presenting = bool(on)
        colours = {**theme.BOARD, **(theme.PRESENTATION["board"] if on else {})}
        self._colors = {k: theme.qcolor(v) for k, v in colours.items()}
        self._highlight_color = self._colors[self._highlight_key or "highlight"]
        self._text_cache = None
        self.update()

    def presenting(self) -> bool:
        """True in presentation mode's look."""
        return self._presenting

    def set_focus_cell(self, cell: int) -> None:
        """Mark one cell with a thick outline (e.g. AC3's popped cell); -1 for none."""
        self._focus = int(cell)
        self.update()

    def focus_cell(self) -> int:
        """The focus cell, or -1."""
        return self._focus

    # -------------------------------------------------------------- overlays
    def set_overlay(self, name: str, enabled: bool) -> None:
        """Switch an overlay of :data:`OVERLAYS` on or off (all are on initially)."""
        if name not in self._overlays:
            raise ValueError(f"unknown overlay {name!r}; choose from {', '.join(OVERLAYS)}")
        if self._overlays[name] != bool(enabled):  # the window sets them every frame: repaint only on a change
            self._overlays[name] = bool(enabled)
            self.update()

    def overlay_enabled(self, name: str) -> bool:
        """Whether an overlay of :data:`OVERLAYS` is on."""
        return self._overlays[name]

    def digit_cells(self) -> np.ndarray:
        """Cells drawn as a digit (a given or the solver's): bool (C,), the rule the paint follows.

        Every cell that shows a digit is drawn as that digit, whatever pencil or struck-out marks it has:
        a solver's decided cell (its candidates struck down to one) is a digit, not a single pencil mark.
        """
        if self._puzzle is None:
            return np.zeros(0, dtype=bool)
        return self._shown > 0

    def pencil_cells(self) -> np.ndarray:
        """Cells drawn as pencil marks (candidates, struck-out ones crossed): bool (C,); none when they do not fit."""
        if self._puzzle is None:
            return np.zeros(0, dtype=bool)
        domains = self._domains if self._overlays["pencil"] else None
        removed = self._removed if self._overlays["removed"] else None
        if (domains is None and removed is None) or not self.pencil_marks_fit():
            return np.zeros(self._puzzle.C, dtype=bool)
        return ~self.digit_cells() & (self._puzzle.grid == 0)

    def shown_digits(self) -> np.ndarray:
        """The digits on the board: givens, else the solver's grid. int8 (C,), 0 = empty."""
        return self._shown

    def conflict_cells(self) -> np.ndarray:
        """Cells whose shown digit repeats in their row, column or box: int64, sorted."""
        return np.flatnonzero(self._conflicts)

    def diff_cells(self) -> np.ndarray:
        """Cells showing a digit that differs from the solution: int64, sorted (empty without one)."""
        return np.flatnonzero(self._diff)

    # ------------------------------------------------------------ edit mode
    def set_editable(self, editable: bool) -> None:
        """Edit mode: clicks select a cell, symbol keys emit :attr:`cellEdited`, arrows move."""
        self._editable = bool(editable)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus if editable else Qt.FocusPolicy.ClickFocus)
        if not editable:
            self._selected = -1
        self.update()

    def is_editable(self) -> bool:
        """Whether edit mode is on."""
        return self._editable

    def selected_cell(self) -> int:
        """The selected cell in edit mode, or -1."""
        return self._selected

    def set_selected_cell(self, cell: int) -> None:
        """Select a cell (edit mode), -1 for none."""
        C = self._puzzle.C if self._puzzle is not None else 0
        self._selected = int(cell) if 0 <= cell < C else -1
        self.update()

    def set_tooltip_provider(self, provider: Callable[[int], str | None] | None) -> None:
        """Hover text: ``provider(cell) -> str | None``; None restores :meth:`default_tooltip`."""
        self._tooltip_provider = provider

    def tooltip_text(self, cell: int) -> str | None:
        """What the tooltip shows for ``cell`` (the provider's text, or the default)."""
        if self._puzzle is None or not 0 <= cell < self._puzzle.C:
            return None
        if self._tooltip_provider is not None:
            return self._tooltip_provider(cell)
        return self.default_tooltip(cell)

    def default_tooltip(self, cell: int) -> str:
        """``r4c5: given 7`` / ``r4c5: 3 (conflict)`` / ``r4c5: candidates 1 5 8`` for ``cell``."""
        N = self._puzzle.N
        parts = [cell_name(cell, N) + ":"]
        d = int(self._shown[cell])
        if self._puzzle.grid[cell]:
            parts.append(f"given {SYMBOLS[d - 1]}")
        elif d:
            parts.append(SYMBOLS[d - 1])
            if self._solution is not None and self._diff[cell]:
                parts.append(f"(solution {SYMBOLS[int(self._solution[cell]) - 1]})")
        if self._conflicts.size and self._conflicts[cell]:
            parts.append("(conflict)")
        if self._domains is not None:
            digits = mask_to_digits(self._domains[cell])
            parts.append("candidates " + (" ".join(SYMBOLS[x - 1] for x in digits) or "none"))
        if self._shading is not None:
            parts.append(f"shade {float(self._shading[cell]):.2f}")
        marked = [name.replace("_", " ") for name, (cells, _) in self._cell_sets.items() if cell in cells]
        if marked:
            parts.append("[" + ", ".join(marked) + "]")
        return " ".join(parts)

    # -------------------------------------------------------------- geometry
    def board_rect(self) -> QRectF:
        """The square the board occupies, in widget coordinates (beside the bands of any margin texts)."""
        margin = 4.0
        N = self._puzzle.N if self._puzzle is not None else 9
        m = self._margins
        kx = ("left" in m) + ("right" in m)
        ky = ("top" in m) + ("bottom" in m)
        f = MARGIN_BAND / N  # band width as a fraction of the board side
        side = max(0.0, min((self.width() - 2 * margin) / (1 + kx * f), (self.height() - 2 * margin) / (1 + ky * f)))
        band = side * f
        left = (self.width() - side * (1 + kx * f)) / 2 + (band if "left" in m else 0.0)
        top = (self.height() - side * (1 + ky * f)) / 2 + (band if "top" in m else 0.0)
        return QRectF(left, top, side, side)

    def _margin_band(self) -> float:
        return self.board_rect().width() * MARGIN_BAND / self._puzzle.N

    def cell_rect(self, cell: int) -> QRectF:
        """The rectangle of ``cell`` in widget coordinates."""
        self._lines()
        return QRectF(*self._lines_cache[3][int(cell)])

    def conflict_mark_rect(self, cell: int) -> QRectF:
        """Where the bar under a conflicting digit is drawn (widget coordinates)."""
        r = self.cell_rect(cell)
        thick = max(3.0 if self._presenting else 2.0, r.height() * (0.07 if self._presenting else 0.05))
        return QRectF(r.x() + r.width() * 0.2, r.y() + r.height() * 0.84, r.width() * 0.6, thick)

    def cell_at(self, pos: QPointF) -> int:
        """The cell under a widget position, or -1 outside the board."""
        if self._puzzle is None:
            return -1
        N = self._puzzle.N
        rect = self.board_rect()
        if rect.width() <= 0 or not rect.contains(pos):
            return -1
        c = min(N - 1, int((pos.x() - rect.left()) / rect.width() * N))
        r = min(N - 1, int((pos.y() - rect.top()) / rect.height() * N))
        return r * N + c

    def pencil_marks_fit(self) -> bool:
        """Whether cells are large enough for pencil marks at the current size."""
        if self._puzzle is None:
            return False
        return self.board_rect().width() / self._puzzle.N / self._puzzle.n >= MIN_PENCIL_PX

    def sizeHint(self) -> QSize:
        return QSize(640, 640)  # the centre of the window: it should win the first layout

    def minimumSizeHint(self) -> QSize:
        return QSize(160, 160)

    # ---------------------------------------------------------------- events
    def mouseMoveEvent(self, event) -> None:
        cell = self.cell_at(event.position())
        if cell != self._hovered:
            self._hovered = cell
            self.cellHovered.emit(cell)
        super().mouseMoveEvent(event)

    def leaveEvent(self, event) -> None:
        if self._hovered != -1:
            self._hovered = -1
            self.cellHovered.emit(-1)
        super().leaveEvent(event)

    def mousePressEvent(self, event) -> None:
        cell = self.cell_at(event.position())
        if event.button() == Qt.MouseButton.LeftButton and cell >= 0:
            if self._editable:
                self._selected = cell
                self.setFocus(Qt.FocusReason.MouseFocusReason)
                self.update()
            self.cellClicked.emit(cell)
            event.accept()
            return
        super().mousePressEvent(event)

    def keyPressEvent(self, event) -> None:
        if not self._editable or self._puzzle is None or self._selected < 0:
            super().keyPressEvent(event)
            return
        N = self._puzzle.N
        key = event.key()
        if key in _ARROWS:
            dr, dc = _ARROWS[key]
            r, c = divmod(self._selected, N)
            self._selected = ((r + dr) % N) * N + (c + dc) % N
            self.update()
            return
        text = event.text().upper()
        if key in _CLEAR_KEYS:
            self.cellEdited.emit(self._selected, 0)
            return
        if len(text) == 1 and text in SYMBOLS[:N]:
            self.cellEdited.emit(self._selected, SYMBOLS.index(text) + 1)
            return
        super().keyPressEvent(event)

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            text = self.tooltip_text(self.cell_at(QPointF(event.pos())))
            if text:
                QToolTip.showText(event.globalPos(), text, self)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    # -------------------------------------------------------------- painting
    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), self.palette().window())
        if self._puzzle is None:
            painter.end()
            return
        rect = self.board_rect()
        painter.fillRect(rect, self._colors["background"])
        self._paint_backgrounds(painter)
        self._paint_lines(painter, rect)
        self._paint_contents(painter)
        self._paint_marks(painter)
        self._paint_margins(painter)
        painter.end()

    def _paint_backgrounds(self, p: QPainter) -> None:
        col = self._colors
        givens = self._puzzle.grid > 0
        fixed = None if self._fixed is None else (self._fixed & ~givens)
        shading = self._shading if self._overlays["shading"] else None
        shade = col["shade"]
        for cell in range(self._puzzle.C):
            if givens[cell]:
                color = col["given_bg"]
            elif fixed is not None and fixed[cell]:
                color = col["fixed_bg"]
            elif shading is not None and shading[cell] > 0:
                color = theme.qcolor(shade, 220 * min(1.0, float(shading[cell])))
            else:
                continue
            p.fillRect(self.cell_rect(cell), color)
        for cell, color in () if self._editable else self._cell_colors.items():  # editing givens: plain board
            if 0 <= cell < self._puzzle.C:
                p.fillRect(self.cell_rect(cell), color)
        if self._selected >= 0 and self._editable:
            p.fillRect(self.cell_rect(self._selected), col["selection_bg"])
        for cells, color in self._cell_sets.values():
            tint = theme.qcolor(color, 45 * color.alpha() / 255)  # a translucent set colour tints less
            for cell in cells:
                if 0 <= cell < self._puzzle.C:
                    p.fillRect(self.cell_rect(cell), tint)
        for cell in self._highlight if self._highlight_fill else ():
            if 0 <= cell < self._puzzle.C:
                p.fillRect(self.cell_rect(cell), theme.qcolor(self._highlight_color, 60))

    def _paint_lines(self, p: QPainter, rect: QRectF) -> None:
        n, N = self._puzzle.n, self._puzzle.N
        xs, ys = self._lines()
        if self._presenting:  # seen from the back of a room
            thin = QPen(self._colors["thin_line"], max(1.5, rect.width() / 500))
            thick = QPen(self._colors["thick_line"], max(4.0, rect.width() / 110))
        else:
            thin = QPen(self._colors["thin_line"], 1.0)
            thick = QPen(self._colors["thick_line"], max(2.0, rect.width() / 220))
        p.setPen(thin)
        for i in range(1, N):
            if i % n:
                p.drawLine(QPointF(xs[i], ys[0]), QPointF(xs[i], ys[-1]))
                p.drawLine(QPointF(xs[0], ys[i]), QPointF(xs[-1], ys[i]))
        p.setPen(thick)
        for i in range(0, N + 1, n):
            p.drawLine(QPointF(xs[i], ys[0]), QPointF(xs[i], ys[-1]))
            p.drawLine(QPointF(xs[0], ys[i]), QPointF(xs[-1], ys[i]))

    def _paint_contents(self, p: QPainter) -> None:
        puzzle = self._puzzle
        n, N = puzzle.n, puzzle.N
        col = self._colors
        cell_px = self.board_rect().width() / N
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        if self._presenting:  # larger, and givens and solver digits apart by weight as well as colour
            given_font = _pixel_font(cell_px * 0.7, QFont.Weight.Black)
            solver_font = _pixel_font(cell_px * 0.7, QFont.Weight.Normal)
        else:
            given_font = _pixel_font(cell_px * 0.62, QFont.Weight.Bold)
            solver_font = _pixel_font(cell_px * 0.62, QFont.Weight.Medium)
        pencil_font = _pixel_font(cell_px / n * 0.78, QFont.Weight.Normal)
        removed_font = _pixel_font(cell_px / n * 0.78, QFont.Weight.Bold)
        conflicts = self._conflicts if self._overlays["conflicts"] else None
        domains = self._domains if self._overlays["pencil"] else None
        removed = self._removed if self._overlays["removed"] else None
        pencil = (domains is not None or removed is not None) and self.pencil_marks_fit()
        givens = puzzle.grid.tolist()
        shown = self._shown.tolist()
        as_digit = self.digit_cells().tolist()  # the one rule of what a cell shows (tests read it too)
        conflicting = conflicts.tolist() if conflicts is not None else None
        lost_list = removed.tolist() if removed is not None else None
        self._lines()
        rects = self._lines_cache[3]
        # Digits as cached static texts (their layout is made once per symbol and size, not per paint),
        # drawn in runs of the same font and colour, so a frame costs little more than the glyph blits.
        texts = self._static_texts(cell_px, given_font, solver_font)
        state = None
        for cell in range(puzzle.C):
            d = shown[cell]
            lost = lost_list[cell] if lost_list is not None else 0
            if as_digit[cell]:
                is_given = givens[cell] > 0
                conflict = conflicting is not None and conflicting[cell]
                key = (is_given, conflict)
                if key != state:
                    state = key
                    p.setFont(given_font if is_given else solver_font)
                    p.setPen(col["conflict_fg"] if conflict else (col["given_fg"] if is_given else col["solver_fg"]))
                st, w, h = texts[is_given][d - 1]
                x, y, cw, ch = rects[cell]
                p.drawStaticText(QPointF(x + (cw - w) / 2, y + (ch - h) / 2), st)
                if conflict:  # not by colour alone: a conflict's digit is underlined too
                    p.fillRect(self.conflict_mark_rect(cell), col["conflict_fg"])
            elif pencil and not givens[cell]:
                state = None
                mask = int(domains[cell]) if domains is not None else 0
                self._paint_pencil(p, self.cell_rect(cell), n, mask, lost, pencil_font, removed_font)

    def _static_texts(self, cell_px: float, given_font: QFont, solver_font: QFont) -> dict:
        """Per font (given: True, solver: False), each symbol as (QStaticText, width, height), cached per size."""
        key = (int(cell_px * 0.62), self._puzzle.N, self._presenting)
        if self._text_cache is None or self._text_cache[0] != key:
            out = {}
            for is_given, font in ((True, given_font), (False, solver_font)):
                row = []
                for sym in SYMBOLS[: self._puzzle.N]:
                    st = QStaticText(sym)
                    st.setTextFormat(Qt.TextFormat.PlainText)
                    st.prepare(QTransform(), font)
                    size = st.size()
                    row.append((st, size.width(), size.height()))
                out[is_given] = row
            self._text_cache = (key, out)
        return self._text_cache[1]

    def _pencil_texts(self, font: QFont) -> list:
        """Each symbol in a pencil-mark font as (QStaticText, width, height), cached per font (laid out once)."""
        key = (font.key(), self._puzzle.N)
        cache = self.__dict__.setdefault("_pencil_cache", {})
        if key not in cache:
            if len(cache) > 8:
                cache.clear()
            row = []
            for sym in SYMBOLS[: self._puzzle.N]:
                st = QStaticText(sym)
                st.setTextFormat(Qt.TextFormat.PlainText)
                st.prepare(QTransform(), font)
                size = st.size()
                row.append((st, size.width(), size.height()))
            cache[key] = row
        return cache[key]

    def _paint_pencil(
        self, p: QPainter, r: QRectF, n: int, mask: int, lost: int, font: QFont, lost_font: QFont
    ) -> None:
        # Pre-laid-out static texts, and the painter's font and pen set once per kind: drawText laid out every
        # digit on every frame (pencil marks on all 81 cells made the board the lab's costliest repaint).
        w, h = r.width() / n, r.height() / n
        col = self._colors
        kept, gone = mask & ~lost, lost
        if kept:
            texts = self._pencil_texts(font)
            p.setFont(font)
            p.setPen(col["pencil_fg"])
            for k in range(n * n):
                if kept >> k & 1:
                    st, tw, th = texts[k]
                    p.drawStaticText(
                        QPointF(r.left() + (k % n + 0.5) * w - tw / 2, r.top() + (k // n + 0.5) * h - th / 2), st
                    )
        if gone:
            texts = self._pencil_texts(lost_font)
            strike = QPen(col["removed_fg"], max(1.0, w / 9))
            for k in range(n * n):
                if not gone >> k & 1:
                    continue
                st, tw, th = texts[k]
                x0, y0 = r.left() + (k % n) * w, r.top() + (k // n) * h
                p.setFont(lost_font)
                p.setPen(col["removed_fg"])
                p.drawStaticText(QPointF(x0 + w / 2 - tw / 2, y0 + h / 2 - th / 2), st)
                p.setPen(strike)
                p.drawLine(QPointF(x0 + w * 0.15, y0 + h * 0.8), QPointF(x0 + w * 0.85, y0 + h * 0.2))

    def _paint_marks(self, p: QPainter) -> None:
        col = self._colors
        cell_px = self.board_rect().width() / self._puzzle.N
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        if self._overlays["diff"] and self._diff.any():
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QBrush(col["diff"]))
            t = cell_px * 0.3
            for cell in np.flatnonzero(self._diff):
                r = self.cell_rect(int(cell))
                p.drawPolygon(
                    QPolygonF(
                        [
                            QPointF(r.right() - t, r.top() + 1),
                            QPointF(r.right() - 1, r.top() + 1),
                            QPointF(r.right() - 1, r.top() + t),
                        ]
                    )
                )
        p.setBrush(Qt.BrushStyle.NoBrush)
        self._paint_cell_sets(p, cell_px)
        self._paint_links(p, cell_px)
        p.setBrush(Qt.BrushStyle.NoBrush)
        width = max(2.0, cell_px / 14)
        inset = width / 2 + 1
        outlines = [(c, self._highlight_color) for c in self._highlight]
        if self._focus >= 0:
            outlines.append((self._focus, col["focus"]))
        if self._editable and self._selected >= 0:
            outlines.append((self._selected, col["selection"]))
        for cell, color in outlines:
            if 0 <= cell < self._puzzle.C:
                p.setPen(QPen(color, width))
                p.drawRect(self.cell_rect(cell).adjusted(inset, inset, -inset, -inset))

    def _paint_cell_sets(self, p: QPainter, cell_px: float) -> None:
        """Each set's region outline: the cell edges that do not border another cell of the set."""
        N, C = self._puzzle.N, self._puzzle.C
        width = max(2.0, cell_px / 12)
        inset = width / 2 + 1
        for cells, color in self._cell_sets.values():
            pen = QPen(color, width)
            pen.setCapStyle(Qt.PenCapStyle.SquareCap)
            p.setPen(pen)
            for cell in cells:
                if not 0 <= cell < C:
                    continue
                r, c = divmod(cell, N)
                rect = self.cell_rect(cell).adjusted(inset, inset, -inset, -inset)
                if r == 0 or cell - N not in cells:
                    p.drawLine(rect.topLeft(), rect.topRight())
                if r == N - 1 or cell + N not in cells:
                    p.drawLine(rect.bottomLeft(), rect.bottomRight())
                if c == 0 or cell - 1 not in cells:
                    p.drawLine(rect.topLeft(), rect.bottomLeft())
                if c == N - 1 or cell + 1 not in cells:
                    p.drawLine(rect.topRight(), rect.bottomRight())

    def _paint_links(self, p: QPainter, cell_px: float) -> None:
        """A line between the centres of each pair's cells, with a dot on each end."""
        C = self._puzzle.C
        width = max(2.0, cell_px / 10)
        for pairs, color in self._links.values():
            p.setPen(QPen(theme.qcolor(color, 200), width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
            p.setBrush(Qt.BrushStyle.NoBrush)
            for a, b in pairs:
                if 0 <= a < C and 0 <= b < C:
                    p.drawLine(self.cell_rect(int(a)).center(), self.cell_rect(int(b)).center())
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QBrush(color))
            dot = width * 1.3
            for cell in {int(x) for x in pairs.reshape(-1) if 0 <= x < C}:
                p.drawEllipse(self.cell_rect(cell).center(), dot, dot)

    def _paint_margins(self, p: QPainter) -> None:
        """Each margin text centred beside its row or column; quiet texts normal, coloured ones bold."""
        if not self._margins:
            return
        N = self._puzzle.N
        band = self._margin_band()
        cell_px = self.board_rect().width() / N
        px = max(6.0, min(band * 0.8, cell_px * 0.45))
        quiet = theme.qcolor(_QUIET)
        normal, bold = _pixel_font(px, QFont.Weight.Normal), _pixel_font(px, QFont.Weight.Bold)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        for side, texts in self._margins.items():
            for index, (text, color) in texts.items():
                if not 0 <= index < N:
                    continue
                p.setFont(normal if color == quiet else bold)
                p.setPen(color)
                p.drawText(self.margin_rect(side, index), Qt.AlignmentFlag.AlignCenter, text)

    # --------------------------------------------------------------- helpers
    def _lines(self) -> tuple[list[float], list[float]]:
        """Pixel-snapped x and y positions of the N + 1 grid lines (cached per widget size and N)."""
        N = self._puzzle.N
        key = (self.width(), self.height(), N, tuple(sorted(self._margins)))
        if self._lines_cache is None or self._lines_cache[0] != key:
            rect = self.board_rect()
            step = rect.width() / N
            xs = [round(rect.left() + i * step) + 0.5 for i in range(N + 1)]
            ys = [round(rect.top() + i * step) + 0.5 for i in range(N + 1)]
            cells = [(xs[c], ys[r], xs[c + 1] - xs[c], ys[r + 1] - ys[r]) for r in range(N) for c in range(N)]
            self._lines_cache = (key, xs, ys, cells)  # cells: (x, y, w, h) of each cell, for cell_rect
        return self._lines_cache[1], self._lines_cache[2]

    def _checked(self, a, what: str) -> np.ndarray | None:
        if a is None:
            return None
        if self._puzzle is None:
            raise ValueError(f"set a puzzle before its {what}")
        a = np.asarray(a)
        if a.shape != (self._puzzle.C,):
            raise ValueError(
                f"{what} must have shape ({self._puzzle.C},) for a {self._puzzle.N}x{self._puzzle.N} "
                f"board, got {a.shape}"
            )
        return a

    def _refresh(self) -> None:
        """Recompute the shown digits, conflicts and differences, then repaint."""
        if self._puzzle is None:
            self._shown = np.zeros(0, dtype=np.int8)
            self._conflicts = np.zeros(0, dtype=bool)
            self._diff = np.zeros(0, dtype=bool)
            self.update()
            return
        givens = self._puzzle.grid
        shown = givens if self._grid is None else np.where(givens > 0, givens, self._grid).astype(np.int8)
        self._shown = shown
        self._conflicts = _conflicts(shown, self._puzzle.n)
        if self._solution is None:
            self._diff = np.zeros(shown.shape, dtype=bool)
        else:
            self._diff = (shown > 0) & (shown != self._solution)
        self.update()


def _same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    """True if both are None or equal arrays (cheap next to a repaint)."""
    if a is None or b is None:
        return a is b
    return a is b or np.array_equal(a, b)


def _conflicts(shown: np.ndarray, n: int) -> np.ndarray:
    """bool (C,): cells whose non-zero digit appears again in one of their units."""
    geo = geometry(n)
    vals = shown[geo.units]  # (3N, N)
    same = (vals[:, :, None] == vals[:, None, :]) & (vals[:, :, None] > 0)
    repeated = same.sum(axis=2) > 1  # each cell matches itself once
    out = np.zeros(shown.shape, dtype=bool)
    out[geo.units[repeated]] = True
    return out


def _pixel_font(px: float, weight: QFont.Weight) -> QFont:
    f = QFont()
    f.setPixelSize(max(1, int(px)))
    f.setWeight(weight)
    return f
