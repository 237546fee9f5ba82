"""What a keyframe may hold: each solver declares its state, and every load checks it against that.

A keyframe (:meth:`Solver.state_dict <sudoku_lab.solvers.Solver.state_dict>`) comes back from a
session file a teacher handed round, so :meth:`Solver.load_state <sudoku_lab.solvers.Solver.load_state>`
treats it as untrusted input: nothing it holds reaches a kernel unchecked. A solver on a kernel
(:class:`~sudoku_lab.solvers.KernelSolver`) declares, for every field of its ``State``:

- :class:`Field`: the dtype, the shape (entries are numbers or expressions over the puzzle's geometry,
  the parameters and the kernel's constants: ``"C"``, ``"N"``, ``"queue_capacity"``, ``"tenure + 1"``,
  ``"params['C']"`` for a parameter whose name the geometry takes; a pair ``(low, high)`` for a length
  that varies) and the value range (``low`` and ``high``, inclusive, the same kind of expressions),
  floats finite unless ``finite=False``; or ``Field(..., derived=True)``: rebuilt from the puzzle, the
  parameters and the primary fields by the solver's ``_derive`` and never read from the keyframe;
- :class:`Counters` for the kernel's int64 counters: a range for every ``C_*`` slot of the kernel (a
  solver that leaves one out is refused when its class is created), ``derived`` slots rebuilt by
  ``_derive``; the iteration and evaluation counters must equal the keyframe's own;

and for each value its ``_extra_state`` adds, a :class:`Value` (:func:`integer`, :func:`real`,
:func:`text`, :func:`flag`, :func:`maybe`, :func:`items`, :func:`record`). After the fields pass,
``_check_loaded`` checks that the state is one the solver could have produced (givens in place, digits in
range, counts consistent with the grid). The order: every declared value checked (copies), ``_load`` with
them (a kernel solver's sets the arrays, then calls ``_loaded`` with the extras), ``_derive``,
``_check_loaded``; a keyframe refused anywhere leaves the solver as it was. A field that fails is one
:class:`StateError` line naming it: ``state.algorithm.box_free[3, 2] is 1000000, outside -1..80``.

A keyframe taken in the middle of an iteration (after :meth:`~sudoku_lab.solvers.Solver.step_phase`)
holds the keyframe of the iteration's start and the number of phase steps taken since
(``phase_state``): loading it loads that start and replays the phases, so what the phases computed
so far is never read from a file either, and the replay must arrive at the keyframe's own arrays.

The conformance kit (:func:`sudoku_lab.testing.check_solver`) mutates every field of a solver's
keyframe (wrong kind, wrong shape, out of range, empty) and requires one such line, never a crash,
a raw exception or a hang: plugins get the same protection.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from .._checks import checked
from ..errors import StateError
from ..model.puzzle import Puzzle

__all__ = [
    "Counters",
    "anything",
    "array",
    "Field",
    "StateError",
    "Value",
    "check_array",
    "check_value",
    "difference",
    "flag",
    "integer",
    "items",
    "maybe",
    "real",
    "record",
    "require_box_permutations",
    "require_givens",
    "require_range",
    "text",
]

#: A bound or a shape entry: a number, an expression over the context (``"C"``, ``"N - 1"``), or a function of it.
Bound = int | float | str | Callable[[Mapping[str, Any]], Any] | None

#: Largest integer a keyframe's plain integers may hold (a count no run reaches; kernels add to them in int64).
MAX_COUNT = 2**53


@checked
def evaluate(bound: Bound, ctx: Mapping[str, Any]) -> Any:
    """The value of a declared bound or shape entry in ``ctx`` (declarations are code, never file contents)."""
    if bound is None or isinstance(bound, (int, float)):
        return bound
    if callable(bound):
        return bound(ctx)
    return eval(bound, {"__builtins__": {"min": min, "max": max, "len": len}}, dict(ctx))  # noqa: S307 - our own declarations


def _where(path: str, index: tuple[int, ...]) -> str:
    return f"{path}[{', '.join(map(str, index))}]" if index else path


def _num(v: Any) -> str:
    if isinstance(v, (float, np.floating)):
        return f"{float(v):g}"
    return str(int(v)) if isinstance(v, (int, np.integer)) else repr(v)


def _kind(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"an array of {v.dtype}{list(v.shape)}"
    if v is None:
        return "null"
    return f"a {type(v).__name__}"


@checked
@dataclass(frozen=True)
class Field:
    """One array of a solver's state: dtype, shape, value range, or derived (see the module docstring)."""

    dtype: str
    shape: tuple = ()
    low: Bound = None
    high: Bound = None
    derived: bool = False
    finite: bool = True
    doc: str = ""


