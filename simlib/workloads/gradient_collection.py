"""How long it takes to collect S stochastic gradients from ``n`` workers, without a network: m-synchronous
collection against a greedy collector, on given per-worker compute times (notebook 93, beyond the papers).

Begunov & Tyurin ("Do we need asynchronous SGD?", arXiv 2602.03802, 2026) claim that synchronous SGD and
m-synchronous SGD (a step uses the first ``m`` gradients of the ``n`` workers) are optimal up to logarithmic
factors under random, time-varying compute times.  The computation side of that claim needs no model: the
time an m-synchronous method needs to gather ``S`` gradients against the time the greedy collector needs,
where every worker computes back to back and every gradient counts (no collector can gather ``S`` computed
gradients sooner: it is the lower bound the claim's optimality is measured against, up to the gradients'
freshness).  The bound the claim implies is a ratio of at most about ``H_n = 1 + 1/2 + ... + 1/n`` (≈ ln n):
with i.i.d. exponential times, synchronous SGD (m = n) needs ``H_n`` per round of ``n`` gradients where the
greedy collector needs 1 (:func:`harmonic`).

Input: ``times[w, k]``, worker ``w``'s k-th compute time (s), e.g. a real trace's replay
(:func:`worker_times`).  Workers start at t = 0; there is no communication (the paper's model).

* :func:`greedy_arrivals` -- the greedy collector: worker ``w``'s gradients arrive at the running sums of
  its row; the arrivals of all workers, sorted.
* :func:`msync_arrivals` -- m-synchronous collection: round r closes when ``m`` gradients computed on round
  r's model have arrived; those are used.  What happens to the others is ``late`` (decision PS10 in
  docs/decisions/baselines.md): ``"cancel"`` -- at the close every worker abandons its computation and all
  start round r + 1 together, each on its next compute time (round r's time is the m-th smallest of
  column r: the reading of a method whose every iteration draws fresh times); ``"drop"`` -- the others
  keep computing, a gradient of an older round is dropped on arrival and its worker starts again at once
  on the current model, and a worker whose gradient was used waits for the close (the repository's PS
  backup arm, PS2 in docs/decisions/baselines.md, without its network).
* :func:`collection_times` -- the S-th used arrival for each S: the time to collect S gradients.

The time to collect ``S`` gradients is the arrival of the S-th used gradient (the round it falls in need
not be complete).  Units: seconds.
"""
from __future__ import annotations

import heapq
import math
from typing import Sequence

import numpy as np

from simlib.core.seeding import as_seed_sequence
from simlib.core.validate import check_array, check_choice, check_int, check_list

__all__ = ["LATE_GRADIENTS", "harmonic", "worker_times", "steps_needed", "greedy_arrivals", "msync_arrivals",
           "collection_times", "m_grid", "per_m_collection", "best_collection", "trace_trial", "S_COLUMNS",
           "PER_M_K"]

#: What m-synchronous collection does with the gradients that miss a round (decision PS10).
LATE_GRADIENTS = ("cancel", "drop")


def harmonic(n: int) -> float:
    """``H_n = sum_{k=1..n} 1/k`` (≈ ln n + 0.5772): E[max of n i.i.d. Exp(1)] -- the claim's logarithmic factor."""
    n = check_int("n", n, 1)
    return float(sum(1.0 / k for k in range(1, n + 1)))


def _times(times) -> np.ndarray:
    t = np.asarray(times, dtype=float)
    if t.ndim != 2 or t.size == 0:
        raise ValueError(f"times must be a non-empty 2-D array (workers x steps), got shape {t.shape}")
    check_array("times", t.ravel(), lo=0.0)
    return t


def steps_needed(s_max: int, m: int | None = None, late: str = "cancel") -> int:
    """Columns (compute times per worker) that collecting ``s_max`` gradients can use: ``s_max`` for the
    greedy collector (``m`` None: no worker delivers more than the S-th arrival needs) and for ``"cancel"``
    (one per round, at most ``s_max`` rounds); ``2 ceil(s_max / m) + 1`` for ``"drop"`` (a worker completes at
    most a dropped and a used gradient per round, and one more in progress)."""
    s_max = check_int("s_max", s_max, 1)
    if m is None or check_choice("late", late, LATE_GRADIENTS) == "cancel":
        return s_max
    return 2 * math.ceil(s_max / check_int("m", m, 1)) + 1


