"""SelMcast §IV-C claims (simlib.papers.selmcast.ssp_claims) on small hand-built frames.

Each frame has a few rows whose means are chosen so that the verdict is known:
on the paper's value, exactly at a tolerance or threshold, just outside it, an
exact tie, a ratio of exactly 1.  Rules: decision SM70.
"""
import math

import numpy as np
import pandas as pd
import pytest

from simlib.papers.claim import CAUSES
from simlib.papers.selmcast import ssp_claims as sc

T3 = ("lstm", "transformer", "cnn")
BASE = dict(n=50, duration_s=600.0, p=0.3, k=4, ssp=4, eta=0.75, preempted_share=0.5, blocked_share=0.1,
            rounds_per_worker=100.0)


def row(trace, scheme, util, scale, trial=0, **kw):
    return {**BASE, "trace": trace, "scheme": scheme, "trial": trial, "npu_utilization": util, "avg_scale": scale,
            **kw}


def replicate(rows, trials=6):
    """The frame of ``rows`` as ``trials`` identical paired trials (when the rows are one trial): enough
    pairs for a 95 % interval of the median ratio (S24), which then is the point ratio, so the verdicts
    below test the rules of SM70 on the means."""
    df = pd.DataFrame(rows)
    if df["trial"].nunique() > 1:
        return df
    return pd.concat([df.assign(trial=t) for t in range(trials)], ignore_index=True)


def by_claim(claims, text):
    found = [c for c in claims if text in c.claim]
    assert len(found) == 1, [c.claim for c in claims]
    return found[0]


def check_causes(claims):
    for c in claims:
        if c.kind == "claim" and not c.holds:
            assert c.cause.split(":")[0] in CAUSES


# ---------------------------------------------------------------- Fig. 7
def fig7_frame(sel_scale=0.55, orph_scale=0.3, sel_util=(0.68, 0.70, 0.70), orph_util=(0.63, 0.65, 0.64)):
    rows = []
    for i, t in enumerate(T3):
        rows.append(row(t, "selmcast", sel_util[i], sel_scale))
        rows.append(row(t, "orpheus", orph_util[i], orph_scale))
    return replicate(rows)


def test_fig7_the_papers_values_hold():
    claims = sc.fig7(fig7_frame())
    for text in ("multicast scale", "NPU utilization"):
        c = by_claim(claims, text)
        assert c.direction and c.magnitude and c.holds and c.tolerance


@pytest.mark.parametrize("sel_scale, magnitude", [(0.55 * 1.10, True), (0.55 * 0.90, True),
                                                  (0.6051, False), (0.4949, False)])
def test_fig7_scale_within_10_percent_closed(sel_scale, magnitude):
    c = by_claim(sc.fig7(fig7_frame(sel_scale=sel_scale)), "multicast scale")
    assert c.direction and c.magnitude is magnitude and c.setting == "default"
    assert bool(c.cause) is (not magnitude)
    p = by_claim(sc.fig7(fig7_frame(sel_scale=sel_scale), setting="priority"), "multicast scale")
    assert p.setting == "priority" and p.magnitude is magnitude
    if not magnitude:                        # the cause follows the mechanism of each reading (SM50, SM51)
        assert c.cause.startswith("stand-in trace: T1, SM51")
        assert p.cause.startswith("paper ambiguity: SM50")


@pytest.mark.parametrize("factor, magnitude", [(1.15, True), (1.1501, False), (0.85, True), (0.8499, False)])
def test_fig7_utilization_about_is_15_percent(factor, magnitude):
    util = tuple(factor * v for v in (0.68, 0.70, 0.70))
    c = by_claim(sc.fig7(fig7_frame(sel_util=util, orph_util=(0.5, 0.5, 0.5))), "NPU utilization")
    # the Orpheus side is 0.5 against 0.63/0.65/0.64: outside 15 % whatever SelMcast does
    assert c.direction and c.magnitude is False
    c = by_claim(sc.fig7(fig7_frame(sel_util=util)), "NPU utilization")
    assert c.magnitude is magnitude


def test_fig7_a_tie_is_no_rise():
    c = by_claim(sc.fig7(fig7_frame(sel_scale=0.3)), "multicast scale")
    assert c.direction is False and c.holds is False
    c = by_claim(sc.fig7(fig7_frame(sel_util=(0.63, 0.70, 0.70))), "NPU utilization")
    assert c.direction is False


def test_fig7_orpheus_above_p_over_n_on_both_named_traces():
    rows = [row(t, s, 0.6, 0.3, trial=r) for t in T3 for s in ("selmcast", "orpheus") for r in (0, 1)]
    df = pd.DataFrame(rows)
    c = by_claim(sc.fig7(df), "exceeds p/n")
    assert c.direction is False                            # exactly p/n = 15/50 is not above it
    df.loc[(df.scheme == "orpheus") & (df.trace == "transformer") & (df.trial == 1), "avg_scale"] = 0.31
    assert by_claim(sc.fig7(df), "exceeds p/n").direction is False     # ResNet-50 still never above
    df.loc[(df.scheme == "orpheus") & (df.trace == "cnn") & (df.trial == 0), "avg_scale"] = 0.31
    c = by_claim(sc.fig7(df), "exceeds p/n")
    assert c.direction is True and "0.00/0.50/0.50" in c.our_value


def test_fig7_needs_both_schemes_and_checks_columns():
    df = fig7_frame()
    assert sc.fig7(df[df.scheme == "selmcast"]) == []
    with pytest.raises(ValueError, match="avg_scale"):
        sc.fig7(df.drop(columns="avg_scale"))


