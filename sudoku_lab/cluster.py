"""Running the same tasks on a Dask cluster (``--scheduler tcp://host:8786`` or ``--scheduler local:N``).

A task is the same picklable :class:`~sudoku_lab.experiments.Task` the process
pool runs, and a worker runs it with the same
:func:`~sudoku_lab.experiments.run_task`, so a run gives the same result on a
laptop and on a cluster. Results stream back as they finish and go into the
same resumable results directory.

What Dask does and this module does not: scheduling, moving tasks off a worker
that dies (Dask's scheduler re-runs a task whose worker died, up to its
``distributed.scheduler.allowed-failures``, 3 by default), and workers joining
or leaving. What this module adds: the kernels are warmed on every worker
before it runs a task (a :class:`~distributed.WorkerPlugin`, so a worker that
joins later is warmed too), the workers' sudoku-lab version and solvers are
checked against this one's before anything runs, at most a few tasks per
worker thread are queued at a time (a million-run batch is never submitted at
once), and a stop request (Ctrl-C) reaches the runs in flight through a Dask
:class:`~distributed.Event` they poll twice a second.

``local:N`` starts a :class:`~distributed.LocalCluster` of N single-threaded
worker processes on this machine and closes it at the end.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from ._chunks import ChunkSizer, finished_runs, next_chunk, remaining
from .errors import ParameterError, SudokuLabError
from ._checks import checked

if TYPE_CHECKING:
    import distributed

__all__ = ["parse_scheduler", "dask_tasks", "prepare_workers", "ClusterError", "local_cluster"]


class ClusterError(SudokuLabError):
    """The cluster cannot run the batch: unreachable, a worker of another version, a task that kills workers."""


_ADDRESS = re.compile(r"(tcp|tls|ucx|inproc|ws|wss)://\S+")
_HOSTPORT = re.compile(r"[A-Za-z0-9_.\-\[\]:]+:\d{1,5}")


@checked
def parse_scheduler(text: str) -> tuple[str, object]:
    """``("local", N)`` for ``local:N``, ``("address", "tcp://host:port")`` for an address.

    A bare ``host:port`` means ``tcp://host:port``.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    ParameterError
        For anything else, with the forms that are understood.
    """
    t = str(text).strip()
    if t.startswith("local:") or t == "local":
        count = t.partition(":")[2]
        if not count.isdigit() or not 1 <= int(count) <= 1024:
            raise ParameterError(f"--scheduler {text!r}: local:N needs a number of workers from 1 to 1024, "
                                 "e.g. local:2", name="scheduler")
        return "local", int(count)
    if _ADDRESS.fullmatch(t):
        return "address", t
    if _HOSTPORT.fullmatch(t):
        return "address", "tcp://" + t
    raise ParameterError(f"--scheduler {text!r}: give a Dask scheduler's address (tcp://host:8786) or local:N "
                         "for a local cluster of N worker processes", name="scheduler")


@checked
@contextmanager
def local_cluster(workers: int):
    """A :class:`~distributed.LocalCluster` of ``workers`` single-threaded processes, and a client of it."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                           silence_logs=logging.ERROR)
    try:
        with Client(cluster) as client:
            yield client
    finally:
        cluster.close()


@contextmanager
def client_for(scheduler: str, timeout: float = 20.0):
    """A Dask client of ``scheduler`` (``tcp://host:port``, or ``local:N``: a local cluster started for it and
    closed with the client); ClusterError if the scheduler cannot be reached."""
    kind, value = parse_scheduler(scheduler)
    if kind == "local":
        with local_cluster(int(value)) as client:
            yield client
        return
    from distributed import Client

    try:
        client = Client(value, timeout=timeout)
    except (OSError, TimeoutError) as e:
        raise ClusterError(f"cannot reach the Dask scheduler at {value}: {e}; start one with `dask scheduler` and "
                           f"workers with `dask worker {value}` (each with sudoku-lab installed)") from None
    try:
        yield client
    finally:
        client.close()


def _worker_facts(solvers: tuple) -> dict:
    """On a worker: its sudoku-lab version and which of ``solvers`` it lacks."""
    from . import __version__
    from .solvers import registry

    return {"version": __version__, "missing": [s for s in solvers if s not in registry()]}


def _check_workers(client, solvers: tuple) -> None:
    from . import __version__

    facts = client.run(_worker_facts, solvers)
    if not facts:
        raise ClusterError("the Dask cluster has no workers; start some with `dask worker ADDRESS`")
    for worker, f in facts.items():
        if f["version"] != __version__:
            raise ClusterError(f"Dask worker {worker} runs sudoku-lab {f['version']}, this is {__version__}: "
                               "install the same version on every worker")
        if f["missing"]:
            raise ClusterError(f"Dask worker {worker} has no solver {', '.join(f['missing'])}: install the plugin "
                               "that provides it on every worker")


def _warm_plugin(solvers: tuple):
    from distributed import WorkerPlugin

    class WarmUp(WorkerPlugin):
        """Load (or compile) the batch's kernels on each worker before it runs a task."""

        name = "sudoku-lab-warm-up"

        def __init__(self, names):
            self.names = names

        def setup(self, worker):
            from .warmup import warm_up

            warm_up(self.names)

    return WarmUp(solvers)


