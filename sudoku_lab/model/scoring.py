"""Grid scores in plain numpy, for reporting and display (kernels share :mod:`sudoku_lab._kernels.scores`).

Two objectives appear in the papers (docs/algorithms.md, "Common terms"):

* missing-symbol cost (RESEDA, cuckoo search): over all rows, columns and
  boxes, the digits 1..N absent from the unit; 0 iff solved;
* distinct-count fitness (Sato and Inoue; NB-COIN, hill climbing f1): over
  rows and columns, the number of distinct digits; 2*N*N iff solved when
  every box is a permutation.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .._checks import checked
from .geometry import geometry

__all__ = ["missing_symbols", "distinct_count", "conflicting_cells"]


def _present(grid: npt.ArrayLike, n: int, units: np.ndarray) -> np.ndarray:
    """bool (U, N+1): digit d present in unit u (column 0 counts blanks and is ignored)."""
    g = np.asarray(grid).reshape(-1)
    N = n * n
    present = np.zeros((units.shape[0], N + 1), dtype=bool)
    present[np.arange(units.shape[0])[:, None], g[units]] = True
    return present[:, 1:]


@checked
def missing_symbols(grid: npt.ArrayLike, n: int) -> int:
    """Missing-symbol cost of ``grid`` (int8 (C,), 0 = blank counts as no digit)."""
    return int(np.sum(~_present(grid, n, geometry(n).units)))


@checked
def distinct_count(grid: npt.ArrayLike, n: int) -> int:
    """Distinct digits summed over rows and columns (``2*N*N`` when solved)."""
    geo = geometry(n)
    return int(np.sum(_present(grid, n, geo.units[: 2 * geo.N])))


@checked
def conflicting_cells(grid: npt.ArrayLike, n: int) -> np.ndarray:
    """bool (C,): cells whose digit also appears elsewhere in one of their units."""
    geo = geometry(n)
    g = np.asarray(grid).reshape(-1)
    vals = g[geo.units]
    out = np.zeros(g.size, dtype=bool)
    for u in range(geo.units.shape[0]):
        v = vals[u]
        counts = np.bincount(v, minlength=geo.N + 1)
        dup = (counts[v] > 1) & (v > 0)
        out[geo.units[u][dup]] = True
    return out
