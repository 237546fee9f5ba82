"""RESEDA: the restarted estimation of distribution algorithm of Maire and Prissette.

A model ``p[cell, digit]`` is sampled Q times per step, the Q1 best samples
(missing-symbol cost) give frequencies ``r``, and ``p <- alpha*p + (1-alpha)*r``.
A run stops on a zero-cost sample (success) or when ``rho = min_cells max_k p``
exceeds ``beta`` (failure). After a failure, restarts follow ``restart``:

``none``
    stop (the paper's Tables 1 and 2, Figure 4.2);
``full``
    start again from the puzzle until success or budget;
``partial``
    rerun once per qualifying zone of the failed run's final grid (each zone's
    cells added as givens, in order, stopping at the first success): one
    "attempt" of Tables 3-5;
``partial+full``
    attempts repeated until success: the paper's recommended strategy with
    ``zones="diagonal"``.

Brute-force coupling (paper 5.2) fixes, attempt after attempt, each admissible
permutation of one box in a seeded random order. The optional AC3 prefilter
(the paper's suggested future work) fixes the cells AC3 decides and
initialises ``p`` from the AC3 domains.
"""

from __future__ import annotations

import functools
import math
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from .._checks import checked
from .._kernels import lazy, reseda_layout as L
from ..errors import ParameterError, StateError
from ..exact.ac3 import ac3, initial_domains
from ..model.geometry import cell_name, geometry
from ..model.puzzle import Puzzle
from ._boxes import box_free_cells, box_missing_masks
from ._reseda_phases import PHASES, run_phase
from .base import Event, KernelSolver, Param, Slot, Snapshot, Status, frozen_copy, register
from .declare import COST_AXIS, Axis, Column, Layer, Objective, Threshold
from .keyframes import (
    MAX_COUNT,
    Counters,
    Field,
    Value,
    array,
    flag,
    integer,
    items,
    maybe,
    record,
    require_givens,
    text,
)

K = lazy("sudoku_lab._kernels.reseda")

__all__ = ["Reseda", "ZONE_SETS", "zone_units", "admissible_box_permutations"]

ZONE_SETS = ("diagonal", "boxes", "all")
RESTARTS = ("none", "full", "partial", "partial+full")
MAX_PERMUTATIONS = 200_000


@checked
def zone_units(zone_set: str, n: int) -> list[int]:
    """Unit indices of a zone set, in the order partial restarts try them.

    ``diagonal``: the n boxes on the main diagonal; ``boxes``: all N boxes;
    ``all``: rows, then columns, then boxes (3N zones).
    """
    N = n * n
    if zone_set == "diagonal":
        return [2 * N + i * n + i for i in range(n)]
    if zone_set == "boxes":
        return [2 * N + b for b in range(N)]
    if zone_set == "all":
        return list(range(3 * N))
    raise ParameterError(f"zones must be one of {', '.join(ZONE_SETS)}, got {zone_set!r}", name="zones")


@checked
def admissible_box_permutations(grid: np.ndarray, n: int, box: int, limit: int = MAX_PERMUTATIONS) -> np.ndarray:
    """Every filling of box ``box``'s blank cells that clashes with no given.

    Parameters
    ----------
    grid : ndarray of int8, shape (C,)
        The puzzle's givens.
    n : int
        Box size.
    box : int
        0-based box index (reading order).
    limit : int
        Raise ParameterError beyond this many.

    Returns
    -------
    ndarray of int8, shape (P, F)
        One row per permutation: the digits of the box's F blank cells in
        reading order, rows in lexicographic order.

    Notes
    -----
    RESEDA 5.2: "24 permutations that met the basic constraints" for AI
    Escargot's top-left box.
    """
    geo = geometry(n)
    cells = geo.units[2 * geo.N + box]
    free = [int(c) for c in cells if grid[c] == 0]
    missing = sorted(set(range(1, geo.N + 1)) - {int(grid[c]) for c in cells if grid[c] > 0})
    allowed = []
    for c in free:
        used = {int(grid[q]) for q in geo.peers[c] if grid[q] > 0}
        allowed.append([d for d in missing if d not in used])
    out: list[list[int]] = []
    chosen: list[int] = []
    taken = set()

    def extend(i):  # depth-first in lexicographic order
        if len(out) > limit:
            return
        if i == len(free):
            out.append(list(chosen))
            return
        for d in allowed[i]:
            if d not in taken:
                taken.add(d)
                chosen.append(d)
                extend(i + 1)
                chosen.pop()
                taken.discard(d)

    extend(0)
    if len(out) > limit:
        raise ParameterError(
            f"box {box + 1} has more than {limit} admissible permutations; couple on a box with more givens",
            name="coupling_box",
        )
    return np.array(out, dtype=np.int8).reshape(len(out), len(free))


#: The arrays of a run (defined in its kernel's layout module; the kernels take them as one argument).
ResedaState = L.ResedaState

#: How far a probability of ``p`` may stray from [0, 1] and a row's sum from 1 by rounding (the update is a
#: convex combination, so a run's rows stay within a few ulps of both).
P_TOLERANCE = 1e-9
ROW_SUM_TOLERANCE = 1e-6