# ---------------------------------------------------------------- Fig. 8
def fig8_frame(sel_hi_scale=(0.65, 0.64, 0.61), orph_hi_util=None, sel_hi_util=(0.59, 0.59, 0.59),
               orph_small=(0.2, 0.2), orph_small_util=(0.7, 0.7), rounds=100.0, p_values=(0.05, 0.2, 0.4),
               orph_hi_scale=0.4):
    """SelMcast at the paper's values at p/n 0.05 and 0.4 (0.2 in between); Orpheus at p/n."""
    lo_scale, lo_util = (0.37, 0.34, 0.33), (0.75, 0.81, 0.81)
    rows = []
    for i, t in enumerate(T3):
        for p in p_values:
            if p == 0.05:
                s_scale, s_util = lo_scale[i], lo_util[i]
            elif p == 0.4:
                s_scale, s_util = sel_hi_scale[i], sel_hi_util[i]
            else:
                s_scale, s_util = 0.5, 0.75
            o_scale = orph_small[0] if p == 0.05 else orph_small[1] if p == 0.2 else orph_hi_scale
            o_util = orph_small_util[0] if p == 0.05 else orph_small_util[1] if p == 0.2 else \
                (orph_hi_util[i] if orph_hi_util else 0.54)
            rows.append(row(t, "selmcast", s_util, s_scale, p=p, rounds_per_worker=rounds))
            rows.append(row(t, "orpheus", o_util, o_scale, p=p, rounds_per_worker=rounds))
    return replicate(rows)


def test_fig8_the_papers_values_hold():
    claims = sc.fig8(fig8_frame())
    check_causes(claims)
    for text in ("SelMcast scale grows", "SelMcast utilization falls", "beats Orpheus", "Orpheus too", "by more than",
                 "by about", "roughly flat"):
        c = by_claim(claims, text)
        assert c.holds, c


@pytest.mark.parametrize("sel, magnitude", [(0.5, False), (0.5001, True)])
def test_fig8_scale_gain_more_than_0_2_is_strict(sel, magnitude):
    assert 0.5 - 0.3 == 0.2                                     # the gain is exactly the bound
    c = by_claim(sc.fig8(fig8_frame(sel_hi_scale=(sel,) * 3, orph_hi_scale=0.3)), "by more than 0.2")
    assert c.direction is True and c.magnitude is magnitude
    assert "bound" in c.tolerance


def test_fig8_scale_gain_of_the_issue_fails_the_bound():
    c = by_claim(sc.fig8(fig8_frame(sel_hi_scale=(0.47, 0.44, 0.41))), "by more than 0.2")
    assert c.direction is True and c.magnitude is False and c.holds is False
    assert "+0.070/+0.040/+0.010" in c.our_value and c.cause.startswith("stand-in trace")
    c = by_claim(sc.fig8(fig8_frame(sel_hi_scale=(0.47, 0.44, 0.41)), "priority"), "by more than 0.2")
    assert c.setting == "priority" and c.cause.startswith("paper ambiguity: SM50")


@pytest.mark.parametrize("gain, magnitude", [(0.0575, True), (0.0425, True), (0.0576, False), (0.0424, False)])
def test_fig8_utilization_gain_about_0_05(gain, magnitude):
    orph = (0.5, 0.5, 0.5)
    c = by_claim(sc.fig8(fig8_frame(orph_hi_util=orph, sel_hi_util=tuple(0.5 + gain for _ in T3))), "by about 0.05")
    assert c.direction is True and c.magnitude is magnitude


def test_fig8_utilization_gain_zero_is_no_gain():
    c = by_claim(sc.fig8(fig8_frame(orph_hi_util=(0.59, 0.59, 0.59))), "utilization exceeds")
    assert c.direction is False


@pytest.mark.parametrize("floor, magnitude", [(0.2, True), (0.1999, False)])
def test_fig8_orpheus_floor_is_a_bound(floor, magnitude):
    c = by_claim(sc.fig8(fig8_frame(orph_small=(floor, floor), rounds=1000.0)), "roughly flat")
    assert c.direction is True and c.magnitude is magnitude
    if not magnitude:
        assert c.cause.startswith("paper ambiguity: SM55")


@pytest.mark.parametrize("hi, flat", [(0.23, False), (0.2299, True)])
def test_fig8_flat_threshold_is_strict(hi, flat):
    assert 0.23 - 0.2 == 0.03                                   # a spread of exactly the threshold
    one = "trial == 0"                          # one trial: the mean is the value, no rounding of a mean
    c = by_claim(sc.fig8(fig8_frame(orph_small_util=(0.2, hi)).query(one)), "roughly flat")
    assert c.direction is flat
    c = by_claim(sc.fig8(fig8_frame(orph_small=(0.2, hi)).query(one)), "roughly flat")
    assert c.direction is flat


def test_fig8_a_run_below_our_floor_breaks_the_direction():
    # floor at n = 50, k = 4, R = 100: 49/50/5 * 96/100 = 0.18816
    assert sc.orpheus_floor(50, 4, 100.0) == pytest.approx(49 / 50 / 5 * 0.96)
    assert by_claim(sc.fig8(fig8_frame(orph_small=(0.1882, 0.1882))), "roughly flat").direction is True
    assert by_claim(sc.fig8(fig8_frame(orph_small=(0.1881, 0.1881))), "roughly flat").direction is False


def test_fig8_trend_tie_fails_and_other_ends_give_no_magnitude():
    c = by_claim(sc.fig8(fig8_frame(sel_hi_scale=(0.37, 0.64, 0.61))), "SelMcast scale grows")
    assert c.direction is False
    claims = sc.fig8(fig8_frame(p_values=(0.05, 0.2)))        # the quick profile's short grid
    c = by_claim(claims, "SelMcast scale grows from p/n=0.05 to 0.2")
    assert c.magnitude is None and c.tolerance == ""
    assert by_claim(claims, "at p = 0.2n SelMcast's scale exceeds").magnitude is None


