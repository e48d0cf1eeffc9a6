"""Seed 002's own knobs: the FIFO controller's group-frozen avoidance and the
aggregation weights (§3.3, §4), each declared once
(:func:`simlib.papers.contract.param`), and what they build.

The run itself (cluster, traces, bandwidths, the other schemes) is
:mod:`simlib.papers.cluster_scenario`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlib.papers.contract import ParamError, ScenarioBase, param
from simlib.runtime.baselines import PartialReduceController

from .group_filter import GroupFilter, min_window
from .weights import DEFAULT_ALPHA, MISSING_MODES, WEIGHT_RULES, make_weight_rule

__all__ = ["PartialReduceParams", "WeightParams", "partial_controller", "weight_rule", "default_window",
           "check_runnable"]


@dataclass(frozen=True)
class PartialReduceParams(ScenarioBase):
    """The FIFO partial-reduce controller's options (002 §4), each declared once."""

    group_filter: bool = param(False, help="002 §4's group-frozen avoidance (scheme partial only)")
    group_filter_window: int | None = param(None, kind="int", lo=1, none_means="auto", chosen="PR12",
                                            help="the group filter's window T, at least ceil((n-1)/(p-1)) (002 §4, "
                                                 "PR8); auto: max(that, ceil(n ln n/(p-1))) (decision PR12)")


@dataclass(frozen=True)
class WeightParams(ScenarioBase):
    """Aggregation weights recorded with every sync (002 §3.3; any scheme), each declared once."""

    weights: str = param("constant", choices=WEIGHT_RULES,
                         help="aggregation weights: constant 1/P or dynamic (EMA of Eq. 9, 002 §3.3)")
    ema_alpha: float = param(DEFAULT_ALPHA, lo=0.0, hi=1.0, hi_open=True, chosen="PR2",
                             help="α of the dynamic weights' EMA (002 §3.3.2; default: decision PR2)")
    weights_missing: str = param("oldest", choices=MISSING_MODES, chosen="PR13",
                                 help="where the weight of versions no member holds goes (decision PR13)")


def check_runnable(pr: PartialReduceParams, n: int, p: int) -> None:
    """Refuse group-filter settings the filter cannot run with ``n`` workers and group size
    ``p`` (002 §4 needs P >= 2 and a window of at least ceil((N-1)/(P-1)) groups, PR8);
    :class:`~simlib.papers.contract.ParamError` naming ``p`` or ``group_filter_window``."""
    if not pr.group_filter:
        return
    if p < 2:
        raise ParamError("p", f"group_filter needs a group size p*n of at least 2 workers, got {p}")
    if pr.group_filter_window is not None and pr.group_filter_window < min_window(n, p):
        raise ParamError("group_filter_window",
                         f"group_filter_window must be at least ceil((n-1)/(p-1)) = {min_window(n, p)} "
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
    return make_weight_rule("dynamic", missing=wp.weights_missing, alpha=wp.ema_alpha)
