"""Human-technique grades against qqwing, and against correctness grades (sudoku_lab.analysis.difficulty)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sudoku_lab.analysis.difficulty import qqwing_agreement, qqwing_classes, technique_correlation
from sudoku_lab.errors import ParameterError
from sudoku_lab.model import library


def test_spearman_per_puzzle_and_pooled_on_hand_computed_values():
    # puzzle A: free cells (level 0 is a given) x = 1, 1, 0.5, 0.2 against levels 1, 2, 2, 3.
    # Ranks with ties averaged: x -> 3.5, 3.5, 2, 1; levels -> 1, 2.5, 2.5, 4; deviations from 2.5:
    # (1, 1, -0.5, -1.5) and (-1.5, 0, 0, 1.5): rho = -3.75 / 4.5 = -5/6, and with 2 degrees of freedom the
    # two-sided p-value of t = rho sqrt(2 / (1 - rho^2)) is 1 - |rho| = 1/6.
    a_frac = np.array([1.0, 1.0, 0.5, 0.2, 1.0])
    a_lev = np.array([1, 2, 2, 3, 0])
    # puzzle B: perfectly decreasing, 3 free cells: rho = -1.
    b_frac = np.array([0.9, 0.6, 0.3])
    b_lev = np.array([1, 2, 3])
    rep = technique_correlation([a_frac, b_frac], [a_lev, b_lev], ["A", "B"])
    assert rep.cells.tolist() == [4, 3]
    assert rep.rho[0] == pytest.approx(-5 / 6) and rep.p[0] == pytest.approx(1 / 6)
    assert rep.rho[1] == pytest.approx(-1.0)
    # pooled: x = 1, 1, .5, .2, .9, .6, .3 -> ranks 6.5, 6.5, 3, 1, 5, 4, 2; levels 1, 2, 2, 3, 1, 2, 3 -> ranks
    # 1.5, 4, 4, 6.5, 1.5, 4, 6.5. Deviations from 4: (2.5, 2.5, -1, -3, 1, 0, -2) and (-2.5, 0, 0, 2.5, -2.5, 0,
    # 2.5): sum of products -6.25 - 7.5 - 2.5 - 5 = -21.25; sums of squares 27.5 and 25: rho = -21.25 / sqrt(687.5).
    assert rep.pooled_rho == pytest.approx(-21.25 / math.sqrt(687.5))
    assert rep.rows()[-1][:2] == ["pooled", "7"]


def test_a_constant_technique_level_has_no_correlation():
    rep = technique_correlation([np.array([1.0, 0.5, 0.2])], [np.array([1, 1, 1])])
    assert math.isnan(rep.rho[0]) and math.isnan(rep.pooled_rho)


def test_mismatched_grids_are_refused():
    with pytest.raises(ParameterError, match="2 grade grids but 1 technique grids"):
        technique_correlation([np.zeros(3), np.zeros(3)], [np.ones(3, dtype=int)])


@pytest.mark.needs_qqwing
def test_our_grades_and_qqwing_order_puzzles_the_same_way():
    """Three puzzles each of three Kennett levels: qqwing's classes are the bundled ones and the orderings agree."""
    groups = {level: library.collection(f"kennett/{level}")[:3] for level in ("very_easy", "hard", "fiendish")}
    classes = {level: qqwing_classes(ps) for level, ps in groups.items()}
    for level, ps in groups.items():
        assert classes[level] == [p.metadata["qqwing_difficulty"] for p in ps]
    table = qqwing_agreement(groups, classes)
    assert table.ordering_agrees
    assert table.spearman > 0.5
    assert list(table.grade_mean_rank) == sorted(table.grade_mean_rank)
    assert list(table.qqwing_mean_rank) == sorted(table.qqwing_mean_rank)
    assert table.grade_counts.sum() == 9


def test_grade_technique_figure_colours_each_free_cell_by_its_technique():
    from matplotlib.colors import to_hex

    from sudoku_lab.analysis.difficulty import TECHNIQUE_COLOURS
    from sudoku_lab.analysis.figures import grade_technique_figure
    from sudoku_lab.exact.human import rate

    p = library.puzzle("kennett_hard_130")
    r = rate(p)
    grades = np.where(p.givens, "A", "B")
    fig = grade_technique_figure(cell_technique=r.cell_technique, grades=grades, givens=p.givens, digits=p.grid)
    ax = fig.axes[0]
    cells = {}
    for patch in ax.patches:
        if patch.get_zorder() == 0.5:
            x, y = patch.get_xy()
            cells[int(y) * 9 + int(x)] = to_hex(patch.get_facecolor())
    free = np.flatnonzero(~p.givens)
    assert sorted(cells) == free.tolist()
    assert all(cells[c] == TECHNIQUE_COLOURS[r.cell_technique[c]] for c in free)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == [
        "full house (easy, 19)",
        "naked single (easy, 19)",
        "hidden single (easy, 11)",
        "X-wing (hard, 1)",
        "XY-wing (hard, 1)",
    ]
