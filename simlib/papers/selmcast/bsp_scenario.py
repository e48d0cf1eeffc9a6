"""Seed 004's BSP round (§IV-A2, §IV-B) as a declared scenario: every knob once, with its range.

:class:`BSPScenario` is one instance of a BSP round on a non-blocking switch: n
workers, egress b̄(1 + λx) and ingress b̄μ(1 + λx) with x ~ U[-1, 1] per port
(decision B2), a v MB model each multicasts to at least p = round(p_frac n)
others (SM6).  ``rounds``/``k`` run several rounds with a delivery history
(SM2).  The field names are the sweep settings of notebooks 40/41 (CSV columns
and cache keys).  :class:`BSPOptions` are the command's run options, not
instance parameters.  The trials are in :mod:`.experiments`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from simlib.papers.contract import ScenarioBase, param

__all__ = ["BSPScenario", "BSPOptions", "BSP_SCHEMES", "LAYERS", "NORMALIZATIONS"]

#: The schemes every BSP trial runs (the MILP runs in its own trial: it is slow).
BSP_SCHEMES = ("selmcast", "orpheus", "optimal")
LAYERS = ("L3", "L7")
#: Readings of the paper's "ideal completion time" (decision SM1): the own layer's t*, or the L3 t*.
NORMALIZATIONS = ("own", "L3")


@dataclass(frozen=True)
class BSPScenario(ScenarioBase):
    """One BSP instance of seed 004 §IV-B (units in field names); §IV-A2's defaults."""

    #: ``--profile paper``'s hook: SM72's fitted BSP profile (:func:`simlib.papers.profiles.hook_of`).
    PROFILE_HOOK: ClassVar[str] = "simlib.papers.selmcast.profile:bsp_profile"

    n: int = param(200, lo=2, hi=5000, stated="§IV-A2", help="workers (§IV-A2: 200)")
    p_frac: float = param(0.3, lo=0.0, hi=1.0, lo_open=True, hi_open=True, flag="--p", stated="§IV-A2",
                          help="minimum receivers as a fraction of n; p = round(p_frac n) in [1, n - 1] (SM6)")
    layer: str = param("L3", choices=LAYERS, help="multicast layer: L3 (one flow per sender) or L7 (one per pair)")
    lam: float = param(0.5, lo=0.0, hi=1.0, hi_open=True, stated="§IV-A2",
                       help="bandwidth variation λ: b̄(1 + λx), x ~ U[-1, 1] (§IV-A2: 0.5; SM14)")
    mu: float = param(1.0, lo=0.0, lo_open=True, words=("1/p",), stated="§IV-A2",
                      help="ingress/egress bandwidth ratio μ; 1/p: the receiver count's inverse (Fig. 6, SM6)")
    bbar_gbps: float = param(40.0, lo=0.0, lo_open=True, unit="Gbps", flag="--bbar", stated="§IV-A2",
                             help="mean egress bandwidth b̄ (§IV-A2: 40 Gbps; the normalized metrics do not "
                                  "depend on it)")
    model_mb: float = param(200.0, lo=0.0, lo_open=True, unit="MB", stated="§IV-A2",
                            help="model size v (§IV-A2: 200 MB; the normalized metrics do not depend on it)")
    shared_x: bool = param(False, chosen="B2", help="a worker's ingress and egress share one random x (decision B2)")
    rounds: int = param(1, lo=1, chosen="SM2",
                        help="rounds with one delivery history; metrics are means over them (SM2)")
    k: int = param(4, lo=1, stated="§IV-A2",
                   help="a pair not served for k rounds is forced into the next (used when rounds > 1; §IV-A2: 4)")
    normalization: str = param("own", choices=NORMALIZATIONS, chosen="SM1",
                               help="the ideal the completion time is divided by: the own layer's t* or "
                                    "the L3 t* (SM1)")


@dataclass(frozen=True)
class BSPOptions(ScenarioBase):
    """What ``python -m simlib selmcast-bsp`` runs on the instance: one scheme, the MILP's time limit."""

    scheme: str = param("selmcast", choices=(*BSP_SCHEMES, "milp"),
                        help="optimal: the exact max-flow optimum; milp: HiGHS on model (12)")
    time_limit_s: float = param(60.0, lo=0.0, lo_open=True, unit="s", flag="--time-limit",
                                stated="§IV-B1", help="MILP time limit per stage (§IV-B1: 60 s)")
