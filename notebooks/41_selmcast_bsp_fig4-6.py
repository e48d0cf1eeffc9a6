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
# model (12) on the same instance (decision SM1). Scale = receivers per multicast / n.
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
milp_n_values = [10, 15, 20]              # where the HiGHS MILP runs (paper: 50..200, see below)
milp_trials = 5
milp_time_limit_s = 60.0                  # per solve, as the paper's Gurobi runs
rounds_demo = 10                          # multi-round demonstration (decision SM2)
k_demo = 4

# %%
from simlib.papers.selmcast.experiments import BSPFiguresNotebook
from simlib.pipeline.params import notebook_params

globals().update(notebook_params(BSPFiguresNotebook, globals()))   # ranges, units, quick values: BSPFiguresNotebook

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from simlib.pipeline import paths
from simlib.papers.selmcast.experiments import bsp_trial, long_by_scheme, milp_trial
from simlib.pipeline import claims, plotting, sweep
from simlib.pipeline.runs import run_notebook_sweep

common = dict(lam=[lam], shared_x=[shared_x], bbar_gbps=[40.0], model_mb=[200.0])
fig4 = run_notebook_sweep(bsp_trial, sweep.expand_grid(layer=layers, n=n_values, p_frac=[p_frac], mu=[1.0], **common),
                          trials=trials, seed=seed, name="41_selmcast_fig4", profile=profile, workers=workers,
                          desc="Fig. 4")
fig5 = run_notebook_sweep(bsp_trial, sweep.expand_grid(layer=layers, n=[fig5_n], p_frac=p_frac_values, mu=[1.0],
                                                       **common),
                          trials=trials, seed=seed, name="41_selmcast_fig5", profile=profile, workers=workers,
                          desc="Fig. 5")
fig6 = run_notebook_sweep(bsp_trial, sweep.expand_grid(layer=["L3"], n=n_values, p_frac=[p_frac], mu=["1/p"],
                                                       **common),
                          trials=trials, seed=seed, name="41_selmcast_fig6", profile=profile, workers=workers,
                          desc="Fig. 6")
milp = run_notebook_sweep(milp_trial, sweep.expand_grid(layer=layers, n=milp_n_values, p_frac=[p_frac], mu=[1.0],
                                                        time_limit_s=[milp_time_limit_s], **common),
                          trials=milp_trials, seed=seed, name="41_selmcast_milp", profile=profile, workers=workers,
                          desc="MILP")
L4, L5, L6 = (long_by_scheme(d) for d in (fig4, fig5, fig6))
L4 = L4.assign(p_over_n=L4.p / L4.n)
L5 = L5.assign(p_over_n=L5.p / L5.n)


def table(d, by, metrics=("ct_norm", "scale")):
    """Means of the metrics and the median selection time, one row per (by..., scheme)."""
    g = d.groupby(list(by) + ["scheme"])
    return g[list(metrics)].mean().join(g["time_ms"].median().rename("median_time_ms")).round(4)


table(L4, ["layer", "n"])

# %% [markdown]
# ## Fig. 4 — cluster size (p = 0.3n, μ = 1)
# (a, b) selection time per scheme (log scale; "milp" = HiGHS on model (12), only at the
# sizes in `milp_n_values`), (c, d) normalized completion time, (e, f) multicast scale.

