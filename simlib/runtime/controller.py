"""The controller protocol: who synchronizes with whom, and when.

A :class:`~simlib.runtime.cluster.Cluster` calls, in this order:

* ``attach(cluster)`` once, before the run starts;
* ``on_ready(w, compute_time)`` each time worker ``w`` finishes a local
  iteration (``compute_time`` in s) and becomes READY;
* ``on_sync_done(record)`` each time a synchronization finishes (its members
  are already computing again, or stopped).

The controller acts through the cluster: ``cluster.launch(members)`` starts a
synchronization among READY workers; ``cluster.record_hold(workers)`` and
``cluster.count(name)`` write its raw decisions into the schedule log, from
which metrics are derived.  It reads the workers through ``cluster.workers()``
(read-only views of their phases and compute times), ``cluster.training_workers()``
and ``cluster.elapsed(ids)``.
"""
from __future__ import annotations

from typing import Protocol

from simlib.runtime.log import SyncRecord

__all__ = ["Controller", "ControllerBase"]


class Controller(Protocol):
    def attach(self, cluster) -> None: ...

    def on_ready(self, w: int, compute_time: float) -> None: ...

    def on_sync_done(self, record: SyncRecord) -> None: ...


class ControllerBase:
    """Keeps the attached cluster; ``on_sync_done`` does nothing unless overridden."""

    cluster = None

    def attach(self, cluster) -> None:
        self.cluster = cluster

    def on_ready(self, w: int, compute_time: float) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def on_sync_done(self, record: SyncRecord) -> None:
        pass
