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
# # Selective Reduce — the paper profile: Δt and the compute-time scale, calibrated on the baselines (E18)
#
# §IV-A1 states the cluster (n, λ, α), the model (500 MB), the knobs (p = 0.3n, η = 0.3, θ = 1),
# the run (100 s) and the trials (20), but not the controller's waiting slot Δt (decision E2;
# our default 0.1 s) nor the time scale of its compute-time traces (E6; our stand-ins have a
# 1 s mean). It gives no number for its baselines alone, only four trends of all reduce and
# partial reduce (Figs. 5–6 and 8). Decision E18 fixes the rule: every candidate Δt × mean
# compute time is scored by the number of those baseline statements that hold there (5 paired
# trials per setting; selective reduce's own claims are the ones to check, never scored); the
# most wins, ties to the larger Δt, then the smaller mean. (E18 first scored every claim of
# Figs. 5–14, which tunes the setting to the claims under test; it was amended after that first
# search had been seen.) The baselines never read Δt, so it stays at the default. The winner is
# the **paper profile** (labelled *fitted*), at which notebooks 11–14 judge every claim again
# with the paper's 20 trials (ledger setting `profile`). This notebook is also the sensitivity
# study of both settings: the table below says, for every claim, at which candidates it holds.
# The model size is stated by the paper (500 MB); it is swept at the profile as a sensitivity.

# %% tags=["parameters"]
profile = "full"                          # "full" (paper fidelity) or "quick" (tests)
workers = None                            # processes for the sweep (None: all cores)
seed = 0
trials = 5
n_values = [40, 80, 120, 160, 200]
n = 200
duration_s = 100.0
dt_values = [0.01, 0.02, 0.05, 0.1]
compute_means_s = [None, 2.0, 3.0, 5.0]
model_mb_values = [250.0, 1000.0]

# %%
from simlib.papers.selective_reduce.experiments.figures import ProfileSearchNotebook
import simlib

run = simlib.start(ProfileSearchNotebook, globals(), notebook="16_sr_paper_profile")   # ranges, units, quick values

# %%
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from simlib.papers.claim import observation
from simlib.papers.selective_reduce import profile as sr_profile
from simlib.papers.selective_reduce.experiments import suite
from simlib.pipeline import plotting, sweep

PROFILE, DEFAULT = sr_profile.PAPER_PROFILE, sr_profile.DEFAULT_SETTINGS
layout = dict(n_values=n_values, n=n, duration_s=duration_s)
# (dt_s, compute_mean_s, model_mb, bw_error_redraw) -> the four figure groups' settings
plan = {(c.dt_s, c.compute_mean_s, 500.0, "decision"): suite.figure_settings(c.settings(), **layout)
        for c in (sr_profile.Profile(dt, mean) for dt in dt_values for mean in compute_means_s)}
# sensitivities: the model size (stated, 500 MB) at the profile; E9's redraw rule at the default and the profile
plan.update({(PROFILE.dt_s, PROFILE.compute_mean_s, mb, "decision"):
             suite.figure_settings(PROFILE.settings(), extra={"model_mb": mb}, **layout) for mb in model_mb_values})
plan.update({(c.dt_s, c.compute_mean_s, 500.0, "run"):
             suite.figure_settings(c.settings(), extra={"bw_error_redraw": "run"}, **layout) for c in (DEFAULT, PROFILE)})
settings = sweep.unique_settings(*(s for groups in plan.values() for s in groups.values()))
df = run.scenarios(settings, name="16_sr_profile_runs", desc="profile search")

# %% [markdown]
# ## The search table: every candidate, every claim
# One row per (candidate, claim) with both verdicts; committed as
# `data/results/16_sr_profile_search.csv`.

# %%
table = pd.concat([suite.claims_table(suite.judge(suite.split_by_group(df, groups), n=n),
                                      dt_s=dt, compute_mean_s=mean, model_mb=mb, bw_error_redraw=redraw)
                   for (dt, mean, mb, redraw), groups in plan.items()], ignore_index=True)
results = run.results
results.mkdir(parents=True, exist_ok=True)
table.to_csv(results / "16_sr_profile_search.csv", index=False)
search = table[(table.model_mb == 500.0) & (table.bw_error_redraw == "decision")]
score = sr_profile.scores(search)
picked = sr_profile.pick(search)
print(f"E18 picks {picked.label()}; the committed profile is {PROFILE.label()}"
      + ("" if picked.settings() == PROFILE.settings() else "  <-- DIFFERENT: update PAPER_PROFILE (test_paper_profile)"))
score.head(16)

# %%
plotting.set_theme()
mean_label = lambda m: "1 (stored)" if pd.isna(m) or m == 1.0 else f"{m:g}"
grid = score.assign(mean=score.compute_mean_s.map(mean_label)).pivot(index="dt_s", columns="mean", values="hold")
fig, ax = plt.subplots(figsize=(5.5, 3.6))
sns.heatmap(grid.sort_index(ascending=False), annot=True, fmt="d", cmap="viridis", ax=ax,
            cbar_kws={"label": f"baseline statements holding (of {int(score.claims.iloc[0])})"})
ax.set(xlabel="mean compute time (s)", ylabel="Δt (s)",
       title=f"000 Figs. 5–8: baseline statements that hold per candidate ({trials} trials)")
run.save_figure(fig, "sr_profile_search")

# %% [markdown]
# ## Where each claim holds
# Rows: the claims; columns: the candidates (Δt / mean compute time). A filled cell: the claim
# holds there. The default (0.1 s / 1 s) and the profile are marked.

