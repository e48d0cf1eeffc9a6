"""AD-PSGD and Eager-Reduce on the flow engine (decisions AD1, ER1-ER2)."""
import numpy as np
import pytest

from simlib.core.topology import BigSwitch
from simlib.runtime.cluster import Cluster, ComputeTimes, ScriptedComputeTimes
from simlib.runtime.controller import ControllerBase
from simlib.runtime.decentralized import (ADPSGDController, EagerReduceController, PairwiseExchange, WholeRing,
                                          quorum_size)

B = 1e9
M = 8e8


def ad_run(times, seed=0, model_bits=M, alpha=0.0, duration=10.0, compute=None):
    n = len(times) if compute is None else compute
    ct = ScriptedComputeTimes(times) if compute is None else times
    cl = Cluster(BigSwitch.symmetric([B] * n), PairwiseExchange(model_bits, alpha), ct,
                 ADPSGDController(np.random.default_rng(seed)), duration=duration)
    return cl.run()


def er_run(times, quorum, model_bits=1.0, alpha=0.0, duration=10.0):
    n = len(times)
    cl = Cluster(BigSwitch.symmetric([B] * n), WholeRing(model_bits, alpha), ScriptedComputeTimes(times),
                 EagerReduceController(quorum), duration=duration)
    return cl.run()


def test_adpsgd_neighbour_is_passive_and_the_exchange_is_two_flows():
    """3 workers computing 1, 1.5, 2.2 s; worker 0's exchange with j at 1 s moves M/2 each way alone on
    its ports (M / 2B = 0.4 s, over before worker 1 is ready), and j keeps computing meanwhile."""
    log = ad_run([[1.0] * 3, [1.5] * 3, [2.2] * 3], model_bits=M / 2, duration=3.0)
    first = log.syncs[0]
    assert first.launch == 1.0 and first.members[0] == 0 and first.members[1] in (1, 2)
    assert first.finish - first.launch == pytest.approx(M / 2 / B, rel=1e-12)
    assert log.compute_end[first.members[1]][0] == [1.5, 2.2][first.members[1] - 1]   # the neighbour did not wait
    for r in log.syncs:
        assert len(r.members) == 2 and r.members[0] != r.members[1]
        assert r.weights is None and r.targets is None                   # both replicas become the mean
        i, j = r.members
        # the initiator averages before its step: the record precedes its compute end at launch
        assert log.compute_end[i][r.iterations[0]] == r.launch
        assert r.computing[0] == i
        # the neighbour is listed as computing exactly when it is in the middle of a local step
        busy = not any(s.members[0] == j and s.launch <= r.launch < (s.finish or np.inf) for s in log.syncs)
        assert (j in r.computing) == busy
    assert log.update_rule == "average"


def test_adpsgd_neighbours_are_uniform_over_the_others_and_seeded():
    ct = ComputeTimes(lambda rng, k: rng.uniform(0.5, 1.5, k), 3, np.random.SeedSequence(1))
    log = ad_run(ct, compute=3, model_bits=1.0, duration=2000.0, seed=4)
    pairs = np.array([r.members for r in log.syncs])
    for i in range(3):
        nb = pairs[pairs[:, 0] == i, 1]
        assert i not in nb
        share = np.mean(nb == (i + 1) % 3)
        assert abs(share - 0.5) < 4 * np.sqrt(0.25 / nb.size)            # binomial, 4 standard deviations
    again = ad_run(ComputeTimes(lambda rng, k: rng.uniform(0.5, 1.5, k), 3, np.random.SeedSequence(1)),
                   compute=3, model_bits=1.0, duration=2000.0, seed=4)
    assert [r.members for r in again.syncs] == [tuple(p) for p in pairs]
    other = ad_run(ComputeTimes(lambda rng, k: rng.uniform(0.5, 1.5, k), 3, np.random.SeedSequence(1)),
                   compute=3, model_bits=1.0, duration=2000.0, seed=5)
    assert [r.members for r in other.syncs] != [tuple(p) for p in pairs]


