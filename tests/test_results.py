"""Results directories: one row per run, resumed exactly, never mixed, read by pandas, polars and DuckDB."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sudoku_lab.engine.experiments import RunResult, Task, run_batch
from sudoku_lab.engine.results import (
    COLUMNS,
    FORMAT,
    JOURNAL,
    PROVENANCE,
    TABLE,
    ResultStore,
    fingerprint,
    grid_text,
    load_results,
    task_row,
)
from sudoku_lab.errors import DataFileError
from sudoku_lab.model import library

SPEC = {"kind": "test", "runs": 3}


def _task(i: int, seed: int | None = None, **params) -> Task:
    pz = library.puzzle("reseda_fig3_1_easy")
    return Task(
        "reseda",
        {"restart": "none", **params},
        pz,
        i if seed is None else seed,
        "solved,50it",
        key=f"t{i}",
        config="reseda",
        puzzle_set="easy",
        run=i,
    )


def _result(task: Task, solved=True, seconds=0.5) -> RunResult:
    grid = np.array(task.puzzle.solution if solved else task.puzzle.grid, dtype=np.int8)
    return RunResult(
        task.key,
        task.solver,
        task.puzzle.name,
        task.seed,
        solved,
        "solved" if solved else "running",
        "solved" if solved else "max_iterations",
        7,
        700,
        seconds,
        0 if solved else 5,
        0 if solved else 3,
        grid,
        {"restarts": 2},
        restarts=2,
        host="h",
        finished=1.7e9,
    )


def _add(store, i, **kw):
    t = _task(i)
    store.add(task_row(t, _result(t, **kw)))
    return t


def test_rows_round_trip_with_their_types(tmp_path):
    with ResultStore(tmp_path / "r", SPEC) as store:
        t0 = _add(store, 0)
        _add(store, 1, solved=False, seconds=1.25)
    res = load_results(tmp_path / "r")
    assert res.table.schema.names == [name for name, _, _ in COLUMNS]
    rows = res.rows()
    assert [r["task"] for r in rows] == ["t0", "t1"]
    assert [r["solved"] for r in rows] == [True, False]
    assert rows[1]["seconds"] == 1.25 and rows[0]["restarts"] == 2 and rows[0]["box"] == 3
    assert rows[0]["grid"] == grid_text(t0.puzzle.solution) and rows[1]["grid"] == t0.puzzle.to_line()
    assert json.loads(rows[0]["params"])["alpha"] == 0.7  # every parameter, defaults included
    assert rows[0]["fingerprint"] == fingerprint("reseda", t0.full_params(), t0.puzzle.to_line(), 0, "solved,50it")
    back = RunResult.from_row(rows[1])
    assert back.seed == 1 and not back.solved and back.best_cost == 3 and np.array_equal(back.grid, t0.puzzle.grid)
    prov = json.loads((tmp_path / "r" / PROVENANCE).read_text())
    assert prov["format"] == FORMAT and prov["spec"] == SPEC and prov["rows"] == 2
    assert prov["sessions"][-1]["rows_added"] == 2 and prov["sessions"][-1]["ended"]
    assert {"sudoku_lab", "numpy", "numba", "python"} <= set(prov["sessions"][-1]["writer"])
    assert {"hostname", "cpus", "platform"} <= set(prov["machine"])


def test_pandas_polars_and_duckdb_read_the_table_directly(tmp_path):
    import duckdb
    import pandas as pd
    import polars as pl

    with ResultStore(tmp_path / "r", SPEC) as store:
        for i in range(4):
            _add(store, i, solved=i % 2 == 0, seconds=0.25 * (i + 1))
    path = tmp_path / "r" / TABLE
    df = pd.read_parquet(path)
    assert len(df) == 4 and df["solved"].dtype == bool and df["seed"].dtype == np.int64
    assert df.groupby("config")["solved"].mean()["reseda"] == 0.5
    assert pl.read_parquet(path)["seconds"].sum() == pytest.approx(2.5)
    (got,) = duckdb.sql(f"SELECT count(*), sum(seconds) FROM '{path}' WHERE solved").fetchall()
    assert got[0] == 2 and got[1] == pytest.approx(0.25 + 0.75)
    # The journal is JSON lines, read the same way while a batch still runs.
    assert len(pd.read_json(tmp_path / "r" / JOURNAL, lines=True)) == 4


def test_reopening_resumes_and_runs_only_the_missing_tasks(tmp_path, warm_kernels):
    tasks = [_task(i) for i in range(4)]
    with ResultStore(tmp_path / "r", SPEC) as store:
        first = run_batch(tasks[:2], store)
    with ResultStore(tmp_path / "r", SPEC) as store:
        assert set(store.keys()) == {"t0", "t1"}
        ran = []
        again = run_batch(tasks, store, progress=lambda p: ran.append(p.new))
    assert ran[-1] == 2  # only t2 and t3 ran
    for a, b in zip(first, again[:2]):  # the stored runs come back as they were
        assert (a.key, a.solved, a.iterations, a.seed) == (b.key, b.solved, b.iterations, b.seed)
        assert np.array_equal(a.grid, b.grid)
    assert [r["task"] for r in load_results(tmp_path / "r").rows()] == ["t0", "t1", "t2", "t3"]
    assert len(json.loads((tmp_path / "r" / PROVENANCE).read_text())["sessions"]) == 2


def test_a_different_experiment_is_refused_naming_what_differs(tmp_path, warm_kernels):
    with ResultStore(tmp_path / "r", SPEC) as store:  # a directory holding no run takes any experiment
        run_batch([_task(0)], store)
    with pytest.raises(DataFileError, match=r"different experiment \(differs in: runs\)"):
        ResultStore(tmp_path / "r", {**SPEC, "runs": 4})
    with pytest.raises(DataFileError, match="written by `batch`, not `grades`"):
        ResultStore(tmp_path / "r", SPEC, kind="grades")


def test_a_task_run_with_other_settings_is_refused(tmp_path, warm_kernels):
    with ResultStore(tmp_path / "r", SPEC) as store:
        run_batch([_task(0)], store)
    with ResultStore(tmp_path / "r", SPEC) as store, pytest.raises(DataFileError, match="task 't0' was run with other"):
        run_batch([_task(0, alpha=0.9)], store)  # same key, another parameter


def test_a_newer_writer_is_refused(tmp_path):
    ResultStore(tmp_path / "r", SPEC).close()
    prov_path = tmp_path / "r" / PROVENANCE
    prov = json.loads(prov_path.read_text())
    prov["format"] = FORMAT + 1
    prov_path.write_text(json.dumps(prov))
    with pytest.raises(DataFileError, match=f"results format {FORMAT + 1} .* newer than this"):
        ResultStore(tmp_path / "r", SPEC)
    with pytest.raises(DataFileError, match="newer than this"):
        load_results(tmp_path / "r")
    prov["format"] = FORMAT
    prov["sessions"][-1]["writer"]["sudoku_lab"] = "99.0.0"
    prov_path.write_text(json.dumps(prov))
    with pytest.raises(DataFileError, match="written by sudoku-lab 99.0.0, newer than this"):
        ResultStore(tmp_path / "r", SPEC)


@pytest.mark.parametrize(
    "value,said",
    [
        ("1", "format must be an integer, got the text '1'"),
        (1.0, "format must be an integer, got the number 1.0"),
        (True, "format must be an integer, got true"),
        (None, "format must be an integer, got null"),
        (0, "format must be 1 or more, got 0"),
        (..., "it has no format (an integer)"),
    ],
)
def test_a_malformed_format_is_said_as_such_not_as_a_newer_version(tmp_path, value, said):
    """The text "1" was refused as "format 1 ... newer than this (format 1)" on append, and read without a word."""
    ResultStore(tmp_path / "r", SPEC).close()
    prov_path = tmp_path / "r" / PROVENANCE
    prov = json.loads(prov_path.read_text())
    if value is ...:
        del prov["format"]
    else:
        prov["format"] = value
    prov_path.write_text(json.dumps(prov))
    for open_it in (lambda: ResultStore(tmp_path / "r", SPEC), lambda: load_results(tmp_path / "r")):
        with pytest.raises(DataFileError) as info:
            open_it()
        assert str(info.value) == f"{prov_path}: malformed results sidecar: {said}"


def test_a_partial_last_record_is_dropped_with_a_note(tmp_path):
    with ResultStore(tmp_path / "r", SPEC) as store:
        _add(store, 0)
        _add(store, 1)
    journal = tmp_path / "r" / JOURNAL
    data = journal.read_bytes()
    journal.write_bytes(data[: data.rfind(b"\n", 0, len(data) - 1) + 40])  # t1 cut off mid-write
    notes = []
    with ResultStore(tmp_path / "r", SPEC, note=notes.append) as store:
        assert set(store.keys()) == {"t0"}
        _add(store, 1)
    assert "dropped a partial last record" in notes[0]
    assert [r["task"] for r in load_results(tmp_path / "r").rows()] == ["t0", "t1"]


def test_a_corrupt_record_in_the_middle_names_its_line(tmp_path):
    with ResultStore(tmp_path / "r", SPEC) as store:
        for i in range(3):
            _add(store, i)
    journal = tmp_path / "r" / JOURNAL
    lines = journal.read_text().splitlines(keepends=True)
    lines[1] = lines[1][:30] + "}\n"
    journal.write_text("".join(lines))
    with pytest.raises(DataFileError, match=r"runs.jsonl line 2: corrupt run record"):
        ResultStore(tmp_path / "r", SPEC)
    lines[1] = json.dumps({"task": "x"}) + "\n"
    journal.write_text("".join(lines))
    (tmp_path / "r" / TABLE).unlink()  # else the table, as long as the journal, is what is read
    with pytest.raises(DataFileError, match=r"line 2: corrupt run record \(missing best_cost, box"):
        load_results(tmp_path / "r")


def test_a_run_recorded_twice_is_refused(tmp_path):
    with ResultStore(tmp_path / "r", SPEC) as store:
        _add(store, 0)
        with pytest.raises(ValueError, match="already in"):
            _add(store, 0)
    journal = tmp_path / "r" / JOURNAL
    journal.write_text(journal.read_text() * 2)
    with pytest.raises(DataFileError, match="line 2: task 't0' is recorded twice"):
        ResultStore(tmp_path / "r", SPEC)


def test_a_killed_writer_leaves_a_journal_the_reader_and_the_next_writer_use(tmp_path):
    store = ResultStore(tmp_path / "r", SPEC)
    _add(store, 0)
    store.close()
    store = ResultStore(tmp_path / "r", SPEC)
    _add(store, 1)
    _add(store, 2)
    store._release()  # as if killed: the table still holds only t0
    res = load_results(tmp_path / "r")
    assert len(res) == 3 and "2 runs are in runs.jsonl but not yet in runs.parquet" in res.notes[0]
    ResultStore(tmp_path / "r", SPEC).close()  # opening rebuilds the table
    res = load_results(tmp_path / "r" / TABLE)
    assert len(res) == 3 and not res.notes


def test_a_second_writer_is_refused_while_the_first_holds_the_directory(tmp_path):
    with ResultStore(tmp_path / "r", SPEC):
        with pytest.raises(DataFileError, match="in use by another sudoku-lab process"):
            ResultStore(tmp_path / "r", SPEC)


def test_paths_that_are_not_results_get_one_clear_error(tmp_path):
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(DataFileError, match="is a file; results go to a directory"):
        ResultStore(tmp_path / "f.txt", SPEC)
    with pytest.raises(DataFileError, match="do not exist"):
        load_results(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataFileError, match="not a results directory"):
        load_results(tmp_path / "empty")
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / JOURNAL).write_text('{"a": 1}\n')
    with pytest.raises(DataFileError, match="holds runs but no provenance.json"):
        ResultStore(tmp_path / "foreign", SPEC)
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(DataFileError, match="cannot be read as a Parquet table"):
        load_results(tmp_path / "bad.parquet")


def test_a_directory_that_cannot_be_made_is_reported_before_any_run(tmp_path):
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(DataFileError, match=r"cannot create results directory .*f.txt/r: not a directory"):
        ResultStore(tmp_path / "f.txt" / "r", SPEC)


def test_legacy_results_files_of_grades_and_compare_read_as_tables(repo_root):
    res = load_results(repo_root / "docs" / "figure_4_2_cuckoo_mk_medium_a.runs.jsonl")
    assert len(res) == 100 and "0.1.0 `grades`" in res.notes[0]
    rows = res.rows()
    assert {r["solver"] for r in rows} == {"cuckoo"} and sorted(r["seed"] for r in rows) == list(range(100))
    assert sum(r["solved"] for r in rows) == 15  # the README's 15/100
    assert {r["givens"] for r in rows} == {library.puzzle("mk_medium_a").to_line()}
