"""The compiled engine of :class:`~simlib.runtime.cluster.Cluster` (decision N13): the same run in one
numba loop, for the systems it covers; the Python loop (``engine="python"``) stays the reference.

What it covers (:func:`supported` says why a cluster is not): all reduce
(:class:`~simlib.runtime.baselines.AllReduceController`) and FIFO partial reduce
(:class:`~simlib.runtime.baselines.PartialReduceController` without a group filter) with any weight
rule, and Eager-Reduce (:class:`~simlib.runtime.decentralized.EagerReduceController`), each with a
ring all-reduce as one coupled flow (``RingFlows`` / ``WholeRing`` with ``ring_model="single"``); the
parameter servers (:class:`~simlib.runtime.parameter_server.ParameterServerController` with its
``PushPull``: PS BSP, BK, ASP, HETE); AD-PSGD with or without atomic averaging (AD4: the models' locks and the
exchanges waiting for them; :class:`~simlib.runtime.decentralized.ADPSGDController` with its own
``PairwiseExchange``, its neighbours drawn ahead by the same calls in the same order, the generator put back
afterwards); a controller served at its turns (``MODE_TURNS``, decision N14: a paper's own compiled turn,
e.g. seed 000's selective reduce, :mod:`simlib.papers.selective_reduce.compiled`, which calls
:func:`run_to_turn` and takes each :data:`TURN` with :func:`launch`, :func:`record_hold` and :func:`timer_set`);
all on a :class:`~simlib.core.topology.BigSwitch` under max-min
sharing, with compute times from a :class:`~simlib.runtime.cluster.ComputeTimes` or
:class:`~simlib.runtime.cluster.ScriptedComputeTimes` or a recorded trace's replay
(:class:`~simlib.workloads.traces.ReplayComputeTimes`): classes that set ``per_worker_streams`` (told
``drawing_ahead`` and then ``used_draws``, so that a replay's wrap warning is the Python loop's) -- each
worker's draws its own stream, so
drawing them ahead per worker gives every worker the same values in the same order as the Python loop's
calls of ``next(w)``.

It is a transcription, statement for statement, of what the Python objects do at each event:

* :class:`~simlib.core.events.Simulator`: a binary heap of (time, sequence number) with the same
  numbering (every ``schedule`` takes the next number, also when the time is infinite and nothing is
  queued), cancelled timers dropped when they reach the head, the same ``until`` and no-progress rules;
* :class:`~simlib.core.network.FlowNetwork` (incremental engine, levels mode): the same compiled
  solvers (:mod:`simlib.core.levels`, :mod:`simlib.core.incremental`) called on the same arrays in
  the same order, with the network's Python glue ported: slot allocation, growth and compaction, the
  pending flows and the set of opened links -- a replica of CPython's set (:func:`_set_add`), whose
  iteration order is the order in which ``_inc_update`` hands the links to the solvers;
* the cluster's worker state machine, the controllers, the ring all-reduce
  (:class:`~simlib.core.collectives.RingAllReduce`, ``"single"``), the parameter server's push/pull and
  AD-PSGD's pairwise exchange with ``Cluster.block`` / ``unblock`` (cancellable compute timers) and, atomic, its
  locks and first-in first-out waiting exchanges (``PairwiseExchange.start`` / ``_go`` / ``_release``).

The loop runs without numba's reference counts (``_nrt=False``; the note above :func:`_inc_update` says how: it
allocates nothing, and the network's arrays have room beyond their logical size).  The weight rule and
Eager-Reduce's versions do not change the schedule: they are replayed afterwards
in event order (each sync records how many compute completions preceded its launch).  Results are bit-identical to the Python
loop (``tests/runtime/test_cluster_kernel.py`` compares both on random settings).

Units: seconds, bits, bits/s.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from simlib.core import incremental as inc
from simlib.core import jitcache
from simlib.core import levels as lv
from simlib.core.collectives import RingFlows
from simlib.core.events import NoProgressError
from simlib.core.flowstate import Adjacency, Config, Counters, Flows, Links, Projections, Scratch, State
from simlib.core.topology import BigSwitch
from simlib.runtime.kernel_driver import DONE, NEED_DRAWS, NEED_SPACE, STALLED, DrawBuffer, drive
from simlib.runtime.log import SyncRecord

__all__ = ["supported", "run_compiled"]

# event kinds (EV_CTL: the timer of a controller served at its turns, MODE_TURNS)
EV_COMPUTE, EV_POKE, EV_NET, EV_ADDFLOW, EV_FINISH, EV_UNICAST, EV_ACCEPT, EV_CTL = 0, 1, 2, 3, 4, 5, 6, 7
# iv: integer scalars (I_SCAP / I_ICAP: the network's logical slot and link-entry capacities, I_NEEDS / I_NEEDI /
# I_NEEDA: the physical room the next event may need, I_FMAX / I_LMAX: flows and their links one event may add;
# I_ATOMIC: AD-PSGD's locked exchanges, AD4; I_NWAIT: how many exchanges wait for their locks)
(I_SEQ, I_NH, I_TIMER, I_POKE, I_NSLOTS, I_NIDX, I_NALIVE, I_DIRTY, I_NPEND, I_SAME, I_NCE, I_NSYNC, I_NMEM,
 I_QLEN, I_SFILL, I_SMASK, I_STARTED, I_LOW, I_N, I_NHOSTS, I_MODE, I_P, I_LIMIT, I_EVENTS, I_NDRAW,
 I_BUSY, I_VERSION, I_NSTEP, I_BACKUPS, I_SERVERS, I_STEPSUM, I_HETE, I_DROPPED, I_ADK, I_BLOCK, I_OVERFLOW,
 I_CTL, I_TURN, I_NDONE, I_NHOLD, I_SCAP, I_ICAP, I_NEEDS, I_NEEDI, I_NEEDA, I_FMAX, I_LMAX, I_ATOMIC,
 I_NWAIT) = range(49)
N_IV = 49
# fs: float scalars
F_NOW, F_NETNOW, F_UNTIL, F_INSTANT, F_BITS, F_ALPHA, F_ASP, F_HETE, F_APPLY, F_SFREE = range(10)
N_FS = 10
MODE_ALLREDUCE, MODE_PARTIAL, MODE_EAGER, MODE_PS_SYNC, MODE_PS_ASYNC, MODE_AD, MODE_TURNS = 0, 1, 2, 3, 4, 5, 6
#: status: AD-PSGD's neighbour draws are used up (served by the driver, kernel_driver.FIRST_OWN)
NEED_NEIGHBOURS = 8
#: status of :func:`run_to_turn` only (never the driver's): a controller served at its turns (MODE_TURNS) has a
#: turn, ``iv[I_TURN]``: the worker that became ready (after the cluster's bookkeeping), or -1: its timer fired
TURN = -1
#: sync kinds of :func:`launch` (``KINDS``)
KIND_FULL, KIND_PARTIAL = 0, 1
COMPUTING, READY, SYNCING, STOPPED = 0, 1, 2, 3
KINDS = ("full", "partial", "eager", "", "", "adpsgd")




class Net(NamedTuple):
    """The flow network: its kernels' state (:class:`~simlib.core.flowstate.State`, arrays of a physical size
    at least the logical one, ``iv[I_SCAP]`` slots and ``iv[I_ICAP]`` link entries) and Config, the integer and
    float scalars (``I_*``, ``F_*``), the pending flows' slots, the set table of opened links and the loop's
    work space (:class:`Work`)."""
    st: object
    cfg: object
    iv: np.ndarray
    fs: np.ndarray
    pend: np.ndarray
    tab: np.ndarray
    ws: object


class Work(NamedTuple):
    """The loop's work space (allocated by :func:`_run_compiled`, so that the loop allocates nothing): the opened
    links of an update (per link), the set table's copy while it resizes, a new flow's links (2 per host), and per
    physical slot the new slot numbers of a compaction and the slots an event completes."""
    opened: np.ndarray
    tabold: np.ndarray
    links: np.ndarray
    newslot: np.ndarray
    cdone: np.ndarray


class Heap(NamedTuple):
    """The event heap: time, sequence number, kind (``EV_*``) and argument of each entry."""
    t: np.ndarray
    s: np.ndarray
    k: np.ndarray
    a: np.ndarray


class Workers(NamedTuple):
    """Per worker: compute-time draws and how many are used, the cluster's arrays, timers and blocks."""
    draws: np.ndarray
    dpos: np.ndarray
    phase: np.ndarray
    cstart: np.ndarray
    cfin: np.ndarray
    ready: np.ndarray
    iters: np.ndarray
    wk: np.ndarray
    wleft: np.ndarray


class Syncs(NamedTuple):
    """The sync log's columns (per sync; ``mem`` / ``mem_it`` per member, from ``moff``)."""
    launch: np.ndarray
    finish: np.ndarray
    moff: np.ndarray
    mcnt: np.ndarray
    kind: np.ndarray
    nce: np.ndarray
    bits: np.ndarray
    mem: np.ndarray
    mem_it: np.ndarray


