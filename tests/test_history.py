"""sudoku_lab.stepping.history: record while stepping, seek any iteration exactly, replay the recorded changes.

Issue 19, item 1 (headless part). For every registered solver and the example plugin: step 40, seek 20,
the snapshot equals the one taken at 20 on the way; 20 more steps give the first pass's snapshots at
21..40, a parameter change made at 30 (through the history or the solver's own ``set_params``) made at 30
again. Then eviction under a small memory limit over a long run, branching, a run that ends early, and
the errors.
"""

from __future__ import annotations

import copy
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from sudoku_lab.errors import HistoryError, ParameterError
from sudoku_lab.model import library
from sudoku_lab.solvers import Event, Status, create, registry, unregister
from sudoku_lab.stepping import History
from sudoku_lab.stepping.history import state_nbytes
from sudoku_lab.testing import _live_changes, assert_snapshots_equal, examples_of, first_difference

PLUGIN_DIR = Path(__file__).resolve().parents[1] / "examples" / "plugin"


@pytest.fixture
def toy_descent(monkeypatch, own_reproductions):
    """The plugin example's solver class imported into this process; unregistered and forgotten afterwards."""
    from sudoku_lab import benchmarks

    registry(), benchmarks.benchmarks()  # complete first: built-ins must not load while the plugin is there
    monkeypatch.syspath_prepend(str(PLUGIN_DIR))
    import toy_descent as module

    yield module.ToyDescent
    unregister("toy-descent")
    benchmarks._REGISTRY.unregister("toy-descent")
    for name in [n for n in sys.modules if n == "toy_descent" or n.startswith("toy_descent.")]:
        del sys.modules[name]


def _long_example(cls):
    """A declared example (or the hard puzzle on defaults) that the scenario's first pass (seed 7, 40 iterations,
    every live parameter changed at 30) does not finish."""
    for params, name in (*examples_of(cls), ({}, "reseda_fig4_1_hard")):
        s = cls(**params)
        s.reset(library.puzzle(name), seed=7)
        s.step(30)
        s.set_params(**_live_changes(s))
        s.step(10)
        if s.iteration == 40 and not s.done:
            return params, name
    return examples_of(cls)[0]


def _scenario(cls, via):
    """The issue's Done-when: step 40 (a change at 30), seek 20, step 20 more; compare with the first pass."""
    params, name = _long_example(cls)
    s = cls(**params)
    s.reset(library.puzzle(name), seed=7)
    h = History(s, interval=8)  # keyframes at 0, 8, 16, ...: seek(20) loads 16 and re-simulates 4
    first = {0: s.snapshot()}
    changes = {}
    for _ in range(40):
        if h.step(1) == 0:
            break
        first[s.iteration] = s.snapshot()
        if s.iteration == 30:
            changes = _live_changes(s)
            (h.set_params if via == "history" else s.set_params)(**changes)
    end = h.furthest
    if cls.stochastic:  # the scenario really ran: 40 iterations, a change at 30 on the first pass
        assert end == 40 and changes
        assert {e.name for e in first[31].events if e.kind == "param" and e.iteration == 30} == set(changes)
        assert dict(first[31].params) == {**first[30].params, **changes} != dict(first[30].params)
    mid = min(20, end)
    snap = h.seek(mid)
    assert s.iteration == h.iteration == mid
    assert_snapshots_equal(snap, first[mid], f"{cls.name}: after seek({mid})")
    assert_snapshots_equal(s.snapshot(), first[mid], f"{cls.name}: after seek({mid})")
    for it in range(mid + 1, end + 1):
        assert h.step(1) == 1
        assert_snapshots_equal(s.snapshot(), first[it], f"{cls.name}: replaying iteration {it}")
    assert h.furthest == end
    return h, first


@pytest.mark.parametrize("via", ["history", "solver"])
@pytest.mark.parametrize("name", list(registry()))
def test_seek_then_replay_equals_the_first_pass(name, via):
    _scenario(registry()[name], via)


