"""Controller logic of *selective reduce* (seed 000 §III, Algorithms 1-3).

This module holds only the decisions the logical controller takes; the cluster
simulator that calls it (event loop, queue bookkeeping, launching the
collectives) lives elsewhere.  Everything here is a pure function: plain
values or numpy arrays in, plain values / small frozen dataclasses out, no
global state, no randomness.

* :func:`bag` -- Algorithm 1, bandwidth-aware grouping (BAG).
* :func:`predict_workers`, :func:`expected_new_worker_num`,
  :func:`expected_bandwidth` -- Algorithm 2 lines 22-37.
* :func:`bpawr` -- Algorithm 2 lines 1-21 (bandwidth- and progress-aware
  waiting and replacement), returning a :class:`BpawrDecision`.
* :func:`plan_round` -- Algorithm 3 lines 9-22, one pass of the controller
  over the ready queue, returning a :class:`RoundPlan`.

Units: seconds, bits, bits/s.  Worker ids are integers (negative ones too);
bandwidths are whatever the caller believes (estimated or exact, §IV-B5).

Where the paper is ambiguous or self-contradictory the choice made here is
recorded in ``docs/decisions/selective_reduce_algorithms.md`` (entries SR1...);
the docstrings refer to those entries.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral
from typing import Callable, Sequence

import numpy as np
from numba import njit

from simlib.core.validate import check_array, check_choice, check_int, check_real

__all__ = [
    "BASE_RULES",
    "TX_FORMS",
    "REASONS",
    "bag",
    "predict_workers",
    "expected_new_worker_num",
    "expected_bandwidth",
    "Knobs",
    "BpawrDecision",
    "bpawr",
    "RoundPlan",
    "plan_round",
]

BASE_RULES = ("text", "pseudocode")
"""``"text"``: a group's base is p workers (§III-C "select p workers"), i.e. the
test of Alg. 1 line 6 is ``len(g) < p``; ``"pseudocode"``: ``len(g) <= p`` as
printed, a base of p + 1 workers (SR1)."""

TX_FORMS = ("approx", "eq2")
"""``"approx"``: Alg. 2 line 15, t_X = 2v/min_g b - 2v/min_g* b; ``"eq2"``: the
difference of the exact Eq. (2) times, with alpha and group sizes (SR12)."""

# floor(sum p) tolerance: a sum that is an integer up to rounding (e.g. three
# probabilities 0.1 + 0.2 + 0.7) must count as that integer (SR8).
_FLOOR_TOL = 1e-9

REASONS = ("too_small", "wait_replace", "launch")
"""Values of :attr:`BpawrDecision.reason`."""

CompletionProb = Callable[[np.ndarray, np.ndarray, float], Sequence[float]]


# --------------------------------------------------------------------------- validation
def _check_ids(name: str, ids, unique: bool = True) -> np.ndarray:
    """Integer worker ids -> int64 array (bools and non-integers rejected).

    With ``unique`` (default) duplicates are rejected too.
    """
    if isinstance(ids, np.ndarray):
        arr = ids
        if arr.ndim != 1:
            raise ValueError(f"{name} must be a 1-D sequence of integer worker ids, got shape {arr.shape}")
        if arr.size and arr.dtype.kind not in "iu":
            raise ValueError(f"{name} must hold integer worker ids, got dtype {arr.dtype}")
        arr = arr.astype(np.int64, copy=False)
    else:
        seq = list(ids)
        for i, w in enumerate(seq):
            if isinstance(w, bool) or not isinstance(w, Integral):
                raise ValueError(f"{name} must hold integer worker ids; element {i} is {w!r}")
        try:
            arr = np.array(seq, dtype=np.int64)
        except OverflowError:
            raise ValueError(f"{name} must hold worker ids that fit in 64 bits") from None
    if unique and arr.size > 1 and np.unique(arr).size != arr.size:
        raise ValueError(f"{name} must not contain duplicate worker ids")
    return arr


def _check_ids_pair(name_a: str, a, name_b: str, b) -> tuple[np.ndarray, np.ndarray]:
    """Two id lists, each without duplicates and disjoint from each other (one sort)."""
    ia = _check_ids(name_a, a, unique=False)
    ib = _check_ids(name_b, b, unique=False)
    n = ia.size + ib.size
    if n > 1 and np.unique(np.concatenate((ia, ib))).size != n:
        for name, arr in ((name_a, ia), (name_b, ib)):
            if np.unique(arr).size != arr.size:
                raise ValueError(f"{name} must not contain duplicate worker ids")
        raise ValueError(f"{name_a} and {name_b} must be disjoint (a worker is either ready or in training)")
    return ia, ib


def _check_aligned(name: str, arr: np.ndarray, ref_name: str, n: int) -> None:
    if arr.size != n:
        raise ValueError(f"{name} must have one entry per element of {ref_name} ({n}), got {arr.size}")


def _check_bw(name: str, values, ref_name: str, n: int) -> np.ndarray:
    arr = check_array(name, values, lo=0.0, lo_open=True)
    _check_aligned(name, arr, ref_name, n)
    return arr


def _check_train(train_ids, train_bw, train_elapsed, ids=None):
    if ids is None:
        ids = _check_ids("train_ids", train_ids)
    bw = _check_bw("train_bw", train_bw, "train_ids", ids.size)
    el = check_array("train_elapsed", train_elapsed, lo=0.0)
    _check_aligned("train_elapsed", el, "train_ids", ids.size)
    return ids, bw, el


@dataclass(frozen=True)
class Knobs:
    """The knobs :func:`bpawr` and :func:`plan_round` take as keywords, checked on creation.

    ``p`` >= 1 the minimum group size, ``eta`` in [0, 1), ``theta`` >= 0 (``inf``
    never waits), ``dt`` > 0 the waiting slot (s), ``v`` >= 0 the model size
    (bits), ``alpha`` >= 0 the latency (s, used only by ``tx_form="eq2"``),
    ``base_rule`` one of :data:`BASE_RULES`, ``tx_form`` one of :data:`TX_FORMS`.
    """

    p: int
    eta: float
    theta: float
    dt: float
    v: float
    alpha: float = 0.0
    base_rule: str = "text"
    tx_form: str = "approx"

    def __post_init__(self):
        checked = dict(p=check_int("p", self.p, lo=1),
                       eta=check_real("eta", self.eta, 0.0, 1.0, hi_open=True),
                       theta=check_real("theta", self.theta, 0.0, allow_inf=True),
                       dt=check_real("dt", self.dt, 0.0, lo_open=True),
                       v=check_real("v", self.v, 0.0),
                       alpha=check_real("alpha", self.alpha, 0.0),
                       base_rule=check_choice("base_rule", self.base_rule, BASE_RULES),
                       tx_form=check_choice("tx_form", self.tx_form, TX_FORMS))
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @property
    def base(self) -> int:
        """A BAG group's base size: p, or p + 1 with ``base_rule="pseudocode"`` (SR1)."""
        return _base_size(self.p, self.base_rule)


