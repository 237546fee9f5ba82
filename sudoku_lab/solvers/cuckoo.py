"""Prefiltered cuckoo search with geometric operators (Soto, Crawford, Galleguillos, Monfroy and Paredes 2014).

AC3 (:func:`sudoku_lab.exact.ac3.ac3`) prefilters the domains; its singletons become
prefilled cells. Each nest holds one egg, a grid whose rows are permutations
with every free digit inside its prefiltered domain (rows filled by randomised
backtracking). An iteration picks a random nest; unless it is the best nest,
its egg is crossed with the best egg (row-wise PMX with probability ``p_pmx``,
else the multiparental sorting crossover of the best egg so far, the best nest
and the current egg) and mutated (a feasible swap of two free cells of a row,
probability ``p_mut``); the new egg replaces another random nest if it is
better. Then every nest but the best is abandoned with probability ``pa`` and
rebuilt from the domains. The cost is the missing-symbol count over columns
and boxes (rows are always complete); the search stops at cost 0 or after
``iterations`` iterations.

The paper's tuned parameter values and its Algorithms 8 and 9 (the loop and
the egg construction, figures) are lost from the surviving text of our copy:
the loop is our reconstruction, and the defaults (nests 22, pa 0.3, p_pmx
0.65, p_mut 0.9, mask weights 5/9, 3/9, 1/9) are those of a public
implementation of this paper, not confirmed as the paper's. They and every
choice the text leaves open are fixed in docs/algorithms.md, "Cuckoo search".
The pure-Python operators :func:`pmx`, :func:`sorting_crossover`,
:func:`feasible_pairs` and :func:`missing_cost` state them on plain lists; the
kernels in :mod:`sudoku_lab._kernels.cuckoo` must give the same results.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Mapping

import numpy as np

from .._checks import checked
from .._kernels import cuckoo_layout as L, lazy
from ..errors import ParameterError, PuzzleError, StateError
from ..exact.ac3 import ac3, initial_domains
from ..model.geometry import cell_name, geometry
from ..model.puzzle import Puzzle
from ._cuckoo_phases import PHASES, run_phase
from .base import KernelSolver, Param, Slot, Snapshot, Status, frozen_copy, register
from .declare import COST_AXIS, Axis, Column, Layer, Objective
from .keyframes import MAX_COUNT, Counters, Field, integer, require_givens, text

K = lazy("sudoku_lab._kernels.cuckoo")

__all__ = [
    "Cuckoo",
    "pmx",
    "sorting_crossover",
    "feasible_pairs",
    "missing_cost",
    "levy_sigma",
    "row_tables",
    "prefilter",
    "HISTORY_ROWS",
]

#: Rows of the nest history before it keeps every second row and doubles its stride.
HISTORY_ROWS = 4096
#: Fewest and most nests (the ``nests`` parameter's range).
MIN_NESTS, MAX_NESTS = 2, 100_000
OPERATORS = {L.OP_BEFORE: "none", L.OP_NONE: "none", L.OP_PMX: "pmx", L.OP_SORTING: "sorting"}


# ---------------------------------------------------------- pure operators
@checked
def pmx(p1: Sequence[int], p2: Sequence[int], lo: int, hi: int) -> list[int]:
    """Partially matched crossover of two permutations (the paper's Algorithm 2 and Example 1).

    Parameters
    ----------
    p1, p2 : sequence of int
        Two permutations of the same digits (one row of two eggs).
    lo, hi : int
        The segment, 0-based and inclusive (``0 <= lo <= hi < len(p1)``), copied from ``p1``.

    Returns
    -------
    list of int
        The child: ``p1`` on the segment; each value of ``p2``'s segment missing from the child
        goes where the chain ``p1[t]`` -> its position in ``p2`` first leaves the segment; every
        other position from ``p2``.

    Examples
    --------
    >>> pmx([9, 2, 7, 5, 4, 3, 8, 6, 1], [8, 5, 1, 9, 6, 2, 4, 3, 7], 3, 5)
    [8, 9, 1, 5, 4, 3, 6, 2, 7]
    """
    n = len(p1)
    if not 0 <= lo <= hi < n:
        raise ValueError(f"pmx needs 0 <= lo <= hi < {n}, got lo={lo}, hi={hi}")
    child: list[int | None] = [None] * n
    child[lo : hi + 1] = p1[lo : hi + 1]
    where2 = {v: i for i, v in enumerate(p2)}
    for i in range(lo, hi + 1):
        v = p2[i]
        if v in child:
            continue
        t = i
        while True:
            t = where2[p1[t]]
            if not lo <= t <= hi:
                break
        child[t] = v
    return [p2[i] if c is None else c for i, c in enumerate(child)]


@checked
def sorting_crossover(parents: Sequence[Sequence[int]], mask: Sequence[int]) -> list[int]:
    """Multiparental sorting crossover (the paper's Algorithms 3 and 4, Example 2).

    Parameters
    ----------
    parents : three sequences of int
        Permutations of the same digits: best egg so far, best nest of the last iteration, current
        egg (one row each).
    mask : sequence of int
        The parent (1-based, 1..3) each position follows.

    Returns
    -------
    list of int
        The child: for each position ``i`` in order, the two other parents swap so that their
        position ``i`` holds parent ``mask[i]``'s digit; at the end all three agree.

    Examples
    --------
    >>> sorting_crossover([[7, 5, 6, 8, 1, 2, 4, 9, 3], [2, 1, 9, 4, 8, 5, 6, 7, 3], [7, 6, 9, 8, 4, 2, 3, 1, 5]],
    ...                   [2, 2, 2, 1, 2, 3, 3, 3, 3])
    [2, 1, 9, 8, 4, 7, 3, 6, 5]
    """
    work = [list(p) for p in parents]
    if len(work) != 3 or len(mask) != len(work[0]):
        raise ValueError("sorting_crossover needs three parents and one mask entry per position")
    for i, k in enumerate(mask):
        v = work[k - 1][i]
        for j in range(3):
            if j != k - 1 and work[j][i] != v:
                p = work[j].index(v)
                work[j][i], work[j][p] = work[j][p], work[j][i]
    return work[0]


@checked
def feasible_pairs(row: Sequence[int], free: Sequence[int], domains: Sequence[set[int]]) -> list[tuple[int, int]]:
    """The swaps the feasible geometric mutation may choose in one row (the paper's Algorithm 5).

    Parameters
    ----------
    row : sequence of int
        The row's digits.
    free : sequence of int
        Positions of its free cells, increasing.
    domains : sequence of sets of int
        The prefiltered domain of each position.

    Returns
    -------
    list of (int, int)
        Pairs ``(a, b)`` of free positions, ``a`` before ``b``, in that order, whose swap puts each
        digit inside the other cell's domain.
    """
    return [(a, b) for i, a in enumerate(free) for b in free[i + 1 :] if row[b] in domains[a] and row[a] in domains[b]]


@checked
def missing_cost(grid: Sequence[int] | np.ndarray, n: int) -> int:
    """Missing symbols over the columns and boxes of a complete grid (the cuckoo's cost; rows are permutations)."""
    units = geometry(n).units
    N = n * n
    return sum(N - len({int(grid[c]) for c in units[u]}) for u in range(N, 3 * N))


@checked
def levy_sigma(beta: float = L.LEVY_BETA) -> float:
    """Mantegna's scale of the numerator: ``(G(1+b) sin(pi b/2) / (G((1+b)/2) b 2^((b-1)/2)))^(1/b)``."""
    num = math.gamma(1 + beta) * math.sin(math.pi * beta / 2)
    den = math.gamma((1 + beta) / 2) * beta * 2 ** ((beta - 1) / 2)
    return (num / den) ** (1 / beta)


# ------------------------------------------------------------------ tables
@checked
def prefilter(puzzle: Puzzle, mode: str = "ac3"):
    """Domains and prefilled cells of ``puzzle``.

    Parameters
    ----------
    puzzle : Puzzle
    mode : {"ac3", "none"}
        ``ac3``: AC3's fixed point, its singletons prefilled (the paper). ``none``: the one-pass
        candidate domains (digits no given peer holds), only the givens prefilled.

    Returns
    -------
    dom : ndarray of uint32, shape (C,)
    pre : ndarray of int8, shape (C,)
        Prefilled digits, 0 where free.
    result : AC3Result or None
        AC3's run (``ac3`` mode).

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    PuzzleTypeError
        ``puzzle`` not a puzzle (also a TypeError).
    PuzzleError
        If AC3 wipes a domain out: the puzzle has no solution.
    """
    res = ac3(puzzle)
    if not res.consistent:
        where = "" if res.wipeout_cell is None else f": {cell_name(res.wipeout_cell, puzzle.N)} has no candidate left"
        raise PuzzleError(
            f"the AC3 prefilter wipes out a domain{where}, so the puzzle has no solution",
            kind="no_solution",
            cells=() if res.wipeout_cell is None else (res.wipeout_cell,),
        )
    if mode == "ac3":
        return np.array(res.domains, dtype=np.uint32), np.array(res.grid, dtype=np.int8), res
    dom = initial_domains(puzzle.grid, puzzle.n, one_pass=True).astype(np.uint32)
    return dom, np.array(puzzle.grid, dtype=np.int8), None


@checked
def row_tables(pre: np.ndarray, N: int):
    """Free positions, their count and the missing digits of each row, and the rows a mutation can use.

    Returns
    -------
    row_free : ndarray of int32, shape (N, N)
        Positions (0..N-1) of each row's free cells, increasing, padded with -1.
    row_nfree : ndarray of int32, shape (N,)
    row_avail : ndarray of int64, shape (N,)
        Bit ``d - 1`` set when no prefilled cell of the row holds ``d``.
    mut_rows : ndarray of int32, shape (N,)
        Rows with two free cells or more first, padded with -1.
    n_mut : int
    """
    g = np.asarray(pre).reshape(N, N)
    row_free = np.full((N, N), -1, dtype=np.int32)
    row_nfree = np.zeros(N, dtype=np.int32)
    row_avail = np.zeros(N, dtype=np.int64)
    full = (1 << N) - 1
    for r in range(N):
        free = np.flatnonzero(g[r] == 0)
        row_free[r, : len(free)] = free
        row_nfree[r] = len(free)
        held = 0
        for d in g[r][g[r] > 0]:
            held |= 1 << (int(d) - 1)
        row_avail[r] = full & ~held
    eligible = np.flatnonzero(row_nfree >= 2).astype(np.int32)
    mut_rows = np.full(N, -1, dtype=np.int32)
    mut_rows[: len(eligible)] = eligible
    return row_free, row_nfree, row_avail, mut_rows, int(len(eligible))


def _egg_costs(eggs: np.ndarray, n: int) -> np.ndarray:
    """int64 (P,): :func:`K.egg_cost <sudoku_lab._kernels.cuckoo.egg_cost>` of every row of ``eggs`` (P, C).

    Every cell must hold a digit 1..N: the missing symbols over the columns and boxes.
    """
    N = n * n
    lines = np.sort(np.asarray(eggs)[:, geometry(n).units[N : 3 * N]], axis=-1)
    distinct = 1 + (np.diff(lines, axis=-1) != 0).sum(axis=-1)
    return (N - distinct).sum(axis=1).astype(np.int64)


def _require_eggs(eggs: np.ndarray, puzzle: Puzzle, path: str) -> None:
    """StateError naming the first egg of ``eggs`` (P, C; or one egg, (C,)) that moves a given or breaks a row."""
    one = eggs.ndim == 1
    eggs = eggs.reshape(-1, puzzle.C)
    N = puzzle.N
    givens = puzzle.grid > 0
    moved = ~(eggs[:, givens] == puzzle.grid[givens]).all(axis=1)
    if moved.any():
        q = int(np.flatnonzero(moved)[0])
        require_givens(eggs[q], puzzle, path if one else f"{path}[{q}]")
    rows = (np.sort(eggs.reshape(-1, N, N), axis=-1) == np.arange(1, N + 1)).all(axis=-1)
    if not rows.all():
        q, r = (int(v) for v in np.argwhere(~rows)[0])
        raise StateError(f"{path if one else f'{path}[{q}]'}: row {r + 1} does not hold each digit 1..{N} once")


def _domains_bool(dom: np.ndarray, N: int) -> np.ndarray:
    return ((dom[:, None].astype(np.int64) >> np.arange(N)) & 1).astype(bool)


#: The arrays of a search (defined in its kernel's layout module; the kernels take them as one argument).
CuckooState = L.CuckooState


def _weight(i: int):
    """The cumulative, normalised operator weight w1 (i = 1) or w1 + w2 (i = 2)."""
    return lambda p: sum(p[f"w{j}"] / (p["w1"] + p["w2"] + p["w3"]) for j in range(1, i + 1))


@checked
@register
class Cuckoo(KernelSolver):
    name = "cuckoo"
    shared_kernels = ("ac3",)
    title = "Cuckoo search (prefiltered, geometric operators)"
    cites = "soto2014"
    order = 60
    description = (
        "Discrete cuckoo search on AC3-prefiltered domains: each nest holds a grid whose rows are "
        "permutations inside the domains; a random nest's egg is crossed with the best (row-wise PMX "
        "or the multiparental sorting crossover), mutated by a feasible swap and replaces another "
        "random nest if better; a fraction pa of the other nests is abandoned and rebuilt each "
        "iteration. Cost: missing symbols over columns and boxes."
    )
    iteration_name = "iteration"
    phases = PHASES
    examples = (
        ({}, "mk_hard_a"),
        (
            {
                "nests": 8,
                "pa": 0.5,
                "p_pmx": 0.2,
                "pmx_segment": "current",
                "ties": "replace",
                "w1": 1.0,
                "w2": 1.0,
                "w3": 1.0,
            },
            "mk_medium_b",
        ),
        ({"levy": True, "infeasible": "accept", "fill_nodes": 3}, "ai_escargot"),
        ({"prefilter": "none", "nests": 3, "fill_nodes": 1, "p_mut": 0.0}, "unique_4x4_a"),
        ({"prefilter": "none", "nests": 10, "iterations": 3000}, "unique_16x16_a"),
    )
    objective = Objective(cost="missing symbols over columns and boxes (rows are permutations)")
    axes = (COST_AXIS, Axis("count", "operator count", "right"))
    columns = (
        Column("cost", "cost of the best nest", color="#0072B2"),
        Column("best_cost", "best cost since reset", color="#E69F00", style="steps"),
        Column("mean_cost", "mean nest cost", color="#009E73", style="dotted"),
        Column("pmx", "PMX crossovers (cumulative)", axis="count", shown=False),
        Column("sorting", "sorting crossovers (cumulative)", axis="count", shown=False),
        Column("mutations", "mutations (cumulative)", axis="count", shown=False),
        Column("abandoned", "abandoned nests (cumulative)", axis="count", shown=False),
    )
    layers = (
        Layer("nest_costs", "cost of each nest's egg", "int64", ("*",), role="nests"),
        Layer("best_nest", "index of the best nest", "int"),
        Layer("picked", "nest the latest iteration picked (-1 before the first)", "int"),
        Layer("replaced", "nest that received the new egg in the latest iteration, or -1", "int"),
        Layer("abandoned", "nests rebuilt from the domains in the latest iteration", "bool", ("*",)),
        Layer("eggs", "each nest's egg, one grid per row", "int8", ("*", "C")),
        Layer(
            "nest_history",
            "each nest's cost (columns, in nest order) every history_stride iterations "
            "(rows); restarts when the number of nests changes",
            "int16",
            ("*", "*"),
        ),
        Layer("history_stride", "iterations between two rows of nest_history", "int"),
        Layer(
            "history_start",
            "iteration the nest history starts after (row k is iteration history_start + (k + 1) * history_stride)",
            "int",
        ),
        Layer("operator", "operator of the latest iteration: pmx, sorting or none (the best nest was picked)", "str"),
        Layer("mutated", "the latest iteration mutated its new egg", "bool"),
        Layer("domains", "candidate domains after prefiltering", "bool", ("C", "N"), role="domains"),
        Layer("ac3", "the AC3 prefilter's run (None with prefilter = none)", "object", role="ac3", optional=True),
        Layer("ac3_iteration", "the iteration whose propagation 'ac3' shows: always 0, the prefilter", "int"),
        Layer("prefilled", "cells the prefilter fixed beyond the givens", "bool", ("C",), role="cells"),
        Layer("weights", "mask weights of the sorting crossover in force (w1, w2, w3 normalised)", "float64", (3,)),
        Layer("swaps", "swaps done by mutations since reset", "int"),
        Layer("discarded", "crossover child rows discarded since reset as outside the domains", "int"),
        Layer("fallbacks", "rows filled by a plain permutation since reset (backtracking gave up)", "int"),
    )

    params = (
        Param(
            "nests",
            "int",
            22,
            "Number of nests, one egg each (a change resizes the population at the next "
            "iteration: the best nests are kept, new ones built from the domains; the nest history restarts).",
            low=MIN_NESTS,
            high=MAX_NESTS,
            paper="Soto et al. 2014 sec. 7 (its value is lost; 22 is a public implementation's)",
        ),
        Param(
            "pa",
            "float",
            0.3,
            "Probability that each nest but the best is abandoned and rebuilt from the "
            "domains at each iteration (0.3: a public implementation's value; the paper's is lost).",
            low=0.0,
            high=1.0,
            step=0.05,
            paper="Soto et al. 2014 Alg. 8 (lost from our copy)",
        ),
        Param(
            "abandon",
            "choice",
            "each",
            "Which nests are abandoned at each iteration: 'each' (every nest but "
            "the best with probability pa: docs/algorithms.md) or 'worst' (the floor(pa * nests) worst nests, "
            "never the best: Yang and Deb's 'fraction pa of worse nests'; ours).",
            choices=("each", "worst"),
            paper="Soto et al. 2014 Alg. 8 line 11",
        ),
        Param(
            "p_pmx",
            "float",
            0.65,
            "Probability of row-wise PMX with the best egg; otherwise the "
            "multiparental sorting crossover (0.65: a public implementation's value; the paper's is lost).",
            low=0.0,
            high=1.0,
            step=0.05,
            label="p PMX",
            paper="Soto et al. 2014 Alg. 9 (lost from our copy)",
        ),
        Param(
            "p_mut",
            "float",
            0.9,
            "Probability of the feasible geometric mutation after the crossover (0.9: a "
            "public implementation's value; the paper's is lost).",
            low=0.0,
            high=1.0,
            step=0.05,
            label="p mutation",
            paper="Soto et al. 2014 Alg. 5, 9",
        ),
        Param(
            "w1",
            "float",
            5.0,
            "Relative weight of the best egg so far in the sorting crossover's mask "
            "(the weights are divided by w1 + w2 + w3: 5, 3, 1 give 5/9, 3/9, 1/9, a public implementation's "
            "values; the paper's Example 2 uses 0.55, 0.33, 0.12).",
            low=0.0,
            high=1000.0,
            step=0.5,
            label="w1 (best)",
            paper="Soto et al. 2014 eq. 8, Example 2",
        ),
        Param(
            "w2",
            "float",
            3.0,
            "Relative weight of the best nest of the last iteration in the mask.",
            low=0.0,
            high=1000.0,
            step=0.5,
            label="w2 (best nest)",
            paper="Soto et al. 2014 eq. 8",
        ),
        Param(
            "w3",
            "float",
            1.0,
            "Relative weight of the current egg in the mask.",
            low=0.0,
            high=1000.0,
            step=0.5,
            label="w3 (current)",
            paper="Soto et al. 2014 eq. 8",
        ),
        Param(
            "pmx_segment",
            "choice",
            "best",
            "Which parent gives PMX's segment: 'best' (the best egg; the "
            "current egg gives the rest) or 'current'. Ours: the paper does not say.",
            choices=("best", "current"),
            label="PMX segment from",
        ),
        Param(
            "levy",
            "bool",
            False,
            "Ours: the number of mutation swaps is 1 + floor of a Levy-flight step "
            "(Mantegna's algorithm, beta 1.5), at most N; off: one swap.",
            label="Levy swaps",
        ),
        Param(
            "ties",
            "choice",
            "keep",
            "The new egg replaces the other random nest when strictly better "
            "('keep': a tie keeps the nest) or also when as good ('replace'). Ours.",
            choices=("keep", "replace"),
        ),
        Param(
            "infeasible",
            "choice",
            "discard",
            "A crossover child row with a digit outside its cell's "
            "prefiltered domain: 'discard' (keep the current egg's row; ours, after the paper's 'the cuckoo "
            "procedure is responsible for detecting and discarding' unfeasible solutions), 'best' (take the best "
            "egg's row instead; ours) or 'accept'.",
            choices=("discard", "best", "accept"),
            label="infeasible rows",
        ),
        Param(
            "prefilter",
            "choice",
            "ac3",
            "Domains the eggs stay in: 'ac3' (AC3's fixed point, its singletons "
            "prefilled: the paper) or 'none' (digits no given peer holds; ours, for comparison). A change "
            "applies to the eggs built, crossed and mutated from the next iteration; older eggs stay until "
            "abandoned.",
            choices=("ac3", "none"),
        ),
        Param(
            "fill_nodes",
            "int",
            10_000,
            "Search nodes the randomised backtracking filling a row may visit "
            "before the row takes a random permutation of its missing digits (ours).",
            low=1,
            high=10**9,
            label="fill node limit",
        ),
        Param(
            "iterations",
            "int",
            100_000,
            "Iteration budget: the run fails after this many (0 = no limit).",
            low=0,
            high=10**9,
            paper="Soto et al. 2014 Tables 1 (10000) and 2 (100000)",
        ),
    )

    kernel = K
    layout = L
    State = CuckooState
    #: The keyframe (:mod:`.keyframes`): the eggs, the best egg, the abandoned flags, the counters and the nest
    #: history are read and checked; the nests' costs and the best egg's cost are rebuilt from the eggs, the
    #: prefilter's tables from the puzzle and the mode. The nests may number other than the parameter: a live
    #: change applies at the next step (:meth:`_before_step`).
    keyframe = {
        "eggs": Field("int8", ((MIN_NESTS, MAX_NESTS), "C"), 1, "N"),
        "costs": Field("int64", ((MIN_NESTS, MAX_NESTS),), derived=True),
        "best_grid": Field("int8", ("C",), 1, "N"),
        "abandoned": Field("bool", ((MIN_NESTS, MAX_NESTS),)),
        "counters": Counters(
            ranges={
                "C_BEST": (0, MAX_NESTS - 1),
                "C_PICKED": (-1, MAX_NESTS - 1),
                "C_REPLACED": (-1, MAX_NESTS - 1),
                "C_OPERATOR": ("OP_BEFORE", "OP_SORTING"),
                "C_MUTATED": (0, 1),
                "C_PMX": (0, "iteration"),
                "C_SORTING": (0, "iteration"),
                "C_MUTATIONS": (0, "iteration"),
                "C_ABANDONED": (0, "evaluations"),
                "C_SWAPS": (0, "N * iteration"),
                "C_DISCARDED": (0, "N * iteration"),
                "C_FALLBACKS": (0, "N * evaluations"),
                "C_HIST_LEN": (0, lambda ctx: HISTORY_ROWS - 1),  # the row written next: inside the history
                "C_HIST_STRIDE": (1, MAX_COUNT),
                "C_HIST_PENDING": (0, MAX_COUNT),
            },
            derived=("C_BEST_COST",),
        ),
        "hist": Field("int16", (lambda ctx: HISTORY_ROWS, (MIN_NESTS, MAX_NESTS)), 0, "2 * N * (N - 1)"),
    }
    extra = {"mode": text(("ac3", "none")), "hist_start": integer(0, "iteration")}
    int_slots = (
        "nests",
        "iterations",
        Slot("pmx_segment", {"best": L.SEG_BEST, "current": L.SEG_CURRENT}),
        "levy",
        Slot("ties", {"keep": L.TIES_KEEP, "replace": L.TIES_REPLACE}),
        Slot("infeasible", {"discard": L.INFEASIBLE_DISCARD, "accept": L.INFEASIBLE_ACCEPT, "best": L.INFEASIBLE_BEST}),
        "fill_nodes",
        Slot("abandon", {"each": L.ABANDON_EACH, "worst": L.ABANDON_WORST}),
    )
    float_slots = (
        "pa",
        "p_pmx",
        "p_mut",
        Slot("w1", value=_weight(1)),
        Slot("w1 + w2", value=_weight(2)),
        Slot("levy sigma", value=lambda p: levy_sigma()),
    )
    budget_param = "iterations"
    cost_counter = "C_BEST_COST"
    fixed_grid = "pre"

    @classmethod
    def check_params(cls, params: Mapping[str, Any]) -> None:
        ws = [params.get(k) for k in ("w1", "w2", "w3")]
        if all(w is not None for w in ws) and sum(w for w in ws if w is not None) <= 0:
            raise ParameterError(
                "w1 + w2 + w3 must be positive (the mask weights are divided by their sum), got 0", name="w1"
            )

    @classmethod
    def warm_up(cls) -> None:
        """Compile the kernels: the generic warm-up's puzzles are fixed by AC3 at reset, so step a hard one too."""
        from ..model import library
        from .warm import generic_warm_up

        generic_warm_up(cls)
        for params, name in (({}, "mk_hard_a"), ({"prefilter": "none", "nests": 3}, "unique_4x4_a")):
            s = cls(**params)
            s.reset(library.puzzle(name), seed=0)
            s.step(3)
            s.set_params(nests=s.get_params()["nests"] + 1)  # the resize path
            s.step(1)
            s.snapshot()

    # ---------------------------------------------------------------- reset
    def check_puzzle(self, puzzle: Puzzle) -> None:
        prefilter(puzzle, "ac3")  # refuses a puzzle whose AC3 wipes out, whatever the mode

    def _apply_prefilter(self, mode: str):
        pz = self._pz
        self.mode = mode
        self.dom, self.pre, self.ac3_result = prefilter(pz, mode)
        self.tables = K.CuckooTables(self.pre, self.dom, self.geo.units, *row_tables(self.pre, pz.N))

    def _reset(self):
        self._apply_prefilter(self._params["prefilter"])
        self.counters = np.zeros(K.N_COUNTERS, dtype=np.int64)
        self.counters[K.C_PICKED] = self.counters[K.C_REPLACED] = -1
        self.counters[K.C_OPERATOR] = K.OP_BEFORE
        self.best_grid = self.pre.copy()
        self._populate(self._params["nests"])
        if self.counters[K.C_BEST_COST] == 0:
            self.status = Status.SOLVED

    def _populate(self, nests: int):
        """Every nest built afresh from the domains; the best egg so far becomes the best nest's."""
        C = self._pz.C
        self.eggs = np.zeros((nests, C), dtype=np.int8)
        self.costs = np.zeros(nests, dtype=np.int64)
        self.abandoned = np.zeros(nests, dtype=bool)
        self._build_nests(self.eggs, self.costs, 0, nests)
        b = int(np.argmin(self.costs))
        self.counters[K.C_BEST] = b
        self.counters[K.C_BEST_COST] = self.costs[b]
        self.best_grid = self.eggs[b].copy()
        self._restart_history()

    def _build_nests(self, eggs: np.ndarray, costs: np.ndarray, first: int, last: int) -> None:
        """Fill nests ``first`` to ``last - 1`` from the domains, counting their evaluations and fallbacks."""
        self.counters[K.C_FALLBACKS] += K.fill_nests(
            eggs, costs, first, last, self.tables, self._params["fill_nodes"], self.rng
        )
        self.counters[K.C_EVALUATIONS] += last - first
        self.evaluations = int(self.counters[K.C_EVALUATIONS])

    def _restart_history(self):
        self.hist = np.zeros((HISTORY_ROWS, self.eggs.shape[0]), dtype=np.int16)
        self.counters[K.C_HIST_LEN] = 0
        self.counters[K.C_HIST_STRIDE] = 1
        self.counters[K.C_HIST_PENDING] = 0
        self.hist_start = int(self.iteration)

    def _resize(self, nests: int):
        """Keep the ``nests`` lowest-cost nests (ties by index, in index order) or add new ones from the domains."""
        old = self.eggs.shape[0]
        if nests < old:
            keep = np.sort(np.lexsort((np.arange(old), self.costs))[:nests])
            self.eggs = self.eggs[keep].copy()
            self.costs = self.costs[keep].copy()
        else:
            eggs = np.zeros((nests, self._pz.C), dtype=np.int8)
            costs = np.zeros(nests, dtype=np.int64)
            eggs[:old], costs[:old] = self.eggs, self.costs
            self._build_nests(eggs, costs, old, nests)
            self.eggs, self.costs = eggs, costs
        self.abandoned = np.zeros(nests, dtype=bool)
        # The best nest survives a shrink (lowest cost, first index), so the best egg so far stays in the population.
        self.counters[K.C_BEST] = int(np.argmin(self.costs))
        self.counters[K.C_PICKED] = self.counters[K.C_REPLACED] = -1
        self._restart_history()

    def _params_changed(self, names):
        # New domains serve the next iterations: rebuilt nests, the feasibility of child rows and mutations use
        # them; eggs built before stay until abandoned. A new number of nests applies at the next step (_step).
        if "prefilter" in names:
            self._apply_prefilter(self._params["prefilter"])

    # ---------------------------------------------------------- properties
    @property
    def grid(self) -> np.ndarray:
        return self.best_grid

    # ---------------------------------------------------------------- step
    def _before_step(self):
        if self._params["nests"] != self.eggs.shape[0]:
            self._resize(self._params["nests"])

    def _run(self, k, trace, events, ip, fp):
        return K.run(self.arrays(), self.tables, ip, fp, self.rng, k, trace)

    def _run_phase(self, index, ctx):
        return run_phase(self, index, ctx)

    # ------------------------------------------------------------ snapshot
    def _layers(self):
        pr = self._params
        w = np.array([pr["w1"], pr["w2"], pr["w3"]], dtype=np.float64)
        N = self.puzzle.N
        rows = int(self.counters[K.C_HIST_LEN])
        return {
            "nest_costs": frozen_copy(self.costs),
            "best_nest": int(self.counters[K.C_BEST]),
            "picked": int(self.counters[K.C_PICKED]),
            "replaced": int(self.counters[K.C_REPLACED]),
            "abandoned": frozen_copy(self.abandoned),
            "eggs": frozen_copy(self.eggs),
            "nest_history": frozen_copy(self.hist[:rows]),
            "history_stride": int(self.counters[K.C_HIST_STRIDE]),
            "history_start": int(self.hist_start),
            "operator": OPERATORS[int(self.counters[K.C_OPERATOR])],
            "mutated": bool(self.counters[K.C_MUTATED]),
            "domains": frozen_copy(_domains_bool(self.dom, N)),
            "ac3": self.ac3_result,
            "ac3_iteration": 0,
            "prefilled": frozen_copy((self.pre > 0) & (self.puzzle.grid == 0)),
            "weights": frozen_copy(w / w.sum()),
            "swaps": int(self.counters[K.C_SWAPS]),
            "discarded": int(self.counters[K.C_DISCARDED]),
            "fallbacks": int(self.counters[K.C_FALLBACKS]),
        }

    @classmethod
    def summarize(cls, snapshot: Snapshot) -> dict[str, Any]:
        """Best cost, operator counts and the prefilter's fixed cells."""
        tr = snapshot.trace
        last = {k: int(tr[k][-1]) if len(tr[k]) else 0 for k in ("pmx", "sorting", "mutations", "abandoned")}
        return {
            "best_cost": int(snapshot.best_cost),
            **last,
            "prefilled": int(np.count_nonzero(snapshot.layers["prefilled"])),
        }

    # --------------------------------------------------------------- state
    def _extra_state(self):
        return {"mode": self.mode, "hist_start": self.hist_start}

    def _loaded(self, st):
        if st["mode"] != self._params["prefilter"]:  # set_params applies a new prefilter at once
            raise StateError(
                f"state.algorithm.mode is {st['mode']!r}, but the prefilter in force is {self._params['prefilter']!r}"
            )
        self._apply_prefilter(st["mode"])  # the domains of the prefilter in force (eggs built before may predate it)
        self.hist_start = int(st["hist_start"])

    def _derive(self):
        self.costs = _egg_costs(self.eggs, self._pz.n)
        self.counters[K.C_BEST_COST] = _egg_costs(self.best_grid[None, :], self._pz.n)[0]

    def _check_loaded(self):
        pz, c, it = self._pz, self.counters, self.iteration
        path = "state.algorithm"
        nests = self.eggs.shape[0]
        for name, size in (("abandoned", self.abandoned.shape[0]), ("hist", self.hist.shape[1])):
            if size != nests:
                raise StateError(f"{path}.{name} is for {size} nests, but the eggs are {nests}")
        _require_eggs(self.eggs, pz, f"{path}.eggs")
        _require_eggs(self.best_grid, pz, f"{path}.best_grid")
        best, best_cost = int(c[K.C_BEST]), int(c[K.C_BEST_COST])
        if best >= nests:
            raise StateError(f"{path}.counters[C_BEST] is {best}, outside 0..{nests - 1} (the nests)")
        if int(self.costs[best]) != int(self.costs.min()) or best_cost != int(self.costs[best]):
            raise StateError(
                f"{path}: the best nest {best} costs {int(self.costs[best])} and the best egg {best_cost}, "
                f"but the lowest-cost nest costs {int(self.costs.min())} (they are equal after every iteration)"
            )
        if (self.status == Status.SOLVED) != (best_cost == 0):
            raise StateError(f"state.status is {self.status!r}, but the best egg costs {best_cost}")
        picked, replaced, op, mutated = (int(c[k]) for k in (K.C_PICKED, K.C_REPLACED, K.C_OPERATOR, K.C_MUTATED))
        for slot, v in (("C_PICKED", picked), ("C_REPLACED", replaced)):
            if v >= nests:
                raise StateError(f"{path}.counters[{slot}] is {v}, outside -1..{nests - 1} (the nests)")
        if it == 0:
            latest = picked == -1 and replaced == -1 and op == K.OP_BEFORE and not mutated and not self.abandoned.any()
        else:
            latest = (
                picked >= 0
                and replaced != picked
                and op != K.OP_BEFORE
                and (op != K.OP_NONE or not mutated)
                and int(self.abandoned.sum()) < nests
            )
        if not latest:
            raise StateError(
                f"{path}.counters: the latest iteration's pick {picked}, replaced nest {replaced}, operator {op}, "
                f"mutated {mutated} and {int(self.abandoned.sum())} abandoned nests are not what "
                f"{'a reset' if it == 0 else 'an iteration'} leaves"
            )
        N, crossed = pz.N, int(c[K.C_PMX] + c[K.C_SORTING])
        for slot, v, most in (
            ("C_PMX + C_SORTING", crossed, it),
            ("C_MUTATIONS", int(c[K.C_MUTATIONS]), crossed),
            ("C_SWAPS", int(c[K.C_SWAPS]), N * int(c[K.C_MUTATIONS])),
            ("C_DISCARDED", int(c[K.C_DISCARDED]), N * crossed),
        ):
            if v > most:
                raise StateError(f"{path}.counters[{slot}] is {v}, more than the operators counted allow ({most})")
        H = self.hist.shape[0]
        rows, stride, pending = (int(c[k]) for k in (K.C_HIST_LEN, K.C_HIST_STRIDE, K.C_HIST_PENDING))
        if stride & (stride - 1) or pending >= stride or (stride > 1 and rows < H // 2):
            raise StateError(
                f"{path}.counters: a nest history of {rows} rows, stride {stride} and {pending} iterations pending "
                "is not one the halving history keeps"
            )
        if it - self.hist_start != rows * stride + pending:
            raise StateError(
                f"{path}.hist_start is {self.hist_start}, but a history of {rows} rows of stride {stride} and "
                f"{pending} pending covers {rows * stride + pending} iterations, not {it - self.hist_start}"
            )
        if rows and not pending and not np.array_equal(self.hist[rows - 1], self.costs):
            raise StateError(f"{path}.hist[{rows - 1}]: the latest history row is not the nests' costs")
