"""An experiment that grows (more runs, a larger sample, another puzzle set) adds only its new runs to its results
directory, in `batch`, `compare` and `reproduce` alike; asking for less reads a part; anything else is refused.

Issue 17 item 4: raising `runs` or `sample` in a specification was refused as "a different experiment", and
`batch --dry-run` announced every run and exited 0 all the same.
"""

from __future__ import annotations

import json

import pytest

from sudoku_lab import cli
from sudoku_lab.engine import compare as cmp
from sudoku_lab.engine.batch import plan, run_spec
from sudoku_lab.engine.results import PROVENANCE, ResultStore, load_results
from sudoku_lab.engine.spec import parse_spec
from sudoku_lab.errors import DataFileError
from sudoku_lab.model import library

pytestmark = pytest.mark.usefixtures("warm_kernels")

SPEC = """\
name = "grow"
runs = 1
seed = 5
until = "solved,2000it"

[[puzzles]]
set = "kennett/easy"
sample = 2
label = "easy"

[[solvers]]
name = "exact"

[[solvers]]
name = "hill_climb"
"""

GROWN = SPEC.replace("runs = 1", "runs = 2").replace("sample = 2", "sample = 3") + (
    '\n[[puzzles]]\nset = "reseda_fig3_1_easy"\nlabel = "paper"\n'
)


def _rows(path) -> dict:
    return {r["task"]: r for r in load_results(path).rows()}


def test_a_batch_grown_in_runs_sample_and_sets_runs_only_the_new_runs(tmp_path, runs):
    small, grown = parse_spec(SPEC), parse_spec(GROWN)
    out = tmp_path / "r"
    first = run_spec(small, out)
    assert (first.done, first.new, runs[0]) == (4, 4, 4)
    before = _rows(out)
    notes = []
    second = run_spec(grown, out, note=notes.append)
    assert grown.total == 2 * 2 * (3 + 1) == 16
    assert (second.total, second.done, second.new, runs[0]) == (16, 16, 12, 16)
    assert notes == [
        f"{out} grows (puzzle set 'easy' 2 -> 3 puzzles; a new puzzle set 'paper' (1 puzzle); runs 1 -> 2):"
        " the runs it holds are kept, only the new ones run"
    ]
    after = _rows(out)
    tasks = {t.key: t for t in grown.tasks()}
    assert sorted(after) == sorted(tasks)  # one row per task of the grown experiment
    for key, row in before.items():  # the runs already there: the same rows, not run again, the same seeds
        assert after[key] == row
        assert (row["seed"], row["givens"]) == (tasks[key].seed, tasks[key].puzzle.to_line())
    for key, row in after.items():
        assert (row["seed"], row["givens"], row["run"]) == (
            tasks[key].seed,
            tasks[key].puzzle.to_line(),
            tasks[key].run,
        )
    prov = json.loads((out / PROVENANCE).read_text())
    assert prov["spec"] == grown.canonical() and prov["rows"] == 16  # the experiment as it is now
    assert [s["rows_added"] for s in prov["sessions"]] == [4, 12]
    assert prov["sessions"][1]["grew"] == [
        "puzzle set 'easy' 2 -> 3 puzzles",
        "a new puzzle set 'paper' (1 puzzle)",
        "runs 1 -> 2",
    ]
    assert [s["spec_text"] for s in prov["sessions"]] == [SPEC, GROWN]


def test_asking_for_less_reads_a_part_and_deletes_nothing(tmp_path, runs):
    out = tmp_path / "r"
    run_spec(parse_spec(GROWN), out)
    held, ran = _rows(out), runs[0]
    notes = []
    part = run_spec(parse_spec(SPEC), out, note=notes.append)  # fewer runs, a smaller sample, one set left out
    assert (part.total, part.done, part.new, runs[0]) == (4, 4, 0, ran)
    assert part.solved == sum(held[t.key]["solved"] for t in parse_spec(SPEC).tasks())
    assert _rows(out) == held
    assert notes == [
        f"{out} holds more than this asks for (puzzle set 'easy' 3 -> 2 puzzles; puzzle set 'paper' left "
        "out; runs 2 -> 1): the runs asked for are read, nothing is deleted"
    ]
    prov = json.loads((out / PROVENANCE).read_text())
    assert prov["spec"] == parse_spec(GROWN).canonical()  # the directory still holds the larger experiment
    assert prov["sessions"][-1]["read_part"] == [
        "puzzle set 'easy' 3 -> 2 puzzles",
        "puzzle set 'paper' left out",
        "runs 2 -> 1",
    ]
    assert prov["sessions"][-1]["rows_added"] == 0