class Ctl(NamedTuple):
    """The controllers' state and the rest of the log: ready queue, ring flows' owners by first link, the
    completed flows of an event, PS versions held / transfers left / open sync / step, PS and AD columns,
    flow owners by slot, AD's neighbour draws, compute ends (worker, time), holds (time, worker); AD4's locks
    (per worker: 1 while an exchange holds its model) and the exchanges waiting for them (sync ids, in the order
    asked, ``iv[I_NWAIT]`` of them)."""
    queue: np.ndarray
    owner: np.ndarray
    done_buf: np.ndarray
    held: np.ndarray
    psleft: np.ndarray
    cur: np.ndarray
    step: np.ndarray
    sy_w: np.ndarray
    sy_apply: np.ndarray
    sy_ver: np.ndarray
    oslot: np.ndarray
    adr: np.ndarray
    ce_w: np.ndarray
    ce_t: np.ndarray
    hold_t: np.ndarray
    hold_w: np.ndarray
    lock: np.ndarray
    waiting: np.ndarray


# ------------------------------------------------------------------ CPython's set of small ints
@njit(cache=True, inline="always")
def _set_insert_clean(tab, mask, key):
    """CPython's ``set_insert_clean`` (Objects/setobject.c) for an int key (its hash is itself)."""
    perturb = key
    i = key & mask
    while True:
        if tab[i] < 0:
            tab[i] = key
            return
        if i + 9 <= mask:
            for j in range(1, 10):
                if tab[i + j] < 0:
                    tab[i + j] = key
                    return
        perturb >>= 5
        i = (i * 5 + 1 + perturb) & mask


@njit(cache=True, inline="always")
def _set_add(tab, iv, key, old):
    """``set.add(key)`` for an int ``key`` >= 0 on the table ``tab[:mask + 1]`` (-1 empty; no deletions):
    CPython 3.11's ``set_add_entry``, probing and resizing alike, so iteration (table order) matches.
    ``old``: work space of ``tab``'s size (the table's copy while it resizes)."""
    mask = iv[I_SMASK]
    perturb = key
    i = key & mask
    while True:
        probes = 9 if i + 9 <= mask else 0
        for j in range(probes + 1):
            e = tab[i + j]
            if e == key:
                return
            if e < 0:
                tab[i + j] = key
                iv[I_SFILL] += 1
                if iv[I_SFILL] * 5 < mask * 3:
                    return
                used = iv[I_SFILL]
                minused = used * 2 if used > 50000 else used * 4
                newsize = 8
                while newsize <= minused:
                    newsize <<= 1
                for k in range(mask + 1):
                    old[k] = tab[k]
                tab[:newsize] = -1
                for k in range(mask + 1):
                    if old[k] >= 0:
                        _set_insert_clean(tab, newsize - 1, old[k])
                iv[I_SMASK] = newsize - 1
                return
        perturb >>= 5
        i = (i * 5 + 1 + perturb) & mask


@njit(cache=True, inline="always")
def _set_take(tab, iv, out):
    """The set's items in iteration order into ``out`` (room for them); returns how many.  The set is left empty
    (a new ``set()``)."""
    mask = iv[I_SMASK]
    k = 0
    for i in range(mask + 1):
        if tab[i] >= 0:
            out[k] = tab[i]
            k += 1
            tab[i] = -1
    iv[I_SFILL] = 0
    iv[I_SMASK] = 7
    return k


# Compile time (docs/speed.md, 2026-11-30, branch warm8): numba compiles each @njit function called from compiled
# code as a library of its own and links it, re-optimized and compiled to machine code again, into each caller's,
# so every layer between run_to_turn and the network's solvers compiled the solvers once more (~17 times).  The
# layers that only run_to_turn reaches are inline="always" (inlined as numba IR, compiled as part of it); kept
# apart: run_to_turn and what a turns controller calls (launch, record_hold, timer_*), _add_flow (about a dozen
# call sites once inlined), _compact and _inc_update (launch and _inc_update inlined as well cost more: numba's
# inlining pass re-runs on each nested inlined layer, and _turns inlines launch through four of its own).
# Arguments that would be numba literals (a constant -1, True) are np.int64 / np.bool_, one specialization each.
# ------------------------------------------------------------------ the event heap
@njit(cache=True, inline="always")
def _before(ta, sa, tb, sb):
    return ta < tb or (ta == tb and sa < sb)


@njit(cache=True, inline="always")
def _put(hp, i, t, s, k, a):
    """Entry ``i`` of the heap's four arrays := (time, sequence number, kind, argument)."""
    ht, hs, hk, ha = hp
    ht[i] = t
    hs[i] = s
    hk[i] = k
    ha[i] = a


@njit(cache=True, inline="always")
def _move(hp, i, j):
    """Entry ``i`` := entry ``j`` (one step of a sift)."""
    _put(hp, i, hp.t[j], hp.s[j], hp.k[j], hp.a[j])


@njit(cache=True, inline="always")
def _push(hp, iv, time, kind, arg):
    """``Simulator.schedule_at``: the next sequence number; queued unless ``time`` is infinite."""
    ht, hs = hp.t, hp.s
    seq = iv[I_SEQ]
    iv[I_SEQ] = seq + 1
    if time == np.inf:
        return seq
    i = iv[I_NH]
    iv[I_NH] = i + 1
    while i > 0:
        p = (i - 1) >> 1
        if not _before(time, seq, ht[p], hs[p]):
            break
        _move(hp, i, p)
        i = p
    _put(hp, i, time, seq, kind, arg)
    return seq


@njit(cache=True, inline="always")
def _pop(hp, iv):
    ht, hs = hp.t, hp.s
    n = iv[I_NH] - 1
    iv[I_NH] = n
    t, s, k, a = ht[n], hs[n], hp.k[n], hp.a[n]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and _before(ht[c + 1], hs[c + 1], ht[c], hs[c]):
            c += 1
        if not _before(ht[c], hs[c], t, s):
            break
        _move(hp, i, c)
        i = c
    _put(hp, i, t, s, k, a)


# ------------------------------------------------------------------ the flow network's glue
# Reference counts (issue 48): the loop (:func:`run_to_turn`) and every compiled function it calls that binds the
# network's arrays are compiled with ``_nrt=False``: numba then keeps no count of the arrays they bind or pass (an
# atomic increment and decrement each, 17-32 % of a cluster run's CPU, docs/speed.md 2026-12-01 ``nrt15``).  Such a
# function allocates nothing and returns no array: :func:`_run_compiled` allocates the work space (:class:`Work`),
# the network's arrays have a physical size at least their logical one (``iv[I_SCAP]`` slots, ``iv[I_ICAP]`` link
# entries: what ``FlowNetwork``'s arrays would have), so that growing (``_grow_slots``, ``_grow_fidx``) only raises
# the logical size and compaction rebuilds the adjacency in place (:func:`~simlib.core.incremental.adj_build_into`);
# before each event the loop asks for more physical room (``NEED_SPACE``, :func:`_net_short`) if one event could
# outgrow it.  The solvers that allocate their own work space (``propagate``, ``solve_incremental``, ``solve_full``,
# ``collect_and_retire_into``) are compiled with counts (``_nrt=True``), which stay balanced inside them: they
# return no array.  numba compiles a callee without an explicit ``_nrt`` with its first caller's setting, so every
# compiled function the loop calls sets it.
@njit(cache=True, _nrt=False)
def _inc_update(net):
    """``FlowNetwork._inc_update`` (levels mode)."""
    st, cfg, iv, fs, pend, tab, ws = net
    alive = st.flows.alive
    npend = 0
    for k in range(iv[I_NPEND]):
        if alive[pend[k]]:
            pend[npend] = pend[k]
            npend += 1
    pend_arr = pend[:npend]     # (a copy in FlowNetwork: the solvers only read it, and nothing is added meanwhile)
    iv[I_NPEND] = 0
    opened = ws.opened[:_set_take(tab, iv, ws.opened)]
    n_alive = iv[I_NALIVE]
    if n_alive == 0:
        return
    now = fs[F_NETNOW]
    stats = st.counters.stats
    ns = -1
    if npend == 0:
        ns = lv.propagate(st.flows, st.links, st.adj, opened, now, st.scratch.lstate, cfg.lv_max_pops, stats[5:8])
        if ns >= 0:
            stats[3] += 1
        else:
            stats[4] += 1
    max_pend, max_open, max_affected = cfg.limits
    n_links = st.links.cap.shape[0]
    if ns < 0 and npend <= n_alive * max_pend and opened.shape[0] <= max(n_links * max_open, 2):
        if max_affected >= 1:
            max_flows = n_alive + 1
        else:
            max_flows = max(int(n_alive * max_affected), 16)
        ns = inc.solve_incremental(st, cfg, opened, pend_arr, max_flows, now)
    if ns < 0:
        ns = inc.solve_full(st, cfg, iv[I_NSLOTS], now)


@njit(cache=True, inline="always")
def _ensure_rates(net):
    iv = net.iv
    if iv[I_DIRTY] == 0:
        return
    iv[I_DIRTY] = 0
    _inc_update(net)


@njit(cache=True, inline="always")
def _advance(net, t):
    iv, fs = net.iv, net.fs
    if t - fs[F_NETNOW] > 0 and iv[I_NALIVE] > 0:
        _ensure_rates(net)
    fs[F_NETNOW] = t


