"""Selective reduce's turns in the compiled cluster loop (decision N14) against the Python loop, its reference:
the same log (syncs, holds, counters), worker arrays, clock, event count, weight-rule calls and controller
state, on seeded random settings and on the notebooks' own scenarios."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.papers.cluster_scenario import Scenario, build_cluster, run_metrics
from simlib.papers.selective_reduce import compiled
from simlib.papers.selective_reduce.controller import SelectiveReduceController
from simlib.papers.selective_reduce.kernels import KIND_CALLBACK
from simlib.papers.selective_reduce.progress import make_progress
from simlib.papers.selective_reduce.scenario import _bandwidth_estimator
from simlib.pipeline.sweep import trial_seed
from simlib.runtime import cluster_kernel as ck
from simlib.runtime.cluster import Cluster, ComputeTimes
from simlib.workloads.bandwidth import ErrorEstimator
from simlib.workloads.traces import OnlineECDF, Trace
from tests.runtime.test_cluster_kernel import RecordingRule, _random_setting


def _selective(s: dict, bw, rng) -> SelectiveReduceController:
    """Seed 000's controller: Δt, θ, η, c, the progress model, fixed or per-decision estimates with error, the
    incremental pass or the reference, and (``cold``) the model over an ECDF learned during the run (cold
    start, observations before the run as ``prior_obs``)."""
    dt, theta, eta, c, model, err, redraw, incr = s["sr"]
    trace = Trace("test", np.random.default_rng(s["seed"] + 3).lognormal(np.log(s["mean"]), 0.5, size=200))
    observe = None
    if s.get("cold"):
        trace = OnlineECDF()
        trace.observe_many(s.get("prior_obs", []))
        observe = trace.observe
    est = _bandwidth_estimator(np.asarray(bw, float), err, redraw, np.random.default_rng(s["seed"] + 5))
    ctrl = SelectiveReduceController(max(1, min(s["p"] or 2, s["n"])), eta, theta, dt, s["bits"],
                                     progress=make_progress(model, trace), bandwidth_estimate=est, alpha=s["alpha"],
                                     c=c, observe=observe)
    ctrl.incremental = incr
    return ctrl


def _cluster(s: dict, *, rule=None, ring_model="single") -> Cluster:
    rng = np.random.default_rng(s["seed"])
    n = s["n"]
    bw = rng.choice([1e9, 2.5e9, 10e9], size=n) if s["tied_bw"] else rng.uniform(0.5e9, 20e9, size=n)
    scale = np.where(np.arange(n) < s["hl"], float(s["hl"]), 1.0)
    mean = s["mean"]
    compute = ComputeTimes(lambda g, k: g.lognormal(np.log(mean), 0.5, size=k), n, np.random.SeedSequence(s["seed"]),
                           chunk=s["chunk"], scale=scale)
    return Cluster.big_switch(bw, compute, _selective(s, bw, rng), model_bits=s["bits"], alpha=s["alpha"],
                              duration=s["duration"], weight_rule=rule, ring_model=ring_model)


def _random_sr_setting(k: int) -> dict:
    """A random cluster (as the baselines' cross-check draws it) run by selective reduce: Δt, θ (∞: never
    wait), η, c (full syncs), the progress model, an exact estimate or one error draw per run (fixed
    estimates: what the compiled turn covers), the incremental pass or the reference only; every sixth a
    cluster of 100-200 workers."""
    rng = np.random.default_rng(5000 + k)
    s = _random_setting(rng)
    s.update(ps=None, ad=None, eager=None, scripted=False,
             sr=(float(rng.choice([0.01, 0.05, 0.1, 0.5])), float(rng.choice([1.0, 0.5, np.inf])),
                 float(rng.choice([0.3, 0.0, 0.6])), [None, None, 3][rng.integers(3)],
                 str(rng.choice(["paper", "conditional", "oracle"])), float(rng.choice([0.0, 0.0, 0.2])), "run",
                 bool(rng.random() < 0.8)))
    if k % 6 == 0:
        s.update(n=int(rng.integers(100, 201)), duration=5.0)
    return s


def _state(c: Cluster, rule) -> tuple:
    ctrl = c.controller
    dist, est = getattr(ctrl.progress, "dist", None), ctrl.bandwidth_estimate
    return (repr(c.log), c.phase.tolist(), c.iterations.tolist(), c.compute_start.tolist(), c.compute_finish.tolist(),
            np.nan_to_num(c.ready_time, nan=-1.0).tolist(), c.sim.now, c.sim.events_run, c.sim._seq,
            None if rule is None else rule.calls, ctrl.k, ctrl.queue, ctrl._holding.tolist(), ctrl.fallback_rounds,
            ctrl._arrivals,
            # the cold start's ECDF (its parts as the Python loop leaves them) and the error's generator
            [a.tolist() for a in dist.sorted_parts()] + [dist.count] if isinstance(dist, OnlineECDF) else None,
            str(est.rng.bit_generator.state) if isinstance(est, ErrorEstimator) else None)


def _run_both(setting: dict) -> list:
    out = []
    for engine in ("python", "compiled"):
        rule = RecordingRule() if setting["weights"] else None
        c = _cluster(setting, rule=rule)
        c.run(engine=engine)
        out.append(_state(c, rule))
    return out


@pytest.mark.parametrize("k", range(30))
def test_compiled_turns_equal_the_python_loop(k):
    setting = _random_sr_setting(k)
    assert ck.supported(_cluster(setting)) is None
    py, comp = _run_both(setting)
    assert comp == py


def test_the_random_settings_reach_holds_timeouts_full_syncs_and_fallbacks():
    """The settings above reach what the turn must get right: holds, Δt timeouts that launch (a sync launched
    when no worker became ready), full syncs, passes left to the reference (E21), groups of one (a sync with no
    flow)."""
    holds = full = rounds = fallback = solo = timeouts = 0
    for k in range(30):
        c = _cluster(_random_sr_setting(k))
        log = c.run(engine="compiled")
        ends = {t for times in log.compute_end for t in times}
        timeouts += sum(rec.launch not in ends for rec in log.syncs)
        holds += len(log.holds)
        full += sum(s.kind == "full" for s in log.syncs)
        solo += sum(len(s.members) == 1 for s in log.syncs)
        rounds += log.counters.get("controller_rounds", 0) > sum(s.kind == "partial" for s in log.syncs)
        fallback += c.controller.fallback_rounds
    assert holds > 0 and full > 0 and rounds > 0 and fallback > 0 and solo > 0 and timeouts > 0


@settings(max_examples=25, deadline=None)
@given(k=st.integers(0, 10**6), cold=st.booleans(), err=st.sampled_from([0.0, 0.2, 0.5, 1.0, 3.0]),
       model=st.sampled_from(["paper", "conditional"]), prior=st.sampled_from([0, 0, 5, 300]))
def test_cold_start_and_per_decision_errors_on_the_compiled_loop_equal_the_python_loop(k, cold, err, model, prior):
    """The settings brought onto the compiled loop (notebook 13's robustness runs and their twins in notebook 16):
    the progress model over an ECDF learned during the run (cold start, empty or already holding observations:
    a few, or enough to merge at once) and estimates with an error drawn afresh at every decision (e up to 3:
    estimates floored), alone or together: the same log, worker arrays, clock, controller state, ECDF and
    error generator as the Python loop."""
    s = _random_sr_setting(k)
    if not cold and err == 0.0:
        err = 0.3
    dt, theta, eta, c, _, _, _, incr = s["sr"]
    s.update(sr=(dt, theta, eta, c, model, err, "decision", incr), cold=cold,
             prior_obs=np.random.default_rng(k).lognormal(np.log(s["mean"]), 0.5, size=prior).tolist())
    c = _cluster(s)
    assert ck.supported(c) is None
    py, comp = _run_both(s)
    assert comp == py


def test_the_moved_settings_reach_merges_refills_and_floors():
    """What the cold start's ECDF and the per-decision error must get right on the compiled loop: merges of the
    ECDF's buffer, more room for its parts (NEED_ECDF), refills of the error's draws (NEED_ERRORS), floored
    estimates, holds and launches; and the drawn estimates change the schedule (against the exact ones)."""
    s = dict(_random_sr_setting(0), n=150, duration=30.0, mean=0.3, bits=8e8, cold=True,
             sr=(0.1, 1.0, 0.3, None, "paper", 3.0, "decision", True))
    c = _cluster(s)
    loop, state, finish, handlers = c.controller.compiled_turns()
    served = dict.fromkeys(handlers, 0)

    def counting(code, fn):
        def serve():
            served[code] += 1
            fn()
        return serve
    c.controller.compiled_turns = lambda: (loop, state, finish, {k: counting(k, f) for k, f in handlers.items()})
    log = c.run(engine="compiled")
    assert len(served) == 2 and served[compiled.NEED_ECDF] > 0 and served[compiled.NEED_ERRORS] > 1
    assert c.controller.progress.dist.count == sum(len(t) for t in log.compute_end) > 1000
    assert len(log.holds) > 0 and len(log.syncs) > 0
    est = c.controller.bandwidth_estimate
    assert (est(np.arange(s["n"])) == est.floor).any()              # e = 3: some estimates floored
    exact = _cluster(dict(s, sr=s["sr"][:5] + (0.0,) + s["sr"][6:])).run(engine="compiled")
    assert repr(exact.syncs) != repr(log.syncs)


@pytest.mark.parametrize("cold, err", [(False, 0.0), (True, 0.0), (False, 0.3), (True, 0.3)])
def test_the_learning_arrays_are_empty_unless_the_run_learns_them(cold, err):
    """The turn's state has its second part in every run (so the loop compiles once for all of them): the cold
    start's ECDF parts non-empty only in a run that learns its progress model, the per-decision error's true
    bandwidths and draws only in a run that draws its estimates per decision, each with its request handler."""
    s = _random_sr_setting(1)
    dt, theta, eta, c, _, _, _, incr = s["sr"]
    s.update(sr=(dt, theta, eta, c, "paper", err, "decision", incr), cold=cold)
    _, state, _, handlers = _cluster(s).controller.compiled_turns()
    emain, ebuf, btrue, ubuf, ef = state()[1]
    assert all(isinstance(a, np.ndarray) and a.dtype == np.float64 for a in (emain, ebuf, btrue, ubuf, ef))
    assert (emain.size > 0 and ebuf.size > 0) == cold == (compiled.NEED_ECDF in handlers)
    assert (btrue.size > 0 and ubuf.size > 0) == (err > 0) == (compiled.NEED_ERRORS in handlers)
    assert ef.size == 2 and (not err or ef[0] == err)


SCENARIOS = [dict(scheme="selective", n=40, dt_s=0.01), dict(scheme="selective", n=80, dt_s=0.1, compute_mean_s=3.0),
             dict(scheme="selective", n=60, theta=20.0, eta=0.6, trace="cnn"),
             dict(scheme="selective", n=50, bw_error=0.3, bw_error_redraw="run", lam=0.2, alpha_s=0.0),
             dict(scheme="selective", n=40, progress_model="oracle", c=5, p=0.1),
             dict(scheme="selective", n=40, progress_model="conditional", tx_form="eq2", base_rule="pseudocode"),
             dict(scheme="selective", n=60, cdf="cold"), dict(scheme="selective", n=50, bw_error=0.4),
             dict(scheme="selective", n=40, bw_error=0.2, cdf="cold", progress_model="conditional", c=7)]


@pytest.mark.parametrize("params", SCENARIOS)
def test_notebook_scenarios_give_the_same_metrics_and_log(params):
    """The notebooks' scenarios (000's run, 30 s): the same log and the same metrics row from either loop."""
    sc = Scenario.from_params(dict(params, duration_s=30.0))
    out = []
    for engine in ("python", "compiled"):
        c = build_cluster(sc, trial_seed(0, 1))
        log = c.run(engine)
        out.append((repr(log), run_metrics(sc, log), len(log.syncs)))
    assert out[0] == out[1] and out[0][2] > 0


def test_uncovered_controllers_name_their_reason_and_auto_takes_the_python_loop(monkeypatch):
    """Estimates from another callable or of a zero bandwidth, a progress model that learns other than the cold
    start's ECDF, a Python progress model, another ring model: not covered, with the reason; ``auto`` runs them
    on the Python loop, ``compiled`` refuses."""
    s = _random_sr_setting(2)
    per_decision = dict(s, sr=(0.1, 1.0, 0.3, None, "paper", 0.2, "decision", True))
    assert ck.supported(_cluster(per_decision)) is None
    other = _cluster(per_decision)
    other.controller.bandwidth_estimate = lambda ids: np.full(len(ids), 1e9)
    assert "callable other than" in ck.supported(other)
    zero = _cluster(per_decision)
    zero.controller.bandwidth_estimate.b[0] = 0.0
    assert "zero bandwidth" in ck.supported(zero)
    assert "ring_model 'rounds'" in ck.supported(_cluster(s, ring_model="rounds"))
    cold = Scenario.from_params(dict(scheme="selective", n=20, duration_s=5.0, cdf="cold"))
    assert ck.supported(build_cluster(cold, 0)) is None
    learns = build_cluster(cold, 0)
    learns.controller.observe = lambda x: None                  # an ECDF fed by someone else
    assert "learns" in ck.supported(learns)
    python_model = _cluster(s)
    python_model.controller._fixed_spec = python_model.controller._fixed_spec._replace(kind=KIND_CALLBACK)
    python_model.controller._spec = lambda: python_model.controller._fixed_spec
    assert "Python progress model" in ck.supported(python_model)
    calls = []
    monkeypatch.setattr(ck, "run_compiled", lambda cl: calls.append(cl))
    _cluster(s).run(engine="auto")
    assert len(calls) == 1
    other.run(engine="auto")
    assert len(calls) == 1
    with pytest.raises(ValueError, match="callable other than"):
        other.run(engine="compiled")
