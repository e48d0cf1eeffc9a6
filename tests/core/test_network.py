"""The flow-level network: analytic cases, dynamic cross-check against an
independent slow simulator built on the exact reference solver, invariants."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.core.events import Simulator
from simlib.core.maxmin import reference_rates
from simlib.core.network import FlowNetwork


def test_flows_on_one_link_finish_at_processor_sharing_times():
    net = FlowNetwork([3.0])
    for v in (1.0, 2.0, 3.0):
        net.add_flow([0], v)
    done = net.run_until_idle()
    # 3 flows at 1 bit/s: first done at 1; then 1.5 each: second at 1 + 1/1.5; last at 2
    assert [f.id for f in done] == [0, 1, 2]
    assert [f.finish_time for f in done] == pytest.approx([1.0, 1.0 + 1 / 1.5, 2.0], rel=1e-12)


def test_attached_mode_calls_on_done_at_completion_times():
    sim = Simulator()
    net = FlowNetwork([10.0, 5.0], sim)
    log = []
    net.add_flow([0, 1], 10.0, on_done=lambda f: log.append(("a", sim.now)))
    sim.schedule(1.0, lambda: net.add_flow([0], 10.0, on_done=lambda f: log.append(("b", sim.now))))
    sim.run()
    # a alone: 5 bit/s (link 1). At t=1, a has 5 left; link 0: a capped at 5 by link 1, b gets 5.
    # a finishes at 2; then b alone at 10 with 5 left: finishes at 2.5
    assert log == [("a", pytest.approx(2.0)), ("b", pytest.approx(2.5))]


def test_multicast_runs_at_the_rate_of_its_slowest_receiver_and_speeds_up_when_dropped():
    # links: 0 = sender ingress (10), 1..3 = receiver egresses (10, 2, 10)
    sim = Simulator()
    net = FlowNetwork([10.0, 10.0, 2.0, 10.0], sim)
    mc = net.add_flow([0, 1, 2, 3], 20.0)
    sim.schedule(1.0, lambda: net.drop_link(mc, 2))  # slow receiver dropped after 2 bits
    sim.run()
    assert mc.finish_time == pytest.approx(1.0 + 18.0 / 10.0)


def test_remove_flow_returns_remaining_bits_and_frees_capacity():
    net = FlowNetwork([4.0])
    a = net.add_flow([0], 8.0)
    b = net.add_flow([0], 8.0)
    assert net.advance_to(1.0) == []
    assert net.remove_flow(a) == pytest.approx(6.0)
    assert b.rate == 4.0
    assert net.run_until_idle()[0].finish_time == pytest.approx(1.0 + 6.0 / 4.0)


def test_zero_volume_flow_completes_immediately_and_zero_capacity_stalls():
    net = FlowNetwork([0.0, 1.0])
    z = net.add_flow([1], 0.0)
    stuck = net.add_flow([0], 1.0)
    done = net.run_until_idle()
    assert done == [z] and z.finish_time == 0.0
    assert stuck.active and net.next_completion_time() == math.inf


def test_capacity_change_takes_effect_from_now():
    sim = Simulator()
    net = FlowNetwork([1.0], sim)
    f = net.add_flow([0], 3.0)
    sim.schedule(1.0, net.set_capacity, 0, 2.0)
    sim.run()
    assert f.finish_time == pytest.approx(2.0)


def test_priority_sharing_is_fcfs_when_classes_follow_arrival():
    net = FlowNetwork([1.0], sharing="priority")
    a = net.add_flow([0], 1.0, priority=0)
    b = net.add_flow([0], 1.0, priority=1)
    net.run_until_idle()
    assert (a.finish_time, b.finish_time) == (pytest.approx(1.0), pytest.approx(2.0))


def test_handles_survive_slot_compaction():
    net = FlowNetwork([1.0] * 4)
    flows = [net.add_flow([i % 4], float(i + 1)) for i in range(600)]
    net.advance_to(net.next_completion_time())
    while len(net) > 100:
        net.advance_to(net.next_completion_time())
    for f in flows:
        if f.active:
            assert 0 < f.remaining <= f.volume
            assert f.rate > 0
    done = net.run_until_idle()
    assert all(not f.active and f.finish_time is not None for f in flows)
    assert len(done) + 500 >= 600


@pytest.mark.parametrize("kwargs, match", [
    (dict(links=[5], volume=1.0), "links"),
    (dict(links=[0, 0], volume=1.0), "links"),
    (dict(links=[0], volume=-1.0), "volume"),
    (dict(links=[0], volume=1.0, priority=-1), "priority"),
])
def test_bad_flow_parameters_are_rejected(kwargs, match):
    net = FlowNetwork([1.0, 1.0])
    with pytest.raises(ValueError, match=match):
        net.add_flow(**kwargs)
    assert len(net) == 0


@st.composite
def flow_batches(draw):
    """Links, then batches (start time, [(links, volume, priority)]) of flows."""
    n_links = draw(st.integers(1, 6))
    caps = [float(c) for c in draw(st.lists(st.integers(1, 20), min_size=n_links, max_size=n_links))]
    batches = []
    for t in sorted(draw(st.lists(st.integers(0, 8), min_size=1, max_size=4))):
        flows = [(sorted(draw(st.sets(st.integers(0, n_links - 1), min_size=1, max_size=3))),
                  float(draw(st.integers(0, 30))), draw(st.integers(0, 2)))
                 for _ in range(draw(st.integers(1, 40)))]
        batches.append((t / 2, flows))
    return caps, batches


def _run_batches(caps, batches, engine, sharing, batched):
    net = FlowNetwork(caps, engine=engine, sharing=sharing)
    handles, finish = [], {}
    for t, flows in batches:
        while net.next_completion_time() <= t:
            for f in net.advance_to(net.next_completion_time()):
                finish[f.tag] = f.finish_time
        for f in net.advance_to(t):
            finish[f.tag] = f.finish_time
        tags = list(range(len(handles), len(handles) + len(flows)))
        if batched:
            handles += net.add_flows([ls for ls, _, _ in flows], [v for _, v, _ in flows],
                                     priorities=[p for _, _, p in flows], tags=tags)
        else:
            handles += [net.add_flow(ls, v, priority=p, tag=tag) for (ls, v, p), tag in zip(flows, tags)]
    for f in net.run_until_idle():
        finish[f.tag] = f.finish_time
    return handles, finish


@pytest.mark.parametrize("engine", ["incremental", "full"])
@pytest.mark.parametrize("sharing", ["maxmin", "priority"])
@settings(max_examples=60, deadline=None)
@given(inst=flow_batches())
def test_add_flows_is_add_flow_on_each_flow_in_order(inst, engine, sharing):
    caps, batches = inst
    h1, fin1 = _run_batches(caps, batches, engine, sharing, batched=True)
    h2, fin2 = _run_batches(caps, batches, engine, sharing, batched=False)
    assert [(f.id, f.links, f.volume, f.priority, f.start_time) for f in h1] == \
        [(f.id, f.links, f.volume, f.priority, f.start_time) for f in h2]
    assert fin1.keys() == fin2.keys() == set(range(len(h1)))
    for k in fin1:
        assert fin1[k] == pytest.approx(fin2[k], rel=1e-12, abs=1e-12)


def test_add_flows_takes_a_2d_array_of_paths():
    caps = [3.0, 5.0, 7.0, 11.0]
    paths = np.array([[0, 2], [1, 3], [0, 3], [1, 2], [0, 2]])
    net_a, net_b = FlowNetwork(caps), FlowNetwork(caps)
    a = net_a.add_flows(paths, [8.0, 9.0, 10.0, 11.0, 12.0])
    b = net_b.add_flows([tuple(p) for p in paths.tolist()], [8.0, 9.0, 10.0, 11.0, 12.0])
    net_a.run_until_idle()
    net_b.run_until_idle()
    assert [f.finish_time for f in a] == [f.finish_time for f in b]
    assert all(f.links == tuple(p) for f, p in zip(a, paths.tolist()))


@pytest.mark.parametrize("kwargs, match", [
    (dict(paths=[[0], [5]], volumes=1.0), r"paths must hold link ids in \[0, 1\], got 5"),
    (dict(paths=[[0], [1, 1]], volumes=1.0), "path 1 does"),
    (dict(paths=[[0], [1]], volumes=[1.0, -1.0]), "volumes"),
    (dict(paths=[[0], [1]], volumes=1.0, priorities=[0, -1]), "priorities"),
    (dict(paths=[[0], [1]], volumes=1.0, tags=[1]), "tags"),
])
def test_bad_batches_are_rejected_and_add_nothing(kwargs, match):
    net = FlowNetwork([1.0, 1.0])
    net.add_flow([0], 1.0)
    with pytest.raises(ValueError, match=match):
        net.add_flows(**kwargs)
    assert len(net) == 1 and net._next_id == 1


def test_bad_capacities_rejected():
    with pytest.raises(ValueError, match="capacities"):
        FlowNetwork([1.0, -2.0])
    with pytest.raises(ValueError, match="sharing"):
        FlowNetwork([1.0], sharing="fair")


def test_finished_flow_cannot_be_removed():
    net = FlowNetwork([1.0])
    f = net.add_flow([0], 1.0)
    net.run_until_idle()
    with pytest.raises(ValueError, match="flow must be active"):
        net.remove_flow(f)


# ---------------------------------------------------------------- dynamic cross-check
def slow_simulation(caps, arrivals, drops, sharing):
    """Independent event loop over the exact reference solver.

    arrivals: list of (time, links, volume, prio); drops: list of (time, flow index, link).
    Returns completion times per flow.
    """
    events = sorted([(t, 0, i) for i, (t, *_r) in enumerate(arrivals)] +
                    [(t, 1, k) for k, (t, *_r) in enumerate(drops)])
    links = {}
    remaining = {}
    finish = [None] * len(arrivals)
    now = 0.0
    ei = 0
    while ei < len(events) or remaining:
        active = sorted(remaining)
        if active:
            r = reference_rates(caps, [links[i] for i in active],
                                [arrivals[i][3] for i in active] if sharing == "priority" else None)
            rates = {i: float(x) for i, x in zip(active, r)}
            dts = [remaining[i] / rates[i] if rates[i] > 0 else math.inf for i in active]
            t_done = now + min(dts)
        else:
            rates, t_done = {}, math.inf
        t_ev = events[ei][0] if ei < len(events) else math.inf
        if t_done == math.inf and t_ev == math.inf:
            break
        t = min(t_done, t_ev)
        for i in active:
            remaining[i] -= rates[i] * (t - now) if rates[i] != math.inf else remaining[i]
        now = t
        for i in active:
            if remaining[i] <= max(1e-9 * arrivals[i][2], 1e-9):
                finish[i] = now
                del remaining[i]
        while ei < len(events) and events[ei][0] <= now:
            _, kind, k = events[ei]
            ei += 1
            if kind == 0:
                links[k] = list(arrivals[k][1])
                remaining[k] = arrivals[k][2]
                if arrivals[k][2] == 0:
                    finish[k] = now
                    del remaining[k]
            else:
                _, fi, l = drops[k]
                if fi in remaining and l in links[fi] and len(links[fi]) > 1:
                    links[fi].remove(l)
    return finish


@st.composite
def dynamic_instances(draw):
    n_links = draw(st.integers(1, 5))
    caps = draw(st.lists(st.integers(1, 20), min_size=n_links, max_size=n_links))
    n_flows = draw(st.integers(1, 8))
    arrivals = []
    for _ in range(n_flows):
        t = draw(st.integers(0, 6)) / 2
        ls = sorted(draw(st.sets(st.integers(0, n_links - 1), min_size=1, max_size=n_links)))
        vol = float(draw(st.integers(1, 40)))
        arrivals.append((t, ls, vol, draw(st.integers(0, 2))))
    drops = []
    for _ in range(draw(st.integers(0, 3))):
        fi = draw(st.integers(0, n_flows - 1))
        t = arrivals[fi][0] + draw(st.integers(1, 4)) / 4
        drops.append((t, fi, draw(st.sampled_from(arrivals[fi][1]))))
    return caps, arrivals, drops


@pytest.mark.parametrize("sharing", ["maxmin", "priority"])
@settings(max_examples=150, deadline=None)
@given(inst=dynamic_instances())
def test_dynamic_completion_times_match_independent_slow_simulator(inst, sharing):
    caps, arrivals, drops = inst
    expected = slow_simulation(caps, arrivals, drops, sharing)
    sim = Simulator()
    net = FlowNetwork(caps, sim, sharing=sharing)
    handles = [None] * len(arrivals)
    loads_ok = []

    def arrive(i):
        _, ls, vol, prio = arrivals[i]
        handles[i] = net.add_flow(ls, vol, priority=prio)

    def drop(fi, link):
        f = handles[fi]
        if f is not None and f.active and link in f.links and len(f.links) > 1:
            net.drop_link(f, link)

    def check_load():
        loads_ok.append(bool(np.all(net.link_load() <= np.asarray(caps) * (1 + 1e-9))))

    # drops are ordered after arrivals at equal times, like the slow simulator
    for i, (t, *_r) in enumerate(arrivals):
        sim.schedule_at(t, arrive, i)
    for t, fi, l in drops:
        sim.schedule_at(t, drop, fi, l)
    for k in range(1, 40):
        sim.schedule_at(k * 0.37, check_load)
    sim.run()
    got = [h.finish_time for h in handles]
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert all(loads_ok)


@settings(max_examples=100, deadline=None)
@given(inst=dynamic_instances())
def test_volume_is_conserved_over_time(inst):
    """Integrating each flow's rate between events gives back exactly its volume."""
    caps, arrivals, _ = inst
    net = FlowNetwork(caps)
    pending = sorted(range(len(arrivals)), key=lambda i: arrivals[i][0])
    sent = {}
    flows = {}
    while pending or len(net):
        t_next_arrival = arrivals[pending[0]][0] if pending else math.inf
        t = min(net.next_completion_time(), t_next_arrival)
        rates = {i: f.rate for i, f in flows.items() if f.active}
        dt = t - net.now
        for i, r in rates.items():
            sent[i] = sent.get(i, 0.0) + r * dt
        net.advance_to(t)
        while pending and arrivals[pending[0]][0] <= t:
            i = pending.pop(0)
            flows[i] = net.add_flow(arrivals[i][1], arrivals[i][2])
    for i, f in flows.items():
        assert not f.active
        assert sent.get(i, 0.0) == pytest.approx(arrivals[i][2], rel=1e-9)
