"""Correctness grades: hand-computed fractions, exports, resume, corrupt files."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sudoku_lab import library
from sudoku_lab.errors import DataFileError, ParameterError, PuzzleError
from sudoku_lab.experiments import ResultsFile, RunResult
from sudoku_lab.grades import GradeResult, agreement, correctness_grades, grade_cells
from sudoku_lab.puzzle import Puzzle
from sudoku_lab.solvers.reseda import Reseda


def _run(grid, seed, solved=False):
    return RunResult(str(seed), "reseda", "p", seed, solved, "failed", "failed", 10, 1000, 0.01, 0 if solved else 4,
                     0 if solved else 4, np.array(grid, np.int8))


def test_fractions_and_grades_by_hand():
    pz = library.puzzle("reseda_fig3_1_easy")
    sol = np.array(pz.check())
    free = pz.free_cells
    runs = []
    for k in range(10):  # cell free[0] wrong in 1 run of 10, free[1] in 2, free[2] in all
        g = sol.copy()
        if k < 1:
            g[free[0]] = sol[free[0]] % 9 + 1
        if k < 2:
            g[free[1]] = sol[free[1]] % 9 + 1
        g[free[2]] = sol[free[2]] % 9 + 1
        runs.append(_run(g, k))
    res = GradeResult(pz, sol, "reseda", {}, list(range(10)), "solved", runs=runs)
    f = res.fraction
    assert f[free[0]] == 0.9 and f[free[1]] == 0.8 and f[free[2]] == 0.0 and f[free[3]] == 1.0
    assert np.all(f[pz.givens] == 1.0)
    g = res.grades
    assert (g[free[0]], g[free[1]], g[free[2]], g[free[3]]) == ("B", "", "", "A")  # 90 % is a B
    assert np.all(g[pz.givens] == "A")
    assert res.successes == 0 and res.mean_cost == 4.0
    assert res.grade_grid().shape == (9, 9)


def test_thresholds():
    f = np.array([1.0, 0.95, 0.9, 0.89, 0.0])
    givens = np.array([False, False, False, False, True])
    assert grade_cells(f, givens).tolist() == ["A", "B", "B", "", "A"]
    assert grade_cells(f, givens, a=0.95, b=0.5).tolist() == ["A", "A", "B", "B", "A"]
    with pytest.raises(ParameterError, match="thresholds"):
        grade_cells(f, givens, a=0.5, b=0.9)


def test_agreement():
    a = np.array([["A", "B"], ["", "A"]])
    b = np.array([["A", ""], ["", "A"]])
    assert agreement(a, b) == 0.75


def test_correctness_grades_runs_a_real_solver():
    pz = library.puzzle("reseda_fig3_1_easy")
    res = correctness_grades(pz, "reseda", {"restart": "none"}, runs=12, seed=5)
    assert res.runs_done == 12 and [r.seed for r in res.runs] == list(range(5, 17))
    solved = [r for r in res.runs if r.solved]
    for r in solved:
        assert np.array_equal(r.grid, pz.solution)  # a solved run's final grid is the solution
    for c in range(pz.C):
        assert res.fraction[c] == pytest.approx(np.mean([r.grid[c] == pz.solution[c] for r in res.runs]) if
                                                not pz.givens[c] else 1.0)
    assert res.params == {**Reseda.defaults(), "restart": "none"}  # every parameter, as the run used it


def test_exports(tmp_path):
    pz = library.puzzle("reseda_fig3_1_easy")
    res = correctness_grades(pz, "reseda", {"restart": "none", "alpha": 0.5}, runs=4)
    res.save_csv(tmp_path / "g.csv")
    rows = (tmp_path / "g.csv").read_text().splitlines()
    assert rows[0] == "row,col,cell,given,solution,fraction_correct,grade" and len(rows) == 82
    assert rows[1].startswith("1,1,r1c1,0,1,")
    res.save_json(tmp_path / "g.json")
    d = json.loads((tmp_path / "g.json").read_text())
    assert d["solver"] == "reseda" and d["params"]["alpha"] == 0.5 and d["runs_done"] == 4 and len(d["grades"]) == 81
    assert d["seeds"] == [0, 1, 2, 3] and "version" in d and d["puzzle"]["name"] == "reseda_fig3_1_easy"
    back = GradeResult.load_json(tmp_path / "g.json")
    assert back.puzzle == pz and back.params == {**Reseda.defaults(), "alpha": 0.5, "restart": "none"}
    assert back.grades_from_file.tolist() == res.grades.tolist()
    tex = res.to_latex(caption="x")
    assert tex.count(r"\hline") == 4 and r"\begin{tabular}{|ccc|ccc|ccc|}" in tex and tex.count(r"\\") == 9


def test_interrupted_grades_resume_where_they_stopped(tmp_path):
    pz = library.puzzle("reseda_fig4_1_hard")
    store = tmp_path / "runs.jsonl"
    params = {"restart": "none", "Q": 50, "Q1": 5}
    done = []
    first = correctness_grades(pz, "reseda", params, runs=10, results_file=store,
                               should_stop=lambda: len(done) >= 4, progress=lambda k, n: done.append(k))
    assert 3 <= first.runs_done < 10 and not first.complete
    lines = store.read_text().splitlines()
    assert len(lines) == 1 + first.runs_done  # header + one line per finished run
    full = correctness_grades(pz, "reseda", params, runs=10, results_file=store)
    assert full.complete and [r.seed for r in full.runs] == list(range(10))
    fresh = correctness_grades(pz, "reseda", params, runs=10)
    assert np.array_equal(full.fraction, fresh.fraction)  # resuming changes nothing


def test_a_crash_mid_write_loses_only_that_run(tmp_path):
    pz = library.puzzle("reseda_fig3_1_easy")
    store = tmp_path / "runs.jsonl"
    correctness_grades(pz, "reseda", {"restart": "none"}, runs=3, results_file=store)
    text = store.read_text()
    store.write_text(text[: len(text) - 20])  # the last line cut off
    res = correctness_grades(pz, "reseda", {"restart": "none"}, runs=3, results_file=store)
    assert res.complete and store.read_text().count("\n") == 4


def test_corrupt_and_mismatched_results_files_are_refused(tmp_path):
    pz = library.puzzle("reseda_fig3_1_easy")
    store = tmp_path / "runs.jsonl"
    correctness_grades(pz, "reseda", {"restart": "none"}, runs=3, results_file=store)
    lines = store.read_text().splitlines()
    lines[2] = "{not json"
    store.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataFileError, match=r"runs.jsonl line 3: corrupt run record"):
        correctness_grades(pz, "reseda", {"restart": "none"}, runs=3, results_file=store)
    with pytest.raises(DataFileError, match="different experiment .differs in: params"):
        ResultsFile(store, {"kind": "grades", "solver": "reseda", "params": {"alpha": 0.1}, "puzzle": pz.to_line(),
                            "until": "solved,100000it", "seed0": 0}, 3)
    junk = tmp_path / "junk.jsonl"
    junk.write_text("hello\n")
    with pytest.raises(DataFileError, match="line 1: not a Sudoku Lab results file"):
        ResultsFile(junk, {}, 3)


def test_grades_need_a_unique_puzzle_and_valid_settings():
    with pytest.raises(PuzzleError, match="grades need a puzzle with one solution"):
        correctness_grades(Puzzle(np.zeros(16, np.int8)), "reseda", runs=2)
    with pytest.raises(ParameterError, match="runs must be an integer from 1 to 1,000,000, got 0"):
        correctness_grades(library.puzzle("reseda_fig3_1_easy"), runs=0)
    with pytest.raises(ParameterError, match="alpha must be"):
        correctness_grades(library.puzzle("reseda_fig3_1_easy"), params={"alpha": 3}, runs=2)
    with pytest.raises(ParameterError, match="unknown algorithm 'nope'"):
        correctness_grades(library.puzzle("reseda_fig3_1_easy"), "nope", runs=2)


def test_giving_a_default_explicitly_is_the_same_experiment(tmp_path):
    """`grades --alpha 0.7` (the default) refused to resume a run started without --alpha."""
    pz = library.puzzle("reseda_fig3_1_easy")
    store = tmp_path / "runs.jsonl"
    correctness_grades(pz, "reseda", {"restart": "none"}, runs=3, results_file=store)
    res = correctness_grades(pz, "reseda", {"restart": "none", "alpha": 0.7, "Q": "100"}, runs=5,
                             results_file=store)
    assert res.complete and store.read_text().count("\n") == 6  # 3 kept + 2 new, none repeated
    with pytest.raises(DataFileError, match="differs in: params"):
        correctness_grades(pz, "reseda", {"restart": "none", "alpha": 0.71}, runs=5, results_file=store)


def test_a_file_from_before_full_parameters_still_resumes(tmp_path):
    """Files written by 0.1.0 hold only the parameters given explicitly."""
    pz = library.puzzle("reseda_fig3_1_easy")
    store = tmp_path / "runs.jsonl"
    first = correctness_grades(pz, "reseda", {"restart": "none"}, runs=2, results_file=store)
    lines = store.read_text().splitlines()
    head = json.loads(lines[0])
    head["header"]["params"] = {"restart": "none"}
    store.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    res = correctness_grades(pz, "reseda", {"restart": "none"}, runs=3, results_file=store)
    assert res.complete and [r.seed for r in res.runs[:2]] == [r.seed for r in first.runs]
    assert store.read_text().count("\n") == 4


def test_a_binary_results_file_is_refused_clearly(tmp_path):
    store = tmp_path / "runs.jsonl"
    store.write_bytes(b'{"header": {}}\n\xff\xfe\x00')
    with pytest.raises(DataFileError, match=r"results file .*runs.jsonl is not a text file: line 2 holds a byte that "
                                            r"is not UTF-8 \(0xff\)"):
        correctness_grades(library.puzzle("reseda_fig3_1_easy"), "reseda", {}, runs=2, results_file=store)
    with pytest.raises(ParameterError, match="seed must be a non-negative integer, got -1"):
        correctness_grades(library.puzzle("reseda_fig3_1_easy"), "reseda", {}, runs=2, seed=-1)
