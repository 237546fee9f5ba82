"""The warm-up module: what it warms, its progress callback, its report, and that it covers long runs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from sudoku_lab.errors import ParameterError
from sudoku_lab.solvers import registry
from sudoku_lab.solvers.reseda import Reseda
from sudoku_lab.stepping.warmup import SHARED, generic_warm_up, warm_up


def test_progress_counts_every_item_then_ends_with_none(warm_kernels):
    calls = []
    report = warm_up(["reseda"], progress=lambda done, total, name: calls.append((done, total, name)))
    assert report.items == (SHARED[1], "reseda")  # RESEDA's prefilter is AC3; it never reaches the exact search
    assert calls == [(0, 2, SHARED[1]), (1, 2, "reseda"), (2, 2, None)]


@pytest.mark.parametrize(
    ("names", "shared", "items"),
    [
        (["hill_climb"], None, ("hill_climb",)),
        (["exact"], None, (SHARED[0], "exact")),
        (["cuckoo", "ga"], None, (SHARED[1], "cuckoo", "ga")),
        (["hill_climb"], True, (*SHARED, "hill_climb")),
        (["reseda"], False, ("reseda",)),
        ([], True, SHARED),
    ],
)
def test_the_shared_kernels_warmed_are_those_the_solvers_use(warm_kernels, names, shared, items):
    assert warm_up(names, shared=shared).items == items


def test_a_solver_naming_an_unknown_shared_group_is_refused(monkeypatch):
    from sudoku_lab.solvers.hill_climb import HillClimb

    monkeypatch.setattr(HillClimb, "shared_kernels", ("exakt",))
    with pytest.raises(ParameterError, match="'hill_climb' names 'exakt' in its shared_kernels"):
        warm_up(["hill_climb"])


def test_warm_once_warms_a_group_its_solver_was_warmed_without(monkeypatch, warm_kernels):
    """RESEDA warmed with shared=False, then warm_once(["reseda"]): AC3, which its prefilter reaches, is warmed too
    (before, warm_once saw the group missing but asked warm_up for no solver, which then warmed no group)."""
    from sudoku_lab.stepping import warmup

    monkeypatch.setattr(warmup, "_WARMED", set())
    warm_up(["reseda"], shared=False)
    report = warmup.warm_once(["reseda"])
    assert report is not None and report.items == (SHARED[1], "reseda")
    assert warmup.warm_once(["reseda"]) is None


FIRST_SOLVE = textwrap.dedent("""
    import sys
    from sudoku_lab.stepping.warmup import warm_once
    report = warm_once(["hill_climb"])

    def loaded(name):  # a kernel module held through _kernels.lazy is in sys.modules before it runs
        m = sys.modules.get(name)
        return m is not None and object.__getattribute__(m, "__class__").__name__ != "_Deferred"

    print(report.items, loaded("sudoku_lab._kernels.exact"), loaded("sudoku_lab._kernels.ac3"),
          loaded("sudoku_lab._kernels.hill_climb"))
