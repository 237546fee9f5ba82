"""A parameter form generated from a solver's declarations (sudoku_lab.solvers.base.Param).

Floats in [0, 1] get a slider beside the spin box, ints a spin box, bools a
check box, choices a combo box; tooltips carry the paper's meaning, default
and range. Values outside the declared range cannot be typed; rules between
parameters (RESEDA's Q1 <= Q) are checked by the controller and a refusal is
shown under the form. Parameters that cannot change mid-run are disabled
while a run is under way.

On the timeline, rewound, the form shows the values in force at the iteration
shown (the snapshot's), with a line saying so (:meth:`ParamsPanel.set_rewound`);
a change made there continues the run from that iteration as a new branch.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from sudoku_lab.solvers.base import Param

__all__ = ["ParamsPanel"]

_SLIDER_STEPS = 1000


def _tooltip(p: Param) -> str:
    live = f"Applies: {p.when}." if p.live else "Needs a reset to apply."
    paper = f" ({p.paper})" if p.paper else ""
    return f"<b>{p.name}</b>{paper}<br>{p.help}<br><br>Default: {p.default}. Allowed: {p.range_text()}. {live}"


class ParamsPanel(QWidget):
    """Form for one solver's parameters.

    Signals
    -------
    edited(str, object)
        The user changed parameter ``name`` to ``value`` (already range-checked).
    """

    edited = Signal(str, object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(4, 4, 4, 4)
        self._form_host = QWidget()
        self._form = QFormLayout(self._form_host)
        self._form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        self.rewound_label = QLabel()
        self.rewound_label.setObjectName("params_rewound")
        self.rewound_label.setWordWrap(True)
        self.rewound_label.setStyleSheet("color: #8a5a00;")
        self.rewound_label.hide()
        self._layout.addWidget(self.rewound_label)
        self._layout.addWidget(self._form_host)
        self.rewound_at: int | None = None  #: the iteration whose values the form shows when rewound
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #b00020;")
        self.error_label.hide()
        self._layout.addWidget(self.error_label)
        self._layout.addStretch(1)
        self.editors: dict[str, QWidget] = {}
        self._params: dict[str, Param] = {}
        self._updating = False
        self._running = False  # a run under way: the parameters that need a reset are disabled

    # ------------------------------------------------------------------ build
    def set_declarations(self, params: tuple[Param, ...], values: dict) -> None:
        """Rebuild the form for a solver's parameter declarations and current values."""
        while self._form.rowCount():
            self._form.removeRow(0)
        self.editors.clear()
        self._params = {p.name: p for p in params}
        if not params:
            self._form.addRow(QLabel("This algorithm has no parameters."))
        for p in params:
            editor = self._make_editor(p)
            label = QLabel(p.label)
            label.setToolTip(_tooltip(p))
            self._form.addRow(label, editor)
            self.editors[p.name] = editor
        self.set_values(values)
        self.show_error(None)
        self.set_running(self._running)  # a new form keeps the lock until the worker says the new run is at its start

    def _make_editor(self, p: Param) -> QWidget:
        tip = _tooltip(p)
        if p.kind == "bool":
            w = QCheckBox()
            w.toggled.connect(lambda v, name=p.name: self._emit(name, bool(v)))
        elif p.kind == "choice":
            w = QComboBox()
            w.addItems(list(p.choices))
            w.currentTextChanged.connect(lambda v, name=p.name: self._emit(name, v))
        elif p.kind == "int":
            w = QSpinBox()
            w.setRange(
                int(p.low if p.low is not None else -(2**31)) + (1 if p.low_open else 0),
                int(min(p.high if p.high is not None else 2**31 - 1, 2**31 - 1)) - (1 if p.high_open else 0),
            )
            w.setKeyboardTracking(False)  # typing "150" must not apply 1 and 15 first
            w.valueChanged.connect(lambda v, name=p.name: self._emit(name, int(v)))
        else:
            spin = QDoubleSpinBox()
            spin.setDecimals(3)
            lo = p.low if p.low is not None else -1e9
            hi = p.high if p.high is not None else 1e9
            spin.setRange(lo + (0.001 if p.low_open else 0.0), hi - (0.001 if p.high_open else 0.0))
            spin.setSingleStep(p.step or 0.01)
            spin.setKeyboardTracking(False)
            w = spin
            if p.low is not None and p.high is not None and p.high - p.low <= 1:
                w = QWidget()
                row = QHBoxLayout(w)
                row.setContentsMargins(0, 0, 0, 0)
                slider = QSlider(Qt.Horizontal)
                slider.setRange(0, _SLIDER_STEPS)
                slider.setToolTip(tip)
                row.addWidget(slider, 2)
                row.addWidget(spin, 1)
                w.slider, w.spin = slider, spin

                def from_slider(k, spin=spin):
                    spin.setValue(spin.minimum() + (spin.maximum() - spin.minimum()) * k / _SLIDER_STEPS)

                def to_slider(v, slider=slider, spin=spin):
                    slider.blockSignals(True)
                    span = spin.maximum() - spin.minimum()
                    slider.setValue(round((v - spin.minimum()) / span * _SLIDER_STEPS) if span else 0)
                    slider.blockSignals(False)

                slider.valueChanged.connect(from_slider)
                spin.valueChanged.connect(to_slider)
            spin.valueChanged.connect(lambda v, name=p.name: self._emit(name, float(v)))
        w.setToolTip(tip)
        return w

    # ----------------------------------------------------------------- values
    def set_values(self, values: dict) -> None:
        """Show ``values`` without emitting edits."""
        self._updating = True
        try:
            for name, v in values.items():
                w = self.editors.get(name)
                if w is None:
                    continue
                if isinstance(w, QCheckBox):
                    w.setChecked(bool(v))
                elif isinstance(w, QComboBox):
                    w.setCurrentText(str(v))
                elif isinstance(w, QSpinBox):
                    w.setValue(int(v))
                elif isinstance(w, QDoubleSpinBox):
                    w.setValue(float(v))
                else:
                    w.spin.setValue(float(v))
        finally:
            self._updating = False

    def set_rewound(self, iteration: int | None, word: str = "iteration") -> None:
        """Say the form shows the values in force at ``iteration`` of a rewound run (None: the live values)."""
        self.rewound_at = iteration
        if iteration is None:
            self.rewound_label.hide()
            return
        self.rewound_label.setText(
            f"Values in force at {word} {iteration:,} (rewound). A change continues the run from here as a new branch."
        )
        self.rewound_label.show()

    def value(self, name: str):
        w = self.editors[name]
        if isinstance(w, QCheckBox):
            return w.isChecked()
        if isinstance(w, QComboBox):
            return w.currentText()
        if isinstance(w, (QSpinBox, QDoubleSpinBox)):
            return w.value()
        return w.spin.value()

    def spin_box(self, name: str):
        """The spin box (or check/combo box) that edits ``name`` (for tests and shortcuts)."""
        w = self.editors[name]
        return getattr(w, "spin", w)

    def _emit(self, name: str, value) -> None:
        if not self._updating:
            self.edited.emit(name, value)

    def show_error(self, text: str | None) -> None:
        self.error_label.setText(text or "")
        self.error_label.setVisible(bool(text))

    def set_running(self, running: bool) -> None:
        """Disable the parameters that need a reset (``live=False``) while a run is under way.

        ``running`` is True from the first iteration of a run until a reset (the window passes the worker's
        word, not a polled frame): such a parameter is editable exactly while the run is at its start.
        """
        self._running = running
        for name, w in self.editors.items():
            w.setEnabled(self._params[name].live or not running)
