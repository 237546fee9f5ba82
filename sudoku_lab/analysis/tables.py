"""The report's tables as text, Markdown, LaTeX or CSV (:func:`format_summary`, :func:`format_comparisons`,
:func:`format_ecdf`); :class:`sudoku_lab.analysis.report.Report` puts them together."""

from __future__ import annotations

import csv
import io
import math
import re
from typing import TYPE_CHECKING, Sequence

from .._checks import checked
from ..errors import ParameterError
from .latex import escape

if TYPE_CHECKING:  # names of annotations only: the report imports this module
    from .report import ECDF, Comparison, SummaryRow

__all__ = ["FORMATS", "summary_cells", "format_summary", "format_comparisons", "format_ecdf"]

FORMATS = ("text", "markdown", "latex", "csv")
#: The label of the pooled group (every run of a configuration) when there is more than one group.
POOLED = "all"
_GROUP_HEADS = {"puzzle_set": "puzzle set", "puzzle": "puzzle", "all": "runs"}


def _check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise ParameterError(f"the format is one of {', '.join(FORMATS)}, not {fmt!r}", name="format")


def _num(x: float) -> str:
    """Three significant digits, thousands grouped from 100 up; ``-`` for NaN (no value), ``inf``."""
    if math.isnan(x):
        return "-"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if abs(x) >= 100 or x == int(x):
        return f"{x:,.0f}"
    return f"{x:.3g}"


def _p(p: float) -> str:
    return "-" if math.isnan(p) else f"{p:.2g}"


def _pair(a: float, b: float) -> str:
    return f"{_num(a)} / {_num(b)}"


def _interval(lo: float, hi: float) -> str:
    return f"[{100 * lo:.1f}, {100 * hi:.1f}] %"


_SCIENTIFIC = re.compile(r"(\d(?:\.\d+)?)e([+-])0*(\d+)")


