"""Evaluations cut short once they are shown below the stop (``Numerics(curve="to_target")``, decision RP25):
the wrong-sample budget by hand, the cut exactly past it, and the same time, steps and updates to the target,
final accuracy and models as the full evaluation on simulated schedules and on RP24's search runs."""
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.training.test_replay_loss_every import PlainModel, _log, digits  # noqa: F401  (digits: a fixture)
from simlib.training.replay import (CUT_CHUNK, Numerics, _BelowTest, certainly_wrong, iterations_to_accuracy, replay,
                                    tie_tolerance, time_to_accuracy, wrong_budget)


# ------------------------------------------------------------------ the budget and the cut, by hand
def test_the_wrong_budget_by_hand_including_float_rounding():
    """Reaching ``stop`` needs ``mean(correct) >= stop`` with the mean a correctly rounded c / N."""
    assert wrong_budget(0.87, 1000) == 130            # 870 / 1000 == 0.87 in floating point
    assert wrong_budget(0.0, 7) == 7 and wrong_budget(1.0, 7) == 0
    assert wrong_budget(2 / 3, 3) == 1                # 2 / 3 is the double 2 / 3 evaluates to
    # the next double above 2 / 3: 2 correct of 3 (0.6666666666666666) fall short, so no sample may be wrong,
    # though N - ceil(stop * N) = 3 - ceil(2.0) would allow one
    stop = float(np.nextafter(2 / 3, 1.0))
    assert 2 / 3 < stop and math.ceil(stop * 3) == 2
    assert wrong_budget(stop, 3) == 0
    for bad in (-0.1, 1.5, math.nan):
        with pytest.raises(ValueError, match="stop_acc"):
            wrong_budget(bad, 10)
    with pytest.raises(ValueError, match="n_test"):
        wrong_budget(0.5, 0)


class _OneHot:
    """Logits of test sample i: 1 for the class the feature row says, 0 elsewhere (rows of X are one-hot)."""

    def __call__(self, p, X):
        return X.astype(float)


def _one_hot_test_set(n, wrong, classes=3):
    """n samples with label 0; the samples in ``wrong`` predict class 1 (by a logit gap of 1), the rest 0."""
    pred = np.zeros(n, dtype=np.int64)
    pred[list(wrong)] = 1
    return np.eye(classes)[pred], np.zeros(n, dtype=np.int64)


