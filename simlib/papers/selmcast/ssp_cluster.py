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
link is removed from the flow; L7: its unicast flow is removed).  SelMcast's
flows share links by strict priority in the order Algorithm 2 processed the
tasks (max-min inside a class, work-conserving; SM50); Orpheus uses plain
per-flow max-min.  With ``gamma`` > 0 every link's capacity is re-drawn every
``period_s`` (§IV-C6, SM56).

The run writes an :class:`SSPLog` (what happened, independent of metrics);
:mod:`simlib.papers.selmcast.ssp_metrics` turns it into numbers.
Units: seconds, bits, bits/s.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from simlib.core.network import FlowNetwork
from simlib.core.validate import check_choice, check_int, check_real
from simlib.workloads.traces import Trace

from .orpheus import orpheus_receivers
from .ssp_selection import LINE32_READINGS, PARETO_DEADLINES, TASK_ORDERS, select_ssp

__all__ = ["SSPLog", "MulticastRecord", "SSPCluster", "mean_residual", "SCHEMES", "LAYERS",
           "TAU_ESTIMATES", "SHARINGS"]

SCHEMES = ("selmcast", "orpheus")
LAYERS = ("L3", "L7")
#: tau_i from the trace's expected residual compute time ("trace"), the straggler's true
#: remaining compute time ("oracle"), or always 0 ("zero"); decision SM51.
TAU_ESTIMATES = ("trace", "oracle", "zero")
#: "auto": strict priority for SelMcast, max-min for Orpheus (§III-C, §IV-A1).
SHARINGS = ("auto", "priority", "maxmin")

COMPUTING, MULTICASTING, BLOCKED = 0, 1, 2
_GAP = 1 << 20   # spacing of strict-priority classes, so a new task can be slotted in between
_READD_MIN = 0.01  # flows with less than this share of the model left are not re-created (SM50)
_BASE = 1 << 40  # first class number (room below it for tasks placed ahead of every running one)


@njit(cache=True)
def _place(order, kappa, prio, base, gap):
    """Give the tasks of ``order`` strictly increasing priority classes (SM50), in place.

    Running tasks (all but ``kappa``) that form a longest run whose classes are
    already increasing along ``order`` keep their classes; ``kappa`` and the
    others get classes slotted between their kept neighbours.  If there is no
    room, every task is renumbered base, base + gap, ...  Returns the running
    tasks whose class changed (their flows must be re-created)."""
    m = order.shape[0]
    # longest strictly increasing subsequence of prio over the running tasks (O(m^2) DP, m <= n)
    length = np.zeros(m, np.int64)
    prev = np.full(m, -1, np.int64)
    best_end = -1
    for a in range(m):
        if order[a] == kappa:
            continue
        length[a] = 1
        for b in range(a):
            if order[b] != kappa and prio[order[b]] < prio[order[a]] and length[b] + 1 > length[a]:
                length[a] = length[b] + 1
                prev[a] = b
        if best_end < 0 or length[a] > length[best_end]:
            best_end = a
    kept = np.zeros(m, np.bool_)
    a = best_end
    while a >= 0:
        kept[a] = True
        a = prev[a]
    moved = np.empty(m, np.int64)
    nmoved = 0
    lo = base - gap
    r = 0
    while r < m:
        if kept[r]:
            lo = prio[order[r]]
            r += 1
            continue
        e = r
        while e < m and not kept[e]:
            e += 1
        hi = prio[order[e]] if e < m else lo + (e - r + 1) * gap
        cnt = e - r
        if hi - lo <= cnt:                                   # no room: renumber everything
            nmoved = 0
            for rr in range(m):
                prio[order[rr]] = base + rr * gap
                if order[rr] != kappa:
                    moved[nmoved] = order[rr]
                    nmoved += 1
            return moved[:nmoved]
        for k in range(cnt):
            i = order[r + k]
            prio[i] = lo + (hi - lo) * (k + 1) // (cnt + 1)
            if i != kappa:
                moved[nmoved] = i
                nmoved += 1
        lo = prio[order[e - 1]]
        r = e
    return moved[:nmoved]