def test_fig8_lead_must_be_positive_in_both_metrics_at_every_p():
    df = fig8_frame()
    mask = (df.scheme == "selmcast") & (df.p == 0.2) & (df.trace == "cnn")
    df.loc[mask, "npu_utilization"] = 0.7                       # Orpheus: 0.7 too -> tie
    assert by_claim(sc.fig8(df), "beats Orpheus").direction is False


def test_fig8_lead_cause_names_the_trade_off_with_its_numbers():
    """Issue 41: where SelMcast trails in utilization only on the heavy-tailed stand-ins, the cause is the
    scale-utilization trade-off with its numbers, worked by hand: at p/n = 0.2 SelMcast's utilization is
    0.68 on lstm and 0.695 on transformer (Orpheus 0.7), its scale 0.5 against 0.2: leads -0.020 and
    -0.005, scale lead +0.300 there; elsewhere the scale leads are 0.17/0.14/0.13 at p/n 0.05, 0.30 on
    cnn at 0.2 and 0.25/0.24/0.21 at 0.4, so +0.130 to +0.300."""
    df = fig8_frame()
    for trace, util in (("lstm", 0.68), ("transformer", 0.695)):
        df.loc[(df.scheme == "selmcast") & (df.p == 0.2) & (df.trace == trace), "npu_utilization"] = util
    c = by_claim(sc.fig8(df), "beats Orpheus")
    assert c.direction is False
    assert c.cause.startswith("stand-in trace: T1: a scale-utilization trade-off on the lstm and transformer")
    assert "utilization lead -0.020 to -0.005 (lstm at p/n 0.2; transformer at p/n 0.2)" in c.cause
    assert "scale lead is +0.300 to +0.300, against +0.130 to +0.300" in c.cause
    # trailing on the tight ResNet-50 (cnn) stand-in too: no trace-shape argument, still the numbers
    df.loc[(df.scheme == "selmcast") & (df.p == 0.2) & (df.trace == "cnn"), "npu_utilization"] = 0.69
    c = by_claim(sc.fig8(df), "beats Orpheus")
    assert c.cause.startswith("unexplained: SelMcast does not lead in both metrics: utilization lead -0.020 to -0.005")


def test_fig8_ties_are_not_trends_or_gains():
    # SelMcast's utilization equal at both ends: it does not fall
    c = by_claim(sc.fig8(fig8_frame(sel_hi_util=(0.75, 0.59, 0.59))), "SelMcast utilization falls")
    assert c.direction is False
    # scale gain exactly 0 at p = 0.4n: no lead, no gain
    claims = sc.fig8(fig8_frame(sel_hi_scale=(0.4, 0.64, 0.61)))
    assert by_claim(claims, "beats Orpheus").direction is False
    assert by_claim(claims, "by more than 0.2").direction is False
    # Orpheus: scale equal at both ends, or utilization equal at both ends
    df = fig8_frame(orph_hi_scale=0.2)
    assert by_claim(sc.fig8(df), "Orpheus too").direction is False
    df = fig8_frame(orph_small_util=(0.54, 0.7), orph_hi_util=(0.54, 0.54, 0.54))
    assert by_claim(sc.fig8(df), "Orpheus too").direction is False


# ---------------------------------------------------------------- Figs. 9 and 10
def relax_frame(col, values, sel, orph, none_as=None):
    """``sel``/``orph``: {value: (util, scale)} for every trace; ∞ is ``none_as`` (None or NaN)."""
    rows = []
    for t in T3:
        for v in values:
            x = none_as if v == math.inf else v
            rows.append(row(t, "selmcast", *sel[v], **{col: x}))
            rows.append(row(t, "orpheus", *orph[v], **{col: x}))
    return replicate(rows)


INF = math.inf
SEL9 = {1: (0.50, 0.66), 4: (0.66, 0.50), 16: (0.711, 0.461), INF: (0.72, 0.46)}
ORPH9 = {1: (0.45, 0.49), 4: (0.60, 0.32), 16: (0.639, 0.301), INF: (0.64, 0.30)}


@pytest.mark.parametrize("none_as", [None, np.nan])
def test_fig9_removed_k_as_none_or_nan(none_as):
    claims = sc.fig9(relax_frame("k", list(SEL9), SEL9, ORPH9, none_as=none_as))
    check_causes(claims)
    assert by_claim(claims, "every k").holds
    assert by_claim(claims, "from k = 1 to removed").holds
    assert by_claim(claims, "approximate").holds
    util = by_claim(claims, "raises utilization")
    assert util.direction and util.magnitude is True            # 0.64 -> 0.72 against 0.64/0.66/0.66 -> 0.72/0.77/0.73
    scale = by_claim(claims, "raises the multicast scale")
    assert scale.direction and scale.magnitude is True         # 0.46 vs 0.46/0.44/0.42: within 10 %
    sel = {**SEL9, INF: (0.72, 0.3781)}                         # 0.3781 < 0.42 x 0.9
    scale = by_claim(sc.fig9(relax_frame("k", list(sel), sel, ORPH9, none_as=none_as)), "raises the multicast")
    assert scale.direction and scale.magnitude is False and scale.cause.startswith("stand-in trace: T1")
    scale = by_claim(sc.fig9(relax_frame("k", list(sel), sel, ORPH9, none_as=none_as), "priority"),
                     "raises the multicast")
    assert scale.cause.startswith("paper ambiguity: SM50")


