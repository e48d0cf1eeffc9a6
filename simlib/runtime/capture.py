"""Handing a run's log to a timeline without touching the engine (:mod:`simlib.runtime.timeline`).

A trial calls :func:`offer` with its log and the *name* of the function that turns it into trace
events (``"module:function"``, resolved only when a timeline is written), so the trials' code, whose
import closure keys the sweep cache (:mod:`simlib.core.modclosure`), does not include the timeline's.
"""
from __future__ import annotations

import contextlib
import contextvars
import importlib

__all__ = ["Captured", "FlowWatch", "capture", "offer", "watch_flows", "watch_cluster",
           "big_switch_link_names"]


class Captured:
    """What :func:`capture` collected: the last offered ``log`` and the name of its event builder
    ``to_events`` (``"module:function"``, called as ``function(log, window)``)."""

    def __init__(self):
        self.log = None
        self.to_events: str | None = None
        self.flows: FlowWatch | None = None

    @property
    def found(self) -> bool:
        """True once a log was offered."""
        return self.to_events is not None

    def events(self, window=None) -> list[dict]:
        """The offered log's trace events inside ``window`` (``(start_s, end_s)`` or None), followed by
        the links' allocated rates and the flows' lifetimes when the run's flows were watched
        (:func:`simlib.runtime.link_rates.flow_events`)."""
        out = _resolve(self.to_events)(self.log, window)
        if self.flows is not None:
            out = out + _resolve(FLOW_EVENTS)(self.flows, window, getattr(self.log, "duration", None))
        return out


#: The event builder of a watched network's flows (by name, as ``to_events``: resolved when written).
FLOW_EVENTS = "simlib.runtime.link_rates:flow_events"


def _resolve(name: str):
    """The function ``"module:function"`` names."""
    module, _, attr = name.partition(":")
    return getattr(importlib.import_module(module), attr)


_SINK: contextvars.ContextVar[Captured | None] = contextvars.ContextVar("simlib_timeline_sink", default=None)


@contextlib.contextmanager
def capture():
    """Collect the schedule log a run offers (:func:`offer`) within the block; yields a :class:`Captured`
    (the last log offered wins: ``train`` may simulate more than once, the last run is the one replayed)."""
    sink = Captured()
    token = _SINK.set(sink)
    try:
        yield sink
    finally:
        _SINK.reset(token)


def offer(log, to_events: str, flows: "FlowWatch | None" = None) -> None:
    """Hand ``log`` (any run log) and the name ``"module:function"`` of its event builder
    (``function(log, window) -> list of events``) to the enclosing :func:`capture`, with the run's
    watched flows (:func:`watch_flows`; None: none); does nothing (and costs nothing) outside one."""
    if ":" not in to_events:
        raise ValueError(f"to_events must be 'module:function', got {to_events!r}")
    sink = _SINK.get()
    if sink is not None:
        sink.log, sink.to_events, sink.flows = log, to_events, flows


class FlowWatch:
    """What a watched :class:`~simlib.core.network.FlowNetwork` did (:func:`watch_flows`), for the
    timeline's link rates: ``flows`` (each started flow's handle with the links it started on, in start
    order; a handle's ``start_time``/``finish_time`` in s, ``volume`` in bits), ``removed`` (flow id ->
    time it was aborted, s), ``dropped`` ((time s, flow id, link) of links dropped from a flow),
    ``capacities`` (bits/s per link at the start) and ``capacity_changes`` ((time s, capacities) after
    each change), ``sharing`` (the network's) and ``link_names`` (one label per link)."""

    def __init__(self, net, link_names):
        self.flows: list[tuple] = []
        self.removed: dict[int, float] = {}
        self.dropped: list[tuple[float, int, int]] = []
        self.capacities = net.capacities.copy()
        self.capacity_changes: list[tuple[float, object]] = []
        self.sharing = net.sharing
        self.link_names = list(link_names)


def watch_flows(net, link_names) -> FlowWatch | None:
    """Inside :func:`capture`, record every flow ``net`` (a ``FlowNetwork``) starts, aborts or drops a
    link from and every capacity change, by wrapping those methods on this one instance (each wrapper
    calls the method unchanged, then notes what it did: the run is the same); ``link_names()`` labels the
    links (called only inside a capture).  Outside a capture: None, and ``net`` is untouched."""
    if _SINK.get() is None:
        return None
    watch = FlowWatch(net, link_names())
    add_flow, add_flows, remove, drop = net.add_flow, net.add_flows, net.remove_flow, net.drop_link
    set_one, set_all = net.set_capacity, net.set_capacities

    def note(flow):
        watch.flows.append((flow, tuple(flow.links)))
        return flow

    def note_capacities():
        watch.capacity_changes.append((net.now, net.capacities.copy()))

    def on_set_one(*a, **k):
        set_one(*a, **k)
        note_capacities()

    def on_set_all(*a, **k):
        set_all(*a, **k)
        note_capacities()

    def on_remove(flow):
        left = remove(flow)
        watch.removed[flow.id] = net.now
        return left

    def on_drop(flow, link):
        drop(flow, link)
        watch.dropped.append((net.now, flow.id, int(link)))

    net.add_flow = lambda *a, **k: note(add_flow(*a, **k))
    net.add_flows = lambda *a, **k: [note(f) for f in add_flows(*a, **k)]
    net.remove_flow, net.drop_link, net.set_capacity, net.set_capacities = on_remove, on_drop, on_set_one, on_set_all
    return watch


def big_switch_link_names(hosts: int, workers: int | None = None) -> list[str]:
    """Labels of a big switch's links (:class:`~simlib.core.topology.BigSwitch`: host ``h``'s uplink is
    link ``h``, its downlink ``hosts + h``); hosts from ``workers`` on are servers (e.g. a parameter
    server's)."""
    workers = hosts if workers is None else workers
    who = [f"worker {h}" if h < workers else f"server {h - workers}" for h in range(hosts)]
    return [f"{w} uplink" for w in who] + [f"{w} downlink" for w in who]


def watch_cluster(cluster) -> FlowWatch | None:
    """:func:`watch_flows` on a :class:`~simlib.runtime.cluster.Cluster`'s big-switch network (None as
    well when the cluster runs without a ``FlowNetwork`` ``net``: then its timeline has no link rates)."""
    net = getattr(cluster, "net", None)
    if net is None or not hasattr(net, "add_flow"):
        return None
    return watch_flows(net, lambda: big_switch_link_names(int(cluster.topo.n), cluster.n))
