"""``sudoku-lab compare``: configurations on the same puzzles with paired seeds, and their report."""

from __future__ import annotations

import argparse

from .._checks import checked
from ..engine.compare import compare
from ..engine.spec import parse_config as parse_configs
from ..model.puzzle import Puzzle
from ..solvers.base import DEFAULT_SEED


# --------------------------------------------------------------------- CLI
@checked
def add_cli(sub: argparse._SubParsersAction, algo: str | None = None) -> None:
    from ..analysis.report import CORRECTIONS, FORMATS
    from ..engine import compare as engine_compare
    from ._console import add_where_options, int_option, seed_option

    c = sub.add_parser(
        "compare",
        help="compare solvers (any registered, RESEDA included) on the same puzzles, seeds and budget",
        description=engine_compare.__doc__.split("\n\n", 1)[1].split("\n\nRuns are saved")[0].replace("``", "'"),
    )
    c.add_argument(
        "puzzles",
        nargs="+",
        metavar="PUZZLES",
        help="bundled puzzle or collection names, files or puzzle text (as `solve` reads them)",
    )
    c.add_argument(
        "--algo",
        action="append",
        default=[],
        metavar="NAME[:P=V,...]",
        required=True,
        help="a configuration to compare (repeatable), e.g. --algo reseda --algo 'reseda:restart=full' "
        "--algo hill_climb; a list value gives one configuration per value: 'reseda:alpha=[0.5,0.9]'",
    )
    c.add_argument(
        "--runs", type=int_option(1, 1_000_000), default=10, help="runs per configuration and puzzle (default 10)"
    )
    c.add_argument(
        "--sample",
        type=int_option(1, 10**9),
        default=None,
        help="use a seeded sample of this many of the puzzles: the first K of a shuffle seeded by --seed, "
        "so a larger --sample holds a smaller one's puzzles (and --out grows)",
    )
    c.add_argument(
        "--seed",
        type=seed_option,
        default=DEFAULT_SEED,
        help=f"run i uses seed SEED+i for every solver (default {DEFAULT_SEED})",
    )
    c.add_argument(
        "--until",
        default="solved,10s",
        help="stopping rule per run (default solved,10s: the same seconds for every solver)",
    )
    add_where_options(c, "default 1")
    c.add_argument(
        "--format", choices=FORMATS, default="text", help="report format on standard output (csv: the summary table)"
    )
    c.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="bh",
        help="multiple-comparison correction: bh = Benjamini-Hochberg (default), by = Benjamini-Yekutieli",
    )
    c.add_argument(
        "--out",
        default=None,
        help="results directory (as `batch` writes): runs are saved as they finish and the same command "
        "resumes; `sudoku-lab report DIR` and `grades --from DIR` read it",
    )
    c.add_argument("--quiet", action="store_true", help="no progress bar")
    c.set_defaults(func=cmd_compare)


@checked
def cmd_compare(args: argparse.Namespace) -> int:
    import sys

    from ..analysis.report import build_report
    from ..engine._progress import ProgressBar, interruptible, note
    from ..model.resolve import resolve_puzzles
    from ..stepping.loop import parse_until
    from ._console import where_from_args

    configs = [c for a in args.algo for c in parse_configs(a)]
    parse_until(args.until)
    jobs, scheduler = where_from_args(args, 1)
    puzzles: list[Puzzle] = []
    for arg in args.puzzles:
        puzzles.extend(resolve_puzzles(arg))
    bar = ProgressBar(enabled=not args.quiet)
    intr = interruptible("stopping: the finished runs are kept (Ctrl-C again to quit at once)")
    with intr as stop:
        results = compare(
            configs,
            puzzles,
            runs=args.runs,
            seed=args.seed,
            until=args.until,
            jobs=jobs,
            results_file=args.out,
            should_stop=stop.is_set,
            progress=bar.update,
            scheduler=scheduler,
            sample=args.sample,
            note=note,
        )
        interrupted = stop.is_set()
    bar.close()
    if not len(results):
        print("sudoku-lab: no run finished; nothing to report", file=sys.stderr)
        return intr.exit_status if interrupted else 1
    rep = build_report(results, by="puzzle", correction=args.correction)
    sys.stdout.write(rep.format(args.format, "summary" if args.format == "csv" else None))
    if interrupted:
        again = "run the same command to resume" if args.out else "give --out DIR to keep runs across interruptions"
        print(f"interrupted: the report holds the finished runs only; {again}", file=sys.stderr)
        return intr.exit_status
    return 0
