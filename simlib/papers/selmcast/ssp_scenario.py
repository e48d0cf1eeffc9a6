"""Seed 004's SSP experiment as one function: scenario + seed -> SSP log -> metrics.

:class:`SSPScenario` holds every knob of §IV-A2/§IV-C with the paper's
defaults (n = 50, b̄ = 40 Gbps, v = 200 MB, p = 0.3n, eta = 0.75, ssp = k = 4,
lambda = 0.5, mu = 1, 10 minutes) and ours where the paper has none (see
docs/decisions/selmcast_ssp.md).  ``ssp=None`` / ``k=None`` mean infinity
(SSP gate removed = ASP; the k-round requirement removed).

Randomness: the trial's SeedSequence has fixed children (0: bandwidths, 1:
per-worker compute-time streams, 2: Orpheus's draws), so SelMcast and Orpheus
see the same bandwidths and the same per-worker compute-time draws for the
same seed (paired comparison).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simlib.core.seeding import as_seed_sequence, child_seed
from simlib.core.units import MB, Gbps
from simlib.core.validate import check_choice, check_int, check_real, from_params
from simlib.workloads.bandwidth import TimeVaryingBandwidth
from simlib.workloads.traces import Trace, check_trace, load_trace

from .bandwidth import selmcast_bandwidths
from .ssp_cluster import LAYERS, SCHEMES, SHARINGS, TAU_ESTIMATES, SSPCluster, SSPLog
from .ssp_metrics import ssp_metrics
from .ssp_selection import LINE32_READINGS, PARETO_DEADLINES, TASK_ORDERS

__all__ = ["SSPScenario", "simulate", "run_trial", "p_count"]


def p_count(p: float, n: int) -> int:
    """Receivers required per multicast: ceil(p n) (at least p n; decision SM60), in [1, n - 1]."""
    k = math.ceil(round(p * n, 9))
    if not 1 <= k <= n - 1:
        raise ValueError(f"p must give between 1 and n - 1 = {n - 1} receivers (ceil(p * n)), "
                         f"got p = {p} with n = {n}")
    return k


@dataclass(frozen=True)
class SSPScenario:
    """One simulated SSP training run of seed 004 §IV-C (units in field names)."""

    scheme: str = "selmcast"
    n: int = 50
    trace: str = "lstm"                 # built-in name or CSV path
    compute_mean_s: float = 1.0         # traces rescaled to this mean (§IV-A2: 1000 ms)
    duration_s: float = 600.0
    p: float = 0.3                      # fraction of n; receivers = ceil(p n)
    model_mb: float = 200.0             # v; Fig. 12 scales it
    bbar_gbps: float = 40.0
    lam: float = 0.5
    mu: float = 1.0
    shared_x: bool = False              # one x for a worker's two ports (decision B2)
    layer: str = "L3"
    ssp: int | None = 4                 # None: no gate (ASP)
    k: int | None = 4                   # None: requirement removed
    eta: float = 0.75
    gamma: float = 0.0                  # Fig. 13 bandwidth variability
    period_s: float = 0.1               # Delta_T
    tau_estimate: str = "trace"         # SM51
    task_order: str = "pseudocode"      # SM57
    line32: str = "y"                   # SM54
    pareto_deadline: str = "own"        # SM61
    sharing: str = "auto"               # SM50: priority for SelMcast, max-min for Orpheus

    def __post_init__(self):
        check_choice("scheme", self.scheme, SCHEMES)
        n = check_int("n", self.n, 2, 10_000)
        check_trace("trace", self.trace)
        check_real("compute_mean_s", self.compute_mean_s, 0.0, lo_open=True)
        check_real("duration_s", self.duration_s, 0.0, lo_open=True)
        check_real("p", self.p, 0.0, 1.0, lo_open=True, hi_open=True)
        p_count(self.p, n)
        check_real("model_mb", self.model_mb, 0.0, lo_open=True)
        check_real("bbar_gbps", self.bbar_gbps, 0.0, lo_open=True)
        check_real("lam", self.lam, 0.0, 1.0, hi_open=True)
        check_real("mu", self.mu, 0.0, lo_open=True)
        if self.shared_x not in (True, False):
            raise ValueError(f"shared_x must be True or False, got {self.shared_x!r}")
        check_choice("layer", self.layer, LAYERS)
        if self.ssp is not None:
            check_int("ssp", self.ssp, 0)
        if self.k is not None:
            check_int("k", self.k, 0)
        check_real("eta", self.eta, 0.0, 1.0)
        check_real("gamma", self.gamma, 0.0, 1.0)
        check_real("period_s", self.period_s, 0.0, lo_open=True)
        check_choice("tau_estimate", self.tau_estimate, TAU_ESTIMATES)
        check_choice("task_order", self.task_order, TASK_ORDERS)
        check_choice("line32", self.line32, LINE32_READINGS)
        check_choice("pareto_deadline", self.pareto_deadline, PARETO_DEADLINES)
        check_choice("sharing", self.sharing, SHARINGS)

    @property
    def receivers(self) -> int:
        return p_count(self.p, self.n)

    @classmethod
    def from_params(cls, params: dict) -> "SSPScenario":
        """Build from a dict, rejecting unknown keys by name."""
        return from_params(cls, params)


def _trace(sc: SSPScenario) -> Trace:
    return load_trace(sc.trace).rescaled(sc.compute_mean_s)


def simulate(sc: SSPScenario, seed: np.random.SeedSequence | int = 0, *, compute=None,
             engine: str = "compiled") -> SSPLog:
    """Run one scenario and return its :class:`SSPLog`.

    ``compute`` (object with ``next(w) -> seconds``) overrides the seeded
    compute-time draws (hand-made examples); ``engine`` picks the
    implementation (:data:`~simlib.papers.selmcast.ssp_cluster.ENGINES`,
    decision SM68: same run, "flow" is the slow reference).
    """
    seed = as_seed_sequence(seed)
    trace = _trace(sc)
    n = sc.n

    def draw(rng):
        return np.stack(selmcast_bandwidths(n, sc.bbar_gbps * Gbps, sc.lam, sc.mu, rng, shared_x=sc.shared_x))

    tvb = TimeVaryingBandwidth(draw, sc.gamma, sc.period_s, child_seed(seed, 0))
    egress, ingress = tvb.initial
    if compute is None:
        compute = trace.compute_times(n, child_seed(seed, 1))
    cluster = SSPCluster(egress=egress, ingress=ingress, compute=compute, trace=trace,
                         volume_bits=sc.model_mb * MB, p=sc.receivers, scheme=sc.scheme, layer=sc.layer,
                         ssp=math.inf if sc.ssp is None else sc.ssp, k=math.inf if sc.k is None else sc.k,
                         eta=sc.eta, tau_estimate=sc.tau_estimate, task_order=sc.task_order,
                         line32=sc.line32, pareto_deadline=sc.pareto_deadline, sharing=sc.sharing,
                         bandwidth=tvb.at if sc.gamma > 0 else None, period_s=sc.period_s,
                         orpheus_rng=np.random.default_rng(child_seed(seed, 2)), engine=engine)
    return cluster.run(sc.duration_s)


def run_trial(params: dict, seed: np.random.SeedSequence) -> dict:
    """Sweep-friendly: metrics (:func:`ssp_metrics`) of one run of ``SSPScenario.from_params(params)``."""
    return ssp_metrics(simulate(SSPScenario.from_params(params), seed))