_RUN_FIELDS = dict(
    start=integer(0, "iteration"),
    end=integer(0, "iteration"),
    attempt=integer(0, MAX_COUNT),
    run=integer(0, MAX_COUNT),
    kind=text(("first", "full", "partial")),
    zone=integer(-1, "3 * N - 1"),
    zone_name=text(max_length=40),
    outcome=text(("inconsistent", "solved", "failed")),
    steps=integer(0, "iteration"),
    cost=integer(0, "3 * N * N"),
    detail=text(max_length=80),
)
_RUN = record(**_RUN_FIELDS)
_COUPLED_RUN = record(**_RUN_FIELDS, permutation=integer(0, MAX_PERMUTATIONS - 1))


def _check_run_record(v, ctx, path):
    """One record of ``history``: a coupled run's holds its box permutation too (checked in ``_loaded``)."""
    return (_COUPLED_RUN if isinstance(v, dict) and "permutation" in v else _RUN).check(v, ctx, path)


@functools.lru_cache(maxsize=8)
def _admissible(grid: bytes, n: int, box: int) -> np.ndarray:
    """:func:`admissible_box_permutations` of the givens ``grid`` (its bytes), kept for the loads of one run."""
    out = admissible_box_permutations(np.frombuffer(grid, dtype=np.int8).copy(), n, box)
    out.setflags(write=False)
    return out


