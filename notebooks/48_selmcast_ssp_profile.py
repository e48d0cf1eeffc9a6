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
# # SelMcast §IV-C — the SSP paper profile: each stand-in's spread and tail fitted to Orpheus's utilization (SM75)
#
# The SSP runs of notebooks 43–45 draw compute times from three synthetic stand-ins (`lstm`,
# `transformer`, `cnn` for the paper's LSTM, Transformer and ResNet-50; decision T1) that copy only
# the qualitative shape of the paper's Fig. 3. §IV-C states six numbers for its **baseline**, Orpheus,
# that the stand-ins' spread and tail decide: its average NPU utilization "about 0.63, 0.65, and 0.64"
# (Fig. 7, k = 4) and "0.64, 0.66, and 0.66" with k removed (Fig. 9). Decision SM75 — committed before
# this search was first run — fixes the family and the rule: each stand-in's draws get a log-spread s
# (x → g (x/g)^s around the geometric mean g) and a share f of i.i.d. stragglers c-fold slower, the mean
# kept at 1 s; s = 1, f = 0 is today's stand-in bit for bit. Every candidate (42 per model) runs Orpheus
# alone at both targets in 150 s pilots (notebook 43's 10 trials and seeds); its score is the largest
# |ours − paper|; among the candidates within 0.005 of both (the paper's rounding) — or at the smallest
# score if none is — the one nearest today's stand-in (Wasserstein-1) wins. Full 600 s runs check the
# pilots at each pick and at today's stand-in. SelMcast's numbers never enter the score. The picks are
# the **SSP paper profile** (labelled *fitted*): this notebook shows them beside the real production
# traces of notebook 92 and judges Fig. 7's claims and Fig. 9's levels with k removed at it (ledger setting
# `profile`).

# %% tags=["parameters"]
profile = "full"                          # "full" (paper fidelity) or "quick" (tests)
workers = None                            # processes for the sweep (None: all cores)
seed = 0
trials = 10
n = 50
traces = ["lstm", "transformer", "cnn"]
spread_values = [0.5, 0.625, 0.75, 0.875, 1.0, 1.25]
straggler_fracs = [0.01, 0.03]            # straggler shares besides none
straggler_slowdowns = [2.0, 3.0, 4.0]
pilot_s = 150.0                           # length of a pilot run (s)
duration_s = 600.0                        # the paper's 10 minutes: the check and Fig. 7

# %%
import simlib
from simlib.papers.selmcast.ssp_profile import SSPProfileNotebook

# ranges, units, quick values: the spec
run = simlib.start(SSPProfileNotebook, globals(), notebook="48_selmcast_ssp_profile")

# %%
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from simlib.papers.claim import at_setting, observation
from simlib.papers.selmcast import ssp_claims
from simlib.papers.selmcast import ssp_experiments as ex
from simlib.papers.selmcast import ssp_profile as sp
from simlib.papers.selmcast.ssp_scenario import run_trial
from simlib.pipeline import plotting
from simlib.workloads.trace_shapes import DEFAULT_SHAPE, shape_summary, shaped
from simlib.workloads.traces import REAL_TRACE_NAMES, TraceWrapWarning, load_trace

warnings.filterwarnings("ignore", category=TraceWrapWarning)   # ByteDance's 32-44 steps wrap (T7), as in notebook 92

cands = run.spec.candidates()
key = sp.setting_key


def mean_util(df, settings):
    """Orpheus's mean utilization per setting (rows in (setting, trial) order, decision S2)."""
    assert len(df) == len(settings) * trials
    m = df["npu_utilization"].to_numpy().reshape(len(settings), trials).mean(axis=1)
    return {key(s): v for s, v in zip(settings, m)}


