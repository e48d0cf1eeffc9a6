"""Two collective baselines of seed 002 §5 as controllers of the generic cluster (decisions AD1-AD2,
ER1-ER2 in docs/decisions/baselines.md).

* :class:`ADPSGDController` — AD-PSGD (Lian et al., ICML'18; 002 §5.2.2): a worker that finishes
  a local step averages its model with one neighbour drawn uniformly from the other workers
  (seeded), *whatever that neighbour is doing*: the neighbour is a passive member of the record
  (:meth:`~simlib.runtime.cluster.Cluster.launch`), keeps computing, and both replicas are
  replaced by their mean; then the worker applies its gradient, taken on the model it read before
  (Lian et al. Alg. 1); a neighbour that was computing applies its own gradient, taken on its
  model before the average, when it ends (the record's ``computing``; AD2).  With ``passive =
  "block"`` the neighbour stops computing for the exchange (its step pauses, or waits to start,
  until the exchange ends; AD3).  The exchange is :class:`PairwiseExchange`: both models cross the
  switch at once (``i -> j`` and ``j -> i``, ``model_bits`` each, after ``alpha``).
* :class:`EagerReduceController` — Eager-Reduce (Li et al., PPoPP'20, "partial collectives"; 002
  §2.3, §5.2.2): one global model updated by rounds of gradient aggregation, one round at a time.
  A round starts when ``quorum`` workers are ready (``"solo"``: the first; ``"majority"``:
  ``n // 2 + 1``); the ready workers contribute their gradients and wait for the round, every
  other worker contributes the empty gradient and keeps computing (its gradient joins a later
  round, stale).  The round is a ring all-reduce over *all* ``n`` workers' ports (the late
  workers' buffers take part too, :class:`WholeRing`).  Update rule ``"gradient"``: each
  contribution's factor is ``1/n`` (ER2) and the contributors receive the new model.

Units: seconds, bits, bits/s.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from simlib.core.collectives import RingFlows, start_transfer
from simlib.core.seeding import check_rng
from simlib.core.validate import check_choice, check_real
from simlib.runtime.baselines import QueueController
from simlib.runtime.controller import ControllerBase

__all__ = ["PairwiseExchange", "ADPSGDController", "WholeRing", "EagerReduceController", "QUORUMS", "AD_PASSIVE",
           "quorum_size"]

#: Eager-Reduce's round triggers: the first ready worker, or a majority.
QUORUMS = ("solo", "majority")
#: What AD-PSGD's passive neighbour does during an exchange (AD3): keeps computing, or blocks.
AD_PASSIVE = ("compute", "block")


class PairwiseExchange:
    """Collective of two workers swapping models: flows ``i -> j`` and ``j -> i`` of ``model_bits``
    after ``alpha`` (s); done when both have arrived.

    ``atomic`` (AD4): each worker's model has a lock, held by the exchange that averages it.  An
    exchange whose worker is held by another waits until both are free, then takes both locks and
    starts its flows; waiting exchanges start in the order they were asked for, each as soon as
    both its workers are free (no exchange holds one lock while it waits for the other, so none
    deadlocks).  ``on_start(i, j)``, if given, is called when an exchange's flows start."""

    def __init__(self, model_bits: float, alpha: float, atomic: bool = False,
                 on_start: Callable[[int, int], None] | None = None):
        self.model_bits = check_real("model_bits", model_bits, 0.0)
        self.alpha = check_real("alpha", alpha, 0.0)
        if not isinstance(atomic, (bool, np.bool_)):
            raise ValueError(f"atomic must be a bool, got {atomic!r}")
        self.atomic = bool(atomic)
        self.on_start = on_start
        self._locked: set[int] = set()
        self._waiting: list[tuple[int, int, Callable[[], None]]] = []

    def attach(self, sim, net, topo) -> None:
        self._sim, self._net, self._topo = sim, net, topo

    def start(self, members: Sequence[int], on_done: Callable[[], None]) -> None:
        if len(members) != 2:
            raise ValueError(f"a pairwise exchange has two members, got {tuple(members)}")
        i, j = (int(m) for m in members)
        if self.atomic and (i in self._locked or j in self._locked):
            self._waiting.append((i, j, on_done))          # AD4: wait for both locks
            return
        self._go(i, j, on_done)

    def _go(self, i: int, j: int, on_done: Callable[[], None]) -> None:
        if self.atomic:
            self._locked.update((i, j))
        if self.on_start is not None:
            self.on_start(i, j)
        left = [2]

        def one(_flow):
            left[0] -= 1
            if left[0] == 0:
                self._release(i, j)
                on_done()

        for src, dst in ((i, j), (j, i)):
            start_transfer(self._sim, self._net, self._topo.unicast(src, dst), self.model_bits, self.alpha, one)

    def _release(self, i: int, j: int) -> None:
        """The exchange of ``i`` and ``j`` is over: free both locks and start every waiting exchange
        (in the order asked) whose workers are now free."""
        if not self.atomic:
            return
        self._locked.difference_update((i, j))
        ready, still = [], []
        for a, b, done in self._waiting:
            if a in self._locked or b in self._locked:
                still.append((a, b, done))
            else:
                self._locked.update((a, b))           # taken now: a later waiter sees them held
                ready.append((a, b, done))
        self._waiting = still
        for a, b, done in ready:
            self._go(a, b, done)