@njit(cache=True, inline="always")
def _net_short(st, iv):
    """Whether one event (and a turn's launches: at most ``iv[I_FMAX]`` flows of ``iv[I_LMAX]`` links in all) could
    outgrow the network's physical arrays; the sizes it needs go to ``iv[I_NEEDS]`` (slots), ``iv[I_NEEDI]`` (link
    entries), ``iv[I_NEEDA]`` (adjacency entries: a rebuild gives each link twice its entries and 4)."""
    ns = max(iv[I_SCAP], 2 * (iv[I_NSLOTS] + iv[I_FMAX]))       # each doubling stops below twice what is used
    ni = max(iv[I_ICAP], 2 * (iv[I_NIDX] + iv[I_LMAX]))
    na = 2 * (iv[I_NIDX] + iv[I_LMAX]) + 4 * st.links.cap.shape[0]
    iv[I_NEEDS] = ns
    iv[I_NEEDI] = ni
    iv[I_NEEDA] = na
    return ns > st.flows.volume.shape[0] or ni > st.flows.fidx.shape[0] or na > st.adj.ladj.shape[0]


@njit(cache=True, inline="always")
def _grow_slots(st, iv):
    """``FlowNetwork._grow_slots``: the slot arrays doubled (the new slots were never written: zeros, projections
    inf); prio zeros; blocks anew."""
    m = iv[I_SCAP]
    iv[I_SCAP] = 2 * m
    st.flows.prio[:2 * m] = 0
    pj = st.proj
    nblk = ((2 * m) >> inc.BLOCK_SHIFT) + 1
    pj.bz[:nblk] = np.inf
    pj.bt[:nblk] = np.inf
    pj.bdirty[:nblk] = True


@njit(cache=True, inline="always")
def _adj_rebuild(st, n_slots, iv):
    """The adjacency built afresh (``inc.adj_build``) in its arrays; no room (a bug of :func:`_net_short`): the
    run stops (``I_OVERFLOW``)."""
    if 2 * iv[I_NIDX] + 4 * st.links.cap.shape[0] > st.adj.ladj.shape[0]:
        iv[I_OVERFLOW] = 1      # (at most twice the link entries in use, and 4 a link)
        return
    inc.adj_build_into(st.flows, n_slots, st.adj)


@njit(cache=True, _nrt=False)
def _compact(st, iv, pend, oslot, newslot):
    """``FlowNetwork._compact``: the alive slots moved to the front in order; the pending flows follow.
    ``newslot``: work space (a slot's new number)."""
    fl, pj = st.flows, st.proj
    n = iv[I_NSLOTS]
    alive = fl.alive
    newslot[:n] = -1
    k = np.int64(0)
    for s in range(n):
        if alive[s]:
            newslot[s] = k
            k += 1
    fidx, fstart, fend = fl.fidx, fl.fstart, fl.fend
    pos = 0
    for s in range(n):
        if alive[s]:
            a, b = fstart[s], fend[s]
            j = newslot[s]
            for i in range(a, b):
                fidx[pos + i - a] = fidx[i]
            fstart[j] = pos
            fend[j] = pos + b - a
            pos += b - a
    for s in range(n):
        j = newslot[s]
        if j >= 0:
            fl.volume[j] = fl.volume[s]
            fl.remaining[j] = fl.remaining[s]
            fl.rate[j] = fl.rate[s]
            fl.alive[j] = True
            fl.tupd[j] = fl.tupd[s]
            fl.bl[j] = fl.bl[s]
            pj.tz[j] = pj.tz[s]
            pj.tt[j] = pj.tt[s]
            fl.has_cb[j] = fl.has_cb[s]
            fl.tag[j] = fl.tag[s]
            oslot[j] = oslot[s]
    for j in range(k, n):
        fl.volume[j] = 0.0
        fl.remaining[j] = 0.0
        fl.rate[j] = 0.0
        fl.alive[j] = False
        fl.tupd[j] = 0.0
        fl.bl[j] = 0
        pj.tz[j] = np.inf
        pj.tt[j] = np.inf
        fl.has_cb[j] = False
        fl.tag[j] = 0.0
    m = 0
    for q in range(iv[I_NPEND]):
        j = newslot[pend[q]]
        if j >= 0:
            pend[m] = j
            m += 1
    iv[I_NPEND] = m
    iv[I_NSLOTS] = k
    iv[I_NIDX] = pos
    _adj_rebuild(st, k, iv)
    st.proj.bdirty[:] = True
    st.links.gdirty[:] = True
    inc.bottlenecks_rebuild(st.flows.bl, st.flows.alive, k, st.links.nb)


@njit(cache=True, inline="always")
def _reserve(st, iv, pend, n_links, oslot, newslot):
    """``FlowNetwork._reserve(1, n_links)`` (growing the logical sizes ``iv[I_SCAP]``, ``iv[I_ICAP]``)."""
    if iv[I_NSLOTS] + 1 > iv[I_SCAP]:
        if iv[I_NALIVE] <= iv[I_NSLOTS] // 2:
            _compact(st, iv, pend, oslot, newslot)
        while iv[I_NSLOTS] + 1 > iv[I_SCAP]:
            _grow_slots(st, iv)
    if iv[I_NIDX] + n_links > iv[I_ICAP]:
        if iv[I_NALIVE] <= iv[I_NSLOTS] // 2:
            _compact(st, iv, pend, oslot, newslot)
        while iv[I_NIDX] + n_links > iv[I_ICAP]:
            iv[I_ICAP] *= 2       # FlowNetwork's fidx doubled: the new entries were never written (zeros)


@njit(cache=True, inline="always")
def _touch(iv, fs, hp):
    iv[I_DIRTY] = 1
    if iv[I_POKE] < 0:
        iv[I_POKE] = _push(hp, iv, fs[F_NOW] + 0.0, EV_POKE, 0)


@njit(cache=True, _nrt=False)
def _add_flow(net, hp, links, volume, oslot, okey):
    """``FlowNetwork.add_flow(links, volume, on_done=...)`` (the flow has a callback); ``oslot[slot] = okey``
    (AD-PSGD: the flow's exchange)."""
    st, iv, fs, pend, tab, ws = net.st, net.iv, net.fs, net.pend, net.tab, net.ws
    _advance(net, fs[F_NOW])
    nl = links.shape[0]
    _reserve(st, iv, pend, nl, oslot, ws.newslot)
    fl = st.flows
    if iv[I_SCAP] > fl.volume.shape[0] or iv[I_ICAP] > fl.fidx.shape[0]:
        iv[I_OVERFLOW] = 1      # _net_short's bound was wrong: a bug; the run stops
        return
    slot = iv[I_NSLOTS]
    iv[I_NSLOTS] = slot + 1
    if slot < oslot.shape[0]:
        oslot[slot] = okey
    else:
        iv[I_OVERFLOW] = 1
    fl.volume[slot] = volume
    fl.remaining[slot] = volume
    fl.rate[slot] = 0.0
    start = iv[I_NIDX]
    for i in range(nl):
        fl.fidx[start + i] = links[i]
    fl.fstart[slot] = start
    fl.fend[slot] = start + nl
    iv[I_NIDX] = start + nl
    fl.alive[slot] = True
    iv[I_NALIVE] += 1
    fl.tupd[slot] = fs[F_NETNOW]
    fl.has_cb[slot] = True
    fl.bl[slot] = -1
    fl.tag[slot] = volume
    if not inc.adj_insert(st.adj, fl.fidx, fl.fstart[slot], fl.fend[slot], slot):
        _adj_rebuild(st, iv[I_NSLOTS], iv)
    if iv[I_NPEND] < pend.shape[0]:
        pend[iv[I_NPEND]] = slot
        iv[I_NPEND] += 1
    else:
        iv[I_OVERFLOW] = 1
    for i in range(nl):
        _set_add(tab, iv, links[i], ws.tabold)
    _touch(iv, fs, hp)


@njit(cache=True, inline="always")
def _reschedule(net, hp):
    """``FlowNetwork._reschedule``: the one pending completion event, at the next completion."""
    st, iv, fs = net.st, net.iv, net.fs
    iv[I_POKE] = -1
    iv[I_TIMER] = -1            # cancelled: its heap entry is dropped when it reaches the head
    _ensure_rates(net)
    if iv[I_NALIVE] == 0:
        return
    t = lv.next_time(st.flows, st.links, st.adj, st.counters, fs[F_NETNOW])
    t = max(t, fs[F_NETNOW])
    if t != np.inf:
        iv[I_TIMER] = _push(hp, iv, max(t, fs[F_NOW]), EV_NET, 0)


# ------------------------------------------------------------------ the cluster
@njit(cache=True, inline="always")
def _start_compute(w, iv, fs, draws, dpos, phase, cstart, cfin, hp, wk, wleft):
    """``Cluster._start_compute``; ``wk[0, w]`` is the sequence number of w's compute-end timer (-1: none),
    ``wk[1, w]`` the exchanges blocking it, ``wleft[w]`` the compute time left of a blocked step (NaN: none)."""
    now = fs[F_NOW]
    if now >= fs[F_UNTIL]:
        phase[w] = STOPPED
        return
    d = draws[w, dpos[w]]
    dpos[w] += 1
    if dpos[w] == iv[I_NDRAW]:
        iv[I_LOW] += 1
    phase[w] = COMPUTING
    cstart[w] = now
    cfin[w] = now + d
    if wk[1, w] > 0:
        wleft[w] = d
        return
    wk[0, w] = _push(hp, iv, now + d, EV_COMPUTE, w)


