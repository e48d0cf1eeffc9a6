"""Tests for simlib.workloads.bandwidth."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simlib.papers.fmreduce.bandwidth import fmreduce_bandwidths
from simlib.papers.selective_reduce.bandwidth import selective_reduce_bandwidths
from simlib.papers.selmcast.bandwidth import selmcast_bandwidth_draw, selmcast_bandwidths
from simlib.workloads.bandwidth import TimeVaryingBandwidth, error_estimator, estimate_with_error
from simlib.core.units import Gbps, Mbps


def rng(seed=0):
    return np.random.default_rng(seed)


def _raises_named(fn, name):
    with pytest.raises(ValueError) as ei:
        fn()
    assert str(ei.value).startswith(name + " "), (name, str(ei.value))


# --------------------------------------------------------------------------- seed 000
def test_selective_reduce_range_grid_and_mean():
    n = 100_000
    b = selective_reduce_bandwidths(n, rng(1))
    assert b.shape == (n,)
    assert b.min() >= 1 * Gbps and b.max() <= 20 * Gbps
    assert b.min() < 1.01 * Gbps  # the minimum 1 Gbps is actually reached at lam = 0.05
    assert np.all(np.mod(b, Mbps) == 0)  # round(20u, 3) Gbps -> 1 Mbps grid
    # E[20u] with u ~ U[0.05, 1] = 10.5 Gbps; sd = 20 * 0.95 / sqrt(12)
    se = 20 * 0.95 / np.sqrt(12) / np.sqrt(n) * Gbps
    assert abs(b.mean() - 10.5 * Gbps) < 5 * se


@pytest.mark.parametrize("lam", [0.0, 0.1, 0.2, 0.5, 1.0])
def test_selective_reduce_lambda(lam):
    b = selective_reduce_bandwidths(5000, rng(2), lam=lam)
    assert b.min() >= max(round(20 * lam, 3) * Gbps, Mbps) - 1e-6
    assert b.max() <= 20 * Gbps
    assert np.all(b > 0)
    if lam == 1.0:
        assert np.all(b == 20 * Gbps)


def test_selective_reduce_deterministic():
    assert np.array_equal(selective_reduce_bandwidths(50, rng(3)), selective_reduce_bandwidths(50, rng(3)))
    assert not np.array_equal(selective_reduce_bandwidths(50, rng(3)),
                              selective_reduce_bandwidths(50, rng(4)))


def test_selective_reduce_validation():
    _raises_named(lambda: selective_reduce_bandwidths(0, rng()), "n")
    _raises_named(lambda: selective_reduce_bandwidths(2.5, rng()), "n")
    _raises_named(lambda: selective_reduce_bandwidths(5, rng(), lam=1.5), "lam")
    _raises_named(lambda: selective_reduce_bandwidths(5, rng(), lam=-0.1), "lam")
    _raises_named(lambda: selective_reduce_bandwidths(5, 42), "rng")


# --------------------------------------------------------------------------- seed 004
def test_selmcast_ranges_and_means():
    n, bbar, lam, mu = 100_000, 40 * Gbps, 0.5, 2.0
    eg, ing = selmcast_bandwidths(n, bbar, lam, mu, rng(5))
    assert eg.shape == ing.shape == (n,)
    assert eg.min() >= bbar * (1 - lam) and eg.max() <= bbar * (1 + lam)
    assert ing.min() >= bbar * mu * (1 - lam) and ing.max() <= bbar * mu * (1 + lam)
    se = bbar * lam / np.sqrt(3) / np.sqrt(n)  # sd of bbar*lam*U[-1,1]
    assert abs(eg.mean() - bbar) < 5 * se
    assert abs(ing.mean() - bbar * mu) < 5 * mu * se
    # default: independent x per port
    assert abs(np.corrcoef(eg, ing)[0, 1]) < 0.02


def test_selmcast_shared_x_and_lambda_zero():
    eg, ing = selmcast_bandwidths(100, 10 * Gbps, 0.3, 0.5, rng(6), shared_x=True)
    assert np.allclose(ing, 0.5 * eg, rtol=1e-15)
    eg0, ing0 = selmcast_bandwidths(10, 10 * Gbps, 0.0, 2.0, rng(6))
    assert np.all(eg0 == 10 * Gbps) and np.all(ing0 == 20 * Gbps)


def test_selmcast_deterministic():
    a = selmcast_bandwidths(20, 40 * Gbps, 0.5, 1.0, rng(7))
    b = selmcast_bandwidths(20, 40 * Gbps, 0.5, 1.0, rng(7))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    c = selmcast_bandwidths(20, 40 * Gbps, 0.5, 1.0, rng(8))
    assert not np.array_equal(a[0], c[0]) and not np.array_equal(a[1], c[1])   # the rng is used


@pytest.mark.parametrize("shared_x", [False, True])
def test_selmcast_draw_factory_is_the_checked_function(shared_x):
    """The once-checked draw (TimeVaryingBandwidth's form) gives selmcast_bandwidths' numbers bit for bit,
    and both equal the formula of 004 §IV-A2 on uniforms drawn as rng.uniform(-1, 1) (x first, then x')."""
    draw = selmcast_bandwidth_draw(30, 40 * Gbps, 0.5, 1.3, shared_x=shared_x)
    for seed in range(5):
        pair = draw(rng(seed))
        eg, ing = selmcast_bandwidths(30, 40 * Gbps, 0.5, 1.3, rng(seed), shared_x=shared_x)
        assert pair.shape == (2, 30) and np.array_equal(pair[0], eg) and np.array_equal(pair[1], ing)
        r = rng(seed)
        x_e = r.uniform(-1.0, 1.0, 30)
        x_i = x_e if shared_x else r.uniform(-1.0, 1.0, 30)
        assert np.array_equal(eg, 40 * Gbps * (1.0 + 0.5 * x_e))
        assert np.array_equal(ing, 40 * Gbps * 1.3 * (1.0 + 0.5 * x_i))
    _raises_named(lambda: selmcast_bandwidth_draw(4, 1e9, 1.0, 1.0), "lam")


def test_selmcast_validation():
    ok = dict(n=4, bbar=1e9, lam=0.5, mu=1.0, rng=rng())
    _raises_named(lambda: selmcast_bandwidths(**{**ok, "n": 0}), "n")
    _raises_named(lambda: selmcast_bandwidths(**{**ok, "bbar": 0.0}), "bbar")
    _raises_named(lambda: selmcast_bandwidths(**{**ok, "lam": 1.0}), "lam")
    _raises_named(lambda: selmcast_bandwidths(**{**ok, "lam": -0.1}), "lam")
    _raises_named(lambda: selmcast_bandwidths(**{**ok, "mu": 0.0}), "mu")
    _raises_named(lambda: selmcast_bandwidths(**{**ok, "rng": None}), "rng")
    _raises_named(lambda: selmcast_bandwidths(**ok, shared_x="yes"), "shared_x")


# --------------------------------------------------------------------------- seed 003
def test_fmreduce_matrix_properties():
    n = 200
    b = fmreduce_bandwidths(n, rng(8))
    assert b.shape == (n, n)
    assert np.all(np.diag(b) == 0)
    off = b[~np.eye(n, dtype=bool)]
    k = off / 25e6
    assert np.all(k == np.rint(k))
    assert k.min() >= 1 and k.max() <= 10
    # k ~ rounded N(5, 1) truncated to [1, 10]: mean ~ 5, sd ~ sqrt(1 + 1/12)
    assert abs(k.mean() - 5.0) < 5 * np.sqrt(1 + 1 / 12) / np.sqrt(k.size)
    assert abs(k.std() - np.sqrt(1 + 1 / 12)) < 0.03
    # directed: b_ij independent of b_ji
    iu = np.triu_indices(n, 1)
    assert abs(np.corrcoef(b[iu], b.T[iu])[0, 1]) < 0.03
    assert np.any(b[iu] != b.T[iu])


def test_fmreduce_methods():
    r = fmreduce_bandwidths(60, rng(9), unit=1.0, k_mean=1.0, k_sd=3.0, method="resample")
    c = fmreduce_bandwidths(60, rng(9), unit=1.0, k_mean=1.0, k_sd=3.0, method="clip")
    off = ~np.eye(60, dtype=bool)
    for m in (r, c):
        assert m[off].min() >= 1 and m[off].max() <= 10
    # clip piles the lower tail onto k_min; resample does not
    assert (c[off] == 1).mean() > 0.45
    assert (r[off] == 1).mean() < 0.3
    one = fmreduce_bandwidths(1, rng())
    assert one.shape == (1, 1) and one[0, 0] == 0


def test_fmreduce_deterministic():
    assert np.array_equal(fmreduce_bandwidths(30, rng(10)), fmreduce_bandwidths(30, rng(10)))
    assert not np.array_equal(fmreduce_bandwidths(30, rng(10)), fmreduce_bandwidths(30, rng(11)))


def test_fmreduce_validation():
    _raises_named(lambda: fmreduce_bandwidths(0, rng()), "n")
    _raises_named(lambda: fmreduce_bandwidths(5, rng(), unit=0), "unit")
    _raises_named(lambda: fmreduce_bandwidths(5, rng(), k_sd=-1), "k_sd")
    _raises_named(lambda: fmreduce_bandwidths(5, rng(), k_min=0), "k_min")
    _raises_named(lambda: fmreduce_bandwidths(5, rng(), k_min=5, k_max=4), "k_max")
    _raises_named(lambda: fmreduce_bandwidths(5, rng(), method="floor"), "method")
    _raises_named(lambda: fmreduce_bandwidths(5, rng(), k_mean=100.0), "k_mean")
    _raises_named(lambda: fmreduce_bandwidths(5, "rng"), "rng")


# --------------------------------------------------------------------------- seed 000 §IV-B5
def test_estimate_with_error_basic():
    b = selective_reduce_bandwidths(100_000, rng(11))
    assert np.array_equal(estimate_with_error(b, 0.0, rng(12)), b)
    est = estimate_with_error(b, 0.5, rng(12))
    assert est.shape == b.shape
    rel = (est - b) / b
    assert rel.min() >= -0.5 and rel.max() <= 0.5
    # x ~ U[-1, 1]: mean relative error 0, sd e / sqrt(3)
    assert abs(rel.mean()) < 5 * 0.5 / np.sqrt(3) / np.sqrt(b.size)
    assert abs(rel.std() - 0.5 / np.sqrt(3)) < 0.01


def test_estimate_with_error_large_e_floor_and_zeros():
    b = np.full(10_000, 1 * Gbps)
    est = estimate_with_error(b, 2.0, rng(13))
    assert np.all(est >= Mbps)
    assert (est == Mbps).mean() > 0.2  # about 1/4 would have been <= 0
    est2 = estimate_with_error(b, 2.0, rng(13), floor=5e8)
    assert est2.min() == 5e8
    m = fmreduce_bandwidths(10, rng(14))
    em = estimate_with_error(m, 3.0, rng(15))
    assert em.shape == (10, 10)
    assert np.all(np.diag(em) == 0) and np.all(em[~np.eye(10, dtype=bool)] > 0)


def test_estimate_with_error_validation():
    _raises_named(lambda: estimate_with_error([1e9, -1.0], 0.1, rng()), "b")
    _raises_named(lambda: estimate_with_error([1e9, np.nan], 0.1, rng()), "b")
    _raises_named(lambda: estimate_with_error(["a"], 0.1, rng()), "b")
    _raises_named(lambda: estimate_with_error([1e9], -0.1, rng()), "e")
    _raises_named(lambda: estimate_with_error([1e9], 0.1, rng(), floor=0.0), "floor")
    _raises_named(lambda: estimate_with_error([1e9], 0.1, 3), "rng")


def test_error_estimator_draws_what_estimate_with_error_draws_for_each_id_set():
    """The per-round estimator (arguments checked once) gives, call after call, the values of
    estimate_with_error on the same ids from the same generator; e = 0 returns the truth."""
    b = np.array([1e9, 2e9, 0.0, 5e8, 4e9])
    calls = [np.array([0, 1]), np.array([4, 2, 3]), np.arange(5)]
    est, ref_rng = error_estimator(b, 0.3, rng(21), floor=1e6), rng(21)
    for ids in calls:
        assert np.array_equal(est(ids), estimate_with_error(b[ids], 0.3, ref_rng, floor=1e6))
    assert np.array_equal(error_estimator(b, 0.0, rng(1))(calls[1]), b[calls[1]])
    assert error_estimator(b, 3.0, rng(2))(np.arange(5))[2] == 0.0        # b = 0 stays 0
    assert error_estimator(b, 3.0, rng(2), floor=7e8)(np.array([0, 1, 3, 4])).min() >= 7e8


def test_error_estimator_validation():
    _raises_named(lambda: error_estimator([1e9, -1.0], 0.1, rng()), "b")
    _raises_named(lambda: error_estimator([[1e9]], 0.1, rng()), "b")
    _raises_named(lambda: error_estimator([1e9], -0.1, rng()), "e")
    _raises_named(lambda: error_estimator([1e9], 0.1, rng(), floor=-1.0), "floor")
    _raises_named(lambda: error_estimator([1e9], 0.1, "x"), "rng")


# --------------------------------------------------------------------------- seed 004 §IV-C6
N_TV = 8


def _draw(r):
    return selective_reduce_bandwidths(N_TV, r)


def _period_rng(seed, k):
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(k,)))


