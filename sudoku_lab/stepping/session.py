"""Sessions: a prepared moment of the lab (puzzle, solver, parameters, seed, the run's exact state) in one file.

A :class:`Session` is the value; :func:`save_session` writes it, :func:`load_session`
reads it back, :func:`session_from_solver` takes one from a running solver and
:func:`restore_solver` rebuilds that solver, paused at the saved iteration, so its
next steps are the ones the original run would have taken::

    session = session_from_solver(solver)
    save_session("class.sudoku-session", session)
    ...
    solver = restore_solver(load_session("class.sudoku-session"))
    solver.step(100)                # the same 100 iterations as the original's next 100

The file format: one zip archive (suffix :data:`SUFFIX`, ``.sudoku-session``) with two members:

``session.json``
    ``{"format": "sudoku-lab-session", "version": 1, "saved_by": "<version>",
    "session": {...}}``: the session's fields (``puzzle``, ``solver``, ``params``,
    ``seed``, ``events``, ``state``, ``ui``, ``history``) as tagged JSON (below).
``arrays.npz``
    Every numpy array of the session, under the key its JSON placeholder names
    (``a0``, ``a1``, ...), written by :func:`numpy.savez_compressed` and read with
    ``allow_pickle=False``.

JSON holds ``None``, bools, strings, lists, finite floats, integers up to 2**53 and
objects with string keys as themselves; everything else is an object with a
``"$type"`` tag: ``tuple`` (``items``), ``dict`` (``items``: ``[key, value]`` pairs, for
keys that are not strings), ``int`` (``value``: its decimal text, any size: a random
generator's 128-bit state), ``float`` (``value``: ``"nan"``, ``"inf"``, ``"-inf"``),
``numpy`` (a numpy scalar: ``dtype`` and ``value``), ``bytes`` (``base64``), ``ndarray``
(``key`` into ``arrays.npz``, ``dtype``, ``shape``), ``Event`` (its five fields) and
``Puzzle`` (``text`` as one line, box size ``n``, ``name``, ``metadata``, ``solution``).
Saving anything else (a set, an object array, a class of its own) is refused,
naming where it is, rather than written as text that cannot be read back. Nothing
is ever pickled.

``history`` is optional: a run's :class:`~sudoku_lab.stepping.history.History` as
:meth:`~sudoku_lab.stepping.history.History.record` gives it (its keyframes, event log,
recorded parameter changes, origin, furthest iteration, keyframe spacing and memory
limit), stored as the tagged JSON above with the keyframes' arrays in the same
``arrays.npz``. :func:`restore_history` rebuilds it, so a reopened session can rewind
to any iteration recorded before it was saved::

    save_session(path, session_from_solver(solver, history=history))
    history = restore_history(load_session(path))   # history.solver continues the run
    history.seek(20)                                 # the original's iteration 20, exactly

A file that is not a zip archive, is truncated, lacks a member, holds bad JSON,
names another format or a newer version, names a solver not registered here, or
whose arrays do not fit what the JSON says is one
:class:`~sudoku_lab.errors.DataFileError`, one line naming the file and the
problem; nothing is half-loaded.
"""

from __future__ import annotations

import base64
import io
import json
import math
import os
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from .. import __version__
from .._checks import checked
from ..errors import DataFileError, ParameterError, SudokuLabError
from ..files import read_bytes, write_file
from ..model.puzzle import Puzzle
from ..solvers import Event, Solver, create, registry
from .history import DEFAULT_MEMORY_LIMIT, History

__all__ = [
    "FORMAT",
    "VERSION",
    "SUFFIX",
    "Session",
    "save_session",
    "load_session",
    "session_from_solver",
    "restore_solver",
    "restore_history",
    "encode",
    "decode",
]

