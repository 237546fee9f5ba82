"""The layout of the NB-COIN kernel (:mod:`sudoku_lab._kernels.nbcoin`): pure Python, no numba.

The counters, parameter slots, event and trace columns, codes and the ``State`` tuple the kernel and its
solver share. The solver reads them when its class is created and when ``--help`` lists its parameters,
before any kernel is needed; the kernel module imports every name from here, so ``K.C_COST`` and
``L.C_COST`` are the same number (numba freezes them as constants when it compiles).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# Update modes (the Python class maps names to these).
UPDATE_FREQUENCIES = 0  #: counts divided by the size of the good (bad) set: ours, see docs/algorithms.md
UPDATE_COUNTS = 1  #: raw counts, the paper's formulas read literally

# How the upper bound holds after renormalisation.
BOUND_RENORMALISE = 0  #: clip to [0, upper], then divide by the sum (docs/algorithms.md; a lone entry returns to 1)
BOUND_CAP = 1  #: then also cap every entry at upper, spreading the excess evenly over the other allowed digits

# Layout of the int64 counters array (C_ITERATION = 0 and C_EVALUATIONS = 1 from .status).
C_BEST_FITNESS = 2  #: fitness of ``best_grid`` (best individual since reset)
C_GEN_BEST = 3  #: best fitness of the latest generation
C_N_SELECTED = 4  #: valid entries of ``good`` and ``bad`` (0 before the first update or after a success)
C_POP = 5  #: individuals of the latest generation (valid rows of ``pop`` and ``fitness``)
N_COUNTERS = 6

# Layout of the int64 and float64 parameter arrays.
P_POPULATION, P_SELECTED, P_BUDGET, P_UPDATE, P_BOUND = 0, 1, 2, 3, 4
P_K, P_UPPER = 0, 1

# Trace row per generation: iteration, cost of the generation's best (2N^2 - best fitness),
# best cost since reset, best, mean and worst fitness of the generation.
TRACE_WIDTH = 6


class NBCoinState(NamedTuple):
    """The arrays of an NB-COIN run: one argument of :func:`run`, and a keyframe."""

    M: np.ndarray  #: float64 (N, N, N): the box models
    allowed: np.ndarray  #: bool (N, N, N): where M may be non-zero
    base: np.ndarray  #: int8 (C,): the givens
    best_grid: np.ndarray  #: int8 (C,)
    delta: np.ndarray  #: float64 (N, N, N): the latest update's change
    counters: np.ndarray  #: int64 (N_COUNTERS,)
    pop: np.ndarray  #: int8 (P, C): the latest generation
    fitness: np.ndarray  #: int64 (P,)
    good: np.ndarray  #: int64 (G,): rewarded individuals
    bad: np.ndarray  #: int64 (G,): punished individuals
    box_cells: np.ndarray  #: box tables, see sample_scored
    box_free: np.ndarray
    box_nfree: np.ndarray
    box_avail: np.ndarray
