"""Gradient collection without a network (notebook 93): hand-derived cases, closed forms of exponential
times, and brute-force simulations of tiny cases written independently of the module."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simlib.workloads import gradient_collection as gc


# ------------------------------------------------------------------ brute force (independent of the module)
def brute_greedy(times, s):
    """Event by event: the worker whose next finish is earliest delivers (scan, no heap)."""
    times = [list(r) for r in times]
    finish = [r[0] for r in times]
    k = [1] * len(times)
    out = []
    while len(out) < s:
        w = min(range(len(times)), key=lambda i: (finish[i], i))
        out.append(finish[w])
        finish[w] += times[w][k[w]]
        k[w] += 1
    return out


def brute_cancel(times, m, s):
    out, t0, r = [], 0.0, 0
    while len(out) < s:
        col = sorted(row[r] for row in times)
        out.extend(t0 + x for x in col[:m])
        t0 += col[m - 1]
        r += 1
    return out[:s]


def brute_drop(times, m, s):
    """State per worker: (finish time, round computed on) or waiting; scan for the next event."""
    n = len(times)
    nxt = [1] * n
    state = [(times[w][0], 0) for w in range(n)]       # (finish, round) or None while waiting
    rnd, got, used = 0, [], []
    while len(used) < s:
        w = min((i for i in range(n) if state[i] is not None), key=lambda i: (state[i][0], i))
        now, on = state[w]
        if on != rnd:                                   # stale: dropped, restart at once
            state[w] = (now + times[w][nxt[w]], rnd)
            nxt[w] += 1
            continue
        used.append(now)
        got.append(w)
        state[w] = None
        if len(got) == m:
            rnd += 1
            for v in got:
                state[v] = (now + times[v][nxt[v]], rnd)
                nxt[v] += 1
            got = []
    return used


def _case(draw_times):
    return np.asarray(draw_times, dtype=float)


matrices = st.integers(1, 4).flatmap(lambda n: st.lists(
    st.lists(st.integers(1, 9).map(float), min_size=40, max_size=40), min_size=n, max_size=n))


@settings(max_examples=60, deadline=None)
@given(matrices, st.integers(1, 8), st.data())
def test_every_collector_matches_a_brute_force_simulation(rows, s, data):
    t = _case(rows)
    n = t.shape[0]
    m = data.draw(st.integers(1, n))
    assert gc.greedy_arrivals(t, s).tolist() == pytest.approx(brute_greedy(rows, s))
    assert gc.msync_arrivals(t, m, s, "cancel").tolist() == pytest.approx(brute_cancel(rows, m, s))
    assert gc.msync_arrivals(t, m, s, "drop").tolist() == pytest.approx(brute_drop(rows, m, s))


@settings(max_examples=60, deadline=None)
@given(matrices, st.integers(1, 8), st.data())
def test_dropping_never_beats_the_greedy_collector(rows, s, data):
    """Under "drop" workers compute back to back except while they wait, and only some of their gradients
    count: its S-th used arrival is never before the greedy S-th (under "cancel" it can be: a cancelled slow
    step is skipped)."""
    t = _case(rows)
    m = data.draw(st.integers(1, t.shape[0]))
    assert np.all(gc.msync_arrivals(t, m, s, "drop") >= gc.greedy_arrivals(t, s) - 1e-12)


def test_equal_deterministic_times_make_m_sync_with_m_n_and_greedy_coincide():
    n, c = 5, 0.7
    t = np.full((n, 60), c)
    s_values = [1, 4, 5, 6, 10, 23]
    expect = [math.ceil(s / n) * c for s in s_values]
    for late in gc.LATE_GRADIENTS:
        assert gc.collection_times(gc.msync_arrivals(t, n, 23, late), s_values) == pytest.approx(expect)
        # fewer than n per round: the S-th gradient arrives at the end of round ceil(S/m)
        assert gc.collection_times(gc.msync_arrivals(t, 2, 23, late), s_values) == pytest.approx(
            [math.ceil(s / 2) * c for s in s_values])
        best, best_m, sync = gc.best_collection(t, s_values, range(1, n + 1), late)
        assert best == pytest.approx(expect) and sync == pytest.approx(expect)
        assert set(best_m[np.asarray(s_values) % n == 0]) == {n}
    assert gc.collection_times(gc.greedy_arrivals(t, 23), s_values) == pytest.approx(expect)


def _exp_times(n, steps, trials, seed=1):
    return np.random.default_rng(seed).exponential(1.0, size=(trials, n, steps))


def _within(sample, mean, sigmas=4.0):
    se = sample.std(ddof=1) / math.sqrt(sample.size)
    assert abs(sample.mean() - mean) <= sigmas * se, (sample.mean(), mean, se)


@pytest.mark.parametrize("n, m, rounds", [(4, 4, 3), (4, 2, 5), (6, 1, 4), (6, 5, 2)])
def test_exponential_cancel_rounds_take_the_m_th_order_statistic(n, m, rounds):
    """i.i.d. Exp(1): a round under "cancel" takes E[X_(m:n)] = H_n - H_{n-m}, so S = rounds * m gradients
    take rounds * (H_n - H_{n-m}) on average; m = n gives the claim's H_n per round of n."""
    x = _exp_times(n, rounds, 4000)
    s = rounds * m
    t = np.array([gc.msync_arrivals(x[i], m, s, "cancel")[-1] for i in range(x.shape[0])])
    h = gc.harmonic(n) - (gc.harmonic(n - m) if n > m else 0.0)
    _within(t, rounds * h)


