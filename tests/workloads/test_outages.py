"""Outage windows (decision T9): a step's work pauses inside its worker's windows."""
from __future__ import annotations

import pytest

from simlib.runtime.cluster import ScriptedComputeTimes
from simlib.workloads.outages import Outage, OutageComputeTimes, first_workers_out, paused_finish


@pytest.mark.parametrize("start, work, windows, end", [
    (4.5, 1.0, [(5.0, 65.0)], 65.5),        # T9's example: half the work before, half after the window
    (10.0, 1.0, [(5.0, 65.0)], 66.0),       # starts inside: starts at the window's end
    (1.0, 1.0, [(5.0, 65.0)], 2.0),         # ends before the window
    (66.0, 1.0, [(5.0, 65.0)], 67.0),       # after it
    (5.0, 1.0, [(5.0, 65.0)], 66.0),        # starts as it opens
    (4.0, 1.0, [(5.0, 65.0)], 5.0),         # ends as it opens: untouched
    (0.0, 3.0, [(1.0, 2.0), (3.0, 4.0)], 5.0),   # two windows: 1 s, pause, 1 s, pause, 1 s
    (0.0, 1.0, [], 1.0),
])
def test_paused_finish_on_hand_worked_steps(start, work, windows, end):
    assert paused_finish(start, work, windows) == pytest.approx(end)


def test_wrapper_applies_the_window_to_its_worker_only_and_needs_a_clock():
    now = [4.5]
    src = OutageComputeTimes(ScriptedComputeTimes([[1.0, 1.0], [1.0, 1.0]]), [Outage(0, 5.0, 65.0)])
    assert src.next(1) == 1.0                                   # no window: no clock needed
    with pytest.raises(ValueError, match="needs a clock"):
        src.next(0)
    src.bind(lambda: now[0])
    assert src.next(0) == pytest.approx(61.0)                   # 4.5 -> 65.5


def test_first_workers_out_and_bad_windows_name_the_parameter():
    assert first_workers_out(2, 5.0, 10.0) == (Outage(0, 5.0, 15.0), Outage(1, 5.0, 15.0))
    assert first_workers_out(0, 5.0, 10.0) == ()
    with pytest.raises(ValueError, match="end_s must be > start_s"):
        Outage(0, 5.0, 5.0)
    with pytest.raises(ValueError, match="length_s must be"):
        first_workers_out(1, 0.0, 0.0)
    with pytest.raises(ValueError, match="must not overlap"):
        OutageComputeTimes(ScriptedComputeTimes([[1.0]]), [Outage(0, 1.0, 5.0), Outage(0, 4.0, 6.0)])
