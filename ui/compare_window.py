"""Compare side by side: two to four solvers, or configurations of one, on one puzzle in lockstep.

Each pane has its own solver (registry name and parameters), its own worker thread (a
:class:`~sudoku_lab_ui.worker.SolverWorker`, as the lab's), a board and one of the solver's views
(chosen in the pane, from the views that apply to it). The panes share the puzzle, the seed (paired:
the same seed in every pane, or seed + pane number) and one set of run controls: Run/Pause, Step
(one lockstep chunk), Reset and Stop. One plot overlays every pane's best cost on a shared axis of
iterations, evaluations or seconds.

The lockstep (:class:`~sudoku_lab_ui.lockstep.Lockstep`): panes advance in chunks to one target
iteration, evaluation count or running time; a pane that reached it waits until every other pane
still running has, so a slow solver holds the others back by one chunk at most, and the window's
event loop never waits for any (the workers run in their threads; the window polls their newest
frames at 30 Hz). A pane's run is the same run the lab or ``sudoku-lab solve`` makes with that
seed: the chunks only decide where it pauses.

Nothing here computes a statistic: the panes show the solvers' own snapshots.
"""

from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QThread, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from sudoku_lab.errors import ParameterError
from sudoku_lab.model import library
from sudoku_lab.solvers import get_solver_class, registry
from sudoku_lab.solvers.base import Status

from . import exit_cleanup, gui_gc
from .lockstep import MODES, UNITS, Lockstep, position, termination
from .params_panel import ParamsPanel
from .views import views_for
from .widgets import theme
from .widgets.board import BoardView
from .widgets.flow import FlowLayout
from .worker import SolverWorker, WorkerState

__all__ = ["ComparePane", "CompareWindow", "DEFAULT_SOLVERS", "PANE_COLOURS", "SEEDING"]

#: The solvers of the panes when the window opens with no configuration (after the lab's own).
DEFAULT_SOLVERS = ("reseda", "hill_climb", "ga", "cuckoo")
#: One colour per pane: its title, its curve on the shared plot.
PANE_COLOURS = (theme.BLUE, theme.VERMILLION, theme.GREEN, theme.PURPLE)
#: Seeds of the panes: label, and the offset pane ``i`` adds to the seed (0: paired, the same seed).
SEEDING = (("same seed in every pane", 0), ("seed + pane number", 1))
#: Default chunk of the lockstep per mode (iterations, evaluations, milliseconds).
DEFAULT_CHUNKS = {"iterations": 100, "evaluations": 10_000, "seconds": 250}
#: Most bytes each pane's run history (keyframes) may hold: four panes share the lab's memory.
PANE_MEMORY = 50_000_000
#: Seconds between two redraws of a pane's view, and of the shared plot.
VIEW_INTERVAL = 0.1
PLOT_INTERVAL = 0.15
_LETTERS = "ABCD"
_MODE_LABELS = {"iterations": "by iteration", "evaluations": "by evaluation", "seconds": "by time"}
_AXIS_LABELS = {"iterations": "iteration", "evaluations": "cost evaluations", "seconds": "seconds of running"}


