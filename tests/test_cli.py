"""The headless command: real processes, one-line errors with exit status 2, and the happy paths."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sudoku_lab import library
from sudoku_lab.cli import main

EASY = "..867.4.24.23...9.37..2.......4...5.89.251.67.1...3.......9..73.3...52.17.5.329.."


def _cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "sudoku_lab", *args], capture_output=True, text=True, input=stdin,
                          timeout=600)


BAD = [
    (["check", "1234"], "found 4 cells; a 4x4 puzzle has 16"),
    (["check", EASY[:-1] + "*"], "line 1, column 81: unexpected character '*'"),
    (["check", "8" + EASY[1:]], "givens clash: r1c1 and r1c3 both hold 8"),
    (["check", "." * 81], "the puzzle has several solutions"),
    (["check", "12345678" + "." * 27 + "9" + "." * 45], "the puzzle has no solution: propagation empties the "
                                                          "candidates of r1c9"),
    (["solve", "nosuch_puzzle"], "no bundled puzzle named 'nosuch_puzzle'"),
    (["solve", "missing.txt"], "no such file or bundled puzzle: missing.txt"),
    (["solve", "--algo", "reseda", "--alpha", "2", "reseda_fig3_1_easy"], "alpha must be [0, 1], got 2"),
    (["solve", "--algo", "reseda", "--Q", "10", "--Q1", "20", "reseda_fig3_1_easy"], "Q1 must be at most Q"),
    (["solve", "--algo", "reseda", "--zones", "diag", "reseda_fig3_1_easy"], "zones must be one of diagonal"),
    (["solve", "--algo", "reseda", "--beta", "0", "reseda_fig3_1_easy"], "beta must be (0, 1], got 0"),
    (["solve", "--algo", "nope", "reseda_fig3_1_easy"], "unknown algorithm 'nope'"),
    (["solve", "--until", "soon", "--algo", "reseda", "reseda_fig3_1_easy"], "cannot read stopping rule 'soon'"),
    (["solve", "--bogus", "x"], "unrecognized arguments: --bogus"),
    (["generate", "--box", "4", "--clues", "10"], "could not generate a 16x16 puzzle with 10 clues"),
    (["grades", "--runs", "0", "reseda_fig3_1_easy"], "runs must be at least 1"),
    (["grades", "--out", "x.jpg", "reseda_fig3_1_easy"], "--out must end in .pdf, .svg or .png"),
    (["reproduce", "reseda-table1", "--runs", "0"], "--runs must be at least 1"),
    (["reproduce", "reseda-table1", "--param", "alpha"], "--param needs NAME=VALUE"),
    (["library", "nowhere"], "no bundled collection named 'nowhere'"),
]


@pytest.mark.parametrize("args,fragment", BAD, ids=[" ".join(a)[:40] for a, _ in BAD])
def test_bad_input_is_one_line_and_status_2(args, fragment):
    out = _cli(*args)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert fragment in lines[0] and lines[0].startswith("sudoku-lab")
    assert "Traceback" not in out.stderr


def test_bad_file_contents_name_the_file_and_line(tmp_path):
    f = tmp_path / "set.txt"
    f.write_text(EASY + "\n" + EASY.replace(".", "x", 1) + "\n")
    out = _cli("check", str(f))
    assert out.returncode == 2
    assert out.stderr.strip() == (f"sudoku-lab: error: {f}: line 2, column 1: 'x' is not a digit of a 9x9 puzzle "
                                  "(digits 1-9, '.' or '0' for a blank)")


def test_check_reports_on_stdout(capsys):
    assert main(["check", "reseda_fig4_1_hard"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("reseda_fig4_1_hard: 9x9, 31 givens, unique solution; AC3 removed 400 candidates and "
                          "fixed 50 cells")


def test_solve_exact_prints_the_solution(capsys):
    assert main(["solve", "reseda_fig3_1_easy", "--format", "line"]) == 0
    assert capsys.readouterr().out.strip() == "".join(map(str, library.puzzle("reseda_fig3_1_easy").solution))


def test_solve_reads_stdin_and_every_format():
    p = library.puzzle("reseda_fig3_1_easy")
    for fmt in ("grid", "numbers", "kennett", "sdk", "line"):
        out = _cli("solve", "-", "--format", "line", stdin=p.format(fmt))
        assert out.returncode == 0 and out.stdout.strip() == "".join(map(str, p.solution)), out.stderr


def test_solve_with_reseda_prints_progress_and_result():
    out = _cli("solve", "--algo", "reseda", "--alpha", "0.7", "--restart", "partial", "--zones", "diagonal",
               "--seed", "1", "reseda_fig4_1_hard", "--format", "line")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0].startswith("# reseda_fig4_1_hard: reseda seed 1: solved after")
    assert lines[1] == "".join(map(str, library.puzzle("reseda_fig4_1_hard").solution))
    assert "EDA steps, best cost" in out.stderr


def test_solve_unsolved_exits_1_with_best_grid():
    out = _cli("solve", "--algo", "reseda", "--restart", "none", "--seed", "0", "--until", "3", "ai_escargot",
               "--quiet")
    assert out.returncode == 1
    assert "not solved (max_iterations), best cost" in out.stdout


def test_library_and_generate(capsys):
    assert main(["library"]) == 0
    out = capsys.readouterr().out
    assert "kennett/fiendish" in out and "Default puzzle: reseda_fig4_1_hard" in out
    assert main(["library", "papers"]) == 0
    assert "reseda_fig4_1_hard" in capsys.readouterr().out
    assert main(["generate", "--box", "4", "--clues", "120", "--seed", "1", "--format", "line"]) == 0
    line = capsys.readouterr().out.strip()
    from sudoku_lab.puzzle import Puzzle

    p = Puzzle.parse(line)
    assert p.n == 4 and p.n_givens == 120 and p.count_solutions() == 1
    assert main(["generate", "--box", "4", "--clues", "120", "--seed", "1", "--format", "line"]) == 0
    assert capsys.readouterr().out.strip() == line  # reproducible


def test_algorithms_lists_declared_parameters(capsys):
    assert main(["algorithms", "reseda"]) == 0
    out = capsys.readouterr().out
    for name in ("--alpha", "--beta", "--Q1", "--restart", "--zones", "--coupling-box"):
        assert name in out


def test_help_everywhere():
    for cmd in ("check", "solve", "library", "generate", "bench", "grades", "reproduce", "algorithms"):
        out = _cli(cmd, "--help")
        assert out.returncode == 0 and "usage: sudoku-lab " + cmd in out.stdout


def test_the_window_command_without_a_display_says_so():
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    out = subprocess.run([sys.executable, "-c", "import sys; from ui.launch import main; sys.exit(main([]))"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 2
    assert out.stderr.strip().startswith("sudoku-lab: error: no display to open the lab window on")
    bad = subprocess.run([sys.executable, "-c", "import sys; from ui.launch import main; sys.exit(main(['gui', "
                          "'nosuch_puzzle']))"], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "no bundled puzzle named 'nosuch_puzzle'" in bad.stderr
