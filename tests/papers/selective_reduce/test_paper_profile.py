"""Decision E18: the rule that picks 000's paper profile, the suite that judges every claim at a
setting, and the causes that carry the other setting's measurement."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from simlib.papers.claim import Claim
from simlib.papers.selective_reduce import profile as prof
from simlib.papers.selective_reduce.experiments import suite
from simlib.core.paths import COMMITTED_RESULTS


def table(holds_by_candidate: dict) -> pd.DataFrame:
    """A search table with the baseline claims 0, 1, ... (the ones E18 scores) holding as given per
    (dt_s, compute_mean_s)."""
    rows = [{"dt_s": dt, "compute_mean_s": mean, "figure": "Fig. 9", "claim": prof.BASELINE_CLAIMS[i], "holds": h}
            for (dt, mean), hs in holds_by_candidate.items() for i, h in enumerate(hs)]
    return pd.DataFrame(rows)


def test_pick_takes_the_most_claims_holding():
    t = table({(0.1, None): [1, 0, 0], (0.02, 3.0): [1, 1, 0], (0.05, 2.0): [0, 0, 1]})
    assert prof.pick(t) == prof.Profile(0.02, 3.0)
    assert prof.scores(t)["hold"].tolist() == [2, 1, 1]


def test_ties_go_to_the_larger_dt_then_the_smaller_mean():
    """E18 step 3, worked by hand: three candidates hold 2 claims each; 0.05 s beats 0.02 s, and at
    0.05 s the stored 1 s mean (None in the sweep, NaN in a CSV) beats 3 s."""
    t = table({(0.02, None): [1, 1], (0.05, 3.0): [1, 1], (0.05, float("nan")): [1, 1], (0.1, 2.0): [1, 0]})
    assert prof.pick(t) == prof.Profile(0.05, None)
    assert prof.scores(t)[["dt_s", "compute_mean_s"]].values.tolist()[:3] == [[0.05, 1.0], [0.05, 3.0], [0.02, 1.0]]


def test_pick_refuses_candidates_judged_on_different_claims():
    t = table({(0.1, None): [1, 1], (0.02, 3.0): [1]})
    with pytest.raises(ValueError, match="same claims at every candidate"):
        prof.pick(t)


def test_committed_profile_is_the_rules_pick_from_the_committed_search():
    """PAPER_PROFILE is not hand-picked: E18's rule applied to notebook 16's committed table gives it."""
    path = COMMITTED_RESULTS / "16_sr_profile_search.csv"
    # the table is committed: a deleted one fails here rather than skipping the check
    assert path.is_file(), f"the committed search table {path} is missing: restore it or re-run notebook 16"
    t = pd.read_csv(path)
    if "trials" not in t:
        pytest.skip("the committed table predates E18's 20-trial score (issue 41); the next full reproduction "
                    "writes it -- test_e18_at_20_trials_picks_the_default_from_the_ledgers_runs covers the pick")
    t = t[(t["model_mb"] == 500.0) & (t["bw_error_redraw"] == "decision")]     # the search, not the sensitivities
    assert set(t["trials"]) == {prof.MAP_TRIALS, prof.SEARCH_TRIALS}
    assert len(t[t["trials"] == prof.MAP_TRIALS]) == 16 * 39
    assert len(t[t["trials"] == prof.SEARCH_TRIALS]) == 16 * len(prof.BASELINE_CLAIMS)
    assert prof.pick(t).settings() == prof.PAPER_PROFILE.settings()
    assert prof.PAPER_PROFILE.fitted


def test_e18_at_20_trials_picks_the_default_from_the_ledgers_runs():
    """Issue 41: E18 scores at the ledger's 20 trials.  Notebooks 11 and 12's committed default runs (20
    trials, Δt = 0.1 s, the stored 1 s mean) hold all four baseline statements -- the most any candidate
    can score -- so whatever the other candidates score, the tie rule (larger Δt, then smaller mean)
    keeps the default: the profile equals the default, as PAPER_PROFILE says."""
    paths = [COMMITTED_RESULTS / f for f in ("11_sr_fig5-7.csv", "12_sr_fig8-10.csv")]
    if not all(p.exists() for p in paths):
        pytest.skip("notebooks 11-12 not yet reproduced")
    d11, d12 = (pd.read_csv(p) for p in paths)
    assert d11["trial"].nunique() == prof.SEARCH_TRIALS == d12["trial"].nunique()
    base = suite.judge_baselines({"11": d11[d11["scheme"] != "selective"], "12": d12[d12["scheme"] == "partial"]})
    assert sorted(c.claim for c in base) == sorted(prof.BASELINE_CLAIMS) and all(c.holds for c in base)
    # the score table with the default at 4 of 4 and any other candidate at 4 or fewer
    rows = suite.claims_table(base, dt_s=0.1, compute_mean_s=None, trials=prof.SEARCH_TRIALS)
    others = [suite.claims_table(base, dt_s=dt, compute_mean_s=mean, trials=prof.SEARCH_TRIALS)
              for dt in prof.SEARCH_DT_S for mean in prof.SEARCH_COMPUTE_MEAN_S if (dt, mean) != (0.1, None)]
    t = pd.concat([rows, *others], ignore_index=True)
    assert prof.pick(t).settings() == prof.DEFAULT_SETTINGS.settings() == prof.PAPER_PROFILE.settings()


def test_scores_count_the_largest_trial_count_and_map_the_smallest():
    """With a ``trials`` column the score reads only the 20-trial baseline rows, the map only the 5-trial
    rows: here the 5-trial rows would pick (0.02, 3 s), the 20-trial rows tie and keep (0.1, 1 s)."""
    five = table({(0.1, None): [1, 0], (0.02, 3.0): [1, 1]}).assign(trials=5)
    twenty = table({(0.1, None): [1, 1], (0.02, 3.0): [1, 1]}).assign(trials=20)
    t = pd.concat([five, twenty], ignore_index=True)
    assert prof.pick(five.drop(columns="trials")) == prof.Profile(0.02, 3.0)
    assert prof.pick(t) == prof.Profile(0.1, None)
    s = prof.scores(t).set_index("dt_s")
    assert s.loc[0.1, ["claims", "hold", "claims_all", "hold_all"]].tolist() == [2, 2, 2, 1]


def test_dt_reading_follows_its_rule_from_the_committed_runs():
    """E19: Δt's reading is the median over trials of duration / total iteration of partial reduce at n = 200,
    p = 0.3n, the Transformer trace, to one significant digit -- recomputed here from notebook 12's
    committed CSV, not copied: 100 s over a median of 2442 iterations is 0.041 s, so 0.04 s."""
    path = COMMITTED_RESULTS / "12_sr_fig8-10.csv"
    if not path.exists():
        pytest.skip("notebook 12 not yet reproduced")
    d = pd.read_csv(path)
    assert prof.dt_reading(d) == prof.DT_READING.dt_s
    assert not prof.DT_READING.fitted and prof.DT_READING.compute_mean_s is None


def test_dt_reading_rule_by_hand_and_bad_input():
    rows = [{"scheme": "partial", "n": 200, "p": 0.3, "trace": "transformer", "duration_s": 100.0,
             "total_iteration": it} for it in (1000, 2600, 4000)]          # median gap 100/2600 = 0.0385 -> 0.04
    rows += [{"scheme": "selective", "n": 200, "p": 0.3, "trace": "transformer", "duration_s": 100.0,
              "total_iteration": 10}]                                      # not partial reduce: ignored
    assert prof.dt_reading(pd.DataFrame(rows)) == 0.04
    assert prof.dt_reading(pd.DataFrame(rows).assign(duration_s=10.0)) == 0.004
    with pytest.raises(ValueError, match="partial-reduce runs at n=100"):
        prof.dt_reading(pd.DataFrame(rows), n=100)


def test_the_dt_reading_changes_selective_reduce_only():
    """E19's knob changes behaviour as its entry says: selective reduce's run at Δt = 0.04 s differs from the
    default's (the controller polls and predicts over another slot); partial reduce's does not read Δt."""
    from simlib.papers.cluster_scenario import run_trial

    base = dict(n=20, duration_s=10.0)
    at = lambda scheme, prof_: run_trial(prof.at_profile([dict(base, scheme=scheme)], prof_)[0],  # noqa: E731
                                         np.random.SeedSequence(4))
    assert at("selective", prof.DT_READING) != at("selective", prof.DEFAULT_SETTINGS)
    assert at("partial", prof.DT_READING) == at("partial", prof.DEFAULT_SETTINGS)


def test_settings_judged_drop_a_profile_equal_to_the_default():
    assert list(prof.settings_judged()) == ["default", "dt reading"]          # PAPER_PROFILE == default (E18)
    other = prof.Profile(0.1, 3.0)
    assert list(prof.settings_judged(other)) == ["default", "profile", "dt reading"]


def test_where_holds_and_claims_map_by_hand():
    t = pd.DataFrame([{"dt_s": dt, "compute_mean_s": mean, "figure": "Fig. 10", "claim": claim, "holds": h}
                      for claim, holds in (("a", {(0.01, None), (0.02, None)}), ("b", set()),
                                           ("c", {(0.05, 3.0)}))
                      for dt in (0.01, 0.02, 0.05) for mean in (None, 3.0)
                      for h in [(dt, mean) in holds]])
    w = prof.where_holds(t)
    assert w["Fig. 10", "a"] == ("holds at 2 of 6 candidates searched (E18, 5 trials): Δt ≤ 0.02 s at the "
                                 "1 s mean")
    assert w["Fig. 10", "b"] == "holds at none of the 6 candidates searched (E18, 5 trials)"
    assert w["Fig. 10", "c"].endswith("Δt = 0.05 s at the 3 s mean")
    m = prof.claims_map(t)
    assert list(m.columns) == ["0.01 s / 1 s", "0.01 s / 3 s", "0.02 s / 1 s", "0.02 s / 3 s", "0.05 s / 1 s",
                               "0.05 s / 3 s"]
    assert m.loc["Fig. 10: a"].tolist() == ["holds", "fails", "holds", "fails", "fails", "fails"]
    und = prof.claims_map(t.assign(verdict=["undecided"] + ["x"] * (len(t) - 1)))
    assert und.iloc[0, 0] == "undecided"


def test_a_missing_verdict_is_undecided_not_a_hold():
    """A comparative claim at the search's 5 trials has no S24 interval (fewer than 6 pairs): its
    ``holds`` is missing (NaN in the CSV, which is truthy) and must count as undecided, never as a hold."""
    rows = [{"dt_s": dt, "compute_mean_s": None, "figure": "Fig. 8", "claim": c, "holds": h}
            for dt in (0.01, 0.02) for c, h in (("open", float("nan")), ("mixed", True if dt == 0.01 else None))]
    t = pd.DataFrame(rows)
    w = prof.where_holds(t)
    assert w["Fig. 8", "open"].startswith("undecided at every one of the 2 candidates searched")
    assert w["Fig. 8", "mixed"] == ("holds at 1 of 2 candidates searched (E18, 5 trials): Δt = 0.01 s at the 1 s "
                                    "mean; undecided at 1")
    assert prof.claims_map(t).loc["Fig. 8: open"].tolist() == ["undecided", "undecided"]
    assert prof.holds_at(t) == {("Fig. 8", "mixed"): [(0.01, 1.0)]}


def test_profile_settings_and_label():
    p = prof.Profile(0.02, None)
    assert p.settings() == {"dt_s": 0.02, "compute_mean_s": None}
    assert p.label() == "Δt = 0.02 s, compute mean 1 s (stored) (fitted, E18)"
    assert prof.at_profile([{"n": 40}], p) == [{"n": 40, "dt_s": 0.02, "compute_mean_s": None}]
    assert len(prof.candidates()) == 16 and not prof.DEFAULT_SETTINGS.fitted


def test_figure_settings_cover_the_notebooks_grids_with_the_open_settings():
    groups = suite.figure_settings({"dt_s": 0.02, "compute_mean_s": 3.0})
    # 11: 2 traces x 5 n x 3 schemes; 12: p sweep 2 x 5, η sweep 5 (η = 0.3 is not among 0..0.8),
    # θ sweep 5 less θ = 1 (the p sweep's p = 0.3 point); 13: 5 n x 2 starts, e sweep 2 x 6 less its
    # e = 0 pair (n = 200 is among the n), PR at 5 n; 14: 3 schemes x 3 λ, 3 x 4 α less α = 1 ms
    assert {g: len(s) for g, s in groups.items()} == {"11": 30, "12": 10 + 5 + 4, "13": 10 + 10 + 5, "14": 9 + 9}
    assert all(s["dt_s"] == 0.02 and s["compute_mean_s"] == 3.0 for ss in groups.values() for s in ss)


def test_select_rows_matches_settings_exactly_unset_included():
    df = pd.DataFrame({"scheme": ["partial", "selective", "selective", "selective"],
                       "eta": [np.nan, 0.3, 0.3, 0.6], "dt_s": [0.1, 0.1, 0.02, 0.1], "trial": [0, 0, 0, 0],
                       "avg_sync_time_s": [1.0, 2.0, 3.0, 4.0]})
    got = suite.select_rows(df, [{"scheme": "partial", "dt_s": 0.1}, {"scheme": "selective", "eta": 0.3, "dt_s": 0.1}])
    assert got["avg_sync_time_s"].tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="not setting columns"):
        suite.select_rows(df, [{"scheme": "partial", "lam": 0.1}])


def _c(claim, holds, cause="unexplained: x", value="v"):
    return Claim("000", "Fig. 10", claim, "up", value, direction=holds, cause="" if holds else cause)


def test_cross_causes_name_the_other_setting():
    default = [_c("a", False, value="d-a"), _c("b", True), _c("c", False, value="d-c"),
               _c("d", False, cause="paper ambiguity: E16", value="d-d")]
    profile = [_c("a", True, value="p-a"), _c("b", False, value="p-b"), _c("c", False, value="p-c"),
               _c("d", False, cause="paper ambiguity: E16")]
    out = {(c.claim, c.setting): c for c in suite.cross_causes(default, profile, "Δt = 0.02 s")}
    assert len(out) == 8
    assert out["a", "default"].cause == "setting: holds at the paper profile (Δt = 0.02 s): p-a"
    assert out["b", "profile"].cause.startswith("setting: holds at the default") and out["b", "profile"].cause.endswith(": v")
    # no search evidence: it only says what the other setting measured, never "ruled out"
    assert out["c", "default"].cause == "unexplained: x; it fails at the paper profile (Δt = 0.02 s) too: p-c"
    assert out["d", "default"].cause == "paper ambiguity: E16"
    assert out["a", "profile"].holds and out["a", "profile"].cause == ""


def test_cross_settings_cite_where_the_search_found_the_claim():
    """Issue 41: a claim failing at every judged setting names the search's candidates where it holds
    (the cause becomes "setting"), or -- only when the search found none -- says "ruled out"."""
    d = [_c("a", False, value="d-a"), _c("b", False, value="d-b"), _c("s", False, cause="stand-in trace: T1")]
    r = [_c("a", False, value="r-a"), _c("b", False, value="r-b"), _c("s", False, cause="stand-in trace: T1")]
    where = {("Fig. 10", "a"): "holds at 3 of 16 candidates searched (E18, 5 trials): Δt ≤ 0.02 s at the 1 s mean",
             ("Fig. 10", "b"): "holds at none of the 16 candidates searched (E18, 5 trials)",
             ("Fig. 10", "s"): "holds at 1 of 16 candidates searched (E18, 5 trials): Δt = 0.1 s at the 5 s mean"}
    settings = {"default": prof.DEFAULT_SETTINGS, "dt reading": prof.DT_READING}
    out = {(c.claim, c.setting): c for c in suite.cross_settings({"default": d, "dt reading": r}, settings=settings,
                                                                 where_holds=where)}
    a = out["a", "dt reading"].cause
    assert a.startswith("setting: holds at 3 of 16 candidates searched (E18, 5 trials): Δt ≤ 0.02 s at the 1 s mean")
    assert "it fails at the default (Δt = 0.1 s, stored 1 s mean; E2, E6) too: d-a" in a
    assert out["b", "default"].cause.startswith("unexplained: x; ruled out: the open settings -- it holds at none "
                                                "of the 16 candidates searched")
    assert "Δt's reading (Δt = 0.04 s" in out["b", "default"].cause
    assert out["s", "default"].cause == "stand-in trace: T1; search: " + where["Fig. 10", "s"]


def test_only_the_baselines_claims_are_scored():
    """E18 as amended: selective reduce's own claims are the ones to check, so they never move the pick;
    here (0.02 s, 3 s) holds more claims in all, but fewer baseline ones, and loses."""
    t = table({(0.1, None): [1, 1], (0.02, 3.0): [1, 0]})
    extra = pd.DataFrame([{"dt_s": 0.02, "compute_mean_s": 3.0, "figure": "Fig. 8", "claim": f"SR claim {i}",
                           "holds": 1} for i in range(5)]
                         + [{"dt_s": 0.1, "compute_mean_s": None, "figure": "Fig. 8", "claim": f"SR claim {i}",
                             "holds": 0} for i in range(5)])
    both = pd.concat([t, extra], ignore_index=True)
    assert prof.pick(both) == prof.Profile(0.1, None)
    s = prof.scores(both).set_index("dt_s")
    assert s.loc[0.02, ["claims", "hold", "claims_all", "hold_all"]].tolist() == [2, 1, 7, 6]
    assert s.loc[0.1, ["claims", "hold", "claims_all", "hold_all"]].tolist() == [2, 2, 7, 2]


def test_a_stand_in_trace_cause_becomes_dt_when_the_stored_traces_suffice():
    """Issue 41 (Fig. 10): a claim the search finds holding at the stored 1 s mean at another Δt is not a
    matter of the traces' scale: its "stand-in trace" cause becomes "setting: Δt"; one holding only at
    other means keeps its cause."""
    search = pd.DataFrame([{"dt_s": dt, "compute_mean_s": mean, "figure": "Fig. 10", "claim": claim,
                            "holds": (claim, dt, mean) in {("a", 0.02, None), ("b", 0.1, 5.0)}}
                           for claim in ("a", "b") for dt in (0.02, 0.1) for mean in (None, 5.0)])
    d = [_c("a", False, cause="stand-in trace: sync-bound", value="d-a"),
         _c("b", False, cause="stand-in trace: sync-bound", value="d-b")]
    out = {c.claim: c for c in suite.cross_settings({"default": d}, settings={"default": prof.DEFAULT_SETTINGS},
                                                    search=search)}
    assert out["a"].cause.startswith("setting: Δt (E2)") and "earlier reason: sync-bound" in out["a"].cause
    assert out["a"].cause.endswith("search: holds at 1 of 4 candidates searched (E18, 5 trials): Δt = 0.02 s at the "
                                   "1 s mean")
    assert out["b"].cause.startswith("stand-in trace: sync-bound; search: holds at 1 of 4")
