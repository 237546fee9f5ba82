"""Hill-climbing kernels: initial state, delta evaluation of in-box swaps, steepest ascent, plateau queue.

Paper: Jones, Roach and Perkins, "Construction of heuristics for a
search-based approach to solving Sudoku" (2008; citation ``jones2008`` in
:mod:`sudoku_lab.citations`), sections 4.2-4.5; the choices the paper leaves
open are fixed in docs/algorithms.md, "Hill climbing".

The state is a grid whose every box is a permutation of 1..N. The objective
(maximised) is ``f = w1*f1 + w2*f2``: ``f1`` is the distinct-count fitness over
rows and columns, ``f2`` the number of (free cell, given) pairs holding the same
digit in one row or column. Row and column digit counts are kept up to date,
so a swap is scored in O(1) (:func:`swap_delta`), never by re-scoring the grid.

Every random draw is ``rng.random()`` (a uniform double), taken in a fixed
order documented on each function, so that the pure-Python twins in
``tests/naive_hill_climb.py`` replay a kernel draw for draw from the same seed.
"""

from __future__ import annotations

import numpy as np

from .common import jit, shuffle
from .hill_climb_layout import (  # noqa: F401
    C_BEST_COST,
    C_COST,
    C_F1,
    C_F2,
    C_INIT_F1,
    C_INIT_F2,
    C_JUMPS,
    C_QLEN,
    C_QSEQ,
    C_RUN,
    C_RUN_BEST,
    C_RUN_JUMPS,
    C_RUN_START,
    C_STUCK_COUNT,
    C_STUCK_F1,
    C_STUCK_F2,
    C_SWAP_A,
    C_SWAP_B,
    E_INIT_F1,
    E_INIT_F2,
    E_ITERATION,
    E_KIND,
    E_QUEUE,
    E_REASON,
    E_RUN_BEST,
    E_RUN_JUMPS,
    EV_JUMP,
    EV_RESTART,
    EVENT_WIDTH,
    N_COUNTERS,
    N_IPARAMS,
    P_BUDGET,
    P_GREEDY,
    P_PLATEAU,
    P_POST_SWAP,
    P_RANDOM_ORDER,
    P_RANDOM_TIES,
    P_W1,
    P_W2,
    TRACE_WIDTH,
    WHY_EMPTY,
    WHY_PLATEAU,
    HillClimbState,
)
from .status import BUDGET, C_EVALUATIONS, C_ITERATION, RUNNING, SOLVED  # noqa: F401


