"""Kernels of the genetic algorithm of Sato and Inoue: population, band crossover, box-swap mutation.

Paper: Sato and Inoue, "Solving Sudoku with genetic operations that preserve
building blocks" (CIG 2010; citation ``sato2010`` in
:mod:`sudoku_lab.citations`), the baseline of NB-COIN's Table II; the choices
the paper leaves open are fixed in docs/algorithms.md, "GA of Sato and Inoue".

An individual is a whole grid whose boxes are permutations (givens in place),
so the only defects are repeated digits in rows and columns. Its fitness is
the distinct-count of :func:`.scores.distinct_count` (``2*N*N`` when solved);
the kernels keep each individual's per-row and per-column distinct counts
too, which the crossover compares band by band.

Every random draw is ``rng.random()`` (a uniform double), taken in the fixed
order documented on each function, so that the pure-Python twins in
``tests/naive_ga.py`` replay a kernel draw for draw from the same seed.
"""

from __future__ import annotations

import numpy as np

from .common import jit
from .ga_layout import (  # noqa: F401
    C_BEST_COST,
    C_BEST_INDEX,
    C_COST,
    C_CROSSOVERS,
    C_MUTATIONS,
    N_COUNTERS,
    P_BUDGET,
    P_CROSSOVER,
    P_ELITES,
    P_LOCAL,
    P_MUTATION,
    P_TIES,
    P_TOURNAMENT,
    TIES_COIN,
    TIES_FIRST,
    TRACE_WIDTH,
    GANext,
    GAPlan,
    GAState,
)
from .scores import unit_missing
from .status import BUDGET, C_EVALUATIONS, C_ITERATION, RUNNING, SOLVED  # noqa: F401


@jit
def evaluate(ind, units, N, rsc, csc):
    """Distinct-count fitness of one grid, with its per-row and per-column counts.

    Parameters
    ----------
    ind : ndarray of int8, shape (C,)
    units : ndarray of int32, shape (3N, N)
    N : int
    rsc, csc : ndarray of int64, shape (N,)
        Distinct digits of each row and of each column (written).

    Returns
    -------
    int
        The sum of both, ``2*N*N`` iff every row and column is a permutation.
    """
    total = 0
    for u in range(N):
        r = N - unit_missing(ind, units, u, N)
        c = N - unit_missing(ind, units, N + u, N)
        rsc[u] = r
        csc[u] = c
        total += r + c
    return total


@jit
def random_individual(base, box_free, box_nfree, box_missing, out, rng):
    """A grid with the givens of ``base`` and each box's missing digits in a random order.

    Parameters
    ----------
    base : ndarray of int8, shape (C,)
    box_free : ndarray of int32, shape (N, N)
        Free cells of each box in reading order, padded with -1.
    box_nfree : ndarray of int32, shape (N,)
    box_missing : ndarray of int8, shape (N, N)
        Digits no given of the box holds, increasing, padded with 0.
    out : ndarray of int8, shape (C,)
        Written.
    rng : numpy.random.Generator
        Per box in order, a Fisher-Yates shuffle of its missing digits: one
        draw per position from the last down to the second,
        ``j = int(u * (i + 1))``; the shuffled digits go to the free cells in
        reading order.
    """
    out[:] = base
    N = box_free.shape[0]
    digits = np.empty(N, dtype=np.int8)
    for b in range(N):
        m = box_nfree[b]
        for i in range(m):
            digits[i] = box_missing[b, i]
        for i in range(m - 1, 0, -1):
            j = int(rng.random() * (i + 1))
            t = digits[i]
            digits[i] = digits[j]
            digits[j] = t
        for i in range(m):
            out[box_free[b, i]] = digits[i]


@jit
def init_population(pop, fit, rsc, csc, base, box_free, box_nfree, box_missing, units, rng):
    """Fill every row of ``pop`` with :func:`random_individual` (in order) and evaluate it."""
    N = box_free.shape[0]
    for q in range(pop.shape[0]):
        random_individual(base, box_free, box_nfree, box_missing, pop[q], rng)
        fit[q] = evaluate(pop[q], units, N, rsc[q], csc[q])