@njit(cache=True, inline="always")
def _block(j, fs, phase, cfin, wk, wleft):
    """``Cluster.block(j)``: a step in progress pauses (its timer cancelled), with the time it has left."""
    wk[1, j] += 1
    if wk[1, j] == 1 and phase[j] == COMPUTING and wk[0, j] >= 0:
        wk[0, j] = -1
        wleft[j] = cfin[j] - fs[F_NOW]


@njit(cache=True, inline="always")
def _unblock(j, iv, fs, cfin, hp, wk, wleft):
    """``Cluster.unblock(j)``: at the last one, a paused or waiting step resumes."""
    wk[1, j] -= 1
    if wk[1, j] == 0 and not np.isnan(wleft[j]):
        left = wleft[j]
        wleft[j] = np.nan
        cfin[j] = fs[F_NOW] + left
        wk[0, j] = _push(hp, iv, fs[F_NOW] + left, EV_COMPUTE, j)


@njit(cache=True, inline="always")
def _start_flow(net, hp, sid, sy_moff, sy_mcnt, mem, sy_bits, owner, oslot):
    """The scheduled start of a ring all-reduce's single flow over the ring's hosts (the sync's members;
    Eager-Reduce: every host, ``WholeRing``): every ring host's ingress, then egress.  The flow is known by
    its first link (``owner``): flows alive at once are link-disjoint (disjoint groups; one eager round)."""
    iv = net.iv
    nh = iv[I_NHOSTS]
    links = net.ws.links
    eager = iv[I_MODE] == MODE_EAGER
    m = nh if eager else sy_mcnt[sid]
    a = sy_moff[sid]
    for i in range(m):
        h = i if eager else mem[a + i]
        links[i] = h
        links[m + i] = nh + h
    owner[links[0]] = sid
    _add_flow(net, hp, links[:2 * m], sy_bits[sid], oslot, sid)


@njit(cache=True, inline="always")
def _process(net, phase, iters, queue, hp, syn, owner, oslot):
    """The controller's ``process()``: all reduce launches the n queued workers once all are queued;
    partial reduce the first p whenever p are queued; Eager-Reduce every queued worker once ``p``
    (its quorum) are, one round at a time."""
    iv = net.iv
    mode = iv[I_MODE]
    qlen = iv[I_QLEN]
    if mode == MODE_ALLREDUCE:
        if qlen != iv[I_N]:
            return
        g = qlen
    elif mode == MODE_PARTIAL:
        if qlen < iv[I_P]:
            return
        g = iv[I_P]
    else:
        if iv[I_BUSY] != 0 or qlen < iv[I_P]:
            return
        g = qlen
        iv[I_BUSY] = 1
    launch(net, hp, syn, owner, oslot, phase, iters, queue[:g], mode)
    for i in range(g, qlen):
        queue[i - g] = queue[i]
    iv[I_QLEN] = qlen - g


@njit(cache=True, _nrt=False)
def launch(net, hp, syn, owner, oslot, phase, iters, members, kind):
    """``Cluster.launch(members, kind)`` now (``kind``: an index of ``KINDS``, e.g. :data:`KIND_PARTIAL`) and
    the ring's start (``RingFlows``, ``"single"``; Eager-Reduce: ``WholeRing``); ``members`` are copied."""
    iv, fs = net.iv, net.fs
    sy_launch, sy_finish, sy_moff, sy_mcnt, sy_kind, sy_nce, sy_bits, mem, mem_it = syn
    g = members.shape[0]
    t = fs[F_NOW]
    sid = iv[I_NSYNC]
    iv[I_NSYNC] = sid + 1
    a = iv[I_NMEM]
    for i in range(g):
        m = members[i]
        phase[m] = SYNCING
        mem[a + i] = m
        mem_it[a + i] = iters[m]
    iv[I_NMEM] = a + g
    sy_launch[sid] = t
    sy_finish[sid] = np.nan
    sy_moff[sid] = a
    sy_mcnt[sid] = g
    sy_kind[sid] = kind
    sy_nce[sid] = iv[I_NCE]
    ring = iv[I_NHOSTS] if iv[I_MODE] == MODE_EAGER else g
    rounds = 2 * (ring - 1)
    if rounds == 0:
        _push(hp, iv, t + 0.0, EV_FINISH, sid)
    else:
        sy_bits[sid] = rounds * (fs[F_BITS] / ring)
        delay = rounds * fs[F_ALPHA]
        if delay == 0.0:
            _start_flow(net, hp, sid, sy_moff, sy_mcnt, mem, sy_bits, owner, oslot)
        else:
            _push(hp, iv, t + delay, EV_ADDFLOW, sid)


@njit(cache=True, _nrt=False)
def timer_set(net, hp, delay):
    """The turns controller's one timer (MODE_TURNS) due ``delay`` s from now: ``Simulator.schedule`` if none is
    pending, else ``Simulator.postpone`` -- both take the next sequence number, so a new heap entry at
    (now + delay, that number) ranks as the Python loop's timer; an older entry is dropped at the head."""
    iv, fs = net.iv, net.fs
    iv[I_CTL] = _push(hp, iv, fs[F_NOW] + delay, EV_CTL, 0)


@njit(cache=True, _nrt=False)
def timer_cancel(net):
    """``Timer.cancel()`` of the turns controller's timer (its heap entry is dropped at the head)."""
    net.iv[I_CTL] = -1


@njit(cache=True, _nrt=False)
def timer_pending(net):
    return net.iv[I_CTL] >= 0


@njit(cache=True, _nrt=False)
def record_hold(net, ct, workers):
    """``Cluster.record_hold(workers)``: (now, w) for each, in order (room for n per turn: :func:`run_to_turn`)."""
    iv, fs = net.iv, net.fs
    k = iv[I_NHOLD]
    for i in range(workers.shape[0]):
        ct.hold_t[k + i] = fs[F_NOW]
        ct.hold_w[k + i] = workers[i]
    iv[I_NHOLD] = k + workers.shape[0]


# ------------------------------------------------------------------ the parameter server (PushPull + controller)
@njit(cache=True, inline="always")
def _ps_transfer(net, hp, psleft, w, pull, oslot):
    """``PushPull._transfer``: worker ``w``'s push to every server (or pull from every server), each a
    unicast of ``model_bits / s`` started after ``alpha`` (at once if 0)."""
    iv, fs = net.iv, net.fs
    nh = iv[I_NHOSTS]
    nsv = iv[I_SERVERS]
    psleft[w] = nsv
    bits = fs[F_BITS] / nsv
    for k in range(nsv):
        srv = nh - nsv + k
        src, dst = (srv, w) if pull else (w, srv)
        if fs[F_ALPHA] == 0.0:
            links = net.ws.links
            links[0] = src
            links[1] = nh + dst
            _add_flow(net, hp, links[:2], bits, oslot, np.int64(-1))
        else:
            _push(hp, iv, fs[F_NOW] + fs[F_ALPHA], EV_UNICAST, src * nh + dst)


@njit(cache=True, inline="always")
def _ps_pull(net, hp, psleft, held, w, oslot):
    iv = net.iv
    held[w] = iv[I_VERSION]
    _ps_transfer(net, hp, psleft, w, True, oslot)


@njit(cache=True, inline="always")
def _ps_accepted(net, hp, psleft, held, cur, step, sy_w, sy_apply, w, oslot):
    """``ParameterServerController._accepted``: push ``w`` applied (or dropped as stale)."""
    iv, fs = net.iv, net.fs
    now = fs[F_NOW]
    one = True          # then the pulls: w alone, or the step's k workers (one call site: it is inlined)
    k = 1
    if iv[I_MODE] == MODE_PS_ASYNC:
        tau = iv[I_VERSION] - held[w]
        sid = cur[w]
        sy_w[sid] = fs[F_ASP] if iv[I_HETE] == 0 else 1.0 / (tau + fs[F_HETE])
        sy_apply[sid] = now
        iv[I_VERSION] += 1
    elif held[w] < iv[I_VERSION]:
        sid = cur[w]
        sy_w[sid] = 0.0
        sy_apply[sid] = now
        iv[I_DROPPED] += 1
    else:
        step[iv[I_NSTEP]] = w
        iv[I_NSTEP] += 1
        k = iv[I_NSTEP]
        if k != iv[I_N] - iv[I_BACKUPS]:
            return
        iv[I_NSTEP] = 0
        for i in range(k):
            sid = cur[step[i]]
            sy_w[sid] = 1.0 / k if iv[I_STEPSUM] == 0 else 1.0
            sy_apply[sid] = now
        iv[I_VERSION] += 1
        one = False
    for i in range(k):
        _ps_pull(net, hp, psleft, held, w if one else step[i], oslot)


@njit(cache=True, inline="always")
def _ps_pushed(net, hp, psleft, held, cur, step, sy_w, sy_apply, w, oslot):
    """``ParameterServerController._on_pushed``: into the server's apply queue (PS7), or accepted now."""
    iv, fs = net.iv, net.fs
    if (iv[I_MODE] == MODE_PS_SYNC and held[w] < iv[I_VERSION]) or fs[F_APPLY] == 0.0:
        _ps_accepted(net, hp, psleft, held, cur, step, sy_w, sy_apply, w, oslot)
        return
    now = fs[F_NOW]
    fs[F_SFREE] = max(fs[F_SFREE], now) + fs[F_APPLY]
    _push(hp, iv, now + (fs[F_SFREE] - now), EV_ACCEPT, w)


