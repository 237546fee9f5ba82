"""Slow, obvious twin of the cuckoo search kernel (``sudoku_lab/_kernels/cuckoo.py``).

Plain Python lists, sets and recursion, the AC3 of ``tests/naive.py``, the
crossovers from the pure operators of :mod:`sudoku_lab.solvers.cuckoo` (stated
on plain lists), and the same ``rng.random()`` / ``rng.standard_normal()``
draws in the same order as the kernel, so that the tests can demand equality
after every iteration from the same seed. Nothing in the package imports this.
"""

from __future__ import annotations

import math

from sudoku_lab.solvers.cuckoo import pmx, sorting_crossover

from naive import _peers, _units, naive_ac3  # tests/naive.py


def naive_shuffle(a: list, rng) -> None:
    """Fisher-Yates in place, one draw per slot from the last down to the second."""
    for i in range(len(a) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        a[i], a[j] = a[j], a[i]


def naive_domains(grid: list[int], n: int, mode: str):
    """Domains (list of sets) and prefilled grid: AC3's fixed point and its singletons, or the one-pass domains."""
    N = n * n
    C = N * N
    if mode == "ac3":
        start = [{g} if g else set(range(1, N + 1)) for g in grid]
        res = naive_ac3(start, n)
        assert res.wipeout_cell is None
        dom = res.domains
        pre = [next(iter(d)) if len(d) == 1 else 0 for d in dom]
        return dom, pre
    dom = []
    for c in range(C):
        if grid[c]:
            dom.append({grid[c]})
        else:
            dom.append(set(range(1, N + 1)) - {grid[p] for p in _peers(n, c)})
    return dom, list(grid)


class _GiveUp(Exception):
    pass


def naive_fill_row(egg: list[int], r: int, N: int, dom, pre, node_limit: int, rng) -> bool:
    """Randomised backtracking over the domains for row r's free cells; False (and a permutation) if it gave up."""
    free = [t for t in range(N) if pre[r * N + t] == 0]
    if not free:
        return True
    missing = sorted(set(range(1, N + 1)) - {pre[r * N + t] for t in range(N)})
    chosen = [0] * len(free)
    used: set[int] = set()
    nodes = 1

    def search(k: int) -> bool:
        nonlocal nodes
        cell = r * N + free[k]
        cands = [d for d in range(1, N + 1) if d in dom[cell] and d in missing and d not in used]
        naive_shuffle(cands, rng)
        for d in cands:
            chosen[k] = d
            used.add(d)
            if k == len(free) - 1:
                return True
            if nodes >= node_limit:
                raise _GiveUp
            nodes += 1
            if search(k + 1):
                return True
            used.discard(d)
        return False

    try:
        ok = search(0)
    except _GiveUp:
        ok = False
    if not ok:
        chosen = list(missing)
        naive_shuffle(chosen, rng)
    for t, pos in enumerate(free):
        egg[r * N + pos] = chosen[t]
    return ok


def naive_cost(egg: list[int], n: int) -> int:
    """Missing digits over the columns and boxes."""
    N = n * n
    return sum(N - len({egg[c] for c in u}) for u in _units(n)[N:])


def naive_levy_swaps(sigma: float, cap: int, rng) -> int:
    u = sigma * rng.standard_normal()
    v = rng.standard_normal()
    if v == 0.0:
        return cap
    step = abs(u) / abs(v) ** (1.0 / 1.5)
    return cap if step >= cap - 1 else 1 + int(step)


class NaiveCuckoo:
    """The cuckoo search state as lists, advanced one iteration at a time like the kernel.

    Parameters are the solver's (``w1..w3`` relative weights); ``history_rows`` is the capacity of the
    nest history before it halves.
    """

    def __init__(
        self,
        grid,
        n,
        rng,
        nests=22,
        pa=0.3,
        p_pmx=0.65,
        p_mut=0.9,
        w1=5.0,
        w2=3.0,
        w3=1.0,
        pmx_segment="best",
        levy=False,
        ties="keep",
        infeasible="discard",
        prefilter="ac3",
        fill_nodes=10_000,
        abandon="each",
        history_rows=4096,
        **_,
    ):
        self.n, self.N = n, n * n
        self.rng = rng
        self.nests, self.pa, self.p_pmx, self.p_mut = nests, pa, p_pmx, p_mut
        total = w1 + w2 + w3
        self.c1 = w1 / total
        self.c2 = w1 / total + w2 / total
        self.segment, self.levy, self.ties, self.infeasible = pmx_segment, levy, ties, infeasible
        self.fill_nodes = fill_nodes
        self.abandon = abandon
        beta = 1.5
        self.sigma = (
            (math.gamma(1 + beta) * math.sin(math.pi * beta / 2))
            / (math.gamma((1 + beta) / 2) * beta * 2 ** ((beta - 1) / 2))
        ) ** (1 / beta)
        self.dom, self.pre = naive_domains([int(x) for x in grid], n, prefilter)
        self.eggs = [self.new_egg() for _ in range(nests)]
        self.costs = [naive_cost(e, n) for e in self.eggs]
        self.best = min(range(nests), key=lambda k: (self.costs[k], k))
        self.best_grid = list(self.eggs[self.best])
        self.best_cost = self.costs[self.best]
        self.iteration = 0
        self.counts = {"pmx": 0, "sorting": 0, "mutations": 0, "abandoned": 0, "swaps": 0, "discarded": 0}
        self.history: list[list[int]] = []
        self.stride, self.pending, self.H = 1, 0, history_rows
        self.picked = self.replaced = -1
        self.operator, self.mutated, self.abandoned = "none", False, [False] * nests

    def new_egg(self) -> list[int]:
        egg = list(self.pre)
        for r in range(self.N):
            naive_fill_row(egg, r, self.N, self.dom, self.pre, self.fill_nodes, self.rng)
        return egg

    def row(self, egg, r):
        return egg[r * self.N : (r + 1) * self.N]

    def feasible(self, child, r) -> bool:
        return all(child[t] in self.dom[r * self.N + t] for t in range(self.N))

    def mutate_once(self, egg) -> int:
        N = self.N
        rows = [r for r in range(N) if sum(self.pre[r * N + t] == 0 for t in range(N)) >= 2]
        if not rows:
            return 0
        r = rows[int(self.rng.random() * len(rows))]
        free = [r * N + t for t in range(N) if self.pre[r * N + t] == 0]
        pairs = [
            (a, b) for i, a in enumerate(free) for b in free[i + 1 :] if egg[b] in self.dom[a] and egg[a] in self.dom[b]
        ]
        if not pairs:
            return 0
        a, b = pairs[int(self.rng.random() * len(pairs))]
        egg[a], egg[b] = egg[b], egg[a]
        return 1

    def iterate(self) -> None:
        rng, N, nests = self.rng, self.N, self.nests
        b = self.best
        i = int(rng.random() * nests)
        new = list(self.eggs[i])
        op, mutated = "none", False
        if i != b:
            if rng.random() < self.p_pmx:
                op = "pmx"
                for r in range(N):
                    lo, hi = int(rng.random() * N), int(rng.random() * N)
                    lo, hi = min(lo, hi), max(lo, hi)
                    best_row, cur_row = self.row(self.best_grid, r), self.row(self.eggs[i], r)
                    child = pmx(best_row, cur_row, lo, hi) if self.segment == "best" else pmx(cur_row, best_row, lo, hi)
                    self._put(new, child, r, self.row(self.best_grid, r))
            else:
                op = "sorting"
                for r in range(N):
                    mask = []
                    for _ in range(N):
                        u = rng.random()
                        mask.append(1 if u < self.c1 else 2 if u < self.c2 else 3)
                    child = sorting_crossover(
                        [self.row(self.best_grid, r), self.row(self.eggs[b], r), self.row(self.eggs[i], r)], mask
                    )
                    self._put(new, child, r, self.row(self.best_grid, r))
            self.counts[op] += 1
            if rng.random() < self.p_mut:
                mutated = True
                self.counts["mutations"] += 1
                k = naive_levy_swaps(self.sigma, N, rng) if self.levy else 1
                for _ in range(k):
                    self.counts["swaps"] += self.mutate_once(new)
            c_new = naive_cost(new, self.n)
        else:
            c_new = self.costs[i]
        j = int(rng.random() * (nests - 1))
        j += j >= i
        replaced = -1
        if c_new < self.costs[j] or (self.ties == "replace" and c_new == self.costs[j]):
            self.eggs[j], self.costs[j], replaced = new, c_new, j
            if c_new < self.costs[b]:
                b = j
        self.abandoned = [False] * nests
        worst = set(
            sorted((k for k in range(nests) if k != b), key=lambda k: (-self.costs[k], k))[
                : min(int(self.pa * nests), nests - 1)
            ]
        )
        for k in range(nests):
            if k != b and (k in worst if self.abandon == "worst" else rng.random() < self.pa):
                self.eggs[k] = self.new_egg()
                self.costs[k] = naive_cost(self.eggs[k], self.n)
                self.abandoned[k] = True
                self.counts["abandoned"] += 1
        low = min(range(nests), key=lambda k: (self.costs[k], k))
        if self.costs[low] < self.costs[b]:
            b = low
        self.best = b
        if self.costs[b] < self.best_cost:
            self.best_cost, self.best_grid = self.costs[b], list(self.eggs[b])
        self.iteration += 1
        self.picked, self.replaced, self.operator, self.mutated = i, replaced, op, mutated
        self.pending += 1
        if self.pending >= self.stride:
            self.history.append(list(self.costs))
            self.pending = 0
            if len(self.history) == self.H:
                self.history = self.history[1::2]
                self.stride *= 2

    def _put(self, new, child, r, best_row) -> None:
        if self.infeasible == "accept" or self.feasible(child, r):
            new[r * self.N : (r + 1) * self.N] = child
        else:
            self.counts["discarded"] += 1
            if self.infeasible == "best":
                new[r * self.N : (r + 1) * self.N] = best_row
