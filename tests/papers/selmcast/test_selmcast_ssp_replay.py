"""One-way merges in the replay harness (SyncRecord.targets) and SSP runs as schedule logs (SM66)."""
import numpy as np
import pytest

from simlib.runtime.cluster import ScriptedComputeTimes
from simlib.runtime.log import ScheduleLog, SyncRecord
from simlib.training.learning import load_problem
from simlib.training.replay import replay
from simlib.papers.selmcast.ssp_cluster import SSPCluster
from simlib.papers.selmcast.ssp_scenario import SSPScenario
from simlib.papers.selmcast.ssp_replay import multicast_schedule_log
from simlib.workloads.traces import Trace


@pytest.fixture(scope="module")
def blobs():
    return load_problem("blobs")


def log_with(syncs):
    # worker 0 takes one SGD step at t = 1; worker 1 never computes
    return ScheduleLog(n=2, duration=3.0, bandwidth=np.ones(2), compute_end=[[1.0], []], syncs=syncs)


def test_targets_replace_only_the_receiver(blobs):
    alone = replay(log_with([]), blobs, eval_every_s=1.0, seed=0)
    x0, x_init = alone.final_params[0], alone.x_init
    assert not np.allclose(x0, x_init)
    rec = SyncRecord(launch=2.0, members=(0, 1), iterations=(1, 0), finish=2.0, weights=(0.5, 0.5), targets=(1,))
    one_way = replay(log_with([rec]), blobs, eval_every_s=1.0, seed=0)
    np.testing.assert_allclose(one_way.final_params[0], x0)                 # the sender keeps its model
    np.testing.assert_allclose(one_way.final_params[1], 0.5 * (x0 + x_init))
    both = SyncRecord(launch=2.0, members=(0, 1), iterations=(1, 0), finish=2.0, weights=(0.5, 0.5))
    sym = replay(log_with([both]), blobs, eval_every_s=1.0, seed=0)
    np.testing.assert_allclose(sym.final_params[0], 0.5 * (x0 + x_init))   # default: every member
    bad = SyncRecord(launch=2.0, members=(0, 1), iterations=(1, 0), finish=2.0, targets=(1, 1))
    with pytest.raises(ValueError, match="targets must be distinct members"):
        replay(log_with([bad]), blobs, eval_every_s=1.0, seed=0)


def test_ssp_run_becomes_one_record_per_delivery(blobs):
    G = 1e9
    log = SSPCluster(egress=[G, G, G], ingress=[G, G, G], compute=ScriptedComputeTimes([[1, 1, 1], [3, 1], [5]]),
                     trace=Trace("t", [1.0]), volume_bits=G, p=1,
                     rules=SSPScenario(scheme="selmcast", ssp=None, k=4)).run(6.0)
    sl = multicast_schedule_log(log)
    n_deliveries = sum(len(m.delivered) for m in log.multicasts if m.finish is not None)
    assert len(sl.syncs) == n_deliveries > 0
    for r in sl.syncs:
        i, j = r.members
        assert r.targets == (j,) and r.weights == (0.5, 0.5)
        # iteration counts are the compute ends at or before the delivery
        assert r.iterations == tuple(int(np.searchsorted(sl.compute_end[w], r.launch, side="right")) for w in (i, j))
    res = replay(sl, blobs, eval_every_s=1.0, seed=0)
    assert res.curve["syncs"].iloc[-1] == n_deliveries


@pytest.mark.parametrize("scheme,trace,n,duration", [("selmcast", "lstm", 12, 40.0), ("orpheus", "lstm", 12, 40.0),
                                                     ("selmcast", "transformer", 8, 25.0)])
def test_table_log_is_the_record_by_record_log(scheme, trace, n, duration):
    """The columnar path gives the records of the delivery-by-delivery one (read from ``log.multicasts``),
    field by field and in the same order (ties of delivery times included: L3's deliveries share a finish)."""
    from simlib.papers.selmcast.ssp_replay import _records_schedule_log
    from simlib.papers.selmcast.ssp_scenario import simulate as ssp_simulate

    log = ssp_simulate(SSPScenario.from_params(dict(scheme=scheme, n=n, trace=trace, duration_s=duration)),
                       np.random.SeedSequence(5))
    assert log.table is not None
    fast = multicast_schedule_log(log, weight=0.3)
    ends = [np.array(e, dtype=float) for e in fast.compute_end]
    ref = _records_schedule_log(log, 0.3, ends)
    assert len(fast.syncs) == len(ref.syncs) > n
    assert len({r.launch for r in ref.syncs}) < len(ref.syncs)          # some deliveries tie
    for a, b in zip(fast.syncs, ref.syncs):
        assert a == b
        assert [type(x) for x in (a.launch, *a.members, *a.iterations)] == [float, int, int, int, int]
    assert fast.compute_end == ref.compute_end and fast.n == ref.n and fast.duration == ref.duration
