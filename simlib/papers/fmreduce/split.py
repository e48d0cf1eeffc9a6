"""Model splits of seed 003 §2 problem 1: Eq. (1a)/(1b), LP (2) and the evenly divided split.

Worker ids are 0..n-1.  ``b`` is the n x n matrix of directed link bandwidths
b_ij (bits/s; the diagonal is ignored: b_ii "would not be the bottleneck",
footnote 1).  A split is a length-n vector ``x`` of block sizes in bits,
``x[j]`` = the block reduced by worker j (0 for workers that reduce nothing),
with ``sum(x) = v``.

*Senders* are the workers that scatter (the round's participants), *receivers*
the workers the reduced blocks go back to (the same participants), and
*reducers* the workers that hold a block (all n for FMReduce, the p
participants for the original partial reduce).  Eq. (1a)/(1b) with those sets
(decision FM6):

    T_scatter   = max_{j in reducers} x_j / min_{i in senders,   i != j} b_ij     (1a)
    T_broadcast = max_{j in reducers} x_j / min_{k in receivers, k != j} b_jk     (1b)

A reducer with no other sender (receiver) has an infinite minimum: its block
never crosses a link.  LP (2) minimises T_scatter + T_broadcast subject to
sum(x) = v, x >= 0.  Two independent solvers:

* ``solver="highs"``: LP (2) in epigraph form for :func:`scipy.optimize.linprog`
  (HiGHS): variables (x, S, B), minimise S + B, x_j <= a_j S, x_j <= c_j B;
* ``solver="breakpoint"``: the exact closed form.  With S = lam * t,
  B = (1 - lam) * t the largest model that fits is t * h(lam),
  h(lam) = sum_j min(a_j lam, c_j (1 - lam)), concave and piecewise linear, so
  the optimum is t* = v / max h at one of the breakpoints lam_j = c_j / (a_j + c_j)
  and x_j = min(a_j S, c_j B).  O(m^2) numpy for m reducers (decision FM7).

:func:`breakpoint_split_into` is the breakpoint solver compiled for the
simulator's event loop (decision FM12); it repeats numpy's floating-point
operations in numpy's order (:func:`pairwise_sum` is numpy's summation), so
it returns the same bits as ``lp_split(..., solver="breakpoint")`` (tests).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from simlib.core.validate import check_choice, check_real

__all__ = ["SplitTimes", "bottleneck_rates", "phase_times", "even_split", "lp_split", "SOLVERS",
           "breakpoint_split_into", "pairwise_sum"]

SOLVERS = ("highs", "breakpoint")


class SplitTimes(tuple):
    """``(T_scatter, T_broadcast)`` in seconds, Eq. (1a)/(1b)."""

    __slots__ = ()

    def __new__(cls, scatter: float, broadcast: float):
        return super().__new__(cls, (float(scatter), float(broadcast)))

    @property
    def scatter(self) -> float:
        return self[0]

    @property
    def broadcast(self) -> float:
        return self[1]

    @property
    def total(self) -> float:
        return self[0] + self[1]


def _check_mesh(b) -> np.ndarray:
    b = np.asarray(b, dtype=float)
    if b.ndim != 2 or b.shape[0] != b.shape[1] or b.shape[0] < 1:
        raise ValueError(f"b must be a square n x n bandwidth matrix, got shape {b.shape}")
    off = ~np.eye(b.shape[0], dtype=bool)
    if not np.isfinite(b[off]).all() or (b[off] < 0).any():
        raise ValueError("b must have finite off-diagonal bandwidths >= 0 bits/s")
    return b


def _ids(name: str, ids, n: int) -> np.ndarray:
    arr = np.arange(n) if ids is None else np.asarray(ids, dtype=np.int64).ravel()
    if arr.size == 0:
        raise ValueError(f"{name} must name at least one worker")
    if (arr < 0).any() or (arr >= n).any():
        raise ValueError(f"{name} must be worker ids in [0, {n - 1}], got {arr.tolist()}")
    if np.unique(arr).size != arr.size:
        raise ValueError(f"{name} must not repeat a worker, got {arr.tolist()}")
    return np.sort(arr)


def bottleneck_rates(b, reducers, senders, receivers) -> tuple[np.ndarray, np.ndarray]:
    """``(a, c)`` per reducer (bits/s): a_j = min_{i in senders, i != j} b_ij (Eq. 1a),
    c_j = min_{k in receivers, k != j} b_jk (Eq. 1b); inf where the set is empty."""
    sub_in = b[np.ix_(senders, reducers)].copy()
    sub_out = b[np.ix_(reducers, receivers)].copy()
    sub_in[senders[:, None] == reducers[None, :]] = np.inf
    sub_out[reducers[:, None] == receivers[None, :]] = np.inf
    return sub_in.min(axis=0), sub_out.min(axis=1)


def phase_times(x, b, senders=None, receivers=None) -> SplitTimes:
    """Eq. (1a) and (1b) for split ``x`` (bits, length n) on mesh ``b`` (bits/s).

    ``senders``/``receivers`` default to all n workers; reducers are the
    workers with ``x_j > 0``.  Returns :class:`SplitTimes` in seconds.
    """
    b = _check_mesh(b)
    n = b.shape[0]
    x = np.asarray(x, dtype=float)
    if x.shape != (n,) or not np.isfinite(x).all() or (x < 0).any():
        raise ValueError(f"x must be {n} finite block sizes >= 0 bits, got {x!r}")
    senders, receivers = _ids("senders", senders, n), _ids("receivers", receivers, n)
    red = np.flatnonzero(x > 0)
    if red.size == 0:
        return SplitTimes(0.0, 0.0)
    a, c = bottleneck_rates(b, red, senders, receivers)
    with np.errstate(divide="ignore"):
        ts = np.where(np.isinf(a), 0.0, x[red] / a)
        tb = np.where(np.isinf(c), 0.0, x[red] / c)
    return SplitTimes(ts.max(), tb.max())


def even_split(v: float, n: int, reducers=None) -> np.ndarray:
    """Evenly divided split: x_j = v / m for each of the m reducers (default all n), else 0."""
    v = check_real("v", v, 0.0)
    red = _ids("reducers", reducers, int(n))
    x = np.zeros(int(n))
    x[red] = v / red.size
    return x


def _solve_breakpoint(a: np.ndarray, c: np.ndarray, v: float) -> np.ndarray:
    # Breakpoints of h(lam) = sum_j min(a_j lam, c_j (1 - lam)); h(0) = h(1) = 0.
    s = a + c
    lam = np.where(s > 0, c / np.where(s > 0, s, 1.0), 0.0)
    h = np.minimum(a[None, :] * lam[:, None], c[None, :] * (1.0 - lam[:, None])).sum(axis=1)
    k = int(np.argmax(h))
    if not h[k] > 0:
        raise ValueError("b must give every split a finite time: every reducer has a zero-bandwidth "
                         "link to a sender or receiver")
    t = v / h[k]
    x = np.minimum(a * lam[k] * t, c * (1.0 - lam[k]) * t)
    return x * (v / x.sum())


def _solve_highs(a: np.ndarray, c: np.ndarray, v: float) -> np.ndarray:
    m = a.size
    a, c = a / v, c / v  # x in units of v, S and B in seconds: O(1) numbers for HiGHS
    # variables: x_0..x_{m-1}, S, B
    cost = np.zeros(m + 2)
    cost[m:] = 1.0
    rows = []
    for j in range(m):
        r = np.zeros(m + 2)
        r[j], r[m] = 1.0, -a[j]          # x_j / a_j <= S   (1a)
        rows.append(r)
        r = np.zeros(m + 2)
        r[j], r[m + 1] = 1.0, -c[j]      # x_j / c_j <= B   (1b)
        rows.append(r)
    a_eq = np.zeros((1, m + 2))
    a_eq[0, :m] = 1.0
    from scipy.optimize import linprog   # here: importing scipy.optimize costs ~0.3 s (python -m simlib --help)

    res = linprog(cost, A_ub=np.array(rows), b_ub=np.zeros(2 * m), A_eq=a_eq, b_eq=[1.0],
                  bounds=[(0, None)] * (m + 2), method="highs")
    if res.status != 0:
        raise ValueError(f"b must give LP (2) a finite optimum; HiGHS says: {res.message}")
    x = np.clip(res.x[:m], 0.0, None)
    return x * (v / x.sum())


def lp_split(v: float, b, participants=None, reducers=None, solver: str = "breakpoint") -> np.ndarray:
    """Network-aware split of LP (2): minimise Eq. (1a) + (1b) over x >= 0, sum(x) = v.

    ``v`` model size in bits; ``b`` bandwidths (bits/s); ``participants`` the
    round's senders and receivers (default all n: the non-blocking predefined
    split); ``reducers`` the workers that may hold a block (default all n).
    Returns x (bits, length n, 0 outside ``reducers``).  ``solver`` is
    ``"highs"`` (scipy linprog) or ``"breakpoint"`` (exact closed form); both
    reach the same optimum (tests).  If a reducer is the only participant,
    its block never crosses a link and it gets the whole model.
    """
    b = _check_mesh(b)
    v = check_real("v", v, 0.0)
    check_choice("solver", solver, SOLVERS)
    n = b.shape[0]
    part = _ids("participants", participants, n)
    red = _ids("reducers", reducers, n)
    x = np.zeros(n)
    if v == 0.0:
        return x
    a, c = bottleneck_rates(b, red, part, part)
    free = np.flatnonzero(np.isinf(a) & np.isinf(c))
    if free.size:  # a block that never leaves its reducer: zero time
        x[red[free[0]]] = v
        return x
    x[red] = (_solve_highs if solver == "highs" else _solve_breakpoint)(a, c, v)
    return x


# --------------------------------------------------------------------------- compiled twin
_PW_BLOCK = 128   # numpy's PW_BLOCKSIZE


@njit(cache=True, inline="always")
def _pairwise_block(a, lo, m):
    """numpy's pairwise_sum for m <= 128: sequential below 8, else 8 partial sums."""
    if m < 8:
        res = 0.0
        for i in range(m):
            res += a[lo + i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < m - m % 8:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < m:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True)
