"""Model-aggregation weights of partial reduce (seed 002 §3.1 and §3.3).

A *weight rule* is a small stateful object that the cluster simulator drives:

.. code-block:: python

    rule.reset(n)                       # t = 0: n workers, all at iteration 0
    rule.on_iteration(w)                # worker w finished one local SGD step
    ws, w_init = rule.on_sync(members)  # a group all-reduce launches

A sync replaces every member's model by
``sum_j ws[j] * x[members[j]] + w_init * x_init``; ``ws`` is a float numpy
array aligned with ``members``, every weight is >= 0 and the P + 1 weights sum
to 1 (up to rounding).

* :class:`ConstantWeights` -- constant partial reduce, 1/P each (§3.1, Alg. 2
  worker line 7).
* :class:`DynamicWeights` -- dynamic partial reduce (§3.3.3): EMA weights of
  Eq. (9) over the *relative* iteration numbers of the group members.
* :func:`ema_version_weights`, :func:`dynamic_weights` -- the same maths as
  pure functions (no state), for analysis and tests.
* :func:`make_weight_rule` -- build a rule by name.

Choices where the paper is silent are recorded in
``docs/decisions/partial_reduce.md`` (entries PR1...); docstrings refer to
them.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from simlib.core.validate import check_choice, check_int, check_real

__all__ = [
    "WEIGHT_RULES",
    "MISSING_MODES",
    "DEFAULT_ALPHA",
    "ema_version_weights",
    "relative_iterations",
    "dynamic_weights",
    "WeightRule",
    "ConstantWeights",
    "DynamicWeights",
    "make_weight_rule",
]

WEIGHT_RULES = ("constant", "dynamic")
"""Names accepted by :func:`make_weight_rule`."""

MISSING_MODES = ("initial", "oldest", "closest")
"""How the weight of a *missing version* (a relative iteration number in
[1, K] that no member holds) is assigned (§3.3.3, PR3, PR13):
``"oldest"`` (default) -- to the member(s) holding the oldest version of the
group's window; ``"initial"`` -- to the initial model x_1 (the paper's literal
"initial model", returned as ``w_init``); ``"closest"`` -- to the member(s)
holding the closest relative iteration number (the paper's alternative; an
exact tie between a fresher and a staler version is split equally, PR4)."""

DEFAULT_ALPHA = 0.5
"""Default EMA decay alpha of Eq. (9) (the paper gives none, PR2).  Each
iteration of staleness halves a version's weight; the freshest version gets at
least 1 - alpha = 1/2 and the initial model at most alpha = 1/2 in total."""


# ---------------------------------------------------------------- validation
def _check_members(members, n: int | None, name: str = "members") -> tuple[int, ...]:
    """A non-empty sequence of distinct worker ids in [0, n-1]."""
    if isinstance(members, (str, bytes)) or not hasattr(members, "__len__"):
        raise ValueError(f"{name} must be a non-empty sequence of distinct worker ids, "
                         f"got {members!r}")
    hi = None if n is None else n - 1
    out = tuple(check_int(f"{name}[{j}]", m, lo=0, hi=hi) for j, m in enumerate(members))
    if len(out) == 0:
        raise ValueError(f"{name} must be a non-empty sequence of distinct worker ids, got ()")
    if len(set(out)) != len(out):
        raise ValueError(f"{name} must hold distinct worker ids, got {out!r}")
    return out


#: :class:`DynamicWeights` remembers the weights of at most this many distinct groups (k̂ tuples).
_MEMO_MAX = 4096


def _check_alpha(alpha) -> float:
    return check_real("alpha", alpha, 0.0, 1.0, hi_open=True)


# ------------------------------------------------------------- pure functions
def ema_version_weights(K: int, alpha: float = DEFAULT_ALPHA) -> np.ndarray:
    """Bias-corrected EMA weights of Eq. (9) for relative versions 1..K.

    Eq. (9) with k replaced by the relative iteration number k̂ (§3.3.3): the
    freshest version k̂ = 1 plays the role of the newest iterate x_k, so

        beta(k̂) = (1 - alpha) * alpha**(k̂ - 1) / (1 - alpha**K),  k̂ = 1..K,

    which sums to 1 (geometric series).  ``alpha = 0`` gives (1, 0, ..., 0)
    (newest model only, 0**0 = 1); ``K = 1`` gives (1,).

    Returns a float array of length K, element ``i`` for version ``i + 1``.
    """
    K = check_int("K", K, lo=1)
    alpha = _check_alpha(alpha)
    khat = np.arange(1, K + 1, dtype=float)
    beta = (1.0 - alpha) * alpha ** (khat - 1.0) / (1.0 - alpha ** K)
    return beta


def relative_iterations(iterations: Sequence[int]) -> np.ndarray:
    """Relative iteration numbers k̂_i = max_j k_j - k_i + 1 (§3.3.3).

    ``iterations`` are the members' iteration numbers k_i (integers >= 0);
    the result is an int array in [1, K] with K = max k - min k + 1 and the
    freshest member(s) at k̂ = 1.
    """
    if isinstance(iterations, (str, bytes)) or not hasattr(iterations, "__len__"):
        raise ValueError(f"iterations must be a non-empty sequence of integers >= 0, "
                         f"got {iterations!r}")
    k = np.array([check_int(f"iterations[{j}]", v, lo=0) for j, v in enumerate(iterations)],
                 dtype=np.int64)
    if k.size == 0:
        raise ValueError("iterations must be a non-empty sequence of integers >= 0, got []")
    return k.max() - k + 1


def dynamic_weights(iterations: Sequence[int], alpha: float = DEFAULT_ALPHA,
                    missing: str = "oldest") -> tuple[np.ndarray, float]:
    """Dynamic-partial-reduce weights of one group (§3.3.3, Eq. 9).

    Parameters
    ----------
    iterations
        The members' iteration numbers k_i (one per member, integers >= 0).
    alpha
        EMA decay in [0, 1) (PR2).
    missing
        ``"initial"``, ``"oldest"`` or ``"closest"``, see :data:`MISSING_MODES` (PR3, PR4, PR13).

    Returns
    -------
    (ws, w_init)
        ``ws[j]`` is member j's weight and ``w_init`` the weight of the initial
        model x_1.  Version v in [1, K] (K = max k̂) carries
        beta(v) of :func:`ema_version_weights`; the members holding version v
        split it equally (§3.3.3 "their weights are divided equally"); the
        weight of a version no member holds goes to x_1 (``"initial"``,
        w_init = sum of missing betas) or to the held version(s) nearest to v
        (``"closest"``, split equally on an exact tie, w_init = 0), or to the
        group's stalest version k̂ = K (``"oldest"``: reading x_1 as the first
        version of the group's window rather than the training initialization).  K = 1
        (all members at the same iteration) gives 1/P each and w_init = 0.
    """
    khat = relative_iterations(iterations)
    alpha = _check_alpha(alpha)
    check_choice("missing", missing, MISSING_MODES)
    K = int(khat.max())
    beta = ema_version_weights(K, alpha)
    held = np.unique(khat)                       # sorted held versions, held[0] == 1
    version_w = np.zeros(K + 1)                  # total weight per version, index = k̂
    version_w[held] = beta[held - 1]
    w_init = 0.0
    missing_v = np.setdiff1d(np.arange(1, K + 1), held)
    if missing == "initial":
        w_init = float(beta[missing_v - 1].sum())
    elif missing == "oldest":
        version_w[K] += float(beta[missing_v - 1].sum())   # x_1 of the group's window: its stalest model
    else:
        for v in missing_v.tolist():
            d = np.abs(held - v)
            nearest = held[d == d.min()]         # one version, or two on an exact tie
            version_w[nearest] += beta[v - 1] / nearest.size
    counts = np.bincount(khat, minlength=K + 1)
    ws = version_w[khat] / counts[khat]
    return ws.astype(float), w_init


# ----------------------------------------------------------------- the rules
class WeightRule:
    """Base class: tracks each worker's iteration number k_i (§3.3.3).

    ``k_i`` grows by one per :meth:`on_iteration`; :meth:`on_sync` sets every
    member's k to the group maximum, "because all of their models are the
    latest" (§3.3.3).  Subclasses implement :meth:`_weights`.
    """

    def __init__(self) -> None:
        self._k: np.ndarray | None = None

    # -- lifecycle ---------------------------------------------------------
    def reset(self, n: int) -> None:
        """Start over with ``n`` >= 1 workers, all at iteration 0."""
        n = check_int("n", n, lo=1)
        self._k = np.zeros(n, dtype=np.int64)

    def _require_reset(self) -> np.ndarray:
        if self._k is None:
            raise RuntimeError(f"{type(self).__name__}.reset(n) must be called first")
        return self._k

    @property
    def n(self) -> int:
        """Number of workers (after :meth:`reset`)."""
        return int(self._require_reset().size)

    @property
    def iterations(self) -> np.ndarray:
        """A copy of the iteration numbers k_i, indexed by worker id."""
        return self._require_reset().copy()

    def on_iteration(self, w: int) -> None:
        """Worker ``w`` (in [0, n-1]) finished one local SGD step: k_w += 1."""
        k = self._require_reset()
        w = check_int("w", w, lo=0, hi=k.size - 1)
        k[w] += 1

    def on_iterations(self, ws) -> None:
        """:meth:`on_iteration` of every worker in ``ws`` (ids in [0, n-1], repeats allowed: k_w grows by
        the number of times w appears), in one step: the compiled engine's log replays the rule with it
        between two syncs (the same iteration numbers as one call per compute end).  A subclass that
        overrides :meth:`on_iteration` gets one call per element, in order."""
        k = self._require_reset()
        if type(self).on_iteration is not WeightRule.on_iteration:
            for w in np.asarray(ws).tolist():
                self.on_iteration(w)
            return
        ws = np.asarray(ws)
        if not ws.size:
            return
        if ws.dtype.kind not in "iu" or ws.min() < 0 or ws.max() >= k.size:
            for j, w in enumerate(ws.tolist()):
                check_int(f"ws[{j}]", w, lo=0, hi=k.size - 1)
        k += np.bincount(ws, minlength=k.size)

    def on_sync(self, members: Sequence[int]) -> tuple[np.ndarray, float]:
        """A group all-reduce among ``members`` launches.

        Returns ``(ws, w_init)`` for the members' current iteration numbers,
        then sets every member's iteration number to the group maximum.
        ``members`` must be distinct ids in [0, n-1].
        """
        k = self._require_reset()
        members = _check_members(members, k.size)
        its = k[list(members)]
        ws, w_init = self._weights(its)
        k[list(members)] = its.max()
        return ws, w_init

    def _weights(self, its: np.ndarray) -> tuple[np.ndarray, float]:  # pragma: no cover
        raise NotImplementedError


class ConstantWeights(WeightRule):
    """Constant partial reduce: weight 1/P per member, w_init = 0 (§3.1.1, Alg. 2
    worker line 7).  Iteration numbers are tracked as in the base class (they do
    not affect the weights)."""

    def _weights(self, its):
        P = its.size
        return np.full(P, 1.0 / P), 0.0

    def __repr__(self) -> str:
        return "ConstantWeights()"


class DynamicWeights(WeightRule):
    """Dynamic partial reduce (§3.3.3): EMA weights of Eq. (9) with k replaced
    by the relative iteration number k̂_i; see :func:`dynamic_weights`.

    Parameters
    ----------
    alpha
        EMA decay in [0, 1); default :data:`DEFAULT_ALPHA` = 0.5 (PR2).
        ``alpha = 0`` puts all weight on the freshest model(s).
    missing
        One of :data:`MISSING_MODES`; default ``"oldest"`` (PR13).
    """

    def __init__(self, alpha: float = DEFAULT_ALPHA, missing: str = "oldest") -> None:
        super().__init__()
        self.alpha = _check_alpha(alpha)
        self.missing = check_choice("missing", missing, MISSING_MODES)
        self._memo: dict = {}

    def _weights(self, its):
        """:func:`dynamic_weights` of ``its``, remembered by the relative iteration numbers k̂ (which, with
        ``alpha`` and ``missing``, are all it reads): a group seen before gets a copy of the same weights."""
        key = (self.alpha, self.missing, (its.max() - its).tobytes())
        hit = self._memo.get(key)
        if hit is None:
            if len(self._memo) >= _MEMO_MAX:
                self._memo.clear()
            hit = self._memo[key] = dynamic_weights(its.tolist(), self.alpha, self.missing)
        return hit[0].copy(), hit[1]

    def __repr__(self) -> str:
        return f"DynamicWeights(alpha={self.alpha!r}, missing={self.missing!r})"


def make_weight_rule(name: str, **kw) -> WeightRule:
    """Build a weight rule by name: ``"constant"`` (no options) or ``"dynamic"``
    (options ``alpha``, ``missing``)."""
    check_choice("name", name, WEIGHT_RULES)
    allowed = {"constant": (), "dynamic": ("alpha", "missing")}[name]
    for key in kw:
        if key not in allowed:
            raise ValueError(f"{key} is not an option of the {name!r} weight rule; "
                             f"allowed options: {list(allowed)}")
    if name == "constant":
        return ConstantWeights()
    return DynamicWeights(**kw)
