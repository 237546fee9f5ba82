"""The AC3-tabu search's iteration phase by phase: candidates, choose, propagate, tabu update.

One iteration of :func:`sudoku_lab._kernels.ac3_tabu.run` cut along the paper's Algorithm 4
(lines 4-7 the candidate list, 8 the best candidate, 9 its AC3, 10-14 the acceptance and the
tabu list), calling the kernel's own jitted building blocks (``build_candidates``,
``push_differences``) and updating the counters, the trace row and the aspiration events as
``run`` does, so four phase steps leave exactly the state ``step(1)`` leaves, draw for draw (see
:mod:`._reseda_phases` for why the building blocks are called rather than re-written).

Every draw of an iteration is in "candidates": each candidate is propagated there already, since
its cost (the cells AC3 leaves open) is what the candidates are compared by. "choose" takes the
best admissible candidate when the acceptance allows it and shows its assignment (and any drop)
on the board, before its propagation; "propagate" puts in the cells its AC3 fixed; "tabu
update" enters the feature differences (the assignments the move undid) in the FIFO list. An
iteration without a move still runs "propagate" and "tabu update", which say so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._kernels import lazy
from ..model.geometry import cell_name, symbol
from .declare import Phase

KA = lazy("sudoku_lab._kernels.ac3")
K = lazy("sudoku_lab._kernels.ac3_tabu")

if TYPE_CHECKING:
    from .ac3_tabu import AC3Tabu

__all__ = ["PHASES", "run_phase"]

PHASES = (
    Phase(
        "candidates",
        "build the candidate list by roulette wheels (drop, cell, non-tabu digit), each candidate propagated by AC3",
    ),
    Phase("choose", "locate the best admissible candidate; take it when its cost is at most the state's"),
    Phase("propagate", "AC3 on the chosen candidate: the cells its propagation fixed are filled"),
    Phase("tabu update", "the assignments the move undid (feature differences) enter the FIFO tabu list"),
)


def run_phase(s: AC3Tabu, index: int, ctx: dict) -> tuple[str, dict, bool]:
    """Phase ``index`` of ``s``'s current iteration: ``(caption, changed, ended)``."""
    if index == 0:
        return _candidates(s, ctx)
    if index == 1:
        return _choose(s, ctx)
    if index == 2:
        return _propagate(s, ctx)
    return _tabu_update(s, ctx)


def _grid(domains: np.ndarray) -> np.ndarray:
    from .ac3_tabu import singleton_grid  # here: that module imports this one

    return singleton_grid(domains)


