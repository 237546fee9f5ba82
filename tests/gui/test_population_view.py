"""The generic "Population" view: any solver declaring a ``population`` layer gets a live histogram.

A small solver defined here (outside the package) keeps a population of costs (no native objective, so
lower is better); the view shows for it without knowing it, marks best as the minimum, labels its axis
with the layer's help, and is not fed while hidden.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from sudoku_lab.model.scoring import missing_symbols
from sudoku_lab.solvers import Layer, Solver, register, unregister
from sudoku_lab.solvers.base import frozen_copy
from sudoku_lab_ui.solver_views.population import higher_is_better, histogram_edges

from lab_helpers import button, iteration  # noqa: E402

pytestmark = pytest.mark.gui


class HerdSolver(Solver):
    """Twelve 'nests' whose costs are drawn at random each tick; the grid never changes."""

    name = "test_herd"
    title = "Herd (test solver)"
    paper = "nobody 2025"
    reference = "docs/algorithms.md#nowhere"
    description = "A test solver with a population of costs."
    order = 991
    iteration_name = "tick"
    layers = (Layer("nests", "cost of each nest (missing symbols)", "float64", ("*",), role="population"),)

    def _reset(self):
        pz = self.puzzle
        self.grid = np.where(pz.grid > 0, pz.grid, 1).astype(np.int8)
        self.best_grid = self.grid.copy()
        self.fixed = pz.grid > 0
        self.cost = self.best_cost = missing_symbols(self.grid, pz.n)
        self.values = np.zeros(12)

    def _step(self, n):
        rows = []
        for _ in range(n):
            self.iteration += 1
            self.values = self.rng.integers(20, 40, 12).astype(float)
            rows.append([self.iteration, self.cost, self.best_cost])
        self.trace.extend(np.array(rows, dtype=float))
        return n

    def _layers(self):
        return {"nests": frozen_copy(self.values)}

    def _state(self):
        return {"values": self.values.copy()}

    def _load(self, st):
        self.values = st["values"].copy()


@pytest.fixture
def herd():
    register(HerdSolver)
    yield HerdSolver
    unregister("test_herd")


def test_histogram_edges():
    assert histogram_edges(np.array([3.0, 5.0, 5.0])).tolist() == [2.5, 3.5, 4.5, 5.5]
    assert histogram_edges(np.array([7.0])).tolist() == [6.5, 7.5]
    wide = histogram_edges(np.linspace(0.0, 1000.0, 50))
    assert len(wide) == 41 and wide[0] == 0.0 and wide[-1] == 1000.0
    frac = histogram_edges(np.array([0.25, 0.5]))
    assert len(frac) == 41


def test_population_view_for_any_solver_with_the_role(window, qtbot, herd):
    assert not higher_is_better(herd)
    win = window("reseda_fig3_1_easy")
    assert not win.view_docks["population"].isVisible()  # RESEDA declares no population
    win.solver_box.setCurrentIndex(win.solver_box.findData("test_herd"))
    qtbot.waitUntil(
        lambda: (
            win.controller.solver_name == "test_herd"
            and win.controller.state == "idle"
            and win.controller.latest is not None
        )
    )
    dock, view = win.view_docks["population"], win.views["population"]
    assert dock.isVisible()
    assert view.plot.getAxis("bottom").labelText == "cost of each nest (missing symbols)"
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    qtbot.waitUntil(lambda: iteration(win) == 10 and win.controller.state == "idle")
    nests = win.controller.latest.snapshot.layers["nests"]
    # the final frame's views are drawn one per event-loop turn: wait for this one's
    qtbot.waitUntil(lambda: view.counts.sum() == 12 and "tick 10" in view.summary.text())
    np.testing.assert_array_equal(view.counts, np.histogram(nests, bins=view.edges)[0])
    assert view.marks["best"] == nests.min() and view.marks["worst"] == nests.max()
    assert "tick 10: 12 individuals" in view.summary.text()
    # hidden: not redrawn; shown again: drawn at once with the latest population
    dock.hide()
    drawn = view.redraws
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    qtbot.waitUntil(lambda: iteration(win) == 20 and win.controller.state == "idle")
    qtbot.wait(300)
    assert view.redraws == drawn
    dock.show()
    nests = win.controller.latest.snapshot.layers["nests"]
    qtbot.waitUntil(lambda: view.redraws > drawn and "tick 20" in view.summary.text())
    np.testing.assert_array_equal(view.counts, np.histogram(nests, bins=view.edges)[0])


def test_the_view_names_no_solver():
    from pathlib import Path

    import sudoku_lab_ui.solver_views.population as mod
    from sudoku_lab.solvers import registry

    text = Path(mod.__file__).read_text()
    for name in registry():
        assert f'"{name}"' not in text and f"'{name}'" not in text


@pytest.mark.parametrize(
    "values",
    [
        np.full(150, 120.0),  # converged: best, mean and worst on one line
        np.r_[np.full(149, 120.0), 119.0],  # one straggler: mean a pixel from best, worst a bar away
        np.r_[np.full(75, 120.0), np.full(75, 118.0)],
    ],
)
def test_the_best_mean_and_worst_labels_never_print_on_top_of_each_other(qtbot, values):
    from sudoku_lab_ui.solver_views.population import PopulationView

    view = PopulationView()
    qtbot.addWidget(view)
    view.resize(420, 320)
    view.show()
    qtbot.waitExposed(view)
    view.set_values(values)
    qtbot.wait(20)
    rects = {key: line.label.sceneBoundingRect() for key, line in view.lines.items()}
    plot_area = view.plot.getViewBox().sceneBoundingRect()
    for a, b in (("best", "mean"), ("best", "worst"), ("mean", "worst")):
        assert not rects[a].intersects(rects[b]), (a, rects[a].getRect(), b, rects[b].getRect())
    for key, rect in rects.items():
        assert plot_area.contains(rect), (key, rect.getRect(), plot_area.getRect())
