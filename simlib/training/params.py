"""The training knobs, declared once: :class:`TrainingParams`, how a schedule is replayed through
training (:mod:`simlib.training.replay`) and what counts as reached.

Every consumer reads these declarations (range, choices, unit, help, quick value, source):
``python -m simlib train`` (:class:`~simlib.training.train_command.TrainScenario`) and the training
notebooks' specs (:mod:`simlib.training.notebook_specs`) re-use them field by field with
:func:`~simlib.papers.contract.param_of`, and the replay (:mod:`simlib.training.time_to_accuracy`) takes a
:class:`TrainingParams`.  The declared defaults are the learning task of decisions RP9-RP11 and RP16
(mnist1d, a ReLU MLP, lr 0.5, sharded data, early stop, plain SGD: momentum 0, RP21, no weight decay,
RP24; the quick values:
softmax on digits).

A sweep's trial takes flat parameters, where the training knobs carry a ``train_`` prefix
(``train_lr``; ``target_acc`` keeps its name: :data:`TRIAL_KEYS`), and a key a setting leaves out takes
:data:`TRIAL_DEFAULTS`' value (decision RP8: softmax on digits, lr 0.1, i.i.d. minibatches, run to the
end); :meth:`TrainingParams.split` reads them.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

from simlib.papers.contract import ParamError, ScenarioBase, check_param, param, specs
from simlib.training.learning import MODELS, PROBLEMS, check_target, default_target, target_ladder
from simlib.training.replay import DATA_MODES, DTYPES

__all__ = ["TrainingParams", "TRIAL_DEFAULTS", "TRIAL_KEYS", "TrainedRun", "task_of"]


@dataclass(frozen=True)
class TrainingParams(ScenarioBase):
    """How a schedule is replayed through training, and the accuracy that counts as reached
    (docs/decisions/replay.md)."""

    target_acc: float | None = param(None, kind="float", lo=0.0, hi=1.0, none_means="default", chosen="RP9",
                                     help="test accuracy of the model that counts as reached; default: the "
                                          "problem's (mnist1d 45 %, digits 85 %)")
    lr: float = param(0.5, lo=0.0, lo_open=True, quick=0.1, chosen="RP9",
                      help="SGD learning rate (train_lr; decision RP9)")
    batch: int = param(32, lo=1, chosen="RP8", help="minibatch size per local step (train_batch)")
    model: str = param("mlp-relu", choices=MODELS, quick="softmax", chosen="RP9",
                       help="the model trained (train_model)")
    problem: str = param("mnist1d", choices=PROBLEMS, quick="digits", chosen="RP9",
                         help="the learning problem (train_problem)")
    data: str = param("sharded", choices=DATA_MODES, quick="iid", chosen="RP11",
                      help="each worker's minibatches: its own shard or the whole training set (train_data; RP11)")
    eval_every_s: float = param(1.0, lo=0.0, lo_open=True, unit="s", chosen="RP8",
                                help="simulated seconds between test evaluations (train_eval_every_s)")
    dtype: str = param("float32", choices=DTYPES, chosen="RP10",
                       help="the floating type of the replicas (train_dtype)")
    early_stop: bool = param(True, chosen="RP16",
                             help="stop each replay once the target and every rung of the ladder are reached "
                                  "(RP16; the results are those of the full run)")
    first_stage: float = param(0.5, lo=0.0, lo_open=True, hi=1.0, chosen="RP16",
                               help="with early stop, the fraction of the cap simulated (and replayed) first; the "
                                    "rest only if the replay has not stopped by then (train_first_stage; 1: all)")
    momentum: float = param(0.0, lo=0.0, hi=1.0, hi_open=True, chosen="RP21",
                            help="SGD momentum μ (train_momentum): per replica under model averaging, on the server "
                                 "under the gradient rule; 0: plain SGD (RP21; 002 §5.1 trains with 0.9)")
    weight_decay: float = param(0.0, lo=0.0, chosen="RP24",
                                help="weight decay λ (train_weight_decay): the L2 term λ/2·‖x‖² of every local step's "
                                     "objective, PyTorch's SGD(weight_decay=λ); 0: none (RP24; 002 §5.1: 1e-4)")

    def check(self):
        if self.target_acc is not None:
            try:
                check_target(self.problem, self.target_acc, "target_acc")
            except ValueError as exc:
                raise ParamError("target_acc", str(exc)) from None

    def target(self) -> float:
        """The test accuracy that counts as reached: ``target_acc``, or the problem's default."""
        return default_target(self.problem) if self.target_acc is None else self.target_acc

    def stop_accuracy(self) -> float | None:
        """Where the replay stops early (RP16): the highest of the target and the problem's ladder with
        ``early_stop`` (so every reported time to accuracy is the full run's), else None (run to the end)."""
        if not self.early_stop:
            return None
        return max((float(self.target()),) + tuple(target_ladder(self.problem)))

    def trial_params(self) -> dict:
        """These values as a trial's flat parameters (:data:`TRIAL_KEYS`: ``train_lr``, ..., ``target_acc``)."""
        return {TRIAL_KEYS[name]: value for name, value in self.to_params().items()}

    @classmethod
    def split(cls, params: dict) -> tuple[dict, "TrainingParams"]:
        """``(the other parameters, TrainingParams)`` of a trial's flat ``params``: the :data:`TRIAL_KEYS`
        it gives (each checked, an error naming the key), :data:`TRIAL_DEFAULTS`' values for the rest; an
        unknown ``train_*`` key is an error naming it."""
        rest, given = dict(params), {}
        declared = specs(cls)
        for name, key in TRIAL_KEYS.items():
            if key in rest:
                given[name] = check_param(key, rest.pop(key), declared[name])
        unknown = sorted(k for k in rest if k.startswith("train_"))
        if unknown:
            raise ParamError(unknown[0], f"unknown training parameter(s) {unknown}; allowed: "
                                         f"{sorted(k for k in TRIAL_KEYS.values() if k.startswith('train_'))}")
        return rest, dataclasses.replace(TRIAL_DEFAULTS, **given)


