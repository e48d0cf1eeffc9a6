"""How sure a comparative verdict is: paired trials on each side and an interval for the median ratio.

A comparative claim ("A is faster than B", "A/B is 1.5–2×") is judged on the median over paired
trials of the per-trial ratio A/B (trial t of every arm shares its seed).  Decision S24
(docs/decisions/sweeps.md) gives every such verdict its strength:

* the number of paired trials, and how many lie certainly above / below the threshold;
* a distribution-free confidence interval for the *median* of the per-pair ratio, from order
  statistics (the interval that inverts the sign test, as :func:`scipy.stats.quantile_test`'s): at
  :data:`LEVEL` = 95 % it covers the true median with probability at least 95 %, exactly
  ``1 - 2 P(Binom(n, 1/2) <= k - 1)`` for continuous ratios (k: the order statistic used).  A pair
  known only as a bound (a censored run, :mod:`simlib.papers.censoring`) enters with its lower bound
  on the interval's lower end and its upper bound on the upper end, so the interval stays
  conservative.  With fewer than 6 pairs no order-statistic interval reaches 95 %: the interval is
  then ``(0, inf)`` -- nothing is decided.

A verdict is **undecided** when the interval straddles the claim's threshold (:func:`side`: 1 for a
direction; :func:`in_range`: the paper's range bounds for a magnitude).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

from simlib.papers.censoring import fmt_span

__all__ = ["LEVEL", "MIN_PAIRS", "Strength", "strength", "median_interval", "order_statistic", "exact_coverage", "side", "in_range",
           "combine_max"]

#: The interval's confidence level (S24).
LEVEL = 0.95


def _pairs_needed(level: float) -> int:
    n = 1
    while 1 - 2 * 0.5 ** n < level:
        n += 1
    return n


#: The fewest pairs whose widest interval [x(1), x(n)] reaches :data:`LEVEL` (6 at 95 %).
MIN_PAIRS = _pairs_needed(LEVEL)


def _check_level(level) -> float:
    if not isinstance(level, (int, float)) or not 0 < level < 1:
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")
    return float(level)


def _values(name: str, values) -> np.ndarray:
    arr = np.asarray(values, dtype=float).ravel()
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not contain NaN (give an unknown bound as 0 or inf)")
    return arr


@lru_cache(maxsize=None)
def order_statistic(n: int, level: float = LEVEL) -> int:
    """The 1-based order statistic k of the interval's lower end for ``n`` pairs: the largest k with
    ``2 P(Binom(n, 1/2) <= k - 1) <= 1 - level`` (so ``[x(k), x(n+1-k)]`` covers the median with
    probability ``1 - 2 P(B <= k - 1) >= level``); 0 when no k reaches ``level`` (n < :data:`MIN_PAIRS`)."""
    from scipy.stats import binom

    level = _check_level(level)
    k = 0
    while k + 1 <= (n + 1) // 2 and 2 * binom.cdf(k, n, 0.5) <= 1 - level:
        k += 1
    return k


def median_interval(lo, hi=None, level: float = LEVEL) -> tuple[float, float]:
    """A ``level`` confidence interval for the median of paired values known to lie in ``[lo_i, hi_i]``
    (``hi`` None: exactly ``lo``): ``[lo_(k), hi_(n+1-k)]`` with k of :func:`order_statistic` (the
    sign test's interval; :func:`scipy.stats.quantile_test` gives the same on exact values).
    ``(0.0, inf)`` when there are fewer than :data:`MIN_PAIRS` pairs for ``level`` (values are ratios:
    nothing is known)."""
    level = _check_level(level)
    lo = _values("lo", lo)
    hi = lo if hi is None else _values("hi", hi)
    if lo.shape != hi.shape:
        raise ValueError(f"lo and hi must have the same length, got {lo.size} and {hi.size}")
    if (lo > hi).any():
        raise ValueError("every pair needs lo <= hi")
    k = order_statistic(int(lo.size), level)
    if k == 0:
        return 0.0, math.inf
    return float(np.sort(lo)[k - 1]), float(np.sort(hi)[lo.size - k])


def exact_coverage(n: int, level: float = LEVEL) -> float:
    """The coverage of :func:`median_interval` for ``n`` pairs of a continuous ratio: ``1 - 2 P(B <= k - 1)``,
    B ~ Binom(n, 1/2), k of :func:`order_statistic`; 1.0 below :data:`MIN_PAIRS`."""
    from scipy.stats import binom

    k = order_statistic(n, level)
    return 1.0 if k == 0 else float(1 - 2 * binom.cdf(k - 1, n, 0.5))


@dataclass(frozen=True)
class Strength:
    """One compared quantity's strength: ``trials`` pairs, ``above`` / ``below`` of them certainly above /
    below ``threshold``, and the ``level`` interval ``[lo, hi]`` of the median (S24)."""

    trials: int
    above: int
    below: int
    lo: float
    hi: float
    threshold: float = 1.0
    level: float = LEVEL
    #: pairs known only as bounds (a run that never reached its target)
    censored: int = 0

    def interval_text(self) -> str:
        """``"0.88–0.90×"`` (:func:`~simlib.papers.censoring.fmt_span`: one value when both ends print the
        same), ``"≥ 1.20×"`` where censored pairs leave the upper end open, ``"n/a (3 pairs < 6)"`` where no
        interval exists; with the censored pairs counted when there are any."""
        if self.lo <= 0 and math.isinf(self.hi):
            text = f"n/a ({self.trials} pairs < {MIN_PAIRS})" if self.trials < MIN_PAIRS else "n/a"
        elif math.isinf(self.hi):
            text = f"≥ {self.lo:.2f}×"
        else:
            text = fmt_span(self.lo, self.hi)
        return text + (f", {self.censored} of {self.trials} pairs censored" if self.censored else "")

    def sides_text(self) -> str:
        return f"{self.trials} pairs: {self.above} above {self.threshold:g}, {self.below} below"


def strength(lo: Sequence[float], hi: Sequence[float] | None = None, threshold: float = 1.0,
             level: float = LEVEL) -> Strength:
    """The :class:`Strength` of per-pair ratios known to lie in ``[lo_i, hi_i]`` (``hi`` None: exact)
    against ``threshold`` (a pair counts above when ``lo_i > threshold``, below when ``hi_i < threshold``)."""
    lo_a = _values("lo", lo)
    hi_a = lo_a if hi is None else _values("hi", hi)
    a, b = median_interval(lo_a, hi_a, level)
    return Strength(int(lo_a.size), int((lo_a > threshold).sum()), int((hi_a < threshold).sum()), a, b,
                    float(threshold), level, int((lo_a != hi_a).sum()))


def side(s: Strength, claim: str) -> bool | None:
    """Whether the median is on the claimed side of ``s.threshold`` (``claim``: "above" or "below"):
    True when the whole interval is strictly on it, False when the whole interval is on the other side
    (or at the threshold), None (undecided) when the interval straddles the threshold."""
    if claim not in ("above", "below"):
        raise ValueError(f"claim must be 'above' or 'below', got {claim!r}")
    lo, hi, t = (s.lo, s.hi, s.threshold) if claim == "above" else (-s.hi, -s.lo, -s.threshold)
    if lo > t:
        return True
    if hi <= t:
        return False
    return None


def in_range(s: Strength, lo: float, hi: float) -> bool | None:
    """Whether the median lies in the paper's closed range ``[lo, hi]``: True when the whole interval
    does, False when the interval misses it, None (undecided) when the interval straddles a bound."""
    if lo > hi:
        raise ValueError(f"range must have lo <= hi, got [{lo}, {hi}]")
    if lo <= s.lo and s.hi <= hi:
        return True
    if s.hi < lo or s.lo > hi:
        return False
    return None


def combine_max(strengths: Sequence[Strength]) -> Strength:
    """The strength of the largest of several medians (e.g. "up to X×" over HLs): the interval
    ``[max lo, max hi]`` (it covers the largest median when every interval covers its own); pairs and
    sides are those of the group whose upper end is largest."""
    if not strengths:
        raise ValueError("strengths must not be empty")
    top = max(strengths, key=lambda s: (s.hi, s.lo))
    return Strength(top.trials, top.above, top.below, max(s.lo for s in strengths), top.hi, top.threshold,
                    top.level, top.censored)
