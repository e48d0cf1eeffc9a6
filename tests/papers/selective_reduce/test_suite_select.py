"""``suite.select_rows`` / ``split_by_group``: which rows of a sweep frame a group's settings pick."""
import numpy as np
import pandas as pd
import pytest

from simlib.papers.selective_reduce.experiments import suite


def _frame():
    # setting columns scheme, n, dt_s (unset where NaN), then trial and a metric
    return pd.DataFrame({
        "scheme": ["partial", "partial", "selective", "selective", "selective"],
        "n": [40, 40, 40, 80, 40],
        "dt_s": [np.nan, np.nan, 0.05, 0.05, np.nan],
        "trial": [0, 1, 0, 0, 0],
        "m": [1.0, 2.0, 3.0, 4.0, 5.0],
    })


def test_a_setting_picks_rows_whose_other_setting_columns_are_unset():
    df = _frame()
    # {scheme: selective, n: 40} leaves dt_s unset: only the last row, not the one with dt_s = 0.05
    assert suite.select_rows(df, [dict(scheme="selective", n=40)])["m"].tolist() == [5.0]
    assert suite.select_rows(df, [dict(scheme="selective", n=40, dt_s=0.05)])["m"].tolist() == [3.0]
    assert suite.select_rows(df, [dict(scheme="partial", n=40), dict(scheme="selective", n=80, dt_s=0.05)]
                             )["m"].tolist() == [1.0, 2.0, 4.0]
    assert suite.select_rows(df, []).empty
    assert suite.select_rows(df, [dict(scheme="allreduce", n=40)]).empty


def test_split_by_group_is_select_rows_per_group():
    df = _frame()
    groups = {"a": [dict(scheme="partial", n=40)], "b": [dict(scheme="selective", n=40, dt_s=0.05),
                                                          dict(scheme="selective", n=80, dt_s=0.05)], "c": []}
    out = suite.split_by_group(df, groups)
    assert out["a"]["m"].tolist() == [1.0, 2.0]
    assert out["b"]["m"].tolist() == [3.0, 4.0]
    assert out["c"].empty
    for g, settings in groups.items():
        pd.testing.assert_frame_equal(out[g], suite.select_rows(df, settings))


def test_a_key_that_is_not_a_setting_column_is_refused():
    with pytest.raises(ValueError, match="not setting columns"):
        suite.select_rows(_frame(), [dict(scheme="partial", lr=0.1)])
    with pytest.raises(ValueError, match="not setting columns"):
        suite.split_by_group(_frame(), {"a": [dict(scheme="partial", m=1.0)]})
