"""What a solver declares so that every front end can show it without knowing it.

A solver class states, next to its parameters:

* its :class:`Objective`: what ``Snapshot.cost`` means for it (always minimised,
  ``>= 0``, ``0`` iff the grid is a solution) and, for papers that maximise a
  fitness, which trace column holds that native objective;
* its trace :class:`Column` s and the :class:`Axis` each one is drawn on, with
  optional :class:`Threshold` lines whose value is one of its parameters
  (RESEDA's ``beta`` drawn on the ``rho`` axis);
* its snapshot :class:`Layer` s: dtype and shape in symbols (``C`` cells,
  ``N`` digits, ``n`` box size, a parameter name such as ``population``, or
  ``"*"``), and a *role* front ends recognise (``probability``, ``runs``,
  ``cells``, ``cell_pairs``, ...), checked against real snapshots by the
  registry-wide contract tests (:func:`check_layers`).

The lab chooses its views, its board overlays, its curve axes and its
"runs" table columns from these declarations, and ``figures`` draws the same
curves, so a new solver edits only its own files.

Roles
-----
``probability``
    float (C, N), rows summing to 1: a probability model p[cell, digit]
    (probability view, board shading, exported figure).
``entropy``
    float (C,) in [0, 1]: a per-cell uncertainty map.
``runs``
    records (tuple of dicts), one per finished run; ``columns`` name the keys
    and their headers (the lab's runs table). Its ``"outcome"`` key, when
    declared, colours solved runs.
``cells``
    bool (C,): cells to highlight on the board (a zone, a tabu cell...).
``cell_pairs``
    int (k, 2): linked cells drawn on the board (a swap).
``struck``
    bool (C, N): candidates struck out on the board's pencil marks.
``domains``
    bool (C, N): candidates still allowed (pencil marks).
``population``
    float (P,): fitness or cost of each member of a population.
``unit_counts``
    int (2, N): a count per row (row 0) and per column (row 1), e.g. the
    clashes in each row and column; drawn as small numbers in the board's
    margins (rows on the right, columns below).
``ac3``
    object: a :class:`sudoku_lab.exact.ac3.AC3Result`, the propagation the solver
    ran last (a prefilter, or the AC3 of its latest move), replayed arc by
    arc in the lab's AC3 view. An int layer named ``<name>_iteration``, if
    declared, says which iteration it belongs to (0 = before the first).
``tabu``
    int (k, 4): a tabu list, oldest first, rows ``(cell, digit, age,
    reason)``; ``age`` in iterations since the feature entered; ``reason`` 0
    for an assignment a move undid, 1 for an assignment that wiped out (the
    lab's tabu view and board marks, fading with age). A ``records`` layer
    named ``candidates`` with keys ``k, cell, digit, dropped, cost, status``,
    if declared, is the candidate list of the latest iteration.
``nests``
    int or float (P,): the cost of each member of a population kept in
    fixed slots (cuckoo nests): the lab's nests view draws them sorted, with
    the best marked. Optional companions read by name: ``best_nest`` (int),
    ``abandoned`` (bool (P,)), ``nest_history`` (int (K, P), one row per
    recorded iteration) with ``history_stride`` (int).
Other role strings are allowed: a plugin's own view can look for them.

Phases
------
A solver may declare the :class:`Phase` s of one iteration, in the paper's words
(RESEDA: sample, select, update, restart check). ``Solver.step_phase()`` then
advances one phase and returns a :class:`~sudoku_lab.solvers.base.PhaseStep`
whose ``changed`` mapping says what that phase changed, under these keys
(:data:`CHANGE_KEYS`; views highlight the ones they know, and the conformance kit
checks dtypes and shapes with :func:`check_changes`):

``cells``
    bool (C,): board cells whose digit the phase changed in ``Snapshot.grid``.
``rows``
    bool (C,): rows of the ``probability`` layer the phase moved.
``sample``
    int8 (C,): the grid the phase drew, chose or built (RESEDA: the step's best sample).
``selected``
    int64 (k,): indices of what the phase selected or kept, best first (RESEDA:
    the kept samples, into the step's samples).
``costs``
    int64 (k,): the costs of the ``selected`` ones, in the same order.
``members``
    int64 (k,): members of a population the phase replaced or abandoned (nests, individuals).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Sequence, cast

import numpy as np

from .._checks import checked

if TYPE_CHECKING:  # names of annotations only: these modules import this one
    from .base import Snapshot, Solver

__all__ = [
    "Objective",
    "Axis",
    "Column",
    "Threshold",
    "Layer",
    "Phase",
    "KNOWN_ROLES",
    "CHANGE_KEYS",
    "check_changes",
    "check_layers",
    "check_declarations",
    "COST_AXIS",
    "FRACTION_AXIS",
    "PALETTE",
    "column_colours",
]

SCALAR_KINDS = ("int", "float", "str", "bool", "records", "object")
KNOWN_ROLES = (
    "probability",
    "entropy",
    "runs",
    "cells",
    "cell_pairs",
    "struck",
    "domains",
    "population",
    "unit_counts",
    "ac3",
    "tabu",
    "nests",
)


@checked
@dataclass(frozen=True)
class Objective:
    """What the solver's ``cost`` measures, and its paper's own objective if that differs.

    The rule for every solver: ``Snapshot.cost`` is minimised, is ``>= 0`` and
    is ``0`` exactly when the grid is a solution. A paper that maximises a
    fitness (NB-COIN, the GA, hill climbing) still reports such a cost, and
    traces its fitness as the column named by ``native``.

    Attributes
    ----------
    cost : str
        What the cost counts, for labels ("missing symbols", "unfilled cells").
    native : str, optional
        Trace column of the paper's own objective.
    native_label : str
        How the paper calls it ("fitness f = w1 f1 + w2 f2").
    native_sense : {"max", "min"}
        Whether the paper maximises or minimises it.
    """

    cost: str = "missing symbols"
    native: str | None = None
    native_label: str = ""
    native_sense: str = "max"

    def __post_init__(self):
        if self.native_sense not in ("max", "min"):
            raise ValueError(f"native_sense must be 'max' or 'min', got {self.native_sense!r}")


@checked
@dataclass(frozen=True)
class Axis:
    """A y axis of the convergence plot.

    Attributes
    ----------
    key : str
        Identifier columns refer to.
    label : str
        Axis title.
    side : {"left", "right"}
        Where it is drawn (at most one axis per side).
    limits : (float, float), optional
        Fixed range (e.g. (0, 1) for fractions); else it follows the data.
    """

    key: str
    label: str
    side: str = "left"
    limits: tuple[float, float] | None = None

    def __post_init__(self):
        if self.side not in ("left", "right"):
            raise ValueError(f"axis {self.key!r}: side must be 'left' or 'right', got {self.side!r}")


COST_AXIS = Axis("cost", "cost (missing symbols)", "left")
FRACTION_AXIS = Axis("fraction", "fraction", "right", (0.0, 1.0))


@checked
@dataclass(frozen=True)
class Threshold:
    """A horizontal line at a parameter's current value (``beta`` on the ``rho`` axis)."""

    param: str
    label: str = ""
    meaning: str = ""


