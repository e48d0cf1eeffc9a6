"""Compiled kernels of the incremental flow-network engine (decision N9).

:class:`simlib.core.network.FlowNetwork` keeps, besides the flows' link lists,

* a link -> flows adjacency (one block of slots per link, grown on demand),
* per flow: its rate, its *bottleneck* (the link at which the solver froze
  it) and its remaining bits as of ``tupd`` (remaining volumes are updated
  lazily, only when the flow's rate changes),
* per link: ``load`` (sum of rates), ``lam`` (rate of the flows bottlenecked
  there) and ``nb`` (how many flows are bottlenecked there),
* two projected times per flow: when its last bit arrives (``tz``: the next
  completion time) and when it enters the completion tolerance of decision
  N6 (``tt``: which flows complete at a given time), with per-block minima so
  that the next completion is found without scanning every flow.

After a change, :func:`solve_incremental` re-solves max-min on a set ``S`` of
flows with every other flow's rate held fixed (residual capacities), checks
that the held flows still satisfy the bottleneck characterisation of max-min
fairness, and grows ``S`` until they do (see N9 in docs/decisions/network.md).
With strict priorities it re-solves the whole connected component of the
changed links instead.  :func:`solve_full` is the fallback: every flow
(without priorities by :func:`allocate_adj`, on the kept adjacency).
:func:`run_completions` is ``FlowNetwork.run_until_idle``'s loop in one call.

With one class (``sharing="maxmin"``) the engine runs in *levels mode* (``lv``,
N9 fifth round, :mod:`simlib.core.levels`): a flow's rate is its bottleneck's
level ``lam[bl[s]]`` (``rate`` only holds it for flows without a bottleneck),
progress is per-link virtual time and per-flow finish tags instead of
``remaining`` / ``tupd`` / ``tz`` / ``tt``, each adjacency entry keeps a copy of
its flow's bottleneck (``lbl``), and an update first tries
:func:`levels.propagate`; these solvers then commit by moving the tags of the
flows whose bottleneck changed (:func:`levels.regroup`) instead of settling.

Units: bits, bits/s, seconds.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from simlib.core import jitcache, levels
from simlib.core.flowstate import Adjacency, Config, Counters, Flows, Links, Output, Projections, State, as_state
from simlib.core.levels import move_bottlenecks, moved_tag, regroup, vsync_links
from simlib.core.maxmin import _allocate

from simlib.core.tolerance import ABS_TOL_BITS, REL_TOL  # decision N6

# A held link keeps its bottleneck flows if the flows being re-solved carry the
# same total over it to this relative tolerance (of the capacity); see N9.
SAT_TOL = 1e-13


# ------------------------------------------------------------------ adjacency
@njit(cache=True, _nrt=False)
def _partner(fidx, a, b, l):
    """What the adjacency stores beside flow ``fidx[a:b]``'s entry on link ``l``:
    its other link if it crosses exactly two, -1 if ``l`` is its only link, -2
    otherwise (read its links from ``fidx``).  Lets the full solve of a unicast
    skip two dependent random reads per flow.  Stops at the third link (then -2 whatever follows), so
    the calls for every link of a ring flow of L links cost O(L), not O(L^2)."""
    k = 0
    other = -1
    for j in range(a, b):
        m = fidx[j]
        if m >= 0:
            k += 1
            if k > 2:
                return -2
            if m != l:
                other = m
    if k == 1:
        return -1
    return other if k == 2 else -2


@njit(cache=True, inline="always")
def _adj_count(fl: Flows, n_slots, cnt):
    """``cnt[l]`` += the entries of the alive slots below ``n_slots`` on link ``l``."""
    fstart, fend, fidx, alive = fl.fstart, fl.fend, fl.fidx, fl.alive
    for s in range(n_slots):
        if alive[s]:
            for j in range(fstart[s], fend[s]):
                l = fidx[j]
                if l >= 0:
                    cnt[l] += 1


@njit(cache=True, inline="always")
def _adj_layout(cnt, loff, lcap):
    """Each link's block (room for twice its ``cnt`` entries and 4) at ``loff``; returns the entries in all."""
    tot = 0
    for l in range(cnt.shape[0]):
        lcap[l] = 2 * cnt[l] + 4
        loff[l] = tot
        tot += lcap[l]
    return tot


@njit(cache=True, inline="always")
def _adj_fill(fl: Flows, n_slots, loff, lcnt, ladj, lpart, lbl):
    """The alive slots below ``n_slots`` into their links' blocks (``lcnt`` zeros on entry), in slot order."""
    fstart, fend, fidx, alive, bl = fl.fstart, fl.fend, fl.fidx, fl.alive, fl.bl
    for s in range(n_slots):
        if alive[s]:
            for j in range(fstart[s], fend[s]):
                l = fidx[j]
                if l >= 0:
                    ladj[loff[l] + lcnt[l]] = s
                    lpart[loff[l] + lcnt[l]] = _partner(fidx, fstart[s], fend[s], l)
                    lbl[loff[l] + lcnt[l]] = bl[s]
                    lcnt[l] += 1


