"""Run > Batch experiment...: describe, run and read a small experiment without leaving the lab.

The panel describes an experiment as the TOML specification of ``sudoku-lab batch``
(:mod:`sudoku_lab.engine.spec`): a form (solvers and their parameter values, puzzle sets, runs, seed,
budget) writes the specification's text, which stays visible and editable, and is what runs. A
specification file or a results directory can be opened instead. Run hands the specification to the
experiment engine (:func:`sudoku_lab.engine.batch.run_spec`, in worker processes) from a thread of its
own, with a progress bar and Cancel; each finished run is in the results directory at once, so a
cancelled batch resumes where it stopped when it is run again, exactly as ``sudoku-lab batch`` does.
Before Run, the line under the bar says what Run will do (how many runs of what, and where they go) or
what is wrong with the specification. The results directory is the one chosen, else the specification's
``output`` (relative to its file), else ``NAME-results`` in the per-user data directory
(:func:`sudoku_lab.engine.places.results_home`): never the directory the lab was started from.

What the panel shows comes from the core: the table is the summary of ``sudoku-lab report``
(:func:`sudoku_lab.analysis.report.build_report`, cell by cell :func:`~sudoku_lab.analysis.report.summary_cells`),
refreshed as runs finish, and the figure is its run-length ECDF
(:func:`sudoku_lab.analysis.report.figure`, drawn by :mod:`sudoku_lab.analysis.figures`). The window
computes no statistic of its own. "Save specification..." writes the text, so the same experiment runs
headless with ``sudoku-lab batch FILE``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sudoku_lab.analysis.report import Report, build_report, figure, summary_cells
from sudoku_lab.engine.batch import default_output, run_spec
from sudoku_lab.engine.experiments import default_jobs
from sudoku_lab.engine.places import folder_name, results_home
from sudoku_lab.engine.results import load_results
from sudoku_lab.engine.spec import ExperimentSpec, parse_spec
from sudoku_lab.errors import SudokuLabError
from sudoku_lab.files import read_text, write_text
from sudoku_lab.solvers import get_solver_class, registry

from . import screen_fit
from .background import Task, TaskDialog, one_line, show_count, show_idle

__all__ = ["BatchPanel", "form_toml", "one_line"]

#: The dialog's size where the screen has room for it (else the screen's available area, frame counted).
PREFERRED_SIZE = QSize(1500, 900)

#: Seconds between two refreshes of the live table while runs finish (the last run always refreshes it).
REFRESH_SECONDS = 0.5


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value))  # a TOML basic string (JSON escapes are TOML escapes)


def _split_items(text: str) -> list[str]:
    """``a=1, b=[2,3]`` split at the commas outside brackets."""
    items, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "[") - (ch == "]")
        if ch == "," and depth <= 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    return [s.strip() for s in items if s.strip()]


def _param_values(solver: str, text: str) -> list[tuple[str, list]]:
    """``alpha=[0.5,0.7], restart=full`` as (key, values), each value typed by the solver's declaration.

    A value the declaration refuses (or an unknown key) is kept as written: the specification's
    check then names it, with the key, in one line.
    """
    try:
        cls = get_solver_class(solver)
    except SudokuLabError:
        cls = None
    out = []
    for item in _split_items(text):
        key, _, value = item.partition("=")
        key, value = key.strip(), value.strip()
        raw = [v.strip() for v in value[1:-1].split(",") if v.strip()] if value.startswith("[") else [value]
        values = []
        for v in raw:
            try:
                values.append(cls.param(key).validate(v) if cls is not None else v)
            except (SudokuLabError, KeyError, ValueError, TypeError):
                values.append(v)
        out.append((key or item, values))
    return out


def form_toml(
    *,
    name: str,
    solvers: list[tuple[str, str]],
    puzzles: list[tuple[str, int]],
    runs: int,
    seed: int,
    iterations: int,
    seconds: int,
) -> str:
    """The TOML specification of a form: solvers as (name, ``param=value`` text), puzzles as (set, sample or 0).

    ``param=[v1,v2]`` gives one configuration per value (as ``--algo`` does); ``iterations`` and
    ``seconds`` (0: no limit) make the budget ``until``.
    """
    budget = ["solved"] + ([f"{iterations}it"] if iterations else []) + ([f"{seconds}s"] if seconds else [])
    lines = []
    if name.strip():
        lines.append(f"name = {_toml_value(name.strip())}")
    lines += [f"runs = {runs}", f"seed = {seed}", f"until = {_toml_value(','.join(budget))}"]
    for source, sample in puzzles:
        lines += ["", "[[puzzles]]", f"set = {_toml_value(source.strip())}"]
        if sample:
            lines.append(f"sample = {sample}")
    for solver, params in solvers:
        lines += ["", "[[solvers]]", f"name = {_toml_value(solver)}"]
        items = _param_values(solver, params)
        if items:
            inner = ", ".join(
                f"{key} = "
                + (
                    "[" + ", ".join(_toml_value(v) for v in values) + "]"
                    if len(values) != 1
                    else _toml_value(values[0])
                )
                for key, values in items
            )
            lines.append(f"params = {{ {inner} }}")
    return "\n".join(lines) + "\n"


class _SolverRow(QWidget):
    """One solver of the form: its name and its parameter values (``alpha=[0.5,0.7], restart=full``)."""

    changed = Signal()

    def __init__(self, solver: str = "reseda", params: str = ""):
        super().__init__()
        self.combo = QComboBox()
        self.combo.addItems(list(registry()))
        self.combo.setCurrentText(solver)
        self.params = QLineEdit(params)
        self.params.setPlaceholderText("parameter values, e.g. alpha=[0.5,0.7], restart=full")
        self.params.setToolTip(
            "PARAM=VALUE, comma separated; PARAM=[V1,V2] gives one configuration per value (as `batch --algo`)"
        )
        self.remove = QPushButton("Remove")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.combo)
        lay.addWidget(self.params, 1)
        lay.addWidget(self.remove)
        self.combo.currentTextChanged.connect(self.changed)
        self.params.textEdited.connect(self.changed)

    def value(self) -> tuple[str, str]:
        return self.combo.currentText(), self.params.text()


class _PuzzleRow(QWidget):
    """One puzzle set of the form: a bundled collection or puzzle (or a file, or a puzzle's text) and a sample."""

    changed = Signal()

    def __init__(self, source: str = "reseda_fig3_1_easy", sample: int = 0, choices: list[str] | None = None):
        super().__init__()
        self.combo = QComboBox()
        self.combo.setEditable(True)
        self.combo.addItems(choices or [])
        self.combo.setCurrentText(source)
        self.combo.setToolTip("A bundled collection or puzzle, a puzzle file, or a puzzle's text")
        self.sample = QSpinBox()
        self.sample.setRange(0, 1_000_000)
        self.sample.setSpecialValueText("all")
        self.sample.setPrefix("sample ")
        self.sample.setValue(sample)
        self.sample.setToolTip("A seeded sample of this many puzzles of the set (all: every puzzle)")
        self.remove = QPushButton("Remove")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.combo, 1)
        lay.addWidget(self.sample)
        lay.addWidget(self.remove)
        self.combo.currentTextChanged.connect(self.changed)
        self.sample.valueChanged.connect(self.changed)

    def value(self) -> tuple[str, int]:
        return self.combo.currentText(), self.sample.value()


