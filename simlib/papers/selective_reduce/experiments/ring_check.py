"""Pipeline example: a ring all-reduce simulated as flows vs. seed 000 Eq. (2).

One trial draws seed 000 bandwidths (round(20u, 3) Gbps, u ~ U[lam, 1]) for
``n`` workers, picks ``k`` disjoint random groups of ``m`` workers, runs their
ring all-reduces concurrently on one big switch, and reports the simulated
time of each group against Eq. (2)'s exact and approximate forms.  With
disjoint groups the port sets do not overlap, so the simulation must equal
the exact form; the approximate form overestimates by ``2 alpha + 2v/(m b)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlib.papers.selective_reduce.bandwidth import selective_reduce_bandwidths
from simlib.core.collectives import RingAllReduce
from simlib.core.costmodels import ring_allreduce_time
from simlib.core.events import Simulator
from simlib.core.network import FlowNetwork
from simlib.core.topology import BigSwitch
from simlib.core.units import MB, ms
from simlib.papers.contract import ParamError, ScenarioBase, check_items, param, param_list, param_of
from simlib.papers.trial import trial_of

__all__ = ["RingCheck", "RingCheckNotebook", "trial"]


@dataclass(frozen=True)
class RingCheck(ScenarioBase):
    """One ring check: ``groups`` disjoint rings of ``m`` workers among ``n`` on one big switch,
    each declared once (units in the names)."""

    n: int = param(200, lo=2, quick=40, help="workers on the switch")
    m: int = param(2, lo=1, help="workers per ring (group size), at most n")
    groups: int = param(1, lo=1, help="disjoint rings running at once; groups * m <= n")
    lam: float = param(0.05, lo=0.0, hi=1.0, stated="000 §IV-A1",
                       help="bandwidth skew: b = round(20u, 3) Gbps, u ~ U[lam, 1] (000 §IV-A1)")
    alpha_ms: float = param(1.0, lo=0.0, unit="ms", stated="000 §IV-A1",
                            help="one-way latency per ring round (000 §IV-A1: 1 ms)")
    model_mb: float = param(500.0, lo=0.0, unit="MB", stated="000 §IV-A1", help="model size v (000 §IV-A1: 500 MB)")

    def check(self):
        if self.m > self.n:
            raise ParamError("m", f"m must be in [1, n = {self.n}], got {self.m}")
        if self.groups * self.m > self.n:
            raise ParamError("groups", f"groups * m must be <= n ({self.n}), got {self.groups} * {self.m}")


@dataclass(frozen=True)
class RingCheckNotebook(ScenarioBase):
    """Notebook 00's parameters (its parameters cell assigns these defaults; a test checks it)."""

    trials: int = param(20, lo=1, quick=2, stated="000 §IV-A2",
                        help="trials per group size (the paper reports min/median/max over 20)")
    n: int = param_of(RingCheck, "n")
    group_sizes: tuple = param_list([2, 5, 10, 20, 40], of=(RingCheck, "m"), quick=[2, 5], help="ring sizes m")
    groups: int = param_of(RingCheck, "groups", default=4)
    lam: float = param_of(RingCheck, "lam")
    alpha_ms: float = param_of(RingCheck, "alpha_ms")
    model_mb: float = param_of(RingCheck, "model_mb")

    def check(self):
        fixed = dict(n=self.n, groups=self.groups, lam=self.lam, alpha_ms=self.alpha_ms, model_mb=self.model_mb)
        check_items("group_sizes", self.group_sizes, lambda m: RingCheck(m=m, **fixed))


@trial_of(RingCheck, example={"n": 8, "m": 2, "groups": 2, "model_mb": 10.0})
def trial(params: RingCheck | dict, seed: np.random.SeedSequence) -> dict:
    """Params: a :class:`RingCheck` (a sweep builds each dict setting once) or its flat dict (n workers,
    m group size, groups k, lam, alpha_ms, model_mb).  Returns mean simulated time (s) and the max
    relative error of both Eq. (2) forms."""
    rc = RingCheck.of(params)
    n, m, k, lam = rc.n, rc.m, rc.groups, rc.lam
    alpha, v = rc.alpha_ms * ms, rc.model_mb * MB
    rng = np.random.default_rng(seed)
    bw = selective_reduce_bandwidths(n, lam=lam, rng=rng)
    topo = BigSwitch.symmetric(bw)
    sim = Simulator()
    net = FlowNetwork(topo.capacities, sim)
    perm = rng.permutation(n)
    groups = [perm[i * m:(i + 1) * m].tolist() for i in range(k)]
    ops = [RingAllReduce(sim, net, topo, g, v, alpha) for g in groups]
    sim.run()
    sim_t = np.array([op.finish_time - op.start_time for op in ops])
    exact = np.array([ring_allreduce_time(bw[g], v, alpha, "exact") for g in groups])
    approx = np.array([ring_allreduce_time(bw[g], v, alpha, "approx") for g in groups])
    return {
        "sim_time_s": float(sim_t.mean()),
        "eq2_exact_s": float(exact.mean()),
        "eq2_approx_s": float(approx.mean()),
        "rel_err_exact": float(np.max(np.abs(sim_t - exact) / exact)) if m > 1 else 0.0,
        "rel_err_approx": float(np.max(np.abs(sim_t - approx) / approx)) if m > 1 else 0.0,
        "events": int(sim.events_run),
    }
