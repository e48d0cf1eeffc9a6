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
# # SelMcast §IV-C4–6 — η, data volume and bandwidth variability (Figs. 11, 12, 13)
#
# The Fig. 7 setting (n = 50, 10 minutes, L3, p = 0.3n, ssp = k = 4, b̄ = 40 Gbps, λ = 0.5,
# μ = 1; three traces; 10 trials — more, up to 40, for the settings of a
# verdict whose interval straddles its threshold (S25) — means) with one knob varied:
# **Fig. 11** η from 0 to 1 (SelMcast; Orpheus has no η and is shown once as the reference);
# **Fig. 12** the model volume 200 MB × 2^e, e = −4…4;
# **Fig. 13** every link's bandwidth re-drawn every Δ_T = 100 ms as b = b#(1 − γ) + γ b*,
# γ = 0…1 (decision SM56: running flows get the new rates at once; the manager sees the
# current capacities).
# Links are shared by per-flow max-min (§IV-A1, SM50: the figures and the ledger's `default`
# rows). Sensitivity runs: SelMcast under SM50's reading, strict priority in Algorithm 2's
# order, on the Fig. 11 and Fig. 13 grids (the ledger's `priority` rows; Fig. 12 at the default
# only, to keep the added CPU small), and Fig. 11 with line 32 as printed (x, SM54).

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
eta_values = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0]
volume_exponents = [-4, -3, -2, -1, 0, 1, 2, 3, 4]
gamma_values = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
period_s = 0.1
model_mb = 200.0
eta = 0.75
at_ssp_profile = True                      # SM75: also every grid at 004's SSP paper profile (max-min), ledger "profile"

# %%
from simlib.papers.selmcast.ssp_experiments import SSPFigs11to13Notebook
import simlib

# ranges, units, quick values: SSPFigs11to13Notebook
run = simlib.start(SSPFigs11to13Notebook, globals(), notebook="45_selmcast_ssp_fig11-13")

# %%
import matplotlib.pyplot as plt
import pandas as pd

from simlib.papers.selmcast import ssp_claims, ssp_experiments as ex, ssp_profile as sp
from simlib.papers.selmcast.ssp_scenario import run_trial
from simlib.pipeline import plotting, sweep
from simlib.pipeline.decide import run_until_decided

common = dict(n=[n], duration_s=[duration_s])
orph = dict(scheme=["orpheus"], sharing=["maxmin"])
sel = dict(scheme=["selmcast"], sharing=["maxmin", "priority"])
grid11 = (sweep.expand_grid(trace=traces, eta=eta_values, line32=["y"], **sel, **common)
          + sweep.expand_grid(trace=traces, eta=eta_values, line32=["x"], scheme=["selmcast"], sharing=["maxmin"],
                              **common)
          + sweep.expand_grid(trace=traces, eta=[eta], **orph, **common))
grid12 = sweep.expand_grid(trace=traces, scheme=["selmcast", "orpheus"], sharing=["maxmin"],
                           model_mb=[model_mb * 2.0 ** e for e in volume_exponents], eta=[eta], **common)
grid13 = (sweep.expand_grid(trace=traces, gamma=gamma_values, period_s=[period_s], eta=[eta], **sel, **common)
          + sweep.expand_grid(trace=traces, gamma=gamma_values, period_s=[period_s], eta=[eta], **orph, **common))


def split11(d):
    """Fig. 11's runs: line 32 as printed (x, SelMcast) and as corrected (y; Orpheus has no line 32)."""
    return d[(d.scheme == "selmcast") & (d.line32 == "x")], d[d.line32.fillna("y") == "y"]


JUDGE = {11: lambda d: [c for sh, st in ssp_claims.SETTINGS.items()
                        for c in ssp_claims.fig11(ssp_claims.reading(split11(d)[1], sh), st,
                                                  df_x=split11(d)[0] if sh == "maxmin" else None)],
         12: lambda d: ssp_claims.fig12(d, model_mb, "default"),
         13: lambda d: [c for sh, st in ssp_claims.SETTINGS.items()
                        for c in ssp_claims.fig13(ssp_claims.reading(d, sh), st)]}
raw = {}
for fig_no, grid in ((11, grid11), (12, grid12), (13, grid13)):
    # S25: the settings a straddling verdict reads get 5 more trials, up to the cap (trials run before: the cache)
    raw[fig_no] = run_until_decided(run, run_trial, ex.validate_settings(grid), name=f"45_selmcast_ssp_fig{fig_no}",
                                    desc=f"Fig. {fig_no}", judge=JUDGE[fig_no], open_settings=ssp_claims.open_settings,
                                    start=trials, step=trials_step, cap=trials_cap)
