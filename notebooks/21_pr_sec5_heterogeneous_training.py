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
# # Partial Reduce §4–5 — group-frozen avoidance, group size P, dynamic weights, heterogeneity
#
# Seed 002 trains real CNNs on 8 GPUs; heterogeneity level HL puts HL workers on one
# shared GPU (they become ~HL× slower). We rebuild the setting in the simulator —
# 8 workers, a homogeneous 10 Gbps network, a 100 MB model in flight, compute times from
# the CNN trace (mean 1 s), HL workers slowed HL× — and *replay each simulated schedule
# through real training* (softmax regression on scikit-learn's digits, lr 0.1, batch 32,
# one SGD step per local iteration, model averaging with the sync's weights). Time to
# accuracy = first time the average of all replicas reaches `target_acc` on held-out
# data; "#updates" = partial reduces launched until then (002 counts each partial
# reduce as one update).
#
# **Two settings** (issue 32, decision PR19). The sweeps run twice: at the repository's
# defaults above, and at 002's **paper profile** (PR16, notebook 23: the cluster's open
# settings fitted to Table 1's per-update time ratios of the baselines), with the values these runs read --
# the model size on the wire, the compute-time spread and, at HL > 1, the shared GPU's
# slowdown γ (partial and all reduce have no server and no AD neighbour). Same trials and
# seeds; the profile's cap `profile_duration_s` is RP16's rule (more than twice the slowest
# pilot run). The ledger judges every §5 claim at both (settings `default` and `profile`).
# The profile's 460 runs cost about 31 s of CPU against the default's 46 s (measured niced and
# serial: a 1000 MB model makes fewer local steps in 300 s); the quick profile runs in about 8 s.
#
# **Trials (decisions S24, S25).** Every setting starts at `trials` = 20 paired trials. While a Table 1
# verdict's interval straddles its threshold, the settings it reads (at the HL it names: partial reduce at
# its P, every weighting rule, and all reduce when it compares with it) run `trials_step` = 5 more (cached
# trials are loaded), up to `trials_cap` = 40; a verdict still straddling there is *undecided at 40 trials*.

# %% tags=["parameters"]
profile = "full"                  # "full" or "quick" (tests)
workers = None                    # processes for the sweep (None: all cores)
seed = 0
trials = 20                       # S25: every setting starts at 20 paired trials ...
trials_step = 5                   # ... Table 1's settings a verdict with a straddling interval reads add 5 ...
trials_cap = 40                   # ... up to 40 (S25); still undecided there: "undecided at 40 trials"
n = 8
p_values = [2, 3, 4, 5, 6, 7, 8]  # group sizes P for the Fig. 8 sweep (P equal to n acts like all-reduce)
table_p = [3, 5]                  # Table 1's partial-reduce group sizes
hl_values = [1, 3]                # heterogeneity levels of Table 1
duration_s = 300.0
profile_duration_s = 300.0        # the paper profile's cap (PR19): 2.9x the slowest of its 69 pilot runs, 105 s
target_acc = 0.90
bandwidth_gbps = 10.0
model_mb = 100.0
trace = "cnn"

# %%
import simlib
from simlib.training.notebook_specs import HeterogeneousTrainingNotebook

# ranges, units, quick values: the spec
run = simlib.start(HeterogeneousTrainingNotebook, globals(), notebook="21_pr_sec5_heterogeneous_training")

# %% [markdown]
# ## Group-frozen avoidance (§4)
# Workers 0, 1 compute in 1.0 s, workers 2, 3 in 1.3 s, P = 2: FIFO always pairs {0, 1}
# and {2, 3}, so the two pairs never exchange models (ρ = 1). Our group filter keeps the
# sync graph of the last T groups and, when it is disconnected, forms the next group
# from the FIFO head plus the earliest queued worker of another component (holding the
# queue until one is ready), filling the rest FIFO (decision PR9).

# %%
from simlib.papers.partial_reduce.experiments import frozen_groups

frozen = {}
for use in (False, True):
    log, rho, groups, holds = frozen_groups.run(use_filter=use)
    frozen[use] = rho
    print(f"{'with filter' if use else 'plain FIFO ':12s} rho = {rho:.3f}; groups formed: {groups}; "
          f"syncs {len(log.syncs)}; queue holds {holds}")

# %% [markdown]
# ## Sweeps: group size P (Fig. 8) and Table 1's comparisons
# The run-time panel of Fig. 8 carries the paper's number as grey bands labelled "paper": §5.2.3's smallest run time
# at P = 3 and 5 (`pr_claims.paper_marks`, the constant the Fig. 8 claim judges; issue 44 item 2).

# %%
import numpy as np
import pandas as pd

from simlib.papers.partial_reduce import claims as pr_claims
from simlib.papers.partial_reduce import profile as pr_profile
from simlib.pipeline import plotting, sweep
from simlib.pipeline.decide import run_until_decided
from simlib.training import time_to_accuracy as tta

common = dict(n=[n], bandwidth_gbps=[bandwidth_gbps], model_mb=[model_mb], trace=[trace],
              duration_s=[duration_s], target_acc=[target_acc])
