"""Flow-level network: links with capacities, flows with volumes, fair sharing.

A *flow* carries ``volume`` bits across a set of links at one rate (a unicast
crosses two links on the big switch; an L3 multicast crosses the sender's
ingress and every receiver's egress at one common rate).  Rates are the
max-min fair allocation of :mod:`simlib.core.maxmin` (optionally with strict
priority classes) and are recomputed lazily after any change: a flow added,
finished, removed, a link dropped from a flow, a capacity changed.

Two engines give the same rates (to float rounding; decision N9):

* ``engine="incremental"`` (default).  With ``sharing="maxmin"`` every flow
  runs at its bottleneck link's *level*: after a change the levels of the
  links it reaches are re-solved, moving bottlenecks where needed, and progress
  is kept per link as virtual time, so a flow is touched only when its
  bottleneck moves (:mod:`simlib.core.levels`); added or re-routed flows, and
  changes the propagation gives up on, go to the flow-level incremental solve.
  With priorities the flow-level solve does it all: only the flows whose rate
  can move are re-solved (with the other flows' rates held, grown until the
  held flows provably keep their rates), remaining volumes are brought up to
  date only when a flow's rate changes, and the next completion comes from
  projected finish times with per-block minima.  ``run_until_idle`` steps
  through completions in one compiled loop (:mod:`simlib.core.incremental`);
* ``engine="full"``: the original engine: every change re-solves all flows,
  every time step drains all flows, completions are found by scanning.

The network can be driven in two ways:

* attached to a :class:`~simlib.core.events.Simulator` (``FlowNetwork(caps, sim)``):
  it keeps one pending "next completion" event in the simulator and calls
  each flow's ``on_done(flow)`` when its last bit arrives;
* stand-alone: ``next_completion_time()``, ``advance_to(t)`` (returns the flows
  completed by ``t``; the caller handles them) and ``run_until_idle()`` (calls
  each ``on_done``) let a custom driver step it.

State lives in flat numpy arrays indexed by slot; slots of finished flows
are compacted away when they make up half the table.

Units: bits, bits/s, seconds.
"""
from __future__ import annotations

import itertools
import math
from typing import Callable, Iterable, Sequence

import numpy as np
from numba import njit

from simlib.core import incremental as inc
from simlib.core import jitcache
from simlib.core import levels as lv
from simlib.core.events import Simulator, Timer
from simlib.core.flowstate import (Adjacency, Config, Counters, Flows, Handle, Links, Output, Projections, Scratch,
                                   State, make_handle)
from simlib.core.maxmin import SCAN_MAX_LINKS, allocate_rates
from simlib.core.sharing import drain as _drain
from simlib.core.tolerance import is_done
from simlib.core.validate import check_array, check_choice, check_int, check_real

__all__ = ["Flow", "FlowNetwork", "ENGINES"]

ENGINES = ("incremental", "full")

# Incremental engine (N9): a batch of changes this large is solved in full instead
# (fractions of the active flows / of the links): new or re-routed flows, changed
# links, flows the change turned out to affect.
INC_LIMITS = (0.25, 0.25, 0.15)
# Levels mode (N9, fifth round): a propagation that solves more than this many links
# per link of the network gives up (everything restored) for the flow-level solve.
LV_MAX_SOLVES = 2


# The incremental engine's kernels as Python calls them at every event: through a flowstate.Handle
# (one pointer, ~2 us a call) instead of the bundles' arrays, which numba unboxes one by one on every
# call (~0.2 us each, flowstate.py).  Calls that pass fewer than about ten arrays (adjacency insert,
# the projections' next time) keep the plain tuples: cheaper.
@njit(cache=True)
def _k_levels_next_time(h, now):
    st = h.state
    return lv.next_time(st.flows, st.links, st.adj, st.counters, now)


@njit(cache=True)
def _k_collect_and_retire(h, t, levels, n_slots):
    st = h.state
    return inc.collect_and_retire(t, st.flows, st.links, st.adj, st.proj, st.counters, levels, n_slots)


@njit(cache=True)
def _k_propagate(h, opened, now, max_pops, work):
    st = h.state
    return lv.propagate(st.flows, st.links, st.adj, opened, now, st.scratch.lstate, max_pops, work)


@njit(cache=True)
def _k_solve_incremental(h, cfg, opened, pend, max_flows, now):
    return inc.solve_incremental(h.state, Config(*cfg), opened, pend, max_flows, now)


@njit(cache=True)
def _k_solve_full(h, cfg, n_slots, now):
    return inc.solve_full(h.state, Config(*cfg), n_slots, now)


@njit(cache=True)
def _k_settle(h, slots, new_rate, force, now):
    st = h.state
    inc.settle(slots, new_rate, force, now, st.flows, st.proj)


@njit(cache=True)
def _done(remaining, volume, rate, i):
    """Slot i has (within tolerance, decision N6) nothing left to send."""
    return is_done(remaining[i], volume[i]) or rate[i] == np.inf


@njit(cache=True)
def _min_time_left(remaining, volume, rate, alive, n):
    """Smallest time (s) until an alive slot completes; inf if none can."""
    best = np.inf
    for i in range(n):
        if alive[i]:
            if _done(remaining, volume, rate, i):
                return 0.0
            if rate[i] > 0.0:
                best = min(best, remaining[i] / rate[i])
    return best


