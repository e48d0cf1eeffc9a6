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
# # SelMcast §IV-C1 — SSP case study (Fig. 7)
#
# n = 50 workers on one big switch train for 10 minutes under SSP (ssp = 4). Each
# worker computes an iteration (LSTM, Transformer or ResNet-50 trace, stand-ins rescaled
# to a 1 s mean), then multicasts its 200 MB model over L3 multicast and waits for it to
# finish; egress b̄(1+λx), ingress b̄μ(1+λx), b̄ = 40 Gbps, λ = 0.5, μ = 1. Receivers are
# chosen by **SelMcast** (Algorithm 2, re-planned preemptively whenever a worker becomes
# ready) or **Orpheus** (p random receivers after the workers not reached in the last k = 4
# rounds); p = 0.3n, η = 0.75. Links are shared by per-flow max-min, as §IV-A1 states for
# every experiment (decision SM50, the ledger's `default` setting); SelMcast under strict
# priority in Algorithm 2's order (§III-C2's "strict prioritized" allocation, SM50's reading,
# the ledger's `priority` setting) is run beside it, and so is τ ≡ 0 (SM51) under both, to
# show what the stand-in traces contribute. 10 trials per setting; the paper reports means. Where a
# verdict's 95 % interval straddles its threshold (S24), the settings it reads run 5 more paired trials,
# up to 40 (S25); the line under the sweep says how far it went.
# Schemes are paired: trial t of both uses the same bandwidths and per-worker compute draws.
# Decisions: `docs/decisions/selmcast_ssp.md`.

# %% tags=["parameters"]
profile = "full"                         # "full" (paper fidelity) or "quick" (tests)
workers = None                           # processes for the sweep (None: all cores)
seed = 0                                 # root seed
trials = 10                              # trials per setting (paper: 10) ...
trials_step = 5                          # S25: ... 5 more for the settings of a verdict whose interval straddles ...
trials_cap = 40                          # ... up to 40; still straddling there, it is "undecided at 40 trials"
n = 50
traces = ["lstm", "transformer", "cnn"]  # built-in names or CSV paths
duration_s = 600.0
p = 0.3                                  # receivers: ceil(p n)
model_mb = 200.0
bbar_gbps = 40.0
lam = 0.5
mu = 1.0
ssp = 4                                  # None: no SSP gate
k = 4                                    # None: requirement removed
eta = 0.75
layer = "L3"

# %%
from simlib.papers.selmcast.ssp_experiments import SSPFig7Notebook
import simlib

# ranges, units, quick values: SSPFig7Notebook
run = simlib.start(SSPFig7Notebook, globals(), notebook="43_selmcast_ssp_fig7_case_study")

# %%
import matplotlib.pyplot as plt
import numpy as np

from simlib.papers.selmcast import ssp_claims, ssp_experiments as ex
from simlib.papers.selmcast.ssp_scenario import p_count, run_trial
from simlib.pipeline import plotting, sweep
from simlib.pipeline.decide import run_until_decided

fixed = dict(n=[n], duration_s=[duration_s], p=[p], model_mb=[model_mb], bbar_gbps=[bbar_gbps], lam=[lam],
             mu=[mu], ssp=[ssp], k=[k], eta=[eta], layer=[layer])
# Orpheus once (it runs max-min under either reading); SelMcast at both readings (SM50), each with
# tau estimated from the trace (SM51) and with tau = 0
settings = ex.validate_settings(
    sweep.expand_grid(trace=traces, scheme=["orpheus"], sharing=["maxmin"], tau_estimate=["trace"], **fixed)
    + sweep.expand_grid(trace=traces, scheme=["selmcast"], sharing=["maxmin", "priority"],
                        tau_estimate=["trace", "zero"], **fixed))


def judge(d):
    """Fig. 7's verdicts at both readings (the runs with tau from the trace, SM51)."""
    d = d[d.tau_estimate == "trace"]
    return [c for sh, st in ssp_claims.SETTINGS.items() for c in ssp_claims.fig7(ssp_claims.reading(d, sh), setting=st)]


# S25: the settings a straddling verdict reads get 5 more trials, up to the cap (trials run before: the cache)
runs_all = run_until_decided(run, run_trial, settings, name="43_selmcast_ssp_fig7", desc="Fig. 7", judge=judge,
                             open_settings=ssp_claims.open_settings, start=trials, step=trials_step, cap=trials_cap)
tau0 = runs_all[runs_all.tau_estimate == "zero"]
frames = {sh: ssp_claims.reading(runs_all[runs_all.tau_estimate == "trace"], sh) for sh in ssp_claims.SETTINGS}
df = frames["maxmin"]
cols = ["npu_utilization", "avg_scale", "avg_scale_initial", "rounds_per_worker", "preempted_share",
        "drops_per_multicast", "blocked_share", "avg_multicast_s"]
table = ex.means(df, ["trace", "scheme"], cols)
ex.means(runs_all, ["scheme", "sharing", "tau_estimate", "trace"], cols).round(3)

