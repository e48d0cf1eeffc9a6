"""The replay's small numba loops (issue 48's speed work) against plain numpy, bit for bit: the softmax
gradient of the logits (``_dlogits`` against ``_dlogits_numpy``), the ReLU MLP's hidden layer with its bias
unit (against ``np.maximum`` on the view), the count of correct argmaxes the accuracy takes (against
``argmax``), the evaluated mean of the replicas (against ``mean``), the backward pass's ReLU masks (against
the scalar loop and numpy's product), the gradients and logits on gathered rows (against the kernels on the
rows) and RP25's wrong-by-more-than-rounding test (against its numpy sequence)."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from simlib.runtime.cluster import ScheduleLog, SyncRecord
from simlib.training.learning import _argmax_hits, _dlogits, _dlogits_numpy, _relu_bias_unit, load_problem
from simlib.training.replay import Numerics, StepRule, replay

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


@settings(max_examples=200, deadline=None)
@given(dt=st.sampled_from([np.float32, np.float64]), C_=st.integers(8, 128), m=st.integers(1, 4),
       B=st.integers(1, 40), seed=st.integers(0, 2**32 - 1))
def test_row_sums_are_numpy_s_sum_bit_for_bit(dt, C_, m, B, seed):
    """The compiled row sums of ``_sum_normalize_rows`` add in numpy's order: positive values over 40
    orders of magnitude (exp's outputs, where the order changes the rounding) and mixed signs; the
    normalization after it (``/ S``, ``- 1`` at the label, ``× 1/B``) on the result of numpy's sum."""
    from simlib.training.learning import _normalize_rows, _sum_normalize_rows

    rng = np.random.default_rng(seed)
    mag = 10.0 ** rng.uniform(-20, 20, (m, B, C_))
    P = (mag if seed % 2 else mag * rng.choice([-1.0, 1.0], (m, B, C_))).astype(dt)
    y = rng.integers(0, C_, (m, B))
    one, scale = dt(1.0), dt(1.0 / B)
    want = P.copy()
    with np.errstate(all="ignore"):
        S = want.sum(axis=-1, keepdims=True)
        _normalize_rows(want.reshape(m * B, C_), S.reshape(m * B), y.reshape(m * B), one, scale)
        got = P.copy()
        _sum_normalize_rows(got.reshape(m * B, C_), y.reshape(m * B), one, scale)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("C_", [2, 3, 7, 8, 10, 16, 127, 128, 129, 300])
def test_dlogits_at_every_row_length_is_the_numpy_sequence(C_):
    """Rows shorter than 8 or longer than 128 keep numpy's sum; in between the compiled one (both: numpy's bytes)."""
    rng = np.random.default_rng(C_)
    for dt in (np.float32, np.float64):
        Z = (rng.standard_normal((3, 17, C_)) * 30).astype(dt)
        y = rng.integers(0, C_, (3, 17))
        assert _dlogits(Z, y).tobytes() == _dlogits_numpy(Z, y).tobytes()


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
    Z[2, 1] = 1.0
    Z[1, 0] = np.nan                                        # a NaN first in its row, smaller values after it
    assert _argmax_hits(Z, np.array([1, 0, 0])) == -1
    Z[1, 0], Z[0, 2] = 0.0, np.nan                          # the last element, after the row's maximum
    assert _argmax_hits(Z, np.array([1, 0, 0])) == -1


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


# ---------------------------------------------------------------- the backward pass's ReLU (replay6)
NAN_BITS = [np.float64(np.nan), -np.float64(np.nan)]      # both signs: a sum of NaNs keeps the first one's bits
SPECIAL = ELEMENTS | st.sampled_from([np.nan, -np.nan, np.inf, -np.inf])


def _relu_back_loop(dA, A):
    """The reference: ``dA *= (A > 0)`` and each column's sum of the kept elements in float64, one element at a
    time in increasing r (the loop ``_relu_back`` was before it went branch-free), a NaN sum keeping its first
    NaN's bits (the old compiled loop did so in its vector lanes and took the last NaN in its scalar remainder:
    LLVM's choice, which only a NaN's sign shows)."""
    m, R, C = A.shape
    dA = dA.copy()
    gb = np.empty((m, C), dtype=dA.dtype)
    for i in range(m):
        for c in range(C):
            acc = np.float64(0.0)
            for r in range(R):
                if A[i, r, c] > 0:
                    v = np.float64(dA[i, r, c])
                    if not np.isnan(acc):
                        acc = v if np.isnan(v) else acc + v
                else:
                    dA[i, r, c] = 0
            gb[i, c] = acc
    return dA, gb


@settings(max_examples=200, deadline=None)
@given(shape=st.tuples(st.integers(1, 3), st.integers(1, 30), st.integers(1, 27)),
       dt=st.sampled_from([np.float32, np.float64]), data=st.data())
def test_relu_back_is_the_scalar_loop_bit_for_bit(shape, dt, data):
    """Branch-free ReLU backward with the bias gradient: the same bytes as the scalar loop (zeros' signs, an
    element under a non-positive or NaN activation, infinities and NaNs of either sign in the sums)."""
    from simlib.training.learning import _relu_back

    dA = data.draw(hnp.arrays(dt, shape, elements=SPECIAL))
    A = data.draw(hnp.arrays(dt, shape, elements=SPECIAL))
    got_dA, got_gb = dA.copy(), np.full((shape[0], shape[2]), 7.0, dtype=dt)
    with np.errstate(all="ignore"):
        want_dA, want_gb = _relu_back_loop(dA, A)
        _relu_back(got_dA, A, got_gb)
    assert got_dA.tobytes() == want_dA.tobytes()
    assert got_gb.tobytes() == want_gb.tobytes()


def test_relu_back_by_hand():
    """dA = [[1, 2], [3, 4]] under A = [[1, -1], [0, 5]]: kept 1 and 4, the bias gradient (1, 4)."""
    from simlib.training.learning import _relu_back

    dA = np.array([[[1.0, 2.0], [3.0, 4.0]]], dtype=np.float32)
    A = np.array([[[1.0, -1.0], [0.0, 5.0]]], dtype=np.float32)
    gb = np.empty((1, 2), dtype=np.float32)
    _relu_back(dA, A, gb)
    np.testing.assert_array_equal(dA, [[[1.0, 0.0], [0.0, 4.0]]])
    np.testing.assert_array_equal(gb, [[1.0, 4.0]])
    assert np.signbit(dA[0, 0, 1]) == np.signbit(np.float32(0.0))     # +0, not the product −0


@settings(max_examples=200, deadline=None)
@given(shape=st.tuples(st.integers(1, 40), st.integers(1, 33)), dt=st.sampled_from([np.float32, np.float64]),
       data=st.data())
def test_relu_mask_is_numpy_s_product_with_the_bool(shape, dt, data):
    """The ReLU MLP's ``dA *= (A > 0)`` with ``A = H[:, :-1]``: the same bytes as numpy's (−0 for a negative
    element under a non-positive activation, NaN for ±inf or NaN there)."""
    from simlib.training.learning import _relu_mask

    R, K = shape
    dA = data.draw(hnp.arrays(dt, shape, elements=SPECIAL))
    H = data.draw(hnp.arrays(dt, (R, K + 1), elements=SPECIAL))
    want = dA.copy()
    with np.errstate(all="ignore"):
        want *= (H[:, :-1] > 0)
        got = dA.copy()
        _relu_mask(got, H, dt(1), dt(0))
    assert got.tobytes() == want.tobytes()


# ---------------------------------------------------------------- minibatches gathered by rows (replay6)
@pytest.mark.parametrize("name", ["softmax", "mlp", "mlp-relu", "cnn"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_and_logits_on_rows_are_the_kernels_on_the_gathered_rows(name, dtype):
    """``rows_on(X)`` (the CNN gathers its first convolution's windows of X's rows) gives the bytes of the
    unchecked gradient and logits on ``X[idx]``, and the checked ``grad``'s."""
    from simlib.training.learning import make_model

    prob = load_problem("mnist1d")
    mdl = make_model(name, prob, l2=1e-4)
    rng = np.random.default_rng(3)
    X = prob.X_train[:500].astype(dtype)
    grad_rows, logits_rows = mdl.rows_on(X)
    grad, logits = mdl.unchecked()
    for m, B in ((1, 32), (3, 7), (5, 32)):
        p = np.stack([mdl.init(rng) + 0.3 * rng.standard_normal(mdl.dim) for _ in range(m)]).astype(dtype)
        idx = rng.integers(0, 500, (m, B))
        y = prob.y_train[idx]
        G = grad_rows(p, idx, y)
        assert G.dtype == np.dtype(dtype) and G.tobytes() == grad(p, X[idx], y).tobytes()
        if dtype == "float64":          # the checked grad computes in float64
            assert G.tobytes() == mdl.grad(p, X[idx], y).tobytes()
        assert logits_rows(p, idx).tobytes() == logits(p, X[idx]).tobytes()


@settings(max_examples=300, deadline=None)
@given(Z=hnp.arrays(st.sampled_from([np.float32, np.float64]), st.tuples(st.integers(1, 30), st.integers(2, 11)),
                    elements=SPECIAL), data=st.data())
def test_certainly_wrong_is_the_numpy_sequence(Z, data):
    """The compiled test "another class's logit beats the label's by more than the margin" gives numpy's flags
    (ties, ±0, infinities, NaN rows never counted)."""
    from simlib.training.replay import _certainly_wrong_numpy, certainly_wrong

    y = data.draw(hnp.arrays(np.int64, Z.shape[0], elements=st.integers(0, Z.shape[1] - 1)))
    tol = data.draw(st.sampled_from([0.0, 3.5e-4, 1.5e-8, 0.5]))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(certainly_wrong(Z, y, tol), _certainly_wrong_numpy(Z, y, tol))


# ---------------------------------------------------------------- one pairwise merge on its own (replay6)
@pytest.mark.parametrize("scheme,kw", [("adpsgd", dict(momentum=0.5)), ("adpsgd", {}), ("partial", {})])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("one_at_a_time", [False, True])
def test_a_single_pairwise_merge_takes_the_batched_paths_values(monkeypatch, scheme, kw, dtype, one_at_a_time):
    """A held-back batch of one merge of two replicas (AD-PSGD's usual batch, and every sync one at a time)
    is applied by plain row arithmetic: the curve (loss included), replicas and model are the bytes the
    batched path gives when that shortcut is switched off."""
    from simlib.papers.cluster_scenario import Scenario, simulate
    from simlib.training import replay as replay_mod

    sc = dict(scheme=scheme, n=6, hl=2, bandwidth_gbps=1.0, model_mb=20.0, trace="cnn", duration_s=25.0)
    if scheme == "partial":
        sc["p"] = 0.5
    log = simulate(Scenario.from_params(sc), 3)
    prob = load_problem("digits")
    args = dict(model="mlp", lr=0.1, seed=2, eval_every_s=0.25, steps=StepRule(**kw),
                numerics=Numerics(dtype=dtype, one_at_a_time=one_at_a_time))
    fast = replay(log, prob, **args)
    init = replay_mod._Replicas.__init__

    def no_shortcut(self, *a, **k):
        init(self, *a, **k)
        self.pair_l = [False] * len(self.pair_l)

    monkeypatch.setattr(replay_mod._Replicas, "__init__", no_shortcut)
    slow = replay(log, prob, **args)
    pd.testing.assert_frame_equal(fast.curve, slow.curve, check_exact=True)
    assert fast.final_params.tobytes() == slow.final_params.tobytes()
    assert fast.final_model.tobytes() == slow.final_model.tobytes()


@settings(max_examples=100, deadline=None)
@given(dt=st.sampled_from([np.float32, np.float64]), n=st.integers(1, 12), d=st.integers(1, 40),
       seed=st.integers(0, 2**32 - 1), lr=st.sampled_from([0.5, 0.1, 1e-3, 3.0]))
def test_sgd_rows_is_numpy_s_step_bit_for_bit(dt, n, d, seed, lr):
    """The compiled local step (``params[rows] -= step * g`` for distinct rows) against numpy's statement,
    with values over many magnitudes, ±0, ±inf and NaN in the gradients and the replicas."""
    from simlib.training.replay import _sgd_rows

    rng = np.random.default_rng(seed)
    params = (rng.standard_normal((n, d)) * 10.0 ** rng.uniform(-8, 8, (n, d))).astype(dt)
    m = int(rng.integers(1, n + 1))
    rows = rng.permutation(n)[:m].astype(np.intp)
    g = (rng.standard_normal((m, d)) * 10.0 ** rng.uniform(-8, 8, (m, d))).astype(dt)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan], dtype=dt)
    g.flat[rng.integers(0, g.size, 3)] = rng.choice(specials, 3)
    params.flat[rng.integers(0, params.size, 2)] = rng.choice(specials, 2)
    step = dt(lr)
    want = params.copy()
    with np.errstate(all="ignore"):
        want[rows] -= step * g
        got = params.copy()
        _sgd_rows(got, rows, step, g)
    assert got.tobytes() == want.tobytes()


# ---------------------------------------------------------------- one record's row broadcast (replay8)
@pytest.mark.parametrize("scheme,kw", [("allreduce", {}), ("partial", {"p": 0.5}), ("selective", {}),
                                       ("partial", {"p": 0.5, "weights": "dynamic"})])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("one_at_a_time", [False, True])
def test_one_records_row_broadcast_to_its_targets_is_the_repeated_rows(monkeypatch, scheme, kw, dtype, one_at_a_time):
    """A held-back batch whose only record of a member count is written by broadcasting its new replica to the
    record's targets gives the bytes of the path that repeats the row once per target (switched off here)."""
    from simlib.papers.cluster_scenario import Scenario, simulate
    from simlib.training import replay as replay_mod

    sc = dict(scheme=scheme, n=12, hl=2, bandwidth_gbps=1.0, model_mb=20.0, trace="cnn", duration_s=25.0, **kw)
    log = simulate(Scenario.from_params(sc), 5)
    assert any(len(r.members) > 2 for r in log.syncs)
    prob = load_problem("digits")
    args = dict(model="mlp", lr=0.1, seed=2, eval_every_s=0.25,
                numerics=Numerics(dtype=dtype, one_at_a_time=one_at_a_time))
    fast = replay(log, prob, **args)
    monkeypatch.setattr(replay_mod, "_BROADCAST_ONE", False)
    slow = replay(log, prob, **args)
    pd.testing.assert_frame_equal(fast.curve, slow.curve, check_exact=True)
    assert fast.final_params.tobytes() == slow.final_params.tobytes()
    assert fast.final_model.tobytes() == slow.final_model.tobytes()


# ---------------------------------------------------------------- the CNN's forward: ReLU and the next windows (cnn12)
def _bias_relu_windows_numpy(A, b, k, s, pad, out):
    """The reference: ``v = A + b`` per replica (one IEEE addition), ``v`` where ``v > 0`` and +0 elsewhere (−0,
    negatives and NaN), then the zero-padded strided windows ``P[i, t, j] = v[i, t·s + j − pad]`` by numpy
    indexing."""
    M, L, C = A.shape
    B = M // b.shape[0]
    v = A + np.repeat(b, B, axis=0)[:, None, :]
    v = np.where(v > 0, v, np.zeros((), A.dtype))
    padded = np.concatenate([np.zeros((M, pad, C), A.dtype), v, np.zeros((M, k + s * out, C), A.dtype)], axis=1)
    rows = (np.arange(out)[:, None] * s + np.arange(k)[None, :])          # into the padded signal
    return v, padded[:, rows, :]


@settings(max_examples=150, deadline=None)
@given(m=st.integers(1, 3), B=st.integers(1, 4), L=st.integers(1, 12), C=st.integers(1, 6), k=st.integers(1, 5),
       s=st.integers(1, 3), pad=st.integers(0, 2), dt=st.sampled_from([np.float32, np.float64]), data=st.data())
def test_bias_relu_then_windows_is_the_numpy_sequence_bit_for_bit(m, B, L, C, k, s, pad, dt, data):
    """``_bias_relu_im2col`` (the CNN's bias and ReLU fused with the next convolution's windows): the ReLU output
    in place and every window element, the same bytes as numpy's sequence (signed zeros, NaNs, infinities), and
    the same as the two kernels it replaces one after the other."""
    from simlib.training.learning import _bias_relu, _bias_relu_im2col, _im2col

    out = (L + 2 * pad - k) // s + 1
    if out < 1:
        return
    elems = ELEMENTS | st.sampled_from([np.nan, -np.nan, np.inf, -np.inf])
    A = data.draw(hnp.arrays(dt, (m * B, L, C), elements=elems))
    b = data.draw(hnp.arrays(dt, (m, C), elements=elems))
    got_A, got_P = A.copy(), np.full((m * B, out, k, C), 7.0, dtype=dt)
    with np.errstate(all="ignore"):
        want_A, want_P = _bias_relu_windows_numpy(A, b, k, s, pad, out)
        _bias_relu_im2col(got_A, b, k, s, pad, out, got_P)
    assert got_A.tobytes() == want_A.tobytes()
    assert got_P.tobytes() == want_P.tobytes()
    two_A, two_P = A.copy().reshape(m, B * L, C), np.empty_like(got_P)
    with np.errstate(all="ignore"):
        _bias_relu(two_A, b)
    _im2col(two_A.reshape(m * B, L, C), k, s, pad, out, two_P)
    assert two_A.tobytes() == got_A.tobytes() and two_P.tobytes() == got_P.tobytes()


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_the_cnn_gradient_and_logits_match_a_plain_numpy_cnn_bit_for_bit(dt):
    """The CNN's gradient and logits on random replicas and minibatches (m = 1, 3, 8; B = 1, 7, 32), against the
    same layers written in plain numpy (windows by indexing, ``np.maximum``-free ReLU by ``where``, the backward
    window sums in increasing t): every byte.  The products are numpy's ``matmul`` on arrays of the same shapes
    on both sides."""
    from simlib.training.learning import CNN

    prob = load_problem("mnist1d")
    mdl = CNN(prob.n_features, prob.n_classes)
    rng = np.random.default_rng(11)
    for m, B in ((1, 1), (3, 7), (8, 32)):
        p = (np.stack([mdl.init(rng) for _ in range(m)]) * 2.0).astype(dt)
        idx = rng.integers(0, prob.y_train.size, (m, B))
        X, y = prob.X_train[idx].astype(dt), prob.y_train[idx]
        got_G, got_Z = mdl._grad(p, X, y), mdl._logits(p, X)
        want_G, want_Z = _plain_cnn(mdl, p, X, y)
        assert got_Z.tobytes() == want_Z.tobytes()
        assert got_G.tobytes() == want_G.tobytes()


def _plain_cnn(mdl, p, X, y):
    """Gradient (m, d) and logits of :class:`~simlib.training.learning.CNN` in plain numpy (the reference)."""
    m, B = y.shape
    H = X[..., :-1].reshape(m * B, -1, 1)
    cache = []
    for k, s, pad, c_in, c_out, L, out, wo, bo in mdl._conv:
        padded = np.concatenate([np.zeros((m * B, pad, c_in), X.dtype), H,
                                 np.zeros((m * B, k + s * out, c_in), X.dtype)], axis=1)
        P = padded[:, np.arange(out)[:, None] * s + np.arange(k)[None, :], :].reshape(m, B * out, k * c_in)
        A = np.matmul(P, p[:, wo:bo].reshape(m, k * c_in, c_out)) + p[:, None, bo:bo + c_out]
        A = np.where(A > 0, A, np.zeros((), X.dtype))
        cache.append((P, A))
        H = A.reshape(m * B, out, c_out)
    F = H.reshape(m, B, mdl._flat)
    C, lin = mdl.n_classes, mdl._lin
    Wl = p[:, lin:lin + mdl._flat * C].reshape(m, mdl._flat, C)
    Z = np.matmul(F, Wl) + p[:, None, mdl.dim - C:]
    G = np.empty_like(p)
    dZ = _dlogits_numpy(Z, y)
    G[:, lin:lin + mdl._flat * C] = np.matmul(F.transpose(0, 2, 1), dZ).reshape(m, -1)
    G[:, lin + mdl._flat * C:] = dZ.sum(axis=1)
    dA = np.matmul(dZ, Wl.transpose(0, 2, 1)).reshape(m, -1, mdl.channels)
    for i in range(len(mdl._conv) - 1, -1, -1):
        k, s, pad, c_in, c_out, L, out, wo, bo = mdl._conv[i]
        P, A = cache[i]
        dA = np.where(A > 0, dA, np.zeros((), dA.dtype))
        G[:, bo:bo + c_out] = np.add.reduce(dA.astype(np.float64), axis=1)     # increasing r, from +0
        G[:, wo:bo] = np.matmul(P.transpose(0, 2, 1), dA).reshape(m, -1)
        if i == 0:
            break
        dP = np.matmul(dA, p[:, wo:bo].reshape(m, k * c_in, c_out).transpose(0, 2, 1)).reshape(m * B, out, k, c_in)
        dH = np.zeros((m * B, L, c_in), dA.dtype)
        for t in range(out):            # each position sums its window terms in increasing t
            for j in range(k):
                pos = t * s + j - pad
                if 0 <= pos < L:
                    dH[:, pos] += dP[:, t, j]
        dA = dH.reshape(m, B * L, c_in)
    return G, Z
