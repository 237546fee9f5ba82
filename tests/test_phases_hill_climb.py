"""Hill climbing phase by phase (evaluate swaps, take the best, plateau check) against step(), the twin, the rules."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from phase_helpers import one_iteration as _one_iteration, pair, rng_copy as _rng_copy  # tests/phase_helpers.py

from sudoku_lab._kernels import hill_climb as K
from sudoku_lab.errors import ParameterError
from sudoku_lab.exact.generate import generate
from sudoku_lab.model import library
from sudoku_lab.model.puzzle import Puzzle
from sudoku_lab.solvers import create
from sudoku_lab.solvers.declare import check_changes
from sudoku_lab.solvers.hill_climb import HillClimb
from sudoku_lab.testing import assert_snapshots_equal, first_difference

import naive_hill_climb as NH

NAMES = ["evaluate swaps", "take the best", "plateau check"]
PUZZLE_4 = generate(2, 6, seed=1)
HARD = "reseda_fig4_1_hard"


def _pair(params, puzzle, seed=0):
    return pair("hill_climb", params, puzzle, seed)


# ------------------------------------------------------------- same run
ESCAPE, RESTART, FAILED = ("restart", "plateau"), ("restart", "random"), ("run_end", "failed")
CONFIGS = [  # params, puzzle, moves, the events the two seeds log, their statuses
    ({"plateau": 2, "queue_capacity": 4, "w2": -2.0}, "ai_escargot", 120, {ESCAPE, RESTART}, {"running"}),
    ({"plateau": 3, "queue_capacity": 0}, HARD, 120, {RESTART}, {"solved", "running"}),  # every stuck state restarts
    ({"greedy": False, "post_swap": False, "random_ties": True}, PUZZLE_4, 50, set(), {"solved"}),
    ({"initial_order": "sorted", "random_ties": True}, "reseda_fig3_2_medium", 400, {ESCAPE, RESTART}, {"solved"}),
    ({"plateau": 3, "budget": 45}, "kennett_hard_007", 60, {ESCAPE, RESTART, FAILED}, {"failed"}),
]


@pytest.mark.parametrize("params, puzzle, moves, kinds, statuses", CONFIGS, ids=[str(i) for i in range(len(CONFIGS))])
def test_hill_climb_phase_by_phase_is_step_by_step(params, puzzle, moves, kinds, statuses):
    """Every move boundary: the same keyframe (grid, counts, queue, counters, rng, trace, events, runs) and snapshot."""
    seen_kinds, seen_statuses, ends = set(), set(), set()
    for seed in range(2):
        a, b = _pair(params, puzzle if puzzle is PUZZLE_4 else library.puzzle(puzzle), seed)
        for _ in range(moves):
            if b.done:
                break
            b.step(1)
            steps = _one_iteration(a)
            assert [st.name for st in steps] in (NAMES, NAMES[:2])
            ends.add(len(steps))
            d = first_difference(a.state_dict(), b.state_dict())
            assert d is None, f"seed {seed}, move {b.iteration}: {d}"
            assert_snapshots_equal(a.snapshot(), b.snapshot(), f"seed {seed}, move {b.iteration}")
        assert a.done == b.done and a.iteration == b.iteration
        assert a.snapshot().layers["runs"] == b.snapshot().layers["runs"]
        seen_kinds |= {(e.kind, e.name) for e in a.events}
        seen_statuses.add(a.status)
    assert (seen_kinds, seen_statuses) == (kinds, statuses)
    # A move that solves the puzzle ends at "take the best" (two phases), as run() stops there.
    assert ends == ({2, 3} if "solved" in statuses else {3})


def test_phases_replay_the_naive_twin_draw_for_draw():
    """Each phase against tests/naive_hill_climb.py (not the kernel): the best swap, the state after each move."""
    pz = library.puzzle(HARD)
    params = {"plateau": 2, "queue_capacity": 5, "random_ties": True}
    s = create("hill_climb", **params)
    s.reset(pz, 0)
    p = {**HillClimb.defaults(), **params}
    t = NH.NaiveHillClimb(
        pz.grid.tolist(),
        pz.n,
        np.random.default_rng(0),
        plateau=p["plateau"],
        capacity=p["queue_capacity"],
        random_ties=True,
    )
    assert s.grid.tolist() == t.grid
    seen = set()
    for _ in range(40):
        if s.done:
            break
        grid = s.grid.tolist()
        a, b, delta, df1, df2, ev = NH.best_swap(grid, pz.grid.tolist(), pz.n, 1.0, -1.0, True, _rng_copy(s.rng))
        st = s.step_phase()
        assert st.name == "evaluate swaps"
        assert st.caption.startswith(f"evaluated {ev} swaps in 9 boxes: best gain {delta:g} (")
        assert f"r{a // 9 + 1}c{a % 9 + 1} <-> r{b // 9 + 1}c{b % 9 + 1}" in st.caption
        st = s.step_phase()
        if delta > 0:
            assert s.grid.tolist() == NH.swapped(grid, a, b)
            seen.add("ascent")
        else:
            assert s.grid.tolist() == grid and "the state is stuck" in st.caption
            seen.add("stuck")
        if not st.ended:
            s.step_phase()
        t.move()
        assert (s.grid.tolist(), s.best_grid.tolist(), s.cost, s.iteration) == (
            t.grid,
            t.best_grid,
            t.cost,
            t.iteration,
        )
        assert (int(s.counters[K.C_QLEN]), int(s.counters[K.C_STUCK_COUNT]), int(s.counters[K.C_RUN])) == (
            len(t.queue),
            t.stuck,
            t.runs,
        )
    assert [(e.iteration, e.name) for e in s.events if e.kind == "restart"] == t.log
    assert {n for _, n in t.log} == {"plateau", "random"} and seen == {"ascent", "stuck"}
    assert s.rng.random() == t.rng.random()  # both streams at the same place


# ------------------------------------------------------- what each phase says
def _hand_puzzle():
    """A 4x4 solution with r1c4 (4) and r2c3 (1) blank: sorted placement puts 1 and 4 there, the wrong way round."""
    sol = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]
    g = list(sol)
    g[3] = g[6] = 0
    return Puzzle(g)


def test_captions_and_changes_on_a_case_checked_by_hand():
    """r1c4 = 1 and r2c3 = 4: rows 1, 2 and columns 3, 4 each miss a digit (f1 = 32 - 4 = 28, cost 4) and each
    free cell clashes with a given in its row and in its column (f2 = 4): f = 28 - 4 = 24. The only swap
    (one box with two free cells) gains f1 + 4 and f2 - 4: delta = 4 - (-4) = 8, and solves the puzzle."""
    s = create("hill_climb", greedy=False, post_swap=False, initial_order="sorted")
    s.reset(_hand_puzzle(), 0)
    assert s.grid.tolist()[3] == 1 and s.grid.tolist()[6] == 4
    assert (int(s.counters[K.C_F1]), int(s.counters[K.C_F2]), s.cost) == (28, 4, 4)
    evaluate = s.step_phase()
    assert (evaluate.name, evaluate.index, evaluate.iteration, evaluate.ended) == ("evaluate swaps", 0, 1, False)
    assert evaluate.caption == "evaluated 1 swap in 1 box: best gain 8 (r1c4 <-> r2c3)"
    assert dict(evaluate.changed) == {}
    assert s.iteration == 0 and s.phase == 1 and s.grid.tolist()[3] == 1  # nothing applied yet
    take = s.step_phase()
    assert take.name == "take the best" and take.ended  # solved: the move ends here, as run() stops here
    assert take.caption == (
        "took the best swap r1c4 <-> r2c3: f rises by 8 to 32 (f1 +4, clashes with givens -4); "
        "cost 0, the puzzle is solved"
    )
    assert np.flatnonzero(take.changed["cells"]).tolist() == [3, 6]
    assert not check_changes(take.changed, s.snapshot())
    assert s.status == "solved" and s.iteration == 1 and s.phase == 0
    assert [e.kind for e in take.events] == []  # HillClimb logs no event at a solve (its run record says it)
    assert s.snapshot().layers["runs"][-1]["outcome"] == "solved"
    assert s.step_phase() is None


def test_captions_and_changes_per_phase():
    """Captions name the numbers of the state: evaluated swaps, the swap, f, stuck counts, the queue, the run."""
    s = create("hill_climb", plateau=4, queue_capacity=2)
    pz = library.puzzle("ai_escargot")
    s.reset(pz, 0)
    evaluated = sum(m * (m - 1) // 2 for m in s.box_nfree.tolist())
    seen = {"new best": 0, "not above": 0, "escape": 0, "plateau": 0, "empty": 0}
    for _ in range(200):
        before = s.snapshot()
        steps = _one_iteration(s)
        evaluate, take, check = steps
        snap = s.snapshot()
        assert [st.index for st in steps] == [0, 1, 2] and [st.ended for st in steps] == [False, False, True]
        assert {st.iteration for st in steps} == {s.iteration}
        for st in steps:
            assert not check_changes(st.changed, snap), st
            assert st.caption and "\n" not in st.caption
        assert evaluate.caption.startswith(f"evaluated {evaluated} swaps in 9 boxes: best gain ")
        assert dict(evaluate.changed) == {}
        f = snap.layers["f"]
        if take.caption.startswith("took the best swap"):
            a, b = snap.layers["swap"][0]
            assert np.flatnonzero(take.changed["cells"]).tolist() == sorted([a, b])
            assert np.array_equal(take.changed["cells"], before.grid != snap.grid)
            assert f"to {f:g} (" in take.caption and f"cost {snap.cost}" in take.caption
            assert dict(check.changed) == {} and not check.events
            if "a new best score of the run" in check.caption:
                assert check.caption.endswith("the plateau count restarts (0 of 4)") and snap.layers["stuck"] == 0
                seen["new best"] += 1
            else:
                assert f"({snap.layers['stuck']} of 4 stuck states since it)" in check.caption
                seen["not above"] += 1
            continue
        assert take.caption.endswith(f"the state is stuck at f = {before.layers['f']:g}")
        assert dict(take.changed) == {}
        assert np.array_equal(check.changed["cells"], before.grid != snap.grid)
        (event,) = check.events
        if event.name == "plateau":  # an escape: the queue's best state
            assert check.caption.startswith(f"stuck ({before.layers['stuck'] + 1} of 4 stuck states since")
            assert f"a plateau escape to the best queued state (f = {f:g}, cost {snap.cost}; " in check.caption
            assert check.caption.endswith(f"{snap.layers['queue']} left in the queue)")
            assert snap.layers["plateau_jumps"] == before.layers["plateau_jumps"] + 1
            seen["escape"] += 1
            continue
        assert event.name == "random" and snap.layers["run"] == before.layers["run"] + 1
        assert check.caption.endswith(f"a random restart: run {snap.layers['run'] + 1} (f = {f:g}, cost {snap.cost})")
        assert snap.layers["runs"][-1]["outcome"].startswith("restart")
        if check.caption.startswith("plateau (4 of 4 stuck states since the run's best score)"):
            assert snap.layers["runs"][-1]["outcome"] == "restart (plateau)"
            seen["plateau"] += 1
        else:
            assert "the queue is empty" in check.caption
            assert snap.layers["runs"][-1]["outcome"] == "restart (queue empty)"
            seen["empty"] += 1
    assert all(seen.values()), seen


def test_the_budget_is_said_at_the_plateau_check():
    s = create("hill_climb", budget=3)
    s.reset(library.puzzle(HARD), 0)
    s.step(2)
    *_, check = _one_iteration(s)
    assert check.caption.endswith("; the budget of 3 moves is spent")
    assert s.status == "failed" and [e.kind for e in check.events] == ["run_end"]
    assert s.step_phase() is None


def test_a_phase_step_is_read_only():
    s = create("hill_climb")
    s.reset(library.puzzle(HARD), 0)
    s.step_phase()
    st = s.step_phase()
    with pytest.raises(ValueError):
        st.changed["cells"][0] = True


# --------------------------------------------------------- mid-iteration rules
def test_snapshot_mid_iteration():
    s = create("hill_climb")
    s.reset(library.puzzle(HARD), 0)
    s.step(2)
    n_rows = len(s.snapshot().trace["cost"])
    grid = s.grid.copy()
    s.step_phase()
    snap = s.snapshot()
    assert (snap.phase, snap.iteration, len(snap.trace["cost"])) == (1, 2, n_rows)
    assert np.array_equal(snap.grid, grid)  # evaluated, not yet taken
    s.step_phase()
    s.step_phase()
    snap = s.snapshot()
    assert (snap.phase, snap.iteration, len(snap.trace["cost"])) == (0, 3, n_rows + 1)


@pytest.mark.parametrize("phases_done", [1, 2])
def test_step_mid_iteration_finishes_it_first(phases_done):
    a, b = _pair({"plateau": 2, "queue_capacity": 4}, "ai_escargot", seed=3)
    a.step(5)
    for _ in range(phases_done):
        a.step_phase()
    assert a.step(30) == 30 and a.phase == 0
    b.step(35)
    assert first_difference(a.state_dict(), b.state_dict()) is None


def _to_a_stuck_move(s):
    """Step ``s`` to just after "take the best" of a stuck move (the plateau check will jump or restart)."""
    for _ in range(500):
        s.step_phase()
        take = s.step_phase()
        if "the state is stuck" in take.caption:
            return
        if not take.ended:
            s.step_phase()
    raise AssertionError("no stuck move in 500")


@pytest.mark.parametrize("phases_done", [1, 2])
def test_a_keyframe_mid_iteration_replays_exactly(phases_done):
    """Taken before a restart's plateau check too: the run records (which read the ending run's start) agree."""
    params = {"plateau": 1, "queue_capacity": 0}  # every stuck state restarts
    a, b = _pair(params, "ai_escargot", seed=2)
    _to_a_stuck_move(a)
    if phases_done == 1:
        a.step(1)
        a.step_phase()
    key = pickle.loads(pickle.dumps(a.state_dict()))
    assert key["phase"] == phases_done and key["phase_state"] is not None
    c = create("hill_climb", **params)
    c.load_state(key)
    assert c.phase == phases_done
    assert_snapshots_equal(c.snapshot(), a.snapshot())
    rest_a, rest_c = _one_iteration(a), _one_iteration(c)
    assert [(st.name, st.caption, st.events) for st in rest_a] == [(st.name, st.caption, st.events) for st in rest_c]
    b.step(a.iteration)
    assert first_difference(c.state_dict(), b.state_dict()) is None
    assert c.snapshot().layers["runs"] == b.snapshot().layers["runs"]
    c.step(20)
    b.step(20)
    assert first_difference(c.state_dict(), b.state_dict()) is None


def test_set_params_mid_iteration_is_refused():
    s = create("hill_climb")
    s.reset(library.puzzle(HARD), 0)
    s.step_phase()
    with pytest.raises(ParameterError, match="in the middle of an iteration"):
        s.set_params(w2=-2.0)
    assert s.get_params()["w2"] == -1.0
    s.step_phase()
    with pytest.raises(ParameterError, match="after its phase 'take the best'"):
        s.set_params(plateau=3)
    s.step_phase()
    s.set_params(w2=-2.0)  # between moves: applied
    assert s.get_params()["w2"] == -2.0
