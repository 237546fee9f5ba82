"""NB-COIN phase by phase (sample, rank, reward, punish) against step(), the twins, and the rules."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from phase_helpers import one_iteration as _one_iteration, pair, rng_copy as _rng_copy  # tests/phase_helpers.py

from sudoku_lab._kernels import nbcoin as K
from sudoku_lab.errors import ParameterError
from sudoku_lab.model import library
from sudoku_lab.solvers import create
from sudoku_lab.solvers.declare import check_changes
from sudoku_lab.solvers.nbcoin import model_as_cells
from sudoku_lab.testing import assert_snapshots_equal, first_difference

from naive_nbcoin import naive_fitness, naive_sample, naive_select, naive_update  # tests/naive_nbcoin.py

NAMES = ["sample", "rank", "reward", "punish"]
HARD = "nbcoin_106_difficult"


def _pair(params, puzzle, seed=0):
    return pair("nbcoin", params, puzzle, seed)


# ------------------------------------------------------------- same run
CONFIGS = [  # params, puzzle, generations, the statuses of the two seeds
    ({}, "nbcoin_11_easy", 60, {"solved", "running"}),  # seed 0 solved by a sample, at the generation's first phase
    ({"population": 40, "C": 30.0, "k": 0.6, "update": "frequencies", "generations": 50}, HARD, 60, {"failed"}),
    ({"population": 30, "bound": "cap", "upper": 0.9}, "nbcoin_27_medium", 60, {"running"}),
    ({"population": 4, "C": 25.0}, "unique_4x4_a", 60, {"solved"}),
    ({"population": 12, "k": 1.0, "upper": 0.5}, "unique_16x16_a", 8, {"running"}),
]


@pytest.mark.parametrize("params, puzzle, generations, statuses", CONFIGS, ids=[str(i) for i in range(len(CONFIGS))])
def test_nbcoin_phase_by_phase_is_step_by_step(params, puzzle, generations, statuses):
    """Every generation boundary: the same keyframe (model, population, sets, counters, rng, trace) and snapshot."""
    seen = set()
    for seed in range(2):
        a, b = _pair(params, puzzle, seed)
        for _ in range(generations):
            if b.done:
                break
            b.step(1)
            steps = _one_iteration(a)
            assert [st.name for st in steps] == (NAMES if b.status != "solved" else ["sample"])
            d = first_difference(a.state_dict(), b.state_dict())
            assert d is None, f"seed {seed}, generation {b.iteration}: {d}"
            assert_snapshots_equal(a.snapshot(), b.snapshot(), f"seed {seed}, generation {b.iteration}")
        assert a.done == b.done and a.iteration == b.iteration
        seen.add(a.status)
    assert seen == statuses


def test_a_population_change_between_generations_stays_the_same_run():
    """Buffers resized by set_params between generations: phases and step() still agree."""
    a, b = _pair({"population": 20}, HARD, seed=3)
    for g in range(12):
        if g == 4:
            a.set_params(population=30, C=40.0)
            b.set_params(population=30, C=40.0)
        if g == 8:
            a.set_params(population=10)
            b.set_params(population=10)
        b.step(1)
        _one_iteration(a)
        assert first_difference(a.state_dict(), b.state_dict()) is None, g


def test_phases_replay_the_naive_twins_draw_for_draw():
    """Each phase against tests/naive_nbcoin.py (not the kernel): population, fitness, sets, the updated model."""
    pz = library.puzzle(HARD)
    P, G = 20, 5
    s = create("nbcoin", population=P, C=25.0, k=0.5, upper=0.95)
    s.reset(pz, 4)
    base = pz.grid.tolist()
    allowed = s.allowed.tolist()
    for _ in range(8):
        rng = _rng_copy(s.rng)
        M = s.M.tolist()
        st = s.step_phase()
        assert st.name == "sample"
        pop = [naive_sample(M, base, pz.n, rng) for _ in range(P)]
        fit = [naive_fitness(x, pz.n) for x in pop]
        assert s.pop[:P].tolist() == pop and s.fitness[:P].tolist() == fit
        assert st.changed["sample"].tolist() == pop[fit.index(max(fit))]
        st = s.step_phase()
        good, bad = naive_select(fit, G)
        assert st.changed["selected"].tolist() == good
        assert st.changed["costs"].tolist() == [162 - fit[q] for q in good]
        assert s.good[:G].tolist() == good and s.bad[:G].tolist() == bad
        s.step_phase()  # reward
        s.step_phase()  # punish
        newM, delta = naive_update(M, allowed, base, pz.n, pop, good, bad, 0.5, 0.95, counts=True)
        assert s.M.tolist() == newM and s.delta.tolist() == delta
        assert rng.random() == _rng_copy(s.rng).random()  # both streams at the same place


# ------------------------------------------------------- what each phase says
def test_captions_and_changes_on_a_case_checked_by_hand():
    """4x4, population 4, C = 25 %: one individual rewarded and one punished (G = 1), k = 0.4, L = 4.

    With f one-hot on the good individual's digit d (F = 1), the reward adds k/L - k/L^2 = 0.1 - 0.025 =
    0.075 to M[position, d] and takes k/L^2 = 0.025 from every other allowed digit of the position.
    """
    pz = library.puzzle("unique_4x4_a")  # 11 free cells (5 givens)
    s = create("nbcoin", population=4, C=25.0)
    s.reset(pz, 1)
    M0 = s.M.copy()
    sample = s.step_phase()
    fit = s.fitness[:4].tolist()
    best = int(np.argmax(fit))  # the first of the highest
    assert sample.caption == (
        f"drew 4 candidates from the box models (a permutation per box): best fitness {max(fit)} of 32 "
        f"(cost {32 - max(fit)}, candidate {best + 1}), mean {sum(fit) / 4:.1f}, worst {min(fit)}"
    )
    assert sample.changed["sample"].tolist() == s.pop[best].tolist() == s.best_grid.tolist()
    assert np.array_equal(sample.changed["cells"], pz.grid == 0)  # the first generation's best replaces the givens
    rank = s.step_phase()
    order = sorted(range(4), key=lambda q: (-fit[q], q))
    assert rank.changed["selected"].tolist() == [order[0]] and rank.changed["costs"].tolist() == [32 - fit[order[0]]]
    assert rank.caption == (
        f"ranked 4 candidates by fitness: best cost {32 - fit[order[0]]}, worst {32 - fit[order[-1]]}; "
        f"the 1 best (cost {32 - fit[order[0]]}) to reward, the 1 worst (cost {32 - fit[order[-1]]}) to punish"
    )
    reward = s.step_phase()
    good = s.pop[order[0]]
    for b, cells in enumerate(s.box_cells):
        for pos, cell in enumerate(cells):
            if pz.grid[cell]:
                assert np.array_equal(s.M[b, pos], M0[b, pos])  # a given position never moves
                continue
            d = good[cell] - 1
            change = s.M[b, pos] - M0[b, pos]
            ok = s.allowed[b, pos]
            others = ok.copy()
            if ok[d]:  # (a position with no mass left on its unused digits draws one of them uniformly)
                assert change[d] == pytest.approx(0.075)
                others[d] = False
            np.testing.assert_allclose(change[others], -0.025)
            assert not change[~ok].any()
    assert reward.caption == (
        "rewarded the 1 best: M += (k/L) f - (k/L^2) F with k = 0.4, L = 4, f their digit counts per position; "
        "11 of 11 free positions moved (not yet clipped or renormalised)"
    )
    assert np.array_equal(reward.changed["rows"], pz.grid == 0)
    punish = s.step_phase()
    np.testing.assert_allclose(s.M.sum(axis=2), 1.0)
    assert s.M.min() >= 0.0
    assert np.array_equal(s.delta, s.M - M0)
    assert punish.caption == (
        "punished the 1 worst: M -= (k/L) h - (k/L^2) H, clipped to [0, 0.99] and renormalised; "
        f"11 of 11 free positions moved, largest change of the generation {np.abs(s.delta).max():.3f}"
    )
    assert punish.ended and s.iteration == 1 and s.phase == 0
    for st in (sample, rank, reward, punish):
        assert not check_changes(st.changed, s.snapshot())


def test_captions_and_changes_per_phase():
    s = create("nbcoin", population=30, bound="cap", upper=0.9, generations=25)
    s.reset(library.puzzle("nbcoin_27_medium"), 2)
    free = s.base == 0
    for _ in range(25):
        before = s.snapshot()
        sample, rank, reward, punish = _one_iteration(s)
        snap = s.snapshot()
        assert [st.index for st in (sample, rank, reward, punish)] == [0, 1, 2, 3]
        assert [st.ended for st in (sample, rank, reward, punish)] == [False, False, False, True]
        for st in (sample, rank, reward, punish):
            assert not check_changes(st.changed, snap), st
            assert st.caption and "\n" not in st.caption
        fit = snap.layers["fitness"]
        assert f"best fitness {snap.layers['generation_best']} of 162" in sample.caption
        assert f"mean {fit.mean():.1f}, worst {int(fit.min())}" in sample.caption
        assert np.array_equal(sample.changed["cells"], before.grid != snap.grid)
        assert rank.changed["selected"].tolist() == snap.layers["good"].tolist()
        assert np.array_equal(rank.changed["costs"], 162 - fit[snap.layers["good"]].astype(np.int64))
        assert f"worst {162 - int(fit.min())};" in rank.caption and "the 7 best" in rank.caption
        assert not reward.changed["rows"][~free].any() and not punish.changed["rows"][~free].any()
        assert "clipped to [0, 0.9] and renormalised, then capped at 0.9" in punish.caption
        assert f"largest change of the generation {np.abs(snap.layers['delta']).max():.3f}" in punish.caption
    assert punish.caption.endswith("; the budget of 25 generations is spent") and s.status == "failed"
    assert s.step_phase() is None


def test_reward_and_punish_name_the_rows_of_p_that_moved():
    s = create("nbcoin", population=30)
    s.reset(library.puzzle(HARD), 2)
    s.step(6)
    s.step_phase()
    s.step_phase()
    for name in ("reward", "punish"):
        p_before = s.snapshot().layers["prob"]
        st = s.step_phase()
        p_after = s.snapshot().layers["prob"]
        assert st.name == name
        moved = np.any(p_after != p_before, axis=1)
        assert np.array_equal(st.changed["rows"], moved) and moved.any(), name
        assert f"{int(moved.sum())} of {int((s.base == 0).sum())} free positions moved" in st.caption
    assert np.array_equal(s.snapshot().layers["prob"], model_as_cells(s.M, 3))


def test_a_solved_generation_ends_at_sample():
    a, b = _pair({}, "nbcoin_11_easy", seed=0)
    last = None
    while not b.done:
        b.step(1)
        last = _one_iteration(a)[-1]
    assert a.status == b.status == "solved"
    assert last is not None and last.name == "sample" and last.ended
    assert last.caption.endswith("has fitness 162, the puzzle is solved")
    assert int(a.counters[K.C_N_SELECTED]) == 0 and not a.delta.any()
    assert_snapshots_equal(a.snapshot(), b.snapshot())
    assert a.step_phase() is None and a.phase == 0


# --------------------------------------------------------- mid-iteration rules
def test_snapshot_mid_iteration():
    s = create("nbcoin", population=20)
    s.reset(library.puzzle(HARD), 0)
    s.step(2)
    n_rows = len(s.snapshot().trace["cost"])
    good = s.snapshot().layers["good"].copy()
    s.step_phase()
    snap = s.snapshot()
    assert (snap.phase, snap.iteration, len(snap.trace["cost"])) == (1, 2, n_rows)
    assert np.array_equal(snap.layers["good"], good)  # the new population is not ranked yet
    s.step_phase()
    assert not np.array_equal(s.snapshot().layers["good"], good)
    M = s.M.copy()
    s.step_phase()  # reward: the snapshot shows the rewarded model, before the punishment
    snap = s.snapshot()
    assert not np.array_equal(s.M, M) and np.array_equal(snap.layers["models"], s.M)
    assert np.array_equal(snap.layers["prob"], model_as_cells(s.M, 3))
    s.step_phase()
    snap = s.snapshot()
    assert (snap.phase, snap.iteration, len(snap.trace["cost"])) == (0, 3, n_rows + 1)


@pytest.mark.parametrize("phases_done", [1, 2, 3])
def test_step_mid_iteration_finishes_it_first(phases_done):
    a, b = _pair({"population": 30}, HARD, seed=7)
    a.step(5)
    for _ in range(phases_done):
        a.step_phase()
    assert a.step(10) == 10 and a.phase == 0
    b.step(15)
    assert first_difference(a.state_dict(), b.state_dict()) is None


@pytest.mark.parametrize("phases_done", [1, 2, 3])
def test_a_keyframe_mid_iteration_replays_exactly(phases_done):
    params = {"population": 30, "update": "frequencies"}
    a, b = _pair(params, HARD, seed=7)
    a.step(4)
    for _ in range(phases_done):
        a.step_phase()
    key = pickle.loads(pickle.dumps(a.state_dict()))
    assert key["phase"] == phases_done and key["phase_state"] is not None
    c = create("nbcoin", **params)
    c.load_state(key)
    assert c.phase == phases_done
    assert_snapshots_equal(c.snapshot(), a.snapshot())
    rest_a, rest_c = _one_iteration(a), _one_iteration(c)
    assert [(st.name, st.caption) for st in rest_a] == [(st.name, st.caption) for st in rest_c]
    b.step(5)
    assert first_difference(c.state_dict(), b.state_dict()) is None
    c.step(5)
    b.step(5)
    assert first_difference(c.state_dict(), b.state_dict()) is None


def test_set_params_mid_iteration_is_refused():
    s = create("nbcoin")
    s.reset(library.puzzle(HARD), 0)
    s.step_phase()
    with pytest.raises(ParameterError, match="in the middle of an iteration"):
        s.set_params(population=40)
    s.step_phase()
    s.step_phase()
    with pytest.raises(ParameterError, match="after its phase 'reward'"):
        s.set_params(k=0.2)
    assert s.get_params()["k"] == 0.4 and s.get_params()["population"] == 150
    s.step_phase()
    s.set_params(k=0.2)  # between generations: applied
    assert s.get_params()["k"] == 0.2
