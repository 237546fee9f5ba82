"""A session file is untrusted input: a generated fuzz of every key path of ``session.json`` and of every array.

Each mutation (a wrong kind, an integer out of range, an empty container, an array element out of range, an
array of another shape that its JSON agrees with) is written into a copy of a real session file and opened
as a user would: ``load_session``, then ``restore_history`` and a few steps and a seek. Every one must end in
one line (a SudokuLabError: DataFileError, StateError, HistoryError) or in a session that runs; never a crash,
a raw exception or a hang (faulthandler ends a hung case with every thread's stack).
"""

from __future__ import annotations

import faulthandler
import io
import json
import zipfile

import numpy as np
import pytest

from sudoku_lab.errors import SudokuLabError
from sudoku_lab.model import library
from sudoku_lab.solvers import create
from sudoku_lab.stepping.history import History
from sudoku_lab.stepping.session import (
    ARRAYS_MEMBER,
    JSON_MEMBER,
    load_session,
    restore_history,
    save_session,
    session_from_solver,
)

#: Seconds one mutated session may take to open, step and seek (a hang driven by the file fails the test).
CASE_TIMEOUT = 120

#: Replacements tried at every key path of session.json.
JSON_MUTATIONS = (
    ("null", None),
    ("a text", "zzz"),
    ("a float", 1.5),
    ("-1", -1),
    ("2**31 + 100", 2**31 + 100),
    ("an empty list", []),
    ("an empty mapping", {}),
)


def _session_bytes(tmp_path, name: str, params: dict, puzzle: str, steps: int, phases: int = 0) -> bytes:
    s = create(name, **params)
    s.reset(library.puzzle(puzzle), seed=5)
    h = History(s)
    h.step(steps)
    for _ in range(phases):
        h.step_phase()
    path = tmp_path / f"{name}.sudoku-session"
    save_session(path, session_from_solver(s, history=h))
    return path.read_bytes()


