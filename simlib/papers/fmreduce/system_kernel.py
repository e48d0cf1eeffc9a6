"""The FMReduce system's event loop, compiled (decision FM12).

:func:`run_loop` runs :func:`simlib.papers.fmreduce.system.simulate`: an event
queue ordered by (time, push sequence number), lazy re-checks (an event whose
predicted finish moved later is pushed again), the closed-form links of
:mod:`.mesh_links` and the splits of :mod:`.split` (the blocking LP (2) split
by :func:`.split.breakpoint_split_into`, or by Python for HiGHS).
:func:`.reference.simulate_reference` runs the same protocol on the generic
flow engine; the tests check the two agree (decision FM14).

The loop is resumable (:mod:`simlib.runtime.kernel_driver`): before an event
that could need a compute draw a worker does not have yet, or more heap or
round-log room than is left, it returns ``NEED_DRAWS`` / ``NEED_SPACE``; the
driver (``system._simulate_compiled``) grows the arrays and calls it again.
A blocking round whose split Python must solve (``lp_solver="highs"``)
returns ``NEED_SPLIT`` after the round's participants are logged; the driver
writes the split into the round's row and the next call finishes the
announcement.

Its arguments are NamedTuples of arrays: :class:`Config` (the run, fixed),
:class:`State` (mutated in place; scalars that change are 1-element arrays)
and :class:`Log` (the round log, one row per announced round, columnar;
``system.RoundLog`` reads it as :class:`~.system.Round` records).  The heap
holds (time, sequence number, kind, worker, slot, round) as rows of one
float array.  Units: bits, bits/s, seconds.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from simlib.core import jitcache
from simlib.core.units import MB
from simlib.runtime.kernel_driver import DONE, FIRST_OWN, NEED_DRAWS, NEED_SPACE

from .mesh_links import finish_times, link_free
from .split import breakpoint_split_into

# the kernel's own requests (simlib.runtime.kernel_driver): a round's split from Python, and two errors
NEED_SPLIT, LINK_BUSY, NO_SPLIT = FIRST_OWN, FIRST_OWN + 1, FIRST_OWN + 2
# event kinds
COMPUTE_DONE, LEADER_ARRIVAL, REDUCE, BCAST, WORKER_DONE = range(5)
QUEUED = -1     # no event: workers queued at one instant still fill a round (FM3)
LEADER = 0
SPLIT_EVEN, SPLIT_BREAKPOINT, SPLIT_PYTHON = range(3)

# the heap: one float array, row 0 a header (size, next sequence number), events in rows
# 1..size as a 1-based binary heap ordered by (time, sequence number); small ints are exact
H_T, H_SEQ, H_KIND, H_A, H_K, H_RND = range(6)
H_COLS = 6


class Config(NamedTuple):
    """One run's settings (system.simulate's arguments), fixed for the run."""

    n: int                    # workers
    p: int                    # participants per round
    everyone: bool            # reducers="all": every worker reduces a block; else the participants
    blocking: bool            # mode="blocking"
    split: int                # SPLIT_EVEN, SPLIT_BREAKPOINT (compiled LP (2)) or SPLIT_PYTHON (HiGHS)
    fcfs: bool                # sharing="fcfs"; else fair sharing
    model_bits: float         # v (bits)
    duration_s: float         # the period (s)
    reduce_s_per_mb: float    # reduce time per MB of input blocks (s/MB)
    b: np.ndarray             # (n, n) bandwidths (bits/s)
    xpre: np.ndarray          # (n,) the non-blocking predefined split (bits; zeros if blocking)


class State(NamedTuple):
    """The loop's state, mutated in place; (1,) arrays hold the scalars that change."""

    s_fin: np.ndarray         # (n, n) predicted finish of the latest scatter flow on link i -> j (s)
    b_fin: np.ndarray         # (n, n) the same for broadcast flows (s)
    start: np.ndarray         # (n,) compute start of each worker's current iteration (s)
    ready: np.ndarray         # (n,) compute end of its current iteration (s)
    red_free: np.ndarray      # (n,) when reducer j has finished its last reduce (s)
    red_low: np.ndarray       # (n,) int64 no round before this one is waiting at reducer j
    queue: np.ndarray         # (n,) int64 ring buffer of queued workers (the leader's FIFO)
    q_head: np.ndarray        # (1,) int64 the queue's head position
    q_len: np.ndarray         # (1,) int64 its length
    used: np.ndarray          # (n,) int64 compute draws used per worker
    n_rounds: np.ndarray      # (1,) int64 rounds logged
    pending: np.ndarray       # (1,) int64 the round awaiting its split from Python (-1: none)
    pending_t: np.ndarray     # (1,) float the time of that round's announcement (s)
    now: np.ndarray           # (1,) float the time of the last event handled (s)
    need_heap: np.ndarray     # (1,) int64 heap rows the next event needs (the header included)
    need_rounds: np.ndarray   # (1,) int64 log rows the next event needs


