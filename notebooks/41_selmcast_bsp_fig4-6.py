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
# # SelMcast §IV-B — receiver selection for BSP training (Figs. 4, 5, 6)
#
# One round of peer-to-peer BSP synchronization: n workers on one non-blocking switch,
# each multicasts its model (v = 200 MB, all equal) to at least p = round(p/n · n) others.
# Egress bandwidth b̄(1 + λx), ingress b̄μ(1 + λx), x ~ U[−1, 1] per port (λ = 0.5, μ = 1,
# b̄ = 40 Gbps; decision B2: independent x per port). Three selection schemes:
#
# * **SelMcast** — Algorithm 1 (`simlib.papers.selmcast.bsp`);
# * **Orpheus** — p receivers uniformly at random (`simlib.papers.selmcast.orpheus`);
# * **Optimal** — model (12) solved lexicographically. The line is drawn by our exact
#   max-flow optimum (`optimal_flow`, equal v), which the HiGHS MILP of model (12)
#   (`optimal_milp`, the paper's method with a 60 s limit per solve) confirms on the
#   sizes where it finishes (section "Optimal: MILP vs max-flow" below).
#
# Every plan is **executed** on the flow network with per-flow max-min sharing (L3: one
# multicast flow per sender; L7: one unicast flow per pair); the round ends with the last
# delivery. Normalized completion time = executed time / t*, the optimum of stage 1 of
# model (12) for the same layer on the same instance (decision SM1; `normalization`).
# Scale = receivers per multicast / n. Beside the figures we run the other readings of
# §IV-A2 — λ = `lam_alt` (SM14) and the L3 t* as the ideal for both layers (SM1) — where
# the paper quotes a number, and record which reading reproduces which number.
# 10 trials per setting; tables report means (medians for computation times) as the paper
# does; plots show the median with a min–max band. Schemes are paired: trial t of every
# scheme sees the same bandwidths.

# %% tags=["parameters"]
profile = "full"                          # "full" (paper fidelity) or "quick" (tests)
workers = None                            # processes for the sweep (None: all cores)
seed = 0                                  # root seed
trials = 10                               # trials per setting
n_values = [50, 100, 150, 200]            # Figs. 4 and 6
layers = ["L3", "L7"]
p_frac = 0.3                              # p / n (Figs. 4, 6)
p_frac_values = [0.1, 0.2, 0.3, 0.4, 0.5]  # Fig. 5
fig5_n = 200                              # n of Fig. 5 (the paper does not say; its default)
lam = 0.5
shared_x = False                          # decision B2
normalization = "own"                     # the ideal of the figures (SM1): "own" layer's t* or "L3" t*
lam_alt = 0.25                            # the other reading of λ, run beside the figures (SM14)
normalization_alt = "L3"                  # the other reading of the ideal, run beside the figures (SM1)
milp_n_values = [10, 15, 20]              # where the HiGHS MILP runs (paper: 50..200, see below)
milp_trials = 10                          # trials per MILP setting (decision SM77: the growth verdicts need 6 or more)
milp_time_limit_s = 60.0                  # per solve, as the paper's Gurobi runs
rounds_demo = 10                          # multi-round demonstration (decision SM2)
k_demo = 4

# %%
from simlib.papers.selmcast.experiments import BSPFiguresNotebook
import simlib

# ranges, units, quick values: BSPFiguresNotebook
run = simlib.start(BSPFiguresNotebook, globals(), notebook="41_selmcast_bsp_fig4-6")

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from simlib.papers.selmcast import claims as selmcast_claims
from simlib.papers.selmcast.experiments import bsp_trial, long_by_scheme, milp_trial, reading_settings
from simlib.pipeline import plotting, sweep

# selection and solver wall times go to the run's measurements folder, not the results CSVs (S26)
timed = dict(measured=selmcast_claims.BSP_TIMING_COLUMNS)
common = dict(lam=[lam], shared_x=[shared_x], bbar_gbps=[40.0], model_mb=[200.0])
bsp_common = dict(common, normalization=[normalization])
fig4 = run.sweep(bsp_trial,
                 sweep.expand_grid(layer=layers, n=n_values, p_frac=[p_frac], mu=[1.0],
                                   **bsp_common),
                 name="41_selmcast_fig4", desc="Fig. 4", **timed)
fig5 = run.sweep(bsp_trial,
                 sweep.expand_grid(layer=layers, n=[fig5_n], p_frac=p_frac_values, mu=[1.0],
                                   **bsp_common),
                 name="41_selmcast_fig5", desc="Fig. 5", **timed)