def _members(data: bytes) -> tuple[dict, dict[str, np.ndarray]]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        doc = json.loads(zf.read(JSON_MEMBER))
        with np.load(io.BytesIO(zf.read(ARRAYS_MEMBER)), allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    return doc, arrays


def _write(path, doc: dict, arrays: dict[str, np.ndarray]) -> None:
    """The session file of ``doc`` with the arrays it references (an unreferenced member is refused unread)."""
    npz = io.BytesIO()
    np.savez_compressed(npz, **{key: arrays[key] for _, key in _array_refs(doc) if key in arrays})
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(JSON_MEMBER, json.dumps(doc))
        zf.writestr(ARRAYS_MEMBER, npz.getvalue())


def _paths(obj, path=()):
    """Every key path of a JSON document (two items of each list: the first and the last)."""
    if path:
        yield path
    if isinstance(obj, dict):
        for k in obj:
            yield from _paths(obj[k], (*path, k))
    elif isinstance(obj, list) and obj:
        for i in sorted({0, len(obj) - 1}):
            yield from _paths(obj[i], (*path, i))


def _set(obj, path, value):
    if not path:
        return value
    out = dict(obj) if isinstance(obj, dict) else list(obj)
    out[path[0]] = _set(obj[path[0]], path[1:], value)
    return out


def _array_refs(obj, path=()):
    """(path, key) of every array the JSON references."""
    if isinstance(obj, dict):
        if obj.get("$type") == "ndarray":
            if isinstance(obj.get("key"), str):
                yield path, obj["key"]
            return
        for k, v in obj.items():
            yield from _array_refs(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _array_refs(v, (*path, i))


def _array_mutations(a: np.ndarray):
    """Same dtype and shape (the JSON agrees), values out of range; and another shape the JSON is told of."""
    out = []
    if a.size and a.dtype.kind in "iu":
        for v in (1_000_000, np.iinfo(a.dtype).max, np.iinfo(a.dtype).min, -1):
            if np.iinfo(a.dtype).min <= v <= np.iinfo(a.dtype).max:
                m = a.copy()
                m.flat[m.size // 2] = v
                out.append((f"an element set to {v}", m))
    if a.size and a.dtype.kind == "f":
        for v in (np.nan, np.inf, 1e300):
            m = a.copy()
            m.flat[m.size // 2] = v
            out.append((f"an element set to {v}", m))
    out.append(("shape (0, ...)", np.zeros((0, *a.shape[1:]), dtype=a.dtype)))
    out.append(("shape (2, 2)", np.zeros((2, 2), dtype=a.dtype)))
    return out


def _opens_or_says_why(path, where: str) -> None:
    faulthandler.dump_traceback_later(CASE_TIMEOUT, exit=True)
    try:
        try:
            session = load_session(path)
        except SudokuLabError as e:
            assert "\n" not in str(e), f"{where}: more than one line: {e!r}"
            return
        try:
            h = restore_history(session)
            h.step(3)
            h.seek(0)
            h.solver.snapshot()
        except SudokuLabError as e:
            assert "\n" not in str(e), f"{where}: more than one line: {e!r}"
    except SudokuLabError:
        raise
    except Exception as e:  # noqa: BLE001 - the failure this test exists for, named
        pytest.fail(f"{where}: {type(e).__name__}: {e}")
    finally:
        faulthandler.cancel_dump_traceback_later()


CASES = {
    # The issue's hill-climbing session (box_free, q_grid), mid-run with its history.
    "hill_climb": ("hill_climb", {"queue_capacity": 4, "plateau": 2}, "ai_escargot", 40, 0),
    # Saved after Step phase: mid-iteration, its history beside it.
    "reseda_mid_phase": ("reseda", {}, "reseda_fig3_1_easy", 12, 2),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_every_key_path_of_a_session_ends_in_one_line_or_a_session_that_runs(case, tmp_path):
    doc, arrays = _members(_session_bytes(tmp_path, *CASES[case]))
    target = tmp_path / "mutated.sudoku-session"
    tried = 0
    for path in list(_paths(doc)):
        for how, value in JSON_MUTATIONS:
            _write(target, _set(doc, path, value), arrays)
            _opens_or_says_why(target, f"session.json {'.'.join(map(str, path))} as {how}")
            tried += 1
    for path, key in _array_refs(doc):
        for how, value in _array_mutations(arrays[key]):
            ref = dict(_get(doc, path), dtype=value.dtype.str, shape=list(value.shape))
            _write(target, _set(doc, path, ref), {**arrays, key: value})
            _opens_or_says_why(target, f"array {'.'.join(map(str, path))} with {how}")
            tried += 1
    assert tried > 500  # every key path was reached (the documents hold hundreds)


def _get(obj, path):
    for k in path:
        obj = obj[k]
    return obj


def test_the_issues_crafted_hill_climbing_session_is_refused_in_one_line(tmp_path):
    """box_free holding 1,000,000 (same dtype and shape) ended restore_solver(...).step(200) with SIGSEGV."""
    doc, arrays = _members(_session_bytes(tmp_path, "hill_climb", {}, "ai_escargot", 10))
    state = doc["session"]["state"]["algorithm"]
    key = state["q_grid"]["key"]
    arrays[key] = np.zeros((0, 81), dtype=np.int8)
    doc["session"]["state"]["algorithm"]["q_grid"]["shape"] = [0, 81]
    target = tmp_path / "crafted.sudoku-session"
    _write(target, doc, arrays)
    with pytest.raises(SudokuLabError, match=r"q_grid is an array of int8\[0, 81\], not int8\[100, 81\]"):
        load_session(target)
    doc, arrays = _members(_session_bytes(tmp_path, "hill_climb", {}, "ai_escargot", 10))
    doc["session"]["history"] = None
    key = doc["session"]["state"]["algorithm"]["box_free"]["key"]
    arrays[key] = np.full_like(arrays[key], 1_000_000)
    _write(target, doc, arrays)
    session = load_session(target)  # box_free is rebuilt from the puzzle, never read
    h = restore_history(session)
    h.step(200)
    assert h.solver.box_free.max() < 81


def _crafted(tmp_path, name, params, puzzle, change) -> str:
    """The one line opening a session of ``name`` whose state ``change(doc_state, arrays)`` altered gives."""
    doc, arrays = _members(_session_bytes(tmp_path, name, params, puzzle, 10))
    doc["session"]["history"] = None
    change(doc["session"]["state"], arrays)
    target = tmp_path / "crafted.sudoku-session"
    _write(target, doc, arrays)
    with pytest.raises(SudokuLabError) as info:
        load_session(target)
    assert "\n" not in str(info.value)
    return str(info.value)


def _array(state, arrays, name, value):
    ref = state["algorithm"][name]
    arrays[ref["key"]] = value
    ref.update(dtype=value.dtype.str, shape=list(value.shape))


@pytest.mark.parametrize(
    "name,change,words",
    [
        # Each of these crashed the process (SIGSEGV, a double free) or gave a raw error at the first step.
        ("reseda", lambda st, a: _array(st, a, "p", np.full((2, 2), 0.5)), "state.algorithm.p is an array of float64"),
        ("reseda", lambda st, a: st["algorithm"].update(box_avail=[]), "state.algorithm.box_avail is a list"),
        (
            "hill_climb",
            lambda st, a: _array(st, a, "grid", np.full(81, 5.0)),
            "state.algorithm.grid is an array of float64[81], not int8[81]",
        ),
        ("hill_climb", lambda st, a: st["algorithm"].update(grid="zzz"), "state.algorithm.grid is a str"),
        ("hill_climb", lambda st, a: st["trace"].update(stride=0), "state.trace.stride is 0, outside 1.."),
        ("hill_climb", lambda st, a: st.update(phase=9), "state.phase is 9, outside 0..2"),
        ("hill_climb", lambda st, a: None, None),  # the control: the same session untouched opens
    ],
    ids=["reseda-p-2x2", "reseda-box-avail-empty", "float-grid", "text-grid", "stride-0", "phase-past", "untouched"],
)
def test_the_issues_crafted_states_are_one_line_each(name, change, words, tmp_path):
    if words is None:  # the control: the same session untouched opens
        doc, arrays = _members(_session_bytes(tmp_path, name, {}, "ai_escargot", 10))
        target = tmp_path / "fine.sudoku-session"
        _write(target, doc, arrays)
        assert load_session(target).solver == name
        return
    line = _crafted(tmp_path, name, {}, "ai_escargot", change)
    assert words in line, line


def test_a_queue_length_past_the_queue_is_refused(tmp_path):
    def change(st, arrays):
        from sudoku_lab._kernels import hill_climb as K

        key = st["algorithm"]["counters"]["key"]
        arrays[key] = arrays[key].copy()
        arrays[key][K.C_QLEN] = 101

    line = _crafted(tmp_path, "hill_climb", {}, "ai_escargot", change)
    assert "state.algorithm.counters[C_QLEN] is 101, outside 0..100" in line, line
