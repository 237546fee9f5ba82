"""The solver by human techniques (sudoku_lab.exact.human): paths, techniques, grades, errors."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_lab.errors import PuzzleError
from sudoku_lab.exact import human
from sudoku_lab.exact.human import GRADES, TECHNIQUE_RANK, TECHNIQUES, grade_for, rate, technique
from sudoku_lab.model import library
from sudoku_lab.model.puzzle import Puzzle

EASY = "2.93..6...5.8..3.9.3.1.7.4...2.861..98.....67..357.8...2.7.4.8.6.8..3.5...5..84.2"  # kennett_easy_001

#: Where each technique first appears in the bundled Kennett sets: (puzzle, index of the step).
FIRST_USE = {
    "naked triple": ("kennett_hard_006", 16),
    "locked candidates (pointing)": ("kennett_hard_006", 19),
    "naked pair": ("kennett_hard_006", 20),
    "XY-wing": ("kennett_hard_023", 16),
    "locked candidates (claiming)": ("kennett_hard_031", 33),
    "hidden triple": ("kennett_hard_084", 13),
    "X-wing": ("kennett_hard_130", 27),
    "hidden pair": ("kennett_fiendish_006", 27),
    "swordfish": ("kennett_fiendish_032", 28),
    "simple colouring": ("kennett_hard_004", 38),
}


def _board_before(puzzle: Puzzle, k: int) -> human._Board:
    """The board after the first ``k`` steps of the puzzle's path."""
    b = human._Board(puzzle.grid, puzzle.n)
    for s in rate(puzzle).steps[:k]:
        for c, d in s.eliminations:
            b.cand[c] &= ~(1 << (d - 1))
        for c, d in s.placements:
            b.place(c, d)
    return b


def _check_path(puzzle: Puzzle) -> human.Rating:
    """Replay the path: every placement is the solution's digit, no elimination removes it, the end is solved."""
    r = rate(puzzle)
    sol = puzzle.solve()
    b = human._Board(puzzle.grid, puzzle.n)
    for s in r.steps:
        assert s.placements or s.eliminations, s.text
        for c, d in s.eliminations:
            assert sol[c] != d, f"{puzzle.name}: {s.text} removes the solution's {d} from cell {c}"
            assert b.cand[c] >> (d - 1) & 1, f"{puzzle.name}: {s.text} removes a candidate already gone"
            b.cand[c] &= ~(1 << (d - 1))
        for c, d in s.placements:
            assert sol[c] == d, s.text
            assert b.cand[c] >> (d - 1) & 1, s.text
            b.place(c, d)
    assert b.values == sol.tolist()
    assert np.array_equal(r.solution, sol)
    return r


@pytest.mark.parametrize("level", ["very_easy", "easy", "medium", "hard", "fiendish"])
def test_paths_replay_to_the_exact_solution_and_never_remove_its_digits(level):
    for p in library.collection(f"kennett/{level}")[:40]:
        _check_path(p)


def test_famous_hard_paths_are_valid():
    for p in library.collection("benchmarks/famous_hard"):
        if p.name != "sabuncu3":  # several solutions
            _check_path(p)


@pytest.mark.parametrize("name", sorted(FIRST_USE))
def test_positions_where_only_that_technique_makes_progress(name):
    """At the recorded position, every simpler technique finds nothing and this one removes true non-solutions."""
    puzzle_name, k = FIRST_USE[name]
    p = library.puzzle(puzzle_name)
    step = rate(p).steps[k]
    assert step.name == name
    b = _board_before(p, k)
    simpler = [
        human._full_house,
        human._naked_single,
        human._hidden_single,
        human._locked,
        lambda x: human._naked_subset(x, 2),
        lambda x: human._naked_subset(x, 3),
        lambda x: human._hidden_subset(x, 2),
        lambda x: human._hidden_subset(x, 3),
        lambda x: human._naked_subset(x, 4),
        lambda x: human._hidden_subset(x, 4),
        lambda x: human._fish(x, 2),
        lambda x: human._fish(x, 3),
        human._xy_wing,
        human._colouring,
    ]
    found = [f(b) for f in simpler]
    first = next(i for i, s in enumerate(found) if s is not None)
    assert found[first] == step
    assert all(s is None for s in found[:first])
    sol = p.solve()
    assert step.eliminations and all(sol[c] != d for c, d in step.eliminations)


def test_x_wing_eliminates_in_its_cover_columns_only():
    p = library.puzzle("kennett_hard_130")
    step = rate(p).steps[27]
    assert step.text == (
        "X-wing: 5 in rows 6, 9 lies only in columns 1, 9, so it is removed from the rest of those columns: r5c1, r5c9"
    )
    assert step.eliminations == ((36, 5), (44, 5))


