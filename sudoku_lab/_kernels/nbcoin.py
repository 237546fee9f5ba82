"""NB-COIN kernels: permutation sampling per box, distinct-count fitness, selection, reward/punish update.

Paper: Waiyapara, Wattanapornprom and Chongstitvatana, "Solving Sudoku puzzles
with node based coincidence algorithm" (citation ``waiyapara`` in
:mod:`sudoku_lab.citations`), equations (4)-(6) and section IV; the choices the
paper leaves open are fixed in docs/algorithms.md, "NB-COIN".

The model is one N x N matrix per box, ``M[box, position, digit]`` (positions
0..N-1 in reading order inside the box, digits 0-based here). Every random
draw is ``rng.random()`` (a uniform double), taken in the order documented on
each function, so that the pure-Python twins in ``tests/naive_nbcoin.py``
replay a kernel draw for draw from the same seed.
"""

from __future__ import annotations

import numpy as np

from .common import jit, popcount
from .nbcoin_layout import (  # noqa: F401
    BOUND_CAP,
    BOUND_RENORMALISE,
    C_BEST_FITNESS,
    C_GEN_BEST,
    C_N_SELECTED,
    C_POP,
    N_COUNTERS,
    P_BOUND,
    P_BUDGET,
    P_K,
    P_POPULATION,
    P_SELECTED,
    P_UPDATE,
    P_UPPER,
    TRACE_WIDTH,
    UPDATE_COUNTS,
    UPDATE_FREQUENCIES,
    NBCoinState,
)
from .status import BUDGET, C_EVALUATIONS, C_ITERATION, RUNNING, SOLVED  # noqa: F401


