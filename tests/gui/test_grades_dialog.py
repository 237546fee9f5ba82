"""Run > Correctness grades...: the dialog's grid is `sudoku-lab grades`' grid; Cancel keeps the runs; exports."""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from sudoku_lab import cli
from sudoku_lab.analysis.grades import grades_from_results
from sudoku_lab.engine.results import load_results
from sudoku_lab.model import library
from sudoku_lab_ui.grades_dialog import GradesDialog, grade_letters

#: A small case with every grade in it: hill climbing stopped early on a medium puzzle, B from 80 %.
PUZZLE, ALGO, RUNS, BUDGET, SEED, B = "reseda_fig3_2_medium", "hill_climb", 6, 60, 3, 0.8


def _dialog(qtbot, tmp_path, puzzle=PUZZLE, runs=RUNS, budget=BUDGET, results="d.runs"):
    d = GradesDialog()
    qtbot.addWidget(d)
    d.set_defaults(library.puzzle(puzzle), ALGO, {})
    d.runs_box.setValue(runs)
    d.budget_box.setValue(budget)
    d.seed_box.setValue(SEED)
    d.b_box.setValue(B)
    d.jobs_box.setValue(1)
    d.results_edit.setText(str(tmp_path / results))
    d.show()
    return d


def _run(qtbot, d):
    with qtbot.waitSignal(d.gradesFinished) as got:
        qtbot.mouseClick(d.run_button, Qt.LeftButton)
    return got.args[0]


def _cli_grades(tmp_path, *extra):
    out = tmp_path / "cli" / "g.png"
    argv = ["grades", PUZZLE, "--algo", ALGO, "--runs", str(RUNS), "--seed", str(SEED)]
    argv += ["--until", f"solved,{BUDGET}it", "--thresholds", f"1.0,{B}", "--quiet", "--out", str(out), *extra]
    assert cli.main(argv) == 0
    return json.loads(out.with_suffix(".grades.json").read_text())


def test_the_dialogs_grid_is_the_grid_of_sudoku_lab_grades(qtbot, tmp_path):
    d = _dialog(qtbot, tmp_path)
    d.jobs_box.setValue(2)  # the dialog's runs on two worker processes, the command's in its own process
    result = _run(qtbot, d)
    assert result is d.result and result.complete and d.status.text().startswith("Done: 6 runs")
    ref = _cli_grades(tmp_path)
    assert result.grades.tolist() == ref["grades"]
    assert [round(float(v), 6) for v in result.fraction] == ref["fraction"]
    assert result.seeds == ref["seeds"] == list(range(SEED, SEED + RUNS)) and result.successes == ref["successes"]
    assert {"A", "B", ""} <= set(ref["grades"])  # the case tells the grades apart
    # What is drawn: the letters of the figure shown, and the successes with the interval under it.
    assert grade_letters(d.figure).reshape(-1).tolist() == ref["grades"]
    k = ref["successes"]
    assert f"{k} of 6 runs solved" in d.summary.text() and "95 % interval" in d.summary.text()
    assert d.progress_bar.value() == d.progress_bar.maximum() == 6


def test_the_dialog_opens_on_the_windows_puzzle_and_solver_from_the_run_menu(window, qtbot):
    win = window("reseda_fig3_2_medium", "hill_climb")
    assert win.act_grades in win.run_menu.actions()
    win.act_grades.trigger()
    d = win.grades_dialog
    assert d.isVisible() and d.puzzle_edit.text() == "reseda_fig3_2_medium" and d.solver_name == "hill_climb"
    assert d.puzzle() is win.controller.puzzle


