"""Parameter-server training on the generic cluster: PS BSP, PS BK, PS ASP and PS HETE (seed 002 §2.2,
§2.3, §5.1; decisions PS1-PS6 in docs/decisions/baselines.md).

Topology (:func:`ps_topology`): the ``n`` workers are hosts ``0 .. n-1`` of a big switch and the
``s`` servers hosts ``n .. n+s-1``; the model of ``model_bits`` is split evenly over the servers
(PS1).  A worker's *push* is ``s`` flows of ``model_bits / s`` from its uplink to each server's
downlink, its *pull* ``s`` flows from each server's uplink to its downlink; every flow starts after
the latency ``alpha`` and shares the ports max-min with all other traffic (:class:`PushPull`).  So
``k`` workers pushing at once to one server of bandwidth ``B`` take ``k · model_bits / B`` when the
server's port is the bottleneck.

Each worker loops: compute a gradient on the model version it holds, push it, wait until the
server lets it pull, pull the current model, compute again.  The cluster's record of one loop is
launched when the worker is ready (``members = (w,)``) and finishes when its pull ends; the server
(:class:`ParameterServerController`) writes into it what the replay needs (update rule
``"gradient"``, :class:`~simlib.runtime.log.ScheduleLog`): ``versions = (v,)``, the version the
gradient was computed on; ``weights = (c,)``, its step-size factor in the server's update (0:
dropped); ``apply``, when it took effect — the worker pulls right then.  A record whose push had
not arrived by the end of the run has ``weights = None`` (never applied).

* ``sync`` with ``backups = b`` — synchronous SGD with ``b`` backup workers (PS BK, 002 §5.2: 5 of 8;
  Chen et al. 2016): step ``k`` closes when ``n - b`` gradients computed on version ``k`` have
  arrived; they are averaged (factor ``1/(n-b)`` each), the version becomes ``k + 1`` and their
  workers pull.  A gradient computed on an older version is dropped on arrival and its worker pulls
  at once (PS2).  ``b = 0`` is PS BSP.
* ``async`` — PS ASP: each push is applied on arrival (factor ``asp_factor``, 1 by default; PS6) and its
  worker pulls at once;
  its staleness ``τ`` is the number of updates applied since the version it was computed on.
  With ``hete_c`` set, PS HETE: factor ``1 / (τ + hete_c)`` (Jiang et al., SIGMOD'17; PS3).

``step`` (PS8) says what a synchronous step does with its gradients: ``"mean"`` (factor ``1/(n-b)``
each, the default) or ``"sum"`` (factor 1 each: every push added at the full learning rate, as
002's authors' Hetu does).  ``apply_s`` (PS7) is the server's time to apply one push: a push that
arrives joins the server's FIFO queue and takes effect ``apply_s`` after the previous one finished
(or after its arrival); only then does it count (a BSP/BK step closes, an ASP/HETE update is made,
its worker may pull).  Every server holds one shard and applies its shard of every push in
parallel with the others, so one queue stands for all of them.  A gradient dropped as stale (PS2)
costs no apply time.

Units: seconds, bits, bits/s.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from simlib.core.collectives import start_transfer
from simlib.core.topology import BigSwitch
from simlib.core.validate import check_array, check_choice, check_int, check_real
from simlib.runtime.cluster import Cluster
from simlib.runtime.controller import ControllerBase

__all__ = ["ps_topology", "PushPull", "ParameterServerController", "PS_MODES", "PS_STEPS", "ps_cluster",
           "push_pull_time"]

PS_MODES = ("sync", "async")
#: What a synchronous step does with its gradients (PS8): average them, or add each at the full step.
PS_STEPS = ("mean", "sum")


def ps_topology(bandwidth: Sequence[float], servers: int = 1, server_bandwidth: float | None = None) -> BigSwitch:
    """A symmetric big switch with the ``n`` workers (``bandwidth[w]`` bits/s each way) as hosts
    ``0..n-1`` and ``servers`` parameter servers as hosts ``n..n+servers-1``, each server's ports
    ``server_bandwidth`` bits/s (default: the workers' largest bandwidth, PS1)."""
    bw = check_array("bandwidth", bandwidth, lo=0.0, lo_open=True, min_len=1)
    s = check_int("servers", servers, 1)
    sb = bw.max() if server_bandwidth is None else check_real("server_bandwidth", server_bandwidth, 0.0, lo_open=True)
    return BigSwitch.symmetric(np.concatenate([bw, np.full(s, sb)]))


def push_pull_time(k: int, model_bits: float, worker_bandwidth: float, server_bandwidth: float,
                   servers: int = 1, alpha: float = 0.0) -> float:
    """Closed form of one round in which ``k`` workers push at once, then all pull at once, every
    port alone with this traffic: each phase is ``alpha`` plus ``model_bits / s`` at the
    bottleneck share ``min(worker_bandwidth / s, server_bandwidth / k)`` (s), so
    ``2·alpha + 2·max(model_bits / worker_bandwidth, k · model_bits / (s · server_bandwidth))``."""
    k = check_int("k", k, 1)
    s = check_int("servers", servers, 1)
    phase = (model_bits / s) / min(worker_bandwidth / s, server_bandwidth / k)
    return 2 * (alpha + phase)


class PushPull:
    """The cluster's collective for parameter-server training: ``start((w,), on_done)`` pushes
    worker ``w``'s gradient (``model_bits / s`` to each server, after ``alpha``), then calls
    ``on_pushed(w)``; the server answers with :meth:`pull` ``(w)``, which moves the model back and
    then calls ``on_done``."""

    def __init__(self, model_bits: float, alpha: float, servers: int, on_pushed: Callable[[int], None]):
        self.model_bits = check_real("model_bits", model_bits, 0.0)
        self.alpha = check_real("alpha", alpha, 0.0)
        self.servers = check_int("servers", servers, 1)
        self.on_pushed = on_pushed
        self._done: dict[int, Callable[[], None]] = {}

    def attach(self, sim, net, topo: BigSwitch) -> None:
        self._sim, self._net, self._topo = sim, net, topo
        if topo.n <= self.servers:
            raise ValueError(f"the topology must have workers besides its {self.servers} servers, got {topo.n} hosts")
        self._server_hosts = list(range(topo.n - self.servers, topo.n))

    def _transfer(self, pairs, then: Callable[[], None]) -> None:
        left = [len(pairs)]

        def one(_flow):
            left[0] -= 1
            if left[0] == 0:
                then()

        bits = self.model_bits / self.servers
        for src, dst in pairs:
            start_transfer(self._sim, self._net, self._topo.unicast(src, dst), bits, self.alpha, one)

    def start(self, members: Sequence[int], on_done: Callable[[], None]) -> None:
        if len(members) != 1:
            raise ValueError(f"a push involves one worker, got members {tuple(members)}")
        w = int(members[0])
        self._done[w] = on_done
        self._transfer([(w, h) for h in self._server_hosts], lambda: self.on_pushed(w))

    def pull(self, w: int) -> None:
        """Send the current model from the servers to worker ``w``; its sync ends when it has arrived."""
        self._transfer([(h, w) for h in self._server_hosts], self._done.pop(w))


class ParameterServerController(ControllerBase):
    """The parameter server's consistency protocol (see the module docstring): ``mode`` ``"sync"``
    (``backups`` b >= 0; b = 0 is BSP) or ``"async"`` (``hete_c`` None: ASP, each push applied with
    factor ``asp_factor`` in (0, 1] (PS6); a value > 0: HETE's factor ``1 / (τ + hete_c)``); a
    synchronous step's factors are ``1/(n-b)`` (``step="mean"``) or 1 (``"sum"``, PS8); each accepted
    push takes ``apply_s`` seconds of the server's FIFO queue (PS7).  Needs the :class:`PushPull`
    collective built by :meth:`collective`."""

    update_rule = "gradient"

    def __init__(self, mode: str = "sync", *, backups: int = 0, hete_c: float | None = None,
                 asp_factor: float = 1.0, step: str = "mean", apply_s: float = 0.0):
        self.mode = check_choice("mode", mode, PS_MODES)
        self.step_rule = check_choice("step", step, PS_STEPS)
        self.apply_s = check_real("apply_s", apply_s, 0.0)
        self.backups = check_int("backups", backups, 0)
        if mode == "sync" and hete_c is not None:
            raise ValueError("hete_c applies to mode 'async' only")
        if mode == "async" and self.backups:
            raise ValueError("backups applies to mode 'sync' only")
        self.hete_c = None if hete_c is None else check_real("hete_c", hete_c, 0.0, lo_open=True)
        self.asp_factor = check_real("asp_factor", asp_factor, 0.0, 1.0, lo_open=True)
        if self.asp_factor != 1.0 and (mode != "async" or hete_c is not None):
            raise ValueError("asp_factor applies to PS ASP only (mode 'async' without hete_c)")
        self.kind = {"sync": "ps-bk" if self.backups else "ps-bsp",
                     "async": "ps-asp" if hete_c is None else "ps-hete"}[self.mode]
        self.cluster = None
        self.transport: PushPull | None = None

    def collective(self, model_bits: float, alpha: float, servers: int = 1) -> PushPull:
        """The push/pull transport this controller drives (pass it to the :class:`Cluster`)."""
        self.transport = PushPull(model_bits, alpha, servers, self._on_pushed)
        return self.transport

    def attach(self, cluster) -> None:
        if self.transport is None or cluster.collective is not self.transport:
            raise ValueError("the cluster's collective must be this controller's PushPull (see collective())")
        if self.backups >= cluster.n:
            raise ValueError(f"backups must be in [0, n - 1 = {cluster.n - 1}], got {self.backups}")
        super().attach(cluster)
        self.version = 0                                   # the server's published model version
        self.held = np.zeros(cluster.n, dtype=np.int64)    # version each worker computes on
        self.records: dict[int, object] = {}
        self.step: list[int] = []                          # sync: fresh gradients of the current step
        self.server_free = 0.0                             # when the server's apply queue is empty (PS7)

    def on_ready(self, w: int, compute_time: float) -> None:
        rec = self.cluster.launch((w,), kind=self.kind)
        rec.versions = (int(self.held[w]),)
        self.records[w] = rec

    def _applied(self, w: int, factor: float) -> None:
        rec = self.records.pop(w)
        rec.weights = (float(factor),)
        rec.apply = self.cluster.sim.now

    def _pull(self, w: int) -> None:
        self.held[w] = self.version
        self.transport.pull(w)

    def _on_pushed(self, w: int) -> None:
        if self.mode == "sync" and self.held[w] < self.version:
            self._accepted(w)                             # dropped on arrival: no apply time (PS2, PS7)
            return
        if self.apply_s == 0.0:
            self._accepted(w)
            return
        now = self.cluster.sim.now
        self.server_free = max(self.server_free, now) + self.apply_s
        self.cluster.sim.schedule(self.server_free - now, self._accepted, w)

    def _accepted(self, w: int) -> None:
        """Push ``w`` has been applied by the server (after its queue, PS7) or dropped as stale."""
        if self.mode == "async":
            tau = self.version - int(self.held[w])
            self._applied(w, self.asp_factor if self.hete_c is None else 1.0 / (tau + self.hete_c))
            self.version += 1
            self._pull(w)
            return
        if self.held[w] < self.version:                   # computed on an older version: dropped (PS2)
            self._applied(w, 0.0)
            self.cluster.count("dropped_gradients")
            self._pull(w)
            return
        self.step.append(w)
        if len(self.step) == self.cluster.n - self.backups:
            step, self.step = self.step, []
            for m in step:
                self._applied(m, 1.0 / len(step) if self.step_rule == "mean" else 1.0)
            self.version += 1
            for m in step:
                self._pull(m)


def ps_cluster(bandwidth: Sequence[float], compute, controller: ParameterServerController, *, model_bits: float,
               alpha: float, duration: float, servers: int = 1, server_bandwidth=None,
               merge_servers: bool = True) -> Cluster:
    """A parameter-server cluster: :func:`ps_topology` (workers ``bandwidth``, ``servers`` servers),
    the controller's :class:`PushPull` of ``model_bits`` split over the servers, latency ``alpha`` (s)
    per transfer, ``duration`` (s).

    ``merge_servers`` (default) simulates the ``s`` servers as one host with ``s`` times a server's
    bandwidth that receives and sends the whole model. This is exact, because every push and pull
    sends equal shards to all servers at the same instant and the servers' ports are equal. Every
    server therefore carries the same flows at the same rates, and the max-min problem is the sharded
    one scaled by ``s``. It needs ``s`` times fewer flows (PS1; tested against ``merge_servers=False``)."""
    s = check_int("servers", servers, 1)
    if merge_servers and s > 1:
        bw = check_array("bandwidth", bandwidth, lo=0.0, lo_open=True, min_len=1)
        sb = bw.max() if server_bandwidth is None else check_real("server_bandwidth", server_bandwidth, 0.0,
                                                                  lo_open=True)
        topo, hosts = ps_topology(bw, 1, s * sb), 1
    else:
        topo, hosts = ps_topology(bandwidth, s, server_bandwidth), s
    return Cluster(topo, controller.collective(model_bits, alpha, hosts), compute, controller,
                   duration=duration, workers=topo.n - hosts)
