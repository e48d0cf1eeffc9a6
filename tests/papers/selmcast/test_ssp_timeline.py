"""004's SSP run as a timeline (simlib.papers.selmcast.ssp_timeline): valid, and converted back to the
metrics ``python -m simlib selmcast-ssp`` prints."""
import numpy as np
import pytest

from simlib.papers.selmcast.ssp_scenario import SSPScenario, run_trial
from simlib.papers.selmcast.ssp_timeline import ssp_events
from simlib.runtime import timeline as tl


@pytest.fixture(scope="module")
def run():
    sc = SSPScenario.from_params({"n": 8, "duration_s": 6.0})
    with tl.capture() as c:
        out = run_trial(sc, np.random.SeedSequence(1))
    assert c.found and c.to_events == "simlib.papers.selmcast.ssp_timeline:ssp_events"
    return sc, out, c.log


def test_the_trace_is_valid_and_gives_back_npu_utilization_and_multicast_times(run):
    sc, out, log = run
    ev = ssp_events(log)
    assert tl.validate_trace({"traceEvents": ev}) == []
    busy = [sum(e["dur"] for e in ev if e["ph"] == "X" and e["tid"] == w and e["name"] == "compute") / tl.US
            for w in range(sc.n)]
    assert np.mean(busy) / sc.duration_s == pytest.approx(out["npu_utilization"], rel=1e-9)
    tiles = [sum(e["dur"] for e in ev if e["ph"] == "X" and e["tid"] == w and e["pid"] == tl.PID_WORKERS) / tl.US
             for w in range(sc.n)]
    assert tiles == pytest.approx([sc.duration_s] * sc.n)        # compute and wait tile each worker's run
    begin = {e["id"]: e for e in ev if e["ph"] == "b"}
    done = [(e["ts"] - begin[e["id"]]["ts"]) / tl.US for e in ev if e["ph"] == "e" and begin[e["id"]]["args"]["finished"]]
    assert len(begin) == out["multicasts"] and len(done) == out["total_rounds"] > 0
    assert np.mean(done) == pytest.approx(out["avg_multicast_s"], rel=1e-9)


def test_nic_counters_count_each_multicast_once_per_sender(run):
    """Summed over NICs, the egress counters rise once per multicast (each has one sender)."""
    sc, out, log = run
    ev = ssp_events(log)
    rises = 0
    for w in range(sc.n):
        series = [e["args"]["multicasts"] for e in ev if e["ph"] == "C" and e["name"] == f"NIC {w} egress"]
        rises += sum(max(b - a, 0) for a, b in zip([0] + series, series))
        assert all(v >= 0 for v in series)
    assert rises == out["multicasts"]


def test_a_window_keeps_the_trace_valid_and_inside_it(run):
    sc, _, log = run
    ev = ssp_events(log, window=(2.0, 3.0))
    assert tl.validate_trace({"traceEvents": ev}) == []
    ts = [e["ts"] / tl.US for e in ev if e["ph"] != "M"]
    assert ts and min(ts) >= 2.0 and max(ts) <= 3.0


@pytest.mark.parametrize("extra", [{}, {"sharing": "priority", "gamma": 0.3, "period_s": 1.0}])
def test_the_flow_engine_adds_link_rates_that_integrate_to_each_multicasts_bits(extra):
    """On the flow engine (SM68's reference) the network is watched: every multicast flow that finished
    without being re-created carries its volume, a flow cut short (re-created with a new priority, or a
    receiver dropped) no more; the compiled engine has no network, so no rates."""
    from simlib.papers.selmcast.ssp_scenario import simulate
    from simlib.runtime.link_rates import allocations

    sc = SSPScenario.from_params({"n": 8, "duration_s": 6.0, **extra})
    with tl.capture() as c:
        log = simulate(sc, np.random.SeedSequence(1), engine="flow")
    watch = c.flows
    assert watch is not None and len(watch.flows) >= len(log.multicasts) > 0
    assert tl.validate_trace({"traceEvents": c.events()}) == []
    carried = {}
    for seg in allocations(watch, sc.duration_s):
        for f, r in zip(seg.flows, seg.rates):
            carried[f] = carried.get(f, 0.0) + r * (seg.t1 - seg.t0)
    whole = [f for f, links in watch.flows if f.finish_time is not None and f.id not in watch.removed]
    assert whole and all(carried[f.id] == pytest.approx(f.volume, rel=1e-9) for f in whole)
    assert all(carried.get(f.id, 0.0) <= f.volume * (1 + 1e-9) for f, _ in watch.flows)
    if extra:
        assert watch.capacity_changes                       # γ > 0 changes the capacities every period
    with tl.capture() as c:
        simulate(sc, np.random.SeedSequence(1))
    assert c.found and c.flows is None
