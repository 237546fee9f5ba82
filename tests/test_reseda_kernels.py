"""RESEDA kernels against their pure-Python twins (tests/naive.py), draw for draw."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sudoku_lab._kernels import reseda as K
from sudoku_lab.exact.ac3 import initial_domains
from sudoku_lab.model import library
from sudoku_lab.model.geometry import geometry
from sudoku_lab.solvers.reseda import _box_tables, _initial_p

import naive

PUZZLES = ["reseda_fig3_1_easy", "reseda_fig4_1_hard", "ai_escargot"]


def _model(name, precompute=True, seed=0, noise=True):
    """A puzzle's initial p, optionally perturbed (still zero where pre-computation forbids)."""
    pz = library.puzzle(name)
    g = pz.grid.copy()
    p = _initial_p(g, initial_domains(g, pz.n, one_pass=True), pz.N, precompute)
    if noise:
        rng = np.random.default_rng(seed)
        p = p * rng.random(p.shape) ** 3
        p[g > 0] = _initial_p(g, initial_domains(g, pz.n, one_pass=True), pz.N, precompute)[g > 0]
        p /= p.sum(axis=1, keepdims=True)
    return pz, g, p


@pytest.mark.parametrize("name", PUZZLES)
@pytest.mark.parametrize("precompute", [True, False])
def test_sample_independent_matches_naive(name, precompute):
    pz, g, p = _model(name, precompute, seed=1)
    free = np.flatnonzero(g == 0).astype(np.int32)
    for seed in range(20):
        out = np.zeros(pz.C, np.int8)
        K.sample_independent(p, free, g, out, np.random.default_rng(seed))
        ref = naive.naive_sample_independent(p.tolist(), g.tolist(), np.random.default_rng(seed))
        assert out.tolist() == ref


@pytest.mark.parametrize("name", PUZZLES)
@pytest.mark.parametrize("precompute", [True, False])
def test_sample_blocks_matches_naive(name, precompute):
    pz, g, p = _model(name, precompute, seed=2)
    bf, bn, ba = _box_tables(g, geometry(pz.n))
    used = np.zeros(pz.N, bool)
    for seed in range(20):
        out = np.zeros(pz.C, np.int8)
        rng = np.random.default_rng(seed)
        K.sample_blocks(p, bf, bn, ba, g, out, used, rng)
        ref_rng = np.random.default_rng(seed)
        ref = naive.naive_sample_blocks(p.tolist(), g.tolist(), pz.n, ref_rng)
        assert out.tolist() == ref
        assert rng.random() == ref_rng.random()  # both consumed the same number of draws
        # every box is a permutation
        boxes = np.sort(out[geometry(pz.n).units[2 * pz.N :]], axis=1)
        assert np.all(boxes == np.arange(1, pz.N + 1))


def test_sample_blocks_uniform_fill_when_mass_runs_out():
    """A cell whose only candidate is taken by another cell of its box triggers the uniform fill."""
    pz = library.puzzle("reseda_fig3_1_easy")
    g = pz.grid.copy()
    p = _initial_p(g, initial_domains(g, pz.n, one_pass=True), pz.N, True)
    geo = geometry(pz.n)
    box0 = [c for c in geo.units[2 * pz.N] if g[c] == 0]
    # Make two free cells of box 0 want only the same digit: whichever goes second starves.
    d = int(np.flatnonzero(p[box0[0]])[0])
    for c in box0[:2]:
        p[c] = 0.0
        p[c, d] = 1.0
    bf, bn, ba = _box_tables(g, geo)
    used = np.zeros(pz.N, bool)
    starved_seen = False
    for seed in range(30):
        out = np.zeros(pz.C, np.int8)
        K.sample_blocks(p, bf, bn, ba, g, out, used, np.random.default_rng(seed))
        ref = naive.naive_sample_blocks(p.tolist(), g.tolist(), pz.n, np.random.default_rng(seed))
        assert out.tolist() == ref
        starved_seen |= out[box0[1]] != d + 1 or out[box0[0]] != d + 1
    assert starved_seen


@given(st.integers(2, 3), st.data())
def test_missing_cost_matches_naive(n, data):
    N = n * n
    grid = data.draw(st.lists(st.integers(0, N), min_size=N * N, max_size=N * N))
    g = np.array(grid, np.int8)
    assert K.missing_cost(g, geometry(n).units, N) == naive.naive_missing_cost(grid, n)


def test_missing_cost_examples():
    # The paper's example: a row (2,2,3,3,3,5,6,7,8) contributes 3.
    pz = library.puzzle("reseda_fig3_1_easy")
    sol = pz.check()
    assert K.missing_cost(np.array(sol), geometry(3).units, 9) == 0
    g = np.array(sol)
    row = np.array([2, 2, 3, 3, 3, 5, 6, 7, 8], np.int8)
    g[:9] = row
    units = geometry(3).units
    assert 9 - len(set(row.tolist())) == 3
    assert K.missing_cost(g, units, 9) == naive.naive_missing_cost(g.tolist(), 3)


