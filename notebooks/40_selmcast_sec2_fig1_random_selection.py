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
# # SelMcast §II-C — random receiver selection rarely balances the load (Fig. 1)
#
# Orpheus lets every one of n workers multicast to p receivers chosen uniformly at random.
# A given worker is then chosen by m of the other n − 1 senders with the binomial
# probability of Eq. (1); the load is balanced only when m = p. We plot Pr(m = p) for
# n = 200 over p = 1, …, n − 1 from Eq. (1), next to the empirical frequency from
# simulated BSP rounds of random selection (`simlib.papers.selmcast.orpheus.orpheus_bsp`):
# each trial pools `rounds` independent rounds; the band is min–max over trials.

# %% tags=["parameters"]
profile = "full"            # "full" (paper fidelity) or "quick" (tests)
workers = None              # processes for the sweep (None: all cores)
seed = 0                    # root seed
trials = 10                 # trials per p
n = 200                     # workers
p_step = 4                  # simulate p in 1, 1 + p_step, ..., and n - 1 (Eq. (1) is drawn at every p)
rounds = 10                 # random-selection rounds pooled per trial

# %%
from simlib.papers.selmcast.experiments import Fig1Notebook
from simlib.pipeline.params import notebook_params

globals().update(notebook_params(Fig1Notebook, globals()))   # ranges, units, quick values: Fig1Notebook

# %%
import matplotlib.pyplot as plt
import numpy as np

from simlib.pipeline import paths
from simlib.papers.selmcast.experiments import pr_balanced, random_selection_trial
from simlib.pipeline import claims, plotting, sweep
from simlib.pipeline.runs import run_notebook_sweep

p_all = np.arange(1, n)
settings = sweep.expand_grid(n=[n], p=sorted(set(range(1, n, p_step)) | {n - 1}), rounds=[rounds])
df = run_notebook_sweep(random_selection_trial, settings, trials=trials, seed=seed, name="40_selmcast_fig1",
                        profile=profile, workers=workers, desc="Fig. 1")
df.groupby("p")[["pr_empirical", "pr_eq1"]].mean().head(12).round(4)

# %%
plotting.set_theme()
fig, ax = plt.subplots(figsize=(4.2, 2.8))
plotting.plot_min_median_max(ax, df.assign(series="simulated"), x="p", y="pr_empirical", hue="series")
ax.plot(p_all, pr_balanced(n, p_all), color="#000000", lw=1.0, zorder=5, label="Eq. (1)")
ax.axhline(0.1, color="grey", lw=0.8, ls=":")
ax.set_xlabel("p (receivers per multicast)")
ax.set_ylabel("Pr(m = p)")
ax.set_title(f"Fig. 1: n = {n}")
ax.legend()
fig.tight_layout()
plotting.save_figure(fig, "selmcast_fig01_pr_balanced", figures_dir=paths.FIGURES)

# %% [markdown]
# ## Claims (004 §II-C)
# Pr(1) ≈ 0.37 for n = 200, and Pr(m = p) < 0.1 exactly for p in [18, 181]. Both are
# properties of Eq. (1); the simulation checks that random selection follows Eq. (1):
# we report the largest gap between the pooled empirical frequency and Eq. (1).

# %%
pr = pr_balanced(n, p_all)
below = p_all[pr < 0.1]
lo, hi = (int(below.min()), int(below.max())) if below.size else (0, 0)   # (0, 0): Pr >= 0.1 at every p
contiguous = below.size == hi - lo + 1 if below.size else False
mean_emp = df.groupby("p")["pr_empirical"].mean()
gap = float(np.abs(mean_emp.values - pr_balanced(n, mean_emp.index.values)).max())
print(f"Pr(1) = {pr[0]:.4f}; Pr < 0.1 for p in [{lo}, {hi}] (contiguous: {contiguous}); "
      f"min Pr = {pr.min():.4f} at p = {int(p_all[pr.argmin()])}; "
      f"largest |simulated - Eq. (1)| = {gap:.4f} over {trials} x {rounds} rounds per p")
if n == 200:   # the paper's setting: its two numbers are claims
    claims.record_claim(paper="004", figure="Fig. 1", claim="Pr(m = p) at p = 1, n = 200",
                        paper_value="≈ 0.37", our_value=f"{pr[0]:.4f}", holds=bool(abs(pr[0] - 0.37) < 0.005),
                        note=f"Eq. (1); simulated random selection within {gap:.3f} of Eq. (1) at every p")
    claims.record_claim(paper="004", figure="Fig. 1", claim="Pr(m = p) < 0.1 for p in [18, 181], n = 200",
                        paper_value="[18, 181]", our_value=f"[{lo}, {hi}]" + ("" if contiguous else " (not contiguous)"),
                        holds=bool(contiguous and (lo, hi) == (18, 181)), note="Eq. (1)")
else:          # another n: the same quantities, as observations
    claims.record_observation(paper="004", figure="Fig. 1", claim=f"Pr(m = p) at p = 1, n = {n}",
                              our_value=f"{pr[0]:.4f}", note=f"Eq. (1); simulated within {gap:.3f}")
    claims.record_observation(paper="004", figure="Fig. 1", claim=f"p with Pr(m = p) < 0.1, n = {n}",
                              our_value=f"[{lo}, {hi}]" + ("" if contiguous else " (not contiguous)"), note="Eq. (1)")

# %% [markdown]
# ## Where we disagree, and why
# We do not: both numbers follow from Eq. (1) and our evaluation reproduces them (printed
# above), and simulated random selection matches Eq. (1) within the sampling noise printed
# above. The paper does not state that p = n − 1 gives Pr = 1 (every worker then receives
# from all others); the curve's right end shows it.
