"""The cuckoo search in the real window: the nests view's bars, history image and operator curves."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from lab_helpers import button, iteration, wait_ready


def test_nests_view_draws_the_nests_sorted_their_history_and_the_operators(window, qtbot):
    from sudoku_lab_ui.solver_views.cuckoo import ABANDONED, BEST, OTHER

    win = window("mk_hard_c", "cuckoo")
    wait_ready(qtbot, win)
    qtbot.waitUntil(lambda: win.controller.latest.snapshot.solver == "cuckoo")
    dock = win.view_docks["nests"]
    assert dock.toggleViewAction().isEnabled()
    dock.raise_()
    view = win.views["nests"]
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)  # 10 iterations
    qtbot.waitUntil(lambda: iteration(win) == 10)
    qtbot.waitUntil(lambda: view.readout.text().startswith("iteration 10:"))
    snap = win.controller.latest.snapshot
    L = snap.layers
    costs = np.asarray(L["nest_costs"])
    # one bar per nest, cheapest first; the best green, the abandoned vermillion, the rest blue
    heights = view.bars.opts["height"]
    np.testing.assert_array_equal(heights, np.sort(costs))
    order = view.order
    brushes = view.bars.opts["brushes"]
    assert brushes[int(np.flatnonzero(order == L["best_nest"])[0])] == BEST
    for rank, nest in enumerate(order.tolist()):
        if nest != L["best_nest"]:
            assert brushes[rank] == (ABANDONED if L["abandoned"][nest] else OTHER)
    # the history image: nests as rows, one column per recorded iteration, equal to the layer
    hist = np.asarray(L["nest_history"])
    assert hist.shape == (10, len(costs))
    np.testing.assert_array_equal(view.image.image, hist.T.astype(float))
    np.testing.assert_array_equal(hist[-1], costs)
    # cumulative operator counts: the curves end at the trace's last values
    for key, curve in view.curves.items():
        xs, ys = curve.getData()
        assert xs[-1] == 10 and ys[-1] == snap.trace[key][-1]
    assert snap.trace["pmx"][-1] + snap.trace["sorting"][-1] <= 10
    words = {
        "pmx": "PMX with the best egg",
        "sorting": "multiparental sorting crossover",
        "none": "nothing (the best nest was picked)",
    }
    assert words[L["operator"]] in view.readout.text()
    # the AC3 view shows the prefilter, the cuckoo's only AC3 run
    ac3 = win.views["ac3"]
    win.view_docks["ac3"].raise_()
    qtbot.waitUntil(lambda: ac3.result is L["ac3"])
    assert ac3.caption.endswith("AC3 prefilter (before the first iteration)")
    np.testing.assert_array_equal(ac3.current_domains(), L["ac3"].domains)


def test_long_runs_keep_the_history_bounded(window, qtbot):
    win = window("mk_hard_c", "cuckoo")
    qtbot.waitUntil(lambda: win.controller.latest.snapshot.solver == "cuckoo")
    win.view_docks["nests"].raise_()
    view = win.views["nests"]
    win.step_n.setValue(9000)
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    qtbot.waitUntil(lambda: iteration(win) == 9000 or win.controller.latest.snapshot.solved, timeout=120_000)
    snap = win.controller.latest.snapshot
    hist = np.asarray(snap.layers["nest_history"])
    stride = snap.layers["history_stride"]
    assert hist.shape[0] <= 4096 and hist.shape[0] * stride + snap.layers["history_start"] <= snap.iteration
    qtbot.waitUntil(lambda: view.readout.text().startswith(f"iteration {snap.iteration}:"))
    rect = view.image.boundingRect()
    assert rect.width() > 0
    xs, _ = view.curves["pmx"].getData()
    assert len(xs) <= 2 * 2000 and xs[-1] == snap.trace["iteration"][-1]


def test_thin_keeps_the_ends_and_at_most_about_the_limit():
    from sudoku_lab_ui.solver_views.cuckoo import thin

    x = np.arange(10_001, dtype=float)
    tx, ty = thin(x, 2 * x, most=100)
    assert tx[0] == 0 and tx[-1] == 10_000 and len(tx) <= 102
    np.testing.assert_array_equal(ty, 2 * tx)
    sx, _ = thin(x[:50], x[:50], most=100)
    assert len(sx) == 50


@pytest.mark.gui
@pytest.mark.parametrize("other", ["exact", "reseda"])
def test_the_ac3_player_drops_the_cuckoos_prefilter_when_another_solver_is_chosen(window, qtbot, other):
    """The prefilter is the cuckoo's; the exact solver and RESEDA run no AC3, so the player shows the puzzle's."""
    from sudoku_lab.exact.ac3 import ac3 as run_ac3
    from sudoku_lab.model import library

    win = window("mk_hard_a", "cuckoo")
    qtbot.waitUntil(lambda: win.controller.latest.snapshot.solver == "cuckoo")
    player = win.views["ac3"]
    win.view_docks["ac3"].raise_()
    qtbot.waitUntil(lambda: player.caption.startswith("Cuckoo search"))
    prefilter = player.result
    box = win.solver_box
    box.setCurrentIndex(box.findData(other))  # as a user picks it
    qtbot.waitUntil(
        lambda: (
            win.controller.state == "idle"
            and win.controller.latest is not None
            and win.controller.latest.snapshot.solver == other
        )
    )
    own = run_ac3(library.puzzle("mk_hard_a"))
    qtbot.waitUntil(lambda: player.result is not prefilter and player.caption == "", timeout=10_000)
    np.testing.assert_array_equal(player.result.domains, own.domains)
    assert player.result.n_removed == own.n_removed
    assert "Cuckoo" not in player.message.text()
    assert not player.source.isEnabled()


@pytest.mark.gui
def test_the_nests_history_before_the_first_iteration_is_an_empty_frame_of_the_nests(window, qtbot):
    """Not axes about zero with an "x0.001" prefix: iterations from 0, nests from 0 to their number."""
    win = window("mk_hard_a", "cuckoo")
    qtbot.waitUntil(lambda: win.controller.latest.snapshot.solver == "cuckoo")
    win.view_docks["nests"].raise_()
    view = win.views["nests"]
    qtbot.waitUntil(lambda: view.readout.text().startswith("iteration 0:"))
    nests = len(win.controller.latest.snapshot.layers["nest_costs"])
    (x0, x1), (y0, y1) = view.hist_plot.viewRange()
    assert x0 == 0 and x1 > 0 and (y0, y1) == (0, nests)
    for name in ("left", "bottom"):
        axis = view.hist_plot.getAxis(name)
        assert "x0.001" not in axis.labelString() and axis.autoSIPrefixScale == 1.0, axis.labelString()
