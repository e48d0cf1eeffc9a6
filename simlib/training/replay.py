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
``(m, d)`` arrays; the result is identical to one-at-a-time processing
(tested).

Minibatches.  Worker ``w``'s ``k``-th minibatch is ``batch_size`` i.i.d. draws
with replacement from the training set, from a stream that depends only on
``(seed, w)`` (see :func:`minibatch_indices`), so the same worker/iteration
sees the same batch whatever the schedule (paired comparisons between
schemes).  ``x_init`` comes from a separate fixed child of ``seed``.

Evaluation.  The *average model* (mean of all n replicas) is evaluated on the
test set at ``0, eval_every_s, 2·eval_every_s, …`` and at ``log.duration``;
the state at time ``t`` includes every event with time ``<= t``.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from numbers import Integral

import numpy as np
import pandas as pd

from simlib.core.seeding import as_seed_sequence, child_seed
from simlib.training.learning import MODELS, Problem, load_problem, make_model
from simlib.core.validate import check_choice, check_int, check_real

__all__ = ["ReplayResult", "replay", "minibatch_indices", "init_params", "time_to_accuracy",
           "iterations_to_accuracy", "CURVE_COLUMNS", "BATCH_CHUNK"]

CURVE_COLUMNS = ("time_s", "iterations", "syncs", "test_loss", "test_acc")
#: Minibatches are drawn from each worker's stream in blocks of this many.
BATCH_CHUNK = 64
_INIT_KEY, _BATCH_KEY = 0, 1
UNFINISHED = ("apply", "drop")


@dataclass(frozen=True, eq=False)
class ReplayResult:
    """Learning curve of the average model, plus the replicas at the end of the run.

    ``curve``: one row per evaluation, columns ``CURVE_COLUMNS`` (time_s, total
    local iterations so far, syncs launched so far, test loss, test accuracy).
    ``final_params`` (n, d): every worker's replica after the last event;
    ``x_init`` (d,): the common initial model; ``grad_calls``: number of
    vectorized gradient calls made (a measure of the batching achieved).
    """

    curve: pd.DataFrame
    final_params: np.ndarray
    x_init: np.ndarray
    grad_calls: int


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
    out = [rng.integers(0, n_train, size=(BATCH_CHUNK, batch_size)) for _ in range(blocks)]
    if not out:
        return np.empty((0, batch_size), dtype=np.int64)
    return np.concatenate(out)[:count]


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


def _sync_weights(rec, i: int):
    k = len(rec.members)
    w = getattr(rec, "weights", None)
    c = getattr(rec, "init_weight", None)
    if w is None:
        w = np.full(k, 1.0 / k)
    else:
        w = np.asarray(w, dtype=float).reshape(-1)
        if w.size != k or not np.all(np.isfinite(w)):
            raise ValueError(f"log.syncs[{i}].weights must be {k} finite reals aligned with members")
    c = 0.0 if c is None else check_real(f"log.syncs[{i}].init_weight", c)
    return w, c


def _sync_targets(rec, i: int):
    """Members whose replicas a sync replaces (``rec.targets``, default all members)."""
    tg = getattr(rec, "targets", None)
    members = tuple(rec.members)
    if tg is None:
        return list(members)
    tg = tuple(tg)
    if not tg or len(set(tg)) != len(tg) or not set(tg) <= set(members):
        raise ValueError(f"log.syncs[{i}].targets must be distinct members of {members}, got {tg}")
    return list(tg)


def _event_order(n: int, duration: float, ends: list, syncs) -> list:
    """Events as (time, kind, id) with kind 0 = compute end (id = worker), 1 = sync (id = index).

    Follows every worker's chain; among chain heads (a sync is a head when it
    heads all its members' chains), the smallest (time, kind, id) goes first.
    """
    chains = [[] for _ in range(n)]
    for i, rec in enumerate(syncs):
        members = tuple(rec.members)
        launch = check_real(f"log.syncs[{i}].launch", rec.launch, 0.0, duration)
        if not members or len(set(members)) != len(members) or any(
                not isinstance(m, Integral) or not 0 <= m < n for m in members):
            raise ValueError(f"log.syncs[{i}].members must be distinct worker ids in [0, {n - 1}], "
                             f"got {members}")
        its = tuple(getattr(rec, "iterations", ()) or ())
        if len(its) != len(members):
            raise ValueError(f"log.syncs[{i}].iterations must align with members")
        for m, it in zip(members, its):
            e = ends[m]
            if not (isinstance(it, Integral) and 0 <= it <= e.size):
                raise ValueError(f"log.syncs[{i}].iterations must be in [0, {e.size}] for worker {m}, got {it}")
            if (it > 0 and e[it - 1] > launch) or (it < e.size and e[it] < launch):
                raise ValueError(f"log.syncs[{i}] (launch {launch}) is inconsistent with worker {m}'s "
                                 f"compute ends around its iteration {it}")
            chains[m].append((int(it), launch, i))
    for m in range(n):
        chains[m].sort()
    # chain of worker m: compute ends 1..K interleaved with syncs after iteration `it`
    seq = []
    for m in range(n):
        c, j = [], 0
        for k in range(ends[m].size + 1):
            while j < len(chains[m]) and chains[m][j][0] == k:
                c.append((1, chains[m][j][2]))
                j += 1
            if k < ends[m].size:
                c.append((0, k))
        seq.append(c)
    head = [0] * n
    at_head = [0] * len(syncs)
    heap: list = []

    def arrive(m):
        if head[m] >= len(seq[m]):
            return
        kind, x = seq[m][head[m]]
        if kind == 0:
            heapq.heappush(heap, (float(ends[m][x]), 0, m, x))
        else:
            at_head[x] += 1
            if at_head[x] == len(syncs[x].members):
                heapq.heappush(heap, (float(syncs[x].launch), 1, x, 0))

    for m in range(n):
        arrive(m)
    order = []
    while heap:
        t, kind, a, k = heapq.heappop(heap)
        order.append((t, kind, a, k))
        for m in ((a,) if kind == 0 else syncs[a].members):
            head[m] += 1
            arrive(m)
    if any(head[m] < len(seq[m]) for m in range(n)):  # pragma: no cover - guarded by checks above
        raise ValueError("log is inconsistent: its syncs' iteration counts form a cycle")
    return order