@checked
@dataclass(frozen=True)
class Column:
    """A trace column: one value per recorded iteration.

    Attributes
    ----------
    name : str
        Column key in ``Snapshot.trace``.
    label : str
        Legend text.
    axis : str
        Key of the :class:`Axis` it is drawn on.
    unit : str
        Unit for tooltips and exported tables ("" for counts).
    style : {"solid", "dashed", "dotted", "steps"}
        Line style hint.
    color : str, optional
        A colour (hex) to use; else the front end's palette in declaration order.
    shown : bool
        Drawn by default (others can be switched on).
    thresholds : tuple of Threshold
        Parameter values drawn as lines on this column's axis.
    """

    name: str
    label: str = ""
    axis: str = "cost"
    unit: str = ""
    style: str = "solid"
    color: str | None = None
    shown: bool = True
    thresholds: tuple[Threshold, ...] = ()

    def __post_init__(self):
        if not self.label:
            object.__setattr__(self, "label", self.name.replace("_", " "))
        if self.style not in ("solid", "dashed", "dotted", "steps"):
            raise ValueError(f"column {self.name!r}: unknown style {self.style!r}")


#: The keys of a phase's ``changed`` mapping: ``key -> (dtype, shape)`` (see "Phases" above).
CHANGE_KEYS: Mapping[str, tuple[str, tuple]] = {
    "cells": ("bool", ("C",)),
    "rows": ("bool", ("C",)),
    "sample": ("int8", ("C",)),
    "selected": ("int64", ("*",)),
    "costs": ("int64", ("*",)),
    "members": ("int64", ("*",)),
}


