"""The notebook lab (sudoku_lab_notebook.Lab) driven as a class would, without a browser: clicks and slider moves."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest

from sudoku_lab.model.geometry import SYMBOLS
from sudoku_lab.testing import assert_snapshots_equal
from sudoku_lab_notebook import Lab, board_html, main_view


def _digits(html: str) -> dict[int, str]:
    """Cell -> digit of every digit drawn on a board's SVG."""
    return {int(c): d for c, d in re.findall(r'<text class="digit \w+" data-cell="(\d+)"[^>]*>([^<]+)</text>', html)}


def _expected_digits(snapshot) -> dict[int, str]:
    return {k: SYMBOLS[d - 1] for k, d in enumerate(np.asarray(snapshot.grid).tolist()) if d > 0}


@pytest.fixture
def lab():
    lab = Lab(solver="reseda", puzzle="ai_escargot", seed=0)
    yield lab
    lab.pause()


def test_three_step_clicks_give_iteration_three_and_the_board_shows_its_digits(lab):
    for _ in range(3):
        lab.step_button.click()
    snap = lab.snapshot()
    assert lab.iteration == 3 and snap.iteration == 3
    assert _digits(lab.board.value) == _expected_digits(snap)
    givens = np.flatnonzero(np.asarray(snap.puzzle.givens).reshape(-1))
    assert len(re.findall(r'class="digit given"', lab.board.value)) == len(givens)
    assert "EDA step 3" in lab.status.value and "paused" in lab.status.value
    assert lab.timeline.max == 3 and lab.timeline.value == 3
    assert lab.error.value == ""


def test_step_back_gives_exactly_the_snapshot_of_iteration_two(lab):
    lab.step_button.click()
    lab.step_button.click()
    at_2 = lab.snapshot()
    lab.step_button.click()
    lab.back_button.click()
    assert lab.iteration == 2
    assert_snapshots_equal(lab.snapshot(), at_2)
    assert _digits(lab.board.value) == _expected_digits(at_2)
    assert "EDA step 2 of 3 (rewound)" in lab.status.value


def test_the_timeline_seeks_and_stepping_on_replays_the_same_run(lab):
    lab.step(5)
    at_5 = lab.snapshot()
    lab.timeline.value = 1
    assert lab.iteration == 1
    lab.step(4)
    assert_snapshots_equal(lab.snapshot(), at_5)
    assert lab.timeline.value == 5


def test_a_slider_change_applies_set_params_and_is_replayed_after_a_seek(lab):
    lab.step(3)
    slider = lab.param_widgets["alpha"]
    assert slider.__class__.__name__ == "FloatSlider"
    slider.value = 0.5
    assert lab.solver.get_params()["alpha"] == 0.5
    assert [(e.iteration, e.name, e.new) for e in lab.history.events if e.kind == "param"] == [(3, "alpha", 0.5)]
    lab.step(3)
    at_6 = lab.snapshot()
    lab.timeline.value = 2  # before the change: the form shows the value then in force
    assert lab.solver.get_params()["alpha"] == 0.7 and slider.value == 0.7
    lab.step(4)  # the replay makes the change at 3 again
    assert lab.solver.get_params()["alpha"] == 0.5 and slider.value == 0.5
    assert_snapshots_equal(lab.snapshot(), at_6)


def test_an_out_of_range_value_is_one_line_in_the_widget_and_changes_nothing(lab):
    lab.step(2)
    lab.param_widgets["Q"].value = -5
    assert lab.error.value.count("\n") == 0
    assert "Q must be an integer in [1, 1000000], got -5" in lab.error.value
    assert "Traceback" not in lab.error.value and lab.last_traceback is None
    assert (
        lab.solver.get_params()["Q"] == 100 and lab.param_widgets["Q"].value == 100
    )  # the form shows the value in force
    assert not [e for e in lab.history.events if e.kind == "param"]
    lab.param_widgets["Q1"].value = 500  # a rule between parameters: Q1 <= Q
    assert "Q1" in lab.error.value and lab.solver.get_params()["Q1"] == 10
    lab.step_button.click()  # the next action clears the line
    assert lab.error.value == ""


