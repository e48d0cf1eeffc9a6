"""SelMcast for BSP training: seed 004 Algorithm 1, line by line (§III-B).

``selmcast_bsp`` returns the selection plan {x_ij} for one round of
peer-to-peer BSP synchronization on a big switch.  Comments ``# l.N`` cite the
line of Algorithm 1 that the code below them implements.  Decisions (SMn):
docs/decisions/selmcast.md.

* Basic selection (l.4-14): forced pairs D first; then senders in
  non-increasing order of their already-determined receivers each take the
  q-lightest-loaded egresses, load_j = (v_i + sum_l v_lj x_lj) / b_j^E.
* Pareto improvement (l.15-28): t = the plan's estimated completion time
  (max of s_i / b_i^I and r_i / b_i^E, s_i by Eq. (9)); pairs with x_ij = 0
  are then tried in non-increasing order of c_ij and admitted when neither
  the sender's ingress nor the receiver's egress would exceed t.

Both loops are sequential (every choice changes the loads seen by later
ones), so lines 8-14 and 22-28 run as compiled numba loops that follow the
pseudo-code statement by statement; the rest is numpy.

Ties (SM4): stable sorts everywhere, so equal keys keep worker-id order
(senders at l.7, receivers at l.10, pairs (i, j) row-major at l.21).

Units: v in bits, bandwidths in bits/s, t in seconds.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from simlib.core.validate import check_array, check_choice, check_int

__all__ = ["BspPlan", "selmcast_bsp", "check_selection_inputs"]


@dataclass(frozen=True)
class BspPlan:
    """Algorithm 1's output.

    ``x``: n x n bool plan (x[i, j]: i sends to j); ``t_est``: the estimated
    completion time t of lines 15-20 (s); ``n_basic``: pairs selected by the
    basic selection (D included); ``n_pareto``: pairs admitted by lines 22-28.
    """

    x: np.ndarray
    t_est: float
    n_basic: int
    n_pareto: int


def check_selection_inputs(b_in, b_eg, p, v, forced=None, c=None):
    """Validate and normalize the common inputs of every selection scheme.

    ``b_in``/``b_eg``: per-worker ingress/egress bandwidth (> 0 bits/s), same
    length n >= 2; ``p``: minimum receivers per sender, an int or one per
    sender, each in [1, n - 1]; ``v``: volume per sender (> 0 bits), scalar or
    per sender; ``forced``: n x n bool matrix D (zero diagonal) or None;
    ``c``: n x n rounds-not-selected counts (>= 0) or None (all 0).
    Returns ``(b_in, b_eg, p, v, forced, c)`` as numpy arrays.
    """
    b_in = check_array("b_in", b_in, lo=0.0, lo_open=True, min_len=2)
    b_eg = check_array("b_eg", b_eg, lo=0.0, lo_open=True, min_len=2)
    n = b_in.size
    if b_eg.size != n:
        raise ValueError(f"b_eg must have the same length as b_in ({n}), got {b_eg.size}")
    p_arr = np.asarray(p)
    if p_arr.ndim == 0:
        p_arr = np.full(n, check_int("p", p_arr.item(), 1, n - 1), dtype=np.int64)
    else:
        if p_arr.shape != (n,):
            raise ValueError(f"p must be an integer or have length n = {n}, got shape {p_arr.shape}")
        for i, pi in enumerate(p_arr.tolist()):
            check_int(f"p[{i}]", pi, 1, n - 1)
        p_arr = p_arr.astype(np.int64)
    v_arr = np.asarray(v, dtype=float)
    v_arr = np.full(n, float(v_arr)) if v_arr.ndim == 0 else v_arr
    v_arr = check_array("v", v_arr, lo=0.0, lo_open=True)
    if v_arr.size != n:
        raise ValueError(f"v must be a scalar or have length n = {n}, got {v_arr.size}")
    if forced is None:
        forced = np.zeros((n, n), dtype=bool)
    else:
        forced = np.asarray(forced)
        if forced.shape != (n, n) or not np.isin(forced, (0, 1)).all():
            raise ValueError(f"forced must be an n x n 0/1 matrix (n = {n}), got shape {forced.shape}")
        forced = forced.astype(bool)
        if np.diagonal(forced).any():
            raise ValueError("forced must have a zero diagonal (a worker never sends to itself)")
    if c is None:
        c = np.zeros((n, n), dtype=np.int64)
    else:
        c = np.asarray(c)
        if c.shape != (n, n) or not np.issubdtype(c.dtype, np.integer) or (c < 0).any():
            raise ValueError(f"c must be an n x n matrix of integers >= 0 (n = {n}), got shape {c.shape}")
        c = c.astype(np.int64)
    return b_in, b_eg, p_arr, v_arr, forced, c


@njit(cache=True)
def _basic_selection(x, L, p, v, b_eg, r):
    """Lines 8-14 for the senders in order L; updates x and the egress loads r in place."""
    n = x.shape[0]
    load = np.empty(n)
    for i in L:                                          # l.8
        q = p[i] - x[i].sum()                            # l.9 (x_ii is always 0)
        if q <= 0:
            continue
        for j in range(n):                               # l.10: j's load if i selected it
            if j == i or x[i, j]:
                load[j] = np.inf                         #   not itself (4), not twice
            else:
                load[j] = (v[i] + r[j]) / b_eg[j]
        kth = np.partition(load.copy(), q - 1)[q - 1]    # the q-th lightest load
        taken = 0
        for j in range(n):                               # l.11-13: every load below it ...
            if load[j] < kth:
                x[i, j] = True
                r[j] += v[i]
                taken += 1
        for j in range(n):                               # ... then ties at it, lower id first (SM4)
            if taken == q:
                break
            if load[j] == kth:
                x[i, j] = True
                r[j] += v[i]
                taken += 1


@njit(cache=True)
def _pareto_improvement(x, order_i, order_j, v, b_in, b_eg, s, r, t, l3):
    """Lines 22-28 over the pairs of C in the given order; updates x, s, r in place.

    Returns the number of admitted pairs.
    """
    admitted = 0
    for k in range(order_i.size):                      # l.22: for each (i, j) in C
        i = order_i[k]
        j = order_j[k]
        s_new = max(s[i], v[i]) if l3 else s[i] + v[i]  # l.23: s_i via (9), provided x_ij = 1
        r_new = r[j] + v[i]                              # l.24: r_j provided x_ij = 1
        if t >= s_new / b_in[i] and t >= r_new / b_eg[j]:  # l.25
            x[i, j] = True                                # l.26
            s[i] = s_new
            r[j] = r_new
            admitted += 1
    return admitted


def selmcast_bsp(b_in, b_eg, p, v, layer: str = "L3", forced=None, c=None,
                 pareto: bool = True) -> BspPlan:
    """Algorithm 1 of seed 004: the SelMcast receiver selection for one BSP round.

    Parameters
    ----------
    b_in, b_eg : per-worker ingress (b_i^I) and egress (b_j^E) bandwidth, bits/s.
    p : minimum receivers per sender (p_i), int or one per sender, in [1, n - 1].
    v : model volume per sender (v_i), bits; scalar or one per sender.
    layer : "L3" (s_i = max_j v_ij x_ij) or "L7" (s_i = sum_j v_ij x_ij), Eq. (9).
    forced : n x n bool matrix of the pairs D that must be selected (Eq. (5)).
    c : n x n int matrix c_ij, rounds since i last selected j (orders line 21).
    pareto : run lines 15-28 (default); False stops after the basic selection.
    """
    layer = check_choice("layer", layer, ("L3", "L7"))
    b_in, b_eg, p, v, forced, c = check_selection_inputs(b_in, b_eg, p, v, forced, c)
    n = b_in.size
    ids = np.arange(n)

    # l.1-3: x_ij = 0, v_ij = v_i (one BSP round: nothing delivered yet, so v_ij is v_i of row i)
    x = np.zeros((n, n), dtype=bool)
    # l.4-6: forced pairs D
    x |= forced
    r = v @ x                                   # r_j = sum_l v_lj x_lj per egress j (kept current below)
    # l.7: senders in non-increasing order of determined receivers (stable: ties by id, SM4)
    L = np.argsort(-x.sum(axis=1), kind="stable")
    # l.8-14: each sender in L takes the q lightest-loaded egresses, load_j = (v_i + r_j) / b_j^E
    _basic_selection(x, L, p, v, b_eg, r)
    n_basic = int(x.sum())
    if not pareto:
        return BspPlan(x, float("nan"), n_basic, 0)

    # l.15-20: estimated completion time t of the basic selection
    deg = x.sum(axis=1)
    s = np.where(deg > 0, v, 0.0) if layer == "L3" else v * deg   # l.17: s_i via (9)
    t = float(max((s / b_in).max(), (r / b_eg).max()))           # l.18-19 (r_i as above)
    # l.21: C = {(i, j): x_ij = 0, i != j} in non-increasing order of c_ij (stable: row-major ties)
    free = ~x & (ids[:, None] != ids[None, :])
    ci, cj = np.nonzero(free)                   # row-major order
    cc = c[ci, cj]
    if cc.size and cc.min() != cc.max():        # (equal c: the stable sort is the identity)
        order = np.argsort(-cc, kind="stable")
        ci, cj = ci[order], cj[order]
    n_pareto = _pareto_improvement(x, ci, cj, v, b_in, b_eg, s, r, t, layer == "L3")
    return BspPlan(x, t, n_basic, int(n_pareto))
