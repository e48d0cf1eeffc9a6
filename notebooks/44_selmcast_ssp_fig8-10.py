# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python (simlib)
#     language: python
#     name: simlib
# ---

# %% [markdown]
# # SelMcast §IV-C2–3 — p/n, k and ssp (Figs. 8, 9, 10)
#
# The Fig. 7 setting (n = 50, 10 minutes, L3, 200 MB, b̄ = 40 Gbps, λ = 0.5, μ = 1,
# η = 0.75; three traces; 10 trials — more, up to 40, for the settings of a
# verdict whose interval straddles its threshold (S25) — means) with one knob varied at a time:
# **Fig. 8** p/n from 0.05 to 0.4 (ssp = k = 4); **Fig. 9** k from 1 to 16 and k removed
# (∞; ssp = 4); **Fig. 10** ssp with k = ssp, including ∞ (no gate, requirement removed).
# Receivers per multicast are ⌈p n⌉ (decision SM60). In the plots ∞ is drawn at 32.
# Links are shared by per-flow max-min (§IV-A1, SM50; the figures and the ledger's `default`
# rows); SelMcast is also run, on the same grids, under SM50's reading: strict priority in
# Algorithm 2's order (the ledger's `priority` rows; Orpheus is max-min under both).

# %% tags=["parameters"]
profile = "full"
workers = None
seed = 0
trials = 10                                # trials per setting (paper: 10) ...
trials_step = 5                            # S25: ... 5 more for the settings of a verdict whose interval straddles ...
trials_cap = 40                            # ... up to 40; still straddling there, it is "undecided at 40 trials"
n = 50
traces = ["lstm", "transformer", "cnn"]
duration_s = 600.0
p_values = [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4]
k_values = [1, 2, 4, 8, 16, None]          # None: requirement removed
ssp_values = [1, 2, 4, 8, 16, None]        # k follows ssp; None: no gate and no k
p = 0.3
ssp = 4
k = 4
eta = 0.75
at_ssp_profile = True                      # SM75: also every grid at 004's SSP paper profile (max-min), ledger "profile"

# %%
from simlib.papers.selmcast.ssp_experiments import SSPFigs8to10Notebook
import simlib

# ranges, units, quick values: SSPFigs8to10Notebook
run = simlib.start(SSPFigs8to10Notebook, globals(), notebook="44_selmcast_ssp_fig8-10")
INF_AT = 32                              # where ∞ (k or ssp removed) is drawn on the axes

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from simlib.papers.selmcast import ssp_claims, ssp_experiments as ex, ssp_profile as sp
from simlib.papers.selmcast.ssp_scenario import run_trial
from simlib.pipeline import plotting, sweep
from simlib.pipeline.decide import run_until_decided

common = dict(n=[n], duration_s=[duration_s], eta=[eta])


def both_readings(**axes):
    """SelMcast under both sharing readings (SM50), Orpheus once (max-min under either)."""
    return (sweep.expand_grid(trace=traces, scheme=["selmcast"], sharing=["maxmin", "priority"], **axes, **common)
            + sweep.expand_grid(trace=traces, scheme=["orpheus"], sharing=["maxmin"], **axes, **common))


grid8 = both_readings(p=p_values, ssp=[ssp], k=[k])
grid9 = both_readings(k=k_values, p=[p], ssp=[ssp])
grid10 = [{**g, "k": g["ssp"]} for g in both_readings(ssp=ssp_values, p=[p])]
JUDGE = {8: ssp_claims.fig8, 9: ssp_claims.fig9, 10: ssp_claims.fig10}


def judged(fig_no):
    """Fig. ``fig_no``'s verdicts at both readings (SM50) of a frame."""
    return lambda d: [c for sh, st in ssp_claims.SETTINGS.items() for c in JUDGE[fig_no](ssp_claims.reading(d, sh), st)]


runs_all, frames = {}, {}
for fig_no, grid in ((8, grid8), (9, grid9), (10, grid10)):
    # S25: the settings a straddling verdict reads get 5 more trials, up to the cap (trials run before: the cache)
    runs_all[fig_no] = run_until_decided(
        run, run_trial, ex.validate_settings(grid), name=f"44_selmcast_ssp_fig{fig_no}", desc=f"Fig. {fig_no}",
        judge=judged(fig_no),
        open_settings=ssp_claims.open_settings, start=trials, step=trials_step, cap=trials_cap)
    for sh in ssp_claims.SETTINGS:
        frames[(fig_no, sh)] = ssp_claims.reading(runs_all[fig_no], sh)
