"""Tidy-frame helpers shared by the notebooks: min/median/max summaries and paired ratios.

Sweeps use common random numbers (trial t of every setting shares its seed),
so schemes are compared *per trial*: the ratio of two schemes' metrics on the
same bandwidths and compute-time draws, then summarized min/median/max over
trials as the papers report.
"""
from __future__ import annotations

import re
from typing import Sequence

import pandas as pd

from simlib.core.validate import check_choice, check_real
from simlib.papers.censoring import fmt_bound, paired_bounds, summary

__all__ = ["summarize", "paired_ratio", "fmt_range", "ladder_ratios", "ladder_column", "ladder_targets",
           "require_frame", "SUMMARY_COLUMNS", "fmt_bound_range"]

#: Columns :func:`summarize` adds after the grouping columns.
SUMMARY_COLUMNS = ("metric", "min", "median", "max", "count")



def require_frame(df, name: str, columns: Sequence[str]) -> pd.DataFrame:
    """``df`` itself when it is a non-empty DataFrame with every column of ``columns``;
    otherwise ``ValueError`` naming ``name`` and the missing columns."""
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"{name} must be a DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{name} lacks the column(s) {missing}; it has {list(df.columns)}")
    if df.empty:
        raise ValueError(f"{name} has no rows")
    return df


def paired_ratio(df: pd.DataFrame, metric: str, by: Sequence[str], num: str, den: str,
                 scheme_col: str = "scheme") -> pd.DataFrame:
    """Per-trial ratio ``metric[num] / metric[den]`` within each ``by`` group, summarized.

    Returns one row per ``by`` group with columns ``min``, ``median``, ``max``
    of the ratio over trials (and ``trials``).  Raises ``ValueError`` when a
    (``by``, trial, scheme) combination has more than one row -- another
    setting column varies within a group, so it must be added to ``by`` (or
    filtered out) instead of one of the rows being picked silently.
    """
    check_choice("metric", metric, list(df.columns))
    check_choice("scheme_col", scheme_col, list(df.columns))
    for s in (num, den):
        check_choice("scheme", s, sorted(df[scheme_col].unique()))
    by = [by] if isinstance(by, str) else list(by)
    for col in by + ["trial"]:
        check_choice("by", col, list(df.columns))
    keys = by + ["trial", scheme_col]
    rows = df[df[scheme_col].isin([num, den])]
    dup = rows.duplicated(keys, keep=False)
    if dup.any():
        first = rows[dup].iloc[0]
        group = rows[(rows[keys] == first[keys]).all(axis=1)]
        varying = [c for c in rows.columns if c not in keys and group[c].nunique(dropna=False) > 1
                   and c != metric]
        raise ValueError(
            f"paired_ratio: {int(dup.sum())} rows share their (by={by}, trial, {scheme_col}) key, e.g. "
            f"{dict(first[keys])}; columns varying within it: {varying or '(none: duplicated rows)'}. "
            "Add them to `by` or filter the frame first.")
    piv = rows.pivot(index=by + ["trial"], columns=scheme_col, values=metric)
    ratio = (piv[num] / piv[den]).rename("ratio").reset_index()
    out = ratio.groupby(by, sort=True)["ratio"].agg(["min", "median", "max", "count"])
    return out.rename(columns={"count": "trials"}).reset_index()


def ladder_column(target: float) -> str:
    """Column name of the time (s) to test accuracy ``target``, e.g. ``time_to_acc85_s``."""
    return f"time_to_acc{round(100 * target):d}_s"


def ladder_targets(df: pd.DataFrame) -> list[float]:
    """The accuracies of the ``time_to_accNN_s`` columns of ``df`` (ascending)."""
    found = [int(m.group(1)) / 100 for c in df.columns if (m := re.fullmatch(r"time_to_acc(\d+)_s", c))]
    return sorted(found)


