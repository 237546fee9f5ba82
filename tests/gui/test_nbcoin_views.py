"""NB-COIN's Box models view in the real window: images equal the layer, outlines mark the top movers."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from lab_helpers import button, iteration


def test_box_models_view_follows_the_solver(window, qtbot):
    from sudoku_lab_ui.solver_views.nbcoin import top_movers
    from sudoku_lab_ui.widgets.probability import model_image

    win = window("nbcoin_106_difficult")
    win.solver_box.setCurrentIndex(win.solver_box.findData("nbcoin"))
    qtbot.waitUntil(
        lambda: (
            win.controller.solver_name == "nbcoin"
            and win.controller.state == "idle"
            and win.controller.latest is not None
            and win.controller.latest.snapshot.solver == "nbcoin"
        )
    )
    dock = win.view_docks["nbcoin_box_models"]
    assert dock.toggleViewAction().isEnabled()
    dock.raise_()
    view = win.views["nbcoin_box_models"]
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)  # 10 generations
    qtbot.waitUntil(lambda: iteration(win) == 10)
    snap = win.controller.latest.snapshot
    qtbot.waitUntil(lambda: view.readout.text().startswith("generation 10:"))
    M = snap.layers["models"]
    assert len(view.images) == 9
    for b in range(9):
        np.testing.assert_array_equal(view.images[b].image, M[b])
    expected = {}
    for b, pos in top_movers(snap.layers["moved"], 9):
        expected.setdefault(b, []).append(pos)
    assert view.marked_rows() == {b: sorted(p) for b, p in expected.items()} and expected
    # the shared probability view and shading come from the probability role
    assert win.overlay_toggles["probability"].isEnabled()
    win.show_shading.setChecked(True)
    np.testing.assert_allclose(win.board._shading, snap.layers["prob"].max(axis=1))
    prob_view = win.views["probability"]
    win.view_docks["probability"].raise_()
    qtbot.waitUntil(lambda: prob_view.prob_panel.image.image is not None)
    np.testing.assert_array_equal(prob_view.prob_panel.image.image, model_image(snap.layers["prob"], 3))
    win.view_docks["nbcoin_box_models"].raise_()
    # a live change of k is logged as an Event and drawn as a marker on the convergence plot
    win.params_panel.spin_box("k").setValue(0.6)
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    qtbot.waitUntil(lambda: iteration(win) == 20)
    events = [e for e in win.controller.latest.snapshot.events if e.kind == "param" and e.name == "k"]
    assert len(events) == 1 and events[0].iteration == 10 and events[0].new == 0.6
    conv = win.views["convergence"]
    win.view_docks["convergence"].raise_()
    qtbot.waitUntil(lambda: conv.n_events >= 1)
    conv.update_markers()
    drawn = conv.drawn_markers()
    assert [(m.kind, m.iteration) for m in drawn] == [("param", 10)]
    assert "k" in conv.marker_labels()[0]
