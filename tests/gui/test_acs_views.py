"""The ant colony system in the real window: the Ant failures view equals the layers, the pheromone is the
probability model, a Step phase places one digit and outlines what its propagation fixed."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from lab_helpers import button, iteration


def _choose_acs(win, qtbot):
    win.solver_box.setCurrentIndex(win.solver_box.findData("acs"))
    qtbot.waitUntil(
        lambda: (
            win.controller.solver_name == "acs"
            and win.controller.state == "idle"
            and win.controller.latest is not None
            and win.controller.latest.snapshot.solver == "acs"
        )
    )


def test_ant_failures_view_and_the_pheromone_follow_the_solver(window, qtbot):
    from sudoku_lab_ui.solver_views.acs import failure_summary
    from sudoku_lab_ui.widgets.probability import model_image

    win = window("lewis_16x16_35_01")
    _choose_acs(win, qtbot)
    win.params_panel.spin_box("q0").setValue(0.0)  # roulette only: a run of 10 iterations does not solve it
    win.params_panel.spin_box("ants").setValue(3)
    dock = win.view_docks["acs_failures"]
    assert dock.toggleViewAction().isEnabled()
    dock.raise_()
    view = win.views["acs_failures"]
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)  # 10 iterations, or fewer if solved
    qtbot.waitUntil(lambda: win.controller.state == "idle" and iteration(win) >= 1)
    qtbot.waitUntil(lambda: view.readout.text().startswith(f"iteration {iteration(win)}:"))
    snap = win.controller.latest.snapshot
    failed = np.asarray(snap.layers["failed"])
    np.testing.assert_array_equal(view.grid_image.image, failed.reshape(16, 16).astype(float))
    ant_failed = np.asarray(snap.layers["ant_failed"])
    assert ant_failed.shape == (3, 256)
    np.testing.assert_array_equal(view.ants_image.image, ant_failed.astype(np.uint8))
    assert view.readout.text().endswith(failure_summary(failed, ant_failed, int(snap.layers["best_ant"]), 16))
    prob_view = win.views["probability"]
    win.view_docks["probability"].raise_()
    qtbot.waitUntil(lambda: prob_view.prob_panel.image.image is not None)
    np.testing.assert_array_equal(prob_view.prob_panel.image.image, model_image(snap.layers["prob"], 4))
    np.testing.assert_allclose(np.asarray(snap.layers["prob"]).sum(axis=1), 1.0)


def test_a_place_phase_outlines_the_placed_and_propagated_cells(window, qtbot):
    win = window("ai_escargot")
    _choose_acs(win, qtbot)
    qtbot.mouseClick(button(win, win.act_step_phase), Qt.LeftButton)  # start
    qtbot.waitUntil(lambda: win.controller.latest.phase is not None and win.controller.latest.phase.name == "start")
    first = win.controller.latest.phase
    qtbot.mouseClick(button(win, win.act_step_phase), Qt.LeftButton)  # one placement
    qtbot.waitUntil(lambda: win.controller.latest.phase is not first and win.controller.latest.phase.name == "place")
    step = win.controller.latest.phase
    assert step.index == 1 and step.caption.startswith("ant 1 of 10 put ")
    cells = set(np.flatnonzero(step.changed["cells"]).tolist())
    qtbot.waitUntil(lambda: win.board.highlighted_cells() == frozenset(cells))
    assert step.caption.split(" at ")[1].split()[0] in win.board_panel.phase_caption.text()
    snap = win.controller.latest.snapshot
    assert snap.phase == 1  # "place" comes again: nine more ants have open cells
    np.testing.assert_array_equal(snap.grid, step.changed["sample"])  # mid-iteration the board is the ant's
