"""The replay's update rules for seed 002's baselines (RP12, decisions PS1-PS4, AD1, ER1-ER2):
gradient aggregation with staleness (PS ASP/HETE, Eager-Reduce), drop the stragglers (PS BK),
model averaging (AD-PSGD), and the invariant that BSP, all reduce and partial reduce with P = n
reach the same model when nothing is heterogeneous."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.core.topology import BigSwitch
from simlib.runtime.baselines import AllReduceController, PartialReduceController
from simlib.runtime.cluster import Cluster, ScriptedComputeTimes
from simlib.runtime.decentralized import EagerReduceController, WholeRing
from simlib.runtime.log import ScheduleLog, SyncRecord
from simlib.runtime.metrics import update_times
from simlib.runtime.parameter_server import ParameterServerController, ps_cluster
from simlib.training.learning import load_problem
from simlib.training.replay import Numerics, StepRule, minibatch_indices, replay

PROBLEM = load_problem("blobs")


class Pull:
    """Toy model: loss ½‖x − target‖², target 1 (``by_batch``: the batch's mean label), so a step of
    size lr moves x a fraction lr of the way to the target; d = 1."""

    def __init__(self, by_batch=False):
        self.by_batch = by_batch

    def init(self, rng):
        return np.zeros(1)

    def grad(self, P, X, y):
        target = y.mean(axis=1, keepdims=True) if self.by_batch else 1.0
        return P - target

    def loss_acc(self, x, X, y):
        return float(((x - 1.0) ** 2).sum()), 0.0


def ps(times, mode="sync", duration=10.0, **kw):
    ctrl = ParameterServerController(mode, **kw)
    return ps_cluster([1e9] * len(times), ScriptedComputeTimes(times), ctrl, model_bits=1.0, alpha=0.0,
                      duration=duration).run()


def test_asp_replay_applies_stale_gradients_on_a_hand_worked_schedule():
    """The 2-worker ASP schedule of test_parameter_server (pushes computed on versions 0, 1, 0, 2, 4, 5, 3, 6),
    lr 0.5, gradient x_v - 1 on the version v it was computed on: x = 0, .5, .75, 1.25, 1.375, 1.1875,
    1.09375, .96875, .921875 — the stale pushes (on v0 at the third, on v3 at the seventh) overshoot."""
    log = ps([[1.0] * 10, [2.6] * 10], mode="async", duration=6.5)
    res = replay(log, PROBLEM, model=Pull(), lr=0.5, eval_every_s=0.5, seed=0)
    assert res.final_model == pytest.approx([0.921875], abs=1e-15)
    assert res.curve["syncs"].iloc[-1] == 8 == len(update_times(log))
    assert res.curve.set_index("time_s").loc[2.5, "syncs"] == 2                   # updates at 1 and 2 so far
    # HETE: each push scaled by 1 / (staleness + c); the same recurrence with those factors
    for c in (1.0, 3.0):
        hete = ps([[1.0] * 10, [2.6] * 10], mode="async", hete_c=c, duration=6.5)
        xs = [0.0]
        for v, tau in zip([0, 1, 0, 2, 4, 5, 3, 6], [0, 0, 2, 1, 0, 0, 3, 1]):
            xs.append(xs[-1] - 0.5 / (tau + c) * (xs[v] - 1.0))
        got = replay(hete, PROBLEM, model=Pull(), lr=0.5, seed=0).final_model
        assert got == pytest.approx([xs[-1]], abs=1e-15)
        assert abs(xs[-1] - 0.921875) > 0.01


def test_backup_replay_drops_the_stragglers_gradients():
    """4 workers, 1 backup, worker 3 always late: every step averages three gradients computed on the
    current model, so after K steps x = 1 - (1 - lr)^K; worker 3's stale gradients (on older, smaller x)
    would pull x further if they counted."""
    times = [[1.0] * 20, [1.1] * 20, [1.2] * 20, [2.5] * 20]
    log = ps(times, backups=1)
    res = replay(log, PROBLEM, model=Pull(), lr=0.5, seed=0)
    assert res.curve["syncs"].iloc[-1] == 8
    assert res.final_model == pytest.approx([1 - 0.5 ** 8], abs=1e-15)
    for r in log.syncs:                                  # pulled models are the server's after each step
        if r.weights and r.weights[0] > 0 and r.finish is not None:
            assert r.targets is None


def test_adpsgd_pair_average_on_three_workers():
    """A hand-made AD-PSGD log as the controller writes it (AD1-AD2, RP13).  Worker 0 ends steps at 1 and 2 s,
    worker 1 at 1.5 s, worker 2 at 2.5 s.  At 1 s worker 0 averages with worker 1 (computing), at 2 s with
    worker 2 (computing): each record sits before worker 0's step in its chain and lists both as computing.
    Toy loss ½(x - m)², m the batch's mean label, lr 0.5, replicas start at 0.  By Lian et al. Alg. 1:
    average, then each step applies the gradient taken on the replica its worker read when it started.
      1 s:   g0 = 0 - m00, g1 = 0 - m10 (taken now); x0 = x1 = 0; x0 -= g0/2: x0 = m00/2
      1.5 s: x1 -= g1/2: x1 = m10/2
      2 s:   g0' = m00/2 - m01, g2 = 0 - m20; x0 = x2 = m00/4; x0 -= g0'/2: x0 = m01/2
      2.5 s: x2 -= g2/2: x2 = m00/4 + m20/2  (taken at its end instead: m00/8 + m20/2)"""
    log = ScheduleLog(n=3, duration=3.0, bandwidth=np.ones(3), compute_end=[[1.0, 2.0], [1.5], [2.5]])
    log.syncs += [SyncRecord(1.0, (0, 1), (0, 0), kind="adpsgd", finish=1.2, computing=(0, 1)),
                  SyncRecord(2.0, (0, 2), (1, 0), kind="adpsgd", finish=2.2, computing=(0, 2))]
    m = [PROBLEM.y_train[minibatch_indices(3, w, PROBLEM.y_train.size, 32, 2)].mean(axis=1) for w in range(3)]
    expected = [m[0][1] / 2, m[1][0] / 2, m[0][0] / 4 + m[2][0] / 2]
    for one in (False, True):
        res = replay(log, PROBLEM, model=Pull(by_batch=True), lr=0.5, seed=3, numerics=Numerics(one_at_a_time=one))
        assert res.final_params[:, 0] == pytest.approx(expected, abs=1e-15)
    # without `computing`, every gradient is taken at its step's end, on the averaged replica
    for r in log.syncs:
        r.computing = None
    plain = replay(log, PROBLEM, model=Pull(by_batch=True), lr=0.5, seed=3).final_params[:, 0]
    assert plain[2] == pytest.approx(m[0][0] / 8 + m[2][0] / 2, abs=1e-15)
    log.syncs[0].computing = (2,)
    with pytest.raises(ValueError, match="computing"):
        replay(log, PROBLEM, model=Pull(by_batch=True))


def test_eager_reduce_replay_aggregates_with_factor_one_over_n():
    """n = 4, majority rounds of the hand-worked schedule in test_decentralized: rounds {0,1,2} at 1.2 and
    2.4 (gradients on the current model), round 3 at 3.5 takes worker 3's gradient on version 0 and
    workers 0 and 1's on version 2; factor 1/4 each, lr 1: x1 = 3/4, x2 = x1 + 3/4 (1 - x1), x3 = x2 +
    1/4 (1 - 0) + 2/4 (1 - x2)."""
    times = [[1.0] * 9, [1.1] * 9, [1.2] * 9, [2.5] * 9]
    cl = Cluster(BigSwitch.symmetric([1e9] * 4), WholeRing(1.0, 0.0), ScriptedComputeTimes(times),
                 EagerReduceController("majority"), duration=3.55)
    res = replay(cl.run(), PROBLEM, model=Pull(), lr=1.0, seed=0)
    x1 = 0.75
    x2 = x1 + 0.75 * (1 - x1)
    x3 = x2 + 0.25 * 1.0 + 0.5 * (1 - x2)
    assert res.final_model == pytest.approx([x3], abs=1e-15)
    assert res.curve["syncs"].iloc[-1] == 3


@settings(max_examples=12, deadline=None)
@given(n=st.integers(2, 5), seed=st.integers(0, 999), c=st.floats(0.5, 1.5), lr=st.sampled_from([0.1, 0.3, 1.0]))
def test_bsp_all_reduce_and_partial_reduce_with_p_n_reach_the_same_model(n, seed, c, lr):
    """No heterogeneity (every worker computes c s per step), P = n: the three schemes take the same
    gradients (worker w's k-th minibatch on the model after k - 1 rounds) and average them, so they reach
    the same model after every round (to rounding), seen by the evaluations half-way between rounds (all
    reduce applies a round at its launch, RP2; the server when the last push arrives, PS4)."""
    times = [[c] * 20] * n
    kw = dict(model_bits=1.0, alpha=0.0, duration=7.5 * c)
    logs = [Cluster.big_switch([1e9] * n, ScriptedComputeTimes(times), AllReduceController(), **kw).run(),
            Cluster.big_switch([1e9] * n, ScriptedComputeTimes(times), PartialReduceController(n), **kw).run(),
            ps_cluster([1e9] * n, ScriptedComputeTimes(times), ParameterServerController("sync"), **kw).run()]
    res = [replay(log, PROBLEM, model="softmax", lr=lr, eval_every_s=c / 2, seed=seed) for log in logs]
    assert [r.curve["syncs"].iloc[-1] for r in res] == [7, 7, 7]
    np.testing.assert_array_equal(res[0].final_model, res[1].final_model)
    np.testing.assert_allclose(res[2].final_model, res[0].final_model, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res[2].curve["test_loss"][1::2], res[0].curve["test_loss"][1::2], rtol=1e-9)
    assert res[0].curve["test_loss"].iloc[-1] < res[0].curve["test_loss"].iloc[0]


def test_gradient_replay_is_the_same_one_step_at_a_time_and_checks_its_log():
    log = ps([[1.0, 0.7, 1.3] * 5, [1.1, 0.9] * 8, [2.5] * 6], mode="async")
    a = replay(log, PROBLEM, model="softmax", lr=0.3, seed=1)
    b = replay(log, PROBLEM, model="softmax", lr=0.3, seed=1, numerics=Numerics(one_at_a_time=True))
    np.testing.assert_array_equal(a.final_model, b.final_model)
    assert a.grad_calls < b.grad_calls
    log.syncs[0].init_weight = 0.5
    with pytest.raises(ValueError, match="init_weight"):
        replay(log, PROBLEM, model="softmax")
    log.syncs[0].init_weight = 0.0
    log.syncs[0].apply = log.syncs[0].launch - 0.1
    with pytest.raises(ValueError, match="apply"):
        replay(log, PROBLEM, model="softmax")
    log.update_rule = "median"
    with pytest.raises(ValueError, match="update_rule"):
        replay(log, PROBLEM, model="softmax")


def test_unfinished_drop_keeps_the_server_update_but_not_the_pull():
    """BSP, 2 workers computing 1 s, 0.3 s per transfer alone: both pushes share the server's downlink and
    arrive at 1.6 s, where the step is applied; the pulls would end at 2.2 s, but the run stops at 1.7 s."""
    log = ps_cluster([1e9] * 2, ScriptedComputeTimes([[1.0] * 3] * 2), ParameterServerController("sync"),
                     model_bits=3e8, alpha=0.0, duration=1.7).run()
    assert all(r.apply == pytest.approx(1.6) and r.finish is None for r in log.syncs)
    keep = replay(log, PROBLEM, model=Pull(), lr=0.5, seed=0)
    drop = replay(log, PROBLEM, model=Pull(), lr=0.5, seed=0, unfinished="drop")
    assert keep.final_model == pytest.approx([0.5]) and drop.final_model == pytest.approx([0.5])
    assert keep.final_params[:, 0] == pytest.approx([0.5, 0.5]) and drop.final_params[:, 0] == pytest.approx([0, 0])


@settings(max_examples=15, deadline=None)
@given(scheme=st.sampled_from(["eager", "adpsgd", "adpsgd-atomic", "ps-bsp", "ps-asp", "ps-hete", "ps-backup"]),
       seed=st.integers(0, 2**32 - 1), n=st.integers(4, 9), hl=st.integers(1, 3))
def test_every_baseline_log_replays_the_same_batched_and_one_step_at_a_time(scheme, seed, n, hl):
    """Random runs of each baseline (heterogeneous, model in flight long enough for overlaps; AD-PSGD also
    with AD4's locks, whose exchanges wait): the log is consistent for the replay, batching changes
    nothing, and the curve's update count is the log's."""
    from simlib.papers.cluster_scenario import Scenario, simulate

    extra = {"ad_atomic": True, "ad_passive": "block"} if scheme == "adpsgd-atomic" else {}
    sc = Scenario.from_params(dict(scheme=scheme.replace("-atomic", ""), n=n, hl=hl, backups=1, bandwidth_gbps=1.0,
                                   model_mb=20.0, trace="cnn", duration_s=15.0, **extra))
    log = simulate(sc, seed)
    a = replay(log, PROBLEM, model="softmax", lr=0.3, seed=seed % 97)
    b = replay(log, PROBLEM, model="softmax", lr=0.3, seed=seed % 97, numerics=Numerics(one_at_a_time=True))
    np.testing.assert_array_equal(a.final_model, b.final_model)
    np.testing.assert_array_equal(a.final_params, b.final_params)
    if log.update_rule == "gradient":
        assert a.curve["syncs"].iloc[-1] == len(update_times(log))
    else:
        assert a.curve["syncs"].iloc[-1] == len(log.syncs)


def test_an_update_exactly_at_an_evaluation_time_is_in_that_evaluation():
    """RP6: the state at t includes every event at time <= t.  PS ASP, one worker: compute 0.5 s, a push of
    5e8 bits at 1 Gbps (0.5 s) applied at exactly t = 1.0, an evaluation time (eval_every_s = 1): the row at
    1.0 counts the update and evaluates x = 0.5 (lr 0.5 on ½(x - 1)² from 0), loss 0.25."""
    log = ps_cluster([1e9], ScriptedComputeTimes([[0.5, 10.0]]), ParameterServerController("async"),
                     model_bits=5e8, alpha=0.0, duration=2.0).run()
    assert [r.apply for r in log.syncs] == [1.0]
    curve = replay(log, PROBLEM, model=Pull(), lr=0.5, eval_every_s=1.0, seed=0).curve.set_index("time_s")
    assert curve.loc[0.0, "syncs"] == 0 and curve.loc[0.0, "test_loss"] == 1.0
    assert curve.loc[1.0, "syncs"] == 1 and curve.loc[1.0, "test_loss"] == pytest.approx(0.25, abs=1e-15)


# ---------------------------------------------------------------- fresh gradients (RP20)
def test_fresh_asp_takes_every_push_on_the_current_model():
    """The hand-worked ASP schedule above replayed with fresh gradients: every push x_k - 1 on the current
    x, so x_{k+1} = x_k + 0.5 (1 - x_k) and after 8 pushes x = 1 - 0.5^8 (stale: 0.921875); HETE keeps its
    logged factors 1 / (τ + 1) but takes them on the current model too."""
    log = ps([[1.0] * 10, [2.6] * 10], mode="async", duration=6.5)
    fresh = replay(log, PROBLEM, model=Pull(), lr=0.5, eval_every_s=0.5, seed=0, steps=StepRule(fresh_gradients=True))
    assert fresh.final_model == pytest.approx([1 - 0.5 ** 8], abs=1e-15)
    stale = replay(log, PROBLEM, model=Pull(), lr=0.5, eval_every_s=0.5, seed=0)
    assert fresh.curve["syncs"].tolist() == stale.curve["syncs"].tolist()            # same updates, same times
    assert fresh.curve["iterations"].tolist() == stale.curve["iterations"].tolist()
    hete = ps([[1.0] * 10, [2.6] * 10], mode="async", hete_c=1.0, duration=6.5)
    x = 0.0
    for tau in [0, 0, 2, 1, 0, 0, 3, 1]:
        x += 0.5 / (tau + 1.0) * (1.0 - x)
    assert replay(hete, PROBLEM, model=Pull(), lr=0.5, seed=0, steps=StepRule(fresh_gradients=True)).final_model == \
        pytest.approx([x], abs=1e-15)


def test_fresh_eager_reduce_round_takes_the_late_gradient_on_the_current_model():
    """The Eager-Reduce schedule above: round 3 takes worker 3's gradient (stale: on version 0, 1 - 0) on
    x2 instead, so x3 = x2 + 3/4 (1 - x2)."""
    times = [[1.0] * 9, [1.1] * 9, [1.2] * 9, [2.5] * 9]
    cl = Cluster(BigSwitch.symmetric([1e9] * 4), WholeRing(1.0, 0.0), ScriptedComputeTimes(times),
                 EagerReduceController("majority"), duration=3.55)
    x1 = 0.75
    x2 = x1 + 0.75 * (1 - x1)
    res = replay(cl.run(), PROBLEM, model=Pull(), lr=1.0, seed=0, steps=StepRule(fresh_gradients=True))
    assert res.final_model == pytest.approx([x2 + 0.75 * (1 - x2)], abs=1e-15)


@settings(max_examples=8, deadline=None)
@given(scheme=st.sampled_from(["ps-bsp", "ps-backup"]), seed=st.integers(0, 2**32 - 1), n=st.integers(4, 8),
       hl=st.integers(1, 3))
def test_fresh_gradients_change_nothing_where_no_gradient_is_stale(scheme, seed, n, hl):
    """PS BSP and BK apply only gradients computed on the current version (BK drops the stale ones, PS2),
    so the fresh replay equals the logged one (to rounding: the gradients are batched differently);
    ASP on the same cluster has stale pushes, and there the two differ."""
    from simlib.papers.cluster_scenario import Scenario, simulate
    from simlib.runtime.metrics import gradient_staleness

    kw = dict(n=n, hl=hl, backups=1, bandwidth_gbps=1.0, model_mb=20.0, trace="cnn", duration_s=12.0)
    log = simulate(Scenario.from_params(dict(kw, scheme=scheme)), seed)
    tau = gradient_staleness(log)
    applied = np.array([r.weights is not None and any(r.weights) for r in log.syncs])
    assert np.nansum(tau[applied]) == 0
    a = replay(log, PROBLEM, model="softmax", lr=0.3, seed=seed % 97)
    b = replay(log, PROBLEM, model="softmax", lr=0.3, seed=seed % 97, steps=StepRule(fresh_gradients=True))
    np.testing.assert_allclose(b.final_model, a.final_model, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(b.curve["test_loss"], a.curve["test_loss"], rtol=1e-9)
    asp = simulate(Scenario.from_params(dict(kw, scheme="ps-asp")), seed)
    if np.nansum(gradient_staleness(asp)) > 0:
        c = replay(asp, PROBLEM, model="softmax", lr=0.3, seed=seed % 97)
        d = replay(asp, PROBLEM, model="softmax", lr=0.3, seed=seed % 97, steps=StepRule(fresh_gradients=True))
        assert np.abs(c.final_model - d.final_model).max() > 1e-9


def test_fresh_gradients_are_refused_for_model_averaging_and_non_bools():
    avg = Cluster.big_switch([1e9] * 2, ScriptedComputeTimes([[1.0] * 3] * 2), AllReduceController(),
                             model_bits=1.0, alpha=0.0, duration=2.5).run()
    with pytest.raises(ValueError, match="fresh_gradients applies to logs with update rule 'gradient'"):
        replay(avg, PROBLEM, model=Pull(), steps=StepRule(fresh_gradients=True))
    with pytest.raises(ValueError, match="fresh_gradients must be a bool"):
        StepRule(fresh_gradients="yes")


# ---------------------------------------------------------------- momentum (RP21)
def test_server_momentum_is_one_step_per_update_on_hand_worked_schedules():
    """BSP, 2 workers computing 1 s: every step averages x - 1 twice (two records at one instant), so with
    μ = 0.9 and lr 0.5: v <- μ v + (x - 1), x <- x - 0.5 v, once per step (not once per record). The ASP
    schedule above: the same recurrence per push with each push's gradient on its logged version."""
    log = ps([[1.0] * 8] * 2, duration=4.5)
    x, v, steps = 0.0, 0.0, len({r.apply for r in log.syncs if r.weights})
    for _ in range(steps):
        v = 0.9 * v + (x - 1.0)
        x -= 0.5 * v
    got = replay(log, PROBLEM, model=Pull(), lr=0.5, seed=0, steps=StepRule(momentum=0.9))
    assert got.final_model == pytest.approx([x], abs=1e-12) and steps >= 3
    asp = ps([[1.0] * 10, [2.6] * 10], mode="async", duration=6.5)
    xs, v = [0.0], 0.0
    for ver in [0, 1, 0, 2, 4, 5, 3, 6]:
        v = 0.9 * v + (xs[ver] - 1.0)
        xs.append(xs[-1] - 0.5 * v)
    assert replay(asp, PROBLEM, model=Pull(), lr=0.5, seed=0, steps=StepRule(momentum=0.9)).final_model == \
        pytest.approx([xs[-1]], abs=1e-12)
    assert replay(asp, PROBLEM, model=Pull(), lr=0.5, seed=0, steps=StepRule(momentum=0.0)).final_model == \
        pytest.approx([0.921875], abs=1e-15)                                    # μ = 0: plain SGD, as before


def test_replica_momentum_on_one_worker_and_the_velocity_survives_a_sync():
    """One worker, no syncs: the heavy-ball recurrence. Two workers: worker 0 steps at 1 and 2 s, averages
    with worker 1 (still at 0) at 2.5 s and steps again at 3 s with its velocity kept (μ = 0.8, lr 0.3,
    gradient x - 1): x0 = 0.3, 0.75, then both 0.375, then v0 = 0.8 (-1.5) - 0.625, x0 = 0.9225."""
    one = ScheduleLog(n=1, duration=5.5, bandwidth=np.array([1e9]), compute_end=[[1.0, 2.0, 3.0, 4.0, 5.0]])
    x, v = 0.0, 0.0
    for _ in range(5):
        v = 0.8 * v + (x - 1.0)
        x -= 0.3 * v
    assert replay(one, PROBLEM, model=Pull(), lr=0.3, seed=0,
                  steps=StepRule(momentum=0.8)).final_model == pytest.approx([x])
    two = ScheduleLog(n=2, duration=3.5, bandwidth=np.array([1e9] * 2), compute_end=[[1.0, 2.0, 3.0], []],
                      syncs=[SyncRecord(members=(0, 1), iterations=(2, 0), launch=2.5, finish=2.6)])
    got = replay(two, PROBLEM, model=Pull(), lr=0.3, seed=0, steps=StepRule(momentum=0.8)).final_params[:, 0]
    assert got == pytest.approx([0.9225, 0.375], abs=1e-12)
    with pytest.raises(ValueError, match=r"momentum must be in \[0.0, 1.0\)"):
        StepRule(momentum=1.0)
    with pytest.raises(ValueError, match="l2"):
        StepRule(l2=-1.0)
    with pytest.raises(ValueError, match="steps must be a StepRule"):
        replay(one, PROBLEM, model=Pull(), steps=0.8)


@settings(max_examples=10, deadline=None)
@given(n=st.integers(2, 5), seed=st.integers(0, 999), mu=st.sampled_from([0.5, 0.9]))
def test_all_reduce_with_replica_momentum_equals_bsp_with_server_momentum(n, seed, mu):
    """Homogeneous workers: all reduce averages the replicas after every step, so every gradient is taken on
    the common model and the mean of the n velocities follows v <- μ v + mean g -- the server velocity of
    PS BSP on the same steps. Two independent implementations (replica velocities + averaging vs one
    server velocity per update) give the same model after every round."""
    times = [[1.0] * 20] * n
    kw = dict(model_bits=1.0, alpha=0.0, duration=7.5)
    ar = Cluster.big_switch([1e9] * n, ScriptedComputeTimes(times), AllReduceController(), **kw).run()
    bsp = ps_cluster([1e9] * n, ScriptedComputeTimes(times), ParameterServerController("sync"), **kw).run()
    a, b = (replay(log, PROBLEM, model="softmax", lr=0.1, eval_every_s=0.5, seed=seed, steps=StepRule(momentum=mu),
                   numerics=Numerics(dtype="float64")) for log in (ar, bsp))
    np.testing.assert_allclose(b.final_model, a.final_model, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(b.curve["test_loss"][1::2], a.curve["test_loss"][1::2], rtol=1e-8)
    plain = replay(ar, PROBLEM, model="softmax", lr=0.1, seed=seed, numerics=Numerics(dtype="float64"))
    assert np.abs(plain.final_model - a.final_model).max() > 1e-6                # the knob changes the run
