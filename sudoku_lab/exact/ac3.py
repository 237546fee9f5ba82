"""AC3 constraint propagation on candidate domains, with a replayable log.

:func:`ac3` runs the numba kernel :func:`sudoku_lab._kernels.ac3.propagate`
and returns an :class:`AC3Result`: the domains before and after, whether a
domain was wiped out, and the log of every removal so the UI can replay the
pruning one removal at a time (:meth:`AC3Result.domains_after`) or one queue
pop at a time (:meth:`AC3Result.domains_after_pops`).

Domains are ``uint32`` bitmasks, one per cell, digit ``d`` as bit ``d - 1``
(:data:`sudoku_lab.model.geometry.MASK_DTYPE`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .._checks import checked
from .._kernels import lazy
from ..errors import ParameterError
from ..model.geometry import BOX_SIZES, MASK_DTYPE, PuzzleLike, as_grid, box_size_for_cells, cell_name, geometry, symbol

_k = lazy("sudoku_lab._kernels.ac3")

__all__ = [
    "AC3Result",
    "LOG_DTYPE",
    "ac3",
    "result_from_kernel",
    "initial_domains",
    "candidate_count",
    "mask_to_digits",
]

#: Record type of :attr:`AC3Result.log`, one row per removal:
#: ``pop`` is the index (into :attr:`AC3Result.pops`) of the queue pop the
#: removal belongs to; ``cell`` lost ``digit``; ``because`` is the popped cell
#: whose digit it was (``>= 0``) or ``-(1 + u)`` when a hidden single in unit
#: ``u`` removed it. A hidden single's rows come first in the pop of its own
#: cell, which is the next pop, so replaying by pops shows "place, then
#: propagate" as one step.
LOG_DTYPE = np.dtype([("pop", np.int32), ("cell", np.int32), ("digit", np.int8), ("because", np.int32)])


@checked
def mask_to_digits(mask: int) -> list[int]:
    """The digits of a domain mask, in increasing order (bit ``d - 1`` is digit ``d``)."""
    mask = int(mask)
    return [d + 1 for d in range(mask.bit_length()) if mask >> d & 1]


@checked
def candidate_count(domains: npt.ArrayLike) -> np.ndarray:
    """Number of candidates of every cell.

    Parameters
    ----------
    domains : array_like of uint32, shape (C,)

    Returns
    -------
    ndarray of int64, shape (C,)
    """
    d = np.ascontiguousarray(domains, dtype="<u4").reshape(-1)
    return np.unpackbits(d.view(np.uint8)).reshape(d.size, 32).sum(axis=1, dtype=np.int64)


@checked
def initial_domains(grid: PuzzleLike | npt.ArrayLike, n: int | None = None, one_pass: bool = False) -> np.ndarray:
    """Starting domains of a puzzle: givens are singletons.

    Parameters
    ----------
    grid : array_like of int, shape (C,) or (N, N), or PuzzleLike (e.g. a Puzzle)
        0 for a blank, digits 1..N.
    n : int, optional
        Box size; inferred from the number of cells when omitted.
    one_pass : bool
        False (default): a blank cell gets every digit, so AC3's log shows
        the pruning caused by the givens too. True: a blank cell gets the
        digits that no given peer uses.

    Returns
    -------
    ndarray of uint32, shape (C,)
        A new writable array.

    Notes
    -----
    ``one_pass=True`` is the "candidate domain" of docs/algorithms.md
    ("Common terms"), i.e. one revision of every arc against the givens.
    """
    g, n = as_grid(grid, n)
    geo = geometry(n)
    digits = g.astype(np.int64)
    bits = np.where(digits > 0, np.left_shift(1, np.maximum(digits - 1, 0)), 0)
    free = geo.full_mask
    if one_pass:
        # (The ignore: numpy 2.5's stubs have no overload of reduce(axis=int) without out or keepdims.)
        peers = np.bitwise_or.reduce(bits[geo.peers], axis=1)  # type: ignore[call-overload, unused-ignore]
        free = geo.full_mask & ~peers
    return np.where(digits > 0, bits, free).astype(MASK_DTYPE)


@checked
@dataclass(frozen=True, eq=False)
class AC3Result:
    """The outcome of one AC3 run (every array is read-only).

    Attributes
    ----------
    n : int
        Box size.
    hidden_singles : bool
        Whether hidden singles (stronger than AC3) were applied.
    initial : ndarray of uint32, shape (C,)
        Domains before propagation.
    domains : ndarray of uint32, shape (C,)
        Domains at the fixed point, or at the moment of the wipe-out.
    consistent : bool
        False if a domain was wiped out (the puzzle or assignment has no
        solution).
    wipeout_cell : int or None
        The cell whose domain became empty.
    wipeout_unit : int or None
        With hidden singles: the unit (rows ``0..N-1``, columns ``N..2N-1``,
        boxes ``2N..3N-1``) where :attr:`wipeout_digit` has no place left.
    wipeout_digit : int or None
        The digit whose removal emptied :attr:`wipeout_cell`, or the digit
        with no place in :attr:`wipeout_unit`; None without a wipe-out or
        when a domain was empty from the start.
    log : ndarray of :data:`LOG_DTYPE`, shape (n_removed,)
        Every removal in order: fields ``pop`` (int32), ``cell`` (int32),
        ``digit`` (int8), ``because`` (int32, the popped cell, or
        ``-(1 + u)`` for a hidden single in unit ``u``).
    pops : ndarray of int32, shape (n_pops,)
        Cells in queue-pop order.
    fixed : ndarray of int32, shape (n_fixed,)
        Cells that are singletons in :attr:`domains` but were not in
        :attr:`initial`, in increasing order.
    n_hidden : int
        Number of hidden singles applied.
    """

    n: int
    hidden_singles: bool
    initial: np.ndarray
    domains: np.ndarray
    consistent: bool
    wipeout_cell: int | None
    wipeout_unit: int | None
    wipeout_digit: int | None
    log: np.ndarray
    pops: np.ndarray
    fixed: np.ndarray
    n_hidden: int

    @property
    def n_removed(self) -> int:
        """Number of candidates removed."""
        return int(self.log.shape[0])

    @property
    def n_fixed(self) -> int:
        """Number of cells reduced to a single candidate."""
        return int(self.fixed.shape[0])

    @property
    def n_pops(self) -> int:
        """Number of queue pops (steps of :meth:`domains_after_pops`)."""
        return int(self.pops.shape[0])

    @property
    def n_open(self) -> int:
        """Number of cells with more than one candidate left."""
        return int(np.count_nonzero(candidate_count(self.domains) > 1))

    @property
    def grid(self) -> np.ndarray:
        """int8 (C,): the digit of every singleton domain, 0 elsewhere."""
        single = candidate_count(self.domains) == 1
        digits = np.zeros(self.domains.shape, dtype=np.int8)
        # For a one-bit mask m = 2**(d-1), m - 1 has exactly d - 1 bits set.
        digits[single] = candidate_count(self.domains[single] - MASK_DTYPE(1)) + 1
        digits.setflags(write=False)
        return digits

    def candidates(self, cell: int) -> list[int]:
        """The digits left in ``cell``'s domain."""
        return mask_to_digits(self.domains[cell])

    def domains_after(self, k_removals: int) -> np.ndarray:
        """Domains after the first ``k_removals`` log entries (the fine step).

        Parameters
        ----------
        k_removals : int
            0 .. :attr:`n_removed`.

        Returns
        -------
        ndarray of uint32, shape (C,)
            A new array; ``domains_after(n_removed)`` equals :attr:`domains`.
        """
        if not 0 <= k_removals <= self.n_removed:
            raise IndexError(f"k_removals must be in 0..{self.n_removed}, got {k_removals}")
        entries = self.log[:k_removals]
        removed = np.zeros(self.initial.shape, dtype=MASK_DTYPE)
        bits = np.left_shift(MASK_DTYPE(1), (entries["digit"] - 1).astype(MASK_DTYPE))
        np.bitwise_or.at(removed, entries["cell"], bits)
        return self.initial & ~removed

    def domains_after_pops(self, k_pops: int) -> np.ndarray:
        """Domains after the first ``k_pops`` queue pops (the coarse step).

        Parameters
        ----------
        k_pops : int
            0 .. :attr:`n_pops`. Pop ``k`` includes the hidden single that
            queued its cell, if any.

        Returns
        -------
        ndarray of uint32, shape (C,)
            A new array; ``domains_after_pops(n_pops)`` equals :attr:`domains`.
        """
        if not 0 <= k_pops <= self.n_pops:
            raise IndexError(f"k_pops must be in 0..{self.n_pops}, got {k_pops}")
        return self.domains_after(int(np.searchsorted(self.log["pop"], k_pops, side="left")))

    def describe(self) -> str:
        """One line for the CLI, e.g. ``AC3 removed 412 candidates and fixed 20 cells; ...``."""
        N = self.n * self.n
        mode = "hidden singles on" if self.hidden_singles else "hidden singles off"
        fixed = f"fixed {self.n_fixed} cell{'s' * (self.n_fixed != 1)}"
        if self.hidden_singles:
            fixed += f" ({self.n_hidden} by hidden singles)"
        head = f"AC3 removed {self.n_removed} candidate{'s' * (self.n_removed != 1)} and {fixed}"
        if self.consistent:
            open_ = self.n_open
            tail = "every cell is fixed" if open_ == 0 else f"{open_} cell{'s' * (open_ != 1)} still open"
            return f"{head}; {tail} ({mode})"
        if self.wipeout_unit is not None:
            what = (
                f"digit {symbol(self.wipeout_digit)} has no place left in "
                f"{geometry(self.n).unit_name(self.wipeout_unit)}"
            )
        else:
            what = f"{cell_name(self.wipeout_cell, N)} has no candidate left"
        return f"{head}, then found a contradiction: {what} ({mode})"


