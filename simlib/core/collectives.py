"""Collective operations executed as flows on a :class:`~simlib.core.network.FlowNetwork`.

:func:`start_transfer` is one point-to-point transfer: a fixed latency
``alpha`` (s) followed by ``bits`` crossing ``links`` at the network's fair
rate.  :class:`RingAllReduce` runs seed 000's ring all-reduce over a group of
big-switch hosts.  Three flow models (``model=``), all equal to Eq. (2)
``2(m-1) alpha + 2(m-1)/m * v / min b`` when the group is alone on its ports
(tests check this), differing only in how they share ports with other traffic:

* ``"rounds"``: ``2(m-1)`` lock-step rounds (reduce-scatter, then all-gather);
  in each round every member sends a ``v/m`` chunk to its ring successor as
  its own unicast flow, and the round ends when the slowest chunk arrives.
* ``"coupled"``: the same rounds, but each round is one flow of ``v/m`` bits
  crossing every member's ingress and egress at a common rate (a coflow):
  ``m`` times fewer flows.
* ``"single"``: the whole operation is one coupled flow of ``2(m-1)/m * v``
  bits after a ``2(m-1) alpha`` latency: two events per all-reduce.

On seed 000's big switch, concurrent groups have disjoint members and hence
disjoint ports, so the three models give identical results there and
``"single"`` is the fast choice.
"""
from __future__ import annotations

from typing import Callable, Protocol, Sequence

import numpy as np

from simlib.core.costmodels import RING_FORMS, ring_allreduce_time
from simlib.core.events import Simulator
from simlib.core.network import Flow, FlowNetwork
from simlib.core.topology import BigSwitch
from simlib.core.validate import check_choice, check_real

__all__ = ["start_transfer", "RingAllReduce", "RING_MODELS", "Collective", "RingFlows", "RingClosedForm",
           "SYNC_MODELS", "ring_collective"]

RING_MODELS = ("rounds", "coupled", "single")
#: How a group's ring all-reduce time is produced: flows on the network, or a closed form of Eq. (2).
SYNC_MODELS = ("flows",) + tuple(f"eq2_{form}" for form in RING_FORMS)


def start_transfer(sim: Simulator, net: FlowNetwork, links: Sequence[int], bits: float,
                   alpha: float, on_done: Callable[[Flow], None], *, priority: int = 0, tag=None):
    """After ``alpha`` seconds, start a flow of ``bits`` over ``links``; ``on_done(flow)`` at the end."""
    alpha = check_real("alpha", alpha, 0.0)
    bits = check_real("bits", bits, 0.0)
    links = tuple(links)
    if alpha == 0.0:
        return net.add_flow(links, bits, priority=priority, on_done=on_done, tag=tag)
    return sim.schedule(alpha, lambda: net.add_flow(links, bits, priority=priority,
                                                   on_done=on_done, tag=tag))


