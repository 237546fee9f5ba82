"""The GA's phases (select, cross, mutate, replace): the same run as step(), the twin, captions, the rules."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from phase_helpers import one_iteration as _one_iteration, pair, rng_copy as _rng_copy  # tests/phase_helpers.py

from sudoku_lab._kernels import ga as K
from sudoku_lab.errors import ParameterError
from sudoku_lab.model import library
from sudoku_lab.solvers import create
from sudoku_lab.solvers.declare import check_changes
from sudoku_lab.testing import assert_snapshots_equal, first_difference

import naive_ga  # tests/naive_ga.py

NAMES = ["select", "cross", "mutate", "replace"]
EASY = "nbcoin_01_easy"


def _pair(params, puzzle=EASY, seed=0):
    return pair("ga", params, puzzle, seed)


# ------------------------------------------------------------- same run
CONFIGS = [
    ({"population": 20}, EASY),  # solved within the iterations below
    ({"population": 21, "elites": 0, "tournament": 2, "ties": "coin", "crossover_rate": 0.9}, EASY),  # a lone child
    ({"population": 16, "elites": 3, "ties": "first", "mutation_rate": 0.9, "local_search": True}, "nbcoin_27_medium"),
    ({"population": 12, "elites": 11, "crossover_rate": 1.0, "generations": 25}, "nbcoin_106_difficult"),  # budget
    ({"population": 30, "elites": 2, "tournament": 5, "crossover_rate": 0.0, "mutation_rate": 1.0}, "ai_escargot"),
]


@pytest.mark.parametrize(
    "params, puzzle", CONFIGS, ids=[",".join(f"{k}={v}" for k, v in p.items()) for p, _ in CONFIGS]
)
def test_ga_phase_by_phase_is_step_by_step(params, puzzle):
    """Every generation boundary: the same keyframe (population, counters, rng state, trace) and snapshot."""
    for seed in (0, 3):  # the last one solves the first configuration
        a, b = _pair(params, puzzle, seed=seed)
        for _ in range(150):
            if b.done:
                break
            b.step(1)
            steps = _one_iteration(a)
            assert [st.name for st in steps] == NAMES
            d = first_difference(a.state_dict(), b.state_dict())
            assert d is None, f"seed {seed}, generation {b.iteration}: {d}"
            assert_snapshots_equal(a.snapshot(), b.snapshot(), f"seed {seed}, generation {b.iteration}")
        assert a.done == b.done and a.iteration == b.iteration and a.status == b.status
        if params.get("generations") == 25:
            assert (
                a.status == "failed" and a.iteration == 25 and "budget of 25 generations is spent" in steps[-1].caption
            )
    if puzzle == EASY and params["population"] == 20:
        assert a.status == "solved" and "the puzzle is solved" in steps[-1].caption


def test_a_population_change_between_generations():
    """A live population change: the next generation is bred at the new size, by phases as by step()."""
    a, b = _pair({"population": 20})
    for s in (a, b):
        s.step(3)
        s.set_params(population=27)
    b.step(1)
    steps = _one_iteration(a)
    assert "(resized to 27)" in steps[-1].caption and steps[-1].changed["members"].tolist() == list(range(1, 27))
    assert a.pop.shape == (27, 81) and first_difference(a.state_dict(), b.state_dict()) is None
    for s in (a, b):
        s.set_params(population=9)
    for _ in range(5):
        b.step(1)
        _one_iteration(a)
        assert first_difference(a.state_dict(), b.state_dict()) is None
    assert a.pop.shape == (9, 81)


# --------------------------------------------------------------- the twin
@pytest.mark.parametrize("local", [False, True])
def test_phases_replay_the_naive_twin_draw_for_draw(local):
    """Each generation's children after "mutate" and population after "replace" are the pure-Python GA's."""
    params = dict(population=15, tournament=3, elites=2, crossover_rate=0.6, mutation_rate=0.5, ties="coin")
    s = create("ga", **params, local_search=local)
    pz = library.puzzle("nbcoin_27_medium")
    s.reset(pz, 5)
    givens = pz.grid.tolist()
    for _ in range(12):
        rng = _rng_copy(s.rng)
        new, crossed, mutated = naive_ga.generation(
            s.pop.tolist(),
            givens,
            pz.n,
            rng,
            size=15,
            tournament_size=3,
            elites=2,
            crossover_rate=0.6,
            mutation_rate=0.5,
            ties="coin",
            local_search_on=local,
        )
        s.step_phase()  # select: every draw of the generation
        assert rng.random() == _rng_copy(s.rng).random()  # both streams at the same place
        cross = s.step_phase()
        assert cross.caption.startswith(f"crossed {crossed} of 7 pairs")
        mutate = s.step_phase()
        assert mutate.caption.startswith(f"mutated {mutated} of 13 children")
        assert s._phase_ctx["out"][2:].tolist() == new[2:]
        assert s.pop.tolist() != new  # the population changes at "replace" only
        s.step_phase()
        assert s.pop.tolist() == new
        assert s.fit.tolist() == [naive_ga.fitness(g, pz.n)[0] for g in new]


# ------------------------------------------------------- what each phase says
def test_captions_and_changes_on_a_small_case():
    """Population 4, one elite, tournaments of 2, every pair crossed and every child mutated, ties to parent a:
    the draws are 2 x 2 tournament draws, a crossover coin, then a mutation coin and 3 swap draws per child."""
    pz = library.puzzle(EASY)
    s = create("ga", population=4, elites=1, tournament=2, crossover_rate=1.0, mutation_rate=1.0, ties="first")
    s.reset(pz, 3)
    fits = s.fit.tolist()
    full = 2 * 81
    rng = _rng_copy(s.rng)
    a0, b0 = naive_ga.tournament(fits, 2, rng), naive_ga.tournament(fits, 2, rng)
    for _ in range(1 + 4 + 4):  # crossover coin, two children's mutation coin and swap
        rng.random()
    a1, b1 = naive_ga.tournament(fits, 2, rng), naive_ga.tournament(fits, 2, rng)
    chosen = sorted({a0, b0, a1, b1}, key=lambda q: (-fits[q], q))
    lo, hi = min(fits[q] for q in chosen), max(fits[q] for q in chosen)
    span = f"fitness {lo}" if lo == hi else f"fitness {lo} to {hi}"
    grid_before = s.grid.copy()

    select, cross, mutate, replace = _one_iteration(s)
    assert [st.name for st in (select, cross, mutate, replace)] == NAMES
    assert [st.ended for st in (select, cross, mutate, replace)] == [False, False, False, True]
    assert select.caption == (
        f"selected 4 parents by tournament of 2 (2 pairs; {len(chosen)} distinct individuals, {span}), "
        "the 1 elite kept aside; coins: 2 of 2 pairs to cross, 3 of 3 children to mutate"
    )
    assert select.changed["selected"].tolist() == chosen
    assert select.changed["costs"].tolist() == [full - fits[q] for q in chosen]
    assert cross.caption == (
        "crossed 2 of 2 pairs by bands (child 1 by rows, child 2 by columns); the other 0 pairs' children copy "
        "their parents"
    )
    assert cross.changed["members"].tolist() == [1, 2, 3]  # slot 0 is the elite's
    children = s.pop[1:]
    best_child = max(naive_ga.fitness(g.tolist(), 3)[0] for g in children)
    assert mutate.caption == (
        "mutated 3 of 3 children (two free cells of a box swapped); "
        f"children evaluated: best fitness {best_child} of 162"
    )
    assert mutate.changed["members"].tolist() == [1, 2, 3]
    new_fits = [naive_ga.fitness(g.tolist(), 3)[0] for g in s.pop]
    assert new_fits[0] == max(fits)  # the elite
    best = max(new_fits)
    assert replace.caption.startswith(
        f"replaced: the 1 elite and 3 children are the next population; best fitness {best} (cost {full - best}), "
        f"mean {sum(new_fits) / 4:.1f}, worst {min(new_fits)}"
    )
    assert replace.changed["members"].tolist() == [1, 2, 3]
    assert np.array_equal(replace.changed["cells"], s.grid != grid_before)
    assert s.counters[K.C_CROSSOVERS] == 2 and s.counters[K.C_MUTATIONS] == 3
    snap = s.snapshot()
    for st in (select, cross, mutate, replace):
        assert not check_changes(st.changed, snap), st


def test_captions_over_a_run():
    s = create("ga", population=20, elites=2, local_search=True)
    s.reset(library.puzzle("nbcoin_27_medium"), 1)
    for _ in range(20):
        before = s.snapshot()
        steps = _one_iteration(s)
        snap = s.snapshot()
        assert [st.index for st in steps] == [0, 1, 2, 3] and {st.iteration for st in steps} == {s.iteration}
        for st in steps:
            assert st.caption and "\n" not in st.caption and not check_changes(st.changed, snap)
        select, cross, mutate, replace = steps
        assert select.caption.startswith("selected 18 parents by tournament of 3 (9 pairs;")
        assert np.all(np.diff(s.full - select.changed["costs"]) <= 0)  # best first
        assert "then one local search pass each" in mutate.caption
        assert mutate.changed["members"].min(initial=2) >= 2  # never an elite
        assert replace.caption.startswith("replaced: the 2 elites and 18 children are the next population")
        assert np.array_equal(replace.changed["cells"], before.grid != snap.grid)
        assert f"best fitness {int(s.fit.max())} (cost {s.cost})" in replace.caption


# --------------------------------------------------------- mid-iteration rules
@pytest.mark.parametrize("phases_done", [1, 2, 3])
def test_a_keyframe_mid_generation_replays_exactly(phases_done):
    a, b = _pair({"population": 18, "elites": 2, "mutation_rate": 0.6}, "nbcoin_27_medium", seed=4)
    a.step(6)
    for _ in range(phases_done):
        a.step_phase()
    key = pickle.loads(pickle.dumps(a.state_dict()))
    assert key["phase"] == phases_done and key["phase_state"] is not None
    c = create("ga", population=18, elites=2, mutation_rate=0.6)
    c.load_state(key)
    assert c.phase == phases_done
    assert_snapshots_equal(c.snapshot(), a.snapshot())
    rest_a, rest_c = _one_iteration(a), _one_iteration(c)
    assert [(st.name, st.caption) for st in rest_a] == [(st.name, st.caption) for st in rest_c]
    assert [st.name for st in rest_a] == NAMES[phases_done:]
    b.step(7)
    assert first_difference(c.state_dict(), b.state_dict()) is None
    assert first_difference(a.state_dict(), b.state_dict()) is None


@pytest.mark.parametrize("phases_done", [1, 3])
def test_step_mid_generation_finishes_it_first(phases_done):
    a, b = _pair({"population": 18}, "nbcoin_27_medium", seed=2)
    a.step(4)
    for _ in range(phases_done):
        a.step_phase()
    assert a.step(6) == 6 and a.phase == 0
    b.step(10)
    assert first_difference(a.state_dict(), b.state_dict()) is None


def test_set_params_mid_generation_is_refused():
    s = create("ga", population=10)
    s.reset(library.puzzle(EASY), 0)
    s.step_phase()
    with pytest.raises(ParameterError, match="population cannot change in the middle of an iteration .* 'select'"):
        s.set_params(population=12)
    s.step_phase()
    with pytest.raises(ParameterError, match="mutation_rate cannot change .* 'cross'"):
        s.set_params(mutation_rate=0.5)
    s.step(1)
    assert [e.name for e in s.set_params(population=12)] == ["population"]
