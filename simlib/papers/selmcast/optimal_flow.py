"""The exact optimum of model (12) for equal volumes, by max-flow (beyond the paper).

When every v_i = v, constraints (10)-(11) at a fixed t are degree bounds:
egress j can receive at most floor(t b_j^E / v) models; for L7 ingress i can
send at most floor(t b_i^I / v) copies, for L3 ingress i needs only
t >= v / b_i^I (it sends one copy whatever the number of receivers).  With
(3) out-degree >= p_i, (4) no self-loops and (5) forced pairs, selection is a
degree-constrained bipartite problem, i.e. a max-flow problem:

    source -> sender i -> receiver j (j != i, capacity 1) -> sink.

Stage 1 (min t): feasibility is monotone in t and only changes at the
breakpoints t = k v / b (k = 1..n-1, b an egress -- or for L7 an ingress --
bandwidth; for L3 also t = v / b_i^I), so a binary search over the sorted
breakpoints with one max-flow test each finds t*.  A plan is feasible at t iff
giving each sender exactly max(p_i, |D_i|) receivers is (dropping unforced
receivers only lowers loads).

Stage 2 (max sum x at t <= t*): from the stage-1 flow (which meets every lower
bound p_i exactly), augment along its residual network with sender capacities
raised to their t* upper bounds.  An augmenting path starts at the source and
never re-enters it, so no sender's out-flow drops below p_i, and the result is
a maximum flow, i.e. the most receivers any plan with t <= t* can have.

scipy.sparse.csgraph.maximum_flow (Dinic) does the flows.  Units: bits, bits/s, s.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import maximum_flow

from simlib.core.validate import check_choice
from simlib.papers.selmcast.bsp import check_selection_inputs
from simlib.papers.selmcast.execute import plan_model_time

__all__ = ["FlowOptimum", "optimal_flow", "min_completion_time"]

# floor(t b / v) is evaluated as floor(t b / v + _EPS): at a breakpoint t = k v / b
# the float quotient may land just below k.
_EPS = 1e-9


@dataclass(frozen=True)
class FlowOptimum:
    """Lexicographic optimum of (12): ``x`` (n x n bool), ``t_star`` (s, the
    plan's model time = stage-1 optimum), ``n_receivers`` (sum x, stage-2
    optimum), ``seconds`` (wall time of both stages), ``n_maxflow`` (max-flow calls)."""

    x: np.ndarray
    t_star: float
    n_receivers: int
    seconds: float
    n_maxflow: int


class _Network:
    """The bipartite flow network, built once; only the source and sink capacities change.

    Nodes: 0 = source, 1..n = senders, n+1..2n = receivers, 2n+1 = sink.
    CSR rows are laid out by hand so the positions of the source->sender and
    receiver->sink entries in ``data`` are known.
    """

    def __init__(self, allowed: np.ndarray):
        n = allowed.shape[0]
        self.n = n
        ai, aj = np.nonzero(allowed)                 # row-major: grouped by sender
        per_sender = allowed.sum(axis=1)
        nnz = n + ai.size + n
        indptr = np.empty(2 * n + 3, dtype=np.int32)
        indptr[0] = 0
        indptr[1] = n                                # source row: n edges
        indptr[2:n + 2] = n + np.cumsum(per_sender)  # sender rows
        indptr[n + 2:2 * n + 2] = n + ai.size + np.arange(1, n + 1)  # receiver rows: 1 edge each
        indptr[2 * n + 2] = nnz                      # sink row: none
        indices = np.concatenate([np.arange(1, n + 1), n + 1 + aj, np.full(n, 2 * n + 1)]).astype(np.int32)
        self.data = np.ones(nnz, dtype=np.int32)
        self.src_pos = slice(0, n)
        self.sink_pos = slice(n + ai.size, nnz)
        self.pair_pos = slice(n, n + ai.size)
        self.ai, self.aj = ai, aj
        self.indptr, self.indices = indptr, indices
        self.n_calls = 0

    def graph(self, sender_cap, sink_cap):
        data = self.data.copy()
        data[self.src_pos] = sender_cap
        data[self.sink_pos] = sink_cap
        return sp.csr_array((data, self.indices, self.indptr), shape=(2 * self.n + 2, 2 * self.n + 2))

    def maxflow(self, g):
        self.n_calls += 1
        return maximum_flow(g, 0, 2 * self.n + 1)

    def pairs_used(self, flow) -> np.ndarray:
        """Bool mask over the allowed pairs carrying one unit of ``flow`` (a csr flow matrix)."""
        dense = flow.toarray()                       # (2n + 2)^2 entries: small
        return dense[self.ai + 1, self.aj + self.n + 1] > 0


def _caps(t: float, b: np.ndarray, v: float, n: int) -> np.ndarray:
    return np.minimum(np.floor(t * b / v + _EPS), n - 1).astype(np.int64)


def _feasible(net: _Network, t, b_in, b_eg, v, need_total, need_free, deg_req, forced_in, layer):
    """Max-flow test at t; returns the flow result if every sender can get its receivers, else None."""
    n = net.n
    if layer == "L3":
        if t * (1 + _EPS) < (v / b_in).max():
            return None
    elif (_caps(t, b_in, v, n) < deg_req).any():
        return None
    room = _caps(t, b_eg, v, n) - forced_in
    if (room < 0).any() or room.sum() < need_total:
        return None
    res = net.maxflow(net.graph(need_free, room))
    return res if res.flow_value == need_total else None


def _breakpoints(b_in, b_eg, v, n, layer, t_lo):
    k = np.arange(1, n)
    cands = [(k[:, None] * v / b_eg[None, :]).ravel()]
    cands.append((k[:, None] * v / b_in[None, :]).ravel() if layer == "L7" else v / b_in)
    t = np.unique(np.concatenate(cands))
    return t[t >= t_lo * (1 - 1e-12)]


def optimal_flow(b_in, b_eg, p, v, layer: str = "L3", forced=None) -> FlowOptimum:
    """Exact lexicographic optimum of model (12) (min t, then max sum x) for equal v_i.

    Same inputs as :func:`simlib.papers.selmcast.bsp.selmcast_bsp`; ``v`` must
    be a scalar or all-equal (else use :mod:`simlib.papers.selmcast.optimal_milp`).
    """
    t0 = time.perf_counter()
    layer = check_choice("layer", layer, ("L3", "L7"))
    b_in, b_eg, p, v_arr, forced, _ = check_selection_inputs(b_in, b_eg, p, v, forced)
    if not np.all(v_arr == v_arr[0]):
        raise ValueError("v must be equal for every sender for the max-flow optimum "
                         "(use optimal_milp for unequal volumes)")
    v = float(v_arr[0])
    n = b_in.size
    allowed = ~forced & ~np.eye(n, dtype=bool)
    net = _Network(allowed)
    n_forced = forced.sum(axis=1)
    deg_req = np.maximum(p, n_forced)                # exactly this many receivers in stage 1
    need_free = deg_req - n_forced
    need_total = int(need_free.sum())
    forced_in = forced.sum(axis=0)

    # ---- stage 1: smallest feasible breakpoint (binary search) ----
    t_lo = (v / b_in).max() if layer == "L3" else (deg_req * v / b_in).max()
    t_lo = max(t_lo, (forced_in * v / b_eg).max(), deg_req.sum() * v / b_eg.sum())
    ts = _breakpoints(b_in, b_eg, v, n, layer, t_lo)
    lo, hi, best = 0, ts.size - 1, None
    while lo <= hi:                                  # ts[hi] (every port >= n - 1 slots) is feasible
        mid = (lo + hi) // 2
        res = _feasible(net, ts[mid], b_in, b_eg, v, need_total, need_free, deg_req, forced_in, layer)
        if res is not None:
            best, hi = (mid, res), mid - 1
        else:
            lo = mid + 1
    if best is None:  # pragma: no cover - full broadcast is always feasible
        raise RuntimeError("no feasible plan found")
    t_break, res1 = ts[best[0]], best[1]

    # ---- stage 2: max receivers at t <= t*, augmenting the stage-1 flow ----
    upper = _caps(t_break, b_in, v, n) if layer == "L7" else np.full(n, n - 1)
    room = _caps(t_break, b_eg, v, n) - forced_in
    cap = net.graph(np.minimum(upper, allowed.sum(axis=1) + n_forced) - n_forced, room)
    f1 = sp.csr_array(res1.flow)
    f1 = f1.multiply(f1 > 0)                         # forward flow on the original edges
    residual = sp.csr_array(cap - f1 + f1.T)
    residual.eliminate_zeros()
    res2 = net.maxflow(residual.astype(np.int32))
    total = sp.csr_array(f1 + res2.flow)
    used = net.pairs_used(total)
    x = forced.copy()
    x[net.ai[used], net.aj[used]] = True
    t_star = plan_model_time(x, v, b_in, b_eg, layer)
    return FlowOptimum(x, t_star, int(x.sum()), time.perf_counter() - t0, net.n_calls)


def min_completion_time(b_in, b_eg, p, v, layer: str = "L3", forced=None) -> float:
    """t* of model (12) stage 1 for equal volumes (s): the selection-independent ideal (SM1)."""
    return optimal_flow(b_in, b_eg, p, v, layer, forced).t_star