def _latex(text: str, numeric: bool = False) -> str:
    """A cell as LaTeX: escaped by :func:`~sudoku_lab.analysis.latex.escape`; a number's ``1.2e-05`` and ``inf``
    in math mode."""
    out = escape(text)
    if numeric:
        out = _SCIENTIFIC.sub(lambda m: rf"${m[1]} \times 10^{{{'-' if m[2] == '-' else ''}{m[3]}}}$", out)
        out = re.sub(r"(?<![\w$])inf\b", r"$\\infty$", out)
    return out


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def _render(
    head: Sequence[str],
    rows: Sequence[Sequence[str]],
    fmt: str,
    numeric: set[int],
    breaks: Sequence[int] = (),
    latex_spec: str | None = None,
) -> str:
    """A table as aligned text, Markdown or a LaTeX tabular; ``breaks``: row indices that start a new block."""
    if fmt != "text":
        head = [h.replace("\n", " ") for h in head]
    if fmt == "markdown":
        lines = [
            "| " + " | ".join(_md_escape(h) for h in head) + " |",
            "|" + "|".join("---:" if i in numeric else "---" for i in range(len(head))) + "|",
        ]
        lines += ["| " + " | ".join(_md_escape(c) for c in row) + " |" for row in rows]
        return "\n".join(lines) + "\n"
    if fmt == "latex":
        spec = latex_spec or "".join("r" if i in numeric else "l" for i in range(len(head)))
        lines = [r"\begin{tabular}{" + spec + "}", r"\hline", " & ".join(_latex(h) for h in head) + r" \\", r"\hline"]
        for k, row in enumerate(rows):
            if k in breaks and k:
                lines.append(r"\hline")
            lines.append(" & ".join(_latex(c, i in numeric) for i, c in enumerate(row)) + r" \\")
        return "\n".join(lines + [r"\hline", r"\end{tabular}"]) + "\n"
    # A header may take several lines ("\n"), bottom-aligned, so long names do not widen a column of numbers.
    split = [h.split("\n") for h in head]
    depth = max(len(h) for h in split)
    split = [[""] * (depth - len(h)) + h for h in split]
    widths = [max([len(x) for x in h] + [len(r[i]) for r in rows]) for i, h in enumerate(split)]

    def line(cells):
        return "  ".join(c.rjust(w) if i in numeric else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    out = [line([h[k] for h in split]).rstrip() for k in range(depth)] + ["  ".join("-" * w for w in widths)]
    for k, row in enumerate(rows):
        if k in breaks and k:
            out.append("")
        out.append(line(row).rstrip())
    return "\n".join(out) + "\n"


def _csv(head: Sequence[str], rows: Sequence[Sequence]) -> str:
    """CSV with plain numbers: NaN (no value) as an empty cell, infinity as ``inf``."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(head)
    for row in rows:
        w.writerow(
            [
                ""
                if isinstance(v, float) and math.isnan(v)
                else "inf"
                if isinstance(v, float) and math.isinf(v) and v > 0
                else v
                for v in row
            ]
        )
    return buf.getvalue()


def _breaks(groups: Sequence[str]) -> list[int]:
    return [k for k in range(1, len(groups)) if groups[k] != groups[k - 1]]


@checked
def summary_cells(rows: Sequence[SummaryRow], by: str = "puzzle_set") -> tuple[list[str], list[list[str]]]:
    """The summary's column heads and cell texts, exactly as :func:`format_summary` prints them as text.

    A head may hold a line break (``iterations\nmean / median``); Markdown and LaTeX print it as a space.
    The lab's batch panel shows these cells, so its table and ``sudoku-lab report`` never differ.
    """
    head = [
        _GROUP_HEADS.get(by, "group"),
        "configuration",
        "solved",
        "95 % interval",
        "iterations\nmean / median",
        "evaluations\nmean / median",
        "seconds\nmean / median",
        "s per run",
        "ETS (s)",
    ]
    cells = [
        [
            r.group,
            r.config,
            f"{r.successes}/{r.runs}",
            _interval(*r.interval),
            _pair(r.mean_iterations, r.median_iterations),
            _pair(r.mean_evaluations, r.median_evaluations),
            _pair(r.mean_seconds, r.median_seconds),
            _num(r.seconds_per_run),
            _num(r.ets),
        ]
        for r in rows
    ]
    return head, cells


@checked
def format_summary(rows: Sequence[SummaryRow], fmt: str = "text", by: str = "puzzle_set") -> str:
    """The summary as an aligned text table, Markdown, a LaTeX tabular or CSV (plain numbers, one row each)."""
    _check_format(fmt)
    if fmt == "csv":
        return _csv(
            [
                "group",
                "pooled",
                "puzzle_set",
                "config",
                "solver",
                "runs",
                "successes",
                "success_rate",
                "ci_low",
                "ci_high",
                "mean_iterations_solved",
                "median_iterations_solved",
                "mean_evaluations_solved",
                "median_evaluations_solved",
                "mean_seconds_solved",
                "median_seconds_solved",
                "mean_seconds_per_run",
                "ets_seconds",
            ],
            [
                [
                    r.group,
                    int(r.pooled),
                    r.puzzle_set or "",
                    r.config,
                    r.solver,
                    r.runs,
                    r.successes,
                    r.rate,
                    *r.interval,
                    r.mean_iterations,
                    r.median_iterations,
                    r.mean_evaluations,
                    r.median_evaluations,
                    r.mean_seconds,
                    r.median_seconds,
                    r.seconds_per_run,
                    r.ets,
                ]
                for r in rows
            ],
        )
    head, cells = summary_cells(rows, by)
    return _render(head, cells, fmt, {2, 3, 4, 5, 6, 7, 8}, _breaks([r.group + "\0" * r.pooled for r in rows]))


@checked
def format_comparisons(comparisons: Sequence[Comparison], fmt: str = "text", by: str = "puzzle_set") -> str:
    """The pairwise comparisons: sentences per group (text), a table (Markdown, LaTeX) or CSV."""
    _check_format(fmt)
    if fmt == "csv":
        return _csv(
            [
                "group",
                "pooled",
                "config_a",
                "config_b",
                "successes_a",
                "runs_a",
                "successes_b",
                "runs_b",
                "fisher_p",
                "fisher_p_adjusted",
                "metric",
                "logrank_statistic",
                "logrank_p",
                "logrank_p_adjusted",
                "correction",
                "more_successes",
                "sooner",
                "verdict",
            ],
            [
                [
                    c.group,
                    int(c.pooled),
                    c.a,
                    c.b,
                    c.a_successes,
                    c.a_runs,
                    c.b_successes,
                    c.b_runs,
                    c.fisher_p,
                    c.fisher_adjusted,
                    c.metric,
                    c.logrank_statistic,
                    c.logrank_p,
                    c.logrank_adjusted,
                    c.correction,
                    c.more_successes or "",
                    c.sooner or "",
                    c.verdict,
                ]
                for c in comparisons
            ],
        )
    if not comparisons:
        return "No comparisons: these results hold fewer than two configurations.\n"
    if fmt == "text":
        out: list[str] = []
        last = None
        for c in comparisons:
            if (c.group, c.pooled) != last:
                last = (c.group, c.pooled)
                out.append(("" if len(out) == 0 else "\n") + (f"{POOLED} (pooled)" if c.pooled else c.group))
            out.append(f"  {c.a} vs {c.b}: {c.verdict}")
        return "\n".join(out) + "\n"
    head = [
        _GROUP_HEADS.get(by, "group"),
        "configurations",
        "solved",
        "Fisher p",
        "adjusted",
        f"log-rank p ({comparisons[0].metric})",
        "adjusted",
        "verdict",
    ]
    cells = [
        [
            c.group,
            f"{c.a} vs {c.b}",
            f"{c.a_successes}/{c.a_runs} vs {c.b_successes}/{c.b_runs}",
            _p(c.fisher_p),
            _p(c.fisher_adjusted),
            _p(c.logrank_p),
            _p(c.logrank_adjusted),
            c.short_verdict,
        ]
        for c in comparisons
    ]
    return _render(
        head,
        cells,
        fmt,
        {2, 3, 4, 5, 6},
        _breaks([c.group + "\0" * c.pooled for c in comparisons]),
        latex_spec="llrrrrrp{6cm}",
    )


@checked
def format_ecdf(ecdfs: Sequence[ECDF], fmt: str = "text", by: str = "puzzle_set") -> str:
    """The run-length distributions' points: per configuration and group, each x with the fraction solved."""
    _check_format(fmt)
    rows = [(e, x, y) for e in ecdfs for x, y in zip(e.x.tolist(), e.y.tolist())]
    if fmt == "csv":
        return _csv(
            ["group", "pooled", "config", "metric", "runs", "x", "fraction_solved"],
            [[e.group, int(e.pooled), e.config, e.metric, e.runs, x, y] for e, x, y in rows],
        )
    metric = ecdfs[0].metric if ecdfs else "seconds"
    cells = [[e.group, e.config, _num(x), f"{y:.3f}"] for e, x, y in rows]
    return _render(
        [_GROUP_HEADS.get(by, "group"), "configuration", metric, "fraction solved"],
        cells,
        fmt,
        {2, 3},
        _breaks([e.group + "\0" * e.pooled + e.config for e, _, _ in rows]),
    )
