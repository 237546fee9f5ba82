"""``sudoku-lab reproduce``: the papers' tables, one reproduction or all of them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .._checks import checked
from ..errors import ParameterError
from ..reproductions import get_reproduction, option_names, reproductions, resolve_options
from ..reproductions._suite import run_all, store_growth, store_spec, summary_markdown
from ..reproductions.runner import DEFAULT_OUT_DIR, run_experiment
from ..solvers.base import DEFAULT_SEED

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
    parts = []
    for name, opt in takers:
        text = opt.help or _OPTION_HELP[option]
        if option != "out":
            quick = reproductions()[name].quick.get(option)
            text += f", default {opt.default}" + (f", quick {quick}" if quick is not None else "")
        parts.append(f"{name}: {text}")
    if option not in _OPTION_HELP:  # an experiment's own option
        return "; ".join(parts)
    return f"{_OPTION_HELP[option]}; " + "; ".join(parts)


def _int_type(option: str):
    """An integer type accepting every value some experiment accepts (each experiment checks its own range)."""
    from ._console import int_option

    opts = [r.options[option] for r in reproductions().values() if option in r.options]
    lows, highs = [o.low for o in opts], [o.high for o in opts]
    low = min(lows) if opts and None not in lows else 0
    high = max(highs) if opts and None not in highs else None
    return int_option(low, high)


@checked
def add_cli(sub: argparse._SubParsersAction, algo: str | None = None) -> None:
    from ..reproductions import papers
    from ._console import add_where_options, seed_option

    reg = reproductions()
    names = list(reg)
    cites = "; ".join(f"{p.key}: {p.citation}" for p in papers().values())
    r = sub.add_parser(
        "reproduce",
        help="re-run a paper's experiment, or all of them, and compare with the published numbers",
        description="Re-run one experiment of a paper and print our numbers next to the paper's: "
        "the exact binomial 95 % interval of each success count, Newcombe's interval for their "
        "difference, Fisher's exact test and a verdict (consistent, ours higher, ours lower). "
        "Shrink with --runs / --puzzles or --quick; try another reading of the paper with --param "
        "NAME=VALUE; keep the runs with --results DIR (the same command resumes). "
        "`reproduce all --quick` (or --full) runs every experiment of every paper and writes one "
        "report, paper vs ours. Ctrl-C prints what finished. "
        f"Papers: {cites}.",
    )
    r.add_argument(
        "experiment",
        choices=names + ["all"],
        metavar="EXPERIMENT",
        help="the experiment: "
        + "; ".join(f"{n} ({reg[n].title})" for n in names).replace("%", "%%")
        + "; or all: every one of them, into one report (with --quick or --full)",
    )
    for option in option_names():
        flag = "--" + option.replace("_", "-")
        help_text = _option_help(option).replace("%", "%%")
        if option == "out":
            r.add_argument(flag, default=None, help=help_text)
        else:
            r.add_argument(flag, type=_int_type(option), default=None, help=help_text)
    size = r.add_mutually_exclusive_group()
    size.add_argument(
        "--quick",
        action="store_true",
        help="the experiment's reduced form (its quick values for the options not given; minutes for `all`)",
    )
    size.add_argument("--full", action="store_true", help="the papers' sizes (the defaults; hours for `all`)")
    r.add_argument("--seed", type=seed_option, default=DEFAULT_SEED, help=f"first seed (default {DEFAULT_SEED})")
    add_where_options(r, "default 1 for one experiment: times stay comparable; every CPU for `all`")
    r.add_argument(
        "--results",
        default=None,
        metavar="DIR",
        help="keep every run in this results directory (runs.parquet, runs.jsonl, provenance.json): "
        "the same command resumes it, finished runs are not run again; more --runs or --puzzles add "
        "only the new runs (fewer read a part) where the experiment's sizes allow it; other options "
        "are refused",
    )
    by_solver: dict[str, list[str]] = {}
    for name, rep in reg.items():
        by_solver.setdefault(rep.solver, []).append(name)
    solvers = "; ".join(f"{solver} ({', '.join(names)})" for solver, names in by_solver.items())
    r.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a parameter of the experiment's solver for every configuration (see `sudoku-lab "
        f"algorithms SOLVER`); solvers: {solvers}",
    )
    r.add_argument("--markdown", default=None, help="also write the report to this Markdown file")
    r.add_argument(
        "--out-dir",
        default=None,
        metavar="DIR",
        help=f"`all` only: where its results (DIR/quick/NAME/, DIR/full/NAME/), figures (DIR/figures/) "
        f"and report (DIR/report.md) go (default {DEFAULT_OUT_DIR}); the same command resumes",
    )
    r.add_argument(
        "--only",
        action="extend",
        nargs="+",
        default=[],
        choices=names,
        metavar="NAME",
        help="`all` only: these experiments only",
    )
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


class _Bars:
    """A progress bar per task list (``label``), each prefixed; away from a terminal, one line per finished list
    with ``lists_only``."""

    def __init__(self, enabled: bool, lists_only: bool = False):
        self.enabled = enabled
        self.lists_only = lists_only
        self.prefix = ""
        self.bars: dict = {}

    def __call__(self, label, prog) -> None:
        from ..engine._progress import ProgressBar

        if not self.enabled:
            return
        bar = self.bars.get(label)
        if bar is None:
            bar = self.bars[label] = ProgressBar(unit="runs", label=f"{self.prefix}{label}")
        if self.lists_only and not bar.tty and prog.done < prog.total:
            return
        bar.batch(prog)
        if prog.done >= prog.total:
            bar.close()


@checked
def cmd_reproduce(args: argparse.Namespace) -> int:
    if args.experiment == "all":
        return _cmd_all(args)
    from ..engine._progress import interruptible, note
    from ..files import check_figure_path, check_writable, standard_fd, write_text
    from ._console import where_from_args

    # Every option is checked before the first run, not after an hour of them.
    for flag, value in (("--out-dir", args.out_dir), ("--only", args.only)):
        if value:
            raise ParameterError(f"{flag} applies to `reproduce all` only, not to one experiment", name=flag[2:])
    rep = get_reproduction(args.experiment)
    params = _parse_params(args.param)
    given = {option: getattr(args, option) for option in option_names()}
    options = resolve_options(rep, given, quick=args.quick)
    store_spec(rep, options, params, args.seed)  # checks the parameters
    for flag, value in (("--out", given["out"]), ("--markdown", args.markdown)):
        if value and standard_fd(value) == 1:
            raise ParameterError(
                f"{flag} {value}: the report is printed on standard output already; give a file name", name=flag[2:]
            )
    if given["out"]:
        given["out"] = check_figure_path(given["out"])
    if args.markdown:
        check_writable(args.markdown, "report")
    if args.results:
        from ..engine.results import check_results_dir

        check_results_dir(
            args.results, store_spec(rep, options, params, args.seed), kind="reproduce", growth=store_growth(rep)
        )
    jobs, scheduler = where_from_args(args, 1)
    bars = _Bars(not args.quiet)
    intr = interruptible("stopping: the report will hold the runs finished so far (Ctrl-C again to quit at once)")
    with intr as stop:
        report = run_experiment(
            args.experiment,
            seed=args.seed,
            jobs=jobs,
            scheduler=scheduler,
            params=params,
            should_stop=stop.is_set,
            progress=bars,
            quick=args.quick,
            results=args.results,
            note=note,
            **given,
        )
    text = report.markdown()
    cmd = "sudoku-lab reproduce " + " ".join(sys.argv[2:] if sys.argv[1:2] == ["reproduce"] else [args.experiment])
    print(text)
    if args.markdown:
        write_text(args.markdown, f"Command: `{cmd}`\n\n" + text, "report")
    if report.interrupted and args.results:
        print(f"interrupted; the finished runs are in {args.results}: run the same command to resume", file=sys.stderr)
    return intr.exit_status if report.interrupted else 0


def _cmd_all(args) -> int:
    from ..engine._progress import interruptible, note
    from ..engine.experiments import default_jobs
    from ._console import where_from_args

    single = [("--" + o.replace("_", "-"), getattr(args, o)) for o in option_names()]
    single += [("--param", args.param), ("--markdown", args.markdown), ("--results", args.results)]
    for flag, value in single:
        if value:
            raise ParameterError(
                f"{flag} applies to one experiment (`sudoku-lab reproduce NAME {flag} ...`); "
                "`reproduce all` runs each at its --quick or --full sizes, into --out-dir",
                name=flag[2:],
            )
    if not (args.quick or args.full):
        raise ParameterError(
            "`reproduce all` needs --quick (every experiment's reduced form: minutes) or --full "
            "(the papers' sizes: hours)",
            name="quick",
        )
    mode = "quick" if args.quick else "full"
    jobs, scheduler = where_from_args(args, default_jobs())
    out_dir = Path(args.out_dir or DEFAULT_OUT_DIR)
    bars = _Bars(not args.quiet, lists_only=True)

    def announce(k, n, rep, options):
        from ..reproductions._suite import options_text

        bars.prefix = f"[{k}/{n}] {rep.name}: "
        if not args.quiet:
            print(
                f"[{k}/{n}] {rep.name}: {rep.title} ({options_text(rep, options, mode)})", file=sys.stderr, flush=True
            )

    cmd = "sudoku-lab reproduce " + " ".join(sys.argv[2:] if sys.argv[1:2] == ["reproduce"] else ["all", f"--{mode}"])
    intr = interruptible("stopping: the finished runs are kept and the report written (Ctrl-C again to quit at once)")
    with intr as stop:
        suite = run_all(
            out_dir,
            mode=mode,
            only=args.only,
            seed=args.seed,
            jobs=jobs,
            scheduler=scheduler,
            should_stop=stop.is_set,
            announce=announce,
            progress=bars,
            note=note,
            command=cmd,
        )
    print(summary_markdown(suite))
    print(f"report written to {suite.report}", file=sys.stderr)  # stdout holds the summary only
    if suite.interrupted:
        ran = len(suite.outcomes)
        print(
            f"interrupted: {ran} of {len(suite.plans)} experiment{'s' if len(suite.plans) != 1 else ''} ran (the "
            "last may be partial); run the same command to resume",
            file=sys.stderr,
        )
        return intr.exit_status
    return 0
