"""System metrics of seed 000 §IV-A2, derived from a :class:`~simlib.runtime.log.ScheduleLog`.

Exact definitions (decision E4 in docs/decisions/selective_reduce_experiments.md):

* ``avg_sync_time_s`` — mean over synchronizations that *finished* within the
  run (the simulation stops at ``duration``, so nothing finishes later) of (finish − launch): the all-reduce itself, excluding any time workers
  waited in the queue before the launch (as in Fig. 3).
* ``avg_sync_scale`` — mean number of workers in those synchronizations.
* ``total_sync`` — number of those synchronizations (group operations).
* ``total_iteration`` — local iterations (compute phases) finished by all
  workers within the run.
* ``wasted_wait_s_per_worker`` — mean over workers of :func:`wasted_wait`
  (0 for controllers that never hold workers back).
* ``controller_rounds`` — the log's ``controller_rounds`` counter (scheduling
  passes of controllers that count them, else 0).
"""
from __future__ import annotations

import bisect
from collections import defaultdict
from itertools import chain

import numpy as np
from numba import njit

from simlib.runtime.log import ScheduleLog

__all__ = ["sync_metrics", "wasted_wait", "wasted_wait_python", "METRICS", "gradient_staleness", "update_times"]

METRICS = ("avg_sync_time_s", "avg_sync_scale", "total_sync", "total_iteration",
           "wasted_wait_s_per_worker")


def wasted_wait(log: ScheduleLog) -> np.ndarray:
    """Per-worker wasted wait (s) of seed 000 Fig. 7 (decision E5).

    A hold of worker ``w`` starts at its first logged hold time ``t0`` after
    its previous launch and ends when ``w`` launches at ``t1``.  The hold was
    useful if the launched group contains a worker that became ready after
    ``t0``; otherwise ``t1 - t0`` is wasted.  Holds still open at the end of
    the run are not counted.

    Computed by a compiled loop over the log's flattened holds, compute ends and
    syncs (:func:`_wasted_wait_kernel`): the same comparisons and the same
    additions in the same order as the reference :func:`wasted_wait_python`, so
    the same values bit for bit (tested); a log the flat arrays do not cover
    (a worker id outside ``[0, n)``, a member without any compute end whose
    ready time is needed) takes the reference.  A cluster's logs never reach the
    reference's ``ends[-1]`` for a member with no compute end at or before the
    launch: ``Cluster.launch`` takes READY workers only (tested on simulated logs).
    """
    if not log.holds:
        return np.zeros(log.n)
    flat = _flatten(log)
    if flat is None:
        return wasted_wait_python(log)
    out = np.zeros(log.n)
    if _wasted_wait_kernel(log.n, *flat, out) < 0:
        return wasted_wait_python(log)
    return out


def _flatten(log: ScheduleLog):
    """``(hptr, htimes, eptr, ends, sptr, members, launch)``: worker ``w``'s hold times in log order
    ``htimes[hptr[w]:hptr[w+1]]``, its compute ends ``ends[eptr[w]:eptr[w+1]]``, sync ``i``'s members
    ``members[sptr[i]:sptr[i+1]]`` and launch ``launch[i]``; None where a worker id is not an integer in
    ``[0, n)`` or ``compute_end`` does not have ``n`` lists (the reference handles those as Python does)."""
    n = log.n
    if len(log.compute_end) != n:
        return None
    try:
        holds = log.holds
        hold = np.fromiter(chain.from_iterable(holds), dtype=float)
        if hold.size != 2 * len(holds):              # not (time, worker) pairs: Python's unpacking error
            return None
        hold = hold.reshape(-1, 2)
        syncs = log.syncs
        sizes = np.fromiter((len(s.members) for s in syncs), dtype=np.int64, count=len(syncs))
        members = np.fromiter(chain.from_iterable(s.members for s in syncs), dtype=np.int64, count=int(sizes.sum()))
        launch = np.fromiter((s.launch for s in syncs), dtype=float, count=len(syncs))
        elen = np.fromiter(map(len, log.compute_end), dtype=np.int64, count=n)
        ends = np.fromiter(chain.from_iterable(log.compute_end), dtype=float, count=int(elen.sum()))
    except (TypeError, ValueError, OverflowError):
        return None
    ht, hwf = hold[:, 0], hold[:, 1]
    # a hold's worker matches a member as a dict key does (1.0 == 1 == True); others are not covered
    if not ((hwf >= 0) & (hwf < n) & (hwf == np.floor(hwf))).all() or ((members < 0) | (members >= n)).any():
        return None
    hw = hwf.astype(np.int64)
    order = np.argsort(hw, kind="stable")          # each worker's holds in log order
    hptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(hw, minlength=n), out=hptr[1:])
    sptr = np.zeros(len(syncs) + 1, dtype=np.int64)
    np.cumsum(sizes, out=sptr[1:])
    eptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(elen, out=eptr[1:])
    return hptr, ht[order], eptr, ends, sptr, members, launch


@njit(cache=True)
def _bisect_right(a, lo, hi, x):
    """``bisect.bisect_right(a[lo:hi], x)``: the same probes (``lo`` is added to both ends of CPython's
    search, which shifts every midpoint by ``lo``), so the same index whether or not the run is sorted."""
    left, right = lo, hi
    while left < right:
        mid = (left + right) // 2
        if x < a[mid]:
            right = mid
        else:
            left = mid + 1
    return left - lo


