"""Time to accuracy: simulate a schedule, then replay it through real training.

The schedule (who synchronizes with whom, when, with which weights) does not
depend on model values, so a trial simulates a
:class:`~simlib.papers.cluster_scenario.Scenario` once and replays its schedule log through
minibatch SGD on a real data set (:mod:`simlib.training.replay`).  Parameters whose
names start with ``train_`` configure the training; ``target_acc`` is the test
accuracy of the average model that counts as "converged"; all other keys go to
the scenario.
"""
from __future__ import annotations

import math

import numpy as np

from simlib.runtime.metrics import sync_metrics
from simlib.training.replay import replay, time_to_accuracy
from simlib.core.seeding import child_seed
from simlib.papers.cluster_scenario import Scenario, simulate
from simlib.core.validate import check_real

__all__ = ["trial", "TRAIN_DEFAULTS"]

#: One shared training configuration for every scheme (docs/decisions/replay.md).
TRAIN_DEFAULTS = {"train_problem": "digits", "train_model": "softmax", "train_lr": 0.1,
                  "train_batch": 32, "train_eval_every_s": 1.0}


def trial(params: dict, seed: np.random.SeedSequence) -> dict:
    """System metrics of the run plus time/iterations/updates to ``target_acc`` and final accuracy.

    ``updates_to_target`` counts synchronizations launched until the target is first
    met (002's "#update"); ``time_per_update_s`` = time to target / updates.
    """
    params = dict(params)
    target = check_real("target_acc", params.pop("target_acc", 0.85), 0.0, 1.0)
    train = {k: params.pop(k) for k in list(params) if k.startswith("train_")}
    unknown = sorted(set(train) - set(TRAIN_DEFAULTS))
    if unknown:
        raise ValueError(f"unknown training parameter(s) {unknown}; allowed: {sorted(TRAIN_DEFAULTS)}")
    cfg = {**TRAIN_DEFAULTS, **train}
    log = simulate(Scenario.from_params(params), seed)
    res = replay(log, cfg["train_problem"], model=cfg["train_model"], lr=cfg["train_lr"],
                 batch_size=cfg["train_batch"], eval_every_s=cfg["train_eval_every_s"],
                 seed=child_seed(seed, 7))
    curve = res.curve
    t = time_to_accuracy(curve, target)
    out = sync_metrics(log)
    out["final_acc"] = float(curve["test_acc"].iloc[-1])
    out["time_to_target_s"] = float(t)
    if math.isnan(t):
        out["iterations_to_target"] = float("nan")
        out["updates_to_target"] = float("nan")
        out["time_per_update_s"] = float("nan")
    else:
        row = curve[curve["time_s"] == t].iloc[0]
        out["iterations_to_target"] = float(row["iterations"])
        out["updates_to_target"] = float(row["syncs"])
        out["time_per_update_s"] = float(t / row["syncs"]) if row["syncs"] > 0 else float("nan")
    return out
