"""Aggregation weights of partial reduce (seed 002 §3.1, §3.3.3, Eq. 9).

Every number below is worked out by hand in the comment next to it.  Decision
ids PRn refer to docs/decisions/partial_reduce.md.
"""
from fractions import Fraction as Fr

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.papers.partial_reduce.weights import (
    ConstantWeights,
    DynamicWeights,
    dynamic_weights,
    ema_version_weights,
    make_weight_rule,
    relative_iterations,
)


def approx(xs):
    return pytest.approx([float(Fr(x)) for x in xs], abs=1e-12)


# =================================================================== Eq. (9)
def test_ema_version_weights_alpha_half_K4():
    # beta(v) = 0.5 * 0.5^(v-1) / (1 - 0.5^4) = 0.5^v * 16/15 -> (8, 4, 2, 1)/15
    assert ema_version_weights(4, 0.5) == approx(["8/15", "4/15", "2/15", "1/15"])


def test_ema_version_weights_edge_cases():
    assert ema_version_weights(1, 0.9) == approx(["1"])          # K = 1: (1 - a)/(1 - a)
    assert ema_version_weights(3, 0.0) == approx(["1", "0", "0"])  # alpha = 0: newest only



def test_default_alpha_is_one_half_pr2():
    # the rule built without alpha weighs versions 1, 2 of (3, 2) as beta = (2/3, 1/3) (alpha = 0.5)
    r = DynamicWeights()
    r.reset(2)
    for w, k in ((0, 3), (1, 2)):
        for _ in range(k):
            r.on_iteration(w)
    ws, w0 = r.on_sync((0, 1))
    assert ws == approx(["2/3", "1/3"]) and w0 == 0.0
    assert dynamic_weights((3, 2))[0] == approx(["2/3", "1/3"])


def test_relative_iterations():
    assert relative_iterations((5, 4, 2)).tolist() == [1, 2, 4]
    assert relative_iterations((3, 3)).tolist() == [1, 1]


# ======================================================= hand-worked groups
def test_paper_example_initial():
    # k = (5, 4, 2) -> k̂ = (1, 2, 4), K = 4, beta = (8, 4, 2, 1)/15.
    # Members get versions 1, 2, 4; missing version 3 (2/15) -> x_init.
    ws, w0 = dynamic_weights((5, 4, 2), 0.5, "initial")
    assert ws == approx(["8/15", "4/15", "1/15"])
    assert w0 == pytest.approx(2 / 15, abs=1e-12)


def test_paper_example_closest_with_tie():
    # Same group, missing="closest": version 3 is 1 away from both held
    # versions 2 and 4 -> tie, split equally (PR4): 1/15 each.
    # member k̂=2: 4/15 + 1/15 = 1/3; member k̂=4: 1/15 + 1/15 = 2/15.
    ws, w0 = dynamic_weights((5, 4, 2), 0.5, "closest")
    assert ws == approx(["8/15", "1/3", "2/15"])
    assert w0 == 0.0


def test_closest_without_tie():
    # k = (6, 5, 2) -> k̂ = (1, 2, 5), K = 5, beta = (16, 8, 4, 2, 1)/31.
    # missing 3 -> nearest held 2 (distance 1 vs 2); missing 4 -> nearest 5.
    # members: 16/31, (8+4)/31 = 12/31, (1+2)/31 = 3/31.
    ws, w0 = dynamic_weights((6, 5, 2), 0.5, "closest")
    assert ws == approx(["16/31", "12/31", "3/31"])
    assert w0 == 0.0
    # initial: members 16/31, 8/31, 1/31 and x_init gets (4 + 2)/31
    ws, w0 = dynamic_weights((6, 5, 2), 0.5, "initial")
    assert ws == approx(["16/31", "8/31", "1/31"])
    assert w0 == pytest.approx(6 / 31, abs=1e-12)


