"""AC3-tabu search kernels: candidate generation by roulette wheels, AC3 after each assignment, a FIFO tabu list.

Paper: Soto, Crawford, Galleguillos, Monfroy and Paredes, "A hybrid AC3-tabu
search algorithm for solving Sudoku puzzles" (2013; citation ``soto2013`` in
:mod:`sudoku_lab.citations`), Algorithm 4. Its roulette and feature details did
not survive in our copy; our reading is fixed in docs/algorithms.md,
"AC3-tabu search", and every open choice is a parameter.

The state S is an array of domain masks (``uint32``, digit ``d`` as bit
``d - 1``), always at an AC3 fixed point and without an empty domain; a
singleton is an assigned cell, and the cost is the number of cells that are
not singletons. Propagation is the shared :func:`sudoku_lab._kernels.ac3.propagate`
(called with an empty log: the solver re-runs it with a log only when a
snapshot asks for the replay).

Every random draw is ``rng.random()`` (a uniform double), taken in the order
documented on :func:`make_candidate`, so that the pure-Python twin in
``tests/naive_ac3_tabu.py`` replays a kernel draw for draw from the same seed.
"""

from __future__ import annotations

import numpy as np

from . import ac3 as _ac3
from .ac3_tabu_layout import (  # noqa: F401
    C_AC3_HIDDEN,
    C_AC3_ITERATION,
    C_ASPIRATIONS,
    C_BEST_COST,
    C_COST,
    C_DEAD,
    C_MOVED,
    C_MOVES,
    C_N_CAND,
    C_TABU_LEN,
    C_WIPEOUTS,
    CAND_WIDTH,
    DEAD_END_DROP,
    DEAD_END_RESTART,
    EVENT_WIDTH,
    F_P_DROP,
    K_CELL,
    K_COST,
    K_DIGIT,
    K_NDROP,
    K_STATUS,
    K_TABU,
    N_COUNTERS,
    N_IPARAMS,
    P_BUDGET,
    P_CANDIDATES,
    P_DEAD_END,
    P_DROP,
    P_HIDDEN,
    P_TENURE,
    REASON_DIFFERENCE,
    REASON_WIPEOUT,
    ST_ASPIRATION,
    ST_NOT_BEST,
    ST_TABU,
    ST_TAKEN,
    ST_WIPED,
    ST_WORSE,
    T_CELL,
    T_DIGIT,
    T_ENTERED,
    T_REASON,
    TABU_WIDTH,
    TRACE_WIDTH,
    AC3TabuState,
)
from .common import jit, lowest_digit, popcount
from .status import BUDGET, C_EVALUATIONS, C_ITERATION, RUNNING, SOLVED  # noqa: F401


@jit
def is_single(m):
    """True for a mask with exactly one bit set."""
    m = np.int64(m)
    return m != 0 and (m & (m - 1)) == 0


@jit
def open_cells(dom):
    """Number of cells whose domain is not a singleton (the cost)."""
    k = 0
    for c in range(dom.shape[0]):
        if not is_single(dom[c]):
            k += 1
    return k


@jit
def nth_digit(mask, j):
    """The ``j``-th (0-based) digit of ``mask`` in increasing order."""
    m = np.int64(mask)
    for _ in range(j):
        m &= m - 1
    return lowest_digit(m & -m)


@jit
def tabu_remove(tabu, counters, mask, i):
    """Remove row ``i`` of the tabu list, shifting the newer rows up, and clear its feature from ``mask``."""
    length = counters[C_TABU_LEN]
    cell = tabu[i, T_CELL]
    bit = np.int64(1) << (tabu[i, T_DIGIT] - 1)
    mask[cell] = np.uint32(np.int64(mask[cell]) & ~bit)
    for r in range(i, length - 1):
        for j in range(TABU_WIDTH):
            tabu[r, j] = tabu[r + 1, j]
    counters[C_TABU_LEN] = length - 1


@jit
def tabu_trim(tabu, counters, mask, tenure):
    """Expire the oldest features while the list is longer than ``tenure``."""
    while counters[C_TABU_LEN] > tenure:
        tabu_remove(tabu, counters, mask, 0)


