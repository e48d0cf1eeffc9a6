"""The FMReduce system's event loop, compiled (decision FM12).

:func:`run_loop` runs the same simulation as the Python loop of
:func:`simlib.papers.fmreduce.system.simulate` (``engine="python"``),
statement for statement and in the same floating-point order, so the two give
the same rounds and the same times to the bit (tests): the same event queue
ordered by (time, push sequence number), the same lazy re-checks (an event
whose predicted finish moved later is pushed again), the same closed-form
links (:mod:`.mesh_links`) and the same splits (the blocking LP (2) split by
:func:`.split.breakpoint_split_into`, or by Python for HiGHS).

The loop is resumable, as the SelMcast SSP kernel (decision SM68): before an
event that could need a compute draw a worker does not have yet, or more heap
or round-log room than is left, it returns a status; the driver
(``system._simulate_compiled``) grows the arrays and calls it again.  A
blocking round whose split Python must solve (``lp_solver="highs"``) returns
NEED_SPLIT after the round's participants are logged; the driver writes the
split into the round's row and the next call finishes the announcement.

The heap holds (time, sequence number, kind, worker, slot, round) in arrays;
the round log is columnar (one row per announced round).  Units: bits, bits/s,
seconds.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from simlib.core.units import MB

from .mesh_links import finish_times, link_free
from .split import breakpoint_split_into

DONE, NEED_DRAWS, NEED_SPACE, NEED_SPLIT, LINK_BUSY, NO_SPLIT = range(6)
# event kinds, as system.py
COMPUTE_DONE, LEADER_ARRIVAL, REDUCE, BCAST, WORKER_DONE = range(5)
LEADER = 0

# heap payload columns
H_KIND, H_A, H_K, H_RND = range(4)
# integer state: push sequence, heap size, rounds logged, queue head and length, the round
# awaiting its split from Python (-1: none), the sizes the next event needs
I_SEQ, I_HSIZE, I_NR, I_QHEAD, I_QLEN, I_PENDING, I_NEED_HEAP, I_NEED_ROUNDS = range(8)
N_IST = 8
# float state: the time of the pending announcement
F_PENDING_T = 0
N_FST = 1
# configuration: ints (cfg_i) and floats (cfg_f)
C_N, C_P, C_ALL, C_BLOCKING, C_SPLIT, C_FCFS = range(6)
N_CFG_I = 6
SPLIT_EVEN, SPLIT_BREAKPOINT, SPLIT_PYTHON = range(3)
C_V, C_DUR, C_RED_S_PER_MB = range(3)
N_CFG_F = 3
# round log: per-participant floats (r_pf[r, F, k]) and per-round scalars
R_START, R_READY, R_DONE = range(3)
R_ANNOUNCE, R_FINISH = range(2)
R_NBCAST, R_NDONE = range(2)


@njit(cache=True, inline="always")
def _before(t1, s1, t2, s2):
    return t1 < t2 or (t1 == t2 and s1 < s2)


@njit(cache=True, inline="always")
def push(h_t, h_seq, h_pl, ist, t, kind, a, k, rnd):
    """heapq.heappush(heap, (t, seq, kind, (a, k), rnd)); seq is the next sequence number."""
    q = ist[I_HSIZE]
    seq = ist[I_SEQ]
    ist[I_SEQ] = seq + 1
    ist[I_HSIZE] = q + 1
    while q > 0:
        up = (q - 1) >> 1
        if not _before(t, seq, h_t[up], h_seq[up]):
            break
        h_t[q] = h_t[up]
        h_seq[q] = h_seq[up]
        for c in range(4):
            h_pl[q, c] = h_pl[up, c]
        q = up
    h_t[q] = t
    h_seq[q] = seq
    h_pl[q, H_KIND] = kind
    h_pl[q, H_A] = a
    h_pl[q, H_K] = k
    h_pl[q, H_RND] = rnd


@njit(cache=True, inline="always")
def _pop(h_t, h_seq, h_pl, ist):
    """Remove the root (the caller has read it)."""
    size = ist[I_HSIZE] - 1
    ist[I_HSIZE] = size
    if size == 0:
        return
    t = h_t[size]
    seq = h_seq[size]
    p0, p1, p2, p3 = h_pl[size, 0], h_pl[size, 1], h_pl[size, 2], h_pl[size, 3]
    q = 0
    while True:
        c = 2 * q + 1
        if c >= size:
            break
        if c + 1 < size and _before(h_t[c + 1], h_seq[c + 1], h_t[c], h_seq[c]):
            c += 1
        if not _before(h_t[c], h_seq[c], t, seq):
            break
        h_t[q] = h_t[c]
        h_seq[q] = h_seq[c]
        for col in range(4):
            h_pl[q, col] = h_pl[c, col]
        q = c
    h_t[q] = t
    h_seq[q] = seq
    h_pl[q, 0] = p0
    h_pl[q, 1] = p1
    h_pl[q, 2] = p2
    h_pl[q, 3] = p3


@njit(cache=True)
def _scatter(s_fin, b_fin, b, senders, red, x, t, fcfs):
    """system.simulate's scatter(): every sender's block j to every reducer j != sender."""
    for i in senders:
        for j in red:
            if i != j and not link_free(s_fin[i, j], t):
                return False
    for i in senders:
        for j in red:
            if i != j:
                s_fin[i, j], b_fin[i, j] = finish_times(b_fin[i, j], b[i, j], x[j], t, fcfs)
    for i in senders:
        s_fin[i, i] = t
    return True


@njit(cache=True)
def _announce_end(r, t, blocking, fcfs, s_fin, b_fin, b, r_parts, r_red, r_x, h_t, h_seq, h_pl, ist):
    """The second half of system.simulate's announce(): scatter (blocking) and the reduce events."""
    parts = r_parts[r]
    red = r_red[r]
    if blocking and not _scatter(s_fin, b_fin, b, parts, red, r_x[r], t, fcfs):
        return False
    for j in red:
        need = -np.inf
        for i in parts:
            if s_fin[i, j] > need:
                need = s_fin[i, j]
        push(h_t, h_seq, h_pl, ist, max(need, t), REDUCE, j, 0, r)
    return True


