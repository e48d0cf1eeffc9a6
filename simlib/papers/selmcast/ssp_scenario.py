"""Seed 004's SSP experiment as one function: scenario + seed -> SSP log -> metrics.

:class:`SSPScenario` holds every knob of §IV-A2/§IV-C with the paper's
defaults (n = 50, b̄ = 40 Gbps, v = 200 MB, p = 0.3n, eta = 0.75, ssp = k = 4,
lambda = 0.5, mu = 1, 10 minutes) and ours where the paper has none (see
docs/decisions/selmcast_ssp.md), each declared once with its range, unit and
quick-profile value (:mod:`simlib.papers.contract`); the command
``python -m simlib selmcast-ssp`` (:mod:`.paper`, trial :func:`run_summary`,
run option :class:`SSPOptions`) and the §IV-C notebooks' parameter checks
(:mod:`.ssp_experiments`) are generated from these declarations.
``ssp=None`` / ``k=None`` mean infinity (``--ssp inf``: SSP gate removed = ASP;
``--k inf``: the k-round requirement removed); the scenario itself is the cluster's ``rules``, so
``None`` is the one encoding up to the engines (:func:`~.ssp_cluster.engine_bound`).

Randomness: the trial's SeedSequence has fixed children (0: bandwidths, 1:
per-worker compute-time streams, 2: Orpheus's draws), so SelMcast and Orpheus
see the same bandwidths and the same per-worker compute-time draws for the
same seed (paired comparison).
"""
from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from simlib.core.jitcache import CompileTimer
from simlib.core.seeding import as_seed_sequence, child_seed
from simlib.core.units import MB, Gbps
from simlib.papers.contract import ParamError, ScenarioBase, param
from simlib.papers.trial import trial_of
from simlib.runtime.capture import offer
from simlib.workloads.bandwidth import TimeVaryingBandwidth
from simlib.workloads.trace_shapes import SLOWDOWN_MAX, SPREAD_MAX, Shape, shaped
from simlib.workloads.traces import TRACE_HELP, TRACE_NAMES, Trace, check_trace_file, load_trace

from .bandwidth import selmcast_bandwidth_draw
from .ssp_cluster import ENGINES, LAYERS, PRIORITY_ORDERS, SCHEMES, SHARINGS, TAU_ESTIMATES, SSPCluster, SSPLog
from .ssp_metrics import ssp_metrics
from .ssp_selection import LINE32_READINGS, PARETO_DEADLINES, TASK_ORDERS

__all__ = ["SSPScenario", "SSPOptions", "simulate", "run_trial", "run_summary", "p_count"]


def p_count(p: float, n: int) -> int:
    """Receivers required per multicast: ceil(p n) (at least p n; decision SM60), in [1, n - 1]."""
    k = math.ceil(round(p * n, 9))
    if not 1 <= k <= n - 1:
        raise ValueError(f"p must give between 1 and n - 1 = {n - 1} receivers (ceil(p * n)), "
                         f"got p = {p} with n = {n}")
    return k


