"""The simulated SSP cluster: hand-worked runs, invariants (Hypothesis), metrics, Orpheus."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.runtime.cluster import ScriptedComputeTimes
from simlib.papers.selmcast.orpheus import orpheus_receivers
from simlib.papers.selmcast.ssp_cluster import SSPCluster, engine_bound, mean_residual
from simlib.papers.selmcast.ssp_metrics import ssp_metrics
from simlib.papers.selmcast.ssp_scenario import SSPScenario, p_count, run_trial, simulate
from simlib.workloads.traces import Trace, load_trace

G = 1e9


def two_workers(times, ssp, scheme="selmcast", **kw):
    """n = 2, 1 Gbps ports, 1 Gb models: a lone multicast takes exactly 1 s."""
    return SSPCluster(egress=[G, G], ingress=[G, G], compute=ScriptedComputeTimes(times),
                      trace=Trace("t", [1.0]), volume_bits=G, p=1, rules=SSPScenario(scheme=scheme, ssp=ssp, k=4),
                      orpheus_rng=np.random.default_rng(0), **kw)


def test_infinite_is_none_up_to_each_engine_which_gets_its_own_encoding():
    # the scenario's None ("inf") becomes -1 for the compiled loop's Config and math.inf for the reference
    assert engine_bound(None, -1) == -1 and engine_bound(None, math.inf) == math.inf
    assert engine_bound(0, -1) == 0 and engine_bound(4, math.inf) == 4
    # ssp = None (ASP) runs ahead where ssp = 0 blocks (the hand-made run of test_ssp_block_and_release)
    gated, free = (two_workers([[1, 1, 1], [3, 1, 1]], ssp=s).run(4.5) for s in (0, None))
    assert gated.blocked[0] > 0 and free.blocked[0] == 0


def test_ssp_block_and_release():
    # w0: computes [0,1], multicasts [1,2] (round 1); w1 computes [0,3], multicasts [3,4].
    # ssp = 0 (BSP): at t = 2 w0 has 1 round, the slowest 0: it waits until w1's round
    # ends at t = 4 (blocked 2 s), then computes [4,5].
    log = two_workers([[1, 1, 1], [3, 1, 1]], ssp=0).run(4.5)
    assert log.compute[0][:2] == [(0.0, 1.0), (4.0, 5.0)]
    assert log.blocked[0] == pytest.approx(2.0) and log.blocked[1] == 0.0
    m0 = [m for m in log.multicasts if m.sender == 0]
    assert m0[0].start == 1.0 and m0[0].finish == pytest.approx(2.0) and m0[0].delivered == (1,)
    # ssp = 1: no wait; w0 computes [2,3] and multicasts from 3 while w1 does too
    # (disjoint links: ingress0 + egress1 vs ingress1 + egress0), both end at 4.
    log = two_workers([[1, 1, 1], [3, 1, 1]], ssp=1).run(4.5)
    assert log.compute[0][:3] == [(0.0, 1.0), (2.0, 3.0), (4.0, 5.0)]
    assert log.blocked[0] == 0.0 and log.max_gap == 1


class _Halving:
    """Ports at 1 Gbps, halved from t = 1.5 s on; a change every 0.5 s (the bandwidth protocol:
    ``schedule(t_end)`` gives the capacities from k * period, k = 1..K)."""

    period = 0.5

    def schedule(self, t_end):
        times = np.arange(1, int(t_end / self.period) + 1) * self.period
        return np.stack([np.full((2, 2), (1.0 if t < 1.5 else 0.5) * G) for t in times])


def test_bandwidth_change_reaches_running_flows():
    # capacities halve at t = 1.5: w0's multicast (from t = 1) has .5 Gb left at 1.5,
    # which takes 1 s at .5 Gbps: it ends at 2.5 instead of 2.
    log = two_workers([[1, 100], [100]], ssp=None, bandwidth=_Halving(), period_s=0.5).run(3.0)
    assert log.multicasts[0].finish == pytest.approx(2.5)


def test_a_bandwidth_without_a_schedule_or_with_another_period_is_refused():
    # one protocol (schedule(t_end)), checked when the cluster is built (review 5: no hasattr branch per run)
    with pytest.raises(ValueError, match="bandwidth must be None or have a schedule"):
        two_workers([[1]], ssp=None, bandwidth=lambda t: np.full((2, 2), G), period_s=0.5)
    with pytest.raises(ValueError, match=r"period_s must equal the bandwidth's period \(0.5 s\)"):
        two_workers([[1]], ssp=None, bandwidth=_Halving(), period_s=0.25)


def test_l7_delivers_each_receiver_separately():
    # n = 3, p = 2, L7: w0 sends two unicasts from one 1 Gbps ingress: each at .5 Gbps,
    # both delivered at t = 1 + 2 = 3.  Egress of w2 is slower (.25 Gbps): w2 gets its copy
    # at 1 + 4 = 5, w1 takes the rest of the ingress (.75 Gbps) once w2 is capped... max-min:
    # w2 at .25, w1 at .75 -> w1 done at 1 + 1/.75; then w2 keeps .25 -> done at 5.
    c = SSPCluster(egress=[G, G, 0.25 * G], ingress=[G, G, G],
                   compute=ScriptedComputeTimes([[1, 100], [100], [100]]), trace=Trace("t", [1.0]),
                   volume_bits=G, p=2, rules=SSPScenario(scheme="orpheus", layer="L7", ssp=None, k=4),
                   orpheus_rng=np.random.default_rng(0))
    log = c.run(6.0)
    m = log.multicasts[0]
    assert m.delivered == (1, 2)
    assert m.delivered_at[0] == pytest.approx(1 + 1 / 0.75) and m.delivered_at[1] == pytest.approx(5.0)
    assert m.finish == pytest.approx(5.0)


def test_metrics_definitions_on_a_hand_run():
    log = two_workers([[1, 1, 1], [3, 1, 1]], ssp=0).run(4.5)
    m = ssp_metrics(log)
    # compute inside [0, 4.5]: w0 1 + .5, w1 3 + .5 -> mean 2.5 / 4.5
    assert m["npu_utilization"] == pytest.approx(2.5 / 4.5)
    assert m["avg_scale"] == pytest.approx(0.5)          # one receiver of n = 2
    assert m["total_rounds"] == 2 and m["multicasts"] == 2
    assert m["blocked_share"] == pytest.approx((2.0 / 4.5) / 2)


def test_mean_residual_matches_numeric_integral():
    tr = load_trace("lstm")
    assert mean_residual(tr, 0.0)[0] == pytest.approx(tr.mean, rel=1e-9)
    grid = np.linspace(0, tr.samples[-1], 200_001)
    surv = 1 - np.asarray(tr.cdf(grid))
    for a in (0.3, 0.9, 1.7):
        sel = grid >= a
        num = np.trapezoid(surv[sel], grid[sel]) / (1 - tr.cdf(a))
        assert mean_residual(tr, a)[0] == pytest.approx(num, rel=2e-3)
    assert mean_residual(tr, tr.samples[-1] + 1)[0] == 0.0


def test_mean_residual_at_a_samples_atom_is_the_same_on_either_side_of_its_rounding():
    """SM71: samples 1, 2, 2, 4 (S = 1, 2/3, 1/3, 0 at them, linear between: an atom at 2, where S
    jumps from 2/3 to 1/3).  By hand, at a = 2: E[T - 2 | T > 2] = integral of S over [2, 4] / S(2) =
    (0.5 * 2 * 1/3) / (1/3) = 1; just below 2 the same integral over S = 2/3: 0.5.  An elapsed time
    within TIE_S of the atom is at it (two engines' rounding lands on either side); 2 ns away is not."""
    from simlib.papers.selmcast.ssp_selection import TIE_S

    tr = Trace("atom", [1.0, 2.0, 2.0, 4.0])
    at = mean_residual(tr, [2.0, 2.0 - 1e-12, 2.0 + 1e-12, 2.0 - 0.9 * TIE_S])
    np.testing.assert_array_equal(at, np.full(4, at[0]))
    assert at[0] == pytest.approx(1.0, rel=1e-12)
    below = mean_residual(tr, 2.0 - 2 * TIE_S)[0]             # just before the atom: S = 2/3, same integral
    assert below == pytest.approx((1 / 3) / (2 / 3), rel=1e-6)


def test_orpheus_receivers():
    rng = np.random.default_rng(1)
    r = orpheus_receivers(3, 10, 4, rng, due=[7, 1])
    assert r.dtype == np.int64 and r.size == 4 and {1, 7} <= set(r.tolist()) and 3 not in r
    assert np.all(np.diff(r) > 0)
    assert orpheus_receivers(0, 10, 2, rng, due=[5, 6, 9]).tolist() == [5, 6, 9]
    with pytest.raises(ValueError, match="sender"):
        orpheus_receivers(3, 10, 2, rng, due=[3])
    with pytest.raises(ValueError, match="p must be"):
        orpheus_receivers(3, 10, 10, rng)


def test_p_count_is_ceil():
    assert p_count(0.3, 50) == 15 and p_count(0.05, 50) == 3 and p_count(0.4, 50) == 20
    with pytest.raises(ValueError, match="p must give"):
        p_count(0.999, 10)


def _check_log(log, ssp, k, p):
    n = log.n
    fin = [m for m in log.multicasts if m.finish is not None]
    for m in log.multicasts:
        dropped = {j for j, _ in m.dropped}
        assert dropped <= set(m.initial)
        assert not dropped & set(m.delivered)       # never re-added in the round
        assert set(m.delivered) <= set(m.initial) and m.sender not in m.initial
    for m in fin:
        assert len(m.delivered) >= p
    # the SSP gap, rebuilt from the log: when w starts computing round r, it has r - 1
    # completed rounds and every worker must have at least r - 1 - ssp
    ends = [sorted(m.finish for m in fin if m.sender == w) for w in range(n)]
    for w in range(n):
        for r, (t0, _) in enumerate(log.compute[w][1:], start=2):
            low = min(np.searchsorted(ends[j], t0, side="right") for j in range(n))
            assert (r - 1) - low <= ssp
    # every (i, j) delivered at least once in every k + 1 consecutive completed rounds of i
    if k != math.inf:
        for i in range(n):
            rounds = [set(m.delivered) for m in fin if m.sender == i]
            for j in set(range(n)) - {i}:
                gap = 0
                for got in rounds:
                    gap = 0 if j in got else gap + 1
                    assert gap <= k


@settings(max_examples=25)
@given(n=st.integers(4, 9), scheme=st.sampled_from(["selmcast", "orpheus"]),
       ssp=st.sampled_from([0, 1, 2, None]), k=st.sampled_from([0, 1, 2, None]),
       eta=st.sampled_from([0.0, 0.75, 1.0]), layer=st.sampled_from(["L3", "L7"]),
       model_mb=st.sampled_from([20.0, 200.0, 800.0]), seed=st.integers(0, 1000))
def test_invariants(n, scheme, ssp, k, eta, layer, model_mb, seed):
    sc = SSPScenario(scheme=scheme, n=n, duration_s=8.0, ssp=ssp, k=k, eta=eta, layer=layer,
                     model_mb=model_mb, p=0.3)
    log = simulate(sc, seed)
    _check_log(log, math.inf if ssp is None else ssp, math.inf if k is None else k, sc.receivers)
    assert log.max_gap <= (math.inf if ssp is None else ssp)


def test_same_seed_same_result_and_paired_draws():
    p = dict(n=12, duration_s=10.0)
    a = run_trial({**p, "scheme": "selmcast"}, np.random.SeedSequence(3))
    b = run_trial({**p, "scheme": "selmcast"}, np.random.SeedSequence(3))
    assert a == b
    la = simulate(SSPScenario(scheme="selmcast", **p), 3)
    lb = simulate(SSPScenario(scheme="orpheus", **p), 3)
    np.testing.assert_array_equal(la.egress, lb.egress)
    da = [e - s for s, e in la.compute[0]]
    db = [e - s for s, e in lb.compute[0]]
    m = min(len(da), len(db))
    np.testing.assert_allclose(da[:m], db[:m])        # same per-worker compute draws


def test_selmcast_preempts_and_orpheus_never_does():
    p = dict(n=20, duration_s=20.0)
    s = run_trial({**p, "scheme": "selmcast"}, np.random.SeedSequence(0))
    o = run_trial({**p, "scheme": "orpheus"}, np.random.SeedSequence(0))
    assert s["preempted_receivers"] > 0 and o["preempted_receivers"] == 0
    assert o["avg_scale"] >= p_count(0.3, 20) / 20


def test_k_removed_orpheus_sends_exactly_p():
    o = run_trial(dict(n=20, duration_s=20.0, scheme="orpheus", k=None), np.random.SeedSequence(0))
    assert o["avg_scale"] == pytest.approx(6 / 20)
    o1 = run_trial(dict(n=20, duration_s=20.0, scheme="orpheus", k=0), np.random.SeedSequence(0))
    assert o1["avg_scale"] == pytest.approx(19 / 20)       # k = 0: everyone is due every round


@pytest.mark.parametrize("knob, values", [
    ("tau_estimate", ["trace", "zero"]), ("sharing", ["maxmin", "priority"]), ("eta", [0.0, 1.0]),
    ("line32", ["y", "x"]), ("pareto_deadline", ["own", "all"]), ("task_order", ["pseudocode", "text"]),
])
def test_knobs_change_the_run(knob, values):
    base = dict(n=16, duration_s=15.0, ssp=1, scheme="selmcast")
    outs = [run_trial({**base, knob: v}, np.random.SeedSequence(1)) for v in values]
    assert outs[0] != outs[1]


def test_eta_raises_the_scale():
    base = dict(n=20, duration_s=20.0, scheme="selmcast")
    lo = run_trial({**base, "eta": 0.0}, np.random.SeedSequence(2))
    hi = run_trial({**base, "eta": 1.0}, np.random.SeedSequence(2))
    assert hi["avg_scale"] > lo["avg_scale"] and hi["preempted_receivers"] < lo["preempted_receivers"]


@pytest.mark.parametrize("bad, match", [
    (dict(n=1), "n must be"), (dict(p=0.0), "p must be"), (dict(eta=2.0), "eta must be"),
    (dict(ssp=-1), "ssp must be"), (dict(k=1.5), "k must be"), (dict(layer="L2"), "layer must be"),
    (dict(gamma=1.5), "gamma must be"), (dict(lam=1.0), "lam must be"), (dict(mu=0.0), "mu must be"),
    (dict(foo=1), "unknown scenario parameter"), (dict(trace="no_such_trace"), "trace must be one of"),
])
def test_scenario_rejects_bad_values(bad, match):
    with pytest.raises(ValueError, match=match):
        SSPScenario.from_params(bad)


@pytest.mark.parametrize("sharing, finish0", [("priority", 2.0), ("maxmin", 2.5)])
def test_strict_priority_in_algorithm_2_order(sharing, finish0):
    # k = 0: every pair is due, so both multicasts go to both others and share egress 2.
    # w0 starts at 1 (first in line 13's order), w1 at 1.5.  Strict priority: w0 keeps the
    # whole 1 Gbps and ends at 2, w1 then ends at 3.  Max-min: .5 each from 1.5 -> w0 ends
    # at 2.5, w1 has .5 left at 2.5 and ends at 3.
    c = SSPCluster(egress=[G, G, G], ingress=[G, G, G], compute=ScriptedComputeTimes([[1, 100], [1.5, 100], [100]]),
                   trace=Trace("t", [1.0]), volume_bits=G, p=1,
                   rules=SSPScenario(scheme="selmcast", ssp=None, k=0, sharing=sharing))
    log = c.run(4.0)
    m0, m1 = log.multicasts
    assert m0.delivered == (1, 2) and m1.delivered == (0, 2)
    assert m0.finish == pytest.approx(finish0) and m1.finish == pytest.approx(3.0)


@settings(max_examples=50)
@given(st.lists(st.integers(0, 60), min_size=1, max_size=12, unique=True), st.data())
def test_place_gives_increasing_classes(prios, data):
    from simlib.papers.selmcast.ssp_kernel import BASE as _BASE, GAP as _GAP, place_classes as _place

    m = len(prios)
    prio = np.full(m + 1, _BASE, np.int64)
    prio[:m] = _BASE + np.array(prios) * _GAP
    kappa = m                                                   # the new task
    order = np.array(data.draw(st.permutations(list(range(m + 1)))), np.int64)
    before = prio.copy()
    moved = set(_place(order, kappa, prio, _BASE, _GAP).tolist())
    assert np.all(np.diff(prio[order]) > 0)                     # classes follow the order
    changed = {i for i in range(m) if prio[i] != before[i]}
    assert changed == moved                                      # exactly the re-created flows
    run = [int(i) for i in order if i != kappa]
    if all(before[a] < before[b] for a, b in zip(run, run[1:])):
        assert not moved                                         # already ordered: nothing moves


@settings(max_examples=50)
@given(st.lists(st.integers(0, 60), min_size=1, max_size=12, unique=True), st.data())
def test_place_in_a_reused_work_space_gives_the_same_classes(prios, data):
    """The SSP loop's ``_place_classes`` reuses one (4, n) work space (issue 48): filled with garbage and
    reused over several placements, it gives each placement the classes and moved tasks of ``place_classes``'
    fresh arrays, and the invariants of the test above."""
    from simlib.papers.selmcast.ssp_kernel import BASE as _BASE, GAP as _GAP, _place_classes, place_classes

    m = len(prios)
    prio = np.full(m + 1, _BASE, np.int64)
    prio[:m] = _BASE + np.array(prios) * _GAP
    work = np.full((4, m + 4), -3, np.int64)
    work[2] = 1                                                 # "kept" everywhere before the first call
    for kappa in data.draw(st.lists(st.integers(0, m), min_size=1, max_size=4)):
        order = np.array(data.draw(st.permutations(list(range(m + 1)))), np.int64)
        fresh = prio.copy()
        expect = place_classes(order, kappa, fresh, _BASE, _GAP).tolist()
        before = prio.copy()
        k = _place_classes(order, kappa, prio, _BASE, _GAP, work)
        assert work[3, :k].tolist() == expect and prio.tolist() == fresh.tolist()
        assert np.all(np.diff(prio[order]) > 0)
        assert {i for i in range(m + 1) if i != kappa and prio[i] != before[i]} == set(expect)


def test_tau_formula():
    from simlib.papers.selmcast.ssp_kernel import COMPUTING, MULTICASTING, Residual
    from simlib.papers.selmcast.ssp_kernel import residual_tables as _residual_tables, tau_estimates as _tau

    # task 0 will have 3 rounds; with ssp = 1 everyone needs 2.  w1 (0 rounds, computing, true
    # remaining .5 s) needs 2 more: .5 + 1 x E[T]=1 + 2 x dbar=.2 = 1.9; w2 (1 round, multicasting)
    # needs 1: 0 + 0 + .2.  tau_0 = 1.9; w1, w2 are not in G: tau = 0.
    x = np.array([1.0])
    surv, tail = _residual_tables(x)
    tau = np.full(3, -1.0)
    _tau(10.0, np.array([2, 0, 1]), np.array([MULTICASTING, COMPUTING, MULTICASTING]), np.array([9.0, 9.7, 9.0]),
         np.array([np.inf, 10.5, np.inf]), np.array([True, False, False]), 1, True, Residual(x, surv, tail, 1.0), 0.2,
         tau)
    np.testing.assert_allclose(tau, [1.9, 0.0, 0.0])
    # with ssp = 2 only w1 lags (needs 1): .5 + 0 + .2
    _tau(10.0, np.array([2, 0, 1]), np.array([MULTICASTING, COMPUTING, MULTICASTING]), np.array([9.0, 9.7, 9.0]),
         np.array([np.inf, 10.5, np.inf]), np.array([True, False, False]), 2, True, Residual(x, surv, tail, 1.0), 0.2,
         tau)
    np.testing.assert_allclose(tau, [0.7, 0.0, 0.0])


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 12).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 6), min_size=n, max_size=n), st.lists(st.integers(0, 2), min_size=n, max_size=n),
    st.lists(st.floats(0.0, 3.0), min_size=n, max_size=n), st.lists(st.booleans(), min_size=n, max_size=n),
    st.integers(0, 4), st.booleans(), st.floats(0.0, 2.0))))