def test_time_varying_gamma_zero_is_initial():
    tv = TimeVaryingBandwidth(_draw, gamma=0.0, period=0.1, seed=5)
    b0 = tv.initial
    assert np.array_equal(b0, _draw(_period_rng(5, 0)))
    for t in (0.0, 0.05, 0.1, 1.23, 100.0):
        assert np.array_equal(tv.at(t), b0)


def test_time_varying_gamma_one_is_fresh_draw():
    tv = TimeVaryingBandwidth(_draw, gamma=1.0, period=0.1, seed=5)
    assert np.array_equal(tv.at(0.05), tv.initial)  # first period: b#
    for k in (1, 2, 7):
        fresh = _draw(_period_rng(5, k))
        assert np.array_equal(tv.at(k * 0.1), fresh)
        assert np.array_equal(tv.at(k * 0.1 + 0.05), fresh)
        assert not np.array_equal(fresh, tv.initial)
    assert not np.array_equal(tv.at(0.15), tv.at(0.25))


def test_time_varying_mixture_and_changes():
    g = 0.3
    tv = TimeVaryingBandwidth(_draw, gamma=g, period=0.1, seed=9)
    b0 = tv.initial
    b3 = _draw(_period_rng(9, 3))
    assert np.allclose(tv.at(0.35), b0 * (1 - g) + g * b3, rtol=1e-15)
    assert np.allclose(tv.change_times(0.35), [0.1, 0.2, 0.3])
    assert tv.change_times(0.05).size == 0
    exact = TimeVaryingBandwidth(_draw, gamma=g, period=0.25, seed=9)
    assert np.array_equal(exact.change_times(0.75), [0.25, 0.5, 0.75])  # (0, t_end]
    assert exact.period_index(0.75) == 3 and exact.period_index(0.7499) == 2
    # a change time starts the new period exactly
    for t in tv.change_times(5.0):
        k = tv.period_index(t)
        assert k * 0.1 == t


