"""Seed 002's claims module on hand-built frames: every verdict and its boundary.

Values are chosen so the ratios are exact (e.g. per-update 4.4 / 1.0 is exactly 10 % above
the paper's 4×; 50 / 50 updates is a tie, never "fewer").
"""
import math

import numpy as np
import pandas as pd
import pytest

from simlib.papers.partial_reduce import claims as C


# ----------------------------------------------------------------------------- notebook 20

def mixing(fig4=((0.5, 0.625), (0.5, 0.625)), ar_rho=0.0, pr_rho=0.8):
    """Fig. 4 rows (cnn, transformer: (HL=1, HL=2) rho) plus main-paper rows at n = 40, 80."""
    rows = []
    for trace, (h1, h2) in zip(("cnn", "transformer"), fig4):
        for hl, rho in ((1.0, h1), (2.0, h2)):
            rows += [dict(scheme="partial", n=3, hl=hl, trace=trace, rho=rho, trial=t) for t in range(2)]
    for n in (40, 80):
        rows += [dict(scheme="allreduce", n=n, hl=np.nan, trace="transformer", rho=ar_rho, trial=t) for t in range(2)]
        rows += [dict(scheme="partial", n=n, hl=np.nan, trace="transformer", rho=pr_rho, trial=t) for t in range(2)]
    return pd.DataFrame(rows)


def by_figure_claim(rows):
    return {(c.figure, c.claim): c for c in rows}


def test_analytic_fig4_and_eq9_rows_hold():
    rows = by_figure_claim(C.fig4_and_weights(mixing()))
    for key in [("Fig. 4(a)", "rho = 0.5 for N=3, P=2, homogeneous"),
                ("Fig. 4(b)", "rho = 0.625 when one worker is 2x slower"),
                ("Eq. 9", "EMA weights, iterations (5,4,2), alpha=0.5, x_1 = initial model")]:
        assert rows[key].holds and rows[key].magnitude is True
    assert rows[("Fig. 4(a)", "rho = 0.5 for N=3, P=2, homogeneous")].our_value == "0.5000"
    assert rows[("Eq. 9", "EMA weights, iterations (5,4,2), alpha=0.5, x_1 = initial model")].our_value == \
        "8/15, 4/15, 1/15; x_1: 2/15"


def test_simulated_fig4_within_ten_percent_closed():
    key = ("Fig. 4", "heterogeneity raises rho (simulated FIFO schedules)")
    # 0.55 is exactly 10 % above 0.5, 0.6875 exactly 10 % above 0.625: both within
    c = by_figure_claim(C.fig4_and_weights(mixing(fig4=((0.55, 0.6875), (0.45, 0.5625)))))[key]
    assert c.direction and c.magnitude
    c = by_figure_claim(C.fig4_and_weights(mixing(fig4=((0.5, 0.6876), (0.5, 0.625)))))[key]
    assert c.direction and not c.magnitude and c.cause.startswith("stand-in trace") and "cnn HL=2" in c.cause


def test_simulated_fig4_tie_does_not_raise_rho():
    key = ("Fig. 4", "heterogeneity raises rho (simulated FIFO schedules)")
    c = by_figure_claim(C.fig4_and_weights(mixing(fig4=((0.5, 0.625), (0.6, 0.6)))))[key]
    assert not c.direction and c.cause.startswith("unexplained")


def test_all_reduce_rho_zero_boundary():
    key = ("§3.2", "all reduce (P = N) gives rho = 0")
    assert by_figure_claim(C.fig4_and_weights(mixing(ar_rho=1e-9)))[key].holds
    c = by_figure_claim(C.fig4_and_weights(mixing(ar_rho=2e-9)))[key]
    assert c.direction and not c.magnitude
    c = by_figure_claim(C.fig4_and_weights(mixing(ar_rho=0.8, pr_rho=0.8)))[key]   # equal medians: not faster
    assert not c.direction


# ----------------------------------------------------------------------------- §4