@jit
def tabu_push(tabu, counters, mask, cell, digit, iteration, reason, tenure):
    """Append feature ``(cell, digit)`` as the newest; one already listed moves to the end (its age restarts).

    The list then expires its oldest features down to ``tenure`` (``tabu`` needs
    ``tenure + 1`` rows).
    """
    bit = np.int64(1) << (digit - 1)
    if np.int64(mask[cell]) & bit:
        for i in range(counters[C_TABU_LEN]):
            if tabu[i, T_CELL] == cell and tabu[i, T_DIGIT] == digit:
                tabu_remove(tabu, counters, mask, i)
                break
    k = counters[C_TABU_LEN]
    tabu[k, T_CELL] = cell
    tabu[k, T_DIGIT] = digit
    tabu[k, T_ENTERED] = iteration
    tabu[k, T_REASON] = reason
    counters[C_TABU_LEN] = k + 1
    mask[cell] = np.uint32(np.int64(mask[cell]) | bit)
    tabu_trim(tabu, counters, mask, tenure)


@jit
def open_peers(dom, peers, c):
    """Peers of cell ``c`` whose domain is not a singleton (a drop's roulette weight)."""
    w = 0
    for j in range(peers.shape[1]):
        if not is_single(dom[peers[c, j]]):
            w += 1
    return w


@jit
def reset_open(dom, peers, full, single):
    """Give every non-singleton cell the digits no singleton peer holds (``single``: scratch bool (C,))."""
    C = dom.shape[0]
    for c in range(C):
        single[c] = is_single(dom[c])
    for c in range(C):
        if single[c]:
            continue
        m = full
        for j in range(peers.shape[1]):
            p = peers[c, j]
            if single[p]:
                m &= ~np.int64(dom[p])
        dom[c] = np.uint32(m)