@jit
def start(state, base, units, rng):
    """The first population: :func:`init_population` on a :class:`GAState` (its ``pop``, ``fit``, ``rsc``, ``csc``).

    ``base`` (int8 (C,)) holds the givens, ``units`` (int32 (3N, N)) the geometry's units.
    """
    init_population(
        state.pop, state.fit, state.rsc, state.csc, base, state.box_free, state.box_nfree, state.box_missing, units, rng
    )


@jit
def tournament(fit, size, rng):
    """Index of a tournament's winner: ``size`` draws ``int(u * P)`` with replacement, the fittest wins.

    Ties go to the contestant drawn first. ``size`` draws.
    """
    P = fit.shape[0]
    w = int(rng.random() * P)
    for _t in range(1, size):
        j = int(rng.random() * P)
        if fit[j] > fit[w]:
            w = j
    return w


@jit
def _pick(sa, sb, ties, rng):
    """True to take parent a: the higher band score, a tie by ``ties`` (a coin draws once)."""
    if sa > sb:
        return True
    if sb > sa:
        return False
    if ties == TIES_COIN:
        return rng.random() < 0.5
    return True


@jit
def band_picks(sa_lines, sb_lines, n, ties, rng, picks):
    """Which parent each band comes from: ``picks[band]`` true for parent a (see :func:`crossover_rows`).

    Parameters
    ----------
    sa_lines, sb_lines : ndarray of int64, shape (N,)
        The parents' per-line distinct counts (rows for horizontal bands, columns for vertical ones).
    n : int
    ties : int
        TIES_COIN or TIES_FIRST.
    rng : numpy.random.Generator
        One draw per tied band (coin), bands in order.
    picks : ndarray of bool, shape (>= n,)
        Written.
    """
    for band in range(n):
        sa = 0
        sb = 0
        for r in range(band * n, band * n + n):
            sa += sa_lines[r]
            sb += sb_lines[r]
        picks[band] = _pick(sa, sb, ties, rng)


@jit
def copy_bands_rows(a, b, n, picks, child):
    """Child 1's copy: each horizontal band of boxes from parent a where ``picks`` says so, else from b."""
    N = n * n
    for band in range(n):
        src = a if picks[band] else b
        for r in range(band * n, band * n + n):
            for c in range(N):
                child[r * N + c] = src[r * N + c]


@jit
def copy_bands_cols(a, b, n, picks, child):
    """Child 2's copy: each vertical band of boxes from parent a where ``picks`` says so, else from b."""
    N = n * n
    for band in range(n):
        src = a if picks[band] else b
        for r in range(N):
            for c in range(band * n, band * n + n):
                child[r * N + c] = src[r * N + c]


@jit
def crossover_rows(a, b, ra, rb, n, child, ties, rng):
    """Child 1 of Sato and Inoue: each horizontal band of boxes from the parent whose band rows score more.

    Parameters
    ----------
    a, b : ndarray of int8, shape (C,)
        Parents.
    ra, rb : ndarray of int64, shape (N,)
        Their per-row distinct counts.
    n : int
        Box size (a band is n rows, n boxes).
    child : ndarray of int8, shape (C,)
        Written.
    ties : int
        TIES_COIN or TIES_FIRST.
    rng : numpy.random.Generator
        One draw per tied band (coin), bands top to bottom.

    Notes
    -----
    :func:`band_picks` then :func:`copy_bands_rows` (the generation calls them in two phases).
    """
    picks = np.empty(n, dtype=np.bool_)
    band_picks(ra, rb, n, ties, rng, picks)
    copy_bands_rows(a, b, n, picks, child)


@jit
def crossover_cols(a, b, ca, cb, n, child, ties, rng):
    """Child 2: each vertical band of boxes from the parent whose band columns score more (see crossover_rows)."""
    picks = np.empty(n, dtype=np.bool_)
    band_picks(ca, cb, n, ties, rng, picks)
    copy_bands_cols(a, b, n, picks, child)


