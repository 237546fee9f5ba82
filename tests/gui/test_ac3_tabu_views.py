"""AC3-tabu search in the real window: the tabu list view, its board marks and the AC3 view replaying a move."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from lab_helpers import button, iteration


def _tabu_window(window, qtbot, puzzle="mk_hard_b"):
    win = window(puzzle, "ac3_tabu")
    qtbot.waitUntil(lambda: win.controller.latest.snapshot.solver == "ac3_tabu")
    win.seed_box.setValue(2)  # a run that goes past 10 iterations (seeds 0 and 1 solve mk_hard_b in 3 and 9)
    qtbot.waitUntil(
        lambda: (
            win.controller.state == "idle"
            and win.controller.latest is not None
            and win.controller.latest.snapshot.iteration == 0
        )
    )
    return win


def test_tabu_view_shows_the_list_and_the_candidates_of_the_latest_iteration(window, qtbot):
    from sudoku_lab.model.geometry import cell_name
    from sudoku_lab_ui.solver_views.ac3_tabu import TABU_COLOUR, tabu_fade

    win = _tabu_window(window, qtbot)
    dock = win.view_docks["tabu"]
    assert dock.toggleViewAction().isEnabled()
    dock.raise_()
    view = win.views["tabu"]
    win.params_panel.spin_box("candidates").setValue(6)
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)  # 10 iterations
    qtbot.waitUntil(lambda: iteration(win) == 10)
    qtbot.waitUntil(lambda: view.readout.text().startswith("iteration 10:"))
    snap = win.controller.latest.snapshot
    rows = snap.layers["tabu"]
    cands = snap.layers["candidates"]
    assert len(cands) == 6
    # the tables hold exactly the layers, in order
    tabu_text = view.rows_text("tabu")
    assert [r[1] for r in tabu_text] == [f"{cell_name(c, 9)} = {d}" for c, d, _, _ in rows.tolist()]
    assert [r[2] for r in tabu_text] == [str(a) for _, _, a, _ in rows.tolist()]
    cand_text = view.rows_text("candidates")
    assert [r[1] for r in cand_text] == [f"{cell_name(c['cell'], 9)} = {c['digit']}" for c in cands]
    assert [r[4] for r in cand_text] == [c["status"] for c in cands]
    assert [r[3] for r in cand_text] == ["-" if c["cost"] is None else str(c["cost"]) for c in cands]
    assert f"tabu list {len(rows)} / 10" in view.readout.text()
    # the board marks each tabu feature's cell, fading with age
    sets = win.board.cell_sets()
    marked = {name: cells for name, cells in sets.items() if name.startswith("tabu ")}
    assert len(marked) == len(rows) and rows.size
    for cell, digit, age, _reason in rows.tolist():
        name = next(n for n in marked if n.startswith(f"tabu {cell_name(cell, 9)}={digit} age {age}"))
        assert marked[name] == frozenset({cell})
        assert win.board.cell_set_color(name).alpha() == tabu_fade(age, 10)
        assert win.board.cell_set_color(name).red() == TABU_COLOUR[0]
    # switching the overlay off removes the marks
    win.overlay_toggles["tabu"].setChecked(False)
    qtbot.waitUntil(lambda: not any(n.startswith("tabu ") for n in win.board.cell_sets()))


def test_tabu_fade_is_strongest_for_new_features():
    from sudoku_lab_ui.solver_views.ac3_tabu import tabu_fade

    assert tabu_fade(0, 10) == 255
    assert tabu_fade(10, 10) == 70
    assert tabu_fade(25, 10) == 70
    assert tabu_fade(0, 10) > tabu_fade(3, 10) > tabu_fade(7, 10)


def test_ac3_view_replays_the_propagation_of_the_latest_move(window, qtbot):
    win = _tabu_window(window, qtbot)
    view = win.views["ac3"]
    win.view_docks["ac3"].raise_()
    assert view.source.isEnabled() and view.showing_solver
    assert not view.hidden_singles.isEnabled()  # the solver's own parameter decides
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    qtbot.waitUntil(lambda: iteration(win) == 10)
    snap = win.controller.latest.snapshot
    result, it = snap.layers["ac3"], snap.layers["ac3_iteration"]
    qtbot.waitUntil(lambda: view.result is result)
    assert view.caption == (
        f"AC3-tabu search: AC3 of iteration {it}"
        if it
        else "AC3-tabu search: AC3 prefilter (before the first iteration)"
    )
    # shown at its end, every removal of the move struck through
    assert view.at_end
    np.testing.assert_array_equal(view.current_domains(), result.domains)
    struck = view.last_removed()
    expect = np.zeros(81, dtype=np.uint32)
    for row in result.log:
        expect[row["cell"]] |= np.uint32(1 << (int(row["digit"]) - 1))
    np.testing.assert_array_equal(struck, expect)
    # paused, the user replays it from the start, one removal at a time
    qtbot.mouseClick(view.reset_button, Qt.LeftButton)
    np.testing.assert_array_equal(view.current_domains(), result.initial)
    if result.n_removed:
        qtbot.mouseClick(view.fine_button, Qt.LeftButton)
        assert view.position == 1
        assert view.log_list.count() == 1
    # the other source: the puzzle's own AC3 from the givens
    view.source.setCurrentIndex(view.PUZZLE)
    qtbot.waitUntil(lambda: view.caption == "" and view.result is not None and view.result is not result)
    assert view.hidden_singles.isEnabled()
    assert view.result.n_removed > 0 and int(view.result.initial[0]) in (511, int(result.initial[0]))


def test_ac3_view_keeps_the_puzzle_source_for_solvers_without_an_ac3_layer(window, qtbot):
    win = window("reseda_fig3_1_easy", "reseda")
    view = win.views["ac3"]
    assert not view.source.isEnabled() and not view.showing_solver
    assert view.hidden_singles.isEnabled()


def test_tables_fill_their_width(window, qtbot):
    win = _tabu_window(window, qtbot)
    win.view_docks["tabu"].raise_()
    view = win.views["tabu"]
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    qtbot.waitUntil(lambda: iteration(win) == 10)
    qtbot.waitUntil(lambda: view.candidate_table.rowCount() > 0 and view.candidate_table.fitted)
    for t in (view.tabu_table, view.candidate_table):
        widths = sum(t.columnWidth(c) for c in range(t.columnCount()))
        assert abs(widths - t.viewport().width()) <= 2, (widths, t.viewport().width())


@pytest.mark.parametrize("seed", [0, 1])
def test_a_solved_run_draws_every_decided_cell_as_its_digit(window, qtbot, seed):
    """Before: the cells the last propagation decided (33 of them with seed 0, 37 with seed 1) were drawn as one
    pencil mark among struck-out candidates, the Best grid toggle changing nothing: the board drew a cell's pencil
    marks instead of its digit wherever candidates were struck out in it."""
    from sudoku_lab import exact

    win = window("ai_escargot", "ac3_tabu")
    qtbot.waitUntil(lambda: win.controller.latest.snapshot.solver == "ac3_tabu")
    win.seed_box.setValue(seed)  # a reset with that seed is queued before the Run below
    assert win.controller.seed == seed
    qtbot.mouseClick(button(win, win.act_run), Qt.LeftButton)  # until solved
    qtbot.waitUntil(lambda: win.controller.state == "finished" and win.controller.latest.snapshot.solved)
    snap = win.controller.latest.snapshot
    solution = exact.solve(snap.puzzle)
    assert snap.layers["struck"].any(axis=1).sum() > 20  # the last propagation decided many cells
    board = win.board
    for best in (False, True):
        win.show_best.setChecked(best)
        np.testing.assert_array_equal(board.shown_digits(), snap.best_grid if best else snap.grid)
        np.testing.assert_array_equal(board.shown_digits(), solution)
        assert board.digit_cells().all() and not board.pencil_cells().any()