def test_group_filter_boundaries():
    (c,) = C.group_filter(1.0, 0.8)
    assert c.holds
    assert C.group_filter(1 - C.EXACT_ABS, 0.8)[0].holds            # frozen within the tolerance
    (c,) = C.group_filter(0.99, 0.8)
    assert not c.holds and "not frozen" in c.cause
    (c,) = C.group_filter(1.0, 1 - C.EXACT_ABS)
    assert not c.holds and "disconnected" in c.cause


# ----------------------------------------------------------------------------- §5

def arm_rows(scheme, hl, P, rule, values, n=8):
    """Rows of one arm; ``values`` per trial: (time_to_target_s, updates, time_per_update_s)."""
    weights = {"CON": "constant", "AR": np.nan}.get(rule, "dynamic")
    missing = rule[5:-1] if rule.startswith("DYN") else np.nan
    return [dict(scheme=scheme, hl=hl, p=np.nan if scheme == "allreduce" else P / n, n=n, weights=weights,
                 weights_missing=missing, trial=t, time_to_target_s=tt, updates_to_target=u,
                 time_per_update_s=put, final_acc=0.95, trace="cnn", bandwidth_gbps=10.0, model_mb=100.0)
            for t, (tt, u, put) in enumerate(values)]


def training(dyn3=(45, 45), con3=(50, 50), ar=(20.0, 20.0), per_update=(4.4, 1.0), fig8_time=None, hl1_time=30.0):
    """Two trials at HL = 1 and 3: AR, CON at P = 2..8 (HL = 1) and P = 3, 5; DYN (oldest, closest) at
    P = 3, 5.  ``dyn3``/``con3``: updates per trial at HL = 3, P = 3; ``ar``: AR time per trial."""
    fig8_time = fig8_time or {2: 40.0, 3: 30.0, 4: 35.0, 5: 36.0, 8: 45.0}
    rows = []
    for hl in (1, 3):
        rows += arm_rows("allreduce", hl, 8, "AR", [(ar_t * 3, 10, per_update[0]) for ar_t in ar])
        for P in (3, 5):
            u_con = con3 if (hl, P) == (3, 3) else (50, 50)
            u_dyn = dyn3 if (hl, P) == (3, 3) else (45, 45)
            t_pr = hl1_time if hl == 1 else 30.0
            rows += arm_rows("partial", hl, P, "CON", [(t_pr, u, per_update[1]) for u in u_con])
            for reading in ("oldest", "closest"):
                rows += arm_rows("partial", hl, P, f"DYN ({reading})", [(30.0, u, per_update[1]) for u in u_dyn])
    for P, tt in fig8_time.items():
        if P not in (3, 5):
            rows += arm_rows("partial", 1, P, "CON", [(tt, 100 / P, 0.5 * (P - 1))] * 2)
    df = pd.DataFrame(rows)
    # Fig. 8's P = 3, 5 rows at HL = 1 follow its trends (per-update time 0.5 (P - 1): 1.0 s at P = 3)
    for P in (3, 5):
        sel = (df.hl == 1) & (df.scheme == "partial") & (df.weights == "constant") & np.isclose(df.p, P / 8)
        df.loc[sel, "time_to_target_s"] = fig8_time[P]
        df.loc[sel, "updates_to_target"] = 100 / P
        df.loc[sel, "time_per_update_s"] = 0.5 * (P - 1)
    return df


def sec5(copies=3, **kw):
    """The claims of ``training(**kw)`` with its two trials repeated ``copies`` times (6 paired trials by
    default: enough for S24's interval to decide the same values; ``copies=1``: 2 trials, undecided)."""
    df = training(**kw)
    df = pd.concat([df.assign(trial=df["trial"] + 2 * k) for k in range(copies)], ignore_index=True)
    return by_figure_claim(C.sec5(df))


DYN3 = ("Table 1", "HL=3, P=3: dynamic weights need fewer updates than constant (oldest)")