@checked
@register
class Reseda(KernelSolver):
    name = "reseda"
    shared_kernels = ("ac3",)
    title = "RESEDA (restarted EDA)"
    cites = "maire2012"
    order = 10
    description = (
        "Estimation of distribution algorithm with per-cell probabilities p[cell, digit], "
        "updated from the best of Q sampled grids, and partial restarts that fix a zone of a "
        "failed run's final grid."
    )
    iteration_name = "EDA step"
    phases = PHASES
    examples = (
        ({}, "reseda_fig4_1_hard"),
        ({"restart": "partial+full", "zones": "all", "Q": 40, "Q1": 8}, "ai_escargot"),
        ({"restart": "full", "sampling": "independent", "selection": "groups"}, "reseda_fig3_2_medium"),
        ({"coupling": True, "prefilter": "ac3"}, "ai_escargot"),
        # Partial and full restarts within the contract checks' first 30 iterations (seed 7: a run budget
        # spent at 8, rho > beta at 16, 23 and 28, a full restart at 28), for the phases check above all.
        ({"beta": 0.35, "run_budget": 8}, "reseda_fig4_1_hard"),
    )
    objective = Objective(cost="missing symbols")
    axes = (COST_AXIS, Axis("fraction", "rho, entropy", "right", (0.0, 1.0)))
    columns = (
        Column("cost", "cost of the step's best sample", color="#0072B2"),
        Column("mean_cost", "mean cost of the kept samples", color="#56B4E9", style="dotted"),
        Column(
            "rho",
            "rho = min over cells of max_k p",
            axis="fraction",
            color="#009E73",
            thresholds=(Threshold("beta", "beta", "a run fails when rho exceeds beta"),),
        ),
        Column("entropy", "mean normalised entropy of p", axis="fraction", color="#CC79A7"),
        Column("best_cost", "best cost since reset", color="#E69F00", style="steps"),
    )
    layers = (
        Layer("prob", "p[cell, digit]: the model", "float64", ("C", "N"), role="probability"),
        Layer("entropy", "normalised entropy of p per cell", "float64", ("C",), role="entropy"),
        Layer("rho", "min over cells of max_k p", "float"),
        Layer("kept", "the kept samples of the latest step", "int8", ("*", "C")),
        Layer("kept_costs", "their costs", "int64", ("*",)),
        Layer("zone", "unit fixed by the current partial restart, or -1", "int"),
        Layer("zone_name", "its name ('box 5', 'row 2') or ''", "str"),
        Layer("zone_cells", "cells of the zone the current partial restart fixed", "bool", ("C",), role="cells"),
        Layer("attempt", "attempt number (0-based): first run plus its partial restarts", "int"),
        Layer("run", "run number since reset (0-based)", "int"),
        Layer("run_step", "steps of the current run", "int"),
        Layer(
            "restarts",
            "one record per finished run (attempt and run 0-based; attempt_no and run_no from 1)",
            "records",
            role="runs",
            columns=(
                ("attempt_no", "Attempt"),
                ("run_no", "Run"),
                ("kind", "Kind"),
                ("zone_name", "Zone"),
                ("outcome", "Outcome"),
                ("steps", "Steps"),
                ("cost", "Cost"),
                ("end", "At iteration"),
            ),
        ),
        Layer("coupling", "index of the fixed box permutation and how many there are", "object", optional=True),
    )

    params = (
        Param(
            "alpha",
            "float",
            0.7,
            "Smoothing: fraction of p kept from one step to the next "
            "(p <- alpha*p + (1-alpha)*r). Larger is slower but more robust.",
            low=0.0,
            high=1.0,
            paper="RESEDA 2.2",
            step=0.05,
        ),
        Param(
            "beta",
            "float",
            0.6,
            "A run fails when rho(n) = min over cells of max_k p exceeds beta.",
            low=0.0,
            high=1.0,
            low_open=True,
            paper="RESEDA 2.3",
            step=0.05,
        ),
        Param(
            "Q", "int", 100, "Samples drawn per step.", low=1, high=1_000_000, label="Q (samples)", paper="RESEDA 2.2"
        ),
        Param(
            "Q1",
            "int",
            10,
            "Best samples kept per step to estimate r (at most Q).",
            low=1,
            high=1_000_000,
            label="Q1 (kept)",
            paper="RESEDA 2.2",
        ),
        Param(
            "sampling",
            "choice",
            "blocks",
            "'blocks': a permutation per box, cells with the most "
            "confident probabilities first (the paper's 'permutations'); 'independent': each cell from "
            "its own p.",
            choices=("blocks", "independent"),
            paper="RESEDA 3.1",
        ),
        Param(
            "precompute",
            "bool",
            True,
            "Pre-computation: p = 0 for digits a given peer uses, uniform on the others (else 1/N everywhere).",
            paper="RESEDA 2.1",
            when="next run",
        ),
        Param(
            "selection",
            "choice",
            "sort",
            "'sort': exactly the Q1 best (random tie-break); 'groups': "
            "the best of each of Q1 groups of Q/Q1 samples (cheaper, may miss good samples).",
            choices=("sort", "groups"),
            paper="RESEDA 2.2",
        ),
        Param(
            "restart",
            "choice",
            "partial+full",
            "After a failed run: 'none' stops; 'full' restarts "
            "from the puzzle; 'partial' reruns with each qualifying zone of the final grid fixed (one "
            "attempt); 'partial+full' repeats attempts until success (the paper's recommendation with "
            "zones=diagonal).",
            choices=RESTARTS,
            paper="RESEDA 4.2, 5.1",
            when="next failure",
        ),
        Param(
            "zones",
            "choice",
            "diagonal",
            "Zones a partial restart may fix: 'diagonal' (the n diagonal "
            "boxes), 'boxes' (all N), 'all' (rows, columns and boxes, 3N).",
            choices=ZONE_SETS,
            paper="RESEDA 4.2",
            when="next failure",
        ),
        Param(
            "zone_check",
            "choice",
            "permutation",
            "Which zones qualify: 'permutation' (the paper: the "
            "zone holds every digit and is not all givens) or 'consistent' (also no clash with a given; "
            "ours, saves hopeless reruns).",
            choices=("permutation", "consistent"),
            when="next failure",
        ),
        Param(
            "run_budget",
            "int",
            10_000,
            "Most steps of one run before it counts as failed (0 = no limit).",
            low=0,
            high=10**9,
            when="next step",
        ),
        Param(
            "prefilter",
            "choice",
            "none",
            "Before each run: 'ac3' fixes the cells AC3 decides and "
            "starts p from the AC3 domains; 'ac3+hidden' adds hidden singles (stronger than AC3). The "
            "paper's suggested future work.",
            choices=("none", "ac3", "ac3+hidden"),
            when="next run",
        ),
        Param(
            "coupling",
            "bool",
            False,
            "Brute-force coupling: each attempt fixes one admissible "
            "permutation of coupling_box (in a seeded random order) and attempts cycle through them.",
            paper="RESEDA 5.2",
            live=False,
        ),
        Param(
            "coupling_box",
            "int",
            1,
            "Box whose permutations coupling enumerates (1 = top-left, reading order).",
            low=1,
            high=25,
            live=False,
        ),
    )

    kernel = K
    layout = L
    State = ResedaState
    #: The current grid (an attribute here, where the base class declares a read-only property).
    grid: np.ndarray
    int_slots = (
        "Q",
        "Q1",
        Slot("sampling", {"blocks": L.SAMPLING_BLOCKS, "independent": L.SAMPLING_INDEPENDENT}),
        Slot("selection", {"groups": L.SELECT_GROUPS, "sort": L.SELECT_SORT}),
        "run_budget",
    )
    float_slots = ("alpha", "beta")
    fixed_grid = "base"
    #: The keyframe (:mod:`.keyframes`). ``base`` is the run's start (givens, a coupled box permutation, a
    #: restart zone of ``final_grid``, what AC3 fixed), which the parameters in force no longer tell (the
    #: prefilter changes live): it is read, and checked against the givens, the zone and the permutation in
    #: ``_loaded``. The free cells and the box tables are functions of ``base`` alone, read and required
    #: equal to what ``base`` gives (a keyframe holding others, ``box_avail = []`` say, is refused rather than
    #: silently rebuilt). The costs are rebuilt from the grids.
    keyframe = {
        "p": Field("float64", ("C", "N"), 0.0, 1.0 + P_TOLERANCE),
        "base": Field("int8", ("C",), 0, "N"),
        "grid": Field("int8", ("C",), 0, "N"),
        "best_grid": Field("int8", ("C",), 0, "N"),
        "counters": Counters(
            ranges={"C_RUN_STEP": (0, "iteration"), "C_N_KEPT": (0, "Q1")},
            derived=("C_COST", "C_BEST_COST"),
        ),
        "samples": Field("int8", ("Q", "C"), 0, "N"),
        "costs": Field("int64", ("Q",), 0, "3 * N * N"),
        "kept": Field("int64", ("Q1",), 0, "Q - 1"),
        "free_cells": Field("int32", ((0, "C"),), 0, "C - 1"),
        "box_free": Field("int32", ("N", "N"), -1, "C - 1"),
        "box_nfree": Field("int32", ("N",), 0, "N"),
        "box_avail": Field("uint32", ("N",), 0, "2 ** N - 1"),
    }
    extra = {
        "attempt": integer(0, MAX_COUNT),
        "run_index": integer(0, MAX_COUNT),
        "zone": integer(-1, "3 * N - 1"),
        "zone_queue": items(integer(0, "3 * N - 1"), "3 * N"),
        # A step starts at most 10,000 runs that end at once (inconsistent starts) besides its own.
        "history": items(Value(_check_run_record, "a run record"), "10001 * (iteration + 1)"),
        "run_start": integer(0, "iteration"),
        "run_kind": text(("first", "full", "partial")),
        "pending": flag(),
        "perm_index": integer(-1, MAX_PERMUTATIONS - 1),
        "final_grid": maybe(array(Field("int8", ("C",), 1, "N"))),
        "permutations": maybe(array(Field("int8", ((1, MAX_PERMUTATIONS), (0, "N")), 1, "N"))),
        "perm_order": maybe(array(Field("int64", ((1, MAX_PERMUTATIONS),), 0, MAX_PERMUTATIONS - 1))),
    }

    @classmethod
    def check_params(cls, params: Mapping[str, Any]) -> None:
        if "Q" in params and "Q1" in params and params["Q1"] > params["Q"]:
            raise ParameterError(
                f"Q1 must be at most Q (keep at most the samples drawn), got Q1 = {params['Q1']} > Q = {params['Q']}",
                name="Q1",
            )

    def check_puzzle(self, puzzle: Puzzle) -> None:
        if self._params["coupling"] and self._params["coupling_box"] > puzzle.N:
            raise ParameterError(
                f"coupling_box must be between 1 and {puzzle.N} for a {puzzle.N}x{puzzle.N} "
                f"puzzle, got {self._params['coupling_box']}",
                name="coupling_box",
            )

    # ---------------------------------------------------------------- reset
    def _reset(self):
        pz = self.puzzle
        N, C = pz.N, pz.C
        self.counters = np.zeros(K.N_COUNTERS, dtype=np.int64)
        self.p = np.zeros((C, N))
        self.base = pz.grid.copy()
        self.grid = pz.grid.copy()
        self.best_grid = pz.grid.copy()
        self.counters[K.C_COST] = self.counters[K.C_BEST_COST] = K.missing_cost(self.grid, self.geo.units, N)
        # The tables of base, until a run replaces them: a first start AC3 finds inconsistent leaves these.
        self.free_cells = np.flatnonzero(self.base == 0).astype(np.int32)
        self.box_free, self.box_nfree, self.box_avail = _box_tables(self.base, self.geo)
        self._alloc_buffers()
        self.attempt = -1
        self.run_index = -1
        self.zone = -1
        self.zone_queue: list[int] = []
        self.history: list[dict] = []
        self.run_start = 0
        self.run_kind = "first"
        self.permutations = None
        self.perm_order = None
        self.perm_index = -1
        self.final_grid = None  # the failed first run's grid, once there is one (a reused solver forgets the last)
        if self._params["coupling"]:
            box = self._params["coupling_box"] - 1
            self.permutations = admissible_box_permutations(pz.grid, pz.n, box)
            self.perm_order = self.rng.permutation(len(self.permutations))
            self.events.append(
                Event(0, "info", "coupling", None, f"{len(self.permutations)} admissible permutations of box {box + 1}")
            )
        # Start the first run now (no random draws), so the initial model can be shown before step 1.
        self._next_attempt_or_finish(first=True)
        self._begin_pending_run()

    def _alloc_buffers(self):
        Q, Q1 = self._params["Q"], self._params["Q1"]
        C = self.puzzle.C
        self.samples = np.zeros((Q, C), dtype=np.int8)
        self.costs = np.zeros(Q, dtype=np.int64)
        self.kept = np.zeros(Q1, dtype=np.int64)
        self.counters[K.C_N_KEPT] = 0

    def _params_changed(self, names):
        if names & {"Q", "Q1"}:
            # Samples do not carry over between steps, so new sizes apply at the next step.
            self._alloc_buffers()

    # --------------------------------------------------------------- runs
    def _attempt_base(self) -> np.ndarray:
        """The puzzle's givens plus, under coupling, this attempt's box permutation."""
        g = self._pz.grid.copy()
        if self.permutations is not None:
            k = int(self.perm_order[self.attempt % len(self.permutations)])
            self.perm_index = k
            box = self._params["coupling_box"] - 1
            free = [c for c in self.geo.units[2 * self.geo.N + box] if g[c] == 0]
            g[free] = self.permutations[k]
        return g

    def _start_run(self, extra_zone: int) -> bool:
        """Initialise p and the fixed cells for the next run; False if the start is inconsistent.

        Draws no random numbers, so where a chunk ends never changes the stream.
        """
        N = self._pz.N
        g = self._attempt_base()
        if extra_zone >= 0:
            cells = self.geo.units[extra_zone]
            g[cells] = self.final_grid[cells]
        self.zone = extra_zone
        self.run_index += 1
        self.run_start = self.iteration
        self.counters[K.C_RUN_STEP] = 0
        self.counters[K.C_N_KEPT] = 0
        pre = self._params["prefilter"]
        if pre != "none":
            res = ac3(g, hidden_singles=(pre == "ac3+hidden"))
            if not res.consistent:
                where = "" if res.wipeout_cell is None else f" at {cell_name(res.wipeout_cell, N)}"
                self._end_run("inconsistent", steps=0, detail=f"AC3 wipe-out{where}")
                return False
            g = np.asarray(res.grid, dtype=np.int8).copy()
            domains = np.asarray(res.domains)
        else:
            domains = initial_domains(g, self._pz.n, one_pass=True)
        self.base = g
        self.free_cells = np.flatnonzero(g == 0).astype(np.int32)
        self.p = _initial_p(g, domains, N, precompute=self._params["precompute"] or pre != "none")
        self.box_free, self.box_nfree, self.box_avail = _box_tables(g, self.geo)
        self.grid = g.copy()
        self.counters[K.C_COST] = K.missing_cost(self.grid, self.geo.units, N)
        if self.counters[K.C_COST] < self.counters[K.C_BEST_COST]:  # the prefilter or the zone filled cells
            self.best_grid = self.grid.copy()
            self.counters[K.C_BEST_COST] = self.counters[K.C_COST]
        if self.counters[K.C_COST] == 0:  # the prefilter or the zone completed the grid
            self._end_run("solved", steps=0)
            self.status = Status.SOLVED
        return True

    def _end_run(self, outcome: str, steps: int, detail: str = ""):
        rec = {
            "start": self.run_start,
            "end": self.iteration,
            "attempt": self.attempt,
            "run": self.run_index,
            "kind": self.run_kind,
            "zone": self.zone,
            "zone_name": self.geo.unit_name(self.zone) if self.zone >= 0 else "",
            "outcome": outcome,
            "steps": steps,
            "cost": self.cost,
            "detail": detail,
        }
        if self.permutations is not None:
            rec["permutation"] = self.perm_index
        self.history.append(rec)
        label = rec["zone_name"] or self.run_kind
        self.events.append(
            Event(
                self.iteration,
                "run_end",
                outcome,
                None,
                f"{label}, {steps} steps, cost {self.cost}" + (f" ({detail})" if detail else ""),
            )
        )

    def _next_attempt_or_finish(self, first: bool = False):
        """Decide what follows a failed run (no random draws); set status FAILED if nothing does.

        The next run itself starts at the next step (:meth:`_begin_pending_run`), so until then the
        state, counters included, still describe the run that just ended.
        """
        restart = self._params["restart"]
        if not first and self.zone_queue:
            self.pending = True
            return
        can_repeat = restart in ("full", "partial+full") or self.permutations is not None
        if first or can_repeat:
            self.pending = True  # an empty zone queue makes the next run open a new attempt
            return
        self.pending = False
        self.status = Status.FAILED

    def _queue_zones(self):
        """After a first run fails: the zones of its final grid that qualify for partial restarts."""
        self.final_grid = self.grid.copy()
        self.zone_queue = []
        if self._params["restart"] not in ("partial", "partial+full"):
            return
        g = self.final_grid
        givens = self._attempt_base() > 0
        geo = self.geo
        consistent = self._params["zone_check"] == "consistent"
        for u in zone_units(self._params["zones"], geo.n):
            cells = geo.units[u]
            if np.all(givens[cells]) or len(set(g[cells].tolist()) - {0}) != geo.N:
                continue
            if consistent and _clashes_with_givens(g, cells, givens, geo):
                continue
            self.zone_queue.append(int(u))

    def _begin_pending_run(self) -> None:
        """Start the run a failure (or reset) scheduled; skip starts that are inconsistent."""
        guard = 0
        while self.pending and self.status == Status.RUNNING:
            guard += 1
            if guard > 10_000:
                self.status = Status.FAILED
                self.events.append(Event(self.iteration, "info", "stopped", None, "no consistent start found"))
                return
            self.pending = False
            if self.zone_queue:
                zone = self.zone_queue.pop(0)
                self.run_kind = "partial"
                self.events.append(Event(self.iteration, "restart", "partial", None, self.geo.unit_name(zone)))
                ok = self._start_run(zone)
            else:
                self.attempt += 1
                self.run_kind = "first" if self.attempt == 0 else "full"
                if self.attempt > 0:
                    self.events.append(Event(self.iteration, "restart", "full", None, f"attempt {self.attempt + 1}"))
                ok = self._start_run(-1)
            if not ok:
                if self.attempt == 0 and self.run_kind == "first" and self.permutations is None:
                    self.status = Status.FAILED  # the puzzle itself is inconsistent
                    return
                self._next_attempt_or_finish()

    # ---------------------------------------------------------------- step
    def _before_chunk(self):
        if self.pending:
            self._begin_pending_run()

    def _run(self, k, trace, events, ip, fp):
        return K.run(self.arrays(), self.geo.units, ip, fp, self.rng, k, trace)

    def _run_phase(self, index, ctx):
        return run_phase(self, index, ctx)

    def _end(self, code):
        steps = int(self.counters[K.C_RUN_STEP])
        if code == K.SOLVED:
            self._end_run("solved", steps=steps)
            self.status = Status.SOLVED
        elif code in (K.CONVERGED, K.BUDGET):  # the run failed; what follows is decided here
            self._end_run("failed", steps=steps, detail="rho > beta" if code == K.CONVERGED else "run budget")
            if self.run_kind in ("first", "full"):  # an attempt's opening run
                self._queue_zones()
            self._next_attempt_or_finish()

    # ------------------------------------------------------------ snapshot
    def current_rho(self) -> float:
        return float(K.rho(self.p, self.free_cells)) if self.run_index >= 0 else 0.0

    def _layers(self):
        k = int(self.counters[K.C_N_KEPT])
        kept = self.kept[:k]
        p = self.p
        with np.errstate(divide="ignore", invalid="ignore"):
            h = -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0), axis=1) / math.log(self.puzzle.N)
        return {
            "prob": frozen_copy(p),
            "entropy": frozen_copy(h),
            "rho": self.current_rho(),
            "kept": frozen_copy(self.samples[kept]),
            "kept_costs": frozen_copy(self.costs[kept]),
            "zone": int(self.zone),
            "zone_name": self.geo.unit_name(self.zone) if self.zone >= 0 else "",
            "zone_cells": frozen_copy(self._zone_mask()),
            "attempt": int(max(self.attempt, 0)),
            "run": int(max(self.run_index, 0)),
            "run_step": int(self.counters[K.C_RUN_STEP]),
            "restarts": tuple(
                MappingProxyType({**r, "attempt_no": r["attempt"] + 1, "run_no": r["run"] + 1}) for r in self.history
            ),
            "coupling": None if self.permutations is None else (int(self.perm_index), len(self.permutations)),
        }

    def _zone_mask(self) -> np.ndarray:
        mask = np.zeros(self._pz.C, dtype=bool)
        if self.zone >= 0:
            mask[self.geo.units[self.zone]] = True
        return mask

    @classmethod
    def summarize(cls, snapshot: Snapshot) -> dict[str, Any]:
        """Attempts, runs, restarts (runs after the first), and each run's steps, outcome and zone."""
        layers = snapshot.layers
        runs = layers["restarts"]
        return {
            "attempts": int(layers["attempt"]) + 1,
            "runs": int(layers["run"]) + 1,
            "restarts": int(layers["run"]),
            "run_steps": [int(r["steps"]) for r in runs],
            "run_outcomes": [r["outcome"] for r in runs],
            "run_zones": [r["zone_name"] or r["kind"] for r in runs],
        }

    # --------------------------------------------------------------- state
    def _extra_state(self):
        return dict(
            attempt=self.attempt,
            run_index=self.run_index,
            zone=self.zone,
            zone_queue=list(self.zone_queue),
            history=[dict(h) for h in self.history],
            run_start=self.run_start,
            run_kind=self.run_kind,
            pending=self.pending,
            perm_index=self.perm_index,
            final_grid=self.final_grid,
            permutations=self.permutations,
            perm_order=self.perm_order,
        )

    def _derive(self):
        units, N = self.geo.units, self._pz.N
        self.counters[K.C_COST] = K.missing_cost(self.grid, units, N)
        self.counters[K.C_BEST_COST] = K.missing_cost(self.best_grid, units, N)

    def _check_loaded(self):
        """What the arrays must be, together (the run bookkeeping is checked against them in :meth:`_loaded`)."""
        pz, geo, c = self._pz, self.geo, self.counters
        N, where = pz.N, "state.algorithm"
        base, grid = self.base, self.grid
        require_givens(base, pz, f"{where}.base")
        require_givens(self.best_grid, pz, f"{where}.best_grid")
        free = np.flatnonzero(base == 0).astype(np.int32)
        if not np.array_equal(self.free_cells, free):
            raise StateError(f"{where}.free_cells are not the {len(free)} free cells of base")
        for name, want in zip(("box_free", "box_nfree", "box_avail"), _box_tables(base, geo)):
            got = getattr(self, name)
            if not np.array_equal(got, want):
                b = int(np.flatnonzero((got != want).reshape(N, -1).any(axis=1))[0])
                raise StateError(f"{where}.{name}[{b}] is not what base gives for box {b + 1}")
        self._check_model()
        fixed = base > 0
        if not np.array_equal(grid[fixed], base[fixed]):
            cell = int(np.flatnonzero(fixed & (grid != base))[0])
            raise StateError(f"{where}.grid[{cell}] is {int(grid[cell])}, not base's {int(base[cell])}")
        if self.status != Status.FAILED:  # a start AC3 found inconsistent leaves the run before it (and fails)
            if c[K.C_RUN_STEP] == 0 and not np.array_equal(grid, base):
                raise StateError(f"{where}.grid is not base, though its run has taken no step")
            if c[K.C_RUN_STEP] > 0 and not grid.all():
                raise StateError(f"{where}.grid has empty cells, though it is a sample of its run")
        if c[K.C_BEST_COST] > c[K.C_COST]:
            raise StateError(
                f"{where}.best_grid costs {int(c[K.C_BEST_COST])}, more than the {int(c[K.C_COST])} of grid"
            )
        if (self.status == Status.SOLVED) != (c[K.C_BEST_COST] == 0):
            raise StateError(f"state.status is {self.status}, but best_grid costs {int(c[K.C_BEST_COST])}")
        k = int(c[K.C_N_KEPT])
        if k not in (0, self._params["Q1"]):
            raise StateError(f"{where}.counters[C_N_KEPT] is {k}, neither 0 nor Q1 = {self._params['Q1']}")
        kept = self.kept[:k]
        if len(np.unique(kept)) != k:
            raise StateError(f"{where}.kept names a sample twice")
        for q in kept.tolist():  # the latest step's selection: samples of this run, each with its cost
            sample = self.samples[q]
            if not sample.all() or not np.array_equal(sample[fixed], base[fixed]):
                raise StateError(f"{where}.samples[{q}] is kept, but is not a sample of base")
            cost = int(K.missing_cost(sample, geo.units, N))
            if self.costs[q] != cost:
                raise StateError(f"{where}.costs[{q}] is {int(self.costs[q])}, but its sample costs {cost}")

    def _check_model(self):
        """``p``: certain of base's digit on every fixed cell, each free cell's row a distribution."""
        p, base, where = self.p, self.base, "state.algorithm.p"
        if self.status == Status.FAILED and not p.any():
            return  # the first start was inconsistent: no run ever set a model
        fixed = np.flatnonzero(base > 0)
        want = np.zeros((len(fixed), p.shape[1]))
        want[np.arange(len(fixed)), base[fixed].astype(np.int64) - 1] = 1.0
        wrong = np.flatnonzero((p[fixed] != want).any(axis=1))
        if len(wrong):
            cell = int(fixed[wrong[0]])
            raise StateError(f"{where}[{cell}] is not certain of base's digit {int(base[cell])} on that fixed cell")
        sums = p.sum(axis=1)
        off = np.flatnonzero(np.abs(sums - 1.0) > ROW_SUM_TOLERANCE)
        if len(off):
            raise StateError(f"{where}[{int(off[0])}] sums to {float(sums[off[0]]):g}, not 1")

    def _check_runs(self, st):
        """The run bookkeeping (extra values) against itself and the arrays; StateError naming the value."""
        pz, geo, c = self._pz, self.geo, self.counters
        N, where = pz.N, "state.algorithm"
        attempt, run, zone = st["attempt"], st["run_index"], st["zone"]
        perms, order, final = st["permutations"], st["perm_order"], st["final_grid"]
        if st["run_start"] != self.iteration - int(c[K.C_RUN_STEP]):
            raise StateError(
                f"{where}.run_start is {st['run_start']}, but the run has taken {int(c[K.C_RUN_STEP])} "
                f"of the {self.iteration} steps"
            )
        if attempt > run:
            raise StateError(f"{where}.attempt is {attempt}, more than the {run + 1} runs so far")
        queue = st["zone_queue"]
        if any(b <= a for a, b in zip(queue, queue[1:])):
            raise StateError(f"{where}.zone_queue is not in the order zones are tried")
        if (zone >= 0 or queue) and final is None:
            raise StateError(f"{where}.final_grid is null, but a partial restart takes its zone from it")
        if final is not None:
            require_givens(final, pz, f"{where}.final_grid")
        # Brute-force coupling: the permutations are the box's (a function of the givens), their order one.
        coupled = bool(self._params["coupling"])
        if (perms is not None) != coupled or (order is not None) != coupled:
            state = "null" if coupled else "set"
            raise StateError(f"{where}.permutations are {state}, though coupling is {str(coupled).lower()}")
        if coupled:
            box = self._params["coupling_box"] - 1
            if not np.array_equal(perms, _admissible(pz.grid.tobytes(), pz.n, box)):
                raise StateError(f"{where}.permutations are not the admissible permutations of box {box + 1}")
            if not np.array_equal(np.sort(order), np.arange(len(perms))):
                raise StateError(f"{where}.perm_order is not an order of the {len(perms)} permutations")
            if st["perm_index"] != int(order[attempt % len(perms)]):
                raise StateError(f"{where}.perm_index is {st['perm_index']}, not attempt {attempt + 1}'s permutation")
        elif st["perm_index"] != -1:
            raise StateError(f"{where}.perm_index is {st['perm_index']}, though there is no coupling")
        if self.status != Status.FAILED:  # the run in force started from base (a failed start leaves the last)
            if zone >= 0:
                cells = geo.units[zone]
                if not np.array_equal(self.base[cells], final[cells]):
                    raise StateError(f"{where}.base does not hold {geo.unit_name(zone)} of final_grid")
            if coupled:
                cells = [q for q in geo.units[2 * N + box] if pz.grid[q] == 0]
                if not np.array_equal(self.base[cells], perms[st["perm_index"]]):
                    raise StateError(f"{where}.base does not hold permutation {st['perm_index']} of box {box + 1}")
        self._check_history(st, coupled)

    def _check_history(self, st, coupled):
        geo, where = self.geo, "state.algorithm.history"
        history, run = st["history"], st["run_index"]
        ended = st["pending"] or self.status != Status.RUNNING  # the run in force has its record
        if len(history) != run + ended:
            raise StateError(f"{where} holds {len(history)} runs, not the {run + ended} ended of {run + 1}")
        details = self._run_details()
        order = st["perm_order"]
        previous_end, attempt = 0, -1
        # Every run, the one in force last: a partial restart keeps the attempt of the run before it, any
        # other run opens the next attempt (the first run is attempt 0's).
        current = {"kind": st["run_kind"], "zone": st["zone"], "attempt": st["attempt"], "start": st["run_start"]}
        runs = history if ended else [*history, current]
        for i, r in enumerate(runs):
            at = f"{where}[{i}]" if i < len(history) else "state.algorithm"
            if r is not current and r["run"] != i:
                raise StateError(f"{at}.run is {r['run']}, not {i}")
            if i == 0 and r["kind"] != "first":
                raise StateError(f"{at}: the first run is a {r['kind']} one")
            attempt += r["kind"] != "partial" or i == 0
            if r["attempt"] != attempt:
                raise StateError(f"{at}.attempt is {r['attempt']}, not {attempt} (the runs before it tell)")
            zone = r["zone"]
            if r["kind"] != ("partial" if zone >= 0 else "first" if attempt == 0 else "full"):
                kind = "run_kind" if r is current else "kind"
                raise StateError(f"{at}.{kind} is {r['kind']!r}, not what attempt {attempt} and zone {zone} make it")
            if r["start"] < previous_end:
                raise StateError(f"{at}: its run starts at {r['start']}, before the run before it ended")
            if r is current:
                break
            if r["end"] < r["start"] or r["steps"] != r["end"] - r["start"]:
                raise StateError(f"{at}: its start, end and steps are not those of one run")
            if r["zone_name"] != (geo.unit_name(zone) if zone >= 0 else ""):
                raise StateError(f"{at}.zone_name is not the name of zone {zone}")
            if r["detail"] not in details:
                raise StateError(f"{at}.detail is {r['detail'][:40]!r}, not one a run ends with")
            if ("permutation" in r) != coupled:
                raise StateError(f"{at} is {'not ' if coupled else ''}a coupled run's record")
            if coupled and r["permutation"] != int(order[attempt % len(order)]):
                raise StateError(f"{at}.permutation is {r['permutation']}, not attempt {attempt + 1}'s permutation")
            previous_end = r["end"]
        if ended and history:
            last = history[-1]
            if (last["start"], last["kind"], last["zone"]) != (st["run_start"], st["run_kind"], st["zone"]):
                raise StateError(f"{where}[{len(history) - 1}] is not the record of the run in force, though it ended")

    def _run_details(self) -> set[str]:
        """Every ``detail`` a run record may hold (what :meth:`_end` and :meth:`_start_run` write)."""
        N = self._pz.N
        wipeouts = {f"AC3 wipe-out at {cell_name(q, N)}" for q in range(self._pz.C)}
        return {"", "rho > beta", "run budget", "AC3 wipe-out", *wipeouts}

    def _loaded(self, st):
        self._check_runs(st)
        for key in (
            "attempt",
            "run_index",
            "zone",
            "run_start",
            "run_kind",
            "pending",
            "perm_index",
            "permutations",
            "perm_order",
        ):
            setattr(self, key, st[key])
        self.zone_queue = list(st["zone_queue"])
        self.history = [dict(h) for h in st["history"]]
        # None too: a keyframe from before the first run failed leaves none of a later state behind (a seek back).
        self.final_grid = None if st["final_grid"] is None else st["final_grid"].copy()


