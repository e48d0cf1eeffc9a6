"""Every documented knob of selective reduce changes the schedule as its decision entry says.

Most cases run seed 000's Fig. 3 through the whole scenario path
(``Scenario.from_params`` -> ``simulate`` -> ``selective_controller`` -> cluster), so a
knob that is dropped or miswired on the way fails here, not only in the pure
algorithm tests of test_selective_reduce.py.

Fig. 3 (§II-D): workers w1..w5 (ids 0..4) become ready at 1, 2, 3, 3, 13 s with
bandwidths 1, 5, 1, 5, 5 units; the model is 5 units and a sync takes 2v / min b.
We use 1 unit = 1 MB/s and v = 5 MB, so a sync takes 10 s at b = 1 and 2 s at b = 5.
Hand analysis at t = 2 s (queue [w1, w2], p = 2, Δt = 1 s, oracle progress):
C = {w4, w5} (b > 1), p_w4 = 1 (ready at 3 <= 2 + 1), p_w5 = 0 -> k = 1 virtual
worker of b = 5; g* = BAG([w2, w1, v]) = [w2, v] -> t_X = 2v/1 - 2v/5 = 10 - 2 = 8 s
(line 15), so the pair waits iff 8 > θΔt.  At 3 s, BAG forms {w2, w4} and {w1, w3},
both launch.  Launching at 2 s instead gives {w2, w1} at 2 s and {w4, w3} at 3 s.
"""
import math

import numpy as np
import pytest

from simlib.core.units import MB
from simlib.papers.cluster_scenario import Scenario, simulate
from simlib.papers.contract import ParamError
from simlib.papers.selective_reduce.scenario import SelectiveReduceParams, selective_controller
from simlib.runtime.cluster import ScriptedComputeTimes
from simlib.runtime.metrics import sync_metrics, wasted_wait
from simlib.workloads.traces import Trace, load_trace

UNIT = MB                                  # 1 bandwidth "unit" = 1 MB/s = 8e6 bit/s
FIG3_BW = np.array([1.0, 5.0, 1.0, 5.0, 5.0]) * UNIT
FIG3_READY = [[1.0], [2.0], [3.0], [3.0], [13.0]]

WAITS = [(3.0, (1, 3)), (3.0, (0, 2))]      # waited at 2 s: the bandwidth-aware schedule
LAUNCHES_AT_2 = [(2.0, (1, 0)), (3.0, (3, 2))]


def fig3_log(trace="cnn", **knobs):
    params = dict(scheme="selective", n=5, p=0.4, eta=0.3, theta=1.0, dt_s=1.0, model_mb=5.0, alpha_s=0.0,
                  sync_model="eq2_example", duration_s=100.0, progress_model="oracle", trace=trace)
    params.update(knobs)
    sc = Scenario.from_params(params)
    assert sc.group_size == 2
    return simulate(sc, 0, bandwidth=FIG3_BW, compute=ScriptedComputeTimes(FIG3_READY))


def fig3(trace="cnn", **knobs):
    """The schedule as (launch time, members) pairs."""
    return [(s.launch, s.members) for s in fig3_log(trace, **knobs).syncs]


def trace_csv(tmp_path, samples, name="hand"):
    path = tmp_path / f"{name}.csv"
    path.write_text("compute_time_s\n" + "\n".join(repr(float(x)) for x in samples) + "\n")
    return str(path)


def test_fig3_through_the_scenario_waits_then_launches_bandwidth_aware_groups():
    log = fig3_log()
    assert [(s.launch, s.members) for s in log.syncs] == WAITS
    # the paper's Fig. 3(e) sync times: 2v/5 = 2 s for {w2, w4}, 2v/1 = 10 s for {w1, w3}
    assert [s.finish - s.launch for s in log.syncs] == [2.0, 10.0]
    # w1, w2 held at 2 s; at 3 s w3 arrives first and [w2, w1, w3] still expects w4 (t_X = 8): w3 is
    # held too, then w4 arrives and both BAG groups launch
    assert log.holds == [(2.0, 1), (2.0, 0), (3.0, 2)]
    # useful holds: w1's and w2's groups gained newcomers (w3, w4 ready at 3 > 2); w3's hold lasted 0 s
    assert wasted_wait(log).tolist() == [0.0] * 5


