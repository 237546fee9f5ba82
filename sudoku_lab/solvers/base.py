"""The solver protocol every algorithm implements, its snapshots, parameters and registry.

A solver is a thin Python class over numba kernels. Its state changes only in
:meth:`Solver.step`, so a run is reproducible from ``(puzzle, params, seed)``
and any iteration can be rebuilt from a :meth:`Solver.state_dict` keyframe.

::

    solver = create("reseda", alpha=0.7)
    solver.reset(puzzle, seed=1)
    solver.step(10)                 # ten iterations, one kernel call per run segment
    snap = solver.snapshot()        # read-only copies, safe to hand to another thread
    solver.set_params(alpha=0.9)    # logged as an Event at the current iteration
    key = solver.state_dict()       # ... later: solver.load_state(key) replays exactly
    step = solver.step_phase()      # one phase of the next iteration, for solvers declaring phases

Phases. A solver may declare the phases of one iteration (``phases``, :class:`~.declare.Phase`,
in the paper's words). :meth:`Solver.step_phase` advances one phase and returns a
:class:`PhaseStep` saying what it changed; :attr:`Solver.phase` is the index of the next phase
(0 between iterations). Stepping phase by phase is the same run, draw for draw, as stepping by
iterations. The rules mid-iteration (``phase > 0``):

- :meth:`Solver.step` first finishes the current iteration through its remaining phases, and
  counts it as one of its ``n`` (so ``step(1)`` after two phases ends that iteration);
- :meth:`Solver.set_params` refuses (ParameterError): a change applies between iterations;
- :meth:`Solver.snapshot` shows the state so far (``Snapshot.phase`` > 0; ``iteration`` counts
  whole iterations done, and the trace gets the iteration's row when it ends);
- :meth:`Solver.state_dict` / :meth:`Solver.load_state` are exact: the keyframe holds the phase
  and what the iteration has computed so far;
- a :class:`~sudoku_lab.stepping.history.History` keeps its keyframes and seeks at iteration
  boundaries, and records (or starts from) a solver in the middle of an iteration all the same.

A solver that declares no phases raises RuntimeError from :meth:`Solver.step_phase` (front ends
offer phase steps only where ``phases`` is not empty).

Parameters are declared once (:class:`Param`) and read by validation, the CLI
and the UI forms alike. The objective, the trace columns with their axes and
the snapshot layers with their roles are declared too (:mod:`.declare`): front
ends choose views, overlays and curves from them and never branch on a
concrete class. :func:`register` checks the declarations and refuses a name
already taken; solvers outside the package register the same way (see
:mod:`sudoku_lab.plugins` for entry-point plugins).
"""

from __future__ import annotations

import copy
import math
import operator
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping

import numpy as np
import numpy.typing as npt

from .._checks import checked
from .._kernels.status import BUDGET, C_EVALUATIONS, C_ITERATION, RUNNING, SOLVED
from ..errors import ParameterError, ParameterTypeError, StateError, SudokuLabError
from ..model.geometry import geometry
from ..model.puzzle import Puzzle
from ..plugins import Registry
from .declare import COST_AXIS, Axis, Column, Layer, Objective, Phase, check_declarations
from .keyframes import (
    Counters,
    Field,
    Value,
    array as array_of,
    check_array,
    check_mapping,
    difference,
    integer,
    items,
    maybe,
    require_range,
    text,
)

__all__ = [
    "DEFAULT_SEED",
    "Param",
    "Event",
    "Phase",
    "PhaseStep",
    "Snapshot",
    "Trace",
    "Solver",
    "KernelSolver",
    "Slot",
    "Status",
    "register",
    "unregister",
    "registry",
    "get_solver_class",
    "create",
    "frozen_copy",
]

#: The seed of a run when none is given: ``sudoku-lab solve``'s ``--seed`` and the lab window's seed box
#: start from it, so the window's first run is the command line's.
DEFAULT_SEED = 0


@checked
class Status:
    """Solver status values (plain strings, so they serialise as they read)."""

    READY = "ready"  #: reset() not called yet
    RUNNING = "running"
    SOLVED = "solved"
    FAILED = "failed"  #: gave up by its own rule (e.g. RESEDA with restart="none" after rho > beta)

    DONE = (SOLVED, FAILED)


# ----------------------------------------------------------------- parameters
@checked
@dataclass(frozen=True)
class Param:
    """Declaration of one solver parameter.

    Attributes
    ----------
    name : str
        Keyword used by the API, ``--name`` on the CLI (underscores become dashes).
    kind : {"float", "int", "bool", "choice"}
        Value type.
    default : object
        The paper's value (or ours, said in ``help``).
    help : str
        What it means, in the paper's words where possible.
    low, high : float, optional
        Inclusive bounds, unless ``low_open`` / ``high_open``.
    choices : tuple of str, optional
        Allowed values of a ``choice`` parameter.
    label : str
        Short label for forms.
    paper : str
        Where the paper defines it (e.g. "RESEDA 2.2").
    live : bool
        True if a change applies while running (between chunks); False if it
        needs a reset.
    when : str
        When a live change takes effect ("next iteration", "next run", ...).
    """

    name: str
    kind: str
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] | None = None
    label: str = ""
    paper: str = ""
    live: bool = True
    when: str = "next iteration"
    step: float | None = None

    def __post_init__(self):
        if self.kind not in ("float", "int", "bool", "choice"):
            raise TypeError(f"unknown parameter kind {self.kind!r}")
        if not self.label:
            object.__setattr__(self, "label", self.name.replace("_", " "))

    def range_text(self) -> str:
        """The allowed values in words: ``(0, 1]``, ``one of sort, groups``, ``integer >= 1``."""
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices or ())
        if self.kind == "bool":
            return "true or false"
        if self.low is not None and self.high is not None:
            lo = "(" if self.low_open else "["
            hi = ")" if self.high_open else "]"
            word = "an integer in " if self.kind == "int" else ""
            return f"{word}{lo}{_num(self.low)}, {_num(self.high)}{hi}"
        if self.low is not None:
            op = ">" if self.low_open else ">="
            return f"{'an integer' if self.kind == 'int' else 'a number'} {op} {_num(self.low)}"
        return "an integer" if self.kind == "int" else "a number"

    def validate(self, value: Any) -> Any:
        """Coerce ``value`` (Python value or CLI string) to the parameter's type, or raise.

        Raises
        ------
        ParameterError
            Naming the parameter, the bad value and the allowed range (a ParameterTypeError for a bool given
            for a number).
        """
        v = value
        if self.kind in ("int", "float") and isinstance(v, (bool, np.bool_)):
            # A bool is an int to Python (True == 1), so float(True) would pass as 1.0: a TOML `alpha = true`
            # or set_params(alpha=True) is a mistake, refused like any other value of the wrong kind.
            raise ParameterTypeError(
                f"{self.name} must be {self.range_text()}, got {value!r} (a bool, not a number)", name=self.name
            )
        try:
            if self.kind == "bool":
                if isinstance(v, str):
                    low = v.strip().lower()
                    if low not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                        raise ValueError
                    v = low in ("1", "true", "yes", "on")
                elif isinstance(v, (bool, np.bool_)) or v in (0, 1):
                    v = bool(v)
                else:
                    raise ValueError
            elif self.kind == "choice":
                v = str(v).strip()
                if v not in (self.choices or ()):
                    raise ValueError
            elif self.kind == "int":
                if isinstance(v, str):
                    v = v.strip()
                fv = float(v)
                if not fv.is_integer():
                    raise ValueError
                v = int(fv)
            else:
                v = float(v)
                if not math.isfinite(v):
                    raise ValueError
        except (TypeError, ValueError):
            raise ParameterError(f"{self.name} must be {self.range_text()}, got {value!r}", name=self.name) from None
        if self.kind in ("int", "float"):
            bad = (self.low is not None and (v < self.low or (self.low_open and v == self.low))) or (
                self.high is not None and (v > self.high or (self.high_open and v == self.high))
            )
            if bad:
                raise ParameterError(f"{self.name} must be {self.range_text()}, got {_num(v)}", name=self.name)
        return v


