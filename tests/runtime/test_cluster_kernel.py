"""The compiled cluster engine (decision N13) against the Python event loop, its reference."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.core.collectives import RingClosedForm
from simlib.core.events import NoProgressError
from simlib.core.topology import BigSwitch
from simlib.runtime import cluster_kernel as ck
from simlib.runtime.baselines import AllReduceController, PartialReduceController
from simlib.runtime.cluster import Cluster, ComputeTimes, ScriptedComputeTimes
from simlib.runtime.decentralized import ADPSGDController, EagerReduceController, WholeRing
from simlib.runtime.parameter_server import ParameterServerController, ps_cluster


class RecordingRule:
    """A stateful weight rule whose weights depend on the whole history of calls: any change in the
    order in which an engine calls it changes the weights it returns (and ``calls``)."""

    def reset(self, n):
        self.k = np.zeros(n, dtype=np.int64)
        self.calls = []

    def on_iteration(self, w):
        self.k[w] += 1
        self.calls.append(("i", w))

    def on_sync(self, members):
        self.calls.append(("s", tuple(members)))
        ks = self.k[list(members)].astype(float) + len(self.calls)
        self.k[list(members)] = self.k[list(members)].max()
        return ks / ks.sum(), 1.0 / len(self.calls)


def _cluster(setting: dict, *, rule=None) -> Cluster:
    s = setting
    rng = np.random.default_rng(s["seed"])
    n = s["n"]
    bw = rng.choice([1e9, 2.5e9, 10e9], size=n) if s["tied_bw"] else rng.uniform(0.5e9, 20e9, size=n)
    scale = np.where(np.arange(n) < s["hl"], float(s["hl"]), 1.0)
    if s["scripted"]:
        times = [list(rng.exponential(s["mean"], size=rng.integers(0, 40))) for _ in range(n)]
        compute = ScriptedComputeTimes(times)
    else:
        mean = s["mean"]
        compute = ComputeTimes(lambda g, k: g.lognormal(np.log(mean), 0.5, size=k), n, np.random.SeedSequence(s["seed"]),
                               chunk=s["chunk"], scale=scale)
    if s.get("ps"):
        mode, backups, hete, asp, step, apply_s, servers, merge = s["ps"]
        ctrl = ParameterServerController(mode, backups=min(backups, n - 1) if mode == "sync" else 0,
                                         hete_c=hete if mode == "async" else None,
                                         asp_factor=asp if mode == "async" and hete is None else 1.0, step=step,
                                         apply_s=apply_s)
        return ps_cluster(bw, compute, ctrl, model_bits=s["bits"], alpha=s["alpha"], duration=s["duration"],
                          servers=servers, merge_servers=merge)
    if s.get("ad"):
        ctrl = ADPSGDController(np.random.default_rng(s["seed"] + 7), passive=s["ad"], atomic=s.get("atomic", False))
        return Cluster(BigSwitch.symmetric(bw), ctrl.exchange(s["bits"], s["alpha"]), compute, ctrl,
                       duration=s["duration"], weight_rule=rule)
    if s.get("eager"):
        return Cluster(BigSwitch.symmetric(bw), WholeRing(s["bits"], s["alpha"]), compute,
                       EagerReduceController(s["eager"]), duration=s["duration"], weight_rule=rule)
    ctrl = AllReduceController() if s["p"] is None else PartialReduceController(s["p"])
    return Cluster.big_switch(bw, compute, ctrl, model_bits=s["bits"], alpha=s["alpha"], duration=s["duration"],
                              weight_rule=rule)


def _random_setting(rng: np.random.Generator) -> dict:
    n = int(rng.integers(2, 40))
    return dict(seed=int(rng.integers(2**31)), n=n, p=None if rng.random() < 0.3 else int(rng.integers(1, n + 1)),
                tied_bw=bool(rng.random() < 0.4), hl=int(rng.integers(1, 4)), scripted=bool(rng.random() < 0.2),
                mean=float(rng.choice([0.05, 0.3, 1.0])), chunk=int(rng.choice([3, 256])),
                bits=float(rng.choice([1e6, 8e8, 4e9])), alpha=float(rng.choice([0.0, 1e-3])),
                duration=float(rng.choice([5.0, 30.0])), weights=bool(rng.random() < 0.5),
                eager=rng.choice([None, None, None, "solo", "majority"]), ps=_random_ps(rng))


def _random_ps(rng: np.random.Generator):
    if rng.random() < 0.6:
        return None
    return (str(rng.choice(["sync", "async"])), int(rng.integers(0, 3)), [None, 1.0][rng.integers(2)],
            float(rng.choice([1.0, 0.25])), str(rng.choice(["mean", "sum"])), float(rng.choice([0.0, 0.0, 0.02])),
            int(rng.integers(1, 4)), bool(rng.random() < 0.5))


def _run_both(setting: dict, on_python=None):
    """Both engines' runs of ``setting``: their logs, controllers' and workers' state; ``on_python(cluster)`` is
    called on the Python loop's cluster before it runs."""
    out = []
    for engine in ("python", "compiled"):
        rule = (RecordingRule() if setting.get("weights") and not (setting.get("eager") or setting.get("ps")
                                                                   or setting.get("ad")) else None)
        c = _cluster(setting, rule=rule)
        if engine == "python" and on_python is not None:
            on_python(c)
        log = c.run(engine=engine)
        ctrl = c.controller
        out.append((repr(log), list(getattr(ctrl, "queue", [])), getattr(ctrl, "version", None),
                    getattr(ctrl, "busy", None), list(getattr(ctrl, "step", [])), getattr(ctrl, "server_free", None),
                    repr(getattr(ctrl, "records", None)), c._blocks.tolist(), np.nan_to_num(c._left, nan=-1).tolist(),
                    str(getattr(ctrl, "rng", np.random.default_rng(0)).bit_generator.state),
                    None if not hasattr(ctrl, "held") else ctrl.held.tolist(), c.phase.tolist(), c.iterations.tolist(), c.compute_start.tolist(),
                    c.compute_finish.tolist(), np.nan_to_num(c.ready_time, nan=-1.0).tolist(), c.sim.now,
                    c.sim.events_run, None if rule is None else rule.calls))
    return out


