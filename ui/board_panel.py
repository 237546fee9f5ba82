"""The board and its toggles: the run's grid with the overlays a solver's declared layers ask for.

For each frame, every snapshot layer whose declared role has a registered
overlay (:mod:`sudoku_lab_ui.overlays`) is drawn, when that overlay's toggle
is on; a toggle is enabled only when the current solver declares a layer of
its role. The fixed toggles: the best grid instead of the current one, AC3
candidates as pencil marks (computed off the GUI thread), the difference to
the puzzle's solution (only for puzzles with a unique one) and conflicts.

**Techniques** (View > Techniques): every free cell coloured by the technique
its placement needed when the puzzle is solved by human techniques
(:func:`sudoku_lab.exact.human.rate`, computed off the GUI thread), with a
legend under the board; the colours are
:data:`sudoku_lab.analysis.difficulty.TECHNIQUE_COLOURS`.

After a **Step phase** (a frame whose ``Progress.phase`` is a
:class:`~sudoku_lab.solvers.PhaseStep`) the cells the phase changed (its
``changed["cells"]``) are outlined in blue and a line under the board says
"<iteration> i, phase k/n (name): what it did" (:func:`describe_phase`); both
clear with the next frame of whole iterations. After a **Step** of whole
iterations the line says what they did (:func:`describe_steps`: the cost, the
solver's own counters, its events), until the next frame of another iteration.

The numbering, everywhere in the window: iteration *i* is the *i*-th one, counted
from 1, and a frame between iterations is "after iteration i" (``Snapshot.iteration``
of them are done). The phases of the iteration under way belong to the next one:
after iteration 16, Step phase shows "iteration 17, phase 1/4", and the status bar
says the same (:func:`describe_position`), not "16".
"""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QCheckBox, QLabel, QSizePolicy, QVBoxLayout, QWidget

from sudoku_lab.exact.ac3 import ac3

from .background import Jobs
from .overlays import OverlayCanvas, overlays
from .widgets.board import BoardView
from .widgets.flow import FlowLayout

__all__ = ["BoardPanel", "describe_phase", "describe_position", "describe_steps", "phase_cells", "technique_legend"]


def technique_legend(rating) -> str:
    """Rich text for the techniques overlay: the grade, then a colour square per technique used, with its cells."""
    from sudoku_lab.analysis.difficulty import TECHNIQUE_COLOURS
    from sudoku_lab.exact.human import TECHNIQUES

    tech = rating.cell_technique
    parts = []
    for t in sorted({int(x) for x in tech.tolist() if x >= 0}):
        k = int(np.sum(tech == t))
        parts.append(
            f'<span style="background:{TECHNIQUE_COLOURS[t]};">&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;'
            f"{TECHNIQUES[t].name} ({k})"
        )
    head = f"<b>Techniques</b>: {rating.grade} (HoDoKu score {rating.score}) &nbsp; "
    return head + " &nbsp; ".join(parts)


def describe_phase(cls, step) -> str:
    """One line for a :class:`~sudoku_lab.solvers.PhaseStep` of solver class ``cls``:
    "iteration 12, phase 2/4 (select): kept the 10 best of 100 samples..." (in the solver's word for an iteration).
    A phase declared ``repeats=True`` (ACS's "place") keeps its number each time it runs ("phase 2/3 (place)").
    """
    n = len(cls.phases) if cls is not None else 0
    word = cls.iteration_name if cls is not None else "iteration"
    return f"{word} {step.iteration:,}, phase {step.index + 1}/{n} ({step.name}): {step.caption}"


def describe_position(cls, snapshot, phase=None) -> str:
    """Where a run is, in the solver's word: "EDA step 16" between iterations (16 done), "EDA step 17, phase 2/4"
    in the middle of the 17th (``phase``: the :class:`~sudoku_lab.solvers.PhaseStep` of the frame, if any)."""
    word = cls.iteration_name if cls is not None else "iteration"
    if phase is not None and not phase.ended:
        n = len(cls.phases) if cls is not None else 0
        return f"{word} {phase.iteration:,}, phase {phase.index + 1}/{n}"
    return f"{word} {snapshot.iteration:,}"


def _event_words(e) -> str:
    detail = f" ({e.new})" if e.new not in (None, "") else ""
    if e.kind == "param":
        return f"{e.name} {e.old!r} -> {e.new!r}"
    if e.kind == "run_end":
        return f"the run ended, {e.name}{detail}"
    if e.kind == "restart":
        return f"{e.name} restart{detail}"
    return f"{e.name}{detail}" if e.kind in ("info", e.name) else f"{e.kind.replace('_', ' ')} {e.name}{detail}"


