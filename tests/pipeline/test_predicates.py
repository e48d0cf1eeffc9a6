"""Claim predicates (simlib.papers.predicates) and the paired ratio (analysis.paired_ratio)."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from simlib.papers.analysis import paired_ratio
from simlib.papers.predicates import interior_extremum, monotone, range_claim, trend, wins_at_every_x


def ratios(rows):
    return pd.DataFrame(rows, columns=["trace", "n", "median"])


def test_range_claim_e12_rule():
    # per-trace maxima 2.2 (cnn) and 3.0 (transformer): our range 2.20–3.00×
    r = ratios([("cnn", 40, 2.2), ("cnn", 80, 1.5), ("transformer", 40, 1.2), ("transformer", 80, 3.0)])
    check = range_claim(r, "trace", 1.89, 2.55)
    assert (check.lo, check.hi) == (2.2, 3.0)
    assert check.text() == "2.20–3.00×"
    assert check.better_everywhere and check.overlaps and check.holds
    # disjoint from the paper's range: does not hold although better everywhere
    assert not range_claim(r, "trace", 3.5, 4.0).holds
    # a ratio <= 1 somewhere: not better everywhere, does not hold even though it overlaps
    worse = ratios([("cnn", 40, 2.2), ("cnn", 80, 0.9), ("transformer", 40, 2.0)])
    check = range_claim(worse, "trace", 1.89, 2.55)
    assert check.overlaps and not check.better_everywhere and not check.holds


def test_a_ratio_of_exactly_1_is_not_a_win():
    """A tie is not "better": one row at exactly 1.0 fails "better everywhere" (the rule is > 1, not >= 1)."""
    tie = ratios([("cnn", 40, 2.2), ("cnn", 80, 1.0), ("transformer", 40, 2.0)])
    check = range_claim(tie, "trace", 1.89, 2.55)
    assert check.overlaps and not check.better_everywhere and not check.holds
    assert range_claim(tie.assign(median=tie["median"].replace(1.0, 1.0 + 1e-12)), "trace", 1.89, 2.55).holds
    # equal medians at an x: no win for either scheme
    df = pd.DataFrame([{"scheme": s, "n": 40, "trial": t, "time": 1.0} for s in ("a", "b") for t in range(3)])
    assert wins_at_every_x(df, "n", "time", "a", "b", higher_is_better=True) == (0, 1)
    assert wins_at_every_x(df, "n", "time", "a", "b", higher_is_better=False) == (0, 1)


def test_range_claim_validation():
    with pytest.raises(ValueError, match="paper_hi"):
        range_claim(ratios([("a", 1, 2.0)]), "trace", 2.0, 1.0)
    with pytest.raises(ValueError, match="group"):
        range_claim(ratios([("a", 1, 2.0)]), "nope", 1.0, 2.0)
    with pytest.raises(ValueError, match="ratios"):
        range_claim(pd.DataFrame(), "trace", 1.0, 2.0)


@pytest.mark.parametrize("values, direction, strict, expected", [
    ([1, 2, 2, 3], "increasing", False, True),
    ([1, 2, 2, 3], "increasing", True, False),
    ([3, 2, 1], "decreasing", False, True),
    ([1, 3, 2], "increasing", False, False),
    ([5], "increasing", True, True),
])
def test_monotone(values, direction, strict, expected):
    assert monotone(values, direction, strict) is expected


@pytest.mark.parametrize("values, kind, expected", [
    ([1, 3, 2], "max", True),      # rises to an interior peak, then falls
    ([1, 2, 3], "max", False),     # peak at the end
    ([3, 1, 2], "min", True),      # dips, then grows
    ([1, 2, 3], "min", False),
    ([2, 2, 1], "max", False),     # first maximum is the first point
])
def test_interior_extremum(values, kind, expected):
    assert interior_extremum(values, kind) is expected


def test_predicates_reject_bad_arguments():
    with pytest.raises(ValueError, match="direction"):
        monotone([1, 2], "up")
    with pytest.raises(ValueError, match="kind"):
        interior_extremum([1, 2], "peak")
    with pytest.raises(ValueError, match="values"):
        monotone([])


def trials_frame():
    # two schemes, two x values, three trials each; selective better at n=40 only
    rows = []
    for n, sel, par in ((40, [1.0, 1.2, 1.1], [2.0, 2.1, 1.9]), (80, [3.0, 3.1, 2.9], [2.0, 2.5, 2.2])):
        for t in range(3):
            rows += [{"scheme": "selective", "n": n, "trial": t, "time": sel[t]},
                     {"scheme": "partial", "n": n, "trial": t, "time": par[t]}]
    return pd.DataFrame(rows)


def test_wins_at_every_x_compares_medians():
    df = trials_frame()
    assert wins_at_every_x(df, "n", "time", "selective", "partial", higher_is_better=False) == (1, 2)
    assert wins_at_every_x(df, "n", "time", "partial", "selective", higher_is_better=False) == (1, 2)
    assert wins_at_every_x(df, "n", "time", "selective", "partial", higher_is_better=True) == (1, 2)
    with pytest.raises(ValueError, match="winner"):
        wins_at_every_x(df, "n", "time", "allreduce", "partial", higher_is_better=False)


def test_trend_is_spearman_and_skips_censored():
    assert trend([1, 2, 3, 4], [10, 20, 25, 40]) == pytest.approx(1.0)
    assert trend([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert trend([1, 2, 3, 4, 5], [1, 3, float("nan"), 2, 5]) == pytest.approx(0.8)
    assert math.isnan(trend([1, 2, 3], [1, float("nan"), 2]))  # fewer than 3 points left
    assert math.isnan(trend([1, 2, 3], [2, 2, 2]))


# --- paired_ratio ------------------------------------------------------------------

def test_paired_ratio_per_trial_then_summarized():
    df = trials_frame()
    r = paired_ratio(df, "time", by=["n"], num="partial", den="selective")
    # hand-computed per-trial ratios: n=40: 2/1, 2.1/1.2, 1.9/1.1; n=80: 2/3, 2.5/3.1, 2.2/2.9
    r40 = sorted([2.0 / 1.0, 2.1 / 1.2, 1.9 / 1.1])
    r80 = sorted([2.0 / 3.0, 2.5 / 3.1, 2.2 / 2.9])
    assert r["n"].tolist() == [40, 80]
    assert r["min"].tolist() == pytest.approx([r40[0], r80[0]])
    assert r["median"].tolist() == pytest.approx([r40[1], r80[1]])
    assert r["max"].tolist() == pytest.approx([r40[2], r80[2]])
    assert r["trials"].tolist() == [3, 3]


def test_paired_ratio_refuses_duplicates():
    """A second setting within a group used to be dropped silently by pivot_table(aggfunc='first')."""
    df = trials_frame()
    other = df.assign(lam=0.2, time=df["time"] * 10)
    both = pd.concat([df.assign(lam=0.05), other], ignore_index=True)
    with pytest.raises(ValueError, match=r"columns varying within it: \['lam'\]"):
        paired_ratio(both, "time", by=["n"], num="partial", den="selective")
    # naming the varying column in `by` resolves it
    r = paired_ratio(both, "time", by=["lam", "n"], num="partial", den="selective")
    assert len(r) == 4 and r["trials"].tolist() == [3, 3, 3, 3]


def test_paired_ratio_validation():
    df = trials_frame()
    with pytest.raises(ValueError, match="metric"):
        paired_ratio(df, "nope", by=["n"], num="partial", den="selective")
    with pytest.raises(ValueError, match="scheme"):
        paired_ratio(df, "time", by=["n"], num="allreduce", den="selective")
    with pytest.raises(ValueError, match="by"):
        paired_ratio(df, "time", by=["nope"], num="partial", den="selective")
