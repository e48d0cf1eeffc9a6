"""Notebook 22's claims (002 §5.2 on all nine systems, §5.3.2's Fig. 11) on hand-built frames: each rule
at its edge (holds exactly at the tolerance, fails just past it), direction and magnitude apart."""
import math

import numpy as np
import pandas as pd
import pytest

from simlib.papers.partial_reduce import table1_claims as t1
from simlib.papers.partial_reduce.claims import TABLE1


def frame(times: dict, updates: dict | None = None, per_update: dict | None = None, hls=(1, 3), trials=3):
    """One row per (arm, hl, trial); ``times[arm]`` a number (every HL and trial) or {hl: number};
    NaN = never reached.  Updates and per-update times default to 100 and 1.0."""
    rows = []
    for arm, t in times.items():
        for hl in hls:
            for k in range(trials):
                def pick(d, default):
                    v = (d or {}).get(arm, default)
                    return v.get(hl, default) if isinstance(v, dict) else v
                tt = pick(times, np.nan)
                rows.append(dict(arm=arm, hl=hl, trial=k, time_to_target_s=tt,
                                 updates_to_target=pick(updates, 100.0), per_update_s=pick(per_update, 1.0),
                                 reached=int(not math.isnan(tt)), duration_s=100.0))
    return pd.DataFrame(rows)


def claim(claims, text):
    found = [c for c in claims if text in c.claim]
    assert len(found) == 1, [c.claim for c in claims]
    return found[0]


def test_table1_transcription_agrees_with_notebook_21s_columns():
    for key, cells in TABLE1.items():
        for arm, vals in cells.items():
            assert t1.TABLE1_ALL[key][arm] == vals
    # the paper's "up to" numbers are Table 1's maxima where §5.2 says so
    assert max(t1.table1_ratios("BK", "CON5", "time")) == pytest.approx(1.47, abs=0.005)
    assert max(t1.table1_ratios("BK", "DYN3", "time")) == pytest.approx(1.84, abs=0.005)
    assert 1224 / 705 == pytest.approx(1.74, abs=0.005)          # AD/DYN3, DenseNet-121 HL 2
    # ER never reaches the threshold: no run time, no #update
    assert all(c["ER"][0] is None and c["ER"][1] is None for c in t1.TABLE1_ALL.values())


@pytest.mark.parametrize("top, direction, magnitude", [
    (1.47 * 1.1, True, True),            # exactly at the 10 % edge
    (1.47 * 1.1 * 1.001, True, False),   # just past it: the direction still holds
    (1.47 * 0.9, True, True),
    (1.47 * 0.9 * 0.999, True, False),
    (1.0, False, False),                 # a tie is not "beats"
])
def test_up_to_147_edges(top, direction, magnitude):
    df = frame({"BK": {1: 1.0, 3: top}, "CON5": 1.0}, trials=6)      # 6 pairs: the interval can decide (S24)
    c = claim(t1.table1(df), "P=5) beats PS BK")
    assert (c.direction, c.magnitude) == (direction, magnitude)
    assert c.holds == (direction and magnitude) and bool(c.cause) != c.holds
    # at 3 pairs no 95 % interval exists: the same values leave the verdict undecided (S24)
    c3 = claim(t1.table1(frame({"BK": {1: 1.0, 3: top}, "CON5": 1.0})), "P=5) beats PS BK")
    assert (c3.direction, c3.magnitude) == (direction, magnitude) and c3.holds is None
    assert c3.verdict == "undecided" and c3.pairs == 3 and "n/a (3 pairs < 6)" in c3.interval


def test_up_to_magnitude_is_not_shown_by_a_censored_bound():
    """BK never reaches the target in its 1.5 s, CON5 at 1 s: "≥ 1.50×" beats, but whether the largest
    median is within 10 % of 1.47× is unknown, so the magnitude does not hold."""
    df = frame({"BK": np.nan, "CON5": 1.0})
    df.loc[df["arm"] == "BK", "duration_s"] = 1.5
    c = claim(t1.table1(df), "P=5) beats PS BK")
    assert "≥ 1.50×" in c.our_value and (c.direction, c.magnitude) == (True, False)


