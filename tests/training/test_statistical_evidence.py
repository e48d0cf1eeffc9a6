"""Notebook 22's statistical evidence (simlib.training.statistical_evidence, decision RP20): local steps to
the target against all reduce's, stale vs fresh replays of one schedule, dynamic vs constant updates, and
the Table 1 causes that carry them."""
import math

import numpy as np
import pandas as pd
import pytest

from simlib.papers.partial_reduce import table1_claims as t1
from simlib.training import nine_systems as ns
from simlib.training import statistical_evidence as se

QUICK = dict(problem="digits", model="softmax", lr=0.1, data="iid", trace="cnn", target_acc=0.85)


def frame(steps: dict, updates: dict | None = None, hls=(1, 3), trials=3):
    """One row per (arm, hl, trial); ``steps[arm]`` a list over trials (NaN: never reached)."""
    rows = []
    for arm, per in steps.items():
        for hl in hls:
            for k in range(trials):
                s = per[k]
                u = (updates or {}).get(arm, [s / 8] * trials)[k]
                rows.append(dict(arm=arm, hl=hl, trial=k, iterations_to_target=s, updates_to_target=u,
                                 reached=int(not math.isnan(s)), time_to_target_s=s / 8, per_update_s=1.0,
                                 duration_s=1000.0, run_updates=500.0))
    return pd.DataFrame(rows)


def test_steps_to_target_pairs_every_system_with_all_reduce_per_trial():
    df = frame({"AR": [1000.0, 1200.0, 800.0], "ER": [1100.0, 1200.0, 400.0], "ASP": [np.nan, np.nan, 900.0]})
    st = se.steps_to_target(df).set_index(["hl", "arm"])
    er = st.loc[(1, "ER")]
    # paired ratios 1.1, 1.0, 0.5: median 1.0 (the unpaired medians would give 1100/1000)
    assert er["steps_vs_ref"] == pytest.approx(1.0) and er["steps_vs_ref_min"] == pytest.approx(0.5)
    assert er["steps_vs_ref_max"] == pytest.approx(1.1) and er["local_steps"] == 1100.0
    assert st.loc[(1, "AR"), "steps_vs_ref"] == 1.0
    asp = st.loc[(3, "ASP")]                   # two runs never reached it: the median is unknown, not a number
    assert asp["reached"] == 1 and math.isnan(asp["local_steps"]) and math.isnan(asp["steps_vs_ref"])
    with pytest.raises(ValueError, match="iterations_to_target"):
        se.steps_to_target(df.drop(columns="iterations_to_target"))


def test_dynamic_vs_constant_is_the_paired_updates_ratio_per_hl_and_p():
    df = frame({"CON3": [800.0] * 3, "DYN3": [800.0] * 3},
               updates={"CON3": [100.0, 200.0, 100.0], "DYN3": [90.0, 220.0, 80.0]})
    d = se.dynamic_vs_constant(df)
    assert list(d["P"]) == [3, 3] and d["median"].tolist() == pytest.approx([0.9, 0.9])
    assert d["num_smaller"].tolist() == [2, 2] and d["max"].tolist() == pytest.approx([1.1, 1.1])
    assert se.dynamic_vs_constant(df, table_p=(5,)).empty


def test_staleness_summary_censors_a_run_that_never_reached_the_target():
    rows = [dict(hl=1, arm="ER", trial=k, simulated_s=100.0, stale_time_s=s, fresh_time_s=f, stale_steps=s * 8,
                 fresh_steps=f * 8, staleness_mean=2.0, curve_gap=g)
            for k, (s, f, g) in enumerate([(50.0, 40.0, 0.1), (60.0, 66.0, 0.02), (40.0, 40.0, 0.0)])]
    s = se.staleness_summary(pd.DataFrame(rows)).iloc[0]
    assert s["time_ratio"] == pytest.approx(1.0) and s["time_ratio_min"] == pytest.approx(0.8)
    assert s["time_ratio_max"] == pytest.approx(1.1) and s["curve_gap"] == 0.1 and s["steps_ratio"] == pytest.approx(1.0)
    rows[0]["fresh_time_s"] = rows[0]["fresh_steps"] = np.nan        # fresh never reached it in 100 s: ≥ 2×
    rows[2]["fresh_time_s"] = rows[2]["fresh_steps"] = np.nan        # and ≥ 2.5×: the median is ≥ 2.0, a bound
    s = se.staleness_summary(pd.DataFrame(rows)).iloc[0]
    assert math.isnan(s["time_ratio"]) and s["time_ratio_lo"] == pytest.approx(2.0) and math.isinf(s["time_ratio_hi"])
    assert math.isnan(s["steps_ratio"]) and math.isnan(s["fresh_time_s"])
    assert (s["trials"], s["stale_reached"], s["fresh_reached"]) == (3, 3, 1)


