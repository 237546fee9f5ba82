"""Slow, obvious twins of the numba kernels.

Every kernel in ``sudoku_lab/_kernels`` has a reference implementation here,
written in the plainest pure Python (sets, lists, loops; rows, columns and
boxes recomputed from scratch rather than read from ``sudoku_lab.model.geometry``)
and following exactly the same order of operations, so that the tests can
demand equality with the kernel entry by entry on small inputs. Clarity
beats speed in this file; nothing in the package imports it.
"""

from __future__ import annotations

from typing import NamedTuple


def _units(n: int) -> list[list[int]]:
    """Cells of every unit: rows, then columns, then boxes; boxes and their cells in reading order."""
    N = n * n
    rows = [[r * N + c for c in range(N)] for r in range(N)]
    cols = [[r * N + c for r in range(N)] for c in range(N)]
    boxes = []
    for br in range(n):
        for bc in range(n):
            boxes.append([(br * n + i) * N + bc * n + j for i in range(n) for j in range(n)])
    return rows + cols + boxes


def _peers(n: int, cell: int) -> list[int]:
    """The other cells of ``cell``'s row, column and box, sorted."""
    N = n * n
    r, c = divmod(cell, N)
    return [
        other
        for other in range(N * N)
        if other != cell
        and (other // N == r or other % N == c or (other // N // n, other % N // n) == (r // n, c // n))
    ]


class NaiveAC3(NamedTuple):
    """What :func:`naive_ac3` returns; the fields mirror ``sudoku_lab.exact.ac3.AC3Result``."""

    domains: list[set[int]]
    log: list[tuple[int, int, int, int]]
    pops: list[int]
    wipeout_cell: int | None
    wipeout_unit: int | None
    wipeout_digit: int | None


def naive_ac3(domains: list[set[int]], n: int, hidden_singles: bool = False) -> NaiveAC3:
    """AC3 as singleton propagation, optionally with hidden singles.

    Parameters
    ----------
    domains : list of set of int, length C
        Candidate digits of every cell (not modified).
    n : int
        Box size.
    hidden_singles : bool
        When the queue is empty, fix the first (unit, digit) with one place
        left (units in order, digits increasing), or stop if a digit has no
        place left.

    Returns
    -------
    NaiveAC3
        Final domains; the log of removals ``(pop, cell, digit, because)``
        with ``because = -(1 + unit)`` for hidden singles (attached to the
        pop of the hidden single's cell, which comes next); the cells in pop
        order; the wiped-out cell or unit and the digit involved (None
        without a wipe-out; the digit is None for a domain empty from the
        start).

    Notes
    -----
    Twin of ``sudoku_lab._kernels.ac3.propagate`` (docs/algorithms.md, "AC3").
    """
    N = n * n
    doms = [set(d) for d in domains]
    units = _units(n)
    peers = [_peers(n, cell) for cell in range(N * N)]
    log: list[tuple[int, int, int, int]] = []
    pops: list[int] = []

    def result(cell=None, unit=None, digit=None):
        return NaiveAC3(doms, log, pops, cell, unit, digit)

    for cell, d in enumerate(doms):
        if not d:
            return result(cell=cell)
    queue = [cell for cell, d in enumerate(doms) if len(d) == 1]
    while True:
        while queue:
            cell = queue.pop(0)
            pop = len(pops)
            pops.append(cell)
            (digit,) = doms[cell]
            for peer in peers[cell]:
                if digit in doms[peer]:
                    doms[peer].remove(digit)
                    log.append((pop, peer, digit, cell))
                    if not doms[peer]:
                        return result(cell=peer, digit=digit)
                    if len(doms[peer]) == 1:
                        queue.append(peer)
        if not hidden_singles:
            return result()
        found = None
        for u, unit in enumerate(units):
            for digit in range(1, N + 1):
                places = [c for c in unit if digit in doms[c]]
                if not places:
                    return result(unit=u, digit=digit)
                if len(places) == 1 and len(doms[places[0]]) > 1:
                    found = (u, digit, places[0])
                    break
            if found:
                break
        if found is None:
            return result()
        u, digit, cell = found
        for other in sorted(doms[cell] - {digit}):
            log.append((len(pops), cell, other, -(1 + u)))
        doms[cell] = {digit}
        queue.append(cell)


# --------------------------------------------------------------------- RESEDA
# Twins of sudoku_lab/_kernels/reseda.py. Random numbers come only from
# rng.random(), drawn in exactly the kernel's order, so from the same seed a
# twin and its kernel produce identical samples.


def naive_draw(row: list[float], allowed: list[int], rng) -> int:
    """A digit from ``row`` restricted to ``allowed`` digits (1-based), one draw; 0 if no mass."""
    weights = [(d, row[d - 1]) for d in sorted(allowed)]
    total = 0.0
    for _, w in weights:  # summed in digit order, as the kernel does (bit-equal floats)
        total += w
    r = rng.random()
    if not total > 0:  # no mass: the same draw picks an allowed digit uniformly
        return weights[int(r * len(weights))][0] if weights else 0
    u = r * total
    acc = 0.0
    last = 0
    for d, w in weights:
        if w > 0:
            acc += w
            last = d
            if u < acc:
                return d
    return last


def naive_sample_independent(p, base: list[int], rng) -> list[int]:
    """Each blank cell of ``base`` (in cell order) drawn from its own row of ``p``."""
    N = len(p[0])
    out = list(base)
    for c, v in enumerate(base):
        if v == 0:
            out[c] = naive_draw(list(p[c]), list(range(1, N + 1)), rng)
    return out


def naive_sample_blocks(p, base: list[int], n: int, rng) -> list[int]:
    """A permutation per box: most confident cell first; uniform fill once a cell has no mass left.

    Like the kernel (so the floats match bit for bit), a cell's available mass
    is kept by subtracting each digit taken while its top digit stays, and
    summed again from scratch, with the new top, when its top digit is taken;
    "no mass left" means no available digit with positive probability.
    """
    N = n * n
    out = list(base)
    for box in _units(n)[2 * N :]:
        free = [c for c in box if base[c] == 0]
        avail = set(range(1, N + 1)) - {base[c] for c in box if base[c]}
        total, top, top_digit = {}, {}, {}
        for c in free:
            t, hi, hd = 0.0, 0.0, None
            for d in sorted(avail):
                t += p[c][d - 1]
                if p[c][d - 1] > hi:
                    hi, hd = p[c][d - 1], d
            total[c], top[c], top_digit[c] = t, hi, hd
        left = list(free)
        while left:
            best, best_val, starved = None, -1.0, False
            for c in left:
                if not any(p[c][d - 1] > 0 for d in avail):
                    starved = True
                    break
                val = top[c] / total[c]
                if val > best_val:
                    best, best_val = c, val
            if starved:
                digits = sorted(avail)
                for i in range(len(digits) - 1, 0, -1):
                    j = int(rng.random() * (i + 1))
                    digits[i], digits[j] = digits[j], digits[i]
                for c, d in zip(left, digits):
                    out[c] = d
                break
            d = naive_draw(list(p[best]), sorted(avail), rng)
            out[best] = d
            avail.discard(d)
            left.remove(best)
            for c in left:
                if p[c][d - 1] > 0:
                    if top_digit[c] == d:
                        t = 0.0
                        for e in sorted(avail):
                            t += p[c][e - 1]
                        cands = [(p[c][e - 1], -e) for e in sorted(avail) if p[c][e - 1] > 0]
                        total[c] = t
                        top[c], top_digit[c] = (max(cands)[0], -max(cands)[1]) if cands else (0.0, None)
                    else:
                        total[c] -= p[c][d - 1]
    return out


def naive_missing_cost(grid: list[int], n: int) -> int:
    """Digits absent from each row, column and box, summed."""
    N = n * n
    return sum(N - len({grid[c] for c in unit} - {0}) for unit in _units(n))


def naive_select_sort(costs: list[int], Q1: int, rng) -> list[int]:
    """Indices of the Q1 cheapest samples; ties ordered by a Fisher-Yates shuffle of ranks."""
    Q = len(costs)
    rank = list(range(Q))
    for i in range(Q - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        rank[i], rank[j] = rank[j], rank[i]
    order = sorted(range(Q), key=lambda q: (costs[q], rank[q]))
    return order[:Q1]


def naive_select_groups(costs: list[int], Q1: int) -> list[int]:
    """The first cheapest sample of each of Q1 consecutive groups."""
    Q = len(costs)
    out = []
    for g in range(Q1):
        group = list(range(g * Q // Q1, (g + 1) * Q // Q1))
        out.append(min(group, key=lambda q: (costs[q], q)))
    return out


def naive_update(p, samples, kept: list[int], free: list[int], alpha: float):
    """p <- alpha*p + (1-alpha)*r on free cells, r = digit frequencies among the kept samples."""
    N = len(p[0])
    Q1 = len(kept)
    new = [list(row) for row in p]
    for c in free:
        counts = [0] * N
        for k in kept:
            counts[samples[k][c] - 1] += 1
        new[c] = [alpha * p[c][d] + (1.0 - alpha) * (counts[d] / Q1) for d in range(N)]
    return new


def naive_rho(p, free: list[int]) -> float:
    """min over free cells of max_k p (1.0 when nothing is free)."""
    return min((max(p[c]) for c in free), default=1.0)
