"""``sudoku-lab report``: statistics over a results table, as tables (text, Markdown, LaTeX, CSV) and figures.

Per configuration (the ``config`` column: a solver and the parameters the
experiment sets) and group of runs (a puzzle set, that is a level, by default;
or one puzzle; or all runs), :func:`summarize` gives

* the successes out of the runs with their exact (Clopper-Pearson) 95 %
  interval;
* the mean and median iterations, evaluations and seconds of the solved runs;
* the mean seconds per run over all runs, and the expected time to success
  ``ETS = seconds per run / success rate`` (RESEDA Table 3; infinite without a
  success), which charges a configuration for its failed runs too;

and, when there is more than one group, a pooled group ``all``.

:func:`ecdf` gives the run-length distributions of Hoos and Stuetzle
(Stochastic Local Search, 2004, section 4.1): the fraction of *all* runs of a
configuration solved within ``x`` iterations, evaluations or seconds. Unsolved
runs never count, so a curve ends below 1 by the fraction of failures.

:func:`compare_pairs` compares every two configurations within each group:

* the successes by Fisher's exact test (``scipy.stats.fisher_exact``,
  two-sided) on the 2x2 table of solved and unsolved runs;
* the time to success by the log-rank test (``scipy.stats.logrank``) with
  every unsolved run right-censored where it stopped. Unlike a Mann-Whitney U
  test of the solved runs' times, it uses the failures too: a configuration
  that solves fast but rarely does not look better than one that always solves.
  The time is in seconds by default, the only unit all solvers share
  (an iteration is an EDA step for one, a move or a generation for another);
  iterations and evaluations are offered for comparisons within one solver.

Each test is run many times in one report, so its p-values are adjusted for
multiple comparisons, over all pairs and groups of the report at once, by
``scipy.stats.false_discovery_control``: Benjamini-Hochberg (``bh``, the
default; controls the false discovery rate when the tests are independent or
positively dependent, as those of overlapping groups are) or
Benjamini-Yekutieli (``by``; valid under any dependence, more conservative).
A difference is called significant when its adjusted p is below 0.05, and the
verdict says so in words: ``reseda solves more often than ga (18/20 vs 3/20;
Fisher p = 2.1e-06, adjusted 6.3e-06)``, ``no significant difference in
successes (...)``, ``hill_climb reaches a solution sooner than reseda
(log-rank on seconds, p = ..., adjusted ...)``.

:class:`Report` puts the three together with a header saying what was read
(the path, the experiment's name, the runs, the budgets, and notes: an
incomplete batch, budgets that differ between configurations). It prints as an
aligned text table, Markdown, LaTeX tabulars (needing no extra packages) or
CSV, one table per file, with plain numbers: an empty cell where there is no
value (the mean time of a configuration that never solved), ``inf`` for an
infinite ETS. The figures are drawn by :mod:`sudoku_lab.analysis.figures` from these
data structures (:func:`figure`).

Examples
--------
>>> import pyarrow as pa
>>> from sudoku_lab.engine.results import SCHEMA
>>> rows = [dict.fromkeys(SCHEMA.names) | {"config": c, "solver": c, "puzzle_set": "easy", "solved": s,
...         "iterations": 10, "evaluations": 100, "seconds": t}
...         for c, s, t in [("a", True, 1.0), ("a", True, 3.0), ("b", False, 5.0), ("b", True, 2.0)]]
>>> table = pa.Table.from_pylist(rows, schema=SCHEMA)
>>> [(r.config, r.successes, r.runs, r.ets) for r in summarize(table)]
[('a', 2, 2, 2.0), ('b', 1, 2, 7.0)]
"""

from __future__ import annotations

import difflib
import fnmatch
import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator, Sequence, cast

import numpy as np
import numpy.typing as npt

from .._checks import checked
from ..errors import DataFileError, ParameterError
from .latex import comment
from .stats import SIGNIFICANCE, clopper_pearson, expected_time_to_success, fisher_p
from .tables import (
    FORMATS,
    POOLED,
    _check_format,
    _md_escape,
    _p,
    format_comparisons,
    format_ecdf,
    format_summary,
    summary_cells,
)

if TYPE_CHECKING:
    import pyarrow

    from ..engine.results import Results

__all__ = [
    "SummaryRow",
    "ECDF",
    "Comparison",
    "Report",
    "summarize",
    "ecdf",
    "compare_pairs",
    "logrank",
    "build_report",
    "summary_cells",
    "format_summary",
    "format_comparisons",
    "format_ecdf",
    "GROUPINGS",
    "METRICS",
    "FORMATS",
    "TABLES",
    "CORRECTIONS",
    "FIGURES",
    "POOLED",
    "figure",
]

