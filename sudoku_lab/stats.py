"""Small, dependency-free statistics for comparing runs with the papers.

Success rates get exact (Clopper-Pearson) binomial intervals; means of skewed
quantities such as times get seeded percentile-bootstrap intervals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["binom_cdf", "clopper_pearson", "bootstrap_mean_ci", "Rate", "expected_time_to_success"]


def binom_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p), summed in log space (stable for n up to ~10^6)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    lp, lq = math.log(p), math.log1p(-p)
    logs = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp + (n - i) * lq
            for i in range(k + 1)]
    m = max(logs)
    return min(1.0, math.exp(m) * math.fsum(math.exp(v - m) for v in logs))


def _bisect(f, target: float, increasing: bool) -> float:
    lo, hi = 0.0, 1.0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if (f(mid) < target) == increasing:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


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
        Lower and upper bound: ``P(X >= k; lo) = P(X <= k; hi) = (1 - level) / 2``.
    """
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n and n > 0, got k={k}, n={n}")
    a = (1.0 - level) / 2.0
    lo = 0.0 if k == 0 else _bisect(lambda p: 1.0 - binom_cdf(k - 1, n, p), a, increasing=True)
    hi = 1.0 if k == n else _bisect(lambda p: binom_cdf(k, n, p), a, increasing=False)
    return lo, hi


def bootstrap_mean_ci(values, level: float = 0.95, resamples: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Mean and percentile-bootstrap interval (seeded, so reports are reproducible).

    Returns ``(mean, lo, hi)``; ``(nan, nan, nan)`` for no values.
    """
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return math.nan, math.nan, math.nan
    if x.size == 1:
        return float(x[0]), float(x[0]), float(x[0])
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, x.size, size=(resamples, x.size))].mean(axis=1)
    a = (1.0 - level) / 2.0
    return float(x.mean()), float(np.quantile(means, a)), float(np.quantile(means, 1 - a))


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

    def contains(self, other: "Rate") -> bool:
        """True if ``other``'s rate lies inside this rate's 95 % interval."""
        lo, hi = self.interval
        return lo <= other.value <= hi

    def __str__(self) -> str:
        return f"{self.k}/{self.n}"


def expected_time_to_success(mean_time: float, successes: int, attempts: int) -> float:
    """ETS = mean time per attempt / success rate (RESEDA Table 3); inf without a success."""
    return math.inf if successes == 0 else mean_time * attempts / successes
