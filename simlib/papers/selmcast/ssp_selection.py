"""SelMcast for SSP training: Algorithm 2 of seed 004 (§III-C), line by line.

Every time a worker kappa becomes ready to multicast, the manager re-plans the
receivers of *every* ongoing multicast task (the set G) and chooses kappa's:

* lines 1-4: kappa's row starts as "every other worker" (x_kappa,j = 1) with
  its whole volume still to send; kappa joins G;
* lines 8-12 (basic selection, consistency): a pair stays if it is forced
  ((i, j) in D) or if j has already received more than (1 - eta) of i's data
  (v_ij < eta v_i);
* lines 13-20: tasks in non-decreasing order of tau_i (decision SM57) each
  top up to p_i receivers with the q lightest-loaded egresses among the
  receivers they still have (x_ij = 1); load_j = (v_ij + sum_l v_lj y_lj) / b_j^E;
* lines 21-28 (Pareto improvement): per-task deadline
  t_i = max(tau_i, s_i / b_i^I, max_{j: y_ij = 1} r_j / b_j^E);
* lines 29-36: the remaining pairs (x_ij = 1, y_ij = 0) in non-increasing
  order of c_ij are re-admitted when task i's deadline still holds;
* lines 37-39: x <- y.  A receiver dropped here is never re-added in this
  round, because later calls only choose among x_ij = 1 (§III-C).

The routine is compiled with numba (one call at n = 50 takes tens of
microseconds); it reads beside the pseudo-code.  Units: bits, bits/s,
seconds.  Decisions (SM5x) are in docs/decisions/selmcast_ssp.md.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from simlib.core import jitcache
from simlib.core.sharing import BIG_SWITCH_MAX, lowest_bit, popcount
from simlib.core.validate import check_choice, check_int, check_real

__all__ = ["select_ssp", "Plan", "Rules", "Scratch", "scratch", "TIE_S", "TASK_ORDERS", "LINE32_READINGS",
           "PARETO_DEADLINES", "C_BITS", "C_SAT", "c_planes", "c_planes_finish"]

#: Line 13 sorts tasks by tau non-decreasing ("pseudocode"); §III-C's text says non-increasing ("text").
TASK_ORDERS = ("pseudocode", "text")
#: Line 32 sums v_lj x_lj as printed ("x") or v_lj y_lj ("y", the reading of line 24; decision SM54).
LINE32_READINGS = ("y", "x")
#: Line 33 checks only task i's own deadline ("own", as printed) or also every task already using j ("all").
PARETO_DEADLINES = ("own", "all")


#: Two times (s) closer than this are equal in Algorithm 2's comparisons: the tasks' tau and start
#: times of line 13 and the receivers' loads r_j / b_j^E of line 16 (decision SM71).  The two SSP
#: engines compute these times with different float rounding (~1e-12 s apart), so an exact tie in
#: one is a near tie in the other; within 1 ns both take the tie rule (earlier start, then lower id;
#: the earlier candidate, SM62).
TIE_S = 1e-9


@njit(cache=True, inline="always")
def _before(a, b, tau, start, descending):
    """Task a is processed before task b (line 13; tau within :data:`TIE_S` ties: earlier start,
    then, start times within :data:`TIE_S`, lower id; SM57, SM71)."""
    d = tau[a] - tau[b]
    if abs(d) > TIE_S:                                  # (inf - inf is NaN: a tie, as inf == inf)
        return d > 0.0 if descending else d < 0.0
    d = start[a] - start[b]
    if abs(d) > TIE_S:
        return d < 0.0
    return a < b


#: Bits of each c_ij in the bit planes of :func:`c_planes` (the SSP loop's form of c for
#: :func:`_algorithm2_l3`): a value at or above :data:`C_SAT` is kept as C_SAT (saturated).
C_BITS = 5
C_SAT = (1 << C_BITS) - 1


class Plan(NamedTuple):
    """Algorithm 2's state for n workers (see :func:`select_ssp` for each array's meaning)."""

    x: np.ndarray       # (n, n) int8 current plan: x_ij = 1 while j is a receiver of i's multicast
    vrem: np.ndarray    # (n, n) bits not yet delivered from i to j
    v: np.ndarray       # (n,) bits of each multicast
    p: np.ndarray       # (n,) int64 minimum receivers
    b_in: np.ndarray    # (n,) ingress bandwidth (bits/s)
    b_eg: np.ndarray    # (n,) egress bandwidth (bits/s)
    tau: np.ndarray     # (n,) seconds each task's worker would still wait at the SSP gate
    c: np.ndarray       # (n, n) int64 rounds since i last delivered to j
    due: np.ndarray     # (n, n) bool, the forced pairs D
    in_g: np.ndarray    # (n,) bool, the ongoing tasks G
    start: np.ndarray   # (n,) task start times (s; ties of line 13)


class Rules(NamedTuple):
    """How Algorithm 2 is read: ``eta`` of line 9, L3 (s_i = max) or L7 (s_i = sum), and the
    readings of :data:`TASK_ORDERS` (``descending``: "text"), :data:`LINE32_READINGS`
    (``line32_x``: "x") and :data:`PARETO_DEADLINES` (``deadline_all``: "all")."""

    eta: float
    l3: bool
    descending: bool
    line32_x: bool
    deadline_all: bool


class Scratch(NamedTuple):
    """Output and work arrays of :func:`_algorithm2` for n workers (:func:`scratch` makes them), so
    that a call allocates nothing.  Output: ``y`` (n, n) int8,
    ``order`` (n,) int64 (G in processing order), ``deadline`` (n,) float (t_i, seconds).  Work: per receiver j (n,)
    ``load`` (bits, sum_l v_lj y_lj), ``lratio`` (s, r_j / b_j^E), ``dl_min`` (s), ``xload``
    (bits, sum_l v_lj x_lj); per task i (n,) ``count`` (sum_j y_ij), ``s`` (bits, s_i); line 16's
    candidates ``cand`` (n,) int64 and their keys ``ckey`` (n,) (s); line 29's pairs (i, j), each packed as
    one int64 i << 32 | j (:func:`_pair`), in (L, j) order ``pi`` with their ``pc`` = c_ij, and in processing
    order ``ci`` (n * n,) int64, with the counting sort's buckets ``slot`` (n + 2,) int64 (pairs with
    c_ij >= n share the last: :func:`_sort_by_c`).  ``pi`` is also line 16's work space (each candidate's
    bucket, :func:`_lightest_in_span`), before line 29 fills it.  ``rest`` (n,) int64: line 29's pairs of
    each task with some as a bit set, in L order (:func:`_algorithm2_l3`; its tasks go to ``cand``)."""

    y: np.ndarray
    order: np.ndarray
    deadline: np.ndarray
    load: np.ndarray
    lratio: np.ndarray
    dl_min: np.ndarray
    xload: np.ndarray
    count: np.ndarray
    s: np.ndarray
    cand: np.ndarray
    ckey: np.ndarray
    pi: np.ndarray
    pc: np.ndarray
    ci: np.ndarray
    slot: np.ndarray
    rest: np.ndarray


@njit(cache=True, _nrt=True)
def scratch(n):
    """A :class:`Scratch` for n workers (``deadline`` NaN); callable from compiled code and Python."""
    return Scratch(np.zeros((n, n), np.int8), np.zeros(n, np.int64), np.full(n, np.nan), np.zeros(n), np.zeros(n),
                   np.zeros(n), np.zeros(n), np.zeros(n, np.int64), np.zeros(n), np.zeros(n, np.int64), np.zeros(n),
                   np.zeros(n * n, np.int64), np.zeros(n * n, np.int64), np.zeros(n * n, np.int64),
                   np.zeros(n + 2, np.int64), np.zeros(n, np.int64))


@njit(cache=True, inline="always")
def _lightest(cand, ckey, nc, q):
    """Move the q lightest of ``cand[:nc]`` (keys ``ckey[:nc]``, s) to the front, lightest first,
    ties (keys within :data:`TIE_S`, SM71) to the earlier candidate: the first q of a stable sort
    (line 16, SM62), found by inserting each candidate into the q kept so far (one that is not
    lighter than the last kept by more than the tolerance is rejected in one test)."""
    k = 0
    for a in range(nc):
        key = ckey[a]
        j = cand[a]
        if k == q:
            if key >= ckey[q - 1] - TIE_S:
                continue
        else:
            k += 1
        b = k - 1
        while b > 0 and ckey[b - 1] > key + TIE_S:
            ckey[b] = ckey[b - 1]
            cand[b] = cand[b - 1]
            b -= 1
        ckey[b] = key
        cand[b] = j


@njit(cache=True, inline="always")
def _lightest_bits(cand, ckey, nc, q, counts, work, bucket):
    """Line 16's q lightest of ``cand[:nc]`` (keys ``ckey[:nc]``, s; 0 < q < nc) as a bit set of
    receivers, found by counting, or -1 when a near tie at the cut could make :func:`_lightest`'s
    tolerance (SM71) decide: then the caller runs it.  ``counts`` (>= nc,) int64, ``work`` (>= nc,) and
    ``bucket`` (>= nc,) int64 are work space; ``cand`` and ``ckey`` are only read.  The keys' least and
    greatest values, then :func:`_lightest_in_span`.

    The keys are counted into nc buckets of [min, max] (a monotone map: a key not greater than another
    is in a bucket not above its bucket), the bucket holding the q-th smallest key k_q is sorted, and
    the keys <= k_q are taken.  Why :func:`_lightest` takes the same set: let S be the q keys <= k_q
    and H the others, all >= k_(q+1).  If k_q + TIE_S < k_(q+1) and k_q < k_(q+1) - TIE_S (float
    operations as in :func:`_lightest`, monotone in each key), every s in S and h in H have
    h > s + TIE_S and s < h - TIE_S, and s <= h <= h + TIE_S, s - TIE_S <= s < h; so an insertion
    moves a key of S past every key of H and a key of H past none of S: the kept list is always S's
    keys then H's, the last one evicted is of H unless all of S is kept (then a key of H is
    rejected), and no key of S is rejected (the list then holds a key of H, the last).  The kept set
    is S.  Otherwise (k_q = k_(q+1), keys within TIE_S of the cut, NaN or infinite keys, all keys
    equal) -1."""
    lo = np.inf
    hi = -np.inf
    bad = False
    for r in range(nc):
        key = ckey[r]
        bad |= key != key
        lo = min(lo, key)
        hi = max(hi, key)
    return _lightest_in_span(cand, ckey, nc, q, counts, work, bucket, lo, hi, bad)


@njit(cache=True, inline="always")
def _lightest_in_span(cand, ckey, nc, q, counts, work, bucket, lo, hi, bad):
    """:func:`_lightest_bits` given the keys' least and greatest values ``lo`` and ``hi`` and whether one is
    NaN (``bad``), which the caller found as it computed them; each candidate's bucket goes to ``bucket``."""
    span = hi - lo
    if bad or not (span > 0.0 and span < np.inf):
        return -1
    scale = nc / span
    for b in range(nc):
        counts[b] = 0
    for r in range(nc):
        b = min(int((ckey[r] - lo) * scale), nc - 1)
        bucket[r] = b
        counts[b] += 1
    below = 0                                           # keys in the buckets under the cut's
    cb = 0
    while below + counts[cb] < q:
        below += counts[cb]
        cb += 1
    m = 0
    for r in range(nc):                                 # the cut bucket's keys, sorted (about one)
        if bucket[r] == cb:
            key = ckey[r]
            a = m
            while a > 0 and work[a - 1] > key:
                work[a] = work[a - 1]
                a -= 1
            work[a] = key
            m += 1
    kq = work[q - below - 1]                            # the q-th smallest key
    kq1 = np.inf                                        # the smallest key above it
    cnt = 0
    bits = 0
    for r in range(nc):
        key = ckey[r]
        le = key <= kq
        cnt += le
        bits |= np.int64(le) << cand[r]
        kq1 = min(kq1, np.inf if le else key)
    if cnt != q or not (kq + TIE_S < kq1 and kq < kq1 - TIE_S):
        return -1
    return bits


