"""The simulated cluster and the all-reduce / partial-reduce controllers."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.runtime.cluster import Cluster, ScriptedComputeTimes
from simlib.runtime.baselines import AllReduceController, PartialReduceController
from simlib.core.costmodels import ring_allreduce_time
from simlib.runtime.metrics import sync_metrics
from simlib.papers.cluster_scenario import Scenario, run_trial, simulate

# 000 Fig. 3: five workers ready at 1, 2, 3, 3, 13 s; bandwidths 1, 5, 1, 5, 5; v = 5 units;
# alpha ~ 0; sync time 2v / min b.
FIG3_BW = [1.0, 5.0, 1.0, 5.0, 5.0]
FIG3_READY = [[1.0], [2.0], [3.0], [3.0], [13.0]]


def fig3_run(controller):
    cl = Cluster.big_switch(FIG3_BW, ScriptedComputeTimes(FIG3_READY), controller, model_bits=5.0, alpha=0.0,
                 duration=100.0, sync_model="eq2_example")
    return sync_metrics(cl.run()), cl.log


def test_fig3_all_reduce():
    m, log = fig3_run(AllReduceController())
    assert (m["avg_sync_time_s"], m["avg_sync_scale"]) == (10.0, 5.0)
    assert [(s.launch, s.finish) for s in log.syncs] == [(13.0, 23.0)]


def test_fig3_partial_reduce_p2():
    m, log = fig3_run(PartialReduceController(2))
    assert (m["avg_sync_time_s"], m["avg_sync_scale"]) == (10.0, 2.0)
    assert [s.members for s in log.syncs] == [(0, 1), (2, 3)]
    assert [s.launch for s in log.syncs] == [2.0, 3.0]


@pytest.mark.parametrize("ring_model", ["rounds", "coupled", "single"])
def test_flow_ring_models_agree_with_closed_form_inside_the_cluster(ring_model):
    """Groups on the big switch are disjoint, so flows reproduce Eq. (2) exactly."""
    base = dict(scheme="partial", n=24, duration_s=30.0, model_mb=50.0)
    flows = run_trial(dict(base, ring_model=ring_model), np.random.SeedSequence(3))
    closed = run_trial(dict(base, sync_model="eq2_exact"), np.random.SeedSequence(3))
    for k in ("avg_sync_time_s", "avg_sync_scale", "total_sync", "total_iteration"):
        assert flows[k] == pytest.approx(closed[k], rel=1e-9)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), scheme=st.sampled_from(["allreduce", "partial", "selective"]),
       n=st.integers(5, 30), p=st.sampled_from([0.1, 0.3, 0.5]))
def test_schedule_log_invariants(seed, scheme, n, p):     # n >= 5: p n >= 0.5 (E8); n = 5, p = 0.1: groups of 1
    sc = Scenario.from_params(dict(scheme=scheme, n=n, p=p, duration_s=20.0, model_mb=20.0))
    log = simulate(sc, seed)
    busy_until = np.zeros(n)
    iters = np.zeros(n, dtype=int)
    for s in sorted(log.syncs, key=lambda s: s.launch):
        assert len(set(s.members)) == len(s.members)
        if scheme == "partial":
            assert len(s.members) == sc.group_size
        if scheme == "allreduce":
            assert len(s.members) == n
        if scheme == "selective":
            assert len(s.members) >= sc.group_size
        for w, it in zip(s.members, s.iterations):
            assert busy_until[w] <= s.launch + 1e-12  # never in two syncs at once
            busy_until[w] = np.inf if s.finish is None else s.finish
            # each member finished a new local iteration since its last sync
            assert it > iters[w]
            iters[w] = it
            assert log.compute_end[w][it - 1] <= s.launch + 1e-12
        if s.finish is not None:
            exact = ring_allreduce_time(log.bandwidth[list(s.members)], sc.model_mb * 8e6, sc.alpha_s)
            assert s.finish - s.launch == pytest.approx(exact, rel=1e-9)
    m = sync_metrics(log)
    assert m["total_iteration"] == sum(len(c) for c in log.compute_end)
    assert 0.0 <= m["wasted_wait_s_per_worker"] <= sc.duration_s


def test_same_seed_same_result_and_paired_draws_across_schemes():
    a = run_trial(dict(scheme="partial", n=20, duration_s=20.0), np.random.SeedSequence(5))
    b = run_trial(dict(scheme="partial", n=20, duration_s=20.0), np.random.SeedSequence(5))
    assert a == b
    c = run_trial(dict(scheme="partial", n=20, duration_s=20.0), np.random.SeedSequence(6))
    assert c != a                                   # the seed is used
    la = simulate(Scenario.from_params(dict(scheme="partial", n=20, duration_s=20.0)), 5)
    lb = simulate(Scenario.from_params(dict(scheme="allreduce", n=20, duration_s=20.0)), 5)
    assert np.array_equal(la.bandwidth, lb.bandwidth)
    # first compute phase of every worker is the same draw under both schemes
    assert [c[0] for c in la.compute_end] == [c[0] for c in lb.compute_end]


@pytest.mark.parametrize("params, match", [
    (dict(scheme="ring"), "scheme"),
    (dict(n=1), "n"),
    (dict(p=0.0), "p"),
    (dict(eta=1.0), "eta"),
    (dict(dt_s=0.0), "dt_s"),
    (dict(lam=1.5), "lam"),
    (dict(bogus=1), "bogus"),
])
def test_bad_scenario_parameters_name_the_parameter(params, match):
    with pytest.raises(ValueError, match=match):
        Scenario.from_params(params)


def test_controller_p_larger_than_n_rejected():
    with pytest.raises(ValueError, match="p must be"):
        Cluster.big_switch([1.0, 1.0], ScriptedComputeTimes([[1.0], [1.0]]), PartialReduceController(3),
                model_bits=1.0, alpha=0.0, duration=10.0)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31), st.lists(st.integers(0, 300), min_size=1, max_size=6),
       st.sampled_from([1, 7, 64]))
def test_compute_times_take_returns_what_next_would(seed, ks, chunk):
    # take(w, k) is k calls of next(w): same values, same position in the stream after it,
    # whether the request fits in the buffered chunk or spans several refills
    from simlib.runtime.cluster import ComputeTimes

    def make():
        return ComputeTimes(lambda rng, k: rng.exponential(1.0, k), 3, np.random.SeedSequence(seed),
                            chunk=chunk, scale=[1.0, 2.5, 0.3])

    a, b = make(), make()
    for i, k in enumerate(ks):
        w = i % 3
        assert a.take(w, k).tolist() == [b.next(w) for _ in range(k)]
    assert [a.next(w) for w in range(3)] == [b.next(w) for w in range(3)]
    s = ScriptedComputeTimes([[1.0, 2.0], [3.0]])
    assert s.take(0, 3).tolist() == [1.0, 2.0, float("inf")] and s.next(1) == 3.0


class _LaunchPairOnReady:
    """A controller that launches the group (0, 1) as soon as worker ``trigger`` is ready."""

    def __init__(self, trigger):
        self.trigger = trigger
        self.cluster = None

    def attach(self, cluster):
        self.cluster = cluster

    def on_ready(self, w, compute_time):
        if w == self.trigger:
            self.cluster.launch((0, 1))

    def on_sync_done(self, record):
        pass


def _pair_cluster(trigger):
    # worker 0 is ready at 1 s, worker 1 at 3 s; bandwidth 1 each, v = 1 unit, eq2 sync time 2v / min b = 2 s
    return Cluster.big_switch([1.0, 1.0], ScriptedComputeTimes([[1.0], [3.0]]), _LaunchPairOnReady(trigger),
                              model_bits=1.0, alpha=0.0, duration=100.0, sync_model="eq2_example")


def test_launch_refuses_a_group_with_a_computing_member():
    # at 1 s worker 0 is READY but worker 1 still COMPUTING: the launch must fail naming worker 1
    with pytest.raises(ValueError, match=r"not ready: \[1\]"):
        _pair_cluster(trigger=0).run()


def test_launch_accepts_a_group_whose_members_are_all_ready():
    # at 3 s both are READY (worker 0 since 1 s): the pair syncs from 3 s to 3 + 2 s
    log = _pair_cluster(trigger=1).run()
    assert [(s.members, s.launch, s.finish) for s in log.syncs] == [((0, 1), 3.0, 5.0)]


class _ZeroCompute:
    def next(self, w):
        return 0.0

    def take(self, w, k):
        return np.zeros(k)


@pytest.mark.timeout(120)
def test_zero_compute_times_with_a_zero_cost_sync_end_with_an_error_not_a_hang():
    """Every worker ready at t = 0, syncs of 0 bits with no latency, computing again in 0 s: nothing
    ever advances the clock (issue 34: looped forever).  The cluster's limit: max(10**5, 20 n) events."""
    from simlib.core.events import NoProgressError

    cl = Cluster.big_switch([1.0, 1.0], _ZeroCompute(), AllReduceController(), model_bits=0.0, alpha=0.0,
                            duration=10.0, sync_model="eq2_exact")
    assert cl.sim.max_events_per_instant == 10**5
    with pytest.raises(NoProgressError, match=r"at t = 0.0 s .*zero compute times with a zero-cost sync"):
        cl.run()


def test_worker_view_follows_the_run_and_refuses_writes():
    """Fig. 3's run: the view taken before the run shows the phases and compute times as they change (the
    cluster's own arrays, no copy), and a controller cannot write through it."""
    from simlib.runtime.cluster import WorkerPhase

    seen = []

    class Watch(AllReduceController):
        def on_ready(self, w, elapsed):
            seen.append((w, int(view.phase[w]), float(view.compute_start[w]), float(view.compute_finish[w])))
            super().on_ready(w, elapsed)

    cl = Cluster.big_switch(FIG3_BW, ScriptedComputeTimes(FIG3_READY), Watch(), model_bits=5.0, alpha=0.0,
                            duration=100.0, sync_model="eq2_example")
    view = cl.workers()
    assert view.compute_finish.tolist() == [0.0] * 5
    cl.run()
    assert seen[0] == (0, WorkerPhase.READY, 0.0, 1.0) and seen[-1] == (4, WorkerPhase.READY, 0.0, 13.0)
    assert np.shares_memory(view.phase, cl.phase) and view.phase.tolist() == cl.phase.tolist()
    for a in view:
        with pytest.raises(ValueError, match="read-only"):
            a[0] = 1
