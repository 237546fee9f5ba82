"""Prefiltered cuckoo search kernels: egg building, PMX, sorting crossover, feasible mutation, the nest loop.

Paper: Soto, Crawford, Galleguillos, Monfroy and Paredes, "A prefiltered
cuckoo search algorithm with geometric operators for solving Sudoku problems"
(citation ``soto2014`` in :mod:`sudoku_lab.citations`), Algorithms 2-5, 8
and 9; the choices the paper leaves open are fixed in docs/algorithms.md,
"Cuckoo search".

An egg is a whole grid (int8, shape (C,), row-major) whose every row is a
permutation of 1..N holding the prefilled cells, so only columns and boxes
can miss digits. Domains are ``uint32`` masks (digit ``d`` as bit ``d - 1``)
after the prefilter. Every random draw is ``rng.random()`` (a uniform
double) or, for the optional Levy flight, ``rng.standard_normal()``, taken in
the order documented on each function, so that the pure-Python twin in
``tests/naive_cuckoo.py`` replays a kernel draw for draw from the same seed.
"""

from __future__ import annotations

import numpy as np

from .common import jit, popcount, shuffle
from .cuckoo_layout import (  # noqa: F401
    ABANDON_EACH,
    ABANDON_WORST,
    C_ABANDONED,
    C_BEST,
    C_BEST_COST,
    C_DISCARDED,
    C_FALLBACKS,
    C_HIST_LEN,
    C_HIST_PENDING,
    C_HIST_STRIDE,
    C_MUTATED,
    C_MUTATIONS,
    C_OPERATOR,
    C_PICKED,
    C_PMX,
    C_REPLACED,
    C_SORTING,
    C_SWAPS,
    INFEASIBLE_ACCEPT,
    INFEASIBLE_BEST,
    INFEASIBLE_DISCARD,
    LEVY_BETA,
    N_COUNTERS,
    N_FPARAMS,
    N_IPARAMS,
    OP_BEFORE,
    OP_NONE,
    OP_PMX,
    OP_SORTING,
    P_ABANDON,
    P_BUDGET,
    P_CUM1,
    P_CUM2,
    P_FILL_NODES,
    P_INFEASIBLE,
    P_LEVY,
    P_LEVY_SIGMA,
    P_NESTS,
    P_P_MUT,
    P_P_PMX,
    P_PA,
    P_SEGMENT,
    P_TIES,
    SEG_BEST,
    SEG_CURRENT,
    TIES_KEEP,
    TIES_REPLACE,
    TRACE_WIDTH,
    CuckooState,
    CuckooTables,
)
from .status import BUDGET, C_EVALUATIONS, C_ITERATION, RUNNING, SOLVED  # noqa: F401


@jit
def take_child_row(child, r, N, dom, infeasible, new, best_grid, counters):
    """Put a crossover's child row ``r`` into ``new``, or apply the ``infeasible`` rule when it leaves the domains.

    ``INFEASIBLE_ACCEPT`` keeps it anyway; otherwise a row outside the domains
    is counted in ``C_DISCARDED`` and ``new`` keeps the current egg's row
    (``INFEASIBLE_DISCARD``) or takes the best egg's (``INFEASIBLE_BEST``).
    """
    if infeasible == INFEASIBLE_ACCEPT or row_feasible(child, r, N, dom):
        for t in range(N):
            new[r * N + t] = child[t]
    else:
        counters[C_DISCARDED] += 1
        if infeasible == INFEASIBLE_BEST:
            for t in range(N):
                new[r * N + t] = best_grid[r * N + t]