def test_members_sharing_a_version_split_it():
    # k = (5, 5, 2) -> k̂ = (1, 1, 4), K = 4, beta = (8, 4, 2, 1)/15.
    # version 1 (8/15) split between two members -> 4/15 each; version 4 -> 1/15;
    # missing versions 2, 3 -> x_init: 4/15 + 2/15 = 2/5.
    ws, w0 = dynamic_weights((5, 5, 2), 0.5, "initial")
    assert ws == approx(["4/15", "4/15", "1/15"])
    assert w0 == pytest.approx(2 / 5, abs=1e-12)
    # closest: k̂ = (1, 1, 4): missing 2 -> version 1 (dist 1 vs 2), missing 3 -> version 4.
    # version 1: (8 + 4)/15 split in two -> 6/15 each; version 4: (1 + 2)/15.
    ws, w0 = dynamic_weights((5, 5, 2), 0.5, "closest")
    assert ws == approx(["2/5", "2/5", "1/5"])
    assert w0 == 0.0


def test_K1_all_equal_gives_uniform():
    for alpha in (0.0, 0.5, 0.99):
        for missing in ("initial", "closest"):
            ws, w0 = dynamic_weights((7, 7, 7, 7), alpha, missing)
            assert ws == approx(["1/4"] * 4)
            assert w0 == 0.0


def test_alpha_zero_newest_only():
    # alpha = 0: beta = (1, 0, 0, 0); stale members and x_init get nothing
    ws, w0 = dynamic_weights((5, 4, 2), 0.0, "initial")
    assert ws == approx(["1", "0", "0"]) and w0 == 0.0
    ws, w0 = dynamic_weights((5, 5, 2), 0.0, "closest")
    assert ws == approx(["1/2", "1/2", "0"]) and w0 == 0.0


def test_freshest_member_not_always_largest_with_closest():
    # Documented caveat (PR3): with missing="closest" a staler member can
    # collect many missing versions.  k̂ = (1, 2, 10), alpha = 0.9: version 2
    # collects versions 3..5 and half of version 6 -> more than version 1.
    ws, _ = dynamic_weights((10, 9, 1), 0.9, "closest")
    assert ws[1] > ws[0]


# ============================================================== the rules
def test_constant_rule():
    r = ConstantWeights()
    r.reset(4)
    r.on_iteration(0)
    r.on_iteration(0)
    ws, w0 = r.on_sync((0, 2, 3))
    assert ws == approx(["1/3"] * 3) and w0 == 0.0
    assert r.iterations.tolist() == [2, 0, 2, 2]


def test_oldest_reading_gives_missing_versions_to_the_stalest_member():
    # (5, 4, 2): k̂ = (1, 2, 4); missing version 3 (2/15) goes to the k̂ = 4 member
    ws, w0 = dynamic_weights((5, 4, 2), 0.5, "oldest")
    assert ws == approx(["8/15", "4/15", "3/15"]) and w0 == 0.0
    ws, w0 = dynamic_weights((5, 4, 2), 0.5)   # the default reading (PR13)
    assert ws == approx(["8/15", "4/15", "3/15"]) and w0 == 0.0


def test_dynamic_rule_replays_paper_example():
    r = DynamicWeights(alpha=0.5, missing="initial")
    r.reset(4)
    for w, k in ((0, 5), (1, 4), (2, 2), (3, 9)):
        for _ in range(k):
            r.on_iteration(w)
    ws, w0 = r.on_sync((0, 1, 2))
    assert ws == approx(["8/15", "4/15", "1/15"])
    assert w0 == pytest.approx(2 / 15, abs=1e-12)
    assert r.iterations.tolist() == [5, 5, 5, 9]      # members -> group max
    # members order is respected
    ws, _ = r.on_sync((3, 0))                          # k = (9, 5): k̂ = (1, 5), K = 5
    assert ws == approx(["16/31", "1/31"])             # beta 16/31 and 1/31; 14/31 -> x_init
    assert r.iterations.tolist() == [9, 5, 5, 9]


