"""The solver conformance kit: every solver, built-in or plugin, goes through the same contract.

Shipped in the wheel, so a plugin's own tests run exactly what the package's do
(scikit-learn's ``check_estimator`` / ``parametrize_with_checks`` are the model)::

    from sudoku_lab.testing import parametrize_with_checks
    from my_plugin import MySolver

    @parametrize_with_checks([MySolver])
    def test_my_solver(solver, check):
        check(solver)

or, outside pytest, ``check_solver(MySolver)``, which raises :class:`SolverCheckError`
(an ``AssertionError``) at the first broken contract, in one line naming the solver,
the check and the declared example concerned.

The checks (:data:`CHECKS`), each run on every declared example
(``Solver.examples``; a solver without any runs :data:`DEFAULT_EXAMPLE`) where it
takes one:

- declarations: parameters complete and valid, layers and columns consistent,
  examples valid, ``marked_events`` and ``example_budget`` well formed;
- ``step`` before ``reset`` is a RuntimeError;
- invalid parameter values generated from each :class:`~sudoku_lab.solvers.Param`
  (below the low end, above the high end, a choice not offered, a wrong type) each
  give a one-line :class:`~sudoku_lab.errors.ParameterError` naming the parameter;
- the same seed gives the same run (and, for a stochastic solver, another seed another);
- chunking never changes the run: ``step(a); step(b)`` equals ``step(a + b)``, and
  twenty ``step(1)`` equal ``step(20)``;
- a keyframe (``state_dict``, pickled) replays exactly, also after live parameter
  changes, which are logged as events;
- a :class:`~sudoku_lab.stepping.history.History` seeks exactly: 40 steps recorded one
  at a time (every live parameter changed on the solver at iteration 30), then
  ``seek(20)`` and 20 more steps, and seeks back and forth, each give the snapshot
  taken at that iteration on the way (:func:`assert_snapshots_equal`'s comparison);
- givens never move, in the grid or the best grid;
- snapshots are read-only and frozen (nothing in them changes later), and match the
  declarations (layers, trace columns); ``cost`` is 0 exactly when the grid is solved,
  and ``best_cost`` never exceeds the current cost or any traced cost;
- a solver declaring phases (``Solver.phases``) steps phase by phase exactly as by
  iterations: :data:`PHASE_ITERATIONS` iterations of ``step_phase()`` calls give, at every
  iteration boundary, the snapshot and the keyframe ``step(1)`` gives
  (:func:`assert_snapshots_equal`); each :class:`~sudoku_lab.solvers.PhaseStep` names its
  declared phase in order, has a one-line caption and a ``changed`` mapping of the documented
  keys, dtypes and shapes; a keyframe taken mid-iteration replays exactly, ``step(1)`` there
  finishes the iteration, and ``set_params`` there is refused. A solver declaring none must
  refuse ``step_phase()`` with a RuntimeError;
- every field of a keyframe (at an iteration boundary and mid-iteration), mutated by
  :func:`keyframe_mutations` (a wrong kind, a wrong shape, empty, out of range), is refused by
  ``load_state`` in one line (a :class:`~sudoku_lab.errors.SudokuLabError`) or loads into a state
  that steps, snapshots and steps a phase without error; a solver declaring no keyframe
  (``Solver.keyframe`` / ``Solver.extra``) fails, as does one whose keyframe a session cannot store;
- a stochastic solver solves at least one of its declared examples within
  ``example_budget`` iterations (seed 3), and every solved grid is the exact solver's
  solution.

The pytest plugin (entry point ``pytest11``, loaded by pytest wherever Sudoku Lab is
installed) adds the fixture ``solver_registry``: solvers registered inside a test
through it are gone afterwards, and a replaced one is restored.
"""

from __future__ import annotations

import contextlib
import dataclasses
import pickle
from types import MappingProxyType
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from ._checks import checked
from .errors import ParameterError
from .solvers.base import Param, Snapshot, Solver, Status

__all__ = [
    "CHECKS",
    "DEFAULT_EXAMPLE",
    "PHASE_ITERATIONS",
    "SolverCheck",
    "SolverCheckError",
    "assert_snapshots_equal",
    "check_solver",
    "examples_of",
    "first_difference",
    "invalid_values",
    "isolated_registry",
    "mutable_parts",
    "parametrize_with_checks",
    "solver_checks",
]

#: The example run for a solver that declares none (``Solver.examples`` empty): defaults, an easy puzzle.
DEFAULT_EXAMPLE: tuple[Mapping[str, Any], str] = ({}, "reseda_fig3_1_easy")

#: The seed of the solving check (the other checks use 7 and 8).
SOLVE_SEED = 3

#: Most phase steps one iteration may take in the phases check (a phase declared ``repeats=True`` runs many times).
MAX_PHASE_STEPS = 1_000_000
#: Iterations the phases check steps phase by phase (long enough for a RESEDA example to restart).
PHASE_ITERATIONS = 30


