"""``sudoku-lab grades``: the correctness-grade grid of the RESEDA paper (Figure 4.2), run or read from results."""

from __future__ import annotations

import argparse

import numpy as np

from .._checks import checked
from ..analysis.grades import MAX_RUNS, GradeResult, agreement, correctness_grades, grade_cells, grades_from_results
from ..errors import ParameterError
from ..files import DPI_RANGE, check_writable, output_kind, write_text
from ..solvers.base import DEFAULT_SEED


# ---------------------------------------------------------------------- CLI
@checked
def add_cli(sub: argparse._SubParsersAction, algo: str | None = None) -> None:
    from ._console import add_solver_params, add_where_options, int_option, seed_option

    g = sub.add_parser(
        "grades",
        help="per-cell correctness grades over many runs (the RESEDA paper's Figure 4.2)",
        description="Run --runs seeded runs of --algo on PUZZLE and grade every cell: A if the final grid "
        "was right there in all runs, B in at least 90 %. Writes the figure (--out: .pdf, .svg or .png), "
        "the grades as CSV and JSON next to it, and each finished run to the results directory OUT.runs "
        "(see `sudoku-lab batch`): Ctrl-C stops with the finished runs saved, and the same command resumes. "
        "With --from RESULTS, grade the final grids of runs already done (by batch, compare, reproduce or "
        "grades) instead of running anything.",
    )
    g.add_argument(
        "puzzle",
        nargs="?",
        help="file, bundled puzzle name or puzzle text (needs a unique solution); with --from, the "
        "puzzle of the results to grade, by name (needed when they hold several)",
    )
    g.add_argument(
        "--from",
        dest="from_results",
        default=None,
        metavar="RESULTS",
        help="grade the runs of a results directory (or its runs.parquet, or a 0.1.0 .runs.jsonl)",
    )
    g.add_argument(
        "--config",
        default=None,
        help="with --from: the configuration to grade (its label or solver), when the results hold several",
    )
    g.add_argument("--algo", default=None, help="algorithm (default reseda)")
    g.add_argument(
        "--runs", type=int_option(1, MAX_RUNS), default=None, help=f"number of runs R, 1 to {MAX_RUNS:,} (default 100)"
    )
    g.add_argument("--seed", type=seed_option, default=None, help=f"run i uses seed SEED+i (default {DEFAULT_SEED})")
    g.add_argument("--until", default=None, help="stopping rule per run (default solved,100000it)")
    g.add_argument("--out", default="grades.pdf", help="figure file, .pdf/.svg/.png (default grades.pdf)")
    g.add_argument(
        "--dpi",
        type=int_option(*DPI_RANGE),
        default=200,
        help=f"PNG resolution, {DPI_RANGE[0]} to {DPI_RANGE[1]} (default 200)",
    )
    g.add_argument("--thresholds", default="1.0,0.9", help="fractions for grades A,B (default 1.0,0.9)")
    add_where_options(g, "default 1")
    g.add_argument("--no-shade", action="store_true", help="do not shade cells by fraction correct")
    g.add_argument("--latex", action="store_true", help="also write OUT.tex with a LaTeX table")
    g.add_argument(
        "--compare", default=None, help="reference grades to compare with: 'paper' (Figure 4.2) or a grades .json file"
    )
    g.add_argument("--quiet", action="store_true", help="no progress bar")
    add_solver_params(g, algo or "reseda")  # --help lists RESEDA's parameters unless --algo names another
    g.set_defaults(func=cmd_grades)


#: Options that say how to run; with --from nothing runs.
_RUN_OPTIONS = ("algo", "runs", "seed", "until", "jobs", "scheduler")


