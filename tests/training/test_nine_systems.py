"""Notebook 22's trial (simlib.training.nine_systems): the 1-worker baseline (RP14), Table 1's columns,
the per-update time of runs that never reach the target, the curve columns."""
import numpy as np
import pytest

from simlib.core.seeding import as_seed_sequence, child_seed
from simlib.training import nine_systems as ns
from simlib.workloads.traces import load_trace

QUICK = dict(problem="digits", model="softmax", lr=0.1, data="iid", trace="cnn")


def test_single_worker_log_replays_worker_0s_compute_times_without_syncs():
    seed = as_seed_sequence(5)
    log = ns.single_worker_log("cnn", 30.0, seed)
    ends = np.asarray(log.compute_end[0])
    # worker 0 of an 8-worker run draws the same times (its own child of the run's compute seed)
    draws = load_trace("cnn").compute_times(8, child_seed(seed, 1)).take(0, len(ends) + 1)
    assert ends == pytest.approx(np.cumsum(draws[:-1]))
    assert ends[-1] <= 30.0 < ends[-1] + draws[-1]
    assert log.n == 1 and log.syncs == []


def test_single_worker_trial_counts_local_steps_as_updates():
    out = ns.trial(dict(QUICK, scheme=ns.SINGLE, n=1, duration_s=40.0, target_acc=0.8, curve_every_s=10.0), 0)
    assert out["reached"] == 1 and out["updates_to_target"] == out["iterations_to_target"]
    assert out["per_update_s"] == pytest.approx(out["time_to_target_s"] / out["updates_to_target"])
    assert [k for k in out if k.startswith("acc_at_")] == [ns.curve_column(t) for t in (0, 10, 20, 30, 40)]
    assert all(0.0 <= out[ns.curve_column(t)] <= 1.0 for t in (0, 10, 20, 30, 40))
    with pytest.raises(ValueError, match="n and hl must be 1"):
        ns.trial(dict(QUICK, scheme=ns.SINGLE, n=2, duration_s=10.0), 0)


def test_a_run_that_never_reaches_the_target_reports_its_run_per_update_time():
    out = ns.trial(dict(QUICK, scheme="allreduce", n=4, duration_s=5.0, target_acc=0.92), 0)
    assert out["reached"] == 0 and np.isnan(out["time_to_target_s"]) and np.isnan(out["updates_to_target"])
    assert out["run_updates"] > 0 and out["per_update_s"] == pytest.approx(5.0 / out["run_updates"])


def test_arm_labels_are_table_1s_columns():
    assert [ns.arm_label(s, p) for s, p in ns.ARMS.values()] == list(ns.ARMS)
    assert ns.arm_label("partial", 4) == "CON4" and ns.arm_label(ns.SINGLE) == "1 worker"
    with pytest.raises(ValueError, match="scheme must be one of"):
        ns.arm_label("ring")


def test_per_update_time_is_the_mean_gap_between_updates():
    """PR16's measure cross-checked with the log: all reduce at cv 0 (every compute the samples' mean c,
    about 1 s) makes an update every c + one ring all-reduce, so the mean gap is c + the mean sync."""
    from simlib.papers.cluster_scenario import simulate
    from simlib.training.train_command import TrainScenario

    params = dict(scheme="allreduce", n=8, hl=1, compute_cv=0.0, duration_s=30.0)
    log = simulate(TrainScenario.from_params(params).scenario(), as_seed_sequence(0))
    sync = np.mean([r.finish - r.launch for r in log.syncs if r.finish is not None])
    c = float(load_trace("cnn").samples.mean())
    out = ns.per_update_trial(params, 0)
    assert out["per_update_s"] == pytest.approx(c + sync, rel=1e-9)
    assert out["run_updates"] == len(log.syncs)
    # a slowed worker (hl = 3, γ = 0.5: 2x slower) sets all reduce's pace: 2 s + the ring
    slow = ns.per_update_trial(dict(params, hl=3, hl_slowdown=0.5), 0)
    assert slow["per_update_s"] == pytest.approx(2.0 * c + sync, rel=1e-9)
    assert np.isnan(ns.per_update_trial(dict(params, duration_s=0.5), 0)["per_update_s"])   # no update in 0.5 s


