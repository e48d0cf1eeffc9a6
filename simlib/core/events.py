"""Discrete-event loop: time-ordered callbacks with deterministic tie-breaking.

Events at equal times run in the order they were scheduled (a global
sequence number breaks ties), so a simulation is a pure function of its
inputs. Timers are cancellable; cancelled entries are dropped lazily when
they reach the head of the heap.  A pending timer can be postponed
(:meth:`Simulator.postpone`): it then runs exactly as if it had been
cancelled and scheduled anew, but the heap is only touched when its old
entry comes up.  Times are in seconds.
"""
from __future__ import annotations

import heapq
import math
from typing import Any, Callable

from simlib.core.validate import check_int, check_real

__all__ = ["NoProgressError", "Simulator", "Timer"]


class Timer:
    """Handle of a scheduled callback; ``cancel()`` prevents it from firing."""

    __slots__ = ("time", "seq", "callback", "args", "cancelled", "fired", "due")

    def __init__(self, time: float, seq: int, callback: Callable, args: tuple):
        self.time = time
        self.seq = seq
        self.due = None                 # (time, seq) it was postponed to, if later than its heap entry
        self.callback = callback
        self.args = args
        self.cancelled = False
        self.fired = False

    def cancel(self) -> None:
        """Prevent the callback from running (no effect if it already ran)."""
        self.cancelled = True

    @property
    def pending(self) -> bool:
        return not (self.cancelled or self.fired)

    def __lt__(self, other: "Timer") -> bool:  # heap order: time, then FIFO
        return (self.time, self.seq) < (other.time, other.seq)

    def __repr__(self) -> str:
        state = "cancelled" if self.cancelled else ("fired" if self.fired else "pending")
        return f"Timer(t={self.time!r}, seq={self.seq}, {getattr(self.callback, '__name__', self.callback)}, {state})"


class NoProgressError(RuntimeError):
    """:meth:`Simulator.run` ran ``max_events_per_instant`` events without the clock advancing."""


class Simulator:
    """The event loop. ``now`` is the current simulated time in seconds.

    ``max_events_per_instant``: :meth:`run` raises :class:`NoProgressError` once that many events
    in a row ran at one instant -- a loop that makes no progress in simulated time (zero compute
    times with a zero-cost sync, a delay below the clock's resolution ``math.ulp(now)``) would
    otherwise run forever.  The default, 10**5 (2-3 s of events on a busy core), is far above the
    bursts a run has at one instant (a few events per worker); :class:`~simlib.runtime.cluster.Cluster`
    raises it with n.
    """

    def __init__(self, start: float = 0.0, *, max_events_per_instant: int = 10**5):
        self.now = check_real("start", start, 0.0)
        self.max_events_per_instant = check_int("max_events_per_instant", max_events_per_instant, 1)
        self._heap: list[Timer] = []
        self._seq = 0
        self.events_run = 0
        self._stopped = False

    def schedule(self, delay: float, callback: Callable[..., Any], *args) -> Timer:
        """Run ``callback(*args)`` after ``delay`` seconds (``delay >= 0``)."""
        if isinstance(delay, float) and delay >= 0.0:         # floats >= 0 (or inf) checked inline; NaN fails
            delay = float(delay)
        else:
            delay = check_real("delay", delay, 0.0, allow_inf=True)
        # schedule_at(now + delay) inline (one call less per event): now + delay >= now, so its check passes
        time = float(self.now + delay)
        timer = Timer(time, self._seq, callback, args)
        self._seq += 1
        if time != math.inf:
            heapq.heappush(self._heap, (time, timer.seq, timer))
        return timer

    def schedule_at(self, time: float, callback: Callable[..., Any], *args) -> Timer:
        """Run ``callback(*args)`` at absolute ``time`` (``time >= now``)."""
        if isinstance(time, float) and time >= self.now:
            time = float(time)
        else:
            time = check_real("time", time, self.now, allow_inf=True)
        timer = Timer(time, self._seq, callback, args)
        self._seq += 1
        if not math.isinf(time):
            heapq.heappush(self._heap, (time, timer.seq, timer))   # tuples compare in C; seq is unique
        return timer

    def postpone(self, timer: Timer, delay: float) -> None:
        """Move the pending ``timer`` to ``now + delay`` (``delay >= 0``, and not earlier than
        it is due now), with the tie-breaking rank of an event scheduled now: the same as
        ``timer.cancel(); schedule(delay, ...)``, in O(1)."""
        if isinstance(delay, float) and 0.0 <= delay < math.inf:
            delay = float(delay)
        else:
            delay = check_real("delay", delay, 0.0)
        time = self.now + delay
        if not timer.pending:
            raise ValueError("timer must be pending to be postponed")
        current = timer.due if timer.due is not None else (timer.time, timer.seq)
        if time < current[0]:
            raise ValueError(f"delay must not move the timer earlier (due at {current[0]!r}), got {delay!r}")
        timer.due = (time, self._seq)
        self._seq += 1

    def _head(self) -> Timer | None:
        """The next timer to run (dropping cancelled entries, re-ranking postponed ones), or None."""
        heap = self._heap
        while heap:
            timer = heap[0][2]
            if timer.cancelled:
                heapq.heappop(heap)
            elif timer.due is not None:         # postponed: re-enter at its new rank
                timer.time, timer.seq = timer.due
                timer.due = None
                heapq.heapreplace(heap, (timer.time, timer.seq, timer))
            else:
                return timer
        return None

    def peek(self) -> float:
        """Time of the next pending event, or ``inf`` if none."""
        timer = self._head()
        return math.inf if timer is None else timer.time

    def step(self) -> bool:
        """Run the next pending event; return False if there was none."""
        timer = self._head()
        if timer is None:
            return False
        heapq.heappop(self._heap)
        self.now = timer.time
        timer.fired = True
        self.events_run += 1
        timer.callback(*timer.args)
        return True

    def stop(self) -> None:
        """Make the current ``run`` return after the event being processed."""
        self._stopped = True

    def run(self, until: float | None = None) -> float:
        """Process events in time order until none are left, ``stop()`` is called,
        or the next event is later than ``until`` (then ``now`` becomes ``until``).
        Returns the final time."""
        if until is not None:
            until = check_real("until", until, self.now, allow_inf=True)
        self._stopped = False
        instant, same = self.now, 0            # events run in a row at `instant`
        head, heap, pop = self._head, self._heap, heapq.heappop
        limit = self.max_events_per_instant
        while not self._stopped:
            # peek() and step() in one: the head is found once per event (the same events, in the same order)
            timer = head()
            t = math.inf if timer is None else timer.time
            if t == math.inf or (until is not None and t > until):
                if until is not None and until != math.inf:
                    self.now = until
                break
            if t == instant:
                same += 1
                if same > limit:
                    self._no_progress(t)
            else:
                instant, same = t, 1
            pop(heap)
            self.now = t
            timer.fired = True
            self.events_run += 1
            timer.callback(*timer.args)
        return self.now

    def _no_progress(self, t: float):
        head = self._head()
        raise NoProgressError(
            f"simulated time makes no progress: more than {self.max_events_per_instant:,} events in a row at "
            f"t = {t!r} s (next: {getattr(head.callback, '__qualname__', head.callback)}). A loop of zero-duration "
            f"steps: e.g. zero compute times with a zero-cost sync (model size 0 and latency 0), or a delay below "
            f"the clock's resolution at t ({math.ulp(t):.3g} s)")
