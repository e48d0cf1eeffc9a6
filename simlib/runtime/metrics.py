"""System metrics of seed 000 §IV-A2, computed from a :class:`~simlib.runtime.cluster.ScheduleLog`.

Exact definitions (decision E4 in docs/decisions/selective_reduce_experiments.md):

* ``avg_sync_time_s`` — mean over synchronizations that *finished* within the
  run of (finish − launch): the all-reduce itself, excluding any time workers
  waited in the queue before the launch (as in Fig. 3).
* ``avg_sync_scale`` — mean number of workers in those synchronizations.
* ``total_sync`` — number of those synchronizations (group operations).
* ``total_iteration`` — local iterations (compute phases) finished by all
  workers within the run.
* ``wasted_wait_s_per_worker`` — mean over workers of the wait time imposed
  by BPAWR's "wait and replace" for arrivals that never joined the worker's
  group (see :class:`simlib.runtime.baselines.SelectiveReduceController`); 0 for
  all reduce and partial reduce.
"""
from __future__ import annotations

import numpy as np

from simlib.runtime.cluster import ScheduleLog

__all__ = ["sync_metrics", "METRICS"]

METRICS = ("avg_sync_time_s", "avg_sync_scale", "total_sync", "total_iteration",
           "wasted_wait_s_per_worker")


def sync_metrics(log: ScheduleLog) -> dict:
    """The five metrics (plus ``max_wasted_wait_s``) as a flat dict of Python scalars."""
    done = [s for s in log.syncs if s.finish is not None and s.finish <= log.duration]
    times = np.array([s.finish - s.launch for s in done])
    scales = np.array([len(s.members) for s in done])
    wasted = np.zeros(log.n) if log.wasted_wait is None else np.asarray(log.wasted_wait)
    return {
        "avg_sync_time_s": float(times.mean()) if times.size else float("nan"),
        "avg_sync_scale": float(scales.mean()) if scales.size else float("nan"),
        "total_sync": int(len(done)),
        "total_iteration": int(sum(sum(1 for t in ends if t <= log.duration) for ends in log.compute_end)),
        "wasted_wait_s_per_worker": float(wasted.mean()),
        "max_wasted_wait_s": float(wasted.max()) if wasted.size else 0.0,
    }
