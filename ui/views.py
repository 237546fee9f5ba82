"""Dockable views and the registry that decides which apply to which solver.

A view is chosen from the solver's declared capabilities (``has_probability_model``,
``uses_domains``, ``has_population``, ``has_tabu_list``, ``has_restarts``) and
snapshot layers, never from its class, so a new solver's issue adds its views
here with :func:`register_view` without touching the main window.

Every view widget implements ``on_puzzle(puzzle)`` and ``on_progress(progress)``
(a :class:`~sudoku_lab.loop.Progress`); ``on_solver(cls)`` is optional.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from .widgets.ac3_player import AC3Player
from .widgets.convergence import ConvergencePlot
from .widgets.probability import ProbabilityView

__all__ = ["ViewSpec", "VIEWS", "register_view", "views_for"]


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
    applies : callable
        ``applies(solver_class) -> bool``: whether to show it for that solver.
    area : Qt.DockWidgetArea
        Where it docks first.
    """

    key: str
    title: str
    factory: Callable
    applies: Callable
    area: Qt.DockWidgetArea = Qt.BottomDockWidgetArea


VIEWS: list[ViewSpec] = []

#: Size hint of views in a side dock: modest, so the middle of the window goes to the board.
SIDE_DOCK_HINT = QSize(470, 520)


def register_view(spec: ViewSpec) -> ViewSpec:
    VIEWS[:] = [v for v in VIEWS if v.key != spec.key] + [spec]
    return spec


def views_for(solver_cls) -> list[ViewSpec]:
    return [v for v in VIEWS if v.applies(solver_cls)]


# ---------------------------------------------------------------- built-ins
class ConvergenceView(ConvergencePlot):
    """Costs, rho and entropy per iteration with restart and parameter-change markers."""

    def on_puzzle(self, puzzle) -> None:
        self.clear()

    def on_solver(self, cls) -> None:
        self.clear()
        self.set_iteration_name(cls.iteration_name)

    def on_progress(self, prog) -> None:
        s = prog.snapshot
        if s.iteration == 0:
            self.clear()
        self.set_trace(s.trace)
        self.set_events(s.events)
        self.set_beta(s.params.get("beta"))


class ProbabilityModelView(ProbabilityView):
    """p[cell, digit] as mini-tiles and the per-cell entropy map."""

    def sizeHint(self) -> QSize:
        return SIDE_DOCK_HINT

    def on_puzzle(self, puzzle) -> None:
        self.clear()

    def on_progress(self, prog) -> None:
        s = prog.snapshot
        p = s.layers.get("prob")
        if p is None:
            return
        self.set_model(p, s.puzzle.n, s.fixed)
        h = s.layers.get("entropy")
        if h is not None:
            self.set_entropy(h)


class AC3View(AC3Player):
    """The AC3 player on the current puzzle (a teaching tool independent of the solver)."""

    def sizeHint(self) -> QSize:
        return SIDE_DOCK_HINT

    def on_puzzle(self, puzzle) -> None:
        self.set_puzzle(puzzle)

    def on_progress(self, prog) -> None:
        pass


class RestartsView(QWidget):
    """One row per finished run: attempt, kind, zone, outcome, steps, final cost."""

    HEADERS = ("attempt", "run", "kind", "zone", "outcome", "steps", "cost", "at iteration")

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.table = QTableWidget(0, len(self.HEADERS))
        self.table.setHorizontalHeaderLabels([h.capitalize() for h in self.HEADERS])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        lay.addWidget(self.table)
        self._shown = 0

    def on_puzzle(self, puzzle) -> None:
        self.table.setRowCount(0)
        self._shown = 0

    def on_progress(self, prog) -> None:
        rows = prog.snapshot.layers.get("restarts", ())
        if len(rows) < self._shown:
            self.table.setRowCount(0)
            self._shown = 0
        for rec in rows[self._shown:]:
            r = self.table.rowCount()
            self.table.insertRow(r)
            vals = (rec["attempt"] + 1, rec["run"] + 1, rec["kind"], rec["zone_name"] or "-", rec["outcome"],
                    rec["steps"], rec["cost"], rec["end"])
            for c, v in enumerate(vals):
                item = QTableWidgetItem(str(v))
                if rec["outcome"] == "solved":
                    item.setForeground(Qt.darkGreen)
                self.table.setItem(r, c, item)
        if len(rows) > self._shown:
            self.table.scrollToBottom()
        self._shown = len(rows)


register_view(ViewSpec("convergence", "Convergence", ConvergenceView, lambda cls: True, Qt.BottomDockWidgetArea))
register_view(ViewSpec("probability", "Probability model", ProbabilityModelView,
                       lambda cls: cls.has_probability_model, Qt.RightDockWidgetArea))
register_view(ViewSpec("restarts", "Runs and restarts", RestartsView, lambda cls: cls.has_restarts,
                       Qt.BottomDockWidgetArea))
register_view(ViewSpec("ac3", "AC3 propagation", AC3View, lambda cls: True, Qt.RightDockWidgetArea))


def max_probability(snapshot) -> np.ndarray | None:
    """Per-cell max_k p for the board's shading overlay, when the solver has a model."""
    p = snapshot.layers.get("prob")
    return None if p is None else p.max(axis=1)
