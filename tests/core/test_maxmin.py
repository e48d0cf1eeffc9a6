"""The compiled max-min solver against analytic cases and an exact rational reference."""
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.core.maxmin import allocate_rates, reference_rates


def _csr(flow_links):
    lens = [len(x) for x in flow_links]
    fend = np.cumsum(lens).astype(np.int64)
    fstart = (fend - np.asarray(lens, dtype=np.int64)).astype(np.int64)
    fidx = np.array([l for x in flow_links for l in x] or [0], dtype=np.int64)
    return fstart, fend, fidx


def solve(caps, flow_links, prio=None, heap=False):
    """Rates from the compiled solver; ``heap=True`` forces the heap search path."""
    fstart, fend, fidx = _csr(flow_links)
    p = None if prio is None else np.asarray(prio, dtype=np.int64)
    return allocate_rates(np.asarray(caps, float), fstart, fend, fidx, np.arange(len(flow_links)), p,
                          scan_max_links=0 if heap else 1024)


@pytest.mark.parametrize("k", [1, 2, 3, 7, 100])
def test_k_flows_on_one_link_get_c_over_k(k):
    rates = solve([10.0], [[0]] * k)
    assert np.allclose(rates, 10.0 / k, rtol=1e-15)


def test_textbook_two_links_three_flows():
    # link A (cap 1) carries flows 0 and 1, link B (cap 2) carries flows 0 and 2:
    # A is the bottleneck of flows 0 and 1 (1/2 each); flow 2 takes the rest of B.
    rates = solve([1.0, 2.0], [[0, 1], [0], [1]])
    assert rates.tolist() == [0.5, 0.5, 1.5]


def test_strict_priority_serves_high_class_first():
    # class 0 flow uses links 0,1; class 1 flows share what is left
    rates = solve([10.0, 4.0], [[0, 1], [0], [1]], prio=[0, 1, 1])
    assert rates.tolist() == [4.0, 6.0, 0.0]


def test_fcfs_as_priorities():
    rates = solve([9.0], [[0], [0], [0]], prio=[0, 1, 2])
    assert rates.tolist() == [9.0, 0.0, 0.0]


def test_flow_without_links_is_unbounded():
    rates = solve([1.0], [[0], []])
    assert rates[0] == 1.0 and np.isinf(rates[1])


@st.composite
def instances(draw, max_links=6, max_flows=10, classes=1):
    n_links = draw(st.integers(1, max_links))
    caps = draw(st.lists(st.integers(0, 50), min_size=n_links, max_size=n_links))
    n_flows = draw(st.integers(1, max_flows))
    flows = [sorted(draw(st.sets(st.integers(0, n_links - 1), min_size=1, max_size=n_links)))
             for _ in range(n_flows)]
    prio = draw(st.lists(st.integers(0, classes - 1), min_size=n_flows, max_size=n_flows))
    return caps, flows, prio


@pytest.mark.parametrize("heap", [False, True], ids=["scan", "heap"])
@settings(max_examples=200, deadline=None)
@given(inst=instances())
def test_matches_exact_rational_reference(inst, heap):
    caps, flows, _ = inst
    got = solve(caps, flows, heap=heap)
    ref = [float(r) for r in reference_rates(caps, flows)]
    assert np.allclose(got, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("heap", [False, True], ids=["scan", "heap"])
@settings(max_examples=200, deadline=None)
@given(inst=instances(classes=3))
def test_priority_matches_exact_reference(inst, heap):
    caps, flows, prio = inst
    got = solve(caps, flows, prio, heap=heap)
    ref = [float(r) for r in reference_rates(caps, flows, prio)]
    assert np.allclose(got, ref, rtol=1e-12, atol=1e-12)


def test_scan_and_heap_agree_on_a_large_instance():
    rng = np.random.default_rng(7)
    n_links = 300
    caps = rng.uniform(1, 100, n_links)
    flows = [sorted(rng.choice(n_links, rng.integers(1, 5), replace=False).tolist()) for _ in range(3000)]
    assert np.allclose(solve(caps, flows), solve(caps, flows, heap=True), rtol=1e-12)


def _loads(caps, flows, rates, mask=None):
    load = np.zeros(len(caps))
    for f, ls in enumerate(flows):
        if mask is None or mask[f]:
            for l in ls:
                load[l] += rates[f]
    return load


@settings(max_examples=200, deadline=None)
@given(instances(max_links=8, max_flows=14))
def test_feasible_and_every_flow_has_a_bottleneck(inst):
    """Max-min optimality: no link over capacity; every flow crosses a saturated
    link on which no other flow has a higher rate."""
    caps, flows, _ = inst
    rates = solve(caps, flows)
    load = _loads(caps, flows, rates)
    assert np.all(load <= np.asarray(caps) * (1 + 1e-12) + 1e-12)
    for f, ls in enumerate(flows):
        ok = False
        for l in ls:
            saturated = abs(load[l] - caps[l]) <= 1e-9 * max(caps[l], 1)
            others = [rates[g] for g, gl in enumerate(flows) if l in gl]
            if saturated and rates[f] >= max(others) - 1e-9 * max(caps[l], 1):
                ok = True
        assert ok, (f, rates)


@settings(max_examples=200, deadline=None)
@given(instances(max_links=6, max_flows=12, classes=3))
def test_priority_class_cannot_gain_from_lower_classes(inst):
    """Each class is max-min over the capacity left by higher classes: every flow has a
    link saturated by its own and higher classes, where it is among the largest of its class."""
    caps, flows, prio = inst
    rates = solve(caps, flows, prio)
    load_all = _loads(caps, flows, rates)
    assert np.all(load_all <= np.asarray(caps) * (1 + 1e-12) + 1e-12)
    for f, ls in enumerate(flows):
        c = prio[f]
        upto = _loads(caps, flows, rates, [p <= c for p in prio])
        ok = False
        for l in ls:
            sat = abs(upto[l] - caps[l]) <= 1e-9 * max(caps[l], 1)
            same = [rates[g] for g, gl in enumerate(flows) if l in gl and prio[g] == c]
            if sat and rates[f] >= max(same) - 1e-9 * max(caps[l], 1):
                ok = True
        assert ok


def test_reference_is_exact_rational():
    r = reference_rates([1, 1], [[0], [0], [0], [1]])
    assert r == [Fraction(1, 3)] * 3 + [Fraction(1)]
