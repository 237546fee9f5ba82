"""The cuckoo search's iteration phase by phase: lay, compare and replace, abandon.

One iteration of :func:`sudoku_lab._kernels.cuckoo.run` (the paper's Algorithm 8, one cuckoo) cut
into its three phases, calling the kernel's own jitted building blocks (``pmx_row``,
``sorting_row``, ``take_child_row``, ``levy_swaps``, ``mutate_once``, ``egg_cost``, and
``abandon_and_close`` for the whole "abandon" phase: abandoning, tracking the best, the counters,
the trace row and the nest history) in the kernel's order, so three phase steps leave exactly the
state ``step(1)`` leaves, draw for draw (see :mod:`._reseda_phases` for why the building blocks are
called rather than re-written).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._kernels import cuckoo_layout as L, lazy
from .declare import Phase

K = lazy("sudoku_lab._kernels.cuckoo")

if TYPE_CHECKING:
    from .cuckoo import Cuckoo

__all__ = ["PHASES", "run_phase"]

PHASES = (
    Phase("lay", "a cuckoo picks a random nest and lays a new egg: crossover with the best (PMX or sorting), mutation"),
    Phase("compare and replace", "compare the new egg with a random other nest and keep the better"),
    Phase("abandon", "abandon nests other than the best with probability pa, rebuilt from the domains; track the best"),
)

_OPS = {L.OP_NONE: "no operator", L.OP_PMX: "PMX", L.OP_SORTING: "the sorting crossover"}


def run_phase(s: Cuckoo, index: int, ctx: dict) -> tuple[str, dict, bool]:
    """Phase ``index`` of ``s``'s current iteration: ``(caption, changed, ended)``."""
    if index == 0:
        return _lay(s, ctx)
    if index == 1:
        return _compare(s, ctx)
    return _abandon(s, ctx)


def _lay(s: Cuckoo, ctx: dict) -> tuple[str, dict, bool]:
    ip, fp = ctx["ip"], ctx["fp"]
    t, counters, eggs, costs, best_grid, rng = s.tables, s.counters, s.eggs, s.costs, s.best_grid, s.rng
    assert rng is not None  # phases run after reset()
    N = int(t.row_nfree.shape[0])
    nests = int(ip[K.P_NESTS])
    b = int(counters[K.C_BEST])
    s.abandoned[:nests] = False
    i = int(rng.random() * nests)
    new = eggs[i].copy()
    op, mutated, n_swaps, swapped = K.OP_NONE, 0, 0, 0
    if i != b:
        child = np.zeros(N, dtype=np.int8)  # scratch, written before it is read (as the kernel's)
        infeasible = ip[K.P_INFEASIBLE]
        discarded = int(counters[K.C_DISCARDED])
        if rng.random() < fp[K.P_P_PMX]:
            op = K.OP_PMX
            counters[K.C_PMX] += 1
            pos2 = np.zeros(N + 1, dtype=np.int64)
            placed = np.zeros(N + 1, dtype=np.bool_)
            for r in range(N):
                lo = int(rng.random() * N)
                hi = int(rng.random() * N)
                if hi < lo:
                    lo, hi = hi, lo
                row_best, row_i = best_grid[r * N : (r + 1) * N], eggs[i, r * N : (r + 1) * N]
                if ip[K.P_SEGMENT] == K.SEG_BEST:
                    K.pmx_row(row_best, row_i, lo, hi, child, pos2, placed)
                else:
                    K.pmx_row(row_i, row_best, lo, hi, child, pos2, placed)
                K.take_child_row(child, r, N, t.dom, infeasible, new, best_grid, counters)
        else:
            op = K.OP_SORTING
            counters[K.C_SORTING] += 1
            mask = np.zeros(N, dtype=np.int64)
            x = np.zeros((3, N), dtype=np.int64)
            pos = np.zeros((3, N + 1), dtype=np.int64)
            cum1, cum2 = fp[K.P_CUM1], fp[K.P_CUM2]
            for r in range(N):
                for q in range(N):
                    u = rng.random()
                    mask[q] = 0 if u < cum1 else (1 if u < cum2 else 2)
                K.sorting_row(
                    best_grid[r * N : (r + 1) * N],
                    eggs[b, r * N : (r + 1) * N],
                    eggs[i, r * N : (r + 1) * N],
                    mask,
                    child,
                    x,
                    pos,
                )
                K.take_child_row(child, r, N, t.dom, infeasible, new, best_grid, counters)
        discarded = int(counters[K.C_DISCARDED]) - discarded
        if rng.random() < fp[K.P_P_MUT]:
            mutated = 1
            counters[K.C_MUTATIONS] += 1
            n_swaps = int(K.levy_swaps(fp[K.P_LEVY_SIGMA], N, rng)) if ip[K.P_LEVY] else 1
            for _ in range(n_swaps):
                done = int(K.mutate_once(new, N, t.row_free, t.row_nfree, t.mut_rows, t.n_mut, t.dom, rng))
                counters[K.C_SWAPS] += done
                swapped += done
        c_new = int(K.egg_cost(new, t.units, N))
        counters[K.C_EVALUATIONS] += 1
        how = f"{_OPS[op]} with the best egg"
        if discarded:
            how += f" ({discarded} child row{'s' if discarded > 1 else ''} outside the domains discarded)"
        if mutated:
            how += f", then a mutation ({swapped} of {n_swaps} swap{'s' if n_swaps > 1 else ''} done)"
        caption = f"a cuckoo picked nest {i + 1} (cost {int(costs[i])}) and laid a new egg by {how}: cost {c_new}"
    else:
        c_new = int(costs[i])
        caption = f"a cuckoo picked nest {i + 1}, the best (cost {c_new}): its egg, unchanged"
    ctx.update(b=b, i=i, new=new, c_new=c_new, op=op, mutated=mutated)
    return caption, {"sample": new.copy(), "members": np.array([i], dtype=np.int64)}, False