#: The flat trial key of each training knob: ``train_`` + its name (``target_acc`` as it is).
TRIAL_KEYS = {name: name if name == "target_acc" else f"train_{name}" for name in specs(TrainingParams)}

#: What a trial's flat parameters leave out defaults to (decision RP8; notebook 21 and the tests): softmax
#: regression on digits, lr 0.1, batch 32, i.i.d. minibatches, evaluated every simulated second in float32,
#: run to the end (no early stop), plain SGD (momentum 0, RP21), the problem's default target.
TRIAL_DEFAULTS = TrainingParams(lr=0.1, model="softmax", problem="digits", data="iid", early_stop=False)


@dataclass(frozen=True)
class TrainedRun(ScenarioBase):
    """A time-to-accuracy trial's setting: a run (``run``, a scenario of the class :attr:`RUN`) and how its
    schedule is replayed through training (``training``).  Its flat parameters (``from_params``,
    ``to_params``) are the run's and the training knobs' :data:`TRIAL_KEYS` (``train_lr``, ...,
    ``target_acc``); a training key a setting leaves out takes :data:`TRIAL_DEFAULTS`' value
    (:meth:`TrainingParams.split`).  A subclass names its run's class, e.g. ``RUN = Scenario``."""

    run: ScenarioBase
    training: TrainingParams = TRIAL_DEFAULTS
    RUN: ClassVar[type] = ScenarioBase

    def check(self):
        if not isinstance(self.run, self.RUN):
            raise ParamError("run", f"run must be a {self.RUN.__name__}, got {type(self.run).__name__}")
        if not isinstance(self.training, TrainingParams):
            raise ParamError("training", f"training must be a TrainingParams, got {type(self.training).__name__}")

    @classmethod
    def from_params(cls, params: dict):
        rest, tp = TrainingParams.split(params)
        return cls(cls.RUN.from_params(rest), tp)

    def to_params(self) -> dict:
        return {**self.run.to_params(), **self.training.trial_params()}


def task_of(spec, **values) -> TrainingParams:
    """The :class:`TrainingParams` of ``spec`` (a scenario or notebook spec re-using some of its fields):
    ``spec``'s values of the fields it has, then ``values``, the rest :data:`TRIAL_DEFAULTS`' (a
    :class:`~simlib.papers.contract.ParamError` names the field, e.g. a target above the problem's highest)."""
    own = {name: getattr(spec, name) for name in specs(TrainingParams) if hasattr(spec, name)}
    return dataclasses.replace(TRIAL_DEFAULTS, **{**own, **values})
