"""Time to accuracy of SSP multicast schedules (seed 004 §IV-C settings, beyond the paper).

A trial simulates one :class:`~simlib.papers.selmcast.ssp_scenario.SSPScenario`,
turns its deliveries into a schedule log (each receiver averages the model it
received into its own: decision SM66) and replays it through minibatch SGD
(:mod:`simlib.training.replay`).  Keys starting with ``train_`` configure the
training (defaults :data:`simlib.training.time_to_accuracy.TRAIN_DEFAULTS`),
``target_acc`` is the test accuracy of the average model that counts as
reached; the rest go to the scenario.
"""
from __future__ import annotations

import math

import numpy as np

from simlib.core.seeding import child_seed
from simlib.core.validate import check_real
from simlib.papers.selmcast.ssp_metrics import ssp_metrics
from simlib.papers.selmcast.ssp_replay import multicast_schedule_log
from simlib.papers.selmcast.ssp_scenario import SSPScenario, simulate
from simlib.training.replay import replay, time_to_accuracy
from simlib.training.time_to_accuracy import TRAIN_DEFAULTS

__all__ = ["trial"]


def trial(params: dict, seed: np.random.SeedSequence) -> dict:
    """SSP metrics of the run plus ``time_to_target_s``, ``iterations_to_target`` and ``final_acc``."""
    params = dict(params)
    target = check_real("target_acc", params.pop("target_acc", 0.9), 0.0, 1.0)
    train = {k: params.pop(k) for k in list(params) if k.startswith("train_")}
    unknown = sorted(set(train) - set(TRAIN_DEFAULTS))
    if unknown:
        raise ValueError(f"unknown training parameter(s) {unknown}; allowed: {sorted(TRAIN_DEFAULTS)}")
    cfg = {**TRAIN_DEFAULTS, **train}
    log = simulate(SSPScenario.from_params(params), seed)
    res = replay(multicast_schedule_log(log), cfg["train_problem"], model=cfg["train_model"],
                 lr=cfg["train_lr"], batch_size=cfg["train_batch"], eval_every_s=cfg["train_eval_every_s"],
                 seed=child_seed(seed, 7))
    curve = res.curve
    t = time_to_accuracy(curve, target)
    out = ssp_metrics(log)
    out["final_acc"] = float(curve["test_acc"].iloc[-1])
    out["time_to_target_s"] = float(t)
    out["iterations_to_target"] = (float("nan") if math.isnan(t)
                                   else float(curve.loc[curve["time_s"] == t, "iterations"].iloc[0]))
    return out