x11, y11 = split11(raw[11])
frames = {(fig_no, sh): ssp_claims.reading(d, sh) for fig_no, d in ((11, y11), (13, raw[13]))
          for sh in ssp_claims.SETTINGS}
frames[(12, "maxmin")] = raw[12]
df11, df12, df13 = frames[(11, "maxmin")], frames[(12, "maxmin")], frames[(13, "maxmin")]
df12 = df12.assign(volume_factor=df12.model_mb / model_mb)
metrics = ["npu_utilization", "avg_scale"]
ex.means(raw[11][raw[11].scheme == "selmcast"], ["trace", "sharing", "line32", "eta"],
         metrics + ["preempted_share"]).unstack(["sharing", "line32"]).round(3)

# %%
ex.means(df12, ["trace", "scheme", "volume_factor"], metrics).unstack("scheme").round(3)

# %%
ex.means(df13, ["trace", "scheme", "gamma"], metrics).unstack("scheme").round(3)

# %%
plotting.set_theme()
AXES = {11: ("eta", "η"), 12: ("volume_factor", "data volume factor"), 13: ("gamma", "γ (Δ_T = 100 ms)")}


def draw(fig_no, d, where=""):
    """Fig. ``fig_no``'s two metrics per trace (min, median, max over the trials; Fig. 11: SelMcast, Orpheus's
    mean as a line) with the paper's relative numbers above each panel."""
    x, xlabel = AXES[fig_no]
    if fig_no == 11:
        orph11 = d[d.scheme == "orpheus"].groupby("trace")[metrics].mean()
        d = d[d.scheme == "selmcast"]
    fig, axes = plt.subplots(len(traces), 2, figsize=(6.6, 2.5 * len(traces)), squeeze=False)
    for r, trace in enumerate(traces):
        for c, m in enumerate(metrics):
            ax = axes[r, c]
            plotting.plot_min_median_max(ax, d[d.trace == trace], x=x, y=m, hue="scheme", legend=(r == c == 0))
            if fig_no == 11:
                ax.axhline(orph11.loc[trace, m], color="grey", ls="--", lw=1, label="orpheus (mean)")
                if r == c == 0:
                    ax.legend()
            if fig_no == 12:
                ax.set_xscale("log", base=2)
            # the paper's relative numbers (§IV-C4/6), from the constants the claims judge
            note_text = ssp_claims.paper_notes(fig_no, trace).get(m)
            if note_text:
                ax.set_title(note_text, loc="left", fontsize="x-small")     # above the panel: never on the data
            ax.set_xlabel(xlabel)
            ax.set_ylabel(f"{trace}: {'NPU utilization' if c == 0 else 'multicast scale'}")
    fig.suptitle(f"Fig. {fig_no}{where}")
    fig.tight_layout()
    return fig


for fig_no, d in ((11, df11), (12, df12), (13, df13)):
    run.save_figure(draw(fig_no, d), f"selmcast_ssp_fig{fig_no:02d}")

# %% [markdown]
# ## Claims (004 §IV-C4–6)
# Fig. 11's "scale +66/66/58 % for < 6/8/7 % utilization" has no stated baseline; we read
# it as η = 0.75 against η = 0 (decision SM69; the gain over Orpheus is recorded beside it as
# an observation, and so is the printed line 32, SM54). Rules for every verdict: decision
# SM70; statements the paper hedges with "might" are observations. Each claim is judged at the
# default (max-min) and, for Figs. 11 and 13, at the priority reading.

# %%
run.record([c for sh, setting in ssp_claims.SETTINGS.items()
               for c in ssp_claims.fig11(frames[(11, sh)], setting, df_x=x11 if sh == "maxmin" else None)
               + (ssp_claims.fig12(frames[(12, sh)], model_mb, setting) if (12, sh) in frames else [])
               + ssp_claims.fig13(frames[(13, sh)], setting)])

# %% [markdown]
# ## At the SSP paper profile (SM75)
# The same grids under max-min with each stand-in at its fitted shape (`ssp_profile.PAPER_SHAPES`: the spread
# and straggler tail fitted to Orpheus's utilization in Figs. 7 and 9, notebook 48), SelMcast (line 32 as y,
# SM54) and Orpheus on the same seeds, more trials where a verdict straddles (S25), judged by the same rules and
# recorded at the ledger setting `profile`.

