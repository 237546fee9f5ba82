"""``sudoku-lab compare``: any registered solvers on the same puzzles, with the same seeds and budget.

Every configuration (a solver, optionally with parameters: ``hill_climb``,
``reseda:restart=full,alpha=0.9``) runs ``runs`` times on every puzzle, run
``i`` with seed ``seed + i`` for all of them, each run until solved or the
stopping rule ``until``. A budget in seconds (the default) is the only fair
one across solvers, whose "iterations" differ in kind (an EDA step, a
hill-climbing move, a generation).

Per configuration and puzzle the table gives the successes with their exact
(Clopper-Pearson) 95 % interval, the mean and median iterations and seconds of
the successful runs, the mean seconds per run and the expected time to success
(ETS = mean time per run / success rate). Each configuration after the first
is compared with the first by Fisher's exact test on the successes, in the
reproduction framework's words (``consistent``, ``higher``, ``lower``).

Runs are saved as they finish to a results directory (as ``batch`` writes one): Ctrl-C keeps them
and the same command resumes.
"""

from __future__ import annotations

import csv
import io
import math
import statistics
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from .errors import ParameterError, PuzzleError
from .experiments import RunResult, run_batch
from .puzzle import Puzzle
from .spec import Config, ExperimentSpec, PuzzleSet
from .spec import parse_config as parse_configs
from .stats import SIGNIFICANCE, clopper_pearson, expected_time_to_success, fisher_p

__all__ = ["Config", "parse_config", "CompareRow", "compare", "format_rows", "FORMATS"]

FORMATS = ("text", "markdown", "csv")


def parse_config(text: str) -> Config:
    """``NAME`` or ``NAME:param=value,param=value`` with every value checked by the solver's declarations.

    A list value (``alpha=[0.5,0.7]``) gives several configurations: use
    :func:`sudoku_lab.spec.parse_config` for those; this returns exactly one.

    Raises
    ------
    ParameterError
        Unknown solver or parameter, a value out of range, a malformed item,
        or a list value.
    """
    configs = parse_configs(text)
    if len(configs) != 1:
        raise ParameterError(f"--algo {text!r} gives {len(configs)} configurations; name one", name="algo")
    return configs[0]


@dataclass
class CompareRow:
    """One configuration on one puzzle (``puzzle`` is ``"all"`` for the pooled row)."""

    config: str
    puzzle: str
    runs: int
    successes: int
    interval: tuple[float, float]
    mean_iterations: float
    median_iterations: float
    mean_seconds_solved: float
    mean_seconds: float
    ets: float
    p: float = math.nan
    verdict: str = ""

    @property
    def rate(self) -> float:
        return self.successes / self.runs if self.runs else math.nan


def _row(config: str, puzzle: str, results: Sequence[RunResult]) -> CompareRow:
    k, n = sum(r.solved for r in results), len(results)
    solved = [r for r in results if r.solved]
    its = [r.iterations for r in solved]
    secs = [r.seconds for r in solved]
    mean_all = statistics.fmean(r.seconds for r in results) if results else math.nan
    return CompareRow(
        config, puzzle, n, k, clopper_pearson(k, n) if n else (math.nan, math.nan),
        statistics.fmean(its) if its else math.nan, statistics.median(its) if its else math.nan,
        statistics.fmean(secs) if secs else math.nan, mean_all,
        expected_time_to_success(mean_all, k, n) if n else math.nan)


def _verdict(row: CompareRow, first: CompareRow) -> None:
    if not row.runs or not first.runs:
        return
    row.p = fisher_p(row.successes, row.runs, first.successes, first.runs)
    if row.p >= SIGNIFICANCE:
        row.verdict = "consistent"
    else:
        row.verdict = "higher" if row.rate > first.rate else "lower"


