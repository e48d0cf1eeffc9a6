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


# ---- the compiled wasted wait against the plain-Python reference (bit for bit)
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from simlib.runtime.metrics import wasted_wait_python  # noqa: E402

_T = st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0]) | st.floats(0.0, 5.0, allow_nan=False)


@st.composite
def random_logs(draw):
    """Small logs with ties, unsorted and repeated hold times, members without a compute end before a
    launch (Python's ``ends[-1]``) and workers never held or never launched."""
    n = draw(st.integers(1, 5))
    ends = [sorted(draw(st.lists(_T, min_size=1, max_size=4))) for _ in range(n)]
    syncs = []
    for _ in range(draw(st.integers(0, 6))):
        members = tuple(draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True)))
        syncs.append(SyncRecord(launch=draw(_T), members=members, iterations=(0,) * len(members), finish=None))
    syncs.sort(key=lambda s: s.launch)
    holds = [(draw(_T), draw(st.integers(0, n - 1))) for _ in range(draw(st.integers(0, 10)))]
    if draw(st.booleans()):
        holds.sort()
    log = ScheduleLog(n=n, duration=5.0, bandwidth=np.ones(n), compute_end=ends)
    log.syncs, log.holds = syncs, holds
    return log


@settings(max_examples=400, deadline=None)
@given(random_logs())
def test_compiled_wasted_wait_is_the_python_reference_bit_for_bit(log):
    assert wasted_wait(log).tobytes() == wasted_wait_python(log).tobytes()


def test_compiled_wasted_wait_on_simulated_selective_reduce_logs():
    """Recorded runs: selective reduce holds workers (E5), so some waits are wasted; the compiled loop gives
    the reference's values bit for bit."""
    from simlib.papers.cluster_scenario import Scenario, simulate

    wasted_any = 0
    for n, seed in ((10, 0), (30, 1), (40, 2)):
        log = simulate(Scenario.from_params(dict(scheme="selective", n=n, trace="cnn", duration_s=60.0)), seed)
        assert log.holds
        ref = wasted_wait_python(log)
        assert wasted_wait(log).tobytes() == ref.tobytes()
        wasted_any += int((ref > 0).sum())
        # every member has a compute end at or before its launch (``Cluster.launch`` takes READY workers
        # only), so the reference's ``ends[-1]`` for a member without one is never reached by a cluster log
        for s in log.syncs:
            for w in s.members:
                assert log.compute_end[w] and log.compute_end[w][0] <= s.launch
    assert wasted_any > 0


def test_wasted_wait_outside_the_flat_arrays_takes_the_reference():
    """A hold of a worker id outside [0, n) is ignored (no member matches it), a float id 1.0 matches member
    1 as a dict key does; a member with no compute end whose ready time is needed raises Python's IndexError."""
    log = hand_log()
    log.holds = log.holds + [(2.0, 7)]
    assert wasted_wait(log).tolist() == [4.0, 2.0, 0.0, 0.0]
    log = hand_log()
    log.holds = [(t, float(w)) for t, w in log.holds]
    assert wasted_wait(log).tolist() == [4.0, 2.0, 0.0, 0.0]
    log = hand_log()
    log.compute_end[1] = []
    with pytest.raises(IndexError):
        wasted_wait_python(log)
    with pytest.raises(IndexError):
        wasted_wait(log)
