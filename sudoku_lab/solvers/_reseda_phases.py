"""RESEDA's iteration phase by phase: sample, select, update, restart check.

One EDA step of :func:`sudoku_lab._kernels.reseda.run` cut into the four phases the paper names
(RESEDA 2.2-2.3), so the lab can show what each one changed. Each phase calls the kernel's own
building blocks (``sample_blocks`` / ``sample_independent``, ``missing_cost``, ``select_sort`` /
``select_groups``, ``update_p``, ``rho``, ``mean_entropy``, each compiled by numba and callable
from Python) in exactly the order ``run`` calls them, and updates the counters and the trace row
as ``run`` does. The random draws are therefore the kernel's, draw for draw: four phase steps
leave the state ``step(1)`` leaves. Calling the building blocks rather than re-writing them in
Python keeps one copy of each; the pure-Python twins in ``tests/naive.py`` stay the independent
check (``tests/test_phases.py`` replays the phases against them too).

``run`` stays the fast path: :meth:`~sudoku_lab.solvers.Solver.step` never comes here except to
finish an iteration begun by phase steps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._kernels import lazy
from .base import Status
from .declare import Phase

K = lazy("sudoku_lab._kernels.reseda")

if TYPE_CHECKING:
    from .reseda import Reseda

__all__ = ["PHASES", "run_phase"]

PHASES = (
    Phase("sample", "draw Q samples from the model p and evaluate their missing-symbol cost"),
    Phase("select", "keep the Q1 samples with lowest cost"),
    Phase("update", "p <- alpha p + (1 - alpha) r, r the digit frequencies among the kept samples"),
    Phase("restart check", "the run fails when rho = min over cells of max_k p exceeds beta (or its budget is spent)"),
)

_SAMPLE, _SELECT, _UPDATE, _CHECK = range(4)


def run_phase(s: Reseda, index: int, ctx: dict) -> tuple[str, dict, bool]:
    """Phase ``index`` of ``s``'s current EDA step: ``(caption, changed, ended)``.

    ``ctx`` is the iteration's context (:meth:`~sudoku_lab.solvers.base.KernelSolver._run_phase`):
    ``ip`` and ``fp`` as :func:`~sudoku_lab._kernels.reseda.run` takes them, ``trace`` the
    step's trace row.
    """
    if index == _SAMPLE:
        return _sample(s, ctx)
    if index == _SELECT:
        return _select(s, ctx)
    if index == _UPDATE:
        return _update(s, ctx)
    return _check(s, ctx)


def _run_words(s: Reseda) -> str:
    if s.zone >= 0:
        return f"run {s.run_index + 1} (partial restart, {s.geo.unit_name(s.zone)} fixed) starts: "
    if s.run_kind == "full":
        return f"run {s.run_index + 1} (full restart, attempt {s.attempt + 1}) starts: "
    return f"run {s.run_index + 1} starts: " if s.run_index else ""


def _sample(s: Reseda, ctx: dict) -> tuple[str, dict, bool]:
    ip, row = ctx["ip"], ctx["trace"]
    counters, costs, samples = s.counters, s.costs, s.samples
    Q = int(ip[K.P_Q])
    N = s.p.shape[1]
    units = s.geo.units
    opening = _run_words(s) if counters[K.C_RUN_STEP] == 0 else ""
    before = s.grid.copy()
    used = np.zeros(N, dtype=np.bool_)  # scratch, as run's
    total = 0
    best = 0
    for q in range(Q):  # run's sampling loop: each sample's draws in turn, then its cost
        if ip[K.P_SAMPLING] == K.SAMPLING_BLOCKS:
            K.sample_blocks(s.p, s.box_free, s.box_nfree, s.box_avail, s.base, samples[q], used, s.rng)
        else:
            K.sample_independent(s.p, s.free_cells, s.base, samples[q], s.rng)
        c = K.missing_cost(samples[q], units, N)
        costs[q] = c
        total += c
        if c < costs[best]:
            best = q
    counters[K.C_ITERATION] += 1
    counters[K.C_EVALUATIONS] += Q
    counters[K.C_RUN_STEP] += 1
    s.grid[:] = samples[best]
    counters[K.C_COST] = costs[best]
    if costs[best] < counters[K.C_BEST_COST]:
        s.best_grid[:] = samples[best]
        counters[K.C_BEST_COST] = costs[best]
    row[0] = counters[K.C_ITERATION]
    row[1] = costs[best]
    row[2] = total / Q
    row[5] = counters[K.C_BEST_COST]
    # The previous step's kept samples are gone with its samples: none are kept until "select".
    counters[K.C_N_KEPT] = 0
    changed = {"sample": s.grid.copy(), "cells": s.grid != before}
    how = "a permutation per box" if ip[K.P_SAMPLING] == K.SAMPLING_BLOCKS else "each cell on its own"
    if costs[best] == 0:
        row[3] = K.rho(s.p, s.free_cells)
        row[4] = K.mean_entropy(s.p, s.free_cells)
        s._close_iteration(K.SOLVED)
        return f"{opening}drew {Q} samples ({how}): sample {best + 1} has cost 0, the puzzle is solved", changed, True
    caption = f"{opening}drew {Q} samples ({how}): best cost {int(costs[best])}, mean {total / Q:.1f}"
    return caption, changed, False


def _select(s: Reseda, ctx: dict) -> tuple[str, dict, bool]:
    ip = ctx["ip"]
    Q, Q1 = int(ip[K.P_Q]), int(ip[K.P_Q1])
    if ip[K.P_SELECTION] == K.SELECT_GROUPS:
        K.select_groups(s.costs, Q1, s.kept)
        how = f"the best of each of {Q1} groups of {Q // Q1}{'+' if Q % Q1 else ''} samples"
    else:
        K.select_sort(s.costs, Q1, s.kept, s.rng)
        how = f"the {Q1} best of {Q} samples (ties in random order)"
    s.counters[K.C_N_KEPT] = Q1
    kept = s.kept[:Q1].copy()
    kept_costs = s.costs[kept].astype(np.int64)
    lo, hi = int(kept_costs.min()), int(kept_costs.max())
    span = f"cost {lo}" if lo == hi else f"costs {lo} to {hi}"
    return f"kept {how}: {span}", {"selected": kept, "costs": kept_costs}, False


def _update(s: Reseda, ctx: dict) -> tuple[str, dict, bool]:
    ip, fp, row = ctx["ip"], ctx["fp"], ctx["trace"]
    Q1 = int(ip[K.P_Q1])
    alpha = float(fp[K.P_ALPHA])
    before = s.p.copy()
    counts = np.zeros(s.p.shape[1], dtype=np.int64)  # scratch, as run's
    K.update_p(s.p, s.samples, s.kept, Q1, s.free_cells, alpha, counts)
    r = K.rho(s.p, s.free_cells)
    row[3] = r
    row[4] = K.mean_entropy(s.p, s.free_cells)
    moved = np.any(s.p != before, axis=1)
    caption = (
        f"p <- {alpha:g} p + {1 - alpha:g} r from the {Q1} kept samples: "
        f"{int(moved.sum())} of {len(s.free_cells)} free cells' rows moved; rho = {r:.3f}"
    )
    return caption, {"rows": moved}, False


def _check(s: Reseda, ctx: dict) -> tuple[str, dict, bool]:
    ip, fp, row = ctx["ip"], ctx["fp"], ctx["trace"]
    r, beta = float(row[3]), float(fp[K.P_BETA])
    budget = int(ip[K.P_RUN_BUDGET])
    steps = int(s.counters[K.C_RUN_STEP])
    run_no = s.run_index + 1
    if r > beta:
        code, why = K.CONVERGED, f"rho = {r:.3f} > beta = {beta:g}: run {run_no} failed after {steps} steps"
    elif budget > 0 and steps >= budget:
        code, why = K.BUDGET, f"rho = {r:.3f} <= beta = {beta:g}, but run {run_no} spent its budget of {budget} steps"
    else:
        code, why = K.RUNNING, f"rho = {r:.3f} <= beta = {beta:g}: run {run_no} goes on (step {steps})"
    s._close_iteration(code)
    if code == K.RUNNING:
        return why, {}, True
    if s.status == Status.FAILED:
        then = f"no restart left (restart = {s.get_params()['restart']}): the search stops"
    elif s.zone_queue:
        queued = len(s.zone_queue)
        then = (
            f"next, a partial restart with {s.geo.unit_name(s.zone_queue[0])} of its final grid fixed "
            f"({queued} zone{'s' if queued > 1 else ''} to try)"
        )
    else:
        then = f"next, a full restart (attempt {s.attempt + 2})"
    return f"{why}; {then}", {}, True
