"""Replay a :class:`~simlib.runtime.cluster.ScheduleLog` through real training (seed 002 Alg. 2).

Every worker holds its own model replica, all starting from the same
``x_init``.  At each of its compute-end times worker ``w`` takes one minibatch
SGD step ``x_w <- x_w - lr · grad(x_w; batch_w,k)`` on its replica; a
synchronization replaces every member's replica by
``Σ_j weights[j] · x_{members[j]} + init_weight · x_init`` (equal weights
``1/|members|`` and ``init_weight = 0`` when the record has none); a record
with ``targets`` replaces only those members' replicas (a one-way merge such
as a multicast delivery: members (i, j), targets (j,)).  Members do
not compute between their ready time and the sync finish, so the average is
applied at ``launch`` (decision RP2 in docs/decisions/replay.md).

Event order.  A sync record's ``iterations[j]`` says after which of member
``j``'s compute ends it was launched, so every worker has an exact chain of
events (its compute ends with its syncs in between).  Events are processed in
time order (compute ends before syncs at equal times) subject to those
chains; a log whose times contradict its chains is rejected.

Vectorization.  Consecutive compute ends of *distinct* workers that are not
separated by a sync touching any of them are one ``model.grad`` call on
``(m, d)`` arrays; consecutive syncs none of whose members an earlier one of
them wrote are applied together; the result is identical to one-at-a-time
processing (tested; RP4, RP10).

Minibatches.  Worker ``w``'s ``k``-th minibatch is ``batch_size`` i.i.d. draws
with replacement from the training set (``data="iid"``) or from the worker's
own shard of it (``data="sharded"``, RP11), from a stream that depends only on
``(seed, w)`` (see :func:`minibatch_indices`), so the same worker/iteration
sees the same batch whatever the schedule (paired comparisons between
schemes).  ``x_init`` comes from a separate fixed child of ``seed``.

Update rules.  All of the above is the ``"average"`` rule.  A log whose ``update_rule`` is
``"gradient"`` (a parameter server, Eager-Reduce) is replayed on one global model instead:
compute ends accumulate gradients, records apply them with their weights as step-size factors
and their targets pull the global model, which is what is evaluated (RP12, :func:`_replay_gradient`).

Gradients taken before a sync.  A record's ``computing`` members were mid-computation when it
launched (AD-PSGD's neighbour, and its initiator, which averages before applying its step): the
gradient of each one's next local step is taken on its replica just before the record is applied,
and applied when that step ends (RP13).

Evaluation.  The *average model* (mean of all n replicas) is evaluated on the
test set at ``0, eval_every_s, 2·eval_every_s, …`` and at ``log.duration``;
the state at time ``t`` includes every event with time ``<= t``.  ``Numerics.loss_every`` k > 1 takes the
test loss only every k-th time (the accuracy, and so every time to accuracy, at every time: RP23); k = 0 takes
none (RP27: what the trials use, reading no loss).  A time
at which no event has changed the evaluated model since the last evaluation reuses that evaluation (the same
array, so the same values; lock-step systems leave the model idle for much of each round).
``Numerics(curve="to_target")`` (RP25, with early stop) evaluates only as much of the test set as shows that an
evaluation is below ``stop_acc``: such a row has NaN accuracy and loss; the first row at or above it (the
stop), rows not shown below and the last row are evaluated in full, so the time to ``stop_acc`` is unchanged.
"""
from __future__ import annotations

import contextlib
import dataclasses
import heapq
import math
from dataclasses import dataclass
from numbers import Integral

import numpy as np
import pandas as pd
from numba import njit
from threadpoolctl import threadpool_limits

from simlib.core import jitcache
from simlib.core.seeding import as_seed_sequence, child_seed
from simlib.runtime.log import UPDATE_RULES, PairSyncs
from simlib.training.learning import MODELS, Problem, _argmax_hits, load_problem, make_model
from simlib.core.validate import check_choice, check_int, check_real

__all__ = ["ReplayResult", "Numerics", "StepRule", "replay", "ParsedLog", "parse_log", "minibatch_indices", "shards", "init_params", "time_to_accuracy",
           "iterations_to_accuracy", "CURVE_COLUMNS", "BATCH_CHUNK", "DTYPES", "DATA_MODES", "CURVES", "CUT_CHUNK",
           "wrong_budget", "certainly_wrong", "tie_tolerance"]

CURVE_COLUMNS = ("time_s", "iterations", "syncs", "test_loss", "test_acc")
#: Minibatches are drawn from each worker's stream in blocks of this many.
BATCH_CHUNK = 64
_INIT_KEY, _BATCH_KEY, _SHARD_KEY = 0, 1, 2
#: Where a worker's minibatches come from (RP11): "iid" the whole training set, "sharded" its own shard.
DATA_MODES = ("iid", "sharded")
UNFINISHED = ("apply", "drop")
DTYPES = ("float64", "float32")
#: Syncs with at most this many members are combined by elementwise sums, larger ones by matmul.
_LOOP_K = 4
#: A held-back batch's only record of its member count writes its new replica to its targets by broadcasting
#: it, without repeating it once per target first (the same values; False: the repeated rows, for the tests).
_BROADCAST_ONE = True
#: What a replay's curve holds (RP25): ``"full"`` every evaluation's values; ``"to_target"`` only what the
#: time to ``stop_acc`` needs (evaluations shown to be below it are cut short and have NaN values).
CURVES = ("full", "to_target")
#: Test samples per logits call of a cut-short evaluation (RP25; the cost only, never a value).
CUT_CHUNK = 100
#: The gradient look-ahead (RP28; the cost only, never a value) in clusters of at most this many workers: a batched
#: gradient call also takes the next iteration's gradient of every worker whose replica is final until then.  Its
#: scan of the workers at each call costs more than the calls it saves in larger clusters (whose batches are large
#: already); 0: off.
AHEAD_MAX_N = 32
#: The server's one-member applies and one-target pulls (a parameter server's pushes and pulls) work on the
#: accumulator's and replica's rows as views, and an update's ``lr · d`` is written into ``d`` (the same products
#: on the same values; False: every record through the gathered statements, for the tests).
_ONE_ROW = True


@dataclass(frozen=True, eq=False)
class ReplayResult:
    """Learning curve of the average model, plus the replicas at the end of the run.

    ``curve``: one row per evaluation, columns ``CURVE_COLUMNS`` (time_s, total
    local iterations so far, syncs launched so far, test loss, test accuracy).
    ``final_params`` (n, d): every worker's replica after the last event;
    ``x_init`` (d,): the common initial model; ``grad_calls``: number of
    vectorized gradient calls made (a measure of the batching achieved);
    ``final_model`` (d,): the model the curve evaluates, after the last event (the mean of the
    replicas, or the global model of a log with update rule ``"gradient"``, RP12).
    """

    curve: pd.DataFrame
    final_params: np.ndarray
    x_init: np.ndarray
    grad_calls: int
    final_model: np.ndarray | None = None
    #: :data:`CURVES`: what the curve holds (``"to_target"``: NaN rows where an evaluation was cut short, RP25).
    curve_mode: str = "full"
    #: Test samples whose logits the evaluations computed (cut-short ones count what they used).
    eval_samples: int = 0