@njit(cache=True)
def push_first_computes(draws, used, h_t, h_seq, h_pl, ist):
    """Every worker starts computing at 0: its first draw is its first event."""
    for i in range(draws.shape[0]):
        push(h_t, h_seq, h_pl, ist, draws[i, 0], COMPUTE_DONE, i, 0, 0)
        used[i] = 1


@njit(cache=True)
def run_loop(cfg_i, cfg_f, b, s_fin, b_fin, xpre, draws, used, start, ready, red_free, queue,
             ist, fst, h_t, h_seq, h_pl, r_parts, r_red, r_x, r_allin, r_pf, r_sc, r_cnt):
    """Advance the simulation until its end, or until the driver must act.

    Returns DONE, NEED_DRAWS (the next event's worker has no unused compute
    draw left), NEED_SPACE (the heap or the round log may be too small for the
    next event: ``ist[I_NEED_HEAP]``, ``ist[I_NEED_ROUNDS]``), NEED_SPLIT
    (round ``ist[I_PENDING]`` needs its split in ``r_x``), LINK_BUSY (the
    protocol invariant of :mod:`.mesh_links` broke) or NO_SPLIT (LP (2) has no
    finite optimum)."""
    n = cfg_i[C_N]
    p = cfg_i[C_P]
    everyone = cfg_i[C_ALL] == 1
    blocking = cfg_i[C_BLOCKING] == 1
    split = cfg_i[C_SPLIT]
    fcfs = cfg_i[C_FCFS] == 1
    v = cfg_f[C_V]
    duration = cfg_f[C_DUR]
    red_s_per_mb = cfg_f[C_RED_S_PER_MB]
    m = r_red.shape[1]
    sorted_parts = np.empty(p, np.int64)
    recv = np.empty(p, np.int64)
    while True:
        r = ist[I_PENDING]
        if r >= 0:                                  # Python wrote round r's split
            ist[I_PENDING] = -1
            if not _announce_end(r, fst[F_PENDING_T], blocking, fcfs, s_fin, b_fin, b, r_parts, r_red, r_x,
                                 h_t, h_seq, h_pl, ist):
                return LINK_BUSY
        size = ist[I_HSIZE]
        if size == 0:
            return DONE
        t = h_t[0]
        if t > duration:
            return DONE
        kind = h_pl[0, H_KIND]
        a = h_pl[0, H_A]
        # an event pushes at most max(n, p) events and logs at most one round
        ist[I_NEED_HEAP] = size + n + 1
        ist[I_NEED_ROUNDS] = ist[I_NR] + 1
        if ist[I_NEED_HEAP] > h_t.shape[0] or ist[I_NEED_ROUNDS] > r_sc.shape[0]:
            return NEED_SPACE
        if kind == WORKER_DONE and used[a] >= draws.shape[1]:
            return NEED_DRAWS
        k = h_pl[0, H_K]
        rnd = h_pl[0, H_RND]
        _pop(h_t, h_seq, h_pl, ist)
        announce = False
        if kind == COMPUTE_DONE:
            ready[a] = t
            if blocking:
                queue[(ist[I_QHEAD] + ist[I_QLEN]) % n] = a
                ist[I_QLEN] += 1
                announce = ist[I_QLEN] >= p
            else:
                for j in range(n):
                    if j != a and not link_free(s_fin[a, j], t):
                        return LINK_BUSY
                for j in range(n):
                    if j != a:
                        s_fin[a, j], b_fin[a, j] = finish_times(b_fin[a, j], b[a, j], xpre[j], t, fcfs)
                s_fin[a, a] = t
                push(h_t, h_seq, h_pl, ist, t if a == LEADER else s_fin[a, LEADER], LEADER_ARRIVAL, a, 0, 0)
        elif kind == LEADER_ARRIVAL:
            if s_fin[a, LEADER] > t and a != LEADER:  # delayed by a later flow (FS): re-check then
                push(h_t, h_seq, h_pl, ist, s_fin[a, LEADER], kind, a, 0, 0)
                continue
            queue[(ist[I_QHEAD] + ist[I_QLEN]) % n] = a
            ist[I_QLEN] += 1
            announce = ist[I_QLEN] >= p
        elif kind == REDUCE or kind == BCAST:
            if kind == REDUCE:
                need = -np.inf
                for q in range(p):
                    if s_fin[r_parts[rnd, q], a] > need:
                        need = s_fin[r_parts[rnd, q], a]
                if need > t:
                    push(h_t, h_seq, h_pl, ist, need, kind, a, 0, rnd)
                    continue
                r_allin[rnd, a] = t
                fin = max(t, red_free[a]) + red_s_per_mb * p * r_x[rnd, a] / MB
                red_free[a] = fin
                if fin > t:
                    push(h_t, h_seq, h_pl, ist, fin, BCAST, a, 0, rnd)
                    continue
            # broadcast(a, rnd, t)
            nrecv = 0
            for q in range(p):
                if r_parts[rnd, q] != a:
                    recv[nrecv] = r_parts[rnd, q]
                    nrecv += 1
            for q in range(nrecv):
                if not link_free(b_fin[a, recv[q]], t):
                    return LINK_BUSY
            for q in range(nrecv):
                j = recv[q]
                b_fin[a, j], s_fin[a, j] = finish_times(s_fin[a, j], b[a, j], r_x[rnd, a], t, fcfs)
            if nrecv < p:                           # a is a participant: its own block is local
                b_fin[a, a] = t
            r_cnt[rnd, R_NBCAST] += 1
            if r_cnt[rnd, R_NBCAST] == m:
                for q in range(p):
                    i = r_parts[rnd, q]
                    need = -np.inf
                    for jj in range(m):
                        if b_fin[r_red[rnd, jj], i] > need:
                            need = b_fin[r_red[rnd, jj], i]
                    push(h_t, h_seq, h_pl, ist, max(need, t), WORKER_DONE, i, q, rnd)
        else:  # WORKER_DONE
            need = -np.inf
            for jj in range(m):
                if b_fin[r_red[rnd, jj], a] > need:
                    need = b_fin[r_red[rnd, jj], a]
            if need > t:
                push(h_t, h_seq, h_pl, ist, need, kind, a, k, rnd)
                continue
            r_pf[rnd, R_DONE, k] = t
            r_cnt[rnd, R_NDONE] += 1
            if r_cnt[rnd, R_NDONE] == p:
                r_sc[rnd, R_FINISH] = t
            start[a] = t
            d = draws[a, used[a]]
            used[a] += 1
            push(h_t, h_seq, h_pl, ist, t + d, COMPUTE_DONE, a, 0, 0)
        if not announce:
            continue
        # ---- announce(t): the first p queued workers form round r
        r = ist[I_NR]
        ist[I_NR] = r + 1
        for q in range(p):
            w = queue[ist[I_QHEAD]]
            ist[I_QHEAD] = (ist[I_QHEAD] + 1) % n
            r_parts[r, q] = w
            sorted_parts[q] = w
            r_pf[r, R_START, q] = start[w]
            r_pf[r, R_READY, q] = ready[w]
            r_pf[r, R_DONE, q] = np.nan
        ist[I_QLEN] -= p
        sorted_parts.sort()
        if everyone:
            for j in range(n):
                r_red[r, j] = j
        else:
            r_red[r, :] = sorted_parts
        r_sc[r, R_ANNOUNCE] = t
        r_sc[r, R_FINISH] = np.inf
        r_cnt[r, R_NBCAST] = 0
        r_cnt[r, R_NDONE] = 0
        r_allin[r, :] = np.nan
        if not blocking:
            r_x[r, :] = xpre
        elif split == SPLIT_EVEN:                   # split.even_split
            r_x[r, :] = 0.0
            for j in r_red[r]:
                r_x[r, j] = v / m
        elif split == SPLIT_BREAKPOINT:
            if not breakpoint_split_into(v, b, sorted_parts, r_red[r], r_x[r]):
                return NO_SPLIT
        else:                                       # Python solves it; the next call goes on
            ist[I_PENDING] = r
            fst[F_PENDING_T] = t
            return NEED_SPLIT
        if not _announce_end(r, t, blocking, fcfs, s_fin, b_fin, b, r_parts, r_red, r_x, h_t, h_seq, h_pl, ist):
            return LINK_BUSY