#: The format name ``session.json`` carries.
FORMAT = "sudoku-lab-session"
#: The newest format version this code writes and reads (older ones are read too).
VERSION = 1
#: The suggested file suffix.
SUFFIX = ".sudoku-session"
#: The members of the archive.
JSON_MEMBER = "session.json"
ARRAYS_MEMBER = "arrays.npz"
#: The largest session file read (a recorded history included).
MAX_BYTES = 1 << 30
#: Integers beyond this magnitude are stored as text (JSON readers other than Python's lose them).
_SAFE_INT = 2**53
#: Array kinds an ``.npz`` holds without pickle: bool, integers, floats, complex, strings.
_ARRAY_KINDS = "biufcUS"
_TAG = "$type"


@checked
@dataclass(frozen=True)
class Session:
    """A moment of the lab: what to solve, how, and (optionally) the run's exact state.

    Attributes
    ----------
    puzzle : Puzzle
        The puzzle.
    solver : str
        Registry name of the algorithm.
    params : Mapping[str, object]
        Parameters for the algorithm: those in force (from a solver), or the
        window's settings, which apply at its next reset.
    seed : int or None
        The seed of the run (``None``: a fresh one).
    state : Mapping[str, object] or None
        The solver's keyframe (:meth:`~sudoku_lab.solvers.Solver.state_dict`):
        with it, :func:`restore_solver` continues the run exactly; without it,
        a run starts from the puzzle with the seed.
    events : tuple of Event
        The run's change log (parameter changes, restarts) up to ``state``.
    ui : Mapping[str, object]
        Free-form settings of a front end (the window's dock layout as base64
        text, its speed, ...); encodable values only (see the module docstring).
    history : Mapping[str, object] or None
        A recorded run for rewinding: :meth:`History.record
        <sudoku_lab.stepping.history.History.record>` of the run, taken with ``state``;
        :func:`restore_history` rebuilds it. None: the reopened run can rewind only
        to the saved iteration.
    """

    puzzle: Puzzle
    solver: str
    params: Mapping[str, Any]
    seed: int | None = 0
    state: Mapping[str, Any] | None = None
    events: tuple[Event, ...] = ()
    ui: Mapping[str, Any] = field(default_factory=dict)
    history: Mapping[str, Any] | None = None

    @property
    def iteration(self) -> int:
        """The iteration the saved state is at (0 without a state)."""
        return int(self.state["iteration"]) if self.state is not None else 0


# ------------------------------------------------------------------ encoding
class _Unreadable(Exception):
    """A part of the file that does not decode (turned into a DataFileError naming the file)."""


def _path_text(path: str) -> str:
    return path or "the session"


