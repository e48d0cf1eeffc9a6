"""The test loss on a coarse grid (``Numerics(loss_every=k)``, decision RP23): every accuracy, time to
accuracy, early stop and model is the every-time evaluation's, on simulated schedules of several systems."""
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from simlib.papers.cluster_scenario import Scenario, simulate
from simlib.training.learning import load_problem
from simlib.training.replay import Numerics, iterations_to_accuracy, replay, time_to_accuracy

LADDER = (0.80, 0.85, 0.88, 0.90, 0.92)


@pytest.fixture(scope="module")
def digits():
    return load_problem("digits")


def _log(scheme, seed, n=8, duration=30.0):
    return simulate(Scenario.from_params(dict(scheme=scheme, n=n, hl=2, bandwidth_gbps=1.0, model_mb=20.0,
                                              trace="cnn", duration_s=duration)), seed)


def _same_but_the_loss(fine, coarse, k, stopped=False):
    """Every column but the loss identical; the loss identical every k-th row and the last, NaN elsewhere."""
    pd.testing.assert_frame_equal(fine.drop(columns="test_loss"), coarse.drop(columns="test_loss"), check_exact=True)
    i = np.arange(len(fine))
    on = (i % k == 0) | (i == len(fine) - 1)
    np.testing.assert_array_equal(coarse.test_loss.to_numpy()[on], fine.test_loss.to_numpy()[on])
    assert coarse.test_loss[~on].isna().all()
    assert fine.test_loss.notna().all()


@pytest.mark.parametrize("scheme,seed,model", [("partial", 0, "softmax"), ("allreduce", 1, "mlp-relu"),
                                               ("selective", 2, "softmax"), ("ps-asp", 3, "mlp-relu"),
                                               ("adpsgd", 4, "softmax")])
@pytest.mark.parametrize("k", [3, 10])
def test_every_time_to_accuracy_is_the_every_time_evaluations(digits, scheme, seed, model, k):
    log = _log(scheme, seed)
    kw = dict(model=model, lr=0.1, seed=seed, eval_every_s=0.5)
    fine = replay(log, digits, numerics=Numerics(dtype="float32"), **kw)
    coarse = replay(log, digits, numerics=Numerics(dtype="float32", loss_every=k), **kw)
    _same_but_the_loss(fine.curve, coarse.curve, k)
    np.testing.assert_array_equal(fine.final_params, coarse.final_params)
    for a in LADDER + (0.5, 0.999):          # 0.999: never reached (censored), NaN both ways
        for f in (time_to_accuracy, iterations_to_accuracy):
            np.testing.assert_equal(f(coarse.curve, a), f(fine.curve, a))
    assert math.isnan(time_to_accuracy(coarse.curve, 0.999))


@pytest.mark.parametrize("k", [2, 4, 7])
def test_an_early_stop_on_and_off_the_grid_stops_where_the_every_time_replay_stops(digits, k):
    """The stop at the first evaluation reaching stop_acc, whether or not that time is a multiple of k
    (its loss is taken there): same rows, replicas and model at the stop."""
    log = _log("partial", 5)
    kw = dict(model="softmax", lr=0.1, seed=5, eval_every_s=0.5, stop_acc=0.85)
    fine, coarse = replay(log, digits, **kw), replay(log, digits, numerics=Numerics(loss_every=k), **kw)
    assert fine.curve.test_acc.iloc[-1] >= 0.85 > fine.curve.test_acc.iloc[:-1].max()
    assert len(fine.curve) < 61
    pd.testing.assert_frame_equal(fine.curve.drop(columns="test_loss"), coarse.curve.drop(columns="test_loss"))
    assert coarse.curve.test_loss.iloc[-1] == fine.curve.test_loss.iloc[-1]
    np.testing.assert_array_equal(fine.final_params, coarse.final_params)
    np.testing.assert_array_equal(fine.final_model, coarse.final_model)


def test_the_stop_exactly_at_a_grid_point(digits):
    log = _log("partial", 5)
    kw = dict(model="softmax", lr=0.1, seed=5, eval_every_s=0.5, stop_acc=0.85)
    stop_row = len(replay(log, digits, **kw).curve) - 1
    coarse = replay(log, digits, numerics=Numerics(loss_every=stop_row), **kw)      # the stop row is on the grid
    assert len(coarse.curve) == stop_row + 1 and coarse.curve.test_loss.notna().sum() == 2


def test_loss_every_changes_only_the_loss_and_is_checked(digits):
    log = _log("partial", 6, duration=10.0)
    assert replay(log, digits, numerics=Numerics(loss_every=4)).curve.test_loss.isna().sum() == 11 - 4   # rows 0..10: 0, 4, 8, 10
    assert replay(log, digits).curve.test_loss.notna().all()
    for bad in (-1, 1.5, -2):
        with pytest.raises(ValueError, match="loss_every"):
            Numerics(loss_every=bad)


