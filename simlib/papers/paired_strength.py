"""Per-trial paired ratios of two arms of a result frame, and the strength of verdicts on them (S24).

A comparative claim of 000 or 003 compares two arms (schemes, variants, settings) whose trial t shares
its seed.  :func:`group_strengths` gives, per group of ``by`` columns, the
:class:`~simlib.papers.strength.Strength` of the per-trial ratio ``metric[num] / metric[den]`` (the
sign-test interval of its median, decision S24); :func:`above`, :func:`below` and :func:`at_least`
decide a side of a threshold on it the way the point rules do (strict ``> t`` / ``< t``, closed ``≥ t``);
:func:`decided` combines several decisions; :func:`fields` gives a
:class:`~simlib.papers.claim.Claim`'s ``pairs``, ``sides``, ``interval`` and ``undecided``.
Uncensored values only (000's and 003's metrics are counts and means over a fixed run).
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from simlib.papers.strength import Strength, side, strength

__all__ = ["series_strength", "group_strengths", "above", "below", "at_least", "decided", "group_ratios",
           "fields"]


def series_strength(num: pd.Series, den: pd.Series, threshold: float = 1.0) -> Strength:
    """The :class:`Strength` of the ratio ``num / den`` over the index both share (the trial), against
    ``threshold``; pairs where either value is missing are left out."""
    a, b = num.astype(float).align(den.astype(float), join="inner")
    keep = a.notna() & b.notna()
    return strength((a[keep] / b[keep]).to_numpy(), threshold=threshold)


def group_ratios(df: pd.DataFrame, metric: str, by: Sequence[str], num, den, col: str = "scheme") -> dict:
    """Per ``by`` group (key: a tuple, or the value when ``by`` has one column; sorted) the per-trial
    ratios ``metric`` of rows with ``col == num`` over rows with ``col == den`` (pairs: same ``by``
    values and ``trial``; pairs with a missing value left out), in trial order.  A (group, trial, arm)
    key with several rows is an error."""
    by = [by] if isinstance(by, str) else list(by)
    missing = [c for c in by + ["trial", col, metric] if c not in df.columns]
    if missing:
        raise ValueError(f"df lacks the column(s) {missing}; it has {list(df.columns)}")
    rows = df[df[col].isin([num, den])]
    if rows.duplicated(by + ["trial", col]).any():
        raise ValueError(f"rows share their ({', '.join(by + ['trial', col])}) key: another setting varies; "
                         "pass it in `by` or filter the frame first")
    wide = rows.pivot_table(index=by + ["trial"], columns=col, values=metric, aggfunc="first")
    if num not in wide.columns or den not in wide.columns:
        return {}
    r = (wide[num].astype(float) / wide[den].astype(float)).dropna()
    return {k: g.to_numpy() for k, g in r.groupby(level=by if len(by) > 1 else by[0], sort=True)}


def group_strengths(df: pd.DataFrame, metric: str, by: Sequence[str], num, den, col: str = "scheme",
                    threshold: float = 1.0) -> dict:
    """:func:`group_ratios` as :class:`Strength` against ``threshold``, per group."""
    return {k: strength(r, threshold=threshold) for k, r in group_ratios(df, metric, by, num, den, col).items()}


def above(s: Strength) -> bool | None:
    """The median is strictly above ``s.threshold`` (:func:`~simlib.papers.strength.side`)."""
    return side(s, "above")


def below(s: Strength) -> bool | None:
    """The median is strictly below ``s.threshold``."""
    return side(s, "below")


def at_least(s: Strength) -> bool | None:
    """The median is at least ``s.threshold`` (closed): True when the interval's lower end is, False
    when its upper end is below, None when the interval straddles."""
    b = side(s, "below")
    return None if b is None else not b


def decided(values: Iterable) -> bool | None:
    """All of several decisions hold: False if any is False, else None if any is undecided, else True."""
    values = list(values)
    return False if any(v is False for v in values) else (None if any(v is None for v in values) else True)


def _label(key) -> str:
    key = key if isinstance(key, tuple) else (key,)
    return ", ".join(f"{k:g}" if isinstance(k, (int, float, np.number)) else str(k) for k in key)


def fields(groups: Mapping, direction: bool | None, magnitude: bool | None = True, label: str = "") -> dict:
    """The :class:`~simlib.papers.claim.Claim` strength fields of a verdict over ``groups`` (``{group:
    Strength}``, groups labelled ``label=<key>``): ``pairs`` (the fewest), per group ``sides`` and
    ``interval``, ``undecided`` naming the verdicts (``direction`` / ``magnitude``: their decisions,
    None = undecided; True for a magnitude not judged) left open."""
    if not groups:
        return {}
    name = (lambda k: f"{label}={_label(k)}") if label else _label
    level = next(iter(groups.values())).level
    return dict(pairs=min(s.trials for s in groups.values()),
                sides="; ".join(f"{name(k)}: {s.sides_text()}" for k, s in groups.items()),
                interval="; ".join(f"{name(k)}: {s.interval_text()}" for k, s in groups.items())
                + f" ({level:.0%} interval of the median, S24)",
                undecided=tuple(n for n, v in (("direction", direction), ("magnitude", magnitude)) if v is None))
