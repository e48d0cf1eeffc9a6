"""The max-flow optimum's compiled value test (Dinic) against scipy's maximum_flow, and its t* search."""
import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from scipy.sparse.csgraph import maximum_flow

from simlib.papers.selmcast.optimal_flow import (_Network, _max_flow_value, _residual_graph, optimal_flow,
                                                  _smallest_feasible)


def _value(dense: np.ndarray, s: int, t: int) -> int:
    g = sp.csr_array(dense.astype(np.int32))
    start, to, rev, pos = _residual_graph(g.indptr.astype(np.int32), g.indices.astype(np.int32))
    cap = np.zeros(to.size, dtype=np.int64)
    cap[pos] = g.data
    return int(_max_flow_value(start, to, rev, cap, s, t))


def test_hand_worked_network():
    # s=0 -> 1 (cap 3), s -> 2 (cap 2), 1 -> 2 (cap 5), 1 -> t=3 (cap 2), 2 -> t (cap 3).
    # The cut {s} | rest has capacity 3 + 2 = 5 and the paths s-1-t (2), s-2-t (2), s-1-2-t (1) carry 5.
    c = np.zeros((4, 4), dtype=int)
    c[0, 1], c[0, 2], c[1, 2], c[1, 3], c[2, 3] = 3, 2, 5, 2, 3
    assert _value(c, 0, 3) == 5
    # with 2 -> t cut to 1 the cut {s, 1, 2} | {t} binds: 2 + 1 = 3
    c[2, 3] = 1
    assert _value(c, 0, 3) == 3
    # no path at all
    assert _value(c, 3, 0) == 0


def test_augmenting_path_needs_a_reverse_edge():
    # s=0 -> a=1, s -> b=2, a -> c=3, a -> d=4, b -> c, c -> t=5, d -> t, all capacity 1.
    # The greedy path s-a-c-t blocks b; the maximum (2: s-a-d-t, s-b-c-t) sends flow back over a -> c.
    c = np.zeros((6, 6), dtype=int)
    for u, w in [(0, 1), (0, 2), (1, 3), (1, 4), (2, 3), (3, 5), (4, 5)]:
        c[u, w] = 1
    assert _value(c, 0, 5) == 2


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_value_equals_scipy_on_random_networks(data):
    n = data.draw(st.integers(2, 9))
    dense = np.array(data.draw(st.lists(st.integers(0, 6), min_size=n * n, max_size=n * n))).reshape(n, n)
    dense *= np.array(data.draw(st.lists(st.booleans(), min_size=n * n, max_size=n * n))).reshape(n, n)
    np.fill_diagonal(dense, 0)
    s = data.draw(st.integers(0, n - 1))
    t = data.draw(st.integers(0, n - 1).filter(lambda k: k != s))
    expected = maximum_flow(sp.csr_array(dense.astype(np.int32)), s, t).flow_value
    assert _value(dense, s, t) == expected


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_value_equals_scipy_on_selection_networks(data):
    # the bipartite network optimal_flow tests: source -> sender (need) -> allowed receiver (1) -> sink (room)
    n = data.draw(st.integers(2, 12))
    allowed = np.array(data.draw(st.lists(st.booleans(), min_size=n * n, max_size=n * n))).reshape(n, n)
    np.fill_diagonal(allowed, False)
    need = np.array(data.draw(st.lists(st.integers(0, n), min_size=n, max_size=n)))
    room = np.array(data.draw(st.lists(st.integers(0, n), min_size=n, max_size=n)))
    net = _Network(allowed)
    assert net.flow_value(need, room) == net.maxflow(net.graph(need, room)).flow_value


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.integers(0, 30), max_size=60), threshold=st.integers(-1, 32))
def test_smallest_feasible_is_the_least_value_past_the_threshold(values, threshold):
    ts = np.array(values, dtype=float)
    seen = []

    def feasible(t):
        seen.append(t)
        return ("ok", t) if t >= threshold else None

    best, found = _smallest_feasible(ts, feasible)
    above = [v for v in values if v >= threshold]
    if above:
        assert best == min(above) and found == ("ok", min(above))
    else:
        assert best is None and found is None
    assert len(seen) <= max(len(values), 1).bit_length() + 1    # bisection: about log2 tests


def test_t_star_above_the_slot_bound():
    # n = 3, L7, v = 1, b_in = [7, 3, 6], b_eg = [7, 2, 6], p = [2, 1, 2]: 5 receivers needed.  The egress
    # slots min(floor(t b_eg), 2) first sum to 5 at t = 1/2 ([2, 1, 2]; at 3/7: [2, 0, 2]), but senders 0 and
    # 2 must each reach both others, so receiver 1 needs 2 slots: t* = 1 (b_eg[1] = 2), where every port has
    # 2 slots and all 6 pairs fit.  The search must test past the slot bound.
    res = optimal_flow([7.0, 3.0, 6.0], [7.0, 2.0, 6.0], [2, 1, 2], 1.0, "L7")
    assert res.t_star == 1.0
    assert res.n_receivers == 6
    assert res.n_maxflow > 3           # the slot bound's test failed: more value tests, then scipy's two flows
