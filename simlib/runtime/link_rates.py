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
from numba import njit

from simlib.runtime.timeline import PID_FLOW_SLICES, PID_LINK_RATES, async_pair, clip, counter_steps, meta_names

__all__ = ["maxmin_rates", "Segment", "allocations", "link_series", "flow_events", "GBPS"]

#: The counters' unit: Gbit/s (bits/s divided by this).
GBPS = 1e9


def maxmin_rates(capacities, paths, priorities=None) -> np.ndarray:
    """Max-min fair rates (bits/s) of flows crossing ``paths`` (one sequence of link ids per flow) on
    links of ``capacities`` (bits/s), by progressive filling (:func:`_fill`): every unfrozen flow's rate
    rises equally until a link is full, whose flows then freeze.  With ``priorities`` (int per flow, 0
    first) each class is filled in turn on what the classes before it left (strict priority,
    work-conserving).  A flow without links gets rate 0 (it is not on the network)."""
    lens = np.array([len(p) for p in paths], dtype=np.int64)
    link = np.array([l for p in paths for l in p], dtype=np.int64)
    owner = np.repeat(np.arange(len(paths)), lens)
    return _fill(np.asarray(capacities, dtype=float), link, owner, len(paths),
                 None if priorities is None else np.asarray(priorities))


def _fill(caps: np.ndarray, link: np.ndarray, owner: np.ndarray, k: int, prio=None) -> np.ndarray:
    """:func:`maxmin_rates` on flat entries: flow ``owner[e]`` crosses link ``link[e]``; ``k`` flows
    (compiled: a progressive filling takes as many passes as there are bottleneck levels)."""
    has = prio is not None
    return _fill_kernel(np.ascontiguousarray(caps, dtype=np.float64), np.ascontiguousarray(link, dtype=np.int64),
                        np.ascontiguousarray(owner, dtype=np.int64), int(k),
                        np.ascontiguousarray(prio if has else np.zeros(0), dtype=np.int64), has)


@njit(cache=True)
def _fill_kernel(caps, link, owner, k, prio, has_prio):
    n_links, n_entries = caps.size, link.size
    left = caps.copy()
    rate = np.zeros(k)
    on = np.zeros(k, dtype=np.bool_)
    for e in range(n_entries):
        on[owner[e]] = True
    classes = np.unique(prio) if has_prio else np.zeros(1, dtype=np.int64)
    count = np.zeros(n_links, dtype=np.int64)
    share = np.empty(n_links)
    for c in classes:
        active = on.copy()
        if has_prio:
            for i in range(k):
                active[i] = on[i] and prio[i] == c
        while True:
            count[:] = 0
            busy = False
            for e in range(n_entries):
                if active[owner[e]]:
                    count[link[e]] += 1
                    busy = True
            if not busy:
                break
            s = np.inf
            for l in range(n_links):
                if count[l] > 0:
                    share[l] = max(left[l], 0.0) / count[l]
                    s = min(s, share[l])
            for i in range(k):
                if active[i]:
                    rate[i] += s
            for l in range(n_links):
                if count[l] > 0:
                    left[l] -= s * count[l]
                    if share[l] <= s * (1 + 1e-12):
                        left[l] = 0.0
                        count[l] = -1                       # full: its flows freeze below
            for e in range(n_entries):
                if count[link[e]] == -1:
                    active[owner[e]] = False
    return rate


class Segment:
    """One interval ``[t0, t1)`` (s) in which the flows ``flows`` (their ids) ran at ``rates`` (bits/s),
    flow ``flows[owner[e]]`` crossing link ``link[e]``."""

    __slots__ = ("t0", "t1", "flows", "rates", "link", "owner")

    def __init__(self, t0, t1, flows, rates, link, owner):
        self.t0, self.t1, self.flows, self.rates, self.link, self.owner = t0, t1, flows, rates, link, owner

    @property
    def paths(self) -> list[tuple[int, ...]]:
        """Each flow's links in this segment (in ``flows`` order)."""
        out = [[] for _ in self.flows]
        for l, o in zip(self.link.tolist(), self.owner.tolist()):
            out[o].append(l)
        return [tuple(p) for p in out]


def _ends(watch, end: float) -> np.ndarray:
    """Each watched flow's end (s): its finish, the time it was aborted, or ``end`` (still running)."""
    out = []
    for flow, _ in watch.flows:
        t = flow.finish_time if flow.finish_time is not None else watch.removed.get(flow.id, end)
        out.append(min(float(t), end))
    return np.array(out)


