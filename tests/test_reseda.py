"""RESEDA as a solver: parameters, stopping, restarts, coupling, prefilter, any box size."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_lab.errors import ParameterError
from sudoku_lab.exact.ac3 import ac3
from sudoku_lab.exact.generate import generate
from sudoku_lab.model import library
from sudoku_lab.model.scoring import missing_symbols
from sudoku_lab.solvers import Status, create
from sudoku_lab.solvers.reseda import Reseda, admissible_box_permutations, zone_units


@pytest.mark.parametrize(
    "params,fragment",
    [
        ({"alpha": 1.5}, "alpha must be [0, 1], got 1.5"),
        ({"alpha": -0.1}, "alpha must be [0, 1], got -0.1"),
        ({"beta": 0}, "beta must be (0, 1], got 0"),
        ({"beta": 1.2}, "beta must be (0, 1], got 1.2"),
        ({"Q": 10, "Q1": 20}, "Q1 must be at most Q"),
        ({"Q": 0}, "Q must be an integer in [1, 1000000], got 0"),
        ({"Q": 2.5}, "Q must be an integer"),
        ({"zones": "diag"}, "zones must be one of diagonal, boxes, all, got 'diag'"),
        ({"restart": "sometimes"}, "restart must be one of none, full, partial, partial+full"),
        ({"gamma": 1}, "reseda has no parameter 'gamma'"),
        ({"precompute": "maybe"}, "precompute must be true or false"),
    ],
)
def test_bad_parameters_are_refused_with_a_clear_message(params, fragment):
    with pytest.raises(ParameterError) as info:
        create("reseda", **params)
    assert fragment in str(info.value)


@pytest.mark.parametrize(
    "way,value", [("create", True), ("create", np.True_), ("set_params", True), ("set_params", False), ("spec", True)]
)
def test_a_bool_for_a_number_parameter_is_refused_not_taken_as_1(way, value):
    """True == 1 to Python, so float(True) passed as alpha=1.0 (and Q=True as Q=1); a spec's `alpha = true` too."""
    from sudoku_lab.engine.spec import SpecError, parse_spec
    from sudoku_lab.errors import ParameterTypeError

    for name, text in (("alpha", f"alpha must be [0, 1], got {value!r}"), ("Q", "Q must be an integer in [1, ")):
        if way == "spec":
            toml = 'runs = 1\n[[puzzles]]\nset = "ai_escargot"\n[[solvers]]\nname = "reseda"\n'
            toml += f"params = {{ {name} = {str(bool(value)).lower()} }}\n"
            with pytest.raises(SpecError, match=f"{name} must be .*got {bool(value)} \\(a bool, not a number\\)"):
                parse_spec(toml, "s.toml")
            continue
        with pytest.raises(ParameterTypeError) as info:
            if way == "create":
                create("reseda", **{name: value})
            else:
                s = create("reseda")
                s.reset(library.puzzle("ai_escargot"), 0)
                s.step(1)
                try:
                    s.set_params(**{name: value})
                finally:
                    assert s.get_params()["alpha"] == 0.7 and s.get_params()["Q"] == 100 and not s.events
        assert text in str(info.value) and str(info.value).endswith("(a bool, not a number)")


def test_parameters_from_strings_like_the_cli():
    s = Reseda(alpha="0.9", Q="200", precompute="off", restart="partial")
    assert s.get_params()["alpha"] == 0.9 and s.get_params()["Q"] == 200 and s.get_params()["precompute"] is False


def test_coupling_box_beyond_the_grid_is_refused():
    s = Reseda(coupling=True, coupling_box=10)
    with pytest.raises(ParameterError, match="coupling_box must be between 1 and 9"):
        s.reset(library.puzzle("ai_escargot"), 0)


def _run(puzzle, seed=0, max_steps=20_000, **params):
    s = Reseda(**params)
    s.reset(library.puzzle(puzzle) if isinstance(puzzle, str) else puzzle, seed)
    while not s.done and s.iteration < max_steps:
        s.step(500)
    return s


def test_no_restart_fails_once_rho_exceeds_beta():
    for seed in range(30):
        s = _run("ai_escargot", seed, restart="none")
        assert s.status == Status.FAILED
        assert len(s.history) == 1 and s.history[0]["detail"] == "rho > beta"
        assert s.current_rho() > 0.6
        assert s.trace.arrays()["rho"][-1] > 0.6 and np.all(s.trace.arrays()["rho"][:-1] <= 0.6)
        assert s.cost > 0


