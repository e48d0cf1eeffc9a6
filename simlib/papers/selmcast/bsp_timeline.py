"""004's BSP round (``python -m simlib selmcast-bsp``) as trace events (:mod:`simlib.runtime.timeline`):
the executed plan's flows, watched while :func:`.execute.execute_plan` ran them.

A BSP round here is its synchronization only: every multicast starts at 0 and the round completes when
the last delivery does (§III-A; the command simulates no compute, so there are no compute slices).

* process ``workers``: per worker (``tid = w``) a ``receive`` slice from 0 to its last delivery (args: how
  many multicasts it received, from whom), with one nested slice ``from i`` per incoming multicast
  (they all start at 0, so they nest), then ``wait for the round's end`` up to the completion time
  (the barrier of BSP).  A worker no one sends to only waits.
* processes ``flows`` and ``network`` (:func:`simlib.runtime.link_rates.flow_events`, added by the
  capture): each flow's lifetime (L3: one multicast per sender; L7: one unicast per pair) and every
  port's allocated rate over time.

The last delivery over all workers is the completion time the command prints (the tests check it).
"""
from __future__ import annotations

from simlib.runtime.timeline import PID_WORKERS, clip, complete, meta_names

__all__ = ["bsp_events"]


def deliveries(rnd) -> dict[int, list[tuple[int, float]]]:
    """Per receiving worker, ``(sender, delivery time s)`` of every multicast (L3) or unicast (L7) it got,
    from the round's watched flows (a flow's tag is its sender; its links after the first are the
    receivers' downlinks ``n + j``)."""
    n = rnd.x.shape[0]
    out: dict[int, list[tuple[int, float]]] = {}
    for flow, links in rnd.flows.flows:
        for link in links[1:]:
            out.setdefault(link - n, []).append((int(flow.tag), float(flow.finish_time)))
    return out


def bsp_events(rnd, window=None) -> list[dict]:
    """The trace events of an executed BSP round ``rnd`` (:class:`.execute.BspRound`; module docstring)
    inside ``window`` (``(start_s, end_s)`` or None)."""
    n, end = rnd.x.shape[0], float(rnd.completion_s)
    got = deliveries(rnd)
    ev = meta_names(PID_WORKERS, "workers", {w: f"worker {w}" for w in range(n)})

    def add(name, w, a, b, args=None):
        if (c := clip(a, b, window)) is not None:
            ev.append(complete(name, PID_WORKERS, w, c[0], c[1], "worker", args))

    for w in range(n):
        mine = sorted(got.get(w, []), key=lambda d: (-d[1], d[0]))
        last = mine[0][1] if mine else 0.0
        if mine:
            add("receive", w, 0.0, last, {"multicasts": len(mine), "from": sorted(i for i, _ in mine)})
            for i, t in mine:
                add(f"from {i}", w, 0.0, t, {"sender": i})
        if last < end:
            add("wait for the round's end", w, last, end)
    return ev