@jit
def mutate(child, box_free, box_nfree, mut_boxes, n_mut, rng):
    """Swap two free cells of a random box that has at least two.

    Parameters
    ----------
    child : ndarray of int8, shape (C,)
        Changed in place.
    box_free, box_nfree : see :func:`random_individual`
    mut_boxes : ndarray of int32, shape (>= n_mut,)
        The boxes with at least two free cells.
    n_mut : int
        How many (no draw and no swap when 0).
    rng : numpy.random.Generator
        Three draws: the box ``int(u * n_mut)``, the first cell ``i = int(u * m)``,
        the second ``j = int(u * (m - 1))``, plus one if ``j >= i``.
    """
    ci, cj = mutation_cells(box_free, box_nfree, mut_boxes, n_mut, rng)
    if ci >= 0:
        t = child[ci]
        child[ci] = child[cj]
        child[cj] = t


@jit
def mutation_cells(box_free, box_nfree, mut_boxes, n_mut, rng):
    """The two cells :func:`mutate` swaps, ``(-1, -1)`` when no box has two free cells (its three draws)."""
    if n_mut == 0:
        return -1, -1
    b = mut_boxes[int(rng.random() * n_mut)]
    m = box_nfree[b]
    i = int(rng.random() * m)
    j = int(rng.random() * (m - 1))
    if j >= i:
        j += 1
    return np.int64(box_free[b, i]), np.int64(box_free[b, j])


@jit
def _in_conflict(ind, cell, N):
    """True if the digit of ``cell`` appears again in its row or its column."""
    r = cell // N
    c = cell % N
    d = ind[cell]
    for k in range(N):
        if k != c and ind[r * N + k] == d:
            return True
        if k != r and ind[k * N + c] == d:
            return True
    return False


@jit
def _lines_score(ind, units, N, ci, cj):
    """Distinct digits of the rows and columns through cells ``ci`` and ``cj`` (each line once)."""
    ri, rj, ki, kj = ci // N, cj // N, ci % N, cj % N
    s = N - unit_missing(ind, units, ri, N) + N - unit_missing(ind, units, N + ki, N)
    if rj != ri:
        s += N - unit_missing(ind, units, rj, N)
    if kj != ki:
        s += N - unit_missing(ind, units, N + kj, N)
    return s


@jit
def local_search(ind, box_free, box_nfree, units, N):
    """One first-improvement pass of swaps inside boxes; returns the swaps made (no draws).

    Boxes in order; in each, pairs ``i < j`` of free cells in reading order
    whose digits both repeat in their row or column (checked on the grid as
    it is then); a swap is kept when it raises the distinct count of the
    rows and columns through the two cells, so the fitness rises by as much.
    Ours: the paper's local search is not in our copy (docs/algorithms.md).
    """
    swaps = 0
    for b in range(box_free.shape[0]):
        m = box_nfree[b]
        for i in range(m):
            ci = box_free[b, i]
            for j in range(i + 1, m):
                cj = box_free[b, j]
                if not (_in_conflict(ind, ci, N) and _in_conflict(ind, cj, N)):
                    continue
                before = _lines_score(ind, units, N, ci, cj)
                t = ind[ci]
                ind[ci] = ind[cj]
                ind[cj] = t
                if _lines_score(ind, units, N, ci, cj) > before:
                    swaps += 1
                else:
                    ind[cj] = ind[ci]
                    ind[ci] = t
    return swaps


@jit
def elites_of(fit, E, out):
    """The ``E`` fittest indices, best first, ties to the lower index (no draws)."""
    P = fit.shape[0]
    taken = np.zeros(P, dtype=np.bool_)
    for e in range(E):
        best = -1
        for q in range(P):
            if not taken[q] and (best < 0 or fit[q] > fit[best]):
                best = q
        taken[best] = True
        out[e] = best


