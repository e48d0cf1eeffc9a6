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
# # Selective Reduce §IV-B1 — CNN and Transformer traces (Figs. 5, 6, 7)
#
# n workers on one switch train for 100 s; per-iteration compute times come from the
# CNN or Transformer trace (synthetic stand-ins of the eager-SGD Fig. 1 shapes, mean
# 1 s: see `data/README.md`); bandwidths round(20u, 3) Gbps with u ~ U[0.05, 1];
# α = 1 ms; v = 500 MB; p = 0.3n, η = 0.3, θ = 1; Δt = 0.1 s (our choice, see
# decision E2). Each setting runs 20 trials; plots show the median with a min–max band.
# Schemes are compared *paired*: trial t of every scheme uses the same bandwidths
# and the same per-worker compute-time draws.

# %% tags=["parameters"]
profile = "full"                        # "full" (paper fidelity) or "quick" (tests)
workers = None                          # processes for the sweep (None: all cores)
seed = 0                                # root seed
trials = 20                             # trials per setting
n_values = [40, 80, 120, 160, 200]      # cluster sizes
traces = ["cnn", "transformer"]         # built-in names or CSV paths
duration_s = 100.0
p = 0.3
eta = 0.3
theta = 1.0
dt_s = 0.1
lam = 0.05
alpha_s = 0.001
model_mb = 500.0

# %%
from simlib.papers.selective_reduce.experiments.figures import Fig5to7Notebook
import simlib

# ranges, units, quick values: Fig5to7Notebook
run = simlib.start(Fig5to7Notebook, globals(), notebook="11_sr_fig5-7_traces")

# %%
import matplotlib.pyplot as plt

from simlib.papers.selective_reduce import claims as sr_claims
from simlib.papers.selective_reduce import profile as sr_profile
from simlib.papers.selective_reduce.experiments import suite
from simlib.pipeline import plotting, sweep

settings = sweep.expand_grid(trace=traces, n=n_values, scheme=["allreduce", "partial", "selective"],
                             duration_s=[duration_s], p=[p], eta=[eta], theta=[theta], dt_s=[dt_s],
                             lam=[lam], alpha_s=[alpha_s], model_mb=[model_mb])
# the grid at every judged setting: the default, the paper profile where it differs from the default
# (decision E18), Δt's reading (E19); all reduce's and partial reduce's runs read neither Δt nor the
# profile's settings, so the trial cache serves them once
judged = suite.judged_settings()
frames = {s: run.scenarios(settings if s == "default" else sr_profile.at_profile(settings, prof),
                           name=suite.result_name("11_sr_fig5-7", s), desc=f"Figs 5-7 ({s})")
          for s, prof in judged.items()}
df = frames["default"]
df.groupby(["trace", "n", "scheme"])[["avg_sync_time_s", "avg_sync_scale", "total_iteration",
                                      "total_sync"]].median().round(3)

# %%
plotting.set_theme()
metrics = ["avg_sync_time_s", "avg_sync_scale", "total_iteration", "total_sync"]
for trace, fig_no in (("cnn", 5), ("transformer", 6)):
    if trace not in traces:
        continue
    fig = plotting.metric_panels(df[df.trace == trace], x="n", metrics=metrics, xlabel="number of workers n",
                                 title=f"Fig. {fig_no}: {trace} trace")
    run.save_figure(fig, f"sr_fig{fig_no:02d}_{trace}")

fig, axes = plt.subplots(1, len(traces), figsize=(3.4 * len(traces), 2.8), squeeze=False)
for ax, trace in zip(axes.flat, traces):
    d = df[df.trace == trace].assign(wasted_ms=lambda x: 1e3 * x.wasted_wait_s_per_worker)
    plotting.plot_min_median_max(ax, d, x="n", y="wasted_ms", hue="scheme", legend=False)
    ax.set_title(trace)
    ax.set_xlabel("number of workers n")
    ax.set_ylabel("wasted wait per worker (ms)")
    ax.axhline(1e3 * 1e-4 * duration_s, color="0.4", ls=":", label="paper: < 0.01 % of the run")
fig.suptitle("Fig. 7: wasted wait time")
fig.tight_layout()
plotting.figure_legend(fig)
run.save_figure(fig, "sr_fig07_wasted_wait")

# %% [markdown]
# ## Paired ratios, selective vs partial reduce (median over trials at each n)

# %%
ratios = sr_claims.figs5_6_ratios(df)
for metric, r in ratios.items():
    num, den = sr_claims.FIGS5_6_RANGES[metric][2:4]
    print(f"{metric}: {num}/{den}")
    print(r.round(3).to_string(index=False))