def test_compiled_engine_covers_the_settings_tested():
    for k in range(20):
        c = _cluster(_random_setting(np.random.default_rng(k)))
        assert ck.supported(c) is None


@pytest.mark.parametrize("k", range(30))
def test_compiled_equals_python_on_seeded_random_settings(k):
    """Same log (every float by repr), worker arrays, clock, event count and weight-rule calls."""
    py, comp = _run_both(_random_setting(np.random.default_rng(1000 + k)))
    assert comp == py


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(2, 25), p=st.integers(0, 25), alpha=st.sampled_from([0.0, 1e-3]),
       hl=st.integers(1, 3), eager=st.sampled_from([None, None, "solo", "majority"]))
def test_compiled_equals_python_hypothesis(seed, n, p, alpha, hl, eager):
    setting = dict(seed=seed, n=n, p=None if p == 0 else min(p, n), tied_bw=seed % 2 == 0, hl=min(hl, n),
                   scripted=False, mean=0.2, chunk=7, bits=5e8, alpha=alpha, duration=10.0, weights=True, eager=eager)
    py, comp = _run_both(setting)
    assert comp == py


def test_many_concurrent_groups_grow_and_compact_the_flow_table():
    """Groups of 2 among 700 workers: ~350 flows at once, so the slot table grows past 256 slots and is
    compacted both when full and after completions (FlowNetwork._reserve / _collect_completed)."""
    setting = dict(seed=5, n=700, p=2, tied_bw=False, hl=1, scripted=False, mean=0.05, chunk=256, bits=4e9,
                   alpha=1e-3, duration=10.0, weights=False)
    py, comp = _run_both(setting)
    assert comp == py
    c = _cluster(setting)
    log = c.run(engine="compiled")
    ev = sorted([(s.launch, 1) for s in log.syncs] + [(s.finish, -1) for s in log.syncs if s.finish is not None])
    assert max(np.cumsum([d for _, d in ev])) > 256      # the regime this test is for was reached


