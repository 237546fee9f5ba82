"""Running many solver runs: tasks, results, a process pool, and resumable results files.

A :class:`Task` is everything one run needs (solver name, parameters, puzzle,
seed, stopping rule) and is picklable, so the same task runs in this process,
in a worker process, or (later) on a cluster, with the same result.
:func:`run_tasks` yields results as they finish and stops promptly when asked.
:class:`ResultsFile` appends one JSON line per finished run, so an
interrupted experiment resumes where it stopped.
"""

from __future__ import annotations

import json
import math
import os
import signal
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from . import __version__
from .errors import DataFileError
from .puzzle import Puzzle

__all__ = ["Task", "RunResult", "run_task", "run_tasks", "ResultsFile", "default_jobs"]


@dataclass(frozen=True)
class Task:
    """One run: ``solver`` with ``params`` on ``puzzle`` from ``seed`` until ``until``.

    ``until`` is a stopping rule as :func:`sudoku_lab.loop.parse_until` reads it
    (``"solved,100000it"``); the solver finishing always ends the run.
    ``key`` names the task in results files (unique within an experiment).
    """

    solver: str
    params: dict
    puzzle: Puzzle
    seed: int
    until: str = "solved,100000it"
    key: str = ""


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

    def to_json(self) -> dict:
        d = asdict(self)
        d["grid"] = "".join(str(int(v)) if v < 10 else chr(ord("A") + int(v) - 10) for v in self.grid.tolist())
        return d

    @classmethod
    def from_json(cls, d: dict, n: int) -> "RunResult":
        d = dict(d)
        d["grid"] = Puzzle.parse(d["grid"], n=n, allow_clashes=True).grid.copy()
        return cls(**d)


def _summary(snapshot) -> dict:
    """Small solver-specific facts worth keeping per run."""
    layers = snapshot.layers
    out = {}
    if "attempt" in layers:
        out["attempts"] = int(layers["attempt"]) + 1
        out["runs"] = int(layers["run"]) + 1
    if "restarts" in layers:
        out["run_steps"] = [int(r["steps"]) for r in layers["restarts"]]
        out["run_outcomes"] = [r["outcome"] for r in layers["restarts"]]
        out["run_zones"] = [r["zone_name"] or r["kind"] for r in layers["restarts"]]
    return out


def run_task(task: Task, should_stop: Callable[[], bool] | None = None) -> RunResult:
    """Run one task in this process and return its result."""
    from . import loop
    from .solvers import create

    solver = create(task.solver, **task.params)
    t0 = time.perf_counter()
    solver.reset(task.puzzle, seed=task.seed)
    last = loop.run(solver, loop.parse_until(task.until), should_stop=should_stop)
    seconds = time.perf_counter() - t0
    s = last.snapshot
    return RunResult(
        key=task.key, solver=task.solver, puzzle=task.puzzle.name or "", seed=task.seed, solved=s.solved,
        status=s.status, reason=last.reason, iterations=s.iteration, evaluations=s.evaluations,
        seconds=seconds, cost=s.cost, best_cost=s.best_cost, grid=np.array(s.grid), extra=_summary(s))


def _worker_init():
    # Ctrl-C goes to the whole process group; only the parent decides what to do with it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _warm(names: tuple[str, ...]) -> None:
    """Compile (or load from cache) the kernels of these solvers in a fresh worker."""
    from . import library
    from .solvers import create

    p = library.puzzle("reseda_fig3_1_easy")
    for name in names:
        s = create(name)
        s.reset(p, seed=0)
        s.step(1)


