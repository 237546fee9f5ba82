"""NB-COIN's generation phase by phase: sample, rank, reward, punish.

One generation of :func:`sudoku_lab._kernels.nbcoin.run` cut into the four phases the paper names
(NB-COIN III, equations 4-5), calling the kernel's own jitted building blocks (``sampling_tables``,
``givens_into``, ``sample_scored``, ``select``, ``reward_model``, ``punish_model``) in the kernel's
order and updating the counters and the trace row as it does, so four phase steps leave exactly
the state ``step(1)`` leaves, draw for draw (see :mod:`._reseda_phases` for why the building blocks
are called rather than re-written). Only "sample" draws random numbers.

Between "reward" and "punish" the model holds the rewarded values of equation 4 as written, before
the punishment, the clip to ``[0, upper]`` and the renormalisation (which "punish" does): a row may
then leave [0, 1].
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._kernels import lazy
from .declare import Phase

K = lazy("sudoku_lab._kernels.nbcoin")

if TYPE_CHECKING:
    from .nbcoin import NBCoin

__all__ = ["PHASES", "run_phase"]

PHASES = (
    Phase("sample", "draw the population from the box models, a permutation per box, and score each by fitness"),
    Phase("rank", "rank the population by fitness: the best C % form the good set, the worst C % the bad set"),
    Phase("reward", "M += (k/L) f_good - (k/L^2) sum f_good at every free position (eq. 4)"),
    Phase("punish", "M -= (k/L) f_bad - (k/L^2) sum f_bad (eq. 5), then clip to [0, upper] and renormalise"),
)

_SAMPLE, _RANK, _REWARD, _PUNISH = range(4)


def run_phase(s: NBCoin, index: int, ctx: dict) -> tuple[str, dict, bool]:
    """Phase ``index`` of ``s``'s current generation: ``(caption, changed, ended)``.

    ``ctx`` is the generation's context (:meth:`~sudoku_lab.solvers.base.KernelSolver._run_phase`):
    ``ip`` and ``fp`` as :func:`~sudoku_lab._kernels.nbcoin.run` takes them, ``trace`` the
    generation's trace row; "reward" adds ``prior`` (the model's rows before it) for "punish".
    """
    if index == _SAMPLE:
        return _sample(s, ctx)
    if index == _RANK:
        return _rank(s, ctx)
    if index == _REWARD:
        return _reward(s, ctx)
    return _punish(s, ctx)


def _sample(s: NBCoin, ctx: dict) -> tuple[str, dict, bool]:
    ip, row = ctx["ip"], ctx["trace"]
    counters, pop, fitness = s.counters, s.pop, s.fitness
    rng = s.rng
    assert rng is not None  # phases run after reset()
    N = s.M.shape[0]
    P = int(ip[K.P_POPULATION])
    optimum = 2 * N * N
    box_digits, cell_row, cell_col, row0, col0 = K.sampling_tables(s.base, s.box_avail, N)
    K.givens_into(pop, s.base, P)
    digits = np.empty(N, dtype=np.uint64)  # sample_scored's scratch, as run's
    uorder = np.empty(N, dtype=np.uint64)
    rows = np.empty(N, dtype=np.int64)
    cum = np.empty(N, dtype=np.float64)
    cols = np.empty(N, dtype=np.int64)
    before = s.best_grid.copy()
    best, worst, total = K.sample_generation(  # run's sampling loop: each individual's draws in turn
        s.M,
        s.box_cells,
        s.box_free,
        s.box_nfree,
        box_digits,
        cell_row,
        cell_col,
        row0,
        col0,
        pop,
        fitness,
        P,
        optimum,
        uorder,
        digits,
        rows,
        cols,
        cum,
        rng,
    )
    counters[K.C_ITERATION] += 1
    counters[K.C_EVALUATIONS] += P
    counters[K.C_POP] = P
    counters[K.C_GEN_BEST] = fitness[best]
    if fitness[best] > counters[K.C_BEST_FITNESS] or counters[K.C_ITERATION] == 1:
        s.best_grid[:] = pop[best]
        counters[K.C_BEST_FITNESS] = fitness[best]
    row[:] = (
        counters[K.C_ITERATION],
        optimum - fitness[best],
        optimum - counters[K.C_BEST_FITNESS],
        fitness[best],
        total / P,
        worst,
    )
    fb = int(fitness[best])
    changed = {"sample": pop[best].copy(), "cells": s.best_grid != before}
    caption = f"drew {P} candidates from the box models (a permutation per box): "
    if fb == optimum:
        counters[K.C_N_SELECTED] = 0
        s.delta[:] = 0.0
        s._close_iteration(K.SOLVED)
        return caption + f"candidate {best + 1} has fitness {fb}, the puzzle is solved", changed, True
    caption += (
        f"best fitness {fb} of {optimum} (cost {optimum - fb}, candidate {best + 1}), "
        f"mean {total / P:.1f}, worst {int(worst)}"
    )
    return caption, changed, False


def _rank(s: NBCoin, ctx: dict) -> tuple[str, dict, bool]:
    ip = ctx["ip"]
    P, G = int(ip[K.P_POPULATION]), int(ip[K.P_SELECTED])
    N = s.M.shape[0]
    optimum = 2 * N * N
    K.select(s.fitness, P, G, s.good, s.bad)
    s.counters[K.C_N_SELECTED] = G
    good, bad = s.good[:G].copy(), s.bad[:G].copy()
    good_costs = (optimum - s.fitness[good]).astype(np.int64)
    bad_costs = optimum - s.fitness[bad]
    caption = (
        f"ranked {P} candidates by fitness: best cost {int(good_costs[0])}, worst {int(bad_costs[0])}; "
        f"the {G} best ({_span(good_costs)}) to reward, the {G} worst ({_span(bad_costs)}) to punish"
    )
    return caption, {"selected": good, "costs": good_costs}, False


def _span(costs: np.ndarray) -> str:
    lo, hi = int(costs.min()), int(costs.max())
    return f"cost {lo}" if lo == hi else f"costs {lo} to {hi}"


def _reward(s: NBCoin, ctx: dict) -> tuple[str, dict, bool]:
    ip, fp = ctx["ip"], ctx["fp"]
    G = int(ip[K.P_SELECTED])
    k = float(fp[K.P_K])
    before = s.M.copy()
    prior = np.zeros_like(s.M)
    K.reward_model(s.M, s.allowed, s.box_cells, s.box_free, s.box_nfree, s.pop, s.good, G, k, ip[K.P_UPDATE], prior)
    ctx["prior"] = prior
    moved = _moved_rows(s, before)
    what = "counts" if ip[K.P_UPDATE] == K.UPDATE_COUNTS else "frequencies"
    caption = (
        f"rewarded the {G} best: M += (k/L) f - (k/L^2) F with k = {k:g}, L = {s.M.shape[0]}, f their digit "
        f"{what} per position; {int(moved.sum())} of {int(s.box_nfree.sum())} free positions moved "
        "(not yet clipped or renormalised)"
    )
    return caption, {"rows": moved}, False


def _punish(s: NBCoin, ctx: dict) -> tuple[str, dict, bool]:
    ip, fp = ctx["ip"], ctx["fp"]
    G = int(ip[K.P_SELECTED])
    k, upper = float(fp[K.P_K]), float(fp[K.P_UPPER])
    budget = int(ip[K.P_BUDGET])
    before = s.M.copy()
    K.punish_model(
        s.M,
        s.allowed,
        s.box_cells,
        s.box_free,
        s.box_nfree,
        s.pop,
        s.bad,
        G,
        k,
        upper,
        ip[K.P_UPDATE],
        ctx["prior"],
        s.delta,
        ip[K.P_BOUND],
    )
    moved = _moved_rows(s, before)
    bound = "" if ip[K.P_BOUND] == K.BOUND_RENORMALISE else f", then capped at {upper:g}"
    caption = (
        f"punished the {G} worst: M -= (k/L) h - (k/L^2) H, clipped to [0, {upper:g}] and renormalised{bound}; "
        f"{int(moved.sum())} of {int(s.box_nfree.sum())} free positions moved, "
        f"largest change of the generation {float(np.abs(s.delta).max()):.3f}"
    )
    code = K.RUNNING
    if budget > 0 and s.counters[K.C_ITERATION] >= budget:
        code = K.BUDGET
        caption += f"; the budget of {budget} generations is spent"
    s._close_iteration(code)
    return caption, {"rows": moved}, True


def _moved_rows(s: NBCoin, before: np.ndarray) -> np.ndarray:
    """The rows of the ``probability`` layer (p[cell, digit]) whose box-model row differs from ``before``."""
    moved = np.zeros(s.base.shape[0], dtype=np.bool_)
    moved[s.box_cells.reshape(-1)] = np.any(s.M != before, axis=2).reshape(-1)
    return moved
