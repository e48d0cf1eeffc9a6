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
# # Partial Reduce — the paper profile: the cluster fitted to Table 1's per-update times (PR16)
#
# 002 §5 states the cluster (8 workers, 10 GbE), the systems and their knobs, but not what sets the
# cost of one update against one compute step: the model's time on the wire, the spread of compute
# times, how much slower a worker sharing its GPU is (PR15), the parameter server's apply time per
# push (PS7), whether AD-PSGD's neighbour blocks (AD3) and whether its averaging is atomic (AD4).
# Table 1's per-update times, divided by all reduce's, measure exactly these costs. Decision PR16 —
# committed before this search was first run — fixes the rule: every candidate (model size × cv × γ ×
# apply time × AD neighbour × AD lock, 768) is
# scored by the mean |ln(ours / Table 1)| over the 13 ratios of ResNet-34's *baselines* at HL = 1 and 3
# (ER, AD, PS BSP/ASP/HETE/BK over all reduce, and all reduce's HL 3 / HL 1 slowdown); the smallest
# wins, ties to the candidate nearest today's defaults. Partial reduce's own ratios (CON, DYN) are
# claims to check: shown beside the fit, never scored (PR16 first scored them too; it was amended after
# that first search had been seen). Our per-update times come from the schedules alone (no learning
# replay; 150 s runs, 2 paired trials; the search's noise is stated below: the pick and the runner-up
# measured again on further seed pairs, issue 41). BK's ratio is the target through which the
# compute-time spread is identified (BK waits for the fastest 5 of 8; PS9). The winner is the **paper profile** (labelled *fitted*), at which
# notebook 22 judges every §5.2 claim again (ledger setting `profile`). The time-to-target claims are
# never a target.

# %% tags=["parameters"]
profile = "full"                          # "full" (paper fidelity) or "quick" (tests)
workers = None                            # processes for the sweep (None: all cores)
seed = 0
trials = 2
duration_s = 150.0
model_mb_values = [100.0, 250.0, 500.0, 1000.0]
cv_values = [None, 0.15, 0.3, 0.45]
hl_slowdown_values = [0.5, 0.75, 1.0]
apply_values = [0.0, 0.05, 0.1, 0.2]
ad_passive_values = ["compute", "block"]
ad_atomic_values = [False, True]
noise_pairs = 3

# %%
import simlib
from simlib.training.notebook_specs import PaperProfileNotebook

# ranges, units, quick values: the spec
run = simlib.start(PaperProfileNotebook, globals(), notebook="23_pr_paper_profile")

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from simlib.papers.claim import observation
from simlib.papers.partial_reduce import profile as pr_profile
from simlib.pipeline import plotting
from simlib.training import nine_systems as ns

spec = run.spec                   # the checked PaperProfileNotebook
cands = spec.candidates()
PROFILE, DEFAULT = pr_profile.PAPER_PROFILE, pr_profile.DEFAULT_SETTINGS
for extra in (PROFILE, DEFAULT):              # both are always measured, whatever the grids
    if extra.settings() not in [c.settings() for c in cands]:
        cands.append(extra)
settings = pr_profile.search_settings(cands, duration_s=duration_s)
df = run.sweep(ns.per_update_trial, settings, name="23_pr_profile_runs", desc="002 profile search")
assert len(df) == len(settings) * trials      # rows in (setting, trial) order (decision S2)
mean_pu = df["per_update_s"].to_numpy().reshape(len(settings), trials).mean(axis=1)
lookup = {pr_profile.setting_key(s): v for s, v in zip(settings, mean_pu)}
print(f"{len(cands)} candidates, {len(settings)} distinct runs x {trials} trials")

# %% [markdown]
# ## The search table: every candidate, its 21 ratios and its distance (over the 13 baseline ones)
# Committed as `data/results/23_pr_profile_search.csv`.

# %%
per_update = lambda s: lookup[pr_profile.setting_key(s)]
table = pr_profile.search_table(cands, per_update, duration_s=duration_s)
results = run.results
results.mkdir(parents=True, exist_ok=True)
table.to_csv(results / "23_pr_profile_search.csv", index=False)
score = pr_profile.scores(table)
picked = pr_profile.pick(table)
print(f"PR16 picks {picked.label()}; the committed profile is {PROFILE.label()}"
      + ("" if picked.settings() == PROFILE.settings() else "  <-- DIFFERENT: update PAPER_PROFILE (test_paper_profile)"))
score[list(pr_profile.KNOBS) + ["distance"]].head(12)

# %% [markdown]
# ## The search's noise at 2 trials (issue 41; PR16 as amended)
# The pick and the runner-up are measured again on `noise_pairs` further disjoint seed pairs. The
# 2-trial noise is the range of the pick's distance over all pairs; the pick is *separated* when its
# margin over the runner-up on the search's pair exceeds that noise. The check never changes the pick.

# %%
top2 = [pr_profile.pick(score.iloc[[i]]) for i in range(min(2, len(score)))]
noise = None
if len(top2) == 2 and noise_pairs > 0:
    n_tr = trials * (noise_pairs + 1)          # the search's trials first, then noise_pairs more sets of as many
    nset = pr_profile.search_settings(top2, duration_s=duration_s)
    ndf = run.sweep(ns.per_update_trial, nset, name="23_pr_profile_noise_runs", trials=n_tr,
                    desc="002 profile noise")
    pu = ndf["per_update_s"].to_numpy().reshape(len(nset), n_tr)
    dist = {}
    for k in range(noise_pairs + 1):
        look = {pr_profile.setting_key(s): v for s, v in zip(nset, pu[:, trials * k:trials * (k + 1)].mean(axis=1))}
        for c in top2:
            dist.setdefault(c.label(), []).append(
                pr_profile.pair_distance(c, lambda s: look[pr_profile.setting_key(s)], duration_s=duration_s))
    noise = pr_profile.noise_check(dist[top2[0].label()], dist[top2[1].label()])
    print(pd.DataFrame(dist, index=[f"trials {trials * k}-{trials * (k + 1) - 1}" for k in range(noise_pairs + 1)]).round(4))
    print(f"margin {noise['margin']:.4f} vs 2-trial noise {noise['noise']:.4f}: "
          + ("separated" if noise["separated"] else f"NOT separated from the runner-up {top2[1].label()}")
          + f"; the pick scores lower on {noise['pick_ahead']} of {noise['pairs']} pairs")