@jit
def make_candidate(
    S,
    cand,
    pre,
    prefilled,
    tabu_mask,
    peers,
    units,
    hidden,
    p_drop,
    drop,
    dead,
    restart,
    drops,
    cum,
    single,
    log,
    pops,
    acnt,
    rng,
):
    """Build one candidate from the state ``S`` into ``cand``.

    Parameters
    ----------
    S : ndarray of uint32, shape (C,)
        The state (read only).
    cand, pre : ndarray of uint32, shape (C,)
        Output: the candidate's domains after propagation (or at the wipe-out),
        and before it (after the drop and the assignment).
    prefilled : ndarray of bool, shape (C,)
        Cells never dropped.
    tabu_mask : ndarray of uint32, shape (C,)
        Tabu digits of each cell.
    peers, units : geometry tables
    hidden : bool
        Hidden singles in the propagations.
    p_drop : float
        Probability of dropping (when ``dead`` is false).
    drop : int
        Cells to drop, one at a time.
    dead : bool
        The state is a dead end: always drop.
    restart : bool
        At a dead end, unassign every search-assigned cell (in cell order,
        without a draw) instead of ``drop`` of them.
    drops : ndarray of int64, shape (>= drop, 2)
        Output: the dropped ``(cell, digit)`` pairs in order (as many as fit).
    cum : ndarray of float64, shape (C,); single : ndarray of bool, shape (C,)
        Scratch.
    log, pops, acnt :
        Scratch for :func:`~sudoku_lab._kernels.ac3.propagate` (``log`` of shape (0, 4): no record).
    rng : numpy.random.Generator

    Returns
    -------
    cell, digit : int
        The assignment (digit 1..N).
    n_drop : int
        Cells dropped.
    ok : bool
        False on a wipe-out.
    tabu_choice : bool
        Every digit of the cell's domain was tabu.

    Notes
    -----
    Draws, in order: unless ``dead``, one ``rng.random()`` deciding the drop
    (``u < p_drop``); when dropping, one per dropped cell (the roulette over
    search-assigned singletons, weight = their non-singleton peers, uniform
    when every weight is 0; a drop stops early, without a draw, when no
    search-assigned cell is left); one for the cell (roulette with weight
    ``1/|D(x)|`` over the open cells in cell order) and one for the digit
    (uniform among the non-tabu digits of ``D(x)``, or all of them if every
    one is tabu). A roulette over running sums ``s_i`` picks the first ``i``
    with ``s_i > u * s_last``.
    """
    C = S.shape[0]
    N = units.shape[1]
    full = (np.int64(1) << N) - 1
    for c in range(C):
        cand[c] = S[c]
    do_drop = dead
    if not dead:
        do_drop = rng.random() < p_drop
    n_drop = 0
    if do_drop and dead and restart:
        for c in range(C):
            if prefilled[c] or not is_single(cand[c]):
                continue
            if n_drop < drops.shape[0]:
                drops[n_drop, 0] = c
                drops[n_drop, 1] = lowest_digit(cand[c])
            n_drop += 1
            cand[c] = np.uint32(full)
        if n_drop > 0:
            reset_open(cand, peers, full, single)
            _ac3.propagate(cand, peers, units, hidden, log, pops, acnt)
    elif do_drop:
        for _ in range(drop):
            total = 0
            count = 0
            for c in range(C):
                if prefilled[c] or not is_single(cand[c]):
                    continue
                total += open_peers(cand, peers, c)
                count += 1
            if count == 0:
                break
            u = rng.random()
            pick = -1
            if total == 0:
                target = np.int64(u * count)
                k = 0
                for c in range(C):
                    if prefilled[c] or not is_single(cand[c]):
                        continue
                    if k == target:
                        pick = c
                        break
                    k += 1
            else:
                target = u * total
                run = 0
                last = -1
                for c in range(C):
                    if prefilled[c] or not is_single(cand[c]):
                        continue
                    w = open_peers(cand, peers, c)
                    if w == 0:
                        continue
                    run += w
                    last = c
                    if run > target:
                        pick = c
                        break
                if pick < 0:
                    pick = last
            drops[n_drop, 0] = pick
            drops[n_drop, 1] = lowest_digit(cand[pick])
            n_drop += 1
            cand[pick] = np.uint32(full)
        if n_drop > 0:
            reset_open(cand, peers, full, single)
            _ac3.propagate(cand, peers, units, hidden, log, pops, acnt)
    # the cell: roulette with weight 1 / |D(x)| over the open cells
    total = 0.0
    last = -1
    for c in range(C):
        k = popcount(cand[c])
        if k > 1:
            total += 1.0 / k
            last = c
        cum[c] = total
    u = rng.random()
    target = u * total
    cell = last
    for c in range(C):
        if popcount(cand[c]) > 1 and cum[c] > target:
            cell = c
            break
    dmask = np.int64(cand[cell])
    allowed = dmask & ~np.int64(tabu_mask[cell])
    tabu_choice = allowed == 0
    if tabu_choice:
        allowed = dmask
    u = rng.random()
    digit = nth_digit(allowed, np.int64(u * popcount(allowed)))
    cand[cell] = np.uint32(np.int64(1) << (digit - 1))
    for c in range(C):
        pre[c] = cand[c]
    ok = _ac3.propagate(cand, peers, units, hidden, log, pops, acnt)
    return cell, digit, n_drop, ok, tabu_choice


