"""The simulated data-parallel training run shared by seeds 000 and 002:
scenario parameters + seed -> schedule log -> metrics.

:class:`Scenario` holds the cluster's settings (000 §IV-A, 002 §5) and, per
paper, the knobs only that paper's scheme uses
(:class:`~simlib.papers.selective_reduce.scenario.SelectiveReduceParams`,
:class:`~simlib.papers.partial_reduce.scenario.PartialReduceParams`) plus the
aggregation weights (:class:`~simlib.papers.partial_reduce.scenario.WeightParams`).
Sweeps and CSVs use flat parameter dicts: :meth:`Scenario.from_params` routes
each key to its group.  :data:`SCHEMES` maps each scheme name to its
controller; :func:`simulate` builds the cluster and runs it; :func:`run_trial`
is the sweep entry point returning a flat metrics dict.

Randomness: the trial's SeedSequence is split into independent children
(0: bandwidths, 1: compute times, 2: estimation error) by fixed keys, so every
scheme sees the same bandwidths and the same per-worker compute-time draws for
the same seed (paired comparison).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from simlib.core.collectives import RING_MODELS, SYNC_MODELS
from simlib.core.seeding import as_seed_sequence, child_seed
from simlib.core.units import MB
from simlib.core.validate import check_choice, check_int, check_real
from simlib.runtime.baselines import AllReduceController
from simlib.runtime.cluster import Cluster
from simlib.runtime.log import ScheduleLog
from simlib.runtime.metrics import sync_metrics
from simlib.workloads.traces import Trace, load_trace

from .partial_reduce.scenario import (PartialReduceParams, WeightParams, check_runnable, partial_controller,
                                      weight_rule)
from .scheme import Scheme
from .selective_reduce.bandwidth import selective_reduce_bandwidths
from .selective_reduce.scenario import SelectiveReduceParams, selective_controller

__all__ = ["Scenario", "SCHEMES", "simulate", "run_trial"]

#: The parameter groups of a scenario: attribute name -> dataclass.
GROUPS = {"selective": SelectiveReduceParams, "partial": PartialReduceParams, "weighting": WeightParams}


@dataclass(frozen=True)
class Scenario:
    """One simulated training run (units in field names).

    ``p`` is a fraction of ``n`` as in the paper (p = 0.3n); the group size
    used is ``max(1, round(p * n))``.
    """

    scheme: str = "selective"
    n: int = 200
    trace: str = "transformer"           # built-in name or CSV path
    compute_mean_s: float | None = None  # rescale the trace to this mean (None: as stored, 1.0 s)
    duration_s: float = 100.0
    p: float = 0.3
    lam: float = 0.05                    # 000 §IV-A1: b_k = round(20u, 3) Gbps, u ~ U[lam, 1]
    alpha_s: float = 1e-3
    model_mb: float = 500.0
    sync_model: str = "flows"
    ring_model: str = "single"
    bandwidth_gbps: float | None = None  # 002: every worker's bandwidth (homogeneous network) instead
    hl: int = 1                          # 002 §5.2: workers 0..hl-1 share one GPU, compute hl× slower
    selective: SelectiveReduceParams = field(default_factory=SelectiveReduceParams)
    partial: PartialReduceParams = field(default_factory=PartialReduceParams)
    weighting: WeightParams = field(default_factory=WeightParams)

    def __post_init__(self):
        check_choice("scheme", self.scheme, list(SCHEMES))
        n = check_int("n", self.n, 2, 100_000)
        if self.compute_mean_s is not None:
            check_real("compute_mean_s", self.compute_mean_s, 0.0, lo_open=True)
        check_real("duration_s", self.duration_s, 0.0, lo_open=True)
        check_real("p", self.p, 0.0, 1.0, lo_open=True)
        check_real("lam", self.lam, 0.0, 1.0)
        check_real("alpha_s", self.alpha_s, 0.0)
        check_real("model_mb", self.model_mb, 0.0)
        check_choice("sync_model", self.sync_model, SYNC_MODELS)
        check_choice("ring_model", self.ring_model, RING_MODELS)
        if self.bandwidth_gbps is not None:
            check_real("bandwidth_gbps", self.bandwidth_gbps, 0.0, lo_open=True)
        check_int("hl", self.hl, 1, n)
        for name, cls in GROUPS.items():
            if not isinstance(getattr(self, name), cls):
                raise ValueError(f"{name} must be a {cls.__name__}, got {getattr(self, name)!r}")
        if self.partial.group_filter and self.scheme != "partial":
            raise ValueError("group_filter applies to scheme 'partial' only")
        check_runnable(self.partial, n, self.group_size)

    @property
    def group_size(self) -> int:
        """p in workers: max(1, round(p * n))."""
        return max(1, int(round(self.p * self.n)))

    @classmethod
    def from_params(cls, params: dict) -> "Scenario":
        """Build from a flat dict (the sweeps' settings), routing each key to its group;
        unknown keys are rejected by name."""
        own = {f.name for f in dataclasses.fields(cls)} - set(GROUPS)
        owner = {f.name: g for g, gcls in GROUPS.items() for f in dataclasses.fields(gcls)}
        unknown = sorted(set(params) - own - set(owner))
        if unknown:
            raise ValueError(f"unknown scenario parameter(s) {unknown}; allowed: {sorted(own | set(owner))}")
        top = {k: v for k, v in params.items() if k in own}
        groups = {g: GROUPS[g](**{k: v for k, v in params.items() if owner.get(k) == g}) for g in GROUPS}
        return cls(**top, **groups)


def _allreduce(sc: Scenario, p: int, **_):
    return AllReduceController()


def _partial(sc: Scenario, p: int, **_):
    return partial_controller(sc.partial, n=sc.n, p=p)


def _selective(sc: Scenario, p: int, *, trace, bandwidth, error_rng):
    return selective_controller(sc.selective, p=p, model_bits=sc.model_mb * MB, alpha_s=sc.alpha_s,
                                trace=trace, bandwidth=bandwidth, error_rng=error_rng)


#: Okabe-Ito colours (colour-blind safe) and distinct markers (greyscale print).
SCHEMES = {s.name: s for s in (
    Scheme("allreduce", "000", "All reduce", "#0072B2", "o", Scenario, _allreduce),
    Scheme("partial", "002", "Partial reduce", "#D55E00", "s", Scenario, _partial),
    Scheme("selective", "000", "Selective reduce", "#009E73", "^", Scenario, _selective),
)}


def _trace(sc: Scenario) -> Trace:
    tr = load_trace(sc.trace)
    return tr.rescaled(sc.compute_mean_s) if sc.compute_mean_s is not None else tr


def simulate(sc: Scenario, seed: np.random.SeedSequence | int = 0,
             bandwidth: np.ndarray | None = None, compute=None) -> ScheduleLog:
    """Run one scenario; returns its schedule log.

    ``bandwidth`` (bits/s) and ``compute`` (object with ``next(w)``) override the
    seeded draws (used by hand-made examples such as 000 Fig. 3).
    """
    seed = as_seed_sequence(seed)
    trace = _trace(sc)
    if bandwidth is None and sc.bandwidth_gbps is not None:
        bandwidth = np.full(sc.n, sc.bandwidth_gbps * 1e9)
    if bandwidth is None:
        bandwidth = selective_reduce_bandwidths(sc.n, np.random.default_rng(child_seed(seed, 0)), lam=sc.lam)
    if compute is None:
        compute = trace.compute_times(sc.n, child_seed(seed, 1),
                                      scale=[float(sc.hl) if w < sc.hl else 1.0 for w in range(sc.n)])
    ctrl = SCHEMES[sc.scheme].controller(sc, sc.group_size, trace=trace, bandwidth=bandwidth,
                                         error_rng=np.random.default_rng(child_seed(seed, 2)))
    cluster = Cluster.big_switch(bandwidth, compute, ctrl, model_bits=sc.model_mb * MB, alpha=sc.alpha_s,
                                 duration=sc.duration_s, sync_model=sc.sync_model, ring_model=sc.ring_model,
                                 weight_rule=weight_rule(sc.weighting))
    return cluster.run()


def run_trial(params: dict, seed: np.random.SeedSequence) -> dict:
    """Sweep entry point: ``Scenario.from_params(params)`` -> metrics dict (see :mod:`simlib.runtime.metrics`)."""
    sc = Scenario.from_params(params)
    log = simulate(sc, seed)
    out = sync_metrics(log)
    out["group_size"] = sc.group_size
    out["controller_rounds"] = log.counters.get("controller_rounds", 0)
    return out
