"""The hill-climbing solver's part of the lab: a state panel (f, f1, f2, queue, restarts) and its screenshots.

Everything else hill climbing shows comes from its declared layers through the
generic machinery: the chosen swap (``cell_pairs`` overlay), the row and column
clash counts in the board's margins (``unit_counts`` overlay), f, f1, f2 on the
convergence plot, restarts and plateau escapes as run markers, and the runs
table (``runs`` layer).

Screenshots: ``python -m sudoku_lab_ui.screenshots docs --only hill-climb-short --only hill-climb``
under a display (12 moves on ``kennett_hard_007``; 4,000 on ``ai_escargot``, the whole run in view).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ..screenshots import Shot, register_shot
from ..views import ViewSpec, register_view

__all__ = ["HillClimbState"]

#: The layers the panel reads (declared by the hill_climb solver).
_KEYS = ("f", "f1", "f2", "queue", "stuck", "run", "plateau_jumps")


def _applies(cls) -> bool:
    names = {d.name for d in cls.layers}
    return set(_KEYS) <= names and bool(cls.layers_with_role("unit_counts"))


class HillClimbState(QWidget):
    """The current state's objective and the search's plateau and restart counters, in words."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        self.label = QLabel("no run yet")
        self.label.setObjectName("hill_climb_state")
        self.label.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        self.label.setTextFormat(Qt.RichText)
        self.label.setWordWrap(True)
        # Never a column one or two words wide (a splitter or dock sized by the label's hint made it so).
        self.label.setMinimumWidth(24 * self.label.fontMetrics().averageCharWidth())
        lay.addWidget(self.label)

    def on_puzzle(self, puzzle) -> None:
        self.label.setText("no run yet")

    def on_progress(self, prog) -> None:
        s = prog.snapshot
        L = s.layers
        if not all(k in L for k in _KEYS):
            return
        w1, w2 = s.params.get("w1", 1.0), s.params.get("w2", -1.0)
        full = 2 * s.puzzle.N * s.puzzle.N
        swap = L.get("swap")
        moved = (
            "plateau escape or restart"
            if swap is None or len(swap) == 0
            else "swap " + " / ".join(f"r{int(c) // s.puzzle.N + 1}c{int(c) % s.puzzle.N + 1}" for c in swap[0])
        )
        self.label.setText(
            f"<b>f = {L['f']:g}</b> = {w1:g} &times; f1 {L['f1']} (of {full}) {'+' if w2 >= 0 else '&minus;'} "
            f"{abs(w2):g} &times; f2 {L['f2']}<br>"
            f"last move: {moved}<br>"
            f"stuck states since the run's best: {L['stuck']} of {s.params.get('plateau', '?')}; "
            f"queue {L['queue']}<br>"
            f"random restarts: {L['run']}; plateau escapes: {L['plateau_jumps']}"
        )


register_view(
    ViewSpec("hill_climb_state", "Hill climbing", HillClimbState, applies=_applies, area=Qt.RightDockWidgetArea)
)


# ----------------------------------------------------------------- screenshots
# ``python -m sudoku_lab_ui.screenshots docs --only hill-climb-short --only hill-climb``
register_shot(Shot("screenshot-hill-climb-short.png", "hill_climb", "kennett_hard_007", 12, seed=2, whole=False))
register_shot(Shot("screenshot-hill-climb.png", "hill_climb", "ai_escargot", 4000, seed=1))
