"""The exact solver: ground truth on every bundled collection, edge cases, kernels under boundscheck."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, strategies as st

from sudoku_lab import exact
from sudoku_lab._paths import resource_path
from sudoku_lab.errors import ParameterError, PuzzleError
from sudoku_lab.model.collections import load_puzzles
from sudoku_lab.model.geometry import SYMBOLS

UNIQUE_COLLECTIONS = [
    "papers.csv",
    "mantere_koljonen.csv",
    "kennett/very_easy.csv",
    "kennett/easy.csv",
    "kennett/medium.csv",
    "kennett/hard.csv",
    "kennett/fiendish.csv",
    "benchmarks/top1465.csv",
    "benchmarks/hardest_1106.csv",
    "benchmarks/17_clue.csv",
    "benchmarks/hardest_11plus.csv",
]
LEWIS_16 = [f"benchmarks/lewis_16x16_{p}.csv" for p in (35, 40, 45, 50)]
LEWIS_25 = [f"benchmarks/lewis_25x25_{p}.csv" for p in (45, 50)]

# Clash-free puzzles with no solution that propagation at the root does not
# refute (the search needs branches): a given of a unique puzzle changed to
# another digit. qqwing agrees on the 9 x 9 one ("Puzzle has no solution.").
# None exists for 4 x 4: naked and hidden singles settle every 4 x 4 puzzle.
SEARCH_REFUTED = {
    3: "...43..2............28..5..5.7...2.8......65..1.....347.3...8...51..8..7....12...",
    4: "...45.B..F.G.9D6C..B..ED...52.8.F..G.7.....E..C.365.FA......GE7...D8....2.1.C7..1.G...C5.E.3..B2"
    "25.A3.7F........4F....6...9..3.8..A6C....G51..29..2..9.6D.4.FBEG...F.3.2B.7CD.45G.47D..A.2F9......3"
    "..C.E..2..6..74.....GA13......E.C.......8.2.DAD9.B...5......4",
}


def to_grid(line: str) -> np.ndarray:
    return np.array([0 if ch in ".0" else SYMBOLS.index(ch) + 1 for ch in line], dtype=np.int8)


def is_valid_completion(solution, givens, n: int) -> bool:
    """Independent check: every row, column and box holds 1..N once, and the givens are kept."""
    N = n * n
    s = np.asarray(solution).reshape(N, N)
    g = np.asarray(givens).reshape(N, N)
    digits = list(range(1, N + 1))
    units = [s[i, :] for i in range(N)] + [s[:, i] for i in range(N)]
    units += [s[r : r + n, c : c + n].ravel() for r in range(0, N, n) for c in range(0, N, n)]
    return all(sorted(u.tolist()) == digits for u in units) and bool(np.all((g == 0) | (g == s)))


def naive_count(grid, n: int) -> int:
    """Every solution of a grid by plain backtracking over the blanks in reading order."""
    N = n * n
    g = [int(v) for v in np.asarray(grid).reshape(-1)]

    def peers_ok(cell: int, d: int) -> bool:
        r, c = divmod(cell, N)
        br, bc = r - r % n, c - c % n
        return all(
            g[other] != d
            for other in range(N * N)
            if other != cell
            and (other // N == r or other % N == c or (br <= other // N < br + n and bc <= other % N < bc + n))
        )

    if any(g[c] and not peers_ok(c, g[c]) for c in range(N * N)):
        return 0
    blanks = [c for c in range(N * N) if g[c] == 0]

    def count(i: int) -> int:
        if i == len(blanks):
            return 1
        total = 0
        for d in range(1, N + 1):
            if peers_ok(blanks[i], d):
                g[blanks[i]] = d
                total += count(i + 1)
        g[blanks[i]] = 0
        return total

    return count(0)


def deadly_rectangle(n: int) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """A solved grid and four cells (two rows of one band, two columns of different stacks)
    holding a, b / b, a: blanking them leaves exactly two solutions."""
    N = n * n
    for seed in range(100):
        s = exact.random_solution(n, seed).reshape(N, N)
        for r1 in range(N):
            for r2 in range(r1 + 1, r1 - r1 % n + n):
                for c1 in range(N):
                    for c2 in range(c1 - c1 % n + n, N):
                        if s[r1, c1] == s[r2, c2] and s[r1, c2] == s[r2, c1]:
                            cells = [r1 * N + c1, r1 * N + c2, r2 * N + c1, r2 * N + c2]
                            return s.reshape(-1), s.reshape(-1).copy(), cells
    raise AssertionError("no deadly rectangle in 100 random grids")


# ------------------------------------------------------------------ collections
@pytest.mark.parametrize("name", UNIQUE_COLLECTIONS)
def test_every_collection_puzzle_has_its_published_unique_solution(name):
    puzzles = load_puzzles(resource_path("puzzles", name))
    expected = np.stack([p.solution for p in puzzles])
    grids = np.stack([p.grid for p in puzzles])
    solved = np.stack([exact.solve(g) for g in grids])
    assert np.array_equal(solved, expected)
    assert [exact.count_solutions(g, limit=2) for g in grids] == [1] * len(grids)
    batch, counts = exact.solve_many(grids, 3, limit=2)
    assert np.array_equal(batch, expected)
    assert counts.tolist() == [1] * len(grids)


def test_famous_hard_puzzles_have_their_published_solution_counts():
    with open(resource_path("puzzles", "benchmarks", "famous_hard.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    assert any(int(r["solutions"]) > 1 for r in rows)
    for row in rows:
        grid = to_grid(row["puzzle"])
        published = int(row["solutions"])
        assert exact.count_solutions(grid, limit=published + 5) == published, row["name"]
        sols = exact.find_solutions(grid, limit=published + 5)
        assert len(sols) == published and len({s.tobytes() for s in sols}) == published
        assert all(is_valid_completion(s, grid, 3) for s in sols)
        if row["solution"]:  # left empty where the puzzle has several
            assert any(np.array_equal(s, to_grid(row["solution"])) for s in sols)
        if published == 1:
            assert np.array_equal(exact.solve(grid), to_grid(row["solution"]))


@pytest.mark.parametrize("name", LEWIS_16 + LEWIS_25)
def test_large_lewis_instances_get_a_valid_completion(name):
    for p in load_puzzles(resource_path("puzzles", name)):
        puzzle_name, grid = p.name, p.grid
        n = 4 if "16x16" in name else 5
        solution = exact.solve(grid)
        assert solution is not None, puzzle_name
        assert is_valid_completion(solution, grid, n), puzzle_name


def test_solve_is_deterministic_on_a_puzzle_with_many_solutions():
    # lewis_25x25_45_01 needs restarts: a random digit order with a fixed seed.
    grid = load_puzzles(resource_path("puzzles", "benchmarks", "lewis_25x25_45.csv"))[1].grid
    first = exact.solve(grid)
    assert np.array_equal(exact.solve(grid), first)
    assert exact.search(grid, limit=1, node_budget=exact.solver._FIRST_BUDGET).complete is False


# ------------------------------------------------------------ constructed cases
@pytest.mark.parametrize("n", [2, 3, 4])
def test_clashing_givens_give_no_solution(n):
    N = n * n
    grid = np.zeros(N * N, dtype=np.int8)
    grid[0] = grid[N - 1] = 1  # the same digit twice in row 1
    assert exact.count_solutions(grid) == 0
    assert exact.solve(grid) is None
    assert exact.find_solutions(grid).shape == (0, N * N)
    assert exact.search(grid).nodes == 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_cell_excluded_by_its_row_and_column_gives_no_solution(n):
    N = n * n
    grid = np.zeros((N, N), dtype=np.int8)
    grid[0, 1:] = np.arange(1, N)  # r1c1 can only be N ...
    grid[n, 0] = N  # ... which its column (outside its box) already holds
    assert exact.count_solutions(grid) == 0
    assert exact.solve(grid) is None
    assert not exact.is_unique(grid)


@pytest.mark.parametrize("n", sorted(SEARCH_REFUTED))
def test_a_puzzle_only_search_refutes_gives_no_solution(n):
    grid = to_grid(SEARCH_REFUTED[n])
    result = exact.search(grid, limit=2)
    assert (result.count, result.complete) == (0, True)
    assert result.nodes > 0
    assert exact.solve(grid) is None


@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_deadly_rectangle_leaves_exactly_two_solutions(n):
    grid, solution, cells = deadly_rectangle(n)
    grid[cells] = 0
    assert exact.count_solutions(grid, limit=10) == 2
    assert not exact.is_unique(grid)
    sols = exact.find_solutions(grid, limit=10)
    assert len(sols) == 2
    assert any(np.array_equal(s, solution) for s in sols)
    assert sorted(np.flatnonzero(sols[0] != sols[1]).tolist()) == sorted(cells)
    assert all(is_valid_completion(s, grid, n) for s in sols)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_empty_grid_has_several_solutions(n):
    empty = np.zeros(n**4, dtype=np.int8)
    assert exact.count_solutions(empty) == 2
    assert is_valid_completion(exact.solve(empty), empty, n)


def test_the_empty_4x4_grid_has_288_solutions():
    empty = np.zeros(16, dtype=np.int8)
    assert exact.count_solutions(empty, limit=1000) == 288
    sols = exact.find_solutions(empty, limit=1000)
    assert len({s.tobytes() for s in sols}) == 288


@given(st.lists(st.tuples(st.integers(0, 15), st.integers(1, 4)), max_size=7))
def test_4x4_counts_match_plain_backtracking(givens):
    grid = np.zeros(16, dtype=np.int8)
    for cell, digit in givens:
        grid[cell] = digit
    expected = naive_count(grid, 2)
    assert exact.count_solutions(grid, limit=300) == expected
    assert exact.search(grid, limit=300).count == expected
    solution = exact.solve(grid)
    assert (solution is None) == (expected == 0)
    if solution is not None:
        assert is_valid_completion(solution, grid, 2)


@given(n=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32 - 1), keep=st.floats(0.0, 1.0))
def test_a_random_grid_with_random_blanks_is_solved_consistently(n, seed, keep):
    rng = np.random.default_rng(seed)
    full = exact.random_solution(n, rng)
    assert is_valid_completion(full, full, n)
    grid = np.where(rng.random(full.size) < keep, full, 0).astype(np.int8)
    solution = exact.solve(grid)
    assert solution is not None
    assert is_valid_completion(solution, grid, n)
    assert exact.count_solutions(grid, limit=2) >= 1


def test_random_solution_is_a_function_of_the_generator_state():
    for n in (2, 3, 4, 5):
        a = exact.random_solution(n, np.random.default_rng(7))
        assert np.array_equal(a, exact.random_solution(n, 7))
        assert not np.array_equal(a, exact.random_solution(n, 8))
        assert is_valid_completion(a, a, n)


# ---------------------------------------------------------------- API contract
class PuzzleLike:
    def __init__(self, grid, n):
        self.grid = grid
        self.n = n


def test_accepts_1d_2d_and_puzzle_like_inputs():
    row = load_puzzles(resource_path("puzzles", "papers.csv"))[0].grid.copy()
    expected = exact.solve(row)
    assert np.array_equal(exact.solve(row.reshape(9, 9)), expected)
    assert np.array_equal(exact.solve(row.astype(np.int64).tolist()), expected)
    assert np.array_equal(exact.solve(PuzzleLike(row, 3)), expected)
    assert exact.count_solutions(PuzzleLike(row, 3)) == 1 and exact.is_unique(row)


def test_results_are_read_only_int8():
    grid = np.zeros(16, dtype=np.int8)
    solution = exact.solve(grid)
    sols = exact.find_solutions(grid, limit=3)
    for a in (solution, sols):
        assert a.dtype == np.int8 and not a.flags.writeable
    assert sols.shape == (3, 16)


@pytest.mark.parametrize(
    "bad, kind",
    [
        (np.zeros(80, dtype=np.int8), "cell_count"),
        (np.zeros((9, 8), dtype=np.int8), "cell_count"),
        (np.zeros((3, 27), dtype=np.int8), "cell_count"),
        (np.full(81, 10, dtype=np.int8), "bad_symbol"),
        (np.full(16, -1, dtype=np.int64), "bad_symbol"),
        (np.full(16, 300, dtype=np.int64), "bad_symbol"),
        (np.zeros(81, dtype=np.float64), "bad_symbol"),
        (PuzzleLike(np.zeros(81, dtype=np.int8), 2), "cell_count"),
        (PuzzleLike(np.full(16, 5, dtype=np.int8), 2), "bad_symbol"),
    ],
)
def test_bad_grids_raise_a_puzzle_error(bad, kind):
    for fn in (exact.solve, exact.count_solutions, exact.find_solutions, exact.is_unique, exact.search):
        with pytest.raises(PuzzleError) as info:
            fn(bad)
        assert info.value.kind == kind


def test_bad_symbol_error_names_the_cell():
    grid = np.zeros(81, dtype=np.int8)
    grid[10] = 12
    with pytest.raises(PuzzleError, match="r2c2 holds 12") as info:
        exact.solve(grid)
    assert info.value.cells == (10,) and info.value.digit == 12


@pytest.mark.parametrize("limit", [0, -1, 1.5, True, "2"])
def test_limit_must_be_a_positive_integer(limit):
    with pytest.raises(ParameterError, match="limit must be") as info:
        exact.count_solutions(np.zeros(16, dtype=np.int8), limit=limit)
    assert info.value.name == "limit"


def test_search_reports_nodes_and_budget():
    grid = to_grid(SEARCH_REFUTED[3])
    full = exact.search(grid)
    assert full.complete and full.nodes > 1
    cut = exact.search(grid, node_budget=1)
    assert not cut.complete and cut.nodes == 1 and cut.count == 0


def test_solve_many_counts_and_solves_a_mixed_batch():
    unique = load_puzzles(resource_path("puzzles", "papers.csv"))[0].grid.copy()
    clash = np.zeros(81, dtype=np.int8)
    clash[:2] = 5
    grids = np.stack([unique, clash, np.zeros(81, dtype=np.int8), to_grid(SEARCH_REFUTED[3])])
    solutions, counts = exact.solve_many(grids, 3, limit=2)
    assert counts.tolist() == [1, 0, 2, 0]
    assert np.array_equal(solutions[0], exact.solve(unique))
    assert not solutions[1].any() and not solutions[3].any()
    assert is_valid_completion(solutions[2], grids[2], 3)
    assert solutions.dtype == np.int8 and counts.dtype == np.int64
    assert exact.solve_many(grids, 3)[1].tolist() == [1, 0, 1, 0]


def test_solve_many_rejects_bad_batches():
    with pytest.raises(PuzzleError, match="shape"):
        exact.solve_many(np.zeros((2, 80), dtype=np.int8), 3)
    with pytest.raises(PuzzleError) as info:
        exact.solve_many(np.full((2, 16), 9, dtype=np.int8), 2)
    assert info.value.kind == "bad_symbol"
    with pytest.raises(PuzzleError):
        exact.solve_many(np.zeros((2, 81), dtype=np.int8), 6)


# ----------------------------------------------------------------------- qqwing
@pytest.mark.needs_qqwing
def test_qqwing_agrees_on_solutions_and_on_a_puzzle_without_one():
    """Our solutions of 20 fiendish puzzles equal qqwing's, and qqwing finds none for SEARCH_REFUTED[3]."""
    import shutil

    puzzles = [(p.name, p.grid) for p in load_puzzles(resource_path("puzzles", "kennett", "fiendish.csv"))[:20]]
    text = "".join("".join("." if d == 0 else str(d) for d in g.tolist()) + "\n" for _, g in puzzles)
    text += SEARCH_REFUTED[3] + "\n"
    out = subprocess.run(
        [shutil.which("qqwing"), "--solve", "--one-line"],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.splitlines()
    assert len(out) == 21
    for (name, grid), theirs in zip(puzzles, out):
        ours = exact.solve(grid)
        assert "".join(str(d) for d in ours) == theirs, name
    assert exact.solve(to_grid(SEARCH_REFUTED[3])) is None
    assert "no solution" in out[20].lower()


# ------------------------------------------------------------------ boundscheck
BOUNDSCHECK_SCRIPT = textwrap.dedent("""
    import numpy as np
    from numba import config
    from sudoku_lab._kernels import exact as k
    from sudoku_lab.model.geometry import geometry

    assert config.BOUNDSCHECK, "NUMBA_BOUNDSCHECK was not honoured"
    rng = np.random.default_rng(3)
    runs = 0
    for n in (2, 3):
        geo = geometry(n)
        tables = (geo.peers, geo.units, geo.cell_units)
        full = np.zeros(geo.C, dtype=np.int8)
        out = np.zeros((1, geo.C), dtype=np.int8)
        stats = np.zeros(k.N_STATS, dtype=np.int64)
        for locked in (False, True):
            weights = np.ones(3 * geo.N, dtype=np.int64)
            assert k.random_fill(full, *tables, locked, 10**6, weights, rng, out, stats) == 1
            solution = out[0].copy()
            grids = [np.zeros(geo.C, dtype=np.int8), solution.copy()]
            for _ in range(30):
                grids.append(np.where(rng.random(geo.C) < rng.random(), solution, 0).astype(np.int8))
                grids.append(np.where(rng.random(geo.C) < 0.3, rng.integers(0, geo.N + 1, geo.C), 0).astype(np.int8))
            for grid in grids:
                for limit in (1, 3):
                    many = np.zeros((limit, geo.C), dtype=np.int8)
                    k.solve_grid(grid, *tables, locked, limit, 10**6, weights, many, stats)
                    k.solve_grid(grid, *tables, locked, limit, 2, weights, many[:0], stats)
                    k.random_fill(grid, *tables, locked, 3, weights, rng, out, stats)
                    runs += 1
            batch = np.stack(grids)
            k.solve_batch(batch, *tables, locked, 2, np.zeros_like(batch), np.zeros(len(batch), dtype=np.int64),
                          np.zeros(len(batch), dtype=np.int64))
    print("ok", runs)
""")


def test_kernels_under_numba_boundscheck(tmp_path):
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, "-c", BOUNDSCHECK_SCRIPT], env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["ok", "496"]