class ADPSGDController(ControllerBase):
    """AD-PSGD: ready worker ``i`` averages with a neighbour ``j`` drawn uniformly from the other
    workers by ``rng`` (a seeded ``numpy.random.Generator``), ``j`` passive (AD1); ``passive``
    ``"block"``: ``j`` does not compute during the exchange (AD3); ``atomic`` (AD4): the exchange
    takes both workers' locks and waits while either is held by another exchange (the record is
    launched when ``i`` is ready, its flows start when the locks are free; with ``"block"``, ``j``
    is blocked from then).  Needs :class:`PairwiseExchange` (built by :meth:`exchange` when
    ``atomic``) as the cluster's collective and ``n >= 2``."""

    update_rule = "average"

    def __init__(self, rng: np.random.Generator, passive: str = "compute", atomic: bool = False):
        self.rng = check_rng(rng)
        self.passive = check_choice("passive", passive, AD_PASSIVE)
        if not isinstance(atomic, (bool, np.bool_)):
            raise ValueError(f"atomic must be a bool, got {atomic!r}")
        self.atomic = bool(atomic)
        self.cluster = None

    def exchange(self, model_bits: float, alpha: float) -> PairwiseExchange:
        """The pairwise exchange this controller drives (pass it to the :class:`Cluster`): with
        ``atomic``, locked, and blocking the neighbour when its flows start (``passive="block"``)."""
        hook = self._started if self.atomic and self.passive == "block" else None
        return PairwiseExchange(model_bits, alpha, atomic=self.atomic, on_start=hook)

    def attach(self, cluster) -> None:
        if cluster.n < 2:
            raise ValueError(f"AD-PSGD needs n >= 2 workers, got {cluster.n}")
        if self.atomic and not (isinstance(cluster.collective, PairwiseExchange) and cluster.collective.atomic):
            raise ValueError("atomic AD-PSGD needs the locked PairwiseExchange of exchange() as the collective")
        super().attach(cluster)

    def _started(self, i: int, j: int) -> None:
        self.cluster.block(j)

    def on_ready(self, w: int, compute_time: float) -> None:
        j = int(self.rng.integers(self.cluster.n - 1))
        j += j >= w                                      # uniform over the others
        rec = self.cluster.launch((w,), kind="adpsgd", passive=(j,))
        # Lian et al. Alg. 1: average first, then apply the gradient taken on the model read before:
        # the record goes before w's last compute end in w's chain, and w's step uses its pre-average replica
        rec.iterations = (rec.iterations[0] - 1,) + rec.iterations[1:]
        rec.computing = (w,) + (rec.computing or ())
        if self.passive == "block" and not self.atomic:
            self.cluster.block(j)

    def on_sync_done(self, record) -> None:
        if self.passive == "block":
            self.cluster.unblock(record.members[1])


class WholeRing(RingFlows):
    """A ring all-reduce over every worker of the cluster, whoever the record's members are
    (Eager-Reduce: the late workers' buffers are part of each round)."""

    def attach(self, sim, net, topo) -> None:
        super().attach(sim, net, topo)
        self.n = topo.n

    def start(self, members: Sequence[int], on_done: Callable[[], None]) -> None:
        super().start(range(self.n), on_done)


def quorum_size(quorum: str, n: int) -> int:
    """Ready workers that start an Eager-Reduce round: 1 (``"solo"``) or ``n // 2 + 1`` (``"majority"``)."""
    return 1 if check_choice("quorum", quorum, QUORUMS) == "solo" else n // 2 + 1


class EagerReduceController(QueueController):
    """Eager-Reduce rounds (module docstring): one at a time, launched when ``quorum`` workers
    are ready, members = every ready worker, factor ``1/n`` each; records the global model
    version each member's gradient was computed on (``versions``)."""

    update_rule = "gradient"

    def __init__(self, quorum: str = "majority"):
        super().__init__()
        self.quorum = check_choice("quorum", quorum, QUORUMS)

    def attach(self, cluster) -> None:
        super().attach(cluster)
        self.need = quorum_size(self.quorum, cluster.n)
        self.busy = False
        self.version = 0
        self.held = np.zeros(cluster.n, dtype=np.int64)

    def process(self) -> None:
        if self.busy or len(self.queue) < self.need:
            return
        group, self.queue = self.queue, []
        self.busy = True
        rec = self.cluster.launch(group, kind="eager")
        n = self.cluster.n
        rec.weights = (1.0 / n,) * len(group)
        rec.versions = tuple(int(self.held[m]) for m in group)
        self.version += 1
        self.held[list(group)] = self.version

    def on_sync_done(self, record) -> None:
        self.busy = False
        self.process()
