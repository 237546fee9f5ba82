"""Correctness grades: hand-computed fractions, exports, resume, corrupt files."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sudoku_lab import cli
from sudoku_lab.analysis.grades import GradeResult, agreement, correctness_grades, grade_cells, grades_from_results
from sudoku_lab.engine.experiments import RunResult
from sudoku_lab.engine.results import JOURNAL, load_results
from sudoku_lab.errors import DataFileError, ParameterError, PuzzleError
from sudoku_lab.model import library
from sudoku_lab.model.puzzle import Puzzle
from sudoku_lab.solvers.reseda import Reseda


def _run(grid, seed, solved=False):
    return RunResult(
        str(seed),
        "reseda",
        "p",
        seed,
        solved,
        "failed",
        "failed",
        10,
        1000,
        0.01,
        0 if solved else 4,
        0 if solved else 4,
        np.array(grid, np.int8),
    )


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
        assert res.fraction[c] == pytest.approx(
            np.mean([r.grid[c] == pz.solution[c] for r in res.runs]) if not pz.givens[c] else 1.0
        )
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
    store = tmp_path / "g.runs"
    params = {"restart": "none", "Q": 50, "Q1": 5}
    done = []
    first = correctness_grades(
        pz,
        "reseda",
        params,
        runs=10,
        results_file=store,
        should_stop=lambda: len(done) >= 4,
        progress=lambda k, n: done.append(k),
    )
    assert 3 <= first.runs_done < 10 and not first.complete
    assert len(load_results(store)) == first.runs_done  # one row per finished run
    full = correctness_grades(pz, "reseda", params, runs=10, results_file=store)
    assert full.complete and [r.seed for r in full.runs] == list(range(10))
    fresh = correctness_grades(pz, "reseda", params, runs=10)
    assert np.array_equal(full.fraction, fresh.fraction)  # resuming changes nothing


def test_a_crash_mid_write_loses_only_that_run(tmp_path):
    pz = library.puzzle("reseda_fig3_1_easy")
    store = tmp_path / "g.runs"
    correctness_grades(pz, "reseda", {"restart": "none"}, runs=3, results_file=store)
    journal = store / JOURNAL
    text = journal.read_text()
    journal.write_text(text[: len(text) - 20])  # the last line cut off
    res = correctness_grades(pz, "reseda", {"restart": "none"}, runs=3, results_file=store)
    assert res.complete and journal.read_text().count("\n") == 3 and len(load_results(store)) == 3


def test_corrupt_and_mismatched_results_are_refused(tmp_path):
    pz = library.puzzle("reseda_fig3_1_easy")
    store = tmp_path / "g.runs"
    correctness_grades(pz, "reseda", {"restart": "none"}, runs=3, results_file=store)
    with pytest.raises(DataFileError, match="different experiment .differs in: params"):
        correctness_grades(pz, "reseda", {"restart": "none", "alpha": 0.1}, runs=3, results_file=store)
    with pytest.raises(DataFileError, match="different experiment .differs in: seed0"):
        correctness_grades(pz, "reseda", {"restart": "none"}, runs=3, seed=1, results_file=store)
    journal = store / JOURNAL
    lines = journal.read_text().splitlines()
    lines[1] = "{not json"
    journal.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataFileError, match=r"runs.jsonl line 2: corrupt run record"):
        correctness_grades(pz, "reseda", {"restart": "none"}, runs=3, results_file=store)


def test_grades_need_a_unique_puzzle_and_valid_settings():
    with pytest.raises(PuzzleError, match="grades need a puzzle with one solution"):
        correctness_grades(Puzzle(np.zeros(16, np.int8)), "reseda", runs=2)
    with pytest.raises(ParameterError, match="runs must be an integer from 1 to 1,000,000, got 0"):
        correctness_grades(library.puzzle("reseda_fig3_1_easy"), runs=0)
    with pytest.raises(ParameterError, match="alpha must be"):
        correctness_grades(library.puzzle("reseda_fig3_1_easy"), params={"alpha": 3}, runs=2)
    with pytest.raises(ParameterError, match="unknown algorithm 'nope'"):
        correctness_grades(library.puzzle("reseda_fig3_1_easy"), "nope", runs=2)


def test_giving_a_default_explicitly_is_the_same_experiment_and_more_runs_add_to_it(tmp_path):
    """`grades --alpha 0.7` (the default) refused to resume a run started without --alpha."""
    pz = library.puzzle("reseda_fig3_1_easy")
    store = tmp_path / "g.runs"
    correctness_grades(pz, "reseda", {"restart": "none"}, runs=3, results_file=store)
    res = correctness_grades(pz, "reseda", {"restart": "none", "alpha": 0.7, "Q": "100"}, runs=5, results_file=store)
    assert res.complete and len(load_results(store)) == 5  # 3 kept + 2 new, none repeated
    with pytest.raises(DataFileError, match="differs in: params"):
        correctness_grades(pz, "reseda", {"restart": "none", "alpha": 0.71}, runs=5, results_file=store)


def test_a_binary_journal_is_refused_clearly(tmp_path):
    store = tmp_path / "g.runs"
    correctness_grades(library.puzzle("reseda_fig3_1_easy"), "reseda", {}, runs=1, results_file=store)
    (store / JOURNAL).write_bytes((store / JOURNAL).read_bytes() + b"\xff\xfe\x00\n")
    with pytest.raises(
        DataFileError,
        match=r"results journal .*runs.jsonl is not a text file: line 2 holds a byte "
        r"that is not UTF-8 \(0xff\)",
    ):
        correctness_grades(library.puzzle("reseda_fig3_1_easy"), "reseda", {}, runs=2, results_file=store)
    with pytest.raises(ParameterError, match="seed: must be an integer from 0 to 9,223,372,036,854,775,807, got -1"):
        correctness_grades(library.puzzle("reseda_fig3_1_easy"), "reseda", {}, runs=2, seed=-1)


def test_a_seed_whose_last_run_passes_the_results_column_is_refused_before_any_run(tmp_path, capsys):
    """`grades --seed 9223372036854775807 --runs 2` ran both runs, then could not write the second row ("cannot be
    read as a results journal"): run i uses seed + i, which must fit the int64 column."""
    out = tmp_path / "g.png"
    status = cli.main(
        ["grades", "--seed", "9223372036854775807", "--runs", "2", "--quiet", "--out", str(out), "reseda_fig3_1_easy"]
    )
    err = capsys.readouterr().err
    assert status == 2
    assert err.strip() == (
        "sudoku-lab: error: seed: with sequential seeding run r has the seed "
        "9,223,372,036,854,775,807 + r, and the last, run 1, would pass 9,223,372,036,854,775,807 "
        "(the largest seed a results table holds): give a seed at most 9,223,372,036,854,775,806"
    )
    assert list(tmp_path.iterdir()) == []


def test_grades_from_results_equal_the_grades_of_the_same_runs(tmp_path):
    """A batch's runs graded with --from give what grades gives for the same seeds and settings."""
    from sudoku_lab.engine.batch import run_spec
    from sudoku_lab.engine.spec import spec_from_options

    pz = library.puzzle("reseda_fig4_1_hard")
    params = {"restart": "none", "Q": 50, "Q1": 5}
    direct = correctness_grades(pz, "reseda", params, runs=8, seed=3)
    spec = spec_from_options(
        ["reseda:restart=none,Q=50,Q1=5", "hill_climb"],
        ["reseda_fig4_1_hard", "ai_escargot"],
        runs=8,
        seed=3,
        seeding="sequential",
        until="solved,100000it",
    )
    run_spec(spec, tmp_path / "b", jobs=1)
    res = load_results(tmp_path / "b")
    with pytest.raises(
        ParameterError,
        match=r"the results hold 2 puzzles: ai_escargot, reseda_fig4_1_hard; "
        r"choose one with the PUZZLE argument \(its name or givens\)$",
    ):
        grades_from_results(res)
    with pytest.raises(
        ParameterError,
        match=r"2 configs: hill_climb, reseda:restart=none,Q=50,Q1=5; choose one "
        r"with --config LABEL$",
    ):
        grades_from_results(res, puzzle="reseda_fig4_1_hard")
    with pytest.raises(ParameterError, match="no config 'ga'"):
        grades_from_results(res, puzzle="reseda_fig4_1_hard", config="ga")
    g = grades_from_results(res, puzzle=pz.to_line(), config="reseda")  # by givens, and by solver name
    assert g.runs_done == 8 and g.successes == direct.successes and [r.seed for r in g.runs] == direct.seeds
    assert np.array_equal(g.fraction, direct.fraction) and g.grades.tolist() == direct.grades.tolist()
    assert g.params == direct.params and g.until == "solved,100000it"
    spec2 = spec_from_options(["hill_climb"], ["benchmarks/lewis_9x9_35:1"], runs=1, until="solved,100it")
    run_spec(spec2, tmp_path / "c", jobs=1)
    with pytest.raises(PuzzleError, match="grades need a puzzle with one solution: .*several solutions"):
        grades_from_results(tmp_path / "c")


def test_a_puzzle_the_results_do_not_hold_is_named_with_every_puzzle_they_hold_counted(tmp_path, capsys):
    """`grades --from kennett-levels-results kennett_hard_103`: the message listed 12 of the 20 puzzles without saying
    so (and its sibling suggested `--puzzle NAME`, an option grades does not have)."""
    from sudoku_lab.cli import main
    from sudoku_lab.engine.batch import run_spec
    from sudoku_lab.engine.spec import spec_from_options

    run_spec(spec_from_options(["exact"], ["kennett/hard"], runs=1, first=20, until="solved"), tmp_path / "r", jobs=1)
    names = [f"kennett_hard_{k:03d}" for k in range(1, 21)]
    with pytest.raises(ParameterError) as info:
        grades_from_results(tmp_path / "r", puzzle="kennett_hard_103")
    assert str(info.value) == (
        "the results hold no puzzle 'kennett_hard_103' (did you mean kennett_hard_013 or kennett_hard_010 or "
        f"kennett_hard_003?): they hold 20 puzzles, the first 12: {', '.join(names[:12])} (and 8 more; "
        "`sudoku-lab report RESULTS --by puzzle` lists every one)"
    )
    assert main(["grades", "--from", str(tmp_path / "r"), "--out", str(tmp_path / "g.png")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sudoku-lab: error: the results hold 20 puzzles, the first 12: kennett_hard_001, ")
    assert err.endswith("lists every one); choose one with the PUZZLE argument (its name or givens)\n")
    assert main(["grades", "--from", str(tmp_path / "r"), "--out", str(tmp_path / "g.png"), "kennett_hard_017"]) == 0


def test_on_run_sees_the_grades_grow_run_by_run_and_a_resumed_directorys_runs_first(tmp_path):
    pz = library.puzzle("reseda_fig3_2_medium")
    seen = []
    store = tmp_path / "g.runs"
    kw = {"until": "solved,60it", "results_file": store, "on_run": seen.append}
    first = correctness_grades(pz, "hill_climb", {}, runs=3, **kw)
    assert [g.runs_done for g in seen] == [1, 2, 3]
    assert seen[-1].grades.tolist() == first.grades.tolist() and seen[-1] is not first
    seen.clear()
    more = correctness_grades(pz, "hill_climb", {}, runs=5, **kw)
    assert [g.runs_done for g in seen] == [1, 2, 3, 4, 5]  # the 3 held runs first, then the 2 new ones
    assert [r.seed for r in seen[2].runs] == [0, 1, 2] and seen[-1].grades.tolist() == more.grades.tolist()