def test_step_phase_captions_the_phase_and_outlines_the_cells_it_changed(lab):
    lab.step(1)
    out = lab.step_phase()
    assert out is not None and out.name == "sample"
    assert "EDA step 2, phase 1/4 (sample): " + out.caption in lab.caption.value.replace("&gt;", ">")
    changed = np.flatnonzero(np.asarray(out.changed["cells"]))
    assert changed.size > 0
    drawn = sorted(int(c) for c in re.findall(r'<rect class="changed" data-cell="(\d+)"', lab.board.value))
    assert drawn == changed.tolist()
    lab.back_button.click()  # in the middle of an iteration: back to its start
    assert lab.iteration == 1 and lab.solver.phase == 0
    assert 'class="changed"' not in lab.board.value


def test_a_solver_without_phases_has_step_phase_greyed_out():
    lab = Lab(solver="exact", puzzle="reseda_fig3_1_easy")
    assert lab.phase_button.disabled and not lab.step_button.disabled
    assert main_view("exact") == "ac3" and lab.view_select.value == "ac3"
    assert main_view("cuckoo") == "nests" and main_view("nbcoin") == "probability"


def test_run_steps_in_the_background_and_pause_stops_it(lab):
    lab.run_button.click()
    assert lab.running and lab.run_button.description == "Pause"
    deadline = time.monotonic() + 300
    while lab.iteration < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    lab.run_button.click()
    assert not lab.running and lab.run_button.description == "Run"
    stopped = lab.iteration
    assert stopped >= 5
    time.sleep(0.3)
    assert lab.iteration == stopped  # nothing steps once paused
    assert lab.timeline.max == lab.history.furthest == stopped and "paused" in lab.status.value


def test_run_stops_by_itself_when_solved():
    lab = Lab(solver="exact", puzzle="reseda_fig3_1_easy")
    lab.run()
    assert lab.wait(timeout=300)
    assert lab.solver.status == "solved" and "solved" in lab.status.value
    assert _digits(lab.board.value) == _expected_digits(lab.snapshot())
    assert len(_digits(lab.board.value)) == 81


def test_reset_starts_the_same_run_again(lab):
    lab.step(2)
    at_2 = lab.snapshot()
    lab.step(2)
    lab.reset_button.click()
    assert lab.iteration == 0 and lab.history.furthest == 0 and lab.timeline.max == 0
    lab.step(2)
    assert_snapshots_equal(lab.snapshot(), at_2)


def test_a_parameter_that_needs_a_reset_restarts_the_run_at_its_start_only():
    lab = Lab(solver="hill_climb", puzzle="reseda_fig3_1_easy", seed=1)
    w = lab.param_widgets["initial_order"]
    other = next(c for c in w.options if c != w.value)
    w.value = other
    assert lab.solver.get_params()["initial_order"] == other and lab.error.value == ""
    lab.step(1)
    assert w.disabled


def test_the_constructor_refuses_in_one_line():
    from sudoku_lab.errors import ParameterError, PuzzleError

    with pytest.raises(ParameterError, match="no_such"):
        Lab(solver="no_such")
    with pytest.raises(PuzzleError, match="no bundled puzzle named"):
        Lab(puzzle="no_such_puzzle")
    with pytest.raises(ParameterError, match="seed must be an int"):
        Lab(seed="1")  # type: ignore[arg-type]


def test_board_html_marks_givens_and_outlines_changed_cells(lab):
    snap = lab.snapshot()
    changed = np.zeros(snap.puzzle.C, bool)
    changed[[0, 80]] = True
    html = board_html(snap, changed=changed)
    assert re.findall(r'<rect class="changed" data-cell="(\d+)"', html) == ["0", "80"]
    assert html.count('class="digit given"') == int(np.count_nonzero(np.asarray(snap.puzzle.givens)))


def test_the_notebook_lab_loads_no_qt_and_no_window():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from sudoku_lab_notebook import Lab\n"
        "lab = Lab(solver='hill_climb', puzzle='reseda_fig3_1_easy', seed=1)\n"
        "lab.step(2)\n"
        "bad = sorted(m for m in sys.modules if m == 'matplotlib.pyplot' or m.split('.')[0] in ('PySide6', "
        "'shiboken6', 'pyqtgraph', 'sudoku_lab_ui'))\n"
        "print(lab.iteration, bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "2 []"
