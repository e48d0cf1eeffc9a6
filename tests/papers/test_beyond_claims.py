"""Notebook 92's read-out (simlib.papers.beyond_claims) on small hand-built sweep frames.

Every expected number below is worked out by hand from the frame it is computed from.
"""
import math

import numpy as np
import pandas as pd
import pytest

from simlib.papers import beyond_claims as bc


def sr_frame(sync):
    """SR vs PR frame, n = 200: ``sync[(trace, trial)] = (partial sync, selective sync)``; scale
    partial 60 / selective 66 (ratio 1.1) and iterations 100 / 150 (1.5) everywhere."""
    rows = []
    for (trace, trial), (pr, sr) in sync.items():
        rows.append(dict(trace=trace, trial=trial, n=200, scheme="partial", avg_sync_time_s=pr,
                         avg_sync_scale=60.0, total_iteration=100.0))
        rows.append(dict(trace=trace, trial=trial, n=200, scheme="selective", avg_sync_time_s=sr,
                         avg_sync_scale=66.0, total_iteration=150.0))
    return pd.DataFrame(rows)


def tta_frame(times, duration_s=100.0):
    """Time-to-accuracy frame, n = 200: ``times[(trace, trial)] = (partial, selective)``; NaN = not reached."""
    return pd.DataFrame([dict(trace=tr, trial=t, n=200, duration_s=duration_s, scheme=s, time_to_target_s=v)
                         for (tr, t), pair in times.items() for s, v in zip(("partial", "selective"), pair)])


def row(table, quantity, trace):
    r = table[(table.quantity == quantity) & (table.trace == trace)]
    assert len(r) == 1
    return r.iloc[0]


def test_sr_ratios_are_oriented_paper_scheme_better_and_summarized_over_trials():
    df = sr_frame({("transformer", 0): (2.0, 1.0), ("transformer", 1): (3.0, 1.0), ("transformer", 2): (5.0, 5.0),
                   ("pai-job4", 0): (1.0, 2.0), ("pai-job4", 1): (1.0, 4.0), ("pai-job4", 2): (3.0, 2.0)})
    t = bc.sr_vs_pr(df)
    assert list(t.columns) == list(bc.TABLE_COLUMNS)
    s = row(t, "sync time PR/SR", "transformer")          # PR / SR per trial: 2, 3, 1
    assert (s["median"], s["min"], s["max"], s["trials"]) == (2.0, 1.0, 3.0, 3)
    assert s["wins"] == pytest.approx(2 / 3)               # the tie at exactly 1 is not a win
    assert s["setting"] == "n = 200" and s["paper"] == "000" and s["comparison"] == "SR vs PR"
    p = row(t, "sync time PR/SR", "pai-job4")              # 0.5, 0.25, 1.5
    assert (p["median"], p["min"], p["max"], p["wins"]) == (0.5, 0.25, 1.5, pytest.approx(1 / 3))
    assert row(t, "scale SR/PR", "pai-job4")["median"] == pytest.approx(1.1)
    assert row(t, "total iteration SR/PR", "transformer")["median"] == pytest.approx(1.5)
    assert math.isnan(s["reached_num"]) and math.isnan(s["reached_den"])


def test_time_to_accuracy_censors_runs_that_never_reach_the_target_at_the_run_length():
    df = tta_frame({("transformer", 0): (np.nan, 50.0),    # PR censored at 100 s: > 100 / 50 = 2
                    ("transformer", 1): (np.nan, np.nan),  # neither: n/a (was counted as 1)
                    ("transformer", 2): (30.0, 10.0)})     # 3
    r = bc.sr_vs_pr_tta(df).iloc[0]
    # the median of {> 2, n/a, 3} is at least 2 (not 2): no number
    assert math.isnan(r["median"]) and (r["median_lo"], r["median_hi"]) == (2.0, math.inf)
    assert (r["min"], r["max"], r["trials"], r["censored"]) == (0.0, math.inf, 3, 2)
    assert r["wins"] == pytest.approx(2 / 3)               # > 2 and 3 are certainly wins
    assert r["reached_num"] == pytest.approx(1 / 3) and r["reached_den"] == pytest.approx(2 / 3)
    # the censoring uses each row's own run length
    df2 = tta_frame({("transformer", 0): (np.nan, 50.0)}, duration_s=60.0)
    assert bc.sr_vs_pr_tta(df2).iloc[0]["median_lo"] == pytest.approx(60.0 / 50.0)
    # every pair finished: a number, as without censoring
    df3 = tta_frame({("transformer", 0): (20.0, 10.0), ("transformer", 1): (30.0, 10.0)})
    r = bc.sr_vs_pr_tta(df3).iloc[0]
    assert (r["median"], r["min"], r["max"], r["censored"]) == (2.5, 2.0, 3.0, 0)


