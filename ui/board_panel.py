"""The board and its toggles: the run's grid with the overlays a solver's declared layers ask for.

For each frame, every snapshot layer whose declared role has a registered
overlay (:mod:`sudoku_lab_ui.overlays`) is drawn, when that overlay's toggle
is on; a toggle is enabled only when the current solver declares a layer of
its role. The fixed toggles: the best grid instead of the current one, AC3
candidates as pencil marks (computed off the GUI thread), the difference to
the puzzle's solution (only for puzzles with a unique one) and conflicts.

After a **Step phase** (a frame whose ``Progress.phase`` is a
:class:`~sudoku_lab.solvers.PhaseStep`) the cells the phase changed (its
``changed["cells"]``) are outlined and a line under the board says
"<iteration> i, phase k/n (name): what it did" (:func:`describe_phase`); both
clear with the next frame of whole iterations.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QCheckBox, QLabel, QSizePolicy, QVBoxLayout, QWidget

from sudoku_lab.exact.ac3 import ac3

from .background import Jobs
from .overlays import OverlayCanvas, overlays
from .widgets.board import BoardView
from .widgets.flow import FlowLayout

__all__ = ["BoardPanel", "describe_phase", "phase_cells"]


def describe_phase(cls, step) -> str:
    """One line for a :class:`~sudoku_lab.solvers.PhaseStep` of solver class ``cls``:
    "iteration 12, phase 2/4 (select): kept the 10 best of 100 samples..." (in the solver's word for an iteration).
    A phase declared ``repeats=True`` (ACS's "place") keeps its number each time it runs ("phase 2/3 (place)").
    """
    n = len(cls.phases) if cls is not None else 0
    word = cls.iteration_name if cls is not None else "iteration"
    return f"{word} {step.iteration:,}, phase {step.index + 1}/{n} ({step.name}): {step.caption}"


def phase_cells(step) -> list[int]:
    """The board cells a phase step changed (its ``changed["cells"]``), as flat indices; none for None."""
    cells = step.changed.get("cells") if step is not None else None
    return [] if cells is None else [int(c) for c in np.flatnonzero(cells)]


DIFF_TIP = "Mark the digits that differ from the puzzle's solution"
SEVERAL_TIP = "this puzzle has several solutions"
CHECKING_TIP = "checking the puzzle..."


class BoardPanel(QWidget):
    """The board, its view toggles and one toggle per registered overlay role.

    Attributes
    ----------
    board : BoardView
    show_best, show_pencil, show_diff, show_conflicts : QCheckBox
    overlay_toggles : dict of str to QCheckBox
        By role; ``show_shading`` is the ``probability`` one.
    """

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        self.board = BoardView()
        lay.addWidget(self.board, 1)
        self.phase_caption = QLabel()
        self.phase_caption.setObjectName("phase_caption")
        self.phase_caption.setWordWrap(True)
        self.phase_caption.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)
        self.phase_caption.setStyleSheet("color: #7a2e00; font-weight: bold;")
        self.phase_caption.hide()
        lay.addWidget(self.phase_caption)
        row = FlowLayout()  # the toggles wrap under a narrow board instead of widening the window
        self.show_best = QCheckBox("Best grid")
        self.show_best.setToolTip("Show the best grid seen so far instead of the current one")
        self.show_pencil = QCheckBox("Candidates")
        self.show_pencil.setToolTip("Pencil marks: the candidates AC3 leaves in the puzzle")
        self.show_diff = QCheckBox("Vs solution")
        self.show_diff.setToolTip(DIFF_TIP)
        self.show_conflicts = QCheckBox("Conflicts")
        self.show_conflicts.setToolTip("Digits that repeat in a row, column or box, in orange")
        self.show_conflicts.setChecked(True)
        for cb in (self.show_best, self.show_pencil, self.show_diff, self.show_conflicts):
            row.addWidget(cb)
            cb.toggled.connect(self.refresh)
        sep = QLabel("|  Layers:")
        sep.setStyleSheet("color: #555;")
        row.addWidget(sep)
        self.overlay_toggles: dict[str, QCheckBox] = {}
        for role, spec in overlays().items():
            cb = QCheckBox(spec.label)
            cb.setObjectName(f"overlay_{role}")
            cb.setChecked(spec.default_on)
            cb.setToolTip(spec.tooltip)
            cb.toggled.connect(self.refresh)
            row.addWidget(cb)
            self.overlay_toggles[role] = cb
        lay.addLayout(row)
        self._cls = None
        self._snapshot = None
        self._phase = None  # the PhaseStep of the frame shown, if it was a phase step
        #: Show the phase's line under the board (presentation mode has its own caption for it).
        self.phase_line = True
        self._solution = None
        self._several = False
        self._checking = False
        self._pencil: tuple | None = None  # (puzzle, AC3 domains)
        self._pending_pencil = None  # the puzzle whose AC3 runs in the background
        self._jobs = Jobs(self)

    @property
    def show_shading(self) -> QCheckBox | None:
        """The probability overlay's toggle (max-p shading)."""
        return self.overlay_toggles.get("probability")

    # ------------------------------------------------------------------ state
    def set_solver(self, cls) -> None:
        """Enable the overlay toggles whose role ``cls`` declares a layer for.

        The others are disabled and, except the Shading one (a fixture of the
        lab), hidden: a toggle that can never do anything for this solver
        would only crowd the row.
        """
        self._cls = cls
        for role, cb in self.overlay_toggles.items():
            layers = cls.layers_with_role(role)
            cb.setEnabled(bool(layers))
            cb.setVisible(bool(layers) or role == "probability")
            spec = overlays()[role]
            if layers:
                cb.setToolTip(spec.tooltip + "\n" + "\n".join(f"{d.name}: {d.help}" for d in layers))
            else:
                cb.setToolTip(f"{spec.tooltip}\n({cls.title} declares no layer with role {role!r})")
        self.refresh()  # the previous solver's layers go at once

    def set_puzzle(self, puzzle, solution, several: bool) -> None:
        """A newly loaded puzzle: its solution when unique (None with ``several``)."""
        self._snapshot = None
        self._solution = solution
        self._several = several
        self._pencil = None
        self._phase = None
        self.phase_caption.hide()
        self.board.set_puzzle(puzzle)
        self.board.set_highlight(())
        self.board.set_solution(solution)
        self._update_diff_toggle()
        self.refresh()

    def set_checking(self, checking: bool) -> None:
        """A puzzle check runs (the solution of the next puzzle is not known yet)."""
        self._checking = checking
        self._update_diff_toggle()

    def _update_diff_toggle(self) -> None:
        if self._several:
            self.show_diff.setEnabled(False)
            self.show_diff.setToolTip(SEVERAL_TIP)
        elif self._solution is None:
            self.show_diff.setEnabled(False)
            self.show_diff.setToolTip(CHECKING_TIP if self._checking else DIFF_TIP)
        else:
            self.show_diff.setEnabled(True)
            self.show_diff.setToolTip(DIFF_TIP)

    # ---------------------------------------------------------------- drawing
    def show_snapshot(self, snapshot, phase=None) -> None:
        """Draw a run's snapshot (the window calls it every frame), with the PhaseStep that led to it, if any."""
        self._snapshot = snapshot
        self._phase = phase
        if phase is not None and self.phase_line and self._cls is not None and self._cls.name == snapshot.solver:
            self.phase_caption.setText(describe_phase(self._cls, phase))
            self.phase_caption.setToolTip(self.phase_caption.text())
            self.phase_caption.show()
        else:
            self.phase_caption.clear()
            self.phase_caption.hide()
        self.refresh()

    @property
    def phase(self):
        """The PhaseStep of the frame shown (None after whole iterations)."""
        return self._phase

    def refresh(self, *_) -> None:
        """Redraw the board from the latest snapshot and the toggles."""
        s = self._snapshot
        board = self.board
        if s is None or board.is_editable() or board.puzzle() is None or s.puzzle != board.puzzle():
            return
        board.set_grid(s.best_grid if self.show_best.isChecked() else s.grid, s.fixed)
        board.set_highlight(phase_cells(self._phase))
        board.set_overlay("conflicts", self.show_conflicts.isChecked())
        board.set_overlay("diff", self.show_diff.isChecked() and self.show_diff.isEnabled())
        canvas = self.draw_layers(s)
        board.set_shading(canvas.shading)
        board.set_overlay("shading", canvas.shading is not None)
        board.set_removed(canvas.struck)
        board.set_overlay("removed", canvas.struck is not None)
        board.set_cell_sets(canvas.cell_sets)
        board.set_links(canvas.links)
        board.set_margins(canvas.margins)
        domains = canvas.domains
        if domains is None and self.show_pencil.isChecked():
            domains = self._ac3_marks(s.puzzle)
        board.set_domains(domains)
        board.set_overlay("pencil", domains is not None)

    def draw_layers(self, snapshot) -> OverlayCanvas:
        """Every layer whose role has an overlay with its toggle on, drawn into a new canvas.

        A snapshot of another solver than the one set (a frame still in flight
        after a switch) draws no layers.
        """
        canvas = OverlayCanvas(snapshot.puzzle.C)
        if self._cls is None or self._cls.name != snapshot.solver:
            return canvas
        specs = overlays()
        for decl in self._cls.layers:
            spec = specs.get(decl.role) if decl.role else None
            toggle = self.overlay_toggles.get(decl.role)
            if spec is None or toggle is None or not toggle.isChecked():
                continue
            value = snapshot.layers.get(decl.name)
            if value is not None:
                spec.draw(canvas, decl.name, value, snapshot)
        return canvas

    def _ac3_marks(self, puzzle):
        """AC3's domains of ``puzzle``, computed off the GUI thread; None until they arrive."""
        if self._pencil is not None and self._pencil[0] is puzzle:
            return self._pencil[1]
        if not self._jobs.busy("pencil") or self._pending_pencil is not puzzle:
            self._pending_pencil = puzzle
            self._jobs.submit("pencil", lambda: ac3(puzzle).domains, lambda d: self._pencil_ready(puzzle, d))
        return None

    def _pencil_ready(self, puzzle, domains) -> None:
        self._pencil = (puzzle, domains)
        self.refresh()