@jit
def select_parents(fit, rsc, csc, n, E, P2, T, ties, pc, pm, box_free, box_nfree, mut_boxes, n_mut, plan, rng):
    """Every draw of a generation, in the generation's order: the parents, the crossover and mutation coins.

    Parameters
    ----------
    fit, rsc, csc : the current population's fitness and per-row and per-column counts
    n : int
    E, P2 : int
        Elites, and the size of the next population: children fill slots ``E .. P2 - 1`` in pairs.
    T, ties, pc, pm : tournament size, tie rule, crossover and mutation probabilities
    box_free, box_nfree, mut_boxes, n_mut : see :func:`mutate`
    plan : GAPlan
        Written, pair ``p`` (children ``s, s + 1``, ``s = E + 2p``): ``parents[p]``, ``crossed[p]``,
        ``picks[p, 0]`` (child 1's bands by rows) and ``picks[p, 1]`` (child 2's by columns) when
        crossed; per child slot ``s``: ``mutated[s]`` and ``swaps[s]`` (the cells :func:`mutate` swaps).
    rng : numpy.random.Generator
        Per pair: :func:`tournament` for parent a, then for parent b, one draw ``u < pc``; if
        crossing, :func:`band_picks` for child 1 then (when a second slot is left) child 2; then per
        child placed, one draw ``u < pm`` and, if mutating, :func:`mutation_cells`'s draws.

    Returns
    -------
    int
        Pairs planned (a last single slot is a pair with one child).

    Notes
    -----
    The draws are the whole generation's, taken here in the order the paper's loop takes them pair
    by pair; :func:`cross_pairs` and :func:`mutate_children` then draw nothing. So the phases
    "select", "cross" and "mutate" each do their own work on the whole population with the same
    random stream as one pass pair by pair.
    """
    s = E
    p = 0
    while s < P2:
        two = s + 1 < P2
        a = tournament(fit, T, rng)
        b = tournament(fit, T, rng)
        plan.parents[p, 0] = a
        plan.parents[p, 1] = b
        cross = rng.random() < pc
        plan.crossed[p] = cross
        if cross:
            band_picks(rsc[a], rsc[b], n, ties, rng, plan.picks[p, 0])
            if two:
                band_picks(csc[a], csc[b], n, ties, rng, plan.picks[p, 1])
        k = 2 if two else 1
        for i in range(k):
            m = rng.random() < pm
            plan.mutated[s + i] = m
            plan.swaps[s + i, 0] = -1
            plan.swaps[s + i, 1] = -1
            if m:
                ci, cj = mutation_cells(box_free, box_nfree, mut_boxes, n_mut, rng)
                plan.swaps[s + i, 0] = ci
                plan.swaps[s + i, 1] = cj
        s += k
        p += 1
    return p


@jit
def cross_pairs(pop, out, n, E, plan):
    """The children of :func:`select_parents`' pairs into ``out[E:]``: band crossover or copies; pairs crossed.

    A crossed pair's child 1 takes its bands by rows (:func:`copy_bands_rows`), child 2 by columns
    (:func:`copy_bands_cols`); an uncrossed pair's children copy parents a and b. No draws.
    """
    P2 = out.shape[0]
    crossed = 0
    s = E
    p = 0
    while s < P2:
        two = s + 1 < P2
        a = plan.parents[p, 0]
        b = plan.parents[p, 1]
        if plan.crossed[p]:
            crossed += 1
            copy_bands_rows(pop[a], pop[b], n, plan.picks[p, 0], out[s])
            if two:
                copy_bands_cols(pop[a], pop[b], n, plan.picks[p, 1], out[s + 1])
        else:
            out[s] = pop[a]
            if two:
                out[s + 1] = pop[b]
        s += 2 if two else 1
        p += 1
    return crossed


@jit
def mutate_children(out, ofit, orsc, ocsc, E, plan, box_free, box_nfree, units, n, ls):
    """Children ``E ..``: the planned swap, then the local search if ``ls``, then evaluated; children mutated.

    A child whose mutation coin came up counts as mutated even when no box can swap. No draws.
    """
    N = n * n
    mutated = 0
    for s in range(E, out.shape[0]):
        if plan.mutated[s]:
            mutated += 1
            ci = plan.swaps[s, 0]
            if ci >= 0:
                cj = plan.swaps[s, 1]
                t = out[s, ci]
                out[s, ci] = out[s, cj]
                out[s, cj] = t
        if ls:
            local_search(out[s], box_free, box_nfree, units, N)
        ofit[s] = evaluate(out[s], units, N, orsc[s], ocsc[s])
    return mutated


