"""Hill climbing: the steepest-ascent search of Jones, Roach and Perkins with greedy initialisation.

Every box holds a permutation of its missing digits; a move swaps two free
cells of one box. The objective (maximised) is ``f = w1*f1 + w2*f2``, f1 the
distinct digits over rows and columns, f2 the clashes between free cells and
givens. Each move scores every in-box swap and applies the best one if it
strictly improves f. A stuck state counts towards a plateau: its equal-score
successors are queued and the search continues from the best queued state
(a *plateau escape*); once ``plateau`` stuck states in a row share one score,
the queue is cleared and the search restarts from a new greedy initial state
(a *random restart*). Restarts shuffle the order of each box's missing digits,
so initial states differ.

``cost`` is the missing-symbol cost (0 iff solved); the paper's f, f1, f2 and
the queue size are traced.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from .._checks import checked
from .._kernels import hill_climb_layout as L, lazy
from ..errors import ParameterError, StateError
from ..model.geometry import geometry
from ._boxes import box_free_cells, box_missing_digits
from ._hill_climb_phases import PHASES, run_phase
from .base import Event, KernelSolver, Param, Slot, Snapshot, Status, frozen_copy, register
from .declare import Axis, Column, Layer, Objective
from .keyframes import (
    MAX_COUNT,
    Counters,
    Field,
    integer,
    items,
    record,
    require_box_permutations,
    require_givens,
    text,
)

K = lazy("sudoku_lab._kernels.hill_climb")

__all__ = ["HillClimb", "hill_tables", "unit_clashes"]


@checked
def hill_tables(base: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-puzzle tables of the kernels.

    Parameters
    ----------
    base : ndarray of int8, shape (C,)
        The givens (0 where free).
    n : int
        Box size.

    Returns
    -------
    box_free : ndarray of int32, shape (N, N)
        Free cells of each box in reading order, padded with -1.
    box_nfree : ndarray of int32, shape (N,)
    box_missing : ndarray of int32, shape (N, N)
        Digits missing from each box's givens, increasing, padded with 0.
    GR, GC : ndarray of int32, shape (N, N)
        ``GR[r, d-1] = 1`` if a given of row r holds d; ``GC`` per column.
    """
    geo = geometry(n)
    N = geo.N
    box_free, box_nfree = box_free_cells(base, geo)
    box_missing = box_missing_digits(base, geo)
    GR = np.zeros((N, N), dtype=np.int32)
    GC = np.zeros((N, N), dtype=np.int32)
    for cell in np.flatnonzero(base > 0):
        r, c = divmod(int(cell), N)
        GR[r, base[cell] - 1] = 1
        GC[c, base[cell] - 1] = 1
    return box_free, box_nfree, box_missing, GR, GC


@checked
def unit_clashes(grid: np.ndarray, n: int) -> np.ndarray:
    """Row and column clash counts: int64 (2, N), ``N`` minus the distinct digits of each row (0) and column (1)."""
    N = n * n
    g = np.asarray(grid).reshape(N, N)
    out = np.zeros((2, N), dtype=np.int64)
    for k in range(N):
        out[0, k] = N - len(set(g[k].tolist()) - {0})
        out[1, k] = N - len(set(g[:, k].tolist()) - {0})
    return out


#: The arrays of a search (defined in its kernel's layout module; the kernels take them as one argument).
HillClimbState = L.HillClimbState


