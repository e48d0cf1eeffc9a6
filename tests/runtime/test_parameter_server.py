"""Parameter-server training on the flow engine: PS BSP / BK / ASP / HETE (decisions PS1-PS5)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.runtime.cluster import ComputeTimes, ScriptedComputeTimes
from simlib.runtime.metrics import gradient_staleness, update_times
from simlib.runtime.parameter_server import ParameterServerController, ps_cluster, ps_topology, push_pull_time

B = 1e9          # bits/s
M = 8e8          # bits: 0.8 s alone on a 1 Gbps port


def run(times, mode="sync", duration=10.0, model_bits=M, alpha=0.0, servers=1, server_bandwidth=None,
        bandwidth=None, **kw):
    ctrl = ParameterServerController(mode, **kw)
    bw = [B] * len(times) if bandwidth is None else bandwidth
    cl = ps_cluster(bw, ScriptedComputeTimes(times), ctrl, model_bits=model_bits, alpha=alpha,
                    duration=duration, servers=servers, server_bandwidth=server_bandwidth)
    return cl.run()


def steps(log):
    """Accepted members per update (records grouped by apply time), and the dropped records."""
    by_t = {}
    for r in log.syncs:
        if r.weights is not None and r.weights[0] > 0:
            by_t.setdefault(r.apply, []).extend(r.members)
    dropped = [r for r in log.syncs if r.weights == (0.0,)]
    return [sorted(by_t[t]) for t in sorted(by_t)], dropped


@pytest.mark.parametrize("servers, server_bw, expected", [
    # n = 4 pushes share the one server's downlink: 4 M / B, then 4 pulls share its uplink: 4 M / B
    (1, B, 2 * 4 * M / B),
    # two servers, half the model each: every server port carries 4 flows of M/2: 2 M / B per phase
    (2, B, 2 * 2 * M / B),
    # a server at half the workers' bandwidth: 4 M / (B/2) per phase
    (1, B / 2, 2 * 8 * M / B),
    # a server 8x faster than the workers: the workers' own ports (M / B) are the bottleneck
    (1, 8 * B, 2 * M / B),
])
def test_bsp_round_time_on_the_flow_engine_equals_the_closed_form(servers, server_bw, expected):
    alpha = 1e-3
    log = run([[1.0]] * 4, duration=20.0, alpha=alpha, servers=servers, server_bandwidth=server_bw)
    assert len(log.syncs) == 4
    for r in log.syncs:
        assert r.launch == 1.0
        assert r.finish - r.launch == pytest.approx(expected + 2 * alpha, rel=1e-12)
        assert r.apply - r.launch == pytest.approx(expected / 2 + alpha, rel=1e-12)
    assert expected + 2 * alpha == pytest.approx(push_pull_time(4, M, B, server_bw, servers, alpha), rel=1e-12)


def test_topology_adds_server_hosts_after_the_workers():
    topo = ps_topology([1.0, 2.0, 3.0], servers=2)
    assert topo.n == 5 and list(topo.ingress) == [1.0, 2.0, 3.0, 3.0, 3.0]
    assert list(ps_topology([1.0, 2.0], 1, server_bandwidth=7.0).egress) == [1.0, 2.0, 7.0]
    log = run([[1.0]] * 3, servers=2)
    assert log.n == 3 and len(log.bandwidth) == 3


def test_backup_workers_drop_exactly_the_slowest_gradient_of_each_step():
    """4 workers, 1 backup; worker 3 is the slowest (2.5 s against 1.0-1.2 s), the model tiny: every step
    aggregates workers 0-2 with weight 1/3 and every gradient of worker 3 arrives after its version's step
    closed and is dropped (it then pulls at once)."""
    times = [[1.0] * 20, [1.1] * 20, [1.2] * 20, [2.5] * 20]
    log = run(times, backups=1, model_bits=1.0)
    accepted, dropped = steps(log)
    assert len(accepted) == 8 and all(a == [0, 1, 2] for a in accepted)    # steps close at ~1.2, 2.4, ..., 9.6
    assert [r.members for r in dropped] == [(3,)] * 3                      # worker 3 ends at ~2.5, 5.0, 7.5
    assert log.counters["dropped_gradients"] == 3
    assert all(r.weights == (1 / 3,) for r in log.syncs if r.weights and r.weights[0] > 0)
    for r in dropped:                                                      # dropped on arrival, pulled at once
        assert r.apply == pytest.approx(r.launch, abs=1e-6)
    # the knob: without backups (BSP) every step waits for worker 3 and takes all four gradients
    accepted, dropped = steps(run(times, backups=0, model_bits=1.0))
    assert accepted == [[0, 1, 2, 3]] * 3 and dropped == []                # steps close at ~2.5, 5.0, 7.5


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 7), data=st.data())
def test_every_step_takes_n_minus_b_fresh_gradients(seed, n, data):
    b = data.draw(st.integers(0, n - 1))
    ct = ComputeTimes(lambda rng, k: rng.uniform(0.5, 2.0, k), n, np.random.SeedSequence(seed))
    ctrl = ParameterServerController("sync", backups=b)
    log = ps_cluster([B] * n, ct, ctrl, model_bits=1e8, alpha=1e-3, duration=15.0).run()
    stale = gradient_staleness(log)[:, 0]
    accepted, dropped = steps(log)
    assert all(len(a) == n - b and len(set(a)) == n - b for a in accepted)
    applied = [r for r in log.syncs if r.weights is not None]
    assert all(s == 0 for r, s in zip(log.syncs, stale) if r.weights and r.weights[0] > 0)
    assert all(s > 0 for r, s in zip(log.syncs, stale) if r.weights == (0.0,))   # only stale gradients drop
    assert len(applied) == len(accepted) * (n - b) + len(dropped)
    if b == 0:
        assert dropped == []


def test_asp_staleness_on_a_hand_worked_two_worker_schedule():
    """Worker 0 computes 1 s, worker 1 2.6 s, transfers ~1 ns.  Pushes arrive at 1, 2, 2.6, 3, 4, 5, 5.2, 6;
    worker 0 pulls the version its own push made, worker 1 at 2.6 pulls version 3:
    computed-on versions 0, 1, 0, 2, 4, 5, 3, 6; staleness (updates applied since) 0, 0, 2, 1, 0, 0, 3, 1."""
    log = run([[1.0] * 10, [2.6] * 10], mode="async", model_bits=1.0, duration=6.5)
    recs = sorted((r for r in log.syncs if r.weights is not None), key=lambda r: r.apply)
    assert [r.members[0] for r in recs] == [0, 0, 1, 0, 0, 0, 1, 0]
    assert [r.versions[0] for r in recs] == [0, 1, 0, 2, 4, 5, 3, 6]
    stale = {id(r): s for r, s in zip(log.syncs, gradient_staleness(log)[:, 0])}
    assert [stale[id(r)] for r in recs] == [0, 0, 2, 1, 0, 0, 3, 1]
    assert all(r.weights == (1.0,) for r in recs)                          # ASP: every push at full step
    assert len(update_times(log)) == 8
    # HETE: factor 1 / (staleness + c); the constant changes it
    for c in (1.0, 2.0):
        hete = run([[1.0] * 10, [2.6] * 10], mode="async", hete_c=c, model_bits=1.0, duration=6.5)
        recs = sorted((r for r in hete.syncs if r.weights is not None), key=lambda r: r.apply)
        assert [r.weights[0] for r in recs] == pytest.approx([1 / (s + c) for s in [0, 0, 2, 1, 0, 0, 3, 1]])


def test_unfinished_push_is_not_applied_and_bad_arguments_are_refused():
    log = run([[1.0], [1.0]], mode="async", model_bits=B * 10, duration=5.0)   # pushes take 20 s
    assert all(r.weights is None and r.apply is None for r in log.syncs)
    with pytest.raises(ValueError, match="backups"):
        run([[1.0]] * 3, backups=3)
    with pytest.raises(ValueError, match="hete_c"):
        ParameterServerController("async", hete_c=0.0)
    with pytest.raises(ValueError, match="hete_c"):
        ParameterServerController("sync", hete_c=1.0)
    for kw in (dict(mode="sync"), dict(mode="async", hete_c=1.0)):
        with pytest.raises(ValueError, match="asp_factor"):
            ParameterServerController(asp_factor=0.5, **kw)
    with pytest.raises(ValueError, match="asp_factor"):
        ParameterServerController("async", asp_factor=2.0)
    # 0 would apply no push at all: the range is (0, 1], open at 0 (the edge a mutation lo_open=False passes)
    for bad in (0.0, -0.0, -1e-300):
        with pytest.raises(ValueError, match=r"asp_factor must be in \(0.0, 1.0\], got"):
            ParameterServerController("async", asp_factor=bad)
    assert ParameterServerController("async", asp_factor=1e-300).asp_factor == 1e-300
    with pytest.raises(ValueError, match="mode"):
        ParameterServerController("ssp")
    with pytest.raises(ValueError, match="servers"):
        ps_topology([1.0], servers=0)


@settings(max_examples=15, deadline=None)
@given(mode=st.sampled_from(["bsp", "bk", "asp"]), servers=st.integers(2, 5), seed=st.integers(0, 10_000),
       server_factor=st.sampled_from([0.5, 1.0, 3.0]))
def test_merged_servers_give_the_sharded_schedule(mode, servers, seed, server_factor):
    """PS1: s equal servers simulated as one host of s times their bandwidth (whole-model flows) give
    the same launches, applies and finishes as s sharded servers, with heterogeneous workers."""
    rng = np.random.default_rng(seed)
    n = 5
    bw = list(rng.uniform(0.5, 2.0, n) * B)
    times = [list(rng.uniform(0.5, 2.0, 12)) for _ in range(n)]
    kw = dict(sync=dict(mode="sync"), bsp=dict(mode="sync"), bk=dict(mode="sync", backups=2),
              asp=dict(mode="async"))[mode]
    logs = [ps_cluster(bw, ScriptedComputeTimes(times), ParameterServerController(**kw), model_bits=M, alpha=1e-3,
                       duration=8.0, servers=servers, server_bandwidth=server_factor * B, merge_servers=m).run()
            for m in (True, False)]
    a, b = ([(r.members, r.launch, r.apply, r.finish, r.weights, r.versions) for r in lg.syncs] for lg in logs)
    assert len(a) == len(b) and [x[0] for x in a] == [x[0] for x in b]
    assert [x[4:] for x in a] == [x[4:] for x in b]
    for x, y in zip(a, b):
        for u, v in zip(x[1:4], y[1:4]):
            assert (u is None and v is None) or u == pytest.approx(v, rel=1e-9, abs=1e-12)
    assert [list(e) for e in logs[0].compute_end] == [pytest.approx(list(e), rel=1e-9) for e in logs[1].compute_end]


def test_a_pull_goes_over_the_servers_uplink_beside_a_push_on_its_downlink():
    """PS ASP, one server, all ports B: worker 0 pushes at 1.0 s (arrives 1.8) and is pulled 1.8-2.6 s while
    worker 1 pushes 1.8-2.6 s.  A pull uses the server's uplink and a push its downlink, so both take M / B;
    a pull sent over the push direction would share the downlink, each at B / 2, and end at 3.4 s (BSP's
    rounds never overlap a pull with a push, so their timing does not test this)."""
    log = run([[1.0], [1.8]], mode="async", duration=10.0)
    by_worker = {r.members: r for r in log.syncs}
    assert (by_worker[(0,)].launch, by_worker[(0,)].finish) == pytest.approx((1.0, 2.6), abs=1e-9)
    assert (by_worker[(1,)].launch, by_worker[(1,)].finish) == pytest.approx((1.8, 3.4), abs=1e-9)


def test_server_apply_time_queues_pushes_one_at_a_time():
    """PS7 by hand: 3 workers computing 1 s, transfers ~1 ns, apply 0.2 s per push.  BSP: the three pushes
    arrive at 1 s and are applied at 1.2, 1.4, 1.6 s; the step closes at 1.6 s, everyone pulls then.
    ASP: the same pushes are three updates at 1.2, 1.4, 1.6 s, each worker pulling after its own."""
    bsp = run([[1.0] * 3] * 3, model_bits=1.0, duration=1.9, apply_s=0.2)
    assert sorted(r.apply for r in bsp.syncs if r.weights) == pytest.approx([1.6] * 3)
    assert list(update_times(bsp)) == pytest.approx([1.6])
    asp = run([[1.0] * 3] * 3, mode="async", model_bits=1.0, duration=1.9, apply_s=0.2)
    assert list(update_times(asp)) == pytest.approx([1.2, 1.4, 1.6])
    # a worker pulls after its own push is applied, so it computes again from then: 2.2, 2.4, 2.6 s
    again = run([[1.0] * 3] * 3, mode="async", model_bits=1.0, duration=2.9, apply_s=0.2)
    assert sorted(e[1] for e in again.compute_end) == pytest.approx([2.2, 2.4, 2.6], abs=1e-6)
    # no apply time: all three at 1 s (the default; PS1's instant server)
    assert list(update_times(run([[1.0] * 3] * 3, mode="async", model_bits=1.0, duration=1.9))) == \
        pytest.approx([1.0], abs=1e-6)
    with pytest.raises(ValueError, match="apply_s"):
        ParameterServerController(apply_s=-1.0)


def test_a_stale_gradient_costs_no_apply_time():
    """PS2 + PS7: BK with b = 1 of 2 workers (1 s and 1.5 s), apply 0.3 s.  Worker 0's push (1 s) closes
    step 0 at 1.3 s; worker 1's (1.5 s, computed on version 0) is dropped on arrival: its factor 0 at 1.5 s,
    not queued, so worker 0's next push (2.3 s) is applied at 2.6 s."""
    log = run([[1.0] * 5, [1.5] * 5], backups=1, model_bits=1.0, duration=2.8, apply_s=0.3)
    got = sorted((round(r.apply, 6), r.members[0], r.weights[0]) for r in log.syncs if r.weights is not None)
    assert got == [(1.3, 0, 1.0), (1.5, 1, 0.0), (2.6, 0, 1.0)]


