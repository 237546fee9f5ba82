"""Reproductions on the experiment engine: resumable results directories, quick forms, and `reproduce all`.

The toy paper here runs the exact solver (milliseconds a run) in a registry holding only its own two
reproductions, so `reproduce all` is exercised whole: its results directories, its figure, its one report.
"""

from __future__ import annotations

import re

import pytest

from sudoku_lab.cli import main
from sudoku_lab.errors import DataFileError
from sudoku_lab.model import library
from sudoku_lab.reproductions import (
    COMPARISON_HEADER,
    Option,
    Paper,
    Report,
    Reproduction,
    register_paper,
    register_reproduction,
    resolve_options,
)
from sudoku_lab.reproductions.runner import run_all, run_experiment


@pytest.fixture
def toy(own_reproductions):
    """A registry of one toy paper with two reproductions (a table, and a figure taking ``out``)."""
    register_paper(Paper("toy", "A. Author, A toy paper, Journal of Tests 1, 2024", "Tables 1 and 2"))

    @register_reproduction(
        "toy-table",
        paper="toy",
        title="Toy table: the exact solver",
        solver="exact",
        options={"runs": Option(6, "runs", low=1, high=50)},
        quick={"runs": 3},
    )
    def toy_table(runner, runs):
        pz = library.puzzle("reseda_fig3_1_easy")
        res = runner.run(runner.repeat("exact", runner.p(), pz, "solved,1000it", runs), "toy")
        k = sum(r.solved for r in res)
        rep = Report("Toy Table 1 reproduced", ["claim", "paper", "ours", *COMPARISON_HEADER, "our seeds"])
        seeds = ",".join(str(r.seed) for r in res)
        rep.rows.append(["solved", "9/10", f"{k}/{len(res)}", *rep.rate_cells(9, 10, k, len(res)), seeds])
        rep.rows.append(["never solved", "0/100", f"{k}/{len(res)}", *rep.rate_cells(0, 100, k, len(res)), seeds])
        rep.interrupted = runner.interrupted
        return rep

    @register_reproduction(
        "toy-figure",
        paper="toy",
        title="Toy figure: solved runs drawn",
        solver="exact",
        options={"runs": Option(4, "runs", low=1, high=50), "out": Option(None, "the toy figure")},
        quick={"runs": 2},
    )
    def toy_figure(runner, runs, out):
        from matplotlib.figure import Figure

        pz = library.puzzle("reseda_fig3_2_medium")
        res = runner.run(runner.repeat("exact", runner.p(), pz, "solved,1000it", runs), "toy figure")
        rep = Report("Toy Figure 2 reproduced", ["quantity", "paper", "ours"])
        rep.rows.append(["runs solved", "all", f"{sum(r.solved for r in res)}/{len(res)}"])
        if out is not None:
            fig = Figure(figsize=(2, 2))
            fig.subplots().bar([0], [len(res)])
            fig.savefig(out)
        return rep


def _tables(text: str) -> list[str]:
    """The experiments' table rows of a report (not the summary, whose times change)."""
    return [line for line in text.splitlines() if line.startswith("| ") and "](#" not in line and "**all**" not in line]


# ------------------------------------------------------------------ one reproduction, resumed
def test_a_second_run_with_the_same_results_directory_runs_nothing_and_reports_the_same(toy, runs, tmp_path):
    first = run_experiment("toy-table", runs=4, results=tmp_path / "r")
    assert runs[0] == 4 and first.verdicts == ["consistent", "ours higher"]
    again = run_experiment("toy-table", runs=4, results=tmp_path / "r")
    assert runs[0] == 4 and again.markdown() == first.markdown()
    # The rows say which task list each run belongs to; keys are unique within the reproduction.
    from sudoku_lab.engine.results import load_results

    rows = load_results(tmp_path / "r").rows()
    assert sorted(r["task"] for r in rows) == [f"toy/{i}" for i in range(4)]
    assert {r["puzzle_set"] for r in rows} == {"toy"} and sorted(r["run"] for r in rows) == [0, 1, 2, 3]
    # More runs, other parameters, another seed: refused, naming what differs, before anything runs.
    with pytest.raises(DataFileError, match=r"differs in: runs\): it holds runs 4, this asks for runs 5"):
        run_experiment("toy-table", runs=5, results=tmp_path / "r")
    with pytest.raises(DataFileError, match=r"differs in: seed\)"):
        run_experiment("toy-table", runs=4, seed=1, results=tmp_path / "r")
    assert runs[0] == 4