def test_fewer_updates_at_every_hl_is_judged_on_the_upper_bound():
    """DYN3 never reaches the target in its 90 updates, CON3 in 100: "≥ 0.90×" is not certainly < 1."""
    df = frame({"DYN3": 1.0, "CON3": 1.0}, updates={"DYN3": np.nan, "CON3": 100.0})
    df["run_updates"] = df["updates_to_target"].fillna(90.0)
    c = claim(t1.table1(df), "dynamic weights need fewer updates than constant (P=3)")
    assert "≥ 0.90×" in c.our_value and c.direction is False
    df = frame({"DYN3": 1.0, "CON3": 1.0}, updates={"DYN3": 90.0, "CON3": 100.0})
    assert claim(t1.table1(df), "fewer updates than constant (P=3)").direction is True


def test_up_to_174_uses_the_heterogeneous_levels_only():
    df = frame({"AD": {1: 1.74 * 2, 3: 1.74}, "DYN3": 1.0})
    c = claim(t1.table1(df), "beats AD-PSGD")
    assert c.direction and c.magnitude                   # HL 1's 3.48× is ignored
    df = frame({"AD": {1: 1.74, 3: 0.9}, "DYN3": 1.0})
    c = claim(t1.table1(df), "beats AD-PSGD")
    assert not c.direction and not c.magnitude


@pytest.mark.parametrize("ratio, ok", [(1.48, True), (2.01, True), (1.479, False), (2.0101, False)])
def test_dyn_vs_ar_range_edges(ratio, ok):
    df = frame({"AR": {1: 0.5, 3: ratio}, "DYN3": 1.0})
    c = claim(t1.table1(df), "DYN (P=3) is at most")
    assert c.direction is True and c.magnitude is ok


@pytest.mark.parametrize("ratio, direction, magnitude", [(3.6, True, True), (4.4, True, True),
                                                         (3.599, True, False), (0.9, False, False)])
def test_per_update_4x_at_every_hl(ratio, direction, magnitude):
    df = frame({"AR": 1.0, "CON3": 1.0}, per_update={"AR": {1: 4.0, 3: ratio}, "CON3": 1.0})
    c = claim(t1.table1(df), "4× faster per update")
    assert (c.direction, c.magnitude) == (direction, magnitude)


def test_every_hl_comparison_is_strict_and_censors_runs_that_never_reach_the_target():
    # BSP equal to CON3 at HL 3: not slower
    c = claim(t1.table1(frame({"BSP": {1: 2.0, 3: 1.0}, "CON3": 1.0})), "PS BSP is (slightly) slower than partial "
                                                                        "reduce (P=3)")
    assert c.direction is False and c.magnitude is None and c.cause.startswith("setting:")
    # BSP never reaches the target within its 100 s: more than 100× slower, at every HL -- a bound, not ∞
    c = claim(t1.table1(frame({"BSP": np.nan, "CON3": 1.0})), "P=3)")
    assert c.direction is True and "HL=1: ≥ 100.00× (0 of 3 trials num < den, 3 censored)" in c.our_value
    assert "∞" not in c.our_value
    # both never reach: n/a, which does not show BSP slower (it used to drop the pairs)
    c = claim(t1.table1(frame({"BSP": np.nan, "CON5": np.nan})), "P=5)")
    assert c.direction is False and "HL=1: n/a" in c.our_value and c.cause.startswith("setting: runs that never")
    # CON3 never reaches it, BSP at 50 s: BSP/CON3 < 0.5, certainly not slower
    c = claim(t1.table1(frame({"BSP": 50.0, "CON3": np.nan})), "P=3)")
    assert c.direction is False and "≤ 0.50×" in c.our_value


def test_asp_hete_claims_read_the_right_metrics():
    df = frame({"ASP": 2.0, "HETE": 1.5, "BSP": 1.0, "CON3": 1.0},
               updates={"ASP": 900.0, "BSP": 100.0, "HETE": 800.0, "CON3": 300.0})
    got = {c.claim: c.direction for c in t1.table1(df)}
    assert got["nine systems: PS ASP needs more updates than PS BSP"]
    assert got["nine systems: PS ASP converges slower than partial reduce (P=3)"]
    assert got["nine systems: PS HETE is faster than PS ASP"]
    assert got["nine systems: PS HETE is slower than partial reduce (P=3)"]
    # updates decide the first, not times: ASP with fewer updates than BSP fails it though slower
    df2 = frame({"ASP": 2.0, "BSP": 1.0}, updates={"ASP": 50.0, "BSP": 100.0})
    assert not claim(t1.table1(df2), "ASP needs more updates").direction


