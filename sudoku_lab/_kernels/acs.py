"""ACS kernels: the ant colony system with constraint propagation of Lloyd and Amos.

Paper: Lloyd and Amos, "Solving Sudoku with Ant Colony Optimisation", IEEE
Transactions on Games (2019) (citation ``lloyd2019`` in
:mod:`sudoku_lab.citations`); the facts of their public code (sudoku_acs) and
every choice made here are in docs/algorithms.md, "Ant colony system".

A board is one int64 candidate mask per cell (bit ``d - 1`` for digit ``d``;
25 digits fit). At rest (between two placements) a cell is *fixed* when its
mask has one bit, *failed* when it has none (the ant could not fill it), and
*open* otherwise. Every random draw is ``rng.random()`` (a uniform double),
taken in the order documented on each function, so that the pure-Python twin
``tests/naive_acs.py`` replays a kernel draw for draw from the same seed.
"""

from __future__ import annotations

import numpy as np

from .acs_layout import (  # noqa: F401
    C_ANTS,
    C_BEST_COST,
    C_COST,
    C_ITER_BEST,
    C_ITER_COST,
    C_NEW_BEST,
    F_BEST_PHER,
    F_DEPOSIT,
    LOG_FAILED,
    LOG_HIDDEN,
    LOG_SINGLE,
    N_COUNTERS,
    N_FPARAMS,
    N_FSTATE,
    N_IPARAMS,
    P_ANTS,
    P_BUDGET,
    P_EVAP,
    P_Q0,
    P_RHO,
    P_TAU0,
    P_XI,
    TRACE_WIDTH,
    AcsState,
    AcsTables,
)
from .common import jit
from .status import BUDGET, C_EVALUATIONS, C_ITERATION, RUNNING, SOLVED  # noqa: F401


def tables(geo) -> AcsTables:
    """The :class:`AcsTables` of a geometry (:func:`sudoku_lab.model.geometry.geometry`)."""
    C, N = geo.C, geo.N
    return AcsTables(
        np.ascontiguousarray(geo.peers, dtype=np.int32),
        np.ascontiguousarray(geo.units, dtype=np.int32),
        np.ascontiguousarray(geo.cell_units, dtype=np.int32),
        np.zeros(C, dtype=np.int64),
        np.zeros(3 * N, dtype=np.bool_),
        np.zeros(3 * N, dtype=np.int64),
        np.zeros(2 * C, dtype=np.int64),
        np.zeros(2 * C, dtype=np.int64),
    )


@jit
def _mark(cell_units, k, dflag, dstack, nd):
    """Push cell ``k``'s row, column and box on the hidden-single stack (each unit at most once)."""
    for t in range(3):
        u = cell_units[k, t]
        if not dflag[u]:
            dflag[u] = True
            dstack[nd] = u
            nd += 1
    return nd


@jit
def assign(cand, cell, bit, t):
    """Fix ``cell`` of the board ``cand`` to the digit of ``bit`` and propagate to a fixed point.

    Parameters
    ----------
    cand : ndarray of int64, shape (C,)
        One ant's board, at rest (every single propagated), updated in place.
    cell : int
    bit : int
        The digit's mask (one bit).
    t : AcsTables

    Returns
    -------
    int
        Entries written to ``t.logc`` / ``t.logk``: the cells the propagation fixed or failed, in order.

    Notes
    -----
    A FIFO queue of fixed cells: the first fixed cell is popped, its digit removed from each of its
    peers in ``peers`` order; a peer left with no candidate fails (a queued cell with the same digit
    fails so, and is skipped when popped); a peer left with one is fixed (naked single) and queued;
    each peer that lost a digit puts its three units on a stack. When the queue is empty, the unit
    on top of the stack is checked for hidden singles: a digit that exactly one cell of the unit
    (fixed cells count with their digit, failed cells with none) can take; the first open cell of
    the unit (unit order) holding such a digit is fixed to the lowest one and queued, the queue is
    run again, and the checks resume. Done when the queue and the stack are empty.
    """
    peers, units, cell_units = t.peers, t.units, t.cell_units
    queue, dflag, dstack, logc, logk = t.queue, t.dflag, t.dstack, t.logc, t.logk
    P = peers.shape[1]
    N = units.shape[1]
    cand[cell] = bit
    head = 0
    tail = 1
    queue[0] = cell
    nlog = 0
    nd = _mark(cell_units, cell, dflag, dstack, 0)
    while True:
        while head < tail:
            c = queue[head]
            head += 1
            b = cand[c]
            if b == 0:
                continue
            for j in range(P):
                k = peers[c, j]
                m = cand[k]
                if m & b:
                    m &= ~b
                    cand[k] = m
                    nd = _mark(cell_units, k, dflag, dstack, nd)
                    if m == 0:
                        logc[nlog] = k
                        logk[nlog] = LOG_FAILED
                        nlog += 1
                    elif m & (m - 1) == 0:
                        queue[tail] = k
                        tail += 1
                        logc[nlog] = k
                        logk[nlog] = LOG_SINGLE
                        nlog += 1
        if nd == 0:
            break
        nd -= 1
        u = dstack[nd]
        dflag[u] = False
        once = np.int64(0)
        twice = np.int64(0)
        for j in range(N):
            m = cand[units[u, j]]
            twice |= once & m
            once |= m
        hidden = once & ~twice
        if hidden == 0:
            continue
        for j in range(N):
            k = units[u, j]
            m = cand[k]
            if m & (m - 1) != 0 and m & hidden:
                h = m & hidden
                w = h & (-h)
                cand[k] = w
                queue[tail] = k
                tail += 1
                logc[nlog] = k
                logk[nlog] = LOG_HIDDEN
                nlog += 1
                nd = _mark(cell_units, k, dflag, dstack, nd)
                break
    return nlog