@njit(cache=True)
def adj_build(n_links, fl: Flows, n_slots):
    """Link -> slots blocks for every alive slot of ``fl`` (:class:`~.flowstate.Flows`), each
    block with room to grow: the fields of :class:`~.flowstate.Adjacency`, in order;
    ``lpart`` beside ``ladj`` holds each entry's :func:`_partner`, ``lbl`` the
    flow's bottleneck ``bl`` (kept up to date by the levels mode only)."""
    fl = Flows(*fl)  # as passed from Python: plain tuples
    cnt = np.zeros(n_links, np.int64)
    _adj_count(fl, n_slots, cnt)
    lcap = np.empty(n_links, np.int64)
    loff = np.empty(n_links, np.int64)
    tot = _adj_layout(cnt, loff, lcap)
    ladj = np.empty(tot, np.int64)
    lpart = np.empty(tot, np.int64)
    lbl = np.empty(tot, np.int64)
    lcnt = np.zeros(n_links, np.int64)
    _adj_fill(fl, n_slots, loff, lcnt, ladj, lpart, lbl)
    return loff, lcnt, lcap, ladj, lpart, lbl


@njit(cache=True, _nrt=False)
def adj_build_into(fl: Flows, n_slots, adj: Adjacency):
    """:func:`adj_build` into the arrays of ``adj`` (the same blocks, entries and order; ``ladj``, ``lpart``,
    ``lbl`` need room for twice the entries and 4 per link: the caller's to check); allocates nothing.
    Returns the entries of the new blocks in all."""
    fl, adj = Flows(*fl), Adjacency(*adj)  # as passed from Python: plain tuples
    loff, lcnt, lcap = adj.loff, adj.lcnt, adj.lcap
    lcnt[:] = 0
    _adj_count(fl, n_slots, lcnt)
    tot = _adj_layout(lcnt, loff, lcap)
    lcnt[:] = 0
    _adj_fill(fl, n_slots, loff, lcnt, adj.ladj, adj.lpart, adj.lbl)
    return tot


@njit(cache=True, _nrt=False)
def adj_insert(adj: Adjacency, fidx, a, b, slot):
    """Append ``slot`` (no bottleneck yet) to the blocks of links ``fidx[a:b]`` in ``adj``
    (:class:`~.flowstate.Adjacency`); False (nothing done) if a block is full."""
    adj = Adjacency(*adj)  # as passed from Python: plain tuples
    loff, lcnt, lcap, ladj, lpart, lbl = adj
    for j in range(a, b):
        l = fidx[j]
        if l >= 0 and lcnt[l] >= lcap[l]:
            return False
    for j in range(a, b):
        l = fidx[j]
        if l >= 0:
            ladj[loff[l] + lcnt[l]] = slot
            lpart[loff[l] + lcnt[l]] = _partner(fidx, a, b, l)
            lbl[loff[l] + lcnt[l]] = -1
            lcnt[l] += 1
    return True


@njit(cache=True)
def adj_insert_many(adj: Adjacency, fl: Flows, slots):
    """:func:`adj_insert` for every slot of ``slots``; False (nothing done) if the blocks lack room."""
    adj, fl = Adjacency(*adj), Flows(*fl)  # as passed from Python: plain tuples
    loff, lcnt, lcap = adj.loff, adj.lcnt, adj.lcap
    fidx, fstart, fend = fl.fidx, fl.fstart, fl.fend
    need = np.zeros(loff.shape[0], np.int64)
    for s in slots:
        for j in range(fstart[s], fend[s]):
            l = fidx[j]
            if l >= 0:
                need[l] += 1
    for l in range(loff.shape[0]):
        if lcnt[l] + need[l] > lcap[l]:
            return False
    for s in slots:
        adj_insert(adj, fidx, fstart[s], fend[s], s)
    return True


@njit(cache=True, inline="always")
def _adj_remove(adj: Adjacency, l, slot):
    lcnt, ladj, lpart, lbl = adj.lcnt, adj.ladj, adj.lpart, adj.lbl
    o = adj.loff[l]
    n = lcnt[l]
    for i in range(o, o + n):
        if ladj[i] == slot:
            ladj[i] = ladj[o + n - 1]
            lpart[i] = lpart[o + n - 1]
            lbl[i] = lbl[o + n - 1]
            lcnt[l] = n - 1
            return


@njit(cache=True)
def adj_remove_link(adj: Adjacency, fidx, a, b, l, slot):
    """Take link ``l`` out of flow ``slot``'s links ``fidx[a:b]`` (still listed there)
    in the adjacency; its entries on its other links fall back to reading ``fidx``."""
    adj = Adjacency(*adj)  # as passed from Python: plain tuples
    loff, lcnt, ladj, lpart = adj.loff, adj.lcnt, adj.ladj, adj.lpart
    _adj_remove(adj, l, slot)
    for j in range(a, b):
        m = fidx[j]
        if m >= 0 and m != l:
            for i in range(loff[m], loff[m] + lcnt[m]):
                if ladj[i] == slot:
                    lpart[i] = -2


# ---------------------------------------------------------- lazy completions
# Projected times live in per-slot arrays; a per-block minimum (blocks of
# 2**BLOCK_SHIFT slots, recomputed only for blocks that changed) finds the
# earliest one without scanning every flow.
BLOCK_SHIFT = 6