@njit(cache=True, inline="always")
def _order_by_tau(n, in_g, order, tau, start, descending):
    """Line 13's L: the tasks ``i < n`` with ``in_g[i]`` into ``order[:m]`` by :func:`_before` (an insertion
    sort in id order, so ties keep id order); returns m = |G|."""
    m = 0
    for i in range(n):
        if in_g[i]:
            k = m
            while k > 0 and _before(i, order[k - 1], tau, start, descending):
                order[k] = order[k - 1]
                k -= 1
            order[k] = i
            m += 1
    return m


@njit(cache=True, inline="always")
def _pair(i, j):
    """The pair (i, j) of line 29 as one int64 (i << 32 | j; unpacked by :func:`_unpair`)."""
    return (i << 32) | j


@njit(cache=True, inline="always")
def _unpair(v):
    """(i, j) of a pair packed by :func:`_pair`."""
    return v >> 32, v & 0xFFFFFFFF


@njit(cache=True, inline="always")
def _sort_by_c(pk, pc, nC, cmax, slot, out, c):
    """Line 29's order of C: the pairs ``pk[:nC]`` (packed, :func:`_pair`) into ``out`` by ``pc[h]`` = c_ij
    (at most ``cmax``; ``c`` the (n, n) matrix) non-increasing, stable.  A counting sort in ``slot``'s
    buckets, one per value below top = len(slot) - 2 and one for every c_ij >= top (first in the order),
    whose pairs a stable insertion sort then orders by c_ij (none moves when cmax <= top, the usual case:
    top = n).  Allocates nothing (it runs once per call of :func:`_algorithm2_l3`)."""
    top = slot.shape[0] - 2
    cm = min(cmax, top)
    for b in range(cm + 2):
        slot[b] = 0
    for h in range(nC):
        slot[cm - min(pc[h], top) + 1] += 1
    for b in range(1, cm + 2):
        slot[b] += slot[b - 1]
    for h in range(nC):
        b = cm - min(pc[h], top)
        out[slot[b]] = pk[h]
        slot[b] += 1
    if cmax > top:                                      # c_ij >= top: out[:slot[0]], stable by c_ij
        for a in range(1, slot[0]):
            v = out[a]
            i, j = _unpair(v)
            cv = c[i, j]
            k = a
            while k > 0:
                i, j = _unpair(out[k - 1])
                if c[i, j] >= cv:
                    break
                out[k] = out[k - 1]
                k -= 1
            out[k] = v


