"""tests/conftest.py's rule for checks that need an outside program (the ``needs_qqwing`` marker).

Each case runs pytest in a subprocess on a two-test file, with this repository's conftest and
pyproject.toml and a PATH holding only what the case puts there, so the real qqwing (present or not)
never decides the outcome.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

TESTS = """
import pytest

@pytest.mark.needs_qqwing
def test_needs_qqwing():
    pass

def test_plain():
    pass
"""


@pytest.fixture
def run(pytester, repo_root, monkeypatch, tmp_path):
    """Run the two tests with ``CI`` set to ``ci`` (None: unset) and a PATH that has qqwing or not."""
    pytester.makeconftest((repo_root / "tests" / "conftest.py").read_text())
    pytester.makepyprojecttoml((repo_root / "pyproject.toml").read_text())  # declares the markers
    pytester.makepyfile(test_programs=TESTS)

    def go(ci: str | None, with_qqwing: bool):
        bin_dir = tmp_path / ("bin-with" if with_qqwing else "bin-without")
        bin_dir.mkdir(exist_ok=True)
        if with_qqwing:
            fake = bin_dir / "qqwing"
            fake.write_text("#!/bin/sh\nexit 0\n")
            fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
        monkeypatch.setenv("PATH", str(bin_dir))
        if ci is None:
            monkeypatch.delenv("CI", raising=False)
        else:
            monkeypatch.setenv("CI", ci)
        return pytester.runpytest_subprocess("test_programs.py", "-p", "no:cacheprovider")

    return go


def test_missing_qqwing_skips_visibly_outside_ci(run):
    result = run(ci=None, with_qqwing=False)
    result.assert_outcomes(passed=1, skipped=1)
    # -ra (pyproject's addopts) lists the skip with its reason in the summary.
    result.stdout.fnmatch_lines(["SKIPPED * qqwing not installed (apt install qqwing)"])


@pytest.mark.parametrize("ci", ["false", ""])
def test_ci_variable_not_true_still_skips(run, ci):
    run(ci=ci, with_qqwing=False).assert_outcomes(passed=1, skipped=1)


def test_missing_qqwing_fails_under_ci(run):
    result = run(ci="true", with_qqwing=False)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*qqwing is not installed, but this is CI (CI=true), where the checks marked "
            "needs_qqwing must run: .ci/run installs it (apt install qqwing)*"
        ]
    )
    assert result.ret != 0


@pytest.mark.parametrize("ci", [None, "true"])
def test_installed_qqwing_runs_the_check(run, ci):
    run(ci=ci, with_qqwing=True).assert_outcomes(passed=2)


# ------------------------------------------------------------------ the gui mark
QT_TESTS = """
import subprocess, sys

import pytest

def test_plain():
    pass

def test_starts_qt_here():
    from PySide6.QtWidgets import QApplication
    QApplication.instance() or QApplication(["t"])

def test_starts_qt_in_a_child():
    code = "from PySide6.QtGui import QGuiApplication; QGuiApplication(['t']); print('started')"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and res.stdout == "started\\n", res.stderr

@pytest.mark.gui
def test_marked():
    from PySide6.QtWidgets import QApplication
    QApplication.instance() or QApplication(["t"])
"""


@pytest.fixture
def run_qt_tests(pytester, repo_root):
    """Run QT_TESTS (with ``mark`` put before the tests that start Qt unmarked) with this repository's conftest."""
    pytester.makeconftest((repo_root / "tests" / "conftest.py").read_text())
    pytester.makepyprojecttoml((repo_root / "pyproject.toml").read_text())

    def go(mark: str, *args: str):
        pytester.makepyfile(test_qt=QT_TESTS.replace("def test_starts", f"{mark}def test_starts"))
        return pytester.runpytest_subprocess("test_qt.py", "-p", "no:cacheprovider", *args)

    return go


