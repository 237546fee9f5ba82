"""Shared test set-up: headless Qt, hypothesis settings, warm kernels once per session."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# Qt must never need a display in tests (CI has none); set before anything imports Qt.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

# tests/naive.py (slow reference twins) is imported as `naive`.
sys.path.insert(0, str(Path(__file__).parent))

from hypothesis import settings  # noqa: E402

settings.register_profile("sudoku-lab", deadline=None, print_blob=True)
settings.load_profile("sudoku-lab")

import pytest  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def warm_kernels():
    """Every registered solver's kernels and the shared ones, loaded (or compiled) once per session.

    Not autouse: on a cold numba cache this compiles for a minute or more, which
    most tests never need. Tests that time work, or start processes with a
    deadline (which then load the kernels from numba's disk cache instead of
    compiling them), ask for it.
    """
    from sudoku_lab.warmup import warm_up

    return warm_up()