class SolverCheckError(AssertionError):
    """A solver broke a contract of the kit; the message (one line) says which, for which solver and example."""


class _Broken(Exception):
    """Raised inside a check; :class:`SolverCheck` adds the solver, check and example to the message."""


def _require(condition: object, message: str) -> None:
    if not condition:
        raise _Broken(message)


@checked
def examples_of(cls: type[Solver]) -> tuple[tuple[Mapping[str, Any], str], ...]:
    """The ``(params, puzzle name)`` pairs the kit runs for ``cls``: its declared examples, or
    :data:`DEFAULT_EXAMPLE`."""
    return tuple((dict(p), str(name)) for p, name in (cls.examples or (DEFAULT_EXAMPLE,)))


def _budget(cls) -> int:
    return int(getattr(cls, "example_budget", 10_000))


# ----------------------------------------------------------------- helpers
@checked
def first_difference(a: Any, b: Any, path: str = "state") -> str | None:
    """Where two state_dicts (or any nested dicts, sequences, dataclasses and arrays) first differ, or None if equal.

    Arrays compare by dtype, shape and value, NaN equal to NaN (as any float is to itself); a dataclass field by
    field; the answer reads ``state.algorithm.grid: values differ``
    (:func:`sudoku_lab.solvers.keyframes.difference`, which a History's verification uses too).
    """
    from .solvers.keyframes import difference

    return difference(a, b, path)


@checked
def assert_snapshots_equal(a: Snapshot, b: Snapshot, context: str = "") -> None:
    """Raise AssertionError, in one line naming the first difference, unless two snapshots are equal.

    Every field counts: the counters, status and costs, the grids and ``fixed`` by value, the parameters,
    every layer (nested records and dataclasses field by field), every trace column and the events.

    Parameters
    ----------
    a, b : Snapshot
        The snapshots to compare.
    context : str
        Put before the message (``"after seek(20)"``).

    Raises
    ------
    AssertionError
        Naming the first field that differs (``snapshot.layers.prob: values differ``).
    """
    d = first_difference(a, b, "snapshot")
    if d is not None:
        raise AssertionError(f"{context}: {d}" if context else d)


@checked
def mutable_parts(obj: Any, path: str = "payload") -> list[tuple[str, str]]:
    """``(path, problem)`` for every part of ``obj`` another thread could change in place.

    Walks frozen dataclasses (Snapshot, Event, a worker's Progress), read-only mappings and tuples;
    an array must be read-only and refuse a write; a dict, list, set or bytearray anywhere is a problem.
    """
    out: list[tuple[str, str]] = []
    _walk_mutable(obj, path, set(), out)
    return out


def _walk_mutable(obj, path: str, seen: set, out: list) -> None:
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        if obj.flags.writeable:
            out.append((path, "writeable array"))
            return
        try:
            obj[...] = 0
        except ValueError:
            pass
        else:
            out.append((path, "array accepted a write"))
    elif isinstance(obj, (dict, list, set, bytearray)):
        out.append((path, f"mutable {type(obj).__name__}"))
    elif isinstance(obj, MappingProxyType):
        for k, v in obj.items():
            _walk_mutable(v, f"{path}[{k!r}]", seen, out)
    elif isinstance(obj, tuple):
        for i, v in enumerate(obj):
            _walk_mutable(v, f"{path}[{i}]", seen, out)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            _walk_mutable(getattr(obj, f.name), f"{path}.{f.name}", seen, out)


@checked
def invalid_values(param: Param) -> list[tuple[str, Any]]:
    """Values a :class:`~sudoku_lab.solvers.Param` must refuse, each with what is wrong with it.

    Below the low end and above the high end (at the end itself when it is open), a choice not
    offered, and a value of the wrong type.
    """
    p = param
    out: list[tuple[str, Any]] = []
    if p.kind in ("int", "float"):
        if p.low is not None:
            out.append(("below the low end", p.low if p.low_open else p.low - 1))
        if p.high is not None:
            out.append(("above the high end", p.high if p.high_open else p.high + 1))
        out.append(("of the wrong type", "abc" if p.kind == "float" else 2.5))
    elif p.kind == "choice":
        offered = set(p.choices or ())
        out.append(
            (
                "a choice not offered",
                next(
                    f"no-such-{p.name}{'-' * i}"
                    for i in range(len(offered) + 1)
                    if f"no-such-{p.name}{'-' * i}" not in offered
                ),
            )
        )
        out.append(("of the wrong type", object()))
    else:
        out.append(("of the wrong type", "maybe"))
        out.append(("of the wrong type", object()))
    return out


def _fresh(cls, params, puzzle_name, seed=7):
    from .model import library

    s = cls(**params)
    s.reset(library.puzzle(puzzle_name), seed=seed)
    return s