@checked
@register
class HillClimb(KernelSolver):
    name = "hill_climb"
    title = "Hill climbing (steepest ascent)"
    cites = "jones2008"
    order = 20
    description = (
        "Steepest-ascent hill climbing over in-box swaps from a greedy initial state with "
        "post-swapping; f = w1*f1 + w2*f2 (distinct digits per row and column, clashes with "
        "givens); a priority queue detects plateaus, which end in random restarts."
    )
    iteration_name = "move"
    examples = (
        ({}, "kennett_hard_007"),
        ({"greedy": False, "post_swap": False, "random_ties": True}, "reseda_fig3_2_medium"),
        ({"greedy": True, "post_swap": False}, "reseda_fig4_1_hard"),
        ({"plateau": 2, "queue_capacity": 4, "w2": -2.0}, "ai_escargot"),
        ({"plateau": 3}, "benchmarks/lewis_16x16_35:1"),
    )
    objective = Objective(cost="missing symbols", native="f", native_label="f = w1 f1 + w2 f2", native_sense="max")
    axes = (Axis("cost", "cost, clashes with givens, queue", "left"), Axis("fitness", "f, f1", "right"))
    columns = (
        Column("cost", "cost (missing symbols)", color="#0072B2"),
        Column("best_cost", "best cost since reset", color="#E69F00", style="steps"),
        Column("f", "f = w1 f1 + w2 f2", axis="fitness", color="#009E73"),
        Column("f1", "f1: distinct digits per row and column", axis="fitness", color="#56B4E9", style="dotted"),
        Column("f2", "f2: clashes with givens", color="#D55E00", style="dotted"),
        Column("queue", "states in the plateau queue", color="#CC79A7", style="steps", shown=False),
    )
    layers = (
        Layer(
            "clashes",
            "clashes per row (0) and column (1): N minus its distinct digits",
            "int64",
            (2, "N"),
            role="unit_counts",
        ),
        Layer(
            "swap",
            "the last move's swap (no row after a plateau escape or a restart)",
            "int64",
            ("*", 2),
            role="cell_pairs",
        ),
        Layer("f", "f = w1*f1 + w2*f2 of the current state", "float"),
        Layer("f1", "distinct digits summed over rows and columns", "int"),
        Layer("f2", "clashes between a free cell and a given", "int"),
        Layer("queue", "states in the plateau queue", "int"),
        Layer("stuck", "stuck states in a row at one score (a restart at plateau)", "int"),
        Layer("run", "runs since reset (0-based): restarts so far", "int"),
        Layer("plateau_jumps", "plateau escapes since reset", "int"),
        Layer(
            "runs",
            "one record per run (run_no from 1)",
            "records",
            role="runs",
            columns=(
                ("run_no", "Run"),
                ("start", "From it"),
                ("moves", "Moves"),
                ("jumps", "Plateau escapes"),
                ("init_f1", "Initial f1"),
                ("init_f2", "Initial clashes"),
                ("best_cost", "Best cost"),
                ("outcome", "Outcome"),
            ),
        ),
    )
    params = (
        Param(
            "w1",
            "float",
            1.0,
            "Weight of f1 (distinct digits per row and column) in f = w1*f1 + w2*f2.",
            low=-100.0,
            high=100.0,
            paper="Jones 4.3",
            step=0.5,
        ),
        Param(
            "w2",
            "float",
            -1.0,
            "Weight of f2 (clashes between a free cell and a given) in f.",
            low=-100.0,
            high=100.0,
            paper="Jones 4.3",
            step=0.5,
        ),
        Param(
            "greedy",
            "bool",
            True,
            "Greedy initial placement: each free cell takes the next missing digit of "
            "its box that clashes with no given (else random placement).",
            paper="Jones 4.4, Figure 3",
            when="next restart",
        ),
        Param(
            "post_swap",
            "bool",
            True,
            "Post-swapping: each free digit clashing with a given is swapped with "
            "another free cell of its box (random order) when that creates no new clash.",
            paper="Jones 4.4",
            when="next restart",
        ),
        Param(
            "initial_order",
            "choice",
            "random",
            "Order of each box's missing digits for the initial state: "
            "'random' (a shuffle for every initial state) or 'sorted' (increasing for the first one; restarts "
            "always shuffle).",
            choices=("random", "sorted"),
            live=False,
        ),
        Param(
            "plateau",
            "int",
            10,
            "Stuck states in a row sharing one score (none with a better successor) "
            "that end a run in a random restart.",
            low=1,
            high=1_000_000,
            paper="Jones 4.5",
        ),
        Param(
            "queue_capacity",
            "int",
            100,
            "Most states the plateau queue holds (the best scores, newest first "
            "among equals); 0 disables plateau escapes.",
            low=0,
            high=100_000,
            live=False,
        ),
        Param(
            "random_ties",
            "bool",
            False,
            "Break ties between equally good swaps uniformly at random (else the first in box and reading order).",
        ),
        Param(
            "budget",
            "int",
            5_000_000,
            "Most moves before the search gives up (0 = no limit).",
            low=0,
            high=10**10,
            when="next move",
        ),
    )

    phases = PHASES

    kernel = K
    layout = L
    State = HillClimbState
    #: The keyframe (:mod:`.keyframes`): the current state, the best and the plateau queue are read and
    #: checked; the givens, the box tables, the digit counts and the scores are rebuilt from them.
    keyframe = {
        "base": Field("int8", ("C",), derived=True),
        "grid": Field("int8", ("C",), 1, "N"),
        "best_grid": Field("int8", ("C",), 1, "N"),
        "row_cnt": Field("int32", ("N", "N"), derived=True),
        "col_cnt": Field("int32", ("N", "N"), derived=True),
        "q_grid": Field("int8", ("queue_capacity", "C"), 0, "N"),
        "q_f1": Field("int64", ("queue_capacity",), 0, "2 * N * N"),
        "q_f2": Field("int64", ("queue_capacity",), 0, "2 * C"),
        "q_seq": Field("int64", ("queue_capacity",), 0, MAX_COUNT),
        "counters": Counters(
            ranges={
                "C_BEST_COST": (0, 1 << 40),
                "C_QLEN": (0, "queue_capacity"),
                "C_QSEQ": (0, MAX_COUNT),
                "C_STUCK_COUNT": (0, MAX_COUNT),
                "C_STUCK_F1": (0, "2 * N * N"),
                "C_STUCK_F2": (0, "2 * C"),
                "C_SWAP_A": (-1, "C - 1"),
                "C_SWAP_B": (-1, "C - 1"),
                "C_RUN": (0, "iteration"),
                "C_RUN_START": (0, "iteration"),
                "C_RUN_JUMPS": (0, MAX_COUNT),
                "C_RUN_BEST": (0, 1 << 40),
                "C_INIT_F1": (0, "2 * N * N"),
                "C_INIT_F2": (0, "2 * C"),
                "C_JUMPS": (0, MAX_COUNT),
            },
            derived=("C_COST", "C_F1", "C_F2"),
        ),
        "box_free": Field("int32", ("N", "N"), derived=True),
        "box_nfree": Field("int32", ("N",), derived=True),
        "box_missing": Field("int32", ("N", "N"), derived=True),
        "GR": Field("int32", ("N", "N"), derived=True),
        "GC": Field("int32", ("N", "N"), derived=True),
    }
    extra = {
        "history": items(
            record(
                run=integer(),
                run_no=integer(1),
                start=integer(0, "iteration"),
                end=integer(0, "iteration"),
                moves=integer(),
                jumps=integer(),
                init_f1=integer(0, "2 * N * N"),
                init_f2=integer(0, "2 * C"),
                best_cost=integer(0, 1 << 40),
                outcome=text(("solved", "budget", "restart (plateau)", "restart (queue empty)")),
                cost=integer(0, 1 << 40),
            ),
            "iteration + 1",
        )
    }
    int_slots = ("greedy", "post_swap", Slot("random_order", value=lambda p: 1), "plateau", "budget", "random_ties")
    float_slots = ("w1", "w2")

    @classmethod
    def check_params(cls, params: Mapping[str, Any]) -> None:
        if params.get("w1", 1.0) <= 0:
            raise ParameterError(
                f"w1 must be positive (f must grow with distinct digits, or no state is "
                f"better than a solved one), got {params['w1']:g}",
                name="w1",
            )

    # ---------------------------------------------------------------- reset
    def _reset(self):
        pz = self.puzzle
        N, C = pz.N, pz.C
        self.base = pz.grid.copy()
        self.box_free, self.box_nfree, self.box_missing, self.GR, self.GC = hill_tables(self.base, pz.n)
        self.grid = self.base.copy()
        self.best_grid = self.base.copy()
        self.row_cnt = np.zeros((N, N), dtype=np.int32)
        self.col_cnt = np.zeros((N, N), dtype=np.int32)
        cap = self._params["queue_capacity"]
        self.q_grid = np.zeros((cap, C), dtype=np.int8)
        self.q_f1 = np.zeros(cap, dtype=np.int64)
        self.q_f2 = np.zeros(cap, dtype=np.int64)
        self.q_seq = np.zeros(cap, dtype=np.int64)
        self.counters = np.zeros(K.N_COUNTERS, dtype=np.int64)
        self.counters[K.C_BEST_COST] = 1 << 40
        self.history: list[dict] = []
        ip, _ = self._kernel_params()
        ip[K.P_RANDOM_ORDER] = int(self._params["initial_order"] == "random")
        K.start(self.arrays(), ip, self.rng)
        if self.cost == 0:
            self._end_run("solved")
            self.status = Status.SOLVED

    # ---------------------------------------------------------- properties
    def f(self) -> float:
        """The current state's f = w1*f1 + w2*f2 under the weights in force."""
        return float(self._params["w1"] * self.counters[K.C_F1] + self._params["w2"] * self.counters[K.C_F2])

    # ---------------------------------------------------------------- runs
    def _run_record(self, end: int, outcome: str, jumps: int, best: int, init_f1: int, init_f2: int) -> dict:
        c = self.counters
        start = int(self.history[-1]["end"]) if self.history else 0
        return {
            "run": len(self.history),
            "run_no": len(self.history) + 1,
            "start": start,
            "end": end,
            "moves": end - start,
            "jumps": jumps,
            "init_f1": init_f1,
            "init_f2": init_f2,
            "best_cost": best,
            "outcome": outcome,
            "cost": int(c[K.C_COST]),
        }

    def _end_run(self, outcome: str) -> None:
        c = self.counters
        self.history.append(
            self._run_record(
                int(c[K.C_ITERATION]),
                outcome,
                int(c[K.C_RUN_JUMPS]),
                int(c[K.C_RUN_BEST]),
                int(c[K.C_INIT_F1]),
                int(c[K.C_INIT_F2]),
            )
        )

    # ---------------------------------------------------------------- step
    def _run(self, k, trace, events, ip, fp):
        self._init = (int(self.counters[K.C_INIT_F1]), int(self.counters[K.C_INIT_F2]))  # the run's, before the chunk
        return K.run(self.arrays(), ip, fp, self.rng, k, trace, events)

    def _run_phase(self, index, ctx):
        return run_phase(self, index, ctx)

    def _on_events(self, rows):
        for row in rows:
            it = int(row[K.E_ITERATION])
            if row[K.E_KIND] == K.EV_JUMP:
                self.events.append(Event(it, "restart", "plateau", None, f"queue {int(row[K.E_QUEUE])}"))
                continue
            why = "plateau" if row[K.E_REASON] == K.WHY_PLATEAU else "queue empty"
            self.history.append(
                self._run_record(it, f"restart ({why})", int(row[K.E_RUN_JUMPS]), int(row[K.E_RUN_BEST]), *self._init)
            )
            self.history[-1]["cost"] = int(row[K.E_RUN_BEST])  # the state before the restart is gone
            self._init = (int(row[K.E_INIT_F1]), int(row[K.E_INIT_F2]))
            self.events.append(Event(it, "restart", "random", None, f"run {len(self.history) + 1}, {why}"))

    def _end(self, code):
        if code == K.SOLVED:
            self._end_run("solved")
        elif code == K.BUDGET:
            self._end_run("budget")
            self.events.append(Event(self.iteration, "run_end", "failed", None, "budget spent"))
        super()._end(code)

    # ------------------------------------------------------------ snapshot
    def _layers(self):
        c = self.counters
        a, b = int(c[K.C_SWAP_A]), int(c[K.C_SWAP_B])
        swap = np.array([[a, b]] if a >= 0 else np.zeros((0, 2)), dtype=np.int64).reshape(-1, 2)
        N = self.puzzle.N
        clashes = np.stack([N - (self.row_cnt > 0).sum(axis=1), N - (self.col_cnt > 0).sum(axis=1)]).astype(np.int64)
        return {
            "clashes": frozen_copy(clashes),
            "swap": frozen_copy(swap),
            "f": self.f(),
            "f1": int(c[K.C_F1]),
            "f2": int(c[K.C_F2]),
            "queue": int(c[K.C_QLEN]),
            "stuck": int(c[K.C_STUCK_COUNT]),
            "run": int(c[K.C_RUN]),
            "plateau_jumps": int(c[K.C_JUMPS]),
            "runs": tuple(MappingProxyType(dict(r)) for r in self.history),
        }

    @classmethod
    def summarize(cls, snapshot: Snapshot) -> dict[str, Any]:
        """Restarts, plateau escapes, and the first initial state's f1 and clashes with givens."""
        layers = snapshot.layers
        runs = layers["runs"]
        first = runs[0] if runs else None
        return {
            "restarts": int(layers["run"]),
            "plateau_jumps": int(layers["plateau_jumps"]),
            "init_f1": None if first is None else int(first["init_f1"]),
            "init_f2": None if first is None else int(first["init_f2"]),
        }

    # --------------------------------------------------------------- state
    def _extra_state(self):
        return {"history": [dict(h) for h in self.history]}

    def _loaded(self, st):
        self.history = [dict(h) for h in st["history"]]

    def _derive(self):
        pz = self._pz
        self.base = pz.grid.copy()
        self.box_free, self.box_nfree, self.box_missing, self.GR, self.GC = hill_tables(self.base, pz.n)
        self.row_cnt = np.zeros((pz.N, pz.N), dtype=np.int32)
        self.col_cnt = np.zeros((pz.N, pz.N), dtype=np.int32)
        f1, f2 = K.full_scores(self.grid, self.base, self.row_cnt, self.col_cnt, self.GR, self.GC)
        c = self.counters
        c[K.C_F1], c[K.C_F2], c[K.C_COST] = f1, f2, 2 * pz.N * pz.N - f1

    def _check_loaded(self):
        pz = self._pz
        for name, grid in (("grid", self.grid), ("best_grid", self.best_grid)):
            require_givens(grid, pz, f"state.algorithm.{name}")
            require_box_permutations(grid, pz, f"state.algorithm.{name}")
        for k in range(int(self.counters[K.C_QLEN])):
            require_givens(self.q_grid[k], pz, f"state.algorithm.q_grid[{k}]")
            require_box_permutations(self.q_grid[k], pz, f"state.algorithm.q_grid[{k}]")
        best = int(unit_clashes(self.best_grid, pz.n).sum())
        if best != int(self.counters[K.C_BEST_COST]):
            raise StateError(
                f"state.algorithm.counters[C_BEST_COST] is {int(self.counters[K.C_BEST_COST])}, "
                f"but its best_grid costs {best}"
            )