class Log(NamedTuple):
    """The round log: row r is the r-th announced round (m reducers, p participants)."""

    parts: np.ndarray         # (R, p) int64 participants in selection order
    red: np.ndarray           # (R, m) int64 reducers, ascending
    x: np.ndarray             # (R, n) the split (bits)
    allin: np.ndarray         # (R, n) when reducer j held every block (s; NaN: not yet)
    start: np.ndarray         # (R, p) each participant's compute start (s)
    ready: np.ndarray         # (R, p) its compute end (s)
    done: np.ndarray          # (R, p) when it held every reduced block (s; NaN: not yet)
    announce: np.ndarray      # (R,) announcement time (s)
    finish: np.ndarray        # (R,) when its last participant was done (s; inf: not yet)
    n_bcast: np.ndarray       # (R,) int64 reducers that broadcast
    n_done: np.ndarray        # (R,) int64 participants done


def new_state(n: int) -> State:
    """Every worker idle at 0, no link busy, the queue empty, no round pending."""
    one = lambda dtype, value=0: np.full(1, value, dtype)  # noqa: E731
    return State(s_fin=np.zeros((n, n)), b_fin=np.zeros((n, n)), start=np.zeros(n), ready=np.zeros(n),
                 red_free=np.zeros(n), red_low=np.zeros(n, np.int64), queue=np.zeros(n, np.int64),
                 q_head=one(np.int64), q_len=one(np.int64),
                 used=np.zeros(n, np.int64), n_rounds=one(np.int64), pending=one(np.int64, -1),
                 pending_t=one(float), now=one(float), need_heap=one(np.int64), need_rounds=one(np.int64))


def new_log(rows: int, n: int, p: int, m: int) -> dict:
    """The round log's columns (:class:`Log`'s fields) with ``rows`` zero rows, as a dict the driver grows."""
    return {"parts": np.zeros((rows, p), np.int64), "red": np.zeros((rows, m), np.int64),
            "x": np.zeros((rows, n)), "allin": np.zeros((rows, n)), "start": np.zeros((rows, p)),
            "ready": np.zeros((rows, p)), "done": np.zeros((rows, p)), "announce": np.zeros(rows),
            "finish": np.zeros(rows), "n_bcast": np.zeros(rows, np.int64), "n_done": np.zeros(rows, np.int64)}


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
def _scatter(cfg, st, senders, red, x, t):
    """Every sender's block j (``x[j]`` bits) to every reducer j != sender at time t; False (nothing
    changed) if a link still carries a scatter flow (the protocol invariant of :mod:`.mesh_links`)."""
    for i in senders:
        for j in red:
            if i != j and not link_free(st.s_fin[i, j], t):
                return False
    for i in senders:
        for j in red:
            if i != j:
                st.s_fin[i, j], st.b_fin[i, j] = finish_times(st.b_fin[i, j], cfg.b[i, j], x[j], t, cfg.fcfs)
    for i in senders:
        st.s_fin[i, i] = t                          # own block: local
    return True


