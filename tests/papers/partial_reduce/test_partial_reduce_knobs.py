"""Every documented knob of seed 002's scheme changes the schedule (or the recorded weights)
as its decision entry says, through the scenario path (Scenario.from_params -> simulate)."""
import numpy as np
import pytest

from simlib.papers.cluster_scenario import Scenario, run_trial, simulate
from simlib.papers.partial_reduce.scenario import PartialReduceParams, default_window, partial_controller
from simlib.runtime.cluster import ScriptedComputeTimes


# ----------------------------------------------------------------- PR12 default window
@pytest.mark.parametrize("n, p, T", [
    (8, 3, 9),      # bound ceil(7/2) = 4; 8 ln 8 / 2 = 8.32 -> 9
    (4, 2, 6),      # bound 3; 4 ln 4 = 5.55 -> 6
    (200, 60, 18),  # bound ceil(199/59) = 4; 200 ln 200 / 59 = 17.96 -> 18
    (3, 3, 2),      # bound ceil(2/2) = 1; 3 ln 3 / 2 = 1.65 -> 2
])
def test_pr12_default_window_hand_values(n, p, T):
    assert default_window(n, p) == T
    assert partial_controller(PartialReduceParams(group_filter=True), n=n, p=p).group_filter.T == T
    assert partial_controller(PartialReduceParams(group_filter=True, group_filter_window=T + 5),
                              n=n, p=p).group_filter.T == T + 5
    assert partial_controller(PartialReduceParams(), n=n, p=p).group_filter is None


def frozen(**knobs):
    """002 §4's frozen case through the scenario: workers 0, 1 compute 1.0 s, workers 2, 3
    1.3 s, P = 2, syncs take 1e-4 s; plain FIFO only ever forms {0,1} and {2,3}."""
    sc = Scenario.from_params(dict(scheme="partial", n=4, p=0.5, model_mb=0.125, alpha_s=0.0,
                                   sync_model="eq2_exact", duration_s=30.0, **knobs))
    log = simulate(sc, 0, bandwidth=np.full(4, 10e9),
                   compute=ScriptedComputeTimes([[1.0] * 100] * 2 + [[1.3] * 100] * 2))
    groups = [set(s.members) for s in log.syncs]
    bridges = [i for i, g in enumerate(groups) if g & {0, 1} and g & {2, 3}]
    return groups, bridges


@pytest.mark.parametrize("window, first_bridge", [(3, 3), (4, 4), (6, 6), (None, 6)])
def test_pr8_pr9_pr12_window_sets_when_the_filter_first_bridges(window, first_bridge):
    """The filter judges the graph only once T groups are recorded (PR9 rule 1), so the first
    bridging group is group number T; the default T for N = 4, P = 2 is 6 (PR12)."""
    plain, none = frozen()
    assert none == [] and {frozenset(g) for g in plain} == {frozenset({0, 1}), frozenset({2, 3})}
    groups, bridges = frozen(group_filter=True, group_filter_window=window)
    assert bridges[0] == first_bridge
    assert all(g in ({0, 1}, {2, 3}) for g in groups[:first_bridge])


def test_pr12_window_at_the_bound_holds_more_than_the_default():
    """PR12: at T = ceil((N-1)/(P-1)) = 4 the filter holds the queue far more often than at the
    default T = 9 (N = 8, P = 3, HL = 3), so it completes fewer syncs in every seed."""
    base = dict(scheme="partial", n=8, p=3 / 8, hl=3, bandwidth_gbps=10.0, model_mb=10.0, duration_s=60.0,
                trace="cnn", group_filter=True)
    for s in range(3):
        at_bound = run_trial(dict(base, group_filter_window=4), np.random.SeedSequence(s))["total_sync"]
        default = run_trial(base, np.random.SeedSequence(s))["total_sync"]
        assert at_bound < default


def test_group_filter_is_refused_outside_partial_reduce():
    with pytest.raises(ValueError, match="group_filter"):
        Scenario.from_params(dict(scheme="selective", group_filter=True))
    with pytest.raises(ValueError, match="group_filter_window"):
        Scenario.from_params(dict(scheme="partial", group_filter=True, group_filter_window=0))


# ------------------------------------------------------------ PR2, PR3, PR13 weights
def third_sync(**knobs):
    """Three workers, P = 2, syncs of 1e-6 s: w0 and w1 compute 1 s, w2 2.5 s.  (0, 1) sync at
    1 s and 2 s; at 3 s w2 (k = 1, ready since 2.5 s) and w0 (k = 3) form the third group, so
    k̂ = (3, 1): version 1 held by w0, version 3 by w2, version 2 missing."""
    sc = Scenario.from_params(dict(scheme="partial", n=3, p=2 / 3, model_mb=1.0, alpha_s=0.0,
                                   sync_model="eq2_exact", duration_s=3.5, **knobs))
    log = simulate(sc, 0, bandwidth=np.full(3, 8e12),
                   compute=ScriptedComputeTimes([[1.0] * 9, [1.0] * 9, [2.5] * 9]))
    s = log.syncs[2]
    assert s.members == (2, 0)
    return s.weights, s.init_weight


def test_constant_weights_record_nothing():
    assert third_sync() == (None, 0.0)


@pytest.mark.parametrize("missing, w2, w0, w_init", [
    # α = 0.5, K = 3: β = (1, 1/2, 1/4) / (7/4) = (4/7, 2/7, 1/7) for versions 1, 2, 3
    ("initial", 1 / 7, 4 / 7, 2 / 7),   # missing version 2 goes to the initial model
    ("oldest", 3 / 7, 4 / 7, 0.0),      # ... to the group's stalest version (3), held by w2 (PR13)
    ("closest", 2 / 7, 5 / 7, 0.0),     # ... split between versions 1 and 3, both at distance 1 (PR4)
])
def test_pr3_pr13_missing_versions_hand_values(missing, w2, w0, w_init):
    ws, init = third_sync(weights="dynamic", weights_missing=missing)
    assert ws == pytest.approx((w2, w0), abs=1e-12) and init == pytest.approx(w_init, abs=1e-12)


def test_pr2_ema_alpha_reaches_the_weights():
    """α = 0.25: β = (1, 1/4, 1/16) / (21/16) = (16/21, 4/21, 1/21); "oldest" gives w2 5/21."""
    ws, init = third_sync(weights="dynamic", ema_alpha=0.25)
    assert ws == pytest.approx((5 / 21, 16 / 21), abs=1e-12) and init == 0.0
    ws0, _ = third_sync(weights="dynamic", ema_alpha=0.0)    # α = 0: only the freshest version
    assert ws0 == pytest.approx((0.0, 1.0), abs=1e-12)


def test_weights_do_not_change_the_schedule():
    base = dict(scheme="partial", n=8, p=3 / 8, hl=3, bandwidth_gbps=10.0, model_mb=10.0, duration_s=20.0, trace="cnn")
    a = simulate(Scenario.from_params(base), 1)
    b = simulate(Scenario.from_params(dict(base, weights="dynamic", weights_missing="initial")), 1)
    assert [(s.launch, s.members) for s in a.syncs] == [(s.launch, s.members) for s in b.syncs]


@pytest.mark.parametrize("params", [
    dict(scheme="partial", n=8, p=0.375, group_filter=True, group_filter_window=2),   # bound ceil(7/2) = 4
    dict(scheme="partial", n=10, p=0.05, group_filter=True),                        # P = 1: no bound
])
def test_group_filter_settings_that_cannot_run_are_refused_by_the_scenario(params):
    with pytest.raises(ValueError, match="group_filter"):
        Scenario.from_params(params)
