"""Shared test set-up: headless Qt, hypothesis settings, warm kernels once per session."""

from __future__ import annotations

import io
import os
import shutil
import signal
import sys
from pathlib import Path
from typing import NamedTuple

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
#: marker -> (programs on PATH, space separated; how to install them). Without one of them those checks
#: skip visibly, except under CI, which installs them (.ci/run) and so must never pass by skipping them.
REQUIRED_PROGRAMS = {
    "needs_qqwing": ("qqwing", "apt install qqwing"),
    "needs_pdflatex": ("pdflatex pdftotext pdftoppm", "apt install texlive-latex-base poppler-utils"),
}


def under_ci() -> bool:
    """True in a CI run: ``CI=true``, as CI starts .ci/run (tests/test_startup.py reads it the same way)."""
    return os.environ.get("CI") == "true"


def pytest_runtest_setup(item):
    for marker, (programs, install) in REQUIRED_PROGRAMS.items():
        missing = [p for p in programs.split() if shutil.which(p) is None]
        if item.get_closest_marker(marker) is None or not missing:
            continue
        program = missing[0]
        if under_ci():
            pytest.fail(
                f"{program} is not installed, but this is CI (CI={os.environ['CI']}), where the checks "
                f"marked {marker} must run: .ci/run installs it ({install})",
                pytrace=False,
            )
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
    from sudoku_lab.stepping.warmup import warm_up

    return warm_up()


@pytest.fixture
def runs(monkeypatch):
    """Counts the runs actually run (not read back from a results directory): ``runs[0]``."""
    from sudoku_lab.engine import experiments

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
    from sudoku_lab.plugins import Registry

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
            raise QtStartedWithoutGuiMark(
                f"{_name} started in a run without gui tests: mark the test "
                "@pytest.mark.gui (tests/gui is marked as a whole)"
            )

        setattr(module, name, type(name, (real,), {"__init__": refuse, "__module__": __name__}))


# ------------------------------------------------------------------ the command, in this process
class CliRun(NamedTuple):
    """What ``sudoku-lab ARGS`` did: its exit status and everything it wrote.

    The field names are :class:`subprocess.CompletedProcess`'s, so a check reads the same whether the command
    ran here (the ``cli`` fixture) or in a real process.
    """

    returncode: int
    stdout: str
    stderr: str


def _exit_status(code) -> tuple[int, str]:
    """The status (and the text on stderr) of a process ending with ``SystemExit(code)``, as CPython gives them."""
    if code is None:
        return 0, ""
    if isinstance(code, int):
        return code, ""
    return 1, f"{code}\n"


#: Signals the commands turn into a stop request (``_console.interruptible``), whose handlers must come back.
_STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))


def _process_state() -> dict:
    """What one command could leave changed in the process that ran it, for the ``cli`` fixture to compare."""
    import logging

    import numpy as np

    from sudoku_lab.stepping import warmup

    loggers = {
        "": logging.getLogger(),
        **{name: lg for name, lg in logging.Logger.manager.loggerDict.items() if isinstance(lg, logging.Logger)},
    }
    return {
        "signal handlers": {sig: signal.getsignal(sig) for sig in _STOP_SIGNALS},
        "quiet compiling": warmup._SILENT,
        "environment": dict(os.environ),
        "numpy print options": np.get_printoptions(),
        "logging": {
            "disable": logging.root.manager.disable,
            **{name: (lg.level, tuple(lg.handlers), lg.propagate, lg.disabled) for name, lg in loggers.items()},
        },
        "working directory": os.getcwd(),
    }


def _restore(state: dict) -> None:
    import logging

    import numpy as np

    from sudoku_lab.stepping import warmup

    for sig, handler in state["signal handlers"].items():
        signal.signal(sig, handler)
    warmup._SILENT = state["quiet compiling"]
    for name in set(os.environ) - set(state["environment"]):
        del os.environ[name]
    for name, value in state["environment"].items():
        if os.environ.get(name) != value:
            os.environ[name] = value
    np.set_printoptions(**state["numpy print options"])
    logs = dict(state["logging"])
    logging.disable(logs.pop("disable"))
    for name, (level, handlers, propagate, disabled) in logs.items():
        lg = logging.getLogger(name or None)
        lg.setLevel(level)
        lg.handlers[:] = handlers
        lg.propagate, lg.disabled = propagate, disabled
    os.chdir(state["working directory"])


#: What a command must put back itself (a caller in the same process, the lab window or a notebook, relies on
#: it): anything else it changes is put back by the fixture without a word (matplotlib's MPLCONFIGDIR, ...).
CLI_MUST_RESTORE = ("signal handlers", "quiet compiling")


@pytest.fixture
def cli(capsys, monkeypatch):
    """Run ``sudoku-lab ARGS`` in this process: ``cli("check", "1234", stdin=None) -> CliRun``.

    Through :func:`sudoku_lab.cli.main` with ``capsys``: arguments are made text (paths may be given), ``stdin``
    (text or bytes) is what standard input reads, and a ``SystemExit`` (argparse's usage errors and ``--help``)
    becomes the status a process would exit with. What a command changes in the process is put back afterwards,
    so tests stay independent; a command that leaves its signal handlers or ``--quiet`` behind fails the test,
    as that is a bug for any caller in the same process. The exit status a real process gives, signals, file
    descriptors and start-up are the business of the few tests that still start one.
    """
    from sudoku_lab import cli as cli_module

    def run(*args, stdin: str | bytes | None = None) -> CliRun:
        argv = [str(a) for a in args]
        before = _process_state()
        capsys.readouterr()  # what the test printed before is not the command's output
        with monkeypatch.context() as m:
            if stdin is not None:
                data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
                m.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
            exit_text = ""
            try:
                status = cli_module.main(argv)
            except SystemExit as e:
                status, exit_text = _exit_status(e.code)
        out, err = capsys.readouterr()
        after = _process_state()
        _restore(before)
        leaked = [what for what in CLI_MUST_RESTORE if after[what] != before[what]]
        if leaked:
            pytest.fail(
                f"`sudoku-lab {' '.join(argv)}` left {' and '.join(leaked)} changed: "
                f"{[(before[w], after[w]) for w in leaked]}",
                pytrace=False,
            )
        return CliRun(status, out, err + exit_text)

    return run