def test_a_run_without_gui_tests_fails_each_test_that_starts_qt_unmarked(run_qt_tests):
    """`-m "not gui"` must start no Qt: a test that does, here or in a child, fails until it carries the mark."""
    result = run_qt_tests("", "-m", "not gui")
    result.assert_outcomes(passed=1, failed=2, deselected=1)
    result.stdout.fnmatch_lines(
        ["*QtStartedWithoutGuiMark: QApplication started in a run without gui tests: mark the test @pytest.mark.gui*"]
    )
    result.stdout.fnmatch_lines(["*none-in-a-run-without-gui-tests--mark-the-test-gui*"])  # the child's Qt names it
    # Marked, they are deselected, and the rest of the run is untouched.
    run_qt_tests("@pytest.mark.gui\n", "-m", "not gui").assert_outcomes(passed=1, deselected=3)
    run_qt_tests("@pytest.mark.gui\n", "-k", "plain").assert_outcomes(passed=1, deselected=3)


def test_every_test_in_tests_gui_carries_the_gui_mark(repo_root):
    """tests/gui/conftest.py marks the folder as a whole: `-m "not gui"` collects nothing there."""
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            "not gui",
            "tests/gui",
        ],
        cwd=repo_root,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 5 and "no tests collected (" in res.stdout and " deselected)" in res.stdout, res.stdout


# ------------------------------------------------------------------ the `cli` fixture: the command in this process
def test_cli_gives_the_status_and_output_a_process_would(cli):
    """argparse ends with SystemExit: its usage error is status 2 and one line, --help is status 0."""
    bad = cli("solve", "--bogus", "x")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.splitlines() == ["sudoku-lab: error: unrecognized arguments: --bogus (see sudoku-lab --help)"]
    helped = cli("check", "--help")
    assert helped.returncode == 0 and helped.stdout.startswith("usage: sudoku-lab check") and helped.stderr == ""
    assert cli("solve", "nosuch_puzzle").returncode == 2  # an error main() itself turns into a status


def test_cli_reads_standard_input_and_takes_paths(cli, tmp_path):
    from sudoku_lab.model import library

    p = library.puzzle("reseda_fig3_1_easy")
    solution = "".join(map(str, p.solution))
    assert cli("solve", "-", "--format", "line", stdin=p.format("grid")).stdout.strip() == solution
    (tmp_path / "p.txt").write_text(p.to_line() + "\n")
    assert cli("solve", tmp_path / "p.txt", "--format", "line").stdout.strip() == solution


def test_cli_turns_other_exits_into_the_status_cpython_gives(cli, monkeypatch):
    from sudoku_lab import cli as cli_module

    for code, status, err in [(None, 0, ""), (3, 3, ""), ("stopped: no room", 1, "stopped: no room\n")]:
        monkeypatch.setattr(cli_module, "main", lambda argv, code=code: sys.exit(code))
        assert cli("library") == (status, "", err)


def test_cli_puts_back_what_a_command_changes_in_the_process(cli, monkeypatch):
    import numpy as np

    from sudoku_lab import cli as cli_module

    def untidy(argv):
        os.environ["SUDOKU_LAB_TEST_LEFT_BEHIND"] = "1"
        np.set_printoptions(precision=2)
        print("ran", argv)
        return 0

    monkeypatch.setattr(cli_module, "main", untidy)
    assert cli("library", 1) == (0, "ran ['library', '1']\n", "")
    assert "SUDOKU_LAB_TEST_LEFT_BEHIND" not in os.environ and np.get_printoptions()["precision"] == 8


@pytest.mark.parametrize("leak", ["signal handlers", "quiet compiling"])
def test_cli_fails_a_command_that_leaves_its_signal_handlers_or_quiet_behind(cli, monkeypatch, leak):
    """A caller in the same process (the lab window, a notebook) would inherit them: that is the command's bug."""
    import signal

    from sudoku_lab import cli as cli_module
    from sudoku_lab.stepping import warmup

    before = signal.getsignal(signal.SIGTERM), warmup._SILENT

    def leaky(argv):
        if leak == "signal handlers":
            signal.signal(signal.SIGTERM, lambda *a: None)
        else:
            warmup.quiet_compiling(not warmup._SILENT)
        return 0

    monkeypatch.setattr(cli_module, "main", leaky)
    with pytest.raises(pytest.fail.Exception, match=f"`sudoku-lab solve x` left {leak} changed"):
        cli("solve", "x")
    assert (signal.getsignal(signal.SIGTERM), warmup._SILENT) == before  # put back all the same