def test_a_bad_grid_in_a_batch_is_named():
    grids = np.zeros((3, 81), dtype=np.int8)
    grids[2, 10] = 12
    with pytest.raises(PuzzleError) as info:
        exact.solve_many(grids, 3)
    assert str(info.value) == "grid 3: r2c2 holds 12, which is not a digit of a 9x9 puzzle (0 for a blank, 1-9)"
    assert info.value.cells == (10,) and info.value.digit == 12


# ------------------------------------------------------------------ the fast kernel equals its slow twin
def _both_kernels(grid, n, *, limit=2, budget=10**9, seed=None):
    """Run the package's kernel and tests/naive_exact.py's (the search before its speed-up) on one grid.

    Returns, per kernel: the count, the solutions found (in order), the branches tried, the budget flag
    and the unit weights learnt (None for a root refuted by propagation, where nothing searches after
    the blame: the fast kernel fills the root from each unit's givens and blames no unit there).
    """
    import naive_exact  # tests/naive_exact.py

    from sudoku_lab._kernels import exact as fast
    from sudoku_lab.model.geometry import geometry

    geo = geometry(n)
    tables = (geo.peers, geo.units, geo.cell_units)
    found = []
    for kernel in (naive_exact, fast):
        out = np.zeros((limit, geo.C), dtype=np.int8)
        stats = np.zeros(fast.N_STATS, dtype=np.int64)
        weights = np.ones(3 * geo.N, dtype=np.int64)
        if seed is None:
            count = kernel.solve_grid(
                grid, *tables, n >= exact.LOCKED_CANDIDATES_MIN_BOX, limit, budget, weights, out, stats
            )
        else:
            rng = np.random.default_rng(seed)
            count = kernel.random_fill(
                grid, *tables, n >= exact.LOCKED_CANDIDATES_MIN_BOX, budget, weights, rng, out[:1], stats
            )
        root_refuted = count == 0 and stats[0] == 0
        found.append(
            (int(count), out[: min(count, limit)].tobytes(), stats.tolist(), None if root_refuted else weights.tolist())
        )
    return found