settings = sp.search_settings(traces, cands, duration_s=pilot_s, n=n)
t0 = time.perf_counter()
df = run.sweep(run_trial, settings, name="48_selmcast_ssp_profile_runs", desc="004 SSP profile search (pilots)")
search_wall_s = time.perf_counter() - t0
pilot = mean_util(df, settings)
run.save_measurements(pd.DataFrame({"sweep": ["SSP profile search (pilots)"], "runs": [len(df)],
                                    "wall_s": [round(search_wall_s, 1)]}), "48_selmcast_ssp_profile_search_time")
print(f"{len(cands)} candidates x {len(traces)} stand-ins, {len(settings)} Orpheus pilot runs x {trials} trials "
      f"(wall time: {run.measurement_file('48_selmcast_ssp_profile_search_time')})")

# %% [markdown]
# ## The search table: every candidate, our value and residual (ours − paper) per target, the score, the distance
# Committed as `data/results/48_selmcast_ssp_profile_search.csv`; rows in SM75's order per stand-in (its pick first).

# %%
table = sp.search_table(traces, cands, lambda s: pilot[key(s)], duration_s=pilot_s, n=n)
results = run.results
results.mkdir(parents=True, exist_ok=True)
table.to_csv(results / sp.SEARCH_TABLE, index=False)
picked = sp.pick(table)
for tr in traces:
    committed = sp.PAPER_SHAPES.get(tr)
    print(f"SM75 picks for {tr}: {picked[tr].label()}; committed: {committed.label() if committed else 'none'}"
          + ("" if committed == picked[tr] else "  <-- DIFFERENT: update PAPER_SHAPES"))
cols = ["trace", *sp.KNOBS, *sp.TARGETS, *[f"{t} residual" for t in sp.TARGETS], "score", "w1"]
sp.scores(table).groupby("trace", sort=False).head(6)[cols].round(4)

# %%
plotting.set_theme()
fig, axes = plt.subplots(1, len(traces), figsize=(3.3 * len(traces), 3.0), sharey=True, squeeze=False)
for ax, tr in zip(axes[0], traces):
    d = table[table.trace == tr]
    for (f, c), g in d.groupby(["straggler_frac", "straggler_slowdown"]):
        ax.plot(g["spread"], g["Fig. 7"], marker="o", ms=3, label="no stragglers" if f == 0 else f"f = {f:g}, c = {c:g}")
    for t, (_k, paper) in sp.TARGETS.items():
        ax.axhline(paper[tr], color="black", lw=1, ls="--" if t == "Fig. 7" else ":",
                   label=f"paper, {t}" if tr == traces[0] else None)
    p = picked[tr]
    row = d[(d.spread == p.spread) & (d.straggler_frac == p.straggler_frac) & (d.straggler_slowdown == p.straggler_slowdown)]
    ax.scatter(row["spread"], row["Fig. 7"], s=80, facecolors="none", edgecolors="red", zorder=4,
               label="SM75's pick" if tr == traces[0] else None)
    ax.set(xlabel="log-spread s", title=tr)
axes[0][0].set_ylabel(f"Orpheus's utilization (k = 4, {pilot_s:g} s pilots)")
fig.suptitle("004 SSP: Orpheus's utilization per candidate shape against the paper's (SM75)")
fig.tight_layout()
plotting.figure_legend(fig, title=f"Orpheus at k = 4, mean over {trials} trials; the paper's two levels")
run.save_figure(fig, "selmcast_ssp_profile_search")

# %% [markdown]
# ## The pilots' check, and the residuals at the picks (full-length runs)
# At each stand-in's pick and at today's stand-in, Orpheus runs the full length at both targets with
# the same seeds; SM75 requires every pilot mean within 0.01 of the full run's. The residuals reported
# for the profile are the full runs'.

# %%
check_shapes = {tr: [DEFAULT_SHAPE] + ([picked[tr]] if picked[tr] != DEFAULT_SHAPE else []) for tr in traces}
full_settings = [sp.target_setting(tr, t, sh, duration_s=duration_s, n=n) for tr in traces
                 for sh in check_shapes[tr] for t in sp.TARGETS]