def test_fmreduce_pairs_variants_per_p_and_selmcast_per_n():
    rows = []
    for trial, (full, blocking, original) in enumerate(((120, 110, 100), (90, 100, 100))):
        for p in (10, 50):
            k = 2 if p == 10 else 1                      # at p = 10 every FMReduce count doubles
            for variant, rounds in ((bc.FM_FULL, full * k), (bc.FM_BLOCKING, blocking * k), (bc.PR_ORIGINAL, original)):
                rows.append(dict(trace="transformer", trial=trial, p=p, variant=variant, rounds=rounds))
    t = bc.fmreduce_vs_pr(pd.DataFrame(rows))
    full = t[t.quantity == f"rounds {bc.FM_FULL} / {bc.PR_ORIGINAL}"].set_index("setting")
    assert full.loc["p = 50", "median"] == pytest.approx((1.2 + 0.9) / 2)
    assert full.loc["p = 10", "median"] == pytest.approx((2.4 + 1.8) / 2)
    blocking = t[t.quantity == f"rounds {bc.FM_BLOCKING} / {bc.PR_ORIGINAL}"].set_index("setting")
    assert blocking.loc["p = 50", "min"] == pytest.approx(1.0) and blocking.loc["p = 50", "wins"] == 0.5
    ssp = pd.DataFrame([dict(trace="lstm", trial=0, n=50, scheme="selmcast", npu_utilization=0.7, avg_scale=0.55),
                        dict(trace="lstm", trial=0, n=50, scheme="orpheus", npu_utilization=0.63, avg_scale=0.3)])
    s = bc.selmcast_vs_orpheus(ssp).set_index("quantity")["median"]
    assert s["utilization SelMcast/Orpheus"] == pytest.approx(0.7 / 0.63)
    assert s["scale SelMcast/Orpheus"] == pytest.approx(0.55 / 0.3)


def test_bad_frames_are_rejected_by_name():
    df = sr_frame({("transformer", 0): (2.0, 1.0)})
    with pytest.raises(ValueError, match="avg_sync_scale"):
        bc.sr_vs_pr(df.drop(columns="avg_sync_scale"))
    with pytest.raises(ValueError, match="'selective'"):
        bc.sr_vs_pr(df[df.scheme == "partial"])
    with pytest.raises(ValueError, match="share their"):          # another setting varies within a group
        bc.sr_vs_pr(pd.concat([df, df.assign(duration_s=50.0)]))
    with pytest.raises(ValueError, match="duration_s"):            # censoring needs the run length
        bc.sr_vs_pr_tta(tta_frame({("transformer", 0): (1.0, 1.0)}).drop(columns="duration_s"))
    with pytest.raises(ValueError, match="no rows"):
        bc.sr_vs_pr(df.iloc[:0])
    with pytest.raises(ValueError, match="DataFrame"):
        bc.sr_vs_pr(df.to_dict())


def table_with(medians, standin="transformer"):
    """A ratio table of SR vs PR sync time with one trial per trace: ``medians[trace] = PR/SR ratio``."""
    return bc.sr_vs_pr(sr_frame({(tr, 0): (m, 1.0) for tr, m in {standin: 2.0, **medians}.items()}))


def test_survives_strictly_above_one_and_a_tie_does_not():
    eps = 1e-12
    s = bc.survival(table_with({"a": 1.0, "b": 1.0 + eps, "c": 1.0 - eps, "d": 3.0}), "transformer")
    s = s[s.quantity == "sync time PR/SR"].set_index("trace")
    assert list(s.index) == ["a", "b", "c", "d"]                    # the stand-in is the reference, not a row
    assert s["survives"].to_dict() == {"a": False, "b": True, "c": False, "d": True}
    assert s["standin_median"].eq(2.0).all() and s["standin_holds"].all()
    assert s.loc["d", "change"] == pytest.approx(1.5)
    one = lambda t: np.where(t.trace == "cnn", 1.0, t["median"])   # noqa: E731
    tie = bc.survival(table_with({"a": 3.0}, standin="cnn").assign(median=one, median_lo=one, median_hi=one), "cnn")
    assert not tie["standin_holds"].any()                           # a stand-in tie does not hold either


