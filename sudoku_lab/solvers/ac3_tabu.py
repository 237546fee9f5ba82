"""AC3-tabu search: the hybrid of Soto, Crawford, Galleguillos, Monfroy and Paredes (2013).

A tabu search over consistent partial assignments. The state S is the
current domains (one mask per cell, always at an AC3 fixed point); a
singleton is an assigned cell, and the cost is the number of cells that are
not singletons (0 = solved). The search starts from AC3 on the puzzle: the
cells it fixes, with the givens, are *prefilled* and never dropped.

Each iteration builds ``candidates`` candidates: copy S; with probability
``p_drop`` (always when S is a dead end) unassign ``drop`` search-assigned
cells by roulette wheel (weight = their open peers) and recompute the AC3
fixed point of what is left; choose an open cell by roulette wheel (weight
``1/|D(x)|``) and a non-tabu digit of its domain; assign it and run AC3. A
wipe-out discards the candidate and makes its assignment tabu. The admissible
candidate of least cost (not tabu, or below every cost seen: aspiration) is
taken when its cost is at most the state's (the paper's acceptance); the
assignments it lost enter the FIFO tabu list of length ``tenure``. S is a
dead end when the previous iteration had no candidate left after AC3.

The paper is silent on dead ends. Our reading, the default
(``dead_end="restart"``): at a dead end every candidate restarts from the
prefilter (unassigns every search-assigned cell) and the best admissible one
is taken whatever its cost; everywhere else the acceptance is the paper's
``cost(candidate) <= cost(S)``, which the authors' 2015 follow-up keeps. It is
the reading that reproduces Tables 1 and 2. ``dead_end="drop"`` adds nothing
to the paper's rules (a dead end drops ``drop`` cells and still needs a move
no worse) and practically never leaves a dead end
(docs/reproduction/tabu_table1.md). The former ``accept="always"`` parameter
is gone: with ``dead_end="restart"`` and ``drop=1`` it gave the same runs, draw
for draw, as the default (a candidate that drops one cell and assigns one
never costs more than S), and otherwise it broke the paper's explicit
acceptance.

Our reading of the paper, with every open choice a parameter, is in
docs/algorithms.md, "AC3-tabu search".
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import numpy as np

from .._checks import checked
from .._kernels import ac3_tabu_layout as L, lazy
from ..errors import StateError
from ..exact.ac3 import initial_domains, result_from_kernel
from ..model.geometry import MASK_DTYPE, cell_name, symbol
from ._ac3_tabu_phases import PHASES, run_phase
from .base import Event, KernelSolver, Param, Slot, Snapshot, Status, frozen_copy, register
from .declare import Axis, Column, Layer, Objective
from .keyframes import Counters, Field

KA = lazy("sudoku_lab._kernels.ac3")
K = lazy("sudoku_lab._kernels.ac3_tabu")

__all__ = ["AC3Tabu", "RETIRED_PARAMS", "STATUS_NAMES", "domains_as_bool", "singleton_grid"]

DEAD_ENDS = ("restart", "drop")

#: Parameters that were removed, with the one line that says why and what to use instead.
RETIRED_PARAMS = {
    "accept": (
        "ac3_tabu's parameter 'accept' was removed: the acceptance is always the paper's cost(candidate) "
        "<= cost(S), with dead_end=restart (the default) taking a dead end's restart whatever its cost; "
        "accept=always with dead_end=restart and drop=1 gave the same runs as the default, so drop the "
        "'accept' setting"
    ),
}

#: Candidate status words by kernel code (``ST_*`` in :mod:`sudoku_lab._kernels.ac3_tabu_layout`).
STATUS_NAMES = {
    L.ST_TAKEN: "taken",
    L.ST_ASPIRATION: "aspiration",
    L.ST_TABU: "tabu",
    L.ST_WIPED: "wiped out",
    L.ST_NOT_BEST: "not best",
    L.ST_WORSE: "worse",
}


@checked
def domains_as_bool(domains: np.ndarray, N: int) -> np.ndarray:
    """Domain masks as a table: bool (C, N), ``[cell, d - 1]`` true when digit d is a candidate."""
    d = np.asarray(domains, dtype=np.int64)
    return ((d[:, None] >> np.arange(N, dtype=np.int64)[None, :]) & 1).astype(bool)


@checked
def singleton_grid(domains: np.ndarray) -> np.ndarray:
    """The digit of every singleton domain, 0 elsewhere: int8 (C,)."""
    d = np.asarray(domains, dtype=np.int64)
    single = (d != 0) & ((d & (d - 1)) == 0)
    out = np.zeros(d.shape, dtype=np.int8)
    # log2 of a one-bit mask is exact in float64 for masks below 2**25
    out[single] = (np.log2(d[single].astype(np.float64)) + 1).astype(np.int8)
    return out


def _propagated(domains: np.ndarray, geo, hidden: bool) -> tuple[np.ndarray, bool]:
    """A copy of ``domains`` after AC3 (the kernel's :func:`~sudoku_lab._kernels.ac3.propagate`), and its outcome."""
    out = np.ascontiguousarray(domains, dtype=MASK_DTYPE).copy()
    log = np.zeros((0, KA.LOG_WIDTH), dtype=np.int32)
    queue = np.zeros(geo.C, dtype=np.int32)
    counts = np.zeros(KA.N_COUNTERS, dtype=np.int64)
    ok = bool(KA.propagate(out, geo.peers, geo.units, bool(hidden), log, queue, counts))
    return out, ok


def _singletons(domains: np.ndarray) -> np.ndarray:
    """Where a domain mask (uint32) holds exactly one digit: bool, same shape."""
    d = np.asarray(domains, dtype=np.int64)
    return (d != 0) & ((d & (d - 1)) == 0)


def _require_same(a: np.ndarray, want: np.ndarray, path: str, words: str) -> None:
    """StateError naming the first entry of ``a`` (1-D) that differs from ``want``."""
    bad = np.flatnonzero(np.asarray(a) != np.asarray(want))
    if bad.size:
        i = int(bad[0])
        raise StateError(f"{path}[{i}] is {_word(a[i])}, not {_word(want[i])} ({words})")


def _word(v) -> str:
    return str(bool(v)).lower() if isinstance(v, (bool, np.bool_)) else str(int(v))


def _require_columns(a: np.ndarray, path: str, columns: dict[int, tuple[int, int]], first_row: int = 0) -> None:
    """StateError naming the first entry of ``a`` (2-D) whose column ``j`` is outside ``columns[j]``."""
    for j, (lo, hi) in columns.items():
        bad = np.flatnonzero((a[:, j] < lo) | (a[:, j] > hi))
        if bad.size:
            r = int(bad[0])
            raise StateError(f"{path}[{first_row + r}, {j}] is {int(a[r, j])}, outside {lo}..{hi}")


def _require_unit_distinct(grid: np.ndarray, geo, path: str) -> None:
    """StateError unless no row, column or box of ``grid`` (int, (C,), 0 = empty) holds a digit twice."""
    d = np.sort(np.asarray(grid, dtype=np.int64)[geo.units], axis=1)
    twice = (d[:, 1:] == d[:, :-1]) & (d[:, 1:] > 0)
    if twice.any():
        u, j = (int(i) for i in np.argwhere(twice)[0])
        raise StateError(f"{path}: {geo.unit_name(u)} holds {symbol(int(d[u, j + 1]))} twice")


#: The arrays of a search (defined in its kernel's layout module; the kernels take them as one argument).
AC3TabuState = L.AC3TabuState


@checked
@register
class AC3Tabu(KernelSolver):
    name = "ac3_tabu"
    shared_kernels = ("ac3",)
    title = "AC3-tabu search"
    cites = "soto2013"
    order = 50
    description = (
        "Tabu search over consistent partial assignments: each iteration builds a list of candidates "
        "(an open cell by roulette wheel on 1/|D|, a non-tabu digit, sometimes a drop of assigned "
        "cells), runs AC3 on each, and moves to the best admissible one when it leaves no more open "
        "cells; unassigned and wiped-out assignments become tabu for a FIFO tenure."
    )
    iteration_name = "iteration"
    phases = PHASES
    examples = (
        ({}, "mk_hard_a"),
        ({}, "mk_hard_c"),
        ({"candidates": 4, "tenure": 3, "p_drop": 0.5, "drop": 2, "iterations": 3000}, "mk_medium_b"),
        ({"hidden_singles": True, "tenure": 0}, "ai_escargot"),
        ({"candidates": 5, "tenure": 30}, "benchmarks/lewis_16x16_35:1"),
    )
    #: A move allowed by aspiration (a tabu move that beat every cost seen) is marked on the curves too.
    marked_events = ("run_end", "restart", "aspiration")
    objective = Objective(cost="open cells (domains that are not a single digit)")
    axes = (Axis("cost", "cost (open cells)", "left"), Axis("count", "count", "right"))
    columns = (
        Column("cost", "cost (open cells of the state)", color="#0072B2"),
        Column("best_cost", "best cost since reset", color="#E69F00", style="steps"),
        Column("wiped", "candidates wiped out by AC3", axis="count", color="#D55E00", style="dotted", shown=False),
        Column("tabu_length", "features in the tabu list", axis="count", color="#CC79A7", style="steps", shown=False),
        Column(
            "dropped",
            "cells unassigned by the accepted move",
            axis="count",
            color="#009E73",
            style="dotted",
            shown=False,
        ),
    )
    layers = (
        Layer(
            "domains", "the state's candidates (pencil marks), [cell, digit - 1]", "bool", ("C", "N"), role="domains"
        ),
        Layer(
            "struck",
            "candidates AC3 removed in the latest iteration's accepted move (none without a move)",
            "bool",
            ("C", "N"),
            role="struck",
        ),
        Layer(
            "ac3",
            "AC3Result of the propagation of the latest accepted candidate (from its domains after the "
            "drop and the assignment), or of the prefilter before any move",
            "object",
            role="ac3",
            optional=True,
        ),
        Layer("ac3_iteration", "the iteration whose propagation 'ac3' shows (0 = the prefilter)", "int"),
        Layer(
            "tabu",
            "the tabu list, oldest first: (cell, digit, age in iterations, reason 0 = unassigned by a "
            "move, 1 = wipe-out)",
            "int64",
            ("*", 4),
            role="tabu",
        ),
        # No board role: the "tabu" role's overlay marks these cells already, fading with age.
        Layer("tabu_cells", "cells with a tabu feature", "bool", ("C",)),
        Layer("prefilled", "givens and the cells the AC3 prefilter fixed (never dropped)", "bool", ("C",)),
        Layer(
            "candidates",
            "the latest iteration's candidates in generation order",
            "records",
            columns=(
                ("k", "#"),
                ("cell", "cell"),
                ("digit", "digit"),
                ("dropped", "dropped"),
                ("cost", "cost"),
                ("status", "status"),
            ),
        ),
        Layer("aspirations", "moves taken by aspiration so far", "int"),
        Layer("best_cost", "lowest cost of a state since reset", "int"),
        Layer(
            "dead_end",
            "the latest iteration had no candidate left after AC3 (the next one restarts from the "
            "prefilter, or drops with dead_end=drop)",
            "bool",
        ),
        Layer("moves", "accepted moves since reset", "int"),
        Layer("wipeouts", "candidates wiped out since reset", "int"),
    )
    params = (
        Param(
            "candidates",
            "int",
            10,
            "Candidates built per iteration (the candidate list size L).",
            low=1,
            high=10_000,
            label="candidates (L)",
            paper="Soto 2013 Algorithm 4, lines 5-7",
        ),
        Param(
            "tenure",
            "int",
            10,
            "Length of the FIFO tabu list: the oldest features expire when it is longer (0 = nothing is tabu).",
            low=0,
            high=100_000,
            paper="Soto 2013 Algorithm 4, lines 13-15",
        ),
        Param(
            "p_drop",
            "float",
            0.1,
            "Probability that a candidate first unassigns search-assigned cells "
            "(always when the state is a dead end). Ours.",
            low=0.0,
            high=1.0,
            step=0.05,
            label="p drop",
        ),
        Param(
            "drop",
            "int",
            1,
            "Search-assigned cells a dropping candidate unassigns, one at a time by roulette "
            "wheel on their open peers (k). Ours.",
            low=1,
            high=1000,
            label="drop (k)",
        ),
        Param(
            "iterations",
            "int",
            100_000,
            "Iteration budget: the search fails after this many (0 = no limit).",
            low=0,
            high=10**10,
            paper="Soto 2013 Tables 1 (1000) and 2 (100000)",
        ),
        Param(
            "hidden_singles",
            "bool",
            False,
            "Also apply hidden singles in every propagation: STRONGER than "
            "the paper's AC3 (off = plain AC3, as the paper).",
        ),
        Param(
            "dead_end",
            "choice",
            "restart",
            "What happens at a dead end (every candidate of the latest "
            "iteration wiped out); the paper is silent. 'restart' (ours, the default: the reading that "
            "reproduces Tables 1 and 2): every candidate unassigns every search-assigned cell, restarting "
            "from the prefilter, and the best admissible one is taken whatever its cost; every other move "
            "needs cost <= cost(S), the paper's acceptance. 'drop': a dead end's candidates drop 'drop (k)' "
            "cells and still need cost <= cost(S) (the paper's rules with nothing added; a dead end is "
            "practically never left).",
            choices=DEAD_ENDS,
            label="dead end",
            paper="Soto 2013 Algorithm 4, line 10 (acceptance); silent on dead ends",
        ),
    )

    retired_params = RETIRED_PARAMS

    @classmethod
    def warm_up(cls) -> None:
        """Compile the kernels: the generic warm-up, then steps on an empty 4 x 4 grid.

        The generic warm-up's puzzles are decided by the AC3 prefilter, so it
        never reaches the search kernel; a grid without givens does.
        """
        from ..model.puzzle import Puzzle
        from .warm import generic_warm_up

        generic_warm_up(cls)
        s = cls(p_drop=1.0)
        s.reset(Puzzle(np.zeros(16, dtype=np.int8), n=2, name="empty 4x4"), seed=0)
        s.step(2)
        s.snapshot()

    kernel = K
    layout = L
    State = AC3TabuState
    int_slots = (
        "candidates",
        "tenure",
        "drop",
        "iterations",
        "hidden_singles",
        Slot("dead_end", {"restart": L.DEAD_END_RESTART, "drop": L.DEAD_END_DROP}),
    )
    float_slots = ("p_drop",)
    budget_param = "iterations"
    #: The keyframe (:mod:`.keyframes`). The domains S and pre, the prefilter's cells, the best grid, the tabu
    #: list and the candidate tables are read and checked (S must be the AC3 fixed point of pre, the prefilled
    #: cells one of the puzzle's prefilters); the tabu digits per cell and the costs are rebuilt from them.
    #: The tables' lengths may follow older parameter values (a live change only ever grows them: tenure + 1
    #: rows of the tabu list, candidates rows and drop columns, every cell at a restart), up to the parameters'
    #: highest values.
    keyframe = {
        "S": Field("uint32", ("C",), 0, "(1 << N) - 1"),
        "pre": Field("uint32", ("C",), 1, "(1 << N) - 1"),
        "prefilled": Field("bool", ("C",)),
        "best_grid": Field("int8", ("C",), 0, "N"),
        "tabu": Field("int64", (("tenure + 1", 100_001), "TABU_WIDTH"), 0, "max(C - 1, iteration)"),
        "tabu_mask": Field("uint32", ("C",), derived=True),
        "cands": Field("int64", (("candidates", 10_000), "CAND_WIDTH"), -1, "C"),
        "cand_drops": Field(
            "int64",
            (("candidates", 10_000), ("max(drop, C) if dead_end == 'restart' else drop", "max(1000, C)"), 2),
            0,
            "C - 1",
        ),
        "counters": Counters(
            ranges={
                "C_TABU_LEN": (0, 100_000),
                "C_ASPIRATIONS": (0, "iteration"),
                "C_DEAD": (0, 1),
                "C_MOVES": (0, "iteration"),
                "C_WIPEOUTS": (0, "evaluations"),
                "C_N_CAND": (0, 10_000),
                "C_MOVED": (0, 1),
                "C_AC3_ITERATION": (0, "iteration"),
                "C_AC3_HIDDEN": (0, 1),
            },
            derived=("C_COST", "C_BEST_COST"),
        ),
    }

    # ---------------------------------------------------------------- reset
    def _reset(self):
        pz = self.puzzle
        C = pz.C
        self.pre = initial_domains(pz)
        self.S = self.pre.copy()
        hidden = bool(self._params["hidden_singles"])
        log = np.zeros((0, KA.LOG_WIDTH), dtype=np.int32)  # no log: _ac3_result re-runs it with one
        queue = np.zeros(C, dtype=np.int32)
        counts = np.zeros(KA.N_COUNTERS, dtype=np.int64)
        ok = KA.propagate(self.S, self.geo.peers, self.geo.units, hidden, log, queue, counts)
        self.prefilled = singleton_grid(self.S) > 0 if ok else np.zeros(C, dtype=bool)
        self.best_grid = singleton_grid(self.S) if ok else pz.grid.copy()
        self.counters = np.zeros(K.N_COUNTERS, dtype=np.int64)
        cost = int(np.count_nonzero(~self.prefilled))
        self.counters[K.C_COST] = self.counters[K.C_BEST_COST] = cost
        self.counters[K.C_AC3_HIDDEN] = int(hidden)
        self.tabu_mask = np.zeros(C, dtype=MASK_DTYPE)
        self.tabu = np.zeros((self._params["tenure"] + 1, K.TABU_WIDTH), dtype=np.int64)
        self._alloc_candidates()
        self._ac3_cache = None
        if not ok:
            self.status = Status.FAILED
            self.events.append(Event(0, "run_end", "failed", None, "AC3 wiped a domain out in the prefilter"))
        elif cost == 0:
            self.status = Status.SOLVED

    def _alloc_candidates(self):
        """Candidate tables for the parameters in force (the latest iteration's rows are kept)."""
        L, k = self._params["candidates"], self._params["drop"]
        if self._params["dead_end"] == "restart":  # a restart may drop every free cell
            k = max(k, self.puzzle.C)
        old = getattr(self, "cands", None)
        cands = np.zeros((max(L, 0 if old is None else old.shape[0]), K.CAND_WIDTH), dtype=np.int64)
        drops = np.zeros((cands.shape[0], max(k, 0 if old is None else self.cand_drops.shape[1]), 2), dtype=np.int64)
        if old is not None:
            cands[: old.shape[0]] = old
            drops[: old.shape[0], : self.cand_drops.shape[1]] = self.cand_drops
        self.cands, self.cand_drops = cands, drops

    def _params_changed(self, names):
        if names & {"candidates", "drop", "dead_end"}:
            self._alloc_candidates()
        if "tenure" in names and self.tabu.shape[0] < self._params["tenure"] + 1:
            tabu = np.zeros((self._params["tenure"] + 1, K.TABU_WIDTH), dtype=np.int64)
            tabu[: self.tabu.shape[0]] = self.tabu
            self.tabu = tabu

    # ---------------------------------------------------------- properties
    @property
    def grid(self) -> np.ndarray:
        return singleton_grid(self.S)

    # ---------------------------------------------------------------- step
    def _run(self, k, trace, events, ip, fp):
        return K.run(self.arrays(), self.geo.peers, self.geo.units, ip, fp, self.rng, k, trace, events)

    def _run_phase(self, index, ctx):
        return run_phase(self, index, ctx)

    def _on_events(self, rows):
        N = self.puzzle.N
        for it, cell, digit in rows:
            self.events.append(
                Event(int(it), "aspiration", "aspiration", None, f"{cell_name(int(cell), N)}={symbol(int(digit))}")
            )

    # ------------------------------------------------------------ snapshot
    def _ac3_result(self):
        """The AC3Result of the latest accepted propagation, re-run from its start with a full log (cached)."""
        key = int(self.counters[K.C_AC3_ITERATION])
        if self._ac3_cache is None or self._ac3_cache[0] != key:
            geo = self.geo
            start = self.pre.copy()
            out = start.copy()
            log = np.empty((geo.C * geo.N, KA.LOG_WIDTH), dtype=np.int32)
            queue = np.empty(geo.C, dtype=np.int32)
            cnt = np.zeros(KA.N_COUNTERS, dtype=np.int64)
            hidden = bool(self.counters[K.C_AC3_HIDDEN])
            ok = KA.propagate(out, geo.peers, geo.units, hidden, log, queue, cnt)
            self._ac3_cache = (key, result_from_kernel(geo.n, hidden, start, out, log, queue, cnt, bool(ok)))
        return self._ac3_cache[1]

    def _candidate_records(self):
        N = self.puzzle.N
        recs = []
        for i in range(int(self.counters[K.C_N_CAND])):
            row = self.cands[i]
            nd = int(row[K.K_NDROP])
            recs.append(
                MappingProxyType(
                    {
                        "k": i + 1,
                        "cell": int(row[K.K_CELL]),
                        "digit": int(row[K.K_DIGIT]),
                        "dropped": tuple((int(c), int(d)) for c, d in self.cand_drops[i, :nd]),
                        "cost": None if row[K.K_COST] < 0 else int(row[K.K_COST]),
                        "status": STATUS_NAMES[int(row[K.K_STATUS])],
                        "tabu": bool(row[K.K_TABU]),
                        "cell_name": cell_name(int(row[K.K_CELL]), N),
                    }
                )
            )
        return tuple(recs)

    def _layers(self):
        N = self.puzzle.N
        c = self.counters
        dom = domains_as_bool(self.S, N)
        if c[K.C_MOVED]:
            struck = domains_as_bool(self.pre, N) & ~dom
        else:
            struck = np.zeros_like(dom)
        k = int(c[K.C_TABU_LEN])
        tabu = self.tabu[:k].copy()
        tabu[:, K.T_ENTERED] = self.iteration - tabu[:, K.T_ENTERED]  # entered -> age
        cells = np.zeros(self.puzzle.C, dtype=bool)
        cells[tabu[:, K.T_CELL]] = True
        return {
            "domains": frozen_copy(dom),
            "struck": frozen_copy(struck),
            "ac3": self._ac3_result(),
            "ac3_iteration": int(c[K.C_AC3_ITERATION]),
            "tabu": frozen_copy(tabu),
            "tabu_cells": frozen_copy(cells),
            "prefilled": frozen_copy(self.prefilled),
            "candidates": self._candidate_records(),
            "aspirations": int(c[K.C_ASPIRATIONS]),
            "best_cost": int(c[K.C_BEST_COST]),
            "dead_end": bool(c[K.C_DEAD]),
            "moves": int(c[K.C_MOVES]),
            "wipeouts": int(c[K.C_WIPEOUTS]),
        }

    @classmethod
    def summarize(cls, snapshot: Snapshot) -> dict[str, Any]:
        """Moves, aspirations and wiped-out candidates of the run."""
        layers = snapshot.layers
        return {
            "moves": int(layers["moves"]),
            "aspirations": int(layers["aspirations"]),
            "wipeouts": int(layers["wipeouts"]),
        }

    # --------------------------------------------------------------- state
    def _loaded(self, st):
        self._ac3_cache = None

    def _derive(self):
        pz, c = self._pz, self.counters
        C, N = pz.C, pz.N
        length = int(c[K.C_TABU_LEN])
        if length > self.tabu.shape[0] - 1:  # tabu_push writes row C_TABU_LEN before it trims
            raise StateError(
                f"state.algorithm.counters[C_TABU_LEN] is {length}, more than its tabu list of "
                f"{self.tabu.shape[0]} rows holds (one row is kept free)"
            )
        live = self.tabu[:length]
        _require_columns(
            live,
            "state.algorithm.tabu",
            {K.T_CELL: (0, C - 1), K.T_DIGIT: (1, N), K.T_ENTERED: (1, self.iteration), K.T_REASON: (0, 1)},
        )
        # the tabu digits of each cell are those of the listed features (tabu_push sets, tabu_remove clears)
        mask = np.zeros(C, dtype=np.int64)
        np.bitwise_or.at(mask, live[:, K.T_CELL], np.int64(1) << (live[:, K.T_DIGIT] - 1))
        self.tabu_mask = mask.astype(MASK_DTYPE)
        # S is always AC3 on pre (the accepted candidate before its propagation, the initial domains before any
        # move) with hidden singles as that propagation had them: _check_loaded compares the two.
        self._pre_propagated = _propagated(self.pre, self.geo, bool(c[K.C_AC3_HIDDEN]))
        ok = self._pre_propagated[1]
        # a failed prefilter prefills no cell and leaves every cell open (as _reset does)
        c[K.C_COST] = int(np.count_nonzero(~_singletons(self.S))) if ok else C
        c[K.C_BEST_COST] = int(np.count_nonzero(self.best_grid == 0)) if ok else C

    def _check_loaded(self):
        pz, geo, c = self._pz, self.geo, self.counters
        C, it = pz.C, self.iteration
        S, pre, prefilled, bg = self.S, self.pre, self.prefilled, self.best_grid
        out, ok = self.__dict__.pop("_pre_propagated")
        _require_same(S, out, "state.algorithm.S", "S is the AC3 fixed point of pre")
        initial = initial_domains(pz)
        moves = int(c[K.C_MOVES])
        if moves == 0:  # nothing moved since the reset: S is the prefilter, pre the puzzle's initial domains
            _require_same(pre, initial, "state.algorithm.pre", "the initial domains: no move was taken")
            none = np.zeros(C, dtype=bool)
            _require_same(prefilled, _singletons(S) if ok else none, "state.algorithm.prefilled", "the prefilter's")
            _require_same(bg, singleton_grid(S) if ok else pz.grid, "state.algorithm.best_grid", "no move was taken")
            if not ok and (self.status != Status.FAILED or it != 0):
                raise StateError(
                    f"state.algorithm.S: the AC3 prefilter wipes a domain out, so the search fails at its "
                    f"reset, not {self.status} at iteration {it}"
                )
        else:
            if not ok:
                raise StateError("state.algorithm.pre: its AC3 propagation wipes a domain out, but it was a move")
            fixed = None
            for hidden in (False, True):  # the prefilter ran with hidden singles as the parameter was at the reset
                s0, ok0 = _propagated(initial, geo, hidden)
                if ok0 and np.array_equal(prefilled, _singletons(s0)):
                    fixed = s0
                    break
            if fixed is None:
                raise StateError("state.algorithm.prefilled is not the cells the puzzle's AC3 prefilter fixes")
            for name, a in (("S", S), ("pre", pre)):
                _require_same(a, np.where(prefilled, fixed, a), f"state.algorithm.{name}", "a prefilled cell's")
            _require_same(bg, np.where(prefilled, singleton_grid(fixed), bg), "state.algorithm.best_grid", "prefilled")
            _require_unit_distinct(bg, geo, "state.algorithm.best_grid")
        cost, best = int(c[K.C_COST]), int(c[K.C_BEST_COST])
        if best > cost:
            raise StateError(
                f"state.algorithm.best_grid leaves {best} cells open, more than the state's {cost}: "
                "it is not the best state since the reset"
            )
        if (self.status == Status.SOLVED) != (cost == 0):
            raise StateError(f"state.algorithm.S leaves {cost} cells open, but the search is {self.status}")
        self._check_counters(moves)
        self._check_candidates()
        self._check_tabu()

    def _check_counters(self, moves: int) -> None:
        c, it = self.counters, self.iteration
        if c[K.C_ASPIRATIONS] > moves:
            raise StateError(
                f"state.algorithm.counters[C_ASPIRATIONS] is {int(c[K.C_ASPIRATIONS])}, more than its {moves} moves"
            )
        ac3_it = int(c[K.C_AC3_ITERATION])
        if (moves == 0 and ac3_it != 0) or (moves > 0 and not moves <= ac3_it <= it):
            raise StateError(
                f"state.algorithm.counters[C_AC3_ITERATION] is {ac3_it}, not the iteration of the latest of "
                f"its {moves} moves"
            )
        if c[K.C_MOVED] and ac3_it != it:
            raise StateError(
                f"state.algorithm.counters[C_MOVED] says iteration {it} moved, but its latest move was at {ac3_it}"
            )
        n_cand = int(c[K.C_N_CAND])
        if n_cand > self.cands.shape[0] or (n_cand == 0) != (it == 0):
            raise StateError(
                f"state.algorithm.counters[C_N_CAND] is {n_cand}, not the candidates of iteration {it} "
                f"(at most the {self.cands.shape[0]} rows of cands, none before the first iteration)"
            )

    def _check_candidates(self) -> None:
        pz, c = self._pz, self.counters
        C, N = pz.C, pz.N
        cands, drops = self.cands, self.cand_drops
        if drops.shape[0] != cands.shape[0]:
            raise StateError(f"state.algorithm.cand_drops has {drops.shape[0]} rows, not the {cands.shape[0]} of cands")
        n_cand = int(c[K.C_N_CAND])
        _require_columns(
            cands,
            "state.algorithm.cands",
            {
                K.K_CELL: (0, C - 1),
                K.K_DIGIT: (0, N),
                K.K_COST: (-1, C),
                K.K_STATUS: (0, max(STATUS_NAMES)),
                K.K_TABU: (0, 1),
                K.K_NDROP: (0, min(C, drops.shape[1])),
            },
        )
        if drops.size and drops[:, :, 1].max() > N:
            i, j = (int(v) for v in np.argwhere(drops[:, :, 1] > N)[0])
            raise StateError(f"state.algorithm.cand_drops[{i}, {j}, 1] is {int(drops[i, j, 1])}, outside 0..{N}")
        live = cands[:n_cand]
        _require_columns(live, "state.algorithm.cands", {K.K_DIGIT: (1, N)})
        status, cost, tabu = live[:, K.K_STATUS], live[:, K.K_COST], live[:, K.K_TABU]
        wiped = status == K.ST_WIPED
        tabu_status = (status == K.ST_TABU) | (status == K.ST_ASPIRATION)
        plain_status = (status == K.ST_TAKEN) | wiped
        odd = (wiped != (cost < 0)) | (tabu_status & (tabu == 0)) | (plain_status & (tabu != 0))
        if odd.any():
            i = int(np.flatnonzero(odd)[0])
            raise StateError(
                f"state.algorithm.cands[{i}]: status {STATUS_NAMES[int(status[i])]!r} with cost {int(cost[i])} "
                f"and tabu flag {int(tabu[i])} is not a candidate the search builds"
            )
        taken = np.flatnonzero((status == K.ST_TAKEN) | (status == K.ST_ASPIRATION))
        if len(taken) != int(c[K.C_MOVED]):
            raise StateError(
                f"state.algorithm.cands: {len(taken)} candidates taken, but counters[C_MOVED] is {int(c[K.C_MOVED])}"
            )
        for i in taken.tolist():  # the move's assignment is a singleton of S now
            cell, digit = int(live[i, K.K_CELL]), int(live[i, K.K_DIGIT])
            if int(self.S[cell]) != 1 << (digit - 1) or int(live[i, K.K_COST]) != int(c[K.C_COST]):
                raise StateError(
                    f"state.algorithm.cands[{int(i)}] is the move taken, but S does not hold it "
                    f"({cell_name(cell, N)} = {symbol(digit)}, cost {int(live[i, K.K_COST])})"
                )
        dead = int(n_cand > 0 and bool(wiped.all()))
        if int(c[K.C_DEAD]) != dead:
            raise StateError(
                f"state.algorithm.counters[C_DEAD] is {int(c[K.C_DEAD])}, but {int(wiped.sum())} of the "
                f"{n_cand} candidates were wiped out"
            )
        for i in range(n_cand):
            nd = min(int(live[i, K.K_NDROP]), drops.shape[1])
            if nd and drops[i, :nd, 1].min() < 1:
                j = int(np.argmin(drops[i, :nd, 1]))
                raise StateError(f"state.algorithm.cand_drops[{i}, {j}, 1] is {int(drops[i, j, 1])}, not a digit")

    def _check_tabu(self) -> None:
        pz, c, it = self._pz, self.counters, self.iteration
        length = int(c[K.C_TABU_LEN])
        rows = self.tabu
        _require_columns(
            rows[length:],
            "state.algorithm.tabu",
            {K.T_CELL: (0, pz.C - 1), K.T_DIGIT: (0, pz.N), K.T_ENTERED: (0, it), K.T_REASON: (0, 1)},
            first_row=length,
        )
        live = rows[:length]
        if length > 1 and (np.diff(live[:, K.T_ENTERED]) < 0).any():
            r = int(np.flatnonzero(np.diff(live[:, K.T_ENTERED]) < 0)[0]) + 1
            raise StateError(
                f"state.algorithm.tabu[{r}, {K.T_ENTERED}] is {int(live[r, K.T_ENTERED])}, older than the row "
                "before it (the list is oldest first)"
            )
        features = live[:, K.T_CELL] * (pz.N + 1) + live[:, K.T_DIGIT]
        if len(np.unique(features)) != length:
            _, first = np.unique(features, return_index=True)
            r = int(np.setdiff1d(np.arange(length), first)[0])
            raise StateError(
                f"state.algorithm.tabu[{r}] lists ({int(live[r, K.T_CELL])}, {int(live[r, K.T_DIGIT])}) a second time"
            )