df8 = frames[(8, "maxmin")]
df9 = ex.with_inf_axis(frames[(9, "maxmin")], "k", INF_AT)
df10 = ex.with_inf_axis(frames[(10, "maxmin")], "ssp", INF_AT)
metrics = ["npu_utilization", "avg_scale"]
ex.means(df8, ["trace", "scheme", "p"], metrics).unstack("scheme").round(3)

# %%
ex.means(df9, ["trace", "scheme", "k_x"], metrics + ["blocked_share"]).unstack("scheme").round(3)

# %%
ex.means(df10, ["trace", "scheme", "ssp_x"], metrics + ["blocked_share"]).unstack("scheme").round(3)

# %%
plotting.set_theme()
AXES = {8: ("p", "p / n"), 9: ("k_x", f"k (∞ drawn at {INF_AT})"), 10: ("ssp_x", f"ssp = k (∞ drawn at {INF_AT})")}


def draw(fig_no, d, where=""):
    """Fig. ``fig_no``'s two metrics per trace (min, median, max over the trials) with the paper's values."""
    x, xlabel = AXES[fig_no]
    fig, axes = plt.subplots(len(traces), 2, figsize=(6.6, 2.5 * len(traces)), squeeze=False)
    for r, trace in enumerate(traces):
        for c, m in enumerate(metrics):
            ax = axes[r, c]
            plotting.plot_min_median_max(ax, d[d.trace == trace], x=x, y=m, hue="scheme", legend=(r == c == 0))
            # the paper's values (§IV-C2/3), from the constants the claims judge (ssp_claims.paper_marks)
            marks = [(INF_AT if np.isinf(px) else px, py) for t, pm, _, px, py in ssp_claims.paper_marks(fig_no)
                     if t == trace and pm == m]
            if marks:
                ax.scatter(*zip(*marks), marker="D", s=18, color="k", zorder=3, label="paper")
                if r == c == 0:        # redraw the legend with the paper's entry, keeping its title (trials)
                    old = ax.get_legend()
                    ax.legend(fontsize="small", title=old.get_title().get_text() if old else None)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(f"{trace}: {'NPU utilization' if c == 0 else 'multicast scale'}")
            if x != "p":
                ax.set_xscale("log", base=2)
    fig.suptitle(f"Fig. {fig_no}{where}")
    fig.tight_layout()
    return fig


for fig_no, d in ((8, df8), (9, df9), (10, df10)):
    run.save_figure(draw(fig_no, d), f"selmcast_ssp_fig{fig_no:02d}")

# %% [markdown]
# ## Claims (004 §IV-C2, §IV-C3)
# Every number the text gives for Figs. 8–9 (SelMcast's levels at p/n = 0.05 and 0.4, its
# gains at p = 0.4n, Orpheus's floor 1/(k+1), the levels without k and the "up to about
# 1.17× and 1.53×"), and every direction (SelMcast always better, the trends, the fast
# approach to the case without k, Fig. 10 "quite similar"), judged by `ssp_claims` (rules:
# decision SM70); every verdict that fails names its cause.

# %%
run.record([c for sh, setting in ssp_claims.SETTINGS.items()
               for c in ssp_claims.fig8(frames[(8, sh)], setting) + ssp_claims.fig9(frames[(9, sh)], setting)
               + ssp_claims.fig10(frames[(10, sh)], setting)])

# %% [markdown]
# ## At the SSP paper profile (SM75)
# The same grids under max-min with each stand-in at its fitted shape (`ssp_profile.PAPER_SHAPES`: the spread
# and straggler tail fitted to Orpheus's utilization in Figs. 7 and 9, notebook 48), SelMcast and Orpheus on the
# same seeds, more trials where a verdict straddles (S25), judged by the same rules and recorded at the ledger
# setting `profile`. Fig. 9's four rows with k removed are judged at the profile by notebook 48 (the same runs,
# which it reads from the trial cache) and are not recorded twice here.

# %%
def at_profile_claims(fig_no, d):
    """Fig. ``fig_no``'s verdicts at the ledger setting ``profile`` (Fig. 9's rows with k removed: notebook 48's)."""
    return [c for c in JUDGE[fig_no](d, "profile") if not (fig_no == 9 and c.claim.startswith("k removed:"))]


