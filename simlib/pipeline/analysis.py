"""Tidy-frame helpers shared by the notebooks: paired ratios and metric panels.

Sweeps use common random numbers (trial t of every setting shares its seed),
so schemes are compared *per trial*: the ratio of two schemes' metrics on the
same bandwidths and compute-time draws, then summarized min/median/max over
trials as the papers report.
"""
from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import pandas as pd

from simlib.pipeline import plotting
from simlib.core.validate import check_choice

__all__ = ["paired_ratio", "metric_panels", "METRIC_LABELS", "fmt_range"]

METRIC_LABELS = {
    "avg_sync_time_s": "Average sync time (s)",
    "avg_sync_scale": "Average sync scale",
    "total_iteration": "Total iteration",
    "total_sync": "Total sync",
    "wasted_wait_s_per_worker": "Wasted wait per worker (s)",
    "updates_to_target": "Updates to target",
    "time_per_update_s": "Time per update (s)",
    "time_to_target_s": "Time to target (s)",
    "final_acc": "Final test accuracy",
}


def paired_ratio(df: pd.DataFrame, metric: str, by: Sequence[str], num: str, den: str,
                 scheme_col: str = "scheme") -> pd.DataFrame:
    """Per-trial ratio ``metric[num] / metric[den]`` within each ``by`` group, summarized.

    Returns one row per ``by`` group with columns ``min``, ``median``, ``max``
    of the ratio over trials (and ``trials``).
    """
    check_choice("metric", metric, list(df.columns))
    for s in (num, den):
        check_choice("scheme", s, sorted(df[scheme_col].unique()))
    by = list(by)
    piv = df.pivot_table(index=by + ["trial"], columns=scheme_col, values=metric, aggfunc="first")
    ratio = (piv[num] / piv[den]).rename("ratio").reset_index()
    out = ratio.groupby(by, sort=True)["ratio"].agg(["min", "median", "max", "count"])
    return out.rename(columns={"count": "trials"}).reset_index()


def fmt_range(values) -> str:
    """'1.23–4.56×' for the min and max of ``values``."""
    s = pd.Series(values)
    return f"{s.min():.2f}–{s.max():.2f}×"


def metric_panels(df: pd.DataFrame, x: str, metrics: Sequence[str], hue: str = "scheme",
                  title: str | None = None, xlabel: str | None = None, ncols: int | None = None):
    """One panel per metric: median over trials with a min–max band, one line per ``hue``."""
    metrics = list(metrics)
    ncols = ncols or len(metrics)
    nrows = -(-len(metrics) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.2 * ncols, 2.7 * nrows), squeeze=False)
    for i, (ax, m) in enumerate(zip(axes.flat, metrics)):
        plotting.plot_min_median_max(ax, df, x=x, y=m, hue=hue, legend=(i == 0))
        ax.set_ylabel(METRIC_LABELS.get(m, m))
        ax.set_xlabel(xlabel or x)
        ax.set_title(f"({chr(97 + i)})", loc="left", fontsize="medium")
    for ax in list(axes.flat)[len(metrics):]:
        ax.set_visible(False)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