def test_engine_switch_selects_the_loop(monkeypatch):
    """'auto' and 'compiled' run the compiled loop where it applies, 'python' never does; 'compiled' refuses
    what it does not cover, and 'auto' then runs the Python loop."""
    calls = []
    real = ck.run_compiled
    monkeypatch.setattr(ck, "run_compiled", lambda c: (calls.append(c), real(c)))
    setting = _random_setting(np.random.default_rng(3))
    for engine, used in (("python", 0), ("auto", 1), ("compiled", 1)):
        calls.clear()
        _cluster(setting).run(engine=engine)
        assert len(calls) == used
    closed = Cluster(BigSwitch.symmetric([1e9] * 4), RingClosedForm(1e8, 1e-3), ScriptedComputeTimes([[1.0]] * 4),
                     AllReduceController(), duration=10.0)
    assert "collective" in ck.supported(closed)
    with pytest.raises(ValueError, match="engine 'compiled' does not cover"):
        closed.run(engine="compiled")
    calls.clear()
    closed.run(engine="auto")
    assert calls == [] and len(closed.log.syncs) == 1
    with pytest.raises(ValueError, match="engine"):
        _cluster(setting).run(engine="numba")


PS_CASES = [("sync", 0, None, 1.0, "mean", 0.0, 1, True),      # BSP
            ("sync", 2, None, 1.0, "sum", 0.02, 3, False),     # BK, an apply queue, three servers apart
            ("sync", 1, None, 1.0, "mean", 0.0, 2, True),      # BK, two servers merged
            ("async", 0, None, 1.0, "mean", 0.0, 1, True),     # ASP
            ("async", 0, None, 0.25, "sum", 0.02, 2, False),   # ASP with a step factor and an apply queue
            ("async", 0, 1.0, 1.0, "mean", 0.0, 3, True),      # HETE
            ("async", 0, 0.5, 1.0, "mean", 0.02, 1, True)]     # HETE with an apply queue


@pytest.mark.parametrize("case", PS_CASES)
@pytest.mark.parametrize("k", range(2))
def test_compiled_equals_python_on_parameter_servers(case, k):
    """PS BSP / BK / ASP / HETE: every record's version, factor and apply time, the dropped count, the server's
    state, with latency or not, an apply queue or not, one or several servers (merged or not)."""
    setting = dict(_random_setting(np.random.default_rng(2000 + k)), eager=None, ps=case)
    assert ck.supported(_cluster(setting)) is None
    py, comp = _run_both(setting)
    assert comp == py
    if case[0] == "sync" and case[1] > 0 and k == 0:
        assert "dropped_gradients" in py[0]       # the stale-gradient path was taken


@pytest.mark.parametrize("passive", ["compute", "block"])
@pytest.mark.parametrize("k", range(6))
def test_compiled_equals_python_on_adpsgd(passive, k):
    """AD-PSGD (non-atomic): the neighbours drawn in the same order (and the generator left as the Python loop
    leaves it), the records' iterations and ``computing``, a blocked neighbour's paused and resumed steps."""
    setting = dict(_random_setting(np.random.default_rng(3000 + k)), eager=None, ps=None, ad=passive)
    assert ck.supported(_cluster(setting)) is None
    py, comp = _run_both(setting)
    assert comp == py


class WaitCount:
    """Counts, on a Python loop's atomic ``PairwiseExchange`` (``attach``: wraps its ``start`` and ``_release``),
    the exchanges that had to wait for a lock (``waited``), the most waiting at once (``most``) and the releases
    after which an exchange that still waits was asked for before one that started (``passed``: the later one's
    workers were free, the earlier one's not)."""

    def __init__(self):
        self.waited = self.most = self.passed = 0

    def attach(self, cluster) -> None:
        col = cluster.collective
        start, release = col.start, col._release

        def counted_start(members, on_done):
            self.waited += bool(set(members) & col._locked)
            start(members, on_done)
            self.most = max(self.most, len(col._waiting))

        def counted_release(i, j):
            before = list(col._waiting)
            release(i, j)
            left = [before.index(x) for x in col._waiting]
            gone = [k for k in range(len(before)) if k not in left]
            self.passed += bool(left and gone and min(left) < max(gone))
        col.start, col._release = counted_start, counted_release


def _atomic_setting(rng: np.random.Generator, passive: str) -> dict:
    """A random AD-PSGD setting with atomic averaging where exchanges take about a step or more (a big model, fast
    steps, 5-13 workers, 30 s), so that many wait for a lock, several at once."""
    return dict(_random_setting(rng), eager=None, ps=None, ad=passive, atomic=True, n=int(rng.integers(5, 14)),
                bits=float(rng.choice([8e8, 4e9])), mean=float(rng.choice([0.05, 0.3])), duration=30.0)


