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


#: QT_QPA_PLATFORM in a run that selected no ``gui`` test: a Qt application a child process starts with this
#: environment fails at once, naming the platform, so a test that starts Qt without the mark fails.
NO_QT_PLATFORM = "none-in-a-run-without-gui-tests--mark-the-test-gui"


def pytest_collection_finish(session):
    """A run that selected no test marked ``gui`` (``-m "not gui"``, or a selection without any) starts no Qt.

    Qt applications are refused for the rest of the run: in this process, constructing one raises (a one-line
    error naming the mark); in a child process that inherits the environment, QT_QPA_PLATFORM names no
    platform, so Qt exits at once. Either way the test that started Qt fails instead of passing unmarked.
    """
    if any(item.get_closest_marker("gui") is not None for item in session.items):
        return
    os.environ["QT_QPA_PLATFORM"] = NO_QT_PLATFORM
    _refuse_qt_applications()


class QtStartedWithoutGuiMark(RuntimeError):
    """A test started Qt in a run that selected no ``gui`` test: the test lacks the mark."""


def _refuse_qt_applications() -> None:
    try:  # importing the binding starts nothing (pytest-qt has done it already); only an application does
        from PySide6 import QtCore, QtGui, QtWidgets
    except ImportError:  # no usable Qt here: nothing in this process can start it
        return
    for module, name in ((QtCore, "QCoreApplication"), (QtGui, "QGuiApplication"), (QtWidgets, "QApplication")):
        real = getattr(module, name)

        def refuse(self, *args, _name=name, **kwargs):
            raise QtStartedWithoutGuiMark(f"{_name} started in a run without gui tests: mark the test "
                                          "@pytest.mark.gui (tests/gui is marked as a whole)")

        setattr(module, name, type(name, (real,), {"__init__": refuse, "__module__": __name__}))