@pytest.mark.parametrize(
    "change, message",
    [
        (
            ("seed = 5", "seed = 6"),
            "differs in: puzzle_sets, seed): it holds puzzle set 'easy' with 2 puzzles, seed 5, "
            "this asks for other puzzles in it (its 2 are not the first 2 this one gives), seed 6",
        ),
        (
            ("sample = 2", "first = 2"),
            "differs in: puzzle_sets): it holds puzzle set 'easy' with 2 puzzles, this asks for other puzzles in it",
        ),
        (
            ('set = "kennett/easy"', 'set = "kennett/hard"'),
            "differs in: puzzle_sets): it holds puzzle set 'easy' with "
            'source "kennett/easy", this asks for source "kennett/hard"',
        ),
        (
            ("solved,2000it", "solved,3000it"),
            'differs in: until): it holds until "solved,2000it", this asks for until "solved,3000it"',
        ),
        # the parameter that differs, not the first 40 characters of two lists of configurations
        (
            ('name = "hill_climb"', 'name = "hill_climb"\nparams = { plateau = 3 }'),
            'differs in: configs): it holds configs[1].label "hill_climb", configs[1].params.plateau 10, this asks for '
            'configs[1].label "hill_climb:plateau=3", configs[1].params.plateau 3;',
        ),
        (
            ('[[solvers]]\nname = "exact"\n\n', ""),  # a configuration left out
            'differs in: configs): it holds configs labelled ["exact", "hill_climb"], this asks for configs labelled '
            '["hill_climb"];',
        ),
        (
            ("seed = 5", 'seed = 5\nseeding = "sequential"'),
            'differs in: seeding): it holds seeding "spawn", this asks for seeding "sequential"',
        ),
        # growing one thing does not excuse changing another
        (("runs = 1\nseed = 5", "runs = 3\nseed = 6"), "differs in: puzzle_sets, seed)"),
    ],
)
def test_anything_but_a_size_is_another_experiment_refused_before_any_run(tmp_path, runs, change, message):
    out = tmp_path / "r"
    run_spec(parse_spec(SPEC), out)
    journal = (out / "runs.jsonl").read_bytes()
    other = parse_spec(SPEC.replace(*change))
    with pytest.raises(DataFileError, match="different experiment") as planned:
        plan(other, out)
    with pytest.raises(DataFileError) as real:
        run_spec(other, out)
    assert str(planned.value) == str(real.value)  # --dry-run refuses with the very message of the run
    assert f"{out} holds the results of a different experiment ({message}" in str(real.value)
    assert runs[0] == 4 and (out / "runs.jsonl").read_bytes() == journal


