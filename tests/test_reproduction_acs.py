"""`sudoku-lab reproduce acs-famous` and `acs-large`: Lloyd and Amos's ant colony system against the paper and
the authors' C++ measured on this machine, in their quick sizes."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_lab import exact
from sudoku_lab.engine.experiments import RunResult
from sudoku_lab.engine.results import load_results
from sudoku_lab.model import library
from sudoku_lab.reproductions import get_paper, get_reproduction, resolve_options
from sudoku_lab.reproductions.acs import CPP_FAMOUS, CPP_LARGE, FAMOUS, ratio_text
from sudoku_lab.reproductions.runner import run_experiment

pytestmark = pytest.mark.usefixtures("warm_kernels")


def _results(path) -> list[RunResult]:
    return [RunResult.from_row(r) for r in load_results(path).rows()]


def test_both_are_registered_for_the_acs_solver_with_quick_forms_smaller_than_the_full_ones():
    from sudoku_lab.solvers import registry

    for name in ("acs-famous", "acs-large"):
        rep = get_reproduction(name)
        assert rep.paper == "lloyd2019" and rep.solver == "acs" and "acs" in registry()
        full, quick = resolve_options(rep, {}), resolve_options(rep, {}, quick=True)
        assert quick != full and all(quick[k] <= full[k] for k in quick)
    assert resolve_options(get_reproduction("acs-famous"), {}) == {"runs": 5, "puzzles": 16, "seconds": 10}
    assert resolve_options(get_reproduction("acs-large"), {}) == {"puzzles": 10, "seconds": 60, "max_size": 25}
    assert "Lloyd and Martyn Amos" in get_paper("lloyd2019").citation
    # The order of the famous puzzles is benchmarks/famous_hard's, every one with a C++ figure.
    assert [p.name for p in library.collection("benchmarks/famous_hard")] == list(FAMOUS) == list(CPP_FAMOUS)


def test_ratios_read_as_factors():
    assert ratio_text(5.0, 2.0) == "2.5x" and ratio_text(1.0, 4.0) == "0.25x"
    assert ratio_text(float("nan"), 2.0) == "n/a" and ratio_text(3.0, 0.0) == "n/a"


def test_famous_rows_hold_ours_beside_the_cpp_here_and_the_paper_and_solved_grids_are_the_solution(tmp_path):
    rep = run_experiment("acs-famous", runs=2, puzzles=3, seed=0, results=tmp_path / "r")
    assert len(rep.rows) == 4  # three puzzles and the total
    assert [row[0] for row in rep.rows] == ["aiescargot", "coly013", "goldennugget", "**all 3**"]
    # The C++ columns are its figures measured here, as recorded.
    assert rep.rows[0][2:4] == ["5/5", "4.33"] and rep.rows[1][2:4] == ["5/5", "8.22"]
    assert rep.rows[3][1] == "16/16 puzzles, median about 7 ms" and rep.rows[3][2:4] == ["80/80", "0.24"]
    runs = _results(tmp_path / "r")
    assert sorted((r.puzzle, r.seed) for r in runs) == [(n, s) for n in FAMOUS[:3] for s in (0, 1)]
    # Every run solves these puzzles within 10 s, and its grid is the puzzle's unique solution.
    assert all(r.solved for r in runs)
    for r in runs:
        assert np.array_equal(r.grid, exact.solve(library.puzzle(r.puzzle))), r.puzzle
    assert [row[4] for row in rep.rows] == ["2/2", "2/2", "2/2", "6/6"]
    text = rep.markdown()
    assert "| puzzle | paper | C++ here: solved | C++ here: median ms | ours: solved | ours: median ms |" in text
    assert "against the C++ here 80/80" in text and "huwlloyd-mmu/sudoku_acs" in text
    assert "Paper: Huw Lloyd and Martyn Amos. Solving Sudoku with Ant Colony Optimization." in text


def test_large_rows_cover_both_sizes_and_compare_the_paper_where_it_has_a_figure(tmp_path):
    rep = run_experiment("acs-large", puzzles=1, seconds=1, seed=0, results=tmp_path / "r")
    assert [(row[0], row[1]) for row in rep.rows] == [(f"{s}x{s}", p) for s in (16, 25) for p in (35, 40, 45, 50)]
    by = {(row[0], row[1]): row for row in rep.rows}
    assert by[("25x25", 45)][2] == "7/10 (within 60 s)" and by[("25x25", 45)][8] == "[35, 93] %"
    assert by[("16x16", 45)][2] == "n/a" and by[("16x16", 45)][8:] == [""] * 5
    assert by[("16x16", 45)][3] == f"{CPP_LARGE[(16, 45)][0]}/10" and by[("25x25", 35)][3] == "10/10"
    runs = _results(tmp_path / "r")
    assert len(runs) == 8
    # A 16x16 instance at these givens is solved well within the second, and every solved grid completes it.
    for r in runs:
        pz = library.puzzle(r.puzzle)
        assert r.solved == pz.is_solved_by(r.grid), r.puzzle
        if pz.n == 4:
            assert r.solved, r.puzzle
    assert rep.verdicts and len(rep.verdicts) == 1  # one comparison with the paper: 25x25 at 45 %


def test_large_can_leave_out_the_25x25_rows(tmp_path):
    rep = run_experiment("acs-large", puzzles=1, seconds=5, max_size=16, seed=3)
    assert [row[1] for row in rep.rows] == [35, 40, 45, 50] and {row[0] for row in rep.rows} == {"16x16"}
    assert [row[5] for row in rep.rows] == ["1/1"] * 4
    assert rep.verdicts == []
