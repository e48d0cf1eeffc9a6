"""Link layouts on top of :class:`~simlib.core.network.FlowNetwork`.

* :class:`BigSwitch` — the non-blocking switch of seeds 000 and 004: host
  ``i`` has an *ingress* port (host -> switch, its uplink; link id ``i``) and
  an *egress* port (switch -> host, its downlink; link id ``n + i``).
  Contention happens only at these ports.  A unicast ``s -> d`` crosses
  ``ingress[s]`` and ``egress[d]``; an L3 multicast crosses ``ingress[s]`` and
  every receiver's egress at one common rate.
* :class:`FullMesh` — seed 003's inter-cloud model: one directed link per
  ordered worker pair with its own capacity (``b_ij != b_ji`` in general).

Capacities in bits/s.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from simlib.core.validate import check_array, check_int

__all__ = ["BigSwitch", "FullMesh"]


@dataclass(frozen=True)
class BigSwitch:
    """``n`` hosts on one switch; ``ingress[i]``/``egress[i]`` in bits/s."""

    ingress: np.ndarray
    egress: np.ndarray

    def __init__(self, ingress: Sequence[float], egress: Sequence[float] | None = None):
        ing = check_array("ingress", ingress, lo=0.0, min_len=1)
        eg = ing.copy() if egress is None else check_array("egress", egress, lo=0.0, min_len=1)
        if eg.shape != ing.shape:
            raise ValueError(f"egress must have the same length as ingress ({ing.size}), got {eg.size}")
        object.__setattr__(self, "ingress", ing)
        object.__setattr__(self, "egress", eg)

    @classmethod
    def symmetric(cls, bandwidth: Sequence[float]) -> "BigSwitch":
        """Each host's uplink and downlink both have ``bandwidth[i]`` (seed 000's b_k)."""
        return cls(bandwidth, bandwidth)

    @property
    def n(self) -> int:
        return int(self.ingress.size)

    @property
    def capacities(self) -> np.ndarray:
        """Link capacities indexed by link id: ingress ports, then egress ports."""
        return np.concatenate([self.ingress, self.egress])

    def ingress_link(self, host: int) -> int:
        n = self.ingress.size
        if type(host) is int and 0 <= host < n:     # the common case, checked inline
            return host
        return check_int("host", host, 0, n - 1)

    def egress_link(self, host: int) -> int:
        n = self.ingress.size
        if type(host) is int and 0 <= host < n:
            return n + host
        return n + check_int("host", host, 0, n - 1)

    def unicast(self, src: int, dst: int) -> tuple[int, int]:
        """Links crossed by a unicast ``src -> dst``."""
        if src == dst:
            raise ValueError(f"dst must differ from src, got src=dst={src}")
        return (self.ingress_link(src), self.egress_link(dst))

    def multicast(self, src: int, dsts: Sequence[int]) -> tuple[int, ...]:
        """Links crossed by an L3 multicast from ``src`` to every host in ``dsts``."""
        dsts = list(dsts)
        if src in dsts:
            raise ValueError(f"dsts must not contain src ({src})")
        if len(set(dsts)) != len(dsts):
            raise ValueError(f"dsts must be distinct, got {dsts}")
        return (self.ingress_link(src),) + tuple(self.egress_link(d) for d in dsts)


@dataclass(frozen=True)
class FullMesh:
    """Directed links between every ordered pair; ``bandwidth[i, j]`` = b_ij in bits/s."""

    bandwidth: np.ndarray

    def __init__(self, bandwidth):
        b = np.asarray(bandwidth, dtype=float)
        if b.ndim != 2 or b.shape[0] != b.shape[1] or b.shape[0] < 2:
            raise ValueError(f"bandwidth must be a square n x n matrix with n >= 2, got shape {b.shape}")
        off = ~np.eye(b.shape[0], dtype=bool)
        check_array("bandwidth (off-diagonal)", b[off], lo=0.0)
        object.__setattr__(self, "bandwidth", b)

    @property
    def n(self) -> int:
        return int(self.bandwidth.shape[0])

    @property
    def capacities(self) -> np.ndarray:
        """Capacities by link id; link ``i*(n-1) + (j if j < i else j-1)`` is i -> j."""
        off = ~np.eye(self.n, dtype=bool)
        return self.bandwidth[off]

    def link(self, src: int, dst: int) -> int:
        n = self.n
        src = check_int("src", src, 0, n - 1)
        dst = check_int("dst", dst, 0, n - 1)
        if src == dst:
            raise ValueError(f"dst must differ from src, got src=dst={src}")
        return src * (n - 1) + (dst if dst < src else dst - 1)

    def unicast(self, src: int, dst: int) -> tuple[int]:
        return (self.link(src, dst),)
