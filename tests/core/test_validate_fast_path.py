"""check_real / check_int: the inline path for plain ``float`` / ``int`` values (taken on every simulated
event) accepts and rejects exactly what the general path does (the same value as a numpy scalar, which
takes the general path), and both follow the documented interval rule."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.core.validate import check_int, check_real

bounds = st.one_of(st.none(), st.floats(-10, 10, allow_nan=False))


def _outcome(fn, *args, **kw):
    try:
        return ("ok", fn(*args, **kw))
    except ValueError as e:
        return ("err", str(e).split(", got")[0])


@settings(max_examples=300, deadline=None)
@given(v=st.floats(allow_nan=True, allow_infinity=True), lo=bounds, hi=bounds,
       lo_open=st.booleans(), hi_open=st.booleans(), allow_inf=st.booleans())
def test_check_real_float_path_matches_general_path_and_rule(v, lo, hi, lo_open, hi_open, allow_inf):
    kw = dict(lo_open=lo_open, hi_open=hi_open, allow_inf=allow_inf)
    fast = _outcome(check_real, "x", v, lo, hi, **kw)
    general = _outcome(check_real, "x", np.float64(v), lo, hi, **kw)
    assert fast[0] == general[0] and (fast[0] == "err" or fast[1] == general[1])
    inside = ((lo is None or v > lo or (v == lo and not lo_open)) and
              (hi is None or v < hi or (v == hi and not hi_open)))
    ok = not math.isnan(v) and (allow_inf or not math.isinf(v)) and inside
    assert (fast[0] == "ok") == ok
    if ok:
        assert type(fast[1]) is float and fast[1] == v


def test_check_real_float_path_rejects_nan_and_inf_with_the_parameter_name():
    with pytest.raises(ValueError, match="delay must be a finite real"):
        check_real("delay", math.nan, 0.0)
    with pytest.raises(ValueError, match="delay must be a finite real"):
        check_real("delay", math.inf, 0.0)
    assert check_real("delay", math.inf, 0.0, allow_inf=True) == math.inf


@settings(max_examples=300, deadline=None)
@given(v=st.integers(-50, 50), lo=st.one_of(st.none(), st.integers(-20, 20)),
       hi=st.one_of(st.none(), st.integers(-20, 20)))
def test_check_int_int_path_matches_general_path_and_rule(v, lo, hi):
    fast = _outcome(check_int, "k", v, lo, hi)
    general = _outcome(check_int, "k", np.int64(v), lo, hi)
    assert fast == general
    assert (fast[0] == "ok") == ((lo is None or v >= lo) and (hi is None or v <= hi))
    if fast[0] == "ok":
        assert type(fast[1]) is int and fast[1] == v


def test_check_int_still_rejects_bools():
    with pytest.raises(ValueError, match="k must be an integer"):
        check_int("k", True, 0, 5)
