"""NB-COIN: kernels against their pure-Python twins, the update rule by hand, the solver, benchmark, reproduction."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_lab import exact
from sudoku_lab._kernels import nbcoin as K
from sudoku_lab.errors import ParameterError
from sudoku_lab.model import library
from sudoku_lab.model.scoring import distinct_count, missing_symbols
from sudoku_lab.solvers import Status, create
from sudoku_lab.solvers.nbcoin import box_tables, initial_model, model_as_cells, selected_count

from naive_nbcoin import naive_initial_model, naive_run, naive_update  # tests/naive_nbcoin.py


# ------------------------------------------------------------------ twins
@pytest.mark.parametrize("puzzle", ["unique_4x4_a", "nbcoin_106_difficult", "unique_16x16_a"])
def test_initial_model_equals_the_twin(puzzle):
    pz = library.puzzle(puzzle)
    M, allowed = initial_model(pz.grid, pz.n)
    nM, nallowed = naive_initial_model([int(x) for x in pz.grid], pz.n)
    np.testing.assert_array_equal(M, np.array(nM))
    np.testing.assert_array_equal(allowed, np.array(nallowed))
    np.testing.assert_allclose(M.sum(axis=2), 1.0)


def test_initial_model_follows_the_paper():
    """A given position is certain; a free one excludes the box's givens and its row's and column's givens."""
    pz = library.puzzle("nbcoin_01_easy")
    M, _ = initial_model(pz.grid, 3)
    g = pz.grid.reshape(9, 9)
    geo = pz.geometry
    for b in range(9):
        for i, c in enumerate(geo.units[18 + b]):
            r, col = divmod(int(c), 9)
            if g[r, col]:
                assert M[b, i, g[r, col] - 1] == 1.0
                continue
            used = set(g[r]) | set(g[:, col]) | {int(pz.grid[x]) for x in geo.units[18 + b]}
            allowed = [d for d in range(1, 10) if d not in used]
            assert sorted(np.flatnonzero(M[b, i]) + 1) == allowed
            np.testing.assert_allclose(M[b, i, np.array(allowed) - 1], 1.0 / len(allowed))


@pytest.mark.parametrize(
    "puzzle,params,gens",
    [
        ("unique_4x4_a", {"population": 5, "C": 40.0, "generations": 0}, 6),
        ("nbcoin_106_difficult", {"population": 12, "C": 25.0, "k": 0.5, "upper": 0.9}, 5),
        ("nbcoin_106_difficult", {"population": 8, "C": 50.0, "update": "frequencies"}, 4),
        ("nbcoin_106_difficult", {"population": 10, "k": 1.0, "upper": 0.5, "bound": "cap"}, 6),
    ],
)
def test_generations_equal_the_twin(puzzle, params, gens):
    """Same seed: the same models, population, fitness, good and bad sets, best grid and trace."""
    pz = library.puzzle(puzzle)
    s = create("nbcoin", **params)
    s.reset(pz, seed=5)
    s.step(gens)
    p = s.get_params()
    rng = np.random.default_rng(5)
    M, pop, fit, good, bad, best, trace = naive_run(
        [int(x) for x in pz.grid],
        pz.n,
        rng,
        gens,
        p["population"],
        selected_count(p["population"], p["C"]),
        p["k"],
        p["upper"],
        counts=p["update"] == "counts",
        cap=p["bound"] == "cap",
    )
    snap = s.snapshot()
    np.testing.assert_array_equal(snap.layers["models"], np.array(M))
    np.testing.assert_array_equal(snap.layers["population"], np.array(pop))
    np.testing.assert_array_equal(snap.layers["fitness"], np.array(fit, dtype=float))
    np.testing.assert_array_equal(snap.layers["good"], good)
    np.testing.assert_array_equal(snap.layers["bad"], bad)
    np.testing.assert_array_equal(snap.best_grid, best)
    rows = np.column_stack([snap.trace[c] for c in s.trace_names()])
    np.testing.assert_array_equal(rows, np.array(trace, dtype=float))
    assert s.rng.bit_generator.state == rng.bit_generator.state  # not one draw more or less


