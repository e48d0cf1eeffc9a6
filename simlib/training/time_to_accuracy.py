"""Time to accuracy: simulate a schedule, then replay it through real training.

The schedule (who synchronizes with whom, when, with which weights) does not
depend on model values, so a trial simulates a
:class:`~simlib.papers.cluster_scenario.Scenario` once and replays its schedule log through
minibatch SGD on a real data set (:mod:`simlib.training.replay`), configured by a
:class:`~simlib.training.params.TrainingParams` (the training knobs, declared there once).  A
trial's flat parameters carry them as ``train_*`` keys and ``target_acc`` (the test accuracy of the
average model that counts as "converged"; default: the problem's, see :func:`target_ladder`),
:meth:`~simlib.training.params.TrainingParams.split` reads them; all other keys go to the scenario.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from simlib.runtime.metrics import sync_metrics
from simlib.training import learning
from simlib.training.params import TrainedRun, TrainingParams
from simlib.training.replay import Numerics, StepRule, replay, time_to_accuracy
from simlib.core.seeding import child_seed
from simlib.papers.cluster_scenario import Scenario, simulate
from simlib.papers.analysis import ladder_column
from simlib.papers.trial import trial_of

__all__ = ["LOSS_EVERY", "TRIAL_LOSS_EVERY", "TrainedScenario", "trial", "trial_and_curve", "simulate_and_replay", "TARGET_LADDER", "target_ladder", "ladder_column",
           "replay_to_target", "replay_curve", "staged_replay"]

#: The replays that hand their curve on (:func:`replay_curve`, :func:`trial_and_curve`) take the test loss only
#: every this many evaluations, the accuracy at every one (decision RP23: the same times to accuracy, about 1.2x
#: faster replays).
LOSS_EVERY = 10
#: The trials' replays take no test loss at all (decision RP27, ``Numerics(loss_every=0)``): :func:`trial` and the
#: trials of :mod:`~simlib.training.nine_systems`, :mod:`~simlib.training.task_search`,
#: :mod:`~simlib.training.selmcast_ssp_tta` and :mod:`~simlib.training.async_sgd` read only accuracies, times and
#: counts, so every output is the same and the loss's second logits and log-sum-exp are saved.
TRIAL_LOSS_EVERY = 0

#: The digits ladder (kept for code written before ladders became per problem): use
#: :func:`target_ladder` with the trial's ``train_problem`` instead.
TARGET_LADDER = learning.target_ladder("digits")


def target_ladder(problem) -> tuple:
    """The target accuracies at which every trial on ``problem`` (a name, e.g. the trial's
    ``train_problem``, or a Problem) reports the time to accuracy (``time_to_accNN_s``)."""
    return learning.target_ladder(problem)


def replay_curve(log, tp: TrainingParams, seed: np.random.SeedSequence, loss_every: int = LOSS_EVERY,
                 curve: str = "full"):
    """The test curve (:func:`~simlib.training.replay.replay`) of ``log`` (a schedule log, or a
    :class:`~simlib.training.replay.ParsedLog` of one: RP29) replayed with ``tp`` and the
    trial's replay seed (child 7 of ``seed``); with ``tp.early_stop`` it ends once the target and the
    ladder are reached (:meth:`~simlib.training.params.TrainingParams.stop_accuracy`).  The test loss
    is taken every ``loss_every`` evaluations (:class:`~simlib.training.replay.Numerics`' ``loss_every``, RP23;
    NaN between), the
    accuracy at every one; ``loss_every=1``: the loss at every one as well.  ``curve="to_target"`` (RP25:
    only the first crossing of the target is kept; NaN rows where an evaluation is shown below it) needs
    early stop at the target itself (``tp.stop_accuracy() == tp.target()``: no ladder rung above it)."""
    stop = tp.stop_accuracy()
    if curve == "to_target" and stop != tp.target():
        raise ValueError(f"curve='to_target' needs early stop at the target (no rung of the ladder above it): "
                         f"stop accuracy {stop}, target {tp.target()}")
    return replay(log, tp.problem, model=tp.model, lr=tp.lr, batch_size=tp.batch, eval_every_s=tp.eval_every_s,
                  seed=child_seed(seed, 7), data=tp.data,
                  numerics=Numerics(dtype=tp.dtype, loss_every=loss_every, curve=curve),
                  stop_acc=stop, steps=StepRule(l2=tp.weight_decay, momentum=tp.momentum)).curve


def replay_to_target(log, tp: TrainingParams, seed: np.random.SeedSequence, curve=None) -> tuple[dict, dict | None]:
    """Replay ``log`` with ``tp`` (or read ``curve``, its :func:`replay_curve`, when given); returns
    (``final_acc`` (the accuracy where the replay ended: at ``replay_end_s``, the run's end or its early
    stop), ``time_to_target_s`` and the time to every accuracy of the problem's ladder (NaN if never
    reached: censored at the run's duration), the curve row where ``tp.target()`` was first met or None).
    A ``curve="to_target"`` curve (RP25) knows the first crossing of the target only: the ladder's times are
    then left out."""
    if curve is None:
        curve = replay_curve(log, tp, seed)
    t = time_to_accuracy(curve, tp.target())
    row = None if math.isnan(t) else curve[curve["time_s"] == t].iloc[0]
    out = {"final_acc": float(curve["test_acc"].iloc[-1]), "time_to_target_s": float(t)}
    if tp.early_stop:
        out["replay_end_s"] = float(curve["time_s"].iloc[-1])
    if curve.attrs.get("curve", "full") == "full":
        out.update({ladder_column(a): time_to_accuracy(curve, a) for a in target_ladder(tp.problem)})
    return out, row


def staged_replay(simulate_log, duration: float, tp: TrainingParams, seed: np.random.SeedSequence,
                  curve: str = "full", loss_every: int = LOSS_EVERY):
    """``(log, curve)`` of a run capped at ``duration`` s, simulated by ``simulate_log(d)`` (the schedule
    log of the run's first ``d`` seconds) and replayed with ``tp`` (:func:`replay_curve`).

    With early stop (``tp.early_stop``) and ``tp.first_stage`` = f < 1 the run is first simulated for
    ``f · duration`` (rounded down to the evaluation grid) and replayed; only a replay that has not
    stopped by then is simulated and replayed again, to ``duration``.  A log of the first d seconds is
    the prefix of the longer run's (the simulators are prefix-consistent: tested), and a replay's rows
    up to d depend only on events up to d, so the curve is the one of the full run up to its stop: only
    the cost changes (RP16).  The returned log is the one replayed last (its ``duration`` is what was
    simulated).  ``curve``: :func:`replay_curve`'s (RP25; the last row of a stage is always evaluated in full);
    ``loss_every``: its test loss's grid (0: none, RP27)."""
    stop = tp.stop_accuracy()
    first = math.floor(duration * tp.first_stage / tp.eval_every_s + 1e-9) * tp.eval_every_s
    stages = (first, duration) if stop is not None and 0 < first < duration else (duration,)
    for d in stages:
        log = simulate_log(d)
        out = replay_curve(log, tp, seed, loss_every=loss_every, curve=curve)
        if stop is not None and out["test_acc"].iloc[-1] >= stop:
            break
    return log, out


class TrainedScenario(TrainedRun):
    """:func:`trial`'s setting: a :class:`~simlib.papers.cluster_scenario.Scenario` and its training
    (:class:`~simlib.training.params.TrainedRun`; flat: the scenario's keys, ``train_*`` and ``target_acc``)."""

    RUN = Scenario


@trial_of(TrainedScenario, example={"scheme": "partial", "n": 4, "duration_s": 4.0})
def trial(params: TrainedScenario | dict, seed: np.random.SeedSequence) -> dict:
    """System metrics of the run plus time/iterations/updates to ``target_acc`` and final accuracy.

    ``params`` is a :class:`TrainedScenario` (a sweep builds each dict setting once) or its flat dict.
    ``updates_to_target`` counts synchronizations launched until the target is first
    met (002's "#update"); ``time_per_update_s`` = time to target / updates.  With early stop
    (RP16) the system metrics describe the simulated part of the run (``simulated_s``,
    :func:`staged_replay`).
    """
    setting = TrainedScenario.of(params)
    return simulate_and_replay(setting.run, setting.training, seed, loss_every=TRIAL_LOSS_EVERY)[0]


def trial_and_curve(params: TrainedScenario | dict, seed: np.random.SeedSequence) -> tuple:
    """:func:`trial`'s metrics and the replay's test curve (:func:`replay_curve`, a DataFrame) they come from."""
    setting = TrainedScenario.of(params)
    return simulate_and_replay(setting.run, setting.training, seed)


def simulate_and_replay(sc: Scenario, tp: TrainingParams, seed: np.random.SeedSequence,
                        loss_every: int = LOSS_EVERY) -> tuple:
    """:func:`trial_and_curve` of scenario ``sc`` replayed with ``tp``: ``(metrics, curve)``; ``loss_every``: the
    curve's test-loss grid (:func:`replay_curve`; 0: none, RP27, which changes no metric)."""
    log, curve = staged_replay(lambda d: simulate(dataclasses.replace(sc, duration_s=d), seed), sc.duration_s, tp,
                               seed, loss_every=loss_every)
    reached, row = replay_to_target(log, tp, seed, curve=curve)
    out = {**sync_metrics(log), **reached}
    if tp.early_stop:
        out["simulated_s"] = float(log.duration)
    nan = float("nan")
    out["iterations_to_target"] = nan if row is None else float(row["iterations"])
    out["updates_to_target"] = nan if row is None else float(row["syncs"])
    out["time_per_update_s"] = (nan if row is None or row["syncs"] == 0
                                else float(out["time_to_target_s"] / row["syncs"]))
    return out, curve
