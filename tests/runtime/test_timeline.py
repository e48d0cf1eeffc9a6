"""The timeline (simlib.runtime.timeline): the trace-event format's rules, a hand-derived log, and a real
run's trace converted back to the metrics the command prints."""
import json
import math

import numpy as np
import pytest

from simlib.runtime import timeline as tl
from simlib.runtime.log import ScheduleLog, SyncRecord
from simlib.runtime.metrics import sync_metrics, wasted_wait


def slices(events, name=None, tid=None):
    """(start_s, end_s) of the X events on the workers' process named ``name`` (all names: None)."""
    return [(e["ts"] / tl.US, (e["ts"] + e["dur"]) / tl.US) for e in events
            if e["ph"] == "X" and e["pid"] == tl.PID_WORKERS and (name is None or e["name"] == name)
            and (tid is None or e["tid"] == tid)]


def hand_log():
    """2 workers, 10 s.  w0 computes to 2 and 6, w1 to 3 and 7.  Sync 0 (both) launches at 3, ends at 4;
    sync 1 (both) launches at 7.5 and is still running at the end.  w0 is held from 2.5 (useful: w1 became
    ready at 3 > 2.5) and from 7.2 (wasted: the newest member ready time, 7, is not after 7.2: 0.3 s)."""
    return ScheduleLog(n=2, duration=10.0, bandwidth=np.ones(2), compute_end=[[2.0, 6.0], [3.0, 7.0]],
                       syncs=[SyncRecord(3.0, (0, 1), (1, 1), finish=4.0), SyncRecord(7.5, (0, 1), (2, 2))],
                       holds=[(2.5, 0), (7.2, 0)])


def test_a_hand_derived_log_gives_the_hand_derived_slices():
    ev = tl.schedule_events(hand_log())
    assert tl.validate_trace({"traceEvents": ev}) == []
    assert slices(ev, "compute", 0) == [(0, 2), (4, 6)] and slices(ev, "compute", 1) == [(0, 3), (4, 7)]
    assert slices(ev, "wait", 0) == [(2, 3), (6, 7.5)] and slices(ev, "wait", 1) == [(3, 3), (7, 7.5)]
    assert slices(ev, "held", 0) == [(2.5, 3)]
    (a, b), = slices(ev, "held (wasted)", 0)
    assert (a, b) == (pytest.approx(7.2), 7.5)
    wasted = sum(b - a for a, b in slices(ev, "held (wasted)")) / 2
    assert wasted == pytest.approx(sync_metrics(hand_log())["wasted_wait_s_per_worker"]) == pytest.approx(0.15)
    asyncs = {(e["id"], e["ph"]): e["ts"] / tl.US for e in ev if e["ph"] in "be"}
    assert asyncs == {("0", "b"): 3, ("0", "e"): 4, ("1", "b"): 7.5, ("1", "e"): 10}    # sync 1: the run's end
    tails = sorted((e["id"], e["ts"] / tl.US) for e in ev if e["ph"] == "s")
    assert tails == [("0.0", 2), ("0.1", 3), ("1.0", 6), ("1.1", 7)]                    # each member's ready time


def test_a_window_cuts_slices_to_it_and_drops_the_rest():
    ev = tl.schedule_events(hand_log(), window=(2.8, 5.0))
    assert tl.validate_trace({"traceEvents": ev}) == []
    assert slices(ev, "compute", 0) == [(4, 5)] and slices(ev, "wait", 0) == [(2.8, 3)]
    assert slices(ev, "held", 0) == [(2.8, 3)] and not slices(ev, "held (wasted)")
    assert {e["id"] for e in ev if e["ph"] == "b" and e["cat"] == "sync"} == {"0"}
    assert {e["id"] for e in ev if e["ph"] == "s"} == {"0.1"}     # w0's ready time (2) is outside; w1's (3) inside


