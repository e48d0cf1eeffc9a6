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
never earlier; :mod:`.system_kernel` uses this to re-check its events lazily.
The closed forms are checked against :class:`simlib.core.network.FlowNetwork`
in the tests.  Units: bits, bits/s, seconds.
"""
from __future__ import annotations

from numba import njit

__all__ = ["SHARINGS", "finish_times", "link_free"]

SHARINGS = ("fs", "fcfs")
# Relative slack for "the previous flow of this kind has finished" checks (float noise).
_EPS = 1e-9

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
