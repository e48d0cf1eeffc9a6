"""System metrics of seed 000 §IV-A2, derived from a :class:`~simlib.runtime.log.ScheduleLog`.

Exact definitions (decision E4 in docs/decisions/selective_reduce_experiments.md):

* ``avg_sync_time_s`` — mean over synchronizations that *finished* within the
  run (the simulation stops at ``duration``, so nothing finishes later) of (finish − launch): the all-reduce itself, excluding any time workers
  waited in the queue before the launch (as in Fig. 3).
* ``avg_sync_scale`` — mean number of workers in those synchronizations.
* ``total_sync`` — number of those synchronizations (group operations).
* ``total_iteration`` — local iterations (compute phases) finished by all
  workers within the run.
* ``wasted_wait_s_per_worker`` — mean over workers of :func:`wasted_wait`
  (0 for controllers that never hold workers back).
* ``controller_rounds`` — the log's ``controller_rounds`` counter (scheduling
  passes of controllers that count them, else 0).
"""
from __future__ import annotations

import bisect
from collections import defaultdict

import numpy as np

from simlib.runtime.log import ScheduleLog

__all__ = ["sync_metrics", "wasted_wait", "METRICS", "gradient_staleness", "update_times"]

METRICS = ("avg_sync_time_s", "avg_sync_scale", "total_sync", "total_iteration",
           "wasted_wait_s_per_worker")


def wasted_wait(log: ScheduleLog) -> np.ndarray:
    """Per-worker wasted wait (s) of seed 000 Fig. 7 (decision E5).

    A hold of worker ``w`` starts at its first logged hold time ``t0`` after
    its previous launch and ends when ``w`` launches at ``t1``.  The hold was
    useful if the launched group contains a worker that became ready after
    ``t0``; otherwise ``t1 - t0`` is wasted.  Holds still open at the end of
    the run are not counted.
    """
    held: dict[int, list[float]] = defaultdict(list)
    for t, w in log.holds:
        held[w].append(t)
    out = np.zeros(log.n)
    if not held:
        return out
    last_launch = np.full(log.n, -np.inf)
    for s in log.syncs:
        t1 = s.launch
        newest = None                    # latest ready time among the members (once per sync)
        for w in s.members:
            times = held.get(w)
            if times:
                k = bisect.bisect_right(times, last_launch[w])
                if k < len(times) and times[k] <= t1:
                    t0 = times[k]
                    if newest is None:
                        newest = max(_ready_time(log, m, t1) for m in s.members)
                    if not newest > t0:
                        out[w] += t1 - t0
            last_launch[w] = t1
    return out


def _ready_time(log: ScheduleLog, w: int, t: float) -> float:
    """When worker ``w`` last became ready at or before ``t`` (s)."""
    ends = log.compute_end[w]
    return ends[bisect.bisect_right(ends, t) - 1]


def sync_metrics(log: ScheduleLog) -> dict:
    """The five metrics (plus ``max_wasted_wait_s`` and ``max_sync_scale``, the largest finished group,
    in workers) as a flat dict."""
    done = [s for s in log.syncs if s.finish is not None]
    times = np.array([s.finish - s.launch for s in done])
    scales = np.array([len(s.members) for s in done])
    wasted = wasted_wait(log)
    return {
        "avg_sync_time_s": float(times.mean()) if times.size else float("nan"),
        "avg_sync_scale": float(scales.mean()) if scales.size else float("nan"),
        "total_sync": int(len(done)),
        "total_iteration": int(sum(len(ends) for ends in log.compute_end)),
        "wasted_wait_s_per_worker": float(wasted.mean()),
        "max_wasted_wait_s": float(wasted.max()),
        "max_sync_scale": int(scales.max()) if scales.size else 0,
    }


def update_times(log: ScheduleLog) -> np.ndarray:
    """Times (s, sorted) at which the global model of a ``"gradient"`` log changed: the distinct
    ``apply`` times (launch when unset) of records that applied a gradient with a non-zero factor
    (a parameter server's step or push, an Eager-Reduce round; decision PS4).  Equal times count once."""
    if log.update_rule != "gradient":
        raise ValueError(f"log.update_rule must be 'gradient', got {log.update_rule!r}")
    t = [s.launch if s.apply is None else s.apply for s in log.syncs
         if s.weights is not None and any(w != 0 for w in s.weights)]
    return np.unique(np.asarray(t, dtype=float))


def gradient_staleness(log: ScheduleLog) -> np.ndarray:
    """Per sync record of a ``"gradient"`` log with ``versions``: for each member, the number of
    global-model updates (:func:`update_times`) before the record's apply time minus the version
    its gradient was computed on, shape (records, max members), NaN where not applied (or no member).
    A PS ASP push computed on the version current at its arrival has staleness 0."""
    ups = update_times(log)
    k = max((len(s.members) for s in log.syncs), default=0)
    out = np.full((len(log.syncs), k), np.nan)
    for i, s in enumerate(log.syncs):
        if s.weights is None or s.versions is None:
            continue
        t = s.launch if s.apply is None else s.apply
        before = np.searchsorted(ups, t, side="left")
        out[i, :len(s.versions)] = before - np.asarray(s.versions)
    return out