def test_run_budget_ends_a_run():
    s = _run("ai_escargot", 0, restart="none", alpha=0.99, run_budget=25)
    assert s.status == Status.FAILED and s.iteration == 25 and s.history[0]["detail"] == "run budget"


def test_partial_restarts_fix_zones_of_the_first_runs_final_grid():
    s = Reseda(restart="partial", zones="all")
    s.reset(library.puzzle("ai_escargot"), 3)
    while s.run_index == 0:
        s.step(1)
    # The second run has started (pending) or is about to: the zone queue comes from the final grid.
    final = s.final_grid.copy()
    s.step(1)
    zone = s.zone
    assert zone >= 0
    cells = s.geo.units[zone]
    assert np.array_equal(s.base[cells], final[cells])
    assert sorted(final[cells].tolist()) == list(range(1, 10))  # zones must be permutations
    while not s.done:
        s.step(200)
    kinds = [h["kind"] for h in s.history]
    assert kinds[0] == "first" and set(kinds[1:]) <= {"partial"}
    assert s.status in (Status.SOLVED, Status.FAILED)
    if s.status == Status.FAILED:  # one attempt only: every qualifying zone was tried once
        assert len({h["zone"] for h in s.history[1:]}) == len(s.history) - 1


def test_recommended_strategy_repeats_attempts_with_partial_restarts():
    s = Reseda(restart="partial+full", zones="all", Q=40, Q1=8)
    s.reset(library.puzzle("ai_escargot"), 1)
    while s.attempt < 2 and not s.done:
        s.step(200)
    second = [h for h in s.history if h["attempt"] == 1]
    assert second[0]["kind"] == "full"
    assert any(h["kind"] == "partial" for h in second), "later attempts must make partial restarts too"
    assert any(e.kind == "restart" and e.name == "full" for e in s.events)


def test_zone_sets():
    assert zone_units("diagonal", 3) == [18, 22, 26]
    assert zone_units("boxes", 3) == list(range(18, 27))
    assert zone_units("all", 3) == list(range(27))
    assert zone_units("diagonal", 4) == [32, 37, 42, 47]


def _clashes_with_a_given(grid, unit, pz) -> bool:
    """Independent check: a digit of ``unit`` in ``grid`` equals a given peer outside the unit."""
    cells = {int(c) for c in pz.geometry.units[unit]}
    return any(
        pz.grid[q] and pz.grid[q] == grid[c] and int(q) not in cells for c in cells for q in pz.geometry.peers[c]
    )


def _first_run_zones(pz, seed, zone_check):
    s = Reseda(restart="partial", zones="all", zone_check=zone_check)
    s.reset(pz, seed)
    while s.run_index == 0 and not s.done:
        s.step(1)
    assert s.history[0]["outcome"] == "failed", "the first run must fail for its zones to be examined"
    return s


def test_consistent_zone_check_skips_zones_that_clash_with_givens():
    # Seed 5 is chosen because the first run's final grid on AI Escargot has zones that hold every digit
    # (so the paper's 'permutation' rule accepts them) but clash with a given: column 8 and box 6.
    pz = library.puzzle("ai_escargot")
    perm = _first_run_zones(pz, 5, "permutation")
    cons = _first_run_zones(pz, 5, "consistent")
    # zone_check acts only when the failed run's zones are queued: both runs are the same up to there.
    assert perm.history[0]["end"] == cons.history[0]["end"] and np.array_equal(perm.final_grid, cons.final_grid)
    g = perm.final_grid
    for u in perm.zone_queue:  # what 'permutation' accepts: zones holding every digit, not all givens
        cells = pz.geometry.units[u]
        assert sorted(g[cells].tolist()) == list(range(1, 10)) and not pz.givens[cells].all()
    clashing = [u for u in perm.zone_queue if _clashes_with_a_given(g, u, pz)]
    assert clashing == [16, 23], "the chosen case must examine zones that clash with a given"
    assert len(perm.zone_queue) == 20
    # 'consistent' refuses exactly those, keeps the rest in the same order.
    assert cons.zone_queue == [u for u in perm.zone_queue if u not in clashing]
    assert not any(_clashes_with_a_given(g, u, pz) for u in cons.zone_queue)


def test_ai_escargot_has_24_admissible_top_left_permutations():
    pz = library.puzzle("ai_escargot")
    perms = admissible_box_permutations(pz.grid, 3, 0)
    assert perms.shape == (24, 6)  # the paper's "24 permutations that met the basic constraints"
    box = pz.geometry.units[18]
    free = [c for c in box if pz.grid[c] == 0]
    right = pz.solution[free]
    assert any(np.array_equal(p, right) for p in perms)
    assert len({tuple(p) for p in perms}) == 24


