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
# # SelMcast §IV-C2–3 — p/n, k and ssp (Figs. 8, 9, 10)
#
# The Fig. 7 setting (n = 50, 10 minutes, L3, 200 MB, b̄ = 40 Gbps, λ = 0.5, μ = 1,
# η = 0.75; three traces; 10 trials, means) with one knob varied at a time:
# **Fig. 8** p/n from 0.05 to 0.4 (ssp = k = 4); **Fig. 9** k from 1 to 16 and k removed
# (∞; ssp = 4); **Fig. 10** ssp with k = ssp, including ∞ (no gate, requirement removed).
# Receivers per multicast are ⌈p n⌉ (decision SM60). In the plots ∞ is drawn at 32.

# %% tags=["parameters"]
profile = "full"
workers = None
seed = 0
trials = 10
n = 50
traces = ["lstm", "transformer", "cnn"]
duration_s = 600.0
p_values = [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4]
k_values = [1, 2, 4, 8, 16, None]          # None: requirement removed
ssp_values = [1, 2, 4, 8, 16, None]        # k follows ssp; None: no gate and no k
p = 0.3
ssp = 4
k = 4
eta = 0.75

# %%
from simlib.papers.selmcast.ssp_experiments import SSPFigs8to10Notebook
from simlib.pipeline.params import notebook_params

globals().update(notebook_params(SSPFigs8to10Notebook, globals()))   # ranges, units, quick values: SSPFigs8to10Notebook
INF_AT = 32                              # where ∞ (k or ssp removed) is drawn on the axes

# %%
import matplotlib.pyplot as plt
import pandas as pd

from simlib.papers.selmcast import ssp_experiments as ex
from simlib.papers.selmcast.ssp_scenario import run_trial
from simlib.pipeline import paths
from simlib.pipeline import claims, plotting, runs, sweep

common = dict(n=[n], duration_s=[duration_s], eta=[eta])
grid8 = sweep.expand_grid(trace=traces, scheme=["selmcast", "orpheus"], p=p_values, ssp=[ssp], k=[k], **common)
grid9 = sweep.expand_grid(trace=traces, scheme=["selmcast", "orpheus"], k=k_values, p=[p], ssp=[ssp], **common)
grid10 = [{**g, "k": g["ssp"]} for g in sweep.expand_grid(trace=traces, scheme=["selmcast", "orpheus"],
                                                           ssp=ssp_values, p=[p], **common)]
frames = {}
for fig_no, grid in ((8, grid8), (9, grid9), (10, grid10)):
    frames[fig_no] = runs.run_notebook_sweep(run_trial, ex.validate_settings(grid), trials=trials, seed=seed,
                                             name=f"44_selmcast_ssp_fig{fig_no}", profile=profile,
                                             workers=workers, desc=f"Fig. {fig_no}")
df8 = frames[8]
df9 = ex.with_inf_axis(frames[9], "k", INF_AT)
df10 = ex.with_inf_axis(frames[10], "ssp", INF_AT)
metrics = ["npu_utilization", "avg_scale"]
ex.means(df8, ["trace", "scheme", "p"], metrics).unstack("scheme").round(3)

# %%
ex.means(df9, ["trace", "scheme", "k_x"], metrics + ["blocked_share"]).unstack("scheme").round(3)

# %%
ex.means(df10, ["trace", "scheme", "ssp_x"], metrics + ["blocked_share"]).unstack("scheme").round(3)

# %%
plotting.set_theme()
for fig_no, d, x, xlabel in ((8, df8, "p", "p / n"), (9, df9, "k_x", f"k (∞ drawn at {INF_AT})"),
                             (10, df10, "ssp_x", f"ssp = k (∞ drawn at {INF_AT})")):
    fig, axes = plt.subplots(len(traces), 2, figsize=(6.6, 2.5 * len(traces)), squeeze=False)
    for r, trace in enumerate(traces):
        for c, m in enumerate(metrics):
            ax = axes[r, c]
            plotting.plot_min_median_max(ax, d[d.trace == trace], x=x, y=m, hue="scheme", legend=(r == c == 0))
            ax.set_xlabel(xlabel)
            ax.set_ylabel(f"{trace}: {'NPU utilization' if c == 0 else 'multicast scale'}")
            if x != "p":
                ax.set_xscale("log", base=2)
    fig.suptitle(f"Fig. {fig_no}")
    fig.tight_layout()
    plotting.save_figure(fig, f"selmcast_ssp_fig{fig_no:02d}", figures_dir=paths.FIGURES)

# %% [markdown]
# ## Claims (004 §IV-C2, §IV-C3)

