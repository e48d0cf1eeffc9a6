"""simlib.papers.censoring: bounds of paired time-to-target ratios against brute force."""
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from simlib.papers.censoring import (Bounded, bounded_stat, fmt_bound, paired_bounds, ratio_bounds, summary,
                                     verdict_above)

# one run: (time to target or None = censored, cap)
_caps = st.sampled_from([10.0, 20.0, 50.0, 100.0])
_run = _caps.flatmap(lambda c: st.tuples(st.one_of(st.none(), st.sampled_from([1.0, 2.0, 5.0, 7.0, 10.0])
                                                   .map(lambda t: min(t, c))), st.just(c)))
_pairs = st.lists(st.tuples(_run, _run), min_size=1, max_size=5)


def _arrays(pairs):
    t = lambda r: np.nan if r[0] is None else r[0]   # noqa: E731
    return (np.array([t(a) for a, _ in pairs]), np.array([a[1] for a, _ in pairs]),
            np.array([t(b) for _, b in pairs]), np.array([b[1] for _, b in pairs]))


def _candidates(run):
    """The true times a run may have, as the limits that matter: its time, or (censored) just
    above its cap and arbitrarily late."""
    t, c = run
    return [t] if t is not None else [c, math.inf]


def _brute(pairs, stat):
    """min and max of ``stat`` over every assignment of true times to the censored runs."""
    f = {"median": np.median, "min": np.min, "max": np.max}[stat]
    per_pair = []
    for a, b in pairs:
        vals = [x / y for x in _candidates(a) for y in _candidates(b) if not (math.isinf(x) and math.isinf(y))]
        per_pair.append(vals)
    meds = [f(np.array(combo)) for combo in itertools.product(*per_pair)]
    return min(meds), max(meds)


@settings(max_examples=300, deadline=None)
@given(_pairs, st.sampled_from(["median", "min", "max"]))
def test_bounds_of_a_statistic_equal_brute_force_extremes(pairs, stat):
    lo, hi = ratio_bounds(*_arrays(pairs))
    b_lo, b_hi = bounded_stat(lo, hi, stat)
    want_lo, want_hi = _brute(pairs, stat)
    assert b_lo == pytest.approx(want_lo) and (b_hi == want_hi or b_hi == pytest.approx(want_hi))


@settings(max_examples=200, deadline=None)
@given(_pairs, st.lists(st.floats(1.0 + 1e-6, 50.0), min_size=10, max_size=10))
def test_every_consistent_set_of_true_times_has_its_median_inside(pairs, extra):
    """Soundness with finite true times: a censored run really took cap × (1 + something)."""
    tn, cn, td, cd = _arrays(pairs)
    lo, hi = ratio_bounds(tn, cn, td, cd)
    k = len(pairs)
    true_n = np.where(np.isnan(tn), cn * np.array(extra[:k]), tn)
    true_d = np.where(np.isnan(td), cd * np.array(extra[5:5 + k]), td)
    r = true_n / true_d
    assert np.all((lo <= r + 1e-12) & (r <= hi + 1e-12))
    m_lo, m_hi = bounded_stat(lo, hi, "median")
    assert m_lo - 1e-12 <= np.median(r) <= m_hi + 1e-12


def test_the_four_cases_by_hand():
    lo, hi = ratio_bounds([np.nan, 30.0, np.nan, 20.0], [90.0, 100.0, 100.0, 100.0],
                          [50.0, np.nan, np.nan, 40.0], [100.0, 60.0, 100.0, 100.0])
    assert lo.tolist() == [1.8, 0.0, 0.0, 0.5]
    assert hi.tolist() == [math.inf, 0.5, math.inf, 0.5]
    assert fmt_bound(1.8, math.inf, strict=True) == "> 1.80×"
    assert fmt_bound(0.0, 0.5, strict=True) == "< 0.50×"
    assert fmt_bound(0.0, math.inf) == "n/a"
    assert fmt_bound(0.5, 0.5) == "0.50×"
    assert fmt_bound(1.2, 1.5) == "1.20–1.50× (bounds)"
    assert fmt_bound(0.981, 0.984) == "0.981–0.984× (bounds)"     # never "0.98–0.98×"


def test_median_determined_only_when_censored_pairs_cannot_move_it():
    # 5 pairs: 3 exact ratios 2, 3, 4 and two where only the numerator is censored (ratio > 5):
    # the median is the 3rd smallest, 4 whatever the censored ratios are.
    lo, hi = ratio_bounds([2, 3, 4, np.nan, np.nan], 100, [1, 1, 1, 20, 20], 100)
    assert bounded_stat(lo, hi) == (4.0, 4.0)
    # a censored denominator (ratio < 0.1) and a censored numerator (> 5) on either side: still 3
    lo, hi = ratio_bounds([2, 3, 4, 10, np.nan], 100, [1, 1, 1, np.nan, 20], 100)
    assert bounded_stat(lo, hi) == (3.0, 3.0)
    # {2, 4, > 3 (censored at 60 s against 20 s)}: the median is anywhere in [3, 4]
    lo, hi = ratio_bounds([2, 4, np.nan], 60, [1, 1, 20], 60)
    assert bounded_stat(lo, hi) == (3.0, 4.0)


