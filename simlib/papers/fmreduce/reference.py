"""A second, independent implementation of :func:`.system.simulate` on the generic flow engine.

Every block is one :class:`~simlib.core.network.FlowNetwork` flow on a
:class:`~simlib.core.topology.FullMesh` link, driven by the core
:class:`~simlib.core.events.Simulator` with per-flow completion callbacks:
FS is ``sharing="maxmin"``, FCFS is ``sharing="priority"`` with each flow's
priority its arrival number (decision FM4).  Nothing is predicted: reducers
count arriving blocks, participants count reduced blocks.  It is slow (one
max-min recomputation per flow event) and exists to cross-check the
closed-form engine in the tests and the benchmark.  Same parameters, same
result type (``rounds_log`` rounds carry ``parts``, ``announce``, ``done``,
``finish``).  Units: bits, bits/s, seconds.
"""
from __future__ import annotations

from collections import deque
from itertools import count
from typing import Callable

import numpy as np

from simlib.core.events import Simulator
from simlib.core.network import FlowNetwork
from simlib.core.tolerance import completion_tol
from simlib.core.topology import FullMesh
from simlib.core.units import MB
from simlib.papers.fmreduce.split import even_split, lp_split
from simlib.papers.fmreduce.system_kernel import SAME_INSTANT
from simlib.papers.fmreduce.system import Round, RunResult, summarize_rounds

__all__ = ["simulate_reference"]

LEADER = 0


def simulate_reference(b: np.ndarray, p: int, *, model_bits: float, duration_s: float,
                       compute_time: Callable[[int], float], reducers: str = "all",
                       mode: str = "nonblocking", split: str = "lp", sharing: str = "fcfs",
                       reduce_s_per_mb: float = 0.0, lp_solver: str = "breakpoint") -> RunResult:
    """Same contract as :func:`simlib.papers.fmreduce.system.simulate`."""
    run = _Reference(b, p, model_bits=model_bits, compute_time=compute_time, reducers=reducers, mode=mode,
                     split=split, sharing=sharing, reduce_s_per_mb=reduce_s_per_mb, lp_solver=lp_solver)
    return run.run(duration_s)