fig6 = run.sweep(bsp_trial,
                 sweep.expand_grid(layer=["L3"], n=n_values, p_frac=[p_frac], mu=["1/p"],
                                   **bsp_common),
                 name="41_selmcast_fig6", desc="Fig. 6", **timed)
milp = run.sweep(milp_trial,
                 sweep.expand_grid(layer=layers, n=milp_n_values, p_frac=[p_frac], mu=[1.0],
                                   time_limit_s=[milp_time_limit_s], **common),
                 name="41_selmcast_milp", trials=milp_trials, desc="MILP",
                 measured=selmcast_claims.MILP_TIMING_COLUMNS)
L4, L5, L6 = (long_by_scheme(d) for d in (fig4, fig5, fig6))
L4 = L4.assign(p_over_n=L4.p / L4.n)
L5 = L5.assign(p_over_n=L5.p / L5.n)


def table(d, by, metrics=("ct_norm", "scale")):
    """Means of the metrics, one row per (by..., scheme); selection times are measurements (S26)."""
    return d.groupby(list(by) + ["scheme"])[list(metrics)].mean().round(4)


table(L4, ["layer", "n"])

# %% [markdown]
# ## Fig. 4 — cluster size (p = 0.3n, μ = 1)
# (c, d) normalized completion time, (e, f) multicast scale. Panels (a, b), the selection time
# per scheme (log scale; "milp" = HiGHS on model (12), only at the sizes in `milp_n_values`), are
# wall-clock measurements: they are drawn in a figure of their own under the run's
# measurements folder (`data/measurements/figures/` for `make reproduce`; decision S26), so a
# re-run's results figure does not change with the machine's load.

# %%
plotting.set_theme()
fig, axes = plt.subplots(2, len(layers), figsize=(3.4 * len(layers), 5.2), squeeze=False)
for col, layer in enumerate(layers):
    d = L4[L4.layer == layer]
    for row, (metric, label) in enumerate((("ct_norm", "normalized completion time"),
                                           ("scale", "average multicast scale"))):
        ax = axes[row, col]
        # dodge: SelMcast often finds the optimum; side by side, neither line hides the other
        plotting.plot_min_median_max(ax, d, x="n", y=metric, hue="scheme", legend=False, dodge=0.025)
        # the paper's values (§IV-B1), from the numbers the claims judge (selmcast_claims.paper_marks)
        marks = [(x, y) for f, lay, m, _, x, y in selmcast_claims.paper_marks() if f == "Fig. 4" and lay == layer
                 and m == metric and len(d) and d["n"].min() <= x <= d["n"].max()]   # n = 100 when it was run
        if marks:
            ax.scatter(*zip(*marks), marker="D", s=18, color="k", zorder=3, label="paper")
        if metric == "scale":
            ax.set_ylim(0, 1)
        ax.set_xlabel("number of workers n")
        ax.set_ylabel(label)
        ax.set_title(f"({chr(99 + 2 * row + col)}) {layer}", loc="left", fontsize="medium")
fig.suptitle("Fig. 4: BSP, p = 0.3n, μ = 1")
fig.tight_layout()
plotting.figure_legend(fig)
run.save_figure(fig, "selmcast_fig04_bsp_scale_n")

milp_long = milp.assign(scheme="milp", time_ms=1e3 * milp.milp_time_s)
fig, axes = plt.subplots(1, len(layers), figsize=(3.4 * len(layers), 2.8), squeeze=False)
for col, layer in enumerate(layers):
    d = L4[L4.layer == layer]
    t = pd.concat([d[["n", "scheme", "time_ms"]], milp_long[milp_long.layer == layer][["n", "scheme", "time_ms"]]])
    ax = axes[0, col]
    plotting.plot_min_median_max(ax, t, x="n", y="time_ms", hue="scheme", legend=False, dodge=0.025)
    ax.set_yscale("log")
    ax.set_xlabel("number of workers n")
    ax.set_ylabel("selection time (ms)")
    ax.set_title(f"({chr(97 + col)}) {layer}", loc="left", fontsize="medium")
fig.suptitle("Fig. 4 (a, b): selection time (wall clock, this machine)")
fig.tight_layout()
plotting.figure_legend(fig)
run.save_figure(fig, "selmcast_fig04ab_selection_time", measurement=True)
plt.close(fig)

# %% [markdown]
# ## Fig. 5 — p/n from 0.1 to 0.5 (n = `fig5_n`, μ = 1)