# %%
cand = lambda d, m: f"{d:g} s / {mean_label(m)}"
wide = search.assign(candidate=[cand(d, m) for d, m in zip(search.dt_s, search.compute_mean_s)],
                     row=search.figure + ": " + search.claim.str.slice(0, 60))
order = [cand(d, m) for d in dt_values for m in compute_means_s]
where = wide.pivot_table(index="row", columns="candidate", values="holds", aggfunc="first", sort=False)
where = where[order].astype(float)
fig, ax = plt.subplots(figsize=(11, 0.24 * len(where) + 1.5))
sns.heatmap(where, cmap=["#f2f2f2", "#2a7f62"], cbar=False, linewidths=0.3, linecolor="white", ax=ax)
for label, text in ((cand(0.1, None), "default"), (cand(PROFILE.dt_s, PROFILE.compute_mean_s), "profile")):
    if label in order:
        ax.text(order.index(label) + 0.5, -0.3, text, ha="center", va="bottom", fontsize=8, color="crimson")
ax.set(xlabel="Δt / mean compute time (s)", ylabel="", title="where each claim holds (green) — E18 search")
plt.xticks(rotation=60, ha="right")
run.save_figure(fig, "sr_profile_claims")

# %%
per_claim = where.sum(axis=1).astype(int)
at = lambda label: where[label].astype(bool) if label in where else pd.Series(False, index=where.index)
summary = pd.DataFrame({"candidates where it holds": per_claim, "default": at(cand(0.1, None)),
                        "profile": at(cand(PROFILE.dt_s, PROFILE.compute_mean_s))})
print(f"claims holding at no candidate: {int((per_claim == 0).sum())}; at every candidate: "
      f"{int((per_claim == len(order)).sum())}; of {len(per_claim)}")
summary.sort_values("candidates where it holds")

# %% [markdown]
# ## Sensitivities: the model size at the profile (the paper states 500 MB), E9's redraw rule
# Claims holding per setting; below, the Fig. 12 claims (the only ones the redraw rule touches).

# %%
is_at = lambda t, c: (t.dt_s == c.dt_s) & (t.compute_mean_s.fillna(1.0) == (c.compute_mean_s or 1.0))
sens = table[is_at(table, PROFILE) | is_at(table, DEFAULT)].assign(
    at=lambda t: ["profile" if is_p else "default" for is_p in is_at(t, PROFILE)])
by_setting = (sens.groupby(["at", "model_mb", "bw_error_redraw"])["holds"].agg(["size", "sum"])
              .rename(columns={"size": "claims", "sum": "hold"}))
print(by_setting.to_string())
by_size = by_setting.xs(("profile", "decision"), level=("at", "bw_error_redraw"))
fig12 = sens[sens.figure.str.startswith("Fig. 12")].pivot_table(index=["figure", "claim"], columns=["at", "bw_error_redraw"],
                                                               values="holds", aggfunc="first")
fig12

# %% [markdown]
# ## Recorded observations

# %%
best, worst = score.iloc[0], score.iloc[-1]
default_row = score[(score.dt_s == DEFAULT.dt_s) & (score.compute_mean_s == 1.0)].iloc[0]
run.record([
    observation("000", "§IV (E18)", "paper profile: E18's pick over Δt × compute mean",
                f"{picked.label()}: {int(best.hold)} of {int(best.claims)} baseline statements hold, "
                f"{int(best.hold_all)} of {int(best.claims_all)} claims in all ({trials} trials); default "
                f"(0.1 s, 1 s): {int(default_row.hold)} and {int(default_row.hold_all)}; fewest baseline "
                f"statements: {int(worst.hold)} at Δt = {worst.dt_s:g} s, mean {mean_label(worst.compute_mean_s)} s",
                note="decision E18 (as amended: scored on the baselines' statements only, "
                     f"{'; '.join(sr_profile.BASELINE_CLAIMS)}); search table data/results/16_sr_profile_search.csv"),
    observation("000", "§IV (E18)", "claims holding at no candidate of the search / at every candidate",
                f"{int((per_claim == 0).sum())} at none, {int((per_claim == len(order)).sum())} at all "
                f"{len(order)}, of {len(per_claim)}",
                note="no single setting reproduces every trend: see figures/sr_profile_claims.png"),
    observation("000", "§IV (E18)", "model size at the profile: claims holding",
                ", ".join(f"{mb:g} MB: {int(r.hold)} of {int(r.claims)}" for mb, r in by_size.iterrows()),
                note="the paper states 500 MB (§IV-A1); a sensitivity, not fitted"),
    observation("000", "Fig. 12 (E9)", "estimation error redrawn per decision vs once per run: Fig. 12 claims holding",
                "; ".join(f"{at}: per decision {int(fig12[(at, 'decision')].sum())}, per run "
                          f"{int(fig12[(at, 'run')].sum())} of {len(fig12)}"
                          for at in ("default", "profile") if (at, "run") in fig12 and (at, "decision") in fig12),
                note="decision E9; 5 paired trials per setting"),
])

# %% [markdown]
# ## What this shows
# Written from the committed run; see the printed tables above for the numbers.
#
# * The baselines decide only the compute-time scale: at the stored 1 s mean all reduce's and
#   partial reduce's sync time does not grow with n in every run, from a 3 s mean on it does; Δt is
#   not read by them and stays at the default.
# * The claims in all vary across candidates (the per-claim map) — the open settings decide a good
#   share of the verdicts, which is why every 000 claim is judged both at the default and at the
#   profile in the ledger. No candidate makes every claim hold.
# * The profile is *fitted* (E18) on the baselines only: a claim of selective reduce that holds only
#   at the profile holds under a calibration it took no part in, but the calibration rests on four
#   qualitative trends (000 gives no baseline numbers).
