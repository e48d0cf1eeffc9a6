"""Seed 000 Alg. 3's controller turn compiled, for the compiled cluster loop (decision N14).

:class:`~simlib.papers.selective_reduce.controller.SelectiveReduceController` reacts to two events: a
worker became ready (``on_ready``: the queue insertion of line 26, then lines 5-24) and its Δt timer
fired (line 24's timeout: lines 5-24).  :func:`turns_loop` runs the compiled cluster loop of
:mod:`simlib.runtime.cluster_kernel` (its :func:`~simlib.runtime.cluster_kernel.run_to_turn`, which
stops at each of these turns) with :func:`_turn` -- the controller's Python turn transcribed statement
for statement on the controller's own arrays (the ready queue in BAG's order, holds, classes) and its
compiled passes (:func:`~.incremental.fast_round_plan`, :func:`~.kernels.round_plan`).  It launches
through :func:`~simlib.runtime.cluster_kernel.launch`, logs holds with
:func:`~simlib.runtime.cluster_kernel.record_hold` and keeps the timer with
:func:`~simlib.runtime.cluster_kernel.timer_set` / ``timer_cancel``, in the Python turn's order, so the
sequence numbers, the events and the log are the Python loop's bit for bit
(``tests/papers/selective_reduce/test_compiled_turns.py``).

This module imports the runtime's kernel (downward); the runtime reaches it only through the
controller's ``compiled_turns()`` (no import of a paper).  Covered: fixed bandwidth estimates (no error,
or one error draw per run) and estimates with an error drawn afresh per decision
(:class:`~simlib.workloads.bandwidth.ErrorEstimator`: its generator's uniform draws taken ahead in blocks,
:data:`NEED_ERRORS`, used in the Python turn's order, and the generator put back afterwards to the state
the Python loop leaves); a progress model evaluated in the compiled pass, warm (``paper`` /
``conditional`` over a trace, the oracle) or cold (the same models over the
:class:`~simlib.workloads.traces.OnlineECDF` that ``observe`` feeds: its two sorted parts kept here
as the ECDF keeps them, :data:`NEED_ECDF` when they need room, and handed back after the run); anything
else (another callable estimate or ``observe``, a Python progress model) stays on the Python loop
(:meth:`SelectiveReduceController.compiled_turns_unsupported` says why).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from simlib.core import jitcache
from simlib.runtime import cluster_kernel as ck

from . import incremental, kernels

__all__ = ["turns_loop", "turn_state", "N_SI", "NEED_ERRORS", "NEED_ECDF", "ecdf_observe"]

# si: the controller's integer scalars; S_ERR: estimates drawn per decision (the queue in arrival order at
# qids[0:qlen]), S_UPOS / S_ULEN: the next unused and the number of uniform draws in ``ubuf``; S_COLD: the
# progress model's ECDF learned here, S_MLEN / S_BLEN its sorted parts' lengths in ``emain`` / ``ebuf``; S_NL,
# S_KIND, S_NEW: the turn's launches (members in ibuf, see _launch), their kind and its new holds (ibuf[I_HOLD])
(S_QHEAD, S_QLEN, S_ARRIVALS, S_K, S_ROUNDS, S_FALLBACK, S_STALE, S_DONE, S_COUNT, S_P, S_C, S_N, S_CLS,
 S_INCR, S_ERR, S_UPOS, S_ULEN, S_COLD, S_MLEN, S_BLEN, S_NL, S_KIND, S_NEW) = range(23)
N_SI = 23
#: statuses of :func:`turns_loop` (between turns): fewer than n uniform draws left for the per-decision
#: error (``ubuf``), or no room for one more observation in the ECDF's parts (``emain``, ``ebuf``)
NEED_ERRORS, NEED_ECDF = ck.NEED_NEIGHBOURS + 1, ck.NEED_NEIGHBOURS + 2
#: OnlineECDF's smallest buffer before a merge (``OnlineECDF._MIN_BUFFER``)
ECDF_MIN_BUFFER = 64


def turn_state(si, par_rest, model, queue, holding, bw_all, bufs, classes, learning) -> tuple:
    """The pair ``(core, learning)`` :func:`turns_loop` takes.  ``core``: ``si`` (int64, ``S_*``), ``par_rest``
    the pass's :class:`~.kernels.PassParams` fields after ``now``, ``model`` a :class:`~.kernels.CdfModel`'s
    fields (cold start: the fields the ECDF does not change), ``queue`` (ids, bandwidths, held flags by position,
    arrival numbers), ``holding``, ``bw_all`` the fixed estimates or the last drawn ones (bits/s), ``bufs`` the
    work buffers (float, int), ``classes`` (start, cint, bw, fen, loc, qscale) of :class:`~.incremental.Classes`
    (empty arrays where there are none).  ``learning``: ``(emain, ebuf, btrue, ubuf, ef)``, float64 arrays: the
    cold start's sorted ECDF parts (s), the per-decision error's true bandwidths (bits/s), uniform draws and
    [e, floor (bits/s)] (empty arrays where not used: ``si[S_COLD]`` and ``si[S_ERR]`` say which are).  A run
    that learns nothing passes empty arrays too, so :func:`_turns` has one specialization for every run (it
    compiled apart for None: ~12 compile CPU-s of the warm-up, docs/speed.md 2026-11-30 ``warm9``)."""
    core = (si, tuple(par_rest), tuple(model), *queue, holding, bw_all, *bufs, *classes)
    return core, tuple(learning)


@njit(cache=True)
def _isqrt(k):
    """``math.isqrt(k)`` for k >= 0."""
    r = int(math.sqrt(k))
    while r * r > k:
        r -= 1
    while (r + 1) * (r + 1) <= k:
        r += 1
    return r


@njit(cache=True)
def ecdf_observe(emain, ebuf, si, x):
    """``OnlineECDF.observe(x)`` on its sorted parts ``emain[:si[S_MLEN]]`` and ``ebuf[:si[S_BLEN]]``: x
    inserted into the buffer after equal values (``bisect.insort``), the buffer merged into the main part
    once longer than max(64, isqrt(count)); room for one more in each (:data:`NEED_ECDF`)."""
    m, b = si[S_MLEN], si[S_BLEN]
    i = np.searchsorted(ebuf[:b], x, side="right")
    for j in range(b, i, -1):
        ebuf[j] = ebuf[j - 1]
    ebuf[i] = x
    b += 1
    if b > max(ECDF_MIN_BUFFER, _isqrt(m + b)):                # np.insert of the buffer: a sorted merge
        k = m + b - 1
        i, j = m - 1, b - 1
        while j >= 0:
            if i >= 0 and emain[i] > ebuf[j]:
                emain[k] = emain[i]
                i -= 1
            else:
                emain[k] = ebuf[j]
                j -= 1
            k -= 1
        m += b
        b = 0
    si[S_MLEN], si[S_BLEN] = m, b


@njit(cache=True)
def _drawn_estimates(si, ids, count, btrue, ubuf, ef):
    """``ErrorEstimator(ids[:count])`` (:func:`~simlib.workloads.bandwidth.error_estimator`, bits/s): b + b e x
    with x = -1 + 2 u (numpy's ``uniform(-1, 1)``) for the next unused draws u of ``ubuf``, positive b floored."""
    e, floor = ef[0], ef[1]
    est = np.empty(count)
    pos = si[S_UPOS]
    for i in range(count):
        a = btrue[ids[i]]
        v = a + a * e * (-1.0 + 2.0 * ubuf[pos + i])
        if a > 0.0 and not v >= floor:
            v = floor
        est[i] = v
    si[S_UPOS] = pos + count
    return est


# The turn's layers (_turn down to _launch) are inlined into _turns as numba IR (inline="always"): compiled apart,
# each layer would link and re-optimize everything below it once per specialization of each of its callers
# (the cluster-selective warm-up's critical path, docs/speed.md 2026-11-30); inlined, they are compiled only as
# part of _turns, once (one specialization for every run).  They take the controller's state and the few worker
# arrays they read, not the engine's tuples: numba takes a new reference to every array of an inlined layer's
# arguments (two atomic operations each, per layer and turn), so the launches, hold records and the timer that the
# turn decides are made by _turns itself, from the members the turn leaves in ``ibuf`` (:func:`_launch`).
@njit(cache=True, inline="always")
def _launch(si, holding, ibuf, group, kind):
    """``SelectiveReduceController._launch`` up to ``Cluster.launch``: the group's holds end, k + 1 (line 20); the
    group is appended to the turn's launches for :func:`_turns` (members at ``ibuf[I_SEL]``, launch r's at
    ``[ibuf[I_OFF, r], ibuf[I_OFF, r + 1])``, ``si[S_NL]`` launches, ``si[S_KIND]`` their kind)."""
    for i in range(group.shape[0]):
        holding[group[i]] = False
    r = si[S_NL]
    a = ibuf[kernels.I_OFF, r]
    for i in range(group.shape[0]):
        ibuf[kernels.I_SEL, a + i] = group[i]
    ibuf[kernels.I_OFF, r + 1] = a + group.shape[0]
    si[S_NL] = r + 1
    si[S_KIND] = kind
    si[S_K] += 1


@njit(cache=True, inline="always")
def _launch_planned(si, holding, q_ids, ibuf, n_runs, n_launch, n_new):
    """Launch the runs of ``q_ids`` (the queue in plan order) that the round's plan in ``ibuf`` marks (Alg. 3
    lines 13-17) and leave its ``n_new`` new holds for :func:`_turns` to record (``si[S_NEW]``); returns which queue
    positions stay (all of them, as an empty array, when nothing launched)."""
    keep = np.ones(q_ids.shape[0] if n_launch else 0, np.bool_)
    if n_launch:
        for r in range(n_runs):
            if ibuf[kernels.I_RUN_LAUNCH, r]:
                s, e = ibuf[kernels.I_RUN_S, r], ibuf[kernels.I_RUN_E, r]
                keep[s:e] = False
                _launch(si, holding, ibuf, q_ids[s:e], ck.KIND_PARTIAL)
    si[S_NEW] = n_new
    return keep


@njit(cache=True, inline="always")
def _drawn_round(now, phase, cstart, cfin, st, learn):
    """``SelectiveReduceController._partial_round`` with estimates drawn per decision (Alg. 3 lines 9-22):
    line 9's estimates of the queue in arrival order then the workers in training (by id), BAG's sort of
    the queue by them, the reference pass; the launched workers leave the queue, which stays in arrival order."""
    si, par_rest, model, qids, holding, bw_all, fbuf, ibuf = st[0], st[1], st[2], st[3], st[7], st[8], st[9], st[10]
    qlen = si[S_QLEN]
    n = phase.shape[0]
    ids = np.empty(n, np.int64)
    ids[:qlen] = qids[:qlen]
    m = qlen
    for w in range(n):                                          # Cluster.training_workers()
        if phase[w] == ck.COMPUTING:
            ids[m] = w
            m += 1
    est = _drawn_estimates(si, ids, m, learn[2], learn[3], learn[4])
    order = np.argsort(-est[:qlen], kind="mergesort")
    q_ids = ids[:qlen][order]
    q_bw = est[:qlen][order]
    for i in range(qlen, m):
        bw_all[ids[i]] = est[i]
    par = (now,) + par_rest
    n_runs, n_launch, n_new = kernels.round_plan((phase, bw_all, cstart, cfin), q_ids, q_bw, holding, par,
                                                 model, fbuf, ibuf)
    if n_launch == 0 and n_new == 0:                            # nothing launched or held
        return
    keep = _launch_planned(si, holding, q_ids, ibuf, n_runs, n_launch, n_new)
    if n_launch:                                                # line 18: pop the launched workers
        m = 0
        keep_fifo = np.empty(qlen, np.bool_)
        for i in range(qlen):
            keep_fifo[order[i]] = keep[i]
        for i in range(qlen):
            if keep_fifo[i]:
                qids[m] = ids[i]
                m += 1
        si[S_QLEN] = m


@njit(cache=True, inline="always")
def _partial_round(now, phase, cstart, cfin, st):
    """``SelectiveReduceController._partial_round`` with fixed estimates (Alg. 3 lines 9-22)."""
    (si, par_rest, model, qids, qbw, qheld, seq, holding, bw_all, fbuf, ibuf, clstart, cint, cbw, fen, loc,
     qscale) = st
    h, qlen = si[S_QHEAD], si[S_QLEN]
    q_ids, q_bw, q_held = qids[h:h + qlen], qbw[h:h + qlen], qheld[h:h + qlen]
    par = (now,) + par_rest
    status = incremental.UNSURE
    n_runs = n_launch = n_new = 0
    if si[S_INCR] != 0:                                         # lines 10-22 on the classes (E21)
        if si[S_STALE] != 0:
            si[S_COUNT] = incremental.build_classes(phase, ck.COMPUTING, cstart, bw_all, qscale, clstart, cint,
                                                    cbw, fen, loc)
            si[S_STALE] = 0
        status, n_runs, n_launch, n_new = incremental.fast_round_plan(
            q_ids, q_bw, qheld, h, holding, par, model, (si[S_COUNT], clstart, cint, cbw, fen, qscale), ibuf)
        si[S_FALLBACK] += status == incremental.UNSURE
    if status != incremental.SURE:                              # the reference pass
        n_runs, n_launch, n_new = kernels.round_plan((phase, bw_all, cstart, cfin), q_ids, q_bw, holding,
                                                     par, model, fbuf, ibuf)
        if n_new:
            for i in range(qlen):
                q_held[i] = holding[q_ids[i]]
    if n_launch == 0 and n_new == 0:                            # nothing launched or held
        return
    keep = _launch_planned(si, holding, q_ids, ibuf, n_runs, n_launch, n_new)
    if n_launch:                                                # line 18: pop the launched workers, re-centred
        rest, rest_bw, rest_held = q_ids[keep], q_bw[keep], q_held[keep]
        m = rest.shape[0]
        h2 = (qids.shape[0] - m) // 2
        qbw[h2:h2 + m] = rest_bw
        qheld[h2:h2 + m] = rest_held
        qids[h2:h2 + m] = rest
        si[S_QLEN] = m
        si[S_QHEAD] = h2


@njit(cache=True, inline="always")
def _turn(iv, now, phase, cstart, cfin, st, learn):
    """One turn of the controller at time ``now`` (s): ``on_ready(iv[I_TURN], ...)`` or, for -1, ``_on_timeout()``;
    then ``process()`` (lines 5-22), its launches and new holds left for :func:`_turns` (:func:`_launch`).
    ``on_sync_done`` (the classes go stale) is applied first for every sync that ended since the last turn.
    ``learn``: :func:`turn_state`'s (its arrays read only where ``si[S_COLD]`` / ``si[S_ERR]`` say so).  Lines 9-22
    in a run that learns use the cold start's progress model over the ECDF as it is now (the state ``st`` with
    that model: of ``st``'s types, the arrays of :func:`~.kernels.cdf_model` being writable as the ECDF's parts
    are, so the rounds below compile once) and estimates drawn now or fixed."""
    (si, par_rest, model, qids, qbw, qheld, seq, holding, bw_all, fbuf, ibuf, clstart, cint, cbw, fen, loc,
     qscale) = st
    si[S_NL] = 0
    si[S_NEW] = 0
    ibuf[kernels.I_OFF, 0] = 0
    if si[S_CLS] != 0 and iv[ck.I_NDONE] != si[S_DONE]:
        si[S_STALE] = 1
    si[S_DONE] = iv[ck.I_NDONE]
    w = iv[ck.I_TURN]
    if w >= 0:                                                  # on_ready
        if si[S_COLD] != 0:                                     # observe(compute_time): the cold start's ECDF
            ecdf_observe(learn[0], learn[1], si, now - cstart[w])
        if si[S_CLS] != 0 and si[S_STALE] == 0:                 # w left S
            incremental.remove_worker(w, cint, fen, loc, cbw, qscale)
        seq[w] = si[S_ARRIVALS]                                 # line 26: push w to Q
        si[S_ARRIVALS] += 1
        if si[S_ERR] == 0:
            si[S_QHEAD], si[S_QLEN] = kernels.queue_insert(qids, qbw, qheld, si[S_QHEAD], si[S_QLEN], w, bw_all[w])
        else:                                                   # estimates drawn per decision: arrival order
            qids[si[S_QLEN]] = w
            si[S_QLEN] += 1
    c = si[S_C]
    if c > 0 and si[S_K] % c == 0:
        if si[S_QLEN] == si[S_N]:                               # lines 5-7, the queue in arrival order
            h = si[S_QHEAD]
            ids = qids[h:h + si[S_QLEN]]
            group = ids[np.argsort(seq[ids], kind="mergesort")]
            si[S_QLEN] = 0
            _launch(si, holding, ibuf, group, ck.KIND_FULL)
    elif si[S_QLEN] >= si[S_P]:                                 # line 8
        si[S_ROUNDS] += 1
        if si[S_COLD] != 0:
            m, b = si[S_MLEN], si[S_BLEN]
            cur = (model[0], model[1], learn[0][:m], model[3], model[4], model[5], learn[1][:b], m + b, model[8])
            st = st[:2] + (cur,) + st[3:]
        if si[S_ERR] != 0:
            _drawn_round(now, phase, cstart, cfin, st, learn)
        else:
            _partial_round(now, phase, cstart, cfin, st)


@njit(cache=True)
def _turns(net, hp, wo, syn, ct, st, learn):
    """:func:`turns_loop` on the state's two parts (one specialization for every run): the cluster loop to each
    turn, the turn (:func:`_turn`), then what it decided, in the Python turn's order: its launches
    (``Cluster.launch``, each group copied), the new holds (``Cluster.record_hold``) and ``_arm()`` (line 24)."""
    si, par_rest, ibuf = st[0], st[1], st[10]
    iv, fs = net.iv, net.fs
    while True:
        if si[S_ERR] != 0 and si[S_ULEN] - si[S_UPOS] < si[S_N]:         # a turn draws at most n
            return NEED_ERRORS
        if si[S_COLD] != 0 and (si[S_MLEN] + si[S_BLEN] + 1 > learn[0].shape[0]
                                or si[S_BLEN] + 1 > learn[1].shape[0]):
            return NEED_ECDF                                             # a turn observes at most once
        status = ck.run_to_turn(net, hp, wo, syn, ct)
        if status != ck.TURN:
            return status
        _turn(iv, fs[ck.F_NOW], wo.phase, wo.cstart, wo.cfin, st, learn)
        for r in range(si[S_NL]):
            ck.launch(net, hp, syn, ct.owner, ct.oslot, wo.phase, wo.iters,
                      ibuf[kernels.I_SEL, ibuf[kernels.I_OFF, r]:ibuf[kernels.I_OFF, r + 1]], si[S_KIND])
        if si[S_NEW]:
            ck.record_hold(net, ct, ibuf[kernels.I_HOLD, :si[S_NEW]])
        if si[S_QLEN] >= si[S_P]:                               # line 24: (re)start the Δt timeout
            ck.timer_set(net, hp, par_rest[0])
        elif ck.timer_pending(net):
            ck.timer_cancel(net)


def turns_loop(net, hp, wo, syn, ct, st):
    """The compiled cluster loop with the controller's turns (the ``loop`` of ``compiled_turns()``):
    :func:`~simlib.runtime.cluster_kernel.run_to_turn`'s status, taking each turn (:func:`_turn`); ``st``
    :func:`turn_state`'s pair.  A Python function: as a compiled one it would only unpack the pair, yet numba
    would link and re-optimize the whole loop below it for each of its specializations (~7 CPU-s each)."""
    return _turns(net, hp, wo, syn, ct, st[0], st[1])


# code compiled from the runtime's kernel and this package's passes is frozen into this module's cache entries
jitcache.track(globals())
