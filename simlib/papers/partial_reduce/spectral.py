"""Synchronization matrices and the spectral gap of partial reduce (seed 002 §3.2).

* :func:`sync_matrix` -- W_k of Eq. (4) for one group (optionally weighted).
* :func:`expected_sync_matrix` -- E[W] = (1/K) sum_k W_k over a sequence of
  groups, e.g. the syncs of a schedule log (Assumption 2(3)).
* :func:`expected_sync_matrix_from_frequencies` -- E[W] from group frequencies
  (the Fig. 4 style of input).
* :func:`spectral_rho` -- rho = max(|lambda_2|, |lambda_N|) of E[W], Eq. (6).
* :func:`rho_from_frequencies` -- both of the above in one call.

A smaller rho means faster spreading of updates; rho = 1 means the groups do
not connect the workers (no consensus across components).  Worker ids are ints
0..n-1 (the paper numbers workers from 1).  Choices are recorded in
``docs/decisions/partial_reduce.md`` (PR6, PR7).
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from simlib.core.validate import check_array, check_int, check_real
from simlib.papers.partial_reduce.weights import _check_members

__all__ = [
    "sync_matrix",
    "expected_sync_matrix",
    "expected_sync_matrix_from_frequencies",
    "spectral_rho",
    "rho_from_frequencies",
]

# Tolerance for "the weights sum to 1" and for "E[W] is symmetric".
_TOL = 1e-9


def _check_weights(weights, P: int, name: str = "weights") -> np.ndarray:
    ws = check_array(name, weights, lo=0.0)
    if ws.size != P:
        raise ValueError(f"{name} must have one weight per member ({P}), got {ws.size}")
    s = float(ws.sum())
    if abs(s - 1.0) > _TOL:
        raise ValueError(f"{name} must sum to 1 (within {_TOL}), got sum {s!r}; fold any "
                         f"initial-model weight w_init into the members first, e.g. "
                         f"ws / (1 - w_init)")
    return ws


def sync_matrix(members: Sequence[int], n: int, weights: Sequence[float] | None = None
                ) -> np.ndarray:
    """Synchronization matrix W_k of Eq. (4) for the group ``members``.

    Unweighted (``weights=None``): W(i, j) = 1/P if i and j are both members,
    W(i, i) = 1 for a non-member i, 0 otherwise -- symmetric and doubly
    stochastic (Assumption 2(1)).

    Weighted: ``weights[j]`` (>= 0, summing to 1, aligned with ``members``) is
    the weight of member ``members[j]``'s model, and every member row i holds
    W(i, members[j]) = weights[j], so that the new model of member i is
    sum_j W(i, j) x_j (row convention: X_new = W X with models as rows; Eq. (3)
    writes X W with models as columns, which is the transpose and has the same
    eigenvalues).  This matrix is row stochastic but in general neither
    symmetric nor column stochastic (PR6).  An initial-model weight w_init of
    dynamic partial reduce is not a worker and must be folded into the members
    by the caller (e.g. ``ws / (1 - w_init)``).

    Returns an (n, n) float array.
    """
    n = check_int("n", n, lo=1)
    members = _check_members(members, n)
    P = len(members)
    W = np.eye(n)
    idx = np.array(members)
    if weights is None:
        W[np.ix_(idx, idx)] = 1.0 / P
    else:
        ws = _check_weights(weights, P)
        W[np.ix_(idx, idx)] = np.broadcast_to(ws, (P, P))
    return W


def expected_sync_matrix(groups: Sequence[Sequence[int]], n: int,
                         weights: Sequence[Sequence[float] | None] | None = None
                         ) -> np.ndarray:
    """E[W] = (1/K) sum_{k=1..K} W_k over the K groups in order (Assumption 2(3)).

    ``groups`` is a non-empty sequence of member tuples (e.g. the ``members`` of
    a schedule log's syncs); ``weights``, if given, has one entry per group --
    a member weight vector for :func:`sync_matrix`, or ``None`` for 1/P.
    """
    n = check_int("n", n, lo=1)
    if isinstance(groups, (str, bytes)) or not hasattr(groups, "__len__") or len(groups) == 0:
        raise ValueError(f"groups must be a non-empty sequence of groups, got {groups!r}")
    if weights is not None and len(weights) != len(groups):
        raise ValueError(f"weights must have one entry per group ({len(groups)}), "
                         f"got {len(weights)}")
    EW = np.zeros((n, n))
    for k, g in enumerate(groups):
        w = None if weights is None else weights[k]
        EW += sync_matrix(g, n, w)
    return EW / len(groups)


def expected_sync_matrix_from_frequencies(freqs: Mapping[tuple, float], n: int) -> np.ndarray:
    """E[W] = sum_g f_g W_g / sum_g f_g for unweighted groups g with relative
    frequencies f_g >= 0 (Fig. 4).  Frequencies are normalized, so counts work
    too; their sum must be positive (PR7)."""
    n = check_int("n", n, lo=1)
    if not isinstance(freqs, Mapping) or len(freqs) == 0:
        raise ValueError(f"freqs must be a non-empty mapping group -> frequency, got {freqs!r}")
    EW = np.zeros((n, n))
    total = 0.0
    for g, f in freqs.items():
        f = check_real(f"freqs[{g!r}]", f, lo=0.0)
        EW += f * sync_matrix(g, n)
        total += f
    if total <= 0.0:
        raise ValueError(f"freqs must have a positive sum, got {total!r}")
    return EW / total


def spectral_rho(EW) -> float:
    """Spectral quantity rho of Eq. (6): rho = max(|lambda_2|, |lambda_N|) of E[W].

    Symmetric E[W] (constant weights, within 1e-9): eigenvalues sorted by value,
    lambda_1 >= ... >= lambda_N, rho = max(|lambda_2|, |lambda_N|).  For a doubly
    stochastic E[W] lambda_1 = 1, and rho = 1 exactly when the groups leave the
    workers disconnected.

    Non-symmetric E[W] (weighted syncs, PR6): the eigenvalues may be complex, so
    we drop one eigenvalue closest to 1 (the stochastic one, right eigenvector
    1_N) and return the largest modulus of the others (the second largest
    eigenvalue modulus).  A single worker (N = 1) gives rho = 0.

    ``EW`` must be a square matrix of finite reals.  Returns a float.
    """
    A = np.asarray(EW, dtype=float)
    if A.ndim != 2 or A.shape[0] != A.shape[1] or A.shape[0] == 0:
        raise ValueError(f"EW must be a non-empty square matrix, got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise ValueError("EW must have only finite entries")
    N = A.shape[0]
    if N == 1:
        return 0.0
    if np.allclose(A, A.T, rtol=0.0, atol=_TOL):
        lam = np.linalg.eigvalsh((A + A.T) / 2.0)[::-1]      # descending
        return float(max(abs(lam[1]), abs(lam[-1])))
    lam = np.linalg.eigvals(A)
    i1 = int(np.argmin(np.abs(lam - 1.0)))
    rest = np.delete(lam, i1)
    return float(np.max(np.abs(rest)))


def rho_from_frequencies(freqs: Mapping[tuple, float], n: int) -> float:
    """rho of Eq. (6) for unweighted groups with the given relative frequencies,
    e.g. Fig. 4(b): ``{(0, 1): 0.5, (0, 2): 0.25, (1, 2): 0.25}`` with n = 3 gives
    0.625 (PR7)."""
    return spectral_rho(expected_sync_matrix_from_frequencies(freqs, n))
