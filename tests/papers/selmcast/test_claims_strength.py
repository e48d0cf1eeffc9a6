"""Verdict strength of 004's comparative claims (decisions S24, SM73) on hand-derived paired tables.

At 10 pairs the 95 % sign-test interval of the median is [x(2), x(9)] (order statistics; coverage
1 - 2 P(Binom(10, 1/2) <= 1) = 97.9 %), so a table's verdict can be derived by hand.
"""
import dataclasses

import numpy as np
import pandas as pd
import pytest

from simlib.papers import paired_strength as paired
from simlib.papers.selmcast import ssp_claims as sc
from simlib.papers.strength import strength

T3 = ("lstm", "transformer", "cnn")
BASE = dict(n=50, duration_s=600.0, p=0.3, k=4, ssp=4, eta=0.75, preempted_share=0.5, blocked_share=0.1,
            rounds_per_worker=100.0)


def fig7_table(orph_util, sel_util, sel_scale=0.55, orph_scale=0.3):
    """``orph_util`` / ``sel_util``: per trial (the same on every trace)."""
    rows = []
    for t in T3:
        for trial, (o, s) in enumerate(zip(orph_util, sel_util)):
            rows.append({**BASE, "trace": t, "trial": trial, "scheme": "orpheus", "npu_utilization": o,
                         "avg_scale": orph_scale})
            rows.append({**BASE, "trace": t, "trial": trial, "scheme": "selmcast", "npu_utilization": s,
                         "avg_scale": sel_scale})
    return pd.DataFrame(rows).sample(frac=1.0, random_state=3)       # pairing must not rely on row order


def util_claim(df):
    return next(c for c in sc.fig7(df) if "NPU utilization" in c.claim)


def test_paired_values_pair_by_trial_not_by_row_order():
    df = fig7_table([0.5, 0.4, 0.8], [0.6, 0.6, 0.4])
    got = paired.paired_values(df, "npu_utilization", {"scheme": "selmcast"}, {"scheme": "orpheus"})
    assert sorted(got) == sorted(T3)
    assert sorted(got["lstm"]) == pytest.approx([0.5, 1.2, 1.5])
    diff = paired.paired_values(df, "npu_utilization", {"scheme": "selmcast"}, {"scheme": "orpheus"}, how="diff")
    assert sorted(diff["cnn"]) == pytest.approx([-0.4, 0.1, 0.2])


def test_paired_values_reject_two_readings_in_one_arm():
    df = fig7_table([0.5] * 6, [0.6] * 6)
    twice = pd.concat([df, df])
    with pytest.raises(ValueError, match="twice"):
        paired.paired_values(twice, "npu_utilization", {"scheme": "selmcast"}, {"scheme": "orpheus"})


def test_every_pair_above_holds():
    # ratios 1.10 on all 10 pairs: interval [1.10, 1.10] > 1
    c = util_claim(fig7_table([0.6] * 10, [0.66] * 10))
    assert c.verdict == "holds" and c.pairs == 10 and c.undecided == ()
    assert "lstm: 10 pairs: 10 above 1, 0 below" in c.sides
    assert "lstm: 1.10×" in c.interval


def test_every_pair_below_fails():
    c = util_claim(fig7_table([0.6] * 10, [0.54] * 10))
    assert c.verdict == "fails" and c.undecided == () and c.cause
    assert "lstm: 10 pairs: 0 above 1, 10 below" in c.sides


def test_half_and_half_is_undecided_although_the_mean_rises():
    # 5 pairs at 0.95, 5 at 1.10: x(2) = 0.95 <= 1 < x(9) = 1.10; the means 0.615 > 0.6 say "rises"
    c = util_claim(fig7_table([0.6] * 10, [0.57] * 5 + [0.66] * 5))
    assert c.direction is True
    assert c.verdict == "undecided" and c.undecided == ("direction",) and c.holds is None
    assert "lstm: 0.95–1.10×" in c.interval and "5 above 1, 5 below" in c.sides


def test_nine_of_ten_above_still_decides():
    # one pair at 0.95: x(2) = 1.10 > 1
    c = util_claim(fig7_table([0.6] * 10, [0.57] + [0.66] * 9))
    assert c.verdict == "holds" and "9 above 1, 1 below" in c.sides


