"""Per-link levels: the one-class incremental engine's state between solves (decision N9, fifth round).

Under max-min fairness every flow runs at the *level* of its bottleneck link
(``lam[bl[s]]``), so after a change mostly links change, not flows: on the
benchmark a completion re-rates thousands of flows but moves the bottleneck of
fewer than one flow on average (N9).  This module keeps what depends on levels
per link:

* progress: each link's *virtual time* ``vt`` (bits served to each of its
  bottleneck flows since its group was last rebased; exact at ``tv``), and per
  flow a *finish tag*: the flow's last bit arrives when its bottleneck's virtual
  time reaches its tag.  A level change costs one :func:`synced` of the link,
  whatever the number of flows it carries; a flow's tag moves only when its
  bottleneck does (:func:`regroup`);
* completions: per link the smallest tag of its group (``mz``) and the smallest
  tag minus the completion tolerance of decision N6 (``mt``), refreshed when the
  group's membership changed (``gdirty``);
* rate updates: :func:`propagate` re-solves the levels of the links a change
  reaches, in level order, by water-filling one link at a time and moving the
  bottlenecks of flows that a link now limits; it gives up (restoring
  everything) past a budget of link solves, and the caller then runs the
  flow-level incremental solve (:mod:`simlib.core.incremental`).

Units: bits, bits/s, seconds.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from simlib.core import jitcache
from simlib.core.flowstate import Adjacency, Counters, Flows, Links

from simlib.core.tolerance import ABS_TOL_BITS, REL_TOL  # decision N6

# relative slack of the bottleneck checks (as incremental.SAT_TOL)
SAT_TOL = 1e-13


# Helpers called in loops take scalars: an array argument costs reference counting
# on every call, even inlined (N9).
@njit(cache=True, inline="always")
def synced(now, lam, nb, vt, tv):
    """A link's virtual time at ``now``, from its level ``lam``, group size ``nb`` and
    virtual time ``vt`` as of ``tv``; an empty group restarts from 0.  Callers store it
    with ``tv = now`` before the link's level or group changes."""
    if nb == 0:
        return 0.0
    if tv < now:
        return vt + lam * (now - tv)
    return vt


@njit(cache=True, inline="always")
def _tol(volume):
    v = volume * REL_TOL
    return v if v > ABS_TOL_BITS else ABS_TOL_BITS


@njit(cache=True, inline="always")
def _last_bit(lam, vt, tv, tag):
    """When a link at level ``lam`` with virtual time ``vt`` at ``tv`` reaches ``tag``."""
    if lam > 0.0:
        return tv + (tag - vt) / lam
    return tv if tag <= vt else np.inf


@njit(cache=True, inline="always")
def moved_tag(tag, o, vt_o, b, vt_b):
    """A flow's finish tag once its bottleneck moves from link ``o`` (virtual time
    ``vt_o`` now) to link ``b`` (``vt_b``); -1 is no bottleneck, where the tag holds
    the remaining bits."""
    rem = tag - vt_o if o >= 0 else tag
    rem = rem if rem > 0.0 else 0.0
    return vt_b + rem if b >= 0 else rem


@njit(cache=True)
def vsync_links(links, now, lk: Links):
    """Bring the virtual times of ``links`` up to ``now`` (levels mode; ``lk``: :class:`~.flowstate.Links`)."""
    vt = lk.vt
    tv = lk.tv
    for l in links:
        if l >= 0:
            vt[l] = synced(now, lk.lam[l], lk.nb[l], vt[l], tv[l])
            tv[l] = now


@njit(cache=True)
def move_bottlenecks(slots, newb, bl, nb):
    """Make link ``newb[k]`` (-1: none) the bottleneck of flow ``slots[k]``, keeping the
    per-link counts ``nb``.  The flows bottlenecked on link ``l`` are those of its
    adjacency block with ``bl == l`` (no per-link lists: see N9); the adjacency's
    copies (``lbl``) are the caller's (:func:`regroup` in levels mode)."""
    for k in range(slots.shape[0]):
        s = slots[k]
        b = newb[k]
        old = bl[s]
        if old == b:
            continue
        if old >= 0:
            nb[old] -= 1
        bl[s] = b
        if b >= 0:
            nb[b] += 1


