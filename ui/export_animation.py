"""File > Export animation...: the run shown in the window written as a GIF or an MP4, in the background.

The dialog asks for the view beside the board (:func:`sudoku_lab.analysis.animation.views`), a frame every
N iterations or every phase (for a solver that declares phases), the stretch of the run to draw (from the
state after one iteration to the state after another: a slide's steps 14 to 18), the frame's size in pixels,
the caption's size in points, the frames per second and the file. The run
exported is the window's: the same puzzle, algorithm, parameters at the start, seed and the parameter changes
made while it ran (each at the iteration it was made), up to the furthest iteration it reached (also after a
rewind). :func:`~sudoku_lab.analysis.animation.animate` runs it again from the start in a thread of its own
(never the solver's, so the window goes on), with a progress bar and Cancel: a cancelled or failed export
leaves no file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from sudoku_lab.analysis import animation
from sudoku_lab.errors import ParameterError, SudokuLabError
from sudoku_lab.model.puzzle import Puzzle
from sudoku_lab.solvers import Event, get_solver_class
from sudoku_lab.stepping import loop

from .background import Task, TaskDialog, show_idle

__all__ = ["RunToExport", "run_to_export", "ExportAnimationDialog", "SIZES"]

#: Frame sizes offered (width, height): the command line's default, and the slide sizes.
SIZES = ((1024, 512), (1280, 720), (1920, 1080))


@dataclass(frozen=True)
class RunToExport:
    """What the window's run is, for :func:`~sudoku_lab.analysis.animation.animate`.

    Attributes
    ----------
    puzzle : Puzzle
    algo : str
    params : dict
        The parameters at the run's start.
    seed : int
    changes : list of (int, dict)
        The parameter changes made while it ran, each at the iteration it was made.
    reached : int
        The furthest iteration the run reached.
    """

    puzzle: Puzzle
    algo: str
    params: dict
    seed: int
    changes: list
    reached: int


def run_to_export(state: dict, record: dict | None) -> RunToExport:
    """The run behind a solver's ``state_dict()`` and its history's record (None: the state alone).

    The event log is the history's (up to its furthest iteration) when there is one, else the state's; the
    parameters at the start are those in force with every parameter changed put back to its first ``old``.
    """
    events: list[Event] = list(record["events"]) if record is not None else list(state["events"])
    reached = int(record["furthest"]) if record is not None else int(state["iteration"])
    params = dict(state["params"])
    now = [e for e in state["events"] if e.kind == "param"]
    for e in reversed(now):  # back to the start: the state's params are after its own events
        params[e.name] = e.old
    return RunToExport(
        puzzle=state["puzzle"],
        algo=str(state["solver"]),
        params=params,
        seed=int(state["seed"]),
        changes=animation.changes_from_events(events),
        reached=reached,
    )


class ExportAnimationDialog(TaskDialog):
    """The Export animation dialog of one window (see the module docstring).

    Cancel (or closing the dialog) stops the export: no file is written (an old one stays as it was).

    Signals
    -------
    exportFinished(object)
        The export ended: its :class:`~sudoku_lab.analysis.animation.AnimationResult` (``cancelled`` when
        cancelled), or None when it failed (the reason is in :attr:`status`).
    """

    exportFinished = Signal(object)
    SHUTDOWN_SECONDS = 30.0

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("export_animation_dialog")
        self.setWindowTitle("Export animation")
        self.run: RunToExport | None = None
        # progress: (frames drawn, frames in all; 0 while the run goes); finished: an AnimationResult
        self._job = Task("animation export", "Export", "Export failed: ", self)
        self._job.runningChanged.connect(self._set_running)
        self._job.progress.connect(self._on_progress)
        self._job.finished.connect(self._on_finished)
        self._job.failed.connect(self._on_failed)

        self.what = QLabel("Reading the run...")
        self.what.setWordWrap(True)
        self.view_box = QComboBox()
        self.view_box.setObjectName("export_view")
        self.every_iterations = QRadioButton("every")
        self.every_iterations.setObjectName("export_every_iterations")
        self.every_phase = QRadioButton("every phase")
        self.every_phase.setObjectName("export_every_phase")
        self.every_iterations.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.every_iterations)
        group.addButton(self.every_phase)
        self.every_box = QSpinBox()
        self.every_box.setObjectName("export_every")
        self.every_box.setRange(1, 10_000_000)
        self.every_box.setSuffix(" iterations")
        self.fps_box = QSpinBox()
        self.fps_box.setObjectName("export_fps")
        self.fps_box.setRange(*animation.FPS_RANGE)
        self.fps_box.setValue(10)
        self.from_box = QSpinBox()
        self.from_box.setObjectName("export_from")
        self.from_box.setToolTip("The first frame is the state after this many iterations (0: the puzzle)")
        self.to_box = QSpinBox()
        self.to_box.setObjectName("export_to")
        self.to_box.setToolTip("The last frame is the state after this many iterations (at most the run's)")
        for box in (self.from_box, self.to_box):
            box.setRange(0, 0)
        self.size_box = QComboBox()
        self.size_box.setObjectName("export_size")
        for w, h in SIZES:
            self.size_box.addItem(f"{w} x {h}", (w, h))
        self.size_box.setEditable(True)  # any WIDTH x HEIGHT typed in
        self.size_box.setToolTip(
            "The frame's width x height in pixels (from square to 3:1; even numbers for .mp4); "
            "its texts keep their share of the frame at every size"
        )
        self.caption_box = QDoubleSpinBox()
        self.caption_box.setObjectName("export_caption_size")
        self.caption_box.setRange(*animation.CAPTION_RANGE)
        self.caption_box.setDecimals(1)
        self.caption_box.setValue(animation.DEFAULT_CAPTION)
        self.caption_box.setSuffix(" pt")
        self.caption_box.setToolTip(
            f"The caption's size in points of a frame 5.12 inches high (default {animation.DEFAULT_CAPTION:g}: "
            "a line about 3.5 % of the frame's height, at every size)"
        )
        self.path_edit = QLineEdit(str(Path.cwd() / "run.gif"))
        self.path_edit.setObjectName("export_path")
        self.path_edit.setToolTip("The file: .gif or .mp4 (the suffix chooses)")
        browse = QPushButton("Browse...")
        browse.clicked.connect(self._browse)
        self.progress_bar = QProgressBar()
        self.progress_bar.setObjectName("export_progress")
        show_idle(self.progress_bar)
        self.progress_bar.setFormat("Ready")  # not "0%" before anything is drawn
        self.status = QLabel("")
        self.status.setObjectName("export_status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextSelectableByMouse)

        every_row = QHBoxLayout()
        every_row.addWidget(self.every_iterations)
        every_row.addWidget(self.every_box)
        every_row.addWidget(self.every_phase)
        every_row.addStretch(1)
        path_row = QHBoxLayout()
        path_row.addWidget(self.path_edit, 1)
        path_row.addWidget(browse)
        span_row = QHBoxLayout()
        span_row.addWidget(QLabel("from"))
        span_row.addWidget(self.from_box)
        span_row.addWidget(QLabel("to"))
        span_row.addWidget(self.to_box)
        span_row.addStretch(1)
        form = QFormLayout()
        form.addRow("View beside the board:", self.view_box)
        form.addRow("A frame:", _wrap(every_row))
        form.addRow("Iterations drawn:", _wrap(span_row))
        form.addRow("Frame size (pixels):", self.size_box)
        form.addRow("Caption size:", self.caption_box)
        form.addRow("Frames per second:", self.fps_box)
        form.addRow("File (.gif or .mp4):", _wrap(path_row))

        self.export_button = QPushButton("Export")
        self.export_button.setObjectName("export_start")
        self.export_button.setDefault(True)
        self.export_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel export")
        self.cancel_button.setObjectName("export_cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button = QPushButton("Close")
        self.close_button.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for b in (self.export_button, self.cancel_button, self.close_button):
            buttons.addWidget(b)

        lay = QVBoxLayout(self)
        lay.addWidget(self.what)
        lay.addLayout(form)
        lay.addWidget(self.progress_bar)
        lay.addWidget(self.status)
        lay.addLayout(buttons)
        self._set_running(False)
        self.export_button.setEnabled(False)  # until the run is known

    # ------------------------------------------------------------ the run
    def set_run(self, run: RunToExport | None, note: str = "") -> None:
        """Show what will be exported (None: nothing to export, ``note`` says why)."""
        self.run = run
        if run is None or run.reached < 1:
            self.what.setText(note or "Nothing to export yet: the run has no iteration. Run or step it first.")
            self.export_button.setEnabled(False)
            return
        cls = get_solver_class(run.algo)
        changes = sum(len(values) for _, values in run.changes)
        self.what.setText(
            f"The run shown: {cls.title} on {run.puzzle.name or 'the puzzle'}, seed {run.seed}, "
            f"{run.reached:,} {cls.iteration_name}s"
            + (f", {changes} parameter change{'s' if changes != 1 else ''} made at their iterations" if changes else "")
            + ". It is run again from the start and drawn."
        )
        current = self.view_box.currentText()
        self.view_box.clear()
        self.view_box.addItems(list(animation.views(run.algo)))
        if current:
            self.view_box.setCurrentText(current)
        self.every_box.setSuffix(f" {cls.iteration_name}(s)")
        self.every_box.setValue(max(1, -(-run.reached // (animation.DEFAULT_FRAMES - 1))))
        for box in (self.from_box, self.to_box):
            box.setRange(0, run.reached)
            box.setSuffix(f" {cls.iteration_name}s")
        self.from_box.setValue(0)
        self.to_box.setValue(run.reached)
        self.every_phase.setEnabled(bool(cls.phases))
        self.every_phase.setToolTip(
            f"A frame after each of its {len(cls.phases)} phases ({', '.join(p.name for p in cls.phases)})"
            + "".join(f"; {p.name!r} repeats, a frame each time" for p in cls.phases if p.repeats)
            if cls.phases
            else f"{cls.title} declares no phases: a frame every N {cls.iteration_name}s"
        )
        if not cls.phases:
            self.every_iterations.setChecked(True)
        self.export_button.setEnabled(not self.running)

    def frame_size(self) -> tuple[int, int]:
        """The frame size chosen (one offered, or ``W x H`` typed in); ParameterError if it is not one."""
        text = self.size_box.currentText().strip().lower().replace(" ", "")
        w, x, h = text.partition("x")
        try:
            if not x:
                raise ValueError
            return int(w), int(h)
        except ValueError:
            raise ParameterError(
                f"the frame size is WIDTH x HEIGHT in pixels, like 1920 x 1080, not {self.size_box.currentText()!r}",
                name="size",
            ) from None

    def options(self) -> dict[str, Any]:
        """The dialog's choices as :func:`~sudoku_lab.analysis.animation.animate` keywords (ParameterError for a
        frame size that cannot be read)."""
        every: int | str = "phase" if self.every_phase.isChecked() else self.every_box.value()
        start, stop = self.from_box.value(), self.to_box.value()
        reached = self.run.reached if self.run is not None else stop
        return {
            "view": self.view_box.currentText(),
            "every": every,
            "fps": self.fps_box.value(),
            "size": self.frame_size(),
            "caption_size": self.caption_box.value(),
            "iterations": None if (start, stop) == (0, reached) else (start, stop),
        }

    # ------------------------------------------------------------ exporting
    def start(self) -> bool:
        """Check the choices (one line under the bar if one is wrong) and start the export in its thread."""
        run = self.run
        if run is None or self.running:
            return False
        out = self.path_edit.text().strip()
        try:
            opts = self.options()
            animation.check_animation(out, run.algo, **opts)  # an .mp4 where no ffmpeg runs: one line, now
            animation.check_changes(run.algo, run.params, run.changes)
        except SudokuLabError as e:
            self.status.setText(f"Cannot export: {e}")
            return False

        def work(task: Task) -> animation.AnimationResult:
            return animation.animate(
                run.puzzle,
                run.algo,
                out,
                params=run.params,
                seed=run.seed,
                until=loop.MaxIterations(run.reached),
                changes=run.changes,
                progress=lambda done, total: task.progress.emit((done, total)),
                should_stop=task.should_stop,
                **opts,
            )

        stop = run.reached if opts["iterations"] is None else opts["iterations"][1]
        self.status.setText(f"Running {run.algo} again to {stop:,} iterations...")
        self.progress_bar.setFormat("%v of %m frames")
        self.progress_bar.setRange(0, 0)  # busy while the run goes; then the frames
        return self._job.start(work)

    def _on_progress(self, counts: tuple[int, int]) -> None:
        if not self.running:
            return
        done, total = counts
        if total == 0:
            self.progress_bar.setRange(0, 0)
            return
        self.progress_bar.setRange(0, total)
        self.progress_bar.setValue(done)
        self.status.setText(f"Drawing frame {done:,} of {total:,}")

    def _on_finished(self, result) -> None:
        if result.cancelled:
            self.status.setText("Cancelled: no animation was written")
            show_idle(self.progress_bar)
            self.progress_bar.setFormat("Cancelled")
        else:
            self.status.setText(f"Wrote {result.path}: {result.frames} frames")
            self.progress_bar.setValue(self.progress_bar.maximum())
        self.exportFinished.emit(result)

    def _on_failed(self, text: str) -> None:
        self.show_failure(text)
        self.exportFinished.emit(None)

    def _set_running(self, running: bool) -> None:
        self.export_button.setEnabled(not running and self.run is not None and self.run.reached >= 1)
        self.cancel_button.setEnabled(running)
        for w in (
            self.view_box,
            self.every_iterations,
            self.every_box,
            self.from_box,
            self.to_box,
            self.size_box,
            self.caption_box,
            self.fps_box,
            self.path_edit,
        ):
            w.setEnabled(not running)
        self.every_phase.setEnabled(
            not running and self.run is not None and bool(get_solver_class(self.run.algo).phases)
        )

    def _browse(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(
            self, "Export animation", self.path_edit.text(), "GIF (*.gif);;MP4, H.264 (*.mp4)"
        )
        if path:
            if not Path(path).suffix:
                path += ".mp4" if "mp4" in chosen else ".gif"
            self.path_edit.setText(path)


def _wrap(layout) -> QWidget:
    w = QWidget()
    layout.setContentsMargins(0, 0, 0, 0)
    w.setLayout(layout)
    return w
