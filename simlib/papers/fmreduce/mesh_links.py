"""Closed-form flow model of seed 003's full mesh (FS or FCFS sharing, one flow per kind per link).

On the full mesh every flow crosses exactly one directed link (i, j), so the
network-wide max-min allocation (FS) and the strict-priority-by-arrival
allocation (FCFS) of :mod:`simlib.core.maxmin` decompose into independent
per-link problems.  In the FMReduce protocol (:mod:`.system`) a link (i, j)
carries at most one *scatter* flow (worker i's block for reducer j) and at
most one *broadcast* flow (reducer i's reduced block for participant j) at a
time: a worker scatters again only after its previous round finished, which
needs every block it scattered and every block broadcast to it.  With at most
two flows on a link, completion times have closed forms:

* a flow of s bits arriving at t on an idle link finishes at t + s/c;
* if the other flow has r bits left (it runs alone at c until t), then under
  FCFS the old flow keeps the link (strict priority by arrival, decision FM4)
  and the new one finishes at t + (r + s)/c; under FS both run at c/2 until the
  smaller finishes at t + 2 min(r, s)/c and the other at t + (r + s)/c.

So a prediction can only move *later* (when a second flow arrives under FS),
never earlier; :mod:`.system` uses this to re-check its events lazily.
The model is checked against :class:`simlib.core.network.FlowNetwork` in the
tests.  Units: bits, bits/s, seconds.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from simlib.core.validate import check_choice

__all__ = ["MeshLinks", "SHARINGS"]

SHARINGS = ("fs", "fcfs")
SCATTER, BROADCAST = 0, 1
# Relative slack for "the previous flow of this kind has finished" checks (float noise).
_EPS = 1e-9


class MeshLinks:
    """Predicted finish times of the scatter and broadcast flow on every link (i, j).

    ``fin[SCATTER][i, j]`` / ``fin[BROADCAST][i, j]`` hold the finish time (s)
    of the latest flow of that kind on link i -> j (0 before any flow).  The
    diagonal is free for callers (local blocks never cross a link).
    """

    def __init__(self, b: np.ndarray, sharing: str):
        self.cap = np.asarray(b, dtype=float)
        self.sharing = check_choice("sharing", sharing, SHARINGS)
        n = self.cap.shape[0]
        self.fin = (np.zeros((n, n)), np.zeros((n, n)))

    def add(self, kind: int, src: np.ndarray, dst: np.ndarray, sizes: np.ndarray, t: float) -> None:
        """Start flows of ``kind`` at time ``t`` on links ``src[k] -> dst[k]`` (``src != dst``)
        carrying ``sizes[k]`` bits; updates both kinds' predicted finish times."""
        own, other = self.fin[kind], self.fin[1 - kind]
        if not _add(own, other, self.cap, np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64),
                    np.asarray(sizes, dtype=float), float(t), self.sharing == "fcfs"):
            raise RuntimeError(_BUSY)

    def add_from(self, kind: int, src: int, dst: np.ndarray, size: float, t: float) -> None:
        """:meth:`add` for flows of ``size`` bits from one worker ``src`` to every ``dst[k]``."""
        own, other = self.fin[kind], self.fin[1 - kind]
        if not _add_from(own, other, self.cap, int(src), dst, float(size), float(t), self.sharing == "fcfs"):
            raise RuntimeError(_BUSY)


_BUSY = "protocol invariant broken: a link already carries a flow of this kind"


@njit(cache=True, inline="always")
def finish_times(other_fin, c, s, t, fcfs):
    """The closed forms of the module docstring for a flow of s bits arriving at time t on a
    link of c bits/s whose flow of the other kind ends at ``other_fin`` (if alone):
    returns (this flow's finish, the other flow's new finish).  Scalars only, so the
    compiled event loop (:mod:`.system_kernel`) calls it without array reference counting."""
    r = max(other_fin - t, 0.0) * c         # bits the other flow has left
    both_end = t + (r + s) / c              # work-conserving: the later one ends here
    if s <= 0.0:
        return t, other_fin                 # an empty flow waits for nothing
    if r <= 0.0:
        return t + s / c, other_fin
    if fcfs:
        return both_end, other_fin          # the older flow keeps the link
    if r <= s:
        return both_end, t + 2.0 * r / c
    return t + 2.0 * s / c, both_end


@njit(cache=True, inline="always")
def link_free(own_fin, t):
    """The previous flow of a kind (finishing at ``own_fin``) is done by t, up to float noise."""
    return own_fin <= t + _EPS * max(t, 1.0)


@njit(cache=True, inline="always")
def _one(own, other, cap, i, j, s, t, fcfs):
    """:func:`finish_times` for a flow of s bits on link i -> j at time t."""
    own[i, j], other[i, j] = finish_times(other[i, j], cap[i, j], s, t, fcfs)


@njit(cache=True)
def _add(own, other, cap, src, dst, sizes, t, fcfs):
    """:func:`_one` for every (src[k], dst[k], sizes[k]); False (nothing changed) if a link is busy."""
    for k in range(src.size):
        if not link_free(own[src[k], dst[k]], t):
            return False
    for k in range(src.size):
        _one(own, other, cap, src[k], dst[k], sizes[k], t, fcfs)
    return True


@njit(cache=True)
def _add_from(own, other, cap, i, dst, s, t, fcfs):
    """:func:`_one` for (i, dst[k], s); False (nothing changed) if a link is busy."""
    for k in range(dst.size):
        if not link_free(own[i, dst[k]], t):
            return False
    for k in range(dst.size):
        _one(own, other, cap, i, dst[k], s, t, fcfs)
    return True


@njit(cache=True)
def column_max(mat, rows, col):
    """max_k mat[rows[k], col] (-inf for no rows): the latest of some predicted finish times."""
    best = -np.inf
    for k in range(rows.size):
        v = mat[rows[k], col]
        if v > best:
            best = v
    return best
