"""AC3 for Sudoku: singleton propagation, optionally with hidden singles.

Sudoku as a CSP has one variable per cell and a binary constraint ``x != y``
between every pair of peers. Revising ``D(x)`` against ``y`` can only remove a
value when ``D(y)`` is a singleton, so AC3 reduces to singleton propagation
(docs/algorithms.md, "AC3"):

1. queue every cell whose domain is a singleton, in increasing cell order;
2. pop the oldest queued cell (FIFO) and remove its digit from its peers, in
   the order of ``geometry(n).peers``; a peer that becomes a singleton is
   queued; a peer whose domain becomes empty is a *wipe-out*: stop there.

Domains only shrink, so a cell becomes a singleton at most once and is popped
at most once: the queue never holds more than ``C`` cells and is kept, in full,
as the record of the pop order.

Hidden singles (off by default) are a stronger rule than AC3: a digit with a
single possible cell left in a unit goes there. They are applied only when
the queue is empty, one at a time, followed by more AC3, until a fixed point.

Every removal is written to a log row ``(pop, cell, digit, because)``; see
:func:`propagate`. All masks are ``uint32`` with digit ``d`` as bit ``d - 1``
and are read into ``int64`` scalars, because numba widens ``uint32``
arithmetic to 64 bits anyway.
"""

from __future__ import annotations

import numpy as np

from .common import jit, lowest_digit, popcount

__all__ = [
    "propagate",
    "LOG_POP",
    "LOG_CELL",
    "LOG_DIGIT",
    "LOG_BECAUSE",
    "LOG_WIDTH",
    "CNT_LOG",
    "CNT_POPS",
    "CNT_WIPEOUT_CELL",
    "CNT_WIPEOUT_UNIT",
    "CNT_WIPEOUT_DIGIT",
    "CNT_HIDDEN",
    "N_COUNTERS",
]

#: Column of a log row: index of the queue pop the removal belongs to.
LOG_POP = 0
#: Column of a log row: the cell that lost a digit.
LOG_CELL = 1
#: Column of a log row: the digit removed (1..N).
LOG_DIGIT = 2
#: Column of a log row: the popped cell whose digit it was (>= 0), or
#: ``-(1 + u)`` for a hidden single in unit ``u``.
LOG_BECAUSE = 3
#: Number of columns of a log array.
LOG_WIDTH = 4

#: Counter: number of removals (log rows, whether stored or not).
CNT_LOG = 0
#: Counter: number of queue pops.
CNT_POPS = 1
#: Counter: the cell whose domain became empty, or -1.
CNT_WIPEOUT_CELL = 2
#: Counter: with hidden singles, the unit where a digit has no place left, or -1.
CNT_WIPEOUT_UNIT = 3
#: Counter: the digit of the wipe-out (the last digit removed from the wiped
#: cell, or the digit with no place in the unit); 0 if a domain was empty
#: from the start; -1 without a wipe-out.
CNT_WIPEOUT_DIGIT = 4
#: Counter: number of hidden singles applied.
CNT_HIDDEN = 5
#: Length of a counters array.
N_COUNTERS = 6


@jit
def _record(log, k, pop, cell, digit, because):
    """Write log row ``k`` if the log has room for it."""
    # A short log only stores a prefix, so callers that do not need the
    # record (an empty (0, 4) log) pay nothing for it.
    if k < log.shape[0]:
        log[k, LOG_POP] = pop
        log[k, LOG_CELL] = cell
        log[k, LOG_DIGIT] = digit
        log[k, LOG_BECAUSE] = because


@jit
def _find_hidden_single(domains, units, full):
    """Scan units for the first hidden single or digit with no place.

    Parameters
    ----------
    domains : ndarray of uint32, shape (C,)
    units : ndarray of int32, shape (3N, N)
    full : int
        Mask of all N digits.

    Returns
    -------
    kind : int
        0 if nothing was found, 1 for a hidden single, 2 for a digit with no
        place left in the unit (a wipe-out).
    unit : int
    digit : int
    cell : int
        The hidden single's cell (-1 for the other kinds).

    Notes
    -----
    Units are scanned in order and digits in increasing order inside a
    unit; the first ``(unit, digit)`` that is either kind wins. Digits seen
    exactly once in a unit come from the accumulator ``twice |= once & m;
    once |= m``. A digit whose only place is already a singleton is no news,
    and it is exactly a digit that also lies in the union of the unit's
    singleton domains, so those are masked out.
    """
    for u in range(units.shape[0]):
        once = np.int64(0)
        twice = np.int64(0)
        singles = np.int64(0)
        for j in range(units.shape[1]):
            m = np.int64(domains[units[u, j]])
            twice |= once & m
            once |= m
            if popcount(m) == 1:
                singles |= m
        missing = full & ~once
        hidden = once & ~twice & ~singles
        news = missing | hidden
        if news != 0:
            bit = news & -news
            digit = lowest_digit(bit)
            if missing & bit:
                return 2, u, digit, -1
            for j in range(units.shape[1]):
                cell = units[u, j]
                if np.int64(domains[cell]) & bit:
                    return 1, u, digit, cell
    return 0, -1, -1, -1


