"""Time to accuracy of SSP multicast schedules (seed 004 §IV-C settings, beyond the paper).

A trial simulates one :class:`~simlib.papers.selmcast.ssp_scenario.SSPScenario`,
turns its deliveries into a schedule log (each receiver averages the model it
received into its own: decision SM66) and replays it through minibatch SGD
(:mod:`simlib.training.replay`).  Keys starting with ``train_`` and ``target_acc``
configure the training (:class:`~simlib.training.params.TrainingParams`; a key
left out takes :data:`~simlib.training.params.TRIAL_DEFAULTS`' value); the rest
go to the scenario.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from simlib.papers.selmcast.ssp_metrics import ssp_metrics
from simlib.papers.selmcast.ssp_replay import multicast_schedule_log
from simlib.papers.selmcast.ssp_scenario import SSPScenario, simulate
from simlib.papers.trial import trial_of
from simlib.training.params import TrainedRun
from simlib.training.time_to_accuracy import TRIAL_LOSS_EVERY, replay_to_target, staged_replay

__all__ = ["TrainedSSPScenario", "trial"]


class TrainedSSPScenario(TrainedRun):
    """:func:`trial`'s setting: an :class:`~simlib.papers.selmcast.ssp_scenario.SSPScenario` and its training
    (:class:`~simlib.training.params.TrainedRun`; flat: the scenario's keys, ``train_*`` and ``target_acc``)."""

    RUN = SSPScenario


@trial_of(TrainedSSPScenario, example={"n": 4, "duration_s": 4.0, "model_mb": 20.0})
def trial(params: TrainedSSPScenario | dict, seed: np.random.SeedSequence) -> dict:
    """SSP metrics of the run plus ``time_to_target_s``, ``iterations_to_target`` and ``final_acc``; with
    early stop (RP16) the metrics describe the simulated part of the run (``simulated_s``,
    :func:`~simlib.training.time_to_accuracy.staged_replay`).  ``params`` is a :class:`TrainedSSPScenario`
    (a sweep builds each dict setting once) or its flat dict."""
    setting = TrainedSSPScenario.of(params)
    sc, tp = setting.run, setting.training
    runs = {}

    def schedule(d):
        runs["log"] = simulate(dataclasses.replace(sc, duration_s=d), seed)
        return multicast_schedule_log(runs["log"])

    sched, curve = staged_replay(schedule, sc.duration_s, tp, seed, loss_every=TRIAL_LOSS_EVERY)    # RP27
    reached, row = replay_to_target(sched, tp, seed, curve=curve)
    log = runs["log"]
    out = {**ssp_metrics(log), **reached}
    if tp.early_stop:
        out["simulated_s"] = float(sched.duration)
    out["iterations_to_target"] = float("nan") if row is None else float(row["iterations"])
    return out
