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
# # Partial Reduce §5 — the nine systems of Table 1, Fig. 7 and Fig. 11
#
# Seed 002 compares nine synchronization systems on 8 GPUs. HL workers share one GPU, so they run about
# HL× slower. The systems are All-Reduce (AR), Eager-Reduce (ER), AD-PSGD (AD), and the parameter server
# under BSP, ASP, HETE and with 3 backup workers (BK). The last two are partial reduce with constant (CON)
# and with dynamic (DYN) weights, each at P = 3 and 5. We run all of them on the simulated cluster:
# 8 workers, 10 Gbps each, a 100 MB model in flight, the CNN trace (mean 1 s), and workers 0..HL−1
# slowed HL×. We add 000's selective reduce (SR3, minimum group 3) as a tenth row, which no paper
# has. Each schedule is replayed through notebook 90's learning task: mnist1d, an MLP, sharded data,
# lr 0.5, batch 32 (decisions RP9–RP11). The gradient-based systems update one global model (RP12),
# and the others average replicas. Time to accuracy is the first evaluation, one every simulated
# second, at which the model reaches `target_acc`. "#updates" is 002's count: syncs launched, or
# global-model updates. Fig. 11 runs AR, PS BK (n/4 backups) and partial reduce (P = 4) on a real
# heterogeneous trace, `pai-job4`. In that Alibaba PAI job the worker means lie 5.4× apart (see the
# real-trace table in docs/data.md). Its speedup is measured against one worker training alone (RP14).
#
# **Two settings.** Table 1 (and Fig. 7) runs twice: at the repository's defaults above, and at 002's
# **paper profile** (decision PR16, notebook 23): the cluster's open settings -- model size on the
# wire, compute-time spread, the shared GPU's slowdown, the server's apply time per push (PS7) and
# AD-PSGD's blocking neighbour (AD3) -- fitted to Table 1's per-update time ratios, never to its
# times to target. The ledger judges every §5.2 claim at both (settings `default` and `profile`);
# a claim that fails at one setting and holds at the other says so in its cause. Fig. 11 runs at both
# too, with the profile's values its runs read (PR19): the model size and PS BK's apply time per push;
# not the cv or γ (the real trace `pai-job4` has its own spread and no HL).
#
# **Trials (decisions S24, S25).** Table 1 starts at `trials` = 10 paired trials per setting. Every comparative
# verdict carries the 95 % sign-test interval of its median ratio; while one straddles its threshold (1 for a
# direction, a bound of Table 1's range for a magnitude), the arms it compares run `trials_step` = 5 more trials
# (the trials already run are loaded from the cache), up to `trials_cap` = 30 (S25's cap is 40; Table 1's
# batches are the costliest, so here it is 30); a verdict still straddling there is *undecided at 30 trials*,
# its own verdict. Fig. 11 runs `fig11_trials` = 10 paired trials at both settings, without batches; the sweeps
# beyond Table 1 keep RP15's 3 (`extra_trials`). The cost paragraph below is from before these changes (S25
# and its amendments estimate the additions).
#
# **Cost.** Measured on this 2-core machine with other jobs running, one trial of the twelve arms at one
# HL (300 s, the run length before issue 32's caps) took about 9.4 s of CPU: 4.4 s of simulation and 5.0 s of replay. AD-PSGD and the
# PS arms cost the most, 0.9–1.3 s each, because the servers are simulated as one merged host (PS1).
# One Fig. 11 trial takes about 15 s, and PS BK at n = 32 takes 2.8 s of that. The full profile
# (3 trials of Table 1 at 3 HLs, 3 of Fig. 11) ran in 84 s of wall time and 146 s of CPU. The quick
# profile takes 14 s with warm numba caches. Decision RP15 says why there are 3 trials where 002
# averages 5 runs. Since issue 32 every run goes on to a cap stated in advance (RP16): 1200 s at the
# defaults, more than twice all reduce's 521 s to 45 % at HL = 3 (its slowest system), and 1800 s at the
# paper profile, more than twice the slowest of its 22 pilot runs (831 s). Each run is first simulated
# for half its cap and replayed; the replay stops once it reaches 45 % and the ladder's top rung, and
# only a run that has not got there is simulated again to the cap (RP16's early stop and staging:
# every time to target is the full run's, tested). Without them this notebook took 5m14s on a fresh
# clone (2026-11-27), most of it simulating and replaying runs long after they had reached 45 %.
# Issue 32's four extra sweeps (statistical evidence RP20, momentum RP21, selective reduce at drawn
# bandwidths PR17, the group filter PR18) add 78 runs and 62 s of CPU at the full profile (about 31 s
# of wall time on 2 workers; `benchmarks/bench_nb22_additions.py`); like Table 1's runs, each simulates
# half the cap first and its replays stop at the target. Fig. 11 at the paper profile (PR19) adds 36 runs
# and about 12 s of CPU (measured niced and serial, 2026-11-27).