def test_never_the_ratio_of_caps_when_both_are_censored():
    """The bug this module fixes: both censored at 100 s used to be reported as 1.00×."""
    lo, hi = ratio_bounds([np.nan] * 3, 100, [np.nan] * 3, 100)
    b = Bounded(*bounded_stat(lo, hi), pairs=3, censored_both=3)
    assert b.text() == "n/a" and math.isnan(b.value) and b.above() is None
    assert b.censoring_text() == "3 of 3 pairs censored (both 3)"


def test_verdict():
    assert verdict_above(1.2, math.inf) is True
    assert verdict_above(0.0, 1.0) is False
    assert verdict_above(0.9, 1.3) is None


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="cap_num must be >= 0"):
        ratio_bounds([np.nan], [-1.0], [1.0], [10.0])
    with pytest.raises(ValueError, match="cap_den must be >= 0"):
        ratio_bounds([1.0], [10.0], [np.nan], [np.nan])
    # cap 0: nothing known about the censored run, even against a finished one
    assert [a.tolist() for a in ratio_bounds([np.nan], [0.0], [5.0], [10.0])] == [[0.0], [math.inf]]
    with pytest.raises(ValueError, match="t_den must be at most cap_den"):
        ratio_bounds([1.0], [10.0], [11.0], [10.0])
    with pytest.raises(ValueError, match="stat must be one of"):
        bounded_stat([1.0], [1.0], "mean")


def _frame():
    rows = []
    # setting a: A censored in trial 0 (cap 100, B at 40: ratio > 2.5), exact 2 and 3 otherwise
    for trial, (ta, tb) in enumerate([(np.nan, 40.0), (20.0, 10.0), (30.0, 10.0)]):
        rows += [dict(setting="a", trial=trial, scheme="A", t=ta, cap=100.0),
                 dict(setting="a", trial=trial, scheme="B", t=tb, cap=100.0)]
    # setting b: both censored in every trial
    for trial in range(2):
        rows += [dict(setting="b", trial=trial, scheme=s, t=np.nan, cap=50.0) for s in "AB"]
    return pd.DataFrame(rows)


def test_paired_bounds_per_group_and_summary():
    t = paired_bounds(_frame(), "t", "cap", by=["setting"], num="A", den="B").set_index("setting")
    a, b = t.loc["a"], t.loc["b"]
    assert (a.median_lo, a.median_hi) == (2.5, 3.0)      # {2, 3, >2.5}: median in [2.5, 3]
    assert (a.min_lo, a.min_hi, a.max_lo, a.max_hi) == (2.0, 2.0, 3.0, math.inf)
    assert (a.pairs, a.censored_num, a.censored_den, a.censored_both, a.wins, a.losses) == (3, 1, 0, 0, 3, 0)
    assert a.reached_num == pytest.approx(2 / 3) and a.reached_den == 1.0
    assert a.median_text == "2.50–3.00× (bounds)"
    assert b.median_text == "n/a" and b.censored_both == 2 and b.wins == 0 and b.losses == 0
    s = summary(t.reset_index(), over="min")
    assert (s.lo, s.hi) == (0.0, 3.0) and s.pairs == 5 and s.censored == 3
    # a fixed cap instead of a column: the same bounds
    t2 = paired_bounds(_frame(), "t", 100.0, by="setting", num="A", den="B")
    assert t2.loc[0, "median_lo"] == 2.5


def test_wins_and_losses_count_the_pairs_certainly_above_and_certainly_at_most_one():
    # ratios: 0.5, exactly 1 (a tie is a loss: not > 1), < 0.1 (B censored at 100), > 2 (A censored), 1.5
    pairs = [(10.0, 20.0), (20.0, 20.0), (10.0, np.nan), (np.nan, 50.0), (30.0, 20.0)]
    rows = [dict(setting="s", trial=k, scheme=s, t=t, cap=100.0)
            for k, ts in enumerate(pairs) for s, t in zip("AB", ts)]
    r = paired_bounds(pd.DataFrame(rows), "t", "cap", by=["setting"], num="A", den="B").iloc[0]
    assert (r.wins, r.losses, r.pairs) == (2, 3, 5)
    # B censored at a cap below A's time leaves A/B < 1.2 open: neither a win nor a loss
    rows[4:6] = [dict(setting="s", trial=2, scheme="A", t=12.0, cap=100.0),
                 dict(setting="s", trial=2, scheme="B", t=np.nan, cap=10.0)]
    r = paired_bounds(pd.DataFrame(rows), "t", "cap", by=["setting"], num="A", den="B").iloc[0]
    assert (r.wins, r.losses) == (2, 2)


def test_paired_bounds_rejects_an_ambiguous_frame():
    df = pd.concat([_frame(), _frame().iloc[:1]])
    with pytest.raises(ValueError, match="share their"):
        paired_bounds(df, "t", "cap", by=["setting"], num="A", den="B")
    with pytest.raises(ValueError, match="lacks 'C'"):
        paired_bounds(_frame(), "t", "cap", by=["setting"], num="C", den="B")


def test_a_span_of_known_ratios_is_one_value_when_its_ends_print_the_same():
    """fmt_span / span_of: a min–max of known ratios; ends that round alike print once, so no row shows
    a "1.09–1.09×" that reads like a censored ratio's bounds."""
    from simlib.papers.censoring import fmt_span, span_of

    assert fmt_span(1.2, 1.5) == "1.20–1.50×"
    assert fmt_span(1.091, 1.094) == "1.09×"
    assert fmt_span(1.091, 1.094, digits=3) == "1.091–1.094×"
    assert span_of([1.5, 0.8, 1.2]) == "0.80–1.50×" and span_of([2.0]) == "2.00×"