# %%
fig, axes = plt.subplots(2, len(layers), figsize=(3.4 * len(layers), 5.2), squeeze=False)
for col, layer in enumerate(layers):
    d = L5[L5.layer == layer]
    for row, (metric, label) in enumerate((("ct_norm", "normalized completion time"),
                                           ("scale", "average multicast scale"))):
        ax = axes[row, col]
        plotting.plot_min_median_max(ax, d, x="p_over_n", y=metric, hue="scheme", legend=False, dodge=0.025)
        marks = [y for f, lay, m, _, _, y in selmcast_claims.paper_marks() if f == "Fig. 5" and lay == layer
                 and m == metric]
        if marks and len(d):       # "as p grows, Orpheus -> about 1.5": at the largest p/n run
            ax.scatter([d["p_over_n"].max()] * len(marks), marks, marker="D", s=18, color="k", zorder=3,
                       label="paper")
        ax.set_xlabel("p / n")
        ax.set_ylabel(label)
        ax.set_title(f"({chr(97 + 2 * row + col)}) {layer}", loc="left", fontsize="medium")
fig.suptitle(f"Fig. 5: BSP, n = {fig5_n}, μ = 1")
fig.tight_layout()
plotting.figure_legend(fig)
run.save_figure(fig, "selmcast_fig05_bsp_p")
table(L5, ["layer", "p_over_n"])

# %% [markdown]
# ## Fig. 6 — μ = 1/p, L3: ingresses become bottlenecks too

# %%
fig, axes = plt.subplots(1, 2, figsize=(6.8, 2.7))
for ax, (metric, label) in zip(axes, (("receivers", "receivers per worker"),
                                      ("ct_norm", "normalized completion time"))):
    plotting.plot_min_median_max(ax, L6, x="n", y=metric, hue="scheme", legend=(metric == "receivers"))
    ax.set_xlabel("number of workers n")
    ax.set_ylabel(label)
fig.suptitle("Fig. 6: BSP, L3, p = 0.3n, μ = 1/p")
fig.tight_layout()
run.save_figure(fig, "selmcast_fig06_bsp_mu_1_over_p")
table(L6, ["n"], metrics=("receivers", "scale", "ct_norm"))

# %% [markdown]
# ## Optimal: the HiGHS MILP of model (12) vs the exact max-flow optimum
# Same instances; per stage a `milp_time_limit_s` limit. `match` = identical t* (relative
# 1e-9) and identical Σx. A run that hit the limit keeps its incumbent and says so. The solve
# times (median and max MILP time, median max-flow time per (layer, n)) are wall-clock
# measurements: they go to `41_selmcast_milp_times.csv` in the run's measurements folder.

# %%
milp = milp.assign(match=lambda d: np.isclose(d.milp_t_star_s, d.flow_t_star_s, rtol=1e-9, atol=0)
                   & (d.milp_receivers == d.flow_receivers))
mg = milp.groupby(["layer", "n"])
milp_times = pd.DataFrame({"median_milp_s": mg.milp_time_s.median(), "max_milp_s": mg.milp_time_s.max(),
                           "median_flow_ms": mg.flow_time_ms.median()})
run.save_measurements(milp_times.reset_index(), "41_selmcast_milp_times")
pd.DataFrame({"proven": mg.milp_proven.sum(), "runs": mg.size(), "match": mg.match.sum()})

# %% [markdown]
# ## Paper gaps, shown once
# * **SM1, the ideal time.** We divide by t* (selection-independent). Dividing each plan's
#   executed time by *its own* model time of (10)–(11) (`ct_norm_plan`) is printed here;
#   dividing both layers by the L3 t* is a reading of its own (section "Readings" below).
# * **SM5, the heuristic's estimate.** Algorithm 1 estimates t at lines 15–20; Pareto
#   improvement never raises the plan's model time above it. We print executed / t_est.
# * **SM2, one round vs many.** The figures are single rounds (D = ∅, c = 0). Below,
#   `rounds_demo` consecutive rounds with k = `k_demo` (fixed bandwidths, every scheme
#   with its own delivery history) at the smallest n.
# * **B2, shared x.** Ingress and egress draws independent (default) vs the same x.

# %%
alt = (L4.groupby(["layer", "n", "scheme"])[["ct_norm", "ct_norm_plan"]].mean()
       .join(L4[L4.scheme == "selmcast"].assign(exec_over_est=lambda d: d.ct_s / d.t_est_s)
             .groupby(["layer", "n", "scheme"])["exec_over_est"].agg(["min", "max"])))