@jit
def propagate_givens(grid, N, t):
    """The puzzle's candidate masks after constraint propagation (the ants' starting board).

    Every cell starts with all N digits; the givens are fixed one by one in cell order with
    :func:`assign` (a given already fixed, or no longer possible, is skipped). No random draws.
    """
    C = grid.shape[0]
    full = (np.int64(1) << N) - 1
    cand = np.full(C, full, dtype=np.int64)
    for c in range(C):
        d = grid[c]
        if d > 0:
            bit = np.int64(1) << (d - 1)
            m = cand[c]
            if m & bit and m != bit:
                assign(cand, c, bit, t)
    return cand


@jit
def choose(row, m, q0, rng):
    """The ACS pseudo-random proportional rule over the candidates ``m`` of one cell.

    Parameters
    ----------
    row : ndarray of float64, shape (N,)
        The cell's pheromone.
    m : int
        Candidate mask (two bits or more).
    q0 : float
    rng : numpy.random.Generator
        One draw u; when u < q0 the greedy pick (the candidate with the most pheromone, the
        lowest digit on ties), else a second draw v and the roulette: the first candidate (in
        digit order) whose running sum of pheromone exceeds v times the candidates' total (the
        last candidate if rounding leaves none).

    Returns
    -------
    digit : int
        0-based.
    greedy : bool
    """
    N = row.shape[0]
    u = rng.random()
    if u < q0:
        best = -1
        top = -1.0
        for d in range(N):
            if (m >> d) & 1 and row[d] > top:
                top = row[d]
                best = d
        return best, True
    total = 0.0
    for d in range(N):
        if (m >> d) & 1:
            total += row[d]
    r = rng.random() * total
    acc = 0.0
    last = -1
    for d in range(N):
        if (m >> d) & 1:
            acc += row[d]
            last = d
            if acc > r:
                return d, False
    return last, False


@jit
def start_ants(cand, start, base, A, rng):
    """Every ant's board is a copy of ``base``; its start cell ``int(u * C)``, one draw per ant in order."""
    C = base.shape[0]
    for a in range(A):
        cand[a, :] = base
        start[a] = int(rng.random() * C)


@jit
def walk(pher, cand, start, A, step, a, q0, xi, tau0, rng, t, one):
    """The ants' walks from visit ``(step, a)`` on: step by step, ant 0 to A-1 at each.

    Ant ``a`` visits cell ``(start[a] + step) % C``. At an open cell it picks a digit by
    :func:`choose`, applies the local update ``tau <- (1 - xi) tau + xi tau0`` to the picked
    entry, and fixes the cell with :func:`assign`; a fixed or failed cell is passed.

    Parameters
    ----------
    one : bool
        Stop after the first placement (a phase step), else walk to the end.

    Returns
    -------
    step, a : int
        Where the walk resumes (``step == C``: all done).
    cell, digit : int
        The last placement (-1, -1 if none); digit 0-based.
    greedy : bool
    nlog : int
        Entries of the placement's propagation log (``t.logc`` / ``t.logk``).
    before : float
        The pheromone of the picked entry before the local update.
    """
    C = cand.shape[1]
    cell = -1
    digit = -1
    greedy = False
    nlog = 0
    before = 0.0
    while step < C:
        while a < A:
            c = start[a] + step
            if c >= C:
                c -= C
            m = cand[a, c]
            a += 1
            if m & (m - 1) == 0:  # fixed or failed
                continue
            d, g = choose(pher[c], m, q0, rng)
            before = pher[c, d]
            pher[c, d] = (1.0 - xi) * pher[c, d] + xi * tau0
            nlog = assign(cand[a - 1], c, np.int64(1) << d, t)
            cell = c
            digit = d
            greedy = g
            if one:
                return step, a, cell, digit, greedy, nlog, before
        a = 0
        step += 1
    return step, a, cell, digit, greedy, nlog, before


@jit
def any_open(cand, A):
    """Whether some ant's board still has an open cell (another placement will come)."""
    C = cand.shape[1]
    for a in range(A):
        for c in range(C):
            m = cand[a, c]
            if m & (m - 1) != 0:
                return True
    return False


