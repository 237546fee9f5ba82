"""The layout of the genetic algorithm kernel (:mod:`sudoku_lab._kernels.ga`): pure Python, no numba.

The counters, parameter slots, event and trace columns, codes and the ``State`` tuple the kernel and its
solver share. The solver reads them when its class is created and when ``--help`` lists its parameters,
before any kernel is needed; the kernel module imports every name from here, so ``K.C_COST`` and
``L.C_COST`` are the same number (numba freezes them as constants when it compiles).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

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


class GAPlan(NamedTuple):
    """A generation's draws (:func:`select_parents`): scratch of :func:`run`, and what the phases pass on."""

    parents: np.ndarray  #: int64 (P', 2): parents a and b of each pair
    crossed: np.ndarray  #: bool (P',): the pair is crossed
    picks: np.ndarray  #: bool (P', 2, n): per pair, child 1's and child 2's bands taken from parent a
    mutated: np.ndarray  #: bool (P',): per child slot, its mutation coin came up
    swaps: np.ndarray  #: int64 (P', 2): per child slot, the two cells its mutation swaps (-1: none)
