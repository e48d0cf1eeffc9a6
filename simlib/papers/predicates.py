"""Claim predicates: the tests a notebook applies before it records a claim.

Each takes plain values (sequences, Series, the frame of
:func:`simlib.papers.analysis.paired_ratio`) and returns a bool or a small
dataclass, so the rule behind every "holds" in the claims ledger is written
once, tested, and cited by name in the ledger's note.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from simlib.core.validate import check_choice, check_real

__all__ = ["RangeCheck", "range_claim", "monotone", "interior_extremum", "wins_at_every_x", "trend"]


def _finite_values(name: str, values) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence of numbers, got shape {arr.shape}")
    return arr


@dataclass(frozen=True)
class RangeCheck:
    """Outcome of :func:`range_claim`: our range, whether we win everywhere, whether it overlaps."""

    lo: float
    hi: float
    better_everywhere: bool
    overlaps: bool

    @property
    def holds(self) -> bool:
        return self.better_everywhere and self.overlaps

    def text(self) -> str:
        return f"{self.lo:.2f}–{self.hi:.2f}×"


def range_claim(ratios: pd.DataFrame, group: str, paper_lo: float, paper_hi: float,
                column: str = "median") -> RangeCheck:
    """The E12 rule for "up to a–b×" claims (docs/decisions/selective_reduce_experiments.md).

    ``ratios`` has one row per (``group``, x) with the paired ratio's
    ``column`` (better > 1), e.g. :func:`~simlib.papers.analysis.paired_ratio`
    by ``[group, "n"]``.  Our range spans, over the groups, the largest ratio
    of each group; the claim holds when the ratio exceeds 1 at every row *and*
    our range overlaps ``[paper_lo, paper_hi]``.
    """
    if not isinstance(ratios, pd.DataFrame) or ratios.empty:
        raise ValueError("ratios must be a non-empty DataFrame (e.g. from analysis.paired_ratio)")
    for name, col in (("group", group), ("column", column)):
        check_choice(name, col, list(ratios.columns))
    paper_lo = check_real("paper_lo", paper_lo)
    paper_hi = check_real("paper_hi", paper_hi, lo=paper_lo)
    best = ratios.groupby(group)[column].max()
    lo, hi = float(best.min()), float(best.max())
    return RangeCheck(lo, hi, bool((ratios[column] > 1).all()), bool(lo <= paper_hi and hi >= paper_lo))


def monotone(values: Sequence[float], direction: str = "increasing", strict: bool = False) -> bool:
    """Whether ``values`` (in x order) never decrease (``"increasing"``) or never increase."""
    direction = check_choice("direction", direction, ("increasing", "decreasing"))
    d = np.diff(_finite_values("values", values))
    if direction == "decreasing":
        d = -d
    return bool((d > 0).all() if strict else (d >= 0).all())


def interior_extremum(values: Sequence[float], kind: str = "max") -> bool:
    """Whether the maximum (``kind="max"``) or minimum of ``values`` lies strictly inside.

    "Rises then falls" / "dips then grows": the first extreme value is neither
    the first nor the last point.
    """
    kind = check_choice("kind", kind, ("max", "min"))
    arr = _finite_values("values", values)
    i = int(arr.argmax() if kind == "max" else arr.argmin())
    return 0 < i < arr.size - 1


def wins_at_every_x(df: pd.DataFrame, x: str, metric: str, winner: str, loser: str, *,
                    higher_is_better: bool, scheme_col: str = "scheme") -> tuple[int, int]:
    """``(wins, points)``: at how many ``x`` values the median ``metric`` of ``winner`` beats ``loser``'s.

    Medians over trials of ``df`` rows; an x value where either scheme has no
    finite value counts as a point not won.  The claim "wins at every x" holds
    when ``wins == points``.
    """
    for name, col in (("x", x), ("metric", metric), ("scheme_col", scheme_col)):
        check_choice(name, col, list(df.columns))
    for name, s in (("winner", winner), ("loser", loser)):
        check_choice(name, s, sorted(df[scheme_col].unique()))
    med = df[df[scheme_col].isin([winner, loser])].groupby([x, scheme_col])[metric].median().unstack(scheme_col)
    med = med.reindex(columns=[winner, loser])
    better = med[winner] > med[loser] if higher_is_better else med[winner] < med[loser]
    return int(better.sum()), int(len(med))


def trend(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman rank correlation of ``y`` with ``x`` (+1: always rising, -1: always falling).

    NaN ``y`` values (e.g. runs that never reached a target) are dropped; NaN
    is returned when fewer than 3 points remain or ``y`` is constant.
    """
    from scipy.stats import spearmanr

    xs, ys = _finite_values("x", x), np.asarray(y, dtype=float)
    if ys.shape != xs.shape:
        raise ValueError(f"x and y must have the same length, got {xs.size} and {ys.size}")
    keep = ~np.isnan(ys)
    if keep.sum() < 3 or np.ptp(ys[keep]) == 0:
        return float("nan")
    return float(spearmanr(xs[keep], ys[keep]).statistic)
