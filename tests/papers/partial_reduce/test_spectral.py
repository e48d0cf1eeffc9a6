"""Synchronization matrices and rho of Eq. (6) (seed 002 §3.2, Eq. 4, Fig. 4).

Paper worker ids 1..3 are 0..2 here.  Decision ids PRn refer to
docs/decisions/partial_reduce.md.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.papers.partial_reduce.spectral import (
    expected_sync_matrix,
    expected_sync_matrix_from_frequencies,
    rho_from_frequencies,
    spectral_rho,
    sync_matrix,
)


def test_sync_matrix_eq4():
    W = sync_matrix((0, 2), 3)
    assert W.tolist() == [[0.5, 0.0, 0.5], [0.0, 1.0, 0.0], [0.5, 0.0, 0.5]]


def test_weighted_sync_matrix_rows_are_the_weight_vector():
    W = sync_matrix((2, 0), 4, weights=(0.75, 0.25))
    # member rows 0 and 2: column 2 -> 0.75, column 0 -> 0.25
    expect = np.array([[0.25, 0, 0.75, 0], [0, 1, 0, 0], [0.25, 0, 0.75, 0], [0, 0, 0, 1]])
    assert np.array_equal(W, expect)
    assert np.allclose(W.sum(axis=1), 1.0)
    assert not np.allclose(W, W.T)            # weighted W is not symmetric (PR6)


def test_fig4a_homogeneous_rho_half():
    # E[W] = (W01 + W02 + W12)/3 = I/2 + J/6: eigenvalues 1, 1/2, 1/2 -> rho = 0.5
    EW = expected_sync_matrix([(0, 1), (0, 2), (1, 2)], 3)
    assert np.allclose(EW, np.eye(3) / 2 + np.ones((3, 3)) / 6)
    assert spectral_rho(EW) == pytest.approx(0.5, abs=1e-12)
    assert rho_from_frequencies({(0, 1): 1 / 3, (0, 2): 1 / 3, (1, 2): 1 / 3}, 3) == \
        pytest.approx(0.5, abs=1e-12)


def test_fig4b_one_slow_worker_rho_0625():
    # worker 2 (paper's worker 3) is 2x slower: {0,1}: 1/2, {0,2}: 1/4, {1,2}: 1/4.
    # E[W] = [[5/8, 1/4, 1/8], [1/4, 5/8, 1/8], [1/8, 1/8, 3/4]]
    # eigenvectors (1,-1,0) -> 5/8 - 1/4 = 3/8; (1,1,-2) -> 5/8 -> rho = 0.625
    freqs = {(0, 1): 0.5, (0, 2): 0.25, (1, 2): 0.25}
    EW = expected_sync_matrix_from_frequencies(freqs, 3)
    assert np.allclose(EW, [[5 / 8, 1 / 4, 1 / 8], [1 / 4, 5 / 8, 1 / 8], [1 / 8, 1 / 8, 3 / 4]])
    assert rho_from_frequencies(freqs, 3) == pytest.approx(0.625, abs=1e-12)
    # counts work as well as frequencies (PR7), and so does a log of syncs
    assert rho_from_frequencies({(0, 1): 2, (0, 2): 1, (1, 2): 1}, 3) == pytest.approx(0.625)
    log = [(0, 1), (0, 2), (0, 1), (1, 2)]
    assert spectral_rho(expected_sync_matrix(log, 3)) == pytest.approx(0.625, abs=1e-12)


def test_allreduce_rho_zero():
    for n in (2, 3, 8):
        assert spectral_rho(sync_matrix(tuple(range(n)), n)) == pytest.approx(0.0, abs=1e-12)


def test_frozen_pairs_rho_one():
    # 4 workers, only {0,1} and {2,3}: E[W] = two blocks with eigenvalues (1, 1/2) -> rho = 1
    EW = expected_sync_matrix([(0, 1), (2, 3)] * 5, 4)
    assert spectral_rho(EW) == pytest.approx(1.0, abs=1e-12)
    # one bridging group makes it connected
    assert spectral_rho(expected_sync_matrix([(0, 1), (2, 3), (1, 2)], 4)) < 1 - 1e-6


def test_weighted_rho():
    # P = N = 2 with weights (3/4, 1/4): W = [[.75,.25],[.75,.25]] has eigenvalues 1 and 0
    W = sync_matrix((0, 1), 2, weights=(0.75, 0.25))
    assert spectral_rho(W) == pytest.approx(0.0, abs=1e-12)
    # E[W] of two weighted pair syncs on 3 workers: row stochastic, rho in [0, 1)
    EW = expected_sync_matrix([(0, 1), (1, 2)], 3, weights=[(0.75, 0.25), None])
    # = ([[.75,.25,0],[.75,.25,0],[0,0,1]] + [[1,0,0],[0,.5,.5],[0,.5,.5]])/2
    assert np.allclose(EW, [[0.875, 0.125, 0], [0.375, 0.375, 0.25], [0, 0.25, 0.75]])
    # trace 2 and det 7/8*(9/32 - 2/32) - 1/8*9/32 = 5/32, so besides l = 1 the
    # eigenvalues solve l^2 - l + 5/32 = 0: l = (1 +- sqrt(3/8))/2 -> rho = 0.80619
    assert spectral_rho(EW) == pytest.approx((1 + np.sqrt(3 / 8)) / 2, abs=1e-12)


def test_single_worker():
    assert spectral_rho([[1.0]]) == 0.0


def test_validation():
    with pytest.raises(ValueError, match=r"members\[1\] must be an integer in \[0, 2\]"):
        sync_matrix((0, 3), 3)
    with pytest.raises(ValueError, match="distinct"):
        sync_matrix((1, 1), 3)
    with pytest.raises(ValueError, match="n must"):
        sync_matrix((0,), 0)
    with pytest.raises(ValueError, match="weights must sum to 1"):
        sync_matrix((0, 1), 3, weights=(0.5, 0.4))
    with pytest.raises(ValueError, match="weights must have every element"):
        sync_matrix((0, 1), 3, weights=(1.5, -0.5))
    with pytest.raises(ValueError, match="one weight per member"):
        sync_matrix((0, 1), 3, weights=(1.0,))
    with pytest.raises(ValueError, match="groups must be a non-empty"):
        expected_sync_matrix([], 3)
    with pytest.raises(ValueError, match="one entry per group"):
        expected_sync_matrix([(0, 1)], 3, weights=[None, None])
    with pytest.raises(ValueError, match="EW must be a non-empty square"):
        spectral_rho(np.ones((2, 3)))
    with pytest.raises(ValueError, match="finite"):
        spectral_rho([[np.nan, 0], [0, 1]])
    with pytest.raises(ValueError, match=r"freqs\[\(0, 1\)\] must be in \[0.0, inf\)"):
        rho_from_frequencies({(0, 1): -1.0}, 3)
    with pytest.raises(ValueError, match="positive sum"):
        rho_from_frequencies({(0, 1): 0.0}, 3)
    with pytest.raises(ValueError, match="freqs must be a non-empty mapping"):
        rho_from_frequencies({}, 3)


@settings(max_examples=100, deadline=None)
@given(n=st.integers(2, 7), data=st.data())
def test_constant_EW_doubly_stochastic_and_rho_in_range(n, data):
    groups = []
    for _ in range(data.draw(st.integers(1, 12))):
        perm = data.draw(st.permutations(range(n)))
        groups.append(tuple(perm[: data.draw(st.integers(1, n))]))
    EW = expected_sync_matrix(groups, n)
    assert np.allclose(EW, EW.T)
    assert np.allclose(EW.sum(axis=0), 1.0) and np.allclose(EW.sum(axis=1), 1.0)
    assert np.all(EW >= 0)
    rho = spectral_rho(EW)
    assert -1e-12 <= rho <= 1 + 1e-12
