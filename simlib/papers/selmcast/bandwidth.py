"""Seed 004 §IV-A2 bandwidths (bits/s).  Decisions: docs/decisions/traces_bandwidth.md."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlib.core.seeding import check_rng
from simlib.core.validate import check_int, check_real

__all__ = ["selmcast_bandwidths", "selmcast_bandwidth_draw", "SelMcastBandwidthDraw"]


def selmcast_bandwidths(n: int, bbar: float, lam: float, mu: float, rng: np.random.Generator,
                        *, shared_x: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Per-worker (egress, ingress) bandwidth of seed 004 §IV-A2 (bits/s, each shape ``(n,)``).

    egress_i = bbar (1 + lam x_i), ingress_i = bbar mu (1 + lam x'_i) with
    x, x' ~ U[-1, 1].  ``bbar`` > 0 bits/s is the mean egress bandwidth (the
    paper's default is 40 Gbps), ``lam`` in [0, 1) bounds the relative
    variation (default in the paper 0.5), ``mu`` > 0 is the ingress/egress
    ratio (paper: 1, or 1/p for L3 tests).  The paper writes the same symbol
    x in both expressions without saying whether a worker's two ports share
    it: ``shared_x=False`` (default) draws x and x' independently per port,
    ``shared_x=True`` uses x' = x.
    """
    check_rng(rng)
    draw = selmcast_bandwidth_draw(n, bbar, lam, mu, shared_x=shared_x)
    egress, ingress = draw(rng)
    return egress, ingress


def selmcast_bandwidth_draw(n: int, bbar: float, lam: float, mu: float, *,
                            shared_x: bool = False) -> SelMcastBandwidthDraw:
    """:func:`selmcast_bandwidths` with its arguments checked once: returns ``draw(rng)``, a
    ``(2, n)`` array of (egress, ingress) bits/s per call, the same values as
    ``np.stack(selmcast_bandwidths(n, bbar, lam, mu, rng, shared_x=shared_x))`` -- the form
    :class:`~simlib.workloads.bandwidth.TimeVaryingBandwidth` re-draws every period."""
    n = check_int("n", n, lo=1)
    bbar = check_real("bbar", bbar, lo=0.0, lo_open=True)
    lam = check_real("lam", lam, 0.0, 1.0, hi_open=True)
    mu = check_real("mu", mu, lo=0.0, lo_open=True)
    if not isinstance(shared_x, (bool, np.bool_)):
        raise ValueError(f"shared_x must be one of [False, True], got {shared_x!r}")
    return SelMcastBandwidthDraw(n, bbar, lam, mu, bool(shared_x))


@dataclass(frozen=True)
class SelMcastBandwidthDraw:
    """The draw :func:`selmcast_bandwidth_draw` returns (arguments already checked there).  Equal
    arguments compare and hash equal, so the period draws of runs that share a seed are computed
    once (:meth:`~simlib.workloads.bandwidth.TimeVaryingBandwidth.schedule`)."""

    n: int
    bbar: float
    lam: float
    mu: float
    shared_x: bool

    def __call__(self, rng: np.random.Generator) -> np.ndarray:
        # rng.uniform(-1, 1, size) is -1 + 2 U on the same stream; one call for both ports
        # gives the same numbers as two (x first, then x')
        x = 2.0 * rng.random((1 if self.shared_x else 2, self.n)) - 1.0
        out = np.empty((2, self.n))
        out[0] = self.bbar * (1.0 + self.lam * x[0])
        out[1] = self.bbar * self.mu * (1.0 + self.lam * x[-1])
        return out
