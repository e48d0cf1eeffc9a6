"""Seed 000's own knobs (Table II and §IV-B) and the selective-reduce controller they build.

:class:`SelectiveReduceParams` declares every parameter that only selective
reduce uses (:func:`simlib.papers.contract.param`: default, range, unit, help),
with the paper's defaults (and ours where the paper has none; see
docs/decisions/selective_reduce_experiments.md); it is a parameter group of the
run 000 and 002 share (:mod:`simlib.papers.cluster_scenario`), which has the
cluster, traces, bandwidths and the other schemes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simlib.papers.contract import ParamError, ScenarioBase, param
from simlib.workloads.bandwidth import error_estimator, estimate_with_error
from simlib.workloads.traces import OnlineECDF

from .algorithms import BASE_RULES, TX_FORMS
from .controller import SelectiveReduceController
from .progress import PROGRESS_MODELS, make_progress

__all__ = ["SelectiveReduceParams", "selective_controller", "CDF_SOURCES", "ERROR_REDRAW"]

CDF_SOURCES = ("warm", "cold")
ERROR_REDRAW = ("decision", "run")


@dataclass(frozen=True)
class SelectiveReduceParams(ScenarioBase):
    """Selective reduce's knobs (000 Table II, §IV-B; units in field names), each declared once:
    the ``run`` command's flags and the notebooks' checks come from these declarations."""

    eta: float = param(0.3, lo=0.0, hi=1.0, hi_open=True, stated="000 §IV-A1",
                       help="BAG's bandwidth tolerance η (§IV-A1: 0.3)")
    theta: float = param(1.0, lo=0.0, hi=math.inf, stated="000 §IV-A1",
                         help="BPAWR's waiting threshold θ, in units of Δt (§IV-A1: 1; inf: never wait, SR19)")
    dt_s: float = param(0.1, lo=0.0, lo_open=True, unit="s", flag="--dt", chosen="E2",
                        help="controller waiting slot Δt (no default in the paper, decision E2)")
    c: int | None = param(None, kind="int", lo=1, none_means="never", chosen="E1",
                          help="a full all-reduce every c syncs (decision E1)")
    bw_error: float = param(0.0, lo=0.0, stated="000 §IV-B5",
                            help="bandwidth estimation error scale e: b + b e x, x ~ U[-1, 1] (§IV-B5; 0: the "
                                 "precise estimates §IV-B5 says the other tests assume)")
    bw_error_redraw: str = param("decision", choices=ERROR_REDRAW, chosen="E9",
                                 help="estimation error drawn afresh per controller decision or once per run "
                                      "(decision E9)")
    cdf: str = param("warm", choices=CDF_SOURCES, stated="000 §IV-B5",
                     help="F_Φ known (warm, what §IV-B5 says the other tests assume) or learned online from the "
                          "compute times seen (cold; §IV-B5, E13)")
    progress_model: str = param("paper", choices=PROGRESS_MODELS, chosen="E3",
                                help="Alg. 2 line 26's completion probability: F(t + Δt) (paper), the "
                                     "conditional form, or an oracle that knows the ready times (decision E3)")
    base_rule: str = param("text", choices=BASE_RULES, chosen="SR1",
                           help="BAG line 6: base groups of p (text) or p + 1 (pseudocode) workers (decision SR1)")
    tx_form: str = param("approx", choices=TX_FORMS, chosen="SR12",
                         help="BPAWR line 15's t_X: the approximate form as printed or the exact Eq. (2) difference "
                                  "(decision SR12)")

    def check(self):
        if self.progress_model == "oracle" and self.cdf == "cold":
            raise ParamError("progress_model", "progress_model 'oracle' needs cdf='warm' (an oracle learns "
                                               "nothing), got cdf='cold'")


def _bandwidth_estimator(bandwidth: np.ndarray, e: float, redraw: str, rng: np.random.Generator):
    """The controller's view of the bandwidths (000 §IV-B5), bits/s: a per-worker array when
    it is fixed for the run (exact, or one error draw per run), else ``estimate(ids)``."""
    if e == 0:
        return bandwidth
    if redraw == "run":
        return estimate_with_error(bandwidth, e, rng)
    return error_estimator(bandwidth, e, rng)


def selective_controller(sr: SelectiveReduceParams, *, p: int, model_bits: float, alpha_s: float, trace,
                         bandwidth: np.ndarray, error_rng: np.random.Generator) -> SelectiveReduceController:
    """000 Alg. 3 with group size ``p``, model ``model_bits`` (bits), latency ``alpha_s`` (s),
    compute-time distribution ``trace`` (known if ``cdf="warm"``, learned online if cold),
    true bandwidths ``bandwidth`` (bits/s) seen through ``sr.bw_error`` drawn from ``error_rng``."""
    observe = None
    dist = trace
    if sr.cdf == "cold":
        dist = OnlineECDF()
        observe = dist.observe
    return SelectiveReduceController(
        p, sr.eta, sr.theta, sr.dt_s, model_bits, progress=make_progress(sr.progress_model, dist),
        bandwidth_estimate=_bandwidth_estimator(np.asarray(bandwidth, dtype=float), sr.bw_error,
                                                sr.bw_error_redraw, error_rng),
        alpha=alpha_s, c=sr.c, observe=observe, base_rule=sr.base_rule, tx_form=sr.tx_form)
