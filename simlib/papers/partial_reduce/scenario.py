"""Seed 002's own knobs: the FIFO controller's group-frozen avoidance and the
aggregation weights (§3.3, §4), and what they build.

The run itself (cluster, traces, bandwidths, the other schemes) is
:mod:`simlib.papers.cluster_scenario`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlib.core.validate import check_choice, check_int, check_real
from simlib.runtime.baselines import PartialReduceController

from .group_filter import GroupFilter, min_window
from .weights import MISSING_MODES, WEIGHT_RULES, make_weight_rule

__all__ = ["PartialReduceParams", "WeightParams", "partial_controller", "weight_rule", "default_window",
           "check_runnable"]


@dataclass(frozen=True)
class PartialReduceParams:
    """The FIFO partial-reduce controller's options (002 §4)."""

    group_filter: bool = False           # 002 §4 group-frozen avoidance
    group_filter_window: int | None = None  # T; None: default_window(n, p) (decision PR12)

    def __post_init__(self):
        if self.group_filter not in (True, False):
            raise ValueError(f"group_filter must be True or False, got {self.group_filter!r}")
        if self.group_filter_window is not None:
            check_int("group_filter_window", self.group_filter_window, 1)


@dataclass(frozen=True)
class WeightParams:
    """Aggregation weights recorded with every sync (002 §3.3; any scheme)."""

    weights: str = "constant"            # constant (1/P) or dynamic (EMA of Eq. 9)
    ema_alpha: float | None = None       # α of the dynamic weights' EMA (None: weights.DEFAULT_ALPHA)
    weights_missing: str = "oldest"      # where missing versions' weight goes (decision PR13)

    def __post_init__(self):
        check_choice("weights", self.weights, WEIGHT_RULES)
        check_choice("weights_missing", self.weights_missing, MISSING_MODES)
        if self.ema_alpha is not None:
            check_real("ema_alpha", self.ema_alpha, 0.0, 1.0, hi_open=True)


def check_runnable(pr: PartialReduceParams, n: int, p: int) -> None:
    """Refuse group-filter settings the filter cannot run with ``n`` workers and group size
    ``p`` (002 §4 needs P >= 2 and a window of at least ceil((N-1)/(P-1)) groups, PR8)."""
    if not pr.group_filter:
        return
    if p < 2:
        raise ValueError(f"group_filter needs a group size p*n of at least 2 workers, got {p}")
    if pr.group_filter_window is not None and pr.group_filter_window < min_window(n, p):
        raise ValueError(f"group_filter_window must be at least ceil((n-1)/(p-1)) = {min_window(n, p)} "
                         f"for n={n}, p={p} (002 §4, PR8), got {pr.group_filter_window}")


def default_window(n: int, p: int) -> int:
    """PR12: T = ceil(N ln N / (P - 1)), at least 002's lower bound ceil((N-1)/(P-1))."""
    return max(min_window(n, p), int(np.ceil(n * np.log(n) / max(p - 1, 1))))


def partial_controller(pr: PartialReduceParams, *, n: int, p: int) -> PartialReduceController:
    """FIFO partial reduce with group size ``p`` among ``n`` workers, with the group filter if asked."""
    gf = None
    if pr.group_filter:
        T = pr.group_filter_window if pr.group_filter_window is not None else default_window(n, p)
        gf = GroupFilter(n, p, T=T)
    return PartialReduceController(p, group_filter=gf)


def weight_rule(wp: WeightParams):
    """The rule recording each sync's aggregation weights, or None for constant 1/P."""
    if wp.weights == "constant":
        return None
    return make_weight_rule("dynamic", missing=wp.weights_missing,
                            **({} if wp.ema_alpha is None else {"alpha": wp.ema_alpha}))