def test_cancel_keeps_the_finished_runs_and_grades_from_and_open_results_show_them(qtbot, tmp_path):
    d = _dialog(qtbot, tmp_path, puzzle="ai_escargot", runs=40, budget=20_000)  # about a second a run
    with qtbot.waitSignal(d.gradesFinished) as got:
        qtbot.mouseClick(d.run_button, Qt.LeftButton)
        # The grid fills as runs finish: it shows the finished runs while the others go on.
        qtbot.waitUntil(lambda: d.result is not None and d.result.runs_done >= 2)
        live = d.result
        assert d.running and np.array_equal(grade_letters(d.figure), live.grade_grid())
        assert f"of {live.runs_done} runs solved" in d.summary.text()
        qtbot.mouseClick(d.cancel_button, Qt.LeftButton)
    cancelled = got.args[0]
    assert 2 <= cancelled.runs_done < 40 and d.status.text().startswith(f"Cancelled after {cancelled.runs_done} of 40")
    where = tmp_path / "d.runs"
    assert len(load_results(where)) == cancelled.runs_done
    # As `grades --from`: the core, and the command line.
    from_core = grades_from_results(where, thresholds=(1.0, B))
    assert from_core.grades.tolist() == cancelled.grades.tolist()
    out = tmp_path / "from.png"
    assert cli.main(["grades", "--from", str(where), "--thresholds", f"1.0,{B}", "--out", str(out)]) == 0
    assert json.loads(out.with_suffix(".grades.json").read_text())["grades"] == cancelled.grades.tolist()
    # A new dialog opens the directory with the same grid.
    other = _dialog(qtbot, tmp_path, results="unused.runs")
    assert other.open_results(where)
    assert other.result.grades.tolist() == cancelled.grades.tolist()
    assert np.array_equal(grade_letters(other.figure), cancelled.grade_grid())
    assert len(other.figure.axes) == 2  # the grid and its colour bar: no paper's grid on another puzzle
    assert str(where) in other.status.text() and not (tmp_path / "unused.runs").exists()


def test_on_the_papers_puzzle_its_grid_is_beside_ours_with_the_differences_counted(qtbot, tmp_path):
    d = _dialog(qtbot, tmp_path, puzzle="reseda_fig4_1_hard", runs=3, budget=200)
    result = _run(qtbot, d)
    paper = library.reseda_fig4_2_grades()
    assert len(d.figure.axes) == 3  # ours, the paper's, the colour bar
    assert np.array_equal(grade_letters(d.figure), result.grade_grid())
    differ = int(np.sum(result.grade_grid() != paper))
    assert differ > 0
    assert f"{differ} differ (outlined in red)" in d.summary.text()


def test_exports_are_the_files_of_sudoku_lab_grades_and_render(qtbot, tmp_path):
    d = _dialog(qtbot, tmp_path)
    _run(qtbot, d)
    written = d.export(tmp_path / "out" / "g.png")
    names = [p.name for p in written]
    assert names == ["g.png", "g.grades.csv", "g.grades.json", "g.tex"]
    ref = _cli_grades(tmp_path, "--latex")
    cli_dir = tmp_path / "cli"
    assert (tmp_path / "out" / "g.grades.csv").read_text() == (cli_dir / "g.grades.csv").read_text()
    assert (tmp_path / "out" / "g.tex").read_text() == (cli_dir / "g.tex").read_text()
    ours = json.loads((tmp_path / "out" / "g.grades.json").read_text())
    assert ours["grades"] == ref["grades"] and ours["fraction"] == ref["fraction"]
    img = QImage(str(tmp_path / "out" / "g.png"))
    assert img.width() > 500 and img.height() > 500
    assert _has_shading(img)  # cells wrong in some runs are shaded orange to red
    for suffix in (".svg", ".pdf"):
        assert [p.suffix for p in d.export(tmp_path / "out" / f"g{suffix}")][0] == suffix
    assert (tmp_path / "out" / "g.svg").read_text().lstrip().startswith("<?xml")
    assert (tmp_path / "out" / "g.pdf").read_bytes().startswith(b"%PDF")


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="needs pdftoppm (poppler-utils) to render a PDF")
def test_the_exported_pdf_renders(qtbot, tmp_path):
    d = _dialog(qtbot, tmp_path)
    _run(qtbot, d)
    pdf = d.export(tmp_path / "g.pdf")[0]
    subprocess.run(["pdftoppm", "-png", "-r", "60", "-singlefile", str(pdf), str(tmp_path / "page")], check=True)
    img = QImage(str(tmp_path / "page.png"))
    assert img.width() > 200 and _has_shading(img)