def default_jobs() -> int:
    """Worker processes to use by default: the CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def run_tasks(tasks: Iterable[Task], jobs: int = 1, should_stop: Callable[[], bool] | None = None,
              warm: bool = True) -> Iterator[tuple[int, RunResult]]:
    """Run tasks, yielding ``(index, result)`` as each finishes.

    Parameters
    ----------
    tasks : iterable of Task
    jobs : int
        1 runs in this process (a stop request also interrupts the current
        run); more uses that many worker processes (spawned, so safe next to
        Qt threads), each run to its end once started. As always with
        spawned processes, a script calling this needs an
        ``if __name__ == "__main__":`` guard.
    should_stop : callable, optional
        Polled often; True stops submitting and returns after the runs in
        flight (which are discarded when ``jobs > 1``, so a resumed
        experiment reruns them with the same seeds).
    warm : bool
        Compile kernels in each worker before timing anything.
    """
    tasks = list(tasks)
    stop = should_stop or (lambda: False)
    if jobs <= 1:
        for i, t in enumerate(tasks):
            if stop():
                return
            res = run_task(t, should_stop=stop)
            if res.reason == "cancelled":
                return
            yield i, res
        return
    import multiprocessing as mp

    names = tuple(sorted({t.solver for t in tasks}))
    with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn"), initializer=_worker_init) as ex:
        if warm:
            for f in [ex.submit(_warm, names) for _ in range(jobs)]:
                f.result()
        pending = {}
        it = iter(enumerate(tasks))
        exhausted = False
        try:
            while True:
                while not exhausted and len(pending) < 2 * jobs and not stop():
                    nxt = next(it, None)
                    if nxt is None:
                        exhausted = True
                        break
                    pending[ex.submit(run_task, nxt[1])] = nxt[0]
                if not pending:
                    return
                done, _ = wait(list(pending), timeout=0.2, return_when=FIRST_COMPLETED)
                if stop():
                    for f in pending:
                        f.cancel()
                    return
                for f in done:
                    yield pending.pop(f), f.result()
        finally:
            for f in pending:
                f.cancel()


class ResultsFile:
    """Append-only JSON-lines file of run results with a header describing the experiment.

    Line 1 is ``{"header": {...}}`` (kind, configuration, package version);
    every further line is one :class:`RunResult`. A run is written as soon as
    it finishes, so Ctrl-C or a crash loses at most the runs in flight.
    Re-opening a file with the same configuration resumes it; a different
    configuration is refused (never overwritten).
    """

    def __init__(self, path, header: dict, n: int):
        self.path = Path(path)
        self.header = {**header, "version": __version__}
        self.n = n
        self.results: dict[str, RunResult] = {}
        if self.path.exists() and self.path.stat().st_size > 0:
            self._load()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("w", encoding="utf-8") as fh:
                fh.write(json.dumps({"header": self.header}) + "\n")

    def _load(self) -> None:
        text = self.path.read_text(encoding="utf-8")
        lines = text.split("\n")
        try:
            head = json.loads(lines[0])["header"]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise DataFileError(f"{self.path} line 1: not a Sudoku Lab results file (no header)",
                                path=self.path, line=1) from None
        mine = {k: v for k, v in self.header.items() if k != "version"}
        theirs = {k: v for k, v in head.items() if k != "version"}
        if theirs != mine:
            diff = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
            raise DataFileError(f"{self.path} holds results of a different experiment (differs in: "
                                f"{', '.join(diff)}); choose another output or delete it", path=self.path)
        complete = text.endswith("\n")
        body = lines[1:-1] if complete else lines[1:]
        for i, line in enumerate(body, start=2):
            if not line.strip():
                continue
            last = i == len(lines) and not complete
            try:
                res = RunResult.from_json(json.loads(line), self.n)
            except (json.JSONDecodeError, TypeError, KeyError, ValueError) as e:
                if last:
                    break  # a run cut off mid-write by a crash: it simply runs again
                raise DataFileError(f"{self.path} line {i}: corrupt run record ({e})", path=self.path,
                                    line=i) from None
            self.results[res.key] = res
        if not complete:
            # Drop the partial last line so new runs start on a fresh line.
            keep = "\n".join(lines[:-1]) + "\n"
            self.path.write_text(keep, encoding="utf-8")

    def __contains__(self, key: str) -> bool:
        return key in self.results

    def __len__(self) -> int:
        return len(self.results)

    def add(self, res: RunResult) -> None:
        self.results[res.key] = res
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(res.to_json(), default=_json_default) + "\n")
            fh.flush()


def _json_default(o: Any):
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return None if math.isnan(o) else float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"cannot store {type(o).__name__} in a results file")
