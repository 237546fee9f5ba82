"""``sudoku-lab reproduce NAME``: re-run one experiment of a paper and print our numbers next to the published ones.

The experiments are the registered reproductions (:mod:`sudoku_lab.reproductions`,
one module per paper); this module only reads that registry. Every experiment
takes ``--param NAME=VALUE`` (checked against the parameters of the solver it
runs) to try another reading of the paper, and the options it declares among
``--runs``, ``--puzzles``, ``--solve-runs`` and ``--out``. Success counts are
compared with the paper's by both exact binomial 95 % intervals, Newcombe's
interval for the difference, Fisher's exact test and a verdict ("consistent",
"ours higher", "ours lower"; see :mod:`sudoku_lab.stats`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from .errors import ParameterError
from .reproductions import Report, Runner, get_paper, get_reproduction, option_names, reproductions, resolve_options

__all__ = ["Report", "run_experiment", "add_cli", "cmd_reproduce"]


def _check_params(rep, params: dict) -> None:
    from .solvers import get_solver_class

    get_solver_class(rep.solver).validate_params(params)


def run_experiment(name: str, *, runs: int | None = None, puzzles: int | None = None, seed: int = 0, jobs: int = 1,
                   params: dict | None = None, out: Path | None = None, solve_runs: int | None = None,
                   should_stop=None, progress=None, **own) -> Report:
    """Run the registered reproduction ``name`` and return its report.

    Parameters
    ----------
    name : str
        A name of :func:`sudoku_lab.reproductions.reproductions` (``"<paper>-<table>"``).
    runs, puzzles, solve_runs, out
        The experiment's options; None takes its default. Giving one it does not declare is an error.
    **own
        Options an experiment declares for itself (``ga_generations=`` of ``nbcoin-table2``), likewise.
    seed : int
        First seed.
    jobs : int
        Worker processes.
    params : dict
        Parameters of the experiment's solver, applied under what the experiment varies.
    should_stop, progress : callable, optional
        Cancellation (``should_stop() -> bool``) and ``progress(label, done, total)``.

    Raises
    ------
    ParameterError
        Unknown experiment, an option it does not take, a bad parameter.
    """
    rep = get_reproduction(name)
    paper = get_paper(rep.paper)
    params = dict(params or {})
    _check_params(rep, params)
    options = resolve_options(rep, {"runs": runs, "puzzles": puzzles, "solve_runs": solve_runs, "out": out, **own})
    report = rep.run(Runner(jobs, should_stop, progress, params, seed), **options)
    report.citation = f"Paper: {paper.citation}. Published numbers: {paper.source}."
    return report


# ---------------------------------------------------------------------- CLI
#: What each option means, whatever the experiment (the experiment's own words follow in --help).
_OPTION_HELP = {
    "runs": "runs or attempts per configuration",
    "puzzles": "puzzles per configuration",
    "solve_runs": "runs until solved",
    "out": "write the experiment's figure here (.pdf/.svg/.png)",
}


def _option_help(option: str) -> str:
    takers = [(r.name, r.options[option]) for r in reproductions().values() if option in r.options]
    if not takers:
        return f"{_OPTION_HELP[option]} (no registered experiment takes it)"
    if option not in _OPTION_HELP:  # an experiment's own option
        return "; ".join(f"{name}: {opt.help}, default {opt.default}" for name, opt in takers)
    parts = []
    for name, opt in takers:
        text = opt.help or _OPTION_HELP[option]
        if option != "out":
            text += f", default {opt.default}"
        parts.append(f"{name}: {text}")
    return f"{_OPTION_HELP[option]}; " + "; ".join(parts)


def _int_type(option: str):
    """An integer type accepting every value some experiment accepts (each experiment checks its own range)."""
    from ._console import int_option

    opts = [r.options[option] for r in reproductions().values() if option in r.options]
    lows, highs = [o.low for o in opts], [o.high for o in opts]
    low = min(lows) if opts and None not in lows else 0
    high = max(highs) if opts and None not in highs else None
    return int_option(low, high)


def add_cli(sub) -> None:
    from ._console import int_option, seed_option
    from .reproductions import papers

    reg = reproductions()
    names = list(reg)
    cites = "; ".join(f"{p.key}: {p.citation}" for p in papers().values())
    r = sub.add_parser("reproduce", help="re-run a paper's experiment and compare with the published numbers",
                       description="Re-run one experiment of a paper and print our numbers next to the paper's: "
                       "the exact binomial 95 % interval of each success count, Newcombe's interval for their "
                       "difference, Fisher's exact test and a verdict (consistent, ours higher, ours lower). "
                       "Shrink with --runs / --puzzles; try another reading of the paper with --param NAME=VALUE. "
                       f"Ctrl-C prints what finished. Papers: {cites}.")
    r.add_argument("experiment", choices=names,
                   help="the experiment: " + "; ".join(f"{n} ({reg[n].title})" for n in names).replace("%", "%%"))
    for option in option_names():
        flag = "--" + option.replace("_", "-")
        help_text = _option_help(option).replace("%", "%%")
        if option == "out":
            r.add_argument(flag, default=None, help=help_text)
        else:
            r.add_argument(flag, type=_int_type(option), default=None, help=help_text)
    r.add_argument("--seed", type=seed_option, default=0, help="first seed (default 0)")
    r.add_argument("--jobs", type=int_option(1), default=1,
                   help="worker processes (default 1: times stay comparable; capped at the CPUs available)")
    by_solver: dict[str, list[str]] = {}
    for name, rep in reg.items():
        by_solver.setdefault(rep.solver, []).append(name)
    solvers = "; ".join(f"{solver} ({', '.join(names)})" for solver, names in by_solver.items())
    r.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="override a parameter of the experiment's solver for every configuration (see `sudoku-lab "
                        f"algorithms SOLVER`); solvers: {solvers}")
    r.add_argument("--markdown", default=None, help="also write the report to this Markdown file")
    r.add_argument("--quiet", action="store_true", help="no progress output")
    r.set_defaults(func=cmd_reproduce)


def _parse_params(items) -> dict:
    out = {}
    for item in items:
        if "=" not in item:
            raise ParameterError(f"--param needs NAME=VALUE, got {item!r}", name="param")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def cmd_reproduce(args) -> int:
    from ._console import ProgressBar, interruptible
    from ._files import atomic_write_text, check_figure_path, check_writable
    from .experiments import effective_jobs

    # Every option is checked before the first run, not after an hour of them.
    rep = get_reproduction(args.experiment)
    params = _parse_params(args.param)
    _check_params(rep, params)
    given = {option: getattr(args, option) for option in option_names()}
    resolve_options(rep, given)
    if given["out"]:
        given["out"] = check_figure_path(given["out"])
    if args.markdown:
        check_writable(args.markdown, "report")
    jobs, note = effective_jobs(args.jobs)
    if note:
        print(f"sudoku-lab: note: {note}", file=sys.stderr)
    bars = {}

    def progress(label, done, total):
        if args.quiet:
            return
        bar = bars.setdefault(label, ProgressBar(unit="runs", label=label))
        bar.update(done, total)
        if done == total:
            bar.close()

    intr = interruptible("stopping: the report will hold the runs finished so far (Ctrl-C again to quit at once)")
    with intr as stop:
        report = run_experiment(args.experiment, seed=args.seed, jobs=jobs, params=params, should_stop=stop.is_set,
                                progress=progress, **given)
    text = report.markdown()
    cmd = "sudoku-lab reproduce " + " ".join(sys.argv[2:] if sys.argv[1:2] == ["reproduce"] else [args.experiment])
    print(text)
    if args.markdown:
        atomic_write_text(args.markdown, f"Command: `{cmd}`\n\n" + text, "report")
    return intr.exit_status if report.interrupted else 0
