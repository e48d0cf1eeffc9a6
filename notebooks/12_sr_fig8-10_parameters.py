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
# # Selective Reduce §IV-B2–4 — impact of p, η and θ (Figs. 8, 9, 10)
#
# Transformer trace (the paper reports the rest on it), n = 200 (Fig. 8's "scale ≈ 130,
# larger than half of the cluster" implies n = 200), other settings as §IV-A.
# Fig. 8 varies p from 0.1n to 0.5n for selective and partial reduce; Fig. 9 varies η
# from 0 to 0.8 and Fig. 10 θ from 1 to 20 for selective reduce, with partial reduce
# (which has neither knob) as the reference line.

# %% tags=["parameters"]
profile = "full"                    # "full" (paper fidelity) or "quick" (tests)
workers = None                      # processes for the sweep (None: all cores)
seed = 0
trials = 20
n = 200
trace = "transformer"
duration_s = 100.0
p_values = [0.1, 0.2, 0.3, 0.4, 0.5]
eta_values = [0.0, 0.2, 0.4, 0.6, 0.8]
theta_values = [1.0, 5.0, 10.0, 15.0, 20.0]
p = 0.3
eta = 0.3
theta = 1.0
dt_s = 0.1

# %%
from simlib.papers.selective_reduce.experiments.figures import Fig8to10Notebook
import simlib

# ranges, units, quick values: Fig8to10Notebook
run = simlib.start(Fig8to10Notebook, globals(), notebook="12_sr_fig8-10_parameters")

# %%
import pandas as pd

from simlib.papers.selective_reduce import claims as sr_claims
from simlib.papers.selective_reduce import profile as sr_profile
from simlib.papers.selective_reduce.experiments import suite
from simlib.pipeline import plotting, sweep

base = dict(trace=[trace], n=[n], duration_s=[duration_s], dt_s=[dt_s])
# identical settings appear in several sweeps (e.g. p=0.3, eta=0.3, theta=1): run each once
settings = sweep.unique_settings(
    sweep.expand_grid(scheme=["partial", "selective"], p=p_values, eta=[eta], theta=[theta], **base),
    sweep.expand_grid(scheme=["selective"], p=[p], eta=eta_values, theta=[theta], **base),
    sweep.expand_grid(scheme=["selective"], p=[p], eta=[eta], theta=theta_values, **base))
# the grid at every judged setting: the default, the paper profile where it differs (E18), Δt's reading (E19)
judged = suite.judged_settings()
frames = {s: run.scenarios(settings if s == "default" else sr_profile.at_profile(settings, prof),
                           name=suite.result_name("12_sr_fig8-10", s), desc=f"Figs 8-10 ({s})")
          for s, prof in judged.items()}
df = frames["default"]
pr_ref = df[(df.scheme == "partial") & (df.p == p)]

# %%
plotting.set_theme()
metrics = ["avg_sync_scale", "avg_sync_time_s", "total_sync", "total_iteration"]
fig = plotting.metric_panels(df[(df.eta == eta) & (df.theta == theta)], x="p", metrics=metrics,
                             xlabel="p / n", title="Fig. 8: impact of p")
if n == 200:   # §IV-B2: selective reduce's scale ≈ 130 at p = 0.5n, n = 200
    fig.axes[metrics.index("avg_sync_scale")].plot([0.5], [130], marker="*", ms=11, color="crimson", ls="none",
                                                  label="paper: ≈130")
    fig.axes[metrics.index("avg_sync_scale")].legend(fontsize=7, loc="upper left")
run.save_figure(fig, "sr_fig08_p")


def knob_figure(knob, values, fig_no):
    sr = df[(df.scheme == "selective") & (df.p == p)]
    sr = sr[(sr.eta == eta) if knob == "theta" else (sr.theta == theta)]
    ref = pd.concat([pr_ref.assign(**{knob: v}) for v in values])
    d = pd.concat([sr, ref])
    f = plotting.metric_panels(d, x=knob, metrics=metrics, xlabel={"eta": "η", "theta": "θ"}[knob],
                               title=f"Fig. {fig_no}: impact of {knob} (partial reduce has no {knob})")
    run.save_figure(f, f"sr_fig{fig_no:02d}_{knob}")
    return sr


sr_eta = knob_figure("eta", eta_values, 9)
sr_theta = knob_figure("theta", theta_values, 10)

# %% [markdown]
# ## Figs. 9–10 again at a paper-like compute-time scale (decision E17)
# Our stand-in traces have a 1 s mean compute time (E6); at a 5 s mean notebook 15
# measures selective reduce's total-iteration gain over partial reduce inside the
# paper's 1.1–1.17×. Where a Fig. 9–10 statement fails at 1 s, its recorded cause comes
# from the same η and θ sweeps at that scale: "stand-in trace" if it holds there,
# "unexplained" if not.