# %% tags=["parameters"]
profile = "full"                  # "full" or "quick" (tests)
workers = None                    # processes for the sweep (None: all cores)
seed = 0
trials = 10                       # S25: Table 1 starts at 10 paired trials ...
trials_step = 5                   # ... adds 5 to the arms of a verdict whose interval straddles its threshold ...
trials_cap = 30                   # ... up to 30 (S25: 40 elsewhere, 30 here for CPU): still undecided there, "undecided at 30 trials"
extra_trials = 3                  # the sweeps beyond Table 1 (RP20, PR17, PR18, RP21)
n = 8
hl_values = [1, 2, 3]             # Table 1's heterogeneity levels
table_p = [3, 5]                  # Table 1's partial-reduce group sizes
backups = 3                       # PS BK's backup workers (002: 5 of 8 per step)
duration_s = 1200.0              # the cap (RP16): 2.3x all reduce's 521 s to 45 % at HL 3
profile_duration_s = 1800.0       # the paper profile's cap (PR16): 2.2x its slowest pilot run, 831 s
early_stop = True                 # RP16: each replay stops at 45 % and the ladder's top (same times)
curve_every_s = 10.0              # Fig. 7's curve points
fig11_trials = 10                 # S25: Fig. 11's paired trials per setting (at both settings)
fig11_n = [1, 4, 8, 16, 32]       # Fig. 11's cluster sizes (1: the baseline)
fig11_p = 4
fig11_trace = "pai-job4"
fig11_profile_duration_s = 1800.0  # Fig. 11's cap at the paper profile (PR19): 2.9x its slowest pilot run, 611 s
fig11_single_duration_s = 600.0
target_acc = 0.45
bandwidth_gbps = 10.0
model_mb = 100.0
trace = "cnn"
lr = 0.5
batch = 32
model = "mlp-relu"
problem = "mnist1d"
data = "sharded"
evidence_hls = [1, 3]             # RP20: ER, ASP, HETE replayed as logged and with fresh gradients
sr_hls = [1, 3]                   # PR17: SR3 vs CON3 and AR at 000's drawn bandwidths
filter_hls = [1, 3]               # PR18: Table 1's partial-reduce arms with 002 §4's group filter on
momentum_check = 0.9              # RP21: 002 §5.1's momentum, run at lr (1 - μ) (the same effective step)
momentum_hls = [1, 3]             # RP21: ER, ASP, BSP with momentum

# %%
import simlib
from simlib.training.notebook_specs import NineSystemsNotebook

# ranges, units, quick values: the spec
run = simlib.start(NineSystemsNotebook, globals(), notebook="22_pr_sec5_nine_systems")

# %% [markdown]
# ## The sweeps: Table 1 (every system, every HL) and Fig. 11 (cluster sizes)

# %%
import dataclasses

import numpy as np
import pandas as pd

from simlib.papers.partial_reduce import profile as pr_profile
from simlib.pipeline import plotting
from simlib.training import nine_systems as ns

spec = run.spec                   # the checked NineSystemsNotebook
settings = spec.table1_settings()  # every Table 1 arm (ns.ARMS) at every HL, as the parameters cell says
# the same runs at 002's paper profile (decision PR16: the cluster fitted to Table 1's per-update ratios)
PROFILE, DEFAULT = pr_profile.PAPER_PROFILE, pr_profile.DEFAULT_SETTINGS
# and RP24's learning task, once notebook 23's search has picked one clearly (pr_profile.PAPER_TASK; none yet)
settings_p = [dict(s, duration_s=profile_duration_s) for s in pr_profile.at_profile_task(pr_profile.at_profile(settings))]

from simlib.papers.partial_reduce import table1_claims as t1
from simlib.pipeline.decide import settings_until_decided


def table1_until_decided(sets, name, desc):
    """Table 1 at ``trials`` paired trials, then ``trials_step`` more for the settings of the arms of every
    verdict left undecided, up to ``trials_cap`` (S25, :func:`~simlib.pipeline.decide.settings_until_decided`:
    a setting extended once keeps its trials; cached ones are loaded)."""
    def with_arms(d):
        return d.assign(arm=[ns.arm_label(s, p) for s, p in zip(d["scheme"], d["p"])])

    def sweep_at(some, k):
        return run.sweep(ns.trial, some, name=name, trials=k, desc=f"{desc}: {k} trials")

    out = settings_until_decided(sweep_at, sets, lambda d: t1.table1(with_arms(d)), ns.table1_open_settings,
                                 start=trials, step=trials_step, cap=trials_cap)
    out.frame.to_csv(run.results / f"{name}.csv", index=False)   # every setting at its final trial count
    return dataclasses.replace(out, frame=with_arms(out.frame))


decided = {"default": table1_until_decided(settings, "22_pr_table1", "002 Table 1"),
           "profile": table1_until_decided(settings_p, "22_pr_table1_profile", "002 Table 1 (profile)")}
