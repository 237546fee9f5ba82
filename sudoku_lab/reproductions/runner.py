"""``sudoku-lab reproduce NAME``: re-run one experiment of a paper and print our numbers next to the published ones.

The experiments are the registered reproductions (:mod:`sudoku_lab.reproductions`,
one module per paper); this module only reads that registry. Every experiment
takes ``--param NAME=VALUE`` (checked against the parameters of the solver it
runs) to try another reading of the paper, and the options it declares among
``--runs``, ``--puzzles``, ``--solve-runs`` and ``--out``. Success counts are
compared with the paper's by both exact binomial 95 % intervals, Newcombe's
interval for the difference, Fisher's exact test and a verdict ("consistent",
"ours higher", "ours lower"; see :mod:`sudoku_lab.analysis.stats`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from .._checks import checked
from ..engine.experiments import BatchProgress
from ..solvers.base import DEFAULT_SEED
from . import Report, get_reproduction
from ._suite import run_all, run_reproduction

__all__ = ["Report", "run_experiment", "run_all", "DEFAULT_OUT_DIR"]

#: Where ``reproduce all`` writes when not told.
DEFAULT_OUT_DIR = "reproduction"


@checked
def run_experiment(
    name: str,
    *,
    runs: int | None = None,
    puzzles: int | None = None,
    seed: int = DEFAULT_SEED,
    jobs: int = 1,
    params: dict | None = None,
    out: Path | None = None,
    solve_runs: int | None = None,
    should_stop: Callable[[], bool] | None = None,
    progress: Callable[[str, BatchProgress], None] | None = None,
    quick: bool = False,
    scheduler: str | None = None,
    results: str | os.PathLike[str] | None = None,
    note: Callable[[str], None] | None = None,
    **own: Any,
) -> Report:
    """Run the registered reproduction ``name`` and return its report.

    Parameters
    ----------
    name : str
        A name of :func:`sudoku_lab.reproductions.reproductions` (``"<paper>-<table>"``).
    runs, puzzles, solve_runs, out
        The experiment's options; None takes its default. Giving one it does not declare is an error.
    **own
        Options an experiment declares for itself (``ga_generations=`` of ``nbcoin-table2``), likewise.
    quick : bool
        Options not given take the experiment's quick values (its reduced form) instead of the defaults.
    seed : int
        First seed.
    jobs : int
        Worker processes (one pool for the whole experiment).
    scheduler : str, optional
        A Dask scheduler (``tcp://host:port``) or ``local:N`` instead of worker processes.
    params : dict
        Parameters of the experiment's solver, applied under what the experiment varies.
    results : path, optional
        A results directory keeping every run (:class:`~sudoku_lab.engine.results.ResultStore`): the same call
        resumes it (finished runs are not run again), a larger size option (``runs``, ``puzzles``: those
        the experiment declares ``grows``) adds only the new runs, a smaller one reads a part; other options
        or parameters are refused.
    should_stop, progress, note : callable, optional
        Cancellation (``should_stop() -> bool``), ``progress(label, BatchProgress)`` for each task list, and
        ``note(text)`` for what the user should know (a results directory recovered after a crash).

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    ParameterError
        Unknown experiment, an option it does not take, a bad parameter.
    DataFileError
        ``results`` holds another experiment or cannot be written.
    """
    from ..engine.experiments import Workers

    options = {"runs": runs, "puzzles": puzzles, "solve_runs": solve_runs, "out": out, **own}
    with Workers(jobs, scheduler, solvers=(get_reproduction(name).solver,)) as workers:
        return run_reproduction(
            name,
            options,
            quick=quick,
            seed=seed,
            params=params,
            workers=workers,
            results=results,
            should_stop=should_stop,
            progress=progress,
            note=note,
        ).report