def test_median_and_mean_disagreeing_is_undecided():
    # 9 pairs at ratio 1.01 (Orpheus 0.5), one at 0.1 (Orpheus 0.9): the interval [1.01, 1.01] says above,
    # the means 0.4635 < 0.54 say below -- neither can be reported alone (SM73)
    orph, sel = [0.5] * 9 + [0.9], [0.505] * 9 + [0.09]
    c = util_claim(fig7_table(orph, sel))
    assert c.direction is False and c.verdict == "undecided" and c.undecided == ("direction",)


def test_fewer_than_six_pairs_decide_nothing():
    c = util_claim(fig7_table([0.6] * 5, [0.66] * 5))
    assert c.verdict == "undecided" and "n/a (5 pairs < 6)" in c.interval


def test_fields_summarize_many_groups_and_name_the_open_ones():
    groups = {f"g{i}": strength([1.2] * 10) for i in range(6)}
    groups["g6"] = strength([0.95] * 5 + [1.1] * 5)
    dec = {k: (None if k == "g6" else True) for k in groups}
    f = paired.fields_on_means(groups, dec, point=True)
    assert f["undecided"] == ("direction",) and f["pairs"] == 10
    assert f["sides"].startswith("7 groups of 10 pairs: 6 decided as claimed, 0 decided against, 1 undecided")
    assert "g6: 0.95–1.10×" in f["interval"] and "g0" not in f["interval"]


def test_a_magnitude_straddling_its_band_is_undecided_alone():
    # Fig. 9's "up to about 1.17x": band 1.17 x [0.85, 1.15] = [0.9945, 1.3455]; the largest ratio's
    # interval [1.30, 1.40] straddles its upper end while every direction interval is above 1
    rows = []
    for t, r in zip(T3, ([1.05] * 10, [1.10] * 10, [1.30] * 5 + [1.40] * 5)):
        for trial, ratio in enumerate(r):
            for k in (1.0, 4.0, None):
                rows.append({**BASE, "k": k, "trace": t, "trial": trial, "scheme": "orpheus", "npu_utilization": 0.5,
                             "avg_scale": 0.3})
                rows.append({**BASE, "k": k, "trace": t, "trial": trial, "scheme": "selmcast",
                             "npu_utilization": 0.5 * ratio, "avg_scale": 0.45})
    c = next(c for c in sc.fig9(pd.DataFrame(rows)) if "utilization up to about" in c.claim)
    assert c.direction is True and c.magnitude is False          # mean ratio 1.35 > 1.3455
    assert c.undecided == ("magnitude",) and c.verdict == "undecided"


@pytest.mark.parametrize("cnn_scale, met", [(0.55, 3), (0.46, 2)])
def test_per_trace_count_beside_the_all_traces_rule(cnn_scale, met):
    """Issue 43: one stand-in missing the paper's 0.55/0.55/0.55 fails the all-traces rule, and the row
    says how many traces meet it on their own."""
    rows = []
    for t in T3:
        for trial in range(6):
            rows.append({**BASE, "trace": t, "trial": trial, "scheme": "orpheus", "npu_utilization": 0.6,
                         "avg_scale": 0.3})
            rows.append({**BASE, "trace": t, "trial": trial, "scheme": "selmcast", "npu_utilization": 0.65,
                         "avg_scale": cnn_scale if t == "cnn" else 0.55})
    c = next(c for c in sc.fig7(pd.DataFrame(rows)) if "multicast scale" in c.claim)
    assert f"per trace: {met} of 3 meet it" in c.our_value
    assert c.magnitude is (met == 3)
    if met == 2:
        assert "(lstm, transformer)" in c.our_value


def test_wide_values_pair_columns_of_one_row():
    df = pd.DataFrame({"n": [50, 50, 100], "a": [1.0, 2.0, 3.0], "b": [2.0, 2.0, 1.0]})
    got = paired.wide_values(df, "a", "b", by=["n"])
    assert list(got) == ["50", "100"] and list(got["50"]) == [0.5, 1.0] and list(got["100"]) == [3.0]
    assert np.allclose(paired.wide_values(df, "a", "b", by=["n"], how="diff")["50"], [-1.0, 0.0])


