"""The driver of a resumable compiled event loop (the protocol of the SSP and FMReduce kernels).

A compiled loop cannot allocate arrays its caller sees, nor call the Python
compute-time source.  So it stops *before* an event it cannot handle and
returns a status; the driver makes room and calls it again, and the loop
handles the event as if it had never stopped:

* ``DONE``: the run is over;
* ``NEED_DRAWS``: a worker has no unused compute-time draw left: the
  :class:`DrawBuffer` draws more (each worker's stream in order);
* ``NEED_SPACE``: a log may be too small for the next event: every column
  group (:func:`~simlib.runtime.log.grow_columns`) grows to the rows its
  ``need()`` reports, then the optional ``on_space()`` hook runs;
* ``STALLED``: the clock stopped advancing (a guard against bugs):
  :class:`RuntimeError` with the message ``stalled()`` (say where the clock stopped);
* codes >= ``FIRST_OWN``: the kernel's own requests, served by ``handlers[code]()``
  (which may raise); any other code is a :class:`RuntimeError`.

Usage (``step`` is a closure that calls the compiled loop with the *current*
arrays, read from the buffer and the column dicts, since growing replaces them)::

    draws = DrawBuffer(compute, n, minimum=64)
    log = {"start": np.zeros(0), "who": np.zeros(0, np.int64)}
    drive(lambda: kernel(draws.draws, log["start"], log["who"], state),
          draws=draws, columns=[(log, lambda: state.need[0], 1024)],
          stalled=lambda: f"stopped at t = {state.now[0]} s")

Units: whatever the kernel uses (draws are seconds).
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np

from .log import grow_columns

__all__ = ["DONE", "NEED_DRAWS", "NEED_SPACE", "STALLED", "FIRST_OWN", "DrawBuffer", "drive"]

DONE, NEED_DRAWS, NEED_SPACE, STALLED = 0, 1, 2, 3
#: The first status code a kernel may use for its own requests (served by ``drive``'s ``handlers``).
FIRST_OWN = 8


class DrawBuffer:
    """Compute-time draws (s) taken ahead from ``source``, as ``draws[w, u]``: worker w's u-th draw.

    ``source`` has ``next(w) -> seconds`` (or also ``take(w, k)``, the values of k calls to
    ``next(w)``, or ``take_all(k)``, every worker's ``take(w, k)`` as rows); each worker's draws are taken
    in its own order, worker by worker.
    :meth:`grow` at least doubles the width (and makes it at least ``minimum`` > 0);
    ``companions`` more float arrays of the same shape (zeros) grow with it (e.g. the
    start time of the iteration of each draw), read as ``companion[c]``.
    """

    def __init__(self, source, n: int, *, minimum: int = 16, companions: int = 0):
        if minimum < 1:
            raise ValueError(f"minimum must be >= 1, got {minimum}")
        self.source, self.n, self.minimum = source, int(n), int(minimum)
        self.draws = np.zeros((self.n, 0))
        self.companion = [np.zeros((self.n, 0)) for _ in range(companions)]
        self.grow()

    def grow(self) -> None:
        """Add columns so that the width is max(2 * width, minimum)."""
        have = self.draws.shape[1]
        add = max(2 * have, self.minimum) - have
        take_all, take = getattr(self.source, "take_all", None), getattr(self.source, "take", None)
        if take_all is not None:          # every worker's draws at once (ComputeTimes: its chunks mapped together)
            new = np.asarray(take_all(add), dtype=float).reshape(self.n, add)
        elif take is not None:
            new = np.array([take(w, add) for w in range(self.n)], dtype=float).reshape(self.n, add)
        else:
            new = np.array([[float(self.source.next(w)) for _ in range(add)] for w in range(self.n)],
                           dtype=float).reshape(self.n, add)
        self.draws = np.concatenate([self.draws, new], axis=1)
        self.companion = [np.concatenate([a, np.zeros((self.n, add))], axis=1) for a in self.companion]


def drive(step: Callable[[], int], *, draws: DrawBuffer | None = None,
          columns: Sequence[tuple[dict, Callable[[], int], int]] = (),
          on_space: Callable[[], None] | None = None,
          stalled: Callable[[], str] = lambda: "the compiled event loop stopped advancing",
          handlers: Mapping[int, Callable[[], None]] | None = None) -> None:
    """Call ``step()`` until it returns ``DONE``, serving its requests (module docstring).

    ``columns``: ``(group, need, minimum)`` triples: on ``NEED_SPACE`` the column group (dict of
    equal-length arrays) grows to at least ``need()`` rows (and ``minimum``).  ``stalled()``: the
    text of the ``STALLED`` error.  ``handlers``: the kernel's own status codes (>= FIRST_OWN).
    """
    handlers = dict(handlers or {})
    bad = [code for code in handlers if code < FIRST_OWN]
    if bad:
        raise ValueError(f"handlers must use status codes >= FIRST_OWN = {FIRST_OWN}, got {bad}")
    while True:
        status = int(step())
        if status == DONE:
            return
        if status == NEED_DRAWS and draws is not None:
            draws.grow()
        elif status == NEED_SPACE:
            for group, need, minimum in columns:
                grow_columns(group, int(need()), minimum)
            if on_space is not None:
                on_space()
        elif status == STALLED:
            raise RuntimeError(stalled())
        elif status in handlers:
            handlers[status]()
        else:
            raise RuntimeError(f"the compiled loop returned an unknown status {status}")
