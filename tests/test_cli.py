"""The headless command: one-line errors with exit status 2, and the happy paths.

Messages and outputs are checked in this process (the ``cli`` fixture of tests/conftest.py); real processes
(``_cli``) are kept where the process is the point: the exit status of each main kind of error, signals, the
window's entry point without a display, and a file-size limit that only a process of its own can have.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sudoku_lab.cli import main
from sudoku_lab.engine.results import load_results
from sudoku_lab.model import library

EASY = "..867.4.24.23...9.37..2.......4...5.89.251.67.1...3.......9..73.3...52.17.5.329.."


def _cli(*args, stdin=None):
    """``python -m sudoku_lab ARGS`` in a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "sudoku_lab", *args], capture_output=True, text=True, input=stdin, timeout=600
    )


BAD = [
    (["check", "1234"], "found 4 cells; a 4x4 puzzle has 16"),
    (["check", EASY[:-1] + "*"], "line 1, column 81: unexpected character '*'"),
    (["check", "8" + EASY[1:]], "givens clash: r1c1 and r1c3 both hold 8"),
    (["check", "." * 81], "the puzzle has several solutions"),
    (
        ["check", "12345678" + "." * 27 + "9" + "." * 45],
        "the puzzle has no solution: propagation empties the candidates of r1c9",
    ),
    (["solve", "nosuch_puzzle"], "no bundled puzzle named 'nosuch_puzzle'"),
    (["solve", "missing.txt"], "no such file: missing.txt"),
    # An empty argument was read as the current directory ("puzzle file . is a directory").
    (["solve", ""], "sudoku-lab: error: the puzzle argument is empty: give a file, '-' for standard input, a bundled"),
    (["check", "  "], "sudoku-lab: error: the puzzle argument is empty: "),
    (["solve", "--algo", "reseda", "--alpha", "2", "reseda_fig3_1_easy"], "alpha must be [0, 1], got 2"),
    (["solve", "--algo", "reseda", "--Q", "10", "--Q1", "20", "reseda_fig3_1_easy"], "Q1 must be at most Q"),
    (["solve", "--algo", "reseda", "--zones", "diag", "reseda_fig3_1_easy"], "zones must be one of diagonal"),
    (["solve", "--algo", "reseda", "--beta", "0", "reseda_fig3_1_easy"], "beta must be (0, 1], got 0"),
    (["solve", "--algo", "nope", "reseda_fig3_1_easy"], "unknown algorithm 'nope'"),
    (["solve", "--until", "soon", "--algo", "reseda", "reseda_fig3_1_easy"], "cannot read stopping rule 'soon'"),
    (["solve", "--bogus", "x"], "unrecognized arguments: --bogus"),
    (["generate", "--box", "4", "--clues", "10"], "a 16x16 puzzle with a unique solution needs at least 15 givens"),
    (
        ["generate", "--box", "5", "--clues", "250", "--quiet", "--time-limit", "1s"],
        "could not generate a 25x25 puzzle with 250 clues and a unique solution within 1 s (1 try): the fewest",
    ),
    (["generate", "--clues", "30", "--time-limit", "soon"], "--time-limit must be a duration like 30s"),
    (["generate", "--clues", "30", "--count", "-2"], "argument --count: must be an integer from 1 to 1,000,000"),
    (["grades", "--runs", "0", "reseda_fig3_1_easy"], "argument --runs: must be an integer from 1 to 1,000,000, got 0"),
    (["grades", "--out", "x.jpg", "reseda_fig3_1_easy"], "figures are written as .png, .svg or .pdf, not 'x.jpg'"),
    (["reproduce", "reseda-table1", "--runs", "0"], "argument --runs: must be an integer from 1 to 1,000,000, got 0"),
    (["reproduce", "reseda-table1", "--param", "alpha"], "--param needs NAME=VALUE"),
    (["library", "nowhere"], "no bundled collection named 'nowhere'"),
]


def test_bad_file_contents_name_the_file_and_line(tmp_path, cli):
    f = tmp_path / "set.txt"
    f.write_text(EASY + "\n" + EASY.replace(".", "x", 1) + "\n")
    out = cli("check", str(f))
    assert out.returncode == 2
    assert out.stderr.strip() == (
        f"sudoku-lab: error: {f}: line 2, column 1: 'x' is not a digit of a 9x9 puzzle "
        "(digits 1-9, '.' or '0' for a blank)"
    )