def _row_board(cands: list[set[int]]) -> human._Board:
    """An empty 9x9 board whose first row has the given candidates (other cells keep all nine)."""
    b = human._Board(np.zeros(81, dtype=np.int8), 3)
    for c, ds in enumerate(cands):
        b.cand[c] = sum(1 << (d - 1) for d in ds)
    return b


def test_naked_quad_on_a_hand_made_row():
    row = [{1, 2}, {2, 3}, {3, 4}, {1, 4}, {1, 5, 6}, {2, 7, 8}, {5, 6, 7, 8, 9}, {5, 9}, {6, 9}]
    step = human._naked_subset(_row_board(row), 4)
    assert step is not None and step.name == "naked quad"
    assert step.eliminations == ((4, 1), (5, 2))
    assert human._naked_subset(_row_board(row), 3) is None  # no naked triple in that row


def test_hidden_quad_on_a_hand_made_row():
    # 1, 2, 3, 4 go only in the first four cells, which also hold 5..9
    row = [{1, 2, 5}, {2, 3, 6}, {3, 4, 7}, {1, 4, 8}] + [{5, 6, 7, 8, 9}] * 5
    b = _row_board(row)
    step = human._hidden_subset(b, 4)
    assert step is not None and step.name == "hidden quad"
    assert step.eliminations == ((0, 5), (1, 6), (2, 7), (3, 8))


def test_an_easy_newspaper_puzzle_is_easy_and_escargot_extreme():
    r = rate(EASY)
    assert (r.grade, r.hardest.name) == ("easy", "naked single")
    assert r.score == sum(TECHNIQUES[s.technique].score for s in r.steps)
    esc = rate(library.puzzle("ai_escargot"))
    assert esc.grade == "extreme"
    assert esc.hardest.name == "trial and error (bifurcation)"


def test_hodoku_grade_rule():
    assert [grade_for(1, 800), grade_for(1, 801), grade_for(1, 1001)] == ["easy", "medium", "hard"]
    assert [grade_for(2, 1000), grade_for(3, 1600), grade_for(3, 1601), grade_for(3, 1801)] == [
        "medium",
        "hard",
        "unfair",
        "extreme",
    ]
    assert grade_for(5, 0) == "extreme"
    assert GRADES == ("easy", "medium", "hard", "unfair", "extreme")


def test_hodoku_levels_and_scores_of_the_techniques():
    got = {t.hodoku: (t.level, t.score) for t in TECHNIQUES}
    assert got["HIDDEN_SINGLE"] == (1, 14) and got["NAKED_PAIR"] == (2, 60) and got["X_WING"] == (3, 140)
    assert got["XY_WING"] == (3, 160) and got["SIMPLE_COLORS"] == (3, 150) and got["BRUTE_FORCE"] == (5, 10000)
    assert TECHNIQUE_RANK[technique("full house")] == TECHNIQUE_RANK[technique("naked single")] == 1
    assert TECHNIQUE_RANK[technique("hidden single")] == 2


def test_cell_technique_is_the_hardest_step_since_the_previous_placement():
    p = library.puzzle("kennett_hard_023")
    r = rate(p)
    expected = np.full(81, -1)
    since = None
    for s in r.steps:
        if since is None or TECHNIQUES[s.technique].rank > TECHNIQUES[since].rank:
            since = s.technique
        for c, _ in s.placements:
            expected[c] = since
        if s.placements:
            since = None
    assert np.array_equal(r.cell_technique, expected)
    assert np.all(r.cell_technique[p.givens] == -1) and np.all(r.cell_technique[~p.givens] >= 0)
    # step 16 is an XY-wing, step 17 places r1c6 by trial and error: the XY-wing's own follow-up placements
    assert r.steps[16].name == "XY-wing" and r.steps[17].name == "trial and error (bifurcation)"
    assert r.cell_technique[5] == technique("trial and error (bifurcation)")
    assert r.cell_level[5] == 5 and r.cell_level[p.given_cells[0]] == 0


def test_bad_puzzles_give_the_house_errors():
    with pytest.raises(PuzzleError, match="several solutions") as e:
        rate("1" + "." * 71 + "2" + "." * 8)
    assert e.value.kind == "several_solutions"
    with pytest.raises(PuzzleError, match="clash"):
        rate("11" + "." * 79)
    no_solution = "12345678." + "........9" + "." * 63
    with pytest.raises(PuzzleError, match="no solution"):
        rate(no_solution)


def test_4x4_and_16x16():
    for p in library.collection("benchmarks/small_unique"):
        r = _check_path(p)
        assert r.n == p.n and r.grade == "easy"


def test_step_text_and_json():
    r = rate(EASY)
    assert r.steps[0].text.startswith(("naked single: ", "full house: ", "hidden single: "))
    d = r.to_dict()
    assert d["grade"] == "easy" and len(d["steps"]) == len(r.steps) and d["cell_technique"][0] is None
