"""Compare side by side: panes in lockstep, each the same run as the solver alone with the same seed."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt

from sudoku_lab.model import library
from sudoku_lab.solvers import create
from sudoku_lab.stepping import loop
from sudoku_lab.testing import assert_snapshots_equal


@pytest.fixture
def compare(qtbot):
    """``compare(configs, ...)``: a shown CompareWindow, its panes reset and ready; closed after the test."""
    from sudoku_lab_ui.compare_window import CompareWindow

    made = []

    def make(configs, puzzle="reseda_fig4_1_hard", seed=3, **lockstep):
        win = CompareWindow(library.puzzle(puzzle), configs, seed=seed)
        qtbot.addWidget(win)
        if lockstep:
            win.configure(configs, **lockstep)
        win.resize(1400, 900)
        win.show()
        qtbot.waitUntil(lambda: win.ready)
        made.append(win)
        return win

    yield make
    for win in made:
        win.close()


def test_lockstep_plans_shared_targets():
    """The headless lockstep: panes behind the target run to it; the target moves only when all reached it."""
    from sudoku_lab_ui.lockstep import Lockstep

    ls = Lockstep("evaluations", chunk=1000, limit=2500)
    assert ls.plan([0, 0, 0]) == {0: 1000, 1: 1000, 2: 1000}
    assert ls.plan([1010, 400, 1000]) == {1: 600} and ls.target == 1000
    assert ls.plan([1010, 1200, None]) == {0: 990, 1: 800} and ls.target == 2000
    assert ls.plan([2000, 2100, None]) == {0: 500, 1: 400} and ls.target == 2500
    assert ls.plan([2500, 2600, None]) == {} and ls.finished
    t = Lockstep("seconds", chunk=0.25)
    assert t.plan([0.0]) == {0: 0.25}
    plan = t.plan([0.2499995])
    assert t.target == 0.5 and plan[0] == pytest.approx(0.2500005), "within the clocks' slack: reached"
    assert Lockstep("iterations", chunk=10).plan([None, None]) == {}


def click(qtbot, button):
    qtbot.mouseClick(button, Qt.LeftButton)


def alone(name, puzzle, seed, iterations, params=None):
    """The snapshot of ``name`` run alone, headless, for ``iterations`` with ``seed``."""
    s = create(name, **(params or {}))
    s.reset(puzzle, seed=seed)
    loop.run(s, loop.MaxIterations(iterations))
    return s.snapshot()


def test_two_solvers_in_lockstep_equal_each_solver_run_alone(compare, qtbot, warm_kernels):
    """200 iterations in chunks of 50, with Run clicked: each pane's last snapshot is the solver's own run."""
    win = compare([("reseda", {}), ("ga", {})], mode="iterations", chunk=50, limit=200)
    stops = []  # where pane A's runs ended
    win.panes[0].ended.connect(lambda *_: stops.append(win.panes[0].latest.snapshot.iteration))
    click(qtbot, win.run_button)
    assert win.running and win.run_button.text() == "Pause"
    qtbot.waitUntil(lambda: not win.running)
    assert win.lockstep.finished and win.lockstep.target == 200
    assert stops == [50, 100, 150, 200], "the panes advanced chunk by chunk to shared targets"
    for pane in win.panes:
        assert pane.latest.snapshot.iteration == 200
        assert_snapshots_equal(pane.latest.snapshot, alone(pane.solver_name, win.puzzle, 3, 200), pane.solver_name)
    x, y = win.curve_data(0)
    assert x[-1] == 200 and y.size == x.size, "the shared plot shows the pane's curve to the target"


def test_configurations_of_one_solver_with_seed_plus_pane(compare, qtbot, warm_kernels):
    """Two RESEDA configurations; seeds offset by pane number: each pane is its own seed's run."""
    win = compare([("reseda", {"beta": 0.6}), ("reseda", {"beta": 0.9})], mode="iterations", chunk=40, limit=80)
    win.seeding_box.setCurrentIndex(1)  # seed + pane number (resets)
    qtbot.waitUntil(lambda: win.ready)
    assert [p.seed for p in win.panes] == [3, 4]
    click(qtbot, win.run_button)
    qtbot.waitUntil(lambda: not win.running)
    for pane, beta in zip(win.panes, (0.6, 0.9)):
        assert pane.latest.snapshot.params["beta"] == beta
        assert_snapshots_equal(pane.latest.snapshot, alone("reseda", win.puzzle, pane.seed, 80, {"beta": beta}))