def ladder_ratios(df: pd.DataFrame, by: Sequence[str], num: str, den: str, censor_at_s,
                  targets: Sequence[float] | None = None) -> pd.DataFrame:
    """Paired time-to-accuracy ratios ``num / den`` at every accuracy of a target ladder, with
    censoring said as censoring (:mod:`simlib.papers.censoring`).

    ``df`` holds one row per (setting, trial, scheme) with the columns
    ``time_to_accNN_s`` of :func:`ladder_column` (``targets``: all of them by default);
    a run that never reached a target (NaN) is censored at its cap ``censor_at_s``: seconds
    (> 0, the run length) or the name of a column holding each run's cap (e.g. ``"duration_s"``).
    Per ``by`` group the median over trials of the paired ratio is known to lie in an interval;
    across the groups, returns one row per target: ``target``; ``min``, ``median``, ``max`` of
    the per-group medians *when censoring leaves them determined* (NaN otherwise) and their
    bounds ``min_lo`` ... ``max_hi``; ``range_text`` (e.g. ``"1.54–2.24×"``, or the bounds);
    ``pairs`` and ``censored`` (pairs with a censored run); ``reached_num`` / ``reached_den``: the
    share of ``num``'s / ``den``'s runs that reached the target.
    """
    if isinstance(censor_at_s, str):
        check_choice("censor_at_s", censor_at_s, list(df.columns))
    else:
        censor_at_s = check_real("censor_at_s", censor_at_s, 0.0, lo_open=True)
    targets = ladder_targets(df) if targets is None else targets
    if not targets:
        raise ValueError("df has no time_to_accNN_s columns (targets=None reads the ladder from them)")
    rows = []
    for a in targets:
        col = ladder_column(a)
        check_choice("ladder column", col, list(df.columns))
        t = paired_bounds(df, col, censor_at_s, by=by, num=num, den=den)
        rec = {"target": a}
        for over in ("min", "median", "max"):
            b = summary(t, "median", over)
            rec.update({over: b.value, f"{over}_lo": b.lo, f"{over}_hi": b.hi})
        rec["range_text"] = fmt_bound_range(rec["min_lo"], rec["min_hi"], rec["max_lo"], rec["max_hi"])
        rec.update(pairs=int(t["pairs"].sum()), censored=b.censored,
                   reached_num=float(df.loc[df.scheme == num, col].notna().mean()),
                   reached_den=float(df.loc[df.scheme == den, col].notna().mean()))
        rows.append(rec)
    return pd.DataFrame(rows)


def fmt_bound_range(min_lo: float, min_hi: float, max_lo: float, max_hi: float) -> str:
    """The range over groups of bounded statistics: ``"1.54–2.24×"`` when both ends are numbers,
    else each end as :func:`simlib.papers.censoring.fmt_bound` gives it
    (``"lowest n/a, highest ≥ 2.10×"``)."""
    if min_lo == min_hi and max_lo == max_hi:
        return f"{min_lo:.2f}–{max_lo:.2f}×"
    if (min_lo, min_hi) == (max_lo, max_hi):
        return fmt_bound(min_lo, min_hi)
    return f"lowest {fmt_bound(min_lo, min_hi)}, highest {fmt_bound(max_lo, max_hi)}"


def fmt_range(values) -> str:
    """'1.23–4.56×' for the min and max of ``values``."""
    s = pd.Series(values)
    return f"{s.min():.2f}–{s.max():.2f}×"


# --------------------------------------------------------------------------
def _as_column_list(name: str, value, df: pd.DataFrame) -> list[str]:
    cols = [value] if isinstance(value, str) else value
    if not isinstance(cols, (list, tuple)) or not cols:
        raise ValueError(f"{name} must be a column name or a non-empty list of column names, got {value!r}")
    for c in cols:
        if c not in df.columns:
            raise ValueError(f"{name} must name columns of df {list(df.columns)}, got {c!r}")
    return list(cols)


def summarize(df: pd.DataFrame, by, metrics) -> pd.DataFrame:
    """Min / median / max of each metric over the trials of each group.

    ``by`` is a column name or list of names (typically the setting columns);
    ``metrics`` a column name or list of numeric columns.  Returns a long
    ("tidy") frame with one row per (group, metric) and columns
    ``by + ["metric", "min", "median", "max", "count"]``, where ``count`` is the
    number of non-missing values (NaN values are skipped).  Groups keep their order of
    first appearance in ``df`` (the sweep order); rows with a missing group
    key are kept as their own group.
    """
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"df must be a pandas DataFrame, got {type(df).__name__}")
    by = _as_column_list("by", by, df)
    metrics = _as_column_list("metrics", metrics, df)
    overlap = set(by) & set(metrics)
    if overlap:
        raise ValueError(f"metrics must not include grouping columns, got {sorted(overlap)}")
    reserved = set(by) & set(SUMMARY_COLUMNS)
    if reserved:
        raise ValueError(f"by must not use the summary column names {list(SUMMARY_COLUMNS)}, "
                         f"got {sorted(reserved)}")
    for m in metrics:
        if not (pd.api.types.is_numeric_dtype(df[m]) and not pd.api.types.is_bool_dtype(df[m])):
            raise ValueError(f"metrics must be numeric columns, column {m!r} has dtype {df[m].dtype}")
    grouped = df.groupby(by, sort=False, dropna=False)
    parts = []
    for m in metrics:
        stats = grouped[m].agg(["min", "median", "max", "count"])
        stats.insert(0, "metric", m)
        parts.append(stats.reset_index())
    out = pd.concat(parts, ignore_index=True)
    # order: group (first appearance in df), then metric in the order given
    out["_g"] = out.groupby(by, sort=False, dropna=False).ngroup()
    out["_m"] = out["metric"].map({m: j for j, m in enumerate(metrics)})
    out = out.sort_values(["_g", "_m"], kind="stable").drop(columns=["_g", "_m"]).reset_index(drop=True)
    out["count"] = out["count"].astype(int)
    return out[by + list(SUMMARY_COLUMNS)]