""")


def test_a_first_hill_climbing_run_loads_no_shared_kernel(warm_kernels):
    """What a first ``solve --algo hill_climb`` warms: its own kernels, not the exact search's nor AC3's."""
    res = subprocess.run([sys.executable, "-c", FIRST_SOLVE], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["('hill_climb',)", "False", "False", "True"]


def test_all_registered_solvers_by_default(warm_kernels):
    assert warm_kernels.items == (*SHARED, *registry())
    assert warm_up(shared=False).items == tuple(registry())


def test_kernels_already_in_memory_are_neither_compiled_nor_loaded(warm_kernels):
    report = warm_up()
    assert (report.compiled, report.loaded, report.cold) == ((), (), False)


def test_an_unknown_solver_is_refused_before_anything_runs():
    calls = []
    with pytest.raises(ParameterError, match="unknown algorithm 'nosuch'"):
        warm_up(["reseda", "nosuch"], progress=lambda *a: calls.append(a))
    assert calls == []


def test_a_class_warm_up_hook_replaces_the_generic_default(monkeypatch):
    calls = []
    monkeypatch.setattr(Reseda, "warm_up", classmethod(lambda cls: calls.append(cls.name)), raising=False)
    monkeypatch.setattr("sudoku_lab.stepping.warmup.generic_warm_up", lambda cls: calls.append("generic"))
    assert warm_up(["reseda"], shared=False).items == ("reseda",)
    assert calls == ["reseda"]


def test_the_generic_default_steps_the_solver_on_9x9_and_4x4(monkeypatch, warm_kernels):
    sizes = []
    original = Reseda.reset

    def reset(self, puzzle, seed=0):
        sizes.append(puzzle.N)
        return original(self, puzzle, seed)

    monkeypatch.setattr(Reseda, "reset", reset)
    generic_warm_up(Reseda)
    assert sizes == [9, 4]


def test_the_batch_runner_warms_up_the_first_tasks_solver_once(monkeypatch):
    from sudoku_lab.engine import experiments
    from sudoku_lab.engine.experiments import Task, run_tasks
    from sudoku_lab.model import library

    calls = []
    monkeypatch.setattr(experiments, "warm_up", lambda names: calls.append(tuple(names)))
    pz = library.puzzle("reseda_fig3_1_easy")
    tasks = [Task("reseda", {"restart": "none"}, pz, seed, until="5it") for seed in range(2)]
    assert len(list(run_tasks(tasks, jobs=1))) == 2
    assert calls == [("reseda",)]
    assert len(list(run_tasks(tasks, jobs=1, warm=False))) == 2
    assert calls == [("reseda",)]


# A long-run workload: every RESEDA configuration that reaches a kernel differently, the exact solver's
# entry points with both grid types, box sizes 3 to 5, restarts of the exact search.
LONG_RUNS = textwrap.dedent("""
    import json, sys
    import numpy as np
    from sudoku_lab.stepping.warmup import warm_up, _dispatchers

    def signatures():
        return {name: sorted(map(str, d.signatures)) for name, d in _dispatchers().values()}

    report = warm_up()
    before = signatures()
    from sudoku_lab import exact
    from sudoku_lab.exact import generate
    from sudoku_lab.model import library
    from sudoku_lab.stepping import loop
    from sudoku_lab.exact.ac3 import ac3
    from sudoku_lab.benchmarks.exact import _text_path
    from sudoku_lab.solvers import create, registry

    configs = [{}, {"restart": "partial+full", "zones": "diagonal"}, {"prefilter": "ac3"},
               {"prefilter": "ac3+hidden", "sampling": "independent", "selection": "groups"}, {"coupling": True}]
    for name in ("benchmarks/lewis_16x16_40:1", "benchmarks/lewis_25x25_50:2", "reseda_fig4_1_hard"):
        p = library.puzzle(name)
        for params in configs:
            s = create("reseda", **params)
            s.reset(p, 1)
            loop.run(s, loop.parse_until("solved,60it"))
            s.snapshot()
        for algo in registry():
            if algo != "reseda":
                s = create(algo)
                s.reset(p, 0)
                loop.run(s, loop.parse_until("solved,60it"))
                s.snapshot()
        for grid in (p, np.array(p.grid)):
            exact.solve(grid)
            exact.count_solutions(grid, 2)
            ac3(grid, hidden_singles=True)
    exact.solve(library.puzzle("benchmarks/lewis_25x25_45:2"))  # needs restarts
    exact.solve(np.array(library.puzzle("benchmarks/lewis_25x25_45:2").grid))
    fiendish = library.collection("kennett/fiendish")[:5]
    exact.solve_many(np.stack([q.grid for q in fiendish]), 3)
    exact.solve_many(np.stack([q.grid for q in fiendish]), 3, limit=2)
    generate.generate(3, 30, seed=0)
    _text_path("".join(q.to_line() + "\\n" for q in fiendish), 3)
    after = signatures()
    json.dump({"new": {k: sorted(set(v) - set(before.get(k, []))) for k, v in after.items()
                       if set(v) - set(before.get(k, []))}, "before": sum(map(len, before.values()))}, sys.stdout)
""")


@pytest.mark.slow
def test_warm_up_covers_every_kernel_specialisation_of_long_runs(warm_kernels):
    """In a fresh process, runs on 9x9 to 25x25 puzzles after warm_up() compile no new kernel signature."""
    res = subprocess.run([sys.executable, "-c", LONG_RUNS], capture_output=True, text=True, timeout=1200)
    assert res.returncode == 0, res.stderr
    found = json.loads(res.stdout)
    assert found["before"] > 0  # the dispatchers were found at all
    assert found["new"] == {}, "kernel signatures compiled after warm_up(): " + json.dumps(found["new"], indent=1)


REPORT = textwrap.dedent("""
    import json, sys
    from sudoku_lab.stepping.warmup import warm_up
    r = warm_up(["exact"], shared=False)
    json.dump({"compiled": r.compiled, "loaded": r.loaded}, sys.stdout)
