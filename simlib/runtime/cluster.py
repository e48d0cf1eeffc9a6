"""The generic simulated data-parallel cluster (seed 000 §IV-A, seed 002's setting).

``Cluster(topology, collective, compute, controller)``: ``n`` workers on a
topology (e.g. seed 000's big switch); each worker runs this state machine::

    COMPUTING --compute done--> READY --controller launches--> SYNCING
        ^                                                         |
        +---------------- sync done (t < duration) ---------------+
    COMPUTING or SYNCING --end of run / sync done at t >= duration--> STOPPED

1. compute one local iteration (``compute.next(w)`` seconds);
2. report ready to the controller (:mod:`simlib.runtime.controller`);
3. wait until the controller puts it in a group;
4. synchronize with the group through the ``collective`` (e.g. a ring
   all-reduce as flows on the network, or a closed-form Eq. (2) time), then
   go back to 1.

Groups run concurrently and asynchronously.  The cluster executes the
controller's decisions and writes a :class:`~simlib.runtime.log.ScheduleLog`;
metrics are derived from the log by :mod:`simlib.runtime.metrics`.

Units: seconds, bits, bits/s.
"""
from __future__ import annotations

from enum import IntEnum
from typing import Callable, NamedTuple, Sequence

import numpy as np

from simlib.core.collectives import ring_collective
from simlib.core.events import Simulator
from simlib.core.network import FlowNetwork
from simlib.core.seeding import child_seed
from simlib.core.topology import BigSwitch
from simlib.core.validate import check_array, check_choice, check_int, check_real
from simlib.runtime import cluster_kernel
from simlib.runtime.log import UPDATE_RULES, ScheduleLog, SyncRecord

__all__ = ["Cluster", "WorkerPhase", "WorkerView", "ComputeTimes", "ScriptedComputeTimes", "ENGINES"]

#: How :meth:`Cluster.run` simulates (decision N13): the compiled loop where it applies, or always the
#: Python loop (the reference), or always the compiled loop.
ENGINES = ("auto", "python", "compiled")


class WorkerPhase(IntEnum):
    """A worker's state (see the module docstring for the transitions)."""

    COMPUTING = 0
    READY = 1
    SYNCING = 2
    STOPPED = 3


COMPUTING, READY, SYNCING, STOPPED = (int(p) for p in WorkerPhase)


#: Most bytes of uniform draws :class:`ComputeTimes` keeps for later runs of the process (the memo is emptied
#: when more were drawn since it was last emptied; a run keeps the streams it holds).
UNIFORM_MEMO_BYTES = 64 * 2**20


class _SeedUniforms:
    """The uniforms of every worker of one seed, ``size`` a call: worker ``w``'s ``i``-th chunk is what its
    generator ``default_rng(child_seed(seed, w))`` returns at its ``i``-th call ``random(size)``, kept as drawn
    (read-only).  Every worker's first chunk is a row of one 2-D block (:meth:`first`), so a run's first draws
    of all its workers are one slice; later chunks are kept per worker.  A worker's generator is made when
    its first chunk is drawn (workers ``0..n-1`` in order, as a run of ``n`` workers asks)."""

    __slots__ = ("entropy", "spawn_key", "size", "block", "rngs", "later")

    def __init__(self, entropy: int, spawn_key: tuple, size: int):
        self.entropy, self.spawn_key, self.size = entropy, spawn_key, size
        self.block = np.empty((0, size))        # row w: worker w's first chunk
        self.rngs: list = []                    # worker w's generator, past its first chunk
        self.later: list = []                   # worker w's chunks 1, 2, ...

    def first(self, n: int) -> np.ndarray:
        """The first chunks of workers ``0..n-1``, shape (n, size): a read-only view of the block, which grows
        (by the missing workers' first draws) when ``n`` exceeds the workers drawn so far."""
        have = len(self.rngs)
        if n > have:
            rows = np.empty((n - have, self.size))
            for w in range(have, n):
                rng = np.random.default_rng(np.random.SeedSequence(self.entropy, spawn_key=self.spawn_key + (w,)))
                rows[w - have] = rng.random(self.size)
                self.rngs.append(rng)
                self.later.append([])
            block = np.concatenate([self.block, rows]) if have else rows
            block.setflags(write=False)
            self.block = block
            _UNIFORMS["bytes"] += rows.nbytes
        return self.block[:n]

    def chunk(self, w: int, i: int) -> np.ndarray:
        """Worker ``w``'s ``i``-th chunk (``i`` <= the number drawn so far of this worker)."""
        if i == 0:
            return self.first(w + 1)[w]
        later = self.later[w]
        if i - 1 == len(later):
            u = self.rngs[w].random(self.size)
            u.setflags(write=False)
            later.append(u)
            _UNIFORMS["bytes"] += u.nbytes
        return later[i - 1]


