"""The schedule log: what happened in one simulated run, independent of model values.

The cluster writes it as the run unfolds and controllers add their raw
decisions (holds, counters) through the cluster's API; every metric
(:mod:`simlib.runtime.metrics`) is derived from it afterwards.

Units: seconds, bits/s.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["SyncRecord", "ScheduleLog", "grow_columns", "UPDATE_RULES"]

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


@dataclass
class ScheduleLog:
    """Everything that happened in one run, independent of model values.

    ``bandwidth[w]`` is worker ``w``'s bandwidth (bits/s; the smaller of its
    two ports); ``compute_end[w]`` lists the times (s) at which worker ``w``'s
    local iterations ended; ``syncs`` every synchronization launched
    (``finish`` is None if it had not finished by the end); ``holds`` the
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
    syncs: list[SyncRecord] = field(default_factory=list)
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
