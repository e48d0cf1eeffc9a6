"""The simulated data-parallel training run shared by seeds 000 and 002:
scenario parameters + seed -> schedule log -> metrics.

:class:`Scenario` declares the cluster's settings (000 §IV-A, 002 §5) with
:func:`~simlib.papers.contract.param` and, per paper, the knobs only that
paper's scheme uses as parameter groups
(:class:`~simlib.papers.selective_reduce.scenario.SelectiveReduceParams`,
:class:`~simlib.papers.partial_reduce.scenario.PartialReduceParams`) plus the
aggregation weights (:class:`~simlib.papers.partial_reduce.scenario.WeightParams`);
it checks them once, when built.  Sweeps and CSVs use flat parameter dicts:
:meth:`Scenario.from_params` routes each key to its group.  :data:`SCHEMES`
maps each scheme name to its controller; :func:`simulate` builds the cluster
and runs it; :func:`run_trial` is the sweep entry point returning a flat
metrics dict.  The ``python -m simlib run`` command is generated from
:class:`Scenario` (:mod:`simlib.papers.cluster_command`).

Randomness: the trial's SeedSequence is split into independent children
(0: bandwidths, 1: compute times, 2: estimation error) by fixed keys, so every
scheme sees the same bandwidths and the same per-worker compute-time draws for
the same seed (paired comparison).
"""
from __future__ import annotations

import math

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from simlib.core.collectives import RING_MODELS, SYNC_MODELS
from simlib.core.seeding import as_seed_sequence, child_seed
from simlib.core.units import MB
from simlib.runtime.baselines import AllReduceController
from simlib.runtime.cluster import Cluster
from simlib.runtime.log import ScheduleLog
from simlib.runtime.metrics import sync_metrics
from simlib.runtime.capture import offer, watch_cluster
from simlib.workloads.traces import TRACE_HELP, Trace, check_trace_file, load_trace

from .contract import ParamError, ScenarioBase, defaults, param, param_group, specs
from .partial_reduce.baselines import (BASELINE_READS, BASELINES, BaselineParams, baseline_cluster, baseline_controller,
                                       check_baseline)
from .partial_reduce.scenario import (PartialReduceParams, WeightParams, check_runnable, partial_controller,
                                      weight_rule)
from .scheme import Scheme
from .selective_reduce.bandwidth import selective_reduce_bandwidths
from .selective_reduce.scenario import SelectiveReduceParams, selective_controller
from .trial import trial_of

__all__ = ["Scenario", "SCHEME_NAMES", "SCHEME_PARAMS", "ignored_by_scheme", "MAX_ITERATIONS", "MAX_CONTROLLER_ROUNDS",
           "SCHEMES", "simulate", "build_cluster", "run_metrics", "run_trial", "slowdown", "compute_trace"]

#: The schemes a scenario can run (their controllers: :data:`SCHEMES`): 000/002's reduce schemes, then
#: 002's baselines (:data:`~simlib.papers.partial_reduce.baselines.BASELINES`).
SCHEME_NAMES = ("allreduce", "partial", "selective") + BASELINES


#: The work guard (decision E20): a scenario whose estimated iterations (all workers) or controller
#: rounds exceed these is refused before it runs, naming the parameter to change; each is hours of
#: work and about 10**3 times the largest a notebook runs (n = 10,000 for 100 s: ~10**5 iterations).
MAX_ITERATIONS = 10**8
MAX_CONTROLLER_ROUNDS = 10**8

#: The parameters only some schemes read, with those schemes (every other parameter is read by every
#: scheme): a group's own knobs by its scheme, the aggregation weights by the schemes whose groups are
#: partial (all reduce syncs every worker at one version, so its dynamic weights are the constant
#: ones; the baselines take none), each baseline's knobs by that baseline (002 declares which:
#: :data:`~simlib.papers.partial_reduce.baselines.BASELINE_READS`).
SCHEME_PARAMS = {
    **{name: ("selective",) for name in specs(SelectiveReduceParams)},
    **{name: ("partial",) for name in specs(PartialReduceParams)},
    **{name: ("partial", "selective") for name in specs(WeightParams)},
    **BASELINE_READS,
}


