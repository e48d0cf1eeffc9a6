"""Per-link allocated rate over time, for a run's timeline (:mod:`simlib.runtime.timeline`; issue 44).

The engines keep no history of the rates they allocate, and the timeline must not change them.  So a
run's network is *watched* (:func:`simlib.runtime.capture.watch_flows`: every flow it starts with its
links, volume (bits), start and finish times (s); links dropped, flows aborted, capacities changed), and
the rates are recomputed here afterwards: between two consecutive events (a flow starting, finishing or
aborted, a link dropped, a capacity changed) the set of flows, their links and the capacities do not
change, so the network's allocation is one max-min fair allocation (strict priority classes first when
the network shares by priority), computed by :func:`maxmin_rates`, a progressive filling written
independently of :mod:`simlib.core.maxmin`.  Each finished flow's recomputed rate integrates to its
volume exactly when the recomputation agrees with the engine's timing (the tests check it on real runs).

Events (:func:`flow_events`): process :data:`~simlib.runtime.timeline.PID_LINK_RATES` holds one counter
track ``C`` per link that ever carried a flow (``<link name> rate``, value ``Gbit/s``: 1e9 bits/s);
process :data:`~simlib.runtime.timeline.PID_FLOW_SLICES` each flow's lifetime as an async slice (``id`` = the
flow's id; args volume, links, tag).  Units: s, bits, bits/s (Gbit/s in the counters).
"""
from __future__ import annotations

import numpy as np

from simlib.runtime.timeline import PID_FLOW_SLICES, PID_LINK_RATES, async_pair, clip, counter_steps, meta_names

__all__ = ["maxmin_rates", "Segment", "allocations", "link_series", "flow_events", "GBPS"]

#: The counters' unit: Gbit/s (bits/s divided by this).
GBPS = 1e9


def maxmin_rates(capacities, paths, priorities=None) -> np.ndarray:
    """Max-min fair rates (bits/s) of flows crossing ``paths`` (one sequence of link ids per flow) on
    links of ``capacities`` (bits/s), by progressive filling: every unfrozen flow's rate rises equally
    until a link is full, whose flows then freeze.  With ``priorities`` (int per flow, 0 first) each
    class is filled in turn on what the classes before it left (strict priority, work-conserving).
    A flow without links gets rate 0 (it is not on the network)."""
    caps = np.asarray(capacities, dtype=float)
    left = caps.copy()
    rate = np.zeros(len(paths))
    prio = np.zeros(len(paths), dtype=np.int64) if priorities is None else np.asarray(priorities)
    for c in np.unique(prio):
        active = [i for i in np.flatnonzero(prio == c).tolist() if len(paths[i])]
        while active:
            count = np.zeros(caps.size)
            for i in active:
                count[list(paths[i])] += 1
            used = count > 0
            share = np.full(caps.size, np.inf)
            share[used] = np.maximum(left[used], 0.0) / count[used]
            s = float(share.min())
            rate[active] += s
            left[used] -= s * count[used]
            full = used & (share <= s * (1 + 1e-12))
            left[full] = 0.0
            active = [i for i in active if not full[list(paths[i])].any()]
    return rate


class Segment:
    """One interval ``[t0, t1)`` (s) in which the flows ``flows`` (their ids) ran at ``rates`` (bits/s)
    over ``paths`` (link ids per flow)."""

    __slots__ = ("t0", "t1", "flows", "rates", "paths")

    def __init__(self, t0, t1, flows, rates, paths):
        self.t0, self.t1, self.flows, self.rates, self.paths = t0, t1, flows, rates, paths


def _ends(watch, end: float) -> np.ndarray:
    """Each watched flow's end (s): its finish, the time it was aborted, or ``end`` (still running)."""
    out = []
    for flow, _ in watch.flows:
        t = flow.finish_time if flow.finish_time is not None else watch.removed.get(flow.id, end)
        out.append(min(float(t), end))
    return np.array(out)


