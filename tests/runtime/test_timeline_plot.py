"""Our static rendering of a timeline file (simlib.runtime.timeline_plot): it draws what the file holds."""
import json

import pytest

from simlib.runtime import timeline as tl
from simlib.runtime import timeline_plot as tp
from tests.runtime.test_timeline import hand_log

pytest.importorskip("matplotlib")


def test_the_picture_draws_every_worker_slice_sync_and_counter_of_the_file(tmp_path):
    doc = tl.trace_document(tl.schedule_events(hand_log()) + [
        {"ph": "C", "name": "link a rate", "pid": tl.PID_NETWORK, "ts": 0.0, "args": {"Gbit/s": 2.0}},
        {"ph": "C", "name": "link a rate", "pid": tl.PID_NETWORK, "ts": 4e6, "args": {"Gbit/s": 0.0}}],
        scenario={}, seed=0, command="test", commit="x")
    fig = tp.plot_trace(doc)
    workers, syncs, counters = fig.axes
    xs = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["pid"] == tl.PID_WORKERS]
    bars = sorted((b.get_paths()[0].vertices[:, 0].min(), b.get_paths()[0].vertices[:, 0].max())
                  for b in workers.collections)
    want = sorted((e["ts"] / 1e6, (e["ts"] + e["dur"]) / 1e6) for e in xs)
    assert len(bars) == len(want) and all(b == pytest.approx(w) for b, w in zip(bars, want))
    assert len(syncs.collections) == 2                         # the two syncs of the hand log
    (line,) = counters.get_lines()
    assert list(line.get_xdata()) == [0.0, 4.0] and list(line.get_ydata()) == [2.0, 0.0]
    assert "not a trace viewer's screenshot" in fig._suptitle.get_text()


def test_the_command_writes_a_picture_and_checks_its_arguments(tmp_path, capsys):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(tl.trace_document(tl.schedule_events(hand_log()), scenario={}, seed=0,
                                                 command="test", commit="x")))
    assert tp.main([str(path), str(tmp_path / "t.png")]) == 0 and (tmp_path / "t.png").stat().st_size > 0
    with pytest.raises(SystemExit):
        tp.main([str(tmp_path / "missing.json"), str(tmp_path / "u.png")])
    assert "no such file" in capsys.readouterr().err and not (tmp_path / "u.png").exists()