def allocations(watch, end: float, window=None) -> list[Segment]:
    """The watched run's allocation as :class:`Segment` s between consecutive events up to ``end`` (s,
    the run's end), only those overlapping ``window`` (``(start_s, end_s)`` or None).  The flows alive
    in a segment are kept as a set updated at each event; their links are flat entries (flow, link),
    an entry leaving when its link is dropped."""
    if not watch.flows:
        return []
    starts = np.array([float(f.start_time) for f, _ in watch.flows])
    ends = _ends(watch, end)
    times = set(starts.tolist()) | set(ends.tolist()) | {t for t, _, _ in watch.dropped}
    times |= {t for t, _ in watch.capacity_changes}
    times = np.array(sorted(t for t in times if t <= end))
    ids = np.array([f.id for f, _ in watch.flows])
    prio = np.array([f.priority for f, _ in watch.flows]) if watch.sharing == "priority" else None
    lens = np.array([len(links) for _, links in watch.flows], dtype=np.int64)
    offset = np.concatenate(([0], np.cumsum(lens)))
    flat = np.array([l for _, links in watch.flows for l in links], dtype=np.int64)
    dropped_at = np.full(flat.size, np.inf)                 # when each entry's link left its flow
    row = {int(i): k for k, i in enumerate(ids.tolist())}
    for t, f, l in watch.dropped:
        k = row[f]
        seg = flat[offset[k]:offset[k + 1]]
        dropped_at[offset[k] + np.flatnonzero(seg == l)] = t
    cap_times = np.array([t for t, _ in watch.capacity_changes])
    begin_at = np.searchsorted(times, starts)                # the event index at which each flow starts / ends
    end_at = np.searchsorted(times, ends)
    alive: set[int] = set()
    starting = {}
    ending = {}
    for k, (a, b) in enumerate(zip(begin_at.tolist(), end_at.tolist())):
        if b > a:
            starting.setdefault(a, []).append(k)
            ending.setdefault(b, []).append(k)
    out = []
    for j, (t0, t1) in enumerate(zip(times[:-1].tolist(), times[1:].tolist())):
        alive.difference_update(ending.get(j, ()))
        alive.update(starting.get(j, ()))
        if not alive or (window is not None and (t1 <= window[0] or t0 >= window[1])):
            continue
        idx = np.fromiter(sorted(alive), dtype=np.int64, count=len(alive))
        n_e = lens[idx]
        entry = np.repeat(offset[idx] - np.concatenate(([0], np.cumsum(n_e)[:-1])), n_e) + np.arange(n_e.sum())
        owner = np.repeat(np.arange(idx.size), n_e)
        keep = dropped_at[entry] > t0
        entry, owner = entry[keep], owner[keep]
        c = np.searchsorted(cap_times, t0, side="right")
        caps = watch.capacities if c == 0 else watch.capacity_changes[c - 1][1]
        used, local = np.unique(flat[entry], return_inverse=True)     # the links in use, numbered 0..
        rates = _fill(np.asarray(caps, dtype=float)[used], local, owner, idx.size,
                      None if prio is None else prio[idx])
        out.append(Segment(t0, t1, ids[idx], rates, flat[entry], owner))
    return out


def link_series(segments: list[Segment]) -> dict[int, list[tuple[float, float]]]:
    """Per link that carries a flow in ``segments``: its allocated rate (bits/s, the sum over its flows)
    as ``(time_s, rate)`` changes, in time order, ending with 0 where the segments stop or have a gap."""
    out: dict[int, list[tuple[float, float]]] = {}
    busy: set[int] = set()                                   # links whose last value is not 0
    last_end = None
    for seg in segments:
        links, local = np.unique(seg.link, return_inverse=True)
        load = dict(zip(links.tolist(), np.bincount(local, weights=seg.rates[seg.owner]).tolist()))
        at = seg.t0 if last_end is None or last_end >= seg.t0 else last_end    # a gap: 0 from its start
        for l in [l for l in busy if l not in load or at < seg.t0]:
            out[l].append((at, 0.0))
            busy.discard(l)
        for l, v in load.items():
            series = out.setdefault(l, [])
            if not series or series[-1][1] != v:
                series.append((seg.t0, v))
            if v != 0.0:
                busy.add(l)
            else:
                busy.discard(l)
        last_end = seg.t1
    for l in busy:
        out[l].append((last_end, 0.0))
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