class _Reference:
    """One run of the protocol on the flow engine: its state, named, and one handler per step.

    The steps, in a round's order: :meth:`compute` (a worker computes) → :meth:`compute_done` →
    (blocking: :meth:`enqueue` and :meth:`announce` once every worker ready at the instant is in;
    non-blocking: :meth:`scatter` with the predefined split) → :meth:`block_in` at each reducer
    (non-blocking: the leader queues the worker, :meth:`leader_checked` announces at the end of the
    instant unless :meth:`arriving`) → :meth:`checked` / :meth:`try_reduce` once a reducer holds a
    round's blocks → :meth:`broadcast` → :meth:`reduced_in` at each participant, which computes again.
    """

    def __init__(self, b: np.ndarray, p: int, *, model_bits: float, compute_time: Callable[[int], float],
                 reducers: str, mode: str, split: str, sharing: str, reduce_s_per_mb: float, lp_solver: str):
        n = self.n = b.shape[0]
        self.b, self.p, self.v = b, p, float(model_bits)
        self.compute_time, self.reducers, self.mode, self.split = compute_time, reducers, mode, split
        self.reduce_s_per_mb, self.lp_solver = reduce_s_per_mb, lp_solver
        self.mesh = FullMesh(np.where(np.eye(n, dtype=bool), 0.0, b))
        self.sim = Simulator()
        self.net = FlowNetwork(self.mesh.capacities, self.sim, sharing="maxmin" if sharing == "fs" else "priority")
        self.arrivals = count()                   # FCFS priority: a flow's arrival number (FM4)
        self.predefined = None                    # non-blocking: the split of every round
        if mode == "nonblocking":
            self.predefined = lp_split(self.v, b, solver=lp_solver) if split == "lp" else even_split(self.v, n)
        self.held = [set() for _ in range(n)]     # reducer j: workers whose current block is at j
        self.pending = [[] for _ in range(n)]     # reducer j: announced rounds not yet reduced
        self.busy_until = [0.0] * n               # reducer j: when its last reduce ends (s)
        self.checking = set()                     # reducers whose blocks are counted at the end of this instant
        self.leader_check = []                    # non-blocking: the leader's end-of-instant check, if scheduled
        self.queue: deque = deque()               # the leader's FIFO of workers
        self.start = np.zeros(n)                  # compute start of each worker's current iteration (s)
        self.ready = np.zeros(n)                  # its compute end (s)
        self.at_leader = np.zeros(n)              # non-blocking: when each queued worker's blocks reached the leader
        self.to_leader = {}                       # non-blocking: worker -> its block's flow to the leader, in flight
        self.due = np.full(n, np.inf)             # when each computing worker's compute ends (s)
        self.got = {}                             # (worker, round index) -> reduced blocks received
        self.rounds: list[Round] = []

    def run(self, duration_s: float) -> RunResult:
        """Every worker computes from 0; the events run until ``duration_s``."""
        for i in range(self.n):
            self.compute(i)
        self.sim.run(until=duration_s)
        return summarize_rounds(self.rounds, self.p, duration_s)

    def send(self, src, dst, bits, on_done, *args):
        """A flow of ``bits`` on link src -> dst; ``on_done(*args)`` when it completes."""
        return self.net.add_flow(self.mesh.unicast(src, dst), bits, priority=next(self.arrivals),
                                 on_done=lambda f: on_done(*args))

    def compute(self, i):
        self.due[i] = self.sim.schedule(self.compute_time(i), self.compute_done, i).time

    def enqueue(self, i, when):
        """FM3: workers queued at one instant (``when``: ready times if blocking, arrivals at the
        leader if not) stand in id order behind everyone queued earlier."""
        queue, now = self.queue, self.sim.now
        same = now - SAME_INSTANT * now
        k = len(queue)
        while k > 0 and queue[k - 1] > i and when[queue[k - 1]] >= same:
            k -= 1
        queue.insert(k, i)

    def compute_done(self, i):
        now = self.ready[i] = self.sim.now
        self.due[i] = np.inf
        if self.mode == "blocking":               # FM3: rounds form once every worker ready now is in
            self.enqueue(i, self.ready)
            if not (self.due <= now + SAME_INSTANT * now).any():
                while len(self.queue) >= self.p:
                    self.announce()
        else:
            self.scatter(i, self.predefined, range(self.n))

    def scatter(self, i, x, reds):
        for j in reds:
            if j == i:
                self.block_in(i, j)
            else:
                flow = self.send(i, j, x[j], self.block_in, i, j)
                if self.mode == "nonblocking" and j == LEADER:
                    self.to_leader[i] = flow

    def block_in(self, i, j):
        self.held[j].add(i)
        if self.mode == "nonblocking" and j == LEADER:
            self.to_leader.pop(i, None)
            self.at_leader[i] = self.sim.now
            self.enqueue(i, self.at_leader)
            if not self.leader_check:             # FM3: the leader announces after this instant's blocks
                self.leader_check.append(self.sim.schedule(0.0, self.leader_checked))
        if j not in self.checking:                # after every block arriving at j at this instant (FM15)
            self.checking.add(j)
            self.sim.schedule(0.0, self.checked, j)

    def leader_checked(self):
        self.leader_check.clear()
        if len(self.queue) >= self.p and not self.arriving():
            while len(self.queue) >= self.p:
                self.announce()

    def arriving(self) -> bool:
        """A block is still due at the leader within this instant (``SAME_INSTANT``): a compute
        ending by then whose block reaches the leader at once (the leader's own; anyone's if the
        leader's share is empty), or a flow to the leader the network will finish by then (within
        its N6 completion tolerance) or has finished without calling back yet."""
        now, due = self.sim.now, self.due
        end = now + SAME_INSTANT * now
        if due[LEADER] <= end or (self.predefined[LEADER] <= 0.0 and (due <= end).any()):
            return True
        for f in self.to_leader.values():
            left = f.remaining - completion_tol(f.volume)
            if left <= 0.0 or (f.rate > 0.0 and now + left / f.rate <= end):
                return True
        return False

    def checked(self, j):
        self.checking.discard(j)
        self.try_reduce(j)

    def announce(self):
        """The first p queued workers form a round now; blocking: its split and its scatter."""
        n, p = self.n, self.p
        parts = np.array([self.queue.popleft() for _ in range(p)], dtype=np.int64)
        reds = np.arange(n) if self.reducers == "all" else np.sort(parts)
        if self.mode == "blocking":
            x = (lp_split(self.v, self.b, parts, reds, solver=self.lp_solver) if self.split == "lp"
                 else even_split(self.v, n, reds))
        else:
            x = self.predefined
        rnd = Round(len(self.rounds), parts, reds, x, self.sim.now, self.start[parts].copy(),
                    self.ready[parts].copy(), done=np.full(p, np.nan))
        self.rounds.append(rnd)
        for j in reds.tolist():
            self.pending[j].append(rnd)
        if self.mode == "blocking":
            for i in parts.tolist():
                self.scatter(i, x, reds.tolist())
        for j in reds.tolist():
            self.try_reduce(j)

    def try_reduce(self, j):
        """Reducer j reduces each pending round whose blocks it all holds, one after another."""
        held = self.held
        for rnd in list(self.pending[j]):
            members = set(rnd.parts.tolist())
            if members <= held[j]:
                self.pending[j].remove(rnd)
                held[j] -= members
                now = self.sim.now
                rnd.all_in[j] = now
                fin = max(now, self.busy_until[j]) + self.reduce_s_per_mb * self.p * rnd.x[j] / MB
                self.busy_until[j] = fin
                self.sim.schedule_at(fin, self.broadcast, j, rnd)

    def broadcast(self, j, rnd):
        for k, i in enumerate(rnd.parts.tolist()):
            if i == j:
                self.reduced_in(i, k, rnd)
            else:
                self.send(j, i, rnd.x[j], self.reduced_in, i, k, rnd)

    def reduced_in(self, i, k, rnd):
        got, key = self.got, (i, rnd.index)
        got[key] = got.get(key, 0) + 1
        if got[key] == rnd.reducers.size:
            now = self.sim.now
            rnd.done[k] = now
            rnd.n_done += 1
            if rnd.n_done == self.p:
                rnd.finish = now
            self.start[i] = now
            self.compute(i)
