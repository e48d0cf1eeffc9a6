"""Time to accuracy: simulate a schedule, then replay it through real training.

The schedule (who synchronizes with whom, when, with which weights) does not
depend on model values, so a trial simulates a
:class:`~simlib.papers.cluster_scenario.Scenario` once and replays its schedule log through
minibatch SGD on a real data set (:mod:`simlib.training.replay`).  Parameters whose
names start with ``train_`` configure the training (:data:`TRAIN_DEFAULTS`);
``target_acc`` is the test accuracy of the average model that counts as
"converged" (default: the problem's, see :func:`target_ladder`); all other keys
go to the scenario.
"""
from __future__ import annotations

import math

import numpy as np

from simlib.runtime.metrics import sync_metrics
from simlib.training import learning
from simlib.training.replay import Numerics, StepRule, replay, time_to_accuracy
from simlib.core.seeding import child_seed
from simlib.papers.cluster_scenario import Scenario, simulate
from simlib.core.validate import check_choice, check_real
from simlib.papers.analysis import ladder_column

__all__ = ["trial", "TRAIN_DEFAULTS", "TARGET_LADDER", "target_ladder", "ladder_column", "split_training_params",
           "replay_to_target", "replay_curve", "stop_accuracy", "staged_replay"]

#: The digits ladder (kept for code written before ladders became per problem): use
#: :func:`target_ladder` with the trial's ``train_problem`` instead.
TARGET_LADDER = learning.target_ladder("digits")

#: One shared training configuration for every scheme (docs/decisions/replay.md RP8-RP11, RP16):
#: problem, model, SGD step size, local minibatch size, simulated seconds between evaluations,
#: where minibatches come from ("iid" or "sharded"), the floating type of the replay, whether
#: the replay stops early, once the target and every rung of the problem's ladder are reached, and
#: the fraction of the run simulated first when it does (:func:`staged_replay`; 1: all of it), and
#: the SGD momentum (RP21: 0, plain SGD).
TRAIN_DEFAULTS = {"train_problem": "digits", "train_model": "softmax", "train_lr": 0.1,
                  "train_batch": 32, "train_eval_every_s": 1.0, "train_data": "iid", "train_dtype": "float32",
                  "train_early_stop": False, "train_first_stage": 0.5, "train_momentum": 0.0}


def target_ladder(problem) -> tuple:
    """The target accuracies at which every trial on ``problem`` (a name, e.g. the trial's
    ``train_problem``, or a Problem) reports the time to accuracy (``time_to_accNN_s``)."""
    return learning.target_ladder(problem)


def split_training_params(params: dict, default_target: float | None = None) -> tuple[dict, float, dict]:
    """``(scenario params, target_acc, training config)`` from a trial's flat ``params``:
    ``train_*`` keys (checked against :data:`TRAIN_DEFAULTS`), ``target_acc`` (default
    ``default_target``, or the problem's default target when None; checked against the
    highest target the problem supports), and everything else for the scenario."""
    params = dict(params)
    train = {k: params.pop(k) for k in list(params) if k.startswith("train_")}
    unknown = sorted(set(train) - set(TRAIN_DEFAULTS))
    if unknown:
        raise ValueError(f"unknown training parameter(s) {unknown}; allowed: {sorted(TRAIN_DEFAULTS)}")
    cfg = {**TRAIN_DEFAULTS, **train}
    problem = check_choice("train_problem", cfg["train_problem"], learning.PROBLEMS)
    check_choice("train_model", cfg["train_model"], learning.MODELS)
    if not isinstance(cfg["train_early_stop"], (bool, np.bool_)):
        raise ValueError(f"train_early_stop must be a bool, got {cfg['train_early_stop']!r}")
    cfg["train_first_stage"] = check_real("train_first_stage", cfg["train_first_stage"], 0.0, 1.0, lo_open=True)
    cfg["train_momentum"] = check_real("train_momentum", cfg["train_momentum"], 0.0, 1.0, hi_open=True)
    target = params.pop("target_acc", learning.default_target(problem) if default_target is None else default_target)
    return params, learning.check_target(problem, target, "target_acc"), cfg


def stop_accuracy(cfg: dict, target: float) -> float | None:
    """Where a replay with training config ``cfg`` stops early (RP16): the highest of ``target`` and the
    problem's ladder when ``cfg["train_early_stop"]`` is true (so every reported time to accuracy is
    the full run's), else None (run to the end)."""
    if not cfg.get("train_early_stop", False):
        return None
    return max((float(target),) + tuple(target_ladder(cfg["train_problem"])))