def test_eager_reduce_majority_rounds_on_a_hand_worked_schedule():
    """n = 4, majority = 3, workers compute 1, 1.1, 1.2, 2.5 s, transfers ~0.  Round 1 at 1.2: {0, 1, 2};
    they are ready again at 2.2, 2.3, 2.4: round 2 at 2.4: {0, 1, 2}; worker 3 (ready at 2.5, gradient on
    version 0) joins workers 0 and 1 (ready at 3.4, 3.5) in round 3 at 3.5: its gradient is two rounds stale."""
    log = er_run([[1.0] * 9, [1.1] * 9, [1.2] * 9, [2.5] * 9], "majority", duration=3.55)
    assert [r.members for r in log.syncs] == [(0, 1, 2), (0, 1, 2), (3, 0, 1)]
    assert [r.launch for r in log.syncs] == pytest.approx([1.2, 2.4, 3.5], abs=1e-6)
    assert [r.versions for r in log.syncs] == [(0, 0, 0), (1, 1, 1), (0, 2, 2)]
    assert all(r.weights == (0.25,) * 3 for r in log.syncs)              # factor 1/n: the late ones add zero
    assert log.update_rule == "gradient"
    # the knob: solo rounds start with the first ready worker
    solo = er_run([[1.0] * 9, [1.1] * 9, [1.2] * 9, [2.5] * 9], "solo", duration=1.15)
    assert [r.members for r in solo.syncs] == [(0,), (1,)]
    assert quorum_size("majority", 8) == 5 and quorum_size("solo", 8) == 1 and quorum_size("majority", 3) == 2


def test_eager_reduce_rounds_use_every_port_and_never_overlap():
    """A round is a ring all-reduce over all n = 4 ports whatever its members: 2 (n-1)/n M / B = 1.2 s."""
    log = er_run([[1.0] * 9, [1.1] * 9, [1.2] * 9, [2.5] * 9], "solo", model_bits=M, duration=20.0)
    for a, b in zip(log.syncs, log.syncs[1:]):
        assert b.launch >= a.finish
    assert all(r.finish - r.launch == pytest.approx(2 * 3 / 4 * M / B, rel=1e-12) for r in log.syncs if r.finish)
    assert {len(r.members) for r in log.syncs} != {4}


def test_passive_members_are_checked():
    cl = Cluster(BigSwitch.symmetric([B] * 3), PairwiseExchange(1.0, 0.0), ScriptedComputeTimes([[1.0]] * 3),
                 ADPSGDController(np.random.default_rng(0)), duration=5.0)
    cl.phase[0] = 1                                                     # READY
    with pytest.raises(ValueError, match="passive"):
        cl.launch((0,), passive=(0,))
    with pytest.raises(ValueError, match="passive"):
        cl.launch((0,), passive=(3,))
    with pytest.raises(ValueError, match="quorum"):
        EagerReduceController("all")


def ad_block_run(times, passive, model_bits=M / 2, duration=10.0, seed=0):
    cl = Cluster(BigSwitch.symmetric([B] * len(times)), PairwiseExchange(model_bits, 0.0), ScriptedComputeTimes(times),
                 ADPSGDController(np.random.default_rng(seed), passive=passive), duration=duration)
    return cl.run()


def test_adpsgd_blocking_neighbour_pauses_for_the_exchange():
    """AD3 by hand: 2 workers computing 1 s and 2.3 s, an exchange of 0.4 s (M/2 at B).  Worker 0 starts
    exchanges at 1 s and 2.4 s (1 + 0.4 + 1), both with worker 1.  Computing on, worker 1 ends its step
    at 2.3 s; blocked, it pauses 0.4 s twice (1-1.4 s, 2.4-2.8 s, with 0.3 s left): 3.1 s."""
    free = ad_block_run([[1.0] * 9, [2.3] * 9], "compute", duration=3.3)
    held = ad_block_run([[1.0] * 9, [2.3] * 9], "block", duration=3.3)
    assert free.compute_end[1][0] == pytest.approx(2.3)
    assert held.compute_end[1][0] == pytest.approx(3.1)
    assert [r.launch for r in held.syncs if r.members[0] == 0][:2] == pytest.approx([1.0, 2.4])
    # the initiator's own schedule does not change
    assert held.compute_end[0][:2] == free.compute_end[0][:2]


class _Fixed:
    """A collective that takes ``t`` seconds whoever syncs."""

    def __init__(self, t):
        self.t = t

    def attach(self, sim, net, topo):
        self.sim = sim

    def start(self, members, on_done):
        self.sim.schedule(self.t, on_done)


class _Alone(ControllerBase):
    def on_ready(self, w, compute_time):
        self.cluster.launch((w,))