def _collection_grids(name, step=1, count=None):
    puzzles = load_puzzles(resource_path("puzzles", name))[::step][:count]
    return [(p.grid, p.n) for p in puzzles]


@pytest.mark.parametrize(
    "name, step, count, budget",
    [
        ("benchmarks/top1465.csv", 37, None, 10**9),
        ("benchmarks/17_clue.csv", 1, 25, 10**9),
        ("benchmarks/hardest_1106.csv", 9, None, 10**9),
        ("benchmarks/lewis_16x16_40.csv", 1, 6, 4000),
        ("benchmarks/lewis_16x16_45.csv", 1, 6, 4000),
        ("benchmarks/lewis_25x25_40.csv", 1, 3, 1500),
        ("benchmarks/lewis_25x25_45.csv", 1, 3, 1500),
    ],
)
def test_the_kernel_searches_exactly_like_its_slow_twin(name, step, count, budget):
    """Same solutions in the same order, same branches, same budget flag, same learnt weights (hence
    the same answer from exact.solve's restarts); the 16 x 16 and 25 x 25 ones with locked candidates."""
    for grid, n in _collection_grids(name, step, count):
        slow, fast = _both_kernels(grid, n, limit=2, budget=budget)
        assert fast == slow
        slow, fast = _both_kernels(grid, n, budget=budget, seed=7)
        assert fast == slow


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_kernel_finds_several_solutions_in_its_twins_order(n):
    solved, grid, cells = deadly_rectangle(n)
    grid[cells] = 0
    slow, fast = _both_kernels(grid, n, limit=3)
    assert fast == slow and fast[0] == 2
    empty = np.zeros(n**4, dtype=np.int8)
    slow, fast = _both_kernels(empty, n, limit=5, budget=20000)
    assert fast == slow and fast[0] == 5
    for seed in range(3):
        slow, fast = _both_kernels(empty, n, budget=20000, seed=seed)
        assert fast == slow and fast[0] == 1


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_kernel_refutes_what_its_twin_refutes(n):
    """Clashing givens, a cell left without candidates, search-refuted puzzles and random junk."""
    rng = np.random.default_rng(n)
    geo_c = n**4
    grids = []
    for _ in range(150):
        grids.append(np.where(rng.random(geo_c) < 0.35, rng.integers(0, n * n + 1, geo_c), 0).astype(np.int8))
    if n in SEARCH_REFUTED:
        grids.append(to_grid(SEARCH_REFUTED[n]))
    refuted = 0
    for grid in grids:
        slow, fast = _both_kernels(grid, n, limit=2, budget=5000)
        assert fast == slow
        refuted += fast[0] == 0
    assert refuted > 10  # the junk does exercise refutations


