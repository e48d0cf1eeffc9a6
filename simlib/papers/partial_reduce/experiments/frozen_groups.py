"""Seed 002 §4: a schedule where plain FIFO partial reduce freezes into isolated groups.

Four workers, P = 2, deterministic compute times: workers 0 and 1 take
``fast_s`` per iteration, workers 2 and 3 take ``slow_s``.  With a FIFO queue
the two fast workers are always ready together and so are the two slow ones,
so the groups are {0, 1} and {2, 3} forever: the sync graph is disconnected
and ρ(E[W]) = 1 (two independent trainings).  The group filter of 002 §4
detects the disconnected graph and bridges the components.
"""
from __future__ import annotations

from simlib.runtime.cluster import Cluster, ScriptedComputeTimes
from simlib.runtime.baselines import PartialReduceController
from simlib.papers.partial_reduce.group_filter import GroupFilter
from simlib.papers.partial_reduce.experiments.mixing import schedule_rho

__all__ = ["run"]


def run(use_filter: bool, fast_s: float = 1.0, slow_s: float = 1.3, duration_s: float = 60.0,
        window: int | None = None, iterations: int = 10_000):
    """Simulate the frozen-group case; returns (schedule log, rho, distinct groups, filter holds)."""
    compute = ScriptedComputeTimes([[fast_s] * iterations] * 2 + [[slow_s] * iterations] * 2)
    gf = GroupFilter(4, 2, T=window) if use_filter else None
    ctrl = PartialReduceController(2, group_filter=gf)
    cl = Cluster.big_switch([10e9] * 4, compute, ctrl, model_bits=1e6, alpha=0.0, duration=duration_s,
                            sync_model="eq2_exact")
    log = cl.run()
    groups = {tuple(sorted(s.members)) for s in log.syncs}
    return log, schedule_rho(log), sorted(groups), (gf.holds if gf is not None else 0)