# inlined: propagate calls it at every bottleneck move, and a call passing the 27 arrays of three
# bundles cost 4-6 % of a 30,000-flow run_until_idle (measured against the pre-bundle engine)
@njit(cache=True, inline="always")
def regroup(slots, newb, now, fl: Flows, lk: Links, adj: Adjacency):
    """Levels mode: flow ``slots[k]`` changes bottleneck to ``newb[k]`` (-1: none) now.
    Its finish tag moves from the old link's virtual time to the new one's (a flow
    without a bottleneck keeps its remaining bits in ``tag``).  Syncs every link
    involved first; marks the groups whose membership changed (``gdirty``).
    ``fl``, ``lk``, ``adj``: :class:`~.flowstate.Flows`, ``Links``, ``Adjacency``."""
    bl, tag, fstart, fend, fidx = fl.bl, fl.tag, fl.fstart, fl.fend, fl.fidx
    vt, gdirty = lk.vt, lk.gdirty
    loff, lcnt, ladj, lbl = adj.loff, adj.lcnt, adj.ladj, adj.lbl
    vsync_links(bl[slots], now, lk)
    vsync_links(newb, now, lk)
    for k in range(slots.shape[0]):
        s = slots[k]
        o = bl[s]
        b = newb[k]
        if o == b:
            continue
        tag[s] = moved_tag(tag[s], o, vt[o], b, vt[b])
        if o >= 0:
            gdirty[o] = True
        if b >= 0:
            gdirty[b] = True
        for j in range(fstart[s], fend[s]):  # the copies of its bottleneck in the adjacency
            m = fidx[j]
            if m >= 0:
                for i in range(loff[m], loff[m] + lcnt[m]):
                    if ladj[i] == s:
                        lbl[i] = b
                        break
    move_bottlenecks(slots, newb, bl, lk.nb)


@njit(cache=True, _nrt=False)
def _refresh(l, fl: Flows, lk: Links, adj: Adjacency):
    """Recompute link ``l``'s group minima, rebasing its tags on virtual time 0
    (keeps tags and virtual times within the group's volumes: no precision lost
    to a virtual time that grew for long)."""
    tag, volume, vt = fl.tag, fl.volume, lk.vt
    ladj, lbl = adj.ladj, adj.lbl
    v0 = vt[l]
    a = np.inf
    c = np.inf
    for i in range(adj.loff[l], adj.loff[l] + adj.lcnt[l]):
        if lbl[i] == l:
            s = ladj[i]
            t = tag[s] - v0
            tag[s] = t
            if t < a:
                a = t
            t -= _tol(volume[s])
            if t < c:
                c = t
    vt[l] = 0.0
    lk.mz[l] = a
    lk.mt[l] = c


@njit(cache=True, _nrt=False)
def next_time(fl: Flows, lk: Links, adj: Adjacency, cnt: Counters, now):
    """Earliest last-bit time over the alive flows (``now`` if a flow without links is
    waiting, inf if nothing can complete); ``cnt``: :class:`~.flowstate.Counters`."""
    fl, lk, adj, cnt = Flows(*fl), Links(*lk), Adjacency(*adj), Counters(*cnt)  # as passed from Python: plain tuples
    nb, lam, vt, tv, mz, gdirty = lk.nb, lk.lam, lk.vt, lk.tv, lk.mz, lk.gdirty
    m = now if cnt.nol[0] > 0 else np.inf
    for l in range(nb.shape[0]):
        if nb[l] > 0:
            if gdirty[l]:
                gdirty[l] = False
                _refresh(l, fl, lk, adj)
            t = _last_bit(lam[l], vt[l], tv[l], mz[l])
            if t < m:
                m = t
    return m


