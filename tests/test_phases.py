"""Stepping phase by phase (Solver.step_phase): RESEDA's four phases against step(), the twins, and the rules."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from phase_helpers import one_iteration as _one_iteration, pair, rng_copy as _rng_copy  # tests/phase_helpers.py

from sudoku_lab.errors import ParameterError, StateError
from sudoku_lab.model import library
from sudoku_lab.solvers import Phase, Solver, create, registry
from sudoku_lab.solvers.declare import CHANGE_KEYS, check_changes, check_declarations
from sudoku_lab.stepping.history import History
from sudoku_lab.testing import assert_snapshots_equal, first_difference

import naive

NAMES = ["sample", "select", "update", "restart check"]
HARD = "reseda_fig4_1_hard"


def _pair(params, puzzle=HARD, seed=0):
    return pair("reseda", params, puzzle, seed)


# ------------------------------------------------------------- same run
CONFIGS = [
    ({"beta": 0.35, "run_budget": 8}, HARD),  # partial restarts, then a full one; budget and rho > beta failures
    ({"beta": 0.3, "run_budget": 8, "Q": 40, "Q1": 8, "zones": "boxes"}, HARD),
    ({"sampling": "independent", "selection": "groups", "Q": 30, "Q1": 7, "restart": "full", "beta": 0.3}, HARD),
    ({"prefilter": "ac3", "beta": 0.35, "run_budget": 5, "zone_check": "consistent"}, "ai_escargot"),
    ({"coupling": True, "beta": 0.35, "run_budget": 5}, "ai_escargot"),
    ({"restart": "none", "beta": 0.3}, HARD),  # the search stops at the first failure
]


@pytest.mark.parametrize(
    "params, puzzle", CONFIGS, ids=[",".join(f"{k}={v}" for k, v in p.items()) for p, _ in CONFIGS]
)
def test_reseda_phase_by_phase_is_step_by_step(params, puzzle):
    """Every iteration boundary: the same keyframe (grid, p, costs, rng state, trace, events, counters) and snapshot."""
    kinds = set()
    for seed in range(3):
        a, b = _pair(params, puzzle, seed=seed)
        for _ in range(40):
            if b.done:
                break
            b.step(1)
            steps = _one_iteration(a)
            assert [st.name for st in steps] in (NAMES, ["sample"], [])
            d = first_difference(a.state_dict(), b.state_dict())
            assert d is None, f"seed {seed}, iteration {b.iteration}: {d}"
            assert_snapshots_equal(a.snapshot(), b.snapshot(), f"seed {seed}, iteration {b.iteration}")
        assert a.done == b.done and a.iteration == b.iteration
        kinds |= {(e.kind, e.name) for e in a.events}
    if params.get("restart", "partial+full") == "partial+full":
        assert ("restart", "partial") in kinds and ("restart", "full") in kinds, kinds
    elif params["restart"] == "full":
        assert ("restart", "full") in kinds, kinds
    else:
        assert ("run_end", "failed") in kinds and not any(k == "restart" for k, _ in kinds)


def test_phases_to_the_end_of_a_solved_run():
    """An easy puzzle is solved by a sample: the iteration ends at its first phase, as step() ends there."""
    a, b = _pair({}, "reseda_fig3_1_easy", seed=1)
    last = None
    while not b.done:
        b.step(1)
        steps = _one_iteration(a)
        last = steps[-1]
    assert a.status == b.status == "solved"
    assert last is not None and last.index == 0 and last.ended and "cost 0, the puzzle is solved" in last.caption
    assert [e.kind for e in last.events] == ["run_end"]
    assert_snapshots_equal(a.snapshot(), b.snapshot())
    assert a.step_phase() is None and a.phase == 0  # a finished run: nothing to do, as step() returns 0


def test_phases_replay_the_naive_twins_draw_for_draw():
    """The phases against tests/naive.py (not the kernel): samples, kept indices and the updated p."""
    s = create("reseda", beta=0.35, run_budget=8, Q=30, Q1=6)
    pz = library.puzzle(HARD)
    s.reset(pz, 4)
    for _ in range(20):
        rng = _rng_copy(s.rng)
        st = s.step_phase()  # sample (a pending restart starts first, with no draws)
        assert st.name == "sample"
        p, base = s.p.tolist(), s.base.tolist()
        ref = [naive.naive_sample_blocks(p, base, pz.n, rng) for _ in range(30)]
        assert s.samples.tolist() == ref
        costs = [naive.naive_missing_cost(g, pz.n) for g in ref]
        assert s.costs.tolist() == costs
        st = s.step_phase()  # select
        kept = naive.naive_select_sort(costs, 6, rng)
        assert st.changed["selected"].tolist() == kept
        st = s.step_phase()  # update
        free = [c for c in range(pz.C) if base[c] == 0]
        assert s.p.tolist() == naive.naive_update(p, ref, kept, free, 0.7)
        s.step_phase()  # restart check (no draws)
        assert rng.random() == _rng_copy(s.rng).random()  # both streams at the same place


# ------------------------------------------------------- what each phase says
def test_captions_and_changes_per_phase():
    s = create("reseda", beta=0.35, run_budget=8)
    s.reset(library.puzzle(HARD), 7)
    seen = {"goes on": 0, "budget": 0, "> beta": 0, "partial": 0, "full": 0, "starts": 0}
    for _ in range(30):
        before = s.snapshot()
        sample, select, update, check = _one_iteration(s)
        assert [sample.name, select.name, update.name, check.name] == NAMES
        assert [st.index for st in (sample, select, update, check)] == [0, 1, 2, 3]
        assert {sample.iteration, select.iteration, update.iteration, check.iteration} == {s.iteration}
        assert [st.ended for st in (sample, select, update, check)] == [False, False, False, True]
        snap = s.snapshot()
        for st in (sample, select, update, check):
            assert not check_changes(st.changed, snap), st
            assert st.caption and "\n" not in st.caption
        # sample: the step's best sample, and the cells it changed on the board
        assert sample.caption.split(": ")[-2].endswith("drew 100 samples (a permutation per box)")
        assert sample.changed["sample"].tolist() == snap.grid.tolist()
        if not sample.events:  # (a restart changes the board's fixed cells too)
            assert np.array_equal(sample.changed["cells"], before.grid != snap.grid)
        seen["starts"] += "starts:" in sample.caption
        # select: the kept samples, best first, are the snapshot's "kept" layer
        Q1 = 10
        assert select.caption.startswith(f"kept the {Q1} best of 100 samples")
        assert len(select.changed["selected"]) == Q1
        assert np.array_equal(snap.layers["kept"], s.samples[select.changed["selected"]])
        assert np.array_equal(select.changed["costs"], snap.layers["kept_costs"])
        assert np.array_equal(np.sort(s.costs)[:Q1], select.changed["costs"])
        assert np.all(np.diff(select.changed["costs"]) >= 0)
        # update: the rows of p that moved (never a fixed cell's)
        assert update.caption.startswith("p <- 0.7 p + 0.3 r from the 10 kept samples")
        assert f"rho = {snap.layers['rho']:.3f}" in update.caption
        # restart check
        for key in ("goes on", "budget", "> beta", "partial", "full"):
            seen[key] += key in check.caption
        if "goes on" in check.caption:
            assert not check.events
        else:
            assert check.events and check.events[0].kind == "run_end"
    assert all(seen.values()), seen


def test_update_names_the_rows_that_moved():
    s = create("reseda")
    s.reset(library.puzzle(HARD), 2)
    s.step(3)
    s.step_phase()
    s.step_phase()
    p_before = s.snapshot().layers["prob"]
    update = s.step_phase()
    p_after = s.snapshot().layers["prob"]
    moved = np.any(p_after != p_before, axis=1)
    assert np.array_equal(update.changed["rows"], moved) and moved.any()
    assert not update.changed["rows"][s.fixed].any()
    assert f"{int(moved.sum())} of {len(s.free_cells)} free cells' rows moved" in update.caption


def test_a_phase_step_is_read_only():
    s = create("reseda")
    s.reset(library.puzzle(HARD), 0)
    st = s.step_phase()
    with pytest.raises(ValueError):
        st.changed["sample"][0] = 9
    with pytest.raises(TypeError):
        st.changed["new"] = np.zeros(3)  # type: ignore[index]
    s.step_phase()
    assert st.changed["sample"].tolist() == s.grid.tolist()  # a copy: later phases do not change it


# --------------------------------------------------------- mid-iteration rules
def test_snapshot_mid_iteration():
    s = create("reseda")
    s.reset(library.puzzle(HARD), 0)
    s.step(2)
    n_rows = len(s.snapshot().trace["cost"])
    s.step_phase()
    snap = s.snapshot()
    assert (snap.phase, s.phase, snap.iteration) == (1, 1, 2)  # whole iterations done
    assert len(snap.trace["cost"]) == n_rows  # the iteration's row comes at its end
    assert len(snap.layers["kept"]) == 0  # this step's samples are not selected yet
    s.step_phase()
    assert len(s.snapshot().layers["kept"]) == 10
    s.step_phase()
    s.step_phase()
    snap = s.snapshot()
    assert (snap.phase, snap.iteration, len(snap.trace["cost"])) == (0, 3, n_rows + 1)


@pytest.mark.parametrize("phases_done", [1, 2, 3])
def test_step_mid_iteration_finishes_it_first(phases_done):
    a, b = _pair({"beta": 0.35, "run_budget": 8}, seed=7)
    a.step(5)
    for _ in range(phases_done):
        a.step_phase()
    assert a.step(10) == 10 and a.phase == 0  # the unfinished iteration counts as one of the 10
    b.step(15)
    assert first_difference(a.state_dict(), b.state_dict()) is None


def test_a_keyframe_mid_iteration_replays_exactly():
    a, b = _pair({"beta": 0.35, "run_budget": 8}, seed=7)
    a.step(7)
    a.step_phase()
    a.step_phase()
    key = pickle.loads(pickle.dumps(a.state_dict()))
    assert key["phase"] == 2 and key["phase_state"] is not None
    c = create("reseda", beta=0.35, run_budget=8)
    c.load_state(key)
    assert c.phase == 2
    assert_snapshots_equal(c.snapshot(), a.snapshot())
    rest_a, rest_c = _one_iteration(a), _one_iteration(c)
    assert [(st.name, st.caption) for st in rest_a] == [(st.name, st.caption) for st in rest_c]
    b.step(8)
    assert first_difference(c.state_dict(), b.state_dict()) is None
    # A keyframe from before phases existed (no "phase" keys) loads at an iteration boundary.
    old = {k: v for k, v in b.state_dict().items() if k not in ("phase", "phase_state")}
    d = create("reseda", beta=0.35, run_budget=8)
    d.load_state(old)
    assert d.phase == 0 and first_difference(d.state_dict(), b.state_dict()) is None


def test_a_keyframe_mid_iteration_holds_its_start_and_is_rebuilt_by_replay_never_read():
    """Issue 27, items 1-2: what the phases computed so far is not read from a (session) file but replayed."""
    a, _ = _pair({"beta": 0.35, "run_budget": 8}, seed=7)
    a.step(7)
    start = a.state_dict()
    a.step_phase()
    a.step_phase()
    key = a.state_dict()
    assert key["phase_state"]["steps"] == 2
    assert first_difference(key["phase_state"]["origin"], start) is None
    # The arrays the phases wrote do not match a replay from the start: refused, naming where.
    grid = key["algorithm"]["grid"].copy()
    grid[grid > 0] = grid[grid > 0] % 9 + 1
    tampered = {**key, "algorithm": {**key["algorithm"], "grid": grid}}
    with pytest.raises(StateError, match=r"replaying 2 phase steps from the start of iteration 8 does not arrive"):
        create("reseda", beta=0.35, run_budget=8).load_state(tampered)
    # More phase steps than the iteration has.
    with pytest.raises(StateError, match="its iteration ends before the 9 phase steps"):
        create("reseda", beta=0.35, run_budget=8).load_state({**key, "phase_state": {**key["phase_state"], "steps": 9}})
    # An origin that is itself mid-iteration, or a phase past the phases.
    with pytest.raises(StateError, match="origin is not the start of an iteration"):
        create("reseda", beta=0.35, run_budget=8).load_state({**key, "phase_state": {"origin": key, "steps": 1}})
    with pytest.raises(StateError, match=r"state.phase is 4, outside 0..3"):
        create("reseda", beta=0.35, run_budget=8).load_state({**key, "phase": 4})
    # A refused keyframe leaves the solver as it was.
    c = create("reseda", beta=0.35, run_budget=8)
    c.load_state(start)
    with pytest.raises(StateError):
        c.load_state(tampered)
    assert first_difference(c.state_dict(), start) is None


def test_set_params_mid_iteration_is_refused():
    s = create("reseda")
    s.reset(library.puzzle(HARD), 0)
    s.step_phase()
    with pytest.raises(ParameterError, match="alpha cannot change in the middle of an iteration .* 'sample'"):
        s.set_params(alpha=0.5)
    assert s.set_params(alpha=0.7) == []  # no change: nothing to refuse
    assert s.get_params()["alpha"] == 0.7
    s.step(1)
    assert [e.name for e in s.set_params(alpha=0.5)] == ["alpha"]


def test_a_history_started_mid_iteration_has_that_moment_as_its_origin():
    """Issue 27, item 7: a solver in the middle of an iteration (a session saved after Step phase, reopened
    without its history) gets a History; seek(origin) is that very moment, the iterations after it are
    reached as always, nothing before it. (It used to be refused, "finish it with solver.step(1) first".)"""
    s = create("reseda")
    s.reset(library.puzzle(HARD), 0)
    s.step(2)
    s.step_phase()
    s.step_phase()
    moment = s.snapshot()
    ref = create("reseda")
    ref.reset(library.puzzle(HARD), 0)
    ref.step(2)
    ref_steps = [ref.step_phase() for _ in range(2)]
    h = History(s, interval=2)
    assert (h.origin, h.furthest, h.iteration, s.phase) == (2, 2, 2, 2)
    assert h.replay_phases() == ()  # the phases before the origin are not recorded
    nxt, want = h.step_phase(), ref.step_phase()  # the same iteration goes on, draw for draw
    assert (nxt.index, nxt.caption) == (want.index, want.caption) and ref_steps[-1].index == 1
    assert_snapshots_equal(s.snapshot(), ref.snapshot(), "the next phase")
    assert_snapshots_equal(h.seek(2), moment, "seek(origin): the moment the history started at")
    assert h.step(5) == 5
    ref.step(5)
    assert_snapshots_equal(s.snapshot(), ref.snapshot(), "5 iterations on")
    at_4 = h.seek(4)
    ref4 = create("reseda")
    ref4.reset(library.puzzle(HARD), 0)
    ref4.step(4)
    assert_snapshots_equal(at_4, ref4.snapshot(), "a whole iteration after the origin")
    with pytest.raises(ParameterError, match="between 2 and 7"):
        h.seek(1)
    h.seek(7)
    s.step_phase()  # behind the history's back
    with pytest.raises(RuntimeError, match=r"outside its History \(it is at iteration 7, phase 1; the history left"):
        h.step(1)
    with pytest.raises(RuntimeError, match="outside its History"):
        h.seek(2)


def test_history_after_phase_steps_at_a_boundary():
    """Phase steps, then whole-iteration recording: the keyframes replay the phased iterations' state."""
    a, b = _pair({"beta": 0.35, "run_budget": 8}, seed=7)
    for _ in range(10):
        _one_iteration(a)
    b.step(10)
    h = History(a, interval=4)
    h.step(12)
    b.step(12)
    assert first_difference(a.state_dict(), b.state_dict()) is None
    at_15 = h.seek(15)
    c = create("reseda", beta=0.35, run_budget=8)
    c.reset(library.puzzle(HARD), 7)
    c.step(15)
    assert_snapshots_equal(at_15, c.snapshot())


