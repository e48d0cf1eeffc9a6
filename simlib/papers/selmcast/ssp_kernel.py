"""The SSP cluster's compiled parts: Algorithm 2's helpers and the whole event loop (decision SM68).

One 10-minute n = 50 run has ~20,000 multicasts and ~60,000 events; driving
:class:`~simlib.core.network.FlowNetwork` from Python cost ~250 us per
multicast, so the §IV-C reproduction took over an hour.  :func:`run_loop`
runs the same simulation as ``SSPCluster(engine="flow")`` -- the worker loop,
Algorithm 2 (:func:`~simlib.papers.selmcast.ssp_selection._algorithm2`), tau
(:func:`tau_estimates`), the priority placement (:func:`place_classes`), Orpheus's key rule,
the flow network's drain and completion tolerance (decision N6) and its
strict-priority max-min sharing -- inside one compiled loop.  The two engines
are independent implementations of one model, cross-checked in the tests
(same multicasts, receivers and drops; times to 1e-9).

Flows live in slots: L3, slot i is sender i's multicast, whose links are its
ingress i and the egress n + j of every j with x[i, j] = 1; L7, slot i * n + j
is the unicast i -> j over links i and n + j.  Rates are recomputed after any
change by water-filling per priority class (lower class first, max-min inside
a class, work-conserving); with at most n flows (L3) that is cheaper than
keeping them incrementally.

The loop is resumable: before an event that could need a compute-time draw a
worker does not have yet, or more log space than is left, it returns a status;
the driver (``SSPCluster._run_compiled``) grows the arrays and calls it again,
and the event is handled as if nothing had happened.  Units: seconds, bits,
bits/s.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from simlib.core import jitcache
from simlib.core.sharing import drain, flow_table, set_links, share_rates
from simlib.core.tolerance import is_done

from . import ssp_selection
from .ssp_selection import _algorithm2

DONE, NEED_DRAWS, NEED_SPACE, STALLED = 0, 1, 2, 3
COMPUTING, MULTICASTING, BLOCKED = 0, 1, 2
GAP = 1 << 20       # spacing of strict-priority classes, so a new task can be slotted in between
BASE = 1 << 40      # first class number (room below it for tasks placed ahead of every running one)
READD_MIN = 0.01    # flows with less than this share of the model left are not re-created (SM50)

# integer state (ist): flow sequence, multicasts, receivers, drops logged, Orpheus uniforms used,
# next bandwidth period, stalled events, multicasts finished, max gap, selections, rates stale,
# ones in x, and the sizes the next event needs (multicast, receiver, drop and uniform arrays)
(I_SEQ, I_NMC, I_NRECV, I_NDROP, I_USED_U, I_BWK, I_STALLED, I_DCNT, I_MAXGAP, I_SEL, I_DIRTY, I_NX,
 I_NEED_MC, I_NEED_RECV, I_NEED_DROP, I_NEED_U) = range(16)
N_IST = 16
# float state (fst): clock, last event time, sum of finished multicast durations
F_NOW, F_TLAST, F_DSUM = range(3)
N_FST = 3
# configuration: ints (cfg_i) and floats (cfg_f)
C_N, C_L3, C_SELMCAST, C_PRIO, C_P, C_SSP, C_K, C_TAU, C_DESC, C_L32X, C_DLALL, C_NBW = range(12)
N_CFG_I = 12
C_VOL, C_ETA, C_DUR, C_PERIOD, C_MEANT = range(5)
N_CFG_F = 5


@njit(cache=True)
def place_classes(order, kappa, prio, base, gap):
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
def residual_tables(x: np.ndarray):
    """Survival S(x_k) at the sorted samples and I_k = integral of S over [x_k, x_max]."""
    nn = x.size
    surv = 1.0 - np.arange(nn) / max(nn - 1, 1)
    seg = 0.5 * np.diff(x) * (surv[:-1] + surv[1:])   # S is linear on each segment: exact
    tail = np.concatenate([np.cumsum(seg[::-1])[::-1], [0.0]])
    return surv, tail


@njit(cache=True)
def mean_residual_at(x, surv, tail, a, out):
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
def tau_estimates(t, rounds, state, comp_start, comp_end, in_g, ssp, oracle, x, surv, tail, mean_T, dbar, tau):
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
                    resid[j] = mean_residual_at(x, surv, tail, one, res)[0]
            est = resid[j] + (m - 1) * mean_T + m * dbar
            if est > best:
                best = est
        tau[i] = best
    return tau




# --------------------------------------------------------------------------- flows' links
@njit(cache=True)
def _l3_links(n, x, s, table, buf):
    """Slot s (L3: sender s's multicast) crosses its ingress s and the egress n + j of every receiver j."""
    buf[0] = s
    k = 1
    for j in range(n):
        if x[s, j] == 1:
            buf[k] = n + j
            k += 1
    set_links(table, s, buf, k)


@njit(cache=True, inline="always")
def _is_done(frem, fvol, frate, s):
    return is_done(frem[s], fvol[s]) or frate[s] == np.inf


@njit(cache=True, inline="always")
def _new_flow(s, vol, prio, ist, factive, frem, fvol, frate, fprio, fseq):
    factive[s] = True
    frem[s] = vol
    fvol[s] = vol
    frate[s] = 0.0
    fprio[s] = prio
    fseq[s] = ist[I_SEQ]
    ist[I_SEQ] += 1
    ist[I_DIRTY] = 1


# --------------------------------------------------------------------------- workers
@njit(cache=True, inline="always")
def _start_compute(w, t, state, comp_start, comp_end, draws, used, cstart):
    d = draws[w, used[w]]
    cstart[w, used[w]] = t
    used[w] += 1
    state[w] = COMPUTING
    comp_start[w] = t
    comp_end[w] = t + d


@njit(cache=True)
def _finish(i, t, l3, ssp, k, ist, fst, state, comp_start, comp_end, rounds, blocked_since, blocked,
            used, cur_mc, x, c, due, in_g, arrived, draws, cstart, mc_start, mc_finish, mc_r0, mc_nr,
            recv, recv_at):
    """Task i's multicast ends at t: log it, update c and D (SM55), then the SSP gate (SM58)."""
    n = rounds.shape[0]
    mc = cur_mc[i]
    mc_finish[mc] = t
    r0 = mc_r0[mc]
    for q in range(mc_nr[mc]):
        j = recv[r0 + q]
        if x[i, j] == 1:
            recv_at[r0 + q] = t if l3 else arrived[i, j]
    ist[I_DCNT] += 1
    fst[F_DSUM] += t - mc_start[mc]
    for j in range(n):
        if x[i, j] == 1:
            ist[I_NX] -= 1
            c[i, j] = 0
        elif j == i:
            c[i, j] = 0
        else:
            c[i, j] += 1
        due[i, j] = k >= 0 and j != i and c[i, j] >= k
        x[i, j] = 0
        if not l3:
            arrived[i, j] = np.nan
    in_g[i] = False
    cur_mc[i] = -1
    low_before = rounds.min()
    rounds[i] += 1
    low = rounds.min()
    if ssp < 0 or rounds[i] - low <= ssp:
        ist[I_MAXGAP] = max(ist[I_MAXGAP], rounds[i] - low)
        _start_compute(i, t, state, comp_start, comp_end, draws, used, cstart)
    else:
        state[i] = BLOCKED
        blocked_since[i] = t
    if low > low_before:
        for w in range(n):
            if state[w] == BLOCKED and rounds[w] - low <= ssp:
                blocked[w] += t - blocked_since[w]
                blocked_since[w] = np.nan
                ist[I_MAXGAP] = max(ist[I_MAXGAP], rounds[w] - low)
                _start_compute(w, t, state, comp_start, comp_end, draws, used, cstart)


@njit(cache=True, inline="always")
def _l7_idle(i, n, factive):
    for j in range(n):
        if factive[i * n + j]:
            return False
    return True


# --------------------------------------------------------------------------- the loop
@njit(cache=True)
def run_loop(cfg_i, cfg_f, rx, surv, tail, bw_sched, draws, orph_u,
             ist, fst, state, comp_start, comp_end, iters, rounds, blocked_since, blocked, used, cur_mc,
             x, vrem, v, p_arr, c, due, in_g, start, tau, prio, b_in, b_eg, caps,
             factive, frem, fvol, frate, fprio, fseq, arrived,
             mc_sender, mc_round, mc_start, mc_iter, mc_finish, mc_r0, mc_nr, recv, recv_at,
             drop_mc, drop_j, drop_t, cstart):
    """Advance the simulation until its end or until the driver must grow an array.

    Returns DONE, NEED_DRAWS (a worker has no unused compute draw left),
    NEED_SPACE (the log arrays may be too small for the next event) or STALLED
    (the clock stopped advancing: a guard against bugs).  Mirrors
    ``SSPCluster._run_flow`` statement for statement."""
    n = cfg_i[C_N]
    l3 = cfg_i[C_L3] == 1
    selmcast = cfg_i[C_SELMCAST] == 1
    prio_mode = cfg_i[C_PRIO] == 1
    p = cfg_i[C_P]
    ssp = cfg_i[C_SSP]                 # < 0: no gate
    k = cfg_i[C_K]                     # < 0: requirement removed
    tau_mode = cfg_i[C_TAU]            # 0 trace, 1 oracle, 2 zero
    descending = cfg_i[C_DESC] == 1
    line32_x = cfg_i[C_L32X] == 1
    deadline_all = cfg_i[C_DLALL] == 1
    nbw = cfg_i[C_NBW]
    volume = cfg_f[C_VOL]
    eta = cfg_f[C_ETA]
    duration = cfg_f[C_DUR]
    period = cfg_f[C_PERIOD]
    mean_t = cfg_f[C_MEANT]
    nf = factive.shape[0]
    table = flow_table(nf, n if l3 else 2, 2 * n)
    lbuf = np.empty(n + 1, np.int64)
    for s in range(nf):
        if l3:
            _l3_links(n, x, s, table, lbuf)
        else:
            lbuf[0] = s // n
            lbuf[1] = n + s % n
            set_links(table, s, lbuf, 2)
    y = np.empty_like(x)
    order = np.empty(n, np.int64)
    deadline = np.empty(n)
    old = np.empty((n, n), np.int8)
    gl = np.empty(n, np.int64)
    ready = np.empty(n, np.int64)
    doneslots = np.empty(nf, np.int64)
    keep = READD_MIN * volume
    while True:
        for w in range(n):                                  # a worker draws at most once per event
            if used[w] >= draws.shape[1]:
                return NEED_DRAWS
        if ist[I_DIRTY]:
            share_rates(caps, table, factive, fprio, frate)
            ist[I_DIRTY] = 0
        now = fst[F_NOW]
        t_c = comp_end.min()
        left = np.inf                                       # time to the next flow completion
        anyf = False
        for s in range(nf):
            if factive[s]:
                anyf = True
                if _is_done(frem, fvol, frate, s):
                    left = 0.0
                    break
                if frate[s] > 0.0:
                    left = min(left, frem[s] / frate[s])
        t_f = now + left if anyf else np.inf
        bwk = ist[I_BWK]
        next_bw = bwk * period if bwk <= nbw else np.inf
        t = min(t_c, t_f, next_bw)
        if t > duration or t == np.inf:
            return DONE
        nready = 0
        if t_c <= t:
            for w in range(n):
                if comp_end[w] <= t:
                    nready += 1
        # log space for this event: nready launches of < n receivers; a selection drops at most
        # the pairs in x, which launches grow by < n each
        ist[I_NEED_MC] = ist[I_NMC] + nready
        ist[I_NEED_RECV] = ist[I_NRECV] + nready * n
        ist[I_NEED_DROP] = ist[I_NDROP] + nready * (ist[I_NX] + nready * n)
        ist[I_NEED_U] = ist[I_USED_U] + nready * n if not selmcast else 0
        if (ist[I_NEED_MC] > mc_sender.shape[0] or ist[I_NEED_RECV] > recv.shape[0]
                or ist[I_NEED_DROP] > drop_mc.shape[0] or ist[I_NEED_U] > orph_u.shape[0]):
            return NEED_SPACE
        if t == fst[F_TLAST]:
            ist[I_STALLED] += 1
            if ist[I_STALLED] > 10_000:
                return STALLED
        else:
            ist[I_STALLED] = 0
        fst[F_TLAST] = t
        # ---- the network moves to t: drain at the current rates, collect completions
        dt = t - now
        if dt > 0.0:
            drain(frem, frate, factive, nf, dt)
        fst[F_NOW] = t
        nd = 0
        for s in range(nf):
            if factive[s] and _is_done(frem, fvol, frate, s):
                doneslots[nd] = s
                nd += 1
        for a in range(1, nd):                              # creation order, as the flow network
            q = a
            while q > 0 and fseq[doneslots[q - 1]] > fseq[doneslots[q]]:
                doneslots[q - 1], doneslots[q] = doneslots[q], doneslots[q - 1]
                q -= 1
        for a in range(nd):
            s = doneslots[a]
            factive[s] = False
            frate[s] = 0.0
            ist[I_DIRTY] = 1
            i = s if l3 else s // n
            if not l3:
                arrived[i, s - i * n] = t
                vrem[i, s - i * n] = 0.0                    # that receiver has the model (SM67)
                if not _l7_idle(i, n, factive):
                    continue
            _finish(i, t, l3, ssp, k, ist, fst, state, comp_start, comp_end, rounds, blocked_since, blocked,
                    used, cur_mc, x, c, due, in_g, arrived, draws, cstart, mc_start, mc_finish, mc_r0, mc_nr,
                    recv, recv_at)
        # ---- workers that became ready
        if t_c <= t:
            nr = 0
            for w in range(n):
                if comp_end[w] <= t:
                    ready[nr] = w
                    nr += 1
            for a in range(nr):
                kappa = ready[a]
                iters[kappa] += 1
                comp_end[kappa] = np.inf
                ist[I_SEL] += 1
                if not selmcast:                            # Orpheus (SM65): due first, then the p smallest keys
                    u0 = ist[I_USED_U]
                    ist[I_USED_U] = u0 + n
                    keys = orph_u[u0:u0 + n].copy()
                    ndue = 0
                    for j in range(n):
                        if due[kappa, j]:
                            keys[j] = -1.0
                            ndue += 1
                    keys[kappa] = np.inf
                    chosen = np.argsort(keys)[:max(p, ndue)]
                    for q in range(chosen.shape[0]):
                        x[kappa, chosen[q]] = 1
                    ist[I_NX] += chosen.shape[0]
                    in_g[kappa] = True
                else:                                       # SelMcast: remaining volumes, tau, Algorithm 2
                    ng = 0
                    for i in range(n):
                        if in_g[i]:
                            gl[ng] = i
                            ng += 1
                            for j in range(n):
                                if l3:
                                    vrem[i, j] = frem[i]
                                elif factive[i * n + j]:
                                    vrem[i, j] = frem[i * n + j]
                    state[kappa] = MULTICASTING
                    in_g[kappa] = True
                    if tau_mode == 2 or ssp < 0:
                        tau[:] = 0.0
                    else:
                        dcnt = ist[I_DCNT]
                        dbar = fst[F_DSUM] / dcnt if dcnt > 0 else 0.0
                        tau_estimates(t, rounds, state, comp_start, comp_end, in_g, ssp, tau_mode == 1,
                                      rx, surv, tail, mean_t, dbar, tau)
                    in_g[kappa] = False
                    start[kappa] = t
                    for q in range(ng):
                        for j in range(n):
                            old[q, j] = x[gl[q], j]
                    m = _algorithm2(kappa, x, vrem, v, p_arr, b_in, b_eg, tau, c, due, in_g, start, eta, l3,
                                    descending, line32_x, deadline_all, y, order, deadline)
                    for q in range(ng):                     # preemption, row-major over G
                        i = gl[q]
                        for j in range(n):
                            if old[q, j] > x[i, j]:
                                if not l3 and not factive[i * n + j]:
                                    x[i, j] = 1             # delivered already: stays a receiver (SM67)
                                    continue
                                if not l3:
                                    factive[i * n + j] = False
                                    frate[i * n + j] = 0.0
                                ist[I_DIRTY] = 1
                                d = ist[I_NDROP]
                                drop_mc[d] = cur_mc[i]
                                drop_j[d] = j
                                drop_t[d] = t
                                ist[I_NDROP] = d + 1
                                if l3:
                                    _l3_links(n, x, i, table, lbuf)
                    nx = 0
                    for i in range(n):
                        for j in range(n):
                            nx += x[i, j]
                    ist[I_NX] = nx
                    if not l3:                              # every undelivered receiver dropped: done
                        for q in range(ng):
                            i = gl[q]
                            if _l7_idle(i, n, factive):
                                _finish(i, t, l3, ssp, k, ist, fst, state, comp_start, comp_end, rounds,
                                        blocked_since, blocked, used, cur_mc, x, c, due, in_g, arrived, draws,
                                        cstart, mc_start, mc_finish, mc_r0, mc_nr, recv, recv_at)
                    if prio_mode:                           # SM50: classes in Algorithm 2's order
                        moved = place_classes(order[:m], kappa, prio, BASE, GAP)
                        for q in range(moved.shape[0]):
                            i = moved[q]
                            if l3:
                                if factive[i] and frem[i] >= keep:
                                    _new_flow(i, frem[i], prio[i], ist, factive, frem, fvol, frate, fprio, fseq)
                            else:
                                for j in range(n):
                                    s = i * n + j
                                    if factive[s] and frem[s] >= keep:
                                        _new_flow(s, frem[s], prio[i], ist, factive, frem, fvol, frate,
                                                  fprio, fseq)
                # ---- kappa's multicast starts
                mc = ist[I_NMC]
                ist[I_NMC] = mc + 1
                cur_mc[kappa] = mc
                mc_sender[mc] = kappa
                mc_round[mc] = rounds[kappa] + 1
                mc_start[mc] = t
                mc_iter[mc] = iters[kappa]
                mc_finish[mc] = np.nan
                r0 = ist[I_NRECV]
                mc_r0[mc] = r0
                pr = prio[kappa] if prio_mode else 0
                nrc = 0
                for j in range(n):
                    if x[kappa, j] == 1:
                        recv[r0 + nrc] = j
                        recv_at[r0 + nrc] = np.nan
                        nrc += 1
                        if not l3:
                            _new_flow(kappa * n + j, volume, pr, ist, factive, frem, fvol, frate, fprio, fseq)
                mc_nr[mc] = nrc
                ist[I_NRECV] = r0 + nrc
                if l3:
                    _l3_links(n, x, kappa, table, lbuf)
                    _new_flow(kappa, volume, pr, ist, factive, frem, fvol, frate, fprio, fseq)
                state[kappa] = MULTICASTING
                start[kappa] = t
        # ---- capacities change (SM56)
        if next_bw <= t:
            for w in range(n):
                b_eg[w] = bw_sched[bwk - 1, 0, w]
                b_in[w] = bw_sched[bwk - 1, 1, w]
                caps[w] = b_in[w]
                caps[n + w] = b_eg[w]
            ist[I_BWK] = bwk + 1
            ist[I_DIRTY] = 1


# code compiled from ssp_selection is frozen into this module's cache entries (simlib.core.jitcache)
jitcache.depend_on(jitcache.dispatchers_of(globals()), ssp_selection)
