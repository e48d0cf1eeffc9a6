"""Orpheus receiver selection as modified by seed 004 §IV-A1.

"when determining receivers for the multicast task rooted at s, we modify
Orpheus to: i) first select all workers that have not been multicasted by s in
the last k rounds; then ii) randomly select more receivers if the number of
selected workers has not reached the requirement of p."
"""
from __future__ import annotations

import numpy as np

from simlib.core.seeding import check_rng
from simlib.core.validate import check_int

__all__ = ["orpheus_receivers"]


def orpheus_receivers(sender: int, n: int, p: int, rng: np.random.Generator, due=()) -> np.ndarray:
    """Receivers of ``sender``'s multicast: sorted int64 worker ids.

    First every id in ``due`` (workers ``sender`` has not delivered to in the
    last k rounds; never ``sender`` itself); then distinct others drawn
    uniformly at random from the remaining workers (never ``sender``) until
    ``p`` are chosen.  If ``len(due) > p`` the result is all of ``due``.
    ``n`` >= 2 workers, ``p`` in [1, n - 1], ``sender`` in [0, n - 1].
    """
    n = check_int("n", n, lo=2)
    sender = check_int("sender", sender, 0, n - 1)
    p = check_int("p", p, 1, n - 1)
    check_rng(rng)
    due = np.unique(np.asarray(due, dtype=np.int64).reshape(-1))
    if due.size and (due[0] < 0 or due[-1] >= n):
        raise ValueError(f"due must hold worker ids in [0, {n - 1}], got {due.tolist()}")
    if np.any(due == sender):
        raise ValueError(f"due must not contain the sender {sender}")
    need = p - due.size
    if need <= 0:
        return due
    pool = np.ones(n, dtype=bool)
    pool[sender] = False
    pool[due] = False
    extra = rng.choice(np.flatnonzero(pool), size=need, replace=False)
    return np.sort(np.concatenate([due, extra.astype(np.int64)]))
