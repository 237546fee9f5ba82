"""The layout of the hill climbing kernel (:mod:`sudoku_lab._kernels.hill_climb`): pure Python, no numba.

The counters, parameter slots, event and trace columns, codes and the ``State`` tuple the kernel and its
solver share. The solver reads them when its class is created and when ``--help`` lists its parameters,
before any kernel is needed; the kernel module imports every name from here, so ``K.C_COST`` and
``L.C_COST`` are the same number (numba freezes them as constants when it compiles).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# Event log kinds (column E_KIND of the event log).
EV_JUMP = 1  #: plateau escape: continued from a queued state
EV_RESTART = 2  #: random restart from a new initial state
# Why a restart happened (column E_REASON).
WHY_PLATEAU = 0  #: ``plateau`` stuck states in a row shared one score
WHY_EMPTY = 1  #: stuck with nothing queued

# Event log columns.
E_ITERATION, E_KIND, E_REASON, E_RUN_JUMPS, E_RUN_BEST, E_QUEUE, E_INIT_F1, E_INIT_F2 = range(8)
EVENT_WIDTH = 8

# Layout of the int64 counters array (C_ITERATION = 0 and C_EVALUATIONS = 1 from .status).
C_COST = 2  #: missing-symbol cost of ``grid``
C_BEST_COST = 3  #: cost of ``best_grid``
C_F1 = 4  #: f1 of ``grid``
C_F2 = 5  #: f2 of ``grid``
C_QLEN = 6  #: states in the queue
C_QSEQ = 7  #: next queue sequence number (insertion order)
C_STUCK_COUNT = 8  #: stuck states since the run's best score (C_STUCK_F1, C_STUCK_F2) was reached
C_STUCK_F1 = 9  #: f1 and f2 of the run's best-scoring state
C_STUCK_F2 = 10
C_SWAP_A = 11  #: cells of the last move's swap (-1 after a jump or a restart)
C_SWAP_B = 12
C_RUN = 13  #: restarts since reset (the current run's index)
C_RUN_START = 14  #: iteration at which the current run started
C_RUN_JUMPS = 15  #: plateau jumps of the current run
C_RUN_BEST = 16  #: lowest cost of the current run
C_INIT_F1 = 17  #: f1 and f2 of the current run's initial state
C_INIT_F2 = 18
C_JUMPS = 19  #: plateau jumps since reset
N_COUNTERS = 20

# Layout of the int64 and float64 parameter arrays.
P_GREEDY, P_POST_SWAP, P_RANDOM_ORDER, P_PLATEAU, P_BUDGET, P_RANDOM_TIES = range(6)
N_IPARAMS = 6
P_W1, P_W2 = 0, 1

# Trace row written per move: iteration, cost, best cost, f, f1, f2, queue size.
TRACE_WIDTH = 7


class HillClimbState(NamedTuple):
    """The arrays of a hill-climbing search: one argument of :func:`start` and :func:`run`, and a keyframe."""

    base: np.ndarray  #: int8 (C,): the givens
    grid: np.ndarray  #: int8 (C,): the current state
    best_grid: np.ndarray  #: int8 (C,)
    row_cnt: np.ndarray  #: int32 (N, N): digit counts per row
    col_cnt: np.ndarray  #: int32 (N, N): digit counts per column
    q_grid: np.ndarray  #: int8 (queue_capacity, C): the plateau queue's states
    q_f1: np.ndarray  #: int64 (queue_capacity,)
    q_f2: np.ndarray  #: int64 (queue_capacity,)
    q_seq: np.ndarray  #: int64 (queue_capacity,): insertion order
    counters: np.ndarray  #: int64 (N_COUNTERS,)
    box_free: np.ndarray  #: int32 (N, N): free cells of each box, padded with -1 (see initial_state)
    box_nfree: np.ndarray  #: int32 (N,)
    box_missing: np.ndarray  #: int32 (N, N): digits missing from each box's givens, padded with 0
    GR: np.ndarray  #: int32 (N, N): GR[r, d-1] = 1 if a given of row r holds d
    GC: np.ndarray  #: int32 (N, N): the same per column
