"""Measurements behind the 000 ledger's "likely paper error" causes (decision S19): each checks the
fact of the paper's own model that the cause rests on, on runs of the simulator."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from simlib.papers.cluster_scenario import Scenario, simulate

ALPHAS_S = (0.0, 0.001, 0.005, 0.05)   # Fig. 14's latencies


@settings(max_examples=12, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), alpha_s=st.sampled_from(ALPHAS_S), n=st.sampled_from([20, 40]),
       eta=st.sampled_from([0.0, 0.3, 0.8]))
def test_sr_groups_never_below_p(seed, alpha_s, n, eta):
    """Fig. 14(a): selective reduce never launches a group smaller than p (partial reduce's group
    size), at any latency α -- so Eq. (2)'s latency term 2(m−1)α of SR's syncs is at least PR's."""
    sc = Scenario.from_params(dict(n=n, duration_s=20.0, scheme="selective", alpha_s=alpha_s, eta=eta))
    sizes = simulate(sc, seed).syncs_frame()["scale"]
    assert len(sizes) > 0
    assert sizes.min() >= sc.group_size


@settings(max_examples=6, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_sr_latency_term_grows_at_least_as_fast_as_prs(seed):
    """The same, as the growth of the latency term from α = 0 to 50 ms: the mean of 2(m−1)Δα over
    SR's syncs is at least PR's (whose groups are exactly p, 2(p−1)Δα) on the same draws."""
    d_alpha = ALPHAS_S[-1] - ALPHAS_S[0]
    growth = {}
    for scheme in ("partial", "selective"):
        sc = Scenario(n=40, duration_s=20.0, scheme=scheme, alpha_s=ALPHAS_S[-1])
        m = simulate(sc, seed).syncs_frame()["scale"].to_numpy()
        growth[scheme] = float(np.mean(2 * (m - 1) * d_alpha))
    assert np.isclose(growth["partial"], 2 * (Scenario(n=40).group_size - 1) * d_alpha)
    assert growth["selective"] >= growth["partial"]


def test_only_selective_reduce_reads_its_knobs():
    """The trial cache keys every other scheme's run with selective reduce's knobs at their defaults
    (decision S17): their runs must not depend on those knobs -- and selective reduce's must."""
    import numpy as np

    from simlib.papers.cluster_scenario import run_trial

    knobs = dict(dt_s=0.02, eta=0.6, theta=5.0, bw_error=0.3, cdf="cold")
    base = dict(n=20, duration_s=10.0)
    for scheme in ("allreduce", "partial", "ps-bsp"):
        a = run_trial(dict(base, scheme=scheme), np.random.SeedSequence(3))
        b = run_trial(dict(base, scheme=scheme, **knobs), np.random.SeedSequence(3))
        assert a == b
        assert run_trial.cache_params(dict(base, scheme=scheme, **knobs)) == \
            run_trial.cache_params(dict(base, scheme=scheme))
    sr = [run_trial(dict(base, scheme="selective", **k), np.random.SeedSequence(3)) for k in ({}, knobs)]
    assert sr[0] != sr[1]
    assert run_trial.cache_params(dict(base, scheme="selective", **knobs)) != \
        run_trial.cache_params(dict(base, scheme="selective"))


def test_the_redraw_rule_matters_only_with_an_estimation_error():
    import numpy as np

    from simlib.papers.cluster_scenario import run_trial

    base = dict(n=20, duration_s=10.0, scheme="selective")
    for e, same in ((0.0, True), (0.4, False)):
        runs = [run_trial(dict(base, bw_error=e, bw_error_redraw=r), np.random.SeedSequence(5)) for r in ("decision", "run")]
        keys = [run_trial.cache_params(dict(base, bw_error=e, bw_error_redraw=r)) for r in ("decision", "run")]
        assert (runs[0] == runs[1]) == same and (keys[0] == keys[1]) == same