def test_tau_grouped_by_round_equals_the_per_straggler_estimate_bit_for_bit(inst):
    """SM74: tau_estimates takes one estimate per round value (the largest residual at that round);
    the definition, one straggler at a time, gives every tau_i with the same bits (trace and oracle)."""
    from simlib.papers.selmcast.ssp_kernel import Residual, _tau_by_worker, residual_tables, tau_estimates

    rounds, state, left, in_g, ssp, oracle, dbar = inst
    rounds, state, in_g = np.array(rounds, np.int64), np.array(state, np.int64), np.array(in_g)
    samples = np.array([0.3, 0.7, 0.7, 1.9, 2.6])                # an atom at 0.7
    res = Residual(samples, *residual_tables(samples), float(samples.mean()))
    t = 10.0
    comp_start = t - np.array(left) / 2.0
    comp_end = t + np.array(left)
    a, b = np.full(rounds.size, np.nan), np.full(rounds.size, np.nan)
    tau_estimates(t, rounds, state, comp_start, comp_end, in_g, ssp, oracle, res, dbar, a)
    _tau_by_worker(t, rounds, state, comp_start, comp_end, in_g, ssp, oracle, res, dbar, b)
    assert a.tobytes() == b.tobytes()


def test_scenario_cross_field_error_names_p_and_none_means_inf():
    from simlib.papers.contract import ParamError

    with pytest.raises(ParamError, match=r"p must give between 1 and n - 1 = 9") as exc:
        SSPScenario(n=10, p=0.95)
    assert exc.value.name == "p"
    sc = SSPScenario(ssp=None, k=None, n=10, p=0.9)          # ceil(9.0) = 9 = n - 1 receivers
    assert sc.receivers == 9 and sc.ssp is None and SSPScenario.from_params(sc.to_params()) == sc


