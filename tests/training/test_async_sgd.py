"""Notebook 93's with-network trial: outage windows in the cluster (T9), used-gradient times, the greedy
reference, and the notebook's settings."""
from __future__ import annotations

import numpy as np
import pytest

from simlib.papers.cluster_scenario import Scenario, simulate
from simlib.runtime.metrics import sync_metrics, update_times
from simlib.training import async_sgd as a
from simlib.workloads import gradient_collection as gc
from simlib.workloads.outages import first_workers_out
from simlib.workloads.traces import load_trace


def _sc(scheme, **kw):
    return Scenario.from_params(dict(dict(scheme=scheme, n=4, trace="cnn", duration_s=30.0, bandwidth_gbps=10.0,
                                          model_mb=10.0, p=0.5), **kw))


@pytest.mark.parametrize("scheme, kw", [("ps-backup", dict(backups=1)), ("partial", {}), ("ps-asp", {})])
def test_no_outage_is_the_scenarios_own_run(scheme, kw):
    sc = _sc(scheme, **kw)
    a_log, b_log = a.simulate_with_outages(sc, 3), simulate(sc, 3)
    assert a_log.compute_end == b_log.compute_end
    assert [(s.launch, s.members, s.weights) for s in a_log.syncs] == [(s.launch, s.members, s.weights)
                                                                        for s in b_log.syncs]


def test_an_outage_stalls_bsp_but_not_ps_backup_with_a_backup_for_the_gone_worker():
    """Worker 0 gone during [2, 12): BSP needs its gradient every step, so no step closes between the step in
    flight at 2 s (≤ about 3.5 s with ~1 s steps) and 12 s; PS backup with b = 1 keeps stepping."""
    gone = first_workers_out(1, 2.0, 10.0)
    bsp = update_times(a.simulate_with_outages(_sc("ps-bsp"), 0, gone))
    bk = update_times(a.simulate_with_outages(_sc("ps-backup", backups=1), 0, gone))
    assert not np.any((bsp > 4.0) & (bsp < 12.0))
    assert np.any(bsp >= 12.0)
    assert np.sum((bk > 4.0) & (bk < 12.0)) >= 5
    # the gone worker computed nothing that ended inside its window
    ends = np.asarray(a.simulate_with_outages(_sc("ps-asp"), 0, gone).compute_end[0])
    assert not np.any((ends > 2.0) & (ends < 12.0))


def test_used_gradients_count_applied_pushes_or_every_local_step():
    ps = simulate(_sc("ps-backup", backups=1), 1)
    used = a.used_gradient_times(ps)
    applied = sum(1 for s in ps.syncs if s.weights is not None and s.weights[0] != 0)
    assert used.size == applied and np.all(np.diff(used) >= 0)
    assert ps.counters.get("dropped_gradients", 0) > 0 and applied < sync_metrics(ps)["total_iteration"]
    pr = simulate(_sc("partial"), 1)
    assert a.used_gradient_times(pr).size == sync_metrics(pr)["total_iteration"]


def test_greedy_reference_is_the_trace_only_collector_on_the_clusters_draws():
    sc = _sc("ps-bsp")
    from simlib.core.seeding import as_seed_sequence, child_seed
    times = gc.worker_times(load_trace("cnn"), 4, child_seed(as_seed_sequence(5), 1), 40)
    assert a.greedy_reference(sc, 5, 40) == pytest.approx(gc.greedy_arrivals(times, 40))
    gone = first_workers_out(2, 1.0, 20.0)
    slowed = a.greedy_reference(sc, 5, 40, gone)
    assert np.all(slowed >= a.greedy_reference(sc, 5, 40) - 1e-12) and slowed[-1] > a.greedy_reference(sc, 5, 40)[-1]


def test_trial_reports_the_system_and_the_outage_knob_changes_bsp():
    base = dict(scheme="ps-bsp", n=4, trace="cnn", duration_s=30.0, problem="digits", model="softmax", lr=0.1,
                data="iid", target_acc=0.8)
    free = a.trial(base, 0)
    gone = a.trial(dict(base, outage_workers=1, outage_start_s=1.0, outage_s=20.0), 0)
    assert free["system"] == "BSP" and gone["system"] == "BSP"
    assert gone["net_k3"] > free["net_k3"] + 15.0        # 12 gradients need the gone worker's after the window
    assert gone["greedy_k3"] >= free["greedy_k3"]


def test_network_settings_cover_every_system_and_the_outage_arms():
    spec = a.AsyncSGDNotebook()
    sets = a.network_settings(spec)
    free = [s for s in sets if s["outage_workers"] == 0]
    assert [s["scheme"] for s in free if s["trace"] == "pai-job4"] == (["ps-bsp"] + ["ps-backup"] * len(spec.backups_values)
                                                                     + list(a.OTHERS))
    gone = [s for s in sets if s["outage_workers"] > 0]
    assert {s["scheme"] for s in gone} == set(a.OUTAGE_SYSTEMS)
    assert [s["backups"] for s in gone if s["scheme"] == "ps-backup"] == list(spec.outage_backups) * len(spec.net_traces)
    # every outage run has its run without the outage (paired by trial)
    key = lambda s: (s["trace"], s["scheme"], s.get("backups"))
    assert {key(s) for s in gone} <= {key(s) for s in free}
    extra = a.network_settings(a.AsyncSGDNotebook(backups_values=(1,), outage_backups=(3,)))
    assert {key(s) for s in extra if s["outage_workers"]} <= {key(s) for s in extra if not s["outage_workers"]}
    with pytest.raises(ValueError, match="outage_workers"):
        a.AsyncSGDNotebook(outage_workers=8)