@checked
@dataclass(frozen=True)
class Phase:
    """One phase of a solver's iteration, as the paper names it.

    Attributes
    ----------
    name : str
        Short name for buttons and captions (``"sample"``, ``"restart check"``).
    words : str
        What the phase does, in one line and in the paper's words where it has them.
    repeats : bool
        The phase may run several times in a row within one iteration (ACS's "place": one ant's
        one placement per step). Its step says which phase comes next (``_step_phase`` returns it
        as a fourth value): this phase again, or a later one. Default False: each phase runs once
        and the next one follows.
    """

    name: str
    words: str
    repeats: bool = False

    def __post_init__(self):
        if not self.name or not self.words or "\n" in self.name + self.words:
            raise ValueError(f"phase {self.name!r}: a name and one line of words are required")


@checked
def check_changes(changed: Mapping, snapshot: Snapshot) -> list[str]:
    """Compare a phase's ``changed`` mapping with :data:`CHANGE_KEYS`; a list of problems (empty if none).

    Every key must be documented, every value a read-only array of its key's dtype and shape (``C``
    bound from the snapshot's puzzle).
    """
    problems = []
    for key, v in changed.items():
        if key not in CHANGE_KEYS:
            problems.append(f"changed key {key!r} is not one of {', '.join(CHANGE_KEYS)}")
            continue
        dtype, shape = CHANGE_KEYS[key]
        if not isinstance(v, np.ndarray):
            problems.append(f"changed[{key!r}] should be an array, got {type(v).__name__}")
            continue
        if v.dtype != np.dtype(dtype):
            problems.append(f"changed[{key!r}] has dtype {v.dtype}, expected {dtype}")
        dims = _dims(shape, snapshot, key)
        if v.ndim != len(dims) or any(w is not None and w != s for w, s in zip(dims, v.shape)):
            problems.append(f"changed[{key!r}] has shape {v.shape}, expected {shape}")
        if v.flags.writeable:
            problems.append(f"changed[{key!r}] is writeable (a phase step holds read-only arrays)")
    if "costs" in changed and "selected" in changed and len(changed["costs"]) != len(changed["selected"]):
        problems.append("changed['costs'] and changed['selected'] differ in length")
    return problems