def _as_domains(domains, p) -> np.ndarray:
    """Validated uint32 copy of caller-supplied domains (matching ``p``'s size if given)."""
    d = np.array(domains).reshape(-1)
    if d.dtype.kind not in "iu":
        raise ParameterError(f"domains must hold integer masks, got dtype {d.dtype}", name="domains")
    n = box_size_for_cells(d.size)
    if n is None:
        raise ParameterError(
            f"domains has {d.size} cells, which is not the size of a Sudoku of box size "
            f"{BOX_SIZES[0]}..{BOX_SIZES[-1]}",
            name="domains",
        )
    if p is not None and as_grid(p, None)[1] != n:
        raise ParameterError(f"domains has {d.size} cells, which does not match the puzzle", name="domains")
    full = geometry(n).full_mask
    bad = np.flatnonzero((d < 0) | (d > full))
    if bad.size:
        c = int(bad[0])
        raise ParameterError(
            f"domain of {cell_name(c, n * n)} is {int(d[c]):#x}, which has bits outside "
            f"the {n * n} digits (mask {full:#x})",
            name="domains",
        )
    return d.astype(MASK_DTYPE)


@checked
def ac3(
    p: PuzzleLike | npt.ArrayLike | None, hidden_singles: bool = False, domains: npt.ArrayLike | None = None
) -> AC3Result:
    """Run AC3 on a puzzle or on given domains.

    Parameters
    ----------
    p : Puzzle, or array_like of int with shape (C,) or (N, N), or None
        The puzzle (0 for a blank, digits 1..N); the box size comes from its
        length. May be None when ``domains`` is given; if both are given,
        the run starts from ``domains`` and ``p`` must match its size.
    hidden_singles : bool
        Also fix a digit that has a single place left in a unit. This is
        STRONGER than AC3 (not implied by arc consistency); off by default.
    domains : array_like of uint32, shape (C,), optional
        Starting domains (any masks within the N digits, e.g. a random
        partial assignment) instead of ``initial_domains(p)``.

    Returns
    -------
    AC3Result

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    PuzzleTypeError
        ``p`` not a puzzle (also a TypeError).
    PuzzleError
        For a grid of the wrong size or with values outside 0..N.
    ParameterError
        For ``domains`` of the wrong length or with bits above digit N.

    Notes
    -----
    Singleton propagation, the AC3 of docs/algorithms.md ("AC3") as used for
    prefiltering by Soto et al. 2013 (AC3-tabu search, Algorithm 3) and Soto
    et al. 2014 (prefiltered cuckoo search, Algorithm 7); full citations in
    :mod:`sudoku_lab.citations`. The default start gives blank cells every digit,
    so the log also shows the pruning done by the givens.
    """
    if domains is not None:
        start = _as_domains(domains, p)
    elif p is not None:
        start = initial_domains(p)
    else:
        raise ParameterError("ac3 needs a puzzle or domains", name="domains")
    geo = geometry(box_size_for_cells(start.size))
    out = start.copy()
    log = np.empty((geo.C * geo.N, _k.LOG_WIDTH), dtype=np.int32)
    queue = np.empty(geo.C, dtype=np.int32)
    counters = np.zeros(_k.N_COUNTERS, dtype=np.int64)
    consistent = bool(_k.propagate(out, geo.peers, geo.units, bool(hidden_singles), log, queue, counters))
    return result_from_kernel(geo.n, hidden_singles, start, out, log, queue, counters, consistent)


