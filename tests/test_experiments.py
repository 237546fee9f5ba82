"""The task runner: the same tasks give the same results in this process and in worker processes."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_lab.engine.experiments import RunResult, Task, run_task, run_tasks
from sudoku_lab.engine.results import task_row
from sudoku_lab.model import library

# Worker processes load the kernels from numba's disk cache, which the session fixture fills.
pytestmark = pytest.mark.usefixtures("warm_kernels")


def _tasks():
    pz = library.puzzle("reseda_fig3_2_medium")
    return [
        Task("reseda", {"restart": "none", "alpha": a}, pz, seed, key=f"{a}-{seed}")
        for a in (0.5, 0.9)
        for seed in range(3)
    ]


def test_worker_processes_reproduce_in_process_results():
    tasks = _tasks()
    here = dict(run_tasks(tasks, jobs=1))
    there = dict(run_tasks(tasks, jobs=2))
    assert set(here) == set(there) == set(range(len(tasks)))
    for i in here:
        a, b = here[i], there[i]
        assert (a.key, a.seed, a.solved, a.iterations, a.evaluations, a.cost) == (
            b.key,
            b.seed,
            b.solved,
            b.iterations,
            b.evaluations,
            b.cost,
        )
        assert np.array_equal(a.grid, b.grid)


def _same_result(a, b):
    return (a.key, a.seed, a.solved, a.iterations, a.cost) == (
        b.key,
        b.seed,
        b.solved,
        b.iterations,
        b.cost,
    ) and np.array_equal(a.grid, b.grid)


def test_stop_request_ends_early():
    tasks = _tasks()
    full = list(run_tasks(tasks, jobs=1, should_stop=lambda: False))
    assert [i for i, _ in full] == list(range(len(tasks)))
    # A stop that turns true once two results have arrived: exactly those two, unchanged, and nothing more.
    got = []
    for item in run_tasks(tasks, jobs=1, should_stop=lambda: len(got) >= 2):
        got.append(item)
    assert [i for i, _ in got] == [0, 1]
    assert all(_same_result(r, full[i][1]) for i, r in got)


def test_stop_request_during_a_run_yields_no_partial_result():
    # The runner polls before each task and the run loop before each chunk (chunks of 1, 4, 16 ... steps),
    # so the third poll comes after the first run's first step; that run needs 9 steps to finish. It is
    # cancelled and not yielded, so a resumed experiment reruns it with its seed.
    tasks = _tasks()
    polls = []

    def stop():
        polls.append(1)
        return len(polls) >= 3

    assert list(run_tasks(tasks, jobs=1, should_stop=stop)) == []
    assert len(polls) == 3, "the runner must stop polling (and running) once told to stop"


def test_run_task_summary():
    t = _tasks()[0]
    r = run_task(t)
    assert r.solver == "reseda" and r.puzzle == "reseda_fig3_2_medium" and r.seconds > 0
    assert r.extra["attempts"] == 1 and len(r.extra["run_steps"]) == 1 and r.extra["run_steps"][0] == r.iterations
    assert r.restarts == 0 == r.extra["restarts"] and r.host and r.finished > 0
    row = task_row(t, r)
    assert len(row["grid"]) == 81 and "." not in row["grid"]  # RESEDA's grids are always full
    assert RunResult.from_row(row).iterations == r.iterations


def test_chunks_carry_about_the_target_of_work_and_shrink_at_the_end_of_a_batch():
    from types import SimpleNamespace

    from sudoku_lab.engine._chunks import ChunkSizer, next_chunk, prepend, remaining

    sizer = ChunkSizer(0.2, most=64)
    assert sizer.size(left=1000, workers=2) == 1  # nothing measured yet: one run at a time
    sizer.add([SimpleNamespace(seconds=0.004)] * 10)  # 4 ms runs
    assert sizer.size() == 50  # 0.2 s of work
    assert sizer.size(left=1000, workers=2) == 50
    assert sizer.size(left=120, workers=2) == 30  # guided: a quarter of what is left with two workers
    assert sizer.size(left=12, workers=2) == 10  # never below a fifth of the target (0.04 s: 10 runs)
    sizer.add([SimpleNamespace(seconds=10.0)])  # long runs: one at a time
    assert sizer.size(left=1000, workers=2) == 1
    assert ChunkSizer(1.0, most=8).size() == 1
    fast = ChunkSizer(1.0, most=8)
    fast.add([SimpleNamespace(seconds=1e-5)])
    assert fast.size() == 8
    it = iter(range(10))
    assert next_chunk(it, 4) == [0, 1, 2, 3] and remaining(it) == 6
    ahead = prepend(-1, it)
    assert remaining(ahead) == 7 and next_chunk(ahead, 3) == [-1, 4, 5] and remaining(ahead) == 4
    assert remaining(x for x in range(3)) == -1  # a generator does not say