def _num(x) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


@checked
@dataclass(frozen=True)
class Event:
    """Something that happened at an iteration: a parameter change, a restart, a prefilter.

    Attributes
    ----------
    iteration : int
        Iteration count when it happened (the change applies from the next one).
    kind : str
        ``"param"``, ``"restart"``, ``"run_end"``, ``"info"``...
    name : str
        Parameter name, or restart kind.
    old, new : object
        Old and new value (parameters) or details.
    """

    iteration: int
    kind: str
    name: str
    old: Any = None
    new: Any = None

    def describe(self) -> str:
        if self.kind == "param":
            return f"it {self.iteration}: {self.name} {self.old!r} -> {self.new!r}"
        detail = f" {self.new}" if self.new not in (None, "") else ""
        return f"it {self.iteration}: {self.kind} {self.name}{detail}"


# -------------------------------------------------------------------- traces
@checked
class Trace:
    """Append-only per-iteration series (convergence curves) with bounded memory.

    Rows are ``float64`` with named columns; column 0 is always the iteration.
    When more than ``max_rows`` rows accumulate, every other row is dropped and
    the recording stride doubles, so an hour-long run keeps a few hundred
    thousand points that still span it all. The rows kept are the ``stride``-th
    ones counted from the first, so the first row always stays, and the latest
    row appended is always shown after them even when the stride skips it: a
    solved run's curves end at its real final values (its best cost 0), never
    at the last row the stride happened to keep. Which rows are kept depends
    only on how many were appended, never on how they came in chunks.

    Views returned by :meth:`arrays` never change afterwards: rows below the
    current length are never written again, compaction writes a new buffer,
    and the latest row, when the stride skips it, comes in a fresh copy. That
    is what makes them safe to hand to the GUI thread.
    """

    def __init__(self, columns: tuple[str, ...], max_rows: int = 200_000):
        if columns[0] != "iteration":
            raise ValueError("the first trace column must be 'iteration'")
        if int(max_rows) < 2:
            raise ValueError(f"a trace keeps at least 2 rows (its first and its latest), got max_rows={max_rows}")
        self.columns = tuple(columns)
        self.max_rows = int(max_rows)
        self._buf = np.empty((1024, len(columns)))
        self._len = 0  # rows kept on the stride: the n-th row appended is kept when n % stride == 0
        self.stride = 1
        self._seen = 0  # rows appended since the trace began
        self._tail: np.ndarray | None = None  # the latest row appended, when the stride skipped it

    def __len__(self) -> int:
        return self._len + (self._tail is not None)

    def extend(self, rows: np.ndarray) -> None:
        """Append rows (shape (k, len(columns))), keeping one in ``stride`` and always the latest."""
        k = rows.shape[0]
        if k == 0:
            return
        keep = rows
        if self.stride > 1:
            keep = rows[(self._seen + np.arange(k)) % self.stride == 0]
        self._seen += k
        need = self._len + keep.shape[0]
        if need > self._buf.shape[0]:
            new = np.empty((max(need, 2 * self._buf.shape[0]), len(self.columns)))
            new[: self._len] = self._buf[: self._len]
            self._buf = new
        self._buf[self._len : need] = keep
        self._len = need
        while self._len > self.max_rows:  # rows 0, 2, 4... are the appended rows 0, 2 stride, 4 stride...
            kept = self._buf[0 : self._len : 2].copy()
            self._buf = np.empty((max(2 * kept.shape[0], 1024), len(self.columns)))
            self._buf[: kept.shape[0]] = kept
            self._len = kept.shape[0]
            self.stride *= 2
        self._tail = None if (self._seen - 1) % self.stride == 0 else np.array(rows[-1], dtype=float)

    def arrays(self) -> Mapping[str, np.ndarray]:
        """Read-only views of each column up to the current length (the latest row last)."""
        rows = self._buf[: self._len]
        if self._tail is not None:
            rows = np.concatenate((rows, self._tail[None, :]))
        out = {}
        for j, name in enumerate(self.columns):
            v = rows[:, j].view()
            v.setflags(write=False)
            out[name] = v
        return MappingProxyType(out)

    def state(self) -> dict:
        return {
            "columns": self.columns,
            "max_rows": self.max_rows,
            "rows": self._buf[: self._len].copy(),
            "stride": self.stride,
            "seen": self._seen,
            "tail": None if self._tail is None else self._tail.copy(),
        }

    @classmethod
    def from_state(cls, st: Any, columns: tuple[str, ...] | None = None, path: str = "trace") -> Trace:
        """The trace :meth:`state` saved, checked (StateError naming ``path``): its ``columns`` when given."""
        st = check_mapping(st, path, ("columns", "max_rows", "rows", "stride", "seen", "tail"))
        saved = items(text(), 1000, kind=tuple if isinstance(st["columns"], tuple) else list).check(
            st["columns"], {}, f"{path}.columns"
        )
        if columns is not None and tuple(saved) != tuple(columns):
            raise StateError(f"{path}.columns are {', '.join(saved)[:80]}, not {', '.join(columns)}")
        if not saved or saved[0] != "iteration":
            raise StateError(f"{path}.columns do not begin with 'iteration'")
        ctx = {"width": len(saved)}
        max_rows = integer(2, 10**8).check(st["max_rows"], ctx, f"{path}.max_rows")
        rows = check_array(st["rows"], Field("float64", ((0, max_rows), "width"), finite=False), ctx, f"{path}.rows")
        stride = integer(1, 2**62).check(st["stride"], ctx, f"{path}.stride")
        seen = integer(0, 2**62).check(st["seen"], ctx, f"{path}.seen")
        if stride & (stride - 1) or rows.shape[0] != (seen + stride - 1) // stride:
            raise StateError(
                f"{path}: {rows.shape[0]} rows kept of {seen} appended is not what a stride of {stride} keeps"
            )
        tail = maybe(array_of(Field("float64", ("width",), finite=False))).check(st["tail"], ctx, f"{path}.tail")
        if tail is not None and (seen - 1) % stride == 0:
            raise StateError(f"{path}.tail is set, though the stride keeps the latest row")
        t = cls(tuple(saved), max_rows)
        t._buf = np.empty((max(1024, 2 * rows.shape[0]), len(t.columns)))
        t._buf[: rows.shape[0]] = rows
        t._len = rows.shape[0]
        t.stride = int(stride)
        t._seen = int(seen)
        t._tail = tail
        return t


#: What every keyframe holds (``phase`` and ``phase_state`` besides, since phases).
_KEYFRAME_KEYS = (
    "solver",
    "puzzle",
    "seed",
    "params",
    "rng",
    "iteration",
    "evaluations",
    "status",
    "events",
    "trace",
    "algorithm",
)
#: Most events a keyframe may hold, and most phase steps within one iteration (a keyframe taken mid-iteration).
MAX_EVENTS = 10_000_000
MAX_PHASE_STEPS = 1_000_000


def _check_event(v: Any, ctx: Mapping[str, Any], path: str) -> Event:
    if not isinstance(v, Event):
        raise StateError(f"{path} is {type(v).__name__}, not an event")
    integer(0, "iteration").check(v.iteration, ctx, f"{path}.iteration")
    text().check(v.kind, ctx, f"{path}.kind")
    text().check(v.name, ctx, f"{path}.name")
    return v


_EVENT = Value(_check_event, "an event")


