"""Ring all-reduce executed as flows takes exactly seed 000 Eq. (2)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.core.collectives import RingAllReduce, start_transfer
from simlib.core.costmodels import ring_allreduce_time
from simlib.core.events import Simulator
from simlib.core.network import FlowNetwork
from simlib.core.topology import BigSwitch, FullMesh
from simlib.core.units import Gbps, MB


def run_ring(bw, members, model_bits, alpha, model="rounds"):
    topo = BigSwitch.symmetric(bw)
    sim = Simulator()
    net = FlowNetwork(topo.capacities, sim)
    op = RingAllReduce(sim, net, topo, members, model_bits, alpha, model=model)
    sim.run()
    return op


@pytest.mark.parametrize("model", ["rounds", "coupled", "single"])
@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 12), seed=st.integers(0, 10_000), alpha=st.sampled_from([0.0, 1e-3, 5e-3]))
def test_ring_allreduce_as_flows_takes_eq2_exact(n, seed, alpha, model):
    rng = np.random.default_rng(seed)
    bw = np.round(20 * rng.uniform(0.05, 1, n), 3) * Gbps
    m = int(rng.integers(1, n + 1))
    members = rng.choice(n, m, replace=False).tolist()
    op = run_ring(bw, members, 500 * MB, alpha, model)
    expected = ring_allreduce_time(bw[members], 500 * MB, alpha, form="exact")
    assert op.finish_time == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_two_disjoint_rings_do_not_interfere():
    bw = np.full(6, 10 * Gbps)
    topo = BigSwitch.symmetric(bw)
    sim = Simulator()
    net = FlowNetwork(topo.capacities, sim)
    a = RingAllReduce(sim, net, topo, [0, 1, 2], 100 * MB, 0.0)
    b = RingAllReduce(sim, net, topo, [3, 4, 5], 100 * MB, 0.0)
    sim.run()
    alone = ring_allreduce_time(bw[:3], 100 * MB)
    # 2 (m-1)/m v / b = 4/3 * 800e6 / 10e9 s, by hand
    assert alone == pytest.approx(4 / 3 * 0.08)
    assert a.finish_time == pytest.approx(alone) and b.finish_time == pytest.approx(alone)


@pytest.mark.parametrize("model", ["rounds", "coupled", "single"])
def test_overlapping_rings_share_the_common_host_ports(model):
    """Rings {0,1,2} and {2,3,4} both cross host 2's uplink and downlink for their whole
    duration, so max-min gives each 5 of 10 Gbps there: each takes exactly twice Eq. (2)."""
    bw = np.full(6, 10 * Gbps)
    topo = BigSwitch.symmetric(bw)
    sim = Simulator()
    net = FlowNetwork(topo.capacities, sim)
    a = RingAllReduce(sim, net, topo, [0, 1, 2], 100 * MB, 0.0, model=model)
    b = RingAllReduce(sim, net, topo, [2, 3, 4], 100 * MB, 0.0, model=model)
    sim.run()
    alone = ring_allreduce_time(bw[:3], 100 * MB)
    assert a.finish_time == pytest.approx(2 * alone, rel=1e-12) and b.finish_time == pytest.approx(2 * alone, rel=1e-12)


def test_eq2_forms():
    b = [1.0, 5.0, 1.0, 5.0]
    assert ring_allreduce_time(b, 5.0, form="example") == 10.0  # 000 Fig. 3: 2v / min b
    assert ring_allreduce_time(b, 5.0, alpha=0.5, form="exact") == pytest.approx(2 * 3 * 0.5 + 2 * 3 / 4 * 5)
    assert ring_allreduce_time(b, 5.0, alpha=0.5, form="approx") == pytest.approx(2 * 4 * 0.5 + 10)
    assert ring_allreduce_time([3.0], 5.0, alpha=1.0) == 0.0


@pytest.mark.parametrize("kwargs, match", [
    (dict(bandwidths=[], model_bits=1.0), "bandwidths"),
    (dict(bandwidths=[0.0], model_bits=1.0), "bandwidths"),
    (dict(bandwidths=[1.0], model_bits=-1.0), "model_bits"),
    (dict(bandwidths=[1.0], model_bits=1.0, alpha=-1), "alpha"),
    (dict(bandwidths=[1.0], model_bits=1.0, form="nope"), "form"),
])
def test_cost_model_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ring_allreduce_time(**kwargs)


def test_transfer_latency_is_added_before_the_bits():
    sim = Simulator()
    net = FlowNetwork([8.0], sim)
    done = []
    start_transfer(sim, net, [0], 16.0, 0.25, lambda f: done.append(sim.now))
    sim.run()
    assert done == [pytest.approx(2.25)]


def test_full_mesh_links_are_directed():
    b = np.array([[0, 1, 2], [3, 0, 4], [5, 6, 0]], float)
    fm = FullMesh(b)
    caps = fm.capacities
    for i in range(3):
        for j in range(3):
            if i != j:
                assert caps[fm.link(i, j)] == b[i, j]
    with pytest.raises(ValueError, match="dst"):
        fm.link(1, 1)


def test_big_switch_paths_and_validation():
    topo = BigSwitch([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])
    assert topo.unicast(0, 2) == (0, 5)
    assert topo.multicast(1, [0, 2]) == (1, 3, 5)
    assert topo.capacities.tolist() == [1, 2, 3, 4, 5, 6]
    with pytest.raises(ValueError, match="dst"):
        topo.unicast(1, 1)
    with pytest.raises(ValueError, match="egress"):
        BigSwitch([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="members"):
        RingAllReduce(Simulator(), FlowNetwork(topo.capacities), topo, [0, 0], 1.0, 0.0)


@pytest.mark.parametrize("model", ["rounds", "coupled", "single"])
def test_ring_under_contention_hand_value(model):
    """A long unicast into host 0 takes half of host 0's downlink for the whole all-reduce;
    every chunk (rounds), round coflow (coupled) or the single flow into host 0 gets 5 Gbps,
    so the ring takes exactly twice its time alone, in all three models."""
    bw = np.full(4, 10 * Gbps)
    topo = BigSwitch.symmetric(bw)
    sim = Simulator()
    net = FlowNetwork(topo.capacities, sim)
    op = RingAllReduce(sim, net, topo, [0, 1, 2], 100 * MB, 0.0, model=model)
    net.add_flow(topo.unicast(3, 0), 1000 * MB)  # long competing flow into host 0
    sim.run()
    assert op.finish_time == pytest.approx(2 * ring_allreduce_time(bw[:3], 100 * MB), rel=1e-12)