print("SM1 / SM5: normalized by t* vs by the plan's own model time; SelMcast executed / estimated t")
print(alt.round(4).to_string())

n_small = min(n_values)
multi = run.sweep(bsp_trial,
                  sweep.expand_grid(layer=layers, n=[n_small], p_frac=[p_frac], mu=[1.0],
                                    rounds=[1, rounds_demo], k=[k_demo], **bsp_common),
                  name="41_selmcast_rounds", desc="rounds", **timed)
print(f"\nSM2: one round vs {rounds_demo} rounds with k = {k_demo} (n = {n_small}; means over rounds and trials)")
print(table(long_by_scheme(multi), ["layer", "rounds"]).to_string())

sx = run.sweep(bsp_trial,
               sweep.expand_grid(layer=layers, n=[n_small], p_frac=[p_frac], mu=[1.0],
                                 shared_x=[False, True], lam=[lam],
                                 normalization=[normalization]),
               name="41_selmcast_shared_x", desc="shared x", **timed)
print("\nB2: independent vs shared x per worker")
print(table(long_by_scheme(sx), ["layer", "shared_x"]).to_string())

# %% [markdown]
# ## Readings of §IV-A2: λ (SM14) and the ideal (SM1)
# The figures above use the stated reading: λ = `lam` and each layer's own t*. The
# paper's numbers are then far off (below), so we also run, where the paper quotes a
# number, λ = `lam_alt` (the variation's half-width halved: the reading in which λ bounds
# the whole width) and the L3 t* as the ideal of both layers (`normalization_alt`; it
# changes nothing at L3) — `experiments.reading_settings` says which settings. The table
# gives our value under each reading, ✓ where it is within 10 % of the paper's.
# The claims below are judged under the stated reading only; the other readings are
# recorded as observations.

# %%
n_ref = selmcast_claims.reference_n(n_values)
alt_settings = reading_settings(layers=layers, n_values=n_values, n_ref=n_ref, p_frac=p_frac, fig5_n=fig5_n,
                                fig5_p_frac=max(p_frac_values), lam=lam, normalization=normalization,
                                lam_alt=lam_alt, normalization_alt=normalization_alt,
                                fixed=dict(shared_x=shared_x))
readings = {fig: run.sweep(bsp_trial, s, name=f"41_selmcast_{fig}_readings", desc=f"{fig} readings", **timed)
            for fig, s in alt_settings.items() if s}
stated = (lam, normalization)
selmcast_claims.reading_table(fig4, fig5, fig6, readings=readings, stated=stated, n_ref=n_ref)

# %% [markdown]
# ## Claims (004 §II-C is notebook 40; here §IV-B)
# Rules (`simlib.papers.selmcast.claims`, fixed before looking at our values): a number the
# paper gives holds when our mean is within 10 % of it (for a ratio quoted for a whole
# figure, our smallest and largest ratio over n); "overlap" when SelMcast's and Optimal's
# means are within 2 % at every setting; "consistent" when SelMcast's mean varies by less
# than 0.05 over p/n; "exactly p" within 1 %; "tens of ms" below 100 ms.

# %%
# claims on wall-clock times: full rows in the measurements folder, the ledger cites them (S26)
claims = run.measured_claims(selmcast_claims.bsp_claims(fig4, fig5, fig6, milp, readings=readings, stated=stated,
                                                        n_ref=n_ref),
                             "41_selmcast_timing_claims", lambda c: c.claim in selmcast_claims.TIMING_CLAIMS)
# a failing verdict's cause says where on notebook 47's committed claims map it holds (issue 41)
from simlib.papers.selmcast import profile_map

claims = profile_map.with_where(claims, "default", f"the stated reading (λ = {lam:g}, {normalization} t*)",
                                profile_map.committed_where_holds(profile))
recorded = run.record(claims)
recorded