# %%
PROFILE_JUDGE = {11: lambda d: ssp_claims.fig11(d, "profile"), 12: lambda d: ssp_claims.fig12(d, model_mb, "profile"),
                 13: lambda d: ssp_claims.fig13(d, "profile")}
profile_frames = {}
if at_ssp_profile:
    for fig_no, grid in ((11, grid11), (12, grid12), (13, grid13)):
        g = sp.at_profile([s for s in grid if s["sharing"] == "maxmin" and s.get("line32", "y") == "y"])
        profile_frames[fig_no] = run_until_decided(
            run, run_trial, ex.validate_settings(g), name=f"45_selmcast_ssp_fig{fig_no}_profile",
            desc=f"Fig. {fig_no} (SSP profile)", judge=PROFILE_JUDGE[fig_no], open_settings=ssp_claims.open_settings,
            start=trials, step=trials_step, cap=trials_cap)
    print(f"SSP paper profile: {sp.profile_label()}")
    prof = dict(profile_frames)
    prof[12] = prof[12].assign(volume_factor=prof[12].model_mb / model_mb)
    for fig_no, d in prof.items():
        run.save_figure(draw(fig_no, d, " at the SSP paper profile (SM75)"), f"selmcast_ssp_fig{fig_no:02d}_profile")
    run.record([c for fig_no, d in profile_frames.items() for c in PROFILE_JUDGE[fig_no](d)])

# %%
side = {"default": df11[df11.scheme == "selmcast"], **({"profile": prof[11]} if at_ssp_profile else {})}
pd.concat({w: ex.means(d[d.scheme == "selmcast"], ["trace", "eta"], metrics) for w, d in side.items()},
          axis=1).round(3)        # Fig. 11's SelMcast means, both settings

# %% [markdown]
# ## Where we disagree, and why
# The ledger lines printed above are the measured values. Measured with the full profile
# (600 s, n = 50; 5 seeds while writing this):
# * **η matters less than in the paper at every reading.** η only acts through line 9: an L3
#   multicast's receivers all have the same remaining volume, so η keeps a whole task once
#   (1 − η) of it is sent (SM63). Against η = 0 (SM69), η = 0.75 raises SelMcast's scale by
#   +16/17/17 % under max-min with line 32 read as y (ours, SM54), by +36/39/34 % with line 32
#   as printed (x: it lowers the η = 0 end, 0.41/0.38/0.33 against 0.49/0.47/0.39), and by only
#   +3 % under priority, where queued multicasts have sent nothing and no η < 1 protects them
#   (8–10 receivers dropped per multicast even at η = 1, none under max-min). The paper's
#   +58–66 % is reached by no reading; its baseline is not stated (SM69), so the miss is a
#   paper ambiguity. The utilization cost: with y, η = 0.75 costs nothing (utilization rises
#   slightly); with the printed x it costs 0.5–2 %, below the paper's 6/8/7 % bounds.
# * **Fig. 12**: utilization falls with the volume for both schemes and SelMcast's scale
#   falls towards p/n-plus-Pareto levels; Orpheus's scale is p/n by construction.
# * **Fig. 13**: the selection sees the capacities of the moment but a multicast runs on
#   for several Δ_T periods after it, so with γ → 1 SelMcast's bandwidth-aware choices age
#   quickly and its utilization lead shrinks. Under max-min SelMcast's largest scale gain over
#   Orpheus (+91 % on LSTM at γ = 0 with 5 seeds, +96 % in the ledger's 10 trials) exceeds the paper's "up to 67 %" — but the paper's own
#   Fig. 7, the same setting as γ = 0, says 0.3 → 0.55 = +83 %: Fig. 13's number contradicts
#   Fig. 7's (the ledger's cause "likely paper error"). Under priority the gain stays below
#   +67 % (the queued multicasts' drops).
# * **At the SSP paper profile (SM75; the ledger's `profile` rows, the same seeds; measured in a scratch run of
#   this notebook).** The η effect is a mechanism, not a trace shape: η = 0.75 against η = 0 raises the scale by
#   +18/19/17 % (default +16/17/17 %; paper +66/66/58 %) and costs no utilization, so Fig. 11's four rows fail as
#   at the default (against Orpheus the gain is +75/76/55 %). Fig. 12's two rows hold. Fig. 13: SelMcast's largest
#   scale gain over Orpheus is +74 % (default +96 %), and whether it is "up to 67 %" within 10 % stays
#   **undecided at 40 trials** (its interval straddles the bound); SelMcast's utilization still does not climb
#   and then decline on LSTM and Transformer (it peaks at γ = 0), and its scale and utilization still move
#   together over γ (rank correlation +1.00/+1.00/+0.14).