def _has_shading(img: QImage) -> bool:
    """Some pixel of the fraction shading's orange-red end (the colour map goes #d7301f .. #fc8d59 .. white)."""
    step = max(1, img.width() // 300)
    for y in range(0, img.height(), step):
        for x in range(0, img.width(), step):
            c = img.pixelColor(x, y)
            if c.red() > 200 and 40 < c.green() < 170 and c.blue() < 110:
                return True
    return False


@pytest.mark.parametrize(
    ("setting", "line"),
    [
        ("runs", "Cannot run: runs must be an integer from 1 to 1,000,000, got 0"),
        ("scheduler", "Cannot run: --scheduler 'not an address!': give a Dask scheduler's address"),
        ("thresholds", "Cannot run: grade thresholds need 0 <= B <= A <= 1, got A = 0.5, B = 0.8"),
    ],
)
def test_bad_settings_give_one_line_and_run_nothing(qtbot, tmp_path, setting, line):
    d = _dialog(qtbot, tmp_path)
    if setting == "runs":
        d.runs_box.setValue(0)
    elif setting == "scheduler":
        d.scheduler_edit.setText("not an address!")
    else:
        d.a_box.setValue(0.5)
    qtbot.mouseClick(d.run_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: not d.running)
    text = d.status.text()
    assert text.startswith(line) and "\n" not in text
    assert d.result is None and not (tmp_path / "d.runs").exists()


def test_an_unreachable_scheduler_is_one_line(qtbot, tmp_path):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    d = _dialog(qtbot, tmp_path)
    d.scheduler_edit.setText(f"tcp://127.0.0.1:{port}")
    with qtbot.waitSignal(d.gradesFinished) as got:
        qtbot.mouseClick(d.run_button, Qt.LeftButton)
    assert got.args[0] is None
    text = d.status.text()
    assert text.startswith("Cannot run: ") and f"127.0.0.1:{port}" in text and "\n" not in text


def test_results_of_several_puzzles_and_configurations_ask_which_to_grade(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QInputDialog

    from sudoku_lab.engine.batch import run_spec
    from sudoku_lab.engine.spec import spec_from_options

    spec = spec_from_options(
        ["hill_climb", "reseda:restart=none"],
        ["reseda_fig3_2_medium", "reseda_fig3_1_easy"],
        runs=2,
        seed=1,
        seeding="sequential",
        until="solved,60it",
    )
    where = tmp_path / "batch"
    run_spec(spec, where, jobs=1)
    d = _dialog(qtbot, tmp_path)
    # Named by a script: one line naming what the results hold when the choice is missing.
    assert not d.open_results(where)
    assert d.status.text().startswith(f"Cannot open {where}: the results hold 2 puzzles: ")
    assert d.result is None
    # Asked for in the window: first the puzzle, then the configuration of its runs.
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(where)))
    asked = []

    def answer(parent, title, label, options, *rest):
        asked.append(list(options))
        return ("reseda_fig3_2_medium" if len(asked) == 1 else "hill_climb"), True

    monkeypatch.setattr(QInputDialog, "getItem", staticmethod(answer))
    assert d.open_results()
    assert asked == [["reseda_fig3_1_easy", "reseda_fig3_2_medium"], ["hill_climb", "reseda:restart=none"]]
    want = grades_from_results(where, puzzle="reseda_fig3_2_medium", config="hill_climb", thresholds=(1.0, B))
    assert d.result.grades.tolist() == want.grades.tolist() and d.result.runs_done == 2
    assert d.status.text() == f"Opened {where}: 2 runs of hill_climb on reseda_fig3_2_medium"


