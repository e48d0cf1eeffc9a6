"""Link sharing for compiled event loops: rates of flows kept in a fixed-width flow-link table.

A compiled simulator (e.g. seed 004's SSP loop) keeps its flows in slots
``f = 0 .. F-1``, each crossing up to ``W`` links.  :class:`FlowTable` stores
them in the CSR form of :func:`simlib.core.maxmin.allocate_rates` with room to
spare: slot f's links are ``fidx[fstart[f]:fend[f]]`` with ``fstart[f] = f W``,
so a flow's links are rewritten in place (:func:`set_links`) without moving
the others.  :func:`share_rates` gives every active slot its rate by its own
water-filling, in scratch arrays kept in the table: strict priority by class
(lower class first), max-min inside a class, work-conserving (decision N3).  It
is not :mod:`simlib.core.maxmin`'s ``_allocate``, which gave the same runs bit
for bit but was measured slower on these tables of few flows per class (N10).
A multicast is one flow over its sender's ingress and every receiver's egress,
so its rate is the fair share of its tightest link (not simply the capacity of
its slowest one).  Inside a class the slot order only breaks ties: of links
with equal fair shares, the one the class reached first (slots in order, each
slot's links in order) freezes its flows first; they are found from that link's own
list of the class's flows, built per solve (decision N12).  A class of one flow takes a
shortcut (:func:`_single`) that gives the same rates bit for bit.

:func:`share_big_switch` is the same water-filling for one class of multicasts on a big switch of at
most :data:`BIG_SWITCH_MAX` hosts (sender i's flow over its ingress i and the egresses n + j of its
receivers j), whose receivers are kept as bit sets (rows and columns, :func:`set_receivers`): the
same rates bit for bit as :func:`share_rates` on the table of those flows (decision N18).
:func:`share_big_switch_priority` is its strict-priority form for classes of one multicast each (the caller
calls :func:`share_rates` when a class holds two).

Units: capacities and rates in bits/s.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.core.errors import NumbaTypeError
from numba.extending import intrinsic


__all__ = ["FlowTable", "flow_table", "set_links", "share_rates", "drain", "stable_argsort",
           "BIG_SWITCH_MAX", "set_receivers", "share_big_switch", "share_big_switch_priority", "popcount",
           "lowest_bit"]

#: Most hosts :func:`share_big_switch` takes: a set of hosts is an int64 (bit 63, the sign, unused).
BIG_SWITCH_MAX = 63


class FlowTable(NamedTuple):
    """``F`` flow slots of up to ``W`` links each: slot f crosses ``fidx[fstart[f]:fend[f]]``;
    the other arrays are the solver's scratch space (kept so that a solve allocates nothing)."""

    fidx: np.ndarray      # (F * W,) int64 link ids
    fstart: np.ndarray    # (F,) int64, f * W
    fend: np.ndarray      # (F,) int64, fstart[f] + number of links of slot f
    act: np.ndarray       # (F,) int64 scratch: the active slots
    keys: np.ndarray      # (F,) int64 scratch: their classes
    resid: np.ndarray     # (L,) scratch: capacity left on each link (bits/s)
    cnt: np.ndarray       # (L,) int64 scratch: unfrozen flows of the class on each link
    lmark: np.ndarray     # (L,) bool scratch: the link is in llist
    llist: np.ndarray     # (L,) int64 scratch: the links of the class
    lpos: np.ndarray      # (L,) int64 scratch: where a link's flows start in lflow
    lend: np.ndarray      # (L,) int64 scratch: where they end
    lflow: np.ndarray     # (F * W,) int64 scratch: the class's flows of each link, in class order


@njit(cache=True, _nrt=True)
def flow_table(n_flows, width, n_links):
    """An empty :class:`FlowTable` of ``n_flows`` slots of at most ``width`` of ``n_links`` links
    (every slot crosses no link yet); callable from compiled code and Python."""
    fstart = np.arange(n_flows) * width
    return FlowTable(np.zeros(n_flows * width, np.int64), fstart, fstart.copy(), np.empty(n_flows, np.int64),
                     np.empty(n_flows, np.int64), np.empty(n_links), np.zeros(n_links, np.int64),
                     np.zeros(n_links, np.bool_), np.empty(n_links, np.int64), np.empty(n_links, np.int64),
                     np.empty(n_links, np.int64), np.empty(n_flows * width, np.int64))


