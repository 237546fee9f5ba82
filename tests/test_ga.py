"""The GA of Sato and Inoue: kernels against their pure-Python twins, worked operator examples, the solver."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_lab import exact
from sudoku_lab._kernels import ga as K
from sudoku_lab.errors import ParameterError
from sudoku_lab.model import library
from sudoku_lab.model.puzzle import Puzzle
from sudoku_lab.model.scoring import distinct_count, missing_symbols
from sudoku_lab.solvers import create
from sudoku_lab.solvers.ga import box_tables

import naive_ga

#: A 4x4 puzzle with one solution (checked by the fixture).
PUZZLE_4 = "1..4.4..2..3...1"


def _boxes_ok(grid: np.ndarray, n: int) -> bool:
    """Every box of a full grid is a permutation of 1..N."""
    N = n * n
    g = np.asarray(grid).reshape(N, N)
    return all(
        sorted(g[br * n : (br + 1) * n, bc * n : (bc + 1) * n].ravel()) == list(range(1, N + 1))
        for br in range(n)
        for bc in range(n)
    )


def _keeps_givens(grid, givens) -> bool:
    g, h = np.asarray(grid), np.asarray(givens)
    return bool(np.all(g[h > 0] == h[h > 0]))


@pytest.fixture(scope="module")
def puzzle4():
    pz = Puzzle.parse(PUZZLE_4)
    assert pz.count_solutions(2) == 1
    return pz


# ----------------------------------------------------------------- twins
@pytest.mark.parametrize(
    "case",
    [
        ("4x4", dict(population=6, tournament=2, elites=1, crossover_rate=0.5, mutation_rate=0.5, ties="coin"), 25),
        (
            "nbcoin_106_difficult",
            dict(population=8, tournament=3, elites=2, crossover_rate=0.6, mutation_rate=0.4, ties="coin"),
            12,
        ),
        (
            "reseda_fig4_1_hard",
            dict(population=7, tournament=3, elites=0, crossover_rate=0.3, mutation_rate=0.3, ties="first"),
            10,
        ),
        (
            "4x4-ls",
            dict(
                population=5,
                tournament=3,
                elites=1,
                crossover_rate=0.3,
                mutation_rate=0.3,
                ties="coin",
                local_search=True,
            ),
            6,
        ),
        (
            "nbcoin_29_medium-ls",
            dict(
                population=6,
                tournament=3,
                elites=1,
                crossover_rate=0.4,
                mutation_rate=0.5,
                ties="coin",
                local_search=True,
            ),
            6,
        ),
    ],
    ids=lambda c: c[0],
)
def test_kernel_equals_the_naive_twin_draw_for_draw(case, puzzle4):
    """Population, fitness and trace after k generations equal the pure-Python GA from the same seed."""
    name, params, k = case
    pz = puzzle4 if name.startswith("4x4") else library.puzzle(name.removesuffix("-ls"))
    params = dict(params)
    s = create("ga", **params)
    s.reset(pz, seed=11)
    s.step(k)
    rng = np.random.default_rng(11)
    size = params.pop("population")
    params["local_search_on"] = params.pop("local_search", False)
    pop, trace = naive_ga.run(
        pz.grid.tolist(), pz.n, rng, k, size=size, tournament_size=params.pop("tournament"), **params
    )
    snap = s.snapshot()
    assert snap.iteration == len(trace)
    np.testing.assert_array_equal(snap.layers["individuals"], np.array(pop, dtype=np.int8))
    np.testing.assert_array_equal(snap.layers["fitness"], [naive_ga.fitness(g, pz.n)[0] for g in pop])
    got = np.column_stack([snap.trace[c] for c in s.trace_names()])
    np.testing.assert_array_equal(got, np.array(trace, dtype=float))
    # the generator is left at the same place: the next draw agrees
    assert s.rng.random() == rng.random()


def test_initial_population_equals_the_twin_and_keeps_givens():
    pz = library.puzzle("nbcoin_27_medium")
    s = create("ga", population=5)
    s.reset(pz, seed=4)
    rng = np.random.default_rng(4)
    twins = [naive_ga.random_individual(pz.grid.tolist(), 3, rng) for _ in range(5)]
    pop = s.snapshot().layers["individuals"]
    np.testing.assert_array_equal(pop, np.array(twins, dtype=np.int8))
    for g in pop:
        assert _boxes_ok(g, 3) and _keeps_givens(g, pz.grid)


# ----------------------------------------------------- worked operator examples
A4 = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]  # a solution: every row and column scores 4
B4 = [
    1,
    2,
    3,
    4,
    4,
    3,
    2,
    1,  # boxes are still permutations (top-left 1 2 4 3, top-right 3 4 2 1)
    2,
    1,
    4,
    3,
    3,
    4,
    1,
    2,
]


def _scores(g, n):
    N = n * n
    r, c = np.zeros(N, np.int64), np.zeros(N, np.int64)
    units = library.puzzle("reseda_fig4_1_hard").geometry.units if n == 3 else Puzzle.parse(PUZZLE_4).geometry.units
    f = K.evaluate(np.array(g, np.int8), units, N, r, c)
    return f, r, c


def test_evaluate_is_the_distinct_count():
    f, r, c = _scores(A4, 2)
    assert f == 32 == distinct_count(np.array(A4), 2) and r.tolist() == [4, 4, 4, 4] and c.tolist() == [4, 4, 4, 4]
    f, r, c = _scores(B4, 2)
    # columns of B4: (1,4,2,3) (2,3,1,4) (3,2,4,1) (4,1,3,2) are permutations; rows are too
    assert f == distinct_count(np.array(B4), 2) == naive_ga.fitness(B4, 2)[0]


def test_band_crossover_worked_example():
    """Child 1 takes each horizontal band from the parent with more distinct digits in the band's rows."""
    a = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]
    b = [
        2,
        1,
        4,
        3,  # top band of b: rows (2,1,4,3),(3,4,1,2): 8 distinct, same as a's: a tie
        3,
        4,
        1,
        2,
        1,
        2,
        3,
        4,  # bottom band of b: rows (1,2,3,4),(4,3,2,1)
        4,
        3,
        2,
        1,
    ]
    # Make b's bottom band worse in its rows: swap inside its bottom-left box so row 3 repeats a digit
    b[2 * 4 + 0], b[3 * 4 + 0] = b[3 * 4 + 0], b[2 * 4 + 0]  # rows become (4,2,3,4) and (1,3,2,1)
    assert _boxes_ok(b, 2)
    fa, ra, ca = _scores(a, 2)
    fb, rb, cb = _scores(b, 2)
    assert ra[:2].sum() == rb[:2].sum() == 8 and ra[2:].sum() == 8 and rb[2:].sum() == 6
    n = 2
    # ties 'first': the tied top band from a, the bottom band from a (8 > 6): the child is a
    child = np.zeros(16, np.int8)
    rng = np.random.default_rng(0)
    K.crossover_rows(np.array(a, np.int8), np.array(b, np.int8), ra, rb, n, child, K.TIES_FIRST, rng)
    assert child.tolist() == a
    # swapped parents: the bottom band still from a (now the second parent), the tied top band from b
    K.crossover_rows(np.array(b, np.int8), np.array(a, np.int8), rb, ra, n, child, K.TIES_FIRST, rng)
    assert child.tolist() == b[:8] + a[8:]
    # by columns, on the transposed parents: the left band ties (first parent), the right band's columns
    # of the first parent score 6 < 8, so they come from the second
    at, bt = np.array(a).reshape(4, 4).T.ravel(), np.array(b).reshape(4, 4).T.ravel()
    _, _, cat = _scores(at, 2)
    _, _, cbt = _scores(bt, 2)
    assert cbt[:2].sum() == cat[:2].sum() == 8 and cbt[2:].sum() == 6 < cat[2:].sum()
    K.crossover_cols(bt.astype(np.int8), at.astype(np.int8), cbt, cat, n, child, K.TIES_FIRST, rng)
    assert child.tolist() == [int(bt[i]) if i % 4 < 2 else int(at[i]) for i in range(16)]
    assert _boxes_ok(child, 2)
    # a coin decides ties with exactly one draw per tied band, like the twin
    r1, r2 = np.random.default_rng(5), np.random.default_rng(5)
    K.crossover_rows(np.array(b, np.int8), np.array(a, np.int8), rb, ra, n, child, K.TIES_COIN, r1)
    assert child.tolist() == naive_ga.crossover_rows(b, a, 2, "coin", r2)
    assert r1.random() == r2.random()