# %%
def per_trace(df, scheme, col, value, metric):
    d = df[(df.scheme == scheme) & (df[col] == value)]
    return d.groupby("trace")[metric].mean().to_dict()


note = f"n={n}, {duration_s:g} s, {trials} trials, means"
p_lo, p_hi = min(p_values), max(p_values)
s_lo, s_hi = per_trace(df8, "selmcast", "p", p_lo, "avg_scale"), per_trace(df8, "selmcast", "p", p_hi, "avg_scale")
u_lo, u_hi = (per_trace(df8, "selmcast", "p", p_lo, "npu_utilization"),
              per_trace(df8, "selmcast", "p", p_hi, "npu_utilization"))
claims.record_claim(paper="004", figure="Fig. 8", claim=f"SelMcast scale grows from p/n={p_lo} to {p_hi}",
                    paper_value="0.37/0.34/0.33 -> 0.65/0.64/0.61",
                    our_value=f"{ex.triplet(s_lo)} -> {ex.triplet(s_hi)}",
                    holds=all(s_hi[t] > s_lo[t] for t in s_lo), note=note)
claims.record_claim(paper="004", figure="Fig. 8", claim=f"SelMcast utilization falls from p/n={p_lo} to {p_hi}",
                    paper_value="0.75/0.81/0.81 -> 0.59/0.59/0.59",
                    our_value=f"{ex.triplet(u_lo)} -> {ex.triplet(u_hi)}",
                    holds=all(u_hi[t] < u_lo[t] for t in u_lo), note=note)
m8 = ex.means(df8, ["trace", "p", "scheme"], metrics).unstack("scheme")
better8 = bool(((m8[("avg_scale", "selmcast")] > m8[("avg_scale", "orpheus")])
                & (m8[("npu_utilization", "selmcast")] > m8[("npu_utilization", "orpheus")])).all())
gain_hi = (m8.xs(p_hi, level="p")[("avg_scale", "selmcast")] - m8.xs(p_hi, level="p")[("avg_scale", "orpheus")]).to_dict()
ugain_hi = (m8.xs(p_hi, level="p")[("npu_utilization", "selmcast")]
            - m8.xs(p_hi, level="p")[("npu_utilization", "orpheus")]).to_dict()
claims.record_claim(paper="004", figure="Fig. 8", claim="SelMcast beats Orpheus in both metrics at every p/n",
                    paper_value=f"at p=0.4n: scale +>0.2, utilization +~0.05",
                    our_value=f"at p/n={p_hi}: scale +{ex.triplet(gain_hi)}, utilization {ex.triplet(ugain_hi, '{:+.3f}')}"
                              f"; every p: {better8}",
                    holds=better8, note=note)
small = [x for x in p_values if x <= 0.2 + 1e-9]
o8 = df8[(df8.scheme == "orpheus") & df8.p.isin(small)]
o_small = o8.groupby(["trace", "p"])["avg_scale"].mean()
spread = o_small.groupby("trace").agg(lambda s: s.max() - s.min()).to_dict()
# every pair is forced once per k + 1 rounds, but only after a sender's first k rounds (c starts
# at 0, SM55): over R rounds per worker the floor is (n - 1)/(n (k + 1)) (R - k)/R
R = o8["rounds_per_worker"]
floor = (n - 1) / n / (k + 1) * (R - k) / R
floor_ok = bool((o8["avg_scale"] >= floor - 1e-12).all())
claims.record_claim(paper="004", figure="Fig. 8", claim="Orpheus roughly flat for p <= 0.2n (scale >= 1/(k+1) because of k = 4)",
                    paper_value="flat; >= 0.2",
                    our_value=f"scale spread over p<=0.2n: {ex.triplet(spread, '{:.3f}')}; min {o_small.min():.3f} "
                              f"(floor {floor.min():.3f}-{floor.max():.3f})",
                    holds=floor_ok and max(spread.values()) < 0.03,
                    note=note + "; flat = spread < 0.03; floor (n-1)/(n(k+1)) x (R-k)/R, R rounds per worker")
print(f"Orpheus floor under k = {k} at n = {n}: (n - 1)/(n(k + 1)) = {(n - 1) / n / (k + 1):.3f}, "
      f"reduced by the first k rounds of each sender to {floor.min():.3f}-{floor.max():.3f}")