@checked
@dataclass(frozen=True)
class Layer:
    """A snapshot layer: an array, a value or records the solver exposes for display and analysis.

    Attributes
    ----------
    name : str
        Key in ``Snapshot.layers``.
    help : str
        What it holds.
    dtype : str
        A numpy dtype name for arrays (``"float64"``, ``"int8"``, ``"bool"``),
        or, with no shape, ``"int"``, ``"float"``, ``"str"``, ``"bool"`` for scalars, ``"records"`` for a
        tuple of dicts, ``"object"`` for anything else.
    shape : tuple, optional
        Array shape in symbols: ints, ``"C"``, ``"N"``, ``"n"``, a parameter
        name, or ``"*"`` (any length). None for non-arrays.
    role : str, optional
        What front ends may do with it (see the module docstring).
    columns : tuple of (key, header)
        For ``records``: the keys every record has and their table headers.
    optional : bool
        The layer may be None (e.g. no restart zone yet).
    """

    name: str
    help: str
    dtype: str
    shape: tuple | None = None
    role: str | None = None
    columns: tuple[tuple[str, str], ...] = ()
    optional: bool = False

    def __post_init__(self):
        if self.shape is None:
            if self.dtype not in SCALAR_KINDS:
                raise ValueError(
                    f"layer {self.name!r}: without a shape, dtype must be one of "
                    f"{', '.join(SCALAR_KINDS)}, got {self.dtype!r}"
                )
        else:
            np.dtype(self.dtype)  # raises TypeError on a bad name
        if self.dtype == "records" and not self.columns:
            raise ValueError(f"layer {self.name!r}: records need their columns")

    def describe(self) -> str:
        if self.shape is not None:
            shape = "(" + ", ".join(str(s) for s in self.shape) + ("," if len(self.shape) == 1 else "") + ")"
            return f"{self.help} [{self.dtype} {shape}]"
        return f"{self.help} [{self.dtype}]"


#: Okabe-Ito colours for columns that do not declare one (safe for colour-vision deficiencies).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")


@checked
def column_colours(columns: Sequence[Column]) -> dict[str, str]:
    """Each declared trace column's colour: its own, else the next palette colour not already used.

    The lab and :func:`sudoku_lab.analysis.figures.convergence_figure` both use it, so their curves agree.
    """
    taken = {c.color for c in columns if c.color}
    free = iter([c for c in PALETTE if c not in taken] + list(PALETTE))
    return {c.name: c.color or next(free) for c in columns}


def _dims(shape: tuple, snapshot, layer: str) -> list[int | None]:
    pz = snapshot.puzzle
    symbols = {"C": pz.C, "N": pz.N, "n": pz.n}
    out: list[int | None] = []
    for s in shape:
        if isinstance(s, int):
            out.append(s)
        elif s == "*":
            out.append(None)
        elif s in symbols:
            out.append(symbols[s])
        elif s in snapshot.params:
            out.append(int(snapshot.params[s]))
        else:
            raise ValueError(f"layer {layer!r}: unknown shape symbol {s!r} (use C, N, n, '*' or a parameter name)")
    return out


@checked
def check_layers(declared: tuple[Layer, ...], snapshot: Snapshot) -> list[str]:
    """Compare a snapshot's layers with their declarations; a list of problems (empty if none).

    Checks that the declared and present names agree, array dtypes and shapes
    (symbols bound from the puzzle and the parameters), that arrays are
    read-only, scalar types, and that records carry their declared keys.
    """
    problems = []
    present = dict(snapshot.layers)
    names = [d.name for d in declared]
    for extra in sorted(set(present) - set(names)):
        problems.append(f"layer {extra!r} is in the snapshot but not declared")
    for d in declared:
        if d.name not in present:
            problems.append(f"declared layer {d.name!r} is missing from the snapshot")
            continue
        v = present[d.name]
        if v is None:
            if not d.optional:
                problems.append(f"layer {d.name!r} is None but not declared optional")
            continue
        if d.shape is not None:
            if not isinstance(v, np.ndarray):
                problems.append(f"layer {d.name!r} should be an array, got {type(v).__name__}")
                continue
            if v.dtype != np.dtype(d.dtype):
                problems.append(f"layer {d.name!r} has dtype {v.dtype}, declared {d.dtype}")
            dims = _dims(d.shape, snapshot, d.name)
            if v.ndim != len(dims) or any(w is not None and w != s for w, s in zip(dims, v.shape)):
                problems.append(
                    f"layer {d.name!r} has shape {v.shape}, declared {d.shape} = "
                    f"{tuple('*' if w is None else w for w in dims)}"
                )
            if v.flags.writeable:
                problems.append(f"layer {d.name!r} is writeable (snapshots must hold read-only arrays)")
        elif d.dtype == "int":
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                problems.append(f"layer {d.name!r} should be an int, got {v!r}")
        elif d.dtype == "float":
            if not isinstance(v, (float, int, np.floating, np.integer)) or isinstance(v, bool):
                problems.append(f"layer {d.name!r} should be a number, got {v!r}")
            elif not math.isfinite(float(v)):
                problems.append(f"layer {d.name!r} is not finite: {v!r}")
        elif d.dtype == "bool":
            if not isinstance(v, (bool, np.bool_)):
                problems.append(f"layer {d.name!r} should be a bool, got {v!r}")
        elif d.dtype == "str":
            if not isinstance(v, str):
                problems.append(f"layer {d.name!r} should be a str, got {type(v).__name__}")
        elif d.dtype == "records":
            if not isinstance(v, tuple):
                problems.append(f"layer {d.name!r} should be a tuple of records, got {type(v).__name__}")
                continue
            keys = {k for k, _ in d.columns}
            for i, rec in enumerate(v):
                if not isinstance(rec, Mapping) or not keys <= set(rec):
                    problems.append(f"layer {d.name!r} record {i} lacks keys {sorted(keys - set(rec or ()))}")
                    break
    return problems


