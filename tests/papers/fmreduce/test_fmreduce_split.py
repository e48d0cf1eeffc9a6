"""Seed 003 §2 problem 1: Eq. (1a)/(1b), LP (2) and the evenly divided split.

Every number below is worked out by hand in the comment next to it; decision
ids FMn refer to docs/decisions/fmreduce.md.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.core.network import FlowNetwork
from simlib.core.topology import FullMesh
from simlib.papers.fmreduce.bandwidth import fmreduce_bandwidths
from simlib.papers.fmreduce.split import SOLVERS, even_split, lp_split, phase_times

# Hand-worked 3-worker mesh (bits/s).  Column minima (Eq. 1a, i != j): a = (2, 4, 4);
# row minima (Eq. 1b, k != j): c = (4, 2, 2).
B3 = np.array([[0.0, 4.0, 4.0],
               [2.0, 0.0, 4.0],
               [2.0, 4.0, 0.0]])
V3 = 6.0


def grid_min(b, v, steps):
    """Brute force: min of Eq. (1a) + (1b) over x = v * (i, j, steps - i - j) / steps."""
    i, j = np.meshgrid(np.arange(steps + 1), np.arange(steps + 1), indexing="ij")
    ok = i + j <= steps
    x = np.stack([i[ok], j[ok], steps - i[ok] - j[ok]], axis=1) * (v / steps)
    a = np.array([min(b[k, c] for k in range(3) if k != c) for c in range(3)])
    c = np.array([min(b[r, k] for k in range(3) if k != r) for r in range(3)])
    obj = (x / a).max(axis=1) + (x / c).max(axis=1)
    return obj.min()


@pytest.mark.parametrize("solver", SOLVERS)
def test_lp_split_hand_worked_mesh_is_not_even(solver):
    # h(lam) = min(2 lam, 4(1-lam)) + 2 min(4 lam, 2(1-lam)) peaks at lam = 1/3 with h = 10/3:
    # t* = 6 / (10/3) = 1.8, S = 0.6, B = 1.2, x = (2*0.6, 4*0.6, 4*0.6) = (1.2, 2.4, 2.4).
    x = lp_split(V3, B3, solver=solver)
    np.testing.assert_allclose(x, [1.2, 2.4, 2.4], rtol=1e-7)
    t = phase_times(x, B3)
    assert t.scatter == pytest.approx(0.6) and t.broadcast == pytest.approx(1.2)
    # Even split x = 2: T_scatter = 2/2 = 1, T_broadcast = 2/2 = 1, total 2 > 1.8.
    assert phase_times(even_split(V3, 3), B3).total == pytest.approx(2.0)


def test_lp_split_matches_brute_force_grid_on_hand_mesh():
    # The grid (step v/600 = 0.01) contains the optimum (1.2, 2.4, 2.4) exactly.
    assert grid_min(B3, V3, 600) == pytest.approx(1.8, rel=1e-12)
    assert phase_times(lp_split(V3, B3), B3).total == pytest.approx(1.8, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 10), min_size=6, max_size=6), st.floats(1.0, 100.0))
def test_lp_split_never_worse_than_grid_and_close_to_it(ks, v):
    b = np.zeros((3, 3))
    b[~np.eye(3, dtype=bool)] = ks
    lp = phase_times(lp_split(v, b), b).total
    g = grid_min(b, v, 300)
    assert lp <= g * (1 + 1e-9)
    assert g <= lp * 1.02  # a grid step of v/300 moves Eq. (1) by < 2 %


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 12), st.integers(0, 2**32 - 1), st.integers(1, 12))
def test_highs_and_breakpoint_solvers_agree(n, seed, p):
    rng = np.random.default_rng(seed)
    b = fmreduce_bandwidths(n, rng)
    parts = np.sort(rng.choice(n, size=min(p, n), replace=False))
    for reducers in (None, parts):
        xh = lp_split(1.6e9, b, parts, reducers, solver="highs")
        xb = lp_split(1.6e9, b, parts, reducers, solver="breakpoint")
        th = phase_times(xh, b, parts, parts).total
        tb = phase_times(xb, b, parts, parts).total
        assert tb == pytest.approx(th, rel=1e-7)
        assert xb.sum() == pytest.approx(1.6e9) and (xb >= 0).all()
        assert phase_times(even_split(1.6e9, n, reducers if reducers is not None else None),
                           b, parts, parts).total >= tb * (1 - 1e-9)


def test_lp_solver_knob_picks_among_several_optimal_splits():
    # FM7.  b01 = b10 = 1, b02 = b12 = 3, b20 = b21 = 2: a = (1, 1, 3), c = (1, 1, 2), so
    # h(lam) = 2 min(lam, 1 - lam) + min(3 lam, 2 (1 - lam)) is flat (= 2) on [2/5, 1/2]: t* = 6 / 2 = 3.
    # lam = 1/2 (S = B = 1.5) gives x = (1.5, 1.5, 3); lam = 2/5 (S = 1.2, B = 1.8) gives (1.2, 1.2, 3.6).
    b = np.array([[0.0, 1.0, 3.0],
                  [1.0, 0.0, 3.0],
                  [2.0, 2.0, 0.0]])
    xb = lp_split(V3, b, solver="breakpoint")
    xh = lp_split(V3, b, solver="highs")
    np.testing.assert_allclose(xb, [1.5, 1.5, 3.0], rtol=1e-12)     # the first breakpoint of the flat top
    np.testing.assert_allclose(xh, [1.2, 1.2, 3.6], rtol=1e-7)      # HiGHS returns the other vertex
    for x in (xb, xh, 0.5 * (xb + xh)):                              # and every split between is optimal
        assert phase_times(x, b).total == pytest.approx(3.0, rel=1e-9)


def test_blocking_lp_ranges_min_over_participants_only():
    # FM6: worker 2 has a 0.01 bit/s link into reducer 1.  With all n senders (non-blocking)
    # a_1 = 0.01, so the LP keeps reducer 1's block tiny; with participants {0, 1}
    # worker 2 sends nothing and a_1 = b_01 = 4, so reducer 1 gets a large block.
    b = B3.copy()
    b[2, 1] = 0.01
    x_all = lp_split(V3, b)
    x_p = lp_split(V3, b, participants=[0, 1])
    assert x_all[1] < 0.01 * V3 < x_p[1]
    assert phase_times(x_p, b, [0, 1], [0, 1]).total < phase_times(x_all, b, [0, 1], [0, 1]).total


def test_original_partial_reduce_split_uses_participants_only():
    b = fmreduce_bandwidths(8, np.random.default_rng(3))
    parts = [1, 4, 6]
    for x in (lp_split(80.0, b, parts, parts), even_split(80.0, 8, parts)):
        assert x.sum() == pytest.approx(80.0)
        assert np.count_nonzero(x[[0, 2, 3, 5, 7]]) == 0
    np.testing.assert_allclose(even_split(80.0, 8, parts)[parts], 80.0 / 3)


def test_single_participant_keeps_whole_model_local():
    b = fmreduce_bandwidths(4, np.random.default_rng(0))
    x = lp_split(10.0, b, participants=[2], reducers=[2])
    np.testing.assert_array_equal(x, [0, 0, 10.0, 0])
    assert phase_times(x, b, [2], [2]).total == 0.0


@pytest.mark.parametrize("split", ["lp", "even"])
def test_eq1_equals_flow_level_phases_on_idle_network(split):
    # Everyone scatters at once on an idle mesh (each link carries one flow), then every
    # reducer broadcasts at once: the phase lengths are exactly Eq. (1a) and (1b).
    n, v = 7, 1.6e9
    b = fmreduce_bandwidths(n, np.random.default_rng(11))
    x = lp_split(v, b) if split == "lp" else even_split(v, n)
    mesh = FullMesh(b)
    for kind, expected in (("scatter", phase_times(x, b).scatter), ("broadcast", phase_times(x, b).broadcast)):
        net = FlowNetwork(mesh.capacities)
        for i in range(n):
            for j in range(n):
                if i != j:
                    # scatter: i sends block j to j; broadcast: reducer i sends block i to j
                    net.add_flow(mesh.unicast(i, j), x[j] if kind == "scatter" else x[i])
        done = net.run_until_idle()
        assert max(f.finish_time for f in done) == pytest.approx(expected, rel=1e-9)


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="solver"):
        lp_split(1.0, B3, solver="simplex")
    with pytest.raises(ValueError, match="participants"):
        lp_split(1.0, B3, participants=[0, 5])
    with pytest.raises(ValueError, match="v must"):
        lp_split(-1.0, B3)
    with pytest.raises(ValueError, match="b must"):
        lp_split(1.0, np.ones((2, 3)))
    with pytest.raises(ValueError, match="x must"):
        phase_times([1.0, -1.0, 0.0], B3)
