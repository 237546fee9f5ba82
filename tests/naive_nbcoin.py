"""Slow, obvious twins of the NB-COIN kernels (``sudoku_lab/_kernels/nbcoin.py``).

Plain Python lists and loops, boxes recomputed from scratch, the same order
of operations and the same ``rng.random()`` draws as the kernels, so that the
tests can demand equality entry by entry from the same seed. Nothing in the
package imports this file.
"""

from __future__ import annotations

from naive import _units, naive_draw  # tests/naive.py


def naive_box_cells(n: int) -> list[list[int]]:
    """Cells of each box in reading order (boxes in reading order)."""
    N = n * n
    return _units(n)[2 * N :]


def naive_initial_model(grid: list[int], n: int):
    """The initial model ``M[b][i][d]`` (d 0-based) and the allowed digits, from the givens."""
    N = n * n
    boxes = naive_box_cells(n)
    M, allowed = [], []
    for cells in boxes:
        in_box = {grid[c] for c in cells if grid[c]}
        Mb, Ab = [], []
        for c in cells:
            if grid[c]:
                ok = [d == grid[c] for d in range(1, N + 1)]
            else:
                r, col = divmod(c, N)
                used = in_box | {grid[r * N + j] for j in range(N)} | {grid[i * N + col] for i in range(N)}
                ok = [d not in used for d in range(1, N + 1)]
                if not any(ok):
                    ok = [d not in in_box for d in range(1, N + 1)]
            k = sum(ok)
            Ab.append(ok)
            Mb.append([1.0 / k if a else 0.0 for a in ok])
        M.append(Mb)
        allowed.append(Ab)
    return M, allowed


def naive_sample(M, base: list[int], n: int, rng) -> list[int]:
    """One individual: per box, free positions shuffled (Fisher-Yates), each drawn among the unused digits."""
    N = n * n
    out = list(base)
    for b, cells in enumerate(naive_box_cells(n)):
        free = [i for i, c in enumerate(cells) if base[c] == 0]
        for i in range(len(free) - 1, 0, -1):
            j = int(rng.random() * (i + 1))
            free[i], free[j] = free[j], free[i]
        unused = set(range(1, N + 1)) - {base[c] for c in cells if base[c]}
        for pos in free:
            d = naive_draw(M[b][pos], sorted(unused), rng)
            out[cells[pos]] = d
            unused.discard(d)
    return out


def naive_fitness(grid: list[int], n: int) -> int:
    """Distinct digits (non-zero) summed over rows and columns."""
    units = _units(n)[: 2 * n * n]
    return sum(len({grid[c] for c in u} - {0}) for u in units)


def naive_select(fitness: list[int], G: int) -> tuple[list[int], list[int]]:
    """Rank by fitness (highest first, ties by index); the first G (best first) and the last G (worst first)."""
    ranked = sorted(range(len(fitness)), key=lambda q: (-fitness[q], q))
    return ranked[:G], ranked[::-1][:G]


def naive_cap(row: list[float], ok: list[bool], upper: float) -> list[float]:
    """Cap at ``upper``, the excess spread evenly over the allowed digits below it, until none exceeds it."""
    row = list(row)
    N = len(row)
    for _ in range(N):
        excess = 0.0
        below = 0
        for d in range(N):
            if ok[d]:
                if row[d] > upper:
                    excess += row[d] - upper
                    row[d] = upper
                elif row[d] < upper:
                    below += 1
        if excess <= 0.0 or below == 0:
            if below == 0 and excess > 0.0:
                n_ok = sum(ok)
                row = [v + excess / n_ok if ok[d] else v for d, v in enumerate(row)]
            return row
        share = excess / below
        row = [v + share if ok[d] and v < upper else v for d, v in enumerate(row)]
    return row


def naive_update(
    M, allowed, base: list[int], n: int, pop, good, bad, k: float, upper: float, counts: bool = False, cap: bool = False
):
    """Reward (eq. 4) and punish (eq. 5) every free position; clip, forbid, renormalise (then cap, with ``cap``).

    Returns the new model and the change per (box, position, digit); ``M`` is not modified.
    """
    N = n * n
    L = float(N)
    a, c = k / L, k / (L * L)
    G = len(good)
    scale = 1.0 if counts else 1.0 / G
    newM = [[list(row) for row in Mb] for Mb in M]
    delta = [[[0.0] * N for _ in range(N)] for _ in range(N)]
    for b, cells in enumerate(naive_box_cells(n)):
        for pos, cell in enumerate(cells):
            if base[cell]:
                continue
            f = [0.0] * N
            h = [0.0] * N
            for g in range(G):
                f[pop[good[g]][cell] - 1] += 1.0
                h[pop[bad[g]][cell] - 1] += 1.0
            F = H = 0.0
            for d in range(N):
                f[d] *= scale
                h[d] *= scale
                F += f[d]
                H += h[d]
            row = []
            for d in range(N):
                if allowed[b][pos][d]:
                    v = M[b][pos][d] + a * f[d] - c * F
                    v = v - a * h[d] + c * H
                    v = min(max(v, 0.0), upper)
                else:
                    v = 0.0
                row.append(v)
            total = 0.0
            for v in row:
                total += v
            if total > 0.0:
                row = [v / total for v in row]
            else:
                ok = sum(allowed[b][pos])
                row = [1.0 / ok if allowed[b][pos][d] else 0.0 for d in range(N)]
            if cap:
                row = naive_cap(row, allowed[b][pos], upper)
            for d in range(N):
                delta[b][pos][d] = row[d] - M[b][pos][d]
            newM[b][pos] = row
    return newM, delta


def naive_run(
    grid: list[int],
    n: int,
    rng,
    generations: int,
    P: int,
    G: int,
    k: float,
    upper: float,
    counts: bool = False,
    cap: bool = False,
):
    """``generations`` NB-COIN generations from the initial model (or until solved).

    Returns the model, the last population and fitnesses, the good and bad sets of the last
    update, the best grid, and trace rows (iteration, cost, best cost, best, mean, worst fitness).
    """
    N = n * n
    opt = 2 * N * N
    M, allowed = naive_initial_model(grid, n)
    best_grid, best_fit = list(grid), naive_fitness(grid, n)
    trace = []
    pop, fit, good, bad = [], [], [], []
    for it in range(1, generations + 1):
        pop = [naive_sample(M, grid, n, rng) for _ in range(P)]
        fit = [naive_fitness(x, n) for x in pop]
        top = max(fit)
        q = fit.index(top)
        if top > best_fit or it == 1:
            best_grid, best_fit = list(pop[q]), top
        trace.append([it, opt - top, opt - best_fit, top, sum(fit) / P, min(fit)])
        if top == opt:
            good, bad = [], []
            break
        good, bad = naive_select(fit, G)
        M, _ = naive_update(M, allowed, grid, n, pop, good, bad, k, upper, counts, cap)
    return M, pop, fit, good, bad, best_grid, trace