# %%
plotting.set_theme()
milp_long = milp.assign(scheme="milp", time_ms=1e3 * milp.milp_time_s)
fig, axes = plt.subplots(3, len(layers), figsize=(3.4 * len(layers), 7.6), squeeze=False)
for col, layer in enumerate(layers):
    d = L4[L4.layer == layer]
    t = pd.concat([d[["n", "scheme", "time_ms"]], milp_long[milp_long.layer == layer][["n", "scheme", "time_ms"]]])
    for row, (metric, label) in enumerate((("time_ms", "selection time (ms)"),
                                           ("ct_norm", "normalized completion time"),
                                           ("scale", "average multicast scale"))):
        ax = axes[row, col]
        plotting.plot_min_median_max(ax, t if metric == "time_ms" else d, x="n", y=metric, hue="scheme",
                                     legend=(row == 0 and col == 0))
        if metric == "time_ms":
            ax.set_yscale("log")
        if metric == "scale":
            ax.set_ylim(0, 1)
        ax.set_xlabel("number of workers n")
        ax.set_ylabel(label)
        ax.set_title(f"({chr(97 + 2 * row + col)}) {layer}", loc="left", fontsize="medium")
fig.suptitle("Fig. 4: BSP, p = 0.3n, μ = 1")
fig.tight_layout()
plotting.save_figure(fig, "selmcast_fig04_bsp_scale_n", figures_dir=paths.FIGURES)

# %% [markdown]
# ## Fig. 5 — p/n from 0.1 to 0.5 (n = `fig5_n`, μ = 1)

# %%
fig, axes = plt.subplots(2, len(layers), figsize=(3.4 * len(layers), 5.2), squeeze=False)
for col, layer in enumerate(layers):
    d = L5[L5.layer == layer]
    for row, (metric, label) in enumerate((("ct_norm", "normalized completion time"),
                                           ("scale", "average multicast scale"))):
        ax = axes[row, col]
        plotting.plot_min_median_max(ax, d, x="p_over_n", y=metric, hue="scheme", legend=(row == 0 and col == 0))
        ax.set_xlabel("p / n")
        ax.set_ylabel(label)
        ax.set_title(f"({chr(97 + 2 * row + col)}) {layer}", loc="left", fontsize="medium")
fig.suptitle(f"Fig. 5: BSP, n = {fig5_n}, μ = 1")
fig.tight_layout()
plotting.save_figure(fig, "selmcast_fig05_bsp_p", figures_dir=paths.FIGURES)
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
plotting.save_figure(fig, "selmcast_fig06_bsp_mu_1_over_p", figures_dir=paths.FIGURES)
table(L6, ["n"], metrics=("receivers", "scale", "ct_norm"))

# %% [markdown]
# ## Optimal: the HiGHS MILP of model (12) vs the exact max-flow optimum
# Same instances; per stage a `milp_time_limit_s` limit. `match` = identical t* (relative
# 1e-9) and identical Σx. A run that hit the limit keeps its incumbent and says so.

# %%
milp = milp.assign(match=lambda d: np.isclose(d.milp_t_star_s, d.flow_t_star_s, rtol=1e-9, atol=0)
                   & (d.milp_receivers == d.flow_receivers))
mg = milp.groupby(["layer", "n"])
milp_summary = pd.DataFrame({
    "median_milp_s": mg.milp_time_s.median(), "max_milp_s": mg.milp_time_s.max(),
    "proven": mg.milp_proven.sum(), "runs": mg.size(), "match": mg.match.sum(),
    "median_flow_ms": mg.flow_time_ms.median()})
milp_summary.round(3)

# %% [markdown]
# ## Paper gaps, shown once
# * **SM1, the ideal time.** We divide by t* (selection-independent). The alternative,
#   dividing each plan's executed time by *its own* model time of (10)–(11)
#   (`ct_norm_plan`), is printed here.
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
multi = run_notebook_sweep(bsp_trial, sweep.expand_grid(layer=layers, n=[n_small], p_frac=[p_frac], mu=[1.0],
                                                        rounds=[1, rounds_demo], k=[k_demo], **common),
                           trials=trials, seed=seed, name="41_selmcast_rounds", profile=profile, workers=workers,
                           desc="rounds")
print(f"\nSM2: one round vs {rounds_demo} rounds with k = {k_demo} (n = {n_small}; means over rounds and trials)")
print(table(long_by_scheme(multi), ["layer", "rounds"]).to_string())