@pytest.mark.parametrize("util16, approaches", [(0.925, True), (0.9249, False)])
def test_fig9_approach_share_boundary(util16, approaches):
    # SelMcast's utilization from 0.25 (k = 1) to 1.0 (removed): exactly 90 % of the change at 0.925
    sel = {1: (0.25, 0.66), 4: (0.8, 0.5), 16: (util16, 0.461), INF: (1.0, 0.46)}
    c = by_claim(sc.fig9(relax_frame("k", list(sel), sel, ORPH9)), "approximate")
    assert c.direction is approaches
    if not approaches:
        assert "selmcast, npu_utilization" in c.our_value and c.cause.startswith("unexplained")


@pytest.mark.parametrize("ratio, magnitude", [(1.17 * 1.15, True), (1.17 * 1.1501, False)])
def test_fig9_up_to_about_1_17_uses_the_largest_ratio(ratio, magnitude):
    sel = dict(SEL9)
    frame = relax_frame("k", list(sel), sel, ORPH9)
    frame.loc[(frame.scheme == "selmcast") & frame.k.isna() & (frame.trace == "cnn"), "npu_utilization"] = 0.64 * ratio
    c = by_claim(sc.fig9(frame), "utilization up to about 1.17x")
    assert c.direction is True and c.magnitude is magnitude and "cnn" in c.our_value
    if not magnitude:
        assert c.cause.startswith("stand-in trace: T1")


def test_fig9_an_unchanged_metric_has_arrived():
    # Orpheus's scale the same at every k: no change to make, nothing left (share 1, not 0/0)
    orph = {k: (u, 0.3) for k, (u, _) in ORPH9.items()}
    assert by_claim(sc.fig9(relax_frame("k", list(SEL9), SEL9, orph)), "approximate").direction is True
    orph = {**orph, 16: (0.639, 0.31)}                        # unchanged overall but off at k = 16
    assert by_claim(sc.fig9(relax_frame("k", list(SEL9), SEL9, orph)), "approximate").direction is False


def test_fig9_removed_case_tie_is_no_rise():
    sel = {**SEL9, INF: (0.64, 0.46)}
    c = by_claim(sc.fig9(relax_frame("k", list(sel), sel, ORPH9)), "raises utilization")
    assert c.direction is False


def test_fig9_scale_tie_at_one_k_is_no_lead():
    sel = {**SEL9, 4: (0.66, 0.32)}                          # Orpheus's scale at k = 4 is 0.32 too
    assert by_claim(sc.fig9(relax_frame("k", list(sel), sel, ORPH9)), "every k").direction is False


def test_fig9_ratio_of_exactly_one_is_no_improvement():
    sel = {**SEL9, INF: (0.64, 0.46)}
    c = by_claim(sc.fig9(relax_frame("k", list(sel), sel, ORPH9)), "utilization up to about")
    assert c.direction is False
    assert by_claim(sc.fig9(relax_frame("k", list(sel), sel, ORPH9)), "every k").direction is False


def test_fig9_trend_tie_and_short_grids():
    sel = {**SEL9, INF: (0.50, 0.46)}                        # utilization equal at k = 1 and removed: not "up"
    assert by_claim(sc.fig9(relax_frame("k", list(sel), sel, ORPH9)), "from k = 1").direction is False
    sel = {**SEL9, INF: (0.72, 0.66)}                        # scale equal: not "down"
    assert by_claim(sc.fig9(relax_frame("k", list(sel), sel, ORPH9)), "from k = 1").direction is False
    sel = {**SEL9, INF: (0.72, 0.67)}                        # scale grows instead of falling
    assert by_claim(sc.fig9(relax_frame("k", list(sel), sel, ORPH9)), "from k = 1").direction is False
    claims = sc.fig9(relax_frame("k", [2, INF], {2: (0.6, 0.5), INF: (0.7, 0.4)}, {2: (0.5, 0.35), INF: (0.6, 0.3)}))
    assert not [c for c in claims if "approximate" in c.claim]       # one finite k: no first step
    assert by_claim(claims, "from k = 2 to removed").direction is True
    sel = {k: SEL9[k] for k in (1, 16, INF)}                  # two finite values and removed: enough
    assert by_claim(sc.fig9(relax_frame("k", list(sel), sel, ORPH9)), "by k = 16").direction is True
    assert by_claim(claims, "raises utilization").magnitude is not None
    claims = sc.fig9(relax_frame("k", [1, 4], SEL9, ORPH9))
    assert not [c for c in claims if "removed:" in c.claim]


def test_fig10_uses_the_ssp_axis():
    claims = sc.fig10(relax_frame("ssp", list(SEL9), SEL9, ORPH9, none_as=None))
    assert {c.figure for c in claims} == {"Fig. 10"}
    assert by_claim(claims, "every ssp (= k)").holds and by_claim(claims, "by ssp (= k) = 16").holds


def gate_frame(cnn_gap16=9.0, col="ssp"):
    """Fig. 10 (issue 41): SelMcast's utilization 0.25 -> 1.0 from ssp = 1 to removed reaches 0.95 at 16 on
    cnn (93 % of the change) but 0.85 on lstm and transformer (80 %); without the requirement its workers
    drift 80 / 60 / 12 rounds apart (lstm / transformer / cnn), at ssp = 16 the gap is 16 on lstm and
    transformer (waiting at the gate 5 % / 2 % of the run) and ``cnn_gap16`` on cnn (no waiting)."""
    sel = {1: (0.25, 0.66), 4: (0.8, 0.5), 16: (0.95, 0.461), INF: (1.0, 0.46)}
    d = relax_frame(col, list(sel), sel, ORPH9, none_as=None).assign(max_gap=1.0, blocked_share=0.0)
    sm = d.scheme == "selmcast"
    for tr, removed, gap16, blocked16 in (("lstm", 80.0, 16.0, 0.05), ("transformer", 60.0, 16.0, 0.02),
                                          ("cnn", 12.0, cnn_gap16, 0.0)):
        at = sm & (d.trace == tr)
        d.loc[at & d[col].isna(), "max_gap"] = removed
        d.loc[at & (d[col] == 16), ["max_gap", "blocked_share"]] = [gap16, blocked16]
        if tr != "cnn":
            d.loc[at & (d[col] == 16), "npu_utilization"] = 0.85
    return d


