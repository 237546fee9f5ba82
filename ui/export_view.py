"""File > Export view...: any view of the run shown as a PNG, SVG or PDF figure, or its data as CSV.

Everything is drawn by the core (:mod:`sudoku_lab.analysis.view_figures`, also reachable as
``sudoku_lab.analysis.figures.view_figure``): the dialog only chooses the view, the format, the size
(cm or inches), the resolution and the font size, and shows a preview the core renders off the GUI
thread at the chosen size and resolution (a big one at a lower resolution, said under it). "Export data..."
writes the view's plotted arrays as CSV with a JSON provenance sidecar (puzzle, solver, parameters and
their change log, seed, iteration, version, and the run's state as the window knew it when the dialog
opened: ``paused``, ``running``, ``stopped``, ``solved``... :func:`run_state`). A wrong option or an
unwritable file is one line in red.
"""

from __future__ import annotations

import io
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from sudoku_lab.analysis import view_figures as vf
from sudoku_lab.errors import SudokuLabError
from sudoku_lab.files import DPI_RANGE

from .background import Jobs

__all__ = ["ExportViewDialog", "LAB_VIEWS", "run_state"]

#: The core view that exports a lab view whose key differs (the hill-climbing panel shows the clash counts).
LAB_VIEWS = {"hill_climb_state": "unit_counts"}
#: Previews above this many pixels are rendered at a lower resolution (the file is not).
PREVIEW_MAX_PIXELS = 3_000_000
FORMATS = (("PNG", "png"), ("SVG", "svg"), ("PDF", "pdf"))


def run_state(worker_state: str | None, snapshot) -> str | None:
    """The run's state for the provenance (:data:`~sudoku_lab.analysis.view_figures.RUN_STATES`) from the
    window's worker state (``idle``, ``running``, ``stopped``, ...) and the frame shown.

    A finished run is ``solved`` or ``failed``; one being stepped ``running``; one the user stopped
    ``stopped``; otherwise it waits between steps: ``ready`` at iteration 0, else ``paused`` (also when the
    timeline is rewound). None when the state is not known (the solver's own status is recorded then).
    """
    if snapshot is None or worker_state is None:
        return None
    if snapshot.done:
        return snapshot.status
    if worker_state in ("running", "stopped"):
        return worker_state
    return "ready" if snapshot.iteration == 0 else "paused"


def _render(snapshot, view: str, style: vf.FigureStyle) -> tuple[bytes, tuple[int, int], int]:
    """PNG bytes of the view at ``style`` (resolution lowered for a huge preview), its pixels and dpi used."""
    fig = vf.view_figure(snapshot, view, style)
    w, h = fig.get_size_inches()
    dpi = style.dpi
    if w * h * dpi * dpi > PREVIEW_MAX_PIXELS:
        dpi = max(DPI_RANGE[0], int((PREVIEW_MAX_PIXELS / (w * h)) ** 0.5))
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue(), (round(w * dpi), round(h * dpi)), dpi


