"""``FlowNetwork.run_flows`` (decision N19): a batch of flows without handles, run until idle, gives every flow
the finish time ``add_flows`` + ``run_until_idle`` gives its handle, and leaves the network as that does (clock,
ids, rate updates, solver counters), on every engine and sharing, through compactions and through the
step-by-step path."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.core.events import Simulator
from simlib.core.network import FlowNetwork


@st.composite
def batches(draw, max_flows=60):
    """Link capacities (bits/s; some 0 with ``zero``), a warm-up batch run first and the batch itself: flows
    (links, volume in bits, priority)."""
    n_links = draw(st.integers(1, 7))
    caps = [float(c) for c in draw(st.lists(st.integers(0 if draw(st.booleans()) else 1, 20),
                                            min_size=n_links, max_size=n_links))]

    def flows(lo):
        return [(sorted(draw(st.sets(st.integers(0, n_links - 1), min_size=1, max_size=3))),
                 float(draw(st.integers(0, 30))), draw(st.integers(0, 2)))
                for _ in range(draw(st.integers(lo, max_flows)))]
    return caps, flows(0), flows(1)


def _state(net):
    return (net.now, net.recomputations, list(net.recomputed_flows), net.solver_stats.tolist(), net._next_id,
            len(net))


def _both(caps, warm, batch, engine, sharing):
    """(finish times, network state) from ``run_flows`` and from the handles' path, each on its own network
    that first ran ``warm`` with handles."""
    out = []
    for handles in (False, True):
        net = FlowNetwork(caps, engine=engine, sharing=sharing)
        if warm:
            net.add_flows([ls for ls, _, _ in warm], [v for _, v, _ in warm], priorities=[p for _, _, p in warm])
            net.run_until_idle()
        if len(net):                # the warm-up left flows that cannot complete: run_flows needs an idle network
            return None
        paths, vols, prio = [ls for ls, _, _ in batch], [v for _, v, _ in batch], [p for _, _, p in batch]
        if handles:
            fl = net.add_flows(paths, vols, priorities=prio)
            net.run_until_idle()
            fin = np.array([np.nan if f.finish_time is None else f.finish_time for f in fl])
        else:
            fin = net.run_flows(paths, vols, priorities=prio)
        out.append((fin, _state(net)))
    return out


def _assert_same(pair):
    (fin_a, st_a), (fin_b, st_b) = pair
    assert fin_a.tobytes() == fin_b.tobytes()      # bit for bit, NaN where a flow could not complete
    assert st_a == st_b


@pytest.mark.parametrize("engine", ["incremental", "full"])
@pytest.mark.parametrize("sharing", ["maxmin", "priority"])
@settings(max_examples=60, deadline=None)
@given(inst=batches())
def test_run_flows_gives_the_handles_finish_times(inst, engine, sharing):
    pair = _both(*inst, engine, sharing)
    if pair is not None:
        _assert_same(pair)


@pytest.mark.parametrize("sharing", ["maxmin", "priority"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_run_flows_through_compactions(sharing, seed):
    """700 flows finishing in waves: the slots are compacted (above 256 slots, once half are done) while
    the batch runs, and each flow's finish time still lands on its own index."""
    rng = np.random.default_rng(seed)
    n_links = 40
    caps = rng.uniform(1.0, 10.0, n_links).tolist()
    batch = [(sorted(rng.choice(n_links, size=rng.integers(1, 4), replace=False).tolist()),
              float(rng.choice([1.0, 10.0, 100.0, 1000.0]) * rng.uniform(0.5, 1.5)), int(rng.integers(0, 3)))
             for _ in range(700)]
    compactions = []
    real = FlowNetwork._compact

    def counting(net):
        compactions.append(net._n_slots)
        real(net)
    try:
        FlowNetwork._compact = counting
        pair = _both(caps, [], batch, "incremental", sharing)
    finally:
        FlowNetwork._compact = real
    assert len(compactions) >= 2           # both paths compacted (at least once each)
    _assert_same(pair)
    assert not np.isnan(pair[0][0]).any()


@pytest.mark.parametrize("sharing", ["maxmin", "priority"])
@settings(max_examples=30, deadline=None)
@given(inst=batches(max_flows=300))
def test_run_flows_through_the_step_by_step_path(inst, sharing):
    """With the compiled completion loop refused (``_run_compiled`` makes no progress), both paths step
    through ``next_completion_time`` / ``advance_to``: the batch's completions are collected without handles
    there too."""
    real = FlowNetwork._run_compiled
    FlowNetwork._run_compiled = lambda self, finished: False
    try:
        pair = _both(*inst, "incremental", sharing)
    finally:
        FlowNetwork._run_compiled = real
    if pair is not None:
        _assert_same(pair)


def test_a_flow_that_cannot_complete_is_nan_and_stays_active():
    net = FlowNetwork([2.0, 0.0, 3.0])
    fin = net.run_flows([[0], [1], [0, 2]], [4.0, 1.0, 3.0])
    assert fin[1] != fin[1] and len(net) == 1
    assert fin[0] == pytest.approx(3.5) and fin[2] == pytest.approx(3.0)   # 1 bit/s each, then 2 bits/s alone
    assert not math.isnan(fin[0]) and net.active_flows == []                 # the stuck flow has no handle


def test_run_flows_refuses_an_attached_or_busy_network_and_adds_nothing():
    with pytest.raises(RuntimeError, match="stand-alone"):
        FlowNetwork([1.0], Simulator()).run_flows([[0]], 1.0)
    net = FlowNetwork([1.0, 1.0])
    net.add_flow([0], 5.0)
    with pytest.raises(ValueError, match="idle network .* got 1 active"):
        net.run_flows([[1]], 1.0)
    assert len(net) == 1 and net._next_id == 1
    with pytest.raises(ValueError, match="paths must hold link ids"):     # add_flows' checks, before anything
        FlowNetwork([1.0]).run_flows([[3]], 1.0)


def test_handles_work_again_after_a_batch():
    """After ``run_flows`` the network takes flows with handles as usual (ids continue)."""
    net = FlowNetwork([1.0, 2.0])
    net.run_flows([[0], [1], [0, 1]], [1.0, 2.0, 3.0])
    f = net.add_flow([1], 4.0)
    assert f.id == 3
    assert net.run_until_idle() == [f] and f.finish_time == pytest.approx(net.now)
