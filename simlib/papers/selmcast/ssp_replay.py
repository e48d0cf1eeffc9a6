"""An SSP multicast run as a schedule log the replay harness can train along (decision SM66).

Every delivery of sender i's model to receiver j at time t becomes one
:class:`~simlib.runtime.log.SyncRecord` with members (i, j), weights (½, ½)
and ``targets=(j,)``: at t, j's replica becomes the average of its own and
i's.  Dropped receivers merge nothing.  Worker w's local iterations end at
the ends of its compute intervals inside the run.  Units: seconds.
"""
from __future__ import annotations

import numpy as np

from simlib.runtime.log import PairSyncs, ScheduleLog, SyncRecord

from .ssp_cluster import SSPLog

__all__ = ["multicast_schedule_log"]


def multicast_schedule_log(log: SSPLog, weight: float = 0.5) -> ScheduleLog:
    """The :class:`ScheduleLog` of ``log``'s deliveries; ``weight`` in (0, 1] is the sender's share.

    Read from ``log.table``'s columns when the log has them (searches and the sort as arrays; the same
    records in the same order as :func:`_records_schedule_log`, which reads ``log.multicasts`` one by one)."""
    if not 0.0 < weight <= 1.0:
        raise ValueError(f"weight must be in (0, 1], got {weight!r}")
    ends = [np.array(sorted(e for _, e in iv if e <= log.duration), dtype=float) for iv in log.compute]
    if log.table is None:
        return _records_schedule_log(log, weight, ends)
    tb = log.table
    nr = tb.nr
    rows = np.repeat(tb.r0 - np.cumsum(nr) + nr, nr) + np.arange(int(nr.sum()))   # each multicast's receivers
    mc = np.repeat(np.arange(nr.size), nr)
    t = tb.recv_at[rows]
    ok = ~np.isnan(tb.finish[mc]) & ~np.isnan(t)         # finished multicasts' delivered receivers, in order
    order = np.flatnonzero(ok)
    order = order[np.argsort(t[order], kind="stable")]   # list.sort by launch: stable as well
    t, snd, rcv = t[order], tb.sender[mc[order]], tb.recv[rows[order]]
    it_s = np.empty(t.size, dtype=np.int64)
    it_r = np.empty(t.size, dtype=np.int64)
    for w, e in enumerate(ends):
        for who, it in ((snd, it_s), (rcv, it_r)):
            sel = who == w
            it[sel] = np.searchsorted(e, t[sel], side="right")
    # the records as columns (240,000 deliveries in a notebook 46 run): made one by one only when read
    syncs = PairSyncs(t, snd, rcv, it_s, it_r, kind="multicast", weights=(weight, 1.0 - weight))
    return ScheduleLog(n=log.n, duration=log.duration, bandwidth=log.egress.copy(),
                       compute_end=[e.tolist() for e in ends], syncs=syncs)


def _records_schedule_log(log: SSPLog, weight: float, ends: list) -> ScheduleLog:
    """:func:`multicast_schedule_log` from ``log.multicasts``, delivery by delivery (a log without a table)."""
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