@pytest.mark.parametrize("text, message", [("5", "START:END"), ("a:b", "START:END"), ("3:2", "0 <= START < END"),
                                           ("-1:2", "0 <= START < END"), ("nan:2", "0 <= START < END")])
def test_bad_windows_are_refused_by_name(text, message):
    with pytest.raises(ValueError, match=f"--timeline-window.*{message}"):
        tl.parse_window(text, "--timeline-window")


def test_a_window_after_the_run_is_refused():
    assert tl.check_window((1, math.inf), 10.0) == (1.0, math.inf)
    with pytest.raises(ValueError, match="timeline_window .*START < 10"):
        tl.check_window((10, 20), 10.0)


@pytest.mark.parametrize("events, problem", [
    ([{"ph": "X", "name": "a", "pid": 1, "tid": 0, "ts": 0, "dur": 2},
      {"ph": "X", "name": "b", "pid": 1, "tid": 0, "ts": 1, "dur": 2}], "without nesting"),
    ([{"ph": "X", "name": "a", "pid": 1, "tid": 0, "ts": 0, "dur": -1}], "dur -1 < 0"),
    ([{"ph": "X", "pid": 1, "tid": 0, "ts": 0, "dur": 1}], "missing ['name']"),
    ([{"ph": "b", "name": "a", "pid": 1, "id": "1", "ts": 0}], "begin without an end"),
    ([{"ph": "b", "name": "a", "pid": 1, "id": "1", "ts": 5}, {"ph": "e", "pid": 1, "id": "1", "ts": 4}],
     "end before its begin"),
    ([{"ph": "b", "name": "a", "pid": 1, "ts": 5}], "missing ['id']"),
    ([{"ph": "s", "name": "a", "pid": 1, "tid": 0, "id": "7", "ts": 5}], "needs one s and one f"),
    ([{"ph": "C", "name": "a", "pid": 1, "ts": 5, "args": {"x": float("nan")}}], "finite"),
    ([{"ph": "Q", "name": "a"}], "unknown ph"),
])
def test_the_validator_sees_each_broken_rule(events, problem):
    assert any(problem in p for p in tl.validate_trace({"traceEvents": events}))


def test_nested_and_back_to_back_slices_are_valid():
    ev = [{"ph": "X", "name": "a", "pid": 1, "tid": 0, "ts": 0, "dur": 4},
          {"ph": "X", "name": "b", "pid": 1, "tid": 0, "ts": 1, "dur": 3},
          {"ph": "X", "name": "c", "pid": 1, "tid": 0, "ts": 4, "dur": 1},
          {"ph": "X", "name": "d", "pid": 1, "tid": 1, "ts": 0.5, "dur": 9}]
    assert tl.validate_trace({"traceEvents": ev}) == []


def test_nothing_is_written_for_a_broken_trace(tmp_path):
    bad = tl.trace_document([{"ph": "b", "name": "a", "pid": 1, "id": "1", "ts": 0}], scenario={}, seed=0,
                            command="x", commit="abc")
    with pytest.raises(ValueError, match="begin without an end"):
        tl.write_trace(tmp_path / "t.json", bad)
    assert not list(tmp_path.iterdir())


def test_offer_outside_a_capture_does_nothing_and_inside_keeps_the_last():
    tl.offer("ignored", "simlib.runtime.timeline:schedule_events")
    with tl.capture() as c:
        assert not c.found
        tl.offer("first", "simlib.runtime.timeline:schedule_events")
        tl.offer(hand_log(), "simlib.runtime.timeline:schedule_events")
    assert c.found and c.events() == tl.schedule_events(hand_log())
    with pytest.raises(ValueError, match="module:function"):
        tl.offer(hand_log(), "schedule_events")