@pytest.mark.parametrize("via", ["history", "solver"])
def test_seek_then_replay_for_the_plugin_solver(toy_descent, via):
    h, first = _scenario(toy_descent, via)
    for it in (0, 40, 13, 31, 30, 7):  # back and forth, across the change
        assert_snapshots_equal(h.seek(it), first[it], f"seek({it})")


def test_a_change_is_replayed_at_its_iteration_not_at_the_seek():
    """The replay makes the change at 30, though the seek was to 20 and stepping went on in one call."""
    s = create("hill_climb")
    s.reset(library.puzzle("ai_escargot"), seed=2)
    h = History(s, interval=16)
    h.step(30)
    s.set_params(w1=2.5)  # made on the solver directly: the history reads it from the event log
    s.set_params(w1=3.0)  # twice at one iteration: replayed as two calls, two events
    h.step(30)
    final = s.snapshot()
    assert [e for e in h.events if e.kind == "param"] == [
        Event(30, "param", "w1", 1.0, 2.5),
        Event(30, "param", "w1", 2.5, 3.0),
    ]
    h.seek(20)
    assert s.get_params()["w1"] == 1.0
    assert h.step(40) == 40  # one call across the change
    assert_snapshots_equal(s.snapshot(), final, "replayed in one step")
    h.seek(30)  # the state the step to 30 left: before the changes made at 30
    assert s.get_params()["w1"] == 1.0 and not any(e.kind == "param" for e in s.events)
    h.step(1)
    assert s.get_params()["w1"] == 3.0


def test_eviction_keeps_memory_under_a_small_limit_and_seeks_stay_exact():
    s = create("hill_climb")
    s.reset(library.puzzle("ai_escargot"), seed=5)
    limit = 1_000_000  # the keyframe at 0 is about 20 kB, at 2,400 about 200 kB (the trace, the run records)
    h = History(s, memory_limit=limit, interval=16)
    taken, peak = {}, 0
    while s.iteration < 2400:
        assert h.step(40) == 40
        peak = max(peak, h.memory_used)
        assert h.memory_used <= limit
        if s.iteration % 400 == 0:
            taken[s.iteration] = s.snapshot()
        if s.iteration == 1000:
            h.set_params(w2=-3.0)
    assert h.interval >= 64  # thinned: the spacing doubled at least twice
    keys = h.keyframes
    assert keys[0] == 0 and len(keys) >= 3 and keys[-1] > 2400 - h.interval  # the origin and a recent one stay
    arrays = sum(_array_bytes(k.state) for k in h._keys)  # counted independently: at least the arrays are in it
    assert limit / 4 < arrays <= h.memory_used <= limit
    for it in (2000, 400, 2400, 1200, 800):
        assert_snapshots_equal(h.seek(it), taken[it], f"seek({it}) after eviction")
    print(f"hill_climb, 2400 iterations: limit {limit} B, peak {peak} B, keyframes at {keys}")


