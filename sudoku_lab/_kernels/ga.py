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

from typing import NamedTuple

import numpy as np

from .common import jit
from .scores import unit_missing
from .status import BUDGET, C_EVALUATIONS, C_ITERATION, RUNNING, SOLVED  # noqa: F401

# Tie rules of the band crossover.
TIES_COIN = 0  #: equal band scores: a fair coin (one draw) picks the parent
TIES_FIRST = 1  #: equal band scores: the first parent, no draw

# Layout of the int64 counters array (C_ITERATION = 0 and C_EVALUATIONS = 1 from .status).
C_COST = 2  #: 2*N*N - best fitness of the current population
C_BEST_COST = 3  #: lowest cost since reset
C_CROSSOVERS = 4  #: pairs crossed in the last generation
C_MUTATIONS = 5  #: children mutated in the last generation
C_BEST_INDEX = 6  #: index of the current population's best individual (first on ties)
N_COUNTERS = 7

# Layout of the int64 and float64 parameter arrays.
P_TOURNAMENT, P_ELITES, P_TIES, P_BUDGET, P_LOCAL = 0, 1, 2, 3, 4
P_CROSSOVER, P_MUTATION = 0, 1

# Trace row written per generation: iteration, cost, best cost since reset,
# best, mean and worst fitness of the new population.
TRACE_WIDTH = 6


class GAState(NamedTuple):
    """The arrays of a GA run: one argument of :func:`start` and :func:`run`, and a keyframe."""

    counters: np.ndarray  #: int64 (N_COUNTERS,)
    pop: np.ndarray  #: int8 (P, C): the population
    fit: np.ndarray  #: int64 (P,): its fitness
    rsc: np.ndarray  #: int64 (P, N): missing digits per row
    csc: np.ndarray  #: int64 (P, N): missing digits per column
    grid: np.ndarray  #: int8 (C,): the population's best
    best_grid: np.ndarray  #: int8 (C,): the best since reset
    box_free: np.ndarray  #: int32 (N, N): free cells per box, padded with -1
    box_nfree: np.ndarray  #: int32 (N,)
    box_missing: np.ndarray  #: int8 (N, N): digits no given of the box holds, padded with 0
    mut_boxes: np.ndarray  #: int32 (N,): boxes with two free cells or more first, padded with -1


class GANext(NamedTuple):
    """The buffers :func:`run` breeds the next population into (a keyframe does not hold them)."""

    out: np.ndarray  #: int8 (P', C)
    ofit: np.ndarray  #: int64 (P',)
    orsc: np.ndarray  #: int64 (P', N)
    ocsc: np.ndarray  #: int64 (P', N)


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
    """
    N = n * n
    for band in range(n):
        sa = 0
        sb = 0
        for r in range(band * n, band * n + n):
            sa += ra[r]
            sb += rb[r]
        src = a if _pick(sa, sb, ties, rng) else b
        for r in range(band * n, band * n + n):
            for c in range(N):
                child[r * N + c] = src[r * N + c]


@jit
def crossover_cols(a, b, ca, cb, n, child, ties, rng):
    """Child 2: each vertical band of boxes from the parent whose band columns score more (see crossover_rows)."""
    N = n * n
    for band in range(n):
        sa = 0
        sb = 0
        for c in range(band * n, band * n + n):
            sa += ca[c]
            sb += cb[c]
        src = a if _pick(sa, sb, ties, rng) else b
        for r in range(N):
            for c in range(band * n, band * n + n):
                child[r * N + c] = src[r * N + c]


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
    if n_mut == 0:
        return
    b = mut_boxes[int(rng.random() * n_mut)]
    m = box_nfree[b]
    i = int(rng.random() * m)
    j = int(rng.random() * (m - 1))
    if j >= i:
        j += 1
    ci = box_free[b, i]
    cj = box_free[b, j]
    t = child[ci]
    child[ci] = child[cj]
    child[cj] = t


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
def generation(
    pop,
    fit,
    rsc,
    csc,
    out,
    ofit,
    orsc,
    ocsc,
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
    Slots ``0..E-1`` of ``out`` get the E fittest of ``pop`` (:func:`elites_of`,
    not re-evaluated). The other slots are filled in pairs, in order; per pair
    the draws are: tournament for parent a, tournament for parent b, one
    draw ``u < crossover`` deciding crossover; if crossing, child 1 by rows
    (:func:`crossover_rows`) and, when a second slot is left, child 2 by
    columns; else copies of a and b. Then for each child placed: one draw
    ``u < mutation`` and, if mutating, :func:`mutate`'s draws; then, with
    the local search on, :func:`local_search` (no draws). A last single
    slot takes child 1 only (no draws for a child 2). Children are evaluated
    after the pair.
    """
    N = n * n
    P2 = out.shape[0]
    T = iparams[P_TOURNAMENT]
    E = min(iparams[P_ELITES], P2, pop.shape[0])
    ties = iparams[P_TIES]
    pc = fparams[P_CROSSOVER]
    pm = fparams[P_MUTATION]
    ls = iparams[P_LOCAL]
    elite = np.empty(max(E, 1), dtype=np.int64)
    elites_of(fit, E, elite)
    for e in range(E):
        q = elite[e]
        out[e] = pop[q]
        ofit[e] = fit[q]
        orsc[e] = rsc[q]
        ocsc[e] = csc[q]
    crossed = 0
    mutated = 0
    s = E
    while s < P2:
        two = s + 1 < P2
        a = tournament(fit, T, rng)
        b = tournament(fit, T, rng)
        if rng.random() < pc:
            crossed += 1
            crossover_rows(pop[a], pop[b], rsc[a], rsc[b], n, out[s], ties, rng)
            if two:
                crossover_cols(pop[a], pop[b], csc[a], csc[b], n, out[s + 1], ties, rng)
        else:
            out[s] = pop[a]
            if two:
                out[s + 1] = pop[b]
        k = 2 if two else 1
        for i in range(k):
            if rng.random() < pm:
                mutated += 1
                mutate(out[s + i], box_free, box_nfree, mut_boxes, n_mut, rng)
            if ls:
                local_search(out[s + i], box_free, box_nfree, units, N)
            ofit[s + i] = evaluate(out[s + i], units, N, orsc[s + i], ocsc[s + i])
        s += k
    counters[C_CROSSOVERS] = crossed
    counters[C_MUTATIONS] = mutated
    counters[C_EVALUATIONS] += P2 - E


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
    same = out.shape[0] == pop.shape[0]
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
        if same:
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
        trace[g, 0] = counters[C_ITERATION]
        trace[g, 1] = full - fb
        trace[g, 2] = counters[C_BEST_COST]
        trace[g, 3] = fb
        trace[g, 4] = mean
        trace[g, 5] = worst
        if fb == full:
            return g + 1, SOLVED
        if counters[C_ITERATION] >= budget:
            return g + 1, BUDGET
    return n_gens, RUNNING
