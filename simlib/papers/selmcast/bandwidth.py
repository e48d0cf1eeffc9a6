"""Seed 004 §IV-A2 bandwidths (bits/s).  Decisions: docs/decisions/traces_bandwidth.md."""
from __future__ import annotations

import numpy as np

from simlib.core.seeding import check_rng
from simlib.core.units import Mbps
from simlib.core.validate import check_choice, check_int, check_real

__all__ = ["selmcast_bandwidths"]


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
    n = check_int("n", n, lo=1)
    bbar = check_real("bbar", bbar, lo=0.0, lo_open=True)
    lam = check_real("lam", lam, 0.0, 1.0, hi_open=True)
    mu = check_real("mu", mu, lo=0.0, lo_open=True)
    check_rng(rng)
    if not isinstance(shared_x, (bool, np.bool_)):
        raise ValueError(f"shared_x must be one of [False, True], got {shared_x!r}")
    x_e = rng.uniform(-1.0, 1.0, size=n)
    x_i = x_e if shared_x else rng.uniform(-1.0, 1.0, size=n)
    egress = bbar * (1.0 + lam * x_e)
    ingress = bbar * mu * (1.0 + lam * x_i)
    return egress, ingress