#: Process-wide memo of :class:`_SeedUniforms` by (entropy, spawn key, chunk size), see :class:`ComputeTimes`.
_UNIFORMS: dict = {"streams": {}, "bytes": 0}


def _seed_uniforms(seed: np.random.SeedSequence, size: int) -> _SeedUniforms:
    """The workers' streams of ``size`` uniforms a call from ``default_rng(child_seed(seed, w))``, shared by the
    runs of this process (the memo emptied past :data:`UNIFORM_MEMO_BYTES`)."""
    memo = _UNIFORMS["streams"]
    if _UNIFORMS["bytes"] > UNIFORM_MEMO_BYTES:
        memo.clear()
        _UNIFORMS["bytes"] = 0
    spawn_key = tuple(seed.spawn_key)
    key = (seed.entropy, spawn_key, size)
    streams = memo.get(key)
    if streams is None:
        streams = memo[key] = _SeedUniforms(seed.entropy, spawn_key, size)
    return streams


class _PerWorkerStreams:
    """What the compiled cluster engine (:mod:`simlib.runtime.cluster_kernel`) asks of a compute-time source it
    draws ahead of the simulation, per worker: a class sets ``per_worker_streams = True`` in its own body when
    worker ``w``'s draws depend on ``w``'s stream alone (so drawing them ahead gives the same values; a subclass
    that does not say so again runs on the Python loop), and hears :meth:`drawing_ahead` around the run and
    :meth:`used_draws` after it (a recorded trace's replay warns from them, as one draw at a time would)."""

    def drawing_ahead(self, on: bool) -> None:
        """The engine draws ahead (``on``) or no longer does; nothing to do here."""

    def used_draws(self, counts) -> None:
        """The run used ``counts[w]`` draws of worker ``w``; nothing to do here."""


