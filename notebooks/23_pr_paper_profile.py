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
# never a target. The last section searches the learning task at 002's operating point (RP24, issue 42 item 3).

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
task_models = ["mlp-relu", "cnn"]         # RP24: the learning task's candidates (model, data, batch) ...
task_data = ["sharded", "iid"]
task_batches = [32, 20]                   # ... 32 and 002's share of the training set (256 * 4000 / 50000)
task_cnn_batches = [32]                   # the CNN's runs are the search's cost: batch 32 only ...
task_hls = [1, 3]
task_cnn_hls = [1]                        # ... at HL 1 ...
task_trials = 10                          # RP24 as amended: 10 paired trials (3 before) ...
task_cnn_trials = 10                      # ... for the CNN too (2 before)
task_duration_s = 8000.0                  # the cap of RP24's runs (early stop at each candidate's target)

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

# %% [markdown]
# ## The learning task at 002's operating point (RP24, issue 42 item 3)
# 002 trains to 90 % on CIFAR-10, a few points below its models' plateau (93-95 %); our default task (the
# MLP to 45 %, plateau 56-58 %) is far below its plateau, where staleness costs little (RP20). Decision RP24,
# written before this search was first run (`simlib/training/task_search.py`): each candidate (model,
# data split, batch) trains with 002's optimizer scaled to the task (momentum 0.9, weight decay 1e-4, the
# model's tuned step × (1 − μ), linear in the batch); its plateau is the median test accuracy over the last
# 20 % of a long lock-step all-reduce run, and its target lies at 002's fraction of the way from chance to
# the plateau, 0.952. Then the seven baselines run on the cluster at the paper profile (above), paired per
# trial, each replayed to the candidate's target, and the candidate is scored by how far the baselines'
# ratios of updates to the target (ASP/BSP, AD/AR, BK/BSP, HETE/ASP) lie outside Table 1's ranges; ER
# (Table 1: never reaches) is reported and breaks ties. The pick must be clear of the noise (each trial's
# own score) to be adopted.
#
# **Cost at the full profile** (measured niced on this loaded 2-core machine, 2026-11-29; RP24): an MLP run
# costs 0.5-5.8 s of CPU (median 1.7 s), a CNN run 25-93 s (median 56 s; most of it evaluating the CNN every
# simulated second); the plateau runs 3.5 s (MLP) and 25 s (CNN). The CNN's runs now cut each evaluation short
# once it is shown below the target (RP25: the same values; 8-11 s per run; after later speed work 2.8-5.5 s),
# so the first grid (4 MLP candidates × 2 HLs × 3 trials, 2 CNN candidates × HL 1 × 2 trials: 196 runs) cost
# about 160 s of CPU by 2026-11-30, and the grid at RP24's amended 10 paired trials (700 runs) about 690 s
# (docs/speed.md, task11). The quick profile runs one MLP candidate, one trial.
# Measured for the decision at 3 and 2 trials (RP24, the CNN at i.i.d. data not run): no candidate was clear
# of the noise, so the pick was "none" and notebooks 21-23 kept the default task; the pick at 10 trials is
# printed above and said in RP24's amendment.

# %%
from simlib.training import task_search as ts

task_plateaus, task_settings = {}, {}
for cand, hls, k in spec.task_candidates():
    pl = ts.plateau(cand)
    target = ts.target_for(pl["plateau"])
    task_plateaus[cand.label()] = dict(candidate=cand.label(), lr=cand.lr(), plateau=pl["plateau"],
                                       best=pl["best"], target=target)
    task_settings.setdefault(k, []).extend(ts.search_settings(cand, target, hls=hls, duration_s=task_duration_s))
task_rows = []
# one sweep per trial count: a system's runs of every candidate at one paired seed run as one task, its schedule
# simulated once (decision S39; the same rows as a sweep per candidate)
for k, settings in task_settings.items():
    runs = run.sweep(ts.search_trial, settings, name="23_pr_task_search_runs", trials=k,
                     desc=f"RP24 search, {k} trials")
    label = [ts.TaskCandidate(m, d, b).label() for m, d, b in zip(runs["model"], runs["data"], runs["batch"])]
    task_rows.append(runs.assign(candidate=label, plateau=[task_plateaus[c]["plateau"] for c in label],
                                 target=[task_plateaus[c]["target"] for c in label],
                                 arm=[ns.arm_label(a, p) for a, p in zip(runs["scheme"], runs["p"])]))
task_runs = pd.concat(task_rows, ignore_index=True)
task_runs.to_csv(run.results / "23_pr_task_search_runs.csv", index=False)
pd.DataFrame(list(task_plateaus.values())).round(4)

# %%
task_ratios = ts.ratio_table(task_runs)
task_ratios.to_csv(run.results / "23_pr_task_search_ratios.csv", index=False)
task_scores = ts.score_table(task_runs)
task_scores.to_csv(run.results / "23_pr_task_search.csv", index=False)
task_pick = ts.pick(task_scores)
print(task_pick["reason"])
task_ratios.round(3)

# %%
task_scores.round(3)

# %%
fig, ax = plt.subplots(figsize=(11, 4))
rt = task_ratios[task_ratios["ratio"] != ts.ER_ARM].reset_index(drop=True)
cells = list(dict.fromkeys(zip(rt["ratio"], rt["hl"])))
xs = {c: i for i, c in enumerate(cells)}
for i, (name, hl) in enumerate(cells):
    lo, hi = ts.paper_range(name, int(hl))
    ax.plot([i, i], [lo, hi], color="0.6", lw=8, solid_capstyle="butt", zorder=1,
            label="paper (Table 1's range over its 3 models)" if i == 0 else None)
n_cands = rt["candidate"].nunique()
for j, (cand, g) in enumerate(rt.groupby("candidate", sort=False)):
    x = np.array([xs[(r, h)] for r, h in zip(g["ratio"], g["hl"])]) + 0.08 * (j - (n_cands - 1) / 2)
    ax.errorbar(x, g["median"].fillna(g["median_lo"]), yerr=[np.clip(g["median"].fillna(g["median_lo"]) - g["min"], 0, None),
                                                             np.clip(g["max"] - g["median"].fillna(g["median_lo"]), 0, None)],
                fmt="o", ms=4, capsize=2, label=f"{cand} (median, per-trial min-max)")
ax.set_yscale("log")
ax.set_xticks(range(len(cells)), [f"{r} HL={h}" for r, h in cells], rotation=30, ha="right")
ax.set(ylabel="updates to the target, ratio", title="RP24: the baselines' update ratios per candidate task beside Table 1")
ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
run.save_figure(fig, "pr_task_search")

# %%
run.record([observation(
    "002", "Table 1 (RP24)", "the learning task at the paper's operating point: RP24's pick",
    (f"picked {task_pick['picked']}" if task_pick["picked"] else "none") + f" ({task_pick['reason']}); "
    + "; ".join(f"{r.candidate}: score {r.score:.3f} (per trial {r.score_lo:.3f}-{r.score_hi:.3f}), "
                f"{r.ratios_in_range}/{r.ratios} ratios in range, ER reached {r.er_reached:.0%}"
                for r in task_scores.itertuples()),
    note="decision RP24: fitted to Table 1's baseline update ratios only; search table "
         "data/results/23_pr_task_search.csv")])
