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
bandwidth; for L3 also t = v / b_i^I), so t* is the smallest breakpoint that
passes a max-flow test.  A plan is feasible at t iff giving each sender exactly
max(p_i, |D_i|) receivers is (dropping unforced receivers only lowers loads).
The search first finds, without a max flow, the smallest breakpoint whose slot
counts allow a plan (every ingress its copies, the egresses enough free slots in
all; necessary, and monotone too), tests it, and bisects the larger breakpoints
only if it fails (rarely: at n = 200 the slot bound was t* in every instance
measured).  Bisection picks medians with ``np.partition`` rather than sorting
the ~n^2 breakpoints.

Stage 2 (max sum x at t <= t*): from the stage-1 flow (which meets every lower
bound p_i exactly), augment along its residual network with sender capacities
raised to their t* upper bounds.  An augmenting path starts at the source and
never re-enters it, so no sender's out-flow drops below p_i, and the result is
a maximum flow, i.e. the most receivers any plan with t <= t* can have.

Stage 1's tests need only a flow's value (an integer: every exact max-flow algorithm gives the same one),
so a compiled Dinic (:func:`_max_flow_value`) answers them; scipy.sparse.csgraph.maximum_flow (Dinic)
computes the two flows whose edges are used -- stage 1's at t* (the flow a search testing each breakpoint
with scipy keeps) and stage 2's -- so the plan is scipy's.  Units: bits, bits/s, s.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import njit
from scipy.sparse.csgraph import maximum_flow

from simlib.core import jitcache
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
    optimum), ``seconds`` (wall time of both stages), ``n_maxflow`` (maximum flows computed: the
    search's value tests, then scipy's two flows)."""

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
        # the same network as a residual graph for _max_flow_value
        self.r_start, self.r_to, self.r_rev, pos = _residual_graph(indptr, indices)
        self.r_cap = np.zeros(self.r_to.size, dtype=np.int64)
        self.r_cap[pos] = self.data
        self.r_src, self.r_sink = pos[self.src_pos], pos[self.sink_pos]

    def graph(self, sender_cap, sink_cap):
        data = self.data.copy()
        data[self.src_pos] = sender_cap
        data[self.sink_pos] = sink_cap
        return sp.csr_array((data, self.indices, self.indptr), shape=(2 * self.n + 2, 2 * self.n + 2))

    def maxflow(self, g):
        self.n_calls += 1
        return maximum_flow(g, 0, 2 * self.n + 1)

    def flow_value(self, sender_cap, sink_cap) -> int:
        """The maximum flow's value with these source->sender and receiver->sink capacities (what
        ``maxflow(graph(sender_cap, sink_cap)).flow_value`` returns), by :func:`_max_flow_value`."""
        self.n_calls += 1
        cap = self.r_cap.copy()
        cap[self.r_src] = sender_cap
        cap[self.r_sink] = sink_cap
        return int(_max_flow_value(self.r_start, self.r_to, self.r_rev, cap, 0, 2 * self.n + 1))

    def pairs_used(self, flow) -> np.ndarray:
        """Bool mask over the allowed pairs carrying one unit of ``flow`` (a csr flow matrix)."""
        dense = flow.toarray()                       # (2n + 2)^2 entries: small
        return dense[self.ai + 1, self.aj + self.n + 1] > 0


@njit(cache=True)
def _residual_graph(indptr, indices):
    """The residual graph of the network with CSR rows ``indptr``, ``indices`` (edge k: row u -> indices[k]):
    ``(start, to, rev, pos)`` as :func:`_max_flow_value` takes them, every edge k at ``pos[k]`` and its
    reverse (capacity 0) at ``rev[pos[k]]``, each node's edges in ``start[u]:start[u + 1]``."""
    n_nodes = indptr.size - 1
    m = indices.size
    start = np.zeros(n_nodes + 1, np.int64)
    for u in range(n_nodes):
        for k in range(indptr[u], indptr[u + 1]):
            start[u + 1] += 1
            start[indices[k] + 1] += 1
    for u in range(n_nodes):
        start[u + 1] += start[u]
    fill = start[:-1].copy()
    to = np.empty(2 * m, np.int64)
    rev = np.empty(2 * m, np.int64)
    pos = np.empty(m, np.int64)
    for u in range(n_nodes):
        for k in range(indptr[u], indptr[u + 1]):
            w = indices[k]
            a, b = fill[u], fill[w]
            fill[u] += 1
            fill[w] += 1
            to[a], rev[a] = w, b
            to[b], rev[b] = u, a
            pos[k] = a
    return start, to, rev, pos