@pytest.mark.parametrize("scheme", ["partial", "ps-asp"])
def test_early_stop_reports_the_full_runs_times_and_its_curve_up_to_the_stop(scheme):
    """RP16 in notebook 22: with early stop every time, count and per-update time to a target is the
    full run's, the curve equals the full run's up to the stop and is NaN after it (never its last value)."""
    params = dict(QUICK, scheme=scheme, n=4, p=2, duration_s=200.0, target_acc=0.8, curve_every_s=5.0)
    full = ns.trial(params, 3)
    early = ns.trial(dict(params, early_stop=True), 3)
    assert full["reached"] == early["reached"] == 1
    keys = ["time_to_target_s", "updates_to_target", "per_update_s", "iterations_to_target"]
    keys += [k for k in full if k.startswith("time_to_acc")]
    np.testing.assert_array_equal([early[k] for k in keys], [full[k] for k in keys])
    curve = sorted((float(k[len("acc_at_"):-1]), k) for k in full if k.startswith("acc_at_"))
    stopped = [k for _, k in curve if np.isnan(early[k])]
    assert stopped, "the replay should stop before 200 s: the digits ladder's top rung is reached"
    assert [k for _, k in curve][-len(stopped):] == stopped             # NaN only after the stop
    assert all(early[k] == full[k] for _, k in curve if k not in stopped)
    assert early["run_updates"] <= full["run_updates"]
    with pytest.raises(ValueError, match="early_stop"):
        ns.trial(dict(params, early_stop="yes"), 3)


def test_evidence_sweeps_change_one_thing_of_a_table_1_setting():
    """Issue 32's extra sweeps of notebook 22: each setting is Table 1's (the notebook's `settings`) with the
    one change its decision names, so trial t pairs with Table 1's trial t; every one is a valid run."""
    from simlib.training.notebook_specs import NineSystemsNotebook
    from simlib.training.train_command import TrainScenario

    spec = NineSystemsNotebook()
    common = dict(spec.training(), curve_every_s=spec.curve_every_s, early_stop=spec.early_stop)
    table1 = [dict(common, scheme=s, n=spec.n, hl=hl, p=P or 3, backups=spec.backups, trace=spec.trace,
                   duration_s=spec.duration_s) for hl in spec.hl_values for s, P in ns.ARMS.values()]
    changes = {"22_pr_staleness": set(), "22_pr_sr_bandwidths": {"bandwidth_gbps"},
               "22_pr_group_filter": {"group_filter"}, "22_pr_momentum": {"momentum", "lr"}}
    sweeps = ns.evidence_sweeps(spec)
    assert set(sweeps) == set(changes)
    for name, (fn, settings) in sweeps.items():
        for s in settings:
            twin = [t for t in table1 if all(t[k] == s[k] for k in ("scheme", "hl", "p"))]
            assert len(twin) == 1, (name, s)
            diff = {k for k in set(s) | set(twin[0]) if s.get(k) != twin[0].get(k)}
            assert diff == changes[name], (name, diff)
            TrainScenario.from_params({k: v for k, v in s.items() if k not in ("curve_every_s", "early_stop")})
    assert {s["scheme"] for s in sweeps["22_pr_group_filter"][1]} == {"partial", "partial-dynamic"}
    assert len(sweeps["22_pr_group_filter"][1]) == 4 * len(spec.filter_hls)
    assert sweeps["22_pr_momentum"][1][0]["lr"] == pytest.approx(spec.lr * (1 - spec.momentum_check))


def test_a_setting_is_checked_once_in_its_scenario_and_round_trips():
    """SystemSetting declares what the trial used to check by hand (curve_every_s, early_stop, the
    1-worker rule); the trial takes it or its flat dict, with the same result."""
    single = dict(QUICK, scheme=ns.SINGLE, n=1, duration_s=40.0, curve_every_s=10.0)
    s = ns.SystemSetting.from_params(single)
    assert s.single and s.to_params()["scheme"] == ns.SINGLE and s.to_params()["n"] == 1
    assert ns.SystemSetting.from_params(s.to_params()) == s
    run = ns.SystemSetting.from_params(dict(QUICK, scheme="allreduce", n=4, duration_s=5.0, target_acc=0.92))
    assert not run.single and run.system.scenario().n == 4 and run.curve_every_s == 10.0
    a, b = ns.trial(run, 0), ns.trial(run.to_params(), 0)
    np.testing.assert_array_equal(list(a.values()), list(b.values()))
    assert list(a) == list(b)
    for bad, name, text in [(dict(curve_every_s=0.0), "curve_every_s", r"curve_every_s must be in \(0"),
                            (dict(early_stop="yes"), "early_stop", "early_stop must be true or false"),
                            (dict(scheme=ns.SINGLE, n=1, hl=2), "n", "n and hl must be 1"),
                            (dict(single=True), "single", "single is not a parameter"),
                            (dict(p=9), "p", r"p must be in \[1, n = 8\]")]:
        with pytest.raises(ValueError, match=text) as info:
            ns.SystemSetting.from_params(dict(QUICK, **bad))
        assert info.value.name == name
    with pytest.raises(ValueError, match="not the 1-worker baseline"):
        ns.simulated_system(single)
    assert ns.simulated_system(run) is run.system