@jit
def sample_scored(
    M,
    box_cells,
    box_free,
    box_nfree,
    box_digits,
    cell_row,
    cell_col,
    row0,
    col0,
    out,
    order,
    digits,
    rows,
    cols,
    cum,
    rng,
):
    """One individual, a permutation per box drawn from that box's model, and its fitness.

    Parameters
    ----------
    M : ndarray of float64, shape (N, N, N)
        The model ``M[box, position, digit]``.
    box_cells : ndarray of int32, shape (N, N)
        Cell index of each box position (reading order).
    box_free : ndarray of int32, shape (N, N)
        Free positions of each box in increasing order, padded with -1.
    box_nfree : ndarray of int32, shape (N,)
    box_digits : ndarray of int64, shape (N, N)
        Digits no given of the box holds, 0-based and increasing (``box_nfree[b]`` of them;
        :func:`unused_digits`).
    cell_row, cell_col : ndarray of int64, shape (C,)
        Row and column of each cell.
    row0, col0 : ndarray of int64, shape (N,)
        Bit masks (bit ``d - 1`` for digit ``d``) of the givens of each row and column.
    out : ndarray of int8, shape (C,)
        The individual: only its free cells are written (the givens must be in place already).
    order, digits : ndarray of uint64, shape (>= N,)
        Scratch (unsigned: indices without wrap-around checks).
    rows, cols : ndarray of int64, shape (>= N,)
        Scratch.
    cum : ndarray of float64, shape (>= N,)
        Scratch (running sums of a draw).
    rng : numpy.random.Generator

    Returns
    -------
    int
        The individual's fitness, distinct digits summed over the rows and columns (the number
        :func:`row_col_fitness` gives), from bit masks kept while the digits are drawn.

    Notes
    -----
    Per box, in box order: the free positions in increasing order are
    shuffled by Fisher-Yates (one ``rng.random()`` per slot from the last
    down to the second, ``j = int(u * (i + 1))``); then each position, in
    that order, draws its digit from its row of ``M`` restricted to the
    digits still unused in the box, renormalised (one ``rng.random()``,
    :func:`_draw`); with no mass left on the
    unused digits the same draw picks one of them uniformly.

    The unused digits are kept as a sorted list (``digits``), so a draw
    walks only those (the same additions in the same order as walking all
    N digits and skipping the used ones: the same result bit for bit).
    """
    N = M.shape[0]
    Mf = M.reshape(N * N * N)
    for r in range(N):
        rows[r] = row0[r]
        cols[r] = col0[r]
    for b in range(N):
        m = box_nfree[b]
        if m == 0:
            continue
        bu = np.uint64(b)
        for i in range(m):
            order[i] = np.uint64(box_free[bu, np.uint64(i)])
        for i in range(m - 1, 0, -1):
            j = np.uint64(rng.random() * (i + 1))  # int(u * (i + 1)), unsigned: no wrap-around checks
            t = order[i]
            order[i] = order[j]
            order[j] = t
        k = m
        for t in range(m):
            digits[t] = np.uint64(box_digits[bu, np.uint64(t)])
        gone = m  # index of the digit the previous draw took, dropped from the list on the next pass over it
        for i in range(m):
            pos = order[i]
            r = rng.random()  # the draw of _draw, written out without data-dependent branches
            j = 0
            if k > 1:
                row = (bu * np.uint64(N) + pos) * np.uint64(N)
                total = 0.0
                for t in range(k):
                    dt = digits[np.uint64(t + (t >= gone))]  # drop digits[gone]: no branch on it
                    digits[np.uint64(t)] = dt
                    total += Mf[row + dt]
                    cum[t] = total
                if not total > 0.0:
                    j = np.int64(r * k)
                else:
                    # _draw stops at the first positive entry whose running sum exceeds u; running sums
                    # that also add the zero entries are the same numbers (x + 0.0 == x), so that
                    # index is the count of running sums <= u (they never decrease).
                    u = r * total
                    for t in range(k):
                        j += cum[t] <= u
                    if j == k:  # u reached the total by rounding: _draw's last positive entry
                        j = k - 1
                        while not Mf[row + digits[np.uint64(j)]] > 0.0:
                            j -= 1
                d = digits[np.uint64(j)]
            else:  # the box's last free position takes its last unused digit
                d = digits[np.uint64(0 >= gone)]
            cell = np.uint64(box_cells[bu, pos])
            out[cell] = d + np.uint64(1)
            bit = np.int64(1) << np.int64(d)
            rows[np.uint64(cell_row[cell])] |= bit
            cols[np.uint64(cell_col[cell])] |= bit
            k -= 1
            gone = j
    total = 0
    for r in range(N):
        total += popcount(rows[r]) + popcount(cols[r])
    return total


@jit
def sample_generation(
    M,
    box_cells,
    box_free,
    box_nfree,
    box_digits,
    cell_row,
    cell_col,
    row0,
    col0,
    pop,
    fitness,
    P,
    optimum,
    order,
    digits,
    rows,
    cols,
    cum,
    rng,
):
    """A generation's ``P`` individuals into ``pop[:P]`` and their fitness into ``fitness[:P]``, in turn.

    Each individual's draws (:func:`sample_scored`), then the next's: the phase "sample" and
    :func:`run` both call this. Returns ``(best, worst, total)``: the index of the fittest (the
    first of equals), the lowest fitness and the sum of the fitnesses.
    """
    best = 0
    worst = optimum
    total = 0
    for q in range(P):
        fq = sample_scored(
            M,
            box_cells,
            box_free,
            box_nfree,
            box_digits,
            cell_row,
            cell_col,
            row0,
            col0,
            pop[q],
            order,
            digits,
            rows,
            cols,
            cum,
            rng,
        )
        fitness[q] = fq
        total += fq
        if fq > fitness[best]:
            best = q
        if fq < worst:
            worst = fq
    return best, worst, total


