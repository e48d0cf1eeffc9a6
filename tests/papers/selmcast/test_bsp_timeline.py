"""004's BSP round as a timeline (simlib.papers.selmcast.bsp_timeline): valid; its deliveries give back the
completion time and the receivers per worker ``python -m simlib selmcast-bsp`` prints, and each port's
counter integrates to the bits the plan sends through it."""
import json

import numpy as np
import pytest

from simlib import cli
from simlib.papers.selmcast.bsp_scenario import BSPScenario
from simlib.papers.selmcast.paper import round_summary
from simlib.runtime import timeline as tl
from simlib.runtime.link_rates import GBPS


@pytest.mark.parametrize("layer, scheme", [("L3", "selmcast"), ("L7", "selmcast"), ("L3", "orpheus")])
def test_the_deliveries_give_back_the_printed_round(layer, scheme):
    sc = BSPScenario.from_params({"n": 20, "layer": layer})
    with tl.capture() as c:
        out = round_summary(sc, np.random.SeedSequence(1), scheme=scheme)
    ev = c.events()
    assert tl.validate_trace({"traceEvents": ev}) == []
    plain = round_summary(sc, np.random.SeedSequence(1), scheme=scheme)          # the watch changes nothing
    assert {k: v for k, v in plain.items() if k != "selection_time_s"} == \
        {k: v for k, v in out.items() if k != "selection_time_s"}
    receive = [e for e in ev if e["ph"] == "X" and e["name"] == "receive"]
    assert max((e["ts"] + e["dur"]) / tl.US for e in receive) == pytest.approx(out["completion_s"], rel=1e-12)
    assert sum(e["args"]["multicasts"] for e in receive) / sc.n == pytest.approx(out["receivers_per_worker"])
    for w in range(sc.n):       # receive, then wait for the barrier: each worker's slices tile the round
        top = [e for e in ev if e["ph"] == "X" and e["tid"] == w and e["name"] in ("receive", "wait for the round's end")]
        assert sum(e["dur"] for e in top) / tl.US == pytest.approx(out["completion_s"], rel=1e-9)
    # downlink of worker j carries one model (v bits) per sender that chose it
    x, v = c.log.x, sc.model_mb * 8e6
    for j in range(sc.n):
        steps = sorted((e["ts"] / tl.US, e["args"]["Gbit/s"]) for e in ev
                       if e["ph"] == "C" and e["name"] == f"worker {j} downlink rate")
        bits = sum(r * (b - a) for (a, r), (b, _) in zip(steps, steps[1:])) * GBPS
        assert bits == pytest.approx(v * x[:, j].sum(), rel=1e-9)


def test_the_command_writes_the_timeline(tmp_path, capsys):
    path = tmp_path / "bsp.json"
    status = cli.main(["selmcast-bsp", "--n", "12", "--json", "--timeline", str(path), "--timeline-window", "0:inf"])
    printed = json.loads(capsys.readouterr().out)
    doc = json.loads(path.read_text())
    assert status == 0 and tl.validate_trace(doc) == []
    ends = [(e["ts"] + e["dur"]) / tl.US for e in doc["traceEvents"] if e["ph"] == "X" and e["name"] == "receive"]
    assert max(ends) == pytest.approx(printed["completion_s"], rel=1e-9)