def _encode(obj: Any, path: str, arrays: dict[str, np.ndarray]) -> Any:
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, np.generic):  # first: numpy's float64 is a Python float too
        if obj.dtype.kind not in "biuf":
            raise TypeError(f"cannot save a session: {_path_text(path)} is a numpy {obj.dtype} scalar")
        return {_TAG: "numpy", "dtype": obj.dtype.str, "value": _encode(obj.item(), path, arrays)}
    if isinstance(obj, int):  # not a bool (above)
        return obj if abs(obj) <= _SAFE_INT else {_TAG: "int", "value": str(obj)}
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else {_TAG: "float", "value": repr(float(obj))}
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in _ARRAY_KINDS or obj.dtype.hasobject:
            raise TypeError(
                f"cannot save a session: {_path_text(path)} is an array of dtype {obj.dtype}, "
                "which a session file cannot store without pickle"
            )
        key = f"a{len(arrays)}"
        arrays[key] = obj
        return {_TAG: "ndarray", "key": key, "dtype": obj.dtype.str, "shape": list(obj.shape)}
    if isinstance(obj, (bytes, bytearray)):
        return {_TAG: "bytes", "base64": base64.b64encode(bytes(obj)).decode("ascii")}
    if isinstance(obj, Event):
        return {
            _TAG: "Event",
            "iteration": _encode(obj.iteration, f"{path}.iteration", arrays),
            "kind": _encode(obj.kind, f"{path}.kind", arrays),
            "name": _encode(obj.name, f"{path}.name", arrays),
            "old": _encode(obj.old, f"{path}.old", arrays),
            "new": _encode(obj.new, f"{path}.new", arrays),
        }
    if isinstance(obj, Puzzle):
        return {
            _TAG: "Puzzle",
            "text": obj.to_line(),
            "n": obj.n,
            "name": obj.name,
            "metadata": {str(k): str(v) for k, v in obj.metadata.items()},
            "solution": None if obj.solution is None else _encode(obj.solution, f"{path}.solution", arrays),
        }
    if isinstance(obj, tuple):
        return {_TAG: "tuple", "items": [_encode(v, f"{path}[{i}]", arrays) for i, v in enumerate(obj)]}
    if isinstance(obj, list):
        return [_encode(v, f"{path}[{i}]", arrays) for i, v in enumerate(obj)]
    if isinstance(obj, Mapping):
        if all(isinstance(k, str) for k in obj) and _TAG not in obj:
            return {k: _encode(v, f"{path}.{k}" if path else k, arrays) for k, v in obj.items()}
        return {
            _TAG: "dict",
            "items": [
                [_encode(k, f"{path}[key {k!r}]", arrays), _encode(v, f"{path}[{k!r}]", arrays)] for k, v in obj.items()
            ],
        }
    raise TypeError(
        f"cannot save a session: {_path_text(path)} holds a {type(obj).__module__}.{type(obj).__qualname__}, "
        "which a session file cannot store"
    )


def _decode(obj: Any, path: str, arrays: Mapping[str, np.ndarray]) -> Any:
    if obj is None or isinstance(obj, (bool, str, int, float)):
        return obj
    if isinstance(obj, list):
        return [_decode(v, f"{path}[{i}]", arrays) for i, v in enumerate(obj)]
    if not isinstance(obj, dict):
        raise _Unreadable(f"{_path_text(path)} holds a {type(obj).__name__}")
    tag = obj.get(_TAG)
    if tag is None:
        return {k: _decode(v, f"{path}.{k}" if path else k, arrays) for k, v in obj.items()}
    try:
        return _decode_tagged(tag, obj, path, arrays)
    except _Unreadable:
        raise
    except (KeyError, TypeError, ValueError, OverflowError, SudokuLabError) as e:
        what = f"lacks {e}" if isinstance(e, KeyError) else str(e).splitlines()[0] if str(e) else type(e).__name__
        raise _Unreadable(f"{_path_text(path)} is not a readable {tag} ({what})") from None