@jit
def given_clash(GR, GC, N, cell, d):
    """Givens holding digit ``d`` in ``cell``'s row plus those in its column (0, 1 or 2)."""
    return GR[cell // N, d - 1] + GC[cell % N, d - 1]


@jit
def initial_state(
    grid, base, box_free, box_nfree, box_missing, GR, GC, greedy, post_swap, random_order, digits, order, rng
):
    """Fill the free cells so that every box is a permutation (paper 4.4, Figure 3).

    Parameters
    ----------
    grid : ndarray of int8, shape (C,)
        Written: the givens and the new initial state.
    base : ndarray of int8, shape (C,)
        The givens (0 where free).
    box_free : ndarray of int32, shape (N, N)
        Free cells of each box in reading order, padded with -1.
    box_nfree : ndarray of int32, shape (N,)
    box_missing : ndarray of int32, shape (N, N)
        Digits the givens of each box leave missing, increasing, padded with 0.
    GR, GC : ndarray of int32, shape (N, N)
        ``GR[r, d-1]``: 1 if a given of row ``r`` holds ``d``; ``GC`` the same per column.
    greedy, post_swap, random_order : bool
        The paper's greedy placement, its post-swapping, and whether the
        missing digits of each box are shuffled first.
    digits, order : ndarray of int64, shape (N,)
        Scratch.
    rng : numpy.random.Generator

    Notes
    -----
    Draw order: with ``random_order``, for each box in turn a shuffle of its
    missing digits (:func:`shuffle`). Placement: box by box, each free cell in
    reading order takes the first remaining digit (in that order) that clashes
    with no given of its row or column, or, with none, the first remaining
    digit; without ``greedy``, the digits in that order. Post-swapping, box by
    box and cell by cell in reading order: a free cell whose digit clashes
    with a given shuffles the other free cells of its box (:func:`shuffle` of
    their positions in reading order) and swaps with the first one for which
    neither cell's new digit clashes with a given; none: the clash stays.
    """
    N = box_free.shape[0]
    grid[:] = base
    for b in range(N):
        m = box_nfree[b]
        for i in range(m):
            digits[i] = box_missing[b, i]
        if random_order:
            shuffle(digits, m, rng)
        for i in range(m):
            c = box_free[b, i]
            pick = -1
            if greedy:
                for k in range(m):
                    if digits[k] > 0 and given_clash(GR, GC, N, c, digits[k]) == 0:
                        pick = k
                        break
            if pick < 0:
                for k in range(m):
                    if digits[k] > 0:
                        pick = k
                        break
            grid[c] = digits[pick]
            digits[pick] = 0
    if not post_swap:
        return
    for b in range(N):
        m = box_nfree[b]
        for i in range(m):
            c = box_free[b, i]
            if given_clash(GR, GC, N, c, grid[c]) == 0:
                continue
            k = 0
            for j in range(m):
                if j != i:
                    order[k] = j
                    k += 1
            shuffle(order, k, rng)
            for t in range(k):
                c2 = box_free[b, order[t]]
                d, d2 = grid[c], grid[c2]
                if given_clash(GR, GC, N, c, d2) == 0 and given_clash(GR, GC, N, c2, d) == 0:
                    grid[c] = d2
                    grid[c2] = d
                    break


@jit
def full_scores(grid, base, row_cnt, col_cnt, GR, GC):
    """Recount digits per row and column (written) and return ``(f1, f2)`` of ``grid`` from scratch."""
    N = row_cnt.shape[0]
    row_cnt[:, :] = 0
    col_cnt[:, :] = 0
    f2 = 0
    for cell in range(N * N):
        d = grid[cell]
        r = cell // N
        c = cell % N
        row_cnt[r, d - 1] += 1
        col_cnt[c, d - 1] += 1
        if base[cell] == 0:
            f2 += GR[r, d - 1] + GC[c, d - 1]
    f1 = 0
    for u in range(N):
        for d in range(N):
            if row_cnt[u, d] > 0:
                f1 += 1
            if col_cnt[u, d] > 0:
                f1 += 1
    return f1, f2


@jit
def swap_delta(grid, a, b, row_cnt, col_cnt, GR, GC):
    """``(df1, df2)`` of swapping the digits of free cells ``a`` and ``b`` (same box), in O(1).

    A row (column) changes only when the two cells lie in different rows
    (columns): one loses its digit and gains the other's. It loses a distinct
    digit when that digit appeared once, gains one when the new digit was absent.
    """
    N = row_cnt.shape[0]
    da = grid[a] - 1
    db = grid[b] - 1
    ra, ca = a // N, a % N
    rb, cb = b // N, b % N
    df1 = 0
    if ra != rb:
        df1 += (row_cnt[ra, db] == 0) - (row_cnt[ra, da] == 1) + (row_cnt[rb, da] == 0) - (row_cnt[rb, db] == 1)
    if ca != cb:
        df1 += (col_cnt[ca, db] == 0) - (col_cnt[ca, da] == 1) + (col_cnt[cb, da] == 0) - (col_cnt[cb, db] == 1)
    df2 = GR[ra, db] + GC[ca, db] - GR[ra, da] - GC[ca, da] + GR[rb, da] + GC[cb, da] - GR[rb, db] - GC[cb, db]
    return df1, df2


@jit
def apply_swap(grid, a, b, row_cnt, col_cnt):
    """Swap the digits of cells ``a`` and ``b`` and update the row and column counts."""
    N = row_cnt.shape[0]
    da = grid[a]
    db = grid[b]
    ra, ca = a // N, a % N
    rb, cb = b // N, b % N
    row_cnt[ra, da - 1] -= 1
    row_cnt[ra, db - 1] += 1
    row_cnt[rb, db - 1] -= 1
    row_cnt[rb, da - 1] += 1
    col_cnt[ca, da - 1] -= 1
    col_cnt[ca, db - 1] += 1
    col_cnt[cb, db - 1] -= 1
    col_cnt[cb, da - 1] += 1
    grid[a] = db
    grid[b] = da


@jit
def best_swap(grid, box_free, box_nfree, row_cnt, col_cnt, GR, GC, w1, w2, random_ties, rng):
    """Steepest ascent: score every swap of two free cells of one box, return the best.

    Returns
    -------
    a, b : int
        The best swap's cells (-1 when no box has two free cells).
    delta : float
        Its change of f.
    df1, df2 : int
        Its changes of f1 and f2.
    evaluated : int
        Swaps scored (the sum over boxes of m(m-1)/2).

    Notes
    -----
    Swaps are visited box by box, pairs (i, j), i < j, in reading order. Ties
    of the best delta keep the first unless ``random_ties``: then the k-th
    tie met replaces the kept one when one ``rng.random()`` times k is below 1
    (a uniform choice among the ties; one draw per tie after the first).
    """
    N = box_free.shape[0]
    best_a = -1
    best_b = -1
    best = 0.0
    bf1 = 0
    bf2 = 0
    ties = 0
    evaluated = 0
    for bx in range(N):
        m = box_nfree[bx]
        for i in range(m - 1):
            a = box_free[bx, i]
            for j in range(i + 1, m):
                b = box_free[bx, j]
                df1, df2 = swap_delta(grid, a, b, row_cnt, col_cnt, GR, GC)
                delta = w1 * df1 + w2 * df2
                evaluated += 1
                if best_a < 0 or delta > best:
                    best_a, best_b, best, bf1, bf2 = a, b, delta, df1, df2
                    ties = 1
                elif delta == best and random_ties:
                    ties += 1
                    if rng.random() * ties < 1.0:
                        best_a, best_b, bf1, bf2 = a, b, df1, df2
    return best_a, best_b, best, bf1, bf2, evaluated


@jit
def queue_push(q_grid, q_f1, q_f2, q_seq, counters, grid, f1, f2, w1, w2):
    """Queue a state; when full, it replaces the oldest of the lowest-scored states if it scores at least as well."""
    cap = q_grid.shape[0]
    if cap == 0:
        return
    n = counters[C_QLEN]
    score = w1 * f1 + w2 * f2
    if n < cap:
        slot = n
        counters[C_QLEN] = n + 1
    else:
        slot = 0
        worst = w1 * q_f1[0] + w2 * q_f2[0]
        for k in range(1, n):
            s = w1 * q_f1[k] + w2 * q_f2[k]
            if s < worst or (s == worst and q_seq[k] < q_seq[slot]):
                worst = s
                slot = k
        if score < worst:
            return
    q_grid[slot, :] = grid
    q_f1[slot] = f1
    q_f2[slot] = f2
    q_seq[slot] = counters[C_QSEQ]
    counters[C_QSEQ] += 1


@jit
def queue_pop(q_grid, q_f1, q_f2, q_seq, counters, grid, w1, w2):
    """Move the best queued state (highest score, the newest among equals) into ``grid``; False if empty."""
    n = counters[C_QLEN]
    if n == 0:
        return False
    best = 0
    top = w1 * q_f1[0] + w2 * q_f2[0]
    for k in range(1, n):
        s = w1 * q_f1[k] + w2 * q_f2[k]
        if s > top or (s == top and q_seq[k] > q_seq[best]):
            top = s
            best = k
    grid[:] = q_grid[best]
    last = n - 1
    if best != last:
        q_grid[best, :] = q_grid[last]
        q_f1[best] = q_f1[last]
        q_f2[best] = q_f2[last]
        q_seq[best] = q_seq[last]
    counters[C_QLEN] = last
    return True


@jit
def push_sideways(
    grid, box_free, box_nfree, row_cnt, col_cnt, GR, GC, w1, w2, f1, f2, q_grid, q_f1, q_f2, q_seq, counters
):
    """Queue every successor of a stuck state whose score equals its own (the plateau around it).

    Visited in :func:`best_swap`'s order; each is queued with :func:`queue_push`.
    """
    N = box_free.shape[0]
    for bx in range(N):
        m = box_nfree[bx]
        for i in range(m - 1):
            a = box_free[bx, i]
            for j in range(i + 1, m):
                b = box_free[bx, j]
                df1, df2 = swap_delta(grid, a, b, row_cnt, col_cnt, GR, GC)
                if w1 * df1 + w2 * df2 == 0.0:
                    da = grid[a]
                    grid[a] = grid[b]
                    grid[b] = da
                    queue_push(q_grid, q_f1, q_f2, q_seq, counters, grid, f1 + df1, f2 + df2, w1, w2)
                    grid[b] = grid[a]
                    grid[a] = da


@jit
def set_state(grid, base, row_cnt, col_cnt, GR, GC, best_grid, counters):
    """Score ``grid`` from scratch (:func:`full_scores`): f1, f2 and cost into ``counters``, the run's and the best."""
    f1, f2 = full_scores(grid, base, row_cnt, col_cnt, GR, GC)
    N = row_cnt.shape[0]
    counters[C_F1] = f1
    counters[C_F2] = f2
    cost = 2 * N * N - f1  # boxes are permutations: only rows and columns miss digits
    counters[C_COST] = cost
    if cost < counters[C_RUN_BEST]:
        counters[C_RUN_BEST] = cost
    if cost < counters[C_BEST_COST]:
        counters[C_BEST_COST] = cost
        best_grid[:] = grid


@jit
def start(state, iparams, rng):
    """The first run of a search: :func:`start_run` on a :class:`HillClimbState` (the solver's reset).

    Parameters
    ----------
    state : HillClimbState
        Updated in place: ``grid``, ``row_cnt``, ``col_cnt``, ``best_grid`` and ``counters``.
    iparams : ndarray of int64
        See :func:`run` (greedy, post_swap and random_order are read).
    rng : numpy.random.Generator
    """
    N = state.box_free.shape[0]
    start_run(state, iparams, np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64), rng)


