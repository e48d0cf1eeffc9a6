"""When a flow counts as finished: the completion tolerance of decision N6, declared once.

A flow is drained by ``remaining -= rate * dt`` over many steps, so float error
can leave a few bits that would otherwise need one more (tiny) event.  A flow
of ``volume`` bits with ``remaining`` bits left is done when ``remaining`` is at
most ``REL_TOL`` of its volume, and at least when at most ``ABS_TOL_BITS``
bits are left.  Every engine (the flow network's full, incremental and levels
solvers, the SSP event loop) uses these values and :func:`is_done`, which is
compiled with numba and can be called from compiled code and from Python.

Units: bits.
"""
from __future__ import annotations

from numba import njit

__all__ = ["REL_TOL", "ABS_TOL_BITS", "completion_tol", "is_done"]

#: Bits left, relative to the flow's volume, under which a flow is complete (N6).
REL_TOL = 1e-9
#: ... and the absolute floor of that tolerance (bits).
ABS_TOL_BITS = 1e-6


@njit(cache=True, inline="always")
def completion_tol(volume):
    """Bits a flow of ``volume`` bits may have left and count as complete: max(REL_TOL volume, ABS_TOL_BITS)."""
    return max(volume * REL_TOL, ABS_TOL_BITS)


@njit(cache=True, inline="always")
def is_done(remaining, volume):
    """A flow of ``volume`` bits with ``remaining`` bits left is complete (decision N6)."""
    return remaining <= max(volume * REL_TOL, ABS_TOL_BITS)