@jit
def build_candidates(
    S,
    prefilled,
    tabu,
    tabu_mask,
    cands,
    cand_drops,
    counters,
    peers,
    units,
    iparams,
    fparams,
    it,
    cand,
    cand_pre,
    best,
    best_pre,
    cum,
    single,
    log,
    pops,
    acnt,
    rng,
):
    """The candidate list of iteration ``it`` (Algorithm 4, lines 4-8): every draw of the iteration.

    Expires the tabu list down to the tenure, builds ``candidates`` candidates from ``S``
    (:func:`make_candidate`, each propagated), a wiped-out one making its assignment tabu at once,
    records them in ``cands`` / ``cand_drops`` (costs, tabu flags, statuses ``ST_WIPED``, ``ST_TABU``
    or ``ST_NOT_BEST``) and keeps the admissible one of least cost (the first on ties) in ``best``
    (its domains after propagation) and ``best_pre`` (before). Counters: ``C_EVALUATIONS``,
    ``C_WIPEOUTS``, ``C_N_CAND``, ``C_DEAD`` (for the next iteration) and ``C_MOVED`` (0, until a move).
    ``cand``, ``cand_pre``, ``cum``, ``single``, ``log``, ``pops``, ``acnt``: scratch (see :func:`run`).

    Returns
    -------
    b : int
        Index of the best admissible candidate, -1 if none.
    b_cost : int
        Its cost.
    wiped : int
        Candidates wiped out.
    """
    C = S.shape[0]
    L = iparams[P_CANDIDATES]
    tenure = iparams[P_TENURE]
    drop = iparams[P_DROP]
    hidden = iparams[P_HIDDEN] != 0
    restart = iparams[P_DEAD_END] == DEAD_END_RESTART
    p_drop = fparams[F_P_DROP]
    tabu_trim(tabu, counters, tabu_mask, tenure)
    dead = counters[C_DEAD] != 0
    aspire = counters[C_BEST_COST]
    b = -1
    b_cost = 0
    wiped = 0
    for i in range(L):
        cell, digit, n_drop, ok, tabu_choice = make_candidate(
            S,
            cand,
            cand_pre,
            prefilled,
            tabu_mask,
            peers,
            units,
            hidden,
            p_drop,
            drop,
            dead,
            restart,
            cand_drops[i],
            cum,
            single,
            log,
            pops,
            acnt,
            rng,
        )
        cands[i, K_CELL] = cell
        cands[i, K_DIGIT] = digit
        cands[i, K_NDROP] = n_drop
        if not ok:
            wiped += 1
            cands[i, K_COST] = -1
            cands[i, K_TABU] = 0
            cands[i, K_STATUS] = ST_WIPED
            tabu_push(tabu, counters, tabu_mask, cell, digit, it, REASON_WIPEOUT, tenure)
            continue
        cost = 0
        is_tabu = tabu_choice
        for c in range(C):
            m = cand[c]
            if is_single(m):
                if m != S[c] and (np.int64(tabu_mask[c]) & np.int64(m)) != 0:
                    is_tabu = True
            else:
                cost += 1
        cands[i, K_COST] = cost
        cands[i, K_TABU] = 1 if is_tabu else 0
        cands[i, K_STATUS] = ST_NOT_BEST
        if is_tabu and not cost < aspire:
            cands[i, K_STATUS] = ST_TABU
            continue
        if b < 0 or cost < b_cost:
            b = i
            b_cost = cost
            for c in range(C):
                best[c] = cand[c]
                best_pre[c] = cand_pre[c]
    counters[C_EVALUATIONS] += L
    counters[C_WIPEOUTS] += wiped
    counters[C_N_CAND] = L
    counters[C_DEAD] = 1 if wiped == L else 0
    counters[C_MOVED] = 0
    return b, b_cost, wiped


@jit
def push_differences(S, new, tabu, counters, tabu_mask, it, tenure):
    """FeatureDifferences(new, S): the assignments of ``S`` that ``new`` lacks, in cell order, enter the tabu list."""
    for c in range(S.shape[0]):
        m = S[c]
        if is_single(m) and new[c] != m:
            tabu_push(tabu, counters, tabu_mask, c, lowest_digit(m), it, REASON_DIFFERENCE, tenure)


