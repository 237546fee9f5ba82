"""Slow, obvious twins of the hill-climbing kernels (sudoku_lab/_kernels/hill_climb.py).

Plain Python on lists: f1 and f2 are recomputed from scratch for every
candidate swap (no digit counts, no delta evaluation), rows, columns and boxes
come from :func:`naive._units`, and the random draws (``rng.random()``) are
taken in exactly the kernels' order, so the tests can demand equality state
for state and draw for draw. Nothing in the package imports this file.
"""

from __future__ import annotations

from naive import _units


def shuffle(a: list, rng) -> None:
    """Fisher-Yates from the last position down to the second, one ``rng.random()`` each."""
    for i in range(len(a) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        a[i], a[j] = a[j], a[i]


def given_clashes(givens: list[int], n: int, cell: int, d: int) -> int:
    """Givens holding ``d`` in ``cell``'s row plus those in its column."""
    N = n * n
    r, c = divmod(cell, N)
    return sum(givens[r * N + k] == d for k in range(N)) + sum(givens[k * N + c] == d for k in range(N))


def scores(grid: list[int], givens: list[int], n: int) -> tuple[int, int]:
    """(f1, f2) from scratch: distinct digits per row and column; (free cell, given) clashes."""
    N = n * n
    units = _units(n)
    f1 = sum(len(set(grid[c] for c in u) - {0}) for u in units[: 2 * N])
    f2 = sum(given_clashes(givens, n, c, grid[c]) for c in range(N * N) if givens[c] == 0)
    return f1, f2


def box_free(givens: list[int], n: int) -> list[list[int]]:
    return [[c for c in box if givens[c] == 0] for box in _units(n)[2 * n * n :]]


def initial_state(givens: list[int], n: int, greedy: bool, post_swap: bool, random_order: bool, rng) -> list[int]:
    """The paper's greedy placement and post-swapping (see the kernel's docstring for the order)."""
    N = n * n
    grid = list(givens)
    frees = box_free(givens, n)
    for b, box in enumerate(_units(n)[2 * N :]):
        digits = sorted(set(range(1, N + 1)) - {givens[c] for c in box})
        if random_order:
            shuffle(digits, rng)
        for c in frees[b]:
            pick = None
            if greedy:
                pick = next((d for d in digits if given_clashes(givens, n, c, d) == 0), None)
            if pick is None:
                pick = digits[0]
            digits.remove(pick)
            grid[c] = pick
    if post_swap:
        for b in range(N):
            free = frees[b]
            for i, c in enumerate(free):
                if given_clashes(givens, n, c, grid[c]) == 0:
                    continue
                others = [j for j in range(len(free)) if j != i]
                shuffle(others, rng)
                for j in others:
                    c2 = free[j]
                    if given_clashes(givens, n, c, grid[c2]) == 0 and given_clashes(givens, n, c2, grid[c]) == 0:
                        grid[c], grid[c2] = grid[c2], grid[c]
                        break
    return grid


def swaps(givens: list[int], n: int):
    """Every in-box swap of two free cells, in the kernel's order."""
    for free in box_free(givens, n):
        for i in range(len(free) - 1):
            for j in range(i + 1, len(free)):
                yield free[i], free[j]


def swapped(grid: list[int], a: int, b: int) -> list[int]:
    g = list(grid)
    g[a], g[b] = g[b], g[a]
    return g


def best_swap(grid, givens, n, w1, w2, random_ties, rng):
    """(a, b, delta, df1, df2, evaluated): every swap scored by full re-evaluation."""
    f1, f2 = scores(grid, givens, n)
    best = None
    ties = 0
    evaluated = 0
    for a, b in swaps(givens, n):
        g1, g2 = scores(swapped(grid, a, b), givens, n)
        df1, df2 = g1 - f1, g2 - f2
        delta = w1 * df1 + w2 * df2
        evaluated += 1
        if best is None or delta > best[2]:
            best = (a, b, delta, df1, df2)
            ties = 1
        elif delta == best[2] and random_ties:
            ties += 1
            if rng.random() * ties < 1.0:
                best = (a, b, delta, df1, df2)
    if best is None:
        return -1, -1, 0.0, 0, 0, 0
    return (*best, evaluated)


class NaiveHillClimb:
    """The whole search (run_moves and start_run) on lists; same fields as the kernel counters it checks."""

    def __init__(
        self,
        givens,
        n,
        rng,
        greedy=True,
        post_swap=True,
        random_order=True,
        plateau=10,
        capacity=100,
        w1=1.0,
        w2=-1.0,
        random_ties=False,
        budget=0,
    ):
        self.givens, self.n, self.rng = list(givens), n, rng
        self.greedy, self.post_swap, self.plateau, self.capacity = greedy, post_swap, plateau, capacity
        self.w1, self.w2, self.random_ties, self.budget = w1, w2, random_ties, budget
        N = n * n
        self.iteration = self.evaluations = self.runs = self.jumps = 0
        self.best_cost = 1 << 40
        self.best_grid = list(givens)
        self.queue: list[tuple[list[int], int, int, int]] = []  # (grid, f1, f2, seq)
        self.seq = 0
        self.swap = (-1, -1)
        self.log: list[tuple[int, str]] = []
        self.full = 2 * N * N
        self.start(random_order)

    def score(self, f1, f2):
        return self.w1 * f1 + self.w2 * f2

    def _set(self, grid):
        self.grid = grid
        self.f1, self.f2 = scores(grid, self.givens, self.n)
        self.cost = self.full - self.f1
        if self.cost < self.best_cost:
            self.best_cost, self.best_grid = self.cost, list(grid)

    def start(self, random_order=True):
        self._set(initial_state(self.givens, self.n, self.greedy, self.post_swap, random_order, self.rng))
        self.queue = []
        self.stuck = 0
        self.best_f1f2 = (self.f1, self.f2)
        self.swap = (-1, -1)

    def push(self, grid, f1, f2):
        if self.capacity == 0:
            return
        s = self.score(f1, f2)
        if len(self.queue) < self.capacity:
            self.queue.append((grid, f1, f2, self.seq))
        else:
            k = min(range(len(self.queue)), key=lambda k: (self.score(*self.queue[k][1:3]), self.queue[k][3]))
            if s < self.score(*self.queue[k][1:3]):
                return
            self.queue[k] = (grid, f1, f2, self.seq)
        self.seq += 1

    def pop(self):
        if not self.queue:
            return None
        k = max(range(len(self.queue)), key=lambda k: (self.score(*self.queue[k][1:3]), self.queue[k][3]))
        grid = self.queue[k][0]
        self.queue[k] = self.queue[-1]  # the kernel moves the last entry into the hole
        self.queue.pop()
        return grid

    def move(self) -> str:
        """One move; returns "solved", "budget" or "running"."""
        a, b, delta, df1, df2, ev = best_swap(
            self.grid, self.givens, self.n, self.w1, self.w2, self.random_ties, self.rng
        )
        self.iteration += 1
        self.evaluations += ev
        if a >= 0 and delta > 0.0:
            self._set(swapped(self.grid, a, b))
            self.swap = (a, b)
            if self.score(self.f1, self.f2) > self.score(*self.best_f1f2):
                self.best_f1f2 = (self.f1, self.f2)
                self.stuck = 0
        else:
            self.stuck += 1
            nxt = None
            if self.stuck < self.plateau:
                if a >= 0:
                    for x, y in swaps(self.givens, self.n):
                        g = swapped(self.grid, x, y)
                        f1, f2 = scores(g, self.givens, self.n)
                        if self.w1 * (f1 - self.f1) + self.w2 * (f2 - self.f2) == 0.0:
                            self.push(g, f1, f2)
                nxt = self.pop()
            if nxt is not None:
                self.jumps += 1
                self._set(nxt)
                self.swap = (-1, -1)
                self.log.append((self.iteration, "plateau"))
            else:
                self.runs += 1
                self.start()
                self.log.append((self.iteration, "random"))
        if self.cost == 0:
            return "solved"
        if self.budget > 0 and self.iteration >= self.budget:
            return "budget"
        return "running"
