"""The ring-check trial: flows vs Eq. (2) (simlib.papers.selective_reduce.experiments.ring_check)."""
import numpy as np
import pytest

from simlib.papers.selective_reduce.experiments.ring_check import trial


@pytest.mark.parametrize("m, groups", [(2, 1), (5, 1), (4, 3)])
def test_flows_equal_the_exact_eq2_and_columns_mean_what_they_say(m, groups):
    params = dict(n=12, m=m, groups=groups, alpha_ms=1.0, model_mb=100.0)
    out = trial(params, np.random.SeedSequence(1))
    assert out["rel_err_exact"] < 1e-9
    assert out["sim_time_s"] == pytest.approx(out["eq2_exact_s"], rel=1e-9)
    if groups == 1:
        # exact = 2(m-1)α + 2(m-1)/m v/b  ->  v/b;  approx must be 2mα + 2v/b for the same b
        alpha = 1e-3
        v_over_b = (out["eq2_exact_s"] - 2 * (m - 1) * alpha) * m / (2 * (m - 1))
        assert out["eq2_approx_s"] == pytest.approx(2 * m * alpha + 2 * v_over_b, rel=1e-12)
        # the approximate form overestimates by 2α + 2v/(m b)
        assert out["rel_err_approx"] == pytest.approx((2 * alpha + 2 * v_over_b / m) / out["eq2_approx_s"], rel=1e-9)
    assert out["events"] > 0


def test_units_alpha_in_ms_and_model_in_mb():
    """Same seed -> same bandwidths and groups; α adds 2(m-1)·α_ms·1e-3 s per group; with α = 0
    the time is proportional to the model size."""
    base = dict(n=10, m=4, groups=2, model_mb=50.0)
    a0 = trial(dict(base, alpha_ms=0.0), np.random.SeedSequence(5))
    a1 = trial(dict(base, alpha_ms=2.0), np.random.SeedSequence(5))
    assert a1["eq2_exact_s"] - a0["eq2_exact_s"] == pytest.approx(2 * 3 * 2e-3, rel=1e-9)
    big = trial(dict(base, alpha_ms=0.0, model_mb=100.0), np.random.SeedSequence(5))
    assert big["eq2_exact_s"] == pytest.approx(2 * a0["eq2_exact_s"], rel=1e-12)
    assert big["sim_time_s"] == pytest.approx(2 * a0["sim_time_s"], rel=1e-9)


def test_single_member_group_takes_no_time():
    out = trial(dict(n=3, m=1, alpha_ms=1.0), np.random.SeedSequence(0))
    assert out["sim_time_s"] == 0.0 and out["eq2_exact_s"] == 0.0 and out["rel_err_exact"] == 0.0


@pytest.mark.parametrize("params, name", [
    (dict(n=4, m=3, groups=2), "groups"),
    (dict(n=4, m=5), "m"),
    (dict(n=1, m=1), "n"),
    (dict(n=4, m=2, lam=2.0), "lam"),
    (dict(n=4, m=2, alpha_ms=-1.0), "alpha_ms"),
])
def test_bad_parameters_are_named(params, name):
    with pytest.raises(ValueError, match=name):
        trial(params, np.random.SeedSequence(0))