def _decode_tagged(tag: str, obj: dict, path: str, arrays: Mapping[str, np.ndarray]) -> Any:
    if tag == "tuple":
        return tuple(_decode(v, f"{path}[{i}]", arrays) for i, v in enumerate(_list(obj["items"])))
    if tag == "dict":
        out = {}
        for i, pair in enumerate(_list(obj["items"])):
            if not isinstance(pair, list) or len(pair) != 2:
                raise ValueError("an item is not a [key, value] pair")
            k = _decode(pair[0], f"{path}[key {i}]", arrays)
            out[k] = _decode(pair[1], f"{path}[{k!r}]", arrays)
        return out
    if tag == "int":
        return int(_str(obj["value"]))
    if tag == "float":
        if obj["value"] not in ("nan", "inf", "-inf"):
            raise ValueError(f"{obj['value']!r} is not nan, inf or -inf")
        return float(obj["value"])
    if tag == "numpy":
        dtype = np.dtype(_str(obj["dtype"]))
        if dtype.kind not in "biuf":
            raise ValueError(f"dtype {dtype} is not a number")
        return dtype.type(_decode(obj["value"], path, arrays))
    if tag == "bytes":
        return base64.b64decode(_str(obj["base64"]), validate=True)
    if tag == "ndarray":
        key = _str(obj["key"])
        if key not in arrays:
            raise _Unreadable(f"{_path_text(path)} names array {key!r}, which {ARRAYS_MEMBER} lacks")
        a = arrays[key]
        dtype, shape = np.dtype(_str(obj["dtype"])), tuple(int(s) for s in _list(obj["shape"]))
        if a.dtype != dtype or a.shape != shape:
            raise _Unreadable(
                f"{_path_text(path)}: array {key!r} is {a.dtype}{list(a.shape)}, the session says {dtype}{list(shape)}"
            )
        return a.copy()  # each its own: two placeholders never share one array
    if tag == "Event":
        return Event(
            int(obj["iteration"]),
            _str(obj["kind"]),
            _str(obj["name"]),
            _decode(obj.get("old"), f"{path}.old", arrays),
            _decode(obj.get("new"), f"{path}.new", arrays),
        )
    if tag == "Puzzle":
        solution = obj.get("solution")
        meta = obj.get("metadata") or {}
        if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
            raise ValueError("its metadata is not a mapping of text")
        name = obj.get("name")
        if name is not None and not isinstance(name, str):
            raise ValueError("its name is not text")
        p = Puzzle.parse(_str(obj["text"]), n=int(obj["n"]), name=name, allow_clashes=True)
        return p.replace(
            metadata=meta, solution=None if solution is None else _decode(solution, f"{path}.solution", arrays)
        )
    raise ValueError(f"unknown type tag {tag!r}")


def _list(v: Any) -> list:
    if not isinstance(v, list):
        raise ValueError(f"{type(v).__name__} where a list belongs")
    return v


