"""The selective-reduce controller's compiled pass against independent references.

* its sums and dot product against numpy's (the schedule is only identical to the
  validating implementation if Alg. 2 lines 8-9 round the same way);
* its CDF evaluation against :class:`Trace` / :class:`OnlineECDF` (numpy);
* one whole pass against :func:`plan_round` (per-group candidate masks and a Python
  completion_prob), on random cluster states.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from numba import njit

from simlib.papers.selective_reduce import kernels
from simlib.papers.selective_reduce.algorithms import plan_round
from simlib.papers.selective_reduce.progress import ConditionalProgress, OracleProgress, TraceProgress
from simlib.workloads.traces import OnlineECDF, Trace, load_trace
from simlib.runtime.cluster import WorkerView

SIZES = list(range(0, 300)) + [511, 512, 1000, 1023, 4096, 8191, 8192, 8193, 12345, 16385, 30000]


def test_pairwise_sum_is_numpys_sum_bit_for_bit():
    rng = np.random.default_rng(0)
    for n in SIZES:
        a = rng.random(n + 3) * (rng.random(n + 3) < 0.7)
        for lo in (0, 3):
            assert kernels.pairwise_sum(a, lo, n) == float(a[lo:lo + n].sum()), n


@njit
def _numba_dot(a, b):
    return np.dot(a, b)


def test_compiled_dot_is_numpys_dot_bit_for_bit():
    # the pass computes sum(p b) with numba's np.dot (BLAS ddot); numpy's `@` is BLAS ddot too
    rng = np.random.default_rng(1)
    for n in SIZES[1:]:
        p = rng.random(n) * (rng.random(n) < 0.7)
        b = np.round(rng.uniform(0.05, 1, n) * 20, 3) * 1e9
        assert _numba_dot(p, b) == float(p @ b), n


def _probs(model, elapsed, dt):
    """The compiled pass's probabilities for candidates with these elapsed times."""
    out = np.empty(elapsed.size)
    kernels._cdf_probs(model.kernel_spec(), elapsed, dt, out, elapsed.size)
    return out


def _elapsed_grid(samples, dt):
    rng = np.random.default_rng(2)
    s = np.asarray(samples)
    return np.concatenate([rng.uniform(0, 1.2 * s.max(), 3000), s, s - dt, [0.0, s.min() - dt, s.max()]]).clip(0)


@pytest.mark.parametrize("samples", [load_trace("transformer").samples, load_trace("cnn").samples,
                                     [1.0, 1.0, 2.0, 2.0, 2.0, 3.5], [0.7]])
@pytest.mark.parametrize("dt", [0.1, 0.013])
def test_compiled_trace_cdf_equals_trace_cdf(samples, dt):
    tr = Trace("t", np.asarray(samples, dtype=float))
    el = _elapsed_grid(tr.samples, dt)
    assert np.array_equal(_probs(TraceProgress(tr), el, dt), TraceProgress(tr)(None, el, dt))
    assert np.array_equal(_probs(ConditionalProgress(tr), el, dt), ConditionalProgress(tr)(None, el, dt))


def _table_reference(x, edges):
    """:func:`kernels.linear_cdf_table`'s rows as numpy built them before the compiled merge."""
    n = x.size
    k = np.clip(np.searchsorted(x, edges, side="right"), 1, n - 1)
    return np.stack([k, x[k - 1], x[k], np.where(k + 1 < n, x[np.minimum(k + 1, n - 1)], np.inf)], axis=1)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(1e-3, 1e3), min_size=2, max_size=60), st.lists(st.floats(-10.0, 2e3), max_size=60),
       st.booleans())
def test_bucket_table_is_the_binary_searchs(xs, qs, on_samples):
    """The bucket rows' merge against numpy's binary search, edges below, between, on (repeats included) and
    above the samples."""
    x = np.sort(np.array(xs))
    edges = np.sort(np.concatenate([np.array(qs, dtype=float), x[::2] if on_samples else x[:0]]))
    assert kernels._bucket_table(x, edges).tobytes() == _table_reference(x, edges).tobytes()


@pytest.mark.parametrize("name", ["transformer", "cnn", "lstm", "pai-job1"])
def test_linear_cdf_table_is_the_binary_searchs(name):
    """The whole table bit for bit as numpy built it, for built-in traces and one rescaled (the per-trial trace of
    a ``compute_mean_s``)."""
    for x in (load_trace(name).samples, load_trace(name).rescaled(3.0).samples):
        width = (x[-1] - x[0]) / x.size
        _, table, x0, inv_w = kernels.linear_cdf_table(x)
        assert table.tobytes() == _table_reference(x, x[0] + width * np.arange(x.size)).tobytes()
        assert x0 == x[0] and inv_w == 1.0 / width


def test_compiled_online_ecdf_equals_online_ecdf():
    rng = np.random.default_rng(3)
    ecdf = OnlineECDF()
    el = np.linspace(0, 4, 501)
    assert np.array_equal(_probs(TraceProgress(ecdf), el, 0.1), np.zeros(el.size))   # prior before any data
    for m in (1, 50, 2000):                                  # main array and unmerged buffer both in use
        for x in rng.gamma(4.0, 0.25, m):
            ecdf.observe(float(x))
        for model in (TraceProgress(ecdf), ConditionalProgress(ecdf)):
            assert np.array_equal(_probs(model, el, 0.1), model(None, el, 0.1))