def _array_bytes(obj):
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, dict):
        return sum(_array_bytes(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(_array_bytes(v) for v in obj)
    return 0


def test_a_limit_below_one_keyframe_is_refused():
    s = create("reseda")
    s.reset(library.puzzle("reseda_fig3_1_easy"), seed=1)
    with pytest.raises(ParameterError, match=r"^memory_limit 1000 bytes is smaller than one keyframe of reseda \("):
        History(s, memory_limit=1000)
    with pytest.raises(ParameterError, match="memory_limit must be a positive"):
        History(s, memory_limit=0)


def test_only_the_origin_is_kept_when_the_origin_and_the_latest_are_over_the_limit():
    s = create("hill_climb")
    s.reset(library.puzzle("ai_escargot"), seed=5)
    one = state_nbytes(s.state_dict())
    h = History(s, memory_limit=int(1.5 * one), interval=4)
    first = {}
    for _ in range(60):
        h.step(1)
        first[s.iteration] = s.snapshot()
        assert h.memory_used <= h.memory_limit and h.keyframes[0] == 0
    assert h.keyframes == (0,)
    assert_snapshots_equal(h.seek(57), first[57], "re-simulated from the origin")


def test_a_change_after_a_seek_starts_a_new_branch():
    s = create("hill_climb")
    s.reset(library.puzzle("ai_escargot"), seed=3)
    h = History(s, interval=8)
    h.step(30)
    h.set_params(w1=2.0)
    h.step(30)
    old_end = s.snapshot()
    h.seek(20)
    h.set_params(w2=-4.0)
    assert h.furthest == 20 and max(h.keyframes) <= 20
    assert [e for e in h.events if e.kind == "param"] == [Event(20, "param", "w2", -1.0, -4.0)]  # w1's is gone
    with pytest.raises(ParameterError):
        h.seek(21)
    h.step(40)
    branch = s.snapshot()
    assert first_difference(branch, old_end) is not None
    # The branch is the run that makes that change at 20, with no change at 30.
    t = create("hill_climb")
    t.reset(library.puzzle("ai_escargot"), seed=3)
    t.step(20)
    t.set_params(w2=-4.0)
    t.step(40)
    assert_snapshots_equal(branch, t.snapshot(), "the new branch")
    assert_snapshots_equal(h.seek(35), _fresh_to("hill_climb", "ai_escargot", 3, {20: {"w2": -4.0}}, 35), "seek(35)")


def test_a_change_made_on_the_solver_after_a_seek_branches_too():
    s = create("hill_climb")
    s.reset(library.puzzle("ai_escargot"), seed=3)
    h = History(s, interval=8)
    h.step(40)
    h.seek(10)
    s.set_params(w1=0.5)
    assert h.furthest == 10
    h.step(5)
    assert_snapshots_equal(s.snapshot(), _fresh_to("hill_climb", "ai_escargot", 3, {10: {"w1": 0.5}}, 15), "branch")


def test_changes_recorded_at_the_end_are_dropped_by_a_change_after_seeking_there():
    s = create("hill_climb")
    s.reset(library.puzzle("ai_escargot"), seed=3)
    h = History(s, interval=8)
    h.step(20)
    h.set_params(w1=2.0)
    h.seek(20)  # before the change made at 20
    assert s.get_params()["w1"] == 1.0
    h.set_params(w2=-2.0)  # a new branch at 20: the change of w1 is not part of it
    h.step(5)
    assert s.get_params() == {**create("hill_climb").get_params(), "w2": -2.0}
    assert_snapshots_equal(s.snapshot(), _fresh_to("hill_climb", "ai_escargot", 3, {20: {"w2": -2.0}}, 25), "branch")


def _fresh_to(name, puzzle, seed, changes, end):
    t = create(name)
    t.reset(library.puzzle(puzzle), seed=seed)
    for it in sorted(changes):
        t.step(it - t.iteration)
        t.set_params(**changes[it])
    t.step(end - t.iteration)
    return t.snapshot()


def test_a_run_that_finished_early():
    s = create("reseda")
    s.reset(library.puzzle("reseda_fig4_1_hard"), seed=7)
    h = History(s, interval=4)
    assert h.step(40) == 13 and s.status == Status.SOLVED
    solved = s.snapshot()
    assert h.furthest == 13
    with pytest.raises(ParameterError, match=r"between 0 and 13"):
        h.seek(14)
    h.seek(5)
    assert not s.done
    assert h.step(40) == 8
    assert_snapshots_equal(s.snapshot(), solved, "replayed to the solution")
    assert h.step(5) == 0


def test_a_budget_lowered_below_the_count_fails_again_on_replay():
    """A change that ends the run without an iteration (the budget below the count) is replayed too."""
    s = create("ga", population=30)
    s.reset(library.puzzle("nbcoin_106_difficult"), seed=3)
    h = History(s, interval=8)
    h.step(30)
    h.set_params(generations=10)
    assert h.step(10) == 0 and s.status == Status.FAILED  # the status changed at 30, no iteration done
    failed = s.snapshot()
    assert h.furthest == 30
    h.seek(30)  # the state the step to 30 left, before the change
    assert s.status == Status.RUNNING and s.get_params()["generations"] != 10
    h.seek(12)
    assert h.step(50) == 18
    assert_snapshots_equal(s.snapshot(), failed, "failed again")


def test_seek_outside_the_recorded_run_is_a_parameter_error():
    s = create("hill_climb")
    s.reset(library.puzzle("ai_escargot"), seed=3)
    h = History(s)
    h.step(10)
    for bad in (-1, 11):
        with pytest.raises(ParameterError, match=rf"^History.seek: iteration must be between 0 and 10 .*got {bad}$"):
            h.seek(bad)
    with pytest.raises(ParameterError, match="n must be a non-negative int, got -2"):
        h.step(-2)
    assert s.iteration == 10


def test_stepping_or_resetting_the_solver_behind_its_back_is_refused():
    s = create("hill_climb")
    with pytest.raises(RuntimeError, match="reset"):
        History(s)
    s.reset(library.puzzle("ai_escargot"), seed=3)
    h = History(s)
    h.step(10)
    s.step(3)
    with pytest.raises(RuntimeError, match="stepped, reset or restored outside its History"):
        h.step(1)
    s.reset(library.puzzle("ai_escargot"), seed=3)
    with pytest.raises(RuntimeError, match="outside its History"):
        h.seek(0)
    h.reset(library.puzzle("ai_escargot"), seed=4)  # starts over
    assert h.furthest == 0 and h.step(5) == 5 and h.keyframes == (0,)


def test_a_history_started_mid_run_seeks_from_there():
    s = create("hill_climb")
    s.reset(library.puzzle("ai_escargot"), seed=3)
    s.step(15)
    h = History(s, interval=4)
    assert h.origin == 15
    at = {}
    for _ in range(10):
        h.step(1)
        at[s.iteration] = s.snapshot()
    assert h.keyframes[0] == 15 and 19 in h.keyframes
    with pytest.raises(ParameterError, match="between 15 and 25"):
        h.seek(14)
    assert_snapshots_equal(h.seek(22), at[22], "seek(22)")


def test_assert_snapshots_equal_looks_into_layers_trace_and_events():
    s = create("reseda", restart="full", beta=0.3)
    s.reset(library.puzzle("reseda_fig4_1_hard"), seed=7)
    s.step(5)
    a = s.snapshot()
    assert_snapshots_equal(a, a)
    key = s.state_dict()
    s.step(1)
    with pytest.raises(AssertionError, match=r"^x: snapshot.iteration: 5 against 6$"):
        assert_snapshots_equal(a, s.snapshot(), "x")
    s.load_state(key)
    s.set_params(alpha=0.8)
    b = s.snapshot()
    with pytest.raises(AssertionError, match=r"^snapshot.params.alpha: 0.7 against 0.8$"):
        assert_snapshots_equal(a, b)
    import dataclasses
    from types import MappingProxyType

    prob = a.layers["prob"].copy()
    prob[0, 0] += 1e-12
    with pytest.raises(AssertionError, match=r"^snapshot.layers.prob: values differ$"):
        assert_snapshots_equal(a, dataclasses.replace(a, layers=MappingProxyType({**a.layers, "prob": prob})))
    cost = a.trace["cost"].copy()
    cost[-1] = np.nan
    nan = dataclasses.replace(a, trace=MappingProxyType({**a.trace, "cost": cost}))
    assert_snapshots_equal(nan, dataclasses.replace(nan))  # NaN equals NaN
    with pytest.raises(AssertionError, match=r"^snapshot.trace.cost: values differ$"):
        assert_snapshots_equal(a, nan)
    with pytest.raises(AssertionError, match=r"^snapshot.events\[0\].iteration: 3 against 5$"):
        assert_snapshots_equal(a, dataclasses.replace(a, events=(Event(5, "info", "x"),)))
    with pytest.raises(AssertionError, match=r"^snapshot.events: \d+ items against \d+$"):  # the first in common agree
        assert_snapshots_equal(a, dataclasses.replace(a, events=a.events[:1]))


def test_keyframes_share_the_immutable_events():
    """state_dict shares the frozen Event objects (copying thousands of them made keyframes slow): a
    keyframe holds the same events, and loading it gives a log that later changes do not reach back into."""
    s = create("hill_climb")
    s.reset(library.puzzle("ai_escargot"), seed=5)
    s.step(300)
    assert s.events
    key = s.state_dict()
    assert all(a is b for a, b in zip(key["events"], s.events)) and key["events"] is not s.events
    t = create("hill_climb")
    t.load_state(key)
    t.set_params(w1=2.0)
    assert len(key["events"]) == len(s.events) == len(t.events) - 1


# ------------------------------------------------------------ phase steps through the history
def _phased(name, params, puzzle=None, seed=3):
    s = create(name, **params)
    puzzle = puzzle or ("reseda_fig4_1_hard" if name == "reseda" else "mk_hard_a")
    s.reset(library.puzzle(puzzle), seed)
    return s


def _by_iterations(name, params, n, changes=None, puzzle=None, seed=3):
    """Snapshots of the same run stepped by whole iterations (``changes``: {iteration: params} made there)."""
    s = _phased(name, params, puzzle, seed)
    out = {0: s.snapshot()}
    for i in range(1, n + 1):
        if changes and i - 1 in changes:
            s.set_params(**changes[i - 1])
        s.step(1)
        out[i] = s.snapshot()
    return out


def _phase_iteration(h):
    """Phase steps through the history until an iteration ends; the steps."""
    steps = []
    while True:
        st = h.step_phase()
        assert st is not None
        steps.append(st)
        if st.ended:
            return steps


PHASED = [("reseda", {"beta": 0.35, "run_budget": 8}), ("cuckoo", {})]  # RESEDA restarts within 20


def _change(name, params):
    """A live change that leaves the run going for 20 iterations (RESEDA: alpha only, keeping its restarts)."""
    return {"alpha": 0.8} if name == "reseda" else _live_changes(_phased(name, params))


@pytest.mark.parametrize(("name", "params"), PHASED)
def test_phase_steps_through_a_history_then_seeks_give_the_run_stepped_by_iterations(name, params):
    ref = _by_iterations(name, params, 20, changes={6: _change(name, params)})
    assert ref[20].iteration == 20 and any(e.kind == "restart" for e in ref[20].events) == (name == "reseda")
    s = _phased(name, params)
    h = History(s, interval=4)
    for i in range(1, 21):
        if i - 1 == 6:
            h.set_params(**_change(name, params))
        steps = _phase_iteration(h)
        assert [st.index for st in steps] == list(range(len(steps))) and steps[0].iteration == i
        assert h.iteration == i == h.furthest
        assert_snapshots_equal(s.snapshot(), ref[i], f"first pass, iteration {i}")
    assert h.keyframes == (0, 4, 8, 12, 16, 20)
    assert h.events == tuple(ref[20].events)
    for target in (5, 17, 2, 6, 7, 20, 0, 13):
        assert_snapshots_equal(h.seek(target), ref[target], f"seek {target}")


@pytest.mark.parametrize(("name", "params"), PHASED)
def test_step_phase_after_a_seek_replays_the_recorded_run(name, params):
    changes = {6: _change(name, params)}
    ref = _by_iterations(name, params, 12, changes=changes)
    s = _phased(name, params)
    h = History(s, interval=4)
    h.step(6)
    h.set_params(**changes[6])
    h.step(6)
    h.seek(3)
    for i in range(4, 13):  # across the change recorded at 6: made again before iteration 7's first phase
        _phase_iteration(h)
        assert_snapshots_equal(s.snapshot(), ref[i], f"replay, iteration {i}")
        assert h.furthest == 12  # the same run: no branch, the recorded future kept
    assert s.get_params() == ref[12].params
    assert [e for e in h.events if e.kind == "param"] == [e for e in ref[12].events if e.kind == "param"]


def test_seek_and_step_from_the_middle_of_an_iteration():
    params = {"beta": 0.35, "run_budget": 8}
    ref = _by_iterations("reseda", params, 15)
    s = _phased("reseda", params)
    h = History(s, interval=4)
    h.step(6)
    first = h.step_phase()
    h.step_phase()
    assert (first.iteration, s.phase, h.iteration, h.furthest) == (7, 2, 6, 6)
    with pytest.raises(ParameterError):
        h.set_params(alpha=0.8)  # changes apply between iterations
    assert_snapshots_equal(h.seek(6), ref[6])  # back to the start of the iteration under way
    assert s.phase == 0 and h.furthest == 6
    h.step_phase()
    assert h.step(1) == 1  # finishes iteration 7 (counted as one)
    assert_snapshots_equal(s.snapshot(), ref[7])
    h.step(5)
    h.seek(4)
    h.step_phase()
    assert_snapshots_equal(h.seek(10), ref[10])  # forward from mid-iteration on the recorded run
    h.step_phase()
    assert_snapshots_equal(h.seek(9), ref[9])  # back, from mid-iteration
    h.step_phase()
    h.step_phase()
    assert h.step(3) == 3
    assert_snapshots_equal(s.snapshot(), ref[12])
    assert h.furthest == 12
    h.step_phase()
    s.step_phase()  # behind the history's back
    with pytest.raises(RuntimeError, match="outside its History"):
        h.step(1)


def test_step_phase_refuses_a_solver_without_phases():
    s = create("exact")
    s.reset(library.puzzle("reseda_fig3_1_easy"), 0)
    h = History(s)
    with pytest.raises(RuntimeError, match="exact declares no phases: step it by whole iterations with History.step"):
        h.step_phase()


# ------------------------------------------------------------ a record is verified against its own run (issue 27)
def _ga(seed, n=130, interval=64):
    """A GA run on AI Escargot (it logs only its parameter changes): a live change at 30, n iterations, rewound to
    100 (a recorded future after the saved point), keyframes every ``interval``."""
    s = create("ga")
    s.reset(library.puzzle("ai_escargot"), seed=seed)
    h = History(s, interval=interval)
    h.step(30)
    h.set_params(**_live_changes(s))
    h.step(n - 30)
    h.seek(100)
    return h


def _reopened(h, record=None, state=None):
    """``History.from_record`` of ``h``'s record (or ``record``) around a solver restored to ``h``'s solver's state
    (or ``state``): what a session file gives back, without the file."""
    t = create(h.solver.name)
    t.load_state(state or h.solver.state_dict())
    return History.from_record(t, record or h.record())


def _other_seed_keyframe(patch_seed):
    def forge(a, b):
        r = copy.deepcopy(a.record())
        key = copy.deepcopy(b.record()["keyframes"][1])  # iteration 64 of seed 6's run
        if patch_seed:
            key["state"]["seed"] = 5
        r["keyframes"][1] = key
        return r, None

    return forge


def _moved_change(with_events):
    def forge(a, b):
        r = copy.deepcopy(a.record())
        c = r["changes"][0]
        c["iteration"] = 40
        if not with_events:
            return r, None
        # Its events moved too, in the record and in the saved state (a careful forger): only a replay shows it.
        r["events"] = [Event(40, e.kind, e.name, e.old, e.new) if e.iteration == 30 else e for e in r["events"]]
        state = a.solver.state_dict()
        state["events"] = list(r["events"][: len(state["events"])])
        return r, state

    return forge


def _furthest(value):
    def forge(a, b):
        return {**a.record(), "furthest": value}, None

    return forge


def _other_seed_origin(a, b):
    r = copy.deepcopy(a.record())
    r["keyframes"][0] = copy.deepcopy(b.record()["keyframes"][0])
    r["keyframes"][0]["state"]["seed"] = 5
    return r, None


def _other_event(a, b):
    """The change's event says another old value, in the record and in the saved state alike."""
    r = copy.deepcopy(a.record())
    i = r["changes"][0]["index"]
    e = r["events"][i]
    r["events"][i] = Event(e.iteration, e.kind, e.name, 0.123, e.new)
    state = a.solver.state_dict()
    state["events"] = list(r["events"][: len(state["events"])])
    return r, state


def _other_saved_state(a, b):
    """The saved state of seed 6's run (its seed field patched): the record of seed 5 does not lead there."""
    state = b.solver.state_dict()
    state["seed"] = 5
    return a.record(), state


#: name: (forge, where the record is refused, the words, the iteration named). "load": from_record (cheap);
#: "seek": the first seek to 64; "verify": History.verify(), the whole record replayed.
FORGED = {
    "other_seed_keyframe": (
        _other_seed_keyframe(False),
        "load",
        r"keyframe 1 \(iteration 64\) is of a run with seed 6, the saved state's is 5",
        64,
    ),
    "other_seed_keyframe_seed_patched": (
        _other_seed_keyframe(True),
        "seek",
        r"its keyframe at iteration 64 is not the replay's state there \(state\.rng\.",
        64,
    ),
    "furthest_2_31_plus_100": (
        _furthest(2**31 + 100),
        "load",
        r"claims its run reaches iteration 2147483748, but its latest keyframe is at 128 and they are 64 apart",
        2**31 + 100,
    ),
    "change_moved": (
        _moved_change(False),
        "load",
        r"change 0 sets \w+=\S+ at iteration 40, but its event \d+ is it 30: ",
        40,
    ),
    "change_and_events_moved": (
        _moved_change(True),
        "seek",
        r"its keyframe at iteration 64 is not the replay's state there \(state\.",
        64,
    ),
    "other_seed_origin": (
        _other_seed_origin,
        "seek",
        r"its keyframe at iteration 64 is not the replay's state there \(state\.",
        64,
    ),
    "event_log_differs": (
        _other_event,
        "seek",
        r"keyframe at iteration 64 is not the replay's state there \(state\.events\[\d+\]\.old: \S+ against 0\.123\)",
        64,
    ),
    "not_the_saved_state": (
        _other_saved_state,
        "verify",
        r"the replay arrives at iteration 100 in another state than the saved state \(state\.",
        100,
    ),
}


@pytest.mark.parametrize("case", list(FORGED))
def test_a_record_that_is_not_its_run_is_refused_in_one_line_naming_the_iteration(case):
    """Issue 27, item 5: a keyframe of another seed, a furthest of 2**31 + 100, a change moved to another
    iteration (and the rest): refused at load where that is cheap to see, else by the first replay that
    reaches them, in one line naming the iteration; never a raw error, never another run's grid."""
    forge, where, words, iteration = FORGED[case]
    a, b = _ga(5), _ga(6)
    a.seek(100)
    record, state = forge(a, b)
    if where == "load":
        with pytest.raises(ValueError, match="^the history") as e:
            _reopened(a, record, state)
        assert re.search(words, str(e.value)) and "\n" not in str(e.value), str(e.value)
        return
    h = _reopened(a, record, state)
    s = h.solver
    before, moment = s.state_dict(), s.snapshot()
    with pytest.raises(HistoryError) as e:
        h.seek(64) if where == "seek" else h.verify()
    text = str(e.value)
    assert text.startswith("the history is not the run of ga it claims: ") and "\n" not in text, text
    assert re.search(words, text) and e.value.iteration == iteration, text
    assert first_difference(s.state_dict(), before) is None  # the replay ran beside the solver: it did not move
    assert_snapshots_equal(s.snapshot(), moment, "the saved moment stays")
    assert h.refused == text
    with pytest.raises(HistoryError, match=r"\(this history is refused: start a new History\(solver\) to go on"):
        h.seek(30)
    h2 = History(s)  # the run goes on from where it is, recorded anew
    assert h2.step(3) == 3 and h2.origin == 100


@pytest.mark.parametrize("name", [n for n, c in registry().items() if c.stochastic])
def test_a_record_of_its_own_run_is_confirmed_by_replay(name):
    """No false alarm: the record of a solver's own run, rewound and stepped into the middle of an iteration where it
    declares phases, replays exactly everywhere (every keyframe, the saved state, the end) for every solver."""
    params, puzzle = _long_example(registry()[name])
    s = registry()[name](**params)
    s.reset(library.puzzle(puzzle), seed=7)
    h = History(s, interval=4)
    h.step(30)
    h.set_params(**_live_changes(s))
    h.step(10)
    end = h.furthest
    at = {it: h.seek(it) for it in range(end + 1)}
    h.seek(min(25, end))
    if s.phases:
        h.step_phase()
    g = _reopened(h)
    assert g.unverified == ((0, min(25, end)), (min(25, end), end))[: 1 + (end > 25)]
    assert first_difference(g.solver.state_dict(), s.state_dict()) is None
    cost = g.unconfirmed(end)
    assert cost > 0 and g.verify(n=1, iteration=end) is False and g.unconfirmed(end) < cost  # one slice at a time
    assert g.verify() is True and g.unverified == () and g.unconfirmed(end) == 0
    for it in (end, 3, 30, 12, 0):
        assert_snapshots_equal(g.seek(it), at[it], f"{name}: seek({it}) after the record was confirmed")


def test_a_seek_confirms_what_it_needs_and_a_replay_compares_what_it_reaches():
    """Verification is part of a seek (up to the keyframe it loads, once) and of stepping on: the cost is the
    stretch replayed, never the whole run again."""
    a = _ga(5, n=400, interval=16)
    at = {it: a.seek(it) for it in (0, 64, 100, 260, 400)}
    a.seek(100)
    h = _reopened(a)
    assert h.unverified == ((0, 100), (100, 400))
    # The replay to the keyframe a seek loads: from the origin before the saved point, from the saved point after
    # it; none for a seek forward from the solver's state past the keyframe it would load (96 < 100 < 110).
    assert (h.unconfirmed(64), h.unconfirmed(150), h.unconfirmed(260), h.unconfirmed(110)) == (64, 44, 156, 0)
    assert_snapshots_equal(h.seek(64), at[64], "seek(64)")
    assert h.unverified == ((64, 100), (100, 400))  # confirmed from the origin up to 64
    assert h.unconfirmed(40) == 0  # a keyframe below it: confirmed already
    h.seek(100)
    assert h.step(160) == 160  # the replay from the saved state compares the keyframes it reaches
    assert_snapshots_equal(h.solver.snapshot(), at[260], "stepped on to 260")
    assert h.unconfirmed(200) == 0 and h.unverified[1] == (100, 400)
    assert h.verify() and h.unverified == ()
    assert_snapshots_equal(h.seek(400), at[400], "seek(400)")


def test_a_run_that_ends_before_the_record_claims_is_refused_where_it_ends():
    s = create("reseda")
    s.reset(library.puzzle("reseda_fig4_1_hard"), seed=7)
    h = History(s, interval=4)
    assert h.step(40) == 13 and s.status == Status.SOLVED
    h.seek(5)
    g = _reopened(h, {**h.record(), "furthest": 15})  # 15 is within the keyframes' spacing: only a replay shows
    assert g.furthest == 15
    with pytest.raises(
        HistoryError, match=r"replay ends at iteration 13 \(solved\), the record goes on to iteration 15"
    ):
        g.seek(15)


def test_the_record_of_a_solver_in_the_middle_of_an_iteration():
    """Issue 27, item 7, headless: record() in the middle of an iteration (it never refused, as its docstring
    said; from_record did, "finish it with solver.step(1) first") rebuilds around the solver restored there: the
    same moment, the phases shown recomputed, Step phase continuing the iteration draw for draw."""
    ref = _phased("reseda", {"beta": 0.35, "run_budget": 8})
    ref.step(16)
    shown = [ref.step_phase() for _ in range(2)]
    s = _phased("reseda", {"beta": 0.35, "run_budget": 8})
    h = History(s, interval=8)
    h.step(52)
    h.seek(16)
    h.step_phase()
    h.step_phase()
    record = h.record()
    assert (record["iteration"], record["furthest"], s.phase) == (16, 52, 2)
    g = _reopened(h, record)
    t = g.solver
    assert first_difference(t.state_dict(), ref.state_dict()) is None
    steps = g.replay_phases()
    assert [(st.iteration, st.index, st.caption) for st in steps] == [(x.iteration, x.index, x.caption) for x in shown]
    assert all(first_difference(dict(x.changed), dict(y.changed)) is None for x, y in zip(steps, shown))
    for _ in range(3):  # the rest of iteration 17 and the first phase of 18
        st, want = g.step_phase(), ref.step_phase()
        assert (st.index, st.caption, st.ended) == (want.index, want.caption, want.ended)
        assert_snapshots_equal(t.snapshot(), ref.snapshot(), f"phase {st.index} of iteration {st.iteration}")
    assert g.step(10) == 10
    ref.step(10)
    assert_snapshots_equal(t.snapshot(), ref.snapshot(), "10 iterations on")
    assert g.verify() and g.furthest == 52