@njit(cache=True, inline="always")
def rate_of(lv, b, lam_b, rate_s):
    """A flow's rate from its bottleneck ``b``: with per-link levels (``lv``, decision N9
    fifth round) that link's level ``lam_b``, else (or without a bottleneck: a new flow
    0, one without links inf) its own ``rate_s``.  Scalars only (see levels.synced)."""
    return lam_b if lv and b >= 0 else rate_s


# Helpers that take several arrays are written as loops over many slots: a numba
# call with array arguments costs ~20 ns of reference counting per call
# (measured: 15x the body of a linked-list insert), so per-slot helper calls in
# hot loops dominated the engine.
@njit(cache=True)
def settle(slots, new_rate, force, now, fl: Flows, pj: Projections):
    """Give flow ``slots[k]`` the rate ``new_rate[k]`` from ``now``: bring its
    remaining bits up to date and re-project its times of last bit (``tz``) and of
    entry into the completion tolerance of decision N6 (``tt``).  Flows whose rate
    does not change are left alone unless ``force`` (a new flow).
    ``fl``: :class:`~.flowstate.Flows`; ``pj``: :class:`~.flowstate.Projections`."""
    fl, pj = Flows(*fl), Projections(*pj)  # as passed from Python: plain tuples
    volume, remaining, rate, tupd = fl.volume, fl.remaining, fl.rate, fl.tupd
    tz, tt, bdirty = pj.tz, pj.tt, pj.bdirty
    for k in range(slots.shape[0]):
        s = slots[k]
        r = new_rate[k]
        if r == rate[s] and not force:
            continue
        t0 = tupd[s]
        if t0 < now:
            old = rate[s]
            if old == np.inf:
                remaining[s] = 0.0
            else:
                v = remaining[s] - old * (now - t0)
                remaining[s] = v if v > 0.0 else 0.0
            tupd[s] = now
            t0 = now
        rate[s] = r
        rm = remaining[s]
        tol = max(volume[s] * REL_TOL, ABS_TOL_BITS)
        if rm <= tol or r == np.inf:
            tz[s] = t0
            tt[s] = t0
        elif r > 0.0:
            tz[s] = t0 + rm / r
            tt[s] = t0 + (rm - tol) / r
        else:
            tz[s] = np.inf
            tt[s] = np.inf
        bdirty[s >> BLOCK_SHIFT] = True