def _str(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError(f"{type(v).__name__} where text belongs")
    return v


@checked
def encode(obj: Any) -> tuple[Any, dict[str, np.ndarray]]:
    """A value as tagged JSON and the arrays it refers to (the format of the module docstring).

    Parameters
    ----------
    obj : object
        None, bool, int, float, str, bytes, list, tuple, mapping, ndarray
        (not of object dtype), numpy scalar, :class:`~sudoku_lab.solvers.Event`,
        :class:`~sudoku_lab.model.puzzle.Puzzle`, nested as deep as needed: a
        keyframe (``Solver.state_dict()``) is all of these.

    Returns
    -------
    (json_value, arrays) : (object, dict of str to ndarray)
        ``json.dumps(json_value)`` is the JSON text; ``arrays`` go into the
        ``.npz`` under their keys.

    Raises
    ------
    TypeError
        Anything else, naming its key path (``state.algorithm.history[2].zone
        holds a builtins.set, ...``).
    """
    arrays: dict[str, np.ndarray] = {}
    return _encode(obj, "", arrays), arrays


@checked
def decode(value: Any, arrays: Mapping[str, np.ndarray]) -> Any:
    """Rebuild what :func:`encode` encoded, exactly (types, dtypes, shapes, tuples and lists kept apart).

    Raises
    ------
    ValueError
        A malformed tag or an array that does not fit its placeholder, in one
        line naming where.
    """
    try:
        return _decode(value, "", arrays)
    except _Unreadable as e:
        raise ValueError(str(e)) from None


# ------------------------------------------------------------------ files
@checked
def save_session(path: str | os.PathLike[str], session: Session) -> None:
    """Write ``session`` to ``path`` (one zip archive; see the module docstring), replacing it atomically.

    Raises
    ------
    TypeError
        A value the format cannot store (in ``state``, ``ui`` or ``history``),
        naming its key path; nothing is written.
    DataFileError
        The file cannot be written (a read-only folder, a full disk), naming it.
    """
    arrays: dict[str, np.ndarray] = {}
    body = {
        "puzzle": _encode(session.puzzle, "puzzle", arrays),
        "solver": _encode(session.solver, "solver", arrays),
        "params": _encode(dict(session.params), "params", arrays),
        "seed": _encode(session.seed, "seed", arrays),
        "events": _encode(list(session.events), "events", arrays),
        "state": _encode(None if session.state is None else dict(session.state), "state", arrays),
        "ui": _encode(dict(session.ui), "ui", arrays),
        "history": _encode(None if session.history is None else dict(session.history), "history", arrays),
    }
    doc = {"format": FORMAT, "version": VERSION, "saved_by": f"sudoku-lab {__version__}", "session": body}
    text = json.dumps(doc, indent=1, allow_nan=False).encode("utf-8")
    npz = io.BytesIO()
    np.savez_compressed(npz, **arrays)  # type: ignore[arg-type]  # numpy's stubs take the keywords for allow_pickle

    def write(fh) -> None:
        with zipfile.ZipFile(fh, "w") as zf:
            zf.writestr(JSON_MEMBER, text, compress_type=zipfile.ZIP_DEFLATED)
            zf.writestr(ARRAYS_MEMBER, npz.getvalue(), compress_type=zipfile.ZIP_STORED)  # already compressed

    write_file(path, write, "session file", binary=True)


def _bad(path, problem: str) -> DataFileError:
    return DataFileError(f"session file {path}: {problem}".replace("\n", " "), path=path)


def _read_members(path, data: bytes) -> tuple[bytes, bytes]:
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        if data[:4] == b"PK\x03\x04":
            raise _bad(path, "truncated (its zip directory is missing)") from None
        raise _bad(path, "not a session file (not a zip archive)") from None
    except (OSError, ValueError, EOFError) as e:
        raise _bad(path, f"not a session file ({e})") from None
    with zf:
        names = set(zf.namelist())
        missing = [m for m in (JSON_MEMBER, ARRAYS_MEMBER) if m not in names]
        if missing == [JSON_MEMBER, ARRAYS_MEMBER]:
            raise _bad(path, f"not a session file (a zip archive without {JSON_MEMBER} and {ARRAYS_MEMBER})")
        if missing:
            raise _bad(path, f"incomplete: the archive has no {missing[0]}")
        out = []
        for member in (JSON_MEMBER, ARRAYS_MEMBER):
            try:
                out.append(zf.read(member))
            except (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError) as e:
                raise _bad(path, f"corrupt or truncated: {member} cannot be read ({e})") from None
    return out[0], out[1]


def _read_arrays(path, raw: bytes) -> dict[str, np.ndarray]:
    if raw[:4] != b"PK\x03\x04" and raw[:4] != b"PK\x05\x06":  # np.load would take anything else for a pickle
        raise _bad(path, f"{ARRAYS_MEMBER} is corrupt (not an .npz archive)")
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            return {key: npz[key] for key in npz.files}
    except ValueError as e:
        if "allow_pickle" in str(e) or "Object arrays" in str(e):
            raise _bad(
                path, f"{ARRAYS_MEMBER} holds an object array, which is never loaded (it needs pickle)"
            ) from None
        raise _bad(path, f"{ARRAYS_MEMBER} is corrupt ({e})") from None
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, KeyError) as e:
        raise _bad(path, f"{ARRAYS_MEMBER} is corrupt ({e or type(e).__name__})") from None