def _hand_case(upper):
    """A 4x4 model, all free but cell 15, with two hand-set rows and a crafted population."""
    N = 4
    base = np.zeros(16, dtype=np.int8)
    base[15] = 4
    M = np.full((N, N, N), 0.25)
    allowed = np.ones((N, N, N), dtype=bool)
    M[0, 0] = [1 / 3, 1 / 3, 1 / 3, 0.0]
    allowed[0, 0] = [True, True, True, False]
    M[0, 1] = [0.02, 0.49, 0.49, 0.0]
    allowed[0, 1] = [True, True, True, False]
    M[3, 3] = [0.0, 0.0, 0.0, 1.0]  # cell 15: box 4, position 4 (given 4)
    allowed[3, 3] = [False, False, False, True]
    pop = np.random.default_rng(0).integers(1, 5, size=(4, 16)).astype(np.int8)
    pop[:, 15] = 4
    pop[:, 0] = [1, 1, 2, 3]  # good {0, 1} both 1; bad {2, 3}: 2 and 3
    pop[:, 1] = [2, 2, 1, 1]  # good both 2, bad both 1
    good, bad = np.array([0, 1]), np.array([3, 2])
    cells, free, nfree, _ = box_tables(base, 2)
    delta = np.zeros((N, N, N))
    M0 = M.copy()
    K.update_model(M, allowed, cells, free, nfree, pop, good, bad, 2, 0.4, upper, K.UPDATE_FREQUENCIES, delta)
    return M0, M, allowed, base, pop, good, bad, delta


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_row_col_fitness_equals_the_distinct_count(n):
    N = n * n
    rng = np.random.default_rng(n)
    cols = np.empty(N, dtype=np.int64)
    for _ in range(20):
        grid = rng.integers(0, N + 1, size=N * N).astype(np.int8)  # blanks (0) count as no digit
        assert K.row_col_fitness(grid, N, cols) == distinct_count(grid, n)
    solved = exact.solve(library.puzzle("nbcoin_106_difficult")) if n == 3 else None
    if solved is not None:
        assert K.row_col_fitness(np.asarray(solved, dtype=np.int8).ravel(), N, cols) == 2 * N * N


def test_unused_digits_lists_each_box_mask_in_increasing_order():
    out = K.unused_digits(np.array([0b101, 0, 0b1110, 0], dtype=np.int64), 4)
    assert out.tolist() == [[0, 2, -1, -1], [-1, -1, -1, -1], [1, 2, 3, -1], [-1, -1, -1, -1]]


