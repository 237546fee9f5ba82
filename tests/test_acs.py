"""ACS: the kernel against its pure-Python twin, propagation and picks by hand, the solver's contract."""

from __future__ import annotations

import numpy as np
import pytest
from naive_acs import NaiveAcs, NaiveBoard, naive_base  # tests/naive_acs.py

from sudoku_lab import exact
from sudoku_lab._kernels import acs as K
from sudoku_lab.errors import ParameterError
from sudoku_lab.model import library
from sudoku_lab.model.geometry import geometry
from sudoku_lab.model.puzzle import Puzzle
from sudoku_lab.solvers import Status, create


def _masks_to_sets(masks) -> list[set[int]]:
    return [{d + 1 for d in range(25) if (int(m) >> d) & 1} for m in masks]


# ------------------------------------------------------------------ twins
@pytest.mark.parametrize("puzzle", ["unique_4x4_a", "ai_escargot", "reseda_fig4_1_hard", "unique_16x16_a"])
def test_propagated_puzzle_equals_the_twin(puzzle):
    pz = library.puzzle(puzzle)
    t = K.tables(pz.geometry)
    base = K.propagate_givens(pz.grid.astype(np.int64), pz.N, t)
    assert _masks_to_sets(base) == naive_base([int(x) for x in pz.grid], pz.n)


@pytest.mark.parametrize(
    "puzzle,params,changes,iterations",
    [
        ("ai_escargot", {}, {3: {"q0": 0.3, "ants": 4}}, 6),
        ("reseda_fig4_1_hard", {"ants": 3, "rho": 0.5, "xi": 0.3}, {2: {"evap": 0.2, "tau0": 0.5}}, 5),
        ("unique_16x16_a", {"ants": 2, "q0": 0.5}, {1: {"ants": 3, "rho": 0.1}}, 3),
        ("unique_4x4_a", {"ants": 2, "q0": 0.0}, {}, 1),
    ],
)
@pytest.mark.parametrize("seed", [1, 5])
def test_iterations_equal_the_twin(puzzle, params, changes, iterations, seed):
    """Same seed: the same pheromone, boards, best-so-far, costs and random stream, with live changes."""
    pz = library.puzzle(puzzle)
    s = create("acs", **params)
    s.reset(pz, seed=seed)
    twin = NaiveAcs([int(x) for x in pz.grid], pz.n, tau0=params.get("tau0", 0.0))
    rng = np.random.default_rng(seed)
    live = dict(s.get_params())
    for i in range(iterations):
        if i in changes:
            s.set_params(**changes[i])
            live.update(changes[i])
        if s.done:
            break
        s.step(1)
        kw = {k: live[k] for k in ("ants", "q0", "rho", "evap", "tau0", "xi")}
        twin.iteration(rng, **kw)
        np.testing.assert_allclose(s.pher, np.array(twin.pher), rtol=0, atol=1e-12)
        A = kw["ants"]
        assert [_masks_to_sets(s.cand[a]) for a in range(A)] == [b.cand for b in twin.boards]
        assert list(s.snapshot().grid) == twin.best
        assert s.cost == twin.cost and s.best_cost == twin.best_cost
        assert list(s.best_grid) == twin.best_grid
        assert s.fstate[K.F_BEST_PHER] == pytest.approx(twin.best_pher, rel=1e-12)
        assert s.rng.bit_generator.state == rng.bit_generator.state
        assert (s.status == Status.SOLVED) == twin.solved


