"""The FMReduce system's two engines (decision FM12): the compiled event loop against the Python
reference loop, and the compiled LP (2) breakpoint split against ``lp_split``.

Both pairs must agree to the bit: same rounds, participants, reducers and splits, same announce,
all-in, done and finish times.  Times in seconds, sizes in bits, bandwidths in bits/s.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.core.units import MB
from simlib.papers.fmreduce.bandwidth import fmreduce_bandwidths
from simlib.papers.fmreduce.scenario import VARIANTS, variant_label
from simlib.papers.fmreduce.split import breakpoint_split_into, lp_split, pairwise_sum
from simlib.papers.fmreduce.system import simulate
from simlib.runtime.cluster import ComputeTimes, ScriptedComputeTimes
from simlib.workloads.traces import load_trace

TRACE = load_trace("transformer")


def assert_same_run(a, b, label=""):
    assert (a.rounds, a.iterations, len(a.rounds_log)) == (b.rounds, b.iterations, len(b.rounds_log)), label
    np.testing.assert_equal(a.phase_means_s, b.phase_means_s)
    np.testing.assert_equal(a.mean_round_time_s, b.mean_round_time_s)
    for x, y in zip(a.rounds_log, b.rounds_log):
        assert x.index == y.index, label
        for name in ("parts", "reducers", "x", "start", "ready", "done"):
            np.testing.assert_array_equal(getattr(x, name), getattr(y, name), err_msg=f"{label} {name}")
        assert (x.announce, x.finish, x.n_bcast, x.n_done) == (y.announce, y.finish, y.n_bcast, y.n_done), label
        assert x.all_in == y.all_in, label


def both_engines(n, p, seed, duration_s, model_bits, as_callable=False, **kw):
    b = fmreduce_bandwidths(n, np.random.default_rng(seed))
    out = []
    for engine in ("python", "compiled"):
        ct = ComputeTimes(lambda rng, k: TRACE.sample(rng, k), n, np.random.SeedSequence(seed), chunk=64)
        out.append(simulate(b, p, model_bits=model_bits, duration_s=duration_s,
                            compute_time=ct.next if as_callable else ct, engine=engine, **kw))
    return out


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 9), st.integers(0, 2**31), st.data())
def test_compiled_engine_is_the_python_loop_to_the_bit(n, seed, data):
    p = data.draw(st.integers(1, n), label="p")
    variant = data.draw(st.sampled_from(VARIANTS), label="variant")
    solver = data.draw(st.sampled_from(["breakpoint", "highs"]), label="lp_solver")
    reduce_s = data.draw(st.sampled_from([0.0, 0.002, 0.05]), label="reduce_s_per_mb")
    duration = data.draw(st.floats(5.0, 150.0), label="duration_s")
    model_mb = data.draw(st.sampled_from([0.0, 10.0, 50.0, 200.0]), label="model_mb")
    as_callable = data.draw(st.booleans(), label="compute_time is a callable")
    py, comp = both_engines(n, p, seed, duration, model_mb * MB, as_callable, reduce_s_per_mb=reduce_s,
                            lp_solver=solver, **variant)
    assert_same_run(py, comp, variant_label(**variant))


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: variant_label(**v))
def test_long_runs_grow_every_array_and_stay_identical(variant):
    # n = 5, p = 3, 5 MB models, 400 s: several hundred rounds and > 100 iterations per worker,
    # so the heap, the round log (16 rows at first) and the draws (16 per worker) all grow
    py, comp = both_engines(5, 3, 11, 400.0, 5 * MB, reduce_s_per_mb=0.01, **variant)
    assert len(comp.rounds_log) > 128 and comp.iterations / 5 > 64
    assert_same_run(py, comp, variant_label(**variant))


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: variant_label(**v))
def test_paper_scale_runs_are_identical(variant):
    # n = 60, p = 50, 200 MB (Fig. 2's setting) for 90 s: ~40 rounds of 60 reducers
    py, comp = both_engines(60, 50, 3, 90.0, 200 * MB, **variant)
    assert comp.rounds > 20
    assert_same_run(py, comp, variant_label(**variant))


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_hand_written_compute_times_work_as_callable_or_source(engine):
    # worker 2 never finishes (p = 2): blocking, even split of 3 bits on unit links;
    # ready at 1 and 3 -> one round announced at 3 (the FM3 ready order)
    b = np.ones((3, 3))
    times = [[1.0], [3.0], []]
    for src in (ScriptedComputeTimes(times), ScriptedComputeTimes(times).next):
        res = simulate(b, 2, model_bits=3.0, duration_s=20.0, compute_time=src, mode="blocking",
                       split="even", engine=engine)
        assert [r.parts.tolist() for r in res.rounds_log] == [[0, 1]]
        assert res.rounds_log[0].announce == 3.0


def test_simulate_rejects_unknown_engine_and_bad_compute_time():
    args = dict(model_bits=3.0, duration_s=5.0)
    with pytest.raises(ValueError, match="engine must"):
        simulate(np.ones((3, 3)), 2, compute_time=ScriptedComputeTimes([[1.0]] * 3), engine="cuda", **args)
    with pytest.raises(ValueError, match="compute_time must"):
        simulate(np.ones((3, 3)), 2, compute_time=1.0, **args)


# ----------------------------------------------------------------- the compiled split
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 160), st.integers(0, 2**31), st.data())
def test_compiled_breakpoint_split_has_the_bits_of_lp_split(n, seed, data):
    # up to 160 reducers: numpy's pairwise summation recurses above 128 elements
    rng = np.random.default_rng(seed)
    b = fmreduce_bandwidths(n, rng) if data.draw(st.booleans()) else rng.uniform(1e6, 1e9, (n, n))
    p = data.draw(st.integers(1, n))
    parts = np.sort(rng.choice(n, p, replace=False)).astype(np.int64)
    red = np.arange(n, dtype=np.int64) if data.draw(st.booleans()) else parts
    v = data.draw(st.sampled_from([0.0, 1.0, 1.6e9, 3e7 * rng.uniform()]))
    want = lp_split(v, b, parts, red, solver="breakpoint")
    got = np.full(n, -1.0)
    assert breakpoint_split_into(v, b, parts, red, got)
    np.testing.assert_array_equal(got, want)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 3000), st.integers(0, 2**31))
def test_pairwise_sum_is_numpys_sum_to_the_bit(m, seed):
    # a plain loop differs from numpy's pairwise sum in the last bits for most of these arrays
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.0, 1.0, m + 3) * 10.0 ** rng.uniform(-6, 6, m + 3)
    assert pairwise_sum(a, 3, m) == a[3:].sum()