def test_update_rule_by_hand():
    """k = 0.4, L = 4: k/L = 0.1, k/L^2 = 0.025; frequencies f (good) and h (bad); clip, forbid, renormalise."""
    M0, M, allowed, base, pop, good, bad, delta = _hand_case(upper=0.99)
    # cell 0: f = (1, 0, 0, 0), h = (0, .5, .5, 0): 1/3 + .1 - .025 + .025 = 13/30; 1/3 - .025 - .05 + .025 = 17/60
    np.testing.assert_allclose(M[0, 0], [13 / 30, 17 / 60, 17 / 60, 0.0], rtol=1e-12)
    # cell 1: f = (0, 1, 0, 0), h = (1, 0, 0, 0): .02 - .1 < 0 -> 0; .49 + .1 = .59; .49; sum 1.08
    np.testing.assert_allclose(M[0, 1], [0.0, 0.59 / 1.08, 0.49 / 1.08, 0.0], rtol=1e-12)
    # the given position never moves; forbidden digits stay 0; rows sum to 1
    assert list(M[3, 3]) == [0.0, 0.0, 0.0, 1.0] and not np.any(delta[3, 3])
    assert np.all(M[~allowed] == 0.0)
    np.testing.assert_allclose(M.sum(axis=2), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(delta, M - M0)
    # the twin agrees on every entry
    nM, ndelta = naive_update(
        M0.tolist(), allowed.tolist(), base.tolist(), 2, pop.tolist(), list(good), list(bad), 0.4, 0.99
    )
    np.testing.assert_array_equal(M, np.array(nM))
    np.testing.assert_array_equal(delta, np.array(ndelta))


def test_update_rule_clips_at_the_upper_bound():
    _, M, *_ = _hand_case(upper=0.4)
    # cell 0: 13/30 > 0.4 is clipped: (2/5, 17/60, 17/60) / (58/60) = (12/29, 17/58, 17/58)
    np.testing.assert_allclose(M[0, 0], [12 / 29, 17 / 58, 17 / 58, 0.0], rtol=1e-12)
    # cell 1: .59 and .49 both clipped to .4: an even split
    np.testing.assert_allclose(M[0, 1], [0.0, 0.5, 0.5, 0.0], rtol=1e-12)


def test_cap_bound_by_hand():
    """bound='cap': after renormalising, no entry exceeds upper; the excess goes evenly to the other allowed digits."""
    row = np.array([0.0, 0.9, 0.1, 0.0])
    K.cap_row(row, np.array([True, True, True, False]), 0.6)
    np.testing.assert_allclose(row, [0.15, 0.6, 0.25, 0.0], rtol=1e-12)  # 0.3 shared by digits 1 and 3
    row = np.array([0.0, 1.0, 0.0, 0.0])
    K.cap_row(row, np.array([True, True, True, True]), 0.4)  # 0.6 to three digits: 0.2 each; none above 0.4
    np.testing.assert_allclose(row, [0.2, 0.4, 0.2, 0.2], rtol=1e-12)
    row = np.array([0.0, 1.0, 0.0, 0.0])
    K.cap_row(row, np.array([False, True, False, False]), 0.4)  # a single allowed digit stays certain
    np.testing.assert_array_equal(row, [0.0, 1.0, 0.0, 0.0])


def test_with_cap_no_free_position_becomes_certain():
    pz = library.puzzle("nbcoin_106_difficult")
    s = create("nbcoin", population=20, k=1.0, upper=0.8, bound="cap")
    s.reset(pz, seed=4)
    s.step(60)
    M = s.snapshot().layers["models"]
    _, allowed = initial_model(pz.grid, 3)
    several = (allowed.sum(axis=2) > 1) & (pz.grid[pz.geometry.units[18:]] == 0)
    assert M[several].max() <= 0.8 + 1e-12
    np.testing.assert_allclose(M.sum(axis=2), 1.0)


# ------------------------------------------------------------------ solver
def test_update_defaults_to_the_papers_raw_counts():
    """update=counts (the paper's equations 4-5 as written) is the default: one generation from the same population
    moves the model G times as far as update=frequencies (before the clip and the renormalisation)."""
    assert create("nbcoin").get_params()["update"] == "counts"
    pz = library.puzzle("nbcoin_27_medium")
    deltas = {}
    for update in ("counts", "frequencies"):
        s = create("nbcoin", population=40, k=0.01, update=update)
        s.reset(pz, seed=4)
        s.step(1)
        deltas[update] = np.abs(s.snapshot().layers["delta"]).max()
    G = selected_count(40, 25.0)
    assert G == 10 and deltas["counts"] > 5 * deltas["frequencies"] > 0


def test_solves_an_easy_puzzle_to_the_exact_solution():
    pz = library.puzzle("nbcoin_11_easy")
    s = create("nbcoin")
    s.reset(pz, seed=0)
    s.step(2000)
    snap = s.snapshot()
    assert snap.solved and snap.cost == 0
    np.testing.assert_array_equal(snap.grid, exact.solve(pz))
    assert snap.evaluations == 150 * snap.iteration
    assert snap.trace["best_fitness"][-1] == 162 and snap.layers["best_fitness"] == 162


def test_cost_is_missing_symbols_of_the_best_grid_and_layers_agree():
    pz = library.puzzle("nbcoin_106_difficult")
    s = create("nbcoin", population=30)
    s.reset(pz, seed=2)
    for _ in range(4):
        s.step(7)
        snap = s.snapshot()
        assert snap.cost == missing_symbols(snap.grid, 3) == 162 - distinct_count(snap.grid, 3)
        assert snap.cost == 162 - snap.layers["best_fitness"] == snap.trace["best_cost"][-1]
        assert snap.trace["best_fitness"][-1] == snap.layers["fitness"].max() == snap.layers["generation_best"]
        assert snap.trace["worst_fitness"][-1] == snap.layers["fitness"].min()
        np.testing.assert_array_equal(snap.layers["prob"], model_as_cells(snap.layers["models"], 3))
        np.testing.assert_allclose(snap.layers["prob"].sum(axis=1), 1.0)
        np.testing.assert_array_equal(snap.layers["moved"], np.abs(snap.layers["delta"]).max(axis=2))
        fit = snap.layers["fitness"]
        good, bad = snap.layers["good"], snap.layers["bad"]
        assert len(good) == len(bad) == 7 and fit[good].min() >= fit[bad].max()
    M0, allowed = initial_model(pz.grid, 3)
    assert np.all(snap.layers["models"][~allowed] == 0.0)


def test_population_change_applies_at_the_next_generation():
    s = create("nbcoin", population=20)
    s.reset(library.puzzle("nbcoin_106_difficult"), seed=1)
    s.step(3)
    events = s.set_params(population=40, C=10.0)
    assert sorted((e.name, e.iteration, e.old, e.new) for e in events) == [
        ("C", 3, 25.0, 10.0),
        ("population", 3, 20, 40),
    ]
    assert s.snapshot().layers["fitness"].shape == (20,)  # the latest generation is still the old one
    s.step(1)
    snap = s.snapshot()
    assert snap.layers["fitness"].shape == (40,) and len(snap.layers["good"]) == 4
    assert snap.evaluations == 3 * 20 + 40


def test_budget_ends_the_run_as_failed():
    s = create("nbcoin", population=10, generations=5)
    s.reset(library.puzzle("nbcoin_106_difficult"), seed=0)
    assert s.step(50) == 5 and s.status == Status.FAILED and s.snapshot().cost > 0


@pytest.mark.parametrize(
    "bad",
    [
        {"C": 60},
        {"C": 0},
        {"k": 0},
        {"k": 1.5},
        {"population": 1},
        {"upper": 0},
        {"update": "sums"},
        {"generations": -1},
        {"population": "many"},
    ],
)
def test_bad_parameters_give_one_clear_line(bad):
    with pytest.raises(ParameterError) as e:
        create("nbcoin", **bad)
    assert "\n" not in str(e.value) and next(iter(bad)) in str(e.value)


def test_box_size_five_runs():
    pz = library.puzzle("benchmarks/lewis_25x25_50:1")
    s = create("nbcoin", population=4)
    s.reset(pz, seed=0)
    s.step(2)
    snap = s.snapshot()
    assert snap.layers["models"].shape == (25, 25, 25) and snap.cost == missing_symbols(snap.grid, 5)


# -------------------------------------------------------------- benchmark
def test_numpy_generation_behaves_like_the_kernel():
    """The benchmark's numpy version: same fitness, same selection and the same update from the same population."""
    from sudoku_lab.benchmarks.nbcoin import NumpyNBCoin

    pz = library.puzzle("nbcoin_106_difficult")
    ref = NumpyNBCoin(pz, population=30, seed=3)
    s = create("nbcoin", population=30)
    s.reset(pz, seed=3)
    np.testing.assert_array_equal(ref.M, s.M)
    s.step(2)
    snap = s.snapshot()
    pop = snap.layers["population"].astype(np.int64)
    fit = ref.fitness(pop)
    np.testing.assert_array_equal(fit, snap.layers["fitness"])
    good, bad = ref.select(fit)
    np.testing.assert_array_equal(good, snap.layers["good"])
    np.testing.assert_array_equal(bad, snap.layers["bad"])
    before = snap.layers["models"] - snap.layers["delta"]
    ref.M = before.copy()
    ref.update(pop, good, bad)
    np.testing.assert_allclose(ref.M, snap.layers["models"], rtol=0, atol=1e-14)
    # its samples are permutations per box that keep the givens
    S = ref.sample()
    assert np.all(S[:, pz.givens] == pz.grid[pz.givens])
    for cells in pz.geometry.units[18:]:
        assert np.all(np.sort(S[:, cells], axis=1) == np.arange(1, 10))
    assert ref.generation() in (True, False) and ref.generations == 1


# ------------------------------------------------------------ reproduction
def _run_table2(puzzles, runs, params):
    from sudoku_lab.reproductions import Runner, get_reproduction

    rep = get_reproduction("nbcoin-table2")
    return rep.run(Runner(params=params, seed=0), runs=runs, puzzles=puzzles)


def test_table2_nbcoin_column_on_a_reduced_size():
    report = _run_table2(2, 3, {"generations": 400})
    nb = [r for r in report.rows if r[2] == "NB-COIN"]
    assert [r[0] for r in nb] == ["nbcoin_01_easy", "nbcoin_11_easy"]
    for row in nb:
        assert row[3] == "100/100" and row[4] in ("1/3", "2/3", "3/3")
        # the default update=counts (the paper's sums as written) solves in the paper's few generations
        assert 1 <= float(row[11]) <= 10 and row[12] == "same order"
    text = report.markdown()
    assert "budget 400 generations" in text and "generations verdict" in text


def test_table2_ga_column_counts_what_the_ga_solver_gives():
    """The GA column runs the registered solver ga with the paper's settings and the same seeds."""
    from sudoku_lab.engine.experiments import Task, run_task
    from sudoku_lab.reproductions.nbcoin import GA_PARAMS

    report = _run_table2(1, 3, {"generations": 300})
    ga = [r for r in report.rows if r[2] == "GA"]
    assert len(ga) == 1 and ga[0][0] == "nbcoin_01_easy" and ga[0][3] == "100/100"
    pz = library.puzzle("nbcoin_01_easy")
    alone = [run_task(Task("ga", {**GA_PARAMS, "generations": 300}, pz, s, "solved,300it")) for s in range(3)]
    assert ga[0][4] == f"{sum(r.solved for r in alone)}/3"
    assert all(np.array_equal(r.grid, exact.solve(pz)) for r in alone if r.solved)
