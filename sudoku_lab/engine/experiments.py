"""Running many solver runs: tasks, results, a process pool, and resumable results files.

A :class:`Task` is everything one run needs (solver name, parameters, puzzle,
seed, stopping rule) and is picklable, so the same task runs in this process,
in a worker process, or on a Dask cluster (:mod:`sudoku_lab.engine.cluster`), with
the same result. :func:`run_tasks` yields results as they finish and stops
promptly when asked. :func:`execute` is the engine every command runs on: it
skips the tasks a results directory (:class:`~sudoku_lab.engine.results.ResultStore`)
already holds and appends each finished run to it at once, so an interrupted
experiment resumes where it stopped.
"""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

import numpy as np

from .._checks import checked
from ..errors import ParameterError
from ..files import json_loads
from ..model.puzzle import Puzzle
from ..stepping.warmup import warm_once, warm_up
from ._chunks import ChunkSizer, finished_runs, next_chunk, prepend, remaining

if TYPE_CHECKING:
    from .results import ResultStore

__all__ = [
    "Task",
    "RunResult",
    "run_task",
    "run_tasks",
    "execute",
    "run_batch",
    "Workers",
    "BatchProgress",
    "config_label",
    "where_text",
    "default_jobs",
    "effective_jobs",
    "WorkerPool",
    "ChunkSizer",
    "run_chunk",
]


@checked
@dataclass(frozen=True)
class Task:
    """One run: ``solver`` with ``params`` on ``puzzle`` from ``seed`` until ``until``.

    ``until`` is a stopping rule as :func:`sudoku_lab.stepping.loop.parse_until` reads it
    (``"solved,100000it"``); the solver finishing always ends the run.
    ``key`` names the task in results (unique within an experiment);
    ``config`` (a configuration label, default :meth:`label`), ``puzzle_set``
    (the set or level the puzzle stands for) and ``run`` (the run's index for
    this configuration and puzzle) are columns of its results row.
    """

    solver: str
    params: dict
    puzzle: Puzzle
    seed: int
    until: str = "solved,100000it"
    key: str = ""
    config: str = ""
    puzzle_set: str = ""
    run: int = 0

    def full_params(self) -> dict:
        """Every parameter of the solver in force for this task: ``params`` over the declared defaults."""
        from ..solvers import get_solver_class

        return get_solver_class(self.solver).full_params(self.params)

    def label(self) -> str:
        """``solver`` or ``solver:p=v,...`` with the parameters this task sets."""
        return config_label(self.solver, self.params)


@checked
def config_label(solver: str, params: dict) -> str:
    """A configuration's label: ``solver``, then ``:name=value,...`` for the parameters given."""

    def text(v):
        return str(v).lower() if isinstance(v, bool) else str(v)

    return solver + ("" if not params else ":" + ",".join(f"{k}={text(v)}" for k, v in params.items()))


@checked
@dataclass
class RunResult:
    """What one run produced.

    Attributes
    ----------
    key, solver, puzzle, seed : identify the task (``puzzle`` is its name).
    solved : bool
    status : str
        Solver status at the end (``solved``, ``failed``, ``running``).
    reason : str
        Why the loop stopped (``solved``, ``failed``, ``max_iterations``, ...).
    iterations, evaluations : int
    seconds : float
        Wall time of the run in its process (kernels already compiled).
    cost, best_cost : int
    grid : ndarray of int8, shape (C,)
        The solver's final answer (``Snapshot.grid``).
    extra : dict
        Solver-specific summary (RESEDA: attempts, runs, restarts).
    restarts : int
        Restarts during the run (``extra["restarts"]`` where the solver reports it, else 0).
    host : str
        The machine that ran it.
    finished : float
        When it finished (seconds since the epoch).
    """

    key: str
    solver: str
    puzzle: str
    seed: int
    solved: bool
    status: str
    reason: str
    iterations: int
    evaluations: int
    seconds: float
    cost: int
    best_cost: int
    grid: np.ndarray
    extra: dict = field(default_factory=dict)
    restarts: int = 0
    host: str = ""
    finished: float = 0.0

    @classmethod
    def from_row(cls, row: dict) -> RunResult:
        """The result a results row (:mod:`sudoku_lab.engine.results`) records."""
        from datetime import datetime

        finished = row.get("finished")
        if isinstance(finished, str):
            finished = datetime.fromisoformat(finished.replace("Z", "+00:00")).timestamp()
        elif isinstance(finished, datetime):
            finished = finished.timestamp()
        grid = Puzzle.parse(row["grid"], n=int(row["box"]), allow_clashes=True).grid.copy()
        return cls(
            key=row["task"],
            solver=row["solver"],
            puzzle=row["puzzle"],
            seed=int(row["seed"]),
            solved=bool(row["solved"]),
            status=row["status"],
            reason=row["reason"],
            iterations=int(row["iterations"]),
            evaluations=int(row["evaluations"]),
            seconds=float(row["seconds"]),
            cost=int(row["cost"]),
            best_cost=int(row["best_cost"]),
            grid=grid,
            extra=json_loads(row["extra"] or "{}"),
            restarts=int(row["restarts"] or 0),
            host=row.get("host") or "",
            finished=float(finished or 0.0),
        )


