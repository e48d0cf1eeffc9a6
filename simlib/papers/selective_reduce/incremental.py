"""The controller's pass of 000 Alg. 3 lines 9-22 without visiting the workers in training,
with the schedule of the full pass (decision E21).

:func:`~simlib.papers.selective_reduce.kernels.round_plan` (the reference) visits every
worker in training on every pass: it evaluates each candidate's p_i and sums Σp_i and
Σp_i b_i over each group's band of candidates in increasing id order (numpy's pairwise
sum, BLAS ``dot``).  With n = 100,000 workers and one pass per ready worker that is
quadratic in n.  Here the workers in training are kept in *classes*: the workers that
started their compute phase at the same instant (the members of one synchronization,
or everyone at t = 0).  A class shares one elapsed time, so one p (the progress models
of :data:`FAST_KINDS` depend on the elapsed time only), and keeps its members sorted by
bandwidth with two Fenwick trees (alive count; bandwidth quantized to an integer, so
sums stay exact under removals).  A group's band (b̂_i, b̂_{i-1}] is then, per class, a
count, a bandwidth sum and the smallest/largest alive bandwidth: O(classes x log n).

From these the pass does not get the reference's floating-point Σp and Σpb, but
intervals certain to contain them (any summation order of N non-negative terms is
within γ_D of the exact sum, D the depth of the summation tree: at most
:func:`pairwise_depth` for :func:`~simlib.papers.selective_reduce.kernels.pairwise_sum`,
N for ``dot``).  If k = ⌊Σp + 1e-9⌋ is the same at both ends, and BPAWR's decision
(wait, n_keep) is the same for every b_virtual in its interval
(:func:`decide_range`, a monotonicity argument), the decision is the reference's;
otherwise the pass reports :data:`UNSURE` and the controller runs the reference pass.
What is left per pass: BAG's binary searches on the sorted queue and a scan of the held
flags eight at a time (:func:`~.kernels.new_holds_aligned`); per arrival, the queue insertion
(:func:`~.kernels.queue_insert`, O(queue length)).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from simlib.core import jitcache

from .algorithms import _FLOOR_TOL, _bag_ends, _decide_sorted, _t_x
from .kernels import KIND_LINEAR, KIND_STEP, CdfModel, PassParams, _model_prob, new_holds_aligned, record_run, \
    I_RUN_LAUNCH

__all__ = ["FAST_KINDS", "SURE", "UNSURE", "Classes", "quant_scale", "pairwise_depth", "decide_range",
           "build_classes", "remove_worker", "fast_round_plan"]

#: progress-model kinds whose p depends on the elapsed time only (evaluated once per class)
FAST_KINDS = (KIND_LINEAR, KIND_STEP)
SURE, UNSURE = 0, 1
_U = 2.0 ** -53                     # unit roundoff of float64
_EXACT_GRID = 2.0 ** 30             # probabilities that are multiples of 2^-30 sum exactly (below 2^22 terms)
#: rows of the classes' int table
C_OFF, C_SIZE, C_ALIVE = range(3)


class Classes:
    """The workers in training grouped by compute-phase start (module docstring), as arrays.

    ``start[c]`` (s), ``cint[C_OFF/C_SIZE/C_ALIVE, c]`` a class's segment of the pool and its
    alive members; the pool holds each segment's bandwidths in increasing order (``bw``,
    bits/s) and the Fenwick trees ``fen[0]`` (alive count) and ``fen[1]``
    (alive floor(b x ``qscale``)); ``loc[0, w]`` / ``loc[1, w]`` worker w's class (-1: none)
    and position in it."""

    def __init__(self, n: int, bandwidth: np.ndarray):
        self.start = np.zeros(n)
        self.cint = np.zeros((3, n), np.int64)
        self.bw = np.zeros(n)
        self.fen = np.zeros((2, n), np.int64)
        self.loc = np.full((2, n), -1, np.int64)
        self.qscale = quant_scale(bandwidth)
        self.count = 0


def quant_scale(bandwidth: np.ndarray) -> float:
    """A power of two 2^s with floor(b 2^s) summed over every worker below 2^62 (exact int64 sums)."""
    top = float(np.max(bandwidth)) * bandwidth.size + 1.0
    return math.ldexp(1.0, 61 - math.frexp(top)[1])


@njit(cache=True, inline="always")
def _fen_add(f, off, size, i, v):
    i += 1
    while i <= size:
        f[off + i - 1] += v
        i += i & -i


@njit(cache=True, inline="always")
def _fen_prefix(f, off, i):
    """Sum of the first ``i`` entries of the segment's tree."""
    s = 0
    while i > 0:
        s += f[off + i - 1]
        i -= i & -i
    return s