# ------------------------------------------------------------ without phases
def test_the_metaheuristics_declare_their_phases_in_the_papers_words():
    """Issue 19: every built-in metaheuristic steps by phases; the exact solver (a ground truth) does not."""
    built_in = {n: c for n, c in registry().items() if c.__module__.startswith("sudoku_lab.solvers.")}
    declared = {n: [ph.name for ph in c.phases] for n, c in built_in.items()}
    assert declared == {
        "reseda": ["sample", "select", "update", "restart check"],
        "hill_climb": ["evaluate swaps", "take the best", "plateau check"],
        "nbcoin": ["sample", "rank", "reward", "punish"],
        "ga": ["select", "cross", "mutate", "replace"],
        "ac3_tabu": ["candidates", "choose", "propagate", "tabu update"],
        "cuckoo": ["lay", "compare and replace", "abandon"],
        "acs": ["start", "place", "global update"],
        "exact": [],
    }


@pytest.mark.parametrize("name", ["exact"])
def test_a_solver_without_phases_refuses_step_phase(name):
    s = create(name)
    with pytest.raises(RuntimeError, match="reset"):
        s.step_phase()
    s.reset(library.puzzle("reseda_fig3_1_easy"), 0)
    with pytest.raises(RuntimeError, match=f"{name} declares no phases: step it by whole iterations with step"):
        s.step_phase()
    assert s.phase == 0 and s.snapshot().phase == 0


