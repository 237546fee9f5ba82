"""Edit mode: typing givens into the board, clashes marked as you type, the edited puzzle used on leaving.

A refused puzzle (clashing givens, no solution) opens here with the cells the
message names highlighted, so the user can fix it where it is shown.
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from sudoku_lab.errors import PuzzleError
from sudoku_lab.model.puzzle import Puzzle

from .controller import Controller
from .puzzle_panel import PuzzlePanel
from .widgets.board import BoardView

__all__ = ["EditMode"]


class EditMode(QObject):
    """The board's edit mode, toggled by the puzzle panel's "Edit givens" button.

    Parameters
    ----------
    controller : Controller
        Loads the edited puzzle on leaving.
    board : BoardView
        Receives typed digits.
    panel : PuzzlePanel
        Its edit button and error line.
    show_message : callable
        ``show_message(text)``: a status-bar line.
    after_leave : callable
        Called after leaving: the window shows the loaded puzzle and its run again.
    """

    def __init__(
        self,
        controller: Controller,
        board: BoardView,
        panel: PuzzlePanel,
        show_message,
        after_leave,
        parent: QObject | None = None,
    ):
        super().__init__(parent)
        self.controller = controller
        self.board = board
        self.panel = panel
        self._show_message = show_message
        self._after_leave = after_leave
        self.puzzle: Puzzle | None = None
        panel.editModeChanged.connect(self._on_button)
        board.cellEdited.connect(self._on_cell_edited)

    def is_editing(self) -> bool:
        return self.puzzle is not None

    def enter(self, puzzle: Puzzle, highlight=()) -> None:
        """Edit ``puzzle`` (the run pauses, a pending puzzle check is dropped), with ``highlight`` cells marked."""
        self.controller.pause()
        self.controller.cancel_check()
        self.puzzle = puzzle
        self.board.set_puzzle(puzzle)
        self.board.set_grid(None)
        self.board.set_editable(True)
        self.board.set_highlight(highlight)
        self.board.setFocus()
        self._set_button(True)
        self._show_message("Edit mode: click a cell and type a digit; leave edit mode to use the puzzle")

    def leave(self) -> None:
        """Leave without using the edited puzzle; the board shows the loaded one again."""
        self.puzzle = None
        self.board.set_editable(False)
        self._set_button(False)
        self._after_leave()

    def _on_button(self, on: bool) -> None:
        """The Edit givens button: edit the current puzzle, or use the edited one."""
        if on:
            if self.controller.puzzle is None:
                self._set_button(False)
                return
            self.enter(self.controller.puzzle)
        elif self.is_editing():
            edited = self.puzzle
            self.leave()
            if edited != self.controller.puzzle:
                # A refusal (at once for clashes, after the check for no solution) comes back through
                # the controller's puzzleRejected, and the window reopens the editor on it.
                self.controller.load_puzzle(edited.replace(name="edited"))

    def _set_button(self, on: bool) -> None:
        b = self.panel.edit_button
        b.blockSignals(True)
        b.setChecked(on)
        b.blockSignals(False)

    def _on_cell_edited(self, cell: int, digit: int) -> None:
        if self.puzzle is None:
            return
        p = self.puzzle.with_cell(cell, digit)
        self.puzzle = p
        self.board.set_puzzle(p)
        clashes = p.clashes()
        self.board.set_highlight({c for a, b, _ in clashes for c in (a, b)})
        if clashes:
            try:
                p.check_clashes()
            except PuzzleError as e:  # the message names the cells and the digit
                self.panel.show_error(str(e))
        else:
            self.panel.show_error(None)
