"""Statistics for comparing our runs with the papers, on top of :mod:`scipy.stats`.

Success rates get exact (Clopper-Pearson) binomial intervals; means of skewed
quantities such as times get seeded percentile-bootstrap intervals.

Two success counts (the paper's ``k1/n1`` and ours ``k2/n2``) are compared by
:func:`compare_rates`, a real two-sample comparison:

* Fisher's exact test of "same success probability" on the 2x2 table
  (``scipy.stats.fisher_exact``, two-sided);
* Newcombe's hybrid score interval for the difference of the two rates
  (Newcombe 1998, Statistics in Medicine 17:873-890, method 10: the Wilson
  score intervals of both rates combined square-and-add), shown next to the
  Clopper-Pearson interval of each rate.

The verdict is one of three words, decided by Fisher's p alone:

``consistent``
    p >= 0.05: the two counts do not differ significantly (this does not say
    they are equal; with few runs the difference interval can be wide).
``ours higher`` / ``ours lower``
    p < 0.05: our success rate is significantly higher / lower than the
    paper's (printed in bold in Markdown reports).

The Newcombe interval and Fisher's test are different procedures, so near the
threshold one can exclude 0 while the other does not; the verdict follows the
test, the interval says how large the difference may be.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .._checks import checked

__all__ = [
    "clopper_pearson",
    "wilson",
    "newcombe_difference",
    "fisher_p",
    "compare_rates",
    "RateComparison",
    "VERDICTS",
    "SIGNIFICANCE",
    "bootstrap_mean_ci",
    "Rate",
    "expected_time_to_success",
]

#: Fisher's two-sided p below which two counts are called different.
SIGNIFICANCE = 0.05


def _st():
    """``scipy.stats``, imported on first use: it costs most of a second, and importing this module (as the
    command-line parser does, through ``report``) must not pay it."""
    from scipy import stats

    return stats


#: The verdict words of :func:`compare_rates`, in the order: no significant difference, ours higher, ours lower.
VERDICTS = ("consistent", "ours higher", "ours lower")


def _check(k: int, n: int) -> None:
    if n <= 0 or not 0 <= k <= n or int(k) != k or int(n) != n:
        raise ValueError(f"need integers 0 <= k <= n and n > 0, got k={k}, n={n}")


@checked
def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact two-sided binomial confidence interval for a success probability.

    Parameters
    ----------
    k : int
        Successes.
    n : int
        Trials (> 0).
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    (float, float)
        Lower and upper bound: ``P(X >= k; lo) = P(X <= k; hi) = (1 - level) / 2``
        (``scipy.stats.binomtest(k, n).proportion_ci(method="exact")``).
    """
    _check(k, n)
    ci = _st().binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


@checked
def wilson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval (no continuity correction) for a success probability."""
    _check(k, n)
    ci = _st().binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="wilson")
    return float(ci.low), float(ci.high)


@checked
def newcombe_difference(k1: int, n1: int, k2: int, n2: int, level: float = 0.95) -> tuple[float, float, float]:
    """Difference ``k1/n1 - k2/n2`` and its Newcombe hybrid score interval (Newcombe 1998, method 10).

    With ``(l1, u1)`` and ``(l2, u2)`` the Wilson intervals of the two rates
    ``p1`` and ``p2`` and ``d = p1 - p2``, the interval is
    ``[d - sqrt((p1 - l1)^2 + (u2 - p2)^2), d + sqrt((u1 - p1)^2 + (p2 - l2)^2)]``.

    Returns
    -------
    (float, float, float)
        ``(d, lower, upper)``, all in [-1, 1].
    """
    l1, u1 = wilson(k1, n1, level)
    l2, u2 = wilson(k2, n2, level)
    p1, p2 = k1 / n1, k2 / n2
    d = p1 - p2
    return d, max(-1.0, d - math.hypot(p1 - l1, u2 - p2)), min(1.0, d + math.hypot(u1 - p1, p2 - l2))


@checked
def fisher_p(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided p-value of Fisher's exact test that ``k1/n1`` and ``k2/n2`` share one success probability."""
    _check(k1, n1)
    _check(k2, n2)
    return float(_st().fisher_exact([[k1, n1 - k1], [k2, n2 - k2]], alternative="two-sided").pvalue)


@checked
@dataclass(frozen=True)
class RateComparison:
    """The paper's count next to ours: both exact intervals, the difference, Fisher's p and the verdict.

    Attributes
    ----------
    paper, ours : Rate
    paper_interval, our_interval : (float, float)
        Clopper-Pearson 95 % intervals.
    difference : float
        ``ours - paper`` (rates, not percentage points).
    difference_interval : (float, float)
        Newcombe hybrid score 95 % interval of ``difference``.
    p : float
        Fisher's exact two-sided p.
    verdict : str
        One of :data:`VERDICTS` (see the module docstring).
    """

    paper: Rate
    ours: Rate
    paper_interval: tuple
    our_interval: tuple
    difference: float
    difference_interval: tuple
    p: float
    verdict: str

    @property
    def significant(self) -> bool:
        """True when Fisher's p is below :data:`SIGNIFICANCE` (the verdict is not ``consistent``)."""
        return self.verdict != VERDICTS[0]


@checked
def compare_rates(paper: Rate, ours: Rate, level: float = 0.95) -> RateComparison:
    """Compare our success count with the paper's (see the module docstring for the verdict words)."""
    p = fisher_p(ours.k, ours.n, paper.k, paper.n)
    d, lo, hi = newcombe_difference(ours.k, ours.n, paper.k, paper.n, level)
    if p >= SIGNIFICANCE:
        verdict = VERDICTS[0]
    else:
        verdict = VERDICTS[1] if d > 0 else VERDICTS[2]
    return RateComparison(
        paper,
        ours,
        clopper_pearson(paper.k, paper.n, level),
        clopper_pearson(ours.k, ours.n, level),
        d,
        (lo, hi),
        p,
        verdict,
    )


@checked
def bootstrap_mean_ci(
    values: npt.ArrayLike, level: float = 0.95, resamples: int = 2000, seed: int = 0
) -> tuple[float, float, float]:
    """Mean and percentile-bootstrap interval (``scipy.stats.bootstrap``, seeded: reports are reproducible).

    Returns ``(mean, lo, hi)``; ``(nan, nan, nan)`` for no values, the value three times for one.
    """
    x = np.asarray(values, dtype=float).ravel()
    if x.size == 0:
        return math.nan, math.nan, math.nan
    if x.size == 1:
        return float(x[0]), float(x[0]), float(x[0])
    res = _st().bootstrap(
        (x,),
        np.mean,
        n_resamples=resamples,
        confidence_level=level,
        method="percentile",
        rng=np.random.default_rng(seed),
        vectorized=True,
    )
    return float(x.mean()), float(res.confidence_interval.low), float(res.confidence_interval.high)


@checked
@dataclass(frozen=True)
class Rate:
    """A success count out of n with its exact 95 % interval."""

    k: int
    n: int

    @property
    def value(self) -> float:
        return self.k / self.n if self.n else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        return clopper_pearson(self.k, self.n)

    def contains(self, other: Rate) -> bool:
        """True if ``other``'s rate lies inside this rate's 95 % interval."""
        lo, hi = self.interval
        return lo <= other.value <= hi

    def __str__(self) -> str:
        return f"{self.k}/{self.n}"


@checked
def expected_time_to_success(mean_time: float, successes: int, attempts: int) -> float:
    """ETS = mean time per attempt / success rate (RESEDA Table 3); inf without a success."""
    return math.inf if successes == 0 else mean_time * attempts / successes
