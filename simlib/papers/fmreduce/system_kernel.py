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

The heap holds (time, sequence number, kind, worker, slot, round) as rows of
one float array; the round log is columnar (one row per announced round,
``system.RoundLog`` reads it as :class:`~.system.Round` records).  Units:
bits, bits/s, seconds.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from simlib.core import jitcache
from simlib.core.units import MB

from . import mesh_links, split
from .mesh_links import finish_times, link_free
from .split import breakpoint_split_into

DONE, NEED_DRAWS, NEED_SPACE, NEED_SPLIT, LINK_BUSY, NO_SPLIT = range(6)
# event kinds, as system.py
COMPUTE_DONE, LEADER_ARRIVAL, REDUCE, BCAST, WORKER_DONE = range(5)
LEADER = 0

# the heap: one float array, row 0 a header (size, next sequence number), events in rows
# 1..size as a 1-based binary heap ordered by (time, sequence number); small ints are exact
H_T, H_SEQ, H_KIND, H_A, H_K, H_RND = range(6)
H_COLS = 6
# integer state: rounds logged, queue head and length, the round awaiting its split from
# Python (-1: none), the sizes the next event needs
I_NR, I_QHEAD, I_QLEN, I_PENDING, I_NEED_HEAP, I_NEED_ROUNDS = range(6)
N_IST = 6
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
def push(heap, t, kind, a, k, rnd):
    """heapq.heappush(heap, (t, seq, kind, (a, k), rnd)) with seq the next sequence number.
    One array argument: every array passed costs two atomic reference-count updates."""
    q = int(heap[0, H_T]) + 1
    seq = heap[0, H_SEQ]
    heap[0, H_T] = q
    heap[0, H_SEQ] = seq + 1.0
    while q > 1:
        up = q >> 1
        tu = heap[up, H_T]
        if not (t < tu or (t == tu and seq < heap[up, H_SEQ])):
            break
        for c in range(H_COLS):
            heap[q, c] = heap[up, c]
        q = up
    heap[q, H_T] = t
    heap[q, H_SEQ] = seq
    heap[q, H_KIND] = kind
    heap[q, H_A] = a
    heap[q, H_K] = k
    heap[q, H_RND] = rnd


@njit(cache=True, inline="always")
def _pop(heap):
    """Remove the root (the caller has read it): the last event sifts down from the top."""
    last = int(heap[0, H_T])
    size = last - 1
    heap[0, H_T] = size
    if size == 0:
        return
    t = heap[last, H_T]
    seq = heap[last, H_SEQ]
    q = 1
    while True:
        c = 2 * q
        if c > size:
            break
        if c < size and (heap[c + 1, H_T] < heap[c, H_T]
                         or (heap[c + 1, H_T] == heap[c, H_T] and heap[c + 1, H_SEQ] < heap[c, H_SEQ])):
            c += 1
        if not (heap[c, H_T] < t or (heap[c, H_T] == t and heap[c, H_SEQ] < seq)):
            break
        for col in range(H_COLS):
            heap[q, col] = heap[c, col]
        q = c
    for col in range(H_COLS):
        heap[q, col] = heap[last, col]


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
def _announce_end(r, t, blocking, fcfs, s_fin, b_fin, b, r_parts, r_red, r_x, heap):
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
        push(heap, max(need, t), REDUCE, j, 0, r)
    return True


@njit(cache=True)
def push_first_computes(draws, used, heap):
    """Every worker starts computing at 0: its first draw is its first event."""
    for i in range(draws.shape[0]):
        push(heap, draws[i, 0], COMPUTE_DONE, i, 0, 0)
        used[i] = 1


@njit(cache=True)
def run_loop(cfg_i, cfg_f, b, s_fin, b_fin, xpre, draws, used, start, ready, red_free, queue,
             ist, fst, heap, r_parts, r_red, r_x, r_allin, r_pf, r_sc, r_cnt):
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
            if not _announce_end(r, fst[F_PENDING_T], blocking, fcfs, s_fin, b_fin, b, r_parts, r_red, r_x, heap):
                return LINK_BUSY
        size = int(heap[0, H_T])
        if size == 0:
            return DONE
        t = heap[1, H_T]
        if t > duration:
            return DONE
        kind = int(heap[1, H_KIND])
        a = int(heap[1, H_A])
        # an event pushes at most max(n, p) events and logs at most one round
        ist[I_NEED_HEAP] = size + n + 1                # rows, the header included
        ist[I_NEED_ROUNDS] = ist[I_NR] + 1
        if ist[I_NEED_HEAP] > heap.shape[0] or ist[I_NEED_ROUNDS] > r_sc.shape[0]:
            return NEED_SPACE
        if kind == WORKER_DONE and used[a] >= draws.shape[1]:
            return NEED_DRAWS
        k = int(heap[1, H_K])
        rnd = int(heap[1, H_RND])
        _pop(heap)
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
                push(heap, t if a == LEADER else s_fin[a, LEADER], LEADER_ARRIVAL, a, 0, 0)
        elif kind == LEADER_ARRIVAL:
            if s_fin[a, LEADER] > t and a != LEADER:  # delayed by a later flow (FS): re-check then
                push(heap, s_fin[a, LEADER], kind, a, 0, 0)
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
                    push(heap, need, kind, a, 0, rnd)
                    continue
                r_allin[rnd, a] = t
                fin = max(t, red_free[a]) + red_s_per_mb * p * r_x[rnd, a] / MB
                red_free[a] = fin
                if fin > t:
                    push(heap, fin, BCAST, a, 0, rnd)
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
                    push(heap, max(need, t), WORKER_DONE, i, q, rnd)
        else:  # WORKER_DONE
            need = -np.inf
            for jj in range(m):
                if b_fin[r_red[rnd, jj], a] > need:
                    need = b_fin[r_red[rnd, jj], a]
            if need > t:
                push(heap, need, kind, a, k, rnd)
                continue
            r_pf[rnd, R_DONE, k] = t
            r_cnt[rnd, R_NDONE] += 1
            if r_cnt[rnd, R_NDONE] == p:
                r_sc[rnd, R_FINISH] = t
            start[a] = t
            d = draws[a, used[a]]
            used[a] += 1
            push(heap, t + d, COMPUTE_DONE, a, 0, 0)
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
        if not _announce_end(r, t, blocking, fcfs, s_fin, b_fin, b, r_parts, r_red, r_x, heap):
            return LINK_BUSY


# code compiled from mesh_links, split is frozen into this module's cache entries (simlib.core.jitcache)
jitcache.track(globals())
