"""The machine-pace probe (decision S35): what it computes is deterministic, its time is a positive
median; no assertion on how long anything takes."""
from __future__ import annotations

import dataclasses
import json

import pytest

from simlib.pipeline import pace, timing
from simlib.pipeline.timing import Timing

#: A cheap piece (the stand-alone flow network of the warm-up, numpy engine).
NET = pace.Piece("net", "simlib.pipeline.warm:flow_network_run",
                 (("sharing", "maxmin"), ("engine", "full"), ("steps", 2)))


def _small(piece: pace.Piece) -> pace.Piece:
    """``piece`` at a few simulated seconds on a few workers (the same trial and code paths)."""
    setting = dict(piece.setting) | {"n": 4, "duration_s": 4.0}
    return dataclasses.replace(piece, setting=tuple(setting.items()))


def _same(a: dict, b: dict) -> bool:
    """Equal values, NaN equal to NaN (a short training replay reaches no accuracy target: NaN times)."""
    return json.dumps(a, sort_keys=True, default=repr) == json.dumps(b, sort_keys=True, default=repr)


def test_each_piece_counts_the_median_of_its_timed_calls():
    """Fake clock: each timed call reads it twice; durations 1, 3, 2 then 5, 4, 6 -> medians 2 and 5."""
    ticks = iter([0, 1, 1, 4, 4, 6, 10, 15, 15, 19, 19, 25])
    result = pace.measure((NET, dataclasses.replace(NET, name="net2")), repeats=3, clock=lambda: next(ticks))
    assert result.per_piece == {"net": 2.0, "net2": 5.0}
    assert result.probe_s == 7.0
    assert result.line() == "probe 7.00 CPU-s (net 2.00, net2 5.00)"


def test_the_probe_outputs_are_deterministic_and_its_time_positive():
    pieces = tuple(_small(p) for p in pace.PIECES)
    first, second = pace.measure(pieces, repeats=1), pace.measure(pieces, repeats=1)
    assert list(first.outputs) == [p.name for p in pace.PIECES]
    assert _same(first.outputs, second.outputs)
    assert first.probe_s > 0 and all(v > 0 for v in first.per_piece.values())


@pytest.mark.slow
def test_the_real_probe_is_deterministic():
    first, second = pace.measure(repeats=1), pace.measure(repeats=1)
    assert _same(first.outputs, second.outputs) and first.probe_s > 0


@pytest.mark.parametrize("repeats", [0, 1.5, True])
def test_repeats_must_be_a_positive_integer(repeats):
    with pytest.raises(ValueError, match="repeats must be an integer >= 1"):
        pace.measure((NET,), repeats=repeats)


def test_stamp_fills_only_the_rows_without_a_probe(tmp_path):
    path = tmp_path / "times.csv"
    timing.update_times(path, [Timing("a", 10.0, True, "full", cold_wall_s=12.0),
                               Timing("b", 5.0, True, "full", probe_s=2.0),
                               Timing("c", 7.0, True, "full", cold_wall_s=7.0, probe_s=2.0, cold_probe_s=2.5)])
    assert pace.stamp(path, 3.0) == (1, 3)
    assert timing.read_times(path) == {
        "a": Timing("a", 10.0, True, "full", cold_wall_s=12.0, probe_s=3.0, cold_probe_s=3.0),
        "b": Timing("b", 5.0, True, "full", probe_s=2.0),       # no cold time, so no cold probe
        "c": Timing("c", 7.0, True, "full", cold_wall_s=7.0, probe_s=2.0, cold_probe_s=2.5)}
    assert pace.stamp(path, 3.0) == (0, 3)
    with pytest.raises(ValueError, match="probe_s must be (in|a real number in|a finite real number in) \\(0.0, inf\\)"):
        pace.stamp(path, 0.0)


def test_the_command_checks_its_files_before_the_probe_runs(tmp_path, monkeypatch):
    monkeypatch.setattr(pace, "measure", lambda *a, **k: pytest.fail("the probe ran"))
    with pytest.raises(SystemExit):
        pace.main(["--stamp", str(tmp_path / "missing.csv")])
    (tmp_path / "bad.csv").write_text("x,y\n1,2\n")
    with pytest.raises(SystemExit):
        pace.main(["--stamp", str(tmp_path / "bad.csv")])
