"""The layout of the AC3 + tabu search kernel (:mod:`sudoku_lab._kernels.ac3_tabu`): pure Python, no numba.

The counters, parameter slots, event and trace columns, codes and the ``State`` tuple the kernel and its
solver share. The solver reads them when its class is created and when ``--help`` lists its parameters,
before any kernel is needed; the kernel module imports every name from here, so ``K.C_COST`` and
``L.C_COST`` are the same number (numba freezes them as constants when it compiles).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# Status of a candidate in the latest iteration (column K_STATUS).
ST_TAKEN = 0  #: the accepted candidate (not tabu)
ST_ASPIRATION = 1  #: the accepted candidate, tabu but below every cost seen (aspiration)
ST_TABU = 2  #: tabu and not admissible
ST_WIPED = 3  #: AC3 wiped a domain out: discarded, its assignment made tabu
ST_NOT_BEST = 4  #: admissible, but another admissible candidate cost less (or as much and came first)
ST_WORSE = 5  #: the best admissible candidate, but its cost exceeds the state's: no move

# Columns of the candidate table (one row per candidate of the latest iteration, generation order).
K_CELL, K_DIGIT, K_COST, K_STATUS, K_TABU, K_NDROP = range(6)
CAND_WIDTH = 6

# Columns of the tabu list (rows 0 .. C_TABU_LEN - 1, oldest first).
T_CELL, T_DIGIT, T_ENTERED, T_REASON = range(4)
TABU_WIDTH = 4
REASON_DIFFERENCE = 0  #: a feature difference: unassigned by an accepted move
REASON_WIPEOUT = 1  #: the assignment of a wiped-out candidate

# Layout of the int64 counters array (C_ITERATION = 0 and C_EVALUATIONS = 1 from .status).
C_COST = 2  #: open cells of the state
C_BEST_COST = 3  #: lowest cost of a state since reset
C_TABU_LEN = 4  #: features in the tabu list
C_ASPIRATIONS = 5  #: moves taken by aspiration
C_DEAD = 6  #: 1 when the latest iteration had no candidate that survived AC3 (a dead end)
C_MOVES = 7  #: accepted moves since reset
C_WIPEOUTS = 8  #: wiped-out candidates since reset
C_N_CAND = 9  #: rows of the candidate table (the latest iteration's candidates)
C_MOVED = 10  #: 1 when the latest iteration moved
C_AC3_ITERATION = 11  #: iteration of the latest accepted move (0: the prefilter), whose propagation ``pre`` starts
C_AC3_HIDDEN = 12  #: whether that propagation used hidden singles
N_COUNTERS = 13

# Layout of the int64 and float64 parameter arrays.
P_CANDIDATES, P_TENURE, P_DROP, P_BUDGET, P_HIDDEN, P_DEAD_END = range(6)
N_IPARAMS = 6
#: A dead end drops ``drop`` cells like any dropping candidate, and the move still needs cost <= cost(S)
#: (the paper's rules with nothing added: a dead end is practically never left).
DEAD_END_DROP = 0
#: A dead end restarts from the prefilter: every candidate unassigns every search-assigned cell, and the
#: best admissible one is taken whatever its cost; everywhere else the move needs cost <= cost(S). Ours, the
#: default (the reading that reproduces the paper's Tables 1 and 2; docs/algorithms.md).
DEAD_END_RESTART = 1
F_P_DROP = 0

# Trace row per iteration: iteration, cost, best cost, wiped-out candidates, tabu list length,
# cells unassigned by the accepted move's drop.
TRACE_WIDTH = 6
# Event row per aspiration move: iteration, cell, digit.
EVENT_WIDTH = 3


class AC3TabuState(NamedTuple):
    """The arrays of an AC3-tabu search: one argument of :func:`run`, and a keyframe."""

    S: np.ndarray  #: uint32 (C,): the state's domain masks
    pre: np.ndarray  #: uint32 (C,): domain masks before the latest accepted move's propagation
    prefilled: np.ndarray  #: bool (C,): cells the prefilter decided
    best_grid: np.ndarray  #: int8 (C,)
    tabu: np.ndarray  #: int64 (tenure + 1, TABU_WIDTH): the tabu list
    tabu_mask: np.ndarray  #: uint32 (C,): tabu digits per cell
    cands: np.ndarray  #: int64 (candidates, CAND_WIDTH): the latest iteration's candidates
    cand_drops: np.ndarray  #: int64 (candidates, drop, 2): the assignments each dropped
    counters: np.ndarray  #: int64 (N_COUNTERS,)