@pytest.mark.parametrize("scheme", ["selective", "partial", "allreduce"])
def test_a_runs_trace_converts_back_to_its_metrics(scheme, tmp_path):
    """The trace of a real run (n = 10, 40 s) gives back the metrics ``python -m simlib run`` prints: mean
    sync duration and count from the finished syncs' async slices, the local iterations from the compute
    slices, the wasted wait per worker from the wasted held slices."""
    from simlib.papers.cluster_scenario import Scenario, run_trial

    sc = Scenario.from_params({"n": 10, "duration_s": 40.0, "scheme": scheme, "p": 0.3})
    with tl.capture() as c:
        out = run_trial(sc, np.random.SeedSequence(3))
    doc = tl.trace_document(c.events(), scenario=sc.to_params(), seed=3, command="run", commit="x")
    path = tl.write_trace(tmp_path / "t.json", doc)
    doc = json.loads(path.read_text())
    assert tl.validate_trace(doc) == []
    ev = doc["traceEvents"]
    begin = {e["id"]: e for e in ev if e["ph"] == "b" and e["cat"] == "sync"}
    done = [(e["ts"] - begin[e["id"]]["ts"]) / tl.US for e in ev if e["ph"] == "e" and e["cat"] == "sync" and begin[e["id"]]["args"]["finished"]]
    assert len(done) == out["total_sync"] > 0
    assert np.mean(done) == pytest.approx(out["avg_sync_time_s"], rel=1e-9)
    assert len(slices(ev, "compute")) == out["total_iteration"]
    wasted = sum(b - a for a, b in slices(ev, "held (wasted)")) / sc.n
    assert wasted == pytest.approx(out["wasted_wait_s_per_worker"], abs=1e-9)
    assert (wasted > 0) == (scheme == "selective" and out["wasted_wait_s_per_worker"] > 0)
    # the cluster's state machine: compute, wait, sync tile each worker's run (held slices lie inside waits)
    for w in range(sc.n):
        busy = sum(b - a for a, b in slices(ev, "compute", w) + slices(ev, "compute (running at the end)", w)
                   + slices(ev, "wait", w))
        syncing = sum((e["ts"] - begin[e["id"]]["ts"]) / tl.US for e in ev
                      if e["ph"] == "e" and e["cat"] == "sync" and w in begin[e["id"]]["args"]["members"])
        assert busy + syncing == pytest.approx(sc.duration_s, rel=1e-9)
    assert doc["otherData"]["seed"] == 3 and json.loads(doc["otherData"]["scenario"])["scheme"] == scheme


def test_the_api_writes_the_same_run_the_call_returns(tmp_path):
    """simlib.record_timeline: the run's own metrics come back, and its file has as many finished syncs."""
    import simlib

    sc = simlib.Scenario.from_params({"n": 6, "duration_s": 20.0, "scheme": "partial"})
    out = simlib.record_timeline(lambda: simlib.run_trial(sc, np.random.SeedSequence(2)), tmp_path / "t.json",
                                 scenario=sc.to_params(), seed=2, window=(0, 10))
    doc = json.loads((tmp_path / "t.json").read_text())
    assert tl.validate_trace(doc) == [] and doc["otherData"]["window_s"] == "0:10"
    assert max(e["ts"] for e in doc["traceEvents"]) <= 10 * tl.US
    full = simlib.record_timeline(lambda: simlib.run_trial(sc, np.random.SeedSequence(2)), tmp_path / "u.json",
                                  scenario=sc.to_params(), seed=2)
    assert full == out
    done = [e for e in json.loads((tmp_path / "u.json").read_text())["traceEvents"]
            if e["ph"] == "b" and e["cat"] == "sync" and e["args"]["finished"]]
    assert len(done) == out["total_sync"]
    with pytest.raises(ValueError, match="window .*START < 20"):
        simlib.record_timeline(lambda: 1 / 0, tmp_path / "v.json", scenario=sc.to_params(), seed=2, window=(25, 30))
    with pytest.raises(ValueError, match="offered no schedule log"):
        simlib.record_timeline(lambda: None, tmp_path / "w.json", scenario={}, seed=0)
