"""Slow, obvious twins of the GA kernels (``sudoku_lab/_kernels/ga.py``).

Plain Python on lists: rows, columns and boxes recomputed from scratch, the
same random draws (``rng.random()``) in the same order as the kernels, so the
tests can demand equality of the population, its fitness and the trace after
any number of generations. Nothing in the package imports this file.
"""

from __future__ import annotations

from naive import _units  # tests/naive.py: rows, columns, boxes of a box size


def fitness(grid: list[int], n: int) -> tuple[int, list[int], list[int]]:
    """Distinct digits summed over rows and columns, and the per-row and per-column counts."""
    N = n * n
    units = _units(n)
    rows = [len({grid[c] for c in units[u]} - {0}) for u in range(N)]
    cols = [len({grid[c] for c in units[N + u]} - {0}) for u in range(N)]
    return sum(rows) + sum(cols), rows, cols


def box_cells(n: int, b: int) -> list[int]:
    return _units(n)[2 * n * n + b]


def random_individual(givens: list[int], n: int, rng) -> list[int]:
    """Each box: its missing digits (increasing), Fisher-Yates shuffled from the last position down."""
    N = n * n
    g = list(givens)
    for b in range(N):
        cells = box_cells(n, b)
        free = [c for c in cells if givens[c] == 0]
        digits = sorted(set(range(1, N + 1)) - {givens[c] for c in cells})
        for i in range(len(digits) - 1, 0, -1):
            j = int(rng.random() * (i + 1))
            digits[i], digits[j] = digits[j], digits[i]
        for c, d in zip(free, digits):
            g[c] = d
    return g


def tournament(fits: list[int], size: int, rng) -> int:
    """The fittest of ``size`` indices drawn with replacement; the first drawn wins ties."""
    w = int(rng.random() * len(fits))
    for _ in range(size - 1):
        j = int(rng.random() * len(fits))
        if fits[j] > fits[w]:
            w = j
    return w


def _take_first(sa: int, sb: int, ties: str, rng) -> bool:
    if sa != sb:
        return sa > sb
    return rng.random() < 0.5 if ties == "coin" else True


def crossover_rows(a: list[int], b: list[int], n: int, ties: str, rng) -> list[int]:
    """Each horizontal band of boxes from the parent whose band's rows hold more distinct digits."""
    N = n * n
    _, ra, _ = fitness(a, n)
    _, rb, _ = fitness(b, n)
    child = [0] * (N * N)
    for band in range(n):
        rows = range(band * n, band * n + n)
        src = a if _take_first(sum(ra[r] for r in rows), sum(rb[r] for r in rows), ties, rng) else b
        for r in rows:
            for c in range(N):
                child[r * N + c] = src[r * N + c]
    return child


def crossover_cols(a: list[int], b: list[int], n: int, ties: str, rng) -> list[int]:
    """Each vertical band of boxes from the parent whose band's columns hold more distinct digits."""
    N = n * n
    _, _, ca = fitness(a, n)
    _, _, cb = fitness(b, n)
    child = [0] * (N * N)
    for band in range(n):
        cols = range(band * n, band * n + n)
        src = a if _take_first(sum(ca[c] for c in cols), sum(cb[c] for c in cols), ties, rng) else b
        for r in range(N):
            for c in cols:
                child[r * N + c] = src[r * N + c]
    return child


def mutate(child: list[int], givens: list[int], n: int, rng) -> list[int]:
    """Swap two free cells of a random box among those with at least two free cells."""
    N = n * n
    eligible = [b for b in range(N) if sum(givens[c] == 0 for c in box_cells(n, b)) >= 2]
    out = list(child)
    if not eligible:
        return out
    b = eligible[int(rng.random() * len(eligible))]
    free = [c for c in box_cells(n, b) if givens[c] == 0]
    i = int(rng.random() * len(free))
    j = int(rng.random() * (len(free) - 1))
    if j >= i:
        j += 1
    out[free[i]], out[free[j]] = out[free[j]], out[free[i]]
    return out


def _repeats(grid: list[int], cell: int, N: int) -> bool:
    """The cell's digit appears again in its row or its column."""
    r, c = divmod(cell, N)
    row = [grid[r * N + k] for k in range(N) if k != c]
    col = [grid[k * N + c] for k in range(N) if k != r]
    return grid[cell] in row or grid[cell] in col


def local_search(child: list[int], givens: list[int], n: int) -> list[int]:
    """Boxes in order, pairs i < j of free cells both repeating in their row or column: swap if the fitness rises."""
    N = n * n
    g = list(child)
    for b in range(N):
        free = [c for c in box_cells(n, b) if givens[c] == 0]
        for i in range(len(free)):
            for j in range(i + 1, len(free)):
                a, c = free[i], free[j]
                if not (_repeats(g, a, N) and _repeats(g, c, N)):
                    continue
                before = fitness(g, n)[0]
                g[a], g[c] = g[c], g[a]
                if fitness(g, n)[0] <= before:
                    g[a], g[c] = g[c], g[a]
    return g


def generation(
    pop: list[list[int]],
    givens: list[int],
    n: int,
    rng,
    *,
    size: int,
    tournament_size: int,
    elites: int,
    crossover_rate: float,
    mutation_rate: float,
    ties: str,
    local_search_on: bool = False,
) -> tuple[list[list[int]], int, int]:
    """The next population (``size`` individuals), the pairs crossed and the children mutated."""
    fits = [fitness(g, n)[0] for g in pop]
    order = sorted(range(len(pop)), key=lambda q: (-fits[q], q))
    E = min(elites, size, len(pop))
    new = [list(pop[q]) for q in order[:E]]
    crossed = mutated = 0
    while len(new) < size:
        two = len(new) + 1 < size
        a = pop[tournament(fits, tournament_size, rng)]
        b = pop[tournament(fits, tournament_size, rng)]
        if rng.random() < crossover_rate:
            crossed += 1
            children = [crossover_rows(a, b, n, ties, rng)]
            if two:
                children.append(crossover_cols(a, b, n, ties, rng))
        else:
            children = [list(a), list(b)] if two else [list(a)]
        for child in children:
            if rng.random() < mutation_rate:
                mutated += 1
                child = mutate(child, givens, n, rng)
            if local_search_on:
                child = local_search(child, givens, n)
            new.append(child)
    return new, crossed, mutated


def run(givens: list[int], n: int, rng, generations: int, **params) -> tuple[list[list[int]], list[list[float]]]:
    """A whole GA from a random population; returns the final population and the trace rows.

    Trace rows are ``[generation, cost, best cost, best, mean, worst fitness]``
    as the kernel writes them; the run stops early at a solution.
    """
    N = n * n
    size = params["size"]
    pop = [random_individual(givens, n, rng) for _ in range(size)]
    best_cost = 2 * N * N - max(fitness(g, n)[0] for g in pop)
    trace = []
    for it in range(1, generations + 1):
        pop, _, _ = generation(pop, givens, n, rng, **params)
        fits = [fitness(g, n)[0] for g in pop]
        cost = 2 * N * N - max(fits)
        best_cost = min(best_cost, cost)
        trace.append([it, cost, best_cost, max(fits), sum(fits) / len(fits), min(fits)])
        if cost == 0:
            break
    return pop, trace