@njit(cache=True)
def _max_flow_value(start, to, rev, cap, source, sink):
    """The value of a maximum flow from ``source`` to ``sink`` (Dinic's algorithm; integer capacities).

    The graph is a residual graph by tail node: node u's edges are ``start[u]:start[u + 1]``, edge e goes to
    ``to[e]`` with capacity ``cap[e]`` (int64, used up in place) and ``rev[e]`` is its reverse edge.
    Each phase builds BFS levels from the source, then sends flow along shortest augmenting paths found by
    a depth-first walk that skips used-up edges (current-arc pointers) until the sink is cut off.
    """
    n_nodes = start.size - 1
    level = np.empty(n_nodes, np.int64)
    queue = np.empty(n_nodes, np.int64)
    arc = np.empty(n_nodes, np.int64)
    path = np.empty(n_nodes, np.int64)
    total = 0
    while True:
        level[:] = -1                                # BFS levels over edges with capacity left
        level[source] = 0
        queue[0] = source
        head, tail = 0, 1
        while head < tail:
            u = queue[head]
            head += 1
            for e in range(start[u], start[u + 1]):
                w = to[e]
                if cap[e] > 0 and level[w] < 0:
                    level[w] = level[u] + 1
                    queue[tail] = w
                    tail += 1
        if level[sink] < 0:
            return total
        arc[:] = start[:-1]
        depth = 0
        u = source
        while True:                                  # a blocking flow, one augmenting path at a time
            if u == sink:
                f = cap[path[0]]
                for k in range(1, depth):
                    f = min(f, cap[path[k]])
                for k in range(depth):
                    cap[path[k]] -= f
                    cap[rev[path[k]]] += f
                total += f
                depth = 0
                u = source
                continue
            e = arc[u]
            end = start[u + 1]
            while e < end and (cap[e] <= 0 or level[to[e]] != level[u] + 1):
                e += 1
            arc[u] = e
            if e < end:                              # advance
                path[depth] = e
                depth += 1
                u = to[e]
            elif depth == 0:                         # the source is cut off: phase over
                break
            else:                                    # retreat: u is a dead end this phase
                level[u] = -1
                depth -= 1
                u = to[rev[path[depth]]]
                arc[u] += 1


def _caps(t: float, b: np.ndarray, v: float, n: int) -> np.ndarray:
    return np.minimum(np.floor(t * b / v + _EPS), n - 1).astype(np.int64)


def _slots(t, b_in, b_eg, v, n, need_total, deg_req, forced_in, layer):
    """The bounds of a plan at t that need no max flow: the receiver->sink capacities (each egress's free
    slots) if every ingress can send its copies and the egresses have enough slots in all, else None.
    Monotone in t; necessary for :func:`_feasible`."""
    if layer == "L3":
        if t * (1 + _EPS) < (v / b_in).max():
            return None
    elif (_caps(t, b_in, v, n) < deg_req).any():
        return None
    room = _caps(t, b_eg, v, n) - forced_in
    if (room < 0).any() or room.sum() < need_total:
        return None
    return room


def _feasible(net: _Network, t, b_in, b_eg, v, need_total, need_free, deg_req, forced_in, layer):
    """Max-flow test at t: the receiver->sink capacities if every sender can get its receivers, else None."""
    room = _slots(t, b_in, b_eg, v, net.n, need_total, deg_req, forced_in, layer)
    if room is None:
        return None
    return room if net.flow_value(need_free, room) == need_total else None


def _breakpoints(b_in, b_eg, v, n, layer, t_lo):
    """The candidate t* values >= t_lo (s), unsorted and with repeats: t = k v / b_j^E (k = 1..n-1), and
    for L7 k v / b_i^I, for L3 v / b_i^I."""
    k = np.arange(1, n)
    cands = [(k[:, None] * v / b_eg[None, :]).ravel()]
    cands.append((k[:, None] * v / b_in[None, :]).ravel() if layer == "L7" else v / b_in)
    t = np.concatenate(cands)
    return t[t >= t_lo * (1 - 1e-12)]


def _smallest_feasible(ts, feasible):
    """The smallest value of ``ts`` (unsorted, repeats allowed) at which ``feasible`` (monotone: false
    below some value, true from it on) holds, and what it returned there; ``(None, None)`` if none.

    The same value a binary search over the sorted distinct values finds, found by bisecting around
    medians (``np.partition``, linear time) instead of sorting them all."""
    best, found = None, None
    while ts.size:
        mid = ts.size // 2
        ts = np.partition(ts, mid)                   # ts[:mid] <= ts[mid] <= ts[mid + 1:]
        t = ts[mid]
        res = feasible(t)
        if res is not None:
            best, found = t, res
            ts = ts[:mid][ts[:mid] < t]
        else:
            ts = ts[mid + 1:][ts[mid + 1:] > t]
    return best, found


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

    # ---- stage 1: smallest feasible breakpoint ----
    t_lo = (v / b_in).max() if layer == "L3" else (deg_req * v / b_in).max()
    t_lo = max(t_lo, (forced_in * v / b_eg).max(), deg_req.sum() * v / b_eg.sum())
    ts = _breakpoints(b_in, b_eg, v, n, layer, t_lo)   # the largest (every port >= n - 1 slots) is feasible

    def slots_at(t):
        return _slots(t, b_in, b_eg, v, n, need_total, deg_req, forced_in, layer)

    def flow_at(t):
        return _feasible(net, t, b_in, b_eg, v, need_total, need_free, deg_req, forced_in, layer)

    # the smallest breakpoint the slot bounds allow (found without a max flow) is t* in most instances:
    # its max-flow test first, then bisection over the larger breakpoints
    t_break, _ = _smallest_feasible(ts, slots_at)
    if t_break is None:  # pragma: no cover - full broadcast is always feasible
        raise RuntimeError("no feasible plan found")
    room1 = flow_at(t_break)
    if room1 is None:
        t_break, room1 = _smallest_feasible(ts[ts > t_break], flow_at)
    if t_break is None:  # pragma: no cover
        raise RuntimeError("no feasible plan found")
    res1 = net.maxflow(net.graph(need_free, room1))  # scipy's flow at t* (its value: need_total)

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


# the module imports others with compiled functions (bsp, execute's flow network); its two kernels call none of
# them, but a cached entry must go stale with what the module imports (simlib.core.jitcache)
jitcache.track(globals())