def test_paired_ratio_by_hand():
    df = C.with_rules(pd.DataFrame(
        arm_rows("partial", 3, 3, "CON", [(1, 4, 1), (1, 4, 1), (1, np.nan, 1)])
        + arm_rows("partial", 3, 3, "DYN (oldest)", [(1, 2, 1), (1, 4, 1), (1, np.nan, 1)])))
    r = C.paired(df, "updates_to_target", (3, "DYN (oldest)"), (3, "CON")).iloc[0]
    # ratios 0.5, 1.0 and n/a (neither reached the target: nothing known, no longer dropped): the median
    # of {0.5, 1, anything} is anywhere in [0.5, 1], so no number
    assert np.isnan(r["median"]) and (r["median_lo"], r["median_hi"]) == (0.5, 1.0)
    assert (r["min"], r["max"], r["trials"], r["num_smaller"], r["censored"]) == (0.0, np.inf, 3, 1, 1)
    assert C.ratio_text(r) == "0.50–1.00× (bounds)"
    # time to target with the run length: a censored numerator against 50 s is > 100 / 50
    t = C.with_rules(pd.DataFrame(
        arm_rows("partial", 3, 3, "CON", [(20.0, 4, 1), (10.0, 4, 1), (10.0, 4, 1)])
        + arm_rows("partial", 3, 3, "DYN (oldest)", [(np.nan, 2, 1), (30.0, 4, 1), (40.0, 4, 1)]))).assign(
        duration_s=100.0)
    r = C.paired(t, "time_to_target_s", (3, "DYN (oldest)"), (3, "CON")).iloc[0]
    assert (r["median"], r["median_lo"], r["median_hi"], r["num_larger"]) == (4.0, 4.0, 4.0, 3)   # {> 5, 3, 4}
    assert C.bounded_within(r, 3.5, 4.5) is True and C.bounded_within(r, 1.0, 2.0) is False
    # CON at 50 s in the first pair: {> 2, 3, 4}, median anywhere in [3, 4]
    t.loc[(t.rule == "CON") & (t.trial == 0), "time_to_target_s"] = 50.0
    r = C.paired(t, "time_to_target_s", (3, "DYN (oldest)"), (3, "CON")).iloc[0]
    assert np.isnan(r["median"]) and (r["median_lo"], r["median_hi"]) == (3.0, 4.0)
    assert C.bounded_within(r, 3.5, 5.0) is False and C.bounded_within(r, 2.0, 5.0) is False   # not shown within


def test_dynamic_vs_constant_tie_and_range():
    c = sec5(dyn3=(50, 50))[DYN3]                      # a ratio of exactly 1 is not "fewer"
    assert not c.direction and c.cause.startswith("setting")
    c = sec5(dyn3=(45, 45))[DYN3]                      # 0.9: fewer, inside Table 1's 0.86–0.94
    assert c.holds and c.magnitude is True and c.tolerance == C.RANGE_RULE
    assert c.pairs == 6 and "HL=3: 0.90× " in c.interval and c.undecided == ()
    c = sec5(copies=1, dyn3=(45, 45))[DYN3]            # the same at 2 pairs: no 95 % interval, undecided (S24)
    assert c.direction and c.magnitude is True and c.verdict == "undecided" and c.pairs == 2
    lo, hi = C.table1_range(lambda t: t["DYN3"][1] / t["CON3"][1], True)
    c = sec5(dyn3=(50 * hi, 50 * hi), con3=(50, 50))[DYN3]     # exactly the top of the range: inside
    assert c.holds
    c = sec5(dyn3=(50 * hi + 0.01, 50 * hi + 0.01))[DYN3]
    assert c.direction and not c.magnitude


def test_never_reaching_the_target_counts_as_infinitely_many_updates():
    c = sec5(dyn3=(np.nan, np.nan))[DYN3]
    assert not c.direction