@njit(cache=True, inline="always")
def _c_row_planes(c, i, planes):
    """Row i of c ((n, n) int64, >= 0; n <= BIG_SWITCH_MAX) into the bit planes ``planes[:, i]``: bit j of
    ``planes[b, i]`` is bit b of min(c_ij, C_SAT)."""
    n = c.shape[1]
    for b in range(C_BITS):
        bits = 0
        for j in range(n):
            bits |= ((min(c[i, j], C_SAT) >> b) & 1) << j
        planes[b, i] = bits


@njit(cache=True, _nrt=True)
def c_planes(c, planes):
    """c ((n, n) int64, >= 0; n <= BIG_SWITCH_MAX) as the bit planes :func:`_algorithm2_l3` reads: bit j of
    ``planes[b, i]`` ((C_BITS, n) int64, returned) is bit b of min(c_ij, C_SAT)."""
    for i in range(c.shape[0]):
        _c_row_planes(c, i, planes)
    return planes


@njit(cache=True, inline="always")
def c_planes_finish(planes, i, reset, full):
    """Row i of c on its bit planes (:func:`c_planes`) when task i's multicast ends (SM55): c_ij <- 0 for the j
    of the bit set ``reset`` (its receivers and i), c_ij <- c_ij + 1 for the other j of ``full`` (the n
    workers), a bit-sliced increment that keeps a value at C_SAT there (saturated, as min(c_ij, C_SAT))."""
    sat = full
    for b in range(C_BITS):
        sat &= planes[b, i]
    carry = full & ~reset & ~sat                        # the j that count one more, each below C_SAT
    for b in range(C_BITS):
        pl = planes[b, i]
        planes[b, i] = (pl ^ carry) & ~reset
        carry &= pl