def test_priority_order_changes_the_priority_run_only():
    # SM50: the order of strict priority matters under sharing="priority" and is ignored under max-min
    base = dict(n=16, duration_s=15.0, ssp=1, scheme="selmcast")
    runs = {(s, o): run_trial({**base, "sharing": s, "priority_order": o}, np.random.SeedSequence(1))
            for s in ("maxmin", "priority") for o in ("algorithm2", "fifo")}
    assert runs[("priority", "algorithm2")] != runs[("priority", "fifo")]
    assert runs[("maxmin", "algorithm2")] == runs[("maxmin", "fifo")]
    # the sweep cache keys the two orders apart exactly where they change the run (a key that merged
    # them would reuse one priority run for the other)
    key = {(s, o): run_trial.cache_params({**base, "sharing": s, "priority_order": o}) for s, o in runs}
    assert key[("priority", "algorithm2")] != key[("priority", "fifo")]
    assert key[("maxmin", "algorithm2")] == key[("maxmin", "fifo")]


def test_orpheus_runs_max_min_under_either_sharing():
    # SM50/SM65: Orpheus has no order to prioritize by; the sweep cache keys both spellings alike
    base = dict(n=12, duration_s=10.0, scheme="orpheus")
    a = run_trial({**base, "sharing": "maxmin"}, np.random.SeedSequence(4))
    b = run_trial({**base, "sharing": "priority", "priority_order": "fifo"}, np.random.SeedSequence(4))
    assert a == b
    assert run_trial.cache_params({**base, "sharing": "priority"}) == run_trial.cache_params(base)


