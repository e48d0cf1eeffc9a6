"""Seed 003 "Network and workloads" bandwidths (bits/s).  Decisions: docs/decisions/traces_bandwidth.md."""
from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from simlib.core.seeding import check_rng
from simlib.core.validate import check_choice, check_int, check_real

__all__ = ["fmreduce_bandwidths"]


def fmreduce_bandwidths(n: int, rng: np.random.Generator, unit: float = 25e6, k_mean: float = 5.0,
                        k_sd: float = 1.0, k_min: int = 1, k_max: int = 10,
                        method: str = "resample") -> np.ndarray:
    """Directed inter-cloud link capacities of seed 003 (bits/s, shape ``(n, n)``).

    b_ij = k_ij * ``unit`` for i != j, with k_ij an integer in [k_min, k_max]
    obtained by rounding a N(k_mean, k_sd) draw to the nearest integer;
    defaults are the paper's (unit = 25 Mbps, N(5, 1), k in [1, 10]).  Every
    ordered pair is drawn independently (b_ij independent of b_ji); the
    diagonal is 0 (no self link).  ``method`` decides what happens to a
    rounded draw outside [k_min, k_max]:

    * ``"resample"`` (default): draw again until it falls inside, i.e. k follows
      the discretised normal *conditioned* on the range (no extra mass at the
      bounds);
    * ``"clip"``: round then clip to the range (the bounds absorb the tails).

    With the paper's parameters the two differ with probability ~3e-6 per link.
    ``k_sd`` >= 0, 1 <= k_min <= k_max, ``unit`` > 0 bits/s, ``n`` >= 1.
    """
    n = check_int("n", n, lo=1)
    check_rng(rng)
    unit = check_real("unit", unit, lo=0.0, lo_open=True)
    k_mean = check_real("k_mean", k_mean)
    k_sd = check_real("k_sd", k_sd, lo=0.0)
    k_min = check_int("k_min", k_min, lo=1)
    k_max = check_int("k_max", k_max, lo=k_min)
    check_choice("method", method, ("resample", "clip"))
    if method == "resample":
        if k_sd == 0.0:
            accept = 1.0 if k_min <= round(k_mean) <= k_max else 0.0
        else:
            accept = (ndtr((k_max + 0.5 - k_mean) / k_sd)
                      - ndtr((k_min - 0.5 - k_mean) / k_sd))
        if accept < 1e-3:
            raise ValueError(f"k_mean must put N(k_mean, k_sd) within reach of [k_min, k_max] for "
                             f"method='resample' (acceptance probability {accept:.3g} < 1e-3); "
                             f"got k_mean={k_mean!r}, k_sd={k_sd!r}, k_min={k_min}, k_max={k_max}")
    m = n * (n - 1)
    k = np.rint(rng.normal(k_mean, k_sd, size=m))
    if method == "clip":
        k = np.clip(k, k_min, k_max)
    else:
        bad = (k < k_min) | (k > k_max)
        while bad.any():
            k[bad] = np.rint(rng.normal(k_mean, k_sd, size=int(bad.sum())))
            bad = (k < k_min) | (k > k_max)
    b = np.zeros((n, n), dtype=float)
    b[~np.eye(n, dtype=bool)] = k * unit
    return b
