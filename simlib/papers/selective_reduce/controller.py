"""Seed 000 Alg. 3 (SELECTIVEREDUCE) as an event-driven controller.

The per-round grouping logic (BAG, BPAWR) is that of
:func:`simlib.papers.selective_reduce.algorithms.plan_round`, run here on the
controller's own arrays without re-validating them: the ready queue is kept in
BAG's order (bandwidth, then arrival) as workers arrive, and the pass over the
workers in training is one compiled kernel
(:func:`simlib.papers.selective_reduce.kernels.round_pass`).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from simlib.core.validate import check_array, check_int
from simlib.runtime.cluster import COMPUTING
from simlib.runtime.controller import ControllerBase
from simlib.workloads.bandwidth import ErrorEstimator
from simlib.workloads.traces import OnlineECDF

from . import incremental, kernels
from .algorithms import _base_size, _call_completion_prob
from .progress import ConditionalProgress, TraceProgress

__all__ = ["SelectiveReduceController"]


class SelectiveReduceController(ControllerBase):
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
    ``(ids, elapsed, dt) -> probabilities``, attached with the controller; the
    built-in models are evaluated in the compiled pass, any other callable is
    called once per group as :func:`plan_round` does);
    ``bandwidth_estimate`` either a callable ``(ids) -> estimated bits/s``,
    asked once per pass (line 9) about the queue in arrival order then the
    workers in training, or an array of per-worker estimates (bits/s, > 0)
    that do not change during the run, which lets the queue stay sorted as
    workers arrive instead of being sorted every pass;
    ``observe`` optional callable fed every measured compute time (cold start);
    ``incremental`` (default True) keeps the workers in training in classes and runs
    :func:`~simlib.papers.selective_reduce.incremental.fast_round_plan` where it applies
    (fixed estimates, a progress model of elapsed time only), the full pass
    (``kernels.round_plan``, the reference) where it is unsure or does not apply: the same
    schedule either way (decision E21); ``fallback_rounds`` counts the passes it left to
    the reference.

    The knobs (``eta``, ``theta``, ``dt``, ``c``, ``base_rule``, ``tx_form``;
    ``v`` and ``alpha`` from the cluster's ``model_mb`` and ``alpha_s``) are
    checked once, where they are declared
    (:class:`~simlib.papers.selective_reduce.scenario.SelectiveReduceParams`,
    :class:`~simlib.papers.cluster_scenario.Scenario`), not again here; the
    controller checks what is not a scenario parameter: ``p`` (derived from
    the fraction p), ``progress`` and ``bandwidth_estimate``.

    Alg. 3 increments k only after partial syncs (line 20), so once
    ``k % c == 0`` it would never leave full syncs; we count every sync.

    Into the schedule log it writes the start of every hold (a queued
    worker told to wait although its group could have launched: BPAWR's
    "wait and replace"), from which :func:`simlib.runtime.metrics.wasted_wait`
    derives Fig. 7's wasted wait, and the ``controller_rounds`` counter (one
    per pass of lines 8–22).
    """

    def __init__(self, p: int, eta: float, theta: float, dt: float, v: float, *,
                 progress, bandwidth_estimate, alpha: float = 0.0,
                 c: int | None = None, observe: Callable[[float], None] | None = None,
                 base_rule: str = "text", tx_form: str = "approx"):
        self.p = check_int("p", p, 1)
        self.eta, self.theta, self.dt, self.v, self.alpha = eta, theta, dt, v, alpha
        self.c, self.base_rule, self.tx_form = c, base_rule, tx_form
        if not callable(progress):
            raise ValueError(f"progress must be a callable (ids, elapsed, dt) -> probabilities, got {progress!r}")
        if callable(bandwidth_estimate):
            self._fixed_bw = None
        else:
            self._fixed_bw = check_array("bandwidth_estimate", bandwidth_estimate, lo=0.0, lo_open=True)
        self.progress = progress
        self.bandwidth_estimate = bandwidth_estimate
        self.observe = observe
        self.k = 0
        self._timer = None
        self._base = _base_size(self.p, self.base_rule)
        self._eq2 = self.tx_form == "eq2"
        self._spec = getattr(progress, "kernel_spec", kernels.callback_spec)
        self.incremental = True     # set False before the run for the reference pass on every round (E21)
        self.fallback_rounds = 0

    def attach(self, cluster) -> None:
        n = cluster.n
        if self.p > n:
            raise ValueError(f"p must be in [1, n={n}], got {self.p}")
        if self._fixed_bw is not None and self._fixed_bw.size != n:
            raise ValueError(f"bandwidth_estimate must have one entry per worker ({n}), got {self._fixed_bw.size}")
        super().attach(cluster)
        self.progress.attach(cluster)
        # what the passes read of the workers: the cluster's own arrays (writable) rather than its read-only
        # views (cluster.workers()), so numba compiles round_plan / build_classes once for this controller and
        # the compiled turn instead of again for read-only arrays; the passes only read them
        self._kworkers = (cluster.phase, cluster.compute_start, cluster.compute_finish)
        # the ready queue Q: ids[h:h + qlen] (h = self._qhead), in BAG's order with fixed estimates (an
        # insertion shifts the shorter side: kernels.queue_insert), else in arrival order (h = 0)
        self._qids = np.empty(2 * n + 1, np.int64)
        self._qbw = np.empty(2 * n + 1)
        self._qlen = 0
        self._qhead = n if self._fixed_bw is not None else 0
        self._seq = np.zeros(n, np.int64)          # arrival number of each queued worker (FIFO order)
        self._arrivals = 0
        self._holding = np.zeros(n, dtype=bool)     # queued workers whose hold is logged and still open
        self._qheld = np.zeros((2 * n + 1) // 8 * 8 + 8, bool)   # the same by queue position (fixed estimates)
        self._bw_all = self._fixed_bw if self._fixed_bw is not None else np.empty(n)
        self._fbuf, self._ibuf = kernels.work_buffers(n)
        self._par = kernels.PassParams(now=0.0, dt=float(self.dt), eta=float(self.eta), theta=float(self.theta),
                                       v=float(self.v), alpha=float(self.alpha), computing=COMPUTING,
                                       base=self._base, p=self.p, eq2=self._eq2)
        self._fixed_spec = self._spec() if getattr(self.progress, "kernel_spec_fixed", False) else None
        self._classes = None                        # the workers in training by start (incremental pass)
        if self.incremental and self._fixed_bw is not None and self._spec().kind in incremental.FAST_KINDS:
            self._classes = incremental.Classes(n, self._fixed_bw)
            self._classes_stale = True              # rebuilt before the next pass

    @property
    def queue(self) -> list[int]:
        """The ready queue Q in arrival (FIFO) order."""
        ids = self._qids[self._qhead:self._qhead + self._qlen]
        if self._fixed_bw is not None:
            ids = ids[np.argsort(self._seq[ids], kind="stable")]
        return ids.tolist()

    def on_ready(self, w: int, compute_time: float) -> None:
        if self.observe is not None:
            self.observe(compute_time)
        cls = self._classes
        if cls is not None and not self._classes_stale:                 # w left S
            incremental.remove_worker(w, cls.cint, cls.fen, cls.loc, cls.bw, cls.qscale)
        self._seq[w] = self._arrivals                       # line 26: push w to Q
        self._arrivals += 1
        if self._fixed_bw is not None:
            self._qhead, self._qlen = kernels.queue_insert(self._qids, self._qbw, self._qheld, self._qhead, self._qlen,
                                                           w, self._fixed_bw[w])
        else:
            self._qids[self._qlen] = w
            self._qlen += 1
        self.process()

    def on_sync_done(self, record) -> None:
        if self._classes is not None:               # its members started training: a new class
            self._classes_stale = True

    def _on_timeout(self) -> None:
        self._timer = None
        self.process()

    def process(self) -> None:
        cl = self.cluster
        full_round = self.c is not None and self.k % self.c == 0
        if full_round:
            if self._qlen == cl.n:                             # lines 5-7
                group = self.queue
                self._qlen = 0
                self._launch(group, "full")
        elif self._qlen >= self.p:                             # line 8
            cl.count("controller_rounds")
            self._partial_round()
        self._arm()

    def _partial_round(self) -> None:
        """Alg. 3 lines 9-22 (one pass of :func:`plan_round` on the controller's arrays)."""
        cl = self.cluster
        qlen, h = self._qlen, self._qhead
        q_held = self._qheld[h:h + qlen]
        if self._fixed_bw is not None:
            q_ids, q_bw = self._qids[h:h + qlen], self._qbw[h:h + qlen]
            order = None
        else:                                                  # line 9: fresh estimates, BAG line 2 sort
            fifo = self._qids[:qlen]
            train = cl.training_workers()
            est = check_array("bandwidth_estimate result",
                              self.bandwidth_estimate(np.concatenate([fifo, train])), lo=0.0, lo_open=True)
            if est.size != qlen + train.size:
                raise ValueError(f"bandwidth_estimate must return one bandwidth per id ({qlen + train.size}), "
                                 f"got {est.size}")
            order = np.argsort(-est[:qlen], kind="stable")
            q_ids, q_bw = fifo[order], est[:qlen][order]
            self._bw_all[train] = est[qlen:]
        fbuf, ibuf = self._fbuf, self._ibuf
        # plain tuples of the kernels' NamedTuples' fields: cheaper to pass (kernels.round_pass)
        par = tuple(self._par._replace(now=float(cl.sim.now)))
        model = self._spec() if self._fixed_spec is None else self._fixed_spec
        phase, cstart, cfin = self._kworkers
        workers = (phase, self._bw_all, cstart, cfin)
        status = incremental.UNSURE
        if self.incremental and self._classes is not None:     # lines 10-22 on the classes (E21)
            c = self._classes
            if self._classes_stale:
                c.count = incremental.build_classes(phase, COMPUTING, cstart, self._bw_all, c.qscale,
                                                    c.start, c.cint, c.bw, c.fen, c.loc)
                self._classes_stale = False
            status, n_runs, n_launch, n_new = incremental.fast_round_plan(
                q_ids, q_bw, self._qheld, h, self._holding, par, tuple(model),
                (c.count, c.start, c.cint, c.bw, c.fen, c.qscale), ibuf)
            self.fallback_rounds += status == incremental.UNSURE
        if status == incremental.SURE:                         # done: runs and new holds in ibuf
            pass
        elif model.kind != kernels.KIND_CALLBACK:              # lines 10-22 in one compiled call (reference)
            n_runs, n_launch, n_new = kernels.round_plan(workers, q_ids, q_bw, self._holding, par, tuple(model),
                                                         fbuf, ibuf)
            if n_new and order is None:
                q_held[:] = self._holding[q_ids]
        else:                                                  # a Python progress model: line 26 per group
            ng = kernels.round_pass(workers, q_bw, par, tuple(model), fbuf, ibuf)
            off = ibuf[kernels.I_OFF]
            for i in range(ng):
                a, b = off[i], off[i + 1]
                if b > a:
                    pr = _call_completion_prob(self.progress, ibuf[kernels.I_IDS, a:b].copy(),
                                               fbuf[kernels.F_ELAPSED, a:b].copy(), self.dt)
                    fbuf[kernels.F_PROBS, a:b] = pr
                    pos = pr > 0.0
                    if pos.any():
                        bws = fbuf[kernels.F_BWS, a:b][pos]
                        fbuf[kernels.F_LO, i], fbuf[kernels.F_HI, i] = bws.min(), bws.max()
            n_runs = kernels.plan_groups(q_bw, ng, par, fbuf, ibuf)
            n_launch = int(ibuf[kernels.I_RUN_LAUNCH, :n_runs].sum())
            n_new = kernels.new_holds(q_ids, n_runs, self._holding, ibuf)
            if n_new and order is None:
                q_held[:] = self._holding[q_ids]
        if n_launch:
            keep = np.ones(qlen, dtype=bool)
            for s, e, go in ibuf[kernels.I_RUN_S:kernels.I_RUN_LAUNCH + 1, :n_runs].T.tolist():
                if go:
                    keep[s:e] = False
                    self._launch(q_ids[s:e].tolist(), "partial")
        if n_new:
            cl.record_hold(ibuf[kernels.I_HOLD, :n_new].tolist())
        if n_launch:                                           # line 18: pop the launched workers
            if order is not None:
                keep_fifo = np.empty(qlen, dtype=bool)
                keep_fifo[order] = keep
                keep = keep_fifo
            rest = self._qids[h:h + qlen][keep]
            self._qlen = rest.size
            if order is None:                                  # re-centred in the buffer
                h2 = (self._qids.size - rest.size) // 2
                self._qbw[h2:h2 + rest.size] = self._qbw[h:h + qlen][keep]
                self._qheld[h2:h2 + rest.size] = q_held[keep]
                self._qhead = h = h2
            self._qids[h:h + rest.size] = rest

    # ----------------------------------------------------------- the compiled cluster loop (decision N14)
    def _cold_ecdf(self) -> OnlineECDF | None:
        """The cold start's ECDF (cdf 'cold'): the :class:`OnlineECDF` of a built-in progress model that
        ``observe`` feeds and nothing else; else None."""
        d = getattr(self.progress, "dist", None)
        if (type(d) is OnlineECDF and type(self.progress) in (TraceProgress, ConditionalProgress)
                and self.observe == d.observe):
            return d
        return None

    def compiled_turns_unsupported(self) -> str | None:
        """Why the compiled cluster loop cannot take this controller's turns (:mod:`.compiled`), or None."""
        est = self.bandwidth_estimate
        if self._fixed_bw is None:
            if type(est) is not ErrorEstimator:
                return "selective reduce with bandwidth estimates from a callable other than error_estimator's"
            with np.errstate(over="ignore"):
                if not (est.b > 0.0).all() or not np.isfinite(est.b * est.e).all():
                    return ("selective reduce with estimates drawn per decision of a zero bandwidth or with an error "
                            "scale e whose b e overflows")
        cold = self._cold_ecdf()
        if (self.observe is not None or self._fixed_spec is None) and cold is None:
            return "selective reduce with a progress model that learns during the run other than cdf 'cold'"
        if self._spec().kind == kernels.KIND_CALLBACK:
            return "selective reduce with a Python progress model"
        return None

    def compiled_turns(self):
        """``(loop, state, finish, handlers)`` for :func:`simlib.runtime.cluster_kernel.run_compiled`: the
        compiled loop with this controller's turn (:func:`.compiled.turns_loop`), ``state()`` the turn's state
        (this controller's own arrays, changed in place, and the cold start's ECDF parts and the per-decision
        error's draws, empty arrays in a run that learns neither), ``finish(iv)``, which writes its scalars, the ECDF and the error
        generator's state back after the run (``iv``: the loop's integer scalars; the timer is left unset: the run
        is over), and the handlers of the loop's requests (:data:`.compiled.NEED_ERRORS`,
        :data:`.compiled.NEED_ECDF`)."""
        from . import compiled
        si = np.zeros(compiled.N_SI, np.int64)
        si[[compiled.S_QHEAD, compiled.S_QLEN, compiled.S_ARRIVALS, compiled.S_K, compiled.S_P, compiled.S_N]] = (
            self._qhead, self._qlen, self._arrivals, self.k, self.p, self.cluster.n)
        si[compiled.S_C] = 0 if self.c is None else self.c
        c = self._classes
        si[compiled.S_CLS] = c is not None
        si[compiled.S_INCR] = self.incremental and c is not None
        si[compiled.S_STALE] = c is not None and self._classes_stale
        if c is None:
            classes = (np.zeros(0), np.zeros((3, 0), np.int64), np.zeros(0), np.zeros((2, 0), np.int64),
                       np.zeros((2, 0), np.int64), 1.0)
        else:
            si[compiled.S_COUNT] = c.count
            classes = (c.start, c.cint, c.bw, c.fen, c.loc, float(c.qscale))
        model = self._spec()
        ecdf = self._cold_ecdf()
        parts = {"main": np.zeros(0), "buf": np.zeros(0)}
        if ecdf is not None:                        # the ECDF's sorted parts, with room to grow (NEED_ECDF)
            si[compiled.S_COLD] = 1
            main, buf = ecdf.sorted_parts()
            si[compiled.S_MLEN], si[compiled.S_BLEN] = main.size, buf.size

            def more_room():
                m, b = int(si[compiled.S_MLEN]), int(si[compiled.S_BLEN])
                grown = {"main": np.empty(max(2 * parts["main"].size, m + b + 1024)),
                         "buf": np.empty(max(2 * parts["buf"].size, b + 1 + compiled.ECDF_MIN_BUFFER))}
                grown["main"][:m] = parts["main"][:m]
                grown["buf"][:b] = parts["buf"][:b]
                parts.update(grown)
            parts.update(main=main, buf=buf)
            more_room()
        est = self.bandwidth_estimate
        draws = {"u": np.zeros(0), "used": 0, "state": None}
        error = (np.zeros(0), draws["u"], np.zeros(2))
        if self._fixed_bw is None:                  # per-decision error: the generator's uniforms in blocks
            si[compiled.S_ERR] = 1
            draws["state"] = est.rng.bit_generator.state
            draws["u"] = np.empty(max(256 * self.cluster.n, 4096))
            error = (est.b, draws["u"], np.array([est.e, est.floor]))

            def more_errors():
                u, pos, end = draws["u"], int(si[compiled.S_UPOS]), int(si[compiled.S_ULEN])
                draws["used"] += pos
                u[:end - pos] = u[pos:end]
                u[end - pos:] = est.rng.random(u.size - (end - pos))
                si[compiled.S_UPOS], si[compiled.S_ULEN] = 0, u.size

        def state():
            return compiled.turn_state(si, self._par[1:], model, (self._qids, self._qbw, self._qheld, self._seq),
                                       self._holding, self._bw_all, (self._fbuf, self._ibuf), classes,
                                       (parts["main"], parts["buf"], *error))

        def finish(iv):
            self._qhead, self._qlen, self._arrivals, self.k = (int(si[i]) for i in (
                compiled.S_QHEAD, compiled.S_QLEN, compiled.S_ARRIVALS, compiled.S_K))
            self.fallback_rounds += int(si[compiled.S_FALLBACK])
            if c is not None:
                c.count = int(si[compiled.S_COUNT])
                self._classes_stale = bool(si[compiled.S_STALE]) or iv[compiled.ck.I_NDONE] != si[compiled.S_DONE]
            self._timer = None
            if si[compiled.S_ROUNDS] > 0:
                self.cluster.count("controller_rounds", int(si[compiled.S_ROUNDS]))
            if ecdf is not None:
                ecdf.set_sorted_parts(parts["main"][:si[compiled.S_MLEN]], parts["buf"][:si[compiled.S_BLEN]])
            if draws["state"] is not None:          # the generator as the Python loop leaves it: `used` draws on
                _advance_generator(est.rng, draws["state"], draws["used"] + int(si[compiled.S_UPOS]))
        handlers = {}
        if ecdf is not None:
            handlers[compiled.NEED_ECDF] = more_room
        if self._fixed_bw is None:
            handlers[compiled.NEED_ERRORS] = more_errors
        return compiled.turns_loop, state, finish, handlers

    def _launch(self, group: list[int], kind: str) -> None:
        self._holding[group] = False
        self.cluster.launch(group, kind=kind)
        self.k += 1                                            # line 20, counting every sync

    def _arm(self) -> None:
        """Line 24, GetReadyWorkerID(Δt): (re)start the Δt timeout while >= p workers are queued."""
        if self._qlen >= self.p:
            if self._timer is None:
                self._timer = self.cluster.sim.schedule(self.dt, self._on_timeout)
            else:                                              # = cancel and schedule anew, in O(1)
                self.cluster.sim.postpone(self._timer, self.dt)
        elif self._timer is not None:
            self._timer.cancel()
            self._timer = None


def _advance_generator(rng: np.random.Generator, state: dict, k: int) -> None:
    """Put ``rng`` in the state ``k`` calls of ``next_double`` (``random()``) take it to from ``state``: PCG64's
    ``advance`` (one 64-bit step a double; its cached 32-bit half as in ``state``), else the draws themselves."""
    bg = rng.bit_generator
    bg.state = state
    if type(bg) is np.random.PCG64:
        bg.advance(k)
        now = bg.state
        now["has_uint32"], now["uinteger"] = state["has_uint32"], state["uinteger"]
        bg.state = now
        return
    while k > 0:
        rng.random(min(k, 1 << 20))
        k -= min(k, 1 << 20)
