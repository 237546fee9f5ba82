"""AC3: the numba kernel against its pure-Python twin, soundness, replay, wipe-outs."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sudoku_lab._kernels import ac3 as kernel
from sudoku_lab._paths import resource_path
from sudoku_lab.errors import ParameterError, PuzzleError
from sudoku_lab.exact.ac3 import LOG_DTYPE, AC3Result, ac3, candidate_count, initial_domains, mask_to_digits
from sudoku_lab.model.geometry import MASK_DTYPE, geometry
from sudoku_lab.model.puzzle import Puzzle

from naive import naive_ac3


def read_rows(*parts: str) -> list[dict[str, str]]:
    with open(resource_path("puzzles", *parts), newline="") as f:
        return list(csv.DictReader(f))


def to_grid(line: str) -> np.ndarray:
    """int8 (C,) grid of a 9x9 line ('.' for a blank)."""
    return np.array([0 if ch == "." else int(ch) for ch in line], dtype=np.int8)


PAPERS = read_rows("papers.csv")
PAPER_SOLUTIONS = [to_grid(row["solution"]) for row in PAPERS]


def to_sets(masks) -> list[set[int]]:
    return [set(mask_to_digits(m)) for m in masks]


def to_masks(sets: list[set[int]]) -> np.ndarray:
    return np.array([sum(1 << (d - 1) for d in s) for s in sets], dtype=MASK_DTYPE)


def keeps_solution(domains: np.ndarray, solution: np.ndarray) -> bool:
    """Whether every cell's domain still holds its solution digit."""
    bits = np.left_shift(1, solution.astype(np.int64) - 1)
    return bool(np.all(domains.astype(np.int64) & bits))


def check_against_naive(domains: np.ndarray, n: int, hidden_singles: bool) -> AC3Result:
    """Run the kernel (through :func:`ac3`) and the naive twin; demand equal outputs."""
    result = ac3(None, hidden_singles=hidden_singles, domains=domains)
    ref = naive_ac3(to_sets(domains), n, hidden_singles=hidden_singles)
    assert result.log.tolist() == ref.log
    assert result.pops.tolist() == ref.pops
    assert result.domains.tolist() == to_masks(ref.domains).tolist()
    assert (result.wipeout_cell, result.wipeout_unit, result.wipeout_digit) == (
        ref.wipeout_cell,
        ref.wipeout_unit,
        ref.wipeout_digit,
    )
    assert result.consistent == (ref.wipeout_cell is None and ref.wipeout_unit is None)
    return result


def check_replay(result: AC3Result) -> None:
    """The log replays to the final domains, by removal and by pop."""
    assert result.domains_after(0).tolist() == result.initial.tolist()
    assert result.domains_after(result.n_removed).tolist() == result.domains.tolist()
    assert result.domains_after_pops(0).tolist() == result.initial.tolist()
    assert result.domains_after_pops(result.n_pops).tolist() == result.domains.tolist()
    total_bits = int(candidate_count(result.initial).sum() - candidate_count(result.domains).sum())
    assert total_bits == result.n_removed
    log = result.log
    assert np.all(np.diff(log["pop"]) >= 0)
    for k in range(result.n_pops):
        entries = log[log["pop"] == k]
        ac3_entries = entries[entries["because"] >= 0]
        assert np.all(ac3_entries["because"] == result.pops[k])
        # A hidden single narrows the cell that is popped next, before its pop's removals.
        hidden = entries[entries["because"] < 0]
        assert np.all(hidden["cell"] == result.pops[k])
        assert np.all(entries["because"][: len(hidden)] < 0)
        start = int(np.searchsorted(log["pop"], k))
        step = result.domains_after(start + len(entries))
        assert step.tolist() == result.domains_after_pops(k + 1).tolist()


# ----------------------------------------------------------------- strategies