sx = run_notebook_sweep(bsp_trial, sweep.expand_grid(layer=layers, n=[n_small], p_frac=[p_frac], mu=[1.0],
                                                     shared_x=[False, True], lam=[lam]),
                        trials=trials, seed=seed, name="41_selmcast_shared_x", profile=profile, workers=workers,
                        desc="shared x")
print("\nB2: independent vs shared x per worker")
print(table(long_by_scheme(sx), ["layer", "shared_x"]).to_string())

# %% [markdown]
# ## Claims (004 §IV-B)
# "holds" rules: a paper number holds when our mean is within 10 % of it; "≈ Optimal" when
# SelMcast's mean normalized completion time and scale are within 2 % of Optimal's at every
# setting; "flat" when SelMcast's mean normalized time varies by less than 0.05 over p/n.

# %%
P = "004"
m4 = L4.groupby(["layer", "n", "scheme"])[["ct_norm", "scale", "receivers"]].mean()
m5 = L5.groupby(["layer", "p_over_n", "scheme"])[["ct_norm", "scale"]].mean()
m6 = L6.groupby(["n", "scheme"])[["receivers", "scale", "ct_norm"]].mean()


def near(ours, paper, tol=0.10):
    return bool(abs(ours - paper) <= tol * paper)


n_ref = 100 if 100 in n_values else n_values[len(n_values) // 2]
for layer, paper_sm in (("L3", 1.02), ("L7", 1.32)):
    if layer not in layers:
        continue
    o, s = m4.loc[(layer, n_ref, "orpheus"), "ct_norm"], m4.loc[(layer, n_ref, "selmcast"), "ct_norm"]
    claims.record_claim(paper=P, figure=f"Fig. 4{'c' if layer == 'L3' else 'd'}",
                        claim=f"normalized CT at n = 100, {layer}: Orpheus -> SelMcast",
                        paper_value=f"1.67 -> {paper_sm}", our_value=f"{o:.2f} -> {s:.2f} (n = {n_ref})",
                        holds=near(o, 1.67) and near(s, paper_sm),
                        note="mean of 10 trials; executed max-min time / t* (SM1)")

gaps = []
for d in (m4, m5, m6):
    sm = d.xs("selmcast", level="scheme")
    op = d.xs("optimal", level="scheme")
    gaps.append(float(((sm["ct_norm"] - op["ct_norm"]) / op["ct_norm"]).abs().max()))
    gaps.append(float(((sm["scale"] - op["scale"]) / op["scale"]).abs().max()))
worst_ct, worst_scale = max(gaps[0::2]), max(gaps[1::2])
claims.record_claim(paper=P, figure="Figs. 4-6", claim="SelMcast and Optimal overlap: normalized CT",
                    paper_value="overlap", our_value=f"max rel. gap {worst_ct:.1%}", holds=bool(worst_ct <= 0.02),
                    note="means per setting, all settings of Figs. 4-6; Optimal = exact max-flow optimum")
claims.record_claim(paper=P, figure="Figs. 4-6", claim="SelMcast and Optimal overlap: multicast scale",
                    paper_value="overlap", our_value=f"max rel. gap {worst_scale:.1%}", holds=bool(worst_scale <= 0.02),
                    note="means per setting, all settings of Figs. 4-6; Optimal = exact max-flow optimum")

for layer in layers:
    d5 = m5.xs(layer, level="layer")
    p_end = d5.index.get_level_values("p_over_n").max()
    o_end = d5.loc[(p_end, "orpheus"), "ct_norm"]
    sm_range = d5.xs("selmcast", level="scheme")["ct_norm"]
    claims.record_claim(paper=P, figure=f"Fig. 5 {layer}", claim=f"as p grows Orpheus -> about 1.5 ({layer})",
                        paper_value="≈ 1.5", our_value=f"{o_end:.2f} at p/n = {p_end:.2f}",
                        holds=near(o_end, 1.5), note=f"n = {fig5_n}, mean of {trials} trials")
    spread = float(sm_range.max() - sm_range.min())
    claims.record_claim(paper=P, figure=f"Fig. 5 {layer}", claim=f"SelMcast normalized CT flat in p/n ({layer})",
                        paper_value="consistent", our_value=f"{sm_range.min():.3f}–{sm_range.max():.3f}",
                        holds=bool(spread < 0.05), note=f"p/n = {p_frac_values}")

if "L7" in layers:
    r7 = (m4.xs(("L7", "selmcast"), level=["layer", "scheme"])["scale"]
          / m4.xs(("L7", "orpheus"), level=["layer", "scheme"])["scale"])
    claims.record_claim(paper=P, figure="Fig. 4f", claim="L7: SelMcast selects more receivers than Orpheus",
                        paper_value="≈ 1.3×", our_value=f"{r7.min():.2f}–{r7.max():.2f}× over n",
                        holds=bool(near(r7.min(), 1.3) and near(r7.max(), 1.3)), note="ratio of mean scales")
if "L3" in layers:
    d3 = L4[L4.layer == "L3"]
    excess = float((d3.assign(rel=d3.receivers / d3.p).groupby(["n", "scheme"]).rel.mean() - 1).abs().max())
    claims.record_claim(paper=P, figure="Fig. 4e", claim="L3, μ = 1: every scheme selects exactly p receivers",
                        paper_value="exactly p", our_value=f"max deviation {excess:.2%} of p",
                        holds=bool(excess < 0.01), note="mean receivers per worker over trials, all n and schemes")
r6 = m6.xs("selmcast", level="scheme")["receivers"] / m6.xs("orpheus", level="scheme")["receivers"]
claims.record_claim(paper=P, figure="Fig. 6", claim="L3, μ = 1/p: SelMcast selects more receivers than Orpheus",
                    paper_value="≈ +33 %", our_value=f"+{r6.min() - 1:.0%} to +{r6.max() - 1:.0%} over n",
                    holds=bool(near(r6.min(), 1.33) and near(r6.max(), 1.33)), note="ratio of mean receivers")

n_big = max(n_values)
tm = L4[L4.n == n_big].groupby("scheme")["time_ms"].median()
claims.record_claim(paper=P, figure="Fig. 4a-b", claim="SelMcast and Orpheus select within tens of ms at n = 200",
                    paper_value="tens of ms",
                    our_value=f"SelMcast {tm['selmcast']:.1f} ms, Orpheus {tm['orpheus']:.2f} ms at n = {n_big}",
                    holds=bool(max(tm["selmcast"], tm["orpheus"]) < 100),
                    note=f"median over layers and trials, measured inside the sweep's worker processes "
                         f"(depends on machine load; benchmarks/bench_selmcast_bsp.py times it alone); "
                         f"exact optimum {tm['optimal']:.0f} ms")
ml3 = milp[milp.layer == "L3"].groupby("n").milp_time_s.median() if "L3" in layers else pd.Series(dtype=float)
if len(ml3) >= 2:
    n0, n1 = ml3.index.min(), ml3.index.max()
    growth = float(ml3[n1] / ml3[n0])
    claims.record_claim(paper=P, figure="Fig. 4a", claim="Optimal (MILP) median time grows super-linearly; > 27 s at n = 200 (L3)",
                        paper_value="super-linear; > 27 s at n = 200 (Gurobi)",
                        our_value=f"HiGHS median {ml3[n0]:.2f} s at n = {n0} -> {ml3[n1]:.2f} s at n = {n1} "
                                  f"({growth:.0f}× for {n1 / n0:.1f}× n); n = 200 not run",
                        holds=bool(growth > (n1 / n0)),
                        note=f"time limit {milp_time_limit_s:g} s per stage; exact max-flow optimum "
                             f"{tm['optimal']:.0f} ms at n = {n_big}")

# %% [markdown]
# ## Where we disagree, and why
# The numbers quoted are printed by the cell below from the results above.
#
# * **SelMcast equals Optimal in completion time** (the paper: SelMcast ≈ 1.02 at L3 and
#   ≈ 1.32 at L7 for n = 100; ours ≈ 1.00 for both). On this switch the basic selection's
#   weighted load balancing already reaches t* (L3), and at L7 with μ = 1 t* is forced by
#   the slowest ingress, which must send p copies whoever receives them, so every scheme
#   that does not overload an egress ties with Optimal.
# * **Orpheus is worse than the paper's 1.67 at L3 and better at L7.** At L3 Orpheus's time
#   is set by its most loaded slow egress; with λ = 0.5 the slowest egress has about half
#   the mean bandwidth, so as p grows (load per egress → p) its normalized time tends to
#   mean/min egress bandwidth ≈ 2, not 1.5 (printed below). At L7 the slowest ingress
#   dominates every scheme (t* equals the ingress-only floor in most trials, printed
#   below), so Orpheus's random egress overload rarely matters. We see no reading of §IV-A2
#   that gives 1.67 for both layers; the paper's "ideal" may be defined differently (SM1).
# * **Receivers**: our L7 and μ = 1/p gains are larger than the paper's 1.3× and +33 %,
#   because the same slow-ingress floor leaves every other port with slack that Pareto
#   improvement (and Optimal) fill. SelMcast stays within a few % of Optimal's scale.
#   L3 with μ = 1/p is, for the ingresses, the same as L7 with μ = 1 (one copy at b̄(1+λx)/p
#   takes as long as p copies at b̄(1+λx)), which is why Fig. 6 mirrors Fig. 4(d, f).
# * **Speed**: SelMcast and Orpheus are milliseconds, as the paper says ("tens of ms"); the
#   HiGHS MILP grows steeply with n for L3 (table above; `benchmarks/bench_selmcast_bsp.py`
#   times it at n = 50 and 200 against the 60 s limit), which is why the exact max-flow
#   optimum draws the "Optimal" line (SM8, SM10).

# %%
def fmt(v):
    return f"{v:.2f}"


floor_hit = (fig4.assign(hit=np.isclose(fig4.t_star_s, fig4.t_in_floor_s, rtol=1e-9))
             .groupby("layer").hit.mean())
print(f"* Orpheus's normalized completion time at n = {n_ref}: "
      + ", ".join(f"{layer} {fmt(m4.loc[(layer, n_ref, 'orpheus'), 'ct_norm'])}" for layer in layers)
      + " (paper: 1.67 for both).")
print(f"* SelMcast at n = {n_ref}: "
      + ", ".join(f"{layer} {fmt(m4.loc[(layer, n_ref, 'selmcast'), 'ct_norm'])}" for layer in layers)
      + f" (paper: 1.02 and 1.32); worst gap to Optimal over all settings {worst_ct:.1%} (CT), "
      f"{worst_scale:.1%} (scale).")
print(f"* Mean/min egress bandwidth over the Fig. 5 instances: {fig5.mean_over_min_egress.mean():.2f}; "
      f"Orpheus at the largest p/n: "
      + ", ".join(f"{layer} {fmt(m5.xs(layer, level='layer').xs('orpheus', level='scheme').ct_norm.iloc[-1])}"
                  for layer in layers) + ".")
print("* Share of Fig. 4 trials whose t* equals the ingress-only floor: "
      + ", ".join(f"{layer} {floor_hit[layer]:.0%}" for layer in floor_hit.index) + ".")
sm_plan = L4.groupby("scheme")["ct_norm_plan"].agg(["min", "max"])
print(f"* Executed max-min time / the plan's own model time: {sm_plan['min'].min():.4f}–{sm_plan['max'].max():.4f} "
      "for every scheme and setting of Fig. 4 (SM5).")