df, df_p = decided["default"].frame, decided["profile"].frame
frames = {"default": df, "profile": df_p}
for k, dcd in decided.items():
    print(f"Table 1 at the {k}: {dcd.text()}")

f11 = spec.fig11_settings()        # the 1-worker baseline, then AR, BK and PR at each cluster size
df11 = run.sweep(ns.trial, f11, name="22_pr_fig11", trials=fig11_trials, desc="002 Fig. 11")
# Fig. 11 at the paper profile with the values its runs read (PR19): the model size, and the server's apply time
# for BK; on a recorded trace no cv, and no HL.  The 1-worker baseline reads none of them: its default runs serve.
df11_p = run.sweep(ns.trial, [dict(s, duration_s=fig11_profile_duration_s) for s in pr_profile.at_profile_read(f11)
                              if s["scheme"] != ns.SINGLE],
                   name="22_pr_fig11_profile", trials=fig11_trials, desc="002 Fig. 11 (profile)")
df11_p = pd.concat([df11[df11.scheme == ns.SINGLE], df11_p], ignore_index=True)
df11, df11_p = df11.copy(), df11_p.copy()    # one block per dtype: adding "arm" to the wide frames does not warn
frames11 = {"default": df11, "profile": df11_p}
for d in frames11.values():
    d["arm"] = d["scheme"].map({ns.SINGLE: "1 worker", "allreduce": "AR", "ps-backup": "BK", "partial": f"PR{fig11_p}"})

# %% [markdown]
# ## Table 1
# At the default and at the paper profile (the `setting` level). Each cell is the median over trials. A run that never reaches the target counts as infinitely many
# seconds and updates, so N/A means at least half the runs never got there. The `reached` rows count
# the runs that did. Per-update time is the time to target divided by the updates to it. A run that
# never reaches the target uses its duration divided by its updates, which is how Table 1 still gives
# ER a per-update time.

# %%
order = [a for a in list(ns.ARMS) if a in set(df["arm"])]


def summary(d):
    g = d.assign(time_s=d["time_to_target_s"].fillna(np.inf), updates=d["updates_to_target"].fillna(np.inf)
                 ).groupby(["hl", "arm"])
    med = g[["time_s", "updates", "per_update_s", "reached"]].agg(
        {"time_s": "median", "updates": "median", "per_update_s": "median", "reached": "sum"}).replace(np.inf, np.nan)
    cols = [a for a in order if a in set(d["arm"])]
    return pd.concat({m: med[m].unstack("arm")[cols] for m in ("time_s", "updates", "per_update_s", "reached")},
                     names=["metric"]).round(3)


tables = {k: summary(d) for k, d in frames.items()}
table = tables["default"]
table.to_csv(run.results / "22_pr_table1_summary.csv")
tables["profile"].to_csv(run.results / "22_pr_table1_summary_profile.csv")
pd.concat(tables, names=["setting"]).astype(object).where(lambda t: t.notna(), "N/A")

# %%
import matplotlib.pyplot as plt

plotting.set_theme()
fig, ax = plt.subplots(figsize=(12, 0.28 * len(table) + 0.6))
ax.axis("off")
runs = df.groupby(["hl", "arm"]).size().unstack("arm")      # trials per cell: S25 extends undecided arms
cells = [["N/A" if pd.isna(v) else (f"{v:.3f}" if m == "per_update_s" else f"{v:.0f}" + (f"/{runs.loc[hl, a]}" if m == "reached"
                                                                                             else "")) for v, a in zip(row, order)]
         for (m, hl), row in zip(table.index, table.to_numpy())]
names = {"time_s": "run time (s)", "updates": "#update", "per_update_s": "per-update (s)", "reached": "reached"}
rows = [f"{names[m]} HL={hl:g}" for m, hl in table.index]
ax.table(cellText=cells, rowLabels=rows, colLabels=order, loc="center", cellLoc="center").scale(1, 1.3)
ax.set_title(f"002 Table 1 analogue: n={n}, {bandwidth_gbps:g} Gbps, {model_mb:g} MB, target {target_acc:.0%}, "
             f"median of {runs.min().min()}–{runs.max().max()} paired trials (S25)\n(N/A: the median run did not reach it in "
             f"{duration_s:g} s)", fontsize=10)
run.save_figure(fig, "pr_table1_nine_systems")

# %% [markdown]
# ## Per-update time ratios beside Table 1's (the paper profile's target, PR16)
# Each system's median per-update time over all reduce's at the same HL, at the default and at the
# paper profile, beside Table 1's ResNet-34 ratios (HL = 1 and 3; Table 1 has no ResNet-34 row at
# HL = 2). These are the costs the profile was fitted to (notebook 23, from short runs without the
# replay); here they come from the full runs.

# %%
paper_r = pr_profile.paper_ratios()