def test_fewer_updates_is_judged_on_the_censored_medians_upper_bound():
    """DYN never reaches the target in its 45 updates, CON in 50: the median is "≥ 0.90×", which
    does not show DYN certainly < 1 (its lower bound 0.9 does not decide it)."""
    df = training(dyn3=(np.nan, np.nan))
    df["run_updates"] = df["updates_to_target"].fillna(45.0)
    c = by_figure_claim(C.sec5(df))[DYN3]
    assert "≥ 0.900×" in c.our_value and c.direction is False
    assert f"; {c.pairs} of {c.pairs} pairs censored)" in c.our_value     # every DYN run censored: said


def test_a_value_without_censored_pairs_says_nothing_of_censoring():
    c = sec5(dyn3=(45, 45))[DYN3]
    assert "censored" not in c.our_value


def test_more_updates_row_counts_the_censored_pairs_its_bounds_stand_for():
    df = training(dyn3=(np.nan, np.nan))
    df["run_updates"] = df["updates_to_target"].fillna(45.0)
    c = by_figure_claim(C.sec5(df))[("Table 1", "partial reduce needs more updates than all reduce")]
    # 2 HL x 2 P x 3 rules (CON, DYN oldest, DYN closest) against AR, 2 trials each: 24 pairs; censored: the
    # two DYN readings at HL = 3, P = 3, 2 trials each
    assert "over 12 (HL, P, rule)" in c.our_value and "≥" in c.our_value
    assert c.our_value.endswith("; 4 of 24 pairs censored")


def test_partial_vs_all_reduce_run_time():
    key = ("Table 1", "HL=1: partial reduce (P=3) beats all reduce in run time")
    # AR 60 s vs PR 60 s: a tie, not a win
    c = sec5(hl1_time=60.0, fig8_time={2: 40.0, 3: 60.0, 4: 35.0, 5: 36.0, 8: 45.0})[key]
    assert not c.direction and c.cause.startswith("setting")
    lo, hi = C.table1_range(lambda t: t["AR"][0] / t["CON3"][0], False)
    c = sec5(fig8_time={2: 40.0, 3: 60.0 / hi, 4: 35.0, 5: 36.0, 8: 45.0})[key]
    assert c.holds and c.magnitude is True                         # exactly the paper's best ratio


def test_per_update_four_times_within_ten_percent():
    key = ("Table 1", "per-update time of partial reduce (P=3) is 4× shorter than all reduce's")
    assert sec5(per_update=(4.4, 1.0))[key].holds                  # exactly +10 %
    assert sec5(per_update=(3.6, 1.0))[key].holds                  # exactly -10 %
    c = sec5(per_update=(4.41, 1.0))[key]
    assert c.direction and not c.magnitude and c.cause.startswith("setting")
    assert not sec5(per_update=(1.0, 1.0))[key].direction          # equal: not shorter


def test_fig8_trends_and_best_p():
    rows = sec5()
    assert rows[("Fig. 8", "#updates to target falls as P grows")].holds
    assert rows[("Fig. 8", "per-update time rises with P")].holds
    best = ("Fig. 8", "total run time is smallest at an intermediate P (paper: P = 3 and 5)")
    assert rows[best].holds                                        # minimum 30 s at P = 3
    c = sec5(fig8_time={2: 20.0, 3: 30.0, 4: 35.0, 5: 36.0, 8: 45.0})[best]
    assert not c.direction and not c.magnitude                     # minimum at the edge, P = 2
    c = sec5(fig8_time={2: 40.0, 3: 31.0, 4: 30.0, 5: 36.0, 8: 45.0})[best]
    assert c.direction and not c.magnitude                         # interior, but P = 4


def test_dyn_p3_vs_all_reduce_range():
    key = ("Table 1", "HL=3: DYN (P=3) is 1.48–2.01× faster than all reduce")
    assert sec5(ar=(20.0, 20.0))[key].holds                        # AR 60 s / DYN 30 s = 2.0
    c = sec5(ar=(20.2, 20.2))[key]                                 # 2.02 > 2.01
    assert c.direction and not c.magnitude