def test_step_phase_before_reset():
    with pytest.raises(RuntimeError, match="call reset"):
        create("reseda").step_phase()


# ------------------------------------------------------------ declarations
def test_phase_declarations_are_checked():
    with pytest.raises(ValueError, match="one line"):
        Phase("sample", "")
    with pytest.raises(ValueError, match="one line"):
        Phase("sample", "two\nlines")

    class Two(Solver):
        phases = (Phase("a", "does a"), Phase("a", "does a again"))

    class One(Solver):
        phases = (Phase("a", "does a"),)

    class Wrong(Solver):
        phases = ("a", "b")  # type: ignore[assignment]

    assert "two phases share a name" in check_declarations(Two)
    assert any("one phase is the whole iteration" in p for p in check_declarations(One))
    assert "phases must be a tuple of Phase declarations" in check_declarations(Wrong)
    assert not [p for p in check_declarations(type(create("reseda"))) if "phase" in p]


def test_check_changes_names_bad_payloads():
    s = create("reseda")
    s.reset(library.puzzle(HARD), 0)
    snap = s.snapshot()

    def ro(a):
        a.setflags(write=False)
        return a

    assert not check_changes({"cells": ro(np.zeros(81, bool)), "selected": ro(np.arange(3))}, snap)
    problems = check_changes(
        {
            "nope": ro(np.zeros(3)),
            "cells": ro(np.zeros(80, bool)),
            "rows": ro(np.zeros(81, np.int8)),
            "sample": np.zeros(81, np.int8),
            "selected": ro(np.arange(3)),
            "costs": ro(np.arange(2)),
        },
        snap,
    )
    text = "\n".join(problems)
    for part in (
        "'nope' is not one of",
        "changed['cells'] has shape (80,)",
        "changed['rows'] has dtype int8",
        "changed['sample'] is writeable",
        "differ in length",
    ):
        assert part in text
    assert set(CHANGE_KEYS) == {"cells", "rows", "sample", "selected", "costs", "members"}