@jit
def fill_row(egg, r, N, row_free, row_nfree, row_avail, dom, node_limit, cand, ncand, idx, chosen, rng):
    """Fill the free cells of row ``r`` of ``egg``: randomised backtracking over the domains, else a permutation.

    Parameters
    ----------
    egg : ndarray of int8, shape (C,)
        Its prefilled cells must be in place; the row's free cells are written.
    r, N : int
        Row and side.
    row_free : ndarray of int32, shape (N, N)
        Positions (0..N-1) of each row's free cells, increasing, padded with -1.
    row_nfree : ndarray of int32, shape (N,)
    row_avail : ndarray of int64, shape (N,)
        Digits no prefilled cell of the row holds (bit ``d - 1``).
    dom : ndarray of uint32, shape (C,)
        The prefiltered domains.
    node_limit : int
        Most search nodes (cells entered) before giving up.
    cand : ndarray of int64, shape (N, N); ncand, idx, chosen : ndarray of int64, shape (N,)
        Scratch.
    rng : numpy.random.Generator

    Returns
    -------
    bool
        True if the backtracking found a completion inside the domains, False if it gave up and
        the row took a random permutation of its missing digits.

    Notes
    -----
    Cells in increasing position; at each node entered, the cell's candidates (domain digits the
    row still misses, increasing) are shuffled (:func:`shuffle`) and tried in that order. On
    failure (node limit or no completion) the row's missing digits, increasing, are shuffled
    the same way and written to the free cells in order.
    """
    m = row_nfree[r]
    if m == 0:
        return True
    base = r * N
    avail = row_avail[r]
    used = np.int64(0)
    k = 0
    nodes = 1
    ok = False
    # enter level 0
    cell = base + row_free[r, 0]
    allowed = np.int64(dom[cell]) & avail
    c = 0
    for d in range(N):
        if (allowed >> d) & 1:
            cand[0, c] = d + 1
            c += 1
    shuffle(cand[0], c, rng)
    ncand[0] = c
    idx[0] = 0
    chosen[0] = 0
    while True:
        if chosen[k] != 0:
            used &= ~(np.int64(1) << (chosen[k] - 1))
            chosen[k] = 0
        if idx[k] < ncand[k]:
            d = cand[k, idx[k]]
            idx[k] += 1
            chosen[k] = d
            used |= np.int64(1) << (d - 1)
            if k == m - 1:
                ok = True
                break
            if nodes >= node_limit:
                break
            k += 1
            nodes += 1
            cell = base + row_free[r, k]
            allowed = np.int64(dom[cell]) & avail & ~used
            c = 0
            for dd in range(N):
                if (allowed >> dd) & 1:
                    cand[k, c] = dd + 1
                    c += 1
            shuffle(cand[k], c, rng)
            ncand[k] = c
            idx[k] = 0
            chosen[k] = 0
        else:
            k -= 1
            if k < 0:
                break
    if ok:
        for t in range(m):
            egg[base + row_free[r, t]] = chosen[t]
        return True
    c = 0
    for d in range(N):
        if (avail >> d) & 1:
            cand[0, c] = d + 1
            c += 1
    shuffle(cand[0], c, rng)
    for t in range(m):
        egg[base + row_free[r, t]] = cand[0, t]
    return False


@jit
def build_egg(egg, pre, N, row_free, row_nfree, row_avail, dom, node_limit, cand, ncand, idx, chosen, rng):
    """A new egg from the domains: the prefilled cells, then :func:`fill_row` on rows 0..N-1 in order.

    Returns the number of rows that fell back to a plain permutation.
    """
    for c in range(egg.shape[0]):
        egg[c] = pre[c]
    fallbacks = 0
    for r in range(N):
        if not fill_row(egg, r, N, row_free, row_nfree, row_avail, dom, node_limit, cand, ncand, idx, chosen, rng):
            fallbacks += 1
    return fallbacks


@jit
def egg_cost(egg, units, N):
    """Missing symbols over the columns and boxes of a grid whose cells all hold a digit (rows are complete)."""
    cost = 0
    for u in range(N, 3 * N):
        seen = np.int64(0)
        for j in range(N):
            seen |= np.int64(1) << (egg[units[u, j]] - 1)
        cost += N - popcount(seen)
    return cost


@jit
def build_nests(eggs, costs, start, stop, pre, units, row_free, row_nfree, row_avail, dom, node_limit, rng):
    """Build eggs ``start..stop-1`` (in order, :func:`build_egg`) and their costs; return the fallback rows."""
    N = row_nfree.shape[0]
    cand = np.empty((N, N), dtype=np.int64)
    ncand = np.empty(N, dtype=np.int64)
    idx = np.empty(N, dtype=np.int64)
    chosen = np.empty(N, dtype=np.int64)
    fallbacks = 0
    for k in range(start, stop):
        fallbacks += build_egg(
            eggs[k], pre, N, row_free, row_nfree, row_avail, dom, node_limit, cand, ncand, idx, chosen, rng
        )
        costs[k] = egg_cost(eggs[k], units, N)
    return fallbacks