def test_eager_reduce_fails_the_threshold_only_if_no_run_reaches_it():
    never = frame({"ER": np.nan, "AR": 1.0}, per_update={"ER": 0.4, "AR": 1.0})
    rows = t1.table1(never)
    assert claim(rows, "fails to reach").direction is True
    assert claim(rows, "cheaper per update").direction is True          # per-update: run duration / updates
    once = frame({"ER": {1: np.nan, 3: 5.0}, "AR": 1.0})
    c = claim(t1.table1(once), "fails to reach")
    assert c.direction is False and "HL=3: reached in 3 of 3" in c.our_value and c.cause


def test_selective_row_is_an_observation_counting_identical_runs():
    c = claim(t1.table1(frame({"SR3": 1.0, "CON3": 1.0})), "selective reduce")
    assert c.kind == "observation" and "identical times in 6 of 6" in c.our_value
    # identical in every pair: the ratio is 1 by identity, so no "1.00×" is printed as if measured
    assert "HL=1: n/a, identical in 3 of 3 pairs" in c.our_value and "1.00×" not in c.our_value
    # one pair apart at HL 3: that HL gets its ratio, HL 1 stays n/a
    d = frame({"SR3": 1.0, "CON3": 1.0})
    d.loc[(d.arm == "SR3") & (d.hl == 3) & (d.trial == 0), "time_to_target_s"] = 2.0
    c = claim(t1.table1(d), "selective reduce")
    assert "HL=1: n/a" in c.our_value and "HL=3: 1.00× (0 of 3 trials num < den)" in c.our_value


def test_identical_pairs_counts_a_censored_pair_as_no_tie():
    # both arms censored in every pair: 0 identical (RP17), every pair counted censored
    assert t1.identical_pairs(frame({"SR3": np.nan, "CON3": np.nan}), "SR3", "CON3") == (0, 6, 6)
    d = frame({"SR3": 1.0, "CON3": 1.0})
    d.loc[(d.arm == "CON3") & (d.trial == 0), "time_to_target_s"] = np.nan     # one censored pair per HL
    d.loc[(d.arm == "SR3") & (d.hl == 3) & (d.trial == 1), "time_to_target_s"] = 2.0
    assert t1.identical_pairs(d, "SR3", "CON3") == (3, 2, 6)
    # pairs match on (hl, trial), not on row order
    assert t1.identical_pairs(d.iloc[::-1], "SR3", "CON3") == (3, 2, 6)


def fig11_frame(times: dict, trials=2):
    """times[arm][n] = time to target (same for every trial); arm '1 worker' at n = 1."""
    return pd.DataFrame([dict(arm=a, n=n, trial=k, time_to_target_s=t, duration_s=600.0 if n == 1 else 400.0)
                         for a, by_n in times.items() for n, t in by_n.items() for k in range(trials)])


def test_speedup_is_the_paired_one_worker_time_over_the_n_worker_time_and_a_bound_if_never_reached():
    s = t1.speedup(fig11_frame({"1 worker": {1: 300.0}, "AR": {4: 150.0, 8: np.nan}})).set_index(["n", "trial"])
    assert s.loc[(4, 0), "speedup"] == 2.0
    # never reached within 400 s: speedup below 300 / 400, not 0
    assert np.isnan(s.loc[(8, 1), "speedup"]) and (s.loc[(8, 1), "speedup_lo"], s.loc[(8, 1), "speedup_hi"]) == (
        0.0, 0.75)
    assert list(s["reached"]) == [1, 1, 0, 0]
    # the 1-worker run never reached it within 600 s: speedup above 600 / 150
    s = t1.speedup(fig11_frame({"1 worker": {1: np.nan}, "AR": {4: 150.0}}))
    assert (s["speedup_lo"].iloc[0], s["speedup_hi"].iloc[0]) == (4.0, np.inf)


