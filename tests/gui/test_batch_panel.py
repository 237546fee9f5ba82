"""Run > Batch experiment...: the panel's table is `sudoku-lab report`'s, its saved TOML runs headless to the same
rows, Cancel leaves a directory that reopens and resumes, and a broken file is one line."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt

from sudoku_lab.analysis.report import build_report, summary_cells
from sudoku_lab.cli import main as cli_main
from sudoku_lab.engine.batch import run_spec
from sudoku_lab.engine.results import load_results
from sudoku_lab.engine.spec import load_spec

#: The report's columns that hold no time: equal for the same seeds on any machine.
UNTIMED = slice(0, 6)


@pytest.fixture
def panel(qtbot):
    from sudoku_lab_ui.batch_panel import BatchPanel

    p = BatchPanel()
    qtbot.addWidget(p)
    p.show()
    yield p
    p.shutdown()


def fill(qtbot, panel, out, *, runs=3, iterations=300, params="alpha=[0.5,0.7]", puzzles=("reseda_fig3_1_easy",)):
    """Describe the experiment by typing into the form's widgets: reseda x two alphas x puzzles x runs."""
    name = panel.name_edit
    name.clear()
    qtbot.keyClicks(name, "panel-test")
    row = panel.solver_rows[0]
    row.combo.setCurrentText("reseda")
    row.params.clear()
    qtbot.keyClicks(row.params, params)
    for k, source in enumerate(puzzles):
        if k >= len(panel.puzzle_rows):
            qtbot.mouseClick(panel.add_puzzles_button, Qt.LeftButton)
        box = panel.puzzle_rows[k].combo
        box.clearEditText()
        qtbot.keyClicks(box, source)
    for box, value in (
        (panel.runs_box, runs),
        (panel.seed_box, 7),
        (panel.iterations_box, iterations),
        (panel.seconds_box, 0),
        (panel.workers_box, 1),
    ):
        box.lineEdit().selectAll()
        qtbot.keyClicks(box, str(value))
        assert box.value() == value
    panel.out_edit.clear()
    qtbot.keyClicks(panel.out_edit, str(out))


def run(qtbot, panel):
    with qtbot.waitSignal(panel.batchFinished) as got:
        qtbot.mouseClick(panel.run_button, Qt.LeftButton)
    return got.args[0]


def report_rows(capsys, out) -> tuple[list[str], list[list[str]]]:
    """Head and cells of `sudoku-lab report OUT` (its summary, as Markdown: one cell between each `|`)."""
    capsys.readouterr()
    assert cli_main(["report", str(out), "--format", "markdown", "--table", "summary"]) == 0
    lines = capsys.readouterr().out.splitlines()
    cells = [[c.strip() for c in line.strip().strip("|").split(" | ")] for line in lines if line.startswith("|")]
    return cells[0], cells[2:]


def test_form_writes_the_specification(qtbot, panel, tmp_path):
    fill(qtbot, panel, tmp_path / "out", puzzles=("reseda_fig3_1_easy", "mk_easy_a"))
    text = panel.toml_edit.toPlainText()
    assert 'name = "panel-test"' in text and "runs = 3" in text and "seed = 7" in text
    assert 'until = "solved,300it"' in text
    assert "params = { alpha = [0.5, 0.7] }" in text
    assert text.count("[[puzzles]]") == 2
    spec = panel.spec()
    assert [c.label for c in spec.configs] == ["reseda:alpha=0.5", "reseda:alpha=0.7"]
    assert spec.total == 2 * 2 * 3
    assert all(c.until is None for c in spec.configs)

    # The text is what runs: a line typed at its end (in the last [[solvers]] table) is a solver's own budget.
    edit = panel.toml_edit
    edit.setFocus()
    qtbot.keyClick(edit, Qt.Key_End, Qt.ControlModifier)
    qtbot.keyClicks(edit, 'until = "solved,100it"')
    assert [c.until for c in panel.spec().configs] == ["solved,100it", "solved,100it"]
    # ... until the form is touched again: the form writes the text anew.
    qtbot.keyClicks(panel.name_edit, "2")
    assert "100it" not in edit.toPlainText() and 'name = "panel-test2"' in edit.toPlainText()


