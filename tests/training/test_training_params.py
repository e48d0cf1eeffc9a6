"""The training knobs have one home (issue 35): :class:`simlib.training.params.TrainingParams`, whose
declarations ``python -m simlib train`` and the training notebooks' specs re-use, and whose flat trial
keys (``train_*``, ``target_acc``) a sweep's settings carry."""
from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from simlib.papers.contract import ParamError, specs
from simlib.training import notebook_specs as ns
from simlib.training.params import TRIAL_DEFAULTS, TRIAL_KEYS, TrainingParams, task_of
from simlib.training.train_command import TrainScenario

_KNOBS = ("lr", "batch", "model", "problem", "data")


def test_flat_trial_keys_round_trip_and_leave_the_scenario_keys():
    tp = TrainingParams(target_acc=0.3, lr=0.2, batch=8, model="mlp", problem="mnist1d", data="iid",
                        eval_every_s=0.5, dtype="float64", early_stop=False, first_stage=0.25, momentum=0.5)
    flat = tp.trial_params()
    assert flat["train_lr"] == 0.2 and flat["target_acc"] == 0.3 and flat["train_momentum"] == 0.5 and "lr" not in flat
    assert TrainingParams.split({**flat, "n": 3, "scheme": "partial"}) == ({"n": 3, "scheme": "partial"}, tp)


def test_a_key_a_setting_leaves_out_takes_rp8s_value():
    """RP8: softmax on digits, lr 0.1, batch 32, evaluated every 1 s; RP11's i.i.d. minibatches; no early stop
    (RP16 is opt-in for a trial); the problem's default target (digits 85 %)."""
    _, tp = TrainingParams.split({"n": 3, "train_lr": 0.3})
    assert (tp.problem, tp.model, tp.lr, tp.batch, tp.eval_every_s, tp.data, tp.early_stop, tp.dtype, tp.momentum) == \
        ("digits", "softmax", 0.3, 32, 1.0, "iid", False, "float32", 0.0)
    assert tp.target() == 0.85 and tp.stop_accuracy() is None
    assert TrainingParams.split({})[1] == TRIAL_DEFAULTS


@pytest.mark.parametrize("params, key", [({"train_lr": 0.0}, "train_lr"), ({"train_batch": 0}, "train_batch"),
                                         ({"train_data": "shuffled"}, "train_data"),
                                         ({"train_dtype": "float16"}, "train_dtype"),
                                         ({"train_eval_every_s": -1.0}, "train_eval_every_s"),
                                         ({"train_momentum": 1.0}, "train_momentum"),
                                         ({"train_lrr": 0.1}, "train_lrr")])
def test_a_bad_trial_key_is_an_error_naming_it(params, key):
    with pytest.raises(ParamError, match=key) as exc:
        TrainingParams.split(params)
    assert exc.value.name == key


def test_the_command_and_the_notebook_specs_re_use_the_declarations():
    consumers = [TrainScenario, ns.TimeToAccuracyNotebook, ns.NineSystemsNotebook, ns.SSPTimeToAccuracyNotebook,
                 ns.RealTracesNotebook]
    home = specs(TrainingParams)
    for cls in consumers:
        for name in _KNOBS:
            assert specs(cls)[name] == home[name], (cls.__name__, name)
    assert specs(TrainScenario)["target_acc"] == home["target_acc"]
    assert specs(TrainScenario)["momentum"] == home["momentum"]          # RP21: `train --momentum`
    mom = specs(ns.NineSystemsNotebook)["momentum_check"]               # RP21's comparison: 002 §5.1's 0.9
    assert (mom.lo, mom.hi, mom.hi_open) == (home["momentum"].lo, home["momentum"].hi, home["momentum"].hi_open)
    assert set(TRIAL_KEYS) == set(home) and TRIAL_KEYS["lr"] == "train_lr" and TRIAL_KEYS["target_acc"] == "target_acc"


def test_the_train_command_replays_with_its_values_and_rp8s_others():
    ts = TrainScenario(problem="digits", model="softmax", lr=0.1, data="iid", target_acc=None)
    tp = ts.training()
    assert tp == dataclasses.replace(TRIAL_DEFAULTS, problem="digits", model="softmax", lr=0.1, data="iid")
    assert ts.target() == 0.85 and task_of(ts, early_stop=True).stop_accuracy() == 0.92