@pytest.mark.parametrize("block_at, unblock_at, ends", [
    (0.5, 0.8, [1.3, 2.8]),       # mid-step: the step pauses 0.3 s (1 s compute, 0.5 s sync)
    (1.2, 2.0, [1.0, 3.0]),       # mid-sync: the next step waits for the unblock (not 1.5 s) and runs 2-3 s
    (1.2, 1.4, [1.0, 2.5]),       # unblocked before its sync ends: nothing changes
])
def test_a_blocked_worker_pauses_or_waits(block_at, unblock_at, ends):
    """Cluster.block/unblock (AD3's mechanism) on one worker computing 1 s with 0.5 s syncs."""
    cl = Cluster(BigSwitch.symmetric([B]), _Fixed(0.5), ScriptedComputeTimes([[1.0] * 9]), _Alone(), duration=3.1)
    cl.sim.schedule(block_at, cl.block, 0)
    cl.sim.schedule(unblock_at, cl.unblock, 0)
    log = cl.run()
    assert log.compute_end[0][:2] == pytest.approx(ends)
    with pytest.raises(ValueError, match="not blocked"):
        cl.unblock(0)
    with pytest.raises(ValueError, match="passive"):
        ADPSGDController(np.random.default_rng(0), passive="wait")


def ad_atomic_run(times, atomic, passive="compute", model_bits=M / 2, duration=10.0, seed=0, engine="python"):
    ctrl = ADPSGDController(np.random.default_rng(seed), passive=passive, atomic=atomic)
    cl = Cluster(BigSwitch.symmetric([B] * len(times)), ctrl.exchange(model_bits, 0.0), ScriptedComputeTimes(times),
                 ctrl, duration=duration)
    return cl.run(engine=engine)


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_adpsgd_atomic_exchange_waits_for_a_busy_neighbour(engine):
    """AD4 by hand: 2 workers computing 1 s and 1.2 s, exchanges of 0.4 s alone (M/2 at B), so every
    exchange is between workers 0 and 1.  Worker 0's exchange starts at 1 s; worker 1 is ready at 1.2 s
    while that exchange holds it.  Atomic: its exchange waits until 1.4 s and runs alone 1.4-1.8 s;
    worker 0 computes again from 1.4 s (second step ends 2.4 s).  Without locks both run at once,
    sharing each port: worker 0's has 0.2 s of flow left at half rate (ends 1.6 s, its next step 2.6 s),
    then worker 1's its last 0.2 s alone (ends 1.8 s either way)."""
    free = ad_atomic_run([[1.0] * 9, [1.2] * 9], False, duration=3.05, engine=engine)
    held = ad_atomic_run([[1.0] * 9, [1.2] * 9], True, duration=3.05, engine=engine)
    first0, first1 = (next(r for r in held.syncs if r.members[0] == w) for w in (0, 1))
    assert first0.launch == pytest.approx(1.0) and first0.finish == pytest.approx(1.4)
    assert first1.launch == pytest.approx(1.2)          # launched (and averaged, RP2) when ready ...
    assert first1.finish == pytest.approx(1.8)          # ... its flows waited for the lock: 1.4 + 0.4
    assert held.compute_end[0][:2] == pytest.approx([1.0, 2.4])
    f0, f1 = (next(r for r in free.syncs if r.members[0] == w) for w in (0, 1))
    assert (f0.finish, f1.finish) == pytest.approx((1.6, 1.8))
    assert free.compute_end[0][:2] == pytest.approx([1.0, 2.6])


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_adpsgd_atomic_waits_only_for_held_workers_and_blocks_from_the_start(engine):
    """3 workers: an exchange of two free workers starts at once (no wait without a held lock), and with
    ``passive="block"`` the neighbour is blocked from the start of the flows, not while the exchange waits."""
    held = ad_atomic_run([[1.0] * 9, [5.0] * 9, [5.0] * 9], True, duration=1.5, engine=engine)
    (r,) = held.syncs
    assert r.launch == pytest.approx(1.0) and r.finish == pytest.approx(1.4)
    blk = ad_atomic_run([[1.0] * 9, [1.2] * 9], True, passive="block", duration=3.05, engine=engine)
    # worker 0 is the neighbour of worker 1's exchange (1.4-1.8 s) and blocked then: its second step,
    # started at 1.4 s, pauses 0.4 s and ends at 2.8 s (not 2.4 s)
    assert blk.compute_end[0][:2] == pytest.approx([1.0, 2.8])
    with pytest.raises(ValueError, match="atomic"):
        Cluster(BigSwitch.symmetric([B] * 2), PairwiseExchange(M, 0.0), ScriptedComputeTimes([[1.0], [1.0]]),
                ADPSGDController(np.random.default_rng(0), atomic=True), duration=1.0)
    with pytest.raises(ValueError, match="atomic"):
        ADPSGDController(np.random.default_rng(0), atomic="yes")