@pytest.mark.parametrize("passive", ["compute", "block"])
@pytest.mark.parametrize("k", range(6))
def test_compiled_equals_python_on_atomic_adpsgd(passive, k):
    """AD-PSGD with atomic averaging (AD4): an exchange whose worker is held waits, and at each release the waiting
    exchanges whose two workers are free start in the order asked (a later one seeing the locks an earlier one
    took), the neighbour blocked from its flows' start (``"block"``): the same log, clock, events, blocks and
    generator as the Python loop, on settings where exchanges did wait (several at once, some passed by a later
    one)."""
    setting = _atomic_setting(np.random.default_rng(4000 + k), passive)
    assert ck.supported(_cluster(setting)) is None
    count = WaitCount()
    py, comp = _run_both(setting, on_python=count.attach)
    assert comp == py
    assert count.waited > 0 and count.most >= 2 and count.passed > 0    # the regime this test is for was reached


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(2, 24), passive=st.sampled_from(["compute", "block"]),
       alpha=st.sampled_from([0.0, 1e-3]), bits=st.sampled_from([1e6, 8e8, 4e9]), mean=st.sampled_from([0.05, 0.3]),
       hl=st.integers(1, 3), tied=st.booleans())
def test_compiled_equals_python_on_atomic_adpsgd_hypothesis(seed, n, passive, alpha, bits, mean, hl, tied):
    setting = dict(seed=seed, n=n, p=None, tied_bw=tied, hl=min(hl, n), scripted=False, mean=mean, chunk=7,
                   bits=bits, alpha=alpha, duration=10.0, weights=False, eager=None, ps=None, ad=passive, atomic=True)
    py, comp = _run_both(setting)
    assert comp == py


def test_adpsgd_without_its_own_exchange_falls_back():
    """AD-PSGD is compiled with the exchange its controller builds (locked as the controller is, the hook that
    blocks the neighbour where it is locked and blocking); any other exchange runs the Python loop."""
    from simlib.runtime.decentralized import PairwiseExchange

    def cluster(ctrl, col):
        return Cluster(BigSwitch.symmetric([1e9] * 3), col, ScriptedComputeTimes([[1.0]] * 3), ctrl, duration=5.0)
    for passive in ("compute", "block"):
        for atomic in (False, True):
            ctrl = ADPSGDController(np.random.default_rng(0), passive=passive, atomic=atomic)
            assert ck.supported(cluster(ctrl, ctrl.exchange(1e6, 0.0))) is None
    blocking = ADPSGDController(np.random.default_rng(0), passive="block", atomic=True)
    assert "PairwiseExchange" in ck.supported(cluster(blocking, PairwiseExchange(1e6, 0.0, atomic=True)))
    unlocked = ADPSGDController(np.random.default_rng(0))
    assert "PairwiseExchange" in ck.supported(cluster(unlocked, PairwiseExchange(1e6, 0.0, atomic=True)))
    used = ADPSGDController(np.random.default_rng(0), atomic=True)
    col = used.exchange(1e6, 0.0)
    col._locked.add(1)
    assert "PairwiseExchange" in ck.supported(cluster(used, col))


def test_eager_reduce_is_compiled_and_its_rounds_cover_the_quorum():
    setting = dict(seed=11, n=9, p=None, tied_bw=False, hl=2, scripted=False, mean=0.3, chunk=256, bits=8e8,
                   alpha=1e-3, duration=20.0, weights=False, eager="majority")
    c = _cluster(setting)
    assert ck.supported(c) is None
    log = c.run(engine="compiled")
    assert log.syncs and all(len(s.members) >= 5 and s.kind == "eager" for s in log.syncs)
    assert _run_both(setting)[0] == _run_both(setting)[1]
    with_rule = _cluster(setting, rule=RecordingRule())
    assert "weight rule" in ck.supported(with_rule)


def test_other_compute_sources_fall_back():
    class Fixed:
        def next(self, w):
            return 1.0
    c = Cluster.big_switch([1e9] * 3, Fixed(), PartialReduceController(2), model_bits=1e6, alpha=0.0, duration=5.0)
    assert "compute-time source" in ck.supported(c)


