"""An SSP multicast run as a schedule log the replay harness can train along (decision SM66).

Every delivery of sender i's model to receiver j at time t becomes one
:class:`~simlib.runtime.log.SyncRecord` with members (i, j), weights (½, ½)
and ``targets=(j,)``: at t, j's replica becomes the average of its own and
i's.  Dropped receivers merge nothing.  Worker w's local iterations end at
the ends of its compute intervals inside the run.  Units: seconds.
"""
from __future__ import annotations

import numpy as np

from simlib.runtime.log import ScheduleLog, SyncRecord

from .execute import _gc_paused
from .ssp_cluster import SSPLog

__all__ = ["multicast_schedule_log"]


def multicast_schedule_log(log: SSPLog, weight: float = 0.5) -> ScheduleLog:
    """The :class:`ScheduleLog` of ``log``'s deliveries; ``weight`` in (0, 1] is the sender's share."""
    if not 0.0 < weight <= 1.0:
        raise ValueError(f"weight must be in (0, 1], got {weight!r}")
    ends = [np.array(sorted(e for _, e in iv if e <= log.duration), dtype=float) for iv in log.compute]
    done = [m for m in log.multicasts if m.finish is not None]
    # every delivery's time, sender and receiver in delivery order; the iteration counts at t of each
    # worker's deliveries in one searchsorted per worker (the same integers as one call per delivery)
    at = np.array([t for m in done for t in m.delivered_at], dtype=float)
    sender = np.repeat(np.array([m.sender for m in done], dtype=np.int64),
                       np.array([len(m.delivered) for m in done], dtype=np.int64))
    receiver = np.array([j for m in done for j in m.delivered], dtype=np.int64)
    it_sender, it_receiver = np.zeros(at.size, np.int64), np.zeros(at.size, np.int64)
    for w, e in enumerate(ends):
        for who, it in ((sender, it_sender), (receiver, it_receiver)):
            mine = who == w
            it[mine] = np.searchsorted(e, at[mine], side="right")
    # the records in launch order: a stable sort of the delivery times, as sorting the records by launch
    order = np.argsort(at, kind="stable")
    shares = (weight, 1.0 - weight)
    with _gc_paused():       # ~1 million records at n = 50, 2400 s: no full collections while they are made
        syncs = [SyncRecord(t, (i, j), (a, b), "multicast", t, shares, 0.0, (j,))
                 for t, i, j, a, b in zip(at[order].tolist(), sender[order].tolist(), receiver[order].tolist(),
                                          it_sender[order].tolist(), it_receiver[order].tolist())]
    return ScheduleLog(n=log.n, duration=log.duration, bandwidth=log.egress.copy(),
                       compute_end=[e.tolist() for e in ends], syncs=syncs)