# ------------------------------------------------------------------ before Run (issue 27, item 17)
@pytest.fixture
def data_home(tmp_path, monkeypatch):
    """A per-user data folder of the test's own, and a current directory that must stay empty."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    cwd = tmp_path / "started-here"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    return tmp_path / "data" / "sudoku-lab" / "results", cwd


def test_before_run_it_says_what_run_does_and_the_runs_go_to_the_data_folder(qtbot, tmp_path, data_home):
    home, cwd = data_home
    d = _dialog(qtbot, tmp_path, results="")
    d.results_edit.clear()
    # Not "0 of 1 runs": what Run will do, and where the runs go.
    assert d.progress_bar.text() == f"Ready: {RUNS} runs"
    ready = d.status.text()
    assert ready.startswith(
        f"Ready: Run does {RUNS} runs of Hill climbing (steepest ascent) on {PUZZLE} (seeds {SEED} to "
        f"{SEED + RUNS - 1}), each until solved or {BUDGET} moves, on 1 worker process(es); each finished run is "
        f"saved in {home}{'/'}grades-{PUZZLE}-hill_climb-"
    ) and ready.endswith(".runs.")
    where = d.results_dir()
    assert str(where) in ready and not home.exists()  # said, not made, before Run
    d.runs_box.setValue(RUNS + 1)  # more runs: the same experiment, the same folder
    assert d.results_dir() == where and d.progress_bar.text() == f"Ready: {RUNS + 1} runs"
    d.runs_box.setValue(RUNS)
    result = _run(qtbot, d)
    assert result.complete and d.results_path == where and where.parent == home
    assert len(load_results(where)) == RUNS and list(cwd.iterdir()) == []
    assert d.status.text() == f"Done: {RUNS} runs, saved in {where}"
    assert _run(qtbot, d).runs_done == RUNS and len(load_results(where)) == RUNS  # Run again: resumed, not redone
    d.seed_box.setValue(SEED + 1)  # another experiment: another folder
    assert d.results_dir() != where and d.status.text().startswith("Ready: Run does")
    # A relative folder typed in is in the data folder too, never in the current directory.
    d.results_edit.setText("mine.runs")
    assert d.results_dir() == home / "mine.runs" and str(home / "mine.runs") in d.status.text()


@pytest.mark.parametrize(
    ("solver", "params", "note"),
    [
        (
            "reseda",
            {},
            "RESEDA (restarted EDA)'s own run_budget = 10,000 (under Parameters: “Most steps of one run before it "
            "counts as failed (0 = no limit)”) applies within this limit.",
        ),
        ("ga", {}, "This limit stops a run that is not solved first: GA (Sato & Inoue)'s own"),
        ("ga", {"generations": 500}, "'s own generations = 500 (under Parameters: "),
        ("nbcoin", {"generations": 0}, "This limit stops a run that is not solved first: "),
    ],
)
def test_the_two_budgets_say_which_stops_a_run(qtbot, tmp_path, solver, params, note):
    from sudoku_lab.solvers import get_solver_class

    d = GradesDialog()
    qtbot.addWidget(d)
    d.set_defaults(library.puzzle(PUZZLE), solver, params)
    d.budget_box.setValue(1000)
    cls = get_solver_class(solver)
    assert note.split("'s own")[0] in d.budget_note.text() and note in d.budget_note.text()
    assert d.budget_box.suffix() == f" {cls.iteration_name}s"
    tip = d.budget_box.toolTip()
    assert tip.startswith(
        f"This dialog's limit: each of the runs stops when solved or after 1,000 {cls.iteration_name}s"
    )
    assert f"{cls.title}'s own budget, a parameter under Parameters, applies within it." in tip
    if params.get("generations") == 500:  # below the limit: the solver's own stops a run first
        assert d.budget_note.text().endswith(
            "stops a run that is not solved first, at 500 generations: raise it to use this limit."
        )