# ------------------------------------------------------------------ snapshots
@checked
def frozen_copy(a: npt.ArrayLike) -> np.ndarray:
    """A read-only copy of an array (what every Snapshot field holds)."""
    out = np.array(a, copy=True)
    out.setflags(write=False)
    return out


@checked
@dataclass(frozen=True)
class Snapshot:
    """An immutable picture of a solver at one iteration.

    Every array is a read-only copy (or a view that is never written again),
    so a snapshot can cross threads and be kept while the solver runs on.

    Attributes
    ----------
    solver : str
        Registry name of the algorithm.
    puzzle : Puzzle
        The puzzle being solved.
    iteration : int
        Iterations done (RESEDA: EDA steps over all runs).
    evaluations : int
        Cost-function evaluations (sampled or visited grids).
    status : str
        A :class:`Status` value.
    grid : ndarray of int8, shape (C,)
        The solver's current answer (RESEDA: best sample of the latest step,
        which is a failed run's "final grid"); 0 where it has none.
    cost : int
        Cost of ``grid`` by the solver's :class:`~.declare.Objective`: minimised,
        ``>= 0``, ``0`` iff ``grid`` is a solution (RESEDA: missing symbols).
    best_grid : ndarray of int8, shape (C,)
        Lowest-cost grid seen since reset.
    best_cost : int
        Its cost.
    fixed : ndarray of bool, shape (C,)
        Cells the solver currently treats as given (givens, prefilled cells,
        a partial restart's zone).
    params : Mapping[str, object]
        Parameters in force.
    layers : Mapping[str, object]
        Algorithm-specific read-only arrays and values (see each solver's
        ``layers`` declaration).
    trace : Mapping[str, ndarray]
        Per-iteration series (column ``iteration`` plus the solver's
        declared ``columns``).
    events : tuple of Event
        Parameter changes, restarts and other marks since reset.
    phase : int
        Phases of the next iteration already done (:attr:`Solver.phase`): 0 at an iteration
        boundary, which is where every snapshot is taken unless the solver is stepped by phases.
    """

    solver: str
    puzzle: Puzzle
    iteration: int
    evaluations: int
    status: str
    grid: np.ndarray
    cost: int
    best_grid: np.ndarray
    best_cost: int
    fixed: np.ndarray
    params: Mapping[str, Any]
    layers: Mapping[str, Any] = field(default_factory=dict)
    trace: Mapping[str, np.ndarray] = field(default_factory=dict)
    events: tuple = ()
    phase: int = 0

    @property
    def solved(self) -> bool:
        return self.status == Status.SOLVED

    @property
    def done(self) -> bool:
        return self.status in Status.DONE


@checked
@dataclass(frozen=True)
class PhaseStep:
    """What one phase step did (:meth:`Solver.step_phase`): read-only, safe to hand to another thread.

    Attributes
    ----------
    iteration : int
        The iteration the phase belongs to, counted from 1: ``Solver.iteration`` once it ends.
    index : int
        The phase's index in the solver's ``phases``.
    name : str
        The phase's declared name.
    caption : str
        One line in words saying what happened ("kept the 10 best of 100 samples, costs 38 to 41").
    changed : Mapping[str, ndarray]
        What the phase changed, for views to highlight, under the keys of
        :data:`~sudoku_lab.solvers.declare.CHANGE_KEYS` (``cells``, ``rows``, ``sample``,
        ``selected``, ``costs``, ``members``); read-only arrays.
    ended : bool
        The phase ended the iteration (the last phase, or an earlier one that solved the puzzle):
        :attr:`Solver.phase` is back to 0.
    events : tuple of Event
        Events the phase logged (a run's end, a restart).
    """

    iteration: int
    index: int
    name: str
    caption: str
    changed: Mapping[str, np.ndarray] = field(default_factory=lambda: MappingProxyType({}))
    ended: bool = False
    events: tuple = ()