def test_a_reproduction_deciding_from_earlier_runs_resumes_to_the_same_table(runs, tmp_path):
    """cuckoo-table1 runs tries in batches until enough are solved: stopped halfway, the same call picks up the
    batches it had not finished and ends with the table an uninterrupted run gives."""
    kw = dict(runs=2, puzzles=4, max_tries=25, params={"iterations": "60"})
    whole = run_experiment("cuckoo-table1", results=tmp_path / "whole", **kw)
    from sudoku_lab.engine.results import load_results

    # A batch of 10 tries for each easy puzzle (solved by AC3), then batches of medium a until 2 are solved.
    total = len(load_results(tmp_path / "whole"))
    assert runs[0] == total > 50 and whole.rows[3][3] != "2/10"
    runs[0] = 0
    stopped = run_experiment("cuckoo-table1", results=tmp_path / "part", should_stop=lambda: runs[0] >= 45, **kw)
    held = len(load_results(tmp_path / "part"))
    assert stopped.interrupted and 40 < held <= 45 < total  # stopped in medium a's second batch
    runs[0] = 0
    resumed = run_experiment("cuckoo-table1", results=tmp_path / "part", **kw)
    assert not resumed.interrupted
    assert runs[0] == len(load_results(tmp_path / "part")) - held  # only what was missing ran
    assert [row[:-1] for row in resumed.rows] == [row[:-1] for row in whole.rows]  # all but the time column


def test_a_task_key_given_twice_for_different_runs_is_a_bug_named_at_once(toy):
    from sudoku_lab.reproductions import Runner

    runner = Runner()
    pz = library.puzzle("reseda_fig3_1_easy")
    runner.run(runner.repeat("exact", {}, pz, "solved,1000it", 1), "cell")
    with pytest.raises(ValueError, match="task 'cell/0' was given for two different runs"):
        runner.run(runner.repeat("exact", {}, pz, "solved,2000it", 1), "cell")


# ------------------------------------------------------------------ quick forms
def test_quick_values_are_declared_options_within_their_ranges():
    runs = {"runs": Option(10, "runs", low=2, high=20), "out": Option(None, "figure")}
    with pytest.raises(ValueError, match="quick value of 'runs' must be an integer from 2 to 20, got 1"):
        Reproduction("x-1", "x", "t", "exact", lambda runner, runs, out: None, runs, quick={"runs": 1})
    with pytest.raises(TypeError, match="quick must be a mapping of str to int, got dict .*; its 'runs' is str '3'"):
        Reproduction("x-1", "x", "t", "exact", lambda runner, runs, out: None, runs, quick={"runs": "3"})
    for bad in ("puzzles", "out"):
        with pytest.raises(
            ValueError,
            match=f"quick value for '{bad}', which is not one of its integer options "
            r"\(runs\)",
        ):
            Reproduction("x-1", "x", "t", "exact", lambda runner, runs, out: None, runs, quick={bad: 3})
    rep = Reproduction("x-1", "x", "t", "exact", lambda runner, runs, out: None, runs, quick={"runs": 3})
    assert resolve_options(rep, {}, quick=True)["runs"] == 3
    assert resolve_options(rep, {"runs": 7}, quick=True)["runs"] == 7  # a value given wins
    assert resolve_options(rep, {}, quick=False)["runs"] == 10
    bare = Reproduction("x-1", "x", "t", "exact", lambda runner, runs, out: None, runs)  # a plugin without one
    assert resolve_options(bare, {}, quick=True)["runs"] == 10
    with pytest.raises(ValueError, match="may not be named 'all'"):
        Reproduction("all", "x", "t", "exact", lambda runner: None)