# ------------------------------------------------------------------ AD-PSGD's pairwise exchange (PairwiseExchange)
@njit(cache=True, inline="always")
def _ad_go(net, hp, sid, mem, sy_moff, lock, phase, cfin, wk, wleft, oslot):
    """``PairwiseExchange._go`` of sync ``sid`` (worker ``w``, neighbour ``j``): with atomic averaging (AD4) both
    locks taken and, with ``passive="block"``, ``j`` blocked (its ``on_start`` hook, ``ADPSGDController._started``);
    then the flows ``w -> j`` and ``j -> w`` of ``model_bits`` each, started after ``alpha`` (at once if 0:
    ``start_transfer``)."""
    iv, fs = net.iv, net.fs
    a = sy_moff[sid]
    w, j = mem[a], mem[a + 1]
    if iv[I_ATOMIC]:
        lock[w] = 1
        lock[j] = 1
        if iv[I_BLOCK]:
            _block(j, fs, phase, cfin, wk, wleft)
    nh = iv[I_NHOSTS]
    for src, dst in ((w, j), (j, w)):
        if fs[F_ALPHA] == 0.0:
            links = net.ws.links
            links[0] = src
            links[1] = nh + dst
            _add_flow(net, hp, links[:2], fs[F_BITS], oslot, sid)
        else:
            _push(hp, iv, fs[F_NOW] + fs[F_ALPHA], EV_UNICAST, (sid * nh + src) * nh + dst)


@njit(cache=True, inline="always")
def _ad_release(net, hp, sid, mem, sy_moff, lock, waiting, phase, cfin, wk, wleft, oslot):
    """``PairwiseExchange._release(w, j)`` of the exchange of sync ``sid`` (AD4): both locks freed; then each waiting
    exchange, in the order asked, whose two workers are free takes both locks and starts (so a later one sees them
    held), and the others wait on in their order.  (The Python method starts the free ones after its scan; a start
    neither reads nor changes the locks the scan has not already taken, nor the list, so starting each one as the
    scan reaches it has the same effects in the same order.)"""
    iv = net.iv
    a = sy_moff[sid]
    lock[mem[a]] = 0
    lock[mem[a + 1]] = 0
    m = 0
    for q in range(iv[I_NWAIT]):
        other = waiting[q]
        b = sy_moff[other]
        if lock[mem[b]] != 0 or lock[mem[b + 1]] != 0:
            waiting[m] = other
            m += 1
        else:
            _ad_go(net, hp, other, mem, sy_moff, lock, phase, cfin, wk, wleft, oslot)
    iv[I_NWAIT] = m