# -------------------------------------------------------------------- solvers
@checked
class Solver:
    """Base class of every algorithm (see the module docstring for the protocol).

    Subclasses set the class attributes, implement :meth:`_reset`,
    :meth:`_step` (advance up to ``n`` iterations, return how many were done),
    :meth:`_layers` and :meth:`_state` / :meth:`_load`, and keep
    ``self.iteration``, ``self.evaluations``, ``self.status``, ``self.grid``,
    ``self.cost``, ``self.best_grid``, ``self.best_cost`` and ``self.fixed``
    up to date.
    """

    #: Registry name.
    name: ClassVar[str] = ""
    #: Human name for menus.
    title: ClassVar[str] = ""
    #: Key of the paper in :mod:`sudoku_lab.citations` (``"maire2012"``): fills :attr:`paper`,
    #: :attr:`citation` and :attr:`reference` that the class does not set itself.
    cites: ClassVar[str] = ""
    #: Short citation shown next to the title ("Maire & Prissette 2012").
    paper: ClassVar[str] = ""
    #: The paper's full citation (authors, title, venue, year, DOI).
    citation: ClassVar[str] = ""
    #: Where the algorithm is described: a path in the repository's docs with an anchor.
    reference: ClassVar[str] = ""
    #: One-paragraph description for help texts and tooltips.
    description: ClassVar[str] = ""
    #: Position in menus and listings (lower first).
    order: ClassVar[int] = 100
    #: Parameter declarations.
    params: ClassVar[tuple[Param, ...]] = ()
    #: What ``cost`` measures, and the paper's own objective when it differs.
    objective: ClassVar[Objective] = Objective()
    #: Axes of the convergence plot (at most one per side).
    axes: ClassVar[tuple[Axis, ...]] = (COST_AXIS,)
    #: Trace columns after ``iteration`` (``cost`` always among them).
    columns: ClassVar[tuple[Column, ...]] = (Column("cost", "cost"), Column("best_cost", "best cost", style="dashed"))
    #: Snapshot layers with dtype, shape and role.
    layers: ClassVar[tuple[Layer, ...]] = ()
    #: What the "iteration" of this algorithm is, for labels ("EDA step", "generation", ...).
    iteration_name: ClassVar[str] = "iteration"
    #: A stochastic search whose runs depend on the seed (a metaheuristic); False for a deterministic
    #: solver such as the exact one, which ``bench gui --algo all`` and the seed contract leave out.
    stochastic: ClassVar[bool] = True
    #: The shared kernel groups this solver's runs reach (keys of :data:`sudoku_lab.stepping.warmup.SHARED_GROUPS`:
    #: ``"exact"``, ``"ac3"``), which :func:`~sudoku_lab.stepping.warmup.warm_up` warms with it, and no other:
    #: a first ``solve --algo hill_climb`` does not pay for the exact search. A solver that reaches one only
    #: under some setting (RESEDA's AC3 prefilter) names it too, since the setting may change mid-run.
    shared_kernels: ClassVar[tuple[str, ...]] = ()
    #: Settings worth showing, as ``(params, puzzle name)`` pairs: the registry-wide contract tests
    #: run every one, so a solver names the puzzles and switches that exercise all its code paths
    #: (restarts, options) in its own file. Empty: the contract tests use an easy puzzle.
    examples: ClassVar[tuple[tuple[Mapping[str, Any], str], ...]] = ()
    #: Iterations the conformance kit (:mod:`sudoku_lab.testing`) gives each declared example: a stochastic
    #: solver must solve at least one of them within this many (seed 3).
    example_budget: ClassVar[int] = 10_000
    #: Event kinds drawn as run markers on the convergence curves (:func:`sudoku_lab.stepping.markers.event_markers`);
    #: ``"param"`` events (parameter changes) are always drawn, as markers of their own. Other kinds are kept
    #: in ``Snapshot.events`` but not drawn.
    marked_events: ClassVar[tuple[str, ...]] = ("run_end", "restart")
    #: The phases of one iteration in order, in the paper's words (:meth:`step_phase`); empty: the solver
    #: steps by whole iterations only. A solver declaring phases implements :meth:`_step_phase` (a keyframe
    #: mid-iteration holds the iteration's start and the phase steps since: :meth:`load_state` replays them).
    phases: ClassVar[tuple[Phase, ...]] = ()
    #: What a keyframe's ``algorithm`` part may hold (:mod:`sudoku_lab.solvers.keyframes`): a
    #: :class:`~.keyframes.Field` per array (a kernel solver: per ``State`` field, with
    #: :class:`~.keyframes.Counters` for ``counters``), derived ones rebuilt by :meth:`_derive`. Every value
    #: is checked before :meth:`_load` sees it; a solver declaring nothing (a plugin written before
    #: declarations) loads unchecked and fails the kit's ``mutated_keyframes_are_refused``.
    keyframe: ClassVar[Mapping[str, Field | Counters]] = {}
    #: The plain values of the ``algorithm`` part besides the arrays, each declared (:class:`~.keyframes.Value`).
    extra: ClassVar[Mapping[str, Value]] = {}
    #: Parameters a release removed, each with the one line that says why and what to use instead: naming
    #: one (constructor, ``set_params``, ``--param``, a specification) gives that line as a ParameterError.
    retired_params: ClassVar[Mapping[str, str]] = {}

    if TYPE_CHECKING:
        # The state every solver keeps up to date (see the class docstring), declared for the type checker
        # only: a subclass holds each as an attribute (and then declares it so) or computes it in a property.
        @property
        def grid(self) -> np.ndarray: ...
        @property
        def cost(self) -> int: ...
        @property
        def best_grid(self) -> np.ndarray: ...
        @property
        def best_cost(self) -> int: ...
        @property
        def fixed(self) -> np.ndarray: ...

    # ------------------------------------------------------- declarations
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        key = cls.__dict__.get("cites")
        if key:
            from ..citations import cite

            c = cite(key)
            for attr, value in (("paper", c.short), ("citation", c.full), ("reference", c.anchor)):
                if attr not in cls.__dict__:
                    setattr(cls, attr, value)

    @classmethod
    def trace_names(cls) -> tuple[str, ...]:
        """Trace column names, ``iteration`` first."""
        return ("iteration", *(c.name for c in cls.columns))

    @classmethod
    def layer(cls, name: str) -> Layer | None:
        """The declaration of layer ``name``, or None."""
        return next((d for d in cls.layers if d.name == name), None)

    @classmethod
    def layers_with_role(cls, role: str) -> tuple[Layer, ...]:
        """Declared layers with a role (``"probability"``, ``"runs"``, ``"cells"``...)."""
        return tuple(d for d in cls.layers if d.role == role)

    @classmethod
    def axis(cls, key: str) -> Axis:
        return next(a for a in cls.axes if a.key == key)

    @classmethod
    def summarize(cls, snapshot: Snapshot) -> dict[str, Any]:
        """Solver-specific numbers of a finished run for results files (RESEDA: attempts, runs, restarts).

        Values must be JSON-serialisable. The default records nothing.
        """
        return {}

    def __init__(self, **params: Any):
        self._params = self.full_params(params)
        self.puzzle: Puzzle | None = None
        self.seed: int | None = None
        self.rng: np.random.Generator | None = None
        self.iteration = 0
        self.evaluations = 0
        self.status = Status.READY
        self.events: list[Event] = []
        self.trace = Trace(self.trace_names())
        #: Index of the next phase of the current iteration (:meth:`step_phase`): 0 between iterations.
        self.phase = 0
        #: The keyframe at the start of the iteration under way and the phase steps taken since (a keyframe
        #: taken mid-iteration holds both: :meth:`load_state` replays the phases rather than reading them).
        self._phase_origin: dict | None = None
        self._phase_steps = 0

    # ----------------------------------------------------------- parameters
    @classmethod
    def param(cls, name: str) -> Param:
        for p in cls.params:
            if p.name == name:
                return p
        if name in cls.retired_params:  # a removed parameter says why and what to use instead
            raise ParameterError(cls.retired_params[name], name=name)
        known = ", ".join(p.name for p in cls.params)
        raise ParameterError(f"{cls.name} has no parameter {name!r}; its parameters are: {known}", name=name)

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        return {p.name: p.default for p in cls.params}

    @classmethod
    def validate_params(cls, values: Mapping[str, Any]) -> dict[str, Any]:
        """Check every value against its declaration, then the cross-parameter rules."""
        out = {name: cls.param(name).validate(v) for name, v in values.items()}
        cls.check_params(out)
        return out

    @classmethod
    def full_params(cls, given: Mapping[str, Any]) -> dict[str, Any]:
        """Every parameter in force for ``given``: the given values over the defaults, all checked."""
        return cls.validate_params({**cls.defaults(), **given})

    @classmethod
    def check_params(cls, params: Mapping[str, Any]) -> None:
        """Rules between parameters (e.g. RESEDA's Q1 <= Q); raise ParameterError."""

    def get_params(self) -> dict[str, Any]:
        return dict(self._params)

    def set_params(self, **changes: Any) -> list[Event]:
        """Change parameters between steps; each change is logged as an Event.

        Raises
        ------
        ParameterError
            Unknown name, bad value, a parameter that needs a reset while
            the solver is running (``live=False``), or any change in the middle
            of an iteration stepped by phases (finish it with ``step(1)``).
        """
        merged = self.validate_params({**self._params, **changes})
        if self.phase and any(merged[k] != self._params[k] for k in changes):
            name = next(k for k in changes if merged[k] != self._params[k])
            raise ParameterError(
                f"{name} cannot change in the middle of an iteration (after its phase "
                f"{self.phases[self.phase - 1].name!r}); finish the iteration with step(1) first",
                name=name,
            )
        new_events = []
        for name in changes:
            old, new = self._params[name], merged[name]
            if old == new:
                continue
            if not self.param(name).live and self.status != Status.READY:
                raise ParameterError(f"{name} cannot change during a run; reset to apply it", name=name)
            new_events.append(Event(self.iteration, "param", name, old, new))
        self._params = merged
        self.events.extend(new_events)
        if new_events:
            self._params_changed({e.name for e in new_events})
        return new_events

    def _params_changed(self, names: set[str]) -> None:
        """Hook: react to live parameter changes (reallocate buffers...)."""

    # ------------------------------------------------------------ protocol
    @checked(advice={"puzzle": "read one with Puzzle.parse(text) or library.puzzle(name)"})
    def reset(self, puzzle: Puzzle, seed: int | None = 0) -> None:
        """Start a new solve of ``puzzle`` with a fresh random stream from ``seed``.

        Raises
        ------
        PuzzleError
            If the puzzle's givens clash (solvers need a consistent start).
        PuzzleTypeError
            If ``puzzle`` is not a Puzzle (also a TypeError).
        ParameterTypeError
            If ``seed`` is not an int or None (also a TypeError).
        ParameterError
            If ``seed`` is negative.
        """
        if seed is not None and seed < 0:
            raise ParameterError(
                f"seed must be a non-negative integer (or None for a fresh one), got {seed!r}", name="seed"
            )
        puzzle.check_clashes()
        self.check_puzzle(puzzle)
        self.puzzle = puzzle
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.iteration = 0
        self.evaluations = 0
        self.status = Status.RUNNING
        self.events = []
        self.trace = Trace(self.trace_names())
        self.phase = 0
        self._phase_origin, self._phase_steps = None, 0
        self._reset()

    @property
    def _pz(self) -> Puzzle:
        """The puzzle of the last reset, for the code that runs only after one (its state, its kernel calls)."""
        assert self.puzzle is not None, "reset() first"
        return self.puzzle

    def check_puzzle(self, puzzle: Puzzle) -> None:
        """Hook: reject puzzles this solver cannot take (raise PuzzleError or ParameterError)."""

    def step(self, n: int = 1) -> int:
        """Advance up to ``n`` iterations; return how many were done (fewer if it finished).

        ``step(a); step(b)`` leaves exactly the state ``step(a + b)`` does. In the middle of an
        iteration stepped by phases (:attr:`phase` > 0), the remaining phases of that iteration run
        first and it counts as one of the ``n``.

        Raises
        ------
        ParameterTypeError
            ``n`` is not an int (``step(1.7)``, ``step("3")``; a numpy integer is one).
        ParameterError
            ``n`` is negative.
        RuntimeError
            :meth:`reset` was not called.
        """
        if self.status == Status.READY:
            raise RuntimeError("call reset(puzzle, seed) before step()")
        n = int(n)
        if n < 0:
            raise ParameterError(f"Solver.step: n must be a non-negative int, got {n}", name="n")
        if n == 0 or self.status in Status.DONE:
            return 0
        done = 0
        if self.phase:  # finish the iteration the phase steps began: it is one of the n
            while self.phase and self.status not in Status.DONE:
                self.step_phase()
            done, n = 1, n - 1
            if n == 0 or self.status in Status.DONE:
                return done
        return done + self._step(n)

    def step_phase(self) -> PhaseStep | None:
        """Advance one phase of the current iteration (the solver's declared ``phases``).

        The phase steps of one iteration (``len(phases)`` of them; fewer when an earlier phase ends the
        iteration, e.g. by solving the puzzle, or skips ahead; more when a phase declared
        ``Phase(..., repeats=True)`` runs several times) leave exactly the state ``step(1)`` does, draw
        for draw.

        Returns
        -------
        PhaseStep or None
            What the phase did; None when nothing was done because the run is over (it was, or the
            step found it over before its first phase, as ``step`` returning 0: a lowered budget, a
            restart that solved the puzzle or found no consistent start).

        Raises
        ------
        RuntimeError
            :meth:`reset` was not called, or the solver declares no phases.
        """
        if self.status == Status.READY:
            raise RuntimeError("call reset(puzzle, seed) before step_phase()")
        if not self.phases:
            raise RuntimeError(f"{self.name} declares no phases: step it by whole iterations with step()")
        if self.status in Status.DONE:
            return None
        index, n_events = self.phase, len(self.events)
        origin = self.state_dict() if index == 0 else None  # a keyframe mid-iteration replays from here
        out = self._step_phase(index)
        if out is None:
            if index:
                raise RuntimeError(f"{self.name}._step_phase({index}) did nothing in the middle of an iteration")
            return None
        caption, changed, ended = out[:3]
        following = int(out[3]) if len(out) > 3 else index + 1
        if not ended:
            if following >= len(self.phases):
                raise RuntimeError(
                    f"{self.name}: its last phase ({self.phases[index].name!r}) did not end the iteration"
                )
            if following < index or (following == index and not self.phases[index].repeats):
                raise RuntimeError(
                    f"{self.name}: phase {self.phases[index].name!r} named phase {following} to follow it; a phase "
                    "is followed by a later one, or by itself when declared Phase(..., repeats=True)"
                )
        self.phase = 0 if ended else following
        if index == 0:
            self._phase_origin, self._phase_steps = (None, 0) if ended else (origin, 1)
        else:
            self._phase_steps += 1
        if ended:
            self._phase_origin = None
        return PhaseStep(
            iteration=int(self.iteration) + (0 if ended else 1),
            index=index,
            name=self.phases[index].name,
            caption=caption,
            changed=MappingProxyType({k: frozen_copy(v) for k, v in changed.items()}),
            ended=bool(ended),
            events=tuple(self.events[n_events:]),
        )

    @property
    def done(self) -> bool:
        return self.status in Status.DONE

    def snapshot(self) -> Snapshot:
        """Read-only copies of the state for display and analysis."""
        if self.puzzle is None:
            raise RuntimeError("call reset(puzzle, seed) before snapshot()")
        return Snapshot(
            solver=self.name,
            puzzle=self.puzzle,
            iteration=int(self.iteration),
            evaluations=int(self.evaluations),
            status=self.status,
            grid=frozen_copy(self.grid),
            cost=int(self.cost),
            best_grid=frozen_copy(self.best_grid),
            best_cost=int(self.best_cost),
            fixed=frozen_copy(self.fixed),
            params=MappingProxyType(dict(self._params)),
            layers=MappingProxyType(self._layers()),
            trace=self.trace.arrays(),
            events=tuple(self.events),
            phase=int(self.phase),
        )

    def state_dict(self) -> dict:
        """A deep, picklable copy of everything :meth:`step` depends on (a keyframe)."""
        if self.puzzle is None or self.rng is None:  # reset() and load_state() set both
            raise RuntimeError("call reset(puzzle, seed) before state_dict()")
        # Events are frozen: the copy shares them (a long run logs thousands; copying them cost more than the
        # rest of the state together, at every keyframe a History takes).
        shared: dict[int, Any] = {id(e): e for e in self.events}
        return copy.deepcopy(
            {
                "solver": self.name,
                "puzzle": self.puzzle,
                "seed": self.seed,
                "params": dict(self._params),
                "rng": self.rng.bit_generator.state,
                "iteration": self.iteration,
                "evaluations": self.evaluations,
                "status": self.status,
                "events": list(self.events),
                "trace": self.trace.state(),
                "algorithm": self._state(),
                "phase": self.phase,
                "phase_state": {"origin": self._phase_origin, "steps": self._phase_steps} if self.phase else None,
            },
            shared,
        )

    def load_state(self, state: Mapping) -> None:
        """Restore a :meth:`state_dict` keyframe; the next steps replay exactly.

        The keyframe is untrusted (a session file from someone else): every value is checked against
        the solver's declarations (:mod:`sudoku_lab.solvers.keyframes`) before anything reaches a
        kernel, and a keyframe taken in the middle of an iteration is rebuilt by replaying its phases
        from the iteration's start. The solver is unchanged when the keyframe is refused.

        Raises
        ------
        StateError
            One line naming the field that is wrong (its kind, shape or range, or a state the solver
            could not have produced), or a keyframe of another solver.
        """
        st = check_mapping(state, "state", _KEYFRAME_KEYS)
        if st["solver"] != self.name:
            raise StateError(f"state is for solver {str(st['solver'])[:40]!r}, not {self.name!r}")
        before = self.__dict__.copy()
        try:
            self._load_checked(st)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise

    def _restore_trusted(self, state: Mapping) -> None:
        """Restore a keyframe this process took of this solver class, or one :meth:`load_state` accepted before.

        The checks are skipped (a :class:`~sudoku_lab.stepping.history.History` seeking its own keyframes
        over and over): never call it with a keyframe from a file.
        """
        st = copy.deepcopy(dict(state), {id(e): e for e in state["events"]})
        if st.get("phase", 0):
            self.load_state(state)  # mid-iteration: a replay from its start, checked (rare: a saved moment)
            return
        self.puzzle, self.seed, self._params = st["puzzle"], st["seed"], dict(st["params"])
        self.rng = np.random.default_rng()
        self.rng.bit_generator.state = st["rng"]
        self.iteration, self.evaluations, self.status = st["iteration"], st["evaluations"], st["status"]
        self.events, self.phase, self._phase_origin = list(st["events"]), 0, None
        self.trace = Trace.from_state(st["trace"])
        self._load(st["algorithm"])
        if self.keyframe or self.extra:
            self._derive()

    def _load_checked(self, st: Mapping) -> None:
        from ..model.puzzle import Puzzle

        puzzle = st["puzzle"]
        if not isinstance(puzzle, Puzzle):
            raise StateError(f"state.puzzle is {type(puzzle).__name__}, not a puzzle")
        try:
            self.check_puzzle(puzzle)
            params = self.full_params(check_mapping(st["params"], "state.params", ()))
        except SudokuLabError as e:
            raise StateError(f"state: {e}") from None
        seed = maybe(integer(0, 2**128)).check(st["seed"], {}, "state.seed")
        rng = np.random.default_rng()
        if not isinstance(st["rng"], Mapping) or st["rng"].get("bit_generator") != type(rng.bit_generator).__name__:
            raise StateError(f"state.rng is not a {type(rng.bit_generator).__name__} generator state")
        try:
            rng.bit_generator.state = copy.deepcopy(dict(st["rng"]))
        except (TypeError, ValueError, KeyError, OverflowError, AttributeError):
            raise StateError(f"state.rng is not a {type(rng.bit_generator).__name__} generator state") from None
        iteration = int(integer().check(st["iteration"], {}, "state.iteration"))
        evaluations = int(integer().check(st["evaluations"], {}, "state.evaluations"))
        status = text((Status.RUNNING, Status.SOLVED, Status.FAILED)).check(st["status"], {}, "state.status")
        events = items(_EVENT, MAX_EVENTS).check(st["events"], {"iteration": iteration}, "state.events")
        trace = Trace.from_state(st["trace"], self.trace_names(), "state.trace")
        phase = integer(0, max(len(self.phases) - 1, 0)).check(st.get("phase", 0), {}, "state.phase")
        if phase:
            self._load_mid_iteration(st, int(phase))
            return
        self.puzzle, self.seed, self._params, self.rng = puzzle, seed, params, rng
        self.iteration, self.evaluations, self.status = iteration, evaluations, status
        self.events, self.trace, self.phase = list(events), trace, 0
        self._phase_origin = None
        if self.keyframe or self.extra:
            self._load(self._checked_algorithm(st["algorithm"]))
            self._derive()
            self._check_loaded()
        else:
            self._load(check_mapping(st["algorithm"], "state.algorithm", ()))

    def _load_mid_iteration(self, st: Mapping, phase: int) -> None:
        """A keyframe taken after ``steps`` phase steps: its iteration's start, loaded and replayed (never read)."""
        ps = check_mapping(st.get("phase_state"), "state.phase_state", ("origin", "steps"))
        steps = int(integer(1, MAX_PHASE_STEPS).check(ps["steps"], {}, "state.phase_state.steps"))
        origin = check_mapping(ps["origin"], "state.phase_state.origin", _KEYFRAME_KEYS)
        if origin.get("phase", 0) != 0:
            raise StateError("state.phase_state.origin is not the start of an iteration")
        self.load_state(origin)
        for k in range(steps):
            if self.done or (k and self.phase == 0):
                raise StateError(
                    f"state.phase_state: its iteration ends before the {steps} phase steps it says were taken"
                )
            self.step_phase()
        ours = self.state_dict()
        d = difference(ours, {**st, "phase_state": ours["phase_state"]}, "state")
        if d is None:
            d = difference(ours["phase_state"]["origin"], origin, "state.phase_state.origin")
        if d is not None:
            raise StateError(
                f"state: replaying {steps} phase steps from the start of iteration {self.iteration + 1} "
                f"does not arrive at the state saved ({d})"
            )

    # ------------------------------------------------------- keyframes
    def _context(self) -> dict[str, Any]:
        """What the keyframe declarations' expressions read: the geometry, the parameters, the kernel's constants."""
        pz = self._pz
        K = getattr(self, "kernel", None)
        ctx: dict[str, Any] = {}
        if K is not None:
            ctx.update((k, v) for k, v in vars(K).items() if k.isupper() and isinstance(v, int))
        ctx.update(self._params)
        # The geometry wins a name it shares with a parameter (NB-COIN's C); every parameter is in ``params`` too.
        ctx.update(n=pz.n, N=pz.N, C=pz.C, iteration=self.iteration, evaluations=self.evaluations)
        ctx["params"] = dict(self._params)
        return ctx

    def _checked_algorithm(self, state: Any) -> dict[str, Any]:
        """The keyframe's ``algorithm`` checked against :attr:`keyframe` and :attr:`extra` (derived ones left out)."""
        ctx = self._context()
        declared = {n for n, d in self.keyframe.items() if not (isinstance(d, Field) and d.derived)}
        state = check_mapping(state, "state.algorithm", tuple(sorted(declared | set(self.extra))))
        out: dict[str, Any] = {}
        for name, decl in self.keyframe.items():
            path = f"state.algorithm.{name}"
            if isinstance(decl, Counters):
                out[name] = self._checked_counters(state[name], decl, ctx, path)
            elif not decl.derived:
                out[name] = check_array(state[name], decl, ctx, path)
        out.update((k, v.check(state[k], ctx, f"state.algorithm.{k}")) for k, v in self.extra.items())
        return out

    def _checked_counters(self, value: Any, decl: Counters, ctx: Mapping[str, Any], path: str) -> np.ndarray:
        K = getattr(self, "kernel", None)
        if K is None:
            raise TypeError(f"{type(self).__name__} declares Counters but names no kernel")
        c = check_array(value, Field("int64", (K.N_COUNTERS,)), ctx, path)
        for slot, want in (("C_ITERATION", self.iteration), ("C_EVALUATIONS", self.evaluations)):
            if int(c[getattr(K, slot)]) != want:
                raise StateError(f"{path}[{slot}] is {int(c[getattr(K, slot)])}, not the keyframe's {want}")
        for slot, (low, high) in decl.ranges.items():
            require_range(int(c[getattr(K, slot)]), low, high, ctx, f"{path}[{slot}]")
        return c

    def _derive(self) -> None:
        """Hook: rebuild the fields declared ``derived`` (and the ``derived`` counters) from the checked ones."""

    def _check_loaded(self) -> None:
        """Hook: raise StateError unless the loaded state is one the solver could have produced (givens kept...)."""

    # ------------------------------------------------------- subclass hooks
    def _reset(self) -> None:
        raise NotImplementedError

    def _step(self, n: int) -> int:
        raise NotImplementedError

    def _layers(self) -> dict[str, Any]:
        return {}

    def _step_phase(self, index: int) -> tuple | None:
        """Hook: run phase ``index`` of the current iteration; ``(caption, changed, ended)``.

        ``ended`` is True when the iteration is over (the counters, trace and status then read as
        after ``step(1)``). None, at phase 0 only: nothing was done because the run is over. A fourth
        value, when given, is the index of the phase that comes next (default ``index + 1``): a later
        phase, or ``index`` itself for a phase declared ``Phase(..., repeats=True)``.
        """
        raise NotImplementedError(f"{type(self).__name__} declares phases but does not implement _step_phase")

    def _state(self) -> dict:
        raise NotImplementedError

    def _load(self, state: dict) -> None:
        raise NotImplementedError


