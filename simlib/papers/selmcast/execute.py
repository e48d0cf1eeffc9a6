"""Run a BSP selection plan {x_ij} on the flow network (seed 004 §III-A, §IV-A1).

The plan is one round of peer-to-peer synchronization on the big switch
(:class:`simlib.core.topology.BigSwitch`: ingress = sender's uplink, egress =
receiver's downlink).  All transfers start at time 0 and share the ports by
per-flow max-min fairness (:class:`simlib.core.network.FlowNetwork`):

* ``layer="L3"``: one multicast flow per sender with at least one receiver,
  crossing its ingress and every receiver's egress at one common rate (its
  throughput is the slowest receiver's, §IV-A1);
* ``layer="L7"``: one unicast flow per selected (sender, receiver) pair.

The round completes when the last delivery finishes (coflow semantics, §III-A).
Also here: the plan's *model* completion time, the t of constraints (10)-(11)
for this plan (a lower bound on any execution), and a checker of (2)-(5).

Units: bits, bits/s, seconds.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlib.core.gc_pause import gc_paused
from simlib.core.network import FlowNetwork
from simlib.core.topology import BigSwitch
from simlib.core.validate import check_array, check_choice
from simlib.runtime.capture import big_switch_link_names, offer, watch_flows

__all__ = ["LAYERS", "ExecutionResult", "BspRound", "execute_plan", "plan_model_time", "port_loads",
           "check_plan", "as_volumes"]

LAYERS = ("L3", "L7")


@dataclass(frozen=True)
class ExecutionResult:
    """Outcome of one executed round.

    ``completion_s``: time the last delivery finishes (s); ``sender_finish_s``:
    per sender, when its last delivery finished (0 for a sender with no
    receiver); ``n_flows``: flows started; ``rate_recomputations``: max-min solves.
    """

    completion_s: float
    sender_finish_s: np.ndarray
    n_flows: int
    rate_recomputations: int


@dataclass(frozen=True)
class BspRound:
    """An executed round as a timeline reads it (:mod:`.bsp_timeline`): the plan ``x`` (n x n 0/1), its
    ``layer``, the round's completion time (s) and its watched flows (a
    :class:`~simlib.runtime.capture.FlowWatch`); offered by :func:`execute_plan`
    (:func:`simlib.runtime.capture.offer`, a no-op outside a timeline capture)."""

    x: np.ndarray
    layer: str
    completion_s: float
    flows: object = None

    @property
    def duration(self) -> float:
        """The round's length (s): its completion time."""
        return self.completion_s


def as_volumes(v, n: int) -> np.ndarray:
    """``v`` (bits) as a per-sender array of length ``n``; a scalar means v_i = v for all i."""
    arr = np.asarray(v, dtype=float)
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    arr = check_array("v", arr, lo=0.0, lo_open=True)
    if arr.size != n:
        raise ValueError(f"v must be a scalar or have length n = {n}, got {arr.size}")
    return arr


def _check_x(x) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim != 2 or x.shape[0] != x.shape[1] or x.shape[0] < 2:
        raise ValueError(f"x must be a square n x n 0/1 matrix with n >= 2, got shape {x.shape}")
    if not np.isin(x, (0, 1)).all():
        raise ValueError("x must contain only 0 and 1 (constraint (2))")
    if np.diagonal(x).any():
        raise ValueError("x must have a zero diagonal (constraint (4): no worker sends to itself)")
    return x.astype(bool)


def port_loads(x, v, layer: str) -> tuple[np.ndarray, np.ndarray]:
    """Bits each ingress must send (s_i of Eq. (9)) and each egress must receive (r_j).

    ``v`` is the per-sender volume (bits).  L3: s_i = max_j v_i x_ij; L7:
    s_i = sum_j v_i x_ij.  r_j = sum_i v_i x_ij for both layers.
    """
    x = _check_x(x)
    layer = check_choice("layer", layer, LAYERS)
    vol = as_volumes(v, x.shape[0])
    deg = x.sum(axis=1)
    s = np.where(deg > 0, vol, 0.0) if layer == "L3" else vol * deg
    r = vol @ x
    return s, r


