"""The warm-up module: what it warms, its progress callback, its report, and that it covers long runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from sudoku_lab.errors import ParameterError
from sudoku_lab.solvers import registry
from sudoku_lab.solvers.reseda import Reseda
from sudoku_lab.warmup import SHARED, generic_warm_up, warm_up


def test_progress_counts_every_item_then_ends_with_none(warm_kernels):
    calls = []
    report = warm_up(["reseda"], progress=lambda done, total, name: calls.append((done, total, name)))
    assert report.items == (*SHARED, "reseda")
    assert calls == [(0, 3, SHARED[0]), (1, 3, SHARED[1]), (2, 3, "reseda"), (3, 3, None)]


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
    monkeypatch.setattr("sudoku_lab.warmup.generic_warm_up", lambda cls: calls.append("generic"))
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
    from sudoku_lab import experiments, library
    from sudoku_lab.experiments import Task, run_tasks

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
    from sudoku_lab.warmup import warm_up, _dispatchers

    def signatures():
        return {name: sorted(map(str, d.signatures)) for name, d in _dispatchers().values()}

    report = warm_up()
    before = signatures()
    from sudoku_lab import exact, generate, library, loop
    from sudoku_lab.ac3 import ac3
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
    from sudoku_lab.warmup import warm_up
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
    assert "sudoku_lab._kernels.exact.solve_grid" in cold["compiled"] and cold["loaded"] == []
    assert warm["compiled"] == [] and "sudoku_lab._kernels.exact.solve_grid" in warm["loaded"]


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
    from sudoku_lab.warmup import generic_warm_up, warm_up

    cls = register(_nine_only_solver("tmp-nine-only", fail_on=4))
    try:
        assert warm_up(["tmp-nine-only"], shared=False).items == ("tmp-nine-only",)
    finally:
        unregister("tmp-nine-only")
    with pytest.raises(IndexError):  # a failure on the 9x9 puzzle is real and propagates
        generic_warm_up(_nine_only_solver("tmp-broken", fail_on=9))
    assert cls.name == "tmp-nine-only"