@given(st.lists(st.integers(0, 5), min_size=1, max_size=60), st.integers(0, 2**32 - 1), st.data())
def test_select_sort_matches_naive(costs, seed, data):
    Q1 = data.draw(st.integers(1, len(costs)))
    c = np.array(costs, np.int64)
    kept = np.zeros(Q1, np.int64)
    K.select_sort(c, Q1, kept, np.random.default_rng(seed))
    ref = naive.naive_select_sort(costs, Q1, np.random.default_rng(seed))
    assert kept.tolist() == ref
    assert sorted(c[kept].tolist()) == sorted(costs)[:Q1]


@given(st.lists(st.integers(0, 5), min_size=1, max_size=60), st.data())
def test_select_groups_matches_naive(costs, data):
    Q1 = data.draw(st.integers(1, len(costs)))
    kept = np.zeros(Q1, np.int64)
    K.select_groups(np.array(costs, np.int64), Q1, kept)
    assert kept.tolist() == naive.naive_select_groups(costs, Q1)


@pytest.mark.parametrize("alpha", [0.0, 0.3, 0.7, 1.0])
def test_update_and_rho_match_naive(alpha):
    pz, g, p = _model("reseda_fig4_1_hard", True, seed=3)
    free = np.flatnonzero(g == 0).astype(np.int32)
    rng = np.random.default_rng(4)
    samples = np.stack([naive.naive_sample_independent(p.tolist(), g.tolist(), rng) for _ in range(12)]).astype(np.int8)
    kept = np.array([3, 7, 0, 11, 5], np.int64)
    new = p.copy()
    K.update_p(new, samples, kept, len(kept), free, alpha, np.zeros(pz.N, np.int64))
    ref = naive.naive_update(p.tolist(), samples.tolist(), kept.tolist(), free.tolist(), alpha)
    assert new.tolist() == ref  # same formula, same order: bit-for-bit equal
    np.testing.assert_allclose(new.sum(axis=1), 1.0)
    assert K.rho(new, free) == naive.naive_rho(ref, free.tolist())


def test_one_step_matches_naive_generation():
    """run_steps(1) = Q blocks samples, costs, sort selection, update, rho, in that draw order."""
    pz, g, _ = _model("reseda_fig3_2_medium", True, noise=False)
    p = _initial_p(g, initial_domains(g, pz.n, one_pass=True), pz.N, True)
    geo = geometry(pz.n)
    free = np.flatnonzero(g == 0).astype(np.int32)
    bf, bn, ba = _box_tables(g, geo)
    Q, Q1, alpha = 30, 6, 0.7
    rng = np.random.default_rng(9)
    ref_rng = np.random.default_rng(9)
    ref_p = p.tolist()
    kp = p.copy()
    samples = np.zeros((Q, pz.C), np.int8)
    counters = np.zeros(K.N_COUNTERS, np.int64)
    counters[K.C_BEST_COST] = 10**9
    trace = np.zeros((3, K.TRACE_WIDTH))
    for step in range(3):  # noqa: B007 - read after the loop
        steps, code = K.run_steps(
            kp,
            free,
            g,
            bf,
            bn,
            ba,
            geo.units,
            samples,
            np.zeros(Q, np.int64),
            np.zeros(Q1, np.int64),
            np.zeros(pz.C, np.int8),
            np.zeros(pz.C, np.int8),
            counters,
            trace,
            np.array([Q, Q1, K.SAMPLING_BLOCKS, K.SELECT_SORT, 0], np.int64),
            np.array([alpha, 0.99]),
            np.zeros(pz.N, bool),
            np.zeros(pz.N, np.int64),
            rng,
            1,
        )
        ref_samples = [naive.naive_sample_blocks(ref_p, g.tolist(), pz.n, ref_rng) for _ in range(Q)]
        ref_costs = [naive.naive_missing_cost(s, pz.n) for s in ref_samples]
        assert samples.tolist() == ref_samples
        assert trace[0, 1] == min(ref_costs) and trace[0, 2] == pytest.approx(sum(ref_costs) / Q)
        if code == K.SOLVED:
            assert min(ref_costs) == 0
            break
        kept = naive.naive_select_sort(ref_costs, Q1, ref_rng)
        ref_p = naive.naive_update(ref_p, ref_samples, kept, free.tolist(), alpha)
        assert kp.tolist() == ref_p
        assert trace[0, 3] == naive.naive_rho(ref_p, free.tolist())
    assert counters[K.C_ITERATION] == step + 1


def test_kernels_under_boundscheck(tmp_path):
    """Run the RESEDA kernels with numba's bounds checking on (a fresh cache, another process)."""
    import os
    import subprocess
    import sys

    code = r"""
import numpy as np
from numba.core.config import BOUNDSCHECK
assert BOUNDSCHECK, "boundscheck is off"
from sudoku_lab.model import library
from sudoku_lab.exact.generate import generate
from sudoku_lab.solvers.reseda import Reseda
for pz in (library.puzzle("reseda_fig3_1_easy"), generate(2, 6, seed=1)):
    for kw in (dict(sampling="blocks"), dict(sampling="independent", selection="groups", precompute=False),
               dict(restart="partial+full", zones="all", prefilter="ac3")):
        s = Reseda(Q=20, Q1=4, **kw)
        s.reset(pz, seed=1)
        s.step(40)
        s.snapshot()
print("ok")
"""
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().endswith("ok")


