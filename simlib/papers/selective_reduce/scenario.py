"""Seed 000's experiment as one function: scenario parameters + seed -> schedule log -> metrics.

:class:`Scenario` holds every knob of §IV-A with the paper's defaults (and
ours where the paper has none; see docs/decisions/selective_reduce_experiments.md);
:func:`simulate` builds the cluster and runs it; :func:`run_trial` is the
sweep-friendly wrapper returning a flat metrics dict.

Randomness: the trial's SeedSequence is split into independent children
(bandwidths, compute times, estimation error) by fixed spawn keys, so every
scheme sees the same bandwidths and the same per-worker compute-time draws
for the same seed (paired comparison).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from simlib.workloads.bandwidth import estimate_with_error

from .bandwidth import selective_reduce_bandwidths
from simlib.runtime.cluster import SYNC_MODELS, Cluster, ComputeTimes, ScheduleLog
from simlib.core.collectives import RING_MODELS
from simlib.runtime.baselines import AllReduceController, PartialReduceController
from .controller import PROGRESS_MODELS, SelectiveReduceController
from simlib.runtime.metrics import sync_metrics
from simlib.workloads.traces import OnlineECDF, Trace, load_trace
from simlib.core.units import MB
from simlib.core.validate import check_choice, check_int, check_real

__all__ = ["Scenario", "SCHEMES", "simulate", "run_trial", "child_seed"]

SCHEMES = ("allreduce", "partial", "selective")
CDF_SOURCES = ("warm", "cold")
ERROR_REDRAW = ("decision", "run")


def child_seed(seed: np.random.SeedSequence, key: int) -> np.random.SeedSequence:
    """A fixed, order-independent child of ``seed`` (unlike ``seed.spawn``, which is stateful)."""
    return np.random.SeedSequence(seed.entropy, spawn_key=tuple(seed.spawn_key) + (key,))


@dataclass(frozen=True)
class Scenario:
    """One simulated training run of seed 000 §IV (units in field names).

    ``p`` is a fraction of ``n`` as in the paper (p = 0.3n); the group size
    used is ``max(1, round(p * n))``.
    """

    scheme: str = "selective"
    n: int = 200
    trace: str = "transformer"         # built-in name or CSV path
    compute_mean_s: float | None = None  # rescale the trace to this mean (None: as stored, 1.0 s)
    duration_s: float = 100.0
    p: float = 0.3
    eta: float = 0.3
    theta: float = 1.0
    dt_s: float = 0.1                  # Δt; no default in the paper (decision E2)
    c: int | None = None               # full all-reduce every c syncs; None = never (decision E1)
    lam: float = 0.05
    alpha_s: float = 1e-3
    model_mb: float = 500.0
    bw_error: float = 0.0              # e of §IV-B5
    bw_error_redraw: str = "decision"  # fresh estimation error per controller decision, or once per run
    cdf: str = "warm"                  # warm: F_Phi known; cold: learned online (§IV-B5)
    progress_model: str = "paper"      # PROGRESS_MODELS
    base_rule: str = "text"            # BAG line 6 reading (decision SR1)
    tx_form: str = "approx"            # BPAWR line 15 (approx) or the exact Eq. (2) difference
    sync_model: str = "flows"
    ring_model: str = "single"
    # seed 002 settings (defaults leave seed 000's experiment unchanged)
    bandwidth_gbps: float | None = None  # every worker's bandwidth (homogeneous network) instead of round(20u, 3)
    hl: int = 1                          # heterogeneity level: workers 0..hl-1 share one GPU, compute hl× slower
    weights: str = "constant"            # aggregation weights: constant (1/P) or dynamic (002 §3.3)
    ema_alpha: float | None = None       # α of the dynamic weights' EMA (None: simlib.papers.partial_reduce.weights' default)
    weights_missing: str = "oldest"      # where missing versions' weight goes (simlib.papers.partial_reduce.weights.MISSING_MODES)
    group_filter: bool = False           # 002 §4 group-frozen avoidance (partial reduce only)
    group_filter_window: int | None = None  # T; None: ceil(N ln N / (P - 1)), at least 002's lower bound (E14)

    def __post_init__(self):
        check_choice("scheme", self.scheme, SCHEMES)
        n = check_int("n", self.n, 2, 100_000)
        if self.compute_mean_s is not None:
            check_real("compute_mean_s", self.compute_mean_s, 0.0, lo_open=True)
        check_real("duration_s", self.duration_s, 0.0, lo_open=True)
        check_real("p", self.p, 0.0, 1.0, lo_open=True)
        check_real("eta", self.eta, 0.0, 1.0, hi_open=True)
        check_real("theta", self.theta, 0.0)
        check_real("dt_s", self.dt_s, 0.0, lo_open=True)
        if self.c is not None:
            check_int("c", self.c, 1)
        check_real("lam", self.lam, 0.0, 1.0)
        check_real("alpha_s", self.alpha_s, 0.0)
        check_real("model_mb", self.model_mb, 0.0)
        check_real("bw_error", self.bw_error, 0.0)
        check_choice("bw_error_redraw", self.bw_error_redraw, ERROR_REDRAW)
        check_choice("cdf", self.cdf, CDF_SOURCES)
        check_choice("progress_model", self.progress_model, PROGRESS_MODELS)
        check_choice("base_rule", self.base_rule, ("text", "pseudocode"))
        check_choice("tx_form", self.tx_form, ("approx", "eq2"))
        check_choice("sync_model", self.sync_model, SYNC_MODELS)
        check_choice("ring_model", self.ring_model, RING_MODELS)
        if self.bandwidth_gbps is not None:
            check_real("bandwidth_gbps", self.bandwidth_gbps, 0.0, lo_open=True)
        check_int("hl", self.hl, 1, n)
        check_choice("weights", self.weights, ("constant", "dynamic"))
        check_choice("weights_missing", self.weights_missing, ("initial", "oldest", "closest"))
        if self.ema_alpha is not None:
            check_real("ema_alpha", self.ema_alpha, 0.0, 1.0, hi_open=True)
        if self.group_filter not in (True, False):
            raise ValueError(f"group_filter must be True or False, got {self.group_filter!r}")
        if self.group_filter_window is not None:
            check_int("group_filter_window", self.group_filter_window, 1)
        if self.group_filter and self.scheme != "partial":
            raise ValueError("group_filter applies to scheme 'partial' only")
        if self.progress_model == "oracle" and self.cdf == "cold":
            raise ValueError("progress_model 'oracle' needs cdf='warm' (an oracle learns nothing)")

    @property
    def group_size(self) -> int:
        """p in workers: max(1, round(p * n))."""
        return max(1, int(round(self.p * self.n)))

    @classmethod
    def from_params(cls, params: dict) -> "Scenario":
        """Build from a dict, rejecting unknown keys by name."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(params) - names)
        if unknown:
            raise ValueError(f"unknown scenario parameter(s) {unknown}; allowed: {sorted(names)}")
        return cls(**params)