# ------------------------------------------------------------------------ seeds
def minibatch_indices(seed, worker: int, n_train: int, batch_size: int, count: int) -> np.ndarray:
    """Training-set indices of worker ``worker``'s first ``count`` minibatches, shape (count, batch_size).

    Stream: ``default_rng(SeedSequence(seed.entropy, spawn_key=seed.spawn_key + (1, worker)))``
    drawing ``integers(0, n_train, size=(BATCH_CHUNK, batch_size))`` blocks; row
    ``k`` is minibatch ``k`` (0-based) whatever ``count`` is.  ``seed``: int >= 0
    or a ``SeedSequence``.
    """
    root = as_seed_sequence(seed)
    worker = check_int("worker", worker, lo=0)
    n_train = check_int("n_train", n_train, lo=1)
    batch_size = check_int("batch_size", batch_size, lo=1)
    count = check_int("count", count, lo=0)
    rng = np.random.default_rng(child_seed(root, _BATCH_KEY, worker))
    blocks = -(-count // BATCH_CHUNK)
    if not blocks:
        return np.empty((0, batch_size), dtype=np.int64)
    # the blocks in one draw: bounded int64 draws of a range below 2**32 each read the generator's uint32
    # stream in turn (Lemire's rejection included), so one call of ``blocks`` blocks gives the values of
    # ``blocks`` consecutive calls (tested against the block-by-block draws)
    return rng.integers(0, n_train, size=(blocks * BATCH_CHUNK, batch_size))[:count]


def shards(seed, n_train: int, n: int) -> list[np.ndarray]:
    """Worker shards of the training set for ``data="sharded"``: a uniformly random permutation
    of ``range(n_train)`` from child key ``(2,)`` of ``seed``, cut into ``n`` contiguous parts of
    sizes differing by at most one (``numpy.array_split``); needs ``n <= n_train``."""
    n_train = check_int("n_train", n_train, lo=1)
    n = check_int("n", n, lo=1, hi=n_train)
    perm = np.random.default_rng(child_seed(as_seed_sequence(seed), _SHARD_KEY)).permutation(n_train)
    return np.array_split(perm, n)


def init_params(seed, model) -> np.ndarray:
    """The common initial model ``x_init`` that :func:`replay` uses for ``seed``."""
    return np.asarray(model.init(np.random.default_rng(child_seed(as_seed_sequence(seed), _INIT_KEY))), dtype=float)


# ------------------------------------------------------------------ event order
def _check_log(log):
    for attr in ("n", "duration", "compute_end", "syncs"):
        if not hasattr(log, attr):
            raise ValueError(f"log must be a ScheduleLog (missing attribute {attr!r})")
    n = check_int("log.n", log.n, lo=1)
    duration = check_real("log.duration", log.duration, 0.0, lo_open=True)
    if len(log.compute_end) != n:
        raise ValueError(f"log.compute_end must have log.n = {n} lists, got {len(log.compute_end)}")
    ends = []
    for w, ce in enumerate(log.compute_end):
        a = np.asarray(ce, dtype=float).reshape(-1)
        if a.size and (not np.all(np.isfinite(a)) or a[0] < 0 or a[-1] > duration
                       or np.any(np.diff(a) < 0)):
            raise ValueError(f"log.compute_end[{w}] must be sorted times in [0, log.duration = {duration}]")
        ends.append(a)
    return n, duration, ends


@dataclass(frozen=True, eq=False)
class _Syncs:
    """The log's sync records as flat arrays (record ``i`` owns ``mem[ptr[i]:ptr[i+1]]``)."""

    launch: np.ndarray   # (S,) launch times
    ptr: np.ndarray      # (S+1,) offsets into mem / its / w
    mem: np.ndarray      # member ids, record by record
    its: np.ndarray      # iterations[j] of each member
    w: np.ndarray        # weight of each member (1/|members| when the record has none)
    c: np.ndarray        # (S,) init_weight (0 when the record has none)
    tptr: np.ndarray     # (S+1,) offsets into tgt
    tgt: np.ndarray      # replicas each record replaces (its members when it has no targets)
    apply: np.ndarray    # (S,) False for an unfinished sync under unfinished="drop"


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _reals(values: list, field: str, syncs: list, lo=None, hi=None) -> np.ndarray:
    """``values`` (one per sync record) as a float array; the first that is not a finite real in
    [lo, hi] raises the ValueError of ``check_real`` naming ``log.syncs[i].<field>``."""
    try:
        a = np.array(values, dtype=float)
        bad = ~np.isfinite(a) | (a < (-np.inf if lo is None else lo)) | (a > (np.inf if hi is None else hi))
        ok = not bad.any() and (isinstance(values, np.ndarray) or not any(type(v) is bool for v in values))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        for i, v in enumerate(values.tolist() if isinstance(values, np.ndarray) else values):
            check_real(f"log.syncs[{i}].{field}", v, lo, hi)
    return a


def _parse_syncs(n: int, duration: float, ends: list, syncs: list, unfinished: str) -> _Syncs:
    """Read and check every sync record once; the checks (and their messages) are those of RP3."""
    S = len(syncs)
    if isinstance(syncs, PairSyncs):    # the records' fields as columns: the same values the loop below collects
        return _parse_columns(n, duration, ends, syncs, _pair_columns(syncs))
    launch, c = [], []
    apply = np.ones(S, dtype=bool)
    klen_l, tlen_l, unfin = [], [], []
    mem, its, wts, tgt = [], [], [], []
    drop = unfinished == "drop"
    equal = {}                          # k -> (1/k,) * k
    for i, rec in enumerate(syncs):
        members = tuple(rec.members)
        k = len(members)
        if not k:
            raise ValueError(f"log.syncs[{i}].members must be distinct worker ids in [0, {n - 1}], got {members}")
        it = tuple(getattr(rec, "iterations", ()) or ())
        if len(it) != k:
            raise ValueError(f"log.syncs[{i}].iterations must align with members")
        w = getattr(rec, "weights", None)
        if w is None:
            w = equal.get(k)
            if w is None:
                w = equal[k] = (1.0 / k,) * k
        elif not hasattr(w, "__len__") or len(w) != k:
            w = np.asarray(w, dtype=float).reshape(-1)
            if w.size != k:
                raise ValueError(f"log.syncs[{i}].weights must be {k} finite reals aligned with members")
        tg = getattr(rec, "targets", None)
        tg = members if tg is None else tuple(tg)
        launch.append(rec.launch)
        c.append(getattr(rec, "init_weight", None))
        if drop and rec.finish is None:
            unfin.append(i)
        klen_l.append(k)
        tlen_l.append(len(tg))
        mem += members
        its += it
        wts += w
        tgt += tg
    apply[unfin] = False
    c = [0.0 if x is None else x for x in c]
    return _parse_columns(n, duration, ends, syncs, (apply, launch, c, klen_l, tlen_l, mem, its, wts, tgt))


def _pair_columns(syncs: PairSyncs) -> tuple:
    """The lists :func:`_parse_syncs`' loop collects from ``syncs``' records, as arrays of the same values (every
    record finished, so none is dropped; no ``init_weight``; two members, one target)."""
    S = len(syncs)
    two = lambda x, y: np.stack((x, y), axis=1).reshape(-1)      # noqa: E731 (record by record: x[i], y[i])
    return (np.ones(S, dtype=bool), syncs.launch, np.zeros(S), np.full(S, 2, dtype=np.int64),
            np.ones(S, dtype=np.int64), two(syncs.src, syncs.dst), two(syncs.it_src, syncs.it_dst),
            np.tile(np.array(syncs.weights, dtype=float), S), syncs.dst)


def _parse_columns(n: int, duration: float, ends: list, syncs, cols: tuple) -> _Syncs:
    """The checks of :func:`_parse_syncs` on the records' fields collected (lists or arrays) in ``cols``: (apply
    flags, launches, init weights, member counts, target counts, members, iterations, weights, targets), and its
    result."""
    apply, launch, c, klen_l, tlen_l, mem, its, wts, tgt = cols
    S = len(syncs)
    klen = np.array(klen_l, dtype=np.int64)
    tlen = np.array(tlen_l, dtype=np.int64)
    ptr = np.zeros(S + 1, dtype=np.int64)
    np.cumsum(klen, out=ptr[1:])
    tptr = np.zeros(S + 1, dtype=np.int64)
    np.cumsum(tlen, out=tptr[1:])
    rec_of = np.repeat(np.arange(S), klen)

    launch = _reals(launch, "launch", syncs, lo=0.0, hi=duration)
    c = _reals(c, "init_weight", syncs)
    mem_a, its_a, tgt_a = (np.asarray(x) for x in (mem, its, tgt))

    def members_error(i):
        return ValueError(f"log.syncs[{i}].members must be distinct worker ids in [0, {n - 1}], "
                          f"got {tuple(syncs[i].members)}")

    if mem_a.size and mem_a.dtype.kind not in "iu":
        raise members_error(next(i for i, r in enumerate(syncs) if not all(isinstance(m, Integral) for m in r.members)))
    mem_a = mem_a.astype(np.int64, copy=False)
    bad = (mem_a < 0) | (mem_a >= n)
    if bad.any():
        raise members_error(rec_of[_first(bad)])
    pairs = isinstance(syncs, PairSyncs)    # two members, the second the only target: no sort needed
    if pairs:
        bad = mem_a[0::2] == mem_a[1::2]
        if bad.any():
            raise members_error(_first(bad))
    else:
        key = np.sort(rec_of * n + mem_a)
        bad = key[1:] == key[:-1]
        if bad.any():
            raise members_error(key[_first(bad)] // n)
    sizes = np.array([e.size for e in ends], dtype=np.int64)
    if its_a.size and its_a.dtype.kind not in "iu":
        i = next(i for i, r in enumerate(syncs) if not all(isinstance(x, Integral) for x in r.iterations))
        raise ValueError(f"log.syncs[{i}].iterations must be integers in [0, compute ends] for each member, "
                         f"got {tuple(syncs[i].iterations)}")
    its_a = its_a.astype(np.int64, copy=False)
    bad = (its_a < 0) | (its_a > sizes[mem_a])
    if bad.any():
        j = _first(bad)
        raise ValueError(f"log.syncs[{rec_of[j]}].iterations must be in [0, {sizes[mem_a[j]]}] for worker "
                         f"{mem_a[j]}, got {its_a[j]}")
    eptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sizes, out=eptr[1:])
    flat_ends = np.concatenate(ends) if n else np.empty(0)
    lm = launch[rec_of]
    pos = eptr[mem_a] + its_a
    before = np.where(its_a > 0, flat_ends[np.maximum(pos - 1, 0)] if flat_ends.size else 0.0, -np.inf)
    after = np.where(its_a < sizes[mem_a], flat_ends[np.minimum(pos, max(flat_ends.size - 1, 0))]
                     if flat_ends.size else 0.0, np.inf)
    bad = (before > lm) | (after < lm)
    if bad.any():
        j = _first(bad)
        raise ValueError(f"log.syncs[{rec_of[j]}] (launch {launch[rec_of[j]]}) is inconsistent with worker "
                         f"{mem_a[j]}'s compute ends around its iteration {its_a[j]}")
    w_a = np.asarray(wts, dtype=float)
    bad = ~np.isfinite(w_a)
    if bad.any():
        i = rec_of[_first(bad)]
        raise ValueError(f"log.syncs[{i}].weights must be {klen[i]} finite reals aligned with members")
    trec = np.repeat(np.arange(S), tlen)
    tgt_a = tgt_a.astype(np.int64) if tgt_a.size and tgt_a.dtype.kind in "iu" else tgt_a
    ok = tgt_a.dtype.kind in "iu" or not tgt_a.size
    if ok and tgt_a.size and not pairs:     # a pair record's target is its second member (checked above)
        tkey = trec * n + tgt_a
        # np.isin(tkey, key): the sorted member keys searched (the same truth values, without isin's hashing)
        at = np.minimum(np.searchsorted(key, tkey), max(key.size - 1, 0))
        ok_member = (key[at] == tkey if key.size else np.zeros(tkey.size, dtype=bool)) & (tgt_a >= 0) & (tgt_a < n)
        st = np.sort(tkey)
        dup = np.zeros(tkey.size, dtype=bool)
        if (st[1:] == st[:-1]).any():
            dup_keys = st[1:][st[1:] == st[:-1]]
            dup = np.isin(tkey, dup_keys)
        bad = ~ok_member | dup
        ok = not bad.any()
        bad_rec = trec[_first(bad)] if not ok else None
    elif not ok:
        bad_rec = next(i for i, r in enumerate(syncs) if r.targets is not None
                       and not all(isinstance(x, Integral) for x in r.targets))
    if not ok or (tlen == 0).any():
        i = bad_rec if not ok else _first(tlen == 0)
        raise ValueError(f"log.syncs[{i}].targets must be distinct members of {tuple(syncs[i].members)}, "
                         f"got {tuple(syncs[i].targets)}")
    return _Syncs(launch=launch, ptr=ptr, mem=mem_a, its=its_a, w=w_a, c=c, tptr=tptr, tgt=tgt_a.astype(np.int64),
                  apply=apply)


def _event_order(n: int, ends: list, sy: _Syncs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Events in processing order as arrays (time, kind, id): kind 0 = compute end (id = worker,
    the iteration is implied by the order), 1 = sync (id = record index).

    Every worker has a chain: its compute ends with the syncs it joined after
    iteration ``iterations[j]`` in between (ordered by launch, then record
    index).  Among chain heads (a sync is a head when it heads all its members'
    chains) the smallest (time, kind, id, iteration) goes first.  That order is
    the lexicographic sort of all events whenever the sort respects every chain
    (checked with arrays); only logs where it does not (e.g. a zero-length sync
    and a compute end at the same instant) take the event-by-event merge.
    """
    sizes = np.array([e.size for e in ends], dtype=np.int64)
    S = sy.launch.size
    NC = int(sizes.sum())
    c_w = np.repeat(np.arange(n, dtype=np.int64), sizes)
    c_k = np.arange(NC, dtype=np.int64) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    c_t = np.concatenate(ends) if n else np.empty(0)
    time = np.concatenate([c_t, sy.launch])
    kind = np.concatenate([np.zeros(NC, dtype=np.int8), np.ones(S, dtype=np.int8)])
    ident = np.concatenate([c_w, np.arange(S, dtype=np.int64)])
    sub = np.concatenate([c_k, np.zeros(S, dtype=np.int64)])
    order = np.lexsort((sub, ident, kind, time))
    gpos = np.empty(order.size, dtype=np.int64)
    gpos[order] = np.arange(order.size)
    # chain elements: compute (w, slot 2k+1), sync member (m, slot 2·it, launch, record)
    rec_of = np.repeat(np.arange(S, dtype=np.int64), np.diff(sy.ptr))
    ch_w = np.concatenate([c_w, sy.mem])
    ch_slot = np.concatenate([2 * c_k + 1, 2 * sy.its])
    ch_t = np.concatenate([np.zeros(NC), sy.launch[rec_of]])
    ch_r = np.concatenate([np.zeros(NC, dtype=np.int64), rec_of])
    ch_pos = np.concatenate([gpos[:NC], gpos[NC + rec_of]])
    o = np.lexsort((ch_r, ch_t, ch_slot, ch_w))
    same = ch_w[o][1:] == ch_w[o][:-1]
    if not np.any(same & (np.diff(ch_pos[o]) <= 0)):
        return time[order], kind[order], ident[order]
    return _event_order_merge(n, ends, sy, ch_w[o], ch_slot[o], ch_r[o])


def _event_order_merge(n, ends, sy, ch_w, ch_slot, ch_r):
    """The event-by-event merge of the chains (heap of chain heads), for logs with ties the sort misorders."""
    seq = [[] for _ in range(n)]
    for w, slot, r in zip(ch_w.tolist(), ch_slot.tolist(), ch_r.tolist()):
        seq[w].append((0, slot // 2) if slot % 2 else (1, r))
    nmem = np.diff(sy.ptr).tolist()
    members = [sy.mem[sy.ptr[i]:sy.ptr[i + 1]].tolist() for i in range(sy.launch.size)]
    head = [0] * n
    at_head = [0] * sy.launch.size
    heap: list = []

    def arrive(m):
        if head[m] >= len(seq[m]):
            return
        kd, x = seq[m][head[m]]
        if kd == 0:
            heapq.heappush(heap, (float(ends[m][x]), 0, m, x))
        else:
            at_head[x] += 1
            if at_head[x] == nmem[x]:
                heapq.heappush(heap, (float(sy.launch[x]), 1, x, 0))

    for m in range(n):
        arrive(m)
    out = []
    while heap:
        t, kd, a, k = heapq.heappop(heap)
        out.append((t, kd, a))
        for m in ((a,) if kd == 0 else members[a]):
            head[m] += 1
            arrive(m)
    if any(head[m] < len(seq[m]) for m in range(n)):
        raise ValueError("log is inconsistent: its syncs' iteration counts form a cycle")
    t, kd, a = (np.array(x) for x in zip(*out)) if out else (np.empty(0), np.empty(0, np.int8), np.empty(0, np.int64))
    return t.astype(float), kd.astype(np.int8), a.astype(np.int64)


@dataclass(frozen=True, eq=False)
class ParsedLog:
    """A schedule log with what every replay of it reads from it alone (:func:`parse_log`): its checked compute
    ends, its sync records as flat arrays, each record's ``computing`` members (RP13) and, under the ``"average"``
    rule, the events in processing order.  :func:`replay` takes it in place of ``log`` (with the same
    ``unfinished``) and reads these instead of reading the records again; the result is the same (decision
    RP29).  It reads as its log: ``n``, ``duration``, ``compute_end``, ``syncs`` and ``update_rule`` are
    ``log``'s.  The log must not change after it was parsed."""

    log: object
    unfinished: str
    ends: list                  # log.compute_end as checked float arrays
    sy: "_Syncs"
    computing: list | None      # :func:`_computing` of the records
    events: tuple | None        # :func:`_event_order` (time, kind, id) under the "average" rule, else None

    @property
    def n(self) -> int:
        return self.log.n

    @property
    def duration(self) -> float:
        return self.log.duration

    @property
    def compute_end(self):
        return self.log.compute_end

    @property
    def syncs(self):
        return self.log.syncs

    @property
    def update_rule(self) -> str:
        return getattr(self.log, "update_rule", "average")


def parse_log(log, unfinished: str = "apply") -> ParsedLog:
    """``log`` (a :class:`~simlib.runtime.cluster.ScheduleLog`) read and checked once for any number of
    :func:`replay` calls with this ``unfinished`` (RP29: a schedule replayed with several trainings, e.g. the task
    search's candidates, S39): the same checks and errors as :func:`replay`'s own reading."""
    if isinstance(log, ParsedLog):
        log = log.log
    unfinished = check_choice("unfinished", unfinished, UNFINISHED)
    n, duration, ends = _check_log(log)
    rule = check_choice("log.update_rule", getattr(log, "update_rule", "average"), UPDATE_RULES)
    syncs = log.syncs
    sy = _parse_syncs(n, duration, ends, syncs if isinstance(syncs, PairSyncs) else list(syncs), unfinished)
    computing = _computing(syncs) if rule != "gradient" else None
    events = _event_order(n, ends, sy) if rule != "gradient" else None
    return ParsedLog(log=log, unfinished=unfinished, ends=ends, sy=sy, computing=computing, events=events)


def _computing(syncs) -> list | None:
    """Each record's ``computing`` members (RP13) as a list of tuples, or None when no record has any;
    a ValueError names a record whose ``computing`` are not distinct members."""
    if isinstance(syncs, PairSyncs):     # its records have no computing members
        return None
    comp = [getattr(r, "computing", None) for r in syncs]
    if not any(comp):
        return None
    for i, (r, c) in enumerate(zip(syncs, comp)):
        if c and (len(set(c)) != len(c) or not set(c) <= set(r.members)):
            raise ValueError(f"log.syncs[{i}].computing must be distinct members of {tuple(r.members)}, got {c}")
    return [tuple(int(w) for w in c) if c else () for c in comp]


# ----------------------------------------------------------------------- replay
@dataclass(frozen=True)
class _Task:
    """What a replay trains with, whatever the update rule: the model's batched gradient, the
    training data, each worker's minibatch stream, the starting model (``x_init`` as drawn, ``x0`` in
    the replay's dtype), the SGD step, the evaluation times (s) and the test loss/accuracy function."""
    grad: object
    Xtr: np.ndarray
    ytr: np.ndarray
    batches: list
    x_init: np.ndarray
    x0: np.ndarray
    step: object
    times: list
    loss_acc: object
    stop_acc: float | None = None
    momentum: float = 0.0
    loss_every: int = 1
    accuracy: object = None
    below: object = None
    curve: str = "full"
    n_test: int = 0
    #: every worker's minibatches stacked (worker w's k-th is row ``batch_at[w] + k``; ``batches[w]`` are views)
    batch_rows: np.ndarray | None = None
    batch_at: tuple = ()
    #: ``grad_rows(p (m, d), idx (m, B), y (m, B))``: ``grad(p, Xtr[idx], y)`` (a model's ``rows_on``)
    grad_rows: object = None

    def grads(self, params: np.ndarray, ws: list, ks: list) -> np.ndarray:
        """Gradients of workers ``ws`` (distinct) at their replicas in ``params``, each on its
        ``ks[i]``-th minibatch: one batched call for all of them."""
        at = self.batch_at
        idx = self.batch_rows[[at[w] + k for w, k in zip(ws, ks)]]
        return self.grad_rows(params[ws], idx, self.ytr[idx])


@dataclass(frozen=True)
class Numerics:
    """How a replay computes (not what it trains; checked when built).

    dtype : ``"float64"`` or ``"float32"``: the floating type of the replicas,
        data and gradients (RP10; float32 is about twice as fast; the curve
        is evaluated in the same type, its loss reported as a float).
    blas_threads : BLAS threads while the replay runs (>= 1; restored afterwards), or
        None to leave them as they are.  One thread is fastest for these many small
        matrix products, most of all when sweep processes share the cores (RP10).
    one_at_a_time : compute every gradient and apply every sync on its own instead of
        batching them (the slow, obvious order the tests compare the batched replay with).
    loss_every : take the test loss only at every ``loss_every``-th evaluation time (>= 1; decision
        RP23), at the last one and where the replay stops early; the other rows of the curve have NaN
        ``test_loss``.  The test accuracy is taken at every evaluation time whatever ``loss_every`` is
        (the argmax of the logits: the same value, so every time to accuracy and the early stop are
        unchanged), and so is everything else; a model object without ``unchecked()`` is evaluated in
        full.  1 (default): the loss at every time.  0: no test loss at all, every row's NaN (decision RP27:
        the trials, which read only the accuracy, the times and the counts).
    curve : what the curve holds, of :data:`CURVES` (decision RP25).  ``"full"`` (default): every row has
        its test loss (as ``loss_every`` says) and accuracy.  ``"to_target"`` (needs ``stop_acc``): an evaluation
        is first tested for "below ``stop_acc``" on part of the test set (:func:`wrong_budget`,
        :func:`certainly_wrong`; the samples found wrong at the last such test first, then the rest by the
        last test that found each wrong, most recent first, in chunks of :data:`CUT_CHUNK`), stopping once
        more than the budget of samples are wrong beyond rounding; such a row has NaN ``test_loss`` and ``test_acc``.  Every other evaluation (the stop, one
        the test could not show below, the last time) is the full one, so the time, iterations and syncs
        to ``stop_acc`` (and to nothing else), the early stop, ``final_acc`` and the final models are
        unchanged.  A model object without ``unchecked()`` is evaluated in full.
    """
    dtype: str = "float64"
    blas_threads: int | None = 1
    one_at_a_time: bool = False
    loss_every: int = 1
    curve: str = "full"

    def __post_init__(self):
        check_choice("dtype", self.dtype, DTYPES)
        if self.blas_threads is not None:
            check_int("blas_threads", self.blas_threads, lo=1)
        if not isinstance(self.one_at_a_time, bool):
            raise ValueError(f"one_at_a_time must be a bool, got {self.one_at_a_time!r}")
        check_int("loss_every", self.loss_every, lo=0)
        check_choice("curve", self.curve, CURVES)


@dataclass(frozen=True)
class StepRule:
    """What one SGD step does with its gradient, beyond the step size (checked when built).

    l2 : L2 coefficient (>= 0) of the objective ``CE + l2/2·‖x‖²`` (a model object sets its own).
    momentum : SGD momentum μ in [0, 1) (decision RP21; PyTorch's ``SGD(momentum=μ)``: ``v <- μ v + g``,
        ``x <- x - lr v``).  Model averaging: one velocity per replica, kept by the worker through
        syncs (only the parameters are averaged); the gradient rule: one velocity on the server, one
        momentum step per update (records applied at one instant are one update).  0 (default):
        plain SGD.
    fresh_gradients : a measuring device for logs with update rule ``"gradient"`` only (decision
        RP20): every applied gradient is taken on the global model as it is when its record is
        applied (before any record applied at that instant), on the same minibatch, instead of on the
        replica the worker last pulled -- the same schedule, updates and step factors with staleness
        0.  False (default): as logged.
    """
    l2: float = 0.0
    momentum: float = 0.0
    fresh_gradients: bool = False

    def __post_init__(self):
        check_real("l2", self.l2, 0.0)
        check_real("momentum", self.momentum, 0.0, 1.0, hi_open=True)
        if not isinstance(self.fresh_gradients, (bool, np.bool_)):
            raise ValueError(f"fresh_gradients must be a bool, got {self.fresh_gradients!r}")


def replay(log, problem, model="softmax", lr: float = 0.1, batch_size: int = 32,
           eval_every_s: float = 1.0, seed=0, steps: StepRule = StepRule(), *, unfinished: str = "apply",
           data: str = "iid", numerics: Numerics = Numerics(), stop_acc: float | None = None) -> ReplayResult:
    """Train n replicas along the schedule ``log`` and return the average model's test curve.

    Parameters
    ----------
    log : :class:`~simlib.runtime.cluster.ScheduleLog` (or anything with ``n``, ``duration``,
        ``compute_end`` and ``syncs`` of the same form), or a :class:`ParsedLog` of one (:func:`parse_log`, RP29:
        read once for several replays; ``unfinished`` must be the one it was parsed with).
    problem : :class:`~simlib.training.learning.Problem` or a name for :func:`~simlib.training.learning.load_problem`.
    model : a name of :data:`~simlib.training.learning.MODELS` (``"softmax"``, ``"mlp"``: 32 tanh
        hidden units, ``"mlp-relu"``: the mnist1d model, ``"cnn"``: mnist1d's reference small CNN,
        RP22) or a model object with
        ``init``/``grad``/``loss_acc`` (then ``l2`` must be set on the model; it may also offer
        ``unchecked() -> (grad, logits)``, the built-in models' kernels without argument checks).
    lr : SGD step size (> 0) of every local step.
    batch_size : samples per local minibatch (>= 1).
    eval_every_s : simulated seconds between evaluations (> 0).
    seed : int >= 0 or ``SeedSequence``: minibatch streams and ``x_init``.
    steps : :class:`StepRule`: the L2 coefficient, momentum (RP21) and fresh gradients (RP20).
    unfinished : what to do with a sync whose ``finish`` is None: ``"apply"``
        it at launch like the others, or ``"drop"`` it (the members keep
        their pre-sync replicas; it still counts as launched).
    data : where worker ``w``'s minibatches come from: ``"iid"``, the whole training set
        (RP5), or ``"sharded"``, its own shard (:func:`shards`; RP11).
    numerics : :class:`Numerics`: the floating type, BLAS threads, batched or one at a time, the test loss's
        grid (RP23) and what the curve holds (``curve``, RP25; ``"to_target"`` needs ``stop_acc``).
    stop_acc : early stop (RP16): the replay ends at the first evaluation whose test accuracy is
        ``>= stop_acc`` (in [0, 1]); the curve then ends there and ``final_params`` /
        ``final_model`` are the models at that time.  None (default): run to ``log.duration``.
        Every row the curve keeps is identical to the full replay's.
    """
    if not isinstance(steps, StepRule):
        raise ValueError(f"steps must be a StepRule, got {steps!r}")
    l2, momentum, fresh_gradients = steps.l2, steps.momentum, steps.fresh_gradients
    parsed = log if isinstance(log, ParsedLog) else None
    if parsed is not None:
        log = parsed.log
        n, duration, ends = log.n, log.duration, parsed.ends
    else:
        n, duration, ends = _check_log(log)
    if isinstance(problem, str):
        problem = load_problem(problem)
    if not isinstance(problem, Problem):
        raise ValueError(f"problem must be a Problem or one of the names of load_problem, got {problem!r}")
    lr = check_real("lr", lr, 0.0, lo_open=True)
    batch_size = check_int("batch_size", batch_size, lo=1)
    eval_every_s = check_real("eval_every_s", eval_every_s, 0.0, lo_open=True)
    if stop_acc is not None:
        stop_acc = check_real("stop_acc", stop_acc, 0.0, 1.0)
    unfinished = check_choice("unfinished", unfinished, UNFINISHED)
    if parsed is not None and parsed.unfinished != unfinished:
        raise ValueError(f"log was parsed with unfinished={parsed.unfinished!r}, the replay has {unfinished!r}")
    rule = check_choice("log.update_rule", getattr(log, "update_rule", "average"), UPDATE_RULES)
    if fresh_gradients and rule != "gradient":
        raise ValueError(f"fresh_gradients applies to logs with update rule 'gradient' (a parameter server, "
                         f"Eager-Reduce), got log.update_rule = {rule!r}")
    if not isinstance(numerics, Numerics):
        raise ValueError(f"numerics must be a Numerics, got {numerics!r}")
    if numerics.curve == "to_target" and stop_acc is None:
        raise ValueError("numerics.curve='to_target' needs stop_acc (the accuracy whose first crossing it keeps), "
                         "got None")
    data = check_choice("data", data, DATA_MODES)
    if data == "sharded" and n > problem.y_train.size:
        raise ValueError(f"data='sharded' needs log.n <= {problem.y_train.size} training samples, got n = {n}")
    root = as_seed_sequence(seed)
    if isinstance(model, str):
        mdl = make_model(check_choice("model", model, MODELS), problem, l2=l2)
    elif all(hasattr(model, a) for a in ("init", "grad", "loss_acc")):
        if l2:
            raise ValueError("l2 must be 0 when model is a model object (set l2 on the model)")
        mdl = model
    else:
        raise ValueError(f"model must be one of {list(MODELS)} or a model object, got {model!r}")

    limit = (contextlib.nullcontext() if numerics.blas_threads is None
             else threadpool_limits(limits=numerics.blas_threads, user_api="blas"))
    with limit:
        sy = (parsed.sy if parsed is not None else
              _parse_syncs(n, duration, ends, log.syncs if isinstance(log.syncs, PairSyncs) else list(log.syncs),
                           unfinished))
        task = _make_task(problem, mdl, ends, duration, root, numerics, lr, batch_size, eval_every_s, data, stop_acc,
                          momentum)
        if rule == "gradient":
            return _replay_gradient(n, ends, log.syncs, sy, task, numerics.one_at_a_time, bool(fresh_gradients))
        ev_t, ev_kind, ev_id = parsed.events if parsed is not None else _event_order(n, ends, sy)
        computing = parsed.computing if parsed is not None else _computing(log.syncs)
        ahead = (_free_at(n, sy, ev_kind, ev_id, 1) if n <= AHEAD_MAX_N and computing is None
                 and not numerics.one_at_a_time and not isinstance(log.syncs, PairSyncs) else None)
        reps = _Replicas(n, sy, computing, task, numerics.one_at_a_time, ahead)
        sync = reps.sync_pair if isinstance(log.syncs, PairSyncs) else reps.sync
        ev = _drive(zip(ev_t.tolist(), ev_kind.tolist(), ev_id.tolist()), (reps.compute_end, sync), reps, task)
        return ev.result(task)


def wrong_budget(stop_acc: float, n_test: int) -> int:
    """The most test samples (of ``n_test``) that may be wrong in an evaluation that reaches ``stop_acc``
    (RP25): ``n_test − c*``, where ``c*`` is the fewest correct samples ``c`` whose accuracy as the replay
    computes it (``mean`` of the correct flags: the float64 quotient ``c / n_test``, correctly rounded)
    is ``>= stop_acc``.  More wrong samples than this means the evaluation is below ``stop_acc``."""
    n_test = check_int("n_test", n_test, lo=1)
    stop_acc = check_real("stop_acc", stop_acc, 0.0, 1.0)
    c = np.arange(n_test + 1, dtype=np.float64)
    return n_test - int(np.flatnonzero(c / n_test >= stop_acc)[0])      # c = n_test always qualifies


def tie_tolerance(dtype) -> float:
    """The margin of :func:`certainly_wrong` relative to a row's largest |logit|: √ε of ``dtype`` (float32
    3.5e-4, float64 1.5e-8; RP25: about 150× and 10⁷× the largest measured gap between two evaluations of
    the same logits)."""
    return float(np.sqrt(np.finfo(np.dtype(dtype)).eps))


def certainly_wrong(Z: np.ndarray, y: np.ndarray, tol: float) -> np.ndarray:
    """Which rows of the logits ``Z`` (B, C) are wrong by more than rounding (RP25): some other class's logit
    exceeds the label ``y``'s by more than ``tol`` × the row's largest |logit| (in float64).  A row whose
    logits any other evaluation gives within half that margin has its argmax off the label there as well;
    a row with a NaN is never counted."""
    Z = np.asarray(Z)
    if Z.dtype not in (np.float32, np.float64):
        Z = Z.astype(np.float64)
    out = np.empty(Z.shape[0], dtype=bool)
    _wrong_rows(np.ascontiguousarray(Z), np.ascontiguousarray(y, dtype=np.int64), float(tol), out)
    return out


def _certainly_wrong_numpy(Z: np.ndarray, y: np.ndarray, tol: float) -> np.ndarray:
    """:func:`certainly_wrong` in plain numpy (the reference its compiled loop is tested against)."""
    Z = np.asarray(Z, dtype=np.float64)
    rows = np.arange(Z.shape[0])
    zy = Z[rows, y]
    other = Z.copy()
    other[rows, y] = -np.inf
    return other.max(axis=1) - zy > tol * np.abs(Z).max(axis=1)


@njit(cache=True)
def _wrong_rows(Z, y, tol, out):
    """:func:`certainly_wrong`'s test row by row, in float64: ``out[r] = max_{c != y[r]} Z[r, c] - Z[r, y[r]] >
    tol * max_c |Z[r, c]|`` (the same subtraction and product as numpy's sequence; a maximum involves no
    rounding, and which of +0 / −0 it picks cannot change the comparison), False for a row with a NaN (numpy's
    maxima propagate it, and every comparison with a NaN is False)."""
    R, C = Z.shape
    for r in range(R):
        t = y[r]
        zy = np.float64(Z[r, t])
        mo = -np.inf
        am = 0.0
        nan = False
        for c in range(C):
            v = np.float64(Z[r, c])
            if v != v:
                nan = True
            a = abs(v)
            if a > am:
                am = a
            if c != t and v > mo:
                mo = v
        out[r] = (not nan) and (mo - zy > tol * am)


@njit(cache=True)
def _merge_pairs(params, recs, ptr, mem, w, tptr, tgt):
    """Apply merges of two replicas in place: for each record ``r`` of ``recs`` (intp, in batch order) its
    targets' rows (``tgt[tptr[r]:tptr[r + 1]]``) become ``w[j0] * params[mem[j0]] + w[j0 + 1] * params[mem[j0 + 1]]``
    with ``j0 = ptr[r]``, element by element as numpy computes it (each product rounded to the dtype of ``w`` and
    ``params``, then the sum: IEEE operations, not fused).  Equal to computing every new row from the replicas
    before the batch and then writing them when no record's member is an earlier record's target and the
    targets are distinct members (what :meth:`_Replicas.sync` holds a batch to); tested against numpy."""
    for i in range(recs.size):
        r = recs[i]
        j0 = ptr[r]
        pa = params[mem[j0]]
        pb = params[mem[j0 + 1]]
        wa = w[j0]
        wb = w[j0 + 1]
        t0 = tptr[r]
        out = params[tgt[t0]]          # a member's row: element j is read before it is written
        for j in range(out.size):
            out[j] = wa * pa[j] + wb * pb[j]
        for k in range(1, tptr[r + 1] - t0):
            params[tgt[t0 + k]][:] = out


@njit(cache=True)
def _sgd_rows(params, rows, step, g):
    """``params[rows] -= step * g`` for distinct ``rows`` (intp, (m,)) and ``g`` (m, d), as numpy computes it:
    per element the product ``step * g`` rounded to the dtype, then the difference (two IEEE operations, not
    fused), written in place without numpy's gathered copy and temporaries (tested bit for bit)."""
    d = params.shape[1]
    for i in range(rows.size):
        r = rows[i]
        for j in range(d):
            params[r, j] = params[r, j] - step * g[i, j]


@njit(cache=True)
def _sgd_row_at(params, r, step, G, q):
    """``params[r] -= step * G[q]``: :func:`_sgd_rows` of one row with its gradient row ``q`` of a batch's ``G`` (the
    product rounded to the dtype, then the difference), without numpy's temporaries."""
    for j in range(params.shape[1]):
        params[r, j] = params[r, j] - step * G[q, j]


@njit(cache=True)
def _add_row_at(acc, r, G, q):
    """``acc[r] += G[q]``: one IEEE addition per element, as numpy's."""
    for j in range(acc.shape[1]):
        acc[r, j] = acc[r, j] + G[q, j]


class _BelowTest:
    """RP25's test "this model's accuracy is below ``stop``" on part of the test set: logits of the
    samples in ``order`` chunk by chunk (first the ``front`` samples found wrong at the last cut, then
    :data:`CUT_CHUNK` at a time), stopping once more than :func:`wrong_budget` are :func:`certainly_wrong`.
    True: certainly below; False: not shown (the caller evaluates in full).  ``samples``: logits taken.
    After a cut, the samples not in the front follow by the last test at which each was found wrong
    (``seen``: the test's count, 0 never), most recent first, ties in index order (RP25's order, amended:
    a sample wrong lately is likelier wrong now than one found right; the verdict does not depend on the
    order, only how many logits it takes)."""

    def __init__(self, logits, Xte, yte, stop, ft, rows=None):
        self.logits, self.X, self.y, self.rows = logits, Xte, yte, rows
        self.budget = wrong_budget(stop, yte.size)
        self.tol = tie_tolerance(ft)
        self.order = np.arange(yte.size)
        self.front = 0
        self.samples = 0
        self.tests = 0
        self.seen = np.zeros(yte.size, dtype=np.int64)

    def __call__(self, x) -> bool:
        order, N = self.order, self.order.size
        found, wrong = [], 0
        self.tests += 1
        lo = 0
        while lo < N:
            hi = min(N, lo + (self.front if lo == 0 and self.front else CUT_CHUNK))
            idx = order[lo:hi]
            Z = (self.logits(x[None], self.X[None, idx]) if self.rows is None else self.rows(x[None], idx[None]))[0]
            self.samples += idx.size
            bad = idx[certainly_wrong(Z, self.y[idx], self.tol)]
            self.seen[bad] = self.tests
            found.append(bad)
            wrong += bad.size
            if wrong > self.budget:
                front = np.concatenate(found)
                rest = np.ones(N, dtype=bool)
                rest[front] = False
                rest = np.flatnonzero(rest)
                self.order = np.concatenate([front, rest[np.argsort(-self.seen[rest], kind="stable")]])
                self.front = front.size
                return True
            lo = hi
        return False


def _make_task(problem, mdl, ends, duration, root, numerics, lr, batch_size, eval_every_s, data, stop_acc,
               momentum) -> _Task:
    """The :class:`_Task` of a replay whose arguments :func:`replay` checked: the data in ``numerics.dtype``,
    each worker's minibatches (``data``: iid or its shard), ``x_init`` from ``root``, the evaluation
    times (every ``eval_every_s`` s from 0, and ``duration``), the test loss/accuracy function and, with
    ``numerics.curve="to_target"``, the test that an evaluation is below ``stop_acc`` (RP25)."""
    ft, curve = np.dtype(numerics.dtype), numerics.curve
    n = len(ends)
    Xtr, ytr, N = problem.X_train.astype(ft), problem.y_train, problem.y_train.size
    Xte, yte = problem.X_test.astype(ft), problem.y_test
    if data == "iid":
        batches = [minibatch_indices(root, w, N, batch_size, ends[w].size) for w in range(n)]
    else:
        batches = [sh[minibatch_indices(root, w, sh.size, batch_size, ends[w].size)]
                   for w, sh in enumerate(shards(root, N, n))]
    batch_rows = np.concatenate(batches) if n else np.empty((0, batch_size), dtype=np.int64)
    batch_at = np.concatenate([[0], np.cumsum([b.shape[0] for b in batches])]).astype(np.int64)
    batches = [batch_rows[batch_at[w]:batch_at[w + 1]] for w in range(n)]
    x_init = init_params(root, mdl)
    x0 = x_init.astype(ft)
    n_eval = int(math.floor(duration / eval_every_s * (1 + 1e-12)))
    times = [k * eval_every_s for k in range(n_eval + 1) if k * eval_every_s <= duration]
    if times[-1] < duration:
        times.append(duration)
    # the built-in models offer their kernels without argument checks (checked once, here); a model
    # object of the caller's has only the checked grad / loss_acc
    grad, logits = mdl.unchecked() if hasattr(mdl, "unchecked") else (mdl.grad, None)
    # gradients and logits on minibatches of the training and test sets (the CNN gathers its first windows)
    if logits is not None and hasattr(mdl, "rows_on"):
        grad_rows, rows_logits = mdl.rows_on(Xtr)[0], mdl.rows_on(Xte)[1]
    else:
        grad_rows, rows_logits = (lambda p, idx, y: grad(p, np.take(Xtr, idx, axis=0), y)), None
    below = (_BelowTest(logits, Xte, yte, stop_acc, ft, rows_logits) if curve == "to_target" and logits is not None
             else None)
    if logits is not None:      # the test set is fixed: a model may prepare what depends on it alone once
        logits = (mdl.logits_on(Xte[None]) if hasattr(mdl, "logits_on")
                  else lambda p, f=logits, X=Xte[None]: f(p, X))
    te_rows = np.arange(yte.size)

    def loss_acc(x):
        if logits is None:
            return mdl.loss_acc(x, Xte, yte)
        Z = logits(x[None])[0].astype(float)
        Z -= Z.max(axis=1, keepdims=True)
        loss = float(np.log(np.exp(Z).sum(axis=1)).mean() - Z[te_rows, yte].mean())
        return loss, float((Z.argmax(axis=1) == yte).mean())

    def accuracy(x):
        """``loss_acc(x)[1]`` without the loss (RP23): after subtracting the row maximum m the maximum
        elements are 0 and every other element < 0 (IEEE: ``z - m == 0`` only when ``z == m``), so the
        argmax is the same; a NaN row (argmax 0 there) takes :func:`loss_acc`."""
        hits = _argmax_hits(logits(x[None])[0], yte)      # the correct flags' sum, -1 with a NaN
        if hits < 0:
            return loss_acc(x)[1]
        return hits / yte.size      # as mean() of the flags: the exact count over N, correctly rounded

    return _Task(grad, Xtr, ytr, batches, x_init, x0, ft.type(lr), times, loss_acc,
                 stop_acc, momentum, numerics.loss_every, accuracy=None if logits is None else accuracy, below=below,
                 curve=curve, n_test=int(yte.size), batch_rows=batch_rows, batch_at=tuple(batch_at.tolist()),
                 grad_rows=grad_rows)


def _drive(events, handlers, state, task: _Task) -> "_Evaluations":
    """Run ``events`` (time, kind, id) through ``handlers[kind](time, id)`` of ``state``, taking the
    model at each of ``task.times`` once every event up to it is handled (the state at ``t`` includes
    every event at time ``<= t``; :class:`_Evaluations` evaluates it); ``state.settle()``
    after the last event; the replay stops at the first evaluation that reaches ``task.stop_acc``
    (RP16).  Returns the evaluations."""
    times = task.times
    ev = _Evaluations(task, state)
    ei, n_times = 0, len(times)
    for t, kd, a in events:
        while ei < n_times and t > times[ei]:
            if ev.at(ei, times[ei]):
                return ev
            ei += 1
        handlers[kd](t, a)
    state.settle()
    while ei < n_times:
        if ev.at(ei, times[ei]):
            return ev
        ei += 1
    return ev


class _Evaluations:
    """The curve of a replay: the model of ``state`` (``state.model()``) evaluated at every evaluation time.  With ``task.loss_every`` k > 1 (RP23) the test accuracy is still taken
    at every time (the logits' argmax, the same value as the full evaluation's), the test loss only at
    every k-th time, the last one and where the replay stops early (NaN elsewhere).  ``rows``: (time,
    iterations, syncs, loss, acc).

    ``state.version`` counts the events that may change the evaluated model (a local step or an applied
    sync of the replicas, an apply of the server); when it has not moved since the last evaluation the
    model is the same array bit for bit, so its accuracy (and its loss, when that was taken) is reused
    instead of evaluated again (the same values: deterministic kernels on the same input).

    With ``task.below`` (``curve="to_target"``, RP25) a model is first tested for "below the stop" on part of
    the test set; a row it shows below has NaN loss and accuracy (a reused one as well, except at the last
    time, which is evaluated in full).  ``samples`` counts the test samples whose logits were taken."""

    def __init__(self, task: _Task, state):
        self.task, self.state = task, state
        self.rows: list = []
        self.last = len(task.times) - 1
        self.seen = None                 # (version, acc, loss or None) of the last evaluation
        self.samples = 0

    def at(self, i: int, t: float) -> bool:
        """The model at evaluation time ``i`` (``t`` s); True when the replay stops here (early stop)."""
        task, state = self.task, self.state
        iters, syncs = state.counts()
        k, stop = task.loss_every, task.stop_acc
        seen, version = self.seen, state.version
        acc = loss = x = None
        if seen is not None and seen[0] == version and not (i == self.last and math.isnan(seen[1])):
            acc, loss = seen[1], seen[2]
        if acc is None and task.below is not None and i != self.last:
            x = state.model()
            if task.below(x):
                acc = loss = math.nan
        if acc is not None and math.isnan(acc):          # shown below the stop (RP25): no values
            self.seen = (version, acc, loss)
            self.rows.append((t, iters, syncs, math.nan, math.nan))
            return False
        n_test = task.n_test
        want_loss = k == 1 or task.accuracy is None
        if acc is None:
            x = state.model() if x is None else x
            self.samples += n_test
            if want_loss:
                loss, acc = task.loss_acc(x)
            else:
                acc = task.accuracy(x)
        if k == 0:                      # no test loss at all (RP27): every row's is NaN
            self.seen = (version, acc, None)
            self.rows.append((t, iters, syncs, math.nan, acc))
            return stop is not None and acc >= stop
        if not want_loss and (i % k == 0 or i == self.last or (stop is not None and acc >= stop)):
            want_loss = True
        if want_loss and loss is None:
            self.samples += n_test
            loss = task.loss_acc(state.model() if x is None else x)[0]
        self.seen = (version, acc, loss)
        self.rows.append((t, iters, syncs, loss if want_loss else math.nan, acc))
        return stop is not None and acc >= stop

    def result(self, task: _Task) -> ReplayResult:
        """The :class:`ReplayResult`: the curve, and the state where the replay ended."""
        st = self.state
        cut = 0 if task.below is None else task.below.samples
        return ReplayResult(curve=_curve(self.rows, task.curve), final_params=st.params, x_init=task.x_init,
                            grad_calls=st.calls, final_model=st.model(), curve_mode=task.curve,
                            eval_samples=self.samples + cut)


class _Replicas:
    """The ``"average"`` rule's state: every worker's replica (``params``, (n, d)) and velocity
    (``vel``, RP21), each worker's next iteration, and the work held back to be batched: local steps
    of distinct workers (``pend_w``) and syncs none of whose members an earlier one of them wrote
    (``batch``; ``read``: their members, ``write``: their targets).  ``snap``: the gradients of
    ``computing`` members taken before a sync (RP13).  Counters: ``calls`` (vectorized gradient
    calls), ``iters`` (local steps), ``nsync`` (syncs launched)."""

    __slots__ = ("task", "sy", "computing", "one_at_a_time", "params", "step", "mom", "vel", "next_k", "pend_w",
                 "pending", "batch", "read", "write", "snap", "calls", "iters", "nsync", "ptr", "tptr",
                 "mem_l", "tgt_l", "apply_l", "klen", "w_f", "c_f", "pair", "pair_l", "version", "free_at", "pos",
                 "pre")

    def __init__(self, n: int, sy: _Syncs, computing: list | None, task: _Task, one_at_a_time: bool,
                 free_at: list | None = None):
        x0 = task.x0
        ft = x0.dtype
        self.task, self.sy, self.computing, self.one_at_a_time = task, sy, computing, one_at_a_time
        self.params = np.tile(x0, (n, 1))
        self.step = task.step
        self.mom = ft.type(task.momentum)
        self.vel = np.zeros_like(self.params) if task.momentum else None
        self.next_k = [0] * n
        self.pend_w: list[int] = []
        self.pending: set[int] = set()
        self.batch: list[int] = []
        self.read: set[int] = set()
        self.write: set[int] = set()
        self.snap: dict[int, np.ndarray] = {}
        self.calls = self.iters = self.nsync = 0
        self.ptr, self.tptr = sy.ptr.tolist(), sy.tptr.tolist()
        self.mem_l, self.tgt_l, self.apply_l = sy.mem.tolist(), sy.tgt.tolist(), sy.apply.tolist()
        self.klen = np.diff(sy.ptr)
        self.w_f = sy.w.astype(ft)
        self.c_f = sy.c.astype(ft)
        self.pair = (self.klen == 2) & (sy.c == 0)
        self.pair_l = self.pair.tolist()
        self.version = 0
        # look-ahead (:func:`_free_at`, None: off): the position of the event being handled, and the gradients
        # taken early: worker -> (its iteration, the batch's gradients, the row)
        self.free_at, self.pos = free_at, -1
        self.pre: dict = {}

    # ---- the events
    def compute_end(self, t, a):
        """Worker ``a`` ends a local iteration: its SGD step (on a gradient taken before a sync, or
        held back to be batched with other workers')."""
        self.pos += 1
        if a in self.pending:
            self.flush_grads()
        if a in self.read:
            self.flush_syncs()
        k = self.next_k[a]
        self.next_k[a] = k + 1
        self.iters += 1
        self.version += 1
        if a in self.snap:
            self._sgd(a, self.snap.pop(a))
            return
        pre = self.pre
        if pre and a in pre:            # its gradient taken early with another batch, on this same replica: the step
            _, G, i = pre.pop(a)        # now (the batched path applies it before anything reads or writes the replica)
            if self.vel is None:
                _sgd_row_at(self.params, a, self.step, G, i)
            else:
                self._sgd(a, G[i])
            return
        self.pend_w.append(a)
        self.pending.add(a)
        if self.one_at_a_time:
            self.flush_grads()

    def sync(self, t, a):
        """Record ``a`` launches: held back to be batched with the syncs before it, unless it reads a
        replica one of them writes (or a pending step changes); unfinished under "drop": counted only."""
        self.nsync += 1
        self.pos += 1
        if not self.apply_l[a]:
            return
        self.version += 1
        ptr, tptr, computing = self.ptr, self.tptr, self.computing
        members = self.mem_l[ptr[a]:ptr[a + 1]]
        if not self.pending.isdisjoint(members):
            self.flush_grads()
        write = self.write
        if not write.isdisjoint(members):
            self.flush_syncs()
        if computing is not None and computing[a]:
            self._snapshot(computing[a])
        self.batch.append(a)
        self.read.update(members)
        write.update(self.tgt_l[tptr[a]:tptr[a + 1]])
        if self.one_at_a_time:
            self.flush_syncs()

    def sync_pair(self, t, a):
        """:meth:`sync` of a :class:`PairSyncs` log's record ``a`` (members (src, dst), target dst, finished, no
        computing members): the same tests and held-back state, without slicing the flat arrays."""
        self.nsync += 1
        if not self.apply_l[a]:
            return
        self.version += 1
        j0 = self.ptr[a]
        i, j = self.mem_l[j0], self.mem_l[j0 + 1]
        pending = self.pending
        if i in pending or j in pending:
            self.flush_grads()
        write = self.write
        if i in write or j in write:
            self.flush_syncs()
        self.batch.append(a)
        read = self.read
        read.add(i)
        read.add(j)
        write.add(j)
        if self.one_at_a_time:
            self.flush_syncs()

    def model(self) -> np.ndarray:
        """The evaluated model: the mean of the replicas, once what is held back is applied (numpy's
        ``params.mean(axis=0)`` without its Python wrapper: the same sum, divided by the count as an intp)."""
        self.settle()
        params = self.params
        x = np.add.reduce(params, axis=0)
        return np.true_divide(x, np.intp(params.shape[0]), out=x, casting="unsafe")

    def counts(self) -> tuple:
        """(local steps, syncs launched) so far."""
        return self.iters, self.nsync

    def settle(self):
        self.flush_syncs()
        self.flush_grads()

    # ---- the held-back work
    def _sgd(self, rows, g):
        """Local SGD steps of replicas ``rows`` (distinct) with gradients ``g`` (with momentum: each one's
        velocity)."""
        if self.vel is None:
            if isinstance(rows, np.ndarray):
                _sgd_rows(self.params, rows, self.step, g)
            else:
                self.params[rows] -= self.step * g
        else:
            self.vel[rows] = self.mom * self.vel[rows] + g
            self.params[rows] -= self.step * self.vel[rows]

    def _snapshot(self, ws):
        """The gradients of the next steps of ``ws`` (computing members of a sync) on their replicas now."""
        next_k = self.next_k
        ws = [w for w in ws if w not in self.snap and next_k[w] < self.task.batches[w].shape[0]]
        if not ws:
            return
        self.calls += 1
        self.snap.update(zip(ws, self.task.grads(self.params, ws, [next_k[w] for w in ws])))

    def flush_grads(self):
        """The held-back local steps: one batched gradient call.  With the look-ahead (``free_at``) the call also
        takes the gradient of the next iteration of each worker whose replica is final until then (no step of it
        held back, no held-back sync writing it, no sync targeting it before that compute end), for the step at
        that compute end: the same replica, minibatch and product (a stacked product computes each replica's slice
        by itself, RP4) and the same operations on every replica in the same order -- only fewer calls."""
        pend_w = self.pend_w
        if not pend_w:
            return
        g = _grads_ahead(self.task, self.params, pend_w, self.next_k, self.free_at, self.pos, self.pre,
                         (self.pending, self.write))
        self._sgd(np.array(pend_w), g)
        self.calls += 1
        pend_w.clear()
        self.pending.clear()

    def flush_syncs(self):
        """Apply the held-back syncs: every new replica is computed from the replicas before the
        batch, then written (the batch's targets are distinct and no member of a later sync
        is a target of an earlier one, so this equals applying them one by one)."""
        batch = self.batch
        if not batch:
            return
        sy, params, w_f = self.sy, self.params, self.w_f
        if len(batch) == 1 and self.pair_l[batch[0]]:     # one merge of two (AD-PSGD's usual batch): the
            a = batch[0]                                  # same products and sum as the batched path below
            j0, mem_l = self.ptr[a], self.mem_l
            new = w_f[j0] * params[mem_l[j0]]
            new += w_f[j0 + 1] * params[mem_l[j0 + 1]]
            for tg in self.tgt_l[self.tptr[a]:self.tptr[a + 1]]:
                params[tg] = new
            batch.clear()
            self.read.clear()
            self.write.clear()
            return
        recs = np.array(batch)
        if self.pair[recs].all():            # merges of two replicas without an x_init share: in place, compiled
            _merge_pairs(params, recs, sy.ptr, sy.mem, w_f, sy.tptr, sy.tgt)
        else:
            ks = self.klen[recs]
            outs = []
            for kv in np.unique(ks).tolist():
                rs = recs[ks == kv]
                pos = sy.ptr[rs][:, None] + np.arange(kv)
                idx, W = sy.mem[pos], w_f[pos]
                if kv <= _LOOP_K:
                    new = W[:, 0, None] * params[idx[:, 0]]
                    for j in range(1, kv):
                        new += W[:, j, None] * params[idx[:, j]]
                else:
                    new = np.matmul(W[:, None, :], params[idx])[:, 0]
                cs = self.c_f[rs]
                if cs.any():
                    new += cs[:, None] * self.task.x0
                if rs.size == 1 and _BROADCAST_ONE:     # one record (an all-reduce's): its row broadcast to its targets
                    r0 = int(rs[0])         # (the same values written as the repeated rows below)
                    outs.append((sy.tgt[sy.tptr[r0]:sy.tptr[r0 + 1]], new))
                    continue
                tl = sy.tptr[rs + 1] - sy.tptr[rs]
                tpos = np.repeat(sy.tptr[rs] - np.cumsum(tl) + tl, tl) + np.arange(tl.sum())
                outs.append((sy.tgt[tpos], np.repeat(new, tl, axis=0)))
            for tg, vals in outs:
                params[tg] = vals
        self.batch.clear()
        self.read.clear()
        self.write.clear()


def _curve(rows, mode: str = "full") -> pd.DataFrame:
    """The curve's rows as a DataFrame; ``attrs["curve"]`` is the replay's ``curve`` mode (RP25)."""
    curve = pd.DataFrame(rows, columns=list(CURVE_COLUMNS))
    curve["iterations"] = curve["iterations"].astype(np.int64)
    curve["syncs"] = curve["syncs"].astype(np.int64)
    curve.attrs["curve"] = mode
    return curve


def _replay_gradient(n, ends, records, sy: _Syncs, task: _Task, one_at_a_time, fresh=False) -> ReplayResult:
    """The replay of a log with update rule ``"gradient"`` (RP12): one global model ``x_s``; a compute
    end adds the worker's gradient on its replica to its accumulator (the replica is unchanged); an
    applied record (``weights`` set) does ``x_s -= lr · Σ_j weights[j] · acc[members[j]]``, empties
    those accumulators, then its targets' replicas become ``x_s`` (all records applied at one instant
    first, then their pulls).  ``x_s`` is the evaluated model; ``syncs`` counts its updates.
    ``fresh`` (RP20): a compute end only remembers its minibatch; an applied record takes its members'
    remembered minibatches' gradients on ``x_s`` as it was before the first record applied at that
    instant (one batched call), so no gradient is stale.  With ``task.momentum`` μ the server keeps a
    velocity: an update (the records applied at one instant, RP21) does ``v <- μ v + Σ d``, ``x_s -= lr v``."""
    ev_t, ev_k, ev_id = _gradient_events(n, ends, records, sy, task.times)
    ahead = None if one_at_a_time or fresh or n > AHEAD_MAX_N else _free_at(n, sy, ev_k, ev_id, 2)
    srv = _Server(n, sy, task, one_at_a_time, fresh, ahead)
    return _drive(zip(ev_t.tolist(), ev_k.tolist(), ev_id.tolist()), (srv.compute_end, srv.apply, srv.pull), srv,
                  task).result(task)


def _grads_ahead(task: _Task, params, pend: list, next_k: list, free_at: list | None, pos: int, pre: dict,
                 busy: tuple) -> np.ndarray:
    """The gradients of the ``pend`` workers' current iterations (rows in ``pend``'s order), from one batched
    call that also takes, where ``free_at`` allows (RP28), the *next* iteration's gradient of every worker whose
    replica is final until its next compute end (its ``free_at`` event position below ``pos``) and which is in
    neither ``pre`` (already looked ahead) nor any set of ``busy`` (the caller's pending / held-back workers);
    those are stored in ``pre`` as ``(iteration, gradients, row)`` for that compute end."""
    ws, ks = pend, [next_k[w] - 1 for w in pend]
    if free_at is not None:
        ahead = [w for w, k in enumerate(next_k)
                 if k < len(free_at[w]) and free_at[w][k] < pos and w not in pre and not any(w in b for b in busy)]
        if ahead:
            ws, ks = pend + ahead, ks + [next_k[w] for w in ahead]
    g = task.grads(params, ws, ks)
    m = len(pend)
    for i in range(m, len(ws)):
        pre[ws[i]] = (ks[i], g, i)
    return g[:m] if len(ws) > m else g


def _free_at(n: int, sy: _Syncs, ev_k: np.ndarray, ev_id: np.ndarray, kind: int) -> list:
    """For a replay's events in order (``ev_k``, ``ev_id``: kind 0 a compute end of worker id, ``kind`` a record
    id whose targets' replicas it changes), per worker w the list whose k-th entry is the position of the last
    such event targeting w before w's k-th compute end (−1: none): under the gradient rule (:func:`_gradient_events`,
    ``kind`` 2, the pulls) a replica changes only there, under the average rule (:func:`_event_order`, ``kind`` 1,
    the syncs) there and at the worker's own steps.  The look-ahead of :class:`_Server` and :class:`_Replicas`."""
    pos = np.arange(ev_k.size, dtype=np.int64)
    ce = ev_k == 0
    ce_w, ce_pos = ev_id[ce].astype(np.int64), pos[ce]
    pl = np.flatnonzero(ev_k == kind)
    recs = ev_id[pl].astype(np.int64)
    cnt = sy.tptr[recs + 1] - sy.tptr[recs]
    tpos = np.repeat(sy.tptr[recs] - np.cumsum(cnt) + cnt, cnt) + np.arange(int(cnt.sum()), dtype=np.int64)
    p_w, p_pos = sy.tgt[tpos].astype(np.int64), np.repeat(pl, cnt)
    size = ev_k.size + 1
    pkey = np.sort(p_w * size + p_pos)
    ckey = ce_w * size + ce_pos
    j = np.searchsorted(pkey, ckey) - 1          # the last pull key below each compute end's key
    last = pkey[np.maximum(j, 0)] if pkey.size else np.full(j.size, -1, dtype=np.int64)
    free = np.where((j >= 0) & (last // size == ce_w), last % size, -1)
    order = np.argsort(ce_w, kind="stable")      # each worker's compute ends in event order = iteration order
    bounds = np.searchsorted(ce_w[order], np.arange(n + 1))
    fo = free[order].tolist()
    return [fo[bounds[w]:bounds[w + 1]] for w in range(n)]


def _gradient_events(n, ends, records, sy: _Syncs, times) -> tuple:
    """The gradient rule's events in order, arrays (time, kind, id): kind 0 a compute end (id: worker), 1 a
    record's apply at its ``apply`` time (default its launch), 2 its targets' pull (after every
    apply at that instant); checks that each applied record falls between its members'
    ``iterations[j]``-th compute ends and the next ones, without ties."""
    S = len(records)
    applied = np.array([r.weights is not None for r in records], dtype=bool)
    pulled = applied & sy.apply              # unfinished="drop": the update stands, the pull did not arrive
    if S and (sy.c != 0).any():
        i = _first(sy.c != 0)
        raise ValueError(f"log.syncs[{i}].init_weight must be 0 under update rule 'gradient', got {sy.c[i]}")
    at = _reals([r.launch if getattr(r, "apply", None) is None else r.apply for r in records], "apply", records,
                hi=times[-1])
    rec_of = np.repeat(np.arange(S), np.diff(sy.ptr))
    bad = at[rec_of] < sy.launch[rec_of]
    nxt = np.array([ends[m][k] if k < ends[m].size else np.inf for m, k in zip(sy.mem.tolist(), sy.its.tolist())])
    bad |= at[rec_of] > nxt
    if bad.any():
        i = rec_of[_first(bad)]
        raise ValueError(f"log.syncs[{i}].apply must be in [launch, each member's next compute end], got {at[i]}")
    NC = sum(e.size for e in ends)
    c_w = np.repeat(np.arange(n), [e.size for e in ends])
    idx, pdx = np.flatnonzero(applied), np.flatnonzero(pulled)
    ev_t = np.concatenate([np.concatenate(ends) if n else np.empty(0), at[idx], at[pdx]])
    ev_k = np.concatenate([np.zeros(NC, np.int8), np.ones(idx.size, np.int8), np.full(pdx.size, 2, np.int8)])
    ev_id = np.concatenate([c_w, idx, pdx])
    order = np.lexsort((ev_id, ev_k, ev_t))
    # every applied record must come after its members' iterations[j]-th compute ends and before the next ones
    pos = np.empty(order.size, dtype=np.int64)
    pos[order] = np.arange(order.size)
    eptr = np.concatenate([[0], np.cumsum([e.size for e in ends])])
    mem_pos = eptr[sy.mem] + sy.its          # flat index of each member's next compute end
    ok_rec = applied[rec_of]
    rpos = np.full(S, -1, dtype=np.int64)
    rpos[idx] = pos[NC + np.arange(idx.size)]
    ppos = rpos.copy()
    ppos[pdx] = pos[NC + idx.size + np.arange(pdx.size)]
    before_ok = (sy.its == 0) | (pos[np.maximum(mem_pos - 1, 0)] < rpos[rec_of])
    after_ok = (mem_pos >= eptr[sy.mem + 1]) | (pos[np.minimum(mem_pos, max(NC - 1, 0))] > ppos[rec_of])
    bad = ok_rec & ~(before_ok & after_ok)
    if bad.any():
        i = rec_of[_first(bad)]
        raise ValueError(f"log.syncs[{i}] (apply {at[i]}) ties with a compute end of a member; the order is "
                         "ambiguous")
    return ev_t[order], ev_k[order], ev_id[order]


class _Server:
    """The ``"gradient"`` rule's state: the global model ``xs`` (d,) and the server's velocity
    (``vel_s``, RP21), every worker's replica (``params``, (n, d), the model it last pulled) and
    gradient accumulator (``acc``), its next iteration, the compute ends held back to be batched
    (``pend``) and, with fresh gradients (RP20), each worker's minibatches awaiting an apply
    (``fresh_k``) and the global model they are taken on (``snap``, copied at ``snap_t``).
    Counters: ``calls``, ``iters`` (local steps), ``nupd`` (updates of ``xs``)."""

    __slots__ = ("sy", "task", "one_at_a_time", "fresh", "step", "params", "xs", "acc", "w_f", "next_k", "pend",
                 "pending", "calls", "iters", "nupd", "last_upd", "fresh_k", "mom", "vel_s", "snap_t", "snap",
                 "version", "ptr", "tptr", "mem_l", "tgt_l", "nonzero", "free_at", "pos", "pre")

    def __init__(self, n: int, sy: _Syncs, task: _Task, one_at_a_time: bool, fresh: bool, free_at: list | None = None):
        x0 = task.x0
        ft = x0.dtype
        self.sy, self.task, self.one_at_a_time, self.fresh = sy, task, one_at_a_time, fresh
        self.step = task.step
        self.params = np.tile(x0, (n, 1))
        self.xs = x0.copy()
        self.acc = np.zeros_like(self.params)
        self.w_f = sy.w.astype(ft)
        self.next_k = [0] * n
        self.pend: list[int] = []
        self.pending: set[int] = set()
        self.calls = self.iters = self.nupd = 0
        self.last_upd = None
        self.fresh_k: list[list[int]] = [[] for _ in range(n)]
        self.mom = ft.type(task.momentum)
        self.vel_s = np.zeros_like(self.xs) if task.momentum else None
        self.snap_t, self.snap = None, self.xs
        self.version = 0
        self.ptr, self.tptr = sy.ptr.tolist(), sy.tptr.tolist()
        self.mem_l, self.tgt_l = sy.mem.tolist(), sy.tgt.tolist()
        # per record: some weight (in the replay's dtype) is not 0, i.e. it updates the global model
        self.nonzero = np.logical_or.reduceat(self.w_f != 0, sy.ptr[:-1]).tolist() if sy.launch.size else []
        # look-ahead (:func:`_free_at`, None: off): the position of the event being handled, and the gradients
        # taken early: worker -> (its iteration, the batch's gradients, the row)
        self.free_at, self.pos = free_at, -1
        self.pre: dict = {}

    # ---- the events
    def compute_end(self, t, a):
        """Worker ``a`` ends a local iteration: its gradient is held back to be batched (fresh: its
        minibatch is remembered)."""
        if self.fresh:
            self.fresh_k[a].append(self.next_k[a])
            self.next_k[a] += 1
            self.iters += 1
            return
        self.pos += 1
        if a in self.pending:
            self.flush()
        self.next_k[a] += 1
        pre = self.pre
        if pre and a in pre:            # taken early with another batch (the same replica): added now, as the batched
            _, G, i = pre.pop(a)        # path adds it before anything reads this accumulator
            _add_row_at(self.acc, a, G, i)
            self.iters += 1
            return
        self.pend.append(a)
        self.pending.add(a)
        self.iters += 1
        if self.one_at_a_time:
            self.flush()

    def apply(self, t, a):
        """Record ``a`` is applied at ``t``: ``xs -= lr · d`` with ``d`` its members' weighted gradients
        (with momentum, a new update first takes its momentum step)."""
        w_f = self.w_f
        lo, hi = self.ptr[a], self.ptr[a + 1]
        self.version += 1
        self.pos += 1
        if self.fresh:
            if t != self.snap_t:
                self.snap_t, self.snap = t, self.xs.copy()
            d = self._fresh_step(lo, hi)
        elif _ONE_ROW and hi - lo == 1:  # one member (a parameter server's push): its accumulator's row as a view --
            m = self.mem_l[lo]           # the same (1,) @ (1, d) product on the same values as the gather below
            if m in self.pending:
                self.flush()
            row = self.acc[m:m + 1]
            d = w_f[lo:hi] @ row
            row.fill(0)
        else:
            members = self.mem_l[lo:hi]
            if not self.pending.isdisjoint(members):
                self.flush()
            d = w_f[lo:hi] @ self.acc[members]
            self.acc[members] = 0
        vel_s = self.vel_s
        if self.nonzero[a] and t != self.last_upd:
            self.nupd += 1
            self.last_upd = t
            if vel_s is not None:             # a new update: its momentum part, once (RP21)
                self.xs -= self.step * self.mom * vel_s
                vel_s *= self.mom
        if vel_s is not None:
            vel_s += d
        if vel_s is None and _ONE_ROW and d.dtype == self.xs.dtype:     # d is this call's own array: lr · d
            self.xs -= np.multiply(self.step, d, out=d)     # in place (the same product, in the model's dtype)
        else:
            self.xs -= self.step * d

    def pull(self, t, a):
        """Record ``a``'s targets pull the global model."""
        self.pos += 1
        lo, hi = self.tptr[a], self.tptr[a + 1]
        if _ONE_ROW and hi - lo == 1:    # one target (a parameter server's pull): its row, without the fancy index
            m = self.tgt_l[lo]
            if m in self.pending:
                self.flush()
            self.params[m] = self.xs
            return
        tg = self.tgt_l[lo:hi]
        if not self.pending.isdisjoint(tg):
            self.flush()
        self.params[tg] = self.xs

    def model(self) -> np.ndarray:
        """The evaluated model: the global model (a view: copy it to keep it)."""
        return self.xs

    def counts(self) -> tuple:
        """(local steps, updates of the global model) so far."""
        return self.iters, self.nupd

    def settle(self):
        self.flush()

    # ---- the held-back work
    def _fresh_step(self, lo, hi):
        """``Σ_j weights[j] · Σ_k grad(snapshot; batch_{members[j], k})`` over the record's members' remembered
        minibatches (weight 0: dropped), which it forgets."""
        task, fresh_k = self.task, self.fresh_k
        ws, ks, fac = [], [], []
        for m, wj in zip(self.sy.mem[lo:hi].tolist(), self.w_f[lo:hi]):
            if wj != 0:
                ws += [m] * len(fresh_k[m])
                ks += fresh_k[m]
                fac += [wj] * len(fresh_k[m])
            fresh_k[m] = []
        if not ws:
            return np.zeros_like(self.xs)
        idx = np.stack([task.batches[w][k] for w, k in zip(ws, ks)])
        g = task.grad_rows(np.tile(self.snap, (len(ws), 1)), idx, task.ytr[idx])
        return np.asarray(fac, dtype=self.xs.dtype) @ g

    def flush(self):
        """The held-back gradients into their workers' accumulators: one batched call.  With the look-ahead
        (``free_at``) the call also takes the gradient of each worker's next iteration whose replica is already
        final (no pull of the worker between now and that compute end), to be added at that compute end: the same
        replica, minibatch and product (a stacked product computes each replica's slice by itself, RP4), the same
        additions into the accumulator in the same order -- only fewer calls."""
        pend = self.pend
        if not pend:
            return
        self.acc[np.array(pend)] += _grads_ahead(self.task, self.params, pend, self.next_k, self.free_at, self.pos,
                                                 self.pre, (self.pending,))
        self.calls += 1
        pend.clear()
        self.pending.clear()


# --------------------------------------------------------------------- read-outs
def _check_curve(curve, target):
    if not isinstance(curve, pd.DataFrame) or not {"time_s", "iterations", "test_acc"} <= set(curve.columns):
        raise ValueError("curve must be a DataFrame with columns time_s, iterations, test_acc "
                         "(ReplayResult.curve)")
    return check_real("target", target, 0.0, 1.0)


def _first_hit(curve, target):
    hit = np.flatnonzero(curve["test_acc"].to_numpy(dtype=float) >= target)
    return None if hit.size == 0 else int(hit[0])


def time_to_accuracy(curve: pd.DataFrame, target: float) -> float:
    """First ``time_s`` of ``curve`` where ``test_acc >= target`` (in [0, 1]); NaN if never."""
    target = _check_curve(curve, target)
    i = _first_hit(curve, target)
    return float("nan") if i is None else float(curve["time_s"].iloc[i])


def iterations_to_accuracy(curve: pd.DataFrame, target: float) -> float:
    """Total local iterations at the first evaluation where ``test_acc >= target``; NaN if never."""
    target = _check_curve(curve, target)
    i = _first_hit(curve, target)
    return float("nan") if i is None else float(curve["iterations"].iloc[i])


# a module this one imports may change compiled code (simlib.core.jitcache)
jitcache.track(globals())
