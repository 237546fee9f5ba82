"""The GA in the lab window: chosen from the solver menu, stepped with the toolbar, its population histogram,
its fitness curves and a live parameter change drawn as a marker on them."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from lab_helpers import button, iteration  # noqa: E402

pytestmark = pytest.mark.gui


def _choose_ga(win, qtbot):
    win.solver_box.setCurrentIndex(win.solver_box.findData("ga"))
    qtbot.waitUntil(
        lambda: (
            win.controller.solver_name == "ga"
            and win.controller.state == "idle"
            and win.controller.latest is not None
            and win.controller.latest.snapshot.solver == "ga"
        ),
        timeout=120_000,
    )


def test_ga_population_histogram_and_live_mutation_marker(window, qtbot):
    win = window("nbcoin_27_medium")
    _choose_ga(win, qtbot)
    docks, view = win.view_docks, win.views["population"]
    assert docks["population"].isVisible() and not docks["probability"].isVisible()
    assert view.plot.getAxis("bottom").labelText.startswith("fitness of each individual")
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)  # 10 generations
    qtbot.waitUntil(lambda: iteration(win) == 10 and win.settled())  # its last frame drawn in every view
    snap = win.controller.latest.snapshot
    fit = snap.layers["fitness"]
    qtbot.waitUntil(lambda: view.counts.sum() == len(fit) == 150)
    counts, _ = np.histogram(fit, bins=view.edges)
    np.testing.assert_array_equal(view.counts, counts)
    assert np.all(np.diff(view.edges) == 1.0)  # one bar per fitness value
    np.testing.assert_array_equal(view.bars.opts["height"], counts)
    assert view.marks == {"best": fit.max(), "mean": pytest.approx(fit.mean()), "worst": fit.min()}
    assert view.lines["best"].value() == fit.max() and view.lines["worst"].value() == fit.min()
    assert "generation 10: 150 individuals" in view.summary.text()
    # the elite is the board's grid
    np.testing.assert_array_equal(snap.grid, snap.layers["individuals"][snap.layers["elite"]])
    # best, mean and worst fitness over time are curves on the fitness axis
    conv = win.views["convergence"]
    docks["convergence"].raise_()
    qtbot.waitUntil(
        lambda: (
            conv.curves["best_fitness"].getOriginalDataset()[0] is not None
            and len(conv.curves["best_fitness"].getOriginalDataset()[0]) == 10
        )
    )
    np.testing.assert_array_equal(conv.curves["worst_fitness"].getOriginalDataset()[1], snap.trace["worst_fitness"])
    assert conv.curves["mean_fitness"].getViewBox() is conv.right_view
    assert conv.plot.getAxis("bottom").labelText == "generation"
    # a live change of the mutation probability: logged at generation 10, a marker on the curves
    win.params_panel.spin_box("mutation_rate").setValue(0.6)
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    qtbot.waitUntil(lambda: iteration(win) == 20 and win.settled())
    events = win.controller.latest.snapshot.events
    assert [(e.kind, e.name, e.iteration, e.old, e.new) for e in events] == [("param", "mutation_rate", 10, 0.3, 0.6)]
    qtbot.waitUntil(lambda: any("mutation" in label for label in conv.marker_labels()))
    marker = next(m for m in conv.drawn_markers() if "mutation" in m.label)
    assert marker.iteration == 10
    # the histogram follows the new generation
    fit = win.controller.latest.snapshot.layers["fitness"]
    qtbot.waitUntil(
        lambda: (
            np.array_equal(view.counts, np.histogram(fit, bins=view.edges)[0])
            and view.summary.text().startswith("generation 20")
        )
    )