def test_fig10_a_gate_still_binding_on_the_heavy_tailed_stand_ins_is_the_stand_in_trace():
    c = by_claim(sc.fig10(gate_frame()), "by ssp (= k) = 16")
    assert c.direction is False and "80 %" in c.our_value
    assert c.cause.startswith("stand-in trace: T1") and "80 (lstm), 60 (transformer) rounds apart" in c.cause
    assert "5.0% (lstm), 2.0% (transformer)" in c.cause and "largest gap at ssp (= k) = 16 is 9.0 rounds" in c.cause
    assert "93% of the change" in c.cause
    # the gate binding on cnn too (its gap reaches 16): nothing singles out the heavy-tailed stand-ins
    assert by_claim(sc.fig10(gate_frame(cnn_gap16=16.0)), "by ssp (= k) = 16").cause.startswith("unexplained")
    # Fig. 9 sweeps k at a fixed ssp: the gate's bound is not its axis
    assert by_claim(sc.fig9(gate_frame(col="k")), "by k = 16").cause.startswith("unexplained")


# ---------------------------------------------------------------- Fig. 11
def fig11_frame(scale0=0.33, scale75=0.55, util0=(0.70, 0.72, 0.72), util75=(0.66, 0.67, 0.675),
                eta_values=(0.0, 0.25, 0.5, 0.75, 1.0)):
    rows = []
    for i, t in enumerate(T3):
        for e in eta_values:
            if e == 0.0:
                u, s = util0[i], scale0
            elif e == 0.75:
                u, s = util75[i], scale75
            elif e == 1.0:
                u, s = util75[i] - 0.05, scale75 + 0.05
            else:
                u, s = util0[i], scale0 + 0.01
            rows.append(row(t, "selmcast", u, s, eta=e))
        rows.append(row(t, "orpheus", 0.6, 0.3, eta=0.75))
    return replicate(rows)


def test_fig11_the_papers_trade_off_holds():
    claims = sc.fig11(fig11_frame(scale0=0.33, scale75=0.33 * 1.66))
    check_causes(claims)
    assert by_claim(claims, "from eta = 0 to 1").holds
    assert by_claim(claims, "inconspicuous").holds
    gain = by_claim(claims, "scale gain of about")
    assert gain.direction and gain.magnitude is True           # +66 % on every trace: 58 % x 1.15 = 66.7 %
    obs = by_claim(claims, "other reading")
    assert obs.kind == "observation" and obs.direction is None


@pytest.mark.parametrize("gain, magnitude", [(0.66 * 1.15, True), (0.66 * 0.85, True),
                                             (0.66 * 1.1501, False), (0.66 * 0.8499, False)])
def test_fig11_scale_gain_about(gain, magnitude):
    df = fig11_frame(scale0=0.4, scale75=0.4 * (1 + gain))
    c = by_claim(sc.fig11(df[df.trace != "cnn"]), "scale gain of about")
    assert c.direction is True and c.magnitude is magnitude
    # ResNet-50's value is 58 %: +75.9 % is outside 58 % +- 15 %
    if gain > 0.7:
        assert by_claim(sc.fig11(df), "scale gain of about").magnitude is False


@pytest.mark.parametrize("u75, magnitude", [(0.94, False), (0.9401, True)])
def test_fig11_utilization_loss_bound_is_strict(u75, magnitude):
    # LSTM's loss exactly 6 % (1.0 -> 0.94) is not "less than 6 %"; the others lose 5 %
    c = by_claim(sc.fig11(fig11_frame(util0=(1.0, 1.0, 1.0), util75=(u75, 0.95, 0.95))), "utilization loss below")
    assert c.direction is True and c.magnitude is magnitude


def test_fig11_no_utilization_loss_is_no_trade_off():
    df = fig11_frame(util0=(0.7, 0.7, 0.7), util75=(0.7, 0.71, 0.69))
    c = by_claim(sc.fig11(df), "utilization loss below")
    assert c.direction is False and c.magnitude is True and c.holds is False
    assert c.cause.startswith("paper ambiguity: SM54")
    assert by_claim(sc.fig11(df, "priority"), "utilization loss below").cause.startswith("paper ambiguity: SM50, SM63")


@pytest.mark.parametrize("hi, flat", [(0.23, False), (0.2299, True)])
def test_fig11_inconspicuous_threshold(hi, flat):
    df = fig11_frame(util0=(0.2, 0.72, 0.72), util75=(0.19, 0.67, 0.675)).query("trial == 0").copy()
    df.loc[(df.scheme == "selmcast") & (df.eta == 0.5) & (df.trace == "lstm"), "npu_utilization"] = hi
    assert by_claim(sc.fig11(df), "inconspicuous").direction is flat
    df = fig11_frame(scale0=0.2).query("trial == 0").copy()
    df.loc[(df.scheme == "selmcast") & (df.eta == 0.5), "avg_scale"] = hi
    assert by_claim(sc.fig11(df), "inconspicuous").direction is flat


def test_fig11_trend_tie_is_no_trade_off():
    df = fig11_frame()
    df.loc[(df.scheme == "selmcast") & (df.eta == 1.0), "npu_utilization"] = \
        df.loc[(df.scheme == "selmcast") & (df.eta == 0.0), "npu_utilization"].to_numpy()
    assert by_claim(sc.fig11(df), "from eta = 0 to 1").direction is False
    df = fig11_frame()
    df.loc[(df.scheme == "selmcast") & (df.eta == 1.0), "avg_scale"] = 0.33
    assert by_claim(sc.fig11(df), "from eta = 0 to 1").direction is False