def our_ratios(t):
    pu = t.loc["per_update_s"]
    out = {f"{a} HL={hl}": pu.loc[hl, a] / pu.loc[hl, "AR"] for hl in pr_profile.TARGET_HLS if hl in pu.index
           for a in pr_profile.RATIO_ARMS if a in pu.columns}
    if set(pr_profile.TARGET_HLS) <= set(pu.index):
        out["AR HL=3/HL=1"] = pu.loc[3, "AR"] / pu.loc[1, "AR"]
    return out


ratios = pd.DataFrame({"paper": paper_r, **{k: our_ratios(t) for k, t in tables.items()}}).astype(float)
ratios.to_csv(run.results / "22_pr_per_update_ratios.csv")
dist = {k: pr_profile.distance(ratios[k].dropna().to_dict(), {i: paper_r[i] for i in ratios[k].dropna().index})
        for k in tables}
print("mean |ln(ours / paper)| over the ratios measured: "
      + ", ".join(f"{k} {v:.3f}" for k, v in dist.items()))
ratios.round(3)

# %%
fig, ax = plt.subplots(figsize=(11, 4))
x = np.arange(len(ratios))
for col, m, c in (("default", "o", "#0072B2"), ("profile", "s", "#D55E00")):
    ax.scatter(x, ratios[col], marker=m, color=c, label=f"ours: {col}", zorder=3)
ax.scatter(x, ratios["paper"], marker="_", s=300, color="black", label="paper (Table 1, ResNet-34)", zorder=4)
ax.set_yscale("log")
ax.set_xticks(x, ratios.index, rotation=60, ha="right")
ax.set(ylabel="per-update time / all reduce's",
       title=f"002 Table 1's per-update ratios, full runs: default and paper profile ({PROFILE.label()})")
ax.legend(fontsize=8)
run.save_figure(fig, "pr_table1_per_update_ratios")

# %% [markdown]
# ## Table 1's own numbers beside ours (issue 42 item 4)
# Per cell: each system over all reduce (run time, #update, per-update time) at HL 1 (homogeneous) and
# at our heterogeneous HLs. Grey bar: Table 1's range over its three models at that setting (HL 1, or
# its heterogeneous rows HL 2-3), from the paper's own cells; marker: our median paired ratio at the
# default and at the profile, with its 95 % interval over the paired trials (S24; an open end of a
# censored interval drawn to the axis; no interval below `MIN_PAIRS` = 6 pairs).

# %%
from simlib.papers.partial_reduce.claims import TABLE1_ARMS
from simlib.papers.strength import MIN_PAIRS

metrics = (("time_to_target_s", "time", "run time"), ("updates_to_target", "updates", "#update"),
           ("per_update_s", "per-update", "per-update time"))
cells = [(a, hl) for hl in hl_values for a in order if a not in ("AR", "SR3", "1 worker")]
fig, axes = plt.subplots(len(metrics), 1, figsize=(13, 3.2 * len(metrics)), sharex=True)
for ax, (metric, what, label) in zip(np.atleast_1d(axes), metrics):
    x = np.arange(len(cells))
    labelled = False
    for i, (a, hl) in enumerate(cells):
        span = t1.table1_ratios(a, "AR", what, "heterogeneous" if hl > 1 else "homogeneous") if a in TABLE1_ARMS else []
        if span:
            ax.plot([i, i], [min(span), max(span)], color="0.6", lw=7, solid_capstyle="butt", zorder=1,
                    label=None if labelled else "Table 1 (range over its 3 models; none: N/A)")
            labelled = True
    for k, (setting, fr) in enumerate(frames.items()):
        pr = {}
        for a in dict.fromkeys(a for a, _ in cells):
            r = t1.paired_arms(fr, metric, a, "AR")
            for row in r.itertuples(index=False):
                pr[a, row.hl] = row
        ys = [pr.get(c) for c in cells]
        off = -0.15 if k == 0 else 0.15
        med = np.array([np.nan if r is None else r.median for r in ys], dtype=float)
        # no interval below MIN_PAIRS pairs (S24: nothing known): the marker alone; an open end: to the axis
        known = [r is not None and r.trials >= MIN_PAIRS for r in ys]
        lo = np.array([r.ci_lo if ok else np.nan for r, ok in zip(ys, known)], dtype=float)
        hi = np.array([r.ci_hi if ok else np.nan for r, ok in zip(ys, known)], dtype=float)
        lo = np.where(np.isnan(lo), med, np.where(lo > 0, lo, 1e-3))
        hi = np.where(np.isnan(hi), med, np.where(np.isfinite(hi), hi, 1e3))
        ax.errorbar(x + off, med, yerr=[np.clip(med - lo, 0, None), np.clip(hi - med, 0, None)], fmt="os"[k],
                    color=("#0072B2", "#D55E00")[k], ms=4, lw=1, capsize=2, zorder=3, label=f"ours: {setting} (95 % CI)")
    ax.axhline(1.0, color="black", lw=0.5)
    ax.set_yscale("log")
    ax.set_ylim(0.02, 50)
    ax.grid(axis="x", visible=False)
    ax.set_ylabel(f"{label} / AR's")