@checked
@dataclass(frozen=True)
class Counters:
    """A kernel's int64 counters: each ``C_*`` slot's range, and the slots rebuilt from the state (``derived``)."""

    ranges: Mapping[str, tuple[Bound, Bound]] = field(default_factory=dict)
    derived: tuple[str, ...] = ()
    doc: str = ""


@checked
def check_array(value: Any, decl: Field, ctx: Mapping[str, Any], path: str) -> np.ndarray:
    """``value`` as a fresh array of ``decl``'s dtype and shape within its range; else StateError naming ``path``."""
    want = np.dtype(decl.dtype)
    if not isinstance(value, np.ndarray):
        raise StateError(f"{path} is {_kind(value)}, not an array of {want}")
    shape = []
    for i, entry in enumerate(decl.shape):
        if isinstance(entry, tuple):
            lo, hi = (evaluate(b, ctx) for b in entry)
            if value.ndim > i and lo <= value.shape[i] <= hi:
                shape.append(value.shape[i])
                continue
            shape.append(f"{lo}..{hi}")
        else:
            shape.append(int(evaluate(entry, ctx)))
    if value.dtype != want or list(value.shape) != shape:
        text = ", ".join(map(str, shape))
        raise StateError(f"{path} is {_kind(value)}, not {want}[{text}]")
    a = np.array(value, copy=True)
    if a.size == 0:
        return a
    if want.kind == "f" and decl.finite and not np.isfinite(a).all():
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])
        raise StateError(f"{_where(path, bad)} is {_num(a[bad])}, not a finite number")
    lo, hi = evaluate(decl.low, ctx), evaluate(decl.high, ctx)
    if want.kind in "biuf" and (lo is not None or hi is not None):
        outside = np.zeros(a.shape, dtype=bool)
        if lo is not None:
            outside |= a < lo
        if hi is not None:
            outside |= a > hi
        if outside.any():
            bad = tuple(int(i) for i in np.argwhere(outside)[0])
            span = f"{_num(lo) if lo is not None else '-inf'}..{_num(hi) if hi is not None else 'inf'}"
            raise StateError(f"{_where(path, bad)} is {_num(a[bad])}, outside {span}")
    return a


@checked
def require_range(v: Any, low: Bound, high: Bound, ctx: Mapping[str, Any], path: str) -> Any:
    """``v`` if it lies within the declared ``low..high`` (either may be None: unbounded); else StateError."""
    lo, hi = evaluate(low, ctx), evaluate(high, ctx)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        span = f"{_num(lo) if lo is not None else '-inf'}..{_num(hi) if hi is not None else 'inf'}"
        raise StateError(f"{path} is {_num(v)}, outside {span}")
    return v


# ------------------------------------------------------------------- values
@checked
@dataclass(frozen=True)
class Value:
    """A plain value a keyframe holds besides its arrays: ``check(value, ctx, path)`` returns it or raises."""

    check: Callable[[Any, Mapping[str, Any], str], Any]
    words: str


@checked
def check_value(value: Any, decl: Value, ctx: Mapping[str, Any], path: str) -> Any:
    """``decl.check`` on ``value`` (the checked value, copied where mutable)."""
    return decl.check(value, ctx, path)


@checked
def integer(low: Bound = 0, high: Bound = MAX_COUNT) -> Value:
    """An int (not a bool, numpy integers allowed) within ``low..high``."""

    def check(v, ctx, path):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise StateError(f"{path} is {_kind(v)}, not an integer")
        return require_range(v, low, high, ctx, path)

    return Value(check, "an integer")


@checked
def real(low: Bound = None, high: Bound = None) -> Value:
    """A finite float or int (not a bool) within ``low..high``."""

    def check(v, ctx, path):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(v):
            raise StateError(f"{path} is {_kind(v) if not isinstance(v, float) else v}, not a finite number")
        return require_range(v, low, high, ctx, path)

    return Value(check, "a number")


@checked
def text(choices: tuple[str, ...] | None = None, max_length: int = 1000) -> Value:
    """A str, one of ``choices`` when given."""

    def check(v, ctx, path):
        if not isinstance(v, str) or len(v) > max_length:
            raise StateError(f"{path} is {_kind(v) if not isinstance(v, str) else 'a text too long'}, not a short text")
        if choices is not None and v not in choices:
            raise StateError(f"{path} is {v[:40]!r}, not one of {', '.join(choices)}")
        return v

    return Value(check, "a text")


@checked
def flag() -> Value:
    """A bool."""

    def check(v, ctx, path):
        if not isinstance(v, (bool, np.bool_)):
            raise StateError(f"{path} is {_kind(v)}, not true or false")
        return v

    return Value(check, "true or false")


@checked
def maybe(inner: Value) -> Value:
    """None, or what ``inner`` accepts."""
    return Value(lambda v, ctx, path: None if v is None else inner.check(v, ctx, path), f"null or {inner.words}")


@checked
def anything() -> Value:
    """Any value a session can hold, unchecked: only for values no step, layer or summary reads (a label)."""
    return Value(lambda v, ctx, path: v, "anything")