def test_staleness_trial_stale_replay_is_notebook_22s_run_and_bsp_has_nothing_stale():
    """The stale replay is the Table 1 trial's (same schedule, seed, replay), reached at the same time; PS
    BSP's gradients are never stale, so its fresh replay reaches it at the same time with the same curve."""
    for scheme in ("eager", "ps-bsp"):
        p = dict(QUICK, scheme=scheme, n=4, hl=2, duration_s=60.0)
        out = se.staleness_trial(p, 3)
        ref = ns.trial(dict(p, curve_every_s=10.0), 3)
        assert out["stale_time_s"] == ref["time_to_target_s"] and out["stale_updates"] == ref["updates_to_target"]
        assert out["stale_steps"] == ref["iterations_to_target"]
        if scheme == "ps-bsp":
            assert out["staleness_max"] == 0 and out["curve_gap"] < 1e-6
            assert out["fresh_time_s"] == out["stale_time_s"]
        else:
            assert out["staleness_max"] >= 1                 # Eager-Reduce's late contributors are stale
    with pytest.raises(ValueError, match="gradient-rule system"):
        se.staleness_trial(dict(QUICK, scheme="partial", n=4, duration_s=10.0), 0)


def test_staleness_trial_simulates_the_second_stage_only_when_needed():
    """A target not reached in the first half of the cap: the run is simulated to the cap and censored there."""
    out = se.staleness_trial(dict(QUICK, scheme="ps-asp", n=4, duration_s=6.0, target_acc=0.92), 0)
    assert out["simulated_s"] == 6.0 and math.isnan(out["stale_time_s"]) and math.isnan(out["fresh_steps"])
    early = se.staleness_trial(dict(QUICK, scheme="ps-asp", n=4, duration_s=200.0), 0)
    assert early["simulated_s"] == 100.0 and early["stale_time_s"] <= 100.0


def test_table1_causes_end_with_the_tasks_evidence_only_where_a_statistical_claim_fails():
    from tests.papers.partial_reduce.test_table1_claims import frame as t1_frame

    df = t1_frame({"ER": 5.0, "AR": 1.0, "CON3": 1.0, "DYN3": 1.0, "ASP": 2.0, "HETE": 3.0, "BSP": 1.0},
                  updates={"DYN3": 120.0, "CON3": 100.0, "ASP": 900.0, "BSP": 100.0}, trials=6)   # decided (S24)
    ev = {"eager": "ER EVIDENCE", "dynamic": "DYN EVIDENCE", "staleness": "STALE EVIDENCE"}
    rows = {c.claim: c for c in t1.table1(df, evidence=ev)}
    er = rows["nine systems: Eager-Reduce fails to reach the accuracy threshold"]
    assert not er.holds and er.cause.endswith("; on the task: ER EVIDENCE")
    dyn = rows["nine systems: dynamic weights need fewer updates than constant (P=3)"]
    assert dyn.direction is False and dyn.cause.endswith("; on the task: DYN EVIDENCE")
    hete = rows["nine systems: PS HETE is faster than PS ASP"]
    assert not hete.holds and hete.cause.endswith("; on the task: STALE EVIDENCE")
    assert rows["nine systems: PS ASP needs more updates than PS BSP"].holds          # holds: no cause added
    assert rows["nine systems: PS ASP needs more updates than PS BSP"].cause == ""
    plain = {c.claim: c.cause for c in t1.table1(df)}
    assert "on the task" not in plain[er.claim]
    # DYN5/CON5 0.99 at HL 1, 0.90 at HL 3: fewer, and inside Table 1's range at each level
    df2 = t1_frame({"CON5": 1.0, "DYN5": 1.0}, updates={"DYN5": {1: 99.0, 3: 90.0}, "CON5": 100.0}, trials=6)
    assert {c.claim: c for c in t1.table1(df2)}[
        "nine systems: dynamic weights need fewer updates than constant (P=5)"].holds
    with pytest.raises(ValueError, match="evidence keys must be among"):
        t1.table1(df, evidence={"eagr": "x"})