def test_fig11_ties_at_the_default_eta():
    claims = sc.fig11(fig11_frame(scale0=0.4, scale75=0.4))
    assert by_claim(claims, "scale gain of about").direction is False
    claims = sc.fig11(fig11_frame(util0=(0.7, 0.7, 0.7), util75=(0.7, 0.7, 0.7)))
    assert by_claim(claims, "utilization loss below").direction is False
    claims = sc.fig11(fig11_frame(eta_values=(0.0, 0.5, 0.75, 1.0)))      # two values up to 0.5: enough
    assert by_claim(claims, "inconspicuous").direction is True


def test_fig11_short_grid_and_line32_observations():
    claims = sc.fig11(fig11_frame(eta_values=(0.0, 1.0)))
    assert by_claim(claims, "from eta = 0 to 1").direction is True
    assert not [c for c in claims if "about" in c.claim or "inconspicuous" in c.claim]
    # line 32 as printed (SM54): its gain and loss are observations and enter the default's causes
    x = fig11_frame(scale0=0.4, scale75=0.5, util0=(0.7, 0.7, 0.7), util75=(0.693, 0.693, 0.693),
                    eta_values=(0.0, 0.75)).assign(line32="x")
    claims = sc.fig11(fig11_frame(scale0=0.4, scale75=0.44), df_x=x)
    obs = by_claim(claims, "line 32 as printed")
    assert obs.kind == "observation" and "scale +25.0/+25.0/+25.0 %" in obs.our_value
    assert "loss +1.0/+1.0/+1.0 %" in obs.our_value
    gain = by_claim(claims, "scale gain of about")
    assert gain.magnitude is False and "with line 32 as printed (x, SM54) the gain is +25.0/+25.0/+25.0 %" in gain.cause
    with pytest.raises(ValueError, match="line32='x'"):
        sc.fig11(fig11_frame(), df_x=x.assign(line32="y"))


def test_reading_picks_one_sharing_and_orpheus():
    df = pd.concat([fig7_frame().assign(sharing="maxmin"),
                    fig7_frame(sel_scale=0.4).query("scheme == 'selmcast'").assign(sharing="priority")]).query("trial == 0")
    pri = sc.reading(df, "priority")
    assert set(pri.loc[pri.scheme == "selmcast", "avg_scale"]) == {0.4} and (pri.scheme == "orpheus").sum() == 3
    assert set(sc.reading(df, "maxmin").avg_scale) == {0.55, 0.3}
    assert sc.reading(fig7_frame(), "maxmin").shape == fig7_frame().shape
    with pytest.raises(ValueError, match="sharing"):
        sc.reading(df, "fair")
    with pytest.raises(ValueError, match="setting"):
        sc.fig7(df, setting="Max-Min!")


def test_any_ledger_setting_is_judged_by_the_same_rules():
    """A third setting (the paper profile of issue 43) gets the default's verdicts, strength and causes."""
    df = fig7_frame(sel_scale=0.45)
    dflt, prof = sc.fig7(df), sc.fig7(df, setting="profile")
    assert [c.setting for c in prof] == ["profile"] * len(prof)
    for a, b in zip(dflt, prof):
        assert (a.verdict, a.cause, a.pairs, a.interval) == (b.verdict, b.cause, b.pairs, b.interval)


# ---------------------------------------------------------------- Fig. 12
def fig12_frame(factors=(0.0625, 1.0, 16.0), sel_scale=(0.7, 0.45, 0.37), util=(0.9, 0.6, 0.06), lead=(0.0, 0.05, 0.005)):
    rows = []
    for t in T3:
        for f, s, u, g in zip(factors, sel_scale, util, lead):
            rows.append(row(t, "selmcast", u + g, s, model_mb=200.0 * f))
            rows.append(row(t, "orpheus", u, 0.3, model_mb=200.0 * f))
    return replicate(rows)


def test_fig12_decrease_and_larger_scale():
    claims = sc.fig12(fig12_frame(), model_mb=200.0)
    assert by_claim(claims, "decrease").holds and by_claim(claims, "every volume").holds
    obs = by_claim(claims, "utilization lead at volume x1")
    assert obs.kind == "observation" and "+0.050/+0.050/+0.050 -> +0.005/+0.005/+0.005" == obs.our_value


def test_fig12_ratio_of_one_and_ties():
    assert by_claim(sc.fig12(fig12_frame(sel_scale=(0.7, 0.3, 0.37)), 200.0), "every volume").direction is False
    assert by_claim(sc.fig12(fig12_frame(sel_scale=(0.37, 0.45, 0.37)), 200.0), "decrease").direction is False
    assert by_claim(sc.fig12(fig12_frame(util=(0.6, 0.6, 0.6), lead=(0, 0, 0)), 200.0), "decrease").direction is False


def test_fig12_gap_observation_needs_a_volume_above_x1():
    claims = sc.fig12(fig12_frame(factors=(0.0625, 0.5, 1.0)), 200.0)
    assert not [c for c in claims if c.kind == "observation"]


def test_fig12_rejects_a_bad_volume():
    with pytest.raises(ValueError, match="model_mb"):
        sc.fig12(fig12_frame(), model_mb=0)


# ---------------------------------------------------------------- Fig. 13
def fig13_frame(sel_scale=(0.5, 0.45, 0.4, 0.35), sel_util=(0.60, 0.66, 0.64, 0.62),
                orph_util=(0.55, 0.60, 0.62, 0.61), gammas=(0.0, 0.3, 0.6, 1.0)):
    rows = []
    for t in T3:
        for g, s, u, o in zip(gammas, sel_scale, sel_util, orph_util):
            rows.append(row(t, "selmcast", u, s, gamma=g))
            rows.append(row(t, "orpheus", o, 0.3, gamma=g))
    return replicate(rows)