@checked
def run_task(task: Task, should_stop: Callable[[], bool] | None = None) -> RunResult:
    """Run one task in this process and return its result."""
    from ..solvers import create
    from ..stepping import loop

    solver = create(task.solver, **task.params)
    warm_once([task.solver])  # a no-op where the engine has warmed the workers; else compiling must not count
    t0 = time.perf_counter()
    solver.reset(task.puzzle, seed=task.seed)
    last = loop.run(solver, loop.parse_until(task.until), should_stop=should_stop)
    seconds = time.perf_counter() - t0
    s = last.snapshot
    extra = type(solver).summarize(s)
    return RunResult(
        key=task.key,
        solver=task.solver,
        puzzle=task.puzzle.name or "",
        seed=task.seed,
        solved=s.solved,
        status=s.status,
        reason=last.reason,
        iterations=s.iteration,
        evaluations=s.evaluations,
        seconds=seconds,
        cost=s.cost,
        best_cost=s.best_cost,
        grid=np.array(s.grid),
        extra=extra,
        restarts=int(extra.get("restarts") or 0),
        host=_HOST,
        finished=time.time(),
    )


_HOST = socket.gethostname()

_TERMINATE_GRACE = 10.0  # seconds a terminated pool is given to wind down before the command exits

#: Set in a worker process: the parent's request to stop the run in progress.
_WORKER_STOP = None


def _worker_init(stop_event, parent: int, solvers: tuple = (), notes=None):
    """Set up a worker: ignore Ctrl-C, obey the parent's stop event, exit if the parent dies, warm the kernels
    (telling the parent through ``notes`` what compiles, for it to say)."""
    global _WORKER_STOP
    # Ctrl-C goes to the whole process group; only the parent decides what to do with it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER_STOP = stop_event

    def watch():
        # A parent killed outright (SIGKILL, OOM killer) cannot tell its workers; they notice here
        # and leave instead of running on as orphans.
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="sudoku-lab parent watch").start()
    if solvers:  # before the worker takes its first task, so no run's time includes it
        warm_up(solvers, on_compile=None if notes is None else lambda *what: notes.put(what))


def _worker_ready() -> int:
    time.sleep(0.05)  # long enough for another worker that has finished warming to take the next one
    return os.getpid()


@checked
def run_chunk(tasks: list[Task], should_stop: Callable[[], bool] | None = None) -> list[RunResult]:
    """Run tasks one after the other (a chunk sent to one worker); stop at the first run cut short.

    Returns the results in order; the last one has reason ``cancelled`` when a
    stop request cut it short (and the rest were not run).
    """
    out = []
    for t in tasks:
        res = run_task(t, should_stop=should_stop)
        out.append(res)
        if res.reason == "cancelled":
            break
    return out


def _run_chunk_in_worker(tasks: list[Task]) -> list[RunResult]:
    return run_chunk(tasks, should_stop=_WORKER_STOP.is_set if _WORKER_STOP is not None else None)