@pytest.mark.parametrize("n", [10, 250])
def test_the_cut_happens_at_budget_plus_one_wrong_and_not_at_the_budget(n):
    """With stop 0.8 the budget is 20 % of n wrong: exactly that many wrong samples (anywhere in the order) never
    cut the evaluation short, one more always does; a cut needs only the chunks up to the (budget+1)-th wrong."""
    stop = 0.8
    budget = wrong_budget(stop, n)
    assert budget == n // 5
    rng = np.random.default_rng(n)
    for k in (budget, budget + 1):
        for _ in range(5):
            wrong = rng.choice(n, size=k, replace=False)
            X, y = _one_hot_test_set(n, wrong)
            assert ((X.argmax(axis=1) == y).mean() >= stop) == (k <= budget)      # what the full evaluation says
            logits = _OneHot()
            test = _BelowTest(logits, X, y, stop, np.float64)
            assert test(np.zeros(1)) == (k > budget)
            if k > budget:        # stopped in the chunk of the (budget+1)-th wrong sample
                last = np.sort(wrong)[budget]
                assert test.samples == min(n, (last // CUT_CHUNK + 1) * CUT_CHUNK)
            else:
                assert test.samples == n


def test_after_a_cut_the_samples_found_wrong_come_first():
    """A second test of the same model starts with the samples the first found wrong: one chunk of them."""
    n, stop = 1000, 0.87
    wrong = np.arange(400, 1000, 4)                   # 150 wrong > budget 130, none in the first 400
    X, y = _one_hot_test_set(n, wrong)
    test = _BelowTest(_OneHot(), X, y, stop, np.float32)
    assert test(np.zeros(1))
    first = test.samples
    assert first == 1000                              # the 131st wrong sample is sample 920
    assert test(np.zeros(1))
    assert test.samples - first == 150                # the 150 found wrong, in one chunk


def test_near_ties_are_not_counted_wrong():
    """A wrong prediction counts only by more than √ε × the row's largest |logit|; a tie (argmax picks the
    label), a NaN row and a gap inside the margin do not."""
    tol = tie_tolerance(np.float32)
    assert tol == pytest.approx(np.sqrt(np.finfo(np.float32).eps))
    Z = np.array([[1.0, 1.0], [0.0, 2.0], [10.0, 10.0 + 5 * tol], [10.0, 10.0 + 20 * tol], [np.nan, 1.0],
                  [0.0, 0.0]])
    y = np.zeros(6, dtype=np.int64)
    np.testing.assert_array_equal(certainly_wrong(Z, y, tol), [False, True, False, True, False, False])


# ------------------------------------------------------------------ the replay: the same crossing, fewer samples
def _same_crossing(full, cut, stop):
    f, c = full.curve, cut.curve
    assert c.attrs["curve"] == "to_target" and f.attrs["curve"] == "full"
    assert cut.curve_mode == "to_target" and full.curve_mode == "full"
    pd.testing.assert_frame_equal(f[["time_s", "iterations", "syncs"]], c[["time_s", "iterations", "syncs"]],
                                  check_exact=True)
    for fn in (time_to_accuracy, iterations_to_accuracy):
        np.testing.assert_equal(fn(c, stop), fn(f, stop))
    kept = c["test_acc"].notna().to_numpy()
    np.testing.assert_array_equal(c["test_acc"].to_numpy()[kept], f["test_acc"].to_numpy()[kept])
    assert (f["test_acc"].to_numpy()[~kept] < stop).all()            # every cut row is below the stop
    assert c["test_loss"].to_numpy()[~kept].size == 0 or np.isnan(c["test_loss"].to_numpy()[~kept]).all()
    assert kept[-1] and c["test_acc"].iloc[-1] == f["test_acc"].iloc[-1]
    np.testing.assert_array_equal(full.final_params, cut.final_params)
    np.testing.assert_array_equal(full.final_model, cut.final_model)
    return kept


@pytest.mark.parametrize("scheme,seed,model,dtype,stop", [
    ("partial", 0, "softmax", "float32", 0.85), ("allreduce", 1, "mlp-relu", "float32", 0.88),
    ("selective", 2, "softmax", "float64", 0.9), ("ps-asp", 3, "mlp-relu", "float64", 0.85),
    ("adpsgd", 4, "softmax", "float32", 0.88), ("eager", 5, "mlp-relu", "float32", 0.85),
    ("partial", 6, "mlp-relu", "float32", 0.999)])                      # 0.999: never reached
def test_the_crossing_final_accuracy_and_models_are_the_full_evaluations(digits, scheme, seed, model, dtype, stop):
    log = _log(scheme, seed)
    kw = dict(model=model, lr=0.1, seed=seed, eval_every_s=0.5, stop_acc=stop)
    full = replay(log, digits, numerics=Numerics(dtype=dtype, loss_every=10), **kw)
    cut = replay(log, digits, numerics=Numerics(dtype=dtype, loss_every=10, curve="to_target"), **kw)
    kept = _same_crossing(full, cut, stop)
    assert (~kept).sum() >= 5                                        # the knob cut evaluations short ...
    assert cut.eval_samples < full.eval_samples                      # ... and took fewer logits
    if stop == 0.999:
        assert math.isnan(time_to_accuracy(cut.curve, stop)) and kept.sum() == 1


def test_the_cnn_on_mnist1d_where_chunked_float64_logits_differ_from_the_full_batchs(digits):
    """float64 BLAS kernels give a chunk's rows other last bits than the full batch's (measured, RP25); the
    margin keeps the crossing exact anyway."""
    log = _log("allreduce", 8, duration=12.0)
    kw = dict(model="cnn", lr=0.02, batch_size=32, seed=8, eval_every_s=0.5, stop_acc=0.3)
    full = replay(log, "mnist1d", numerics=Numerics(dtype="float64"), **kw)
    cut = replay(log, "mnist1d", numerics=Numerics(dtype="float64", curve="to_target"), **kw)
    kept = _same_crossing(full, cut, 0.3)
    assert (~kept).any()


def test_the_knob_is_checked_and_a_model_object_is_evaluated_in_full(digits):
    from simlib.training.learning import make_model

    log = _log("partial", 7, duration=5.0)
    with pytest.raises(ValueError, match="curve"):
        Numerics(curve="coarse")
    with pytest.raises(ValueError, match="stop_acc"):
        replay(log, digits, numerics=Numerics(curve="to_target"))

    res = replay(log, digits, model=PlainModel(make_model("softmax", digits)), numerics=Numerics(curve="to_target"),
                 stop_acc=0.99)
    assert res.curve.test_acc.notna().all()


def test_replay_to_target_leaves_the_ladder_out_of_a_to_target_curve_and_needs_the_stop_at_the_target():
    from simlib.training.params import TrainingParams
    from simlib.training.time_to_accuracy import replay_curve, replay_to_target

    log = _log("partial", 9, duration=20.0)
    seed = np.random.SeedSequence(9)
    tp = TrainingParams.split({"train_problem": "digits", "train_model": "softmax", "train_lr": 0.1,
                               "train_early_stop": True, "target_acc": 0.92})[1]     # the ladder's top
    full, _ = replay_to_target(log, tp, seed)
    cut, _ = replay_to_target(log, tp, seed, curve=replay_curve(log, tp, seed, curve="to_target"))
    np.testing.assert_equal(cut, {k: full[k] for k in cut})      # NaN (never reached) equal to NaN
    assert set(full) - set(cut) == {c for c in full if c.startswith("time_to_acc")}
    low = TrainingParams.split({"train_problem": "digits", "train_model": "softmax", "train_early_stop": True,
                                "target_acc": 0.85})[1]                              # rungs above it
    with pytest.raises(ValueError, match="to_target"):
        replay_curve(log, low, seed, curve="to_target")


# ------------------------------------------------------------------ RP24's search runs
@pytest.mark.parametrize("arm", ["AR", "ASP", "ER"])
def test_rp24_search_runs_report_the_same_values_with_either_curve(arm):
    """RP24's search at its settings (the MLP candidate, target 55 %, cap 3000 s, the paper profile): every
    output of a run replayed with the ``to_target`` curve equals the full evaluation's (the CNN's runs, which
    the search replays so, cost 10-20 s each: checked on notebook 23's committed rows, RP25)."""
    from simlib.training import task_search as ts
    from simlib.training.nine_systems import ARMS

    assert ts.SEARCH_CURVE == {"mlp-relu": "full", "cnn": "to_target"}
    cand = ts.TaskCandidate("mlp-relu", "sharded", 32)
    (setting,) = [s for s in ts.search_settings(cand, 0.55, duration_s=3000.0) if s["scheme"] == ARMS[arm][0]]
    seed = np.random.SeedSequence(0, spawn_key=(0,))
    full = ts.search_trial(setting, seed)
    assert full["reached"] == 1
    assert ts.search_run(setting, seed, curve="to_target") == full


# ------------------------------------------------------------------ the order after a cut (cnn12): most recent wrong first
class _Tables:
    """Logits that depend on the model: model ``p`` (1, d) predicts with table ``int(p[0, 0])``; a test row's
    feature is its sample index (X = arange(n)[:, None])."""

    def __init__(self, tables):
        self.tables = tables

    def __call__(self, p, X):
        return self.tables[int(p[0, 0])][X[0, :, 0].astype(np.int64)][None]


def _tables(n, wrong_sets, classes=3):
    return [_one_hot_test_set(n, w, classes)[0] for w in wrong_sets]


def test_after_a_cut_the_rest_follow_by_their_last_wrong_test():
    """Three models: the first wrong on samples 860-999, the second on 500-649, the third on 860-999 again.  The
    third test takes the second's front (500-649), then the samples the *first* test found wrong (860-999, seen
    at test 1) before the never-wrong ones in index order: 150 + 100 + 100 samples instead of the whole set."""
    n, stop = 1000, 0.87
    sets = [np.arange(860, 1000), np.arange(500, 650), np.arange(860, 1000)]
    X, y = np.arange(n, dtype=float)[:, None], np.zeros(n, dtype=np.int64)
    test = _BelowTest(_Tables(_tables(n, sets)), X, y, stop, np.float64)
    assert test(np.zeros(1))
    assert test.samples == 1000                       # the 131st wrong sample is 990: every chunk
    np.testing.assert_array_equal(test.order[:140], np.arange(860, 1000))
    assert test(np.ones(1))
    assert test.samples - 1000 == 140 + 700           # the front (no wrong), then 0-699: 150 wrong at 600-699
    np.testing.assert_array_equal(test.order[:150], np.arange(500, 650))
    np.testing.assert_array_equal(test.order[150:290], np.arange(860, 1000))       # seen wrong at test 1
    np.testing.assert_array_equal(test.order[290:], np.setdiff1d(np.arange(n), np.r_[500:650, 860:1000]))
    assert test(np.full(1, 2.0))
    assert test.samples - 1840 == 150 + 100 + 100     # front, 860-959 (100 wrong), 960-999 and 0-59 (140 > 130)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(5, 400), stop=st.floats(0.3, 0.99), data=st.data())
def test_the_verdict_is_the_full_evaluations_whatever_the_order(n, stop, data):
    """A test object that lives through a sequence of models (its order shaped by every earlier cut) says
    "below" exactly when more samples are wrong than the budget allows: what the full evaluation of that model
    says about the stop (by the correctly rounded mean of the correct flags)."""
    budget = wrong_budget(stop, n)
    sets = []
    for _ in range(data.draw(st.integers(1, 8))):
        k = data.draw(st.integers(max(0, budget - 3), min(n, budget + 3)) | st.integers(0, n))
        sets.append(data.draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k, unique=True)))
    X, y = np.arange(n, dtype=float)[:, None], np.zeros(n, dtype=np.int64)
    tables = _tables(n, sets)
    test = _BelowTest(_Tables(tables), X, y, stop, np.float64)
    for i, w in enumerate(sets):
        full_acc = (tables[i].argmax(axis=1) == y).mean()
        assert test(np.full(1, float(i))) == (len(w) > budget) == (full_acc < stop)