def test_fig11_with_censored_runs_holds_only_when_the_bounds_decide():
    # AR never reaches it at n = 32: speedup < 300 / 400 = 0.75 against PR's 3: PR certainly scales better
    df = fig11_frame({"1 worker": {1: 300.0}, "AR": {4: 300.0, 32: np.nan}, "PR4": {4: 30.0, 32: 100.0}})
    (c,) = t1.fig11(df)
    assert c.direction is True and "n=32: ≤ 0.75× vs 3.00×" in c.our_value
    # both never reach it at n = 32: undetermined, so it does not hold, and the cause says why
    df = fig11_frame({"1 worker": {1: 300.0}, "AR": {4: 300.0, 32: np.nan}, "PR4": {4: 30.0, 32: np.nan}})
    (c,) = t1.fig11(df)
    assert c.direction is False and c.cause.startswith("setting: runs that never reached the target")


@pytest.mark.parametrize("pr, ok", [(99.0, True), (100.0, False), (101.0, False)])   # PR time at n = 32
def test_fig11_scales_worse_at_the_largest_n(pr, ok):
    # at n = 4 PR is far ahead, so only the largest n can decide
    df = fig11_frame({"1 worker": {1: 300.0}, "AR": {4: 300.0, 32: 100.0}, "BK": {4: 300.0, 32: 100.0},
                      "PR4": {4: 30.0, 32: pr}})
    rows = t1.fig11(df)
    assert [c.direction for c in rows] == [ok, ok]
    # 2 pairs give no 95 % interval: undecided (S24); 6 identical pairs decide it at the point estimate
    assert [c.verdict for c in rows] == ["undecided"] * 2 and rows[0].pairs == 2
    rows = t1.fig11(fig11_frame({"1 worker": {1: 300.0}, "AR": {4: 300.0, 32: 100.0}, "BK": {4: 300.0, 32: 100.0},
                                 "PR4": {4: 30.0, 32: pr}}, trials=6))
    assert [c.holds for c in rows] == [ok, ok] and f"n=32: {100 / pr:.2f}× " in rows[0].interval
    assert all(bool(c.cause) != ok for c in rows)


def test_causes_name_the_cluster_the_frame_ran_on():
    """PR16: at the paper profile the causes describe its cluster, not the default's 100 MB."""
    d = frame({"BSP": 50.0, "CON3": 100.0})               # BSP faster: "BSP is slower" fails
    plain = claim(t1.table1(d), "PS BSP is (slightly) slower than partial reduce (P=3)")
    named = claim(t1.table1(d, cluster="1000 MB, cv 0.3"), "PS BSP is (slightly) slower than partial reduce (P=3)")
    assert t1.CLUSTER_DEFAULT in plain.cause and t1.CLUSTER_DEFAULT not in named.cause
    assert named.cause == plain.cause.replace(t1.CLUSTER_DEFAULT, "1000 MB, cv 0.3") and not named.holds


def test_cross_causes_carry_the_other_settings_value_with_its_label():
    from simlib.papers.claim import Claim, cross_causes
    c = lambda holds, v: Claim("002", "Table 1", "x", "up", v, direction=holds, cause="" if holds else "setting: y")
    out = cross_causes([c(False, "d")], [c(True, "p")], "1000 MB", default_label="100 MB")
    assert [(o.setting, o.holds, o.cause) for o in out] == [
        ("default", False, "setting: holds at the paper profile (1000 MB): p"), ("profile", True, "")]


def test_selective_row_counts_censored_pairs_apart_from_ties():
    """Two runs that both never reached the target are censored, not identical (RP17)."""
    c = claim(t1.table1(frame({"SR3": {1: np.nan, 3: 2.0}, "CON3": {1: np.nan, 3: 2.0}})), "selective reduce")
    assert "identical times in 3 of 6 runs; 3 pairs censored" in c.our_value


