"""The lab's main window: board in the middle, puzzle and algorithm on the sides, views in docks."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from sudoku_lab import __version__, loop
from sudoku_lab.ac3 import ac3
from sudoku_lab.errors import SudokuLabError
from sudoku_lab.puzzle import Puzzle
from sudoku_lab.solvers import registry

from .controller import SPEEDS, Controller
from .params_panel import ParamsPanel
from .puzzle_panel import PuzzlePanel
from .views import VIEWS, max_probability
from .widgets.board import BoardView
from .worker import WorkerState

__all__ = ["MainWindow"]

UNTIL = ("until solved", "for N iterations", "for T seconds")


class MainWindow(QMainWindow):
    """The Sudoku Lab window (see README: "The lab window")."""

    def __init__(self, controller: Controller | None = None, settings: QSettings | None = None):
        super().__init__()
        self.setWindowTitle("Sudoku Lab")
        self.controller = controller or Controller(self)
        self.settings = settings
        self._edit_puzzle: Puzzle | None = None
        self._rejected_cells: tuple = ()
        self._view_drawn: dict[str, float] = {}
        self._view_stale: dict[str, bool] = {}
        self._pencil_cache: tuple | None = None
        self._last_progress = None
        self._build_board()
        self._build_docks()
        self._build_toolbar()
        self._build_menus()
        self._build_status_bar()
        self._connect()
        self._on_solver_changed(self.controller.solver_name)
        self.resize(1600, 1000)

    def _size_docks(self) -> None:
        side = [self.puzzle_dock, self.algo_dock]
        self.resizeDocks(side, [330, 330], Qt.Horizontal)
        self.resizeDocks(side, [380, 560], Qt.Vertical)
        bottom = [d for k, d in self.view_docks.items() if k in ("convergence",)]
        if bottom:
            self.resizeDocks(bottom, [270], Qt.Vertical)

    # ----------------------------------------------------------------- build
    def _build_board(self) -> None:
        central = QWidget()
        lay = QVBoxLayout(central)
        lay.setContentsMargins(6, 6, 6, 6)
        self.board = BoardView()
        lay.addWidget(self.board, 1)
        row = QHBoxLayout()
        self.show_best = QCheckBox("Best grid")
        self.show_best.setToolTip("Show the best grid seen so far instead of the current one")
        self.show_pencil = QCheckBox("Candidates")
        self.show_pencil.setToolTip("Pencil marks: the candidates left after AC3 (or the solver's own domains)")
        self.show_shading = QCheckBox("Shading")
        self.show_shading.setToolTip("Shade each cell by max_k p[cell, k] (solvers with a probability model)")
        self.show_diff = QCheckBox("Vs solution")
        self.show_diff.setToolTip("Mark the digits that differ from the puzzle's solution")
        self.show_conflicts = QCheckBox("Conflicts")
        self.show_conflicts.setToolTip("Digits that repeat in a row, column or box, in orange")
        self.show_conflicts.setChecked(True)
        for cb in (self.show_best, self.show_pencil, self.show_shading, self.show_diff, self.show_conflicts):
            row.addWidget(cb)
            cb.toggled.connect(self._refresh_board)
        row.addStretch(1)
        lay.addLayout(row)
        self.setCentralWidget(central)

    def _dock(self, title: str, widget: QWidget, area, key: str) -> QDockWidget:
        d = QDockWidget(title, self)
        d.setObjectName(f"dock_{key}")
        d.setWidget(widget)
        d.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetFloatable | QDockWidget.DockWidgetClosable)
        self.addDockWidget(area, d)
        return d

    def _build_docks(self) -> None:
        self.puzzle_panel = PuzzlePanel()
        self.puzzle_dock = self._dock("Puzzle", self.puzzle_panel, Qt.LeftDockWidgetArea, "puzzle")
        algo = QWidget()
        lay = QVBoxLayout(algo)
        lay.setContentsMargins(4, 4, 4, 4)
        self.solver_box = QComboBox()
        for name, cls in registry().items():
            self.solver_box.addItem(cls.title, name)
            self.solver_box.setItemData(self.solver_box.count() - 1, cls.description, Qt.ToolTipRole)
        lay.addWidget(self.solver_box)
        self.solver_info = QLabel()
        self.solver_info.setWordWrap(True)
        self.solver_info.setStyleSheet("color: #555;")
        lay.addWidget(self.solver_info)
        self.params_panel = ParamsPanel()
        lay.addWidget(self.params_panel, 1)
        self.algo_dock = self._dock("Algorithm", algo, Qt.LeftDockWidgetArea, "algorithm")
        self.view_docks: dict[str, QDockWidget] = {}
        self.views: dict[str, QWidget] = {}
        for spec in VIEWS:
            w = spec.factory(None)
            self.views[spec.key] = w
            self.view_docks[spec.key] = self._dock(spec.title, w, spec.area, spec.key)
            self.view_docks[spec.key].visibilityChanged.connect(lambda visible: visible and self._redraw_stale_views())
        if "probability" in self.view_docks and "ac3" in self.view_docks:
            self.tabifyDockWidget(self.view_docks["probability"], self.view_docks["ac3"])
            self.view_docks["probability"].raise_()
        if "convergence" in self.view_docks and "restarts" in self.view_docks:
            self.tabifyDockWidget(self.view_docks["convergence"], self.view_docks["restarts"])
            self.view_docks["convergence"].raise_()
        # The side columns run the full height; the curves sit under the board only.
        self.setCorner(Qt.BottomLeftCorner, Qt.LeftDockWidgetArea)
        self.setCorner(Qt.BottomRightCorner, Qt.RightDockWidgetArea)
        self.puzzle_panel.table.setMinimumHeight(160)

    def _action(self, text: str, shortcut: str | None, slot, tip: str = "") -> QAction:
        a = QAction(text, self)
        if shortcut:
            a.setShortcut(QKeySequence(shortcut))
            a.setShortcutContext(Qt.WindowShortcut)
        a.setToolTip(f"{tip or text} ({shortcut})" if shortcut else (tip or text))
        a.triggered.connect(slot)
        self.addAction(a)
        return a

    def _build_toolbar(self) -> None:
        c = self.controller
        tb = QToolBar("Run")
        tb.setObjectName("toolbar_run")
        tb.setToolButtonStyle(Qt.ToolButtonTextOnly)
        self.addToolBar(tb)
        self.act_run = self._action("Run", "Space", self._toggle_run, "Run or pause")
        self.act_step = self._action("Step 1", "Right", lambda: c.step(1), "One iteration")
        self.act_step_n = self._action("Step N", "Shift+Right", lambda: c.step(self.step_n.value()),
                                       "N iterations (N in the box)")
        self.act_stop = self._action("Stop", "Esc", c.stop, "End this run (Reset to start again)")
        self.act_reset = self._action("Reset", "Ctrl+R", c.reset, "Start again from the puzzle with the seed")
        tb.addAction(self.act_run)
        tb.addAction(self.act_step)
        tb.addAction(self.act_step_n)
        self.step_n = QSpinBox()
        self.step_n.setRange(1, 10_000_000)
        self.step_n.setValue(10)
        self.step_n.setToolTip("N for Step N")
        tb.addWidget(self.step_n)
        tb.addAction(self.act_stop)
        tb.addAction(self.act_reset)
        tb.addSeparator()
        tb.addWidget(QLabel(" Run "))
        self.until_box = QComboBox()
        self.until_box.addItems(UNTIL)
        self.until_value = QSpinBox()
        self.until_value.setRange(1, 100_000_000)
        self.until_value.setValue(500)
        self.until_value.setEnabled(False)
        tb.addWidget(self.until_box)
        tb.addWidget(self.until_value)
        tb.addSeparator()
        tb.addWidget(QLabel(" Speed "))
        self.speed_box = QComboBox()
        for label, rate in SPEEDS:
            self.speed_box.addItem(label, rate)
        self.speed_box.setCurrentIndex(len(SPEEDS) - 1)
        tb.addWidget(self.speed_box)
        tb.addSeparator()
        tb.addWidget(QLabel(" Seed "))
        self.seed_box = QSpinBox()
        self.seed_box.setRange(0, 2**31 - 1)
        self.seed_box.setValue(c.seed)
        self.seed_box.setKeyboardTracking(False)
        tb.addWidget(self.seed_box)
        self.random_seed = QPushButton("Randomise")
        self.random_seed.setToolTip("A new random seed (then Reset)")
        tb.addWidget(self.random_seed)

    def _build_menus(self) -> None:
        m = self.menuBar()
        f = m.addMenu("&File")
        self.act_open = self._action("Open puzzle...", "Ctrl+O", lambda: self.puzzle_panel.open_file())
        self.act_paste = self._action("Paste puzzle", "Ctrl+Shift+V", lambda: self.puzzle_panel.paste())
        self.act_edit = self._action("Edit givens", "Ctrl+E", self.puzzle_panel.edit_button.toggle)
        self.act_export = self._action("Export figures...", "Ctrl+Shift+S", self.export_figures,
                                       "Probability model and convergence as PDF/SVG/PNG (matplotlib)")
        self.act_quit = self._action("Quit", "Ctrl+Q", self.close)
        for a in (self.act_open, self.act_paste, self.act_edit, self.act_export):
            f.addAction(a)
        f.addSeparator()
        f.addAction(self.act_quit)
        r = m.addMenu("&Run")
        for a in (self.act_run, self.act_step, self.act_step_n, self.act_stop, self.act_reset):
            r.addAction(a)
        v = m.addMenu("&View")
        for d in [self.puzzle_dock, self.algo_dock, *self.view_docks.values()]:
            v.addAction(d.toggleViewAction())
        h = m.addMenu("&Help")
        self.act_help = self._action("Keyboard shortcuts", "F1", self.show_shortcuts)
        h.addAction(self.act_help)
        h.addAction(self._action("About Sudoku Lab", None, self.show_about))

    def _build_status_bar(self) -> None:
        sb = self.statusBar()
        self.status_labels = {}
        for key, tip in (("state", "solver state"), ("iteration", "iterations"), ("evaluations", "evaluations"),
                         ("cost", "best cost"), ("rate", "iterations per second"), ("elapsed", "elapsed")):
            lab = QLabel()
            lab.setToolTip(tip)
            lab.setMinimumWidth(90)
            sb.addPermanentWidget(lab)
            self.status_labels[key] = lab
        self._set_status_fields(None)

    def _connect(self) -> None:
        c = self.controller
        c.progress.connect(self.on_progress)
        c.stateChanged.connect(self._on_state)
        c.puzzleChanged.connect(self._on_puzzle)
        c.puzzleRejected.connect(self._on_puzzle_rejected)
        c.solverChanged.connect(self._on_solver_changed)
        c.paramsChanged.connect(lambda vals: self.params_panel.set_values(vals))
        c.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        c.errorOccurred.connect(self._on_error)
        c.runEnded.connect(self._on_run_ended)
        self.puzzle_panel.puzzleChosen.connect(self._choose_puzzle)
        self.puzzle_panel.editModeChanged.connect(self._set_edit_mode)
        self.board.cellEdited.connect(self._on_cell_edited)
        self.solver_box.currentIndexChanged.connect(lambda i: c.set_solver(self.solver_box.itemData(i)))
        self.params_panel.edited.connect(self._on_param_edited)
        self.seed_box.valueChanged.connect(c.set_seed)
        self.random_seed.clicked.connect(self._randomise_seed)
        self.speed_box.currentIndexChanged.connect(lambda i: c.set_speed(self.speed_box.itemData(i)))
        self.until_box.currentIndexChanged.connect(self._on_until_changed)

    # ---------------------------------------------------------------- running
    def termination(self) -> loop.Termination:
        kind = self.until_box.currentIndex()
        if kind == 1:
            return loop.MaxIterations(self.until_value.value())
        if kind == 2:
            return loop.MaxSeconds(self.until_value.value())
        return loop.Solved()

    def _toggle_run(self) -> None:
        self.controller.toggle_run(self.termination())

    def _on_until_changed(self, i: int) -> None:
        self.until_value.setEnabled(i != 0)
        self.until_value.setSuffix("" if i != 2 else " s")

    def _randomise_seed(self) -> None:
        seed = self.controller.randomize_seed()
        self.seed_box.blockSignals(True)
        self.seed_box.setValue(seed)
        self.seed_box.blockSignals(False)

    def _on_param_edited(self, name: str, value) -> None:
        err = self.controller.set_param(name, value)
        self.params_panel.show_error(err)
        if err:  # put the accepted value back
            self.params_panel.set_values(self.controller.current_params())

    def _on_state(self, state: str) -> None:
        running = state == WorkerState.RUNNING
        self.act_run.setText("Pause" if running else "Run")
        done = state in (WorkerState.FINISHED, WorkerState.STOPPED)
        for a in (self.act_run, self.act_step, self.act_step_n):
            a.setEnabled(not done or (a is self.act_run and running))
        self.act_stop.setEnabled(state in (WorkerState.RUNNING, WorkerState.IDLE))
        self.params_panel.set_running(running or (self._last_progress is not None
                                                  and self._last_progress.snapshot.iteration > 0))
        self.status_labels["state"].setText({"compiling": "compiling...", "idle": "ready"}.get(state, state))

    def _on_run_ended(self, reason: str) -> None:
        if reason in ("solved", "failed", "max_iterations", "max_seconds", "stopped"):
            text = {"solved": "Solved!", "failed": "The solver gave up (its own stopping rule).",
                    "max_iterations": "Iteration budget reached.", "max_seconds": "Time budget reached.",
                    "stopped": "Stopped. Reset to start again."}[reason]
            self.statusBar().showMessage(text, 10000)

    def _on_error(self, text: str) -> None:
        box = QMessageBox(QMessageBox.Warning, "Sudoku Lab", text, QMessageBox.Ok, self)
        box.setObjectName("error_box")
        box.setWindowModality(Qt.NonModal)  # open() would make it window-modal: the lab stays usable
        box.show()
        self.statusBar().showMessage(text.splitlines()[0], 10000)

    # --------------------------------------------------------------- puzzles
    def _choose_puzzle(self, puzzle: Puzzle) -> None:
        """Load a puzzle from the browser, a file or the clipboard; a refused one opens in the editor."""
        if self.is_editing():
            self._leave_editor()
        if self.controller.load_puzzle(puzzle):
            self.puzzle_panel.show_error(None)
        else:
            self._enter_editor(puzzle)
            self.board.set_highlight(self._rejected_cells)

    def _on_puzzle(self, puzzle: Puzzle) -> None:
        self.board.set_puzzle(puzzle)
        self.board.set_highlight(())
        self.board.set_solution(self.controller.solution)
        self._pencil_cache = None
        self.puzzle_panel.show_error(None)
        for w in self.views.values():
            w.on_puzzle(puzzle)
        self._update_title()

    def _on_puzzle_rejected(self, message: str, cells) -> None:
        self.puzzle_panel.show_error(message)
        self._rejected_cells = tuple(cells)
        self.board.set_highlight(self._rejected_cells)

    def is_editing(self) -> bool:
        return self._edit_puzzle is not None

    def _set_edit_mode(self, on: bool) -> None:
        """The Edit givens button: edit the current puzzle, or use the edited one."""
        if on:
            self._enter_editor(self.controller.puzzle)
        elif self.is_editing():
            edited = self._edit_puzzle
            self._leave_editor()
            if edited != self.controller.puzzle and not self.controller.load_puzzle(edited.replace(name="edited")):
                self._enter_editor(edited)  # stay in the editor to fix what the message names
                self.board.set_highlight(self._rejected_cells)

    def _enter_editor(self, puzzle: Puzzle) -> None:
        self.controller.pause()
        self._edit_puzzle = puzzle
        self.board.set_puzzle(puzzle)
        self.board.set_grid(None)
        self.board.set_editable(True)
        self.board.setFocus()
        self._set_edit_button(True)
        self.statusBar().showMessage("Edit mode: click a cell and type a digit; leave edit mode to use the "
                                     "puzzle", 10000)

    def _leave_editor(self) -> None:
        self._edit_puzzle = None
        self.board.set_editable(False)
        self._set_edit_button(False)
        if self.controller.puzzle is not None:
            self.board.set_puzzle(self.controller.puzzle)
            self.board.set_highlight(())
            self._refresh_board()

    def _set_edit_button(self, on: bool) -> None:
        b = self.puzzle_panel.edit_button
        b.blockSignals(True)
        b.setChecked(on)
        b.blockSignals(False)

    def _on_cell_edited(self, cell: int, digit: int) -> None:
        if self._edit_puzzle is None:
            return
        p = self._edit_puzzle.with_cell(cell, digit)
        self._edit_puzzle = p
        self.board.set_puzzle(p)
        clashes = p.clashes()
        self.board.set_highlight({c for a, b, _ in clashes for c in (a, b)})
        if clashes:
            try:
                p.check_clashes()
            except Exception as e:  # the message names the cells and the digit
                self.puzzle_panel.show_error(str(e))
        else:
            self.puzzle_panel.show_error(None)

    # ------------------------------------------------------------- solvers
    def _on_solver_changed(self, name: str) -> None:
        cls = registry()[name]
        idx = self.solver_box.findData(name)
        if idx != self.solver_box.currentIndex():
            self.solver_box.blockSignals(True)
            self.solver_box.setCurrentIndex(idx)
            self.solver_box.blockSignals(False)
        self.solver_info.setText(f"{cls.description}<br><i>{cls.paper}</i>")
        self.params_panel.set_declarations(cls.params, self.controller.current_params())
        for spec in VIEWS:
            applies = spec.applies(cls)
            self.view_docks[spec.key].setVisible(applies)
            self.view_docks[spec.key].toggleViewAction().setEnabled(applies)
            w = self.views[spec.key]
            if applies and hasattr(w, "on_solver"):
                w.on_solver(cls)
        self.show_shading.setEnabled(cls.has_probability_model)
        self._update_title()

    def _update_title(self) -> None:
        c = self.controller
        name = c.puzzle.name if c.puzzle is not None and c.puzzle.name else "puzzle"
        self.setWindowTitle(f"Sudoku Lab - {name} - {registry()[c.solver_name].title}")

    # ------------------------------------------------------------- drawing
    #: Plots redraw at most this often while running (the board follows every frame); the
    #: last frame of a run is always drawn. Plot repaints cost ~10 ms of GUI-thread time.
    VIEW_INTERVAL = 0.1

    def on_progress(self, prog) -> None:
        """Draw the newest progress (called at most ~30 times per second by the controller's timer)."""
        self._last_progress = prog
        self._refresh_board()
        self._set_status_fields(prog)
        now = time.perf_counter()
        final = prog.done or self.controller.state != WorkerState.RUNNING
        cls = registry()[prog.snapshot.solver]
        due = []
        for spec in VIEWS:
            w = self.views[spec.key]
            if not (spec.applies(cls) and w.isVisible()):
                self._view_stale[spec.key] = True  # draw it when it is shown again
            elif final or now - self._view_drawn.get(spec.key, 0.0) >= self.VIEW_INTERVAL:
                due.append(spec.key)
        if not final:
            # One plot per frame, the most overdue first: two plot repaints in one frame would be a
            # visible hitch in the event loop.
            due = sorted(due, key=lambda k: self._view_drawn.get(k, 0.0))[:1]
        for key in due:
            self.views[key].on_progress(prog)
            self._view_drawn[key] = now
            self._view_stale[key] = False

    def _redraw_stale_views(self) -> None:
        """A dock brought to the front shows the latest state at once."""
        if self._last_progress is None:
            return
        for key, stale in list(self._view_stale.items()):
            if stale and self.views[key].isVisible():
                self.views[key].on_progress(self._last_progress)
                self._view_stale[key] = False

    def _refresh_board(self) -> None:
        prog = self._last_progress
        if prog is None or self.board.is_editable():
            return
        s = prog.snapshot
        self.board.set_grid(s.best_grid if self.show_best.isChecked() else s.grid, s.fixed)
        self.board.set_overlay("conflicts", self.show_conflicts.isChecked())
        self.board.set_overlay("diff", self.show_diff.isChecked())
        shading = max_probability(s) if self.show_shading.isChecked() else None
        self.board.set_shading(shading)
        self.board.set_overlay("shading", shading is not None)
        self.board.set_domains(self._pencil_marks(s) if self.show_pencil.isChecked() else None)
        self.board.set_overlay("pencil", self.show_pencil.isChecked())

    def _pencil_marks(self, snapshot) -> np.ndarray:
        dom = snapshot.layers.get("domains")
        if dom is not None:
            return dom
        key = id(snapshot.puzzle)
        if self._pencil_cache is None or self._pencil_cache[0] != key:
            self._pencil_cache = (key, ac3(snapshot.puzzle).domains)
        return self._pencil_cache[1]

    def _set_status_fields(self, prog) -> None:
        L = self.status_labels
        if prog is None:
            for k in ("iteration", "evaluations", "cost", "rate", "elapsed"):
                L[k].setText("")
            return
        s = prog.snapshot
        L["iteration"].setText(f"it {s.iteration:,}")
        L["evaluations"].setText(f"evals {s.evaluations:,}")
        L["cost"].setText(f"best cost {s.best_cost}")
        L["rate"].setText(f"{prog.rate:,.0f} it/s" if prog.rate else "")
        L["elapsed"].setText(f"{prog.elapsed:.1f} s")
        if s.solved:
            L["cost"].setText("solved")

    # ------------------------------------------------------------- dialogs
    def shortcut_rows(self) -> list[tuple[str, str]]:
        acts = [self.act_run, self.act_step, self.act_step_n, self.act_stop, self.act_reset, self.act_open,
                self.act_paste, self.act_edit, self.act_export, self.act_help, self.act_quit]
        return [(a.shortcut().toString(QKeySequence.NativeText), a.toolTip().split(" (")[0]) for a in acts]

    def show_shortcuts(self) -> QDialog:
        dlg = QDialog(self)
        dlg.setObjectName("shortcuts_dialog")
        dlg.setWindowTitle("Keyboard shortcuts")
        lay = QVBoxLayout(dlg)
        rows = self.shortcut_rows()
        table = QTableWidget(len(rows), 2)
        table.setHorizontalHeaderLabels(["Key", "Action"])
        table.verticalHeader().hide()
        for r, (key, what) in enumerate(rows):
            table.setItem(r, 0, QTableWidgetItem(key))
            table.setItem(r, 1, QTableWidgetItem(what))
        table.resizeColumnsToContents()
        table.setEditTriggers(QTableWidget.NoEditTriggers)
        lay.addWidget(table)
        lay.addWidget(QLabel("In edit mode: arrows move, 1-9 / A-P type a given, 0 . Delete clear it."))
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(dlg.reject)
        lay.addWidget(buttons)
        dlg.resize(520, 460)
        dlg.open()
        return dlg

    def show_about(self) -> None:
        QMessageBox.about(self, "About Sudoku Lab",
                          f"Sudoku Lab {__version__}<br>How stochastic search solves Sudoku: RESEDA and friends, "
                          "live. See the README for the papers behind each algorithm.")

    def export_figures(self, directory: str | None = None) -> list[Path]:
        """Render the probability model and convergence curves with matplotlib (PDF/SVG/PNG)."""
        from sudoku_lab import figures

        prog = self._last_progress
        if prog is None:
            return []
        if directory is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export figures (a suffix per figure is added)",
                                                  "sudoku-lab.pdf", "PDF (*.pdf);;SVG (*.svg);;PNG (*.png)")
            if not path:
                return []
            base = Path(path)
        else:
            base = Path(directory) / "sudoku-lab.pdf"
        s = prog.snapshot
        out = []
        label = f"{s.puzzle.name or 'puzzle'}, {s.solver}, iteration {s.iteration}"
        try:
            if "prob" in s.layers:
                fig = figures.probability_figure(s.layers["prob"], s.puzzle.n, s.fixed,
                                                 title=f"p[cell, digit]: {label}")
                out.append(figures.save(fig, base.with_name(base.stem + "-probability" + base.suffix)))
            fig = figures.convergence_figure(s.trace, s.events, beta=s.params.get("beta"), title=label,
                                             iteration_name=registry()[s.solver].iteration_name)
            out.append(figures.save(fig, base.with_name(base.stem + "-convergence" + base.suffix)))
        except SudokuLabError as e:  # a read-only folder, a full disk, a suffix matplotlib cannot write
            self._on_error(f"Export failed: {e}")
            return out
        self.statusBar().showMessage("Wrote " + ", ".join(p.name for p in out), 10000)
        return out

    # ------------------------------------------------------------- closing
    def closeEvent(self, event) -> None:
        self.controller.shutdown()
        if self.settings is not None:
            self.settings.setValue("geometry", self.saveGeometry())
            self.settings.setValue("state", self.saveState())
        super().closeEvent(event)

    def restore_layout(self) -> None:
        if self.settings is None:
            return
        g, st = self.settings.value("geometry"), self.settings.value("state")
        if g is not None:
            self.restoreGeometry(g)
        if st is not None:
            self.restoreState(st)

    def start(self, puzzle: Puzzle) -> None:
        """Load the first puzzle and start the worker (compiles kernels in the background)."""
        self.controller.start()
        QTimer.singleShot(0, self._size_docks)  # dock sizes only take once the window has its own
        coll = puzzle.metadata.get("collection")
        if coll:
            self.puzzle_panel.select_collection(coll)
            self.puzzle_panel.select_puzzle(puzzle.name)
        QTimer.singleShot(0, lambda: self.controller.load_puzzle(puzzle))