@pytest.mark.parametrize("n, s", [(3, 1), (3, 7), (5, 20)])
def test_exponential_greedy_collects_at_rate_n(n, s):
    """i.i.d. Exp(1): the workers' finishes form n Poisson processes, together one of rate n: the S-th
    arrival is Gamma(S, n), mean S / n."""
    x = _exp_times(n, s, 4000, seed=2)
    t = np.array([gc.greedy_arrivals(x[i], s)[-1] for i in range(x.shape[0])])
    _within(t, s / n)


def test_late_gradients_reading_changes_m_sync_as_decision_ps10_says():
    """n = 2, m = 1, i.i.d. Exp(1).  "cancel": every round is min of two fresh draws, mean 1/2.  "drop": after
    the first round (mean 1/2) the other worker is on a stale step (memoryless residual Exp(1)) it must
    finish before a fresh one, so a round is min(X, Y1 + Y2), P(> t) = (1 + t) e^{-2t}, mean 3/4."""
    s = 6
    x = _exp_times(2, gc.steps_needed(s, 1, "drop"), 6000, seed=3)
    cancel = np.array([gc.msync_arrivals(x[i], 1, s, "cancel")[-1] for i in range(x.shape[0])])
    drop = np.array([gc.msync_arrivals(x[i], 1, s, "drop")[-1] for i in range(x.shape[0])])
    _within(cancel, s / 2)
    _within(drop, 0.5 + (s - 1) * 0.75)
    assert drop.mean() > 1.3 * cancel.mean()


def test_harmonic_numbers():
    assert gc.harmonic(1) == 1.0
    assert gc.harmonic(4) == pytest.approx(25 / 12)
    assert gc.harmonic(1000) == pytest.approx(math.log(1000) + 0.5772156649, abs=1e-3)


def test_m_grid_is_every_m_for_small_n_and_keeps_the_ends():
    assert gc.m_grid(5) == [1, 2, 3, 4, 5]
    g = gc.m_grid(64)
    assert g[0] == 1 and g[-2:] == [63, 64] and len(g) <= 18 and g == sorted(set(g))


def test_bad_input_names_the_parameter():
    t = np.ones((3, 4))
    with pytest.raises(ValueError, match=r"m must be .*\[1, 3\]"):
        gc.msync_arrivals(t, 4, 2)
    with pytest.raises(ValueError, match="late must be one of"):
        gc.msync_arrivals(t, 1, 2, "ignore")
    with pytest.raises(ValueError, match="at least s_max = 5 columns"):
        gc.greedy_arrivals(t, 5)
    with pytest.raises(ValueError, match="ceil"):
        gc.msync_arrivals(t, 1, 5, "cancel")
    with pytest.raises(ValueError, match="needs more than 4"):
        gc.msync_arrivals(t, 1, 5, "drop")
    with pytest.raises(ValueError, match="2-D"):
        gc.greedy_arrivals([1.0, 2.0], 1)


def test_trace_trial_on_a_real_trace_reports_every_s_and_best_m_within_the_grid():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = gc.trace_trial(dict(trace="bytedance-ar", n=8, late="cancel"), 0)
    for k in gc.S_COLUMNS:
        assert 1 <= r[f"best_m_k{k}"] <= 8
        assert r[f"best_k{k}"] <= r[f"sync_k{k}"]
    per_m = [r[f"m{m}_k{gc.PER_M_K}"] for m in range(1, 9)]
    assert min(per_m) == r[f"best_k{gc.PER_M_K}"] and per_m[-1] == r[f"sync_k{gc.PER_M_K}"]
    assert r["h_n"] == pytest.approx(gc.harmonic(8))