def _plural(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


def _move_words(s: AC3Tabu, b: int) -> str:
    N = s._pz.N
    row = s.cands[b]
    words = f"{cell_name(int(row[K.K_CELL]), N)} = {symbol(int(row[K.K_DIGIT]))}"
    nd = int(row[K.K_NDROP])
    if nd:
        drops = s.cand_drops[b, : min(nd, 3)]
        listed = ", ".join(f"{cell_name(int(c), N)}={symbol(int(d))}" for c, d in drops)
        words += f" (after dropping {listed}{', ...' if nd > 3 else ''})"
    return words


def _candidates(s: AC3Tabu, ctx: dict) -> tuple[str, dict, bool]:
    ip, fp = ctx["ip"], ctx["fp"]
    counters = s.counters
    C = s.S.shape[0]
    it = int(counters[K.C_ITERATION]) + 1
    dead = bool(counters[K.C_DEAD])
    cost_s = int(counters[K.C_COST])
    best = np.zeros_like(s.S)
    best_pre = np.zeros_like(s.S)
    # the kernel's scratch, written before it is read (no AC3 log: the solver replays the accepted one)
    b, b_cost, wiped = K.build_candidates(
        s.S,
        s.prefilled,
        s.tabu,
        s.tabu_mask,
        s.cands,
        s.cand_drops,
        counters,
        s.geo.peers,
        s.geo.units,
        ip,
        fp,
        it,
        np.zeros_like(s.S),
        np.zeros_like(s.S),
        best,
        best_pre,
        np.zeros(C),
        np.zeros(C, dtype=np.bool_),
        np.zeros((0, KA.LOG_WIDTH), dtype=np.int32),
        np.zeros(C, dtype=np.int32),
        np.zeros(KA.N_COUNTERS, dtype=np.int64),
        s.rng,
    )
    ctx.update(it=it, dead=dead, cost_s=cost_s, b=int(b), b_cost=int(b_cost), wiped=int(wiped))
    ctx.update(best=best, best_pre=best_pre)
    L = int(ip[K.P_CANDIDATES])
    status = s.cands[:L, K.K_STATUS]
    admissible = np.flatnonzero(status == K.ST_NOT_BEST)
    costs = s.cands[admissible, K.K_COST]
    order = np.argsort(costs, kind="stable")  # best first, ties in generation order (the kernel's choice)
    aspired = int(s.cands[admissible, K.K_TABU].sum())
    tabu = int((status == K.ST_TABU).sum())
    caption = f"{len(admissible)} of {L} candidate moves admissible ({tabu} tabu"
    if aspired:
        caption += f", {aspired} tabu but admitted by aspiration"
    caption += ")"
    if wiped:
        caption += f"; {wiped} wiped out by AC3, {'its' if wiped == 1 else 'their'} assignment made tabu"
    if dead:
        if ip[K.P_DEAD_END] == K.DEAD_END_RESTART:
            caption += "; the state is a dead end: every candidate restarted from the prefilter"
        else:
            caption += f"; the state is a dead end: every candidate dropped {int(ip[K.P_DROP])} cells"
    changed = {"selected": admissible[order].astype(np.int64), "costs": costs[order].astype(np.int64)}
    return caption, changed, False


def _choose(s: AC3Tabu, ctx: dict) -> tuple[str, dict, bool]:
    ip = ctx["ip"]
    counters = s.counters
    b, b_cost, cost_s, dead = ctx["b"], ctx["b_cost"], ctx["cost_s"], ctx["dead"]
    restart = ip[K.P_DEAD_END] == K.DEAD_END_RESTART
    ctx["moved"] = False
    if b < 0:
        return "no move: no admissible candidate (every one wiped out or tabu)", {}, False
    if not (b_cost <= cost_s or (dead and restart)):
        s.cands[b, K.K_STATUS] = K.ST_WORSE
        caption = (
            f"no move: the best admissible candidate, {b + 1} ({_move_words(s, b)}), "
            f"costs {b_cost} > {cost_s}, the state's cost"
        )
        return caption, {}, False
    aspiring = bool(s.cands[b, K.K_TABU])
    s.cands[b, K.K_STATUS] = K.ST_ASPIRATION if aspiring else K.ST_TAKEN
    before = s.grid
    ctx["S_old"] = s.S.copy()
    ctx["moved"] = True
    s.S[:] = ctx["best_pre"]  # the assignment (and drop) before its propagation
    s.pre[:] = ctx["best_pre"]
    counters[K.C_MOVES] += 1
    counters[K.C_MOVED] = 1
    counters[K.C_AC3_ITERATION] = ctx["it"]
    counters[K.C_AC3_HIDDEN] = 1 if ip[K.P_HIDDEN] else 0
    if aspiring:
        counters[K.C_ASPIRATIONS] += 1
    why = " (tabu, taken by aspiration)" if aspiring else ""
    if b_cost > cost_s:
        why += " (a dead end's restart, taken whatever its cost)"
    caption = f"chose candidate {b + 1}, {_move_words(s, b)}{why}: cost {cost_s} -> {b_cost}"
    return caption, {"cells": s.grid != before, "sample": _grid(ctx["best"])}, False


def _propagate(s: AC3Tabu, ctx: dict) -> tuple[str, dict, bool]:
    if not ctx["moved"]:
        return "nothing to propagate: no move in this iteration", {}, False
    counters = s.counters
    best, best_pre, b_cost = ctx["best"], ctx["best_pre"], ctx["b_cost"]
    before = s.grid
    s.S[:] = best
    counters[K.C_COST] = b_cost
    new_best = b_cost < counters[K.C_BEST_COST]
    if new_best:
        counters[K.C_BEST_COST] = b_cost
        s.best_grid[:] = s.grid
    fixed = s.grid != before
    removed = int(sum(bin(int(a)).count("1") - bin(int(c)).count("1") for a, c in zip(best_pre, best)))
    if removed:
        caption = f"propagation (AC3) removed {_plural(removed, 'value')}, {_plural(int(fixed.sum()), 'cell')} fixed"
    else:
        caption = "propagation (AC3) removed nothing: the assignment was already at a fixed point"
    caption += f"; cost {b_cost}"
    if new_best:
        caption += " (a new best)"
    return caption, {"cells": fixed}, False


def _tabu_update(s: AC3Tabu, ctx: dict) -> tuple[str, dict, bool]:
    ip, row = ctx["ip"], ctx["trace"]
    counters = s.counters
    it, tenure = ctx["it"], int(ip[K.P_TENURE])
    N = s._pz.N
    moved = ctx["moved"]
    events = None
    moved_drop = 0
    if moved:
        K.push_differences(ctx["S_old"], ctx["best"], s.tabu, counters, s.tabu_mask, it, tenure)
        b = ctx["b"]
        moved_drop = int(s.cands[b, K.K_NDROP])
        if s.cands[b, K.K_TABU]:
            events = np.array([[it, s.cands[b, K.K_CELL], s.cands[b, K.K_DIGIT]]], dtype=np.int64)
    counters[K.C_ITERATION] = it
    row[:] = (it, counters[K.C_COST], counters[K.C_BEST_COST], ctx["wiped"], counters[K.C_TABU_LEN], moved_drop)
    length = int(counters[K.C_TABU_LEN])
    entered = s.tabu[:length][s.tabu[:length, K.T_ENTERED] == it]
    undone = [f"{cell_name(int(c), N)}={symbol(int(d))}" for c, d, _, r in entered if r == K.REASON_DIFFERENCE]
    if undone:
        shown = ", ".join(undone[:4]) + (", ..." if len(undone) > 4 else "")
        caption = f"tabu list: {shown} (undone by the move) tabu"
    elif moved:
        caption = "tabu list: the move undid no assignment, nothing enters"
    else:
        caption = "tabu list: no move, no feature difference enters"
    wiped_in = len(entered) - len(undone)
    if wiped_in:
        caption += f"; {wiped_in} wiped-out assignment{'s' if wiped_in > 1 else ''} entered with the candidates"
    caption += f"; {length} of at most {tenure} features listed (FIFO)"
    budget = int(ip[K.P_BUDGET])
    if counters[K.C_COST] == 0:
        code = K.SOLVED
        caption += "; the puzzle is solved"
    elif budget > 0 and it >= budget:
        code = K.BUDGET
        caption += f"; the budget of {budget} iterations is spent"
    else:
        code = K.RUNNING
    s._close_iteration(code, events)
    return caption, {}, True