def ignored_by_scheme(cls, params, scheme: str, reads=SCHEME_PARAMS) -> dict[str, tuple]:
    """``{name: schemes that read it}`` for every parameter in ``params`` (flat, of scenario class
    ``cls``) that differs from its declared default and that ``scheme`` does not read (``reads``:
    :data:`SCHEME_PARAMS`).  The ``run`` and ``train`` commands refuse such flags, naming the scheme
    (issue 45: ``--weights dynamic --scheme allreduce`` used to run all reduce as if not given)."""
    default = defaults(cls)
    return {name: reads[name] for name, value in params.items()
            if name in reads and scheme not in reads[name] and name in default
            and value != (list(default[name]) if isinstance(default[name], tuple) else default[name])}


@dataclass(frozen=True)
class Scenario(ScenarioBase):
    """One simulated training run (units in field names), every parameter declared once.

    ``p`` is a fraction of ``n`` as in the paper (p = 0.3n); the group size
    used is ``max(1, round(p * n))`` (decision E8), and ``p * n`` must be at
    least 0.5.  Each paper's own knobs are parameter groups
    (:func:`~simlib.papers.contract.param_group`): ``selective`` (000),
    ``partial`` and ``weighting`` (002); their parameters have flat names like
    every other (``eta``, ``group_filter``, ``weights``), which are the sweeps'
    settings, CSV columns and cache keys.
    """

    #: ``--profile paper``'s hook (:func:`simlib.papers.profiles.hook_of`; 000's E18 and 002's PR16).
    PROFILE_HOOK: ClassVar[str] = "simlib.papers.cluster_profile:cluster_profile"

    scheme: str = param("selective", choices=SCHEME_NAMES,
                        help="synchronization scheme: all reduce, FIFO partial reduce (002), selective reduce "
                             "(000), or one of 002's baselines: Eager-Reduce, AD-PSGD, parameter server BSP / ASP / "
                             "HETE / with backup workers")
    n: int = param(200, lo=2, hi=100_000, quick=20, stated="000 §IV-A1",
                   help="workers (000 §IV-A1: 40-200; Figs. 8-14 at 200, decision E7)")
    trace: str = param("transformer", check=check_trace_file, allowed=TRACE_HELP.removeprefix("compute-time trace: "),
                       stated="000 §IV-B1", help="compute-time trace (000 §IV-B1: mainly Transformer)")
    compute_mean_s: float | None = param(None, kind="float", lo=0.0, lo_open=True, unit="s", none_means="stored",
                                         flag="--compute-mean",
                                         chosen="E6",
                                         help="rescale the trace to this mean compute time per iteration; stored: "
                                              "as stored, mean 1 s (decision E6)")
    compute_cv: float | None = param(None, kind="float", lo=0.0, none_means="stored", chosen="PR15",
                                     help="set the trace's coefficient of variation (the samples stretched about "
                                          "their mean, a distribution trace only); stored: as stored (cnn 0.07; "
                                          "decision PR15)")
    duration_s: float = param(100.0, lo=0.0, lo_open=True, unit="s", quick=10.0, flag="--duration",
                              stated="000 §IV-B1", help="training time simulated (000 §IV-B1: 100 s)")
    p: float = param(0.3, lo=0.0, hi=1.0, lo_open=True, stated="000 §IV-A1",
                     help="minimum group size as a fraction of n: max(1, round(p n)) workers, p n >= 0.5 (000 §IV-A1: "
                          "0.3n; decision E8)")
    lam: float = param(0.05, lo=0.0, hi=1.0, stated="000 §IV-A1",
                       help="bandwidth skew λ: b_k = round(20u, 3) Gbps, u ~ U[λ, 1] (000 §IV-A1: 0.05)")
    alpha_s: float = param(1e-3, lo=0.0, unit="s", flag="--alpha", stated="000 §IV-A1",
                           help="one-way latency α (000 §IV-A1: 1 ms)")
    model_mb: float = param(500.0, lo=0.0, lo_open=True, unit="MB", stated="000 §IV-A1",
                            help="model size v (000 §IV-A1: 500 MB)")
    sync_model: str = param("flows", choices=SYNC_MODELS, stated="000 §IV-A2",
                            help="a group's sync: ring all-reduce as flows (000 §IV-A2's flow-level simulator), or "
                                 "Eq. (2) in closed form")
    ring_model: str = param("single", choices=RING_MODELS, chosen="E11",
                            help="flow model of the ring all-reduce (decision E11)")
    bandwidth_gbps: float | None = param(None, kind="float", lo=0.0, lo_open=True, unit="Gbps", none_means="drawn",
                                         stated="000 §IV-A1",
                                         help="every worker's bandwidth (002's homogeneous network); drawn: 000 "
                                              "§IV-A1's draws (lam)")
    hl: int = param(1, lo=1, stated="000 §IV-A1",
                    help="heterogeneity level: workers 0..hl-1 share one GPU and compute 1 + hl_slowdown (hl - 1) "
                         "times slower (002 §5.2), at most n; 1: none, as in 000 §IV-A1")
    hl_slowdown: float = param(1.0, lo=0.0, chosen="PR15",
                               help="γ: a worker sharing its GPU with hl - 1 others computes 1 + γ (hl - 1) times "
                                    "slower; 1: hl times (each gets 1/hl of the GPU; decision PR15)")
    selective: SelectiveReduceParams = param_group(SelectiveReduceParams)
    partial: PartialReduceParams = param_group(PartialReduceParams)
    weighting: WeightParams = param_group(WeightParams)
    baselines: BaselineParams = param_group(BaselineParams)

    def check(self):
        if self.hl > self.n:
            raise ParamError("hl", f"hl must be in [1, n = {self.n}], got {self.hl}")
        if self.compute_cv is not None:
            try:
                load_trace(self.trace).with_cv(self.compute_cv)
            except ValueError as exc:
                raise ParamError("compute_cv", f"compute_cv: {exc}") from None
        if self.p * self.n < 0.5:
            raise ParamError("p", f"p * n must be at least 0.5 (a group of >= 1 worker), got {self.p} * {self.n}")
        if self.partial.group_filter and self.scheme != "partial":
            raise ParamError("group_filter", f"group_filter applies to scheme 'partial' only, got scheme "
                                             f"{self.scheme!r}")
        if self.scheme == "selective" and self.selective.dt_s < math.ulp(self.duration_s):
            # below the clock's resolution t + Δt == t: Alg. 3's line-24 timeout would fire again at the same
            # instant forever (the event loop's no-progress check would end it, later and less clearly)
            raise ParamError("dt_s", f"dt_s must be in [{math.ulp(self.duration_s):.3g}, inf) s, the clock's "
                                     f"resolution at duration_s = {self.duration_s:g} s (math.ulp), got "
                                     f"{self.selective.dt_s!r}")
        self._check_work()
        check_runnable(self.partial, self.n, self.group_size)
        check_baseline(self.baselines, self.scheme, self.n, self.weighting.weights, self.sync_model)

    def work(self) -> tuple[float, float, float, float]:
        """The work guard's estimates (decision E20): ``(iterations, controller_rounds, mean_s, sync_s)``.

        ``iterations`` = n × duration_s / (``mean_s`` + ``sync_s``): ``mean_s`` the mean compute time
        (s), ``sync_s`` a lower bound of one sync (s), a ring all-reduce of the model over the scheme's
        smallest group g (all reduce: n; partial, selective: max(1, round(p n)); the baselines: 1, no
        sync) at the fastest possible bandwidth: 2 (g - 1) (alpha_s + model bits / (g b_max)) (000 Eq. 2;
        b_max = bandwidth_gbps, or 20 Gbps, the largest of 000 §IV-A1's draws).  ``controller_rounds`` =
        duration_s / dt_s for selective reduce (Alg. 3's Δt timer fires at most once per Δt), else 0."""
        mean = self.compute_mean_s if self.compute_mean_s is not None else load_trace(self.trace).mean
        g = self.n if self.scheme == "allreduce" else self.group_size if self.scheme in ("partial", "selective") else 1
        b_max = (self.bandwidth_gbps if self.bandwidth_gbps is not None else 20.0) * 1e9
        sync = 2 * (g - 1) * (self.alpha_s + self.model_mb * MB / (g * b_max))
        rounds = self.duration_s / self.selective.dt_s if self.scheme == "selective" else 0.0
        return self.n * self.duration_s / (mean + sync), rounds, mean, sync

    def _check_work(self) -> None:
        iterations, rounds, mean, sync = self.work()
        if rounds > MAX_CONTROLLER_ROUNDS:
            raise ParamError("dt_s", f"dt_s must be at least duration_s / {MAX_CONTROLLER_ROUNDS:.0e} = "
                                     f"{self.duration_s / MAX_CONTROLLER_ROUNDS:.3g} s: Alg. 3's Δt timer would run "
                                     f"up to {rounds:.3g} controller rounds (hours of work; work guard E20), got "
                                     f"{self.selective.dt_s!r}")
        if iterations > MAX_ITERATIONS:
            raise ParamError("compute_mean_s",
                             f"the run would simulate about {iterations:.3g} iterations, more than "
                             f"{MAX_ITERATIONS:.0e} (hours of work; work guard E20): n × duration_s / (mean compute "
                             f"time {mean:.3g} s + a sync of at least {sync:.3g} s); increase compute_mean_s, "
                             f"model_mb or alpha_s, or decrease duration_s or n")

    @classmethod
    def ignored_by_scheme(cls, params: dict) -> dict[str, tuple]:
        """:func:`ignored_by_scheme` of flat ``params`` under their ``scheme``."""
        return ignored_by_scheme(cls, params, params.get("scheme", defaults(cls)["scheme"]))

    @property
    def group_size(self) -> int:
        """p in workers: max(1, round(p * n))."""
        return max(1, int(round(self.p * self.n)))