# ------------------------------------------------------------------ cuckoo
CUCKOO = [
    ({}, "mk_hard_a"),
    ({"nests": 8, "pa": 0.5, "p_pmx": 0.2, "pmx_segment": "current", "ties": "replace"}, "mk_medium_b"),
    ({"levy": True, "infeasible": "accept", "fill_nodes": 3, "abandon": "worst"}, "ai_escargot"),
    ({"prefilter": "none", "nests": 3, "fill_nodes": 1, "p_mut": 0.0}, "unique_4x4_a"),  # solved on the way
    ({"iterations": 25}, "ai_escargot"),  # the budget ends the run
]


@pytest.mark.parametrize(
    "params, puzzle", CUCKOO, ids=[",".join(map(str, p.values())) or "defaults" for p, _ in CUCKOO]
)
def test_cuckoo_phase_by_phase_is_step_by_step(params, puzzle):
    ops, statuses = set(), set()
    for seed in (3, 4, 5):  # the 4x4 puzzle: solved at 33, at 10, and by the first nests (seed 5)
        a, b = create("cuckoo", **params), create("cuckoo", **params)
        a.reset(library.puzzle(puzzle), seed)
        b.reset(library.puzzle(puzzle), seed)
        for _ in range(40):
            if b.done:
                break
            b.step(1)
            steps = _one_iteration(a)
            if steps:
                assert [st.name for st in steps] == ["lay", "compare and replace", "abandon"]
                lay, compare, abandon = steps
                assert lay.changed["members"].tolist() == [a.snapshot().layers["picked"]]
                replaced = a.snapshot().layers["replaced"]
                assert compare.changed["members"].tolist() == ([] if replaced < 0 else [replaced])
                assert np.array_equal(abandon.changed["members"], np.flatnonzero(a.snapshot().layers["abandoned"]))
                ops.add(a.snapshot().layers["operator"])
            assert first_difference(a.state_dict(), b.state_dict()) is None, (seed, b.iteration)
            assert_snapshots_equal(a.snapshot(), b.snapshot(), f"seed {seed}, iteration {b.iteration}")
        assert a.status == b.status
        statuses.add(a.status)
    if puzzle == "unique_4x4_a":
        assert "solved" in statuses
    elif "iterations" in params:
        assert statuses == {"failed"} and a.iteration == 25
    else:
        assert {"pmx", "sorting"} <= ops


