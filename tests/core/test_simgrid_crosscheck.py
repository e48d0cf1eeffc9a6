"""Cross-check against a real peer: simlib's flow network vs SimGrid's LMM solver.

Random big-switch instances (random capacities, staggered starts, random
volumes) run through both; completion times must agree to rel 1e-6.  Unicast
uses SimGrid's CM02 network model, L3 multicast its ptask_L07 host model with
the BMF solver (see simlib/simgrid_ref.py).  Skips cleanly where SimGrid is
not importable; `.ci/run` installs it so CI always runs this tier.
"""
import numpy as np
import pytest

from simlib.core import simgrid_ref
from simlib.core.events import Simulator
from simlib.core.network import FlowNetwork
from simlib.core.topology import BigSwitch
from simlib.core.units import Gbps, MB

pytestmark = [pytest.mark.simgrid,
              pytest.mark.skipif(not simgrid_ref.simgrid_available(), reason="SimGrid is not importable")]


def simlib_times(up, down, flows, multicast=False):
    topo = BigSwitch(up, down)
    sim = Simulator()
    net = FlowNetwork(topo.capacities, sim)
    handles = [None] * len(flows)

    def start(i):
        src, dst, vol, _ = flows[i]
        links = topo.multicast(src, dst) if multicast else topo.unicast(src, dst)
        handles[i] = net.add_flow(links, vol)

    for i, f in enumerate(flows):
        sim.schedule_at(f[3], start, i)
    sim.run()
    return np.array([h.finish_time for h in handles])


def random_instance(seed, hosts, n_flows, multicast=False):
    rng = np.random.default_rng(seed)
    up = rng.uniform(1, 20, hosts).round(3) * Gbps
    down = rng.uniform(1, 20, hosts).round(3) * Gbps
    flows = []
    for _ in range(n_flows):
        src = int(rng.integers(hosts))
        others = [h for h in range(hosts) if h != src]
        if multicast:
            k = int(rng.integers(1, min(4, len(others)) + 1))
            dst = sorted(rng.choice(others, k, replace=False).tolist())
        else:
            dst = int(rng.choice(others))
        flows.append((src, dst, float(rng.uniform(1, 100)) * MB, float(rng.integers(0, 5)) * 0.05))
    return up, down, flows


@pytest.mark.parametrize("seed", range(6))
def test_unicast_completion_times_match_simgrid(seed):
    up, down, flows = random_instance(seed, hosts=int(3 + seed * 3), n_flows=40 + 20 * seed)
    ours = simlib_times(up, down, flows)
    theirs = simgrid_ref.unicast_completion_times(up, down, flows)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)


@pytest.mark.parametrize("seed", range(4))
def test_l3_multicast_completion_times_match_simgrid(seed):
    up, down, flows = random_instance(100 + seed, hosts=6 + seed, n_flows=15 + 5 * seed, multicast=True)
    ours = simlib_times(up, down, flows, multicast=True)
    theirs = simgrid_ref.multicast_completion_times(up, down, flows)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
