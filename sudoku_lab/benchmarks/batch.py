"""``sudoku-lab bench batch``: the same batch of runs in one process, in the process pool and on a local Dask
cluster, side by side.

Each way runs the same tasks (RESEDA, one seeded run per puzzle of a set)
through the engine's own executor (:class:`~sudoku_lab.engine.experiments.Workers`);
the pool and the cluster are started and warmed once, before the passes, and
kept for all of them, as ``reproduce`` keeps them for all its batches, so the
ratios are the batch engine's throughput: how much of the extra cores a batch
gets. Start-up (spawning the workers, loading the kernels in each) is timed
too and printed, with the ratios it gives for one batch of this size. Every
way must give the same runs (same solved flags and iterations); the benchmark
says so, or fails.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .._checks import int_range
from . import BenchmarkOption, register_benchmark
from ._timing import ratio, ratio_text, side_by_side

#: The issue's targets on 2 cores: pool and Dask throughput over one process.
TARGETS = {"pool": 1.8, "dask": 1.6}


#: The sub-command's options.
_OPTIONS = (
    BenchmarkOption(
        "--runs",
        type=int_range(2, 100_000),
        default=200,
        help="runs in the batch: one per puzzle of --set, cycling if it has fewer (default 200)",
    ),
    BenchmarkOption("--set", default="kennett/easy", help="puzzle collection (default kennett/easy)"),
    BenchmarkOption(
        "--jobs",
        type=int_range(2),
        default=None,
        help="worker processes of the pool and the Dask cluster (default: every CPU)",
    ),
    BenchmarkOption(
        "--repeat", type=int_range(1, 100), default=5, help="passes; the best of each way counts (default 5)"
    ),
    BenchmarkOption("--no-dask", action="store_true", help="leave the Dask cluster out"),
)


def _run(args, out: Callable[[str], object]) -> int:
    from ..engine.experiments import Task, Workers, default_jobs, effective_jobs, run_tasks
    from ..errors import ParameterError
    from ..model import library
    from ..stepping.warmup import warm_up

    puzzles = library.collection(args.set)
    jobs, note = effective_jobs(args.jobs or default_jobs())
    if jobs < 2:
        raise ParameterError("bench batch needs at least 2 CPUs to compare workers with one process", name="jobs")
    if note:
        out(f"note: {note}")
    tasks = [Task("reseda", {}, puzzles[i % len(puzzles)], i, "solved,1000000it", key=str(i)) for i in range(args.runs)]
    warm_up(("reseda",))
    out(
        f"batch: {args.runs} RESEDA runs (default parameters: partial+full restarts, until solved) on {args.set}, "
        f"{jobs} worker processes on {default_jobs()} CPUs; best of {args.repeat} passes, measured side by side in "
        "this run"
    )

    def collect(results) -> dict:
        return {i: (r.solved, r.iterations) for i, r in results}

    def through(key: str, workers: Workers) -> Callable[[], object]:
        """One pass of the batch through ``workers``, its results recorded under ``key``."""
        return lambda: got.__setitem__(key, collect(workers(tasks, None, ("reseda",))))

    got: dict[str, dict] = {}
    ways = (
        {"pool": Workers(jobs)} if args.no_dask else {"pool": Workers(jobs), "dask": Workers(scheduler=f"local:{jobs}")}
    )
    start = {}
    try:
        for key, workers in ways.items():
            t0 = time.perf_counter()
            workers.start(("reseda",))
            start[key] = time.perf_counter() - t0
        cases: dict[str, Callable[[], object]] = {
            "one process": lambda: got.__setitem__("one process", collect(run_tasks(tasks, jobs=1, warm=False)))
        }
        for key, workers in ways.items():
            cases[key] = through(key, workers)
        best = side_by_side(cases, args.repeat)
    finally:
        for workers in ways.values():
            workers.close()
    serial = best["one process"]
    names = {"one process": "one process", "pool": f"process pool ({jobs})", "dask": f"Dask local:{jobs}"}
    ratios = {}
    for key, seconds in best.items():
        line = f"  {names[key]:<18} {seconds:8.3f} s {args.runs / seconds:8.1f} runs/s"
        if key != "one process":
            ratios[key] = ratio(serial, seconds)
            line += f"  {ratio_text(ratios[key])} one process"
        out(line)
    with_start = "; ".join(f"{names[k]} {ratio_text(ratio(serial, best[k] + start[k]), 0)}" for k in start)
    out(
        "  start-up, once per batch: "
        + ", ".join(f"{names[k]} {v:.1f} s" for k, v in start.items())
        + f"; one batch of {args.runs} runs with its start-up: {with_start} one process"
    )
    same = all(got[k] == got["one process"] for k in got)
    out(f"  the same runs every way (solved, iterations of each of the {args.runs}): {'yes' if same else 'NO'}")
    verdicts = [
        f"{names[k]} {ratio_text(r, 0)} (target {TARGETS[k]}x): "
        f"{'met' if r is not None and r >= TARGETS[k] else 'NOT met'}"  # r: never None, the times are > 0
        for k, r in ratios.items()
    ]
    out("  targets on 2 cores: " + "; ".join(verdicts))
    return 0 if same else 1


register_benchmark(
    "batch",
    help="one batch of RESEDA runs in one process, the process pool and a local Dask cluster: throughput ratios",
    options=_OPTIONS,
    run=_run,
    solver="reseda",
    description=__doc__.split("\n\n", 1)[0].replace("``", "'"),
)
