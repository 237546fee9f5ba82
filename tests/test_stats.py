"""Statistics against hand-computed values."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from sudoku_lab.stats import Rate, binom_cdf, bootstrap_mean_ci, clopper_pearson, expected_time_to_success


def _exact_cdf(k, n, p: Fraction) -> Fraction:
    return sum(Fraction(math.comb(n, i)) * p**i * (1 - p) ** (n - i) for i in range(k + 1))


def test_binomial_cdf_by_hand():
    assert binom_cdf(2, 4, 0.5) == pytest.approx(11 / 16)  # (1 + 4 + 6) / 16
    assert binom_cdf(0, 3, 0.2) == pytest.approx(0.8**3)
    assert binom_cdf(-1, 5, 0.3) == 0.0 and binom_cdf(5, 5, 0.3) == 1.0
    for k, n, p in ((3, 10, Fraction(1, 3)), (42, 100, Fraction(2, 5)), (900, 1000, Fraction(9, 10))):
        assert binom_cdf(k, n, float(p)) == pytest.approx(float(_exact_cdf(k, n, p)), rel=1e-9)


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


def test_rate_contains():
    paper = Rate(42, 100)
    assert paper.contains(Rate(33, 100)) and paper.contains(Rate(52, 100))
    assert not paper.contains(Rate(22, 100)) and not paper.contains(Rate(60, 100))
    assert str(paper) == "42/100" and paper.value == 0.42
    with pytest.raises(ValueError):
        clopper_pearson(5, 4)


def test_expected_time_to_success_is_table_3s_ets():
    # RESEDA Table 3: 474 successes in 1000 attempts at 0.614 s each -> ETS 1.295 s.
    assert expected_time_to_success(0.614, 474, 1000) == pytest.approx(1.2954, abs=1e-4)
    assert expected_time_to_success(1.0, 0, 10) == math.inf


def test_bootstrap_mean():
    mean, lo, hi = bootstrap_mean_ci([1, 2, 3, 4], seed=1)
    assert mean == 2.5 and 1 <= lo <= 2.5 <= hi <= 4
    assert bootstrap_mean_ci([1, 2, 3, 4], seed=1) == (mean, lo, hi)  # seeded
    assert bootstrap_mean_ci([7.0]) == (7.0, 7.0, 7.0)
    assert all(math.isnan(v) for v in bootstrap_mean_ci([]))