@njit(cache=True)
def collect_done(t, fl: Flows, lk: Links, adj: Adjacency, cnt: Counters, n_slots):
    """Slots (ascending) complete at time ``t``: within the tolerance of N6, or with their
    last bit due by ``t`` as :func:`next_time` computes it (so its answer always completes)."""
    fl, lk, adj, cnt = Flows(*fl), Links(*lk), Adjacency(*adj), Counters(*cnt)  # as passed from Python: plain tuples
    bl, rate, alive, tag, volume = fl.bl, fl.rate, fl.alive, fl.tag, fl.volume
    nb, lam, vt, tv, mz, mt, gdirty = lk.nb, lk.lam, lk.vt, lk.tv, lk.mz, lk.mt, lk.gdirty
    loff, lcnt, ladj, lbl = adj.loff, adj.lcnt, adj.ladj, adj.lbl
    out = []
    for l in range(nb.shape[0]):
        if nb[l] > 0:
            if gdirty[l]:
                gdirty[l] = False
                _refresh(l, fl, lk, adj)
            lm = lam[l]
            v0 = vt[l]
            t0 = tv[l]
            vnow = v0 + lm * (t - t0)
            if mt[l] <= vnow or _last_bit(lm, v0, t0, mz[l]) <= t:
                for i in range(loff[l], loff[l] + lcnt[l]):
                    if lbl[i] == l:
                        s = ladj[i]
                        if tag[s] - vnow <= _tol(volume[s]) or _last_bit(lm, v0, t0, tag[s]) <= t:
                            out.append(s)
    if cnt.nol[0] > 0:
        for s in range(n_slots):
            if alive[s] and bl[s] < 0 and rate[s] == np.inf:
                out.append(s)
    res = np.array(out, dtype=np.int64)
    res.sort()
    return res


@njit(cache=True)
def remaining(s, now, fl: Flows, lk: Links):
    """Bits flow ``s`` has left at ``now`` (a flow without links empties as soon as time
    moves on after ``tupd[s]``, when it got its infinite rate, as in the full engine)."""
    fl, lk = Flows(*fl), Links(*lk)  # as passed from Python: plain tuples
    b = fl.bl[s]
    if b < 0:
        return 0.0 if fl.rate[s] == np.inf and now > fl.tupd[s] else fl.tag[s]
    v = fl.tag[s] - (lk.vt[b] + lk.lam[b] * (now - lk.tv[b]))
    return v if v > 0.0 else 0.0


@njit(cache=True, inline="always")
def _before(ka, la, kb, lb):
    return ka < kb or (ka == kb and la < lb)


@njit(cache=True)
def _qpush(qkey, qlink, n, key, link):
    """Push (key, link) on the binary heap ``qkey[:n]`` / ``qlink[:n]``; returns its new size."""
    i = n
    while i > 0:
        p = (i - 1) >> 1
        if not _before(key, link, qkey[p], qlink[p]):
            break
        qkey[i] = qkey[p]
        qlink[i] = qlink[p]
        i = p
    qkey[i] = key
    qlink[i] = link
    return n + 1


@njit(cache=True)
def _qpop(qkey, qlink, n):
    """Remove the root of the heap ``qkey[:n]`` / ``qlink[:n]``; returns its new size."""
    n -= 1
    key = qkey[n]
    link = qlink[n]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and _before(qkey[c + 1], qlink[c + 1], qkey[c], qlink[c]):
            c += 1
        if not _before(qkey[c], qlink[c], key, link):
            break
        qkey[i] = qkey[c]
        qlink[i] = qlink[c]
        i = c
    qkey[i] = key
    qlink[i] = link
    return n