@jit
def keep_elites(pop, fit, rsc, csc, out, ofit, orsc, ocsc, E):
    """Slots ``0 .. E - 1`` of the next population: the ``E`` fittest of ``pop`` (:func:`elites_of`), as they are."""
    elite = np.empty(max(E, 1), dtype=np.int64)
    elites_of(fit, E, elite)
    for e in range(E):
        q = elite[e]
        out[e] = pop[q]
        ofit[e] = fit[q]
        orsc[e] = rsc[q]
        ocsc[e] = csc[q]


@jit
def generation(
    pop,
    fit,
    rsc,
    csc,
    out,
    ofit,
    orsc,
    ocsc,
    plan,
    n,
    box_free,
    box_nfree,
    mut_boxes,
    n_mut,
    units,
    iparams,
    fparams,
    counters,
    rng,
):
    """One generation: elites, then children by tournament, band crossover and mutation, all evaluated.

    Parameters
    ----------
    pop : ndarray of int8, shape (P, C)
        Current population, with its fitness ``fit`` (P,) and per-row and
        per-column counts ``rsc``, ``csc`` (P, N).
    out, ofit, orsc, ocsc : same, with P' rows
        The next population (written); P' may differ from P (a live change of
        the population size).
    plan : GAPlan
        Scratch with at least P' rows (:func:`select_parents`).
    n : int
    box_free, box_nfree, mut_boxes, n_mut : see :func:`mutate`
    units : ndarray of int32, shape (3N, N)
    iparams : ndarray of int64
        Tournament size, elites, tie rule, budget, local search (0 or 1).
    fparams : ndarray of float64
        Crossover and mutation probabilities.
    counters : ndarray of int64
        ``C_CROSSOVERS``, ``C_MUTATIONS`` and ``C_EVALUATIONS`` updated.
    rng : numpy.random.Generator

    Notes
    -----
    Slots ``0..E-1`` of ``out`` get the E fittest of ``pop`` (:func:`keep_elites`).
    The other slots are filled in pairs, in order; per pair the draws are:
    tournament for parent a, tournament for parent b, one draw ``u < crossover``
    deciding crossover; if crossing, child 1 by rows and, when a second slot is
    left, child 2 by columns (a coin per tied band); else copies of a and b. Then
    for each child placed: one draw ``u < mutation`` and, if mutating,
    :func:`mutate`'s draws; then, with the local search on, :func:`local_search`
    (no draws). A last single slot takes child 1 only (no draws for a child 2).
    The draws are taken by :func:`select_parents` in that order; the work is
    done by :func:`cross_pairs`, :func:`mutate_children` (which evaluates the
    children) and :func:`keep_elites`, the phases' building blocks.
    """
    P2 = out.shape[0]
    E = min(iparams[P_ELITES], P2, pop.shape[0])
    select_parents(
        fit,
        rsc,
        csc,
        n,
        E,
        P2,
        iparams[P_TOURNAMENT],
        iparams[P_TIES],
        fparams[P_CROSSOVER],
        fparams[P_MUTATION],
        box_free,
        box_nfree,
        mut_boxes,
        n_mut,
        plan,
        rng,
    )
    crossed = cross_pairs(pop, out, n, E, plan)
    mutated = mutate_children(out, ofit, orsc, ocsc, E, plan, box_free, box_nfree, units, n, iparams[P_LOCAL])
    keep_elites(pop, fit, rsc, csc, out, ofit, orsc, ocsc, E)
    counters[C_CROSSOVERS] = crossed
    counters[C_MUTATIONS] = mutated
    counters[C_EVALUATIONS] += P2 - E


@jit
def new_plan(P2, n):
    """A :class:`GAPlan` for a next population of ``P2`` (contents written by :func:`select_parents`)."""
    return GAPlan(
        np.zeros((P2, 2), dtype=np.int64),
        np.zeros(P2, dtype=np.bool_),
        np.zeros((P2, 2, n), dtype=np.bool_),
        np.zeros(P2, dtype=np.bool_),
        np.zeros((P2, 2), dtype=np.int64),
    )


