"""Rate allocation for the flow-level network: max-min fairness with strict priorities.

Two independent implementations:

* :func:`allocate_rates` — the production solver, compiled with numba.  It is
  the bottleneck-link form of progressive filling: repeatedly take the link
  whose fair share ``remaining capacity / unfrozen flows`` is smallest, freeze
  its flows at that share, and charge the share to every other link those
  flows cross.  A lazy binary heap keyed by fair share finds that link; shares
  only grow as flows freeze (``(r - s)/(n - 1) >= r/n`` when ``s <= r/n``),
  so stale heap entries are simply skipped.  Cost per call is
  ``O(nnz log nnz)`` with ``nnz`` the flow-link incidences.
* :func:`reference_rates` — a textbook water-filling in exact rational
  arithmetic (``fractions.Fraction``): raise every unfrozen flow's rate by
  the same increment until some link saturates, freeze the flows on saturated
  links, repeat.  Slow; used by tests as the brute-force reference.

Strict priority classes (lower number = higher priority) are served in
order: each class is max-min-shared over the capacity the classes above it
left, which is work-conserving and never lets a lower class take capacity a
higher class could use.  FCFS is the special case where each flow's class is
its arrival order.

Units: capacities and rates in bits/s.  A flow that crosses no link gets an
infinite rate (it has nothing to wait for).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import numpy as np
from numba import njit

__all__ = ["allocate_rates", "reference_rates"]

# Classes touching at most this many links find the bottleneck by a linear
# scan (O(links) per bottleneck, cache-friendly); larger ones use the heap.
SCAN_MAX_LINKS = 1024


@njit(cache=True, inline="always")
def _heap_swap(hkey, hlink, hver, i, j):
    hkey[i], hkey[j] = hkey[j], hkey[i]
    hlink[i], hlink[j] = hlink[j], hlink[i]
    hver[i], hver[j] = hver[j], hver[i]


@njit(cache=True)
def _heap_push(hkey, hlink, hver, size, key, link, ver):
    i = size
    hkey[i] = key
    hlink[i] = link
    hver[i] = ver
    while i > 0:
        parent = (i - 1) >> 1
        if hkey[parent] <= hkey[i]:
            break
        _heap_swap(hkey, hlink, hver, parent, i)
        i = parent
    return size + 1


@njit(cache=True)
def _heap_pop(hkey, hlink, hver, size):
    """Remove the root; caller has already read it. Returns the new size."""
    size -= 1
    hkey[0] = hkey[size]
    hlink[0] = hlink[size]
    hver[0] = hver[size]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        child = left
        right = left + 1
        if right < size and hkey[right] < hkey[left]:
            child = right
        if hkey[i] <= hkey[child]:
            break
        _heap_swap(hkey, hlink, hver, child, i)
        i = child
    return size


@njit(cache=True)
def _allocate(cap, fstart, fend, fidx, flows, prio, rates, scan_max_links, blink):
    """Fill ``rates[f]`` for every flow id in ``flows`` (see module docstring).

    ``fidx[fstart[f]:fend[f]]`` are the links of flow ``f``; entries < 0 are
    removed links (tombstones).  ``flows`` must be sorted by (prio, id).
    ``blink[f]`` receives the link at which flow ``f`` was frozen (its
    bottleneck; -1 for a flow without links).
    """
    n_links = cap.shape[0]
    n_flows_total = rates.shape[0]
    rem = cap.copy()
    cnt = np.zeros(n_links, np.int64)   # unfrozen flows of the current class on the link
    deg = np.zeros(n_links, np.int64)   # flows of the current class on the link
    off = np.zeros(n_links, np.int64)   # start of the link's slice in tflows
    pos = np.zeros(n_links, np.int64)
    ver = np.zeros(n_links, np.int64)
    frozen = np.zeros(n_flows_total, np.bool_)
    touched = np.empty(n_links, np.int64)
    fair = np.empty(n_links, np.float64)  # rem / cnt, kept current in scan mode

    nnz = 0
    for k in range(flows.shape[0]):
        f = flows[k]
        nnz += fend[f] - fstart[f]
    tflows = np.empty(max(nnz, 1), np.int64)
    hcap = nnz + n_links + 1
    hkey = np.empty(hcap, np.float64)
    hlink = np.empty(hcap, np.int64)
    hver = np.empty(hcap, np.int64)

    m = flows.shape[0]
    a = 0
    while a < m:
        # the class is flows[a:b]
        b = a + 1
        while b < m and prio[flows[b]] == prio[flows[a]]:
            b += 1
        n_touched = 0
        for k in range(a, b):
            f = flows[k]
            has_link = False
            for j in range(fstart[f], fend[f]):
                l = fidx[j]
                if l < 0:
                    continue
                has_link = True
                if deg[l] == 0:
                    touched[n_touched] = l
                    n_touched += 1
                deg[l] += 1
            if not has_link:
                rates[f] = np.inf
                blink[f] = -1
                frozen[f] = True
        # transpose the class's incidence (link -> flows)
        total = 0
        for t in range(n_touched):
            l = touched[t]
            off[l] = total
            pos[l] = total
            cnt[l] = deg[l]
            total += deg[l]
        for k in range(a, b):
            f = flows[k]
            for j in range(fstart[f], fend[f]):
                l = fidx[j]
                if l >= 0:
                    tflows[pos[l]] = f
                    pos[l] += 1
        use_heap = n_touched > scan_max_links
        size = np.int64(0)  # not 0: a literal also compiles _heap_push/_heap_pop for Literal[int](0) (S33)
        if use_heap:
            for t in range(n_touched):
                l = touched[t]
                ver[l] += 1
                size = _heap_push(hkey, hlink, hver, size, rem[l] / cnt[l], l, ver[l])
        if not use_heap:
            for t in range(n_touched):
                l = touched[t]
                fair[l] = rem[l] / cnt[l]
        n_live = n_touched  # scan mode: touched[:n_live] are links with cnt > 0
        while True:
            if use_heap:
                if size == 0:
                    break
                share = hkey[0]
                l = hlink[0]
                v = hver[0]
                size = _heap_pop(hkey, hlink, hver, size)
                if v != ver[l] or cnt[l] == 0:
                    continue
            else:
                # linear scan for the smallest fair share; drop links that emptied
                best = -1
                share = np.inf
                t = 0
                while t < n_live:
                    l2 = touched[t]
                    if cnt[l2] == 0:
                        n_live -= 1
                        touched[t], touched[n_live] = touched[n_live], touched[t]
                        continue
                    s2 = fair[l2]
                    if s2 < share:
                        share = s2
                        best = l2
                    t += 1
                if best < 0:
                    break
                l = best
            for i in range(off[l], off[l] + deg[l]):
                f = tflows[i]
                if frozen[f]:
                    continue
                frozen[f] = True
                rates[f] = share
                blink[f] = l
                for j in range(fstart[f], fend[f]):
                    l2 = fidx[j]
                    if l2 < 0:
                        continue
                    r = rem[l2] - share
                    rem[l2] = r if r > 0.0 else 0.0
                    cnt[l2] -= 1
                    ver[l2] += 1
                    if not use_heap:
                        if cnt[l2] > 0:
                            fair[l2] = rem[l2] / cnt[l2]
                    elif l2 != l and cnt[l2] > 0:
                        size = _heap_push(hkey, hlink, hver, size, rem[l2] / cnt[l2], l2, ver[l2])
            cnt[l] = 0
            ver[l] += 1
        for t in range(n_touched):
            deg[touched[t]] = 0
        a = b


def _zeros_like_prio(n: int) -> np.ndarray:
    return np.zeros(n, dtype=np.int64)


def allocate_rates(
    capacities: np.ndarray,
    fstart: np.ndarray,
    fend: np.ndarray,
    fidx: np.ndarray,
    flows: np.ndarray,
    prio: np.ndarray | None = None,
    rates: np.ndarray | None = None,
    scan_max_links: int = SCAN_MAX_LINKS,
    bottleneck: np.ndarray | None = None,
) -> np.ndarray:
    """Max-min fair rates (bits/s) with strict priority classes.

    Parameters
    ----------
    capacities : float array, shape (L,)
        Link capacities in bits/s (>= 0).
    fstart, fend, fidx : int arrays
        Flow ``f`` crosses links ``fidx[fstart[f]:fend[f]]`` (negative entries
        are ignored: removed links).
    flows : int array
        The flow ids to allocate (others are left untouched in ``rates``).
    prio : int array indexed by flow id, optional
        Priority class per flow, 0 = highest.  ``None`` = one class.
    rates : float array, optional
        Output buffer indexed by flow id (allocated if omitted).
    scan_max_links : int
        Classes touching at most this many links use the linear-scan search
        for the bottleneck, larger ones the heap (same result; speed only).
    bottleneck : int array indexed by flow id, optional
        Output: the link at which each allocated flow was frozen (a saturated
        link on which it has the largest rate of its class; -1 for a flow
        without links).  The incremental engine of
        :mod:`simlib.core.network` keeps it between updates.

    Returns the ``rates`` array.
    """
    flows = np.asarray(flows, dtype=np.int64)
    n_total = int(fstart.shape[0])
    if rates is None:
        rates = np.zeros(n_total, dtype=np.float64)
    ascending = flows.size < 2 or bool(np.all(flows[1:] > flows[:-1]))
    if prio is None or flows.size == 0:
        prio_arr = _zeros_like_prio(n_total)
        order = flows if ascending else np.sort(flows)
    else:
        prio_arr = np.asarray(prio, dtype=np.int64)
        p = prio_arr[flows]
        if p.min() == p.max():
            order = flows if ascending else np.sort(flows)
        else:
            order = flows[np.lexsort((flows, p))]
    if bottleneck is None:
        bottleneck = np.empty(n_total, dtype=np.int64)
    _allocate(np.asarray(capacities, dtype=np.float64), fstart, fend, fidx, order,
              prio_arr, rates, int(scan_max_links), bottleneck)
    return rates


def reference_rates(
    capacities: Sequence,
    flow_links: Sequence[Sequence[int]],
    priorities: Sequence[int] | None = None,
) -> list[Fraction]:
    """Exact max-min rates by textbook water-filling in rational arithmetic.

    ``flow_links[f]`` lists the links flow ``f`` crosses; ``priorities[f]`` its
    class (0 = highest).  Returns one ``Fraction`` (or ``inf`` for a flow with
    no links) per flow.  Intended for tests: O(F * L) per filling step.
    """
    caps = [Fraction(c) for c in capacities]
    n = len(flow_links)
    prios = [0] * n if priorities is None else list(priorities)
    rates: list = [Fraction(0)] * n
    residual = list(caps)
    for cls in sorted(set(prios)):
        members = [f for f in range(n) if prios[f] == cls]
        used = [Fraction(0)] * len(caps)
        active = set()
        for f in members:
            if len(flow_links[f]) == 0:
                rates[f] = float("inf")
            else:
                active.add(f)
        while active:
            n_active = [0] * len(caps)
            for f in active:
                for l in set(flow_links[f]):
                    n_active[l] += 1
            inc = min((residual[l] - used[l]) / n_active[l]
                      for l in range(len(caps)) if n_active[l] > 0)
            for f in active:
                rates[f] += inc
                for l in set(flow_links[f]):
                    used[l] += inc
            saturated = {l for l in range(len(caps)) if n_active[l] > 0 and used[l] == residual[l]}
            active = {f for f in active if not saturated.intersection(flow_links[f])}
        residual = [residual[l] - used[l] for l in range(len(caps))]
    return rates