# ------------------------------------------------------- solvers on a kernel
@checked
@dataclass(frozen=True)
class Slot:
    """Where one value of a kernel's int64 or float64 parameter array comes from.

    A :class:`KernelSolver` lists its slots in kernel order (``int_slots``,
    ``float_slots``); a plain string there is ``Slot(name)``.

    Attributes
    ----------
    param : str
        The parameter whose value fills the slot (a bool becomes 0 or 1), or,
        with ``value``, a label for what the slot holds.
    codes : Mapping[str, int], optional
        A choice parameter's kernel code for each of its values.
    value : callable, optional
        ``value(params) -> number``: a slot computed from every parameter in force
        (a count derived from two of them, a constant of the kernel).
    """

    param: str
    codes: Mapping[str, int] | None = None
    value: Any = None


def _filler(slots: tuple) -> Callable[[Mapping[str, Any]], list]:
    """A function of the parameters giving the slots' values in order (built once per class: it runs every step)."""
    parts = [(s, None, None) if isinstance(s, str) else (s.param, s.codes, s.value) for s in slots]

    def fill(params: Mapping[str, Any]) -> list:
        return [v(params) if v is not None else (c[params[p]] if c is not None else params[p]) for p, c, v in parts]

    return fill


@checked
class KernelSolver(Solver):
    """A solver whose iterations run in one numba kernel entry point: the base owns the loop.

    :meth:`_step` splits ``n`` iterations into chunks of at most :attr:`chunk`, gives each chunk
    fresh trace and event buffers, calls :meth:`_run`, reads ``iteration`` and ``evaluations``
    from the counters, appends the trace rows, hands the event rows to :meth:`_on_events` and maps
    the kernel's status code (:mod:`sudoku_lab._kernels.status`) to :class:`Status` in :meth:`_end`.
    :attr:`cost` and :attr:`best_cost` are read from the counters, :attr:`fixed` from a grid, and
    keyframes (:meth:`Solver.state_dict`) copy the arrays the :attr:`State` declaration names.

    A subclass declares
        ``kernel`` (the kernel module: ``TRACE_WIDTH``, the counters ``C_*``, optionally
        ``EVENT_WIDTH`` and ``N_IPARAMS``), optionally ``layout`` (the same names in a module without
        numba), ``State`` (a NamedTuple class defined at module level with them: the arrays a
        keyframe holds, kept as attributes of the same names, which :meth:`arrays` hands to the
        kernel as one argument), ``int_slots`` / ``float_slots`` (the
        kernel's parameter arrays, :class:`Slot`), ``budget_param``, ``cost_counter``,
        ``best_cost_counter`` and ``fixed_grid``;
    and writes
        :meth:`_reset` (allocate the state), :meth:`_run` (its kernel call,
        ``K.run(self.arrays(), ..., ip, fp, self.rng, k, trace, events)``), and where it has
        any, :meth:`_on_events`, :meth:`_end`, :meth:`_before_chunk`, :meth:`_extra_state` /
        :meth:`_loaded`.
    """

    #: The kernel module. (Not a ClassVar to the type checker: it takes a module assigned in a class body,
    #: ``kernel = K``, for an instance variable, which may not override a ClassVar.)
    kernel: ModuleType | None = None
    #: The kernel's pure-Python layout module (its ``C_*`` counters, ``N_IPARAMS``, ``N_FPARAMS``,
    #: ``EVENT_WIDTH``), read when the class is created, so that listing a solver or its ``--help`` needs no
    #: numba (:func:`sudoku_lab._kernels.lazy`); None: those are read from ``kernel``.
    layout: ModuleType | None = None
    #: The arrays a keyframe holds, as a NamedTuple class (its fields name attributes of the solver), defined at
    #: module level in the kernel's layout (or kernel) module: the kernel takes it as one argument, and numba's
    #: cache finds the class there in the next process.
    State: ClassVar[type[Any]] = tuple
    #: The kernel's int64 and float64 parameter arrays, slot by slot.
    int_slots: ClassVar[tuple] = ()
    float_slots: ClassVar[tuple] = ()
    #: The parameter capping the iterations: a step after it was lowered below the count fails at once.
    budget_param: ClassVar[str] = ""
    #: Counters (names in ``kernel``) that ``cost`` and ``best_cost`` read; None: best_cost is cost.
    cost_counter: ClassVar[str] = "C_COST"
    best_cost_counter: ClassVar[str | None] = "C_BEST_COST"
    #: The int8 grid attribute whose non-zero cells are fixed; "" for the puzzle's givens.
    fixed_grid: ClassVar[str] = ""
    #: Most iterations per kernel call (bounds the trace and event buffers).
    chunk: ClassVar[int] = 4096
    #: What the phases of the current iteration share (see :meth:`_run_phase`); set at its phase 0.
    _phase_ctx: dict
    _get_arrays: ClassVar[Any] = None  # the State fields' attrgetter, set per class by __init_subclass__

    #: Set for each subclass that names its kernel (:meth:`__init_subclass__`): the slots' fillers and the
    #: kernel's event row width.
    _fill_int: ClassVar[staticmethod[[Mapping[str, Any]], list]]
    _fill_float: ClassVar[staticmethod[[Mapping[str, Any]], list]]
    _event_width: ClassVar[int]
    #: The kernel's int64 counters (``kernel.C_*`` index them), allocated by :meth:`_reset`.
    counters: np.ndarray
    #: The best grid since the reset (an attribute in every kernel solver; ``grid`` may be a property).
    best_grid: np.ndarray

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.kernel is None:
            return
        K = cls.layout if cls.layout is not None else cls.kernel
        n_int = getattr(K, "N_IPARAMS", None)
        if n_int is not None and n_int != len(cls.int_slots):
            raise TypeError(f"{cls.__name__}: {len(cls.int_slots)} int slots for a kernel with {n_int}")
        n_float = getattr(K, "N_FPARAMS", None)
        if n_float is not None and n_float != len(cls.float_slots):
            raise TypeError(f"{cls.__name__}: {len(cls.float_slots)} float slots for a kernel with {n_float}")
        cls._fill_int, cls._fill_float = staticmethod(_filler(cls.int_slots)), staticmethod(_filler(cls.float_slots))
        cls._event_width = getattr(K, "EVENT_WIDTH", 0)
        names = getattr(cls.State, "_fields", ())
        _check_keyframe_declaration(cls, K, names)
        # arrays() runs before every kernel call: one attrgetter reads the fields in C (a tuple when two or more).
        cls._get_arrays = staticmethod(operator.attrgetter(*names)) if len(names) > 1 else None

    # ---------------------------------------------------------- properties
    @property
    def geo(self):
        """The puzzle's geometry (units, peers, names)."""
        return geometry(self.puzzle.n)

    @property
    def cost(self) -> int:
        return int(self.counters[getattr(self.kernel, self.cost_counter)])

    @property
    def best_cost(self) -> int:
        if self.best_cost_counter is None:
            return self.cost
        return int(self.counters[getattr(self.kernel, self.best_cost_counter)])

    @property
    def fixed(self) -> np.ndarray:
        if self.fixed_grid:
            return getattr(self, self.fixed_grid) > 0
        assert self.puzzle is not None  # the state is read after reset()
        return self.puzzle.grid > 0

    def arrays(self):
        """The keyframe arrays as one :attr:`State` tuple (the arrays themselves, not copies): the kernel's argument."""
        if self._get_arrays is None:
            return self.State(*(getattr(self, name) for name in self.State._fields))
        return self.State._make(self._get_arrays(self))

    def _kernel_params(self) -> tuple[np.ndarray, np.ndarray]:
        """The kernel's int64 and float64 parameter arrays, filled from the declared slots."""
        return (
            np.array(self._fill_int(self._params), dtype=np.int64),
            np.array(self._fill_float(self._params), dtype=np.float64),
        )

    # ---------------------------------------------------------------- step
    def _step(self, n: int) -> int:
        K = self.kernel
        assert K is not None  # a KernelSolver subclass names its kernel
        budget = self._params[self.budget_param] if self.budget_param else 0
        if budget > 0 and self.iteration >= budget:  # the budget was lowered below the count
            self.status = Status.FAILED
            return 0
        self._before_step()
        ip, fp = self._kernel_params()
        done = 0
        while done < n and self.status == Status.RUNNING:
            self._before_chunk()
            if self.status != Status.RUNNING:
                break
            k = min(n - done, self.chunk)
            trace = np.empty((k, K.TRACE_WIDTH))
            events = np.empty((k, self._event_width), dtype=np.int64)
            out = self._run(k, trace, events, ip, fp)
            did, n_events, code = (out[0], 0, out[1]) if len(out) == 2 else out
            did = int(did)
            done += did
            self.iteration = int(self.counters[C_ITERATION])
            self.evaluations = int(self.counters[C_EVALUATIONS])
            self.trace.extend(trace[:did])
            if n_events:
                self._on_events(events[: int(n_events)])
            if code != RUNNING:
                self._end(int(code))
        return done

    # --------------------------------------------------------- phases
    def _step_phase(self, index: int) -> tuple | None:
        """Phase ``index`` of the current iteration; at phase 0 what :meth:`_step` does before a kernel call.

        The budget check, :meth:`_before_step`, :meth:`_before_chunk` and the parameter arrays are
        taken at phase 0 and kept in :attr:`_phase_ctx` (with a fresh trace row) for the whole
        iteration; the subclass's :meth:`_run_phase` does the phase and calls
        :meth:`_close_iteration` from the phase that ends the iteration.
        """
        K = self.kernel
        assert K is not None  # a KernelSolver subclass names its kernel
        if index == 0:
            budget = self._params[self.budget_param] if self.budget_param else 0
            if budget > 0 and self.iteration >= budget:  # as in _step: the budget was lowered below the count
                self.status = Status.FAILED
                return None
            self._before_step()
            self._before_chunk()
            if self.status != Status.RUNNING:
                return None
            ip, fp = self._kernel_params()
            self._phase_ctx = {"ip": ip, "fp": fp, "trace": np.zeros(K.TRACE_WIDTH)}
        return self._run_phase(index, self._phase_ctx)

    def _run_phase(self, index: int, ctx: dict) -> tuple:
        """Hook of a solver declaring phases: phase ``index``, the kernel's own steps in the kernel's order.

        ``ctx`` holds ``ip`` and ``fp`` (the parameter arrays of this iteration), ``trace`` (its row,
        written as the kernel writes it) and whatever the phases pass on; a keyframe taken
        mid-iteration does not hold it (loading one replays the phases from the iteration's start).
        Returns ``(caption, changed, ended)``, or ``(caption, changed, ended, next_index)``
        (see :meth:`Solver._step_phase`).
        """
        raise NotImplementedError(f"{type(self).__name__} declares phases but does not implement _run_phase")

    def _close_iteration(self, code: int, event_rows: np.ndarray | None = None) -> None:
        """End the iteration the phases ran: what :meth:`_step` does after a kernel call that did one.

        Reads the counters, appends the iteration's trace row, hands ``event_rows`` to
        :meth:`_on_events` and maps a final kernel status ``code`` with :meth:`_end`.
        """
        self.iteration = int(self.counters[C_ITERATION])
        self.evaluations = int(self.counters[C_EVALUATIONS])
        self.trace.extend(self._phase_ctx["trace"][None, :])
        if event_rows is not None and len(event_rows):
            self._on_events(event_rows)
        if code != RUNNING:
            self._end(int(code))

    def _run(self, k: int, trace: np.ndarray, events: np.ndarray, ip: np.ndarray, fp: np.ndarray) -> tuple:
        """The kernel call: up to ``k`` iterations; ``(done, code)`` or ``(done, events written, code)``."""
        raise NotImplementedError

    def _on_events(self, rows: np.ndarray) -> None:
        """Hook: the event rows a chunk wrote (``kernel.EVENT_WIDTH`` int64 columns)."""

    def _end(self, code: int) -> None:
        """Hook: the kernel stopped with ``code``; the base maps SOLVED and BUDGET to SOLVED and FAILED."""
        if code == SOLVED:
            self.status = Status.SOLVED
        elif code == BUDGET:
            self.status = Status.FAILED

    def _before_step(self) -> None:
        """Hook: before the parameters are read for a step (resize what a live change resized)."""

    def _before_chunk(self) -> None:
        """Hook: before each kernel call (start a pending run); may end the step by changing the status."""

    # --------------------------------------------------------------- state
    def _state(self) -> dict:
        st = {name: getattr(self, name).copy() for name in self.State._fields}
        st.update(self._extra_state())
        return st

    def _load(self, state: dict) -> None:
        """The checked State arrays (:meth:`Solver._checked_algorithm`) set as attributes, then :meth:`_loaded`."""
        for name in self.State._fields:
            if name in state:  # a derived field is absent: _derive rebuilds it
                setattr(self, name, state[name])
        self._loaded({k: state[k] for k in self.extra})

    def _extra_state(self) -> dict:
        """Hook: what a keyframe holds besides the State arrays (run records, pending restarts), each in ``extra``."""
        return {}

    def _loaded(self, state: dict) -> None:
        """Hook: restore the rest from a keyframe after its State arrays (scratch, extra values)."""


