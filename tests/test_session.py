"""Sessions (issue 19, item 4): a saved run continues exactly; a bad file is one line and nothing else."""

from __future__ import annotations

import io
import json
import pickle
import re
import zipfile
from types import MappingProxyType

import numpy as np
import pytest

from sudoku_lab.errors import DataFileError, ParameterError
from sudoku_lab.model import library
from sudoku_lab.model.puzzle import Puzzle
from sudoku_lab.solvers import Event, registry
from sudoku_lab.stepping import session as S
from sudoku_lab.stepping.history import History
from sudoku_lab.testing import _live_changes

#: A puzzle none of the stochastic solvers finishes within 130 iterations of seed 5.
HARD = "ai_escargot"
#: Where a solver solves HARD too soon for the 100 iterations compared one by one: a puzzle it does not
#: (the ant colony system solves AI Escargot in a few iterations; a 25x25 takes it hundreds).
LONG = {"acs": "lewis_25x25_45_01"}


def same(a, b, path="value"):
    """Where ``a`` and ``b`` differ, types included (a tuple is not a list, an int64 not an int), or None."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, np.ndarray):
        if a.dtype != b.dtype or a.shape != b.shape:
            return f"{path}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
        return None if np.array_equal(a, b, equal_nan=a.dtype.kind in "fc") else f"{path}: values differ"
    if isinstance(a, dict):
        if list(a) != list(b):
            return f"{path}: keys {list(a)} != {list(b)}"
        return next((d for k in a if (d := same(a[k], b[k], f"{path}.{k}"))), None)
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}"
        return next((d for i, (x, y) in enumerate(zip(a, b)) if (d := same(x, y, f"{path}[{i}]"))), None)
    if isinstance(a, Event):
        return same((a.iteration, a.kind, a.name, a.old, a.new), (b.iteration, b.kind, b.name, b.old, b.new), path)
    if isinstance(a, Puzzle):
        if a != b or a.name != b.name or dict(a.metadata) != dict(b.metadata):
            return f"{path}: puzzles differ"
        return same(a.solution, b.solution, f"{path}.solution")
    if isinstance(a, float) and a != a:
        return None if b != b else f"{path}: nan != {b!r}"
    return None if a == b else f"{path}: {a!r} != {b!r}"


def _run(name, path, *, before=30):
    """A run of solver ``name`` saved after ``before`` iterations, a live parameter changed on the way."""
    solver = registry()[name]()
    solver.reset(library.puzzle(LONG.get(name, HARD)), seed=5)
    solver.step(before // 2)
    if any(p.live for p in solver.params):
        solver.set_params(**_live_changes(solver))
    solver.step(before - before // 2)
    session = S.session_from_solver(solver, ui={"layout": "AAEC", "speed": 3})
    S.save_session(path, session)
    return solver, session


def _compare_snapshots(a, b):
    assert np.array_equal(a.grid, b.grid) and np.array_equal(a.best_grid, b.best_grid)
    assert (a.iteration, a.evaluations, a.status, a.cost, a.best_cost) == (
        b.iteration,
        b.evaluations,
        b.status,
        b.cost,
        b.best_cost,
    )
    assert dict(a.params) == dict(b.params)
    assert a.events == b.events
    assert list(a.trace) == list(b.trace) and all(np.array_equal(a.trace[k], b.trace[k]) for k in a.trace)


@pytest.mark.parametrize("name", list(registry()))
def test_a_reopened_session_continues_the_run_exactly(name, tmp_path):
    path = tmp_path / f"{name}{S.SUFFIX}"
    original, saved = _run(name, path)
    loaded = S.load_session(path)
    hard = LONG.get(name, HARD)
    assert loaded.solver == name and loaded.seed == 5 and loaded.puzzle == library.puzzle(hard)
    assert loaded.puzzle.name == hard and dict(loaded.ui) == {"layout": "AAEC", "speed": 3}
    assert dict(loaded.params) == original.get_params() and loaded.events == tuple(original.events)
    assert loaded.iteration == original.iteration
    if any(p.live for p in registry()[name].params):
        assert any(e.kind == "param" for e in loaded.events)  # the change log travels with it
    restored = S.restore_solver(loaded)
    _compare_snapshots(original.snapshot(), restored.snapshot())
    for _ in range(100):  # the next 100 iterations, one by one
        assert original.step(1) == restored.step(1)
        _compare_snapshots(original.snapshot(), restored.snapshot())
    assert same(original.state_dict(), restored.state_dict(), "state") is None
    if registry()[name].stochastic:
        assert original.iteration == saved.iteration + 100  # the comparison covered 100 real iterations


@pytest.mark.parametrize("name", list(registry()))
def test_the_encoder_round_trips_every_keyframe_exactly(name):
    solver = registry()[name]()
    solver.reset(library.puzzle(HARD), seed=2)
    solver.step(40)
    state = solver.state_dict()
    value, arrays = S.encode(state)
    text = json.dumps(value, allow_nan=False)  # plain JSON: no NaN, no object json cannot write
    back = S.decode(json.loads(text), arrays)
    assert same(state, back, "state") is None
    assert isinstance(back["rng"]["state"]["state"], int) and back["rng"]["state"]["state"] > 2**64


def test_the_encoder_keeps_every_kind_it_knows_apart():
    pz = library.puzzle("reseda_fig3_1_easy")
    value = {
        "tuple": (1, (2, [3])),
        "list": [1, 2],
        "big": 2**127 + 3,
        "negative big": -(2**70),
        "floats": [0.1, 1.0, float("inf"), float("-inf"), float("nan"), -0.0],
        "numpy": [np.int64(7), np.float32(0.5), np.bool_(True), np.uint8(255), np.float64("nan")],
        "arrays": [np.arange(6, dtype=np.int16).reshape(2, 3), np.zeros(0, dtype=bool), np.array(3.5)],
        "bytes": b"\x00\xff",
        "keys": {1: "one", (2, 3): "pair", "$type": "not a tag"},
        "event": Event(4, "param", "alpha", 0.7, (1, 2)),
        "puzzle": pz.replace(metadata={"level": "easy"}, solution=pz.check()),
        "nothing": None,
        "text": "ünïcode",
    }
    encoded, arrays = S.encode(value)
    back = S.decode(json.loads(json.dumps(encoded, allow_nan=False)), arrays)
    assert same(value, back) is None
    for n in (2, 3, 4, 5):  # every box size's puzzle text reads back
        grid = library.puzzle("reseda_fig3_1_easy").grid if n == 3 else np.zeros(n**4, dtype=np.int8)
        grid = grid.copy()
        grid[0] = n * n
        p = Puzzle(grid, n=n, name=f"box {n}")
        enc, arr = S.encode(p)
        assert same(p, S.decode(enc, arr)) is None


@pytest.mark.parametrize(
    "value,where",
    [
        ({"state": {"algorithm": {"zone": {1, 2}}}}, "state.algorithm.zone holds a builtins.set"),
        ({"a": [1, object()]}, "a[1] holds a builtins.object"),
        ({"a": np.array([None, 1], dtype=object)}, "a is an array of dtype object"),
        ({"a": (1, np.datetime64("2020-01-01"))}, "a[1] is a numpy datetime64"),
    ],
)
def test_what_the_encoder_does_not_know_is_an_error_naming_where(value, where):
    with pytest.raises(TypeError, match="cannot save a session") as info:
        S.encode(value)
    assert where in str(info.value)


def test_an_unknown_value_is_refused_before_anything_is_written(tmp_path):
    solver = registry()["ga"]()
    solver.reset(library.puzzle(HARD), seed=1)
    path = tmp_path / "s.sudoku-session"
    path.write_bytes(b"the old file")
    with pytest.raises(TypeError, match=r"ui\.window holds a builtins\.set"):
        S.save_session(path, S.session_from_solver(solver, ui={"window": {1}}))
    assert path.read_bytes() == b"the old file"


def test_a_session_without_a_state_starts_the_run_from_its_seed(tmp_path):
    session = S.Session(library.puzzle(HARD), "hill_climb", {"w1": 0.5}, seed=9)
    S.save_session(tmp_path / "s.sudoku-session", session)
    loaded = S.load_session(tmp_path / "s.sudoku-session")
    assert loaded.state is None and loaded.iteration == 0 and loaded.params["w1"] == 0.5
    solver = S.restore_solver(loaded)
    fresh = registry()["hill_climb"](w1=0.5)
    fresh.reset(library.puzzle(HARD), seed=9)
    solver.step(20)
    fresh.step(20)
    assert same(solver.state_dict(), fresh.state_dict()) is None


def test_a_history_record_is_stored_beside_the_state(tmp_path):
    solver = registry()["reseda"]()
    solver.reset(library.puzzle(HARD), seed=1)
    history = History(solver, interval=10)
    history.step(30)
    session = S.session_from_solver(solver, history=history)
    assert [k["iteration"] for k in session.history["keyframes"]] == [0, 10, 20, 30]
    S.save_session(tmp_path / "h.sudoku-session", session)
    loaded = S.load_session(tmp_path / "h.sudoku-session")
    assert same(dict(session.history), dict(loaded.history), "history") is None


# ------------------------------------------------------------------ bad files
def _good(tmp_path):
    path = tmp_path / "good.sudoku-session"
    solver = registry()["hill_climb"]()
    solver.reset(library.puzzle(HARD), seed=1)
    solver.step(5)
    S.save_session(path, S.session_from_solver(solver))
    return path


def _rewrite(src, dst, *, json_doc=None, drop=(), arrays=None):
    """A copy of the session archive ``src`` as ``dst`` with its JSON replaced, members dropped or arrays replaced.

    With new JSON and the old arrays, the arrays the new JSON no longer references are left out (a session
    holds exactly the arrays its JSON references: any other is refused), so each case tests what it names.
    """
    with zipfile.ZipFile(src) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    if json_doc is not None:
        members[S.JSON_MEMBER] = json.dumps(json_doc).encode()
        if arrays is None and S.ARRAYS_MEMBER in members:
            kept = S._array_keys(json_doc)
            old = dict(np.load(io.BytesIO(members[S.ARRAYS_MEMBER])))
            members[S.ARRAYS_MEMBER] = _npz(**{k: v for k, v in old.items() if k in kept})
    if arrays is not None:
        members[S.ARRAYS_MEMBER] = arrays
    with zipfile.ZipFile(dst, "w") as zf:
        for name, data in members.items():
            if name not in drop:
                zf.writestr(name, data)
    return dst


def _doc(path):
    with zipfile.ZipFile(path) as zf:
        return json.loads(zf.read(S.JSON_MEMBER))


def _npz(**arrays):
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _bad_cases(tmp_path):
    good = _good(tmp_path)
    data = good.read_bytes()
    doc = _doc(good)
    with zipfile.ZipFile(good) as zf:
        npz = dict(np.load(io.BytesIO(zf.read(S.ARRAYS_MEMBER))))
    cases = {}

    def write(name, content):
        p = tmp_path / f"{name}.sudoku-session"
        p.write_bytes(content)
        return p

    cases["truncated"] = (write("truncated", data[: len(data) // 2]), "truncated")
    cases["truncated_to_one_byte"] = (write("tiny", data[:1]), "not a zip archive")
    cases["garbage"] = (write("garbage", bytes(range(256)) * 40), "not a zip archive")
    cases["empty"] = (write("empty", b""), "not a zip archive")
    cases["text"] = (write("text", b'{"format": "sudoku-lab-session"}'), "not a zip archive")
    newer = {**doc, "version": S.VERSION + 1, "saved_by": "sudoku-lab 9.0"}
    cases["newer_version"] = (_rewrite(good, tmp_path / "newer.s", json_doc=newer), "version 2")
    cases["bad_version"] = (_rewrite(good, tmp_path / "v0.s", json_doc={**doc, "version": "one"}), "version 'one'")
    cases["foreign_format"] = (
        _rewrite(good, tmp_path / "foreign.s", json_doc={**doc, "format": "other-app"}),
        "not a Sudoku Lab session",
    )
    cases["missing_npz"] = (_rewrite(good, tmp_path / "nonpz.s", drop=(S.ARRAYS_MEMBER,)), "no arrays.npz")
    cases["missing_json"] = (_rewrite(good, tmp_path / "nojson.s", drop=(S.JSON_MEMBER,)), "no session.json")
    foreign = tmp_path / "foreign.zip"
    with zipfile.ZipFile(foreign, "w") as zf:
        zf.writestr("word/document.xml", "<w/>")
    cases["foreign_zip"] = (foreign, "not a session file")
    with zipfile.ZipFile(good) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    bad_json = tmp_path / "badjson.s"
    with zipfile.ZipFile(bad_json, "w") as zf:
        zf.writestr(S.JSON_MEMBER, b'{"format": "sudoku-lab-session", "vers')
        zf.writestr(S.ARRAYS_MEMBER, members[S.ARRAYS_MEMBER])
    cases["bad_json"] = (bad_json, "not valid JSON")
    unregistered = {**doc, "session": {**doc["session"], "solver": "simulated_annealing"}}
    cases["unregistered_solver"] = (
        _rewrite(good, tmp_path / "sa.s", json_doc=unregistered),
        "solver 'simulated_annealing' is not registered here",
    )
    bad_param = {**doc, "session": {**doc["session"], "params": {"w1": "heavy"}}}
    cases["bad_parameter"] = (_rewrite(good, tmp_path / "param.s", json_doc=bad_param), "parameters for hill_climb")
    key = doc["session"]["state"]["algorithm"]["base"]["key"]
    wrong_dtype = {**npz, key: npz[key].astype(np.float64)}
    cases["array_dtype"] = (
        _rewrite(good, tmp_path / "dtype.s", arrays=_npz(**wrong_dtype)),
        f"array '{key}' is float64",
    )
    cases["array_missing"] = (
        _rewrite(good, tmp_path / "arr.s", arrays=_npz(**{k: v for k, v in npz.items() if k != key})),
        f"names array '{key}'",
    )
    buf = io.BytesIO()
    np.savez(buf, **{**npz, key: np.array([{"x": 1}], dtype=object)})  # needs pickle to read
    cases["object_array"] = (_rewrite(good, tmp_path / "obj.s", arrays=buf.getvalue()), "object array")
    cases["npz_garbage"] = (
        _rewrite(good, tmp_path / "npzg.s", arrays=b"not an npz"),
        "arrays.npz: not an .npz archive",
    )
    bad_tag = json.loads(json.dumps(doc))
    bad_tag["session"]["state"]["rng"]["state"]["state"] = {"$type": "int", "value": "12x"}
    cases["bad_tag"] = (_rewrite(good, tmp_path / "tag.s", json_doc=bad_tag), "state.rng.state.state")
    no_state_key = json.loads(json.dumps(doc))
    no_state_key["session"]["state"]["algorithm"]["q_f1"] = None  # an array replaced by null
    cases["state_that_does_not_load"] = (
        _rewrite(good, tmp_path / "nobase.s", json_doc=no_state_key),
        "its saved state does not fit hill_climb: state.algorithm.q_f1 is null, not an array of int64",
    )
    cases["directory"] = (tmp_path, "is a directory")
    cases["missing_file"] = (tmp_path / "nowhere.sudoku-session", "does not exist")
    return cases


CASES = [
    "truncated",
    "truncated_to_one_byte",
    "garbage",
    "empty",
    "text",
    "newer_version",
    "bad_version",
    "foreign_format",
    "missing_npz",
    "missing_json",
    "foreign_zip",
    "bad_json",
    "unregistered_solver",
    "bad_parameter",
    "array_dtype",
    "array_missing",
    "object_array",
    "npz_garbage",
    "bad_tag",
    "state_that_does_not_load",
    "directory",
    "missing_file",
]


@pytest.mark.parametrize("case", CASES)
def test_a_bad_file_is_one_line_naming_the_file_and_the_problem(case, tmp_path):
    path, words = _bad_cases(tmp_path)[case]
    with pytest.raises(DataFileError) as info:
        S.load_session(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message and words in message, message
    assert len(message) < 400, message


def test_every_bad_case_is_tested():
    import inspect

    names = set()
    for line in inspect.getsource(_bad_cases).splitlines():
        line = line.strip()
        if line.startswith('cases["'):
            names.add(line.split('"')[1])
    assert names == set(CASES)


def test_pickle_is_never_used(tmp_path, monkeypatch):
    """Saving and loading never call pickle, and no numpy loader that can unpickle reads a session: its arrays
    are read from their checked .npy headers (files.ZipMembers.read_array), so no allow_pickle can be wrong."""

    def refuse(*args, **kwargs):
        raise AssertionError("pickle or a numpy loader used")

    for name in ("dumps", "loads", "dump", "load"):
        monkeypatch.setattr(pickle, name, refuse)
    monkeypatch.setattr(np, "load", refuse)
    monkeypatch.setattr(np.lib.format, "read_array", refuse)
    path = _good(tmp_path)
    assert S.load_session(path).state["solver"] == "hill_climb"


def test_a_written_session_is_readable_as_documented(tmp_path):
    path = _good(tmp_path)
    with zipfile.ZipFile(path) as zf:
        assert sorted(zf.namelist()) == sorted([S.JSON_MEMBER, S.ARRAYS_MEMBER])
        doc = json.loads(zf.read(S.JSON_MEMBER))
    assert doc["format"] == S.FORMAT and doc["version"] == S.VERSION and doc["saved_by"].startswith("sudoku-lab ")
    body = doc["session"]
    assert body["solver"] == "hill_climb" and body["seed"] == 1
    assert body["puzzle"]["$type"] == "Puzzle" and body["puzzle"]["name"] == HARD
    assert body["state"]["rng"]["state"]["state"]["$type"] == "int"


def test_session_checks_its_fields():
    with pytest.raises(TypeError):
        S.Session("not a puzzle", "reseda", {})
    s = S.Session(library.puzzle(HARD), "reseda", MappingProxyType({}))
    assert s.iteration == 0 and s.ui == {} and s.history is None


# ------------------------------------------------------------------ histories
def _recorded_run(name, path, seed=5):
    """A run of ``name`` recorded by a History (keyframes every 8): a live change at 30, to 60, rewound to 45
    and saved there with its history. The original history, its snapshots at 20, 30 and 31, and the session."""
    solver = registry()[name]()
    solver.reset(library.puzzle(LONG.get(name, HARD)), seed=seed)
    h = History(solver, interval=8)
    h.step(30)
    at = {30: solver.snapshot()}
    changes = _live_changes(solver)
    changes.pop("restart", None)  # RESEDA without restarts fails at 44: the run goes on to 60 with the others
    h.set_params(**changes)
    assert h.step(30) == 30
    at[20], at[31] = h.seek(20), h.seek(31)
    h.seek(45)
    session = S.session_from_solver(solver, history=h)
    S.save_session(path, session)
    return h, at, session


@pytest.mark.parametrize("name", [n for n, c in registry().items() if c.stochastic])
def test_a_reopened_history_rewinds_and_replays_the_original_run(name, tmp_path):
    path = tmp_path / "h.sudoku-session"
    original, at, session = _recorded_run(name, path)
    loaded = S.load_session(path)
    h = S.restore_history(loaded)
    assert h.solver.iteration == 45 and (h.origin, h.furthest) == (0, 60)
    assert h.keyframes == original.keyframes and h.events == original.events
    # The next 100 iterations after reopening (15 of them replayed, the rest new) equal the original's.
    original.seek(45)
    assert h.step(100) == original.step(100) == 100
    _compare_snapshots(h.solver.snapshot(), original.solver.snapshot())
    assert same(h.solver.state_dict(), original.solver.state_dict()) is None
    # Any recorded iteration is the original's.
    _compare_snapshots(h.seek(20), at[20])
    _compare_snapshots(h.seek(30), at[30])
    # The parameter change made at 30 is made again at 30 by the replay.
    changed = [e for e in h.events if e.kind == "param"]
    assert changed and {e.iteration for e in changed} == {30}
    assert h.solver.get_params() == dict(at[30].params)
    h.step(1)
    _compare_snapshots(h.solver.snapshot(), at[31])
    assert h.solver.get_params() == dict(at[31].params) != dict(at[30].params)


def test_a_session_without_history_rewinds_only_to_its_iteration(tmp_path):
    path = tmp_path / "s.sudoku-session"
    solver, session = _run("hill_climb", path)
    h = S.restore_history(S.load_session(path))
    assert (h.origin, h.furthest, h.iteration) == (session.iteration, session.iteration, session.iteration)
    with pytest.raises(ParameterError, match=f"between {session.iteration} and {session.iteration}"):
        h.seek(session.iteration - 1)
    h.step(10)
    solver.step(10)
    _compare_snapshots(h.seek(session.iteration + 5), h.solver.snapshot())
    h.step(5)
    assert same(h.solver.state_dict(), solver.state_dict()) is None


def _history_cases(tmp_path):
    """Bad history parts: the session written with each, and the line that refuses it."""
    good = tmp_path / "good.sudoku-session"
    _, _, session = _recorded_run("hill_climb", good)
    hist = session.history
    cases = {}

    def write(name, history, message):
        path = tmp_path / f"{name}.sudoku-session"
        S.save_session(path, S.Session(**{**session.__dict__, "history": history}))
        cases[name] = (path, message)

    write("missing_key", {k: v for k, v in hist.items() if k != "furthest"}, "the history lacks its 'furthest' entry")
    write("wrong_type", {**hist, "interval": "8"}, "the history's interval is a str, not a int")
    doc = _doc(good)
    doc["session"]["history"] = [1, 2]
    cases["not_a_mapping"] = (
        _rewrite(good, tmp_path / "list.sudoku-session", json_doc=doc),
        "its history is not a mapping",
    )
    keys = [dict(k) for k in hist["keyframes"]]
    keys[-1] = {**keys[-1], "iteration": 64, "state": {**keys[-1]["state"], "iteration": 64}}
    write(
        "keyframe_beyond_furthest",
        {**hist, "keyframes": keys},
        "keyframe 7 is at iteration 64, beyond the recorded run's furthest 60",
    )
    write("events_wrong", {**hist, "events": [1, 2]}, "the history's events are not all events")
    write("no_keyframes", {**hist, "keyframes": []}, "the history has no keyframes")
    write("other_solver", {**hist, "solver": "reseda"}, "the history is of solver 'reseda', not 'hill_climb'")
    write(
        "not_where_saved",
        {**hist, "iteration": 50},
        "the solver (at iteration 45, 19 events) is not where the history was saved (iteration 50",
    )
    # Issue 27, item 5: what a record of its own run cannot be, seen at load (one line naming the iteration).
    write(
        "furthest_2_31_plus_100",
        {**hist, "furthest": 2**31 + 100},
        "the history claims its run reaches iteration 2147483748, but its latest keyframe is at 56 and they are 8 "
        "apart (the next would be at 64)",
    )
    changes = [dict(c) for c in hist["changes"]]
    changes[0]["iteration"] = 40
    write(
        "change_moved",
        {**hist, "changes": changes},
        "the history's change 0 sets w1=50.5 at iteration 40, but its event 11 is it 30: w1 1.0 -> 50.5",
    )
    other = _recorded_run("hill_climb", tmp_path / "other.sudoku-session", seed=6)[2].history
    keys = [dict(k) for k in hist["keyframes"]]
    keys[3] = {**other["keyframes"][3], "events": keys[3]["events"]}  # another seed's keyframe at iteration 24
    write(
        "other_seed_keyframe",
        {**hist, "keyframes": keys},
        "the history's keyframe 3 (iteration 24) is of a run with seed 6, the saved state's is 5",
    )
    keys = [dict(k) for k in hist["keyframes"]]
    keys[2] = {**keys[2], "state": {k: v for k, v in keys[2]["state"].items() if k != "algorithm"}}
    write(
        "state_key_missing", {**hist, "keyframes": keys}, "the history's keyframe 2's state lacks its 'algorithm' entry"
    )
    keys = [dict(k) for k in hist["keyframes"]]
    keys[3] = {**keys[3], "state": {**keys[3]["state"], "algorithm": {"nothing": 1}}}
    write(
        "state_does_not_load",
        {**hist, "keyframes": keys},
        "a keyframe of its history does not fit hill_climb: state.algorithm has no 'best_grid' entry",
    )
    # An array of a keyframe missing from arrays.npz.
    doc = _doc(good)
    key = doc["session"]["history"]["keyframes"][3]["state"]["trace"]["rows"]["key"]
    with zipfile.ZipFile(good) as zf:
        npz = dict(np.load(io.BytesIO(zf.read(S.ARRAYS_MEMBER))))
    del npz[key]
    path = _rewrite(good, tmp_path / "array_missing.sudoku-session", arrays=_npz(**npz))
    cases["array_missing"] = (
        path,
        f"history.keyframes[3].state.trace.rows names array {key!r}, which arrays.npz lacks",
    )
    return cases


HISTORY_CASES = [
    "furthest_2_31_plus_100",
    "change_moved",
    "other_seed_keyframe",
    "missing_key",
    "wrong_type",
    "not_a_mapping",
    "keyframe_beyond_furthest",
    "events_wrong",
    "no_keyframes",
    "other_solver",
    "not_where_saved",
    "state_key_missing",
    "state_does_not_load",
    "array_missing",
]


@pytest.mark.parametrize("case", HISTORY_CASES)
def test_a_corrupt_history_is_one_line_naming_what_is_wrong(case, tmp_path):
    path, message = _history_cases(tmp_path)[case]
    with pytest.raises(DataFileError) as e:
        S.load_session(path)
    text = str(e.value)
    assert "\n" not in text and text.startswith(f"session file {path}: ") and message in text, text
    # restore_history on a session value says the same.
    if case not in ("array_missing", "not_a_mapping"):  # those two are the file's, not the value's
        good = S.load_session(tmp_path / "good.sudoku-session")
        with zipfile.ZipFile(path) as zf:  # the bad history as a value, decoded without the session's checks
            doc = json.loads(zf.read(S.JSON_MEMBER))
            arrays = dict(np.load(io.BytesIO(zf.read(S.ARRAYS_MEMBER))))
        bad = S.Session(**{**good.__dict__, "history": S.decode(doc["session"]["history"], arrays)})
        with pytest.raises(DataFileError, match=re.escape(message)):
            S.restore_history(bad)


def test_every_bad_history_case_is_tested(tmp_path):
    assert sorted(_history_cases(tmp_path)) == sorted(HISTORY_CASES)


# ------------------------------------------------------------------ saved mid-phase, rewound, during a run (issue 27)
def _fresh(name, seed, upto, changes=(), phases=0):
    """The run of ``name`` on its puzzle with ``seed``, stepped alone: ``changes`` (events of a session's log) made
    at their iterations, to iteration ``upto``, then ``phases`` phase steps; the solver and those steps."""
    s = registry()[name]()
    s.reset(library.puzzle(LONG.get(name, HARD)), seed=seed)
    by_iteration = {}
    for e in changes:  # a change at i applies before i + 1's draws: the step state at ``upto`` has none made there
        if e.kind == "param" and (e.iteration < upto or (phases and e.iteration == upto)):
            by_iteration.setdefault(e.iteration, {})[e.name] = e.new
    for it in sorted(by_iteration):
        s.step(it - s.iteration)
        s.set_params(**by_iteration[it])
    s.step(upto - s.iteration)
    return s, [s.step_phase() for _ in range(phases)]


@pytest.mark.parametrize("with_history", [True, False], ids=["with_history", "without_history"])
@pytest.mark.parametrize("name", [n for n, c in registry().items() if c.stochastic])
def test_a_session_saved_mid_phase_reopens_at_that_point(name, with_history, tmp_path):
    """Issue 27, item 7: saved after two Step phase clicks on a rewound timeline (a recorded future after it),
    the session reopens at that very point and the next phases are the original run's, draw for draw; with its
    history the phases shown are recomputed, and it rewinds to the start; without it the moment is the origin."""
    path = tmp_path / "mid.sudoku-session"
    original, _, _ = _recorded_run(name, tmp_path / "run.sudoku-session")
    original.seek(45)
    shown = [original.step_phase(), original.step_phase()]
    solver = original.solver
    assert solver.phase > 0 and not shown[-1].ended
    S.save_session(path, S.session_from_solver(solver, history=original if with_history else None))
    loaded = S.load_session(path)
    h = S.restore_history(loaded)
    s = h.solver
    ref, ref_shown = _fresh(name, 5, 45, solver.events, phases=2)
    assert same(s.state_dict(), ref.state_dict(), "state") is None and same(s.state_dict(), solver.state_dict()) is None
    assert (s.iteration, s.phase) == (45, ref.phase)
    steps = h.replay_phases()
    if with_history:
        assert (h.origin, h.furthest) == (0, 60) and h.unverified == ((0, 45), (45, 60))
        assert [(x.index, x.caption) for x in steps] == [(x.index, x.caption) for x in ref_shown]
    else:
        assert (h.origin, h.furthest) == (45, 45) and steps == ()
    for _ in range(4):  # Step phase goes on in the same iteration, then the next
        a, b = h.step_phase(), ref.step_phase()
        assert (a.iteration, a.index, a.caption, a.ended) == (b.iteration, b.index, b.caption, b.ended)
        _compare_snapshots(s.snapshot(), ref.snapshot())
    assert h.step(20) == ref.step(20)
    assert same(s.state_dict(), ref.state_dict(), "state") is None
    if with_history:
        h.seek(20)
        _compare_snapshots(s.snapshot(), _fresh(name, 5, 20, solver.events)[0].snapshot())
        assert h.verify() and h.unverified == ()


def test_a_session_saved_during_a_run_reopens_where_the_run_was(tmp_path):
    """Saved between two chunks of a run (as the window saves while it runs), with its history: it reopens at the
    iteration of that moment, and the run goes on as the original would."""
    from sudoku_lab.stepping import loop

    path = tmp_path / "running.sudoku-session"
    solver = registry()["reseda"]()
    solver.reset(library.puzzle(HARD), seed=3)
    h = History(solver, interval=16)
    chunks = []

    def save_between_chunks(s):
        chunks.append(s.iteration)
        if len(chunks) == 4:
            S.save_session(path, S.session_from_solver(s, history=h))

    for _ in loop.iterate(
        solver, loop.MaxIterations(120), min_interval=0, before_chunk=save_between_chunks, chunk=7, step=h.step
    ):
        pass
    saved_at = chunks[3]
    assert 0 < saved_at < 120 and solver.iteration == 120
    h2 = S.restore_history(S.load_session(path))
    ref, _ = _fresh("reseda", 3, saved_at)
    assert h2.solver.iteration == saved_at and same(h2.solver.state_dict(), ref.state_dict(), "state") is None
    assert (h2.origin, h2.furthest) == (0, saved_at)
    assert h2.step(120 - saved_at) == 120 - saved_at
    assert same(h2.solver.state_dict(), solver.state_dict(), "state") is None
    assert h2.verify()


def test_a_session_whose_record_is_another_run_opens_and_its_first_seek_there_refuses_it(tmp_path):
    """Issue 27, item 5: a keyframe of another seed's run (its seed field made to match) loads, as only a replay
    can see it; the first seek to it is one HistoryError naming the iteration, not the other run's grid."""
    from sudoku_lab.errors import HistoryError

    _, at, session = _recorded_run("ga", tmp_path / "a.sudoku-session")
    other = _recorded_run("ga", tmp_path / "b.sudoku-session", seed=6)[2].history
    keys = list(session.history["keyframes"])
    key = dict(other["keyframes"][3])
    keys[3] = {**key, "state": {**key["state"], "seed": 5}}
    path = tmp_path / "forged.sudoku-session"
    S.save_session(path, S.Session(**{**session.__dict__, "history": {**session.history, "keyframes": keys}}))
    h = S.restore_history(S.load_session(path))
    with pytest.raises(
        HistoryError, match=r"^the history is not the run of ga it claims: its keyframe at iteration 24 "
    ):
        h.seek(25)
    assert h.solver.iteration == 45


@pytest.mark.parametrize("limit", [0, -5])
def test_restore_history_refuses_a_limit_that_is_not_positive(limit, tmp_path):
    """Issue 27, item 18: memory_limit=0 silently used 200 MB (``memory_limit or DEFAULT``); None is the default."""
    path = tmp_path / "s.sudoku-session"
    _run("hill_climb", path)
    session = S.load_session(path)
    words = r"^restore_history: memory_limit must be a positive number of bytes \(or None: the default\), got "
    with pytest.raises(ParameterError, match=rf"{words}{limit}$"):
        S.restore_history(session, memory_limit=limit)
    assert S.restore_history(session).memory_limit == S.DEFAULT_MEMORY_LIMIT
    assert S.restore_history(session, memory_limit=None).memory_limit == S.DEFAULT_MEMORY_LIMIT


# ------------------------------------------------------------------ hostile archives (issue 27, items A3, A4)
#: Small limits, so what a bomb costs can be measured against them: 4 MB a member, 8 MB the whole file, 2 MB
#: of JSON. The limits are read at each load (documented), so a test sets them as a user would.
SMALL_LIMITS = {"MAX_MEMBER_BYTES": 4_000_000, "MAX_INFLATED_BYTES": 8_000_000, "MAX_JSON_BYTES": 2_000_000}
#: What each bomb inflates to: 16 times the largest limit, from a file of about 70 kB (zeros deflate 1000:1).
BOMB = 64 << 20
_CHUNK = 1 << 20


def _stream(*parts):
    """A member written in chunks: ``bytes`` as they are, an ``(int, byte)`` pair as that many of that byte."""

    def write(fh):
        for part in parts:
            if isinstance(part, bytes):
                fh.write(part)
            else:
                count, byte = part
                block = byte * _CHUNK
                for _ in range(count // _CHUNK):
                    fh.write(block)
                fh.write(byte * (count % _CHUNK))

    return write


def _zip_bytes(members) -> bytes:
    """A deflated zip archive of ``members`` (name: bytes, or a :func:`_stream` writer, never held whole)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            if callable(data):
                with zf.open(name, "w") as fh:
                    data(fh)
            else:
                zf.writestr(name, data)
    return buf.getvalue()


def _npy(shape, descr="|i1", data=b"", fortran=False) -> bytes:
    """An .npy member: a header as numpy writes it (any shape, even one that lies about the data) and ``data``."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": fortran, "shape": shape})
    return buf.getvalue() + data