# %% [markdown]
# ## Where we disagree, and why
# The numbers quoted are printed by the cell below from the results above.
#
# * **Under the stated reading (λ = 0.5, each layer's own t*) none of §IV-B's six numbers
#   is reproduced; with λ = 0.25 and the L3 t* as the ideal of both layers, all six are**
#   (table above; ledger observations). We do not adopt that reading: the paper states
#   λ = 0.5 and does not define its ideal, so the figures and the claims keep the stated
#   reading and each miss names the reading that reproduces it (SM14, SM1).
# * **λ sets Orpheus's level and the receiver gains.** At L3 Orpheus's time is set by its
#   most loaded slow egress; as p grows (load per egress → p) its normalized time tends to
#   mean/min egress bandwidth, about 1/(1 − λ): ≈ 2 at λ = 0.5, ≈ 1.33 at λ = 0.25 (printed
#   below), against the paper's "approaches about 1.5". SelMcast's extra receivers at L7
#   and with μ = 1/p fill the slack that the slowest ingress leaves every other port; the
#   narrower the bandwidth spread, the less slack: ≈ 1.8× and +95 % at λ = 0.5, ≈ 1.3× and
#   +30 % at λ = 0.25 (paper ≈ 1.3× and +33 %). L3 with μ = 1/p is, for the ingresses, the
#   same as L7 with μ = 1 (one copy at b̄(1+λx)/p takes as long as p copies at b̄(1+λx)),
#   which is why Fig. 6 mirrors Fig. 4(d, f).
# * **The ideal sets the L7 completion times.** At L7 with μ = 1, t* is forced by the
#   slowest ingress, which sends p copies whoever receives them (share of trials printed
#   below), so by its own layer's t* every scheme that does not overload an egress scores
#   1.00 and Orpheus only slightly more. Divided by the L3 t* instead, SelMcast's L7 time
#   is the L7/L3 ideal ratio (≈ 1/(1 − λ) again) and Orpheus's L7 time equals its L3 one:
#   the paper's 1.67 for Orpheus at both layers suggests one ideal for both.
# * **SelMcast equals Optimal in completion time** (≈ 1.00; the paper 1.02 at L3): on this
#   switch the basic selection's weighted load balancing already reaches t*. Its multicast
#   scale falls a few % short of the exact optimum's at L7 for large p/n (the overlap claim
#   names the setting), where Algorithm 1's greedy Pareto improvement stops early.
# * **Speed**: SelMcast and Orpheus are milliseconds, as the paper says ("tens of ms"); the
#   HiGHS MILP grows steeply with n for L3 (`41_selmcast_milp_times.csv` and the timing claims
#   in the measurements folder; `benchmarks/bench_selmcast_bsp.py`
#   times it at n = 50 and 200 against the 60 s limit), which is why the exact max-flow
#   optimum draws the "Optimal" line (SM8, SM10). At our MILP sizes (n ≤ 20, SM10) the L7
#   model's time barely grows with n.

# %%
def fmt(v):
    return f"{v:.2f}"


m4 = L4.groupby(["layer", "n", "scheme"])["ct_norm"].mean()
m5 = L5.groupby(["layer", "p_over_n", "scheme"])["ct_norm"].mean()
floor_hit = (fig4.assign(hit=np.isclose(fig4.t_star_s, fig4.t_in_floor_s, rtol=1e-9))
             .groupby("layer").hit.mean())
print(f"* Orpheus's normalized completion time at n = {n_ref} (stated reading): "
      + ", ".join(f"{layer} {fmt(m4[(layer, n_ref, 'orpheus')])}" for layer in layers)
      + " (paper: 1.67 for both); SelMcast: "
      + ", ".join(f"{layer} {fmt(m4[(layer, n_ref, 'selmcast')])}" for layer in layers) + " (paper: 1.02 and 1.32).")
spread = {lam: fig5.mean_over_min_egress.mean()}
if "fig5" in readings:
    spread.update(readings["fig5"].groupby("lam").mean_over_min_egress.mean())
orpheus_end = {layer: m5.xs(layer, level="layer").xs("orpheus", level="scheme").iloc[-1] for layer in layers}
print("* Mean/min egress bandwidth over the Fig. 5 instances: "
      + ", ".join(f"λ = {x:g}: {v:.2f}" for x, v in sorted(spread.items()))
      + "; Orpheus at the largest p/n (stated reading): "
      + ", ".join(f"{layer} {fmt(v)}" for layer, v in orpheus_end.items()) + ".")
print("* Share of Fig. 4 trials whose t* equals the ingress-only floor: "
      + ", ".join(f"{layer} {floor_hit[layer]:.0%}" for layer in floor_hit.index) + ".")
print("* " + "; ".join(f"{r['claim']}: {r['our_value']}" for r in recorded if r["figure"] == "Figs. 4-6") + ".")
sm_plan = L4.groupby("scheme")["ct_norm_plan"].agg(["min", "max"])
print(f"* Executed max-min time / the plan's own model time: {sm_plan['min'].min():.4f}–{sm_plan['max'].max():.4f} "
      "for every scheme and setting of Fig. 4 (SM5).")