def test_no_progress_is_reported_by_both_engines():
    for engine in ("python", "compiled"):
        c = Cluster.big_switch([1e9] * 3, ScriptedComputeTimes([[0.0] * 10**6] * 3), AllReduceController(),
                               model_bits=0.0, alpha=0.0, duration=5.0)
        c.sim.max_events_per_instant = 1000
        with pytest.raises(NoProgressError):
            c.run(engine=engine)


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(st.integers(0, 5000), max_size=120))
def test_set_replica_iterates_as_cpython_does(keys):
    """The opened links reach the solvers in the order a Python set iterates them (FlowNetwork._inc_update)."""
    iv = np.zeros(ck.N_IV, np.int64)
    iv[ck.I_SMASK] = 7
    tab = np.full(1 << 16, -1, np.int64)
    old = np.zeros(tab.shape[0], np.int64)
    ref = set()
    for k in keys:
        ck._set_add(tab, iv, k, old)
        ref.add(k)
    out = np.full(len(ref) + 1, -7, np.int64)
    assert ck._set_take(tab, iv, out) == len(ref)
    assert out[:len(ref)].tolist() == list(ref) and out[len(ref)] == -7
    assert (tab == -1).all() and iv[ck.I_SMASK] == 7


@pytest.mark.parametrize("k", range(8))
def test_compiled_equals_python_with_partial_reduces_weight_rules(k):
    """The compiled engine replays a real weight rule (002's constant or dynamic partial reduce) with its bulk
    ``on_iterations`` and the dynamic rule's remembered weights; the Python loop calls ``on_iteration`` once per
    compute end and computes every group's weights afresh: the same log (every weight by repr) and the same
    final iteration numbers."""
    from simlib.papers.partial_reduce.weights import ConstantWeights, DynamicWeights

    rng = np.random.default_rng(500 + k)
    s = _random_setting(rng)
    s.update(weights=False, eager=None, ps=None, ad=None, p=int(rng.integers(1, s["n"] + 1)), duration=30.0)
    missing = ("initial", "oldest", "closest")[k % 3]
    logs = []
    for engine in ("python", "compiled"):
        rule = ConstantWeights() if k == 7 else DynamicWeights(0.5, missing)
        c = _cluster(s)
        c.weight_rule = rule
        rule.reset(c.n)
        logs.append((repr(c.run(engine=engine)), rule.iterations.tolist()))
    assert logs[0] == logs[1]
    assert "init_weight" in logs[0][0]


@pytest.mark.parametrize("k", range(10))
def test_compiled_equals_python_on_a_recorded_traces_replay(k):
    """A recorded trace's replay (ReplayComputeTimes: copies with jitter, offsets) is drawn ahead by the compiled
    engine: the same log, worker arrays and clock as the Python loop, and the same wrap warnings (one when a
    worker used more draws than the recording holds, none otherwise, whatever was drawn ahead)."""
    import warnings

    from simlib.workloads.traces import RecordedTrace, TraceWrapWarning

    rng = np.random.default_rng(700 + k)
    R, L = int(rng.integers(1, 4)), int(rng.integers(20, 120))
    trace = RecordedTrace("hand", rng.lognormal(np.log(0.2), 0.4, size=(R, L)))
    n = int(rng.integers(2, 12))
    duration = float(rng.choice([2.0, 8.0, 40.0]))
    p = None if k % 3 == 0 else int(rng.integers(1, n + 1))
    out = []
    for engine in ("python", "compiled"):
        compute = trace.compute_times(n, np.random.SeedSequence(k), chunk=16,
                                      offsets=("copy", "worker")[k % 2])
        if k % 4 == 3:
            c = ps_cluster(np.full(n, 2e9), compute, ParameterServerController("async"), model_bits=1e8, alpha=1e-3,
                           duration=duration)
        else:
            c = Cluster.big_switch(np.full(n, 2e9), compute, AllReduceController() if p is None
                                   else PartialReduceController(p), model_bits=1e8, alpha=1e-3, duration=duration)
        assert ck.supported(c) is None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            log = c.run(engine=engine)
        wraps = [w for w in caught if issubclass(w.category, TraceWrapWarning)]
        out.append((repr(log), c.iterations.tolist(), c.compute_finish.tolist(), c.sim.now, c.sim.events_run,
                    len(wraps)))
    assert out[0] == out[1]