def _lie(data: bytes, name: str, size: int) -> bytes:
    """The zip archive ``data`` with member ``name`` declaring ``size`` bytes inflated (local header and directory)."""
    import struct

    out = bytearray(data)
    struct.pack_into("<I", out, zipfile.ZipFile(io.BytesIO(data)).getinfo(name).header_offset + 22, size)
    at = 0
    while (at := out.find(b"PK\x01\x02", at)) >= 0:
        if out[at + 46 : at + 46 + struct.unpack_from("<H", out, at + 28)[0]] == name.encode():
            struct.pack_into("<I", out, at + 24, size)
        at += 4
    return bytes(out)


def _bombs(tmp_path):
    """Each hostile archive, built around the good session's members, and the words of its one line."""
    good = _good(tmp_path)
    with zipfile.ZipFile(good) as zf:
        text, npz = zf.read(S.JSON_MEMBER), zf.read(S.ARRAYS_MEMBER)
    with zipfile.ZipFile(io.BytesIO(npz)) as zf:
        arrays = {n: zf.read(n) for n in zf.namelist()}
    algorithm = json.loads(text)["session"]["state"]["algorithm"]
    q_grid = algorithm["q_grid"]["key"] + ".npy"
    cases = {}

    def session(name, data=None, **members):
        path = tmp_path / f"{name}.sudoku-session"
        path.write_bytes(data or _zip_bytes({S.JSON_MEMBER: text, S.ARRAYS_MEMBER: npz, **members}))
        return path

    cases["unreferenced_array"] = (
        session(
            "unref", **{S.ARRAYS_MEMBER: _zip_bytes({**arrays, "junk.npy": _stream(_npy((BOMB,)), (BOMB, b"\0"))})}
        ),
        "arrays.npz: holds member 'junk.npy', which session.json does not reference; nothing in it was read",
    )
    cases["unreferenced_member"] = (
        session("extra", junk=_stream((BOMB, b"\0"))),
        "holds member 'junk', which a session file does not have (it holds session.json and arrays.npz only)",
    )
    cases["json_too_big"] = (
        session("bigjson", **{S.JSON_MEMBER: _stream(text[:-1], (BOMB, b" "), b"}")}),
        "member 'session.json' would inflate to 67 MB, more than the 4 MB read per member; nothing was inflated",
    )
    cases["json_over_its_limit"] = (  # within the member limit, past the JSON's own
        session("json3mb", **{S.JSON_MEMBER: _stream(text[:-1], (3_000_000, b" "), b"}")}),
        "session.json would inflate to 3 MB, more than the 2 MB read of it; nothing was inflated",
    )
    cases["array_too_big"] = (
        session("bigarray", **{S.ARRAYS_MEMBER: _zip_bytes({**arrays, q_grid: _stream(_npy((BOMB,)), (BOMB, b"\0"))})}),
        f"arrays.npz: member '{q_grid}' would inflate to 67 MB, more than the 4 MB read per member",
    )
    three = {
        algorithm[k]["key"] + ".npy": _stream(_npy((3_500_000,)), (3_500_000, b"\0"))
        for k in ("base", "grid", "best_grid")
    }
    cases["total_too_big"] = (
        session("total", **{S.ARRAYS_MEMBER: _zip_bytes({**arrays, **three})}),
        "arrays.npz: its members would inflate to 11 MB in all, more than the 8 MB read from one file",
    )
    bomb_json = _zip_bytes({S.JSON_MEMBER: _stream(text[:-1], (BOMB, b" "), b"}"), S.ARRAYS_MEMBER: npz})
    cases["lying_json_size"] = (
        session("lyingjson", _lie(bomb_json, S.JSON_MEMBER, len(text))),
        "member 'session.json' is corrupt or truncated (Bad CRC-32 for file 'session.json')",
    )
    lying_npz = _lie(
        _zip_bytes({**arrays, q_grid: _stream(_npy((8100,)), (BOMB, b"\0"))}), q_grid, len(_npy((8100,))) + 8100
    )
    cases["lying_array_size"] = (
        session("lyingnpy", **{S.ARRAYS_MEMBER: lying_npz}),
        f"arrays.npz: member '{q_grid}' is corrupt or truncated (Bad CRC-32 for file '{q_grid}')",
    )
    return cases