@njit(cache=True, inline="always")
def _c_top(planes, i, bits):
    """The largest min(c_ij, C_SAT) over the j of the non-empty bit set ``bits`` (row i's planes, high bit first)."""
    v = 0
    for b in range(C_BITS - 1, -1, -1):
        t = bits & planes[b, i]
        if t != 0:
            bits = t
            v |= 1 << b
    return v


@njit(cache=True, inline="always")
def _c_equal(planes, i, bits, cv, nb):
    """The j of the bit set ``bits`` with c_ij = ``cv``, given every c_ij of ``bits`` below 2 ** ``nb`` (< C_SAT)."""
    for b in range(nb):
        pl = planes[b, i]
        bits &= pl if (cv >> b) & 1 else ~pl
    return bits


@njit(cache=True, _nrt=False)
def _algorithm2(kappa, plan, rules, out):
    """Algorithm 2 for ``kappa`` on ``plan`` (a :class:`Plan`, updated in place) read by ``rules``
    (:class:`Rules`); the order of G and the deadlines go to ``out`` (:class:`Scratch`, whose
    other arrays are work space).  Returns |G|."""
    x, vrem, v, p, b_in, b_eg, tau, c, due, in_g, start = plan
    eta, l3, descending, line32_x, deadline_all = rules
    y, order, deadline, load, lratio, dl_min, xload, count, s, cand, ckey, pi, pc, ci, slot, _ = out
    n = x.shape[0]
    # ---- Initialization ------------------------------------------------------------------
    for j in range(n):                                  # 1: for each j in N \ {kappa}
        if j != kappa:
            x[kappa, j] = 1                             # 2: x_kj <- 1
            vrem[kappa, j] = v[kappa]                   # 2: v_kj <- v_k (printed v_i; SM53)
    in_g[kappa] = True                                  # 4: G <- G u {kappa}
    m = _order_by_tau(n, in_g, order, tau, start, descending)  # 13: L <- G sorted by tau (insertion)
    # ---- Basic selection ---------------------------------------------------------------
    for j in range(n):
        load[j] = 0.0                                   # sum_l v_lj y_lj, kept current
    for i in range(n):                                  # 5-7: y <- 0 (rows outside G stay 0 in x)
        if not in_g[i]:                                 # (G in id order: the order load_j is summed in)
            continue
        cnt = 0
        keep = eta * v[i]
        for j in range(n):                              # 8: for (i, j) with x_ij = 1
            kept = (x[i, j] == 1) & (due[i, j] | (vrem[i, j] < keep))  # 9 (branch-free: y_ij = 0 or 1)
            y[i, j] = kept                              # 10
            load[j] += vrem[i, j] if kept else 0.0      # (load_j >= 0: adding 0.0 changes no bit)
            cnt += kept
        count[i] = cnt                                  # sum_j y_ij
    for a in range(m):                                  # 14: for each i in L
        i = order[a]
        q = p[i] - count[i]                             # 15
        if q <= 0:
            continue
        nc = 0
        for j in range(n):                              # 16: candidates {j : x_ij = 1} not yet chosen
            cand[nc] = j
            nc += (x[i, j] == 1) & (y[i, j] == 0)
        # 16: the q lightest loaded.  Choosing j changes only load_j, so the other candidates'
        # loads stay put while i chooses: the first q of a stable sort give the same picks as
        # choosing one at a time, ties to the lower worker id (SM62)
        if q < nc:
            for r in range(nc):
                j = cand[r]
                ckey[r] = (vrem[i, j] + load[j]) / b_eg[j]
            # the q lightest by counting for n <= BIG_SWITCH_MAX (the same set; xload and lratio are free
            # here), else or near a tie by _lightest's insertion
            took = _lightest_bits(cand, ckey, nc, q, slot, xload, pi) if n <= BIG_SWITCH_MAX else -1
            if took >= 0:
                count[i] += q
                while took != 0:                        # 17-18 (each j once: the order changes no bit)
                    j = lowest_bit(took)
                    took &= took - 1
                    y[i, j] = 1
                    load[j] += vrem[i, j]
                continue
            _lightest(cand, ckey, nc, q)
        else:
            q = nc
        for r in range(q):
            j = cand[r]
            y[i, j] = 1                                 # 17-18
            load[j] += vrem[i, j]
            count[i] += 1
    # ---- Pareto improvement ------------------------------------------------------------
    for j in range(n):                                  # r_j / b_j^E with r_j = sum_l v_lj y_lj (25-26)
        lratio[j] = load[j] / b_eg[j]
    for a in range(m):                                  # 21: for each i in L
        i = order[a]
        si = 0.0
        tr = 0.0
        for j in range(n):                              # 22: s_i via Eq. (9); 24-26: max r_j / b_j^E
            on = y[i, j] == 1                           # (branch-free: off-plan pairs count as 0 bits,
            vij = vrem[i, j] if on else 0.0             # which changes neither a max nor a sum of >= 0)
            si = max(si, vij) if l3 else si + vij
            tr = max(tr, lratio[j] if on else 0.0)
        s[i] = si
        deadline[i] = max(max(tau[i], si / b_in[i]), tr)  # 23-27
    for j in range(n):
        dl_min[j] = np.inf                              # min deadline of tasks with y_lj = 1 ("all" only)
    if deadline_all:
        for a in range(m):
            i = order[a]
            for j in range(n):
                if y[i, j] == 1 and deadline[i] < dl_min[j]:
                    dl_min[j] = deadline[i]
    if line32_x:                                        # sum_l v_lj x_lj (line 32 as printed)
        for j in range(n):
            xload[j] = 0.0
        for i in range(n):
            if in_g[i]:
                for j in range(n):
                    if x[i, j] == 1:
                        xload[j] += vrem[i, j]
    # 29: C <- {(i, j): x_ij = 1, y_ij = 0}, collected in (L, j) order, then put in
    # non-increasing c_ij by a stable counting sort (ties: L order of i, then j; SM62)
    nC = 0
    cmax = 0
    for a in range(m):
        i = order[a]
        for j in range(n):
            inc = (x[i, j] == 1) & (y[i, j] == 0)
            cij = c[i, j]
            pi[nC] = _pair(i, j)
            pc[nC] = cij
            nC += inc
            cmax = max(cmax, cij if inc else 0)
    _sort_by_c(pi, pc, nC, cmax, slot, ci, c)           # 29: C by c_ij non-increasing, stable
    for h in range(nC):                                 # 30: for each (i, j) in C
        i, j = _unpair(ci[h])
        si = max(s[i], vrem[i, j]) if l3 else s[i] + vrem[i, j]   # 31: s_i provided y_ij <- 1
        rj = (xload[j] if line32_x else load[j] + vrem[i, j])    # 32: r_j provided y_ij <- 1
        ok = deadline[i] >= si / b_in[i] and deadline[i] >= rj / b_eg[j]  # 33
        if ok and deadline_all and dl_min[j] < rj / b_eg[j]:
            ok = False
        if ok:
            y[i, j] = 1                                 # 34
            load[j] += vrem[i, j]
            s[i] = si
            if deadline[i] < dl_min[j]:
                dl_min[j] = deadline[i]
    for a in range(m):                                  # 37-39: x <- y
        i = order[a]
        for j in range(n):
            x[i, j] = y[i, j]
    return m


