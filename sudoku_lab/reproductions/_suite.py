"""Registered reproductions on the experiment engine: one into a resumable results directory, or every one of
them (``sudoku-lab reproduce all``) with a single Markdown report, paper vs ours.

A reproduction's results directory (:class:`~sudoku_lab.engine.results.ResultStore`)
is identified by the experiment's name, its resolved options (not the figure
path), the ``--param`` values and the seed (:func:`store_spec`): the same
command resumes it, the same with a larger size option (one it declares
``grows``, such as ``--runs``) adds only the new runs, a smaller one reads a
part of it, and any other is refused. ``reproduce all`` gives each
experiment its own directory, ``DIR/<mode>/<name>/``, writes the figures of
those that draw one to ``DIR/figures/<name>.png`` and the report to
``DIR/report.md``; an experiment finished earlier comes back from its
directory at once.

Nothing here knows a paper or a solver.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Callable, Iterable, Mapping

from .._checks import checked
from ..engine.experiments import BatchProgress
from ..errors import ParameterError
from ..solvers.base import DEFAULT_SEED
from . import Reproduction, get_paper, get_reproduction, papers, reproductions, resolve_options
from ._core import Report, Runner

__all__ = [
    "MODES",
    "Outcome",
    "SuiteOutcome",
    "store_spec",
    "store_growth",
    "run_reproduction",
    "run_all",
    "suite_markdown",
    "summary_markdown",
    "options_text",
    "verdict_text",
    "REPORT",
    "FIGURES",
]

#: ``reproduce all`` modes: the reduced form each reproduction declares, or the papers' sizes (the defaults).
MODES = ("quick", "full")
#: The ``kind`` of a reproduction's results directory.
KIND = "reproduce"
#: Names inside ``reproduce all``'s output directory.
REPORT = "report.md"
FIGURES = "figures"


def _validated_params(rep: Reproduction, params: Mapping) -> dict:
    from ..solvers import get_solver_class

    return get_solver_class(rep.solver).validate_params(dict(params))


def store_growth(rep: Reproduction):
    """What may grow in a reproduction's results directory: the options it declares as sizes
    (:attr:`~sudoku_lab.reproductions.Option.grows`), as :class:`~sudoku_lab.engine.results.Growth`."""
    from ..engine.results import Growth

    return Growth(counts=tuple(k for k, opt in rep.options.items() if opt.grows))


def store_spec(rep: Reproduction, options: Mapping, params: Mapping, seed: int) -> dict:
    """What identifies a reproduction's results: its name, its options but the figure path, the (validated)
    ``--param`` values and the seed."""
    checked = _validated_params(rep, params)
    spec = {"experiment": rep.name, "seed": int(seed), "param": {k: checked[k] for k in sorted(checked)}}
    spec.update({k: v for k, v in options.items() if k != "out"})
    return spec


@dataclass
class Outcome:
    """One reproduction run: its report and what it took.

    Attributes
    ----------
    name : str
    report : Report
    options : dict
        The options it ran with (``out``: the figure written, or None).
    results : Path or None
        Its results directory.
    runs, new : int
        Runs its results directory holds; runs done this time (the rest came back from it).
    seconds : float
        Wall time this time.
    total_seconds : float
        Wall time over every session that wrote its results directory.
    """

    name: str
    report: Report
    options: dict
    results: Path | None = None
    runs: int = 0
    new: int = 0
    seconds: float = 0.0
    total_seconds: float = 0.0


def run_reproduction(
    name: str,
    options: Mapping | None = None,
    *,
    quick: bool = False,
    seed: int = DEFAULT_SEED,
    params: Mapping | None = None,
    jobs: int = 1,
    scheduler: str | None = None,
    workers=None,
    results=None,
    should_stop: Callable[[], bool] | None = None,
    progress=None,
    note: Callable[[str], None] | None = None,
) -> Outcome:
    """Run the registered reproduction ``name`` (into the results directory ``results``, resuming it).

    Parameters
    ----------
    name : str
    options : mapping, optional
        Its options; None or a missing one takes the quick value (with ``quick``), else the default.
    quick : bool
        Use the reproduction's declared quick values for the options not given.
    seed : int
    params : mapping, optional
        ``--param`` values for its solver.
    jobs, scheduler, workers
        Where the runs go (see :class:`~sudoku_lab.reproductions.Runner`).
    results : path, optional
        Results directory: created, or resumed when it holds the same experiment.
    should_stop, progress, note : callable, optional
        Stop request; ``progress(label, BatchProgress)``; ``note(text)`` for what the user should know.

    Raises
    ------
    ParameterError
        Unknown experiment, an option it does not take, a bad parameter.
    DataFileError
        ``results`` holds another experiment, or cannot be written.
    """
    rep = get_reproduction(name)
    paper = get_paper(rep.paper)
    params = dict(params or {})
    opts = resolve_options(rep, dict(options or {}), quick=quick)
    spec = store_spec(rep, opts, params, seed)  # checks the parameters too
    store = None
    before = 0  # the runs the store held before this call (read only when there is a store)
    t0 = time.perf_counter()
    if results is not None:
        from ..engine.experiments import where_text
        from ..engine.results import ResultStore

        where = workers.describe() if workers is not None else where_text(jobs, scheduler)
        store = ResultStore(results, spec, kind=KIND, note=note, session={"scheduler": where}, growth=store_growth(rep))
        before = len(store)
    try:
        runner = Runner(jobs, should_stop, progress, params, seed, store=store, scheduler=scheduler, workers=workers)
        report = rep.run(runner, **opts)
        report.citation = f"Paper: {paper.citation}. Published numbers: {paper.source}."
        out = Outcome(rep.name, report, opts)
        if store is not None:
            out.results, out.runs, out.new = store.dir, len(store), len(store) - before
    finally:
        if store is not None:
            store.close()
    out.seconds = out.total_seconds = time.perf_counter() - t0
    if store is not None:
        out.total_seconds += _earlier_sessions_seconds(store.dir)
    return out


def _earlier_sessions_seconds(directory: Path) -> float:
    """Wall time of the sessions before the last one that wrote a results directory (those that ended)."""
    from ..engine.results import load_results

    total = 0.0
    for s in (load_results(directory).provenance.get("sessions") or [])[:-1]:
        try:
            total += (
                datetime.fromisoformat(s["ended"].replace("Z", "+00:00"))
                - datetime.fromisoformat(s["started"].replace("Z", "+00:00"))
            ).total_seconds()
        except (KeyError, TypeError, AttributeError, ValueError):  # a session killed before it ended
            pass
    return total


@dataclass
class SuiteOutcome:
    """What ``reproduce all`` did.

    Attributes
    ----------
    mode : str
        ``quick`` or ``full``.
    report : Path
        The Markdown report written.
    outcomes : list of Outcome
        The experiments run (or read back), in order.
    not_run : list of str
        Experiments a stop request left out.
    seconds : float
        Wall time.
    plans : list of (Reproduction, dict)
        Every experiment that was to run, with its options.
    """

    mode: str
    report: Path
    plans: list = field(default_factory=list)
    outcomes: list = field(default_factory=list)
    not_run: list = field(default_factory=list)
    seconds: float = 0.0

    @property
    def interrupted(self) -> bool:
        return bool(self.not_run) or any(o.report.interrupted for o in self.outcomes)


@checked
def run_all(
    out_dir: str | os.PathLike[str],
    *,
    mode: str = "quick",
    only: Iterable[str] | None = None,
    seed: int = DEFAULT_SEED,
    jobs: int | None = None,
    scheduler: str | None = None,
    should_stop: Callable[[], bool] | None = None,
    announce: Callable[[int, int, Reproduction, dict], None] | None = None,
    progress: Callable[[str, BatchProgress], None] | None = None,
    note: Callable[[str], None] | None = None,
    command: str | None = None,
) -> SuiteOutcome:
    """Run every registered reproduction (built-ins, then plugins) and write one report, paper vs ours.

    Everything is checked before the first run: the experiments named, every
    results directory (one of another experiment or other options is refused),
    the report and figure paths, the scheduler.

    Parameters
    ----------
    out_dir : path
        ``DIR/<mode>/<name>/`` results directories, ``DIR/figures/``, ``DIR/report.md``.
    mode : {"quick", "full"}
        Each reproduction's quick values, or its defaults (the papers' sizes).
    only : iterable of str, optional
        These experiments only, in registration order.
    seed : int
    jobs : int, optional
        Worker processes, kept for every experiment (default: every CPU).
    scheduler : str, optional
        A Dask scheduler (``tcp://host:port``) or ``local:N``, used instead of ``jobs``.
    should_stop : callable, optional
        True stops promptly: the finished runs are kept, the report holds what finished.
    announce : callable, optional
        ``announce(k, n, reproduction, options)`` before the ``k``-th of ``n`` experiments.
    progress, note : callable, optional
        ``progress(label, BatchProgress)`` for each task list; ``note(text)``.
    command : str, optional
        The command line, for the report (default: the equivalent ``sudoku-lab reproduce all`` command).
    """
    from ..engine.experiments import Workers, default_jobs
    from ..engine.results import check_results_dir
    from ..files import check_figure_path, check_writable, write_text

    if mode not in MODES:
        raise ParameterError(f"mode must be one of {', '.join(MODES)}, got {mode!r}", name="mode")
    out_dir = Path(out_dir)
    wanted = set(get_reproduction(n).name for n in only) if only else None
    plans = []
    for rep in reproductions().values():
        if wanted is not None and rep.name not in wanted:
            continue
        opts = resolve_options(rep, {}, quick=mode == "quick")
        if "out" in rep.options:
            opts["out"] = check_figure_path(out_dir / FIGURES / f"{rep.name}.png")
        check_results_dir(
            out_dir / mode / rep.name, store_spec(rep, opts, {}, seed), kind=KIND, growth=store_growth(rep)
        )
        plans.append((rep, opts))
    report_path = check_writable(out_dir / REPORT, "report")
    workers = Workers(default_jobs() if jobs is None else jobs, scheduler, solvers=[rep.solver for rep, _ in plans])
    stop = should_stop or (lambda: False)
    started = datetime.now(UTC)
    load = [_load()]
    t0 = time.perf_counter()
    suite = SuiteOutcome(mode, report_path, plans)
    with workers:
        for k, (rep, opts) in enumerate(plans, 1):
            if stop():
                suite.not_run.append(rep.name)
                continue
            if announce:
                announce(k, len(plans), rep, opts)
            suite.outcomes.append(
                run_reproduction(
                    rep.name,
                    opts,
                    seed=seed,
                    workers=workers,
                    results=out_dir / mode / rep.name,
                    should_stop=stop,
                    progress=progress,
                    note=note,
                )
            )
    suite.seconds = time.perf_counter() - t0
    load.append(_load())
    if command is None:
        command = (
            f"sudoku-lab reproduce all --{mode} --out-dir {out_dir}"
            + (f" --seed {seed}" if seed else "")
            + (f" --only {' '.join(p[0].name for p in plans)}" if only else "")
        )
    text = suite_markdown(suite, command=command, started=started, seed=seed, where=workers.describe(), load=load)
    write_text(report_path, text, "report")
    return suite


def _load() -> float | None:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # pragma: no cover - not Unix
        return None


# ------------------------------------------------------------------ the report
_COUNTED = ("consistent", "ours higher", "ours lower")


def _duration(seconds: float) -> str:
    from ..engine._progress import duration_text

    return duration_text(seconds)


def options_text(rep: Reproduction, options: Mapping, mode: str) -> str:
    """``runs 20 (100), puzzles 9``: each integer option, then its default (the full size) when it differs."""
    parts = []
    for key, value in options.items():
        if key == "out" or value is None:
            continue
        default = rep.options[key].default
        parts.append(f"{key.replace('_', ' ')} {value:,}" + (f" ({default:,})" if value != default else ""))
    text = ", ".join(parts) or "none"
    if mode == "quick" and not rep.quick:
        text += " (declares no quick form: full size)"
    return text


def verdict_text(report: Report) -> str:
    """``10 consistent, 2 ours lower``: the verdicts of a report's success counts, or why it has none."""
    if not report.verdicts:
        return "no success count to test (compare the rows)"
    return ", ".join(f"{report.verdicts.count(v)} {v}" for v in _COUNTED if report.verdicts.count(v))


def _facts() -> tuple[str, str]:
    from ..engine.results import machine, provenance_writer

    m = machine()
    v = provenance_writer()
    names = {"sudoku_lab": "sudoku-lab", "python": "Python"}
    versions = ", ".join(f"{names.get(k, k)} {v[k]}" for k in v)
    return f"{m['cpu'] or m['machine']}, {m['cpus']} CPUs, {m['platform']}", versions


def summary_markdown(suite: SuiteOutcome) -> str:
    """The summary table of ``reproduce all`` (an experiment per row: verdict counts, runs, wall time) and its
    legend."""
    plans = suite.plans
    done = {o.name: o for o in suite.outcomes}
    lines = [
        "| experiment | what it reproduces | options | consistent | ours higher | ours lower | runs | wall time |",
        "|---|---|---|---|---|---|---|---|",
    ]
    totals = dict.fromkeys(_COUNTED, 0)
    runs = 0
    for rep, opts in plans:
        o = done.get(rep.name)
        if o is None:
            lines.append(
                f"| {rep.name} | {rep.title} | {options_text(rep, opts, suite.mode)} | | | | | not run (stopped) |"
            )
            continue
        counts = {v: o.report.verdicts.count(v) for v in _COUNTED}
        for v in _COUNTED:
            totals[v] += counts[v]
        runs += o.runs
        cells = [str(counts[v]) for v in _COUNTED] if o.report.verdicts else ["-", "-", "-"]
        time_cell = _duration(o.total_seconds) + (" (stopped: partial)" if o.report.interrupted else "")
        lines.append(
            f"| [{rep.name}](#{rep.name}) | {rep.title} | {options_text(rep, opts, suite.mode)} | "
            + " | ".join(cells)
            + f" | {o.runs:,} | {time_cell} |"
        )
    lines.append(
        f"| **all** | {len(done)} of {len(plans)} experiments | | **{totals['consistent']}** | "
        f"**{totals['ours higher']}** | **{totals['ours lower']}** | {runs:,} | "
        f"{_duration(suite.seconds)} |"
    )
    lines += [
        "",
        "Verdict counts: one per success count compared with the paper's (Fisher's exact test, two-sided; "
        '"ours higher" / "ours lower" when p < 0.05, "consistent" otherwise). "-": the experiment '
        "compares no success counts (its rows set our numbers beside the paper's; read them in its "
        "section). Options: ours, then the full form's value in parentheses where it differs. Runs: in "
        "the experiment's results directory. Wall time: summed over the sessions that ran the experiment; "
        "the last row's is this command's.",
    ]
    return "\n".join(lines) + "\n"


def suite_markdown(
    suite: SuiteOutcome, *, command: str, started: datetime, seed: int = 0, where: str = "", load=()
) -> str:
    """The report of ``reproduce all``: how it ran, a summary table paper vs ours, then every experiment's report."""
    mode = suite.mode
    plans = suite.plans
    base = suite.report.parent
    done = {o.name: o for o in suite.outcomes}
    cpu, versions = _facts()
    loads = [f"{x:.1f}" for x in load if x is not None]
    lines = [
        f"# Paper vs ours: every reproduction, {mode} form",
        "",
        f"Command: `{command}`  ",
        f"Date: {started.strftime('%Y-%m-%d %H:%M')} UTC; wall time {_duration(suite.seconds)}"
        + (
            f" (stopped early: {len(suite.outcomes)} of {len(plans)} experiments ran, the last may be partial)"
            if suite.interrupted
            else ""
        )
        + ".  ",
        f"Machine: {cpu}"
        + (f"; load average {' at the start, '.join(loads)} at the end" if len(loads) == 2 else "")
        + ".  ",
        f"Versions: {versions}.  ",
        f"Runs: {where or 'serial'}, seeds counted from {seed}.",
        "",
    ]
    if mode == "quick":
        lines += [
            "**Quick form.** Every table of every paper, with fewer runs than the paper: each experiment's "
            "sizes are in the summary, the papers' (the full form's) in parentheses. With fewer runs the "
            'intervals are wider, so "consistent" says less than at full size, while a large difference '
            "from the paper still shows. `sudoku-lab reproduce all --full` runs the papers' sizes (hours; "
            "resumable; `--scheduler` runs it on a Dask cluster).",
            "",
        ]
    else:
        lines += [
            "**Full form.** Every table of every paper at the paper's sizes (or the closest the bundled "
            "data allows: see each experiment's options).",
            "",
        ]
    lines += ["## Summary", "", summary_markdown(suite), "## Papers", ""]
    keys = dict.fromkeys(rep.paper for rep, _ in plans)
    lines += [f"- **{k}**: {papers()[k].citation}. Published numbers: {papers()[k].source}." for k in keys]
    for rep, opts in plans:
        o = done.get(rep.name)
        lines += ["", f"## {rep.name}", ""]
        if o is None:
            lines.append(f"{rep.title}. Not run: the command was stopped before it; run it again to go on.")
            continue
        alone = (
            f"sudoku-lab reproduce {rep.name}"
            + (" --quick" if mode == "quick" else "")
            + (f" --seed {seed}" if seed else "")
        )
        where_runs = f" in `{_rel(o.results, base)}`" if o.results is not None else ""
        lines += [
            f"**{rep.title}** (paper: {rep.paper}). **Paper vs ours: {verdict_text(o.report)}.** "
            f"Options: {options_text(rep, opts, mode)}. {o.runs:,} runs ({o.new:,} run by this command)"
            f"{where_runs}; wall time {_duration(o.total_seconds)}"
            + (", stopped before its end" if o.report.interrupted else "")
            + f". Alone: `{alone}`.",
            "",
            o.report.markdown().rstrip("\n"),
        ]
        fig = opts.get("out")
        if fig is not None and Path(fig).exists():
            lines += ["", f"![{rep.name}: {rep.options['out'].help or 'figure'}]({_rel(fig, base)})"]
    return "\n".join(lines) + "\n"


def _rel(path, base: Path) -> str:
    return Path(os.path.relpath(Path(path).resolve(), base.resolve())).as_posix()
