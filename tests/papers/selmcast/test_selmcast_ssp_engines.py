"""The two SSP engines (decision SM68) against each other, and the L7 delivery rules (SM67).

``engine="compiled"`` (numba event loop with its own water-filling) and
``engine="flow"`` (Python loop on the general FlowNetwork) are independent
implementations of one model: every multicast, receiver, drop and time must agree.
"""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.papers.selmcast import ssp_cluster
from simlib.papers.selmcast.ssp_cluster import MulticastTable, SSPCluster
from simlib.papers.selmcast.ssp_metrics import ssp_metrics
from simlib.papers.selmcast.ssp_scenario import SSPScenario, simulate
from simlib.runtime.cluster import ScriptedComputeTimes
from simlib.workloads.traces import REAL_TRACE_NAMES, Trace

G = 1e9


def assert_same_run(a, b, rel=1e-9):
    assert len(a.multicasts) == len(b.multicasts)
    for x, y in zip(a.multicasts, b.multicasts):
        assert (x.sender, x.round, x.sender_iter, x.initial, x.delivered) == \
               (y.sender, y.round, y.sender_iter, y.initial, y.delivered)
        assert [j for j, _ in x.dropped] == [j for j, _ in y.dropped]
        assert x.start == pytest.approx(y.start, rel=rel)
        assert (x.finish is None) == (y.finish is None)
        if x.finish is not None:
            assert x.finish == pytest.approx(y.finish, rel=rel)
            np.testing.assert_allclose(x.delivered_at, y.delivered_at, rtol=rel)
    for w in range(a.n):
        np.testing.assert_allclose(np.reshape(a.compute[w], (-1, 2)), np.reshape(b.compute[w], (-1, 2)), rtol=rel)
    np.testing.assert_allclose(a.blocked, b.blocked, rtol=rel, atol=1e-9)
    assert a.max_gap == b.max_gap and a.selections == b.selections


@settings(max_examples=30, deadline=None)
@given(n=st.integers(3, 9), scheme=st.sampled_from(["selmcast", "orpheus"]),
       layer=st.sampled_from(["L3", "L7"]), ssp=st.sampled_from([0, 1, 4, None]),
       k=st.sampled_from([0, 2, 4, None]), eta=st.sampled_from([0.0, 0.75, 1.0]),
       sharing=st.sampled_from(["maxmin", "priority"]), order=st.sampled_from(["algorithm2", "fifo"]),
       tau=st.sampled_from(["trace", "oracle", "zero"]), gamma=st.sampled_from([0.0, 0.5]),
       model_mb=st.sampled_from([50.0, 200.0, 800.0]), seed=st.integers(0, 10_000))
def test_engines_give_the_same_run(n, scheme, layer, ssp, k, eta, sharing, order, tau, gamma, model_mb, seed):
    sc = SSPScenario(scheme=scheme, n=n, layer=layer, ssp=ssp, k=k, eta=eta, sharing=sharing, priority_order=order,
                     tau_estimate=tau, gamma=gamma, model_mb=model_mb, duration_s=6.0, p=0.4)
    a = simulate(sc, seed, engine="compiled")
    b = simulate(sc, seed, engine="flow")
    assert_same_run(a, b)
    ma, mb = ssp_metrics(a), ssp_metrics(b)
    assert ma.keys() == mb.keys()
    for key in ma:
        assert ma[key] == pytest.approx(mb[key], rel=1e-9, nan_ok=True)


@pytest.mark.parametrize("knobs", [dict(task_order="text"), dict(line32="x"), dict(pareto_deadline="all"),
                                   dict(n=30, duration_s=20.0)])
def test_engines_agree_with_the_other_readings(knobs):
    sc = SSPScenario(**{"n": 12, "duration_s": 12.0, **knobs})
    assert_same_run(simulate(sc, 5, engine="compiled"), simulate(sc, 5, engine="flow"))


