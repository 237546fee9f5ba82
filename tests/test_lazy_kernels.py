"""``sudoku_lab._kernels.lazy``: a kernel module's code runs at the first use of one of its names, once, and a
thread that reads it meanwhile waits for the whole module (``importlib.util.LazyLoader`` on Python 3.11 shows
such a thread the half-run module: an ``AttributeError`` in the lab's worker thread)."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from sudoku_lab._kernels import lazy

_SLOW_MODULE = """
import time
RUNS = __import__("builtins").__dict__.setdefault("_lazy_runs", [])
RUNS.append(1)
FIRST = 1
time.sleep(0.3)
LAST = 2
"""


@pytest.fixture
def slow_module(tmp_path, monkeypatch):
    name = f"lazy_probe_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(_SLOW_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import builtins

    monkeypatch.setattr(builtins, "_lazy_runs", [], raising=False)
    yield name
    sys.modules.pop(name, None)


def test_threads_reading_a_deferred_module_see_it_whole_and_it_runs_once(slow_module):
    mod = lazy(slow_module)
    import builtins

    seen, errors = [], []

    def read():
        try:
            seen.append(mod.LAST)
        except Exception as exc:  # the half-run module
            errors.append(exc)

    threads = [threading.Thread(target=read) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == [] and seen == [2] * 6
    assert builtins._lazy_runs == [1]
    assert type(mod) is type(sys)  # a plain module from then on: no cost per read
    assert lazy(slow_module) is mod and sys.modules[slow_module] is mod


def test_reading_what_its_spec_says_runs_nothing(slow_module):
    import builtins

    mod = lazy(slow_module)
    assert mod.__name__ == slow_module and isinstance(mod, type(sys)) and mod.__spec__.name == slow_module
    assert builtins._lazy_runs == []  # (isinstance reads __class__: the registry's checks do)
    assert mod.LAST == 2 and builtins._lazy_runs == [1]


def test_an_import_of_a_deferred_module_returns_it_and_a_write_runs_it_first(slow_module):
    mod = lazy(slow_module)
    import importlib

    assert importlib.import_module(slow_module) is mod
    mod.EXTRA = 3  # as monkeypatch does: the module's code must not overwrite it later
    assert (mod.FIRST, mod.LAST, mod.EXTRA) == (1, 2, 3)


def test_a_module_that_fails_is_not_left_half_run(tmp_path, monkeypatch):
    (tmp_path / "lazy_broken_probe.py").write_text("A = 1\nraise RuntimeError('kernel module broken')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = lazy("lazy_broken_probe")
    with pytest.raises(RuntimeError, match="kernel module broken"):
        _ = mod.A
    assert "lazy_broken_probe" not in sys.modules  # the next import raises the same error, not half a module
    with pytest.raises(RuntimeError, match="kernel module broken"):
        __import__("lazy_broken_probe")
    sys.modules.pop("lazy_broken_probe", None)


def test_an_unknown_module_is_a_module_not_found_error():
    with pytest.raises(ModuleNotFoundError, match="sudoku_lab._kernels.no_such_kernel"):
        lazy("sudoku_lab._kernels.no_such_kernel")


def test_listing_the_solvers_and_creating_one_run_no_kernel_module():
    code = (
        "import sys\n"
        "from sudoku_lab.solvers import registry, create\n"
        "names = sorted(registry())\n"
        "ran = lambda: sorted(m for m, v in sys.modules.items() if m.startswith('sudoku_lab._kernels.')\n"
        "                     and not m.endswith(('_layout', '.status')) and type(v) is type(sys))\n"
        "print(len(names), 'numba' in sys.modules, ran())\n"
        "s = create('hill_climb')\n"
        "print(ran())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    listed, used = out.stdout.splitlines()
    assert listed.split(" ", 2)[1:] == ["False", "[]"] and int(listed.split()[0]) >= 8
    assert used == "[]"  # creating a solver is not running it: its kernel is still deferred