def test_table_equals_report_and_saved_toml_runs_headless(qtbot, panel, tmp_path, capsys):
    out = tmp_path / "panel-results"
    fill(qtbot, panel, out)
    outcome = run(qtbot, panel)
    assert outcome is not None and outcome.done == outcome.total == 6 and not outcome.interrupted
    assert panel.status.text().startswith("Done: 6 of 6 runs")
    assert panel.progress_bar.value() == 6
    assert panel.canvas is not None and panel.canvas.isVisible()  # the ECDF is drawn
    assert panel.report.ecdfs and {e.config for e in panel.report.ecdfs} == {"reseda:alpha=0.5", "reseda:alpha=0.7"}

    head, cells = panel.table_cells()
    want_head, want_cells = report_rows(capsys, out)
    assert [h.replace("\n", " ") for h in head] == want_head
    assert cells == want_cells
    assert len(cells) == 2

    # Save specification... writes the TOML; `sudoku-lab batch FILE --out FRESH` gives the same runs and rows.
    spec_file = tmp_path / "exp.toml"
    assert panel.save_spec(str(spec_file))
    assert spec_file.read_text() == panel.toml_edit.toPlainText()
    fresh = tmp_path / "headless"
    assert cli_main(["batch", str(spec_file), "--out", str(fresh), "--jobs", "1", "--quiet"]) == 0
    _, headless = report_rows(capsys, fresh)
    assert [r[UNTIMED] for r in headless] == [r[UNTIMED] for r in cells]

    def runs_of(d):
        return sorted((r["task"], r["seed"], r["solved"], r["iterations"]) for r in load_results(d).rows())

    assert runs_of(fresh) == runs_of(out)


def test_cancel_keeps_the_runs_and_run_resumes(qtbot, panel, tmp_path, monkeypatch):
    out = tmp_path / "cancelled"
    fill(qtbot, panel, out, runs=8, iterations=1000)
    import sudoku_lab_ui.batch_panel as bp

    # The batch waits after its first run until Cancel has been clicked, so the click always comes mid-batch.
    clicked = threading.Event()

    def held_back(*args, progress, **kwargs):
        def wait_for_cancel(p):
            progress(p)
            if p.new == 1:
                assert clicked.wait(timeout=120)

        return run_spec(*args, progress=wait_for_cancel, **kwargs)

    monkeypatch.setattr(bp, "run_spec", held_back)

    def on_progress(p):
        if p.new >= 1 and not clicked.is_set():
            qtbot.mouseClick(panel.cancel_button, Qt.LeftButton)
            clicked.set()

    panel._job.progress.connect(on_progress)
    with qtbot.waitSignal(panel.batchFinished) as got:
        qtbot.mouseClick(panel.run_button, Qt.LeftButton)
    outcome = got.args[0]
    panel._job.progress.disconnect(on_progress)
    assert outcome.interrupted and 0 < outcome.done < outcome.total
    assert panel.status.text().startswith(f"Cancelled after {outcome.done:,} of {outcome.total:,} runs")
    held = len(load_results(out))
    assert held == outcome.done

    # A new panel opens the directory (its table and its specification), and Run does only the missing runs.
    from sudoku_lab_ui.batch_panel import BatchPanel

    again = BatchPanel()
    qtbot.addWidget(again)
    again.show()
    try:
        assert again.open_results(str(out))
        assert again.status.text() == (
            f"Opened {out}: {held:,} of {outcome.total:,} runs; Run adds the {outcome.total - held:,} missing"
        )
        assert again.table_cells()[1] == summary_cells(build_report(load_results(out)).summary)[1]
        assert "incomplete" in again.notes.text()
        assert again.toml_edit.toPlainText() == panel.toml_edit.toPlainText()
        # Resumed in two worker processes, the table refreshed after every run (live), then the final report.
        monkeypatch.setattr(bp, "run_spec", run_spec)
        monkeypatch.setattr(bp, "REFRESH_SECONDS", 0.0)
        shown = []
        again.reportShown.connect(lambda rep: shown.append(sum(r.runs for r in rep.summary)))
        again.workers_box.setValue(2)
        resumed = run(qtbot, again)
        assert any(held < n < outcome.total for n in shown) and shown[-1] == outcome.total
        assert resumed.done == resumed.total == outcome.total and resumed.new == outcome.total - held
        rows = load_results(out).rows()
        assert len(rows) == outcome.total and len({r["task"] for r in rows}) == outcome.total
        _, cells = again.table_cells()
        assert [c[2] for c in cells] == [
            f"{r.successes}/{r.runs}" for r in build_report(load_results(out)).summary
        ] and all(c[2].endswith(f"/{outcome.total // 2}") for c in cells)
    finally:
        again.shutdown()


