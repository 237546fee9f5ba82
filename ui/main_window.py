"""The lab's main window: board in the middle, puzzle and algorithm on the sides, views in docks.

The window only composes its parts and knows no solver: the board and its
layer overlays (:mod:`.board_panel`), the view docks and their frame
scheduler (:mod:`.view_host`), the run toolbar (:mod:`.run_toolbar`) and edit
mode (:mod:`.edit_mode`) read the solvers' declarations. UI plugins (the
``sudoku_lab.ui_plugins`` entry-point group) are loaded before the docks are
built, so their views and overlays are there from the start.
"""

from __future__ import annotations

import base64
import binascii
import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QRect, QSettings, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sudoku_lab import __version__
from sudoku_lab.errors import DataFileError, SudokuLabError
from sudoku_lab.model.puzzle import Puzzle
from sudoku_lab.plugins import UI_PLUGIN_GROUP, load_plugins
from sudoku_lab.solvers import registry
from sudoku_lab.stepping.session import SUFFIX, Session, load_session, save_session

from . import gui_gc
from .board_panel import BoardPanel
from .controller import Controller
from .edit_mode import EditMode
from .params_panel import ParamsPanel
from .presentation import Presentation
from .puzzle_panel import PuzzlePanel
from .run_toolbar import UNTIL, RunToolbar, make_action
from .timeline import Timeline
from .view_host import ViewHost, make_dock
from .worker import WorkerState

__all__ = ["MainWindow", "UNTIL", "PREFERRED_SIZE", "reference_link", "RECENT_SESSIONS", "HISTORY_SAVE_DEFAULT_MAX"]

#: File > Include the run's history (rewind) is on by default while the history's keyframes hold at most this
#: many bytes (50 MB); a choice made in the menu holds whatever the size.
HISTORY_SAVE_DEFAULT_MAX = 50_000_000
#: How many session files File > Recent sessions lists (newest first; QSettings key ``recent_sessions``).
RECENT_SESSIONS = 8
_SESSION_FILTER = f"Sudoku Lab session (*{SUFFIX});;All files (*)"

_STATE_TEXT = {"compiling": "compiling kernels...", "idle": "ready"}

#: The window's size on a screen with room for it; a smaller screen gets its whole available area.
PREFERRED_SIZE = QSize(1600, 1000)


def reference_link(reference: str) -> str:
    """A solver's ``reference`` (a docs path with an anchor) as rich text, a link when the file is here."""
    if not reference:
        return ""
    path, _, anchor = reference.partition("#")
    root = Path(__file__).resolve().parent.parent
    for base in (root, Path.cwd()):
        f = base / path
        if f.is_file():
            url = QUrl.fromLocalFile(str(f))
            if anchor:
                url.setFragment(anchor)
            return f'<a href="{url.toString()}">{reference}</a>'
    return reference