def test_bsp_completion_time_below_orpheus_undecided_when_half_the_pairs_are_above():
    """BSP frames are wide: SelMcast's and Orpheus's columns of one row are a pair.  At n = 100, 5 of 10
    pairs at 0.9 and 5 at 1.05 straddle 1 although the means (1.0 vs 1.025) say below."""
    from simlib.papers.selmcast import claims as C
    rows = []
    for n in (50, 100):
        for t in range(10):
            sel = (0.9 if t < 5 else 1.05) if n == 100 else 0.5
            for layer in ("L3", "L7"):
                rows.append(dict(layer=layer, n=n, p_frac=0.3, mu=1.0, lam=0.5, normalization="own", trial=t,
                                 p=round(0.3 * n), orpheus_ct_norm=1.0, selmcast_ct_norm=sel,
                                 selmcast_scale=0.3, orpheus_scale=0.3, selmcast_receivers=0.3 * n,
                                 orpheus_receivers=0.3 * n))
    df = pd.DataFrame(rows)
    out = C.bsp_claims(df, df.iloc[:0], df.iloc[:0])
    c = next(c for c in out if c.claim == "SelMcast's normalized CT below Orpheus's at every n (L3)")
    assert c.direction is True and c.verdict == "undecided" and c.undecided == ("direction",)
    assert "n=100: 0.90–1.05×" in c.interval and "n=50: 0.50×" in c.interval


def test_fig7_frame_drawn_at_the_paper_marks_meets_the_claims_magnitudes():
    """Issue 43 item 4: the figures' "paper" marks and the ledger read the same values -- a frame whose
    means are the marks meets every Fig. 7 magnitude, one moved 20 % off a mark does not."""
    marks = sc.paper_marks(7)
    assert {(m, s) for _, m, s, _, _ in marks} == {(m, s) for m in ("avg_scale", "npu_utilization")
                                                   for s in ("selmcast", "orpheus")}
    value = {(t, m, s): y for t, m, s, _, y in marks}

    def frame(scale_factor=1.0):
        rows = []
        for t in T3:
            for trial in range(6):
                for s in ("selmcast", "orpheus"):
                    f = scale_factor if s == "selmcast" else 1.0
                    rows.append({**BASE, "trace": t, "trial": trial, "scheme": s,
                                 "npu_utilization": value[(t, "npu_utilization", s)],
                                 "avg_scale": f * value[(t, "avg_scale", s)]})
        return pd.DataFrame(rows)

    for c in sc.fig7(frame()):
        if c.kind == "claim" and c.magnitude is not None:
            assert c.magnitude and c.verdict == "holds", c.claim
    off = next(c for c in sc.fig7(frame(1.2)) if "multicast scale" in c.claim)
    assert off.magnitude is False


def test_bsp_paper_marks_are_the_judged_numbers():
    from simlib.papers.selmcast import claims as C
    marks = C.paper_marks(100)
    fig4 = {(lay, s): y for f, lay, m, s, x, y in marks if f == "Fig. 4"}
    assert all(x == 100 for f, *_, x, _ in marks if f == "Fig. 4")
    rows = []
    for layer in ("L3", "L7"):
        for n in (50, 100):
            for t in range(6):
                rows.append(dict(layer=layer, n=n, p_frac=0.3, mu=1.0, lam=0.5, normalization="own", trial=t,
                                 p=round(0.3 * n), orpheus_ct_norm=fig4[(layer, "orpheus")],
                                 selmcast_ct_norm=fig4[(layer, "selmcast")], selmcast_scale=0.3, orpheus_scale=0.3,
                                 selmcast_receivers=0.3 * n, orpheus_receivers=0.3 * n))
    df = pd.DataFrame(rows)
    out = C.bsp_claims(df, df.iloc[:0], df.iloc[:0])
    for claim in ("normalized CT at n = 100, L3: Orpheus -> SelMcast", "normalized CT at n = 100, L7: Orpheus -> SelMcast"):
        c = next(c for c in out if c.claim == claim)
        assert c.magnitude is True and c.verdict == "holds"