def _trace(sc: Scenario) -> Trace:
    tr = load_trace(sc.trace)
    return tr.rescaled(sc.compute_mean_s) if sc.compute_mean_s is not None else tr


def simulate(sc: Scenario, seed: np.random.SeedSequence | int = 0,
             bandwidth: np.ndarray | None = None, compute=None) -> tuple[ScheduleLog, object]:
    """Run one scenario; returns the schedule log and the controller.

    ``bandwidth`` (bits/s) and ``compute`` (object with ``next(w)``) override the
    seeded draws (used by hand-made examples such as 000 Fig. 3).
    """
    if not isinstance(seed, np.random.SeedSequence):
        seed = np.random.SeedSequence(check_int("seed", seed, 0))
    trace = _trace(sc)
    if bandwidth is None and sc.bandwidth_gbps is not None:
        bandwidth = np.full(sc.n, sc.bandwidth_gbps * 1e9)
    if bandwidth is None:
        bandwidth = selective_reduce_bandwidths(sc.n, np.random.default_rng(child_seed(seed, 0)), lam=sc.lam)
    if compute is None:
        compute = ComputeTimes(trace.sample, sc.n, child_seed(seed, 1),
                               scale=[float(sc.hl) if w < sc.hl else 1.0 for w in range(sc.n)])
    v = sc.model_mb * MB
    p = sc.group_size
    if sc.scheme == "allreduce":
        ctrl = AllReduceController()
    elif sc.scheme == "partial":
        gf = None
        if sc.group_filter:
            from simlib.papers.partial_reduce.group_filter import GroupFilter, min_window
            T = sc.group_filter_window
            if T is None:
                T = max(min_window(sc.n, p), int(np.ceil(sc.n * np.log(sc.n) / max(p - 1, 1))))
            gf = GroupFilter(sc.n, p, T=T)
        ctrl = PartialReduceController(p, group_filter=gf)
    else:
        ctrl = _selective_controller(sc, trace, bandwidth, np.random.default_rng(child_seed(seed, 2)), v, p)
    rule = None
    if sc.weights == "dynamic":
        from simlib.papers.partial_reduce.weights import make_weight_rule
        rule = make_weight_rule("dynamic", missing=sc.weights_missing,
                                **({} if sc.ema_alpha is None else {"alpha": sc.ema_alpha}))
    cluster = Cluster(bandwidth, compute, ctrl, model_bits=v, alpha=sc.alpha_s, duration=sc.duration_s,
                      sync_model=sc.sync_model, ring_model=sc.ring_model, weight_rule=rule)
    if sc.progress_model == "oracle":
        ctrl.completion_prob = _oracle(cluster)
    log = cluster.run()
    return log, ctrl