def test_more_updates_than_all_reduce():
    key = ("Table 1", "partial reduce needs more updates than all reduce")
    assert sec5()[key].holds                                        # 20-50 vs 10
    df = training()
    df.loc[(df.scheme == "allreduce") & (df.hl == 3), "updates_to_target"] = 45   # ties DYN's 45 at HL = 3
    c = by_figure_claim(C.sec5(df))[key]
    assert not c.direction
    assert c.cause.endswith("not (certainly) more updates at HL=3 P=3 DYN (closest) (1.00×), HL=3 P=5 DYN "
                            "(closest) (1.00×), HL=3 P=3 DYN (oldest) (1.00×), HL=3 P=5 DYN (oldest) (1.00×)")


def test_table1_transcription_is_consistent():
    # run time = #updates x per-update time in every cell (the paper rounds to 3 digits)
    for cells in C.TABLE1.values():
        for run_time, updates, per_update in cells.values():
            assert math.isclose(run_time, updates * per_update, rel_tol=0.01)
    # §5.2.2's "1.48–2.01×" is Table 1's AR / DYN (P=3) over the heterogeneous rows (to 0.03)
    lo, hi = C.table1_range(lambda t: t["AR"][0] / t["DYN3"][0], True)
    assert lo == pytest.approx(1.48, abs=0.03) and hi == pytest.approx(2.01, abs=0.03)


def test_small_frames_leave_rows_out():
    df = training()
    df = df[~((df.weights == "dynamic") | (np.isclose(df.p, 3 / 8)))]
    rows = C.sec5(df)
    assert not any("P=3" in c.claim for c in rows)
    with pytest.raises(ValueError, match="updates_to_target"):
        C.sec5(training().drop(columns="updates_to_target"))


def test_sec5_at_the_profile_gives_profile_rows_whose_causes_name_its_cluster():
    """PR19: notebook 21's sweep at the paper profile is judged as ledger setting "profile"; the run-time
    causes describe the profile's cluster (its model size, cv and γ) from the frame's columns."""
    key = ("Table 1", "per-update time of partial reduce (P=3) is 4× shorter than all reduce's")
    default = C.sec5(training(per_update=(2.0, 1.0)))
    profile = C.sec5(training(per_update=(2.0, 1.0)).assign(model_mb=1000.0, compute_cv=0.3, hl_slowdown=0.75),
                     setting="profile")
    assert {c.setting for c in default} == {"default"} and {c.setting for c in profile} == {"profile"}
    assert [(c.figure, c.claim, c.holds) for c in default] == [(c.figure, c.claim, c.holds) for c in profile]
    d, p = by_figure_claim(default)[key], by_figure_claim(profile)[key]
    assert not p.holds and "100 MB" in d.cause and "HL workers HL× slower" in d.cause
    assert "1000 MB" in p.cause and "compute-time cv 0.3" in p.cause and "1 + 0.75(HL − 1)× slower" in p.cause


def test_fig8_trend_predicates_are_strict_at_spearman_min():
    from simlib.papers.partial_reduce.claims import FIG8_TRENDS, SPEARMAN_MIN, falls, rises

    assert falls(-1.0) and not falls(-SPEARMAN_MIN) and not falls(0.9)
    assert rises(1.0) and not rises(SPEARMAN_MIN) and not rises(-0.9)
    assert [row[4] for row in FIG8_TRENDS] == [falls, rises]


def test_fig4_row_predicates():
    from simlib.papers.partial_reduce.claims import FIG4_ROWS, above_homogeneous, mixes

    assert mixes(0.5, 0.5) and not mixes(0.0, 0.5) and not mixes(1.0, 0.5)    # 0: all reduce; 1: disconnected
    assert above_homogeneous(0.625, 0.5) and not above_homogeneous(0.5, 0.5)
    assert [row[3] for row in FIG4_ROWS] == [mixes, above_homogeneous]


# ----------------------------------------------------------------------------- paper marks (issue 44 item 2)

