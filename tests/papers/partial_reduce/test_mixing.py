"""Spectral gap of simulated schedules (simlib.papers.partial_reduce.experiments.mixing)."""
import numpy as np
import pytest

from simlib.papers.cluster_scenario import Scenario, simulate
from simlib.papers.partial_reduce.experiments import mixing
from simlib.runtime.log import ScheduleLog, SyncRecord


def log_of(n, groups):
    log = ScheduleLog(n=n, duration=10.0, bandwidth=np.ones(n), compute_end=[[] for _ in range(n)])
    log.syncs = [SyncRecord(launch=float(i), members=tuple(g), iterations=(1,) * len(g)) for i, g in enumerate(groups)]
    return log


def brute_rho(n, groups):
    """E[W] built entry by entry (1/P averaging inside each group), then max(|λ2|, |λN|)."""
    EW = np.zeros((n, n))
    for g in groups:
        W = np.eye(n)
        for i in g:
            W[i, :] = 0.0
            for j in g:
                W[i, j] = 1.0 / len(g)
        EW += W / len(groups)
    lam = np.sort(np.linalg.eigvalsh(EW))
    return max(abs(lam[-2]), abs(lam[0]))


def test_schedule_rho_hand_computed():
    """{0,1} then {1,2}: E[W] = [[.75,.25,0],[.25,.5,.25],[0,.25,.75]], eigenvalues 1 ([1,1,1]),
    0.75 ([1,0,-1]) and 0.25 ([1,-2,1]) -> ρ = 0.75."""
    assert mixing.schedule_rho(log_of(3, [(0, 1), (1, 2)])) == pytest.approx(0.75, abs=1e-12)


def test_schedule_rho_all_reduce_is_zero_and_disconnected_is_one_and_empty_is_nan():
    assert mixing.schedule_rho(log_of(4, [(0, 1, 2, 3)] * 3)) == pytest.approx(0.0, abs=1e-12)
    assert mixing.schedule_rho(log_of(4, [(0, 1), (2, 3)])) == pytest.approx(1.0, abs=1e-12)
    assert np.isnan(mixing.schedule_rho(log_of(4, [])))


def test_schedule_rho_counts_every_sync_including_repeats():
    """E[W] weights groups by how often they were launched: {0,1} twice and {1,2} once differs
    from once each; both equal the brute-force ρ."""
    for groups in ([(0, 1), (0, 1), (1, 2)], [(0, 1), (1, 2)], [(0, 1, 2), (2, 3), (0, 3)]):
        n = 1 + max(max(g) for g in groups)
        assert mixing.schedule_rho(log_of(n, groups)) == pytest.approx(brute_rho(n, groups), abs=1e-12)
    assert brute_rho(3, [(0, 1), (0, 1), (1, 2)]) != pytest.approx(0.75)


def test_trial_reports_the_schedule_metrics_rho_and_distinct_groups():
    params = dict(scheme="partial", n=8, p=0.25, duration_s=10.0, model_mb=10.0, bandwidth_gbps=10.0)
    out = mixing.trial(params, np.random.SeedSequence(3))
    log = simulate(Scenario.from_params(params), np.random.SeedSequence(3))
    groups = [s.members for s in log.syncs]
    assert out["total_sync"] == len([s for s in log.syncs if s.finish is not None])
    assert out["rho"] == pytest.approx(brute_rho(8, groups), abs=1e-12)
    assert 0.0 < out["rho"] < 1.0
    assert out["distinct_groups"] == len({frozenset(g) for g in groups}) > 1
    full = mixing.trial(dict(params, scheme="allreduce"), np.random.SeedSequence(3))
    assert full["rho"] == pytest.approx(0.0, abs=1e-9) and full["distinct_groups"] == 1
