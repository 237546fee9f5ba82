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

from PySide6.QtCore import QByteArray, QEvent, QRect, QSettings, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHeaderView,
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

from . import exit_cleanup, gui_gc, screen_fit
from .board_panel import BoardPanel, describe_position
from .controller import Controller
from .edit_mode import EditMode
from .editor_keys import EditorKeys
from .params_panel import ParamsPanel
from .presentation import Presentation
from .puzzle_panel import PuzzlePanel
from .run_toolbar import UNTIL, RunToolbar, make_action
from .timeline import Timeline
from .view_host import ViewHost, make_dock
from .worker import WorkerState, phase_step_ui

__all__ = [
    "MainWindow",
    "UNTIL",
    "PREFERRED_SIZE",
    "reference_link",
    "RECENT_SESSIONS",
    "HISTORY_SAVE_DEFAULT_MAX",
    "KEEP_SECONDS",
]

#: File > Include the run's history (rewind) is on by default while the history's keyframes hold at most this
#: many bytes (50 MB); a choice made in the menu holds whatever the size.
HISTORY_SAVE_DEFAULT_MAX = 50_000_000
#: A run that has stepped this many seconds (Run and Step together) is worth keeping: choosing another algorithm or
#: puzzle asks first (Save session..., Discard, Cancel). So is a run with a parameter changed during it (a rerun
#: with the seed would not repeat that) and a run opened from a session file. Any other run is remade exactly, and
#: in moments, by choosing it again with the same seed: it is replaced without a question.
KEEP_SECONDS = 10.0
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