# ----------------------------------------------------------------- SR1 base_rule
def test_sr1_base_rule_pseudocode_forms_p_plus_1_bases_and_launches_at_2s():
    """Line 6 as printed (len(g) <= p): g* = BAG([w2, w1, v]) is one group of three with
    min b = 1, so t_X = 0 and {w2, w1} launches at 2 s; the text rule waits (SR1)."""
    assert fig3(base_rule="text") == WAITS
    assert fig3(base_rule="pseudocode") == LAUNCHES_AT_2


def test_sr1_base_rule_changes_group_sizes_in_random_runs():
    """Both rules launch groups of at least p = 4; bases of p + 1 (pseudocode) make the
    launched groups larger on average than bases of p (text)."""
    base = dict(scheme="selective", n=20, p=0.2, duration_s=8.0, model_mb=100.0)
    scales = {}
    for rule in ("text", "pseudocode"):
        logs = [simulate(Scenario.from_params(dict(base, base_rule=rule)), s) for s in range(2)]
        sizes = [len(s.members) for log in logs for s in log.syncs]
        assert min(sizes) >= 4
        scales[rule] = np.mean(sizes)
    assert scales["pseudocode"] > scales["text"]


# ------------------------------------------------------------ SR19 / E2 θ and Δt
@pytest.mark.parametrize("theta, expected", [
    (7.99, WAITS),                  # t_X = 8 > 7.99
    (8.0, LAUNCHES_AT_2),           # t_X = 8 = θΔt: strict test launches (SR19)
    (1e9, LAUNCHES_AT_2),           # a huge θ never waits
])
def test_sr19_theta_threshold_is_t_x_equals_8s_strict(theta, expected):
    assert fig3(theta=theta) == expected


def test_sr19_theta_inf_is_accepted_by_the_scenario():
    assert fig3(theta=math.inf) == LAUNCHES_AT_2


def test_e2_dt_scales_the_waiting_threshold():
    """θΔt with θ = 1: Δt = 1 s waits (8 > 1); Δt = 8 s launches (8 > 8 fails).
    (With Δt = 8 the oracle still sees w5 at 13 > 2 + 8 as not finishing.)"""
    assert fig3(dt_s=1.0) == WAITS
    assert fig3(dt_s=8.0) == LAUNCHES_AT_2


# ----------------------------------------------------------------- SR12 tx_form
def test_sr12_tx_form_eq2_uses_the_exact_ring_difference():
    """"eq2": t_X = [2α + v/1] - [2α + v/5] = 5 - 1 = 4 s (both groups have 2 members,
    so α cancels); "approx": 8 s.  With θΔt = 4.5 only "approx" waits."""
    assert fig3(theta=4.5, tx_form="approx") == WAITS
    assert fig3(theta=4.5, tx_form="eq2") == LAUNCHES_AT_2
    assert fig3(theta=4.5, tx_form="eq2", alpha_s=0.25) == LAUNCHES_AT_2   # α cancels at equal sizes
    assert fig3(theta=3.99, tx_form="eq2") == WAITS


def test_sr12_alpha_enters_t_x_only_in_the_eq2_form(tmp_path):
    """Cold start (E13) makes k = 2 at 2 s, so g* = [w2, v, v] has 3 members and g = [w2, w1] 2:
    eq2's t_X = (2α + v/1) - (4α + 4/3 v/5) = 5 - 4/3 - 2α = 11/3 - 2α.  With θΔt = 3.5:
    α = 0 waits (3.67 > 3.5); α = 0.1 s launches {w2, w1} at 2 s (3.47).  Then at 3 s
    [w4, w3] expects w5 (k = 1): t_X = (2α + 5) - (2α + 1) = 4 > 3.5, so it holds until w5 comes
    at 13 s and BAG pairs w4 with w5, leaving w3 alone.  "approx" ignores α: t_X = 8, waits."""
    slow = trace_csv(tmp_path, [10.0, 20.0, 30.0])
    kw = dict(trace=slow, progress_model="paper", cdf="cold", theta=3.5)
    assert fig3(tx_form="eq2", alpha_s=0.0, **kw) == WAITS
    assert fig3(tx_form="eq2", alpha_s=0.1, **kw) == [(2.0, (1, 0)), (13.0, (3, 4))]
    assert fig3(tx_form="approx", alpha_s=0.1, **kw) == WAITS