def test_coupling_fixes_one_permutation_per_attempt():
    pz = library.puzzle("ai_escargot")
    s = Reseda(coupling=True, restart="none")
    s.reset(pz, 2)
    free = [c for c in pz.geometry.units[18] if pz.grid[c] == 0]
    seen = []
    for _ in range(4):
        idx = s.perm_index
        assert np.array_equal(s.base[free], s.permutations[idx])
        seen.append(idx)
        attempt = s.attempt
        while s.attempt == attempt and not s.done:
            s.step(1)
    assert len(set(seen)) == 4  # each attempt a different permutation (seeded order)


#: Issue 27, item 20: the coupling run of AI Escargot (restart=partial, zones=all, coupling_box=1), seed 42,
#: run by d5c43ed: per run (attempt, kind, zone, outcome, steps). Attempt 0 couples permutation 16 and fails
#: with every qualifying zone; attempt 1 couples 15 (the right one) and solves. Main made the same runs
#: (docs/benchmarks.md, "2026-12-01"); a change of these numbers is a change of the algorithm or of its
#: random stream, which must be meant and documented.
_ESCARGOT_42_RUNS = [(0, "first", "", "failed", 45)] + [
    (0, "partial", zone, "failed", steps)
    for zone, steps in zip(
        ["row 1", "row 2", "row 3", "row 6", "row 7", "row 8", "row 9"]
        + [f"column {k}" for k in range(1, 10)]
        + [f"box {k}" for k in range(2, 10)],
        [22, 14, 22, 18, 21, 15, 36, 23, 27, 22, 36, 15, 11, 28, 21, 17, 18, 26, 19, 16, 22, 21, 34, 15],
    )
]
_ESCARGOT_42_RUNS += [(1, "full", "", "failed", 26)] + [
    (1, "partial", zone, "solved" if zone == "column 8" else "failed", steps)
    for zone, steps in zip(
        ["row 1", "row 2", "row 3", "row 6", "row 7", "row 8", "row 9"]
        + ["column 1", "column 2", "column 3", "column 7", "column 8"],
        [21, 31, 26, 18, 27, 17, 9, 18, 18, 22, 19, 15],
    )
]


def test_coupling_on_ai_escargot_makes_the_runs_of_d5c43ed():
    pz = library.puzzle("ai_escargot")
    s = Reseda(restart="partial", zones="all", coupling=True, coupling_box=1)
    s.reset(pz, 42)
    s.step(5000)
    assert s.status == Status.SOLVED and np.array_equal(s.grid, pz.solution)
    assert (s.iteration, s.evaluations) == (831, 83100)
    assert [(h["attempt"], h["kind"], h["zone_name"], h["outcome"], h["steps"]) for h in s.history] == (
        _ESCARGOT_42_RUNS
    )
    assert [h["permutation"] for h in s.history] == [16] * 25 + [15] * 13


def test_ac3_prefilter_fixes_cells_and_starts_from_its_domains():
    pz = library.puzzle("reseda_fig3_2_medium")
    s = Reseda(prefilter="ac3")
    s.reset(pz, 0)
    res = ac3(pz)
    assert np.array_equal(s.base, res.grid)
    assert s.fixed.sum() == pz.n_givens + res.n_fixed
    allowed = (res.domains[:, None] >> np.arange(9)) & 1
    assert np.all(s.p[allowed == 0] == 0)


def test_prefilter_that_solves_the_puzzle_finishes_at_reset():
    pz = library.puzzle("kennett/very_easy:1")
    assert ac3(pz).n_open == 0
    s = Reseda(prefilter="ac3")
    s.reset(pz, 0)
    assert s.status == Status.SOLVED and s.iteration == 0 and np.array_equal(s.grid, pz.solution)


@pytest.mark.parametrize("n,clues", [(2, 6), (3, 40)])
def test_any_box_size_is_solved(n, clues):
    pz = generate(n, clues, seed=11)
    s = _run(pz, 0, max_steps=5000)
    assert s.status == Status.SOLVED
    assert pz.is_solved_by(s.grid) and np.array_equal(s.grid, pz.check())


def _uniform_box_fillings(pz, k, seed):
    """Missing-symbol costs of ``k`` fillings with a uniformly random permutation of each box's missing digits."""
    geo, rng = pz.geometry, np.random.default_rng(seed)
    costs = []
    for _ in range(k):
        g = pz.grid.copy()
        for b in range(pz.N):
            cells = geo.units[2 * pz.N + b]
            free = cells[g[cells] == 0]
            g[free] = rng.permutation(sorted(set(range(1, pz.N + 1)) - set(g[cells].tolist())))
        costs.append(missing_symbols(g, pz.n))
    return np.array(costs)