def _allreduce(sc: Scenario, p: int, **_):
    return AllReduceController()


def _partial(sc: Scenario, p: int, **_):
    return partial_controller(sc.partial, n=sc.n, p=p)


def _selective(sc: Scenario, p: int, *, trace, bandwidth, error_rng):
    return selective_controller(sc.selective, p=p, model_bits=sc.model_mb * MB, alpha_s=sc.alpha_s,
                                trace=trace, bandwidth=bandwidth, error_rng=error_rng)


def _baseline(sc: Scenario, p: int, *, error_rng, **_):
    return baseline_controller(sc.scheme, sc.baselines, error_rng, sc.n)


#: Okabe-Ito colours (colour-blind safe; the nine of R's ``palette.colors("Okabe-Ito")``, grey included)
#: and distinct markers (greyscale print), in :data:`SCHEME_NAMES` order.
SCHEMES = {s.name: s for s in (
    Scheme("allreduce", "000", "All reduce", "#0072B2", "o", Scenario, _allreduce),
    Scheme("partial", "002", "Partial reduce", "#D55E00", "s", Scenario, _partial),
    Scheme("selective", "000", "Selective reduce", "#009E73", "^", Scenario, _selective),
    Scheme("eager", "002", "Eager-Reduce", "#E69F00", "v", Scenario, _baseline),
    Scheme("adpsgd", "002", "AD-PSGD", "#56B4E9", "D", Scenario, _baseline),
    Scheme("ps-bsp", "002", "PS BSP", "#000000", "P", Scenario, _baseline),
    Scheme("ps-asp", "002", "PS ASP", "#CC79A7", "X", Scenario, _baseline),
    Scheme("ps-hete", "002", "PS HETE", "#F0E442", "*", Scenario, _baseline),
    Scheme("ps-backup", "002", "PS BK", "#999999", "h", Scenario, _baseline),
)}
assert tuple(SCHEMES) == SCHEME_NAMES