def test_make_weight_rule():
    assert isinstance(make_weight_rule("constant"), ConstantWeights)
    r = make_weight_rule("dynamic", alpha=0.3, missing="closest")
    assert isinstance(r, DynamicWeights) and r.alpha == 0.3 and r.missing == "closest"
    with pytest.raises(ValueError, match="name"):
        make_weight_rule("ema")
    with pytest.raises(ValueError, match="alpha"):
        make_weight_rule("constant", alpha=0.5)
    with pytest.raises(ValueError, match="beta"):
        make_weight_rule("dynamic", beta=0.5)


# ============================================================= validation
@pytest.mark.parametrize("alpha", [1.0, -0.1, float("nan"), "0.5", True])
def test_alpha_validation(alpha):
    with pytest.raises(ValueError, match=r"alpha must .*\[0\.0, 1\.0\)"):
        DynamicWeights(alpha=alpha)


def test_validation_errors():
    with pytest.raises(ValueError, match="missing must be one of"):
        DynamicWeights(missing="nearest")
    with pytest.raises(ValueError, match="K must"):
        ema_version_weights(0, 0.5)
    with pytest.raises(ValueError, match=r"iterations\[1\]"):
        dynamic_weights((3, -1))
    with pytest.raises(ValueError, match="iterations must be a non-empty"):
        dynamic_weights(())
    r = DynamicWeights()
    with pytest.raises(RuntimeError, match="reset"):
        r.on_sync((0, 1))
    with pytest.raises(ValueError, match="n must"):
        r.reset(0)
    r.reset(3)
    with pytest.raises(ValueError, match=r"w must be an integer in \[0, 2\]"):
        r.on_iteration(3)
    with pytest.raises(ValueError, match=r"members\[1\] must be an integer in \[0, 2\]"):
        r.on_sync((0, 5))
    with pytest.raises(ValueError, match="distinct"):
        r.on_sync((1, 1))
    with pytest.raises(ValueError, match="non-empty"):
        r.on_sync(())


# ============================================================== properties
@settings(max_examples=100, deadline=None)
@given(its=st.lists(st.integers(0, 40), min_size=1, max_size=8),
       alpha=st.floats(0.0, 0.999),
       missing=st.sampled_from(["initial", "oldest", "closest"]))
def test_weights_are_a_distribution(its, alpha, missing):
    ws, w0 = dynamic_weights(its, alpha, missing)
    assert ws.shape == (len(its),)
    assert np.all(ws >= 0.0) and w0 >= 0.0
    assert ws.sum() + w0 == pytest.approx(1.0, abs=1e-9)
    assert w0 <= alpha + 1e-12        # x_init never gets more than alpha (PR2)
    k = np.array(its)
    fresh = k == k.max()
    # missing="initial": the freshest version (k̂ = 1) carries at least as much
    # total weight as any other held version (beta is decreasing).  This does
    # not hold for "closest" (see test_freshest_member_not_always_largest...).
    if missing == "initial":
        beta1 = ws[fresh].sum()
        for v in set(k[~fresh].tolist()):
            assert beta1 >= ws[k == v].sum() - 1e-12
        # no ties -> the freshest member gets the largest weight
        if fresh.sum() == 1:
            assert ws[fresh][0] >= ws.max() - 1e-12


@settings(max_examples=100, deadline=None)
@given(n=st.integers(2, 6), data=st.data(),
       rule=st.sampled_from(["constant", "dynamic"]))
