"""Seed 002's baselines (§5.1: Eager-Reduce, AD-PSGD, PS BSP / ASP / HETE / BK) as schemes of the
000/002 cluster run: their knobs, declared once (:class:`BaselineParams`, a parameter group of
:class:`~simlib.papers.cluster_scenario.Scenario`), and the controller and cluster each builds from
the generic runtime (:mod:`simlib.runtime.parameter_server`, :mod:`simlib.runtime.decentralized`).
Decisions PS1-PS8, AD1-AD3, ER1-ER2 in docs/decisions/baselines.md.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlib.core.topology import BigSwitch
from simlib.papers.contract import ParamError, ScenarioBase, param
from simlib.runtime.cluster import Cluster
from simlib.runtime.decentralized import (AD_PASSIVE, QUORUMS, ADPSGDController, EagerReduceController,
                                         WholeRing)
from simlib.runtime.parameter_server import PS_STEPS, ParameterServerController, ps_cluster

__all__ = ["BaselineParams", "BASELINES", "BASELINE_READS", "baseline_controller", "baseline_cluster",
           "check_baseline"]

#: The baselines' scheme names (the ``scheme`` values of the cluster run).
BASELINES = ("eager", "adpsgd", "ps-bsp", "ps-asp", "ps-hete", "ps-backup")
_PS = ("ps-bsp", "ps-asp", "ps-hete", "ps-backup")
#: Which baselines read each knob of :class:`BaselineParams` (its part of the cluster run's
#: :data:`~simlib.papers.cluster_scenario.SCHEME_PARAMS`: every other scheme ignores it).
BASELINE_READS = {
    "backups": ("ps-backup",), "ps_servers": _PS, "server_bandwidth_gbps": _PS, "ps_step": _PS,
    "server_apply_s": _PS, "hete_c": ("ps-hete",), "asp_lr_scale": ("ps-asp",), "ad_passive": ("adpsgd",),
    "ad_atomic": ("adpsgd",),
    "quorum": ("eager",),
}


@dataclass(frozen=True)
class BaselineParams(ScenarioBase):
    """The knobs of 002's baselines, each declared once."""

    backups: int = param(3, lo=0, stated="002 §5.2.1",
                         help="PS BK's backup workers b: each step aggregates the first n - b fresh gradients, at "
                              "most n - 1 (002 §5.2.1: 3 of 8; decision PS2)")
    ps_servers: int | None = param(None, kind="int", lo=1, none_means="n", chosen="PS1",
                                   help="parameter servers (hosts of their own); the model is split evenly over "
                                        "them; n: one per worker, as 002 Table 1's PS-to-all-reduce per-update "
                                        "times suggest (decision PS1)")
    server_bandwidth_gbps: float | None = param(None, kind="float", lo=0.0, lo_open=True, unit="Gbps",
                                                none_means="fastest", chosen="PS1",
                                                help="each parameter server's bandwidth; fastest: the fastest "
                                                     "worker's (decision PS1)")
    hete_c: float = param(1.0, lo=0.0, lo_open=True, chosen="PS3",
                          help="PS HETE's step-size factor 1 / (staleness + hete_c) (Jiang et al. SIGMOD'17; "
                               "decision PS3)")
    asp_lr_scale: float | None = param(None, kind="float", lo=0.0, hi=1.0, lo_open=True, none_means="1/n", chosen="PS6",
                                       help="PS ASP's step-size factor per push; 1/n: each gradient moves the "
                                            "model as far as in PS BSP's averaged step; 1: the literal full "
                                            "step per push (decision PS6); with ps_step sum, 1/n means 1")
    ps_step: str = param("mean", choices=PS_STEPS, chosen="PS8",
                         help="what a PS update does with its gradients: mean (a BSP/BK step averages them, ASP's "
                              "factor 1/n) or sum (every push at the full learning rate, as 002's authors' Hetu; "
                              "decision PS8)")
    server_apply_s: float = param(0.0, lo=0.0, unit="s", chosen="PS7",
                                  help="the server's time to apply one push, one push at a time (PS BSP, BK, ASP, "
                                       "HETE; decision PS7)")
    ad_passive: str = param("compute", choices=AD_PASSIVE, chosen="AD3",
                            help="AD-PSGD's passive neighbour during an exchange: keeps computing, or blocks (its "
                                 "compute pauses until the exchange ends; decision AD3)")
    ad_atomic: bool = param(False, chosen="AD4",
                            help="AD-PSGD's atomic averaging: an exchange takes both models' locks and waits while "
                                 "either is held by another exchange (002 §5.2.2 \"atomic model averaging\"; "
                                 "decision AD4)")
    quorum: str = param("majority", choices=QUORUMS, stated="002 §5.2.2",
                        help="ready workers that start an Eager-Reduce round: the first (solo) or n // 2 + 1 "
                             "(002 §5.2.2: ER \"requires the majority to participate\"; decision ER1)")