# ------------------------------------------------------------------ checks
def _check_declarations(cls):
    from .solvers.declare import check_declarations

    _require(isinstance(cls, type) and issubclass(cls, Solver), "is not a Solver subclass")
    _require(cls.name, "has no registry name (Solver.name)")
    for p in cls.params:
        _require(p.help, f"parameter {p.name} has no help text")
        try:
            ok = p.validate(p.default) == p.default
        except ParameterError as e:
            ok, _ = False, e
        _require(ok, f"parameter {p.name}'s default {p.default!r} is not a valid value of it")
        if p.kind == "choice":
            _require(p.default in (p.choices or ()), f"parameter {p.name}'s default is not among its choices")
    problems = check_declarations(cls)
    _require(not problems, "declarations: " + "; ".join(problems))
    marked = getattr(cls, "marked_events", ())
    _require(
        isinstance(marked, tuple) and all(isinstance(k, str) and k and k != "param" for k in marked),
        f"marked_events must be a tuple of event kinds other than 'param', got {marked!r}",
    )
    budget = getattr(cls, "example_budget", 10_000)
    _require(
        isinstance(budget, int) and not isinstance(budget, bool) and budget > 0,
        f"example_budget must be a positive int, got {budget!r}",
    )
    from .model import library

    for i, (params, name) in enumerate(examples_of(cls)):
        try:
            cls.validate_params({**cls.defaults(), **params})
            library.puzzle(name)
        except Exception as e:  # noqa: BLE001
            raise _Broken(f"example {i} ({params} on {name}) is not valid: {e}") from e


def _check_step_before_reset(cls):
    s = cls()
    try:
        s.step(1)
    except RuntimeError:
        return
    raise _Broken("step(1) before reset() must raise RuntimeError")


def _check_invalid_parameters(cls):
    for p in cls.params:
        for what, value in invalid_values(p):
            # The lambdas run at once, within the iteration that made them (B023 does not apply).
            calls = (
                ("the constructor", lambda: cls(**{p.name: value})),  # noqa: B023
                ("set_params", lambda: cls().set_params(**{p.name: value})),  # noqa: B023
            )
            for how, call in calls:
                try:
                    call()
                except ParameterError as e:
                    msg = str(e)
                    _require(
                        "\n" not in msg and msg.strip(),
                        f"{how} refused {p.name}={value!r} ({what}) with a message that is not one line: {msg!r}",
                    )
                    _require(
                        p.name in msg,
                        f"{how} refused {p.name}={value!r} ({what}) without naming the parameter: {msg!r}",
                    )
                except Exception as e:  # noqa: BLE001
                    raise _Broken(
                        f"{how} given {p.name}={value!r} ({what}) raised {type(e).__name__} "
                        f"instead of ParameterError: {e}"
                    ) from e
                else:
                    raise _Broken(f"{how} accepted {p.name}={value!r} ({what})")


def _check_same_seed(cls, params, puzzle):
    a, b = _fresh(cls, params, puzzle), _fresh(cls, params, puzzle)
    a.step(60)
    b.step(60)
    d = first_difference(a.state_dict(), b.state_dict())
    _require(d is None, f"two runs with seed 7 differ after 60 iterations ({d})")
    if cls.stochastic:  # a deterministic solver may legitimately ignore the seed
        c = _fresh(cls, params, puzzle, seed=8)
        c.step(60)
        _require(
            not np.array_equal(a.snapshot().trace["cost"], c.snapshot().trace["cost"])
            or not np.array_equal(a.grid, c.grid),
            "seeds 7 and 8 give the same run: a stochastic solver must draw from self.rng "
            "(or declare stochastic = False)",
        )


def _check_chunking(cls, params, puzzle):
    for split in ((1,) * 20, (1, 59), (17, 43), (30, 30)):
        a, b = _fresh(cls, params, puzzle), _fresh(cls, params, puzzle)
        for k in split:
            a.step(k)
        b.step(sum(split))
        d = first_difference(a.state_dict(), b.state_dict())
        said = (
            f"{len(split)} x step(1)"
            if len(set(split)) == 1 and split[0] == 1
            else " + ".join(f"step({k})" for k in split)
        )
        _require(d is None, f"chunking changes the run: {said} differs from step({sum(split)}) ({d})")


def _check_load_state(cls, params, puzzle):
    a = _fresh(cls, params, puzzle)
    a.step(25)
    key = pickle.loads(pickle.dumps(a.state_dict()))  # keyframes must survive pickling (sessions, workers)
    a.step(50)
    b = cls(**params)
    b.load_state(key)
    b.step(50)
    d = first_difference(a.state_dict(), b.state_dict())
    _require(d is None, f"a keyframe taken at iteration 25 does not replay the next 50 iterations ({d})")
    sa, sb = a.snapshot(), b.snapshot()
    _require(
        np.array_equal(sa.grid, sb.grid) and sa.iteration == sb.iteration and sa.status == sb.status,
        "a replayed keyframe's snapshot differs from the original run's",
    )


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
            raise _Broken(f"no valid other value found for live parameter {p.name}")
    return changes