class ComputeTimes(_PerWorkerStreams):
    """Per-worker streams of compute times (s): worker ``w``'s k-th draw is the
    same whatever the scheme, so schemes are compared on identical draws.
    ``scale[w]`` multiplies worker ``w``'s draws (a slowed-down worker, 002 §5.2).

    Worker ``w`` draws ``sampler(rng_w, chunk)`` at a time from its own generator
    (``child_seed(seed, w)``); subclasses change what a chunk is by overriding
    :meth:`_fill` (e.g. :class:`simlib.workloads.traces.ReplayComputeTimes`).

    ``quantile`` (optional): a function of an array of uniforms, elementwise, with
    ``sampler(rng, k) == quantile(rng.random(k))`` (inverse-transform sampling, e.g. a trace's).  Then
    the uniforms, which depend on the seed and the worker only, are kept in a process-wide memo and
    shared by every run of the process with the same seed (the sweeps' paired trials: one per trial,
    whatever the setting), and :meth:`take_all` maps every worker's chunk with one ``quantile`` call, only the
    columns asked (the rest when asked: ``quantile`` is elementwise, so the same values):
    the same draws, without a generator per worker and run (issue 48, docs/speed.md)."""

    per_worker_streams = True

    def __init__(self, sampler: Callable[[np.random.Generator, int], np.ndarray] | None, n: int,
                 seed: np.random.SeedSequence, chunk: int = 256, scale: Sequence[float] | None = None,
                 quantile: Callable[[np.ndarray], np.ndarray] | None = None):
        self._sampler = sampler
        self._scale = np.ones(n) if scale is None else check_array("scale", scale, lo=0.0, lo_open=True)
        if self._scale.size != n:
            raise ValueError(f"scale must have one factor per worker ({n}), got {self._scale.size}")
        memo = (quantile is not None and type(seed) is np.random.SeedSequence and type(seed.entropy) is int
                and seed.pool_size == 4)
        self._quantile = quantile if memo else None
        if memo:
            self._uniforms = _seed_uniforms(seed, chunk)
            self._filled = [0] * n
        else:
            self._rngs = [np.random.default_rng(child_seed(seed, w)) for w in range(n)]
        self._buf = [np.empty(0)] * n
        self._pos = [0] * n
        self._drained = True        # every buffer known used up (take_all then checks none of them)
        self._chunk = chunk
        # the memo's path, after take_all: (every worker's current chunk of uniforms as the rows of one array, the
        # column from which they are not mapped yet); _buf and _pos are then stale (see _settle)
        self._lazy: tuple[np.ndarray, int] | None = None

    def _fill(self, w: int) -> np.ndarray:
        """Worker ``w``'s next chunk of unscaled compute times (s)."""
        if self._quantile is not None:
            return self._fill_many([w])[0]
        return np.asarray(self._sampler(self._rngs[w], self._chunk), dtype=float)

    def _fill_many(self, ws: list) -> list:
        """The next chunk of each worker of ``ws`` (the memo's path: one ``quantile`` call for all)."""
        u = np.stack([self._uniforms.chunk(w, self._filled[w]) for w in ws])
        for w in ws:
            self._filled[w] += 1
        return list(np.asarray(self._quantile(u), dtype=float).reshape(u.shape))

    def _settle(self) -> None:
        """Map what is left of the chunks :meth:`take_all` mapped in part (``_lazy``) into ``_buf``: the same
        values as mapping each whole chunk at once (``quantile`` is elementwise)."""
        chunks, col = self._lazy
        self._lazy = None
        n = len(chunks)
        if col >= self._chunk:
            self._buf, self._pos, self._drained = [np.empty(0)] * n, [0] * n, True
            return
        u = chunks[:, col:]
        block = np.asarray(self._quantile(u), dtype=float).reshape(u.shape)
        self._buf, self._pos, self._drained = list(block), [0] * n, False

    def _take_lazy(self, k: int, out: np.ndarray) -> None:
        """``out`` := every worker's next ``k`` <= what is left of its chunk in ``_lazy`` (times its scale):
        only these columns of the uniforms are mapped."""
        chunks, col = self._lazy
        u = chunks[:, col:col + k]
        np.multiply(np.asarray(self._quantile(u), dtype=float).reshape(u.shape), self._scale[:, None], out=out)
        self._lazy = (chunks, col + k)
        if col + k >= self._chunk:      # the chunks used up: _settle leaves every buffer empty
            self._settle()

    def next(self, w: int) -> float:
        if self._lazy is not None:
            self._settle()
        pos, buf = self._pos[w], self._buf[w]
        if pos >= buf.size:
            buf = self._buf[w] = self._fill(w)
            pos = 0
            self._drained = False
        self._pos[w] = pos + 1
        return float(buf[pos]) * self._scale[w]

    def take(self, w: int, k: int) -> np.ndarray:
        """Worker ``w``'s next ``k`` compute times (s): the values of ``k`` calls to :meth:`next`."""
        if self._lazy is not None:
            self._settle()
        out = np.empty(k)
        got = 0
        while got < k:
            if self._pos[w] >= self._buf[w].size:
                self._buf[w] = self._fill(w)
                self._pos[w] = 0
                self._drained = False
            part = self._buf[w][self._pos[w]:self._pos[w] + k - got]
            out[got:got + part.size] = part * self._scale[w]
            self._pos[w] += part.size
            got += part.size
        return out

    def take_all(self, k: int) -> np.ndarray:
        """Every worker's next ``k`` compute times (s), shape (n, k): row ``w`` is :meth:`take` ``(w, k)``
        (the same steps for each worker; on the memo's path the workers that need a new chunk at the same
        step get it from one ``quantile`` call)."""
        n = len(self._buf)
        out = np.empty((n, k))
        if self._quantile is None:
            for w in range(n):
                out[w] = self.take(w, k)
            return out
        if self._lazy is not None:
            if self._lazy[1] + k <= self._chunk:     # the next k of the chunks mapped in part
                self._take_lazy(k, out)
                return out
            self._settle()
        if k <= self._chunk and (self._drained or all(self._pos[w] >= self._buf[w].size for w in range(n))):
            # the common first call: every worker's next chunk, of which only the first k are mapped now (row w
            # times scale[w]); the rest when asked (_lazy): at n = 100,000 and 64 draws asked of 256, a quarter
            if any(self._filled):      # a worker past its first chunk (its own next / take): the chunks as rows
                chunks = np.stack([self._uniforms.chunk(w, self._filled[w]) for w in range(n)])
            else:                      # the first call: one slice of the seed's first chunks
                chunks = self._uniforms.first(n)
            self._lazy = (chunks, 0)
            self._filled = [f + 1 for f in self._filled]
            self._take_lazy(k, out)
            return out
        got = [0] * n
        pending = list(range(n))
        while pending:
            empty = [w for w in pending if self._pos[w] >= self._buf[w].size]
            if empty:
                for w, buf in zip(empty, self._fill_many(empty)):
                    self._buf[w], self._pos[w] = buf, 0
                self._drained = False
            left = []
            for w in pending:
                pos, g = self._pos[w], got[w]
                part = self._buf[w][pos:pos + k - g]
                out[w, g:g + part.size] = part * self._scale[w]
                self._pos[w], got[w] = pos + part.size, g + part.size
                if got[w] < k:
                    left.append(w)
            pending = left
        return out