""")


@pytest.mark.slow
def test_the_report_tells_a_cold_cache_from_a_warm_one(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    runs = []
    for _ in range(2):
        res = subprocess.run([sys.executable, "-c", REPORT], capture_output=True, text=True, env=env, timeout=900)
        assert res.returncode == 0, res.stderr
        runs.append(json.loads(res.stdout))
    cold, warm = runs
    assert "sudoku_lab._kernels.exact.search" in cold["compiled"] and cold["loaded"] == []
    assert warm["compiled"] == [] and "sudoku_lab._kernels.exact.search" in warm["loaded"]


def _nine_only_solver(name, fail_on):
    """A solver whose snapshot breaks on puzzles of side ``fail_on`` (as a 9x9-only plugin's might)."""
    import numpy as np

    from sudoku_lab.solvers import Layer, Solver
    from sudoku_lab.solvers.base import frozen_copy

    class NineOnly(Solver):
        layers = (Layer("box", "cells of box 1", "bool", ("C",)),)

        def _reset(self):
            self.grid = self.best_grid = self.puzzle.grid.copy()
            self.fixed = self.puzzle.grid > 0
            self.cost = self.best_cost = 1
            self.steps_seen = 0

        def _step(self, n):
            self.iteration += n
            return n

        def _layers(self):
            if self.puzzle.N == fail_on:
                raise IndexError("index 18 is out of bounds")
            return {"box": frozen_copy(np.zeros(self.puzzle.C, bool))}

        def _state(self):
            return {}

        def _load(self, st):
            pass

    NineOnly.name = name
    return NineOnly


def test_a_solver_that_cannot_take_4x4_puzzles_is_still_warmed():
    """The lab's worker warms a plugin solver; a failure on the 4x4 warm-up puzzle must not stop it."""
    from sudoku_lab.solvers import register, unregister
    from sudoku_lab.stepping.warmup import generic_warm_up, warm_up

    cls = register(_nine_only_solver("tmp-nine-only", fail_on=4))
    try:
        assert warm_up(["tmp-nine-only"], shared=False).items == ("tmp-nine-only",)
    finally:
        unregister("tmp-nine-only")
    with pytest.raises(IndexError):  # a failure on the 9x9 puzzle is real and propagates
        generic_warm_up(_nine_only_solver("tmp-broken", fail_on=9))
    assert cls.name == "tmp-nine-only"


# ------------------------------------------ compiling is said, and never inside a run's time (issue 17, item 8)
def _lazy_solver(name):
    """A solver whose one kernel (a numba function of its own, never cached) compiles on first call; its class
    warm-up compiles it, and each step records whether the kernel was still uncompiled when the step began
    (that compile would have been inside the run's time)."""
    import numba
    import numpy as np

    from sudoku_lab.solvers import Solver

    @numba.njit(cache=False)
    def bump(x):
        return x + 1

    class Lazy(Solver):
        cold_steps: list = []

        @classmethod
        def warm_up(cls):
            bump(0)

        def _reset(self):
            self.grid = self.best_grid = self.puzzle.grid.copy()
            self.fixed = self.puzzle.grid > 0
            self.cost = self.best_cost = 1

        def _step(self, n):
            type(self).cold_steps.append(not bump.signatures)
            self.iteration += int(bump(n)) - 1
            return n

        def _layers(self):
            return {}

        def _state(self):
            return {}

        def _load(self, st):
            pass

    Lazy.name = name
    Lazy.cold_steps = []
    Lazy.kernel = bump
    del np
    return Lazy


@pytest.fixture
def lazy_solver(warm_kernels):
    from sudoku_lab.solvers import register, unregister

    cls = register(_lazy_solver("tmp-lazy"))
    yield cls
    unregister("tmp-lazy")


def test_solve_compiles_before_the_run_and_says_so_once(lazy_solver, capsys):
    """Before: `solve --algo` compiled inside its first steps and printed that as the run's time, silently."""
    from sudoku_lab.cli import main

    assert main(["solve", "--algo", "tmp-lazy", "--until", "3", "reseda_fig3_1_easy"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert lazy_solver.cold_steps and not any(lazy_solver.cold_steps)  # compiled before the clock started
    notice = [line for line in err if line.startswith("compil")]
    assert len(notice) == 2 and err[:2] == notice  # said first, before any progress
    # the toy's kernel is njit(cache=False), as a plugin's may be: said as compiled at every start, not once
    assert notice[0] == "compiling kernels (1 of 1): tmp-lazy: test_warmup._lazy_solver.<locals>.bump (not cached)"
    assert re.fullmatch(
        r"compiled 1 kernel in [\d.]+ s: their solver keeps no cache, so every start compiles them", notice[1]
    ), notice[1]
    assert err[-1].startswith("# reseda_fig3_1_easy: tmp-lazy seed 0: not solved (max_iterations)")
    assert main(["solve", "--algo", "tmp-lazy", "--until", "3", "reseda_fig3_1_easy"]) == 1
    assert not [line for line in capsys.readouterr().err.splitlines() if "compil" in line]  # nothing to compile


def test_quiet_says_nothing_while_compiling_and_still_compiles_before_the_clock(warm_kernels, capsys):
    from sudoku_lab.cli import main
    from sudoku_lab.solvers import register, unregister

    cls = register(_lazy_solver("tmp-lazy-quiet"))
    try:
        assert main(["solve", "--algo", "tmp-lazy-quiet", "--until", "3", "--quiet", "reseda_fig3_1_easy"]) == 1
        err = capsys.readouterr().err.splitlines()
        assert cls.cold_steps and not any(cls.cold_steps)
        assert len(err) == 1 and err[0].startswith("# reseda_fig3_1_easy: tmp-lazy-quiet seed 0: not solved")
    finally:
        unregister("tmp-lazy-quiet")


def test_a_kernel_without_a_cache_is_not_said_to_compile_once():
    """A plugin's njit(cache=False) kernel compiles at every start: the notice must not promise a cache."""
    import io

    from sudoku_lab.stepping.warmup import UNCACHED, CompileNotice

    out = io.StringIO()
    notice = CompileNotice(out)
    notice("toy.step" + UNCACHED, 0, 1, "toy")
    notice.close()
    first, last = out.getvalue().splitlines()
    assert first == "compiling kernels (1 of 1): toy: toy.step (not cached)"
    assert re.fullmatch(
        r"compiled 1 kernel in [\d.]+ s: their solver keeps no cache, so every start compiles "
        r"them",
        last,
    ), last


def test_the_compile_listener_marks_a_kernel_numba_does_not_cache():
    from numba import njit

    from sudoku_lab.stepping.warmup import UNCACHED, _CompileListener

    @njit(cache=False)
    def plain(x):
        return x + 1

    seen = []
    listener = _CompileListener(seen.append)
    with listener.installed():
        plain(1)
    assert seen == [
        f"{__name__}.test_the_compile_listener_marks_a_kernel_numba_does_not_cache.<locals>.plain{UNCACHED}"
    ]


def test_a_run_task_result_never_includes_compiling(lazy_solver):
    """The `seconds` of a results row: run_task compiles before its clock starts, even called on its own."""
    from sudoku_lab.engine.experiments import Task, run_task
    from sudoku_lab.model import library

    res = run_task(Task("tmp-lazy", {}, library.puzzle("reseda_fig3_1_easy"), 0, until="3it"))
    assert res.iterations == 3 and lazy_solver.cold_steps and not any(lazy_solver.cold_steps)


def test_the_stepping_loop_compiles_before_its_clock(lazy_solver):
    """Every front end that times a run through loop.iterate (the lab's worker included) gets it for free."""
    from sudoku_lab.model import library
    from sudoku_lab.solvers import create
    from sudoku_lab.stepping import loop

    s = create("tmp-lazy")
    s.reset(library.puzzle("reseda_fig3_1_easy"), seed=0)
    assert loop.run(s, loop.MaxIterations(2)).snapshot.iteration == 2
    assert lazy_solver.cold_steps and not any(lazy_solver.cold_steps)


def test_a_compile_is_said_with_its_item_and_count_and_a_warm_cache_says_nothing(lazy_solver, capsys):
    from sudoku_lab.stepping.warmup import CompileNotice

    said = []
    report = warm_up(["reseda", "tmp-lazy"], on_compile=lambda *what: said.append(what))
    assert said == [("test_warmup._lazy_solver.<locals>.bump (not cached)", 2, 3, "tmp-lazy")]
    assert report.items == (SHARED[1], "reseda", "tmp-lazy") and capsys.readouterr().err == ""
    warm_up(["reseda", "tmp-lazy"])  # everything in memory: the default notice says nothing
    assert capsys.readouterr().err == ""
    notice = CompileNotice()  # what worker processes send, from two workers at once: one line per item
    for _worker in range(2):
        notice("ga.step", 2, 3, "ga")
    notice("ga.other", 2, 3, "ga")
    notice.close()
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "compiling kernels, once (3 of 3): ga: ga.step" and len(lines) == 2
    assert lines[1].startswith("compiled 2 kernels in ")


def test_check_and_generate_warm_the_shared_kernels_first(monkeypatch, capsys):
    """`check` was silent for 21 s on a cold cache, and `generate --time-limit` counted compiling in its limit:
    both warm the shared kernels, with the notice, before their work (and after reading their input)."""
    from sudoku_lab import cli
    from sudoku_lab.exact import generate
    from sudoku_lab.stepping import warmup

    calls = []
    monkeypatch.setattr(warmup, "warm_up", lambda names=None, **kw: calls.append((tuple(names), kw)))
    monkeypatch.setattr(warmup, "_WARMED", set(), raising=False)
    assert cli.main(["check", "nosuch_puzzle"]) == 2 and calls == []  # a mistake is said before any compiling
    assert cli.main(["check", "reseda_fig3_1_easy"]) == 0
    assert calls == [((), {"shared": True})]
    calls.clear()
    warmup._WARMED.clear()
    assert cli.main(["generate", "--box", "2", "--clues", "8"]) == 0
    assert calls == [((), {"shared": True})]
    # The generator itself sits below the stepping layer: it compiles the exact search silently, before its
    # time limit starts (the command above has said "compiling" by then).
    seen = []
    monkeypatch.setattr(generate, "warm_kernels", lambda: seen.append("warm"))
    generate.generate_grid(2, 8, seed=0)
    assert seen == ["warm"]
    capsys.readouterr()


def _cold_cli(cache, *args):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    res = subprocess.run(
        [sys.executable, "-m", "sudoku_lab", *map(str, args)], capture_output=True, text=True, env=env, timeout=1800
    )
    assert res.returncode == 0, res.stderr
    return res


def _compiled_seconds(err: str) -> float:
    """The time of the notice's last line, ``compiled N kernels in X s, once: ...``."""
    import re

    m = re.search(r"^compiled \d+ kernels? in ([\d.]+) s, once: later runs load them from the cache$", err, re.M)
    assert m, err
    return float(m.group(1))


@pytest.mark.slow
def test_a_cold_cache_is_said_and_never_counted_in_a_run(tmp_path):
    """On an empty kernel cache: `check` says what it compiles instead of 21 s of silence; `solve` and a batch on
    two worker processes compile before their clocks (before: "solved after 15 EDA steps ... 17.440 s" for a run
    of 0.045 s), the workers' compiling said once by the parent; with the cache warm, nothing is said."""
    import re
    import shutil

    from sudoku_lab.engine.results import load_results

    one, two = tmp_path / "cache1", tmp_path / "cache2"
    res = _cold_cli(one, "check", "reseda_fig4_1_hard")
    assert res.stdout.startswith("reseda_fig4_1_hard: 9x9, 31 givens, unique solution")
    lines = res.stderr.splitlines()
    assert [line.split(": ")[0] + ": " + line.split(": ")[1] for line in lines[:2]] == [
        f"compiling kernels, once (1 of 2): {SHARED[0]}",
        f"compiling kernels, once (2 of 2): {SHARED[1]}",
    ]
    assert len(lines) == 3
    _compiled_seconds(res.stderr)
    shutil.copytree(one, two)  # the shared kernels only

    res = _cold_cli(one, "solve", "--algo", "hill_climb", "reseda_fig4_1_hard")
    assert re.match(
        r"compiling kernels, once \(1 of 1\): hill_climb: hill_climb\.\w+\ncompiled \d+ kernels in "
        r"[\d.]+ s, once: later runs load them from the cache\n",
        res.stderr,
    ), res.stderr
    verdict = res.stderr.splitlines()[-1]
    assert verdict.startswith("# reseda_fig4_1_hard: hill_climb seed 0: solved after"), res.stderr
    run = float(re.search(r"evaluations, ([\d.]+) s$", verdict).group(1))
    assert run < _compiled_seconds(res.stderr)  # the same process: the run's time is not the compile time

    res = _cold_cli(
        two,
        "batch",
        "--algo",
        "hill_climb",
        "--puzzles",
        "reseda_fig4_1_hard",
        "--runs",
        "4",
        "--jobs",
        "2",
        "--out",
        tmp_path / "r",
    )
    said = [line for line in res.stderr.splitlines() if line.startswith("compiling")]
    assert len(said) == 1 and said[0].startswith("compiling kernels, once (1 of 1): hill_climb: ")  # both workers
    seconds = [r["seconds"] for r in load_results(tmp_path / "r").rows()]
    assert len(seconds) == 4 and max(seconds) < _compiled_seconds(res.stderr)

    assert _cold_cli(one, "check", "reseda_fig4_1_hard").stderr == ""  # a warm cache: not a word
