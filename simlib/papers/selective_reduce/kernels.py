"""Compiled per-round pass of the selective-reduce controller over the cluster's arrays.

One controller pass (000 Alg. 3 lines 9-22) asks BPAWR, group after group, for the
training workers faster than the group's bottleneck b̂_i and their completion
probabilities (Alg. 2 lines 6-7, 22-31).  BAG's groups have strictly decreasing
b̂_1 > b̂_2 > ... (every member of g_{i+1} is below g_i's threshold b*), workers moved
between groups (Alg. 3 line 15) never change a group's b̂, and only the last group
can be too small to consume its candidates.  So group i's candidate list C_i is the
*band* of training workers with b̂_i < b <= b̂_{i-1} (b̂_0 = inf), in increasing id
order -- exactly what the sequential removal of line 7 leaves it.
:func:`round_pass` forms BAG's groups, finds every band and evaluates every
candidate's p_i in one pass over the workers (phase, bandwidth, compute start/finish arrays of
:class:`simlib.runtime.cluster.Cluster`).

Probabilities are computed with the same floating-point operations, in the same
order, as the numpy progress models of :mod:`.progress`, so the result is
bit-identical to calling them:

* ``KIND_ORACLE`` -- 1 if ``finish <= now + dt + 1e-12`` else 0;
* ``KIND_LINEAR`` -- the piecewise-linear CDF of a :class:`~simlib.workloads.traces.Trace`
  (a bucket table gives the search's starting point; the count of samples <= t is
  then exact);
* ``KIND_STEP`` -- the empirical CDF of an :class:`~simlib.workloads.traces.OnlineECDF`
  (count of observations <= t in two sorted arrays, divided by their number);
* ``KIND_CALLBACK`` -- no probability here: the caller calls its Python model on
  each band's ids and elapsed times.

``conditional`` turns F(t + dt) (the paper's line 26) into
(F(t + dt) - F(t)) / (1 - F(t)) (1 where 1 - F(t) = 0), clipped to [0, 1].
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .algorithms import _bag_ends

__all__ = ["KIND_ORACLE", "KIND_LINEAR", "KIND_STEP", "KIND_CALLBACK", "linear_cdf_table",
           "work_buffers", "round_pass", "queue_insert"]

KIND_ORACLE, KIND_LINEAR, KIND_STEP, KIND_CALLBACK = 0, 1, 2, 3
EMPTY_F = np.empty(0)
EMPTY_I = np.empty(0, np.int64)


def linear_cdf_table(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(x, hint, x0, inv_w) for :data:`KIND_LINEAR`: sorted samples ``x`` (s) and, for
    each of ``x.size`` equal-width buckets over [x_0, x_{n-1}], the number of samples
    <= the bucket's left edge (a starting point for the exact count)."""
    x = np.ascontiguousarray(samples, dtype=float)
    m = x.size
    width = (x[-1] - x[0]) / m
    if not width > 0.0:
        return x, np.zeros(1, np.int64), float(x[0]), 0.0
    hint = np.searchsorted(x, x[0] + width * np.arange(m + 1), side="right").astype(np.int64)
    return x, hint, float(x[0]), 1.0 / width


def oracle_spec() -> tuple:
    """Kernel arguments of the oracle progress model."""
    return KIND_ORACLE, False, EMPTY_F, EMPTY_I, 0.0, 0.0, EMPTY_F, 0, 0.0


def callback_spec() -> tuple:
    """Kernel arguments when the progress model is a Python callable."""
    return KIND_CALLBACK, False, EMPTY_F, EMPTY_I, 0.0, 0.0, EMPTY_F, 0, 0.0


@njit(cache=True)
def _count_le_hint(x, hint, x0, inv_w, t):
    """Number of samples in sorted ``x`` that are <= t (``np.searchsorted(x, t, "right")``)."""
    n = x.shape[0]
    if t < x0:
        return 0
    if t >= x[n - 1]:
        return n
    if inv_w > 0.0:
        j = int((t - x0) * inv_w)
        j = min(max(j, 0), hint.shape[0] - 2)
        k = hint[j]
    else:
        k = 0
    while k > 0 and x[k - 1] > t:
        k -= 1
    while k < n and x[k] <= t:
        k += 1
    return k


@njit(cache=True)
def _cdf(kind, x, hint, x0, inv_w, x2, count, prior, t):
    if kind == KIND_LINEAR:                 # Trace.cdf
        n = x.shape[0]
        k = _count_le_hint(x, hint, x0, inv_w, t)
        if n == 1:
            return 1.0 if k >= 1 else 0.0
        if k == 0:
            return 0.0
        if k >= n:
            return 1.0
        i = k - 1
        frac = (t - x[i]) / (x[i + 1] - x[i])
        return (i + frac) / (n - 1)
    if count == 0:                          # OnlineECDF.cdf
        return prior
    k = np.searchsorted(x, t, side="right") + np.searchsorted(x2, t, side="right")
    return k / count


@njit(cache=True)
def _prob(kind, conditional, x, hint, x0, inv_w, x2, count, prior, elapsed, dt):
    if not conditional:                     # F(t + dt), 000 Alg. 2 line 26
        return _cdf(kind, x, hint, x0, inv_w, x2, count, prior, elapsed + dt)
    f_t = _cdf(kind, x, hint, x0, inv_w, x2, count, prior, elapsed)
    f_tdt = _cdf(kind, x, hint, x0, inv_w, x2, count, prior, elapsed + dt)
    survival = 1.0 - f_t
    out = (f_tdt - f_t) / survival if survival > 0.0 else 1.0
    return min(max(out, 0.0), 1.0)