@pytest.mark.parametrize("engine", ["compiled", "flow"])
@pytest.mark.parametrize("sharing, finish", [("priority", (2.0, 4.0)), ("maxmin", (2.5, 3.5))])
def test_queued_multicast_starves_under_priority_and_progresses_under_maxmin(engine, sharing, finish):
    # k = 0: w0 (ready at 1) sends to {1, 2}, w1 (ready at 1.5, ingress 0.5 Gbps) to {0, 2}; both cross
    # egress 2.  Priority (w0 first in line 13's order): w0 keeps 1 Gbps and ends at 1.5 + 0.5 = 2;
    # w1 gets nothing until then (queued), then its ingress's 0.5 Gbps: 2 + 1 / 0.5 = 4.  Max-min:
    # from 1.5 w1 is held to 0.5 by its ingress and egress 2 gives w0 the other 0.5: w0 ends at
    # 1.5 + 0.5 / 0.5 = 2.5, w1 has sent 0.5 Gb by then and ends at 2.5 + 0.5 / 0.5 = 3.5.
    c = SSPCluster(egress=[G, G, G], ingress=[G, G / 2, G],
                   compute=ScriptedComputeTimes([[1, 100], [1.5, 100], [100]]), trace=Trace("t", [1.0]),
                   volume_bits=G, p=1, rules=SSPScenario(scheme="selmcast", ssp=None, k=0, sharing=sharing),
                   engine=engine)
    m0, m1 = c.run(5.0).multicasts
    assert m0.delivered == (1, 2) and m1.delivered == (0, 2) and not m0.dropped and not m1.dropped
    assert (m0.finish, m1.finish) == pytest.approx(finish)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(4, 10), layer=st.sampled_from(["L3", "L7"]), ssp=st.sampled_from([1, 4, None]),
       k=st.sampled_from([2, 4, None]), p=st.sampled_from([0.2, 0.3, 0.5]), seed=st.integers(0, 10_000))
def test_eta_one_drops_no_receiver_under_maxmin(n, layer, ssp, k, p, seed):
    # SM50 / line 9: with eta = 1 a receiver is kept once any of the model reached it; under max-min
    # every running multicast has a positive rate, so no running multicast ever loses a receiver
    sc = SSPScenario(scheme="selmcast", n=n, layer=layer, ssp=ssp, k=k, p=p, eta=1.0, duration_s=10.0)
    assert ssp_metrics(simulate(sc, seed))["preempted_receivers"] == 0


def test_eta_one_still_drops_under_priority():
    # the contrast that makes the test above able to fail: queued multicasts have sent nothing,
    # so eta = 1 does not protect them (SM50's "priority" reading)
    sc = SSPScenario(scheme="selmcast", n=20, eta=1.0, duration_s=20.0, sharing="priority")
    assert ssp_metrics(simulate(sc, 0))["preempted_receivers"] > 0