def test_dry_run_says_what_the_run_would_do_and_refuses_what_it_would_refuse(tmp_path, capsys, runs):
    small, out = tmp_path / "small.toml", tmp_path / "r"
    small.write_text(SPEC)
    (tmp_path / "grown.toml").write_text(GROWN)
    (tmp_path / "other.toml").write_text(SPEC.replace("seed = 5", "seed = 6"))
    assert cli.main(["batch", str(small), "--out", str(out), "--dry-run"]) == 0
    assert (
        capsys.readouterr().out.splitlines()[-1]
        == f"results would go to {out} (no results there yet): would run all 4 runs"
    )
    assert not out.exists()
    assert cli.main(["batch", str(small), "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    capsys.readouterr()
    assert cli.main(["batch", str(tmp_path / "grown.toml"), "--out", str(out), "--dry-run"]) == 0
    said = capsys.readouterr().out.splitlines()
    assert said[0] == (
        "grow: 2 configuration(s) x 4 puzzle(s) x 2 run(s) = 16 runs; seeds spawn from 5; budget solved,2000it"
    )
    assert said[-2:] == [
        f"{out} holds this experiment before it grows (puzzle set 'easy' 2 -> 3 puzzles; a new puzzle set 'paper' (1 "
        "puzzle); runs 1 -> 2): the runs it holds are kept, with their seeds",
        f"results would go to {out}, which holds 4 of these 16 runs: would run the 12 missing",
    ]
    assert cli.main(["batch", str(small), "--out", str(out), "--dry-run"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"results would go to {out}, which holds 4 of these 4 runs: would run nothing"
    )
    assert cli.main(["batch", str(tmp_path / "other.toml"), "--out", str(out), "--dry-run"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith(
        f"sudoku-lab: error: {out} holds the results of a different experiment (differs in: puzzle_sets, seed)"
    )
    assert runs[0] == 4  # the dry runs ran nothing


def test_a_directory_sampled_by_0_1_0_is_refused_saying_why(tmp_path):
    """0.1.0 drew a sample with numpy's choice, sorted: not the head of the shuffle a sample is now."""
    from sudoku_lab.engine.spec import _digest

    spec = parse_spec(SPEC)
    run_spec(spec, tmp_path / "r")
    prov_path = tmp_path / "r" / PROVENANCE
    prov = json.loads(prov_path.read_text())  # as 0.1.0 wrote it: the digest of its own sample
    prov["spec"]["puzzle_sets"][0]["digest"] = _digest(spec.puzzle_sets[0].legacy(2))
    assert prov["spec"]["puzzle_sets"][0]["digest"] != spec.canonical()["puzzle_sets"][0]["digest"]
    prov_path.write_text(json.dumps(prov))
    with pytest.raises(
        DataFileError,
        match=r"differs in: puzzle_sets\): it holds puzzle set 'easy' with 2 puzzles, "
        r"this asks for other puzzles in it \(its 2 are not the first 2 this one "
        r"gives; its sample was drawn by sudoku-lab 0.1.0, whose samples could "
        r"not grow",
    ):
        run_spec(parse_spec(SPEC), tmp_path / "r")


def test_a_comparison_grows_in_runs_and_sample_and_reads_a_part(tmp_path, runs):
    configs = [cmp.parse_config("exact"), cmp.parse_config("hill_climb")]
    puzzles = list(library.collection("kennett/easy"))[:6]
    out = tmp_path / "cmp"
    first = cmp.compare(configs, puzzles, runs=2, sample=2, seed=3, until="solved,2000it", results_file=out)
    assert len(first) == runs[0] == 8
    before = {r["task"]: r for r in first.rows()}
    grown = cmp.compare(configs, puzzles, runs=3, sample=4, seed=3, until="solved,2000it", results_file=out)
    assert len(grown) == 2 * 4 * 3 and runs[0] == 8 + 16
    after = {r["task"]: r for r in grown.rows()}
    assert all(after[k] == r for k, r in before.items())
    assert {r["seed"] for r in after.values()} == {3, 4, 5}  # run i has seed + i, whichever session ran it
    part = cmp.compare(configs, puzzles, runs=1, sample=2, seed=3, until="solved,2000it", results_file=out)
    assert runs[0] == 24 and len(load_results(out)) == 24  # nothing ran, nothing was deleted
    assert sorted(r["task"] for r in part.rows()) == sorted(k for k, r in before.items() if r["run"] == 0)
    assert (
        part.provenance["spec"]["runs"] == 1 and "this report is of the runs this comparison asks for" in part.notes[-1]
    )
    with pytest.raises(DataFileError, match=r"differs in: until\)"):
        cmp.compare(configs, puzzles, runs=3, sample=4, seed=3, until="solved,10s", results_file=out)


def test_a_reproduction_grows_in_the_sizes_it_declares(tmp_path, runs, own_reproductions, capsys):
    from sudoku_lab.reproductions import Option, Paper, Report, register_paper, register_reproduction
    from sudoku_lab.reproductions.runner import run_experiment

    register_paper(Paper("toy", "A. Author, A toy paper, 2024", "Table 1"))

    @register_reproduction(
        "toy-grow",
        paper="toy",
        title="Toy: exact runs",
        solver="exact",
        options={
            "runs": Option(3, "runs", low=1, high=50, grows=True),
            "budget": Option(1000, "iterations", low=1, high=10**6),
        },
    )
    def toy(runner, runs, budget):
        pz = library.puzzle("reseda_fig3_1_easy")
        res = runner.run(runner.repeat("exact", runner.p(), pz, f"solved,{budget}it", runs), "toy")
        rep = Report("toy", ["runs", "seeds"])
        rep.rows.append([len(res), ",".join(str(r.seed) for r in res)])
        return rep

    out = tmp_path / "r"
    assert run_experiment("toy-grow", runs=2, seed=7, results=out).rows == [[2, "7,8"]]
    assert run_experiment("toy-grow", runs=4, seed=7, results=out).rows == [[4, "7,8,9,10"]] and runs[0] == 4
    assert run_experiment("toy-grow", runs=1, seed=7, results=out).rows == [[1, "7"]] and runs[0] == 4
    prov = json.loads((out / PROVENANCE).read_text())
    assert prov["spec"]["runs"] == 4 and [s.get("grew") for s in prov["sessions"]] == [None, ["runs 2 -> 4"], None]
    # The command checks the directory before any run, with the same rule.
    assert cli.main(["reproduce", "toy-grow", "--runs", "5", "--seed", "7", "--results", str(out), "--quiet"]) == 0
    assert runs[0] == 5 and "| 5 | 7,8,9,10,11 |" in capsys.readouterr().out
    # An option that is not a size (a budget) is another experiment.
    assert (
        cli.main(["reproduce", "toy-grow", "--runs", "5", "--seed", "7", "--results", str(out), "--budget", "2000"])
        == 2
    )
    assert "differs in: budget): it holds budget 1000, this asks for budget 2000" in capsys.readouterr().err
    assert runs[0] == 5


def test_dry_run_refuses_a_directory_in_use_or_not_written_by_sudoku_lab(tmp_path, capsys):
    (tmp_path / "s.toml").write_text(SPEC)
    out = tmp_path / "r"
    spec = parse_spec(SPEC)
    with ResultStore(out, spec.canonical(), kind="batch", growth=spec.growth()):  # a batch writing it now
        assert cli.main(["batch", str(tmp_path / "s.toml"), "--out", str(out), "--dry-run"]) == 2
    assert capsys.readouterr().err == (
        f"sudoku-lab: error: {out} is in use by another sudoku-lab process writing the "
        "same results; wait for it to finish, or choose another output\n"
    )
    assert cli.main(["batch", str(tmp_path / "s.toml"), "--out", str(out), "--dry-run"]) == 0
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "runs.parquet").write_bytes(b"PAR1")
    assert cli.main(["batch", str(tmp_path / "s.toml"), "--out", str(foreign), "--dry-run"]) == 2
    assert f"{foreign} holds runs but no provenance.json" in capsys.readouterr().err


def test_a_directory_left_without_a_run_takes_any_experiment(tmp_path, capsys):
    """A batch pointed at a scheduler that was not there left a sidecar and an empty journal; the next batch,
    with the address fixed and anything else changed, was refused as "a different experiment" of zero runs."""
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "r"
    argv = ["batch", "--algo", "exact", "--puzzles", "reseda_fig3_1_easy", "--runs", "1", "--out", str(out), "--quiet"]
    assert cli.main([*argv, "--scheduler", f"tcp://127.0.0.1:{port}"]) == 2
    assert "nothing listens at" in capsys.readouterr().err
    assert (out / PROVENANCE).exists() and len(load_results(out)) == 0
    other = [*argv[:2], "hill_climb", *argv[3:], "--jobs", "1"]
    assert cli.main(other) == 0, capsys.readouterr().err
    assert [r["solver"] for r in load_results(out).rows()] == ["hill_climb"]
    assert json.loads((out / PROVENANCE).read_text())["spec"]["configs"][0]["label"] == "hill_climb"
    # one run held: another experiment is refused again
    assert cli.main([*argv, "--jobs", "1"]) == 2
    assert "holds the results of a different experiment" in capsys.readouterr().err