# %%
rescaled_settings = sweep.unique_settings(
    sweep.expand_grid(scheme=["selective"], p=[p], eta=eta_values, theta=[theta],
                      compute_mean_s=[sr_claims.PAPER_LIKE_COMPUTE_MEAN_S], **base),
    sweep.expand_grid(scheme=["selective"], p=[p], eta=[eta], theta=theta_values,
                      compute_mean_s=[sr_claims.PAPER_LIKE_COMPUTE_MEAN_S], **base))
rescaled = run.scenarios(rescaled_settings, name="12_sr_fig9-10_rescaled", desc="Figs 9-10 at a 5 s compute mean")
metrics9 = ["avg_sync_scale", "avg_sync_time_s", "total_sync", "total_iteration"]
pd.concat({"η (θ = %g)" % theta: rescaled[rescaled.theta == theta].groupby("eta")[metrics9].median(),
           "θ (η = %g)" % eta: rescaled[rescaled.eta == eta].groupby("theta")[metrics9].median()}).round(2)

# %% [markdown]
# ## Claims (000 §IV-B2–4), on medians over trials
# Rules (trends monotone over the sweep, "as θ grows from 1 to 20" at the two ends,
# "about" / "not very sensitive" within 10 % — decision E15) are in
# `simlib/papers/selective_reduce/claims.py: figs8_10`. Each claim is judged at every setting of
# `suite.judged_settings()` (the default, the paper profile where it differs, E18, and Δt's reading,
# E19; S19); a claim failing at all of them cites where notebook 16's search found it holding.

# %%
run.record(suite.cross_settings({s: sr_claims.figs8_10(f, p=p, eta=eta, theta=theta,
                                                       rescaled=rescaled if s == "default" else None)
                                 for s, f in frames.items()}, profile=profile))

# %% [markdown]
# ## Where we disagree, and why
# The numbers behind this discussion, from this run's results:

# %%
med = lambda d, by, m: d.groupby(by)[m].median()
sr8 = df[(df.scheme == "selective") & (df.eta == eta) & (df.theta == theta)]
tm_eta, it_eta = (med(sr_eta, "eta", m) for m in ("avg_sync_time_s", "total_iteration"))
ts_th, it_th = (med(sr_theta, "theta", m) for m in ("total_sync", "total_iteration"))
print(f"Fig. 8(a): selective reduce's median scale at p = 0.5n: {med(sr8, 'p', 'avg_sync_scale').get(0.5, float('nan')):.1f} "
      f"with n = {n} (paper: ≈130 with n = 200)")
print("Fig. 9, median sync time over η:", " → ".join(f"{x:.2f} s" for x in tm_eta),
      "| total iteration:", " → ".join(f"{x:.0f}" for x in it_eta))
print("Fig. 10, θ", " → ".join(f"{x:g}" for x in ts_th.index), ": total sync", " → ".join(f"{x:.0f}" for x in ts_th),
      "| total iteration", " → ".join(f"{x:.0f}" for x in it_th))
print(f"the same at a {sr_claims.PAPER_LIKE_COMPUTE_MEAN_S:g} s mean compute time: θ → total sync",
      " → ".join(f"{x:.0f}" for x in med(rescaled[rescaled.eta == eta], "theta", "total_sync")),
      "| total iteration", " → ".join(f"{x:.0f}" for x in med(rescaled[rescaled.eta == eta], "theta", "total_iteration")))

# %% [markdown]
# Fig. 8 reproduces closely (compare the scale at p = 0.5n above with the paper's ≈ 130).
# Figs. 9 and 10 disagree in the same direction: in our runs anything that makes groups
# include slower workers (larger η, larger θ, hence less replacement) lengthens syncs, and
# because our runs are sync-bound (decision E6: 500 MB syncs take seconds, stand-in compute
# 1 s) longer syncs cost more iterations than the saved waiting returns. So we see no dip in
# sync time over η, and fewer (not more) syncs and iterations as θ grows.
# The re-run at a 5 s mean compute time (E17, printed above) separates the two kinds of
# disagreement: there Fig. 10's directions appear (total sync and total iteration grow from
# θ = 1 to 20, so those rows' cause is the stand-in trace), while Fig. 9's failing
# statements (dip in sync time, rise-then-drop of iterations, scale above n − p at η = 0.8)
# and "not very sensitive to θ" still fail there (cause unexplained; each row's cause
# lists the values at 5 s).
