"""004's SSP run as trace events (:mod:`simlib.runtime.timeline`): the SSP log's compute intervals and
multicasts, nothing the engine does not log.

* process ``workers``: per worker (``tid = w``) its ``compute`` slices (``log.compute``, cut at the run's
  end as ``ssp_metrics``' NPU utilization cuts them) and a ``wait`` slice for every gap between them
  (the SSP gate, or waiting for its own multicast to be sent; the log keeps only the gate's total).
* process ``multicasts``: each multicast's lifetime as an async slice (``b``/``e``, ``id`` = its index in
  the log's table; args sender, round, receivers at start, delivered, dropped), from its start to its
  finish (the run's end if it had not finished).
* process ``network``: per worker NIC, counter tracks of the multicasts it is sending (``egress``) and
  receiving (``ingress``) at each moment, emitted on change.  The compiled engine does not log the
  rates it allocates; on the flow engine (``engine="flow"``) the capture watches the network and adds
  every port's rate (:mod:`simlib.runtime.link_rates`; decision S31).
"""
from __future__ import annotations

import numpy as np

from simlib.runtime.timeline import (PID_FLOWS, PID_NETWORK, PID_WORKERS, async_pair, clip, complete,
                                     counter_steps, meta_names)

from .ssp_cluster import SSPLog

__all__ = ["ssp_events"]


def _worker_slices(log: SSPLog, w: int, window) -> list[dict]:
    """Worker ``w``'s compute slices (cut at ``log.duration``) and the waits between them."""
    out, last = [], 0.0
    for k, (a, b) in enumerate(log.compute[w] if w < len(log.compute) else ()):
        a, b = float(a), min(float(b), log.duration)
        if a > last and (c := clip(last, a, window)) is not None:
            out.append(complete("wait", PID_WORKERS, w, c[0], c[1], "worker"))
        if b >= a and (c := clip(a, b, window)) is not None:
            out.append(complete("compute", PID_WORKERS, w, c[0], c[1], "worker", {"iteration": k + 1}))
        last = max(last, b)
    if last < log.duration and (c := clip(last, log.duration, window)) is not None:
        out.append(complete("wait", PID_WORKERS, w, c[0], c[1], "worker"))
    return out


def _nic_counts(starts: np.ndarray, ends: np.ndarray, who: np.ndarray, w: int) -> list[tuple[float, float]]:
    """``(time_s, count)`` changes of how many of the intervals ``[starts, ends)`` of owner ``w`` are open."""
    mine = who == w
    deltas = sorted([(float(t), 1) for t in starts[mine]] + [(float(t), -1) for t in ends[mine]])
    out, n = [], 0
    for t, d in deltas:
        n += d
        if out and out[-1][0] == t:
            out[-1] = (t, n)
        else:
            out.append((t, n))
    return out


def ssp_events(log: SSPLog, window=None) -> list[dict]:
    """The trace events of an SSP run's log (see the module docstring), inside ``window``
    (``(start_s, end_s)`` or None: the whole run)."""
    ev = meta_names(PID_WORKERS, "workers", {w: f"worker {w}" for w in range(log.n)})
    for w in range(log.n):
        ev += _worker_slices(log, w, window)
    tab = log.table
    ev += meta_names(PID_FLOWS, "multicasts")
    end = np.where(np.isnan(tab.finish), log.duration, tab.finish) if tab is not None else np.zeros(0)
    for m, rec in enumerate(log.multicasts):
        c = clip(rec.start, float(end[m]), window)
        if c is None:
            continue
        args = {"multicast": m, "sender": rec.sender, "round": rec.round, "receivers": list(rec.initial),
                "delivered": list(rec.delivered), "dropped": [int(j) for j, _ in rec.dropped],
                "finished": rec.finish is not None}
        ev += async_pair(f"multicast from {rec.sender}", PID_FLOWS, m, c[0], c[1], "multicast", args)
    ev += meta_names(PID_NETWORK, "network (multicasts per NIC)")
    if tab is not None and len(tab):
        owner = np.repeat(np.arange(len(tab)), tab.nr)
        r_end = np.where(np.isnan(tab.recv_at), end[owner], tab.recv_at)
        for d in range(tab.drop_mc.size):       # a dropped receiver stops receiving when it is dropped
            hit = np.flatnonzero((owner == tab.drop_mc[d]) & (tab.recv == tab.drop_j[d]))
            r_end[hit] = np.minimum(r_end[hit], tab.drop_t[d])
        for w in range(log.n):
            for key, changes in (("egress", _nic_counts(tab.start, end, tab.sender, w)),
                                 ("ingress", _nic_counts(tab.start[owner], r_end, tab.recv, w))):
                ev += counter_steps(f"NIC {w} {key}", PID_NETWORK, changes, "multicasts", window)
    return ev