@checked
def check_declarations(cls: type) -> list[str]:
    """Consistency of a solver class's declarations among themselves (no snapshot needed)."""
    # What it reads are a Solver class's declarations; the annotation stays ``type`` (the argument checks
    # read it at run time and take any class).
    cls = cast("type[Solver]", cls)
    problems = []
    axes = {a.key: a for a in cls.axes}
    if len(axes) != len(cls.axes):
        problems.append("two axes share a key")
    sides = [a.side for a in cls.axes]
    if len(set(sides)) != len(sides):
        problems.append("at most one axis per side")
    names = [c.name for c in cls.columns]
    if len(set(names)) != len(names):
        problems.append("two trace columns share a name")
    if "iteration" in names:
        problems.append("'iteration' is implicit; do not declare it")
    params = {p.name for p in cls.params}
    for c in cls.columns:
        if c.axis not in axes:
            problems.append(f"column {c.name!r} is on axis {c.axis!r}, which is not declared")
        for t in c.thresholds:
            if t.param not in params:
                problems.append(f"column {c.name!r}: threshold parameter {t.param!r} is not a parameter")
    if "cost" not in names:
        problems.append("every solver traces 'cost'")
    if cls.objective.native is not None and cls.objective.native not in names:
        problems.append(f"objective.native {cls.objective.native!r} is not a trace column")
    if not all(isinstance(d, Layer) for d in cls.layers):
        return problems + ["layers must be a tuple of Layer declarations"]
    lnames = [d.name for d in cls.layers]
    if len(set(lnames)) != len(lnames):
        problems.append("two layers share a name")
    for d in cls.layers:
        for s in d.shape or ():
            if isinstance(s, str) and s not in ("C", "N", "n", "*") and s not in params:
                problems.append(f"layer {d.name!r}: shape symbol {s!r} is neither C, N, n, '*' nor a parameter")
    for i, ex in enumerate(getattr(cls, "examples", ())):
        if not (isinstance(ex, tuple) and len(ex) == 2 and isinstance(ex[1], str) and hasattr(ex[0], "keys")):
            problems.append(f"examples[{i}] must be a (params mapping, puzzle name) pair")
            continue
        unknown = sorted(set(ex[0]) - params)
        if unknown:
            problems.append(f"examples[{i}] names unknown parameters: {', '.join(unknown)}")
    phases = getattr(cls, "phases", ())
    if not isinstance(phases, tuple) or not all(isinstance(ph, Phase) for ph in phases):
        problems.append("phases must be a tuple of Phase declarations")
    elif len({ph.name for ph in phases}) != len(phases):
        problems.append("two phases share a name")
    elif len(phases) == 1:
        problems.append("one phase is the whole iteration: declare none, or two or more")
    return problems