axes[-1].set_xticks(np.arange(len(cells)), [f"{a} HL={hl}" for a, hl in cells], rotation=70, ha="right", fontsize=7)
axes[0].legend(fontsize=7, ncol=3)
axes[0].set_title("002 Table 1 beside ours: every system over all reduce, Table 1's range per cell and our interval")
run.save_figure(fig, "pr_table1_beside_paper")

# %% [markdown]
# The same runs at the lower rungs of the problem's ladder show whether the order of the systems
# depends on the target. The table gives the median time to each accuracy, with a run that never
# reached it counted as infinite (N/A: at least half the runs did not).

# %%
ladder = sorted(c for c in df.columns if c.startswith("time_to_acc"))
pd.concat({k: d[["hl", "arm"] + ladder].fillna(np.inf).groupby(["hl", "arm"]).median().replace(np.inf, np.nan)
           .stack(future_stack=True).unstack("arm")[order] for k, d in frames.items()}, names=["setting"]
          ).round(0).astype(object).where(lambda t: t.notna(), "N/A")

# %% [markdown]
# ## Fig. 7: accuracy against time
# One panel per HL. Each line is the median test accuracy over trials. With early stop (RP16) a
# replay ends once it has reached 45 % and the ladder's top rung, so a line ends where the first of
# its trials stopped: the curves show the climb to the target, not the plateau after it. Colour and marker come from
# the scheme, and the line style from the group size: solid for P = 3, dashed for P = 5, and dotted
# for the dynamic weights. Open markers labelled "paper" (issue 44 item 2) put Table 1's VGG-19 run times
# (Fig. 7(a)'s model; HL 1 and 3) on the target line, as multiples of our all reduce's median time to it:
# where each system would cross if it kept the paper's time ratios. Eager-Reduce is N/A in the paper.

# %%
from simlib.papers.cluster_scenario import SCHEMES
from simlib.papers.partial_reduce import claims as pr_claims

# the paper's numbers (Fig. 7(a) is VGG-19; its Table 1 rows at HL 1 and 3), from the constants the claims judge
# (pr_claims.paper_marks): each system's time to the threshold over all reduce's, drawn on the target line at
# that multiple of our all reduce's median time there (an open marker "paper"); Eager-Reduce: N/A, never
fig7_marks = pr_claims.paper_marks("Fig. 7")
for setting, d in frames.items():
    cols = [c for c in d.columns if c.startswith("acc_at_") and d[c].notna().any()]
    tt = [float(c[len("acc_at_"):-1]) for c in cols]
    fig, axes = plt.subplots(1, len(hl_values), figsize=(5 * len(hl_values), 4), sharey=True, squeeze=False)
    for ax, hl in zip(axes[0], hl_values):
        for a in order:
            scheme, P = ns.ARMS[a]
            st = SCHEMES["partial" if scheme == "partial-dynamic" else scheme]
            curve = d[(d.hl == hl) & (d.arm == a)][cols].median(skipna=False)   # ends at the first stop
            ax.plot(tt, curve.to_numpy(), color=st.color, marker=st.marker, markevery=max(1, len(tt) // 6), ms=4,
                    ls=":" if scheme == "partial-dynamic" else ("--" if P == 5 else "-"), label=a)
        ax.axhline(target_acc, color="grey", lw=0.8)
        t_ar = np.median(d.loc[(d.hl == hl) & (d.arm == "AR"), "time_to_target_s"].fillna(np.inf))
        marks = [(a, y) for _, a, mhl, y, _ in fig7_marks if mhl == hl and y is not None and a in order]
        if marks and np.isfinite(t_ar):
            for a, y in marks:
                scheme, P = ns.ARMS[a]
                st = SCHEMES["partial" if scheme == "partial-dynamic" else scheme]
                ax.plot([y * t_ar], [target_acc], linestyle="none", marker=st.marker, mfc="none", mec=st.color, ms=9,
                        mew=1.5, zorder=5)
            ax.plot([], [], linestyle="none", marker="o", mfc="none", mec="black", ms=9, mew=1.5,
                    label=f"paper (Table 1 {pr_claims.FIG7_MODEL}, × our AR's time)")
            if any(a == "ER" and y is None for _, a, mhl, y, _ in fig7_marks if mhl == hl):
                ax.annotate("paper: ER never reaches the threshold", (0.02, 0.02), xycoords="axes fraction", fontsize=7)
        ax.set(title=f"HL = {hl}", xlabel="simulated time (s)")
    axes[0][0].set_ylabel("test accuracy (median over trials)")
    axes[0][-1].legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8)
    fig.suptitle(f"002 Fig. 7 analogue: the systems of Table 1, n={n}, {problem}, "
                 + ("default" if setting == "default" else f"paper profile ({PROFILE.label()})"))
    run.save_figure(fig, "pr_fig07_convergence" + ("" if setting == "default" else "_profile"))