def _run_on_worker(run_chunk: Callable, tasks: list, stop_name: str):
    """``run_chunk(tasks, should_stop)`` on a Dask worker, stopping early once the client sets the batch's stop event."""
    state = {"checked": time.monotonic(), "stop": False, "event": None}

    def should_stop() -> bool:
        now = time.monotonic()
        if not state["stop"] and now - state["checked"] >= 0.5:
            state["checked"] = now
            from distributed import Event

            if state["event"] is None:
                state["event"] = Event(stop_name)
            state["stop"] = state["event"].is_set()
        return state["stop"]

    return run_chunk(tasks, should_stop)


@checked
def prepare_workers(client: distributed.Client, solvers: tuple) -> None:
    """Check every worker's sudoku-lab and solvers, and warm the kernels of ``solvers`` on each (and on any
    worker that joins later)."""
    _check_workers(client, solvers)
    client.register_plugin(_warm_plugin(solvers))


@checked
def dask_tasks(client: distributed.Client, tasks: Iterable, run_chunk: Callable, sizer: ChunkSizer,
               should_stop: Callable[[], bool] | None = None, per_thread: int = 2) -> Iterator[tuple[int, object]]:
    """Run tasks on a Dask cluster, yielding ``(index, result)`` as each finishes (the contract of
    :func:`~sudoku_lab.experiments.run_tasks`).

    Parameters
    ----------
    client : distributed.Client
        Connected (:func:`client_for`), its workers checked and warmed (:func:`prepare_workers`); left open.
    tasks : iterable of Task
        Consumed lazily: ``per_thread`` chunks per worker thread are queued at a time.
    run_chunk : callable
        ``run_chunk(tasks, should_stop) -> results`` (:func:`sudoku_lab.experiments.run_chunk`), run on a
        worker.
    sizer : ChunkSizer
        How many runs go as one Dask task. Scheduling a task costs a few milliseconds of the
        scheduler's and the client's time, so runs of a few milliseconds go several at a time (the
        engine's sizer aims at about 0.2 s of work and remembers earlier batches' run times).
    should_stop : callable, optional
        Polled at least every 50 ms; True stops promptly: the runs in
        flight are told to stop (they end within half a second and are not
        yielded), every run that had finished is yielded first.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    ClusterError
        A task killed its workers more often than Dask allows (``KilledWorker``).
    """
    from distributed import Event, as_completed

    stop = should_stop or (lambda: False)
    src = iter(tasks)
    queue = enumerate(src)
    batch = uuid.uuid4().hex[:12]
    stop_name = f"sudoku-lab-stop-{batch}"
    threads = max(1, sum(client.nthreads().values()))
    event = Event(stop_name, client=client)
    index: dict = {}  # key -> the indices of the chunk's tasks
    live: dict = {}  # key -> its future, until its results are taken
    # Results are gathered inside the client's event loop (with_results=True): gathering one from a
    # worker that dies meanwhile is then Dask's own retry, not a call from this thread racing it.
    ac = as_completed(with_results=True, raise_errors=False)
    counter = 0

    def submit(chunk) -> None:
        nonlocal counter
        key = f"sudoku-lab-{batch}-{counter}"
        counter += 1
        fut = client.submit(_run_on_worker, run_chunk, [t for _, t in chunk], stop_name, key=key, pure=False)
        index[key] = [i for i, _ in chunk]
        live[key] = fut
        ac.add(fut)

    exhausted = False
    try:
        while True:
            while not exhausted and len(live) < per_thread * threads and not stop():
                chunk = next_chunk(queue, sizer.size(remaining(src), threads))
                if not chunk:
                    exhausted = True
                    break
                submit(chunk)
            if not live:
                break
            if stop():
                event.set()  # the runs in flight end within half a second, as "cancelled"
                for fut, res in ac:
                    live.pop(fut.key)
                    if fut.status == "finished":
                        yield from finished_runs(index.pop(fut.key), res)
                break
            if not ac.has_ready():
                # Block until a result comes (as_completed notifies its thread condition), waking every
                # 50 ms for a stop request: polling instead costs the CPU the workers share on a small machine.
                with ac.thread_condition:
                    if not ac.has_ready():
                        ac.thread_condition.wait(timeout=0.05)
                continue
            for fut, res in ac.next_batch(block=False):
                live.pop(fut.key)
                results = _result(fut, res)
                sizer.add(results)
                yield from finished_runs(index.pop(fut.key), results)
    finally:
        if live:
            event.set()
            client.cancel(list(live.values()), force=True)


def _result(fut, res):
    """A finished task's result; a task that killed its workers is a ClusterError, any other error re-raised."""
    from distributed.scheduler import KilledWorker

    if fut.status == "finished":
        return res
    if isinstance(res, KilledWorker):
        raise ClusterError(f"a run killed the Dask workers that ran it ({res}); the finished runs are kept")
    raise res