@checked
def load_session(path: str | os.PathLike[str]) -> Session:
    """Read a session file written by :func:`save_session`; its state is checked to load into its solver.

    Raises
    ------
    DataFileError
        One line naming the file and what is wrong: missing or unreadable, not
        a zip archive, truncated, a member missing, bad JSON, another format, a
        newer version, a solver not registered here, parameters its solver
        refuses, arrays whose dtype or shape differ from what the JSON says, an
        object array (it would need pickle), or a state its solver cannot load.
    """
    data = read_bytes(path, "session file", MAX_BYTES, streams=False)
    text, raw = _read_members(path, data)
    try:
        doc = json.loads(text.decode("utf-8"))
    except ValueError as e:  # bad UTF-8, bad JSON, an integer of too many digits
        raise _bad(path, f"{JSON_MEMBER} is not valid JSON ({e})") from None
    except RecursionError:
        raise _bad(path, f"{JSON_MEMBER} is nested too deeply") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else None
        what = f"format {found!r}" if isinstance(found, str) else "no format name"
        raise _bad(path, f"not a Sudoku Lab session ({JSON_MEMBER} has {what}, not {FORMAT!r})")
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _bad(path, f"unknown session format version {version!r}")
    if version > VERSION:
        saved_by = doc.get("saved_by") if isinstance(doc.get("saved_by"), str) else "a newer Sudoku Lab"
        raise _bad(
            path,
            f"written by {saved_by} in session format version {version}; this Sudoku Lab ({__version__}) "
            f"reads versions up to {VERSION}: upgrade it to open this file",
        )
    body = doc.get("session")
    if not isinstance(body, dict):
        raise _bad(path, f"{JSON_MEMBER} has no session object")
    arrays = _read_arrays(path, raw)
    try:
        fields = {
            k: _decode(body[k], k, arrays) for k in ("puzzle", "solver", "params", "seed", "events", "state", "ui")
        }
        fields["history"] = _decode(body.get("history"), "history", arrays)
    except KeyError as e:
        raise _bad(path, f"the session lacks its {e.args[0]!r} entry") from None
    except _Unreadable as e:
        raise _bad(path, str(e)) from None
    except RecursionError:
        raise _bad(path, f"{JSON_MEMBER} is nested too deeply") from None
    return _checked_session(path, fields)


def _checked_session(path, f: dict) -> Session:
    kinds = (
        ("puzzle", Puzzle, "a puzzle"),
        ("solver", str, "a solver name"),
        ("params", dict, "a mapping"),
        ("events", list, "a list of events"),
        ("ui", dict, "a mapping"),
        ("state", (dict, type(None)), "a keyframe mapping"),
        ("history", (dict, type(None)), "a mapping"),
    )
    for key, kind, words in kinds:
        if not isinstance(f[key], kind):
            raise _bad(path, f"its {key} is not {words}")
    seed = f["seed"]
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise _bad(path, f"its seed {seed!r} is not a non-negative integer")
    if not all(isinstance(e, Event) for e in f["events"]):
        raise _bad(path, "its events are not all events")
    name = f["solver"]
    if name not in registry():
        known = ", ".join(registry())
        raise _bad(path, f"solver {name!r} is not registered here (a plugin not installed?); known: {known}")
    cls = registry()[name]
    try:
        params = cls.validate_params(f["params"])
    except SudokuLabError as e:
        raise _bad(path, f"parameters for {name}: {e}") from None
    session = Session(
        puzzle=f["puzzle"],
        solver=name,
        params=params,
        seed=seed,
        state=f["state"],
        events=tuple(f["events"]),
        ui=f["ui"],
        history=f["history"],
    )
    if session.state is not None:
        if session.state.get("solver") != name:
            raise _bad(path, f"its state is for solver {session.state.get('solver')!r}, not {name!r}")
        try:
            restored = restore_solver(session)
            restored.snapshot()  # every layer computes from the restored arrays
        except Exception as e:  # noqa: BLE001 - whatever a malformed keyframe breaks, it is one line about the file
            words = str(e).splitlines()[0] if str(e) else ""
            detail = f"{type(e).__name__}: {words}" if words else type(e).__name__
            raise _bad(path, f"its saved state does not load into {name} ({detail})") from None
    if session.history is not None:
        try:
            _rebuilt(session)
        except DataFileError as e:
            raise _bad(path, str(e)) from None
    return session


