"""RESEDA kernels: sampling, missing-symbol cost, selection, update and the step loop.

Paper: Maire and Prissette, "A restarted estimation of distribution algorithm
for solving sudoku puzzles" (2012; citation ``maire2012`` in
:mod:`sudoku_lab.citations`), sections 2.1-2.3 and 3.1; choices the paper
leaves open are fixed in docs/algorithms.md, "RESEDA".

Every random draw is ``rng.random()`` (a uniform double), taken in a fixed
order documented on each function, so that the pure-Python twins in
``tests/naive.py`` replay a kernel draw for draw from the same seed.
"""

from __future__ import annotations

import numpy as np

from .common import jit
from .reseda_layout import (  # noqa: F401
    C_BEST_COST,
    C_COST,
    C_N_KEPT,
    C_RUN_STEP,
    CONVERGED,
    N_COUNTERS,
    P_ALPHA,
    P_BETA,
    P_Q,
    P_Q1,
    P_RUN_BUDGET,
    P_SAMPLING,
    P_SELECTION,
    SAMPLING_BLOCKS,
    SAMPLING_INDEPENDENT,
    SELECT_GROUPS,
    SELECT_SORT,
    TRACE_WIDTH,
    ResedaState,
)
from .scores import missing_cost  # noqa: F401  (shared with every kernel; K.missing_cost for callers)
from .status import BUDGET, C_EVALUATIONS, C_ITERATION, RUNNING, SOLVED, STOPPED  # noqa: F401


@jit
def draw_digit(row, mask, rng):
    """Draw a digit from a probability row restricted to the digits in ``mask``.

    Parameters
    ----------
    row : ndarray of float64, shape (N,)
        Probabilities (need not sum to 1; renormalised over ``mask``).
    mask : int
        Allowed digits as a bitmask (digit d is bit d-1).
    rng : numpy.random.Generator
        One ``rng.random()`` draw.

    Returns
    -------
    int
        A digit 1..N, or 0 if ``mask`` is empty.

    Notes
    -----
    Zero-mass fallback: if no allowed digit has positive probability (every
    allowed entry of the row has underflowed to 0), the same draw picks one
    of the allowed digits uniformly, so a sample never holds a 0 that the
    update would count as digit N.
    """
    N = row.shape[0]
    total = 0.0
    k = 0
    for d in range(N):
        if (mask >> d) & 1:
            total += row[d]
            k += 1
    r = rng.random()
    if not total > 0.0:
        if k == 0:
            return 0
        j = int(r * k)
        for d in range(N):
            if (mask >> d) & 1:
                if j == 0:
                    return d + 1
                j -= 1
    u = r * total
    acc = 0.0
    last = 0
    for d in range(N):
        if (mask >> d) & 1 and row[d] > 0.0:
            acc += row[d]
            last = d + 1
            if u < acc:
                return d + 1
    return last  # u landed past the rounding error of the last positive digit


@jit
def sample_independent(p, free_cells, base, out, rng):
    """Fill ``out`` with ``base`` and draw every free cell from its own row of ``p``.

    Parameters
    ----------
    p : ndarray of float64, shape (C, N)
    free_cells : ndarray of int32, shape (F,)
        Cells to draw, in this order (one ``rng.random()`` each).
    base : ndarray of int8, shape (C,)
        Fixed digits (0 where free).
    out : ndarray of int8, shape (C,)
        The sample (written).
    rng : numpy.random.Generator

    Notes
    -----
    The univariate sampling of RESEDA 2.2 ("picking each case individually").
    """
    N = p.shape[1]
    full = (1 << N) - 1
    out[:] = base
    for i in range(free_cells.shape[0]):
        c = free_cells[i]
        out[c] = draw_digit(p[c], full, rng)


