"""``python -m simlib train``: one system of seed 002's Table 1 (or 000's selective reduce) on the simulated
cluster, its schedule replayed through real training, generated from :class:`TrainScenario` (issue 21).

The scheme names are the cluster run's (:data:`~simlib.papers.cluster_scenario.SCHEME_NAMES`) plus
``partial-dynamic`` (partial reduce with 002's dynamic weights); ``--p`` is 002's group size P in
workers (the cluster scenario's ``p`` is the fraction P / n).  Cluster values reuse
:class:`~simlib.papers.cluster_scenario.Scenario`'s declarations with 002 §5's settings as defaults
(8 workers, 10 Gbps, a 100 MB model, the CNN trace), the baselines' knobs are their parameter
group, and the training values are :class:`~simlib.training.params.TrainingParams`' (notebook 90's learning task:
mnist1d, an MLP, sharded data; decisions RP9-RP12).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from simlib.papers.cluster_scenario import SCHEME_NAMES, SCHEME_PARAMS, Scenario, ignored_by_scheme
from simlib.papers.contract import Command, ParamError, ScenarioBase, defaults, param, param_group, param_of, specs
from simlib.papers.partial_reduce.baselines import BaselineParams
from simlib.papers.partial_reduce.scenario import PartialReduceParams, WeightParams
from simlib.training import train_help
from simlib.training.params import TrainingParams, task_of

__all__ = ["TrainScenario", "TRAIN_SCHEMES", "train_trial", "TRAIN_COMMAND"]

#: The systems ``train`` runs: the cluster run's schemes and partial reduce with dynamic weights.
TRAIN_SCHEMES = SCHEME_NAMES + ("partial-dynamic",)


@dataclass(frozen=True)
class TrainScenario(ScenarioBase):
    """One system trained on the simulated cluster (see the module docstring)."""

    scheme: str = param("partial", choices=TRAIN_SCHEMES,
                        help="the system: all reduce, partial reduce (constant or dynamic weights), selective "
                             "reduce, or 002's baselines Eager-Reduce, AD-PSGD, PS BSP / ASP / HETE / backup")
    n: int = param_of(Scenario, "n", default=8, stated="002 §5.2.1", help="workers (002 §5.2.1: 8)")
    hl: int = param_of(Scenario, "hl")
    hl_slowdown: float = param_of(Scenario, "hl_slowdown")
    compute_cv: float | None = param_of(Scenario, "compute_cv")
    p: int = param(3, lo=1, stated="002 Table 1",
                   help="group size P in workers, at most n (partial reduce; selective reduce's minimum group; 002 "
                        "Table 1: 3 and 5)")
    trace: str = param_of(Scenario, "trace", default="cnn", chosen="RP19")
    duration_s: float = param_of(Scenario, "duration_s", default=1800.0, chosen="RP16",
                                 help="the cap (s): simulated seconds the run may take to reach the target; the "
                                      "replay stops once it is reached (RP16: about 3x the slowest system's time "
                                      "to 45 % at HL = 3); a run that never reaches it is censored (null)")
    bandwidth_gbps: float | None = param_of(Scenario, "bandwidth_gbps", default=10.0, stated="002 §5.1",
                                            help="every worker's bandwidth (002 §5.1: 10 Gb Ethernet); drawn: 000 "
                                                 "§IV-A1's draws")
    model_mb: float = param_of(Scenario, "model_mb", default=100.0, chosen="RP19", help="model size v")
    alpha_s: float = param_of(Scenario, "alpha_s")
    ema_alpha: float = param_of(WeightParams, "ema_alpha")
    weights_missing: str = param_of(WeightParams, "weights_missing")
    partial: PartialReduceParams = param_group(PartialReduceParams)
    baselines: BaselineParams = param_group(BaselineParams)
    target_acc: float | None = param_of(TrainingParams, "target_acc")
    lr: float = param_of(TrainingParams, "lr")
    batch: int = param_of(TrainingParams, "batch")
    model: str = param_of(TrainingParams, "model")
    problem: str = param_of(TrainingParams, "problem")
    data: str = param_of(TrainingParams, "data")
    momentum: float = param_of(TrainingParams, "momentum")
    weight_decay: float = param_of(TrainingParams, "weight_decay")

    def check(self):
        if self.p > self.n:
            raise ParamError("p", f"p must be in [1, n = {self.n}], got {self.p}")
        # the replay's configuration and the cluster run, built (and so checked) once, here;
        # training() and scenario() hand out these objects
        object.__setattr__(self, "_training", task_of(self))
        object.__setattr__(self, "_scenario", self._cluster_scenario())

    @classmethod
    def ignored_by_scheme(cls, params: dict) -> dict[str, tuple]:
        """:func:`~simlib.papers.cluster_scenario.ignored_by_scheme` of flat ``params`` under their
        ``scheme``: ``p`` is read by the reduce schemes, ``ema_alpha`` / ``weights_missing`` by
        ``partial-dynamic`` only."""
        reads = {**SCHEME_PARAMS, "p": ("partial", "partial-dynamic", "selective"),
                 "ema_alpha": ("partial-dynamic",), "weights_missing": ("partial-dynamic",),
                 **{name: ("partial", "partial-dynamic") for name in specs(PartialReduceParams)}}
        return ignored_by_scheme(cls, params, params.get("scheme", defaults(cls)["scheme"]), reads)

    def scenario(self) -> Scenario:
        """The cluster run this system is: built and checked once, when this scenario was (its rules
        apply there: a :class:`ParamError` names the field)."""
        return self._scenario

    def _cluster_scenario(self) -> Scenario:
        dynamic = self.scheme == "partial-dynamic"
        return Scenario.from_params(dict(
            scheme="partial" if dynamic else self.scheme, n=self.n, hl=self.hl, hl_slowdown=self.hl_slowdown,
            compute_cv=self.compute_cv, p=self.p / self.n, trace=self.trace,
            duration_s=self.duration_s, bandwidth_gbps=self.bandwidth_gbps, model_mb=self.model_mb,
            alpha_s=self.alpha_s, weights="dynamic" if dynamic else "constant", ema_alpha=self.ema_alpha,
            weights_missing=self.weights_missing, **self.partial.to_params(), **self.baselines.to_params()))

    def target(self) -> float:
        """The test accuracy that counts as reached: ``target_acc``, or the problem's default."""
        return self.training().target()

    def used_params(self) -> dict:
        return {**self.to_params(), "target_acc": self.target()}

    def training(self) -> TrainingParams:
        """The replay's configuration: these training values, the others
        :data:`~simlib.training.params.TRIAL_DEFAULTS`' (evaluated every second, no early stop); built
        and checked once, when this scenario was."""
        return self._training


