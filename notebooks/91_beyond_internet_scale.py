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
# # Beyond the papers — selective reduce at internet scale (n = 1,000 … 10,000)
#
# The main paper (seed 000) evaluates selective reduce on at most n = 200 workers; its
# §IV conclusions are that, against partial reduce, selective reduce synchronizes
# faster (average sync time), in larger groups (average sync scale) and so finishes
# more local iterations (total iteration), with all reduce far behind. None of the
# papers can say whether this survives at 1,000–10,000 workers; the simulator now can
# (issue 9). Same setting as §IV otherwise: 100 s of training on the Transformer trace
# (mean 1 s), bandwidths round(20u, 3) Gbps with u ~ U[0.05, 1], α = 1 ms, v = 500 MB,
# p = 0.3n, η = 0.3, θ = 1, Δt = 0.1 s. Schemes are compared *paired* (trial t of
# every scheme sees the same bandwidths and compute-time draws).
#
# The sweep runs on Dask when `DASK_SCHEDULER_ADDRESS` is set, else on local
# processes, with a per-trial progress bar. Full profile: 5 trials × 4 sizes × 3
# schemes (the cost on this 2-core machine is printed by the sweep's progress bar and
# kept in data/measurements/91_beyond_internet_scale_times.csv).

# %% tags=["parameters"]
profile = "full"                        # "full" or "quick" (tests)
workers = None                          # processes for the sweep (None: all cores)
seed = 0
trials = 5
n_values = [1000, 2000, 5000, 10000]
n_largest = 100000
largest_trials = 1
trace = "transformer"
duration_s = 100.0
p = 0.3
eta = 0.3
theta = 1.0
dt_s = 0.1
lam = 0.05
alpha_s = 0.001
model_mb = 500.0

# %%
from simlib.papers.beyond_notebooks import InternetScaleNotebook
import simlib

# ranges, units, quick values: the spec
run = simlib.start(InternetScaleNotebook, globals(), notebook="91_beyond_internet_scale")
n_values = sorted(n_values)

# %%
import time

import pandas as pd

from simlib.papers import analysis
from simlib.papers.selective_reduce import claims as sr_claims
from simlib.pipeline import plotting, sweep

settings = sweep.expand_grid(n=n_values, scheme=["allreduce", "partial", "selective"], trace=[trace],
                             duration_s=[duration_s], p=[p], eta=[eta], theta=[theta], dt_s=[dt_s], lam=[lam],
                             alpha_s=[alpha_s], model_mb=[model_mb])
t0 = time.perf_counter()
df = run.scenarios(settings, name="91_beyond_internet_scale", desc="internet scale")
# the sweep's wall time is a measurement (decision S26): it goes to the run's measurements folder
sweep_s = time.perf_counter() - t0
print(f"sweep: {len(df)} trials (its wall time: {run.measurement_file('91_beyond_internet_scale_times')}; "
      "cached trials are not re-run)")
metrics = ["avg_sync_time_s", "avg_sync_scale", "total_iteration", "total_sync"]
df.groupby(["n", "scheme"])[metrics].median().round(3)

# %%
plotting.set_theme()
fig = plotting.metric_panels(df, x="n", metrics=metrics, xlabel="number of workers n",
                             title=f"Selective vs partial vs all reduce at scale ({trace} trace, 100 s)")
for ax in fig.axes:
    ax.set_xscale("log")
_ = run.save_figure(fig, "beyond_internet_scale")

# %% [markdown]
# ## Paired ratios, selective vs partial reduce (median over trials at each n)
# Sync time as partial ÷ selective (> 1: selective is faster), scale and total iteration
# as selective ÷ partial (> 1: selective is larger). Scale is also shown as a fraction of n.

# %%
ratios = {}
for metric, (_, _, num, den, _) in sr_claims.FIGS5_6_RANGES.items():
    ratios[metric] = analysis.paired_ratio(df, metric, by=["n"], num=num, den=den)
    print(f"{metric}: {num}/{den}")
    print(ratios[metric].round(3).to_string(index=False))
med = df.groupby(["scheme", "n"])[metrics].median()
scale_frac = (med["avg_sync_scale"] / med.index.get_level_values("n")).unstack("n").round(3)
print("average sync scale / n:")
print(scale_frac.to_string())

# %% [markdown]
# ## Do the §IV conclusions hold at scale?
# The paper claims nothing beyond n = 200, so these are *observations* (no verdicts): for
# each §IV-B1 comparison, the range over n of the median paired ratio, whether selective
# reduce is better at every n, and the trend over n
# (`simlib/papers/selective_reduce/claims.py: internet_scale`).