def worker_times(trace, n: int, seed, steps: int) -> np.ndarray:
    """``n`` x ``steps`` compute times (s): ``trace.compute_times(n, seed)``'s first ``steps`` draws of each
    worker (a real trace is replayed, decision T7; a stand-in drawn i.i.d.)."""
    n, steps = check_int("n", n, 1), check_int("steps", steps, 1)
    src = trace.compute_times(n, as_seed_sequence(seed))
    return np.stack([src.take(w, steps) for w in range(n)])


def greedy_arrivals(times, s_max: int) -> np.ndarray:
    """The first ``s_max`` arrivals (s, sorted) of the greedy collector: every worker computes back to back
    from t = 0 and every gradient counts.  Needs ``s_max`` columns (:func:`steps_needed`): the S-th arrival
    overall is at most any one worker's S-th, so no missing column can come earlier."""
    t = _times(times)
    s_max = check_int("s_max", s_max, 1)
    if t.shape[1] < s_max:
        raise ValueError(f"times must have at least s_max = {s_max} columns, got {t.shape[1]}")
    ends = np.cumsum(t[:, :s_max], axis=1).ravel()
    return np.sort(np.partition(ends, s_max - 1)[:s_max])


def _cancel(t: np.ndarray, m: int, s_max: int) -> np.ndarray:
    rounds = math.ceil(s_max / m)
    if t.shape[1] < rounds:
        raise ValueError(f"times must have at least ceil(s_max / m) = {rounds} columns, got {t.shape[1]}")
    first = np.sort(t[:, :rounds], axis=0)[:m]                  # each round's m smallest, ascending
    starts = np.concatenate([[0.0], np.cumsum(first[m - 1])[:-1]])
    return (starts[:, None] + first.T).ravel()[:s_max]


def _drop(t: np.ndarray, m: int, s_max: int) -> np.ndarray:
    n, length = t.shape
    pos = np.zeros(n, dtype=np.int64)              # next column of each worker
    tag = np.zeros(n, dtype=np.int64)              # the round (model version) each worker computes on
    heap = [(float(t[w, 0]), w) for w in range(n)]
    pos[:] = 1
    heapq.heapify(heap)
    version, fresh, waiting, used = 0, 0, [], []

    def start(w: int, now: float) -> None:
        k = pos[w]
        if k >= length:
            raise ValueError(f"times must have more columns: worker {w} needs more than {length} (steps_needed)")
        pos[w] = k + 1
        tag[w] = version
        heapq.heappush(heap, (now + float(t[w, k]), w))

    while len(used) < s_max:
        now, w = heapq.heappop(heap)
        if tag[w] < version:                       # computed on an older round's model: dropped, start again
            start(w, now)
            continue
        used.append(now)
        fresh += 1
        if fresh < m:
            waiting.append(w)                      # pushed; waits for the round to close (PS2)
            continue
        version, fresh = version + 1, 0
        for v in waiting + [w]:
            start(v, now)
        waiting = []
    return np.asarray(used)


def msync_arrivals(times, m: int, s_max: int, late: str = "cancel") -> np.ndarray:
    """The first ``s_max`` used arrivals (s, in order) of m-synchronous collection with ``late`` =
    ``"cancel"`` or ``"drop"`` (module docstring, decision PS10).  ``m`` in [1, n]; ``times`` needs
    :func:`steps_needed` columns (a clear error names the shortfall)."""
    t = _times(times)
    m = check_int("m", m, 1, t.shape[0])
    s_max = check_int("s_max", s_max, 1)
    late = check_choice("late", late, LATE_GRADIENTS)
    return _cancel(t, m, s_max) if late == "cancel" else _drop(t, m, s_max)


def collection_times(arrivals: np.ndarray, s_values: Sequence[int]) -> np.ndarray:
    """The time (s) to collect each ``S`` of ``s_values``: the S-th of ``arrivals`` (in order)."""
    s = np.asarray(check_list("s_values", list(s_values), lambda name, v: check_int(name, v, 1, len(arrivals))))
    return np.asarray(arrivals)[s - 1]


