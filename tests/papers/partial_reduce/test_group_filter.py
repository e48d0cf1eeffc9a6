"""Group-frozen avoidance (seed 002 §4): the group filter.

The queue logic of the controller is simulated by hand (no cluster): workers
arrive in a fixed order each round, a ready worker waits in the FIFO queue, and
after every arrival the controller launches groups while the filter allows.
Decision ids PRn refer to docs/decisions/partial_reduce.md.
"""
import pytest
from hypothesis import given, settings, strategies as st

from simlib.papers.partial_reduce.group_filter import GroupFilter, min_window
from simlib.papers.partial_reduce.spectral import expected_sync_matrix, spectral_rho


def simulate(rounds, n, p, filt=None):
    """Replay arrival orders; return (launched groups, number of holds)."""
    queue, log, holds = [], [], 0
    for order in rounds:
        for w in order:
            if w in queue:
                continue
            queue.append(w)
            while len(queue) >= p:
                g = queue[:p] if filt is None else filt.select(queue)
                if g is None:
                    holds += 1
                    break
                for x in g:
                    queue.remove(x)
                if filt is not None:
                    filt.record(g)
                log.append(tuple(g))
    return log, holds


def test_min_window_and_default_T():
    assert min_window(4, 2) == 3            # ceil(3/1)
    assert min_window(10, 4) == 3           # ceil(9/3)
    assert min_window(9, 3) == 4            # ceil(8/2)
    assert min_window(5, 5) == 1
    assert GroupFilter(4, 2).T == 3
    assert GroupFilter(4, 2, T=7).T == 7


def test_fifo_alone_freezes():
    # Arrival order 0,1,2,3 every round: FIFO always pairs {0,1} and {2,3}.
    log, _ = simulate([[0, 1, 2, 3]] * 6, 4, 2)
    assert set(log) == {(0, 1), (2, 3)}
    spy = GroupFilter(4, 2)
    for g in log[-3:]:
        spy.record(g)
    assert not spy.connected()
    assert spy.components() == ((0, 1), (2, 3))
    assert spectral_rho(expected_sync_matrix(log, 4)) == pytest.approx(1.0, abs=1e-12)


def test_filter_unfreezes():
    # T = 3.  Hand trace (groups launched, window after the launch):
    # round 1: (0,1) (2,3)                       window not full -> FIFO
    # round 2: (0,1) -> window {01, 23, 01}: disconnected, comps {0,1} {2,3};
    #          2, 3 queue: head 2, no queued worker outside {2,3} -> hold
    # round 3: 0 arrives, queue [2,3,0] -> bridge (2,0) -> connected;
    #          1 arrives, queue [3,1] -> FIFO (3,1); 2, 3 -> FIFO (2,3)
    # round 4: (0,1) still connected -> FIFO; (2,3) -> window {23, 01, 23}
    #          disconnected again; round 5: queue [0,1] holds (2nd hold), 2 arrives -> (0,2)
    f = GroupFilter(4, 2)
    log, holds = simulate([[0, 1, 2, 3]] * 6, 4, 2, f)
    assert log[:8] == [(0, 1), (2, 3), (0, 1), (2, 0), (3, 1), (2, 3), (0, 1), (2, 3)]
    assert log[8:10] == [(0, 2), (1, 3)]
    assert holds == 2
    # holds: round 2 (queue [2,3]) and round 5 (queue [0,1]).
    # the bridging groups connect the sync graph and rho drops below 1
    f2 = GroupFilter(4, 2)
    for g in log[:4]:
        f2.record(g)
    assert f2.connected() and f2.components() == ((0, 1, 2, 3),)
    rho = spectral_rho(expected_sync_matrix(log, 4))
    assert rho < 0.9
    # The 12 groups are {0,1} x4, {2,3} x4, {0,2} x2, {1,3} x2, so E[W] = I - L/2 with L the
    # Laplacian of the 4-cycle 0-1-3-2-0 with edge weights a = 1/3 ({0,1}, {2,3}) and
    # b = 1/6 ({1,3}, {0,2}); its eigenvalues are 0, 2a, 2b, 2(a + b) = 0, 2/3, 1/3, 1, so
    # E[W] has 1, 2/3, 5/6, 1/2 and rho = 5/6.
    assert sorted(log.count(g) for g in set(log)) == [1, 1, 1, 1, 4, 4]   # (2,0), (0,2) / (3,1), (1,3)
    assert rho == pytest.approx(5 / 6, abs=1e-12)


def test_connected_graph_passes_fifo_through():
    f = GroupFilter(5, 2)                  # T = 4
    for g in [(0, 1), (1, 2), (2, 3), (3, 4)]:
        f.record(g)
    assert f.connected()
    assert f.select([4, 3, 2, 1, 0]) == [4, 3]    # same component, FIFO anyway
    assert f.select([0, 1]) == [0, 1]