def test_rule_invariants(n, data, rule):
    r = make_weight_rule(rule)
    r.reset(n)
    for _ in range(data.draw(st.integers(1, 6))):
        for w in data.draw(st.lists(st.integers(0, n - 1), max_size=10)):
            r.on_iteration(w)
        members = tuple(data.draw(st.permutations(range(n)))[: data.draw(st.integers(1, n))])
        before = r.iterations
        ws, w0 = r.on_sync(members)
        assert np.all(ws >= 0) and w0 >= 0 and ws.sum() + w0 == pytest.approx(1.0)
        after = r.iterations
        kmax = before[list(members)].max()
        assert np.all(after[list(members)] == kmax)
        others = [w for w in range(n) if w not in members]
        assert np.all(after[others] == before[others])
        if rule == "dynamic":
            k = before[list(members)]
            if (k == kmax).sum() == 1:
                assert ws[int(np.argmax(k))] == pytest.approx(ws.max())


# ============================================= bulk iterations and the memo
@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 6), data=st.data(), rule=st.sampled_from(["constant", "dynamic"]),
       missing=st.sampled_from(["initial", "oldest", "closest"]))
def test_bulk_iterations_and_remembered_weights_equal_one_by_one(n, data, rule, missing):
    """on_iterations(ws) leaves the iteration numbers of one on_iteration per element, and a dynamic rule's
    weights (remembered by k̂) are bit for bit those of dynamic_weights on the members' iterations then."""
    bulk = make_weight_rule(rule) if rule == "constant" else DynamicWeights(0.5, missing)
    bulk.reset(n)
    k = [0] * n                                     # the iteration numbers by hand
    for _ in range(data.draw(st.integers(1, 8))):
        ws = data.draw(st.lists(st.integers(0, n - 1), max_size=12))
        bulk.on_iterations(np.array(ws, dtype=np.int64))
        for w in ws:
            k[w] += 1
        assert bulk.iterations.tolist() == k
        members = tuple(data.draw(st.permutations(range(n)))[: data.draw(st.integers(1, n))])
        its = [k[m] for m in members]
        want = (np.full(len(its), 1.0 / len(its)), 0.0) if rule == "constant" else dynamic_weights(its, 0.5, missing)
        got = bulk.on_sync(members)
        assert got[0].tobytes() == want[0].tobytes() and got[1] == want[1]
        got[0][:] = -1.0                            # the caller's copy: the remembered weights are not changed
        for m in members:
            k[m] = max(its)


def test_remembered_weights_depend_on_relative_iterations_only():
    r = DynamicWeights(0.5, "initial")
    r.reset(4)
    r.on_iterations(np.array([0, 0, 0, 1]))        # k = (3, 1, 0, 0): k̂ = (1, 3) for members (0, 1)
    ws1, w01 = r.on_sync((0, 1))                   # versions 1 and 3 held, 2 missing -> x_init
    assert ws1.tolist() == pytest.approx([4 / 7, 1 / 7]) and w01 == pytest.approx(2 / 7)
    r.on_iterations(np.array([2, 2, 2, 2, 2, 3, 3, 3]))   # k = (3, 3, 5, 3): k̂ = (1, 3) again for (2, 3)
    ws2, w02 = r.on_sync((2, 3))
    assert ws2.tolist() == ws1.tolist() and w02 == w01
    r.alpha = 0.0                                  # another alpha is not served from the memo: (1, 0)
    r.on_iterations(np.array([0, 0]))              # k = (5, 3, ...)
    assert r.on_sync((0, 1))[0].tolist() == [1.0, 0.0]


def test_bulk_iterations_check_ids_and_keep_an_overriding_subclass():
    r = ConstantWeights()
    r.reset(3)
    with pytest.raises(ValueError):
        r.on_iterations(np.array([0, 3]))
    with pytest.raises(ValueError):
        r.on_iterations(np.array([-1]))
    assert r.iterations.tolist() == [0, 0, 0]
    seen = []

    class Counting(ConstantWeights):
        def on_iteration(self, w):
            seen.append(w)
            super().on_iteration(w)

    c = Counting()
    c.reset(3)
    c.on_iterations(np.array([2, 0, 2]))
    assert seen == [2, 0, 2] and c.iterations.tolist() == [1, 0, 2]