@jit
def fill_nests(eggs, costs, start, stop, tables, node_limit, rng):
    """:func:`build_nests` with the :class:`CuckooTables` (a start, or new nests for a larger population)."""
    return build_nests(
        eggs,
        costs,
        start,
        stop,
        tables.pre,
        tables.units,
        tables.row_free,
        tables.row_nfree,
        tables.row_avail,
        tables.dom,
        node_limit,
        rng,
    )


@jit
def pmx_row(p1, p2, lo, hi, out, pos2, placed):
    """Partially matched crossover of two permutations of 1..N (the paper's Algorithm 2).

    Parameters
    ----------
    p1 : ndarray of int8, shape (N,)
        Gives the segment ``lo..hi`` (inclusive, 0-based).
    p2 : ndarray of int8, shape (N,)
        Gives the rest.
    lo, hi : int
    out : ndarray of int8, shape (N,)
        The child (written).
    pos2 : ndarray of int64, shape (N + 1,); placed : ndarray of bool, shape (N + 1,)
        Scratch.

    Notes
    -----
    The child copies ``p1[lo..hi]``; each value ``v = p2[i]`` of the segment not yet in the child
    is placed by following ``V = p1[t]``, ``t = position of V in p2`` from ``t = i`` until ``t``
    leaves the segment; every other position takes ``p2``'s value. No random draws.
    """
    N = p1.shape[0]
    for i in range(N):
        pos2[p2[i]] = i
        placed[i + 1] = False
        out[i] = 0
    for i in range(lo, hi + 1):
        out[i] = p1[i]
        placed[p1[i]] = True
    for i in range(lo, hi + 1):
        v = p2[i]
        if placed[v]:
            continue
        t = i
        while True:
            t = pos2[p1[t]]
            if t < lo or t > hi:
                break
        out[t] = v
        placed[v] = True
    for i in range(N):
        if out[i] == 0:
            out[i] = p2[i]


@jit
def sorting_row(a, b, c, mask, out, x, pos):
    """Multiparental sorting crossover of three permutations (the paper's Algorithms 3 and 4).

    Parameters
    ----------
    a, b, c : ndarray of int8, shape (N,)
        Parents 0, 1, 2 (best so far, best nest of the last iteration, current egg).
    mask : ndarray of int64, shape (N,)
        Parent index (0-based) per position.
    out : ndarray of int8, shape (N,)
        The child (written).
    x : ndarray of int64, shape (3, N); pos : ndarray of int64, shape (3, N + 1)
        Scratch (working copies of the parents and the position of each digit in them).

    Notes
    -----
    For each position ``i`` in order, with ``k = mask[i]``: each other parent swaps its position
    ``i`` with the position holding ``x[k, i]``, so all three agree at ``i``. At the end the
    three are equal: that is the child. No random draws.
    """
    N = a.shape[0]
    for i in range(N):
        x[0, i] = a[i]
        x[1, i] = b[i]
        x[2, i] = c[i]
    for k in range(3):
        for i in range(N):
            pos[k, x[k, i]] = i
    for i in range(N):
        k = mask[i]
        v = x[k, i]
        for j in range(3):
            if j != k and x[j, i] != v:
                p = pos[j, v]
                w = x[j, i]
                x[j, i] = v
                x[j, p] = w
                pos[j, v] = i
                pos[j, w] = p
    for i in range(N):
        out[i] = x[0, i]


@jit
def row_feasible(child, r, N, dom):
    """True if every cell of row ``r`` holds a digit of its domain (prefilled cells: their own digit)."""
    base = r * N
    for t in range(N):
        if not (np.int64(dom[base + t]) >> (child[t] - 1)) & 1:
            return False
    return True