@dataclass(frozen=True)
class SSPScenario(ScenarioBase):
    """One simulated SSP training run of seed 004 §IV-C (units in field names; §IV-A2's defaults).

    The field names are the sweep settings of notebooks 43-46 and 92 (CSV
    columns and cache keys).  ``quick`` values are the §IV-C notebooks' quick
    profile (notebooks 43 and 46 simulate 15 s instead of 10 s).  Its paper profile (``--profile paper``,
    :meth:`at_profile`) gives each stand-in SM75's fitted shape (:mod:`.ssp_profile`).
    """

    #: the paper profile's hook (decision S29; SM75's fitted stand-in shapes)
    PROFILE_HOOK: ClassVar[str] = "simlib.papers.selmcast.ssp_profile:ssp_profile"

    scheme: str = param("selmcast", choices=SCHEMES,
                        help="receiver selection: SelMcast (Algorithm 2, preemptive) or Orpheus (random p after "
                             "the pairs due by the k rule)")
    n: int = param(50, lo=2, hi=10_000, quick=12, stated="§IV-A2", help="workers (§IV-A2: 50)")
    trace: str = param("lstm", check=check_trace_file, allowed=TRACE_HELP.removeprefix("compute-time trace: "),
                       help="compute-time trace, rescaled to compute_mean_s")
    spread: float = param(1.0, lo=0.0, hi=SPREAD_MAX, lo_open=True, chosen="SM75",
                          help="log-spread factor s of the trace: each draw x becomes g (x / g)^s around the "
                               "samples' geometric mean g, then the mean is restored (1: as generated; SM75)")
    straggler_frac: float = param(0.0, lo=0.0, hi=1.0, hi_open=True, chosen="SM75",
                                  help="share f of i.i.d. draws that are stragglers, slowed by straggler_slowdown "
                                       "(0: none; SM75)")
    straggler_slowdown: float = param(1.0, lo=1.0, hi=SLOWDOWN_MAX, chosen="SM75",
                                      help="factor c by which a straggler draw is slower (used when "
                                           "straggler_frac > 0; SM75)")
    compute_mean_s: float = param(1.0, lo=0.0, lo_open=True, unit="s", flag="--compute-mean", stated="§IV-A2",
                                  help="mean compute time per iteration (§IV-A2: 1000 ms)")
    duration_s: float = param(600.0, lo=0.0, lo_open=True, unit="s", quick=10.0, flag="--duration", stated="§IV-A2",
                              help="training time simulated (§IV-A2: 10 minutes)")
    p: float = param(0.3, lo=0.0, hi=1.0, lo_open=True, hi_open=True, stated="§IV-A2",
                     help="minimum receivers as a fraction of n; ceil(p n) in [1, n - 1] receivers (SM60)")
    model_mb: float = param(200.0, lo=0.0, lo_open=True, unit="MB", stated="§IV-A2",
                            help="model size v (§IV-A2: 200 MB)")
    bbar_gbps: float = param(40.0, lo=0.0, lo_open=True, unit="Gbps", flag="--bbar", stated="§IV-A2",
                             help="mean egress bandwidth b̄ (§IV-A2: 40 Gbps)")
    lam: float = param(0.5, lo=0.0, hi=1.0, hi_open=True, stated="§IV-A2",
                       help="bandwidth variation λ: b̄(1 + λx), x ~ U[-1, 1]")
    mu: float = param(1.0, lo=0.0, lo_open=True, stated="§IV-A2", help="ingress/egress bandwidth ratio μ")
    shared_x: bool = param(False, chosen="B2", help="a worker's ingress and egress share one random x (decision B2)")
    layer: str = param("L3", choices=LAYERS, stated="§IV-C", help="multicast layer: L3 (one flow per multicast) or L7 "
                                                  "(one unicast flow per receiver; SM63)")
    ssp: int | None = param(4, kind="int", lo=0, none_means="inf", stated="§IV-A2",
                            help="SSP threshold: a worker moves on while its rounds exceed the slowest's by at "
                                 "most ssp (SM58); inf: no gate (ASP)")
    k: int | None = param(4, kind="int", lo=0, none_means="inf", stated="§IV-A2",
                          help="every worker receives each sender's model at least once per k + 1 of its "
                               "rounds (SM55); inf: requirement removed")
    eta: float = param(0.75, lo=0.0, hi=1.0, stated="§IV-A2",
                       help="η of Algorithm 2's line 9: a receiver with less than η v of the model left is kept "
                            "(§IV-A2: 0.75)")
    gamma: float = param(0.0, lo=0.0, hi=1.0, stated="§IV-A2",
                         help="bandwidth variability γ of Fig. 13: b = b#(1 - γ) + γ b* every period_s (SM56)")
    period_s: float = param(0.1, lo=0.0, lo_open=True, unit="s", flag="--period", stated="§IV-C6",
                            help="Δ_T between bandwidth re-draws (§IV-C6: 100 ms; used when gamma > 0)")
    tau_estimate: str = param("trace", choices=TAU_ESTIMATES, chosen="SM51",
                              help="how τ_i is estimated: the trace's expected residual, the true one, or 0 (SM51)")
    task_order: str = param("pseudocode", choices=TASK_ORDERS, chosen="SM57",
                            help="line 13's order of τ: non-decreasing (pseudo-code) or non-increasing (text; SM57)")
    line32: str = param("y", choices=LINE32_READINGS, chosen="SM54",
                        help="line 32 sums over y (ours) or x (as printed; SM54)")
    pareto_deadline: str = param("own", choices=PARETO_DEADLINES, chosen="SM61",
                                 help="line 33 checks the own task's deadline or every task's (SM61)")
    sharing: str = param("maxmin", choices=SHARINGS, stated="§IV-A1, line 310",
                         help="link sharing: per-flow max-min for both schemes (§IV-A1), or the reading 'priority': "
                              "SelMcast's multicasts strictly prioritized, Orpheus max-min (SM50)")
    priority_order: str = param("algorithm2", choices=PRIORITY_ORDERS, chosen="SM50",
                                help="order of strict priority (sharing='priority' only): Algorithm 2's order at "
                                     "its last call (line 13) or multicast start order (fifo; SM50)")

    def check(self):
        try:
            p_count(self.p, self.n)
        except ValueError as exc:
            raise ParamError("p", str(exc)) from None
        if not self.shape.is_identity and load_trace(self.trace).__class__ is not Trace:
            raise ParamError("spread", f"spread and stragglers shape a distribution trace; {self.trace!r} is "
                                       "a recorded trace, replayed as recorded (T7): leave them at 1 and 0")

    @property
    def shape(self) -> Shape:
        """The compute-time shape of SM75's family (:mod:`simlib.workloads.trace_shapes`)."""
        return Shape(self.spread, self.straggler_frac, self.straggler_slowdown)

    @property
    def receivers(self) -> int:
        return p_count(self.p, self.n)