# %%
run.record(sr_claims.internet_scale(df))

# %% [markdown]
# ## What changes with scale
# The sentences below are printed from the results.

# %%
def describe(metric, what):
    r = ratios[metric].sort_values("n")
    first, last = r.iloc[0], r.iloc[-1]
    return (f"{what}: {first['median']:.2f}× at n = {int(first['n']):,} → {last['median']:.2f}× at "
            f"n = {int(last['n']):,} (min–max over trials at the largest n {last['min']:.2f}–{last['max']:.2f}×)")


print("*", describe("avg_sync_time_s", "SR's sync-time advantage (PR ÷ SR)"))
print("*", describe("avg_sync_scale", "SR's scale advantage (SR ÷ PR)"))
print("*", describe("total_iteration", "SR's iteration advantage (SR ÷ PR)"))
sf = scale_frac
print(f"* SR's groups hold {sf.loc['selective'].min():.0%}–{sf.loc['selective'].max():.0%} of the cluster "
      f"(PR: exactly p = {p:.0%}); AR: every worker.")
per_worker = (med["total_iteration"] / med.index.get_level_values("n")).unstack("n")
print("* local iterations per worker in 100 s:")
print(per_worker.round(2).to_string())

# %% [markdown]
# ## Why the sync-time gain shrinks: Eq. (2)'s latency term
# A ring all-reduce of g workers costs 2(g − 1)α + 2(g − 1)/g · v / min b (Eq. 2). The
# bandwidth term is what selective reduce optimizes (bandwidth-aware groups); the
# latency term grows linearly with the group size, which is p = 0.3n or more. The
# table gives, per scheme and n, the share of the median average sync time that the
# latency term of a group of the median average scale accounts for, and the
# bandwidth term left over (s). As n grows the latency share takes over: selective
# reduce keeps its bandwidth term far below partial reduce's, but that term becomes a
# minority of its sync time, so the ratio of whole sync times falls.
# Total iteration gains shrink too: 100 s are only a few iterations per worker at
# n = 10,000 (printed above), so the run is mostly the start-up transient in which
# the queue first fills to p.

# %%
lat = 2 * (med["avg_sync_scale"] - 1) * alpha_s
share = (lat / med["avg_sync_time_s"]).unstack("n")
rest = (med["avg_sync_time_s"] - lat).unstack("n")
print("latency term 2(g-1)α / average sync time:")
print(share.round(2).to_string())
print("average sync time minus the latency term (s):")
print(rest.round(2).to_string())

# %% [markdown]
# ## n = 100,000: selective reduce beside partial reduce
# The controller's pass no longer visits every worker in training on every round (decision E21 in
# docs/decisions/selective_reduce_experiments.md), so a 100 s run of selective reduce at n = 100,000
# costs about what partial reduce's does. Same settings, `largest_trials` paired trials (one by
# default: it shows the scale, it is not a verdict, and no claim is recorded from it).

# %%
big = sweep.expand_grid(n=[n_largest], scheme=["partial", "selective"], trace=[trace], duration_s=[duration_s],
                        p=[p], eta=[eta], theta=[theta], dt_s=[dt_s], lam=[lam], alpha_s=[alpha_s],
                        model_mb=[model_mb])
t0 = time.perf_counter()
df_big = run.scenarios(big, name="91_beyond_internet_scale_largest", trials=largest_trials,
                       desc=f"n = {n_largest:,}")
big_s = time.perf_counter() - t0
run.save_measurements(pd.DataFrame({"sweep": ["internet scale", f"n = {n_largest:,}"], "runs": [len(df), len(df_big)],
                                    "wall_s": [round(sweep_s, 1), round(big_s, 1)]}),
                      "91_beyond_internet_scale_times")
print(f"n = {n_largest:,}: {len(df_big)} trials "
      f"(its wall time: {run.measurement_file('91_beyond_internet_scale_times')}; cached trials are not re-run)")
print(df_big.groupby("scheme")[metrics + ["controller_rounds"]].median().round(3).to_string())
for metric, (_, _, num, den, _) in sr_claims.FIGS5_6_RANGES.items():
    r = analysis.paired_ratio(df_big, metric, by=["n"], num=num, den=den)
    print(f"{metric} {num}/{den}: median {r['median'].iloc[0]:.3f} over {largest_trials} trial(s)")
