"""The layout of the cuckoo search kernel (:mod:`sudoku_lab._kernels.cuckoo`): pure Python, no numba.

The counters, parameter slots, event and trace columns, codes and the ``State`` tuple the kernel and its
solver share. The solver reads them when its class is created and when ``--help`` lists its parameters,
before any kernel is needed; the kernel module imports every name from here, so ``K.C_COST`` and
``L.C_COST`` are the same number (numba freezes them as constants when it compiles).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# Operator of the latest iteration (counters[C_OPERATOR]).
OP_BEFORE = -1  #: no iteration yet
OP_NONE = 0  #: the best nest was picked: no operator
OP_PMX = 1
OP_SORTING = 2

# Choice parameters as integers (the Python class maps names to these).
SEG_BEST = 0  #: PMX: the best egg gives the segment, the current egg the rest
SEG_CURRENT = 1  #: PMX: the current egg gives the segment, the best egg the rest
TIES_KEEP = 0  #: the new egg replaces nest j only when strictly better
TIES_REPLACE = 1  #: ... or as good
INFEASIBLE_DISCARD = 0  #: a crossover child row outside the domains is dropped (the current row is kept)
INFEASIBLE_ACCEPT = 1  #: it is kept anyway
INFEASIBLE_BEST = 2  #: it is dropped and the best egg's row taken instead
ABANDON_EACH = 0  #: each nest but the best is abandoned with probability pa (one draw per nest)
ABANDON_WORST = 1  #: the floor(pa * nests) worst nests are abandoned (never the best; no draw)

# Layout of the int64 counters array (C_ITERATION = 0 and C_EVALUATIONS = 1 from .status).
C_BEST = 2  #: index of the best nest
C_BEST_COST = 3  #: cost of ``best_grid`` (best egg since reset)
C_PICKED = 4  #: nest picked by the latest iteration (-1 before the first)
C_REPLACED = 5  #: nest that received the new egg in the latest iteration, or -1
C_OPERATOR = 6  #: OP_* of the latest iteration
C_MUTATED = 7  #: 1 if the latest iteration mutated its new egg
C_PMX = 8  #: cumulative PMX crossovers
C_SORTING = 9  #: cumulative sorting crossovers
C_MUTATIONS = 10  #: cumulative mutation applications
C_ABANDONED = 11  #: cumulative abandoned (rebuilt) nests
C_SWAPS = 12  #: cumulative swaps done by mutations
C_DISCARDED = 13  #: cumulative crossover child rows discarded as outside the domains
C_FALLBACKS = 14  #: cumulative rows filled by the fallback (backtracking hit its node limit)
C_HIST_LEN = 15  #: valid rows of the nest history
C_HIST_STRIDE = 16  #: iterations between two history rows
C_HIST_PENDING = 17  #: iterations since the last history row
N_COUNTERS = 18

# Layout of the int64 and float64 parameter arrays.
P_NESTS, P_BUDGET, P_SEGMENT, P_LEVY, P_TIES, P_INFEASIBLE, P_FILL_NODES, P_ABANDON = 0, 1, 2, 3, 4, 5, 6, 7
N_IPARAMS = 8
P_PA, P_P_PMX, P_P_MUT, P_CUM1, P_CUM2, P_LEVY_SIGMA = 0, 1, 2, 3, 4, 5
N_FPARAMS = 6

#: Exponent beta of the Levy flight (Mantegna's algorithm).
LEVY_BETA = 1.5

# Trace row per iteration: iteration, cost (best nest), best cost since reset, mean nest cost,
# cumulative PMX, sorting crossovers, mutations, abandoned nests.
TRACE_WIDTH = 8


class CuckooState(NamedTuple):
    """The arrays of a cuckoo search: one argument of :func:`run`, and a keyframe."""

    eggs: np.ndarray  #: int8 (nests, C): one egg per nest
    costs: np.ndarray  #: int64 (nests,)
    best_grid: np.ndarray  #: int8 (C,): the best egg since reset
    abandoned: np.ndarray  #: bool (nests,): nests abandoned in the latest iteration
    counters: np.ndarray  #: int64 (N_COUNTERS,)
    hist: np.ndarray  #: int16 (H, nests): nest costs over time


class CuckooTables(NamedTuple):
    """What the kernels read besides the state: the prefilter's domains and row tables, and the geometry.

    A keyframe does not hold them: they are rebuilt from the puzzle and the prefilter mode.
    """

    pre: np.ndarray  #: int8 (C,): prefilled cells (0 where free)
    dom: np.ndarray  #: uint32 (C,): prefiltered domains
    units: np.ndarray  #: int32 (3N, N)
    row_free: np.ndarray  #: int32 (N, N): positions of each row's free cells, padded with -1 (see fill_row)
    row_nfree: np.ndarray  #: int32 (N,)
    row_avail: np.ndarray  #: int64 (N,): digits no prefilled cell of the row holds (bitmask)
    mut_rows: np.ndarray  #: int32 (N,): rows with two free cells or more first, padded with -1
    n_mut: int  #: how many rows a mutation can use
