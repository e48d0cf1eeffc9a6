"""Baseline synchronization controllers: who synchronizes with whom, and when.

Controllers follow :mod:`simlib.runtime.controller`: the cluster calls
``on_ready(w, compute_time)`` when worker ``w`` finishes a local iteration,
and the controller calls ``cluster.launch(members)`` to start a group
all-reduce.

* :class:`AllReduceController` — all ``n`` workers synchronize every round.
* :class:`PartialReduceController` — the partial-reduce baseline (seed 002
  §4, seed 000 §II-C): a FIFO queue; whenever it holds ≥ p workers, pop the
  first p and launch them.

Paper-specific controllers (e.g. seed 000's selective reduce) live in
:mod:`simlib.papers` and follow the same protocol.
"""
from __future__ import annotations

from simlib.core.validate import check_int
from simlib.runtime.controller import ControllerBase

__all__ = ["QueueController", "AllReduceController", "PartialReduceController"]


class QueueController(ControllerBase):
    """A FIFO ready queue: ``on_ready`` appends the worker and calls :meth:`process`,
    which subclasses implement (launch groups from ``self.queue``)."""

    def __init__(self):
        self.cluster = None
        self.queue: list[int] = []

    def on_ready(self, w: int, compute_time: float) -> None:
        self.queue.append(w)
        self.process()

    def process(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


class AllReduceController(QueueController):
    """Synchronize all ``n`` workers together once all are ready."""

    def process(self) -> None:
        if len(self.queue) == self.cluster.n:
            group, self.queue = self.queue, []
            self.cluster.launch(group, kind="full")


class PartialReduceController(QueueController):
    """Partial reduce (002 Alg. 2, controller): whenever ≥ ``p`` workers are queued,
    launch ``p`` of them — the first ``p`` (FIFO), or, with a ``group_filter``
    (002 §4 group-frozen avoidance, :class:`simlib.papers.partial_reduce.group_filter.GroupFilter`),
    the ``p`` the filter selects (it may also hold the queue to bridge components)."""

    def __init__(self, p: int, group_filter=None):
        super().__init__()
        self.p = check_int("p", p, 1)
        self.group_filter = group_filter

    def attach(self, cluster) -> None:
        if self.p > cluster.n:
            raise ValueError(f"p must be in [1, n={cluster.n}], got {self.p}")
        super().attach(cluster)

    def process(self) -> None:
        while len(self.queue) >= self.p:
            if self.group_filter is None:
                group = self.queue[: self.p]
            else:
                group = self.group_filter.select(list(self.queue))
                if group is None:
                    return
                self.group_filter.record(group)
            chosen = set(group)
            self.queue = [w for w in self.queue if w not in chosen]
            self.cluster.launch(group)