def cmd_grades(args) -> int:
    import sys

    from ..analysis import figures
    from ..engine._progress import ProgressBar, interruptible
    from ..model.resolve import resolve_puzzle
    from ..stepping.loop import parse_until
    from ._console import solver_params, where_from_args

    # Everything that can be wrong with the options is found now, not after the runs.
    try:
        a, b = (float(x) for x in args.thresholds.split(","))
    except ValueError:
        raise ParameterError(
            f"--thresholds needs two numbers like 1.0,0.9, got {args.thresholds!r}", name="thresholds"
        ) from None
    grade_cells(np.zeros(1), np.zeros(1, bool), a, b)
    if output_kind(args.out, "figure") != "file":
        raise ParameterError(
            f"--out {args.out}: the grades CSV and JSON and the results directory are written next to "
            "the figure, so --out must name a file, not standard output, a device or a FIFO",
            name="out",
        )
    out = figures.check_figure_path(args.out, args.dpi)
    outputs = [out.with_suffix(".grades.csv"), out.with_suffix(".grades.json")]
    if args.latex:
        outputs.append(out.with_suffix(".tex"))
    for path in outputs:
        check_writable(path)
    if args.from_results is not None:
        given = [k for k in _RUN_OPTIONS if getattr(args, k) is not None]
        given += [k[len("param_") :] for k, v in vars(args).items() if k.startswith("param_") and v is not None]
        if given:
            raise ParameterError(
                f"--{given[0].replace('_', '-')}: with --from nothing runs; the results say how "
                "their runs went (choose among them with PUZZLE and --config)",
                name=given[0],
            )
        res = grades_from_results(args.from_results, puzzle=args.puzzle, config=args.config, thresholds=(a, b))
        reference = _reference(args.compare, res.puzzle)
        return _write_grades(res, args, out, outputs, reference, interrupted=False, exit_status=0)
    if args.config is not None:
        raise ParameterError(
            "--config chooses among the runs of --from RESULTS; to run a configuration, use --algo and its parameters",
            name="config",
        )
    if args.puzzle is None:
        raise ParameterError(
            "name the puzzle to grade (or grade the runs of a results directory with --from)", name="puzzle"
        )
    algo = args.algo or "reseda"
    runs = 100 if args.runs is None else args.runs
    until = args.until or "solved,100000it"
    parse_until(until)
    jobs, scheduler = where_from_args(args, 1)
    params = solver_params(algo, args)
    puzzle = resolve_puzzle(args.puzzle)
    reference = _reference(args.compare, puzzle)
    bar = ProgressBar(enabled=not args.quiet)
    intr = interruptible("stopping: the finished runs are kept (Ctrl-C again to quit at once)")
    with intr as stop:
        seed = DEFAULT_SEED if args.seed is None else args.seed
        res = correctness_grades(
            puzzle,
            algo,
            params,
            runs=runs,
            seed=seed,
            until=until,
            thresholds=(a, b),
            jobs=jobs,
            results_file=out.with_suffix(".runs"),
            should_stop=stop.is_set,
            progress=bar.update,
            scheduler=scheduler,
        )
        interrupted = stop.is_set()
    bar.close()
    if res.runs_done == 0:
        print("sudoku-lab: no run finished; nothing written", file=sys.stderr)
        return intr.exit_status if interrupted else 1
    status = _write_grades(res, args, out, outputs, reference, interrupted, intr.exit_status)
    if interrupted:
        print(f"interrupted after {res.runs_done} of {runs} runs; run the same command to resume", file=sys.stderr)
    return status


def _write_grades(res: GradeResult, args, out, outputs, reference, interrupted: bool, exit_status: int) -> int:
    """Write the figure and tables of ``res``, and say what was written."""
    from ..analysis import figures

    fig = figures.grade_figure(res, shade=not args.no_shade, reference=reference)
    figures.save(fig, out, dpi=args.dpi)
    res.save_csv(outputs[0])
    res.save_json(outputs[1])
    if args.latex:
        write_text(outputs[2], res.to_latex(caption=res.summary()))
    print(res.summary())
    if reference is not None:
        print(f"agreement with {args.compare}: {100 * agreement(res.grade_grid(), reference):.1f} % of cells")
    print("wrote " + ", ".join(str(p) for p in [out, *outputs]))
    return exit_status if interrupted else 0


def _reference(spec, puzzle):
    """The reference grade grid of ``--compare`` (checked against the puzzle before any run), or None."""
    if spec is None:
        return None
    if spec == "paper":
        from ..model import library

        if puzzle.to_line() != library.puzzle("reseda_fig4_1_hard").to_line():
            raise ParameterError(
                "--compare paper needs puzzle reseda_fig4_1_hard (the paper's Figure 4.1)", name="compare"
            )
        return library.reseda_fig4_2_grades()
    other = GradeResult.load_json(spec)
    if other.puzzle != puzzle:
        raise ParameterError(
            f"--compare {spec}: its grades are of another puzzle ({other.puzzle.name or 'unnamed'}, "
            f"{other.puzzle.n_givens} givens)",
            name="compare",
        )
    return other.grades_from_file.reshape(puzzle.N, puzzle.N)