# ----------------------------------------------------------------------- replay
def replay(log, problem, model="softmax", lr: float = 0.1, batch_size: int = 32,
           eval_every_s: float = 1.0, seed=0, l2: float = 0.0, *, unfinished: str = "apply",
           _one_at_a_time: bool = False) -> ReplayResult:
    """Train n replicas along the schedule ``log`` and return the average model's test curve.

    Parameters
    ----------
    log : :class:`~simlib.runtime.cluster.ScheduleLog` (or anything with ``n``, ``duration``,
        ``compute_end`` and ``syncs`` of the same form).
    problem : :class:`~simlib.training.learning.Problem` or a name for :func:`~simlib.training.learning.load_problem`.
    model : ``"softmax"``, ``"mlp"`` (32 tanh hidden units) or a model object with
        ``init``/``grad``/``loss_acc`` (then ``l2`` must be set on the model).
    lr : SGD step size (> 0) of every local step.
    batch_size : samples per local minibatch (>= 1).
    eval_every_s : simulated seconds between evaluations (> 0).
    seed : int >= 0 or ``SeedSequence``: minibatch streams and ``x_init``.
    l2 : L2 coefficient (>= 0) of the objective ``CE + l2/2·‖x‖²``.
    unfinished : what to do with a sync whose ``finish`` is None: ``"apply"``
        it at launch like the others, or ``"drop"`` it (the members keep
        their pre-sync replicas; it still counts as launched).
    """
    n, duration, ends = _check_log(log)
    if isinstance(problem, str):
        problem = load_problem(problem)
    if not isinstance(problem, Problem):
        raise ValueError(f"problem must be a Problem or one of the names of load_problem, got {problem!r}")
    lr = check_real("lr", lr, 0.0, lo_open=True)
    batch_size = check_int("batch_size", batch_size, lo=1)
    eval_every_s = check_real("eval_every_s", eval_every_s, 0.0, lo_open=True)
    l2 = check_real("l2", l2, 0.0)
    unfinished = check_choice("unfinished", unfinished, UNFINISHED)
    root = as_seed_sequence(seed)
    if isinstance(model, str):
        mdl = make_model(check_choice("model", model, MODELS), problem, l2=l2)
    elif all(hasattr(model, a) for a in ("init", "grad", "loss_acc")):
        if l2:
            raise ValueError("l2 must be 0 when model is a model object (set l2 on the model)")
        mdl = model
    else:
        raise ValueError(f"model must be one of {list(MODELS)} or a model object, got {model!r}")
    grad = getattr(mdl, "_grad", mdl.grad)

    syncs = list(log.syncs)
    order = _event_order(n, duration, ends, syncs)
    weights = [_sync_weights(rec, i) for i, rec in enumerate(syncs)]
    targets = [_sync_targets(rec, i) for i, rec in enumerate(syncs)]
    apply_sync = [unfinished == "apply" or rec.finish is not None for rec in syncs]

    Xtr, ytr, N = problem.X_train, problem.y_train, problem.y_train.size
    batches = [minibatch_indices(root, w, N, batch_size, ends[w].size) for w in range(n)]
    x_init = init_params(root, mdl)
    params = np.tile(x_init, (n, 1))

    n_eval = int(math.floor(duration / eval_every_s * (1 + 1e-12)))
    times = [k * eval_every_s for k in range(n_eval + 1) if k * eval_every_s <= duration]
    if times[-1] < duration:
        times.append(duration)
    rows = []
    pend_w: list[int] = []
    pend_k: list[int] = []
    pending: set[int] = set()
    calls = 0
    iters = nsync = 0

    def flush():
        nonlocal calls
        if not pend_w:
            return
        ws = np.asarray(pend_w)
        idx = np.stack([batches[w][k] for w, k in zip(pend_w, pend_k)])
        params[ws] -= lr * grad(params[ws], Xtr[idx], ytr[idx])
        calls += 1
        pend_w.clear()
        pend_k.clear()
        pending.clear()

    def evaluate(t):
        loss, acc = mdl.loss_acc(params.mean(axis=0), problem.X_test, problem.y_test)
        rows.append((t, iters, nsync, loss, acc))

    ei = 0
    for t, kind, a, k in order:
        while ei < len(times) and t > times[ei]:
            flush()
            evaluate(times[ei])
            ei += 1
        if kind == 0:
            if a in pending:
                flush()
            pend_w.append(a)
            pend_k.append(k)
            pending.add(a)
            iters += 1
            if _one_at_a_time:
                flush()
        else:
            rec = syncs[a]
            members = list(rec.members)
            if not pending.isdisjoint(members):
                flush()
            nsync += 1
            if apply_sync[a]:
                w, c = weights[a]
                new = w @ params[members]
                if c:
                    new = new + c * x_init
                params[targets[a]] = new
    flush()
    while ei < len(times):
        evaluate(times[ei])
        ei += 1
    curve = pd.DataFrame(rows, columns=list(CURVE_COLUMNS))
    curve["iterations"] = curve["iterations"].astype(np.int64)
    curve["syncs"] = curve["syncs"].astype(np.int64)
    return ReplayResult(curve=curve, final_params=params, x_init=x_init, grad_calls=calls)


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
