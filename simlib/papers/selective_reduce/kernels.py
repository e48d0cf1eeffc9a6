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
  (one row of a bucket table usually suffices; the count of samples <= t is
  then exact);
* ``KIND_STEP`` -- the empirical CDF of an :class:`~simlib.workloads.traces.OnlineECDF`
  (count of observations <= t in two sorted arrays, divided by their number);
* ``KIND_CALLBACK`` -- no probability here: the caller calls its Python model on
  each band's ids and elapsed times.

``conditional`` turns F(t + dt) (the paper's line 26) into
(F(t + dt) - F(t)) / (1 - F(t)) (1 where 1 - F(t) = 0), clipped to [0, 1].
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from simlib.core import jitcache

from .algorithms import _FLOOR_TOL, _bag_ends, _count_ge, _decide_sorted

__all__ = ["KIND_ORACLE", "KIND_LINEAR", "KIND_STEP", "KIND_CALLBACK", "CdfModel", "cdf_model", "PassParams",
           "Workers", "linear_cdf_table", "work_buffers", "pairwise_sum", "round_pass", "plan_groups", "new_holds",
           "round_plan", "queue_insert", "new_holds_aligned", "record_run"]

KIND_ORACLE, KIND_LINEAR, KIND_STEP, KIND_CALLBACK = 0, 1, 2, 3
EMPTY_F = np.empty(0)
EMPTY_T = np.empty((0, 4))


def linear_cdf_table(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(x, table, x0, inv_w) for :data:`KIND_LINEAR`: the sorted samples ``x`` (s) and, for
    each of ``x.size`` equal-width buckets over [x_0, x_{n-1}] (1 / width = ``inv_w``),
    one row (k, x[k-1], x[k], x[k+1]) with k the number of samples <= the bucket's left
    edge (x[k+1] = inf past the end): a lookup reads one row and, when t is below
    x[k+1], needs nothing else.  Other t fall back to a binary search."""
    x = np.ascontiguousarray(samples, dtype=float)
    n = x.size
    width = (x[-1] - x[0]) / n
    if not width > 0.0:
        return x, EMPTY_T, float(x[0]), 0.0
    return x, _bucket_table(x, x[0] + width * np.arange(n)), float(x[0]), 1.0 / width


@njit(cache=True)
def _bucket_table(x, edges):
    """:func:`linear_cdf_table`'s rows for the sorted samples ``x`` (n >= 2, no NaN) and non-decreasing bucket
    ``edges``: (k, x[k-1], x[k], x[k+1] or inf past the end) with k = #samples <= the edge, clipped to [1, n-1]
    -- numpy's ``np.clip(np.searchsorted(x, edges, side="right"), 1, n - 1)`` and the rows gathered from it, by
    one merge of the two sorted arrays: O(n) instead of a binary search per edge and four gathers (~1 ms for a
    trace's 20,000 samples, at every selective-reduce trial's controller; issue 48)."""
    n = x.shape[0]
    table = np.empty((edges.shape[0], 4))
    j = 0
    for i in range(edges.shape[0]):
        while j < n and x[j] <= edges[i]:
            j += 1
        k = min(max(j, 1), n - 1)
        table[i, 0] = k
        table[i, 1] = x[k - 1]
        table[i, 2] = x[k]
        table[i, 3] = x[k + 1] if k + 1 < n else np.inf
    return table


class CdfModel(NamedTuple):
    """A progress model as the compiled pass evaluates p_i (module docstring); build it with :func:`cdf_model`."""

    kind: int               # KIND_ORACLE, KIND_LINEAR, KIND_STEP or KIND_CALLBACK
    conditional: bool       # (F(t + dt) - F(t)) / (1 - F(t)) instead of F(t + dt)
    x: np.ndarray           # sorted samples (s): the trace's (linear) or the ECDF's main part (step)
    table: np.ndarray       # KIND_LINEAR's bucket table (:func:`linear_cdf_table`)
    x0: float               # KIND_LINEAR: the first sample (s)
    inv_w: float            # KIND_LINEAR: 1 / bucket width (1/s)
    x2: np.ndarray          # KIND_STEP: the ECDF's sorted buffer of recent observations (s)
    count: int              # KIND_STEP: observations in x and x2
    prior: float            # KIND_STEP: F before any observation


def cdf_model(kind: int, conditional: bool = False, x: np.ndarray = EMPTY_F, table: np.ndarray = EMPTY_T,
              x0: float = 0.0, inv_w: float = 0.0, x2: np.ndarray = EMPTY_F, count: int = 0,
              prior: float = 0.0) -> CdfModel:
    """A :class:`CdfModel` with every field of one numba type whatever the caller passed
    (one compiled version of the pass): the arrays C-contiguous float64 and writable -- a read-only one (a
    :class:`~simlib.workloads.traces.Trace`'s samples) is copied, since numba compiles read-only arrays apart
    and the cold start's model over the ECDF's parts is writable (decision N17)."""
    return CdfModel(int(kind), bool(conditional), _writable(x), _writable(table), float(x0), float(inv_w),
                    _writable(x2), int(count), float(prior))


def _writable(a) -> np.ndarray:
    """``a`` as a C-contiguous float64 array that numba types as writable (a copy if it is read-only)."""
    a = np.ascontiguousarray(a, dtype=float)
    return a if a.flags.writeable else a.copy()


class PassParams(NamedTuple):
    """One controller pass's settings: the time and the knobs of 000 Alg. 1-3."""

    now: float              # the simulated time (s)
    dt: float               # the waiting slot Delta t (s)
    eta: float              # BAG's eta
    theta: float            # Alg. 2 line 16's theta
    v: float                # model size (bits)
    alpha: float            # latency of Eq. (2) (s)
    computing: int          # the phase code of workers in training (S)
    base: int               # a BAG group's base size (p or p + 1, SR1)
    p: int                  # the minimum group size
    eq2: bool               # t_X by the exact Eq. (2) (SR12)


class Workers(NamedTuple):
    """The cluster's per-worker arrays the pass reads (:class:`simlib.runtime.cluster.Cluster`)."""

    phase: np.ndarray       # phase code per worker
    bw: np.ndarray          # the controller's bandwidth estimate (bits/s)
    start: np.ndarray       # compute-phase start (s)
    finish: np.ndarray      # compute-phase end (s)


def oracle_spec() -> CdfModel:
    """The oracle progress model."""
    return cdf_model(KIND_ORACLE)


def callback_spec() -> CdfModel:
    """A progress model that is a Python callable (the caller evaluates p_i)."""
    return cdf_model(KIND_CALLBACK)


@njit(cache=True, inline="always")
def _cdf_linear(x, table, x0, inv_w, t):
    """Trace.cdf(t): the piecewise-linear empirical CDF of the sorted samples ``x``, with
    the same operations: k = #samples <= t, i = k - 1, (i + (t - x[i]) / (x[i+1] - x[i])) / (n - 1)."""
    n = x.shape[0]
    if t < x[0]:
        return 0.0
    if t >= x[n - 1]:                           # also the whole of a one-sample trace
        return 1.0
    j = int((t - x0) * inv_w)
    if j < table.shape[0]:
        a = table[j, 1]
        b = table[j, 2]
        if a <= t:                              # k >= table[j, 0]
            if t < b:
                return ((table[j, 0] - 1.0) + (t - a) / (b - a)) / (n - 1)
            c = table[j, 3]
            if t < c:
                return (table[j, 0] + (t - b) / (c - b)) / (n - 1)
    i = np.searchsorted(x, t, side="right") - 1
    return (i + (t - x[i]) / (x[i + 1] - x[i])) / (n - 1)


@njit(cache=True, inline="always")
def _cdf_step(x, x2, count, prior, t):
    """OnlineECDF.cdf(t): observations <= t (in the sorted ``x`` and ``x2``) / ``count``."""
    if count == 0:
        return prior
    k = np.searchsorted(x, t, side="right") + np.searchsorted(x2, t, side="right")
    return k / count


@njit(cache=True, inline="always")
def _model_prob(model, el, dt):
    """p_i of a worker ``el`` s into its compute phase under a KIND_LINEAR or KIND_STEP ``model``."""
    linear = model.kind == KIND_LINEAR
    if linear:
        f_tdt = _cdf_linear(model.x, model.table, model.x0, model.inv_w, el + dt)
    else:
        f_tdt = _cdf_step(model.x, model.x2, model.count, model.prior, el + dt)
    if not model.conditional:
        return f_tdt
    if linear:
        f_t = _cdf_linear(model.x, model.table, model.x0, model.inv_w, el)
    else:
        f_t = _cdf_step(model.x, model.x2, model.count, model.prior, el)
    survival = 1.0 - f_t
    pq = (f_tdt - f_t) / survival if survival > 0.0 else 1.0
    return min(max(pq, 0.0), 1.0)


#: Memo slots: p depends on the elapsed time only, and the workers in training share
#: few distinct ones (a group's members all restart when its synchronization ends), so
#: :func:`round_pass` remembers p per elapsed time in a small direct-mapped table
#: (same input, same result, bit for bit; a collision only recomputes).
_MEMO = 64


@njit(cache=True)
def _cdf_probs(model, elapsed, dt, probs, nc):
    """probs[q] = F(elapsed[q] + dt), or the conditional form, for q < nc (see module docstring):
    :func:`round_pass`'s per-candidate model on an array, without the memo (tests compare it with numpy)."""
    for q in range(nc):
        probs[q] = _model_prob(model, elapsed[q], dt)


#: rows of the controller's work buffers (:func:`work_buffers`)
F_PROBS, F_BWS, F_ELAPSED, F_LO, F_HI, F_TMP_P, F_TMP_E = range(7)
I_IDS, I_BAND, I_CID, I_ENDS, I_OFF, I_RUN_S, I_RUN_E, I_RUN_LAUNCH, I_HOLD, I_SEL = range(10)


def work_buffers(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Preallocated float and int buffers of :func:`round_pass` / :func:`plan_groups` for ``n`` workers."""
    return np.empty((7, n + 1)), np.empty((10, n + 1), np.int64)


@njit(cache=True)
def pairwise_sum(a, lo, n):
    """``a[lo:lo+n].sum()`` exactly as numpy computes it (pairwise, blocks of 8 and 128),
    so the expected count of Alg. 2 line 8 is bit-identical to numpy's."""
    if n < 8:
        res = -0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    if n <= 128:
        r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
        r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
        i = lo + 8
        stop = lo + n - (n % 8)
        while i < stop:
            r0 += a[i]
            r1 += a[i + 1]
            r2 += a[i + 2]
            r3 += a[i + 3]
            r4 += a[i + 4]
            r5 += a[i + 5]
            r6 += a[i + 6]
            r7 += a[i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < lo + n:
            res += a[i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return pairwise_sum(a, lo, n2) + pairwise_sum(a, lo + n2, n - n2)


#: On the arguments ``workers``, ``par`` and ``model`` of the entry points below: numba types a
#: NamedTuple argument in ~3 us and a plain tuple in well under 1 us, and the controller makes one
#: call per pass; so they take the NamedTuple or a plain tuple of its fields (what the controller
#: passes) and make it the NamedTuple inside, for free.


@njit(cache=True)
def round_pass(workers, q_bw, par, model, fbuf, ibuf):
    """:func:`_round_pass` for a :class:`Workers`, :class:`PassParams` and :class:`CdfModel` or plain tuples
    of their fields."""
    return _round_pass(Workers(*workers), q_bw, PassParams(*par), CdfModel(*model), fbuf, ibuf)


@njit(cache=True)
def _round_pass(workers, q_bw, par, model, fbuf, ibuf):
    """BAG's groups of the sorted queue and every group's candidate list, in one pass.

    ``workers`` (:class:`Workers`): a phase equal to ``par.computing`` marks S
    (workers in training); ``q_bw`` the ready queue's bandwidths in BAG's order
    (non-increasing); ``par`` a :class:`PassParams`, ``model`` a :class:`CdfModel`.

    Writes into ``ibuf[I_ENDS, :G]`` the groups' ends (Alg. 1,
    :func:`~simlib.papers.selective_reduce.algorithms._bag_ends`) and, per group
    i, its candidates as ``[off[i], off[i+1])`` (``off = ibuf[I_OFF]``) of
    ``fbuf[F_PROBS]`` and ``fbuf[F_BWS]`` in increasing id order, and
    ``fbuf[F_LO, i]`` / ``fbuf[F_HI, i]`` the smallest / largest bandwidth among
    them with p > 0 (inf / -inf if none).  With ``KIND_CALLBACK`` the
    probabilities are left unset and ``ibuf[I_IDS]`` / ``fbuf[F_ELAPSED]`` hold the
    candidates' ids and elapsed times instead.  Returns G.
    """
    now, dt, computing, kind = par.now, par.dt, par.computing, model.kind
    phase, bw, start, finish = workers.phase, workers.bw, workers.start, workers.finish
    ends = _bag_ends(q_bw, par.base, par.eta)                            # Alg. 3 line 11
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
    probs, bws, elapsed = fbuf[F_PROBS], fbuf[F_BWS], fbuf[F_ELAPSED]
    lo, hi, ids = fbuf[F_LO], fbuf[F_HI], ibuf[I_IDS]
    t_prob, t_el = fbuf[F_TMP_P], fbuf[F_TMP_E]
    for j in range(g):
        lo[j] = np.inf
        hi[j] = -np.inf
    direct = g == 1                     # one band: id order is band order, no second pass
    callback = kind == KIND_CALLBACK    # only a Python model needs the candidates' ids and elapsed times
    lim = now + dt + 1e-12
    keys = np.full(_MEMO, -1.0)         # p depends on the elapsed time only (see _MEMO)
    vals = np.empty(_MEMO)
    nc = 0
    lowest = b_hat[g - 1]
    n = phase.shape[0]
    sel = ibuf[I_SEL]
    m = 0
    for w in range(n):                                                   # Alg. 2 line 25, branch-free
        sel[m] = w
        m += (phase[w] == computing) & (bw[w] > lowest)
    for s in range(m):
        w = sel[s]
        b = bw[w]
        j = 0
        while not b > b_hat[j]:                                          # first group whose b̂ it beats
            j += 1
        el = now - start[w]
        if kind == KIND_ORACLE:                                          # Alg. 2 line 26
            p = 1.0 if finish[w] <= lim else 0.0
        elif callback:
            p = 0.0
        else:
            i = int(el * 1048573.0) % _MEMO                             # direct-mapped memo slot
            if keys[i] == el:
                p = vals[i]
            else:
                p = _model_prob(model, el, dt)
                keys[i] = el
                vals[i] = p
        if p > 0.0:
            if b < lo[j]:
                lo[j] = b
            if b > hi[j]:
                hi[j] = b
        if direct:
            bws[nc] = b
            probs[nc] = p
            if callback:
                ids[nc] = w
                elapsed[nc] = el
        else:
            band[nc] = j
            cid[nc] = w
            t_prob[nc] = p
            t_el[nc] = el
        nc += 1
        off[j + 1] += 1
    for j in range(g):
        off[j + 1] += off[j]
    if not direct:                      # counting sort into bands, id order kept within each
        pos = off[:g].copy()
        for c in range(nc):
            w = cid[c]
            j = band[c]
            q = pos[j]
            pos[j] += 1
            bws[q] = bw[w]
            probs[q] = t_prob[c]
            if callback:
                ids[q] = w
                elapsed[q] = t_el[c]
    return g


@njit(cache=True)
def plan_groups(q_bw, ng, par, fbuf, ibuf):
    """:func:`_plan_groups` for a :class:`PassParams` or a plain tuple of its fields."""
    return _plan_groups(q_bw, ng, PassParams(*par), fbuf, ibuf)


@njit(cache=True)
def _plan_groups(q_bw, ng, par, fbuf, ibuf):
    """Alg. 3 lines 12-22 after :func:`round_pass` (probabilities in ``fbuf[F_PROBS]``).

    ``par`` a :class:`PassParams`.  For each group in order: too small (Alg. 2 lines 2-3; only the
    last group can be, every other BAG group has >= base members); else
    k = floor(sum p + 1e-9) virtual workers of bandwidth sum(p b) / sum(p) kept in
    the range of the b with p > 0 (lines 8-9, SR8, SR20; the sums are numpy's:
    :func:`pairwise_sum` and BLAS ``dot``), and :func:`_decide_sorted`.  A group
    that launches is a run ``[s, e)`` of the sorted queue; one that waits holds
    ``[s, s + n_keep)`` and passes g_Delta on to the front of the next group
    (lines 14-16; the last group holds all of itself).  Writes the runs into
    ``ibuf[I_RUN_S]``, ``ibuf[I_RUN_E]``, ``ibuf[I_RUN_LAUNCH]`` (1 launch, 0 hold)
    in order and returns their number.
    """
    dt, eta, base, p, eq2 = par.dt, par.eta, par.base, par.p, par.eq2
    theta, v, alpha = par.theta, par.v, par.alpha
    ends, off = ibuf[I_ENDS], ibuf[I_OFF]
    probs, bws, lo, hi = fbuf[F_PROBS], fbuf[F_BWS], fbuf[F_LO], fbuf[F_HI]
    nr = np.int64(0)                    # np.int64: a literal 0 would compile record_run once more
    s = np.int64(0)
    for i in range(ng):                                                  # Alg. 3 line 12
        e = ends[i]
        if e - s < p:
            break
        a, b = off[i], off[i + 1]
        sp = 0.0
        b_virtual = 0.0
        if b > a:
            sp = pairwise_sum(probs, a, b - a)                           # Alg. 2 lines 8, 32-34
            if sp > 0.0:                                                 # lines 9, 35-37
                b_virtual = min(max(np.dot(probs[a:b], bws[a:b]) / sp, lo[i]), hi[i])
        k = math.floor(sp + _FLOOR_TOL)
        wait, n_keep, t_x = _decide_sorted(q_bw[s:e], k, b_virtual, base, eta, theta, dt, v, alpha, eq2)
        s = record_run(ibuf, nr, s, e, wait, i < ng - 1, n_keep)
        nr += 1
    return nr


@njit(cache=True)
def record_run(ibuf, nr, s, e, wait, more_groups, n_keep):
    """Write BAG group ``[s, e)``'s decision as run ``nr`` of ``ibuf`` and return where the next group
    starts: a launch of ``[s, e)`` (Alg. 3 lines 17-19), a hold of ``[s, s + n_keep)`` that passes the
    rest on to the next group (lines 14-16), or, for the last group, a hold of all of it."""
    ibuf[I_RUN_S, nr] = s
    if not wait:                                                         # lines 17-19
        ibuf[I_RUN_E, nr] = e
        ibuf[I_RUN_LAUNCH, nr] = 1
        return e
    if more_groups:                                                      # lines 14-16
        ibuf[I_RUN_E, nr] = s + n_keep
        ibuf[I_RUN_LAUNCH, nr] = 0
        return s + n_keep
    ibuf[I_RUN_E, nr] = e
    ibuf[I_RUN_LAUNCH, nr] = 0
    return e


@njit(cache=True)
def new_holds(q_ids, n_runs, holding, ibuf):
    """Workers of the held runs that were not already holding, in run order: marks them
    in ``holding`` and writes them to ``ibuf[I_HOLD]``; returns how many."""
    k = 0
    for r in range(n_runs):
        if ibuf[I_RUN_LAUNCH, r] == 0:
            for i in range(ibuf[I_RUN_S, r], ibuf[I_RUN_E, r]):
                w = q_ids[i]
                if not holding[w]:
                    holding[w] = True
                    ibuf[I_HOLD, k] = w
                    k += 1
    return k


@njit(cache=True)
def new_holds_aligned(q_ids, held_buf, head, n_runs, holding, ibuf):
    """:func:`new_holds` with ``held_buf[head + i] == holding[q_ids[i]]`` kept by queue position
    (``held_buf``'s size a multiple of 8): a scan of the flags eight at a time instead of a
    look-up per queued worker (same result, same order); marks both."""
    words = held_buf.view(np.uint64)
    every = np.uint64(0x0101010101010101)                  # eight True flags
    k = 0
    for r in range(n_runs):
        if ibuf[I_RUN_LAUNCH, r] == 0:
            i = head + ibuf[I_RUN_S, r]
            end = head + ibuf[I_RUN_E, r]
            while i < end:
                if (i & 7) == 0 and i + 8 <= end and words[i >> 3] == every:
                    i += 8
                    continue
                if not held_buf[i]:
                    held_buf[i] = True
                    w = q_ids[i - head]
                    holding[w] = True
                    ibuf[I_HOLD, k] = w
                    k += 1
                i += 1
    return k


@njit(cache=True)
def round_plan(workers, q_ids, q_bw, holding, par, model, fbuf, ibuf):
    """One controller pass in one call: :func:`round_pass`, :func:`plan_groups` and
    :func:`new_holds` (``workers``, ``par``, ``model`` as for :func:`round_pass`).
    Returns (number of runs, number of launched runs, number of new holds)."""
    par = PassParams(*par)
    ng = _round_pass(Workers(*workers), q_bw, par, CdfModel(*model), fbuf, ibuf)
    n_runs = _plan_groups(q_bw, ng, par, fbuf, ibuf)
    n_launch = 0
    for r in range(n_runs):
        n_launch += ibuf[I_RUN_LAUNCH, r]
    return n_runs, n_launch, new_holds(q_ids, n_runs, holding, ibuf)


@njit(cache=True)
def queue_insert(ids, bws, held, head, length, w, b):
    """Insert worker ``w`` of bandwidth ``b`` into the queue ``ids[head:head + length]`` kept in
    non-increasing bandwidth order (``bws``), after every worker of equal bandwidth
    (arrival order breaks ties, 000 Alg. 1 line 2, SR2); ``held`` (whether each queued
    worker's hold is logged, by queue position) moves along, False for ``w``.  The shorter
    side of the queue moves by one where the buffers have room (size 2n + 1 leaves room on
    one side for n workers).  Returns the new (head, length)."""
    lo = _count_ge(bws, head, head + length, b)
    end = head + length
    if (lo - head < end - lo and head > 0) or end == ids.shape[0]:
        for i in range(head, lo):                   # the front moves one place forward
            ids[i - 1] = ids[i]
            bws[i - 1] = bws[i]
            held[i - 1] = held[i]
        head -= 1
        lo -= 1
    else:
        for i in range(end, lo, -1):                # the back moves one place back
            ids[i] = ids[i - 1]
            bws[i] = bws[i - 1]
            held[i] = held[i - 1]
    ids[lo] = w
    bws[lo] = b
    held[lo] = False
    return head, length + 1


# code compiled from algorithms is frozen into this module's cache entries (simlib.core.jitcache)
jitcache.track(globals())