def replay_curve(log, cfg: dict, seed: np.random.SeedSequence, target: float | None = None):
    """The test curve (:func:`~simlib.training.replay.replay`) of ``log`` replayed with training config
    ``cfg`` (``train_*`` keys) and the trial's replay seed (child 7 of ``seed``); with
    ``cfg["train_early_stop"]`` it ends once ``target`` and the ladder are reached (:func:`stop_accuracy`)."""
    return replay(log, cfg["train_problem"], model=cfg["train_model"], lr=cfg["train_lr"],
                  batch_size=cfg["train_batch"], eval_every_s=cfg["train_eval_every_s"],
                  seed=child_seed(seed, 7), data=cfg["train_data"], numerics=Numerics(dtype=cfg["train_dtype"]),
                  stop_acc=None if target is None else stop_accuracy(cfg, target),
                  steps=StepRule(momentum=cfg["train_momentum"])).curve


def replay_to_target(log, cfg: dict, target: float, seed: np.random.SeedSequence, curve=None) -> tuple[dict,
                                                                                                         dict | None]:
    """Replay ``log`` with training config ``cfg`` (or read ``curve``, its :func:`replay_curve`, when
    given); returns (``final_acc`` (the accuracy where the replay ended: at ``replay_end_s``, the
    run's end or its early stop), ``time_to_target_s`` and the time to every accuracy of the
    problem's ladder (NaN if never reached: censored at the run's duration), the curve row where
    ``target`` was first met or None)."""
    if curve is None:
        curve = replay_curve(log, cfg, seed, target)
    t = time_to_accuracy(curve, target)
    row = None if math.isnan(t) else curve[curve["time_s"] == t].iloc[0]
    out = {"final_acc": float(curve["test_acc"].iloc[-1]), "time_to_target_s": float(t)}
    if cfg.get("train_early_stop", False):
        out["replay_end_s"] = float(curve["time_s"].iloc[-1])
    out.update({ladder_column(a): time_to_accuracy(curve, a) for a in target_ladder(cfg["train_problem"])})
    return out, row


def staged_replay(simulate_log, duration: float, cfg: dict, target: float, seed: np.random.SeedSequence):
    """``(log, curve)`` of a run capped at ``duration`` s, simulated by ``simulate_log(d)`` (the schedule
    log of the run's first ``d`` seconds) and replayed with ``cfg`` (:func:`replay_curve`).

    With early stop (``cfg["train_early_stop"]``) and ``cfg["train_first_stage"]`` = f < 1 the run is
    first simulated for ``f · duration`` (rounded down to the evaluation grid) and replayed; only a
    replay that has not stopped by then is simulated and replayed again, to ``duration``.  A log of
    the first d seconds is the prefix of the longer run's (the simulators are prefix-consistent:
    tested), and a replay's rows up to d depend only on events up to d, so the curve is the one of
    the full run up to its stop: only the cost changes (RP16).  The returned log is the one
    replayed last (its ``duration`` is what was simulated)."""
    stop = stop_accuracy(cfg, target)
    first = math.floor(duration * cfg.get("train_first_stage", 1.0) / cfg["train_eval_every_s"] + 1e-9)
    first *= cfg["train_eval_every_s"]
    stages = (first, duration) if stop is not None and 0 < first < duration else (duration,)
    for d in stages:
        log = simulate_log(d)
        curve = replay_curve(log, cfg, seed, target)
        if stop is not None and curve["test_acc"].iloc[-1] >= stop:
            break
    return log, curve


def trial(params: dict, seed: np.random.SeedSequence) -> dict:
    """System metrics of the run plus time/iterations/updates to ``target_acc`` and final accuracy.

    ``updates_to_target`` counts synchronizations launched until the target is first
    met (002's "#update"); ``time_per_update_s`` = time to target / updates.  With early stop
    (RP16) the system metrics describe the simulated part of the run (``simulated_s``,
    :func:`staged_replay`).
    """
    return trial_and_curve(params, seed)[0]


def trial_and_curve(params: dict, seed: np.random.SeedSequence) -> tuple:
    """:func:`trial`'s metrics and the replay's test curve (:func:`replay_curve`, a DataFrame) they come from."""
    params, target, cfg = split_training_params(params)
    sc = Scenario.from_params(params)
    log, curve = staged_replay(lambda d: simulate(Scenario.from_params({**params, "duration_s": d}), seed),
                               sc.duration_s, cfg, target, seed)
    reached, row = replay_to_target(log, cfg, target, seed, curve=curve)
    out = {**sync_metrics(log), **reached}
    if cfg["train_early_stop"]:
        out["simulated_s"] = float(log.duration)
    nan = float("nan")
    out["iterations_to_target"] = nan if row is None else float(row["iterations"])
    out["updates_to_target"] = nan if row is None else float(row["syncs"])
    out["time_per_update_s"] = (nan if row is None or row["syncs"] == 0
                                else float(out["time_to_target_s"] / row["syncs"]))
    return out, curve