def _check_callable(completion_prob) -> None:
    if not callable(completion_prob):
        raise ValueError("completion_prob must be a callable (ids, elapsed, dt) -> probabilities in [0, 1], "
                         f"got {completion_prob!r}")


def _base_size(p: int, base_rule: str) -> int:
    return p if base_rule == "text" else p + 1


# --------------------------------------------------------------------------- Algorithm 1
@njit(cache=True)
def _count_ge(a: np.ndarray, lo: int, hi: int, x: float) -> int:
    """Number of elements >= ``x`` in ``a[lo:hi]``, ``a`` non-increasing (binary search)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] >= x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _bag_ends(bw: np.ndarray, base: int, eta: float) -> np.ndarray:
    """Alg. 1 lines 4-19 on bandwidths already in line 2's order (non-increasing).

    Returns the end position of every group (group i is ``[ends[i-1], ends[i])``).
    Lines 4-8 take ``base`` workers, b* = (1 - eta) x the bandwidth of the last
    of them; lines 9-10 extend with every following worker of bandwidth >= b*
    (a contiguous run, found by binary search); lines 11-15 close the group at
    the first worker below b*, which starts the next group (SR3); lines 17-19
    keep a trailing group smaller than ``base`` (SR4).
    """
    n = bw.shape[0]
    ends = np.empty(n, np.int64)
    g = 0
    s = 0
    while s < n:
        end = s + base
        if end >= n:                                 # lines 6-8 consume the rest; 17-19
            ends[g] = n
            g += 1
            break
        b_star = bw[end - 1] * (1.0 - eta)           # line 8, last base member
        s = _count_ge(bw, end, n, b_star)            # lines 9-14
        ends[g] = s
        g += 1
    return ends[:g]


def _bag_positions(bw: np.ndarray, base: int, eta: float) -> list[np.ndarray]:
    """Alg. 1 on positions: the groups as arrays of indices into ``bw``.

    Line 2: stable non-increasing sort (ties keep input order, SR2); the rest
    is :func:`_bag_ends` on the sorted bandwidths.
    """
    if bw.size == 0:
        return []
    order = np.argsort(-bw, kind="stable")           # line 2
    return np.split(order, _bag_ends(bw[order], base, eta)[:-1])


def bag(workers: Sequence[int], bandwidths: Sequence[float], p: int, eta: float, *,
        base_rule: str = "text") -> list[list[int]]:
    """Algorithm 1 (BAG): split the ready workers into bandwidth-aware groups.

    ``workers``: worker ids in queue (FIFO) order; ``bandwidths``: their
    bandwidths in bits/s (> 0), aligned with ``workers``; ``p`` >= 1 the minimum
    group size; ``eta`` in [0, 1); ``base_rule`` one of :data:`BASE_RULES`.

    Mirrors the pseudo-code line by line:

    * line 2 -- sort non-increasingly by bandwidth; ties keep queue order
      (stable sort, SR2);
    * lines 6-8 -- fill the group's base: p workers (``base_rule="text"``,
      test ``len(g) < p``) or p + 1 (``"pseudocode"``, test ``len(g) <= p``)
      (SR1); b* = b_i (1 - eta) is set for every base member, so it ends as
      (1 - eta) x the bandwidth of the last base member;
    * lines 9-10 -- extend the group with every following worker with
      b_i >= b* (the boundary b_i = b* is included);
    * lines 11-15 -- the first worker below b* closes the group and opens the
      next one, as that group's first base member (SR3);
    * lines 17-19 -- the last group is appended even if it is smaller than p;
      BPAWR, not BAG, decides what to do with it (SR4).

    Returns the groups ``G`` as lists of worker ids, each in non-increasing
    bandwidth order; concatenated they are the sorted list ``L``.
    """
    ids = _check_ids("workers", workers)
    bw = _check_bw("bandwidths", bandwidths, "workers", ids.size)
    p = check_int("p", p, lo=1)
    eta = check_real("eta", eta, 0.0, 1.0, hi_open=True)
    base_rule = check_choice("base_rule", base_rule, BASE_RULES)
    id_list = ids.tolist()
    return [[id_list[j] for j in g] for g in _bag_positions(bw, _base_size(p, base_rule), eta)]


# --------------------------------------------------------------------------- Algorithm 2, lines 22-37
def _call_completion_prob(completion_prob, ids: np.ndarray, elapsed: np.ndarray, dt: float) -> np.ndarray:
    """Call the caller's p_i model (line 26) and check its answer cheaply."""
    out = completion_prob(ids, elapsed, dt)
    try:
        probs = np.asarray(out, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"completion_prob must return real probabilities, got {out!r}") from None
    if probs.shape != ids.shape:
        raise ValueError(f"completion_prob must return one probability per candidate worker "
                         f"(shape {ids.shape}), got shape {probs.shape}")
    # min/max propagate NaN, which then fails both comparisons
    if not (probs.min() >= 0.0 and probs.max() <= 1.0):
        return check_array("completion_prob result", probs, lo=0.0, hi=1.0)  # raises, naming the element
    return probs