def test_children_keep_givens_and_box_permutations():
    pz = library.puzzle("nbcoin_77_difficult")
    s = create("ga", population=20, crossover_rate=1.0, mutation_rate=1.0, elites=0)
    s.reset(pz, seed=2)
    for _ in range(5):
        s.step(7)
        snap = s.snapshot()
        assert snap.layers["crossovers"] == 10 and snap.layers["mutations"] == 20
        for g in snap.layers["individuals"]:
            assert _boxes_ok(g, 3) and _keeps_givens(g, pz.grid)


def test_mutation_swaps_two_free_cells_of_one_box(puzzle4):
    pz = puzzle4
    box_free, box_nfree, box_missing, mut_boxes, n_mut = box_tables(pz.grid, pz.n)
    assert n_mut == sum(1 for b in range(4) if box_nfree[b] >= 2)
    grid = np.array(naive_ga.random_individual(pz.grid.tolist(), 2, np.random.default_rng(1)), np.int8)
    for seed in range(20):
        child = grid.copy()
        r1, r2 = np.random.default_rng(seed), np.random.default_rng(seed)
        K.mutate(child, box_free, box_nfree, mut_boxes, n_mut, r1)
        assert child.tolist() == naive_ga.mutate(grid.tolist(), pz.grid.tolist(), 2, r2)
        changed = np.flatnonzero(child != grid)
        assert len(changed) == 2 and not pz.grid[changed].any()
        boxes = {(c // 4 // 2, c % 4 // 2) for c in changed}
        assert len(boxes) == 1 and sorted(child[changed]) == sorted(grid[changed])


def test_a_box_with_one_free_cell_is_never_mutated():
    g = np.array(library.puzzle("reseda_fig3_1_easy").solution, np.int8)
    g[0] = 0  # one free cell in box 1, two in box 9
    g[80] = 0
    g[70] = 0
    _, box_nfree, _, mut_boxes, n_mut = box_tables(g, 3)
    assert n_mut == 1 and mut_boxes[0] == 8 and box_nfree[0] == 1


def test_local_search_worked_example():
    """Swaps inside a box between two conflicting cells are kept only when the fitness rises."""
    givens = [0] * 16
    a = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]  # a solution
    bad = list(a)
    bad[0], bad[5] = bad[5], bad[0]  # top-left box: 4 2 / 3 1, rows 0 and 1 and columns 0 and 1 repeat
    assert _boxes_ok(bad, 2) and distinct_count(np.array(bad), 2) < 32
    pz = Puzzle.parse(PUZZLE_4)
    box_free, box_nfree, *_ = box_tables(np.zeros(16, np.int8), 2)
    g = np.array(bad, np.int8)
    swaps = K.local_search(g, box_free, box_nfree, pz.geometry.units, 4)
    assert swaps >= 1 and distinct_count(g, 2) > distinct_count(np.array(bad), 2) and _boxes_ok(g, 2)
    assert g.tolist() == naive_ga.local_search(bad, givens, 2)
    # a solution has no conflicting cell: nothing to do
    g = np.array(a, np.int8)
    assert K.local_search(g, box_free, box_nfree, pz.geometry.units, 4) == 0 and g.tolist() == a


def test_tournament_picks_the_fittest_of_its_draws():
    fit = np.array([5, 9, 1, 9, 3], np.int64)
    r1, r2 = np.random.default_rng(8), np.random.default_rng(8)
    for _ in range(50):
        w = K.tournament(fit, 3, r1)
        u = r2.random(3)
        idx = (u * 5).astype(int)
        assert w == idx[np.argmax(fit[idx])]  # first of the fittest drawn


# ----------------------------------------------------------------- solver
def test_cost_is_missing_symbols_and_the_native_fitness():
    s = create("ga", population=30)
    s.reset(library.puzzle("nbcoin_29_medium"), seed=5)
    for k in (0, 1, 40):
        s.step(k)
        snap = s.snapshot()
        elite = snap.layers["individuals"][snap.layers["elite"]]
        np.testing.assert_array_equal(snap.grid, elite)
        assert snap.cost == missing_symbols(snap.grid, 3) == 162 - snap.layers["best_fitness"]
        assert snap.layers["best_fitness"] == snap.layers["fitness"].max() == distinct_count(snap.grid, 3)
        if k:
            assert snap.trace["best_fitness"][-1] == snap.layers["fitness"].max()
            assert snap.trace["worst_fitness"][-1] == snap.layers["fitness"].min()
            assert snap.trace["mean_fitness"][-1] == pytest.approx(snap.layers["fitness"].mean())
    assert s.iteration == 41 and s.evaluations == 30 + 41 * 29  # the initial population, then all but the elite


@pytest.mark.parametrize("name", ["4x4", "nbcoin_01_easy"])
def test_it_solves_and_the_grid_is_the_exact_solution(name, puzzle4):
    pz = puzzle4 if name == "4x4" else library.puzzle(name)
    s = create("ga")
    s.reset(pz, seed=1)
    s.step(20_000)
    assert s.done and s.status == "solved" and s.cost == 0
    np.testing.assert_array_equal(s.grid, exact.solve(pz))
    assert s.snapshot().trace["best_fitness"][-1] == 2 * pz.N * pz.N


def test_the_budget_stops_the_search():
    s = create("ga", population=10, generations=30)
    s.reset(library.puzzle("nbcoin_106_difficult"), seed=0)
    assert s.step(1000) == 30 and s.status == "failed" and s.iteration == 30 and s.cost > 0
    s2 = create("ga", population=10, generations=50)
    s2.reset(library.puzzle("nbcoin_106_difficult"), seed=0)
    s2.step(40)
    s2.set_params(generations=20)  # lowered below the generations done: it stops at the next step
    assert s2.step(5) == 0 and s2.status == "failed"


def test_a_live_population_change_breeds_the_next_generation_at_the_new_size():
    s = create("ga", population=20)
    s.reset(library.puzzle("nbcoin_27_medium"), seed=3)
    s.step(5)
    s.set_params(population=9, mutation_rate=0.8)
    assert s.snapshot().layers["fitness"].shape == (20,)  # applies at the next generation
    s.step(1)
    assert s.snapshot().layers["fitness"].shape == (9,) and s.evaluations == 20 + 5 * 19 + 8
    s.step(3)
    assert s.snapshot().layers["individuals"].shape == (9, 81)
    assert [e.name for e in s.events if e.kind == "param"] == ["population", "mutation_rate"]


@pytest.mark.parametrize(
    "bad,word",
    [
        ({"elites": 150}, "elites must be less than the population"),
        ({"population": 1}, "population must be an integer in [2, 100000]"),
        ({"crossover_rate": 1.5}, "crossover_rate must be [0, 1]"),
        ({"mutation_rate": "lots"}, "mutation_rate must be [0, 1]"),
        ({"ties": "dice"}, "ties must be one of coin, first"),
        ({"tournament": 0}, "tournament must be an integer in [1, 1000]"),
    ],
)
def test_bad_parameters_are_one_clear_line(bad, word):
    with pytest.raises(ParameterError) as info:
        create("ga", **bad)
    assert word in str(info.value) and "\n" not in str(info.value)


# ------------------------------------------------- the benchmark's numpy version
def test_numpy_generation_behaves_like_the_kernel():
    """Same fitness, same tournament winners from the same draws, same bands chosen, valid children."""
    from sudoku_lab.benchmarks.ga import NumpyGA, numpy_fitness

    pz = library.puzzle("nbcoin_29_medium")
    ref = NumpyGA(pz, population=40, ties="first", seed=3)
    units = pz.geometry.units
    # fitness and per-line counts equal the kernel's
    for q in range(40):
        r, c = np.zeros(9, np.int64), np.zeros(9, np.int64)
        assert K.evaluate(ref.pop[q], units, 9, r, c) == ref.fit[q]
        assert r.tolist() == ref.rows[q].tolist() and c.tolist() == ref.cols[q].tolist()
    # tournaments: the kernel's draws one by one, numpy's all at once from the same stream
    r1, r2 = np.random.default_rng(6), np.random.default_rng(6)
    kernel = [K.tournament(ref.fit, 3, r1) for _ in range(30)]
    np.testing.assert_array_equal(ref.tournament(r2.random((30, 3))), kernel)
    # band crossover: the same children as the kernel's (ties to the first parent)
    a, b = np.arange(0, 20), np.arange(20, 40)
    c1, c2 = ref.band_children(a, b, np.zeros((20, 2, 3), bool))
    for k in range(20):
        x, y = np.zeros(81, np.int8), np.zeros(81, np.int8)
        K.crossover_rows(ref.pop[a[k]], ref.pop[b[k]], ref.rows[a[k]], ref.rows[b[k]], 3, x, K.TIES_FIRST, r1)
        K.crossover_cols(ref.pop[a[k]], ref.pop[b[k]], ref.cols[a[k]], ref.cols[b[k]], 3, y, K.TIES_FIRST, r1)
        np.testing.assert_array_equal(c1[k], x)
        np.testing.assert_array_equal(c2[k], y)
    # generations: valid children, the elite kept, the fitness never below the elite's
    ref = NumpyGA(pz, population=41, crossover_rate=0.8, mutation_rate=0.8, seed=1)
    for _ in range(30):
        best = ref.fit.max()
        ref.generation()
        assert ref.pop.shape == (41, 81) and ref.fit.max() >= best
        for g in ref.pop:
            assert _boxes_ok(g, 3) and _keeps_givens(g, pz.grid)
        np.testing.assert_array_equal(ref.fit, numpy_fitness(ref.pop, 3)[0])
    assert ref.fit.max() > 140


def test_bench_ga_prints_the_ratio_it_measures():
    from sudoku_lab.benchmarks import get_benchmark
    from sudoku_lab.benchmarks.ga import bench_ga

    assert get_benchmark("ga").solver == "ga"
    lines = []
    res = bench_ga(generations=20, seeds=1, out=lines.append)
    assert res["kernel_generations_per_second"] > 0 and res["numpy_generations_per_second"] > 0
    assert res["kernel_over_numpy"] == pytest.approx(
        res["kernel_generations_per_second"] / res["numpy_generations_per_second"]
    )
    assert f"{res['kernel_over_numpy']:.2f}x" in lines[-1] or f"{res['kernel_over_numpy']:.1f}x" in lines[-1]
