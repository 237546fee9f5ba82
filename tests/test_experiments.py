"""The task runner: the same tasks give the same results in this process and in worker processes."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_lab import library
from sudoku_lab.experiments import Task, run_task, run_tasks

# Worker processes load the kernels from numba's disk cache, which the session fixture fills.
pytestmark = pytest.mark.usefixtures("warm_kernels")


def _tasks():
    pz = library.puzzle("reseda_fig3_2_medium")
    return [Task("reseda", {"restart": "none", "alpha": a}, pz, seed, key=f"{a}-{seed}")
            for a in (0.5, 0.9) for seed in range(3)]


def test_worker_processes_reproduce_in_process_results():
    tasks = _tasks()
    here = dict(run_tasks(tasks, jobs=1))
    there = dict(run_tasks(tasks, jobs=2))
    assert set(here) == set(there) == set(range(len(tasks)))
    for i in here:
        a, b = here[i], there[i]
        assert (a.key, a.seed, a.solved, a.iterations, a.evaluations, a.cost) == (
            b.key, b.seed, b.solved, b.iterations, b.evaluations, b.cost)
        assert np.array_equal(a.grid, b.grid)


def test_stop_request_ends_early():
    tasks = _tasks()
    got = list(run_tasks(tasks, jobs=1, should_stop=lambda: False))
    assert len(got) == len(tasks)
    count = []
    partial = list(run_tasks(tasks, jobs=1, should_stop=lambda: len(count) > 0 or count.append(1)))
    assert len(partial) < len(tasks)


def test_run_task_summary():
    t = _tasks()[0]
    r = run_task(t)
    assert r.solver == "reseda" and r.puzzle == "reseda_fig3_2_medium" and r.seconds > 0
    assert r.extra["attempts"] == 1 and len(r.extra["run_steps"]) == 1 and r.extra["run_steps"][0] == r.iterations
    d = r.to_json()
    assert isinstance(d["grid"], str) and len(d["grid"]) == 81
