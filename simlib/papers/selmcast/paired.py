"""How sure 004's comparative verdicts are (decisions S24, SM73): paired seeds, per compared group.

Trial t of every arm of a 004 sweep shares its seed, so SelMcast against Orpheus (or SelMcast at
η = 0.75 against η = 0) is a paired comparison.  :func:`paired_values` turns a long frame (one row
per setting x trial x scheme, as the SSP sweeps save it) or two columns of a wide frame (the BSP
sweeps: one row per trial with ``selmcast_*`` and ``orpheus_*`` columns) into per-group arrays of
per-trial ratios (or differences); :func:`groups_strength` gives each group its
:class:`~simlib.papers.strength.Strength` and :func:`fields` the
:class:`~simlib.papers.claim.Claim` strength fields (``pairs``, ``sides``, ``interval``,
``undecided``) of a verdict that quantifies over the groups ("on every trace", "at every p/n").

The verdicts of 004 are judged on means over trials (SM70: the paper reports means); the interval
is the sign-test interval of the *median* paired ratio (S24).  A verdict is undecided when that
interval straddles the threshold of a group, or when the decided interval and the mean disagree on
the side (SM73): then neither statistic can be reported without the other.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from simlib.papers.paired_strength import decided
from simlib.papers.strength import Strength, strength

__all__ = ["paired_series", "by_group", "paired_values", "wide_values", "groups_strength", "all_of", "fields", "FULL_LIST"]

#: Up to this many groups, ``sides`` and ``interval`` list every group; beyond it they summarize
#: (counts, the range of the intervals, and every group that does not decide the claimed way).
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


def paired_series(df: pd.DataFrame, metric: str, num: Mapping, den: Mapping, by: Sequence[str] = ("trace",),
                  how: str = "ratio") -> pd.Series:
    """The per-trial ``metric(num) / metric(den)`` (``how="ratio"``) or ``metric(num) - metric(den)``
    (``"diff"``) of the rows matching ``num`` and ``den`` (``{column: value}``), paired on ``by`` and
    ``trial`` (the Series' index).  A (group, trial) present twice in an arm is an error (mixed readings)."""
    if how not in ("ratio", "diff"):
        raise ValueError(f"how must be 'ratio' or 'diff', got {how!r}")
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
    if how not in ("ratio", "diff"):
        raise ValueError(f"how must be 'ratio' or 'diff', got {how!r}")
    if df.empty:
        return {}
    a, b = df[num].astype(float), df[den].astype(float)
    vals = (a / b if how == "ratio" else a - b).to_numpy()
    out = {}
    for key, idx in df.groupby(list(by)).indices.items():
        out[_key(key)] = vals[idx]
    return out


def groups_strength(values: Mapping[str, np.ndarray], threshold: float = 1.0) -> dict[str, Strength]:
    """Each group's :class:`~simlib.papers.strength.Strength` against ``threshold``."""
    return {k: strength(v, threshold=threshold) for k, v in values.items()}


#: Several groups' decisions (True / False / None = undecided): False if any is False, else None if any
#: is None, else True (the rule 000's and 003's verdicts combine by).
all_of = decided


def _open(decision: bool | None, point: bool | None) -> bool:
    """A verdict is undecided when its interval straddles (None) or decides against the mean (SM73)."""
    return decision is None or (point is not None and decision != point)


def fields(groups: Mapping[str, Strength], direction: Mapping[str, bool | None], point: bool,
           magnitude: bool | None = None, point_magnitude: bool | None = None, diff: bool = False) -> dict:
    """The Claim strength fields of a verdict over ``groups`` (``{group: Strength}``).

    ``direction``: per group the interval's decision (:func:`~simlib.papers.strength.side` etc.);
    ``point``: the claim's direction from the means; ``magnitude`` / ``point_magnitude``: the same
    for a magnitude judged on the compared quantity (None when it is not).  ``undecided`` names each
    verdict whose decision over all groups (:func:`all_of`) is None or differs from its point
    verdict; ``sides`` and ``interval`` list every group up to :data:`FULL_LIST` groups, else
    summarize them and name every group whose decision is not True.  ``diff``: the groups hold paired
    differences, not ratios (the text drops "×")."""
    if not groups:
        return {}
    if set(direction) != set(groups):
        raise ValueError("direction must give one decision per group")
    dec = all_of(direction.values())
    undecided = ["direction"] if _open(dec, point) else []
    if point_magnitude is not None and _open(magnitude, point_magnitude):
        undecided.append("magnitude")
    level = next(iter(groups.values())).level
    tail = f" ({level:.0%} interval of the median paired {'difference' if diff else 'ratio'}, S24)"
    text = (lambda s: s.interval_text().replace("×", "")) if diff else (lambda s: s.interval_text())  # noqa: E731
    if len(groups) <= FULL_LIST:
        sides = "; ".join(f"{k}: {s.sides_text()}" for k, s in groups.items())
        interval = "; ".join(f"{k}: {text(s)}" for k, s in groups.items()) + tail
    else:
        counts = {v: sum(1 for d in direction.values() if d is v) for v in (True, False, None)}
        off = [k for k, d in direction.items() if d is not True]
        pairs = sorted({s.trials for s in groups.values()})
        sides = (f"{len(groups)} groups of {'/'.join(map(str, pairs))} pairs: {counts[True]} decided as claimed, "
                 f"{counts[False]} decided against, {counts[None]} undecided"
                 + ("; not as claimed: " + "; ".join(f"{k}: {groups[k].sides_text()}" for k in off) if off else ""))
        lo = min(s.lo for s in groups.values())
        hi = max(s.hi for s in groups.values())
        interval = (f"{len(groups)} intervals within {lo:.3g}–{hi:.3g}"
                    + ("; not as claimed: " + "; ".join(f"{k}: {text(groups[k])}" for k in off) if off else "")
                    + tail)
    return dict(pairs=min(s.trials for s in groups.values()), sides=sides, interval=interval,
                undecided=tuple(undecided))