def test_survival_is_undetermined_when_censoring_straddles_one():
    # stand-in: {> 2}: holds; a: {< 0.5}: does not survive; b: {n/a}: undetermined
    df = tta_frame({("transformer", 0): (np.nan, 50.0), ("a", 0): (50.0, np.nan), ("b", 0): (np.nan, np.nan)})
    s = bc.survival(bc.sr_vs_pr_tta(df), "transformer").set_index("trace")
    assert s["survives"].to_dict() == {"a": False, "b": None}
    assert s["standin_holds"].tolist() == [True, True] and s["change"].isna().all()
    (line,) = bc.summary_lines(bc.sr_vs_pr_tta(df), "transformer")
    assert line.startswith("000 SR vs PR time to accuracy, time to target PR/SR (n = 200): stand-in transformer "
                           "≥ 2.00× (holds); survives on 0 of 2 real traces")
    assert line.endswith("not on: a (≤ 0.50×); undetermined (censored runs) on: b (n/a)")


def test_survival_needs_the_standin():
    with pytest.raises(ValueError, match="standin 'lstm'"):
        bc.survival(table_with({"a": 1.5}), "lstm")
    with pytest.raises(ValueError, match="lacks the column"):
        bc.survival(table_with({"a": 1.5}).drop(columns="wins"), "transformer")


def test_summary_lines_count_the_traces_where_the_conclusion_survives():
    lines = bc.summary_lines(table_with({"a": 0.8, "b": 1.0, "c": 1.6}), "transformer")
    sync = next(line for line in lines if "sync time PR/SR" in line)
    assert sync == ("000 SR vs PR, sync time PR/SR (n = 200): stand-in transformer 2.00× (holds); survives on 1 of "
                    "3 real traces (medians 0.80×–1.60×); not on: a (0.80×), b (1.00×)")
    scale = next(line for line in lines if "scale SR/PR" in line)
    assert "survives on 3 of 3" in scale and scale.endswith("not on: none")
    tie = table_with({"a": 1.5})
    tie.loc[tie.trace == "transformer", ["median", "median_lo", "median_hi"]] = 1.0
    assert "stand-in transformer 1.00× (does not hold)" in bc.summary_lines(tie, "transformer")[0]


def test_one_observation_per_comparison_and_real_trace_naming_both_traces():
    t = pd.concat([table_with({"pai-job4": 0.9, "bytedance-ar": 1.2}),
                   bc.sr_vs_pr_tta(tta_frame({("transformer", 0): (np.nan, 50.0), ("pai-job4", 0): (20.0, 10.0)}))],
                  ignore_index=True)
    obs = bc.observations(t, "transformer", note="5 trials")
    assert [(o.figure, o.claim.split(":")[0]) for o in obs] == [
        ("000 §IV-B1, real traces", "SR vs PR on pai-job4"),
        ("000 §IV-B1, real traces", "SR vs PR on bytedance-ar"),
        ("000 §IV settings, time to accuracy, real traces", "SR vs PR time to accuracy on pai-job4")]
    assert all(o.kind == "observation" and o.paper == "beyond" and o.holds is None for o in obs)
    first = obs[0]
    assert first.our_value.startswith("sync time PR/SR [n = 200] 0.90× (stand-in 2.00×); scale SR/PR")
    assert "stand-in = transformer" in first.note and first.note.endswith("; 5 trials")
    assert "sync time PR/SR [n = 200]: does not survive" in first.note
    assert "sync time PR/SR [n = 200]: survives" in obs[1].note
    assert first.paper_value == bc.SR_VS_PR.paper_value
    assert obs[2].our_value == "time to target PR/SR [n = 200] 2.00× (stand-in ≥ 2.00×)"
    assert "reached by numerator/denominator scheme in 100%/100%, 0 of 1 pairs censored" in obs[2].note
    assert len({(o.paper, o.figure, o.claim) for o in obs}) == len(obs)   # distinct ledger keys


def test_a_note_without_a_target_says_no_pair_is_censored_and_prints_equal_ends_once():
    """Ratios of rounds or sync times have no target: the note says no pair is censored, and a min–max
    whose ends print the same is one value "in all N trials" (never "1.09–1.09×")."""
    t = bc.sr_vs_pr(sr_frame({("transformer", 0): (2.0, 1.0), ("transformer", 1): (2.0, 1.0),
                              ("a", 0): (1.5, 1.0), ("a", 1): (1.5, 1.0)}))
    (obs,) = bc.observations(t, "transformer")
    assert ("sync time PR/SR [n = 200]: survives, undecided at 2 pairs (S24) (1.50× in all 2 trials, certainly "
            "better in 100%, no target: no pair censored)") in obs.note
    assert "–1.50×" not in obs.note


