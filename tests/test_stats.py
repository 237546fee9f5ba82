"""Statistics against hand-computed values, published worked examples, and scipy called directly."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats as st

from sudoku_lab.analysis.stats import (
    VERDICTS,
    Rate,
    bootstrap_mean_ci,
    clopper_pearson,
    compare_rates,
    expected_time_to_success,
    fisher_p,
    newcombe_difference,
    wilson,
)


def _exact_cdf(k, n, p: Fraction) -> Fraction:
    return sum(Fraction(math.comb(n, i)) * p**i * (1 - p) ** (n - i) for i in range(k + 1))


def test_clopper_pearson_by_hand():
    # k = 0 and k = n have closed forms: 1 - (alpha/2)^(1/n) and (alpha/2)^(1/n).
    lo, hi = clopper_pearson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(1 - 0.025 ** (1 / 10), abs=1e-9)  # 0.30850
    lo, hi = clopper_pearson(10, 10)
    assert hi == 1.0 and lo == pytest.approx(0.025 ** (1 / 10), abs=1e-9)  # 0.69150
    # The defining property at the bounds, checked with exact rational arithmetic.
    lo, hi = clopper_pearson(42, 100)
    assert float(1 - _exact_cdf(41, 100, Fraction(lo))) == pytest.approx(0.025, abs=1e-7)
    assert float(_exact_cdf(42, 100, Fraction(hi))) == pytest.approx(0.025, abs=1e-7)
    assert (round(lo, 4), round(hi, 4)) == (0.3220, 0.5229)  # the textbook interval for 42/100


@pytest.mark.parametrize("k,n", [(1, 7), (3, 100), (89, 1000), (580, 1000), (249, 300)])
def test_clopper_pearson_is_the_beta_quantile_form(k, n):
    # Clopper-Pearson bounds are Beta quantiles: B(a/2; k, n-k+1) and B(1-a/2; k+1, n-k).
    lo, hi = clopper_pearson(k, n)
    assert lo == pytest.approx(st.beta.ppf(0.025, k, n - k + 1), rel=1e-7)
    assert hi == pytest.approx(st.beta.ppf(0.975, k + 1, n - k), rel=1e-7)


def test_wilson_by_hand():
    z = st.norm.ppf(0.975)
    for k, n in ((5, 10), (0, 10), (56, 70), (1, 1000)):
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        assert wilson(k, n) == pytest.approx((centre - half, centre + half), abs=1e-12)
    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)


#: Newcombe RG, "Interval estimation for the difference between independent proportions: comparison of
#: eleven methods", Statistics in Medicine 1998;17:873-890, Table II, method 10 (hybrid score, no continuity
#: correction): (k1, n1, k2, n2) -> (lower, upper) of k1/n1 - k2/n2, to 4 decimals.
NEWCOMBE_TABLE_II = [
    ((56, 70, 48, 80), (0.0524, 0.3339)),
    ((9, 10, 3, 10), (0.1705, 0.8090)),
    ((6, 7, 2, 7), (0.0582, 0.8062)),
    ((5, 56, 0, 29), (-0.0381, 0.1926)),
    ((0, 10, 0, 20), (-0.1611, 0.2775)),
    ((0, 10, 0, 10), (-0.2775, 0.2775)),
    ((10, 10, 0, 20), (0.6791, 1.0000)),
    ((10, 10, 0, 10), (0.6075, 1.0000)),
]


@pytest.mark.parametrize("counts,interval", NEWCOMBE_TABLE_II, ids=[str(c) for c, _ in NEWCOMBE_TABLE_II])
def test_newcombe_matches_the_published_table(counts, interval):
    d, lo, hi = newcombe_difference(*counts)
    k1, n1, k2, n2 = counts
    assert d == pytest.approx(k1 / n1 - k2 / n2)
    assert (round(lo, 4), round(hi, 4)) == interval


def test_newcombe_worked_example_56_of_70_against_48_of_80():
    # The paper's first example: 0.8 - 0.6 = 0.2000, 95 % interval 0.0524 to 0.3339.
    d, lo, hi = newcombe_difference(56, 70, 48, 80)
    assert d == pytest.approx(0.2) and lo == pytest.approx(0.0524, abs=5e-5) and hi == pytest.approx(0.3339, abs=5e-5)
    # Swapping the groups mirrors the interval.
    d2, lo2, hi2 = newcombe_difference(48, 80, 56, 70)
    assert (d2, lo2, hi2) == pytest.approx((-d, -hi, -lo), abs=1e-12)


def _fisher_by_hand(a: int, b: int, c: int, d: int) -> Fraction:
    """Two-sided Fisher p of [[a, b], [c, d]]: the hypergeometric mass of tables no more likely than this one."""
    r1, c1, n = a + b, a + c, a + b + c + d

    def prob(x):
        return Fraction(math.comb(r1, x) * math.comb(n - r1, c1 - x), math.comb(n, c1))

    obs = prob(a)
    return sum(prob(x) for x in range(max(0, c1 - (n - r1)), min(r1, c1) + 1) if prob(x) <= obs)


def test_fisher_by_hand_and_against_scipy():
    # The lady tasting tea: 3 of 4 cups right each way, p = 34/70.
    assert fisher_p(3, 4, 1, 4) == pytest.approx(34 / 70, rel=1e-12)
    for k1, n1, k2, n2 in ((3, 100, 36, 100), (42, 100, 27, 100), (1, 1000, 0, 100), (9, 20, 2, 15)):
        exact = float(_fisher_by_hand(k1, n1 - k1, k2, n2 - k2))
        assert fisher_p(k1, n1, k2, n2) == pytest.approx(exact, rel=1e-9)
        assert fisher_p(k1, n1, k2, n2) == st.fisher_exact([[k1, n1 - k1], [k2, n2 - k2]]).pvalue


def test_compare_rates_verdicts():
    # The paper's 3/100 on the hard puzzle against our 36/100: far higher.
    c = compare_rates(Rate(3, 100), Rate(36, 100))
    assert c.verdict == "ours higher" and c.significant and c.p == pytest.approx(float(_fisher_by_hand(36, 64, 3, 97)))
    assert c.difference == pytest.approx(0.33) and c.difference_interval[0] > 0
    assert c.paper_interval == clopper_pearson(3, 100) and c.our_interval == clopper_pearson(36, 100)
    # 42/100 against 27/100: p = 0.037 by Fisher, so "ours lower".
    c = compare_rates(Rate(42, 100), Rate(27, 100))
    assert c.verdict == "ours lower" and c.p == pytest.approx(float(_fisher_by_hand(27, 73, 42, 58)), rel=1e-9)
    assert 0.03 < c.p < 0.05
    # 98/100 against 100/100: no significant difference.
    c = compare_rates(Rate(98, 100), Rate(100, 100))
    assert c.verdict == "consistent" and not c.significant and c.p == pytest.approx(0.4975, abs=1e-4)


def test_verdict_follows_fishers_p_and_the_sign():
    for kp, np_, k, n in (
        (89, 1000, 111, 300),
        (474, 1000, 64, 300),
        (563, 1000, 37, 50),
        (221, 1000, 10, 50),
        (0, 1000, 0, 100),
        (580, 1000, 64, 100),
    ):
        c = compare_rates(Rate(kp, np_), Rate(k, n))
        expected = "consistent" if c.p >= 0.05 else ("ours higher" if k / n > kp / np_ else "ours lower")
        assert c.verdict == expected and c.verdict in VERDICTS
        assert c.difference_interval[0] <= c.difference <= c.difference_interval[1]


def test_rate_contains():
    paper = Rate(42, 100)
    assert paper.contains(Rate(33, 100)) and paper.contains(Rate(52, 100))
    assert not paper.contains(Rate(22, 100)) and not paper.contains(Rate(60, 100))
    assert str(paper) == "42/100" and paper.value == 0.42
    with pytest.raises(ValueError):
        clopper_pearson(5, 4)
    with pytest.raises(ValueError):
        fisher_p(1, 0, 1, 2)


def test_expected_time_to_success_is_table_3s_ets():
    # RESEDA Table 3: 474 successes in 1000 attempts at 0.614 s each -> ETS 1.295 s.
    assert expected_time_to_success(0.614, 474, 1000) == pytest.approx(1.2954, abs=1e-4)
    assert expected_time_to_success(1.0, 0, 10) == math.inf


def test_bootstrap_mean():
    mean, lo, hi = bootstrap_mean_ci([1, 2, 3, 4], seed=1)
    # By hand: the bootstrap mean of 4 draws from {1, 2, 3, 4} is (sum of four uniform draws) / 4, and
    # P(sum <= 5) = 5/256 < 2.5 % < P(sum <= 6) = 15/256: the 2.5 % and 97.5 % quantiles are 6/4 and 14/4.
    assert (mean, lo, hi) == (2.5, 1.5, 3.5)
    assert bootstrap_mean_ci([1, 2, 3, 4], seed=1) == (mean, lo, hi)  # seeded
    x = np.array([0.3, 0.1, 2.5, 0.7, 0.2, 1.1, 0.05, 0.4])
    ref = st.bootstrap((x,), np.mean, n_resamples=2000, method="percentile", rng=np.random.default_rng(7))
    assert bootstrap_mean_ci(x, seed=7)[1:] == (ref.confidence_interval.low, ref.confidence_interval.high)
    assert bootstrap_mean_ci([7.0]) == (7.0, 7.0, 7.0)
    assert all(math.isnan(v) for v in bootstrap_mean_ci([]))
