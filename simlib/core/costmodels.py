"""Closed-form synchronization costs.

Seed 000 Eq. (2): the time of a ring all-reduce over a group of ``m`` workers
with model size ``v`` (bits), one-way latency ``alpha`` (s) and per-worker
bandwidths ``b`` (bits/s); the ring is as slow as its slowest worker:

    exact:   T = 2(m-1) alpha + 2 (m-1)/m * v / min(b)
    approx:  T ~ 2 m alpha + 2 v / min(b)

Section II-D's motivating example uses only the bandwidth term ``2 v / min(b)``
(alpha ~ 0): ``form="example"``.
"""
from __future__ import annotations

from typing import Sequence

from simlib.core.validate import check_array, check_choice, check_real

__all__ = ["ring_allreduce_time", "RING_FORMS"]

RING_FORMS = ("exact", "approx", "example")


def ring_allreduce_time(bandwidths: Sequence[float], model_bits: float, alpha: float = 0.0,
                        form: str = "exact") -> float:
    """Ring all-reduce time in seconds for one group (000 Eq. 2).

    ``bandwidths``: each member's bandwidth in bits/s (> 0, at least one member);
    ``model_bits`` >= 0; ``alpha`` >= 0 s; ``form`` one of ``RING_FORMS``.
    A group of one worker has nothing to exchange: 0 s for ``exact``.
    """
    b = check_array("bandwidths", bandwidths, lo=0.0, lo_open=True, min_len=1)
    v = check_real("model_bits", model_bits, 0.0)
    alpha = check_real("alpha", alpha, 0.0)
    form = check_choice("form", form, RING_FORMS)
    m = b.size
    bmin = float(b.min())
    if form == "exact":
        return 2 * (m - 1) * alpha + 2 * (m - 1) / m * v / bmin
    if form == "approx":
        return 2 * m * alpha + 2 * v / bmin
    return 2 * v / bmin
