"""Notebook 93's experiments with the network: Begunov & Tyurin's claim ("Do we need asynchronous SGD?",
arXiv 2602.03802, 2026: synchronous and m-synchronous SGD are optimal up to logarithmic factors under random,
time-varying compute times and adversarial participation) on the flow engine, which the paper's model leaves
out (it has no communication).

:func:`trial` runs one system of the simulated cluster (:class:`~simlib.training.train_command.TrainScenario`'s
flat parameters: ``scheme`` among :data:`SYSTEMS`, ``backups`` b for PS backup, i.e. m = n - b, ...) with
optional outage windows (``outage_workers`` workers ``0 .. k-1`` gone during [``outage_start_s``,
``outage_start_s + outage_s``): decision T9), replays its schedule through training to the target (RP16's
early stop) and reports

* ``time_to_target_s`` (NaN: not reached within the cap ``duration_s``, censored there) and ``reached``;
* ``net_k<k>``: the time (s) at which the run had used ``k n`` gradients (:func:`used_gradient_times`; NaN
  when the simulated part of the run did not get there), and ``greedy_k<k>``, the greedy collector's time
  on the same compute draws and outages without a network
  (:func:`~simlib.workloads.gradient_collection.greedy_arrivals` with the outages' pauses): their ratio is
  what the network and the system's protocol add to the computation's lower bound;
* ``dropped_gradients`` (PS backup's stale gradients, PS2) and ``simulated_s``.

Units: seconds.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from simlib.core.seeding import as_seed_sequence, child_seed
from simlib.core.validate import check_int, check_real
from simlib.papers.cluster_scenario import Scenario, build_cluster, compute_trace, slowdown
from simlib.papers.contract import ParamError, ParamSpec, ScenarioBase, check_items, param, param_list, param_of
from simlib.runtime.log import ScheduleLog
from simlib.runtime.capture import offer
from simlib.training.time_to_accuracy import TRIAL_LOSS_EVERY, replay_to_target, staged_replay
from simlib.training.train_command import TrainScenario
from simlib.training.params import TrainingParams, task_of
from simlib.workloads.gradient_collection import LATE_GRADIENTS
from simlib.workloads.outages import OutageComputeTimes, first_workers_out, paused_finish

__all__ = ["SYSTEMS", "NET_KS", "OUTAGE_KEYS", "used_gradient_times", "simulate_with_outages", "greedy_reference",
           "trial", "system_label", "AsyncSGDNotebook", "network_settings"]

#: The systems compared with the network: PS BSP (m = n), PS backup (m = n - b, its stale gradients dropped:
#: PS2, decision PS10), PS ASP, AD-PSGD, partial reduce and selective reduce.
SYSTEMS = ("ps-bsp", "ps-backup", "ps-asp", "adpsgd", "partial", "selective")
#: Gradients collected, in units of n, at which :func:`trial` reports the time.
NET_KS = (1, 3, 10, 30)
#: The outage knob's keys in a trial's flat parameters (decision T9), and their "no outage" values.
OUTAGE_KEYS = {"outage_workers": 0, "outage_start_s": 0.0, "outage_s": 1.0}


def system_label(scheme: str, backups: int | None = None, p: int | None = None) -> str:
    """A short label: ``"BSP"``, ``"BK<b>"``, ``"ASP"``, ``"AD"``, ``"PR<p>"``, ``"SR<p>"``."""
    return {"ps-bsp": "BSP", "ps-backup": f"BK{backups}", "ps-asp": "ASP", "adpsgd": "AD",
            "partial": f"PR{p}", "selective": f"SR{p}"}[scheme]


def used_gradient_times(log: ScheduleLog) -> np.ndarray:
    """When each gradient entered a model (s, sorted).  ``"gradient"`` logs (parameter server): each record's
    members with a non-zero factor, at the record's ``apply`` (a stale gradient dropped by PS backup has factor
    0 and does not count); ``"average"`` logs (partial/selective reduce, AD-PSGD): every finished local step,
    which its worker applies to its replica."""
    if log.update_rule == "gradient":
        t = [s.launch if s.apply is None else s.apply for s in log.syncs if s.weights is not None
             for w in s.weights if w != 0]
    else:
        t = [x for ends in log.compute_end for x in ends]
    return np.sort(np.asarray(t, dtype=float))


def _outages(params: dict):
    k = check_int("outage_workers", params.get("outage_workers", 0), 0)
    return first_workers_out(k, check_real("outage_start_s", params.get("outage_start_s", 0.0), 0.0),
                             params.get("outage_s", 1.0)) if k else ()


def _base_compute(sc: Scenario, seed):
    """The compute-time source :func:`~simlib.papers.cluster_scenario.build_cluster` draws (child 1 of ``seed``)."""
    return compute_trace(sc).compute_times(sc.n, child_seed(as_seed_sequence(seed), 1), scale=slowdown(sc))


def simulate_with_outages(sc: Scenario, seed, outages=()) -> ScheduleLog:
    """:func:`~simlib.papers.cluster_scenario.simulate` of ``sc`` with the compute steps of the ``outages``'
    workers paused inside their windows (:class:`~simlib.workloads.outages.OutageComputeTimes`, T9); without
    outages, the same run."""
    seed = as_seed_sequence(seed)
    if any(o.worker >= sc.n for o in outages):
        raise ValueError(f"outage workers must be below n = {sc.n}, got {sorted({o.worker for o in outages})}")
    compute = OutageComputeTimes(_base_compute(sc, seed), outages)
    cluster = build_cluster(sc, seed, compute=compute)
    compute.bind(lambda: cluster.sim.now)
    log = cluster.run()
    offer(log, "simlib.runtime.timeline:schedule_events")
    return log


def greedy_reference(sc: Scenario, seed, s_max: int, outages=()) -> np.ndarray:
    """The first ``s_max`` arrivals (s, sorted) of the greedy collector on ``sc``'s compute draws (the ones its
    cluster uses) with the ``outages``' pauses: every worker computes back to back from t = 0, no network."""
    s_max = check_int("s_max", s_max, 1)
    src = _base_compute(sc, seed)
    windows = {}
    for o in outages:
        windows.setdefault(o.worker, []).append((o.start_s, o.end_s))
    ends = []
    for w in range(sc.n):
        t, ws = 0.0, sorted(windows.get(w, []))
        for x in src.take(w, s_max):
            t = paused_finish(t, x, ws) if ws else t + x
            ends.append(t)
    return np.sort(np.asarray(ends))[:s_max]