@jit
def run(state, peers, units, iparams, fparams, rng, n_iterations, trace, events):
    """Advance the search by up to ``n_iterations`` iterations.

    Parameters
    ----------
    state : AC3TabuState
        Updated in place: ``S`` (the state's domains, on a move), ``pre`` (domains of the latest accepted
        candidate before its propagation, on a move), ``best_grid`` (singletons of the lowest-cost state
        since reset, written when improved), ``tabu`` (the tabu list, oldest first: ``T_*`` columns,
        ``C_TABU_LEN`` rows used; at least tenure + 1 rows) and ``tabu_mask`` (its digits of each cell),
        ``cands`` (the latest iteration's candidates: ``K_*`` columns, cost -1 when wiped out; at least
        ``candidates`` rows), ``cand_drops`` (each candidate's dropped ``(cell, digit)`` pairs, at least
        ``drop`` of them) and ``counters`` (see the ``C_*`` constants). Read: ``prefilled`` (singletons
        after the prefilter: never dropped).
    peers, units : geometry tables
    iparams : ndarray of int64
        candidates, tenure, drop, budget (0 = none), hidden singles, dead-end rule (``DEAD_END_*``).
    fparams : ndarray of float64
        p_drop.
    rng : numpy.random.Generator
    n_iterations : int
    trace : ndarray of float64, shape (>= n_iterations, TRACE_WIDTH)
        One row per iteration (written).
    events : ndarray of int64, shape (>= n_iterations, EVENT_WIDTH)
        One row per move taken by aspiration (written).

    Returns
    -------
    iterations : int
        Iterations done.
    n_events : int
        Rows written to ``events``.
    code : int
        RUNNING, SOLVED or BUDGET.

    Notes
    -----
    One iteration: expire the list down to the tenure; build the candidates
    (:func:`make_candidate`), a wiped-out one making its assignment tabu at
    once; among the others, admissible = not tabu, or tabu with a cost below
    every state's cost so far (aspiration); the admissible one of least cost
    (the first on ties) is taken when its cost is at most the state's (the
    paper's acceptance), or, with ``DEAD_END_RESTART``, in any case when the
    state is a dead end (every candidate then restarted from the prefilter).
    Its feature differences (assignments of the state it lacks, in cell
    order) enter the list.
    """
    S = state.S
    pre = state.pre
    prefilled = state.prefilled
    best_grid = state.best_grid
    tabu = state.tabu
    tabu_mask = state.tabu_mask
    cands = state.cands
    cand_drops = state.cand_drops
    counters = state.counters
    C = S.shape[0]
    # Scratch, written before it is read: candidate domains, roulette weights, and AC3's queue and counters
    # (no log: a candidate's propagation is not shown; the solver re-runs the accepted one with a log).
    cand = np.zeros_like(S)
    cand_pre = np.zeros_like(S)
    best = np.zeros_like(S)
    best_pre = np.zeros_like(S)
    cum = np.zeros(C)
    single = np.zeros(C, dtype=np.bool_)
    log = np.zeros((0, _ac3.LOG_WIDTH), dtype=np.int32)
    pops = np.zeros(C, dtype=np.int32)
    acnt = np.zeros(_ac3.N_COUNTERS, dtype=np.int64)
    tenure = iparams[P_TENURE]
    budget = iparams[P_BUDGET]
    hidden = iparams[P_HIDDEN] != 0
    restart = iparams[P_DEAD_END] == DEAD_END_RESTART
    n_ev = 0
    done = 0
    code = RUNNING
    while done < n_iterations:
        if counters[C_COST] == 0:
            code = SOLVED
            break
        if budget > 0 and counters[C_ITERATION] >= budget:
            code = BUDGET
            break
        it = counters[C_ITERATION] + 1
        dead = counters[C_DEAD] != 0
        cost_s = counters[C_COST]
        b, b_cost, wiped = build_candidates(
            S,
            prefilled,
            tabu,
            tabu_mask,
            cands,
            cand_drops,
            counters,
            peers,
            units,
            iparams,
            fparams,
            it,
            cand,
            cand_pre,
            best,
            best_pre,
            cum,
            single,
            log,
            pops,
            acnt,
            rng,
        )
        moved_drop = 0
        if b >= 0:
            if b_cost <= cost_s or (dead and restart):
                aspiring = cands[b, K_TABU] != 0
                cands[b, K_STATUS] = ST_ASPIRATION if aspiring else ST_TAKEN
                push_differences(S, best, tabu, counters, tabu_mask, it, tenure)
                for c in range(C):
                    S[c] = best[c]
                    pre[c] = best_pre[c]
                counters[C_COST] = b_cost
                counters[C_MOVES] += 1
                counters[C_MOVED] = 1
                counters[C_AC3_ITERATION] = it
                counters[C_AC3_HIDDEN] = 1 if hidden else 0
                moved_drop = cands[b, K_NDROP]
                if aspiring:
                    counters[C_ASPIRATIONS] += 1
                    events[n_ev, 0] = it
                    events[n_ev, 1] = cands[b, K_CELL]
                    events[n_ev, 2] = cands[b, K_DIGIT]
                    n_ev += 1
                if b_cost < counters[C_BEST_COST]:
                    counters[C_BEST_COST] = b_cost
                    for c in range(C):
                        best_grid[c] = lowest_digit(S[c]) if is_single(S[c]) else 0
            else:
                cands[b, K_STATUS] = ST_WORSE
        counters[C_ITERATION] = it
        trace[done, 0] = it
        trace[done, 1] = counters[C_COST]
        trace[done, 2] = counters[C_BEST_COST]
        trace[done, 3] = wiped
        trace[done, 4] = counters[C_TABU_LEN]
        trace[done, 5] = moved_drop
        done += 1
    if code == RUNNING:
        if counters[C_COST] == 0:
            code = SOLVED
        elif budget > 0 and counters[C_ITERATION] >= budget:
            code = BUDGET
    return done, n_ev, code