def train_trial(ts: TrainScenario | dict, seed: np.random.SeedSequence) -> dict:
    """``python -m simlib train``'s trial: scenario ``ts``'s schedule
    (:func:`~simlib.papers.cluster_scenario.simulate`) replayed through training
    (:func:`~simlib.training.time_to_accuracy.trial`, stopping once the target and the problem's ladder
    are reached, RP16): the target used, time to it (s; NaN, printed null, if never reached within the cap
    ``duration_s``: censored), updates to it (002's "#update": syncs launched, or global-model updates
    under the gradient rule), local iterations to it, the final accuracy (where the replay ended), the
    updates of the simulated run, and the time per update (s): to the target, or over the simulated run
    if it was never reached (NaN only without any update)."""
    from simlib.training import time_to_accuracy as tta

    ts = TrainScenario.of(ts)       # the command's scenario as it is; a flat dict is built here
    tp = dataclasses.replace(ts.training(), early_stop=True)        # RP16
    out, curve = tta.simulate_and_replay(ts.scenario(), tp, seed)
    updates = int(curve["syncs"].iloc[-1])
    per_update = out["time_per_update_s"]
    if math.isnan(out["time_to_target_s"]) and updates > 0:
        per_update = out.get("simulated_s", ts.duration_s) / updates
    return {"target_acc": ts.target(), "time_to_target_s": out["time_to_target_s"],
            "updates_to_target": out["updates_to_target"], "per_update_s": per_update,
            "iterations_to_target": out["iterations_to_target"], "final_acc": out["final_acc"],
            "updates": updates, "total_iteration": out["total_iteration"]}


TRAIN_COMMAND = Command(
    "train", TrainScenario, train_trial, timeline=True, help=train_help.HELP, description=train_help.DESCRIPTION)


def _train_profile(params: dict) -> tuple[dict, str]:
    """002's paper profile (PR16's fit, Table 1) for a ``train`` run: the values its scheme reads (PR19)."""
    from simlib.papers.partial_reduce import profile as pr

    task = pr.at_profile_task([{}])[0]          # RP24's learning task, when it has picked one
    return ({**pr.knobs_read(params), **task},
            f"002's profile ({pr.PAPER_PROFILE.label()}), the values this scheme reads (PR19)"
            + (f"; RP24's learning task {task}" if task else "; the default learning task (RP24 picked none)"))


def _register_profile() -> None:
    from simlib.papers import profiles
    from simlib.papers.partial_reduce import profile as pr

    profiles.register(TrainScenario, profiles.ProfileHook(
        _train_profile, f"paper: 002's profile, {pr.PAPER_PROFILE.label()}; only the values the scheme reads (PR19)"))


_register_profile()