def _selective_controller(sc: Scenario, trace: Trace, bandwidth, err_rng, v, p):
    bandwidth = np.asarray(bandwidth, dtype=float)
    if sc.bw_error == 0:
        def estimate(ids):
            return bandwidth[ids]
    elif sc.bw_error_redraw == "run":
        fixed = estimate_with_error(bandwidth, sc.bw_error, err_rng)

        def estimate(ids):
            return fixed[ids]
    else:
        def estimate(ids):
            return estimate_with_error(bandwidth[ids], sc.bw_error, err_rng)

    observe = None
    dist = trace
    if sc.cdf == "cold":
        dist = OnlineECDF()
        observe = dist.observe
    if sc.progress_model == "paper":
        def prob(ids, elapsed, dt):
            return np.asarray(dist.cdf(np.asarray(elapsed) + dt), dtype=float)      # Alg. 2 line 26
    elif sc.progress_model == "conditional":
        def prob(ids, elapsed, dt):
            return np.asarray(dist.conditional_completion_prob(np.asarray(elapsed), dt), dtype=float)
    else:
        prob = None  # filled in by simulate() once the cluster exists
    return SelectiveReduceController(
        p, sc.eta, sc.theta, sc.dt_s, v, completion_prob=prob, bandwidth_estimate=estimate,
        alpha=sc.alpha_s, c=sc.c, observe=observe, base_rule=sc.base_rule, tx_form=sc.tx_form)


def _oracle(cluster: Cluster):
    """Exact progress knowledge (000 §II-D): 1 if the worker's current compute ends within dt."""
    def prob(ids, elapsed, dt):
        ids = np.asarray(ids, dtype=np.int64)
        return (cluster.compute_finish[ids] <= cluster.sim.now + dt + 1e-12).astype(float)
    return prob


def run_trial(params: dict, seed: np.random.SeedSequence) -> dict:
    """Sweep entry point: ``Scenario.from_params(params)`` -> metrics dict (see :mod:`simlib.runtime.metrics`)."""
    sc = Scenario.from_params(params)
    log, ctrl = simulate(sc, seed)
    out = sync_metrics(log)
    out["group_size"] = sc.group_size
    out["controller_rounds"] = int(getattr(ctrl, "rounds", 0))
    return out