def test_time_varying_deterministic_and_seedsequence():
    a = TimeVaryingBandwidth(_draw, 0.5, 0.2, seed=1)
    b = TimeVaryingBandwidth(_draw, 0.5, 0.2, seed=1)
    c = TimeVaryingBandwidth(_draw, 0.5, 0.2, seed=np.random.SeedSequence(1))
    d = TimeVaryingBandwidth(_draw, 0.5, 0.2, seed=2)
    for t in (0.0, 0.3, 7.7):
        assert np.array_equal(a.at(t), b.at(t))
        assert np.array_equal(a.at(t), c.at(t))
    assert not np.array_equal(a.at(0.3), d.at(0.3))


def test_time_varying_matrix_draw():
    tv = TimeVaryingBandwidth(lambda r: fmreduce_bandwidths(5, r), 0.5, 1.0, seed=3)
    m = tv.at(2.5)
    assert m.shape == (5, 5) and np.all(np.diag(m) == 0)
    pair = TimeVaryingBandwidth(lambda r: np.stack(selmcast_bandwidths(4, 1e9, 0.5, 1.0, r)),
                                0.5, 1.0, seed=3)
    assert pair.at(3.0).shape == (2, 4)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0.0, 50.0), min_size=1, max_size=25), st.integers(0, 2**32 - 1))