class ScriptedComputeTimes(_PerWorkerStreams):
    """Hand-written compute times (s): ``times[w]`` lists worker ``w``'s iterations;
    once exhausted the worker computes forever (never ready again)."""

    per_worker_streams = True

    def __init__(self, times: Sequence[Sequence[float]]):
        self._times = [list(check_array(f"times[{w}]", t, lo=0.0)) for w, t in enumerate(times)]
        self._pos = [0] * len(self._times)

    def next(self, w: int) -> float:
        k = self._pos[w]
        self._pos[w] += 1
        return self._times[w][k] if k < len(self._times[w]) else float("inf")

    def take(self, w: int, k: int) -> np.ndarray:
        """Worker ``w``'s next ``k`` compute times (s): the values of ``k`` calls to :meth:`next`."""
        return np.array([self.next(w) for _ in range(k)], dtype=float)


class WorkerView(NamedTuple):
    """What a controller may read of the workers (:meth:`Cluster.workers`): read-only views of the
    cluster's per-worker arrays, indexed by worker id, that follow the run (no copies)."""

    phase: np.ndarray               # WorkerPhase code per worker (int8)
    compute_start: np.ndarray       # start of the current/last compute phase (s)
    compute_finish: np.ndarray      # end of the current/last compute phase (s)


def _read_only(a: np.ndarray) -> np.ndarray:
    view = a.view()
    view.flags.writeable = False
    return view


