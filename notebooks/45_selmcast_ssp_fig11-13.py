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
# # SelMcast §IV-C4–6 — η, data volume and bandwidth variability (Figs. 11, 12, 13)
#
# The Fig. 7 setting (n = 50, 10 minutes, L3, p = 0.3n, ssp = k = 4, b̄ = 40 Gbps, λ = 0.5,
# μ = 1; three traces; 10 trials, means) with one knob varied:
# **Fig. 11** η from 0 to 1 (SelMcast; Orpheus has no η and is shown once as the reference);
# **Fig. 12** the model volume 200 MB × 2^e, e = −4…4;
# **Fig. 13** every link's bandwidth re-drawn every Δ_T = 100 ms as b = b#(1 − γ) + γ b*,
# γ = 0…1 (decision SM56: running flows get the new rates at once; the manager sees the
# current capacities).

# %% tags=["parameters"]
profile = "full"
workers = None
seed = 0
trials = 10
n = 50
traces = ["lstm", "transformer", "cnn"]
duration_s = 600.0
eta_values = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0]
volume_exponents = [-4, -3, -2, -1, 0, 1, 2, 3, 4]
gamma_values = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
period_s = 0.1
model_mb = 200.0
eta = 0.75

# %%
from simlib.papers.selmcast.ssp_experiments import SSPFigs11to13Notebook
from simlib.pipeline.params import notebook_params

globals().update(notebook_params(SSPFigs11to13Notebook, globals()))   # ranges, units, quick values: SSPFigs11to13Notebook

# %%
import matplotlib.pyplot as plt

from simlib.papers.selmcast import ssp_experiments as ex
from simlib.papers.selmcast.ssp_scenario import run_trial
from simlib.pipeline import paths
from simlib.pipeline import claims, plotting, runs, sweep

common = dict(n=[n], duration_s=[duration_s])
grid11 = (sweep.expand_grid(trace=traces, scheme=["selmcast"], eta=eta_values, **common)
          + sweep.expand_grid(trace=traces, scheme=["orpheus"], eta=[eta], **common))
grid12 = sweep.expand_grid(trace=traces, scheme=["selmcast", "orpheus"],
                           model_mb=[model_mb * 2.0 ** e for e in volume_exponents], eta=[eta], **common)
grid13 = sweep.expand_grid(trace=traces, scheme=["selmcast", "orpheus"], gamma=gamma_values,
                           period_s=[period_s], eta=[eta], **common)
frames = {}
for fig_no, grid in ((11, grid11), (12, grid12), (13, grid13)):
    frames[fig_no] = runs.run_notebook_sweep(run_trial, ex.validate_settings(grid), trials=trials, seed=seed,
                                             name=f"45_selmcast_ssp_fig{fig_no}", profile=profile,
                                             workers=workers, desc=f"Fig. {fig_no}")
df11, df12, df13 = frames[11], frames[12], frames[13]
df12 = df12.assign(volume_factor=df12.model_mb / model_mb)
metrics = ["npu_utilization", "avg_scale"]
ex.means(df11, ["trace", "scheme", "eta"], metrics + ["preempted_share"]).round(3)

# %%
ex.means(df12, ["trace", "scheme", "volume_factor"], metrics).unstack("scheme").round(3)

# %%
ex.means(df13, ["trace", "scheme", "gamma"], metrics).unstack("scheme").round(3)

# %%
plotting.set_theme()
orph11 = df11[df11.scheme == "orpheus"].groupby("trace")[metrics].mean()
for fig_no, d, x, xlabel in ((11, df11[df11.scheme == "selmcast"], "eta", "η"),
                             (12, df12, "volume_factor", "data volume factor"),
                             (13, df13, "gamma", "γ (Δ_T = 100 ms)")):
    fig, axes = plt.subplots(len(traces), 2, figsize=(6.6, 2.5 * len(traces)), squeeze=False)
    for r, trace in enumerate(traces):
        for c, m in enumerate(metrics):
            ax = axes[r, c]
            plotting.plot_min_median_max(ax, d[d.trace == trace], x=x, y=m, hue="scheme", legend=(r == c == 0))
            if fig_no == 11:
                ax.axhline(orph11.loc[trace, m], color="grey", ls="--", lw=1, label="orpheus (mean)")
                if r == c == 0:
                    ax.legend()
            if fig_no == 12:
                ax.set_xscale("log", base=2)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(f"{trace}: {'NPU utilization' if c == 0 else 'multicast scale'}")
    fig.suptitle(f"Fig. {fig_no}")
    fig.tight_layout()
    plotting.save_figure(fig, f"selmcast_ssp_fig{fig_no:02d}", figures_dir=paths.FIGURES)

