"""Contracts every registered solver must keep (DESIGN.md, Tests).

New solvers are picked up from the registry automatically; each is exercised
on puzzles that make it restart, finish, or both.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from sudoku_lab import library
from sudoku_lab.errors import ParameterError
from sudoku_lab.scoring import missing_symbols
from sudoku_lab.solvers import Layer, Status, create, registry
from sudoku_lab.solvers.declare import check_declarations, check_layers

from payloads import mutable_parts  # tests/payloads.py

#: Every registered solver's declared examples (``Solver.examples``); a solver without any
#: (an installed plugin, say) is run on an easy puzzle with its defaults.
DEFAULT_CASE = ({}, "reseda_fig3_1_easy")
CASES = [(name, dict(params), puzzle) for name, cls in registry().items()
         for params, puzzle in (cls.examples or (DEFAULT_CASE,))]
IDS = [f"{n}-{p}-{i}" for i, (n, _, p) in enumerate(CASES)]


def test_every_builtin_solver_declares_examples():
    """Built-in solvers name the puzzles and settings that exercise them, in their own module."""
    missing = [name for name, cls in registry().items() if cls.__module__.startswith("sudoku_lab.") and not cls.examples]
    assert not missing, f"declare Solver.examples for {missing}"


def _state_equal(a, b, path="state"):
    """Deep equality of state_dicts (numpy arrays by value)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), path
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b), path
    elif isinstance(a, dict):
        assert set(a) == set(b), path
        for k in a:
            _state_equal(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _state_equal(x, y, f"{path}[{i}]")
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def _fresh(name, params, puzzle, seed=7):
    s = create(name, **params)
    s.reset(library.puzzle(puzzle), seed=seed)
    return s


@pytest.mark.parametrize("name,params,puzzle", CASES, ids=IDS)
def test_same_seed_same_run(name, params, puzzle):
    a, b = _fresh(name, params, puzzle), _fresh(name, params, puzzle)
    a.step(60)
    b.step(60)
    _state_equal(a.state_dict(), b.state_dict())
    c = _fresh(name, params, puzzle, seed=8)
    c.step(60)
    if type(a).stochastic:  # a deterministic solver may legitimately ignore the seed
        assert not np.array_equal(a.snapshot().trace["cost"], c.snapshot().trace["cost"]) or not np.array_equal(
            a.grid, c.grid)


@pytest.mark.parametrize("name,params,puzzle", CASES, ids=IDS)
@pytest.mark.parametrize("split", [(1, 59), (17, 43), (30, 30)])
def test_chunking_does_not_change_the_run(name, params, puzzle, split):
    a, b = _fresh(name, params, puzzle), _fresh(name, params, puzzle)
    a.step(split[0])
    a.step(split[1])
    b.step(sum(split))
    _state_equal(a.state_dict(), b.state_dict())


@pytest.mark.parametrize("name,params,puzzle", CASES, ids=IDS)
def test_load_state_replays_exactly(name, params, puzzle):
    a = _fresh(name, params, puzzle)
    a.step(25)
    key = pickle.loads(pickle.dumps(a.state_dict()))  # keyframes must survive pickling (sessions, workers)
    a.step(50)
    b = create(name, **params)
    b.load_state(key)
    b.step(50)
    _state_equal(a.state_dict(), b.state_dict())
    sa, sb = a.snapshot(), b.snapshot()
    assert np.array_equal(sa.grid, sb.grid) and sa.iteration == sb.iteration and sa.status == sb.status


def _other_values(p, current):
    """Valid values of parameter ``p`` other than ``current``, nearest first (from its declaration)."""
    if p.kind == "bool":
        return [not current]
    if p.kind == "choice":
        return [c for c in p.choices if c != current]
    lo = p.low if p.low is not None else current - 10
    hi = p.high if p.high is not None else current + 10
    if p.kind == "int":
        cands = [current + 1, current - 1, hi, lo]
    else:
        cands = [current + (hi - current) / 2, current - (current - lo) / 2]
    out = []
    for v in cands:
        try:
            out.append(p.validate(v))
        except ParameterError:
            continue
    return [v for v in dict.fromkeys(out) if v != current]


def _live_changes(solver):
    """A different valid value for every live parameter, chosen so the whole set passes the cross rules."""
    cls, current = type(solver), solver.get_params()
    changes = {}
    for p in cls.params:
        if not p.live:
            continue
        for v in _other_values(p, current[p.name]):
            try:
                cls.validate_params({**current, **changes, p.name: v})
            except ParameterError:
                continue
            changes[p.name] = v
            break
        else:
            raise AssertionError(f"{cls.name}: no valid other value found for live parameter {p.name}")
    return changes


@pytest.mark.parametrize("name,params,puzzle", CASES, ids=IDS)
def test_live_parameter_changes_mid_run_replay_from_a_keyframe(name, params, puzzle):
    """set_params between steps is logged at that iteration, and a keyframe taken after it replays exactly."""
    a = _fresh(name, params, puzzle)
    a.step(5)
    assert not a.done or not type(a).stochastic, "the change must come mid-run"
    it, before, n_events = a.iteration, a.get_params(), len(a.events)
    changes = _live_changes(a)
    assert len(changes) == sum(p.live for p in type(a).params)
    logged = a.set_params(**changes)
    # One Event per changed parameter, at the iteration it was made, with old and new values.
    assert sorted((e.kind, e.name, e.iteration, e.old, e.new) for e in logged) == sorted(
        ("param", k, it, before[k], v) for k, v in changes.items())
    assert a.events[n_events:] == logged and a.get_params() == {**before, **changes}
    key = pickle.loads(pickle.dumps(a.state_dict()))
    done_a = a.step(40)
    b = create(name, **params)
    b.load_state(key)
    assert b.get_params() == a.get_params() and list(b.events[n_events:]) == logged
    assert b.step(40) == done_a
    _state_equal(a.state_dict(), b.state_dict())
    sa, sb = a.snapshot(), b.snapshot()
    assert np.array_equal(sa.grid, sb.grid) and np.array_equal(sa.best_grid, sb.best_grid)
    assert (sa.iteration, sa.evaluations, sa.status, sa.cost, sa.best_cost) == (
        sb.iteration, sb.evaluations, sb.status, sb.cost, sb.best_cost)
    assert set(sa.trace) == set(sb.trace) and all(np.array_equal(sa.trace[k], sb.trace[k]) for k in sa.trace)
    assert sa.events == sb.events and list(sa.events[n_events:n_events + len(logged)]) == logged
    if type(a).stochastic:  # one exact "iteration" is the whole search
        assert done_a > 0, "the run must go on after the change for the replay to mean something"


@pytest.mark.parametrize("name,params,puzzle", CASES, ids=IDS)
def test_givens_never_change(name, params, puzzle):
    s = _fresh(name, params, puzzle)
    pz = library.puzzle(puzzle)
    mask = pz.givens
    for _ in range(8):
        s.step(15)
        snap = s.snapshot()
        for g in (snap.grid, snap.best_grid):
            assert np.array_equal(g[mask], pz.grid[mask])
        assert snap.fixed[mask].all()


@pytest.mark.parametrize("name,params,puzzle", CASES, ids=IDS)
def test_snapshots_are_read_only_and_frozen(name, params, puzzle):
    s = _fresh(name, params, puzzle)
    s.step(5)
    snap = s.snapshot()
    arrays = {"grid": snap.grid, "best_grid": snap.best_grid, "fixed": snap.fixed}
    arrays.update({f"layer {k}": v for k, v in snap.layers.items() if isinstance(v, np.ndarray)})
    arrays.update({f"trace {k}": v for k, v in snap.trace.items()})
    copies = {k: v.copy() for k, v in arrays.items()}
    for k, v in arrays.items():
        assert not v.flags.writeable, k
        with pytest.raises(ValueError):
            v[...] = 0
    with pytest.raises(TypeError):
        snap.layers["new"] = 1  # mapping proxies
    problems = list(mutable_parts(snap, "snapshot"))  # nothing inside (nested tables included) changes in place
    assert not problems, problems
    s.step(40)
    for k, v in arrays.items():
        assert np.array_equal(v, copies[k]), f"{k} changed after further steps"
    later = list(mutable_parts(s.snapshot(), "later snapshot"))  # runs have ended by now in most cases
    assert not later, later
    assert set(snap.layers) == {d.name for d in type(s).layers}, "snapshot layers and declarations differ"


@pytest.mark.parametrize("name,params,puzzle", CASES, ids=IDS)
def test_a_solved_grid_is_the_exact_solution(name, params, puzzle):
    pz = library.puzzle(puzzle)
    s = _fresh(name, params, puzzle, seed=3)
    for _ in range(200):
        if s.done:
            break
        s.step(50)
    snap = s.snapshot()
    if snap.solved:
        assert np.array_equal(snap.grid, pz.solution)
        assert snap.cost == 0 and snap.best_cost == 0
    else:
        assert snap.status in (Status.FAILED, Status.RUNNING)
        assert snap.cost > 0


def test_step_before_reset_is_an_error():
    for name in registry():
        with pytest.raises(RuntimeError):
            create(name).step(1)


@pytest.mark.parametrize("name", list(registry()))
def test_parameter_declarations_are_complete(name):
    cls = registry()[name]
    for p in cls.params:
        assert p.help and p.kind in ("float", "int", "bool", "choice")
        assert p.validate(p.default) == p.default
        if p.kind == "choice":
            assert p.default in p.choices
    assert check_declarations(cls) == []


@pytest.mark.parametrize("name,params,puzzle", CASES, ids=IDS)
def test_snapshots_match_the_declarations(name, params, puzzle):
    """Layers have their declared dtype, shape and keys; the trace has the declared columns; cost keeps its rule."""
    s = _fresh(name, params, puzzle)
    cls = type(s)
    for chunk in (0, 1, 30, 300):
        s.step(chunk)
        snap = s.snapshot()
        assert check_layers(cls.layers, snap) == [], f"after {snap.iteration} iterations"
        assert tuple(snap.trace) == cls.trace_names()
        assert snap.cost >= 0 and snap.best_cost >= 0 and snap.best_cost <= max(snap.cost, snap.best_cost)
        assert (snap.cost == 0) == (missing_symbols(snap.grid, snap.puzzle.n) == 0), "cost is 0 iff the grid is solved"
        if len(snap.trace["iteration"]):
            assert snap.trace["iteration"][-1] <= snap.iteration
            assert np.all(snap.trace["cost"] >= 0)


def test_check_layers_reports_wrong_declarations():
    """The contract check is not vacuous: wrong dtype, shape, missing keys and writeable arrays are all caught."""
    s = _fresh("reseda", {"restart": "full", "beta": 0.3}, "reseda_fig4_1_hard")
    s.step(3)
    snap = s.snapshot()
    wrong = (Layer("prob", "", "float32", ("C", "N")), Layer("entropy", "", "float64", ("N",)),
             Layer("kept", "", "int8", ("Q", "C")), Layer("restarts", "", "records", columns=(("nope", "x"),)),
             Layer("zone", "", "str"), Layer("ghost", "", "int"))
    problems = "\n".join(check_layers(wrong, snap))
    for text in ("'prob' has dtype float64, declared float32", "'entropy' has shape (81,)",
                 "'kept' has shape", "'zone' should be a str", "'ghost' is missing", "'rho' is in the snapshot but not"):
        assert text in problems
    s.step(400)  # with beta = 0.3 runs fail fast: records exist, and lack the key
    snap = s.snapshot()
    assert snap.layers["restarts"]
    assert "'restarts' record 0 lacks keys ['nope']" in "\n".join(check_layers(wrong, snap))