def compute_trace(sc: Scenario) -> Trace:
    """The compute-time trace (seconds) the run's workers draw from: ``sc.trace``, rescaled to
    ``compute_mean_s`` and given ``compute_cv`` where those are set."""
    tr = load_trace(sc.trace)
    tr = tr.rescaled(sc.compute_mean_s) if sc.compute_mean_s is not None else tr
    return tr.with_cv(sc.compute_cv) if sc.compute_cv is not None else tr


def slowdown(sc: Scenario) -> list[float]:
    """Each worker's compute-time factor: ``1 + hl_slowdown (hl - 1)`` for workers ``0..hl-1``, else 1
    (002 §5.2's HL workers on one GPU; decision PR15)."""
    f = 1.0 + sc.hl_slowdown * (sc.hl - 1)
    return [f if w < sc.hl else 1.0 for w in range(sc.n)]


def simulate(sc: Scenario, seed: np.random.SeedSequence | int = 0,
             bandwidth: np.ndarray | None = None, compute=None, *, engine: str = "auto") -> ScheduleLog:
    """Run one scenario; returns its schedule log (:func:`build_cluster`, then ``run(engine)``).

    ``bandwidth`` (bits/s) and ``compute`` (object with ``next(w)``) override the
    seeded draws (used by hand-made examples such as 000 Fig. 3).  ``engine``: the event loop
    (:meth:`~simlib.runtime.cluster.Cluster.run`, decision N13: the same log from either; not a
    scenario parameter; inside a timeline capture the Python loop, whose network the capture watches for
    the links' rates, S31).  The log is offered to a timeline capture
    (:func:`simlib.runtime.capture.offer`: a no-op outside one).
    """
    cluster = build_cluster(sc, seed, bandwidth, compute)
    flows = watch_cluster(cluster)              # inside a timeline capture only: its links' rates, which
    log = cluster.run("python" if flows is not None else engine)   # only the Python loop's network shows (N13)
    offer(log, "simlib.runtime.timeline:schedule_events", flows)
    cluster.release()          # freed on return, not by the cyclic garbage collector
    return log


