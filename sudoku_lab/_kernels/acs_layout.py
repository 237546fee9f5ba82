"""The layout of the ant colony system kernel (:mod:`sudoku_lab._kernels.acs`): pure Python, no numba.

The counters, parameter slots, event and trace columns, codes and the ``State`` tuple the kernel and its
solver share. The solver reads them when its class is created and when ``--help`` lists its parameters,
before any kernel is needed; the kernel module imports every name from here, so ``K.C_COST`` and
``L.C_COST`` are the same number (numba freezes them as constants when it compiles).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# Layout of the int64 counters array (C_ITERATION = 0 and C_EVALUATIONS = 1 from .status).
C_COST = 2  #: empty cells of ``grid``: the best-so-far ant that deposits (cells it failed to fill)
C_BEST_COST = 3  #: empty cells of ``best_grid``, the fewest since reset
C_ITER_COST = 4  #: failed cells of the latest iteration's best ant
C_ANTS = 5  #: ants of the latest iteration (valid rows of ``cand``; 0 before the first)
C_ITER_BEST = 6  #: index of the latest iteration's best ant
C_NEW_BEST = 7  #: 1 when the latest iteration's best ant became the best-so-far
N_COUNTERS = 8

# Layout of the float64 state array ``fstate``.
F_BEST_PHER = 0  #: the best-so-far's deposit C / failed cells, evaporated by (1 - evap) after each iteration
F_DEPOSIT = 1  #: the deposit the latest global update used (before the evaporation)
N_FSTATE = 2

# Layout of the int64 and float64 parameter arrays.
P_ANTS, P_BUDGET = 0, 1
N_IPARAMS = 2
P_Q0, P_RHO, P_EVAP, P_TAU0, P_XI = 0, 1, 2, 3, 4
N_FPARAMS = 5

# What a propagation log entry says about a cell.
LOG_SINGLE = 0  #: fixed: one candidate left (naked single)
LOG_HIDDEN = 1  #: fixed: the only place of a digit in a row, column or box (hidden single)
LOG_FAILED = 2  #: failed: no candidate left

# Trace row per iteration: iteration, cost (grid's empty cells), failed cells of the iteration's best
# ant, mean failed cells over the ants, best cost since reset, the best-so-far's deposit after BVE.
TRACE_WIDTH = 6


class AcsState(NamedTuple):
    """The arrays of an ACS run: one argument of :func:`run`, and a keyframe."""

    pher: np.ndarray  #: float64 (C, N): pheromone per cell and digit (digit 1 in column 0)
    base: np.ndarray  #: int64 (C,): the puzzle's candidate masks after constraint propagation
    cand: np.ndarray  #: int64 (A, C): each ant's board (the latest iteration's, or the current one)
    start: np.ndarray  #: int64 (A,): each ant's start cell in the current or latest iteration
    best_cand: np.ndarray  #: int64 (C,): the best-so-far ant's board (the global update's source)
    grid: np.ndarray  #: int8 (C,): ``best_cand`` as digits, 0 where the ant failed
    best_grid: np.ndarray  #: int8 (C,): the board with the fewest failed cells since reset
    counters: np.ndarray  #: int64 (N_COUNTERS,)
    fstate: np.ndarray  #: float64 (N_FSTATE,)


class AcsTables(NamedTuple):
    """Geometry and scratch the kernels read or write before reading (not part of a keyframe)."""

    peers: np.ndarray  #: int32 (C, P)
    units: np.ndarray  #: int32 (3N, N)
    cell_units: np.ndarray  #: int32 (C, 3)
    queue: np.ndarray  #: int64 (C,): cells fixed and waiting to be propagated
    dflag: np.ndarray  #: bool (3N,): units waiting for the hidden-single check
    dstack: np.ndarray  #: int64 (3N,): those units, a stack
    logc: np.ndarray  #: int64 (2C,): cells the latest propagation fixed or failed, in order
    logk: np.ndarray  #: int64 (2C,): LOG_SINGLE, LOG_HIDDEN or LOG_FAILED