@jit
def mutate_once(egg, N, row_free, row_nfree, mut_rows, n_mut, dom, rng):
    """Feasible geometric mutation (the paper's Algorithm 5): swap two free cells of a random row.

    Draws: ``rng.random()`` for the row (among the ``n_mut`` rows with two free cells or more; none,
    no draw); then, if the row has ``K > 0`` feasible pairs, ``rng.random()`` for the pair. A pair
    ``(a, b)`` of free cells (a before b in the row) is feasible when each cell's digit lies in the
    other cell's domain; pairs are counted in order of ``a`` then ``b``. Returns 1 if it swapped.
    """
    if n_mut == 0:
        return 0
    r = mut_rows[int(rng.random() * n_mut)]
    m = row_nfree[r]
    base = r * N
    count = 0
    for a in range(m):
        ca = base + row_free[r, a]
        da = egg[ca]
        for b in range(a + 1, m):
            cb = base + row_free[r, b]
            if (np.int64(dom[ca]) >> (egg[cb] - 1)) & 1 and (np.int64(dom[cb]) >> (da - 1)) & 1:
                count += 1
    if count == 0:
        return 0
    t = int(rng.random() * count)
    for a in range(m):
        ca = base + row_free[r, a]
        da = egg[ca]
        for b in range(a + 1, m):
            cb = base + row_free[r, b]
            if (np.int64(dom[ca]) >> (egg[cb] - 1)) & 1 and (np.int64(dom[cb]) >> (da - 1)) & 1:
                if t == 0:
                    egg[ca] = egg[cb]
                    egg[cb] = da
                    return 1
                t -= 1
    return 0


@jit
def levy_swaps(sigma, cap, rng):
    """Number of mutation swaps from a Levy-flight step (Mantegna's algorithm, beta = 1.5), at most ``cap``.

    Draws ``u = sigma * rng.standard_normal()``, then ``v = rng.standard_normal()``; the step is
    ``|u| / |v|^(1/beta)`` and the count ``1 + floor(step)``, capped.
    """
    u = sigma * rng.standard_normal()
    v = rng.standard_normal()
    av = abs(v)
    if av == 0.0:
        return cap
    step = abs(u) / av ** (1.0 / LEVY_BETA)
    if step >= cap - 1:
        return cap
    return 1 + int(step)