# %% [markdown]
# ## Fig. 11: speedup against one worker
# The speedup of a trial is the 1-worker run's time to target divided by the n-worker run's. The same
# seed gives the same trace offsets. A run that never reaches the target within `duration_s` is censored
# there: its speedup is only bounded (below the 1-worker time / `duration_s`), so it is drawn at that
# bound and marked × -- never as 0. The 1-worker baseline replays recorded worker 0 of `pai-job4` (RP14).
# The text gives no number for Fig. 11 (§5.3.2 says only that AR and BK scale worse than partial reduce), so the
# figure carries no "paper" mark, and says so.
# At the paper profile (PR19) the n-worker runs carry its model size (and BK its server's apply time per
# push) with the cap `fig11_profile_duration_s`; the 1-worker baseline has no network and no server, so its
# default runs are the baseline of both.

# %%
from simlib.papers.censoring import bounded_stat, fmt_bound

speedups = {}
for setting, d in frames11.items():
    sp = t1.speedup(d)
    sp["scheme"] = sp["arm"].map({"AR": "allreduce", "BK": "ps-backup", f"PR{fig11_p}": "partial"})
    fig, ax = plt.subplots(figsize=(6, 4))
    sp["bound"] = sp["speedup_hi"].where(np.isfinite(sp["speedup_hi"]), sp["speedup_lo"])   # the finite end
    plotting.plot_min_median_max(ax, sp, x="n", y="speedup", hue="scheme", censored_at="bound")
    ax.set(xlabel="workers n", ylabel="speedup over 1 worker (time to target)",
           title=f"002 Fig. 11 analogue: {fig11_trace} (real trace), P={fig11_p}, BK with n/4 backups"
           + ("" if setting == "default" else f"\npaper profile: {PROFILE.model_mb:g} MB, BK's server "
              f"{PROFILE.server_apply_s:g} s per push (PR19)"))
    if not pr_claims.paper_marks("Fig. 11"):       # §5.3.2 gives no number: say so on the figure
        ax.annotate("paper: no numbers (§5.3.2: AR and BK 'limited', PR 'improved' scalability)", (0.02, 0.97),
                    xycoords="axes fraction", fontsize=7, va="top")
    run.save_figure(fig, "pr_fig11_scalability" + ("" if setting == "default" else "_profile"))
    speedups[setting] = sp.groupby(["arm", "n"]).apply(
        lambda g: fmt_bound(*bounded_stat(g["speedup_lo"], g["speedup_hi"]))).unstack("n")
pd.concat(speedups, names=["setting"])

# %% [markdown]
# ## Statistical efficiency on the stand-in task (RP20)
# Two of §5.2's statements are about statistical efficiency, not speed: Eager-Reduce "cannot achieve
# the convergence thresholds" because of its stale gradients, and dynamic weights "reduce the number
# of needed updates". Before the ledger judges them, the task has to show whether the systems differ
# in how much one update or one local step teaches at all. Three measurements:
#
# 1. **Local steps to the target** (Table 1's runs above, no extra runs): every gradient computed, on
#    all workers, until the target, against all reduce's (synchronous SGD, nothing stale), paired per
#    trial.
# 2. **Stale against fresh gradients**: the schedules of ER, PS ASP and PS HETE replayed twice at
#    `evidence_hls`: as logged (each gradient on the replica its worker last pulled) and with every
#    gradient taken on the global model it is applied to (same schedule, minibatches, step factors
#    and updates; staleness 0). If staleness hurts learning on this task, the fresh replays get there
#    sooner. At the default cluster only.
# 3. **Dynamic against constant weights**: updates to the target, DYN/CON paired per trial.

# %%
from IPython.display import Markdown

from simlib.training import statistical_evidence as se

steps = {k: se.steps_to_target(d) for k, d in frames.items()}
dyn = {k: se.dynamic_vs_constant(d, table_p) for k, d in frames.items()}
extra = ns.evidence_sweeps(spec)      # issue 32's sweeps beyond Table 1: {name: (trial, settings)}


def run_extra(name, desc):
    fn, st = extra[name]
    return run.sweep(fn, st, name=name, trials=extra_trials, desc=desc)


df_st = run_extra("22_pr_staleness", "002 stale vs fresh gradients")
df_st["arm"] = [ns.arm_label(s) for s in df_st["scheme"]]
stale = se.staleness_summary(df_st)
evidence = {k: se.evidence_texts(steps[k], stale if k == "default" else None, dyn[k]) for k in frames}
pd.concat({k: s.set_index(["hl", "arm"])[["local_steps", "steps_vs_ref"]].unstack("arm")
           for k, s in steps.items()}, names=["setting"]).round(2)

# %%
stale.round(3)

# %%
pd.concat({k: d.set_index(["P", "hl"])[["median", "min", "max", "num_smaller", "trials"]] for k, d in dyn.items()},
          names=["setting"]).round(3)

