"""The GA's generation phase by phase: select, cross, mutate, replace.

One generation of :func:`sudoku_lab._kernels.ga.run` cut into the four genetic operations of
Sato and Inoue, calling the kernel's own jitted building blocks (``select_parents``,
``cross_pairs``, ``mutate_children``, ``keep_elites``, ``close_generation``) in the order
``generation`` and ``run`` call them and updating the counters and the trace row as they do, so
four phase steps leave exactly the state ``step(1)`` leaves, draw for draw (see
:mod:`._reseda_phases` for why the building blocks are called rather than re-written).

The paper's loop takes its random draws pair by pair (the tournaments, the crossover coin and
the tied bands' coins, each child's mutation coin and swap). ``select_parents`` takes them all,
in that order, and records them (a :class:`~sudoku_lab._kernels.ga.GAPlan`): "select" is where
the generation's random stream is read, and "cross" and "mutate" carry out what it decided
on the whole population without a draw. The children are bred into arrays of the iteration's
context (a keyframe taken mid-generation holds them); the population changes at "replace".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._kernels import ga_layout as L, lazy
from .declare import Phase

K = lazy("sudoku_lab._kernels.ga")

if TYPE_CHECKING:
    from .ga import GA

__all__ = ["PHASES", "run_phase"]

PHASES = (
    Phase(
        "select",
        "tournament selection of two parents per pair of children (the crossover and mutation coins drawn too)",
    ),
    Phase("cross", "band crossover: child 1 takes each row band, child 2 each column band, from the better parent"),
    Phase("mutate", "mutation: a child swaps two free cells of a random box; the children are evaluated"),
    Phase("replace", "the elites and the children become the next population; the best individual is tracked"),
)

_PLAN = L.GAPlan._fields


def run_phase(s: GA, index: int, ctx: dict) -> tuple[str, dict, bool]:
    """Phase ``index`` of ``s``'s current generation: ``(caption, changed, ended)``."""
    if index == 0:
        return _select(s, ctx)
    if index == 1:
        return _cross(s, ctx)
    if index == 2:
        return _mutate(s, ctx)
    return _replace(s, ctx)


def _plan(ctx: dict) -> L.GAPlan:
    return K.GAPlan(*(ctx[name] for name in _PLAN))