@st.composite
def solutions(draw, n: int) -> np.ndarray:
    """A complete valid grid: a CSV solution for 9x9, a shuffled pattern grid otherwise."""
    if n == 3:
        return draw(st.sampled_from(PAPER_SOLUTIONS))
    N = n * n

    def lines():
        bands = draw(st.permutations(range(n)))
        return [b * n + i for b in bands for i in draw(st.permutations(range(n)))]

    rows, cols = lines(), lines()
    digits = draw(st.permutations(range(1, N + 1)))
    grid = np.array([[digits[(n * (r % n) + r // n + c) % N] for c in cols] for r in rows], dtype=np.int8)
    if draw(st.booleans()):
        grid = grid.T
    return grid.reshape(-1)


@st.composite
def partial_assignments(draw, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(grid, solution): a random subset of a solution's cells kept as givens."""
    solution = draw(solutions(n))
    keep = draw(st.lists(st.booleans(), min_size=solution.size, max_size=solution.size))
    return np.where(keep, solution, 0).astype(np.int8), solution


@st.composite
def random_assignments(draw, n: int) -> np.ndarray:
    """Grids with random digits on a random number of random cells; givens may clash."""
    N = n * n
    C = N * N
    grid = np.zeros(C, dtype=np.int8)
    for cell, digit in draw(st.lists(st.tuples(st.integers(0, C - 1), st.integers(1, N)), max_size=C // 2)):
        grid[cell] = digit
    return grid


@st.composite
def random_domains(draw, n: int) -> np.ndarray:
    """Arbitrary non-empty domains: either any masks at all, or masks around a solution.

    Any masks rarely trigger hidden singles, so the second kind keeps each cell's
    solution digit plus random extra digits, then strips a few digits from whole
    units (a digit with no place in a unit: a wipe-out for hidden singles).
    """
    N = n * n
    C = N * N
    full = (1 << N) - 1
    if draw(st.booleans()):
        mask = st.one_of(st.integers(1, N).map(lambda d: 1 << (d - 1)), st.integers(1, full), st.just(full))
        return np.array(draw(st.lists(mask, min_size=C, max_size=C)), dtype=MASK_DTYPE)
    solution = draw(solutions(n))
    extra = np.array(draw(st.lists(st.integers(0, full), min_size=C, max_size=C)), dtype=np.int64)
    masks = np.left_shift(1, solution.astype(np.int64) - 1) | extra
    units = geometry(n).units
    for unit, digit in draw(st.lists(st.tuples(st.integers(0, 3 * N - 1), st.integers(1, N)), max_size=2)):
        cells = units[unit]
        stripped = masks[cells] & ~(1 << (digit - 1))
        masks[cells] = np.where(stripped != 0, stripped, full & ~(1 << (digit - 1)))
    return masks.astype(MASK_DTYPE)


def check_partial(data, n: int) -> None:
    grid, solution = data.draw(partial_assignments(n))
    assert np.all(np.sort(solution[geometry(n).units], axis=1) == np.arange(1, n * n + 1))
    hidden = data.draw(st.booleans())
    one_pass = data.draw(st.booleans())
    result = check_against_naive(initial_domains(grid, one_pass=one_pass), n, hidden)
    assert result.consistent
    assert keeps_solution(result.domains, solution)
    check_replay(result)


def check_random_assignment(data, n: int) -> None:
    grid = data.draw(random_assignments(n))
    hidden = data.draw(st.booleans())
    result = check_against_naive(initial_domains(grid), n, hidden)
    check_replay(result)


def check_random_domains(data, n: int) -> None:
    domains = data.draw(random_domains(n))
    hidden = data.draw(st.booleans())
    result = check_against_naive(domains, n, hidden)
    check_replay(result)


# ------------------------------------------------------------ kernel == naive


@pytest.mark.parametrize("hidden", [False, True], ids=["ac3", "hidden_singles"])
@pytest.mark.parametrize("row", PAPERS, ids=[row["name"] for row in PAPERS])
def test_papers_match_naive_and_keep_solution(row, hidden):
    grid, solution = to_grid(row["puzzle"]), to_grid(row["solution"])
    result = check_against_naive(initial_domains(grid), 3, hidden)
    assert result.consistent
    assert keeps_solution(result.domains, solution)
    if result.n_open == 0:
        assert result.grid.tolist() == solution.tolist()
    check_replay(result)


@pytest.mark.parametrize("n", [2, 3])
@settings(deadline=None, max_examples=150)
@given(data=st.data())
def test_partial_assignments_match_naive(n, data):
    check_partial(data, n)


@pytest.mark.parametrize("n", [2, 3])
@settings(deadline=None, max_examples=150)
@given(data=st.data())
def test_random_assignments_match_naive(n, data):
    check_random_assignment(data, n)


@pytest.mark.parametrize("n", [2, 3])
@settings(deadline=None, max_examples=150)
@given(data=st.data())
def test_random_domains_match_naive(n, data):
    check_random_domains(data, n)


@settings(deadline=None, max_examples=12)
@given(data=st.data())
def test_16x16_matches_naive(data):
    check = data.draw(st.sampled_from([check_partial, check_random_assignment, check_random_domains]))
    check(data, 4)


# ------------------------------------------------------------- specific cases


def test_cell_wipeout_is_reported():
    # r1c3 sees 1 and 2 in its row and 3 and 4 in its column.
    grid = np.array([1, 2, 0, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0, 0], dtype=np.int8)
    result = check_against_naive(initial_domains(grid), 2, False)
    assert not result.consistent
    assert result.wipeout_cell == 2 and result.wipeout_unit is None
    assert result.domains[2] == 0
    last = result.log[-1]
    assert (last["cell"], last["digit"]) == (2, result.wipeout_digit)
    assert "r1c3 has no candidate left" in result.describe()


def test_clashing_givens_wipe_out_the_second_one():
    grid = np.zeros(81, dtype=np.int8)
    grid[[0, 5]] = 7
    result = ac3(grid)
    assert not result.consistent
    assert (result.wipeout_cell, result.wipeout_digit) == (5, 7)
    assert result.pops.tolist() == [0]


def test_empty_domain_from_the_start():
    domains = np.full(16, 0b1111, dtype=MASK_DTYPE)
    domains[[3, 9]] = 0
    result = check_against_naive(domains, 2, True)
    assert (result.wipeout_cell, result.wipeout_digit, result.n_pops, result.n_removed) == (3, None, 0, 0)


def test_hidden_singles_unit_wipeout():
    # Digit 1 has no place in row 1, yet no domain is empty: plain AC3 sees nothing wrong.
    domains = np.full(16, 0b1111, dtype=MASK_DTYPE)
    domains[:4] = 0b1110
    assert ac3(None, domains=domains).consistent
    result = check_against_naive(domains, 2, True)
    assert not result.consistent
    assert (result.wipeout_cell, result.wipeout_unit, result.wipeout_digit) == (None, 0, 1)
    assert "digit 1 has no place left in row 1" in result.describe()


@pytest.mark.parametrize(
    "path, name",
    [
        (("kennett", "hard.csv"), "kennett_hard_001"),
        (("papers.csv",), "nbcoin_77_difficult"),
    ],
)
def test_hidden_singles_fix_more_than_ac3(path, name):
    row = next(r for r in read_rows(*path) if r["name"] == name)
    grid, solution = to_grid(row["puzzle"]), to_grid(row["solution"])
    plain = ac3(grid)
    strong = ac3(grid, hidden_singles=True)
    assert plain.consistent and strong.consistent
    assert plain.n_open > 0
    assert strong.n_fixed > plain.n_fixed and strong.n_hidden > 0
    assert strong.n_open == 0 and strong.grid.tolist() == solution.tolist()
    assert (strong.log["because"] < 0).any()
    assert "still open (hidden singles off)" in plain.describe()
    assert "every cell is fixed (hidden singles on)" in strong.describe()


def test_result_fields_on_a_solved_puzzle():
    row = PAPERS[0]
    grid = to_grid(row["puzzle"])
    result = ac3(Puzzle(grid))
    n_givens = int(np.count_nonzero(grid))
    assert result.n == 3 and result.consistent
    assert result.n_fixed == 81 - n_givens and result.n_open == 0
    assert result.fixed.tolist() == np.flatnonzero(grid == 0).tolist()
    assert sorted(result.pops.tolist()) == list(range(81))
    assert result.pops[:n_givens].tolist() == np.flatnonzero(grid).tolist()
    assert result.candidates(0) == [int(to_grid(row["solution"])[0])]
    assert result.describe() == (
        f"AC3 removed {result.n_removed} candidates and fixed {result.n_fixed} cells; "
        "every cell is fixed (hidden singles off)"
    )
    assert result.log.dtype == LOG_DTYPE
    for a in (result.initial, result.domains, result.log, result.pops, result.fixed, result.grid):
        assert not a.flags.writeable


def test_initial_domains():
    grid = to_grid(PAPERS[0]["puzzle"])
    full = initial_domains(grid)
    assert full.dtype == MASK_DTYPE and full.shape == (81,)
    assert np.all(full[grid == 0] == 0x1FF)
    assert np.all(full[grid > 0] == np.left_shift(1, grid[grid > 0].astype(np.int64) - 1))
    one_pass = initial_domains(grid.reshape(9, 9), one_pass=True)
    geo = geometry(3)
    for cell in np.flatnonzero(grid == 0):
        used = {int(grid[p]) for p in geo.peers[cell]} - {0}
        assert set(mask_to_digits(one_pass[cell])) == set(range(1, 10)) - used
    assert one_pass[grid > 0].tolist() == full[grid > 0].tolist()


def test_helpers():
    assert mask_to_digits(0) == []
    assert mask_to_digits(0b1010_0001) == [1, 6, 8]
    assert mask_to_digits((1 << 25) - 1) == list(range(1, 26))
    assert candidate_count(np.array([0, 1, 0b1011, (1 << 25) - 1], dtype=MASK_DTYPE)).tolist() == [0, 1, 3, 25]


def test_bad_input_raises():
    with pytest.raises(PuzzleError):
        ac3(np.zeros(80, dtype=np.int8))
    with pytest.raises(PuzzleError):
        ac3(np.full(16, 5, dtype=np.int8))
    with pytest.raises(ParameterError):
        ac3(None, domains=np.full(16, 0b10000, dtype=MASK_DTYPE))
    with pytest.raises(ParameterError):
        ac3(np.zeros(81, dtype=np.int8), domains=np.zeros(16, dtype=MASK_DTYPE))
    with pytest.raises(ParameterError):
        ac3(None)
    result = ac3(np.zeros(16, dtype=np.int8))
    with pytest.raises(IndexError):
        result.domains_after(1)
    with pytest.raises(IndexError):
        result.domains_after_pops(-1)


def test_kernel_without_a_log_gives_the_same_result():
    row = next(r for r in PAPERS if r["name"] == "sato_inoue_super_difficult_24")
    geo = geometry(3)
    start = initial_domains(to_grid(row["puzzle"]))
    outputs = []
    for capacity in (geo.C * geo.N, 0):
        domains = start.copy()
        pops = np.empty(geo.C, dtype=np.int32)
        counters = np.zeros(kernel.N_COUNTERS, dtype=np.int64)
        log = np.empty((capacity, kernel.LOG_WIDTH), dtype=np.int32)
        ok = kernel.propagate(domains, geo.peers, geo.units, True, log, pops, counters)
        outputs.append((ok, domains.tolist(), counters.tolist(), pops[: counters[kernel.CNT_POPS]].tolist()))
    assert outputs[0] == outputs[1]
    assert outputs[0][2][kernel.CNT_HIDDEN] > 0


BOUNDSCHECK_SCRIPT = textwrap.dedent("""
    import numpy as np
    from numba import config
    from sudoku_lab.exact.ac3 import ac3, initial_domains

    assert config.BOUNDSCHECK, "NUMBA_BOUNDSCHECK was not honoured"
    rng = np.random.default_rng(1)
    runs = 0
    for n in (2, 3):
        N = n * n
        C = N * N
        for hidden in (False, True):
            for _ in range(40):
                grid = np.where(rng.random(C) < 0.3, rng.integers(1, N + 1, C), 0)
                masks = rng.integers(0, 1 << N, C).astype(np.uint32)
                for start in (initial_domains(grid), masks):
                    result = ac3(None, hidden_singles=hidden, domains=start)
                    assert np.array_equal(result.domains_after(result.n_removed), result.domains)
                    runs += 1
    print("ok", runs)
""")


def test_kernel_under_numba_boundscheck(tmp_path):
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, "-c", BOUNDSCHECK_SCRIPT], env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["ok", "320"]