def test_paper_notes_quote_the_judged_constants():
    assert sc.paper_notes(11, "cnn")["avg_scale"].startswith(f"paper: +{sc.FIG11_SCALE_GAIN['cnn']:.0%}")
    assert "58%" in sc.paper_notes(11, "cnn")["avg_scale"] and "7%" in sc.paper_notes(11, "cnn")["npu_utilization"]
    assert sc.paper_notes(13, "lstm") == {"avg_scale": "paper: up to +67% over Orpheus"}
    assert sc.paper_notes(12, "lstm") == {} and sc.paper_notes(10, "lstm") == {}


def test_fig13_lead_drop_is_paired_per_trial():
    """The lead (SelMcast - Orpheus utilization) at gamma = 0 minus at gamma = 1, per trial: +0.05 on 9
    trials and -0.05 on one decides (x(2) = 0.05 > 0); -0.05 on 5 trials straddles 0."""
    def frame(n_neg):
        rows = []
        for t in T3:
            for trial in range(10):
                drop = -0.05 if trial < n_neg else 0.05
                for g, lead in ((0.0, 0.10), (0.5, 0.12), (1.0, 0.10 - drop)):
                    rows.append({**BASE, "trace": t, "trial": trial, "gamma": g, "scheme": "orpheus",
                                 "npu_utilization": 0.6, "avg_scale": 0.3})
                    rows.append({**BASE, "trace": t, "trial": trial, "gamma": g, "scheme": "selmcast",
                                 "npu_utilization": 0.6 + lead, "avg_scale": 0.5 - 0.1 * g})
        return pd.DataFrame(rows)
    c = next(c for c in sc.fig13(frame(1)) if "shrinks" in c.claim)
    assert c.verdict == "holds" and "9 above 0, 1 below" in c.sides and "median paired difference" in c.interval
    assert "×" not in c.interval
    c = next(c for c in sc.fig13(frame(5)) if "shrinks" in c.claim)
    assert c.verdict == "undecided" and c.undecided == ("direction",)


def _grid(**axes):
    """Notebook 44's shape: SelMcast at both readings, Orpheus once."""
    from simlib.pipeline import sweep
    return (sweep.expand_grid(trace=list(T3), scheme=["selmcast"], sharing=["maxmin", "priority"], **axes)
            + sweep.expand_grid(trace=list(T3), scheme=["orpheus"], sharing=["maxmin"], **axes))


def _undecided(figure, claim, setting):
    from simlib.papers.claim import Claim
    return Claim("004", figure, claim, "x", "y", direction=True, pairs=10, sides="s", interval="i",
                 undecided=("direction",), setting=setting)


def test_s25_extends_only_the_settings_a_straddling_verdict_reads():
    """Fig. 9's "k removed: ... up to about 1.17x" at the default reads k = ∞ under max-min (and Orpheus):
    those 6 of the 54 settings get more trials, not the other k, not SelMcast under priority."""
    grid = _grid(k=[1, 2, 4, 8, 16, None])
    c = _undecided("Fig. 9", "k removed: SelMcast's utilization up to about 1.17x Orpheus's", "default")
    assert sc.claim_scope(c) == {"sharing": ["maxmin"], "k": [np.inf]}
    picked = [grid[i] for i in sc.open_settings(grid, [c])]
    assert len(picked) == 6 and all(s["k"] is None for s in picked)
    assert {(s["scheme"], s["sharing"]) for s in picked} == {("selmcast", "maxmin"), ("orpheus", "maxmin")}
    # at the priority reading: SelMcast under priority and Orpheus; a claim over every k: the whole reading
    pri = [grid[i] for i in sc.open_settings(grid, [dataclasses.replace(c, setting="priority")])]
    assert {(s["scheme"], s["sharing"]) for s in pri} == {("selmcast", "priority"), ("orpheus", "maxmin")}
    every = _undecided("Fig. 9", "SelMcast beats Orpheus in both metrics at every k", "default")
    assert len(sc.open_settings(grid, [every])) == 36
    assert sc.open_settings(grid, []) == []


