"""tests/conftest.py's rule for checks that need an outside program (the ``needs_qqwing`` marker).

Each case runs pytest in a subprocess on a two-test file, with this repository's conftest and
pyproject.toml and a PATH holding only what the case puts there, so the real qqwing (present or not)
never decides the outcome.
"""

from __future__ import annotations

import stat

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
    result.stdout.fnmatch_lines(["*qqwing is not installed, but this is CI (CI=true), where the checks marked "
                                 "needs_qqwing must run: .ci/run installs it (apt install qqwing)*"])
    assert result.ret != 0


@pytest.mark.parametrize("ci", [None, "true"])
def test_installed_qqwing_runs_the_check(run, ci):
    run(ci=ci, with_qqwing=True).assert_outcomes(passed=2)

