"""``sudoku-lab batch``: run an experiment specification into a resumable results directory.

The specification is a TOML file (:mod:`sudoku_lab.engine.spec`) or the same content
as flags. The runs go to worker processes (all CPUs by default), or to a Dask
cluster with ``--scheduler``; each finished run is written at once, so Ctrl-C
stops cleanly, a run killed outright (SIGKILL, a lost node) loses only the runs
in flight, and re-running the same command resumes where it stopped. The same
specification with more runs, a larger sample or another puzzle set runs only
the new runs into the same directory (:func:`plan` says what a run would do).

Examples
--------
>>> from sudoku_lab.engine.batch import run_spec
>>> from sudoku_lab.engine.spec import spec_from_options
>>> spec = spec_from_options(["reseda"], ["reseda_fig3_1_easy"], runs=2, until="solved,1000it")
>>> outcome = run_spec(spec, None, jobs=1)
>>> outcome.done, outcome.total
(2, 2)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .._checks import checked
from .experiments import BatchProgress, execute, where_text
from .spec import ExperimentSpec

__all__ = ["run_spec", "plan", "BatchOutcome", "default_output"]


@checked
@dataclass
class BatchOutcome:
    """What a batch did.

    Attributes
    ----------
    total, done : int
        Runs in the experiment; runs finished (this session and earlier ones).
    solved : int
        Finished runs that were solved.
    new : int
        Runs finished in this session.
    per_config : dict
        ``label -> [solved, done]`` for the runs of this session and earlier ones
        (earlier ones only when a store was given).
    interrupted : bool
        True if a stop request ended it before every run was done.
    """

    total: int
    done: int = 0
    solved: int = 0
    new: int = 0
    per_config: dict = field(default_factory=dict)
    interrupted: bool = False


@checked
def default_output(spec: ExperimentSpec) -> Path:
    """Where a specification's results go when the command line does not say: its ``output``, else
    ``<name>-results`` in the current directory (the name, or the specification file's stem)."""
    if spec.output:
        return Path(spec.output)
    stem = spec.name or (spec.source.stem if spec.source is not None else "batch")
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in stem)
    return Path(f"{safe}-results")


@checked(advice={"spec": "read one with spec.load_spec(path)"})
def run_spec(
    spec: ExperimentSpec,
    out: str | os.PathLike[str] | None,
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    should_stop: Callable[[], bool] | None = None,
    progress: Callable[[BatchProgress], None] | None = None,
    note: Callable[[str], None] | None = None,
) -> BatchOutcome:
    """Run every task of ``spec`` not yet in the results directory ``out`` (None: keep nothing).

    Parameters
    ----------
    spec : ExperimentSpec
    out : path or None
        Results directory (:class:`~sudoku_lab.engine.results.ResultStore`): created,
        or resumed when it holds the same experiment, or grown when ``spec``
        is that experiment with more runs or puzzles (only the new runs run;
        those held keep their seeds and rows). A ``spec`` asking for fewer
        runs or puzzles reads its part of the directory and deletes nothing;
        anything else is another experiment, refused.
    jobs, scheduler
        Worker processes, or a Dask scheduler (``tcp://host:port``, ``local:N``).
    should_stop : callable, optional
        True stops promptly; the finished runs are kept.
    progress : callable, optional
        ``progress(BatchProgress)`` after each run.
    note : callable, optional
        ``note(text)`` for what the user should know (a recovered journal).

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (``run_spec("spec.toml", "out")``: read
        the specification with :func:`sudoku_lab.engine.spec.load_spec`).
    DataFileError
        ``out`` holds another experiment or cannot be written.
    """
    from .results import ResultStore, closing

    store = None
    if out is not None:
        session = {
            "scheduler": where_text(jobs, scheduler),
            "spec_file": str(spec.source) if spec.source else None,
            "spec_text": spec.text or None,
        }
        store = ResultStore(out, spec.canonical(), kind="batch", note=note, session=session, growth=spec.growth())
    outcome = BatchOutcome(spec.total)
    with closing(store):
        held = None
        if store is not None:
            # Asking for a part of the directory (fewer runs, a smaller sample): count that part only.
            partial = store.change is not None and store.change.shrinks
            held = store.held(spec.task_keys()) if partial else (len(store), store.solved())
            outcome.done, outcome.solved = held
        for _, task, res in execute(
            spec.tasks(),
            total=spec.total,
            store=store,
            jobs=jobs,
            scheduler=scheduler,
            should_stop=should_stop,
            progress=progress,
            solvers=spec.solvers(),
            held=held,
        ):
            outcome.new += 1
            outcome.done += 1
            outcome.solved += bool(res.solved)
            s = outcome.per_config.setdefault(task.config, [0, 0])
            s[0] += bool(res.solved)
            s[1] += 1
    outcome.interrupted = outcome.done < outcome.total
    return outcome


@checked
def plan(spec: ExperimentSpec, out: str | os.PathLike[str]) -> str:
    """What :func:`run_spec` would do with the results directory ``out``, in words (``batch --dry-run``).

    Raises
    ------
    DataFileError
        What the run would refuse: ``out`` holds another experiment (naming
        what differs), or is not a results directory.
    """
    from .results import check_results_dir, load_results

    change = check_results_dir(out, spec.canonical(), kind="batch", growth=spec.growth())
    if change is None:
        return f"results would go to {out} (no results there yet): would run all {spec.total:,} runs"
    held = set(load_results(out).table.column("task").to_pylist())
    done = sum(k in held for k in spec.task_keys())
    lines = []
    if change.grows:
        lines.append(
            f"{out} holds this experiment before it grows ({'; '.join(change.grows)}): the runs it "
            "holds are kept, with their seeds"
        )
    if change.shrinks:
        lines.append(
            f"{out} holds more than this asks for ({'; '.join(change.shrinks)}): this reads its part, and "
            "deletes nothing"
        )
    missing = spec.total - done
    lines.append(
        f"results would go to {out}, which holds {done:,} of these {spec.total:,} runs: "
        + (f"would run the {missing:,} missing" if missing else "would run nothing")
    )
    return "\n".join(lines)