def _check_live_changes(cls, params, puzzle):
    a = _fresh(cls, params, puzzle)
    a.step(5)
    _require(not a.done or not cls.stochastic, "the example ends within 5 iterations: choose a harder one")
    it, before, n_events = a.iteration, a.get_params(), len(a.events)
    changes = _live_changes(a)
    logged = a.set_params(**changes)
    _require(
        sorted((e.kind, e.name, e.iteration, e.old, e.new) for e in logged)
        == sorted(("param", k, it, before[k], v) for k, v in changes.items()),
        f"set_params({changes}) at iteration {it} must log one 'param' Event per change with old and new values",
    )
    _require(
        a.events[n_events:] == logged and a.get_params() == {**before, **changes},
        "set_params must append its events and apply the changes",
    )
    key = pickle.loads(pickle.dumps(a.state_dict()))
    done_a = a.step(40)
    b = cls(**params)
    b.load_state(key)
    _require(
        b.get_params() == a.get_params() and list(b.events[n_events:]) == logged,
        "a keyframe taken after live changes does not restore the parameters and their events",
    )
    _require(b.step(40) == done_a, "a keyframe taken after live changes does not replay the same number of steps")
    d = first_difference(a.state_dict(), b.state_dict())
    _require(d is None, f"a keyframe taken after live changes does not replay exactly ({d})")
    sa, sb = a.snapshot(), b.snapshot()
    _require(
        np.array_equal(sa.grid, sb.grid)
        and np.array_equal(sa.best_grid, sb.best_grid)
        and (sa.iteration, sa.evaluations, sa.status, sa.cost, sa.best_cost)
        == (sb.iteration, sb.evaluations, sb.status, sb.cost, sb.best_cost)
        and set(sa.trace) == set(sb.trace)
        and all(np.array_equal(sa.trace[k], sb.trace[k]) for k in sa.trace)
        and sa.events == sb.events,
        "snapshots of a run and of its replay after live changes differ",
    )
    if cls.stochastic:  # one exact "iteration" is the whole search
        _require(done_a > 0, "the run ended at the live change: choose an example that runs on")