def test_selective_at_drawn_bandwidths_pairs_sr_with_partial_and_all_reduce():
    """PR17: times SR3 8, CON3 10, AR 20 s at every HL: SR3/CON3 0.80×, SR3/AR 0.40×, CON3/AR 0.50×; no
    run identical; one AR run never reached the target (counted, and its ratio a bound)."""
    df = frame({"SR3": 8.0, "CON3": 10.0, "AR": 20.0}, updates={"SR3": 90.0, "CON3": 100.0})
    (c,) = t1.selective_drawn(df)
    assert c.kind == "observation" and "PR17" in c.figure
    assert "SR3/CON3 time to target: HL=1: 0.80×" in c.our_value and "SR3/AR time to target: HL=1: 0.40×" in c.our_value
    assert "CON3/AR time to target: HL=1: 0.50×" in c.our_value
    assert "SR3/CON3 #updates to target: HL=1: 0.90×" in c.our_value
    assert "identical times in 0 of 6 runs" in c.our_value and "AR 6 of 6" in c.our_value
    same = frame({"SR3": 10.0, "CON3": 10.0})
    assert "identical times in 6 of 6 runs" in t1.selective_drawn(same)[0].our_value
    assert "SR3/CON3 time to target: HL=1: n/a, identical in 3 of 3 pairs" in t1.selective_drawn(same)[0].our_value
    df.loc[(df.arm == "AR") & (df.trial == 0) & (df.hl == 1), ["time_to_target_s", "reached"]] = [np.nan, 0]
    assert "AR 5 of 6" in t1.selective_drawn(df)[0].our_value
    assert t1.selective_drawn(frame({"AR": 1.0, "CON3": 1.0})) == []


def test_group_filter_sensitivity_pairs_on_with_off_and_reports_verdict_changes():
    """PR18: CON3 faster with the filter (9 vs 10 s), DYN3 unchanged; BSP (14.6 s at HL 1, 17 s at HL 3:
    inside Table 1's BSP/CON3 range at each level) is slower than CON3 either way; a filter making CON3
    slower than BSP flips that verdict."""
    off = frame({"BSP": {1: 14.6, 3: 17.0}, "CON3": 10.0, "DYN3": 9.5, "AR": 15.0}, trials=6)
    on = frame({"CON3": 9.0, "DYN3": 9.5}, hls=(3,), trials=6)
    sens = t1.filter_sensitivity(off, on).set_index("arm")
    assert list(sens["hl"]) == [3, 3]                   # only the HLs run with the filter
    assert sens.loc["CON3", "time"] == "0.90×" and sens.loc["CON3", "identical"] == 0
    assert sens.loc["DYN3", "time"] == "1.00×" and sens.loc["DYN3", "identical"] == 6 == sens.loc["DYN3", "trials"]
    v = t1.filter_verdicts(off, on).set_index("claim")
    bsp = "nine systems: PS BSP is (slightly) slower than partial reduce (P=3)"
    assert v.loc[bsp, "off"] and v.loc[bsp, "on"]
    (c,) = t1.filter_observation(off, on)
    assert "CON3 HL=3 0.90×" in c.our_value and "verdicts changed: 0 of" in c.our_value
    worse = frame({"CON3": 18.0, "DYN3": 9.5}, hls=(3,), trials=6)
    (c,) = t1.filter_observation(off, worse)
    assert f"{bsp}: holds -> fails" in c.our_value and "verdicts changed: 1 of" in c.our_value
    assert t1.filter_observation(off, frame({"CON3": 1.0}, hls=(2,))) == []


def test_group_filter_observation_prints_n_a_where_on_and_off_are_identical_and_counts_censored_pairs():
    """PR18 as RP17/PR17: an arm whose runs did not change in any pair gets no 1.00× ratio; a censored pair is
    no tie and is counted."""
    off = frame({"BSP": 14.6, "CON3": 10.0, "DYN3": 9.5, "AR": 15.0}, hls=(3,), trials=6)
    on = frame({"CON3": 9.0, "DYN3": 9.5}, hls=(3,), trials=6)
    (c,) = t1.filter_observation(off, on)
    assert "DYN3 HL=3 n/a, identical in 6 of 6 pairs" in c.our_value and "DYN3 HL=3 1.00×" not in c.our_value
    assert "CON3 HL=3 0.90×, 1.00× (0 of 6 identical, 0 pairs censored)" in c.our_value
    # one DYN3 pair censored on both sides: no longer all tied, and the censored pair is counted
    for d in (off, on):
        d.loc[(d.arm == "DYN3") & (d.trial == 0), ["time_to_target_s", "reached"]] = [np.nan, 0]
    sens = t1.filter_sensitivity(off, on).set_index("arm")
    assert (sens.loc["DYN3", "identical"], sens.loc["DYN3", "censored"], sens.loc["DYN3", "tied"]) == (5, 1, False)
    (c,) = t1.filter_observation(off, on)
    assert "(5 of 6 identical, 1 pairs censored)" in c.our_value


