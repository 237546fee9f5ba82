"""AC3Player: replays one AC3 run on a board, a queue pop or a single removal at a time.

The player runs :func:`sudoku_lab.exact.ac3.ac3` once per puzzle (and again when
the hidden-singles box is toggled) and then only replays its log with
:meth:`~sudoku_lab.exact.ac3.AC3Result.domains_after`; it never propagates itself.

The replay state is ``(pops, position)``: ``position`` removals of the log
are applied and ``pops`` queue pops have started (the last of them may be
part-way through its removals after fine steps). A pop with no removal (its
digit was already gone from every peer) is a step of its own.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QLabel,
    QListWidget,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from sudoku_lab.exact.ac3 import AC3Result, ac3, candidate_count
from sudoku_lab.model.geometry import MASK_DTYPE, cell_name, geometry, symbol
from sudoku_lab.model.puzzle import Puzzle

from . import theme
from .board import BoardView
from .flow import FlowLayout

__all__ = ["AC3Player", "describe_removals"]


def describe_removals(result: AC3Result) -> list[str]:
    """One sentence per log row of an AC3 run.

    Parameters
    ----------
    result : AC3Result

    Returns
    -------
    list of str, length ``result.n_removed``
        ``"r3c4 loses 7 because r3c9 = 7"``, or for a hidden single
        ``"r2c3 loses 1 (hidden single: 5 has one place left in box 2)"``.
    """
    N = result.n * result.n
    geo = geometry(result.n)
    log = result.log
    cells = log["cell"].tolist()
    digits = log["digit"].tolist()
    because = log["because"].tolist()
    pops = log["pop"].tolist()
    # The digit a hidden single places is what its cell keeps once the rows of its group are applied.
    domains = result.initial.astype(np.int64)
    kept: dict[int, int] = {}
    for k, (cell, digit, b) in enumerate(zip(cells, digits, because)):
        domains[cell] &= ~(1 << (digit - 1))
        if b < 0 and (k + 1 == len(cells) or because[k + 1] != b or cells[k + 1] != cell or pops[k + 1] != pops[k]):
            kept[k] = int(domains[cell])
    out = []
    hidden_text = ""
    for k in range(len(cells) - 1, -1, -1):  # backwards: a group's placed digit is known at its last row
        cell, digit, b = cells[k], digits[k], because[k]
        if b >= 0:
            out.append(f"{cell_name(cell, N)} loses {symbol(digit)} because {cell_name(b, N)} = {symbol(digit)}")
            continue
        if k in kept:
            placed = kept[k].bit_length()
            hidden_text = f"hidden single: {symbol(placed)} has one place left in {geo.unit_name(-1 - b)}"
        out.append(f"{cell_name(cell, N)} loses {symbol(digit)} ({hidden_text})")
    out.reverse()
    return out


class AC3Player(QWidget):
    """Teach AC3 on its own: step through a puzzle's propagation on a board with pencil marks.

    Signals
    -------
    positionChanged(int, int)
        ``(pops, position)`` after every move of the replay.

    Notes
    -----
    AC3 as singleton propagation (docs/algorithms.md#ac3), the prefilter of
    Soto et al.'s AC3-tabu search (2013, Algorithm 3).
    Hidden singles are a stronger rule than AC3 and are off by default.
    """

    positionChanged = Signal(int, int)

    #: Lines of the explanation under the counters (a longer text scrolls; the buttons never move).
    EXPLANATION_LINES = 4

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._puzzle: Puzzle | None = None
        self._result: AC3Result | None = None
        self._texts: list[str] = []
        self._pop_ends = np.zeros(0, dtype=np.int64)
        self._pops = 0
        self._position = 0
        self._last = (0, 0)  # log rows [a, b) removed by the last move (struck through on the board)
        self._caption = ""  # what the replayed run is, when it is not the puzzle's own AC3

        self.board = BoardView()
        self.board.set_tooltip_provider(self._tooltip)
        self.hidden_singles = QCheckBox("hidden singles (stronger than AC3)")
        self.hidden_singles.setToolTip(
            "Also place a digit that has a single possible cell left in a row, column "
            "or box. This is not implied by arc consistency."
        )
        self.hidden_singles.toggled.connect(lambda _on: self._recompute())
        self.reset_button = QPushButton("Reset")
        self.back_button = QPushButton("Back")
        self.fine_button = QPushButton("Fine step")
        self.step_button = QPushButton("Step")
        self.run_button = QPushButton("Run to fixed point")
        tips = (
            (self.reset_button, "Back to the start (Home)", self.reset_replay),
            (self.back_button, "Undo one removal (Left)", self.back),
            (self.fine_button, "Apply one removal (Right)", self.fine_step),
            (self.step_button, "Pop one cell from the queue and apply all its removals (Space)", self.step),
            (self.run_button, "Apply every remaining removal (End)", self.run_to_end),
        )
        for button, tip, slot in tips:
            button.setToolTip(tip)
            button.clicked.connect(slot)
        for key, slot in (
            (Qt.Key.Key_Home, self.reset_replay),
            (Qt.Key.Key_Left, self.back),
            (Qt.Key.Key_Right, self.fine_step),
            (Qt.Key.Key_Space, self.step),
            (Qt.Key.Key_End, self.run_to_end),
        ):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        self.counters = QLabel()
        self.counters.setFont(theme.ui_font(11, bold=True))
        self.counters.setWordWrap(True)
        self.message = QLabel()
        self.message.setObjectName("ac3_message")
        self.message.setWordWrap(True)
        self.message.setFont(theme.ui_font(11))
        self.message.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        # The explanation's height never follows its text: a taller one moved the buttons above the board's
        # side by a line between two clicks (the next click then missed, or hit "hidden singles"). It is
        # EXPLANATION_LINES lines tall and scrolls the rare longer text.
        self.explanation = QScrollArea()
        self.explanation.setObjectName("ac3_explanation")
        self.explanation.setFrameShape(QFrame.Shape.NoFrame)
        self.explanation.setWidgetResizable(True)
        self.explanation.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.explanation.setWidget(self.message)
        self.message.installEventFilter(self)
        self.counters.installEventFilter(self)
        self.log_list = QListWidget()
        self.log_list.setFont(theme.mono_font(10))
        self.log_list.setWordWrap(True)
        self.log_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.log_list.itemClicked.connect(lambda item: self.seek(self.log_list.row(item) + 1))
        self.log_list.setToolTip("Removals applied so far; click one to go back to it")

        buttons = FlowLayout()  # wraps in a narrow dock: every button stays whole
        for b in (self.reset_button, self.back_button, self.fine_button, self.step_button, self.run_button):
            buttons.addWidget(b)
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(6, 0, 0, 0)
        self.side_layout = side_layout
        side_layout.addWidget(self.hidden_singles)
        side_layout.addLayout(buttons)
        side_layout.addWidget(self.counters)
        side_layout.addWidget(self.explanation)
        side_layout.addWidget(QLabel("Removals:"))
        side_layout.addWidget(self.log_list, 1)
        # Vertical to start: a horizontal splitter would make the dock at least board + buttons wide.
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.board)
        self.splitter.addWidget(side)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.board.setMinimumSize(220, 220)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)
        self._fit_explanation()
        self._show()

    def resizeEvent(self, event) -> None:
        # Board beside the log in a wide dock, above it in a tall one (a side dock), so the board
        # never shrinks to a stamp next to the button row.
        wide = event.size().width() >= 1.2 * event.size().height()
        want = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        if self.splitter.orientation() != want:
            self.splitter.setOrientation(want)
        super().resizeEvent(event)
        self._fit_counters()
        self._fit_side()

    def eventFilter(self, obj, event) -> bool:
        if obj in (self.message, self.counters) and event.type() == QEvent.Type.FontChange:
            QTimer.singleShot(0, self, self.fonts_changed)  # after the font is in place
        return super().eventFilter(obj, event)

    def fonts_changed(self) -> None:
        """The type was made larger or smaller (presentation mode): the fixed heights follow the new font."""
        self._fit_explanation()
        self._fit_side()

    def _fit_explanation(self) -> None:
        """The explanation :data:`EXPLANATION_LINES` lines tall, the counters as tall as their longest text."""
        fm = self.message.fontMetrics()
        self.explanation.setFixedHeight(self.EXPLANATION_LINES * fm.lineSpacing() + 6)
        self._fit_counters()

    def _fit_counters(self) -> None:
        """The counters' line as tall as its longest form at its width (the largest counts of the run)."""
        r = self._result
        big = 10 ** len(str(max(r.n_removed, r.n_pops, len(r.initial)))) - 1 if r is not None else 999
        widest = f"pop {big} / {big},  removal {big} / {big},  fixed {big} cells"
        width = max(self.counters.width(), 1)
        need = self.counters.fontMetrics().boundingRect(0, 0, width, 10_000, Qt.TextFlag.TextWordWrap, widest).height()
        if self.counters.minimumHeight() != need:
            self.counters.setMinimumHeight(need)

    def _fit_side(self) -> None:
        """Keep the controls' side tall enough for its wrapped text and buttons at its width (the board gives way).

        A splitter ignores the height a word-wrapped label needs at a given
        width: in a short dock the explanation was clipped top and bottom.
        As the side's minimum height, it makes the player scroll in its dock
        instead.
        """
        side = self.splitter.widget(1)
        width = side.width() if self.splitter.orientation() == Qt.Orientation.Horizontal else self.width()
        need = side.layout().totalMinimumHeightForWidth(max(width, 1))
        if need != side.minimumHeight():
            side.setMinimumHeight(need)

    # ------------------------------------------------------------------- API
    def set_puzzle(self, puzzle: Puzzle | None, result: AC3Result | None = None, caption: str = "") -> None:
        """Run AC3 on ``puzzle`` (clashing givens allowed) and rewind the replay; None empties the player.

        ``result``: AC3 already run on ``puzzle`` (with the hidden-singles
        setting of the box), e.g. in a background thread, or a propagation a
        solver ran on domains of its own (an iteration of AC3-tabu search).
        ``caption`` then says what it is ("iteration 812: r3c4 = 5"); it
        opens the messages instead of the text about the puzzle's givens.
        """
        self._puzzle = puzzle
        self._caption = caption
        self._recompute(result)

    @property
    def caption(self) -> str:
        """What the replayed run is (empty for the puzzle's own AC3)."""
        return self._caption

    def show_end(self) -> None:
        """Jump to the end of the replay with every removal of the run struck through on the board."""
        r = self._result
        if r is not None:
            self._move(r.n_pops, r.n_removed, last=(0, r.n_removed))

    @property
    def result(self) -> AC3Result | None:
        """The AC3 run being replayed."""
        return self._result

    @property
    def position(self) -> int:
        """Removals applied (0 .. ``result.n_removed``)."""
        return self._position

    @property
    def pops(self) -> int:
        """Queue pops started (0 .. ``result.n_pops``)."""
        return self._pops

    @property
    def at_end(self) -> bool:
        """True when every pop and removal has been replayed."""
        r = self._result
        return r is None or (self._position == r.n_removed and self._pops == r.n_pops)

    def current_domains(self) -> np.ndarray:
        """Domains after the applied removals: ndarray of uint32, shape (C,) (a new array)."""
        if self._result is None:
            return np.zeros(0, dtype=MASK_DTYPE)
        return self._result.domains_after(self._position)

    def last_removed(self) -> np.ndarray:
        """Digits removed by the last move, as masks: ndarray of uint32, shape (C,)."""
        r = self._result
        if r is None:
            return np.zeros(0, dtype=MASK_DTYPE)
        a, b = self._last
        rows = r.log[a:b]
        out = np.zeros(r.initial.shape, dtype=MASK_DTYPE)
        np.bitwise_or.at(out, rows["cell"], np.left_shift(MASK_DTYPE(1), (rows["digit"] - 1).astype(MASK_DTYPE)))
        return out

    def step(self) -> None:
        """One queue pop: finish the pop in progress, else start the next one and apply all its removals."""
        r = self._result
        if r is None:
            return
        if self._pops > 0 and self._position < self._pop_ends[self._pops - 1]:
            self._move(self._pops, int(self._pop_ends[self._pops - 1]))
        elif self._pops < r.n_pops:
            self._move(self._pops + 1, int(self._pop_ends[self._pops]))

    def fine_step(self) -> None:
        """One removal (at the end of the log, the remaining pops one at a time)."""
        r = self._result
        if r is None:
            return
        if self._position < r.n_removed:
            self._move(int(r.log["pop"][self._position]) + 1, self._position + 1)
        else:
            self.step()

    def back(self) -> None:
        """Undo one removal."""
        r = self._result
        if r is None:
            return
        if self._position > 0:
            self.seek(self._position - 1)
        elif self._pops > 0:
            self._move(0, 0, last=(0, 0))

    def run_to_end(self) -> None:
        """Replay everything: the fixed point, or the wipe-out."""
        r = self._result
        if r is not None:
            self._move(r.n_pops, r.n_removed, last=(0, 0))

    def reset_replay(self) -> None:
        """Back to the initial domains."""
        if self._result is not None:
            self._move(0, 0, last=(0, 0))

    def seek(self, position: int) -> None:
        """Show the state after ``position`` removals (0 .. n_removed), as fine steps would reach it."""
        r = self._result
        if r is None:
            return
        position = max(0, min(int(position), r.n_removed))
        if position == 0:
            self._move(0, 0, last=(0, 0))
        else:
            self._move(int(r.log["pop"][position - 1]) + 1, position, last=(position - 1, position))

    # -------------------------------------------------------------- internals
    def _recompute(self, result: AC3Result | None = None) -> None:
        if self._puzzle is None:
            self._result = None
            self._texts = []
            self._pop_ends = np.zeros(0, dtype=np.int64)
        else:
            self._result = (
                result if result is not None else ac3(self._puzzle, hidden_singles=self.hidden_singles.isChecked())
            )
            self._texts = describe_removals(self._result)
            # End (exclusive) of each pop's log rows.
            self._pop_ends = np.searchsorted(
                self._result.log["pop"], np.arange(1, self._result.n_pops + 1), side="left"
            )
        self.board.set_puzzle(self._puzzle)
        self.log_list.clear()
        self._pops = self._position = 0
        self._last = (0, 0)
        self._show()
        self.positionChanged.emit(0, 0)

    def _move(self, pops: int, position: int, last: tuple[int, int] | None = None) -> None:
        """Go to ``(pops, position)``; ``last`` are the log rows to strike through (default: the rows crossed)."""
        self._last = last if last is not None else (min(self._position, position), max(self._position, position))
        self._pops, self._position = pops, position
        self._show()
        self.positionChanged.emit(pops, position)

    def _show(self) -> None:
        r = self._result
        for b in (self.reset_button, self.back_button, self.fine_button, self.step_button, self.run_button):
            b.setEnabled(r is not None)
        if r is None:
            self.counters.setText("")
            self.message.setText("Load a puzzle to watch AC3 prune its candidates.")
            return
        domains = self.current_domains()
        givens = self._puzzle.grid > 0
        single = candidate_count(domains) == 1
        decided = single & ~givens
        grid = np.zeros(domains.shape, dtype=np.int8)
        # A one-bit mask m = 2**(d-1): m - 1 has d - 1 bits.
        grid[decided] = candidate_count(domains[decided] - MASK_DTYPE(1)) + 1
        self.board.set_grid(grid, decided)
        self.board.set_domains(domains)
        self.board.set_removed(self.last_removed() if self._last[1] > self._last[0] else None)
        # The popped cell whose digit is being removed; at the end the message (and a wipe-out) take over.
        self.board.set_focus_cell(int(r.pops[self._pops - 1]) if self._pops > 0 and not self.at_end else -1)
        fixed_now = int(np.count_nonzero(single & (candidate_count(r.initial) != 1)))
        self.counters.setText(
            f"pop {self._pops} / {r.n_pops},  removal {self._position} / {r.n_removed},  fixed {fixed_now} cells"
        )
        self._sync_log()
        self._set_message()
        self._fit_counters()
        self._fit_side()

    def _set_message(self) -> None:
        r = self._result
        N = r.n * r.n
        if self.at_end and not r.consistent:
            if r.wipeout_unit is not None:
                what = f"digit {symbol(r.wipeout_digit)} has no place left in {geometry(r.n).unit_name(r.wipeout_unit)}"
                cells = geometry(r.n).units[r.wipeout_unit].tolist()
            else:
                what = f"{cell_name(r.wipeout_cell, N)} has no candidate left"
                cells = [r.wipeout_cell]
            self.board.set_highlight(cells)
            self.message.setStyleSheet(f"color: {theme.VERMILLION}; font-weight: bold")
            self.message.setText(f"{self._caption + '. ' if self._caption else ''}contradiction: {what}")
            return
        self.board.set_highlight([])
        self.message.setStyleSheet("")
        lead = f"{self._caption}. " if self._caption else ""
        if self.at_end:
            self.message.setText(f"{lead}Fixed point. {r.describe()}")
        elif self._pops == 0:
            what = "every cell with one candidate" if self._caption else "every cell with one candidate (the givens)"
            self.message.setText(
                f"{lead}The queue holds {what}. Step pops one and removes its digit from its row, column and box."
            )
        else:
            cell = int(r.pops[self._pops - 1])
            d = int(r.domains_after(int(self._pop_ends[self._pops - 1]))[cell])
            what = f"{cell_name(cell, N)} = {symbol(d.bit_length())}" if d else cell_name(cell, N)
            start = int(self._pop_ends[self._pops - 2]) if self._pops > 1 else 0
            total = int(self._pop_ends[self._pops - 1]) - start
            head = f"Pop {self._pops}: {what}"
            if total and r.log["because"][start] < 0:  # the pop opens with the hidden single that queued it
                head += " by a " + self._texts[start].split("(", 1)[1].rstrip(")")
            if total == 0:
                self.message.setText(f"{head}; no peer still had that digit.")
            else:
                self.message.setText(f"{head}; removal {self._position - start} of {total}.")

    def _sync_log(self) -> None:
        """Make the list hold exactly the applied removals, appending or trimming at its end."""
        count = self.log_list.count()
        if count < self._position:
            self.log_list.addItems(self._texts[count : self._position])
        elif count > self._position:
            self.log_list.model().removeRows(self._position, count - self._position)
        if self._position:
            self.log_list.setCurrentRow(self._position - 1)
            self.log_list.scrollToItem(self.log_list.item(self._position - 1))

    def _tooltip(self, cell: int) -> str:
        N = self._puzzle.N
        domains = self.current_domains()
        digits = " ".join(symbol(d + 1) for d in range(N) if int(domains[cell]) >> d & 1) or "none"
        text = f"{cell_name(cell, N)}: candidates {digits}"
        lost = int(self.last_removed()[cell])
        if lost:
            text += "; just lost " + " ".join(symbol(d + 1) for d in range(N) if lost >> d & 1)
        return text
