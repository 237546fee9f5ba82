"""The layout of the RESEDA kernel (:mod:`sudoku_lab._kernels.reseda`): pure Python, no numba.

The counters, parameter slots, event and trace columns, codes and the ``State`` tuple the kernel and its
solver share. The solver reads them when its class is created and when ``--help`` lists its parameters,
before any kernel is needed; the kernel module imports every name from here, so ``K.C_COST`` and
``L.C_COST`` are the same number (numba freezes them as constants when it compiles).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .status import STOPPED

CONVERGED = STOPPED  #: rho(n) > beta: the run failed (run_steps's own code)

# Sampling and selection modes (the Python class maps names to these).
SAMPLING_INDEPENDENT = 0
SAMPLING_BLOCKS = 1
SELECT_SORT = 0
SELECT_GROUPS = 1

# Layout of the int64 counters array (C_ITERATION = 0 and C_EVALUATIONS = 1 from .status).
C_RUN_STEP = 2  #: steps of the current run
C_COST = 3  #: cost of ``grid`` (best sample of the latest step)
C_BEST_COST = 4  #: cost of ``best_grid`` (best sample since reset)
C_N_KEPT = 5  #: how many entries of ``kept`` are valid (0 after a success)
N_COUNTERS = 6

# Layout of the int64 and float64 parameter arrays.
P_Q, P_Q1, P_SAMPLING, P_SELECTION, P_RUN_BUDGET = 0, 1, 2, 3, 4
P_ALPHA, P_BETA = 0, 1

# Trace row written per step: iteration, best cost of the step, mean cost,
# rho after the update, mean normalised entropy, best cost since reset.
TRACE_WIDTH = 6


class ResedaState(NamedTuple):
    """The arrays of a RESEDA run: one argument of :func:`run`, and a keyframe (with the run bookkeeping)."""

    p: np.ndarray  #: float64 (C, N): the model
    base: np.ndarray  #: int8 (C,): the run's fixed cells (givens, prefilled, restart zone)
    grid: np.ndarray  #: int8 (C,): best sample of the latest step
    best_grid: np.ndarray  #: int8 (C,)
    counters: np.ndarray  #: int64 (N_COUNTERS,)
    samples: np.ndarray  #: int8 (Q, C)
    costs: np.ndarray  #: int64 (Q,)
    kept: np.ndarray  #: int64 (Q1,): the selected samples
    free_cells: np.ndarray  #: int32: the run's free cells
    box_free: np.ndarray  #: int32 (N, N): free cells per box, padded with -1
    box_nfree: np.ndarray  #: int32 (N,)
    box_avail: np.ndarray  #: uint32 (N,): digits no fixed cell of the box holds