full = mean_util(run.sweep(run_trial, full_settings, name="48_selmcast_ssp_profile_check",
                           desc="004 SSP profile: full-length check"), full_settings)
rows = []
for tr in traces:
    for sh in check_shapes[tr]:
        for t, (_k, paper) in sp.TARGETS.items():
            fs, ps = (sp.target_setting(tr, t, sh, duration_s=d, n=n) for d in (duration_s, pilot_s))
            rows.append(dict(trace=tr, shape=sh.label(), target=t, paper=paper[tr], pilot=pilot[key(ps)],
                             full=full[key(fs)], residual=full[key(fs)] - paper[tr],
                             pilot_minus_full=pilot[key(ps)] - full[key(fs)]))
check = pd.DataFrame(rows)
diff = sp.pilot_check({i: r.pilot for i, r in check.iterrows()}, {i: r.full for i, r in check.iterrows()})
print(f"pilot check: largest |pilot - full| {max(diff.values()):.4f} (SM75 accepts {sp.PILOT_TOL})")
check.round(4)

# %% [markdown]
# ## The fitted stand-ins beside the real traces
# Scale-free shape statistics (in units of the mean) of today's stand-ins, the fitted ones and the seven
# real traces of notebook 92 (their pooled distribution; a real trace is replayed per worker, T7, so its
# persistent slowness is not in these numbers), and Orpheus's utilization on each at Fig. 7's setting in the
# same pilots (real traces: replayed, decision T7).

# %%
real_settings = [dict(scheme="orpheus", trace=tr, k=4, duration_s=pilot_s, n=n) for tr in REAL_TRACE_NAMES]
real_util = mean_util(run.sweep(run_trial, real_settings, name="48_selmcast_ssp_profile_real",
                                desc="004 SSP profile: Orpheus on the real traces"), real_settings)
shape_rows = []
for tr in traces:
    base = load_trace(tr).rescaled(1.0)
    for what, sh in (("stand-in", DEFAULT_SHAPE), ("fitted", picked[tr])):
        shape_rows.append(dict(trace=tr, kind=what, shape=sh.label(), **shape_summary(shaped(base, sh)),
                               orpheus_util=pilot[key(sp.target_setting(tr, "Fig. 7", sh, duration_s=pilot_s, n=n))]))
for tr, s in zip(REAL_TRACE_NAMES, real_settings):
    shape_rows.append(dict(trace=tr, kind="real", shape="recorded", **shape_summary(load_trace(tr)),
                           orpheus_util=real_util[key(s)]))
shapes_table = pd.DataFrame(shape_rows)
real = shapes_table[shapes_table.kind == "real"]
for r in shapes_table[shapes_table.kind == "fitted"].itertuples():
    print(f"fitted {r.trace}: CV {r.cv:.3f} (real traces {real.cv.min():.3f}-{real.cv.max():.3f}, "
          f"{(real.cv < r.cv).sum()} of {len(real)} below), p99 {r.p99:.2f} x mean "
          f"(real {real.p99.min():.2f}-{real.p99.max():.2f}, {(real.p99 < r.p99).sum()} below)")
shapes_table.round(3)

# %%
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(9.5, 3.4))
u = np.linspace(0.0, 0.9995, 2000)
colors = dict(zip(ex.TRACE_ORDER, ("C0", "C1", "C2")))
for tr in REAL_TRACE_NAMES:
    t = load_trace(tr)
    ax0.plot(t.quantile(u) / t.mean, u, color="0.6", lw=0.8, label="real traces" if tr == REAL_TRACE_NAMES[0] else None)
for tr in traces:
    base = load_trace(tr).rescaled(1.0)
    ax0.plot(base.quantile(u), u, color=colors.get(tr), ls="--", lw=1, label=f"{tr} stand-in")
    ax0.plot(shaped(base, picked[tr]).quantile(u), u, color=colors.get(tr), lw=1.6, label=f"{tr} fitted")
