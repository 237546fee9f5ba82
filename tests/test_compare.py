"""``sudoku-lab compare``: any solvers on the same puzzles, seeds and budget, with statistics checked by hand."""

from __future__ import annotations

import csv
import io
import math

import numpy as np
import pytest
from scipy import stats as st

from sudoku_lab import cli, compare as cmp, exact, library
from sudoku_lab.errors import DataFileError, ParameterError
from sudoku_lab.solvers import create
from sudoku_lab.experiments import RunResult, Task, run_task


def _res(solved: bool, iterations: int, seconds: float) -> RunResult:
    return RunResult("k", "reseda", "p", 0, solved, "solved" if solved else "failed", "", iterations, iterations,
                     seconds, 0, 0, np.zeros(81, np.int8))


def test_a_row_matches_hand_computed_statistics():
    runs = [_res(True, 10, 1.0), _res(True, 30, 3.0), _res(False, 100, 5.0), _res(True, 20, 2.0)]
    row = cmp._row("reseda", "p", runs)
    assert (row.successes, row.runs) == (3, 4)
    assert row.mean_iterations == 20.0 and row.median_iterations == 20.0
    assert row.mean_seconds_solved == 2.0
    assert row.mean_seconds == pytest.approx(11.0 / 4)
    assert row.ets == pytest.approx((11.0 / 4) / (3 / 4))  # time per run / success rate
    lo, hi = row.interval  # Clopper-Pearson from the beta quantiles
    assert lo == pytest.approx(st.beta.ppf(0.025, 3, 2)) and hi == pytest.approx(st.beta.ppf(0.975, 4, 1))
    none = cmp._row("reseda", "p", [_res(False, 5, 1.0)] * 3)
    assert none.ets == math.inf and math.isnan(none.mean_iterations)


def test_verdicts_follow_fishers_test_against_the_first_configuration():
    first = cmp._row("a", "p", [_res(True, 1, 1.0)] * 20)
    worse = cmp._row("b", "p", [_res(True, 1, 1.0)] * 5 + [_res(False, 1, 1.0)] * 15)
    close = cmp._row("c", "p", [_res(True, 1, 1.0)] * 18 + [_res(False, 1, 1.0)] * 2)
    for row in (worse, close):
        cmp._verdict(row, first)
    assert worse.p == pytest.approx(st.fisher_exact([[5, 15], [20, 0]]).pvalue) and worse.verdict == "lower"
    assert close.p == pytest.approx(st.fisher_exact([[18, 2], [20, 0]]).pvalue) and close.verdict == "consistent"
    cmp._verdict(first, worse)
    assert first.verdict == "higher"


def test_every_configuration_gets_the_same_seeds_and_each_run_is_the_one_solve_gives(tmp_path, warm_kernels):
    puzzles = [library.puzzle("reseda_fig3_1_easy"), library.puzzle("reseda_fig3_2_medium")]
    configs = [cmp.parse_config("reseda"), cmp.parse_config("reseda:restart=none,alpha=0.5")]
    out = tmp_path / "cmp"
    rows = cmp.compare(configs, puzzles, runs=3, seed=5, until="solved,2000it", results_file=out)
    assert [(r.puzzle, r.config) for r in rows] == [
        ("reseda_fig3_1_easy", "reseda"), ("reseda_fig3_1_easy", "reseda:restart=none,alpha=0.5"),
        ("reseda_fig3_2_medium", "reseda"), ("reseda_fig3_2_medium", "reseda:restart=none,alpha=0.5"),
        ("all", "reseda"), ("all", "reseda:restart=none,alpha=0.5")]
    # the second configuration on the medium puzzle, recomputed run by run with seeds 5, 6, 7
    alone = [run_task(Task("reseda", {"restart": "none", "alpha": 0.5}, puzzles[1], s, "solved,2000it")) for s in (5, 6, 7)]
    assert rows[3].successes == sum(r.solved for r in alone)
    solved_its = [r.iterations for r in alone if r.solved]
    assert rows[3].mean_iterations == (sum(solved_its) / len(solved_its) if solved_its else rows[3].mean_iterations)
    for r in alone:
        if r.solved:
            assert np.array_equal(r.grid, exact.solve(puzzles[1]))
    assert rows[4].successes == rows[0].successes + rows[2].successes and rows[4].runs == 6
    # resuming the finished comparison runs nothing and gives the same table
    def boom(*a, **k):
        raise AssertionError("a finished comparison must not run again")

    import sudoku_lab.experiments as ex

    original, ex.run_task = ex.run_task, boom
    try:
        again = cmp.compare(configs, puzzles, runs=3, seed=5, until="solved,2000it", results_file=out)
    finally:
        ex.run_task = original
    assert [(r.successes, r.mean_iterations) for r in again] == [(r.successes, r.mean_iterations) for r in rows]
    # the directory records every parameter, defaults included, so a run under other defaults cannot be mixed in
    import json

    spec = json.loads((out / "provenance.json").read_text())["spec"]
    assert spec["configs"][1]["params"] == {**create("reseda").get_params(), "restart": "none", "alpha": 0.5}
    with pytest.raises(DataFileError, match="differs in: configs"):
        cmp.compare(configs[:1], puzzles, runs=3, seed=5, until="solved,2000it", results_file=out)


@pytest.mark.parametrize("text,message", [
    ("nosuch", "unknown algorithm 'nosuch'"),
    ("reseda:alpha=3", "alpha must be [0, 1], got 3"),
    ("reseda:alpha", "'alpha' should be PARAM=VALUE"),
    ("reseda:alpha=[0.5,0.7]", "gives 2 configurations; name one"),
    ("reseda:gamma=1", "'gamma' is not a parameter of reseda"),
    ("reseda:Q=5,Q1=10", "Q1 must be at most Q"),
])
def test_bad_configurations_get_one_clear_error(text, message):
    with pytest.raises(ParameterError, match=message.replace("[", r"\[").replace("]", r"\]")):
        cmp.parse_config(text)


def test_the_command_prints_markdown_and_csv(capsys, warm_kernels):
    args = ["compare", "reseda_fig3_1_easy", "--algo", "reseda", "--algo", "exact", "--runs", "2",
            "--until", "solved,1000it", "--quiet"]
    assert cli.main(args + ["--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["configuration"] for r in rows] == ["reseda", "exact"]
    assert rows[1]["successes"] == "2" and rows[1]["verdict_vs_first"] in ("consistent", "higher")
    assert cli.main(args + ["--format", "markdown"]) == 0
    md = capsys.readouterr().out.splitlines()
    assert md[0].startswith("| puzzle | configuration | solved") and md[1].startswith("|---|")
    assert cli.main(["compare", "reseda_fig3_1_easy", "--algo", "reseda", "--algo", "reseda"]) == 2
    assert "the same configuration is named twice" in capsys.readouterr().err