class ExportViewDialog(QDialog):
    """Export one view of a snapshot: format, size, DPI, font size, a live preview, figure and data buttons."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Export view")
        self.setObjectName("export_view_dialog")
        self.snapshot = None
        self.seed: int | None = None
        self.run_state: str | None = None  #: the run's state when the snapshot was taken (run_state)
        self._jobs = Jobs(self)
        self.preview_pixels: tuple[int, int] | None = None  # the rendered preview's size, before scaling
        self.preview_dpi: int | None = None
        self.renders = 0  # previews shown so far (tests wait on it)

        self.view_box = QComboBox()
        self.view_box.setObjectName("export_view_view")
        self.format_box = QComboBox()
        self.format_box.setObjectName("export_view_format")
        for label, fmt in FORMATS:
            self.format_box.addItem(label, fmt)
        self.unit_box = QComboBox()
        self.unit_box.setObjectName("export_view_unit")
        self.unit_box.addItem("cm", "cm")
        self.unit_box.addItem("in", "in")
        self.width_box = QDoubleSpinBox()
        self.height_box = QDoubleSpinBox()
        for box, name, value in ((self.width_box, "width", 16.0), (self.height_box, "height", 10.0)):
            box.setObjectName(f"export_view_{name}")
            box.setDecimals(2)
            box.setRange(-1000.0, 1000.0)  # the core checks the range and says what is wrong
            box.setValue(value)
        self.dpi_box = QSpinBox()
        self.dpi_box.setObjectName("export_view_dpi")
        self.dpi_box.setRange(1, 5000)
        self.dpi_box.setValue(150)
        self.font_box = QDoubleSpinBox()
        self.font_box.setObjectName("export_view_font")
        self.font_box.setRange(0.0, 100.0)
        self.font_box.setSpecialValueText("the view's own")
        self.font_box.setValue(0.0)
        self.font_box.setSuffix(" pt")

        size_row = QHBoxLayout()
        size_row.addWidget(self.width_box)
        size_row.addWidget(QLabel("x"))
        size_row.addWidget(self.height_box)
        size_row.addWidget(self.unit_box)
        form = QFormLayout()
        form.addRow("View", self.view_box)
        form.addRow("Format", self.format_box)
        form.addRow("Size", size_row)
        form.addRow("DPI", self.dpi_box)
        form.addRow("Font size", self.font_box)

        self.preview = QLabel("no run yet")
        self.preview.setObjectName("export_view_preview")
        self.preview.setAlignment(Qt.AlignCenter)
        self.preview.setMinimumSize(520, 380)
        self.preview.setStyleSheet("background: #f4f4f4; border: 1px solid #ccc;")
        self.info = QLabel("")
        self.info.setObjectName("export_view_info")
        self.info.setWordWrap(True)
        self.message = QLabel("")
        self.message.setObjectName("export_view_message")
        self.message.setWordWrap(True)

        self.figure_button = QPushButton("Export figure...")
        self.figure_button.setObjectName("export_view_figure")
        self.data_button = QPushButton("Export data...")
        self.data_button.setObjectName("export_view_data")
        self.data_button.setToolTip("The plotted arrays as CSV, with a JSON sidecar saying where they come from")
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        self.figure_button.clicked.connect(lambda: self.export_figure())
        self.data_button.clicked.connect(lambda: self.export_data())
        buttons = QHBoxLayout()
        buttons.addWidget(self.figure_button)
        buttons.addWidget(self.data_button)
        buttons.addStretch(1)
        buttons.addWidget(close)

        left = QVBoxLayout()
        left.addLayout(form)
        left.addWidget(self.info)
        left.addWidget(self.message)
        left.addStretch(1)
        left.addLayout(buttons)
        lay = QHBoxLayout(self)
        lay.addLayout(left)
        lay.addWidget(self.preview, 1)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(250)
        self._timer.timeout.connect(self.refresh)
        for box in (self.view_box, self.unit_box):
            box.currentIndexChanged.connect(self._changed)
        self.unit_box.currentIndexChanged.connect(self._unit_changed)
        for spin in (self.width_box, self.height_box, self.dpi_box, self.font_box):
            spin.valueChanged.connect(self._changed)
        self._unit = "cm"

    # ----------------------------------------------------------- state
    def set_snapshot(
        self, snapshot, seed: int | None = None, view: str | None = None, worker_state: str | None = None
    ) -> None:
        """Export ``snapshot`` (of a run with ``seed``), showing ``view`` (a core or lab view key) first;
        ``worker_state`` (the window's worker's, when the snapshot was taken) gives the run's state the
        provenance records (:func:`run_state`)."""
        self.snapshot, self.seed = snapshot, seed
        self.run_state = run_state(worker_state, snapshot)
        current = view or self.view()
        current = LAB_VIEWS.get(current or "", current)
        self.view_box.blockSignals(True)
        self.view_box.clear()
        if snapshot is not None:
            for name in vf.view_names(snapshot):
                self.view_box.addItem(vf.view_title(name), name)
            i = self.view_box.findData(current)
            self.view_box.setCurrentIndex(max(i, 0))
        self.view_box.blockSignals(False)
        enabled = snapshot is not None
        self.figure_button.setEnabled(enabled)
        self.data_button.setEnabled(enabled)
        self.refresh()

    def view(self) -> str | None:
        """The core view chosen."""
        return self.view_box.currentData()

    def style(self) -> vf.FigureStyle:
        """The options as a :class:`~sudoku_lab.analysis.view_figures.FigureStyle` (ParameterError if wrong)."""
        font = self.font_box.value()
        return vf.FigureStyle(
            self.width_box.value(),
            self.height_box.value(),
            self.unit_box.currentData(),
            self.dpi_box.value(),
            None if font == 0 else font,
        )

    def format(self) -> str:
        return self.format_box.currentData()

    def _unit_changed(self) -> None:
        """Switching cm and inches converts the size (the figure stays the same)."""
        unit = self.unit_box.currentData()
        if unit == self._unit:
            return
        factor = 1 / vf.CM_PER_INCH if unit == "in" else vf.CM_PER_INCH
        for box in (self.width_box, self.height_box):
            box.blockSignals(True)
            box.setValue(round(box.value() * factor, 2))
            box.blockSignals(False)
        self._unit = unit

    def _changed(self, *_args) -> None:
        self._timer.start()

    def _fail(self, text: str) -> None:
        self.message.setStyleSheet("color: #b00020;")
        self.message.setText(text)

    def _ok(self, text: str) -> None:
        self.message.setStyleSheet("color: #1a7f37;")
        self.message.setText(text)

    # --------------------------------------------------------- preview
    def refresh(self) -> None:
        """Re-render the preview through the core (off the GUI thread); a bad option is said instead."""
        self._timer.stop()
        if self.snapshot is None or self.view() is None:
            self.preview.setPixmap(QPixmap())
            self.preview.setText("no run yet")
            return
        try:
            style = self.style()
        except SudokuLabError as e:
            self._fail(str(e))
            return
        self.message.setText("")
        px = style.pixels()
        self.info.setText(f"PNG: {px[0]} x {px[1]} pixels" if px else "")
        snapshot, view = self.snapshot, self.view()
        self._jobs.submit("preview", lambda: _render(snapshot, view, style), self._show, self._preview_failed)

    def _show(self, result) -> None:
        data, pixels, dpi = result
        pm = QPixmap()
        pm.loadFromData(data, "PNG")
        self.preview_pixels, self.preview_dpi = pixels, dpi
        self.preview.setPixmap(pm.scaled(self.preview.size(), Qt.KeepAspectRatio, Qt.SmoothTransformation))
        if dpi != self.dpi_box.value():
            self.info.setText(self.info.text() + f" (preview at {dpi} dpi)")
        self.renders += 1

    def _preview_failed(self, e: BaseException) -> None:
        self._fail(str(e) if isinstance(e, SudokuLabError) else f"The preview failed: {e}")

    # ----------------------------------------------------------- files
    def _ask(self, title: str, suffix: str, filter_: str) -> Path | None:
        name = f"{self.snapshot.solver}-{self.view()}.{suffix}"
        path, _ = QFileDialog.getSaveFileName(self, title, name, filter_)
        return Path(path) if path else None

    def export_figure(self, path: str | Path | None = None) -> Path | None:
        """Write the view as the chosen format to ``path`` (asked for when None); the file, or None."""
        if self.snapshot is None:
            return None
        fmt = self.format()
        if path is None:
            path = self._ask("Export view", fmt, f"{fmt.upper()} (*.{fmt})")
            if path is None:
                return None
        path = Path(path)
        if path.suffix.lower() != f".{fmt}":
            path = path.with_name(path.name + f".{fmt}")
        try:
            out = vf.export_view(self.snapshot, self.view(), path, self.style())
        except SudokuLabError as e:
            self._fail(f"Export failed: {e}")
            return None
        self._ok(f"Wrote {out.name}")
        return out

    def export_data(self, path: str | Path | None = None) -> tuple[Path, Path] | None:
        """Write the view's data as CSV with its JSON sidecar to ``path`` (asked for when None)."""
        if self.snapshot is None:
            return None
        if path is None:
            path = self._ask("Export view data", "csv", "CSV (*.csv)")
            if path is None:
                return None
        path = Path(path)
        if path.suffix.lower() != ".csv":
            path = path.with_name(path.name + ".csv")
        try:
            out = vf.export_view_data(self.snapshot, self.view(), path, seed=self.seed, state=self.run_state)
        except SudokuLabError as e:
            self._fail(f"Export failed: {e}")
            return None
        self._ok(f"Wrote {out[0].name} and {out[1].name}")
        return out
