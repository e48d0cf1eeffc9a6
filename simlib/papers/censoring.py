"""Paired time-to-target comparisons when some runs never reach the target (censoring).

A run that never reached a target within its cap ``c`` (its simulated length, s) is *censored*:
its time to target is unknown but larger than ``c``.  Its time is therefore the interval
``(c, inf)``; a run that reached it at ``t`` has the point ``[t, t]``.  The paired ratio
``A / B`` of two runs lies in ``[lo, hi]`` with

* both reached: ``lo = hi = t_A / t_B`` (a number);
* A censored at ``c_A``, B reached at ``t_B``: ``A / B > c_A / t_B`` (``lo = c_A / t_B``, ``hi = inf``);
* A reached at ``t_A``, B censored at ``c_B``: ``A / B < t_A / c_B`` (``lo = 0``, ``hi = t_A / c_B``);
* both censored: nothing is known (``lo = 0``, ``hi = inf``: "n/a").

The bounds are tight: every value strictly inside them is the ratio of some pair of true
times consistent with the observations.  The median, minimum and maximum are monotone
(non-decreasing in every argument), so each statistic over pairs -- and any statistic of
statistics, e.g. the range over settings of per-setting medians -- lies in
``[stat(lo), stat(hi)]``, and those ends are attained as limits (every ratio moves to its
own end independently).  A statistic is a *number* only when the two ends agree; otherwise
it is reported as a bound (``"≥ 1.80×"``, ``"≤ 0.60×"``), an interval (``"1.20–1.50× (bounds)"``)
or ``"n/a"`` -- never as the number a censored run would give if it had stopped at its cap,
and never drawn as 0.  A directional statement "the median ratio is > 1" is True when
``stat(lo) > 1``, False when ``stat(hi) <= 1`` and undetermined (None) otherwise.

Times are seconds (or any unit shared by both runs); a ratio is dimensionless.  A reached
time of 0 (the target met at the first evaluation) gives the ratios numpy gives (x / 0 = inf,
0 / 0 = NaN, treated as unknown).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

__all__ = ["ratio_bounds", "Bounded", "bounded_stat", "fmt_bound", "fmt_span", "span_of", "verdict_above",
           "paired_bounds", "PAIRED_COLUMNS", "CENSORING_RULE", "summary"]

#: The rule every time-to-target comparison follows (README, ledger notes).
CENSORING_RULE = ("a run that never reached the target is censored at its cap (its run length); a paired "
                  "ratio with a censored run is a bound (> or <) or n/a, never a number; a statistic over "
                  "pairs is a number only when every censored pair leaves it unchanged")


def _as_float(name: str, a) -> np.ndarray:
    try:
        out = np.asarray(a, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be real numbers (NaN: target not reached), got {a!r}") from None
    return out


def ratio_bounds(t_num, cap_num, t_den, cap_den) -> tuple[np.ndarray, np.ndarray]:
    """Tight bounds ``(lo, hi)`` of the paired ratio ``num / den`` of times to a target.

    ``t_num``, ``t_den``: the times (s) at which each run first reached the target, NaN when it
    never did; ``cap_num``, ``cap_den``: each run's cap (s; the simulated time it ran), >= 0
    wherever the time is NaN (0: nothing is known about a censored run, e.g. a count whose
    value at the cap was not recorded).  Arrays broadcast.  ``lo`` is 0 when the numerator may be
    arbitrarily small relative to the denominator, ``hi`` is inf when it may be arbitrarily
    large (module docstring).  A reached time larger than its cap is an error."""
    tn, cn, td, cd = (_as_float(k, v) for k, v in (("t_num", t_num), ("cap_num", cap_num), ("t_den", t_den),
                                                   ("cap_den", cap_den)))
    tn, cn, td, cd = np.broadcast_arrays(tn, cn, td, cd)
    for name, t, c in (("num", tn, cn), ("den", td, cd)):
        cens = np.isnan(t)
        if np.any(cens & ~(c >= 0)):
            raise ValueError(f"cap_{name} must be >= 0 (s) for every censored run (t_{name} NaN), got "
                             f"{c[cens & ~(c >= 0)][0]}")
        if np.any(~cens & (t < 0)):
            raise ValueError(f"t_{name} must be >= 0 (s) or NaN, got {t[~cens & (t < 0)][0]}")
        if np.any(~cens & (t > c)):
            raise ValueError(f"t_{name} must be at most cap_{name} (a run cannot reach a target after its cap)")
    cn_, cd_ = np.isnan(tn), np.isnan(td)
    with np.errstate(divide="ignore", invalid="ignore"):
        exact = tn / td
        lo = np.where(cn_ & ~cd_, cn / td, np.where(~cn_ & ~cd_, exact, 0.0))
        hi = np.where(~cn_ & cd_, tn / cd, np.where(~cn_ & ~cd_, exact, np.inf))
    bad = np.isnan(lo) | np.isnan(hi)           # 0 / 0: nothing known
    lo = np.where(bad, 0.0, lo)
    hi = np.where(bad, np.inf, hi)
    return lo, hi


@dataclass(frozen=True)
class Bounded:
    """A statistic known to lie in ``[lo, hi]`` (0 <= lo <= hi <= inf); a number when lo == hi.

    ``pairs``: pairs it summarizes; ``censored_num`` / ``censored_den`` / ``censored_both``: pairs
    where only the numerator's, only the denominator's, or both runs never reached the target."""

    lo: float
    hi: float
    pairs: int = 0
    censored_num: int = 0
    censored_den: int = 0
    censored_both: int = 0

    @property
    def determined(self) -> bool:
        """True when the statistic is a number (its two ends agree)."""
        return self.lo == self.hi

    @property
    def value(self) -> float:
        """The number when determined, else NaN (never a censored run's stand-in value)."""
        return float(self.lo) if self.determined else math.nan

    @property
    def censored(self) -> int:
        """Pairs with at least one censored run."""
        return self.censored_num + self.censored_den + self.censored_both

    def text(self, strict: bool = False) -> str:
        """:func:`fmt_bound` of the two ends."""
        return fmt_bound(self.lo, self.hi, strict=strict)

    def censoring_text(self) -> str:
        """How many of the pairs were censored, e.g. ``"3 of 20 pairs censored (numerator 2, both 1)"``."""
        if not self.censored:
            return f"no pair of {self.pairs} censored"
        parts = [f"{w} {k}" for w, k in (("numerator", self.censored_num), ("denominator", self.censored_den),
                                          ("both", self.censored_both)) if k]
        return f"{self.censored} of {self.pairs} pairs censored ({', '.join(parts)})"

    def above(self, threshold: float = 1.0) -> bool | None:
        """:func:`verdict_above` of this statistic."""
        return verdict_above(self.lo, self.hi, threshold)


def fmt_span(lo: float, hi: float, digits: int = 2) -> str:
    """A range of ratios that are all known (a min–max over trials, or over a paper's table):
    ``"1.20–1.50×"``, or ``"1.20×"`` when both ends print the same (no ``"1.09–1.09×"``, which reads
    like the bounds of a censored ratio).  Bounds of censored ratios: :func:`fmt_bound`."""
    lo_s, hi_s = f"{float(lo):.{digits}f}", f"{float(hi):.{digits}f}"
    return f"{lo_s}×" if lo_s == hi_s else f"{lo_s}–{hi_s}×"


def span_of(values, digits: int = 2) -> str:
    """:func:`fmt_span` of the smallest and largest of ``values`` (a non-empty sequence of ratios)."""
    return fmt_span(min(values), max(values), digits)


def fmt_bound(lo: float, hi: float, strict: bool = False, digits: int = 2) -> str:
    """``"1.23×"`` (a number), ``"≥ 1.80×"`` / ``"≤ 0.60×"`` (a one-sided bound), ``"1.20–1.50× (bounds)"``
    or ``"n/a"`` (nothing known).  ``strict``: a single pair's bound is strict (``">"``, ``"<"``)."""
    lo, hi = float(lo), float(hi)
    if lo == hi:
        return f"{lo:.{digits}f}×"
    if lo <= 0 and math.isinf(hi):
        return "n/a"
    if math.isinf(hi):
        return f"{'>' if strict else '≥'} {lo:.{digits}f}×"
    if lo <= 0:
        return f"{'<' if strict else '≤'} {hi:.{digits}f}×"
    while f"{lo:.{digits}f}" == f"{hi:.{digits}f}" and digits < 6:   # close bounds: enough digits to differ
        digits += 1
    return f"{lo:.{digits}f}–{hi:.{digits}f}× (bounds)"


def verdict_above(lo: float, hi: float, threshold: float = 1.0) -> bool | None:
    """Is the statistic in ``[lo, hi]`` strictly above ``threshold``?  True when ``lo > threshold``,
    False when ``hi <= threshold``, None (undetermined by the censored pairs) otherwise."""
    if lo > threshold:
        return True
    if hi <= threshold:
        return False
    return None


def bounded_stat(lo, hi, stat: str = "median") -> tuple[float, float]:
    """``(stat(lo), stat(hi))`` for a monotone ``stat`` ("median", "min" or "max"): the tight bounds
    of that statistic over values known to lie in ``[lo_i, hi_i]``.  Empty input: (NaN, NaN)."""
    f = {"median": np.median, "min": np.min, "max": np.max}.get(stat)
    if f is None:
        raise ValueError(f"stat must be one of ['median', 'min', 'max'], got {stat!r}")
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    if lo.shape != hi.shape:
        raise ValueError(f"lo and hi must have the same shape, got {lo.shape} and {hi.shape}")
    if lo.size == 0:
        return math.nan, math.nan
    if np.any(lo > hi):
        raise ValueError("lo must be <= hi elementwise")
    with np.errstate(invalid="ignore"):
        return float(f(lo)), float(f(hi))


#: Columns of :func:`paired_bounds` after the ``by`` columns.
PAIRED_COLUMNS = ("median_lo", "median_hi", "min_lo", "min_hi", "max_lo", "max_hi", "pairs", "censored_num",
                  "censored_den", "censored_both", "reached_num", "reached_den", "wins", "losses", "median_text")


def paired_bounds(df: pd.DataFrame, time_col: str, cap, by: Sequence[str], num: str, den: str,
                  scheme_col: str = "scheme") -> pd.DataFrame:
    """Per ``by`` group, the bounds of the median (and min, max) over trials of the paired ratio
    ``time[num] / time[den]`` of times to a target, with censoring (module docstring).

    ``df``: one row per (``by`` setting, ``trial``, scheme); ``time_col``: time to target (s), NaN
    when never reached; ``cap``: the cap (s) of every run, a number or the name of a column (e.g.
    ``"duration_s"``).  Returns ``by`` + :data:`PAIRED_COLUMNS`: ``pairs`` (trials with both
    schemes), counts of censored pairs, ``reached_num`` / ``reached_den`` (share of each scheme's
    runs that reached the target), ``wins`` / ``losses`` (pairs certainly > 1 / certainly <= 1,
    i.e. ``lo > 1`` / ``hi <= 1``) and ``median_text`` (:func:`fmt_bound`).  A (group, trial,
    scheme) key with more than one row is an error."""
    by = [by] if isinstance(by, str) else list(by)
    need = by + ["trial", scheme_col, time_col] + ([cap] if isinstance(cap, str) else [])
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise ValueError(f"df lacks the column(s) {missing}; it has {list(df.columns)}")
    rows = df[df[scheme_col].isin([num, den])]
    for s in (num, den):
        if s not in set(rows[scheme_col]):
            raise ValueError(f"df[{scheme_col!r}] lacks {s!r}; it has {sorted(set(df[scheme_col]))}")
    keys = by + ["trial"]
    dup = rows.duplicated(keys + [scheme_col], keep=False)
    if dup.any():
        raise ValueError(f"{int(dup.sum())} rows share their ({', '.join(keys + [scheme_col])}) key: another "
                         "setting column varies; pass it in `by` or filter the frame first")
    caps = rows[cap].astype(float) if isinstance(cap, str) else pd.Series(float(cap), index=rows.index)
    wide = rows.assign(_t=rows[time_col].astype(float), _c=caps).pivot(index=keys, columns=scheme_col,
                                                                        values=["_t", "_c"])
    wide = wide[wide["_c"][[num, den]].notna().all(axis=1)]
    tn, td = wide["_t"][num].to_numpy(), wide["_t"][den].to_numpy()
    lo, hi = ratio_bounds(tn, wide["_c"][num].to_numpy(), td, wide["_c"][den].to_numpy())
    per = pd.DataFrame({"lo": lo, "hi": hi, "cn": np.isnan(tn) & ~np.isnan(td), "cd": ~np.isnan(tn) & np.isnan(td),
                        "cb": np.isnan(tn) & np.isnan(td)}, index=wide.index).reset_index()
    out = []
    for group, g in per.groupby(by, sort=True) if by else [((), per)]:
        group = group if isinstance(group, tuple) else (group,)
        rec = dict(zip(by, group))
        for stat in ("median", "min", "max"):
            rec[f"{stat}_lo"], rec[f"{stat}_hi"] = bounded_stat(g["lo"], g["hi"], stat)
        sel = rows
        for c, v in zip(by, group):
            sel = sel[sel[c] == v]
        rec.update(pairs=len(g), censored_num=int(g["cn"].sum()), censored_den=int(g["cd"].sum()),
                   censored_both=int(g["cb"].sum()),
                   reached_num=float(sel.loc[sel[scheme_col] == num, time_col].notna().mean()),
                   reached_den=float(sel.loc[sel[scheme_col] == den, time_col].notna().mean()),
                   wins=int((g["lo"] > 1).sum()), losses=int((g["hi"] <= 1).sum()),
                   median_text=fmt_bound(rec["median_lo"], rec["median_hi"]))
        out.append(rec)
    return pd.DataFrame(out, columns=by + list(PAIRED_COLUMNS))


def summary(table: pd.DataFrame, stat: str = "median", over: str = "median") -> Bounded:
    """The bounds of ``over`` ("min", "median" or "max") across the rows of a :func:`paired_bounds`
    table of the per-row ``stat`` bounds, with the censoring counts summed over the rows."""
    lo, hi = bounded_stat(table[f"{stat}_lo"], table[f"{stat}_hi"], over)
    return Bounded(lo, hi, int(table["pairs"].sum()), int(table["censored_num"].sum()),
                   int(table["censored_den"].sum()), int(table["censored_both"].sum()))