#: rows of the controller's work buffers (:func:`work_buffers`)
F_PROBS, F_BWS, F_ELAPSED, F_LO, F_HI = range(5)
I_IDS, I_BAND, I_CID, I_ENDS, I_OFF = range(5)


def work_buffers(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Preallocated float and int buffers of :func:`round_pass` for ``n`` workers."""
    return np.empty((5, n + 1)), np.empty((5, n + 1), np.int64)


@njit(cache=True)
def round_pass(phase, bw, start, finish, q_bw, fpar, ipar, x, hint, x2, fbuf, ibuf):
    """BAG's groups of the sorted queue and every group's candidate list, in one pass.

    ``phase`` (per worker) equal to ``ipar[0]`` marks S (workers in training);
    ``bw`` the controller's bandwidth estimate per worker (bits/s); ``start`` /
    ``finish`` each worker's compute-phase start / end (s); ``q_bw`` the ready
    queue's bandwidths in BAG's order (non-increasing).  ``fpar`` = (now, dt,
    eta, x0, inv_w, prior), ``ipar`` = (computing, base, kind, conditional,
    count); ``x``, ``hint``, ``x2`` the progress model's arrays.

    Writes into ``ibuf[I_ENDS, :G]`` the groups' ends (Alg. 1,
    :func:`~simlib.papers.selective_reduce.algorithms._bag_ends`) and, per group
    i, its candidates as ``[off[i], off[i+1])`` (``off = ibuf[I_OFF]``) of
    ``ibuf[I_IDS]``, ``fbuf[F_PROBS]``, ``fbuf[F_BWS]``, ``fbuf[F_ELAPSED]`` in
    increasing id order, and ``fbuf[F_LO, i]`` / ``fbuf[F_HI, i]`` the smallest /
    largest bandwidth among them with p > 0 (inf / -inf if none).  With
    ``KIND_CALLBACK`` the probabilities are left unset.  Returns G.
    """
    now, dt, eta, x0, inv_w, prior = fpar[0], fpar[1], fpar[2], fpar[3], fpar[4], fpar[5]
    computing, base, kind, conditional, count = ipar[0], ipar[1], ipar[2], ipar[3] != 0, ipar[4]
    ends = _bag_ends(q_bw, base, eta)                                    # Alg. 3 line 11
    g = ends.shape[0]
    off = ibuf[I_OFF]
    band = ibuf[I_BAND]
    cid = ibuf[I_CID]
    b_hat = np.empty(g)
    for j in range(g):
        ibuf[I_ENDS, j] = ends[j]
        b_hat[j] = q_bw[ends[j] - 1]                                     # Alg. 2 line 5
        off[j + 1] = 0
    off[0] = 0
    nc = 0
    lowest = b_hat[g - 1]
    n = phase.shape[0]
    for w in range(n):
        if phase[w] == computing and bw[w] > lowest:                     # Alg. 2 line 25
            b = bw[w]
            j = 0
            while not b > b_hat[j]:                                      # first group whose b̂ it beats
                j += 1
            band[nc] = j
            cid[nc] = w
            nc += 1
            off[j + 1] += 1
    for j in range(g):
        off[j + 1] += off[j]
    pos = off[:g].copy()
    probs, bws, elapsed = fbuf[F_PROBS], fbuf[F_BWS], fbuf[F_ELAPSED]
    lo, hi, ids = fbuf[F_LO], fbuf[F_HI], ibuf[I_IDS]
    for j in range(g):
        lo[j] = np.inf
        hi[j] = -np.inf
    lim = now + dt + 1e-12
    for c in range(nc):
        w = cid[c]
        j = band[c]
        q = pos[j]
        pos[j] += 1
        el = now - start[w]
        ids[q] = w
        elapsed[q] = el
        b = bw[w]
        bws[q] = b
        if kind == KIND_CALLBACK:
            continue
        if kind == KIND_ORACLE:                                          # Alg. 2 line 26
            p = 1.0 if finish[w] <= lim else 0.0
        else:
            p = _prob(kind, conditional, x, hint, x0, inv_w, x2, count, prior, el, dt)
        probs[q] = p
        if p > 0.0:
            if b < lo[j]:
                lo[j] = b
            if b > hi[j]:
                hi[j] = b
    return g


@njit(cache=True)
def queue_insert(ids, bws, length, w, b):
    """Insert worker ``w`` of bandwidth ``b`` into the queue ``ids[:length]`` kept in
    non-increasing bandwidth order (``bws``), after every worker of equal bandwidth
    (arrival order breaks ties, 000 Alg. 1 line 2, SR2).  Returns the new length."""
    lo, hi = 0, length
    while lo < hi:
        mid = (lo + hi) >> 1
        if bws[mid] >= b:
            lo = mid + 1
        else:
            hi = mid
    for i in range(length, lo, -1):
        ids[i] = ids[i - 1]
        bws[i] = bws[i - 1]
    ids[lo] = w
    bws[lo] = b
    return length + 1
