"""Group-frozen avoidance: the controller's group filter (seed 002 §4).

§4: the controller keeps a *sync graph* that connects the workers of each of
the recent T P-reduce groups (T >= ceil((N-1)/(P-1)), the fewest groups that
can connect N nodes, each group adding P-1 links).  When that graph is
disconnected ("group frozen"), "the group filter will interact with the signal
queue and add few edges (forming groups) between connected components".

:class:`GroupFilter` implements this with an explicit rule (PR8-PR11 in
``docs/decisions/partial_reduce.md``):

* ``record(group)`` -- a group was launched; the last T groups are kept.
* ``connected()`` / ``components()`` -- the sync graph of those groups.
* ``select(queue)`` -- given the FIFO queue of ready workers (length >= p),
  the p workers to launch now, or ``None`` to wait:

  1. fewer than T groups recorded, or the sync graph is connected:
     plain FIFO, the first p of the queue;
  2. disconnected: the queue head, then the earliest-queued worker of a
     different component than the head, then the remaining p - 2 slots in
     FIFO order;
  3. disconnected and no queued worker lies outside the head's component:
     ``None`` (wait for one to arrive; workers of the other components are
     computing or synchronizing, so one will).  With ``max_hold = m`` the
     filter gives up after m consecutive ``None`` answers and the (m+1)-th
     call returns the plain FIFO group instead.

``select`` does not record anything: the caller launches the group and then
calls ``record(group)``.
"""
from __future__ import annotations

from collections import deque
from typing import Sequence

import numpy as np

from simlib.core.validate import check_int
from simlib.papers.partial_reduce.weights import _check_members

__all__ = ["min_window", "GroupFilter"]


def min_window(n: int, p: int) -> int:
    """The smallest allowed window, ceil((N-1)/(P-1)) groups (§4); n >= 2,
    2 <= p <= n."""
    n = check_int("n", n, lo=2)
    p = check_int("p", p, lo=2, hi=n)
    return -(-(n - 1) // (p - 1))


class GroupFilter:
    """Stateful group filter of §4 ("Group frozen avoidance").

    Parameters
    ----------
    n
        Number of workers N >= 2 (ids 0..n-1).
    p
        Group size P, 2 <= p <= n.
    T
        Window: the sync graph is built from the last T recorded groups.
        Default and minimum ceil((N-1)/(P-1)) (§4).
    max_hold
        ``None`` (default): wait for as long as it takes when a bridging worker
        is not queued (the paper's reading).  An int m >= 0: after m
        consecutive ``None`` answers of :meth:`select`, fall back to plain FIFO
        (PR10).  ``max_hold=0`` never waits: it bridges when it can and
        otherwise launches FIFO.
    """

    def __init__(self, n: int, p: int, T: int | None = None,
                 max_hold: int | None = None) -> None:
        self.n = check_int("n", n, lo=2)
        self.p = check_int("p", p, lo=2, hi=self.n)
        lo = min_window(self.n, self.p)
        self.T = lo if T is None else check_int("T", T, lo=lo)
        self.max_hold = None if max_hold is None else check_int("max_hold", max_hold, lo=0)
        self._groups: deque[tuple[int, ...]] = deque(maxlen=self.T)
        self._holds = 0          # consecutive None answers of select()
        self._labels: np.ndarray | None = None   # cache, invalidated by record()

    # ------------------------------------------------------------- history
    def record(self, group: Sequence[int]) -> None:
        """A group was launched: add it to the window (the oldest group beyond
        T is dropped).  ``group`` is 1..n distinct ids in [0, n-1]."""
        g = _check_members(group, self.n, "group")
        self._groups.append(g)
        self._labels = None

    @property
    def groups(self) -> tuple[tuple[int, ...], ...]:
        """The recorded groups still in the window, oldest first."""
        return tuple(self._groups)

    @property
    def window_full(self) -> bool:
        """True once T groups have been recorded."""
        return len(self._groups) >= self.T

    @property
    def holds(self) -> int:
        """Number of consecutive ``None`` answers of :meth:`select` so far."""
        return self._holds

    # --------------------------------------------------------- sync graph
    def labels(self) -> np.ndarray:
        """Component label of each worker in the sync graph of the window
        (scipy ``connected_components``; labels 0..c-1, a copy)."""
        if self._labels is None:
            from scipy.sparse import coo_matrix                     # here, not at import: `--help` stays light
            from scipy.sparse.csgraph import connected_components

            rows, cols = [], []
            for g in self._groups:             # a path through each group: P-1 edges
                rows.extend(g[:-1])
                cols.extend(g[1:])
            A = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(self.n, self.n))
            _, lab = connected_components(A, directed=False)
            self._labels = lab
        return self._labels.copy()

    def components(self) -> tuple[tuple[int, ...], ...]:
        """Connected components of the sync graph as sorted id tuples, ordered
        by their smallest id.  With no group recorded every worker is alone."""
        lab = self.labels()
        comps: dict[int, list[int]] = {}
        for w, c in enumerate(lab.tolist()):
            comps.setdefault(c, []).append(w)
        return tuple(sorted(tuple(v) for v in comps.values()))

    def connected(self) -> bool:
        """True if the sync graph of the window is connected."""
        return bool(np.all(self.labels() == self.labels()[0]))

    # ------------------------------------------------------------ select
    def select(self, queue: Sequence[int]) -> list[int] | None:
        """The p workers to launch now, or ``None`` to wait (§4; rule in the
        module docstring and PR9).

        ``queue`` is the FIFO queue of ready worker ids (head first), distinct
        ids in [0, n-1], at least p of them.  The answer is a list of p
        distinct ids taken from ``queue``.
        """
        q = _check_members(queue, self.n, "queue")
        if len(q) < self.p:
            raise ValueError(f"queue must hold at least p = {self.p} workers, got {len(q)}")
        if not self.window_full or self.connected():
            return self._launch(q[:self.p])
        lab = self.labels()
        head = q[0]
        bridge = next((w for w in q[1:] if lab[w] != lab[head]), None)
        if bridge is None:
            if self.max_hold is not None and self._holds >= self.max_hold:
                return self._launch(q[:self.p])
            self._holds += 1
            return None
        rest = [w for w in q[1:] if w != bridge][: self.p - 2]
        return self._launch((head, bridge, *rest))

    def _launch(self, group) -> list[int]:
        self._holds = 0
        return [int(w) for w in group]

    def __repr__(self) -> str:
        return (f"GroupFilter(n={self.n}, p={self.p}, T={self.T}, max_hold={self.max_hold}, "
                f"recorded={len(self._groups)})")