def plan_model_time(x, v, b_in, b_eg, layer: str) -> float:
    """The smallest t satisfying (10)-(11) for plan ``x``: max_i s_i / b_i^I, max_j r_j / b_j^E (s).

    No execution can finish sooner: port i must carry s_i bits at most b_i bits/s.
    """
    s, r = port_loads(x, v, layer)
    b_in = check_array("b_in", b_in, lo=0.0, lo_open=True)
    b_eg = check_array("b_eg", b_eg, lo=0.0, lo_open=True)
    return float(max((s / b_in).max(), (r / b_eg).max()))


def check_plan(x, p, forced=None) -> None:
    """Raise ``ValueError`` unless ``x`` satisfies (2) binary, (3) out-degree >= p_i,
    (4) zero diagonal and (5) every forced pair (boolean matrix ``forced``) selected."""
    x = _check_x(x)
    n = x.shape[0]
    p = np.broadcast_to(np.asarray(p, dtype=np.int64), (n,))
    deg = x.sum(axis=1)
    short = np.flatnonzero(deg < p)
    if short.size:
        i = int(short[0])
        raise ValueError(f"x violates (3): sender {i} has {int(deg[i])} receivers, needs p_i = {int(p[i])}")
    if forced is not None:
        miss = np.argwhere(np.asarray(forced, dtype=bool) & ~x)
        if miss.size:
            raise ValueError(f"x violates (5): forced pair {tuple(int(a) for a in miss[0])} not selected")


def execute_plan(x, v, b_in, b_eg, layer: str) -> ExecutionResult:
    """Run plan ``x`` (n x n 0/1, zero diagonal) on a big switch with per-flow max-min sharing.

    ``v``: bits each sender delivers (scalar or per sender); ``b_in``/``b_eg``:
    ingress/egress bandwidth per worker (bits/s); ``layer``: "L3" (one
    multicast flow per sender) or "L7" (one unicast flow per pair).
    """
    x = _check_x(x)
    n = x.shape[0]
    layer = check_choice("layer", layer, LAYERS)
    vol = as_volumes(v, n)
    switch = BigSwitch(b_in, b_eg)
    if switch.n != n:
        raise ValueError(f"b_in and b_eg must have length n = {n}, got {switch.n}")
    net = FlowNetwork(switch.capacities)
    watch = watch_flows(net, lambda: big_switch_link_names(n))     # inside a timeline capture only
    finish = np.zeros(n)
    if layer == "L3":
        senders = np.flatnonzero(x.any(axis=1))
        paths = [(i,) + tuple((n + np.flatnonzero(x[i])).tolist()) for i in senders.tolist()]
    else:
        senders, dsts = np.nonzero(x)
        paths = np.column_stack([senders, n + dsts])
    n_flows = senders.size
    if watch is None:                                 # no flow handles (12,000 a round at L7, n = 200, p = 60)
        ends = net.run_flows(paths, vol[senders])
        ok = ~np.isnan(ends)
        np.maximum.at(finish, senders[ok], ends[ok])  # per sender, its last delivery (max: order-free)
    else:                                             # a timeline capture watches the flows' handles
        with gc_paused():
            net.add_flows(paths, vol[senders], tags=senders.tolist())
            done = net.run_until_idle()
        if done:
            np.maximum.at(finish, np.array([f.tag for f in done], dtype=np.int64),
                          np.array([f.finish_time for f in done]))
    if len(net):
        raise RuntimeError("some flows could not complete (a port with zero capacity?)")
    out = ExecutionResult(float(finish.max()) if n_flows else 0.0, finish, n_flows, net.recomputations)
    offer(BspRound(x, layer, out.completion_s, watch), "simlib.papers.selmcast.bsp_timeline:bsp_events", watch)
    return out
