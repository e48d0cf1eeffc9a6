"""Outage windows: workers gone for a stated interval of simulated time (decision T9 in
docs/decisions/traces_bandwidth.md; notebook 93's test of "adversarial participation").

A worker in an outage window computes nothing: the work of a compute step that overlaps the window is
paused at its start and resumes at its end (the step's compute time is work done at rate 1 outside the
windows, 0 inside).  Only computation stops; a transfer the worker is part of goes on (its NIC is not
modelled as gone).  :class:`OutageComputeTimes` wraps any compute-time source (``next(w)`` in seconds of
work) and returns the wall time each step takes given when it starts, read from a clock bound to the
simulator (:meth:`OutageComputeTimes.bind`); :func:`paused_finish` is the rule.

Units: seconds of simulated time.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from simlib.core.validate import check_int, check_real

__all__ = ["Outage", "paused_finish", "first_workers_out", "OutageComputeTimes"]


@dataclass(frozen=True)
class Outage:
    """Worker ``worker`` is gone during [``start_s``, ``end_s``) (s)."""

    worker: int
    start_s: float
    end_s: float

    def __post_init__(self):
        check_int("worker", self.worker, 0)
        check_real("start_s", self.start_s, 0.0)
        if not check_real("end_s", self.end_s, 0.0, allow_inf=True) > self.start_s:
            raise ValueError(f"end_s must be > start_s = {self.start_s}, got {self.end_s}")


def paused_finish(start: float, work: float, windows: Sequence[tuple[float, float]]) -> float:
    """When a step of ``work`` seconds started at ``start`` ends if no work is done inside ``windows``
    (``(a, b)`` pairs, s, sorted by ``a`` and disjoint): ``start + work`` plus the parts of the windows it
    meets.  A step that starts inside a window starts at its end."""
    t, left = float(start), float(work)
    for a, b in windows:
        if b <= t:
            continue
        if t + left <= a:
            break
        left -= max(0.0, a - t)             # work done before the window opens
        t = b
    return t + left


def first_workers_out(count: int, start_s: float, length_s: float) -> tuple[Outage, ...]:
    """Workers ``0 .. count - 1`` gone during [``start_s``, ``start_s + length_s``) (T9's knob; ``count`` 0:
    none)."""
    count = check_int("count", count, 0)
    length_s = check_real("length_s", length_s, 0.0, lo_open=True)
    return tuple(Outage(w, start_s, start_s + length_s) for w in range(count))


class OutageComputeTimes:
    """``base``'s compute times with ``outages`` applied: ``next(w)`` is the wall time (s) of worker ``w``'s
    next step if it starts now (the clock, :meth:`bind`): :func:`paused_finish` of ``base.next(w)``.

    Workers an outage names must be below the base's worker count (checked at the first draw they make)."""

    def __init__(self, base, outages: Sequence[Outage]):
        self.base = base
        self._windows: dict[int, list[tuple[float, float]]] = {}
        for o in outages:
            if not isinstance(o, Outage):
                raise ValueError(f"outages must be Outage values, got {o!r}")
            self._windows.setdefault(o.worker, []).append((o.start_s, o.end_s))
        for w, ws in self._windows.items():
            ws.sort()
            if any(b > c for (_, b), (c, _) in zip(ws, ws[1:])):
                raise ValueError(f"outages of worker {w} must not overlap, got {ws}")
        self._clock: Callable[[], float] | None = None

    def bind(self, clock: Callable[[], float]) -> "OutageComputeTimes":
        """Read the current time (s) from ``clock()`` (e.g. ``lambda: cluster.sim.now``); returns self."""
        self._clock = clock
        return self

    def next(self, w: int) -> float:
        work = self.base.next(w)
        windows = self._windows.get(w)
        if not windows:
            return work
        if self._clock is None:
            raise ValueError("OutageComputeTimes needs a clock: call bind(clock) before the run")
        now = self._clock()
        return paused_finish(now, work, windows) - now
