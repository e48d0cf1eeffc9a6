"""The metrics of seed 000 §IV-A2 (decisions E4, E5) on a hand-built schedule log with hand-worked values."""
import numpy as np
import pytest

from simlib.runtime.log import ScheduleLog, SyncRecord
from simlib.runtime.metrics import sync_metrics, wasted_wait


def hand_log():
    """Four workers.

    * w0, w1 ready at 1.0, held at 1.0, launched together at 3.0 (sync 3.0 -> 3.5): nobody in
      the group became ready after 1.0 -> 2.0 s wasted each.
    * w2 ready at 2.0, held at 2.5; w3 (never held) ready at 4.0; (w2, w3) launch at 4.0
      (4.0 -> 5.0): w3 is a newcomer (4.0 > 2.5) -> the hold was useful, 0 wasted.
    * w0 ready again at 4.5, held at 5.0 and again at 5.5 (the same wait: it counts from the
      first hold after its last launch, 5.0), launched alone at 7.0 (7.0 -> 7.25):
      its own ready time 4.5 is before 5.0 -> 2.0 s wasted.
    * w1 ready again at 5.0, held at 6.0, never launched before the end (10.0): open hold,
      not counted.
    * w3 ready again at 6.0, launched alone at 9.5, unfinished at the end.
    """
    log = ScheduleLog(n=4, duration=10.0, bandwidth=np.ones(4),
                      compute_end=[[1.0, 4.5], [1.0, 5.0], [2.0], [4.0, 6.0]])
    log.syncs = [
        SyncRecord(launch=3.0, members=(0, 1), iterations=(1, 1), finish=3.5),
        SyncRecord(launch=4.0, members=(2, 3), iterations=(1, 1), finish=5.0),
        SyncRecord(launch=7.0, members=(0,), iterations=(2,), finish=7.25),
        SyncRecord(launch=9.5, members=(3,), iterations=(2,), finish=None),
    ]
    log.holds = [(1.0, 0), (1.0, 1), (2.5, 2), (5.0, 0), (5.5, 0), (6.0, 1)]
    return log


def test_wasted_wait_hand_worked():
    assert wasted_wait(hand_log()).tolist() == [4.0, 2.0, 0.0, 0.0]


def test_sync_metrics_hand_worked():
    m = sync_metrics(hand_log())
    assert m == {
        "avg_sync_time_s": (0.5 + 1.0 + 0.25) / 3,   # the unfinished sync at 9.5 is not counted
        "avg_sync_scale": (2 + 2 + 1) / 3,
        "total_sync": 3,
        "total_iteration": 7,
        "wasted_wait_s_per_worker": 6.0 / 4,
        "max_wasted_wait_s": 4.0,
        "max_sync_scale": 2,
    }


def test_no_holds_no_waste_and_empty_log():
    log = hand_log()
    log.holds = []
    assert wasted_wait(log).tolist() == [0.0] * 4
    empty = ScheduleLog(n=2, duration=1.0, bandwidth=np.ones(2), compute_end=[[], []])
    m = sync_metrics(empty)
    assert np.isnan(m["avg_sync_time_s"]) and np.isnan(m["avg_sync_scale"])
    assert (m["total_sync"], m["total_iteration"], m["wasted_wait_s_per_worker"]) == (0, 0, 0.0)


def test_newcomer_that_joined_before_the_hold_does_not_make_it_useful():
    """Useful means a member became ready *after* the hold started (E5): w1 was ready at
    1.5, before w0's hold at 2.0, so w0's 1.0 s is wasted; held at 1.0 instead, it is not."""
    log = ScheduleLog(n=2, duration=5.0, bandwidth=np.ones(2), compute_end=[[1.0], [1.5]])
    log.syncs = [SyncRecord(launch=3.0, members=(0, 1), iterations=(1, 1), finish=4.0)]
    log.holds = [(2.0, 0)]
    assert wasted_wait(log).tolist() == [1.0, 0.0]
    log.holds = [(1.0, 0)]
    assert wasted_wait(log).tolist() == [0.0, 0.0]
    assert sync_metrics(log)["wasted_wait_s_per_worker"] == pytest.approx(0.0)