@jit
def _draw(M, b, pos, digits, k, rng):
    """:func:`~sudoku_lab._kernels.reseda.draw_digit` on ``M[b, pos]`` over the digits ``digits[:k]``.

    One ``rng.random()``: an index ``j < k`` with probability proportional to
    ``M[b, pos, digits[j]]`` (``digits`` increasing, 0-based); with no mass
    on those digits, the same draw picks one of them uniformly. The sums are
    those of ``draw_digit`` (same additions in the same order), so the pick
    is the same bit for bit; a lone digit is returned without summing.
    """
    r = rng.random()
    if k == 1:
        return 0
    row = M[b, pos]
    total = 0.0
    for t in range(k):
        total += row[np.uint64(digits[t])]
    if not total > 0.0:
        return int(r * k)
    u = r * total
    acc = 0.0
    last = 0
    for t in range(k):
        v = row[np.uint64(digits[t])]
        if v > 0.0:
            acc += v
            last = t
            if u < acc:
                return t
    return last


@jit
def unused_digits(box_avail, N):
    """The digits of each box's mask, 0-based and increasing: int64 array of shape (N, N), padded with -1."""
    out = np.full((N, N), -1, dtype=np.int64)
    for b in range(N):
        k = 0
        for d in range(N):
            if (box_avail[b] >> d) & 1:
                out[b, k] = d
                k += 1
    return out


@jit
def row_col_fitness(grid, N, cols):
    """Distinct digits summed over the rows and columns of a row-major grid: ``2*N*N`` when solved.

    The same number as :func:`~sudoku_lab._kernels.scores.distinct_count` on
    the geometry's units, in one pass over the cells (a bit mask per row and
    per column; ``cols``, int64 of shape (>= N,), is scratch).
    """
    for c in range(N):
        cols[c] = 0
    total = 0
    for r in range(N):
        seen = np.int64(0)
        start = r * N
        for c in range(N):
            d = grid[np.uint64(start + c)]
            if d > 0:
                bit = np.int64(1) << (d - 1)
                seen |= bit
                cols[np.uint64(c)] |= bit
        total += popcount(seen)
    for c in range(N):
        total += popcount(cols[c])
    return total


@jit
def select(fitness, P, G, good, bad):
    """The ``G`` fittest and the ``G`` least fit of the first ``P`` individuals.

    Individuals are ranked by fitness, highest first, ties by index (lowest
    first); ``good`` gets the first ``G`` of that ranking, best first, and
    ``bad`` the last ``G``, worst first. No random draws: individuals are
    independent, so the first of equals is as random as any.
    """
    top = 0
    for q in range(P):
        if fitness[q] > top:
            top = fitness[q]
    keys = np.empty(P, dtype=np.int64)
    for q in range(P):
        keys[q] = (top - fitness[q]) * P + q
    order = np.argsort(keys)
    for g in range(G):
        good[g] = order[g]
        bad[g] = order[P - 1 - g]


@jit
def update_model(
    M, allowed, box_cells, box_free, box_nfree, pop, good, bad, G, k, upper, mode, delta, bound=BOUND_RENORMALISE
):
    """NB-COIN's reward (eq. 4) and punishment (eq. 5) of every free position, then clip and renormalise.

    :func:`reward_model` then :func:`punish_model` (what :func:`run` calls, one generation's update).

    Parameters
    ----------
    M : ndarray of float64, shape (N, N, N)
        Updated in place.
    allowed : ndarray of bool, shape (N, N, N)
        Digits the initial model allows (False: stays 0 for ever).
    box_cells, box_free, box_nfree : see :func:`sample_scored`
    pop : ndarray of int8, shape (>= P, C)
    good, bad : ndarray of int64, shape (>= G,)
        Indices of the rewarded and punished individuals.
    G : int
        Size of each set.
    k : float
        Step size (learning rate).
    upper : float
        Upper bound of an entry before renormalisation.
    mode : int
        UPDATE_FREQUENCIES (counts / G) or UPDATE_COUNTS.
    delta : ndarray of float64, shape (N, N, N)
        The change of ``M`` by this update (written; 0 on given positions).
    bound : int
        BOUND_RENORMALISE (docs/algorithms.md) or BOUND_CAP (:func:`cap_row` after renormalising).

    Notes
    -----
    With L = N, for a free position i of a box and each digit j, ``f`` the
    good (``h`` the bad) set's frequency of j at i and ``F``, ``H`` their sums
    over the digits: ``m = M + (k/L) f - (k/L^2) F``, then
    ``m = m - (k/L) h + (k/L^2) H``; then ``m`` is clipped to ``[0, upper]``,
    set to 0 where the initial model forbids the digit, and the row is
    divided by its sum (a row left with no mass becomes uniform over its
    allowed digits).
    """
    prior = np.empty_like(M)
    reward_model(M, allowed, box_cells, box_free, box_nfree, pop, good, G, k, mode, prior)
    punish_model(M, allowed, box_cells, box_free, box_nfree, pop, bad, G, k, upper, mode, prior, delta, bound)


