"""Exact Sudoku search: bitmask depth-first search with propagation.

The state of a search node is one ``uint32`` candidate mask per cell (digit
``d`` is bit ``d - 1``). A cell is *fixed* when its mask has one bit. Every
node is brought to a propagation fixed point before branching:

- naked singles: a fixed cell's digit is removed from all its peers;
- hidden singles: a digit with one place left in a row, column or box is
  fixed there (found for a whole unit at once with the once/twice
  accumulator: ``twice |= once & m; once |= m``, so ``once & ~twice`` are
  the digits seen exactly once);
- optionally locked candidates (pointing and claiming): a digit whose places
  in a line all lie in one box is removed from the rest of that box, and
  the other way round. It costs more per node than it saves on 9 x 9 but
  removes the heavy tail of 16 x 16 and 25 x 25 searches.

An empty mask, or a unit where some digit has no place left, refutes the
node. Branching picks the unfixed cell with the smallest ratio of
candidates to *unit weight* (dom/wdeg, Boussemart et al. 2004): every
refutation adds 1 to the weight of the unit(s) that failed, so the search
learns where the puzzle is tight. With all weights equal this is plain
minimum-remaining-values. Digits are tried in increasing order, or in random
order when a ``np.random.Generator`` is given; callers use the latter with
restarts and growing node budgets (weights kept between restarts), which is
what makes 25 x 25 puzzles near the phase transition (40-45 % givens)
solvable in under a second.

The search is iterative: ``stack[k]`` holds the candidate masks of the node
at depth ``k``; ``remaining[k]`` the digits of ``branch_cell[k]`` not tried
yet. The last alternative of a node reuses the node's own row instead of a
copy, so the stack only grows at real choice points; it never needs more
than ``C + 1`` rows because every level fixes at least one more cell.

What makes it fast without changing what it finds (the same solutions in
the same order, the same branches and the same learnt weights as the plain
implementation kept in ``tests/naive_exact.py``, which the tests check):

- ``boards[k]`` holds the same candidates per digit, as bits over the cells
  (``ceil(C / 64)`` words per digit), kept in step with the masks; a fixed
  cell's digit is struck from ``peer bits & digit bits``, the peers that
  still have it, in increasing cell order as the ``peers`` table lists them;
- hidden singles are looked for only in *dirty* units, those with a cell
  changed since the unit's last scan (two words of unit bits), in
  increasing unit order: a unit unchanged since a scan that found nothing
  finds nothing again;
- the unit weights are also kept summed per cell, so branching reads one
  number per cell; popcount and lowest-set-bit are single instructions
  (LLVM's ``ctpop`` and ``cttz``) and the hot helpers are inlined
  (:data:`~sudoku_lab._kernels.common.jit_inline`), so no array is
  reference-counted per call;
- the root's masks come from each unit's givens in one pass; propagation
  reaches the same fixed point in any order, and a refuted root ends the
  search (it blames no unit, which nothing reads).

Every function takes the geometry tables of :func:`sudoku_lab.model.geometry.geometry`
(``peers`` int32 [C, P], ``units`` int32 [3N, N], ``cell_units`` int32
[C, 3]) and works for box sizes 2..5; the peer bits are made from ``units``
and ``cell_units`` (the ``peers`` table lists the same cells). Masks are
read into ``int64`` scalars: numba widens ``uint32`` arithmetic to 64 bits
anyway, and signed scalars keep ``m & -m`` (lowest set bit) exact.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir  # type: ignore[import-untyped]
from numba import types
from numba.extending import intrinsic

from .common import jit, jit_inline, lowest_digit

__all__ = [
    "search",
    "readonly",
    "NO_RNG",
    "solve_grid",
    "random_fill",
    "solve_batch",
    "STAT_NODES",
    "STAT_EXHAUSTED",
    "N_STATS",
]

#: Index in a ``stats`` array: number of branches tried (search nodes below the root).
STAT_NODES = 0
#: Index in a ``stats`` array: 1 if the node budget ran out before the search finished.
STAT_EXHAUSTED = 1
#: Length of a ``stats`` array.
N_STATS = 2


@jit
def _init_masks(grid, units, cell_units, masks, queue):
    """Fill the root masks from a grid, each blank already without its units' givens.

    Parameters
    ----------
    grid : ndarray of int8, shape (C,)
        0 for a blank, digits 1..N.
    units : ndarray of int32, shape (3N, N)
    cell_units : ndarray of int32, shape (C, 3)
    masks : ndarray of uint32, shape (C,)
        Output: the given's bit for givens; for blanks, the digits no given
        of their row, column or box holds.
    queue : ndarray of int32, shape (C,)
        Output: the blanks left with one candidate, to be propagated.

    Returns
    -------
    int
        Number of cells queued; -1 if a cell holds a value outside 0..N,
        -2 if two givens of a unit clash or a blank has no candidate.

    Notes
    -----
    One pass over the units instead of striking each given from its peers
    (a third of the root's time on easy puzzles went there). Propagation
    reaches the same fixed point in any order, so only which unit a refuted
    root would blame differs, and a refuted root ends the search.
    """
    N = units.shape[1]
    full = (np.int64(1) << N) - 1
    given = np.zeros(units.shape[0], dtype=np.int64)
    for cell in range(grid.shape[0]):
        d = np.int64(grid[cell])
        if d == 0:
            continue
        if d < 0 or d > N:
            return -1
        bit = np.int64(1) << (d - 1)
        for a in range(3):
            u = cell_units[cell, a]
            if given[u] & bit:
                return -2
            given[u] |= bit
    n_queued = 0
    for cell in range(grid.shape[0]):
        d = np.int64(grid[cell])
        if d:
            masks[cell] = np.int64(1) << (d - 1)
            continue
        m = full & ~(given[cell_units[cell, 0]] | given[cell_units[cell, 1]] | given[cell_units[cell, 2]])
        if m == 0:
            return -2
        masks[cell] = m
        if m & (m - 1) == 0:
            queue[n_queued] = cell
            n_queued += 1
    return n_queued


@jit
def _cell_at(transposed, line, pos, N):
    """Cell at position ``pos`` of row ``line`` (or of column ``line`` if transposed)."""
    if transposed:
        return pos * N + line
    return line * N + pos


@intrinsic
def _trailing_zeros(typingctx, x):
    """Index of the lowest set bit of a non-zero int64 (one instruction: LLVM's ``cttz``)."""

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return types.int64(types.int64), codegen


@intrinsic
def _bit_count(typingctx, x):
    """Number of set bits of an int64 (one instruction where the CPU has one: LLVM's ``ctpop``)."""

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen


@jit_inline
def _clear_digits(boards, cell, removed):
    """Take ``cell`` out of the board of every digit of ``removed`` (the digits its mask just lost)."""
    w = cell >> 6
    keep = ~(np.int64(1) << (cell & 63))
    while removed:
        low = removed & -removed
        removed ^= low
        boards[_trailing_zeros(low), w] &= keep


@jit
def _fill_boards(masks, boards):
    """Per digit, the cells that still have it as a candidate (cell ``c``: bit ``c % 64`` of word ``c // 64``)."""
    boards[:] = 0
    for cell in range(masks.shape[0]):
        m = np.int64(masks[cell])
        bit = np.int64(1) << (cell & 63)
        while m:
            low = m & -m
            m ^= low
            boards[_trailing_zeros(low), cell >> 6] |= bit


@jit
def _peer_boards(units, cell_units, out):
    """Per cell, its peers as bits of ``ceil(C / 64)`` words (cell ``c``: bit ``c % 64`` of word ``c // 64``).

    The union of the cell's three units without the cell itself: the same
    cells as its row of the ``peers`` table.
    """
    W = out.shape[1]
    unit_board = np.zeros((units.shape[0], W), dtype=np.int64)
    for u in range(units.shape[0]):
        for k in range(units.shape[1]):
            c = units[u, k]
            unit_board[u, c >> 6] |= np.int64(1) << (c & 63)
    for cell in range(cell_units.shape[0]):
        for w in range(W):
            out[cell, w] = unit_board[cell_units[cell, 0], w] | unit_board[cell_units[cell, 1], w]
            out[cell, w] |= unit_board[cell_units[cell, 2], w]
        out[cell, cell >> 6] &= ~(np.int64(1) << (cell & 63))


@jit
def _unit_bits(cell_units, out):
    """Per cell, its three units as bits of two words: unit ``u`` is bit ``u % 64`` of word ``u // 64``.

    Parameters
    ----------
    cell_units : ndarray of int32, shape (C, 3)
    out : ndarray of int64, shape (C, 2)
        Output. Two words hold the 3N <= 75 units of every size up to 25 x 25.
    """
    out[:] = 0
    for cell in range(cell_units.shape[0]):
        for a in range(3):
            u = cell_units[cell, a]
            out[cell, u >> 6] |= np.int64(1) << (u & 63)


@jit_inline
def _blame(weights, units, cell_weights, u):
    """A refutation in unit ``u``: its weight gains 1, and so does the cached weight of each of its cells."""
    weights[u] += 1
    for k in range(units.shape[1]):
        cell_weights[units[u, k]] += 1


@jit
def _strike(masks, boards, cell, bits, queue, n_queued):
    """Remove ``bits`` from a cell that has some of them; queue it if it became fixed.

    Returns the new queue length, or -1 if the cell has no candidate left.
    """
    old = np.int64(masks[cell])
    m = old & ~bits
    if m == 0:
        return -1
    masks[cell] = m
    _clear_digits(boards, cell, old & bits)
    if m & (m - 1) == 0:
        queue[n_queued] = cell
        n_queued += 1
    return n_queued


@jit
def _strike_locked(masks, boards, cell, bits, queue, n_queued, line_unit, box_unit, tables, learn):
    """:func:`_strike` for a locked-candidates rule: a wipe-out blames the line and the box (dom/wdeg)."""
    units, cell_units = tables
    weights, cell_weights, _, _ = learn
    n_queued = _strike(masks, boards, cell, bits, queue, n_queued)
    if n_queued < 0:
        _blame(weights, units, cell_weights, line_unit)
        _blame(weights, units, cell_weights, box_unit)
    return n_queued


@jit
def _locked_candidates(masks, boards, tables, learn, queue, n_queued, seg):
    """One pass of pointing and claiming over every box-line intersection.

    Parameters
    ----------
    masks : ndarray of uint32, shape (C,)
        Candidate masks, narrowed in place.
    boards : ndarray of int64, shape (N, W)
        The same candidates per digit as cell bits (:func:`_fill_boards`), kept in step.
    tables : tuple
        ``(units, cell_units)`` geometry tables.
    learn : tuple
        ``(weights, cell_weights, unit_bits, peer_boards)``: unit weights
        (the line and box of a refutation gain 1), their sum per cell (kept
        equal to it); the last two are unused here.
    queue : ndarray of int32, shape (C,)
        Cells that become fixed are appended at ``n_queued``.
    n_queued : int
    seg : ndarray of int64, shape (2, 2, N, n)
        Scratch, per line segment (the ``n`` cells a row, ``[:, 0]``, or a
        column, ``[:, 1]``, shares with a box): ``seg[0]`` the union of the
        candidates, ``seg[1]`` the digits of its fixed cells.

    Returns
    -------
    changed : int
        -1 if a cell lost its last candidate, 1 if any mask changed, else 0.
    n_queued : int
        The new queue length.

    Notes
    -----
    Digits already fixed in a segment are not struck: naked singles remove
    them from the same cells. The unions are computed before any strike of
    the pass; stale unions are supersets of the true ones, so a digit they
    confine to one segment is truly confined there and every strike is
    sound.
    """
    N = seg.shape[2]
    n = seg.shape[3]
    seg[:] = 0
    for r in range(N):
        for c in range(N):
            m = np.int64(masks[r * N + c])
            seg[0, 0, r, c // n] |= m
            seg[0, 1, c, r // n] |= m
            if m & (m - 1) == 0:
                seg[1, 0, r, c // n] |= m
                seg[1, 1, c, r // n] |= m
    changed = 0
    for t in range(2):
        for line in range(N):
            band = (line // n) * n
            # Claiming: a digit of this line found in one segment only
            # belongs to that segment's box; strike it from the box's other lines.
            once = np.int64(0)
            twice = np.int64(0)
            for k in range(n):
                twice |= once & seg[0, t, line, k]
                once |= seg[0, t, line, k]
            only = once & ~twice
            for k in range(n):
                bits = seg[0, t, line, k] & only & ~seg[1, t, line, k]
                if bits == 0:
                    continue
                for other in range(band, band + n):
                    if other == line:
                        continue
                    for j in range(n):
                        cell = _cell_at(t, other, k * n + j, N)
                        if np.int64(masks[cell]) & bits:
                            changed = 1
                            box = band + k if t == 0 else k * n + line // n
                            n_queued = _strike_locked(
                                masks, boards, cell, bits, queue, n_queued, t * N + line, 2 * N + box, tables, learn
                            )
                            if n_queued < 0:
                                return -1, n_queued
        for band in range(0, N, n):
            for k in range(n):
                # Pointing: a digit of this box found on one of its lines only
                # belongs to that line's segment; strike it from the rest of the line.
                once = np.int64(0)
                twice = np.int64(0)
                for line in range(band, band + n):
                    twice |= once & seg[0, t, line, k]
                    once |= seg[0, t, line, k]
                only = once & ~twice
                for line in range(band, band + n):
                    bits = seg[0, t, line, k] & only & ~seg[1, t, line, k]
                    if bits == 0:
                        continue
                    for pos in range(N):
                        if pos // n == k:
                            continue
                        cell = _cell_at(t, line, pos, N)
                        if np.int64(masks[cell]) & bits:
                            changed = 1
                            box = band + k if t == 0 else k * n + band // n
                            n_queued = _strike_locked(
                                masks, boards, cell, bits, queue, n_queued, t * N + line, 2 * N + box, tables, learn
                            )
                            if n_queued < 0:
                                return -1, n_queued
    return changed, n_queued


@jit_inline
def _propagate(masks, boards, peers, units, cell_units, locked, learn, queue, n_queued, seg, dirty0, dirty1, N, W):
    """Propagate singles (and locked candidates) to a fixed point, in place.

    Parameters
    ----------
    masks : ndarray of uint32, shape (C,)
        Candidate masks of one node; narrowed in place.
    boards : ndarray of int64, shape (N, W)
        The same candidates per digit, as cell bits (:func:`_fill_boards`);
        kept in step with ``masks``. A fixed cell's digit is struck from
        the peers that have it (its peer bits and the digit's board), not
        from all of them in turn; peers are numbered in increasing order,
        so the strikes happen in the same order either way.
    peers : ndarray of int32, shape (C, P)
    units : ndarray of int32, shape (3N, N)
    cell_units : ndarray of int32, shape (C, 3)
    locked : bool
        Also apply locked candidates (pointing and claiming).
    learn : tuple
        ``(weights, cell_weights, unit_bits, peer_boards)``: unit weights
        (int64, 3N; the unit(s) behind a refutation gain 1), their sum over
        each cell's three units (int64, C; kept equal to it), each cell's
        units as bits (int64, (C, 2), :func:`_unit_bits`) and its peers as
        bits (int64, (C, W), :func:`_peer_boards`).
    queue : ndarray of int32, shape (C,)
        ``queue[:n_queued]``: fixed cells whose digit has not been removed
        from their peers yet. Used as scratch afterwards.
    n_queued : int
    seg : ndarray of int64, shape (2, 2, N, n)
        Scratch for locked candidates.
    dirty0, dirty1 : int
        The units to scan for hidden singles, as bits (units 0-63, 64-127):
        at least every unit with a cell changed since the unit was last
        scanned without finding anything. Only these are scanned: a unit
        whose masks did not change since such a scan would find nothing
        again, so skipping it changes no outcome, while scanning one more
        unit than needed only costs time.
    N, W : int
        Side of the grid and words per board (``units.shape[1]``,
        ``boards.shape[1]``), as arguments so that a caller passing
        constants gets loops of known length.

    Returns
    -------
    bool
        False if the node has no solution (a cell or a unit ran out of
        places), True at the fixed point.

    Notes
    -----
    A cell enters the queue only when its mask goes from several bits to
    one, which happens once per cell, so ``C`` slots always suffice.
    """
    weights, cell_weights, unit_bits, peer_boards = learn
    n_units = 3 * N
    full = (np.int64(1) << N) - 1
    head = 0
    while True:
        while head < n_queued:
            cell = queue[head]
            head += 1
            bit = np.int64(masks[cell])
            digit = _trailing_zeros(bit)
            for w in range(W):
                hits = peer_boards[cell, w] & boards[digit, w]
                if hits == 0:
                    continue
                boards[digit, w] ^= hits
                # The peers that have the digit, in increasing order (the order of ``peers``).
                while hits:
                    low = hits & -hits
                    hits ^= low
                    p = np.uintp(w * 64 + _trailing_zeros(low))  # unsigned: no wrap-around test
                    m = np.int64(masks[p]) ^ bit
                    if m == 0:
                        for a in range(3):
                            for b in range(3):
                                if cell_units[cell, a] == cell_units[p, b]:
                                    _blame(weights, units, cell_weights, cell_units[cell, a])
                        return False
                    masks[p] = m
                    dirty0 |= unit_bits[p, 0]
                    dirty1 |= unit_bits[p, 1]
                    if m & (m - 1) == 0:
                        queue[n_queued] = p
                        n_queued += 1
        # Hidden singles only once naked singles are exhausted: they are the
        # costlier scan, and naked singles often finish a node on their own.
        # The dirty units in increasing order; one marked during the pass is scanned in it if it
        # comes later, in the next pass if it came earlier (as a scan of every unit in turn would).
        u = 0
        while u < n_units:
            if u < 64:
                later = dirty0 & (np.int64(-1) << u)
                if later == 0:
                    u = 64
                    continue
                u = _trailing_zeros(later)
                if u >= n_units:
                    break
                dirty0 ^= np.int64(1) << u
            else:
                later = dirty1 & (np.int64(-1) << (u - 64))
                if later == 0:
                    break
                u = 64 + _trailing_zeros(later)
                if u >= n_units:
                    break
                dirty1 ^= np.int64(1) << (u - 64)
            once = np.int64(0)
            twice = np.int64(0)
            fixed = np.int64(0)
            row = units[u]
            for k in range(N):
                m = np.int64(masks[np.uintp(row[k])])
                twice |= once & m
                once |= m
                fixed |= m & -np.int64(m & (m - 1) == 0)  # branch-free: m if the cell is fixed
            if once != full:
                _blame(weights, units, cell_weights, u)
                return False
            hidden = once & ~(twice | fixed)
            while hidden:
                bit = hidden & -hidden
                hidden ^= bit
                target = -1
                for k in range(N):
                    if np.int64(masks[units[u, k]]) & bit:
                        target = units[u, k]
                        break
                # The digit's only cell may just have been fixed to another
                # hidden digit of this unit: two digits, one place.
                if target < 0:
                    _blame(weights, units, cell_weights, u)
                    return False
                _clear_digits(boards, target, np.int64(masks[target]) ^ bit)
                masks[target] = bit
                dirty0 |= unit_bits[target, 0]
                dirty1 |= unit_bits[target, 1]
                queue[n_queued] = target
                n_queued += 1
            u += 1
        if head < n_queued:
            continue
        if not locked:
            return True
        changed, n_queued = _locked_candidates(masks, boards, (units, cell_units), learn, queue, n_queued, seg)
        if changed < 0:
            return False
        if changed == 0:
            return True
        # Which units changed is not tracked through locked candidates: all are scanned again.
        dirty0 = -1
        dirty1 = -1


@jit_inline
def _branch_cell(masks, cell_weights, C):
    """The unfixed cell minimising candidates / unit weight, or -1 if all are fixed.

    Parameters
    ----------
    masks : ndarray of uint32, shape (C,)
    cell_weights : ndarray of int64, shape (C,)
        Per cell, the sum of the weights of its three units.
    C : int
        Number of cells (a constant where the caller knows it).

    Returns
    -------
    int
        The first cell (in reading order) with the smallest ratio.
    """
    best = -1
    best_count = np.int64(1)
    best_weight = np.int64(0)
    for cell in range(C):
        count = _bit_count(np.int64(masks[cell]))
        weight = cell_weights[cell]
        # Unfixed and count / weight < best_count / best_weight, without division; one
        # test rarely true rather than a test per cell of whether it is fixed.
        if (count > 1) & (count * best_weight < best_count * weight):
            best = cell
            best_count = count
            best_weight = weight
    return best


@jit
def _pick(remaining, rng, randomize):
    """One digit bit of ``remaining``: the lowest, or (``randomize``) a uniformly random one drawn from ``rng``."""
    if not randomize:
        return remaining & -remaining
    skip = rng.integers(0, _bit_count(remaining))
    for _ in range(skip):
        remaining &= remaining - 1
    return remaining & -remaining


@jit
def _workspace(units, cell_units):
    """Scratch arrays of :func:`_search`, and the cell and peer bits of the geometry."""
    C = cell_units.shape[0]
    N = units.shape[1]
    n = 2
    while n * n < N:
        n += 1
    stack = np.empty((C + 1, C), dtype=np.uint32)
    remaining = np.empty(C + 1, dtype=np.int64)
    branch_cell = np.empty(C + 1, dtype=np.int32)
    queue = np.empty(C, dtype=np.int32)
    seg = np.empty((2, 2, N, n), dtype=np.int64)
    cell_weights = np.empty(C, dtype=np.int64)
    unit_bits = np.empty((C, 2), dtype=np.int64)
    W = (C + 63) // 64
    boards = np.empty((C + 1, N, W), dtype=np.int64)
    peer_boards = np.empty((C, W), dtype=np.int64)
    _unit_bits(cell_units, unit_bits)
    _peer_boards(units, cell_units, peer_boards)
    return stack, boards, remaining, branch_cell, queue, seg, cell_weights, unit_bits, peer_boards


@jit
def _search(grid, peers, units, cell_units, locked, limit, node_budget, weights, rng, randomize, out, stats, ws):
    """:func:`_search_body`, compiled twice: with the sizes of a 9 x 9 grid as constants, and for any size.

    The 9 x 9 copy is the same code with ``N = 9``, ``W = 2`` and ``C = 81`` known to the compiler, which
    unrolls the loops over a unit's cells and over board words; it finds exactly what the general copy finds.
    """
    if units.shape[1] == 9:
        return _search_body(
            grid,
            peers,
            units,
            cell_units,
            locked,
            limit,
            node_budget,
            weights,
            rng,
            randomize,
            out,
            stats,
            ws,
            9,
            2,
            81,
        )
    C = grid.shape[0]
    return _search_body(
        grid,
        peers,
        units,
        cell_units,
        locked,
        limit,
        node_budget,
        weights,
        rng,
        randomize,
        out,
        stats,
        ws,
        units.shape[1],
        (C + 63) // 64,
        C,
    )


@jit_inline
def _search_body(
    grid, peers, units, cell_units, locked, limit, node_budget, weights, rng, randomize, out, stats, ws, N, W, C
):
    """Depth-first search for up to ``limit`` solutions of one grid.

    Parameters
    ----------
    grid : ndarray of int8, shape (C,)
    peers, units, cell_units : ndarray of int32
        Geometry tables, shapes (C, P), (3N, N), (C, 3).
    locked : bool
        Propagate locked candidates too.
    limit : int
        Stop after this many solutions (>= 1).
    node_budget : int
        Stop (and set ``stats[STAT_EXHAUSTED]``) after this many branches.
    weights : ndarray of int64, shape (3N,)
        Unit weights for branching, updated in place.
    rng : np.random.Generator
        Source of the random digit order (not drawn from unless ``randomize``).
    randomize : bool
        False: digits in increasing order. True: random digit order.
    out : ndarray of int8, shape (K, C)
        The first ``min(K, count)`` solutions are written here; K may be 0.
    stats : ndarray of int64, shape (N_STATS,)
        Output: branches tried, budget exhausted flag.
    ws : tuple
        Workspace from :func:`_workspace`.
    N, W, C : int
        Side, words per digit board, cells.

    Returns
    -------
    int
        Number of solutions found (at most ``limit``); 0 if the givens clash
        or a value is outside 0..N.
    """
    stack, boards, remaining, branch_cell, queue, seg, cell_weights, unit_bits, peer_boards = ws
    stats[STAT_NODES] = 0
    stats[STAT_EXHAUSTED] = 0
    n_queued = _init_masks(grid, units, cell_units, stack[0], queue)
    if n_queued < 0:
        return 0
    for c in range(C):
        cell_weights[c] = weights[cell_units[c, 0]] + weights[cell_units[c, 1]] + weights[cell_units[c, 2]]
    _fill_boards(stack[0], boards[0])
    learn = (weights, cell_weights, unit_bits, peer_boards)
    ok = _propagate(stack[0], boards[0], peers, units, cell_units, locked, learn, queue, n_queued, seg, -1, -1, N, W)
    depth = 0
    remaining[0] = 0
    count = 0
    nodes = 0
    while True:
        if ok:
            cell = _branch_cell(stack[depth], cell_weights, C)
            if cell < 0:
                if count < out.shape[0]:
                    for c in range(C):
                        out[count, c] = lowest_digit(stack[depth, c])
                count += 1
                if count >= limit:
                    break
            else:
                remaining[depth] = stack[depth, cell]
                branch_cell[depth] = cell
        while depth >= 0 and remaining[depth] == 0:
            depth -= 1
        if depth < 0:
            break
        if nodes >= node_budget:
            stats[STAT_EXHAUSTED] = 1
            break
        nodes += 1
        bit = _pick(remaining[depth], rng, randomize)
        remaining[depth] ^= bit
        cell = branch_cell[depth]
        if remaining[depth] != 0:
            stack[depth + 1] = stack[depth]
            boards[depth + 1] = boards[depth]
            depth += 1
            remaining[depth] = 0
        _clear_digits(boards[depth], cell, np.int64(stack[depth, cell]) ^ bit)
        stack[depth, cell] = bit
        queue[0] = cell
        # The node is its parent's fixed point (where no unit has a hidden single) with one cell narrowed.
        ok = _propagate(
            stack[depth],
            boards[depth],
            peers,
            units,
            cell_units,
            locked,
            learn,
            queue,
            1,
            seg,
            unit_bits[cell, 0],
            unit_bits[cell, 1],
            N,
            W,
        )
    stats[STAT_NODES] = nodes
    return count


@jit
def search(
    grids,
    peers,
    units,
    cell_units,
    locked,
    limit,
    node_budget,
    weights,
    fresh_weights,
    rng,
    randomize,
    out,
    counts,
    stats,
):
    """The one entry of the exact search: up to ``limit`` solutions of each of ``grids``, in one call.

    Every front end (:func:`solve_grid`, :func:`random_fill`, :func:`solve_batch`, and
    :mod:`sudoku_lab.exact.solver` directly) calls this one kernel with the same argument types, so a cold
    start compiles the search once: its 9 x 9 copy and its general one (see :func:`_search`), and nothing
    else. The types are fixed by the callers: ``grids`` a read-only C-contiguous int8 array, ``rng`` always
    a ``np.random.Generator`` (drawn from only when ``randomize``), ``locked``, ``fresh_weights`` and
    ``randomize`` bools, ``limit`` and ``node_budget`` int64.

    Parameters
    ----------
    grids : ndarray of int8, shape (P, C), read-only
        0 for a blank, digits 1..N.
    peers, units, cell_units : ndarray of int32
        Geometry tables, shapes (C, P), (3N, N), (C, 3).
    locked : bool
        Propagate locked candidates too (pays off from 16 x 16 up).
    limit : int
        Stop each search after this many solutions (>= 1).
    node_budget : int
        Give up a search after this many branches (see ``stats``).
    weights : ndarray of int64, shape (3N,)
        Unit weights for branching, updated in place (a restart reuses what a search learnt).
    fresh_weights : bool
        Set every weight to 1 before each grid's search (a batch: grids independent of each other).
    rng : np.random.Generator
        Source of the random digit order; advanced only when ``randomize``.
    randomize : bool
        False: digits in increasing order. True: random digit order.
    out : ndarray of int8, shape (P, K, C)
        Output: per grid, the first ``min(K, count)`` solutions; K may be 0 to only count.
    counts : ndarray of int64, shape (P,)
        Output: solutions found per grid, at most ``limit``; 0 for clashing givens.
    stats : ndarray of int64, shape (P, N_STATS)
        Output per grid: ``[STAT_NODES]`` branches tried, ``[STAT_EXHAUSTED]`` 1 if the budget ran out
        (the count is then only a lower bound).
    """
    ws = _workspace(units, cell_units)
    for i in range(grids.shape[0]):
        if fresh_weights:
            weights[:] = 1
        counts[i] = _search(
            grids[i],
            peers,
            units,
            cell_units,
            locked,
            limit,
            node_budget,
            weights,
            rng,
            randomize,
            out[i],
            stats[i],
            ws,
        )


#: The generator :func:`search` is given when it draws nothing (a deterministic search): never advanced.
NO_RNG = np.random.default_rng(0)


def readonly(a):
    """``a`` as :func:`search` takes its grids: C-contiguous int8 and read-only (a view: no copy of a good array)."""
    a = np.ascontiguousarray(a, dtype=np.int8)
    if a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


def _call(grids, peers, units, cell_units, locked, limit, node_budget, weights, fresh, rng, randomize, out, stats):
    """:func:`search` on ``out`` (P, K, C), with the per-grid counts and ``stats`` (P, N_STATS) it fills."""
    counts = np.zeros(grids.shape[0], dtype=np.int64)
    target = out if out.flags.c_contiguous else np.ascontiguousarray(out)
    search(
        readonly(grids),
        peers,
        units,
        cell_units,
        bool(locked),
        np.int64(limit),
        np.int64(node_budget),
        weights,
        bool(fresh),
        rng,
        bool(randomize),
        target,
        counts,
        stats,
    )
    if target is not out:
        out[...] = target
    return counts


def solve_grid(grid, peers, units, cell_units, locked, limit, node_budget, weights, out, stats):
    """Find up to ``limit`` solutions of one grid, digits tried in increasing order (through :func:`search`).

    Parameters
    ----------
    grid : ndarray of int8, shape (C,)
        0 for a blank, digits 1..N.
    peers, units, cell_units : ndarray of int32
        Geometry tables, shapes (C, P), (3N, N), (C, 3).
    locked : bool
        Propagate locked candidates too (pays off from 16 x 16 up).
    limit : int
        Stop after this many solutions (>= 1).
    node_budget : int
        Give up after this many branches (see ``stats``).
    weights : ndarray of int64, shape (3N,)
        Unit weights for branching, usually all 1; updated in place so a
        restart can reuse what this search learnt.
    out : ndarray of int8, shape (K, C)
        Output: the first ``min(K, count)`` solutions; K may be 0 to only count.
    stats : ndarray of int64, shape (N_STATS,)
        Output: ``[STAT_NODES]`` branches tried, ``[STAT_EXHAUSTED]`` 1 if the
        budget ran out (the count is then only a lower bound).

    Returns
    -------
    int
        Number of solutions found, at most ``limit``; 0 for clashing givens.
    """
    st = np.zeros((1, N_STATS), dtype=np.int64)
    counts = _call(
        np.asarray(grid)[None], peers, units, cell_units, locked, limit, node_budget, weights, False, NO_RNG, False,
        out[None], st,
    )  # fmt: skip
    stats[:] = st[0]
    return int(counts[0])


def random_fill(grid, peers, units, cell_units, locked, node_budget, weights, rng, out, stats):
    """Complete a grid with digits tried in random order (one solution; through :func:`search`).

    Solving the empty grid this way gives a random complete grid. With a
    budget, a search that wanders into a huge refuted subtree is abandoned so
    the caller can restart it with fresh random numbers (and the weights it
    learnt), which beats waiting on such a search by orders of magnitude.

    Parameters
    ----------
    grid : ndarray of int8, shape (C,)
        0 for a blank, digits 1..N.
    peers, units, cell_units : ndarray of int32
        Geometry tables, shapes (C, P), (3N, N), (C, 3).
    locked : bool
        Propagate locked candidates too.
    node_budget : int
        Give up after this many branches.
    weights : ndarray of int64, shape (3N,)
        Unit weights for branching, updated in place.
    rng : np.random.Generator
        Source of the digit order; advanced in place.
    out : ndarray of int8, shape (1, C)
        Output: the completed grid when the return value is 1.
    stats : ndarray of int64, shape (N_STATS,)
        Output: branches tried, budget exhausted flag.

    Returns
    -------
    int
        1 if a completion was found, 0 if there is none or the budget ran out
        (``stats[STAT_EXHAUSTED]`` tells which).
    """
    st = np.zeros((1, N_STATS), dtype=np.int64)
    counts = _call(
        np.asarray(grid)[None], peers, units, cell_units, locked, 1, node_budget, weights, False, rng, True,
        out[None], st,
    )  # fmt: skip
    stats[:] = st[0]
    return int(counts[0])


def solve_batch(grids, peers, units, cell_units, locked, limit, out, counts, nodes):
    """Search many grids of one size in one call (complete search, no budget; through :func:`search`).

    Parameters
    ----------
    grids : ndarray of int8, shape (P, C)
    peers, units, cell_units : ndarray of int32
        Geometry tables, shapes (C, P), (3N, N), (C, 3).
    locked : bool
        Propagate locked candidates too.
    limit : int
        Count solutions of each grid up to this many (>= 1).
    out : ndarray of int8, shape (P, C)
        Output: first solution of each grid; rows of grids without one are
        left untouched.
    counts : ndarray of int64, shape (P,)
        Output: solutions found per grid, at most ``limit``.
    nodes : ndarray of int64, shape (P,)
        Output: branches tried per grid.
    """
    weights = np.ones(units.shape[0], dtype=np.int64)
    st = np.zeros((len(grids), N_STATS), dtype=np.int64)
    counts[:] = _call(
        grids, peers, units, cell_units, locked, limit, np.iinfo(np.int64).max, weights, True, NO_RNG, False,
        out[:, None, :], st,
    )  # fmt: skip
    nodes[:] = st[:, STAT_NODES]
