"""Seed 000 Alg. 3's controller turn compiled, for the compiled cluster loop (decision N14).

:class:`~simlib.papers.selective_reduce.controller.SelectiveReduceController` reacts to two events: a
worker became ready (``on_ready``: the queue insertion of line 26, then lines 5-24) and its Δt timer
fired (line 24's timeout: lines 5-24).  :func:`turns_loop` is the compiled cluster loop of
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
or one error draw per run), a progress model evaluated in the compiled pass that does not learn (the
warm ``paper`` / ``conditional`` models, the oracle), no ``observe``; anything else stays on the Python
loop (:meth:`SelectiveReduceController.compiled_turns_unsupported` says why).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from simlib.core import jitcache
from simlib.runtime import cluster_kernel as ck

from . import incremental, kernels

__all__ = ["turns_loop", "turn_state", "N_SI"]

# si: the controller's integer scalars
(S_QHEAD, S_QLEN, S_ARRIVALS, S_K, S_ROUNDS, S_FALLBACK, S_STALE, S_DONE, S_COUNT, S_P, S_C, S_N, S_CLS,
 S_INCR) = range(14)
N_SI = 14


def turn_state(si, par_rest, model, queue, holding, bw_all, bufs, classes) -> tuple:
    """The tuple :func:`turns_loop` takes: ``si`` (int64, ``S_*``), ``par_rest`` the pass's
    :class:`~.kernels.PassParams` fields after ``now``, ``model`` a :class:`~.kernels.CdfModel`'s fields,
    ``queue`` (ids, bandwidths, held flags by position, arrival numbers), ``holding``, ``bw_all`` the fixed
    estimates (bits/s), ``bufs`` the work buffers (float, int), ``classes`` (start, cint, bw, fen, loc,
    qscale) of :class:`~.incremental.Classes` (empty arrays where there are none)."""
    return (si, tuple(par_rest), tuple(model), *queue, holding, bw_all, *bufs, *classes)


@njit(cache=True)
def _launch(net, hp, wo, syn, ct, si, holding, group, kind):
    """``SelectiveReduceController._launch``: the group's holds end, ``Cluster.launch``, k + 1 (line 20)."""
    for i in range(group.shape[0]):
        holding[group[i]] = False
    ck.launch(net, hp, syn, ct.owner, ct.oslot, wo.phase, wo.iters, group, kind)
    si[S_K] += 1


@njit(cache=True)
def _partial_round(net, hp, wo, syn, ct, st):
    """``SelectiveReduceController._partial_round`` with fixed estimates (Alg. 3 lines 9-22)."""
    (si, par_rest, model, qids, qbw, qheld, seq, holding, bw_all, fbuf, ibuf, cstart, cint, cbw, fen, loc,
     qscale) = st
    h, qlen = si[S_QHEAD], si[S_QLEN]
    q_ids, q_bw, q_held = qids[h:h + qlen], qbw[h:h + qlen], qheld[h:h + qlen]
    par = (net.fs[ck.F_NOW],) + par_rest
    status = incremental.UNSURE
    n_runs = n_launch = n_new = 0
    if si[S_INCR] != 0:                                         # lines 10-22 on the classes (E21)
        if si[S_STALE] != 0:
            si[S_COUNT] = incremental.build_classes(wo.phase, ck.COMPUTING, wo.cstart, bw_all, qscale, cstart, cint,
                                                    cbw, fen, loc)
            si[S_STALE] = 0
        status, n_runs, n_launch, n_new = incremental.fast_round_plan(
            q_ids, q_bw, qheld, h, holding, par, model, (si[S_COUNT], cstart, cint, cbw, fen, qscale), ibuf)
        si[S_FALLBACK] += status == incremental.UNSURE
    if status != incremental.SURE:                              # the reference pass
        n_runs, n_launch, n_new = kernels.round_plan((wo.phase, bw_all, wo.cstart, wo.cfin), q_ids, q_bw, holding,
                                                     par, model, fbuf, ibuf)
        if n_new:
            for i in range(qlen):
                q_held[i] = holding[q_ids[i]]
    keep = np.ones(qlen if n_launch else 0, np.bool_)
    if n_launch:
        for r in range(n_runs):
            if ibuf[kernels.I_RUN_LAUNCH, r]:
                s, e = ibuf[kernels.I_RUN_S, r], ibuf[kernels.I_RUN_E, r]
                keep[s:e] = False
                _launch(net, hp, wo, syn, ct, si, holding, q_ids[s:e], ck.KIND_PARTIAL)
    if n_new:
        ck.record_hold(net, ct, ibuf[kernels.I_HOLD, :n_new])
    if n_launch:                                                # line 18: pop the launched workers, re-centred
        rest, rest_bw, rest_held = q_ids[keep], q_bw[keep], q_held[keep]
        m = rest.shape[0]
        h2 = (qids.shape[0] - m) // 2
        qbw[h2:h2 + m] = rest_bw
        qheld[h2:h2 + m] = rest_held
        qids[h2:h2 + m] = rest
        si[S_QLEN] = m
        si[S_QHEAD] = h2