@njit(cache=True, _nrt=False)
def _algorithm2_l3(kappa, plan, rules, out, rem, xbits, ybits, dbits, cplanes):
    """:func:`_algorithm2` under L3 on bit sets of receivers, for the SSP loop (issue 48 item 1): the same
    plan x, G and order of G, bit for bit, for the loop's inputs; returns |G|.

    L3 sends one flow per task, so every receiver of task i has the same bits left: ``vrem[i, j] =
    rem[i]`` for i in G (the loop's remaining volumes, (n,), bits; v_kappa for kappa, line 2), which this
    routine reads instead of ``vrem`` (not written).  ``xbits`` (n,) int64: task i's row of x as a bit set
    (bit j: x_ij = 1) for i in G (the loop's receiver sets, N18; kappa's is not read); ``ybits`` (n,)
    int64 is written with the new rows of G and kappa (x after line 39).  ``dbits`` (n,) int64: row i of the
    forced pairs D as a bit set (bit j: (i, j) in D, ``plan.due``) for i in G and kappa, which line 9 reads
    instead of ``due`` (the loop keeps them where D changes).  ``cplanes`` (C_BITS, n) int64: c as bit planes
    (:func:`c_planes`; the loop keeps them where c changes, :func:`c_planes_finish`), from which line 29's
    order is read.  n <= BIG_SWITCH_MAX, line 33's
    reading "own" (``rules.deadline_all`` False); line 32 either reading (as printed, "x": its sum over G's
    rows of x, each task's rem[i] per set bit, in id order as the array routine sums it).

    Why the same bits: a task with rem[i] < eta v_i keeps its whole row at line 9 (y_i = x_i), so it has no
    candidate at line 16 and no pair in C at line 29: its only part is its loads, added in id order as
    before; only the other tasks and kappa are planned (lines 14-39), each pass visiting the set bits of
    its rows in increasing j, the order :func:`_algorithm2` visits them.  A pair off the plan adds 0.0 to a
    load and takes max(., 0.0) of s_i and of the largest r_j / b_j^E, which changes no value (a load is
    +0.0 or more, ``max`` keeps its first argument unless the second is greater), so skipping it changes no
    bit.  Deadlines t_i go to ``out.deadline`` for the tasks with a pair in x not in y only (line 33 "own"
    reads no other), NaN for the others; ``out.y`` and ``out.s`` are not written.  Line 33's ingress test
    reads s_i provided y_ij <- 1, max(s_i, v_ij) = max(s_i, rem_i), the same for every pair of task i before
    and after one is added (s_i becomes that max), so it is made once per task, and a task that fails it
    puts no pair in C (its pairs would change nothing; the others keep their order).

    Line 29's order of C (c_ij non-increasing, ties in (L, j) order: a stable sort of the pairs collected
    in (L, j) order) is read from c's bit planes without a sort: for each value of c_ij from the largest in
    C down to 0, the tasks in L order, each one's pairs of that value in increasing j -- the same pairs in
    the same order, so lines 30-36 make the same operations.  Where a c_ij of C is at or above C_SAT (the
    planes do not hold it) the pairs are collected and sorted by :func:`_sort_by_c` (issue 48)."""
    x, vrem, v, p, b_in, b_eg, tau, c, due, in_g, start = plan
    eta, l3, descending, line32_x, deadline_all = rules
    y, order, deadline, load, lratio, dl_min, xload, count, s, cand, ckey, pi, pc, ci, slot, crest = out
    n = x.shape[0]
    full = ((1 << n) - 1) & ~(1 << kappa)               # 1-2: x_kj <- 1 for j != kappa (x_kj = 0 before)
    rk = v[kappa]                                       # 2: v_kj <- v_k
    in_g[kappa] = True                                  # 4
    m = _order_by_tau(n, in_g, order, tau, start, descending)  # 13: L <- G sorted by tau (insertion)
    # ---- Basic selection (5-12): y_i = x_i if rem_i < eta v_i, else its forced pairs ----------------
    for j in range(n):
        load[j] = 0.0
    for i in range(n):                                  # G in id order: the order load_j is summed in
        if not in_g[i]:
            continue
        xi = full if i == kappa else xbits[i]
        ri = rk if i == kappa else rem[i]
        if ri < eta * v[i]:                             # 9: v_ij < eta v_i for every j of the row
            yi = xi
        else:
            yi = xi & dbits[i]                          # 9: (i, j) in D
        ybits[i] = yi
        count[i] = popcount(yi)
        b = yi
        while b != 0:
            j = lowest_bit(b)
            b &= b - 1
            load[j] += ri
    for a in range(m):                                  # 14: for each i in L
        i = order[a]
        q = p[i] - count[i]                             # 15
        if q <= 0:
            continue
        xi = full if i == kappa else xbits[i]
        ri = rk if i == kappa else rem[i]
        yi = ybits[i]
        nc = 0
        b = xi & ~yi
        while b != 0:                                   # 16: candidates, increasing j
            cand[nc] = lowest_bit(b)
            b &= b - 1
            nc += 1
        if q < nc:
            lo = np.inf                                 # the keys' span, for the counting below
            hi = -np.inf
            bad = False
            for r in range(nc):
                j = cand[r]
                key = (ri + load[j]) / b_eg[j]
                ckey[r] = key
                bad |= key != key
                lo = min(lo, key)
                hi = max(hi, key)
            # 16: the q lightest by counting (the same set; lratio, xload and pi are free here), or by
            # _lightest's insertion when a near tie at the cut could make its tolerance decide
            took = _lightest_in_span(cand, ckey, nc, q, slot, xload, pi, lo, hi, bad)
            if took < 0:
                _lightest(cand, ckey, nc, q)
                took = 0
                for r in range(q):
                    took |= 1 << cand[r]
        else:
            q = nc
            took = xi & ~yi
        yi |= took                                      # 17-18
        b = took
        while b != 0:
            j = lowest_bit(b)
            b &= b - 1
            load[j] += ri
        count[i] += q
        ybits[i] = yi
    # ---- Pareto improvement (tasks with a pair in C only) --------------------------------------------
    for j in range(n):                                  # r_j / b_j^E (25-26)
        lratio[j] = load[j] / b_eg[j]
    if line32_x:                                        # sum_l v_lj x_lj (line 32 as printed): G's rows
        for j in range(n):                              # of x before line 39, in id order as summed there
            xload[j] = 0.0
        for i in range(n):
            if in_g[i]:
                ri = rk if i == kappa else rem[i]
                b = full if i == kappa else xbits[i]
                while b != 0:
                    j = lowest_bit(b)
                    b &= b - 1
                    xload[j] += ri
    nt = 0                                              # the tasks with pairs in C, in L order (cand),
    top = 0                                             # and those pairs (crest); the largest c_ij among them
    for a in range(m):                                  # 21: for each i in L
        i = order[a]
        xi = full if i == kappa else xbits[i]
        yi = ybits[i]
        rest = xi & ~yi
        if rest == 0:
            deadline[i] = np.nan
            continue
        ri = rk if i == kappa else rem[i]
        si = ri if yi != 0 and ri > 0.0 else 0.0        # 22: max over y_ij = 1 of v_ij (from 0.0)
        tr = 0.0
        b = yi
        while b != 0:                                   # 24-26
            j = lowest_bit(b)
            b &= b - 1
            tr = max(tr, lratio[j])
        deadline[i] = max(max(tau[i], si / b_in[i]), tr)  # 23-27
        if not deadline[i] >= max(si, ri) / b_in[i]:    # 31, 33: i's ingress fails for each of its pairs
            continue                                    # (s_i stays max(si, ri) once one is added): none in C
        cand[nt] = i                                    # 29: C's pairs of i
        crest[nt] = rest
        nt += 1
        top = max(top, _c_top(cplanes, i, rest))
    if top < C_SAT:                                     # 29-30: C by c_ij non-increasing, ties in (L, j) order
        nb = 0
        while (1 << nb) <= top:
            nb += 1
        for cv in range(top, -1, -1):
            for a in range(nt):
                i = cand[a]
                ri = rk if i == kappa else rem[i]
                b = _c_equal(cplanes, i, crest[a], cv, nb)
                while b != 0:
                    j = lowest_bit(b)
                    b &= b - 1
                    rj = xload[j] if line32_x else load[j] + ri     # 32
                    if deadline[i] >= rj / b_eg[j]:     # 33 (its ingress part held when (i, j) entered C)
                        ybits[i] |= 1 << j              # 34
                        load[j] += ri
    else:                                               # (a c_ij of C at or above C_SAT: sorted by value)
        # lines 30-34 below repeat the bit-plane path's: one shared @njit helper for them, inlined by numba
        # or by LLVM, made whole SelMcast runs 0.74x and 0.62x as fast (ab_ssp_kernel.py, 2026-12-01)
        nC = 0
        cmax = 0
        for a in range(nt):                             # 29: C in (L, j) order
            i = cand[a]
            rest = crest[a]
            while rest != 0:
                j = lowest_bit(rest)
                rest &= rest - 1
                cij = c[i, j]
                pi[nC] = _pair(i, j)
                pc[nC] = cij
                nC += 1
                cmax = max(cmax, cij)
        _sort_by_c(pi, pc, nC, cmax, slot, ci, c)       # 29: C by c_ij non-increasing, stable
        for h in range(nC):                             # 30: for each (i, j) in C
            i, j = _unpair(ci[h])
            ri = rk if i == kappa else rem[i]
            rj = xload[j] if line32_x else load[j] + ri     # 32
            if deadline[i] >= rj / b_eg[j]:             # 33 (its ingress part held when (i, j) entered C)
                ybits[i] |= 1 << j                      # 34
                load[j] += ri
    for a in range(m):                                  # 37-39: x <- y (only changed pairs written)
        i = order[a]
        xi = 0 if i == kappa else xbits[i]              # (kappa's row of x is still 0 in memory)
        b = xi ^ ybits[i]
        while b != 0:
            j = lowest_bit(b)
            b &= b - 1
            x[i, j] = (ybits[i] >> j) & 1
    return m