def pairwise_sum(a, lo, m):
    """sum(a[lo:lo + m]) added in the order of numpy's pairwise summation (``np.add.reduce`` on a
    contiguous float64 axis: 8 partial sums per block of <= 128, halves above), so the result
    has the same bits as ``a[lo:lo + m].sum()``.  numpy recurses into the halves; this walks the
    same tree with an explicit stack (numba's cache mishandles recursive functions)."""
    if m <= _PW_BLOCK:
        return _pairwise_block(a, lo, m)
    los = np.empty(64, np.int64)
    ms = np.empty(64, np.int64)
    stage = np.zeros(64, np.int64)           # 0: go left, 1: left done, go right, 2: both done
    left = np.empty(64)
    sp = 0
    los[0], ms[0] = lo, m
    ret = 0.0
    while sp >= 0:
        l, mm = los[sp], ms[sp]
        if mm <= _PW_BLOCK:
            ret = _pairwise_block(a, l, mm)
            sp -= 1
            continue
        half = mm // 2
        half -= half % 8
        if stage[sp] == 0:
            stage[sp] = 1
            sp += 1
            los[sp], ms[sp], stage[sp] = l, half, 0
        elif stage[sp] == 1:
            left[sp] = ret
            stage[sp] = 2
            sp += 1
            los[sp], ms[sp], stage[sp] = l + half, mm - half, 0
        else:
            ret = left[sp] + ret
            sp -= 1
    return ret