# ---------------------------------------------------------- E3 progress model
def test_e3_paper_vs_conditional_progress(tmp_path):
    """A trace with 3/4 of its mass below 0.8 s and the rest spread to 10 s: at t = 2 s
    (elapsed 2, Δt = 1) the paper's F(3) = 0.75 + 0.25 * 2.2/9.2 = 0.8098 per candidate,
    Σp = 1.62 -> k = 1 -> wait; the conditional (F(3) - F(2)) / (1 - F(2)) = 0.125,
    Σp = 0.25 -> k = 0 -> g* = g, t_X = 0 -> launch at 2 s.  At 3 s both models give
    k = 0 for w5 alone with the conditional, and the paper's run forms the BAG groups."""
    tr = trace_csv(tmp_path, [0.5, 0.6, 0.7, 0.8, 10.0])
    F = Trace("x", np.array([0.5, 0.6, 0.7, 0.8, 10.0])).cdf
    assert F(3.0) == pytest.approx(0.75 + 0.25 * 2.2 / 9.2)
    assert fig3(trace=tr, progress_model="paper") == WAITS
    assert fig3(trace=tr, progress_model="conditional") == LAUNCHES_AT_2


def test_e3_oracle_progress_knows_the_finish_times(tmp_path):
    """The oracle sees w4 finish at 3 s (waits); a paper model over a trace whose
    mass is far beyond 3 s predicts nobody (F(3) = 0) and launches at 2 s."""
    slow = trace_csv(tmp_path, [10.0, 20.0, 30.0])
    assert fig3(trace=slow, progress_model="oracle") == WAITS
    assert fig3(trace=slow, progress_model="paper") == LAUNCHES_AT_2


# ------------------------------------------------------------------ E13 cold start
def test_e13_cold_start_learns_from_observed_compute_times(tmp_path):
    """Warm over a trace with F(3) = 0 predicts nobody and launches at 2 s.  Cold ignores
    that trace: by 2 s it has observed w1's 1 s and w2's 2 s, so F(3) = 1 for w4 and w5,
    k = 2 virtual workers of b = 5 -> t_X = 8 > 1 -> wait; at 3 s the BAG groups launch."""
    slow = trace_csv(tmp_path, [10.0, 20.0, 30.0])
    assert fig3(trace=slow, progress_model="paper", cdf="warm") == LAUNCHES_AT_2
    assert fig3(trace=slow, progress_model="paper", cdf="cold") == WAITS
    assert fig3(trace=slow, progress_model="conditional", cdf="cold") == WAITS


def test_e13_cold_start_before_any_observation_predicts_nobody():
    """The cold controller's progress model answers 0 before its first observation (T5)."""
    ctrl = selective_controller(SelectiveReduceParams(cdf="cold"), p=2, model_bits=1.0, alpha_s=0.0,
                                trace=load_trace("cnn"), bandwidth=np.ones(3), error_rng=np.random.default_rng(0))
    assert list(ctrl.progress(np.array([0, 1]), np.array([0.5, 100.0]), 1.0)) == [0.0, 0.0]
    ctrl.observe(1.0)
    assert list(ctrl.progress(np.array([0, 1]), np.array([0.5, 100.0]), 1.0)) == [1.0, 1.0]


