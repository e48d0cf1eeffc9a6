"""Metrics of one SSP run (seed 004 §IV-A2, §IV-C), computed from an :class:`SSPLog`.

Definitions (decision SM59):

* ``npu_utilization``: per worker, compute time inside [0, duration] divided by
  the duration, averaged over workers ("the ratio of their total computation
  time to their total training time").
* ``avg_scale``: per *completed* multicast, the receivers that got the whole
  model (a receiver dropped by preemption does not count) divided by n,
  averaged over completed multicasts.  ``avg_scale_initial`` uses the
  receivers chosen when the multicast started instead.
* ``total_rounds``: completed rounds (compute + multicast) summed over workers;
  ``rounds_per_worker`` their mean.
* ``preempted_receivers``: receivers removed from running multicasts;
  ``preempted_share``: the share of completed multicasts that lost at least one
  receiver; ``drops_per_multicast``: preempted receivers per completed multicast.
* ``avg_multicast_s``: mean duration of completed multicasts; ``blocked_share``:
  mean share of the run a worker waited at the SSP gate; ``max_gap``: largest
  r_i - min_j r_j when a worker moved on.

Wall-clock selection time is not a metric here (results must depend on the
seed only); it is in ``SSPLog.selection_s`` for the benchmark and the CLI.
"""
from __future__ import annotations

from itertools import chain

import numpy as np

from .ssp_cluster import SSPLog

__all__ = ["ssp_metrics", "METRICS"]

METRICS = ("npu_utilization", "avg_scale", "avg_scale_initial", "total_rounds", "rounds_per_worker",
           "multicasts", "preempted_receivers", "preempted_share", "drops_per_multicast",
           "avg_multicast_s", "blocked_share", "max_gap")


def ssp_metrics(log: SSPLog) -> dict:
    """The metrics above as a flat dict of floats (NaN where undefined, e.g. no multicast finished)."""
    n, dur = log.n, log.duration
    busy = np.zeros(n)
    # every worker's (start, end) intervals in one array (one conversion, not one per worker); each
    # worker's busy time is the sum of its own slice, as before
    arrays = getattr(log, "_compute_arrays", None)    # the compiled engine's arrays: the same values, in
    if arrays is not None:                            # the same (worker, iteration) order, without tuples
        starts, finish, used = arrays
        took = np.arange(starts.shape[1]) < used[:, None]
        lens = used.tolist()
        part = np.clip(np.minimum(finish[took], dur) - starts[took], 0.0, None)
    else:
        lens = [len(iv) for iv in log.compute]
        ends = np.fromiter(chain.from_iterable(chain.from_iterable(log.compute)), float, count=2 * sum(lens))
        ends = ends.reshape(-1, 2)
        part = np.clip(np.minimum(ends[:, 1], dur) - ends[:, 0], 0.0, None)
    off = 0
    for w, k in enumerate(lens):
        if k:
            busy[w] = part[off:off + k].sum()
            off += k
    tab = log.table
    done = ~np.isnan(tab.finish)
    nd = int(done.sum())
    delivered = tab.delivered_counts()[done].astype(float)
    initial = tab.nr[done].astype(float)
    drops_done = tab.drop_counts()[done].astype(float)
    nan = float("nan")
    return {
        "npu_utilization": float(busy.mean() / dur),
        "avg_scale": float(delivered.mean() / n) if nd else nan,
        "avg_scale_initial": float(initial.mean() / n) if nd else nan,
        "total_rounds": float(nd),
        "rounds_per_worker": float(nd / n),
        "multicasts": float(len(tab)),
        "preempted_receivers": float(tab.drop_mc.size),
        "preempted_share": float((drops_done > 0).mean()) if nd else nan,
        "drops_per_multicast": float(drops_done.mean()) if nd else nan,
        "avg_multicast_s": float(np.mean(tab.finish[done] - tab.start[done])) if nd else nan,
        "blocked_share": float(np.mean(log.blocked) / dur) if log.blocked is not None else nan,
        "max_gap": float(log.max_gap),
    }
