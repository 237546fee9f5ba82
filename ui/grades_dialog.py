"""Run > Correctness grades...: the RESEDA paper's Figure 4.2 for any solver, made in the window.

The dialog asks for a solver and its parameters (the same form the window generates from the solver's declarations),
the puzzle (the window's by default), the number of runs, the dialog's limit per run (beside which it says the
solver's own budget and which of the two stops a run), the first seed, the grade thresholds, where the runs go
(worker processes on this machine, or a Dask scheduler's address) and the results directory (by default a new one in
the per-user data directory, :func:`sudoku_lab.engine.places.results_home`, never the current directory). Before
Run, the line under the bar says what Run will do and where the runs will be saved. Run hands all of it to
:func:`sudoku_lab.analysis.grades.correctness_grades`, the function under ``sudoku-lab grades``, in a thread of its
own: the runs go to the experiment engine's worker processes (or the cluster), every finished run is saved at once
in the results directory, and the grid is redrawn from the finished runs as they come in. Cancel stops with every
finished run kept there (Run again with the same settings resumes). The grid is the figures module's
:func:`~sudoku_lab.analysis.figures.grade_figure`: grade letters, cells shaded by fraction correct and, on
``reseda_fig4_1_hard``, the paper's own grid beside ours with the cells that differ outlined in red. Under it: the
successes with their 95 % interval (Clopper-Pearson, :func:`sudoku_lab.analysis.stats.clopper_pearson`, as
``sudoku-lab report`` gives it).

Open results... grades the runs of an existing results directory
(:func:`~sudoku_lab.analysis.grades.grades_from_results`, as ``sudoku-lab grades --from``). Export... writes the
same files as ``sudoku-lab grades --out FIGURE --latex``: the figure (.png, .svg or .pdf), FIGURE's .grades.csv,
.grades.json and .tex. The window computes nothing itself: every number comes from the core.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from PySide6.QtCore import QMargins, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from sudoku_lab.analysis import figures
from sudoku_lab.analysis.grades import MAX_RUNS, GradeResult, agreement, correctness_grades, grades_from_results
from sudoku_lab.analysis.stats import clopper_pearson
from sudoku_lab.engine.experiments import config_label, default_jobs
from sudoku_lab.engine.places import folder_name, results_home
from sudoku_lab.engine.results import load_results
from sudoku_lab.errors import ParameterError, SudokuLabError
from sudoku_lab.files import check_writable, write_text
from sudoku_lab.model import library
from sudoku_lab.model.puzzle import Puzzle
from sudoku_lab.model.resolve import resolve_puzzle
from sudoku_lab.solvers import get_solver_class, registry
from sudoku_lab.solvers.base import DEFAULT_SEED

from . import screen_fit
from .background import Task, TaskDialog, show_count, show_idle
from .params_panel import ParamsPanel

__all__ = ["GradesDialog", "PAPER_PUZZLE", "grade_letters"]

#: The dialog's size where the screen has room for it (else the screen's available area, frame counted).
PREFERRED_SIZE = QSize(1280, 760)

#: The puzzle of the RESEDA paper's Figure 4.1, whose grades (Figure 4.2) are drawn beside ours.
PAPER_PUZZLE = "reseda_fig4_1_hard"
#: Default budget of each run, in iterations (``sudoku-lab grades``' default stopping rule is solved,100000it).
DEFAULT_BUDGET = 100_000
#: Fewest milliseconds between two redraws of the live grid (a redraw takes a few tens of ms).
REDRAW_MS = 250


def grade_letters(fig) -> np.ndarray:
    """The grade letters a :func:`~sudoku_lab.analysis.figures.grade_figure` draws in its first panel, (N, N) str.

    Read back from the figure's text artists (bold letters centred in their cells), so a test can check the
    drawing itself, not only the numbers behind it.
    """
    ax = fig.axes[0]
    N = int(round(ax.get_xlim()[1]))
    out = np.full((N, N), "", dtype="<U1")
    for t in ax.texts:
        if t.get_fontweight() in ("bold", 700) and t.get_text() in ("A", "B"):
            x, y = t.get_position()
            out[int(y), int(x)] = t.get_text()
    return out


class GradesDialog(TaskDialog):
    """The Correctness grades dialog of one window (see the module docstring).

    Cancel (or closing the dialog) stops the runs: every finished run stays in the results directory (Run
    again resumes).

    Attributes
    ----------
    result : GradeResult or None
        The grades shown (of a run under way: its finished runs).
    figure : matplotlib.figure.Figure or None
        The figure the grid shows, drawn by :func:`~sudoku_lab.analysis.figures.grade_figure`.
    results_path : Path or None
        The results directory of the grades shown.

    Signals
    -------
    gradesFinished(object)
        A run of the grades ended (also cancelled): its GradeResult; None when it failed (the reason is in
        :attr:`status`).
    """

    gradesFinished = Signal(object)
    CANCELLING = "Cancelling: the finished runs are kept..."

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("grades_dialog")
        self.setWindowTitle("Correctness grades")
        self.result: GradeResult | None = None
        self.figure = None
        self.results_path: Path | None = None
        self._window_puzzle: Puzzle | None = None
        self._params: dict = {}
        self._pending: GradeResult | None = None  # the newest partial grades not drawn yet
        self._last_draw = 0.0
        self._asked = 0  # runs asked for by the run under way
        # progress: (runs finished, runs in all); partial: the GradeResult of the runs finished so far;
        # finished: (the GradeResult, cancelled)
        self._job = Task("grades", "Grades", "Cannot run: ", self)
        self._job.runningChanged.connect(self._set_running)
        self._job.progress.connect(self._on_progress)
        self._job.partial.connect(self._on_partial)
        self._job.finished.connect(self._on_finished)
        self._job.failed.connect(self._on_failed)
        self._redraw_timer = QTimer(self)
        self._redraw_timer.setSingleShot(True)
        self._redraw_timer.timeout.connect(self._draw_pending)

        # ------------------------------------------------------------ the form
        self.solver_box = QComboBox()
        self.solver_box.setObjectName("grades_solver")
        for name, cls in registry().items():
            self.solver_box.addItem(cls.title, name)
        self.params_panel = ParamsPanel()
        self.params_panel.setObjectName("grades_params")
        self.params_panel.edited.connect(self._on_param_edited)
        self.solver_box.currentIndexChanged.connect(lambda _i: self._on_solver(self.solver_name))
        self.puzzle_edit = QLineEdit()
        self.puzzle_edit.setObjectName("grades_puzzle")
        self.puzzle_edit.setToolTip(
            "A bundled puzzle's name, a file or the puzzle's text (needs one solution); the window's by default"
        )
        self.runs_box = QSpinBox()
        self.runs_box.setObjectName("grades_runs")
        self.runs_box.setRange(0, MAX_RUNS)
        self.runs_box.setValue(100)
        self.runs_box.setToolTip("R seeded runs (the paper used 100)")
        self.budget_box = QSpinBox()
        self.budget_box.setObjectName("grades_budget")
        self.budget_box.setRange(1, 2**31 - 1)
        self.budget_box.setValue(DEFAULT_BUDGET)
        self.budget_box.setSingleStep(1000)
        self.budget_box.setSuffix(" iterations")
        self.budget_box.setGroupSeparatorShown(True)
        # Said beside it: the solver's own budget (a parameter) and which of the two stops a run.
        self.budget_note = QLabel("")
        self.budget_note.setObjectName("grades_budget_note")
        self.budget_note.setWordWrap(True)
        self.seed_box = QSpinBox()
        self.seed_box.setObjectName("grades_seed")
        self.seed_box.setRange(0, 2**31 - 1)
        self.seed_box.setValue(DEFAULT_SEED)
        self.seed_box.setToolTip("Run i uses seed SEED + i")
        self.a_box = _fraction_box("grades_a", 1.0, "Grade A: right in at least this fraction of the runs")
        self.b_box = _fraction_box("grades_b", 0.9, "Grade B: right in at least this fraction of the runs")
        thresholds = QHBoxLayout()
        thresholds.addWidget(QLabel("A"))
        thresholds.addWidget(self.a_box)
        thresholds.addWidget(QLabel("B"))
        thresholds.addWidget(self.b_box)
        thresholds.addStretch(1)
        self.jobs_box = QSpinBox()
        self.jobs_box.setObjectName("grades_jobs")
        self.jobs_box.setRange(1, max(1, default_jobs()))
        self.jobs_box.setValue(max(1, default_jobs()))
        self.jobs_box.setToolTip("Worker processes on this machine (1: a thread of the lab's own process)")
        self.scheduler_edit = QLineEdit()
        self.scheduler_edit.setObjectName("grades_scheduler")
        self.scheduler_edit.setPlaceholderText("none: worker processes here (or tcp://host:8786, local:N)")
        self.scheduler_edit.setToolTip("A Dask scheduler's address, or local:N for a local cluster of N workers")
        self.results_edit = QLineEdit()
        self.results_edit.setObjectName("grades_results")
        home = results_home(create=False)
        self.results_edit.setPlaceholderText(
            f"empty: a new folder in {home}" if home is not None else "choose a folder (no per-user data folder)"
        )
        self.results_edit.setToolTip(
            "Every finished run is saved here at once; the same settings again resume it (more runs add to it). "
            "Empty: a new folder grades-PUZZLE-SOLVER-TIME.runs in the per-user data folder "
            "($XDG_DATA_HOME/sudoku-lab/results, else ~/.local/share/sudoku-lab/results)"
        )
        self._auto: tuple[tuple, Path] | None = None  # (settings, folder): the new folder of the settings shown
        browse = QPushButton("Browse...")
        browse.clicked.connect(self._browse_results)
        results_row = QHBoxLayout()
        results_row.addWidget(self.results_edit, 1)
        results_row.addWidget(browse)

        form = QFormLayout()
        form.addRow("Solver:", self.solver_box)
        form.addRow("Puzzle:", self.puzzle_edit)
        form.addRow("Runs:", self.runs_box)
        form.addRow("Limit per run:", self.budget_box)
        form.addRow("", self.budget_note)
        form.addRow("First seed:", self.seed_box)
        form.addRow("Thresholds:", _wrap(thresholds))
        form.addRow("Worker processes:", self.jobs_box)
        form.addRow("Dask scheduler:", self.scheduler_edit)
        form.addRow("Results directory:", _wrap(results_row))
        params_scroll = QScrollArea()
        params_scroll.setWidgetResizable(True)
        params_scroll.setWidget(self.params_panel)
        params_scroll.setMinimumHeight(160)
        left = QVBoxLayout()
        left.addLayout(form)
        left.addWidget(QLabel("Parameters:"))
        left.addWidget(params_scroll, 1)

        # ------------------------------------------------------------ the grid
        self.grid_label = QLabel("No grades yet: Run, or Open results...")
        self.grid_label.setObjectName("grades_grid")
        self.grid_label.setAlignment(Qt.AlignCenter)
        self.grid_label.setMinimumSize(420, 360)
        self.grid_label.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.grid_label.setStyleSheet("background: white;")
        self._image: QImage | None = None
        self.summary = QLabel("")
        self.summary.setObjectName("grades_summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.summary.setMinimumHeight(3 * self.summary.fontMetrics().lineSpacing() + 4)
        right = QVBoxLayout()
        right.addWidget(self.grid_label, 1)
        right.addWidget(self.summary)

        body = QHBoxLayout()
        body.addLayout(left, 2)
        body.addLayout(right, 5)

        self.progress_bar = QProgressBar()
        self.progress_bar.setObjectName("grades_progress")
        _ready_bar(self.progress_bar, text="Ready")  # said in full once the form is filled
        self.status = QLabel("")
        self.status.setObjectName("grades_status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextSelectableByMouse)

        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("grades_run")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("grades_cancel")
        self.cancel_button.setToolTip("Stop: every finished run stays in the results directory")
        self.cancel_button.clicked.connect(self.cancel)
        self.open_button = QPushButton("Open results...")
        self.open_button.setObjectName("grades_open")
        self.open_button.clicked.connect(lambda: self.open_results())
        self.export_button = QPushButton("Export...")
        self.export_button.setObjectName("grades_export")
        self.export_button.setToolTip("The figure (.png, .svg, .pdf) and the grades as CSV, JSON and LaTeX")
        self.export_button.clicked.connect(lambda: self.export())
        self.close_button = QPushButton("Close")
        self.close_button.clicked.connect(self.close)
        self.techniques_box = QCheckBox("Techniques")
        self.techniques_box.setObjectName("grades_techniques")
        self.techniques_box.setToolTip(
            "Colour each cell by the technique its placement needs when the puzzle is solved by human techniques, "
            "and give Spearman's rho between the fraction of correct runs and the technique's rank "
            "(`sudoku-lab rate --grades`)"
        )
        self.techniques_box.toggled.connect(self._redraw)
        self._rating = None  # (puzzle, Rating) of the techniques shown
        buttons = QHBoxLayout()
        for b in (self.open_button, self.export_button, self.techniques_box):
            buttons.addWidget(b)
        buttons.addStretch(1)
        for b in (self.run_button, self.cancel_button, self.close_button):
            buttons.addWidget(b)

        lay = QVBoxLayout(self)
        lay.addLayout(body, 1)
        lay.addWidget(self.progress_bar)
        lay.addWidget(self.status)
        lay.addLayout(buttons)
        self._on_solver(self.solver_name)
        self._set_running(False)
        # Any setting Run takes: the line under the bar says again what Run will do.
        self.puzzle_edit.textChanged.connect(self._settings_changed)
        self.results_edit.textChanged.connect(self._settings_changed)
        for box in (self.runs_box, self.budget_box, self.seed_box, self.jobs_box):
            box.valueChanged.connect(self._settings_changed)
        self.scheduler_edit.textChanged.connect(self._settings_changed)
        self._settings_changed()
        screen_fit.fit_window(self, PREFERRED_SIZE, anchor=parent)

    # ------------------------------------------------------------ settings
    @property
    def solver_name(self) -> str:
        return str(self.solver_box.currentData())

    def set_defaults(self, puzzle: Puzzle | None, solver: str | None = None, params: dict | None = None) -> None:
        """Start from the window's puzzle, solver and parameters (not while grades are running)."""
        if self.running:
            return
        self._window_puzzle = puzzle
        self.puzzle_edit.setText(puzzle.name or puzzle.to_line() if puzzle is not None else PAPER_PUZZLE)
        if solver is not None:
            self.solver_box.blockSignals(True)
            self.solver_box.setCurrentIndex(self.solver_box.findData(solver))
            self.solver_box.blockSignals(False)
            self._on_solver(solver, params)

    def _on_solver(self, name: str, values: dict | None = None) -> None:
        cls = get_solver_class(name)
        self._params = dict(cls.defaults())
        self._params.update(values or {})
        self.params_panel.set_declarations(cls.params, self._params)
        self.budget_box.setSuffix(f" {cls.iteration_name}s")
        self._settings_changed()

    def _on_param_edited(self, name: str, value) -> None:
        self._params[name] = value
        self._settings_changed()

    # ------------------------------------------------------------ what Run will do
    def own_budget(self):
        """The solver's own budget parameter (a :class:`~sudoku_lab.solvers.Param`), or None if it has none: the
        one it declares as capping its iterations (``budget_param``), else a parameter named as a budget."""
        cls = get_solver_class(self.solver_name)
        name = getattr(cls, "budget_param", "") or next((p.name for p in cls.params if "budget" in p.name), "")
        return cls.param(name) if name else None

    def budget_text(self) -> tuple[str, str]:
        """The limit's tooltip and the note beside it: this dialog's limit and the solver's own budget, in the
        solver's words, and which of the two stops a run that is not solved."""
        cls = get_solver_class(self.solver_name)
        it, limit = cls.iteration_name, self.budget_box.value()
        tip = (
            f"This dialog's limit: each of the runs stops when solved or after {limit:,} {it}s in all, restarts "
            f"included (the stopping rule solved,{limit}it, as `sudoku-lab grades --until`). "
            f"{cls.title}'s own budget, a parameter under Parameters, applies within it."
        )
        own = self.own_budget()
        if own is None:
            return tip, f"{cls.title} has no budget of its own: this limit stops a run that is not solved."
        value = self._params.get(own.name, own.default)
        words = f"{cls.title}'s own {own.name} = {value:,} (under Parameters: “{own.help.rstrip('.')}”)"
        if own.name != getattr(cls, "budget_param", ""):  # a budget of part of a run (one restart's): both apply
            return tip, f"{words} applies within this limit."
        if value == 0 or value >= limit:
            return tip, f"This limit stops a run that is not solved first: {words}."
        return tip, f"{words} stops a run that is not solved first, at {value:,} {it}s: raise it to use this limit."

    def _settings(self) -> tuple:
        """What makes a grades experiment (the results directory's configuration): not the number of runs."""
        return (self.solver_name, config_label(self.solver_name, self.params()), self.puzzle_edit.text().strip(),
                self.until(), self.seed_box.value())  # fmt: skip

    def results_dir(self) -> Path | None:
        """Where Run saves the runs: the folder typed in, else a new one in :func:`results_home` for these
        settings (the same settings keep it, so Run again resumes), or None when there is no data folder."""
        text = self.results_edit.text().strip()
        if text:  # a relative folder is in the per-user data folder, as a new one is: never the current directory
            path = Path(text).expanduser()
            home = results_home(create=False)
            return path if path.is_absolute() else (home if home is not None else Path.home()) / path
        key = self._settings()
        if self._auto is None or self._auto[0] != key:
            home = results_home(create=False)  # made by Run, not by saying where the runs will go
            if home is None:
                return None
            stamp = time.strftime("%Y%m%d-%H%M%S")
            puzzle = self.puzzle_edit.text().strip()
            name = puzzle if len(puzzle) <= 40 else "puzzle"  # a puzzle's text is no folder name
            path = home / folder_name("grades", name, self.solver_name, stamp, suffix=".runs")
            k = 2
            while path.exists() or (self._auto is not None and path == self._auto[1]):  # other settings, same second
                path = home / folder_name("grades", name, self.solver_name, stamp, str(k), suffix=".runs")
                k += 1
            self._auto = (key, path)
        return self._auto[1]

    def ready_text(self) -> str:
        """What Run will do, said before it: how many runs of what on which puzzle, their seeds and limit, and
        the folder they go to."""
        cls = get_solver_class(self.solver_name)
        n, seed, limit = self.runs_box.value(), self.seed_box.value(), self.budget_box.value()
        where = self.results_dir()
        puzzle = self.puzzle_edit.text().strip() or "no puzzle yet"
        if len(puzzle) > 40:
            puzzle = puzzle[:37] + "..."
        on = self.scheduler_edit.text().strip() or f"{self.jobs_box.value()} worker process(es)"
        saved = (
            f"each finished run is saved in {where}"
            if where is not None
            else "choose a results directory: there is no per-user data folder to save them in"
        )
        return (
            f"Ready: Run does {n:,} run{'s' if n != 1 else ''} of {cls.title} on {puzzle} (seeds {seed:,} to "
            f"{seed + max(n, 1) - 1:,}), each until solved or {limit:,} {cls.iteration_name}s, on {on}; {saved}."
        )

    def _settings_changed(self, *_args) -> None:
        if self.running:
            return
        tip, note = self.budget_text()
        self.budget_box.setToolTip(tip)
        self.budget_note.setText(note)
        self.status.setText(self.ready_text())
        _ready_bar(self.progress_bar, self.runs_box.value())

    def params(self) -> dict:
        """The parameters the form sets away from their defaults (checked, with their relations, when Run is
        pressed), as ``sudoku-lab grades`` is given them: the results' configuration label is the same."""
        defaults = get_solver_class(self.solver_name).defaults()
        return {k: v for k, v in self._params.items() if defaults.get(k) != v}

    def puzzle(self) -> Puzzle:
        """The puzzle the field names: the window's when it shows its name, else read by the core's resolver."""
        text = self.puzzle_edit.text().strip()
        wp = self._window_puzzle
        if wp is not None and text in (wp.name, wp.to_line()):
            return wp
        if not text:
            raise ParameterError("name the puzzle to grade (a bundled name, a file or its text)", name="puzzle")
        return resolve_puzzle(text)

    def until(self) -> str:
        return f"solved,{self.budget_box.value()}it"

    def thresholds(self) -> tuple[float, float]:
        return (self.a_box.value(), self.b_box.value())

    # ------------------------------------------------------------ running
    def start(self) -> bool:
        """Check the settings (one line under the bar if one is wrong) and start the runs in their thread."""
        if self.running:
            return False
        try:
            puzzle = self.puzzle()
            scheduler = self.scheduler_edit.text().strip() or None
            if scheduler is not None:
                from sudoku_lab.engine.cluster import parse_scheduler

                parse_scheduler(scheduler)
            results = self.results_dir()
            # No folder typed in, and the per-user data folder cannot be made or written (a read-only home).
            if results is None or (not self.results_edit.text().strip() and results_home() is None):
                raise ParameterError(
                    "choose a results directory: there is no per-user data folder to save the runs in "
                    "(~/.local/share/sudoku-lab cannot be written)",
                    name="results",
                )
        except SudokuLabError as e:
            self.status.setText(f"Cannot run: {e}")
            return False
        kw = dict(
            solver=self.solver_name,
            params=self.params(),
            runs=self.runs_box.value(),
            seed=self.seed_box.value(),
            until=self.until(),
            thresholds=self.thresholds(),
            jobs=self.jobs_box.value(),
            results_file=results,
            scheduler=scheduler,
        )

        def work(task: Task) -> tuple[GradeResult, bool]:
            # A setting the core refuses, a results directory of another experiment: "Cannot run: ..."
            result = correctness_grades(
                puzzle,
                should_stop=task.should_stop,
                progress=lambda done, total: task.progress.emit((done, total)),
                on_run=task.partial.emit,
                **kw,
            )
            return result, task.cancelled

        self._asked = int(kw["runs"])  # type: ignore[call-overload]
        self.results_path = results
        self.result = None
        self.status.setText(
            (f"Starting {kw['jobs']} worker(s)..." if not scheduler else f"Reaching {scheduler}...")
            + f" The runs are saved in {results}"
        )
        self.progress_bar.setFormat("%v of %m runs")
        self.progress_bar.setRange(0, 0)  # busy until the first progress
        return self._job.start(work)

    def _on_progress(self, counts: tuple[int, int]) -> None:
        if not self.running:
            return
        done, total = counts
        show_count(self.progress_bar, done, total)
        self.status.setText(f"{done:,} of {total:,} runs finished, saved in {self.results_path}")

    def _on_partial(self, result: GradeResult) -> None:
        if not self.running:
            return
        self._pending = result
        wait = REDRAW_MS - (time.monotonic() - self._last_draw) * 1000
        if wait <= 0:
            self._draw_pending()
        elif not self._redraw_timer.isActive():
            self._redraw_timer.start(int(wait))

    def _draw_pending(self) -> None:
        result, self._pending = self._pending, None
        if result is not None:
            self.show_grades(result)

    def _on_finished(self, ended: tuple[GradeResult, bool]) -> None:
        result, cancelled = ended
        self._pending = None
        self.show_grades(result)
        show_count(self.progress_bar, result.runs_done, len(result.seeds))
        where = self.results_path
        if cancelled or not result.complete:
            self.status.setText(
                f"Cancelled after {result.runs_done:,} of {len(result.seeds):,} runs: the finished runs are kept in "
                f"{where} (Run again with the same settings to resume, or Open results...)"
            )
        else:
            self.status.setText(f"Done: {result.runs_done:,} runs, saved in {where}")
        self.gradesFinished.emit(result)

    def _on_failed(self, text: str) -> None:
        self.show_failure(text)
        self.gradesFinished.emit(None)

    def _set_running(self, running: bool) -> None:
        if not running:
            self._redraw_timer.stop()
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.open_button.setEnabled(not running)
        self.export_button.setEnabled(not running and self.result is not None and self.result.runs_done > 0)
        for w in (
            self.solver_box,
            self.params_panel,
            self.puzzle_edit,
            self.runs_box,
            self.budget_box,
            self.seed_box,
            self.a_box,
            self.b_box,
            self.jobs_box,
            self.scheduler_edit,
            self.results_edit,
        ):
            w.setEnabled(not running)

    # ------------------------------------------------------------ the grid
    def reference(self, puzzle: Puzzle) -> np.ndarray | None:
        """The paper's Figure 4.2 grades when ``puzzle`` is its Figure 4.1 puzzle, else None."""
        if puzzle.to_line() == library.puzzle(PAPER_PUZZLE).to_line():
            return library.reseda_fig4_2_grades()
        return None

    def make_figure(self, result: GradeResult):
        """The figure of ``result``: :func:`~sudoku_lab.analysis.figures.grade_figure`, with the paper's grid
        beside it on its puzzle (the figure ``sudoku-lab grades --compare paper`` draws); with Techniques
        checked, :func:`~sudoku_lab.analysis.figures.grade_technique_figure` (each cell coloured by the
        technique its placement needs)."""
        rating = self.rating(result.puzzle) if self.techniques_box.isChecked() else None
        if rating is not None:
            return figures.grade_technique_figure(result, cell_technique=rating.cell_technique)
        return figures.grade_figure(result, reference=self.reference(result.puzzle))

    def rating(self, puzzle: Puzzle):
        """The human-technique :class:`~sudoku_lab.exact.human.Rating` of ``puzzle`` (cached), or None if it has
        none (several solutions)."""
        from sudoku_lab.errors import PuzzleError
        from sudoku_lab.exact.human import rate

        if self._rating is None or self._rating[0] != puzzle:
            try:
                self._rating = (puzzle, rate(puzzle))
            except PuzzleError:
                self._rating = (puzzle, None)
        return self._rating[1]

    def _redraw(self, *_) -> None:
        if self.result is not None and self.result.runs_done > 0:
            self.show_grades(self.result)

    def show_grades(self, result: GradeResult) -> None:
        """Draw ``result``'s grid and say how many runs were solved, with the interval."""
        self.result = result
        self.figure = self.make_figure(result)
        self._image = _render(self.figure)
        self._last_draw = time.monotonic()
        self._fit_image()
        self.summary.setText(self.summary_text(result))
        self.export_button.setEnabled(not self.running and result.runs_done > 0)

    def summary_text(self, result: GradeResult) -> str:
        """Successes with their 95 % interval, the free cells' grades and, on the paper's puzzle, the agreement."""
        n, k = result.runs_done, result.successes
        if n == 0:
            return "No run has finished yet."
        lo, hi = clopper_pearson(k, n)
        free = result.grades[~result.puzzle.givens]
        text = (
            f"<b>{k:,} of {n:,} runs solved</b> ({100 * k / n:.0f} %, 95 % interval {100 * lo:.0f} to "
            f"{100 * hi:.0f} %, Clopper-Pearson as in <tt>sudoku-lab report</tt>). Free cells graded "
            f"A {int(np.sum(free == 'A'))}, B {int(np.sum(free == 'B'))}, blank {int(np.sum(free == ''))}. "
            f"{result.solver}, {result.until} per run."
        )
        rating = self.rating(result.puzzle) if self.techniques_box.isChecked() else None
        if rating is not None:
            from sudoku_lab.analysis.difficulty import technique_correlation

            rep = technique_correlation([result.fraction], [rating.cell_rank])
            rho = "undefined (one technique rank only)" if rep.rho[0] != rep.rho[0] else f"{rep.rho[0]:.3f}"
            p = "" if rep.p[0] != rep.p[0] else f", p = {rep.p[0]:.3g}"
            text += (
                f"<br>Techniques: {rating.grade} (HoDoKu score {rating.score}); Spearman's rho between the fraction "
                f"of correct runs and the technique's rank over the free cells: {rho}{p}."
            )
            return text
        ref = self.reference(result.puzzle)
        if ref is not None:
            ours = result.grade_grid()
            text += (
                f"<br>Agreement with the paper's Figure 4.2: {100 * agreement(ours, ref):.0f} % of cells; "
                f"{int(np.sum(ours != ref))} differ (outlined in red)."
            )
        return text

    def _fit_image(self) -> None:
        if self._image is None:
            return
        pix = QPixmap.fromImage(self._image)
        size = self.grid_label.size().shrunkBy(QMargins(2, 2, 2, 2))  # never wider than the label: no growth loop
        self.grid_label.setPixmap(pix.scaled(size, Qt.KeepAspectRatio, Qt.SmoothTransformation))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_image()

    # ------------------------------------------------------------ files
    def open_results(
        self, path: str | Path | None = None, puzzle: str | None = None, config: str | None = None
    ) -> bool:
        """Grade the runs of results directory ``path``, as ``sudoku-lab grades --from PATH [PUZZLE] [--config]``.

        With ``path`` None the directory is asked for, and when it holds several puzzles or configurations the
        one to grade is asked for too; otherwise such a directory is one line naming them (choose with
        ``puzzle`` and ``config``). False, with one line under the bar, if nothing was opened.
        """
        if self.running:
            return False
        interactive = path is None
        if path is None:
            path = QFileDialog.getExistingDirectory(self, "Open results directory", str(_start_folder()))
            if not path:
                return False
        rows: list | None = None
        while True:
            try:
                result = grades_from_results(str(path), puzzle=puzzle, config=config, thresholds=self.thresholds())
                break
            except ParameterError as e:
                several = (e.name == "puzzle" and puzzle is None) or (e.name == "config" and config is None)
                if not (interactive and several):
                    self.status.setText(f"Cannot open {path}: {e}")
                    return False
                if rows is None:
                    rows = load_results(str(path)).rows()
                choice = self._ask_which(rows, str(e.name), puzzle)
                if choice is None:
                    self.status.setText(f"Not opened: {e}")
                    return False
                if e.name == "puzzle":
                    puzzle = choice
                else:
                    config = choice
            except SudokuLabError as e:
                self.status.setText(f"Cannot open {path}: {e}")
                return False
        self.results_path = Path(path)
        self.show_grades(result)
        _ready_bar(self.progress_bar, None, f"{result.runs_done:,} runs opened")
        what = f"{config or result.solver} on {result.puzzle.name or 'the puzzle'}"
        self.status.setText(f"Opened {path}: {result.runs_done:,} runs of {what}")
        return True

    def _ask_which(self, rows: list, what: str, puzzle: str | None) -> str | None:
        """Ask which puzzle (or configuration, among the chosen puzzle's runs) of the results to grade."""
        if what == "puzzle":
            options = sorted({r["puzzle"] or r["givens"] for r in rows})
        else:
            options = sorted({r["config"] for r in rows if puzzle is None or puzzle in (r["puzzle"], r["givens"])})
        choice, ok = QInputDialog.getItem(
            self, "Open results", f"The results hold {len(options)} {what}s. Grade the runs of:", options, 0, False
        )
        return str(choice) if ok and choice else None

    def export(self, path: str | Path | None = None, dpi: int = 200) -> list[Path]:
        """Write what ``sudoku-lab grades --out PATH --latex`` writes for the grades shown; the files written.

        ``path`` is the figure (.png, .svg or .pdf; asked for when None); next to it go PATH's .grades.csv,
        .grades.json and .tex. Nothing is written (one line under the bar) if a file cannot be.
        """
        result = self.result
        if result is None or result.runs_done == 0:
            self.status.setText("Nothing to export yet: no run has finished")
            return []
        if path is None:
            name = f"grades-{result.puzzle.name or 'puzzle'}-{result.solver}.pdf"
            chosen, _ = QFileDialog.getSaveFileName(
                self,
                "Export grades",
                str(_start_folder(self.results_path) / name),
                "PDF (*.pdf);;SVG (*.svg);;PNG (*.png)",
            )
            if not chosen:
                return []
            path = chosen if Path(chosen).suffix else chosen + ".pdf"
        try:
            out = figures.check_figure_path(path, dpi)
            tables = [out.with_suffix(".grades.csv"), out.with_suffix(".grades.json"), out.with_suffix(".tex")]
            for p in tables:
                check_writable(p)
            figures.save(self.make_figure(result), out, dpi=dpi)
            result.save_csv(tables[0])
            result.save_json(tables[1])
            write_text(tables[2], result.to_latex(caption=result.summary()))
        except SudokuLabError as e:
            self.status.setText(f"Cannot export: {e}")
            return []
        written = [out, *tables]
        self.status.setText("Wrote " + ", ".join(str(p) for p in written))
        return written

    def _browse_results(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Results directory", str(_start_folder()))
        if path:
            self.results_edit.setText(path)


def _ready_bar(bar: QProgressBar, runs: int | None = None, text: str | None = None) -> None:
    """The progress bar before Run: empty, saying what Run will do ("Ready: 100 runs"), never "0 of 1 runs"."""
    show_idle(bar)
    bar.setFormat(text if text is not None else f"Ready: {runs:,} run{'s' if runs != 1 else ''}")


def _start_folder(near: Path | None = None) -> Path:
    """Where a file dialog opens: beside the results shown, else the per-user results folder, else home."""
    if near is not None and near.parent.is_dir():
        return near.parent
    home = results_home()
    return home if home is not None else Path.home()


def _render(fig) -> QImage:
    """``fig`` drawn by matplotlib's Agg renderer, as a QImage (a copy: the buffer is the canvas's)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    fig.set_dpi(110)
    canvas.draw()
    buf = np.asarray(canvas.buffer_rgba())
    h, w = buf.shape[:2]
    return QImage(buf.tobytes(), w, h, 4 * w, QImage.Format_RGBA8888).copy()


def _fraction_box(name: str, value: float, tip: str) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setObjectName(name)
    box.setRange(0.0, 1.0)
    box.setDecimals(2)
    box.setSingleStep(0.05)
    box.setValue(value)
    box.setToolTip(tip)
    return box


def _wrap(layout) -> QWidget:
    w = QWidget()
    layout.setContentsMargins(0, 0, 0, 0)
    w.setLayout(layout)
    return w
