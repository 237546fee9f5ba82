"""Grid scores as kernels, shared by every solver's kernels (one copy, safe with the cache).

Two objectives appear in the papers (docs/algorithms.md, "Common terms"):
the missing-symbol cost (RESEDA, cuckoo search; the ``cost`` of every
solver) and the distinct-count fitness (Sato and Inoue's GA, NB-COIN, hill
climbing's f1). Kernels in other modules call these; numba's cache is keyed
on a hash of every kernel source (:mod:`.common`), so editing one here
recompiles its callers too. :mod:`sudoku_lab.model.scoring` is the numpy version
for reports, and the tests hold the two equal.
"""

from __future__ import annotations

import numpy as np

from .common import jit, popcount

__all__ = ["unit_missing", "missing_cost", "distinct_count"]


@jit
def unit_missing(grid, units, u, N):
    """Digits 1..N absent from unit ``u`` of ``grid`` (0 counts as no digit)."""
    seen = np.int64(0)
    for k in range(N):
        d = grid[units[u, k]]
        if d > 0:
            seen |= np.int64(1) << (d - 1)
    return N - popcount(seen)


@jit
def missing_cost(grid, units, N):
    """Missing-symbol cost: over all units, the digits 1..N absent from the unit.

    Parameters
    ----------
    grid : ndarray of int8, shape (C,)
        0 counts as no digit.
    units : ndarray of int32, shape (3N, N)
    N : int

    Returns
    -------
    int
        0 iff every row, column and box is a permutation.

    Notes
    -----
    RESEDA 2.1: a row (2,2,3,3,3,5,6,7,8) contributes 3.
    """
    cost = 0
    for u in range(units.shape[0]):
        cost += unit_missing(grid, units, u, N)
    return cost


@jit
def distinct_count(grid, units, N):
    """Distinct digits summed over the rows and columns (the first 2N units): ``2*N*N`` when solved."""
    total = 0
    for u in range(2 * N):
        total += N - unit_missing(grid, units, u, N)
    return total
