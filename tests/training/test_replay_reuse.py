"""The replay's speed work that must not change a value (issue 48): the CNN's window copies against an
independent formulation, the logits on a fixed input against the plain kernel, and the evaluation that
reuses the last one when no event changed the evaluated model against evaluating at every time."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simlib.papers.cluster_scenario import Scenario, simulate
from simlib.training import replay as replay_mod
from simlib.training.learning import _col2im, _im2col, load_problem, make_model
from simlib.training.replay import Numerics, StepRule, replay


@pytest.fixture(scope="module")
def digits():
    return load_problem("digits")


# ------------------------------------------------------------------ the CNN's windows
def _windows_numpy(H, k, s, pad, out):
    """im2col by zero padding and a strided view: P[i, t, j, c] = Hpad[i, t·s + j, c]."""
    M, L, C = H.shape
    Hp = np.zeros((M, max(L + 2 * pad, (out - 1) * s + k), C), H.dtype)
    Hp[:, pad:pad + L] = H
    view = np.lib.stride_tricks.as_strided(Hp, (M, out, k, C),
                                           (Hp.strides[0], s * Hp.strides[1], Hp.strides[1], Hp.strides[2]))
    return view.copy()


def _adjoint_loops(dP, s, pad, L):
    """col2im by explicit loops, each output summing its terms in increasing window position t."""
    M, out, k, C = dP.shape
    dH = np.zeros((M, L, C), dP.dtype)
    for i in range(M):
        for t in range(out):
            for j in range(k):
                if 0 <= t * s + j - pad < L:
                    dH[i, t * s + j - pad] += dP[i, t, j]
    return dH


@settings(max_examples=40, deadline=None)
@given(M=st.integers(1, 3), L=st.integers(1, 12), C=st.integers(1, 4), k=st.integers(1, 5), s=st.integers(1, 3),
       pad=st.integers(0, 2), dtype=st.sampled_from(["float32", "float64"]), seed=st.integers(0, 2**31))
def test_the_window_copies_match_an_independent_formulation(M, L, C, k, s, pad, dtype, seed):
    out = (L + 2 * pad - k) // s + 1
    if out < 1:
        return
    rng = np.random.default_rng(seed)
    H = rng.standard_normal((M, L, C)).astype(dtype)
    P = np.full((M, out, k, C), np.nan, dtype)          # every element must be written
    _im2col(H, k, s, pad, out, P)
    np.testing.assert_array_equal(P, _windows_numpy(H, k, s, pad, out))
    dP = (rng.standard_normal((M, out, k, C)) * 10.0 ** rng.integers(-3, 4, (M, out, k, C))).astype(dtype)
    dH = np.full((M, L, C), np.nan, dtype)
    _col2im(dP, s, pad, dH)
    np.testing.assert_array_equal(dH, _adjoint_loops(dP, s, pad, L))       # same sums in the same order
    # the adjoint: <im2col(H), dP> = <H, col2im(dP)>
    np.testing.assert_allclose((P.astype(float) * dP).sum(), (H.astype(float) * dH).sum(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["softmax", "mlp", "mlp-relu", "cnn"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logits_on_a_fixed_input_are_the_kernels_logits_bit_for_bit(name, dtype):
    prob = load_problem("mnist1d") if name == "cnn" else load_problem("digits")
    mdl = make_model(name, prob)
    rng = np.random.default_rng(1)
    X = prob.X_test[None, :300].astype(dtype)
    on = mdl.logits_on(X)
    _, logits = mdl.unchecked()
    for _ in range(3):                  # the CNN's windows of X are prepared once and reused
        p = (mdl.init(rng) + 0.2 * rng.standard_normal(mdl.dim))[None].astype(dtype)
        Z = on(p)
        assert Z.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(Z, logits(p, X))


# ------------------------------------------------------------------ the evaluation's reuse
def _log(scheme, seed, n=6, duration=25.0, **kw):
    return simulate(Scenario.from_params(dict(scheme=scheme, n=n, hl=2, bandwidth_gbps=1.0, model_mb=20.0,
                                              trace="cnn", duration_s=duration, **kw)), seed)


CASES = [("allreduce", {}, {}, "float32", 1), ("partial", dict(p=0.5), {}, "float64", 3),
         ("ps-bsp", {}, dict(momentum=0.9), "float32", 1), ("ps-asp", {}, dict(fresh_gradients=True), "float64", 4),
         ("adpsgd", {}, dict(momentum=0.5), "float32", 2), ("eager", {}, {}, "float32", 10),
         ("selective", dict(p=0.5), {}, "float64", 1)]


@pytest.fixture
def no_reuse(monkeypatch):
    """The evaluation without reuse: every evaluation time evaluates the model."""
    at = replay_mod._Evaluations.at

    def at_fresh(self, i, t):
        self.seen = None
        return at(self, i, t)

    monkeypatch.setattr(replay_mod._Evaluations, "at", at_fresh)


def _counting(mdl):
    """``mdl`` whose logits on a fixed input count their calls in ``mdl.evaluations``."""
    mdl.evaluations = 0
    on = mdl.logits_on

    def logits_on(X):
        f = on(X)

        def counted(p):
            mdl.evaluations += 1
            return f(p)
        return counted

    mdl.logits_on = logits_on
    return mdl


@pytest.mark.parametrize("scheme,sc_kw,steps,dtype,k", CASES)
def test_reusing_an_unchanged_models_evaluation_changes_no_value(digits, scheme, sc_kw, steps, dtype, k, request):
    """Every column of the curve (the loss too), the final replicas and model are those of the replay that
    evaluates at every time; and the reuse saves evaluations (the model is idle between some times)."""
    log = _log(scheme, 3, **sc_kw)
    kw = dict(lr=0.1, seed=2, eval_every_s=0.25, steps=StepRule(**steps),
              unfinished="drop" if scheme == "selective" else "apply",
              numerics=Numerics(dtype=dtype, loss_every=k))
    mine = _counting(make_model("mlp", digits))
    reused = replay(log, digits, model=mine, **kw)
    every = _counting(make_model("mlp", digits))
    request.getfixturevalue("no_reuse")
    full = replay(log, digits, model=every, **kw)
    pd.testing.assert_frame_equal(reused.curve, full.curve, check_exact=True)
    np.testing.assert_array_equal(reused.final_params, full.final_params)
    np.testing.assert_array_equal(reused.final_model, full.final_model)
    assert reused.grad_calls == full.grad_calls
    assert every.evaluations >= len(full.curve)             # every time evaluated (and the loss at some)
    assert mine.evaluations <= every.evaluations
    if scheme in ("allreduce", "ps-bsp", "eager"):          # lock-step rounds leave the model idle at times
        assert mine.evaluations < every.evaluations


def test_the_reuse_takes_the_loss_where_the_reused_evaluation_had_none(digits):
    """loss_every k > 1: a reused accuracy from a time without the loss still gets the loss where it is due."""
    log = _log("allreduce", 0, duration=40.0)
    kw = dict(model="mlp", lr=0.1, seed=1, eval_every_s=0.1)
    fine = replay(log, digits, **kw)
    coarse = replay(log, digits, numerics=Numerics(loss_every=7), **kw)
    i = np.arange(len(fine.curve))
    on = (i % 7 == 0) | (i == i[-1])
    np.testing.assert_array_equal(coarse.curve.test_loss.to_numpy()[on], fine.curve.test_loss.to_numpy()[on])
    assert coarse.curve.test_loss[~on].isna().all()
    pd.testing.assert_series_equal(coarse.curve.test_acc, fine.curve.test_acc, check_exact=True)
    idle = (fine.curve.iterations.diff() == 0) & (fine.curve.syncs.diff() == 0)
    assert idle[on].any()                                  # the case arises: a due loss on an idle model


@pytest.mark.parametrize("scheme,sc_kw,steps,dtype,k", CASES)
def test_every_event_that_changes_the_evaluated_model_moves_its_version(digits, scheme, sc_kw, steps, dtype, k,
                                                                        monkeypatch):
    """The reuse's key: after each event, the evaluated model is bit for bit the one before unless
    ``state.version`` moved (and events that leave it alone exist: a pull, a server's compute end)."""
    log = _log(scheme, 5, **sc_kw)
    drive = replay_mod._drive
    seen = {"events": 0, "kept": 0}

    def spy(events, handlers, state, task):
        def wrap(h):
            def handler(t, a):
                v0, m0 = state.version, state.model().copy()
                h(t, a)
                m1 = state.model()
                seen["events"] += 1
                if state.version == v0:
                    seen["kept"] += 1
                    assert m0.tobytes() == m1.tobytes()
            return handler
        return drive(events, tuple(wrap(h) for h in handlers), state, task)

    monkeypatch.setattr(replay_mod, "_drive", spy)
    replay(log, digits, model="mlp", lr=0.1, seed=2, eval_every_s=0.5, steps=StepRule(**steps),
           unfinished="drop" if scheme == "selective" else "apply", numerics=Numerics(dtype=dtype, loss_every=k))
    assert seen["events"] > 50
    if scheme in ("ps-bsp", "ps-asp", "eager"):
        assert seen["kept"] > 0
