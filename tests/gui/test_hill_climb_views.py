"""Hill climbing in the real lab window: the clash counts in the board's margins, the chosen swap, the state
panel, restart and plateau markers, and a live parameter change marked on the curves."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from sudoku_lab.solvers.hill_climb import unit_clashes

from lab_helpers import button, iteration

pytestmark = pytest.mark.gui


def _margin_numbers(board, side):
    return [int(board.margins()[side][i]) for i in range(9)]


def test_hill_climb_margins_swap_and_markers(window, qtbot):
    win = window("kennett_hard_007")
    win.solver_box.setCurrentIndex(win.solver_box.findData("hill_climb"))
    qtbot.waitUntil(
        lambda: (
            win.controller.solver_name == "hill_climb"
            and win.controller.state == "idle"
            and win.controller.latest is not None
            and win.controller.latest.snapshot.solver == "hill_climb"
        ),
        timeout=120_000,
    )
    board = win.board
    assert win.overlay_toggles["unit_counts"].isVisible() and win.overlay_toggles["cell_pairs"].isEnabled()
    assert win.view_docks["hill_climb_state"].isVisible() and win.view_docks["runs"].isVisible()
    assert not win.view_docks["probability"].isVisible()
    # Step 1: one steepest-ascent swap; the margins hold the clash counts, the link is the chosen swap.
    qtbot.mouseClick(button(win, win.act_step), Qt.LeftButton)
    qtbot.waitUntil(lambda: iteration(win) == 1)
    snap = win.controller.latest.snapshot
    qtbot.waitUntil(lambda: "right" in board.margins() and board.links().get("swap") is not None)
    clashes = snap.layers["clashes"]
    assert np.array_equal(clashes, unit_clashes(snap.grid, 3))
    assert _margin_numbers(board, "right") == clashes[0].tolist()
    assert _margin_numbers(board, "bottom") == clashes[1].tolist()
    np.testing.assert_array_equal(board.links()["swap"], snap.layers["swap"])
    assert board.links()["swap"].shape == (1, 2)
    # zero counts quiet grey, non-zero ones coloured
    for side, counts in (("right", clashes[0]), ("bottom", clashes[1])):
        for i, v in enumerate(counts):
            grey = board.margin_color(side, i) == QColor("#A8A8A8")
            assert grey == (v == 0)
    # the margins are painted: a non-zero count's text shows its colour beside its row
    rows = [i for i, v in enumerate(clashes[0]) if v > 0]
    if rows:
        image = board.grab().toImage()
        r = board.margin_rect("right", rows[0])
        want = board.margin_color("right", rows[0])
        pixels = [
            image.pixelColor(int(x), int(y))
            for x in np.linspace(r.left(), r.right(), 20)
            for y in np.linspace(r.top(), r.bottom(), 20)
        ]
        assert any(
            max(abs(p.red() - want.red()), abs(p.green() - want.green()), abs(p.blue() - want.blue())) < 60
            for p in pixels
        )
        assert board.margin_rect("right", 0).left() > board.cell_rect(8).right()  # outside the board
    # the state panel says f = f1 - f2
    # the final frame's views are drawn one per event-loop turn: wait for this one's
    qtbot.waitUntil(lambda: f"f = {snap.layers['f']:g}" in win.views["hill_climb_state"].label.text())
    text = win.views["hill_climb_state"].label.text()
    assert f"f = {snap.layers['f']:g}" in text and f"f1 {snap.layers['f1']}" in text
    # Step N: 300 moves with a small plateau, so restarts and plateau escapes happen
    win.params_panel.spin_box("plateau").setValue(2)
    qtbot.waitUntil(lambda: win.controller.latest.snapshot.params["plateau"] == 2)
    win.step_n.setValue(300)
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    qtbot.waitUntil(lambda: iteration(win) == 301 or win.controller.latest.snapshot.done, timeout=60_000)
    snap = win.controller.latest.snapshot
    qtbot.waitUntil(
        lambda: _margin_numbers(board, "right") == win.controller.latest.snapshot.layers["clashes"][0].tolist()
    )
    names = {e.name for e in snap.events if e.kind == "restart"}
    assert names == {"random", "plateau"} or snap.solved
    conv = win.views["convergence"]
    win.view_docks["convergence"].raise_()
    qtbot.waitUntil(lambda: any(m.kind == "run" for m in conv.drawn_markers()))
    assert any(m.kind == "param" and "plateau" in m.label for m in conv.drawn_markers())
    assert {"f", "f1", "f2"} <= set(conv.curves)
    qtbot.waitUntil(lambda: len(conv.curves["f"].getOriginalDataset()[1]) == len(snap.trace["f"]))
    np.testing.assert_array_equal(conv.curves["f"].getOriginalDataset()[1][-1:], snap.trace["f"][-1:])
    runs = win.views["runs"]
    qtbot.waitUntil(lambda: runs.table.rowCount() == len(win.controller.latest.snapshot.layers["runs"]))
    assert runs.headers()[:3] == ["Run", "From it", "Moves"]
    # unit counts switched off: the margins go, the board takes the room back
    wide = board.board_rect().width()
    win.overlay_toggles["unit_counts"].setChecked(False)
    assert board.margins() == {} and board.board_rect().width() >= wide
