"""Dockable views and the registry that decides which apply to which solver.

A view is chosen from the solver's declared layers (their *roles*, see
:mod:`sudoku_lab.solvers.declare`), never from its class: a view with
``requires_role="probability"`` appears for every solver that declares a layer
with that role, and reads the layer by role, not by name. A solver's issue
adds its own views with :func:`register_view` (or a plugin of the
``sudoku_lab.ui_plugins`` entry-point group does) without touching the
window; the view also says which dock it shares a tab with (``tab_with``).

Every view widget implements ``on_puzzle(puzzle)`` and ``on_progress(progress)``
(a :class:`~sudoku_lab.stepping.loop.Progress`); ``on_solver(cls)`` is optional and
called when the view is shown for a solver.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QComboBox, QHeaderView, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from sudoku_lab.exact.ac3 import ac3
from sudoku_lab.plugins import UI_PLUGIN_GROUP, Registry
from sudoku_lab.solvers import get_solver_class

from .background import Jobs
from .widgets.ac3_player import AC3Player
from .widgets.convergence import ConvergencePlot
from .widgets.probability import ProbabilityView

__all__ = ["ViewSpec", "register_view", "unregister_view", "views", "views_for", "layer_of"]


@dataclass(frozen=True)
class ViewSpec:
    """A dockable view.

    Attributes
    ----------
    key : str
        Stable identifier (object name of the dock, saved layouts).
    title : str
        Dock title.
    factory : callable
        ``factory(parent) -> QWidget`` with ``on_puzzle`` / ``on_progress``.
    applies : callable, optional
        ``applies(solver_class) -> bool``: whether to show it for that solver.
        Default: the solver declares a layer with ``requires_role`` (or, with
        no role required, always).
    area : Qt.DockWidgetArea
        Where it docks first.
    requires_role : str, optional
        A layer role the solver must declare for the view to show.
    tab_with : str, optional
        Key of the view whose dock this one shares as a tab (the other one
        stays in front).
    """

    key: str
    title: str
    factory: Callable
    applies: Callable | None = None
    area: Qt.DockWidgetArea = Qt.BottomDockWidgetArea
    requires_role: str | None = None
    tab_with: str | None = None

    @property
    def for_every_solver(self) -> bool:
        """True for a view shown whatever the solver (no role required, no own ``applies``)."""
        return self.requires_role is None and getattr(self, "_every", False)

    def __post_init__(self):
        if not self.key or not isinstance(self.key, str):
            raise TypeError(f"a view needs a key, got {self.key!r}")
        object.__setattr__(self, "_every", self.applies is None)
        if self.applies is None:
            role = self.requires_role
            object.__setattr__(
                self, "applies", (lambda cls: bool(cls.layers_with_role(role))) if role else (lambda cls: True)
            )


#: False until this module's own built-ins are registered (at its end); then ui/solver_views may load.
_OWN_REGISTERED = False


def _load_solver_views() -> None:
    """The per-solver built-ins of ``ui/solver_views`` (imported once, after this module's own)."""
    if _OWN_REGISTERED:
        from .solver_views import load

        load()


_REGISTRY: Registry[ViewSpec] = Registry("view", key=lambda s: s.key, group=UI_PLUGIN_GROUP)

#: Size hint of views in a side dock: modest, so the middle of the window goes to the board.
SIDE_DOCK_HINT = QSize(470, 520)


def register_view(spec: ViewSpec, replace: bool = False) -> ViewSpec:
    """Add a view to the lab's docks.

    Raises
    ------
    ValueError
        Another view already has that key (``replace=True`` replaces it on purpose).
    """
    if not isinstance(spec, ViewSpec):
        raise TypeError(f"register_view() takes a ViewSpec, got {spec!r}")
    _load_solver_views()
    return _REGISTRY.register(spec, replace=replace)


def unregister_view(key: str) -> None:
    """Remove a view (tests, interactive sessions)."""
    _REGISTRY.unregister(key)


def views() -> Mapping[str, ViewSpec]:
    """Registered views by key, in registration order (UI plugins loaded)."""
    _load_solver_views()
    return _REGISTRY.mapping()


def views_for(solver_cls) -> list[ViewSpec]:
    """The views shown for a solver class."""
    return [v for v in views().values() if v.applies(solver_cls)]


def layer_of(cls, role: str) -> str | None:
    """Name of the first layer of ``cls`` with ``role``, or None."""
    found = cls.layers_with_role(role)
    return found[0].name if found else None


class _RoleView:
    """Mixin: remembers the solver class, so a view finds its layers by role."""

    _solver_cls = None

    def on_solver(self, cls) -> None:
        self._solver_cls = cls

    def _cls(self, snapshot):
        if self._solver_cls is None or self._solver_cls.name != snapshot.solver:
            self._solver_cls = get_solver_class(snapshot.solver)
        return self._solver_cls


# ---------------------------------------------------------------- built-ins
class ConvergenceView(ConvergencePlot):
    """The solver's declared trace columns, threshold lines, restart and parameter-change markers."""

    def on_puzzle(self, puzzle) -> None:
        self.clear()

    def on_solver(self, cls) -> None:
        self.clear()
        self.set_solver(cls)

    def on_progress(self, prog) -> None:
        s = prog.snapshot
        if s.iteration == 0:
            self.clear()
        self.set_trace(s.trace)
        self.set_params(s.params)
        self.set_events(s.events)


class ProbabilityModelView(_RoleView, ProbabilityView):
    """The layer with role ``probability`` as mini-tiles, and the ``entropy`` layer as a map."""

    def sizeHint(self) -> QSize:
        return SIDE_DOCK_HINT

    def on_puzzle(self, puzzle) -> None:
        self.clear()

    def on_progress(self, prog) -> None:
        s = prog.snapshot
        cls = self._cls(s)
        name = layer_of(cls, "probability")
        p = s.layers.get(name) if name else None
        if p is None:
            return
        self.set_model(p, s.puzzle.n, s.fixed)
        step = getattr(prog, "phase", None)  # a phase step: the rows of p it moved are marked
        self.set_marked_rows(step.changed.get("rows") if step is not None else None)
        h_name = layer_of(cls, "entropy")
        h = s.layers.get(h_name) if h_name else None
        if h is not None:
            self.set_entropy(h)


class AC3View(_RoleView, AC3Player):
    """The AC3 player: the current puzzle's propagation, or the one a solver ran in its latest iteration.

    Every solver gets the puzzle's AC3 (a teaching tool independent of the
    solver), run off the GUI thread; the player shows the result when it
    arrives (a newer puzzle supersedes an older computation). A solver that
    declares a layer with role ``ac3`` (an :class:`~sudoku_lab.exact.ac3.AC3Result`:
    AC3-tabu search's propagation of its latest move, the cuckoo search's
    prefilter) adds a second source, chosen by default: while a run goes on
    the player shows that result at its end, with the removals of the
    iteration struck through; once paused, Reset / Step / Fine step replay
    it arc by arc. An int layer named ``<layer>_iteration``, when declared,
    says which iteration the result belongs to.
    """

    PUZZLE, SOLVER = 0, 1

    def __init__(self, parent=None):
        super().__init__(parent)
        self._jobs = Jobs(self)
        self._layer: str | None = None
        self._current = None  # the puzzle shown
        self.source = QComboBox()
        self.source.setObjectName("ac3_source")
        self.source.addItems(["the puzzle's AC3", "the solver's latest iteration"])
        self.source.setToolTip(
            "Replay AC3 on the puzzle's givens, or the propagation the solver ran in its "
            "latest iteration (solvers that run AC3 themselves)"
        )
        self.source.setEnabled(False)
        self.source.currentIndexChanged.connect(self._source_changed)
        self.side_layout.insertWidget(0, self.source)

    def sizeHint(self) -> QSize:
        return SIDE_DOCK_HINT

    @property
    def showing_solver(self) -> bool:
        """True when the player follows the solver's own AC3 runs."""
        return self._layer is not None and self.source.currentIndex() == self.SOLVER

    def on_solver(self, cls) -> None:
        """Follow solver class ``cls``: its own AC3 runs if it declares them, the puzzle's AC3 otherwise.

        A propagation another solver ran is never left on show: the player goes
        back to the puzzle's AC3 until the new solver's own first result arrives.
        """
        super().on_solver(cls)
        self._layer = layer_of(cls, "ac3")
        self.source.blockSignals(True)
        self.source.setEnabled(self._layer is not None)
        self.source.setCurrentIndex(self.SOLVER if self._layer else self.PUZZLE)
        self.source.blockSignals(False)
        self.hidden_singles.setEnabled(not self.showing_solver)
        if self.caption and self._current is not None:  # a solver's run, not the puzzle's own AC3
            self.on_puzzle(self._current)

    def on_puzzle(self, puzzle) -> None:
        self._current = puzzle
        if puzzle is None:
            self.set_puzzle(None)
            return
        hidden = self.hidden_singles.isChecked()
        self.counters.setText("running AC3...")
        self._jobs.submit(
            "ac3", lambda: ac3(puzzle, hidden_singles=hidden), lambda result: self.set_puzzle(puzzle, result)
        )

    def on_progress(self, prog) -> None:
        s = prog.snapshot
        if self._solver_cls is None or self._solver_cls.name != s.solver:
            self.on_solver(get_solver_class(s.solver))
        cls = self._solver_cls
        if not self.showing_solver:
            return
        result = s.layers.get(self._layer)
        if result is None or result is self.result:
            return
        it = s.layers.get(f"{self._layer}_iteration")
        where = (
            "prefilter (before the first iteration)"
            if it == 0
            else (f"{cls.iteration_name} {it}" if it is not None else f"the latest {cls.iteration_name}")
        )
        self.set_puzzle(s.puzzle, result, caption=f"{cls.title}: AC3 {'of ' * (it != 0)}{where}")
        self.show_end()

    def _source_changed(self, index: int) -> None:
        self.hidden_singles.setEnabled(not self.showing_solver)
        if not self.showing_solver:
            self.on_puzzle(self._current)


class RunsView(_RoleView, QWidget):
    """One row per finished run, with the columns and headers the ``runs`` layer declares.

    Rows whose ``outcome`` is ``"solved"`` are drawn in green.
    """

    #: Columns are fitted to their contents while the table has fewer rows than this.
    FIT_ROWS = 100

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.table = QTableWidget(0, 0)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        # Columns fit the first rows; resizing to contents on every new row of a long run costs a scan
        # of the whole table each time.
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
        lay.addWidget(self.table)
        self._layer: str | None = None
        self._keys: tuple[str, ...] = ()
        self._shown = 0

    def on_solver(self, cls) -> None:
        super().on_solver(cls)
        found = cls.layers_with_role("runs")
        layer = found[0] if found else None
        self._layer = layer.name if layer else None
        self._keys = tuple(k for k, _ in layer.columns) if layer else ()
        self.table.setColumnCount(len(self._keys))
        self.table.setHorizontalHeaderLabels([h for _, h in layer.columns] if layer else [])
        self.fonts_changed()
        self.on_puzzle(None)

    #: A column fitted to its cells is no wider than its header or this many characters, whichever is wider
    #: (longer cells are elided, whole in their tooltips): a long outcome pushed the rest off the view.
    CELL_CHARS = 16

    def fonts_changed(self) -> None:
        """Fit the columns to the headers and cells in the current type (presentation mode makes it larger)."""
        table = self.table
        table.resizeColumnsToContents()
        header = table.horizontalHeader()
        fm, cells = header.fontMetrics(), table.fontMetrics()
        pad = 4 * fm.averageCharWidth()
        for col in range(table.columnCount()):
            item = table.horizontalHeaderItem(col)
            most = max(
                fm.horizontalAdvance(item.text() if item is not None else "") + pad,
                self.CELL_CHARS * cells.averageCharWidth(),
            )
            if header.sectionSize(col) > most:
                header.resizeSection(col, most)

    def headers(self) -> list[str]:
        """The table's column headers."""
        return [self.table.horizontalHeaderItem(i).text() for i in range(self.table.columnCount())]

    def on_puzzle(self, puzzle) -> None:
        self.table.setRowCount(0)
        self._shown = 0

    def on_progress(self, prog) -> None:
        s = prog.snapshot
        if self._solver_cls is None or self._solver_cls.name != s.solver:
            self.on_solver(get_solver_class(s.solver))
        rows = s.layers.get(self._layer, ()) if self._layer else ()
        if len(rows) < self._shown:
            self.on_puzzle(None)
        green = QBrush(QColor(Qt.darkGreen))
        fit = self._shown < self.FIT_ROWS
        self.table.setUpdatesEnabled(False)
        for rec in rows[self._shown :]:
            r = self.table.rowCount()
            self.table.insertRow(r)
            solved = rec.get("outcome") == "solved"
            for c, key in enumerate(self._keys):
                v = rec.get(key)
                item = QTableWidgetItem("-" if v in (None, "") else str(v))
                if len(item.text()) > self.CELL_CHARS:  # it may be elided: whole on hover
                    item.setToolTip(item.text())
                if solved:
                    item.setForeground(green)
                self.table.setItem(r, c, item)
        self.table.setUpdatesEnabled(True)
        if len(rows) > self._shown:
            if fit:
                self.fonts_changed()
            self.table.scrollToBottom()
        self._shown = len(rows)


register_view(ViewSpec("convergence", "Convergence", ConvergenceView, area=Qt.BottomDockWidgetArea))
register_view(
    ViewSpec(
        "probability",
        "Probability model",
        ProbabilityModelView,
        area=Qt.RightDockWidgetArea,
        requires_role="probability",
    )
)
register_view(
    ViewSpec(
        "runs",
        "Runs and restarts",
        RunsView,
        area=Qt.BottomDockWidgetArea,
        requires_role="runs",
        tab_with="convergence",
    )
)
register_view(ViewSpec("ac3", "AC3 propagation", AC3View, area=Qt.RightDockWidgetArea, tab_with="probability"))


_OWN_REGISTERED = True
