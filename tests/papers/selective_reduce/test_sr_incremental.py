"""The incremental controller pass (decision E21) against the reference pass (kernels.round_plan):
same runs, launches and holds whenever it is sure, on random states with ties, and the same
schedules on whole runs."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.papers import cluster_scenario as cs
from simlib.papers.selective_reduce import incremental as inc
from simlib.papers.selective_reduce import kernels
from simlib.papers.selective_reduce.algorithms import _decide_sorted
from simlib.papers.selective_reduce.controller import SelectiveReduceController
from simlib.papers.selective_reduce.progress import ConditionalProgress, TraceProgress
from simlib.workloads.traces import OnlineECDF, load_trace


def _state(rng, n, grid, n_starts, now):
    """Workers all in training from one of ``n_starts`` start times, then a random subset ready in a
    random arrival order: (phase, bw, start, classes, queue ids, queue bws, held flags, holding)."""
    bw = rng.integers(1, grid + 1, n) * 1e9 if grid else rng.uniform(0.5e9, 20e9, n)
    starts = now - rng.uniform(0.0, 3.0, n_starts)
    start = starts[rng.integers(0, n_starts, n)]
    phase = np.zeros(n, np.int8)
    cls = inc.Classes(n, bw)
    cls.count = inc.build_classes(phase, 0, start, bw, cls.qscale, cls.start, cls.cint, cls.bw, cls.fen, cls.loc)
    ready = rng.permutation(n)[:rng.integers(1, n + 1)]
    q_ids, q_bw, q_held = np.empty(2 * n + 1, np.int64), np.empty(2 * n + 1), np.zeros((2 * n + 1) // 8 * 8 + 8, bool)
    h, qlen = int(rng.integers(0, n + 1)), 0
    for w in ready:                                     # arrivals: leave S, join Q in BAG's order
        phase[w] = 1
        inc.remove_worker(w, cls.cint, cls.fen, cls.loc, cls.bw, cls.qscale)
        h, qlen = kernels.queue_insert(q_ids, q_bw, q_held, h, qlen, w, bw[w])
    q = slice(h, h + qlen)
    rank = np.empty(n, np.int64)
    rank[ready] = np.arange(ready.size)
    expect = ready[np.lexsort((rank[ready], -bw[ready]))]
    assert np.array_equal(q_ids[q], expect) and np.array_equal(q_bw[q], bw[expect]) and not q_held[q].any()
    q_held[q] = rng.random(qlen) < rng.choice([0.3, 0.97])
    holding = np.zeros(n, bool)
    holding[q_ids[q]] = q_held[q]
    return phase, bw, start, cls, q_ids[q], q_bw[q], (q_held, h), holding


def _model(kind, rng):
    tr = load_trace("transformer")
    if kind == "step":
        ecdf = OnlineECDF()
        for x in rng.choice(tr.samples, 50):
            ecdf.observe(float(x))
        return TraceProgress(ecdf).kernel_spec()
    return (TraceProgress(tr) if kind == "paper" else ConditionalProgress(tr)).kernel_spec()


def _compare(seed, n, grid, n_starts, p, eta, theta, v, eq2, kind, base_rule):
    rng = np.random.default_rng(seed)
    now = 5.0
    phase, bw, start, cls, q_ids, q_bw, (q_held, h), holding = _state(rng, n, grid, n_starts, now)
    base = p if base_rule == "text" else p + 1
    par = tuple(kernels.PassParams(now=now, dt=0.1, eta=eta, theta=theta, v=v, alpha=1e-3, computing=0,
                                   base=base, p=p, eq2=eq2))
    model = tuple(_model(kind, rng))
    fbuf, ibuf = kernels.work_buffers(n)
    h_ref = holding.copy()
    ref = kernels.round_plan((phase, bw, start, start + 1.0), q_ids, q_bw, h_ref, par, model, fbuf, ibuf)
    runs_ref = ibuf[kernels.I_RUN_S:kernels.I_RUN_LAUNCH + 1, :ref[0]].copy()
    holds_ref = ibuf[kernels.I_HOLD, :ref[2]].copy()
    ibuf[:] = -7
    h_new, qh_new = holding.copy(), q_held.copy()
    status, *got = inc.fast_round_plan(q_ids, q_bw, qh_new, h, h_new, par, model,
                                       (cls.count, cls.start, cls.cint, cls.bw, cls.fen, cls.qscale), ibuf)
    if status == inc.UNSURE:
        assert np.array_equal(h_new, holding) and np.array_equal(qh_new, q_held)     # nothing written
        return False
    assert tuple(got) == tuple(ref)
    assert np.array_equal(ibuf[kernels.I_RUN_S:kernels.I_RUN_LAUNCH + 1, :got[0]], runs_ref)
    assert np.array_equal(ibuf[kernels.I_HOLD, :got[2]], holds_ref)
    assert np.array_equal(h_new, h_ref)
    assert np.array_equal(qh_new[h:h + q_ids.size], h_new[q_ids])
    assert np.array_equal(np.delete(qh_new, np.s_[h:h + q_ids.size]), np.delete(q_held, np.s_[h:h + q_ids.size]))
    return True


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 300), grid=st.sampled_from([0, 2, 5, 40, 20000]),
       n_starts=st.integers(1, 6), p=st.integers(1, 40), eta=st.sampled_from([0.0, 0.3, 0.6]),
       theta=st.sampled_from([0.0, 1.0, 5.0, np.inf]), v=st.sampled_from([1e8, 4e9]), eq2=st.booleans(),
       kind=st.sampled_from(["paper", "conditional", "step"]), base_rule=st.sampled_from(["text", "pseudocode"]))
def test_incremental_pass_equals_reference_when_sure(seed, n, grid, n_starts, p, eta, theta, v, eq2, kind,
                                                     base_rule):
    _compare(seed, n, grid, n_starts, min(p, n), eta, theta, v, eq2, kind, base_rule)


def test_incremental_pass_is_mostly_sure():
    """Not vacuous: on random states the pass decides itself almost always."""
    sure = [_compare(s, 150, [0, 5, 40][s % 3], 1 + s % 4, 20, 0.3, 1.0, 4e9, s % 2 == 0, "paper", "text")
            for s in range(200)]
    assert np.mean(sure) > 0.9


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 30), k=st.integers(0, 40), base=st.integers(1, 25),
       eta=st.sampled_from([0.0, 0.3, 0.6]), theta=st.sampled_from([0.0, 0.5, 1.0, 3.0]), eq2=st.booleans(),
       width=st.sampled_from([0.0, 1e-12, 1e-6, 0.05, 0.5]))
def test_decide_range_sure_means_one_decision_throughout(seed, m, k, base, eta, theta, eq2, width):
    rng = np.random.default_rng(seed)
    g = np.sort(rng.integers(1, 12, m) * 1e9)[::-1].copy()         # ties
    lo = float(rng.choice(np.concatenate([g, rng.uniform(0.5e9, 12e9, 3)])))
    hi = lo * (1.0 + width)
    args = (base, eta, theta, 0.1, 4e9, 1e-3, eq2)
    sure, wait, n_keep = inc.decide_range(g, k, lo, hi, *args)
    if not sure:
        return
    for bv in np.concatenate([[lo, hi], rng.uniform(lo, hi, 30), g[(g >= lo) & (g <= hi)]]):
        got = _decide_sorted(g, k, float(bv), *args)
        assert (got[0], got[1]) == (wait, n_keep)


def _tree_depth(n: int) -> int:
    """The additions a term of kernels.pairwise_sum goes through at most, counted on its structure."""
    if n < 8:
        return n
    if n <= 128:
        return (n // 8 - 1) + 3 + n % 8
    n2 = n // 2
    n2 -= n2 % 8
    return 1 + max(_tree_depth(n2), _tree_depth(n - n2))


@pytest.mark.parametrize("n", [1, 7, 8, 127, 128, 129, 1000, 4095, 4097, 100_000, 3_000_001])
def test_pairwise_depth_bounds_the_summation_tree(n):
    assert inc.pairwise_depth(n) >= _tree_depth(n)


def test_pairwise_sum_within_the_depth_bound():
    """The bound the pass relies on: |fl(sum) - sum| <= depth * u * sum for non-negative terms."""
    from fractions import Fraction

    rng = np.random.default_rng(3)
    for n in (5, 100, 1000, 20000):
        a = rng.random(n) ** 3
        got = kernels.pairwise_sum(a, 0, n)
        exact = sum(Fraction(float(x)) for x in a)
        assert abs(Fraction(got) - exact) <= Fraction(inc.pairwise_depth(n)) * Fraction(2.0 ** -53) * exact


def _schedule(params, seed, incremental):
    cl = cs.build_cluster(cs.Scenario.from_params(params), np.random.SeedSequence(seed))
    if not incremental:
        cl.controller.incremental = False             # the reference pass on every round
    log = cl.run()
    return ([(r.launch, r.members, r.finish, r.kind) for r in log.syncs], list(log.holds), dict(log.counters),
            cl.controller.fallback_rounds)


@pytest.mark.parametrize("n,kw", [(40, {}), (40, {"tx_form": "eq2"}), (40, {"cdf": "cold"}),
                                  (40, {"eta": 0.0, "theta": 5.0}), (200, {}), (200, {"progress_model": "conditional"}),
                                  (200, {"bw_error": 0.3, "bw_error_redraw": "run"}), (200, {"c": 10}),
                                  (200, {"base_rule": "pseudocode", "tx_form": "eq2"})])
def test_incremental_runs_have_the_reference_schedule(n, kw):
    params = dict(scheme="selective", n=n, duration_s=40.0, trace="transformer", **kw)
    for seed in (0, 1):
        ref = _schedule(params, seed, False)
        new = _schedule(params, seed, True)
        assert new[:3] == ref[:3]
        assert ref[3] == 0 and new[3] < new[2]["controller_rounds"] / 4       # the fast path did the work


def test_incremental_off_runs_the_reference_pass_every_round(monkeypatch):
    """``controller.incremental = False`` before the run: no round goes through the classes (the fast
    pass, made to raise here, is never called), and the schedule is the incremental run's."""
    params = dict(scheme="selective", n=40, duration_s=10.0)
    on = _schedule(params, 0, True)

    def refuse(*args):
        raise AssertionError("the incremental pass ran although incremental is False")

    monkeypatch.setattr(inc, "fast_round_plan", refuse)
    off = _schedule(params, 0, False)
    assert off[:3] == on[:3] and off[3] == 0 and off[2]["controller_rounds"] > 0
