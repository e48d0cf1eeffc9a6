"""Helpers the §IV-C notebooks share: setting validation, means as the paper reports them,
and an "∞" plotting position for the removed k / ssp requirements.

The paper reports the *mean* over 10 trials of each setting (§IV-A2); figures
show the median with a min–max band, claims use the means.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .ssp_scenario import SSPScenario

__all__ = ["validate_settings", "means", "triplet", "with_inf_axis", "TRACE_ORDER"]

#: The paper's order of the three workloads (LSTM, Transformer, ResNet-50 = our "cnn").
TRACE_ORDER = ("lstm", "transformer", "cnn")


def validate_settings(settings: list[dict]) -> list[dict]:
    """Raise ValueError (naming the parameter) unless every setting is a valid :class:`SSPScenario`."""
    for s in settings:
        SSPScenario.from_params(s)
    return settings


def means(df: pd.DataFrame, by, metrics) -> pd.DataFrame:
    """Mean over trials of each metric per ``by`` group (the paper's statistic)."""
    return df.groupby(list(by) if not isinstance(by, str) else [by], dropna=False)[list(metrics)].mean()


def triplet(values: dict, fmt: str = "{:.2f}") -> str:
    """'a/b/c' in the paper's trace order for a dict trace -> value (missing traces skipped)."""
    return "/".join(fmt.format(values[t]) for t in TRACE_ORDER if t in values)


def with_inf_axis(df: pd.DataFrame, col: str, inf_at: float) -> pd.DataFrame:
    """Copy of ``df`` with ``<col>_x``: ``col`` where finite, ``inf_at`` where it is None/NaN (∞)."""
    out = df.copy()
    vals = pd.to_numeric(out[col], errors="coerce")
    out[f"{col}_x"] = np.where(vals.isna(), inf_at, vals)
    return out