@checked
class WorkerPool:
    """Worker processes that run tasks, spawned and warmed once, for one batch or several (benchmarks).

    Parameters
    ----------
    jobs : int
        Worker processes (capped at the CPUs available, see :func:`effective_jobs`).
    solvers : iterable of str
        Solvers whose kernels each worker loads (or compiles) before its first task.

    Notes
    -----
    Spawned, not forked, so safe next to Qt threads; as always with spawned
    processes, a script using it needs an ``if __name__ == "__main__":``
    guard. Workers exit on their own when the parent process dies (checked
    twice a second), so a killed experiment leaves no orphans.
    """

    def __init__(self, jobs: int, solvers: Iterable[str] = ()):
        import multiprocessing as mp

        from ..stepping.warmup import CompileNotice

        self.jobs, _ = effective_jobs(jobs)
        ctx = mp.get_context("spawn")
        self._stop = ctx.Event()
        self._notes = ctx.SimpleQueue()  # what the workers compile while warming, said by wait_ready
        self._notice = CompileNotice()
        self._ex = ProcessPoolExecutor(
            max_workers=self.jobs,
            mp_context=ctx,
            initializer=_worker_init,
            initargs=(self._stop, os.getpid(), tuple(solvers), self._notes),
        )
        self._closed = False

    def wait_ready(self, should_stop: Callable[[], bool] | None = None) -> bool:
        """Wait until every worker has started and warmed its kernels; False if ``should_stop`` came first."""
        stop = should_stop or (lambda: False)
        seen: set[int] = set()
        pending = {self._ex.submit(_worker_ready) for _ in range(self.jobs)}
        while len(seen) < self.jobs:
            self._say_compiling()
            if stop():
                self._notice.close(finished=False)
                return False  # compiling can take a minute: do not wait for it
            done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for f in done:
                seen.add(f.result())
                if len(seen) < self.jobs:
                    pending.add(self._ex.submit(_worker_ready))
        self._say_compiling()
        self._notice.close()
        return True

    def _say_compiling(self) -> None:
        while not self._notes.empty():
            self._notice(*self._notes.get())

    def run(
        self, tasks: Iterable[Task], should_stop: Callable[[], bool] | None, sizer: ChunkSizer
    ) -> Iterator[tuple[int, RunResult]]:
        """Run tasks on the workers, yielding ``(index, result)`` as each chunk finishes (see :func:`run_tasks`).

        ``sizer`` says how many runs go to a worker at once (it learns from every batch's run times).
        """
        stop = should_stop or (lambda: False)
        self._stop.clear()
        src = iter(tasks)
        it = enumerate(src)
        pending: dict = {}
        exhausted = False
        while True:
            while not exhausted and len(pending) < 2 * self.jobs and not stop():
                chunk = next_chunk(it, sizer.size(remaining(src), self.jobs))
                if not chunk:
                    exhausted = True
                    break
                pending[self._ex.submit(_run_chunk_in_worker, [t for _, t in chunk])] = [i for i, _ in chunk]
            if not pending:
                return
            done, _ = wait(list(pending), timeout=0.2, return_when=FIRST_COMPLETED)
            for f in done:
                index = pending.pop(f)
                results = f.result()
                sizer.add(results)
                yield from finished_runs(index, results)
            if stop():
                self._stop.set()  # runs in flight end within a chunk; what finished is yielded above
                for f in pending:
                    f.cancel()
                for f in wait(list(pending)).done:
                    if not f.cancelled() and f.exception() is None:
                        yield from finished_runs(pending[f], f.result())
                return

    def close(self, clean: bool = True) -> None:
        """Stop the workers: wait for them (``clean``), or terminate them at once (an error, a second Ctrl-C)."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        if clean:
            self._ex.shutdown(wait=True, cancel_futures=True)
        else:
            procs = list((getattr(self._ex, "_processes", None) or {}).values())
            manager = getattr(self._ex, "_executor_manager_thread", None)
            for proc in procs:
                proc.terminate()
            self._ex.shutdown(wait=False, cancel_futures=True)
            # The executor's manager thread notices the dead workers and closes its wake-up pipe. Wait
            # for it (bounded): left running, it races CPython 3.11's exit hook, which writes to that
            # pipe as it closes ("OSError: Bad file descriptor" printed after our last line).
            deadline = time.monotonic() + _TERMINATE_GRACE
            for proc in procs:
                proc.join(max(0.0, deadline - time.monotonic()))
            if manager is not None:
                manager.join(max(0.0, deadline - time.monotonic()))

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, kind, value, tb) -> None:
        self.close(clean=kind is None)


@checked
class Workers:
    """Where the runs of many batches go, kept for all of them: worker processes, or a Dask client.

    :func:`run_tasks` starts (and warms) a :class:`WorkerPool` for each batch,
    a second or so; a reproduction runs dozens of small batches, one per cell
    of its table, and ``reproduce all`` hundreds, so they keep one pool (or one
    Dask client, and for ``local:N`` one local cluster). A batch that brings a
    solver the workers have not warmed restarts the pool with every solver seen
    so far, so no run's time includes loading kernels. An instance is the
    executor :func:`execute` takes (``workers=``); use it as a context manager.

    Parameters
    ----------
    jobs : int
        1: every run in this process; more: that many worker processes
        (capped at the CPUs available).
    scheduler : str, optional
        A Dask scheduler (``tcp://host:8786``) or ``local:N``; ``jobs`` is then ignored.
    solvers : iterable of str
        Solvers to warm from the start (the first batch's are added anyway).
    """

    def __init__(self, jobs: int = 1, scheduler: str | None = None, solvers: Iterable[str] = ()):
        if scheduler:
            from .cluster import parse_scheduler

            parse_scheduler(scheduler)
        self.jobs = 1 if scheduler else effective_jobs(jobs)[0]
        self.scheduler = scheduler
        self._solvers = tuple(dict.fromkeys(solvers))  # warmed (or to warm) in the workers
        self._warmed: set = set()  # in this process, or prepared on the Dask workers
        self._pool: WorkerPool | None = None
        self._ready = False
        # Runs go to a worker process in chunks of about 50 ms of work, to Dask in about 0.2 s (a Dask
        # task costs a few ms of scheduling); the run times seen so far size the next batch's first chunks.
        self._sizer = ChunkSizer(0.05 if not scheduler else 0.2)
        self._client_cm: AbstractContextManager[Any] | None = None  # client_for(...), entered
        self._client = None

    def describe(self) -> str:
        """``serial``, ``pool:N`` or the scheduler, as a results directory's provenance records it."""
        return where_text(self.jobs, self.scheduler)

    def __call__(
        self, tasks: Iterable[Task], should_stop: Callable[[], bool] | None = None, solvers: Iterable[str] | None = None
    ) -> Iterator[tuple[int, RunResult]]:
        stop = should_stop or (lambda: False)
        it = iter(tasks)
        first = next(it, None)
        if first is None:
            return
        names = tuple(dict.fromkeys(solvers or (first.solver,)))
        queue = prepend(first, it)
        if self.scheduler:
            yield from self._on_dask(queue, stop, names)
        elif self.jobs <= 1:
            self.start(names)
            yield from run_tasks(queue, jobs=1, should_stop=stop, warm=False)
        else:
            yield from self._in_pool(queue, stop, names)

    def start(self, solvers: Iterable[str] = (), should_stop: Callable[[], bool] | None = None) -> bool:
        """Start the workers now (spawn the processes, or reach the scheduler) and warm ``solvers`` in each.

        Otherwise the first batch does it. False if ``should_stop`` came first (kernels can take a minute
        to compile).
        """
        names = tuple(dict.fromkeys(tuple(solvers) or self._solvers))
        if self.scheduler:
            return self._prepare_dask(names, should_stop)
        if self.jobs <= 1:
            new = tuple(n for n in names if n not in self._warmed)
            if new:
                warm_up(new)
                self._warmed.update(new)
            return True
        return self._start_pool(names, should_stop or (lambda: False))

    def _start_pool(self, names: tuple, stop: Callable[[], bool]) -> bool:
        if self._pool is None or any(n not in self._solvers for n in names):
            self._close_pool(clean=True)
            self._solvers = tuple(dict.fromkeys(self._solvers + names))
            self._pool = WorkerPool(self.jobs, self._solvers)
            self._ready = False
        if not self._ready:
            self._ready = self._pool.wait_ready(stop)
        return self._ready

    def _in_pool(self, queue, stop, names):
        clean = False
        try:
            if not self._start_pool(names, stop):
                return  # compiling can take a minute: do not wait for it (the finally terminates)
            yield from self._pool.run(queue, stop, self._sizer)
            clean = True
        finally:
            if not clean:  # an error, a second Ctrl-C, a stop during warm-up: do not wait for anything
                self._close_pool(clean=False)

    def _prepare_dask(self, names: tuple, stop: Callable[[], bool] | None = None) -> bool:
        """Connect and prepare the Dask workers; False if ``stop`` came first (it ends any wait at once)."""
        from .cluster import Stopped, client_for, prepare_workers

        try:
            if self._client is None:
                cm = client_for(self.scheduler, should_stop=stop)
                self._client = cm.__enter__()
                self._client_cm = cm
            if any(n not in self._warmed for n in names):
                self._solvers = tuple(dict.fromkeys(self._solvers + names))
                prepare_workers(self._client, self._solvers, should_stop=stop)
                self._warmed.update(self._solvers)
        except Stopped:
            return False
        return True

    def _on_dask(self, queue, stop, names):
        from .cluster import dask_tasks

        if self._prepare_dask(names, stop):
            yield from dask_tasks(self._client, queue, run_chunk, self._sizer, should_stop=stop)

    def _close_pool(self, clean: bool) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close(clean)

    def close(self, clean: bool = True) -> None:
        """Stop the worker processes (at once unless ``clean``) and leave the Dask cluster."""
        self._close_pool(clean)
        cm, self._client_cm, self._client = self._client_cm, None, None
        if cm is not None:
            cm.__exit__(None, None, None)

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, kind, value, tb) -> None:
        self.close(clean=kind is None)


@checked
def where_text(jobs: int, scheduler: str | None = None) -> str:
    """Where runs go, in a results directory's provenance: ``serial``, ``pool:N`` or the Dask scheduler."""
    return scheduler or (f"pool:{jobs}" if jobs > 1 else "serial")


@checked
def default_jobs() -> int:
    """Worker processes to use by default: the CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@checked
def effective_jobs(requested: int) -> tuple[int, str | None]:
    """The worker processes to start for ``requested``, and a note when that is fewer.

    More workers than CPUs only add memory (each holds its own compiled
    kernels, about 150 MB) and make every run slower, so the count is capped
    at the CPUs this process may use.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    ParameterError
        If ``requested`` is below 1.
    """
    if isinstance(requested, bool) or not isinstance(requested, (int, np.integer)) or requested < 1:
        raise ParameterError(f"jobs must be an integer >= 1, got {requested!r}", name="jobs")
    cpus = default_jobs()
    if requested > cpus:
        return cpus, (
            f"using {cpus} worker process{'es' if cpus > 1 else ''}: --jobs {requested} is more than the "
            f"{cpus} CPU{'s' if cpus > 1 else ''} available"
        )
    return int(requested), None


@checked
def run_tasks(
    tasks: Iterable[Task],
    jobs: int = 1,
    should_stop: Callable[[], bool] | None = None,
    warm: bool = True,
    solvers: Iterable[str] | None = None,
) -> Iterator[tuple[int, RunResult]]:
    """Run tasks, yielding ``(index, result)`` as each finishes.

    Parameters
    ----------
    tasks : iterable of Task
        Consumed lazily: a few per worker are in flight at any time.
    jobs : int
        1 runs in this process; more uses that many worker processes
        (spawned, so safe next to Qt threads; capped at the CPUs available,
        see :func:`effective_jobs`). As always with spawned processes, a
        script calling this needs an ``if __name__ == "__main__":`` guard.
    should_stop : callable, optional
        Polled often; True stops promptly: runs in flight are told to stop
        (they end within one stepping chunk, about 20 ms, and are not yielded,
        so a resumed experiment reruns them with the same seeds), and every
        run that had finished is yielded first.
    warm : bool
        Load or compile the kernels of ``solvers`` (default: the first task's
        solver) and the shared ones (:func:`sudoku_lab.stepping.warmup.warm_up`, in
        each worker) before timing anything, so no run's time includes them.
        Worker processes always do (:class:`Workers`); False leaves it to
        the caller when ``jobs`` is 1.
    solvers : iterable of str, optional
        Every solver the tasks use, to warm them all before the first run.

    Notes
    -----
    Worker processes (:class:`WorkerPool`) get several short runs at a time
    (about 50 ms of work; one run at a time when runs are longer), so a batch
    of thousands of millisecond runs is not dominated by sending them. Workers
    exit on their own when the parent process dies (checked twice a second),
    so a killed experiment leaves no orphans. An exception in the parent
    (including a second Ctrl-C) terminates the workers at once.
    """
    stop = should_stop or (lambda: False)
    if jobs <= 1:
        it = enumerate(tasks)
        warmed = not warm
        if warm and solvers:
            warm_up(tuple(solvers))
            warmed = True
        for i, t in it:
            if stop():
                return
            if not warmed:  # loading (or compiling) kernels must not count in the first run's time
                warm_up(tuple(solvers or (t.solver,)))
                warmed = True
            res = run_task(t, should_stop=stop)
            if res.reason == "cancelled":
                return
            yield i, res
        return
    workers = Workers(jobs)
    clean = False
    try:
        yield from workers(tasks, stop, solvers)
        clean = True
    finally:
        # An exception, a second Ctrl-C or a consumer that stops listening: do not wait for anything.
        workers.close(clean)


@checked
@dataclass(frozen=True)
class BatchProgress:
    """Where a batch stands, for progress bars.

    Attributes
    ----------
    done, total : int
        Runs finished (including those a resumed results directory already
        held) and runs in the batch.
    solved : int
        Runs among ``done`` that were solved.
    new : int
        Runs finished in this session.
    elapsed : float
        Seconds since this session started running tasks (after warm-up).
    """

    done: int
    total: int
    solved: int
    new: int
    elapsed: float

    @property
    def rate(self) -> float:
        """Runs finished per second in this session."""
        return self.new / self.elapsed if self.elapsed > 0 else math.nan

    @property
    def eta(self) -> float:
        """Seconds left at this session's rate (NaN before the first run finishes)."""
        left = self.total - self.done
        if left <= 0:
            return 0.0
        return left / self.rate if self.new and self.rate > 0 else math.nan


@checked
def execute(
    tasks: Iterable[Task],
    *,
    total: int | None = None,
    store: ResultStore | None = None,
    jobs: int = 1,
    scheduler: str | None = None,
    should_stop: Callable[[], bool] | None = None,
    progress: Callable[[BatchProgress], None] | None = None,
    solvers: Iterable[str] | None = None,
    workers: Workers | None = None,
    held: tuple[int, int] | None = None,
) -> Iterator[tuple[int, Task, RunResult]]:
    """Run the tasks a results store does not hold yet; yield ``(index, task, result)`` as each finishes.

    This is the one engine under ``batch``, ``grades``, ``compare`` and every
    reproduction: the same tasks run in this process, in worker processes or
    on a Dask cluster, and each finished run is appended to ``store`` at once,
    so an interruption of any kind loses at most the runs in flight and the
    same call resumes.

    Parameters
    ----------
    tasks : iterable of Task
        Consumed lazily (a batch of a million runs is never held in memory).
        Keys must be unique.
    total : int, optional
        How many tasks there are (for progress; default ``len(tasks)``).
    store : ResultStore, optional
        Where finished runs go; tasks whose key it holds are skipped (and
        refused if it holds them for other settings: see
        :meth:`~sudoku_lab.engine.results.ResultStore.check`).
    jobs, scheduler
        Where the runs go: 1 in this process, more in that many worker
        processes; a Dask scheduler (``tcp://host:8786``) or ``local:N``
        instead (:class:`Workers`, started for this batch).
    workers : Workers, optional
        Worker processes or a Dask client kept across batches, used instead
        of starting ``jobs`` / ``scheduler`` for this batch alone.
    should_stop : callable, optional
        Polled often; True stops promptly, keeping every finished run.
    progress : callable, optional
        ``progress(BatchProgress)`` once at the start and after every run. Its
        counts include the runs the store already held: of these tasks when
        ``tasks`` is a list (a batch among others in the store), else every
        run in the store.
    solvers : iterable of str, optional
        Every solver the tasks use: all are warmed before the first run is
        timed (default: the first task's).
    held : (int, int), optional
        ``(done, solved)``: how many of ``tasks`` the store already holds, for
        progress, when ``tasks`` is an iterator and the store holds runs of
        other tasks too (an experiment asking for a part of its directory).
    """
    from .results import fingerprint, json_default, task_row

    stop = should_stop or (lambda: False)
    if total is None:
        tasks = list(tasks)
        total = len(tasks)
    done0 = solved0 = 0
    if held is not None:
        done0, solved0 = held
    elif store is not None and isinstance(tasks, (list, tuple)):  # perhaps a batch among others in the store
        keys = [t.key for t in tasks if t.key in store]
        done0, solved0 = len(keys), store.solved(keys)
    elif store is not None:
        done0, solved0 = len(store), store.solved()
    params_cache: dict = {}

    def full(task: Task) -> dict:
        k = (task.solver, json.dumps(task.params, sort_keys=True, default=json_default))
        if k not in params_cache:
            params_cache[k] = task.full_params()
        return params_cache[k]

    def todo():
        for i, t in enumerate(tasks):
            if store is not None and store.check(
                t.key, fingerprint(t.solver, full(t), t.puzzle.to_line(), t.seed, t.until)
            ):
                continue
            yield i, t

    # The executor numbers the tasks it is fed 0, 1, 2...; order[j] is the j-th one's index in ``tasks``.
    order: list[int] = []
    pending: dict[int, Task] = {}

    t0: float | None = None

    def feed():
        nonlocal t0
        for i, t in todo():
            if t0 is None:  # the executor has started and warmed its workers: the clock starts now
                t0 = time.perf_counter()
            order.append(i)
            pending[i] = t
            yield t

    new = solved = 0
    if progress:
        progress(BatchProgress(done0, total, solved0, 0, 0.0))
    run = workers if workers is not None else Workers(jobs, scheduler)
    # The executors size their chunks by what is left to send (see _chunks.ChunkSizer).
    tasks_left = _Hinted(feed(), lambda: total - done0 - len(order))
    clean = False
    try:
        for j, res in run(tasks_left, stop, solvers):
            i = order[j]
            task = pending.pop(i)
            if store is not None:
                store.add(task_row(task, res, full(task)))
            new += 1
            solved += bool(res.solved)
            if progress:
                assert t0 is not None  # set when the first task was fed
                progress(BatchProgress(done0 + new, total, solved0 + solved, new, time.perf_counter() - t0))
            yield i, task, res
        clean = True
    finally:
        if workers is None:  # this batch's own workers: an error or a second Ctrl-C terminates them at once
            run.close(clean)


class _Hinted:
    """An iterator that says how many items it has left (``len_left()``), for chunk sizes."""

    def __init__(self, it: Iterator, len_left: Callable[[], int]):
        self._it = it
        self._left = len_left

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)

    def __length_hint__(self) -> int:
        return max(0, self._left())


@checked
def run_batch(
    tasks: list[Task],
    store: ResultStore | None = None,
    on_result: Callable[[int, RunResult], None] | None = None,
    **kw: Any,
) -> list[RunResult | None]:
    """Run ``tasks`` through :func:`execute` and return every result in task order.

    Results the store already held are read back from it first; a task left
    unfinished by a stop request is None. ``on_result(index, result)`` is
    called for each held result, then for each run as it finishes (a live
    view of the batch). Other keyword arguments are those of :func:`execute`.
    """
    from .results import fingerprint

    out: list[RunResult | None] = [None] * len(tasks)
    kw.setdefault("solvers", tuple(dict.fromkeys(t.solver for t in tasks)))
    if store is not None:
        for i, t in enumerate(tasks):
            if t.key in store:
                store.check(t.key, fingerprint(t.solver, t.full_params(), t.puzzle.to_line(), t.seed, t.until))
                held = out[i] = RunResult.from_row(store.row(t.key))
                if on_result is not None:
                    on_result(i, held)
    for i, _, res in execute(tasks, total=len(tasks), store=store, **kw):
        out[i] = res
        if on_result is not None:
            on_result(i, res)
    return out