@njit(cache=True, _nrt=False)
def run_to_turn(net, hp, wo, syn, ct):
    """The run from where it stopped; returns a :mod:`~simlib.runtime.kernel_driver` status, or :data:`TURN`
    (MODE_TURNS: the controller's turn, after which it is called again; room for the turn's launches, holds
    and events is made before each event).  ``net``: the network (:class:`Net`); ``hp``: the event heap
    (:class:`Heap`); ``wo``: the workers (:class:`Workers`); ``syn``: the sync log (:class:`Syncs`); ``ct``:
    the controllers' and the log's rest (:class:`Ctl`)."""
    st, iv, fs, pend, tab, ws = net.st, net.iv, net.fs, net.pend, net.tab, net.ws
    ht, hs, hk, ha = hp
    draws, dpos, phase, cstart, cfin, ready, iters, wk, wleft = wo
    sy_launch, sy_finish, sy_moff, sy_mcnt, sy_kind, sy_nce, sy_bits, mem, mem_it = syn
    (queue, owner, done_buf, held, psleft, cur, step, sy_w, sy_apply, sy_ver, oslot, adr, ce_w, ce_t, hold_t, _,
     lock, waiting) = ct
    n = iv[I_N]
    turns = iv[I_MODE] == MODE_TURNS
    syncs = n + 1 if turns else 1        # syncs one event may launch (a turn: one per group)
    until = fs[F_UNTIL]
    ps = iv[I_MODE] == MODE_PS_SYNC or iv[I_MODE] == MODE_PS_ASYNC
    ad = iv[I_MODE] == MODE_AD
    room = n * (iv[I_SERVERS] + 1) + 8 + (n if ad else 0)     # events one event may schedule at most
    while True:
        if iv[I_LOW] > 0:
            return NEED_DRAWS
        if ad and iv[I_ADK] >= adr.shape[0]:
            return NEED_NEIGHBOURS
        if (iv[I_NH] + room > ht.shape[0] or iv[I_NCE] + 1 > ce_w.shape[0] or iv[I_NSYNC] + syncs > sy_launch.shape[0]
                or iv[I_NMEM] + n > mem.shape[0] or (turns and iv[I_NHOLD] + n > hold_t.shape[0])
                or _net_short(st, iv)):
            return NEED_SPACE
        if iv[I_OVERFLOW]:
            return DONE
        if iv[I_STARTED] == 0:
            iv[I_STARTED] = 1
            for w in range(n):
                _start_compute(w, iv, fs, draws, dpos, phase, cstart, cfin, hp, wk, wleft)
            continue
        # the head, cancelled completion timers dropped
        while iv[I_NH] > 0 and ((hk[0] == EV_NET and hs[0] != iv[I_TIMER])
                                or (hk[0] == EV_COMPUTE and hs[0] != wk[0, ha[0]])
                                or (hk[0] == EV_CTL and hs[0] != iv[I_CTL])):
            _pop(hp, iv)
        t = ht[0] if iv[I_NH] > 0 else np.inf
        if t == np.inf or t > until:
            if until != np.inf:
                fs[F_NOW] = until
            return DONE
        if t == fs[F_INSTANT]:
            iv[I_SAME] += 1
            if iv[I_SAME] > iv[I_LIMIT]:
                return STALLED
        else:
            fs[F_INSTANT] = t
            iv[I_SAME] = 1
        kind, arg = hk[0], ha[0]
        _pop(hp, iv)
        fs[F_NOW] = t
        iv[I_EVENTS] += 1
        if kind == EV_COMPUTE:
            w = arg
            wk[0, w] = -1
            iters[w] += 1
            ce_w[iv[I_NCE]] = w
            ce_t[iv[I_NCE]] = t
            iv[I_NCE] += 1
            phase[w] = READY
            ready[w] = t
            if turns:   # the controller's on_ready(w, ...): its turn
                iv[I_TURN] = w
                return TURN
            if ps:      # ParameterServerController.on_ready: launch((w,)), the push, the version it holds
                sid = iv[I_NSYNC]
                iv[I_NSYNC] = sid + 1
                a = iv[I_NMEM]
                phase[w] = SYNCING
                mem[a] = w
                mem_it[a] = iters[w]
                iv[I_NMEM] = a + 1
                sy_launch[sid] = t
                sy_finish[sid] = np.nan
                sy_moff[sid] = a
                sy_mcnt[sid] = 1
                sy_kind[sid] = iv[I_MODE]
                sy_nce[sid] = iv[I_NCE]
                sy_w[sid] = np.nan
                sy_apply[sid] = np.nan
                sy_ver[sid] = held[w]
                cur[w] = sid
                _ps_transfer(net, hp, psleft, w, False, oslot)
                continue
            if ad:      # ADPSGDController.on_ready: a neighbour j, launch((w,), passive=(j,)), the exchange
                j = adr[iv[I_ADK]]
                iv[I_ADK] += 1
                if j >= w:
                    j += 1
                sid = iv[I_NSYNC]
                iv[I_NSYNC] = sid + 1
                a = iv[I_NMEM]
                phase[w] = SYNCING
                mem[a] = w
                mem[a + 1] = j
                mem_it[a] = iters[w] - 1
                mem_it[a + 1] = iters[j]
                iv[I_NMEM] = a + 2
                sy_launch[sid] = t
                sy_finish[sid] = np.nan
                sy_moff[sid] = a
                sy_mcnt[sid] = 2
                sy_kind[sid] = MODE_AD
                sy_nce[sid] = iv[I_NCE]
                sy_ver[sid] = phase[j] == COMPUTING     # j is listed in the record's `computing`
                psleft[w] = 2
                if iv[I_ATOMIC] and (lock[w] != 0 or lock[j] != 0):     # PairwiseExchange.start: AD4's wait
                    if iv[I_NWAIT] >= waiting.shape[0]:
                        iv[I_OVERFLOW] = 1
                        return DONE
                    waiting[iv[I_NWAIT]] = sid
                    iv[I_NWAIT] += 1
                else:
                    _ad_go(net, hp, sid, mem, sy_moff, lock, phase, cfin, wk, wleft, oslot)
                if iv[I_BLOCK] and not iv[I_ATOMIC]:
                    _block(j, fs, phase, cfin, wk, wleft)
                continue
            queue[iv[I_QLEN]] = w
            iv[I_QLEN] += 1
            _process(net, phase, iters, queue, hp, syn, owner, oslot)
        elif kind == EV_POKE:
            _reschedule(net, hp)
        elif kind == EV_CTL:     # the turns controller's timer fired: its turn
            iv[I_CTL] = -1
            iv[I_TURN] = -1
            return TURN
        elif kind == EV_ADDFLOW:
            _start_flow(net, hp, arg, sy_moff, sy_mcnt, mem, sy_bits, owner, oslot)
        elif kind == EV_UNICAST:    # arg: (key * hosts + src) * hosts + dst
            nh = iv[I_NHOSTS]
            links = ws.links
            links[0] = (arg // nh) % nh
            links[1] = nh + arg % nh
            bits = fs[F_BITS] if ad else fs[F_BITS] / iv[I_SERVERS]
            _add_flow(net, hp, links[:2], bits, oslot, arg // (nh * nh) if ad else -1)
        elif kind == EV_ACCEPT:
            _ps_accepted(net, hp, psleft, held, cur, step, sy_w, sy_apply, arg,
                         oslot)
        else:
            nd = 0
            if kind == EV_FINISH:
                done_buf[0] = arg
                nd = 1
            else:   # EV_NET: FlowNetwork._on_completion
                iv[I_TIMER] = -1
                _advance(net, t)
                if iv[I_NALIVE] > 0:
                    cdone = ws.cdone
                    n_done = inc.collect_and_retire_into(fs[F_NETNOW], st.flows, st.links, st.adj, st.proj,
                                                         st.counters, np.bool_(True), iv[I_NSLOTS], cdone)
                    fl = st.flows
                    if n_done > done_buf.shape[0]:
                        iv[I_OVERFLOW] = 1
                        return DONE
                    for q in range(n_done):
                        s = cdone[q]
                        for j in range(fl.fstart[s], fl.fend[s]):
                            _set_add(tab, iv, fl.fidx[j], ws.tabold)
                        iv[I_NALIVE] -= 1
                        first = fl.fidx[fl.fstart[s]]
                        if ad:
                            done_buf[nd] = oslot[s]       # its exchange
                        elif not ps:
                            done_buf[nd] = owner[first]   # the sync of its first link
                        elif first < n:                   # a push: worker -> server
                            done_buf[nd] = 2 * first
                        else:                             # a pull: server -> worker
                            done_buf[nd] = 2 * (fl.fidx[fl.fstart[s] + 1] - iv[I_NHOSTS]) + 1
                        nd += 1
                    if nd > 0:
                        iv[I_DIRTY] = 1
                        ns = iv[I_NSLOTS]
                        if iv[I_NALIVE] < (0 if ns <= 256 else ns // 2):
                            _compact(st, iv, pend, oslot, ws.newslot)
            for k in range(nd if ps else 0):   # PushPull's transfers: the last flow of one ends it
                w = done_buf[k] >> 1
                psleft[w] -= 1
                if psleft[w] == 0:
                    if done_buf[k] & 1:             # pulled: Cluster._sync_done
                        sy_finish[cur[w]] = t
                        _start_compute(w, iv, fs, draws, dpos, phase, cstart, cfin, hp, wk, wleft)
                    else:
                        _ps_pushed(net, hp, psleft, held, cur, step, sy_w, sy_apply,
                                   w, oslot)
            for k in range(nd if ad else 0):     # PairwiseExchange: both flows arrived -> Cluster._sync_done
                sid = done_buf[k]
                a = sy_moff[sid]
                w = mem[a]
                psleft[w] -= 1
                if psleft[w] == 0:
                    if iv[I_ATOMIC]:
                        _ad_release(net, hp, sid, mem, sy_moff, lock, waiting, phase, cfin, wk, wleft, oslot)
                    sy_finish[sid] = t
                    _start_compute(w, iv, fs, draws, dpos, phase, cstart, cfin, hp, wk, wleft)
                    if iv[I_BLOCK]:     # ADPSGDController.on_sync_done
                        _unblock(mem[a + 1], iv, fs, cfin, hp, wk, wleft)
            for k in range(0 if ps or ad else nd):     # Cluster._sync_done of each finished sync
                sid = done_buf[k]
                sy_finish[sid] = t
                a = sy_moff[sid]
                for i in range(sy_mcnt[sid]):
                    _start_compute(mem[a + i], iv, fs, draws, dpos, phase, cstart, cfin, hp, wk, wleft)
                iv[I_NDONE] += 1     # a turns controller's on_sync_done: before its next turn (it changes only its own state)
                if iv[I_MODE] == MODE_EAGER:     # EagerReduceController.on_sync_done
                    iv[I_BUSY] = 0
                    _process(net, phase, iters, queue, hp, syn, owner, oslot)
            if kind == EV_NET and iv[I_POKE] < 0:
                _reschedule(net, hp)


# ------------------------------------------------------------------ Python side
def _name(obj) -> str:
    """``module.Class`` of ``obj``'s exact class within ``simlib.runtime`` ('' elsewhere): the classes are
    recognised by name, so that this module imports none of the modules that import the cluster."""
    cls = type(obj)
    mod = cls.__module__
    return mod.removeprefix("simlib.runtime.") + "." + cls.__qualname__ if mod.startswith("simlib.runtime.") else ""


def supported(cluster) -> str | None:
    """None if the compiled engine runs ``cluster`` as the Python loop would; else why not (a phrase)."""
    ctrl, col = cluster.controller, cluster.collective
    kind = _name(ctrl)
    if kind == "parameter_server.ParameterServerController":
        if _name(col) != "parameter_server.PushPull" or col is not ctrl.transport or col.on_pushed != ctrl._on_pushed:
            return "a parameter server without its own PushPull transport"
        if cluster.weight_rule is not None:
            return "a parameter server with a weight rule"
    elif kind == "decentralized.ADPSGDController":
        # its own exchange (ADPSGDController.exchange): locked as the controller is (AD4), the neighbour blocked
        # from the flows' start by the controller's hook where it is locked and blocking, no hook otherwise
        hook = ctrl._started if ctrl.atomic and ctrl.passive == "block" else None
        if (_name(col) != "decentralized.PairwiseExchange" or col.atomic != ctrl.atomic or col.on_start != hook
                or col._locked or col._waiting):
            return "AD-PSGD without its own fresh PairwiseExchange (ADPSGDController.exchange)"
        if cluster.weight_rule is not None:
            return "AD-PSGD with a weight rule"
    elif kind == "decentralized.EagerReduceController":
        if _name(col) != "decentralized.WholeRing":
            return "Eager-Reduce without its ring over every worker (WholeRing)"
        if cluster.weight_rule is not None:
            return "Eager-Reduce with a weight rule"
    elif kind in ("baselines.AllReduceController", "baselines.PartialReduceController") or _turns(ctrl):
        if getattr(ctrl, "group_filter", None) is not None:
            return "partial reduce with a group filter"
        if type(col) is not RingFlows:
            return "a collective other than a ring all-reduce as flows (RingFlows)"
        why = ctrl.compiled_turns_unsupported() if _turns(ctrl) else None
        if why is not None:
            return why
    else:
        return f"controller {type(ctrl).__name__}"
    if (kind in ("baselines.AllReduceController", "baselines.PartialReduceController",
                 "decentralized.EagerReduceController") or _turns(ctrl)) and col.model != "single":
        return f"ring_model {col.model!r} (the compiled loop runs 'single')"
    if type(cluster.topo) is not BigSwitch:
        return f"topology {type(cluster.topo).__name__}"
    if not type(cluster.compute).__dict__.get("per_worker_streams", False):      # said by its own class
        return f"compute-time source {type(cluster.compute).__name__}"
    net, sim = cluster.net, cluster.sim
    if net.sharing != "maxmin" or net.engine != "incremental" or net._next_id or net._n_slots:
        return "a network that is not a fresh max-min incremental FlowNetwork"
    if sim._seq or sim._heap or sim.now != 0.0 or sim.events_run:
        return "a simulator that already has events"
    if cluster.iterations.any() or cluster.log.syncs or any(cluster.log.compute_end):
        return "a cluster that has run already"
    return None


def _turns(ctrl) -> bool:
    """A controller served at its turns (MODE_TURNS): a paper's controller with its own compiled turn, which
    :mod:`simlib.runtime` does not import (layering).  It has ``compiled_turns_unsupported() -> str | None``
    (why the compiled loop cannot run it, or None) and ``compiled_turns() -> (loop, state, finish, handlers)``:
    ``loop`` a compiled ``(net, hp, wo, syn, ct, state) -> status`` that calls :func:`run_to_turn` and takes each
    :data:`TURN` (with :func:`launch`, :func:`record_hold` and the timer's :func:`timer_set` /
    :func:`timer_cancel`), ``state()`` the turn's state for each call of ``loop`` (a Python callable: a handler
    may replace its arrays), ``finish(iv)`` writes its state back after the run (a Python callable; ``iv`` the
    loop's integer scalars), ``handlers`` ``{status: callable}`` serving the loop's own requests (statuses >
    :data:`NEED_NEIGHBOURS`, returned between turns, :func:`~simlib.runtime.kernel_driver.drive`)."""
    return hasattr(ctrl, "compiled_turns") and hasattr(ctrl, "compiled_turns_unsupported")


def _mode(ctrl) -> int:
    if _turns(ctrl):
        return MODE_TURNS
    name = type(ctrl).__name__
    if name == "ADPSGDController":
        return MODE_AD
    if name == "ParameterServerController":
        return MODE_PS_SYNC if ctrl.mode == "sync" else MODE_PS_ASYNC
    return {"AllReduceController": MODE_ALLREDUCE, "PartialReduceController": MODE_PARTIAL,
            "EagerReduceController": MODE_EAGER}[name]


def _pow2(k: int) -> int:
    return 1 << max(3, int(k - 1).bit_length())


def run_compiled(cluster) -> None:
    """Run ``cluster`` (for which :func:`supported` is None) to its duration in the compiled loop,
    writing its log, worker arrays and simulator clock as :meth:`Cluster.run` does.  The compute-time source,
    drawn ahead per worker, hears ``drawing_ahead`` around the run and then ``used_draws`` (how many draws each
    worker used: a recorded trace's replay warns of a wrap then, as the Python loop's draws do)."""
    source = cluster.compute
    source.drawing_ahead(True)
    try:
        used = _run_compiled(cluster)
    finally:
        source.drawing_ahead(False)
    source.used_draws(used)


def _run_compiled(cluster) -> np.ndarray:
    """:func:`run_compiled`'s run; returns each worker's draws used."""
    n, net, sim = cluster.n, cluster.net, cluster.sim
    ctrl = cluster.controller
    mode = _mode(ctrl)
    cfg = Config(*net._kconfig())
    n_links = net.n_links
    iv = np.zeros(N_IV, np.int64)
    iv[[I_TIMER, I_POKE]] = -1
    iv[I_SMASK] = 7
    iv[I_N] = n
    iv[I_NHOSTS] = cluster.topo.n
    iv[I_MODE] = mode
    iv[I_P] = {MODE_ALLREDUCE: n, MODE_PARTIAL: getattr(ctrl, "p", 0), MODE_EAGER: getattr(ctrl, "need", 0)}.get(mode, 0)
    iv[I_LIMIT] = sim.max_events_per_instant
    fs = np.zeros(N_FS)
    fs[F_UNTIL] = cluster.duration
    fs[F_INSTANT] = sim.now
    col = cluster.collective
    fs[F_BITS] = col.model_bits
    fs[F_ALPHA] = col.alpha
    ps = mode in (MODE_PS_SYNC, MODE_PS_ASYNC)
    ad = mode == MODE_AD
    iv[I_BLOCK] = ad and ctrl.passive == "block"
    iv[I_ATOMIC] = ad and ctrl.atomic
    if ps:
        iv[I_SERVERS] = col.servers
        iv[I_BACKUPS] = ctrl.backups
        iv[I_STEPSUM] = ctrl.step_rule == "sum"
        iv[I_HETE] = ctrl.hete_c is not None
        iv[I_VERSION] = ctrl.version
        fs[F_HETE] = ctrl.hete_c if ctrl.hete_c is not None else 0.0
        fs[F_ASP] = ctrl.asp_factor
        fs[F_APPLY] = ctrl.apply_s
        fs[F_SFREE] = ctrl.server_free
    # flows that may be pending or complete at once: at most those alive (ring groups: n / 2; the PS pushes
    # or pulls: n s; AD-PSGD's exchanges: 2 n)
    width = n * max(int(iv[I_SERVERS]), 2) + 16
    pend = np.zeros(width, np.int64)
    tab = np.full(_pow2(8 * n_links + 8), -1, np.int64)
    state = _net_state(net)
    iv[I_SCAP] = state.flows.volume.shape[0]
    iv[I_ICAP] = state.flows.fidx.shape[0]
    # what one event (or a turn's launches) may add: a flow per pushing or pulling server and worker, a ring per
    # group or a whole ring, AD-PSGD's two exchanges; each a pair of links, a ring two per host
    iv[I_FMAX] = n * (int(iv[I_SERVERS]) + 2) + 4
    iv[I_LMAX] = 2 * int(iv[I_FMAX]) + 2 * int(iv[I_NHOSTS])
    slots = state.flows.volume.shape[0]
    netd = {"st": state, "ws": Work(np.zeros(n_links, np.int64), np.zeros(tab.shape[0], np.int64),
                                    np.zeros(2 * int(iv[I_NHOSTS]) + 2, np.int64), np.zeros(slots, np.int64),
                                    np.zeros(slots, np.int64))}

    def net_room():
        netd["st"], netd["ws"] = _grow_net(netd["st"], netd["ws"], iv)
    draws = DrawBuffer(cluster.compute, n, minimum=64)
    iv[I_NDRAW] = draws.draws.shape[1]
    dpos = np.zeros(n, np.int64)
    queue = np.zeros(n, np.int64)
    owner = np.full(cluster.topo.n, -1, np.int64)
    done_buf = np.zeros(width, np.int64)
    held = ctrl.held if ps else np.zeros(n, np.int64)
    psleft, cur, stepbuf = np.zeros(n, np.int64), np.full(n, -1, np.int64), np.zeros(n, np.int64)
    # (AD-PSGD, atomic or not: an event ends c exchanges and starts s waiting ones, c + s <= n, two timers each)
    room = n * (int(iv[I_SERVERS]) + 1) + 8 + (n if ad else 0)
    oslot = np.full(16 * n * max(int(iv[I_SERVERS]), 2) + 256, -1, np.int64)   # > 4 x the flows alive at once
    wk = np.zeros((2, n), np.int64)
    wk[0] = -1
    wleft = np.full(n, np.nan)
    # AD4's locks and waiting exchanges: at most one exchange per initiator waits (it is syncing meanwhile)
    lock, waiting = np.zeros(n, np.int64), np.zeros(n, np.int64)
    # AD-PSGD's neighbours: rng.integers(n - 1), one call per ready worker, drawn ahead in call order; the
    # generator is put back afterwards to the state the Python loop leaves (as many calls as were used)
    rng = ctrl.rng if ad else None
    rng_state = rng.bit_generator.state if ad else None
    adr = {"j": np.zeros(0, np.int64)}
    loop, turn_state, finish, turn_handlers = (ctrl.compiled_turns() if mode == MODE_TURNS
                                               else (run_to_turn, None, None, {}))
    if NEED_NEIGHBOURS in turn_handlers:
        raise ValueError(f"a turns controller's status codes must differ from NEED_NEIGHBOURS = {NEED_NEIGHBOURS}")

    def more_neighbours():
        k = max(64, adr["j"].shape[0])
        adr["j"] = np.concatenate([adr["j"], np.array([int(rng.integers(n - 1)) for _ in range(k)], np.int64)])
    hsize = 2 * room + 64          # room for one event's scheduling with the heap at least room + 64 full
    heap = {"t": np.zeros(hsize), "s": np.zeros(hsize, np.int64), "k": np.zeros(hsize, np.int64),
            "a": np.zeros(hsize, np.int64)}
    # the log's columns start at about the compute ends the run will have (its duration over the first draws'
    # mean, at most the draws' width per worker), so the loop seldom stops to ask for room (each return and
    # call costs the typing of its ~45 arrays); only the room changes, not a value
    mean = float(draws.draws.mean()) if draws.draws.size else 0.0
    per = draws.draws.shape[1] if not mean > 0.0 else min(draws.draws.shape[1], cluster.duration / mean)
    rows = max(1024, int(1.25 * n * per))
    ce = {"w": np.zeros(rows, np.int64), "t": np.zeros(rows)}
    srows = max(256, 2 * (n + 1))
    sy = {"launch": np.zeros(srows), "finish": np.zeros(srows), "moff": np.zeros(srows, np.int64),
          "mcnt": np.zeros(srows, np.int64), "kind": np.zeros(srows, np.int64), "nce": np.zeros(srows, np.int64),
          "bits": np.zeros(srows), "w": np.zeros(srows), "apply": np.zeros(srows), "ver": np.zeros(srows, np.int64)}
    mem = {"w": np.zeros(rows, np.int64), "it": np.zeros(rows, np.int64)}
    hrows = rows if mode == MODE_TURNS else 0
    hold = {"t": np.zeros(hrows), "w": np.zeros(hrows, np.int64)}

    def step():
        # the draws may have grown since the last call (the driver's NEED_DRAWS): their width, and the
        # workers with none left
        iv[I_NDRAW] = draws.draws.shape[1]
        iv[I_LOW] = int((dpos >= iv[I_NDRAW]).sum())
        args = (Net(netd["st"], cfg, iv, fs, pend, tab, netd["ws"]), Heap(heap["t"], heap["s"], heap["k"], heap["a"]),
                Workers(draws.draws, dpos, cluster.phase, cluster.compute_start, cluster.compute_finish,
                        cluster.ready_time, cluster.iterations, wk, wleft),
                Syncs(sy["launch"], sy["finish"], sy["moff"], sy["mcnt"], sy["kind"], sy["nce"], sy["bits"],
                      mem["w"], mem["it"]),
                Ctl(queue, owner, done_buf, held, psleft, cur, stepbuf, sy["w"], sy["apply"], sy["ver"], oslot,
                    adr["j"], ce["w"], ce["t"], hold["t"], hold["w"], lock, waiting))
        return loop(*args) if turn_state is None else loop(*args, turn_state())

    def stalled():
        t = fs[F_INSTANT]
        raise NoProgressError(
            f"simulated time makes no progress: more than {iv[I_LIMIT]:,} events in a row at t = {t!r} s "
            f"(compiled cluster loop). A loop of zero-duration steps: e.g. zero compute times with a zero-cost "
            f"sync (model size 0 and latency 0), or a delay below the clock's resolution at t "
            f"({math.ulp(t):.3g} s)")

    drive(step, draws=draws, stalled=stalled, on_space=net_room,
          handlers={NEED_NEIGHBOURS: more_neighbours, **turn_handlers},
          columns=[(heap, lambda: int(iv[I_NH]) + room, 64), (ce, lambda: int(iv[I_NCE]) + 1, 1024),
                   (sy, lambda: int(iv[I_NSYNC]) + n + 1, 256), (mem, lambda: int(iv[I_NMEM]) + n, 1024),
                   (hold, lambda: int(iv[I_NHOLD]) + n, 256)])
    if iv[I_OVERFLOW]:     # a bound of run_compiled's fixed arrays was wrong: a bug, not an input error
        raise RuntimeError("the compiled cluster loop ran out of room in a fixed-size array (flow owners, pending "
                           "or completed flows, the network's room); run with engine='python'")
    _write_back(cluster, iv, fs, ce, sy, mem)
    if mode == MODE_TURNS:
        cluster.log.holds.extend(zip(hold["t"][:iv[I_NHOLD]].tolist(), hold["w"][:iv[I_NHOLD]].tolist()))
        finish(iv)
    cluster._blocks[:] = wk[1]
    cluster._left[:] = wleft
    if ad:
        rng.bit_generator.state = rng_state
        for _ in range(int(iv[I_ADK])):
            rng.integers(n - 1)
    if ps:
        ctrl.version = int(iv[I_VERSION])
        ctrl.server_free = float(fs[F_SFREE])
        ctrl.step = stepbuf[:iv[I_NSTEP]].tolist()
        ctrl.records = {rec.members[0]: rec for rec in cluster.log.syncs if rec.weights is None}
        if iv[I_DROPPED]:
            cluster.log.counters["dropped_gradients"] = int(iv[I_DROPPED])
    elif not ad and mode != MODE_TURNS:
        ctrl.queue = queue[:iv[I_QLEN]].tolist()
    return dpos


def _net_state(net) -> State:
    """The network's arrays (a fresh incremental ``FlowNetwork``'s) as a :class:`~simlib.core.flowstate.State` of
    NamedTuples; the loop changes them in place until :func:`_grow_net` replaces them."""
    return State(*(bundle(*arrays) for bundle, arrays in zip((Flows, Links, Adjacency, Projections, Scratch,
                                                                Counters), net._state_bundle())))


def _grown(a: np.ndarray, size: int, fill) -> np.ndarray:
    out = np.full(size, fill, a.dtype)
    out[:a.shape[0]] = a
    return out


def _grow_net(st: State, ws: Work, iv: np.ndarray) -> tuple[State, Work]:
    """``st`` and ``ws`` with physical room for what :func:`_net_short` asks (``iv[I_NEEDS]`` slots,
    ``iv[I_NEEDI]`` link entries, ``iv[I_NEEDA]`` adjacency entries), twice that where short; the new room holds
    what ``FlowNetwork``'s growth gives (zeros; projections inf, blocks dirty), so only the room changes, not a
    value: the logical sizes (``iv[I_SCAP]``, ``iv[I_ICAP]``) stay."""
    fl, pj, sc, adj = st.flows, st.proj, st.scratch, st.adj
    have_s, have_i, have_a = fl.volume.shape[0], fl.fidx.shape[0], adj.ladj.shape[0]
    need_s, need_i, need_a = int(iv[I_NEEDS]), int(iv[I_NEEDI]), int(iv[I_NEEDA])
    if need_s > have_s:
        s = 2 * need_s
        nblk = (s >> inc.BLOCK_SHIFT) + 1
        fl = Flows(*(_grown(a, s, 0) if name != "fidx" else a for name, a in zip(Flows._fields, fl)))
        pj = Projections(_grown(pj.tz, s, np.inf), _grown(pj.tt, s, np.inf), _grown(pj.bz, nblk, np.inf),
                         _grown(pj.bt, nblk, np.inf), _grown(pj.bdirty, nblk, True))
        sc = sc._replace(in_s=_grown(sc.in_s, s, False), nrate=_grown(sc.nrate, s, 0.0), nbl=_grown(sc.nbl, s, 0))
        ws = ws._replace(newslot=np.zeros(s, np.int64), cdone=np.zeros(s, np.int64))
    if need_i > have_i:
        fl = fl._replace(fidx=_grown(fl.fidx, 2 * need_i, 0))
    if need_a > have_a:
        adj = adj._replace(ladj=_grown(adj.ladj, 2 * need_a, 0), lpart=_grown(adj.lpart, 2 * need_a, 0),
                           lbl=_grown(adj.lbl, 2 * need_a, 0))
    return State(fl, st.links, adj, pj, sc, st.counters), ws


def _write_back(cluster, iv, fs, ce, sy, mem) -> None:
    """The cluster's log and clock from the kernel's columns (the weight rule replayed in event order)."""
    sim, log, n = cluster.sim, cluster.log, cluster.n
    sim.now = float(fs[F_NOW])
    sim.events_run = int(iv[I_EVENTS])
    sim._seq = int(iv[I_SEQ])
    n_ce, n_sync = int(iv[I_NCE]), int(iv[I_NSYNC])
    ce_w, ce_t = ce["w"][:n_ce], ce["t"][:n_ce]
    # each worker's compute ends in event order: a stable sort by worker (numpy sorts 16-bit keys stably by radix,
    # ~5x faster than int64 keys: the same order, a stable order being unique), cut at the workers' counts
    order = np.argsort(ce_w.astype(np.int16) if n <= np.iinfo(np.int16).max else ce_w, kind="stable")
    bounds = [0] + np.cumsum(np.bincount(ce_w, minlength=n)).tolist()
    times = ce_t[order].tolist()
    for w, ends in enumerate(log.compute_end[:n]):
        ends.extend(times[bounds[w]:bounds[w + 1]])
    n_mem = int(iv[I_NMEM])     # the rows written (the columns hold room for ~n x the first draws' width)
    mw, mi = mem["w"][:n_mem].tolist(), mem["it"][:n_mem].tolist()
    rule, ctrl = cluster.weight_rule, cluster.controller
    # a rule's on_iterations(ws): on_iteration of each of ws at once (the same iteration numbers)
    bulk = getattr(rule, "on_iterations", None)
    ps_w, ps_apply, ps_ver = sy["w"][:n_sync].tolist(), sy["apply"][:n_sync].tolist(), sy["ver"][:n_sync].tolist()
    ps_kind = ctrl.kind if int(iv[I_MODE]) in (MODE_PS_SYNC, MODE_PS_ASYNC) else None
    done_ce = 0
    ce_list = ce_w.tolist() if rule is not None and bulk is None else None
    for sid, (t0, t1, a, c, kind, nce) in enumerate(zip(sy["launch"][:n_sync].tolist(), sy["finish"][:n_sync].tolist(),
                                                        sy["moff"][:n_sync].tolist(), sy["mcnt"][:n_sync].tolist(),
                                                        sy["kind"][:n_sync].tolist(), sy["nce"][:n_sync].tolist())):
        finish = None if math.isnan(t1) else t1
        if kind == MODE_PS_SYNC or kind == MODE_PS_ASYNC:
            # ParameterServerController: the version pushed, its factor and apply time (a record made whole at once:
            # a PS run logs ~10^3 of them)
            w = ps_w[sid]
            applied = not math.isnan(w)
            rec = SyncRecord(launch=t0, members=tuple(mw[a:a + c]), iterations=tuple(mi[a:a + c]), kind=ps_kind,
                             finish=finish, weights=(w,) if applied else None,
                             apply=ps_apply[sid] if applied else None, versions=(ps_ver[sid],))
        else:
            rec = SyncRecord(launch=t0, members=tuple(mw[a:a + c]), iterations=tuple(mi[a:a + c]), kind=KINDS[kind],
                             finish=finish)
        if kind == MODE_AD:          # launch((w,), passive=(j,)) and ADPSGDController.on_ready's edits
            rec.computing = (rec.members[0],) + ((rec.members[1],) if ps_ver[sid] else ())
        if kind == MODE_EAGER:      # EagerReduceController.process, after its launch
            rec.weights = (1.0 / n,) * c
            rec.versions = tuple(int(ctrl.held[m]) for m in rec.members)
            ctrl.version += 1
            ctrl.held[list(rec.members)] = ctrl.version
        if rule is not None:
            if bulk is None:
                for w in ce_list[done_ce:nce]:
                    rule.on_iteration(w)
            elif nce > done_ce:
                bulk(ce_w[done_ce:nce])
            done_ce = nce
            ws, w_init = rule.on_sync(rec.members)
            rec.weights = (tuple(ws.tolist()) if type(ws) is np.ndarray and ws.dtype == np.float64
                           else tuple(float(x) for x in ws))
            rec.init_weight = float(w_init)
        log.syncs.append(rec)
    if rule is not None:
        if bulk is None:
            for w in ce_list[done_ce:]:
                rule.on_iteration(w)
        elif n_ce > done_ce:
            bulk(ce_w[done_ce:])
    if _mode(ctrl) == MODE_EAGER:
        ctrl.busy = bool(iv[I_BUSY])
    cluster.phase[cluster.phase == COMPUTING] = STOPPED


# code compiled from other modules is frozen into this module's cache entries (simlib.core.jitcache)
jitcache.track(globals())