@njit(cache=True)
def _refresh_blocks(pj: Projections, n_slots):
    tz, tt, bz, bt, bdirty = pj
    nblk = (n_slots + (1 << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT
    for b in range(nblk):
        if bdirty[b]:
            bdirty[b] = False
            mz = np.inf
            mt = np.inf
            for s in range(b << BLOCK_SHIFT, min((b + 1) << BLOCK_SHIFT, n_slots)):
                if tz[s] < mz:
                    mz = tz[s]
                if tt[s] < mt:
                    mt = tt[s]
            bz[b] = mz
            bt[b] = mt
    return nblk


@njit(cache=True)
def next_time(pj: Projections, n_slots):
    """Earliest projected last-bit time over alive flows (inf if none)."""
    pj = Projections(*pj)  # as passed from Python: plain tuples
    nblk = _refresh_blocks(pj, n_slots)
    m = np.inf
    for b in range(nblk):
        if pj.bz[b] < m:
            m = pj.bz[b]
    return m


@njit(cache=True)
def collect_done(t, fl: Flows, pj: Projections, n_slots):
    """Slots (ascending) whose remaining bits at time ``t`` are within tolerance (N6)."""
    fl, pj = Flows(*fl), Projections(*pj)  # as passed from Python: plain tuples
    volume, remaining, rate, tupd, alive = fl.volume, fl.remaining, fl.rate, fl.tupd, fl.alive
    tt, bt = pj.tt, pj.bt
    nblk = _refresh_blocks(pj, n_slots)
    out = []
    for b in range(nblk):
        if bt[b] <= t:
            for s in range(b << BLOCK_SHIFT, min((b + 1) << BLOCK_SHIFT, n_slots)):
                if tt[s] <= t and alive[s]:
                    r = rate[s]
                    v = 0.0 if r == np.inf else remaining[s] - r * (t - tupd[s])
                    if v <= max(volume[s] * REL_TOL, ABS_TOL_BITS):
                        out.append(s)
    return np.array(out, dtype=np.int64)


@njit(cache=True, _nrt=False)
def bottlenecks_rebuild(bl, alive, n_slots, nb):
    """Recount ``nb`` (flows bottlenecked per link) from ``bl`` over the alive slots."""
    nb[:] = 0
    for s in range(n_slots):
        if alive[s] and bl[s] >= 0:
            nb[bl[s]] += 1


@njit(cache=True)
def kill_slots(slots, fl: Flows, lk: Links, adj: Adjacency, pj: Projections, cnt: Counters, lv):
    """Retire finished/removed slots: adjacency, bottleneck counts, link loads, projections
    (levels mode ``lv``: the groups they leave, ``cnt.nol[0]`` the alive flows without links)."""
    # as passed from Python: plain tuples
    fl, lk, adj, pj, cnt = Flows(*fl), Links(*lk), Adjacency(*adj), Projections(*pj), Counters(*cnt)
    fstart, fend, fidx, alive, rate, remaining, bl = fl.fstart, fl.fend, fl.fidx, fl.alive, fl.rate, fl.remaining, fl.bl
    load, lam, gdirty, nol = lk.load, lk.lam, lk.gdirty, cnt.nol
    lcnt = adj.lcnt
    tz, tt, bdirty = pj.tz, pj.tt, pj.bdirty
    rs = np.empty(slots.shape[0])
    for k in range(slots.shape[0]):
        s = slots[k]
        rs[k] = rate_of(lv, bl[s], lam[bl[s]], rate[s])
        if lv:
            if bl[s] >= 0:
                gdirty[bl[s]] = True
            elif rate[s] == np.inf:
                nol[0] -= 1
    move_bottlenecks(slots, np.full(slots.shape[0], -1, np.int64), bl, lk.nb)
    for k in range(slots.shape[0]):
        s = slots[k]
        tz[s] = np.inf
        tt[s] = np.inf
        bdirty[s >> BLOCK_SHIFT] = True
        r = rs[k]
        for j in range(fstart[s], fend[s]):
            l = fidx[j]
            if l >= 0:
                _adj_remove(adj, l, s)
                load[l] = load[l] - r if lcnt[l] > 0 else 0.0
        alive[s] = False
        rate[s] = 0.0
        remaining[s] = 0.0


@njit(cache=True)
def collect_and_retire(t, fl: Flows, lk: Links, adj: Adjacency, pj: Projections, cnt: Counters, lv, n_slots):
    """The slots complete at time ``t`` (ascending; :func:`levels.collect_done` in levels mode
    ``lv``, else :func:`collect_done`), retired by :func:`kill_slots`: one call from Python per
    completion event instead of two."""
    # as passed from Python: plain tuples
    fl, lk, adj, pj, cnt = Flows(*fl), Links(*lk), Adjacency(*adj), Projections(*pj), Counters(*cnt)
    if lv:
        slots = levels.collect_done(t, fl, lk, adj, cnt, n_slots)
    else:
        slots = collect_done(t, fl, pj, n_slots)
    if slots.shape[0] > 0:
        kill_slots(slots, fl, lk, adj, pj, cnt, lv)
    return slots


@njit(cache=True, _nrt=True)
def collect_and_retire_into(t, fl: Flows, lk: Links, adj: Adjacency, pj: Projections, cnt: Counters, lv, n_slots,
                            out):
    """:func:`collect_and_retire` with the slots written to ``out`` (room for ``n_slots``); returns how many.
    For callers compiled without reference counts (``_nrt=False``), which may receive no array."""
    slots = collect_and_retire(t, fl, lk, adj, pj, cnt, lv, n_slots)
    out[:slots.shape[0]] = slots
    return slots.shape[0]


@njit(cache=True)
def drop_link_load(fl: Flows, lk: Links, adj: Adjacency, lv, l, s):
    """Flow ``s`` (already out of link ``l``'s adjacency) no longer loads ``l``."""
    fl, lk, adj = Flows(*fl), Links(*lk), Adjacency(*adj)  # as passed from Python: plain tuples
    load, b = lk.load, fl.bl[s]
    load[l] = load[l] - rate_of(lv, b, lk.lam[b], fl.rate[s]) if adj.lcnt[l] > 0 else 0.0


# ------------------------------------------------------------------- solvers
@njit(cache=True)
def _priority_order(ids, pr):
    """Positions that put ``ids`` (distinct) in the order ``_allocate`` needs with priorities:
    by (priority ``pr``, id).  One class needs no order: a filling step takes the same share
    off the links of every flow it freezes, whatever their order (the order can only decide
    which of several exactly equally tight links is filled first)."""
    order = np.argsort(ids)
    return order[np.argsort(pr[order], kind="mergesort")]


@njit(cache=True)
def allocate_adj(fl: Flows, lk: Links, adj: Adjacency, n_slots, nrate, chg, track):
    """Max-min rates of every alive slot, one class, from the link -> slots adjacency.

    The same bottleneck-link progressive filling as :func:`simlib.core.maxmin._allocate`
    (smallest fair share ``remaining capacity / unfrozen flows`` first), without
    rebuilding the transpose: freezing link ``l`` reads its adjacency block
    sequentially, and the fair shares of the few hundred links are kept current
    and scanned.  Sets ``bl`` (bottleneck link; -1 for a flow without links) and
    ``nb`` (flows bottlenecked per link) with its copy ``lbl`` in the adjacency,
    ``load`` (sum of rates per link) and
    ``lam`` (the rate of the flows bottlenecked on a link, for links that are a
    bottleneck); if ``track``, the slots whose rate differs from ``rate`` go to
    ``chg[k]`` with their new rate in ``nrate[k]`` (``inf`` for a flow without
    links; without ``track`` only those).  Returns (number of changed slots,
    number of alive slots).
    """
    fstart, fend, fidx, alive, rate, bl = fl.fstart, fl.fend, fl.fidx, fl.alive, fl.rate, fl.bl
    cap, nb, load, lam = lk.cap, lk.nb, lk.load, lk.lam
    loff, lcnt, ladj, lpart, lbl = adj.loff, adj.lcnt, adj.ladj, adj.lpart, adj.lbl
    n_links = cap.shape[0]
    rem = cap.copy()
    cnt = lcnt.copy()
    fair = np.empty(n_links, np.float64)
    live = np.empty(n_links, np.int64)
    n_live = 0
    for l in range(n_links):
        if cnt[l] > 0:
            fair[l] = rem[l] / cnt[l]
            live[n_live] = l
            n_live += 1
    load[:] = 0.0
    nb[:] = 0
    for s in range(n_slots):  # bl >= 0 marks the flows frozen so far
        bl[s] = -1
    solved = np.zeros(n_links, np.bool_)
    nch = 0
    while n_live > 0:
        best = -1
        share = np.inf
        t = 0
        while t < n_live:
            l2 = live[t]
            if cnt[l2] == 0:
                n_live -= 1
                live[t] = live[n_live]
                continue
            if fair[l2] < share:
                share = fair[l2]
                best = l2
            t += 1
        if best < 0:
            break
        l = best
        solved[l] = True
        for i in range(loff[l], loff[l] + lcnt[l]):  # every flow here is frozen once l is
            s = ladj[i]
            if bl[s] >= 0:
                lbl[i] = bl[s]
                continue
            lbl[i] = l
            if track and share != rate[s]:
                nrate[nch] = share
                chg[nch] = s
                nch += 1
            bl[s] = l
            nb[l] += 1
            lam[l] = share
            load[l] += share
            p = lpart[i]
            if p >= 0:  # the one other link of a unicast
                load[p] += share
                r = rem[p] - share
                r = r if r > 0.0 else 0.0
                rem[p] = r
                c = cnt[p] - 1
                cnt[p] = c
                if c > 0:
                    fair[p] = r / c
            elif p == -2:
                for j in range(fstart[s], fend[s]):
                    l2 = fidx[j]
                    if l2 < 0 or l2 == l:
                        continue
                    load[l2] += share
                    r = rem[l2] - share
                    r = r if r > 0.0 else 0.0
                    rem[l2] = r
                    c = cnt[l2] - 1
                    cnt[l2] = c
                    if c > 0:
                        fair[l2] = r / c
        cnt[l] = 0
    for l in range(n_links):  # links whose flows all froze elsewhere
        if not solved[l]:
            for i in range(loff[l], loff[l] + lcnt[l]):
                lbl[i] = bl[ladj[i]]
    n_alive = 0
    for s in range(n_slots):
        if alive[s]:
            n_alive += 1
            if bl[s] < 0 and rate[s] != np.inf:  # no links
                nrate[nch] = np.inf
                chg[nch] = s
                nch += 1
    return nch, n_alive


@njit(cache=True, _nrt=True)
def solve_full(st: State, cfg: Config, n_slots, now):
    """Allocate every alive flow; rebuild loads and bottleneck tables; settle changed rates
    (only the flows whose rate changed are touched; :func:`next_time` refreshes their blocks).
    Levels mode (one class only): move the finish tags of the flows whose bottleneck changed.
    ``st``: :class:`~.flowstate.State`; ``cfg``: :class:`~.flowstate.Config`."""
    st = as_state(st)
    cfg = Config(*cfg)  # as passed from Python: plain tuples
    fl, lk, adj, pj = st.flows, st.links, st.adj, st.proj
    fstart, fend, fidx, alive, prio, rate, tupd, bl, tag = (fl.fstart, fl.fend, fl.fidx, fl.alive, fl.prio, fl.rate,
                                                            fl.tupd, fl.bl, fl.tag)
    cap, lam, nb, load, vt, gdirty = lk.cap, lk.lam, lk.nb, lk.load, lk.vt, lk.gdirty
    nrate, nbl, nol = st.scratch.nrate, st.scratch.nbl, st.counters.nol
    lv = cfg.levels
    if not cfg.priority_mode:
        chg = np.empty(n_slots, np.int64)
        if lv:
            vsync_links(np.arange(cap.shape[0]), now, lk)
            oldb = bl[:n_slots].copy()
        nch, n_alive = allocate_adj(fl, lk, adj, n_slots, nrate, chg, not lv)
        if not lv:
            settle(chg[:nch], nrate[:nch], np.bool_(False), now, fl, pj)
            return n_alive
        for s in range(n_slots):
            o = oldb[s]
            b = bl[s]
            if o != b and alive[s]:
                tag[s] = moved_tag(tag[s], o, vt[o], b, vt[b])
                if o >= 0:
                    gdirty[o] = True
                if b >= 0:
                    gdirty[b] = True
        for k in range(nch):  # flows without links
            rate[chg[k]] = np.inf
            tupd[chg[k]] = now
            nol[0] += 1
        return n_alive
    slist = np.flatnonzero(alive[:n_slots])
    _allocate(cap, fstart, fend, fidx, slist[_priority_order(slist, prio[slist])], prio, nrate, cfg.scan_max, nbl)
    load[:] = 0.0
    for s in slist:
        if nbl[s] >= 0:
            lam[nbl[s]] = nrate[s]
        for j in range(fstart[s], fend[s]):
            l = fidx[j]
            if l >= 0:
                load[l] += nrate[s]
    bl[slist] = nbl[slist]
    bottlenecks_rebuild(bl, alive, n_slots, nb)
    settle(slist, nrate[slist], np.bool_(False), now, fl, pj)
    return slist.shape[0]


@njit(cache=True)
def _gather(slist, k0, k1, fl: Flows, lam, cfg: Config, kst, kidx, kr0, kpr):
    """Copy the links (without tombstones), rate and priority of S's members ``k0:k1``
    into the local arrays of :func:`solve_incremental`; returns ``kidx``, grown if needed."""
    fstart, fend, fidx, rate, bl, prio = fl.fstart, fl.fend, fl.fidx, fl.rate, fl.bl, fl.prio
    lv = cfg.levels
    e = kst[k0]
    need = e
    for k in range(k0, k1):
        g = slist[k]
        need += fend[g] - fstart[g]
    if need > kidx.shape[0]:
        grown = np.empty(2 * need, np.int64)
        grown[:e] = kidx[:e]
        kidx = grown
    for k in range(k0, k1):
        g = slist[k]
        for j in range(fstart[g], fend[g]):
            l = fidx[j]
            if l >= 0:
                kidx[e] = l
                e += 1
        kst[k + 1] = e
        kr0[k] = rate_of(lv, bl[g], lam[bl[g]], rate[g])
        if cfg.priority_mode:
            kpr[k] = prio[g]
    return kidx


@njit(cache=True, _nrt=True)
def solve_incremental(st: State, cfg: Config, open0, pend, max_flows, now):
    """Re-solve the flows a change can affect (decision N9).

    ``st``: :class:`~.flowstate.State`; ``cfg``: :class:`~.flowstate.Config`.
    ``open0``: links whose set of flows or capacity changed; ``pend``: slots
    added or whose links changed.  Scratch arrays (``is_open``, ``queued``,
    ``in_s``, ``mark`` all False; the float ones any) are left as found.
    Returns the number of flows re-solved; -1 means more
    than ``max_flows`` flows were affected and nothing was changed: the
    caller solves in full instead.  ``stats[0]`` counts solver passes,
    ``stats[1]`` the flows solved over all passes, ``stats[2]`` is the
    round-robin position of the exact load refresh.
    """
    st = as_state(st)
    cfg = Config(*cfg)  # as passed from Python: plain tuples
    fl, lk, adj, sc = st.flows, st.links, st.adj, st.scratch
    alive, rate, tupd, bl = fl.alive, fl.rate, fl.tupd, fl.bl
    cap, lam, nb, load = lk.cap, lk.lam, lk.nb, lk.load
    loff, lcnt, ladj = adj.loff, adj.lcnt, adj.ladj
    is_open, queued, in_s, mark = sc.is_open, sc.queued, sc.in_s, sc.mark
    resid, sold, snew, smax, lamn = sc.resid, sc.sold, sc.snew, sc.smax, sc.lamn
    stats, nol = st.counters.stats, st.counters.nol
    priority_mode, lv = cfg.priority_mode, cfg.levels
    n_links = cap.shape[0]
    # keep float drift of the incrementally kept loads bounded: re-sum a few links exactly
    for _ in range(min(4, n_links)):
        l = stats[2]
        stats[2] = (l + 1) % n_links
        tot = 0.0
        for i in range(loff[l], loff[l] + lcnt[l]):
            g = ladj[i]
            tot += rate_of(lv, bl[g], lam[bl[g]], rate[g])
        load[l] = tot
    olist = np.empty(n_links, np.int64)
    no = 0
    q = np.empty(n_links, np.int64)  # each link is queued at most once
    nq = 0
    qi = 0
    waiting = 0  # bottleneck flows of the queued links not opened yet (each flow has one)
    clist = np.empty(n_links, np.int64)
    nc = 0
    # S is gathered once into local arrays (k = position in S): its slots, links (without
    # tombstones) and old rates; every pass then reads them sequentially (N9, fourth round)
    cap_s = max_flows + pend.shape[0] + 1
    slist = np.empty(cap_s, np.int64)
    kst = np.empty(cap_s + 1, np.int64)  # links of the k-th member: kidx[kst[k]:kst[k + 1]]
    kst[0] = 0
    kidx = np.empty(2 * cap_s + 2, np.int64)
    kr0 = np.empty(cap_s)  # its rate before this update
    knr = np.empty(cap_s)  # its new rate, bottleneck
    knb = np.empty(cap_s, np.int64)
    kpr = np.zeros(cap_s, np.int64)  # its priority
    # np.int64(0), not 0: a literal 0 would also compile _gather for Literal[int](0) while typing (S33)
    ns = np.int64(0)
    sk = np.int64(0)  # slist[:sk] have had their links queued
    for l in open0:
        if not queued[l]:
            queued[l] = True
            q[nq] = l
            nq += 1
            waiting += nb[l]
    for s in pend:
        if alive[s] and not in_s[s]:
            in_s[s] = True
            slist[ns] = s
            ns += 1
    too_many = False
    while True:
        # open the queued links: their bottleneck flows (every flow in priority mode) join S
        while qi < nq and not too_many:
            if not priority_mode and ns + waiting > max_flows:
                # the queued links' bottleneck flows alone overflow S: stop before walking them
                too_many = True
                break
            l = q[qi]
            qi += 1
            waiting -= nb[l]
            is_open[l] = True
            olist[no] = l
            no += 1
            if priority_mode:
                for i in range(loff[l], loff[l] + lcnt[l]):
                    g = ladj[i]
                    if in_s[g]:
                        continue
                    if ns >= max_flows:
                        too_many = True
                        break
                    in_s[g] = True
                    slist[ns] = g
                    ns += 1
            elif nb[l] > 0:
                for i in range(loff[l], loff[l] + lcnt[l]):
                    g = ladj[i]
                    if bl[g] == l and not in_s[g]:
                        if ns >= max_flows:
                            too_many = True
                            break
                        in_s[g] = True
                        slist[ns] = g
                        ns += 1
            # queue links of the new members: in priority mode all of them (connected
            # component); otherwise the saturated links where other flows are
            # bottlenecked, whose level moves with these flows' rates (downstream in the
            # bottleneck precedence graph) -- opened now rather than one pass later
            kidx = _gather(slist, sk, ns, fl, lam, cfg, kst, kidx, kr0, kpr)
            for j in range(kst[sk], kst[ns]):
                l2 = kidx[j]
                if not queued[l2] and (priority_mode or nb[l2] > 0):
                    queued[l2] = True
                    q[nq] = l2
                    nq += 1
                    waiting += nb[l2]
            sk = ns
        if too_many:
            break
        if sk < ns:  # members that no opened link brought (added or re-routed flows)
            kidx = _gather(slist, sk, ns, fl, lam, cfg, kst, kidx, kr0, kpr)
            sk = ns
        # residual capacities of the links S crosses: what the held flows leave
        for k in range(nc):
            mark[clist[k]] = False
        nc = 0
        for k in range(ns):
            for j in range(kst[k], kst[k + 1]):
                l = kidx[j]
                if not mark[l]:
                    mark[l] = True
                    clist[nc] = l
                    nc += 1
                    sold[l] = 0.0
                    snew[l] = 0.0
                    smax[l] = 0.0
                    lamn[l] = np.inf
                sold[l] += kr0[k]
        for k in range(nc):
            l = clist[k]
            # priority mode: S is a whole component, so it has the links to itself
            r = cap[l] if priority_mode else cap[l] - load[l] + sold[l]
            resid[l] = r if r > 0.0 else 0.0
        order = _priority_order(slist[:ns], kpr[:ns]) if priority_mode else np.arange(ns)
        _allocate(resid, kst[:ns], kst[1:ns + 1], kidx, order, kpr, knr[:ns], cfg.scan_max, knb)
        stats[0] += 1
        stats[1] += ns
        for k in range(ns):
            r = knr[k]
            for j in range(kst[k], kst[k + 1]):
                snew[kidx[j]] += r
        if priority_mode:
            break  # a whole connected component: nothing outside it can change
        # check that the held flows still satisfy the bottleneck characterisation
        nq0 = nq
        for k in range(ns):
            b = knb[k]
            r = knr[k]
            if b >= 0:
                if not is_open[b]:
                    if not queued[b]:  # frozen on a held link: re-solve its bottleneck group
                        queued[b] = True
                        q[nq] = b
                        nq += 1
                        waiting += nb[b]
                elif r < lamn[b]:
                    lamn[b] = r
            for j in range(kst[k], kst[k + 1]):
                l = kidx[j]
                if r > smax[l]:
                    smax[l] = r
        for k in range(nc):
            l = clist[k]
            if is_open[l]:
                lvl = lamn[l]
                # S flows are bottlenecked here at lvl: no held flow on the link may go faster.
                # Held flows ran at most lam[l] here if it was a bottleneck already.
                if lvl < np.inf and (nb[l] == 0 or lvl < lam[l]):
                    for i in range(loff[l], loff[l] + lcnt[l]):
                        h = ladj[i]
                        if not in_s[h] and rate_of(lv, bl[h], lam[bl[h]], rate[h]) > lvl:
                            b = bl[h]
                            if b >= 0 and not queued[b]:
                                queued[b] = True
                                q[nq] = b
                                nq += 1
                                waiting += nb[b]
            elif nb[l] > 0 and not queued[l] and (abs(snew[l] - sold[l]) > SAT_TOL * cap[l]
                                                  or smax[l] > lam[l] * (1.0 + SAT_TOL)):
                queued[l] = True  # a held bottleneck is no longer saturated, or is overtaken
                q[nq] = l
                nq += 1
                waiting += nb[l]
        if nq == nq0:
            break
    if too_many:
        for k in range(ns):
            in_s[slist[k]] = False
        for k in range(nq):
            is_open[q[k]] = False
            queued[q[k]] = False
        for k in range(nc):
            mark[clist[k]] = False
        return -1
    # commit: bottleneck tables, loads, rates (settling the remaining bits of changed flows)
    sl = slist[:ns]
    if lv:  # regroup brings the new bottlenecks' virtual times up to now at the old levels
        regroup(sl, knb[:ns], now, fl, lk, adj)
    else:
        move_bottlenecks(sl, knb, bl, nb)
    for k in range(ns):
        s = slist[k]
        in_s[s] = False
        if knb[k] >= 0:
            lam[knb[k]] = knr[k]
        elif lv and knr[k] == np.inf and rate[s] != np.inf:  # no links
            rate[s] = np.inf
            tupd[s] = now
            nol[0] += 1
    if not lv:
        settle(sl, knr, np.bool_(False), now, fl, st.proj)
    for k in range(nc):
        l = clist[k]
        load[l] += snew[l] - sold[l]
        mark[l] = False
    for k in range(no):
        l = olist[k]
        is_open[l] = False
        queued[l] = False
    return ns


# ------------------------------------------------------ stand-alone driver
@njit(cache=True)
def run_completions(st: State, cfg: Config, n_slots, n_alive, now, compact_below, out: Output):
    """The loop of ``FlowNetwork.run_until_idle`` in one compiled call.

    ``st``: :class:`~.flowstate.State`; ``cfg``: :class:`~.flowstate.Config`;
    ``n_slots`` / ``n_alive``: slots in use / alive flows; ``now``: the network time.
    From up-to-date rates, repeat: next completion time, collect the flows
    complete then (N6), retire them, and update the rates of what their links
    can affect -- by :func:`solve_incremental` or, past the fallback
    ``cfg.limits`` (``network.INC_LIMITS``), :func:`solve_full`, exactly as
    ``FlowNetwork._inc_update`` decides.  Completed slots and their times go to
    ``out.slot`` / ``out.time``, the flows re-solved per update to ``out.ns``
    (``out``: :class:`~.flowstate.Output`).
    With per-link levels (``cfg.levels``) an update first tries :func:`levels.propagate`
    (``stats[3]`` / ``stats[4]`` count its successes / failures).

    Stops, without updating the rates after the last batch, when no flow can
    complete, when a batch is empty, when the batch had a flow with an
    ``on_done`` callback (``flows.has_cb``), or when fewer than ``compact_below``
    flows remain (the caller compacts the slots); ``out.opened[:n_open]`` are then
    the links of that batch's flows.  Returns (completions, updates, time,
    n_open, whether the rates need an update).
    """
    st = as_state(st)
    cfg, out = Config(*cfg), Output(*out)  # as passed from Python: plain tuples
    fl, lk, adj, pj, cnt = st.flows, st.links, st.adj, st.proj, st.counters
    fstart, fend, fidx, has_cb = fl.fstart, fl.fend, fl.fidx, fl.has_cb
    stats, limits, lv = cnt.stats, cfg.limits, cfg.levels
    opened = out.opened
    n_links = lk.cap.shape[0]
    lmark = np.zeros(n_links, np.bool_)
    n_done = 0
    n_upd = 0
    n_open = 0
    empty = np.empty(0, np.int64)
    dirty = False
    while True:
        if dirty:
            ns = -1
            if lv:
                ns = levels.propagate(fl, lk, adj, opened[:n_open], now, st.scratch.lstate, cfg.lv_max_pops,
                                      stats[5:8])
                stats[3 if ns >= 0 else 4] += 1
            if ns < 0 and 0 <= n_alive * limits[0] and n_open <= max(n_links * limits[1], 2):
                if limits[2] >= 1:
                    max_flows = n_alive + 1
                else:
                    max_flows = max(int(n_alive * limits[2]), 16)
                ns = solve_incremental(st, cfg, opened[:n_open], empty, max_flows, now)
            if ns < 0:
                ns = solve_full(st, cfg, n_slots, now)
            out.ns[n_upd] = ns
            n_upd += 1
            dirty = False
            n_open = 0
        if lv:
            t = levels.next_time(fl, lk, adj, cnt, now)
        else:
            t = next_time(pj, n_slots)
        if t == np.inf:
            return n_done, n_upd, now, n_open, dirty
        if t > now:
            now = t
        if lv:
            slots = levels.collect_done(now, fl, lk, adj, cnt, n_slots)
        else:
            slots = collect_done(now, fl, pj, n_slots)
        if slots.shape[0] == 0:
            return n_done, n_upd, now, n_open, dirty
        stop = False
        for s in slots:
            out.slot[n_done] = s
            out.time[n_done] = now
            n_done += 1
            if has_cb[s]:
                stop = True
            for j in range(fstart[s], fend[s]):
                l = fidx[j]
                if l >= 0 and not lmark[l]:
                    lmark[l] = True
                    opened[n_open] = l
                    n_open += 1
        for k in range(n_open):
            lmark[opened[k]] = False
        kill_slots(slots, fl, lk, adj, pj, cnt, lv)
        n_alive -= slots.shape[0]
        dirty = True
        if stop or n_alive == 0 or n_alive < compact_below:
            return n_done, n_upd, now, n_open, dirty


# code compiled from other modules is frozen into this module's cache entries (simlib.core.jitcache)
jitcache.track(globals())
