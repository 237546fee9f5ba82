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
    """A copy of the session archive ``src`` as ``dst`` with its JSON replaced, members dropped or arrays replaced."""
    with zipfile.ZipFile(src) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    if json_doc is not None:
        members[S.JSON_MEMBER] = json.dumps(json_doc).encode()
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
    cases["npz_garbage"] = (_rewrite(good, tmp_path / "npzg.s", arrays=b"not an npz"), "arrays.npz is corrupt")
    bad_tag = json.loads(json.dumps(doc))
    bad_tag["session"]["state"]["rng"]["state"]["state"] = {"$type": "int", "value": "12x"}
    cases["bad_tag"] = (_rewrite(good, tmp_path / "tag.s", json_doc=bad_tag), "state.rng.state.state")
    no_state_key = json.loads(json.dumps(doc))
    del no_state_key["session"]["state"]["algorithm"]["base"]
    cases["state_that_does_not_load"] = (
        _rewrite(good, tmp_path / "nobase.s", json_doc=no_state_key),
        "saved state does not load into hill_climb",
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
    """Saving and loading never call pickle, and numpy is always asked not to."""

    def refuse(*args, **kwargs):
        raise AssertionError("pickle used")

    for name in ("dumps", "loads", "dump", "load"):
        monkeypatch.setattr(pickle, name, refuse)
    loads = []
    real_load = np.load

    def load(*args, **kwargs):
        loads.append(kwargs.get("allow_pickle"))
        return real_load(*args, **kwargs)

    monkeypatch.setattr(np, "load", load)
    path = _good(tmp_path)
    S.load_session(path)
    assert loads == [False]


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
def _recorded_run(name, path):
    """A run of ``name`` recorded by a History (keyframes every 8): a live change at 30, to 60, rewound to 45
    and saved there with its history. The original history, its snapshots at 20, 30 and 31, and the session."""
    solver = registry()[name]()
    solver.reset(library.puzzle(LONG.get(name, HARD)), seed=5)
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
    keys = [dict(k) for k in hist["keyframes"]]
    keys[2] = {**keys[2], "state": {k: v for k, v in keys[2]["state"].items() if k != "algorithm"}}
    write(
        "state_key_missing", {**hist, "keyframes": keys}, "the history's keyframe 2's state lacks its 'algorithm' entry"
    )
    keys = [dict(k) for k in hist["keyframes"]]
    keys[3] = {**keys[3], "state": {**keys[3]["state"], "algorithm": {"nothing": 1}}}
    write("state_does_not_load", {**hist, "keyframes": keys}, "its history does not load into hill_climb (KeyError")
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
