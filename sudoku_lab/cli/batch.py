"""``sudoku-lab batch``: run an experiment from a specification file or from options, resumably."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .._checks import checked
from ..engine.batch import default_output, plan, run_spec
from ..engine.spec import ExperimentSpec
from ..errors import ParameterError
from ..solvers.base import DEFAULT_SEED


# --------------------------------------------------------------------- CLI
@checked
def add_cli(sub: argparse._SubParsersAction, algo: str | None = None) -> None:
    from ..engine.spec import SEEDINGS
    from ._console import add_where_options, int_option, seed_option

    b = sub.add_parser(
        "batch",
        help="run an experiment (a TOML specification or flags) into a resumable results directory",
        description="Run every configuration on every puzzle --runs times, each run until solved or its budget, "
        "and write one row per run to a results directory (runs.parquet, read directly by pandas, polars and "
        "DuckDB; runs.jsonl, written as each run finishes; provenance.json). Ctrl-C stops cleanly; the same "
        "command resumes. Give a TOML specification (see the README) or --algo and --puzzles. "
        "`sudoku-lab report DIR` summarises the results.",
    )
    b.add_argument("spec", nargs="?", help="TOML specification file")
    b.add_argument(
        "--algo",
        action="append",
        default=[],
        metavar="NAME[:P=V,...]",
        help="without a specification: a configuration (repeatable); a list value expands, e.g. "
        "'reseda:alpha=[0.5,0.7],restart=full'",
    )
    b.add_argument(
        "--puzzles",
        action="append",
        default=[],
        metavar="SET",
        help="without a specification: a puzzle set (repeatable): bundled collection or puzzle, file, text",
    )
    b.add_argument("--runs", type=int_option(1, 1_000_000), default=None, help="runs per configuration and puzzle")
    b.add_argument("--seed", type=seed_option, default=None, help=f"base seed (default {DEFAULT_SEED})")
    b.add_argument(
        "--seeding",
        choices=SEEDINGS,
        default=None,
        help="spawn: per-run seeds from numpy's SeedSequence (default); sequential: run r uses SEED+r",
    )
    b.add_argument(
        "--until", default=None, help="budget per run, e.g. solved,10s or solved,100000it,30s (default solved,10s)"
    )
    b.add_argument("--sample", type=int_option(1), default=None, help="a seeded sample of this many puzzles per set")
    b.add_argument("--first", type=int_option(1), default=None, help="the first this many puzzles of each set")
    b.add_argument("--name", default=None, help="the experiment's name (reports show it)")
    b.add_argument(
        "--out", default=None, help="results directory (default: the specification's output, else NAME-results)"
    )
    add_where_options(b, "default: every CPU")
    b.add_argument(
        "--dry-run",
        action="store_true",
        help="say what would run (all of it, the runs missing, or the runs a grown experiment adds) and "
        "refuse what the run would refuse; run nothing",
    )
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.set_defaults(func=cmd_batch)


_FLAG_KEYS = ("algo", "puzzles", "runs", "seed", "seeding", "until", "sample", "first", "name")


def _spec_from_args(args) -> ExperimentSpec:
    from ..engine.spec import DEFAULT_UNTIL, load_spec, spec_from_options

    if args.spec:
        given = [k for k in _FLAG_KEYS if getattr(args, k) not in (None, [])]
        if given:
            flags = ", ".join("--" + k for k in given)
            raise ParameterError(
                f"{flags}: give these in the specification {args.spec}, or give no specification", name=given[0]
            )
        return load_spec(args.spec)
    if not args.algo or not args.puzzles:
        raise ParameterError("give a TOML specification, or at least one --algo and one --puzzles", name="spec")
    return spec_from_options(
        args.algo,
        args.puzzles,
        runs=args.runs or 1,
        seed=DEFAULT_SEED if args.seed is None else args.seed,
        seeding=args.seeding or "spawn",
        until=args.until or DEFAULT_UNTIL,
        sample=args.sample,
        first=args.first,
        name=args.name or "",
    )


@checked
def cmd_batch(args: argparse.Namespace) -> int:
    from ..engine._progress import ProgressBar, interruptible, note
    from ..engine.experiments import default_jobs
    from ._console import where_from_args

    jobs, scheduler = where_from_args(args, default_jobs())
    spec = _spec_from_args(args)
    out = Path(args.out) if args.out else default_output(spec)
    if args.dry_run:
        what = plan(spec, out)  # refuses (exit 2) exactly as the real run would
        print(spec.describe())
        print(what)
        return 0
    bar = ProgressBar(enabled=not args.quiet)
    intr = interruptible("stopping: the finished runs are kept (Ctrl-C again to quit at once)")
    with intr as stop:
        outcome = run_spec(
            spec, out, jobs=jobs, scheduler=scheduler, should_stop=stop.is_set, progress=bar.batch, note=note
        )
        interrupted = stop.is_set() and outcome.interrupted
    bar.close()
    print(
        f"{spec.name or 'batch'}: {outcome.done:,} of {outcome.total:,} runs done, {outcome.solved:,} solved "
        f"({outcome.new:,} this time); results in {out}"
    )
    if interrupted:
        print(
            f"interrupted after {outcome.done:,} of {outcome.total:,} runs; run the same command to resume",
            file=sys.stderr,
        )
        return intr.exit_status
    print(f"summarise them with: sudoku-lab report {out}")
    return 0
