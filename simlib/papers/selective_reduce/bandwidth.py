"""Seed 000 §IV-A1 bandwidths (bits/s).  Decisions: docs/decisions/traces_bandwidth.md."""
from __future__ import annotations

import numpy as np

from simlib.core.seeding import check_rng
from simlib.core.units import Mbps
from simlib.core.validate import check_int, check_real

__all__ = ["selective_reduce_bandwidths"]


def selective_reduce_bandwidths(n: int, rng: np.random.Generator, lam: float = 0.05) -> np.ndarray:
    """Per-worker available bandwidth of seed 000 §IV-A1 (bits/s, shape ``(n,)``).

    b_k = round(20 u, 3) Gbps with u ~ U[lam, 1] i.i.d. per worker, i.e. a
    value in [20 lam, 20] Gbps on a 1 Mbps grid (the same value serves the
    worker's uplink and downlink).  ``lam`` in [0, 1] (default 0.05, giving a
    1 Gbps minimum).  A draw that would round to 0 Gbps (possible only for
    lam < 2.5e-5) is raised to the smallest grid value, 1 Mbps, so every
    bandwidth is positive.  ``n`` >= 1 workers.
    """
    n = check_int("n", n, lo=1)
    check_rng(rng)
    lam = check_real("lam", lam, 0.0, 1.0)
    u = rng.uniform(lam, 1.0, size=n)
    # round(20u, 3) Gbps == rint(20000 u) Mbps; integers keep the 1 Mbps grid exact.
    mbps = np.maximum(np.rint(20.0 * u * 1000.0), 1.0)
    return mbps * Mbps
