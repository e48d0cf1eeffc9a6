"""The replay's small numba loops (issue 48's speed work) against plain numpy, bit for bit: the softmax
gradient of the logits (``_dlogits`` against ``_dlogits_numpy``), the ReLU MLP's hidden layer with its bias
unit (against ``np.maximum`` on the view), the count of correct argmaxes the accuracy takes (against
``argmax``), and the evaluated mean of the replicas (against ``mean``)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from simlib.runtime.cluster import ScheduleLog, SyncRecord
from simlib.training.learning import _argmax_hits, _dlogits, _dlogits_numpy, _relu_bias_unit, load_problem
from simlib.training.replay import Numerics, replay

C = 10
#: finite logits with exact ties, signed zeros, neighbouring floats and large magnitudes (subnormals left out:
#: a library loaded in the test process flushes them to zero, see test_replay_loss_every)
ELEMENTS = (st.floats(-float(np.float32(1e30)), float(np.float32(1e30)), width=32, allow_nan=False, allow_subnormal=False)
            | st.sampled_from([0.0, -0.0, 1.0, -1.0, 1.0000001, -0.99999994, 88.0, -104.0]))


def _logits(dtype):
    return hnp.arrays(dtype, st.tuples(st.integers(1, 6), st.integers(1, 9), st.just(C)), elements=ELEMENTS)


@settings(max_examples=300, deadline=None)
@given(Z=st.one_of(_logits(np.float32), _logits(np.float64)), data=st.data())
def test_dlogits_is_the_numpy_sequence_bit_for_bit(Z, data):
    """Row maxima, shift and normalization in numba, exp and row sums in numpy: the same bytes as the plain
    numpy sequence (the maximum is exact; a ±0 tie changes only a zero's sign before exp)."""
    y = data.draw(hnp.arrays(np.int64, Z.shape[:2], elements=st.integers(0, C - 1)))
    with np.errstate(all="ignore"):
        got, want = _dlogits(Z, y), _dlogits_numpy(Z, y)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_dlogits_with_a_nan_or_an_infinity_takes_numpy_s_values():
    rng = np.random.default_rng(0)
    for bad in (np.nan, np.inf, -np.inf):
        for dt in (np.float32, np.float64):
            Z = rng.standard_normal((3, 4, C)).astype(dt)
            Z[1, 2, 5] = bad
            Z[2, 0, 0] = bad
            y = rng.integers(0, C, (3, 4))
            with np.errstate(all="ignore"):
                np.testing.assert_array_equal(_dlogits(Z, y), _dlogits_numpy(Z, y))


def test_dlogits_by_hand():
    """Two classes, logits (0, log 3): softmax (1/4, 3/4); label 1, batch 2: ((1/4, -1/4)) / 2 per row."""
    Z = np.array([[[0.0, np.log(3.0)], [0.0, np.log(3.0)]]])
    got = _dlogits(Z, np.array([[1, 0]]))
    np.testing.assert_allclose(got, [[[0.125, -0.125], [-0.375, 0.375]]], rtol=1e-15)


@settings(max_examples=300, deadline=None)
@given(Z=hnp.arrays(np.float32, st.tuples(st.integers(1, 40), st.just(C)), elements=ELEMENTS), data=st.data())
def test_argmax_hits_counts_what_numpy_s_argmax_gets_right(Z, data):
    """The first largest element, as ``argmax`` takes it (ties: the first one; ±0 equal)."""
    y = data.draw(hnp.arrays(np.int64, Z.shape[:1], elements=st.integers(0, C - 1)))
    assert _argmax_hits(Z, y) == int((Z.argmax(axis=1) == y).sum())
    assert _argmax_hits(Z.astype(np.float64), y) == int((Z.argmax(axis=1) == y).sum())


def test_argmax_hits_by_hand_and_with_a_nan():
    Z = np.array([[1.0, 3.0, 3.0], [0.0, -0.0, -1.0], [2.0, 1.0, 0.0]])
    assert _argmax_hits(Z, np.array([1, 0, 0])) == 3         # ties go to the first
    assert _argmax_hits(Z, np.array([2, 1, 0])) == 1
    Z[2, 1] = np.nan
    assert _argmax_hits(Z, np.array([1, 0, 0])) == -1       # the caller then takes the full evaluation


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_the_evaluated_model_is_numpy_s_mean_of_the_replicas(dtype):
    """The replay's mean (``add.reduce`` and the division by the count) has ``params.mean(axis=0)``'s bytes."""
    log = ScheduleLog(n=5, duration=3.0, bandwidth=np.ones(5), compute_end=[[0.5, 1.5, 2.5], [1.0, 2.0], [0.7], [0.9, 2.9], [1.2]],
                      syncs=[SyncRecord(launch=1.6, finish=1.8, members=(0, 1, 3), iterations=(2, 1, 1))])
    res = replay(log, load_problem("digits"), model="mlp", numerics=Numerics(dtype=dtype), seed=4)
    assert res.final_model.tobytes() == res.final_params.mean(axis=0).tobytes()
    assert not np.array_equal(res.final_params[0], res.final_params[2])      # replicas that differ


@settings(max_examples=200, deadline=None)
@given(A=st.one_of(*(hnp.arrays(dt, st.tuples(st.integers(1, 5), st.integers(1, 40), st.integers(1, 33)),
                                elements=ELEMENTS | st.sampled_from([np.nan, np.inf, -np.inf]))
                     for dt in (np.float32, np.float64))))
def test_relu_bias_unit_is_numpy_s_maximum_on_the_view(A):
    """The MLP's ``H = [max(A, 0), 1]`` as ``_hidden`` took it with numpy (−0 becomes +0, a NaN stays)."""
    m, B, h = A.shape
    want = np.empty((m, B, h + 1), dtype=A.dtype)
    want[..., :-1] = A
    got = want.copy()
    np.maximum(want[..., :-1], 0.0, out=want[..., :-1])
    want[..., -1] = 1.0
    _relu_bias_unit(got.reshape(m * B, h + 1))
    assert got.tobytes() == want.tobytes()