def trial(params: dict, seed) -> dict:
    """One system with the network, replayed through training (module docstring).  ``params``: a
    :class:`~simlib.training.train_command.TrainScenario`'s flat parameters plus :data:`OUTAGE_KEYS`."""
    params = dict(params)
    outage_params = {k: params.pop(k, v) for k, v in OUTAGE_KEYS.items()}
    ts = TrainScenario.from_params(params)
    sc, seed = ts.scenario(), as_seed_sequence(seed)
    outages = _outages(outage_params)
    tp = dataclasses.replace(ts.training(), early_stop=True)            # RP16
    log, curve = staged_replay(lambda d: simulate_with_outages(dataclasses.replace(sc, duration_s=d), seed,
                                                               outages), sc.duration_s, tp, seed,
                               loss_every=TRIAL_LOSS_EVERY)                    # no loss read (RP27)
    reached, row = replay_to_target(log, tp, seed, curve=curve)
    used = used_gradient_times(log)
    greedy = greedy_reference(sc, seed, max(NET_KS) * sc.n, outages)
    out = {"system": system_label(ts.scheme, ts.baselines.backups, ts.p),
           "time_to_target_s": reached["time_to_target_s"], "reached": int(row is not None),
           "simulated_s": float(log.duration), "dropped_gradients": int(log.counters.get("dropped_gradients", 0))}
    for k in NET_KS:
        s = k * sc.n
        out[f"net_k{k}"] = float(used[s - 1]) if used.size >= s else math.nan
        out[f"greedy_k{k}"] = float(greedy[s - 1])
    return out