# ----------------------------------------------------------------------------- strength (S24)

def test_hand_derived_intervals_decide_survival_and_fill_the_rows_strength():
    """10 pairs: the sign-test interval is [x(2), x(9)] (2 P(Binom(10, 1/2) <= 1) = 2.1 % <= 5 % < 10.9 %)."""
    ratios = {"a": [0.9, 1.05, 1.1, 1.2, 1.2, 1.3, 1.3, 1.4, 1.5, 2.0],   # x(2) = 1.05 > 1: decided
              "b": [0.8, 0.9, 1.1, 1.2, 1.2, 1.3, 1.3, 1.4, 1.5, 2.0],    # x(2) = 0.9: straddles 1
              "c": [0.5, 0.6, 0.7, 0.7, 0.8, 0.8, 0.9, 0.9, 0.95, 1.2],   # x(9) = 0.95 <= 1: decided, fails
              "transformer": [2.0] * 10}
    t = bc.sr_vs_pr(sr_frame({(tr, k): (r, 1.0) for tr, rs in ratios.items() for k, r in enumerate(rs)}))
    a = row(t, "sync time PR/SR", "a")
    assert (a["ci_lo"], a["ci_hi"]) == (1.05, 1.5)
    surv = bc.survival(t, "transformer").set_index(["quantity", "trace"])
    assert surv.loc[("sync time PR/SR", "a"), "decided"] is True
    b = surv.loc[("sync time PR/SR", "b")]
    assert bool(b["survives"]) and b["decided"] is None            # median 1.25 > 1, interval 0.90–1.50
    assert surv.loc[("sync time PR/SR", "c"), "decided"] is False
    obs = {o.claim.split(" on ")[1].split(":")[0]: o for o in bc.observations(t, "transformer")}
    assert obs["b"].pairs == 10 and "sync time PR/SR [n = 200]: 0.90–1.50×" in obs["b"].interval
    assert "sync time PR/SR [n = 200]: survives, undecided at 10 pairs (S24)" in obs["b"].note
    assert "sync time PR/SR [n = 200]: 10 pairs, 9 certainly better" in obs["a"].sides


def test_a_censored_pair_enters_the_interval_with_its_bounds():
    # PR/SR times: 2, 3, 4, 5, 6 and PR censored at 100 s against SR 10 s (> 10): 6 pairs, interval [x(1), x(6)]
    times = {("transformer", k): (v, 1.0) for k, v in enumerate((2.0, 3.0, 4.0, 5.0, 6.0))}
    times[("transformer", 5)] = (np.nan, 10.0)
    r = bc.sr_vs_pr_tta(tta_frame(times)).iloc[0]
    assert (r["ci_lo"], r["ci_hi"]) == (2.0, math.inf)


# ------------------------------------------------------------------ notebook 93 (do we need async SGD?)
def collection_frame(best, sync, n=4, trials=6):
    """Trace-only frame: ``best`` / ``sync`` ratios to a greedy time of 10 s at every S (k = 1 and 3), per trial."""
    rows = []
    for t in range(trials):
        r = dict(trace="pai-job4", n=n, late="drop", trial=t)
        for k in (1, 3):
            r.update({f"greedy_k{k}": 10.0, f"best_k{k}": 10.0 * best[t], f"best_m_k{k}": 3, f"sync_k{k}": 10.0 * sync[t]})
        rows.append(r)
    return pd.DataFrame(rows)


def test_collection_ratios_are_judged_against_h_n_with_their_interval():
    # n = 4: H_4 = 25/12 = 2.083; best m at 1.1-1.6x (within), sync at 3-4x (beyond), 6 pairs: an interval exists
    df = collection_frame([1.1, 1.2, 1.3, 1.4, 1.5, 1.6], [3.0, 3.2, 3.4, 3.6, 3.8, 4.0])
    s = bc.collection_summary(bc.collection_ratios(df))
    assert set(s["k"]) == {1, 3} and s["h_n"].tolist() == pytest.approx([25 / 12] * 4)
    best, sync = s[s.arm == "best m"].iloc[0], s[s.arm == "sync (m = n)"].iloc[0]
    assert best["median_hi"] == pytest.approx(1.35) and best["within"] is True and best["below"] == 6
    assert best["ci_lo"] == pytest.approx(1.1) and best["ci_hi"] == pytest.approx(1.6)   # 6 pairs: k = 1
    assert sync["median_hi"] == pytest.approx(3.5) and sync["within"] is False and sync["best_m"] == 4
    obs = bc.collection_observations(s)
    assert len(obs) == 1 and obs[0].kind == "observation" and obs[0].pairs == 6
    assert "up to 1.35×" in obs[0].our_value and "H_n = 2.08" in obs[0].our_value
    assert "within H_n (decided)" in obs[0].note and "beyond H_n (decided)" in obs[0].note
    # 5 pairs: no interval, undecided
    s5 = bc.collection_summary(bc.collection_ratios(collection_frame([1.1] * 5, [3.0] * 5, trials=5)))
    assert all(v is None for v in s5["within"])