def _puzzle_choices() -> list[str]:
    from sudoku_lab.model import library

    out = []
    try:
        out += [c.name for c in library.collections()]
        out += library.names()
    except SudokuLabError:  # a broken installation still lets the user type a set
        pass
    return out


class BatchPanel(TaskDialog):
    """The Batch experiment panel of one window (see the module docstring).

    Cancel (or closing the panel) stops the batch promptly: every finished run is kept, and Run resumes
    where it stopped.

    Signals
    -------
    batchFinished(object)
        A batch ended: its :class:`~sudoku_lab.engine.batch.BatchOutcome` (``interrupted`` when
        cancelled), or None when it failed (the reason is in :attr:`status`).
    reportShown(object)
        The table and the figure now show this :class:`~sudoku_lab.analysis.report.Report`.
    """

    batchFinished = Signal(object)
    reportShown = Signal(object)
    CANCELLING = "Cancelling: the finished runs are kept..."

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("batch_panel")
        self.setWindowTitle("Batch experiment")
        self.report: Report | None = None
        self.outcome = None
        self.spec_path: Path | None = None  # the specification file the text came from (relative puzzle files)
        # progress: a BatchProgress; partial: the Report of the runs finished so far;
        # finished: (the BatchOutcome, its Report or None)
        self._job = Task("batch panel", "Batch", "Batch failed: ", self)
        self._job.runningChanged.connect(self._set_running)
        self._job.progress.connect(self._on_progress)
        self._job.partial.connect(self._on_live_report)
        self._job.finished.connect(self._on_finished)
        self._job.failed.connect(self._on_failed)
        self._job.note.connect(lambda text: self.status.setText(text))
        self._out_auto = True  # the results directory follows the experiment's name until the user sets one
        self._filling = False
        self._choices = _puzzle_choices()
        self.canvas: QWidget | None = None

        # ---- the form
        self.name_edit = QLineEdit("experiment")
        self.name_edit.setObjectName("batch_name")
        self.solver_rows: list[_SolverRow] = []
        self.puzzle_rows: list[_PuzzleRow] = []
        self.solvers_box = QVBoxLayout()
        self.puzzles_box = QVBoxLayout()
        self.add_solver_button = QPushButton("Add solver")
        self.add_solver_button.setObjectName("batch_add_solver")
        self.add_solver_button.clicked.connect(lambda: self.add_solver())
        self.add_puzzles_button = QPushButton("Add puzzle set")
        self.add_puzzles_button.setObjectName("batch_add_puzzles")
        self.add_puzzles_button.clicked.connect(lambda: self.add_puzzles())
        self.runs_box = QSpinBox()
        self.runs_box.setObjectName("batch_runs")
        self.runs_box.setRange(1, 1_000_000)
        self.runs_box.setValue(10)
        self.runs_box.setToolTip("Runs of each configuration on each puzzle")
        self.seed_box = QSpinBox()
        self.seed_box.setObjectName("batch_seed")
        self.seed_box.setRange(0, 2**31 - 1)
        self.seed_box.setValue(2026)
        self.iterations_box = QSpinBox()
        self.iterations_box.setObjectName("batch_iterations")
        self.iterations_box.setRange(0, 2_000_000_000)
        self.iterations_box.setSpecialValueText("no limit")
        self.iterations_box.setSingleStep(1000)
        self.iterations_box.setValue(0)
        self.seconds_box = QSpinBox()
        self.seconds_box.setObjectName("batch_seconds")
        self.seconds_box.setRange(0, 86_400)
        self.seconds_box.setSpecialValueText("no limit")
        self.seconds_box.setSuffix(" s")
        self.seconds_box.setValue(10)
        budget_row = QHBoxLayout()
        budget_row.addWidget(QLabel("iterations"))
        budget_row.addWidget(self.iterations_box)
        budget_row.addWidget(QLabel("seconds"))
        budget_row.addWidget(self.seconds_box)
        budget_row.addStretch(1)
        solvers_w = QVBoxLayout()
        solvers_w.addLayout(self.solvers_box)
        solvers_w.addWidget(self.add_solver_button, 0, Qt.AlignLeft)
        puzzles_w = QVBoxLayout()
        puzzles_w.addLayout(self.puzzles_box)
        puzzles_w.addWidget(self.add_puzzles_button, 0, Qt.AlignLeft)
        form = QFormLayout()
        form.addRow("Name:", self.name_edit)
        form.addRow("Solvers:", _wrap(solvers_w))
        form.addRow("Puzzle sets:", _wrap(puzzles_w))
        form.addRow("Runs per configuration and puzzle:", self.runs_box)
        form.addRow("Base seed:", self.seed_box)
        form.addRow("Budget per run (the first reached ends it):", _wrap(budget_row))
        form_group = QGroupBox("Experiment")
        form_group.setLayout(form)

        self.toml_edit = QPlainTextEdit()
        self.toml_edit.setObjectName("batch_toml")
        self.toml_edit.setToolTip(
            "The specification that runs (the form writes it; edit it for anything the form does not say)"
        )
        font = self.toml_edit.font()
        font.setFamily("monospace")
        font.setStyleHint(font.StyleHint.Monospace)
        self.toml_edit.setFont(font)
        self.toml_edit.setMinimumHeight(150)
        self.toml_edit.textChanged.connect(self._on_text_edited)
        toml_group = QGroupBox("Specification (TOML, what runs; `sudoku-lab batch FILE` runs it headless)")
        tl = QVBoxLayout(toml_group)
        tl.addWidget(self.toml_edit)

        self.out_edit = QLineEdit()
        self.out_edit.setObjectName("batch_out")
        self.out_edit.setToolTip(
            "Where the runs go; a directory holding this experiment is resumed. By default NAME-results in the "
            "per-user data folder ($XDG_DATA_HOME/sudoku-lab/results, else ~/.local/share/sudoku-lab/results), "
            "or the specification's output (beside its file)"
        )
        self.out_edit.setPlaceholderText("choose a folder (there is no per-user data folder here)")
        self.out_edit.textEdited.connect(self._on_out_edited)
        browse = QPushButton("Browse...")
        browse.clicked.connect(self._browse_out)
        self.workers_box = QSpinBox()
        self.workers_box.setObjectName("batch_workers")
        self.workers_box.setRange(1, max(64, default_jobs()))
        self.workers_box.setValue(default_jobs())
        self.workers_box.setToolTip("Worker processes the runs go to (1: in the panel's own thread)")
        out_row = QHBoxLayout()
        out_row.addWidget(self.out_edit, 1)
        out_row.addWidget(browse)
        out_row.addWidget(QLabel("workers"))
        out_row.addWidget(self.workers_box)
        out_form = QFormLayout()
        out_form.addRow("Results directory:", _wrap(out_row))

        self.open_spec_button = QPushButton("Open specification...")
        self.open_spec_button.setObjectName("batch_open_spec")
        self.open_spec_button.clicked.connect(lambda: self.open_spec())
        self.open_results_button = QPushButton("Open results...")
        self.open_results_button.setObjectName("batch_open_results")
        self.open_results_button.clicked.connect(lambda: self.open_results())
        self.save_spec_button = QPushButton("Save specification...")
        self.save_spec_button.setObjectName("batch_save_spec")
        self.save_spec_button.clicked.connect(lambda: self.save_spec())
        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("batch_run")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("batch_cancel")
        self.cancel_button.clicked.connect(self.cancel)
        buttons = QHBoxLayout()
        for b in (self.open_spec_button, self.open_results_button, self.save_spec_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        self.progress_bar = QProgressBar()
        self.progress_bar.setObjectName("batch_progress")
        _idle_bar(self.progress_bar, "Ready")
        self.status = QLabel("")
        self.status.setObjectName("batch_status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextSelectableByMouse)
        # What Run will do is said again a moment after an edit (reading the specification resolves its puzzles).
        self._ready_timer = QTimer(self)
        self._ready_timer.setSingleShot(True)
        self._ready_timer.setInterval(300)
        self._ready_timer.timeout.connect(self.show_ready)

        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(form_group)
        ll.addWidget(toml_group, 1)
        ll.addLayout(out_form)
        ll.addLayout(buttons)
        ll.addWidget(self.progress_bar)
        ll.addWidget(self.status)

        # ---- what the runs say
        self.table = QTableWidget(0, 0)
        self.table.setObjectName("batch_table")
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.notes = QLabel("")
        self.notes.setObjectName("batch_notes")
        self.notes.setWordWrap(True)
        self.figure_box = QVBoxLayout()
        self.figure_holder = QWidget()
        self.figure_holder.setLayout(self.figure_box)
        self.figure_holder.setMinimumHeight(260)
        self.empty_figure = QLabel("The run-length ECDF appears here as runs finish.")
        self.empty_figure.setAlignment(Qt.AlignCenter)
        self.figure_box.addWidget(self.empty_figure)
        right = QSplitter(Qt.Vertical)
        top = QWidget()
        tl2 = QVBoxLayout(top)
        tl2.setContentsMargins(0, 0, 0, 0)
        tl2.addWidget(QLabel("Successes and times per configuration (as `sudoku-lab report` prints them)"))
        tl2.addWidget(self.table, 1)
        tl2.addWidget(self.notes)
        right.addWidget(top)
        right.addWidget(self.figure_holder)
        right.setStretchFactor(0, 2)
        right.setStretchFactor(1, 3)
        right.setSizes([340, 560])  # the figure's panels need the height more than a few rows of the table

        split = QSplitter(Qt.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        # The form and the report side by side need about 1,200 px: on a smaller screen the panel scrolls
        # instead of opening wider than the screen.
        scroll = QScrollArea()
        scroll.setObjectName("batch_scroll")
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidgetResizable(True)
        scroll.setWidget(split)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(scroll)
        screen_fit.fit_window(self, PREFERRED_SIZE, anchor=parent)

        self.name_edit.textEdited.connect(self._form_changed)
        for box in (self.runs_box, self.seed_box, self.iterations_box, self.seconds_box):
            box.valueChanged.connect(self._form_changed)
        self.workers_box.valueChanged.connect(lambda _v: self._ready_timer.start())
        self._filling = True
        self.add_solver("reseda", "")
        self.add_puzzles("reseda_fig3_1_easy", 0)
        self._filling = False
        self._form_changed()
        self._set_running(False)
        self.show_ready()

    # ------------------------------------------------------------ the form
    def add_solver(self, solver: str = "reseda", params: str = "") -> _SolverRow:
        """Add a solver row to the form (the button Add solver)."""
        row = _SolverRow(solver, params)
        row.changed.connect(self._form_changed)
        row.remove.clicked.connect(lambda: self._remove(row, self.solver_rows))
        self.solver_rows.append(row)
        self.solvers_box.addWidget(row)
        self._form_changed()
        return row

    def add_puzzles(self, source: str = "reseda_fig3_1_easy", sample: int = 0) -> _PuzzleRow:
        """Add a puzzle-set row to the form (the button Add puzzle set)."""
        row = _PuzzleRow(source, sample, self._choices)
        row.changed.connect(self._form_changed)
        row.remove.clicked.connect(lambda: self._remove(row, self.puzzle_rows))
        self.puzzle_rows.append(row)
        self.puzzles_box.addWidget(row)
        self._form_changed()
        return row

    def _remove(self, row, rows: list) -> None:
        if len(rows) <= 1:
            self.status.setText("An experiment needs at least one solver and one puzzle set")
            return
        rows.remove(row)
        row.setParent(None)
        row.deleteLater()
        self._form_changed()

    def form_text(self) -> str:
        """The specification the form describes (:func:`form_toml`)."""
        return form_toml(
            name=self.name_edit.text(),
            solvers=[r.value() for r in self.solver_rows],
            puzzles=[r.value() for r in self.puzzle_rows],
            runs=self.runs_box.value(),
            seed=self.seed_box.value(),
            iterations=self.iterations_box.value(),
            seconds=self.seconds_box.value(),
        )

    def _form_changed(self, *_args) -> None:
        """A change to the form writes the specification's text (the last thing touched, form or text, wins)."""
        if self._filling:
            return
        self._set_text(self.form_text())
        self.spec_path = None
        if self._out_auto:
            home = results_home(create=False)  # made by Run
            name = folder_name(self.name_edit.text().strip() or "batch", suffix="-results")
            self.out_edit.setText(str(home / name) if home is not None else "")
        self._ready_timer.start()

    def _set_text(self, text: str) -> None:
        self._filling = True
        try:
            self.toml_edit.setPlainText(text)
        finally:
            self._filling = False

    def _on_text_edited(self) -> None:
        if not self._filling and not self.running:
            self._ready_timer.start()

    def _on_out_edited(self, _text: str) -> None:
        self._out_auto = False
        self._ready_timer.start()

    def default_out(self, spec: ExperimentSpec) -> Path | None:
        """Where ``spec``'s runs go when no directory is chosen: its ``output`` (relative to its file), else
        ``NAME-results`` in :func:`~sudoku_lab.engine.places.results_home`; None when there is no such folder."""
        out = default_output(spec)
        if out.is_absolute():
            return out
        base = spec.source.parent if spec.output and spec.source is not None else results_home(create=False)
        return None if base is None else base / out

    def chosen_out(self) -> Path | None:
        """The results directory typed in (a relative one is in the per-user data folder, never the current
        directory), or None when the field is empty."""
        text = self.out_edit.text().strip()
        return _in_results_home(text) if text else None

    def _ready(self) -> tuple[str, int | None]:
        try:
            spec = self.spec()
        except SudokuLabError as e:
            return f"Not ready: {one_line(e)}", None
        what = spec.describe().splitlines()[0].split(": ", 1)[-1]
        out = self.chosen_out() or self.default_out(spec)
        jobs = self.workers_box.value()
        where = (
            f"each finished run is saved in {out} (a directory holding this experiment is resumed)"
            if out
            else "choose a results directory: there is no per-user data folder to save them in"
        )
        return f"Ready: Run does {what}, on {jobs} worker process{'es' if jobs != 1 else ''}; {where}", spec.total

    def ready_text(self) -> str:
        """What Run will do (``Ready: ...``), or what is wrong with the specification (``Not ready: ...``)."""
        return self._ready()[0]

    def show_ready(self) -> None:
        """Say what Run will do under the bar (not while a batch runs)."""
        self._ready_timer.stop()
        if self.running:
            return
        text, total = self._ready()
        self.status.setText(text)
        _idle_bar(self.progress_bar, "Not ready" if total is None else f"Ready: {total:,} run{'s' * (total != 1)}")

    def spec(self) -> ExperimentSpec:
        """The specification of the text (checked: a SpecError names the line and the key of a mistake)."""
        return parse_spec(self.toml_edit.toPlainText(), source=self.spec_path)

    # ------------------------------------------------------------ files
    def open_spec(self, path: str | None = None) -> bool:
        """Open a TOML specification (asked for when None): its text replaces the form's; False, with one
        line under the bar, when it cannot be read or checked (a readable text is shown to be fixed)."""
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, "Open specification", "", "TOML (*.toml);;All files (*)")
            if not path:
                return False
        p = Path(path)
        try:
            text = read_text(p, "experiment specification", max_bytes=16 << 20)
        except SudokuLabError as e:
            self.status.setText(f"Cannot open the specification: {one_line(e)}")
            return False
        self._set_text(text)
        self.spec_path = p
        try:
            spec = parse_spec(text, source=p)
        except SudokuLabError as e:
            self.status.setText(one_line(e))
            return False
        self._set_out(spec)
        self.status.setText(f"Opened {p.name}: {spec.describe().splitlines()[0]}")
        return True

    def _set_out(self, spec: ExperimentSpec) -> None:
        if self._out_auto:
            out = self.default_out(spec)
            self.out_edit.setText("" if out is None else str(out))

    def open_results(self, path: str | None = None) -> bool:
        """Open a results directory (asked for when None): its table and ECDF, and its specification so Run
        resumes it; False, with one line under the bar, when it cannot be read."""
        if path is None:
            path = QFileDialog.getExistingDirectory(self, "Open results directory", str(_start_folder()))
            if not path:
                return False
        try:
            rep = build_report(load_results(path))
        except SudokuLabError as e:
            self.status.setText(f"Cannot open the results: {one_line(e)}")
            return False
        self._show_report(rep, final=True)
        prov = getattr(rep.results, "provenance", None) or {}
        sessions = prov.get("sessions") or [{}]
        text = next((s.get("spec_text") for s in reversed(sessions) if s.get("spec_text")), None)
        self.spec_path = None
        if text is None and isinstance(prov.get("spec"), dict):
            text = _toml_of_canonical(prov["spec"])
        else:
            spec_file = next((s.get("spec_file") for s in reversed(sessions) if s.get("spec_file")), None)
            self.spec_path = Path(spec_file) if spec_file else None
        if text:
            self._set_text(text)
        self._out_auto = False
        self.out_edit.setText(str(Path(path)))
        held, total = len(rep.results), _total(prov)
        show_count(self.progress_bar, held, total or held)
        self.progress_bar.setFormat("%v of %m runs")
        more = f"; Run adds the {total - held:,} missing" if total and held < total else ""
        self.status.setText(f"Opened {path}: {held:,} of {total or held:,} runs{more}")
        return True

    def save_spec(self, path: str | None = None) -> bool:
        """Write the specification's text to a TOML file (asked for when None), once it checks; False, with one
        line under the bar, otherwise. ``sudoku-lab batch FILE`` runs the same experiment headless."""
        try:
            self.spec()
        except SudokuLabError as e:
            self.status.setText(f"Not saved: {one_line(e)}")
            return False
        if path is None:
            name = (self.name_edit.text().strip() or "experiment") + ".toml"
            near = self.spec_path.parent if self.spec_path is not None else _start_folder()
            path, _ = QFileDialog.getSaveFileName(self, "Save specification", str(near / name), "TOML (*.toml)")
            if not path:
                return False
        try:
            write_text(path, self.toml_edit.toPlainText(), "experiment specification")
        except SudokuLabError as e:
            self.status.setText(f"Not saved: {one_line(e)}")
            return False
        self.status.setText(f"Saved {path}: run it headless with `sudoku-lab batch {path}`")
        return True

    def _browse_out(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Results directory", self.out_edit.text())
        if path:
            self._out_auto = False
            self.out_edit.setText(path)

    # ------------------------------------------------------------ running
    def start(self) -> bool:
        """Check the specification (one line under the bar if it is wrong) and run it in a thread of its own."""
        if self.running:
            return False
        try:
            spec = self.spec()
        except SudokuLabError as e:
            self.status.setText(one_line(e))
            return False
        if not self.out_edit.text().strip():
            self._set_out(spec)
        where = self.chosen_out()
        home = results_home(create=False)
        if where is None or (home is not None and where.is_relative_to(home) and results_home() is None):
            self.status.setText("Choose a results directory: there is no per-user data folder to save the runs in")
            return False
        out = str(where)
        jobs = self.workers_box.value()
        self._ready_timer.stop()

        def work(task: Task) -> tuple[Any, Report | None]:
            last, cost = [time.monotonic()], [0.0]

            def progress(p) -> None:
                task.progress.emit(p)
                now = time.monotonic()
                # Reading the directory again costs more as it grows: never more than a fifth of the time.
                if p.new and (now - last[0] >= max(REFRESH_SECONDS, 4 * cost[0]) or p.done == p.total):
                    try:
                        task.partial.emit(build_report(load_results(out)))
                    except SudokuLabError:  # nothing readable yet: the next run says more
                        pass
                    last[0] = time.monotonic()
                    cost[0] = last[0] - now

            outcome = run_spec(
                spec, out, jobs=jobs, should_stop=task.should_stop, progress=progress, note=task.note.emit
            )
            return outcome, build_report(load_results(out)) if outcome.done else None

        self.outcome = None
        self.progress_bar.setFormat("%v of %m runs")
        self.progress_bar.setRange(0, 0)  # busy while the workers start
        self.status.setText(
            f"Starting {jobs} worker process{'es' if jobs != 1 else ''}..." if jobs > 1 else "Starting..."
        )
        return self._job.start(work)

    def _on_progress(self, p) -> None:
        if not self.running:
            return
        show_count(self.progress_bar, p.done, p.total)
        if self._job.cancelled:
            return
        eta = p.eta
        left = f", about {eta:,.0f} s left" if eta == eta and p.done < p.total else ""
        self.status.setText(f"Running: {p.done:,} of {p.total:,} runs done, {p.solved:,} solved{left}")

    def _on_live_report(self, rep: Report) -> None:
        if self.running:
            self._show_report(rep, final=False)

    def _on_finished(self, ended: tuple[Any, Report | None]) -> None:
        outcome, rep = ended
        self.outcome = outcome
        out = self.chosen_out()
        if rep is not None:
            self._show_report(rep, final=True)
        show_count(self.progress_bar, outcome.done, outcome.total)
        if outcome.interrupted:
            self.status.setText(
                f"Cancelled after {outcome.done:,} of {outcome.total:,} runs: they are kept in {out}; "
                "Run resumes where it stopped"
            )
        else:
            self.status.setText(
                f"Done: {outcome.done:,} of {outcome.total:,} runs, {outcome.solved:,} solved "
                f"({outcome.new:,} this time); results in {out}"
            )
        self.batchFinished.emit(outcome)

    def _on_failed(self, text: str) -> None:
        self.show_failure(text)
        self.batchFinished.emit(None)

    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        for w in (
            self.open_spec_button,
            self.open_results_button,
            self.out_edit,
            self.workers_box,
            self.toml_edit,
            self.name_edit,
            self.runs_box,
            self.seed_box,
            self.iterations_box,
            self.seconds_box,
            self.add_solver_button,
            self.add_puzzles_button,
            *self.solver_rows,
            *self.puzzle_rows,
        ):
            w.setEnabled(not running)

    # ------------------------------------------------------------ showing
    def _show_report(self, rep: Report, final: bool) -> None:
        """The report's summary cells in the table and its run-length ECDF in the figure."""
        self.report = rep
        head, cells = summary_cells(rep.summary, rep.by)
        self.table.clear()
        self.table.setColumnCount(len(head))
        self.table.setRowCount(len(cells))
        self.table.setHorizontalHeaderLabels(head)
        for i, row in enumerate(cells):
            for j, text in enumerate(row):
                item = QTableWidgetItem(text)
                if j >= 2:
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.table.setItem(i, j, item)
        # While runs finish, the table is read from the journal: the report's note about that is not news.
        self.notes.setText("\n".join(f"note: {n}" for n in rep.notes) if final else "")
        fig = figure(rep, "ecdf")
        from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg

        canvas = FigureCanvasQTAgg(fig)
        canvas.setObjectName("batch_ecdf")
        if self.canvas is not None:
            self.figure_box.removeWidget(self.canvas)
            self.canvas.setParent(None)
            self.canvas.deleteLater()
        self.empty_figure.hide()
        self.figure_box.addWidget(canvas)
        canvas.show()
        self.canvas = canvas
        self.reportShown.emit(rep)

    def table_cells(self) -> tuple[list[str], list[list[str]]]:
        """The table's column heads and cell texts, as shown."""
        head = [self.table.horizontalHeaderItem(j).text() for j in range(self.table.columnCount())]
        cells = [
            [self.table.item(i, j).text() for j in range(self.table.columnCount())]
            for i in range(self.table.rowCount())
        ]
        return head, cells


def _idle_bar(bar: QProgressBar, text: str) -> None:
    """The progress bar before Run: empty, with ``text`` ("Ready: 20 runs"), never "0 of 1 runs"."""
    show_idle(bar)
    bar.setFormat(text)


def _in_results_home(text: str) -> Path:
    """A folder typed in: ``~`` expanded; a relative one inside the per-user results folder (else home)."""
    path = Path(text).expanduser()
    if path.is_absolute():
        return path
    home = results_home(create=False)
    return (home if home is not None else Path.home()) / path


def _start_folder() -> Path:
    """Where a file dialog opens: the per-user results folder, else home (never the current directory)."""
    home = results_home()
    return home if home is not None else Path.home()


def _total(prov: dict) -> int | None:
    spec = prov.get("spec") if isinstance(prov.get("spec"), dict) else {}
    try:
        return int(spec["runs"]) * len(spec["configs"]) * sum(int(s["puzzles"]) for s in spec["puzzle_sets"])
    except (KeyError, TypeError, ValueError):
        return None


def _toml_of_canonical(spec: dict) -> str:
    """A specification's text from a results directory's record of it (a batch run from flags kept no text):
    every configuration with its label and every parameter, each puzzle set's first ``puzzles``."""
    lines = []
    if spec.get("name"):
        lines.append(f"name = {_toml_value(spec['name'])}")
    lines += [
        f"runs = {int(spec.get('runs', 1))}",
        f"seed = {int(spec.get('seed', 0))}",
        f"seeding = {_toml_value(spec.get('seeding', 'spawn'))}",
        f"until = {_toml_value(spec.get('until', 'solved,10s'))}",
    ]
    for s in spec.get("puzzle_sets", []):
        lines += ["", "[[puzzles]]", f"set = {_toml_value(s['source'])}", f"label = {_toml_value(s['label'])}"]
        lines.append(f"first = {int(s['puzzles'])}")
    for c in spec.get("configs", []):
        lines += ["", "[[solvers]]", f"name = {_toml_value(c['solver'])}", f"label = {_toml_value(c['label'])}"]
        params = c.get("params") or {}
        if params:
            lines.append(
                "params = { " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in params.items() if v is not None) + " }"
            )
        if c.get("until"):
            lines.append(f"until = {_toml_value(c['until'])}")
    return "\n".join(lines) + "\n"


def _wrap(layout) -> QWidget:
    w = QWidget()
    layout.setContentsMargins(0, 0, 0, 0)
    w.setLayout(layout)
    return w
