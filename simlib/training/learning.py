"""A small, real learning problem in numpy, for replaying schedules through training.

Data ship inside installed packages (nothing is downloaded at run time):

* ``"digits"`` — scikit-learn's bundled ``load_digits``: 1797 images of 8×8
  handwritten digits, 64 pixel features, 10 classes.
* ``"blobs"`` — a fixed synthetic problem for fast tests:
  ``sklearn.datasets.make_classification(n_samples=600, n_features=10,
  n_informative=6, n_redundant=2, n_classes=3, n_clusters_per_class=1,
  class_sep=1.5, random_state=20240)``.  The data are the same for every
  ``seed``; ``seed`` only changes the train/test split (as for digits).

:func:`load_problem` splits (stratified, seeded), standardizes the features
with the *training* mean and standard deviation (constant pixels get std 1)
and appends a bias column of ones, so ``X.shape[1] = features + 1``.

Models keep the parameters of ``m`` replicas in one ``(m, d)`` array and
compute all ``m`` minibatch gradients in one vectorized call:

* :class:`SoftmaxRegression` — multinomial logistic regression,
  ``d = f · C`` (``f`` includes the bias column);
* :class:`MLP` — one tanh hidden layer of ``hidden`` units plus a bias unit,
  ``d = f · hidden + (hidden + 1) · C``.

Objective of one replica on a minibatch: mean cross-entropy + ``l2/2 · ‖x‖²``
(the penalty covers every parameter, biases included).  ``loss_acc`` reports
the plain cross-entropy (no penalty) and the accuracy.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import log_softmax

from simlib.core.validate import check_choice, check_int, check_real

__all__ = ["Problem", "PROBLEMS", "load_problem", "SoftmaxRegression", "MLP", "MODELS", "make_model"]

PROBLEMS = ("digits", "blobs")
MODELS = ("softmax", "mlp")

_BLOBS = dict(n_samples=600, n_features=10, n_informative=6, n_redundant=2, n_classes=3,
              n_clusters_per_class=1, class_sep=1.5, random_state=20240)


@dataclass(frozen=True, eq=False)
class Problem:
    """A classification problem: standardized features with a trailing bias column of ones."""

    name: str
    X_train: np.ndarray   # (N_train, f), float64
    y_train: np.ndarray   # (N_train,), int64 in [0, n_classes)
    X_test: np.ndarray    # (N_test, f)
    y_test: np.ndarray    # (N_test,)
    n_classes: int

    @property
    def n_features(self) -> int:
        """Columns of X, bias column included."""
        return int(self.X_train.shape[1])


def _raw(name: str):
    if name == "digits":
        from sklearn.datasets import load_digits

        d = load_digits()
        return np.asarray(d.data, dtype=float), np.asarray(d.target, dtype=np.int64)
    from sklearn.datasets import make_classification

    X, y = make_classification(**_BLOBS)
    return np.asarray(X, dtype=float), np.asarray(y, dtype=np.int64)


def load_problem(name: str = "digits", test_fraction: float = 0.2, seed: int = 0) -> Problem:
    """Load ``name`` (one of ``PROBLEMS``), split it and standardize it.

    The split is sklearn's stratified ``train_test_split`` (``test_size=test_fraction``,
    ``random_state=seed``); features are standardized with a ``StandardScaler`` fitted on
    the training part, then a constant 1 column is appended (the bias).
    """
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    check_choice("name", name, PROBLEMS)
    test_fraction = check_real("test_fraction", test_fraction, 0.0, 1.0, lo_open=True, hi_open=True)
    seed = check_int("seed", seed, lo=0)
    X, y = _raw(name)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=test_fraction, random_state=seed, stratify=y)
    scaler = StandardScaler().fit(Xtr)

    def prep(A):
        A = scaler.transform(A)
        return np.ascontiguousarray(np.hstack([A, np.ones((A.shape[0], 1))]))

    n_classes = int(y.max()) + 1
    return Problem(name=name, X_train=prep(Xtr), y_train=np.asarray(ytr, dtype=np.int64), X_test=prep(Xte),
                   y_test=np.asarray(yte, dtype=np.int64), n_classes=n_classes)


# ---------------------------------------------------------------------- helpers
def _dlogits(Z: np.ndarray, y: np.ndarray) -> np.ndarray:
    """d(mean cross-entropy)/d(logits) for logits Z (m, B, C), labels y (m, B)."""
    P = np.exp(log_softmax(Z, axis=-1))
    m, B, _ = Z.shape
    P[np.arange(m)[:, None], np.arange(B)[None, :], y] -= 1.0
    return P / B


class _Model:
    """Shared validation and evaluation; subclasses define ``dim``, ``_logits`` and ``_grad``."""

    n_features: int
    n_classes: int
    l2: float
    dim: int

    def _check_params(self, params, ndim: int) -> np.ndarray:
        p = np.asarray(params, dtype=float)
        if p.ndim != ndim or p.shape[-1] != self.dim:
            want = "(d,)" if ndim == 1 else "(m, d)"
            raise ValueError(f"params must have shape {want} with d = {self.dim}, got {p.shape}")
        return p

    def _check_data(self, X, y, lead: tuple) -> tuple[np.ndarray, np.ndarray]:
        X = np.asarray(X, dtype=float)
        y = np.asarray(y)
        if X.ndim != len(lead) + 2 or X.shape[:len(lead)] != lead or X.shape[-1] != self.n_features:
            raise ValueError(f"X must have shape {lead + ('B', self.n_features)}, got {X.shape}")
        if y.shape != X.shape[:-1]:
            raise ValueError(f"y must have shape {X.shape[:-1]}, got {y.shape}")
        if X.shape[-2] < 1:
            raise ValueError("X must hold at least one sample (B >= 1)")
        if not np.issubdtype(y.dtype, np.integer) or y.min() < 0 or y.max() >= self.n_classes:
            raise ValueError(f"y must hold integer labels in [0, {self.n_classes - 1}]")
        return X, y.astype(np.int64, copy=False)

    def grad(self, params, X_batches, y_batches) -> np.ndarray:
        """Gradient of mean cross-entropy + l2/2‖x‖² for each replica.

        ``params`` (m, d), ``X_batches`` (m, B, f), ``y_batches`` (m, B) -> (m, d).
        Replica ``i`` is evaluated on its own minibatch ``X_batches[i]``.
        """
        p = self._check_params(params, 2)
        X, y = self._check_data(X_batches, y_batches, (p.shape[0],))
        return self._grad(p, X, y)

    def loss_acc(self, params, X, y) -> tuple[float, float]:
        """Mean cross-entropy (no L2 term) and accuracy of one model ``params`` (d,) on ``X``, ``y``."""
        p = self._check_params(params, 1)
        X, y = self._check_data(X, y, ())
        Z = self._logits(p[None], X[None])[0]
        ls = log_softmax(Z, axis=-1)
        loss = -float(ls[np.arange(y.size), y].mean())
        acc = float((Z.argmax(axis=1) == y).mean())
        return loss, acc


class SoftmaxRegression(_Model):
    """Multinomial logistic regression; parameters are the (f, C) weight matrix, row-major."""

    def __init__(self, n_features: int, n_classes: int, l2: float = 0.0):
        self.n_features = check_int("n_features", n_features, lo=1)
        self.n_classes = check_int("n_classes", n_classes, lo=2)
        self.l2 = check_real("l2", l2, 0.0)
        self.dim = self.n_features * self.n_classes

    def init(self, rng: np.random.Generator) -> np.ndarray:
        """x_init: zeros (the objective is convex; ``rng`` is accepted for a uniform interface)."""
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        return np.zeros(self.dim)

    def _logits(self, p, X):
        return np.matmul(X, p.reshape(p.shape[0], self.n_features, self.n_classes))

    def _grad(self, p, X, y):
        m = p.shape[0]
        G = np.matmul(X.transpose(0, 2, 1), _dlogits(self._logits(p, X), y)).reshape(m, self.dim)
        if self.l2:
            G += self.l2 * p
        return G


class MLP(_Model):
    """One tanh hidden layer: ``softmax([tanh(X W1), 1] W2)``.

    Parameters: ``W1`` (f, hidden) then ``W2`` (hidden + 1, C), flattened and
    concatenated (the input bias is the bias column of X; the last row of W2
    is the output bias).
    """

    def __init__(self, n_features: int, n_classes: int, hidden: int = 32, l2: float = 0.0):
        self.n_features = check_int("n_features", n_features, lo=1)
        self.n_classes = check_int("n_classes", n_classes, lo=2)
        self.hidden = check_int("hidden", hidden, lo=1)
        self.l2 = check_real("l2", l2, 0.0)
        self._n1 = self.n_features * self.hidden
        self.dim = self._n1 + (self.hidden + 1) * self.n_classes

    def init(self, rng: np.random.Generator) -> np.ndarray:
        """x_init: weights ~ N(0, 1/fan_in) (Glorot-like for tanh), bias rows zero."""
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        f, h, C = self.n_features, self.hidden, self.n_classes
        W1 = rng.standard_normal((f, h)) / np.sqrt(max(f - 1, 1))
        W1[-1] = 0.0
        W2 = rng.standard_normal((h + 1, C)) / np.sqrt(h)
        W2[-1] = 0.0
        return np.concatenate([W1.ravel(), W2.ravel()])

    def _split(self, p):
        m = p.shape[0]
        W1 = p[:, :self._n1].reshape(m, self.n_features, self.hidden)
        W2 = p[:, self._n1:].reshape(m, self.hidden + 1, self.n_classes)
        return W1, W2

    def _hidden(self, W1, X):
        A = np.tanh(np.matmul(X, W1))
        return A, np.concatenate([A, np.ones(A.shape[:-1] + (1,))], axis=-1)

    def _logits(self, p, X):
        W1, W2 = self._split(p)
        return np.matmul(self._hidden(W1, X)[1], W2)

    def _grad(self, p, X, y):
        m = p.shape[0]
        W1, W2 = self._split(p)
        A, H = self._hidden(W1, X)
        dZ = _dlogits(np.matmul(H, W2), y)                       # (m, B, C)
        gW2 = np.matmul(H.transpose(0, 2, 1), dZ)                # (m, h+1, C)
        dA = np.matmul(dZ, W2[:, :-1].transpose(0, 2, 1))        # (m, B, h)
        gW1 = np.matmul(X.transpose(0, 2, 1), dA * (1.0 - A * A))  # (m, f, h)
        G = np.concatenate([gW1.reshape(m, -1), gW2.reshape(m, -1)], axis=1)
        if self.l2:
            G += self.l2 * p
        return G


def make_model(name: str, problem: Problem, *, l2: float = 0.0, hidden: int = 32) -> _Model:
    """``"softmax"`` -> :class:`SoftmaxRegression`, ``"mlp"`` -> :class:`MLP` sized for ``problem``."""
    check_choice("model", name, MODELS)
    if not isinstance(problem, Problem):
        raise ValueError(f"problem must be a Problem, got {type(problem).__name__}")
    if name == "softmax":
        return SoftmaxRegression(problem.n_features, problem.n_classes, l2=l2)
    return MLP(problem.n_features, problem.n_classes, hidden=hidden, l2=l2)