def test_fig13_the_papers_shape_holds():
    claims = sc.fig13(fig13_frame())
    check_causes(claims)
    for text in ("larger scale", "shrinks", "Orpheus's utilization climbs", "SelMcast's (", "smaller scale goes"):
        assert by_claim(claims, text).direction is True, text
    assert by_claim(claims, "larger scale").magnitude is True       # 0.5 / 0.3: +66.7 %, within 10 % of +67 %
    assert by_claim(claims, "at gamma = 1").kind == "observation"


@pytest.mark.parametrize("top, magnitude", [(0.3 * (1 + 0.67 * 1.1), True), (0.3 * (1 + 0.67 * 0.9), True),
                                            (0.3 * (1 + 0.67 * 1.1001), False)])
def test_fig13_up_to_67_percent(top, magnitude):
    c = by_claim(sc.fig13(fig13_frame(sel_scale=(top, 0.45, 0.4, 0.35))), "larger scale")
    assert c.direction is True and c.magnitude is magnitude


def test_fig13_up_to_67_contradicts_fig7():
    # the paper's own numbers: Fig. 13's gamma = 0 is Fig. 7's setting, where 0.3 -> 0.55 is +83 %,
    # outside "up to 67 %" by the 10 % rule for a plain value (SM70)
    assert sc.FIG7_GAIN == pytest.approx(0.55 / 0.3 - 1)
    assert not sc.within(sc.FIG7_GAIN, sc.FIG13_SCALE_GAIN_UP_TO, sc.REL_VALUE)
    c = by_claim(sc.fig13(fig13_frame(sel_scale=(0.3 * (1 + sc.FIG7_GAIN), 0.45, 0.4, 0.35))), "larger scale")
    assert c.magnitude is False and c.cause.startswith("likely paper error")
    p = by_claim(sc.fig13(fig13_frame(sel_scale=(0.3 * (1 + sc.FIG7_GAIN), 0.45, 0.4, 0.35)), "priority"),
                 "larger scale")
    # issue 41: the same contradiction is classified alike at both settings; priority adds its own mechanism
    assert p.cause.startswith("likely paper error") and "test_fig13_up_to_67_contradicts_fig7" in p.cause
    assert "SM50" in p.cause
    # below +67 % too (ours under priority): the paper's two numbers still cannot both be met
    low = by_claim(sc.fig13(fig13_frame(sel_scale=(0.3 * 1.4, 0.4, 0.35, 0.33)), "priority"), "larger scale")
    assert low.magnitude is False and low.cause.startswith("likely paper error")


def test_fig13_ratio_of_one_tie_and_end_peaks():
    claims = sc.fig13(fig13_frame(sel_scale=(0.5, 0.45, 0.4, 0.3)))
    assert by_claim(claims, "larger scale").direction is False
    claims = sc.fig13(fig13_frame(sel_util=(0.625, 0.75, 0.6875, 0.625), orph_util=(0.5, 0.625, 0.625, 0.5)))
    assert by_claim(claims, "shrinks").direction is False               # lead exactly 0.125 at both ends
    claims = sc.fig13(fig13_frame(orph_util=(0.55, 0.60, 0.62, 0.63)))   # Orpheus peaks at gamma = 1
    assert by_claim(claims, "Orpheus's utilization climbs").direction is False
    claims = sc.fig13(fig13_frame(sel_util=(0.6, 0.6, 0.6, 0.6)))        # constant: no correlation
    assert by_claim(claims, "smaller scale goes").direction is False
    claims = sc.fig13(fig13_frame(sel_util=(0.61, 0.66, 0.60, 0.62)))     # rank correlation exactly 0
    c = by_claim(claims, "smaller scale goes")
    assert "+0.00/+0.00/+0.00" in c.our_value and c.direction is False
    claims = sc.fig13(fig13_frame(gammas=(0.0, 0.3, 1.0, 2.0))[lambda d: d.gamma <= 1.0])
    assert len([c for c in claims if c.kind == "claim"]) == 5
    claims = sc.fig13(fig13_frame(gammas=(0.0, 1.0, 2.0, 3.0))[lambda d: d.gamma <= 1.0])
    assert not [c for c in claims if "climbs" in c.claim or "goes with" in c.claim]


def test_fig13_scale_falling_by_re_plan_drops_is_measured_not_explained():
    """Issue 41: SelMcast's scale falls over gamma (0.5 -> 0.35) while its utilization peaks at gamma 0.3
    (rank correlation +0.4 on every trace): where the planned scale is flat (0.6) and the drops per
    multicast rise (10 -> 14), the cause says the fall is the re-plans', keeps "unexplained" (why the
    utilization turns is not measured) and rules out the stand-in traces, as it fails on cnn too."""
    d = fig13_frame(sel_util=(0.60, 0.66, 0.62, 0.58))
    d["avg_scale_initial"] = 0.6
    d["drops_per_multicast"] = d["gamma"].map({0.0: 10.0, 0.3: 11.0, 0.6: 12.0, 1.0: 14.0})
    for setting in ("default", "priority"):
        c = by_claim(sc.fig13(d, setting), "smaller scale goes")
        assert c.direction is False and "+0.40/+0.40/+0.40" in c.our_value
        assert c.cause.startswith("unexplained: SelMcast's scale falls over the whole gamma range")
        assert "planned scale barely moves over gamma (0.60/0.60/0.60 -> 0.60/0.60/0.60)" in c.cause
        assert "(10.0/10.0/10.0 -> 14.0/14.0/14.0)" in c.cause and "ruled out: the stand-in traces" in c.cause
    # a planned scale falling by more than a quarter of the final one's 0.15: the drops do not account for it
    d["avg_scale_initial"] = d["gamma"].map({0.0: 0.6, 0.3: 0.59, 0.6: 0.58, 1.0: 0.56})
    assert "measured" not in by_claim(sc.fig13(d, "priority"), "smaller scale goes").cause
    d["avg_scale_initial"] = d["gamma"].map({0.0: 0.6, 0.3: 0.59, 0.6: 0.58, 1.0: 0.5625})   # exactly a quarter
    assert "measured: the fall" in by_claim(sc.fig13(d, "priority"), "smaller scale goes").cause
    d["avg_scale_initial"], d["drops_per_multicast"] = 0.6, 10.0                               # drops flat
    assert "measured" not in by_claim(sc.fig13(d, "priority"), "smaller scale goes").cause