@dataclass(frozen=True)
class SSPOptions(ScenarioBase):
    """What ``python -m simlib selmcast-ssp`` runs the scenario on: the implementation (SM68)."""

    engine: str = param("compiled", choices=ENGINES, chosen="SM68",
                        help="compiled event loop or the slower FlowNetwork reference; same run (SM68)")


def _trace(sc: SSPScenario) -> Trace:
    """The run's trace at ``compute_mean_s`` with SM75's shape (itself at the default shape).  A built-in
    trace's is built once per process (:func:`_builtin_trace`); a CSV path's is read afresh."""
    if sc.trace in TRACE_NAMES:
        return _builtin_trace(sc.trace, float(sc.compute_mean_s), sc.shape)
    return shaped(load_trace(sc.trace).rescaled(sc.compute_mean_s), sc.shape)


@functools.lru_cache(maxsize=64)
def _builtin_trace(name: str, compute_mean_s: float, shape: Shape) -> Trace:
    """``shaped(load_trace(name).rescaled(compute_mean_s), shape)`` for a built-in trace, remembered:
    a Trace is immutable (sorted read-only samples) and this a pure function of its arguments, so the
    runs of a sweep share one (issue 48: rescaling and shaping were ~5 ms of a 150 s SSP pilot run)."""
    return shaped(load_trace(name).rescaled(compute_mean_s), shape)


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

    draw = selmcast_bandwidth_draw(n, sc.bbar_gbps * Gbps, sc.lam, sc.mu, shared_x=sc.shared_x)
    tvb = TimeVaryingBandwidth(draw, sc.gamma, sc.period_s, child_seed(seed, 0))
    egress, ingress = tvb.initial
    if compute is None:
        compute = trace.compute_times(n, child_seed(seed, 1))
    cluster = SSPCluster(egress=egress, ingress=ingress, compute=compute, trace=trace,
                         volume_bits=sc.model_mb * MB, p=sc.receivers, rules=sc,
                         bandwidth=tvb if sc.gamma > 0 else None, period_s=sc.period_s,
                         orpheus_rng=np.random.default_rng(child_seed(seed, 2)), engine=engine)
    log = cluster.run(sc.duration_s)
    offer(log, "simlib.papers.selmcast.ssp_timeline:ssp_events", cluster.flow_watch)   # for --timeline
    return log


def _cache_params(sc: SSPScenario) -> dict:
    """Every parameter of the trial ``sc`` stands for: the sweep cache's key, so settings that spell one
    trial differently share one result (:func:`simlib.pipeline.sweep.run_sweep`).  Knobs a run ignores
    take their defaults: Orpheus runs max-min under either ``sharing`` (SM50), and ``priority_order``
    matters only under ``sharing="priority"``."""
    out = sc.to_params()
    if out["scheme"] != "selmcast":
        out["sharing"] = SSPScenario.sharing
    if out["sharing"] != "priority":
        out["priority_order"] = SSPScenario.priority_order
    return out


@trial_of(SSPScenario, key=_cache_params, example={"n": 6, "duration_s": 10.0, "model_mb": 20.0})
def run_trial(params: SSPScenario | dict, seed: np.random.SeedSequence) -> dict:
    """Sweep-friendly: metrics (:func:`ssp_metrics`) of one run of ``params``, an :class:`SSPScenario`
    (used as it is: a sweep builds each dict setting once, :class:`~simlib.papers.trial.Trial`) or, called
    directly, its flat dict (built here, ``SSPScenario.of``); the sweep cache keys it on
    :func:`_cache_params`."""
    return ssp_metrics(simulate(SSPScenario.of(params), seed))


def run_summary(sc: SSPScenario | dict, seed: np.random.SeedSequence, *, engine: str = "compiled") -> dict:
    """``python -m simlib selmcast-ssp``'s trial: :func:`run_trial`'s metrics of the run of ``sc`` (the
    command's scenario, used as it is; a flat dict is built here) on ``engine``,
    plus ``selection_us_per_call`` (wall-clock microseconds per selection call; None for the compiled
    engine, which does not time them) and ``wall_s`` (wall-clock seconds of the simulation, without the
    time numba spent compiling or loading its kernels: :class:`~simlib.core.jitcache.CompileTimer`)."""
    sc = SSPScenario.of(sc)
    t0 = time.perf_counter()
    with CompileTimer() as compiled:
        log = simulate(sc, seed, engine=engine)
    wall = max(time.perf_counter() - t0 - compiled.seconds, 0.0)
    out = ssp_metrics(log)
    timed = not math.isnan(log.selection_s)          # only the reference engine times selections
    out["selection_us_per_call"] = 1e6 * log.selection_s / max(log.selections, 1) if timed else None
    out["wall_s"] = wall
    return out
