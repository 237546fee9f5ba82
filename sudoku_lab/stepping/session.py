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
    (``a0``, ``a1``, ...: members ``a0.npy``, ...), written by
    :func:`numpy.savez_compressed`. Each is read from its checked ``.npy`` header
    (:meth:`~sudoku_lab.files.ZipMembers.read_array`), never by a loader that can
    unpickle.

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

A session is the exact moment it was saved at: between iterations, after a rewind (the recorded run
goes on past it: stepping replays it), while a run went on (the state is taken between two chunks), or
in the middle of an iteration stepped by phases (the keyframe holds the phase and what the iteration
computed so far; the reopened solver's next :meth:`~sudoku_lab.solvers.Solver.step_phase` is the
original's next phase). A history saved with it rebuilds around that moment; without one, the moment
is the origin of a new history (see :class:`~sudoku_lab.stepping.history.History`).

A saved history is a claim about a run, checked against it: what can be seen cheaply when the file
is read (one :class:`~sudoku_lab.errors.DataFileError` line naming the iteration: a ``furthest`` its
keyframes cannot have, a keyframe of another seed, a change moved to another iteration...), the rest
by replay before any of its keyframes is used (:meth:`History.verify
<sudoku_lab.stepping.history.History.verify>`; a difference is a
:class:`~sudoku_lab.errors.HistoryError` naming the iteration, and the history is refused).

A session file is untrusted input (a teacher hands one to a class) and is read
within limits, each checked before anything is inflated (against the sizes the
archive declares) and again while inflating (a member is read in chunks into a
buffer of its declared size, so one that lies costs at most that size):

- the file at most :data:`MAX_BYTES` (1 GiB);
- exactly the members ``session.json`` and ``arrays.npz``, each once, stored or
  deflated, not encrypted; any other member is refused without being read;
- ``session.json`` at most :data:`MAX_JSON_BYTES` (64 MB), nested at most
  :data:`~sudoku_lab.files.MAX_JSON_DEPTH` (100) deep, checked before parsing;
- inside ``arrays.npz`` exactly the arrays ``session.json`` references (read
  first, so an unreferenced member is refused unread), each an ``.npy`` of
  format 1.0 or 2.0 with a plain dtype (bool, integer, float, complex, text)
  whose shape matches the bytes it holds;
- any one member (``arrays.npz``, one array) at most :data:`MAX_MEMBER_BYTES`
  (500 MB) inflated, and all of them together, the arrays inside ``arrays.npz``
  counted as well, at most :data:`MAX_INFLATED_BYTES` (1 GB). A history of
  200 MB (the window's default limit) inflates to about 220 MB.

The limits are read at each load: a script raises them for a bigger file.

A file that is not a zip archive, is truncated, lacks a member or holds one it
should not, passes a limit, holds bad JSON, names another format or a newer
version, names a solver not registered here, or whose arrays do not fit what the
JSON says is one :class:`~sudoku_lab.errors.DataFileError`, one line naming the
file, the member and the problem (text quoted from the file escaped); nothing is
half-loaded.
"""

from __future__ import annotations

import base64
import io
import json
import math
import os
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

import numpy as np

from .. import __version__
from .._checks import checked
from ..errors import DataFileError, ParameterError, StateError, SudokuLabError
from ..files import MAX_JSON_DEPTH, Inflation, ZipMembers, _size_text, json_loads, open_binary, write_file
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
#: The most one member of a session may inflate to: ``arrays.npz``, or one array inside it. Checked against
#: the size each member declares before anything is inflated, and enforced while inflating. Like the two
#: limits below, read at each load, so it can be raised for a bigger file (or lowered, as the tests do).
MAX_MEMBER_BYTES = 500_000_000
#: The most ``session.json`` may hold. Parsed JSON takes several times its text in memory; a history of
#: 200 MB recorded at every iteration writes about 31 MB of it.
MAX_JSON_BYTES = 64_000_000
#: The most all of a session's members may inflate to together, the arrays inside ``arrays.npz`` counted
#: as well as that archive itself: what loading a session may cost in memory. A history of 200 MB (the
#: window's default limit) inflates to about 220 MB, at most about 470 MB if nothing compressed.
MAX_INFLATED_BYTES = 1_000_000_000
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


def _decode(obj: Any, path: str, arrays: Mapping[str, np.ndarray], depth: int = 0) -> Any:
    if obj is None or isinstance(obj, (bool, str, int, float)):
        return obj
    if depth >= MAX_JSON_DEPTH:  # the recursion below is bounded: never a RecursionError, whatever is given
        raise _Unreadable(f"{_path_text(path)} is nested more than {MAX_JSON_DEPTH} deep")
    depth += 1
    if isinstance(obj, list):
        return [_decode(v, f"{path}[{i}]", arrays, depth) for i, v in enumerate(obj)]
    if not isinstance(obj, dict):
        raise _Unreadable(f"{_path_text(path)} holds a {type(obj).__name__}")
    tag = obj.get(_TAG)
    if tag is None:
        return {k: _decode(v, f"{path}.{k}" if path else k, arrays, depth) for k, v in obj.items()}
    try:
        return _decode_tagged(tag, obj, path, arrays, depth)
    except _Unreadable:
        raise
    except (KeyError, TypeError, ValueError, OverflowError, SudokuLabError) as e:
        what = f"lacks {e}" if isinstance(e, KeyError) else str(e).splitlines()[0] if str(e) else type(e).__name__
        raise _Unreadable(f"{_path_text(path)} is not a readable {tag} ({what})") from None


def _decode_tagged(tag: str, obj: dict, path: str, arrays: Mapping[str, np.ndarray], depth: int) -> Any:
    if tag == "tuple":
        return tuple(_decode(v, f"{path}[{i}]", arrays, depth) for i, v in enumerate(_list(obj["items"])))
    if tag == "dict":
        out = {}
        for i, pair in enumerate(_list(obj["items"])):
            if not isinstance(pair, list) or len(pair) != 2:
                raise ValueError("an item is not a [key, value] pair")
            k = _decode(pair[0], f"{path}[key {i}]", arrays, depth)
            out[k] = _decode(pair[1], f"{path}[{k!r}]", arrays, depth)
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
        return dtype.type(_decode(obj["value"], path, arrays, depth))
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
            _decode(obj.get("old"), f"{path}.old", arrays, depth),
            _decode(obj.get("new"), f"{path}.new", arrays, depth),
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
            metadata=meta,
            solution=None if solution is None else _decode(solution, f"{path}.solution", arrays, depth),
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
        A malformed tag, an array that does not fit its placeholder, or a value
        nested more than :data:`~sudoku_lab.files.MAX_JSON_DEPTH` deep, in one
        line naming where (never a ``RecursionError``).
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


@contextmanager
def _archive(path, budget: Inflation) -> Iterator[ZipMembers]:
    """The session file's archive, its directory checked (see :class:`~sudoku_lab.files.ZipMembers`)."""
    with open_binary(path, "session file", streams=False) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > MAX_BYTES:
            raise _bad(path, f"it is {_size_text(size)}; at most {_size_text(MAX_BYTES)} are read from a session file")
        with ZipMembers(
            fh,
            f"session file {path}",
            "a session file",
            allowed=(JSON_MEMBER, ARRAYS_MEMBER),
            required=(JSON_MEMBER, ARRAYS_MEMBER),
            unexpected=f"a session file does not have (it holds {JSON_MEMBER} and {ARRAYS_MEMBER} only)",
            max_member=MAX_MEMBER_BYTES,
            budget=budget,
            path=path,
        ) as members:
            yield members


def _read_json(path, members: ZipMembers) -> Any:
    """``session.json``, parsed: bounded in size before it is inflated and in depth before it is parsed."""
    if members.size(JSON_MEMBER) > MAX_JSON_BYTES:
        raise _bad(
            path,
            f"{JSON_MEMBER} would inflate to {_size_text(members.size(JSON_MEMBER))}, more than the "
            f"{_size_text(MAX_JSON_BYTES)} read of it; nothing was inflated",
        )
    raw = members.read(JSON_MEMBER)  # its own one line if it is corrupt or lies about its size
    try:
        return json_loads(raw.decode("utf-8"))
    except ValueError as e:  # bad UTF-8, bad JSON, nested too deeply, an integer of too many digits
        raise _bad(path, f"{JSON_MEMBER} is not valid JSON ({e})") from None


def _array_keys(body: Any) -> set[str]:
    """The keys of the array placeholders in ``body``, the ones :func:`_decode` reads (walked without recursion)."""
    keys: set[str] = set()
    todo = [body]
    while todo:
        v = todo.pop()
        if type(v) is dict:
            if v.get(_TAG) == "ndarray":  # what a placeholder holds besides its key is never decoded
                if type(v.get("key")) is str:
                    keys.add(v["key"])
                continue
            todo.extend([x for x in v.values() if type(x) is dict or type(x) is list])
        else:
            todo.extend([x for x in v if type(x) is dict or type(x) is list])
    return keys


def _read_arrays(path, members: ZipMembers, body: Any) -> dict[str, np.ndarray]:
    """The arrays of ``arrays.npz`` that ``body`` references; any other member is refused without inflating it."""
    wanted = {f"{key}.npy": key for key in _array_keys(body)}  # numpy.savez names each member KEY.npy
    raw = members.read(ARRAYS_MEMBER)
    with ZipMembers(
        raw,
        f"session file {path}: {ARRAYS_MEMBER}",
        "an .npz archive",
        allowed=wanted,
        unexpected=f"{JSON_MEMBER} does not reference",
        max_member=MAX_MEMBER_BYTES,
        budget=members.budget,
        path=path,
    ) as npz:
        return {wanted[m]: npz.read_array(m, _ARRAY_KINDS) for m in npz.names}


@checked
def load_session(path: str | os.PathLike[str]) -> Session:
    """Read a session file written by :func:`save_session`; its state is checked to load into its solver.

    Raises
    ------
    DataFileError
        One line naming the file and what is wrong: missing or unreadable, not
        a zip archive, truncated, a member missing or one the format does not
        have, a limit of the module docstring passed (naming the member and the
        limit), bad or too deeply nested JSON, another format, a newer version,
        a solver not registered here, parameters its solver refuses, arrays
        whose dtype or shape differ from what the JSON says or from their own
        ``.npy`` header, an object array (it would need pickle), or a state its
        solver cannot load.
    """
    with _archive(path, Inflation(MAX_INFLATED_BYTES)) as members:
        doc = _read_json(path, members)
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            found = doc.get("format") if isinstance(doc, dict) else None
            what = f"format {found!r}" if isinstance(found, str) else "no format name"
            raise _bad(path, f"not a Sudoku Lab session ({JSON_MEMBER} has {what}, not {FORMAT!r})")
        version = doc.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise _bad(path, f"unknown session format version {version!r}")
        if version > VERSION:
            saved_by = doc.get("saved_by")
            saved_by = saved_by if isinstance(saved_by, str) else "a newer Sudoku Lab"
            if len(saved_by) > 80:  # a name, not a page: the message stays one readable line
                saved_by = saved_by[:77] + "..."
            raise _bad(
                path,
                f"written by {saved_by} in session format version {version}; this Sudoku Lab ({__version__}) "
                f"reads versions up to {VERSION}: upgrade it to open this file",
            )
        body = doc.get("session")
        if not isinstance(body, dict):
            raise _bad(path, f"{JSON_MEMBER} has no session object")
        arrays = _read_arrays(path, members, body)
    try:
        fields = {
            k: _decode(body[k], k, arrays) for k in ("puzzle", "solver", "params", "seed", "events", "state", "ui")
        }
        fields["history"] = _decode(body.get("history"), "history", arrays)
    except KeyError as e:
        raise _bad(path, f"the session lacks its {e.args[0]!r} entry") from None
    except _Unreadable as e:
        raise _bad(path, str(e)) from None
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
        except SudokuLabError as e:  # a keyframe its solver refuses (StateError): the field, in one line
            raise _bad(path, f"its saved state does not fit {name}: {e}") from None
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
    """The session's History around its restored solver; DataFileError (one line) for a history that does not fit.

    What can be seen without replaying the recorded run is checked here (:meth:`History.from_record
    <sudoku_lab.stepping.history.History.from_record>`); the rest is confirmed by the replays the
    history makes (:meth:`~sudoku_lab.stepping.history.History.verify`).
    """
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
    except StateError as e:
        raise DataFileError(f"a keyframe of its history does not fit {session.solver}: {e}") from None
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

    ``history.solver`` is the restored solver, at the saved moment (in the middle of an iteration if it
    was saved there): ``history.seek(i)`` gives the original run's snapshot at ``i`` and stepping on
    replays the recorded run (its parameter changes included), then goes on exactly as the original
    would. A session saved without a history gives a new history whose origin is the saved moment
    (nothing before it can be shown). The saved history is confirmed by replay as it is used (see the
    module docstring): a seek into a stretch not confirmed yet replays it first, once, and
    ``history.verify()`` confirms all of it (a re-run of the recorded run).

    Parameters
    ----------
    session : Session
    memory_limit : int, optional
        The history's memory limit in bytes, positive (None: the saved one, or
        :data:`~sudoku_lab.stepping.history.DEFAULT_MEMORY_LIMIT` without a saved history).

    Raises
    ------
    DataFileError
        The saved history does not fit the session (a key missing, a value of the wrong type, a
        keyframe beyond the recorded run or of another seed, a ``furthest`` its keyframes cannot
        have, a change at another iteration than its events, arrays missing...): one line naming
        what is wrong.
    ParameterError
        The solver is not registered or refuses the parameters, or ``memory_limit`` is not positive
        (0 included) or smaller than one keyframe.
    """
    if memory_limit is not None and memory_limit <= 0:  # refused before anything is restored, as History refuses it
        raise ParameterError(
            f"restore_history: memory_limit must be a positive number of bytes (or None: the default), "
            f"got {memory_limit}",
            name="memory_limit",
        )
    if session.history is None:
        limit = DEFAULT_MEMORY_LIMIT if memory_limit is None else memory_limit
        return History(restore_solver(session), memory_limit=limit)
    return _rebuilt(session, memory_limit)
