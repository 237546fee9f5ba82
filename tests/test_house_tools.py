"""The house tools run as tests, so CI's one command (`python -m pytest`) lints, format-checks and type-checks.

ruff (lint and format) covers sudoku_lab, ui, tests and examples; mypy covers the core (sudoku_lab). Their
settings are pyproject.toml's [tool.ruff] and [tool.mypy]; both come with the `test` extra.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

TOOL_TIMEOUT = 600  # seconds: a cold mypy run over the core takes under a minute on two busy cores


def _run(repo_root, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=repo_root, capture_output=True, text=True, timeout=TOOL_TIMEOUT
    )


def _report(out: subprocess.CompletedProcess) -> str:
    return f"exit status {out.returncode}\n{out.stdout[-20000:]}\n{out.stderr[-5000:]}"


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("ruff", "check", "--no-cache", "."), id="ruff-check"),
        pytest.param(("ruff", "format", "--check", "--no-cache", "."), id="ruff-format"),
    ],
)
def test_ruff_is_clean(repo_root, args):
    out = _run(repo_root, *args)
    assert out.returncode == 0, _report(out)


def test_mypy_is_clean_on_the_core(repo_root):
    # The files to check and every setting come from [tool.mypy]; no cache is written into the checkout.
    out = _run(repo_root, "mypy", "--cache-dir", "/dev/null")
    assert out.returncode == 0, _report(out)