@checked
def array(decl: Field) -> Value:
    """An array declared as a :class:`Field` (inside a record or a list)."""
    return Value(lambda v, ctx, path: check_array(v, decl, ctx, path), f"an array of {decl.dtype}")


@checked
def items(inner: Value, max_length: Bound = MAX_COUNT, kind: type = list) -> Value:
    """A list (or a tuple, ``kind=tuple``) of at most ``max_length`` values ``inner`` accepts, copied."""

    def check(v, ctx, path):
        if not isinstance(v, kind):
            raise StateError(f"{path} is {_kind(v)}, not a {kind.__name__}")
        most = evaluate(max_length, ctx)
        if len(v) > most:
            raise StateError(f"{path} holds {len(v)} items, more than {_num(most)}")
        return kind(inner.check(x, ctx, f"{path}[{i}]") for i, x in enumerate(v))

    return Value(check, f"a {kind.__name__}")


@checked
def record(**fields: Value) -> Value:
    """A dict with exactly these keys, each value checked, copied."""

    def check(v, ctx, path):
        if not isinstance(v, dict):
            raise StateError(f"{path} is {_kind(v)}, not a mapping")
        if set(v) != set(fields):
            odd = sorted(map(str, set(v) ^ set(fields)))
            raise StateError(f"{path} has other keys than a {path.rsplit('.', 1)[-1]} holds ({', '.join(odd)[:80]})")
        return {k: fields[k].check(v[k], ctx, f"{path}.{k}") for k in fields}

    return Value(check, "a mapping")


@checked
def check_mapping(value: Any, path: str, keys: tuple[str, ...]) -> Mapping[str, Any]:
    """``value`` as a mapping holding at least ``keys``; StateError naming the first missing one otherwise."""
    if not isinstance(value, Mapping):
        raise StateError(f"{path} is {_kind(value)}, not a mapping")
    for k in keys:
        if k not in value:
            raise StateError(f"{path} has no {k!r} entry")
    return value


@checked
def difference(a: Any, b: Any, path: str) -> str | None:
    """Where two keyframes (nested mappings, sequences, arrays, dataclasses, scalars) first differ, or None.

    Arrays compare by dtype, shape and value (NaN equal to NaN); the answer reads
    ``state.algorithm.grid: values differ``. (``sudoku_lab.testing.first_difference`` is the kit's twin.)
    """
    if a is b:
        return None
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return f"{path}: an array on one side only"
        if a.dtype != b.dtype or a.shape != b.shape:
            return f"{path}: {a.dtype}{list(a.shape)} against {b.dtype}{list(b.shape)}"
        same = np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
        return None if same else f"{path}: values differ"
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if set(a) != set(b):
            return f"{path}: keys differ ({', '.join(sorted(map(str, set(a) ^ set(b))))})"
        for k in a:
            d = difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        for i, (x, y) in enumerate(zip(a, b)):
            d = difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None if len(a) == len(b) else f"{path}: {len(a)} items against {len(b)}"
    if isinstance(a, Puzzle) or isinstance(b, Puzzle):
        return None if a == b else f"{path}: another puzzle"
    if dataclasses.is_dataclass(a) and not isinstance(a, type) and type(a) is type(b):
        for f in dataclasses.fields(a):
            d = difference(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
            if d:
                return d
        return None
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return None  # NaN and NaN
    try:
        same = bool(a == b)
    except Exception:  # noqa: BLE001 - an object whose == gives no truth value is not equal to another
        same = False
    return None if same else f"{path}: {_short(a)} against {_short(b)}"


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


# ------------------------------------------------------- what a state must be
@checked
def require_givens(grid: np.ndarray, puzzle: Puzzle, path: str) -> None:
    """StateError unless every given of ``puzzle`` is in ``grid`` (shape (C,)) at its cell."""
    givens = puzzle.grid > 0
    moved = givens & (grid != puzzle.grid)
    if moved.any():
        cell = int(np.flatnonzero(moved)[0])
        r, c = divmod(cell, puzzle.N)
        raise StateError(
            f"{path}[{cell}] (row {r + 1}, column {c + 1}) is {int(grid[cell])}, not the given {int(puzzle.grid[cell])}"
        )


@checked
def require_box_permutations(grid: np.ndarray, puzzle: Puzzle, path: str) -> None:
    """StateError unless every box of ``grid`` (shape (C,)) holds each digit 1..N once (the permutation solvers')."""
    from ..model.geometry import geometry

    geo = geometry(puzzle.n)
    N = puzzle.N
    for b in range(N):
        digits = np.sort(grid[geo.units[2 * N + b]])
        if not np.array_equal(digits, np.arange(1, N + 1)):
            raise StateError(f"{path}: box {b + 1} does not hold each digit 1..{N} once")