def test_compiled_run_grows_its_arrays_without_changing_the_run(monkeypatch):
    # long enough that the compute draws, the log arrays and Orpheus's uniforms are all grown when the
    # arrays start at their least size (FIRST_ROWS_MAX = 1: 1,024 rows, n x 1,024 uniforms); the run
    # sized from the trace's mean (the default) is the same run
    for scheme in ("selmcast", "orpheus"):
        sc = SSPScenario(scheme=scheme, n=6, duration_s=300.0, model_mb=20.0)
        ref = simulate(sc, 2, engine="flow")
        assert_same_run(simulate(sc, 2, engine="compiled"), ref)
        with monkeypatch.context() as m:
            m.setattr(ssp_cluster, "FIRST_ROWS_MAX", 1)
            a = simulate(sc, 2, engine="compiled")
        assert max(len(c) for c in a.compute) > 64 and len(a.multicasts) > 1024
        assert a.selections > 1024                      # Orpheus: more than n x 1,024 uniforms used
        assert_same_run(a, ref)
    # Orpheus's uniforms drawn in many small pieces (1/64 of the room first, then 1/64 at a time): the same run
    sc = SSPScenario(scheme="orpheus", n=6, duration_s=300.0, model_mb=20.0)
    with monkeypatch.context() as m:
        m.setattr(ssp_cluster, "ORPHEUS_FIRST_PART", 64)
        m.setattr(ssp_cluster, "ORPHEUS_PIECES", 64)
        assert_same_run(simulate(sc, 2, engine="compiled"), simulate(sc, 2, engine="flow"))


def test_delivered_and_drop_counts_by_hand():
    # three multicasts: 2 receivers (one got the model), none, 3 (two got it); one drop from the third
    nan = float("nan")
    i, f = (lambda *v: np.array(v, np.int64)), (lambda *v: np.array(v, float))
    tab = MulticastTable(sender=i(0, 1, 2), round=i(1, 1, 1), start=f(0, 0, 0), sender_iter=i(0, 0, 0),
                         finish=f(1, nan, 2), r0=i(0, 2, 2), nr=i(2, 0, 3), recv=i(1, 2, 0, 1, 3),
                         recv_at=f(0.5, nan, 1.0, nan, 2.0), drop_mc=i(2), drop_j=i(1), drop_t=f(0.7))
    assert tab.delivered_counts().tolist() == [1, 0, 2]
    assert tab.drop_counts().tolist() == [0, 0, 1]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.booleans(), max_size=5), max_size=8), st.booleans())
def test_delivered_counts_count_each_multicasts_rows(got, gap):
    """``delivered_counts`` (a sum per multicast over its back-to-back receiver rows, or a cumulative sum
    when the rows are not back to back: ``gap`` puts an unused row after each multicast's) against a count
    of each multicast's non-NaN ``recv_at``, with multicasts of no receiver at the start, middle and end."""
    nan = float("nan")
    r0, recv_at = [], []
    for g in got:
        r0.append(len(recv_at))
        recv_at += [1.0 if d else nan for d in g] + ([nan] if gap else [])
    m = len(got)
    i = lambda v: np.array(v, np.int64)                 # noqa: E731
    tab = MulticastTable(sender=i([0] * m), round=i([1] * m), start=np.zeros(m), sender_iter=i([0] * m),
                         finish=np.zeros(m), r0=i(r0), nr=i([len(g) for g in got]), recv=i([0] * len(recv_at)),
                         recv_at=np.array(recv_at, float), drop_mc=i([]), drop_j=i([]), drop_t=np.zeros(0))
    counts = tab.delivered_counts()
    assert counts.dtype == np.int64
    assert counts.tolist() == [sum(g) for g in got]


def test_table_and_records_round_trip():
    log = simulate(SSPScenario(n=10, duration_s=15.0, layer="L7", eta=0.0), 1)
    assert log.table.drop_mc.size > 0
    again = MulticastTable.from_records(log.multicasts)
    for name in ("sender", "round", "start", "sender_iter", "finish", "r0", "nr", "recv", "recv_at"):
        np.testing.assert_array_equal(getattr(again, name), getattr(log.table, name), err_msg=name)
    drops = lambda tab: sorted(zip(tab.drop_mc.tolist(), tab.drop_t.tolist(), tab.drop_j.tolist()))
    assert drops(again) == drops(log.table)


def test_engine_must_be_known():
    with pytest.raises(ValueError, match="engine must be one of"):
        SSPCluster(egress=[G, G], ingress=[G, G], compute=ScriptedComputeTimes([[1], [1]]),
                   trace=Trace("t", [1.0]), volume_bits=G, p=1, rules=SSPScenario(), engine="fast")


@pytest.mark.parametrize("engine", ["compiled", "flow"])
def test_l7_runs_with_eta_zero_complete(engine):
    # SM67: before it these runs stopped with a KeyError when Algorithm 2 dropped a receiver
    # whose unicast had already completed; now such a receiver stays delivered
    for seed in (1, 2):
        log = simulate(SSPScenario(n=20, layer="L7", eta=0.0, duration_s=30.0), seed, engine=engine)
        m = ssp_metrics(log)
        assert m["total_rounds"] > 100 and m["preempted_receivers"] > 0
        for mc in log.multicasts:
            dropped = {j for j, _ in mc.dropped}
            assert not dropped & set(mc.delivered)
            if mc.finish is not None:
                assert len(mc.delivered) + len(dropped) == len(mc.initial)
                assert len(mc.delivered) >= 6              # p = ceil(0.3 * 20) receivers still served