def _mid_phase(name: str, state) -> str:
    """The words for a keyframe taken after Step phase (", in the middle of EDA step 17 (next phase 3/4:
    update)"), else ""."""
    cls = registry().get(name)
    p = state.get("phase") if state is not None else None
    if cls is None or not isinstance(p, int) or isinstance(p, bool) or not 0 < p < len(cls.phases):
        return ""
    it = state.get("iteration")
    if not isinstance(it, int):
        return ""
    nxt = f"next phase {p + 1}/{len(cls.phases)}: {cls.phases[p].name}"
    return f", in the middle of {cls.iteration_name} {it + 1:,} ({nxt})"


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
        exit_cleanup.track(self)  # deleted before PySide's clean-up at exit (see exit_cleanup)
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
        # Enter or Esc in a box, Space in a number box, or any run action gives the keys back to the board.
        self.editor_keys = EditorKeys(self, self.board_panel.board, tb._toggle_run)
        tb.before_action = self.editor_keys.leave_editor
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
        self.keep_run_box: QMessageBox | None = None  #: the last "worth keeping" question asked
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
        self.puzzle_panel.table.setMinimumHeight(100)  # it scrolls; its buttons below must stay whole

    def _size_docks(self) -> None:
        """The first layout: side columns and the curves in proportion to the window, the rest to the board.

        On a small screen (1280 x 720, 1024 x 768) the views give way first, so the board stays the largest
        view; the puzzle dock gets the height its buttons need, the algorithm dock the rest of the column.
        """
        w, h = self.width(), self.height()
        side = [self.puzzle_dock, self.algo_dock]
        least = self.puzzle_panel.minimumSizeHint().width() + 12  # its row of buttons whole, and the dock's frame
        self.resizeDocks(side, [max(least, min(330, max(250, w // 4)))] * 2, Qt.Horizontal)
        puzzle = self.puzzle_dock.widget().least_size(self.puzzle_dock.width()).height() + 30  # and its title
        self.resizeDocks(side, [max(puzzle, min(380, h * 2 // 5)), max(200, h - puzzle)], Qt.Vertical)
        right = [
            d for d in self.view_docks.values() if self.dockWidgetArea(d) == Qt.RightDockWidgetArea and not d.isHidden()
        ]
        if right:
            self.resizeDocks(right[:1], [min(470, max(280, w * 3 // 10))], Qt.Horizontal)
        bottom = self.view_host.bottom_docks()
        if bottom:
            self.resizeDocks(bottom[:1], [min(330, max(180, h * 3 // 10))], Qt.Vertical)

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
        c.stepEnded.connect(self.board_panel.show_step)
        c.sessionOpened.connect(self._on_session_opened)
        c.sessionRestored.connect(self._on_session_restored)
        self.puzzle_panel.puzzleChosen.connect(self._choose_puzzle)
        self.solver_box.currentIndexChanged.connect(lambda i: self._choose_solver(self.solver_box.itemData(i)))
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
        """The status line of a run's end: a budget only when one was reached (a Step N that did its N
        iterations says nothing here; the line under the board says what they did)."""
        if reason not in ("solved", "failed", "max_iterations", "max_seconds", "stopped"):
            return
        prog = self.controller.latest
        cls = registry()[self.controller.solver_name]
        word = cls.iteration_name
        text = {
            "solved": "Solved!",
            "failed": "The solver gave up (its own stopping rule).",
            "max_iterations": f"Iteration budget reached: {self.until_value.value():,} {word}s (the Run box).",
            "max_seconds": "Time budget reached.",
            "stopped": "Stopped. Reset to start again.",
        }[reason]
        if reason == "failed" and prog is not None and cls.budget_param:
            budget = prog.snapshot.params.get(cls.budget_param)
            if isinstance(budget, int) and 0 < budget <= prog.snapshot.iteration:
                text = f"Iteration budget reached: {budget:,} {word}s ({cls.budget_param} = {budget}), not solved."
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
        """A puzzle from the browser, a file or the clipboard: checked, then loaded or opened in the editor.

        A run worth keeping (:meth:`run_worth_keeping`) is asked about first."""

        def load() -> None:
            if self.is_editing():
                self.edit_mode.leave()
            self.puzzle_panel.show_error(None)
            self.controller.load_puzzle(puzzle)

        def keep() -> None:  # the browser shows the puzzle of the run that stays (PgDown had moved it)
            current = self.controller.puzzle
            if current is not None and current.name:
                self.puzzle_panel.select_puzzle(current.name)

        self._unless_kept(f"Loading {puzzle.name or 'the puzzle'}", load, keep)

    def _choose_solver(self, name: str) -> None:
        """The algorithm box changed: the new solver, once a run worth keeping was asked about (Cancel keeps it)."""
        c = self.controller
        if name == c.solver_name:
            return

        def keep() -> None:  # the box shows the algorithm of the run that stays
            self.solver_box.blockSignals(True)
            self.solver_box.setCurrentIndex(self.solver_box.findData(c.solver_name))
            self.solver_box.blockSignals(False)

        self._unless_kept(f"Choosing {registry()[name].title}", lambda: c.set_solver(name), keep)

    # ---------------------------------------------------------- a run worth keeping
    def run_worth_keeping(self) -> str | None:
        """Why the current run is worth keeping, in words ("38 s of run time"), or None when it is not.

        The rule (:data:`KEEP_SECONDS`): a run past its start that has stepped at least that many seconds,
        or had a parameter changed during it, or was opened from a session file. A shorter run is remade
        exactly, and at once, by choosing it again with its seed.
        """
        c = self.controller
        prog = c.latest
        if prog is None or c.puzzle is None:
            return None
        s = prog.snapshot
        if s.iteration == 0 and not s.phase:
            return None
        if c.session_run is not None and c.session_run == c.run_number:
            return "it was opened from a session"
        info = c.timeline_info
        if info is not None and info.seconds >= KEEP_SECONDS:
            return f"{info.seconds:,.0f} s of run time"
        if any(e.kind == "param" for e in s.events):
            return "a parameter was changed during it"
        return None

    def _unless_kept(self, what: str, go, keep=None) -> None:
        """Do ``go()`` now, or, for a run worth keeping, once the user said so: Save session... (then ``go``),
        Discard (``go``) or Cancel (``keep()``: nothing changes). The question is window-modal, not blocking."""
        why = self.run_worth_keeping()
        if why is None:
            go()
            return
        c = self.controller
        s = c.latest.snapshot
        cls = registry()[s.solver]
        word = cls.iteration_name
        box = QMessageBox(QMessageBox.Question, "Sudoku Lab", "", QMessageBox.NoButton, self)
        box.setObjectName("keep_run_box")
        box.setText(
            f"The current run ({cls.title} on {s.puzzle.name or 'the puzzle'}, {word} {s.iteration:,}) is worth "
            f"keeping: {why}. {what} discards it."
        )
        box.setInformativeText("Save it as a session first (File > Open session brings it back), or discard it?")
        save = box.addButton("Save session...", QMessageBox.AcceptRole)
        save.setObjectName("keep_run_save")
        discard = box.addButton("Discard", QMessageBox.DestructiveRole)
        discard.setObjectName("keep_run_discard")
        cancel = box.addButton(QMessageBox.Cancel)
        cancel.setObjectName("keep_run_cancel")
        box.setDefaultButton(save)
        box.setEscapeButton(cancel)

        def answered(button) -> None:
            if button is save:
                path = self._ask_session_path()
                if path:
                    self.save_session(path)  # the worker takes the keyframe before the reset that follows
                    go()
                    return
            elif button is discard:
                go()
                return
            if keep is not None:
                keep()

        box.buttonClicked.connect(answered)
        box.setWindowModality(Qt.WindowModal)
        self.keep_run_box = box
        box.open()

    def _ask_session_path(self) -> str:
        """A session file to save to, asked for ("" when cancelled)."""
        path, _ = QFileDialog.getSaveFileName(self, "Save session", f"session{SUFFIX}", _SESSION_FILTER)
        if path and not Path(path).suffix:
            path += SUFFIX
        return path

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
            QTimer.singleShot(0, self, self.keep_on_screen)

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
        L["iteration"].setText(describe_position(registry().get(s.solver), s, prog.phase))
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
        """Help > Keyboard shortcuts: every key of the window's actions, in a dialog that fits its screen."""
        dlg = QDialog(self)
        dlg.setObjectName("shortcuts_dialog")
        dlg.setWindowTitle("Keyboard shortcuts")
        lay = QVBoxLayout(dlg)
        rows = self.shortcut_rows()
        table = QTableWidget(len(rows), 2)
        table.setObjectName("shortcuts_table")
        table.setHorizontalHeaderLabels(["Key", "Action"])
        table.verticalHeader().hide()
        for r, (key, what) in enumerate(rows):
            table.setItem(r, 0, QTableWidgetItem(key))
            table.setItem(r, 1, QTableWidgetItem(what))
            table.item(r, 1).setToolTip(what)
        table.setEditTriggers(QTableWidget.NoEditTriggers)
        table.setWordWrap(True)
        # The keys as wide as they are; the actions take the rest of the width and wrap (a fixed 520 px dialog
        # cut the long ones mid-word).
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.Stretch)
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        lay.addWidget(table, 1)
        for text in (
            "In edit mode: arrows move, 1-9 / A-P type a given, 0 . Delete clear it.",
            "In presentation mode Esc leaves it (and does not stop the run).",
        ):
            note = QLabel(text)
            note.setWordWrap(True)
            lay.addWidget(note)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(dlg.reject)
        lay.addWidget(buttons)
        fm = table.fontMetrics()
        pad = 4 * fm.averageCharWidth()
        keys = max((fm.horizontalAdvance(k) for k, _ in rows), default=0) + pad
        actions = max((fm.horizontalAdvance(w) for _, w in rows), default=0) + pad
        lines = len(rows) * (fm.lineSpacing() + 8) + header.sizeHint().height()
        preferred = QSize(keys + actions + 60, lines + 8 * fm.lineSpacing())
        screen_fit.fit_window(dlg, preferred.boundedTo(QSize(1400, 1000)), anchor=self)
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
        ui = self.session_ui()
        shown = self._last_progress
        if state is not None and state.get("phase") and shown is not None and shown.phase is not None:
            snap = shown.snapshot  # the phase step on screen, if it is the saved moment's (its caption, its marks)
            if (snap.solver, snap.iteration, snap.phase) == (state["solver"], state["iteration"], state["phase"]):
                ui["phase_step"] = phase_step_ui(shown.phase)
        session = Session(
            puzzle=puzzle,
            solver=name,
            params=params,
            seed=seed,
            state=state,
            events=tuple(state["events"]) if state is not None else (),
            ui=ui,
            history=history if state is not None else None,
        )
        try:
            save_session(path, session)
        except SudokuLabError as e:
            self._on_error(f"Could not save the session: {e}")
            return
        self._add_recent(path)
        at = f" at iteration {session.iteration:,}{_mid_phase(name, state)}" if state is not None else ""
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
            prog.snapshot if prog is not None else None,
            self.controller.seed,
            view or self.current_view(),
            worker_state=self.controller.state,  # the provenance says paused, running, solved...
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
        if not self.controller.open_session(session, path):
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
        line = f"Opened {name}: paused at iteration {session.iteration:,}{_mid_phase(session.solver, session.state)}"
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
        """Size the window to :data:`PREFERRED_SIZE`, or to ``available`` less the window manager's frame where
        that is smaller, and centre it there.

        ``available`` defaults to the available geometry of the window's screen
        (without task bars and panels). The frame is the window manager's once it
        has drawn it, else :data:`~sudoku_lab_ui.screen_fit.ASSUMED_FRAME`; when
        the real frame becomes known (the window is shown), the window is fitted
        again with it, unless it was given a geometry of its own meanwhile
        (:meth:`restore_layout`).
        """
        self._auto_geometry = True
        self._fitted_frame = screen_fit.frame_margins(self)
        screen_fit.fit_window(self, PREFERRED_SIZE, available=available)

    def keep_on_screen(self, available: QRect | None = None) -> None:
        """Shrink and move the window back inside ``available`` (default: its screen's) where it sticks out.

        A restored geometry saved on a larger screen, the frame the window
        manager adds, or docks shown for another solver can each push it out.
        """
        if self.isFullScreen() or self._presenting():  # the whole screen, panels included, is the window's
            return
        self._fitted_frame = screen_fit.frame_margins(self)
        screen_fit.keep_inside(self, available)

    def _presenting(self) -> bool:
        """True in presentation mode (full screen may be granted a moment after it is asked for)."""
        presentation = getattr(self, "presentation", None)
        return presentation is not None and presentation.active

    def _frame_known(self) -> None:
        """The window manager's frame may have changed (shown, reparented): fit the window with it."""
        if not self.isVisible() or self.isFullScreen() or self.isMaximized() or self._presenting():
            return
        frame = screen_fit.frame_margins(self)
        if frame == getattr(self, "_fitted_frame", None):
            return
        if getattr(self, "_auto_geometry", False):
            self.fit_to_screen()
        else:
            self.keep_on_screen()

    def moveEvent(self, event) -> None:
        super().moveEvent(event)
        # The window manager's frame arrives with a move (reparenting), some time after the show.
        QTimer.singleShot(0, self, self._frame_known)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        # Docks shown for another solver, or a layout restored (leaving presentation mode), can make the
        # window larger than its screen: back inside it. (A window the user moves partly off the screen
        # stays where it is put.)
        QTimer.singleShot(0, self, self._no_larger_than_screen)

    def _no_larger_than_screen(self) -> None:
        if not self.isVisible() or self.isFullScreen() or self.isMaximized() or self._presenting():
            return
        room = screen_fit.usable_area(self).size()
        if self.width() > room.width() or self.height() > room.height():
            self.keep_on_screen()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._tabs_pending:
            self._tabs_pending = False
            self.view_host.group_tabs()
        if not event.spontaneous():
            # The window manager's frame becomes known some time after the show (a reparent that need not
            # move the window, then the window mapped and exposed): look for it then, and fit the window to it.
            handle = self.windowHandle()
            if handle is not None and not getattr(self, "_watching_expose", False):
                self._watching_expose = True
                handle.installEventFilter(self)
            for ms in (0, 200, 1000):
                QTimer.singleShot(ms, self, self._frame_known)

    def eventFilter(self, obj, event) -> bool:
        if obj is self.windowHandle() and event.type() == QEvent.Type.Expose:
            QTimer.singleShot(0, self, self._frame_known)
        return super().eventFilter(obj, event)

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
        screen_fit.fit_window(win, QSize(1800, 1000), anchor=self)
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
            self._auto_geometry = False  # the user's own size and place, kept (within the screen)
            self.keep_on_screen()  # saved on another (larger) screen
        if st is not None and self.restoreState(st):
            self._tabs_pending = False  # the saved layout has its own tab groups
        # A saved layout must not show a view that does not apply to the solver.
        self.view_host.on_solver(registry()[self.controller.solver_name])

    def set_first_run(self, seed: int | None, params: dict) -> None:
        """Before :meth:`start`: the first run's seed (None: the default) and parameters of the selected algorithm
        (checked values), as ``sudoku-lab gui --seed 1 --alpha 0.5`` gives them; the Seed box and the form show them."""
        c = self.controller
        if seed is not None:
            c.seed = int(seed)
            self.seed_box.blockSignals(True)
            self.seed_box.setValue(c.seed)
            self.seed_box.blockSignals(False)
        if params:
            c.params[c.solver_name].update(params)
            c.paramsChanged.emit(c.current_params())

    def start(self, puzzle: Puzzle, session: Session | None = None, session_path: str = "") -> None:
        """Start the worker (it compiles kernels first) and check the first puzzle in the background.

        With ``session``, that session opens instead (its puzzle, algorithm, parameters, layout and run).
        """
        self.controller.start()
        QTimer.singleShot(0, self, self._size_docks)  # dock sizes only take once the window has its own
        if session is not None:
            QTimer.singleShot(0, self, lambda: self.open_loaded_session(session, session_path))
            return
        coll = puzzle.metadata.get("collection")
        if coll:
            self.puzzle_panel.select_collection(coll)
            self.puzzle_panel.select_puzzle(puzzle.name)
        QTimer.singleShot(0, self, lambda: self.controller.load_puzzle(puzzle))
