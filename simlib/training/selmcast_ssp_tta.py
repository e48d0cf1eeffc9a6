"""Time to accuracy of SSP multicast schedules (seed 004 §IV-C settings, beyond the paper).

A trial simulates one :class:`~simlib.papers.selmcast.ssp_scenario.SSPScenario`,
turns its deliveries into a schedule log (each receiver averages the model it
received into its own: decision SM66) and replays it through minibatch SGD
(:mod:`simlib.training.replay`).  Keys starting with ``train_`` configure the
training (defaults :data:`simlib.training.time_to_accuracy.TRAIN_DEFAULTS`),
``target_acc`` is the test accuracy of the average model that counts as
reached (default: the problem's); the rest go to the scenario.
"""
from __future__ import annotations

import numpy as np

from simlib.papers.selmcast.ssp_metrics import ssp_metrics
from simlib.papers.selmcast.ssp_replay import multicast_schedule_log
from simlib.papers.selmcast.ssp_scenario import SSPScenario, simulate
from simlib.training.time_to_accuracy import replay_to_target, split_training_params

__all__ = ["trial"]


def trial(params: dict, seed: np.random.SeedSequence) -> dict:
    """SSP metrics of the run plus ``time_to_target_s``, ``iterations_to_target`` and ``final_acc``."""
    params, target, cfg = split_training_params(params)
    log = simulate(SSPScenario.from_params(params), seed)
    reached, row = replay_to_target(multicast_schedule_log(log), cfg, target, seed)
    out = {**ssp_metrics(log), **reached}
    out["iterations_to_target"] = float("nan") if row is None else float(row["iterations"])
    return out