#: How runs are grouped: by puzzle set (a level; the default), by puzzle, or all together.
GROUPINGS = ("puzzle_set", "puzzle", "all")
#: What the run-length distributions and the time-to-success tests measure.
METRICS = ("seconds", "iterations", "evaluations")
#: The tables of a report (CSV holds one of them).
TABLES = ("summary", "comparisons", "ecdf")
#: Multiple-comparison corrections (``scipy.stats.false_discovery_control`` methods).
CORRECTIONS = ("bh", "by")
CORRECTION_NAMES = {"bh": "Benjamini-Hochberg", "by": "Benjamini-Yekutieli"}
#: The figures of ``sudoku-lab report`` (functions of :mod:`sudoku_lab.analysis.figures`).
FIGURES = ("ecdf", "box", "success", "heatmap")


# ------------------------------------------------------------- data classes
@checked
@dataclass(frozen=True)
class SummaryRow:
    """One configuration on one group of runs.

    Attributes
    ----------
    config, solver : str
        The configuration's label and its solver.
    group : str
        The puzzle set, the puzzle, or :data:`POOLED`.
    runs, successes : int
    interval : (float, float)
        Clopper-Pearson 95 % interval of the success rate.
    mean_iterations, median_iterations, mean_evaluations, median_evaluations, mean_seconds, median_seconds : float
        Over the solved runs (NaN without one).
    seconds_per_run : float
        Mean seconds over all runs.
    ets : float
        Expected seconds to a success: ``seconds_per_run / (successes / runs)``; inf without a success.
    puzzle_set : str or None
        The puzzle set of the group (None for the pooled group and for all runs).
    pooled : bool
        True for the pooled group.
    """

    config: str
    solver: str
    group: str
    runs: int
    successes: int
    interval: tuple
    mean_iterations: float
    median_iterations: float
    mean_evaluations: float
    median_evaluations: float
    mean_seconds: float
    median_seconds: float
    seconds_per_run: float
    ets: float
    puzzle_set: str | None = None
    pooled: bool = False

    @property
    def rate(self) -> float:
        """Success rate, successes / runs."""
        return self.successes / self.runs


@checked
@dataclass(frozen=True)
class ECDF:
    """The run-length distribution of one configuration on one group of runs.

    Attributes
    ----------
    config, group : str
    metric : str
        One of :data:`METRICS`.
    runs : int
        All runs, solved or not (the denominator of :attr:`y`).
    values : ndarray of float64, shape (successes,)
        The metric of every solved run, sorted ascending.
    horizon : float
        The largest metric of any run (where the unsolved runs stopped: the
        budget); a curve stays flat up to it.
    pooled : bool
    """

    config: str
    group: str
    metric: str
    runs: int
    values: np.ndarray
    horizon: float
    pooled: bool = False

    @property
    def x(self) -> np.ndarray:
        """The distinct values of :attr:`values` (float64, ascending)."""
        return np.unique(self.values)

    @property
    def y(self) -> np.ndarray:
        """Fraction of all runs solved at or below each :attr:`x` (float64, same shape as ``x``)."""
        _, counts = np.unique(self.values, return_counts=True)
        return np.cumsum(counts) / self.runs