#: Relative time within which two rounds' blocks count as arriving at a reducer at the same instant
#: (FM15): sums of the same transfer times in another order differ by a few ulps.
SAME_INSTANT = 1e-12


@njit(cache=True, inline="always")
def _blocks_in(parts, s_fin, r, a):
    """When reducer ``a`` holds every participant's block of round ``r`` (s)."""
    need = -np.inf
    for q in range(parts.shape[1]):
        if s_fin[parts[r, q], a] > need:
            need = s_fin[parts[r, q], a]
    return need


@njit(cache=True, inline="always")
def _reduces(red, r, a):
    """Worker ``a`` is one of round ``r``'s reducers."""
    for jj in range(red.shape[1]):
        if red[r, jj] == a:
            return True
    return False


@njit(cache=True, inline="always")
def _ready_now(heap, t):
    """A COMPUTE_DONE event is still queued for the instant t (FM3: within ``SAME_INSTANT``)."""
    for q in range(1, int(heap[0, H_T]) + 1):
        if heap[q, H_KIND] == COMPUTE_DONE and heap[q, H_T] <= t + SAME_INSTANT * t:
            return True
    return False


@njit(cache=True, inline="always")
def _arriving_now(heap, s_fin, instant_blocks, t):
    """A block is still due at the leader within the instant t (FM3, non-blocking; ``SAME_INSTANT``):
    a LEADER_ARRIVAL event whose block (``s_fin[w, LEADER]``, the time it really arrives, which
    may be later than a stale event's) is in by then, or a COMPUTE_DONE event by then whose block
    reaches the leader at once (the leader's own; anyone's if ``instant_blocks``: the leader's
    share of the split is empty)."""
    end = t + SAME_INSTANT * t
    for q in range(1, int(heap[0, H_T]) + 1):
        kind = heap[q, H_KIND]
        w = int(heap[q, H_A])
        if kind == LEADER_ARRIVAL and s_fin[w, LEADER] <= end:
            return True
        if kind == COMPUTE_DONE and heap[q, H_T] <= end and (w == LEADER or instant_blocks):
            return True
    return False


@njit(cache=True, inline="always")
def _enqueue_ready(queue, q_head, q_len, when, a, t):
    """Append worker a to the leader's queue at t (``when[w]``: when worker w queued, its ready time
    if blocking, its block's arrival at the leader if not); workers queued at the same instant
    (``SAME_INSTANT``) stand in worker-id order behind everyone queued earlier (FM3)."""
    n = queue.shape[0]
    q = q_len[0]
    while q > 0:
        w = queue[(q_head[0] + q - 1) % n]
        if w < a or when[w] < t - SAME_INSTANT * t:
            break
        queue[(q_head[0] + q) % n] = w
        q -= 1
    queue[(q_head[0] + q) % n] = a
    q_len[0] += 1


@njit(cache=True)
def _announce_end(cfg, st, log, heap, r, t):
    """The second half of announcing round r at t: the participants scatter (blocking) and every
    reducer's REDUCE event is pushed for when it can hold every block."""
    parts = log.parts[r]
    red = log.red[r]
    if cfg.blocking and not _scatter(cfg, st, parts, red, log.x[r], t):
        return False
    for j in red:
        need = -np.inf
        for i in parts:
            if st.s_fin[i, j] > need:
                need = st.s_fin[i, j]
        push(heap, max(need, t), REDUCE, j, 0, r)
    return True


@njit(cache=True)
def push_first_computes(draws, used, heap):
    """Every worker starts computing at 0: its first draw is its first event."""
    for i in range(draws.shape[0]):
        push(heap, draws[i, 0], COMPUTE_DONE, i, 0, 0)
        used[i] = 1


# a step's outcome besides the driver's codes: go on with this event, or take the next one
GO, NEXT = -1, -2
NO_EVENT = -3   # no event left before the period's end


