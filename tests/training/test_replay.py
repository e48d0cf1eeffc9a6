"""Replaying schedule logs through training (simlib.training.replay) and the learning problem (simlib.training.learning)."""
import math

import numpy as np
import pandas as pd
import pytest

from simlib.runtime.cluster import ScheduleLog, SyncRecord
from simlib.training.learning import CNN, MLP, Problem, SoftmaxRegression, load_problem, make_model
from simlib.training.replay import (CURVE_COLUMNS, Numerics, init_params, iterations_to_accuracy, minibatch_indices, replay,
                           time_to_accuracy)
from simlib.papers.cluster_scenario import Scenario, simulate


@pytest.fixture(scope="module")
def blobs():
    return load_problem("blobs")


@pytest.fixture(scope="module")
def digits():
    return load_problem("digits")


def make_log(n, duration, compute_end, syncs=()):
    return ScheduleLog(n=n, duration=duration, bandwidth=np.ones(n),
                       compute_end=[list(map(float, c)) for c in compute_end], syncs=list(syncs))


def sync(launch, members, iterations, finish=None, weights=None, init_weight=None):
    rec = SyncRecord(launch=float(launch), members=tuple(members), iterations=tuple(iterations), kind="partial",
                     finish=launch + 0.5 if finish is None else finish)
    if weights is not None:
        rec.weights = tuple(weights)
    if init_weight is not None:
        rec.init_weight = init_weight
    return rec


def allreduce_log(n, rounds, period=10.0):
    """Every round: all n compute (distinct times), then one sync of all n."""
    ce = [[r * period + 1.0 + 0.5 * w for r in range(rounds)] for w in range(n)]
    syncs = [sync(r * period + 1.0 + 0.5 * n, range(n), [r + 1] * n, finish=r * period + 2.0 + 0.5 * n)
             for r in range(rounds)]
    return make_log(n, rounds * period, ce, syncs)


def softmax_grad_reference(W, X, y, n_classes):
    """Mean cross-entropy gradient of softmax regression, one sample at a time (independent of simlib)."""
    f = X.shape[1]
    W = W.reshape(f, n_classes)
    G = np.zeros_like(W)
    for x, c in zip(X, y):
        z = x @ W
        p = np.exp(z - z.max())
        p /= p.sum()
        p[c] -= 1.0
        G += np.outer(x, p)
    return (G / len(y)).ravel()


# --------------------------------------------------------------- independent checks
@pytest.mark.parametrize("model", ["softmax", "mlp"])
def test_allreduce_schedule_equals_synchronous_minibatch_sgd(blobs, model):
    n, rounds, lr, B, seed = 5, 7, 0.3, 8, 11
    res = replay(allreduce_log(n, rounds), blobs, model=model, lr=lr, batch_size=B, seed=seed, eval_every_s=10.0)
    mdl = make_model(model, blobs)
    x = init_params(seed, mdl)
    batches = [minibatch_indices(seed, w, blobs.y_train.size, B, rounds) for w in range(n)]
    for r in range(rounds):
        grads = []
        for w in range(n):
            idx = batches[w][r]
            Xb, yb = blobs.X_train[idx], blobs.y_train[idx]
            if model == "softmax":
                grads.append(softmax_grad_reference(x, Xb, yb, blobs.n_classes))
            else:
                grads.append(mdl.grad(x[None], Xb[None], yb[None])[0])
        x = x - lr * np.mean(grads, axis=0)
    np.testing.assert_allclose(res.final_params, np.tile(x, (n, 1)), rtol=0, atol=1e-12)
    assert np.abs(x - res.x_init).max() > 1e-2           # it did move
    loss, acc = mdl.loss_acc(x, blobs.X_test, blobs.y_test)
    last = res.curve.iloc[-1]
    assert last.time_s == 70.0 and last.iterations == n * rounds and last.syncs == rounds
    assert last.test_loss == pytest.approx(loss, abs=1e-12) and last.test_acc == acc


