"""The AC3-tabu search's phases (candidates, choose, propagate, tabu update): step(), the twin, captions, rules."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from phase_helpers import one_iteration as _one_iteration, pair  # tests/phase_helpers.py

from sudoku_lab._kernels import ac3_tabu as K
from sudoku_lab.errors import ParameterError
from sudoku_lab.exact import ac3 as ac3_api
from sudoku_lab.model import library
from sudoku_lab.model.geometry import cell_name, symbol
from sudoku_lab.solvers import create
from sudoku_lab.solvers.declare import check_changes
from sudoku_lab.testing import assert_snapshots_equal, first_difference

from naive_ac3_tabu import NaiveTabu  # tests/naive_ac3_tabu.py

NAMES = ["candidates", "choose", "propagate", "tabu update"]


def _pair(params, puzzle, seed=0):
    return pair("ac3_tabu", params, puzzle, seed)


def _sets(domains):
    return [set(ac3_api.mask_to_digits(m)) for m in domains]


# ------------------------------------------------------------- same run
CONFIGS = [
    ({}, "mk_hard_c"),  # solved, with dead ends restarted from the prefilter, an aspiration move
    ({"tenure": 2, "candidates": 4, "p_drop": 0.3}, "ai_escargot"),  # no-move iterations
    ({"tenure": 30, "p_drop": 0.5}, "mk_hard_a"),  # aspiration moves
    ({"dead_end": "drop", "drop": 2, "p_drop": 0.5, "iterations": 120}, "mk_hard_b"),  # dead ends kept; budget
    ({"hidden_singles": True, "candidates": 3}, "mk_medium_b"),
]


@pytest.mark.parametrize(
    "params, puzzle", CONFIGS, ids=[",".join(f"{k}={v}" for k, v in p.items()) or "default" for p, _ in CONFIGS]
)
def test_ac3_tabu_phase_by_phase_is_step_by_step(params, puzzle):
    """Every iteration boundary: the same keyframe (domains, tabu list, candidates, rng state, trace, events)."""
    seen = set()
    for seed in range(3):
        a, b = _pair(params, puzzle, seed=seed)
        for _ in range(300):
            if b.done:
                break
            dead = bool(a.counters[K.C_DEAD])
            b.step(1)
            steps = _one_iteration(a)
            assert [st.name for st in steps] == NAMES
            d = first_difference(a.state_dict(), b.state_dict())
            assert d is None, f"seed {seed}, iteration {b.iteration}: {d}"
            assert_snapshots_equal(a.snapshot(), b.snapshot(), f"seed {seed}, iteration {b.iteration}")
            seen |= {"dead end"} if dead else set()
            seen |= {"no move"} if steps[1].caption.startswith("no move") else set()
            seen |= {"aspiration"} if steps[-1].events else set()
            seen |= {"wiped"} if "wiped out by AC3" in steps[0].caption else set()
        assert a.done == b.done and a.iteration == b.iteration and a.status == b.status
        seen.add(a.status)
    expected = {
        "mk_hard_c": {"solved", "dead end", "wiped", "aspiration"},
        "ai_escargot": {"no move", "wiped"},
        "mk_hard_a": {"aspiration", "solved", "running"},
        "mk_hard_b": {"failed", "dead end", "no move"},
        "mk_medium_b": {"solved"},
    }[puzzle]
    assert expected <= seen, seen


# --------------------------------------------------------------- the twin
@pytest.mark.parametrize("params", [{}, {"tenure": 2, "candidates": 4, "p_drop": 0.3}])
def test_phases_replay_the_naive_twin(params):
    """The state after "choose" is the twin's candidate before its propagation, after "propagate" the twin's state."""
    pz = library.puzzle("ai_escargot")
    s = create("ac3_tabu", **params)
    s.reset(pz, 6)
    tw = NaiveTabu([int(x) for x in pz.grid], pz.n, np.random.default_rng(6), **s.get_params())
    moves = 0
    for _ in range(60):
        S_before = _sets(s.S)
        tw.step()
        s.step_phase()  # candidates: every draw of the iteration
        assert s.rng.bit_generator.state == tw.rng.bit_generator.state  # both streams at the same place
        s.step_phase()  # choose
        if tw.moved:
            moves += 1
            assert _sets(s.S) == tw.pre
        else:
            assert _sets(s.S) == S_before
        s.step_phase()  # propagate
        assert _sets(s.S) == tw.S and s.cost == tw.cost and s.best_cost == tw.best_cost
        s.step_phase()  # tabu update
        assert s.tabu[: s.counters[K.C_TABU_LEN]].tolist() == [list(f) for f in tw.tabu]
        assert s.trace.arrays()["cost"][-1] == tw.trace[-1][1]
    assert moves > 10


# ------------------------------------------------------- what each phase says
def _words(c, d, N=9):
    return f"{cell_name(int(c), N)}={symbol(int(d))}"


def test_captions_and_changes_against_the_twin():
    """Each caption's numbers, recomputed from the twin's records, domains and tabu list."""
    pz = library.puzzle("ai_escargot")
    params = {"tenure": 3, "candidates": 5, "p_drop": 0.3}
    s = create("ac3_tabu", **params)
    s.reset(pz, 2)
    tw = NaiveTabu([int(x) for x in pz.grid], pz.n, np.random.default_rng(2), **s.get_params())
    seen = set()
    for _ in range(400):
        if s.done:
            break
        before_grid = s.grid.copy()
        cost_s = s.cost
        tw.step()
        cand, choose, propagate, tabu = _one_iteration(s)
        snap = s.snapshot()
        for st in (cand, choose, propagate, tabu):
            assert st.caption and "\n" not in st.caption and not check_changes(st.changed, snap), st
        assert [st.ended for st in (cand, choose, propagate, tabu)] == [False, False, False, True]
        recs = tw.records
        # candidates: the admissible ones best first (ties in generation order), with their costs
        adm = [r for r in recs if r["status"] in ("not best", "taken", "aspiration", "worse")]
        adm.sort(key=lambda r: r["cost"])
        assert cand.changed["selected"].tolist() == [r["k"] - 1 for r in adm]
        assert cand.changed["costs"].tolist() == [r["cost"] for r in adm]
        n_tabu = sum(r["status"] == "tabu" for r in recs)
        wiped = sum(r["status"] == "wiped out" for r in recs)
        assert cand.caption.startswith(f"{len(adm)} of 5 candidate moves admissible ({n_tabu} tabu")
        asp = sum(r["tabu"] for r in adm)
        assert (f", {asp} tabu but admitted by aspiration" in cand.caption) == (asp > 0)
        assert ("wiped out by AC3" in cand.caption) == (wiped > 0)
        taken = [r for r in recs if r["status"] in ("taken", "aspiration")]
        if taken:
            r = taken[0]
            seen.add("move")
            head = f"chose candidate {r['k']}, {cell_name(r['cell'], 9)} = {symbol(r['digit'])}"
            assert choose.caption.startswith(head) and choose.caption.endswith(f": cost {cost_s} -> {tw.cost}")
            assert ("after dropping" in choose.caption) == bool(r["dropped"])
            pre_grid = np.array([next(iter(d)) if len(d) == 1 else 0 for d in tw.pre], dtype=np.int8)
            assert np.array_equal(choose.changed["cells"], pre_grid != before_grid)
            assert choose.changed["cells"][r["cell"]]
            assert choose.changed["sample"].tolist() == tw.grid()
            removed = sum(len(p) - len(q) for p, q in zip(tw.pre, tw.S))
            fixed = sum(len(p) > 1 and len(q) == 1 for p, q in zip(tw.pre, tw.S))
            assert np.array_equal(propagate.changed["cells"], np.array(tw.grid(), dtype=np.int8) != pre_grid)
            assert int(propagate.changed["cells"].sum()) == fixed
            if removed:
                seen.add("propagated")
                assert propagate.caption.startswith(
                    f"propagation (AC3) removed {removed} value{'s' if removed != 1 else ''}, "
                    f"{fixed} cell{'s' if fixed != 1 else ''} fixed; cost {tw.cost}"
                )
            undone = [_words(c, d) for c, d, e, why in tw.tabu if e == tw.iteration and why == 0]
            if undone:
                seen.add("undone")
                assert tabu.caption.startswith(f"tabu list: {', '.join(undone[:4])}")
            else:
                assert tabu.caption.startswith("tabu list: the move undid no assignment, nothing enters")
        else:
            seen.add("no move")
            assert choose.caption.startswith("no move") and choose.changed == {}
            assert propagate.caption == "nothing to propagate: no move in this iteration" and propagate.changed == {}
            assert tabu.caption.startswith("tabu list: no move, no feature difference enters")
        assert f"; {len(tw.tabu)} of at most 3 features listed (FIFO)" in tabu.caption
        assert [e.kind for e in tabu.events] == (["aspiration"] if taken and taken[0]["tabu"] else [])
    assert {"move", "no move", "propagated", "undone"} <= seen, seen


def test_a_solved_run_ends_at_its_tabu_update():
    a, b = _pair({}, "mk_medium_a", seed=1)
    last = None
    while not b.done:
        b.step(1)
        last = _one_iteration(a)
    assert a.status == b.status == "solved"
    assert last is not None and last[-1].caption.endswith("; the puzzle is solved")
    assert_snapshots_equal(a.snapshot(), b.snapshot())
    assert a.step_phase() is None and a.phase == 0


# --------------------------------------------------------- mid-iteration rules
@pytest.mark.parametrize("phases_done", [1, 2, 3])
def test_a_keyframe_mid_iteration_replays_exactly(phases_done):
    params = {"tenure": 2, "candidates": 4, "p_drop": 0.3}
    a, b = _pair(params, "ai_escargot", seed=3)
    a.step(9)
    for _ in range(phases_done):
        a.step_phase()
    key = pickle.loads(pickle.dumps(a.state_dict()))
    assert key["phase"] == phases_done and key["phase_state"] is not None
    c = create("ac3_tabu", **params)
    c.load_state(key)
    assert c.phase == phases_done
    assert_snapshots_equal(c.snapshot(), a.snapshot())
    rest_a, rest_c = _one_iteration(a), _one_iteration(c)
    assert [(st.name, st.caption) for st in rest_a] == [(st.name, st.caption) for st in rest_c]
    assert [st.name for st in rest_a] == NAMES[phases_done:]
    b.step(10)
    assert first_difference(c.state_dict(), b.state_dict()) is None
    assert first_difference(a.state_dict(), b.state_dict()) is None


def test_snapshot_mid_iteration():
    """After "choose" the board shows the assignment, after "propagate" what AC3 fixed; the trace row comes last."""
    s = create("ac3_tabu")
    s.reset(library.puzzle("mk_hard_c"), 0)
    s.step(2)
    rows = len(s.snapshot().trace["cost"])
    s.step_phase()
    s.step_phase()
    snap = s.snapshot()
    assert (snap.phase, snap.iteration, len(snap.trace["cost"])) == (2, 2, rows)
    assert not snap.layers["struck"].any()  # nothing propagated yet
    s.step_phase()
    snap = s.snapshot()
    assert snap.phase == 3 and snap.layers["struck"].any()
    s.step_phase()
    assert len(s.snapshot().trace["cost"]) == rows + 1


def test_set_params_mid_iteration_is_refused():
    s = create("ac3_tabu")
    s.reset(library.puzzle("mk_hard_c"), 0)
    s.step_phase()
    with pytest.raises(ParameterError, match="tenure cannot change in the middle of an iteration .* 'candidates'"):
        s.set_params(tenure=4)
    s.step(1)
    assert [e.name for e in s.set_params(tenure=4)] == ["tenure"]
