"""The simulated SSP peer-to-peer cluster of seed 004 §III-C / §IV-A2 / §IV-C.

``n`` workers on one big switch (host i: ingress link i, egress link n + i).
Each worker loops (decision SM52):

1. compute one iteration (a draw from the trace, seconds);
2. become ready: the manager chooses receivers (SelMcast: Algorithm 2, which
   may also drop receivers of ongoing multicasts; Orpheus: random p with the
   k-round rule, no preemption);
3. multicast its model (L3: one flow over its ingress and every receiver's
   egress at one rate; L7: one unicast flow per receiver) and wait until the
   multicast ends (the sender blocks, as tau_i's definition implies);
4. SSP gate: with r_i completed rounds it moves on iff r_i - min_j r_j <= ssp,
   else it waits until the slowest workers catch up (SM58); then back to 1.

A receiver dropped by Algorithm 2 leaves the flow at once (L3: its egress
link is removed from the flow; L7: its unicast flow is removed).  Flows share
links by per-flow max-min, as §IV-A1 states for every experiment (SM50); the
reading ``sharing="priority"`` serves SelMcast's multicasts by strict priority
instead (in the order Algorithm 2 processed the tasks, or in start order;
max-min inside a class, work-conserving), Orpheus staying max-min.  With ``gamma`` > 0 every link's capacity is re-drawn every
``period_s`` (§IV-C6, SM56).

Two implementations run this model (decision SM68): ``engine="compiled"``
(default; the numba event loop of :mod:`simlib.papers.selmcast.ssp_kernel`)
and ``engine="flow"`` (this module's Python loop on
:class:`~simlib.core.network.FlowNetwork`, the slower reference); the tests
check that they agree on every multicast, receiver, drop and time.

The run writes an :class:`SSPLog` (what happened, independent of metrics);
:mod:`simlib.papers.selmcast.ssp_metrics` turns it into numbers.
Units: seconds, bits, bits/s.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, make_dataclass

import numpy as np

from simlib.core.gc_pause import gc_paused
from simlib.core.network import FlowNetwork
from simlib.core.validate import check_choice, check_int
from simlib.runtime.capture import big_switch_link_names, watch_flows
from simlib.runtime.kernel_driver import DrawBuffer, drive
from simlib.workloads.traces import Trace

from . import ssp_kernel as kernel
from .orpheus import orpheus_receivers
from .ssp_kernel import BASE, BLOCKED, COMPUTING, GAP, MULTICASTING, READD_MIN, place_classes, residual_tables
from .ssp_selection import Plan, Rules, select_ssp

__all__ = ["SSPLog", "MulticastRecord", "MulticastTable", "SSPCluster", "engine_bound", "mean_residual", "SCHEMES",
           "LAYERS", "TAU_ESTIMATES", "SHARINGS", "PRIORITY_ORDERS", "ENGINES"]

SCHEMES = ("selmcast", "orpheus")
LAYERS = ("L3", "L7")
#: tau_i from the trace's expected residual compute time ("trace"), the straggler's true
#: remaining compute time ("oracle"), or always 0 ("zero"); decision SM51.
TAU_ESTIMATES = ("trace", "oracle", "zero")
#: "maxmin": per-flow max-min for both schemes (§IV-A1, line 310: "by default"); "priority": SelMcast's
#: multicasts strictly prioritized (§III-C2, line 298), Orpheus still max-min (decision SM50).
SHARINGS = ("maxmin", "priority")
#: The order of strict priority (used with sharing="priority", SM50): "algorithm2" -- the order in which
#: Algorithm 2 processed the tasks at its last call (line 13's L); "fifo" -- multicast start order.
PRIORITY_ORDERS = ("algorithm2", "fifo")

#: "compiled": the numba event loop of :mod:`ssp_kernel`; "flow": this module's loop on
#: :class:`~simlib.core.network.FlowNetwork` (the reference; decision SM68).
ENGINES = ("compiled", "flow")


# --------------------------------------------------------------------------- trace helper
def engine_bound(value: int | None, infinite):
    """The SSP threshold or k (rounds) as an engine takes it: the count, or ``infinite`` for the
    scenario's ``None`` ("inf": no SSP gate, no forced pairs): -1 for the compiled loop's ``Config``,
    ``math.inf`` for the reference's comparisons.  The one place "infinite" changes encoding: up to
    here it is ``None`` (:class:`~.ssp_scenario.SSPScenario`, the ``rules`` an :class:`SSPCluster` runs)."""
    return infinite if value is None else int(value)


def mean_residual(trace: Trace, elapsed) -> np.ndarray:
    """E[T - a | T > a] (seconds) for the trace's piecewise-linear distribution, a = ``elapsed``.

    ``elapsed`` >= 0 (scalar or array; returns an array); 0 where a is at or
    beyond the largest sample (the iteration is overdue: "imminent").  At
    a = 0 it equals ``trace.mean``.
    """
    a = np.atleast_1d(np.asarray(elapsed, dtype=float))
    surv, tail = residual_tables(trace.samples)
    return kernel.mean_residual_at(trace.samples, surv, tail, a, np.empty_like(a))


# --------------------------------------------------------------------------- the log
@dataclass
class MulticastRecord:
    """One multicast: ``sender``'s ``round`` (1-based), ready/start and finish times (s).

    ``initial``: receivers chosen when it started; ``delivered``: receivers
    that got the whole model, with ``delivered_at`` their delivery times
    (L3: all equal to ``finish``); ``dropped``: (receiver, time) pairs removed
    while the multicast was running (preemption).  ``finish`` is None if the
    multicast had not ended by the end of the run.  ``sender_iter`` is the
    number of iterations the sender had computed when it became ready.
    """

    sender: int
    round: int
    start: float
    sender_iter: int
    initial: tuple[int, ...]
    finish: float | None = None
    delivered: tuple[int, ...] = ()
    delivered_at: tuple[float, ...] = ()
    dropped: list = field(default_factory=list)


#: The most rows a compiled run's log column (and Orpheus's uniforms) is first sized for (2 M: 32 MB for the
#: receivers' two columns); a run that needs more grows them as before.
FIRST_ROWS_MAX = 2**21
#: Drops per multicast a SelMcast run's log is first sized for: 10-minute n = 50 runs drop ~3.6 receivers a
#: multicast under max-min and ~10 under priority (2026-11-30); grown from 1024 rows by doubling, the drop
#: columns were copied and zero-filled ~7-8 times a run (~3 ms of a trial, issue 48).  Rows no run writes
#: cost no memory (``np.zeros``' pages are mapped when first written).
DROPS_FIRST = 16
#: Orpheus's uniforms: of the room for n x the iteration estimate (at most FIRST_ROWS_MAX), 1 / ORPHEUS_FIRST_PART is
#: drawn before the run and a piece of 1 / ORPHEUS_PIECES of it each time the loop asks for more (10-minute n = 50
#: runs use ~60 % of the room: ~0.9 M of 1.5 M uniforms; the unwritten rest of an ``np.empty`` costs no memory)
ORPHEUS_FIRST_PART = 2
ORPHEUS_PIECES = 8

@dataclass
class MulticastTable(make_dataclass("_Columns", [(name, np.ndarray) for _, _, cols in kernel.LOG_COLUMNS
                                                 for name in cols])):
    """Every multicast of a run as columns (start order); what the metrics read.  The columns are
    declared once, in :data:`.ssp_kernel.LOG_COLUMNS` (the compiled loop writes them as its ``Log``):

    Per multicast (length M): ``sender``, ``round`` (1-based), ``start`` and
    ``finish`` (s; NaN if it had not ended by the end of the run),
    ``sender_iter``, and its receivers at start: ``recv[r0[m]:r0[m] + nr[m]]``
    (ascending ids) with ``recv_at`` the time each got the whole model (NaN if
    it was dropped or the multicast had not ended).  Drops (preemption): row d
    removed receiver ``drop_j[d]`` from multicast ``drop_mc[d]`` at ``drop_t[d]``.
    """

    def __len__(self) -> int:
        return int(self.sender.size)

    def delivered_counts(self) -> np.ndarray:
        """Receivers that got the whole model, per multicast (0 for unfinished ones)."""
        ok = ~np.isnan(self.recv_at)
        r0, end = self.r0, self.r0 + self.nr
        if r0.size and end[-1] == ok.size and np.array_equal(r0[1:], end[:-1]):
            # the receivers' rows in multicast order, back to back (as both engines write them): one sum per
            # multicast with rows (np.add.reduceat; ~6x faster than the cumulative sum below, issue 48)
            out = np.zeros(r0.size, np.int64)
            has = self.nr > 0
            if has.any():
                out[has] = np.add.reduceat(ok.view(np.int8), r0[has], dtype=np.int64)
            return out
        got = np.zeros(ok.size + 1, np.int64)                # got[q]: delivered among rows < q
        np.cumsum(ok, out=got[1:])
        return got[end] - got[r0]

    def drop_counts(self) -> np.ndarray:
        """Receivers dropped while running, per multicast."""
        return np.bincount(self.drop_mc, minlength=len(self)).astype(np.int64)

    def records(self) -> list[MulticastRecord]:
        """The same multicasts as :class:`MulticastRecord` objects."""
        drops = [[] for _ in range(len(self))]
        for m, j, t in zip(self.drop_mc.tolist(), self.drop_j.tolist(), self.drop_t.tolist()):
            drops[m].append((j, t))
        recv, at = self.recv.tolist(), self.recv_at.tolist()
        out = []
        for a, (snd, rnd, st, it, fin, r0, nr) in enumerate(zip(
                self.sender.tolist(), self.round.tolist(), self.start.tolist(), self.sender_iter.tolist(),
                self.finish.tolist(), self.r0.tolist(), self.nr.tolist())):
            r = MulticastRecord(sender=snd, round=rnd, start=st, sender_iter=it,
                                initial=tuple(recv[r0:r0 + nr]), dropped=drops[a])
            if fin == fin:                                   # not NaN: finished
                r.finish = fin
                got = [q for q in range(r0, r0 + nr) if at[q] == at[q]]
                r.delivered = tuple(recv[q] for q in got)
                r.delivered_at = tuple(at[q] for q in got)
            out.append(r)
        return out

    @classmethod
    def from_records(cls, records: list[MulticastRecord]) -> "MulticastTable":
        nr = np.array([len(r.initial) for r in records], np.int64)
        recv, recv_at, drop_mc, drop_j, drop_t = [], [], [], [], []
        for a, r in enumerate(records):
            at = dict(zip(r.delivered, r.delivered_at)) if r.finish is not None else {}
            recv.extend(r.initial)
            recv_at.extend(at.get(j, math.nan) for j in r.initial)
            for j, t in r.dropped:
                drop_mc.append(a)
                drop_j.append(j)
                drop_t.append(t)
        return cls(sender=np.array([r.sender for r in records], np.int64),
                   round=np.array([r.round for r in records], np.int64),
                   start=np.array([r.start for r in records], float),
                   sender_iter=np.array([r.sender_iter for r in records], np.int64),
                   finish=np.array([math.nan if r.finish is None else r.finish for r in records], float),
                   r0=np.concatenate([[0], np.cumsum(nr)[:-1]]).astype(np.int64) if nr.size else nr.copy(),
                   nr=nr, recv=np.array(recv, np.int64), recv_at=np.array(recv_at, float),
                   drop_mc=np.array(drop_mc, np.int64), drop_j=np.array(drop_j, np.int64),
                   drop_t=np.array(drop_t, float))


@dataclass
class SSPLog:
    """Everything one SSP run did (seconds; bandwidths in bits/s).

    ``compute[w]``: (start, end) of every iteration worker ``w`` started
    (``end`` may exceed ``duration``; the compiled engine's built from its arrays on first use); ``table``: the multicasts as columns
    (:class:`MulticastTable`), ``multicasts`` the same as records (built on
    first use); ``blocked[w]``: total time (s) ``w`` waited at the SSP gate
    within the run; ``max_gap``: the largest r_i - min_j r_j seen when a
    worker moved on; ``selections``: calls to the selection scheme;
    ``selection_s``: wall-clock seconds they took (NaN: not timed, the
    compiled engine).
    """

    n: int
    duration: float
    scheme: str
    layer: str
    egress: np.ndarray
    ingress: np.ndarray
    compute: list = field(default_factory=list)
    table: MulticastTable | None = None
    blocked: np.ndarray | None = None
    max_gap: int = 0
    selections: int = 0
    selection_s: float = 0.0
    _records: list | None = field(default=None, repr=False)
    #: the compiled engine's ``compute`` as arrays (starts (n, W), ends (n, W), used (n,) int): worker w's
    #: intervals are its first used[w] columns; what :func:`.ssp_metrics.ssp_metrics` reads when set (a copy
    #: of a log with another ``compute``, e.g. ``dataclasses.replace``, must set it to None)
    _compute_arrays: tuple | None = field(default=None, repr=False, compare=False)

    def __getattr__(self, name: str):
        """``compute`` of the compiled engine's log, built from ``_compute_arrays`` on first use (a sweep's
        trial reads only the arrays: ~18,000 tuples a 10-minute n = 50 run not made, issue 48).  Python
        calls this only for an attribute not found otherwise: ``compute`` once :meth:`SSPCluster._compiled_log`
        has left it unset, never after it is built (it is then an ordinary attribute)."""
        arrays = self.__dict__.get("_compute_arrays") if name == "compute" else None
        if arrays is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        starts, ends, used = arrays
        counts = used.tolist()
        starts, ends = starts.tolist(), ends.tolist()   # one conversion for all workers
        # a tuple of floats is untracked at its first collection: no collections while they are made (issue 48)
        with gc_paused():
            compute = [list(zip(starts[w][:counts[w]], ends[w][:counts[w]])) for w in range(self.n)]
        self.compute = compute
        return compute

    @property
    def multicasts(self) -> list[MulticastRecord]:
        """The multicasts in start order (:class:`MulticastRecord`)."""
        if self._records is None:
            self._records = self.table.records() if self.table is not None else []
        return self._records


# --------------------------------------------------------------------------- the cluster
class SSPCluster:
    """One SSP training run (see the module docstring).

    Parameters (units in names): ``egress``, ``ingress``: (n,) bits/s at time 0;
    ``compute``: object with ``next(w) -> seconds`` (e.g.
    :class:`simlib.runtime.cluster.ComputeTimes`); ``trace``: the compute-time
    distribution the manager assumes for tau_i; ``volume_bits`` > 0; ``p`` in
    [1, n - 1] receivers; ``rules``: the run's knobs, a validated
    :class:`~simlib.papers.selmcast.ssp_scenario.SSPScenario` handed down as it is (its ``scheme``,
    ``layer``, ``ssp`` and ``k`` (rounds; ``None``: infinite), ``eta``, ``sharing``,
    ``priority_order`` and the readings ``tau_estimate``, ``task_order``, ``line32``,
    ``pareto_deadline``; each engine converts ``ssp``/``k`` once, :func:`engine_bound`); ``bandwidth``: optional
    object with ``schedule(t_end) -> (K, 2, n)`` (bits/s; egress, ingress), row k - 1 in force from
    k * ``period_s`` seconds, k = 1..K (every change time up to ``t_end``), e.g. a
    :class:`~simlib.workloads.bandwidth.TimeVaryingBandwidth` whose ``period`` is ``period_s``;
    ``orpheus_rng``: Generator for Orpheus's
    draws; ``engine``: "compiled" (default) or "flow", two implementations of
    the same run (decision SM68).

    The knobs are read from ``rules`` where they are used, not copied or
    checked again; the cluster checks only what the scenario does not fix: the
    port arrays, ``p`` against the number of ports, the trace and generator a
    scheme needs, and the engine.
    """

    def __init__(self, *, egress, ingress, compute, trace: Trace | None, volume_bits: float, p: int,
                 rules, bandwidth=None, period_s: float = 0.1,
                 orpheus_rng: np.random.Generator | None = None, engine: str = "compiled"):
        self.egress = np.array(egress, dtype=float)
        self.ingress = np.array(ingress, dtype=float)
        n = self.n = check_int("n", self.egress.size, lo=2)
        if self.ingress.shape != (n,) or self.egress.ndim != 1:
            raise ValueError(f"ingress must have the same length as egress ({n})")
        if np.any(self.egress <= 0) or np.any(self.ingress <= 0):
            raise ValueError("egress and ingress must be > 0 bits/s")
        self.rules = rules
        self.scheme, self.layer = rules.scheme, rules.layer        # the log's labels
        self.volume = float(volume_bits)
        self.p = check_int("p", p, 1, n - 1)
        # Orpheus has no order to serve its multicasts in: max-min under either reading (SM50, SM65)
        self.sharing = rules.sharing if self.scheme == "selmcast" else "maxmin"
        self.fifo = self.sharing == "priority" and rules.priority_order == "fifo"
        self.period = float(period_s)
        if bandwidth is not None and not callable(getattr(bandwidth, "schedule", None)):
            raise ValueError(f"bandwidth must be None or have a schedule(t_end) method (e.g. a "
                             f"TimeVaryingBandwidth), got {type(bandwidth).__name__}")
        if bandwidth is not None and getattr(bandwidth, "period", self.period) != self.period:
            raise ValueError(f"period_s must equal the bandwidth's period ({bandwidth.period} s), got {self.period}")
        self.bandwidth = bandwidth
        if rules.tau_estimate == "trace" and trace is None and self.scheme == "selmcast":
            raise ValueError("trace must be given when tau_estimate='trace'")
        self.trace = trace
        self._res = (kernel.Residual(trace.samples, *residual_tables(trace.samples), trace.mean) if trace is not None
                     else kernel.Residual(np.ones(1), np.ones(1), np.zeros(1), 0.0))
        self.compute_src = compute
        if self.scheme == "orpheus" and orpheus_rng is None:
            raise ValueError("orpheus_rng must be a numpy.random.Generator for scheme='orpheus'")
        self.orpheus_rng = orpheus_rng
        self.engine = check_choice("engine", engine, ENGINES)

    # ------------------------------------------------------------------ run
    def run(self, duration_s: float) -> SSPLog:
        """Simulate ``duration_s`` seconds (> 0) and return the log.  Inside a timeline capture the flow
        engine's network is watched (``flow_watch``, :func:`simlib.runtime.capture.watch_flows`: its links'
        rates for the timeline); the compiled engine has no network to watch (``flow_watch`` None)."""
        duration = float(duration_s)
        self.flow_watch = None
        if self.engine == "compiled":
            return self._run_compiled(duration)
        return self._run_flow(duration)

    def _new_log(self, duration: float) -> SSPLog:
        return SSPLog(n=self.n, duration=duration, scheme=self.scheme, layer=self.layer,
                      egress=self.egress.copy(), ingress=self.ingress.copy(),
                      compute=[[] for _ in range(self.n)])

    def _bandwidth_schedule(self, duration: float) -> np.ndarray:
        """(K, 2, n) capacities (egress, ingress; bits/s) applied at k * period_s, k = 1..K <= duration;
        both engines apply these rows, so ``bandwidth`` is asked once per run."""
        if self.bandwidth is None:
            return np.zeros((0, 2, self.n))
        return np.asarray(self.bandwidth.schedule(duration), dtype=float).reshape(-1, 2, self.n)

    def _run_compiled(self, duration: float) -> SSPLog:
        """The run on :func:`ssp_kernel.run_loop`, resumed by :func:`~simlib.runtime.kernel_driver.drive`
        whenever it needs more compute draws, log rows or Orpheus uniforms (SM68)."""
        n, l3, r = self.n, self.layer == "L3", self.rules
        bw = self._bandwidth_schedule(duration)
        rules = Rules(eta=float(r.eta), l3=l3, descending=r.task_order == "text", line32_x=r.line32 == "x",
                      deadline_all=r.pareto_deadline == "all")
        cfg = kernel.Config(n=n, l3=l3, selmcast=self.scheme == "selmcast", prio_mode=self.sharing == "priority",
                            fifo=self.fifo,
                            p=self.p, ssp=engine_bound(r.ssp, -1), k=engine_bound(r.k, -1),
                            tau_mode=TAU_ESTIMATES.index(r.tau_estimate), rules=rules, volume=self.volume,
                            duration=duration, period=self.period, res=self._res, bw_sched=bw)
        # compute-time draws (s), taken from the compute source in each worker's order; companion 0:
        # when worker w started the iteration of draw u
        draws = DrawBuffer(self.compute_src, n, minimum=64, companions=1)
        mc = n * self._iterations_estimate(duration)       # multicasts the log is first sized for
        orph = {"u": np.zeros(0), "buf": np.zeros(0)}
        if self.scheme == "orpheus":
            # the first max(n 1024, min(n mc, FIRST_ROWS_MAX)) uniforms' room, filled in pieces as the loop asks
            # for them (more_uniforms): 10-minute n = 50 runs use ~0.9 M of the 1.5 M (issue 48)
            orph["buf"] = np.empty(max(n * 1024, min(n * mc, FIRST_ROWS_MAX)))
            orph["u"] = self._fill_uniforms(orph["buf"], 0, orph["buf"].size // ORPHEUS_FIRST_PART)
        wk = kernel.Workers(state=np.full(n, COMPUTING, np.int64), comp_start=np.zeros(n),
                            comp_end=np.full(n, math.inf),
                            iters=np.zeros(n, np.int64), rounds=np.zeros(n, np.int64),
                            blocked_since=np.full(n, math.nan), blocked=np.zeros(n), used=np.zeros(n, np.int64),
                            cur_mc=np.full(n, -1, np.int64), draws=draws.draws, cstart=draws.companion[0])
        c = np.zeros((n, n), np.int64)
        due = np.zeros((n, n), bool)
        if r.k is not None:
            due[:] = c >= r.k
            np.fill_diagonal(due, False)
        plan = Plan(x=np.zeros((n, n), np.int8), vrem=np.zeros((n, n)), v=np.full(n, self.volume),
                    p=np.full(n, self.p, np.int64), b_in=self.ingress.copy(), b_eg=self.egress.copy(),
                    tau=np.zeros(n), c=c, due=due, in_g=np.zeros(n, bool), start=np.zeros(n))
        nf = n if l3 else n * n
        fl = kernel.Flows(active=np.zeros(nf, bool), rem=np.zeros(nf), vol=np.zeros(nf), rate=np.zeros(nf),
                          cls=np.zeros(nf, np.int64), seq=np.zeros(nf, np.int64), arrived=np.full((n, n), math.nan),
                          task_cls=np.full(n, BASE, np.int64), caps=np.concatenate([plan.b_in, plan.b_eg]))
        # the log's columns, one dict per group (:data:`ssp_kernel.LOG_COLUMNS`; growing replaces them)
        # first sized for mc multicasts (rows), each with p receivers at start (Orpheus) or n / 2 (SelMcast,
        # ~0.65 n measured at n = 50), and SelMcast's drops for DROPS_FIRST a multicast (Orpheus drops none;
        # from 1024 rows): a run that needs more grows them (at least doubling), so the sizes change no result;
        # zeros() rather than growing from empty leaves the pages no run writes untouched; at most
        # FIRST_ROWS_MAX rows (a short trace mean would ask for too many)
        first = (mc, mc * (self.p if self.scheme == "orpheus" else n // 2),
                 mc * DROPS_FIRST if self.scheme == "selmcast" else 0)
        groups = [{name: np.zeros(max(1024, min(rows, FIRST_ROWS_MAX)), dtype) for name, dtype in cols.items()}
                  for (_, _, cols), rows in zip(kernel.LOG_COLUMNS, first)]
        cn = kernel.counters()

        def more_uniforms():                           # Orpheus: n uniforms a call, in stream order
            have, need, buf = orph["u"].size, int(cn.ints[kernel.NEED_U]), orph["buf"]
            if need <= have:
                return
            if need <= buf.size:                       # the next piece of the room (at least 1/8 of it)
                orph["u"] = self._fill_uniforms(buf, have, max(need, have + buf.size // ORPHEUS_PIECES))
            else:                                      # past the room: at least doubled, as before
                more = self.orpheus_rng.random(max(have, need))
                orph["u"] = orph["buf"] = np.concatenate([orph["u"], more])

        def step() -> int:                             # the arrays as they are now (growing replaces them)
            nonlocal wk
            wk = wk._replace(draws=draws.draws, cstart=draws.companion[0])
            return kernel.run_loop(cfg, wk, plan, fl, kernel.Log(**{k: v for g in groups for k, v in g.items()},
                                                                 orph_u=orph["u"]), cn)

        for w in range(n):
            kernel.start_compute(w, 0.0, wk)
        ci = cn.ints                                   # the integer counters (ssp_kernel's slot names)
        drive(step, draws=draws, columns=[(g, lambda need=need: ci[need], 1024)
                                          for g, (_, need, _) in zip(groups, kernel.LOG_COLUMNS)],
              on_space=more_uniforms,
              stalled=lambda: f"the SSP simulation stopped advancing at t = {cn.floats[kernel.T_LAST]!r} s")
        return self._compiled_log(duration, wk, cn, groups)

    def _fill_uniforms(self, buf: np.ndarray, have: int, upto: int) -> np.ndarray:
        """Orpheus's uniforms ``buf[have:upto]`` (``upto`` capped at ``buf.size``) drawn from ``orpheus_rng``, the
        stream's next values in order (``Generator.random`` draws a double per step, so pieces give the values
        of one call); returns the view ``buf[:upto]`` the loop reads."""
        upto = min(int(upto), buf.size)
        if upto > have:
            self.orpheus_rng.random(out=buf[have:upto])
        return buf[:upto]

    def _iterations_estimate(self, duration: float) -> int:
        """Iterations a worker would run in ``duration`` s if every one took the trace's mean compute time
        and no time went to multicasts (an estimate, not a bound: draws may be shorter; 0 without a trace)."""
        mean = self.trace.mean if self.trace is not None else 0.0
        return int(math.ceil(duration / mean)) if mean > 0 and math.isfinite(duration / mean) else 0

    def _compiled_log(self, duration: float, wk, cn, groups: list[dict]) -> SSPLog:
        log = self._new_log(duration)
        # ``compute`` is built from these arrays on first use (SSPLog.__getattr__): ~18,000 (start, end) tuples
        # a 10-minute n = 50 run, which a sweep's trial never reads (ssp_metrics reads the arrays)
        log._compute_arrays = (wk.cstart, wk.cstart + wk.draws, wk.used)
        del log.compute
        # views of the first rows: nothing else holds the columns after the run, and a copy would write
        # every page again
        log.table = MulticastTable(**{name: col[:int(cn.ints[count])]
                                      for g, (count, _, _) in zip(groups, kernel.LOG_COLUMNS)
                                      for name, col in g.items()})
        blocked = wk.blocked.copy()
        for w in np.flatnonzero(wk.state == BLOCKED):
            blocked[w] += duration - wk.blocked_since[w]
        log.blocked = blocked
        log.max_gap = int(cn.ints[kernel.MAXGAP])
        log.selections = int(cn.ints[kernel.SEL])
        log.selection_s = math.nan                       # not timed inside the compiled loop
        return log

    def _run_flow(self, duration: float) -> SSPLog:
        """The reference run: this loop drives :class:`~simlib.core.network.FlowNetwork`."""
        import time as _time

        n, knobs = self.n, self.rules
        l3 = self.layer == "L3"
        ssp, k, eta = engine_bound(knobs.ssp, math.inf), engine_bound(knobs.k, math.inf), float(knobs.eta)
        net = FlowNetwork(np.concatenate([self.ingress, self.egress]), sharing=self.sharing)
        self.flow_watch = watch_flows(net, lambda: big_switch_link_names(n))   # None outside a capture
        log = self._new_log(duration)
        records: list[MulticastRecord] = []
        b_in = self.ingress.copy()
        b_eg = self.egress.copy()
        # worker state
        state = np.full(n, COMPUTING, np.int64)
        comp_start = np.zeros(n)
        comp_end = np.full(n, math.inf)
        iters = np.zeros(n, np.int64)
        rounds = np.zeros(n, np.int64)          # completed multicasts (SSP clock)
        blocked_since = np.full(n, math.nan)
        blocked = np.zeros(n)
        # selection state (Algorithm 2's inputs)
        x = np.zeros((n, n), np.int8)
        vrem = np.zeros((n, n))
        v = np.full(n, self.volume)
        p_arr = np.full(n, self.p, np.int64)
        c = np.zeros((n, n), np.int64)          # rounds since i last delivered to j (SM55)
        in_g = np.zeros(n, bool)
        start = np.zeros(n)
        tau = np.zeros(n)
        prio = np.full(n, BASE, np.int64)
        flows: list = [None] * n                # L3: the task's flow; L7: dict receiver -> flow
        rec: list = [None] * n                  # the running MulticastRecord of each sender
        arrived: list = [None] * n              # L7: receiver -> delivery time
        durations_sum = 0.0
        durations_cnt = 0
        due = c >= k                            # D = {(i, j): c_ij >= k}; row i changes when i finishes
        np.fill_diagonal(due, False)

        def start_compute(w, t):
            d = float(self.compute_src.next(w))
            state[w] = COMPUTING
            comp_start[w] = t
            comp_end[w] = t + d
            log.compute[w].append((t, t + d))

        def tau_now(t):
            if knobs.tau_estimate == "zero" or ssp == math.inf:
                tau[:] = 0.0
                return
            dbar = durations_sum / durations_cnt if durations_cnt else 0.0
            kernel.tau_estimates(t, rounds, state, comp_start, comp_end, in_g, int(ssp),
                                 knobs.tau_estimate == "oracle", self._res, dbar, tau)

        def readd(i):
            """Re-create task i's flow(s) with its current priority (same links, bits left).

            A flow with less than READD_MIN of the model left keeps its old class: a
            re-created flow's completion tolerance is relative to its (then tiny) volume,
            below the clock's resolution at t ~ 10^2 s (it could never be seen to end)."""
            keep = READD_MIN * self.volume
            if l3:
                f = flows[i]
                if f.remaining >= keep:
                    left = net.remove_flow(f)
                    flows[i] = net.add_flow(f.links, left, priority=int(prio[i]), tag=(i, -1))
            else:
                for j, f in list(flows[i].items()):
                    if f.remaining >= keep:
                        left = net.remove_flow(f)
                        flows[i][j] = net.add_flow(f.links, left, priority=int(prio[i]), tag=(i, j))

        def launch(kappa, receivers, t):
            r = MulticastRecord(sender=kappa, round=int(rounds[kappa]) + 1, start=t,
                                sender_iter=int(iters[kappa]), initial=tuple(int(j) for j in receivers))
            rec[kappa] = r
            records.append(r)
            if self.fifo:                      # SM50's "fifo": classes in start order
                prio[kappa] = BASE + len(records) - 1
            pr = int(prio[kappa]) if self.sharing == "priority" else 0
            if l3:
                links = [kappa] + [n + int(j) for j in receivers]
                flows[kappa] = net.add_flow(links, self.volume, priority=pr, tag=(kappa, -1))
            else:
                flows[kappa] = {int(j): net.add_flow((kappa, n + int(j)), self.volume, priority=pr,
                                                     tag=(kappa, int(j))) for j in receivers}
                arrived[kappa] = {}
            state[kappa] = MULTICASTING
            start[kappa] = t

        def on_ready(kappa, t):
            iters[kappa] += 1
            comp_end[kappa] = math.inf
            t0 = _time.perf_counter()
            if self.scheme == "orpheus":
                recv = orpheus_receivers(kappa, n, self.p, self.orpheus_rng, np.flatnonzero(due[kappa]))
                log.selection_s += _time.perf_counter() - t0
                log.selections += 1
                x[kappa, recv] = 1
                in_g[kappa] = True
                launch(kappa, recv, t)
                return
            # SelMcast: refresh the remaining volumes, tau, then Algorithm 2
            g = np.flatnonzero(in_g)
            if l3:
                for i in g:
                    vrem[i, :] = flows[i].remaining
            else:
                for i in g:
                    for j, f in flows[i].items():
                        vrem[i, j] = f.remaining
            state[kappa] = MULTICASTING        # kappa has finished computing ...
            in_g[kappa] = True                 # ... and its tau counts too (its round ends with this task)
            tau_now(t)
            in_g[kappa] = False                # Algorithm 2's line 4 adds it again
            start[kappa] = t                   # line 13's tie-break sees kappa as the newest task
            old = x[g].copy()
            order, _ = select_ssp(kappa, Plan(x, vrem, v, p_arr, b_in, b_eg, tau, c, due, in_g, start),
                                  eta=eta, layer=self.layer, task_order=knobs.task_order,
                                  line32=knobs.line32, pareto_deadline=knobs.pareto_deadline, check=False)
            log.selection_s += _time.perf_counter() - t0
            log.selections += 1
            # preemption: receivers of running tasks dropped by this call
            for a, j in np.argwhere(old > x[g]).tolist():
                i = int(g[a])
                if l3:
                    net.drop_link(flows[i], n + j)
                elif j not in flows[i]:
                    x[i, j] = 1                # delivered already: stays a receiver (SM67)
                    continue
                else:
                    net.remove_flow(flows[i].pop(j))
                rec[i].dropped.append((j, t))
            if not l3:                         # every undelivered receiver dropped: the task is done
                for i in g.tolist():
                    if not flows[i]:
                        finish_task(i, t)
            if self.sharing == "priority" and not self.fifo:
                for i in place_classes(order, kappa, prio, BASE, GAP).tolist():
                    if flows[i] is not None:
                        readd(i)
            launch(kappa, np.flatnonzero(x[kappa]), t)

        def finish_task(i, t):
            nonlocal durations_sum, durations_cnt
            r = rec[i]
            recv = np.flatnonzero(x[i])
            r.finish = t
            r.delivered = tuple(int(j) for j in recv)
            if l3:
                r.delivered_at = (t,) * recv.size
            else:
                r.delivered_at = tuple(arrived[i][int(j)] for j in recv)
                arrived[i] = None
            durations_sum += t - r.start
            durations_cnt += 1
            c[i] += 1                              # SM55: one more round of i ...
            c[i, recv] = 0                         # ... and 0 for those it delivered to
            c[i, i] = 0
            due[i] = c[i] >= k
            due[i, i] = False
            x[i] = 0
            in_g[i] = False
            flows[i] = None
            rec[i] = None
            low_before = int(rounds.min())
            rounds[i] += 1
            low = int(rounds.min())
            if rounds[i] - low <= ssp:
                log.max_gap = max(log.max_gap, int(rounds[i] - low))
                start_compute(i, t)
            else:
                state[i] = BLOCKED
                blocked_since[i] = t
            if low > low_before:
                for w in np.flatnonzero(state == BLOCKED):
                    if rounds[w] - low <= ssp:
                        blocked[w] += t - blocked_since[w]
                        blocked_since[w] = math.nan
                        log.max_gap = max(log.max_gap, int(rounds[w] - low))
                        start_compute(w, t)

        for w in range(n):
            start_compute(w, 0.0)
        bw_sched = self._bandwidth_schedule(duration)           # the capacities the compiled engine applies
        bw_k = 1
        next_bw = self.period if bw_sched.shape[0] else math.inf
        t_last, stalled = -1.0, 0
        while True:
            t_c = float(comp_end.min())
            t_f = net.next_completion_time()
            t = min(t_c, t_f, next_bw)
            if t > duration or math.isinf(t):
                break
            stalled = stalled + 1 if t == t_last else 0
            if stalled > 10_000:                   # safety net: a run must never hang
                raise RuntimeError(f"the SSP simulation stopped advancing at t = {t!r} s")
            t_last = t
            done = net.advance_to(t)
            for f in done:
                i, j = f.tag
                if l3:
                    if flows[i] is f:
                        finish_task(i, t)
                else:
                    if flows[i] is not None and flows[i].get(j) is f:
                        del flows[i][j]
                        arrived[i][j] = t
                        vrem[i, j] = 0.0           # j has the whole model (SM67)
                        if not flows[i]:
                            finish_task(i, t)
            if t_c <= t:
                for w in np.flatnonzero(comp_end <= t):
                    on_ready(int(w), t)
            if next_bw <= t:
                b_eg[:] = bw_sched[bw_k - 1, 0]
                b_in[:] = bw_sched[bw_k - 1, 1]
                net.set_capacities(np.concatenate([b_in, b_eg]))
                bw_k += 1
                next_bw = bw_k * self.period if bw_k <= bw_sched.shape[0] else math.inf
        for w in np.flatnonzero(state == BLOCKED):
            blocked[w] += duration - blocked_since[w]
        log.blocked = blocked
        log.table = MulticastTable.from_records(records)
        return log
