"""Per-box tables of a grid's fixed cells, shared by the solvers that keep every box a permutation.

RESEDA's permutation sampling, hill climbing, NB-COIN and the GA all need, per box,
its free cells and the digits its fixed cells leave; this is the one place that
computes them. Boxes are in reading order (unit ``2N + b`` of
:func:`sudoku_lab.model.geometry.geometry`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["box_free_cells", "box_missing_digits", "box_missing_masks"]


def box_free_cells(g: np.ndarray, geo, positions: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The free cells of each box and their count.

    Parameters
    ----------
    g : ndarray of int8, shape (C,)
        The grid, 0 where free.
    geo : Geometry
    positions : bool
        Give positions inside the box (0..N-1, reading order) instead of cell indices.

    Returns
    -------
    box_free : ndarray of int32, shape (N, N)
        Per box, its free cells (or positions) in reading order, padded with -1.
    box_nfree : ndarray of int32, shape (N,)
    """
    N = geo.N
    box_free = np.full((N, N), -1, dtype=np.int32)
    box_nfree = np.zeros(N, dtype=np.int32)
    for b in range(N):
        cells = geo.units[2 * N + b]
        free = np.flatnonzero(g[cells] == 0) if positions else cells[g[cells] == 0]
        box_free[b, : len(free)] = free
        box_nfree[b] = len(free)
    return box_free, box_nfree


def box_missing_digits(g: np.ndarray, geo) -> np.ndarray:
    """int32 (N, N): per box, the digits none of its fixed cells holds, increasing, padded with 0."""
    N = geo.N
    out = np.zeros((N, N), dtype=np.int32)
    for b in range(N):
        cells = geo.units[2 * N + b]
        missing = sorted(set(range(1, N + 1)) - {int(d) for d in g[cells] if d > 0})
        out[b, : len(missing)] = missing
    return out


def box_missing_masks(g: np.ndarray, geo, dtype=np.uint32) -> np.ndarray:
    """(N,) of ``dtype``: per box, bit d-1 set when none of its fixed cells holds digit d."""
    N = geo.N
    out = np.zeros(N, dtype=dtype)
    for b in range(N):
        cells = geo.units[2 * N + b]
        held = 0
        for d in g[cells][g[cells] > 0]:
            held |= 1 << (int(d) - 1)
        out[b] = geo.full_mask & ~held
    return out
