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

import numpy as np

from simlib.core.seeding import as_seed_sequence, child_seed
from simlib.core.validate import check_int, check_real
from simlib.papers.cluster_scenario import Scenario, _trace, build_cluster, slowdown
from simlib.runtime.log import ScheduleLog
from simlib.runtime.capture import offer
from simlib.training.time_to_accuracy import replay_to_target, staged_replay
from simlib.training.train_command import TrainScenario
from simlib.workloads.outages import OutageComputeTimes, first_workers_out, paused_finish

__all__ = ["SYSTEMS", "NET_KS", "OUTAGE_KEYS", "used_gradient_times", "simulate_with_outages", "greedy_reference",
           "trial", "system_label"]

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
    return _trace(sc).compute_times(sc.n, child_seed(as_seed_sequence(seed), 1), scale=slowdown(sc))


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
                                                               outages), sc.duration_s, tp, seed)
    reached, row = replay_to_target(log, tp, seed, curve=curve)
    used = used_gradient_times(log)
    greedy = greedy_reference(sc, seed, max(NET_KS) * sc.n, outages)
    out = {"time_to_target_s": reached["time_to_target_s"], "reached": int(row is not None),
           "simulated_s": float(log.duration), "dropped_gradients": int(log.counters.get("dropped_gradients", 0))}
    for k in NET_KS:
        s = k * sc.n
        out[f"net_k{k}"] = float(used[s - 1]) if used.size >= s else math.nan
        out[f"greedy_k{k}"] = float(greedy[s - 1])
    return out