def test_puzzles_and_int8_grids_take_the_short_check_with_the_same_answers():
    """A Puzzle (checked when made) and a contiguous int8 grid skip as_grid; the answers do not change."""
    from sudoku_lab.exact import solver
    from sudoku_lab.model.puzzle import Puzzle

    p = load_puzzles(resource_path("puzzles", "benchmarks/top1465.csv"))[3]
    grid, n = solver._checked_grid(p)
    assert grid is p.grid and n == 3
    a = np.array(p.grid)
    grid, n = solver._checked_grid(a)
    assert grid is a and n == 3
    wide = a.astype(np.int64)
    assert np.array_equal(solver._checked_grid(wide)[0], a)
    strided = np.repeat(a, 2)[::2]  # int8 but not contiguous: goes through as_grid
    assert not strided.flags.c_contiguous and np.array_equal(solver._checked_grid(strided)[0], a)
    expected = exact.solve(Puzzle(a, n=3))
    for form in (p, a, wide, strided, a.reshape(9, 9)):
        assert np.array_equal(exact.solve(form), expected)
        assert exact.count_solutions(form) == 1


@pytest.mark.parametrize("value", [10, -1, 127, -128])
def test_an_int8_grid_with_a_bad_digit_still_gets_the_one_line_error(value):
    grid = np.zeros(81, dtype=np.int8)
    grid[40] = value
    for fn in (exact.solve, exact.count_solutions, exact.search):
        with pytest.raises(PuzzleError, match=f"r5c5 holds {value}, which is not a digit of a 9x9 puzzle") as info:
            fn(grid)
        assert info.value.kind == "bad_symbol" and info.value.cells == (40,)


def test_every_entry_point_reaches_one_kernel_of_one_signature():
    """Issue 28: the exact search was compiled in 8 copies (read-only and writable grids, with and without a
    generator, each in a 9x9 and a general body); every front end now calls one kernel with one signature."""
    from sudoku_lab._kernels import exact as k
    from sudoku_lab.model import library

    for p in (library.puzzle("reseda_fig3_1_easy"), library.puzzle("benchmarks/small_unique:1")):
        for grid in (p, np.array(p.grid), p.grid):
            exact.solve(grid)
            exact.count_solutions(grid, 2)
            exact.search(grid, 3, node_budget=5)
        exact.solve_many(np.stack([p.grid, p.grid]), p.n, limit=2)
        exact.random_solution(p.n, 1)
    assert len(k.search.signatures) == 1
    assert not hasattr(k.solve_grid, "signatures")  # a Python front of search(), not a kernel of its own