@njit(cache=True, _nrt=True)
def stable_argsort(keys):
    """``np.argsort(keys, kind="mergesort")``: the stable order, hence the same permutation.
    Up to 64 keys by insertion sort, several times faster there than numba's merge sort
    and linear on keys already in order."""
    m = keys.shape[0]
    if m > 64:
        return np.argsort(keys, kind="mergesort")
    perm = np.empty(m, np.int64)
    for a in range(m):
        k = keys[a]
        q = a
        while q > 0 and keys[perm[q - 1]] > k:
            perm[q] = perm[q - 1]
            q -= 1
        perm[q] = a
    return perm


@njit(cache=True, inline="always")
def set_links(table, f, links, count):
    """Slot ``f`` crosses ``links[:count]`` (distinct, at most the table's width)."""
    b = table.fstart[f]
    for q in range(count):
        table.fidx[b + q] = links[q]
    table.fend[f] = b + count


@njit(cache=True, inline="always")
def _single(table, f, rates):
    """Slot f is alone in its class: it gets the smallest capacity left on its links (floored at 0)
    and takes it from each of them.  The water-filling of :func:`share_rates` gives the same, bit
    for bit: each of f's (distinct) links has one flow, so its fair share is resid / 1 = resid."""
    best = np.inf
    for e in range(table.fstart[f], table.fend[f]):
        r = table.resid[table.fidx[e]]
        if r < best:
            best = r
    best = max(best, 0.0)
    rates[f] = best
    for e in range(table.fstart[f], table.fend[f]):
        table.resid[table.fidx[e]] -= best


@njit(cache=True, _nrt=True)
def share_rates(caps, table, active, prio, rates, single=True):
    """Rates (bits/s) of the slots with ``active[f]``, into ``rates[f]`` (others untouched).

    ``caps``: (L,) link capacities (bits/s); ``prio``: (F,) int64 class per slot (lower
    first).  Strict priority between classes (lower class first); inside a class,
    max-min by water-filling: the link with the smallest fair share (capacity left /
    unfrozen flows; ties: the link the class reached first, in slot then link order)
    freezes its flows at that share, until every flow is frozen (decision N3).  Every
    active slot must cross at least one link, and each at most once (:func:`set_links`).
    A class of a single flow (every class of SelMcast's strict priority on L3) takes the
    shortcut :func:`_single`, which gives the same rates bit for bit; ``single=False``
    sends it through the water-filling too (the tests compare the two).  The tightest link's flows
    come from its list of the class's flows, in class order (N12); if every remaining fair share is
    infinite the class's unfrozen flows get an infinite rate."""
    fidx, fstart, fend = table.fidx, table.fstart, table.fend
    resid, cnt, lmark, llist, act = table.resid, table.cnt, table.lmark, table.llist, table.act
    lpos, lend, lflow = table.lpos, table.lend, table.lflow
    for l in range(caps.shape[0]):
        resid[l] = caps[l]
        cnt[l] = 0
    m = 0
    for f in range(active.shape[0]):
        if active[f]:
            act[m] = f
            m += 1
    if m == 0:
        return
    keys = table.keys[:m]
    for a in range(m):
        keys[a] = prio[act[a]]
    perm = stable_argsort(keys)                             # a class keeps slot order
    a = 0
    while a < m:
        b = a + 1
        while b < m and keys[perm[b]] == keys[perm[a]]:
            b += 1
        if single and b == a + 1:
            _single(table, act[perm[a]], rates)
            a = b
            continue
        nll = 0
        for q in range(a, b):                               # open the class's links
            f = act[perm[q]]
            rates[f] = -1.0                                 # not frozen yet
            for e in range(fstart[f], fend[f]):
                l = fidx[e]
                cnt[l] += 1
                if not lmark[l]:
                    lmark[l] = True
                    llist[nll] = l
                    nll += 1
        pos = 0
        for q in range(nll):                                # each link's flows, in class order (N12)
            l = llist[q]
            lmark[l] = False
            pos += cnt[l]
            lpos[l] = pos
            lend[l] = pos
        for q in range(b - 1, a - 1, -1):
            f = act[perm[q]]
            for e in range(fstart[f], fend[f]):
                l = fidx[e]
                lpos[l] -= 1
                lflow[lpos[l]] = f
        left = b - a
        while left > 0:                                     # the tightest link freezes its flows
            best = np.inf
            bl = -1
            live = 0
            for q in range(nll):                            # (links without unfrozen flows leave the
                l = llist[q]                                # list; the others keep their order)
                c = cnt[l]
                if c > 0:
                    llist[live] = l
                    live += 1
                    if resid[l] / c < best:
                        best = resid[l] / c
                        bl = l
            nll = live
            best = max(best, 0.0)
            if bl < 0:                                      # every fair share infinite (or NaN)
                for q in range(a, b):
                    f = act[perm[q]]
                    if rates[f] < 0.0:
                        rates[f] = best
                break
            for h in range(lpos[bl], lend[bl]):             # bl's flows in class order
                f = lflow[h]
                if rates[f] < 0.0:
                    rates[f] = best
                    left -= 1
                    for e in range(fstart[f], fend[f]):
                        resid[fidx[e]] -= best
                        cnt[fidx[e]] -= 1
        a = b