@checked
@dataclass(frozen=True)
class Comparison:
    """Two configurations on one group of runs: Fisher's test on the successes, the log-rank test on the times.

    ``a`` comes before ``b`` in the report's order of configurations.

    Attributes
    ----------
    group : str
    a, b : str
        The configurations.
    a_successes, a_runs, b_successes, b_runs : int
    fisher_p, fisher_adjusted : float
        Fisher's exact two-sided p and its value adjusted over the report's Fisher tests.
    metric : str
        What the time to success is measured in.
    logrank_statistic : float
        ``(observed - expected successes of a) / sqrt(variance)``: positive when
        ``a`` solves sooner than ``b`` (NaN when not tested).
    logrank_p, logrank_adjusted : float
        Two-sided p and its adjusted value (NaN when not tested).
    untested : str
        Why the times were not compared (empty when they were).
    correction : str
        One of :data:`CORRECTIONS`.
    pooled : bool
    """

    group: str
    a: str
    b: str
    a_successes: int
    a_runs: int
    b_successes: int
    b_runs: int
    fisher_p: float
    fisher_adjusted: float
    metric: str
    logrank_statistic: float
    logrank_p: float
    logrank_adjusted: float
    untested: str = ""
    correction: str = "bh"
    pooled: bool = False

    @property
    def more_successes(self) -> str | None:
        """The configuration that solves significantly more often (adjusted Fisher p < 0.05), else None."""
        if not self.fisher_adjusted < SIGNIFICANCE:
            return None
        return self.a if self.a_successes / self.a_runs > self.b_successes / self.b_runs else self.b

    @property
    def sooner(self) -> str | None:
        """The configuration that reaches a solution significantly sooner (adjusted log-rank p < 0.05), else None."""
        if not self.logrank_adjusted < SIGNIFICANCE:
            return None
        return self.a if self.logrank_statistic > 0 else self.b

    def success_verdict(self) -> str:
        """Fisher's test in words, with the counts (the better one's first) and both p-values."""
        better = self.more_successes
        first_a = better != self.b
        counts = (
            f"{self.a_successes}/{self.a_runs} vs {self.b_successes}/{self.b_runs}"
            if first_a
            else f"{self.b_successes}/{self.b_runs} vs {self.a_successes}/{self.a_runs}"
        )
        numbers = f"{counts}; Fisher p = {_p(self.fisher_p)}, adjusted {_p(self.fisher_adjusted)}"
        if better is None:
            return f"no significant difference in successes ({numbers})"
        return f"{better} solves more often than {self.b if first_a else self.a} ({numbers})"

    def time_verdict(self) -> str:
        """The log-rank test in words, with both p-values (or why it was not run)."""
        if self.untested:
            return f"{_TIME_WORDS[self.metric][1]} not compared ({self.untested})"
        numbers = f"log-rank on {self.metric}, p = {_p(self.logrank_p)}, adjusted {_p(self.logrank_adjusted)}"
        winner = self.sooner
        if winner is None:
            return f"no significant difference in {_TIME_WORDS[self.metric][1]} ({numbers})"
        loser = self.b if winner == self.a else self.a
        return f"{winner} {_TIME_WORDS[self.metric][0]} than {loser} ({numbers})"

    @property
    def verdict(self) -> str:
        """Both verdicts, with their numbers, in one sentence."""
        return f"{self.success_verdict()}; {self.time_verdict()}"

    @property
    def short_verdict(self) -> str:
        """Both verdicts without numbers (for tables whose columns hold them)."""
        parts = []
        if self.more_successes:
            other = self.b if self.more_successes == self.a else self.a
            parts.append(f"{self.more_successes} solves more often than {other}")
        if self.sooner:
            other = self.b if self.sooner == self.a else self.a
            parts.append(f"{self.sooner} {_TIME_WORDS[self.metric][0]} than {other}")
        if self.untested and not parts:
            parts.append(f"{_TIME_WORDS[self.metric][1]} not compared ({self.untested})")
        return "; ".join(parts) or "no significant difference"


#: metric -> (what the sooner one does, the quantity compared)
_TIME_WORDS = {
    "seconds": ("reaches a solution sooner", "time to success"),
    "iterations": ("needs fewer iterations to a solution", "iterations to success"),
    "evaluations": ("needs fewer evaluations to a solution", "evaluations to success"),
}


# ------------------------------------------------------------- the runs
@dataclass(frozen=True)
class _Group:
    label: str
    puzzle_set: str | None = None
    pooled: bool = False


