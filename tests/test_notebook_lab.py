"""The notebook lab (sudoku_lab_notebook.Lab) driven as a class would, without a browser: clicks and slider moves."""

from __future__ import annotations

import re
import threading
import time

import numpy as np
import pytest

import sudoku_lab_notebook.lab as lab_module
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
    lab.close()  # its run and its drawing thread do not go on into the next test


@pytest.fixture
def drawn(lab, monkeypatch):
    """What the lab draws from now on, as (view, iteration) pairs, in order (a token PNG instead of a real one)."""
    assert lab.wait_drawn(300)
    record: list[tuple[str, int]] = []

    def png(snapshot, view, pixels):
        record.append((view, snapshot.iteration))
        return b"\x89PNG drawn"

    monkeypatch.setattr(lab_module, "_png", png)
    return record


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


@pytest.mark.parametrize(
    "kwargs,error,message",
    [
        # These were a raw ValueError from dict("alpha=0.5") and TypeErrors from int("50MB") and int(None).
        (
            {"params": "alpha=0.5"},
            "ParameterTypeError",
            "Lab: params must be a mapping of parameter names to values, such as {'alpha': 0.5}, got str 'alpha=0.5'",
        ),
        ({"params": {1: 0.5}}, "ParameterTypeError", "Lab: params' keys must be parameter names (str), got int 1"),
        ({"params": {"alpha": True}}, "ParameterTypeError", "alpha must be [0, 1], got True (a bool, not a number)"),
        (
            {"memory_limit": "50MB"},
            "ParameterTypeError",
            "Lab: memory_limit must be an int, a number of bytes (50_000_000 for 50 MB), got str '50MB'",
        ),
        ({"memory_limit": 0}, "ParameterError", "Lab: memory_limit must be a positive number of bytes, got 0"),
    ],
)
def test_params_and_memory_limit_of_the_wrong_kind_are_one_line(kwargs, error, message):
    from sudoku_lab.errors import ParameterError

    with pytest.raises(ParameterError) as info:
        Lab(solver="reseda", puzzle="reseda_fig3_1_easy", **kwargs)
    assert type(info.value).__name__ == error and str(info.value) == message


def test_memory_limit_none_is_the_default_and_params_are_taken_as_documented():
    lab = Lab(solver="reseda", puzzle="reseda_fig3_1_easy", params={"alpha": 0.5}, memory_limit=None)
    assert lab.history.memory_limit == lab_module.DEFAULT_MEMORY_LIMIT == 50_000_000
    assert lab.solver.get_params()["alpha"] == 0.5
    other = Lab(solver="exact", puzzle="reseda_fig3_1_easy", memory_limit=10_000_000)
    assert other.history.memory_limit == 10**7
    lab.close()
    other.close()


def test_a_hidden_pane_is_not_drawn_until_it_is_shown(lab, drawn):
    lab.curves_shown.value = False
    assert lab.curves_image.layout.display == "none"
    lab.step(2)
    assert lab.wait_drawn(300) and drawn == [("probability", 2)]
    lab.view_shown.value = False
    lab.step(1)
    assert lab.wait_drawn(300) and drawn == [("probability", 2)]  # nothing shown: nothing drawn
    assert "EDA step 3" in lab.status.value and len(_digits(lab.board.value)) > 0  # the board and lines still are
    lab.curves_shown.value = True
    assert lab.wait_drawn(300) and drawn[1:] == [("convergence", 3)]
    lab.view_shown.value = True
    assert lab.wait_drawn(300) and drawn[2:] == [("probability", 3)]
    lab.param_widgets["Q"].value = -5  # refused: the state is the same, so nothing is drawn again
    lab.view_shown.value = False
    lab.view_shown.value = True  # hidden and shown again: it still shows iteration 3
    assert lab.wait_drawn(300) and len(drawn) == 3 and lab.view_image.layout.display is None
    lab.close()  # a lab no longer shown draws nothing more
    lab.step(1)
    assert lab.wait_drawn(300) and len(drawn) == 3 and lab.iteration == 4


def test_ten_quick_steps_draw_the_latest_state_once_off_the_callers_thread(lab, monkeypatch):
    """Each Step drew the view and the curves before it returned (about a second of CPU on a busy machine)."""
    assert lab.wait_drawn(300)
    drawn, snapshots = [], []
    drawing, go_on = threading.Event(), threading.Event()

    def png(snapshot, view, pixels):
        drawn.append((view, snapshot.iteration))
        snapshots.append(snapshot)
        if threading.current_thread() is not threading.main_thread():
            drawing.set()
            go_on.wait(300)  # the drawing thread is held in its first figure
        return f"PNG of {view} at {snapshot.iteration}".encode()

    monkeypatch.setattr(lab_module, "_png", png)
    lab.step_button.click()
    assert drawing.wait(300)  # iteration 1's view is being drawn ...
    for _ in range(9):
        lab.step_button.click()  # ... and the clicks do not wait for it
    assert lab.iteration == 10 and "EDA step 10 " in lab.status.value
    assert _digits(lab.board.value) == _expected_digits(lab.snapshot())
    go_on.set()
    assert lab.wait_drawn(300)
    # Iteration 1's curves were never drawn (a newer state was waiting), iterations 2 to 9 not at all.
    assert drawn == [("probability", 1), ("probability", 10), ("convergence", 10)]
    assert_snapshots_equal(snapshots[-1], lab.snapshot())
    assert lab.view_image.value == b"PNG of probability at 10" and lab.curves_image.value == b"PNG of convergence at 10"


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


def test_a_figure_that_fails_to_draw_is_one_line_and_drawing_goes_on(lab, monkeypatch):
    assert lab.wait_drawn(300)
    calls = []

    def png(snapshot, view, pixels):
        calls.append(view)
        if len(calls) == 1:
            raise RuntimeError("no room for the colour bar\nsecond line")
        return b"\x89PNG drawn"

    monkeypatch.setattr(lab_module, "_png", png)
    lab.step(1)
    assert lab.wait_drawn(300)
    assert "unexpected error (RuntimeError): no room for the colour bar" in lab.error.value
    assert "second line" not in lab.error.value and "RuntimeError" in (lab.last_traceback or "")
    assert lab.curves_image.value == b"\x89PNG drawn"
    lab.step(1)  # the next action clears the line, and the view is drawn again
    assert lab.wait_drawn(300) and lab.error.value == "" and lab.view_image.value == b"\x89PNG drawn"