@jit
def start_run(state, iparams, digits, order, rng):
    """A new initial state (:func:`initial_state`), its scores, and the run counters reset.

    ``digits`` and ``order`` (int64 (N,)) are :func:`initial_state`'s scratch.
    """
    grid = state.grid
    base = state.base
    GR = state.GR
    GC = state.GC
    counters = state.counters
    initial_state(
        grid,
        base,
        state.box_free,
        state.box_nfree,
        state.box_missing,
        GR,
        GC,
        iparams[P_GREEDY] != 0,
        iparams[P_POST_SWAP] != 0,
        iparams[P_RANDOM_ORDER] != 0,
        digits,
        order,
        rng,
    )
    counters[C_RUN_START] = counters[C_ITERATION]
    counters[C_RUN_JUMPS] = 0
    counters[C_RUN_BEST] = 1 << 40
    counters[C_STUCK_COUNT] = 0
    counters[C_QLEN] = 0
    counters[C_SWAP_A] = -1
    counters[C_SWAP_B] = -1
    set_state(grid, base, state.row_cnt, state.col_cnt, GR, GC, state.best_grid, counters)
    counters[C_INIT_F1] = counters[C_F1]
    counters[C_INIT_F2] = counters[C_F2]
    counters[C_STUCK_F1] = counters[C_F1]
    counters[C_STUCK_F2] = counters[C_F2]