def net_frame(times, cap=600.0):
    """With-network frame on one trace, n = 8: ``times[system] = [time to target per trial]`` (NaN: censored)."""
    rows = []
    for system, ts in times.items():
        for t, v in enumerate(ts):
            rows.append(dict(trace="pai-job4", n=8, trial=t, system=system, outage_workers=0, duration_s=cap,
                             time_to_target_s=v, net_k30=2.0 * (v if v == v else cap) / 100, greedy_k30=1.0))
    return pd.DataFrame(rows)


def test_best_backup_counts_censored_runs_at_the_cap_and_breaks_ties_by_the_smaller_b():
    nan = float("nan")
    df = net_frame({"BSP": [nan, nan, 300.0], "BK1": [200.0, 250.0, 300.0], "BK2": [250.0, 200.0, 300.0]})
    assert bc.best_backup(df) == {"pai-job4": "BK1"}        # BK1 and BK2 both have median 250: the smaller b
    df = net_frame({"BSP": [100.0, 100.0, 100.0], "BK1": [nan, nan, 50.0]})
    assert bc.best_backup(df) == {"pai-job4": "BSP"}        # BK1's median is its cap, 600


def test_network_table_pairs_best_backup_with_each_system_and_bounds_censored_pairs():
    nan = float("nan")
    df = net_frame({"BK1": [200.0] * 6, "ASP": [100.0, 100.0, 100.0, 100.0, 50.0, nan]})
    t = bc.network_table(df, ["ASP"])
    r = t[t.quantity == "time to target"].iloc[0]
    # ratios 2, 2, 2, 2, 4 and the censored pair (0, 200/600]: median of the bounds [2, 2]
    assert r["label"] == "time to target BK1/ASP" and r["trials"] == 6
    assert r["median_lo"] == pytest.approx(2.0) and r["median_hi"] == pytest.approx(2.0)
    assert r["min"] == 0.0 and r["max"] == pytest.approx(4.0) and r["h_n"] == pytest.approx(2.717857, abs=1e-6)
    assert (r["over_1"], r["under_1"]) == (5, 1)           # the censored pair lies in (0, 200/600]: below 1
    g = t[t.quantity == "30n gradients / greedy"].set_index("system")
    assert g.loc["BK1", "median_hi"] == pytest.approx(4.0)     # 2 * 200 / 100 over greedy 1


def test_outage_table_and_rows_give_each_systems_slowdown():
    df = pd.concat([net_frame({"BSP": [100.0] * 6}), net_frame({"BSP": [300.0] * 6}).assign(outage_workers=2)])
    o = bc.outage_table(df)
    assert len(o) == 1 and o.iloc[0]["median_hi"] == pytest.approx(3.0) and o.iloc[0]["outage_workers"] == 2
    obs = bc.network_observations(bc.network_table(df[df.outage_workers == 0].assign(system="BK1"), []), o)
    assert [c.figure for c in obs] == [f"{bc.ASYNC_SGD_SOURCE}, with the network",
                                       f"{bc.ASYNC_SGD_SOURCE}, outage windows"]
    assert "BSP 3.00×" in obs[1].our_value and obs[1].pairs == 6


def test_per_m_ratios_are_medians_over_trials_against_the_greedy_time():
    df = collection_frame([1.0] * 3, [2.0] * 3, trials=3)
    df["m1_k3"], df["m4_k3"] = [30.0, 40.0, 50.0], [20.0, 20.0, 80.0]
    r = bc.per_m_ratios(df).set_index("m")
    assert r.loc[1, "ratio"] == pytest.approx(4.0) and r.loc[4, "ratio"] == pytest.approx(2.0)
    assert set(r["k"]) == {3}