def select_ssp(kappa: int, plan: Plan, *, eta: float = 0.75, layer: str = "L3",
               task_order: str = "pseudocode", line32: str = "y", pareto_deadline: str = "own",
               check: bool = True):
    """Run Algorithm 2 for the newly ready worker ``kappa``; update the plan in place.

    ``plan`` (:class:`Plan`, n workers): ``x`` (n, n) int8 current plan (x_ij = 1: j is still a
    receiver of i's ongoing multicast; rows of workers not in G are 0);
    ``vrem`` (n, n) float bits not yet delivered from i to j (read where
    x_ij = 1); ``v`` (n,) bits of each multicast; ``p`` (n,) int minimum
    receivers; ``b_in``/``b_eg`` (n,) ingress/egress bandwidth (bits/s);
    ``tau`` (n,) seconds each task's worker would still wait at the SSP gate
    if its multicast ended now; ``c`` (n, n) int rounds since i last delivered
    to j; ``due`` (n, n) bool, the forced pairs D; ``in_g`` (n,) bool, the
    ongoing tasks G; ``start`` (n,) task start times (ties of line 13).

    In place: ``x[kappa]`` and ``vrem[kappa]`` are initialised (lines 1-3),
    ``in_g[kappa]`` set (line 4) and ``x`` replaced by the new plan y (lines
    37-39).  Returns ``(order, deadline)``: the tasks of G in the order
    Algorithm 2 processed them (int64 array; the strict-priority order, SM50)
    and each task's deadline t_i (seconds; NaN outside G).

    ``eta`` in [0, 1] (the eta rule of line 9), ``layer`` "L3" (s_i = max) or
    "L7" (s_i = sum) as in Eq. (9); ``task_order``, ``line32`` and
    ``pareto_deadline`` select readings of the paper (see the module constants).
    ``check=False`` skips input validation (the simulator's hot loop).
    """
    x, vrem, v, p, b_in, b_eg, tau, c, due, in_g, start = plan
    n = x.shape[0]
    if check:
        kappa = check_int("kappa", kappa, 0, n - 1)
        eta = check_real("eta", eta, 0.0, 1.0)
        check_choice("layer", layer, ("L3", "L7"))
        check_choice("task_order", task_order, TASK_ORDERS)
        check_choice("line32", line32, LINE32_READINGS)
        check_choice("pareto_deadline", pareto_deadline, PARETO_DEADLINES)
        for name, arr, dt in (("x", x, np.int8), ("vrem", vrem, np.float64), ("c", c, np.int64),
                              ("due", due, np.bool_)):
            if arr.shape != (n, n) or arr.dtype != dt:
                raise ValueError(f"{name} must be a ({n}, {n}) {np.dtype(dt).name} array, "
                                 f"got {arr.shape} {arr.dtype}")
        for name, arr, dt in (("v", v, np.float64), ("p", p, np.int64), ("b_in", b_in, np.float64),
                              ("b_eg", b_eg, np.float64), ("tau", tau, np.float64),
                              ("in_g", in_g, np.bool_), ("start", start, np.float64)):
            if arr.shape != (n,) or arr.dtype != dt:
                raise ValueError(f"{name} must be a ({n},) {np.dtype(dt).name} array, "
                                 f"got {arr.shape} {arr.dtype}")
        if in_g[kappa]:
            raise ValueError(f"kappa must not already be multicasting (in_g[{kappa}] is True)")
        if np.any(np.diagonal(due)):
            raise ValueError("due must have a False diagonal (x_ii = 0, Eq. 4)")
        if np.any(b_in <= 0) or np.any(b_eg <= 0):
            raise ValueError("b_in and b_eg must be > 0 bits/s")
        if np.any(p < 1) or np.any(p > n - 1):
            raise ValueError(f"p must be in [1, {n - 1}]")
    out = scratch(n)
    rules = Rules(eta=float(eta), l3=layer == "L3", descending=task_order == "text", line32_x=line32 == "x",
                  deadline_all=pareto_deadline == "all")
    m = _algorithm2(kappa, plan, rules, out)
    return out.order[:m], out.deadline


# a module this one imports may change compiled code (simlib.core.jitcache)
jitcache.track(globals())
