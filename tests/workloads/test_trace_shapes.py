"""SM75's family of compute-time shapes (simlib.workloads.trace_shapes): identity at the defaults, each knob."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simlib.workloads.trace_shapes import DEFAULT_SHAPE, Shape, shape_summary, shaped, wasserstein1
from simlib.workloads.traces import STANDIN_NAMES, Trace, load_trace

ROOT = Path(__file__).resolve().parents[2]


def _generator():
    name = "_make_traces_for_shapes"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / "make_traces.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


@pytest.mark.parametrize("name", STANDIN_NAMES)
def test_the_default_shape_is_todays_stand_in_bit_for_bit(name):
    tr = load_trace(name)
    assert shaped(tr, DEFAULT_SHAPE) is tr
    # ... which is the generator's output (an independent path: scripts/make_traces.py's draws, sorted)
    assert np.array_equal(shaped(tr).samples, np.sort(_generator().trace_samples(name)))
    # a straggler share with no slowdown, or a slowdown with no share, is the identity too
    assert shaped(tr, Shape(1.0, 0.05, 1.0)) is tr and shaped(tr, Shape(1.0, 0.0, 3.0)) is tr


def test_the_scenario_at_its_defaults_draws_from_todays_stand_in():
    from simlib.papers.selmcast.ssp_scenario import SSPScenario, _trace

    for name in STANDIN_NAMES:
        sc = SSPScenario(trace=name)
        assert sc.shape == DEFAULT_SHAPE
        assert np.array_equal(_trace(sc).samples, load_trace(name).rescaled(1.0).samples)
        assert not np.array_equal(_trace(SSPScenario(trace=name, spread=0.5)).samples, _trace(sc).samples)


@pytest.mark.parametrize("s", [0.5, 0.8, 1.25, 2.0])
def test_spread_multiplies_the_log_standard_deviation_and_keeps_order_and_mean(s):
    tr = load_trace("transformer")
    z = shaped(tr, Shape(spread=s))
    assert np.std(np.log(z.samples)) == pytest.approx(s * np.std(np.log(tr.samples)), rel=1e-9)
    assert z.mean == pytest.approx(tr.mean, rel=1e-12)
    # a monotone map: the rank of every sample is kept, so the ratio of two quantiles is their old ratio ^ s
    q = np.array([0.1, 0.5, 0.9])
    ratio_old, ratio_new = tr.quantile(q) / tr.quantile(0.5), z.quantile(q) / z.quantile(0.5)
    np.testing.assert_allclose(ratio_new, ratio_old ** s, rtol=1e-6)


@pytest.mark.parametrize("f,c", [(0.01, 4.0), (0.1, 4.0), (0.3, 2.5)])
def test_stragglers_are_the_mixture_of_the_body_and_its_c_fold_copy(f, c):
    # body uniform on [1, 2]; the c-fold copy sits on [c, 2c], disjoint for c > 2, so exactly f of the
    # draws lie above 2 before the mean is restored (the mean grows by 1 + f (c - 1))
    body = Trace("u", np.linspace(1.0, 2.0, 4001))
    z = shaped(body, Shape(1.0, f, c))
    r = 1.0 / (1.0 + f * (c - 1.0))                     # the factor that restores the mean 1.5
    assert z.mean == pytest.approx(1.5, rel=1e-12)
    assert 1.0 - z.cdf(2.0 * r) == pytest.approx(f, abs=2.0 / z.n)
    # within the body the mixture's cdf is (1 - f) F_body (uniform)
    t = 1.5
    assert z.cdf(t * r) == pytest.approx((1 - f) * (t - 1.0), abs=2.0 / z.n)
    assert z.samples[-1] == pytest.approx(2.0 * c * r, rel=1e-3)   # r up to the grid's O(1/n) in the mean
    assert z.n == body.n


@settings(max_examples=40, deadline=None)
@given(s=st.floats(0.3, 3.0), f=st.floats(0.0, 0.5), c=st.floats(1.0, 8.0))
def test_a_shaped_trace_keeps_the_mean_and_is_a_valid_trace(s, f, c):
    tr = load_trace("cnn")
    z = shaped(tr, Shape(s, f, c))
    assert z.mean == pytest.approx(tr.mean, rel=1e-9)
    assert (np.diff(z.samples) >= 0).all() and z.samples[0] > 0 and z.n == tr.n
    assert wasserstein1(tr, z) >= 0 and wasserstein1(tr, tr) == 0


def test_more_stragglers_or_more_spread_move_further_from_the_stand_in_and_widen_its_tail():
    tr = load_trace("cnn")
    d = [wasserstein1(tr, shaped(tr, sh)) for sh in (Shape(1.0, 0.01, 2.0), Shape(1.0, 0.03, 2.0), Shape(1.0, 0.03, 4.0))]
    assert d[0] < d[1] < d[2]
    cv = [shape_summary(shaped(tr, Shape(s)))["cv"] for s in (0.5, 1.0, 2.0)]
    assert cv[0] < cv[1] < cv[2]
    p99 = [shape_summary(shaped(tr, Shape(1.0, f, 3.0)))["p99"] for f in (0.0, 0.03)]
    assert p99[1] > 2 * p99[0]            # 3 % of draws 3-fold slower: the 99th percentile is a straggler


def test_bad_knobs_and_recorded_traces_are_refused_by_name():
    with pytest.raises(ValueError, match="spread"):
        Shape(spread=0.0)
    with pytest.raises(ValueError, match="straggler_frac"):
        Shape(straggler_frac=1.0)
    with pytest.raises(ValueError, match="straggler_slowdown"):
        Shape(straggler_slowdown=0.5)
    with pytest.raises(ValueError, match="recorded"):
        shaped(load_trace("pai-job1"), Shape(spread=0.5))
    real = load_trace("pai-job1")
    assert shaped(real, DEFAULT_SHAPE) is real          # the default runs on real traces are untouched
    from simlib.papers.contract import ParamError
    from simlib.papers.selmcast.ssp_scenario import SSPScenario

    with pytest.raises(ParamError, match="recorded trace") as exc:
        SSPScenario(trace="pai-job1", spread=0.5)
    assert exc.value.name == "spread"
    assert SSPScenario(trace="pai-job1").shape == DEFAULT_SHAPE


@pytest.mark.parametrize("name", ["lstm", "cnn"])
@pytest.mark.parametrize("shape", [Shape(0.625, 0.01, 3.0), Shape(0.5), Shape(1.25, 0.03, 2.0)])
def test_the_spread_is_the_c_librarys_scalar_log_exp_and_pow(name, shape):
    """S44: g and (x / g)^s element by element with ``math`` (sqrt at s = 1/2), whatever SIMD numpy has."""
    import math

    x = load_trace(name).samples
    g = math.exp(float(np.mean([math.log(v) for v in x])))     # the mean of the logs: numpy's pairwise sum
    body = Shape(shape.spread)                      # the spread alone (no stragglers): y = g (x / g)^s, rescaled
    y = [g * (math.sqrt(v / g) if shape.spread == 0.5 else math.pow(v / g, shape.spread)) for v in x]
    want = Trace("t", np.array(y)).rescaled(Trace("t", x).mean).samples
    assert np.array_equal(shaped(Trace("t", x), body).samples, want)


@pytest.mark.skipif(sys.platform != "linux", reason="numpy's run-time dispatch switched off by its variable")
def test_a_shaped_trace_has_the_same_bits_without_numpys_simd_loops():
    """S44: the shaping does not follow numpy's run-time dispatch (an AVX-512 host's log/exp/pow loops gave
    other last bits; on a host without them this holds for numpy's own functions too)."""
    import json
    import os
    import subprocess

    from numpy._core._multiarray_umath import __cpu_dispatch__

    code = ("import json; from simlib.workloads.trace_shapes import Shape, shaped; "
            "from simlib.workloads.traces import load_trace; "
            "print(json.dumps([float(v).hex() for v in shaped(load_trace('lstm'), Shape(0.625, 0.01, 3.0)).samples]))")
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=" ".join(__cpu_dispatch__))
    env.pop("NPY_ENABLE_CPU_FEATURES", None)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    baseline = json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                         check=True).stdout)
    here = [float(v).hex() for v in shaped(load_trace("lstm"), Shape(0.625, 0.01, 3.0)).samples]
    assert here == baseline