# %%
Markdown("\n\n".join(f"**{k}**: " + "; ".join(f"*{key}*: {txt}" for key, txt in evidence[k].items())
                      for k in frames))

# %% [markdown]
# ## Selective reduce where it can differ: 000's drawn bandwidths (PR17)
# With one bandwidth for every worker, selective reduce's row equals partial reduce's by construction
# (see the end of this notebook). Here the same 8 workers get 000 §IV-A1's bandwidths instead
# (each round(20u, 3) Gbps, u ~ U[0.05, 1], drawn per trial and shared by the arms of a trial), and
# selective reduce (minimum group 3) runs against partial reduce (P = 3) and all reduce at `sr_hls`.

# %%
df_sr = run_extra("22_pr_sr_bandwidths", "002 SR at drawn bandwidths")
df_sr["arm"] = [ns.arm_label(s, p) for s, p in zip(df_sr["scheme"], df_sr["p"])]
sr_obs = t1.selective_drawn(df_sr)
print(sr_obs[0].our_value if sr_obs else "no SR3 and CON3 runs")
summary(df_sr)

# %% [markdown]
# ## Table 1 with 002 §4's group filter (PR18)
# Table 1's runs go without §4's group-frozen avoidance. Here partial reduce's arms run again with it
# on (window T of PR12) at `filter_hls`, with the same seeds, and the Table 1 claims are judged again
# with those runs in place of the filter-off ones.

# %%
df_gf = run_extra("22_pr_group_filter", "002 Table 1 with the group filter")
df_gf["arm"] = [ns.arm_label(s, p) for s, p in zip(df_gf["scheme"], df_gf["p"])]
gf_obs = t1.filter_observation(df, df_gf)
t1.filter_sensitivity(df, df_gf)

# %%
t1.filter_verdicts(df, df_gf)

# %% [markdown]
# ## Momentum 0.9 (RP21)
# 002 trains with momentum 0.9; every run above uses plain SGD (the default, RP21). Here ER, PS ASP and
# PS BSP run again on the same schedules (Table 1's seeds) with momentum `momentum_check` at
# lr · (1 − μ), the same effective step, each replayed as logged and with fresh gradients: does
# momentum change the time to the target, and does staleness matter more with it (the guess
# at why ER never converges in 002)?

# %%
df_m = run_extra("22_pr_momentum", "002 momentum")
df_m["arm"] = [ns.arm_label(s) for s in df_m["scheme"]]
mom_effect = se.momentum_effect(df, df_m)
mom_obs = se.momentum_observation(mom_effect, momentum_check, lr * (1 - momentum_check), lr)
mom_effect.round(3)

# %% [markdown]
# ## Claims (002 §5.2, §5.3.2)
# The rules are in `simlib/papers/partial_reduce/table1_claims.py`. Comparisons are paired per trial,
# and the median ratio decides. "Up to X×" is our largest median over HL, within 10 % of X. "4×" must
# hold within 10 % at every HL. Fig. 11 compares the median speedups at the largest n.

# %%
from simlib.papers.claim import cross_causes, mark_fitted

recorded = cross_causes(t1.table1(df, evidence=evidence["default"]) + t1.fig11(df11, pr=f"PR{fig11_p}"),
                        t1.table1(df_p, cluster=f"002's 8 workers, 10 Gbps, the paper profile: {PROFILE.label()}",
                                  evidence=evidence["profile"])
                        + t1.fig11(df11_p, pr=f"PR{fig11_p}", setting="profile",
                                   cluster=f"n workers, 10 Gbps, the paper profile's {PROFILE.model_mb:g} MB and "
                                           f"{PROFILE.server_apply_s:g} s per push (PR19)"),
                        PROFILE.label(), default_label=DEFAULT.label(),
                        where_holds=pr_profile.committed_where_holds(profile))
recorded += [o for k in frames for o in se.observations(steps[k], stale if k == "default" else None, dyn[k],
                                                        setting=k, target=target_acc)] + sr_obs + gf_obs + mom_obs
recorded = mark_fitted(recorded, pr_profile.FIT_RULE, pr_profile.FITTED_CLAIMS, "002")   # as the ledger marks them (S24)
run.record(recorded)
verdicts = pd.DataFrame([(c.claim, c.setting, c.verdict + (f" ({c.fitted})" if c.fitted else ""))
                         for c in recorded if c.kind == "claim"],
                        columns=["claim", "setting", "verdict"]).pivot(index="claim", columns="setting", values="verdict")
verdicts

# %% [markdown]
# Every comparative verdict's strength (decision S24): the fewest paired trials behind it, per HL the pairs
# above and below 1, and the 95 % interval of the median ratio. A verdict whose interval straddles its
# threshold is *undecided* (S25 ran its arms to up to `trials_cap` trials first); a row marked fitted compares a
# quantity PR16 fitted the profile to, so it is shown but not counted as a hold.