def test_broken_files_are_one_line(qtbot, panel, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(
        'runs = 3\n[[solvers]]\nname = "reseda"\nparams = { alpah = 0.5 }\n[[puzzles]]\nset = "reseda_fig3_1_easy"\n'
    )
    assert not panel.open_spec(str(bad))
    text = panel.status.text()
    assert "\n" not in text and str(bad) in text and "line" in text and "'alpah'" in text
    assert panel.toml_edit.toPlainText() == bad.read_text()  # shown, to be fixed

    broken = tmp_path / "broken.toml"
    broken.write_text("runs = = 3\n")
    assert not panel.open_spec(str(broken))
    assert "\n" not in panel.status.text() and "not valid TOML" in panel.status.text()

    # A results directory whose journal is corrupt in its middle, and a directory that holds no results.
    out = tmp_path / "res"
    spec_file = tmp_path / "ok.toml"
    spec_file.write_text(
        'runs = 2\nuntil = "solved,200it"\n[[puzzles]]\nset = "reseda_fig3_1_easy"\n[[solvers]]\nname = "reseda"\n'
    )
    run_spec(load_spec(spec_file), out, jobs=1)
    journal = out / "runs.jsonl"
    lines = journal.read_text().splitlines()
    journal.write_text(lines[0][:20] + "\n" + "\n".join(lines[1:]) + "\n")
    (out / "runs.parquet").unlink()
    assert not panel.open_results(str(out))
    text = panel.status.text()
    assert text.startswith("Cannot open the results:") and "\n" not in text and "runs.jsonl" in text
    empty = tmp_path / "nothing"
    empty.mkdir()
    assert not panel.open_results(str(empty))
    assert (
        panel.status.text()
        == f"Cannot open the results: {empty} is not a results directory (no runs.parquet or provenance.json)"
    )


def test_run_menu_opens_the_panel(window, qtbot):
    win = window()
    act = win.act_batch
    assert act in win.run_menu.actions() and act.text() == "Batch experiment..."
    act.trigger()
    p = win.batch_panel
    assert p is not None and p.isVisible()
    act.trigger()
    assert win.batch_panel is p  # one panel per window


def test_results_of_flags_reopen_with_their_experiment(qtbot, panel, tmp_path):
    """A batch run from flags kept no TOML: the panel writes one from the directory's record, the same experiment."""
    from sudoku_lab.engine.spec import spec_from_options

    spec = spec_from_options(["reseda:alpha=[0.5,0.7]"], ["reseda_fig3_1_easy"], runs=2, seed=3, until="solved,200it")
    out = tmp_path / "flags"
    run_spec(spec, out, jobs=1)
    assert panel.open_results(str(out))
    assert panel.spec().canonical() == spec.canonical()
    assert panel.status.text() == f"Opened {out}: 4 of 4 runs"


def test_before_run_it_says_what_run_does_and_the_runs_go_to_the_data_folder(qtbot, tmp_path, monkeypatch):
    """Issue 27, item 17: the panel said "0 of 1 runs" before Run, and wrote into the directory it started in."""
    from sudoku_lab_ui.batch_panel import BatchPanel

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    cwd = tmp_path / "started-here"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    home = tmp_path / "data" / "sudoku-lab" / "results"
    p = BatchPanel()
    qtbot.addWidget(p)
    p.show()
    try:
        assert p.progress_bar.text() == "Ready: 10 runs"
        assert p.out_edit.text() == str(home / "experiment-results")
        jobs = p.workers_box.value()
        assert p.status.text() == (
            "Ready: Run does 1 configuration(s) x 1 puzzle(s) x 10 run(s) = 10 runs; seeds spawn from 2026; budget "
            f"solved,10s, on {jobs} worker process{'es' if jobs != 1 else ''}; each finished run is saved in "
            f"{home / 'experiment-results'} (a directory holding this experiment is resumed)"
        )
        for box, value in ((p.runs_box, 2), (p.iterations_box, 300), (p.seconds_box, 0), (p.workers_box, 1)):
            box.setValue(value)
        qtbot.waitUntil(
            lambda: "= 2 runs; seeds spawn from 2026; budget solved,300it, on 1 worker process;" in p.status.text()
        )
        assert p.progress_bar.text() == "Ready: 2 runs"
        outcome = run(qtbot, p)
        assert outcome.done == 2 and len(load_results(home / "experiment-results")) == 2
        assert list(cwd.iterdir()) == []
        assert p.status.text().startswith("Done: 2 of 2 runs") and p.progress_bar.text() == "2 of 2 runs"
        # A broken specification says so before Run; a relative folder typed in is in the data folder.
        p.toml_edit.setPlainText("runs = = 3\n")
        qtbot.waitUntil(lambda: p.status.text().startswith("Not ready: ") and "not valid TOML" in p.status.text())
        assert p.progress_bar.text() == "Not ready"
        p.name_edit.setText("again")
        p._form_changed()
        p.out_edit.clear()
        qtbot.keyClicks(p.out_edit, "mine")
        qtbot.waitUntil(lambda: f"saved in {home / 'mine'} (" in p.status.text())
    finally:
        p.shutdown()