@jit
def _set_counts(pop, members, G, cell, scale, f):
    """``f[d]``: how many of ``pop[members[:G]]`` hold digit d + 1 at ``cell``, times ``scale``; returns their sum."""
    N = f.shape[0]
    for d in range(N):
        f[d] = 0.0
    for g in range(G):  # unsigned indices: no wrap-around checks
        f[np.uint64(pop[np.uint64(members[g]), cell] - 1)] += 1.0
    F = 0.0
    for d in range(N):
        f[d] *= scale
        F += f[d]
    return F


@jit
def reward_model(M, allowed, box_cells, box_free, box_nfree, pop, good, G, k, mode, prior):
    """The reward (eq. 4) of every free position: ``M += (k/L) f - (k/L^2) F`` on its allowed digits.

    ``f`` is the good set's count (``mode`` UPDATE_COUNTS) or frequency (UPDATE_FREQUENCIES) of each
    digit at the position, ``F`` its sum, L = N. Nothing is clipped or renormalised yet
    (:func:`punish_model` does): in between, a row may leave [0, 1]. ``prior`` (float64 (N, N, N)) gets
    each free position's row of ``M`` before the reward (the update's ``delta`` is taken against it).
    No random draws.
    """
    N = M.shape[0]
    L = float(N)
    a = k / L
    c = k / (L * L)
    scale = 1.0 / G if mode == UPDATE_FREQUENCIES else 1.0
    f = np.empty(N)
    for b in range(N):
        for i in range(box_nfree[b]):
            pos = box_free[b, i]
            F = _set_counts(pop, good, G, box_cells[b, pos], scale, f)
            for d in range(N):
                prior[b, pos, d] = M[b, pos, d]
                if allowed[b, pos, d]:
                    M[b, pos, d] = M[b, pos, d] + a * f[d] - c * F


@jit
def punish_model(M, allowed, box_cells, box_free, box_nfree, pop, bad, G, k, upper, mode, prior, delta, bound):
    """The punishment (eq. 5) of every free position, then clip to [0, upper] and renormalise.

    ``m = M - (k/L) h + (k/L^2) H`` on the allowed digits (``h`` the bad set's count or frequency of
    each digit at the position, ``H`` its sum), clipped to ``[0, upper]``, 0 on forbidden digits, the
    row divided by its sum (a row left with no mass becomes uniform over its allowed digits), then
    :func:`cap_row` with ``bound`` BOUND_CAP. ``delta`` gets the change from ``prior`` (the model
    before :func:`reward_model`), 0 on given positions. No random draws.
    """
    N = M.shape[0]
    L = float(N)
    a = k / L
    c = k / (L * L)
    scale = 1.0 / G if mode == UPDATE_FREQUENCIES else 1.0
    h = np.empty(N)
    row = np.empty(N)
    delta[:] = 0.0
    for b in range(N):
        for i in range(box_nfree[b]):
            pos = box_free[b, i]
            H = _set_counts(pop, bad, G, box_cells[b, pos], scale, h)
            total = 0.0
            for d in range(N):
                if allowed[b, pos, d]:
                    v = M[b, pos, d] - a * h[d] + c * H
                    if v < 0.0:
                        v = 0.0
                    elif v > upper:
                        v = upper
                else:
                    v = 0.0
                row[d] = v
                total += v
            if total > 0.0:
                for d in range(N):
                    row[d] = row[d] / total
            else:
                n_ok = 0
                for d in range(N):
                    if allowed[b, pos, d]:
                        n_ok += 1
                for d in range(N):
                    row[d] = 1.0 / n_ok if allowed[b, pos, d] else 0.0
            if bound == BOUND_CAP:
                cap_row(row, allowed[b, pos], upper)
            for d in range(N):
                delta[b, pos, d] = row[d] - prior[b, pos, d]
                M[b, pos, d] = row[d]