@pytest.mark.parametrize("mode, kw, mean_factor", [("sync", {}, 1 / 3), ("sync", {"backups": 1}, 1 / 2)])
def test_ps_step_mean_averages_and_sum_adds_every_gradient(mode, kw, mean_factor):
    """PS8: a synchronous step's factors are 1/(n-b) under "mean" and 1 under "sum"."""
    for step, factor in (("mean", mean_factor), ("sum", 1.0)):
        log = run([[1.0, 1.1, 1.2]] * 3, mode=mode, model_bits=1.0, duration=3.0, step=step, **kw)
        used = sorted({r.weights[0] for r in log.syncs if r.weights is not None and r.weights[0] > 0})
        assert used == pytest.approx([factor])
    with pytest.raises(ValueError, match="step"):
        ParameterServerController(step="median")


def test_backup_steps_close_at_the_fifth_fastest_of_eight_so_they_feel_the_spread():
    """Issue 42 item 1d by hand: 8 workers, 3 backups (002 §5.2.1: 5 of 8), a tiny model.  First steps of
    1.0, 1.1, ..., 1.7 s, then 1 s each: BK's step 0 closes at the 5th fastest push (1.4 s), workers 0-4
    pull and push again at 2.4 s (step 1); the 3 late ones are dropped at 1.5-1.7 s and their next pushes
    (2.5-2.7 s) are stale.  BSP waits for the slowest: 1.7 s and 2.7 s.  Without the spread (every step
    1 s) both close at 1 s and 2 s: BK's per-update time grows with the spread, by its 5th order statistic."""
    spread = [[1.0 + 0.1 * w] + [1.0] * 9 for w in range(8)]
    flat = [[1.0] * 10 for _ in range(8)]
    t = dict(model_bits=1.0, duration=2.95)
    assert list(update_times(run(spread, backups=3, **t))) == pytest.approx([1.4, 2.4], abs=1e-6)
    assert list(update_times(run(spread, backups=0, **t))) == pytest.approx([1.7, 2.7], abs=1e-6)
    assert list(update_times(run(flat, backups=3, **t))) == pytest.approx([1.0, 2.0], abs=1e-6)