# %% [markdown]
# ## Where each per-update statement holds
# The search times updates, not accuracy, so of Table 1's statements it can judge the per-update ones
# (`pr_profile.per_update_statements`: the ledger's rules, on the search's mean ratios over its 2
# trials at HL 1 and 3). Columns: the candidates in PR16's order (the profile first); a failing
# ledger row of these statements can cite where they hold here (`pr_profile.where_holds`).

# %%
where = pr_profile.claims_map(table)
default_label = pr_profile.candidate_label(pr_profile.candidate_row(table, DEFAULT))
marks = {where.columns[0]: "profile", default_label: "default"}
fig = plotting.claims_map_figure(where, marks=marks, xlabel=f"the {where.shape[1]} candidates, best distance first",
                                 title=f"002 Table 1: where each per-update statement holds — PR16 search ({trials} trials)")
run.save_figure(fig, "pr_profile_claims")
for (_, statement), text in pr_profile.where_holds(table).items():
    print(f"{statement}: {text}")

# %% [markdown]
# ## Ours beside Table 1: the default, the profile, and the paper
# Each ratio is a system's per-update time over all reduce's at the same HL (the last, all reduce's at
# HL = 3 over HL = 1). Partial reduce's (CON, DYN) and VGG-19's are shown too; they are not fitted.

# %%
paper = pr_profile.paper_ratios()
vgg = pr_profile.paper_ratios("VGG-19")
row = lambda p: pr_profile.candidate_row(table, p)
side = pd.DataFrame({"paper (ResNet-34)": paper, "default": row(DEFAULT)[list(paper)],
                     "profile": row(picked)[list(paper)], "VGG-19 (not fitted)": vgg}).astype(float)
fitted = set(pr_profile.fitted_targets())
# each target's residual ln(ours / Table 1) at the profile, beside Table 1's number (issue 42 item 2)
side["residual ln(profile/paper)"] = np.log(side["profile"] / side["paper (ResNet-34)"])
side["fitted"] = [k in fitted for k in side.index]
side.round(3)

# %%
plotting.set_theme()
fig, ax = plt.subplots(figsize=(11, 4))
x = np.arange(len(side))
for col, m, c in (("default", "o", "#0072B2"), ("profile", "s", "#D55E00")):
    ax.scatter(x, side[col], marker=m, color=c, label=f"ours: {col}", zorder=3)
ax.scatter(x, side["paper (ResNet-34)"], marker="_", s=300, color="black", label="paper (Table 1, ResNet-34)",
           zorder=4)
ax.scatter(x, side["VGG-19 (not fitted)"], marker="x", color="grey", label="paper (VGG-19, not fitted)", zorder=2)
ax.set_yscale("log")
ax.set_xticks(x, side.index, rotation=60, ha="right")
ax.set(ylabel="per-update time / all reduce's", title=f"002 Table 1's per-update ratios: default (distance "
       f"{row(DEFAULT).distance:.3f}) and profile ({row(picked).distance:.3f}) — PR16")
ax.legend(fontsize=8)
run.save_figure(fig, "pr_profile_ratios")

# %% [markdown]
# ## How the distance depends on each knob
# The best distance among the candidates with each value of each knob.

# %%
best_by = pd.concat({k: table.assign(v=table[k].astype(str)).groupby("v")["distance"].min() for k in pr_profile.KNOBS},
                    names=["knob", "value"])
best_by.round(3).to_frame("best distance")

# %% [markdown]
# ## Recorded observations

# %%
run.record([
    observation("002", "Table 1 (PR16)", "paper profile: PR16's pick over the cluster's open settings",
                f"{picked.label()}: mean |ln ratio| {score.distance.iloc[0]:.3f} over "
                f"{len(pr_profile.fitted_targets())} ResNet-34 per-update ratios of the baselines; default "
                f"{row(DEFAULT).distance:.3f}; worst candidate {score.distance.iloc[-1]:.3f}",
                note="decision PR16 (as amended: baselines only; partial reduce's ratios are claims, not "
                     "targets); search table data/results/23_pr_profile_search.csv"),
    observation("002", "Table 1 (PR16)", "per-update ratios furthest from Table 1 at the profile",
                "; ".join(f"{k}: ours {side.profile[k]:.2f} vs paper {side['paper (ResNet-34)'][k]:.2f}"
                          for k in (np.log(side.profile / side["paper (ResNet-34)"]).abs()
                                    .sort_values(ascending=False).index[:4])),
                note="what the fitted cluster still cannot reproduce"),
] + ([observation("002", "Table 1 (PR16)", "the search's 2-trial noise: the pick's margin over the runner-up",
                  f"margin {noise['margin']:.4f} against a 2-trial noise of {noise['noise']:.4f} over "
                  f"{noise['pairs']} seed pairs: " + ("separated" if noise["separated"] else
                                                      f"not separated from {top2[1].label()}")
                  + f"; the pick scores lower on {noise['pick_ahead']} of {noise['pairs']} pairs",
                  note="issue 41: a search below its ledger's trial count states its noise (PR16 as amended)")]
     if noise is not None else []))