@jit
def close_generation(pop, fit, rsc, csc, out, ofit, orsc, ocsc, grid, best_grid, counters, N, trace_row):
    """The end of a generation: ``out`` becomes the population (same size), the best and the trace row.

    Returns
    -------
    int
        The best fitness of the new population.
    """
    full = 2 * N * N
    if out.shape[0] == pop.shape[0]:
        pop[:] = out
        fit[:] = ofit
        rsc[:] = orsc
        csc[:] = ocsc
    best, fb, mean, worst = population_stats(ofit)
    counters[C_ITERATION] += 1
    counters[C_BEST_INDEX] = best
    grid[:] = out[best]
    counters[C_COST] = full - fb
    if full - fb < counters[C_BEST_COST]:
        counters[C_BEST_COST] = full - fb
        best_grid[:] = out[best]
    trace_row[0] = counters[C_ITERATION]
    trace_row[1] = full - fb
    trace_row[2] = counters[C_BEST_COST]
    trace_row[3] = fb
    trace_row[4] = mean
    trace_row[5] = worst
    return fb


@jit
def population_stats(fit):
    """Index of the best (first on ties), best, mean and worst fitness."""
    best = 0
    worst = fit[0]
    total = 0.0
    for q in range(fit.shape[0]):
        if fit[q] > fit[best]:
            best = q
        if fit[q] < worst:
            worst = fit[q]
        total += fit[q]
    return best, fit[best], total / fit.shape[0], worst


@jit
def run(state, nxt, units, n, n_mut, iparams, fparams, rng, n_gens, trace):
    """Advance the GA by up to ``n_gens`` generations.

    Parameters
    ----------
    state : GAState
        Updated in place: the population ``pop``, ``fit``, ``rsc``, ``csc`` (replaced each generation),
        ``grid`` (the best individual of the latest generation), ``best_grid`` (the best since reset,
        written when improved) and ``counters``. Read: the box tables (see :func:`mutate`).
    nxt : GANext
        Scratch for the next population, the same shapes as the population... unless ``n_gens == 1``
        (a population size change: then the caller takes ``nxt`` as the new population and nothing is
        copied back).
    units : ndarray of int32, shape (3N, N)
    n : int
        Box size.
    n_mut : int
        How many boxes a mutation can use (see :func:`mutate`).
    iparams, fparams : see :func:`generation`
    rng : numpy.random.Generator
    n_gens : int
    trace : ndarray of float64, shape (>= n_gens, TRACE_WIDTH)

    Returns
    -------
    gens : int
        Generations done (rows of ``trace`` written).
    status : int
        RUNNING, SOLVED or BUDGET.
    """
    pop = state.pop
    fit = state.fit
    rsc = state.rsc
    csc = state.csc
    out = nxt.out
    ofit = nxt.ofit
    orsc = nxt.orsc
    ocsc = nxt.ocsc
    box_free = state.box_free
    box_nfree = state.box_nfree
    mut_boxes = state.mut_boxes
    grid = state.grid
    best_grid = state.best_grid
    counters = state.counters
    N = n * n
    full = 2 * N * N
    budget = iparams[P_BUDGET]
    plan = new_plan(out.shape[0], n)
    for g in range(n_gens):
        if counters[C_ITERATION] >= budget:
            return g, BUDGET
        generation(
            pop,
            fit,
            rsc,
            csc,
            out,
            ofit,
            orsc,
            ocsc,
            plan,
            n,
            box_free,
            box_nfree,
            mut_boxes,
            n_mut,
            units,
            iparams,
            fparams,
            counters,
            rng,
        )
        fb = close_generation(pop, fit, rsc, csc, out, ofit, orsc, ocsc, grid, best_grid, counters, N, trace[g])
        if fb == full:
            return g + 1, SOLVED
        if counters[C_ITERATION] >= budget:
            return g + 1, BUDGET
    return n_gens, RUNNING
