"""Seed 000 Alg. 3 (SELECTIVEREDUCE) as an event-driven controller.

The per-round grouping logic (BAG, BPAWR) is
:func:`simlib.papers.selective_reduce.algorithms.plan_round`.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from simlib.core.validate import check_int, check_real
from simlib.runtime.baselines import QueueController

from .algorithms import plan_round

__all__ = ["SelectiveReduceController"]

class SelectiveReduceController(QueueController):
    """Seed 000 Alg. 3 (SELECTIVEREDUCE) as an event-driven controller.

    The loop of Alg. 3 alternates "process the queue" (lines 5–23) with
    "wait up to Δt for the next ready worker" (line 24).  Here a ready worker
    triggers processing at once (lines 25–26 then 5–23), and while at least p
    workers are queued a Δt timer re-runs the processing if nobody arrives
    (line 24's timeout).  With fewer than p queued workers the timeout can
    change nothing, so no timer is kept.

    Parameters (000 Table II): ``p`` minimum group size, ``eta`` BAG's
    tolerance, ``theta`` BPAWR's waiting threshold, ``dt`` Δt (s), ``v`` model
    size (bits) and ``alpha`` (s) for Eq. (2)/line 15, ``c`` full-sync period
    (None: never; the paper gives no default), ``progress`` the progress
    model (:mod:`simlib.papers.selective_reduce.progress`: called as
    ``(ids, elapsed, dt) -> probabilities``, attached with the controller);
    ``bandwidth_estimate`` callable ``(ids) -> estimated bits/s``;
    ``observe`` optional callable fed every measured compute time (cold start).

    Alg. 3 increments k only after partial syncs (line 20), so once
    ``k % c == 0`` it would never leave full syncs; we count every sync.

    Into the schedule log it writes the start of every hold (a queued
    worker told to wait although its group could have launched: BPAWR's
    "wait and replace"), from which :func:`simlib.runtime.metrics.wasted_wait`
    derives Fig. 7's wasted wait, and the ``controller_rounds`` counter (one
    per pass of lines 8–22).
    """

    def __init__(self, p: int, eta: float, theta: float, dt: float, v: float, *,
                 progress, bandwidth_estimate: Callable, alpha: float = 0.0,
                 c: int | None = None, observe: Callable[[float], None] | None = None,
                 base_rule: str = "text", tx_form: str = "approx"):
        super().__init__()
        self.p = check_int("p", p, 1)
        self.eta = check_real("eta", eta, 0.0, 1.0, hi_open=True)
        self.theta = check_real("theta", theta, 0.0, allow_inf=True)
        self.dt = check_real("dt", dt, 0.0, lo_open=True)
        self.v = check_real("v", v, 0.0)
        self.alpha = check_real("alpha", alpha, 0.0)
        self.c = None if c is None else check_int("c", c, 1)
        self.base_rule = base_rule
        self.tx_form = tx_form
        self.progress = progress
        self.bandwidth_estimate = bandwidth_estimate
        self.observe = observe
        self.k = 0
        self._timer = None
        self._held: set[int] = set()   # queued workers whose hold is logged and still open

    def attach(self, cluster) -> None:
        if self.p > cluster.n:
            raise ValueError(f"p must be in [1, n={cluster.n}], got {self.p}")
        super().attach(cluster)
        self.progress.attach(cluster)

    def on_ready(self, w: int, compute_time: float) -> None:
        if self.observe is not None:
            self.observe(compute_time)
        super().on_ready(w, compute_time)

    def _on_timeout(self) -> None:
        self._timer = None
        self.process()

    def process(self) -> None:
        cl = self.cluster
        full_round = self.c is not None and self.k % self.c == 0
        if full_round:
            if len(self.queue) == cl.n:                       # lines 5-7
                group, self.queue = self.queue, []
                self._launch(group, "full")
        elif len(self.queue) >= self.p:                       # line 8
            cl.count("controller_rounds")
            q = np.asarray(self.queue, dtype=np.int64)
            train = cl.training_workers()                     # line 10
            est = self.bandwidth_estimate(np.concatenate([q, train]))  # line 9
            plan = plan_round(
                q.tolist(), est[: q.size], train, est[q.size:], cl.elapsed(train),
                p=self.p, eta=self.eta, theta=self.theta, dt=self.dt, v=self.v,
                completion_prob=self.progress, alpha=self.alpha,
                base_rule=self.base_rule, tx_form=self.tx_form)   # lines 11-22
            launched = set()
            for group in plan.launch:
                launched.update(group)
                self._launch(list(group), "partial")
            new_holds = [int(w) for w in plan.held if w not in launched and w not in self._held]
            if new_holds:
                self._held.update(new_holds)
                cl.record_hold(new_holds)
            if launched:
                self.queue = [w for w in self.queue if w not in launched]
        self._arm()

    def _launch(self, group: list[int], kind: str) -> None:
        self._held.difference_update(group)
        self.cluster.launch(group, kind=kind)
        self.k += 1                                            # line 20, counting every sync

    def _arm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if len(self.queue) >= self.p:                          # line 24: GetReadyWorkerID(Δt)
            self._timer = self.cluster.sim.schedule(self.dt, self._on_timeout)