class RingAllReduce:
    """One (weighted) ring all-reduce among ``members`` (host ids, in ring order).

    Weights do not change the traffic, so they are not modelled here.
    ``on_done(op)`` is called when the last round ends; ``start_time`` and
    ``finish_time`` (s) are recorded on the object.
    """

    def __init__(self, sim: Simulator, net: FlowNetwork, topo: BigSwitch, members: Sequence[int],
                 model_bits: float, alpha: float, on_done: Callable[["RingAllReduce"], None] | None = None,
                 *, model: str = "rounds", priority: int = 0, tag=None):
        members = [int(m) for m in members]
        if len(members) == 0:
            raise ValueError("members must contain at least one host")
        if len(set(members)) != len(members):
            raise ValueError(f"members must be distinct, got {members}")
        for h in members:
            if not 0 <= h < topo.n:
                raise ValueError(f"members must be host ids in [0, {topo.n - 1}], got {h}")
        self.sim, self.net, self.topo = sim, net, topo
        self.members = members
        self.model_bits = check_real("model_bits", model_bits, 0.0)
        self.alpha = check_real("alpha", alpha, 0.0)
        self.on_done = on_done
        self.model = check_choice("model", model, RING_MODELS)
        self.priority = priority
        self.tag = tag
        m = len(members)
        self.rounds = 2 * (m - 1)
        self.chunk_bits = self.model_bits / m
        self.start_time = sim.now
        self.finish_time: float | None = None
        self._round = 0
        self._pending = 0
        if self.rounds == 0:
            sim.schedule(0.0, self._finish)
        elif self.model == "single":
            links = self._all_ports()
            bits = self.rounds * self.chunk_bits
            start_transfer(sim, net, links, bits, self.rounds * self.alpha,
                           lambda _f: self._finish(), priority=priority, tag=tag)
        else:
            self._start_round()

    @property
    def done(self) -> bool:
        return self.finish_time is not None

    def _all_ports(self) -> tuple[int, ...]:
        return tuple(self.topo.ingress_link(h) for h in self.members) + \
            tuple(self.topo.egress_link(h) for h in self.members)

    def _start_round(self) -> None:
        if self.model == "coupled":
            self._pending = 1
            start_transfer(self.sim, self.net, self._all_ports(), self.chunk_bits, self.alpha,
                           self._chunk_done, priority=self.priority, tag=self.tag)
            return
        m = len(self.members)
        self._pending = m
        for k, src in enumerate(self.members):
            dst = self.members[(k + 1) % m]
            start_transfer(self.sim, self.net, self.topo.unicast(src, dst), self.chunk_bits,
                           self.alpha, self._chunk_done, priority=self.priority, tag=self.tag)

    def _chunk_done(self, _flow: Flow) -> None:
        self._pending -= 1
        if self._pending == 0:
            self._round += 1
            if self._round == self.rounds:
                self._finish()
            else:
                self._start_round()

    def _finish(self) -> None:
        self.finish_time = self.sim.now
        if self.on_done is not None:
            self.on_done(self)


# --------------------------------------------------------------------------- collectives for a cluster
class Collective(Protocol):
    """How a cluster synchronizes a group: ``attach`` once to the run's engine,
    then ``start(members, on_done)`` per group; ``on_done()`` fires when it ends."""

    def attach(self, sim: Simulator, net: FlowNetwork, topo: BigSwitch) -> None: ...

    def start(self, members: Sequence[int], on_done: Callable[[], None]) -> None: ...


class RingFlows:
    """Ring all-reduce executed as flows on the network (one of :data:`RING_MODELS`):
    concurrent groups share ports max-min fairly.  ``model_bits`` v (bits), ``alpha`` (s)."""

    def __init__(self, model_bits: float, alpha: float, model: str = "single"):
        self.model_bits = check_real("model_bits", model_bits, 0.0)
        self.alpha = check_real("alpha", alpha, 0.0)
        self.model = check_choice("ring_model", model, RING_MODELS)

    def attach(self, sim: Simulator, net: FlowNetwork, topo: BigSwitch) -> None:
        self._sim, self._net, self._topo = sim, net, topo

    def start(self, members: Sequence[int], on_done: Callable[[], None]) -> None:
        RingAllReduce(self._sim, self._net, self._topo, members, self.model_bits, self.alpha,
                      lambda _op: on_done(), model=self.model)


class RingClosedForm:
    """Ring all-reduce timed by 000 Eq. (2) (``form`` one of ``RING_FORMS``), with each
    member's bandwidth the smaller of its two ports; uses no network capacity."""

    def __init__(self, model_bits: float, alpha: float, form: str = "exact"):
        self.model_bits = check_real("model_bits", model_bits, 0.0)
        self.alpha = check_real("alpha", alpha, 0.0)
        self.form = check_choice("form", form, RING_FORMS)

    def attach(self, sim: Simulator, net: FlowNetwork, topo: BigSwitch) -> None:
        self._sim = sim
        self._bandwidth = np.minimum(topo.ingress, topo.egress)

    def start(self, members: Sequence[int], on_done: Callable[[], None]) -> None:
        t = ring_allreduce_time(self._bandwidth[list(members)], self.model_bits, self.alpha, self.form)
        self._sim.schedule(t, on_done)


def ring_collective(sync_model: str, model_bits: float, alpha: float, ring_model: str = "single"):
    """The ring collective named by ``sync_model`` (one of :data:`SYNC_MODELS`)."""
    check_choice("sync_model", sync_model, SYNC_MODELS)
    if sync_model == "flows":
        return RingFlows(model_bits, alpha, ring_model)
    return RingClosedForm(model_bits, alpha, sync_model.split("_", 1)[1])
