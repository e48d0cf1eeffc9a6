"""Orpheus's bandwidth-agnostic receiver choice, with the paper's modification (seed 004 §IV-A1).

A sender first takes every worker it has not delivered to in the last k
rounds ("due"), then uniformly random distinct others until it has p
receivers.  :func:`orpheus_receivers` is the choice for one sender (shared
with the SSP simulation); :func:`orpheus_bsp` applies it to every sender of a
BSP round; :class:`DeliveryHistory` keeps the per-pair "rounds since last
delivered" counts c_ij from which the due sets (and Alg. 1's D and c) follow.

Sampling: every candidate gets an independent U[0, 1) key and the p smallest
keys win (due workers get key -1, the sender +inf), which is a uniformly
random subset.  ``orpheus_bsp`` draws the n x n keys in one call; because a
Generator fills an (n, n) array in the same order as n draws of size n, it is
identical to calling :func:`orpheus_receivers` for senders 0, 1, ..., n - 1.
"""
from __future__ import annotations

import numpy as np

from simlib.core.seeding import check_rng
from simlib.core.validate import check_int

__all__ = ["orpheus_receivers", "orpheus_bsp", "DeliveryHistory"]


def _check_due(sender: int, n: int, due) -> np.ndarray:
    arr = np.asarray(due).reshape(-1)
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"due must hold integer worker ids, got {arr.tolist()}")
    due = arr.astype(np.int64)
    if due.size:
        if due.min() < 0 or due.max() >= n:
            raise ValueError(f"due must hold worker ids in [0, {n - 1}], got {due.tolist()}")
        if (due == sender).any():
            raise ValueError(f"due must not contain the sender ({sender})")
        if np.unique(due).size != due.size:
            raise ValueError(f"due must not repeat a worker, got {due.tolist()}")
    return due


def orpheus_receivers(sender: int, n: int, p: int, rng: np.random.Generator, due=()) -> np.ndarray:
    """Receivers of ``sender`` under (modified) Orpheus, sorted int64 ids.

    First every id in ``due`` (workers the sender has not delivered to in the
    last k rounds; never the sender), then uniformly random distinct other
    workers until ``p`` receivers are chosen; if ``len(due) > p`` all of
    ``due``.  ``n`` >= 2 workers, ``p`` in [1, n - 1].  Draws exactly ``n``
    uniforms from ``rng``.
    """
    n = check_int("n", n, 2)
    sender = check_int("sender", sender, 0, n - 1)
    p = check_int("p", p, 1, n - 1)
    check_rng(rng)
    due = _check_due(sender, n, due)
    keys = rng.random(n)
    keys[due] = -1.0
    keys[sender] = np.inf
    k = max(p, due.size)                        # <= n - 1: due never holds the sender
    chosen = np.argpartition(keys, k - 1)[:k]
    return np.sort(chosen).astype(np.int64)


def orpheus_bsp(n: int, p: int, rng: np.random.Generator, forced=None) -> np.ndarray:
    """One BSP round of Orpheus: the n x n bool plan, row i = ``orpheus_receivers(i, ...)``.

    ``forced``: n x n bool matrix, row i = the due set of sender i (None: none).
    """
    n = check_int("n", n, 2)
    p = check_int("p", p, 1, n - 1)
    check_rng(rng)
    keys = rng.random((n, n))
    if forced is not None:
        forced = np.asarray(forced, dtype=bool)
        if forced.shape != (n, n) or np.diagonal(forced).any():
            raise ValueError(f"forced must be an n x n bool matrix with zero diagonal (n = {n})")
        keys[forced] = -1.0
    np.fill_diagonal(keys, np.inf)
    x = np.zeros((n, n), dtype=bool)
    k = p if forced is None else np.maximum(p, forced.sum(axis=1))
    if forced is None or (k == p).all():
        idx = np.argpartition(keys, p - 1, axis=1)[:, :p]
        np.put_along_axis(x, idx, True, axis=1)
    else:
        order = np.argsort(keys, axis=1)
        x[np.arange(n)[:, None], order] = np.arange(n)[None, :] < k[:, None]
    return x


class DeliveryHistory:
    """Per-pair count c_ij of consecutive rounds in which i did not deliver to j.

    ``due_matrix()`` is D: the pairs with c_ij >= k, i.e. not delivered in the
    last k rounds (so every pair is served at least once every k + 1 rounds,
    §III-A).  Counting starts at 0 for every pair (decision SM2): no pair is
    due before round k.  ``record(x)`` closes a round with plan ``x``.
    ``k=None`` disables the requirement (D always empty).
    """

    def __init__(self, n: int, k: int | None):
        self.n = check_int("n", n, 2)
        self.k = None if k is None else check_int("k", k, 1)
        self.c = np.zeros((self.n, self.n), dtype=np.int64)

    def due_matrix(self) -> np.ndarray:
        if self.k is None:
            return np.zeros((self.n, self.n), dtype=bool)
        d = self.c >= self.k
        np.fill_diagonal(d, False)
        return d

    def due(self, sender: int) -> np.ndarray:
        """Ids sender has not delivered to in the last k rounds (sorted int64)."""
        sender = check_int("sender", sender, 0, self.n - 1)
        return np.flatnonzero(self.due_matrix()[sender]).astype(np.int64)

    def record(self, x) -> None:
        x = np.asarray(x, dtype=bool)
        if x.shape != (self.n, self.n):
            raise ValueError(f"x must be an n x n matrix (n = {self.n}), got shape {x.shape}")
        self.c = np.where(x, 0, self.c + 1)
        np.fill_diagonal(self.c, 0)
