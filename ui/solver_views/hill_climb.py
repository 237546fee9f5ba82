"""The hill-climbing solver's part of the lab: a state panel (f, f1, f2, queue, restarts) and its screenshots.

Everything else hill climbing shows comes from its declared layers through the
generic machinery: the chosen swap (``cell_pairs`` overlay), the row and column
clash counts in the board's margins (``unit_counts`` overlay), f, f1, f2 on the
convergence plot, restarts and plateau escapes as run markers, and the runs
table (``runs`` layer).

Screenshots (the window is 1600 x 1000)::

    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1600x1000x24" python -c \
        "from sudoku_lab_ui.solver_views.hill_climb import main; main(['docs'])"

(not ``python -m``: this module registers a view when imported, and ``-m`` would import it twice).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ..views import ViewSpec, register_view

__all__ = ["HillClimbState", "short_run", "long_run"]

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
        moved = "plateau escape or restart" if swap is None or len(swap) == 0 else "swap " + " / ".join(
            f"r{int(c) // s.puzzle.N + 1}c{int(c) % s.puzzle.N + 1}" for c in swap[0])
        self.label.setText(
            f"<b>f = {L['f']:g}</b> = {w1:g} &times; f1 {L['f1']} (of {full}) {'+' if w2 >= 0 else '&minus;'} "
            f"{abs(w2):g} &times; f2 {L['f2']}<br>"
            f"last move: {moved}<br>"
            f"stuck states since the run's best: {L['stuck']} of {s.params.get('plateau', '?')}; "
            f"queue {L['queue']}<br>"
            f"random restarts: {L['run']}; plateau escapes: {L['plateau_jumps']}")


register_view(ViewSpec("hill_climb_state", "Hill climbing", HillClimbState, applies=_applies,
                       area=Qt.RightDockWidgetArea))


# ----------------------------------------------------------------- screenshots
def _pump(app, cond, timeout: float, what: str) -> None:
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > timeout:
            raise TimeoutError(f"the window did not get to {what} within {timeout:g} s")
        app.processEvents()
        time.sleep(0.01)


def _ready(win) -> bool:
    return win.controller.state == "idle" and win.controller.latest is not None


def _window(app, puzzle: str, seed: int):
    from sudoku_lab import library

    from ..app import create_window

    win = create_window(library.puzzle(puzzle), "hill_climb")
    win.resize(1600, 1000)
    win.show()
    _pump(app, lambda: _ready(win), 300, "ready")
    win.seed_box.setValue(seed)
    _pump(app, lambda: _ready(win), 60, "reset")
    return win


def short_run(app, out: Path, moves: int = 12, name: str = "screenshot-hill-climb-short.png") -> Path:
    """Hill climbing on ``kennett_hard_007`` (seed 2) after ``moves`` moves (Step N): the swap and the margins."""
    win = _window(app, "kennett_hard_007", 2)
    win.step_n.setValue(moves)
    win.act_step_n.trigger()
    _pump(app, lambda: win.controller.latest.snapshot.iteration >= moves or win.controller.latest.snapshot.done,
          120, f"{moves} moves")
    _pump(app, lambda: win.controller.state != "running", 60, "the end of the moves")
    t0 = time.monotonic()
    _pump(app, lambda: time.monotonic() - t0 > 1.0, 5, "settle")
    path = out / name
    win.grab().save(str(path))
    win.close()
    return path


def long_run(app, out: Path, moves: int = 4000, name: str = "screenshot-hill-climb.png") -> Path:
    """Hill climbing on ``ai_escargot`` (seed 1) for ``moves`` moves (Run, for N iterations), the whole run in view."""
    win = _window(app, "ai_escargot", 1)
    win.until_box.setCurrentIndex(1)  # for N iterations
    win.until_value.setValue(moves)
    win.act_run.trigger()
    _pump(app, lambda: win.controller.state == "running", 60, "running")
    _pump(app, lambda: win.controller.state != "running", 600, f"{moves} moves")
    win.views["convergence"].set_range_mode(None)
    t0 = time.monotonic()
    _pump(app, lambda: time.monotonic() - t0 > 1.5, 5, "settle")
    path = out / name
    win.grab().save(str(path))
    win.close()
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="sudoku_lab_ui.solver_views.hill_climb.main",
                                 description="Screenshots of hill climbing in the lab (short and long run).")
    ap.add_argument("out", help="folder for the PNG files (docs/ for the README's)")
    ap.add_argument("--moves", type=int, default=4000, help="moves of the long run (default 4000)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    for path in (short_run(app, out), long_run(app, out, args.moves)):
        print(f"wrote {path}")
    return 0