@njit(cache=True)
def breakpoint_split_into(v, b, part, red, x):
    """``lp_split(v, b, part, red, solver="breakpoint")`` written into ``x`` (length n, bits).

    ``part`` and ``red`` are sorted worker ids (int64) without repeats, ``v`` >= 0.
    Returns False (``x`` unusable) where :func:`_solve_breakpoint` raises: no split has a
    finite time."""
    x[:] = 0.0
    if v == 0.0:
        return True
    m = red.shape[0]
    a = np.empty(m)
    c = np.empty(m)
    for q in range(m):                      # bottleneck_rates
        j = red[q]
        aj = np.inf
        cj = np.inf
        for i in part:
            if i != j:
                aj = min(aj, b[i, j])
                cj = min(cj, b[j, i])
        a[q] = aj
        c[q] = cj
    for q in range(m):                      # a block that never leaves its reducer
        if a[q] == np.inf and c[q] == np.inf:
            x[red[q]] = v
            return True
    lam = np.empty(m)
    for q in range(m):
        s = a[q] + c[q]
        lam[q] = c[q] / s if s > 0 else 0.0
    row = np.empty(m)
    best = -np.inf
    k = 0
    for r in range(m):                      # h at every breakpoint; argmax keeps the first maximum
        for q in range(m):
            row[q] = min(a[q] * lam[r], c[q] * (1.0 - lam[r]))
        h = pairwise_sum(row, 0, m)
        if h > best:
            best = h
            k = r
    if not best > 0:
        return False
    t = v / best
    for q in range(m):
        row[q] = min(a[q] * lam[k] * t, c[q] * (1.0 - lam[k]) * t)
    f = v / pairwise_sum(row, 0, m)
    for q in range(m):
        x[red[q]] = row[q] * f
    return True