ax0.set(xscale="log", xlabel="compute time / mean", ylabel="CDF", title="distributions")
for r in shapes_table.itertuples():
    style = dict(real=dict(marker="o", color="0.5"), fitted=dict(marker="*", s=90, color=colors.get(r.trace)),
                 **{"stand-in": dict(marker="x", color=colors.get(r.trace))})[r.kind]
    ax1.scatter(r.cv, r.p99, **style)
    ax1.annotate(r.trace if r.kind != "stand-in" else "", (r.cv, r.p99), fontsize=6, xytext=(3, 2),
                 textcoords="offset points")
ax1.set(xscale="log", xlabel="coefficient of variation", ylabel="p99 / mean",
        title="x today's stand-ins, * fitted, o real traces")
fig.suptitle("004 SSP: the fitted stand-ins (SM75) beside today's and the real traces (notebook 92)")
fig.tight_layout()
ax0.legend(fontsize=6)
run.save_figure(fig, "selmcast_ssp_profile_shapes")

# %% [markdown]
# ## Fig. 7's claims, and Fig. 9's levels with k removed, at the SSP paper profile
# Notebook 43's case study (SelMcast and Orpheus, per-flow max-min, τ from the trace, 10 trials, the same
# seeds) with each stand-in at its committed fitted shape (`PAPER_SHAPES`), and the same runs with k removed
# (Fig. 9's levels: notebook 44's k = ∞ setting), judged by the same rules (`ssp_claims.fig7`, and of
# `ssp_claims.fig9` the four rows at k removed; its trends over k need notebook 44's whole axis) and recorded
# at the ledger setting `profile`. The utilization rows of both hold Orpheus's fitted levels: they are marked
# fitted by SM75 (shown, never counted); SelMcast's part of each (Fig. 7: about 0.68/0.70/0.70; Fig. 9:
# 0.72/0.77/0.73), which the fit did not target, is recorded alone as an observation. Not run at the profile
# here: SM50's priority reading and τ ≡ 0; the rest of Figs. 8–13 is judged at the profile by notebooks 44–45
# (their `profile` rows), whose Fig. 7-setting runs this section reads from the trial cache.

# %%
shapes = {tr: sh for tr, sh in sp.PAPER_SHAPES.items() if tr in traces}
fixed = dict(n=n, duration_s=duration_s, p=0.3, sharing="maxmin", tau_estimate="trace")
profile_settings = sp.at_profile([dict(trace=tr, scheme=sc, k=k, **fixed) for k in (4, None) for tr in shapes
                                  for sc in ("orpheus", "selmcast")], shapes)


def selmcast_part(df, fig, paper_sel, rel, what):
    """SelMcast's utilization alone (the part of a fitted row SM75 did not target), as an observation."""
    sel = ex.means(df[df.scheme == "selmcast"], ["trace"], ["npu_utilization"])["npu_utilization"].to_dict()
    return observation(
        "004", fig, f"SSP: SelMcast's utilization {what}at the SSP profile (the part of the fitted row SM75 did "
                    "not target)", ex.triplet(sel), paper_value=ex.triplet(paper_sel),
        note=f"mean over {trials} trials at {sp.profile_label(shapes)}; within {rel:.0%} (SM70): "
             + ", ".join(f"{t} {'yes' if abs(sel[t] / paper_sel[t] - 1) <= rel else 'no'}"
                         for t in ex.TRACE_ORDER if t in sel))


judged = []
if shapes:
    at_p = run.sweep(run_trial, profile_settings, name="48_selmcast_fig7_fig9_profile",
                     desc="Figs. 7 and 9 k removed (SSP profile)")
    f7, f9 = at_p[at_p.k == 4], at_p
    judged = ssp_claims.fig7(f7, setting="profile") + [
        c for c in ssp_claims.fig9(f9, setting="profile") if c.claim.startswith("k removed:")]
    judged += [selmcast_part(f7, "Fig. 7", ssp_claims.FIG7_UTIL[1], ssp_claims.REL_ABOUT, ""),
               selmcast_part(at_p[at_p.k.isna()], "Fig. 9", ssp_claims.FIG9_UTIL[1], ssp_claims.REL_VALUE,
                             "with k removed ")]
