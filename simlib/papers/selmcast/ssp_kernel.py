"""The SSP cluster's compiled parts: Algorithm 2's helpers and the whole event loop (decision SM68).

One 10-minute n = 50 run has ~20,000 multicasts and ~60,000 events; driving
:class:`~simlib.core.network.FlowNetwork` from Python cost ~250 us per
multicast, so the §IV-C reproduction took over an hour.  :func:`run_loop`
runs the same simulation as ``SSPCluster(engine="flow")`` -- the worker loop,
Algorithm 2 (:func:`~simlib.papers.selmcast.ssp_selection._algorithm2`, or its bit-set form
``_algorithm2_l3`` under L3), tau
(:func:`tau_estimates`), the priority placement (:func:`place_classes`), Orpheus's key rule,
and the flow model (drain, completion tolerance N6 and per-flow max-min or strict-priority sharing, from
:mod:`simlib.core.sharing` and :mod:`simlib.core.tolerance`) -- inside one compiled loop.  The two engines
are independent implementations of one model, cross-checked in the tests
(same multicasts, receivers and drops; times to 1e-9).

Flows live in slots: L3, slot i is sender i's multicast, whose links are its
ingress i and the egress n + j of every j with x[i, j] = 1; L7, slot i * n + j
is the unicast i -> j over links i and n + j.  Their links are kept in a
:class:`~simlib.core.sharing.FlowTable` (an L3 row is rewritten when its
multicast starts or loses a receiver; for n <= 63 also as bit sets of receivers by sender and of senders by
receiver); rates are recomputed after any change
by :func:`~simlib.core.sharing.share_rates` (max-min; under SM50's priority reading strict priority by class, max-min
inside a class, work-conserving), or, L3 with n <= 63, by its big-switch forms on the bit sets: under max-min
:func:`~simlib.core.sharing.share_big_switch` (the same rates bit for bit, decision N18), under strict priority
:func:`~simlib.core.sharing.share_big_switch_priority` (the same rates bit for bit); with at
most n flows (L3) that is cheaper than keeping them incrementally.  The state is in NamedTuples of arrays
(:class:`Config`, :class:`Workers`, :class:`~.ssp_selection.Plan`,
:class:`Flows`, :class:`Log`, :class:`Counters`), changed in place.
:func:`run_loop` is a dispatcher over named steps (next completion, log space,
the network's advance, a multicast's end, Orpheus's pick or SelMcast's
snapshot, tau, Algorithm 2, preemption and classes, the launch, capacities):
it binds the bundles' fields once and hands each step the arrays it uses; the steps are inlined.

Reference counts (issue 48): numba counts every array a compiled function binds or passes (an atomic
increment and decrement: ~230 a selection, 10-20 % of a SelMcast run's CPU at a load of 2, more under load).
:func:`run_loop` therefore only allocates the work space and calls :func:`_events`, compiled with
``_nrt=False``, which holds no count: it and every function it calls that is compiled without counts allocate
nothing and return no array (the arrays live as long as ``run_loop`` and its caller hold them).  Every
compiled function reachable from it sets ``_nrt`` (numba's private option, numba as pinned in requirements.txt)
explicitly, since numba compiles a callee that does not with its first caller's setting: ``False``
for the steps that only read and write arrays (Algorithm 2, tau, the rate solvers, ``drain``), ``True`` for
the few that allocate (``share_rates``'s sort, tau's per-worker path, Orpheus's tie sort), whose counts stay
balanced inside them.  The tests check that compiled runs leave no array alive.

The loop is resumable: before an event that could need a compute-time draw a
worker does not have yet, or more log space than is left, it returns a status;
the driver (:func:`simlib.runtime.kernel_driver.drive`, called by
``SSPCluster._run_compiled``) grows the arrays and calls it again,
and the event is handled as if nothing had happened.  Units: seconds, bits,
bits/s.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from simlib.core import jitcache
from simlib.core.sharing import (BIG_SWITCH_MAX, drain, flow_table, lowest_bit, popcount, set_links, set_receivers,
                                 share_big_switch, share_big_switch_priority, share_rates)
from simlib.core.tolerance import is_done
from simlib.runtime.kernel_driver import DONE, NEED_DRAWS, NEED_SPACE, STALLED

from .ssp_selection import C_BITS, TIE_S, Rules, _algorithm2, _algorithm2_l3, c_planes, c_planes_finish, scratch

COMPUTING, MULTICASTING, BLOCKED = 0, 1, 2
GAP = 1 << 20       # spacing of strict-priority classes, so a new task can be slotted in between
BASE = 1 << 40      # first class number (room below it for tasks placed ahead of every running one)
READD_MIN = 0.01    # flows with less than this share of the model left are not re-created (SM50)


@njit(cache=True, _nrt=True)
def place_classes(order, kappa, prio, base, gap):
    """Give the tasks of ``order`` strictly increasing priority classes (SM50), in place.

    Running tasks (all but ``kappa``) that form a longest run whose classes are
    already increasing along ``order`` keep their classes; ``kappa`` and the
    others get classes slotted between their kept neighbours.  If there is no
    room, every task is renumbered base, base + gap, ...  Returns the running
    tasks whose class changed (their flows must be re-created)."""
    m = order.shape[0]
    work = np.empty((4, m), np.int64)
    nmoved = _place_classes(order, kappa, prio, base, gap, work)
    return work[3, :nmoved].copy()


@njit(cache=True, _nrt=False)
def _place_classes(order, kappa, prio, base, gap, work):
    """:func:`place_classes` in the work space ``work`` ((4, >= m) int64, m = len(order)): the running tasks
    whose class changed go to ``work[3, :k]``; returns k.  Allocates nothing (the SSP loop calls it at each
    SelMcast selection under SM50's priority, issue 48)."""
    m = order.shape[0]
    # longest strictly increasing subsequence of prio over the running tasks (O(m^2) DP, m <= n)
    length, prev, kept, moved = work[0], work[1], work[2], work[3]
    for a in range(m):
        length[a] = 0
        prev[a] = -1
        kept[a] = 0
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
    a = best_end
    while a >= 0:
        kept[a] = 1
        a = prev[a]
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
            return nmoved
        for k in range(cnt):
            i = order[r + k]
            prio[i] = lo + (hi - lo) * (k + 1) // (cnt + 1)
            if i != kappa:
                moved[nmoved] = i
                nmoved += 1
        lo = prio[order[e - 1]]
        r = e
    return nmoved


# --------------------------------------------------------------------------- trace helper
def residual_tables(x: np.ndarray):
    """Survival S(x_k) at the sorted samples and I_k = integral of S over [x_k, x_max]."""
    nn = x.size
    surv = 1.0 - np.arange(nn) / max(nn - 1, 1)
    seg = 0.5 * np.diff(x) * (surv[:-1] + surv[1:])   # S is linear on each segment: exact
    tail = np.concatenate([np.cumsum(seg[::-1])[::-1], [0.0]])
    return surv, tail


@njit(cache=True, inline="always")
def _extreme(a, most):
    """``a.max()`` if ``most`` else ``a.min()`` of a non-empty 1-D array, in numba's order (the first value, then
    each strictly larger or smaller one; a NaN is returned when met), as a loop: numba's ``min``/``max`` take a
    view that needs reference counts, which the event loop is compiled without."""
    m = a[0]
    if m != m:
        return m
    for k in range(1, a.shape[0]):
        v = a[k]
        if v != v:
            return v
        if v > m if most else v < m:
            m = v
    return m


@njit(cache=True, _nrt=False)
def _mean_residual(x, surv, tail, ar):
    """E[T - a | T > a] (s) at one elapsed time ``ar`` (s) from the tables of :func:`residual_tables`.
    An elapsed time within :data:`~.ssp_selection.TIE_S` of a sample is at it (SM71): a straggler
    that started with the worker whose compute time x_k just ended has elapsed x_k, which the two
    engines' float rounding puts on either side of the atom at x_k."""
    nn = x.shape[0]
    if nn == 1:
        return max(x[0] - ar, 0.0)
    k = np.searchsorted(x, ar + TIE_S, side="right") - 1  # x_k <= a < x_k+1, a within TIE_S of x_k at it
    if k >= 0 and ar - x[k] <= TIE_S:
        ar = x[k]
    if k < 0:
        return (x[0] - ar) + tail[0]
    if k >= nn - 1:
        return 0.0
    frac = (ar - x[k]) / (x[k + 1] - x[k])
    s_a = surv[k] + frac * (surv[k + 1] - surv[k])
    integral = (x[k + 1] - ar) * 0.5 * (s_a + surv[k + 1]) + tail[k + 1]
    return integral / s_a if s_a > 0.0 else 0.0


@njit(cache=True, _nrt=True)
def mean_residual_at(x, surv, tail, a, out):
    """:func:`_mean_residual` at every elapsed time of ``a`` (s), into ``out`` (returned)."""
    for r in range(a.shape[0]):
        out[r] = _mean_residual(x, surv, tail, a[r])
    return out


@njit(cache=True, _nrt=False)
def _need(i, in_g, rounds, ssp, low):
    """The round every worker must reach before task i's worker may go on (r_i + 1 - ssp), or ``low``
    when there is nothing to wait for (i not in G, or no worker below it): tau_i = 0 then."""
    if not in_g[i]:
        return low
    return max(rounds[i] + 1 - ssp, low)


@njit(cache=True, _nrt=False)
def _residual(j, t, state, comp_start, comp_end, oracle, res):
    """Worker j's expected residual compute time at t (s): 0 unless computing; the true one
    (``oracle``) or the trace's mean residual after the elapsed t - start (SM51)."""
    if state[j] != COMPUTING:
        return 0.0
    if oracle:
        return comp_end[j] - t
    return _mean_residual(res.x, res.surv, res.tail, t - comp_start[j])


@njit(cache=True, _nrt=True)
def tau_estimates(t, rounds, state, comp_start, comp_end, in_g, ssp, oracle, res, dbar, tau):
    """tau_i for every task in G (decision SM51); 0 outside G.

    Task i's worker will have r_i + 1 rounds when its multicast ends; it may go on
    once every worker has r_i + 1 - ssp.  A straggler j still has m = r_i + 1 - ssp - r_j
    rounds to finish: its expected residual compute time (from the trace's tables ``res``,
    a :class:`Residual`, or the true one, ``oracle``), then (m - 1) mean iterations, plus m
    mean multicast durations ``dbar`` observed so far.  tau_i is the largest such estimate.
    Per worker (n,): rounds, state, current iteration's start and end (s); ``in_g`` (n,) the
    tasks G; ``tau`` (n,) is written and returned.
    """
    _tau_into(t, rounds, state, comp_start, comp_end, in_g, ssp, oracle, res, dbar, tau, np.empty(rounds.shape[0]))
    return tau


@njit(cache=True, _nrt=False)
def _tau_into(t, rounds, state, comp_start, comp_end, in_g, ssp, oracle, res, dbar, tau, top):
    """:func:`tau_estimates` into ``tau`` with the work space ``top`` ((n,) float; the SSP loop's, so that a
    selection allocates nothing, issue 48); returns nothing (compiled without reference counts)."""
    n = rounds.shape[0]
    low = _extreme(rounds, False)
    spread = _extreme(rounds, True) - low + 1
    if spread > n:                      # (never under an SSP gate of n - 2 or less)
        _tau_by_worker(t, rounds, state, comp_start, comp_end, in_g, ssp, oracle, res, dbar, tau)
        return
    # est_j = (resid_j + (m - 1) mean) + m dbar is non-decreasing in resid_j for a fixed m = need - r_j, in
    # floats too, so its largest value over the stragglers of r_j = r is that of their largest residual:
    # one estimate per round value r gives each tau_i bit for bit (decision SM74)
    for g in range(spread):             # top[g]: largest residual compute time of the workers at round low + g
        top[g] = -np.inf
    most = low                          # no worker at or above it is a straggler of any task
    for i in range(n):
        if in_g[i]:
            most = max(most, rounds[i] + 1 - ssp)
    for j in range(n):
        if rounds[j] < most:
            r = _residual(j, t, state, comp_start, comp_end, oracle, res)
            g = rounds[j] - low
            top[g] = max(top[g], r)
    for i in range(n):
        tau[i] = 0.0
        need = _need(i, in_g, rounds, ssp, low)
        if need <= low:
            continue
        best = 0.0
        for g in range(min(spread, need - low)):        # rounds r < need: m = need - r > 0
            if top[g] == -np.inf:
                continue
            m = need - (low + g)
            est = top[g] + (m - 1) * res.mean + m * dbar
            if est > best:
                best = est
        tau[i] = best


@njit(cache=True, _nrt=True)
def _tau_by_worker(t, rounds, state, comp_start, comp_end, in_g, ssp, oracle, res, dbar, tau):
    """:func:`tau_estimates` one straggler at a time (O(|G| n)): the definition the grouped
    estimate must equal (tests), and its path for rounds spread over more than n values; writes ``tau``, returns
    nothing (its caller in the event loop keeps no reference counts)."""
    n = rounds.shape[0]
    low = rounds.min()
    resid = np.full(n, -1.0)            # lazily computed residual compute times
    for i in range(n):
        tau[i] = 0.0
        need = _need(i, in_g, rounds, ssp, low)
        if need <= low:
            continue
        best = 0.0
        for j in range(n):
            m = need - rounds[j]
            if m <= 0:
                continue
            if resid[j] < 0.0:
                resid[j] = _residual(j, t, state, comp_start, comp_end, oracle, res)
            est = resid[j] + (m - 1) * res.mean + m * dbar
            if est > best:
                best = est
        tau[i] = best


# --------------------------------------------------------------------------- the loop's state
class Residual(NamedTuple):
    """The trace's residual-time tables (:func:`residual_tables`): samples ``x`` (s, sorted),
    survival ``surv``, tail integrals ``tail`` (s), and its mean (s)."""

    x: np.ndarray
    surv: np.ndarray
    tail: np.ndarray
    mean: float


class Config(NamedTuple):
    """What one run is (read only): n, the layer, scheme, sharing (``prio_mode``: strict priority;
    ``fifo``: its classes in start order, else in Algorithm 2's order) and Algorithm 2's readings
    (``rules``), p, the SSP threshold and k (< 0: infinite), how tau is estimated (0 trace,
    1 oracle, 2 zero), the model volume (bits), the run's end (s), the bandwidth period (s)
    and schedule (K, 2, n) (egress, ingress; bits/s) applied at k * period, k = 1..K."""

    n: int
    l3: bool
    selmcast: bool
    prio_mode: bool
    fifo: bool
    p: int
    ssp: int
    k: int
    tau_mode: int
    rules: Rules
    volume: float
    duration: float
    period: float
    res: Residual
    bw_sched: np.ndarray


class Workers(NamedTuple):
    """Per worker (n,): state (COMPUTING / MULTICASTING / BLOCKED), current iteration's start and
    end (s), iterations computed, rounds (multicasts finished), blocked since (s) and in total (s),
    draws used, its running multicast's log row (-1: none); ``draws`` (n, U) compute times (s)
    and ``cstart`` (n, U) the start of the iteration of each draw (s)."""

    state: np.ndarray
    comp_start: np.ndarray
    comp_end: np.ndarray
    iters: np.ndarray
    rounds: np.ndarray
    blocked_since: np.ndarray
    blocked: np.ndarray
    used: np.ndarray
    cur_mc: np.ndarray
    draws: np.ndarray
    cstart: np.ndarray


class Flows(NamedTuple):
    """Flow slots (L3: n, slot i is sender i's multicast; L7: n * n, slot i n + j is i -> j):
    active, bits left, volume (bits), rate (bits/s), class, creation number; ``arrived`` (n, n)
    L7 delivery times (s); per task its class ``task_cls`` (n,); link capacities ``caps`` (2n,)
    (ingress i, egress n + i; bits/s)."""

    active: np.ndarray
    rem: np.ndarray
    vol: np.ndarray
    rate: np.ndarray
    cls: np.ndarray
    seq: np.ndarray
    arrived: np.ndarray
    task_cls: np.ndarray
    caps: np.ndarray


#: Slots of :attr:`Counters.ints`: flows created, multicasts, receivers, drops logged, Orpheus uniforms
#: used, next bandwidth period, events without the clock moving, multicasts finished, largest SSP gap,
#: selections, rates stale (0 or 1), ones in x, and the log sizes the next event needs (multicasts,
#: receivers, drops, uniforms).
(SEQ, NMC, NRECV, NDROP, USED_U, BWK, STALLED, DCNT, MAXGAP, SEL, DIRTY, NX,
 NEED_MC, NEED_RECV, NEED_DROP, NEED_U) = range(16)
#: Slots of :attr:`Counters.floats`: the clock (s), the last event's time (s) and the sum of finished
#: multicasts' durations (s).
NOW, T_LAST, DSUM = range(3)

#: The multicast log's columns, declared once (the loop's :class:`Log` and the run's
#: :class:`~.ssp_cluster.MulticastTable`, which documents each): per group, the :attr:`Counters.ints`
#: slots of its rows written and of the rows the next event needs, and ``{column: dtype}``.
LOG_COLUMNS = ((NMC, NEED_MC, {"sender": np.int64, "round": np.int64, "start": np.float64, "sender_iter": np.int64,
                               "finish": np.float64, "r0": np.int64, "nr": np.int64}),
               (NRECV, NEED_RECV, {"recv": np.int64, "recv_at": np.float64}),
               (NDROP, NEED_DROP, {"drop_mc": np.int64, "drop_j": np.int64, "drop_t": np.float64}))

#: The multicast table's columns (:data:`LOG_COLUMNS`) as the loop writes them, and Orpheus's uniforms
#: ``orph_u`` (consumed n per selection).
Log = NamedTuple("Log", [*((name, np.ndarray) for _, _, cols in LOG_COLUMNS for name in cols),
                         ("orph_u", np.ndarray)])


class Counters(NamedTuple):
    """Scalars the loop keeps between calls: ``ints`` (16,) int64 and ``floats`` (3,), read and written
    at the slots named above (``cn.ints[NMC]``: multicasts so far).  Two arrays rather than one per
    counter, so that a step of the loop takes them all as two arguments."""

    ints: np.ndarray
    floats: np.ndarray


class Space(NamedTuple):
    """:func:`run_loop`'s work space for :func:`_events`, allocated at each call: the flows' ``links``
    (:func:`_flow_table`), Algorithm 2's ``ybits``, ``dbits`` (D's rows) and ``cplanes`` (c's bit planes), its
    output ``alg`` (:func:`~.ssp_selection.scratch`), G's rows ``old`` and tasks ``gl``, the ``done`` flows and
    ``ready`` workers of an event, Orpheus's ``okeys`` and ``obuckets``, tau's ``ttop`` and the classes' ``pwork``."""

    links: tuple
    ybits: np.ndarray
    dbits: np.ndarray
    cplanes: np.ndarray
    alg: tuple
    old: np.ndarray
    gl: np.ndarray
    done: np.ndarray
    ready: np.ndarray
    okeys: np.ndarray
    ttop: np.ndarray
    pwork: np.ndarray
    obuckets: np.ndarray


def counters() -> Counters:
    """Fresh :class:`Counters`: nothing happened yet, the first bandwidth period is 1, no event yet."""
    ints = np.zeros(NEED_U + 1, np.int64)
    ints[BWK] = 1
    floats = np.zeros(DSUM + 1)
    floats[T_LAST] = -1.0
    return Counters(ints, floats)


# --------------------------------------------------------------------------- flows
@njit(cache=True, _nrt=False)
def _l3_links(n, x, s, table, buf, rows, cols):
    """Slot s (L3: sender s's multicast) crosses its ingress s and the egress n + j of every receiver j;
    for n <= BIG_SWITCH_MAX also as bit sets, sender s's row ``rows[s]`` and its bit in the columns
    ``cols`` (:func:`~simlib.core.sharing.set_receivers`, for :func:`~simlib.core.sharing.share_big_switch`)."""
    buf[0] = s
    k = 1
    for j in range(n):                                  # (branch-free: receivers are random, a branch on
        buf[k] = n + j                                  # each is mispredicted often)
        k += x[s, j] == 1
    set_links(table, s, buf, k)
    if n <= BIG_SWITCH_MAX:
        bits = 0
        for j in range(n):
            bits |= np.int64(x[s, j] == 1) << j
        set_receivers(rows, cols, s, bits)


@njit(cache=True, inline="always")
def _is_done(s, rem, vol, rate):
    """Slot s's flow is complete: its bits left are within N6's tolerance, or its rate is infinite."""
    return is_done(rem[s], vol[s]) or rate[s] == np.inf


@njit(cache=True, inline="always")
def _new_flow(s, vol, cls, fl, ci):
    """Slot s starts a flow of ``vol`` bits at class ``cls``, numbered in creation order."""
    fl.active[s] = True
    fl.rem[s] = vol
    fl.vol[s] = vol
    fl.rate[s] = 0.0
    fl.cls[s] = cls
    fl.seq[s] = ci[SEQ]
    ci[SEQ] += 1
    ci[DIRTY] = 1


# --------------------------------------------------------------------------- workers
@njit(cache=True, inline="always")
def start_compute(w, t, wk):
    """Worker w starts an iteration at t (s) with its next draw."""
    u = wk.used[w]
    wk.cstart[w, u] = t
    wk.used[w] = u + 1
    wk.state[w] = COMPUTING
    wk.comp_start[w] = t
    wk.comp_end[w] = t + wk.draws[w, u]


@njit(cache=True, inline="always")
def _finish(i, t, cfg, wk, plan, fl, log, cn, dbits, cplanes):
    """Task i's multicast ends at t: log it, update c and D (SM55; for n <= BIG_SWITCH_MAX also D's row i as
    the bit set ``dbits[i]``, bit j: (i, j) in D, and c's row i on its bit planes ``cplanes``,
    :func:`~.ssp_selection.c_planes_finish`), then the SSP gate (SM58)."""
    n, l3, ssp, k = cfg.n, cfg.l3, cfg.ssp, cfg.k
    x, c, due, in_g = plan.x, plan.c, plan.due, plan.in_g
    rounds, state = wk.rounds, wk.state
    ci = cn.ints
    mc = wk.cur_mc[i]
    log.finish[mc] = t
    r0 = log.r0[mc]
    for q in range(log.nr[mc]):
        j = log.recv[r0 + q]
        if x[i, j] == 1:
            log.recv_at[r0 + q] = t if l3 else fl.arrived[i, j]
    ci[DCNT] += 1
    cn.floats[DSUM] += t - log.start[mc]
    small = n <= BIG_SWITCH_MAX
    onb = _row_bits(x, i) if small else 0               # its receivers (c_ij <- 0)
    nx = 0
    for j in range(n):                                  # (branch-free: x's row is random)
        on = x[i, j] == 1
        nx += on
        cij = 0 if on | (j == i) else c[i, j] + 1
        c[i, j] = cij
        due[i, j] = (k >= 0) & (j != i) & (cij >= k)
        x[i, j] = 0
        if not l3:
            fl.arrived[i, j] = np.nan
    ci[NX] -= nx
    if small:
        dbits[i] = _row_bits(due, i)
        c_planes_finish(cplanes, i, onb | (1 << i), (1 << n) - 1)
    in_g[i] = False
    wk.cur_mc[i] = -1
    low_before = _extreme(rounds, False)
    rounds[i] += 1
    low = _extreme(rounds, False) if rounds[i] - 1 == low_before else low_before   # (else i was not at the least)
    if ssp < 0 or rounds[i] - low <= ssp:
        ci[MAXGAP] = max(ci[MAXGAP], rounds[i] - low)
        start_compute(i, t, wk)
    else:
        state[i] = BLOCKED
        wk.blocked_since[i] = t
    if low > low_before:
        for w in range(n):
            if state[w] == BLOCKED and rounds[w] - low <= ssp:
                wk.blocked[w] += t - wk.blocked_since[w]
                wk.blocked_since[w] = np.nan
                ci[MAXGAP] = max(ci[MAXGAP], rounds[w] - low)
                start_compute(w, t, wk)


@njit(cache=True, inline="always")
def _row_bits(a, i):
    """Row i of the (n, n) boolean array ``a`` as an int64 bit set (bit j: a[i, j]; n <= BIG_SWITCH_MAX)."""
    bits = 0
    for j in range(a.shape[1]):
        bits |= np.int64(a[i, j]) << j
    return bits


@njit(cache=True, inline="always")
def _l7_idle(i, n, factive):
    for j in range(n):
        if factive[i * n + j]:
            return False
    return True


# --------------------------------------------------------------------------- the loop's steps
# They take the arrays they use, not the state bundles: a compiled call increfs and decrefs every
# array of every bundle it is passed (~70 arrays for all six), which made a split on bundles 22-30 %
# slower (commit ec3e7dd).  The per-event and per-multicast steps are inlined ("always"): called,
# they cost ~2.5 % more even on arrays.  (Compiling only the called ones that allocate nothing without
# reference counts, `_nrt=False`, measured within noise on whole runs in the ninth round; the whole event loop
# without them, :func:`_events`, 1.08-1.20x: the module's note.)
@njit(cache=True, _nrt=True)
def _flow_table(n, l3, x, nf):
    """The flows' links: a :class:`~simlib.core.sharing.FlowTable`, a link buffer (n + 1,) and, L3 with
    n <= BIG_SWITCH_MAX, the senders' receivers as bit sets by row and by column ((n,) each; decision N18):
    L3, slot s crosses sender s's ingress and its receivers' egresses in x; L7, slot i n + j crosses
    ingress i and egress n + j."""
    table = flow_table(nf, n if l3 else 2, 2 * n)
    lbuf = np.empty(n + 1, np.int64)
    rows = np.zeros(n, np.int64)
    cols = np.zeros(n, np.int64)
    for s in range(nf):
        if l3:
            _l3_links(n, x, s, table, lbuf, rows, cols)
        else:
            lbuf[0] = s // n
            lbuf[1] = n + s % n
            set_links(table, s, lbuf, 2)
    return table, lbuf, rows, cols


@njit(cache=True, inline="always")
def _active_bits(factive):
    """The active slots as a bit set (at most 63 slots; branch-free)."""
    bits = 0
    for s in range(factive.shape[0]):
        bits |= np.int64(factive[s]) << s
    return bits


@njit(cache=True, inline="always")
def _next_completion(now, factive, frem, fvol, frate, abits):
    """When the next flow completes at the current rates (s): ``now`` if one is done already,
    infinity if no flow is active (or none has a positive rate).  ``abits`` >= 0: the active slots as a
    bit set (:func:`_active_bits`, L3 with n <= BIG_SWITCH_MAX), visited in the same increasing order
    instead of every slot; -1: every slot is checked.  (The two loops repeat their body on purpose: a
    shared inlined step returning a "done" sentinel measured 2-8 % slower per run, 2026-11-30.)"""
    left = np.inf
    anyf = False
    if abits >= 0:
        anyf = abits != 0
        b = abits
        while b != 0:
            s = lowest_bit(b)
            b &= b - 1
            if _is_done(s, frem, fvol, frate):
                left = 0.0
                break
            if frate[s] > 0.0:
                left = min(left, frem[s] / frate[s])
        return now + left if anyf else np.inf
    for s in range(factive.shape[0]):
        if factive[s]:
            anyf = True
            if _is_done(s, frem, fvol, frate):
                left = 0.0
                break
            if frate[s] > 0.0:
                left = min(left, frem[s] / frate[s])
    return now + left if anyf else np.inf


@njit(cache=True, inline="always")
def _reserve(t, t_c, comp_end, selmcast, sizes, ci, cf):
    """Before the event at ``t``: NEED_SPACE if the log, of ``sizes`` (multicasts, receivers, drops,
    Orpheus uniforms), may be too small for it (the sizes it needs go to ``ci[NEED_*]``), STALLED if
    the clock has not moved for 10,000 events, else -1 (go on)."""
    n = comp_end.shape[0]
    nready = 0
    if t_c <= t:
        for w in range(n):
            if comp_end[w] <= t:
                nready += 1
    # log space for this event: nready launches of < n receivers; a selection drops at most
    # the pairs in x, which launches grow by < n each
    ci[NEED_MC] = ci[NMC] + nready
    ci[NEED_RECV] = ci[NRECV] + nready * n
    ci[NEED_DROP] = ci[NDROP] + nready * (ci[NX] + nready * n)
    ci[NEED_U] = ci[USED_U] + nready * n if not selmcast else 0
    if (ci[NEED_MC] > sizes[0] or ci[NEED_RECV] > sizes[1] or ci[NEED_DROP] > sizes[2]
            or ci[NEED_U] > sizes[3]):
        return NEED_SPACE
    if t == cf[T_LAST]:
        ci[STALLED] += 1
        if ci[STALLED] > 10_000:
            return STALLED
    else:
        ci[STALLED] = 0
    cf[T_LAST] = t
    return -1


@njit(cache=True, inline="always")
def _advance_network(t, l3, factive, frem, fvol, frate, fseq, arrived, vrem, done, ci, cf):
    """The network moves to ``t``: every flow drains at its rate, then the flows done by then end in
    creation order (as the flow network does); L7, each such receiver has the model (SM67).  The
    tasks whose multicast has no flow left, in that order, go to ``done``; returns how many.  With at most
    63 slots the done flows are looked for among the active slots' bits (:func:`_active_bits`), in the
    same increasing order."""
    n = arrived.shape[0]
    nf = factive.shape[0]
    dt = t - cf[NOW]
    if dt > 0.0:
        drain(frem, frate, factive, nf, dt)
    cf[NOW] = t
    nd = 0
    if nf <= BIG_SWITCH_MAX:                            # the active slots' bit set (as _next_completion)
        b = _active_bits(factive)
        while b != 0:
            s = lowest_bit(b)
            b &= b - 1
            if _is_done(s, frem, fvol, frate):
                done[nd] = s
                nd += 1
    else:
        for s in range(nf):
            if factive[s] and _is_done(s, frem, fvol, frate):
                done[nd] = s
                nd += 1
    for a in range(1, nd):                              # creation order, as the flow network
        q = a
        while q > 0 and fseq[done[q - 1]] > fseq[done[q]]:
            done[q - 1], done[q] = done[q], done[q - 1]
            q -= 1
    nt = 0
    for a in range(nd):
        s = done[a]
        factive[s] = False
        frate[s] = 0.0
        ci[DIRTY] = 1
        i = s if l3 else s // n
        if not l3:
            arrived[i, s - i * n] = t
            vrem[i, s - i * n] = 0.0                    # that receiver has the model (SM67)
            if not _l7_idle(i, n, factive):
                continue
        done[nt] = i                                    # nt <= a: slots not read yet stay intact
        nt += 1
    return nt


@njit(cache=True, inline="always")
def _ready(t, t_c, comp_end, ready):
    """The workers whose iteration has ended by t (none if the earliest end ``t_c`` is later), in
    worker order, into ``ready``; returns how many."""
    nr = 0
    if t_c <= t:
        for w in range(comp_end.shape[0]):
            if comp_end[w] <= t:
                ready[nr] = w
                nr += 1
    return nr


#: Buckets of :func:`_orpheus_pick`'s counting selection (uniform keys in [0, 1): ~1 key a bucket at n = 50).
ORPHEUS_BUCKETS = 64


@njit(cache=True, inline="always")
def _bucket(u, nb):
    """Bucket of key ``u`` among ``nb`` over [0, 1) (outside: the first or last bucket): non-decreasing in u,
    so a key in a lower bucket is smaller than every key in a higher one."""
    f = u * nb
    if f >= nb:
        return nb - 1
    if f > 0.0:
        return int(f)
    return 0


@njit(cache=True, _nrt=True)
def _orpheus_tie(kappa, take, due, x, u):
    """Orpheus's receivers of kappa when equal uniforms tie at the cut (:func:`_orpheus_pick`): the first
    ``take`` of ``np.argsort`` of the keys ``u`` (n,) with kappa's due ones at -1 and kappa's own at inf.
    Compiled with numba's reference counts (it allocates), unlike the event loop that calls it."""
    n = u.shape[0]
    kk = u.copy()
    for j in range(n):
        if due[kappa, j]:
            kk[j] = -1.0
    kk[kappa] = np.inf
    chosen = np.argsort(kk)[:take]
    for q in range(chosen.shape[0]):
        x[kappa, chosen[q]] = 1


@njit(cache=True, inline="always")
def _orpheus_pick(kappa, p, due, x, in_g, orph_u, keys, counts, ci):
    """Orpheus's receivers of kappa (SM65): its due ones first, then the p smallest of n fresh
    uniform keys (kappa's own key infinite); ``keys`` (n,) float and ``counts`` (ORPHEUS_BUCKETS,) int64 are
    work space.

    The receivers are the first max(p, |due|) of ``np.argsort`` of the keys (due ones -1):
    the due ones and every key up to the take-th smallest of the others (the cut), take = max(p, |due|) -
    |due|; only if the (take + 1)-th smallest equals the cut (equal uniforms) does the choice depend on
    the sort's order of equal keys, and then it is taken from ``np.argsort`` itself.  The two order
    statistics are found by counting the keys into buckets of [0, 1) (:func:`_bucket`, monotone), then
    sorting the keys of the bucket that holds the cut (about one): the same values as sorting them all
    (issue 48 item 1; it replaced a bounded insertion of the take + 1 smallest)."""
    n = x.shape[0]
    u0 = ci[USED_U]
    ci[USED_U] = u0 + n
    ndue = 0
    nk = 0
    for j in range(n):
        if due[kappa, j]:
            x[kappa, j] = 1
            ndue += 1
        elif j != kappa:
            keys[nk] = orph_u[u0 + j]
            nk += 1
    take = max(p, ndue) - ndue                          # uniforms to take, of nk
    if 0 < take < nk:
        nb = counts.shape[0]
        for b in range(nb):
            counts[b] = 0
        for a in range(nk):
            counts[_bucket(keys[a], nb)] += 1
        acc = 0                                         # keys in the buckets below bucket b
        b = 0
        while acc + counts[b] < take:
            acc += counts[b]
            b += 1
        r = take - acc                                  # the cut is the r-th smallest of bucket b's keys
        cb = 0
        for a in range(nk):                             # bucket b's keys to the front, then sorted
            if _bucket(keys[a], nb) == b:
                keys[cb] = keys[a]
                cb += 1
        for a in range(1, cb):
            key = keys[a]
            q = a
            while q > 0 and keys[q - 1] > key:
                keys[q] = keys[q - 1]
                q -= 1
            keys[q] = key
        cut = keys[r - 1]
        if r < cb and keys[r] == cut:                   # a tie at the cut: the sort decides
            _orpheus_tie(kappa, max(p, ndue), due, x, orph_u[u0:u0 + n])
        else:                                           # (r == cb: the next key is in a higher bucket)
            for j in range(n):
                if j != kappa and not due[kappa, j] and orph_u[u0 + j] <= cut:
                    x[kappa, j] = 1
    elif take > 0:                                      # every other worker
        for j in range(n):
            if j != kappa:
                x[kappa, j] = 1
    ci[NX] += ndue + take
    in_g[kappa] = True


@njit(cache=True, inline="always")
def _snapshot_g(l3, in_g, x, vrem, factive, frem, old, gl):
    """G's tasks into ``gl`` (returned: how many), their remaining volumes into ``vrem`` and their rows
    of x into ``old``."""
    n = x.shape[0]
    ng = 0
    for i in range(n):
        if in_g[i]:
            for j in range(n):
                if l3:
                    vrem[i, j] = frem[i]
                elif factive[i * n + j]:
                    vrem[i, j] = frem[i * n + j]
                old[ng, j] = x[i, j]
            gl[ng] = i
            ng += 1
    return ng


@njit(cache=True, inline="always")
def _g_list(in_g, gl):
    """G's tasks, in id order, into ``gl``; returns how many."""
    ng = 0
    for i in range(in_g.shape[0]):
        if in_g[i]:
            gl[ng] = i
            ng += 1
    return ng


@njit(cache=True, inline="always")
def _preempt_l3(kappa, ng, t, gl, ybits, x, cur_mc, log, links, ci):
    """:func:`_preempt` after :func:`~.ssp_selection._algorithm2_l3` (L3, n <= BIG_SWITCH_MAX): the receivers
    it took from G's multicasts are the bits of their receiver sets (``links``' rows, still the plan before
    it) not in their new rows ``ybits``; each drop is logged (tasks, then receivers, in increasing id, as
    :func:`_preempt`) and the multicast's flow leaves the dropped egresses.  Keeps ``ci[NX]`` current."""
    n = x.shape[0]
    drop_mc, drop_j, drop_t = log.drop_mc, log.drop_j, log.drop_t
    table, lbuf, rows, cols = links
    nx = ci[NX] + popcount(ybits[kappa])
    for q in range(ng):
        i = gl[q]
        gone = rows[i] & ~ybits[i]
        if gone == 0:
            continue
        while gone != 0:
            j = lowest_bit(gone)
            gone &= gone - 1
            nx -= 1
            d = ci[NDROP]
            drop_mc[d] = cur_mc[i]
            drop_j[d] = j
            drop_t[d] = t
            ci[NDROP] = d + 1
        ci[DIRTY] = 1
        _l3_links(n, x, i, table, lbuf, rows, cols)     # the flow leaves the dropped egresses
    ci[NX] = nx


@njit(cache=True, inline="always")
def _estimate_tau(kappa, t, cfg, rounds, state, comp_start, comp_end, in_g, tau, dcnt, dsum, top):
    """tau for G and kappa (SM51; :func:`tau_estimates`), zero under ``cfg.tau_mode`` 2 or without an
    SSP bound; ``dcnt`` multicasts finished so far, of total duration ``dsum`` (s); ``top`` (n,) work space."""
    in_g[kappa] = True
    if cfg.tau_mode == 2 or cfg.ssp < 0:
        tau[:] = 0.0
    else:
        dbar = dsum / dcnt if dcnt > 0 else 0.0
        _tau_into(t, rounds, state, comp_start, comp_end, in_g, cfg.ssp, cfg.tau_mode == 1, cfg.res, dbar, tau, top)
    in_g[kappa] = False


@njit(cache=True, inline="always")
def _preempt(kappa, ng, t, l3, gl, old, x, fl, cur_mc, log, links, ci):
    """The receivers Algorithm 2 took from G's running multicasts (``old`` against x, row-major over G):
    each drop is logged and its flow ends (L3: the multicast's flow leaves the dropped egresses, in
    ``links``: the flow table, a link buffer and the receivers' bit sets); an L7 receiver that has the
    model already stays one (SM67).  Keeps ``ci[NX]``, the ones in x, current (rows outside G are unchanged, kappa's was empty)."""
    n = x.shape[0]
    factive, frate = fl.active, fl.rate
    drop_mc, drop_j, drop_t = log.drop_mc, log.drop_j, log.drop_t
    table, lbuf, rows, cols = links
    nx = ci[NX]
    for j in range(n):
        nx += x[kappa, j]
    for q in range(ng):
        i = gl[q]
        dropped = False
        for j in range(n):
            if old[q, j] > x[i, j]:
                if not l3 and not factive[i * n + j]:
                    x[i, j] = 1                         # delivered already: stays a receiver (SM67)
                    continue
                nx -= 1
                dropped = True
                if not l3:
                    factive[i * n + j] = False
                    frate[i * n + j] = 0.0
                ci[DIRTY] = 1
                d = ci[NDROP]
                drop_mc[d] = cur_mc[i]
                drop_j[d] = j
                drop_t[d] = t
                ci[NDROP] = d + 1
        if l3 and dropped:                              # the flow leaves the dropped egresses
            _l3_links(n, x, i, table, lbuf, rows, cols)
    ci[NX] = nx


@njit(cache=True, inline="always")
def _reclass(kappa, order, l3, keep, fl, ci, work):
    """SM50's strict priority in Algorithm 2's order: the tasks of ``order`` get increasing classes
    (:func:`place_classes`, in the work space ``work``, (4, n) int64); a running task whose class moved gets
    new flows at its new class for what it has left, unless that is below ``keep`` bits (READD_MIN of the
    model)."""
    prio, factive, frem = fl.task_cls, fl.active, fl.rem
    n = prio.shape[0]
    moved = work[3]
    for q in range(_place_classes(order, kappa, prio, BASE, GAP, work)):
        i = moved[q]
        if l3:
            if factive[i] and frem[i] >= keep:
                _new_flow(i, frem[i], prio[i], fl, ci)
        else:
            for j in range(n):
                s = i * n + j
                if factive[s] and frem[s] >= keep:
                    _new_flow(s, frem[s], prio[i], fl, ci)


@njit(cache=True, inline="always")
def _launch(kappa, t, cfg, x, rounds, iters, cur_mc, fl, log, links, ci):
    """kappa's multicast starts at t to its receivers in x: logged, and its flows created (L3 one over
    its ingress and their egresses, in ``links``: the flow table, a link buffer, the bit sets; L7 one per
    receiver) at its class (strict priority; SM50's "fifo": classes in start order) or class 0 (max-min)."""
    n, l3, prio_mode = cfg.n, cfg.l3, cfg.prio_mode
    table, lbuf, rows, cols = links
    prio = fl.task_cls
    mc = ci[NMC]
    ci[NMC] = mc + 1
    cur_mc[kappa] = mc
    log.sender[mc] = kappa
    log.round[mc] = rounds[kappa] + 1
    log.start[mc] = t
    log.sender_iter[mc] = iters[kappa]
    log.finish[mc] = np.nan
    r0 = ci[NRECV]
    log.r0[mc] = r0
    if prio_mode and cfg.fifo:                          # SM50's "fifo": classes in start order
        prio[kappa] = BASE + mc
    pr = prio[kappa] if prio_mode else 0
    nrc = 0
    for j in range(n):
        if x[kappa, j] == 1:
            log.recv[r0 + nrc] = j
            log.recv_at[r0 + nrc] = np.nan
            nrc += 1
            if not l3:
                _new_flow(kappa * n + j, cfg.volume, pr, fl, ci)
    log.nr[mc] = nrc
    ci[NRECV] = r0 + nrc
    if l3:
        _l3_links(n, x, kappa, table, lbuf, rows, cols)
        _new_flow(kappa, cfg.volume, pr, fl, ci)


@njit(cache=True, inline="always")
def _set_capacities(bwk, bw_sched, b_eg, b_in, caps, ci):
    """Bandwidth period ``bwk`` begins (SM56): every worker's egress and ingress from its row of the
    schedule ``bw_sched``, in Algorithm 2's plan and as the links' capacities ``caps``."""
    n = b_eg.shape[0]
    for w in range(n):
        b_eg[w] = bw_sched[bwk - 1, 0, w]
        b_in[w] = bw_sched[bwk - 1, 1, w]
        caps[w] = b_in[w]
        caps[n + w] = b_eg[w]
    ci[BWK] = bwk + 1
    ci[DIRTY] = 1


# --------------------------------------------------------------------------- the loop
@njit(cache=True, _nrt=True)
def run_loop(cfg, wk, plan, fl, log, cn):
    """Advance the simulation until its end or until the driver must grow an array.

    ``cfg``: :class:`Config`; the state, changed in place: ``wk`` (:class:`Workers`), ``plan``
    (Algorithm 2's :class:`~.ssp_selection.Plan`), ``fl`` (:class:`Flows`), ``log``
    (:class:`Log`), ``cn`` (:class:`Counters`).  Returns DONE, NEED_DRAWS (a worker has no
    unused compute draw left), NEED_SPACE (the log arrays may be too small for the next event:
    ``cn.ints[NEED_*]``) or STALLED (the clock stopped advancing: a guard against bugs), the protocol
    of :mod:`simlib.runtime.kernel_driver`.  Runs the model of ``SSPCluster._run_flow`` (the
    reference on :class:`~simlib.core.network.FlowNetwork`), but is written independently of it
    (SM68): the tests check that the two agree on every multicast, receiver, drop and time.

    Each event: rates are refreshed if stale; the next event is the earliest of a compute end, a flow
    completion (:func:`_next_completion`) and a bandwidth period; :func:`_reserve` checks the log's
    space; the network moves to it (:func:`_advance_network`) and the multicasts it completed finish
    (:func:`_finish`); every worker whose iteration ended picks its receivers (Orpheus,
    :func:`_orpheus_pick`; SelMcast, :func:`_snapshot_g`, :func:`_estimate_tau`, Algorithm 2,
    :func:`_preempt` and :func:`_reclass`, or under L3 with n <= 63 and line 33's reading
    "own" :func:`_g_list`, :func:`_estimate_tau`, Algorithm 2 on the receiver sets
    (:func:`~.ssp_selection._algorithm2_l3`, the same plans bit for bit), :func:`_preempt_l3` and
    :func:`_reclass`) and its multicast starts (:func:`_launch`); a new
    bandwidth period sets the capacities (:func:`_set_capacities`).  The events run in :func:`_events`,
    on the work space allocated here (see the module's note on reference counts)."""
    n, nslots = cfg.n, fl.active.shape[0]
    links = _flow_table(n, cfg.l3, plan.x, nslots)     # the flows' links, a link buffer, bit sets
    ybits = np.zeros(n, np.int64)                       # its new rows of x
    dbits = np.zeros(n, np.int64)                       # D's rows as bit sets (n <= BIG_SWITCH_MAX; _finish
    cplanes = np.zeros((C_BITS, n), np.int64)           # keeps them from here on), and c's bit planes
    if n <= BIG_SWITCH_MAX:
        for i in range(n):
            dbits[i] = _row_bits(plan.due, i)
        c_planes(plan.c, cplanes)
    alg = scratch(n)                                    # Algorithm 2's output and work space
    old = np.empty((n, n), np.int8)                     # G's rows of x before it
    gl = np.empty(n, np.int64)                          # G's tasks
    done = np.empty(nslots, np.int64)                   # the flows, then the tasks, done at an event
    ready = np.empty(n, np.int64)                       # the workers whose iteration ended
    okeys = np.empty(n)                                 # Orpheus's keys
    ttop = np.empty(n)                                  # tau's work space (_tau_into)
    pwork = np.empty((4, n), np.int64)                  # the classes' work space (_place_classes)
    obuckets = np.empty(ORPHEUS_BUCKETS, np.int64)      # and their buckets' counts
    return _events(cfg, wk, plan, fl, log, cn, Space(links, ybits, dbits, cplanes, alg, old, gl, done, ready, okeys,
                                                     ttop, pwork, obuckets))


@njit(cache=True, _nrt=False)
def _events(cfg, wk, plan, fl, log, cn, space):
    """:func:`run_loop`'s events, on the work space it allocated (``space``, a :class:`Space`); compiled
    without numba's reference counts (``_nrt=False``): it allocates nothing and keeps no array beyond the call,
    and ``run_loop`` holds every array it reads, so the ~230 counts a selection took (atomic increments and decrements of the arrays'
    bundles at each step) are not needed (issue 48)."""
    links, ybits, dbits, cplanes, alg, old, gl, done, ready, okeys, ttop, pwork, obuckets = space
    n, l3, selmcast, prio_mode, fifo = cfg.n, cfg.l3, cfg.selmcast, cfg.prio_mode, cfg.fifo
    x, vrem, in_g, start = plan.x, plan.vrem, plan.in_g, plan.start
    comp_end, used, draws, cur_mc = wk.comp_end, wk.used, wk.draws, wk.cur_mc
    factive, frem, fvol, frate = fl.active, fl.rem, fl.vol, fl.rate
    ci, cf = cn.ints, cn.floats
    iters, state, rounds, comp_start = wk.iters, wk.state, wk.rounds, wk.comp_start
    caps, fcls, fseq, farrived = fl.caps, fl.cls, fl.seq, fl.arrived
    tau, due, orph_u = plan.tau, plan.due, log.orph_u
    sizes = (log.sender.shape[0], log.recv.shape[0], log.drop_mc.shape[0], log.orph_u.shape[0])
    nbw = cfg.bw_sched.shape[0]
    keep = READD_MIN * cfg.volume
    table, rows, cols = links[0], links[2], links[3]
    big = l3 and not prio_mode and n <= BIG_SWITCH_MAX  # one max-min class of multicasts (N18)
    bigp = l3 and prio_mode and n <= BIG_SWITCH_MAX     # strict priority, a class per multicast (SM50)
    few = factive.shape[0] <= BIG_SWITCH_MAX            # the active slots fit a bit set (L3, n <= 63)
    # Algorithm 2 on the receiver sets (L3, n <= BIG_SWITCH_MAX, line 33 "own")
    bits = l3 and n <= BIG_SWITCH_MAX and not cfg.rules.deadline_all
    order = alg.order
    while True:
        out_of_draws = False                            # a worker draws at most once per event
        for w in range(n):
            out_of_draws |= used[w] >= draws.shape[1]
        if out_of_draws:
            return NEED_DRAWS
        if ci[DIRTY]:
            if big:
                share_big_switch(caps, rows, cols, factive, frate, table)
            elif bigp:
                if not share_big_switch_priority(caps, rows, factive, fcls, frate, table):
                    share_rates(caps, table, factive, fcls, frate)   # (a class of two flows)
            else:
                share_rates(caps, table, factive, fcls, frate)
            ci[DIRTY] = 0
        abits = _active_bits(factive) if few else -1
        t_c = _extreme(comp_end, False)
        t_f = _next_completion(cf[NOW], factive, frem, fvol, frate, abits)
        bwk = ci[BWK]
        next_bw = bwk * cfg.period if bwk <= nbw else np.inf
        t = min(t_c, t_f, next_bw)
        if t > cfg.duration or t == np.inf:
            return DONE
        status = _reserve(t, t_c, comp_end, selmcast, sizes, ci, cf)
        if status >= 0:
            return status
        nd = _advance_network(t, l3, factive, frem, fvol, frate, fseq, farrived, vrem, done, ci, cf)
        for a in range(nd):                             # the multicasts that ended, in that order
            _finish(done[a], t, cfg, wk, plan, fl, log, cn, dbits, cplanes)
        for a in range(_ready(t, t_c, comp_end, ready)):
            kappa = ready[a]
            iters[kappa] += 1
            comp_end[kappa] = np.inf
            state[kappa] = MULTICASTING
            start[kappa] = t
            ci[SEL] += 1
            if not selmcast:
                _orpheus_pick(kappa, cfg.p, due, x, in_g, orph_u, okeys, obuckets, ci)
            elif bits:
                ng = _g_list(in_g, gl)
                _estimate_tau(kappa, t, cfg, rounds, state, comp_start, comp_end, in_g, tau,
                              ci[DCNT], cf[DSUM], ttop)
                m = _algorithm2_l3(kappa, plan, cfg.rules, alg, frem, rows, ybits, dbits, cplanes)
                _preempt_l3(kappa, ng, t, gl, ybits, x, cur_mc, log, links, ci)
                if prio_mode and not fifo:              # SM50: classes in Algorithm 2's order
                    _reclass(kappa, order[:m], l3, keep, fl, ci, pwork)
            else:
                ng = _snapshot_g(l3, in_g, x, vrem, factive, frem, old, gl)
                _estimate_tau(kappa, t, cfg, rounds, state, comp_start, comp_end, in_g, tau,
                              ci[DCNT], cf[DSUM], ttop)
                m = _algorithm2(kappa, plan, cfg.rules, alg)
                _preempt(kappa, ng, t, l3, gl, old, x, fl, cur_mc, log, links, ci)
                if not l3:                              # every undelivered receiver dropped: done
                    for q in range(ng):
                        if _l7_idle(gl[q], n, factive):
                            _finish(gl[q], t, cfg, wk, plan, fl, log, cn, dbits, cplanes)
                if prio_mode and not fifo:              # SM50: classes in Algorithm 2's order
                    _reclass(kappa, order[:m], l3, keep, fl, ci, pwork)
            _launch(kappa, t, cfg, x, rounds, iters, cur_mc, fl, log, links, ci)
        if next_bw <= t:
            _set_capacities(bwk, cfg.bw_sched, plan.b_eg, plan.b_in, fl.caps, ci)


# code compiled from ssp_selection is frozen into this module's cache entries (simlib.core.jitcache)
jitcache.track(globals())