def test_progress_models_share_one_numba_type():
    # numba compiles a read-only array apart from a writable one: a trace's samples are read-only, the oracle's
    # and the cold start's ECDF arrays writable; the models must type alike so the compiled turn (and every
    # round below it) compiles once for all of them, and the trace's samples must stay untouched
    from numba import typeof
    tr = load_trace("transformer")
    ecdf = OnlineECDF()
    for x in (1.0, 2.0, 0.5):
        ecdf.observe(x)
    models = [TraceProgress(tr).kernel_spec(), ConditionalProgress(tr).kernel_spec(),
              OracleProgress().kernel_spec(), TraceProgress(ecdf).kernel_spec()]
    assert len({typeof(tuple(m)) for m in models}) == 1
    assert not tr.samples.flags.writeable and not np.shares_memory(models[0].x, tr.samples)
    assert np.array_equal(models[0].x, tr.samples)


class _FakeCluster:
    def __init__(self, start, finish, now):
        self.compute_start, self.compute_finish = start, finish
        self.sim = type("S", (), {"now": now})()

    def workers(self):
        return WorkerView(None, self.compute_start, self.compute_finish)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_compiled_pass_equals_plan_round(data):
    n = data.draw(st.integers(2, 40))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    phase = rng.integers(0, 2, n).astype(np.int8)           # 0 training (S), 1 ready
    if not (phase == 1).any():
        phase[0] = 1
    grid = data.draw(st.sampled_from([3, 20, 1000]))        # few distinct bandwidths -> many ties
    bw = rng.integers(1, grid + 1, n) * 1e9
    now = 5.0
    start = now - rng.uniform(0, 4.0, n)
    finish = start + rng.uniform(0.3, 4.0, n)
    p = data.draw(st.integers(1, 6))
    kw = dict(p=p, eta=data.draw(st.sampled_from([0.0, 0.3, 0.5])), theta=data.draw(st.sampled_from([0.0, 1.0, 5.0])),
              dt=0.1, v=data.draw(st.sampled_from([1e9, 4e9])), alpha=1e-3,
              base_rule=data.draw(st.sampled_from(["text", "pseudocode"])),
              tx_form=data.draw(st.sampled_from(["approx", "eq2"])))
    which = data.draw(st.sampled_from(["paper", "conditional", "oracle"]))
    tr = load_trace("transformer")
    model = {"paper": TraceProgress(tr), "conditional": ConditionalProgress(tr), "oracle": OracleProgress()}[which]
    model.attach(_FakeCluster(start, finish, now))

    ready = np.flatnonzero(phase == 1)
    arrival = rng.permutation(ready)                         # FIFO order
    order = np.argsort(-bw[arrival], kind="stable")
    q_ids, q_bw = arrival[order].copy(), bw[arrival][order].copy()
    train = np.flatnonzero(phase == 0)
    ref = plan_round(arrival.tolist(), bw[arrival], train.tolist(), bw[train], now - start[train],
                     completion_prob=model, **kw)

    base = p if kw["base_rule"] == "text" else p + 1
    par = kernels.PassParams(now=now, dt=kw["dt"], eta=kw["eta"], theta=kw["theta"], v=kw["v"], alpha=kw["alpha"],
                             computing=0, base=base, p=p, eq2=kw["tx_form"] == "eq2")
    fbuf, ibuf = kernels.work_buffers(n)
    holding = np.zeros(n, dtype=bool)
    n_runs, n_launch, n_new = kernels.round_plan(kernels.Workers(phase, bw, start, finish), q_ids, q_bw, holding,
                                                 par, model.kernel_spec(), fbuf, ibuf)
    runs = ibuf[kernels.I_RUN_S:kernels.I_RUN_LAUNCH + 1, :n_runs].T
    launch = tuple(tuple(q_ids[s:e].tolist()) for s, e, go in runs if go)
    held = tuple(w for s, e, go in runs if not go for w in q_ids[s:e].tolist())
    assert launch == ref.launch
    assert held == ref.held
    assert n_launch == len(ref.launch)
    assert ibuf[kernels.I_HOLD, :n_new].tolist() == list(ref.held)    # nobody was holding before


class _TableProgress:
    """A Python progress model (the controller's callback path): p_i by worker id."""

    def __init__(self, table):
        self.table = table

    def attach(self, cluster):
        pass

    def __call__(self, ids, elapsed, dt):
        return np.array([self.table[i] for i in ids.tolist()])


def test_controller_launches_when_equal_candidate_bandwidths_meet_bag_threshold():
    # the cluster-level version of test_bpawr_equal_candidate_bandwidths_do_not_flip_bag_inclusive_threshold
    # (SR20): at t = 1, workers 0 (10 Gbps) and 1 (2 Gbps) are ready; 2 and 3 (4 Gbps) compute until
    # t = 5 with p = 0.5, 0.9 -> one virtual worker of exactly 4 Gbps, b* = 0.5 * 4 = 2 Gbps includes
    # worker 1 -> launch at once, nobody held.
    from simlib.papers.selective_reduce.controller import SelectiveReduceController
    from simlib.runtime.cluster import Cluster, ScriptedComputeTimes

    bw = np.array([10e9, 2e9, 4e9, 4e9])
    for bandwidth_estimate in (bw, lambda ids: bw[ids]):
        ctrl = SelectiveReduceController(2, 0.5, 1.0, 0.1, 40e9, progress=_TableProgress({2: 0.5, 3: 0.9}),
                                         bandwidth_estimate=bandwidth_estimate)
        log = Cluster.big_switch(bw, ScriptedComputeTimes([[1.0], [1.0], [5.0], [5.0]]), ctrl, model_bits=40e9,
                                 alpha=0.0, duration=3.0, sync_model="eq2_example").run()
        assert [(s.launch, s.members) for s in log.syncs] == [(1.0, (0, 1))]
        assert log.holds == []