BOMBS = [
    "unreferenced_array",
    "unreferenced_member",
    "json_too_big",
    "json_over_its_limit",
    "array_too_big",
    "total_too_big",
    "lying_json_size",
    "lying_array_size",
]


@pytest.fixture(scope="module")
def bombs(tmp_path_factory):
    return _bombs(tmp_path_factory.mktemp("bombs"))


@pytest.mark.parametrize("case", BOMBS)
def test_a_zip_bomb_costs_what_the_limits_allow_not_what_it_inflates_to(case, bombs, monkeypatch):
    """Every member is bounded before it is inflated and while it is; what the session does not reference is
    refused unread. Peak memory (tracemalloc: numpy's buffers and zlib's output included) stays within twice
    the 8 MB allowed for the file, for bombs that inflate to 64 MB, and each is one line naming the member."""
    import tracemalloc

    for name, value in SMALL_LIMITS.items():
        monkeypatch.setattr(S, name, value)
    path, words = bombs[case]
    assert path.stat().st_size < 1_000_000  # a small file: the cost is all in what it inflates to
    tracemalloc.start()
    try:
        with pytest.raises(DataFileError) as info:
            S.load_session(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(info.value)
    assert message.startswith(f"session file {path}: ") and words in message and "\n" not in message, message
    assert peak < 2 * SMALL_LIMITS["MAX_INFLATED_BYTES"], f"{peak:,} bytes at the peak"


def test_every_bomb_is_tested(tmp_path):
    assert sorted(_bombs(tmp_path)) == sorted(BOMBS)


def test_the_small_limits_still_load_what_the_lab_writes(tmp_path, monkeypatch):
    for name, value in SMALL_LIMITS.items():
        monkeypatch.setattr(S, name, value)
    assert S.load_session(_good(tmp_path)).state["iteration"] == 5


def _with_member(tmp_path, name, raw, **replace):
    """The good session with ``arrays.npz`` member ``name`` replaced by ``raw`` (the members ``replace`` too)."""
    good = _good(tmp_path)
    with zipfile.ZipFile(good) as zf:
        text, npz = zf.read(S.JSON_MEMBER), zf.read(S.ARRAYS_MEMBER)
    doc = json.loads(text)
    key = doc["session"]["state"]["algorithm"][name]["key"]
    with zipfile.ZipFile(io.BytesIO(npz)) as zf:
        arrays = {n: zf.read(n) for n in zf.namelist()}
    path = tmp_path / f"{name}.sudoku-session"
    path.write_bytes(_zip_bytes({S.JSON_MEMBER: text, S.ARRAYS_MEMBER: _zip_bytes({**arrays, f"{key}.npy": raw})}))
    return path, f"{key}.npy"


_RAW_V1 = b"\x93NUMPY\x01\x00"
_UNCLOSED = b"{'descr': '|i1', 'fortran_order': False, 'shape': (81,\n"
_V2_HUGE_HEADER = b"\x93NUMPY\x02\x00" + (1 << 30).to_bytes(4, "little") + b"{" * 100
NPY_CASES = {
    # issue 27 A4: a header declaring 10^12 elements was allocated (MemoryError, exit 70)
    "huge_shape": (_npy((10**12,), data=bytes(100)), "its header says int8[1000000000000], 1,000,000,000,000 bytes"),
    # issue 27 A4: a member without the magic leaked AttributeError (exit 70)
    "no_magic": (b"hello, not an npy", "is not an .npy array (it lacks the .npy magic string)"),
    "huge_header": (_V2_HUGE_HEADER, "declares an .npy header of 1,073,741,824 bytes; at most 10,000 are read"),
    "negative_shape": (_npy((-81,)), "has the shape (-81,), with a negative length"),
    "short_data": (_npy((81,), data=bytes(10)), "its header says int8[81], 81 bytes, but it holds 10 bytes of data"),
    "datetime": (_npy((81,), "<M8[s]", bytes(648)), "holds an array of dtype datetime64[s], which is not read here"),
    "structured": (_npy((81,), [("a", "|i1")], bytes(81)), "holds an array of dtype [('a', 'i1')], which is not read"),
    "object": (_npy((81,), "|O", bytes(648)), "holds an object array, which is never loaded (it needs pickle)"),
    "version_3": (b"\x93NUMPY\x03\x00" + _npy((81,), data=bytes(81))[8:], "of format version (3, 0), not 1.0 or 2.0"),
    "bad_header": (b"\x93NUMPY\x01\x00\x12\x00{'descr': 'hello'}", "has a malformed .npy header"),
    # numpy's fallback for Python 2 headers tokenizes an unclosed one and raised TokenError (exit 70)
    "unclosed_header": (
        _RAW_V1 + len(_UNCLOSED).to_bytes(2, "little") + _UNCLOSED,
        "has a malformed .npy header ('(' was never closed",
    ),
}


@pytest.mark.parametrize("case", sorted(NPY_CASES))
def test_an_npy_member_is_checked_before_its_array_is_allocated(case, tmp_path):
    raw, words = NPY_CASES[case]
    path, member = _with_member(tmp_path, "grid", raw)
    with pytest.raises(DataFileError) as info:
        S.load_session(path)
    message = str(info.value)
    assert message.startswith(f"session file {path}: arrays.npz: member '{member}'") and words in message, message
    assert "\n" not in message


def test_a_fortran_order_array_loads_as_it_was_saved(tmp_path):
    """numpy.savez writes a Fortran-ordered array as such: the reader lays it out the same way."""
    solver = registry()["hill_climb"]()
    solver.reset(library.puzzle(HARD), seed=1)
    session = S.session_from_solver(solver, ui={"m": np.asfortranarray(np.arange(12, dtype=np.int32).reshape(3, 4))})
    S.save_session(tmp_path / "f.sudoku-session", session)
    with (
        zipfile.ZipFile(tmp_path / "f.sudoku-session") as zf,
        zipfile.ZipFile(io.BytesIO(zf.read(S.ARRAYS_MEMBER))) as npz,
    ):
        assert any(b"'fortran_order': True" in npz.read(n)[:128] for n in npz.namelist())
    m = S.load_session(tmp_path / "f.sudoku-session").ui["m"]
    assert m.shape == (3, 4) and (m == np.arange(12).reshape(3, 4)).all()


def _nested(depth):
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("in_thread", [False, True], ids=["main thread", "worker thread"])
def test_a_value_nested_200000_deep_is_the_documented_valueerror(in_thread):
    """issue 27 A4: decode raised RecursionError where ValueError is documented (in any thread)."""
    import threading

    caught = []

    def run():
        try:
            S.decode({"state": _nested(200_000)}, {})
        except BaseException as e:  # noqa: BLE001 - whatever it raises is the result
            caught.append(e)

    if in_thread:
        t = threading.Thread(target=run)
        t.start()
        t.join()
    else:
        run()
    [e] = caught
    assert type(e) is ValueError and str(e) == "state" + "[0]" * 99 + " is nested more than 100 deep", str(e)[:200]


def test_session_json_nested_200000_deep_is_one_line(tmp_path):
    good = _good(tmp_path)
    doc = _doc(good)
    path = tmp_path / "deep.sudoku-session"
    with zipfile.ZipFile(good) as zf:
        npz = zf.read(S.ARRAYS_MEMBER)
    text = json.dumps({**doc, "session": {**doc["session"], "ui": "DEEP"}}).replace(
        '"DEEP"', "[" * 200_000 + "]" * 200_000
    )
    path.write_bytes(_zip_bytes({S.JSON_MEMBER: text.encode(), S.ARRAYS_MEMBER: npz}))
    with pytest.raises(DataFileError, match=r"session.json is not valid JSON \(nested more than 100 deep: line 1"):
        S.load_session(path)


def _flagged(data: bytes, name: str, flag: int) -> bytes:
    """The zip archive ``data`` with general-purpose ``flag`` set on member ``name`` (local header and directory)."""
    import struct

    out = bytearray(data)
    offset = zipfile.ZipFile(io.BytesIO(data)).getinfo(name).header_offset
    struct.pack_into("<H", out, offset + 6, struct.unpack_from("<H", out, offset + 6)[0] | flag)
    at = 0
    while (at := out.find(b"PK\x01\x02", at)) >= 0:
        if out[at + 46 : at + 46 + struct.unpack_from("<H", out, at + 28)[0]] == name.encode():
            struct.pack_into("<H", out, at + 8, struct.unpack_from("<H", out, at + 8)[0] | flag)
        at += 4
    return bytes(out)


def _odd_archives(tmp_path):
    """Archives the lab never writes, each with the good session's members, and the words of the refusal."""
    import warnings

    good = _good(tmp_path)
    with zipfile.ZipFile(good) as zf:
        text, npz = zf.read(S.JSON_MEMBER), zf.read(S.ARRAYS_MEMBER)
    cases = {}

    def archive(name, entries):
        path = tmp_path / f"{name}.sudoku-session"
        with warnings.catch_warnings(), zipfile.ZipFile(path, "w") as zf:
            warnings.simplefilter("ignore")  # zipfile warns of a duplicate name, and writes it
            for info, data in entries:
                zf.writestr(info, data)
        return path

    def info(name, method=zipfile.ZIP_DEFLATED, flags=0):
        i = zipfile.ZipInfo(name)
        i.compress_type, i.flag_bits = method, flags
        return i

    cases["duplicate_name"] = (
        archive("dup", [(info(S.JSON_MEMBER), text), (info(S.ARRAYS_MEMBER), npz), (info(S.JSON_MEMBER), b"{}")]),
        "holds two members named 'session.json'; a session file holds each once",
    )
    enc = archive("enc", [(info(S.JSON_MEMBER), text), (info(S.ARRAYS_MEMBER), npz)])
    enc.write_bytes(_flagged(enc.read_bytes(), S.JSON_MEMBER, 0x1))  # zipfile clears the flag as it writes
    cases["encrypted"] = (  # zipfile raised RuntimeError ("password required"): exit 70
        enc,
        "member 'session.json' is encrypted, which a session file never is",
    )
    cases["bzip2"] = (
        archive("bz2", [(info(S.JSON_MEMBER, zipfile.ZIP_BZIP2), text), (info(S.ARRAYS_MEMBER), npz)]),
        "member 'session.json' is compressed with zip method 12; only stored and deflated members are read",
    )
    many = [(info(S.JSON_MEMBER), text), (info(S.ARRAYS_MEMBER), npz)] + [(info(f"m{i}"), b"") for i in range(2000)]
    cases["directory_of_thousands"] = (
        archive("many", many),
        "its zip directory lists 2,002 members in 101 kB; at most 18 are read from it",
    )
    return cases


ODD = ["duplicate_name", "encrypted", "bzip2", "directory_of_thousands"]


@pytest.mark.parametrize("case", ODD)
def test_an_archive_the_lab_never_writes_is_refused_before_anything_is_inflated(case, tmp_path, monkeypatch):
    path, words = _odd_archives(tmp_path)[case]
    inflated = []
    real_open = zipfile.ZipFile.open
    monkeypatch.setattr(zipfile.ZipFile, "open", lambda self, *a, **k: inflated.append(a) or real_open(self, *a, **k))
    with pytest.raises(DataFileError) as info:
        S.load_session(path)
    message = str(info.value)
    assert message == f"session file {path}: {words}", message
    assert inflated == []


def test_every_odd_archive_is_tested(tmp_path):
    assert sorted(_odd_archives(tmp_path)) == sorted(ODD)


@pytest.mark.parametrize("level", ["session file", "arrays.npz", "npy header"])
def test_a_damaged_archive_is_one_line_wherever_the_damage_is(level, tmp_path):
    """Seeded random damage (bytes changed, cut out, put in) at each level of the archive, rebuilt around it so
    the damage reaches that level's reader: every load ends in a session or in a DataFileError, nothing else."""
    import random

    rng = random.Random(27)
    good = _good(tmp_path)
    with zipfile.ZipFile(good) as zf:
        text, npz = zf.read(S.JSON_MEMBER), zf.read(S.ARRAYS_MEMBER)
    with zipfile.ZipFile(io.BytesIO(npz)) as zf:
        arrays = {n: zf.read(n) for n in zf.namelist()}

    def damaged(data: bytes) -> bytes:
        b = bytearray(data)
        for _ in range(rng.choice([1, 2, 4])):
            k, r = rng.randrange(len(b)), rng.random()
            if r < 0.6:
                b[k] = rng.randrange(256)
            elif r < 0.8:
                del b[k : k + rng.randrange(1, 16)]
            else:
                b[k:k] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8)))
        return bytes(b)

    path = tmp_path / "damaged.sudoku-session"
    for _ in range(150):
        if level == "session file":
            path.write_bytes(damaged(good.read_bytes()))
        elif level == "arrays.npz":
            path.write_bytes(_zip_bytes({S.JSON_MEMBER: text, S.ARRAYS_MEMBER: damaged(_zip_bytes(arrays))}))
        else:
            name = rng.choice(sorted(arrays))
            inner = _zip_bytes({**arrays, name: damaged(arrays[name][:128]) + arrays[name][128:]})
            path.write_bytes(_zip_bytes({S.JSON_MEMBER: text, S.ARRAYS_MEMBER: inner}))
        try:
            S.load_session(path)
        except DataFileError as e:
            assert "\n" not in str(e) and str(e).startswith(f"session file {path}"), str(e)