def _check_keyframe_declaration(cls: type[KernelSolver], K: ModuleType, names: tuple[str, ...]) -> None:
    """TypeError at class creation unless ``cls.keyframe`` declares every State field and every counter slot."""
    decl = cls.keyframe
    if set(decl) != set(names):
        odd = ", ".join(sorted(set(decl) ^ set(names)))
        raise TypeError(f"{cls.__name__}: its keyframe declaration and its State fields differ ({odd})")
    for name, d in decl.items():
        if isinstance(d, Counters):
            slots = {k for k in vars(K) if k.startswith("C_")} - {"C_ITERATION", "C_EVALUATIONS"}
            missing = slots - set(d.ranges) - set(d.derived)
            unknown = (set(d.ranges) | set(d.derived)) - slots
            if missing or unknown:
                raise TypeError(
                    f"{cls.__name__}: its counters declaration leaves out {', '.join(sorted(missing)) or 'nothing'}"
                    f" and names {', '.join(sorted(unknown)) or 'nothing'} the kernel lacks"
                )
        elif not isinstance(d, Field):
            raise TypeError(f"{cls.__name__}: keyframe field {name!r} is declared by {type(d).__name__}, not a Field")


# ------------------------------------------------------------------ registry
_REGISTRY: Registry[type[Solver]] = Registry("algorithm", package="sudoku_lab.solvers", order=lambda c: c.order)


