"""The schedule log: what happened in one simulated run, independent of model values.

The cluster writes it as the run unfolds and controllers add their raw
decisions (holds, counters) through the cluster's API; every metric
(:mod:`simlib.runtime.metrics`) is derived from it afterwards.

Units: seconds, bits/s.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["SyncRecord", "PairSyncs", "ScheduleLog", "grow_columns", "UPDATE_RULES"]

#: How a log's syncs change the models (see :class:`ScheduleLog`).
UPDATE_RULES = ("average", "gradient")


@dataclass
class SyncRecord:
    """One synchronization: launch/finish times (s), members, their local iteration counts at launch."""

    launch: float
    members: tuple[int, ...]
    iterations: tuple[int, ...]
    kind: str = "partial"
    finish: float | None = None
    weights: tuple[float, ...] | None = None  # aggregation weight per member (None: equal, 1/m)
    init_weight: float = 0.0                   # weight of the initial model x_1 (002 §3.3.3)
    targets: tuple[int, ...] | None = None     # members whose replicas are replaced (None: all);
                                               # e.g. a multicast delivery i -> j: members (i, j), targets (j,)
    apply: float | None = None                 # when the update takes effect (None: at launch); gradient rule:
                                               # a parameter server applies a push on arrival or at a step's close
    versions: tuple[int, ...] | None = None    # gradient rule: the global model version each member's gradient
                                               # was computed on (staleness = version at apply - this)
    computing: tuple[int, ...] | None = None   # average rule: members mid-computation at launch; the gradient of
                                               # their next local step is taken on their replica before this sync
                                               # (AD-PSGD's neighbour, and its initiator, decision AD2)

    @property
    def duration(self) -> float | None:
        return None if self.finish is None else self.finish - self.launch


class PairSyncs(Sequence):
    """Finished one-way merges of two replicas as columns, a read-only sequence of :class:`SyncRecord`: record
    ``i`` is ``SyncRecord(launch=launch[i], members=(src[i], dst[i]), iterations=(it_src[i], it_dst[i]),
    kind=kind, finish=launch[i], weights=weights, targets=(dst[i],))`` (a multicast delivery src -> dst at
    ``launch[i]`` s, decision SM66), made when read, with Python ``float`` and ``int`` fields as a list of such
    records holds.  A replay (:mod:`simlib.training.replay`) reads the columns without making the records.
    Equal to any sequence of the same records."""

    __slots__ = ("launch", "src", "dst", "it_src", "it_dst", "kind", "weights")

    def __init__(self, launch, src, dst, it_src, it_dst, kind: str, weights: tuple):
        self.launch = np.asarray(launch, dtype=float)
        self.src, self.dst, self.it_src, self.it_dst = (np.asarray(x, dtype=np.int64) for x in (src, dst, it_src, it_dst))
        if not all(x.shape == self.launch.shape and x.ndim == 1 for x in (self.src, self.dst, self.it_src, self.it_dst)):
            raise ValueError("PairSyncs' columns must be 1-d arrays of one length")
        if len(weights) != 2:
            raise ValueError(f"weights must be two reals (source, destination), got {weights!r}")
        self.kind, self.weights = kind, tuple(weights)

    def __len__(self) -> int:
        return self.launch.size

    def _record(self, a, i, j, ki, kj) -> SyncRecord:
        return SyncRecord(launch=a, members=(i, j), iterations=(ki, kj), kind=self.kind, finish=a,
                          weights=self.weights, targets=(j,))

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self._record(*x) for x in zip(*(c[k].tolist() for c in self._columns()))]
        return self._record(*(c[k].item() for c in self._columns()))

    def __iter__(self):
        return (self._record(*x) for x in zip(*(c.tolist() for c in self._columns())))

    def _columns(self) -> tuple:
        return self.launch, self.src, self.dst, self.it_src, self.it_dst

    def __eq__(self, other) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(other) == len(self) and all(a == b for a, b in zip(self, other))

    __hash__ = None

    def __repr__(self) -> str:
        return f"PairSyncs({len(self)} records, kind={self.kind!r}, weights={self.weights!r})"

    def __getstate__(self):
        return {k: getattr(self, k) for k in self.__slots__}

    def __setstate__(self, state):
        for k, v in state.items():
            object.__setattr__(self, k, v)


@dataclass
class ScheduleLog:
    """Everything that happened in one run, independent of model values.

    ``bandwidth[w]`` is worker ``w``'s bandwidth (bits/s; the smaller of its
    two ports); ``compute_end[w]`` lists the times (s) at which worker ``w``'s
    local iterations ended; ``syncs`` every synchronization launched
    (``finish`` is None if it had not finished by the end; a list, or a :class:`PairSyncs` of a
    multicast run's deliveries); ``holds`` the
    (time, worker) pairs at which a controller started holding a ready worker
    back although its group could have launched (seed 000's "wait and
    replace"); ``counters`` named event counts a controller reports (e.g.
    ``controller_rounds``).

    ``update_rule`` says how the replay (:mod:`simlib.training.replay`) reads the syncs:
    ``"average"`` (a sync replaces its targets' replicas by the weighted mean of the members'
    replicas: all reduce, partial/selective reduce, AD-PSGD) or ``"gradient"`` (one global model,
    e.g. a parameter server's: a sync applies its members' accumulated gradients with its weights as
    step-size factors, at ``apply``, and its targets pull the result; PS, Eager-Reduce).
    """

    n: int
    duration: float
    bandwidth: np.ndarray
    compute_end: list[list[float]] = field(default_factory=list)
    syncs: list[SyncRecord] | PairSyncs = field(default_factory=list)
    holds: list[tuple[float, int]] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)
    update_rule: str = "average"

    def syncs_frame(self):
        """Tidy DataFrame: one row per synchronization."""
        import pandas as pd

        return pd.DataFrame({
            "launch_s": [s.launch for s in self.syncs],
            "finish_s": [s.finish for s in self.syncs],
            "scale": [len(s.members) for s in self.syncs],
            "kind": [s.kind for s in self.syncs],
            "members": [s.members for s in self.syncs],
        })


def grow_columns(group: dict, need: int, minimum: int = 1) -> None:
    """Grow the arrays of a columnar log ``group`` (name -> array, equal lengths along
    axis 0) in place to at least ``need`` rows, at least doubling (and at least
    ``minimum`` rows); new rows are zero.  Used by the compiled event loops' drivers
    when a loop asks for room."""
    have = next(iter(group.values())).shape[0]
    if need > have:
        size = max(2 * have, need, minimum)
        for key, arr in group.items():
            group[key] = np.concatenate([arr, np.zeros((size - have,) + arr.shape[1:], arr.dtype)])
