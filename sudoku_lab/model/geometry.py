"""Index tables for an N x N Sudoku with n x n boxes (N = n*n, n = 2..5).

Every kernel works on flat cell indices ``cell = r * N + c`` (0-based) and on
digit bitmasks where digit ``d`` (1..N) is bit ``d - 1`` of a ``uint32``.
The tables here are computed once per box size and shared, read-only, by the
puzzle model, the exact solver, AC3 and every metaheuristic.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from .._checks import checked

__all__ = [
    "BOX_SIZES",
    "SYMBOLS",
    "Geometry",
    "geometry",
    "box_size_for_cells",
    "cell_name",
    "symbol",
    "MASK_DTYPE",
    "as_grid",
    "check_digits",
    "size_text",
    "PuzzleLike",
]

#: Supported box sizes n (grids 4x4, 9x9, 16x16, 25x25).
BOX_SIZES = (2, 3, 4, 5)

#: Digit symbols: digit d is written ``SYMBOLS[d - 1]`` (1-9, then A-Z).
SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: One mask dtype for every box size, so each kernel compiles once
#: (25 digits need 25 bits; uint16 would only serve n <= 3).
MASK_DTYPE = np.uint32


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


@checked
@dataclass(frozen=True, eq=False)
class Geometry:
    """Index tables of one box size.

    Attributes
    ----------
    n : int
        Box size (2..5).
    N : int
        Side of the grid and number of digits, ``n * n``.
    C : int
        Number of cells, ``N * N``.
    units : ndarray of int32, shape (3N, N)
        Cells of every unit: rows ``0..N-1``, columns ``N..2N-1``, boxes
        ``2N..3N-1``; boxes in reading order, cells of a box in reading order.
    cell_units : ndarray of int32, shape (C, 3)
        ``(row unit, column unit, box unit)`` of every cell.
    peers : ndarray of int32, shape (C, 3N - 2n - 1)
        The other cells of each cell's row, column and box, sorted.
    row, col, box, box_pos : ndarray of int32, shape (C,)
        Row, column, box index and position inside the box (reading order).
    full_mask : int
        Bitmask with all N digits set.
    """

    n: int
    N: int
    C: int
    units: np.ndarray
    cell_units: np.ndarray
    peers: np.ndarray
    row: np.ndarray
    col: np.ndarray
    box: np.ndarray
    box_pos: np.ndarray
    full_mask: int

    @property
    def n_peers(self) -> int:
        return int(self.peers.shape[1])

    def unit_name(self, u: int) -> str:
        """Human name of unit ``u``: ``row 3``, ``column 7``, ``box 5`` (1-based)."""
        kind, idx = divmod(int(u), self.N)
        return f"{('row', 'column', 'box')[kind]} {idx + 1}"


@checked
def box_size_for_cells(count: int) -> int | None:
    """The box size whose grid has ``count`` cells, or None."""
    for n in BOX_SIZES:
        if n**4 == count:
            return n
    return None


@cache
def geometry(n: int) -> Geometry:
    """Return the (cached, read-only) index tables for box size ``n``."""
    if n not in BOX_SIZES:
        raise ValueError(f"box size must be one of {BOX_SIZES}, got {n!r}")
    N = n * n
    C = N * N
    r = np.arange(C, dtype=np.int32) // N
    c = np.arange(C, dtype=np.int32) % N
    b = (r // n) * n + c // n
    pos = (r % n) * n + c % n
    units = np.empty((3 * N, N), dtype=np.int32)
    for i in range(N):
        units[i] = np.flatnonzero(r == i)
        units[N + i] = np.flatnonzero(c == i)
        units[2 * N + i] = np.flatnonzero(b == i)[np.argsort(pos[b == i], kind="stable")]
    cell_units = np.stack([r, N + c, 2 * N + b], axis=1).astype(np.int32)
    n_peers = 3 * N - 2 * n - 1
    peers = np.empty((C, n_peers), dtype=np.int32)
    for cell in range(C):
        same = (r == r[cell]) | (c == c[cell]) | (b == b[cell])
        same[cell] = False
        peers[cell] = np.flatnonzero(same)
    return Geometry(
        n=n,
        N=N,
        C=C,
        units=_frozen(units),
        cell_units=_frozen(cell_units),
        peers=_frozen(peers),
        row=_frozen(r),
        col=_frozen(c),
        box=_frozen(b.astype(np.int32)),
        box_pos=_frozen(pos.astype(np.int32)),
        full_mask=(1 << N) - 1,
    )


@runtime_checkable
class PuzzleLike(Protocol):
    """What the algorithm modules accept besides a plain grid: an object with ``.grid`` and ``.n``.

    :class:`sudoku_lab.model.puzzle.Puzzle` is one. :mod:`sudoku_lab.exact` and
    :mod:`sudoku_lab.exact.ac3` are typed against this protocol rather than the
    class, so they never import the puzzle model (which calls them).
    """

    @property
    def grid(self) -> np.ndarray:
        """Digits, 0 for a blank, shape (C,) or (N, N)."""

    @property
    def n(self) -> int:
        """Box size."""


@checked
def size_text(n: int) -> str:
    """``9x9`` for box size 3."""
    return f"{n * n}x{n * n}"


@checked
def as_grid(obj: PuzzleLike | npt.ArrayLike, n: int | None = None) -> tuple[np.ndarray, int]:
    """Check a puzzle-like and return it as ``(grid, n)``: the one validator of grid arrays.

    Parameters
    ----------
    obj : Puzzle-like or array_like of int, shape (C,) or (N, N)
        An object with ``.grid`` and ``.n``, or an integer grid (0 for a
        blank) whose number of cells gives the box size.
    n : int, optional
        Expected box size.

    Returns
    -------
    grid : ndarray of int8, shape (C,)
        C-contiguous; the input itself when it already is one.
    n : int
        Box size.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    PuzzleTypeError
        ``obj`` not a puzzle (also a TypeError).
    PuzzleError
        ``kind="box_size"``, ``"cell_count"`` (how many cells were found) or
        ``"bad_symbol"`` (a non-integer grid, or the first cell outside 0..N).
    """
    from ..errors import PuzzleError

    if hasattr(obj, "grid") and hasattr(obj, "n"):
        a = np.asarray(obj.grid)
        n = int(obj.n) if n is None else n
    else:
        a = np.asarray(obj)
    _check_integers(a)
    if a.ndim == 2 and a.shape[0] == a.shape[1]:
        a = a.reshape(-1)
    if a.ndim != 1:
        raise PuzzleError(f"a puzzle grid must be 1-D or square, got shape {a.shape}", kind="cell_count")
    if n is None:
        n = box_size_for_cells(a.size)
        if n is None:
            sizes = ", ".join(f"{k**4} ({size_text(k)})" for k in BOX_SIZES)
            raise PuzzleError(
                f"found {a.size} cells; a puzzle has one of {sizes}", kind="cell_count", found=int(a.size)
            )
    elif n not in BOX_SIZES:
        raise PuzzleError(f"box size must be one of {', '.join(map(str, BOX_SIZES))}, got {n}", kind="box_size")
    elif a.size != n**4:
        raise PuzzleError(
            f"found {a.size} cells; a {size_text(n)} puzzle has {n**4}", kind="cell_count", found=int(a.size)
        )
    check_digits(a, n)
    return np.ascontiguousarray(a, dtype=np.int8), int(n)


def _check_integers(a: np.ndarray) -> None:
    from ..errors import PuzzleError

    if a.dtype.kind not in "iu":  # not bool either: a mask of True/False is not a grid of digits 1/0
        raise PuzzleError(f"a puzzle grid must hold integers, got dtype {a.dtype}", kind="bad_symbol")


@checked
def check_digits(a: np.ndarray, n: int) -> None:
    """Raise ``PuzzleError(kind="bad_symbol")`` unless ``a`` holds only integers 0..N.

    Parameters
    ----------
    a : ndarray of int, shape (C,) or (P, C)
        One grid, or a batch of grids (the message then says which).
    n : int
        Box size.
    """
    from ..errors import PuzzleError

    _check_integers(a)
    N = n * n
    if a.dtype == np.int8:
        # Negative int8 values read as >= 128 through uint8. (The ignore: numpy 2.5's stubs, on Python >= 3.12,
        # have no overload of max(initial=...) without an axis; numpy 2.4's accept it.)
        bad_any = a.view(np.uint8).max(initial=0) > N  # type: ignore[call-overload, unused-ignore]
    else:
        bad_any = a.size > 0 and (a.min() < 0 or a.max() > N)
    if not bad_any:
        return
    flat = a.reshape(-1)
    first = int(np.flatnonzero((flat < 0) | (flat > N))[0])
    grid, cell = divmod(first, N * N)
    where = f"grid {grid + 1}: " if a.ndim == 2 else ""
    value = int(flat[first])
    raise PuzzleError(
        f"{where}{cell_name(cell, N)} holds {value}, which is not a digit of a {size_text(n)} puzzle "
        f"(0 for a blank, 1-{N})",
        kind="bad_symbol",
        cells=(cell,),
        digit=value,
    )


@checked
def cell_name(cell: int, N: int) -> str:
    """``r<row>c<col>`` (1-based) for flat cell index ``cell`` of an N x N grid."""
    r, c = divmod(int(cell), N)
    return f"r{r + 1}c{c + 1}"


@checked
def symbol(d: int) -> str:
    """The symbol of digit ``d`` (1..35); ``.`` for 0."""
    return "." if d == 0 else SYMBOLS[d - 1]