def m_grid(n: int, full_up_to: int = 16, points: int = 16) -> list[int]:
    """The m values searched for the best m: every m in [1, n] when ``n <= full_up_to``, else about
    ``points`` values spread geometrically over [1, n] plus n - 1 and n (the best m over a grid is an
    upper bound of the best over every m: a claim that holds on the grid holds)."""
    n = check_int("n", n, 1)
    if n <= check_int("full_up_to", full_up_to, 1):
        return list(range(1, n + 1))
    grid = np.unique(np.round(np.geomspace(1, n, check_int("points", points, 2))).astype(int))
    return sorted(set(grid.tolist()) | {n - 1, n})


def per_m_collection(times, s_values: Sequence[int], m_values: Sequence[int], late: str = "cancel") -> dict:
    """``{m: times (s) to collect each S of s_values}`` for every m of ``m_values``."""
    t = _times(times)
    s_max = int(max(s_values))
    return {m: collection_times(msync_arrivals(t, m, s_max, late), s_values) for m in m_values}


def best_collection(times, s_values: Sequence[int], m_values: Sequence[int], late: str = "cancel", per_m=None):
    """For each S of ``s_values``: the smallest time (s) to collect S gradients over ``m_values`` and the m that
    achieves it (the smallest such m), plus synchronous collection's (m = n) times.  Returns
    ``(best_time, best_m, sync_time)`` as arrays over ``s_values``.  ``per_m``: :func:`per_m_collection`'s
    result when already computed."""
    t = _times(times)
    per_m = per_m_collection(t, s_values, m_values, late) if per_m is None else per_m
    stack = np.stack([per_m[m] for m in m_values])
    i = np.argmin(stack, axis=0)
    sync = per_m[t.shape[0]] if t.shape[0] in per_m else per_m_collection(t, s_values, [t.shape[0]], late)[t.shape[0]]
    return stack[i, np.arange(stack.shape[1])], np.asarray(m_values)[i], sync


#: S / n values of the trace-only comparison (issue 44 item 4).
S_COLUMNS = (1, 3, 10, 30, 100)
#: The S / n at which :func:`trace_trial` reports every m's time (``m<m>_k<k>``).
PER_M_K = 30


def trace_trial(params: dict, seed) -> dict:
    """Notebook 93's trace-only trial: ``params`` ``trace`` (a name of :mod:`simlib.workloads.traces`),
    ``n`` workers, ``late`` (PS10).  One replay of the trace (``seed``; decision T7) is collected by the greedy
    collector and by m-synchronous collection for every m of :func:`m_grid` ``(n)``; for each S = k n, k in
    :data:`S_COLUMNS`, returns ``greedy_k<k>`` (s), ``best_k<k>`` (s), ``best_m_k<k>`` and ``sync_k<k>`` (m = n,
    s), every m's time at S = :data:`PER_M_K` n (``m<m>_k<PER_M_K>``, s) and ``h_n`` (:func:`harmonic`)."""
    from simlib.workloads.traces import load_trace

    n = check_int("n", params["n"], 1)
    late = check_choice("late", params["late"], LATE_GRADIENTS)
    s_values = [k * n for k in S_COLUMNS]
    s_max = max(s_values)
    m_values = m_grid(n)
    steps = max(steps_needed(s_max), steps_needed(s_max, min(m_values), late))
    t = worker_times(load_trace(params["trace"]), n, seed, steps)
    greedy = collection_times(greedy_arrivals(t, s_max), s_values)
    per_m = per_m_collection(t, s_values, m_values, late)
    best, best_m, sync = best_collection(t, s_values, m_values, late, per_m=per_m)
    out = {"h_n": harmonic(n)}
    j = S_COLUMNS.index(PER_M_K)
    out.update({f"m{m}_k{PER_M_K}": float(per_m[m][j]) for m in m_values})
    for j, k in enumerate(S_COLUMNS):
        out.update({f"greedy_k{k}": float(greedy[j]), f"best_k{k}": float(best[j]),
                    f"best_m_k{k}": int(best_m[j]), f"sync_k{k}": float(sync[j])})
    return out