def test_time_varying_order_independent(times, seed):
    a = TimeVaryingBandwidth(_draw, 0.4, 0.7, seed=seed)
    b = TimeVaryingBandwidth(_draw, 0.4, 0.7, seed=seed, cache_size=1)
    first = [a.at(t) for t in times]
    second = {t: b.at(t) for t in reversed(times)}
    for t, v in zip(times, first):
        assert np.array_equal(v, second[t])


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([0.0, 0.3, 1.0]), st.floats(0.01, 2.0), st.floats(0.0, 20.0), st.integers(0, 2**32 - 1))
def test_time_varying_schedule_equals_at_each_change_time(gamma, period, t_end, seed):
    """schedule(t_end) is at(k period) for k = 1..K, bit for bit, K the last change time <= t_end."""
    tv = TimeVaryingBandwidth(_draw, gamma, period, seed=seed)
    sched = tv.schedule(t_end)
    times = tv.change_times(t_end)
    assert sched.shape == (times.size, N_TV)
    for row, t in zip(sched, times):
        assert np.array_equal(row, tv.at(t))
    pair = TimeVaryingBandwidth(selmcast_bandwidth_draw(4, 1e9, 0.5, 1.0), gamma, period, seed=seed)
    assert pair.schedule(t_end).shape == (times.size, 2, 4)
    assert np.array_equal(tv(t_end), tv.at(t_end))          # the object is its own bandwidth(t) callable


