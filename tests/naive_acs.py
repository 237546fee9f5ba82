"""Slow, obvious twin of the ACS kernels (``sudoku_lab/_kernels/acs.py``).

Candidates as Python sets of digits, units and peers recomputed from scratch, plain lists of
floats for the pheromone; the same order of operations and the same ``rng.random()`` draws as the
kernels, so that the tests can demand equality from the same seed. Nothing in the package imports
this file.
"""

from __future__ import annotations

from naive import _peers, _units  # tests/naive.py


class NaiveBoard:
    """One board: a set of candidate digits per cell, with propagation as the kernel's ``assign``."""

    def __init__(self, n: int, cand: list[set[int]]):
        self.n = n
        self.N = n * n
        self.units = _units(n)
        self.cell_units = [[u for u, cells in enumerate(self.units) if c in cells] for c in range(self.N**2)]
        self.peers = [_peers(n, c) for c in range(self.N**2)]
        self.cand = [set(s) for s in cand]

    def assign(self, cell: int, digit: int) -> list[tuple[int, str]]:
        """Fix ``cell`` to ``digit``; propagate; the log: (cell, 'single' | 'hidden' | 'failed')."""
        cand = self.cand
        cand[cell] = {digit}
        queue = [cell]
        stack: list[int] = []
        log: list[tuple[int, str]] = []

        def mark(k):
            for u in self.cell_units[k]:
                if u not in stack:
                    stack.append(u)

        mark(cell)
        while True:
            while queue:
                c = queue.pop(0)
                if not cand[c]:
                    continue
                (d,) = cand[c]
                for k in self.peers[c]:
                    if d in cand[k]:
                        cand[k].discard(d)
                        mark(k)
                        if not cand[k]:
                            log.append((k, "failed"))
                        elif len(cand[k]) == 1:
                            queue.append(k)
                            log.append((k, "single"))
            if not stack:
                break
            u = stack.pop()
            count = {}
            for k in self.units[u]:
                for d in cand[k]:
                    count[d] = count.get(d, 0) + 1
            hidden = {d for d, v in count.items() if v == 1}
            for k in self.units[u]:
                if len(cand[k]) >= 2 and cand[k] & hidden:
                    cand[k] = {min(cand[k] & hidden)}
                    queue.append(k)
                    log.append((k, "hidden"))
                    mark(k)
                    break
        return log

    def grid(self) -> list[int]:
        return [next(iter(s)) if len(s) == 1 else 0 for s in self.cand]


def naive_base(grid: list[int], n: int) -> list[set[int]]:
    """The puzzle's candidates after propagation: every given fixed in cell order (skipped when already fixed)."""
    N = n * n
    b = NaiveBoard(n, [set(range(1, N + 1)) for _ in grid])
    for c, d in enumerate(grid):
        if d and d in b.cand[c] and len(b.cand[c]) > 1:
            b.assign(c, d)
    return b.cand


def naive_choose(row: list[float], cands: set[int], q0: float, rng) -> tuple[int, bool]:
    """The pseudo-random proportional rule: greedy (most pheromone, lowest digit on ties) when u < q0."""
    ds = sorted(cands)
    if rng.random() < q0:
        return max(ds, key=lambda d: (row[d - 1], -d)), True
    total = 0.0
    for d in ds:
        total += row[d - 1]
    r = rng.random() * total
    acc = 0.0
    for d in ds:
        acc += row[d - 1]
        if acc > r:
            return d, False
    return ds[-1], False


class NaiveAcs:
    """The whole colony, iteration by iteration."""

    def __init__(self, grid: list[int], n: int, tau0: float = 0.0):
        self.n, self.N, self.C = n, n * n, n**4
        self.base = naive_base(grid, n)
        t0 = tau0 or 1.0 / self.C
        self.pher = [[t0] * self.N for _ in range(self.C)]
        self.best_pher = 0.0
        self.best = NaiveBoard(n, self.base).grid()  # the best-so-far's board
        self.cost = sum(1 for s in self.base if len(s) != 1)
        self.best_cost = self.cost
        self.best_grid = list(self.best)
        self.boards: list[NaiveBoard] = []
        self.solved = False

    def iteration(self, rng, ants=10, q0=0.9, rho=0.9, evap=0.005, tau0=0.0, xi=0.1) -> list[tuple]:
        """One iteration; returns the placements made, in order: (ant, cell, digit, greedy, log)."""
        C = self.C
        t0 = tau0 or 1.0 / C
        boards = []
        starts = []
        for _ in range(ants):
            boards.append(NaiveBoard(self.n, self.base))
            starts.append(int(rng.random() * C))
        placed = []
        for step in range(C):
            for a in range(ants):
                c = (starts[a] + step) % C
                b = boards[a]
                if len(b.cand[c]) < 2:
                    continue
                d, greedy = naive_choose(self.pher[c], b.cand[c], q0, rng)
                self.pher[c][d - 1] = (1.0 - xi) * self.pher[c][d - 1] + xi * t0
                placed.append((a, c, d, greedy, b.assign(c, d)))
        self.boards = boards
        failed = [sum(1 for s in b.cand if len(s) != 1) for b in boards]
        f = min(failed)
        ib = failed.index(f)
        deposit = C / f if f else 0.0
        if f == 0 or deposit > self.best_pher:
            self.best = boards[ib].grid()
            self.cost = f
            if f:
                self.best_pher = deposit
        if f < self.best_cost:
            self.best_cost = f
            self.best_grid = boards[ib].grid()
        if f == 0:
            self.solved = True
            return placed
        for c, d in enumerate(self.best):
            if d:
                self.pher[c][d - 1] = (1.0 - rho) * self.pher[c][d - 1] + rho * self.best_pher
        self.best_pher *= 1.0 - evap
        return placed
