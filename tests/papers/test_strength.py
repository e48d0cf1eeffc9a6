"""Verdict strength (decision S24): the median's interval, its coverage, and the undecided rule."""
import math

import numpy as np
import pytest
from scipy.stats import binom

from simlib.papers import strength as st


def test_min_pairs_is_where_the_widest_interval_reaches_95_percent():
    # [x(1), x(n)] covers the median with 1 - 2 / 2^n: 0.9375 at n = 5, 0.96875 at n = 6
    assert st.MIN_PAIRS == 6
    assert st.median_interval([1, 2, 3, 4, 5]) == (0.0, math.inf)
    assert st.median_interval([1, 2, 3, 4, 5, 6]) == (1.0, 6.0)


def test_interval_uses_the_hand_derived_order_statistics():
    # n = 10: P(B <= 1) = 11/1024, 2 * that = 0.0215 <= 0.05 but P(B <= 2) * 2 = 0.109 > 0.05: [x(2), x(9)]
    x = np.arange(1.0, 11.0)
    assert st.median_interval(x[::-1]) == (2.0, 9.0)
    assert st.exact_coverage(10) == pytest.approx(1 - 2 * 11 / 1024)
    # n = 20: [x(6), x(15)]
    assert st.median_interval(np.arange(1.0, 21.0)) == (6.0, 15.0)


@pytest.mark.parametrize("n", [6, 7, 10, 13, 20, 41])
def test_interval_equals_scipys_quantile_test(n):
    """Cross-check with an independent implementation: scipy's sign-test interval for the median."""
    from scipy.stats import quantile_test

    x = np.random.default_rng(n).lognormal(size=n)
    ci = quantile_test(x, q=1.0, p=0.5).confidence_interval(st.LEVEL)
    assert st.median_interval(x) == (ci.low, ci.high)


@pytest.mark.parametrize("n", [6, 10, 17, 30])
def test_coverage_on_synthetic_ratios_is_the_stated_rate(n):
    """The interval covers the true median of lognormal ratios at its exact rate, within 4 Monte-Carlo
    standard errors (an off-by-one order statistic misses it by 3-10 percentage points)."""
    rng = np.random.default_rng(20261129 + n)
    reps, true_median = 3000, 1.3
    draws = true_median * np.exp(rng.normal(0.0, 0.4, size=(reps, n)))
    covered = 0
    for x in draws:
        a, b = st.median_interval(x)
        covered += a <= true_median <= b
    rate = st.exact_coverage(n)
    assert rate >= st.LEVEL
    se = math.sqrt(rate * (1 - rate) / reps)
    assert abs(covered / reps - rate) <= 4 * se


def test_censored_pairs_keep_the_interval_conservative():
    """Pairs known only as bounds ([lo, inf) for a censored run) cover at least the stated rate."""
    rng = np.random.default_rng(7)
    reps, n, true_median = 2000, 12, 1.0
    covered = 0
    for _ in range(reps):
        x = np.exp(rng.normal(0.0, 0.5, size=n))
        censored = rng.random(n) < 0.25
        lo = np.where(censored, np.minimum(x, 0.9), x)
        hi = np.where(censored, np.inf, x)
        a, b = st.median_interval(lo, hi)
        covered += a <= true_median <= b
    assert covered / reps >= st.exact_coverage(n) - 4 * math.sqrt(0.02 * 0.98 / reps)


def test_strength_counts_sides_and_bounds():
    s = st.strength([0.5, 1.2, 1.3, 1.4, 1.5, 1.6, 0.9], [0.5, 1.2, 1.3, 1.4, 1.5, 1.6, math.inf])
    assert (s.trials, s.above, s.below) == (7, 5, 1)       # the [0.9, inf) pair is on neither side
    assert s.lo == 0.5 and s.hi == math.inf
    assert "7 pairs: 5 above 1, 1 below" == s.sides_text()


def test_undecided_when_the_interval_straddles_the_threshold():
    make = lambda lo, hi: st.Strength(10, 0, 0, lo, hi)
    assert st.side(make(1.02, 1.3), "above") is True
    assert st.side(make(0.98, 1.3), "above") is None
    assert st.side(make(0.7, 1.0), "above") is False
    assert st.side(make(0.7, 0.98), "below") is True
    assert st.side(make(0.7, 1.02), "below") is None
    assert st.side(make(1.0, 1.2), "below") is False
    # magnitude against the paper's range
    assert st.in_range(make(1.5, 1.7), 1.48, 2.01) is True
    assert st.in_range(make(1.4, 1.7), 1.48, 2.01) is None
    assert st.in_range(make(2.1, 2.5), 1.48, 2.01) is False
    with pytest.raises(ValueError, match="claim must be"):
        st.side(make(1, 2), "up")


def test_more_pairs_decide_what_few_leave_open():
    """The rule's point: the same effect (ratios around 1.05) straddles 1 at 6 pairs, decides at 40."""
    rng = np.random.default_rng(3)
    x = 1.05 * np.exp(rng.normal(0.0, 0.03, size=40))
    assert st.side(st.strength(x[:6]), "above") is None
    assert st.side(st.strength(x), "above") is True


def test_combine_max_bounds_the_largest_median():
    a, b = st.Strength(10, 9, 1, 1.1, 1.3), st.Strength(12, 12, 0, 1.5, 1.9)
    m = st.combine_max([a, b])
    assert (m.lo, m.hi, m.trials) == (1.5, 1.9, 12)
    m = st.combine_max([st.Strength(10, 9, 1, 1.6, 1.7), b])
    assert (m.lo, m.hi) == (1.6, 1.9)


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="level must be"):
        st.median_interval([1.0] * 8, level=1.5)
    with pytest.raises(ValueError, match="lo <= hi"):
        st.median_interval([2.0] * 8, [1.0] * 8)
    with pytest.raises(ValueError, match="NaN"):
        st.median_interval([np.nan] * 8)


def test_interval_text_never_reads_like_a_censored_ratio():
    """No "0.51–0.51×" (equal ends print once), no "0.00–∞×" (no interval below 6 pairs is n/a), an open
    upper end from censored pairs is a bound, and censored pairs are counted."""
    from simlib.papers.strength import strength

    assert strength([0.51] * 10).interval_text() == "0.51×"
    assert strength([0.9, 1.1, 1.2]).interval_text() == "n/a (3 pairs < 6)"
    few = strength([1.2] * 10, [1.2] * 4 + [math.inf] * 6)          # 6 of 10 pairs censored above
    assert few.censored == 6 and few.interval_text() == "≥ 1.20×, 6 of 10 pairs censored"
    exact = strength([1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9])
    assert exact.censored == 0 and exact.interval_text() == "1.10–1.80×"
