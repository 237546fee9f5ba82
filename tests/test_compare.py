"""``sudoku-lab compare``: any solvers on the same puzzles, seeds and budget, reported by the report module.

The statistics themselves are checked by hand in tests/test_report.py; here, that compare runs what it
says (the same seeds for every configuration, the runs `solve` gives), resumes, and reports them.
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from sudoku_lab import cli, exact
from sudoku_lab.analysis.report import build_report, summarize
from sudoku_lab.engine import compare as cmp
from sudoku_lab.engine.experiments import Task, run_task
from sudoku_lab.errors import DataFileError, ParameterError
from sudoku_lab.model import library
from sudoku_lab.solvers import create

pytestmark = pytest.mark.usefixtures("warm_kernels")


def test_every_configuration_gets_the_same_seeds_and_each_run_is_the_one_solve_gives(tmp_path):
    puzzles = [library.puzzle("reseda_fig3_1_easy"), library.puzzle("reseda_fig3_2_medium")]
    configs = [cmp.parse_config("reseda"), cmp.parse_config("reseda:restart=none,alpha=0.5")]
    out = tmp_path / "cmp"
    results = cmp.compare(configs, puzzles, runs=3, seed=5, until="solved,2000it", results_file=out)
    rows = results.rows()
    assert len(rows) == 12
    assert {(r["config"], r["puzzle"], r["seed"]) for r in rows} == {
        (c.label, p.name, s) for c in configs for p in puzzles for s in (5, 6, 7)
    }
    # the second configuration on the medium puzzle, recomputed run by run with seeds 5, 6, 7
    alone = [
        run_task(Task("reseda", {"restart": "none", "alpha": 0.5}, puzzles[1], s, "solved,2000it")) for s in (5, 6, 7)
    ]
    mine = sorted(
        (r for r in rows if r["config"] == configs[1].label and r["puzzle"] == puzzles[1].name), key=lambda r: r["seed"]
    )
    assert [(r["solved"], r["iterations"]) for r in mine] == [(a.solved, a.iterations) for a in alone]
    for a in alone:
        if a.solved:
            assert np.array_equal(a.grid, exact.solve(puzzles[1]))
    by_puzzle = summarize(results, by="puzzle")
    row = next(s for s in by_puzzle if s.config == configs[1].label and s.group == puzzles[1].name)
    assert row.successes == sum(a.solved for a in alone) and row.runs == 3

    # resuming the finished comparison runs nothing and gives the same runs
    def boom(*a, **k):
        raise AssertionError("a finished comparison must not run again")

    import sudoku_lab.engine.experiments as ex

    original, ex.run_task = ex.run_task, boom
    try:
        again = cmp.compare(configs, puzzles, runs=3, seed=5, until="solved,2000it", results_file=out)
    finally:
        ex.run_task = original
    assert sorted(r["fingerprint"] for r in again.rows()) == sorted(r["fingerprint"] for r in rows)
    # the directory records every parameter, defaults included, so a run under other defaults cannot be mixed in
    spec = json.loads((out / "provenance.json").read_text())["spec"]
    assert spec["configs"][1]["params"] == {**create("reseda").get_params(), "restart": "none", "alpha": 0.5}
    with pytest.raises(DataFileError, match="differs in: configs"):
        cmp.compare(configs[:1], puzzles, runs=3, seed=5, until="solved,2000it", results_file=out)


def test_without_a_directory_the_runs_come_back_in_memory_with_their_specification():
    configs = cmp.parse_configs("reseda:alpha=[0.5,0.9]")
    res = cmp.compare(configs, [library.puzzle("reseda_fig3_1_easy")], runs=2, until="solved,500it")
    assert res.path is None and len(res) == 4
    assert [c["label"] for c in res.provenance["spec"]["configs"]] == ["reseda:alpha=0.5", "reseda:alpha=0.9"]
    rep = build_report(res, by="puzzle")
    assert [s.config for s in rep.summary] == ["reseda:alpha=0.5", "reseda:alpha=0.9"]  # the order asked for


def test_a_seed_whose_runs_pass_the_int64_column_is_refused_before_any_run(capsys):
    # Issue 17 item 3: run i has seed SEED + i; past 2**63 - 1 the results could not be written
    # ("<memory>: cannot be read as a results journal") after every run had run.
    assert (
        cli.main(
            ["compare", "reseda_fig3_1_easy", "--algo", "exact", "--runs", "2", "--seed", str(2**63 - 1), "--quiet"]
        )
        == 2
    )
    assert capsys.readouterr().err == (
        "sudoku-lab: error: --seed: with sequential seeding run r has the seed 9,223,372,036,854,775,807 + r, and the "
        "last, run 1, would pass 9,223,372,036,854,775,807 (the largest seed a results table holds): give a seed at "
        "most 9,223,372,036,854,775,806\n"
    )


def test_an_interrupted_comparison_says_how_to_keep_or_resume_its_runs(tmp_path):
    # Issue 17 item 14: without --out the report said "the same `sudoku-lab batch` command resumes it".
    configs, puzzles = [cmp.parse_config("exact")], [library.puzzle("reseda_fig3_1_easy")]
    done = []
    kw = dict(
        runs=4,
        until="solved,1000it",
        should_stop=lambda: bool(done) and done[-1] >= 2,
        progress=lambda d, total: done.append(d),
    )
    notes = build_report(cmp.compare(configs, puzzles, **kw), by="puzzle").notes
    assert notes == [
        "incomplete: 2 of the experiment's 4 runs are done (the comparison was interrupted, and its runs "
        "were not kept: run it again with --out DIR to keep them across interruptions)"
    ]
    done.clear()
    notes = build_report(cmp.compare(configs, puzzles, results_file=tmp_path / "c", **kw), by="puzzle").notes
    assert notes == [
        "incomplete: 2 of the experiment's 4 runs are done (the comparison was interrupted; the same "
        "`sudoku-lab compare` command (with this --out) resumes it)"
    ]


@pytest.mark.parametrize(
    "text,message",
    [
        ("nosuch", "unknown algorithm 'nosuch'"),
        ("reseda:alpha=3", "alpha must be [0, 1], got 3"),
        ("reseda:alpha", "'alpha' should be PARAM=VALUE"),
        ("reseda:alpha=[0.5,0.7]", "gives 2 configurations; name one"),
        ("reseda:gamma=1", "'gamma' is not a parameter of reseda"),
        ("reseda:Q=5,Q1=10", "Q1 must be at most Q"),
    ],
)
def test_bad_configurations_get_one_clear_error(text, message):
    with pytest.raises(ParameterError, match=message.replace("[", r"\[").replace("]", r"\]")):
        cmp.parse_config(text)


def test_the_command_prints_the_report_as_markdown_and_csv(capsys):
    args = [
        "compare",
        "reseda_fig3_1_easy",
        "--algo",
        "reseda",
        "--algo",
        "exact",
        "--runs",
        "2",
        "--until",
        "solved,1000it",
        "--quiet",
    ]
    assert cli.main(args + ["--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["config"], r["group"], r["runs"], r["successes"]) for r in rows] == [
        ("reseda", "reseda_fig3_1_easy", "2", "2"),
        ("exact", "reseda_fig3_1_easy", "2", "2"),
    ]
    assert cli.main(args + ["--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert "| puzzle | configuration | solved |" in md
    assert "| reseda_fig3_1_easy | reseda vs exact | 2/2 vs 2/2 | 1 | 1 |" in md
    assert cli.main(["compare", "reseda_fig3_1_easy", "--algo", "reseda", "--algo", "reseda"]) == 2
    assert "the same configuration is named twice" in capsys.readouterr().err


def test_acs_with_its_parameters_compares_with_hill_climb_on_a_famous_puzzle_with_a_fixed_seed(capsys):
    """The ant colony system (any registered solver) takes part in `compare` with its own parameters: the same
    seeds as hill climbing, each run the one `solve` gives, every ACS run solved to the unique solution."""
    pz = library.puzzle("aiescargot")
    configs = [cmp.parse_config("acs:ants=8,q0=0.85"), cmp.parse_config("hill_climb")]
    assert configs[0].params == {"ants": 8, "q0": 0.85}
    results = cmp.compare(configs, [pz], runs=3, seed=11, until="solved,20000it")
    rows = results.rows()
    assert sorted((r["config"], r["seed"]) for r in rows) == sorted((c.label, s) for c in configs for s in (11, 12, 13))
    truth = exact.solve(pz)
    params = {c.label: dict(c.params) for c in configs}
    for r in rows:
        alone = run_task(Task(r["solver"], params[r["config"]], pz, r["seed"], "solved,20000it"))
        assert (r["solved"], r["iterations"]) == (alone.solved, alone.iterations), r["config"]
        if r["solver"] == "acs":
            assert r["solved"] and np.array_equal(alone.grid, truth)
    assert (
        cli.main(
            [
                "compare",
                "aiescargot",
                "--algo",
                "acs:ants=8,q0=0.85",
                "--algo",
                "hill_climb",
                "--runs",
                "3",
                "--seed",
                "11",
                "--until",
                "solved,20000it",
                "--quiet",
                "--format",
                "csv",
            ]
        )
        == 0
    )
    out = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(o["config"], o["runs"]) for o in out] == [("acs:ants=8,q0=0.85", "3"), ("hill_climb", "3")]
    assert out[0]["successes"] == "3"