def _rebuilt(session: Session, memory_limit: int | None = None) -> History:
    """The session's History around its restored solver; DataFileError (one line) for a history that does not fit."""
    solver = restore_solver(session)
    try:
        history = History.from_record(solver, session.history, memory_limit=memory_limit)
        scratch = create(session.solver, **dict(session.params))
        for key in history._keys:  # every keyframe loads into its solver (the first seek there would fail)
            scratch.load_state(key.state)
    except ParameterError as e:
        if memory_limit is not None:
            raise  # the caller's limit, not the file
        raise DataFileError(f"the history's memory_limit does not fit its keyframes ({e})") from None
    except Exception as e:  # noqa: BLE001 - whatever a malformed history breaks, it is one line about the file
        words = str(e).splitlines()[0] if str(e) else ""
        if isinstance(e, ValueError) and words.startswith(("the history", "the solver")):
            raise DataFileError(words) from None
        detail = f"{type(e).__name__}: {words}" if words else type(e).__name__
        raise DataFileError(f"its history does not load into {session.solver} ({detail})") from None
    return history


# ------------------------------------------------------------------ solvers
@checked
def session_from_solver(
    solver: Solver,
    ui: Mapping[str, Any] | None = None,
    history: History | Mapping[str, Any] | None = None,
) -> Session:
    """The session of ``solver`` now: its puzzle, name, parameters in force, seed, change log and keyframe.

    Parameters
    ----------
    solver : Solver
        A solver after ``reset``.
    ui : Mapping, optional
        A front end's settings (see :class:`Session`).
    history : History or Mapping, optional
        The :class:`~sudoku_lab.stepping.history.History` recording ``solver`` (its
        :meth:`~sudoku_lab.stepping.history.History.record` is taken now), or such a record
        taken at the same moment as the solver's state: the reopened session can rewind.

    Raises
    ------
    RuntimeError
        The solver was never reset (it has no puzzle yet).
    ValueError
        ``history`` records another solver.
    """
    if isinstance(history, History):
        if history.solver is not solver:
            raise ValueError("session_from_solver: the history records another solver than the one given")
        history = history.record()
    state = solver.state_dict()
    return Session(
        puzzle=state["puzzle"],
        solver=solver.name,
        params=dict(state["params"]),
        seed=state["seed"],
        state=state,
        events=tuple(state["events"]),
        ui=dict(ui or {}),
        history=history,
    )


@checked
def restore_solver(session: Session) -> Solver:
    """The session's solver, created by name and paused where the session was saved.

    With a saved state the solver loads it (:meth:`~sudoku_lab.solvers.Solver.load_state`),
    so its next steps are those of the original run; without one it is reset on
    the session's puzzle with its seed and parameters.

    Raises
    ------
    ParameterError
        The solver is not registered, or refuses the parameters.
    """
    solver = create(session.solver, **dict(session.params))
    if session.state is None:
        solver.reset(session.puzzle, seed=session.seed)
    else:
        solver.load_state(session.state)
    return solver


@checked
def restore_history(session: Session, memory_limit: int | None = None) -> History:
    """The session's solver (:func:`restore_solver`) inside the :class:`~sudoku_lab.stepping.history.History`
    it was saved with, so the run can be rewound to any iteration recorded before the session was saved.

    ``history.solver`` is the restored solver, at the saved iteration: ``history.seek(i)`` gives the
    original run's snapshot at ``i`` and stepping on replays the recorded run (its parameter changes
    included), then goes on exactly as the original would. A session saved without a history gives a new
    history whose origin is the saved iteration (nothing before it can be shown).

    Parameters
    ----------
    session : Session
    memory_limit : int, optional
        The history's memory limit in bytes (default: the saved one, or
        :data:`~sudoku_lab.stepping.history.DEFAULT_MEMORY_LIMIT` without a saved history).

    Raises
    ------
    DataFileError
        The saved history does not fit the session (a key missing, a value of the wrong type, a
        keyframe beyond the recorded run, arrays missing...): one line naming what is wrong.
    ParameterError
        The solver is not registered or refuses the parameters, or ``memory_limit`` is too small.
    """
    if session.history is None:
        return History(restore_solver(session), memory_limit=memory_limit or DEFAULT_MEMORY_LIMIT)
    return _rebuilt(session, memory_limit)