def describe_steps(cls, before, after) -> str:
    """One line for a Step of whole iterations, from the snapshot shown before it to the one after it.

    "iteration 17 (Step 1): cost (open cells ...) 12 -> 10, best 8; moves +1, wipeouts +3; events: aspiration
    r3c4=5": the solver's word for an iteration, the cost in its objective's words, the changes of the numbers
    it declares (:meth:`~sudoku_lab.solvers.Solver.summarize`) and the events the iterations logged.
    """
    word = cls.iteration_name if cls is not None else "iteration"
    a, b = int(before.iteration), int(after.iteration)
    n = b - a
    head = f"{word} {b:,}" if n == 1 else f"{word}s {a + 1:,} to {b:,}" if n > 1 else f"{word} {b:,}, nothing done"
    head += f" (Step {n:,})" if n > 0 else ""
    what = cls.objective.cost if cls is not None else "cost"
    parts = [f"cost ({what}) {before.cost} -> {after.cost}, best {after.best_cost}"]
    if cls is not None:
        try:
            was, now = cls.summarize(before), cls.summarize(after)
        except Exception:  # a solver's summary of a run's start may not exist: the line does without it
            was, now = {}, {}

        def count(v) -> bool:
            return isinstance(v, (int, np.integer)) and not isinstance(v, bool)

        # Counts present on both sides only (a summary may say None before its first run: hill climbing's init_f1).
        moved = [
            f"{k.replace('_', ' ')} {int(v) - int(was.get(k, 0)):+,}"
            for k, v in now.items()
            if count(v) and count(was.get(k, 0)) and int(v) != int(was.get(k, 0))
        ]
        if moved:
            parts.append(", ".join(moved))
    events = after.events[len(before.events) :] if len(after.events) >= len(before.events) else after.events
    if events:
        words = [_event_words(e) for e in events[:3]]
        more = f" and {len(events) - 3} more" if len(events) > 3 else ""
        parts.append("events: " + "; ".join(words) + more)
    if after.solved:
        parts.append("solved")
    elif after.status == "failed":
        parts.append("the run ended (failed)")
    return f"{head}: " + "; ".join(parts)


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
        self.technique_legend = QLabel()
        self.technique_legend.setObjectName("technique_legend")
        self.technique_legend.setWordWrap(True)
        self.technique_legend.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)
        self.technique_legend.hide()
        lay.addWidget(self.technique_legend)
        row = FlowLayout()  # the toggles wrap under a narrow board instead of widening the window
        self.show_best = QCheckBox("Best grid")
        self.show_best.setToolTip("Show the best grid seen so far instead of the current one")
        self.show_pencil = QCheckBox("Candidates")
        self.show_pencil.setToolTip("Pencil marks: the candidates AC3 leaves in the puzzle")
        self.show_diff = QCheckBox("Vs solution")
        self.show_diff.setToolTip(DIFF_TIP)
        self.show_conflicts = QCheckBox("Conflicts")
        self.show_conflicts.setToolTip(
            "Digits that repeat in a row, column or box: vermillion and underlined (the cells a phase "
            "changed are outlined in blue)"
        )
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
        self._step_caption: tuple | None = None  # (solver, iteration, text) of the last Step of whole iterations
        #: Show the phase's line under the board (presentation mode has its own caption for it).
        self.phase_line = True
        self._solution = None
        self._several = False
        self._checking = False
        self._pencil: tuple | None = None  # (puzzle, AC3 domains)
        self._pending_pencil = None  # the puzzle whose AC3 runs in the background
        self._jobs = Jobs(self)
        self._techniques_on = False
        self._rating: tuple | None = None  # (puzzle, Rating or the error's text)

    # ------------------------------------------------------------- techniques
    def set_techniques(self, on: bool) -> None:
        """Show or hide the techniques overlay (each free cell coloured by the technique its placement needed)."""
        self._techniques_on = bool(on)
        self._apply_techniques()

    def techniques_shown(self) -> bool:
        """Whether the techniques overlay is on."""
        return self._techniques_on

    def rating(self):
        """The :class:`~sudoku_lab.exact.human.Rating` of the board's puzzle, once computed (None before)."""
        puzzle = self.board.puzzle()
        if self._rating is None or puzzle is None or self._rating[0] != puzzle:
            return None
        return self._rating[1] if not isinstance(self._rating[1], str) else None

    def _apply_techniques(self) -> None:
        from sudoku_lab.analysis.difficulty import TECHNIQUE_COLOURS

        board = self.board
        puzzle = board.puzzle()
        if not self._techniques_on or puzzle is None or board.is_editable():
            board.set_cell_colors(None)
            self.technique_legend.hide()
            return
        if self._rating is None or self._rating[0] != puzzle:
            board.set_cell_colors(None)
            self.technique_legend.setText("Techniques: solving by human techniques...")
            self.technique_legend.show()
            if not self._jobs.busy("techniques"):
                self._jobs.submit(
                    "techniques",
                    lambda: _rate(puzzle),
                    lambda r: self._techniques_ready(puzzle, r),
                    lambda e: self._techniques_ready(puzzle, str(e)),
                )
            return
        value = self._rating[1]
        if isinstance(value, str):
            board.set_cell_colors(None)
            self.technique_legend.setText(f"Techniques: {value}")
        else:
            board.set_cell_colors(
                {c: TECHNIQUE_COLOURS[t] for c, t in enumerate(value.cell_technique.tolist()) if t >= 0}
            )
            self.technique_legend.setText(technique_legend(value))
        self.technique_legend.show()

    def _techniques_ready(self, puzzle, value) -> None:
        self._rating = (puzzle, value)
        self._apply_techniques()

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
        if self._snapshot is not None and self._snapshot.solver != cls.name:
            # The previous solver's grid and layers go at once: until the new solver's first frame (its kernels
            # may compile for a minute on a cold cache) the board shows the puzzle's givens, not another's run.
            self._snapshot = self._phase = None
            self._step_caption = None
            self.phase_caption.hide()
            puzzle = self.board.puzzle()
            if puzzle is not None and not self.board.is_editable():
                self.board.set_puzzle(puzzle)
                self.board.set_solution(self._solution)
                self._apply_techniques()
        self.refresh()

    def set_puzzle(self, puzzle, solution, several: bool) -> None:
        """A newly loaded puzzle: its solution when unique (None with ``several``)."""
        self._snapshot = None
        self._solution = solution
        self._several = several
        self._pencil = None
        self._phase = None
        self._step_caption = None
        self.phase_caption.hide()
        self.board.set_puzzle(puzzle)
        self.board.set_highlight(())
        self.board.set_solution(solution)
        self._update_diff_toggle()
        self._apply_techniques()
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
        ours = self._cls is not None and self._cls.name == snapshot.solver
        step = self._step_caption
        if step is not None and (phase is not None or (step[0], step[1]) != (snapshot.solver, snapshot.iteration)):
            self._step_caption = step = None  # a frame of another moment: the Step's line is done
        if phase is not None and self.phase_line and ours:
            self._set_caption(describe_phase(self._cls, phase))
        elif step is not None and self.phase_line and ours:
            self._set_caption(step[2])
        else:
            self._set_caption(None)
        self.refresh()

    def show_step(self, before, prog) -> None:
        """A Step of whole iterations ended (``before``: the snapshot shown when it was asked for, ``prog``: its
        last frame): the line under the board says what those iterations did (:func:`describe_steps`)."""
        s = prog.snapshot
        if self._cls is None or self._cls.name != s.solver or before.solver != s.solver:
            return
        self._step_caption = (s.solver, s.iteration, describe_steps(self._cls, before, s))
        if self._snapshot is not s:
            self.show_snapshot(s, prog.phase)
        elif self.phase_line:
            self._set_caption(self._step_caption[2])

    def caption_text(self) -> str:
        """The line under the board (a phase's or a Step's), "" when none is shown."""
        return self.phase_caption.text() if not self.phase_caption.isHidden() else ""

    def _set_caption(self, text: str | None) -> None:
        if text:
            self.phase_caption.setText(text)
            self.phase_caption.setToolTip(text)
            self.phase_caption.show()
        else:
            self.phase_caption.clear()
            self.phase_caption.hide()

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
        if self._cls is not None and self._cls.name != s.solver:
            return  # another solver's frame (the controller drops them; a view never draws one under this title)
        best = self.show_best.isChecked()
        board.set_grid(s.best_grid if best else s.grid, s.fixed)
        board.set_highlight(phase_cells(self._phase), "changed", fill=False)  # outlined, never like a conflict
        board.set_overlay("conflicts", self.show_conflicts.isChecked())
        board.set_overlay("diff", self.show_diff.isChecked() and self.show_diff.isEnabled())
        canvas = self.draw_layers(s)
        if best:  # the state's candidates and struck-out marks describe the current grid, not the best one
            canvas.domains = canvas.struck = None
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


def _rate(puzzle):
    """The human-technique rating of ``puzzle`` (off the GUI thread)."""
    from sudoku_lab.exact.human import rate

    return rate(puzzle)