def test_every_built_in_reproduction_declares_a_quick_form_smaller_than_its_full_one():
    from sudoku_lab.reproductions import reproductions

    for name, rep in reproductions().items():
        if rep.run.__module__.startswith("sudoku_lab."):
            assert rep.quick, name
            full, quick = resolve_options(rep, {}), resolve_options(rep, {}, quick=True)
            assert quick != full or name == "reseda-fig4-2", name  # Figure 4.2's grades need its 100 runs
            assert all(quick[k] <= full[k] for k in rep.quick if full[k]), name


# ------------------------------------------------------------------ reproduce all
def test_reproduce_all_writes_one_report_with_its_figure_and_resumes(toy, runs, tmp_path, capsys):
    out = tmp_path / "suite"
    args = ["reproduce", "all", "--quick", "--jobs", "1", "--out-dir", str(out), "--quiet"]
    assert main(args) == 0
    assert runs[0] == 3 + 2  # the quick forms
    text = (out / "report.md").read_text()
    assert text.startswith("# Paper vs ours: every reproduction, quick form\n")
    assert "Command: `sudoku-lab reproduce all --quick --jobs 2" not in text  # the command as given
    assert re.search(
        r"\| \[toy-table\]\(#toy-table\) \| Toy table: the exact solver \| runs 3 \(6\) \| 1 \| 1 \| 0 "
        r"\| 3 \| \d+ s \|",
        text,
    )
    assert re.search(
        r"\| \[toy-figure\]\(#toy-figure\) \| Toy figure: solved runs drawn \| runs 2 \(4\) \| - \| - "
        r"\| - \| 2 \| \d+ s \|",
        text,
    )
    assert "| **all** | 2 of 2 experiments | | **1** | **1** | **0** | 5 |" in text
    assert "- **toy**: A. Author, A toy paper, Journal of Tests 1, 2024. Published numbers: Tables 1 and 2." in text
    assert (
        "## toy-table" in text
        and "### Toy Table 1 reproduced" in text
        and "Alone: `sudoku-lab reproduce toy-table --quick`" in text
    )
    assert "**Paper vs ours: 1 consistent, 1 ours higher.**" in text
    assert "**Paper vs ours: no success count to test (compare the rows).**" in text
    assert "![toy-figure: the toy figure](figures/toy-figure.png)" in text
    assert (out / "figures" / "toy-figure.png").stat().st_size > 1000
    assert (out / "quick" / "toy-table" / "runs.parquet").exists()
    printed, said = capsys.readouterr()
    assert "| **all** | 2 of 2 experiments |" in printed  # the summary, printed too: only it, to be piped
    assert "report written to" not in printed and f"report written to {out / 'report.md'}" in said

    assert main(args) == 0  # again: every run comes back from the results directories
    assert runs[0] == 5
    again = (out / "report.md").read_text()
    assert _tables(again) == _tables(text) and "3 runs (0 run by this command)" in again