def test_fig11_at_the_profile_gives_profile_rows_whose_causes_name_its_cluster():
    """PR19: Fig. 11 at the paper profile is judged as ledger setting "profile", its causes naming the
    profile's cluster; the verdicts are the frame's, whatever the label."""
    df = fig11_frame({"1 worker": {1: 300.0}, "AR": {4: 300.0, 32: 100.0}, "BK": {4: 300.0, 32: 100.0},
                      "PR4": {4: 30.0, 32: 101.0}}, trials=6)
    plain, named = t1.fig11(df), t1.fig11(df, cluster="n workers, 1000 MB", setting="profile")
    assert {c.setting for c in plain} == {"default"} and {c.setting for c in named} == {"profile"}
    assert [c.holds for c in named] == [c.holds for c in plain] == [False, False]
    assert all(t1.CLUSTER_DEFAULT.replace("002's 8 workers", "n workers") in c.cause for c in plain)
    assert all("(n workers, 1000 MB)" in c.cause and "100 MB" not in c.cause for c in named)


def test_a_right_direction_with_a_magnitude_outside_table_1_is_its_own_verdict():
    """The comparisons the paper states as a direction and Table 1 quantifies (here ASP/BSP updates,
    Table 1 7.19–11.14×) hold only if every HL's median also lies in Table 1's range at that level
    (homogeneous rows for HL 1, heterogeneous for HL > 1); otherwise direction True, magnitude False,
    and the cause names our value against Table 1's."""
    text = "PS ASP needs more updates than PS BSP"
    inside = claim(t1.table1(frame({"ASP": 2.0, "BSP": 1.0}, updates={"ASP": 900.0, "BSP": 100.0}, trials=6)), text)
    assert inside.direction and inside.magnitude is True and inside.holds and inside.tolerance
    far = claim(t1.table1(frame({"ASP": 2.0, "BSP": 1.0}, updates={"ASP": 110.0, "BSP": 100.0}, trials=6)), text)
    assert far.direction is True and far.magnitude is False and not far.holds
    assert far.cause.startswith("setting:") and "ASP/BSP 1.10× outside Table 1's 8.01–10.18× at HL = 1" in far.cause
    assert "outside Table 1's 7.19–11.14× at HL > 1" in far.cause
    # one level in range, the other not: the row does not hold, and the cause names only that level
    mixed = claim(t1.table1(frame({"ASP": 2.0, "BSP": 1.0}, updates={"ASP": {1: 900.0, 3: 110.0}, "BSP": 100.0})),
                  text)
    assert mixed.magnitude is False and "at HL = 1" not in mixed.cause and "at HL > 1" in mixed.cause


def test_pr16s_fitted_claims_are_table_1_claims_comparing_its_targets():
    """The declaration the ledger marks fitted (S24) names claims table1 makes, on arms PR16 fits."""
    from simlib.papers.partial_reduce import profile as prof

    arms = {"AR", "ER", "AD", "BSP", "ASP", "HETE", "BK", "CON3", "DYN3", "CON5", "DYN5"}
    made = {c.claim for c in t1.table1(frame({a: 1.0 for a in arms}, trials=6))}
    fitted_arms = {t.split()[0] for t in prof.fitted_targets()}
    for statement, compared in prof.FITTED_CLAIMS.items():
        assert statement in made
        assert set(compared) <= fitted_arms
    # partial reduce's own ratios are claims to check, never fitted
    assert not any(a.startswith(("CON", "DYN")) for v in prof.FITTED_CLAIMS.values() for a in v)


def test_claim_arms_names_the_runs_each_comparison_reads():
    arms = ("AR", "ER", "AD", "BSP", "ASP", "HETE", "BK", "CON3", "DYN3", "CON5", "DYN5")
    got = {c.claim: t1.claim_arms(c) for c in t1.table1(frame({a: 1.0 for a in arms}))}
    assert got["nine systems: PS HETE is faster than PS ASP"] == {"ASP", "HETE"}
    assert got["nine systems: partial reduce (P=5) beats PS BK (3 backups), up to 1.47×"] == {"BK", "CON5"}
    assert got["nine systems: DYN (P=3) is at most 1.48–2.01× faster than AR for HL > 1"] == {"AR", "DYN3"}
    assert got["nine systems: Eager-Reduce fails to reach the accuracy threshold"] == set()