@njit(cache=True, inline="always")
def _fen_find(f, off, size, k):
    """0-based index of the k-th (k >= 1) alive entry of a count tree."""
    pos = 0
    step = 1
    while step * 2 <= size:
        step *= 2
    while step > 0:
        nxt = pos + step
        if nxt <= size and f[off + nxt - 1] < k:
            pos = nxt
            k -= f[off + nxt - 1]
        step >>= 1
    return pos


@njit(cache=True)
def build_classes(phase, computing, start, bw, qscale, cstart, cint, pbw, fen, loc):
    """(Re)build the classes from the cluster's arrays: the workers with ``phase == computing``
    grouped by ``start`` (exact equality), each sorted by bandwidth.  Returns the class count."""
    n = phase.shape[0]
    for w in range(n):
        loc[0, w] = -1
    ids = np.flatnonzero(phase == computing)
    m = ids.shape[0]
    if m == 0:
        return 0
    order = np.argsort(bw[ids], kind="mergesort")
    ids = ids[order]
    order = np.argsort(start[ids], kind="mergesort")     # by start, then bandwidth
    ids = ids[order]
    nc = 0
    i = 0
    while i < m:
        j = i
        st = start[ids[i]]
        while j < m and start[ids[j]] == st:
            j += 1
        size = j - i
        cstart[nc] = st
        cint[C_OFF, nc] = i
        cint[C_SIZE, nc] = size
        cint[C_ALIVE, nc] = size
        for r in range(size):
            w = ids[i + r]
            pbw[i + r] = bw[w]
            loc[0, w] = nc
            loc[1, w] = r
            fen[0, i + r] = 1
            fen[1, i + r] = np.int64(math.floor(bw[w] * qscale))
        for r in range(1, size + 1):                        # linear-time Fenwick build
            parent = r + (r & -r)
            if parent <= size:
                fen[0, i + parent - 1] += fen[0, i + r - 1]
                fen[1, i + parent - 1] += fen[1, i + r - 1]
        nc += 1
        i = j
    return nc


@njit(cache=True)
def remove_worker(w, cint, fen, loc, pbw, qscale):
    """Worker ``w`` left training (it became ready): take it out of its class."""
    c = loc[0, w]
    if c < 0:
        return
    off, size, r = cint[C_OFF, c], cint[C_SIZE, c], loc[1, w]
    _fen_add(fen[0], off, size, r, -1)
    _fen_add(fen[1], off, size, r, -np.int64(math.floor(pbw[off + r] * qscale)))
    cint[C_ALIVE, c] -= 1
    loc[0, w] = -1


@njit(cache=True)
def pairwise_depth(n):
    """An upper bound on the additions any term of :func:`~.kernels.pairwise_sum` over ``n``
    terms goes through: a leaf of <= 128 terms at most 15 + 3 + 7 = 25, plus one per halving."""
    d = 26
    m = 1
    while m < n:
        m *= 2
        d += 1
    return d


@njit(cache=True)
def decide_range(g, k, bv_lo, bv_hi, base, eta, theta, dt, v, alpha, eq2):
    """BPAWR's decision (Alg. 2 lines 10-16, :func:`_decide_sorted`) for every b_virtual in
    [bv_lo, bv_hi] at once: returns (sure, wait, n_keep), ``sure`` False if it may differ.

    Why two ends suffice (every float operation rounds monotonically): with m + k <= base,
    n_keep = m and t_X rises with min_star = min(b̂, b_virtual).  Otherwise the base's last
    member of L is an order statistic of g and k copies of b_virtual, so b* and n_keep =
    #{g >= b*} are monotone in b_virtual: equal n_keep at both ends is n_keep throughout.
    Then g* has n_keep or n_keep + k members and min_star lies in [min(g[n_keep-1], bv_lo),
    g[n_keep-1]] (or [bv_lo, bv_hi] when n_keep = 0), and t_X is monotone in min_star for
    either size: the decision at the ends of that range is the decision throughout."""
    w1, nk1, _ = _decide_sorted(g, k, bv_lo, base, eta, theta, dt, v, alpha, eq2)
    if k == 0 or bv_lo == bv_hi:
        return True, w1, nk1
    w2, nk2, _ = _decide_sorted(g, k, bv_hi, base, eta, theta, dt, v, alpha, eq2)
    if w1 != w2 or nk1 != nk2:
        return False, w1, nk1
    m = g.shape[0]
    if m + k <= base:
        return True, w1, nk1
    b_hat = g[m - 1]
    lim = theta * dt
    if nk1 == 0:
        for ms in (bv_lo, bv_hi):
            if (_t_x(m, b_hat, k, ms, v, alpha, eq2) > lim) != w1:
                return False, w1, nk1
        return True, w1, nk1
    gl = g[nk1 - 1]
    for size in (nk1, nk1 + k):
        for ms in (min(gl, bv_lo), gl):
            if (_t_x(m, b_hat, size, ms, v, alpha, eq2) > lim) != w1:
                return False, w1, nk1
    return True, w1, nk1