# ------------------------------------------------------- numerical robustness (issue 7)
def _two_free_cells_in_box0():
    """reseda_fig3_1_easy's solution with two cells of box 0 blanked: (grid, cell A, cell B, digits of A, B)."""
    pz = library.puzzle("reseda_fig3_1_easy")
    g = np.array(pz.check())
    geo = geometry(3)
    a, b = (int(c) for c in geo.units[18][:2])
    da, db = int(g[a]), int(g[b])
    g[[a, b]] = 0
    return g, a, b, da, db


def _one_hot(g, N=9):
    p = np.zeros((g.size, N))
    p[np.flatnonzero(g), g[g > 0] - 1] = 1.0
    return p


def test_sample_blocks_survives_mass_absorbed_by_rounding():
    """The ZeroDivisionError of `solve --algo reseda --until 30s benchmarks/17_clue:1`, made deterministic.

    Cell B holds 1.0 on A's digit and 1e-20 on its own: 1.0 + 1e-20 rounds to 1.0, so once A takes
    its digit a running total kept by subtraction is 0.0 while B still has mass. The mass must be
    summed again, and B must draw its own digit.
    """
    g, a, b, da, db = _two_free_cells_in_box0()
    p = _one_hot(g)
    p[a, da - 1] = 1.0
    p[b, da - 1] = 1.0
    p[b, db - 1] = 1e-20
    bf, bn, ba = _box_tables(g, geometry(3))
    for seed in range(5):
        out = np.zeros(81, np.int8)
        K.sample_blocks(p, bf, bn, ba, g, out, np.zeros(9, bool), np.random.default_rng(seed))
        ref = naive.naive_sample_blocks(p.tolist(), g.tolist(), 3, np.random.default_rng(seed))
        assert out.tolist() == ref
        assert (out[a], out[b]) == (da, db)


def test_draw_digit_without_mass_picks_an_allowed_digit_uniformly():
    """All allowed entries underflowed to 0: a uniform draw among them (never 0, never a forbidden digit)."""
    row = np.zeros(9)
    row[0] = 0.7  # mass only on a digit outside the mask
    mask = (1 << 2) | (1 << 4) | (1 << 8)  # digits 3, 5, 9
    seen = []
    for seed in range(60):
        d = K.draw_digit(row, mask, np.random.default_rng(seed))
        assert d == naive.naive_draw(row.tolist(), [3, 5, 9], np.random.default_rng(seed))
        seen.append(d)
    assert set(seen) == {3, 5, 9}
    # the fallback is uniform: each digit about a third of 60 draws
    assert all(10 <= seen.count(d) <= 30 for d in (3, 5, 9))
    assert K.draw_digit(row, 0, np.random.default_rng(0)) == 0


def test_uniform_fill_with_a_spare_digit_stays_in_bounds(tmp_path):
    """A restart zone can repeat a given's digit inside a box, leaving one more digit than free cells.

    The uniform fill then shuffles m + 1 digits; its scratch array must hold them all (numba's bounds
    checking, in a fresh process, turns the old overflow into an IndexError).
    """
    import os
    import subprocess
    import sys

    code = r"""
import numpy as np
from numba.core.config import BOUNDSCHECK
assert BOUNDSCHECK
from sudoku_lab._kernels import reseda as K
from sudoku_lab.model.geometry import geometry
from sudoku_lab.solvers.reseda import _box_tables
geo = geometry(2)
g = np.zeros(16, np.int8)
box0 = geo.units[8]
g[box0[0]] = 1
g[box0[1]] = 1   # the same digit twice in box 0: digits 2, 3, 4 for two free cells
p = np.zeros((16, 4))
p[np.flatnonzero(g), g[g > 0] - 1] = 1.0
for c in np.flatnonzero(g == 0):
    p[c, 0] = 1.0  # mass only on digit 1, which box 0 no longer offers: starved at once
bf, bn, ba = _box_tables(g, geo)
out = np.zeros(16, np.int8)
for seed in range(20):
    K.sample_blocks(p, bf, bn, ba, g, out, np.zeros(4, bool), np.random.default_rng(seed))
    assert set(out[box0[2:]].tolist()) <= {2, 3, 4} and out[box0[2]] != out[box0[3]], out
print("ok")
"""
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "ok"


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.data())
def test_shared_score_kernels_match_numpy_scoring(n, data):
    """The kernels every solver shares equal sudoku_lab.model.scoring on any grid, blanks included."""
    from sudoku_lab._kernels import scores
    from sudoku_lab.model import scoring

    N = n * n
    grid = np.array(data.draw(st.lists(st.integers(0, N), min_size=N * N, max_size=N * N)), dtype=np.int8)
    units = geometry(n).units
    assert scores.missing_cost(grid, units, N) == scoring.missing_symbols(grid, n)
    assert scores.distinct_count(grid, units, N) == scoring.distinct_count(grid, n)
    assert K.missing_cost is scores.missing_cost  # one copy, not two