@jit
def abandon_and_close(state, tables, iparams, fparams, rng, b, i, replaced, op, mutated, cand, ncand, idx, chosen, row):
    """Steps 4 and 5 of an iteration (see :func:`run`): abandon nests, track the best, write the records.

    Rebuilds the abandoned nests other than the best ``b`` (marking them in ``state.abandoned``), moves
    the best nest to the first of the lowest cost if strictly lower, copies it to ``best_grid`` on a
    strict improvement, counts the iteration, stores the iteration's pick ``i``, ``replaced`` nest,
    operator ``op`` and ``mutated`` flag in the counters, writes the trace ``row`` and the nest history.
    ``cand``, ``ncand``, ``idx`` and ``chosen`` are :func:`build_egg`'s scratch. :func:`run` and the
    "abandon" phase both call it. Returns the best nest's index.
    """
    eggs = state.eggs
    costs = state.costs
    abandoned = state.abandoned
    counters = state.counters
    hist = state.hist
    N = tables.row_nfree.shape[0]
    C = eggs.shape[1]
    nests = iparams[P_NESTS]
    pa = fparams[P_PA]
    H = hist.shape[0]
    if iparams[P_ABANDON] == ABANDON_WORST:  # mark the worst first: highest cost, then lowest index
        n_worst = min(int(pa * nests), nests - 1)
        for _t in range(n_worst):
            w = -1
            for k in range(nests):
                if k != b and not abandoned[k] and (w < 0 or costs[k] > costs[w]):
                    w = k
            abandoned[w] = True
    for k in range(nests):
        if k == b:
            continue
        if abandoned[k] if iparams[P_ABANDON] == ABANDON_WORST else rng.random() < pa:
            counters[C_FALLBACKS] += build_egg(
                eggs[k],
                tables.pre,
                N,
                tables.row_free,
                tables.row_nfree,
                tables.row_avail,
                tables.dom,
                iparams[P_FILL_NODES],
                cand,
                ncand,
                idx,
                chosen,
                rng,
            )
            costs[k] = egg_cost(eggs[k], tables.units, N)
            abandoned[k] = True
            counters[C_ABANDONED] += 1
            counters[C_EVALUATIONS] += 1
    low = 0
    total = 0
    for k in range(nests):
        total += costs[k]
        if costs[k] < costs[low]:
            low = k
    if costs[low] < costs[b]:
        b = low
    counters[C_BEST] = b
    if costs[b] < counters[C_BEST_COST]:
        counters[C_BEST_COST] = costs[b]
        for c in range(C):
            state.best_grid[c] = eggs[b, c]
    counters[C_ITERATION] += 1
    counters[C_PICKED] = i
    counters[C_REPLACED] = replaced
    counters[C_OPERATOR] = op
    counters[C_MUTATED] = mutated
    row[0] = counters[C_ITERATION]
    row[1] = costs[b]
    row[2] = counters[C_BEST_COST]
    row[3] = total / nests
    row[4] = counters[C_PMX]
    row[5] = counters[C_SORTING]
    row[6] = counters[C_MUTATIONS]
    row[7] = counters[C_ABANDONED]
    counters[C_HIST_PENDING] += 1
    if counters[C_HIST_PENDING] >= counters[C_HIST_STRIDE]:
        r = counters[C_HIST_LEN]
        for k in range(nests):
            hist[r, k] = costs[k]
        counters[C_HIST_LEN] = r + 1
        counters[C_HIST_PENDING] = 0
        if r + 1 == H:  # full: keep rows 1, 3, 5, ... (multiples of the doubled stride)
            for t in range(H // 2):
                for k in range(nests):
                    hist[t, k] = hist[2 * t + 1, k]
            counters[C_HIST_LEN] = H // 2
            counters[C_HIST_STRIDE] *= 2
    return b


@jit
def run(state, tables, iparams, fparams, rng, n_it, trace):
    """Advance the cuckoo search by up to ``n_it`` iterations.

    Parameters
    ----------
    state : CuckooState
        Updated in place: ``eggs`` (one egg per nest, at least ``nests`` rows), their ``costs`` (missing
        symbols over columns and boxes), ``best_grid`` (best egg since reset, a copy written on strict
        improvement), ``abandoned`` (nests rebuilt in the latest iteration), ``counters`` (see the ``C_*``
        constants) and ``hist`` (the nest history, H rows: a row of every nest's cost every ``stride``
        iterations; when its H rows are full, every second row is kept and the stride doubles).
    tables : CuckooTables
        Prefilled cells, prefiltered domains, the units and the row tables (see :func:`fill_row`;
        mutations use the first ``n_mut`` rows of ``mut_rows``).
    iparams : ndarray of int64, shape (N_IPARAMS,)
        Nests, iteration budget (0 = none), PMX segment, Levy, ties, infeasible rule, fill node limit,
        abandon rule.
    fparams : ndarray of float64, shape (N_FPARAMS,)
        pa, p_pmx, p_mut, cumulative mask weights w1 and w1 + w2, Mantegna's sigma.
    rng : numpy.random.Generator
    n_it : int
    trace : ndarray of float64, shape (>= n_it, TRACE_WIDTH)
        One row per iteration done (written).

    Returns
    -------
    iterations : int
        Iterations done (rows of ``trace`` written).
    status : int
        RUNNING, SOLVED or BUDGET.

    Notes
    -----
    One iteration (the paper's Algorithm 8, one cuckoo), draws in this order:

    1. pick nest ``i``: ``int(u * nests)``;
    2. if ``i`` is not the best nest ``b``: ``u < p_pmx`` chooses PMX, else the sorting crossover,
       row by row over rows 0..N-1: PMX draws two cut points ``int(u * N)`` (the segment runs from
       the smaller to the larger, inclusive); the sorting crossover draws a parent per position
       (``u < w1``: best so far, ``u < w1 + w2``: best nest ``b``, else egg ``i``). A child row
       outside the domains is discarded (egg ``i``'s row kept) unless the rule is ACCEPT. Then
       ``u < p_mut`` mutates: one swap, or with Levy ``levy_swaps`` swaps (:func:`mutate_once`).
       If ``i`` is ``b``, the new egg is a copy of ``b``'s (no draw);
    3. pick ``j != i``: ``int(u * (nests - 1))``, skipping ``i``; the new egg replaces nest ``j``
       if its cost is lower (or equal, with TIES_REPLACE); the best nest becomes ``j`` if now
       strictly better;
    4. every nest but the best, in index order: ``u < pa`` abandons it, rebuilt by
       :func:`build_egg` (ABANDON_WORST: no draw, the ``floor(pa * nests)`` worst nests other than
       the best, highest cost first and ties to the lower index, are rebuilt in index order);
    5. the best nest becomes the first of the lowest cost if that is strictly below its own;
       ``best_grid`` copies it on a strict improvement. Then the trace row and the history.
    """
    eggs = state.eggs
    costs = state.costs
    best_grid = state.best_grid
    abandoned = state.abandoned
    counters = state.counters
    dom = tables.dom
    units = tables.units
    row_free = tables.row_free
    row_nfree = tables.row_nfree
    mut_rows = tables.mut_rows
    n_mut = tables.n_mut
    N = row_nfree.shape[0]
    C = eggs.shape[1]
    nests = iparams[P_NESTS]
    budget = iparams[P_BUDGET]
    segment = iparams[P_SEGMENT]
    levy = iparams[P_LEVY]
    ties = iparams[P_TIES]
    infeasible = iparams[P_INFEASIBLE]
    p_pmx = fparams[P_P_PMX]
    p_mut = fparams[P_P_MUT]
    cum1 = fparams[P_CUM1]
    cum2 = fparams[P_CUM2]
    sigma = fparams[P_LEVY_SIGMA]
    new = np.empty(C, dtype=np.int8)
    child = np.empty(N, dtype=np.int8)
    pos2 = np.empty(N + 1, dtype=np.int64)
    placed = np.empty(N + 1, dtype=np.bool_)
    x = np.empty((3, N), dtype=np.int64)
    pos = np.empty((3, N + 1), dtype=np.int64)
    mask = np.empty(N, dtype=np.int64)
    cand = np.empty((N, N), dtype=np.int64)
    ncand = np.empty(N, dtype=np.int64)
    idx = np.empty(N, dtype=np.int64)
    chosen = np.empty(N, dtype=np.int64)
    for s in range(n_it):
        b = counters[C_BEST]
        for k in range(nests):
            abandoned[k] = False
        i = int(rng.random() * nests)
        for c in range(C):
            new[c] = eggs[i, c]
        op = OP_NONE
        mutated = 0
        if i != b:
            if rng.random() < p_pmx:
                op = OP_PMX
                counters[C_PMX] += 1
                for r in range(N):
                    lo = int(rng.random() * N)
                    hi = int(rng.random() * N)
                    if hi < lo:
                        lo, hi = hi, lo
                    if segment == SEG_BEST:
                        pmx_row(
                            best_grid[r * N : (r + 1) * N], eggs[i, r * N : (r + 1) * N], lo, hi, child, pos2, placed
                        )
                    else:
                        pmx_row(
                            eggs[i, r * N : (r + 1) * N], best_grid[r * N : (r + 1) * N], lo, hi, child, pos2, placed
                        )
                    take_child_row(child, r, N, dom, infeasible, new, best_grid, counters)
            else:
                op = OP_SORTING
                counters[C_SORTING] += 1
                for r in range(N):
                    for t in range(N):
                        u = rng.random()
                        mask[t] = 0 if u < cum1 else (1 if u < cum2 else 2)
                    sorting_row(
                        best_grid[r * N : (r + 1) * N],
                        eggs[b, r * N : (r + 1) * N],
                        eggs[i, r * N : (r + 1) * N],
                        mask,
                        child,
                        x,
                        pos,
                    )
                    take_child_row(child, r, N, dom, infeasible, new, best_grid, counters)
            if rng.random() < p_mut:
                mutated = 1
                counters[C_MUTATIONS] += 1
                n_swaps = levy_swaps(sigma, N, rng) if levy else 1
                for _ in range(n_swaps):
                    counters[C_SWAPS] += mutate_once(new, N, row_free, row_nfree, mut_rows, n_mut, dom, rng)
            c_new = egg_cost(new, units, N)
            counters[C_EVALUATIONS] += 1
        else:
            c_new = costs[i]
        j = int(rng.random() * (nests - 1))
        if j >= i:
            j += 1
        replaced = -1
        if c_new < costs[j] or (ties == TIES_REPLACE and c_new == costs[j]):
            for c in range(C):
                eggs[j, c] = new[c]
            costs[j] = c_new
            replaced = j
            if c_new < costs[b]:
                b = j
        abandon_and_close(
            state, tables, iparams, fparams, rng, b, i, replaced, op, mutated, cand, ncand, idx, chosen, trace[s]
        )
        if counters[C_BEST_COST] == 0:
            return s + 1, SOLVED
        if budget > 0 and counters[C_ITERATION] >= budget:
            return s + 1, BUDGET
    return n_it, RUNNING