@njit(cache=True, inline="always")
def _next_event(cfg, st, heap, instant_blocks):
    """The next thing to handle: (QUEUED, now, -1) when the queued workers fill a round at the instant
    of the last event and no one else is due at it (FM3: ready if blocking, their blocks at the
    leader if not); else the heap's first event (kind, time, worker), or (NO_EVENT, ...) when none
    is left within the period."""
    if st.q_len[0] >= cfg.p:
        t = st.now[0]
        if not (_ready_now(heap, t) if cfg.blocking else _arriving_now(heap, st.s_fin, instant_blocks, t)):
            return QUEUED, t, -1
    if int(heap[0, H_T]) == 0:
        return NO_EVENT, 0.0, -1
    t = heap[1, H_T]
    if t > cfg.duration_s:
        return NO_EVENT, t, -1
    return int(heap[1, H_KIND]), t, int(heap[1, H_A])


@njit(cache=True, inline="always")
def _room(st, heap, log, draws, n, kind, a):
    """NEED_SPACE if the heap or the round log may be too small for the next event (it pushes at most
    max(n, p) events and logs at most one round), NEED_DRAWS if a WORKER_DONE's worker has no unused
    compute draw left, else GO."""
    st.need_heap[0] = int(heap[0, H_T]) + n + 1      # rows, the header included
    st.need_rounds[0] = st.n_rounds[0] + 1
    if st.need_heap[0] > heap.shape[0] or st.need_rounds[0] > log.finish.shape[0]:
        return NEED_SPACE
    if kind == WORKER_DONE and st.used[a] >= draws.shape[1]:
        return NEED_DRAWS
    return GO


@njit(cache=True, inline="always")
def _on_compute_done(cfg, st, heap, a, t):
    """Worker a's compute ended at t.  Blocking: it queues, and a round forms once every worker ready
    now is in (FM3).  Non-blocking: it scatters its blocks with the predefined split (FM2); its block
    at the leader is a LEADER_ARRIVAL.  Returns (GO or LINK_BUSY, announce now)."""
    st.ready[a] = t
    if cfg.blocking:
        _enqueue_ready(st.queue, st.q_head, st.q_len, st.ready, a, t)
        return GO, st.q_len[0] >= cfg.p and not _ready_now(heap, t)
    s_fin, b_fin = st.s_fin, st.b_fin
    for j in range(cfg.n):
        if j != a and not link_free(s_fin[a, j], t):
            return LINK_BUSY, False
    for j in range(cfg.n):
        if j != a:
            s_fin[a, j], b_fin[a, j] = finish_times(b_fin[a, j], cfg.b[a, j], cfg.xpre[j], t, cfg.fcfs)
    s_fin[a, a] = t
    push(heap, t if a == LEADER else s_fin[a, LEADER], LEADER_ARRIVAL, a, 0, 0)
    return GO, False


@njit(cache=True, inline="always")
def _on_leader_arrival(cfg, st, heap, a, t, instant_blocks):
    """Worker a's block reached the leader (non-blocking): it queues; blocks in at one instant queue in
    id order and the round waits for every one of them (FM3).  A block delayed by a later flow (FS)
    is checked again then.  Returns (GO or NEXT, announce now)."""
    s_fin = st.s_fin
    if s_fin[a, LEADER] > t and a != LEADER:
        push(heap, s_fin[a, LEADER], LEADER_ARRIVAL, a, 0, 0)
        return NEXT, False
    _enqueue_ready(st.queue, st.q_head, st.q_len, s_fin[:, LEADER], a, t)
    return GO, st.q_len[0] >= cfg.p and not _arriving_now(heap, s_fin, instant_blocks, t)


