"""Per-link allocated rates in a run's timeline (simlib.runtime.link_rates, capture.watch_flows): a
hand-derived case, the progressive filling against the engine's own max-min solver, and real cluster runs
whose counters integrate back to the bits their flows carried."""
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simlib.core.events import Simulator
from simlib.core.maxmin import allocate_rates
from simlib.core.network import FlowNetwork
from simlib.runtime import timeline as tl
from simlib.runtime.capture import capture, watch_flows
from simlib.runtime.link_rates import GBPS, allocations, flow_events, maxmin_rates


def counters(events):
    """{counter name: [(time_s, value)]} of the C events, in time order."""
    out = {}
    for e in events:
        if e["ph"] == "C":
            (v,) = e["args"].values()
            out.setdefault(e["name"], []).append((e["ts"] / tl.US, v))
    return {k: sorted(v) for k, v in out.items()}


def integral(steps, end=None):
    """The integral of a step plot given as (time, value) changes (up to its last change, or ``end``)."""
    ts = [t for t, _ in steps] + ([end] if end is not None else [])
    return sum(v * (b - a) for (a, v), b in zip(steps, ts[1:]))


def two_flows():
    """Links a, b (10 bit/s) and c (100 bit/s).  Flow 0: 30 bits over a, c from t = 0; flow 1: 10 bits over
    a, b from t = 1.  By hand: flow 0 alone runs at 10 (a is its bottleneck) for 1 s (10 bits); then both
    share a at 5 each: flow 1's 10 bits take 2 s (ends at 3), flow 0 has 30 - 10 - 10 = 10 bits left at 10
    again: ends at 4.  Link a carries 10 throughout (40 bits), b 5 on [1, 3] (10 bits), c 10, 5, 10 (30 bits)."""
    sim = Simulator()
    net = FlowNetwork([10.0, 10.0, 100.0], sim)
    with capture():
        watch = watch_flows(net, lambda: ["a", "b", "c"])
    net.add_flow((0, 2), 30.0)
    sim.schedule(1.0, lambda: net.add_flow((0, 1), 10.0))
    sim.run(until=100.0)
    return watch


def test_two_flows_sharing_one_link_give_the_hand_derived_rates_and_bits():
    watch = two_flows()
    assert [f.finish_time for f, _ in watch.flows] == [4.0, 3.0]
    ev = flow_events(watch, None, 100.0)
    assert tl.validate_trace({"traceEvents": ev}) == []
    c = counters(ev)
    assert c["a rate"] == [(0, 10 / GBPS), (4, 0)]
    assert c["b rate"] == [(1, 5 / GBPS), (3, 0)]
    assert c["c rate"] == [(0, 10 / GBPS), (1, 5 / GBPS), (3, 10 / GBPS), (4, 0)]
    assert {k: integral(v) * GBPS for k, v in c.items()} == pytest.approx({"a rate": 40, "b rate": 10, "c rate": 30})
    lifetimes = {(e["id"], e["ph"]): e["ts"] / tl.US for e in ev if e["ph"] in "be" and e["cat"] == "flow"}
    assert lifetimes == {("0", "b"): 0, ("0", "e"): 4, ("1", "b"): 1, ("1", "e"): 3}


def test_a_window_starts_each_counter_at_the_rate_it_has_there():
    c = counters(flow_events(two_flows(), (2.0, 3.5), 100.0))
    assert c["c rate"] == [(2, 5 / GBPS), (3, 10 / GBPS)]
    assert c["b rate"] == [(2, 5 / GBPS), (3, 0)]


def test_outside_a_capture_the_network_is_not_wrapped():
    net = FlowNetwork([1.0])
    assert watch_flows(net, lambda: ["x"]) is None and "add_flow" not in vars(net)


def test_priority_classes_fill_in_turn():
    # class 0 takes link 0 (cap 6) with two flows at 3 each; class 1's flow on links 0 and 1 gets nothing
    # there, its other flow on link 1 (cap 4) alone gets 4
    rates = maxmin_rates([6.0, 4.0], [(0,), (0,), (0, 1), (1,)], [0, 0, 1, 1])
    assert rates.tolist() == [3.0, 3.0, 0.0, 4.0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.5, 100), min_size=1, max_size=6).flatmap(
    lambda caps: st.tuples(st.just(caps), st.lists(st.sets(st.integers(0, len(caps) - 1), min_size=1),
                                                   min_size=1, max_size=8))))
def test_the_progressive_filling_agrees_with_the_engines_max_min_solver(case):
    caps, paths = case
    paths = [sorted(p) for p in paths]
    flat = np.array([l for p in paths for l in p], dtype=np.int64)
    ends = np.cumsum([len(p) for p in paths])
    ref = allocate_rates(np.array(caps), ends - [len(p) for p in paths], ends, flat, np.arange(len(paths)))
    assert maxmin_rates(caps, paths) == pytest.approx(ref, rel=1e-9)


@pytest.mark.parametrize("scheme", ["ps-asp", "selective"])
def test_a_runs_counters_integrate_to_the_bits_its_flows_carried(scheme, tmp_path):
    """PS ASP's pushes share the server's ports, selective reduce's groups have disjoint ports: each finished
    flow's recomputed rate integrates to its volume (the recomputation agrees with the engine's timing), and
    each link's counter, read back from the written file, to the bits of the flows through it; the run's
    metrics are the same with the network watched."""
    from simlib.papers.cluster_scenario import Scenario, run_trial

    sc = Scenario.from_params({"n": 8, "duration_s": 30.0, "scheme": scheme})
    with tl.capture() as c:
        out = run_trial(sc, np.random.SeedSequence(5))
    assert out == run_trial(sc, np.random.SeedSequence(5))
    watch = c.flows
    assert watch is not None and len(watch.flows) > 5
    carried, through = {}, {}
    for seg in allocations(watch, sc.duration_s):
        for f, r, path in zip(seg.flows, seg.rates, seg.paths):
            carried[f] = carried.get(f, 0.0) + r * (seg.t1 - seg.t0)
            for link in path:
                through[link] = through.get(link, 0.0) + r * (seg.t1 - seg.t0)
    finished = [f for f, _ in watch.flows if f.finish_time is not None and f.volume > 0]
    assert finished and all(carried[f.id] == pytest.approx(f.volume, rel=1e-9) for f in finished)
    doc = tl.trace_document(c.events(), scenario=sc.to_params(), seed=5, command="run", commit="x")
    doc = json.loads(tl.write_trace(tmp_path / "t.json", doc).read_text())
    series = counters(doc["traceEvents"])
    assert len(series) == len(through)
    for link, bits in through.items():
        assert integral(series[f"{watch.link_names[link]} rate"], sc.duration_s) * GBPS == pytest.approx(bits, rel=1e-9)
    if scheme == "ps-asp":       # the server's downlink carries every push at once at some moment
        assert any(len(seg.flows) > 1 for seg in allocations(watch, sc.duration_s))