# ---------------------------------------------------------------- E1 period c
def two_worker_run(c, duration=10.5):
    """Equal bandwidths (nobody is ever a candidate, so every partial group launches at
    once), p = 1, w0 computes 1 s and w1 2 s per iteration, a sync takes 2v/b = 1 s."""
    sc = Scenario.from_params(dict(scheme="selective", n=2, p=0.5, c=c, model_mb=1.0, alpha_s=0.0,
                                   sync_model="eq2_example", duration_s=duration, progress_model="oracle"))
    log = simulate(sc, 0, bandwidth=np.full(2, 2 * MB), compute=ScriptedComputeTimes([[1.0] * 50, [2.0] * 50]))
    return [(s.launch, s.kind, s.members) for s in log.syncs]


def test_e1_full_sync_period_hand_schedule():
    """k counts every sync and a full round waits for all n (Alg. 3 lines 5-7):
    c = 2: full at 2 (k 0->1), w0 alone at 4 (k 2), full at 6 once w1 is back at 5 and w0
    at 6, w0 at 8, full at 10.  c = 3: full at 2, w0 at 4, w1 at 5 (k 3), full at 8 (k 4), w0 at 10.
    c = None: never full; w0 every 2 s from 1 s, w1 every 3 s from 2 s (at 5 s both are
    ready; w1's event was scheduled first, at 3 s, so it is processed first)."""
    assert two_worker_run(2) == [(2.0, "full", (0, 1)), (4.0, "partial", (0,)), (6.0, "full", (1, 0)),
                                 (8.0, "partial", (0,)), (10.0, "full", (1, 0))]
    assert two_worker_run(3) == [(2.0, "full", (0, 1)), (4.0, "partial", (0,)), (5.0, "partial", (1,)),
                                 (8.0, "full", (0, 1)), (10.0, "partial", (0,))]
    assert two_worker_run(None) == [(1.0, "partial", (0,)), (2.0, "partial", (1,)), (3.0, "partial", (0,)),
                                    (5.0, "partial", (1,)), (5.0, "partial", (0,)), (7.0, "partial", (0,)),
                                    (8.0, "partial", (1,)), (9.0, "partial", (0,))]


@pytest.mark.parametrize("c", [2, 5])
def test_e1_full_syncs_happen_only_at_multiples_of_c_in_random_runs(c):
    """A full sync is launched when k (= syncs launched so far) is a multiple of c, with all n."""
    log = simulate(Scenario.from_params(dict(scheme="selective", n=12, c=c, duration_s=30.0, model_mb=50.0)), 4)
    kinds = [s.kind for s in log.syncs]
    fulls = [i for i, k in enumerate(kinds) if k == "full"]
    assert fulls and fulls[0] == 0 and len(fulls) >= 2
    assert all(i % c == 0 for i in fulls)
    assert all(len(log.syncs[i].members) == 12 for i in fulls)
    none = simulate(Scenario.from_params(dict(scheme="selective", n=12, duration_s=30.0, model_mb=50.0)), 4)
    assert {s.kind for s in none.syncs} == {"partial"}


# ----------------------------------------------------------- E9 error redraw
def estimator(e, redraw, bw):
    ctrl = selective_controller(SelectiveReduceParams(bw_error=e, bw_error_redraw=redraw), p=2, model_bits=1.0,
                                alpha_s=0.0, trace=load_trace("cnn"), bandwidth=bw,
                                error_rng=np.random.default_rng(7))
    est = ctrl.bandwidth_estimate   # a per-worker array when the estimates are fixed for the run
    return est if callable(est) else (lambda ids: est[ids])


def test_e9_redraw_run_keeps_one_estimate_per_worker_decision_redraws():
    bw = np.linspace(1e9, 20e9, 10)
    ids = np.arange(10)
    run = estimator(0.3, "run", bw)
    a, b = run(ids), run(ids[::-1])
    assert np.array_equal(a, b[::-1])                     # the same x per worker for the whole run
    assert np.all(np.abs(a / bw - 1) <= 0.3) and not np.allclose(a, bw)
    dec = estimator(0.3, "decision", bw)
    c, d = dec(ids), dec(ids)
    assert np.all(np.abs(c / bw - 1) <= 0.3) and np.all(np.abs(d / bw - 1) <= 0.3)
    assert not np.any(c == d)                             # a fresh x per worker at every decision
    exact = estimator(0.0, "decision", bw)
    assert np.array_equal(exact(ids), bw)