@njit(cache=True, inline="always")
def _on_reduce(cfg, st, log, heap, a, rnd, t):
    """Reducer a may reduce round rnd at t: once it holds every block, the first announced of the
    rounds whose blocks are all in at this instant reduces first (FM15; this round's event comes
    back after it).  Returns (GO: broadcast the returned round now, or NEXT, round)."""
    parts, red, allin = log.parts, log.red, log.allin
    if not np.isnan(allin[rnd, a]):                 # reduced already, ahead of its event (FM15)
        return NEXT, rnd
    need = _blocks_in(parts, st.s_fin, rnd, a)
    if need > t:
        push(heap, need, REDUCE, a, 0, rnd)
        return NEXT, rnd
    for r2 in range(st.red_low[a], rnd):
        if (np.isnan(allin[r2, a]) and _reduces(red, r2, a)
                and _blocks_in(parts, st.s_fin, r2, a) <= t + SAME_INSTANT * t):
            push(heap, t, REDUCE, a, 0, rnd)
            rnd = r2
            break
    allin[rnd, a] = t
    lo = st.red_low[a]
    while lo < st.n_rounds[0] and not (np.isnan(allin[lo, a]) and _reduces(red, lo, a)):
        lo += 1
    st.red_low[a] = lo
    fin = max(t, st.red_free[a]) + cfg.reduce_s_per_mb * cfg.p * log.x[rnd, a] / MB
    st.red_free[a] = fin
    if fin > t:
        push(heap, fin, BCAST, a, 0, rnd)
        return NEXT, rnd
    return GO, rnd


@njit(cache=True, inline="always")
def _broadcast(cfg, st, log, heap, a, rnd, t, recv):
    """Reducer a sends its reduced block of round rnd to the round's participants at t; after the
    round's last reducer, every participant's WORKER_DONE is pushed for when it holds every block.
    Returns GO or LINK_BUSY."""
    p, m = cfg.p, log.red.shape[1]
    parts, red, s_fin, b_fin = log.parts, log.red, st.s_fin, st.b_fin
    nrecv = 0
    for q in range(p):
        if parts[rnd, q] != a:
            recv[nrecv] = parts[rnd, q]
            nrecv += 1
    for q in range(nrecv):
        if not link_free(b_fin[a, recv[q]], t):
            return LINK_BUSY
    for q in range(nrecv):
        j = recv[q]
        b_fin[a, j], s_fin[a, j] = finish_times(s_fin[a, j], cfg.b[a, j], log.x[rnd, a], t, cfg.fcfs)
    if nrecv < p:                                   # a is a participant: its own block is local
        b_fin[a, a] = t
    log.n_bcast[rnd] += 1
    if log.n_bcast[rnd] == m:
        for q in range(p):
            i = parts[rnd, q]
            need = -np.inf
            for jj in range(m):
                if b_fin[red[rnd, jj], i] > need:
                    need = b_fin[red[rnd, jj], i]
            push(heap, max(need, t), WORKER_DONE, i, q, rnd)
    return GO


@njit(cache=True, inline="always")
def _on_worker_done(cfg, st, log, heap, draws, a, k, rnd, t):
    """Participant a (k-th of round rnd) holds every reduced block by t (else its event comes back
    then): it is done and computes its next iteration (its next draw)."""
    red, b_fin = log.red, st.b_fin
    need = -np.inf
    for jj in range(red.shape[1]):
        if b_fin[red[rnd, jj], a] > need:
            need = b_fin[red[rnd, jj], a]
    if need > t:
        push(heap, need, WORKER_DONE, a, k, rnd)
        return
    log.done[rnd, k] = t
    log.n_done[rnd] += 1
    if log.n_done[rnd] == cfg.p:
        log.finish[rnd] = t
    st.start[a] = t
    d = draws[a, st.used[a]]
    st.used[a] += 1
    push(heap, t + d, COMPUTE_DONE, a, 0, 0)