@njit(cache=True)
def _wasted_wait_kernel(n, hptr, htimes, eptr, ends, sptr, members, launch, out):
    """:func:`wasted_wait_python` on :func:`_flatten`'s arrays, adding into ``out`` (n,); returns 0, or −1
    when a member's ready time is needed and it has no compute end (Python's ``IndexError``: the caller
    takes the reference)."""
    last = np.full(n, -np.inf)
    for i in range(launch.size):
        t1 = launch[i]
        have = False
        newest = 0.0
        for j in range(sptr[i], sptr[i + 1]):
            w = members[j]
            lo, hi = hptr[w], hptr[w + 1]
            if hi > lo:
                k = lo + _bisect_right(htimes, lo, hi, last[w])
                if k < hi and htimes[k] <= t1:
                    t0 = htimes[k]
                    if not have:              # max(_ready_time(m, t1) for m in members), once per sync
                        for jj in range(sptr[i], sptr[i + 1]):
                            m = members[jj]
                            elo, ehi = eptr[m], eptr[m + 1]
                            if ehi == elo:
                                return -1
                            p = _bisect_right(ends, elo, ehi, t1) - 1
                            if p < 0:             # Python's ends[-1]
                                p += ehi - elo
                            r = ends[elo + p]
                            if jj == sptr[i] or r > newest:
                                newest = r
                        have = True
                    if not newest > t0:
                        out[w] += t1 - t0
            last[w] = t1
    return 0


def wasted_wait_python(log: ScheduleLog) -> np.ndarray:
    """:func:`wasted_wait` as plain Python over the log's records (the reference the compiled loop is
    tested against)."""
    held: dict[int, list[float]] = defaultdict(list)
    for t, w in log.holds:
        held[w].append(t)
    out = np.zeros(log.n)
    if not held:
        return out
    last_launch = np.full(log.n, -np.inf)
    for s in log.syncs:
        t1 = s.launch
        newest = None                    # latest ready time among the members (once per sync)
        for w in s.members:
            times = held.get(w)
            if times:
                k = bisect.bisect_right(times, last_launch[w])
                if k < len(times) and times[k] <= t1:
                    t0 = times[k]
                    if newest is None:
                        newest = max(_ready_time(log, m, t1) for m in s.members)
                    if not newest > t0:
                        out[w] += t1 - t0
            last_launch[w] = t1
    return out


def _ready_time(log: ScheduleLog, w: int, t: float) -> float:
    """When worker ``w`` last became ready at or before ``t`` (s)."""
    ends = log.compute_end[w]
    return ends[bisect.bisect_right(ends, t) - 1]


def sync_metrics(log: ScheduleLog) -> dict:
    """The five metrics (plus ``max_wasted_wait_s`` and ``max_sync_scale``, the largest finished group,
    in workers) as a flat dict."""
    done = [s for s in log.syncs if s.finish is not None]
    times = np.array([s.finish - s.launch for s in done])
    scales = np.array([len(s.members) for s in done])
    wasted = wasted_wait(log)
    return {
        "avg_sync_time_s": float(times.mean()) if times.size else float("nan"),
        "avg_sync_scale": float(scales.mean()) if scales.size else float("nan"),
        "total_sync": int(len(done)),
        "total_iteration": int(sum(map(len, log.compute_end))),
        "wasted_wait_s_per_worker": float(wasted.mean()),
        "max_wasted_wait_s": float(wasted.max()),
        "max_sync_scale": int(scales.max()) if scales.size else 0,
    }


def update_times(log: ScheduleLog) -> np.ndarray:
    """Times (s, sorted) at which the global model of a ``"gradient"`` log changed: the distinct
    ``apply`` times (launch when unset) of records that applied a gradient with a non-zero factor
    (a parameter server's step or push, an Eager-Reduce round; decision PS4).  Equal times count once."""
    if log.update_rule != "gradient":
        raise ValueError(f"log.update_rule must be 'gradient', got {log.update_rule!r}")
    t = [s.launch if s.apply is None else s.apply for s in log.syncs
         if s.weights is not None and any(s.weights)]        # a weight is true where != 0 (NaN included)
    return np.unique(np.asarray(t, dtype=float))


def gradient_staleness(log: ScheduleLog) -> np.ndarray:
    """Per sync record of a ``"gradient"`` log with ``versions``: for each member, the number of
    global-model updates (:func:`update_times`) before the record's apply time minus the version
    its gradient was computed on, shape (records, max members), NaN where not applied (or no member).
    A PS ASP push computed on the version current at its arrival has staleness 0."""
    ups = update_times(log)
    k = max((len(s.members) for s in log.syncs), default=0)
    out = np.full((len(log.syncs), k), np.nan)
    for i, s in enumerate(log.syncs):
        if s.weights is None or s.versions is None:
            continue
        t = s.launch if s.apply is None else s.apply
        before = np.searchsorted(ups, t, side="left")
        out[i, :len(s.versions)] = before - np.asarray(s.versions)
    return out
