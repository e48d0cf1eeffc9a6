"""Spectral gap of a simulated schedule (seed 002 §3.2 applied to any scheme).

One trial runs a :class:`~simlib.papers.cluster_scenario.Scenario`, takes every launched
synchronization of the schedule log as one W_k of Eq. (4) (constant 1/P
weights, so E[W] is doubly stochastic), and reports
ρ = max(|λ2|, |λN|) of E[W] = (1/K) Σ_k W_k next to the system metrics.
Smaller ρ: updates spread faster among workers.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlib.runtime.metrics import sync_metrics
from simlib.papers.cluster_scenario import Scenario, simulate
from simlib.papers.contract import ScenarioBase, check_items, param, param_list, param_of
from simlib.papers.partial_reduce.spectral import expected_sync_matrix, spectral_rho
from simlib.papers.trial import trial_of

__all__ = ["trial", "schedule_rho", "SpectralNotebook"]


@dataclass(frozen=True)
class SpectralNotebook(ScenarioBase):
    """Notebook 20's parameters (its parameters cell assigns these defaults; a test checks it); ranges,
    units and quick values from :class:`~simlib.papers.cluster_scenario.Scenario`."""

    trials: int = param(20, lo=1, quick=2, stated="000 §IV-A2", help="trials per setting")
    n_values: tuple = param_list([40, 80, 120, 160, 200], of=(Scenario, "n"), quick=[10, 20], stated="000 §IV-A1",
                                 help="the main paper's cluster sizes for the mixing comparison")
    duration_s: float = param_of(Scenario, "duration_s")
    fig4_duration_s: float = param_of(Scenario, "duration_s", default=200.0, quick=20.0, flag=None,
                                      help="simulated time of Fig. 4's three-worker schedules")
    ema_alpha: float = param_of(Scenario, "ema_alpha", help="α of the worked dynamic-weights example")

    def check(self):
        # Fig. 4's three workers (the notebook's fig4_settings): N = 3, P = 2, hl up to 2
        Scenario.from_params(dict(scheme="partial", n=3, p=2 / 3, hl=2, bandwidth_gbps=10.0, model_mb=1.0,
                                  duration_s=self.fig4_duration_s))
        check_items("n_values", self.n_values, lambda n: Scenario(n=n, duration_s=self.duration_s))


def schedule_rho(log) -> float:
    """ρ of E[W] over all synchronizations launched in ``log`` (NaN if none)."""
    groups = [s.members for s in log.syncs]
    if not groups:
        return float("nan")
    return spectral_rho(expected_sync_matrix(groups, log.n))


@trial_of(Scenario, example={"scheme": "partial", "n": 6, "duration_s": 5.0})
def trial(params: Scenario | dict, seed: np.random.SeedSequence) -> dict:
    """A :class:`~simlib.papers.cluster_scenario.Scenario` (a sweep builds each dict setting once) or its
    flat dict -> system metrics plus ``rho`` and the number of distinct groups."""
    log = simulate(Scenario.of(params), seed)
    out = sync_metrics(log)
    out["rho"] = schedule_rho(log)
    out["distinct_groups"] = len({tuple(sorted(s.members)) for s in log.syncs})
    return out