def check_baseline(bp: BaselineParams, scheme: str, n: int, weights: str, sync_model: str) -> None:
    """Cross-field rules of a baseline run: ``backups < n`` for ``ps-backup``; the baselines take no
    aggregation-weight rule (``weights`` must be ``"constant"``) and run as flows (``sync_model``
    ``"flows"``)."""
    if scheme not in BASELINES:
        return
    if sync_model != "flows":
        raise ParamError("sync_model", f"sync_model must be 'flows' for scheme {scheme!r}, got {sync_model!r}")
    if scheme == "ps-backup" and bp.backups >= n:
        raise ParamError("backups", f"backups must be in [0, n - 1 = {n - 1}], got {bp.backups}")
    if weights != "constant":
        raise ParamError("weights", f"weights applies to the reduce schemes, not {scheme!r}; got {weights!r}")


def baseline_controller(scheme: str, bp: BaselineParams, rng: np.random.Generator, n: int):
    """The controller of baseline ``scheme`` (one of :data:`BASELINES`) for ``n`` workers; ``rng`` draws
    AD-PSGD's neighbours."""
    if scheme == "eager":
        return EagerReduceController(bp.quorum)
    if scheme == "adpsgd":
        return ADPSGDController(rng, passive=bp.ad_passive, atomic=bp.ad_atomic)
    ps = dict(apply_s=bp.server_apply_s, step=bp.ps_step)
    if scheme == "ps-bsp":
        return ParameterServerController("sync", **ps)
    if scheme == "ps-backup":
        return ParameterServerController("sync", backups=bp.backups, **ps)
    if scheme == "ps-asp":
        asp = bp.asp_lr_scale if bp.asp_lr_scale is not None else (1.0 / n if bp.ps_step == "mean" else 1.0)
        return ParameterServerController("async", asp_factor=asp, **ps)
    if scheme == "ps-hete":
        return ParameterServerController("async", hete_c=bp.hete_c, **ps)
    raise ValueError(f"scheme must be one of {list(BASELINES)}, got {scheme!r}")


def baseline_cluster(ctrl, bp: BaselineParams, bandwidth: np.ndarray, compute, *, model_bits: float, alpha: float,
                     duration: float, ring_model: str = "single") -> Cluster:
    """The cluster a baseline controller runs on: servers added to the big switch for the parameter
    server (PS1), a pairwise exchange for AD-PSGD, a ring over every worker for Eager-Reduce."""
    if isinstance(ctrl, ParameterServerController):
        sb = None if bp.server_bandwidth_gbps is None else bp.server_bandwidth_gbps * 1e9
        servers = len(bandwidth) if bp.ps_servers is None else bp.ps_servers
        return ps_cluster(bandwidth, compute, ctrl, model_bits=model_bits, alpha=alpha, duration=duration,
                          servers=servers, server_bandwidth=sb)
    collective = (ctrl.exchange(model_bits, alpha) if isinstance(ctrl, ADPSGDController)
                  else WholeRing(model_bits, alpha, ring_model))
    return Cluster(BigSwitch.symmetric(bandwidth), collective, compute, ctrl, duration=duration)