def test_lockstep_by_evaluations_reaches_the_target_within_one_chunk(compare, qtbot, warm_kernels):
    """Step clicked three times: after each, every pane's evaluations are at the target, less than a chunk over."""
    chunk = 3000
    win = compare([("reseda", {}), ("ga", {})], mode="evaluations", chunk=chunk)
    for k in range(1, 4):
        click(qtbot, win.step_button)
        qtbot.waitUntil(lambda: not win.running)
        assert win.lockstep.target == k * chunk
        for pane in win.panes:
            evals = pane.latest.snapshot.evaluations
            assert k * chunk <= evals < (k + 1) * chunk, (pane.solver_name, evals)


def test_four_panes_open_and_run_then_pause_reset_and_stop(compare, qtbot, warm_kernels):
    """Four panes with their own views; Run, Pause, Run, Stop and Reset are the real buttons."""
    win = compare(["reseda", "hill_climb", "ga", "cuckoo"], puzzle="mk_hard_a", mode="iterations", chunk=20)
    assert len(win.panes) == 4 and win.pane_count.value() == 4
    assert [p.view_key for p in win.panes][:3] == ["probability", "hill_climb_state", "population"]
    click(qtbot, win.run_button)
    qtbot.waitUntil(lambda: win.lockstep.target >= 60)
    click(qtbot, win.run_button)  # Pause
    assert not win.running and win.run_button.text() == "Run"
    qtbot.waitUntil(lambda: not any(p.busy for p in win.panes))
    paused = [p.latest.snapshot.iteration for p in win.panes]
    assert all(p.finished or it <= win.lockstep.target for p, it in zip(win.panes, paused))
    assert any(it > 0 for it in paused)
    click(qtbot, win.run_button)  # goes on from where it paused
    qtbot.waitUntil(lambda: win.lockstep.target >= 120 or win.lockstep.finished)
    click(qtbot, win.stop_button)
    qtbot.waitUntil(lambda: all(p.finished for p in win.panes))
    assert not win.run_button.isEnabled() and not win.step_button.isEnabled()
    click(qtbot, win.reset_button)
    qtbot.waitUntil(lambda: win.ready)
    assert all(p.latest.snapshot.iteration == 0 for p in win.panes) and win.lockstep.target == 0
    assert win.run_button.isEnabled()


def test_a_pane_waits_only_for_the_slowest(compare, qtbot, warm_kernels):
    """A pane is sent to a target only when no pane still running is more than a chunk behind it."""
    win = compare([("reseda", {}), ("hill_climb", {})], puzzle="ai_escargot", mode="iterations", chunk=25, limit=100)
    sends = []
    for pane in win.panes:

        def run(term, pane=pane, run=pane.run):
            its = [p.latest.snapshot.iteration for p in win.panes if not p.finished]
            sends.append((pane.latest.snapshot.iteration + term.n, win.lockstep.target, its))
            run(term)

        pane.run = run
    click(qtbot, win.run_button)
    qtbot.waitUntil(lambda: not win.running)
    assert [target for _to, target, _its in sends][-1] == 100
    for to, target, its in sends:
        assert to == target, "every run goes to the shared target"
        assert min(its) >= target - 25, "nobody runs ahead while a pane is more than a chunk behind"


def test_the_lab_opens_the_comparison_from_the_run_menu(window, qtbot, warm_kernels):
    win = window("reseda_fig3_1_easy", "reseda")
    act = win.act_compare
    assert act in win.run_menu.actions()
    act.trigger()
    cmp = win.compare_windows[-1]
    qtbot.waitUntil(lambda: cmp.ready)
    assert cmp.puzzle is win.controller.puzzle
    assert [p.solver_name for p in cmp.panes] == ["reseda", "hill_climb"]
    assert cmp.isWindow() and cmp.isVisible()
    win.close()  # closes the comparison and joins its workers
    assert not cmp.isVisible()


def test_bench_gui_reports_throughput_with_one_two_and_four_panes(qapp, capsys, warm_kernels):
    from sudoku_lab_ui import bench_gui

    args = ["--algo", "reseda", "--panes", "1,2,4", "--no-window", "--rounds", "1", "--iterations", "40"]
    assert bench_gui.main(args) == 0
    out = capsys.readouterr().out
    rows = re.findall(
        r"^\s+(\d) panes?\s*:\s+(\d+) EDA steps.*per pane .* \(ratio (\d\.\d\d)\), total .* \(ratio", out, re.M
    )
    assert [r[0] for r in rows] == ["1", "2", "4"], out
    steps = [int(r[1]) for r in rows]
    assert steps[1] == 2 * steps[0] and steps[2] == 4 * steps[0] > 0, "the same run in every pane"
    assert rows[0][2] == "1.00"