@njit(cache=True)
def fast_round_plan(q_ids, q_bw, held_buf, head, holding, par, model, classes, ibuf):
    """:func:`~simlib.papers.selective_reduce.kernels.round_plan` on the classes (module docstring).

    ``par``, ``model`` plain tuples of :class:`~.kernels.PassParams` / :class:`~.kernels.CdfModel`
    fields (``model.kind`` in :data:`FAST_KINDS`), ``held_buf`` and ``head`` as in
    :func:`~.kernels.new_holds_aligned`.  Returns (status, runs, launched runs, new
    holds); with ``UNSURE`` nothing was written (``holding`` unchanged) and the reference pass
    must run instead."""
    ncls, cstart, cint, pbw, fen, qscale = classes      # the Classes fields (count, start, cint, bw, fen, qscale)
    par = PassParams(*par)
    model = CdfModel(*model)
    now, dt, p, base, eta = par.now, par.dt, par.p, par.base, par.eta
    ends = _bag_ends(q_bw, base, eta)                                        # Alg. 3 line 11
    ng = ends.shape[0]
    pc = np.zeros(ncls)
    for c in range(ncls):
        if cint[C_ALIVE, c] > 0:
            pc[c] = _model_prob(model, now - cstart[c], dt)                  # Alg. 2 line 26, per class
    upper = np.inf
    nr = np.int64(0)                    # np.int64: a literal 0 would compile record_run once more
    s = np.int64(0)
    for i in range(ng):                                                      # Alg. 3 line 12
        e = ends[i]
        if e - s < p:                                                        # Alg. 2 lines 2-3
            break
        b_hat = q_bw[e - 1]
        n_terms = np.int64(0)           # candidates in the band (b̂_i, b̂_{i-1}]
        n_parts = 0
        sp = 0.0                        # Σ cnt p, its error bounded below
        y_lo = 0.0                      # Σ p floor(b qscale) and Σ p (floor(b qscale) + 1)
        y_hi = 0.0
        lo = np.inf
        hi = -np.inf
        exact = True
        for c in range(ncls):
            if cint[C_ALIVE, c] == 0:
                continue
            off, size = cint[C_OFF, c], cint[C_SIZE, c]
            seg = pbw[off:off + size]
            a = np.searchsorted(seg, b_hat, side="right")
            b = np.searchsorted(seg, upper, side="right")
            if b <= a:
                continue
            ca = _fen_prefix(fen[0], off, a)
            cb = _fen_prefix(fen[0], off, b)
            cnt = cb - ca
            if cnt == 0:
                continue
            n_terms += cnt
            n_parts += 1
            pr = pc[c]
            if pr > 0.0:
                sp += cnt * pr
                scaled = pr * _EXACT_GRID
                if scaled != math.floor(scaled):
                    exact = False
                q = _fen_prefix(fen[1], off, b) - _fen_prefix(fen[1], off, a)
                y_lo += pr * float(q)
                y_hi += pr * float(q + cnt)
                lo = min(lo, seg[_fen_find(fen[0], off, size, ca + 1)])
                hi = max(hi, seg[_fen_find(fen[0], off, size, cb)])
        if sp > 0.0 and not (exact and n_terms < 4194304):                  # Alg. 2 lines 8, 32-34
            err = 2.0 * (pairwise_depth(n_terms) + 2 * n_parts + 4) * _U
            sp_lo, sp_hi = sp * (1.0 - err), sp * (1.0 + err)
        else:
            sp_lo = sp_hi = sp
        k = math.floor(sp_lo + _FLOOR_TOL)
        if math.floor(sp_hi + _FLOOR_TOL) != k:
            return UNSURE, 0, 0, 0
        bv_lo = bv_hi = 0.0             # unused when k = 0 (_decide_sorted)
        if k > 0:                                                            # lines 9, 35-37
            if lo == hi:
                bv_lo = bv_hi = lo
            else:
                err = 2.0 * (n_terms + 2 * n_parts + 8) * _U
                d_lo = y_lo / qscale * (1.0 - err)
                d_hi = y_hi / qscale * (1.0 + err)
                bv_lo = min(max(d_lo / sp_hi, lo), hi)
                bv_hi = min(max(d_hi / sp_lo, lo), hi)
        sure, wait, n_keep = decide_range(q_bw[s:e], k, bv_lo, bv_hi, base, eta, par.theta, dt, par.v,
                                          par.alpha, par.eq2)
        if not sure:
            return UNSURE, 0, 0, 0
        s = record_run(ibuf, nr, s, e, wait, i < ng - 1, n_keep)             # as kernels._plan_groups
        nr += 1
        upper = b_hat
    n_launch = 0
    for r in range(nr):
        n_launch += ibuf[I_RUN_LAUNCH, r]
    return SURE, nr, n_launch, new_holds_aligned(q_ids, held_buf, head, nr, holding, ibuf)


jitcache.track(globals())