# %% [markdown]
# ## Claims (004 §IV-C4–6)
# Fig. 11's "scale +66/66/58 % for < 6/8/7 % utilization" has no stated baseline; we read
# it as η = 0.75 against η = 0 (the other end of the trade-off the paragraph describes).

# %%
note = f"n={n}, {duration_s:g} s, {trials} trials, means"
s11 = df11[df11.scheme == "selmcast"]
m11 = s11.groupby(["trace", "eta"])[metrics].mean()
e_lo, e_hi = min(eta_values), max(eta_values)
up = all(m11.loc[(t, e_hi), "avg_scale"] > m11.loc[(t, e_lo), "avg_scale"] for t in traces)
down = all(m11.loc[(t, e_hi), "npu_utilization"] < m11.loc[(t, e_lo), "npu_utilization"] for t in traces)
claims.record_claim(paper="004", figure="Fig. 11", claim="larger eta: larger scale, lower utilization (SelMcast)",
                    paper_value="yes", our_value=f"scale up {up}, utilization down {down} (eta {e_lo:g} vs {e_hi:g})",
                    holds=up and down, note=note)
if 0.75 in eta_values and 0.0 in eta_values:
    sg = {t: m11.loc[(t, 0.75), "avg_scale"] / m11.loc[(t, 0.0), "avg_scale"] - 1 for t in traces}
    ul = {t: 1 - m11.loc[(t, 0.75), "npu_utilization"] / m11.loc[(t, 0.0), "npu_utilization"] for t in traces}
    claims.record_claim(paper="004", figure="Fig. 11", claim="eta = 0.75 vs eta = 0: scale gain and utilization loss",
                        paper_value="+66/66/58 % scale; < 6/8/7 % utilization",
                        our_value=f"+{ex.triplet({t: 100 * v for t, v in sg.items()}, '{:.0f}')} % scale; "
                                  f"{ex.triplet({t: 100 * v for t, v in ul.items()}, '{:.1f}')} % utilization",
                        holds=all(sg[t] > 0.3 for t in traces) and all(ul[t] < 0.1 for t in traces),
                        note=note + "; holds = scale gain > 30 % and utilization loss < 10 % on every trace")
half = [e for e in eta_values if e <= 0.5]
flat = {t: float(m11.loc[(t, half), "avg_scale"].max() - m11.loc[(t, half), "avg_scale"].min()) for t in traces}
claims.record_claim(paper="004", figure="Fig. 11", claim="eta <= 0.5 has an inconspicuous effect",
                    paper_value="inconspicuous", our_value="scale spread over eta<=0.5: " + ex.triplet(flat, "{:.3f}"),
                    holds=max(flat.values()) < 0.03, note=note)

m12 = df12.groupby(["trace", "scheme", "volume_factor"])[metrics].mean()
f_lo, f_hi = df12.volume_factor.min(), df12.volume_factor.max()
# utilization falls for both schemes; the scale can only fall for SelMcast (Orpheus sends to p)
dec = (all(m12.loc[(t, s, f_hi), "npu_utilization"] < m12.loc[(t, s, f_lo), "npu_utilization"]
           for t in traces for s in ("selmcast", "orpheus"))
       and all(m12.loc[(t, "selmcast", f_hi), "avg_scale"] < m12.loc[(t, "selmcast", f_lo), "avg_scale"]
               for t in traces))