# ------------------------------------------------------------------ helpers
def _initial_p(g: np.ndarray, domains: np.ndarray, N: int, precompute: bool) -> np.ndarray:
    """RESEDA 2.1: p = 1 on a fixed digit; uniform on the domain (pre-computation) or on all digits.

    A free cell whose domain is empty (a restart zone that clashes with the
    givens) gets the uniform row: the run is hopeless, but must stay well defined.
    """
    C = g.shape[0]
    digits = np.arange(N)
    allowed = ((domains[:, None].astype(np.int64) >> digits[None, :]) & 1).astype(bool)
    if not precompute:
        allowed[g == 0] = True
    allowed[g > 0] = False
    allowed[np.flatnonzero(g > 0), g[g > 0].astype(np.int64) - 1] = True
    empty = ~allowed.any(axis=1)
    allowed[empty] = True
    p = allowed / allowed.sum(axis=1, keepdims=True)
    assert p.shape == (C, N)
    return np.ascontiguousarray(p, dtype=np.float64)


def _box_tables(g: np.ndarray, geo):
    """Free cells per box (padded with -1), their count, and the digits no fixed cell of the box holds."""
    box_free, box_nfree = box_free_cells(g, geo)
    return box_free, box_nfree, box_missing_masks(g, geo, np.uint32)


def _clashes_with_givens(g, cells, givens, geo) -> bool:
    for c in cells:
        for q in geo.peers[c]:
            if givens[q] and g[q] == g[c] and q not in cells:
                return True
    return False