def compare(configs: Sequence[Config], puzzles: Sequence[Puzzle], runs: int = 10, seed: int = 0,
            until: str = "solved,10s", jobs: int = 1, results_file=None,
            should_stop: Callable[[], bool] | None = None,
            progress: Callable[[int, int], None] | None = None, scheduler: str | None = None) -> list[CompareRow]:
    """Run every configuration on every puzzle and tabulate (see the module docstring).

    Parameters
    ----------
    configs : sequence of Config
        At least one; the first is the reference of the verdicts.
    puzzles : sequence of Puzzle
        Any sizes.
    runs : int
        Runs per configuration and puzzle; run i uses seed ``seed + i``.
    until : str
        Stopping rule of each run (:func:`sudoku_lab.loop.parse_until`).
    jobs : int
        Worker processes.
    results_file : path, optional
        Results directory of the runs (:class:`~sudoku_lab.results.ResultStore`;
        resumed when it holds the same comparison).
    scheduler : str, optional
        Run on a Dask cluster instead (``tcp://host:port`` or ``local:N``).
    should_stop, progress : callable, optional
        As in :func:`sudoku_lab.grades.correctness_grades`.

    Returns
    -------
    list of CompareRow
        Per puzzle, one row per configuration in the given order, then the
        pooled rows (``puzzle="all"``) when there is more than one puzzle.
    """
    from .loop import parse_until

    if not configs:
        raise ParameterError("name at least one algorithm to compare (--algo NAME)", name="algo")
    labels = [c.label for c in configs]
    if len(set(labels)) != len(labels):
        raise ParameterError(f"the same configuration is named twice: {sorted({x for x in labels if labels.count(x) > 1})}",
                             name="algo")
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or not 1 <= runs <= 1_000_000:
        raise ParameterError(f"runs must be an integer from 1 to 1,000,000, got {runs!r}", name="runs")
    if not puzzles:
        raise PuzzleError("no puzzles to compare on", kind="empty")
    parse_until(until)
    names = [p.name or f"puzzle {i + 1}" for i, p in enumerate(puzzles)]
    spec = ExperimentSpec(tuple(configs), (PuzzleSet("puzzles", "compare", tuple(puzzles)),), runs, seed,
                          "sequential", until)
    tasks = list(spec.tasks())  # run by run, so an interrupted comparison stays balanced
    from .results import ResultStore, closing

    store = None
    if results_file is not None:
        # Every parameter, defaults included: a resumed directory whose defaults differ is refused, not mixed.
        store = ResultStore(results_file, spec.canonical(), kind="compare")
    with closing(store):
        results = run_batch(tasks, store, jobs=jobs, scheduler=scheduler, should_stop=should_stop,
                            progress=(lambda p: progress(p.done, p.total)) if progress else None)
    # spec.tasks() goes run by run, puzzle by puzzle, configuration by configuration.
    coords = [(ci, pi, r) for r in range(runs) for pi in range(len(puzzles)) for ci in range(len(configs))]
    done = {coords[j]: res for j, res in enumerate(results) if res is not None}
    rows: list[CompareRow] = []
    pooled: dict[int, list[RunResult]] = {ci: [] for ci in range(len(configs))}
    for pi, pname in enumerate(names):
        block = []
        for ci in range(len(configs)):
            got = [done[ci, pi, i] for i in range(runs) if (ci, pi, i) in done]
            pooled[ci].extend(got)
            block.append(_row(labels[ci], pname, got))
        for row in block[1:]:
            _verdict(row, block[0])
        rows.extend(block)
    if len(puzzles) > 1:
        block = [_row(labels[ci], "all", pooled[ci]) for ci in range(len(configs))]
        for row in block[1:]:
            _verdict(row, block[0])
        rows.extend(block)
    return rows


# ------------------------------------------------------------------ output
_HEAD = ("puzzle", "configuration", "solved", "95 % interval", "iterations (mean / median, solved)",
         "s per solve", "s per run", "ETS (s)", "vs first")


def _fmt(x: float, digits: int = 1) -> str:
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return "-" if math.isnan(x) else "inf"
    return f"{x:,.{digits}f}"


def _cells(r: CompareRow) -> list[str]:
    lo, hi = r.interval
    vs = "" if not r.verdict else f"{r.verdict} (p = {r.p:.3g})"
    return [r.puzzle, r.config, f"{r.successes}/{r.runs}", f"[{_fmt(100 * lo)}, {_fmt(100 * hi)}] %",
            f"{_fmt(r.mean_iterations)} / {_fmt(r.median_iterations)}", _fmt(r.mean_seconds_solved, 3),
            _fmt(r.mean_seconds, 3), _fmt(r.ets, 3), vs or ("reference" if r.runs else "")]


