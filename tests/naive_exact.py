"""The exact search as it was before its speed-up, kept as the twin the fast kernel must equal.

This is ``sudoku_lab/_kernels/exact.py`` as of the commit before the dirty-unit
scan, cached unit weights per cell and the 9 x 9 fast path: every unit is
rescanned for hidden singles on every pass, the branching cell's weight is
summed from its three units at every node. The tests demand that the kernel
of the package finds the same solutions, in the same order, with the same
number of branches and the same learnt unit weights, as this one. Nothing in
the package imports this file.
"""

from __future__ import annotations

import numpy as np

from sudoku_lab._kernels.common import jit, lowest_digit, popcount

__all__ = [
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
def _init_masks(grid, N, masks, queue):
    """Fill the root masks from a grid; return the number of givens queued.

    Parameters
    ----------
    grid : ndarray of int8, shape (C,)
        0 for a blank, digits 1..N.
    N : int
        Side of the grid.
    masks : ndarray of uint32, shape (C,)
        Output: the given's bit for givens, all N bits for blanks.
    queue : ndarray of int32, shape (C,)
        Output: the givens, to be propagated.

    Returns
    -------
    int
        Number of givens, or -1 if a cell holds a value outside 0..N.
    """
    full = (np.int64(1) << N) - 1
    n_queued = 0
    for cell in range(grid.shape[0]):
        d = np.int64(grid[cell])
        if d == 0:
            masks[cell] = full
        elif 1 <= d <= N:
            masks[cell] = np.int64(1) << (d - 1)
            queue[n_queued] = cell
            n_queued += 1
        else:
            return -1
    return n_queued


@jit
def _cell_at(transposed, line, pos, N):
    """Cell at position ``pos`` of row ``line`` (or of column ``line`` if transposed)."""
    if transposed:
        return pos * N + line
    return line * N + pos


@jit
def _strike(masks, cell, bits, queue, n_queued):
    """Remove ``bits`` from a cell that has some of them; queue it if it became fixed.

    Returns the new queue length, or -1 if the cell has no candidate left.
    """
    m = np.int64(masks[cell]) & ~bits
    if m == 0:
        return -1
    masks[cell] = m
    if m & (m - 1) == 0:
        queue[n_queued] = cell
        n_queued += 1
    return n_queued


@jit
def _strike_locked(masks, cell, bits, queue, n_queued, weights, line_unit, box_unit):
    """:func:`_strike` for a locked-candidates rule: a wipe-out blames the line and the box (dom/wdeg)."""
    n_queued = _strike(masks, cell, bits, queue, n_queued)
    if n_queued < 0:
        weights[line_unit] += 1
        weights[box_unit] += 1
    return n_queued


@jit
def _locked_candidates(masks, weights, queue, n_queued, seg):
    """One pass of pointing and claiming over every box-line intersection.

    Parameters
    ----------
    masks : ndarray of uint32, shape (C,)
        Candidate masks, narrowed in place.
    weights : ndarray of int64, shape (3N,)
        Unit weights; the line and box of a refutation gain 1.
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
                                masks, cell, bits, queue, n_queued, weights, t * N + line, 2 * N + box
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
                                masks, cell, bits, queue, n_queued, weights, t * N + line, 2 * N + box
                            )
                            if n_queued < 0:
                                return -1, n_queued
    return changed, n_queued


@jit
def _propagate(masks, peers, units, cell_units, locked, weights, queue, n_queued, seg):
    """Propagate singles (and locked candidates) to a fixed point, in place.

    Parameters
    ----------
    masks : ndarray of uint32, shape (C,)
        Candidate masks of one node; narrowed in place.
    peers : ndarray of int32, shape (C, P)
    units : ndarray of int32, shape (3N, N)
    cell_units : ndarray of int32, shape (C, 3)
    locked : bool
        Also apply locked candidates (pointing and claiming).
    weights : ndarray of int64, shape (3N,)
        Unit weights; the unit(s) behind a refutation gain 1.
    queue : ndarray of int32, shape (C,)
        ``queue[:n_queued]``: fixed cells whose digit has not been removed
        from their peers yet. Used as scratch afterwards.
    n_queued : int
    seg : ndarray of int64, shape (2, 2, N, n)
        Scratch for locked candidates.

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
    N = units.shape[1]
    full = (np.int64(1) << N) - 1
    head = 0
    while True:
        while head < n_queued:
            cell = queue[head]
            head += 1
            bit = np.int64(masks[cell])
            for j in range(peers.shape[1]):
                p = peers[cell, j]
                if np.int64(masks[p]) & bit:
                    n_queued = _strike(masks, p, bit, queue, n_queued)
                    if n_queued < 0:
                        for a in range(3):
                            for b in range(3):
                                if cell_units[cell, a] == cell_units[p, b]:
                                    weights[cell_units[cell, a]] += 1
                        return False
        # Hidden singles only once naked singles are exhausted: they are the
        # costlier scan, and naked singles often finish a node on their own.
        for u in range(units.shape[0]):
            once = np.int64(0)
            twice = np.int64(0)
            fixed = np.int64(0)
            for k in range(N):
                m = np.int64(masks[units[u, k]])
                twice |= once & m
                once |= m
                if m & (m - 1) == 0:
                    fixed |= m
            if once != full:
                weights[u] += 1
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
                    weights[u] += 1
                    return False
                masks[target] = bit
                queue[n_queued] = target
                n_queued += 1
        if head < n_queued:
            continue
        if not locked:
            return True
        changed, n_queued = _locked_candidates(masks, weights, queue, n_queued, seg)
        if changed < 0:
            return False
        if changed == 0:
            return True


@jit
def _branch_cell(masks, cell_units, weights):
    """The unfixed cell minimising candidates / unit weight, or -1 if all are fixed.

    Parameters
    ----------
    masks : ndarray of uint32, shape (C,)
    cell_units : ndarray of int32, shape (C, 3)
    weights : ndarray of int64, shape (3N,)

    Returns
    -------
    int
        The first cell (in reading order) with the smallest ratio.
    """
    best = -1
    best_count = np.int64(1)
    best_weight = np.int64(0)
    for cell in range(masks.shape[0]):
        m = np.int64(masks[cell])
        if m & (m - 1):
            count = popcount(m)
            weight = weights[cell_units[cell, 0]] + weights[cell_units[cell, 1]] + weights[cell_units[cell, 2]]
            # count / weight < best_count / best_weight, without division.
            if count * best_weight < best_count * weight:
                best = cell
                best_count = count
                best_weight = weight
    return best


@jit
def _pick(remaining, rng):
    """One digit bit of ``remaining``: the lowest, or a uniformly random one."""
    if rng is None:
        return remaining & -remaining
    skip = rng.integers(0, popcount(remaining))
    for _ in range(skip):
        remaining &= remaining - 1
    return remaining & -remaining


@jit
def _workspace(C, N):
    """Scratch arrays of :func:`_search` for grids of C = N * N cells."""
    n = 2
    while n * n < N:
        n += 1
    stack = np.empty((C + 1, C), dtype=np.uint32)
    remaining = np.empty(C + 1, dtype=np.int64)
    branch_cell = np.empty(C + 1, dtype=np.int32)
    queue = np.empty(C, dtype=np.int32)
    seg = np.empty((2, 2, N, n), dtype=np.int64)
    return stack, remaining, branch_cell, queue, seg


@jit
def _search(grid, peers, units, cell_units, locked, limit, node_budget, weights, rng, out, stats, ws):
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
    rng : np.random.Generator or None
        None: digits in increasing order. A generator: random digit order.
    out : ndarray of int8, shape (K, C)
        The first ``min(K, count)`` solutions are written here; K may be 0.
    stats : ndarray of int64, shape (N_STATS,)
        Output: branches tried, budget exhausted flag.
    ws : tuple
        Workspace from :func:`_workspace`.

    Returns
    -------
    int
        Number of solutions found (at most ``limit``); 0 if the givens clash
        or a value is outside 0..N.
    """
    stack, remaining, branch_cell, queue, seg = ws
    C = grid.shape[0]
    N = units.shape[1]
    stats[STAT_NODES] = 0
    stats[STAT_EXHAUSTED] = 0
    n_queued = _init_masks(grid, N, stack[0], queue)
    if n_queued < 0:
        return 0
    ok = _propagate(stack[0], peers, units, cell_units, locked, weights, queue, n_queued, seg)
    depth = 0
    remaining[0] = 0
    count = 0
    nodes = 0
    while True:
        if ok:
            cell = _branch_cell(stack[depth], cell_units, weights)
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
        bit = _pick(remaining[depth], rng)
        remaining[depth] ^= bit
        cell = branch_cell[depth]
        if remaining[depth] != 0:
            for c in range(C):
                stack[depth + 1, c] = stack[depth, c]
            depth += 1
            remaining[depth] = 0
        stack[depth, cell] = bit
        queue[0] = cell
        ok = _propagate(stack[depth], peers, units, cell_units, locked, weights, queue, 1, seg)
    stats[STAT_NODES] = nodes
    return count


@jit
def solve_grid(grid, peers, units, cell_units, locked, limit, node_budget, weights, out, stats):
    """Find up to ``limit`` solutions of one grid, digits tried in increasing order.

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
    ws = _workspace(grid.shape[0], units.shape[1])
    return _search(grid, peers, units, cell_units, locked, limit, node_budget, weights, None, out, stats, ws)


@jit
def random_fill(grid, peers, units, cell_units, locked, node_budget, weights, rng, out, stats):
    """Complete a grid with digits tried in random order (one solution).

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
    ws = _workspace(grid.shape[0], units.shape[1])
    return _search(grid, peers, units, cell_units, locked, 1, node_budget, weights, rng, out, stats, ws)


@jit
def solve_batch(grids, peers, units, cell_units, locked, limit, out, counts, nodes):
    """Search many grids of one size in one call (complete search, no budget).

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
    ws = _workspace(grids.shape[1], units.shape[1])
    weights = np.empty(units.shape[0], dtype=np.int64)
    stats = np.zeros(N_STATS, dtype=np.int64)
    budget = np.iinfo(np.int64).max
    for i in range(grids.shape[0]):
        weights[:] = 1
        counts[i] = _search(
            grids[i], peers, units, cell_units, locked, limit, budget, weights, None, out[i : i + 1], stats, ws
        )
        nodes[i] = stats[STAT_NODES]
