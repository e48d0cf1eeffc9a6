"""The simulated data-parallel cluster of seed 000 §IV-A (and seed 002's setting).

``n`` workers sit on one non-blocking switch.  Each worker loops:

1. compute one local iteration (a draw from a compute-time trace, seconds);
2. report ready to the controller;
3. wait until the controller puts it in a group;
4. synchronize with the group (ring all-reduce as flows on the big switch, or
   a closed-form Eq. (2) time), then go back to 1.

Groups run concurrently and asynchronously.  The controller (see
:mod:`simlib.runtime.baselines`) decides who synchronizes with whom and when; the
cluster executes its decisions and writes a :class:`ScheduleLog`: for each
worker, when each local iteration ended; for each synchronization, its launch
and finish times, members and the members' iteration counts.  Metrics are
computed from the log by :mod:`simlib.runtime.metrics`.

Units: seconds, bits, bits/s.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from simlib.core.collectives import RING_MODELS, RingAllReduce
from simlib.core.costmodels import ring_allreduce_time
from simlib.core.events import Simulator
from simlib.core.network import FlowNetwork
from simlib.core.topology import BigSwitch
from simlib.core.validate import check_array, check_choice, check_real
from simlib.runtime.log import ScheduleLog, SyncRecord

__all__ = ["SyncRecord", "ScheduleLog", "Cluster", "SYNC_MODELS", "ComputeTimes", "ScriptedComputeTimes"]

#: How a group's synchronization time is produced: flows on the network, or a closed form of Eq. (2).
SYNC_MODELS = ("flows", "eq2_exact", "eq2_approx", "eq2_example")

COMPUTING, READY, SYNCING, STOPPED = 0, 1, 2, 3


class ComputeTimes:
    """Per-worker streams of compute times (s): worker ``w``'s k-th draw is the
    same whatever the scheme, so schemes are compared on identical draws.
    ``scale[w]`` multiplies worker ``w``'s draws (a slowed-down worker, 002 §5.2)."""

    def __init__(self, sampler: Callable[[np.random.Generator, int], np.ndarray], n: int,
                 seed: np.random.SeedSequence, chunk: int = 256, scale: Sequence[float] | None = None):
        self._sampler = sampler
        self._scale = np.ones(n) if scale is None else check_array("scale", scale, lo=0.0, lo_open=True)
        if self._scale.size != n:
            raise ValueError(f"scale must have one factor per worker ({n}), got {self._scale.size}")
        self._rngs = [np.random.default_rng(np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key + (w,)))
                      for w in range(n)]
        self._buf = [np.empty(0)] * n
        self._pos = [0] * n
        self._chunk = chunk

    def next(self, w: int) -> float:
        if self._pos[w] >= self._buf[w].size:
            self._buf[w] = np.asarray(self._sampler(self._rngs[w], self._chunk), dtype=float)
            self._pos[w] = 0
        x = float(self._buf[w][self._pos[w]]) * self._scale[w]
        self._pos[w] += 1
        return x


class ScriptedComputeTimes:
    """Hand-written compute times (s): ``times[w]`` lists worker ``w``'s iterations;
    once exhausted the worker computes forever (never ready again)."""

    def __init__(self, times: Sequence[Sequence[float]]):
        self._times = [list(check_array(f"times[{w}]", t, lo=0.0)) for w, t in enumerate(times)]
        self._pos = [0] * len(self._times)

    def next(self, w: int) -> float:
        k = self._pos[w]
        self._pos[w] += 1
        return self._times[w][k] if k < len(self._times[w]) else float("inf")