def test_evidence_texts_and_observations_carry_the_measurements():
    df = frame({"AR": [1000.0] * 3, "ER": [1100.0] * 3, "CON3": [900.0] * 3, "DYN3": [900.0] * 3},
               updates={"CON3": [100.0] * 3, "DYN3": [95.0] * 3})
    steps, dyn = se.steps_to_target(df), se.dynamic_vs_constant(df)
    stale = pd.DataFrame([dict(hl=1, arm="ER", trials=3, stale_reached=3, fresh_reached=2, time_ratio_lo=1.02,
                               time_ratio_hi=1.02, staleness_mean=1.5, curve_gap=0.031)])
    txt = se.evidence_texts(steps, stale, dyn)
    assert "ER reached in 3 of 3 runs with 1.10× all reduce's local steps" in txt["eager"]
    assert ("ER HL=1 1.02× the time (reached 3 of 3 as logged, 2 of 3 fresh; mean staleness 1.5 updates, "
            "largest accuracy gap 0.031)") in txt["eager"]
    assert "0.90–1.10× over 6 system × HL cells" in txt["staleness"]
    assert "P=3 HL=1 0.95× (DYN fewer in 3 of 3)" in txt["dynamic"]
    obs = se.observations(steps, stale, dyn, setting="profile", target=0.45)
    assert [o.kind for o in obs] == ["observation"] * 3 and {o.setting for o in obs} == {"profile"}
    assert "to 45%" in obs[0].claim and "HL=1: AR 1000, CON3 900, DYN3 900, ER 1100" in obs[0].our_value
    assert obs[1].claim == "statistical efficiency: stale vs fresh gradients to 45%"
    assert "ER HL=1 1.02× the time (reached 3 of 3 as logged, 2 of 3 fresh;" in obs[1].our_value
    assert len(se.observations(steps)) == 1                           # without the optional measurements


def test_momentum_effect_pairs_each_momentum_run_with_the_same_plain_run():
    """RP21: plain ER times 100, 200, 300 s (cap 1000); with momentum 50, 300, never (cap 600): ratios 0.5,
    1.5 and ≥ 2 -- the median 1.5 is a number (the censored pair lies above it)."""
    plain = pd.DataFrame([dict(arm="ER", hl=1, trial=k, time_to_target_s=t, duration_s=1000.0)
                          for k, t in enumerate([100.0, 200.0, 300.0])])
    mom = pd.DataFrame([dict(arm="ER", hl=1, trial=k, stale_time_s=t, fresh_time_s=t, stale_steps=t, fresh_steps=t,
                             simulated_s=600.0, staleness_mean=1.0, curve_gap=0.0)
                        for k, t in enumerate([50.0, 300.0, np.nan])])
    e = se.momentum_effect(plain, mom).iloc[0]
    assert e["ratio"] == pytest.approx(1.5) and e["reached"] == 2 and e["trials"] == 3
    assert e["plain_time_s"] == 200.0 and e["momentum_time_s"] == 300.0
    assert e["fresh_ratio_lo"] == pytest.approx(1.0)             # fresh = stale in the two reached pairs
    (o,) = se.momentum_observation(se.momentum_effect(plain, mom), 0.9, 0.05, 0.5)
    assert "ER HL=1: 1.50× the time (300 vs 200 s, reached 2 of 3" in o.our_value and "lr 0.05" in o.note
    mom.loc[1, "stale_time_s"] = np.nan                          # two censored: the median is only a bound
    e = se.momentum_effect(plain, mom).iloc[0]
    assert math.isnan(e["ratio"]) and e["ratio_lo"] == pytest.approx(2.0)
    assert se.momentum_observation(se.momentum_effect(plain.assign(hl=3), mom), 0.9, 0.05, 0.5) == []


def test_momentum_changes_a_staleness_trial_and_zero_is_plain_sgd():
    p = dict(QUICK, scheme="ps-asp", n=4, hl=2, duration_s=60.0)
    plain = se.staleness_trial(p, 1)
    assert se.staleness_trial(dict(p, momentum=0.0), 1) == plain
    mom = se.staleness_trial(dict(p, momentum=0.5, lr=0.05), 1)
    assert mom["stale_time_s"] != plain["stale_time_s"] or mom["stale_steps"] != plain["stale_steps"]


def test_the_steps_observation_counts_censored_pairs_and_gives_open_cells_as_bounds():
    """A cell whose median censored runs decide is a bound in the text, never a ratio; the censored pairs
    are counted (RP17)."""
    df = frame({"AR": [1000.0, 1200.0, 800.0], "ER": [1100.0, 1200.0, 400.0], "ASP": [np.nan, np.nan, 900.0]})
    [obs] = se.observations(se.steps_to_target(df))[:1]
    # ER: ratios 1.1, 1.0, 0.5 at both HLs (median 1.00); ASP: two pairs never reached it, and a censored
    # run's step count is not recorded (no bound below ∞ above 0): the median ratio is n/a, not a number
    assert "1.00× over 2 of 4 system × HL cells" in obs.our_value
    assert "left open by runs that never reached the target: ASP HL=1 n/a, ASP HL=3 n/a" in obs.our_value
    assert "4 of 12 pairs censored" in obs.our_value
    assert "∞" not in obs.our_value and "infinitely" not in obs.note
    clean = se.observations(se.steps_to_target(frame({"AR": [1000.0] * 3, "ER": [900.0] * 3})))[0]
    assert "0 of 6 pairs censored" in clean.our_value and "left open" not in clean.our_value
