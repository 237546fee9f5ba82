"""The run toolbar: Run/Pause, Step 1, Step phase, Step N, Stop, Reset, the run's end condition, speed and seed.

Its actions carry the window's keyboard shortcuts (Space, Right, Ctrl+Right,
Shift+Right, Esc, Ctrl+R) and are enabled from the worker's state: nothing runs
while the kernels compile, a stopped or finished run needs a Reset. Step phase
is enabled only for a solver that declares the phases of its iterations.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QComboBox, QLabel, QMainWindow, QPushButton, QSpinBox, QToolBar

from sudoku_lab.solvers import get_solver_class
from sudoku_lab.stepping import loop

from .controller import SPEEDS, Controller
from .worker import WorkerState

__all__ = ["RunToolbar", "make_action", "UNTIL"]

UNTIL = ("until solved", "for N iterations", "for T seconds")


def make_action(window: QMainWindow, text: str, shortcut: str | None, slot, tip: str = "") -> QAction:
    """A window-wide action with a shortcut shown in its tooltip ("Run or pause (Space)")."""
    a = QAction(text, window)
    if shortcut:
        a.setShortcut(QKeySequence(shortcut))
        a.setShortcutContext(Qt.WindowShortcut)
    a.setToolTip(f"{tip or text} ({shortcut})" if shortcut else (tip or text))
    a.triggered.connect(slot)
    window.addAction(a)
    return a


class RunToolbar(QToolBar):
    """Run controls of the lab, driving a :class:`Controller`."""

    def __init__(self, window: QMainWindow, controller: Controller):
        super().__init__("Run", window)
        self.controller = c = controller
        #: Called before every run action (the window's: commit the box being typed in, focus the board), so a
        #: seed or an N typed and not yet entered applies to the action, and the keys go on working after it.
        self.before_action = None
        self.setObjectName("toolbar_run")
        self.setToolButtonStyle(Qt.ToolButtonTextOnly)
        act = self._first_leave_editor
        self.act_run = make_action(window, "Run", "Space", act(self._toggle_run), "Run or pause")
        self.act_step = make_action(window, "Step 1", "Right", act(lambda: c.step(1)), "One iteration")
        self.act_step_phase = make_action(
            window,
            "Step phase",
            "Ctrl+Right",
            act(c.step_phase),
            "One phase of the iteration, showing what it changed (solvers that declare phases)",
        )
        self.act_step_n = make_action(
            window, "Step N", "Shift+Right", act(lambda: c.step(self.step_n.value())), "N iterations (N in the box)"
        )
        self.act_stop = make_action(window, "Stop", "Esc", act(c.stop), "End this run (Reset to start again)")
        self.act_reset = make_action(
            window, "Reset", "Ctrl+R", act(c.reset), "Start again from the puzzle with the seed"
        )
        self.addAction(self.act_run)
        self.addAction(self.act_step)
        self.addAction(self.act_step_phase)
        self.addAction(self.act_step_n)
        self.step_n = QSpinBox()
        self.step_n.setRange(1, 10_000_000)
        self.step_n.setValue(10)
        self.step_n.setToolTip("N for Step N")
        self.addWidget(self.step_n)
        self.addAction(self.act_stop)
        self.addAction(self.act_reset)
        self.addSeparator()
        self.addWidget(QLabel(" Run "))
        self.until_box = QComboBox()
        self.until_box.addItems(UNTIL)
        self.until_value = QSpinBox()
        self.until_value.setRange(1, 100_000_000)
        self.until_value.setValue(500)
        self.until_value.setEnabled(False)
        self.addWidget(self.until_box)
        self.addWidget(self.until_value)
        self.addSeparator()
        self.addWidget(QLabel(" Speed "))
        self.speed_box = QComboBox()
        for label, rate in SPEEDS:
            self.speed_box.addItem(label, rate)
        self.speed_box.setCurrentIndex(len(SPEEDS) - 1)
        self.addWidget(self.speed_box)
        self.addSeparator()
        self.addWidget(QLabel(" Seed "))
        self.seed_box = QSpinBox()
        self.seed_box.setRange(0, 2**31 - 1)
        self.seed_box.setValue(c.seed)
        self.seed_box.setKeyboardTracking(False)
        self.addWidget(self.seed_box)
        self.random_seed = QPushButton("Randomise")
        self.random_seed.setToolTip("A new random seed (then Reset)")
        self.addWidget(self.random_seed)

        self.seed_box.valueChanged.connect(c.set_seed)
        self.random_seed.clicked.connect(self._randomise_seed)
        self.speed_box.currentIndexChanged.connect(lambda i: c.set_speed(self.speed_box.itemData(i)))
        self.until_box.currentIndexChanged.connect(self._on_until_changed)
        self._state = c.state
        self._phased = False
        c.solverChanged.connect(self.set_solver)
        self.set_solver(c.solver_name)

    def _first_leave_editor(self, slot):
        """``slot`` preceded by :attr:`before_action`."""

        def run(*_):
            if self.before_action is not None:
                self.before_action()
            slot()

        return run

    def actions_in_order(self) -> list[QAction]:
        """Run, Step 1, Step phase, Step N, Stop, Reset (for menus and the shortcut list)."""
        return [self.act_run, self.act_step, self.act_step_phase, self.act_step_n, self.act_stop, self.act_reset]

    def set_solver(self, name: str) -> None:
        """Step phase only for a solver that declares phases."""
        self._phased = bool(get_solver_class(name).phases)
        self.on_state(self._state)

    def termination(self) -> loop.Termination:
        """The end condition chosen in the "Run" box."""
        kind = self.until_box.currentIndex()
        if kind == 1:
            return loop.MaxIterations(self.until_value.value())
        if kind == 2:
            return loop.MaxSeconds(self.until_value.value())
        return loop.Solved()

    def on_state(self, state: str) -> None:
        """Enable the actions for a :class:`WorkerState`."""
        self._state = state
        running = state == WorkerState.RUNNING
        self.act_run.setText("Pause" if running else "Run")
        blocked = state in (WorkerState.FINISHED, WorkerState.STOPPED, WorkerState.COMPILING)
        for a in (self.act_run, self.act_step, self.act_step_n):
            a.setEnabled(not blocked or (a is self.act_run and running))
        self.act_step_phase.setEnabled(self._phased and not blocked)
        self.act_stop.setEnabled(state in (WorkerState.RUNNING, WorkerState.IDLE))
        self.act_reset.setEnabled(state != WorkerState.COMPILING)

    def _toggle_run(self) -> None:
        if self.act_run.isEnabled():
            self.controller.toggle_run(self.termination())

    def _on_until_changed(self, i: int) -> None:
        self.until_value.setEnabled(i != 0)
        self.until_value.setSuffix("" if i != 2 else " s")

    def _randomise_seed(self) -> None:
        seed = self.controller.randomize_seed()
        self.seed_box.blockSignals(True)
        self.seed_box.setValue(seed)
        self.seed_box.blockSignals(False)