@jit
def sample_blocks(p, box_free, box_nfree, box_avail, base, out, used, rng):
    """Fill ``out`` with ``base`` and draw a permutation for the free cells of every box.

    Parameters
    ----------
    p : ndarray of float64, shape (C, N)
    box_free : ndarray of int32, shape (N, N)
        Free cells of each box in reading order, padded with -1.
    box_nfree : ndarray of int32, shape (N,)
        Number of free cells per box.
    box_avail : ndarray of uint32, shape (N,)
        Digits not held by a fixed cell of the box (bitmask).
    base : ndarray of int8, shape (C,)
    out : ndarray of int8, shape (C,)
    used : ndarray of bool, shape (N,)
        Scratch.
    rng : numpy.random.Generator

    Notes
    -----
    RESEDA 3.1, "permutations": in each box, among the unfilled cells take the
    one whose row of ``p``, renormalised over the digits still available, has
    the largest maximum (first in reading order on ties); draw its digit from
    that row (one ``rng.random()``); remove the digit from the others' choices.
    As soon as an unfilled cell has no probability mass left on the available
    digits, the remaining cells get the remaining digits uniformly at random:
    a Fisher-Yates shuffle of the digits in increasing order, one
    ``rng.random()`` per position from the last down to the second, assigned
    to the remaining cells in reading order (docs/algorithms.md, "RESEDA").

    Each cell's available mass, its top probability and how many available
    digits carry mass are kept up to date as digits are taken, so a box costs
    O(m^2 + m N) instead of O(m^2 N); "no mass left" is that integer count
    reaching 0, never a float compared with 0. The mass is updated by
    subtraction only while the cell's top digit stays available: then the
    mass left is at least the top, which is at least 1/N of the mass before,
    so rounding errors stay within a few ulps. When the top digit goes, the
    mass is summed again from scratch with the new top (cancellation could
    otherwise leave 0.0, or a negative or wildly small value, while digits
    with mass remain: a division by zero, or a skewed choice of cell).
    """
    N = p.shape[1]
    out[:] = base
    total = np.empty(N)
    top = np.empty(N)
    top_digit = np.empty(N, dtype=np.int64)
    alive = np.empty(N, dtype=np.int64)
    for b in range(N):
        m = box_nfree[b]
        avail = np.int64(box_avail[b])
        for i in range(m):
            used[i] = False
            c = box_free[b, i]
            t = 0.0
            hi = 0.0
            hd = -1
            k = 0
            for d in range(N):
                if (avail >> d) & 1:
                    v = p[c, d]
                    t += v
                    if v > 0.0:
                        k += 1
                        if v > hi:
                            hi = v
                            hd = d
            total[i] = t
            top[i] = hi
            top_digit[i] = hd
            alive[i] = k
        left = m
        while left > 0:
            best = -1
            best_val = -1.0
            starved = False
            for i in range(m):
                if used[i]:
                    continue
                if alive[i] == 0:
                    starved = True
                    break
                val = top[i] / total[i]
                if val > best_val:
                    best_val = val
                    best = i
            if starved:
                _fill_uniform(box_free, b, m, used, avail, out, rng)
                break
            c = box_free[b, best]
            d = draw_digit(p[c], avail, rng)
            out[c] = d
            avail &= ~(np.int64(1) << (d - 1))
            used[best] = True
            left -= 1
            for i in range(m):
                if used[i]:
                    continue
                ci = box_free[b, i]
                v = p[ci, d - 1]
                if v > 0.0:
                    alive[i] -= 1
                    if top_digit[i] == d - 1:
                        t = 0.0
                        hi = 0.0
                        hd = -1
                        for e in range(N):
                            if (avail >> e) & 1:
                                w = p[ci, e]
                                t += w
                                if w > hi:
                                    hi = w
                                    hd = e
                        total[i] = t
                        top[i] = hi
                        top_digit[i] = hd
                    else:
                        total[i] -= v