# ---------------------------------------------------------------- notebook 46
def test_time_to_accuracy_observations():
    rows = []
    for t, (o, s) in {"lstm": (20.0, 10.0), "cnn": (np.nan, 30.0)}.items():
        for scheme, tt in (("orpheus", o), ("selmcast", s)):
            rows.append({**row(t, scheme, 0.6, 0.4), "duration_s": 60.0, "target_acc": 0.85,
                         "time_to_target_s": tt, "time_to_acc85_s": tt, "time_to_acc90_s": np.nan})
    obs = sc.time_to_accuracy(pd.DataFrame(rows), "softmax")
    assert all(o.kind == "observation" for o in obs)
    head = obs[0]
    # lstm 20/10 = 2 and cnn > 60/30 = 2 (Orpheus censored at 60 s): at least 2, never "2.00" for cnn
    assert "time ratio lowest 2.00×, highest ≥ 2.00× over traces" in head.our_value
    assert head.note.startswith("SelMcast sooner (median paired ratio > 1) on every trace: yes; 1 of 2 pairs "
                                "censored (numerator 1) at the cap (60 s); softmax")
    assert [o.claim for o in obs[1:]] == ["Orpheus/SelMcast time to 85% test accuracy",
                                          "Orpheus/SelMcast time to 90% test accuracy"]
    assert obs[2].our_value == "median paired ratio n/a over traces"      # nobody reached 90 %: not 1.00×
    tie = pd.DataFrame(rows).assign(time_to_target_s=10.0)
    assert sc.time_to_accuracy(tie, "softmax")[0].note.startswith("SelMcast sooner (median paired ratio > 1) on "
                                                                  "every trace: no")
    with pytest.raises(ValueError, match="setting"):
        sc.time_to_accuracy(pd.DataFrame(rows), None)


# ---------------------------------------------------------------- at the SSP paper profile (SM75)
FITTED = dict(spread=0.75, straggler_frac=0.01, straggler_slowdown=3.0)


def test_fitted_reads_the_shape_columns():
    """A frame is at SM75's fitted stand-ins when some row has a spread other than 1 or a straggler share;
    today's stand-ins (no shape columns, or s = 1 and f = 0 on every row) are not."""
    df = fig7_frame()
    assert not sc._fitted(df)
    assert not sc._fitted(df.assign(spread=1.0, straggler_frac=0.0, straggler_slowdown=1.0))
    assert sc._fitted(df.assign(spread=0.75, straggler_frac=0.0))
    assert sc._fitted(df.assign(spread=1.0, straggler_frac=0.01))


def test_fig7_causes_at_the_profile_name_the_fitted_stand_ins():
    """At the profile the scale cause gives the measured per-trace scale and its order (here 0.45 on every
    trace but cnn's 0.40: largest on lstm, the first of the tie, smallest on cnn), says what SM75's fit leaves
    open, and no longer calls the stand-ins heavy-tailed or tight (SM75 made LSTM narrower, ResNet-50 wider)."""
    rows = []
    for t, s in zip(T3, (0.45, 0.45, 0.40)):
        rows += [row(t, "selmcast", 0.68, s, **FITTED), row(t, "orpheus", 0.63, 0.3, **FITTED)]
    claims = sc.fig7(replicate(rows), setting="profile")
    c = by_claim(claims, "multicast scale")
    assert c.setting == "profile" and c.magnitude is False
    assert c.cause.startswith("stand-in trace: T1, SM51, SM75")
    assert "it is 0.45/0.45/0.40 here (largest on lstm, smallest on cnn)" in c.cause
    assert sc._FIT_SCOPE in c.cause and "heavy-tailed" not in c.cause
    assert "SM75's fitted stand-ins (the SSP paper profile)" in c.note
    check_causes(claims)
    # the same frame without the shape columns: today's stand-ins, today's text
    plain = sc.fig7(replicate([{k: v for k, v in r.items() if k not in FITTED} for r in rows]))
    assert "heavy-tailed LSTM stand-in" in by_claim(plain, "multicast scale").cause


def test_fig8_lead_cause_at_the_profile():
    """The trade-off cause of test_fig8_lead_cause_names_the_trade_off_with_its_numbers, on fitted stand-ins:
    the same numbers, the class tagged SM75 and ResNet-50 called the tightest fitted stand-in."""
    df = fig8_frame().assign(**FITTED)
    for trace, util in (("lstm", 0.68), ("transformer", 0.695)):
        df.loc[(df.scheme == "selmcast") & (df.p == 0.2) & (df.trace == trace), "npu_utilization"] = util
    c = by_claim(sc.fig8(df, "profile"), "beats Orpheus")
    assert c.cause.startswith("stand-in trace: T1, SM75: a scale-utilization trade-off on the lstm and transformer "
                              "fitted stand-ins only")
    assert "utilization lead -0.020 to -0.005 (lstm at p/n 0.2; transformer at p/n 0.2)" in c.cause
    assert c.cause.endswith("on the tightest fitted ResNet-50 (cnn) stand-in it leads in both everywhere")
