"""analysis.ladder_ratios: paired time-to-target ratios over a target ladder, with censoring."""
import math

import pandas as pd
import pytest

from simlib.papers.analysis import ladder_ratios


def frame():
    # two groups (trace a, b), two trials; times to 80 % and 90 % (NaN: never reached)
    rows = []
    times = {  # (trace, trial, scheme): (t80, t90)
        ("a", 0, "slow"): (4.0, math.nan), ("a", 0, "fast"): (2.0, 5.0),
        ("a", 1, "slow"): (6.0, 8.0), ("a", 1, "fast"): (2.0, 4.0),
        ("b", 0, "slow"): (3.0, math.nan), ("b", 0, "fast"): (3.0, math.nan),
        ("b", 1, "slow"): (9.0, math.nan), ("b", 1, "fast"): (3.0, 10.0),
    }
    for (trace, trial, scheme), (t80, t90) in times.items():
        rows.append(dict(trace=trace, trial=trial, scheme=scheme, time_to_acc80_s=t80, time_to_acc90_s=t90))
    return pd.DataFrame(rows)


def test_ratios_by_hand():
    lad = ladder_ratios(frame(), by=["trace"], num="slow", den="fast", censor_at_s=10.0, targets=(0.8, 0.9))
    r80, r90 = lad.iloc[0], lad.iloc[1]
    # 80 %: a: 4/2 = 2, 6/2 = 3 -> median 2.5; b: 3/3 = 1, 9/3 = 3 -> median 2
    assert (r80.target, r80["min"], r80["median"], r80["max"]) == (0.8, 2.0, 2.25, 2.5)
    assert r80.range_text == "2.00–2.50×" and r80.censored == 0
    # 90 %, censored at 10 s: a: {> 10/5 = 2, 8/4 = 2} -> median in [2, inf); b: {n/a, > 10/10 = 1} -> [0.5, inf)
    # the old reading (censored runs at 10 s) gave min 1, max 2: numbers that nobody measured
    assert math.isnan(r90["min"]) and math.isnan(r90["max"]) and math.isnan(r90["median"])
    assert (r90.min_lo, r90.min_hi, r90.max_lo, r90.max_hi) == (0.5, math.inf, 2.0, math.inf)
    assert r90.range_text == "lowest ≥ 0.50×, highest ≥ 2.00×" and (r90.pairs, r90.censored) == (4, 3)
    assert r90.reached_num == pytest.approx(1 / 4) and r90.reached_den == pytest.approx(3 / 4)
    assert r80.reached_num == 1.0


def test_missing_ladder_column_is_named():
    with pytest.raises(ValueError, match="time_to_acc85_s"):
        ladder_ratios(frame(), by=["trace"], num="slow", den="fast", censor_at_s=10.0, targets=(0.85,))
    with pytest.raises(ValueError, match="censor_at_s"):
        ladder_ratios(frame(), by=["trace"], num="slow", den="fast", censor_at_s=0.0)


def test_require_frame_names_what_is_wrong():
    from simlib.papers.analysis import require_frame

    df = pd.DataFrame({"a": [1], "b": [2]})
    assert require_frame(df, "df", ["a"]) is df
    with pytest.raises(ValueError, match=r"runs lacks the column\(s\) \['c'\]"):
        require_frame(df, "runs", ["a", "c"])
    with pytest.raises(ValueError, match="runs has no rows"):
        require_frame(df.iloc[:0], "runs", ["a"])
    with pytest.raises(ValueError, match="runs must be a DataFrame"):
        require_frame([1], "runs", [])


def test_default_targets_are_the_ladder_columns_of_the_frame():
    """Without targets the ladder is read from the time_to_accNN_s columns (any problem's ladder)."""
    df = frame().rename(columns={"time_to_acc80_s": "time_to_acc35_s", "time_to_acc90_s": "time_to_acc40_s"})
    lad = ladder_ratios(df, by=["trace"], num="slow", den="fast", censor_at_s=10.0)
    assert lad.target.tolist() == [0.35, 0.40]
    assert (lad.iloc[0]["min"], lad.iloc[0]["max"]) == (2.0, 2.5)     # the 80 % case above
    with pytest.raises(ValueError, match="time_to_accNN_s"):
        ladder_ratios(df.drop(columns=["time_to_acc35_s", "time_to_acc40_s"]), by=["trace"], num="slow",
                      den="fast", censor_at_s=10.0)
