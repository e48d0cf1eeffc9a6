"""Calibrating a learning task: how many updates synchronous and partial schemes need (decision RP9).

A *lock-step schedule* isolates statistical efficiency from system speed:
every worker ends one local iteration per round (at time ``r - 0.5`` of round
``r = 1, 2, ...``), and every ``period`` rounds the workers are split into
groups of ``group_size`` that each average their replicas (at ``r - 0.25``,
equal weights).  ``group_size = n, period = 1`` is synchronous all-reduce
(every worker averages every iteration: minibatch SGD with batch ``n · B``);
a smaller group size is a partial reduce of that scale (the partition is
drawn afresh every time from ``seed``); a longer period is local SGD, whose
replicas drift for ``period`` steps between averages (the staleness a
partial or asynchronous scheme introduces).  Replayed with one evaluation per
round, the curve's ``syncs`` column at the first round that meets a target
is the number of *updates* to that target (seed 002's "#update": one per
group sync) and the round is the number of local iterations per worker.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from simlib.core.seeding import as_seed_sequence
from simlib.core.validate import check_int
from simlib.runtime.log import ScheduleLog, SyncRecord
from simlib.training.learning import target_ladder
from simlib.training.replay import replay

__all__ = ["lockstep_log", "updates_to_targets", "CALIBRATION_COLUMNS"]

CALIBRATION_COLUMNS = ("target", "rounds", "updates")


def lockstep_log(n: int, rounds: int, group_size: int | None = None, period: int = 1, seed=0) -> ScheduleLog:
    """A lock-step schedule of ``rounds`` rounds (one simulated second each) for ``n`` workers.

    Every ``period``-th round ends with the workers split into ``n // group_size``
    groups of ``group_size`` (the last group takes the remainder) that average;
    ``group_size`` None means ``n`` (all-reduce).  The split is a uniformly random
    permutation from ``seed`` (int >= 0 or SeedSequence), drawn afresh each time.
    """
    n = check_int("n", n, lo=1)
    rounds = check_int("rounds", rounds, lo=1)
    group_size = n if group_size is None else check_int("group_size", group_size, lo=1, hi=n)
    period = check_int("period", period, lo=1)
    rng = np.random.default_rng(as_seed_sequence(seed))
    ends = [[r - 0.5 for r in range(1, rounds + 1)] for _ in range(n)]
    syncs = []
    for r in range(period, rounds + 1, period):
        perm = np.arange(n) if group_size == n else rng.permutation(n)
        k = n // group_size
        for g in range(k):
            members = perm[g * group_size:(g + 1) * group_size if g < k - 1 else n]
            if members.size > 1:
                syncs.append(SyncRecord(launch=r - 0.25, members=tuple(int(m) for m in members),
                                        iterations=(r,) * members.size, kind="partial", finish=r - 0.25))
    return ScheduleLog(n=n, duration=float(rounds), bandwidth=np.ones(n), compute_end=ends, syncs=syncs)


def updates_to_targets(log: ScheduleLog, problem, targets=None, **replay_kw) -> pd.DataFrame:
    """Replay a lock-step ``log`` (evaluated once per round) and read, for each target accuracy
    (default: the problem's ladder), the first round that meets it and the updates (syncs
    launched) by then; NaN where it is never met.  ``replay_kw`` go to :func:`replay`."""
    curve = replay(log, problem, eval_every_s=1.0, **replay_kw).curve
    targets = target_ladder(problem) if targets is None else tuple(targets)
    acc = curve["test_acc"].to_numpy()
    rows = []
    for a in targets:
        hit = np.flatnonzero(acc >= a)
        i = int(hit[0]) if hit.size else None
        rows.append((a, math.nan if i is None else float(curve["time_s"].iloc[i]),
                     math.nan if i is None else float(curve["syncs"].iloc[i])))
    return pd.DataFrame(rows, columns=list(CALIBRATION_COLUMNS))