# %%
plotting.set_theme()
fig, axes = plt.subplots(1, 2, figsize=(7.0, 2.8))
order = [t for t in ex.TRACE_ORDER if t in traces] + [t for t in traces if t not in ex.TRACE_ORDER]
xpos = np.arange(len(order))
for ax, metric, label in ((axes[0], "npu_utilization", "average NPU utilization"),
                          (axes[1], "avg_scale", "average multicast scale")):
    for off, scheme in ((-0.2, "orpheus"), (0.2, "selmcast")):
        d = df[df.scheme == scheme].groupby("trace")[metric]
        mean = d.mean().reindex(order)
        ax.bar(xpos + off, mean, width=0.4, label=scheme,
               yerr=[mean - d.min().reindex(order), d.max().reindex(order) - mean], capsize=3)
        # the paper's values (§IV-C1), from the constants the claims judge (ssp_claims.paper_marks)
        marks = {t: y for t, m, s, _, y in ssp_claims.paper_marks(7) if m == metric and s == scheme}
        ax.scatter(xpos + off, [marks.get(t, np.nan) for t in order], marker="D", s=18, color="k", zorder=3,
                   label="paper" if scheme == "orpheus" else None)
    ax.set_xticks(xpos, order)
    ax.set_ylabel(label)
axes[0].legend()
fig.suptitle("Fig. 7: SSP case study (mean over trials, min–max bars)")
fig.tight_layout()
run.save_figure(fig, "selmcast_ssp_fig07_case_study")

# %% [markdown]
# ## Claims (004 §IV-C1)
# "it not only enlarges the average normalized scale of multicast from 0.3 to 0.55, but
# also improves the average utilization of computation resources from about 0.63, 0.65,
# and 0.64 to about 0.68, 0.70, and 0.70" (LSTM / Transformer / ResNet-50), and Orpheus's
# scale "might be larger than the default value of 0.3" for Transformer and ResNet-50.
# `ssp_claims.fig7` judges each claim's direction on every trace and, where the paper gives
# a number, its magnitude: a plain value within 10 %, an "about" value within 15 %
# (decision SM70); a verdict that fails names its cause.

# %%
run.record([c for sh, d in frames.items() for c in ssp_claims.fig7(d, setting=ssp_claims.SETTINGS[sh])])

# %%
print("utilization (orpheus -> selmcast):", ex.triplet(table.xs("orpheus", level="scheme")["npu_utilization"].to_dict()),
      "->", ex.triplet(table.xs("selmcast", level="scheme")["npu_utilization"].to_dict()))
print("scale (orpheus -> selmcast):", ex.triplet(table.xs("orpheus", level="scheme")["avg_scale"].to_dict()),
      "->", ex.triplet(table.xs("selmcast", level="scheme")["avg_scale"].to_dict()))
print("SelMcast preempted share / drops per multicast:",
      ex.triplet(table.xs("selmcast", level="scheme")["preempted_share"].to_dict()), "/",
      ex.triplet(table.xs("selmcast", level="scheme")["drops_per_multicast"].to_dict()))
for sh in ("priority",):
    pt = ex.means(frames[sh], ["trace", "scheme"], cols).xs("selmcast", level="scheme")
    print(f"SelMcast under {sh}: scale {ex.triplet(pt['avg_scale'].to_dict())}, utilization "
          f"{ex.triplet(pt['npu_utilization'].to_dict())}, drops per multicast {ex.triplet(pt['drops_per_multicast'].to_dict())}")
for sh in ("maxmin", "priority"):
    z = ex.means(tau0[tau0.sharing == sh], ["trace"], ["avg_scale", "npu_utilization"])
    print(f"SelMcast with tau = 0 ({sh}): scale {ex.triplet(z['avg_scale'].to_dict())}, utilization "
          f"{ex.triplet(z['npu_utilization'].to_dict())}")
p_recv = p_count(p, n)  # receivers per multicast; p_recv / n is Orpheus's scale without the k rule
print(f"Orpheus: p = {p_recv} receivers of {n - 1} peers per multicast (p/n = {p_recv / n:.2f})")
if k is not None:
    miss = ((n - 1 - p_recv) / (n - 1)) ** k
    print(f"a given peer is missed by {k} consecutive random rounds with probability "
          f"({n - 1 - p_recv}/{n - 1})^{k} = {miss:.2f}: about {miss * (n - 1):.1f} of the {n - 1} peers "
          "are due per multicast")

# %% [markdown]
# ## Where we disagree, and why
# The printed numbers above are the measured ones (figure and `default` rows: max-min; the
# `priority` rows: SM50's reading). Measured with the full profile (600 s, n = 50; 5 seeds
# while writing this, the ledger holds the 10-trial values):
# * **Max-min (default)**: SelMcast's scale 0.57/0.55/0.46 against the paper's 0.55 — within
#   10 % on LSTM and Transformer, 17 % short on ResNet-50 — and utilization 0.58/0.65/0.67 →
#   0.59/0.69/0.78 (within 15 % of the "about" values). The per-trace spread of the scale is
#   the **stand-in traces'** (T1): τ_i is estimated from the trace's shape (SM51), and a worker
#   that will wait at the SSP gate anyway may add receivers; the heavy-tailed LSTM stand-in has
#   many stragglers, the tight ResNet-50 one few. With τ ≡ 0 (the rows above) the three traces
#   give the same scale, 0.46/0.46/0.45, as the paper's three nearly do — so the remaining
#   shortfall against 0.55 at τ ≡ 0 is not the traces'.
# * **Priority (SM50's reading)**: the scale falls to 0.44/0.41/0.39: the multicasts queued
#   behind the first few send nothing, so every re-plan at a ready event drops their extra
#   receivers (10–11 drops per multicast against 3–5 under max-min).
# * Under the SSP gate with fixed heterogeneous bandwidths, workers with slow ports fall
#   behind and the fast ones wait at the gate (`blocked_share`), which caps utilization for
#   both schemes. Our Orpheus rarely exceeds p/n: a sender misses a given peer in k
#   consecutive random rounds only with the small probability printed above, so the peers
#   due per multicast are fewer than p.