@checked
def register(cls: type[Solver]) -> type[Solver]:
    """Class decorator adding a solver to the registry under ``cls.name``.

    The same call registers a solver defined outside the package (a user's
    module, or an installed distribution's ``sudoku_lab.plugins`` entry point).

    Raises
    ------
    ParameterTypeError
        Not a :class:`Solver` subclass (also a TypeError).
    TypeError
        No name, or inconsistent declarations.
    ValueError
        Another solver already has that name.
    """
    if not cls.name:
        raise TypeError(f"{cls.__name__} needs a registry name")
    problems = check_declarations(cls)
    if problems:
        raise TypeError(f"{cls.__name__} declarations: " + "; ".join(problems))
    return _REGISTRY.register(cls)


@checked
def unregister(name: str) -> None:
    """Remove a solver from the registry (for tests and interactive redefinitions)."""
    _REGISTRY.unregister(name)


@checked
def registry() -> Mapping[str, type[Solver]]:
    """Registered solvers by name in menu order (built-ins and plugins loaded)."""
    return _REGISTRY.mapping()


@checked
def get_solver_class(name: str) -> type[Solver]:
    """The solver class registered as ``name``; ParameterError naming the known ones otherwise."""
    return _REGISTRY.get(name, param="algo")


@checked
def create(name: str, **params: Any) -> Solver:
    """Instantiate a registered solver with validated parameters.

    Raises
    ------
    ParameterTypeError
        ``name`` is not a str.
    ParameterError
        An unknown solver, or a parameter it does not take or out of its range.
    """
    return get_solver_class(name)(**params)