def test_cuckoo_captions():
    s = create("cuckoo")
    s.reset(library.puzzle("mk_hard_a"), 1)
    lay, compare, abandon = _one_iteration(s)
    assert lay.caption.startswith("a cuckoo picked nest 15 (cost 35) and laid a new egg by PMX with the best egg")
    assert compare.caption.startswith("compared with nest 17 (cost 33): the new egg (cost 32) is better and replaces")
    assert abandon.caption.startswith("abandoned 9 of 21 nests other than the best (each with probability pa = 0.3)")
    assert not check_changes(abandon.changed, s.snapshot())


# ------------------------------------------------------------ a repeating phase
def test_a_repeating_phase_names_what_follows_and_the_base_checks_it():
    """A phase declared repeats=True may follow itself; any other phase may only be followed by a later one."""
    from sudoku_lab.solvers import Phase

    acs = registry()["acs"]
    assert [ph.repeats for ph in acs.phases] == [False, True, False]
    s = create("acs", ants=2)
    s.reset(library.puzzle("ai_escargot"), 3)
    seen = [s.step_phase().index]
    while True:
        st = s.step_phase()
        seen.append(st.index)
        if st.ended:
            break
    assert seen[0] == 0 and seen[-1] == 2 and set(seen[1:-1]) == {1} and len(seen) > 3
    assert Phase("x", "words").repeats is False


def test_a_phase_that_repeats_without_declaring_it_is_refused():
    """The base refuses a step naming its own phase again when that phase was not declared repeats=True."""
    s = create("acs", ants=2)
    s.reset(library.puzzle("ai_escargot"), 3)
    s.step_phase()  # start
    real = s._run_phase

    def start_again(index, ctx):
        caption, changed, ended, _ = real(index, ctx)
        return caption, changed, ended, 0

    s._run_phase = start_again  # type: ignore[method-assign]
    with pytest.raises(RuntimeError, match="a phase is followed by a later one, or by itself when declared"):
        s.step_phase()