@jit
def _fill_uniform(box_free, b, m, used, avail, out, rng):
    """Give the unused cells of box ``b`` the digits of ``avail`` in a uniformly random order.

    ``avail`` can hold one digit more than there are unused cells (a partial
    restart's zone may repeat a given's digit inside a box), so the scratch
    array is sized for every digit, not for the cells.
    """
    digits = np.empty(box_free.shape[1], dtype=np.int64)
    k = 0
    d = 0
    while avail >> d:
        if (avail >> d) & 1:
            digits[k] = d + 1
            k += 1
        d += 1
    for i in range(k - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        t = digits[i]
        digits[i] = digits[j]
        digits[j] = t
    k2 = 0
    for i in range(m):
        if not used[i]:
            out[box_free[b, i]] = digits[k2]
            used[i] = True
            k2 += 1


@jit
def select_sort(costs, Q1, kept, rng):
    """Keep the ``Q1`` lowest-cost samples; ties broken by a random permutation.

    Parameters
    ----------
    costs : ndarray of int64, shape (Q,)
    Q1 : int
    kept : ndarray of int64, shape (>= Q1,)
        Indices of the kept samples, best first (written).
    rng : numpy.random.Generator
        Q-1 draws: a Fisher-Yates shuffle of 0..Q-1 from the last position
        down to the second; sample q's tie-break rank is its shuffled value.

    Notes
    -----
    RESEDA 2.2, "sorting the Q samples and keep the Q1 with lowest cost".
    """
    Q = costs.shape[0]
    rank = np.arange(Q)
    for i in range(Q - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        t = rank[i]
        rank[i] = rank[j]
        rank[j] = t
    keys = costs * Q + rank
    order = np.argsort(keys)
    for k in range(Q1):
        kept[k] = order[k]


@jit
def select_groups(costs, Q1, kept):
    """Keep the best sample of each of ``Q1`` consecutive groups (first on ties).

    Group g holds samples ``g*Q//Q1`` to ``(g+1)*Q//Q1 - 1``, so sizes differ
    by at most one when Q1 does not divide Q. No random draws: samples are
    independent, so the first of equals is as random as any.

    Notes
    -----
    RESEDA 2.2, "the sample with lowest cost among Q/Q1 samples of size Q1":
    the cheaper variant that may miss very good samples.
    """
    Q = costs.shape[0]
    for g in range(Q1):
        lo = g * Q // Q1
        hi = (g + 1) * Q // Q1
        best = lo
        for q in range(lo + 1, hi):
            if costs[q] < costs[best]:
                best = q
        kept[g] = best


@jit
def update_p(p, samples, kept, Q1, free_cells, alpha, counts):
    """``p <- alpha * p + (1 - alpha) * r`` on the free cells, r = digit frequencies among the kept samples.

    Parameters
    ----------
    p : ndarray of float64, shape (C, N)
        Updated in place.
    samples : ndarray of int8, shape (Q, C)
    kept : ndarray of int64, shape (>= Q1,)
    Q1 : int
    free_cells : ndarray of int32, shape (F,)
    alpha : float
    counts : ndarray of int64, shape (N,)
        Scratch.

    Notes
    -----
    RESEDA 2.2, the update with smoothing parameter alpha. Fixed cells keep
    p = 1 on their digit, which the formula would preserve anyway.
    """
    N = p.shape[1]
    for i in range(free_cells.shape[0]):
        c = free_cells[i]
        for d in range(N):
            counts[d] = 0
        for k in range(Q1):
            counts[samples[kept[k], c] - 1] += 1
        for d in range(N):
            p[c, d] = alpha * p[c, d] + (1.0 - alpha) * (counts[d] / Q1)


@jit
def rho(p, free_cells):
    """``rho(n) = min over cells of max_k p``; 1.0 when no cell is free (RESEDA 2.3)."""
    N = p.shape[1]
    r = 1.0
    for i in range(free_cells.shape[0]):
        c = free_cells[i]
        top = 0.0
        for d in range(N):
            if p[c, d] > top:
                top = p[c, d]
        if top < r:
            r = top
    return r


@jit
def mean_entropy(p, free_cells):
    """Mean over free cells of the entropy of p[cell], normalised by log N (0 = certain, 1 = uniform)."""
    F = free_cells.shape[0]
    if F == 0:
        return 0.0
    N = p.shape[1]
    total = 0.0
    for i in range(F):
        c = free_cells[i]
        h = 0.0
        for d in range(N):
            v = p[c, d]
            if v > 0.0:
                h -= v * np.log(v)
        total += h
    return total / F / np.log(N)


def run_steps(
    p,
    free_cells,
    base,
    box_free,
    box_nfree,
    box_avail,
    units,
    samples,
    costs,
    kept,
    grid,
    best_grid,
    counters,
    trace,
    iparams,
    fparams,
    used,
    counts,
    rng,
    n_steps,
):
    """:func:`run` with the arrays one by one (the signature before :class:`ResedaState`; a plain function).

    ``used`` and ``counts`` are unused: :func:`run` allocates its own scratch.
    """
    state = ResedaState(
        p, base, grid, best_grid, counters, samples, costs, kept, free_cells, box_free, box_nfree, box_avail
    )
    return run(state, units, iparams, fparams, rng, n_steps, trace)


@jit
def run(state, units, iparams, fparams, rng, n_steps, trace):
    """Advance one RESEDA run by up to ``n_steps`` EDA steps.

    Parameters
    ----------
    state : ResedaState
        Updated in place: ``p`` (the model), ``samples`` (the step's samples; the kept ones stay readable
        afterwards), ``costs``, ``kept``, ``grid`` (best sample of the latest step), ``best_grid`` (best
        sample since reset, written when improved) and ``counters`` (see the ``C_*`` constants). Read:
        ``base`` (the run's fixed digits: givens, prefilled cells, a restart zone), ``free_cells`` and the
        box tables (see :func:`sample_blocks`).
    units : ndarray of int32, shape (3N, N)
    iparams : ndarray of int64
        Q, Q1, sampling mode, selection mode, run step budget (0 = none).
    fparams : ndarray of float64
        alpha, beta.
    rng : numpy.random.Generator
    n_steps : int
    trace : ndarray of float64, shape (>= n_steps, TRACE_WIDTH)
        One row per step done (written).

    Returns
    -------
    steps : int
        Steps done (rows of ``trace`` written).
    status : int
        RUNNING, SOLVED, CONVERGED or BUDGET.

    Notes
    -----
    One step (RESEDA 2.2-2.3): draw Q samples (in order, each with its own
    draws), score them; if one has cost 0 the run succeeds (the first such
    sample becomes ``grid``); otherwise select Q1 (``sort`` draws Q-1 numbers
    after the samples), update ``p`` and stop the run if rho > beta or the
    run's step budget is spent.
    """
    p = state.p
    free_cells = state.free_cells
    base = state.base
    box_free = state.box_free
    box_nfree = state.box_nfree
    box_avail = state.box_avail
    samples = state.samples
    costs = state.costs
    kept = state.kept
    grid = state.grid
    best_grid = state.best_grid
    counters = state.counters
    N = p.shape[1]
    Q = iparams[P_Q]
    Q1 = iparams[P_Q1]
    sampling = iparams[P_SAMPLING]
    selection = iparams[P_SELECTION]
    budget = iparams[P_RUN_BUDGET]
    alpha = fparams[P_ALPHA]
    beta = fparams[P_BETA]
    used = np.zeros(N, dtype=np.bool_)  # scratch of sample_blocks and update_p
    counts = np.zeros(N, dtype=np.int64)
    for s in range(n_steps):
        total = 0
        best = 0
        for q in range(Q):
            if sampling == SAMPLING_BLOCKS:
                sample_blocks(p, box_free, box_nfree, box_avail, base, samples[q], used, rng)
            else:
                sample_independent(p, free_cells, base, samples[q], rng)
            c = missing_cost(samples[q], units, N)
            costs[q] = c
            total += c
            if c < costs[best]:
                best = q
        counters[C_ITERATION] += 1
        counters[C_EVALUATIONS] += Q
        counters[C_RUN_STEP] += 1
        grid[:] = samples[best]
        counters[C_COST] = costs[best]
        if costs[best] < counters[C_BEST_COST]:
            best_grid[:] = samples[best]
            counters[C_BEST_COST] = costs[best]
        trace[s, 0] = counters[C_ITERATION]
        trace[s, 1] = costs[best]
        trace[s, 2] = total / Q
        trace[s, 5] = counters[C_BEST_COST]
        if costs[best] == 0:
            counters[C_N_KEPT] = 0
            trace[s, 3] = rho(p, free_cells)
            trace[s, 4] = mean_entropy(p, free_cells)
            return s + 1, SOLVED
        if selection == SELECT_GROUPS:
            select_groups(costs, Q1, kept)
        else:
            select_sort(costs, Q1, kept, rng)
        counters[C_N_KEPT] = Q1
        update_p(p, samples, kept, Q1, free_cells, alpha, counts)
        r = rho(p, free_cells)
        trace[s, 3] = r
        trace[s, 4] = mean_entropy(p, free_cells)
        if r > beta:
            return s + 1, CONVERGED
        if budget > 0 and counters[C_RUN_STEP] >= budget:
            return s + 1, BUDGET
    return n_steps, RUNNING
