"""The puzzle panel: browse the bundled collections, open a file, paste, edit givens.

Every puzzle goes through the controller's validation (off the GUI thread,
"Checking ..." shown here meanwhile); a refusal (bad text, clashing givens, no
solution) is shown in red here, in the status bar, and on the board (the
clashing cells highlighted). Puzzles with several solutions load.
"""

from __future__ import annotations

from PySide6.QtCore import QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QGuiApplication, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from sudoku_lab.errors import PuzzleError, SudokuLabError
from sudoku_lab.model import library
from sudoku_lab.model.collections import iter_puzzles, parse_collection
from sudoku_lab.model.puzzle import Puzzle

__all__ = ["PuzzlePanel"]

_COLUMNS = ("name", "givens", "level", "difficulty")
#: The difficulty is Debian qqwing's rating, which can differ from a source's own level (it calls the RESEDA
#: paper's "hard" puzzle "simple"): the header says whose it is.
_HEADERS = {"difficulty": "qqwing"}  # short: the names need the width
_HEADER_TIPS = {
    "level": "The level the puzzle's source gives it (a paper, a collection)",
    "difficulty": "Debian qqwing's rating (simple, easy, intermediate, expert), from the techniques its solver "
    "needs; not the source's own level, which can differ",
}


class PuzzlePanel(QWidget):
    """Choose or write the puzzle.

    Files and pasted text are read leniently (clashing givens allowed): the
    controller validates every puzzle, and the window opens a refused one in
    edit mode with the offending cells highlighted.

    Signals
    -------
    puzzleChosen(object)
        The user picked a puzzle (still to be validated by the controller).
    editModeChanged(bool)
        Edit mode on (the board accepts typed givens) or off.
    """

    puzzleChosen = Signal(object)
    editModeChanged = Signal(bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        self.collection_box = QComboBox()
        self.collection_box.setToolTip("Bundled collections (see `sudoku-lab library`)")
        for info in library.collections():
            self.collection_box.addItem(f"{info.name} ({info.count})", info.name)
        lay.addWidget(self.collection_box)
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter by name or level...")
        self.filter_edit.setClearButtonEnabled(True)
        lay.addWidget(self.filter_edit)
        self.model = QStandardItemModel(0, len(_COLUMNS), self)
        self.model.setHorizontalHeaderLabels([_HEADERS.get(c, c.capitalize()) for c in _COLUMNS])
        for col, c in enumerate(_COLUMNS):
            if c in _HEADER_TIPS:
                self.model.setHeaderData(col, Qt.Horizontal, _HEADER_TIPS[c], Qt.ToolTipRole)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterCaseSensitivity(Qt.CaseInsensitive)
        self.proxy.setFilterKeyColumn(-1)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSortingEnabled(True)
        self.proxy.sort(-1)  # the collection's own order until a header is clicked
        self.table.horizontalHeader().setSortIndicator(-1, Qt.AscendingOrder)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setMinimumSectionSize(40)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.Stretch)
        self.table.setToolTip("Double-click (or Enter) to load a puzzle")
        lay.addWidget(self.table, 1)
        buttons = QHBoxLayout()
        self.open_button = QPushButton("Open file...")
        self.paste_button = QPushButton("Paste")
        self.edit_button = QPushButton("Edit givens")
        self.edit_button.setCheckable(True)
        self.edit_button.setToolTip(
            "Type digits into the board (0, . or Delete clears); leave edit mode to use the puzzle"
        )
        for b in (self.open_button, self.paste_button, self.edit_button):
            buttons.addWidget(b)
        lay.addLayout(buttons)
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #b00020;")
        self.error_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.error_label.hide()
        lay.addWidget(self.error_label)
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.status_label.setStyleSheet("color: #555; font-style: italic;")
        self.status_label.hide()
        lay.addWidget(self.status_label)

        self.collection_box.currentIndexChanged.connect(self._fill_table)
        self.filter_edit.textChanged.connect(self.proxy.setFilterFixedString)
        self.table.doubleClicked.connect(self._load_row)
        self.table.activated.connect(self._load_row)
        self.open_button.clicked.connect(lambda: self.open_file())
        self.paste_button.clicked.connect(lambda: self.paste())
        self.edit_button.toggled.connect(self.editModeChanged)
        self._puzzles: list[Puzzle] = []
        self._fill_table()

    # ------------------------------------------------------------ browsing
    def select_collection(self, name: str) -> None:
        idx = self.collection_box.findData(name)
        if idx >= 0:
            self.collection_box.setCurrentIndex(idx)

    def _fill_table(self) -> None:
        name = self.collection_box.currentData()
        self._puzzles = list(library.collection(name)) if name else []
        self.model.removeRows(0, self.model.rowCount())
        for i, p in enumerate(self._puzzles):
            meta = p.metadata
            level = meta.get("level") or meta.get("label") or meta.get("givens_percent", "")
            if level and "givens_percent" in meta and not meta.get("level"):
                level = f"{level} % givens"
            rating = meta.get("qqwing_difficulty", "")
            items = [QStandardItem(p.name or f"#{i + 1}"), QStandardItem(), QStandardItem(level), QStandardItem(rating)]
            if rating:
                items[3].setToolTip(f"qqwing rates it {rating}")
            items[0].setToolTip(f"{p.name}\n{meta.get('source', '')}".strip())
            items[1].setData(p.n_givens, Qt.DisplayRole)
            items[0].setData(i, Qt.UserRole)
            self.model.appendRow(items)
        for col in range(2, len(_COLUMNS)):  # hide what is missing or the same for the whole collection
            values = {self.model.item(r, col).text() for r in range(self.model.rowCount())}
            self.table.setColumnHidden(col, len(values) <= 1)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.Stretch)

    def _load_row(self, index) -> None:
        row = self.proxy.mapToSource(index).row()
        i = self.model.item(row, 0).data(Qt.UserRole)
        self.puzzleChosen.emit(self._puzzles[i])

    def select_puzzle(self, name: str) -> bool:
        """Select (and show) the table row of puzzle ``name`` in the current collection."""
        for row in range(self.proxy.rowCount()):
            idx = self.proxy.index(row, 0)
            if idx.data() == name:
                self.table.selectRow(row)
                self.table.scrollTo(idx)
                return True
        return False

    # --------------------------------------------------------- other inputs
    def open_file(self, path: str | None = None) -> None:
        if not path:
            path, _ = QFileDialog.getOpenFileName(
                self, "Open puzzle", "", "Puzzles (*.txt *.sdk *.ss *.csv *.sdm);;All files (*)"
            )
            if not path:
                return
        try:
            # Only the first puzzle is read, so opening a collection of a million puzzles is instant.
            puzzle = next(iter_puzzles(path, allow_clashes=True))
        except SudokuLabError as e:
            self.show_error(str(e))
            return
        self.puzzleChosen.emit(puzzle)

    def paste(self, text: str | None = None) -> None:
        """Read a puzzle from ``text`` or the clipboard (any supported format)."""
        if text is None:
            text = QGuiApplication.clipboard().text()
        try:
            puzzles = parse_collection(text, source="clipboard", allow_clashes=True)
        except PuzzleError as e:
            self.show_error(str(e))
            return
        p = puzzles[0]
        self.puzzleChosen.emit(p if p.name else p.replace(name="pasted"))

    def show_status(self, text: str | None) -> None:
        """A grey line under the buttons ("Checking kennett_hard_007..."); None or "" hides it."""
        self.status_label.setText(text or "")
        self.status_label.setVisible(bool(text))

    def show_error(self, text: str | None) -> None:
        self.error_label.setText(text or "")
        self.error_label.setVisible(bool(text))
