"""Per-trial paired ratios of two arms of a result frame, and the strength of verdicts on them (S24).

A comparative claim of 000 or 003 compares two arms (schemes, variants, settings) whose trial t shares
its seed.  :func:`group_strengths` gives, per group of ``by`` columns, the
:class:`~simlib.papers.strength.Strength` of the per-trial ratio ``metric[num] / metric[den]`` (the
sign-test interval of its median, decision S24); :func:`above`, :func:`below` and :func:`at_least`
decide a side of a threshold on it the way the point rules do (strict ``> t`` / ``< t``, closed ``≥ t``);
:func:`decided` combines several decisions; :func:`fields` gives a
:class:`~simlib.papers.claim.Claim`'s ``pairs``, ``sides``, ``interval`` and ``undecided``.
Uncensored values only (000's and 003's metrics are counts and means over a fixed run).

004's verdicts (decision SM73) use the same module with selections instead of one arm column:
:func:`paired_series` / :func:`paired_values` pair the rows matching two ``{column: value}``
selections of a long frame (one row per setting x trial x scheme, the SSP sweeps) by ``by`` and
trial, :func:`wide_values` two columns of one row of a wide frame (the BSP sweeps); their groups are
keyed by text ("lstm, 0.05", "removed" for an infinite value).  004 judges on means over trials (SM70),
so :func:`fields_on_means` also leaves a verdict open where the decided interval and the means
disagree on the side, and summarizes more than :data:`FULL_LIST` groups.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from simlib.papers.strength import Strength, side, strength

__all__ = ["series_strength", "group_strengths", "above", "below", "at_least", "decided", "group_ratios",
           "fields", "paired_series", "by_group", "paired_values", "wide_values", "groups_strength",
           "fields_on_means", "FULL_LIST"]

#: The tail of an ``interval`` text (S24), after the per-group intervals.
_TAIL = " ({level:.0%} interval of the median{what}, S24)"


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


def _listing(groups: Mapping, name, text) -> str:
    """``"<name(k)>: <text(s)>; ..."`` over the groups, in their order."""
    return "; ".join(f"{name(k)}: {text(s)}" for k, s in groups.items())


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
                sides=_listing(groups, name, Strength.sides_text),
                interval=_listing(groups, name, Strength.interval_text) + _TAIL.format(level=level, what=""),
                undecided=tuple(n for n, v in (("direction", direction), ("magnitude", magnitude)) if v is None))


# ------------------------------------------------------------ 004: selections, wide frames, means (SM73)
#: Up to this many groups, :func:`fields_on_means`' ``sides`` and ``interval`` list every group; beyond
#: it they summarize (counts, the range of the intervals, and every group that does not decide the
#: claimed way).
FULL_LIST = 4


def _select(df: pd.DataFrame, where: Mapping) -> pd.DataFrame:
    mask = np.ones(len(df), dtype=bool)
    for col, value in where.items():
        if col not in df.columns:
            raise ValueError(f"the frame has no column {col!r} (needed for {dict(where)})")
        if isinstance(value, str):
            mask &= (df[col].astype(str) == value).to_numpy()
        else:   # inf == inf (a requirement removed) counts as equal
            mask &= np.isclose(pd.to_numeric(df[col], errors="coerce").astype(float), float(value), rtol=0,
                               atol=1e-9)
    return df[mask]


def _key(key) -> str:
    parts = key if isinstance(key, tuple) else (key,)
    return ", ".join(str(p) if isinstance(p, str) else (f"{p:g}" if np.isfinite(p) else "removed") for p in parts)


def _how(how: str) -> str:
    if how not in ("ratio", "diff"):
        raise ValueError(f"how must be 'ratio' or 'diff', got {how!r}")
    return how


def paired_series(df: pd.DataFrame, metric: str, num: Mapping, den: Mapping, by: Sequence[str] = ("trace",),
                  how: str = "ratio") -> pd.Series:
    """The per-trial ``metric(num) / metric(den)`` (``how="ratio"``) or ``metric(num) - metric(den)``
    (``"diff"``) of the rows matching ``num`` and ``den`` (``{column: value}``), paired on ``by`` and
    ``trial`` (the Series' index).  A (group, trial) present twice in an arm is an error (mixed readings)."""
    _how(how)
    idx = list(by) + ["trial"]

    def arm(where):
        a = _select(df, where)
        if a.duplicated(idx).any():
            raise ValueError(f"the rows {dict(where)} hold a (group, trial) twice: select one reading first")
        return a.set_index(idx)[metric].astype(float)

    a, b = arm(num).align(arm(den), join="inner")
    return a / b if how == "ratio" else a - b


def by_group(values: pd.Series, by: Sequence[str]) -> dict[str, np.ndarray]:
    """A :func:`paired_series` (or any Series indexed by ``by`` + trial) split per group of ``by``, keyed
    by the group values as text ("lstm", "lstm, 0.05")."""
    if values.empty:
        return {}
    return {_key(key): g.to_numpy() for key, g in values.groupby(level=list(by))}


def paired_values(df: pd.DataFrame, metric: str, num: Mapping, den: Mapping, by: Sequence[str] = ("trace",),
                  how: str = "ratio") -> dict[str, np.ndarray]:
    """:func:`paired_series` per group of ``by`` (:func:`by_group`)."""
    return by_group(paired_series(df, metric, num, den, by, how), by)


def wide_values(df: pd.DataFrame, num: str, den: str, by: Sequence[str], how: str = "ratio") -> dict[str, np.ndarray]:
    """:func:`paired_values` for a wide frame: the columns ``num`` and ``den`` of the same row are a pair."""
    _how(how)
    if df.empty:
        return {}
    a, b = df[num].astype(float), df[den].astype(float)
    vals = (a / b if how == "ratio" else a - b).to_numpy()
    return {_key(key): vals[idx] for key, idx in df.groupby(list(by)).indices.items()}


def groups_strength(values: Mapping[str, np.ndarray], threshold: float = 1.0) -> dict[str, Strength]:
    """Each group's :class:`~simlib.papers.strength.Strength` against ``threshold``."""
    return {k: strength(v, threshold=threshold) for k, v in values.items()}


def _open(decision: bool | None, point: bool | None) -> bool:
    """A verdict is undecided when its interval straddles (None) or decides against the mean (SM73)."""
    return decision is None or (point is not None and decision != point)


def fields_on_means(groups: Mapping[str, Strength], direction: Mapping[str, bool | None], point: bool,
                    magnitude: bool | None = None, point_magnitude: bool | None = None, diff: bool = False) -> dict:
    """The Claim strength fields of a verdict judged on means over trials (004, SM70/SM73) over
    ``groups`` (``{group: Strength}``).

    ``direction``: per group the interval's decision (:func:`~simlib.papers.strength.side` etc.);
    ``point``: the claim's direction from the means; ``magnitude`` / ``point_magnitude``: the same
    for a magnitude judged on the compared quantity (None when it is not).  ``undecided`` names each
    verdict whose decision over all groups (:func:`decided`) is None or differs from its point
    verdict; ``sides`` and ``interval`` list every group up to :data:`FULL_LIST` groups, else
    summarize them and name every group whose decision is not True.  ``diff``: the groups hold paired
    differences, not ratios (the text drops "×")."""
    if not groups:
        return {}
    if set(direction) != set(groups):
        raise ValueError("direction must give one decision per group")
    dec = decided(direction.values())
    undecided = ["direction"] if _open(dec, point) else []
    if point_magnitude is not None and _open(magnitude, point_magnitude):
        undecided.append("magnitude")
    level = next(iter(groups.values())).level
    tail = _TAIL.format(level=level, what=f" paired {'difference' if diff else 'ratio'}")
    text = (lambda s: s.interval_text().replace("×", "")) if diff else Strength.interval_text  # noqa: E731
    same = lambda k: k  # noqa: E731
    if len(groups) <= FULL_LIST:
        sides = _listing(groups, same, Strength.sides_text)
        interval = _listing(groups, same, text) + tail
    else:
        counts = {v: sum(1 for d in direction.values() if d is v) for v in (True, False, None)}
        off = {k: groups[k] for k, d in direction.items() if d is not True}
        pairs = sorted({s.trials for s in groups.values()})
        sides = (f"{len(groups)} groups of {'/'.join(map(str, pairs))} pairs: {counts[True]} decided as claimed, "
                 f"{counts[False]} decided against, {counts[None]} undecided"
                 + ("; not as claimed: " + _listing(off, same, Strength.sides_text) if off else ""))
        lo = min(s.lo for s in groups.values())
        hi = max(s.hi for s in groups.values())
        interval = (f"{len(groups)} intervals within {lo:.3g}–{hi:.3g}"
                    + ("; not as claimed: " + _listing(off, same, text) if off else "") + tail)
    return dict(pairs=min(s.trials for s in groups.values()), sides=sides, interval=interval,
                undecided=tuple(undecided))