kinf = df9[df9.k.isna()]
ui = {s: kinf[kinf.scheme == s].groupby("trace")["npu_utilization"].mean().to_dict() for s in ("orpheus", "selmcast")}
si = {s: kinf[kinf.scheme == s].groupby("trace")["avg_scale"].mean().to_dict() for s in ("orpheus", "selmcast")}
claims.record_claim(paper="004", figure="Fig. 9", claim="k removed: SelMcast raises utilization over Orpheus",
                    paper_value="0.64/0.66/0.66 -> 0.72/0.77/0.73",
                    our_value=f"{ex.triplet(ui['orpheus'])} -> {ex.triplet(ui['selmcast'])}",
                    holds=all(ui["selmcast"][t] > ui["orpheus"][t] for t in ui["orpheus"]), note=note)
claims.record_claim(paper="004", figure="Fig. 9", claim="k removed: SelMcast raises the multicast scale over Orpheus",
                    paper_value="0.3 -> 0.46/0.44/0.42",
                    our_value=f"{ex.triplet(si['orpheus'])} -> {ex.triplet(si['selmcast'])}",
                    holds=all(si["selmcast"][t] > si["orpheus"][t] for t in si["orpheus"]), note=note)
for fig_no, d, col in ((9, df9, "k_x"), (10, df10, "ssp_x")):
    mm = ex.means(d, ["trace", col, "scheme"], metrics).unstack("scheme")
    scale_lead = mm[("avg_scale", "selmcast")] - mm[("avg_scale", "orpheus")]
    util_lead = mm[("npu_utilization", "selmcast")] - mm[("npu_utilization", "orpheus")]
    better = bool(((scale_lead > 0) & (util_lead > 0)).all())
    first, last = min(d[col]), max(d[col])
    trend = {s: bool((mm.xs(last, level=col)[("npu_utilization", s)] >= mm.xs(first, level=col)[("npu_utilization", s)]).all()
                     and (mm.xs(last, level=col)[("avg_scale", s)] <= mm.xs(first, level=col)[("avg_scale", s)]).all())
             for s in ("selmcast", "orpheus")}
    ends = {s: {e: {mt: mm.xs(x, level=col)[(mt, s)].to_dict() for mt in metrics}
                for e, x in (("first", first), ("last", last))} for s in ("selmcast", "orpheus")}
    what = "k" if fig_no == 9 else "ssp (= k)"
    claims.record_claim(paper="004", figure=f"Fig. {fig_no}", claim=f"SelMcast beats Orpheus in both metrics at every {what}",
                        paper_value="always",
                        our_value=f"smallest SelMcast lead over {what} and traces: scale {scale_lead.min():+.3f}, "
                                  f"utilization {util_lead.min():+.3f}; better everywhere {better}",
                        holds=better, note=note)
    claims.record_claim(paper="004", figure=f"Fig. {fig_no}",
                        claim=f"relaxing {what}: utilization up, scale down (both schemes)",
                        paper_value="yes",
                        our_value="; ".join(
                            f"{s}: utilization {ex.triplet(ends[s]['first']['npu_utilization'])} -> "
                            f"{ex.triplet(ends[s]['last']['npu_utilization'])}, scale "
                            f"{ex.triplet(ends[s]['first']['avg_scale'])} -> {ex.triplet(ends[s]['last']['avg_scale'])}"
                            f" ({trend[s]})" for s in ("selmcast", "orpheus")),
                        holds=all(trend.values()),
                        note=note + f"; compares {what}={first:g} with {last:g} ({INF_AT} = ∞)")
print(claims.load_ledger(paths.run_context().ledger).query("paper == '004' and figure in ['Fig. 8', 'Fig. 9', 'Fig. 10']")
      [["figure", "claim", "paper_value", "our_value", "holds"]].to_string(index=False))

# %% [markdown]
# ## Where we disagree, and why
# The ledger lines printed above are the measured values; the directions the paper states
# hold, the levels differ in two ways.
# * **SelMcast's scale grows less with p than the paper's**, so its lead over Orpheus in
#   scale shrinks as p/n grows while its utilization lead grows. Our Algorithm 2 re-plans
#   every running multicast at every ready event and preempts many receivers (see the
#   `drops_per_multicast` column of notebook 43): a receiver added by the Pareto step of one
#   call is often dropped by the next, before it has received (1 − η) of the model. With a
#   larger p each multicast keeps more forced receivers and the egresses have less spare
#   capacity for the Pareto step, so the extra receivers shrink. The paper gives no
#   preemption statistics to compare with.
# * **Utilization levels depend on the stand-in traces**: our CNN trace is tight (few
#   stragglers), so without the gate or the k requirement SelMcast keeps CNN workers busy
#   far more than on the bursty LSTM trace, where the SSP gate (`blocked_share`) dominates.
# * Orpheus's floor under the k requirement is (n − 1)/(n(k + 1)) (printed above; the
#   paper's "not less than 0.2") reduced by the first k rounds of each sender, in which no
#   pair is due yet (SM55); the claim uses that floor.