# %%
# the paper's "up to" ranges (§IV-B1) as bands beside our paired ratios, at every judged setting
ratios_at = {s: sr_claims.figs5_6_ratios(f) for s, f in frames.items()}
fig, axes = plt.subplots(1, 3, figsize=(10.5, 3.0))
for ax, (metric, (lo, hi, num, den, claim)) in zip(axes, sr_claims.FIGS5_6_RANGES.items()):
    ax.axhspan(lo, hi, color="0.85", label="paper: up to")
    for (setting, frame), style in zip(ratios_at.items(), ("-", "--", ":")):
        for trace, marker in zip(traces, "os"):
            r = frame[metric][frame[metric].trace == trace]
            ax.plot(r.n, r["median"], style, marker=marker, color=plotting.SCHEME_COLORS["selective"],
                    label=f"{trace}, {setting}")
    ax.axhline(1.0, color="0.5", lw=0.8)
    ax.set(xlabel="number of workers n", ylabel=f"{num}/{den} (median)", title=claim.removeprefix("SR vs PR: "))
axes[0].legend(fontsize=7)
fig.suptitle("Figs. 5–6: selective reduce's gain over partial reduce vs the paper's ranges")
fig.tight_layout()
run.save_figure(fig, "sr_fig05-06_gains")

# %% [markdown]
# ## Claims (000 §IV-B1)
# The paper: compared with partial reduce, selective reduce improves average sync time,
# average sync scale and total iteration by up to 1.89–2.55×, 1.19–1.25× and
# 1.1–1.17× (decision E12: each range is the spread over the two traces of the largest
# improvement over n). Two verdicts per range: *direction* — selective reduce is better
# at every n on both traces; *magnitude* — our range overlaps the paper's. The text's
# trends over n and Fig. 7's bound on wasted wait follow; every rule is in
# `simlib/papers/selective_reduce/claims.py: figs5_7`. Each claim is judged at every setting of
# `suite.judged_settings()` (decision S19): our defaults (Δt = 0.1 s, the stand-ins' 1 s mean), the
# paper profile where it differs from them (E18; at 20 trials it does not: the baselines cannot tell
# the candidates apart) and Δt's reading (E19, ledger setting `dt reading`). A verdict failing at one
# setting and holding at another names the other as its cause; one failing at all of them cites
# where notebook 16's search found it holding, or that it found it holding nowhere.

# %%
run.record(suite.cross_settings({s: sr_claims.figs5_7(f) for s, f in frames.items()}, profile=profile))

# %% [markdown]
# ## Where we disagree, and why
# The numbers behind this discussion, from this run's results:

# %%
t_ratio = ratios["avg_sync_time_s"].set_index(["trace", "n"])["median"]
it_ratio = ratios["total_iteration"].set_index(["trace", "n"])["median"]
med_ms = 1e3 * df[df.scheme == "selective"].groupby(["trace", "n"])["wasted_wait_s_per_worker"].median()
for trace in traces:
    ns = sorted(t_ratio.loc[trace].index)
    print(f"{trace}: PR/SR sync-time ratio {t_ratio.loc[(trace, ns[0])]:.2f}× at n={ns[0]} → "
          f"{t_ratio.loc[(trace, ns[-1])]:.2f}× at n={ns[-1]} (paper: up to 1.89–2.55×); "
          f"SR/PR total iteration {it_ratio.loc[trace].min():.2f}–{it_ratio.loc[trace].max():.2f}× "
          "(paper: up to 1.1–1.17×)")
    w = med_ms.loc[trace]
    print(f"{trace}: SR wasted wait per worker, median {w.min():.1f}–{w.max():.1f} ms "
          f"(largest at n={w.idxmax()}: {w.max() / 1e3 / duration_s:.3%} of the run; paper: < 0.01%)")

# %% [markdown]
# * **Directions agree**: selective reduce has shorter, larger syncs and more iterations at
#   every n (the claims above say where), and the scale gain overlaps the paper's range. The
#   sync-time gain starts inside the paper's range at the smallest n but keeps growing with n.
# * **Magnitudes of sync time and total iteration are larger than the paper's** (cause:
#   stand-in trace). Our runs are sync-bound: a 500 MB all-reduce at 1–20 Gbps takes seconds
#   while the stand-in traces have a 1 s mean compute time (decision E6; the paper never
#   states its traces' scale). Every second selective reduce saves in sync becomes
#   iterations. Notebook 15 rescales the traces: both gains shrink as compute times
#   lengthen, the total-iteration gain reaching the paper's range at a 5 s mean (E17).
# * **Trends over n**: AR's and PR's sync times grow and their iterations grow sub-linearly,
#   as the paper says, and selective reduce's total sync falls; but selective reduce's own
#   sync time *grows* with n (the paper: it "even decreases"; Eq. (2)'s latency term
#   explains about a third of the rise, the claim's cause says how much), and its iteration
#   gain grows with n where our reading (E16) of a garbled sentence says it shrinks.
# * **Wasted wait** stays at a few ms on the Transformer trace for the larger clusters but
#   exceeds the paper's 0.01 % at the smallest n (printed above); it is about 0 on the tight
#   CNN trace, where BPAWR rarely predicts useful arrivals. Our definition (E5) counts a hold
#   as wasted unless a newcomer joins the worker's group; the paper gives no exact definition.