class _Runs:
    """The columns a report reads as numpy arrays, configurations and groups numbered in report order.

    Configurations come in the order of ``configs`` when given (the filter of
    ``--config``), else the experiment's order from the provenance sidecar,
    then first appearance; groups likewise (puzzle sets in the experiment's
    order, puzzles by set, then first appearance).
    """

    def __init__(self, results, by: str = "puzzle_set", configs: Sequence[str] | None = None):
        import pyarrow.compute as pc

        if by not in GROUPINGS:
            raise ParameterError(f"group runs by one of {', '.join(GROUPINGS)}, not {by!r}", name="by")
        table, prov = _table_of(results)
        spec = prov.get("spec") if isinstance(prov.get("spec"), dict) else {}
        code, labels = _encode(
            table.column("config"), [c.get("label") for c in spec.get("configs", []) if isinstance(c, dict)]
        )
        keep = _select(labels, configs)
        rank = np.full(len(labels), -1, np.int64)
        rank[keep] = np.arange(len(keep))
        rows = np.flatnonzero(rank[code] >= 0) if configs else np.arange(len(code))
        self.configs = [labels[i] for i in keep]
        self.config = rank[code][rows]
        take = (lambda a: a[rows]) if configs else (lambda a: a)
        self.solved = take(pc.fill_null(table.column("solved"), False).to_numpy(zero_copy_only=False)).astype(bool)
        self.metrics = {
            m: take(np.asarray(pc.fill_null(table.column(m), 0).to_numpy(), dtype=np.float64)) for m in METRICS
        }
        solver_code, solvers = _encode(table.column("solver"))
        first = np.unique(self.config, return_index=True)[1]  # a label names one solver: its first row says which
        self.solvers = [solvers[s] for s in take(solver_code)[first].tolist()]
        until_code, untils = _encode(table.column("until"))
        self.budgets: dict[str, list[str]] = {label: [] for label in self.configs}
        for key in np.unique(self.config * len(untils) + take(until_code)).tolist():
            self.budgets[self.configs[key // len(untils)]].append(untils[key % len(untils)])
        set_code, sets = _encode(
            table.column("puzzle_set"), [s.get("label") for s in spec.get("puzzle_sets", []) if isinstance(s, dict)]
        )
        set_code = take(set_code)
        puzzle_code, puzzles = _encode(table.column("puzzle"))
        puzzle_code = take(puzzle_code)
        self.puzzle_count = len(np.unique(set_code * max(len(puzzles), 1) + puzzle_code))
        self.set_count = len(np.unique(set_code))
        if by == "all":
            self.groups = [_Group(POOLED, pooled=True)]
            self.group = np.zeros(len(self.config), np.int64)
        elif by == "puzzle_set":
            used, self.group = np.unique(set_code, return_inverse=True)
            self.groups = [_Group(sets[s] or "-", sets[s]) for s in used.tolist()]
        else:
            used, self.group = np.unique(set_code * max(len(puzzles), 1) + puzzle_code, return_inverse=True)
            pairs = [divmod(k, max(len(puzzles), 1)) for k in used.tolist()]
            names = [puzzles[p] or "-" for _, p in pairs]
            twice = {n for n in names if names.count(n) > 1}
            self.groups = [_Group(f"{sets[s]}: {n}" if n in twice else n, sets[s]) for (s, _), n in zip(pairs, names)]
        self.group = np.asarray(self.group, np.int64).reshape(-1)
        self.run_counts = self._run_counts(set_code, puzzle_code)

    def __len__(self) -> int:
        return len(self.config)

    def _run_counts(self, set_code, puzzle_code) -> tuple[int, int]:
        """Fewest and most runs of one configuration on one puzzle."""
        if not len(self):
            return 0, 0
        key = (self.config * (int(set_code.max()) + 1) + set_code) * (int(puzzle_code.max()) + 1) + puzzle_code
        _, counts = np.unique(key, return_counts=True)
        return int(np.min(counts)), int(np.max(counts))

    def cells(self) -> Iterator[tuple[_Group, int, np.ndarray]]:
        """(group, configuration, row indices) of every non-empty pair, in report order; the pooled group last."""
        C = len(self.configs)
        parts = _split(self.group * C + self.config, len(self.groups) * C)
        for g, group in enumerate(self.groups):
            for c in range(C):
                if parts[g * C + c].size:
                    yield group, c, parts[g * C + c]
        if len(self.groups) > 1:
            pooled = _Group(POOLED, pooled=True)
            for c, idx in enumerate(_split(self.config, C)):
                if idx.size:
                    yield pooled, c, idx


def _as_results(results):
    """``results``, or the results read from it when it is a path (a results directory or file)."""
    if isinstance(results, (str, os.PathLike)):
        from ..engine.results import load_results

        return load_results(results)
    return results


def _table_of(results):
    """(pyarrow Table, provenance dict) of a :class:`~sudoku_lab.engine.results.Results` or a bare table."""
    if hasattr(results, "table"):
        return results.table, results.provenance or {}
    return results, {}


def _encode(column, preferred: Sequence[str | None] = ()) -> tuple[np.ndarray, list[str]]:
    """Codes (int64 (R,)) and labels of a string column; ``preferred`` labels first, then first appearance."""
    import pyarrow.compute as pc

    enc = pc.fill_null(column, "").combine_chunks().dictionary_encode()
    labels = enc.dictionary.to_pylist()
    where = {label: i for i, label in enumerate(labels)}
    order = [where[p] for p in dict.fromkeys(preferred) if p in where]
    placed = set(order)
    order += [i for i in range(len(labels)) if i not in placed]
    rank = np.empty(len(labels), np.int64)
    rank[order] = np.arange(len(order))
    return rank[enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)], [labels[i] for i in order]


def _select(labels: list[str], wanted: Sequence[str] | None) -> list[int]:
    """Indices of the configurations ``wanted`` names (labels or ``*``/``?`` patterns), in its order.

    Raises
    ------
    ParameterError
        A name or pattern that matches no configuration.
    """
    if not wanted:
        return list(range(len(labels)))
    out: list[int] = []
    for item in wanted:
        hits = [i for i, label in enumerate(labels) if label == item]
        if not hits and any(ch in item for ch in "*?["):
            hits = [i for i, label in enumerate(labels) if fnmatch.fnmatchcase(label, item)]
        if not hits:
            close = difflib.get_close_matches(item, labels, n=2)
            hint = f"; did you mean {' or '.join(close)}?" if close else ""
            raise ParameterError(
                f"no configuration {item!r} in these results (they hold {', '.join(labels)}){hint}", name="config"
            )
        out += [i for i in hits if i not in out]
    return out


def _split(keys: np.ndarray, size: int) -> list[np.ndarray]:
    """Row indices of each key 0..size-1 (each ascending): one stable sort instead of a mask per key."""
    order = np.argsort(keys, kind="stable")
    return np.split(order, np.cumsum(np.bincount(keys, minlength=size))[:-1]) if size else []


# ------------------------------------------------------------- statistics
@checked
def summarize(
    results: Results | pyarrow.Table | str | os.PathLike[str],
    by: str = "puzzle_set",
    configs: Sequence[str] | None = None,
) -> list[SummaryRow]:
    """Successes, interval, times and ETS per configuration and group (see the module docstring).

    Parameters
    ----------
    results : Results, pyarrow.Table or path
        Rows of :data:`sudoku_lab.engine.results.SCHEMA`, or a results directory or
        file (a str or PathLike, read with :func:`~sudoku_lab.engine.results.load_results`).
    by : str
        One of :data:`GROUPINGS`.
    configs : sequence of str, optional
        Only these configurations, in this order (labels, or patterns with ``*``, ``?``).

    Returns
    -------
    list of SummaryRow
        Per group, one row per configuration that has runs there; then the
        pooled rows when there is more than one group.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    ParameterError
        An unknown grouping or configuration.
    DataFileError
        A path that holds no results that can be read.
    """
    return _summaries(_Runs(_as_results(results), by, configs))


def _summaries(runs: _Runs) -> list[SummaryRow]:
    out = []
    for group, c, idx in runs.cells():
        solved = runs.solved[idx]
        k, n = int(solved.sum()), int(idx.size)
        stats = {}
        for m in METRICS:
            v = runs.metrics[m][idx][solved]
            stats[m] = (float(v.mean()), float(np.median(v))) if k else (math.nan, math.nan)
        per_run = float(runs.metrics["seconds"][idx].mean())
        out.append(
            SummaryRow(
                runs.configs[c],
                runs.solvers[c],
                group.label,
                n,
                k,
                clopper_pearson(k, n),
                *stats["iterations"],
                *stats["evaluations"],
                *stats["seconds"],
                per_run,
                expected_time_to_success(per_run, k, n),
                group.puzzle_set,
                group.pooled,
            )
        )
    return out


@checked
def ecdf(
    results: Results | pyarrow.Table | str | os.PathLike[str],
    metric: str = "seconds",
    by: str = "puzzle_set",
    configs: Sequence[str] | None = None,
) -> list[ECDF]:
    """Run-length distributions per configuration and group (the pooled group last, when there are several).

    Parameters are those of :func:`summarize`; ``metric`` is one of :data:`METRICS`.
    """
    return _ecdfs(_Runs(_as_results(results), by, configs), _check_metric(metric))


def _check_metric(metric: str) -> str:
    if metric not in METRICS:
        raise ParameterError(f"the metric is one of {', '.join(METRICS)}, not {metric!r}", name="metric")
    return metric


def _ecdfs(runs: _Runs, metric: str) -> list[ECDF]:
    out = []
    for group, c, idx in runs.cells():
        v = runs.metrics[metric][idx]
        values = np.sort(v[runs.solved[idx]])
        values.flags.writeable = False
        out.append(ECDF(runs.configs[c], group.label, metric, int(idx.size), values, float(v.max()), group.pooled))
    return out


@checked
def logrank(
    a_times: npt.ArrayLike, a_solved: npt.ArrayLike, b_times: npt.ArrayLike, b_solved: npt.ArrayLike
) -> tuple[float, float, str]:
    """The log-rank test of two samples of times to success, unsolved runs right-censored at their times.

    Parameters
    ----------
    a_times, b_times : array of float64, shape (n_a,), (n_b,)
        The metric of every run.
    a_solved, b_solved : array of bool, same shapes
        Which runs were solved (the others are censored).

    Returns
    -------
    (float, float, str)
        ``scipy.stats.logrank``'s statistic (positive: ``a`` solves sooner)
        and two-sided p; or ``(nan, nan, why)`` when the test has nothing to
        go on: no run solved, or at every solution one sample had no runs
        left or all runs left solved at that moment (the test's variance is
        0, and scipy would divide 0 by 0).
    """
    from scipy import stats as st

    a_times, b_times = np.asarray(a_times, np.float64), np.asarray(b_times, np.float64)
    a_solved, b_solved = np.asarray(a_solved, bool), np.asarray(b_solved, bool)
    events, deaths = np.unique(np.concatenate([a_times[a_solved], b_times[b_solved]]), return_counts=True)
    if not events.size:
        return math.nan, math.nan, "neither solved a run"
    # Runs still going at each solution time (a run stopping then counts, as in scipy's Kaplan-Meier sets).
    at_a = a_times.size - np.searchsorted(np.sort(a_times), events, side="left")
    at_b = b_times.size - np.searchsorted(np.sort(b_times), events, side="left")
    if not np.any((at_a > 0) & (at_b > 0) & (at_a + at_b > deaths)):
        return (
            math.nan,
            math.nan,
            ("nothing to compare: at every solution one had no runs left, or all runs left solved at once"),
        )
    res = st.logrank(
        st.CensoredData(uncensored=a_times[a_solved], right=a_times[~a_solved]),
        st.CensoredData(uncensored=b_times[b_solved], right=b_times[~b_solved]),
    )
    return float(res.statistic), float(res.pvalue), ""


@checked
def compare_pairs(
    results: Results | pyarrow.Table | str | os.PathLike[str],
    by: str = "puzzle_set",
    metric: str = "seconds",
    correction: str = "bh",
    configs: Sequence[str] | None = None,
) -> list[Comparison]:
    """Every two configurations within each group (the pooled group too): Fisher and log-rank, adjusted.

    Parameters are those of :func:`summarize`, and

    metric : str
        What the time to success is measured in (one of :data:`METRICS`).
    correction : str
        ``bh`` (Benjamini-Hochberg) or ``by`` (Benjamini-Yekutieli), applied
        over all Fisher tests of the result, and separately over all log-rank tests.
    """
    return _comparisons(_Runs(_as_results(results), by, configs), _check_metric(metric), correction)


def _comparisons(runs: _Runs, metric: str, correction: str) -> list[Comparison]:
    if correction not in CORRECTIONS:
        raise ParameterError(
            f"the correction is one of {', '.join(CORRECTIONS)}, not {correction!r}", name="correction"
        )
    blocks: dict[tuple, dict[int, np.ndarray]] = {}
    for group, c, idx in runs.cells():
        blocks.setdefault((group.label, group.pooled), {})[c] = idx
    raw = []
    times, solved = runs.metrics[metric], runs.solved
    for (label, pooled), members in blocks.items():
        cs = sorted(members)
        for i, ca in enumerate(cs):
            for cb in cs[i + 1 :]:
                a, b = members[ca], members[cb]
                ka, kb = int(solved[a].sum()), int(solved[b].sum())
                stat, p, why = logrank(times[a], solved[a], times[b], solved[b])
                raw.append(
                    dict(
                        group=label,
                        a=runs.configs[ca],
                        b=runs.configs[cb],
                        a_successes=ka,
                        a_runs=int(a.size),
                        b_successes=kb,
                        b_runs=int(b.size),
                        fisher_p=fisher_p(ka, int(a.size), kb, int(b.size)),
                        metric=metric,
                        logrank_statistic=stat,
                        logrank_p=p,
                        untested=why,
                        correction=correction,
                        pooled=pooled,
                    )
                )
    fisher = _adjust([r["fisher_p"] for r in raw], correction)
    ranks = _adjust([r["logrank_p"] for r in raw], correction)
    return [Comparison(fisher_adjusted=f, logrank_adjusted=lr, **r) for r, f, lr in zip(raw, fisher, ranks)]


def _adjust(ps: list[float], method: str) -> list[float]:
    """Adjusted p-values of the finite ones among ``ps`` (``scipy.stats.false_discovery_control``); NaN stays NaN."""
    from scipy.stats import false_discovery_control

    p = np.asarray(ps, np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    if ok.any():
        out[ok] = false_discovery_control(p[ok], method=method)
    return out.tolist()


# ------------------------------------------------------------- the report
@checked
@dataclass
class Report:
    """Everything ``sudoku-lab report`` prints, from one results table.

    Attributes
    ----------
    results : Results
    by, metric, correction : str
    summary : list of SummaryRow
    comparisons : list of Comparison
    ecdfs : list of ECDF
        Of ``metric``.
    notes : list of str
        What the reader should know (incomplete batch, differing budgets, filters).
    """

    results: object
    by: str
    metric: str
    correction: str
    summary: list
    comparisons: list
    ecdfs: list
    notes: list = field(default_factory=list)
    configs: list = field(default_factory=list)
    # The _Runs that build_report read (the methods cast it; typed object here, what the argument checks take).
    _runs: object = field(default=None, repr=False)
    _filter: tuple = field(default=(), repr=False)

    def ecdfs_of(self, metric: str) -> list[ECDF]:
        """The run-length distributions of another metric, same groups."""
        return self.ecdfs if metric == self.metric else _ecdfs(cast("_Runs", self._runs), _check_metric(metric))

    def summary_by(self, by: str) -> list[SummaryRow]:
        """The summary grouped another way (the heatmap wants puzzles)."""
        if by == self.by:
            return self.summary
        return _summaries(_Runs(self.results, by, self._filter or None))

    def header(self) -> list[str]:
        """What was read: the path, the experiment, the runs and the budgets; then the notes."""
        prov: dict = getattr(self.results, "provenance", None) or {}
        declared = prov.get("spec")
        spec: dict = declared if isinstance(declared, dict) else {}
        runs = cast("_Runs", self._runs)
        lo, hi = runs.run_counts
        each = f"{lo} run{'s' * (lo != 1)}" if lo == hi else f"{lo} to {hi} runs"
        name = spec.get("name") or ""
        path = getattr(self.results, "path", None)
        lines = [f"results: {path}" if path else "results: (a table in memory)"]
        budgets = sorted({b for bs in runs.budgets.values() for b in bs})
        lines.append(
            f"experiment: {name + ', ' if name else ''}{len(runs):,} runs of {len(runs.configs)} "
            f"configuration{'s' * (len(runs.configs) != 1)} on {runs.puzzle_count} "
            f"puzzle{'s' * (runs.puzzle_count != 1)} in {runs.set_count} puzzle "
            f"set{'s' * (runs.set_count != 1)}, {each} of each configuration on each puzzle; budget "
            f"{' / '.join(b for b in budgets if b) or 'not recorded'}"
        )
        session = (prov.get("sessions") or [{}])[-1]
        machine = prov.get("machine") or {}
        if session.get("writer"):
            lines.append(
                f"written by sudoku-lab {session['writer'].get('sudoku_lab', '?')} on "
                f"{machine.get('hostname', '?')} ({machine.get('cpu') or '?'}, {machine.get('cpus', '?')} "
                f"CPUs), last session started {session.get('started', '?')}"
            )
        return lines + [f"note: {n}" for n in self.notes]

    def format(self, fmt: str = "text", table: str | None = None) -> str:
        """The report in ``fmt``; ``table`` (one of :data:`TABLES`) prints that table alone.

        CSV holds one table, the summary unless ``table`` says otherwise, and no header.
        """
        _check_format(fmt)
        if table is not None and table not in TABLES:
            raise ParameterError(f"the table is one of {', '.join(TABLES)}, not {table!r}", name="table")
        if fmt == "csv" or table is not None:
            which = table or "summary"
            if which == "summary":
                return format_summary(self.summary, fmt, self.by)
            if which == "comparisons":
                return format_comparisons(self.comparisons, fmt, self.by)
            return format_ecdf(self.ecdfs, fmt, self.by)
        head = self.header()
        title = (
            "Successes and times per configuration"
            + {"puzzle_set": " and puzzle set", "puzzle": " and puzzle", "all": ""}[self.by]
        )
        footnote = (
            "mean / median over the solved runs; s per run over all runs; ETS = expected seconds to a "
            "success = s per run / success rate; 95 % interval: Clopper-Pearson"
        )
        family = _family_text(self.comparisons)
        if fmt == "text":
            parts = ["\n".join(head), title, format_summary(self.summary, fmt, self.by) + footnote]
            parts += (
                [f"Pairwise comparisons ({family})", format_comparisons(self.comparisons, fmt, self.by)]
                if self.comparisons
                else ["Pairwise comparisons: none (fewer than two configurations)"]
            )
            return "\n\n".join(p.rstrip("\n") for p in parts) + "\n"
        if fmt == "markdown":
            parts = [
                "## Sudoku Lab report",
                "\n".join(f"- {_md_escape(h)}" for h in head),
                f"### {title}",
                format_summary(self.summary, fmt, self.by) + f"\n{footnote}.",
                "### Pairwise comparisons",
                f"{family[:1].upper()}{family[1:]}.",
                format_comparisons(self.comparisons, fmt, self.by),
            ]
            return "\n\n".join(p.rstrip("\n") for p in parts) + "\n"
        # The header as comment lines: a path or a note may hold anything, a line break included.
        parts = [
            "\n".join([comment(h) for h in head] + [comment(f"{title}; {footnote}")]),
            format_summary(self.summary, fmt, self.by),
            comment(f"Pairwise comparisons: {family}"),
            format_comparisons(self.comparisons, fmt, self.by),
        ]
        return "\n\n".join(p.rstrip("\n") for p in parts) + "\n"


@checked
def build_report(
    results: Results | pyarrow.Table | str | os.PathLike[str],
    by: str = "puzzle_set",
    metric: str = "seconds",
    correction: str = "bh",
    configs: Sequence[str] | None = None,
) -> Report:
    """The summary, the comparisons and the run-length distributions of ``results``, with notes.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    DataFileError
        The results hold no runs.
    ParameterError
        An unknown grouping, metric, correction or configuration.
    """
    results = _as_results(results)
    runs = _Runs(results, by, configs)
    metric = _check_metric(metric)
    table, prov = _table_of(results)
    if not table.num_rows:
        where = getattr(results, "path", None)
        raise DataFileError(f"{where} holds no finished runs yet" if where else "the results hold no runs", path=where)
    notes = list(getattr(results, "notes", None) or [])
    spec = prov.get("spec") if isinstance(prov.get("spec"), dict) else {}
    try:
        total = int(spec["runs"]) * len(spec["configs"]) * sum(int(s["puzzles"]) for s in spec["puzzle_sets"])
    except (KeyError, TypeError, ValueError):
        total = None
    if total and table.num_rows < total:
        notes.append(
            f"incomplete: {table.num_rows:,} of the experiment's {total:,} runs are done "
            f"({_incomplete_why(prov, getattr(results, 'path', None))})"
        )
    if configs:
        _, every = _encode(table.column("config"))
        notes.append(f"{len(runs.configs)} of the {len(every)} configurations (--config): {', '.join(runs.configs)}")
    if len({b for bs in runs.budgets.values() for b in bs}) > 1:
        notes.append(
            "budgets differ ("
            + "; ".join(f"{label}: {', '.join(sorted(bs))}" for label, bs in runs.budgets.items())
            + "): rates and times are not on equal terms"
        )
    if metric == "iterations" and len(set(runs.solvers)) > 1:
        notes.append(
            "iterations are each solver's own unit (an EDA step, a move, a generation): compare them "
            "between configurations of one solver only"
        )
    return Report(
        results,
        by,
        metric,
        correction,
        _summaries(runs),
        _comparisons(runs, metric, correction),
        _ecdfs(runs, metric),
        notes,
        list(runs.configs),
        runs,
        tuple(configs or ()),
    )


def _incomplete_why(prov: dict, path) -> str:
    """Why a batch's or comparison's results lack runs, and the command that adds them."""
    what, command = ("comparison", "compare") if prov.get("kind") == "compare" else ("batch", "batch")
    if path is None:  # a comparison run without --out: its runs were never kept
        return (
            f"the {what} was interrupted, and its runs were not kept: run it again with --out DIR to keep them "
            "across interruptions"
        )
    session = (prov.get("sessions") or [{}])[-1]
    why = (
        f"a {what} is still writing it, or was killed"
        if session.get("ended", "") is None
        else f"the {what} was interrupted"
    )
    return (
        f"{why}; the same `sudoku-lab {command}` command"
        + (" (with this --out)" if command == "compare" else "")
        + " resumes it"
    )


def _family_text(comparisons: Sequence[Comparison]) -> str:
    if not comparisons:
        return "none: fewer than two configurations"
    fisher = sum(1 for c in comparisons if math.isfinite(c.fisher_p))
    ranks = sum(1 for c in comparisons if math.isfinite(c.logrank_p))
    name = CORRECTION_NAMES[comparisons[0].correction]
    return (
        f"two-sided; p adjusted by {name} over the report's {fisher} Fisher tests and, separately, its "
        f"{ranks} log-rank tests on {comparisons[0].metric}; significant: adjusted p < {SIGNIFICANCE:g}"
    )


@checked
def figure(report: Report, kind: str, metric: str | None = None):
    """The matplotlib Figure ``kind`` (one of :data:`FIGURES`) of a report."""
    from . import figures

    metric = metric or report.metric
    if kind == "ecdf":
        return figures.ecdf_figure(report.ecdfs_of(metric), metric)
    if kind == "box":
        return figures.box_figure(report.ecdfs_of(metric), metric)
    if kind == "success":
        return figures.success_figure(report.summary)
    if kind == "heatmap":
        return figures.heatmap_figure(report.summary_by("puzzle"))
    raise ParameterError(f"the figure is one of {', '.join(FIGURES)}, not {kind!r}", name="figure")
