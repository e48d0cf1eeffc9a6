"""Tests for simlib.workloads.traces and scripts/make_traces.py."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import signal, stats

from simlib.workloads.traces import STANDIN_NAMES, TRACE_DIR, OnlineECDF, Trace, load_trace

ROOT = Path(__file__).resolve().parents[2]


def _load_script():
    name = "_make_traces_under_test"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / "make_traces.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses need the module registered
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def traces():
    return {name: load_trace(name) for name in STANDIN_NAMES}


# --------------------------------------------------------------------------- generator / files
def test_regeneration_is_byte_identical(tmp_path):
    mod = _load_script()
    paths = mod.write_traces(tmp_path)
    assert set(paths) == set(STANDIN_NAMES)
    for name in STANDIN_NAMES:
        committed = (TRACE_DIR / f"{name}.csv").read_bytes()
        assert paths[name].read_bytes() == committed, name


def test_trace_files_format_and_size():
    for name in STANDIN_NAMES:
        path = TRACE_DIR / f"{name}.csv"
        assert path.stat().st_size < 1_000_000
        lines = path.read_text().splitlines()
        assert lines[0] == "compute_time_s"
        assert len(lines) == 20_001
        # microsecond resolution: exactly 6 decimals
        assert all(len(line.split(".")[1]) == 6 for line in lines[1:50])


def test_builtin_traces_basic(traces):
    for name, tr in traces.items():
        assert tr.name == name
        assert tr.n == 20_000
        assert np.all(np.diff(tr.samples) >= 0)
        assert tr.samples[0] > 0
        assert not tr.samples.flags.writeable
        # generated with arithmetic mean 1.0 s (seed 004 normalisation)
        assert tr.samples.mean() == pytest.approx(1.0, abs=1e-5)
        assert tr.mean == pytest.approx(1.0, rel=1e-3)


# --------------------------------------------------------------------------- qualitative shapes
def test_cnn_shape(traces):
    x = traces["cnn"].samples
    cv = x.std() / x.mean()
    assert cv < 0.15
    assert np.quantile(x, 0.99) / np.median(x) > 1.2
    assert stats.skew(x) > 1.0  # right tail, not left


def _n_modes(x: np.ndarray) -> int:
    hist, _ = np.histogram(x, bins=60, range=(x.min(), np.quantile(x, 0.995)))
    peaks, _ = signal.find_peaks(np.concatenate([[0], hist, [0]]), prominence=0.05 * hist.max())
    return len(peaks)


def test_transformer_shape(traces):
    x = traces["transformer"].samples
    assert _n_modes(x) >= 2
    assert x.mean() > np.median(x)  # right-skewed
    assert stats.skew(x) > 0.5
    assert x.std() / x.mean() > 0.3  # wide
    assert _n_modes(traces["cnn"].samples) == 1


def test_lstm_shape(traces):
    x = traces["lstm"].samples
    assert np.quantile(x, 0.99) / np.median(x) > 4.0
    assert x.max() / x.mean() > 5.0
    assert stats.kurtosis(x) > 10.0
    # heavier tail than the other two
    for other in ("cnn", "transformer"):
        y = traces[other].samples
        assert np.quantile(x, 0.99) / np.median(x) > np.quantile(y, 0.99) / np.median(y)


# --------------------------------------------------------------------------- distribution API
def test_sampling_matches_cdf_ks(traces):
    rng = np.random.default_rng(12345)
    for tr in traces.values():
        draws = tr.sample(rng, 4000)
        assert draws.shape == (4000,)
        assert stats.kstest(draws, tr.cdf).pvalue > 0.01


def test_sampling_mean_matches(traces):
    rng = np.random.default_rng(7)
    tr = traces["transformer"]
    draws = tr.sample(rng, 200_000)
    se = draws.std() / np.sqrt(draws.size)
    assert abs(draws.mean() - tr.mean) < 5 * se


def test_sample_scalar_and_empty(traces):
    rng = np.random.default_rng(0)
    tr = traces["cnn"]
    v = tr.sample(rng)
    assert isinstance(v, float) and tr.samples[0] <= v <= tr.samples[-1]
    assert tr.sample(rng, 0).shape == (0,)


def test_sampling_deterministic(traces):
    tr = traces["lstm"]
    a = tr.sample(np.random.default_rng(3), 100)
    b = tr.sample(np.random.default_rng(3), 100)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, tr.sample(np.random.default_rng(4), 100))   # the rng is used


def test_cdf_edges_and_vectorized(traces):
    tr = traces["cnn"]
    lo, hi = tr.samples[0], tr.samples[-1]
    assert tr.cdf(lo - 1.0) == 0.0
    assert tr.cdf(lo) == 0.0
    assert tr.cdf(hi) == 1.0
    assert tr.cdf(hi + 5.0) == 1.0
    assert tr.cdf(np.inf) == 1.0
    grid = np.linspace(0, 3, 12).reshape(3, 4)
    out = tr.cdf(grid)
    assert out.shape == (3, 4)
    assert np.all(np.diff(out.ravel()) >= 0)


def test_cdf_small_trace_piecewise_linear():
    tr = Trace("tiny", [3.0, 1.0, 2.0])
    assert tr.cdf(1.5) == pytest.approx(0.25)
    assert tr.cdf(2.0) == pytest.approx(0.5)
    assert tr.quantile(0.75) == pytest.approx(2.5)
    assert tr.mean == pytest.approx(2.0)
    # Eq. 4's conditional (T4): (F(2) - F(1.5)) / (1 - F(1.5)) = 0.25 / 0.75; the paper's form is F(2)
    assert tr.conditional_completion_prob(1.5, 0.5) == pytest.approx(1 / 3, abs=1e-12)
    assert tr.conditional_completion_prob(0.5, 1.0) == pytest.approx(0.25, abs=1e-12)    # F(1.5) / (1 - F(0.5) = 1)
    assert tr.conditional_completion_prob(2.5, 0.25) == pytest.approx(0.5, abs=1e-12)    # (F(2.75) - F(2.5)) / (1 - F(2.5)) = (7/8 - 3/4) / (1/4)
    # ties give a jump; cdf is right-continuous
    tied = Trace("tied", [1.0, 2.0, 2.0, 3.0])
    assert tied.cdf(2.0) == pytest.approx(2 / 3)
    assert tied.cdf(2.0 - 1e-12) == pytest.approx(1 / 3, abs=1e-9)
    point = Trace("point", [0.5])
    assert point.cdf(0.4) == 0.0 and point.cdf(0.5) == 1.0
    assert point.quantile(0.3) == 0.5 and point.mean == 0.5


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=20))
def test_quantile_is_generalized_inverse_of_cdf(qs):
    # built-in traces are rounded to 1 us, so they contain ties (CDF jumps):
    # F(Q(q)-) <= q <= F(Q(q))
    tr = load_trace("transformer")
    q = np.array(qs)
    t = tr.quantile(q)
    assert np.all(tr.cdf(t) >= q - 1e-12)
    assert np.all(tr.cdf(np.nextafter(t, -np.inf)) <= q + 1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.01, 100.0), min_size=2, max_size=50, unique=True)
       # distinct beyond rounding: two samples an ulp apart make the inverse ill-conditioned
       .filter(lambda v: np.diff(np.sort(v)).min() > 1e-9 * max(v)),
       st.lists(st.floats(0.0, 1.0), min_size=1, max_size=10))
def test_quantile_inverts_cdf_without_ties(values, qs):
    tr = Trace("u", values)
    q = np.array(qs)
    assert np.allclose(tr.cdf(tr.quantile(q)), q, atol=1e-9)


def test_rescaled_mean_exact(traces):
    for tr in traces.values():
        for target in (1.0, 0.25, 3.7):
            r = tr.rescaled(target)
            assert r.mean == pytest.approx(target, rel=1e-12)
            assert r.name == tr.name
            # shape preserved: same quantile ratios
            assert r.quantile(0.99) / r.quantile(0.5) == pytest.approx(
                tr.quantile(0.99) / tr.quantile(0.5), rel=1e-12)
    assert traces["cnn"].rescaled(2.0, name="cnn2").name == "cnn2"


@settings(max_examples=100, deadline=None)
@given(st.floats(0.0, 20.0), st.floats(0.0, 20.0))
def test_conditional_prob_in_unit_interval(elapsed, dt):
    tr = load_trace("lstm")
    p = tr.conditional_completion_prob(elapsed, dt)
    assert 0.0 <= p <= 1.0
    f_t = tr.cdf(elapsed)
    if f_t < 1.0:
        assert p == pytest.approx((tr.cdf(elapsed + dt) - f_t) / (1.0 - f_t), abs=1e-12)
    else:
        assert p == 1.0


def test_conditional_prob_conventions(traces):
    tr = traces["transformer"]
    hi = tr.samples[-1]
    assert tr.conditional_completion_prob(hi + 1.0, 0.1) == 1.0  # 1 - F(t) = 0 -> 1.0
    assert tr.conditional_completion_prob(0.5, 0.0) == 0.0
    assert tr.conditional_completion_prob(0.0, hi) == 1.0
    out = tr.conditional_completion_prob(np.array([0.1, 0.5, 1.0]), 0.2)
    assert out.shape == (3,)
    assert np.all((out >= 0) & (out <= 1))


# --------------------------------------------------------------------------- CSV loading
def test_csv_roundtrip_with_header(tmp_path):
    values = np.array([0.5, 0.123456, 2.0, 1.25])
    path = tmp_path / "mytrace.csv"
    lines = ["iteration,compute_time_s,gpu"] + [f"{i},{float(v)!r},a" for i, v in enumerate(values)]
    path.write_text("\n".join(lines) + "\n")
    tr = load_trace(path)
    assert tr.name == "mytrace"
    assert np.array_equal(tr.samples, np.sort(values))
    assert np.array_equal(load_trace(str(path)).samples, tr.samples)


def test_csv_single_column_variants(tmp_path):
    values = [0.3, 0.1, 0.2]
    no_header = tmp_path / "a.csv"
    no_header.write_text("\n".join(map(str, values)) + "\n")
    named = tmp_path / "b.csv"
    named.write_text("# my comment\ncompute_time_s\n" + "\n".join(map(str, values)) + "\n\n")
    for p in (no_header, named):
        assert np.array_equal(load_trace(p).samples, np.sort(values))


@pytest.mark.parametrize("header", ["compute_time_ms", "seconds"])
def test_single_column_with_another_header_is_an_error(tmp_path, header):
    """A lone column named e.g. compute_time_ms must not be read as seconds."""
    path = tmp_path / "t.csv"
    path.write_text(f"{header}\n300\n100\n")
    with pytest.raises(ValueError, match=f"{header}.*compute_time_s"):
        load_trace(path)


@pytest.mark.parametrize("content, match", [
    ("", "empty"),
    ("compute_time_s\n", "no data rows"),
    ("compute_time_s\n0.5\n-0.1\n", "finite and > 0"),
    ("compute_time_s\n0.5\nnan\n", "finite and > 0"),
    ("compute_time_s\n0.5\ninf\n", "finite and > 0"),
    ("compute_time_s\n0.5\n0\n", "finite and > 0"),
    ("compute_time_s\n0.5\nabc\n", "not a number"),
    ("a,b\n1,2\n", "no 'compute_time_s' column"),
    ("1,2\n3,4\n", "no header"),
])
def test_csv_bad_data(tmp_path, content, match):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(ValueError, match="^trace 'bad': file '.*bad.csv'") as ei:
        load_trace(path)
    assert match in str(ei.value)


def test_load_unknown_name_and_missing_file(tmp_path):
    with pytest.raises(ValueError, match=r"^trace must be one of \['cnn'"):
        load_trace("resnet")
    with pytest.raises(ValueError, match="^trace must be .*nope.csv"):
        load_trace(tmp_path / "nope.csv")
    with pytest.raises(ValueError, match="^trace must be"):
        load_trace(42)


# --------------------------------------------------------------------------- validation messages
def test_validation_errors_name_parameter(traces):
    tr = traces["cnn"]
    rng = np.random.default_rng(0)
    cases = [
        (lambda: Trace("x", []), "samples"),
        (lambda: Trace("x", [1.0, -2.0]), "samples"),
        (lambda: Trace("", [1.0]), "name"),
        (lambda: tr.quantile(1.5), "q"),
        (lambda: tr.quantile(np.nan), "q"),
        (lambda: tr.sample(rng, -1), "size"),
        (lambda: tr.sample(np.random.RandomState(0), 3), "rng"),
        (lambda: tr.sample(42, 3), "rng"),
        (lambda: tr.rescaled(0.0), "mean_s"),
        (lambda: tr.rescaled(np.inf), "mean_s"),
        (lambda: tr.conditional_completion_prob(-1.0, 0.1), "elapsed"),
        (lambda: tr.conditional_completion_prob(1.0, -0.1), "dt"),
        (lambda: tr.conditional_completion_prob(1.0, "x"), "dt"),
        (lambda: tr.cdf(np.nan), "t"),
        (lambda: tr.cdf("soon"), "t"),
        (lambda: OnlineECDF().cdf(["a"]), "t"),
        (lambda: OnlineECDF(prior=1.5), "prior"),
        (lambda: OnlineECDF().observe(-1.0), "x"),
        (lambda: OnlineECDF().observe(float("nan")), "x"),
        (lambda: OnlineECDF().observe_many([1.0, np.inf]), "xs"),
        (lambda: OnlineECDF().cdf(float("nan")), "t"),
    ]
    for fn, name in cases:
        with pytest.raises(ValueError) as ei:
            fn()
        assert str(ei.value).startswith(name + " "), (name, str(ei.value))


# --------------------------------------------------------------------------- OnlineECDF
def test_online_ecdf_prior():
    e = OnlineECDF()
    assert e.count == 0
    assert e.cdf(1.0) == 0.0
    assert np.array_equal(e.cdf([0.5, 2.0]), [0.0, 0.0])
    assert e.conditional_completion_prob(1.0, 0.5) == 0.0
    e1 = OnlineECDF(prior=1.0)
    assert e1.cdf(1.0) == 1.0
    assert e1.conditional_completion_prob(1.0, 0.5) == 1.0


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.floats(0.0, 100.0), min_size=1, max_size=300),
    st.integers(0, 300),
    st.lists(st.floats(-1.0, 110.0), min_size=1, max_size=20),
)
def test_online_ecdf_equals_empirical(obs, split, queries):
    e = OnlineECDF()
    split = min(split, len(obs))
    for x in obs[:split]:
        e.observe(x)
    e.observe_many(obs[split:])
    arr = np.array(obs)
    assert e.count == len(obs)
    q = np.array(queries + obs[:5])
    expected = (arr[None, :] <= q[:, None]).mean(axis=1)
    assert np.allclose(e.cdf(q), expected, atol=0, rtol=0)
    for t, ex in zip(q, expected):
        assert e.cdf(float(t)) == ex
    assert np.array_equal(e.samples(), np.sort(arr))
    p = e.conditional_completion_prob(q.clip(0), 1.0)
    assert np.all((p >= 0) & (p <= 1))


def test_online_ecdf_interleaved_observations_and_queries():
    """Single observations interleaved with queries (the buffer is merged many times on the way)
    give exactly the empirical CDF of the observations so far.  Speed: benchmarks/bench_traces.py."""
    rng = np.random.default_rng(1)
    xs = rng.lognormal(0.0, 0.5, 20_000)
    e = OnlineECDF()
    for i, x in enumerate(xs):
        e.observe(float(x))
        if i % 997 == 0:
            assert e.cdf(1.0) == (xs[: i + 1] <= 1.0).mean()
            assert e.cdf(float(x)) == (xs[: i + 1] <= x).mean()
    assert e.count == xs.size
    assert e.cdf(1.0) == (xs <= 1.0).mean()


def test_with_cv_keeps_the_mean_and_sets_the_spread():
    """PR15: the samples stretched about the mean: cv as asked, mean unchanged, ordering kept;
    a cv that would push the smallest sample to 0 is refused naming the bound."""
    from simlib.workloads.traces import Trace
    t = Trace("toy", [1.0, 2.0, 3.0, 6.0])           # arithmetic mean 3, std sqrt(3.5): cv 0.6236
    assert t.cv == pytest.approx(np.sqrt(3.5) / 3)
    for cv in (0.0, 0.2, 0.5):
        u = t.with_cv(cv)
        assert u.samples.mean() == pytest.approx(3.0) and u.cv == pytest.approx(cv, abs=1e-12)
        assert np.all(np.diff(u.samples) >= 0)
    assert list(t.with_cv(t.cv / 2).samples) == pytest.approx([2.0, 2.5, 3.0, 4.5])
    # x0 = 1 reaches 0 when the factor is m / (m - x0) = 3 / 2, i.e. cv = 1.5 t.cv
    m = 3.0
    with pytest.raises(ValueError, match="cv must be in"):
        t.with_cv(t.cv * m / (m - 1))
    assert t.with_cv(0.99 * t.cv * m / (m - 1)).samples[0] > 0
    with pytest.raises(ValueError, match="recorded trace"):
        load_trace("pai-job4").with_cv(0.3)


@pytest.mark.parametrize("chunk", [1, 3, 256])
def test_compute_times_are_the_inverse_cdf_of_each_workers_uniforms(chunk):
    """Worker w's draws are quantile(U) of its own generator's uniforms, chunk after chunk: for samples
    (1, 3) the piecewise-linear distribution is uniform on [1, 3], so a uniform u maps to 1 + 2u (exact
    in floats: 2u is exact and 1 + 2u one rounding, as x_0 + frac (x_1 - x_0) with frac = u)."""
    from simlib.core.seeding import child_seed
    tr = Trace("two", np.array([3.0, 1.0]))
    seed = np.random.SeedSequence(11)
    src = tr.compute_times(2, seed, chunk=chunk)
    for w in (1, 0):
        u = np.random.default_rng(child_seed(seed, w)).random(7 + chunk)
        assert np.array_equal(src.take(w, 5), 1.0 + 2.0 * u[:5])
        assert [src.next(w), src.next(w)] == (1.0 + 2.0 * u[5:7]).tolist()


def test_compute_times_of_a_one_sample_trace_and_of_an_overridden_sample():
    """A one-sample trace draws its sample; a subclass's own sample() is what compute_times draws from."""
    src = Trace("one", np.array([2.5])).compute_times(1, 0, chunk=4)
    assert src.take(0, 6).tolist() == [2.5] * 6

    class Doubled(Trace):
        def sample(self, rng, size=None):
            return 2.0 * super().sample(rng, size)

    plain = Trace("two", np.array([1.0, 3.0])).compute_times(1, 5).take(0, 10)
    assert np.array_equal(Doubled("two", np.array([1.0, 3.0])).compute_times(1, 5).take(0, 10), 2.0 * plain)