# ----------------------------------------------------------- by hand
def test_placement_propagation_by_hand():
    """A 4x4 board: 2 at r1c2 makes r1c3 a single (3), which makes r1c4 a single (4); the twin agrees."""
    #   1 . | . .
    #   . . | . .
    #   ----+----
    #   . . | . .
    #   . . | 4 .      placing 2 at r1c2 leaves row 1 with 3 and 4 for c3, c4; 4 is not in column 3
    grid = np.zeros(16, dtype=np.int64)
    grid[0] = 1
    grid[14] = 4
    geo = geometry(2)
    t = K.tables(geo)
    base = K.propagate_givens(grid, 4, t)
    # Givens alone: 1 is struck from row 1, column 1 and box 1; 4 from row 4, column 3 and box 4.
    assert _masks_to_sets(base)[2] == {2, 3}  # r1c3: not 1 (row), not 4 (column 3)
    cand = base.copy()
    n = K.assign(cand, 1, np.int64(1) << 1, t)  # 2 at r1c2
    log = [(int(c), int(k)) for c, k in zip(t.logc[:n], t.logk[:n])]
    sets = _masks_to_sets(cand)
    # r1c3 loses 2 (row): {3}, a naked single; then r1c4 is the only place of 4 in row 1.
    assert sets[0] == {1} and sets[1] == {2} and sets[2] == {3} and sets[3] == {4}
    assert log[:2] == [(2, K.LOG_SINGLE), (3, K.LOG_SINGLE)]
    twin = NaiveBoard(2, _masks_to_sets(base))
    twin_log = twin.assign(1, 2)
    assert twin.cand == sets
    kinds = {K.LOG_SINGLE: "single", K.LOG_HIDDEN: "hidden", K.LOG_FAILED: "failed"}
    assert [(c, kinds[k]) for c, k in log] == twin_log


def test_hidden_single_alone_fixes_exactly_the_computed_cell():
    """A 9x9 whose givens leave 9 one place in row 1, r1c9 (hidden single): only r1c9 is fixed."""
    g = np.zeros(81, dtype=np.int64)
    # 9 in rows 2 and 3 inside boxes 1 and 2 strikes 9 from r1c1-r1c6; 9 in columns 7 and 8 strikes r1c7, r1c8.
    g[1 * 9 + 0] = 9  # r2c1
    g[2 * 9 + 3] = 9  # r3c4
    g[4 * 9 + 6] = 9  # r5c7
    g[7 * 9 + 7] = 9  # r8c8
    t = K.tables(geometry(3))
    base = K.propagate_givens(g, 9, t)
    sets = _masks_to_sets(base)
    fixed = [c for c in range(81) if len(sets[c]) == 1 and g[c] == 0]
    # r1c9 is the only place of 9 in row 1 (also in box 3 and column 9); nothing else is forced.
    assert fixed == [8]
    assert sets[8] == {9}


def test_greedy_pick_with_q0_1_takes_the_most_pheromone():
    rng = np.random.default_rng(0)
    row = np.array([0.1, 0.5, 0.3, 0.5])
    for _ in range(20):
        d, greedy = K.choose(row, 0b1101, 1.0, rng)  # digits 1, 3, 4: 4 has the most
        assert (d, greedy) == (3, True)
    d, greedy = K.choose(row, 0b1111, 1.0, rng)
    assert (d, greedy) == (1, True)  # a tie between digits 2 and 4: the lowest


def test_roulette_follows_the_pheromone():
    rng = np.random.default_rng(3)
    row = np.array([1.0, 3.0, 0.0, 0.0])
    picks = [K.choose(row, 0b11, 0.0, rng)[0] for _ in range(4000)]
    share = picks.count(1) / len(picks)
    assert 0.72 < share < 0.78  # 3/4 expected; 4000 draws: sd 0.007


def test_local_and_global_update_by_hand():
    """One iteration on a 4x4 by hand: the local update on every pick, the deposit C/f on the best ant's digits."""
    pz = library.puzzle("unique_4x4_a")
    s = create("acs", ants=1, q0=1.0, xi=0.5, rho=0.25, evap=0.5)
    s.reset(pz, seed=2)
    tau0 = 1.0 / 16
    s.step(1)
    picks = s.pher != tau0
    # Every pick moved one entry towards tau0 (no change), so only the global update shows: solved or deposit.
    if s.status == Status.SOLVED:
        assert not picks.any()  # a solving iteration deposits nothing
    else:
        f = s.cost
        D = 16 / f
        for c in range(16):
            d = int(s.grid[c])
            if d:
                assert s.pher[c, d - 1] == pytest.approx(0.75 * tau0 + 0.25 * D)
        assert s.fstate[K.F_BEST_PHER] == pytest.approx(D * 0.5)