@jit
def cap_row(row, ok, upper):
    """Cap a row summing to 1 at ``upper``: the excess goes evenly to the allowed digits below ``upper``.

    Repeated until no entry exceeds ``upper`` (water filling, at most N rounds);
    a row with a single allowed digit keeps its 1. No random draws.
    """
    N = row.shape[0]
    for _ in range(N):
        excess = 0.0
        below = 0
        for d in range(N):
            if ok[d]:
                if row[d] > upper:
                    excess += row[d] - upper
                    row[d] = upper
                elif row[d] < upper:
                    below += 1
        if excess <= 0.0 or below == 0:
            if below == 0 and excess > 0.0:  # every allowed digit at the bound: give the excess back evenly
                n_ok = 0
                for d in range(N):
                    if ok[d]:
                        n_ok += 1
                for d in range(N):
                    if ok[d]:
                        row[d] += excess / n_ok
            return
        share = excess / below
        for d in range(N):
            if ok[d] and row[d] < upper:
                row[d] += share


@jit
def sampling_tables(base, box_avail, N):
    """What :func:`sample_scored` reads besides the model, from the givens: computed once per :func:`run` call.

    Returns
    -------
    box_digits : ndarray of int64, shape (N, N)
        :func:`unused_digits` of ``box_avail``.
    cell_row, cell_col : ndarray of int64, shape (C,)
        Row and column of each cell.
    row0, col0 : ndarray of int64, shape (N,)
        Bit masks (bit ``d - 1`` for digit ``d``) of the givens of each row and column.
    """
    C = base.shape[0]
    box_digits = unused_digits(box_avail, N)
    cell_row = np.empty(C, dtype=np.int64)
    cell_col = np.empty(C, dtype=np.int64)
    row0 = np.zeros(N, dtype=np.int64)
    col0 = np.zeros(N, dtype=np.int64)
    for c in range(C):
        r = c // N
        cell_row[c] = r
        cell_col[c] = c - r * N
        if base[c] > 0:
            bit = np.int64(1) << (base[c] - 1)
            row0[r] |= bit
            col0[c - r * N] |= bit
    return box_digits, cell_row, cell_col, row0, col0


@jit
def givens_into(pop, base, P):
    """The givens into the first ``P`` rows of ``pop``: :func:`sample_scored` writes only the free cells."""
    C = base.shape[0]
    for q in range(P):
        for c in range(C):
            pop[q, c] = base[c]


