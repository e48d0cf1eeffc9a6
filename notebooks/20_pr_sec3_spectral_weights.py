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
# # Partial Reduce §3 — spectral gap (Fig. 4) and aggregation weights (Eq. 9)
#
# Seed 002 bounds the convergence of partial reduce through ρ = max(|λ2|, |λN|) of
# E[W_k], the mean synchronization matrix of Eq. (4) (a smaller ρ spreads updates
# faster; ρ = 1 means the groups never connect all workers). Fig. 4: N = 3, P = 2 gives
# ρ = 0.5 when all workers are equally fast and 0.625 when one is 2× slower (group
# frequencies 1/2, 1/4, 1/4). We compute ρ (i) from those frequencies, (ii) from
# schedules our simulator produces for the same two settings, and (iii) for the main
# paper's schemes at its settings: does selective reduce mix better or worse?
# Then the dynamic weights of §3.3 on a worked example.

# %% tags=["parameters"]
profile = "full"                     # "full" or "quick" (tests)
workers = None                       # processes for the sweep (None: all cores)
seed = 0
trials = 20
n_values = [40, 80, 120, 160, 200]   # main-paper cluster sizes for the mixing comparison
duration_s = 100.0
fig4_duration_s = 200.0              # simulated time for the three-worker schedules
ema_alpha = 0.5                      # α of the worked dynamic-weights example

# %%
from simlib.papers.partial_reduce.experiments.mixing import SpectralNotebook
import simlib

# ranges, units, quick values: SpectralNotebook
run = simlib.start(SpectralNotebook, globals(), notebook="20_pr_sec3_spectral_weights")

# %%
from fractions import Fraction

import matplotlib.pyplot as plt
import pandas as pd

from simlib.papers.partial_reduce.claims import FIG4_FREQUENCIES
from simlib.papers.partial_reduce.experiments import mixing
from simlib.papers.partial_reduce.spectral import rho_from_frequencies
from simlib.papers.partial_reduce.weights import dynamic_weights
from simlib.pipeline import plotting, sweep

rho_hom = rho_from_frequencies(FIG4_FREQUENCIES["homogeneous"], 3)
rho_het = rho_from_frequencies(FIG4_FREQUENCIES["heterogeneous"], 3)  # worker 2 is the slow one
print(f"Fig. 4 from the paper's group frequencies: homogeneous rho = {rho_hom:.4f}, heterogeneous rho = {rho_het:.4f}")

# %% [markdown]
# ## ρ of simulated schedules
# Fig. 4's setting run by the simulator: N = 3 workers, P = 2, a 10 Gbps network and
# a tiny model (sync ≈ 3 ms), compute times from the CNN or Transformer trace; "hl = 2"
# makes worker 0 two times slower. And the main paper's three schemes at its §IV settings.

# %%
fig4_settings = sweep.expand_grid(scheme=["partial"], n=[3], p=[2 / 3], hl=[1, 2], trace=["cnn", "transformer"],
                                  bandwidth_gbps=[10.0], model_mb=[1.0], duration_s=[fig4_duration_s])
main_settings = sweep.expand_grid(scheme=["allreduce", "partial", "selective"], n=n_values,
                                  trace=["transformer"], duration_s=[duration_s])
df = run.sweep(mixing.trial, fig4_settings + main_settings, name="20_pr_mixing", desc="rho")
fig4 = df[df.n == 3].groupby(["trace", "hl"])["rho"].agg(["min", "median", "max"])
fig4

# %%
plotting.set_theme()
main = df[df.n != 3]
fig, axes = plt.subplots(1, 2, figsize=(7.5, 2.9))
plotting.plot_min_median_max(axes[0], main, x="n", y="rho", hue="scheme", legend=False)
axes[0].set_ylabel("ρ of E[W] (smaller mixes faster)")
axes[0].set_xlabel("number of workers n")
plotting.plot_min_median_max(axes[1], main, x="n", y="distinct_groups", hue="scheme", legend=False)
axes[1].set_ylabel("distinct groups in 100 s")
axes[1].set_xlabel("number of workers n")
fig.suptitle("Mixing of the main paper's schemes (Transformer trace, 000 §IV settings)")
fig.tight_layout()
plotting.figure_legend(fig)
run.save_figure(fig, "pr_rho_schemes")
main.groupby(["n", "scheme"])["rho"].median().unstack().round(3)

# %% [markdown]
# ## Dynamic weights (§3.3.3), worked example
# A group with iteration numbers (5, 4, 2), α = 0.5: relative numbers k̂ = (1, 2, 4),
# K = 4, and Eq. (9)'s bias-corrected EMA weights over versions k̂ = 1..4 are
# (1−α)α^{k̂−1}/(1−α^K) = 8/15, 4/15, 2/15, 1/15. Version k̂ = 3 is held by nobody: its
# weight goes to "the initial model x_1" (the paper's conservative approximation). Read
# literally (`initial`: the training initialization) that gives 8/15, 4/15, 1/15 and
# 2/15 to x_1; our default reading (`oldest`, decision PR13: x_1 is the first version of
# the group's window, its stalest model) gives 8/15, 4/15, 3/15; `closest` is the paper's
# named alternative. Notebook 21 shows what each does to training.

# %%
rows = []
for its in [(5, 4, 2), (5, 5, 2), (7, 7, 7), (10, 9, 1)]:
    for missing in ("initial", "closest"):
        ws, w0 = dynamic_weights(its, alpha=ema_alpha, missing=missing)
        rows.append({"iterations": its, "missing": missing,
                     "weights": tuple(str(Fraction(float(w)).limit_denominator(1000)) for w in ws),
                     "w_init": str(Fraction(float(w0)).limit_denominator(1000))})
weights_table = pd.DataFrame(rows)
weights_table

# %% [markdown]
# ## Claims
# The rules (`simlib/papers/partial_reduce/claims.py`): values from the paper's own group
# frequencies and Eq. (9) must match exactly; simulated ρ within 10 % of the paper's; the
# mixing of the main paper's schemes is an observation (`simlib/papers/cluster_claims.py`).

# %%
from simlib.papers import cluster_claims
from simlib.papers.partial_reduce import claims as pr_claims

run.record(pr_claims.fig4_and_weights(df) + cluster_claims.scheme_mixing(df))