@jit
def run(state, iparams, fparams, rng, n_moves, trace, events):
    """Advance the search by up to ``n_moves`` moves.

    Parameters
    ----------
    state : HillClimbState
        Updated in place: ``grid`` (the current state), ``row_cnt`` and ``col_cnt`` (its digit counts per
        row and column, kept up to date), ``best_grid`` (the lowest-cost state since reset, written when
        improved), the queue ``q_grid``, ``q_f1``, ``q_f2``, ``q_seq`` (see :func:`queue_push`) and
        ``counters`` (see the ``C_*`` constants); the givens and box tables are read
        (see :func:`initial_state`).
    iparams : ndarray of int64
        greedy, post_swap, random_order, plateau, budget, random_ties.
    fparams : ndarray of float64
        w1, w2.
    rng : numpy.random.Generator
    n_moves : int
    trace : ndarray of float64, shape (>= n_moves, TRACE_WIDTH)
        One row per move (written).
    events : ndarray of int64, shape (>= n_moves, EVENT_WIDTH)
        One row per plateau jump or restart (written), see the ``E_*`` columns.

    Returns
    -------
    moves : int
        Moves done (rows of ``trace`` written).
    n_events : int
        Rows of ``events`` written.
    status : int
        RUNNING, SOLVED or BUDGET.

    Notes
    -----
    One move (paper 4.3-4.5): score every in-box swap (:func:`best_swap`).
    A strictly improving best swap is applied (an ascent). Otherwise the state
    is stuck. Stuck states are counted since the run's best score last rose
    (an ascent above it resets the count): at ``plateau`` of them, all at or
    below that score and none with a better successor, the queue is cleared
    and the search restarts from a new initial state (:func:`start_run`).
    Below that, the state's equal-score successors are queued
    (:func:`push_sideways`) and the search continues from the best queued
    state (a plateau jump), or restarts when the queue is empty. These are the
    solver's phases, evaluate swaps, take the best and plateau check
    (``sudoku_lab/solvers/_hill_climb_phases.py`` calls the same functions in
    this order).
    """
    grid = state.grid
    base = state.base
    box_free = state.box_free
    box_nfree = state.box_nfree
    GR = state.GR
    GC = state.GC
    row_cnt = state.row_cnt
    col_cnt = state.col_cnt
    best_grid = state.best_grid
    q_grid = state.q_grid
    q_f1 = state.q_f1
    q_f2 = state.q_f2
    q_seq = state.q_seq
    counters = state.counters
    N = row_cnt.shape[0]
    digits = np.zeros(N, dtype=np.int64)  # start_run's scratch
    order = np.zeros(N, dtype=np.int64)
    w1 = fparams[P_W1]
    w2 = fparams[P_W2]
    plateau = iparams[P_PLATEAU]
    budget = iparams[P_BUDGET]
    random_ties = iparams[P_RANDOM_TIES] != 0
    n_ev = 0
    for s in range(n_moves):
        a, b, delta, df1, df2, evaluated = best_swap(
            grid, box_free, box_nfree, row_cnt, col_cnt, GR, GC, w1, w2, random_ties, rng
        )
        counters[C_ITERATION] += 1
        counters[C_EVALUATIONS] += evaluated
        if a >= 0 and delta > 0.0:
            apply_swap(grid, a, b, row_cnt, col_cnt)
            counters[C_F1] += df1
            counters[C_F2] += df2
            cost = 2 * N * N - counters[C_F1]
            counters[C_COST] = cost
            if cost < counters[C_RUN_BEST]:
                counters[C_RUN_BEST] = cost
            if cost < counters[C_BEST_COST]:
                counters[C_BEST_COST] = cost
                best_grid[:] = grid
            counters[C_SWAP_A] = a
            counters[C_SWAP_B] = b
            if w1 * counters[C_F1] + w2 * counters[C_F2] > w1 * counters[C_STUCK_F1] + w2 * counters[C_STUCK_F2]:
                counters[C_STUCK_F1] = counters[C_F1]  # a new best score of the run: the plateau count restarts
                counters[C_STUCK_F2] = counters[C_F2]
                counters[C_STUCK_COUNT] = 0
        else:
            f1 = counters[C_F1]
            f2 = counters[C_F2]
            counters[C_STUCK_COUNT] += 1
            jumped = False
            reason = WHY_PLATEAU
            if counters[C_STUCK_COUNT] < plateau:
                if a >= 0:
                    push_sideways(
                        grid,
                        box_free,
                        box_nfree,
                        row_cnt,
                        col_cnt,
                        GR,
                        GC,
                        w1,
                        w2,
                        f1,
                        f2,
                        q_grid,
                        q_f1,
                        q_f2,
                        q_seq,
                        counters,
                    )
                jumped = queue_pop(q_grid, q_f1, q_f2, q_seq, counters, grid, w1, w2)
                reason = WHY_EMPTY
            row = events[n_ev]
            n_ev += 1
            row[E_ITERATION] = counters[C_ITERATION]
            row[E_RUN_JUMPS] = counters[C_RUN_JUMPS] + (1 if jumped else 0)
            row[E_RUN_BEST] = counters[C_RUN_BEST]
            if jumped:
                counters[C_RUN_JUMPS] += 1
                counters[C_JUMPS] += 1
                counters[C_SWAP_A] = -1
                counters[C_SWAP_B] = -1
                set_state(grid, base, row_cnt, col_cnt, GR, GC, best_grid, counters)
                row[E_KIND] = EV_JUMP
                row[E_REASON] = 0
            else:
                counters[C_RUN] += 1
                start_run(state, iparams, digits, order, rng)
                row[E_KIND] = EV_RESTART
                row[E_REASON] = reason
            row[E_QUEUE] = counters[C_QLEN]
            row[E_INIT_F1] = counters[C_INIT_F1]
            row[E_INIT_F2] = counters[C_INIT_F2]
        tr = trace[s]
        tr[0] = counters[C_ITERATION]
        tr[1] = counters[C_COST]
        tr[2] = counters[C_BEST_COST]
        tr[4] = counters[C_F1]
        tr[5] = counters[C_F2]
        tr[3] = w1 * counters[C_F1] + w2 * counters[C_F2]
        tr[6] = counters[C_QLEN]
        if counters[C_COST] == 0:
            return s + 1, n_ev, SOLVED
        if budget > 0 and counters[C_ITERATION] >= budget:
            return s + 1, n_ev, BUDGET
    return n_moves, n_ev, RUNNING