def _plural(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


def _select(s: GA, ctx: dict) -> tuple[str, dict, bool]:
    ip, fp = ctx["ip"], ctx["fp"]
    n, N, C = s._pz.n, s._pz.N, s._pz.C
    P, P2 = s.pop.shape[0], int(s._params["population"])  # P2 != P: a live change of the population size
    E = min(int(ip[K.P_ELITES]), P2, P)
    T = int(ip[K.P_TOURNAMENT])
    plan = K.GAPlan(
        np.zeros((P2, 2), dtype=np.int64),
        np.zeros(P2, dtype=np.bool_),
        np.zeros((P2, 2, n), dtype=np.bool_),
        np.zeros(P2, dtype=np.bool_),
        np.zeros((P2, 2), dtype=np.int64),
    )
    pairs = int(
        K.select_parents(
            s.fit,
            s.rsc,
            s.csc,
            n,
            E,
            P2,
            T,
            ip[K.P_TIES],
            fp[K.P_CROSSOVER],
            fp[K.P_MUTATION],
            s.box_free,
            s.box_nfree,
            s.mut_boxes,
            s.n_mut,
            plan,
            s.rng,
        )
    )
    ctx.update(zip(_PLAN, plan))
    ctx.update(
        E=E,
        pairs=pairs,
        out=np.zeros((P2, C), dtype=np.int8),
        ofit=np.zeros(P2, dtype=np.int64),
        orsc=np.zeros((P2, N), dtype=np.int64),
        ocsc=np.zeros((P2, N), dtype=np.int64),
    )
    drawn = plan.parents[:pairs].ravel()
    chosen = np.unique(drawn)
    chosen = chosen[np.argsort(-s.fit[chosen], kind="stable")]  # best first, ties by index
    fit = s.fit[chosen]
    lo, hi = int(fit.min()), int(fit.max())
    span = f"fitness {lo}" if lo == hi else f"fitness {lo} to {hi}"
    crossing = int(plan.crossed[:pairs].sum())
    mutating = int(plan.mutated[E:].sum())
    caption = (
        f"selected {2 * pairs} parents by tournament of {T} ({_plural(pairs, 'pair')}; "
        f"{len(chosen)} distinct individuals, {span})"
    )
    if E:
        caption += f", the {_plural(E, 'elite')} kept aside"
    caption += f"; coins: {crossing} of {pairs} pairs to cross, {mutating} of {P2 - E} children to mutate"
    costs = (s.full - fit).astype(np.int64)
    return caption, {"selected": chosen.astype(np.int64), "costs": costs}, False


def _children(ctx: dict, p: int) -> list[int]:
    """Slots of pair ``p``'s children in the next population."""
    s0 = ctx["E"] + 2 * p
    return [s0, s0 + 1] if s0 + 1 < ctx["out"].shape[0] else [s0]


def _cross(s: GA, ctx: dict) -> tuple[str, dict, bool]:
    E, pairs, plan = ctx["E"], ctx["pairs"], _plan(ctx)
    crossed = int(K.cross_pairs(s.pop, ctx["out"], s._pz.n, E, plan))
    s.counters[K.C_CROSSOVERS] = crossed
    members = [c for p in range(pairs) if plan.crossed[p] for c in _children(ctx, p)]
    caption = (
        f"crossed {crossed} of {_plural(pairs, 'pair')} by bands (child 1 by rows, child 2 by columns); "
        f"the other {pairs - crossed} pairs' children copy their parents"
    )
    return caption, {"members": np.array(members, dtype=np.int64)}, False


def _mutate(s: GA, ctx: dict) -> tuple[str, dict, bool]:
    ip, E, plan = ctx["ip"], ctx["E"], _plan(ctx)
    out, ofit = ctx["out"], ctx["ofit"]
    P2 = out.shape[0]
    local = int(ip[K.P_LOCAL])
    mutated = int(
        K.mutate_children(
            out, ofit, ctx["orsc"], ctx["ocsc"], E, plan, s.box_free, s.box_nfree, s.geo.units, s._pz.n, local
        )
    )
    s.counters[K.C_MUTATIONS] = mutated
    s.counters[K.C_EVALUATIONS] += P2 - E
    members = np.flatnonzero(plan.mutated[E:P2]).astype(np.int64) + E
    swapped = int((plan.swaps[members, 0] >= 0).sum())
    caption = f"mutated {mutated} of {P2 - E} children"
    if mutated:
        caption += f" (two free cells of a box swapped{'' if swapped == mutated else f' in {swapped}'})"
    if local:
        caption += ", then one local search pass each"
    if P2 > E:
        caption += f"; children evaluated: best fitness {int(ofit[E:].max())} of {int(s.full)}"
    return caption, {"members": members}, False


def _replace(s: GA, ctx: dict) -> tuple[str, dict, bool]:
    ip, E = ctx["ip"], ctx["E"]
    out, ofit, orsc, ocsc = ctx["out"], ctx["ofit"], ctx["orsc"], ctx["ocsc"]
    P2 = out.shape[0]
    counters = s.counters
    K.keep_elites(s.pop, s.fit, s.rsc, s.csc, out, ofit, orsc, ocsc, E)
    before = s.grid.copy()
    best_before = int(counters[K.C_BEST_COST])
    resize = P2 != s.pop.shape[0]
    fb = int(
        K.close_generation(
            s.pop, s.fit, s.rsc, s.csc, out, ofit, orsc, ocsc, s.grid, s.best_grid, counters, s._pz.N, ctx["trace"]
        )
    )
    if resize:  # as GA._run after a generation bred at the new size
        s.pop, s.fit, s.rsc, s.csc = out.copy(), ofit.copy(), orsc.copy(), ocsc.copy()
        s._alloc_scratch()
    budget = int(ip[K.P_BUDGET])
    if fb == s.full:
        code = K.SOLVED
    elif counters[K.C_ITERATION] >= budget:
        code = K.BUDGET
    else:
        code = K.RUNNING
    row = ctx["trace"]
    kept = f"the {_plural(E, 'elite')} and {P2 - E} children" if E else f"{P2} children"
    caption = (
        f"replaced: {kept} are the next population{f' (resized to {P2})' if resize else ''}; "
        f"best fitness {fb} (cost {s.full - fb}), mean {row[4]:.1f}, worst {int(row[5])}"
    )
    if counters[K.C_BEST_COST] < best_before:
        caption += " (a new best since the reset)"
    if code == K.SOLVED:
        caption += "; the puzzle is solved"
    elif code == K.BUDGET:
        caption += f"; the budget of {budget} generations is spent"
    s._close_iteration(code)
    members = np.arange(E, P2, dtype=np.int64)
    return caption, {"members": members, "cells": s.grid != before}, True