class ComparePane(QFrame):
    """One solver of the comparison: its worker thread, board, chosen view and status line.

    Signals
    -------
    ended(int, str)
        The pane's run request ended (its index, the reason), its last frame taken.
    configChanged(int)
        The user changed the pane's solver or a parameter that needs a reset.
    """

    ended = Signal(int, str)
    configChanged = Signal(int)

    def __init__(self, index: int, name: str, params: dict | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.index = index
        self.colour = PANE_COLOURS[index % len(PANE_COLOURS)]
        self.solver_name = name
        self.params: dict = dict(params or {})
        self.latest = None  #: the newest Progress taken from the worker
        self.state = WorkerState.IDLE
        self.busy = False  #: a run request was sent and has not ended
        self.error = ""
        self.out = False  #: out of the lockstep although not finished (a solver counting no evaluations)
        self.seconds_done = 0.0  #: seconds spent in the stepping loop by the ended runs since the reset
        self._run_elapsed = 0.0
        self.samples: list[tuple[int, int, float]] = []  #: (iteration, evaluations, seconds) of frames taken
        self.seed = 0
        self._awaiting_reset = False
        self._view = None
        self._view_key = None
        self._view_drawn = 0.0
        self.setFrameShape(QFrame.StyledPanel)
        self.setObjectName(f"compare_pane_{index}")

        self.title = QLabel(f"<b>{_LETTERS[index]}</b>")
        self.title.setStyleSheet(f"color: {self.colour}; font-size: 14pt;")
        self.solver_box = QComboBox()
        for key, cls in registry().items():
            if cls.stochastic:
                self.solver_box.addItem(cls.title, key)
        self.solver_box.setCurrentIndex(max(0, self.solver_box.findData(name)))
        self.solver_box.setToolTip("This pane's solver (the comparison resets)")
        self.params_button = QPushButton("Parameters...")
        self.params_button.setToolTip("This pane's parameters (a change resets the comparison)")
        self.view_box = QComboBox()
        self.view_box.setToolTip("The view this pane shows beside its board")
        for box in (self.solver_box, self.view_box):  # as wide as the pane allows, not as their longest item
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(10)
        self.status = QLabel()
        self.status.setObjectName("pane_status")
        self.status.setStyleSheet("color: #333;")
        head = QHBoxLayout()
        head.setContentsMargins(4, 2, 4, 2)
        head.addWidget(self.title)
        head.addWidget(self.solver_box, 1)
        head.addWidget(self.params_button)
        head.addWidget(QLabel("View"))
        head.addWidget(self.view_box, 1)
        self.board = BoardView()
        self.board.setMinimumSize(220, 220)
        self.board.set_overlay("conflicts", True)
        self.body = QSplitter(Qt.Horizontal)
        self.body.addWidget(self.board)
        self.body.setChildrenCollapsible(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.setSpacing(2)
        lay.addLayout(head)
        lay.addWidget(self.params_note())
        lay.addWidget(self.body, 1)
        lay.addWidget(self.status)

        self.worker = SolverWorker()
        self.worker.set_memory_limit(PANE_MEMORY)
        self._thread = QThread()
        self._thread.setObjectName(f"sudoku-lab compare pane {_LETTERS[index]}")
        self.worker.moveToThread(self._thread)
        self._thread.started.connect(self.worker.loop)
        self.worker.runEnded.connect(self._on_run_ended)
        self.worker.stateChanged.connect(self._on_state)
        self.worker.error.connect(self._on_error)
        self._thread.start()
        self._alive = True

        self.solver_box.currentIndexChanged.connect(self._on_solver_box)
        self.view_box.currentIndexChanged.connect(self._on_view_box)
        self.params_button.clicked.connect(self.edit_params)
        self._fill_views()

    def params_note(self) -> QLabel:
        """The line under the pane's title: its parameters that differ from the defaults."""
        self.note = QLabel()
        self.note.setObjectName("pane_params")
        self.note.setStyleSheet("color: #555;")
        self.note.setWordWrap(True)
        self._update_note()
        return self.note

    def _update_note(self) -> None:
        cls = get_solver_class(self.solver_name)
        changed = {k: v for k, v in self.params.items() if cls.defaults().get(k) != v}
        self.note.setText(", ".join(f"{k}={v}" for k, v in changed.items()) or "default parameters")

    # ------------------------------------------------------------ configuration
    @property
    def solver_class(self):
        return get_solver_class(self.solver_name)

    def full_params(self) -> dict:
        """The solver's defaults with this pane's changes."""
        return {**self.solver_class.defaults(), **self.params}

    def set_config(self, name: str, params: dict | None = None) -> None:
        """Set the pane's solver and parameters (refused with ParameterError if they are not valid)."""
        cls = get_solver_class(name)
        merged = {**cls.defaults(), **(params or {})}
        for key, value in (params or {}).items():
            merged[key] = cls.param(key).validate(value)
        cls.check_params(merged)
        self.solver_name = name
        self.params = {k: merged[k] for k in (params or {})}
        self.solver_box.blockSignals(True)
        self.solver_box.setCurrentIndex(max(0, self.solver_box.findData(name)))
        self.solver_box.blockSignals(False)
        self._update_note()
        self._fill_views()

    def _on_solver_box(self, i: int) -> None:
        name = self.solver_box.itemData(i)
        if name and name != self.solver_name:
            self.solver_name = name
            self.params = {}
            self._update_note()
            self._fill_views()
            self.configChanged.emit(self.index)

    def edit_params(self) -> QDialog:
        """A dialog with the solver's parameter form; a change is checked, kept and resets the comparison."""
        dlg = QDialog(self)
        dlg.setWindowTitle(f"Pane {_LETTERS[self.index]}: {self.solver_class.title}")
        panel = ParamsPanel()
        cls = self.solver_class
        panel.set_declarations(cls.params, self.full_params())

        def edited(name: str, value) -> None:
            try:
                merged = {**self.full_params(), name: cls.param(name).validate(value)}
                cls.check_params(merged)
            except ParameterError as e:
                panel.show_error(str(e))
                panel.set_values(self.full_params())
                return
            panel.show_error(None)
            self.params[name] = merged[name]
            self._update_note()
            self.configChanged.emit(self.index)

        panel.edited.connect(edited)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(dlg.reject)
        lay = QVBoxLayout(dlg)
        lay.addWidget(panel)
        lay.addWidget(buttons)
        dlg.params_panel = panel  # type: ignore[attr-defined]
        dlg.show()
        return dlg

    # ------------------------------------------------------------------- view
    def _fill_views(self) -> None:
        cls = self.solver_class
        specs = views_for(cls)
        keep = self._view_key
        self.view_box.blockSignals(True)
        self.view_box.clear()
        for spec in specs:
            self.view_box.addItem(spec.title, spec.key)
        keys = [s.key for s in specs]
        # The solver's own view (its probability model, nests, population...) first; else its curves.
        own = [k for k in keys if k not in ("convergence", "ac3", "runs")]
        pick = keep if keep in keys else (own[0] if own else "convergence")
        self.view_box.setCurrentIndex(max(0, self.view_box.findData(pick)))
        self.view_box.blockSignals(False)
        self._on_view_box(self.view_box.currentIndex())

    def _on_view_box(self, i: int) -> None:
        key = self.view_box.itemData(i)
        if key is None or (key == self._view_key and self._view is not None):
            return
        spec = next(s for s in views_for(self.solver_class) if s.key == key)
        if self._view is not None:
            self._view.hide()
            self._view.setParent(None)
            self._view.deleteLater()
        view = spec.factory(None)
        self._view, self._view_key = view, key
        self.body.addWidget(view)
        self.body.setStretchFactor(0, 2)
        self.body.setStretchFactor(1, 3)
        self._share_body()
        if hasattr(view, "on_solver"):
            view.on_solver(self.solver_class)
        puzzle = self.board.puzzle()
        if puzzle is not None:
            view.on_puzzle(puzzle)
        if self.latest is not None and self.latest.snapshot.solver == self.solver_name:
            view.on_progress(self.latest)

    #: The board's share of the pane's width (the view has the rest): a splitter sized by its widgets' hints
    #: gave a word-wrapped text view (hill climbing's state) one or two words of width.
    BOARD_SHARE = 0.4

    def _share_body(self) -> None:
        """Board and view side by side in :data:`BOARD_SHARE` proportions (once the pane has its width)."""
        width = self.body.width()
        if width < 50 or self._view is None:  # not laid out yet: the resize does it
            self._body_shared = False
            return
        board = max(self.board.minimumWidth(), int(width * self.BOARD_SHARE))
        self.body.setSizes([board, max(1, width - board - self.body.handleWidth())])
        self._body_shared = True

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if not getattr(self, "_body_shared", False) or event.oldSize().width() != event.size().width():
            QTimer.singleShot(0, self, self._share_body)  # after the layout has given the splitter its width

    @property
    def view(self):
        """The view widget shown beside the board."""
        return self._view

    @property
    def view_key(self) -> str | None:
        return self._view_key

    # ---------------------------------------------------------------- running
    def reset(self, puzzle, seed: int) -> None:
        """Start the pane's solver again on ``puzzle`` with ``seed`` (its worker warms its kernels first)."""
        self.latest = None
        self.error = ""
        self.out = False
        self.seconds_done = 0.0
        self._run_elapsed = 0.0
        self.samples = []
        self.seed = int(seed)
        self._awaiting_reset = True
        if self.board.puzzle() is not puzzle:
            self.board.set_puzzle(puzzle)
        if self._view is not None:
            if hasattr(self._view, "on_solver"):
                self._view.on_solver(self.solver_class)
            self._view.on_puzzle(puzzle)
        self.worker.request_reset(self.solver_name, self.full_params(), puzzle, self.seed)
        self._show_status()

    def run(self, term) -> None:
        """Run under the stopping rule ``term`` (one lockstep chunk); :attr:`ended` says when it is over."""
        self.busy = True
        self._run_elapsed = 0.0
        self.worker.request_run(term)

    def pause(self) -> None:
        if self.busy:
            self.worker.request_pause()

    def stop(self) -> None:
        self.worker.request_stop()

    @property
    def ready(self) -> bool:
        """The reset's first frame is in and the worker is idle."""
        return not self._awaiting_reset and self.latest is not None and self.state == WorkerState.IDLE

    @property
    def finished(self) -> bool:
        """The solver solved the puzzle or gave up by its own rule, or the pane was stopped or failed."""
        if self.error or self.state == WorkerState.STOPPED:
            return True
        return self.latest is not None and self.latest.snapshot.status in Status.DONE

    @property
    def seconds(self) -> float:
        """Seconds spent in the stepping loop since the reset (the run under way included)."""
        return self.seconds_done + (self._run_elapsed if self.busy else 0.0)

    def position(self, mode: str) -> float | None:
        """The pane's measure for lockstep ``mode``, or None when it is out of the lockstep."""
        if self.latest is None or self.finished or self.out:
            return None
        return position(mode, self.latest.snapshot, self.seconds)

    def poll(self) -> bool:
        """Take the worker's newest frame and draw the board (the view at most every VIEW_INTERVAL); True if new."""
        prog, _info = self.worker.take_frame()
        if prog is None:
            return False
        s = prog.snapshot
        if self._awaiting_reset:
            if s.iteration != 0 or s.solver != self.solver_name:
                return False  # a frame of the run the reset interrupted
            self._awaiting_reset = False
        if self.busy:
            self._run_elapsed = prog.elapsed
        self.latest = prog
        self.samples.append((s.iteration, s.evaluations, self.seconds))
        if self.board.puzzle() is s.puzzle or self.board.puzzle() == s.puzzle:
            self.board.set_grid(s.grid, s.fixed)
        self._show_status()
        now = time.monotonic()
        if self._view is not None and (now - self._view_drawn >= VIEW_INTERVAL or not self.busy):
            self._view_drawn = now
            self._view.on_progress(prog)
        return True

    def draw_view(self) -> None:
        """Draw the latest frame in the view now (the last frame of a run, a screenshot)."""
        if self._view is not None and self.latest is not None:
            self._view.on_progress(self.latest)

    def _show_status(self) -> None:
        cls = self.solver_class
        if self.error:
            self.status.setText(f"<span style='color:#b00020'>{self.error}</span>")
            return
        p = self.latest
        if p is None:
            self.status.setText(f"seed {self.seed}: {self.state}...")
            return
        s = p.snapshot
        what = {Status.SOLVED: "solved", Status.FAILED: "gave up"}.get(s.status, self.state)
        if self.out:
            what = "counts no evaluations: out of the lockstep"
        self.status.setText(
            f"seed {self.seed} | {cls.iteration_name} {s.iteration:,} | {s.evaluations:,} evaluations | "
            f"{self.seconds:.2f} s | cost {s.cost} (best {s.best_cost}) | {what}"
        )

    @Slot(str, bool)
    def _on_state(self, state: str, _at_start: bool) -> None:
        self.state = state
        self._show_status()

    @Slot(str)
    def _on_run_ended(self, reason: str) -> None:
        self.poll()
        if self.busy:
            self.seconds_done += self._run_elapsed
            self._run_elapsed = 0.0
            self.busy = False
        if reason == "no_evaluations":
            self.out = True
        self.draw_view()
        self._show_status()
        self.ended.emit(self.index, reason)

    @Slot(str)
    def _on_error(self, text: str) -> None:
        self.error = text
        self._show_status()

    def shutdown(self) -> None:
        """Stop the worker and join its thread."""
        if not self._alive:
            return
        self._alive = False
        self.worker.request_quit()
        self._thread.quit()
        self._thread.wait()


class CompareWindow(QMainWindow):
    """Two to four solvers, or configurations of one, side by side on one puzzle, in lockstep.

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle to start with (the lab's current one).
    configs : list of (str, dict), optional
        Solver name and parameters of each pane (2 to 4); default two panes from :data:`DEFAULT_SOLVERS`.
    seed : int
        The seed of every pane (paired).
    parent : QWidget, optional
        The lab window: this one is a separate top-level window it closes with.

    Attributes
    ----------
    panes : list of ComparePane
    lockstep : Lockstep
    run_button, step_button, reset_button, stop_button : QPushButton
        The one set of run controls.
    """

    stateChanged = Signal(bool)  #: the comparison runs (True) or not

    def __init__(self, puzzle, configs=None, seed: int = 0, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowFlag(Qt.Window, True)
        self.setWindowTitle("Compare side by side - Sudoku Lab")
        self.setAttribute(Qt.WA_DeleteOnClose, False)
        gui_gc.acquire(self)
        exit_cleanup.track(self)  # deleted before PySide's clean-up at exit (see exit_cleanup)
        self._gc_released = False
        if configs is None:
            configs = [(n, {}) for n in DEFAULT_SOLVERS[:2]]
        configs = [(c, {}) if isinstance(c, str) else (c[0], dict(c[1])) for c in configs]
        if not 1 <= len(configs) <= 4:  # one pane: the baseline of `sudoku-lab bench gui --panes`
            raise ParameterError(f"compare one to four panes, got {len(configs)}", name="panes")
        self.puzzle = puzzle
        self.panes: list[ComparePane] = []
        self.running = False
        self._stepping = False
        self._step_sent = False
        self._started_at = 0.0
        self.wall_seconds = 0.0  #: wall time the comparison has run (Run to finished or paused), summed
        self.lockstep = Lockstep("iterations", DEFAULT_CHUNKS["iterations"])
        self._plot_drawn = 0.0
        self._build_controls(seed)
        self._grid_host = QWidget()
        self._grid = QGridLayout(self._grid_host)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setSpacing(4)
        self.plot = pg.PlotWidget(background=theme.PLOT["background"])
        self.plot.setObjectName("compare_plot")
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setLabel("left", "best cost")
        self.legend = self.plot.addLegend(offset=(-10, 10))
        self.curves: list = []
        split = QSplitter(Qt.Vertical)
        split.addWidget(self._grid_host)
        split.addWidget(self.plot)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        self.plot.setMinimumHeight(170)
        central = QWidget()
        lay = QVBoxLayout(central)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self._controls)
        lay.addWidget(split, 1)
        self.setCentralWidget(central)
        self.target_label = QLabel()
        self.statusBar().addPermanentWidget(self.target_label)
        for name, params in configs:
            self._add_pane(name, params)
        self.pane_count.blockSignals(True)
        self.pane_count.setValue(len(self.panes))
        self.pane_count.blockSignals(False)
        self._timer = QTimer(self)
        self._timer.setInterval(33)
        self._timer.timeout.connect(self.poll)
        self._timer.start()
        self._set_axis_label()
        self.reset()

    # ----------------------------------------------------------------- building
    def _build_controls(self, seed: int) -> None:
        bar = self._controls = QWidget()
        row = FlowLayout(bar)
        row.setContentsMargins(2, 2, 2, 2)
        self.puzzle_box = QComboBox()
        names = [self.puzzle.name or "the lab's puzzle"]
        for n in ("reseda_fig4_1_hard", "reseda_fig3_1_easy", "ai_escargot", "mk_hard_a", "kennett_hard_007"):
            if n not in names:
                names.append(n)
        for n in names:
            self.puzzle_box.addItem(n)
        self.puzzle_box.setToolTip("The puzzle every pane solves (the lab's puzzle first)")
        self.pane_count = QSpinBox()
        self.pane_count.setRange(1, 4)
        self.pane_count.setToolTip("How many solvers side by side (one: a baseline)")
        self.mode_box = QComboBox()
        for mode in MODES:
            self.mode_box.addItem(_MODE_LABELS[mode], mode)
        self.mode_box.setToolTip(
            "Lockstep: the panes advance in chunks to the same iteration, evaluation count or running time; "
            "a pane waits only for the slowest to reach the shared target"
        )
        self.chunk_box = QSpinBox()
        self.chunk_box.setRange(1, 10_000_000)
        self.chunk_box.setValue(DEFAULT_CHUNKS["iterations"])
        self.chunk_box.setToolTip("How far the shared target moves each time every pane reached it (Step: one chunk)")
        self.limit_box = QDoubleSpinBox()
        self.limit_box.setDecimals(0)
        self.limit_box.setRange(0, 1e12)
        self.limit_box.setSpecialValueText("until solved")
        self.limit_box.setToolTip("Where the comparison ends (0: when every solver finished)")
        self.seeding_box = QComboBox()
        for label, _ in SEEDING:
            self.seeding_box.addItem(label)
        self.seeding_box.setToolTip("Paired seeds: the same seed in every pane, or seed + pane number")
        self.seed_box = QSpinBox()
        self.seed_box.setRange(0, 2**31 - 1)
        self.seed_box.setValue(int(seed))
        self.seed_box.setKeyboardTracking(False)
        self.seed_box.setToolTip("The seed of run i: Reset starts every pane again with it")
        self.run_button = QPushButton("Run")
        self.run_button.setToolTip("Run the panes in lockstep, or pause them")
        self.step_button = QPushButton("Step")
        self.step_button.setToolTip("Advance every pane by one lockstep chunk")
        self.reset_button = QPushButton("Reset")
        self.reset_button.setToolTip("Start every pane again from the puzzle with its seed")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("End the comparison's runs (Reset to start again)")
        # Each label with its box, the buttons together, wrapping onto a second row on a small screen (one row
        # of them made the window 1,470 px wide at least, wider than a 1366 or 1024 px screen).
        groups = (
            (QLabel("Puzzle"), self.puzzle_box),
            (QLabel("Panes"), self.pane_count),
            (QLabel("Lockstep"), self.mode_box),
            (QLabel("chunk"), self.chunk_box),
            (QLabel("end at"), self.limit_box),
            (QLabel("Seeds"), self.seeding_box, self.seed_box),
            (self.run_button, self.step_button, self.reset_button, self.stop_button),
        )
        for group in groups:
            holder = QWidget()
            line = QHBoxLayout(holder)
            line.setContentsMargins(0, 0, 6, 0)
            for w in group:
                line.addWidget(w)
            row.addWidget(holder)
        self.puzzle_box.currentIndexChanged.connect(self._on_puzzle_box)
        self.pane_count.valueChanged.connect(self.set_pane_count)
        self.mode_box.currentIndexChanged.connect(self._on_mode_box)
        self.chunk_box.valueChanged.connect(lambda _v: self._on_lockstep_changed())
        self.limit_box.valueChanged.connect(lambda _v: self._on_lockstep_changed())
        self.seeding_box.currentIndexChanged.connect(lambda _i: self.reset())
        self.seed_box.valueChanged.connect(lambda _v: self.reset())
        self.run_button.clicked.connect(self.toggle_run)
        self.step_button.clicked.connect(self.step)
        self.reset_button.clicked.connect(self.reset)
        self.stop_button.clicked.connect(self.stop)

    def _add_pane(self, name: str, params: dict) -> ComparePane:
        i = len(self.panes)
        pane = ComparePane(i, name, params)
        pane.set_config(name, params)
        pane.ended.connect(self._on_pane_ended)
        pane.configChanged.connect(lambda _i: self.reset())
        self.panes.append(pane)
        self._place_panes()
        curve = self.plot.plot([], [], pen=pg.mkPen(pane.colour, width=2), name=self._curve_name(pane))
        self.curves.append(curve)
        return pane

    def _curve_name(self, pane: ComparePane) -> str:
        return f"{_LETTERS[pane.index]}: {pane.solver_class.title.split(' (')[0]}"

    def _place_panes(self) -> None:
        cols = 2
        for i, pane in enumerate(self.panes):
            self._grid.addWidget(pane, i // cols, i % cols)

    def set_pane_count(self, n: int) -> None:
        """Show ``n`` panes (1 to 4): new ones get the next default solver; the comparison resets."""
        n = max(1, min(4, int(n)))
        self._halt()
        while len(self.panes) < n:
            used = {p.solver_name for p in self.panes}
            name = next((s for s in DEFAULT_SOLVERS if s not in used), DEFAULT_SOLVERS[0])
            self._add_pane(name, {})
        while len(self.panes) > n:
            pane = self.panes.pop()
            pane.shutdown()
            self._grid.removeWidget(pane)
            pane.setParent(None)
            pane.deleteLater()
            curve = self.curves.pop()
            self.plot.removeItem(curve)
            self.legend.removeItem(curve)
        if self.pane_count.value() != n:
            self.pane_count.blockSignals(True)
            self.pane_count.setValue(n)
            self.pane_count.blockSignals(False)
        self.reset()

    def configure(self, configs, mode: str | None = None, chunk: float | None = None, limit: float | None = None):
        """Set the panes' solvers and parameters (and the lockstep), then reset: as the controls would."""
        configs = [(c, {}) if isinstance(c, str) else (c[0], dict(c[1])) for c in configs]
        self.pane_count.blockSignals(True)
        self.set_pane_count(len(configs))
        self.pane_count.blockSignals(False)
        for pane, (name, params) in zip(self.panes, configs):
            pane.set_config(name, params)
        for w, value in ((self.chunk_box, chunk), (self.limit_box, limit)):
            if value is not None:
                w.blockSignals(True)
                w.setValue(value)
                w.blockSignals(False)
        if mode is not None:
            self.mode_box.blockSignals(True)
            self.mode_box.setCurrentIndex(MODES.index(mode))
            self.mode_box.blockSignals(False)
        self._on_lockstep_changed()

    # ----------------------------------------------------------------- settings
    @property
    def mode(self) -> str:
        return self.mode_box.currentData()

    def _on_mode_box(self, _i: int) -> None:
        self.chunk_box.blockSignals(True)
        self.chunk_box.setValue(DEFAULT_CHUNKS[self.mode])
        self.chunk_box.blockSignals(False)
        self._on_lockstep_changed()

    def _on_lockstep_changed(self) -> None:
        mode = self.mode
        self.chunk_box.setSuffix(" ms" if mode == "seconds" else "")
        self.limit_box.setSuffix(" s" if mode == "seconds" else f" {UNITS[mode]}")
        self._set_axis_label()
        self.reset()

    def _set_axis_label(self) -> None:
        self.plot.setLabel("bottom", _AXIS_LABELS[self.mode])

    def _make_lockstep(self) -> Lockstep:
        mode = self.mode
        chunk = self.chunk_box.value() / 1000 if mode == "seconds" else self.chunk_box.value()
        limit = self.limit_box.value() or None
        return Lockstep(mode, chunk, limit)

    def _on_puzzle_box(self, i: int) -> None:
        name = self.puzzle_box.itemText(i)
        if i > 0 or self.puzzle.name != name:
            self.puzzle = library.puzzle(name)
        self.reset()

    def seed_of(self, index: int) -> int:
        """The seed of pane ``index``: the seed box's, plus the pane number when seeds are offset."""
        return self.seed_box.value() + SEEDING[self.seeding_box.currentIndex()][1] * index

    # ----------------------------------------------------------------- controls
    def reset(self) -> None:
        """Start every pane again from the puzzle with its seed; the lockstep starts at 0."""
        self._halt()
        self.lockstep = self._make_lockstep()
        self.wall_seconds = 0.0
        for pane, curve in zip(self.panes, self.curves):
            pane.reset(self.puzzle, self.seed_of(pane.index))
            curve.setData([], [])
            curve.opts["name"] = self._curve_name(pane)
        self._refresh_legend()
        self._update_buttons()
        self._update_target()

    def _refresh_legend(self) -> None:
        self.legend.clear()
        for curve in self.curves:
            self.legend.addItem(curve, curve.opts["name"])

    @property
    def ready(self) -> bool:
        """Every pane has its reset's first frame and an idle worker."""
        return all(p.ready for p in self.panes)

    def toggle_run(self) -> None:
        """Run (the lockstep to its end) or pause."""
        if self.running:
            self.pause()
        else:
            self.run()

    def run(self) -> None:
        self._start(stepping=False)

    def step(self) -> None:
        """One lockstep chunk: every pane to the next shared target (or to the current one, after a pause)."""
        if not self.running:
            self._start(stepping=True)

    def _start(self, stepping: bool) -> None:
        if self.running or self.lockstep.finished:
            return
        self.running = True
        self._stepping = stepping
        self._step_sent = False
        self._started_at = time.perf_counter()
        self._update_buttons()
        self._advance()

    def pause(self) -> None:
        """Stop sending chunks and interrupt the runs under way (Run goes on from there)."""
        if not self.running:
            return
        self._set_running(False)
        for pane in self.panes:
            pane.pause()

    def stop(self) -> None:
        """End every pane's run (Reset starts again)."""
        self._halt()
        for pane in self.panes:
            pane.stop()
        self.lockstep.finished = True
        self._update_buttons()

    def _halt(self) -> None:
        if self.running:
            self._set_running(False)
            for pane in self.panes:
                pane.pause()

    def _set_running(self, running: bool) -> None:
        if self.running and not running:
            self.wall_seconds += time.perf_counter() - self._started_at
        self.running = running
        self._update_buttons()
        self.stateChanged.emit(running)

    def _update_buttons(self) -> None:
        self.run_button.setText("Pause" if self.running else "Run")
        over = self.lockstep.finished
        self.run_button.setEnabled(self.running or not over)
        self.step_button.setEnabled(not self.running and not over)
        self.stop_button.setEnabled(not over)

    def _positions(self) -> list[float | None]:
        return [p.position(self.mode) for p in self.panes]

    def _advance(self) -> None:
        """Send the panes their next runs when none is busy (a pane waits only for the slowest)."""
        if not self.running or any(p.busy for p in self.panes):
            return
        if not all(p.ready or p.finished or p.out for p in self.panes):
            QTimer.singleShot(50, self, self._advance)  # a reset still under way (kernels loading)
            return
        positions = self._positions()
        if self._stepping and self._step_sent and all(p is None or self.lockstep.reached(p) for p in positions):
            self._set_running(False)
            self._update_target()
            return
        plan = self.lockstep.plan(positions)
        self._update_target()
        if not plan:
            self._set_running(False)
            self._draw_plot()
            self.statusBar().showMessage("The comparison is over: every pane reached the end or finished", 8000)
            return
        self._step_sent = True
        for i, amount in plan.items():
            self.panes[i].run(termination(self.mode, amount))

    def _on_pane_ended(self, index: int, reason: str) -> None:
        self._advance()

    def _update_target(self) -> None:
        ls = self.lockstep
        target = f"{ls.target:.2f} s" if ls.mode == "seconds" else f"{ls.target:,} {UNITS[ls.mode]}"
        end = "" if ls.limit is None else f" of {ls.limit:,}"
        self.target_label.setText(f"lockstep target: {target}{end}" + (" (over)" if ls.finished else ""))

    # ------------------------------------------------------------------ drawing
    def poll(self) -> None:
        """Take every pane's newest frame (timer slot); redraw the shared plot at most every PLOT_INTERVAL."""
        new = False
        for pane in self.panes:
            new = pane.poll() or new
        now = time.monotonic()
        if new and now - self._plot_drawn >= PLOT_INTERVAL:
            self._draw_plot()

    def curve_data(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        """The shared plot's points of pane ``index``: (x in the lockstep's measure, best cost).

        Iterations come from the solver's trace; evaluations and seconds are placed on them by the frames
        the window took (their iteration, evaluations and seconds), linearly in between.
        """
        pane = self.panes[index]
        if pane.latest is None:
            return np.zeros(0), np.zeros(0)
        trace = pane.latest.snapshot.trace
        its = np.asarray(trace.get("iteration", ()), dtype=float)
        best = np.asarray(trace.get("best_cost", trace.get("cost", ())), dtype=float)
        if its.size == 0 or best.size != its.size:
            return np.zeros(0), np.zeros(0)
        if self.mode == "iterations":
            return its, best
        samples = np.asarray([(0, 0, 0.0), *pane.samples], dtype=float)
        column = 1 if self.mode == "evaluations" else 2
        order = np.argsort(samples[:, 0], kind="stable")
        return np.interp(its, samples[order, 0], samples[order, column]), best

    def _draw_plot(self) -> None:
        self._plot_drawn = time.monotonic()
        for i, curve in enumerate(self.curves):
            x, y = self.curve_data(i)
            curve.setData(x, y)

    # ------------------------------------------------------------------ closing
    def shutdown(self) -> None:
        """Stop every pane's worker and join its thread."""
        self._timer.stop()
        self.running = False
        for pane in self.panes:
            pane.shutdown()
        if not self._gc_released:
            self._gc_released = True
            gui_gc.release()

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)


def screenshot(app, out, timeout: float = 3600):
    """``docs/screenshot-compare.png``: RESEDA, hill climbing, GA and cuckoo search on ``ai_escargot``, seed 7,
    in lockstep by iteration (chunks of 500) to 3,000 iterations, the window at 1920 x 1080 (named shot
    ``compare`` of :mod:`sudoku_lab_ui.screenshots`)."""
    from pathlib import Path

    from .screenshots import _pump, _settle, save_grab

    win = CompareWindow(library.puzzle("ai_escargot"), list(DEFAULT_SOLVERS), seed=7)
    win.configure(list(DEFAULT_SOLVERS), mode="iterations", chunk=500, limit=3000)
    win.resize(1920, 1050)
    win.show()
    try:
        _pump(app, lambda: win.ready, timeout, "four panes ready")
        win.run_button.click()
        _pump(app, lambda: not win.running, timeout, "the end of the comparison")
        for pane in win.panes:
            pane.draw_view()
        win._draw_plot()
        _settle(app, 1.0)
        path = Path(out) / "screenshot-compare.png"
        save_grab(win, path)
    finally:
        win.close()
    return path