def _check_history(cls, params, puzzle):
    from .stepping.history import History

    s = _fresh(cls, params, puzzle)
    h = History(s, interval=8)  # a small spacing: the seeks below load keyframes and re-simulate between them
    first = {s.iteration: s.snapshot()}
    for _ in range(40):
        if h.step(1) == 0:
            break
        first[s.iteration] = s.snapshot()
        if s.iteration == 30:  # made on the solver itself: the history finds it in the event log
            s.set_params(**_live_changes(s))
    end = h.furthest
    _require(end == s.iteration, f"History.furthest is {end} after stepping to iteration {s.iteration}")

    def same(it, how):
        d = first_difference(s.snapshot(), first[it], "snapshot")
        _require(d is None, f"{how}, the snapshot at iteration {it} differs from the one taken there on the way ({d})")

    mid = min(20, end)
    h.seek(mid)
    same(mid, f"after History.seek({mid})")
    for it in range(mid + 1, end + 1):
        _require(h.step(1) == 1, f"stepping after History.seek({mid}) stopped at iteration {s.iteration}")
        same(it, f"stepping on after History.seek({mid}) (a parameter change replayed at 30)")
    for it in sorted({0, end, end // 3, (2 * end) // 3}, key=lambda i: (i * 7) % (end + 1)):
        h.seek(it)
        same(it, f"after History.seek({it})")


def _check_givens(cls, params, puzzle):
    from .model import library

    s = _fresh(cls, params, puzzle)
    pz = library.puzzle(puzzle)
    mask = pz.givens
    for _ in range(8):
        s.step(15)
        snap = s.snapshot()
        for what, g in (("grid", snap.grid), ("best grid", snap.best_grid)):
            moved = np.flatnonzero(g[mask] != pz.grid[mask])
            _require(
                not len(moved),
                f"a given moved in the {what} by iteration {snap.iteration} "
                f"(cell {int(np.flatnonzero(mask)[moved[0]]) if len(moved) else -1})",
            )
        _require(snap.fixed[mask].all(), f"Snapshot.fixed does not hold every given at iteration {snap.iteration}")


def _check_read_only(cls, params, puzzle):
    s = _fresh(cls, params, puzzle)
    s.step(5)
    snap = s.snapshot()
    arrays = {"grid": snap.grid, "best_grid": snap.best_grid, "fixed": snap.fixed}
    arrays.update({f"layer {k}": v for k, v in snap.layers.items() if isinstance(v, np.ndarray)})
    arrays.update({f"trace {k}": v for k, v in snap.trace.items()})
    copies = {k: v.copy() for k, v in arrays.items()}
    for k, v in arrays.items():
        _require(not v.flags.writeable, f"snapshot {k} is writeable: snapshots hold read-only copies (frozen_copy)")
        try:
            v[...] = 0
        except ValueError:
            pass
        else:
            raise _Broken(f"snapshot {k} accepted a write")
    try:
        snap.layers["new"] = 1
    except TypeError:
        pass
    else:
        raise _Broken("snapshot layers accepted a new key (they must be a read-only mapping)")
    problems = mutable_parts(snap, "snapshot")
    _require(not problems, f"snapshot has parts that can change in place: {problems[:3]}")
    s.step(40)
    for k, v in arrays.items():
        _require(np.array_equal(v, copies[k]), f"snapshot {k} changed after further steps (it must be a copy)")
    later = mutable_parts(s.snapshot(), "later snapshot")
    _require(not later, f"snapshot has parts that can change in place: {later[:3]}")
    _require(
        set(snap.layers) == {d.name for d in cls.layers},
        f"snapshot layers {sorted(snap.layers)} differ from the declared {sorted(d.name for d in cls.layers)}",
    )


def _check_declared_snapshots(cls, params, puzzle):
    from .model.scoring import missing_symbols
    from .solvers.declare import check_layers

    s = _fresh(cls, params, puzzle)
    for chunk in (0, 1, 30, 300):
        s.step(chunk)
        snap = s.snapshot()
        at = f"at iteration {snap.iteration}"
        problems = check_layers(cls.layers, snap)
        _require(not problems, f"layers {at}: " + "; ".join(problems))
        _require(
            tuple(snap.trace) == cls.trace_names(),
            f"trace columns {tuple(snap.trace)} differ from the declared {cls.trace_names()}",
        )
        _require(snap.cost >= 0 and snap.best_cost >= 0, f"a negative cost {at} ({snap.cost}, best {snap.best_cost})")
        _require(
            (snap.cost == 0) == (missing_symbols(snap.grid, snap.puzzle.n) == 0),
            f"cost {snap.cost} {at}, but the grid is {'' if missing_symbols(snap.grid, snap.puzzle.n) == 0 else 'not '}"
            "solved: cost is 0 exactly when the grid is",
        )
        _require(
            snap.best_cost <= snap.cost,
            f"best_cost {snap.best_cost} exceeds the current cost {snap.cost} {at}: best_cost is the lowest "
            "cost seen since reset, the current one included",
        )
        costs = np.asarray(snap.trace["cost"])
        if len(costs):
            _require(snap.trace["iteration"][-1] <= snap.iteration, f"the trace runs past the iteration count {at}")
            _require(np.all(costs >= 0), f"a negative traced cost {at}")
            _require(
                snap.best_cost <= costs.min(),
                f"best_cost {snap.best_cost} exceeds a traced cost {costs.min():g} {at}: best_cost is the "
                "lowest cost seen",
            )


def _check_phase_step(cls, a, st, i: int, start: int) -> None:
    """One PhaseStep of ``a`` (phase ``i`` of the iteration after ``start``), against the declarations."""
    from .solvers.declare import check_changes, check_layers

    names = [ph.name for ph in cls.phases]
    at = f"iteration {start + 1} phase {i}"
    _require(
        st.index == i and st.name == names[i],
        f"{at}: the phase step says it was phase {st.index} ({st.name!r}), expected {i} ({names[i]!r})",
    )
    _require(
        isinstance(st.caption, str) and st.caption.strip() and "\n" not in st.caption,
        f"{at}: the caption must be one line of words, got {st.caption!r}",
    )
    _require(
        st.iteration == start + 1 and a.iteration == (start + 1 if st.ended else start),
        f"{at}: PhaseStep.iteration is {st.iteration} and the solver at {a.iteration} (ended={st.ended})",
    )
    if st.ended:
        _require(a.phase == 0, f"{at}: Solver.phase is {a.phase} after it")
    else:
        _require(i + 1 < len(names), f"{at}: the last phase did not end the iteration")
        again = a.phase == i and cls.phases[i].repeats
        _require(
            again or i < a.phase < len(names),
            f"{at}: Solver.phase is {a.phase} after it (a later phase, or this one if it repeats)",
        )
    snap = a.snapshot()
    _require(snap.phase == a.phase, f"{at}: Snapshot.phase is {snap.phase}, Solver.phase {a.phase}")
    problems = check_changes(st.changed, snap)
    _require(not problems, f"{at}: " + "; ".join(problems))
    if not st.ended:
        problems = check_layers(cls.layers, snap)
        _require(not problems, f"{at}: the snapshot's layers mid-iteration: " + "; ".join(problems))


def _check_mid_iteration(cls, params, a, b) -> None:
    """``a`` is after phase 0 of the iteration ``b`` has just done by ``step(1)``."""
    key = pickle.loads(pickle.dumps(a.state_dict()))
    c = cls(**params)
    c.load_state(key)
    _require(c.phase == a.phase, f"a keyframe taken after phase 0 restores phase {c.phase}, not {a.phase}")
    _require(c.step(1) == 1, "step(1) in the middle of an iteration must finish it and return 1")
    d = first_difference(c.state_dict(), b.state_dict())
    _require(d is None, f"step(1) from a keyframe taken mid-iteration differs from step(1) by iterations ({d})")
    if any(p.live for p in cls.params):
        changes = _live_changes(a)
        try:
            a.set_params(**changes)
        except ParameterError:
            pass
        else:
            raise _Broken(f"set_params({changes}) in the middle of an iteration must raise ParameterError")


def _check_phases(cls, params, puzzle):
    if not cls.phases:
        try:
            _fresh(cls, params, puzzle).step_phase()
        except RuntimeError:
            return
        raise _Broken("step_phase() on a solver that declares no phases must raise RuntimeError")
    a, b = _fresh(cls, params, puzzle), _fresh(cls, params, puzzle)
    for n in range(PHASE_ITERATIONS):
        if b.done:
            break
        start = a.iteration
        b.step(1)
        i = 0  # the phase expected next: the one Solver.phase names (a phase declared repeats=True may come again)
        k = 0  # phase steps of this iteration
        while True:
            st = a.step_phase()
            if st is None:
                _require(k == 0, f"step_phase() returned None in the middle of iteration {start + 1}")
                _require(a.done, f"step_phase() returned None at iteration {start}, but the run is not over")
                break
            _check_phase_step(cls, a, st, i, start)
            if st.ended:
                break
            if k == 0 and n == PHASE_ITERATIONS // 3:
                _check_mid_iteration(cls, params, a, b)
            i = a.phase
            k += 1
            _require(k < MAX_PHASE_STEPS, f"iteration {start + 1} took more than {MAX_PHASE_STEPS} phase steps")
        try:
            assert_snapshots_equal(a.snapshot(), b.snapshot(), f"after iteration {b.iteration}, by phases vs step(1)")
        except AssertionError as e:
            raise _Broken(str(e)) from None
        d = first_difference(a.state_dict(), b.state_dict())
        _require(d is None, f"after iteration {b.iteration}, stepping by phases differs from step(1) ({d})")


def _check_solves(cls):
    from . import exact
    from .model import library

    budget = _budget(cls)
    solved, tried = [], []
    for i, (params, name) in enumerate(examples_of(cls)):
        pz = library.puzzle(name)
        s = _fresh(cls, params, name, seed=SOLVE_SEED)
        while not s.done and s.iteration < budget:
            if s.step(min(500, budget - s.iteration)) == 0:
                break
        snap = s.snapshot()
        where = f"example {i} ({params} on {name}, seed {SOLVE_SEED})"
        tried.append(name)
        if snap.solved:
            answer = exact.solve(pz)
            _require(
                answer is not None and np.array_equal(snap.grid, answer),
                f"{where} says solved, but its grid is not the exact solver's solution",
            )
            _require(
                snap.cost == 0 and snap.best_cost == 0,
                f"{where} is solved with cost {snap.cost}, best_cost {snap.best_cost}",
            )
            solved.append(i)
        else:
            _require(snap.status in (Status.FAILED, Status.RUNNING), f"{where} ended with status {snap.status!r}")
            _require(snap.cost > 0, f"{where} is not solved, but its cost is 0")
    if cls.stochastic:
        _require(
            solved,
            f"solved none of its {len(tried)} declared examples within {budget} iterations "
            f"(seed {SOLVE_SEED}): declare an example it solves (Solver.examples) or a larger "
            "example_budget",
        )


# ------------------------------------------------------- untrusted keyframes
#: Seconds one mutated keyframe may take to load and step before the kit ends the process with a traceback
#: (a hang driven by file contents: a loop bound read from the keyframe).
MUTATION_TIMEOUT = 120.0


def _numeric_mutations(a: np.ndarray) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    if a.dtype.kind in "iu":
        info = np.iinfo(a.dtype)
        for v in (int(info.max), int(info.min), 1_000_000, -1):
            if info.min <= v <= info.max:
                m = a.copy()
                m.flat[m.size // 2] = v
                out.append((f"an element set to {v}", m))
    elif a.dtype.kind == "f":
        for f in (np.nan, np.inf, -1e300):
            m = a.copy()
            m.flat[m.size // 2] = f
            out.append((f"an element set to {f}", m))
    elif a.dtype.kind == "b":
        m = a.copy()
        m.flat[m.size // 2] = not m.flat[m.size // 2]
        out.append(("an element flipped", m))
    return out


def keyframe_mutations(value: Any) -> list[tuple[str, Any]]:
    """The kit's mutations of one keyframe value: wrong kinds, wrong shapes, out of range, empty.

    Each is ``(how, mutated value)``; the kit loads a keyframe holding it in place of ``value``.
    """
    out: list[tuple[str, Any]] = [("null", None), ("a text", "zzz"), ("a list", [1, 2]), ("a mapping", {})]
    if isinstance(value, np.ndarray):
        out.append(
            (
                "a float array" if value.dtype.kind != "f" else "an int array",
                value.astype(np.int64 if value.dtype.kind == "f" else np.float64),
            )
        )
        out.append(("empty", value[:0] if value.ndim else value.reshape(1)[:0]))
        out.append(("shape (2, 2)", np.zeros((2, 2), dtype=value.dtype)))
        if value.ndim and value.shape[0]:
            out.append(("one row more", np.concatenate([value, value[:1]])))
        if value.size:
            out += _numeric_mutations(value)
    elif isinstance(value, bool):
        out.append(("an integer", 2))
    elif isinstance(value, (int, np.integer)):
        out += [("-1", -1), ("2**31 + 100", 2**31 + 100), ("2**63 - 1", 2**63 - 1), ("a float", 1.5), ("true", True)]
    elif isinstance(value, float):
        out += [("NaN", float("nan")), ("-1e300", -1e300), ("an integer", 7)]
    elif isinstance(value, str):
        out += [("another text", "\x1b[31mzzz"), ("empty", "")]
    elif isinstance(value, (list, tuple)):
        out += [("empty", type(value)()), ("one item more", type(value)([*value, value[-1] if value else 0]))]
    return out


def _keyframe_paths(obj: Any, path: tuple = ()) -> Iterator[tuple]:
    """The paths into a keyframe the kit mutates: every mapping key, dataclass field and list item (two of a list)."""
    from .model.puzzle import Puzzle

    if path:
        yield path
    if isinstance(obj, Mapping):
        for k in obj:
            yield from _keyframe_paths(obj[k], (*path, k))
    elif isinstance(obj, (list, tuple)):
        for i in sorted({0, len(obj) - 1}) if obj else ():
            yield from _keyframe_paths(obj[i], (*path, i))
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, (type, Puzzle)):
        for f in dataclasses.fields(obj):
            yield from _keyframe_paths(getattr(obj, f.name), (*path, f.name))


def _get(obj: Any, path: tuple) -> Any:
    for k in path:
        obj = getattr(obj, k) if isinstance(k, str) and dataclasses.is_dataclass(obj) else obj[k]
    return obj


def _replaced(obj: Any, path: tuple, value: Any) -> Any:
    """A copy of ``obj`` with the value at ``path`` replaced (containers on the way copied, the rest shared)."""
    if not path:
        return value
    k, rest = path[0], path[1:]
    if isinstance(obj, Mapping):
        return {**obj, k: _replaced(obj[k], rest, value)}
    if isinstance(obj, (list, tuple)):
        items = list(obj)
        items[k] = _replaced(items[k], rest, value)
        return type(obj)(items)
    return dataclasses.replace(obj, **{k: _replaced(getattr(obj, k), rest, value)})


def _path_text(path: tuple) -> str:
    return "state" + "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path)


def _mutated_loads(cls, params, key: Mapping) -> int:
    """Load every mutation of ``key`` into a new solver; each is refused in one line, or steps without error."""
    import faulthandler

    from .errors import SudokuLabError

    tried = 0
    for path in list(_keyframe_paths(key)):
        if path[0] in ("solver",):
            continue
        for how, value in keyframe_mutations(_get(key, path)):
            tried += 1
            where = f"{_path_text(path)} as {how}"
            b = cls(**params)
            faulthandler.dump_traceback_later(MUTATION_TIMEOUT, exit=True)
            try:
                try:
                    b.load_state(_replaced(key, path, value))
                except SudokuLabError as e:
                    _require("\n" not in str(e), f"loading a keyframe with {where} says more than one line: {e!r}")
                    continue
                except Exception as e:  # noqa: BLE001 - the broken contract, named
                    raise _Broken(f"loading a keyframe with {where} raised {type(e).__name__}: {e}") from None
                try:  # accepted: it must be a state the solver could have produced
                    b.step(3)
                    b.snapshot()
                    if b.phases and not b.done:
                        b.step_phase()
                    b.state_dict()
                except Exception as e:  # noqa: BLE001
                    raise _Broken(
                        f"a keyframe with {where} was accepted, then stepping it raised {type(e).__name__}: {e}"
                    ) from None
            finally:
                faulthandler.cancel_dump_traceback_later()
    return tried


def _check_keyframe_mutations(cls, params, puzzle):
    from .stepping.session import decode, encode

    _require(
        cls.keyframe or cls.extra,
        "it declares no keyframe (Solver.keyframe and Solver.extra, see sudoku_lab.solvers.keyframes): a keyframe "
        "from a session file would reach its state unchecked",
    )
    a = _fresh(cls, params, puzzle)
    a.step(25)
    keys = [a.state_dict()]
    if a.phases and not a.done:
        a.step_phase()
        if a.phase:
            keys.append(a.state_dict())
    for key in keys:
        try:
            stored = decode(*encode(key))
        except (TypeError, ValueError) as e:
            raise _Broken(f"its keyframe holds a value a session cannot store ({e})") from None
        d = first_difference(stored, key)
        _require(d is None, f"its keyframe does not come back from a session as it was ({d})")
        b = cls(**params)
        b.load_state(stored)
        d = first_difference(b.state_dict(), key)
        _require(d is None, f"a keyframe loaded from a session is not the one saved ({d})")
        _mutated_loads(cls, params, stored)


#: Every check by name: ``(function, takes an example)``.
CHECKS: Mapping[str, tuple[Callable[..., None], bool]] = MappingProxyType(
    {
        "declarations": (_check_declarations, False),
        "step_before_reset": (_check_step_before_reset, False),
        "invalid_parameters": (_check_invalid_parameters, False),
        "same_seed_same_run": (_check_same_seed, True),
        "chunking_does_not_change_the_run": (_check_chunking, True),
        "keyframes_replay_exactly": (_check_load_state, True),
        "live_changes_replay_from_a_keyframe": (_check_live_changes, True),
        "givens_never_move": (_check_givens, True),
        "snapshots_are_read_only_and_frozen": (_check_read_only, True),
        "snapshots_match_the_declarations": (_check_declared_snapshots, True),
        "history_seeks_and_replays_exactly": (_check_history, True),
        "phase_steps_equal_iteration_steps": (_check_phases, True),
        "mutated_keyframes_are_refused": (_check_keyframe_mutations, True),
        "solves_its_examples": (_check_solves, False),
    }
)


@checked
@dataclasses.dataclass(frozen=True)
class SolverCheck:
    """One check of the kit, for one declared example where it takes one; call it with the solver class.

    Attributes
    ----------
    name : str
        A key of :data:`CHECKS`.
    example : int or None
        Index into the solver's examples (:func:`examples_of`), None for a check of the whole solver.
    """

    name: str
    example: int | None = None

    def __post_init__(self):
        if self.name not in CHECKS:
            raise ParameterError(f"unknown check {self.name!r}; choose from {', '.join(CHECKS)}", name="name")

    @property
    def id(self) -> str:
        return self.name if self.example is None else f"{self.name}[{self.example}]"

    def __call__(self, solver: type[Solver]) -> None:
        """Run the check on ``solver``; SolverCheckError (one line) if it breaks the contract."""
        func, per_example = CHECKS[self.name]
        label = getattr(solver, "name", "") or getattr(solver, "__name__", repr(solver))
        where = f"{label}: {self.name}"
        args: tuple = ()
        if per_example:
            cases = examples_of(solver)
            i = self.example or 0
            if i >= len(cases):
                raise SolverCheckError(f"{where}: the solver has no example {i}")
            args = cases[i]
            where += f", example {i} ({args[0]} on {args[1]})"
        try:
            func(solver, *args)
        except _Broken as e:
            raise SolverCheckError(f"{where}: {e}") from None
        except SolverCheckError:
            raise
        except Exception as e:  # noqa: BLE001 - a solver's crash is a broken contract, said in one line
            text = " ".join(str(e).split())
            raise SolverCheckError(f"{where}: raised {type(e).__name__}: {text}") from e


@checked
def solver_checks(solver: type[Solver]) -> list[SolverCheck]:
    """Every check of the kit that applies to ``solver``, the per-example ones once per example."""
    n = len(examples_of(solver))
    return [
        SolverCheck(name, i)
        for name, (_, per_example) in CHECKS.items()
        for i in (range(n) if per_example else (None,))
    ]


@checked
def check_solver(solver: type[Solver]) -> None:
    """Run every check on ``solver`` (a class, registered or not); raise SolverCheckError at the first failure.

    Raises
    ------
    SolverCheckError
        One line: the solver's name, the check, the example, and what broke.
    """
    for check in solver_checks(solver):
        check(solver)


@checked
def parametrize_with_checks(solvers: Sequence[type[Solver]]) -> Any:
    """A pytest ``parametrize`` mark over every check of every solver, as ``(solver, check)`` arguments.

    ::

        @parametrize_with_checks([MySolver])
        def test_my_solver(solver, check):
            check(solver)

    Test ids read ``my-solver-chunking_does_not_change_the_run[0]``.
    """
    import pytest

    params = [pytest.param(cls, check, id=f"{cls.name}-{check.id}") for cls in solvers for check in solver_checks(cls)]
    return pytest.mark.parametrize("solver, check", params)


class _Scope:
    """What the ``solver_registry`` fixture gives a test: register solvers that are gone after it."""

    def register(self, cls):
        from .solvers import register

        return register(cls)

    def unregister(self, name):
        from .solvers import unregister

        unregister(name)

    def __getitem__(self, name):
        from .solvers import registry

        return registry()[name]

    def __contains__(self, name):
        from .solvers import registry

        return name in registry()

    def __iter__(self):
        from .solvers import registry

        return iter(registry())


@checked
@contextlib.contextmanager
def isolated_registry() -> Iterator[Any]:
    """Within the block, solvers registered (or unregistered) change the registry; afterwards it is as before.

    The built-ins and installed plugins stay visible inside. The ``solver_registry`` fixture is this block
    around a test.
    """
    from .solvers.base import _REGISTRY

    with _REGISTRY.isolated():
        yield _Scope()