def test_runs_with_one_seed_share_the_period_draws_and_get_the_fresh_values():
    """Two runs of one trial (value-equal draws, same seed, other gamma and period): the second
    reuses the first's period draws, and both schedules equal a computation that shares nothing
    (the same draw behind a lambda, which hashes by identity)."""
    seed = np.random.SeedSequence(7, spawn_key=(3, 0))
    for gamma, period in ((0.4, 0.1), (1.0, 0.25)):
        draw_a, draw_b = (selmcast_bandwidth_draw(6, 40 * Gbps, 0.5, 1.0) for _ in range(2))
        assert draw_a is not draw_b and draw_a == draw_b and hash(draw_a) == hash(draw_b)
        a = TimeVaryingBandwidth(draw_a, 0.2, period, seed=seed)
        b = TimeVaryingBandwidth(draw_b, gamma, period, seed=seed)
        alone = TimeVaryingBandwidth(lambda r, d=draw_a: d(r), gamma, period, seed=seed)
        first, second, fresh = a.schedule(30.0), b.schedule(30.0), alone.schedule(30.0)
        k_last = a.period_index(30.0)
        assert b._period_draws(k_last) is a._period_draws(k_last)
        assert alone._period_draws(k_last) is not a._period_draws(k_last)
        assert second.tobytes() == fresh.tobytes()
        assert not np.array_equal(first, second)
        second[:] = 0.0                                     # the caller's copy, not the shared draws
        assert b.schedule(30.0).tobytes() == fresh.tobytes()
    other_seed = TimeVaryingBandwidth(selmcast_bandwidth_draw(6, 40 * Gbps, 0.5, 1.0), 0.4, 0.1, seed=8)
    assert not np.array_equal(other_seed.schedule(30.0), fresh)


def test_shared_period_draws_keep_to_their_byte_budget():
    from simlib.workloads.bandwidth import _LatestArrays

    memo = _LatestArrays(max_bytes=3 * 800)
    for k in range(5):
        memo.put(k, np.full(100, float(k)))                 # 800 bytes each
    assert [memo.get(k) is None for k in range(5)] == [True, True, False, False, False]
    memo.get(2)                                             # used: now the newest
    memo.put(5, np.zeros(100))
    assert memo.get(3) is None and memo.get(2) is not None
    memo.put(6, np.zeros(1000))                             # larger than the budget: not kept
    assert memo.get(6) is None and memo.get(5) is not None


def test_time_varying_schedule_validates_draws():
    sizes = iter(range(1, 100))
    bad = TimeVaryingBandwidth(lambda r: np.ones(next(sizes)), 0.5, 0.1, 0)
    _raises_named(lambda: bad.schedule(0.5), "draw")
    calls = iter([np.ones(3)] + [np.ones(3)] * 2 + [-np.ones(3)])
    neg = TimeVaryingBandwidth(lambda r: next(calls), 0.5, 0.1, 0)
    _raises_named(lambda: neg.schedule(0.35), "draw")
    _raises_named(lambda: neg.schedule(-1.0), "t_end")


def test_time_varying_validation():
    _raises_named(lambda: TimeVaryingBandwidth(_draw, 1.5, 0.1, 0), "gamma")
    _raises_named(lambda: TimeVaryingBandwidth(_draw, 0.5, 0.0, 0), "period")
    _raises_named(lambda: TimeVaryingBandwidth(_draw, 0.5, 0.1, -1), "seed")
    _raises_named(lambda: TimeVaryingBandwidth(_draw, 0.5, 0.1, 0, cache_size=0), "cache_size")
    _raises_named(lambda: TimeVaryingBandwidth("draw", 0.5, 0.1, 0), "draw")
    _raises_named(lambda: TimeVaryingBandwidth(lambda r: np.array([-1.0]), 0.5, 0.1, 0), "draw")
    sizes = iter(range(1, 100))
    bad = TimeVaryingBandwidth(lambda r: np.ones(next(sizes)), 0.5, 0.1, 0)
    _raises_named(lambda: bad.at(0.5), "draw")
    tv = TimeVaryingBandwidth(_draw, 0.5, 0.1, 0)
    _raises_named(lambda: tv.at(-1.0), "t")
    _raises_named(lambda: tv.change_times(np.nan), "t_end")