@jit
def propagate(domains, peers, units, hidden_singles, log, pops, counters):
    """Run AC3 (singleton propagation) on ``domains`` to a fixed point or a wipe-out.

    Parameters
    ----------
    domains : ndarray of uint32, shape (C,)
        Candidate masks, digit ``d`` as bit ``d - 1``, no bit above ``N``;
        narrowed in place to the fixed point, or to the state at the
        wipe-out.
    peers : ndarray of int32, shape (C, P)
        ``geometry(n).peers``: removals follow this order.
    units : ndarray of int32, shape (3N, N)
        ``geometry(n).units``: the hidden-singles scan follows this order.
    hidden_singles : bool
        Also apply hidden singles (stronger than AC3) whenever the queue is
        empty.
    log : ndarray of int32, shape (L, 4)
        Output: row ``k`` is the ``k``-th removal ``(pop, cell, digit,
        because)``. ``pop`` is the index of the queue pop it belongs to;
        ``because`` is the popped cell, or ``-(1 + u)`` when a hidden single
        in unit ``u`` removed the digit (those rows belong to the pop of
        the hidden single's cell, which comes next). ``L = C * N`` always
        suffices, since each removal clears one of at most ``C * N`` bits;
        rows past ``L`` are counted but not stored.
    pops : ndarray of int32, shape (C,)
        Output: the queue; ``pops[:counters[CNT_POPS]]`` are the cells in
        pop order.
    counters : ndarray of int64, shape (N_COUNTERS,)
        Output: ``CNT_LOG``, ``CNT_POPS``, ``CNT_WIPEOUT_CELL``,
        ``CNT_WIPEOUT_UNIT``, ``CNT_WIPEOUT_DIGIT``, ``CNT_HIDDEN``.

    Returns
    -------
    bool
        True at a fixed point, False on a wipe-out (an empty domain, or with
        hidden singles a digit with no place left in a unit).

    Notes
    -----
    The AC3 of Soto et al. (2013, Algorithm 3; 2014, Algorithm 7; citations
    ``soto2013`` and ``soto2014`` in :mod:`sudoku_lab.citations`), specialised
    to the binary ``!=`` constraints of Sudoku as in docs/algorithms.md, "AC3". A
    domain that is empty from the start is a wipe-out before any pop (the
    lowest such cell is reported).
    """
    C = domains.shape[0]
    full = (np.int64(1) << units.shape[1]) - 1
    counters[:] = 0
    counters[CNT_WIPEOUT_CELL] = -1
    counters[CNT_WIPEOUT_UNIT] = -1
    counters[CNT_WIPEOUT_DIGIT] = -1
    for cell in range(C):
        if domains[cell] == 0:
            counters[CNT_WIPEOUT_CELL] = cell
            counters[CNT_WIPEOUT_DIGIT] = 0
            return False
    tail = 0
    for cell in range(C):
        if popcount(domains[cell]) == 1:
            pops[tail] = cell
            tail += 1
    head = 0
    n_log = 0
    while True:
        while head < tail:
            cell = pops[head]
            pop = head
            head += 1
            # Domains only shrink and an emptied domain stops the run, so a
            # queued cell still holds the digit it was queued with.
            bit = np.int64(domains[cell])
            digit = lowest_digit(bit)
            for j in range(peers.shape[1]):
                p = peers[cell, j]
                m = np.int64(domains[p])
                if m & bit:
                    m &= ~bit
                    domains[p] = np.uint32(m)
                    _record(log, n_log, pop, p, digit, cell)
                    n_log += 1
                    if m == 0:
                        counters[CNT_LOG] = n_log
                        counters[CNT_POPS] = head
                        counters[CNT_WIPEOUT_CELL] = p
                        counters[CNT_WIPEOUT_DIGIT] = digit
                        return False
                    if popcount(m) == 1:
                        pops[tail] = p
                        tail += 1
        if not hidden_singles:
            break
        kind, u, digit, cell = _find_hidden_single(domains, units, full)
        if kind == 0:
            break
        if kind == 2:
            counters[CNT_LOG] = n_log
            counters[CNT_POPS] = head
            counters[CNT_WIPEOUT_UNIT] = u
            counters[CNT_WIPEOUT_DIGIT] = digit
            return False
        m = np.int64(domains[cell])
        for d in range(1, units.shape[1] + 1):
            if d != digit and (m >> (d - 1)) & 1:
                _record(log, n_log, head, cell, d, -(1 + u))
                n_log += 1
        domains[cell] = np.uint32(np.int64(1) << (digit - 1))
        counters[CNT_HIDDEN] += 1
        pops[tail] = cell
        tail += 1
    counters[CNT_LOG] = n_log
    counters[CNT_POPS] = head
    return True