class PlainModel:
    """A model object of a caller's own: the checked ``grad`` / ``loss_acc`` only, no unchecked kernels
    (so a replay evaluates it in full)."""

    def __init__(self, inner):
        self.inner = inner

    def init(self, rng):
        return self.inner.init(rng)

    def grad(self, *a):
        return self.inner.grad(*a)

    def loss_acc(self, *a):
        return self.inner.loss_acc(*a)


def test_a_model_object_without_unchecked_kernels_is_evaluated_in_full(digits):
    from simlib.training.learning import make_model

    log = _log("partial", 7, duration=5.0)
    res = replay(log, digits, model=PlainModel(make_model("softmax", digits)), numerics=Numerics(loss_every=5))
    assert res.curve.test_loss.notna().all()


@settings(max_examples=200, deadline=None)
@given(Z=hnp.arrays(np.float32, hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=12),
                    elements=st.floats(float(np.float32(-3.4e38)), float(np.float32(3.4e38)), width=32,
                                       allow_nan=False, allow_subnormal=False)
                    | st.sampled_from([0.0, 1.0, -1.0, 1.0000001, -0.99999994])))
def test_the_argmax_of_the_logits_is_the_argmax_after_subtracting_the_row_maximum(Z):
    """Why the accuracy alone is the full evaluation's: loss_acc takes the argmax of Z - max(Z) in float64
    (ties, neighbouring floats and values near the float32 range included; subnormals are left out: a
    library loaded here flushes them to zero, which the logits of a model never are)."""
    D = Z.astype(float)
    D -= D.max(axis=1, keepdims=True)
    np.testing.assert_array_equal(Z.argmax(axis=1), D.argmax(axis=1))


@pytest.mark.parametrize("scheme,seed,model,stop", [("partial", 0, "softmax", None), ("allreduce", 1, "mlp-relu", 0.5),
                                                    ("ps-asp", 3, "mlp-relu", None), ("adpsgd", 4, "softmax", 0.85)])
def test_no_loss_at_all_changes_only_the_loss(digits, scheme, seed, model, stop):
    """``loss_every=0`` (RP27): every row's loss NaN, every other column, the stop and the models those of the
    every-time evaluation (which takes the accuracy from the full evaluation's float64 logits)."""
    log = _log(scheme, seed)
    kw = dict(model=model, lr=0.1, seed=seed, eval_every_s=0.5, stop_acc=stop)
    fine = replay(log, digits, numerics=Numerics(dtype="float32"), **kw)
    none = replay(log, digits, numerics=Numerics(dtype="float32", loss_every=0), **kw)
    pd.testing.assert_frame_equal(fine.curve.drop(columns="test_loss"), none.curve.drop(columns="test_loss"),
                                  check_exact=True)
    assert none.curve.test_loss.isna().all() and fine.curve.test_loss.notna().all()
    np.testing.assert_array_equal(fine.final_params, none.final_params)
    np.testing.assert_array_equal(fine.final_model, none.final_model)
    if stop is not None:
        assert none.curve.test_acc.iloc[-1] >= stop > none.curve.test_acc.iloc[:-1].max()


def test_no_loss_for_a_model_object_leaves_the_rows_nan(digits):
    """A model object evaluates in full (its loss comes with the accuracy), but ``loss_every=0`` records none."""
    from simlib.training.learning import make_model

    log = _log("partial", 7, duration=5.0)
    inner = make_model("softmax", digits)
    full = replay(log, digits, model=PlainModel(inner))
    none = replay(log, digits, model=PlainModel(inner), numerics=Numerics(loss_every=0))
    assert none.curve.test_loss.isna().all()
    pd.testing.assert_frame_equal(full.curve.drop(columns="test_loss"), none.curve.drop(columns="test_loss"))


def _same_metrics(a: dict, b: dict):
    assert a.keys() == b.keys()
    for k in a:
        assert a[k] == b[k] or (isinstance(a[k], float) and math.isnan(a[k]) and math.isnan(b[k])), k


@pytest.mark.parametrize("scheme,dtype", [("partial", "float32"), ("selective", "float64"), ("allreduce", "float32")])
def test_a_trial_without_the_loss_reports_what_the_trial_with_it_reports(scheme, dtype):
    """RP27: :func:`time_to_accuracy.trial` (no loss) against the metrics of :func:`trial_and_curve` (the loss
    every tenth evaluation, RP23), early stop on, the digits ladder (rungs above and below the target)."""
    from simlib.training import time_to_accuracy as tta

    p = dict(scheme=scheme, n=10, trace="transformer", duration_s=120.0, target_acc=0.85, train_problem="digits",
             train_model="mlp-relu", train_lr=0.1, train_early_stop=True, train_dtype=dtype)
    seed = np.random.SeedSequence(4)
    out, curve = tta.trial_and_curve(p, seed)
    assert curve.test_loss.notna().any()
    _same_metrics(tta.trial(p, seed), out)