def test_e9_bw_error_reaches_the_schedule():
    """With e = 0.5 the controller groups on wrong bandwidths: the schedule differs from e = 0
    while the true bandwidths (and compute draws) stay the same."""
    base = dict(scheme="selective", n=30, duration_s=15.0, model_mb=100.0)
    exact = simulate(Scenario.from_params(base), 2)
    noisy = simulate(Scenario.from_params(dict(base, bw_error=0.5)), 2)
    run = simulate(Scenario.from_params(dict(base, bw_error=0.5, bw_error_redraw="run")), 2)
    assert np.array_equal(exact.bandwidth, noisy.bandwidth)
    members = [[s.members for s in log.syncs] for log in (exact, noisy, run)]
    assert members[0] != members[1] and members[1] != members[2] and members[0] != members[2]


# --------------------------------------------------- scenario-level knobs (E6, E8, B1, 002 §5.2)
@pytest.mark.parametrize("p, n, size", [(0.3, 200, 60), (0.025, 20, 1), (0.5, 7, 4), (0.1, 40, 4)])
def test_e8_group_size_is_round_p_n_at_least_one(p, n, size):
    assert Scenario(p=p, n=n).group_size == size      # p n = 0.5 rounds (half to even) to 0: at least one


@pytest.mark.parametrize("p, n", [(0.01, 20), (0.1, 4), (0.24, 2)])
def test_e8_p_n_below_one_half_is_refused_naming_p(p, n):
    with pytest.raises(ParamError, match=r"p \* n must be at least 0.5") as exc:
        Scenario(p=p, n=n)
    assert exc.value.name == "p"


def test_e6_compute_mean_rescales_every_compute_time():
    base = dict(scheme="partial", n=6, duration_s=20.0, trace="transformer", model_mb=1.0)
    a = simulate(Scenario.from_params(base), 3)
    b = simulate(Scenario.from_params(dict(base, compute_mean_s=2.0)), 3)
    ratio = 2.0 / load_trace("transformer").mean
    assert [b.compute_end[w][0] for w in range(6)] == pytest.approx([ratio * a.compute_end[w][0] for w in range(6)],
                                                                     rel=1e-12)


def test_hl_multiplies_exactly_the_first_hl_workers_compute_times():
    base = dict(scheme="partial", n=6, p=0.5, duration_s=20.0, bandwidth_gbps=10.0, trace="cnn")
    a = simulate(Scenario.from_params(base), 0)
    b = simulate(Scenario.from_params(dict(base, hl=3)), 0)
    first_a = np.array([c[0] for c in a.compute_end])
    first_b = np.array([c[0] for c in b.compute_end])
    assert first_b == pytest.approx(first_a * [3, 3, 3, 1, 1, 1], rel=1e-12)
    assert np.all(b.bandwidth == 10e9)


def test_b1_lam_sets_the_minimum_bandwidth():
    lo = simulate(Scenario.from_params(dict(scheme="partial", n=200, lam=0.5, duration_s=0.01)), 1).bandwidth
    default = simulate(Scenario.from_params(dict(scheme="partial", n=200, duration_s=0.01)), 1).bandwidth
    assert lo.min() >= 10e9 and lo.max() <= 20e9
    assert default.min() >= 1e9 and default.min() < 5e9    # u ~ U[0.05, 1]: P(all 200 >= 0.25) ~ 1e-21


