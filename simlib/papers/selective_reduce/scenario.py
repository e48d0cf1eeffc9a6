"""Seed 000's own knobs (Table II and §IV-B) and the selective-reduce controller they build.

:class:`SelectiveReduceParams` holds every parameter that only selective
reduce uses, with the paper's defaults (and ours where the paper has none;
see docs/decisions/selective_reduce_experiments.md).  The run itself (cluster,
traces, bandwidths, the other schemes) is :mod:`simlib.papers.cluster_scenario`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlib.core.validate import check_choice, check_int, check_real
from simlib.workloads.bandwidth import estimate_with_error
from simlib.workloads.traces import OnlineECDF

from .algorithms import BASE_RULES, TX_FORMS
from .controller import SelectiveReduceController
from .progress import PROGRESS_MODELS, make_progress

__all__ = ["SelectiveReduceParams", "selective_controller", "CDF_SOURCES", "ERROR_REDRAW"]

CDF_SOURCES = ("warm", "cold")
ERROR_REDRAW = ("decision", "run")


@dataclass(frozen=True)
class SelectiveReduceParams:
    """Selective reduce's knobs (000 Table II, §IV-B; units in field names)."""

    eta: float = 0.3
    theta: float = 1.0
    dt_s: float = 0.1                  # Δt; no default in the paper (decision E2)
    c: int | None = None               # full all-reduce every c syncs; None = never (decision E1)
    bw_error: float = 0.0              # e of §IV-B5
    bw_error_redraw: str = "decision"  # fresh estimation error per controller decision, or once per run (E9)
    cdf: str = "warm"                  # warm: F_Phi known; cold: learned online (§IV-B5, E13)
    progress_model: str = "paper"      # progress.PROGRESS_MODELS (E3)
    base_rule: str = "text"            # BAG line 6 reading (decision SR1)
    tx_form: str = "approx"            # BPAWR line 15 (approx) or the exact Eq. (2) difference

    def __post_init__(self):
        check_real("eta", self.eta, 0.0, 1.0, hi_open=True)
        check_real("theta", self.theta, 0.0, allow_inf=True)   # inf: never wait (SR19)
        check_real("dt_s", self.dt_s, 0.0, lo_open=True)
        if self.c is not None:
            check_int("c", self.c, 1)
        check_real("bw_error", self.bw_error, 0.0)
        check_choice("bw_error_redraw", self.bw_error_redraw, ERROR_REDRAW)
        check_choice("cdf", self.cdf, CDF_SOURCES)
        check_choice("progress_model", self.progress_model, PROGRESS_MODELS)
        check_choice("base_rule", self.base_rule, BASE_RULES)
        check_choice("tx_form", self.tx_form, TX_FORMS)
        if self.progress_model == "oracle" and self.cdf == "cold":
            raise ValueError("progress_model 'oracle' needs cdf='warm' (an oracle learns nothing)")


def _bandwidth_estimator(bandwidth: np.ndarray, e: float, redraw: str, rng: np.random.Generator):
    """The controller's view of the bandwidths (000 §IV-B5), bits/s: a per-worker array when
    it is fixed for the run (exact, or one error draw per run), else ``estimate(ids)``."""
    if e == 0:
        return bandwidth
    if redraw == "run":
        return estimate_with_error(bandwidth, e, rng)
    return lambda ids: estimate_with_error(bandwidth[ids], e, rng)


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
