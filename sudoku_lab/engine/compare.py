"""``sudoku-lab compare``: any registered solvers on the same puzzles, with the same seeds and budget.

Every configuration (a solver, optionally with parameters: ``hill_climb``,
``reseda:restart=full,alpha=0.9``; a list value gives one configuration per
value) runs ``runs`` times on every puzzle, run ``i`` with seed ``seed + i``
for all of them, each run until solved or the stopping rule ``until``. A
budget in seconds (the default) is the only fair one across solvers, whose
"iterations" differ in kind (an EDA step, a hill-climbing move, a generation).

It is a batch (:mod:`sudoku_lab.engine.batch`) described by flags, reported per
puzzle by :mod:`sudoku_lab.analysis.report`: successes with their exact 95 %
interval, mean and median iterations and seconds of the solved runs, seconds
per run and the expected time to success, then every two configurations
compared (Fisher's exact test on the successes, the log-rank test on the time
to success, p-values adjusted for multiple comparisons) with a verdict in words.

Runs are saved as they finish to a results directory (as ``batch`` writes one): Ctrl-C keeps them
and the same command resumes; the same command with more ``--runs``, a larger ``--sample`` or puzzles
added at the end adds only the new runs.
"""

from __future__ import annotations

import os
from typing import Callable, Sequence

import numpy as np

from .._checks import checked
from ..errors import ParameterError, PuzzleError
from ..model.puzzle import Puzzle
from ..solvers.base import DEFAULT_SEED
from .experiments import run_batch
from .spec import Config, ExperimentSpec, _legacy_sample, check_seed, parse_config as parse_configs, select

__all__ = ["Config", "parse_config", "compare"]


@checked
def parse_config(text: str) -> Config:
    """``NAME`` or ``NAME:param=value,param=value`` with every value checked by the solver's declarations.

    A list value (``alpha=[0.5,0.7]``) gives several configurations: use
    :func:`sudoku_lab.engine.spec.parse_config` for those; this returns exactly one.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    ParameterError
        Unknown solver or parameter, a value out of range, a malformed item,
        or a list value.
    """
    configs = parse_configs(text)
    if len(configs) != 1:
        raise ParameterError(f"--algo {text!r} gives {len(configs)} configurations; name one", name="algo")
    return configs[0]


@checked
def compare(
    configs: Sequence[Config],
    puzzles: Sequence[Puzzle],
    runs: int = 10,
    seed: int = DEFAULT_SEED,
    until: str = "solved,10s",
    jobs: int = 1,
    results_file: str | os.PathLike[str] | None = None,
    should_stop: Callable[[], bool] | None = None,
    progress: Callable[[int, int], None] | None = None,
    scheduler: str | None = None,
    sample: int | None = None,
    note: Callable[[str], None] | None = None,
):
    """Run every configuration on every puzzle, with the same seeds, and return their runs.

    Parameters
    ----------
    configs : sequence of Config
        At least one, each label once.
    puzzles : sequence of Puzzle
        Any sizes.
    runs : int
        Runs per configuration and puzzle; run i uses seed ``seed + i``.
    until : str
        Stopping rule of each run (:func:`sudoku_lab.stepping.loop.parse_until`).
    jobs : int
        Worker processes.
    results_file : path, optional
        Results directory of the runs (:class:`~sudoku_lab.engine.results.ResultStore`):
        resumed when it holds the same comparison, grown when this one has more
        runs or puzzles (a larger ``sample``, puzzles added at the end; only the
        new runs run), read in part when it has fewer (nothing is deleted).
    should_stop, progress : callable, optional
        As in :func:`sudoku_lab.analysis.grades.correctness_grades`.
    scheduler : str, optional
        Run on a Dask cluster instead (``tcp://host:port`` or ``local:N``).
    sample : int, optional
        Compare on a seeded sample of this many of ``puzzles``: the first
        ``sample`` of one shuffle seeded by ``seed``, so a larger sample holds
        a smaller one's puzzles (:func:`sudoku_lab.engine.spec.select`).
    note : callable, optional
        ``note(text)`` for what the user should know (a directory that grows).

    Returns
    -------
    Results
        One row per finished run (fewer than every run if stopped), with the
        comparison's specification as provenance: what
        :func:`sudoku_lab.analysis.report.build_report` summarises.
    """
    from ..stepping.loop import parse_until
    from .results import ResultStore, closing, load_results, results_from_rows, task_row

    if not configs:
        raise ParameterError("name at least one algorithm to compare (--algo NAME)", name="algo")
    labels = [c.label for c in configs]
    if len(set(labels)) != len(labels):
        raise ParameterError(
            f"the same configuration is named twice: {sorted({x for x in labels if labels.count(x) > 1})}", name="algo"
        )
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or not 1 <= runs <= 1_000_000:
        raise ParameterError(f"runs must be an integer from 1 to 1,000,000, got {runs!r}", name="runs")
    if not puzzles:
        raise PuzzleError("no puzzles to compare on", kind="empty")
    parse_until(until)
    check_seed(seed, int(runs), "sequential")
    if sample is not None and (isinstance(sample, bool) or not isinstance(sample, (int, np.integer)) or sample < 1):
        raise ParameterError(f"sample must be a positive integer, got {sample!r}", name="sample")
    named = [p if p.name else Puzzle(p.grid, n=p.n, name=f"puzzle_{i + 1}") for i, p in enumerate(puzzles)]
    puzzle_set = select(
        "puzzles",
        "compare",
        named,
        sample=sample,
        seed=seed,
        legacy=lambda k: _legacy_sample(named, np.random.default_rng(seed), k),
    )
    spec = ExperimentSpec(tuple(configs), (puzzle_set,), runs, seed, "sequential", until)
    tasks = list(spec.tasks())  # run by run, so an interrupted comparison stays balanced
    # Every parameter, defaults included: a resumed directory whose defaults differ is refused, not mixed.
    store = (
        None
        if results_file is None
        else ResultStore(results_file, spec.canonical(), kind="compare", note=note, growth=spec.growth())
    )
    with closing(store):
        results = run_batch(
            tasks,
            store,
            jobs=jobs,
            scheduler=scheduler,
            should_stop=should_stop,
            progress=(lambda p: progress(p.done, p.total)) if progress else None,
        )
    if store is not None:
        res = load_results(store.dir)
        if store.change is not None and store.change.shrinks:  # this comparison is a part of the directory's
            import pyarrow as pa
            import pyarrow.compute as pc

            keep = pc.is_in(res.table.column("task"), value_set=pa.array([t.key for t in tasks]))
            res.table = res.table.filter(keep)
            res.provenance = {**res.provenance, "spec": spec.canonical()}
            res.notes.append(
                f"{store.dir} holds more runs ({'; '.join(store.change.shrinks)}); this report is of "
                "the runs this comparison asks for"
            )
        return res
    rows = [task_row(t, r) for t, r in zip(tasks, results) if r is not None]
    return results_from_rows(rows, {"kind": "compare", "spec": spec.canonical()})