# ------------------------------------------- E10 Δt timer, E5 wasted wait end to end
def straggler_run(tmp_path, progress_model):
    """w0 (b = 1) ready at 1 s, w1 (b = 5) at 2 s, w2 and w3 (b = 5) only at 25 s; p = 2,
    Δt = 0.5 s, θ = 1.  Trace: 4 samples in 2.0-2.6 s, one at 30 s (F linear in between).
    At 2 s both models give p = F(2.5) = 0.625 per candidate (F(2) = 0): Σp = 1.25, k = 1,
    g* = [w1, v], t_X = 10 - 2 = 8 > 0.5 -> hold w0, w1.  No worker arrives until 25 s, so only
    the Δt timer re-plans (E10): at 2.5 s the conditional model gives
    (F(3) - F(2.5)) / (1 - F(2.5)) = 0.343 per candidate, Σp = 0.69 -> k = 0 -> launch;
    the paper's F(3) = 0.754 per candidate keeps k = 1 and holds until w2, w3 arrive."""
    tr = trace_csv(tmp_path, [2.0, 2.2, 2.4, 2.6, 30.0])
    sc = Scenario.from_params(dict(scheme="selective", n=4, p=0.5, eta=0.3, theta=1.0, dt_s=0.5, model_mb=5.0,
                                   alpha_s=0.0, sync_model="eq2_example", duration_s=40.0,
                                   progress_model=progress_model, trace=tr))
    log = simulate(sc, 0, bandwidth=np.array([1.0, 5.0, 5.0, 5.0]) * UNIT,
                   compute=ScriptedComputeTimes([[1.0], [2.0], [25.0], [25.0]]))
    return log


def test_e10_dt_timer_replans_without_arrivals_and_e5_wasted_wait_end_to_end(tmp_path):
    cond = straggler_run(tmp_path, "conditional")
    assert [(s.launch, s.members) for s in cond.syncs] == [(2.5, (1, 0)), (25.0, (2, 3))]
    assert cond.holds == [(2.0, 1), (2.0, 0)]
    # held 2.0 -> 2.5 and launched with nobody new: 0.5 s wasted each (E5)
    assert wasted_wait(cond).tolist() == [0.5, 0.5, 0.0, 0.0]
    assert sync_metrics(cond)["wasted_wait_s_per_worker"] == 0.25
    assert cond.counters["controller_rounds"] == 3          # 2.0 (hold), 2.5 (timer, launch), 25.0

    paper = straggler_run(tmp_path, "paper")
    # at 25 s w2 arrives first: BAG([w0, w1, w2]) = [w1, w2], [w0]; {w1, w2} launches (no faster
    # candidate), [w0] is too small; then w3 arrives and BAG([w0, w3]) = [w3, w0] launches
    assert [(s.launch, s.members) for s in paper.syncs] == [(25.0, (1, 2)), (25.0, (3, 0))]
    # both 23 s holds ended in a group with a newcomer (ready at 25 > 2): nothing wasted
    assert wasted_wait(paper).tolist() == [0.0, 0.0, 0.0, 0.0]
    # Δt timer: one pass at 2.0, one per tick at 2.5, 3.0, ..., 24.5 (45), then one per arrival at 25
    # (the 25.0 tick was re-armed away by w2's pass, after which fewer than p are queued)
    assert paper.counters["controller_rounds"] == 1 + 45 + 2


def test_bpawr_and_plan_round_refuse_a_misspelt_or_missing_knob_by_name():
    # the knobs arrive as keywords grouped in algorithms.Knobs: a typo must not be silently dropped
    from simlib.papers.selective_reduce.algorithms import bpawr, plan_round

    args = ([1, 2], [10e9, 2e9], [3], [4e9], [0.0])
    knobs = dict(p=2, eta=0.5, theta=1.0, dt=0.1, v=1e9)
    for fn in (bpawr, plan_round):
        fn(*args, completion_prob=lambda ids, el, dt: np.ones(ids.size), **knobs)
        with pytest.raises(TypeError, match="thetaa"):
            fn(*args, completion_prob=lambda ids, el, dt: np.ones(ids.size), **knobs, thetaa=2.0)
        without_v = {k: x for k, x in knobs.items() if k != "v"}
        with pytest.raises(TypeError, match="'v'"):
            fn(*args, completion_prob=lambda ids, el, dt: np.ones(ids.size), **without_v)
