"""Shared test set-up: headless Qt, hypothesis settings, warm kernels once per session."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

# Qt must never need a display in tests (CI has none); set before anything imports Qt. The offscreen
# platform's screens are a 1920x1080 desktop (the primary one) and a 1366x768 laptop beside it
# (tests/gui/screens.json), so window tests can check what fits where (Qt's own default is one 800x600 screen).
SCREENS = Path(__file__).parent / "gui" / "screens.json"
if os.environ.get("QT_QPA_PLATFORM", "offscreen") == "offscreen":
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={SCREENS}"
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

# tests/naive.py (slow reference twins) is imported as `naive`.
sys.path.insert(0, str(Path(__file__).parent))

from hypothesis import settings  # noqa: E402

settings.register_profile("sudoku-lab", deadline=None, print_blob=True)
settings.load_profile("sudoku-lab")

import pytest  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

pytest_plugins = ("pytester",)  # tests/test_conftest.py runs pytest on small test files

#: Outside programs some checks need, by the marker that says so (declared in pyproject.toml):
#: marker -> (program on PATH, how to install it). Without the program those checks skip visibly, except
#: under CI, which installs them (.ci/run) and so must never pass by skipping them.
REQUIRED_PROGRAMS = {
    "needs_qqwing": ("qqwing", "apt install qqwing"),
}


def under_ci() -> bool:
    """True in a CI run: ``CI=true``, as CI starts .ci/run (tests/test_startup.py reads it the same way)."""
    return os.environ.get("CI") == "true"


def pytest_runtest_setup(item):
    for marker, (program, install) in REQUIRED_PROGRAMS.items():
        if item.get_closest_marker(marker) is None or shutil.which(program) is not None:
            continue
        if under_ci():
            pytest.fail(f"{program} is not installed, but this is CI (CI={os.environ['CI']}), where the checks "
                        f"marked {marker} must run: .ci/run installs it ({install})", pytrace=False)
        pytest.skip(f"{program} not installed ({install})")


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


@pytest.fixture
def runs(monkeypatch):
    """Counts the runs actually run (not read back from a results directory): ``runs[0]``."""
    from sudoku_lab import experiments

    count = [0]
    real = experiments.run_task

    def counting(task, should_stop=None):
        count[0] += 1
        return real(task, should_stop=should_stop)

    monkeypatch.setattr(experiments, "run_task", counting)
    return count


@pytest.fixture
def own_reproductions(monkeypatch):
    """Empty paper and reproduction registries of the test's own, the real ones put back afterwards.

    The real ones are completed first: a built-in module first imported while the private registries are in
    place would register into them and be missing (or come last) in the real ones for the rest of the session.
    """
    import sudoku_lab.reproductions as reproductions_module
    from sudoku_lab._registry import Registry

    reproductions_module.reproductions(), reproductions_module.papers()
    none = "sudoku_lab.tests.no-such-group"
    monkeypatch.setattr(reproductions_module, "_reproductions", Registry("reproduction", group=none))
    monkeypatch.setattr(reproductions_module, "_papers", Registry("paper", key=lambda p: p.key, group=none))
    monkeypatch.setattr(reproductions_module, "_origins", {})


def pytest_collection_modifyitems(config, items):
    """Run the Qt binding checks first: the bugs they catch abort the interpreter in any later Qt test."""
    items.sort(key=lambda item: item.path.name != "test_qt_sanity.py")  # stable: the rest keep their order