@jit
def run(state, iparams, fparams, rng, n_gen, trace):
    """Advance NB-COIN by up to ``n_gen`` generations.

    Parameters
    ----------
    state : NBCoinState
        Updated in place: ``M`` (see :func:`update_model`), ``pop`` (the generation's individuals, at
        least P rows: the givens written into the first P rows once per call, then only the free cells at
        each generation), ``fitness`` (their distinct-count fitness), ``good`` and ``bad`` (the selected
        sets of the latest update, at least G entries), ``best_grid`` (best individual since reset: written
        at the first generation, then when improved, strictly higher fitness), ``delta`` (the model's
        change by the latest update) and ``counters`` (see the ``C_*`` constants). Read: ``allowed``,
        ``base`` and the box tables (see :func:`sample_scored` and :func:`update_model`). Fitness comes
        from the row and column bit masks :func:`sample_scored` keeps on the row-major grid (the number
        :func:`row_col_fitness` gives).
    iparams : ndarray of int64
        Population P, selected G per set, generation budget (0 = none), update mode, bound mode.
    fparams : ndarray of float64
        Step size k, upper bound.
    rng : numpy.random.Generator
    n_gen : int
    trace : ndarray of float64, shape (>= n_gen, TRACE_WIDTH)
        One row per generation done (written).

    Returns
    -------
    generations : int
        Generations done (rows of ``trace`` written).
    status : int
        RUNNING, SOLVED or BUDGET.

    Notes
    -----
    One generation: sample P individuals in order (each with its own draws,
    :func:`sample_scored`) and score them; the first individual with the
    highest fitness is the generation's best. If it has fitness ``2*N*N`` the
    run succeeds (no update). Otherwise rank (:func:`select`, no draws), reward
    (:func:`reward_model`) and punish (:func:`punish_model`: the clip and the
    renormalisation too), and stop if the budget is spent. These are the
    solver's phases (``sudoku_lab/solvers/_nbcoin_phases.py`` calls the same
    functions in this order).
    """
    M = state.M
    allowed = state.allowed
    box_cells = state.box_cells
    box_free = state.box_free
    box_nfree = state.box_nfree
    box_avail = state.box_avail
    base = state.base
    pop = state.pop
    fitness = state.fitness
    good = state.good
    bad = state.bad
    best_grid = state.best_grid
    delta = state.delta
    counters = state.counters
    N = M.shape[0]
    P = iparams[P_POPULATION]
    G = iparams[P_SELECTED]
    budget = iparams[P_BUDGET]
    mode = iparams[P_UPDATE]
    bound = iparams[P_BOUND]
    k = fparams[P_K]
    upper = fparams[P_UPPER]
    optimum = 2 * N * N
    digits = np.empty(N, dtype=np.uint64)
    uorder = np.empty(N, dtype=np.uint64)
    rows = np.empty(N, dtype=np.int64)
    cum = np.empty(N, dtype=np.float64)
    cols = np.empty(N, dtype=np.int64)
    prior = np.empty_like(M)  # reward_model's copy of the rows it moves, for punish_model's delta
    box_digits, cell_row, cell_col, row0, col0 = sampling_tables(base, box_avail, N)
    givens_into(pop, base, P)
    for s in range(n_gen):
        best, worst, total = sample_generation(
            M,
            box_cells,
            box_free,
            box_nfree,
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
        counters[C_ITERATION] += 1
        counters[C_EVALUATIONS] += P
        counters[C_POP] = P
        counters[C_GEN_BEST] = fitness[best]
        if fitness[best] > counters[C_BEST_FITNESS] or counters[C_ITERATION] == 1:
            best_grid[:] = pop[best]
            counters[C_BEST_FITNESS] = fitness[best]
        trace[s, 0] = counters[C_ITERATION]
        trace[s, 1] = optimum - fitness[best]
        trace[s, 2] = optimum - counters[C_BEST_FITNESS]
        trace[s, 3] = fitness[best]
        trace[s, 4] = total / P
        trace[s, 5] = worst
        if fitness[best] == optimum:
            counters[C_N_SELECTED] = 0
            delta[:] = 0.0
            return s + 1, SOLVED
        select(fitness, P, G, good, bad)
        counters[C_N_SELECTED] = G
        reward_model(M, allowed, box_cells, box_free, box_nfree, pop, good, G, k, mode, prior)
        punish_model(M, allowed, box_cells, box_free, box_nfree, pop, bad, G, k, upper, mode, prior, delta, bound)
        if budget > 0 and counters[C_ITERATION] >= budget:
            return s + 1, BUDGET
    return n_gen, RUNNING