# %%
pd.DataFrame([(c.claim, c.setting, c.verdict, c.fitted, c.pairs, c.interval) for c in recorded
              if c.kind == "claim" and c.interval],
             columns=["claim", "setting", "verdict", "fitted", "pairs", "interval"]).set_index(["claim", "setting"])

# %% [markdown]
# ## Where we disagree with the paper, and why

# %%
from IPython.display import Markdown

failed = [c for c in recorded if c.kind == "claim" and c.holds is False and c.setting == "default"]
failed_p = [c for c in recorded if c.kind == "claim" and c.holds is False and c.setting == "profile"]
judged = [c for c in recorded if c.kind == "claim" and c.setting == "default"]
judged_p = [c for c in recorded if c.kind == "claim" and c.setting == "profile"]
identical, censored_pairs, sr_pairs = t1.identical_pairs(df, "SR3", "CON3")   # a censored pair is no tie (RP17)
cells = steps["default"][steps["default"].arm != "AR"].dropna(subset=["steps_vs_ref"])
fresh_r = pd.concat([stale["time_ratio"], mom_effect.get("fresh_ratio_lo", pd.Series(dtype=float))
                     .where(mom_effect.get("fresh_ratio_lo") == mom_effect.get("fresh_ratio_hi"))]).dropna()
flat = bool(len(fresh_r)) and bool(np.all(np.abs(np.log(fresh_r)) <= np.log(1.1)))
stat_text = (
    f"Statistical efficiency (RP20): on this task every system needs {cells.steps_vs_ref.min():.2f}–"
    f"{cells.steps_vs_ref.max():.2f}× all reduce's local steps to {target_acc:.0%} (paired medians over Table 1's "
    f"runs at the default), and the gradient-rule schedules replayed with fresh gradients reach it in "
    f"{fresh_r.min():.2f}–{fresh_r.max():.2f}× the time they take as logged (with and without momentum). "
    + ("Staleness does not measurably change the learning curve here (every ratio within 10 % of 1), so "
       "the claims that rest on stale gradients hurting -- ER never converging, HETE's staleness-aware win "
       "over ASP -- cannot be shown on this task by any cluster setting." if flat else
       "Staleness changes the learning curve here by more than 10 % in some cells; see the tables above.")
    + " Dynamic weights need " + "; ".join(
        f"{d['median_lo'].min():.2f}–{d['median_hi'].max():.2f}× constant weights' updates at the {k}"
        for k, d in dyn.items() if len(d)) + " (DYN/CON paired medians over P and HL)."
    if len(cells) and len(fresh_r) else "Statistical efficiency (RP20): not measured (no runs reached the target).")
Markdown("\n".join(
    [f"At the default, {sum(c.verdict == 'holds' for c in judged)} of {len(judged)} claims hold and "
     f"{sum(c.verdict == 'undecided' for c in judged)} are undecided; at the paper profile ({PROFILE.label()}), "
     f"{sum(c.verdict == 'holds' and not c.fitted for c in judged_p)} of {len(judged_p)} hold, "
     f"{sum(c.verdict == 'undecided' for c in judged_p)} are undecided and {sum(bool(c.fitted) for c in judged_p)} "
     "are fitted (PR16's targets, not counted). The claims that fail at the default, with the cause each records:", ""]
    + [f"* **{c.claim}**: {c.our_value}. *{c.cause}*" for c in failed]
    + ["", "The claims that fail at the profile:", ""]
    + [f"* **{c.claim}**: {c.our_value}. *{c.cause}*" for c in failed_p]
    + ["", f"{int((df.reached == 0).sum())} of {len(df)} Table 1 runs never reached {target_acc:.0%} within "
       f"{duration_s:g} s (at the profile: {int((df_p.reached == 0).sum())} of {len(df_p)} within "
       f"{profile_duration_s:g} s). A run that never reaches it is censored at the cap, so a paired ratio with "
       "it is a bound (RP17), and the ledger rows say so where it decides them.",
       "", f"Selective reduce equals partial reduce (P = 3) in {identical} of {sr_pairs} paired runs "
       f"({censored_pairs} pairs censored, which count as no tie). This is not "
       "a bug. With one bandwidth for every worker, Alg. 2's gain from waiting for a faster link is 0, so "
       "selective reduce never holds a worker. Its group then forms the moment p workers are ready, which "
       "is the FIFO group of partial reduce, and the schedule logs are identical (no holds, every group "
       "of exactly 3). At 000's drawn bandwidths (PR17): " + (sr_obs[0].our_value if sr_obs else "not run") + ".",
       "", stat_text,
       "",
       "In general the speeds are set by our simulated cluster and the accuracies by a small stand-in task. "
       "The paper's numbers come from CNNs on V100s. On mnist1d, a run's #updates to 45 % depends on how "
       "the gradients are combined, and every run's per-update time depends on how our cluster models a "
       "shared, slow GPU (an HL× slower worker). PS ASP gets a step of lr/n per push (PS6). At the "
       "literal full step it diverged at HL = 1 on this task at lr 0.5."]))