def format_rows(rows: Sequence[CompareRow], fmt: str = "text") -> str:
    """The table as aligned text, Markdown or CSV (CSV with plain numbers)."""
    if fmt not in FORMATS:
        raise ParameterError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}", name="format")
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["puzzle", "configuration", "runs", "successes", "ci_low", "ci_high", "mean_iterations_solved",
                    "median_iterations_solved", "mean_seconds_solved", "mean_seconds_per_run", "ets_seconds",
                    "fisher_p_vs_first", "verdict_vs_first"])
        for r in rows:
            w.writerow([r.puzzle, r.config, r.runs, r.successes, *r.interval, r.mean_iterations, r.median_iterations,
                        r.mean_seconds_solved, r.mean_seconds, r.ets, r.p, r.verdict])
        return buf.getvalue()
    table = [list(_HEAD)] + [_cells(r) for r in rows]
    if fmt == "markdown":
        lines = ["| " + " | ".join(table[0]) + " |", "|" + "---|" * len(_HEAD)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in table[1:]]
        return "\n".join(lines) + "\n"
    widths = [max(len(row[i]) for row in table) for i in range(len(_HEAD))]
    out = ["  ".join(c.ljust(w) for c, w in zip(table[0], widths)).rstrip(),
           "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in table[1:]]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------- CLI
def add_cli(sub) -> None:
    from ._console import int_option, seed_option

    c = sub.add_parser(
        "compare", help="compare solvers (any registered, RESEDA included) on the same puzzles, seeds and budget",
        description=__doc__.split("\n\n", 1)[1].split("\n\nRuns are saved")[0].replace("``", "'"))
    c.add_argument("puzzles", nargs="+", metavar="PUZZLES",
                   help="bundled puzzle or collection names, files or puzzle text (as `solve` reads them)")
    c.add_argument("--algo", action="append", default=[], metavar="NAME[:P=V,...]", required=True,
                   help="a configuration to compare (repeatable; the first is the reference of the verdicts), "
                   "e.g. --algo reseda --algo 'reseda:restart=full' --algo hill_climb; a list value gives one "
                   "configuration per value: 'reseda:alpha=[0.5,0.9]'")
    c.add_argument("--runs", type=int_option(1, 1_000_000), default=10,
                   help="runs per configuration and puzzle (default 10)")
    c.add_argument("--sample", type=int_option(1, 10**9), default=None,
                   help="use a seeded random sample of this many of the puzzles (seed --seed)")
    c.add_argument("--seed", type=seed_option, default=0, help="run i uses seed SEED+i for every solver (default 0)")
    c.add_argument("--until", default="solved,10s",
                   help="stopping rule per run (default solved,10s: the same seconds for every solver)")
    c.add_argument("--jobs", type=int_option(1), default=None, help="worker processes (default 1)")
    c.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run on a Dask cluster: tcp://host:8786, or local:N for N local worker processes")
    c.add_argument("--format", choices=FORMATS, default="text", help="table format on standard output")
    c.add_argument("--out", default=None,
                   help="results directory (as `batch` writes): runs are saved as they finish and the same command "
                   "resumes; `sudoku-lab report DIR` and `grades --from DIR` read it")
    c.add_argument("--quiet", action="store_true", help="no progress bar")
    c.set_defaults(func=cmd_compare)


def cmd_compare(args) -> int:
    import sys

    from ._console import ProgressBar, interruptible, resolve_puzzles
    from .experiments import effective_jobs
    from .loop import parse_until

    configs = [c for a in args.algo for c in parse_configs(a)]
    parse_until(args.until)
    if args.jobs is not None and args.scheduler:
        raise ParameterError("--jobs and --scheduler: choose worker processes or a Dask cluster, not both", name="jobs")
    if args.scheduler:
        from .cluster import parse_scheduler

        parse_scheduler(args.scheduler)
    puzzles: list[Puzzle] = []
    for arg in args.puzzles:
        puzzles.extend(resolve_puzzles(arg))
    if args.sample is not None and args.sample < len(puzzles):
        pick = np.random.default_rng(args.seed).choice(len(puzzles), size=args.sample, replace=False)
        puzzles = [puzzles[i] for i in sorted(pick.tolist())]
    jobs, note = effective_jobs(args.jobs or 1)
    if note:
        print(f"sudoku-lab: note: {note}", file=sys.stderr)
    bar = ProgressBar(enabled=not args.quiet)
    intr = interruptible("stopping: the finished runs are kept (Ctrl-C again to quit at once)")
    with intr as stop:
        rows = compare(configs, puzzles, runs=args.runs, seed=args.seed, until=args.until, jobs=jobs,
                       results_file=args.out, should_stop=stop.is_set, progress=bar.update,
                       scheduler=args.scheduler)
        interrupted = stop.is_set()
    bar.close()
    sys.stdout.write(format_rows(rows, args.format))
    if interrupted:
        again = "run the same command to resume" if args.out else "give --out DIR to keep runs across interruptions"
        print(f"interrupted: the table holds the finished runs only; {again}", file=sys.stderr)
        return intr.exit_status
    return 0