def test_weighted_sync_gives_exact_combination(blobs):
    lr, B, seed = 0.2, 4, 3
    ce = [[1.0], [2.0], [1.5]]
    base = replay(make_log(3, 5.0, ce), blobs, lr=lr, batch_size=B, seed=seed)
    x0, x1, x2 = base.final_params
    xi = base.x_init
    assert not np.allclose(x0, x1)
    a, b, c = 0.6, 0.25, 0.15
    res = replay(make_log(3, 5.0, ce, [sync(3.0, (0, 1), (1, 1), weights=(a, b), init_weight=c)]),
                 blobs, lr=lr, batch_size=B, seed=seed)
    want = a * x0 + b * x1 + c * xi
    np.testing.assert_allclose(res.final_params[0], want, rtol=0, atol=1e-15)
    np.testing.assert_allclose(res.final_params[1], want, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(res.final_params[2], x2)
    # order of members follows the weights
    res = replay(make_log(3, 5.0, ce, [sync(3.0, (1, 0), (1, 1), weights=(a, b), init_weight=c)]),
                 blobs, lr=lr, batch_size=B, seed=seed)
    np.testing.assert_allclose(res.final_params[0], a * x1 + b * x0 + c * xi, rtol=0, atol=1e-15)
    # no weights recorded: constant averaging 1/|members|, init_weight 0
    res = replay(make_log(3, 5.0, ce, [sync(3.0, (0, 1), (1, 1))]), blobs, lr=lr, batch_size=B, seed=seed)
    np.testing.assert_allclose(res.final_params[:2], np.tile((x0 + x1) / 2, (2, 1)), rtol=0, atol=1e-15)


def test_gradient_after_sync_is_taken_at_the_averaged_replica(blobs):
    """Zero-length sync and compute at the same instant: order comes from the iteration counts."""
    lr, B, seed = 0.5, 6, 5
    log = make_log(2, 3.0, [[1.0, 1.0], [0.5]], [sync(1.0, (0, 1), (1, 1), finish=1.0)])
    res = replay(log, blobs, model="mlp", lr=lr, batch_size=B, seed=seed)
    mdl = make_model("mlp", blobs)
    x = init_params(seed, mdl)
    N = blobs.y_train.size
    b0, b1 = minibatch_indices(seed, 0, N, B, 2), minibatch_indices(seed, 1, N, B, 1)

    def step(p, idx):
        return p - lr * mdl.grad(p[None], blobs.X_train[idx][None], blobs.y_train[idx][None])[0]

    avg = 0.5 * step(x, b0[0]) + 0.5 * step(x, b1[0])
    np.testing.assert_allclose(res.final_params[0], step(avg, b0[1]), rtol=0, atol=1e-14)
    np.testing.assert_allclose(res.final_params[1], avg, rtol=0, atol=1e-14)


def test_unfinished_sync_apply_or_drop(blobs):
    ce = [[1.0], [1.2]]
    rec = sync(2.0, (0, 1), (1, 1))
    rec.finish = None
    base = replay(make_log(2, 3.0, ce), blobs).final_params
    applied = replay(make_log(2, 3.0, ce, [rec]), blobs)
    dropped = replay(make_log(2, 3.0, ce, [rec]), blobs, unfinished="drop")
    np.testing.assert_allclose(applied.final_params, np.tile(base.mean(axis=0), (2, 1)), atol=1e-15)
    np.testing.assert_array_equal(dropped.final_params, base)
    assert dropped.curve.syncs.iloc[-1] == applied.curve.syncs.iloc[-1] == 1


# ----------------------------------------------------------- batching, seeds, curve
@pytest.fixture(scope="module")
def simulated_log():
    log = simulate(Scenario.from_params(dict(scheme="selective", n=40, duration_s=25.0, model_mb=50.0, sync_model="eq2_exact")), 7)
    rng = np.random.default_rng(0)
    for rec in log.syncs[::2]:       # half of the syncs weighted (non-uniform, with an x_init share)
        w = rng.dirichlet(np.ones(len(rec.members)) * 2.0)
        rec.weights = tuple(0.9 * w)
        rec.init_weight = 0.1
    return log


@pytest.mark.parametrize("model", ["softmax", "mlp"])
def test_batched_and_one_at_a_time_replays_are_identical(blobs, simulated_log, model):
    log = simulated_log
    assert len(log.syncs) > 10 and sum(map(len, log.compute_end)) > 200
    fast = replay(log, blobs, model=model, lr=0.1, batch_size=16, eval_every_s=0.5, seed=2)
    slow = replay(log, blobs, model=model, lr=0.1, batch_size=16, eval_every_s=0.5, seed=2,
                  numerics=Numerics(one_at_a_time=True))
    np.testing.assert_array_equal(fast.final_params, slow.final_params)
    pd.testing.assert_frame_equal(fast.curve, slow.curve, check_exact=True)
    assert slow.grad_calls == sum(map(len, log.compute_end))
    assert fast.grad_calls < slow.grad_calls / 4
    assert list(fast.curve.columns) == list(CURVE_COLUMNS)
    assert fast.curve.iterations.iloc[-1] == sum(map(len, log.compute_end))
    assert fast.curve.syncs.iloc[-1] == len(log.syncs)
    assert fast.curve.time_s.iloc[-1] == log.duration


def test_determinism_and_seed_dependence(blobs, simulated_log):
    kw = dict(model="mlp", lr=0.1, batch_size=16, eval_every_s=1.0)
    a = replay(simulated_log, blobs, seed=4, **kw)
    b = replay(simulated_log, blobs, seed=np.random.SeedSequence(4), **kw)
    c = replay(simulated_log, blobs, seed=5, **kw)
    pd.testing.assert_frame_equal(a.curve, b.curve, check_exact=True)
    np.testing.assert_array_equal(a.final_params, b.final_params)
    assert not np.array_equal(a.curve.test_loss.to_numpy(), c.curve.test_loss.to_numpy())
    assert not np.array_equal(a.x_init, c.x_init)


def test_minibatch_stream_depends_only_on_seed_and_worker():
    long = minibatch_indices(9, 3, 100, 5, 200)
    np.testing.assert_array_equal(minibatch_indices(9, 3, 100, 5, 7), long[:7])
    np.testing.assert_array_equal(minibatch_indices(np.random.SeedSequence(9), 3, 100, 5, 70), long[:70])
    assert not np.array_equal(minibatch_indices(9, 4, 100, 5, 7), long[:7])
    assert long.shape == (200, 5) and long.min() >= 0 and long.max() < 100
    assert minibatch_indices(9, 3, 100, 5, 0).shape == (0, 5)


@pytest.mark.parametrize("n_train", [1, 7, 100, 4000, 3 * 2**30 + 1, 2**32 - 1, 2**32])
def test_minibatches_are_the_documented_block_by_block_draws(n_train):
    """Worker w's stream as its docstring defines it: ``integers(0, n_train, size=(BATCH_CHUNK, B))`` blocks
    drawn one after another from ``default_rng(child_seed(seed, 1, w))`` (ranges where Lemire's rejection
    draws again, and above 2**32 - 1, where numpy takes its 64-bit path)."""
    from simlib.core.seeding import as_seed_sequence, child_seed
    from simlib.training.replay import BATCH_CHUNK

    for seed, w, B, count in ((9, 3, 5, 200), (0, 0, 32, 1), (123, 17, 20, 129), (5, 2, 3, 64)):
        rng = np.random.default_rng(child_seed(as_seed_sequence(seed), 1, w))
        blocks = [rng.integers(0, n_train, size=(BATCH_CHUNK, B)) for _ in range(-(-count // BATCH_CHUNK))]
        want = np.concatenate(blocks)[:count]
        got = minibatch_indices(seed, w, n_train, B, count)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_curve_includes_events_at_evaluation_times(blobs):
    log = make_log(2, 2.5, [[1.0, 2.0], [1.0]], [sync(1.0, (0, 1), (1, 1), finish=1.5)])
    curve = replay(log, blobs, eval_every_s=1.0).curve
    assert curve.time_s.tolist() == [0.0, 1.0, 2.0, 2.5]
    assert curve.iterations.tolist() == [0, 2, 3, 3]
    assert curve.syncs.tolist() == [0, 1, 1, 1]
    assert curve.test_acc.between(0, 1).all() and (curve.test_loss > 0).all()


# ------------------------------------------------------------------------- models
@pytest.mark.parametrize("cls,kw", [(SoftmaxRegression, {}), (MLP, {"hidden": 6}),
                                    (MLP, {"hidden": 6, "activation": "relu"}), (CNN, {"channels": 3})])
def test_gradient_matches_finite_differences(blobs, cls, kw):
    rng = np.random.default_rng(1)
    l2 = 0.03
    mdl = cls(blobs.n_features, blobs.n_classes, l2=l2, **kw)
    m, B = 3, 7
    P = 0.5 * rng.standard_normal((m, mdl.dim))
    idx = rng.integers(0, blobs.y_train.size, size=(m, B))
    X, y = blobs.X_train[idx], blobs.y_train[idx]
    G = mdl.grad(P, X, y)
    assert G.shape == (m, mdl.dim)

    def objective(p, i):
        return mdl.loss_acc(p, X[i], y[i])[0] + 0.5 * l2 * p @ p

    h = 1e-6
    for i in range(m):
        fd = np.empty(mdl.dim)
        for j in range(mdl.dim):
            e = np.zeros(mdl.dim)
            e[j] = h
            fd[j] = (objective(P[i] + e, i) - objective(P[i] - e, i)) / (2 * h)
        np.testing.assert_allclose(G[i], fd, rtol=1e-6, atol=1e-8)
    # each replica's gradient depends only on its own parameters and batch
    np.testing.assert_allclose(mdl.grad(P[1:2], X[1:2], y[1:2])[0], G[1], rtol=0, atol=1e-15)


def test_softmax_gradient_and_loss_against_reference(blobs):
    rng = np.random.default_rng(2)
    mdl = SoftmaxRegression(blobs.n_features, blobs.n_classes)
    W = rng.standard_normal(mdl.dim)
    X, y = blobs.X_train[:20], blobs.y_train[:20]
    np.testing.assert_allclose(mdl.grad(W[None], X[None], y[None])[0],
                               softmax_grad_reference(W, X, y, blobs.n_classes), rtol=1e-12, atol=1e-14)
    Z = X @ W.reshape(blobs.n_features, blobs.n_classes)
    ce = np.mean([math.log(np.exp(z).sum()) - z[c] for z, c in zip(Z, y)])
    loss, acc = mdl.loss_acc(W, X, y)
    assert loss == pytest.approx(ce, rel=1e-12) and acc == np.mean(Z.argmax(1) == y)


def test_mlp_replicas_start_from_seeded_common_init(blobs):
    mdl = MLP(blobs.n_features, blobs.n_classes, hidden=32)
    a, b = mdl.init(np.random.default_rng(0)), mdl.init(np.random.default_rng(0))
    np.testing.assert_array_equal(a, b)
    assert a.shape == (blobs.n_features * 32 + 33 * blobs.n_classes,) and np.std(a) > 0
    res = replay(make_log(3, 1.0, [[], [], []]), blobs, model="mlp", seed=0)
    np.testing.assert_array_equal(res.final_params, np.tile(res.x_init, (3, 1)))


# ------------------------------------------------------------------------ problems
def test_problems_are_standardized_with_bias_column(digits, blobs):
    assert isinstance(digits, Problem)
    assert digits.X_test.shape == (360, 65) and digits.X_train.shape == (1797 - 360, 65)  # ceil(0.2 * 1797) test rows
    assert digits.n_classes == 10
    assert np.bincount(digits.y_test).min() >= 30        # stratified split
    for p in (digits, blobs):
        np.testing.assert_array_equal(p.X_train[:, -1], 1.0)
        np.testing.assert_array_equal(p.X_test[:, -1], 1.0)
        np.testing.assert_allclose(p.X_train[:, :-1].mean(axis=0), 0.0, atol=1e-12)
        sd = p.X_train[:, :-1].std(axis=0)
        assert np.all((np.abs(sd - 1) < 1e-9) | (sd == 0))
    assert blobs.X_train.shape[1] == 11 and blobs.n_classes == 3
    other = load_problem("digits", seed=1)
    assert not np.array_equal(other.y_test, digits.y_test)
    np.testing.assert_array_equal(load_problem("digits").X_test, digits.X_test)


def test_softmax_on_digits_learns(digits):
    """One worker, 300 SGD steps with the defaults (lr 0.1, batch 32): test accuracy >= 0.9."""
    log = make_log(1, 300.0, [np.arange(1, 301)])
    curve = replay(log, digits, eval_every_s=50.0, seed=0).curve
    assert curve.test_acc.iloc[0] < 0.2
    assert curve.test_acc.iloc[-1] >= 0.9
    assert curve.test_loss.iloc[-1] < 0.5 * curve.test_loss.iloc[0]
    t = time_to_accuracy(curve, 0.9)
    assert 0 < t <= 300 and iterations_to_accuracy(curve, 0.9) == t


# ---------------------------------------------------------------------- read-outs
def test_time_and_iterations_to_accuracy():
    curve = pd.DataFrame({"time_s": [0.0, 1.0, 2.0, 3.0], "iterations": [0, 10, 25, 40], "syncs": [0, 1, 2, 3],
                          "test_loss": [2.0, 1.0, 0.5, 0.4], "test_acc": [0.1, 0.5, 0.8, 0.7]})
    assert time_to_accuracy(curve, 0.8) == 2.0 and iterations_to_accuracy(curve, 0.8) == 25.0
    assert time_to_accuracy(curve, 0.0) == 0.0
    assert math.isnan(time_to_accuracy(curve, 0.81)) and math.isnan(iterations_to_accuracy(curve, 0.9))


# --------------------------------------------------------------------- validation
def _bad_log(kind):
    if kind == "member":
        return make_log(2, 3.0, [[1.0], [1.0]], [sync(2.0, (0, 2), (1, 1))])
    if kind == "iterations":
        return make_log(2, 3.0, [[1.0], [1.0]], [sync(0.5, (0, 1), (1, 1))])
    if kind == "weights":
        return make_log(2, 3.0, [[1.0], [1.0]], [sync(2.0, (0, 1), (1, 1), weights=(1.0,))])
    if kind == "compute_end":
        return make_log(2, 3.0, [[2.0, 1.0], [1.0]])
    return make_log(2, 3.0, [[1.0], [4.0]])


@pytest.mark.parametrize("kind,name", [("member", "members"), ("iterations", "syncs[0]"), ("weights", "weights"),
                                       ("compute_end", "compute_end[0]"), ("late", "compute_end[1]")])
def test_malformed_logs_are_rejected(blobs, kind, name):
    with pytest.raises(ValueError, match=name.replace("[", r"\[").replace("]", r"\]")):
        replay(_bad_log(kind), blobs)


@pytest.mark.parametrize("kw,name", [
    ({"lr": 0.0}, "lr"), ({"lr": float("nan")}, "lr"), ({"batch_size": 0}, "batch_size"),
    ({"batch_size": 2.5}, "batch_size"), ({"eval_every_s": 0.0}, "eval_every_s"), ({"steps": "plain"}, "steps"),
    ({"model": "svm"}, "model"), ({"seed": -1}, "seed"), ({"unfinished": "maybe"}, "unfinished"),
    ({"problem": 3}, "problem"), ({"problem": "mnist"}, "name"),
])
def test_replay_validation_names_parameter(blobs, kw, name):
    kw = dict({"problem": blobs}, **kw)
    with pytest.raises(ValueError, match=name):
        replay(make_log(1, 1.0, [[0.5]]), **kw)


@pytest.mark.parametrize("call,name", [
    (lambda: load_problem("cifar"), "name"), (lambda: load_problem(test_fraction=1.0), "test_fraction"),
    (lambda: load_problem(seed=-2), "seed"), (lambda: SoftmaxRegression(0, 3), "n_features"),
    (lambda: SoftmaxRegression(4, 1), "n_classes"), (lambda: MLP(4, 3, hidden=0), "hidden"),
    (lambda: MLP(4, 3, l2=-0.1), "l2"), (lambda: SoftmaxRegression(4, 3).init(0), "rng"),
    (lambda: SoftmaxRegression(4, 3).grad(np.zeros((2, 11)), np.zeros((2, 1, 4)), np.zeros((2, 1), int)), "params"),
    (lambda: SoftmaxRegression(4, 3).grad(np.zeros((2, 12)), np.zeros((1, 1, 4)), np.zeros((1, 1), int)), "X"),
    (lambda: SoftmaxRegression(4, 3).grad(np.zeros((1, 12)), np.zeros((1, 1, 4)), np.full((1, 1), 3)), "y"),
    (lambda: SoftmaxRegression(4, 3).loss_acc(np.zeros(12), np.zeros((2, 4)), np.zeros(3, int)), "y"),
    (lambda: minibatch_indices(0, -1, 10, 2, 3), "worker"), (lambda: minibatch_indices(0, 0, 0, 2, 3), "n_train"),
    (lambda: minibatch_indices(0, 0, 10, 2, -3), "count"),
    (lambda: time_to_accuracy(pd.DataFrame({"time_s": [0.0]}), 0.5), "curve"),
    (lambda: iterations_to_accuracy(pd.DataFrame({"time_s": [0.0], "iterations": [0], "test_acc": [0.1]}), 1.5),
     "target"),
])
def test_validation_names_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize("model", ["softmax", "mlp"])
def test_early_stop_keeps_the_full_replays_rows_up_to_the_first_hit(blobs, simulated_log, model):
    """RP16: stop_acc ends the curve at the first evaluation that meets it; every row it keeps, and the
    models at that time, are those of the full replay (a replay run only to that time)."""
    kw = dict(model=model, lr=0.1, batch_size=16, eval_every_s=0.5, seed=2)
    full = replay(simulated_log, blobs, **kw).curve
    goal = float(full["test_acc"].quantile(0.5))
    hit = int(np.flatnonzero(full["test_acc"].to_numpy() >= goal)[0])
    assert 0 < hit < len(full) - 1                    # a stop inside the run
    early = replay(simulated_log, blobs, stop_acc=goal, **kw)
    pd.testing.assert_frame_equal(early.curve, full.iloc[:hit + 1], check_exact=True)
    t_stop = float(full["time_s"].iloc[hit])
    cut = make_log(simulated_log.n, t_stop, [[t for t in ce if t <= t_stop] for ce in simulated_log.compute_end],
                   [r for r in simulated_log.syncs if r.launch <= t_stop])
    short = replay(cut, blobs, **kw)
    np.testing.assert_array_equal(early.final_params, short.final_params)
    # a target never met: the whole curve, as without stop_acc
    never = float(full["test_acc"].max()) + 1e-6
    assert never <= 1.0
    pd.testing.assert_frame_equal(replay(simulated_log, blobs, stop_acc=never, **kw).curve, full, check_exact=True)
    with pytest.raises(ValueError, match="stop_acc"):
        replay(simulated_log, blobs, stop_acc=1.5, **kw)