class Cluster:
    """Workers, the network and the execution of the controller's decisions.

    Parameters
    ----------
    topology : the hosts and their links (e.g. :class:`~simlib.core.topology.BigSwitch`;
        worker ``w`` is host ``w``); the cluster runs a :class:`FlowNetwork` on its capacities.
    collective : how a group synchronizes (:class:`simlib.core.collectives.Collective`).
    compute : :class:`ComputeTimes` or any object with ``next(w) -> seconds``.
    controller : a :class:`simlib.runtime.controller.Controller`; its ``update_rule`` attribute
        (default ``"average"``) is copied into the log (:class:`~simlib.runtime.log.ScheduleLog`).
    duration : training time (s); nothing starts after it.
    workers : number of workers ``n`` (default: every host); hosts ``n .. topology.n - 1`` are
        not workers (e.g. parameter servers, :mod:`simlib.runtime.parameter_server`).
    weight_rule : optional aggregation-weight rule with ``reset(n)``, ``on_iteration(w)`` and
        ``on_sync(members) -> (weights, init_weight)`` (e.g. seed 002's dynamic weights); the
        weights are recorded in each :class:`SyncRecord` (they do not change the schedule).
    """

    def __init__(self, topology: BigSwitch, collective, compute, controller, *, duration: float,
                 weight_rule=None, sim: Simulator | None = None, workers: int | None = None):
        self.topo = topology
        self.n = int(topology.n) if workers is None else check_int("workers", workers, 1, int(topology.n))
        self.duration = check_real("duration", duration, 0.0, lo_open=True)
        # a few events per worker may share an instant; a loop of zero-duration steps is an error
        self.sim = sim if sim is not None else Simulator(max_events_per_instant=max(10**5, 20 * self.n))
        self.net = FlowNetwork(topology.capacities, self.sim)
        self.collective = collective
        collective.attach(self.sim, self.net, topology)
        self.compute = compute
        self.controller = controller
        self.weight_rule = weight_rule
        n = self.n
        self.phase = np.full(n, COMPUTING, dtype=np.int8)
        self.compute_start = np.zeros(n)
        self.compute_finish = np.zeros(n)   # end of the current/last compute phase
        self.ready_time = np.full(n, np.nan)
        self.iterations = np.zeros(n, dtype=np.int64)
        self._timer: list = [None] * n            # each computing worker's compute-end event
        self._blocks = np.zeros(n, dtype=np.int64)  # exchanges blocking each worker (block / unblock)
        self._left = np.full(n, np.nan)           # compute time left of a blocked worker's step (s)
        self.log = ScheduleLog(n=n, duration=self.duration,
                               bandwidth=np.minimum(topology.ingress, topology.egress)[:n],
                               compute_end=[[] for _ in range(n)],
                               update_rule=check_choice("controller.update_rule",
                                                        getattr(controller, "update_rule", "average"), UPDATE_RULES))
        if weight_rule is not None:
            weight_rule.reset(n)
        controller.attach(self)

    @classmethod
    def big_switch(cls, bandwidth: Sequence[float], compute, controller, *, model_bits: float,
                   alpha: float, duration: float, sync_model: str = "flows", ring_model: str = "single",
                   weight_rule=None) -> "Cluster":
        """Seed 000's cluster: a symmetric big switch (worker ``w``'s uplink and downlink both
        ``bandwidth[w]`` bits/s) and a ring all-reduce of ``model_bits`` with latency ``alpha``
        (s) per step, as flows or closed form (``sync_model`` in ``collectives.SYNC_MODELS``)."""
        topo = BigSwitch.symmetric(check_array("bandwidth", bandwidth, lo=0.0, lo_open=True, min_len=1))
        return cls(topo, ring_collective(sync_model, model_bits, alpha, ring_model), compute, controller,
                   duration=duration, weight_rule=weight_rule)

    # ----------------------------------------------------------------- running
    def run(self, engine: str = "auto") -> ScheduleLog:
        """Start every worker at t = 0 and simulate until ``duration``.

        ``engine`` (decision N13): ``"python"`` runs this module's event loop (the reference);
        ``"compiled"`` the compiled loop of :mod:`simlib.runtime.cluster_kernel`, same log bit for bit,
        for the systems it covers (``ValueError`` naming what it does not cover otherwise); ``"auto"``
        the compiled loop where it covers the cluster, else the Python loop."""
        engine = check_choice("engine", engine, ENGINES)
        if engine != "python":
            why = cluster_kernel.supported(self)
            if why is None:
                cluster_kernel.run_compiled(self)
                return self.log
            if engine == "compiled":
                raise ValueError(f"engine 'compiled' does not cover this cluster ({why}); use engine 'auto' "
                                 f"or 'python'")
        for w in range(self.n):
            self._start_compute(w)
        self.sim.run(until=self.duration)
        self.phase[self.phase == COMPUTING] = STOPPED
        return self.log

    def release(self) -> None:
        """Drop the controller's reference back to this cluster (``controller.cluster``, set by ``attach``), the
        reference cycle every cluster is in: the cluster, its network, draws and log are then freed as soon as
        nothing else references them, instead of surviving until Python's cyclic garbage collector visits them
        (each trial's left for the collector cost ~10 % of a sweep's CPU, issue 48).  Call it when done with a
        cluster that will not run again (:func:`~simlib.papers.cluster_scenario.simulate` does); what it
        logged stays readable."""
        if getattr(self.controller, "cluster", None) is self:
            self.controller.cluster = None

    def _start_compute(self, w: int) -> None:
        now = self.sim.now
        if now >= self.duration:
            self.phase[w] = STOPPED
            return
        d = self.compute.next(w)
        self.phase[w] = COMPUTING
        self.compute_start[w] = now
        self.compute_finish[w] = now + d
        if self._blocks[w]:
            self._left[w] = d                     # starts when the last exchange blocking it ends
            return
        self._timer[w] = self.sim.schedule(d, self._compute_done, w)

    def _compute_done(self, w: int) -> None:
        now = self.sim.now
        self._timer[w] = None
        self.iterations[w] += 1
        self.log.compute_end[w].append(now)
        if self.weight_rule is not None:
            self.weight_rule.on_iteration(w)
        self.phase[w] = READY
        self.ready_time[w] = now
        self.controller.on_ready(w, now - self.compute_start[w])

    # --------------------------------------------------------- controller API
    def training_workers(self) -> np.ndarray:
        """Ids of workers currently computing (the set S of 000 Alg. 2/3)."""
        return np.flatnonzero(self.phase == COMPUTING)

    def workers(self) -> WorkerView:
        """The workers' phases and compute-phase times as read-only views (:class:`WorkerView`): they
        show the run as it goes, and writing through them raises ``ValueError``."""
        return WorkerView(_read_only(self.phase), _read_only(self.compute_start), _read_only(self.compute_finish))

    def elapsed(self, ids: np.ndarray) -> np.ndarray:
        """Seconds since each worker started its current compute phase."""
        return self.sim.now - self.compute_start[ids]

    def launch(self, members: Sequence[int], kind: str = "partial", passive: Sequence[int] = ()) -> SyncRecord:
        """Start a (weighted) synchronization among READY ``members`` now.

        ``passive`` workers take part without waiting for it, whatever they are doing (AD-PSGD's
        neighbour, :mod:`simlib.runtime.decentralized`): they follow ``members`` in the record
        and the collective, and their phase does not change; only ``members`` compute again
        when it ends.  Passive workers that are computing are listed in the record's ``computing``."""
        members = tuple(int(m) for m in members)
        passive = tuple(int(m) for m in passive)
        if not members:
            raise ValueError("members must not be empty")
        mem = list(members)
        if not np.all(self.phase[mem] == READY):
            bad = [m for m in members if self.phase[m] != READY]
            raise ValueError(f"members must all be ready; not ready: {bad}")
        everyone = members + passive
        if len(set(everyone)) != len(everyone) or not all(0 <= m < self.n for m in passive):
            raise ValueError(f"passive must be distinct workers in [0, {self.n - 1}] other than members, "
                             f"got {passive}")
        self.phase[mem] = SYNCING
        # one gather and tolist() for the members' iteration counts (Python ints, as int(x) of each)
        rec = SyncRecord(launch=self.sim.now, members=everyone,
                         iterations=tuple(self.iterations[list(everyone)].tolist()), kind=kind)
        busy = tuple(m for m in passive if self.phase[m] == COMPUTING)
        if busy:
            rec.computing = busy
        if self.weight_rule is not None:
            ws, w_init = self.weight_rule.on_sync(everyone)
            rec.weights = tuple(float(x) for x in ws)
            rec.init_weight = float(w_init)
        self.log.syncs.append(rec)
        self.collective.start(everyone, lambda: self._sync_done(rec, len(members)))
        return rec

    def block(self, w: int) -> None:
        """Worker ``w`` stops computing until as many :meth:`unblock` calls (an exchange that holds
        it, AD-PSGD's blocking neighbour, decision AD3): a step in progress pauses, with the compute
        time it has left; a step it would start waits."""
        w = int(w)
        self._blocks[w] += 1
        if self._blocks[w] == 1 and self.phase[w] == COMPUTING and self._timer[w] is not None:
            self._timer[w].cancel()
            self._timer[w] = None
            self._left[w] = self.compute_finish[w] - self.sim.now

    def unblock(self, w: int) -> None:
        """End one :meth:`block` of worker ``w``; at the last one its step resumes."""
        w = int(w)
        if self._blocks[w] <= 0:
            raise ValueError(f"worker {w} is not blocked")
        self._blocks[w] -= 1
        if self._blocks[w] == 0 and not np.isnan(self._left[w]):
            left, self._left[w] = float(self._left[w]), np.nan
            self.compute_finish[w] = self.sim.now + left
            self._timer[w] = self.sim.schedule(left, self._compute_done, w)

    def record_hold(self, workers: Sequence[int]) -> None:
        """Log that the controller starts holding these READY workers back now
        (their group could launch, but it waits for better members)."""
        now = self.sim.now
        self.log.holds.extend((now, int(w)) for w in workers)

    def count(self, name: str, k: int = 1) -> None:
        """Add ``k`` to the log's counter ``name`` (a controller's event count)."""
        self.log.counters[name] = self.log.counters.get(name, 0) + k

    def _sync_done(self, rec: SyncRecord, active: int) -> None:
        rec.finish = self.sim.now
        for w in rec.members[:active]:
            self._start_compute(w)
        self.controller.on_sync_done(rec)