profile_frames = {}
if at_ssp_profile:
    for fig_no, grid in ((8, grid8), (9, grid9), (10, grid10)):
        g = sp.at_profile([s for s in grid if s["sharing"] == "maxmin"])
        profile_frames[fig_no] = run_until_decided(
            run, run_trial, ex.validate_settings(g), name=f"44_selmcast_ssp_fig{fig_no}_profile",
            desc=f"Fig. {fig_no} (SSP profile)", judge=lambda d, f=fig_no: at_profile_claims(f, d),
            open_settings=ssp_claims.open_settings, start=trials, step=trials_step, cap=trials_cap)
    print(f"SSP paper profile: {sp.profile_label()}")
    prof = {8: profile_frames[8], 9: ex.with_inf_axis(profile_frames[9], "k", INF_AT),
            10: ex.with_inf_axis(profile_frames[10], "ssp", INF_AT)}
    for fig_no, d in prof.items():
        run.save_figure(draw(fig_no, d, " at the SSP paper profile (SM75)"), f"selmcast_ssp_fig{fig_no:02d}_profile")
    run.record([c for fig_no, d in profile_frames.items() for c in at_profile_claims(fig_no, d)])

# %%
side = {"default": df8, **({"profile": prof[8]} if at_ssp_profile else {})}      # Fig. 8's means, both settings
pd.concat({w: ex.means(d, ["trace", "scheme", "p"], metrics).unstack("scheme") for w, d in side.items()},
          axis=1).round(3)

# %% [markdown]
# SelMcast under the priority reading (SM50), beside the default:

# %%
ex.means(ssp_claims.reading(runs_all[8], "priority"), ["trace", "scheme", "p"], metrics).unstack("scheme").round(3)

# %% [markdown]
# ## Where we disagree, and why
# The ledger lines printed above are the measured values, at both readings. Measured with the
# full profile (600 s, n = 50; 5 seeds while writing this):
# * **Max-min (default)**: SelMcast's scale at p = 0.4n is 0.63/0.60/0.50 (paper 0.65/0.64/0.61)
#   and its lead over Orpheus +0.23/+0.20/+0.10 (paper "more than 0.2n" on every trace); at
#   p = 0.05n it overshoots on LSTM and Transformer (0.46/0.42/0.33 against 0.37/0.34/0.33).
#   The trace order of these misses (LSTM high, ResNet-50 low) is the stand-in traces' (T1):
#   τ_i is estimated from each trace's shape (SM51), and with τ ≡ 0 the three traces give the
#   same scale (notebook 43). The utilization gain at p = 0.4n (+0.06/+0.10/+0.20) is above
#   the paper's "about 0.05" and grows with how tight the stand-in is.
# * **Priority (SM50's reading)**: the scale grows much less with p (0.47/0.44/0.42 at 0.4n,
#   lead +0.07/+0.04/+0.02): the multicasts queued behind the first few send nothing, and a
#   receiver added by one call's Pareto step is dropped by the next before it has (1 − η) of
#   the model (10–12 drops per multicast).
# * **Utilization levels depend on the stand-in traces** (T1) at both readings: our CNN trace
#   is tight (few stragglers), so without the gate or the k requirement SelMcast keeps CNN
#   workers busy far more than on the bursty LSTM trace, where the SSP gate (`blocked_share`)
#   dominates.
# * Orpheus's floor under the k requirement is (n − 1)/(n(k + 1)) (the paper's "not less
#   than 0.2") reduced by the first k rounds of each sender, in which no pair is due yet
#   (SM55): its scale sits at 0.195, just below the paper's bound and above our floor.
# * **At the SSP paper profile (SM75; the ledger's `profile` rows, 10 trials, the same seeds; measured in a
#   scratch run of this notebook).** The fit moved Orpheus, not SelMcast's scale: Orpheus's utilization at
#   p = 0.05n is now 0.72/0.76/0.73 (default 0.61/0.73/0.75). SelMcast's scale is *lower* on the narrowed LSTM
#   and Transformer stand-ins (0.41/0.40/0.34 → 0.57/0.58/0.51 against the paper's 0.37/0.34/0.33 → 0.65/0.64/0.61;
#   default 0.47/0.42/0.33 → 0.63/0.61/0.50), so its lead at p = 0.4n (+0.17/+0.18/+0.11) now misses "more than
#   0.2" on every trace (2 of 3 at the default): τ_i shrinks with the spread (SM51), and SM75 fitted the spread
#   to Orpheus's utilization, which does not see τ. The utilization gain at 0.4n (+0.11/+0.12/+0.16) stays above
#   "about 0.05". What moved: Fig. 9's "SelMcast beats Orpheus in both metrics at every k" now holds (smallest
#   utilization lead +0.021, default −0.011); Fig. 8's and Fig. 10's versions still fail on the same
#   scale-utilization trade-off on LSTM and Transformer (−0.017 at p/n 0.15–0.2; −0.034 at ssp = 1–2), and
#   Fig. 10's approach by ssp = 16 reaches 88 % of the change (default 82 %; 90 % required).