# --------------------------------------------------------------------------- trace helper
def _residual_tables(x: np.ndarray):
    """Survival S(x_k) at the sorted samples and I_k = integral of S over [x_k, x_max]."""
    nn = x.size
    surv = 1.0 - np.arange(nn) / max(nn - 1, 1)
    seg = 0.5 * np.diff(x) * (surv[:-1] + surv[1:])   # S is linear on each segment: exact
    tail = np.concatenate([np.cumsum(seg[::-1])[::-1], [0.0]])
    return surv, tail


@njit(cache=True)
def _mean_residual(x, surv, tail, a, out):
    nn = x.shape[0]
    for r in range(a.shape[0]):
        ar = a[r]
        if nn == 1:
            out[r] = max(x[0] - ar, 0.0)
            continue
        k = np.searchsorted(x, ar, side="right") - 1     # x_k <= a < x_k+1
        if k < 0:
            out[r] = (x[0] - ar) + tail[0]
        elif k >= nn - 1:
            out[r] = 0.0
        else:
            frac = (ar - x[k]) / (x[k + 1] - x[k])
            s_a = surv[k] + frac * (surv[k + 1] - surv[k])
            integral = (x[k + 1] - ar) * 0.5 * (s_a + surv[k + 1]) + tail[k + 1]
            out[r] = integral / s_a if s_a > 0.0 else 0.0
    return out


@njit(cache=True)
def _tau(t, rounds, state, comp_start, comp_end, in_g, ssp, oracle, x, surv, tail, mean_T, dbar, tau):
    """tau_i for every task in G (decision SM51); 0 outside G.

    Task i's worker will have r_i + 1 rounds when its multicast ends; it may go on
    once every worker has r_i + 1 - ssp.  A straggler j still has m = r_i + 1 - ssp - r_j
    rounds to finish: its expected residual compute time (or the true one, ``oracle``),
    then (m - 1) mean iterations, plus m mean multicast durations ``dbar`` observed so far.
    tau_i is the largest such estimate.
    """
    n = rounds.shape[0]
    low = rounds.min()
    one = np.empty(1)
    res = np.empty(1)
    resid = np.full(n, -1.0)            # lazily computed residual compute times
    for i in range(n):
        tau[i] = 0.0
        if not in_g[i]:
            continue
        need = rounds[i] + 1 - ssp
        if need <= low:
            continue
        best = 0.0
        for j in range(n):
            m = need - rounds[j]
            if m <= 0:
                continue
            if resid[j] < 0.0:
                if state[j] != COMPUTING:
                    resid[j] = 0.0
                elif oracle:
                    resid[j] = comp_end[j] - t
                else:
                    one[0] = t - comp_start[j]
                    resid[j] = _mean_residual(x, surv, tail, one, res)[0]
            est = resid[j] + (m - 1) * mean_T + m * dbar
            if est > best:
                best = est
        tau[i] = best
    return tau


def mean_residual(trace: Trace, elapsed) -> np.ndarray:
    """E[T - a | T > a] (seconds) for the trace's piecewise-linear distribution, a = ``elapsed``.

    ``elapsed`` >= 0 (scalar or array; returns an array); 0 where a is at or
    beyond the largest sample (the iteration is overdue: "imminent").  At
    a = 0 it equals ``trace.mean``.
    """
    a = np.atleast_1d(np.asarray(elapsed, dtype=float))
    surv, tail = _residual_tables(trace.samples)
    return _mean_residual(trace.samples, surv, tail, a, np.empty_like(a))


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


@dataclass
class SSPLog:
    """Everything one SSP run did (seconds; bandwidths in bits/s).

    ``compute[w]``: (start, end) of every iteration worker ``w`` started
    (``end`` may exceed ``duration``); ``multicasts`` in start order;
    ``blocked[w]``: total time (s) ``w`` waited at the SSP gate within the
    run; ``max_gap``: the largest r_i - min_j r_j seen when a worker moved on;
    ``selections``: calls to the selection scheme; ``selection_s``: wall-clock
    seconds they took.
    """

    n: int
    duration: float
    scheme: str
    layer: str
    egress: np.ndarray
    ingress: np.ndarray
    compute: list = field(default_factory=list)
    multicasts: list = field(default_factory=list)
    blocked: np.ndarray | None = None
    max_gap: int = 0
    selections: int = 0
    selection_s: float = 0.0


