"""Hill climbing (Jones, Roach and Perkins): kernels against their twins, delta evaluation, solves, parameters,
the numpy reference move of the benchmark and the reproductions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sudoku_lab._kernels import hill_climb as K
from sudoku_lab.errors import ParameterError
from sudoku_lab.exact.generate import generate
from sudoku_lab.model import library
from sudoku_lab.solvers import create
from sudoku_lab.solvers.hill_climb import HillClimb, hill_tables, unit_clashes

import naive_hill_climb as NH

PUZZLE_4 = generate(2, 6, seed=1)


def _solver(pz, seed, **params):
    s = create("hill_climb", **params)
    s.reset(pz, seed=seed)
    return s


def _twin(pz, seed, **params):
    p = {**HillClimb.defaults(), **params}
    return NH.NaiveHillClimb(
        pz.grid.tolist(),
        pz.n,
        np.random.default_rng(seed),
        greedy=p["greedy"],
        post_swap=p["post_swap"],
        random_order=p["initial_order"] == "random",
        plateau=p["plateau"],
        capacity=p["queue_capacity"],
        w1=p["w1"],
        w2=p["w2"],
        random_ties=p["random_ties"],
        budget=p["budget"],
    )


def _assert_same(s, t, where):
    c = s.counters
    assert s.grid.tolist() == t.grid, where
    assert (int(c[K.C_F1]), int(c[K.C_F2]), s.cost) == (t.f1, t.f2, t.cost), where
    assert (s.iteration, s.evaluations, s.best_cost) == (t.iteration, t.evaluations, t.best_cost), where
    assert s.best_grid.tolist() == t.best_grid, where
    assert (int(c[K.C_QLEN]), int(c[K.C_STUCK_COUNT]), int(c[K.C_RUN]), int(c[K.C_JUMPS])) == (
        len(t.queue),
        t.stuck,
        t.runs,
        t.jumps,
    ), where
    assert (int(c[K.C_SWAP_A]), int(c[K.C_SWAP_B])) == t.swap, where


CASES = [
    (PUZZLE_4, {}, 40),
    (PUZZLE_4, {"greedy": False, "post_swap": False, "random_ties": True, "plateau": 2}, 40),
    (PUZZLE_4, {"initial_order": "sorted", "queue_capacity": 3}, 40),
    (library.puzzle("reseda_fig4_1_hard"), {"plateau": 3, "queue_capacity": 5}, 25),
    (
        library.puzzle("ai_escargot"),
        {"greedy": True, "post_swap": False, "plateau": 2, "random_ties": True, "w2": -2.5},
        25,
    ),
    (library.puzzle("kennett_hard_007"), {"greedy": False, "queue_capacity": 0, "initial_order": "sorted"}, 20),
]


@pytest.mark.parametrize("pz,params,moves", CASES, ids=[f"n{c[0].n}-{i}" for i, c in enumerate(CASES)])
def test_kernel_matches_its_twin_move_for_move(pz, params, moves):
    """Initial state, every move, plateau escapes and restarts: equal to the twin, draw for draw."""
    for seed in (3, 11):
        s, t = _solver(pz, seed, **params), _twin(pz, seed, **params)
        _assert_same(s, t, "initial state")
        for k in range(moves):
            if s.done:
                break
            s.step(1)
            outcome = t.move()
            _assert_same(s, t, f"seed {seed}, move {k + 1}")
            assert (outcome == "solved") == s.snapshot().solved
        kinds = [(e.iteration, e.name) for e in s.events if e.kind == "restart"]
        assert kinds == t.log
        assert s.rng.random() == t.rng.random()  # both took the same number of draws


def test_the_twin_cases_cover_plateau_escapes_and_restarts():
    seen = set()
    for pz, params, moves in CASES:
        s = _solver(pz, 3, **params)
        s.step(moves)
        seen |= {e.name for e in s.events if e.kind == "restart"}
    assert seen == {"plateau", "random"}


@pytest.mark.parametrize("greedy,post_swap", [(True, True), (True, False), (False, True), (False, False)])
@pytest.mark.parametrize("n,puzzle", [(2, PUZZLE_4), (3, library.puzzle("reseda_fig4_1_hard"))])
def test_initial_state_matches_twin(greedy, post_swap, n, puzzle):
    box_free, box_nfree, box_missing, GR, GC = hill_tables(puzzle.grid, n)
    N = n * n
    for seed in range(12):
        grid = np.zeros(N * N, np.int8)
        rng = np.random.default_rng(seed)
        K.initial_state(
            grid,
            puzzle.grid,
            box_free,
            box_nfree,
            box_missing,
            GR,
            GC,
            greedy,
            post_swap,
            True,
            np.zeros(N, np.int64),
            np.zeros(N, np.int64),
            rng,
        )
        ref_rng = np.random.default_rng(seed)
        ref = NH.initial_state(puzzle.grid.tolist(), n, greedy, post_swap, True, ref_rng)
        assert grid.tolist() == ref
        assert rng.random() == ref_rng.random()
        boxes = np.sort(grid[puzzle.geometry.units[2 * N :]], axis=1)
        assert np.all(boxes == np.arange(1, N + 1))  # every box a permutation
        assert np.array_equal(grid[puzzle.givens], puzzle.grid[puzzle.givens])


def test_greedy_and_post_swap_reduce_clashes_with_givens():
    """The paper's Figure 4 effect on average: post-swapping leaves fewer clashes than greedy alone, both fewer
    than a random placement."""
    pz = library.puzzle("reseda_fig4_1_hard")
    mean = {}
    for key, greedy, post in (("random", False, False), ("greedy", True, False), ("both", True, True)):
        f2 = []
        for seed in range(30):
            f2.append(
                NH.scores(
                    NH.initial_state(pz.grid.tolist(), 3, greedy, post, True, np.random.default_rng(seed)),
                    pz.grid.tolist(),
                    3,
                )[1]
            )
        mean[key] = np.mean(f2)
    assert mean["both"] < mean["greedy"] < mean["random"]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([2, 3]), st.integers(0, 2**32 - 1), st.floats(0.0, 0.7))
def test_delta_evaluation_equals_full_re_evaluation(n, seed, blank):
    """swap_delta of every in-box swap equals the change of (f1, f2) recomputed from scratch."""
    rng = np.random.default_rng(seed)
    pz = library.puzzle("reseda_fig4_1_hard") if n == 3 else PUZZLE_4
    N = n * n
    solution = np.array(pz.check(), np.int8)
    givens = np.where(rng.random(N * N) < blank, 0, solution).astype(np.int8)
    givens[rng.integers(N * N)] = 0
    box_free, box_nfree, box_missing, GR, GC = hill_tables(givens, n)
    grid = np.zeros(N * N, np.int8)
    K.initial_state(
        grid,
        givens,
        box_free,
        box_nfree,
        box_missing,
        GR,
        GC,
        bool(seed % 2),
        False,
        True,
        np.zeros(N, np.int64),
        np.zeros(N, np.int64),
        rng,
    )
    row_cnt, col_cnt = np.zeros((N, N), np.int32), np.zeros((N, N), np.int32)
    f1, f2 = K.full_scores(grid, givens, row_cnt, col_cnt, GR, GC)
    assert (f1, f2) == NH.scores(grid.tolist(), givens.tolist(), n)
    for a, b in NH.swaps(givens.tolist(), n):
        df = K.swap_delta(grid, a, b, row_cnt, col_cnt, GR, GC)
        g1, g2 = NH.scores(NH.swapped(grid.tolist(), a, b), givens.tolist(), n)
        assert (int(df[0]), int(df[1])) == (g1 - f1, g2 - f2)
    # applying one swap keeps the counts right
    pairs = list(NH.swaps(givens.tolist(), n))
    if pairs:
        a, b = pairs[len(pairs) // 2]
        K.apply_swap(grid, a, b, row_cnt, col_cnt)
        r2, c2 = np.zeros_like(row_cnt), np.zeros_like(col_cnt)
        K.full_scores(grid, givens, r2, c2, GR, GC)
        assert np.array_equal(r2, row_cnt) and np.array_equal(c2, col_cnt)


# ------------------------------------------------------------------ the solver
SOLVE = ["reseda_fig3_1_easy", "reseda_fig4_1_hard", "nbcoin_01_easy", "mk_easy_a", "mk_medium_a", "s01a"]


@pytest.mark.parametrize("name", SOLVE)
def test_solves_and_agrees_with_the_exact_solver(name):
    from sudoku_lab import exact

    pz = library.puzzle(name)
    s = _solver(pz, 1)
    while not s.done:
        s.step(2000)
    snap = s.snapshot()
    assert snap.solved and snap.cost == 0
    res = exact.search(pz, limit=2)
    assert res.count == 1 and np.array_equal(snap.grid, res.solutions[0])
    assert snap.layers["runs"][-1]["outcome"] == "solved"
    assert snap.layers["f1"] == 162 and snap.layers["f2"] == 0 and snap.layers["f"] == 162.0


def test_layers_describe_the_state():
    pz = library.puzzle("kennett_hard_007")
    s = _solver(pz, 5, plateau=3)
    s.step(200)
    snap = s.snapshot()
    L = snap.layers
    assert np.array_equal(L["clashes"], unit_clashes(snap.grid, 3))
    assert L["clashes"].sum() == snap.cost  # boxes are permutations: the cost is the row and column clashes
    f1, f2 = NH.scores(snap.grid.tolist(), pz.grid.tolist(), 3)
    assert (L["f1"], L["f2"], L["f"]) == (f1, f2, f1 - f2)
    tr = snap.trace
    assert tr["f"][-1] == L["f"] and tr["f1"][-1] == f1 and tr["f2"][-1] == f2 and tr["queue"][-1] == L["queue"]
    restarts = [e for e in snap.events if e.kind == "restart" and e.name == "random"]
    assert len(restarts) == L["run"] == len(L["runs"]) and L["run"] > 0
    assert [r["end"] for r in L["runs"]] == [e.iteration for e in restarts]
    assert sum(r["jumps"] for r in L["runs"]) <= L["plateau_jumps"]
    # a move that swaps: the swap layer holds its two cells, in one box, both free
    s2 = _solver(pz, 5)
    s2.step(1)
    ((a, b),) = s2.snapshot().layers["swap"]
    assert pz.geometry.box[a] == pz.geometry.box[b] and pz.grid[a] == 0 and pz.grid[b] == 0


def test_a_solved_initial_state_is_solved_at_reset():
    pz = library.puzzle("reseda_fig3_1_easy")
    sol = np.array(pz.check(), np.int8)
    almost = sol.copy()
    almost[[0, 1]] = 0  # two blanks in box 1: the greedy fill is the solution
    from sudoku_lab.model.puzzle import Puzzle

    s = _solver(Puzzle(almost), 0)
    assert s.done and s.snapshot().solved and s.iteration == 0 and s.step(5) == 0


def test_budget_ends_the_search():
    s = _solver(library.puzzle("ai_escargot"), 0, budget=50)
    assert s.step(1000) == 50
    snap = s.snapshot()
    assert snap.status == "failed" and snap.layers["runs"][-1]["outcome"] == "budget"


@pytest.mark.parametrize(
    "params,text",
    [
        ({"w1": 0}, "w1 must be positive"),
        ({"plateau": 0}, "plateau must be an integer in [1, 1000000], got 0"),
        ({"queue_capacity": -1}, "queue_capacity must be"),
        ({"greedy": "maybe"}, "greedy must be true or false"),
        ({"initial_order": "backwards"}, "initial_order must be one of random, sorted"),
        ({"budget": 1.5}, "budget must be"),
    ],
)
def test_bad_parameters_give_one_clear_line(params, text):
    with pytest.raises(ParameterError) as e:
        create("hill_climb", **params)
    assert text in str(e.value) and "\n" not in str(e.value)


def test_live_weights_rescore_the_queue():
    s = _solver(library.puzzle("kennett_hard_007"), 2)
    s.step(30)
    s.set_params(w2=-3.0)
    s.step(30)
    snap = s.snapshot()
    assert snap.layers["f"] == snap.layers["f1"] - 3.0 * snap.layers["f2"]
    assert [e.name for e in snap.events if e.kind == "param"] == ["w2"]


# ------------------------------------------------------------------ benchmark and reproductions
def test_numpy_move_picks_the_kernels_swap():
    """The benchmark's numpy move scores every swap from scratch; it agrees with the kernel's delta evaluation."""
    from sudoku_lab.benchmarks.hill_climb import NumpyMove, numpy_move

    for name, seed in (("kennett_hard_007", 0), ("ai_escargot", 4)):
        pz = library.puzzle(name)
        mv = NumpyMove(pz)
        s = _solver(pz, seed, plateau=3)
        checked = 0
        for _ in range(60):
            g = s.grid.copy()
            a, b, delta, df1, df2, ev = K.best_swap(
                g, s.box_free, s.box_nfree, s.row_cnt, s.col_cnt, s.GR, s.GC, 1.0, -1.0, False, np.random.default_rng(0)
            )
            na, nb, nd, after = numpy_move(mv, g)
            assert (na, nb, nd) == (a, b, delta) and ev == len(mv.pairs)
            f1, f2 = mv.scores(after[None, :])
            assert (int(f1[0]), int(f2[0])) == NH.scores(after.tolist(), pz.grid.tolist(), 3)
            checked += 1
            s.step(1)
        assert checked == 60


def test_reproductions_run_small():
    from sudoku_lab.reproductions import Runner, get_reproduction

    for name in ("hill-climb-figure4", "hill-climb-figure5"):
        rep = get_reproduction(name)
        assert rep.paper == "jones" and rep.solver == "hill_climb"
        report = rep.run(Runner(seed=0), runs=1)
        text = report.markdown()
        assert not report.interrupted and "Kennett" in text
        if name.endswith("4"):
            assert [r[0] for r in report.rows] == ["greedy alone", "greedy + post-swap"]
            assert all(r[-1] == "4/4" for r in report.rows)
        else:
            assert [r[0] for r in report.rows] == ["easy", "medium", "hard", "hardest"]
            assert report.rows[0][9] == "1.00" and report.rows[3][1] == "fiendish"