def test_s25_scopes_of_figs_7_8_11_13():
    from simlib.pipeline import sweep
    fig7 = (sweep.expand_grid(trace=list(T3), scheme=["orpheus"], sharing=["maxmin"], tau_estimate=["trace"])
            + sweep.expand_grid(trace=list(T3), scheme=["selmcast"], sharing=["maxmin", "priority"],
                                tau_estimate=["trace", "zero"]))
    c7 = _undecided("Fig. 7", "SSP: SelMcast raises the average NPU utilization over Orpheus", "default")
    assert {(s["scheme"], s["sharing"], s["tau_estimate"]) for s in (fig7[i] for i in sc.open_settings(fig7, [c7]))} \
        == {("orpheus", "maxmin", "trace"), ("selmcast", "maxmin", "trace")}
    c8 = _undecided("Fig. 8", "at p = 0.4n SelMcast's scale exceeds Orpheus's by more than 0.2", "default")
    grid8 = _grid(p=[0.05, 0.3, 0.4])
    assert {grid8[i]["p"] for i in sc.open_settings(grid8, [c8])} == {0.4}
    c11 = _undecided("Fig. 11", "eta = 0.75 vs eta = 0: scale gain of about 66/66/58 %", "default")
    grid11 = (sweep.expand_grid(trace=list(T3), eta=[0.0, 0.5, 0.75], line32=["y", "x"], scheme=["selmcast"],
                                sharing=["maxmin"])
              + sweep.expand_grid(trace=list(T3), eta=[0.75], scheme=["orpheus"], sharing=["maxmin"]))
    got = [grid11[i] for i in sc.open_settings(grid11, [c11])]
    assert len(got) == 6 and {(s["eta"], s["line32"], s["scheme"]) for s in got} == {(0.0, "y", "selmcast"),
                                                                                     (0.75, "y", "selmcast")}
    c13 = _undecided("Fig. 13", "SelMcast's utilization gain over Orpheus shrinks from gamma = 0 to 1", "priority")
    grid13 = _grid(gamma=[0.0, 0.4, 1.0])
    assert {(grid13[i]["gamma"], grid13[i]["scheme"], grid13[i]["sharing"]) for i in sc.open_settings(grid13, [c13])} \
        == {(g, s, sh) for g in (0.0, 1.0) for s, sh in (("selmcast", "priority"), ("orpheus", "maxmin"))}


def test_the_note_gives_the_range_of_trials_when_s25_extended_some_settings():
    df = fig7_table([0.6] * 10, [0.66] * 10)
    assert "10 trials, means over trials" in util_claim(df).note
    short = df[~((df.trace == "cnn") & (df.trial >= 6))]          # cnn's two arms at 6 trials, the rest at 10
    c = util_claim(short)
    assert "6–10 trials (S25), means over trials" in c.note and c.pairs == 6


def test_a_reading_leaves_out_orpheus_trials_its_selmcast_arm_does_not_have():
    """S25 ran Orpheus and SelMcast (max-min) to 15 trials for a default verdict, SelMcast under priority
    kept 10: the priority reading's Orpheus means are over the 10 trials SelMcast has there."""
    rows = []
    for t in T3:
        for trial in range(15):
            rows.append({**BASE, "trace": t, "trial": trial, "scheme": "orpheus", "sharing": "maxmin",
                         "npu_utilization": 0.5 if trial < 10 else 0.9, "avg_scale": 0.3})
            rows.append({**BASE, "trace": t, "trial": trial, "scheme": "selmcast", "sharing": "maxmin",
                         "npu_utilization": 0.6, "avg_scale": 0.55})
            if trial < 10:
                rows.append({**BASE, "trace": t, "trial": trial, "scheme": "selmcast", "sharing": "priority",
                             "npu_utilization": 0.55, "avg_scale": 0.45})
    df = pd.DataFrame(rows)
    pri, dflt = sc.reading(df, "priority"), sc.reading(df, "maxmin")
    assert set(pri[pri.scheme == "orpheus"]["trial"]) == set(range(10))
    assert set(dflt[dflt.scheme == "orpheus"]["trial"]) == set(range(15))
    c = next(c for c in sc.fig7(pri, setting="priority") if "NPU utilization" in c.claim)
    assert c.direction is True and "0.50/0.50/0.50 -> 0.55/0.55/0.55" in c.our_value and "10 trials," in c.note