def _compare(s: Cuckoo, ctx: dict) -> tuple[str, dict, bool]:
    ip = ctx["ip"]
    nests = int(ip[K.P_NESTS])
    i, b, new, c_new = ctx["i"], ctx["b"], ctx["new"], ctx["c_new"]
    costs, rng = s.costs, s.rng
    assert rng is not None  # phases run after reset()
    j = int(rng.random() * (nests - 1))
    if j >= i:
        j += 1
    replaced = -1
    old = int(costs[j])
    if c_new < costs[j] or (ip[K.P_TIES] == K.TIES_REPLACE and c_new == costs[j]):
        s.eggs[j] = new
        costs[j] = c_new
        replaced = j
        if c_new < costs[b]:
            b = j
    ctx.update(b=b, replaced=replaced)
    if replaced >= 0:
        better = "better" if c_new < old else "as good (ties replace)"
        caption = f"compared with nest {j + 1} (cost {old}): the new egg (cost {c_new}) is {better} and replaces it"
        if b == j:
            caption += f"; nest {j + 1} is the best now"
        return caption, {"members": np.array([j], dtype=np.int64)}, False
    caption = f"compared with nest {j + 1} (cost {old}): the new egg (cost {c_new}) is not better and is dropped"
    return caption, {"members": np.zeros(0, dtype=np.int64)}, False


def _abandon(s: Cuckoo, ctx: dict) -> tuple[str, dict, bool]:
    ip, fp, row = ctx["ip"], ctx["fp"], ctx["trace"]
    t, counters, costs, abandoned = s.tables, s.counters, s.costs, s.abandoned
    N = int(t.row_nfree.shape[0])
    nests = int(ip[K.P_NESTS])
    pa = float(fp[K.P_PA])
    worst = ip[K.P_ABANDON] == K.ABANDON_WORST
    rng = s.rng
    assert rng is not None  # phases run after reset()
    b = ctx["b"]
    before = s.best_grid.copy()
    best_before = int(counters[K.C_BEST_COST])
    cand = np.zeros((N, N), dtype=np.int64)  # build_egg's scratch
    ncand = np.zeros(N, dtype=np.int64)
    idx = np.zeros(N, dtype=np.int64)
    chosen = np.zeros(N, dtype=np.int64)
    b = K.abandon_and_close(
        s.arrays(),
        t,
        ip,
        fp,
        rng,
        b,
        ctx["i"],
        ctx["replaced"],
        ctx["op"],
        ctx["mutated"],
        cand,
        ncand,
        idx,
        chosen,
        row,
    )
    if counters[K.C_BEST_COST] == 0:
        code = K.SOLVED
    elif ip[K.P_BUDGET] > 0 and counters[K.C_ITERATION] >= ip[K.P_BUDGET]:
        code = K.BUDGET
    else:
        code = K.RUNNING
    members = np.flatnonzero(abandoned[:nests]).astype(np.int64)
    rule = f"the {len(members)} worst" if worst else f"each with probability pa = {pa:g}"
    caption = (
        f"abandoned {len(members)} of {nests - 1} nests other than the best ({rule}), rebuilt from the domains; "
        f"best nest {b + 1}, cost {int(costs[b])}"
    )
    if counters[K.C_BEST_COST] < best_before:
        caption += f" (a new best egg: cost {int(counters[K.C_BEST_COST])})"
    if code == K.SOLVED:
        caption += "; the puzzle is solved"
    elif code == K.BUDGET:
        caption += f"; the budget of {int(ip[K.P_BUDGET])} iterations is spent"
    s._close_iteration(code)
    return caption, {"members": members, "cells": s.best_grid != before}, True
