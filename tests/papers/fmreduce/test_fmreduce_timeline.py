"""003's run as a timeline (simlib.papers.fmreduce.timeline): valid, and converted back to the metrics
``python -m simlib fmreduce`` prints."""
import json

import numpy as np
import pytest

from simlib import cli
from simlib.papers.fmreduce.scenario import Scenario, run_trial
from simlib.runtime import timeline as tl

PHASES = ("compute", "form", "scatter", "broadcast")


@pytest.mark.parametrize("variant", [{}, {"mode": "blocking"},
                                     {"reducers": "participants", "mode": "blocking", "split": "even", "sharing": "fs"}])
def test_the_phase_slices_sum_to_the_printed_phase_means(variant):
    """Per phase, the slices of the rounds finished by the end sum to (phase mean) x (iterations); the
    finished rounds' async slices count the rounds and average to the mean round time; each worker's
    slices tile the run."""
    sc = Scenario.from_params({"n": 12, "p": 10, "duration_s": 30.0, **variant})
    with tl.capture() as c:
        out = run_trial(sc, np.random.SeedSequence(2))
    assert c.to_events == "simlib.papers.fmreduce.timeline:fmreduce_events"
    ev = c.events()
    assert tl.validate_trace({"traceEvents": ev}) == []
    begin = {e["id"]: e for e in ev if e["ph"] == "b" and e["cat"] == "round"}
    done = {e["id"]: (e["ts"] - begin[e["id"]]["ts"]) / tl.US for e in ev if e["ph"] == "e" and e["cat"] == "round"
            and begin[e["id"]]["args"]["finished"]}
    assert len(done) == out["rounds"] > 0
    assert np.mean(list(done.values())) == pytest.approx(out["mean_round_time_s"], rel=1e-9)
    finished = {int(k) for k in done}
    for ph in PHASES:
        total = sum(e["dur"] for e in ev if e["ph"] == "X" and e["name"] == ph and e["args"]["round"] in finished)
        assert total / tl.US / out["iterations"] == pytest.approx(out[f"{ph}_s"], rel=1e-9), ph
    for w in range(sc.n):
        tiles = sum(e["dur"] for e in ev if e["ph"] == "X" and e["pid"] == tl.PID_WORKERS and e["tid"] == w) / tl.US
        assert tiles == pytest.approx(sc.duration_s, rel=1e-12)


def test_a_window_keeps_the_trace_valid_and_inside_it():
    sc = Scenario.from_params({"n": 12, "p": 10, "duration_s": 30.0})
    with tl.capture() as c:
        run_trial(sc, np.random.SeedSequence(2))
    ev = c.events((10.0, 12.5))
    assert tl.validate_trace({"traceEvents": ev}) == []
    ts = [e["ts"] / tl.US for e in ev if e["ph"] != "M"] + [(e["ts"] + e["dur"]) / tl.US for e in ev if e["ph"] == "X"]
    assert min(ts) >= 10.0 and max(ts) <= 12.5
    assert {w for w in range(12)} == {e["tid"] for e in ev if e["ph"] == "X"}    # every worker is busy in it


def test_the_command_writes_the_timeline(tmp_path, capsys):
    path = tmp_path / "fm.json"
    status = cli.main(["fmreduce", "--n", "8", "--p", "6", "--duration", "20", "--json", "--timeline", str(path)])
    printed = json.loads(capsys.readouterr().out)
    doc = json.loads(path.read_text())
    assert status == 0 and tl.validate_trace(doc) == []
    rounds = [e for e in doc["traceEvents"] if e["ph"] == "b" and e["args"]["finished"]]
    assert len(rounds) == printed["rounds"] and doc["otherData"]["command"] == "python -m simlib fmreduce"