@njit(cache=True, _nrt=True)
def propagate(fl: Flows, lk: Links, adj: Adjacency, opened, now, state, max_pops, work):
    """Re-solve the levels of the links reachable from ``opened`` (links whose flows or
    capacity changed), moving bottlenecks where the levels require it.

    Links are solved in level order (a flow's bottleneck level is at most the level
    of every other link it crosses, so a link's level depends only on links solved
    before it).  Solving link ``l`` is water-filling on ``l`` alone, the other flows
    running at their bottlenecks' levels: if some of them would run faster than the
    level that fills ``l`` with its own flows, the fastest move to ``l`` (their
    bottleneck becomes ``l``) until none is faster; the links they left are solved
    again.  A link without bottleneck flows keeps no level unless overloaded.  A link
    whose level changed passes the change on to the other links of its bottleneck
    flows (their loads are updated by it, which is all a link without bottleneck
    flows needs until it is overloaded).  When nothing is left to solve, every flow
    runs at the level of a saturated link where no flow is faster and no link is
    overloaded: the max-min allocation (N9, fifth round).

    Returns the number of flow re-ratings (the flows of a link each time its level
    changed), or -1 after more than ``max_pops`` link solves or on a flow without a
    bottleneck; then every level, load and moved bottleneck is restored, and the
    caller solves by flows instead.
    ``fl``, ``lk``, ``adj``: :class:`~.flowstate.Flows`, ``Links``, ``Adjacency``.
    ``state`` is link scratch (all 0, left so); ``work`` counts link solves, adjacency
    entries read and flows moved.
    """
    fl, lk, adj = Flows(*fl), Links(*lk), Adjacency(*adj)  # as passed from Python: plain tuples
    fstart, fend, fidx = fl.fstart, fl.fend, fl.fidx
    cap, load, lam, nb, vt, tv = lk.cap, lk.load, lk.lam, lk.nb, lk.vt, lk.tv
    loff, lcnt, ladj, lpart, lbl = adj.loff, adj.lcnt, adj.ladj, adj.lpart, adj.lbl
    n_links = cap.shape[0]
    # links waiting to be solved: a binary heap (_qpush / _qpop) of (level when queued,
    # -inf for an overloaded link without bottleneck flows; link id)
    qkey = np.empty(n_links)
    qlink = np.empty(n_links, np.int64)
    touched = np.empty(n_links, np.int64)
    old_lam = np.empty(n_links)
    old_load = np.empty(n_links)
    mv_slot = np.empty(16, np.int64)  # bottleneck moves, for the rollback
    mv_from = np.empty(16, np.int64)
    n_mv = 0
    oi = np.empty(64, np.int64)  # adjacency positions of the solved link's own flows
    one = np.empty(1, np.int64)
    onel = np.empty(1, np.int64)
    nt = 0
    nq = np.int64(0)  # not 0: a literal also compiles _qpush/_qpop for Literal[int](0) (S33)
    for l in opened:
        if state[l] == 0:
            state[l] = 1
            touched[nt] = l
            old_lam[nt] = lam[l]
            old_load[nt] = load[l]
            nt += 1
            nq = _qpush(qkey, qlink, nq, lam[l] if nb[l] > 0 else np.inf, l)
    pops = 0
    changed = 0
    ok = True
    while ok:
        while nq > 0:
            l = qlink[0]
            nq = _qpop(qkey, qlink, nq)
            pops += 1
            if pops > max_pops:
                ok = False
                break
            state[l] = 2
            work[0] += 1
            work[1] += lcnt[l]
            own0 = nb[l]
            own = own0
            so = 0.0
            mo = 0.0
            neg = 0
            if lcnt[l] > oi.shape[0]:
                oi = np.empty(2 * lcnt[l], np.int64)
            k_own = 0
            for i in range(loff[l], loff[l] + lcnt[l]):  # branch-free: half the entries are l's own
                b = lbl[i]
                r = lam[b] if b != l else 0.0
                so += r
                mo = max(mo, r)
                neg |= b
                oi[k_own] = i  # positions of l's own flows, kept where b == l
                k_own += b == l
            if neg < 0:  # a flow without a bottleneck (not solved yet)
                ok = False
                break
            if own == 0 and so <= cap[l] * (1.0 + SAT_TOL):
                load[l] = so
                continue
            # a level is a rate, >= 0: ``so`` sums and subtracts other flows' rates, so on a link of
            # capacity 0 rounding can leave it at 1e-16, and a level of -3e-17 that no move can raise
            # kept the loop below spinning for ever
            x = max((cap[l] - so) / own, 0.0) if own > 0 else -np.inf
            mv0 = n_mv
            while own == 0 or mo > x * (1.0 + SAT_TOL):
                # the fastest flows bottlenecked elsewhere are limited here: move them
                for i in range(loff[l], loff[l] + lcnt[l]):
                    b = lbl[i]
                    if b != l and lam[b] == mo:
                        if n_mv == mv_slot.shape[0]:
                            mv_slot = np.concatenate((mv_slot, np.empty(n_mv, np.int64)))
                            mv_from = np.concatenate((mv_from, np.empty(n_mv, np.int64)))
                        s = ladj[i]
                        oi[k_own] = i
                        k_own += 1
                        mv_slot[n_mv] = s
                        mv_from[n_mv] = b
                        n_mv += 1
                        one[0] = s
                        onel[0] = l
                        regroup(one, onel, now, fl, lk, adj)
                        so -= mo
                        own += 1
                        if state[b] != 1:  # the link it left is solved again
                            if state[b] == 0:
                                touched[nt] = b
                                old_lam[nt] = lam[b]
                                old_load[nt] = load[b]
                                nt += 1
                            state[b] = 1
                            nq = _qpush(qkey, qlink, nq, lam[b] if nb[b] > 0 else np.inf, b)
                x = max((cap[l] - so) / own, 0.0)
                mo = 0.0
                for i in range(loff[l], loff[l] + lcnt[l]):
                    b = lbl[i]
                    if b != l and lam[b] > mo:
                        mo = lam[b]
            work[2] += n_mv - mv0
            load[l] = so + own * x
            lo = lam[l] if own0 > 0 else x
            if x == lo and n_mv == mv0:
                continue
            if own0 > 0:
                vt[l] = synced(now, lam[l], own0, vt[l], tv[l])
                tv[l] = now
            delta = x - lo
            # the flows that moved here change rate by x - (their old level): pre-charge
            # (lo - old level) on their other links; the loop below adds x - lo to all
            for k in range(mv0, n_mv):
                s = mv_slot[k]
                d = lo - lam[mv_from[k]]
                for j in range(fstart[s], fend[s]):
                    m = fidx[j]
                    if m >= 0 and m != l:
                        if state[m] == 0:
                            touched[nt] = m
                            old_lam[nt] = lam[m]
                            old_load[nt] = load[m]
                            nt += 1
                            state[m] = 3  # queued below if it has bottleneck flows
                        load[m] += d
            lam[l] = x
            changed += own
            # the other links of its bottleneck flows: their loads move by delta; those with
            # bottleneck flows of their own are queued, the others only checked at the end
            for k in range(k_own):
                i = oi[k]
                s = ladj[i]
                p = lpart[i]
                if p >= 0:
                    ps = p
                    pe = p + 1
                    direct = True
                elif p == -1:
                    continue
                else:
                    ps = fstart[s]
                    pe = fend[s]
                    direct = False
                for j in range(ps, pe):
                    m = j if direct else fidx[j]
                    if m < 0 or m == l:
                        continue
                    if state[m] == 0:
                        touched[nt] = m
                        old_lam[nt] = lam[m]
                        old_load[nt] = load[m]
                        nt += 1
                    load[m] += delta
                    if nb[m] == 0:
                        if state[m] != 1:
                            state[m] = 3
                    elif state[m] != 1:
                        state[m] = 1
                        nq = _qpush(qkey, qlink, nq, lam[m], m)
        if not ok:
            break
        # links without bottleneck flows that a change reached: an overloaded one is solved
        # (first: its level is below that of the flows it must now limit)
        for k in range(nt):
            l = touched[k]
            if state[l] == 3 and load[l] > cap[l] * (1.0 + SAT_TOL):
                state[l] = 1
                nq = _qpush(qkey, qlink, nq, -np.inf, l)
        if nq == 0:
            break
    if not ok:
        for k in range(n_mv - 1, -1, -1):
            one[0] = mv_slot[k]
            onel[0] = mv_from[k]
            regroup(one, onel, now, fl, lk, adj)
    for k in range(nt):
        l = touched[k]
        state[l] = 0
        if not ok:
            lam[l] = old_lam[k]
            load[l] = old_load[k]
    return changed if ok else -1


# code compiled from other modules is frozen into this module's cache entries (simlib.core.jitcache)
jitcache.track(globals())
