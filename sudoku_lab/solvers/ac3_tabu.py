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
from .._kernels import ac3 as KA, ac3_tabu as K
from ..exact.ac3 import initial_domains, result_from_kernel
from ..model.geometry import MASK_DTYPE, cell_name, symbol
from ._ac3_tabu_phases import PHASES, run_phase
from .base import Event, KernelSolver, Param, Slot, Snapshot, Status, frozen_copy, register
from .declare import Axis, Column, Layer, Objective

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

#: Candidate status words by kernel code (``ST_*`` in :mod:`sudoku_lab._kernels.ac3_tabu`).
STATUS_NAMES = {
    K.ST_TAKEN: "taken",
    K.ST_ASPIRATION: "aspiration",
    K.ST_TABU: "tabu",
    K.ST_WIPED: "wiped out",
    K.ST_NOT_BEST: "not best",
    K.ST_WORSE: "worse",
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


#: The arrays of a search (defined with its kernels, which take them as one argument).
AC3TabuState = K.AC3TabuState


@checked
@register
class AC3Tabu(KernelSolver):
    name = "ac3_tabu"
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
    State = AC3TabuState
    int_slots = (
        "candidates",
        "tenure",
        "drop",
        "iterations",
        "hidden_singles",
        Slot("dead_end", {"restart": K.DEAD_END_RESTART, "drop": K.DEAD_END_DROP}),
    )
    float_slots = ("p_drop",)
    budget_param = "iterations"

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
