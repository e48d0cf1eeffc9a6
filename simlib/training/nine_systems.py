"""Seed 002 §5 in full (notebook 22): every system of Table 1 on the simulated cluster, replayed through
training, with the accuracy curve (Fig. 7) and a 1-worker baseline (Fig. 11).

A setting is a :class:`SystemSetting`: a :class:`~simlib.training.train_command.TrainScenario`
(``python -m simlib train``'s flat parameters: ``scheme``, ``n``, ``hl``, ``p`` = group size P in
workers, ...) plus ``curve_every_s`` and ``early_stop``; or, for Fig. 11's baseline, ``scheme =
"single"`` with ``n = 1``: one worker running local SGD with no synchronization (decision RP14), the
same training values, its compute times those of worker 0 of an ``n``-worker run of the trace with
the same seed.  :func:`trial` takes the setting or its flat dict, and checks it there, once.

Units: seconds.  :data:`ARMS` names Table 1's columns (its order) plus selective reduce.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from simlib.core.seeding import as_seed_sequence, child_seed
from simlib.core.validate import check_real
from simlib.papers.cluster_scenario import simulate
from simlib.papers.contract import ParamError, ScenarioBase, param, param_group
from simlib.papers.partial_reduce.table1_claims import claim_arms
from simlib.papers.trial import trial_of
from simlib.runtime.log import ScheduleLog
from simlib.runtime.metrics import gradient_staleness, update_times
from simlib.training.params import TrainingParams
from simlib.training.replay import Numerics, StepRule, replay, time_to_accuracy
from simlib.training.time_to_accuracy import TRIAL_LOSS_EVERY, replay_curve, replay_to_target, staged_replay
from simlib.training.train_command import TRAIN_SCHEMES, TrainScenario
from simlib.workloads.traces import load_trace

__all__ = ["ARMS", "SINGLE", "SystemSetting", "simulated_system", "arm_label", "table1_open_settings", "curve_column", "single_worker_log",
           "trial", "update_instants", "per_update_trial", "STALENESS_ARMS", "MODES", "staleness_trial",
           "evidence_sweeps"]

#: Table 1's columns in the paper's order (label -> (scheme, group size P or None)), then 000's
#: selective reduce (P = its minimum group), the row no paper has.
ARMS = {"AR": ("allreduce", None), "ER": ("eager", None), "AD": ("adpsgd", None), "BSP": ("ps-bsp", None),
        "ASP": ("ps-asp", None), "HETE": ("ps-hete", None), "BK": ("ps-backup", None),
        "CON3": ("partial", 3), "DYN3": ("partial-dynamic", 3), "CON5": ("partial", 5),
        "DYN5": ("partial-dynamic", 5), "SR3": ("selective", 3)}
#: The scheme name of the 1-worker baseline (local SGD, no synchronization).
SINGLE = "single"
_GROUPED = ("partial", "partial-dynamic", "selective")
_SHORT = {"partial": "CON", "partial-dynamic": "DYN", "selective": "SR"}


def arm_label(scheme: str, p: int | None = None) -> str:
    """Table 1's column name of ``scheme`` (with group size ``p`` for the reduce schemes): ``"AR"``,
    ``"BK"``, ``"CON3"``, ``"DYN5"``, ``"SR3"``, ...; ``"1 worker"`` for :data:`SINGLE`."""
    if scheme == SINGLE:
        return "1 worker"
    if scheme in _GROUPED:
        return f"{_SHORT[scheme]}{int(p)}"
    for label, (s, _) in ARMS.items():
        if s == scheme:
            return label
    raise ValueError(f"scheme must be one of {sorted({s for s, _ in ARMS.values()} | {SINGLE})}, got {scheme!r}")


def table1_open_settings(settings, undecided) -> list[int]:
    """The indices of ``settings`` (notebook 22's Table 1 runs: dicts with ``scheme`` and ``p``) whose arm an
    undecided Table 1 verdict of ``undecided`` compares (:func:`~simlib.papers.partial_reduce.table1_claims.claim_arms`):
    the runs S25's next batch extends."""
    arms = set().union(*(claim_arms(c) for c in undecided))
    return [i for i, s in enumerate(settings) if arm_label(s["scheme"], s["p"]) in arms]


def curve_column(t: float) -> str:
    """The frame column holding the test accuracy at ``t`` seconds (Fig. 7's curve)."""
    return f"acc_at_{t:g}s"


def single_worker_log(trace: str, duration: float, seed, bandwidth: float = 1e10) -> ScheduleLog:
    """The schedule of one worker training alone for ``duration`` s: its local iterations end at the
    running sums of worker 0's compute times (``trace.compute_times(1, child 1 of seed)``, as
    :func:`~simlib.papers.cluster_scenario.simulate` draws them), no synchronization (RP14)."""
    duration = check_real("duration", duration, 0.0, lo_open=True)
    src = load_trace(trace).compute_times(1, child_seed(as_seed_sequence(seed), 1))
    ends, t = [], 0.0
    while True:
        t += src.next(0)
        if t > duration:
            break
        ends.append(t)
    return ScheduleLog(n=1, duration=duration, bandwidth=np.array([float(bandwidth)]), compute_end=[ends])


@dataclass(frozen=True)
class SystemSetting(ScenarioBase):
    """One setting of :func:`trial`: a system (:class:`~simlib.training.train_command.TrainScenario`'s
    parameters, flat) and how the trial reports it.  ``scheme = "single"`` (:data:`SINGLE`, with
    ``n = hl = 1``) is Fig. 11's 1-worker baseline: ``single`` is then True and ``system`` holds its
    training values as those of a 2-worker all-reduce run, which checks them (RP14); ``to_params()``
    gives the flat setting back."""

    system: TrainScenario = param_group(TrainScenario)
    curve_every_s: float = param(10.0, lo=0.0, lo_open=True, unit="s",
                                 help="simulated seconds between two points of the test-accuracy curve (Fig. 7)")
    early_stop: bool = param(False, chosen="RP16",
                             help="simulate in two stages and stop the replay once the target and the problem's "
                                  "ladder are reached (RP16; the times to target are the full run's)")
    single: bool = False        # set by from_params for scheme "single"; not a parameter

    @classmethod
    def from_params(cls, params: dict):
        if "single" in params:
            raise ParamError("single", "single is not a parameter: give scheme = 'single' (with n = hl = 1)")
        if params.get("scheme") != SINGLE:
            return super().from_params(params)
        if params.get("n", 1) != 1 or params.get("hl", 1) != 1:
            raise ParamError("n", f"scheme {SINGLE!r} is one worker: n and hl must be 1, got n = {params.get('n')}, "
                                  f"hl = {params.get('hl')}")
        setting = super().from_params({**params, "scheme": "allreduce", "n": 2, "p": 1})
        object.__setattr__(setting, "single", True)      # frozen; built and checked once above
        return setting

    def to_params(self) -> dict:
        out = super().to_params()
        del out["single"]
        return {**out, "scheme": SINGLE, "n": 1} if self.single else out


def simulated_system(params: SystemSetting | dict) -> TrainScenario:
    """The system a :class:`SystemSetting` (or its flat dict, built and checked here) simulates: its
    :class:`~simlib.training.train_command.TrainScenario`.  The 1-worker baseline simulates no cluster (a
    :class:`~simlib.papers.contract.ParamError` naming ``scheme``)."""
    setting = SystemSetting.of(params)
    if setting.single:
        raise ParamError("scheme", f"scheme must be a system of the simulated cluster ({', '.join(TRAIN_SCHEMES)}), "
                                   f"not the 1-worker baseline {SINGLE!r}")
    return setting.system


@trial_of(SystemSetting, example={"scheme": "partial", "n": 4, "p": 2, "duration_s": 4.0})
def trial(params: SystemSetting | dict, seed) -> dict:
    """One system's run replayed through training.

    Returns ``time_to_target_s`` (NaN if never reached), ``updates_to_target`` (002's "#update": syncs,
    or global-model updates under the gradient rule; local steps for one worker), ``per_update_s``
    (time to target / updates to it; for a run that never reaches the target, the run's duration /
    its updates, as Table 1 gives ER's per-update time), ``run_updates``, ``reached`` (0/1),
    ``final_acc``, ``iterations_to_target``, the time to every accuracy of the problem's ladder
    (``time_to_accNN_s``) and the test accuracy every ``curve_every_s`` seconds (:func:`curve_column`).

    ``early_stop`` (default False; RP16): the run is simulated in two stages and its replay stops once
    the target and the problem's ladder are reached (:func:`~simlib.training.time_to_accuracy.staged_replay`):
    every time, count and per-update time to a target is the full run's; ``run_updates`` and
    ``final_acc`` are then those where the replay stopped, and the curve is NaN after it.  The
    1-worker baseline always runs to its end.
    """
    setting = SystemSetting.of(params)      # a sweep's SystemSetting as it is; a flat dict is built here
    ts, every, early_stop = setting.system, setting.curve_every_s, setting.early_stop
    seed = as_seed_sequence(seed)
    if setting.single:
        log = single_worker_log(ts.trace, ts.duration_s, seed)
    else:
        tp = dataclasses.replace(ts.training(), early_stop=early_stop)
        sc = ts.scenario()
        if early_stop:      # RP16: the same rows as the full run up to the stop, at a fraction of the cost
            log, curve = staged_replay(lambda d: simulate(dataclasses.replace(sc, duration_s=d), seed),
                                       sc.duration_s, tp, seed, loss_every=TRIAL_LOSS_EVERY)
        else:
            log = simulate(sc, seed)
    if setting.single or not early_stop:
        tp = ts.training()
        curve = replay_curve(log, tp, seed, loss_every=TRIAL_LOSS_EVERY)     # no output reads the loss (RP27)
    reached, row = replay_to_target(log, tp, seed, curve=curve)
    single = log.n == 1
    count = "iterations" if single else "syncs"
    nan = float("nan")
    out = {**reached,
           "reached": int(row is not None),
           "iterations_to_target": nan if row is None else float(row["iterations"]),
           "updates_to_target": nan if row is None else float(row[count]),
           "run_updates": float(curve[count].iloc[-1])}
    if row is not None and row[count] > 0:
        out["per_update_s"] = out["time_to_target_s"] / float(row[count])
    else:
        out["per_update_s"] = log.duration / out["run_updates"] if out["run_updates"] > 0 else nan
    times = curve["time_s"].to_numpy()
    acc = curve["test_acc"].to_numpy()
    for k in range(int(math.floor(ts.duration_s / every * (1 + 1e-12))) + 1):     # to the cap
        t = k * every
        # after an early stop the curve is unknown (NaN), not its last value
        out[curve_column(t)] = (float(acc[np.searchsorted(times, t * (1 + 1e-12), side="right") - 1])
                                if t <= times[-1] * (1 + 1e-12) else nan)
    return out


def update_instants(log: ScheduleLog) -> np.ndarray:
    """When the run's updates happened (s, sorted): the global model's changes of a ``"gradient"`` log
    (:func:`~simlib.runtime.metrics.update_times`: PS steps and pushes, Eager-Reduce rounds), else the
    launches of its syncs (002's "#update" as :func:`trial` counts it)."""
    if log.update_rule == "gradient":
        return update_times(log)
    return np.sort(np.array([s.launch for s in log.syncs], dtype=float))


@trial_of(SystemSetting, example={"scheme": "ps-asp", "n": 4, "duration_s": 4.0})
def per_update_trial(params: SystemSetting | dict, seed) -> dict:
    """A system's time per update from its schedule alone, no training replay (the 002 paper profile's
    search, decision PR16): ``per_update_s`` = (last update − first update) / (updates − 1), the mean
    gap between consecutive updates (NaN with fewer than 2), and ``run_updates``.  ``params`` is a
    :class:`SystemSetting` or its flat dict (:func:`simulated_system`); the training values and
    ``curve_every_s`` are not used."""
    t = update_instants(simulate(simulated_system(params).scenario(), as_seed_sequence(seed)))
    gap = float((t[-1] - t[0]) / (t.size - 1)) if t.size >= 2 else float("nan")
    return {"per_update_s": gap, "run_updates": float(t.size)}


#: The gradient-rule systems whose staleness notebook 22 measures (Table 1's labels -> schemes).
STALENESS_ARMS = {"ER": "eager", "ASP": "ps-asp", "HETE": "ps-hete"}
#: The two replays of :func:`staleness_trial`: as logged, and every gradient on the model it is applied to.
MODES = ("stale", "fresh")


def _replay(log, tp: TrainingParams, seed, fresh: bool) -> pd.DataFrame:
    """The test curve of ``log`` up to ``tp.target()`` (early stop), with the replay seed and numerics of
    :func:`~simlib.training.time_to_accuracy.replay_curve` (so the stale curve is the one notebook 22's
    Table 1 runs give, up to the target)."""
    return replay(log, tp.problem, model=tp.model, lr=tp.lr, batch_size=tp.batch, eval_every_s=tp.eval_every_s,
                  seed=child_seed(seed, 7), data=tp.data, stop_acc=tp.target(),
                  numerics=Numerics(dtype=tp.dtype, loss_every=TRIAL_LOSS_EVERY),     # no loss read (RP27)
                  steps=StepRule(l2=tp.weight_decay, momentum=tp.momentum, fresh_gradients=fresh)).curve


@trial_of(SystemSetting, example={"scheme": "ps-asp", "n": 4, "duration_s": 4.0})
def staleness_trial(params, seed) -> dict:
    """Notebook 22's staleness measurement (:mod:`simlib.training.statistical_evidence` summarizes it,
    RP20): one gradient-rule system (``python -m simlib train``'s ``params``: ``scheme`` ``eager``,
    ``ps-asp``, ``ps-hete``, ``ps-bsp`` or ``ps-backup``) replayed as logged and with fresh gradients.

    The schedule is simulated for half the cap ``duration_s`` first and to the cap only if a replay
    has not reached the target by then (the simulators are prefix-consistent, so the curves are the
    full run's, RP16).  Returns, for each mode of :data:`MODES`, ``<mode>_time_s`` (NaN if never
    reached: censored at ``simulated_s``), ``<mode>_steps`` (local steps, all workers) and
    ``<mode>_updates`` to the target; ``simulated_s``; ``staleness_mean`` / ``staleness_max``, the
    staleness (PS4: updates between the gradient's version and its apply) of the gradients applied
    until the stale replay reached the target (or the run's end); and ``curve_gap``, the largest
    |accuracy difference| of the two curves at the evaluations both have.

    ``params`` is a Table 1 setting (:class:`SystemSetting` or its flat dict, :func:`simulated_system`);
    its ``curve_every_s`` and ``early_stop`` are not used: both replays always stop at the target (RP16's
    staging above)."""
    ts = simulated_system(params)
    sc = ts.scenario()
    tp = ts.training()
    target = tp.target()
    seed = as_seed_sequence(seed)
    cap = ts.duration_s
    first = math.floor(cap / 2 / tp.eval_every_s) * tp.eval_every_s
    for d in ((first, cap) if first > 0 else (cap,)):
        log = simulate(dataclasses.replace(sc, duration_s=d), seed)
        if log.update_rule != "gradient":
            raise ValueError(f"scheme must be a gradient-rule system (eager, ps-asp, ps-hete, ps-bsp, ps-backup), "
                             f"got {ts.scheme!r}")
        curves = {m: _replay(log, tp, seed, m == "fresh") for m in MODES}
        times = {m: time_to_accuracy(c, target) for m, c in curves.items()}
        if not any(math.isnan(t) for t in times.values()):
            break
    out = {"simulated_s": float(log.duration)}
    for m, c in curves.items():
        hit = c[c["time_s"] == times[m]]
        out[f"{m}_time_s"] = times[m]
        out[f"{m}_steps"] = float(hit["iterations"].iloc[0]) if len(hit) else math.nan
        out[f"{m}_updates"] = float(hit["syncs"].iloc[0]) if len(hit) else math.nan
    until = log.duration if math.isnan(times["stale"]) else times["stale"]
    tau = gradient_staleness(log)
    applied = [i for i, r in enumerate(log.syncs) if r.weights is not None and any(r.weights)
               and (r.launch if r.apply is None else r.apply) <= until]
    vals = tau[applied][~np.isnan(tau[applied])] if applied else np.empty(0)
    out["staleness_mean"] = float(vals.mean()) if vals.size else math.nan
    out["staleness_max"] = float(vals.max()) if vals.size else math.nan
    a, b = (curves[m].set_index("time_s")["test_acc"] for m in MODES)
    both = a.index.intersection(b.index)
    out["curve_gap"] = float((a[both] - b[both]).abs().max())
    return out


def evidence_sweeps(spec) -> dict:
    """Notebook 22's sweeps beyond Table 1 and Fig. 11 (issue 32), from its parameters ``spec`` (a
    :class:`~simlib.training.notebook_specs.NineSystemsNotebook`): ``{name: (trial function, settings)}``
    with the result names ``22_pr_staleness`` (ER, ASP, HETE as logged and fresh at ``evidence_hls``,
    RP20), ``22_pr_sr_bandwidths`` (AR, CON3, SR3 at 000's drawn bandwidths at ``sr_hls``, PR17),
    ``22_pr_group_filter`` (Table 1's partial-reduce arms with the group filter at ``filter_hls``,
    PR18) and ``22_pr_momentum`` (ER, ASP, BSP with momentum ``momentum_check`` at lr (1 − μ) at
    ``momentum_hls``, RP21).  Every setting is a Table 1 setting (same cluster, cap and training
    values) with one change, so trial t pairs with Table 1's trial t."""
    base = dict(spec.training(), curve_every_s=spec.curve_every_s, early_stop=spec.early_stop, n=spec.n, p=3,
                backups=spec.backups, trace=spec.trace, duration_s=spec.duration_s)
    partial = [(s, P) for s, P in ARMS.values() if s in ("partial", "partial-dynamic") and P in spec.table_p]
    return {
        "22_pr_staleness": (staleness_trial, [dict(base, scheme=s, hl=hl) for hl in spec.evidence_hls
                                              for s in STALENESS_ARMS.values()]),
        "22_pr_sr_bandwidths": (trial, [dict(base, scheme=s, hl=hl, bandwidth_gbps=None) for hl in spec.sr_hls
                                        for s in ("allreduce", "partial", "selective")]),
        "22_pr_group_filter": (trial, [dict(base, scheme=s, hl=hl, p=P, group_filter=True) for hl in spec.filter_hls
                                       for s, P in partial]),
        "22_pr_momentum": (staleness_trial, [dict(base, scheme=s, hl=hl, momentum=spec.momentum_check,
                                                  lr=spec.lr * (1 - spec.momentum_check))
                                             for hl in spec.momentum_hls for s in ("eager", "ps-asp", "ps-bsp")]),
    }