settings = (sweep.expand_grid(scheme=["partial"], hl=[1], p=[x / n for x in p_values], weights=["constant"], **common)
            + sweep.expand_grid(scheme=["partial"], hl=hl_values, p=[x / n for x in table_p], weights=["constant"], **common)
            + sweep.expand_grid(scheme=["partial"], hl=hl_values, p=[x / n for x in table_p], weights=["dynamic"],
                                weights_missing=["oldest", "closest", "initial"], **common)
            + sweep.expand_grid(scheme=["allreduce"], hl=hl_values, **common))
unique = sweep.unique_settings(settings)


def until_decided(sets, name, desc, setting):
    """The sweep at ``trials``, then ``trials_step`` more for the settings of every undecided verdict, up to
    ``trials_cap`` (S25, :func:`simlib.pipeline.decide.run_until_decided`)."""
    return run_until_decided(run, tta.trial, sets, name=name, desc=desc,
                             open_settings=lambda s, undecided: pr_claims.sec5_open_settings(s, undecided, n),
                             judge=lambda d: pr_claims.sec5(pr_claims.with_rules(d), setting=setting),
                             start=trials, step=trials_step, cap=trials_cap)


df = until_decided(unique, "21_pr_training", "002 harness", "default")
# the same runs at 002's paper profile, with the values each run reads (PR16, PR19)
PROFILE, DEFAULT = pr_profile.PAPER_PROFILE, pr_profile.DEFAULT_SETTINGS
df_p = until_decided([dict(s, duration_s=profile_duration_s) for s in pr_profile.at_profile_read(unique)],
                     "21_pr_training_profile", "002 harness (profile)", "profile")
frames = {"default": pr_claims.with_rules(df), "profile": pr_claims.with_rules(df_p)}
df = frames["default"]

# %%
plotting.set_theme()
both = pd.concat(frames, names=["setting"]).reset_index("setting")
f8 = both[(both.scheme == "partial") & (both.hl == 1) & (both.rule == "CON")]
fig = plotting.metric_panels(f8, x="P", hue="setting",
                             metrics=["updates_to_target", "time_per_update_s", "time_to_target_s"],
                             xlabel="group size P", title=f"002 Fig. 8 analogue (n={n}, HL=1, target {target_acc:.0%}; "
                                                          f"profile: {PROFILE.model_mb:g} MB, cv {PROFILE.compute_cv}, "
                                                          "PR16)")
# the paper's numbers (§5.2.3: the smallest run time at P = 3 and 5), from the constants the claims judge
# (pr_claims.paper_marks): a band at each P on the run-time panel, labelled "paper"
ax_t = fig.axes[2]
bands = [ax_t.axvspan(P - 0.25, P + 0.25, color="0.85", zorder=0, label=label)
         for _, _, P, _, label in pr_claims.paper_marks("Fig. 8")]
ax_t.legend(handles=bands[:1], fontsize=7, loc="upper right")
run.save_figure(fig, "pr_fig08_group_size")

table = (both[both.P.isin(table_p + [n])]
         .groupby(["setting", "hl", "P", "rule"])[["time_to_target_s", "updates_to_target", "time_per_update_s",
                                                   "final_acc"]]
         .median().round(3))
table

# %% [markdown]
# ## Claims (002 §4, §5.2)
# The rules (`simlib/papers/partial_reduce/claims.py`): comparisons are paired per trial (the
# median of the per-trial ratio decides); where Table 1 gives numbers, our ratio must fall in
# the range of Table 1's three CNNs; "4×" within 10 %; Fig. 8's trends by Spearman's rank
# correlation (|r_s| > 0.8).

# %%
from simlib.papers.claim import cross_causes

recorded = pr_claims.group_filter(frozen[False], frozen[True]) + cross_causes(
    pr_claims.sec5(df), pr_claims.sec5(frames["profile"], setting="profile"), PROFILE.label(),
    default_label=DEFAULT.label())
run.record(recorded)
print(f"runs that never reached {target_acc:.0%}: " + ", ".join(
    f"{k} {int(d.time_to_target_s.isna().sum())} of {len(d)}" for k, d in frames.items()))
pd.DataFrame([(c.figure, c.claim, c.setting, c.holds) for c in recorded if c.kind == "claim"],
             columns=["figure", "claim", "setting", "holds"]).pivot(index=["figure", "claim"], columns="setting",
                                                                    values="holds")

# %% [markdown]
# ## Where we disagree with the paper, and why
# Every ledger row above that does not hold carries its cause, computed from these runs. In
# short: how many updates a target accuracy takes is a property of the learning task, and ours
# is a small stand-in replayed through simulated schedules, so Table 1's dynamic-vs-constant
# comparison and Fig. 8's best P need not carry over; the literal reading of "the initial
# model x_1" (PR13) fails for a reason of its own, it pulls every synced model back toward the
# initialization. Where partial reduce loses to all reduce in run time, or its per-update
# speed-up misses the paper's 4×, the cause row compares our per-update speed-up and update
# count with Table 1's: one update's time is set by our simulated cluster (and its model of a
# slow, shared GPU as an HL× slower worker), not by the paper's GPUs. At the paper profile the
# cluster's costs are fitted to Table 1's per-update ratios of the baselines (PR16), so a claim that fails at the
# default and holds there (or the reverse) names the other setting in its cause; one that fails
# at both is not a matter of these open settings.