def test_reproduce_all_stopped_keeps_what_finished_and_the_same_command_goes_on(toy, runs, tmp_path):
    out = tmp_path / "suite"
    table_done = []

    def progress(label, prog):  # Ctrl-C just after the toy table's last run
        if label == "toy" and prog.done == prog.total:
            table_done.append(True)

    suite = run_all(out, mode="full", jobs=1, should_stop=lambda: bool(table_done), progress=progress)
    assert suite.interrupted and suite.not_run == ["toy-figure"] and runs[0] == 6
    text = (out / "report.md").read_text()
    assert "| toy-figure | Toy figure: solved runs drawn | runs 4 | | | | | not run (stopped) |" in text
    assert "stopped early: 1 of 2 experiments ran" in text and "![toy-figure" not in text
    suite = run_all(out, mode="full", jobs=1)
    assert not suite.interrupted and runs[0] == 6 + 4
    assert (out / "full" / "toy-figure" / "runs.jsonl").read_text().count("\n") == 4
    # Another seed is another experiment: refused before anything runs.
    with pytest.raises(
        DataFileError,
        match=r"full/toy-table holds the results of a different experiment "
        r"\(differs in: seed\)",
    ):
        run_all(out, mode="full", jobs=1, seed=3)
    assert runs[0] == 10


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["all"], "`reproduce all` needs --quick (every experiment's reduced form: minutes) or --full"),
        (
            ["all", "--quick", "--runs", "3"],
            "--runs applies to one experiment (`sudoku-lab reproduce NAME --runs ...`)",
        ),
        (["all", "--full", "--param", "alpha=0.5"], "--param applies to one experiment"),
        (["all", "--quick", "--results", "x"], "--results applies to one experiment"),
        (["all", "--quick", "--jobs", "2", "--scheduler", "local:1"], "--jobs and --scheduler: choose"),
        (["all", "--quick", "--scheduler", "local:x"], "local:N needs a number of workers"),
        (["all", "--quick", "--only", "nope"], "argument --only: invalid choice: 'nope'"),
        (["reseda-table1", "--only", "reseda-table2"], "--only applies to `reproduce all` only"),
        (["reseda-table1", "--out-dir", "x"], "--out-dir applies to `reproduce all` only"),
        (["reseda-table1", "--quick", "--full"], "argument --full: not allowed with argument --quick"),
    ],
)
def test_mistakes_with_reproduce_all_are_one_line(args, fragment, capsys):
    try:
        status = main(["reproduce", *args])
    except SystemExit as e:  # argparse's own usage errors
        status = e.code
    assert status == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert fragment in err[-1], err


# ------------------------------------------------------------------ where the runs go
def test_one_pool_serves_every_task_list_and_gives_the_serial_results(toy):
    from sudoku_lab.engine.experiments import Workers

    serial = run_experiment("toy-table", runs=4).rows
    with Workers(2) as workers:
        from sudoku_lab.reproductions import Runner

        runner = Runner(params={}, workers=workers)
        pz = library.puzzle("reseda_fig3_1_easy")
        first = runner.run(runner.repeat("exact", {}, pz, "solved,1000it", 3), "a")
        pool = workers._pool
        second = runner.run(runner.repeat("exact", {}, pz, "solved,1000it", 3), "b")
        assert pool is not None and workers._pool is pool  # the same worker processes
        third = runner.run(runner.repeat("hill_climb", {}, pz, "solved,100000it", 2), "c")  # another solver:
        assert workers._pool is not pool and workers._solvers == ("exact", "hill_climb")  # warmed with both
        assert all(r.solved for r in third)
    assert [r.seed for r in first] == [r.seed for r in second] == [0, 1, 2] and all(r.solved for r in first)
    assert run_experiment("toy-table", runs=4, jobs=2).rows == serial


def test_one_dask_client_serves_every_task_list_and_gives_the_serial_results(toy):
    from sudoku_lab.engine.experiments import Workers
    from sudoku_lab.reproductions import Runner

    pz = library.puzzle("reseda_fig3_1_easy")
    serial = Runner()
    expected = [
        (r.seed, r.solved, r.iterations) for r in serial.run(serial.repeat("exact", {}, pz, "solved,1000it", 3), "a")
    ]
    with Workers(scheduler="local:1") as workers:
        runner = Runner(workers=workers)
        first = runner.run(runner.repeat("exact", {}, pz, "solved,1000it", 3), "a")
        client = workers._client
        second = runner.run(runner.repeat("exact", {}, pz, "solved,1000it", 3, start=3), "b")
        assert client is not None and workers._client is client  # one cluster for both lists
        assert workers.describe() == "local:1"
    assert workers._client is None  # closed with the context
    assert [(r.seed, r.solved, r.iterations) for r in first] == expected
    assert [r.seed for r in second] == [3, 4, 5] and all(r.solved for r in second)
