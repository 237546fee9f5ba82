"""``sudoku-lab report``: statistics and figures of a results directory."""

from __future__ import annotations

import argparse
import sys

from .._checks import checked
from ..analysis.report import CORRECTIONS, FIGURES, FORMATS, GROUPINGS, METRICS, TABLES, build_report, figure
from ..errors import DataFileError, ParameterError


# --------------------------------------------------------------------- CLI
@checked
def add_cli(sub: argparse._SubParsersAction, algo: str | None = None) -> None:
    from ..files import DPI_RANGE
    from ._console import int_option

    r = sub.add_parser(
        "report",
        help="statistics of a results directory: successes, times, ETS, run-length ECDFs, pairwise tests",
        description="Summarise the runs of a results directory (written by `sudoku-lab batch`) per configuration "
        "and puzzle set: successes with their exact 95 % interval, mean and median iterations, evaluations and "
        "seconds of the solved runs, seconds per run and the expected time to success; then every two "
        "configurations compared by Fisher's exact test on the successes and the log-rank test on the time to "
        "success, p-values adjusted for multiple comparisons, with a verdict in words. As text, Markdown, "
        "LaTeX or CSV, and figures (run-length ECDFs, box plots, success rates, a configuration x puzzle "
        "heatmap) as PDF, SVG or PNG.",
    )
    r.add_argument(
        "results",
        metavar="RESULTS",
        help="a results directory (or its runs.parquet or runs.jsonl), or a results file of "
        "sudoku-lab 0.1.0 `grades` or `compare`",
    )
    r.add_argument(
        "--by",
        choices=GROUPINGS,
        default="puzzle_set",
        help="one row per configuration and puzzle set (a level; the default), per puzzle, or over "
        "all runs (more than one group adds a pooled group `all`)",
    )
    r.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="LABEL",
        help="only this configuration (repeatable; shown in the order given; * and ? match any text)",
    )
    r.add_argument(
        "--metric",
        choices=METRICS,
        default="seconds",
        help="time to success in the log-rank tests, the ECDF and box figure of --figure: seconds "
        "(default; the only unit every solver shares), iterations or evaluations",
    )
    r.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="bh",
        help="multiple-comparison correction of the p-values: bh = Benjamini-Hochberg (default), "
        "by = Benjamini-Yekutieli (valid under any dependence, more conservative)",
    )
    r.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="text (default), markdown, latex (tabulars) or csv (one table, plain numbers)",
    )
    r.add_argument(
        "--table",
        choices=TABLES,
        default=None,
        help="print only this table; with --format csv, which table (default summary); ecdf lists "
        "every point of the run-length distributions",
    )
    r.add_argument(
        "--out",
        default=None,
        metavar="FILE",
        help="write the report to FILE instead of standard output ('-' is standard output; a device or "
        "FIFO is written directly, a symlink is followed)",
    )
    r.add_argument(
        "--figures",
        default=None,
        metavar="DIR",
        help="write every figure to DIR: ecdf-METRIC and box-METRIC for each metric, success and heatmap",
    )
    r.add_argument(
        "--figure-format", choices=("pdf", "svg", "png"), default="pdf", help="file format of --figures (default pdf)"
    )
    r.add_argument(
        "--figure",
        action="append",
        default=[],
        metavar="KIND=PATH",
        help=f"write one figure to PATH (.pdf, .svg or .png); KIND is one of {', '.join(FIGURES)} "
        "(ecdf and box in --metric; repeatable)",
    )
    r.add_argument(
        "--dpi",
        type=int_option(*DPI_RANGE),
        default=200,
        help=f"PNG resolution, {DPI_RANGE[0]} to {DPI_RANGE[1]} (default 200)",
    )
    r.set_defaults(func=cmd_report)


def _figure_jobs(args) -> list[tuple[str, str | None, object]]:
    """(kind, metric, checked path) of every figure asked for, checked before anything is read."""
    from pathlib import Path

    from ..files import check_figure_path

    jobs = []
    if args.figures:
        base = Path(args.figures)
        if base.exists() and not base.is_dir():
            raise DataFileError(f"--figures {base} is a file; give a directory", path=base)
        for kind in FIGURES:
            for metric in METRICS if kind in ("ecdf", "box") else (None,):
                name = f"{kind}-{metric}" if metric else kind
                jobs.append((kind, metric, base / f"{name}.{args.figure_format}"))
    for item in args.figure:
        kind, eq, path = item.partition("=")
        kind = kind.strip()
        if not eq or kind not in FIGURES or not path.strip():
            raise ParameterError(
                f"--figure {item!r}: give KIND=PATH with KIND one of {', '.join(FIGURES)}", name="figure"
            )
        jobs.append((kind, args.metric if kind in ("ecdf", "box") else None, Path(path.strip())))
    return [(kind, metric, check_figure_path(path, args.dpi)) for kind, metric, path in jobs]


@checked
def cmd_report(args: argparse.Namespace) -> int:
    from ..engine.results import load_results
    from ..files import check_writable, standard_fd, write_text

    jobs = _figure_jobs(args)
    out = check_writable(args.out, "report") if args.out and args.out != "-" else None
    to_stdout = [f"--figure {kind}={path}" for kind, _, path in jobs if standard_fd(path) == 1]
    if to_stdout and (out is None or standard_fd(out) == 1 or len(to_stdout) > 1):
        raise ParameterError(
            f"{to_stdout[0]}: the report or another figure goes to standard output too; give --out "
            "FILE, or a file name to the figure",
            name="figure",
        )
    results = load_results(args.results)
    rep = build_report(results, by=args.by, metric=args.metric, correction=args.correction, configs=args.config)
    text = rep.format(args.format, args.table)
    if args.format == "csv":
        for note in rep.notes:
            print(f"sudoku-lab: note: {note}", file=sys.stderr)
    if out is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        write_text(out, text, "report")
    written = [str(out)] if out is not None and standard_fd(out) != 1 else []
    if jobs:
        from ..analysis import figures

        for kind, metric, path in jobs:
            fig = figure(rep, kind, metric)
            figures.save(fig, path, dpi=args.dpi)
            if standard_fd(path) != 1:
                written.append(str(path))
    if written:
        print(f"sudoku-lab: wrote {', '.join(written)}", file=sys.stderr)
    return 0