class Cluster:
    """Workers, the network and the execution of the controller's decisions.

    Parameters
    ----------
    bandwidth : per-worker bandwidth b_k (bits/s), used for uplink and downlink.
    compute : :class:`ComputeTimes` or any object with ``next(w) -> seconds``.
    controller : object with ``attach(cluster)``, ``on_ready(w, compute_time)`` (see controllers).
    weight_rule : optional aggregation-weight rule (:mod:`simlib.papers.partial_reduce.weights`) with ``reset(n)``,
        ``on_iteration(w)`` and ``on_sync(members) -> (weights, init_weight)``; the weights
        are recorded in each :class:`SyncRecord` (they do not change the schedule).
    model_bits, alpha : model size v (bits) and one-way latency α (s).
    duration : training time (s); nothing starts after it.
    sync_model : one of ``SYNC_MODELS``; ``ring_model`` one of ``collectives.RING_MODELS``.
    """

    def __init__(self, bandwidth: Sequence[float], compute, controller, *, model_bits: float,
                 alpha: float, duration: float, sync_model: str = "flows", ring_model: str = "single",
                 weight_rule=None, sim: Simulator | None = None):
        self.bandwidth = check_array("bandwidth", bandwidth, lo=0.0, lo_open=True, min_len=1)
        self.n = int(self.bandwidth.size)
        self.model_bits = check_real("model_bits", model_bits, 0.0)
        self.alpha = check_real("alpha", alpha, 0.0)
        self.duration = check_real("duration", duration, 0.0, lo_open=True)
        self.sync_model = check_choice("sync_model", sync_model, SYNC_MODELS)
        self.ring_model = check_choice("ring_model", ring_model, RING_MODELS)
        self.sim = sim if sim is not None else Simulator()
        self.topo = BigSwitch.symmetric(self.bandwidth)
        self.net = FlowNetwork(self.topo.capacities, self.sim)
        self.compute = compute
        self.controller = controller
        self.weight_rule = weight_rule
        n = self.n
        self.phase = np.full(n, COMPUTING, dtype=np.int8)
        self.compute_start = np.zeros(n)
        self.compute_finish = np.zeros(n)   # end of the current/last compute phase
        self.ready_time = np.full(n, np.nan)
        self.iterations = np.zeros(n, dtype=np.int64)
        self.log = ScheduleLog(n=n, duration=self.duration, bandwidth=self.bandwidth.copy(),
                               compute_end=[[] for _ in range(n)], wasted_wait=np.zeros(n))
        if weight_rule is not None:
            weight_rule.reset(n)
        controller.attach(self)

    # ----------------------------------------------------------------- running
    def run(self) -> ScheduleLog:
        """Start every worker at t = 0 and simulate until ``duration``."""
        for w in range(self.n):
            self._start_compute(w)
        self.sim.run(until=self.duration)
        self.phase[self.phase == COMPUTING] = STOPPED
        return self.log

    def _start_compute(self, w: int) -> None:
        now = self.sim.now
        if now >= self.duration:
            self.phase[w] = STOPPED
            return
        d = self.compute.next(w)
        self.phase[w] = COMPUTING
        self.compute_start[w] = now
        self.compute_finish[w] = now + d
        self.sim.schedule(d, self._compute_done, w)

    def _compute_done(self, w: int) -> None:
        now = self.sim.now
        self.iterations[w] += 1
        self.log.compute_end[w].append(now)
        if self.weight_rule is not None:
            self.weight_rule.on_iteration(w)
        self.phase[w] = READY
        self.ready_time[w] = now
        self.controller.on_ready(w, now - self.compute_start[w])

    # --------------------------------------------------------- controller API
    def training_workers(self) -> np.ndarray:
        """Ids of workers currently computing (the set S of Alg. 2/3)."""
        return np.flatnonzero(self.phase == COMPUTING)

    def elapsed(self, ids: np.ndarray) -> np.ndarray:
        """Seconds since each worker started its current compute phase."""
        return self.sim.now - self.compute_start[ids]

    def launch(self, members: Sequence[int], kind: str = "partial") -> SyncRecord:
        """Start a (weighted) all-reduce among ready ``members`` now."""
        members = tuple(int(m) for m in members)
        if not members:
            raise ValueError("members must not be empty")
        if not np.all(self.phase[list(members)] == READY):
            bad = [m for m in members if self.phase[m] != READY]
            raise ValueError(f"members must all be ready; not ready: {bad}")
        self.phase[list(members)] = SYNCING
        rec = SyncRecord(launch=self.sim.now, members=members,
                         iterations=tuple(int(self.iterations[m]) for m in members), kind=kind)
        if self.weight_rule is not None:
            ws, w_init = self.weight_rule.on_sync(members)
            rec.weights = tuple(float(x) for x in ws)
            rec.init_weight = float(w_init)
        self.log.syncs.append(rec)
        if self.sync_model == "flows":
            RingAllReduce(self.sim, self.net, self.topo, members, self.model_bits, self.alpha,
                          lambda _op, rec=rec: self._sync_done(rec), model=self.ring_model)
        else:
            form = self.sync_model.split("_", 1)[1]
            t = ring_allreduce_time(self.bandwidth[list(members)], self.model_bits, self.alpha, form)
            self.sim.schedule(t, self._sync_done, rec)
        return rec

    def _sync_done(self, rec: SyncRecord) -> None:
        rec.finish = self.sim.now
        for w in rec.members:
            self._start_compute(w)
        hook = getattr(self.controller, "on_sync_done", None)
        if hook is not None:
            hook(rec)