def test_fig8_paper_marks_are_the_ps_the_claim_judges():
    """The "paper" bands of Fig. 8 sit at the P values whose run-time minimum the Fig. 8 claim accepts, and
    at no other (a minimum at P = 4 fails its magnitude)."""
    marks = C.paper_marks("Fig. 8")
    ps = [x for _, what, x, y, _ in marks]
    assert ps == [3.0, 5.0] and all(y is None for *_, y, _ in marks) and "paper" in marks[0][4]
    best = ("Fig. 8", "total run time is smallest at an intermediate P (paper: P = 3 and 5)")
    base = {2: 40.0, 3: 36.0, 4: 36.0, 5: 36.0, 8: 45.0}
    for P in (3, 4, 5):
        c = sec5(fig8_time={**base, P: 30.0})[best]
        assert c.magnitude == (float(P) in ps)


def test_fig7_paper_marks_are_table1s_vgg19_times_and_give_the_up_to_claims():
    """Fig. 7's marks are Table 1's VGG-19 run times over all reduce's (HL 1 and 3), ER N/A; their quotient
    BK / DYN3 at HL 1 is §5.2.1's "up to 1.84×" (VGG-19, HL 1) and BK / CON5 its "up to 1.47×", the values
    the Table 1 claims judge, to the paper's two decimals."""
    from simlib.papers.partial_reduce.table1_claims import UP_TO

    marks = {(a, hl): y for _, a, hl, y, _ in C.paper_marks("Fig. 7")}
    assert {hl for _, hl in marks} == {1.0, 3.0}
    assert marks[("AR", 1.0)] == 1.0 and marks[("ER", 1.0)] is None and marks[("ER", 3.0)] is None
    assert marks[("ASP", 1.0)] == pytest.approx(1099 / 580) and marks[("DYN3", 3.0)] == pytest.approx(608 / 897)
    for key in ("BK/DYN3", "BK/CON5"):
        num, den, x = UP_TO[key]
        assert marks[(num, 1.0)] / marks[(den, 1.0)] == pytest.approx(x, abs=0.005)
    assert C.paper_marks("Fig. 11") == []
    with pytest.raises(ValueError, match="figure"):
        C.paper_marks("Fig. 9")


def test_sec5_open_settings_reads_the_claims_hl_group_and_all_reduce():
    """S25 in notebook 21: an undecided verdict extends the runs it reads -- at its HL, partial reduce at its P
    (every weighting rule) and all reduce only when the claim compares with it; no HL, no runs."""
    from simlib.papers.claim import Claim

    n = 8
    sets = [dict(scheme="partial", hl=3, p=3 / n, weights_missing="oldest"),     # 0
            dict(scheme="partial", hl=3, p=3 / n, weights_missing="closest"),    # 1
            dict(scheme="partial", hl=3, p=5 / n, weights_missing="oldest"),     # 2
            dict(scheme="partial", hl=1, p=3 / n, weights_missing="oldest"),     # 3
            dict(scheme="allreduce", hl=3, p=1.0),                               # 4
            dict(scheme="allreduce", hl=1, p=1.0)]                               # 5
    claim = lambda text: Claim(paper="002", figure="Table 1", claim=text, paper_value="x", our_value="y",  # noqa: E731
                               direction=True)
    assert C.sec5_open_settings(sets, [claim("HL=3, P=3: dynamic weights need fewer updates than constant "
                                             "(closest)")], n) == {0, 1}
    assert C.sec5_open_settings(sets, [claim("HL=3: DYN (P=3) is 1.48–2.01× faster than all reduce")], n) == {0, 1, 4}
    assert C.sec5_open_settings(sets, [claim("HL=3: partial reduce (P=5) beats all reduce in run time")], n) == {2, 4}
    assert C.sec5_open_settings(sets, [claim("partial reduce (P=3) beats all reduce")], n) == set()
    assert C.sec5_open_settings(sets, [], n) == set()