@settings(max_examples=25, deadline=None)
@given(n=st.integers(3, 10), scheme=st.sampled_from(["selmcast", "orpheus"]), layer=st.sampled_from(["L3", "L7"]),
       ssp=st.sampled_from([0, 1, 4, None]), k=st.sampled_from([0, 2, 4, None]),
       eta=st.sampled_from([0.0, 0.5, 0.75, 1.0]), p=st.sampled_from([0.2, 0.3, 0.5]),
       line32=st.sampled_from(["y", "x"]), gamma=st.sampled_from([0.0, 0.5]), seed=st.integers(0, 10_000))
def test_engines_give_the_same_run_under_maxmin(n, scheme, layer, ssp, k, eta, p, line32, gamma, seed):
    # the default sharing (SM50): the compiled loop's water-filling against FlowNetwork's max-min,
    # every multicast, receiver, drop and time
    sc = SSPScenario(scheme=scheme, n=n, layer=layer, ssp=ssp, k=k, eta=eta, p=p, line32=line32, gamma=gamma,
                     sharing="maxmin", duration_s=5.0)
    assert_same_run(simulate(sc, seed, engine="compiled"), simulate(sc, seed, engine="flow"))


@pytest.mark.filterwarnings("ignore::simlib.workloads.traces.TraceWrapWarning")
@pytest.mark.parametrize("trace, n, duration_s", [("pai-job1", 20, 60.0)]
                         + [(t, 20, 30.0) for t in REAL_TRACE_NAMES])
def test_engines_agree_on_the_real_traces_under_maxmin(trace, n, duration_s):
    """SM71: a real trace's copy 0 replays recorded compute times, so workers that start together end
    together and a straggler's elapsed time sits on an atom of the trace; the engines' rounding used to
    put it on either side (pai-job1, n = 20, seed 2: the first 995 multicasts agreed, #996 did not).
    Every multicast, receiver and drop agrees; times to 1e-7 relative (each multicast ends within the
    flows' completion tolerance N6, ~1e-10 s, and the differences add up over a run)."""
    sc = SSPScenario(n=n, trace=trace, sharing="maxmin", duration_s=duration_s)
    assert_same_run(simulate(sc, 2, engine="compiled"), simulate(sc, 2, engine="flow"), rel=1e-7)


def test_metrics_read_the_compiled_arrays_as_the_intervals():
    """ssp_metrics reads the compiled engine's compute arrays (issue 48): the same metrics, bit for bit, as
    from ``log.compute``'s (start, end) lists, including iterations that end after the run."""
    import dataclasses
    import math
    log = simulate(SSPScenario(n=8, duration_s=20.0), 3)
    assert log._compute_arrays is not None
    assert any(iv[-1][1] > log.duration for iv in log.compute)        # a cut interval is counted
    lists = dataclasses.replace(log, _compute_arrays=None)
    a, b = ssp_metrics(log), ssp_metrics(lists)
    assert a.keys() == b.keys()
    assert all(a[k] == b[k] or (math.isnan(a[k]) and math.isnan(b[k])) for k in a)


def test_compiled_log_builds_compute_on_first_use():
    """The compiled engine's ``compute`` lists are built from its arrays only when read (issue 48: a sweep's
    trial reads the arrays alone): not before, then the intervals of the arrays, worker by worker, each
    (start, start + draw) of the iterations it started; kept once built; a pickled log and a
    ``dataclasses.replace`` copy without the arrays have the same lists."""
    import dataclasses
    import pickle
    log = simulate(SSPScenario(n=6, duration_s=15.0), 4)
    assert "compute" not in log.__dict__
    starts, ends, used = log._compute_arrays
    back = pickle.loads(pickle.dumps(log))
    built = log.compute
    assert log.compute is built and "compute" in log.__dict__
    assert [len(iv) for iv in built] == used.tolist() and sum(used) > 6
    for w in range(6):
        for k, (a, b) in enumerate(built[w]):
            assert (a, b) == (starts[w, k], ends[w, k]) and b > a
            assert k == 0 or a >= built[w][k - 1][1]                 # a worker's iterations do not overlap
    assert built[0][0][0] == 0.0                                     # every worker starts at 0
    assert back.compute == built
    assert dataclasses.replace(log, _compute_arrays=None).compute == built
    with pytest.raises(AttributeError):
        log.not_a_field
