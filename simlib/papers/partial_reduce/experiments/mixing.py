"""Spectral gap of a simulated schedule (seed 002 §3.2 applied to any scheme).

One trial runs a :class:`~simlib.papers.cluster_scenario.Scenario`, takes every launched
synchronization of the schedule log as one W_k of Eq. (4) (constant 1/P
weights, so E[W] is doubly stochastic), and reports
ρ = max(|λ2|, |λN|) of E[W] = (1/K) Σ_k W_k next to the system metrics.
Smaller ρ: updates spread faster among workers.
"""
from __future__ import annotations

import numpy as np

from simlib.runtime.metrics import sync_metrics
from simlib.papers.cluster_scenario import Scenario, simulate
from simlib.papers.partial_reduce.spectral import expected_sync_matrix, spectral_rho

__all__ = ["trial", "schedule_rho"]


def schedule_rho(log) -> float:
    """ρ of E[W] over all synchronizations launched in ``log`` (NaN if none)."""
    groups = [s.members for s in log.syncs]
    if not groups:
        return float("nan")
    return spectral_rho(expected_sync_matrix(groups, log.n))


def trial(params: dict, seed: np.random.SeedSequence) -> dict:
    """Scenario parameters -> system metrics plus ``rho`` and the number of distinct groups."""
    log = simulate(Scenario.from_params(params), seed)
    out = sync_metrics(log)
    out["rho"] = schedule_rho(log)
    out["distinct_groups"] = len({tuple(sorted(s.members)) for s in log.syncs})
    return out