@intrinsic
def _popcount(typingctx, bits):
    """Number of set bits of an int64 (LLVM's ctpop: one instruction where the CPU has it)."""
    if bits != types.int64:
        raise NumbaTypeError(f"_popcount takes an int64, not {bits}")

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.int64(types.int64), codegen


@njit(cache=True, inline="always")
def _lowest(bits):
    """Index of the lowest set bit of a non-zero int64 bit set (its trailing zeros)."""
    return _popcount((bits & -bits) - 1)


#: The bit-set helpers for compiled code elsewhere (e.g. the SSP loop's Algorithm 2 on receiver sets):
#: ``popcount(bits)`` the set bits of an int64, ``lowest_bit(bits)`` the index of the lowest (bits != 0).
popcount = _popcount
lowest_bit = _lowest


@njit(cache=True, inline="always")
def set_receivers(rows, cols, s, bits):
    """Sender ``s`` (< :data:`BIG_SWITCH_MAX`) now multicasts to the hosts of the bit set ``bits``
    (int64, bit j: host j): ``rows[s] = bits`` and bit s of every ``cols[j]`` (the senders reaching
    host j) set or cleared to match."""
    change = rows[s] ^ bits
    rows[s] = bits
    me = 1 << s
    while change != 0:
        cols[_lowest(change)] ^= me
        change &= change - 1


@njit(cache=True, _nrt=False)
def share_big_switch(caps, rows, cols, active, rates, table):
    """Max-min rates (bits/s) of one class of multicasts on a big switch of n hosts, into ``rates[i]``
    for the senders with ``active[i]`` (others untouched): :func:`share_rates`'s water-filling, bit for
    bit, specialised to these flows (decision N18).

    Host i's ingress is link i, its egress link n + i (``caps`` (2n,), bits/s).  Sender i's flow crosses
    its ingress i, then the egress n + j of every receiver j in ``rows[i]`` (an int64 bit set, ascending
    j): the link list :func:`share_rates` would read from a table.  ``cols[j]`` is the bit set of the
    senders whose rows hold j (:func:`set_receivers` keeps the two consistent); n <= :data:`BIG_SWITCH_MAX`.
    Only ``table``'s scratch arrays ``resid``, ``cnt`` and ``llist`` are used (at least 2n long).

    Why the same bits: an ingress carries only its sender's flow, so the links' flow lists are the
    columns; the order the class reaches its links (each active sender's ingress, then the egresses it
    reaches first, ascending) follows from the rows; the scan for the tightest link is
    :func:`share_rates`'s, on the same list in the same order (exact ties: the link reached first).
    The flows a level freezes all take the same rate, so each link loses it once per frozen flow on it
    (counted as the bits of its column among them) -- the same subtractions, in the same order of levels,
    as freezing the flows one by one.  The links are kept by position in that order (their capacity left,
    unfrozen flows and senders side by side, the list compacted in place); the first level's scan runs as
    the list is built, and each later level's scan in the same pass as the previous level's subtractions,
    link by link (each link's part reads that link alone), so every link sees the same operations and the
    scan the same shares in the same order (issue 48 item 1)."""
    n = active.shape[0]
    # the class's links in the order it reaches them, by position q: capacity left resid[q], unfrozen flows
    # cnt[q] and their senders as a bit set own[q] (an ingress: its sender; egress n + j: column j)
    resid, cnt, own = table.resid, table.cnt, table.llist
    amask = 0
    for i in range(n):
        if active[i]:
            amask |= 1 << i
    if amask == 0:
        return
    nll = 0
    seen = 0
    pending = amask
    best = np.inf                                       # the first level's scan, as the links are reached
    bq = -1
    while pending != 0:
        i = _lowest(pending)
        pending &= pending - 1
        resid[nll] = caps[i]
        cnt[nll] = 1
        own[nll] = 1 << i
        if resid[nll] / 1 < best:
            best = resid[nll] / 1
            bq = nll
        nll += 1
        new = rows[i] & ~seen
        seen |= rows[i]
        while new != 0:
            j = _lowest(new)
            new &= new - 1
            resid[nll] = caps[n + j]
            own[nll] = cols[j] & amask
            c = _popcount(own[nll])
            cnt[nll] = c
            if resid[nll] / c < best:
                best = resid[nll] / c
                bq = nll
            nll += 1
    unfrozen = amask
    while True:                                         # the tightest link freezes its flows
        best = max(best, 0.0)
        frozen = unfrozen if bq < 0 else own[bq] & unfrozen     # (bq < 0: every fair share infinite or NaN)
        unfrozen &= ~frozen
        pending = frozen
        while pending != 0:
            rates[_lowest(pending)] = best
            pending &= pending - 1
        if bq < 0 or unfrozen == 0:
            break
        # each link loses best once per frozen flow on it; then the next level's scan (as share_rates: links
        # without unfrozen flows leave the list, the others keep their order), in the same pass
        share = best
        best = np.inf
        bq = -1
        live = 0
        for q in range(nll):
            k = _popcount(own[q] & frozen)
            c = cnt[q] - k
            if c <= 0:
                continue
            r = resid[q]
            for _ in range(k):
                r -= share
            resid[live] = r
            cnt[live] = c
            own[live] = own[q]
            if r / c < best:
                best = r / c
                bq = live
            live += 1
        nll = live