def test_table1_open_settings_extends_the_arms_an_undecided_verdict_compares():
    """S25 in notebook 22: an undecided Table 1 verdict extends exactly the runs of the two arms its value
    pairs ("median paired CON3/AR"), at every HL; a verdict pairing no arms extends none."""
    from simlib.papers.claim import Claim

    sets = [dict(scheme="allreduce", p=3, hl=1),             # 0 AR (no group size: p is ignored)
            dict(scheme="partial", p=3, hl=1),               # 1 CON3
            dict(scheme="partial", p=5, hl=1),               # 2 CON5
            dict(scheme="partial-dynamic", p=3, hl=1),       # 3 DYN3
            dict(scheme="ps-backup", p=3, hl=1),             # 4 BK
            dict(scheme="allreduce", p=3, hl=3),             # 5 AR
            dict(scheme="partial", p=3, hl=3)]               # 6 CON3

    def claim(value):
        return Claim(paper="002", figure="Table 1", claim="c", paper_value="x", our_value=value, direction=True)

    assert ns.table1_open_settings(sets, [claim("median paired CON3/AR: 0.41× at HL=1")]) == [0, 1, 5, 6]
    assert ns.table1_open_settings(sets, [claim("median paired BK/AR: 1.0×"),
                                          claim("median paired DYN3/CON5: 0.9×")]) == [0, 2, 3, 4, 5]
    assert ns.table1_open_settings(sets, [claim("12 of 12 cells")]) == []
    assert ns.table1_open_settings(sets, []) == []


def test_notebook_22_settings_come_from_its_spec():
    """Notebook 22's Table 1 and Fig. 11 runs, built by the spec from its parameters (hand-listed here): at
    HL 3 with P = 3 only, the ten arms of Table 1 (+ SR3) without CON5/DYN5, schemes without a group size at
    p = 3; Fig. 11 the 1-worker baseline, then AR, BK (m // 4 backups) and PR (P = fig11_p) per m > 1."""
    from simlib.training.notebook_specs import NineSystemsNotebook

    spec = NineSystemsNotebook(hl_values=(3,), table_p=(3,), fig11_n=(1, 8), fig11_p=4, duration_s=900.0,
                               fig11_single_duration_s=300.0, fig11_trace="cnn")
    t1 = spec.table1_settings()
    assert [(s["scheme"], s["p"], s["hl"]) for s in t1] == [
        ("allreduce", 3, 3), ("eager", 3, 3), ("adpsgd", 3, 3), ("ps-bsp", 3, 3), ("ps-asp", 3, 3),
        ("ps-hete", 3, 3), ("ps-backup", 3, 3), ("partial", 3, 3), ("partial-dynamic", 3, 3), ("selective", 3, 3)]
    assert {(s["n"], s["backups"], s["trace"], s["duration_s"], s["curve_every_s"], s["early_stop"]) for s in t1} == {
        (8, spec.backups, "cnn", 900.0, spec.curve_every_s, spec.early_stop)}
    assert all(s["target_acc"] == spec.target_acc and s["lr"] == spec.lr and s["model_mb"] == spec.model_mb for s in t1)
    f11 = spec.fig11_settings()
    assert [(s["scheme"], s["n"], s.get("p"), s.get("backups"), s["duration_s"]) for s in f11] == [
        (ns.SINGLE, 1, None, None, 300.0), ("allreduce", 8, 4, 2, 900.0), ("ps-backup", 8, 4, 2, 900.0),
        ("partial", 8, 4, 2, 900.0)]
    assert {s["trace"] for s in f11} == {"cnn"}
    for s in t1 + f11:                  # every setting is one the trial accepts (checked before any run)
        assert ns.SystemSetting.from_params(s).to_params()["scheme"] == s["scheme"]