def test_check_reports_on_stdout(capsys):
    assert main(["check", "reseda_fig4_1_hard"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "reseda_fig4_1_hard: 9x9, 31 givens, unique solution; AC3 removed 400 candidates and fixed 50 cells"
    )


def test_solve_exact_prints_the_solution(capsys):
    assert main(["solve", "reseda_fig3_1_easy", "--format", "line"]) == 0
    assert capsys.readouterr().out.strip() == "".join(map(str, library.puzzle("reseda_fig3_1_easy").solution))


def test_solve_reads_stdin_and_every_format(cli):
    p = library.puzzle("reseda_fig3_1_easy")
    for fmt in ("grid", "numbers", "kennett", "sdk", "line"):
        out = cli("solve", "-", "--format", "line", stdin=p.format(fmt))
        assert out.returncode == 0 and out.stdout.strip() == "".join(map(str, p.solution)), out.stderr


def test_solve_with_reseda_prints_progress_and_result(cli):
    out = cli(
        "solve",
        "--algo",
        "reseda",
        "--alpha",
        "0.7",
        "--restart",
        "partial",
        "--zones",
        "diagonal",
        "--seed",
        "1",
        "reseda_fig4_1_hard",
        "--format",
        "line",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == "".join(map(str, library.puzzle("reseda_fig4_1_hard").solution)) + "\n"  # nothing else
    assert out.stderr.splitlines()[-1].startswith("# reseda_fig4_1_hard: reseda seed 1: solved after")
    assert "EDA steps, best cost" in out.stderr


def test_solve_unsolved_exits_1_with_best_grid():
    """A real process: the status of a run that ends unsolved, as the caller of the command sees it."""
    out = _cli(
        "solve", "--algo", "reseda", "--restart", "none", "--seed", "0", "--until", "3", "ai_escargot", "--quiet"
    )
    assert out.returncode == 1
    assert "not solved (max_iterations), best cost" in out.stderr


def test_library_and_generate(capsys):
    assert main(["library"]) == 0
    out, err = capsys.readouterr()
    assert "kennett/fiendish" in out and "Default puzzle: reseda_fig4_1_hard" in err
    assert main(["library", "papers"]) == 0
    assert "reseda_fig4_1_hard" in capsys.readouterr().out
    assert main(["generate", "--box", "4", "--clues", "120", "--seed", "1", "--format", "line"]) == 0
    line = capsys.readouterr().out.strip()
    from sudoku_lab.model.puzzle import Puzzle

    p = Puzzle.parse(line)
    assert p.n == 4 and p.n_givens == 120 and p.count_solutions() == 1
    assert main(["generate", "--box", "4", "--clues", "120", "--seed", "1", "--format", "line"]) == 0
    assert capsys.readouterr().out.strip() == line  # reproducible


def test_algorithms_lists_declared_parameters(capsys):
    assert main(["algorithms", "reseda"]) == 0
    out = capsys.readouterr().out
    for name in ("--alpha", "--beta", "--Q1", "--restart", "--zones", "--coupling-box"):
        assert name in out


# ------------------------------------------------------------------ issue 17: stdout holds the data only
def _solutions(name):
    from sudoku_lab.model.puzzle import Puzzle

    puzzles = library.collection(name) if "/" in name or name == "papers" else [library.puzzle(name)]
    return [Puzzle(p.solution, n=p.n).to_line() for p in puzzles]


def _givens(name):
    return [p.to_line() for p in library.collection(name)]


def _generated(count, seed):
    from sudoku_lab.exact.generate import generate

    return [generate(3, 30, seed=seed + k).to_line() for k in range(count)]


@pytest.mark.parametrize(
    "args,expected",
    [
        # one metaheuristic run: its verdict was a `#` line above the solution
        (
            [
                "solve",
                "--algo",
                "reseda",
                "--seed",
                "1",
                "--until",
                "solved,5000it",
                "--format",
                "line",
                "--quiet",
                "reseda_fig4_1_hard",
            ],
            lambda: _solutions("reseda_fig4_1_hard"),
        ),
        # several puzzles in a block format: each had a `#` name and time, and the blocks ran together
        (
            ["solve", "--exact", "benchmarks/small_unique", "--format", "grid"],
            lambda: _solutions("benchmarks/small_unique"),
        ),
        (
            ["generate", "--clues", "30", "--count", "3", "--seed", "4", "--format", "grid", "--quiet"],
            lambda: _generated(3, 4),
        ),
        (["generate", "--clues", "30", "--seed", "4", "--format", "numbers", "--quiet"], lambda: _generated(1, 4)),
        (["library", "benchmarks/small_unique", "--show"], lambda: _givens("benchmarks/small_unique")),
        (["library", "papers", "--show", "--format", "sdk"], lambda: _givens("papers")),
    ],
    ids=["solve-algo", "solve-several", "generate-grids", "generate-numbers", "library-show", "library-show-sdk"],
)
def test_commands_whose_output_is_puzzles_write_only_the_puzzles_to_stdout(args, expected, capsys):
    """`solve --format line` wrote a `#` comment line to stdout: names, times and verdicts go to stderr, and
    stdout is a collection that `sudoku-lab check -` reads back, puzzle for puzzle."""
    from sudoku_lab.model.collections import parse_collection

    assert main(args) == 0
    out, err = capsys.readouterr()
    assert [p.to_line() for p in parse_collection(out)] == expected()
    assert not [line for line in out.splitlines() if line.startswith("# ")], out  # sdk's "#D" is data
    if args[0] != "generate":
        assert "# " in err  # the comments are still shown, on the terminal


def test_the_library_tables_line_up_and_name_where_a_rating_comes_from(capsys):
    """The size column shifted for 16x16 and 25x25; the difficulty column said "simple" for the RESEDA paper's
    hard puzzle without saying that the rating is qqwing's."""
    assert main(["library"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].split() == ["collection", "puzzles", "size", "description"]
    starts = {r.split()[0]: r.index(r.split()[3]) for r in rows[1:]}  # where each description starts
    assert (
        starts["benchmarks/lewis_9x9_35"]
        == starts["benchmarks/lewis_16x16_35"]
        == starts["benchmarks/lewis_25x25_35"]
        == starts["papers"]
    )
    assert main(["library", "papers"]) == 0
    out, err = capsys.readouterr()
    header, *rows = out.splitlines()
    assert header.split()[:2] == ["name", "givens"] and "qqwing rating" in header and "level" not in header
    hard = next(r for r in rows if r.startswith("reseda_fig4_1_hard "))
    assert hard[header.index("qqwing rating") :].split()[0] == "simple"
    assert "qqwing rating: the difficulty Debian's qqwing gives the puzzle" in err
    longest = next(r for r in rows if r.startswith("sato_inoue_super_difficult_24 "))  # it pushed its row right
    assert longest.index(" 24 ") + 1 == hard.index(" 31 ") + 1
    assert main(["library", "kennett/hard"]) == 0
    header, first = capsys.readouterr().out.splitlines()[:2]
    assert first[header.index("level") :].split()[:2] == ["hard", "easy"] and "qqwing rating" in header


def test_help_everywhere(cli):
    for cmd in ("check", "solve", "library", "generate", "bench", "grades", "reproduce", "algorithms"):
        out = cli(cmd, "--help")
        assert out.returncode == 0 and "usage: sudoku-lab " + cmd in out.stdout


def test_the_window_command_without_a_display_says_so():
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    out = subprocess.run(
        [sys.executable, "-c", "import sys; from sudoku_lab.cli import main; sys.exit(main([]))"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 2
    assert out.stderr.strip().startswith("sudoku-lab: error: no display to open the lab window on")
    bad = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from sudoku_lab.cli import main; sys.exit(main(['gui', 'nosuch_puzzle']))",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bad.returncode == 2 and "no bundled puzzle named 'nosuch_puzzle'" in bad.stderr


# ------------------------------------------------------------------ issue 7: every everyday mistake
BAD_7 = [
    (["check", "kennett/fiendish:999"], "kennett/fiendish has 200 puzzles; 999 is out of range"),
    (
        ["check", "kennett/fiendsh:3"],
        "no such file or bundled collection 'kennett/fiendsh': kennett/fiendsh:3; did you mean kennett/fiendish",
    ),
    (
        ["check", "/home/someone/my_puzzle_collections/very_hard_ones_from_the_newspaper.txt"],
        "no such file: /home/someone/my_puzzle_collections/very_hard_ones_from_the_newspaper.txt",
    ),
    (
        ["check", "reseda_fig4_1_hardd"],
        "no bundled puzzle named 'reseda_fig4_1_hardd'; did you mean reseda_fig4_1_hard",
    ),
    (
        ["solve", "--seed", "-1", "--algo", "reseda", "reseda_fig3_1_easy"],
        "argument --seed: must be an integer >= 0, got -1",
    ),
    (["solve", "--until", "infit", "--algo", "reseda", "reseda_fig3_1_easy"], "cannot read stopping rule 'infit'"),
    (
        ["solve", "--until", "1e999evals", "--algo", "reseda", "reseda_fig3_1_easy"],
        "cannot read stopping rule '1e999evals'",
    ),
    (
        ["solve", "--alpha", "2", "reseda_fig3_1_easy"],
        "--alpha is not a parameter of exact (it belongs to reseda); choose that algorithm with --algo reseda",
    ),
    (["solve", "--exact", "--algo", "reseda", "reseda_fig3_1_easy"], "choose --exact or --algo reseda, not both"),
    (["generate", "--clues", "30", "--count", "-2"], "argument --count: must be an integer from 1 to 1,000,000"),
    (
        ["grades", "--runs", "1000000000000", "reseda_fig3_1_easy"],
        "argument --runs: must be an integer from 1 to 1,000,000, got 1000000000000",
    ),
    (["grades", "--dpi", "0", "reseda_fig3_1_easy"], "argument --dpi: must be an integer from 10 to 1,200, got 0"),
    (["grades", "--compare", "paper", "reseda_fig3_1_easy"], "--compare paper needs puzzle reseda_fig4_1_hard"),
    (["grades", "--compare", "nothere.json", "reseda_fig3_1_easy"], "grades file nothere.json does not exist"),
    (["grades", "--until", "soon", "reseda_fig3_1_easy"], "cannot read stopping rule 'soon'"),
    (["reproduce", "reseda-table1", "--out", "x.pdf"], "--out applies to reseda-fig4-2 only"),
    (["reproduce", "reseda-fig4-2", "--out", "x.jpg"], "figures are written as .png, .svg or .pdf, not 'x.jpg'"),
    (["reproduce", "reseda-table1", "--markdown", "/proc/no/report.md"], "cannot write report /proc/no/report.md"),
    (["reproduce", "reseda-table1", "--jobs", "0"], "argument --jobs: must be an integer >= 1, got 0"),
    (["bench", "exact", "--repeat", "0"], "argument --repeat: must be an integer from 1 to 1,000, got 0"),
]


@pytest.mark.parametrize("args,fragment", BAD + BAD_7, ids=[" ".join(a)[:50] for a, _ in BAD + BAD_7])
def test_bad_input_is_one_line_and_status_2_before_any_work(args, fragment, cli):
    out = cli(*args)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert fragment in lines[0] and lines[0].startswith("sudoku-lab")
    assert out.stdout == ""  # nothing ran: every option is checked before the first run


@pytest.mark.parametrize(
    "args", [["solve", "--bogus", "x"], ["check", "reseda_fig4_1_hardd"]], ids=["usage-error", "input-error"]
)
def test_a_real_process_exits_2_on_bad_input_with_what_the_in_process_command_says(args, cli):
    """The exit status is the process's: argparse's usage error (a SystemExit) and an error main() turns into a
    status both reach `python -m sudoku_lab`'s caller as 2, with the lines the in-process checks above read."""
    real = _cli(*args)
    assert real.returncode == 2 and len(real.stderr.splitlines()) == 1, real.stderr
    assert (real.returncode, real.stdout, real.stderr) == tuple(cli(*args))


def test_unreadable_and_binary_files_are_one_line(tmp_path, cli):
    sup = tmp_path / "numbers.txt"
    sup.write_text(
        " ".join(EASY.replace(".", "0")[:10]) + " ² " + " ".join(EASY.replace(".", "0")[11:]) + "\n", encoding="utf-8"
    )
    binary = tmp_path / "g.runs" / "runs.jsonl"
    binary.parent.mkdir()
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    for args, fragment in [
        (
            ["check", str(sup)],
            f"{sup}: line 1, column 21: unexpected character '²' (digits are 1-9 then A-Z, '.' or '0' for a blank)",
        ),
        (["check", str(tmp_path)], f"puzzle file {tmp_path} is a directory, not a file"),
        (
            ["grades", "--runs", "2", "--out", str(tmp_path / "g.pdf"), "reseda_fig3_1_easy"],
            f"{binary.parent} holds runs but no provenance.json: it was not written by Sudoku Lab, or its sidecar was "
            "deleted; choose another output directory",
        ),
    ]:
        out = cli(*args)
        assert out.returncode == 2, out.stderr
        assert out.stderr.strip().splitlines() == [f"sudoku-lab: error: {fragment}"], out.stderr


def test_help_documents_every_option_without_doubled_percent_signs(cli):
    from sudoku_lab.cli import build_parser

    parser = build_parser()
    subs = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, sub in subs.choices.items():
        parsers = [(name, sub)]
        for a in sub._actions:
            if a.__class__.__name__ == "_SubParsersAction":
                parsers += [(f"{name} {k}", v) for k, v in a.choices.items()]
        for label, p in parsers:
            for action in p._actions:
                if action.dest == "help":
                    continue
                what = action.option_strings or action.dest
                assert action.help and action.help.strip(), f"`sudoku-lab {label}`: {what} has no help"
            text = p.format_help()
            assert "%%" not in text, f"`sudoku-lab {label} --help` shows '%%'"
    grades_help = cli("grades", "--help").stdout
    assert "at least 90 %." in grades_help


INTERNAL = r"""
import sys
import sudoku_lab.cli as cli
import sudoku_lab.model.library as library
def broken(*a, **k):
    raise ZeroDivisionError("division by zero")
library.collections = broken
sys.exit(cli.main(["library"]))
"""


def test_an_internal_error_is_one_line_and_a_report(tmp_path):
    env = {**__import__("os").environ, "XDG_STATE_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", INTERNAL], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 70
    [line] = out.stderr.strip().splitlines()
    assert line.startswith("sudoku-lab: internal error (ZeroDivisionError: division by zero); full report in ")
    assert line.endswith(". Please report it.")
    report = line.split("full report in ")[1].split(". Please")[0]
    text = Path(report).read_text(encoding="utf-8")
    assert report.startswith(str(tmp_path / "sudoku-lab")) and "Traceback (most recent call last)" in text
    assert "command: " in text and "ZeroDivisionError: division by zero" in text


FULL_DISK = r"""
import resource, sys
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), int(sys.argv[1])))
from sudoku_lab import cli
sys.exit(cli.main(sys.argv[2:]))
"""


def test_a_full_disk_keeps_the_finished_runs_and_resumes(tmp_path, cli):
    """Writes past RLIMIT_FSIZE fail (EFBIG) the way a full disk fails (ENOSPC): no traceback, nothing lost."""
    out = tmp_path / "g.pdf"
    runs = tmp_path / "g.runs" / "runs.jsonl"
    args = ["grades", "--runs", "12", "--restart", "none", "--quiet", "--out", str(out), "reseda_fig3_1_easy"]
    # 9 kB: the empty table a new results directory starts with fits (7 kB), the journal of 12 runs does not.
    full = subprocess.run([sys.executable, "-c", FULL_DISK, "9000", *args], capture_output=True, text=True, timeout=600)
    assert full.returncode == 2, full.stderr
    [line] = full.stderr.strip().splitlines()
    kept = runs.read_text().count("\n")
    assert line == (
        f"sudoku-lab: error: cannot write {runs}: file too large; the {kept} runs before are kept "
        "there: run the same command again to resume"
    )
    assert 0 < kept < 12 and not out.exists()
    again = cli(*args)  # the limit was the other process's
    assert again.returncode == 0, again.stderr
    lines = runs.read_text().splitlines()
    assert len(lines) == 12 and sorted(json.loads(x)["task"] for x in lines) == sorted(map(str, range(12)))


def test_a_figure_that_does_not_fit_leaves_no_half_file(tmp_path):
    out = tmp_path / "g.png"
    args = [
        "grades",
        "--runs",
        "2",
        "--restart",
        "none",
        "--quiet",
        "--dpi",
        "600",
        "--out",
        str(out),
        "reseda_fig3_1_easy",
    ]
    full = subprocess.run(
        [sys.executable, "-c", FULL_DISK, "200000", *args], capture_output=True, text=True, timeout=600
    )
    assert full.returncode == 2, full.stderr
    assert full.stderr.strip() == f"sudoku-lab: error: cannot write figure {out}: file too large"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.runs"]  # no figure, no temporary file


def test_ctrl_c_stops_a_long_generation_cleanly():
    """`generate --box 5 --clues 250` ran silently for 15 minutes; now it reports and stops on Ctrl-C."""
    import signal

    proc = subprocess.Popen(
        [sys.executable, "-m", "sudoku_lab", "generate", "--box", "5", "--clues", "250", "--time-limit", "none"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    first = proc.stderr.readline()  # progress comes without asking (every 5 s away from a terminal)
    assert first.startswith("try 1 of 20, ") and "givens left (target 250, fewest so far" in first
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith("sudoku-lab: interrupted: stopped during try 1 of 20")
    assert out == ""


def test_a_file_with_an_absurd_line_is_one_line(tmp_path, cli):
    f = tmp_path / "huge.txt"
    f.write_bytes(b"123456789" * 300_000)  # 2.7 MB without a line break
    out = cli("check", str(f))
    assert out.returncode == 2
    assert out.stderr.strip() == f"sudoku-lab: error: {f}: line 1 is longer than 1 MB: not a puzzle collection"


def test_the_readme_example_of_a_reseda_run_is_what_the_command_prints(repo_root, cli):
    """The README promised "10 EDA steps" while the command printed 43: the example is now checked."""
    import re
    import shlex

    text = (repo_root / "README.md").read_text()
    m = re.search(r"^\$ sudoku-lab (solve --algo reseda [^\n]*)\n(# [^\n]*)\n([^\n]*)\n", text, re.M)
    assert m, "the README has no `sudoku-lab solve --algo reseda` example"
    out = cli(*shlex.split(m.group(1)))
    assert out.returncode == 0, out.stderr
    # The terminal shows the comment (standard error) above the grid (standard output).
    first, second = out.stderr.splitlines()[-1], out.stdout.splitlines()[0]
    strip_time = lambda s: re.sub(r", [\d.]+ s$", "", s)  # noqa: E731 - the time is the machine's
    assert strip_time(first) == strip_time(m.group(2))
    assert second == m.group(3)


def test_grades_writes_every_output_and_compares(tmp_path, cli):
    first = tmp_path / "a.png"
    out = cli(
        "grades",
        "--runs",
        "3",
        "--restart",
        "none",
        "--quiet",
        "--latex",
        "--out",
        str(first),
        "--compare",
        "paper",
        "reseda_fig4_1_hard",
    )
    assert out.returncode == 0, out.stderr
    assert "agreement with paper: " in out.stdout
    for suffix in (".png", ".grades.csv", ".grades.json", ".tex"):
        assert first.with_suffix(suffix).stat().st_size > 0, suffix
    assert len(load_results(first.with_suffix(".runs"))) == 3
    assert first.with_suffix(".tex").read_text().startswith(r"\begin{table}[h]")
    second = tmp_path / "b.svg"
    out = cli(
        "grades",
        "--runs",
        "3",
        "--restart",
        "none",
        "--quiet",
        "--out",
        str(second),
        "--compare",
        str(first.with_suffix(".grades.json")),
        "reseda_fig4_1_hard",
    )
    assert out.returncode == 0, out.stderr
    assert f"agreement with {first.with_suffix('.grades.json')}: 100.0 % of cells" in out.stdout  # same seeds
    wrong = cli(
        "grades",
        "--runs",
        "3",
        "--quiet",
        "--out",
        str(tmp_path / "c.pdf"),
        "--compare",
        str(first.with_suffix(".grades.json")),
        "reseda_fig3_1_easy",
    )
    assert wrong.returncode == 2 and "its grades are of another puzzle (reseda_fig4_1_hard" in wrong.stderr


def test_a_16x16_or_25x25_puzzle_text_longer_than_a_file_name_is_read(cli):
    """Texts over 255 characters made the file-existence check fail with 'file name too long'."""
    for name in ("benchmarks/lewis_16x16_40:1", "benchmarks/lewis_25x25_45:1"):
        p = library.puzzle(name)
        out = cli("check", "--no-unique", p.to_line())
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith(f"puzzle: {p.N}x{p.N}, {p.n_givens} givens, solution exists")


def test_every_command_with_a_seed_starts_from_the_default_seed_of_the_lab():
    """The window started at seed 1 and the command line at 0 (issue 17, item 16): one default, read from one
    place, for every sub-command that takes --seed (batch and grades leave it to the experiment: None)."""
    import argparse

    from sudoku_lab.cli import build_parser
    from sudoku_lab.engine.spec import ExperimentSpec
    from sudoku_lab.solvers import DEFAULT_SEED

    parser = build_parser([])
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    defaults = {}
    for name, p in sub.choices.items():
        for a in p._actions:
            if "--seed" in a.option_strings:
                defaults[name] = a.default
    assert {"solve", "generate", "compare", "batch", "grades", "reproduce"} <= set(defaults)
    assert {n: d for n, d in defaults.items() if d not in (DEFAULT_SEED, None)} == {}
    assert ExperimentSpec.__dataclass_fields__["seed"].default == DEFAULT_SEED


@pytest.mark.parametrize("missing", [("PySide6", "pyqtgraph"), ("pyqtgraph",)])
def test_without_the_windows_packages_the_lab_says_how_to_install_them(cli, monkeypatch, missing):
    """PySide6 and pyqtgraph are the gui extra: without them `sudoku-lab` was a raw ModuleNotFoundError (exit 70)."""
    import shlex

    from sudoku_lab.cli.gui import WINDOW_PACKAGES

    for module in missing:
        monkeypatch.setitem(sys.modules, module, None)  # what `import` and find_spec see for a missing package
    names = " and ".join(WINDOW_PACKAGES[m] for m in missing)
    for args in ([], ["gui", "ai_escargot", "--algo", "hill_climb"], ["bench", "gui", "--runs", "1"]):
        out = cli(*args)
        assert out.returncode == 2 and out.stdout == ""
        [line] = out.stderr.splitlines()
        assert line.startswith(f"sudoku-lab: error: the lab window needs {names}, which ")
        command = line.partition("install them with: " if len(missing) > 1 else "install it with: ")[2]
        words = shlex.split(command.partition(" (the headless commands work without")[0])
        assert words[1:4] == ["-m", "pip", "install"] and words[-1].endswith("[gui]"), line
    assert cli("gui", "--help").returncode == 0  # the options are still there to read
    assert cli("check", "reseda_fig3_1_easy").returncode == 0  # and every headless command works


# ------------------------------------------------------------------- rate
def test_rate_one_puzzle_prints_grade_and_path(capsys):
    assert main(["rate", "kennett_hard_130"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("kennett_hard_130: hard (score ")
    assert "hardest technique: XY-wing" in lines[0]
    assert (
        "  28. X-wing: 5 in rows 6, 9 lies only in columns 1, 9, so it is removed from the rest of those columns: "
        "r5c1, r5c9" in lines
    )


def test_rate_a_collection_prints_a_table(capsys):
    assert main(["rate", "benchmarks/small_unique"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].split() == ["puzzle", "grade", "score", "hardest", "technique", "steps"]
    assert rows[1].split()[:2] == ["unique_4x4_a", "easy"] and rows[2].split()[:2] == ["unique_16x16_a", "easy"]


def test_rate_json(capsys):
    assert main(["rate", "ai_escargot", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["name"] == "ai_escargot" and d["grade"] == "extreme"
    assert d["hardest"] == "trial and error (bifurcation)" and d["steps"][0]["text"]


def test_rate_errors_are_one_line(capsys):
    assert main(["rate", "1" + "." * 71 + "2" + "." * 8]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("sudoku-lab: error: puzzle 1: the puzzle has several solutions: ") and err.count("\n") == 1
    assert main(["rate"]) == 2
    assert capsys.readouterr().err == "sudoku-lab: error: name at least one puzzle, file or collection to rate\n"


def test_rate_reports_a_bad_puzzle_in_one_line_and_rates_the_others(capsys, tmp_path):
    """One bad argument (or bad line of a file) discarded every rating; an empty one said "puzzle file . ..."."""
    assert main(["rate", ""]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("sudoku-lab: error: the puzzle argument is empty: ") and err.count("\n") == 1
    easy = library.puzzle("reseda_fig3_1_easy").to_line()
    f = tmp_path / "two.txt"
    f.write_text(easy + "\n" + easy.replace(".", "x", 1) + "\n")
    assert main(["rate", "unique_4x4_a", "no_such_puzle", "", str(f), "kennett_hard_130"]) == 2
    out, err = capsys.readouterr()
    rows = [r.split()[:2] for r in out.splitlines()[1:]]
    assert rows == [["unique_4x4_a", "easy"], ["two:1", "easy"], ["kennett_hard_130", "hard"]]
    assert err.splitlines() == [
        "sudoku-lab: error: no bundled puzzle named 'no_such_puzle'",
        "sudoku-lab: error: the puzzle argument is empty: give a file, '-' for standard input, a bundled puzzle or "
        "collection name, or the puzzle's text",
        f"sudoku-lab: error: {f}: line 2, column 1: 'x' is not a digit of a 9x9 puzzle (digits 1-9, '.' or '0' for "
        "a blank)",
    ]
    assert main(["rate", "kennett_hard_130", "no_such_puzle", "--json"]) == 2  # several asked: a list of one
    assert [d["name"] for d in json.loads(capsys.readouterr().out)] == ["kennett_hard_130"]


def test_solve_prints_the_solution_read_before_a_bad_puzzle(capsys, tmp_path):
    """The look-ahead that decides between one bare grid and several commented ones lost the first at a bad second."""
    easy = library.puzzle("reseda_fig3_1_easy")
    f = tmp_path / "set.txt"
    f.write_text(easy.to_line() + "\n" + "8" + easy.to_line()[1:] + "\n" + easy.to_line() + "\n")
    assert main(["solve", str(f), "--format", "line"]) == 2
    out, err = capsys.readouterr()
    from sudoku_lab import exact

    assert out == "".join(str(d) for d in np.asarray(exact.solve(easy)).tolist()) + "\n"
    assert err.endswith(
        f"sudoku-lab: error: {f}: line 2: givens clash: r1c1 and r1c3 both hold 8 in row 1 (1 more clash)\n"
    )


def test_rate_grades_reports_spearman_per_puzzle_and_pooled(capsys):
    docs = Path(__file__).resolve().parents[1] / "docs"
    assert main(["rate", "--grades", str(docs / "figure_4_2_ac3_tabu_mk_hard_b.grades.json")]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].split() == ["puzzle", "free", "cells", "Spearman", "rho", "p"]
    assert rows[1].split()[:4] == ["mk_hard_b", "(ac3_tabu)", "55", "0.612"]
    assert rows[2].split()[:3] == ["pooled", "55", "0.612"]


@pytest.mark.needs_qqwing
def test_rate_qqwing_agreement_table(capsys):
    assert main(["rate", "--qqwing", "kennett/easy:1", "kennett/fiendish:1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:3] == ["level", "puzzles", "easy"]
    assert out[1].split()[:3] == ["easy:1", "1", "1"]
    assert out[-1].endswith("mean ranks per level increase the same way")


def test_rate_grades_figure(tmp_path, capsys):
    docs = Path(__file__).resolve().parents[1] / "docs"
    out = tmp_path / "tech.png"
    args = ["rate", "--grades", str(docs / "figure_4_2_cuckoo_mk_medium_a.grades.json"), "--figure", str(out)]
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"wrote {out}"
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["rate", "kennett_hard_130", "--figure", str(out)]) == 2
    assert capsys.readouterr().err == "sudoku-lab: error: --figure draws the grades of one --grades file\n"


# ------------------------------------------------------------------ issue 27: gui takes solve's run options
GUI_BAD = [
    (["gui", "--seed", "-1"], "argument --seed"),
    (["gui", "--seed", str(2**31)], "--seed 2147483648: the window's seeds go up to 2,147,483,647"),
    (["gui", "--algo", "reseda", "--tenure", "3"], "--tenure is not a parameter of reseda (it belongs to ac3_tabu)"),
    (["gui", "--algo", "reseda", "--alpha", "2"], "alpha must be [0, 1], got 2"),
    (["gui", "--session", "x.sls", "--seed", "1"], "gui --session opens the session's own puzzle, algorithm"),
    (["gui", "--seed", "1", "--algo", "reseda", "nosuch_puzzle"], "no bundled puzzle named 'nosuch_puzzle'"),
]


@pytest.mark.parametrize("argv, words", GUI_BAD, ids=[" ".join(a) for a, _ in GUI_BAD])
def test_gui_takes_the_seed_and_parameters_solve_takes_and_refuses_bad_ones_in_one_line(argv, words, capsys):
    """Before: `sudoku-lab gui --seed 1` was refused ("unrecognized arguments: --seed 1"), and so was every
    parameter option of `solve`; the last case is a good command line whose puzzle is misspelt."""
    try:
        status = main(argv)
    except SystemExit as e:  # argparse's own usage errors exit (one line, status 2)
        status = e.code
    assert status == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1 and "unrecognized" not in err, err


def test_gui_help_documents_the_seed_and_the_algorithms_parameters(capsys):
    from sudoku_lab.cli import gui_options

    args = gui_options(["gui", "ai_escargot", "--algo", "reseda", "--seed", "1", "--alpha", "0.5"])
    assert (args.puzzle, args.algo, args.seed, args.param_alpha) == ("ai_escargot", "reseda", 1, "0.5")
    with pytest.raises(SystemExit):
        gui_options(["gui", "--algo", "ac3_tabu", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--seed SEED random seed of the first run" in out
    assert "ac3_tabu parameters" in out and "--tenure INT Length of the FIFO tabu list" in out