class MainWindow(QMainWindow):
    """The Sudoku Lab window (see README: "The lab window").

    Signals
    -------
    sessionSaved(str)
        A session file was written (its path).
    sessionOpened(str)
        A session was opened and its solver restored in the worker, paused: the path of its file, or "" for a
        session given as a value.
    """

    sessionSaved = Signal(str)
    sessionOpened = Signal(str)

    def __init__(self, controller: Controller | None = None, settings: QSettings | None = None):
        super().__init__()
        self._recent: list[str] = []  # the recent session files without QSettings (tests, a window of a script)
        self._opening_path: str | None = None  # the session file being opened (its puzzle is checked first)
        self._restoring: tuple[str, str] | None = None  # (path, status line) until the worker has restored it
        gui_gc.acquire(self)  # cyclic garbage is collected in the GUI thread only (see gui_gc)
        self._gc_released = False
        self.setWindowTitle("Sudoku Lab")
        self.controller = controller or Controller(self)
        self.settings = settings
        self._last_progress = None
        self._tabs_pending = True  # the views' tab groups, made when first shown (or by a restored layout)
        load_plugins(UI_PLUGIN_GROUP)  # plugin views and overlays exist before the docks are built
        self.board_panel = BoardPanel()
        self.setCentralWidget(self.board_panel)
        self._build_side_docks()
        self.view_host = ViewHost(self)
        # The side columns run the full height; the curves sit under the board only.
        self.setCorner(Qt.BottomLeftCorner, Qt.LeftDockWidgetArea)
        self.setCorner(Qt.BottomRightCorner, Qt.RightDockWidgetArea)
        self.run_toolbar = tb = RunToolbar(self, self.controller)
        self.addToolBar(tb)
        # The parts' controls, under the names tests and scripts have always used.
        self.act_run, self.act_step, self.act_step_phase, self.act_step_n, self.act_stop, self.act_reset = (
            tb.actions_in_order()
        )
        self.step_n, self.until_box, self.until_value = tb.step_n, tb.until_box, tb.until_value
        self.speed_box, self.seed_box, self.random_seed = tb.speed_box, tb.seed_box, tb.random_seed
        bp = self.board_panel
        self.show_best, self.show_pencil, self.show_diff = bp.show_best, bp.show_pencil, bp.show_diff
        self.show_conflicts, self.show_shading, self.overlay_toggles = (
            bp.show_conflicts,
            bp.show_shading,
            bp.overlay_toggles,
        )
        self.edit_mode = EditMode(
            self.controller,
            self.board,
            self.puzzle_panel,
            lambda text: self.statusBar().showMessage(text, 10000),
            self._restore_board,
            self,
        )
        self.compare_windows: list = []  #: the Compare side by side windows opened (closed with this one)
        self._build_menus()
        self.presentation = Presentation(self)  # F11, and the keys that drive the lab (after the menus it joins)
        self._build_status_bar()
        self._connect()
        self.timeline = Timeline(self)  # the dock under the views, Back 1 / Back N, the memory setting
        self._on_solver_changed(self.controller.solver_name)
        self.run_toolbar.on_state(self.controller.state)
        self.fit_to_screen()

    # ------------------------------------------------------------- parts
    @property
    def board(self):
        return self.board_panel.board

    @property
    def views(self) -> dict:
        return self.view_host.views

    @property
    def view_docks(self) -> dict:
        return self.view_host.docks

    def _build_side_docks(self) -> None:
        self.puzzle_panel = PuzzlePanel()
        self.puzzle_dock = make_dock(self, "Puzzle", self.puzzle_panel, Qt.LeftDockWidgetArea, "puzzle")
        algo = QWidget()
        lay = QVBoxLayout(algo)
        lay.setContentsMargins(4, 4, 4, 4)
        self.solver_box = QComboBox()
        # As wide as the dock, not as the longest title: a long title must not widen the left column.
        self.solver_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.solver_box.setMinimumContentsLength(12)
        for name, cls in registry().items():
            self.solver_box.addItem(cls.title, name)
            self.solver_box.setItemData(self.solver_box.count() - 1, cls.description, Qt.ToolTipRole)
        lay.addWidget(self.solver_box)
        self.solver_info = QLabel()
        self.solver_info.setWordWrap(True)
        self.solver_info.setStyleSheet("color: #555;")
        self.solver_info.setOpenExternalLinks(True)
        lay.addWidget(self.solver_info)
        self.params_panel = ParamsPanel()
        lay.addWidget(self.params_panel, 1)
        self.algo_dock = make_dock(self, "Algorithm", algo, Qt.LeftDockWidgetArea, "algorithm")
        self.puzzle_panel.table.setMinimumHeight(160)

    def _size_docks(self) -> None:
        """The first layout: side columns and the curves in proportion to the window, the rest to the board."""
        w, h = self.width(), self.height()
        side = [self.puzzle_dock, self.algo_dock]
        self.resizeDocks(side, [min(330, max(250, w // 4))] * 2, Qt.Horizontal)
        self.resizeDocks(side, [380, 560], Qt.Vertical)
        right = [
            d for d in self.view_docks.values() if self.dockWidgetArea(d) == Qt.RightDockWidgetArea and not d.isHidden()
        ]
        if right:
            self.resizeDocks(right[:1], [min(470, max(300, w // 3))], Qt.Horizontal)
        bottom = self.view_host.bottom_docks()
        if bottom:
            self.resizeDocks(bottom[:1], [min(330, max(220, h * 3 // 8))], Qt.Vertical)

    def _build_menus(self) -> None:
        m = self.menuBar()
        f = m.addMenu("&File")
        self.act_open = make_action(self, "Open puzzle...", "Ctrl+O", lambda: self.puzzle_panel.open_file())
        self.act_paste = make_action(self, "Paste puzzle", "Ctrl+Shift+V", lambda: self.puzzle_panel.paste())
        self.act_edit = make_action(self, "Edit givens", "Ctrl+E", self.puzzle_panel.edit_button.toggle)
        self.act_export = make_action(
            self,
            "Export figures...",
            "Ctrl+Shift+S",
            self.export_figures,
            "Probability model and convergence as PDF/SVG/PNG (matplotlib)",
        )
        self.act_quit = make_action(self, "Quit", "Ctrl+Q", self.close)
        self.act_open_session = make_action(
            self,
            "Open session...",
            "Ctrl+Shift+O",
            lambda: self.open_session(),
            "Open a saved session: puzzle, algorithm, parameters, seed, layout and the run, paused where it was",
        )
        self.act_save_session = make_action(
            self,
            "Save session...",
            "Ctrl+S",
            lambda: self.save_session(),
            "Save the puzzle, algorithm, parameters, seed, layout and the run's exact state (the run goes on)",
        )
        for a in (self.act_open, self.act_paste, self.act_edit, self.act_export):
            f.addAction(a)
        f.addSeparator()
        f.addAction(self.act_open_session)
        f.addAction(self.act_save_session)
        self._build_session_extras(f)
        self.recent_menu = f.addMenu("Recent sessions")
        self.recent_menu.setObjectName("recent_sessions_menu")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        self._fill_recent_menu()
        f.addSeparator()
        f.addAction(self.act_quit)
        r = self.run_menu = m.addMenu("&Run")
        for a in self.run_toolbar.actions_in_order():
            r.addAction(a)
        r.addSeparator()
        self.grades_dialog = None
        self.act_grades = make_action(
            self,
            "Correctness grades...",
            None,
            lambda: self.show_grades(),
            "Grade every cell over many seeded runs (the RESEDA paper's Figure 4.2), on the experiment engine",
        )
        self.act_grades.setObjectName("act_grades")
        r.addAction(self.act_grades)
        self.act_compare = make_action(
            self,
            "Compare side by side...",
            None,
            lambda: self.open_compare(),
            "Two to four solvers, or configurations of one, on this puzzle in lockstep, with paired seeds",
        )
        r.addAction(self.act_compare)
        self.act_batch = make_action(
            self,
            "Batch experiment...",
            None,
            lambda: self.batch_experiment(),
            "Solvers x parameter values x puzzles x runs on the experiment engine: a live report and ECDF; "
            "the specification saved as TOML runs headless with `sudoku-lab batch`",
        )
        self.act_batch.setObjectName("act_batch")
        r.addAction(self.act_batch)
        self.batch_panel = None
        v = m.addMenu("&View")
        for d in [self.puzzle_dock, self.algo_dock, *self.view_docks.values()]:
            v.addAction(d.toggleViewAction())
        v.addSeparator()
        self.act_techniques = make_action(
            self,
            "Techniques",
            None,
            lambda: self.board_panel.set_techniques(self.act_techniques.isChecked()),
            "Colour each cell by the technique its placement needs when the puzzle is solved by human "
            "techniques (singles ... XY-wing, simple colouring, trial and error), with a legend under the board",
        )
        self.act_techniques.setCheckable(True)
        self.act_techniques.setObjectName("act_techniques")
        v.addAction(self.act_techniques)
        h = m.addMenu("&Help")
        self.act_help = make_action(self, "Keyboard shortcuts", "F1", self.show_shortcuts)
        h.addAction(self.act_help)
        h.addAction(make_action(self, "About Sudoku Lab", None, self.show_about))

    def _build_status_bar(self) -> None:
        sb = self.statusBar()
        self.status_labels = {}
        for key, tip in (
            ("puzzle", "puzzle check"),
            ("state", "solver state"),
            ("iteration", "iterations"),
            ("evaluations", "evaluations"),
            ("cost", "best cost"),
            ("rate", "iterations per second"),
            ("elapsed", "elapsed"),
        ):
            lab = QLabel()
            lab.setToolTip(tip)
            lab.setMinimumWidth(90)
            sb.addPermanentWidget(lab)
            self.status_labels[key] = lab
        self.status_labels["puzzle"].setStyleSheet("color: #8a5a00;")
        self._set_status_fields(None)

    def _connect(self) -> None:
        c = self.controller
        c.progress.connect(self.on_progress)
        c.stateChanged.connect(self._on_state)
        c.puzzleChanged.connect(self._on_puzzle)
        c.puzzleRejected.connect(self._on_puzzle_rejected)
        c.checkingChanged.connect(self._on_checking)
        c.solverChanged.connect(self._on_solver_changed)
        c.paramsChanged.connect(lambda vals: self.params_panel.set_values(vals))
        c.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        c.errorOccurred.connect(self._on_error)
        c.runEnded.connect(self._on_run_ended)
        c.sessionOpened.connect(self._on_session_opened)
        c.sessionRestored.connect(self._on_session_restored)
        self.puzzle_panel.puzzleChosen.connect(self._choose_puzzle)
        self.solver_box.currentIndexChanged.connect(lambda i: c.set_solver(self.solver_box.itemData(i)))
        self.params_panel.edited.connect(self._on_param_edited)

    # ---------------------------------------------------------------- running
    def termination(self):
        return self.run_toolbar.termination()

    def _on_param_edited(self, name: str, value) -> None:
        err = self.controller.set_param(name, value)
        self.params_panel.show_error(err)
        if err:  # put the accepted value back
            self.params_panel.set_values(self.controller.current_params())

    def _on_state(self, state: str) -> None:
        self.run_toolbar.on_state(state)
        running = state == WorkerState.RUNNING
        if running:
            self.view_host.cancel_pending()  # the run's own frames draw the views (throttled)
        else:
            self.view_host.finish()  # a last frame taken while the run still went is drawn everywhere
        self.params_panel.set_running(running or not self.controller.at_start)
        self.status_labels["state"].setText(_STATE_TEXT.get(state, state))

    def _on_run_ended(self, reason: str) -> None:
        if reason in ("solved", "failed", "max_iterations", "max_seconds", "stopped"):
            text = {
                "solved": "Solved!",
                "failed": "The solver gave up (its own stopping rule).",
                "max_iterations": "Iteration budget reached.",
                "max_seconds": "Time budget reached.",
                "stopped": "Stopped. Reset to start again.",
            }[reason]
            self.statusBar().showMessage(text, 10000)

    def _on_error(self, text: str) -> None:
        box = QMessageBox(QMessageBox.Warning, "Sudoku Lab", text, QMessageBox.Ok, self)
        box.setObjectName("error_box")
        box.setWindowModality(Qt.NonModal)  # open() would make it window-modal: the lab stays usable
        box.show()
        self.statusBar().showMessage(text.splitlines()[0], 10000)

    # --------------------------------------------------------------- puzzles
    def is_editing(self) -> bool:
        return self.edit_mode.is_editing()

    def _choose_puzzle(self, puzzle: Puzzle) -> None:
        """A puzzle from the browser, a file or the clipboard: checked, then loaded or opened in the editor."""
        if self.is_editing():
            self.edit_mode.leave()
        self.puzzle_panel.show_error(None)
        self.controller.load_puzzle(puzzle)

    def _on_checking(self, checking: bool) -> None:
        pending = self.controller.checking
        text = f"checking {pending.name or 'puzzle'}..." if checking and pending is not None else ""
        self.status_labels["puzzle"].setText(text)
        self.status_labels["puzzle"].setVisible(bool(text))
        self.puzzle_panel.show_status(text and text[0].upper() + text[1:])
        if checking and pending is not None and self.controller.puzzle is None and not self.is_editing():
            self.board_panel.set_puzzle(pending, None, False)  # the first puzzle: its givens meanwhile
        self.board_panel.set_checking(checking)

    def _restore_board(self) -> None:
        """After edit mode: the loaded puzzle and the latest frame of its run."""
        c = self.controller
        if c.puzzle is not None:
            self.board_panel.set_puzzle(c.puzzle, c.solution, c.several_solutions)
            if self._last_progress is not None:
                self.board_panel.show_snapshot(self._last_progress.snapshot)

    def _on_puzzle(self, puzzle: Puzzle) -> None:
        if self.is_editing():
            self.edit_mode.leave()
        self._last_progress = None
        c = self.controller
        self.board_panel.set_puzzle(puzzle, c.solution, c.several_solutions)
        self.puzzle_panel.show_error(None)
        self.view_host.on_puzzle(puzzle)
        self._update_title()

    def _on_puzzle_rejected(self, message: str, cells, puzzle) -> None:
        """A refused puzzle opens in the editor, the cells the message names highlighted."""
        if self.is_editing():
            self.edit_mode.leave()
        self.edit_mode.enter(puzzle, cells)
        self.puzzle_panel.show_error(message)

    # ------------------------------------------------------------- solvers
    def _on_solver_changed(self, name: str) -> None:
        cls = registry()[name]
        idx = self.solver_box.findData(name)
        if idx != self.solver_box.currentIndex():
            self.solver_box.blockSignals(True)
            self.solver_box.setCurrentIndex(idx)
            self.solver_box.blockSignals(False)
        cite = " · ".join(x for x in (f"<i>{cls.paper}</i>" if cls.paper else "", reference_link(cls.reference)) if x)
        self.solver_info.setText(f"{cls.description}<br>{cite}" if cite else cls.description)
        self.params_panel.set_declarations(cls.params, self.controller.current_params())
        self.view_host.on_solver(cls)
        self.board_panel.set_solver(cls)
        self._update_title()
        if self.isVisible():  # other docks: the window must still fit its screen
            QTimer.singleShot(0, self.keep_on_screen)

    def _update_title(self) -> None:
        c = self.controller
        name = c.puzzle.name if c.puzzle is not None and c.puzzle.name else "puzzle"
        self.setWindowTitle(f"Sudoku Lab - {name} - {registry()[c.solver_name].title}")

    # ------------------------------------------------------------- drawing
    def on_progress(self, prog) -> None:
        """Draw the newest progress (called at most ~30 times per second by the controller's timer)."""
        self._last_progress = prog
        self.board_panel.show_snapshot(prog.snapshot, prog.phase)
        self._show_params_at(prog.snapshot)
        self._set_status_fields(prog)
        final = prog.done or self.controller.state != WorkerState.RUNNING
        self.view_host.on_progress(prog, final)

    def _show_params_at(self, s) -> None:
        """The parameter form: the values in force at the frame shown when rewound, else the live ones."""
        c = self.controller
        info = c.timeline_info
        rewound = info is not None and info.rewound and info.iteration == s.iteration and s.solver == c.solver_name
        panel = self.params_panel
        if rewound:
            panel.set_values({k: v for k, v in s.params.items() if k in panel.editors})
            panel.set_rewound(s.iteration, registry()[s.solver].iteration_name)
        elif panel.rewound_at is not None:
            panel.set_values(c.current_params())
            panel.set_rewound(None)

    def settled(self) -> bool:
        """True when the solver is idle and its last frame is drawn in every view (tests, screenshots).

        The worker may go idle before the GUI timer has taken its last frame, and a final frame draws
        its views one per event-loop turn, so "idle" alone does not mean the window shows the end.
        """
        c = self.controller
        return (
            c.state == WorkerState.IDLE
            and c.latest is not None
            and not c.worker.has_new_frame()
            and self._last_progress is c.latest
            and not self.view_host.pending()
        )

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
        info = self.controller.timeline_info
        if info is not None and info.iteration == s.iteration and info.rewound:
            L["iteration"].setText(f"iteration {s.iteration:,} of {info.furthest:,} (rewound)")
            L["elapsed"].setText("")  # a frame shown again: no run time of its own

    # ------------------------------------------------------------- dialogs
    def shortcut_rows(self) -> list[tuple[str, str]]:
        """(key, what it does) of every window action with a key, in the order they were made.

        Read from the actions themselves (Help > Keyboard shortcuts, the table in docs/lab.md), so it cannot go
        stale; an action with several keys lists them joined by ", ".
        """
        rows = []
        for a in self.actions():
            keys = [k.toString(QKeySequence.NativeText) for k in a.shortcuts() if not k.isEmpty()]
            if keys:
                tip = a.toolTip()
                suffix = f" ({a.shortcut().toString()})"
                rows.append((", ".join(keys), tip[: -len(suffix)] if tip.endswith(suffix) else tip))
        return rows

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
        lay.addWidget(QLabel("In presentation mode Esc leaves it (and does not stop the run)."))
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(dlg.reject)
        lay.addWidget(buttons)
        dlg.resize(520, 460)
        dlg.open()
        return dlg

    def show_about(self) -> None:
        QMessageBox.about(
            self,
            "About Sudoku Lab",
            f"Sudoku Lab {__version__}<br>How stochastic search solves Sudoku: RESEDA and friends, "
            "live. The algorithms and their papers are described in docs/algorithms.md.",
        )

    def export_figures(self, directory: str | None = None) -> list[Path]:
        """Render every probability layer and the convergence curves with matplotlib (PDF/SVG/PNG)."""
        from sudoku_lab.analysis import figures

        prog = self._last_progress
        if prog is None:
            return []
        if directory is None:
            path, _ = QFileDialog.getSaveFileName(
                self,
                "Export figures (a suffix per figure is added)",
                "sudoku-lab.pdf",
                "PDF (*.pdf);;SVG (*.svg);;PNG (*.png)",
            )
            if not path:
                return []
            base = Path(path)
        else:
            base = Path(directory) / "sudoku-lab.pdf"
        s = prog.snapshot
        cls = registry()[s.solver]
        out = []
        label = f"{s.puzzle.name or 'puzzle'}, {s.solver}, iteration {s.iteration}"
        try:
            models = [d for d in cls.layers_with_role("probability") if s.layers.get(d.name) is not None]
            for d in models:
                suffix = "-probability" if len(models) == 1 else f"-probability-{d.name}"
                fig = figures.probability_figure(s.layers[d.name], s.puzzle.n, s.fixed, title=f"{d.help}: {label}")
                out.append(figures.save(fig, base.with_name(base.stem + suffix + base.suffix)))
            fig = figures.convergence_figure(s, title=label, solver=cls)
            out.append(figures.save(fig, base.with_name(base.stem + "-convergence" + base.suffix)))
        except SudokuLabError as e:  # a read-only folder, a full disk, a suffix matplotlib cannot write
            self._on_error(f"Export failed: {e}")
            return out
        self.statusBar().showMessage("Wrote " + ", ".join(p.name for p in out), 10000)
        return out

    # ------------------------------------------------------------- sessions
    def session_ui(self) -> dict:
        """What a session keeps of the window besides the run: the dock layout (base64) and the run controls."""
        return {
            "window_state": base64.b64encode(bytes(self.saveState())).decode("ascii"),
            "speed": self.speed_box.currentIndex(),
            "step_n": self.step_n.value(),
        }

    def save_session(self, path: str | os.PathLike | None = None) -> None:
        """Save the session to ``path`` (asked for when None); a running run goes on.

        The solver's keyframe is taken by the worker between two chunks, so the
        file is written a moment later (``sessionSaved``); a file that cannot be
        written is one line in a message box.
        """
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Save session", f"session{SUFFIX}", _SESSION_FILTER)
            if not path:
                return
            if not Path(path).suffix:
                path += SUFFIX
        c = self.controller
        puzzle, name, params, seed = c.puzzle, c.solver_name, c.current_params(), c.seed
        if puzzle is None:
            self._on_error("Nothing to save yet: no puzzle is loaded.")
            return
        target = str(path)
        if not self.act_session_history.isChecked():
            c.request_keyframe(lambda state: self._write_session(target, puzzle, name, params, seed, state))
            return
        limit = HISTORY_SAVE_DEFAULT_MAX if self._history_choice is None else None

        def write(state, record, note: str) -> None:
            self._write_session(target, puzzle, name, params, seed, state, record, note)

        c.request_session_parts(write, limit)

    def _write_session(
        self, path: str, puzzle, name: str, params: dict, seed: int, state, history=None, note: str = ""
    ) -> None:
        if state is not None:  # the worker's solver is the truth: a reset pending in the queue came before
            puzzle, name = state["puzzle"], state["solver"]
            if name != self.controller.solver_name or puzzle != self.controller.puzzle:
                params, seed = dict(state["params"]), state["seed"]
        session = Session(
            puzzle=puzzle,
            solver=name,
            params=params,
            seed=seed,
            state=state,
            events=tuple(state["events"]) if state is not None else (),
            ui=self.session_ui(),
            history=history if state is not None else None,
        )
        try:
            save_session(path, session)
        except SudokuLabError as e:
            self._on_error(f"Could not save the session: {e}")
            return
        self._add_recent(path)
        at = f" at iteration {session.iteration:,}" if state is not None else ""
        if session.history is not None:
            at += f", with its history (iterations {session.history['origin']:,} to {session.history['furthest']:,})"
        elif note and self.act_session_history.isChecked() and state is not None:
            at += f", without its history ({note})"
        self.statusBar().showMessage(f"Saved session {Path(path).name}{at}", 10000)
        self.sessionSaved.emit(path)

    def _build_session_extras(self, menu) -> None:
        """File > Include the run's history (rewind) and File > Export animation... (after Save session)."""
        self._history_choice: bool | None = None  # None: on while the history is at most HISTORY_SAVE_DEFAULT_MAX
        a = self.act_session_history = QAction("Include the run's history (rewind)", self)
        a.setObjectName("act_session_history")
        a.setCheckable(True)
        a.setChecked(True)
        a.setToolTip(
            "Save session keeps the recorded run too, so the reopened session can be rewound to any iteration "
            f"(on by default while the history holds at most {HISTORY_SAVE_DEFAULT_MAX // 1_000_000} MB)"
        )
        a.triggered.connect(self._on_history_choice)
        menu.addAction(a)
        self.controller.timeline.connect(self._history_default)
        self.act_export_animation = make_action(
            self,
            "Export animation...",
            None,
            lambda: self.export_animation(),
            "Write the run shown as an animated GIF or an MP4 (a frame every N iterations or every phase)",
        )
        self.act_export_animation.setObjectName("act_export_animation")
        acts = menu.actions()
        menu.insertAction(acts[acts.index(self.act_export) + 1], self.act_export_animation)  # after Export figures
        self.export_dialog = None
        self._build_export_view(menu)

    def _build_export_view(self, menu) -> None:
        """File > Export view... (after Export figures), and "Export this view..." on each view dock's menu."""
        self.act_export_view = make_action(
            self,
            "Export view...",
            None,
            lambda: self.export_view(),
            "Any view of the run shown (the focused one first) as PNG/SVG/PDF at a chosen size, DPI and font "
            "size, or its data as CSV with a JSON provenance sidecar",
        )
        self.act_export_view.setObjectName("act_export_view")
        menu.insertAction(self.act_export_animation, self.act_export_view)
        self.export_view_dialog = None
        for key, dock in self.view_docks.items():
            dock.setContextMenuPolicy(Qt.CustomContextMenu)
            dock.customContextMenuRequested.connect(
                lambda pos, k=key, d=dock: self.dock_menu(k).exec(d.mapToGlobal(pos))
            )

    def dock_menu(self, key: str):
        """The context menu of view dock ``key``: "Export <its title>...", then the window's usual dock list."""
        menu = self.createPopupMenu()
        first = menu.actions()[0] if menu.actions() else None
        act = QAction(f"Export {self.view_docks[key].windowTitle()}...", menu)
        act.setObjectName("act_export_this_view")
        act.triggered.connect(lambda: self.export_view(key))
        menu.insertAction(first, act)
        menu.insertSeparator(first)
        return menu

    def current_view(self) -> str:
        """Key of the view dock holding the keyboard focus, else "board"."""
        focus = self.focusWidget()
        for key, dock in self.view_docks.items():
            if focus is not None and dock.isAncestorOf(focus):
                return key
        return "board"

    def export_view(self, view: str | None = None):
        """Open File > Export view... on the latest frame, showing ``view`` (the focused one when None).

        The dialog (:mod:`.export_view`) draws through :mod:`sudoku_lab.analysis.view_figures`; returned.
        """
        from .export_view import ExportViewDialog

        dialog = self.export_view_dialog
        if dialog is None:
            dialog = self.export_view_dialog = ExportViewDialog(self)
        prog = self._last_progress
        dialog.set_snapshot(
            prog.snapshot if prog is not None else None, self.controller.seed, view or self.current_view()
        )
        dialog.show()
        dialog.raise_()
        return dialog

    def _on_history_choice(self, checked: bool) -> None:
        self._history_choice = bool(checked)  # the user's choice: it holds whatever the history's size

    def _history_default(self, info) -> None:
        if self._history_choice is None and info is not None:
            self.act_session_history.setChecked(info.memory_used <= HISTORY_SAVE_DEFAULT_MAX)

    def export_animation(self):
        """Open File > Export animation... for the run shown (:mod:`.export_animation`); the dialog is returned."""
        from .export_animation import ExportAnimationDialog, run_to_export

        dialog = self.export_dialog
        if dialog is None:
            dialog = self.export_dialog = ExportAnimationDialog(self)
        if not dialog.running:
            dialog.set_run(None, "Reading the run...")
            c = self.controller
            if c.puzzle is None:
                dialog.set_run(None, "Nothing to export yet: no puzzle is loaded.")
            else:

                def got(state, record, note: str) -> None:
                    if state is None:
                        dialog.set_run(None, "Nothing to export yet: no run.")
                    else:
                        dialog.set_run(run_to_export(state, record))

                c.request_session_parts(got, None)
        dialog.show()
        dialog.raise_()
        return dialog

    def show_grades(self):
        """Open Run > Correctness grades... (:mod:`.grades_dialog`) on the window's puzzle, solver and parameters
        (unless grades are running there); the dialog is returned."""
        from .grades_dialog import GradesDialog

        dialog = self.grades_dialog
        if dialog is None:
            dialog = self.grades_dialog = GradesDialog(self)
        if not dialog.running:
            c = self.controller
            dialog.set_defaults(c.puzzle, c.solver_name, c.current_params())
        dialog.show()
        dialog.raise_()
        return dialog

    def batch_experiment(self):
        """Open Run > Batch experiment... (:mod:`.batch_panel`), one panel per window; the panel is returned."""
        from .batch_panel import BatchPanel

        if self.batch_panel is None:
            self.batch_panel = BatchPanel(self)
        self.batch_panel.show()
        self.batch_panel.raise_()
        return self.batch_panel

    def open_session(self, path: str | os.PathLike | None = None) -> bool:
        """Open the session file ``path`` (asked for when None); False, with one line in a message box, if it is
        unreadable: then nothing changes.

        A good file's puzzle is checked as any puzzle, then its algorithm, parameters, seed, layout and run are
        restored, paused at the saved iteration (``sessionOpened``).
        """
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, "Open session", "", _SESSION_FILTER)
            if not path:
                return False
        try:
            session = load_session(path)
        except DataFileError as e:
            self._on_error(f"Could not open the session: {e}")
            return False
        return self.open_loaded_session(session, str(path))

    def open_loaded_session(self, session: Session, path: str = "") -> bool:
        """Open a session already read (``sudoku-lab gui --session``, a script); ``path`` goes to the recent list."""
        if self.is_editing():
            self.edit_mode.leave()
        if not self.controller.open_session(session):
            return False
        self._opening_path = path
        if path:
            self._add_recent(path)
        return True

    def _on_session_opened(self, session: Session) -> None:
        path, self._opening_path = self._opening_path or "", None
        ui = session.ui
        try:
            state = ui.get("window_state")
            if isinstance(state, str) and self.restoreState(QByteArray(base64.b64decode(state, validate=True))):
                self._tabs_pending = False
                self.view_host.on_solver(registry()[session.solver])  # no view that does not apply
            if isinstance(ui.get("speed"), int) and 0 <= ui["speed"] < self.speed_box.count():
                self.speed_box.setCurrentIndex(ui["speed"])
            if isinstance(ui.get("step_n"), int):
                self.step_n.setValue(ui["step_n"])
        except (binascii.Error, ValueError):  # a hand-edited layout: the current one stays
            pass
        self.seed_box.blockSignals(True)
        self.seed_box.setValue(self.controller.seed)
        self.seed_box.blockSignals(False)
        coll = session.puzzle.metadata.get("collection")
        if coll:  # a bundled puzzle: the browser shows where it is
            self.puzzle_panel.select_collection(coll)
            self.puzzle_panel.select_puzzle(session.puzzle.name)
        name = Path(path).name if path else "session"
        line = f"Opened {name}: paused at iteration {session.iteration:,}"
        if session.state is None:  # a plain reset, no restore to wait for
            self._restoring = None
            self.statusBar().showMessage(line, 10000)
            self.sessionOpened.emit(path)
        else:
            self._restoring = (path, line)

    def _on_session_restored(self) -> None:
        if self._restoring is not None:
            (path, line), self._restoring = self._restoring, None
            self.statusBar().showMessage(line, 10000)  # after the worker's "Ready" line
            self.sessionOpened.emit(path)

    def recent_sessions(self) -> list[str]:
        """The session files saved or opened lately, newest first (at most :data:`RECENT_SESSIONS`)."""
        if self.settings is None:
            return list(self._recent)
        value = self.settings.value("recent_sessions")
        if isinstance(value, str):  # QSettings gives a one-item list back as its item
            value = [value]
        return [str(v) for v in (value or []) if v][:RECENT_SESSIONS]

    def _set_recent(self, paths: list[str]) -> None:
        paths = paths[:RECENT_SESSIONS]
        if self.settings is None:
            self._recent = paths
        else:
            self.settings.setValue("recent_sessions", paths)
        # The menu is refilled when it opens (aboutToShow), never here: this may run in one of its actions' slots.

    def _add_recent(self, path: str) -> None:
        full = os.path.abspath(path)
        self._set_recent([full, *(p for p in self.recent_sessions() if p != full)])

    def _fill_recent_menu(self) -> None:
        menu = self.recent_menu
        for act in menu.actions():  # later, not now: clear() would delete them at once
            menu.removeAction(act)
            act.deleteLater()
        paths = self.recent_sessions()
        for i, p in enumerate(paths):
            here = os.path.isfile(p)
            act = menu.addAction(f"&{i + 1} {Path(p).name}" + ("" if here else " (missing)"))
            act.setToolTip(p)
            act.setStatusTip(p)
            act.setEnabled(here)
            act.triggered.connect(lambda _=False, p=p: self.open_session(p))
        if paths:
            menu.addSeparator()
        clear = menu.addAction("Clear the list")
        clear.setEnabled(bool(paths))
        clear.triggered.connect(lambda: self._set_recent([]))
        menu.setEnabled(True)

    # ------------------------------------------------------------- showing
    def fit_to_screen(self, available: QRect | None = None) -> None:
        """Size the window to :data:`PREFERRED_SIZE`, or to ``available`` where that is smaller, and centre it there.

        ``available`` defaults to the available geometry of the window's screen
        (without task bars and panels). The window's frame, once the window
        manager has drawn it, is counted in.
        """
        area = available if available is not None else self.screen().availableGeometry()
        extra = self.frameGeometry().size() - self.geometry().size() if self.isVisible() else QSize(0, 0)
        size = PREFERRED_SIZE.boundedTo(area.size() - extra)
        self.resize(size)
        size = self.size()  # no smaller than the window's minimum size
        self.move(
            area.x() + max(0, (area.width() - size.width() - extra.width()) // 2),
            area.y() + max(0, (area.height() - size.height() - extra.height()) // 2),
        )

    def keep_on_screen(self, available: QRect | None = None) -> None:
        """Shrink and move the window back inside ``available`` (default: its screen's) where it sticks out.

        A restored geometry saved on a larger screen, the frame the window
        manager adds, or docks shown for another solver can each push it out.
        """
        if self.isFullScreen():  # presentation mode: the whole screen, panels included, is the window's
            return
        area = available if available is not None else self.screen().availableGeometry()
        frame = self.frameGeometry()
        extra = frame.size() - self.geometry().size()
        size = self.size().boundedTo(area.size() - extra)
        if size != self.size():
            self.resize(size)
        w, h = self.width() + extra.width(), self.height() + extra.height()
        x = max(area.left(), min(frame.x(), area.x() + area.width() - w))
        y = max(area.top(), min(frame.y(), area.y() + area.height() - h))
        if (x, y) != (frame.x(), frame.y()):
            self.move(x, y)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._tabs_pending:
            self._tabs_pending = False
            self.view_host.group_tabs()
        if not event.spontaneous():
            QTimer.singleShot(0, self.keep_on_screen)  # the window manager's frame is known once shown

    # ------------------------------------------------------------- closing
    def open_compare(self, configs=None):
        """Open a :class:`~sudoku_lab_ui.compare_window.CompareWindow` on the lab's puzzle and seed: the lab's
        solver and parameters in the first pane, another solver in the second (None while no puzzle is loaded)."""
        from .compare_window import DEFAULT_SOLVERS, CompareWindow

        c = self.controller
        if c.puzzle is None:
            self.statusBar().showMessage("Load a puzzle first: the comparison runs on the lab's puzzle", 8000)
            return None
        if configs is None:
            other = next(n for n in DEFAULT_SOLVERS if n != c.solver_name)
            configs = [(c.solver_name, dict(c.params[c.solver_name])), (other, {})]
        win = CompareWindow(c.puzzle, configs, seed=c.seed, parent=self)
        self.compare_windows = [w for w in self.compare_windows if w.isVisible()] + [win]
        win.resize(min(1800, max(1200, self.width())), min(1000, max(800, self.height())))
        win.show()
        return win

    def closeEvent(self, event) -> None:
        for win in self.compare_windows:
            win.close()  # joins its panes' worker threads
        if self.export_dialog is not None:
            self.export_dialog.shutdown()  # an export going on is cancelled (it leaves no file)
        if self.grades_dialog is not None:
            self.grades_dialog.shutdown()  # grades going on are cancelled (the finished runs are kept)
        if self.batch_panel is not None:
            self.batch_panel.shutdown()  # a batch going on is cancelled (its finished runs are kept)
        self.controller.shutdown()
        if not self._gc_released:
            self._gc_released = True
            gui_gc.release()
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
            self.keep_on_screen()  # saved on another (larger) screen
        if st is not None and self.restoreState(st):
            self._tabs_pending = False  # the saved layout has its own tab groups
        # A saved layout must not show a view that does not apply to the solver.
        self.view_host.on_solver(registry()[self.controller.solver_name])

    def start(self, puzzle: Puzzle, session: Session | None = None, session_path: str = "") -> None:
        """Start the worker (it compiles kernels first) and check the first puzzle in the background.

        With ``session``, that session opens instead (its puzzle, algorithm, parameters, layout and run).
        """
        self.controller.start()
        QTimer.singleShot(0, self._size_docks)  # dock sizes only take once the window has its own
        if session is not None:
            QTimer.singleShot(0, lambda: self.open_loaded_session(session, session_path))
            return
        coll = puzzle.metadata.get("collection")
        if coll:
            self.puzzle_panel.select_collection(coll)
            self.puzzle_panel.select_puzzle(puzzle.name)
        QTimer.singleShot(0, lambda: self.controller.load_puzzle(puzzle))
