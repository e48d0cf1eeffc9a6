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

from .ssp_cluster import SSPLog

__all__ = ["multicast_schedule_log"]


def multicast_schedule_log(log: SSPLog, weight: float = 0.5) -> ScheduleLog:
    """The :class:`ScheduleLog` of ``log``'s deliveries; ``weight`` in (0, 1] is the sender's share."""
    if not 0.0 < weight <= 1.0:
        raise ValueError(f"weight must be in (0, 1], got {weight!r}")
    ends = [np.array(sorted(e for _, e in iv if e <= log.duration), dtype=float) for iv in log.compute]
    syncs = []
    for m in log.multicasts:
        if m.finish is None:
            continue
        i = m.sender
        for j, t in zip(m.delivered, m.delivered_at):
            it_i = int(np.searchsorted(ends[i], t, side="right"))
            it_j = int(np.searchsorted(ends[j], t, side="right"))
            syncs.append(SyncRecord(launch=float(t), members=(i, j), iterations=(it_i, it_j), kind="multicast",
                                    finish=float(t), weights=(weight, 1.0 - weight), targets=(j,)))
    syncs.sort(key=lambda r: r.launch)
    return ScheduleLog(n=log.n, duration=log.duration, bandwidth=log.egress.copy(),
                       compute_end=[e.tolist() for e in ends], syncs=syncs)