# --------------------------------------------------------------------------- the cluster
class SSPCluster:
    """One SSP training run (see the module docstring).

    Parameters (units in names; validated here, once):
    ``egress``, ``ingress``: (n,) bits/s at time 0; ``compute``: object with
    ``next(w) -> seconds`` (e.g. :class:`simlib.runtime.cluster.ComputeTimes`);
    ``trace``: the compute-time distribution the manager assumes for tau_i;
    ``volume_bits`` > 0; ``p`` in [1, n - 1] receivers; ``ssp`` >= 0 (``math.inf``:
    no gate); ``k`` >= 0 rounds (``math.inf``: no forced pairs); ``eta`` in [0, 1];
    ``bandwidth``: optional callable ``t -> (2, n)`` array (egress, ingress) in force
    at time t, re-applied every ``period_s``; ``orpheus_rng``: Generator for
    Orpheus's draws.
    """

    def __init__(self, *, egress, ingress, compute, trace: Trace | None, volume_bits: float, p: int,
                 scheme: str = "selmcast", layer: str = "L3", ssp: float = 4, k: float = 4,
                 eta: float = 0.75, tau_estimate: str = "trace", task_order: str = "pseudocode",
                 line32: str = "y", pareto_deadline: str = "own", sharing: str = "auto",
                 bandwidth=None, period_s: float = 0.1, orpheus_rng: np.random.Generator | None = None):
        self.egress = np.array(egress, dtype=float)
        self.ingress = np.array(ingress, dtype=float)
        n = self.n = check_int("n", self.egress.size, lo=2)
        if self.ingress.shape != (n,) or self.egress.ndim != 1:
            raise ValueError(f"ingress must have the same length as egress ({n})")
        if np.any(self.egress <= 0) or np.any(self.ingress <= 0):
            raise ValueError("egress and ingress must be > 0 bits/s")
        self.scheme = check_choice("scheme", scheme, SCHEMES)
        self.layer = check_choice("layer", layer, LAYERS)
        self.volume = check_real("volume_bits", volume_bits, 0.0, lo_open=True)
        self.p = check_int("p", p, 1, n - 1)
        self.ssp = math.inf if ssp == math.inf else check_int("ssp", ssp, lo=0)
        self.k = math.inf if k == math.inf else check_int("k", k, lo=0)
        self.eta = check_real("eta", eta, 0.0, 1.0)
        self.tau_estimate = check_choice("tau_estimate", tau_estimate, TAU_ESTIMATES)
        self.task_order = check_choice("task_order", task_order, TASK_ORDERS)
        self.line32 = check_choice("line32", line32, LINE32_READINGS)
        self.pareto_deadline = check_choice("pareto_deadline", pareto_deadline, PARETO_DEADLINES)
        sharing = check_choice("sharing", sharing, SHARINGS)
        if sharing == "auto":
            sharing = "priority" if self.scheme == "selmcast" else "maxmin"
        self.sharing = sharing
        self.period = check_real("period_s", period_s, 0.0, lo_open=True)
        self.bandwidth = bandwidth
        if self.tau_estimate == "trace" and trace is None and self.scheme == "selmcast":
            raise ValueError("trace must be given when tau_estimate='trace'")
        self.trace = trace
        self.mean_T = trace.mean if trace is not None else 0.0
        self._res = ((trace.samples, *_residual_tables(trace.samples)) if trace is not None
                     else (np.ones(1), np.ones(1), np.zeros(1)))
        self.compute_src = compute
        if self.scheme == "orpheus" and orpheus_rng is None:
            raise ValueError("orpheus_rng must be a numpy.random.Generator for scheme='orpheus'")
        self.orpheus_rng = orpheus_rng

    # ------------------------------------------------------------------ run
    def run(self, duration_s: float) -> SSPLog:
        """Simulate ``duration_s`` seconds (> 0) and return the log."""
        import time as _time

        duration = check_real("duration_s", duration_s, 0.0, lo_open=True)
        n = self.n
        l3 = self.layer == "L3"
        net = FlowNetwork(np.concatenate([self.ingress, self.egress]), sharing=self.sharing)
        log = SSPLog(n=n, duration=duration, scheme=self.scheme, layer=self.layer,
                     egress=self.egress.copy(), ingress=self.ingress.copy(),
                     compute=[[] for _ in range(n)])
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
        prio = np.full(n, _BASE, np.int64)
        flows: list = [None] * n                # L3: the task's flow; L7: dict receiver -> flow
        rec: list = [None] * n                  # the running MulticastRecord of each sender
        arrived: list = [None] * n              # L7: receiver -> delivery time
        durations_sum = 0.0
        durations_cnt = 0
        due = c >= self.k                       # D = {(i, j): c_ij >= k}; row i changes when i finishes
        np.fill_diagonal(due, False)

        def start_compute(w, t):
            d = float(self.compute_src.next(w))
            state[w] = COMPUTING
            comp_start[w] = t
            comp_end[w] = t + d
            log.compute[w].append((t, t + d))

        def tau_now(t):
            if self.tau_estimate == "zero" or self.ssp == math.inf:
                tau[:] = 0.0
                return
            dbar = durations_sum / durations_cnt if durations_cnt else 0.0
            _tau(t, rounds, state, comp_start, comp_end, in_g, int(self.ssp),
                 self.tau_estimate == "oracle", *self._res, self.mean_T, dbar, tau)

        def readd(i):
            """Re-create task i's flow(s) with its current priority (same links, bits left).

            A flow with less than _READD_MIN of the model left keeps its old class: a
            re-created flow's completion tolerance is relative to its (then tiny) volume,
            below the clock's resolution at t ~ 10^2 s (it could never be seen to end)."""
            keep = _READD_MIN * self.volume
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
            log.multicasts.append(r)
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
            order, _ = select_ssp(kappa, x, vrem, v, p_arr, b_in, b_eg, tau, c, due, in_g, start,
                                  eta=self.eta, layer=self.layer, task_order=self.task_order,
                                  line32=self.line32, pareto_deadline=self.pareto_deadline, check=False)
            log.selection_s += _time.perf_counter() - t0
            log.selections += 1
            # preemption: receivers of running tasks dropped by this call
            for a, j in np.argwhere(old > x[g]).tolist():
                i = int(g[a])
                if l3:
                    net.drop_link(flows[i], n + j)
                else:
                    net.remove_flow(flows[i].pop(j))
                rec[i].dropped.append((j, t))
            if self.sharing == "priority":
                for i in _place(order, kappa, prio, _BASE, _GAP).tolist():
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
            due[i] = c[i] >= self.k
            due[i, i] = False
            x[i] = 0
            in_g[i] = False
            flows[i] = None
            rec[i] = None
            low_before = int(rounds.min())
            rounds[i] += 1
            low = int(rounds.min())
            if rounds[i] - low <= self.ssp:
                log.max_gap = max(log.max_gap, int(rounds[i] - low))
                start_compute(i, t)
            else:
                state[i] = BLOCKED
                blocked_since[i] = t
            if low > low_before:
                for w in np.flatnonzero(state == BLOCKED):
                    if rounds[w] - low <= self.ssp:
                        blocked[w] += t - blocked_since[w]
                        blocked_since[w] = math.nan
                        log.max_gap = max(log.max_gap, int(rounds[w] - low))
                        start_compute(w, t)

        for w in range(n):
            start_compute(w, 0.0)
        next_bw = self.period if self.bandwidth is not None else math.inf
        bw_k = 1
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
                        if not flows[i]:
                            finish_task(i, t)
            if t_c <= t:
                for w in np.flatnonzero(comp_end <= t):
                    on_ready(int(w), t)
            if next_bw <= t:
                caps = np.asarray(self.bandwidth(t), dtype=float)
                b_eg[:] = caps[0]
                b_in[:] = caps[1]
                net.set_capacities(np.concatenate([b_in, b_eg]))
                bw_k += 1
                next_bw = bw_k * self.period
        for w in np.flatnonzero(state == BLOCKED):
            blocked[w] += duration - blocked_since[w]
        log.blocked = blocked
        return log