@njit(cache=True)
def _turn(net, hp, wo, syn, ct, st):
    """One turn of the controller: ``on_ready(iv[I_TURN], ...)`` or, for -1, ``_on_timeout()``; then
    ``process()`` (lines 5-22) and ``_arm()`` (line 24).  ``on_sync_done`` (the classes go stale) is
    applied first for every sync that ended since the last turn."""
    (si, par_rest, model, qids, qbw, qheld, seq, holding, bw_all, fbuf, ibuf, cstart, cint, cbw, fen, loc,
     qscale) = st
    iv = net.iv
    if si[S_CLS] != 0 and iv[ck.I_NDONE] != si[S_DONE]:
        si[S_STALE] = 1
    si[S_DONE] = iv[ck.I_NDONE]
    w = iv[ck.I_TURN]
    if w >= 0:                                                  # on_ready
        if si[S_CLS] != 0 and si[S_STALE] == 0:                 # w left S
            incremental.remove_worker(w, cint, fen, loc, cbw, qscale)
        seq[w] = si[S_ARRIVALS]                                 # line 26: push w to Q
        si[S_ARRIVALS] += 1
        si[S_QHEAD], si[S_QLEN] = kernels.queue_insert(qids, qbw, qheld, si[S_QHEAD], si[S_QLEN], w, bw_all[w])
    c = si[S_C]
    if c > 0 and si[S_K] % c == 0:
        if si[S_QLEN] == si[S_N]:                               # lines 5-7, the queue in arrival order
            h = si[S_QHEAD]
            ids = qids[h:h + si[S_QLEN]]
            group = ids[np.argsort(seq[ids], kind="mergesort")]
            si[S_QLEN] = 0
            _launch(net, hp, wo, syn, ct, si, holding, group, ck.KIND_FULL)
    elif si[S_QLEN] >= si[S_P]:                                 # line 8
        si[S_ROUNDS] += 1
        _partial_round(net, hp, wo, syn, ct, st)
    if si[S_QLEN] >= si[S_P]:                                   # line 24: (re)start the Δt timeout
        ck.timer_set(net, hp, par_rest[0])
    elif ck.timer_pending(net):
        ck.timer_cancel(net)


@njit(cache=True)
def turns_loop(net, hp, wo, syn, ct, st):
    """The compiled cluster loop with the controller's turns (the ``loop`` of ``compiled_turns()``):
    :func:`~simlib.runtime.cluster_kernel.run_to_turn`'s status, taking each turn (:func:`_turn`)."""
    while True:
        status = ck.run_to_turn(net, hp, wo, syn, ct)
        if status != ck.TURN:
            return status
        _turn(net, hp, wo, syn, ct, st)


# code compiled from the runtime's kernel and this package's passes is frozen into this module's cache entries
jitcache.track(globals())