# ----------------------------------------------------------- the solver
@pytest.mark.parametrize("puzzle", ["ai_escargot", "unique_16x16_a", "reseda_fig4_1_hard"])
def test_solved_grid_is_the_exact_solution(puzzle):
    pz = library.puzzle(puzzle)
    s = create("acs")
    s.reset(pz, seed=4)
    while not s.done and s.iteration < 20_000:
        s.step(500)
    assert s.status == Status.SOLVED
    snap = s.snapshot()
    assert snap.cost == 0 and snap.best_cost == 0
    np.testing.assert_array_equal(snap.grid, exact.solve(pz))


def test_empty_cells_are_the_cost():
    pz = library.puzzle("ai_escargot")
    s = create("acs", ants=2, q0=0.2)
    s.reset(pz, seed=0)
    s.step(1)
    snap = s.snapshot()
    assert snap.cost == int(np.count_nonzero(snap.grid == 0)) > 0
    assert snap.layers["empty"].tolist() == (snap.grid == 0).tolist()
    assert int(snap.layers["failed"].sum()) == int(snap.layers["ant_failed"].sum())


def test_propagation_alone_solves_at_reset():
    """sabuncu1 falls to singles and hidden singles: solved at reset, before any ant moves."""
    pz = Puzzle.parse("1276..48584.1.5..7.9574.3.2269...5.....85.64..5..7.2.1314....2...6237.......6.85.")
    s = create("acs")
    s.reset(pz, seed=0)
    assert s.status == Status.SOLVED and s.iteration == 0 and s.cost == 0
    np.testing.assert_array_equal(s.snapshot().grid, exact.solve(pz))
    assert s.step(5) == 0


@pytest.mark.parametrize(
    "params,name",
    [
        ({"ants": 0}, "ants"),
        ({"q0": 1.5}, "q0"),
        ({"rho": -0.1}, "rho"),
        ({"evap": 2.0}, "evap"),
        ({"tau0": -1.0}, "tau0"),
        ({"xi": 1.1}, "xi"),
    ],
)
def test_out_of_range_parameters_are_refused_in_one_line(params, name):
    with pytest.raises(ParameterError) as e:
        create("acs", **params)
    assert name in str(e.value) and "\n" not in str(e.value)
    s = create("acs")
    with pytest.raises(ParameterError):
        s.set_params(**params)


def test_phases_leave_the_state_of_step_1_and_repeat_place():
    pz = library.puzzle("ai_escargot")
    a, b = create("acs", ants=3), create("acs", ants=3)
    a.reset(pz, seed=9)
    b.reset(pz, seed=9)
    for _ in range(3):
        b.step(1)
        names = []
        while True:
            st = a.step_phase()
            names.append(st.name)
            if st.ended:
                break
        assert names[0] == "start" and names[-1] == "global update"
        assert set(names[1:-1]) == {"place"} and len(names) > 3
        np.testing.assert_array_equal(a.pher, b.pher)
        np.testing.assert_array_equal(a.cand, b.cand)
        assert a.rng.bit_generator.state == b.rng.bit_generator.state
    st = a.step_phase()
    st = a.step_phase()
    assert st.name == "place" and st.caption.startswith("ant ") and "propagation then fixed" in st.caption
    cells = np.flatnonzero(st.changed["cells"])
    assert len(cells) >= 1
    # Mid-iteration the grid is the placing ant's board.
    ant = int(st.caption.split()[1]) - 1
    assert a.snapshot().grid.tolist() == st.changed["sample"].tolist()
    assert a.snapshot().cost == int(np.count_nonzero(a.snapshot().grid == 0))
    assert ant in range(3)