@pytest.mark.parametrize("cls, values, name", [
    (TrainScenario, dict(problem="mnist1d", target_acc=0.95), "target_acc"),
    (ns.NineSystemsNotebook, dict(problem="mnist1d", target_acc=0.95), "target_acc"),
    (ns.TimeToAccuracyNotebook, dict(problem="mnist1d", target_acc=0.95), "target_acc"),
    (ns.SSPTimeToAccuracyNotebook, dict(problem="mnist1d", target_acc=0.95), "target_acc"),
    (ns.RealTracesNotebook, dict(problem="mnist1d", target_acc=0.95), "target_acc"),
    (ns.RealTracesNotebook, dict(model="resnet"), "model"),
    (ns.SSPTimeToAccuracyNotebook, dict(eval_every_s=0.0), "eval_every_s")])
def test_every_consumer_checks_the_training_values_naming_the_parameter(cls, values, name):
    with pytest.raises(ParamError) as exc:
        cls(**values)
    assert exc.value.name == name


@pytest.mark.slow      # a fresh interpreter (1.9 CPU-s, 2026-11-29): what it imports is the point
def test_the_train_command_does_not_import_the_notebook_specs():
    """The old circle: train_command took its training fields from notebook 90's spec."""
    code = "import sys, simlib.training.train_command; print('simlib.training.notebook_specs' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_momentum_reaches_the_replay_and_zero_is_plain_sgd():
    """RP21 through the one home: ``train_momentum`` is read by :meth:`TrainingParams.split` and given to the
    replay (:func:`~simlib.training.time_to_accuracy.replay_curve`): 0 is the replay without it, 0.5 changes the
    curve."""
    import numpy as np

    from simlib.papers.cluster_scenario import Scenario, simulate
    from simlib.training.time_to_accuracy import replay_curve

    seed = np.random.SeedSequence(4)
    log = simulate(Scenario(scheme="partial", n=4, p=0.5, duration_s=20.0, trace="cnn"), seed)
    plain = replay_curve(log, TrainingParams.split({})[1], seed)
    zero = replay_curve(log, TrainingParams.split({"train_momentum": 0.0})[1], seed)
    mom = replay_curve(log, TrainingParams.split({"train_momentum": 0.5})[1], seed)
    assert plain.equals(zero)
    assert not np.allclose(plain["test_loss"], mom["test_loss"])


def test_a_trained_run_reads_its_flat_setting_once_and_gives_it_back():
    """TrainedScenario / TrainedSSPScenario: the run's keys go to the run's scenario, train_* and target_acc
    to TrainingParams (TRIAL_DEFAULTS for the rest); to_params gives every key, from_params reads it back."""
    from simlib.papers.cluster_scenario import Scenario
    from simlib.papers.selmcast.ssp_scenario import SSPScenario
    from simlib.training.params import TRIAL_DEFAULTS
    from simlib.training.selmcast_ssp_tta import TrainedSSPScenario
    from simlib.training.time_to_accuracy import TrainedScenario

    s = TrainedScenario.from_params({"scheme": "partial", "n": 6, "train_lr": 0.3, "target_acc": 0.8})
    assert s.run == Scenario(scheme="partial", n=6)
    assert s.training == dataclasses.replace(TRIAL_DEFAULTS, lr=0.3, target_acc=0.8)
    flat = s.to_params()
    assert flat["train_lr"] == 0.3 and flat["train_model"] == TRIAL_DEFAULTS.model and flat["n"] == 6
    assert TrainedScenario.from_params(flat) == s and TrainedScenario.of(s) is s
    assert isinstance(TrainedSSPScenario.from_params({"n": 10}).run, SSPScenario)
    with pytest.raises(ParamError, match="unknown training parameter") as err:
        TrainedScenario.from_params({"n": 6, "train_bogus": 1})
    assert err.value.name == "train_bogus"
    with pytest.raises(ParamError, match="run must be a Scenario, got SSPScenario"):
        TrainedScenario(SSPScenario())


@pytest.mark.parametrize("cls", [ns.HeterogeneousTrainingNotebook, ns.NineSystemsNotebook])
def test_s25s_cap_below_the_start_is_an_error_naming_trials_cap(cls):
    """S25: batches run from ``trials`` up to ``trials_cap``; a cap below the start names the cap."""
    with pytest.raises(ParamError) as exc:
        cls(trials=12, trials_cap=11)
    assert exc.value.name == "trials_cap"
    assert cls(trials=12, trials_cap=12).trials_cap == 12      # the cap may equal the start: no batch