def build_cluster(sc: Scenario, seed: np.random.SeedSequence | int = 0,
                  bandwidth: np.ndarray | None = None, compute=None) -> Cluster:
    """The cluster :func:`simulate` runs, not yet run: its bandwidths, compute times and controller
    drawn from ``seed``'s children 0-2 (``bandwidth`` and ``compute`` as in :func:`simulate`).  Its
    simulated clock is ``cluster.sim.now`` (s)."""
    seed = as_seed_sequence(seed)
    trace = compute_trace(sc)
    if bandwidth is None and sc.bandwidth_gbps is not None:
        bandwidth = np.full(sc.n, sc.bandwidth_gbps * 1e9)
    if bandwidth is None:
        bandwidth = selective_reduce_bandwidths(sc.n, np.random.default_rng(child_seed(seed, 0)), lam=sc.lam)
    if compute is None:
        compute = trace.compute_times(sc.n, child_seed(seed, 1), scale=slowdown(sc))
    ctrl = SCHEMES[sc.scheme].controller(sc, sc.group_size, trace=trace, bandwidth=bandwidth,
                                         error_rng=np.random.default_rng(child_seed(seed, 2)))
    if sc.scheme in BASELINES:
        return baseline_cluster(ctrl, sc.baselines, bandwidth, compute, model_bits=sc.model_mb * MB,
                                alpha=sc.alpha_s, duration=sc.duration_s, ring_model=sc.ring_model)
    return Cluster.big_switch(bandwidth, compute, ctrl, model_bits=sc.model_mb * MB, alpha=sc.alpha_s,
                              duration=sc.duration_s, sync_model=sc.sync_model, ring_model=sc.ring_model,
                              weight_rule=weight_rule(sc.weighting))


def run_metrics(sc: Scenario, log: ScheduleLog) -> dict:
    """:func:`run_trial`'s metrics of ``sc``'s run ``log``: :func:`~simlib.runtime.metrics.sync_metrics`
    plus ``group_size`` and ``controller_rounds``."""
    out = sync_metrics(log)
    out["group_size"] = sc.group_size
    out["controller_rounds"] = log.counters.get("controller_rounds", 0)
    return out


def _cache_params(sc: Scenario) -> dict:
    """Every parameter of the trial ``sc`` stands for: the sweep cache's key, so settings that spell one
    trial differently share one result (:func:`simlib.pipeline.sweep.run_sweep`).  Only selective reduce
    reads its knobs (``_selective``), so another scheme's key has them at their defaults: its run at every
    Δt, η, θ, e is one trial; without an estimation error (e = 0) how the error would be redrawn is
    irrelevant too (decision S17).  Works on ``sc``'s flat parameters (no second scenario is built)."""
    out = sc.to_params()
    if sc.scheme != "selective":
        out.update(_SELECTIVE_DEFAULTS)
    elif sc.selective.bw_error == 0:   # an exact estimate is drawn no way (scenario._bandwidth_estimator)
        out["bw_error_redraw"] = _SELECTIVE_DEFAULTS["bw_error_redraw"]
    return out


_SELECTIVE_DEFAULTS = SelectiveReduceParams().to_params()


@trial_of(Scenario, key=_cache_params, example={"scheme": "partial", "n": 6, "duration_s": 5.0})
def run_trial(sc: Scenario, seed: np.random.SeedSequence) -> dict:
    """Sweep entry point: a :class:`Scenario` (used as it is: built and checked by the caller -- a sweep
    builds each dict setting once, :class:`~simlib.papers.trial.Trial` -- or, called directly, its flat
    dict, built here) -> metrics dict (see :mod:`simlib.runtime.metrics`); the sweep cache keys it on
    :func:`_cache_params`."""
    sc = Scenario.of(sc)
    return run_metrics(sc, simulate(sc, seed))