def predict_workers(train_ids: Sequence[int], train_bw: Sequence[float], train_elapsed: Sequence[float],
                    dt: float, b_hat: float, completion_prob: CompletionProb
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Alg. 2 lines 22-31 (PREDICTWORKERS): the candidate list C.

    ``train_ids`` / ``train_bw`` (bits/s, > 0) / ``train_elapsed`` (s, >= 0):
    the workers in S, their bandwidths and the time t_i since each started its
    current round of training (line 24); ``dt`` > 0 the waiting slot Delta t;
    ``b_hat`` > 0 the bottleneck bandwidth of the group.

    Line 25 keeps the workers with b_i > b_hat -- the pseudo-code's strict
    test; the text of §III-D says "not less than" (SR5).  Line 26: p_i comes
    from ``completion_prob(ids, elapsed, dt)``, called once with the kept
    workers' ids (int64 array), elapsed times (float array) and ``dt``; it must
    return one probability in [0, 1] per worker.  The caller chooses what it
    computes: the paper's F(t_i + dt), the conditional
    (F(t_i + dt) - F(t_i)) / (1 - F(t_i)), or an oracle (SR6).  It is not
    called when no worker passes line 25.

    Returns ``(ids, bws, probs)``, numpy arrays in the order of ``train_ids``.
    """
    ids, bw, el = _check_train(train_ids, train_bw, train_elapsed)
    dt = check_real("dt", dt, 0.0, lo_open=True)
    b_hat = check_real("b_hat", b_hat, 0.0, lo_open=True)
    _check_callable(completion_prob)
    keep = bw > b_hat                                              # line 25
    if not keep.any():
        return ids[:0], bw[:0], np.empty(0)
    ids_c = ids[keep]
    return ids_c, bw[keep], _call_completion_prob(completion_prob, ids_c, el[keep], dt)   # line 26


def expected_new_worker_num(probs: Sequence[float]) -> float:
    """Alg. 2 lines 32-34 (CALCEXPECTEDNEWWORKERNUM): sum of p_i over C.

    ``probs``: probabilities in [0, 1].  BPAWR takes the floor of this value
    (line 8, SR8).  An empty C gives 0.0.
    """
    pr = check_array("probs", probs, lo=0.0, hi=1.0)
    return float(pr.sum())


def expected_bandwidth(bws: Sequence[float], probs: Sequence[float]) -> float:
    """Alg. 2 lines 35-37 (CALCEXPECTEDBW): sum(p_i b_i) / sum(p_i) in bits/s.

    ``bws`` (> 0) and ``probs`` (in [0, 1]) are aligned.  When sum(p_i) = 0
    (C empty, or no candidate can finish) the ratio is undefined; we return
    0.0 -- BPAWR never uses it then, as k = floor(sum p_i) = 0 (SR7).
    """
    pr = check_array("probs", probs, lo=0.0, hi=1.0)
    b = check_array("bws", bws, lo=0.0, lo_open=True)
    _check_aligned("bws", b, "probs", pr.size)
    return _expected_bandwidth(b, pr, float(pr.sum()))


def _expected_bandwidth(b: np.ndarray, pr: np.ndarray, sp: float) -> float:
    """Line 9 on arrays, ``sp`` = sum(pr); see :func:`_weighted_mean`."""
    if not sp > 0.0:
        return 0.0
    pos = pr > 0.0
    return _weighted_mean(float(pr @ b), sp, float(b[pos].min()), float(b[pos].max()))


def _weighted_mean(spb: float, sp: float, lo: float, hi: float) -> float:
    """sum(p_i b_i) / sum(p_i) kept inside [lo, hi], the range of the b_i with p_i > 0 (SR20).

    A weighted mean lies in the range of the values it averages; the rounded
    quotient can leave it by an ulp, e.g. two candidates at 4 Gbps with
    p = 0.5, 0.9 give 4e9 + 2^-21 bits/s, which then moves BAG's inclusive
    threshold b* = (1 - eta) b.  Clamping gives exactly b when all candidates
    share one bandwidth and changes nothing otherwise.
    """
    return min(max(spb / sp, lo), hi)


# --------------------------------------------------------------------------- Algorithm 2, lines 1-21
def _frozen_mask(mask: np.ndarray) -> np.ndarray:
    mask.setflags(write=False)
    return mask


@dataclass(frozen=True)
class BpawrDecision:
    """Outcome of :func:`bpawr` for one group (SR10).

    * ``launch`` -- True: synchronize the group now (line 19, "no waiting");
      False: do not launch it in this pass, either because it is too small
      (line 3) or because it waits for replacements (line 17).
    * ``moved`` -- g_Delta (line 14): the real workers of g not in g*, in g's
      order; non-empty only when ``reason == "wait_replace"``.
    * ``reason`` -- ``"too_small"`` (lines 2-3), ``"wait_replace"`` (lines
      16-17) or ``"launch"`` (line 19).
    * ``k`` -- number of virtual workers inserted (line 8, floor(sum p_i)).
    * ``b_virtual`` -- their bandwidth b (line 9, bits/s; 0.0 if sum p_i = 0).
    * ``expected_new`` -- sum p_i before the floor (line 8).
    * ``t_x`` -- estimated sync time saved by waiting and replacing (line 15, s).
    * ``checked`` -- ids of C, the workers removed from S at line 7.
    * ``remaining`` -- boolean mask over the ``train_*`` arrays given to the
      call: the workers still in S after line 7 (read-only; excluded from
      ``==`` and ``hash``).
    """

    launch: bool
    moved: tuple[int, ...]
    reason: str
    k: int
    b_virtual: float
    expected_new: float
    t_x: float
    checked: tuple[int, ...]
    remaining: np.ndarray = field(compare=False, repr=False)


@njit(cache=True)
def _decide_sorted(g: np.ndarray, k: int, b_virtual: float, base: int, eta: float, theta: float, dt: float,
                   v: float, alpha: float, eq2: bool) -> tuple[bool, int, float]:
    """Alg. 2 lines 10-19 for a group whose bandwidths ``g`` are in non-increasing order.

    L = g + k virtual workers of bandwidth ``b_virtual`` appended after g, so
    in BAG's stable sort they follow every real worker of equal bandwidth
    (SR9).  g* = BAG(L)[0] is the prefix of sorted L holding every element
    >= b* (or all of L when it has at most ``base`` elements); its real
    members are the first ``n_keep`` of g, so g_Delta = g[n_keep:] (line 14).
    Returns (wait_replace, n_keep, t_X).
    """
    m = g.shape[0]
    b_hat = g[m - 1]                                                # line 5 (g is sorted)
    if m + k <= base:                                               # lines 12-13: G = [L]
        n_keep = m
        size_star = m + k
        min_star = min(b_hat, b_virtual) if k > 0 else b_hat
    else:
        iv = _count_ge(g, np.int64(0), m, b_virtual)                # real workers sorted before the virtual
        j = base - 1                                                # last base member of L
        if j < iv:
            last = g[j]
        elif j < iv + k:
            last = b_virtual
        else:
            last = g[j - k]
        b_star = last * (1.0 - eta)                                 # Alg. 1 line 8
        n_keep = _count_ge(g, np.int64(0), m, b_star)               # Alg. 1 lines 9-10
        n_virt = k if b_virtual >= b_star else 0
        size_star = n_keep + n_virt
        if n_keep == 0:
            min_star = b_virtual
        elif n_virt == 0:
            min_star = g[n_keep - 1]
        else:
            min_star = min(g[n_keep - 1], b_virtual)
    t_x = _t_x(m, b_hat, size_star, min_star, v, alpha, eq2)       # line 15
    return t_x > theta * dt, n_keep, t_x                            # line 16


@njit(cache=True, inline="always")
def _t_x(m: int, b_hat: float, size_star: int, min_star: float, v: float, alpha: float, eq2: bool) -> float:
    """Alg. 2 line 15: t_X of a group of ``m`` workers with bottleneck ``b_hat`` against g* of
    ``size_star`` workers with bottleneck ``min_star`` (s; SR12).  For fixed sizes it is
    non-decreasing in ``min_star`` (every operation rounds monotonically)."""
    if eq2:
        return (2.0 * (m - 1) * alpha + 2.0 * (m - 1) / m * v / b_hat) \
            - (2.0 * (size_star - 1) * alpha + 2.0 * (size_star - 1) / size_star * v / min_star)
    return 2.0 * v / b_hat - 2.0 * v / min_star


def _bpawr_core(g_ids: np.ndarray, g_bw: np.ndarray, t_ids: np.ndarray, t_bw: np.ndarray, t_el: np.ndarray,
                avail: np.ndarray, kn: Knobs, completion_prob) -> tuple[BpawrDecision, np.ndarray | None]:
    """Alg. 2 lines 1-21 on validated arrays; ``avail`` is S as a mask over t_*.

    Returns the decision and, for "wait_replace", g_Delta as a mask over g.
    """
    p, dt = kn.p, kn.dt
    m = g_bw.size
    if m < p:                                                       # lines 2-3
        return BpawrDecision(False, (), "too_small", 0, 0.0, 0.0, 0.0, (), _frozen_mask(avail.copy())), None
    b_hat = float(g_bw.min())                                       # line 5
    cand = avail & (t_bw > b_hat)                                   # line 6 (PREDICTWORKERS, line 25)
    remaining = avail & ~cand                                       # line 7
    if cand.any():
        c_ids = t_ids[cand]
        probs = _call_completion_prob(completion_prob, c_ids, t_el[cand], dt)   # line 26
        sp = float(probs.sum())                                     # lines 32-34
        b_virtual = _expected_bandwidth(t_bw[cand], probs, sp)      # lines 35-37
        checked = tuple(c_ids.tolist())
    else:
        sp, b_virtual, checked = 0.0, 0.0, ()
    k = int(math.floor(sp + _FLOOR_TOL))                            # line 8
    order = np.argsort(-g_bw, kind="stable")                        # BAG line 2 on L (lines 10-12)
    wait, n_keep, t_x = _decide_sorted(g_bw[order], k, b_virtual, kn.base, kn.eta, kn.theta, dt, kn.v, kn.alpha,
                                       kn.tx_form == "eq2")         # lines 10-16
    if wait:                                                        # line 17
        delta = np.zeros(m, dtype=bool)
        delta[order[n_keep:]] = True                                # line 14
        return BpawrDecision(False, tuple(g_ids[delta].tolist()), "wait_replace", k, b_virtual, sp, t_x,
                             checked, _frozen_mask(remaining)), delta
    return BpawrDecision(True, (), "launch", k, b_virtual, sp, t_x, checked,   # line 19
                         _frozen_mask(remaining)), None


def bpawr(group: Sequence[int], group_bw: Sequence[float], train_ids: Sequence[int],
          train_bw: Sequence[float], train_elapsed: Sequence[float], *, completion_prob: CompletionProb,
          available: Sequence[bool] | None = None, **knobs) -> BpawrDecision:
    """Algorithm 2 (BPAWR) for one group g of ready workers.

    ``group`` / ``group_bw``: the group's worker ids and bandwidths (bits/s,
    > 0); ``train_ids`` / ``train_bw`` / ``train_elapsed``: the workers in
    training (S) with their bandwidths and time (s) since they started their
    current round; ``available``: optional boolean mask over ``train_ids``
    restricting S (default: all of them; :func:`plan_round` threads the
    previous decision's ``remaining`` here).  ``knobs``: the keywords of
    :class:`Knobs` -- ``p`` >= 1, ``eta`` in [0, 1), ``theta`` >= 0 (``inf``
    never waits), ``dt`` > 0 s, ``v`` >= 0 bits, and optionally ``alpha`` >= 0 s
    (used only by ``tx_form="eq2"``), ``base_rule`` as in :func:`bag`,
    ``tx_form``.  ``completion_prob`` as in :func:`predict_workers`.

    * lines 2-3 -- ``len(g) < p``: launch=False, g_Delta empty, S unchanged
      (reason ``"too_small"``; ``completion_prob`` is not called);
    * line 5 -- b_hat = min bandwidth of g;
    * line 6 -- C = PREDICTWORKERS(S, dt, b_hat): the workers of S with
      b_i > b_hat and their p_i;
    * line 7 -- every worker of C leaves S whatever the outcome and whatever
      its p_i, so a later group of the same pass cannot count it (SR11);
    * lines 8-9 -- k = floor(sum p_i) virtual workers of bandwidth
      b = sum p_i b_i / sum p_i (SR7, SR8);
    * lines 10-13 -- BAG(g + k virtual workers) with the same p, eta,
      base_rule; g* = G[0] (virtual workers are appended after g, so on a
      bandwidth tie a real worker sorts first, SR9);
    * line 14 -- g_Delta = real workers of g not in g* (g* may drop g's slow
      tail even with k = 0 when g is not itself a BAG group, SR13);
    * line 15 -- t_X = T(g) - T(g*): ``"approx"`` 2v/min_g b - 2v/min_g* b,
      ``"eq2"`` the exact Eq. (2) difference (SR12);
    * lines 16-19 -- t_X > theta dt (strict, SR19): wait and replace, i.e.
      launch=False with ``moved`` = g_Delta; otherwise launch=True.

    The returned flag means *launch now* -- the resolution of the paper's
    inconsistent True/False between Alg. 2 and Alg. 3 (SR10).
    """
    g_ids, t_ids = _check_ids_pair("group", group, "train_ids", train_ids)
    g_bw = _check_bw("group_bw", group_bw, "group", g_ids.size)
    t_ids, t_bw, t_el = _check_train(train_ids, train_bw, train_elapsed, ids=t_ids)
    kn = Knobs(**knobs)
    _check_callable(completion_prob)
    if available is None:
        avail = np.ones(t_ids.size, dtype=bool)
    else:
        avail = np.asarray(available)
        if avail.dtype != bool or avail.ndim != 1:
            raise ValueError(f"available must be a 1-D boolean mask over train_ids, got {available!r}")
        _check_aligned("available", avail, "train_ids", t_ids.size)
    return _bpawr_core(g_ids, g_bw, t_ids, t_bw, t_el, avail, kn, completion_prob)[0]


# --------------------------------------------------------------------------- Algorithm 3, lines 9-22
@dataclass(frozen=True)
class RoundPlan:
    """Outcome of one controller pass (:func:`plan_round`).

    * ``launch`` -- the groups to synchronize now, in the order Alg. 3 visits
      them (line 12), each in member order after the moves of line 15.
    * ``held`` -- real workers of the groups that decided ``"wait_replace"``
      (after their g_Delta moved on); the caller measures wasted wait time
      from them (SR17).  Workers of ``"too_small"`` groups are in neither.
    * ``groups`` -- BAG's G (line 11), before any move.
    * ``decisions`` -- one :class:`BpawrDecision` per group, in order; their
      ``remaining`` masks are over the ``train_*`` arrays of the call.
    * ``remaining`` -- S after the pass, as a read-only mask over ``train_ids``
      (excluded from ``==`` and ``hash``).
    """

    launch: tuple[tuple[int, ...], ...]
    held: tuple[int, ...]
    groups: tuple[tuple[int, ...], ...]
    decisions: tuple[BpawrDecision, ...]
    remaining: np.ndarray = field(compare=False, repr=False)


def plan_round(queue: Sequence[int], queue_bw: Sequence[float], train_ids: Sequence[int],
               train_bw: Sequence[float], train_elapsed: Sequence[float], *, completion_prob: CompletionProb,
               **knobs) -> RoundPlan:
    """Algorithm 3 lines 9-22: one partial-synchronization pass of the controller.

    ``queue`` / ``queue_bw``: the ready workers Q in FIFO order and their
    bandwidths (bits/s, > 0); ``train_ids`` / ``train_bw`` / ``train_elapsed``:
    S, the workers in training (disjoint from Q).  Other parameters as in
    :func:`bpawr`.  The caller runs this when ``len(Q) >= p`` (line 8; the
    text says "larger than p", SR18) and it is not a full-sync round; it owns
    lines 2-7, the round counter k (line 20), popping Q (line 18) and lines
    24-27.  With ``len(Q) < p`` the pass is harmless: one too-small group,
    nothing launched.

    * line 11 -- G = BAG(Q, p, eta, B) (the printed argument list
      ``BAG(Q, eta, p, theta, B)`` is a typo, SR14);
    * lines 12-13 -- for each g_i in order: BPAWR(S, g_i), S shrinking as
      BPAWR removes checked workers (line 7 of Alg. 2);
    * lines 14-16 -- if g_Delta is non-empty and g_i is not the last group,
      its workers move from g_i to the *front* of g_{i+1} (BAG sorted them
      above every member of g_{i+1}, so g_{i+1} stays sorted); in the last
      group they stay and wait with it (SR15, SR16);
    * lines 17-19 -- a group whose decision is launch is returned in
      ``launch`` (SR10).
    """
    q_ids, t_ids = _check_ids_pair("queue", queue, "train_ids", train_ids)
    q_bw = _check_bw("queue_bw", queue_bw, "queue", q_ids.size)
    t_ids, t_bw, t_el = _check_train(train_ids, train_bw, train_elapsed, ids=t_ids)
    kn = Knobs(**knobs)
    _check_callable(completion_prob)

    G = _bag_positions(q_bw, kn.base, kn.eta)                       # line 11 (positions into Q)
    groups = list(G)
    avail = np.ones(t_ids.size, dtype=bool)
    launch, held, decisions = [], [], []
    for i in range(len(groups)):                                    # line 12
        g_ids = q_ids[groups[i]]
        d, delta = _bpawr_core(g_ids, q_bw[groups[i]], t_ids, t_bw, t_el, avail, kn, completion_prob)  # line 13
        decisions.append(d)
        avail = d.remaining
        if delta is not None and i < len(groups) - 1:               # lines 14-16: to the front of g_{i+1}
            groups[i + 1] = np.concatenate((groups[i][delta], groups[i + 1]))
            groups[i] = groups[i][~delta]
            g_ids = g_ids[~delta]
        if d.launch:                                                # lines 17-19
            launch.append(tuple(g_ids.tolist()))
        elif delta is not None:                                     # "wait_replace"
            held.extend(g_ids.tolist())
    return RoundPlan(
        launch=tuple(launch),
        held=tuple(held),
        groups=tuple(tuple(q_ids[g].tolist()) for g in G),
        decisions=tuple(decisions),
        remaining=avail,
    )