@jit
def count_empty(row):
    """Cells of a board that are not fixed (failed, or open before the walk's end)."""
    k = 0
    for c in range(row.shape[0]):
        m = row[c]
        if m == 0 or m & (m - 1) != 0:
            k += 1
    return k


@jit
def as_grid(row, out):
    """Digits of a board into ``out`` (int8), 0 where a cell is not fixed."""
    for c in range(row.shape[0]):
        m = row[c]
        if m != 0 and m & (m - 1) == 0:
            d = 1
            while m > 1:
                m >>= 1
                d += 1
            out[c] = d
        else:
            out[c] = 0


@jit
def finish(state, A, rho, evap, budget, trace_row):
    """After the walks: the iteration's best ant, the best-so-far, the global update and BVE.

    The iteration's best ant is the first with the fewest failed cells f; its deposit is C / f.
    It becomes the best-so-far when f = 0 (solved: the iteration ends there, with no update) or
    when its deposit exceeds the best-so-far's current (evaporated) deposit. The global update
    then moves every fixed cell of the best-so-far's board: ``tau <- (1 - rho) tau + rho D``,
    D the best-so-far's deposit; and best-value evaporation follows: ``D <- (1 - evap) D``.
    No random draws.

    Returns
    -------
    int
        SOLVED, BUDGET or RUNNING.
    """
    pher = state.pher
    cand = state.cand
    counters = state.counters
    fstate = state.fstate
    C = cand.shape[1]
    best_a = 0
    best_f = C + 1
    total = 0
    for a in range(A):
        f = count_empty(cand[a])
        total += f
        if f < best_f:
            best_f = f
            best_a = a
    counters[C_ITERATION] += 1
    counters[C_EVALUATIONS] += A
    counters[C_ANTS] = A
    counters[C_ITER_COST] = best_f
    counters[C_ITER_BEST] = best_a
    counters[C_NEW_BEST] = 0
    solved = best_f == 0
    deposit = C / best_f if best_f > 0 else 0.0
    if solved or deposit > fstate[F_BEST_PHER]:
        state.best_cand[:] = cand[best_a]
        as_grid(cand[best_a], state.grid)
        counters[C_COST] = best_f
        counters[C_NEW_BEST] = 1
        if not solved:
            fstate[F_BEST_PHER] = deposit
    if best_f < counters[C_BEST_COST]:
        as_grid(cand[best_a], state.best_grid)
        counters[C_BEST_COST] = best_f
    code = RUNNING
    if solved:
        code = SOLVED
    else:
        D = fstate[F_BEST_PHER]
        fstate[F_DEPOSIT] = D
        bc = state.best_cand
        for c in range(C):
            m = bc[c]
            if m != 0 and m & (m - 1) == 0:
                d = 0
                while m > 1:
                    m >>= 1
                    d += 1
                pher[c, d] = (1.0 - rho) * pher[c, d] + rho * D
        fstate[F_BEST_PHER] = D * (1.0 - evap)
        if budget > 0 and counters[C_ITERATION] >= budget:
            code = BUDGET
    trace_row[0] = counters[C_ITERATION]
    trace_row[1] = counters[C_COST]
    trace_row[2] = best_f
    trace_row[3] = total / A
    trace_row[4] = counters[C_BEST_COST]
    trace_row[5] = fstate[F_BEST_PHER]
    return code


@jit
def run(state, t, iparams, fparams, rng, n, trace):
    """Up to ``n`` ACS iterations.

    Parameters
    ----------
    state : AcsState
        Updated in place.
    t : AcsTables
    iparams : ndarray of int64
        ants, iteration budget (0 = none).
    fparams : ndarray of float64
        q0, rho, evap, tau0 (0 = 1 / C), xi.
    rng : numpy.random.Generator
    n : int
    trace : ndarray of float64, shape (>= n, TRACE_WIDTH)

    Returns
    -------
    done : int
    status : int
        RUNNING, SOLVED or BUDGET.

    Notes
    -----
    One iteration: :func:`start_ants` (A draws), :func:`walk` to the end (each placement one draw,
    two for a roulette pick), :func:`finish` (no draws).
    """
    A = iparams[P_ANTS]
    budget = iparams[P_BUDGET]
    q0 = fparams[P_Q0]
    rho = fparams[P_RHO]
    evap = fparams[P_EVAP]
    tau0 = fparams[P_TAU0]
    xi = fparams[P_XI]
    C = state.base.shape[0]
    if tau0 <= 0.0:
        tau0 = 1.0 / C
    for s in range(n):
        start_ants(state.cand, state.start, state.base, A, rng)
        walk(state.pher, state.cand, state.start, A, 0, 0, q0, xi, tau0, rng, t, False)
        code = finish(state, A, rho, evap, budget, trace[s])
        if code != RUNNING:
            return s + 1, code
    return n, RUNNING
