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