@njit(cache=True, inline="always")
def _announce(cfg, st, log, heap, t, sorted_parts):
    """announce(t): the first p queued workers form round r (logged), with its reducers and split;
    then :func:`_announce_end`.  Returns GO, NO_SPLIT, LINK_BUSY or NEED_SPLIT (Python solves the
    split; ``st.pending`` names the round)."""
    n, p = cfg.n, cfg.p
    queue, q_head = st.queue, st.q_head
    parts, red, x = log.parts, log.red, log.x
    r = st.n_rounds[0]
    st.n_rounds[0] = r + 1
    for q in range(p):
        w = queue[q_head[0]]
        q_head[0] = (q_head[0] + 1) % n
        parts[r, q] = w
        sorted_parts[q] = w
        log.start[r, q] = st.start[w]
        log.ready[r, q] = st.ready[w]
        log.done[r, q] = np.nan
    st.q_len[0] -= p
    sorted_parts.sort()
    if cfg.everyone:
        for j in range(n):
            red[r, j] = j
    else:
        red[r, :] = sorted_parts
    log.announce[r] = t
    log.finish[r] = np.inf
    log.n_bcast[r] = 0
    log.n_done[r] = 0
    log.allin[r, :] = np.nan
    if not cfg.blocking:
        x[r, :] = cfg.xpre
    elif cfg.split == SPLIT_EVEN:                   # split.even_split
        x[r, :] = 0.0
        m = red.shape[1]
        for j in red[r]:
            x[r, j] = cfg.model_bits / m
    elif cfg.split == SPLIT_BREAKPOINT:
        if not breakpoint_split_into(cfg.model_bits, cfg.b, sorted_parts, red[r], x[r]):
            return NO_SPLIT
    else:                                           # Python solves it; the next call goes on
        st.pending[0] = r
        st.pending_t[0] = t
        return NEED_SPLIT
    if not _announce_end(cfg, st, log, heap, r, t):
        return LINK_BUSY
    return GO


@njit(cache=True)
def run_loop(cfg, st, log, heap, draws):
    """Advance the simulation until its end, or until the driver must act.

    ``cfg`` a :class:`Config`, ``st`` a :class:`State`, ``log`` a :class:`Log`,
    ``heap`` the event heap, ``draws[w, u]`` worker w's u-th compute time (s).
    Returns DONE, NEED_DRAWS (the next event's worker has no unused compute
    draw left), NEED_SPACE (the heap or the round log may be too small for the
    next event: ``st.need_heap``, ``st.need_rounds``), NEED_SPLIT (round
    ``st.pending`` needs its split in ``log.x``), LINK_BUSY (the protocol
    invariant of :mod:`.mesh_links` broke) or NO_SPLIT (LP (2) has no finite
    optimum).  A dispatcher over one named step per event kind (each compiled inline)."""
    sorted_parts = np.empty(cfg.p, np.int64)
    recv = np.empty(cfg.p, np.int64)
    instant_blocks = cfg.xpre[LEADER] <= 0.0        # non-blocking: every block reaches the leader at once
    while True:
        r = st.pending[0]
        if r >= 0:                                  # Python wrote round r's split
            st.pending[0] = -1
            if not _announce_end(cfg, st, log, heap, r, st.pending_t[0]):
                return LINK_BUSY
        kind, t, a = _next_event(cfg, st, heap, instant_blocks)
        if kind == NO_EVENT:
            return DONE
        status = _room(st, heap, log, draws, cfg.n, kind, a)
        if status != GO:
            return status
        announce = kind == QUEUED
        if kind != QUEUED:
            k = int(heap[1, H_K])
            rnd = int(heap[1, H_RND])
            _pop(heap)
            st.now[0] = t
            if kind == COMPUTE_DONE:
                status, announce = _on_compute_done(cfg, st, heap, a, t)
            elif kind == LEADER_ARRIVAL:
                status, announce = _on_leader_arrival(cfg, st, heap, a, t, instant_blocks)
            elif kind == REDUCE or kind == BCAST:
                if kind == REDUCE:
                    status, rnd = _on_reduce(cfg, st, log, heap, a, rnd, t)
                if status == GO:
                    status = _broadcast(cfg, st, log, heap, a, rnd, t, recv)
            else:  # WORKER_DONE
                _on_worker_done(cfg, st, log, heap, draws, a, k, rnd, t)
            if status == LINK_BUSY:
                return LINK_BUSY
        if not announce:
            continue
        status = _announce(cfg, st, log, heap, t, sorted_parts)
        if status != GO:
            return status


# code compiled from mesh_links, split is frozen into this module's cache entries (simlib.core.jitcache)
jitcache.track(globals())