def test_window_not_full_is_fifo():
    f = GroupFilter(4, 2)
    f.record((0, 1))
    f.record((0, 1))
    assert not f.connected()
    assert f.select([0, 1, 2]) == [0, 1]          # only 2 < T = 3 groups recorded


def test_window_drops_old_groups():
    f = GroupFilter(4, 2, T=3)
    for g in [(1, 2), (0, 1), (2, 3)]:
        f.record(g)
    assert f.connected()
    f.record((0, 1))                               # (1,2) falls out of the window
    assert f.groups == ((0, 1), (2, 3), (0, 1))
    assert f.components() == ((0, 1), (2, 3))
    assert f.labels().tolist() in ([0, 0, 1, 1], [1, 1, 0, 0])


def test_bridge_with_p3_fills_fifo():
    # n = 6, p = 3, T = ceil(5/2) = 3; components {0,1,2} and {3,4,5}.
    f = GroupFilter(6, 3)
    for g in [(0, 1, 2), (3, 4, 5), (0, 1, 2)]:
        f.record(g)
    assert not f.connected()
    # head 1; earliest worker outside {0,1,2} is 4; then FIFO fill: 2
    assert f.select([1, 2, 4, 0, 5]) == [1, 4, 2]
    assert f.select([5, 3, 4, 0]) == [5, 0, 3]
    assert f.select([0, 1, 2]) is None             # all in the head's component


def test_three_components_bridge_any_other():
    f = GroupFilter(6, 2, T=5)
    for g in [(0, 1), (2, 3), (4, 5), (0, 1), (2, 3)]:
        f.record(g)
    assert f.components() == ((0, 1), (2, 3), (4, 5))
    assert f.select([0, 1, 5, 2]) == [0, 5]


def test_max_hold():
    f = GroupFilter(4, 2, max_hold=2)
    for g in [(0, 1), (2, 3), (0, 1)]:
        f.record(g)
    assert f.select([2, 3]) is None and f.holds == 1
    assert f.select([2, 3]) is None and f.holds == 2
    assert f.select([2, 3]) == [2, 3] and f.holds == 0        # gave up -> FIFO
    f0 = GroupFilter(4, 2, max_hold=0)
    for g in [(0, 1), (2, 3), (0, 1)]:
        f0.record(g)
    assert f0.select([2, 3]) == [2, 3]                        # never waits
    assert f0.select([2, 3, 1]) == [2, 1]                     # but bridges when it can


def test_validation_errors():
    with pytest.raises(ValueError, match=r"n must be an integer in \[2, inf\)"):
        GroupFilter(1, 2)
    with pytest.raises(ValueError, match=r"p must be an integer in \[2, 4\]"):
        GroupFilter(4, 5)
    with pytest.raises(ValueError, match=r"p must be an integer in \[2, 4\]"):
        GroupFilter(4, 1)
    with pytest.raises(ValueError, match=r"T must be an integer in \[3, inf\)"):
        GroupFilter(4, 2, T=2)
    with pytest.raises(ValueError, match=r"max_hold must be an integer in \[0, inf\)"):
        GroupFilter(4, 2, max_hold=-1)
    f = GroupFilter(4, 2)
    with pytest.raises(ValueError, match=r"group\[1\] must be an integer in \[0, 3\]"):
        f.record((0, 4))
    with pytest.raises(ValueError, match="distinct"):
        f.record((1, 1))
    with pytest.raises(ValueError, match="at least p = 2"):
        f.select([0])
    with pytest.raises(ValueError, match="distinct"):
        f.select([0, 0, 1])
    with pytest.raises(ValueError, match=r"queue\[0\] must be an integer"):
        f.select([-1, 2])


@settings(max_examples=150, deadline=None)
@given(n=st.integers(2, 8), data=st.data())
def test_select_returns_p_distinct_queued_workers(n, data):
    p = data.draw(st.integers(2, n))
    T = min_window(n, p) + data.draw(st.integers(0, 3))
    f = GroupFilter(n, p, T=T)
    for _ in range(data.draw(st.integers(0, 2 * T))):
        f.record(tuple(data.draw(st.permutations(range(n)))[:p]))
    perm = data.draw(st.permutations(range(n)))
    queue = list(perm[: data.draw(st.integers(p, n))])
    g = f.select(queue)
    if f.window_full and not f.connected():
        lab = f.labels()
        if all(lab[w] == lab[queue[0]] for w in queue):
            assert g is None
            return
        assert g[0] == queue[0] and lab[g[1]] != lab[g[0]]
    else:
        assert g == queue[:p]
    assert len(g) == p and len(set(g)) == p and set(g) <= set(queue)
    assert all(type(w) is int for w in g)
    if len(queue) == n:                            # a full queue never waits
        assert g is not None
