"""Handing a run's log to a timeline without touching the engine (:mod:`simlib.runtime.timeline`).

A trial calls :func:`offer` with its log and the *name* of the function that turns it into trace
events (``"module:function"``, resolved only when a timeline is written), so the trials' code, whose
import closure keys the sweep cache (:mod:`simlib.core.modclosure`), does not include the timeline's.
"""
from __future__ import annotations

import contextlib
import contextvars
import importlib

__all__ = ["Captured", "capture", "offer"]


class Captured:
    """What :func:`capture` collected: the last offered ``log`` and the name of its event builder
    ``to_events`` (``"module:function"``, called as ``function(log, window)``)."""

    def __init__(self):
        self.log = None
        self.to_events: str | None = None

    @property
    def found(self) -> bool:
        """True once a log was offered."""
        return self.to_events is not None

    def events(self, window=None) -> list[dict]:
        """The offered log's trace events inside ``window`` (``(start_s, end_s)`` or None)."""
        module, _, name = self.to_events.partition(":")
        return getattr(importlib.import_module(module), name)(self.log, window)


_SINK: contextvars.ContextVar[Captured | None] = contextvars.ContextVar("simlib_timeline_sink", default=None)


@contextlib.contextmanager
def capture():
    """Collect the schedule log a run offers (:func:`offer`) within the block; yields a :class:`Captured`
    (the last log offered wins: ``train`` may simulate more than once, the last run is the one replayed)."""
    sink = Captured()
    token = _SINK.set(sink)
    try:
        yield sink
    finally:
        _SINK.reset(token)


def offer(log, to_events: str) -> None:
    """Hand ``log`` (any run log) and the name ``"module:function"`` of its event builder
    (``function(log, window) -> list of events``) to the enclosing :func:`capture`; does nothing (and
    costs nothing) outside one."""
    if ":" not in to_events:
        raise ValueError(f"to_events must be 'module:function', got {to_events!r}")
    sink = _SINK.get()
    if sink is not None:
        sink.log, sink.to_events = log, to_events