fit_obs = observation("004", "Figs. 7, 9 (SM75)", "SSP paper profile: SM75's pick of each stand-in's shape",
                      "; ".join(f"{tr} {picked[tr].label()} (largest |residual| "
                                f"{sp.scores(table)[lambda d: d.trace == tr].score.iloc[0]:.3f})" for tr in traces),
                      note=f"decision SM75; search table data/results/{sp.SEARCH_TABLE}; pilots checked against "
                           f"{duration_s:g} s runs (largest difference {max(diff.values()):.3f})")
recorded = run.record(at_setting(judged + [fit_obs], "profile"))
pd.DataFrame(recorded)[["figure", "claim", "paper_value", "our_value", "holds", "fitted"]]

# %% [markdown]
# ## What the profile changes, and what it does not judge
# Measured while writing this (a serial scratch run of this notebook's full grids, the same seeds; the
# printed numbers above are the reproduction's):
# * **The fit.** No candidate is within 0.005 of both targets: our Orpheus barely moves when k is removed
#   (≤ 0.005) while the paper's rises by 0.01–0.02, so every pick is its model's smallest score — LSTM
#   s = 0.625 with 1 % of draws 3× slower, Transformer s = 0.75, ResNet-50 s = 0.75 with 1 % of draws 3×
#   slower. Full-run residuals at the picks +0.001 / −0.011, +0.004 / −0.008, +0.006 / −0.015 (today's stand-ins
#   −0.065 / −0.074, −0.013 / −0.024, +0.023 / +0.004); pilots within 0.006 of the full runs.
# * **Against the real traces.** The LSTM and Transformer stand-ins become narrower (CV 0.76 → 0.45,
#   0.57 → 0.42, next to `bytedance-ar`'s 0.42) and ResNet-50's gains a tail (CV 0.07 → 0.21, p99 1.3 → 2.1 × the
#   mean); all three keep a longer p99 than every real trace but `pai-job4`. The real traces' slowness is
#   persistent per worker (T7), which no i.i.d. shape reproduces: their Orpheus utilization in the same pilots
#   ranges from 0.36 (`pai-job4`) to 0.67.
# * **Fig. 7 at the profile.** SelMcast's utilization becomes 0.67 / 0.71 / 0.73 (paper about 0.68 / 0.70 /
#   0.70; default 0.57 / 0.68 / 0.79); its scale 0.53 / 0.53 / 0.46 (paper 0.55; default 0.58 / 0.55 / 0.46): the
#   ResNet-50 shortfall does not come from the stand-in's spread or tail within this family.
# * **Fig. 9 with k removed.** SelMcast's utilization 0.73 / 0.77 / 0.82 (paper 0.72 / 0.77 / 0.73; default
#   0.60 / 0.73 / 0.90), its scale 0.45 / 0.45 / 0.36 (paper 0.46 / 0.44 / 0.42); "up to about 1.17× and 1.53×"
#   becomes 1.27× (ResNet-50) and 1.51× (Transformer), both within 15 % (default 1.35× and 1.79× on LSTM).
# * **Judged elsewhere at the profile:** Fig. 9's rows over the k axis and Figs. 8, 10–13 in notebooks 44–45
#   (max-min, their whole grids; about 450 CPU-s more there). Not judged at the profile: SM50's priority reading
#   and τ ≡ 0 of Fig. 7 (readings of today's stand-ins). This notebook costs about 270 CPU-s (the search 140–225,
#   the check 41; Figs. 7 and 9 at the profile come from notebook 44's runs). `ssp_profile.at_profile` puts any
#   SSP sweep at the profile and `ssp_claims.fig7` … `fig13` take `setting="profile"`.