larger = bool((m12.xs("selmcast", level="scheme")["avg_scale"] > m12.xs("orpheus", level="scheme")["avg_scale"]).all())
ratio12 = m12.xs("selmcast", level="scheme")["avg_scale"] / m12.xs("orpheus", level="scheme")["avg_scale"]
ends12 = "; ".join(f"{s} utilization {ex.triplet(m12.xs((s, f_lo), level=('scheme', 'volume_factor'))['npu_utilization'].to_dict())}"
                   f" -> {ex.triplet(m12.xs((s, f_hi), level=('scheme', 'volume_factor'))['npu_utilization'].to_dict())}"
                   for s in ("selmcast", "orpheus"))
s_ends12 = (f"SelMcast scale {ex.triplet(m12.xs(('selmcast', f_lo), level=('scheme', 'volume_factor'))['avg_scale'].to_dict())}"
            f" -> {ex.triplet(m12.xs(('selmcast', f_hi), level=('scheme', 'volume_factor'))['avg_scale'].to_dict())}")
claims.record_claim(paper="004", figure="Fig. 12", claim="more data: lower utilization and scale; SelMcast always larger scale",
                    paper_value="both decrease; SelMcast scale always larger",
                    our_value=f"volume x{f_lo:g} -> x{f_hi:g}: {ends12}; {s_ends12} (decrease {dec}); "
                              f"SelMcast/Orpheus scale at least {ratio12.min():.2f} (larger at every volume {larger})",
                    holds=dec and larger, note=note)

m13 = df13.groupby(["trace", "gamma", "scheme"])[metrics].mean().unstack("scheme")
sc_ratio = m13[("avg_scale", "selmcast")] / m13[("avg_scale", "orpheus")]
ugap = (m13[("npu_utilization", "selmcast")] - m13[("npu_utilization", "orpheus")]).groupby("trace")
g_lo, g_hi = min(gamma_values), max(gamma_values)
claims.record_claim(paper="004", figure="Fig. 13", claim="SelMcast keeps a larger scale at every gamma (up to +67 %)",
                    paper_value="always larger, up to +67 %",
                    our_value=f"always larger {bool((sc_ratio > 1).all())}; up to +{100 * (sc_ratio.max() - 1):.0f} %",
                    holds=bool((sc_ratio > 1).all()), note=note)
shrinks = {t: float(g.xs(g_lo, level="gamma").iloc[0] - g.xs(g_hi, level="gamma").iloc[0]) for t, g in ugap}
claims.record_claim(paper="004", figure="Fig. 13", claim="SelMcast's utilization gain shrinks as gamma grows",
                    paper_value="decreases slowly; may be < 0 at gamma = 1",
                    our_value="gain(gamma=0) - gain(gamma=1): " + ex.triplet(shrinks, "{:+.3f}"),
                    holds=all(v > 0 for v in shrinks.values()), note=note)
print(claims.load_ledger(paths.run_context().ledger).query("paper == '004' and figure in ['Fig. 11', 'Fig. 12', 'Fig. 13']")
      [["figure", "claim", "paper_value", "our_value", "holds"]].to_string(index=False))

# %% [markdown]
# ## Where we disagree, and why
# The ledger lines printed above are the measured values.
# * **η matters much less than in the paper.** η only acts through line 9: an L3
#   multicast's receivers all have the same remaining volume, so η freezes a whole task
#   once (1 − η) of it is sent (SM63). Under strict-priority sharing in Algorithm 2's order
#   (SM50) most of the running multicasts behind the first few send nothing while they
#   wait, so v_ij = v_i and no η < 1 protects them: they are re-planned, and lose receivers,
#   at every ready event (the `preempted_share` column stays high even at η = 1). The
#   paper's +58–66 % scale at η = 0.75 therefore does not appear here; it would need a
#   sharing rule under which every multicast makes progress (e.g. `sharing="maxmin"`).
# * **Fig. 12**: utilization falls with the volume for both schemes and SelMcast's scale
#   falls towards p/n-plus-Pareto levels; Orpheus's scale is p/n by construction.
# * **Fig. 13**: the selection sees the capacities of the moment but a multicast runs on
#   for several Δ_T periods after it, so with γ → 1 SelMcast's bandwidth-aware choices age
#   quickly and its utilization lead shrinks to about zero at γ = 1, as the paper reports.
#   Orpheus's utilization rises with γ at first here too (the paper's "climbs up and then
#   declines"): re-drawing every link every 100 ms evens out which workers are slow.