@dataclass(frozen=True)
class AsyncSGDNotebook(ScenarioBase):
    """Notebook 93's parameters: the trace-only sweep (:func:`~simlib.workloads.gradient_collection.trace_trial`)
    and the with-network sweep (:func:`trial`, :func:`network_settings`)."""

    trials: int = param(10, lo=1, quick=2, help="trials of the trace-only sweep (S25's start: 10 pairs)")
    standin: str = param_of(Scenario, "trace", help="the stand-in beside the real traces")
    real_traces: tuple = param_list(["pai-job1", "pai-job2", "pai-job3", "pai-job4", "bytedance-se", "bytedance-ar",
                                     "bytedance-st"], of=(Scenario, "trace"), quick=["pai-job4", "bytedance-ar"],
                                    help="the real traces of the trace-only sweep")
    n: int = param(16, lo=2, hi=256, quick=8, chosen="PS10", help="workers of the trace-only sweep")
    late: tuple = param_list(list(LATE_GRADIENTS), item=ParamSpec(kind="str", choices=LATE_GRADIENTS,
                                                                  help="cancel or drop"), chosen="PS10",
                             help="readings of what m-synchronous SGD does with late gradients (PS10)")
    net_traces: tuple = param_list(["pai-job4", "bytedance-ar"], of=(Scenario, "trace"), quick=["pai-job4"],
                                   help="traces of the with-network sweep (the strongest persistent stragglers)")
    net_trials: int = param(6, lo=1, quick=1, help="trials of the with-network sweep (6: the fewest pairs with an "
                                                   "interval, S24)")
    net_n: int = param_of(TrainScenario, "n", quick=8, help="workers of the with-network sweep (002 §5.2.1: 8)")
    backups_values: tuple = param_list([1, 2, 3, 4, 5], of=(TrainScenario, "backups"), quick=[2], chosen="PS10",
                                       help="PS backup's b (m = n - b) searched for the best b; b = 0 is PS BSP")
    p: int = param_of(TrainScenario, "p", help="group size P of partial and selective reduce (002 Table 1: 3)")
    duration_s: float = param_of(TrainScenario, "duration_s", default=600.0, quick=60.0, chosen="PS10",
                                 help="the cap (s) of the with-network runs (a run that never reaches the target is "
                                      "censored there)")
    outage_workers: int = param(2, lo=0, chosen="T9", help="workers 0..k-1 gone in the outage window (T9)")
    outage_backups: tuple = param_list([2, 4], of=(TrainScenario, "backups"), quick=[2], chosen="T9",
                                       help="PS backup's b of the outage runs (2: one backup per gone worker)")
    outage_start_s: float = param(5.0, lo=0.0, unit="s", chosen="T9", help="when the outage window opens")
    outage_s: float = param(120.0, lo=0.0, lo_open=True, unit="s", quick=20.0, chosen="T9",
                            help="how long the outage window lasts")
    target_acc: float = param_of(TrainingParams, "target_acc", default=0.45, quick=0.85, none_means=None,
                                 chosen="RP9", help="test accuracy that counts as reached (notebook 90's task)")
    lr: float = param_of(TrainingParams, "lr")
    batch: int = param_of(TrainingParams, "batch")
    model: str = param_of(TrainingParams, "model")
    problem: str = param_of(TrainingParams, "problem")
    data: str = param_of(TrainingParams, "data")

    def check(self):
        if self.standin in self.real_traces:
            raise ParamError("standin", f"standin {self.standin!r} must not be in real_traces")
        if self.outage_workers >= self.net_n:
            raise ParamError("outage_workers", f"outage_workers must be in [0, net_n - 1 = {self.net_n - 1}], "
                                               f"got {self.outage_workers}")
        for name in ("backups_values", "outage_backups"):
            check_items(name, getattr(self, name),
                        lambda b: TrainScenario.from_params(dict(scheme="ps-backup", n=self.net_n, backups=b)))
        TrainScenario(n=self.net_n, p=self.p, duration_s=self.duration_s)
        task_of(self)


#: The systems other than PS BSP / backup that the with-network sweep runs (their labels: ASP, AD, PR<p>, SR<p>).
OTHERS = ("ps-asp", "adpsgd", "partial", "selective")
#: The systems the outage window is applied to: BSP, PS backup (at each b of ``outage_backups``), ASP and partial
#: reduce.
OUTAGE_SYSTEMS = ("ps-bsp", "ps-backup", "ps-asp", "partial")


def network_settings(spec: AsyncSGDNotebook) -> list[dict]:
    """The with-network sweep's settings from notebook 93's ``spec``: on each of ``net_traces``, PS BSP, PS
    backup at every b of ``backups_values``, PS ASP, AD-PSGD, partial and selective reduce (group size ``p``)
    without outage; and PS BSP, PS backup at every b of ``outage_backups``, PS ASP and partial reduce with the
    outage window (T9), and PS backup at those b without it when ``backups_values`` lacks them.  002 §5's cluster (10 Gbps, a 100 MB model), the cap ``duration_s``, notebook 90's learning task."""
    training = dict(target_acc=spec.target_acc, lr=spec.lr, batch=spec.batch, model=spec.model,
                    problem=spec.problem, data=spec.data)
    base = dict(n=spec.net_n, p=spec.p, duration_s=spec.duration_s, **training, **OUTAGE_KEYS)
    gone = dict(outage_workers=spec.outage_workers, outage_start_s=spec.outage_start_s, outage_s=spec.outage_s)
    out = []
    for tr in spec.net_traces:
        arms = [dict(scheme="ps-bsp")] + [dict(scheme="ps-backup", backups=b) for b in spec.backups_values]
        arms += [dict(scheme=s) for s in OTHERS]
        out += [dict(base, trace=tr, **a) for a in arms]
        if spec.outage_workers:
            out += [dict(base, trace=tr, scheme="ps-backup", backups=b) for b in spec.outage_backups
                    if b not in spec.backups_values]
            arms = [dict(scheme="ps-backup", backups=b) if s == "ps-backup" else dict(scheme=s)
                    for s in OUTAGE_SYSTEMS for b in (spec.outage_backups if s == "ps-backup" else (None,))]
            out += [dict(base, trace=tr, **gone, **a) for a in arms]
    return out