@njit(cache=True)
def _completed_slots(remaining, volume, rate, alive, n):
    out = np.empty(n, np.int64)
    k = 0
    for i in range(n):
        if alive[i] and _done(remaining, volume, rate, i):
            out[k] = i
            k += 1
    return out[:k]


def _flatten_paths(paths, n_links: int) -> tuple[np.ndarray, np.ndarray]:
    """``add_flows``' paths as (concatenated link ids, length per path), checked: ids in
    ``[0, n_links)``, no link twice in one path."""
    if isinstance(paths, np.ndarray) and paths.ndim == 2:
        flat = paths.astype(np.int64, copy=False).ravel()
        lens = np.full(paths.shape[0], paths.shape[1], dtype=np.int64)
    else:
        lens = np.fromiter((len(p) for p in paths), dtype=np.int64)
        flat = np.fromiter(itertools.chain.from_iterable(paths), dtype=np.int64, count=int(lens.sum()))
    if flat.size and (flat.min() < 0 or flat.max() >= n_links):
        bad = flat[(flat < 0) | (flat >= n_links)][0]
        raise ValueError(f"paths must hold link ids in [0, {n_links - 1}], got {bad}")
    owner = np.repeat(np.arange(lens.size, dtype=np.int64), lens)
    key = np.sort(owner * n_links + flat)
    if key.size > 1 and (key[1:] == key[:-1]).any():
        f = int(key[1:][key[1:] == key[:-1]][0] // n_links)
        raise ValueError(f"paths must not repeat a link within a path; path {f} does")
    return flat, lens


class Flow:
    """Handle of one flow. Read-only for users; the network updates it."""

    __slots__ = ("id", "volume", "links", "priority", "on_done", "start_time",
                 "finish_time", "tag", "_slot", "_net")

    def __init__(self, fid, volume, links, priority, on_done, start_time, tag, net):
        self.id = fid
        self.volume = volume
        self.links = links
        self.priority = priority
        self.on_done = on_done
        self.start_time = start_time
        self.finish_time: float | None = None
        self.tag = tag
        self._slot = -1
        self._net = net

    @property
    def active(self) -> bool:
        return self._slot >= 0

    @property
    def remaining(self) -> float:
        """Bits still to send (as of the network's current time)."""
        if self._slot < 0:
            return 0.0
        return self._net._remaining_of(self._slot)

    @property
    def rate(self) -> float:
        """Current rate in bits/s (0 once finished)."""
        if self._slot < 0:
            return 0.0
        self._net._ensure_rates()
        return self._net._rate_of(self._slot)

    def __repr__(self) -> str:
        return (f"Flow(id={self.id}, volume={self.volume!r}, links={list(self.links)}, "
                f"priority={self.priority}, finish_time={self.finish_time})")


class FlowNetwork:
    """Links and the flows sharing them.

    Parameters
    ----------
    capacities : sequence of float
        Capacity of each link in bits/s (>= 0); links are numbered 0..L-1.
    sim : Simulator, optional
        Attach to an event loop (see module docstring).
    sharing : {"maxmin", "priority"}
        ``"maxmin"``: per-flow max-min fairness, priorities ignored.
        ``"priority"``: strict priority classes (lower ``priority`` value
        first), max-min inside a class, work-conserving.
    engine : {"incremental", "full"}
        How rates and completions are updated (module docstring, decision
        N9); same results, ``"full"`` is the original reference engine.

    ``recomputed_flows`` lists, per rate update, how many flows were re-solved.
    """

    def __init__(self, capacities: Sequence[float], sim: Simulator | None = None,
                 sharing: str = "maxmin", engine: str = "incremental"):
        self.capacities = check_array("capacities", capacities, lo=0.0, min_len=1).copy()
        self.sharing = check_choice("sharing", sharing, ("maxmin", "priority"))
        self.engine = check_choice("engine", engine, ENGINES)
        self._inc = self.engine == "incremental"
        self._lv = self._inc and self.sharing == "maxmin"  # per-link levels (N9, fifth round)
        self.sim = sim
        self.now = sim.now if sim is not None else 0.0
        n0 = 64
        self._volume = np.zeros(n0)
        self._remaining = np.zeros(n0)
        self._rate = np.zeros(n0)
        self._prio = np.zeros(n0, dtype=np.int64)
        self._fstart = np.zeros(n0, dtype=np.int64)
        self._fend = np.zeros(n0, dtype=np.int64)
        self._alive = np.zeros(n0, dtype=bool)
        self._fidx = np.zeros(4 * n0, dtype=np.int64)
        self._fid = np.zeros(n0, dtype=np.int64)       # flow id per slot
        self._n_slots = 0
        self._n_idx = 0
        self._n_alive = 0
        self._flows: list[Flow | None] = []
        self._next_id = 0
        # run_flows' batch while it runs: (id of its first flow, finish time per flow); its flows have no handle
        self._anon: tuple[int, np.ndarray] | None = None
        self._pend_slots: list[int] = []       # ... and their slots awaiting a rate update
        self._dirty = False
        self._timer: Timer | None = None
        self._poke: Timer | None = None
        self._done: list[Flow] = []
        self.recomputations = 0
        self.recomputed_flows: list[int] = []
        # incremental: flow-level solver passes, flows solved, refresh pos; level propagations that
        # succeeded / gave up, links they solved, adjacency entries they read, bottlenecks they moved
        self.solver_stats = np.zeros(8, dtype=np.int64)
        self._kb: State | None = None   # the kernels' argument bundles (_bundles)
        self._kh: Handle | None = None   # ... behind one pointer (_handle)
        self._kb_state: tuple = ()
        self._kcfg_key: tuple = ()      # ... and the Config (_kconfig)
        self._kcfg: tuple = ()
        if self._inc:
            self._inc_init(n0)

    # ------------------------------------------------------------------ queries
    @property
    def n_links(self) -> int:
        return int(self.capacities.shape[0])

    @property
    def active_flows(self) -> list[Flow]:
        return [f for f in self._flows[: self._n_slots] if f is not None]

    def __len__(self) -> int:
        return self._n_alive

    def link_load(self) -> np.ndarray:
        """Sum of current flow rates on every link (bits/s)."""
        self._ensure_rates()
        load = np.zeros(self.n_links)
        s = np.flatnonzero(self._alive[: self._n_slots])
        for slot in s:
            ls = self._fidx[self._fstart[slot]: self._fend[slot]]
            load[ls[ls >= 0]] += self._rate_of(slot)
        return load

    # ---------------------------------------------------------------- mutation
    def add_flow(self, links: Iterable[int], volume: float, *, priority: int = 0,
                 on_done: Callable[[Flow], None] | None = None, tag=None) -> Flow:
        """Start a flow of ``volume`` bits over ``links`` now; return its handle.

        ``priority`` (int >= 0) matters only with ``sharing="priority"``.
        ``on_done(flow)`` is called when the flow completes (attached mode, or
        from ``run_until_idle`` in stand-alone mode).  A zero-volume flow completes at once.
        """
        links = tuple(int(l) for l in links)
        n_links = int(self.capacities.shape[0])
        for l in links:
            if not 0 <= l < n_links:
                raise ValueError(f"links must be link ids in [0, {n_links - 1}], got {l}")
        if len(set(links)) != len(links):
            raise ValueError(f"links must not repeat a link, got {list(links)}")
        volume = check_real("volume", volume, 0.0)
        priority = check_int("priority", priority, lo=0)
        self._advance(self._clock())
        flow = Flow(self._next_id, volume, links, priority, on_done, self.now, tag, self)
        self._next_id += 1
        slot = self._alloc_slot(len(links))
        flow._slot = slot
        self._volume[slot] = volume
        self._remaining[slot] = volume
        self._rate[slot] = 0.0
        self._prio[slot] = priority
        start = self._n_idx
        self._fidx[start: start + len(links)] = links
        self._fstart[slot] = start
        self._fend[slot] = start + len(links)
        self._fid[slot] = flow.id
        self._n_idx += len(links)
        self._alive[slot] = True
        self._flows.append(flow)
        self._n_alive += 1
        if self._inc:
            self._tupd[slot] = self.now
            self._cb[slot] = on_done is not None
            self._bl[slot] = -1
            self._tag[slot] = volume  # without a bottleneck, the tag is the remaining bits
            if not self._lv:
                _k_settle(self._handle(), np.array([slot]), np.zeros(1), True, self.now)
            self._adj_add(slot)
            self._pend_flows.append(flow)
            self._open.update(links)
        self._touch()
        return flow

    def add_flows(self, paths, volumes, *, priorities=0, tags=None) -> list[Flow]:
        """Start many flows now: the same as ``add_flow`` on each in order (same ids,
        slots and rates), with the checks and table updates done once for the batch.

        ``paths``: one link sequence per flow, or a 2-D int array with one row per
        flow; ``volumes``: bits (>= 0), one per flow or one for all; ``priorities``:
        int >= 0, one per flow or one for all; ``tags``: one per flow, or None.  The
        flows get no ``on_done`` callback (use ``add_flow`` for that).
        """
        return self._add_flows(paths, volumes, priorities, tags, handles=True)

    def _add_flows(self, paths, volumes, priorities, tags, handles: bool) -> list[Flow]:
        """:meth:`add_flows`; with ``handles`` False (:meth:`run_flows`) the flows get no handle (their
        ``_flows`` entries are None, their slots wait for a rate update in ``_pend_slots``) and [] is
        returned."""
        flat, lens = _flatten_paths(paths, self.n_links)
        k = lens.size
        volumes = check_array("volumes", np.broadcast_to(np.asarray(volumes, dtype=float), (k,)), lo=0.0)
        prio = np.broadcast_to(np.asarray(priorities), (k,))
        if prio.size and (not np.issubdtype(prio.dtype, np.integer) or prio.min() < 0):
            raise ValueError(f"priorities must be integers >= 0, got {priorities!r}")
        if tags is not None and len(tags) != k:
            raise ValueError(f"tags must have one entry per flow ({k}), got {len(tags)}")
        if k == 0:
            return []
        self._advance(self._clock())
        self._reserve(k, flat.size)
        slots = np.arange(self._n_slots, self._n_slots + k, dtype=np.int64)
        starts = self._n_idx + np.concatenate(([0], np.cumsum(lens)[:-1]))
        self._fidx[self._n_idx: self._n_idx + flat.size] = flat
        self._fstart[slots] = starts
        self._fend[slots] = starts + lens
        self._volume[slots] = volumes
        self._remaining[slots] = volumes
        self._rate[slots] = 0.0
        self._prio[slots] = prio
        self._alive[slots] = True
        now, fid0 = self.now, self._next_id
        self._fid[slots] = np.arange(fid0, fid0 + k)
        self._n_slots += k
        self._n_idx += flat.size
        self._next_id += k
        self._n_alive += k
        if handles:
            flows = self._handles(flat, lens, volumes, prio, tags, slots, now, fid0)
        else:
            flows = []
            self._flows.extend(itertools.repeat(None, k))
        if self._inc:
            self._tupd[slots] = self.now
            self._cb[slots] = False
            self._bl[slots] = -1
            self._tag[slots] = volumes
            kb = self._bundles()
            if not self._lv:
                inc.settle(slots, np.zeros(k), True, self.now, kb.flows, kb.proj)
            if not inc.adj_insert_many(kb.adj, kb.flows, slots):
                self._adj_rebuild()
            if handles:
                self._pend_flows.extend(flows)
            else:
                self._pend_slots.extend(slots.tolist())
            self._open.update(np.unique(flat).tolist())
        self._touch()
        return flows

    def _handles(self, flat, lens, volumes, prio, tags, slots, now, fid0) -> list[Flow]:
        """A :class:`Flow` per new slot of :meth:`_add_flows`, appended to ``_flows``."""
        k = lens.size
        tag_list = [None] * k if tags is None else tags
        if (lens == lens[0]).all():                  # equal path lengths (e.g. unicast pairs): one reshape
            links = list(map(tuple, flat.reshape(k, int(lens[0])).tolist()))
        else:
            bounds = np.concatenate(([0], np.cumsum(lens))).tolist()
            flat_list = flat.tolist()
            links = [tuple(flat_list[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
        flows = [Flow(fid0 + i, vol, ln, pr, None, now, tg, self)
                 for i, (vol, ln, pr, tg) in enumerate(zip(volumes.tolist(), links, prio.tolist(), tag_list))]
        for f, slot in zip(flows, slots.tolist()):
            f._slot = slot
        self._flows.extend(flows)
        return flows

    def remove_flow(self, flow: Flow) -> float:
        """Abort an active flow; return the bits it had left. ``on_done`` is not called."""
        self._check_mine(flow)
        self._advance(self._clock())
        left = self._remaining_of(flow._slot)
        self._kill(flow)
        self._touch()
        return left

    def drop_link(self, flow: Flow, link: int) -> None:
        """Remove ``link`` from an active flow's path (e.g. a multicast receiver dropped)."""
        self._check_mine(flow)
        if link not in flow.links:
            raise ValueError(f"link must be one of the flow's links {list(flow.links)}, got {link}")
        self._advance(self._clock())
        if self._inc:
            kb = self._bundles()
            inc.adj_remove_link(kb.adj, self._fidx, self._fstart[flow._slot], self._fend[flow._slot], link, flow._slot)
            inc.drop_link_load(kb.flows, kb.links, kb.adj, self._lv, link, flow._slot)
            self._open.update(flow.links)
            self._pend_flows.append(flow)
        seg = self._fidx[self._fstart[flow._slot]: self._fend[flow._slot]]
        seg[seg == link] = -1
        flow.links = tuple(l for l in flow.links if l != link)
        self._touch()

    def set_capacity(self, link: int, capacity: float) -> None:
        """Change one link's capacity (bits/s) from now on."""
        link = check_int("link", link, 0, self.n_links - 1)
        capacity = check_real("capacity", capacity, 0.0)
        self._advance(self._clock())
        self.capacities[link] = capacity
        if self._inc:
            self._open.add(link)
            if capacity < self._load[link]:
                # the flows crossing it no longer fit, bottlenecked here or not: re-solve them all
                for slot in self._ladj[self._loff[link]: self._loff[link] + self._lcnt[link]].tolist():
                    f = self._flows[slot]
                    self._pend_flows.append(f)
                    self._open.update(f.links)
        self._touch()

    def set_capacities(self, capacities: Sequence[float]) -> None:
        """Replace every link capacity (bits/s) from now on."""
        caps = check_array("capacities", capacities, lo=0.0)
        if caps.shape != self.capacities.shape:
            raise ValueError(f"capacities must have length {self.n_links}, got {caps.shape[0]}")
        self._advance(self._clock())
        self.capacities = caps.copy()
        self._kb = None
        if self._inc:
            self._open.update(range(self.n_links))
        self._touch()

    # ----------------------------------------------------- stand-alone driving
    def next_completion_time(self) -> float:
        """Absolute time at which the next active flow completes (``inf`` if none can)."""
        self._ensure_rates()
        if self._n_alive == 0:
            return math.inf
        if self._lv:
            t = _k_levels_next_time(self._handle(), self.now)
            return max(float(t), self.now)
        if self._inc:
            t = inc.next_time(self._bundles().proj, self._n_slots)
            return max(float(t), self.now)
        n = self._n_slots
        return self.now + _min_time_left(self._remaining, self._volume, self._rate, self._alive, n)

    def advance_to(self, t: float) -> list[Flow]:
        """Move the clock to ``t`` (no later than the next completion) and
        return the flows that completed, without calling their ``on_done``."""
        if self.sim is not None:
            raise RuntimeError("advance_to is for stand-alone networks; this one is attached to a Simulator")
        t = check_real("t", t, self.now)
        self._ensure_rates()
        self._advance(t)
        return self._collect_completed()

    def run_until_idle(self) -> list[Flow]:
        """Stand-alone: advance from completion to completion until no flow can
        progress; calls ``on_done`` and returns finished flows in completion order."""
        finished = []
        self._run_to_idle(finished)
        return finished

    def run_flows(self, paths, volumes, *, priorities=0) -> np.ndarray:
        """Stand-alone, on an idle network (no active flow): start these flows now and run until idle --
        the same as ``flows = add_flows(paths, volumes, priorities=priorities)`` then ``run_until_idle()``
        (the same ids, slots, rates, completions and ``recomputations``), but without a :class:`Flow` handle
        per flow: the Python objects a batch of thousands of flows would cost (decision N19).  Returns each
        flow's finish time (s) in the order given, NaN for a flow that could not complete (it stays active,
        ``len(net) > 0``)."""
        if self.sim is not None:
            raise RuntimeError("run_flows is for stand-alone networks; this one is attached to a Simulator")
        if self._n_alive:
            raise ValueError(f"run_flows needs an idle network (no active flow), got {self._n_alive} active")
        if not self._inc:          # the full engine steps through completions in Python anyway
            flows = self.add_flows(paths, volumes, priorities=priorities)
            self.run_until_idle()
            return np.array([np.nan if f.finish_time is None else f.finish_time for f in flows], dtype=float)
        fid0 = self._next_id
        self._add_flows(paths, volumes, priorities, None, handles=False)
        fin = np.full(self._next_id - fid0, np.nan)
        self._anon = (fid0, fin)
        try:
            self._run_to_idle([])
        finally:
            self._anon = None
        return fin

    def _run_to_idle(self, finished: list) -> None:
        """:meth:`run_until_idle`'s loop: finished flows (with a handle) appended to ``finished``."""
        while True:
            if self._inc and self.sim is None and self._run_compiled(finished):
                continue
            t = self.next_completion_time()
            if math.isinf(t):
                return
            done = self.advance_to(t)
            for f in done:
                if f.on_done is not None:
                    f.on_done(f)
            finished.extend(done)

    def _run_compiled(self, finished: list) -> bool:
        """Run completions in one compiled call (:func:`incremental.run_completions`)
        until a flow with ``on_done`` completes, the slots need compacting or
        nothing can complete; handle the completed flows as ``advance_to`` and
        ``run_until_idle`` do.  False when it made no progress (the caller's
        step-by-step loop takes over)."""
        self._ensure_rates()
        if self._n_alive == 0:
            return False
        out = Output(slot=np.empty(self._n_alive, dtype=np.int64), time=np.empty(self._n_alive),
                     ns=np.empty(self._n_alive + 1, dtype=np.int64), opened=np.empty(self.n_links, dtype=np.int64))
        k, u, now, n_open, dirty = inc.run_completions(self._state_bundle(), self._kconfig(), self._n_slots,
                                                       self._n_alive, self.now, self._compact_below(), tuple(out))
        self.now = float(now)
        self.recomputations += u
        self.recomputed_flows.extend(out.ns[:u].tolist())
        if self._anon is None:
            flows, slots = self._flows, out.slot[:k].tolist()
            done = [flows[slot] for slot in slots]
            for slot, f, t in zip(slots, done, out.time[:k].tolist()):
                flows[slot] = None
                f.finish_time = t
                f._slot = -1
        else:                                     # run_flows' batch: its flows' finish times
            fid0, fin = self._anon
            fin[self._fid[out.slot[:k]] - fid0] = out.time[:k]
            done = []
        self._n_alive -= k
        if dirty:
            self._open.update(out.opened[:n_open].tolist())
            self._dirty = True
        if k and self._n_alive < self._compact_below():
            self._compact()
        for f in done:  # only the last batch can hold flows with on_done
            if f.on_done is not None:
                f.on_done(f)
        finished.extend(done)
        return k > 0

    # ---------------------------------------------------------------- internals
    def _clock(self) -> float:
        return self.sim.now if self.sim is not None else self.now

    def _check_mine(self, flow: Flow) -> None:
        if flow._net is not self:
            raise ValueError("flow must belong to this network")
        if flow._slot < 0:
            raise ValueError(f"flow must be active; flow {flow.id} already finished or was removed")

    def _alloc_slot(self, n_links: int) -> int:
        self._reserve(1, n_links)
        slot = self._n_slots
        self._n_slots += 1
        return slot

    def _reserve(self, n_flows: int, n_links: int) -> None:
        """Room for ``n_flows`` more slots holding ``n_links`` link entries in all."""
        if self._n_slots + n_flows > self._volume.shape[0]:
            if self._n_alive <= self._n_slots // 2:
                self._compact()
            while self._n_slots + n_flows > self._volume.shape[0]:
                self._grow_slots()
        if self._n_idx + n_links > self._fidx.shape[0]:
            if self._n_alive <= self._n_slots // 2:
                self._compact()
            while self._n_idx + n_links > self._fidx.shape[0]:
                self._fidx = np.concatenate([self._fidx, np.zeros_like(self._fidx)])
                self._kb = None

    _SLOT_ARRAYS = ("_volume", "_remaining", "_rate", "_prio", "_fstart", "_fend", "_alive", "_fid")
    _INC_SLOT_ARRAYS = ("_tupd", "_bl", "_nrate", "_nbl", "_in_s", "_cb", "_tag")

    def _grow_slots(self) -> None:
        names = self._SLOT_ARRAYS + (self._INC_SLOT_ARRAYS if self._inc else ())
        for name in names:
            arr = getattr(self, name)
            setattr(self, name, np.concatenate([arr, np.zeros_like(arr)]))
        self._kb = None
        if self._inc:
            self._zprio = np.zeros(self._volume.shape[0], dtype=np.int64)
            self._tz = np.concatenate([self._tz, np.full_like(self._tz, np.inf)])
            self._tt = np.concatenate([self._tt, np.full_like(self._tt, np.inf)])
            self._blocks_alloc()

    def _compact_below(self) -> int:
        """Compact the slots once fewer flows than this are alive (after completions);
        the incremental engine's full solve walks every slot: keep them at least half alive."""
        if self._n_slots <= 256:
            return 0
        return self._n_slots // (2 if self._inc else 4)

    def _compact(self) -> None:
        n = self._n_slots
        keep = np.flatnonzero(self._alive[:n])
        old_starts = self._fstart[keep]
        lens = self._fend[keep] - old_starts
        ends = np.cumsum(lens)
        pos = int(ends[-1]) if keep.size else 0
        starts = ends - lens                          # each kept segment's new start, in slot order
        names = ("_volume", "_remaining", "_rate", "_prio", "_alive", "_fid")
        if self._inc:
            names += ("_tupd", "_bl", "_tz", "_tt", "_cb", "_tag")
        for name in names:
            arr = getattr(self, name)
            arr[: keep.size] = arr[keep]
            arr[keep.size: n] = 0
        if pos:                                       # gather the kept segments (a copy: overlap is safe)
            self._fidx[:pos] = self._fidx[np.repeat(old_starts - starts, lens) + np.arange(pos)]
        self._fstart[: keep.size] = starts
        self._fend[: keep.size] = starts + lens
        if self._anon is None:
            flows = [self._flows[s] for s in keep.tolist()]
            for k, f in enumerate(flows):
                f._slot = k
        else:                                         # run_flows' batch: every alive flow is one of its own
            flows = [None] * keep.size
            if self._pend_slots:                      # not yet solved (a compaction to make room for it)
                new = np.full(n, -1, dtype=np.int64)
                new[keep] = np.arange(keep.size)
                self._pend_slots = [p for p in new[self._pend_slots].tolist() if p >= 0]
        self._flows = flows
        self._n_slots = keep.size
        self._n_idx = pos
        if self._inc:
            self._tz[keep.size: n] = np.inf
            self._tt[keep.size: n] = np.inf
            self._adj_rebuild()
            self._bdirty[:] = True
            self._gdirty[:] = True
            inc.bottlenecks_rebuild(self._bl, self._alive, self._n_slots, self._nb)

    def _kill(self, flow: Flow) -> None:
        slot = flow._slot
        if self._inc:
            self._kill_slots(np.array([slot], dtype=np.int64))
            self._open.update(flow.links)
        self._alive[slot] = False
        self._rate[slot] = 0.0
        self._remaining[slot] = 0.0
        self._flows[slot] = None
        flow._slot = -1
        self._n_alive -= 1

    def _ensure_rates(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        if self._inc:
            self._inc_update()
            return
        n = self._n_slots
        alive = np.flatnonzero(self._alive[:n])
        if alive.size:
            self.recomputations += 1
            prio = self._prio[:n] if self.sharing == "priority" else None
            allocate_rates(self.capacities, self._fstart[:n], self._fend[:n],
                           self._fidx[: max(self._n_idx, 1)], alive, prio, self._rate[:n])

    def _advance(self, t: float) -> None:
        """Drain every active flow at its current rate from ``self.now`` to ``t``."""
        if t < self.now:
            raise ValueError(f"t must be >= the network time {self.now!r}, got {t!r}")
        dt = t - self.now
        if dt > 0 and self._n_alive:
            self._ensure_rates()
            if not self._inc:  # the incremental engine updates remaining bits lazily
                _drain(self._remaining, self._rate, self._alive, self._n_slots, dt)
        self.now = t

    def _collect_completed(self) -> list[Flow]:
        if self._n_alive == 0:
            return []
        if self._inc:
            slots = _k_collect_and_retire(self._handle(), self.now, self._lv, self._n_slots)
        else:
            slots = _completed_slots(self._remaining, self._volume, self._rate, self._alive, self._n_slots)
        done = []
        if self._anon is not None:                   # run_flows' batch (incremental engine): no handles
            self._collect_anonymous(slots)
        else:
            for slot in slots.tolist():  # slot order = start order: deterministic
                f = self._flows[slot]
                f.finish_time = self.now
                if self._inc:
                    self._open.update(f.links)
                    self._flows[slot] = None
                    f._slot = -1
                    self._n_alive -= 1
                else:
                    self._kill(f)
                done.append(f)
        if slots.size:
            self._dirty = True
            if self._n_alive < self._compact_below():
                self._compact()
        return done

    def _collect_anonymous(self, slots: np.ndarray) -> None:
        """:meth:`_collect_completed` for completed ``slots`` of :meth:`run_flows`' batch (incremental engine,
        retired already): their finish times, and their links opened in the order the handles' would be."""
        fid0, fin = self._anon
        fin[self._fid[slots] - fid0] = self.now
        for slot in slots.tolist():
            seg = self._fidx[self._fstart[slot]: self._fend[slot]]
            self._open.update(seg[seg >= 0].tolist())
        self._n_alive -= slots.size

    # ------------------------------------------------ incremental engine (N9)
    def _inc_init(self, n0: int) -> None:
        L = self.n_links
        self._tupd = np.zeros(n0)                       # time at which _remaining is exact
        self._tz = np.full(n0, np.inf)                  # projected time of the last bit
        self._tt = np.full(n0, np.inf)                  # projected entry into the N6 tolerance
        self._blocks_alloc()
        self._bl = np.full(n0, -1, dtype=np.int64)      # bottleneck link per slot
        self._nrate = np.zeros(n0)                      # solver scratch
        self._nbl = np.zeros(n0, dtype=np.int64)
        self._in_s = np.zeros(n0, dtype=bool)
        self._cb = np.zeros(n0, dtype=bool)             # the flow has an on_done callback
        self._zprio = np.zeros(n0, dtype=np.int64)
        self._lam = np.zeros(L)                         # rate of the flows bottlenecked on a link
        self._nb = np.zeros(L, dtype=np.int64)          # how many flows are bottlenecked on it
        self._load = np.zeros(L)                        # sum of rates on it
        self._l_open = np.zeros(L, dtype=bool)          # link scratch
        self._l_queued = np.zeros(L, dtype=bool)
        self._l_mark = np.zeros(L, dtype=bool)
        self._l_f = [np.zeros(L) for _ in range(5)]     # link scratch: resid, sold, snew, smax, lamn
        self._tag = np.zeros(n0)                        # levels: finish tag (remaining bits if no bottleneck)
        self._vt = np.zeros(L)                          # levels: virtual time per link, as of _tv
        self._tv = np.zeros(L)
        self._mz = np.full(L, np.inf)                   # levels: smallest tag of the link's group
        self._mt = np.full(L, np.inf)                   # ... minus the completion tolerance
        self._gdirty = np.zeros(L, dtype=bool)          # ... to be recomputed
        self._nol = np.zeros(1, dtype=np.int64)         # levels: alive flows without links
        self._lstate = np.zeros(L, dtype=np.int8)       # propagation scratch
        self._lv_max_pops = LV_MAX_SOLVES * L + 16      # link solves before a propagation gives up
        self._open: set[int] = set()
        self._pend_flows: list[Flow] = []
        self._inc_limits = INC_LIMITS
        self._adj_rebuild()

    # ------------------------------------------ the kernels' arguments (flowstate)
    def _bundles(self) -> State:
        """The engine's arrays bundled by meaning for the compiled kernels
        (:mod:`simlib.core.flowstate`), each bundle a plain tuple in its NamedTuple's field
        order (cheaper to pass than the NamedTuple).  Cached: whatever replaces one of these
        arrays resets ``_kb`` (``tests/core/test_network_incremental.py`` checks that the
        bundles hold the current arrays)."""
        if self._kb is None:
            resid, sold, snew, smax, lamn = self._l_f
            kb = State(
                flows=self._flows_bundle(),
                links=Links(self.capacities, self._load, self._lam, self._nb, self._vt, self._tv, self._mz, self._mt,
                            self._gdirty),
                adj=Adjacency(self._loff, self._lcnt, self._lcap, self._ladj, self._lpart, self._lbl),
                proj=Projections(self._tz, self._tt, self._bz, self._bt, self._bdirty),
                scratch=Scratch(self._l_open, self._l_queued, self._l_mark, resid, sold, snew, smax, lamn,
                                self._lstate, self._in_s, self._nrate, self._nbl),
                counters=Counters(self.solver_stats, self._nol))
            self._kb = State(*(tuple(bundle) for bundle in kb))
            self._kb_state = tuple(self._kb)
            self._kh = None
        return self._kb

    def _handle(self) -> Handle:
        """:meth:`_bundles` behind one pointer (a :class:`~simlib.core.flowstate.Handle`), for the
        kernels Python calls at every event (the ``_k_*`` adapters); rebuilt with the bundles."""
        if self._kb is None:
            self._bundles()
        if self._kh is None:
            self._kh = make_handle(self._kb_state)
        return self._kh

    def _state_bundle(self) -> tuple:
        """:meth:`_bundles` as one plain tuple (a :class:`~simlib.core.flowstate.State`)."""
        if self._kb is None:
            self._bundles()
        return self._kb_state

    def _flows_bundle(self) -> Flows:
        return Flows(self._fstart, self._fend, self._fidx, self._alive, self._volume, self._remaining, self._rate,
                     self._tupd, self._prio if self.sharing == "priority" else self._zprio, self._bl, self._tag,
                     self._cb)

    def _kconfig(self) -> tuple:
        """The solvers' :class:`~simlib.core.flowstate.Config`, as a plain tuple (cached; tests
        change ``_inc_limits`` and ``_lv_max_pops``)."""
        key = (self._inc_limits, self._lv_max_pops)
        if key != self._kcfg_key:
            self._kcfg_key = key
            self._kcfg = tuple(Config(self.sharing == "priority", self._lv, SCAN_MAX_LINKS,
                                      tuple(float(x) for x in self._inc_limits), int(self._lv_max_pops)))
        return self._kcfg

    def _adj_rebuild(self) -> None:
        self._loff, self._lcnt, self._lcap, self._ladj, self._lpart, self._lbl = inc.adj_build(
            self.n_links, tuple(self._flows_bundle()), self._n_slots)
        self._kb = None

    def _adj_add(self, slot: int) -> None:
        if not inc.adj_insert(self._bundles().adj, self._fidx, self._fstart[slot], self._fend[slot], slot):
            self._adj_rebuild()  # the slot is alive already, so the rebuild includes it

    def _blocks_alloc(self) -> None:
        nblk = (self._tz.shape[0] >> inc.BLOCK_SHIFT) + 1
        self._kb = None
        self._bz = np.full(nblk, np.inf)   # per-block minima of _tz / _tt
        self._bt = np.full(nblk, np.inf)
        self._bdirty = np.ones(nblk, dtype=bool)

    def _kill_slots(self, slots: np.ndarray) -> None:
        kb = self._bundles()
        inc.kill_slots(slots, kb.flows, kb.links, kb.adj, kb.proj, kb.counters, self._lv)

    def _rate_of(self, slot: int) -> float:
        b = self._bl[slot] if self._lv else -1
        return float(self._lam[b] if b >= 0 else self._rate[slot])

    def _remaining_of(self, slot: int) -> float:
        if self._lv:
            kb = self._bundles()
            return float(lv.remaining(slot, self.now, kb.flows, kb.links))
        if not self._inc:
            return float(self._remaining[slot])
        r = self._rate[slot]
        if r == math.inf:  # emptied by any time step, as the full engine's drain does
            return float(self._remaining[slot]) if self.now <= self._tupd[slot] else 0.0
        return max(float(self._remaining[slot] - r * (self.now - self._tupd[slot])), 0.0)

    def _inc_update(self) -> None:
        """Re-solve what the changes since the last update can affect (N9)."""
        pend = [f._slot for f in self._pend_flows if f._slot >= 0] + self._pend_slots
        opened = self._open
        self._pend_flows = []
        self._pend_slots = []
        self._open = set()
        if self._n_alive == 0:
            return
        self.recomputations += 1
        h, cfg = self._handle(), self._kconfig()
        opened_links = np.fromiter(opened, dtype=np.int64, count=len(opened))
        ns = -1
        if self._lv and not pend:
            ns = _k_propagate(h, opened_links, self.now, self._lv_max_pops, self.solver_stats[5:8])
            self.solver_stats[3 if ns >= 0 else 4] += 1
        max_pend, max_open, max_affected = self._inc_limits
        if ns < 0 and len(pend) <= self._n_alive * max_pend and len(opened) <= max(self.n_links * max_open, 2):
            max_flows = self._n_alive + 1 if max_affected >= 1 else max(int(self._n_alive * max_affected), 16)
            ns = _k_solve_incremental(h, cfg, opened_links, np.array(pend, dtype=np.int64), max_flows, self.now)
        if ns < 0:
            ns = _k_solve_full(h, cfg, self._n_slots, self.now)
        self.recomputed_flows.append(int(ns))

    def _touch(self) -> None:
        """Rates are stale; in attached mode make sure a reschedule happens at this instant."""
        self._dirty = True
        if self.sim is not None and (self._poke is None or not self._poke.pending):
            self._poke = self.sim.schedule(0.0, self._reschedule)

    def _reschedule(self) -> None:
        self._poke = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        t = self.next_completion_time()
        if not math.isinf(t):
            self._timer = self.sim.schedule_at(max(t, self.sim.now), self._on_completion)

    def _on_completion(self) -> None:
        self._timer = None
        self._advance(self.sim.now)
        done = self._collect_completed()
        for f in done:
            if f.on_done is not None:
                f.on_done(f)
        # callbacks may have added flows (which already poked); coalesce into one reschedule
        if self._poke is None or not self._poke.pending:
            self._reschedule()


# code compiled from other modules is frozen into this module's cache entries (simlib.core.jitcache)
jitcache.track(globals())