@checked
def result_from_kernel(
    n: int,
    hidden_singles: bool,
    start: np.ndarray,
    out: np.ndarray,
    log: np.ndarray,
    queue: np.ndarray,
    counters: np.ndarray,
    consistent: bool,
) -> AC3Result:
    """The :class:`AC3Result` of one :func:`sudoku_lab._kernels.ac3.propagate` call, from its inputs and outputs.

    Parameters
    ----------
    n : int
        Box size.
    hidden_singles : bool
        Whether the call applied hidden singles.
    start : ndarray of uint32, shape (C,)
        Domains before the call (kept: made read-only).
    out : ndarray of uint32, shape (C,)
        The same domains after it (kept: made read-only).
    log : ndarray of int32, shape (>= counters[CNT_LOG], 4)
        The call's log (rows past the ones it wrote are ignored).
    queue : ndarray of int32, shape (C,)
        The call's ``pops``.
    counters : ndarray of int64, shape (N_COUNTERS,)
        The call's counters.
    consistent : bool
        What the call returned.

    Returns
    -------
    AC3Result

    Notes
    -----
    :func:`ac3` and the AC3-tabu solver (which replays the propagation of its
    latest accepted candidate) both build their results here.
    """
    n_log = int(counters[_k.CNT_LOG])
    records = np.empty(n_log, dtype=LOG_DTYPE)
    for name, column in (
        ("pop", _k.LOG_POP),
        ("cell", _k.LOG_CELL),
        ("digit", _k.LOG_DIGIT),
        ("because", _k.LOG_BECAUSE),
    ):
        records[name] = log[:n_log, column]
    fixed = np.flatnonzero((candidate_count(out) == 1) & (candidate_count(start) != 1)).astype(np.int32)
    pops = queue[: int(counters[_k.CNT_POPS])].copy()
    for a in (start, out, records, pops, fixed):
        a.setflags(write=False)
    wipeout_cell, wipeout_unit, wipeout_digit = (
        int(counters[i]) for i in (_k.CNT_WIPEOUT_CELL, _k.CNT_WIPEOUT_UNIT, _k.CNT_WIPEOUT_DIGIT)
    )
    return AC3Result(
        n=int(n),
        hidden_singles=bool(hidden_singles),
        initial=start,
        domains=out,
        consistent=bool(consistent),
        wipeout_cell=wipeout_cell if wipeout_cell >= 0 else None,
        wipeout_unit=wipeout_unit if wipeout_unit >= 0 else None,
        # 0 means a domain was empty before any removal: no digit to blame.
        wipeout_digit=wipeout_digit if wipeout_digit > 0 else None,
        log=records,
        pops=pops,
        fixed=fixed,
        n_hidden=int(counters[_k.CNT_HIDDEN]),
    )