@pytest.mark.parametrize("name", ["benchmarks/lewis_16x16_50:1", "benchmarks/lewis_25x25_50:1"])
def test_large_grids_step_and_improve(name):
    """RESEDA learns on 16x16 and 25x25: its samples beat random fillings at once and get better step by step.

    Seeded, so deterministic. Measured (seeds 0-2): the last step's mean cost is 0.41-0.55 of the first step's on
    16x16 and 0.71-0.76 on 25x25; without learning (alpha = 1, p never moves) it stays at 0.99-1.02.
    """
    pz = library.puzzle(name)
    uniform = _uniform_box_fillings(pz, 200, seed=0)

    def mean_costs(alpha):
        s = Reseda(restart="none", Q=30, Q1=5, alpha=alpha)
        s.reset(pz, 0)
        assert s.step(30) == 30 and s.status == Status.RUNNING
        return s, s.trace.arrays()["mean_cost"]

    s, mean = mean_costs(0.7)
    # Pre-computation: the very first samples are far better than filling the boxes at random.
    assert mean[0] < uniform.mean() - 3 * uniform.std()
    # Learning: the latest samples are clearly better than the first ones, and so is the best grid.
    assert mean[-1] < 0.85 * mean[0]
    first_best = s.trace.arrays()["cost"][0]
    assert s.best_cost < first_best and s.cost < first_best
    assert s.snapshot().layers["prob"].shape == (pz.C, pz.N)
    # The bar measures learning, not just more draws: with p frozen the sample costs do not move.
    _, frozen = mean_costs(1.0)
    assert frozen[0] == mean[0] and frozen[-1] > 0.95 * frozen[0]


def test_live_parameter_changes_are_logged_and_applied():
    s = Reseda(restart="none")
    s.reset(library.puzzle("ai_escargot"), 0)
    s.step(3)
    events = s.set_params(alpha=0.9, Q=50, Q1=5)
    assert {(e.name, e.old, e.new, e.iteration) for e in events} == {
        ("alpha", 0.7, 0.9, 3),
        ("Q", 100, 50, 3),
        ("Q1", 10, 5, 3),
    }
    before = s.evaluations
    s.step(1)
    assert s.evaluations - before == 50
    assert s.snapshot().params["alpha"] == 0.9
    with pytest.raises(ParameterError, match="coupling cannot change during a run"):
        s.set_params(coupling=True)
    with pytest.raises(ParameterError, match="Q1 must be at most Q"):
        s.set_params(Q1=80)
    assert s.get_params()["Q1"] == 5  # a refused change leaves everything as it was


def test_trace_has_one_row_per_step():
    s = _run("reseda_fig4_1_hard", 4, restart="full", max_steps=300)
    t = s.snapshot().trace
    assert len(t["iteration"]) == s.iteration
    assert np.array_equal(t["iteration"], np.arange(1, s.iteration + 1))
    assert np.all(np.diff(t["best_cost"]) <= 0)


# ---------------------------------------------------------------- long runs (issue 7)
LONG_RUNS = [
    # the reported crash: default parameters, seed 0, ZeroDivisionError after about 17,700 steps
    ("benchmarks/17_clue:1", 0, {}),
    ("benchmarks/17_clue:1", 1, {}),
    ("ai_escargot", 2, {}),
    ("ai_escargot", 3, {"alpha": 0.9, "zones": "all"}),
    ("benchmarks/famous_hard:2", 4, {"sampling": "independent", "restart": "full"}),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,seed,params", LONG_RUNS, ids=[f"{n}-s{s}" for n, s, _ in LONG_RUNS])
def test_long_runs_on_hard_puzzles_stay_well_defined(name, seed, params):
    """20,000 steps on the hardest bundled puzzles: no exception, p stays a distribution, samples hold digits."""
    pz = library.puzzle(name)
    s = Reseda(**params)
    s.reset(pz, seed)
    free = pz.grid == 0
    while s.iteration < 20_000 and not s.done:
        s.step(1000)
        p = s.p
        assert np.all(np.isfinite(p)) and p.min() >= 0.0
        np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-9)
        snap = s.snapshot()
        assert np.all(snap.grid[free] >= 1) and np.all(snap.grid <= pz.N)
        assert np.array_equal(snap.grid[~free], pz.grid[~free])
    solved = s.status == Status.SOLVED
    assert s.iteration >= 20_000 or solved
    if solved:
        assert pz.is_solved_by(s.snapshot().grid)