def allocations(watch, end: float, window=None) -> list[Segment]:
    """The watched run's allocation as :class:`Segment` s between consecutive events up to ``end`` (s,
    the run's end), only those overlapping ``window`` (``(start_s, end_s)`` or None)."""
    if not watch.flows:
        return []
    starts = np.array([float(f.start_time) for f, _ in watch.flows])
    ends = _ends(watch, end)
    times = set(starts.tolist()) | set(ends.tolist()) | {t for t, _, _ in watch.dropped}
    times |= {t for t, _ in watch.capacity_changes}
    times = np.array(sorted(t for t in times if t <= end))
    ids = [f.id for f, _ in watch.flows]
    prio = np.array([f.priority for f, _ in watch.flows]) if watch.sharing == "priority" else None
    out = []
    for t0, t1 in zip(times[:-1].tolist(), times[1:].tolist()):
        if window is not None and (t1 <= window[0] or t0 >= window[1]):
            continue
        alive = np.flatnonzero((starts <= t0) & (ends > t0))
        if not alive.size:
            continue
        gone = {(f, l) for t, f, l in watch.dropped if t <= t0}
        paths = [tuple(l for l in watch.flows[i][1] if (ids[i], l) not in gone) for i in alive.tolist()]
        caps = watch.capacities
        for t, c in watch.capacity_changes:
            if t <= t0:
                caps = c
        rates = maxmin_rates(caps, paths, None if prio is None else prio[alive])
        out.append(Segment(t0, t1, [ids[i] for i in alive.tolist()], rates, paths))
    return out


def link_series(segments: list[Segment]) -> dict[int, list[tuple[float, float]]]:
    """Per link that carries a flow in ``segments``: its allocated rate (bits/s, the sum over its flows)
    as ``(time_s, rate)`` changes, in time order, ending with 0 where the segments stop or have a gap."""
    out: dict[int, list[tuple[float, float]]] = {}
    last_end = None
    for seg in segments:
        load: dict[int, float] = {}
        for path, r in zip(seg.paths, seg.rates.tolist()):
            for l in path:
                load[l] = load.get(l, 0.0) + r
        if last_end is not None and last_end < seg.t0:       # nothing ran in between
            for series in out.values():
                if series[-1][1] != 0.0:
                    series.append((last_end, 0.0))
        for l, series in out.items():
            if l not in load and series[-1][1] != 0.0:
                series.append((seg.t0, 0.0))
        for l, v in load.items():
            series = out.setdefault(l, [])
            if not series or series[-1][1] != v:
                series.append((seg.t0, v))
        last_end = seg.t1
    for series in out.values():
        if series[-1][1] != 0.0:
            series.append((last_end, 0.0))
    return out


def flow_events(watch, window=None, end: float | None = None) -> list[dict]:
    """The trace events of a watched run's network (module docstring), inside ``window``; ``end`` (s) is
    the run's end (None: the last time the watch saw)."""
    if end is None:
        end = max([0.0] + [float(f.start_time) for f, _ in watch.flows]
                  + [float(f.finish_time) for f, _ in watch.flows if f.finish_time is not None])
    names = watch.link_names
    ev = meta_names(PID_FLOW_SLICES, "flows")
    for (flow, links), t1 in zip(watch.flows, _ends(watch, end).tolist()):
        c = clip(float(flow.start_time), t1, window)
        if c is None:
            continue
        args = {"flow": flow.id, "volume_bits": float(flow.volume), "links": [names[l] for l in links],
                "finished": flow.finish_time is not None}
        if flow.tag is not None:
            args["tag"] = str(flow.tag)
        ev += async_pair(f"flow {flow.id}", PID_FLOW_SLICES, flow.id, c[0], c[1], "flow", args)
    ev += meta_names(PID_LINK_RATES, "network (allocated rate per link, Gbit/s)")
    series = link_series(allocations(watch, end, window))
    for l in sorted(series):
        ev += counter_steps(f"{names[l]} rate", PID_LINK_RATES, [(t, v / GBPS) for t, v in series[l]], "Gbit/s",
                            window)
    return ev
