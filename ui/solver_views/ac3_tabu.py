"""Tabu search's built-in view and board marks: the tabu list, the latest candidate list, aspiration moves.

Chosen by the ``tabu`` layer role (int (k, 4): ``cell, digit, age, reason``,
oldest first). The view shows the list as a table and, when the solver
declares a ``candidates`` records layer, the candidate list of the latest
iteration with the cost of each and the one taken; moves taken by aspiration
(a tabu move allowed because it beat every cost seen) are counted and listed
from the run's ``aspiration`` events, which the convergence plot marks too.
On the board, every tabu feature outlines its cell, strongest for the
newest and fading with age; the cell's tooltip names the feature.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QHeaderView, QLabel, QSplitter, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from sudoku_lab.model.geometry import cell_name, symbol
from sudoku_lab_ui.overlays import OverlaySpec, register_overlay
from sudoku_lab_ui.screenshots import Shot, register_shot
from sudoku_lab_ui.views import SIDE_DOCK_HINT, ViewSpec, _RoleView, layer_of, register_view
from sudoku_lab_ui.widgets import theme

__all__ = ["TabuView", "tabu_fade", "REASONS", "STATUS_COLOURS"]

#: What the ``reason`` column of a tabu row means.
REASONS = {0: "undone by a move", 1: "wiped out"}
#: Row colours of the candidate table by status (Okabe-Ito; None = the table's own).
STATUS_COLOURS = {
    "taken": "#009E73",
    "aspiration": "#E69F00",
    "tabu": "#D55E00",
    "wiped out": "#999999",
    "worse": "#0072B2",
    "not best": None,
}
#: Colour of tabu marks on the board (Okabe-Ito reddish purple).
TABU_COLOUR = (204, 121, 167)


def tabu_fade(age: int, tenure: int) -> int:
    """Opacity (0..255) of a tabu mark: 255 for a feature that just entered, fading to 70 at the tenure."""
    span = max(int(tenure), 1)
    return int(round(255 - 185 * min(max(int(age), 0), span) / span))


def _tenure(snapshot, rows) -> int:
    t = snapshot.params.get("tenure")
    return int(t) if t else max(len(rows), 1)


def _draw_tabu(canvas, name, value, snapshot) -> None:
    rows = np.asarray(value).reshape(-1, 4)
    N = snapshot.puzzle.N
    tenure = _tenure(snapshot, rows)
    for cell, digit, age, reason in rows.tolist():
        label = f"tabu {cell_name(cell, N)}={symbol(digit)} age {age}" + (" (wipe-out)" if reason == 1 else "")
        canvas.highlight(label, [cell], color=TABU_COLOUR + (tabu_fade(age, tenure),))


register_overlay(
    OverlaySpec(
        "tabu", _draw_tabu, "Tabu", "Outline the cells of tabu features, strongest for the newest and fading with age"
    )
)


def _set_row(table: QTableWidget, row: int, texts, colour=None, bold=False) -> None:
    """Write one row, reusing its items (a new item per cell per frame is what made the tables slow)."""
    brush = QBrush(QColor(colour)) if colour else QBrush()
    for col, text in enumerate(texts):
        item = table.item(row, col)
        if item is None:
            item = QTableWidgetItem()
            item.setFlags(item.flags() & ~Qt.ItemIsEditable)
            table.setItem(row, col, item)
        if item.text() != text:
            item.setText(text)
        item.setForeground(brush)
        if item.font().bold() != bold:
            f = QFont(item.font())
            f.setBold(bold)
            item.setFont(f)


class TabuView(_RoleView, QWidget):
    """The tabu list and the latest iteration's candidates, with the aspiration moves of the run.

    Attributes
    ----------
    tabu_table, candidate_table : QTableWidget
    readout : QLabel
        One line: iteration, cost, list length, aspiration count.
    aspirations : QLabel
        The latest aspiration moves.
    """

    TABU_HEADERS = ("#", "feature", "age", "why")
    CANDIDATE_HEADERS = ("#", "assigns", "unassigns", "cost", "status")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.readout = QLabel("no run yet")
        self.readout.setObjectName("tabu_readout")
        self.readout.setFont(theme.mono_font())
        self.readout.setWordWrap(True)
        self.tabu_table = self._table(self.TABU_HEADERS)
        self.tabu_table.setToolTip(
            "Tabu features, oldest first: the first one expires when the list is longer "
            "than the tenure. Age in iterations."
        )
        self.candidate_table = self._table(self.CANDIDATE_HEADERS)
        self.candidate_table.setToolTip(
            "The candidates of the latest iteration in the order they were built; "
            "green: taken, orange: taken by aspiration, red: tabu, grey: wiped out, "
            "blue: the best admissible one, worse than the current state"
        )
        self.aspirations = QLabel("aspiration moves: none yet")
        self.aspirations.setObjectName("tabu_aspirations")
        self.aspirations.setWordWrap(True)
        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(QLabel("Tabu list"))
        tl.addWidget(self.tabu_table)
        bottom = QWidget()
        bl = QVBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addWidget(QLabel("Candidates of the latest iteration"))
        bl.addWidget(self.candidate_table)
        bl.addWidget(self.aspirations)
        split = QSplitter(Qt.Vertical)
        split.addWidget(top)
        split.addWidget(bottom)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.readout)
        lay.addWidget(split, 1)
        self._shown_key = None

    @staticmethod
    def _table(headers) -> QTableWidget:
        t = QTableWidget(0, len(headers))
        t.setHorizontalHeaderLabels(list(headers))
        t.verticalHeader().hide()
        t.setEditTriggers(QTableWidget.NoEditTriggers)
        t.setSelectionMode(QTableWidget.NoSelection)
        # Columns are fitted to their contents when the table first fills (and on a new puzzle), not on every
        # frame: ResizeToContents measured every cell at each update (about 20 ms a frame).
        t.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
        t.horizontalHeader().setStretchLastSection(True)
        t.fitted = False
        return t

    @staticmethod
    def _fit(t: QTableWidget) -> None:
        if not t.fitted and t.rowCount():
            t.resizeColumnsToContents()
            h = t.horizontalHeader()
            h.setStretchLastSection(False)  # fitting took the last column back to its contents: stretch it again
            h.setStretchLastSection(True)
            t.fitted = True

    def sizeHint(self):
        return SIDE_DOCK_HINT

    # ------------------------------------------------------------ lab hooks
    def on_puzzle(self, puzzle) -> None:
        for t in (self.tabu_table, self.candidate_table):
            t.setRowCount(0)
            t.fitted = False
        self.readout.setText("no run yet")
        self.aspirations.setText("aspiration moves: none yet")
        self._shown_key = None

    def on_progress(self, prog) -> None:
        s = prog.snapshot
        cls = self._cls(s)
        key = (s.solver, s.iteration, s.phase, id(s.puzzle))  # a phase step changes the state within an iteration
        if key == self._shown_key:
            return
        self._shown_key = key
        N = s.puzzle.N
        name = layer_of(cls, "tabu")
        if name is None or s.layers.get(name) is None:  # a snapshot of another solver, in the moment of a switch
            return
        rows = np.asarray(s.layers[name], dtype=np.int64).reshape(-1, 4)
        self.show_tabu(rows, N)
        cands = s.layers.get("candidates") if cls.layer("candidates") is not None else None
        self.show_candidates(cands or (), N)
        asp = [e for e in s.events if e.kind == "aspiration"]
        tenure = s.params.get("tenure")
        cost = s.cost if s.cost is not None else "-"
        self.readout.setText(
            f"{cls.iteration_name} {s.iteration}: cost {cost} (best {s.best_cost}), "
            f"tabu list {len(rows)}"
            + (f" / {tenure}" if tenure is not None else "")
            + f", {len(asp)} aspiration move{'s' * (len(asp) != 1)}"
        )
        if asp:
            last = ", ".join(f"{cls.iteration_name} {e.iteration}: {e.new}" for e in asp[-4:][::-1])
            self.aspirations.setText(f"aspiration moves ({len(asp)}), latest first: {last}")
        else:
            self.aspirations.setText("aspiration moves: none yet")

    # ------------------------------------------------------------------ API
    def show_tabu(self, rows: np.ndarray, N: int) -> None:
        """Fill the tabu table from int (k, 4) rows ``cell, digit, age, reason`` (oldest first)."""
        t = self.tabu_table
        t.setUpdatesEnabled(False)
        t.setRowCount(len(rows))
        for i, (cell, digit, age, reason) in enumerate(rows.tolist()):
            _set_row(
                t,
                i,
                (str(i + 1), f"{cell_name(cell, N)} = {symbol(digit)}", str(age), REASONS.get(reason, str(reason))),
                theme.VERMILLION if reason == 1 else None,
            )
        self._fit(t)
        t.setUpdatesEnabled(True)

    def show_candidates(self, records, N: int) -> None:
        """Fill the candidate table from the ``candidates`` records of the latest iteration."""
        t = self.candidate_table
        t.setUpdatesEnabled(False)
        t.setRowCount(len(records))
        for i, rec in enumerate(records):
            status = str(rec.get("status", ""))
            colour = STATUS_COLOURS.get(status)
            bold = status in ("taken", "aspiration")
            dropped = ", ".join(f"{cell_name(c, N)}={symbol(d)}" for c, d in (rec.get("dropped") or ())) or "-"
            cost = rec.get("cost")
            texts = (
                str(rec.get("k", i + 1)),
                f"{cell_name(int(rec['cell']), N)} = {symbol(int(rec['digit']))}",
                dropped,
                "-" if cost is None else str(cost),
                status,
            )
            _set_row(t, i, texts, colour, bold)
        self._fit(t)
        t.setUpdatesEnabled(True)

    def rows_text(self, table: str = "candidates") -> list[list[str]]:
        """The cells of a table as text (``"candidates"`` or ``"tabu"``), for tests."""
        t = self.candidate_table if table == "candidates" else self.tabu_table
        return [
            [t.item(r, c).text() if t.item(r, c) else "" for c in range(t.columnCount())] for r in range(t.rowCount())
        ]


register_view(
    ViewSpec("tabu", "Tabu list", TabuView, requires_role="tabu", area=Qt.RightDockWidgetArea, tab_with="ac3"),
    replace=True,
)


# ``python -m sudoku_lab_ui.screenshots docs --only ac3-tabu-short --only ac3-tabu`` (under a display)
register_shot(Shot("screenshot-ac3-tabu-short.png", "ac3_tabu", "mk_hard_a", 12, seed=1, front=("ac3",), whole=False))
register_shot(
    Shot("screenshot-ac3-tabu.png", "ac3_tabu", "mk_hard_b", 3000, seed=2, front=("tabu",), params={"iterations": 0})
)