@njit(cache=True, _nrt=False)
def share_big_switch_priority(caps, rows, active, prio, rates, table):
    """Strict-priority rates (bits/s) of multicasts on a big switch of n <= :data:`BIG_SWITCH_MAX` hosts, into
    ``rates[i]`` for the senders with ``active[i]`` (others untouched): :func:`share_rates`'s, bit for bit, for
    sender i's flow over its ingress i and the egresses n + j of its receivers j in ``rows[i]`` (an int64 bit
    set; ascending j, the link list :func:`share_rates` reads from a table), at class ``prio[i]`` (int64, lower
    first); ``caps`` (2n,) bits/s (ingress i, egress n + i), each >= +0.0, infinite or NaN.  Uses ``table``'s
    scratch arrays ``resid``, ``act`` and ``keys`` (at least 2n, n and n long).  Returns True, or False (no
    rate written) if two active flows share a class: then the caller calls :func:`share_rates`, which
    water-fills that class (on a table of the same flows).

    When every class holds one flow (SM50's classes under L3: one task each), :func:`share_rates` takes each
    flow, in class order, through :func:`_single`: the smallest capacity left on its links (in link order,
    floored at 0), taken from each of them.  This does the same on the bit sets, in the same order of flows
    and of links, so the same values; without the per-solve sort's allocation and the table's link ids (issue
    48).  A flow whose scan meets a link with +0.0 left stops there and takes nothing: the capacity left on
    a link is never below +0.0 (each flow takes at most the least left on its links, and x - y >= +0.0 for
    x >= y in floats), so that link is its least, and subtracting 0.0 changes no capacity left."""
    n = active.shape[0]
    resid, act, keys = table.resid, table.act, table.keys
    m = 0
    for i in range(n):                                  # the active senders, by class (stable: an insertion
        if active[i]:                                   # in id order, as stable_argsort)
            k = prio[i]
            q = m
            while q > 0 and keys[q - 1] > k:
                keys[q] = keys[q - 1]
                act[q] = act[q - 1]
                q -= 1
            keys[q] = k
            act[q] = i
            m += 1
    for a in range(1, m):
        if keys[a] == keys[a - 1]:
            return False
    for lk in range(2 * n):
        resid[lk] = caps[lk]
    for a in range(m):                                  # _single, class by class
        i = act[a]
        best = np.inf
        r = resid[i]
        if r < best:
            best = r
        b = rows[i]
        while b != 0 and best != 0.0:                   # (nothing is below +0.0: see above)
            r = resid[n + _lowest(b)]
            b &= b - 1
            if r < best:
                best = r
        best = max(best, 0.0)
        rates[i] = best
        if best == 0.0:
            continue
        resid[i] -= best
        b = rows[i]
        while b != 0:
            resid[n + _lowest(b)] -= best
            b &= b - 1
    return True


@njit(cache=True, _nrt=False)
def drain(remaining, rate, alive, n, dt):
    """``remaining -= rate * dt`` (bits; rates bits/s, ``dt`` s) for the first ``n`` slots with
    ``alive``, floored at 0; an infinite rate empties the slot."""
    for i in range(n):
        if alive[i]:
            r = rate[i]
            if r == np.inf:
                remaining[i] = 0.0
            else:
                v = remaining[i] - r * dt
                remaining[i] = v if v > 0.0 else 0.0
