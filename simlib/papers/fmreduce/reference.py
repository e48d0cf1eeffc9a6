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
    n = b.shape[0]
    v = float(model_bits)
    mesh = FullMesh(np.where(np.eye(n, dtype=bool), 0.0, b))
    sim = Simulator()
    net = FlowNetwork(mesh.capacities, sim, sharing="maxmin" if sharing == "fs" else "priority")
    arrivals = iter(range(1 << 62))
    predefined = None
    if mode == "nonblocking":
        predefined = lp_split(v, b, solver=lp_solver) if split == "lp" else even_split(v, n)
    held = [set() for _ in range(n)]          # reducer j: workers whose current block is at j
    pending = [[] for _ in range(n)]          # reducer j: announced rounds not yet reduced
    busy_until = [0.0] * n
    checking = set()                          # reducers whose blocks are counted at the end of this instant
    leader_check = []                         # non-blocking: the leader's end-of-instant check, if scheduled
    queue: deque = deque()
    start = np.zeros(n)
    ready = np.zeros(n)
    at_leader = np.zeros(n)                   # non-blocking: when each queued worker's blocks reached the leader
    to_leader = {}                            # non-blocking: worker -> its block's flow to the leader, in flight
    due = np.full(n, np.inf)                  # when each computing worker's compute ends (s)
    got = {}                                  # (worker, round index) -> reduced blocks received
    rounds: list[Round] = []

    def send(src, dst, bits, cb):
        return net.add_flow(mesh.unicast(src, dst), bits, priority=next(arrivals), on_done=lambda f: cb())

    def enqueue(i, when):
        """FM3: workers queued at one instant (``when``: ready times if blocking, arrivals at the
        leader if not) stand in id order behind everyone queued earlier."""
        same = sim.now - SAME_INSTANT * sim.now
        k = len(queue)
        while k > 0 and queue[k - 1] > i and when[queue[k - 1]] >= same:
            k -= 1
        queue.insert(k, i)

    def compute_done(i):
        now = ready[i] = sim.now
        due[i] = np.inf
        if mode == "blocking":                # FM3: rounds form once every worker ready now is in
            enqueue(i, ready)
            if not (due <= now + SAME_INSTANT * now).any():
                while len(queue) >= p:
                    announce()
        else:
            scatter(i, predefined, range(n))

    def scatter(i, x, reds):
        for j in reds:
            if j == i:
                block_in(i, j)
            else:
                flow = send(i, j, x[j], lambda i=i, j=j: block_in(i, j))
                if mode == "nonblocking" and j == LEADER:
                    to_leader[i] = flow

    def block_in(i, j):
        held[j].add(i)
        if mode == "nonblocking" and j == LEADER:
            to_leader.pop(i, None)
            at_leader[i] = sim.now
            enqueue(i, at_leader)
            if not leader_check:              # FM3: the leader announces after this instant's blocks
                leader_check.append(sim.schedule(0.0, leader_checked))
        if j not in checking:                 # after every block arriving at j at this instant (FM15)
            checking.add(j)
            sim.schedule(0.0, checked, j)

    def leader_checked():
        leader_check.clear()
        if len(queue) >= p and not arriving():
            while len(queue) >= p:
                announce()

    def arriving():
        """A block is still due at the leader within this instant (``SAME_INSTANT``): a compute
        ending by then whose block reaches the leader at once (the leader's own; anyone's if the
        leader's share is empty), or a flow to the leader the network will finish by then (within
        its N6 completion tolerance) or has finished without calling back yet."""
        end = sim.now + SAME_INSTANT * sim.now
        if due[LEADER] <= end or (predefined[LEADER] <= 0.0 and (due <= end).any()):
            return True
        for f in to_leader.values():
            left = f.remaining - completion_tol(f.volume)
            if left <= 0.0 or (f.rate > 0.0 and sim.now + left / f.rate <= end):
                return True
        return False

    def checked(j):
        checking.discard(j)
        try_reduce(j)

    def announce():
        parts = np.array([queue.popleft() for _ in range(p)], dtype=np.int64)
        reds = np.arange(n) if reducers == "all" else np.sort(parts)
        if mode == "blocking":
            x = lp_split(v, b, parts, reds, solver=lp_solver) if split == "lp" else even_split(v, n, reds)
        else:
            x = predefined
        rnd = Round(len(rounds), parts, reds, x, sim.now, start[parts].copy(), ready[parts].copy(),
                    done=np.full(p, np.nan))
        rounds.append(rnd)
        for j in reds.tolist():
            pending[j].append(rnd)
        if mode == "blocking":
            for i in parts.tolist():
                scatter(i, x, reds.tolist())
        for j in reds.tolist():
            try_reduce(j)

    def try_reduce(j):
        for rnd in list(pending[j]):
            members = set(rnd.parts.tolist())
            if members <= held[j]:
                pending[j].remove(rnd)
                held[j] -= members
                rnd.all_in[j] = sim.now
                fin = max(sim.now, busy_until[j]) + reduce_s_per_mb * p * rnd.x[j] / MB
                busy_until[j] = fin
                sim.schedule_at(fin, broadcast, j, rnd)

    def broadcast(j, rnd):
        for k, i in enumerate(rnd.parts.tolist()):
            if i == j:
                reduced_in(i, k, rnd)
            else:
                send(j, i, rnd.x[j], lambda i=i, k=k: reduced_in(i, k, rnd))

    def reduced_in(i, k, rnd):
        key = (i, rnd.index)
        got[key] = got.get(key, 0) + 1
        if got[key] == rnd.reducers.size:
            rnd.done[k] = sim.now
            rnd.n_done += 1
            if rnd.n_done == p:
                rnd.finish = sim.now
            start[i] = sim.now
            compute(i)

    def compute(i):
        due[i] = sim.schedule(compute_time(i), compute_done, i).time

    for i in range(n):
        compute(i)
    sim.run(until=duration_s)
    return summarize_rounds(rounds, p, duration_s)
