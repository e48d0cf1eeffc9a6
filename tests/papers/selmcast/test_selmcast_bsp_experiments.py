"""Trial functions of the SelMcast BSP notebooks, their knobs, and the selmcast-bsp CLI."""
import json

import numpy as np
import pytest

from simlib.cli import main
from simlib.papers.selmcast.bsp_scenario import BSPScenario
from simlib.papers.selmcast.experiments import (
    bsp_instance,
    bsp_trial,
    ingress_ratio,
    long_by_scheme,
    milp_trial,
    pr_balanced,
    random_selection_trial,
    reading_settings,
    receivers_count,
)
from simlib.core.seeding import child_seed
from simlib.papers.selmcast.orpheus import orpheus_bsp

SEED = np.random.SeedSequence(7)
DETERMINISTIC = ("ct_norm", "ct_norm_plan", "scale", "receivers", "ct_s", "t_model_s")


def test_receivers_count_rounds_and_clamps():
    assert receivers_count(50, 0.3) == 15 and receivers_count(150, 0.3) == 45
    assert receivers_count(5, 0.1) == 1          # round(0.5) = 0 -> at least one receiver
    with pytest.raises(ValueError, match="p_frac must be in"):
        receivers_count(10, 1.0)


def test_mu_one_over_p():
    assert ingress_ratio("1/p", 60) == pytest.approx(1 / 60)
    assert ingress_ratio(2.0, 60) == 2.0
    with pytest.raises(ValueError, match="mu must be one of"):
        ingress_ratio("1/n", 60)
    b_in, b_eg, p, _ = bsp_instance(BSPScenario(n=40, mu="1/p", shared_x=True), SEED)
    assert p == 12 and np.allclose(b_in, b_eg / 12)   # shared x: ingress = mu * egress


def test_shared_x_knob_changes_the_ingress_draw():
    b_in0, b_eg0, _, _ = bsp_instance(BSPScenario(n=30), SEED)
    b_in1, b_eg1, _, _ = bsp_instance(BSPScenario(n=30, shared_x=True), SEED)
    assert np.array_equal(b_eg0, b_eg1)
    assert not np.allclose(b_in0, b_eg0) and np.allclose(b_in1, b_eg1)


def test_bsp_trial_is_deterministic_and_optimal_is_the_floor():
    a = bsp_trial(dict(n=30, layer="L7"), SEED)
    b = bsp_trial(dict(n=30, layer="L7"), SEED)
    for s in ("selmcast", "orpheus", "optimal"):
        for m in DETERMINISTIC:
            assert a[f"{s}_{m}"] == b[f"{s}_{m}"]
        assert a[f"{s}_ct_norm"] >= 1 - 1e-9           # t* is a lower bound for every plan
    assert a["optimal_ct_norm"] == pytest.approx(1.0)
    assert a["orpheus_scale"] == pytest.approx(9 / 30)  # exactly p receivers per sender
    assert a["selmcast_scale"] >= a["orpheus_scale"]


def test_mu_one_over_p_lets_l3_select_more_receivers():
    # mu = 1/p makes every ingress so slow that t* = max_i v / b_i^I; egresses then have room.
    base = bsp_trial(dict(n=40, layer="L3", schemes=["selmcast"]), SEED)
    slow = bsp_trial(dict(n=40, layer="L3", mu="1/p", schemes=["selmcast"]), SEED)
    assert slow["selmcast_scale"] > base["selmcast_scale"]


def test_normalization_l3_divides_l7_by_the_l3_optimum_of_the_same_switch():
    own = bsp_trial(dict(n=30, layer="L7"), SEED)
    by_l3 = bsp_trial(dict(n=30, layer="L7", normalization="L3"), SEED)
    l3 = bsp_trial(dict(n=30, layer="L3", schemes=["optimal"]), SEED)
    assert own["t_ideal_s"] == own["t_star_s"]
    assert by_l3["t_star_s"] == own["t_star_s"]                          # same instance, same L7 optimum
    assert by_l3["t_ideal_s"] == pytest.approx(l3["t_star_s"], rel=1e-12)  # cross-check: an L3 trial's t*
    # L7 sends p copies per sender where L3 sends one, so its optimum is slower: the L3 ideal scores higher
    assert by_l3["t_ideal_s"] < own["t_star_s"]
    for s in ("selmcast", "orpheus", "optimal"):
        assert by_l3[f"{s}_ct_s"] == own[f"{s}_ct_s"]                    # the plans and their execution are unchanged
        assert by_l3[f"{s}_ct_norm"] == pytest.approx(own[f"{s}_ct_s"] / l3["t_star_s"], rel=1e-12)
    assert by_l3["optimal_ct_norm"] > 1


def test_normalization_changes_nothing_at_l3_and_rejects_other_values():
    a = bsp_trial(dict(n=20, layer="L3"), SEED)
    b = bsp_trial(dict(n=20, layer="L3", normalization="L3"), SEED)
    assert all(a[f"{s}_ct_norm"] == b[f"{s}_ct_norm"] for s in ("selmcast", "orpheus", "optimal"))
    with pytest.raises(ValueError, match="normalization must be one of"):
        bsp_trial(dict(n=10, normalization="L7"), SEED)


def test_lam_readings_scale_each_ports_deviation_from_bbar():
    # SM14: the same seed draws the same x, so λ = 0.25 puts every port half as far from b̄ as λ = 0.5
    b_in5, b_eg5, _, _ = bsp_instance(BSPScenario(n=30, lam=0.5), SEED)
    b_in25, b_eg25, _, _ = bsp_instance(BSPScenario(n=30, lam=0.25), SEED)
    bbar = 40e9
    np.testing.assert_allclose(b_eg25 - bbar, (b_eg5 - bbar) / 2, rtol=1e-9)
    np.testing.assert_allclose(b_in25 - bbar, (b_in5 - bbar) / 2, rtol=1e-9)


def test_lam_changes_orpheus_time_and_is_max_indegree_over_p_without_variation():
    # λ = 0, μ = 1, L3: every port has b̄, t* = p v / b̄ and Orpheus's round lasts (max in-degree) v / b̄ (SM5)
    n, p = 20, 6
    x = orpheus_bsp(n, p, np.random.default_rng(child_seed(SEED, 1)))
    flat = bsp_trial(dict(n=n, layer="L3", lam=0.0, schemes=["orpheus"]), SEED)
    assert flat["orpheus_ct_norm"] == pytest.approx(x.sum(axis=0).max() / p, rel=1e-9)
    half = bsp_trial(dict(n=n, layer="L3", lam=0.25, schemes=["orpheus"]), SEED)
    stated = bsp_trial(dict(n=n, layer="L3", lam=0.5, schemes=["orpheus"]), SEED)
    assert half["orpheus_ct_norm"] != stated["orpheus_ct_norm"]


def test_reading_settings_run_each_other_reading_where_the_paper_quotes_a_number():
    kw = dict(layers=["L3", "L7"], n_values=[50, 100], n_ref=100, p_frac=0.3, fig5_n=200, fig5_p_frac=0.5,
              lam=0.5, normalization="own")
    s = reading_settings(**kw, lam_alt=0.25, normalization_alt="L3")

    def readings(rows):
        return {(r["layer"], r["lam"], r["normalization"]) for r in rows}
    others = {("L3", 0.25, "own"), ("L7", 0.25, "own"), ("L7", 0.5, "L3"), ("L7", 0.25, "L3")}
    assert readings(s["fig4"]) == readings(s["fig5"]) == others      # the L3 ideal changes nothing at L3
    assert sorted(r["n"] for r in s["fig4"] if r["normalization"] == "own") == [50, 50, 100, 100]
    assert {r["n"] for r in s["fig4"] if r["normalization"] == "L3"} == {100}
    assert all(r["p_frac"] == 0.5 and r["n"] == 200 and r["schemes"] == ["orpheus"] for r in s["fig5"])
    assert readings(s["fig6"]) == {("L3", 0.25, "own")} and all(r["mu"] == "1/p" for r in s["fig6"])
    same = reading_settings(**kw, lam_alt=0.5, normalization_alt="own")
    assert same == {"fig4": [], "fig5": [], "fig6": []}
    with pytest.raises(ValueError, match="normalization_alt must be one of"):
        reading_settings(**kw, lam_alt=0.25, normalization_alt="ideal")


def test_rounds_and_k_force_orpheus_beyond_p():
    one = bsp_trial(dict(n=12, schemes=["orpheus"]), SEED)
    many = bsp_trial(dict(n=12, schemes=["orpheus"], rounds=6, k=2), SEED)
    assert one["orpheus_receivers"] == 4                # p = round(0.3 * 12) = 4
    assert many["orpheus_receivers"] > 4                # due pairs (not served for 2 rounds) are added


def test_long_by_scheme_has_one_row_per_scheme():
    import pandas as pd

    df = pd.DataFrame([bsp_trial(dict(n=10), SEED)]).assign(n=10, trial=0)
    long = long_by_scheme(df)
    assert sorted(long.scheme) == ["optimal", "orpheus", "selmcast"]
    assert {"ct_norm", "scale", "time_ms", "n", "trial", "p"} <= set(long.columns)


def test_milp_trial_agrees_with_the_flow_optimum_on_a_small_instance():
    out = milp_trial(dict(n=8, layer="L7", time_limit_s=20), SEED)
    assert out["milp_proven"]
    assert out["milp_t_star_s"] == pytest.approx(out["flow_t_star_s"], rel=1e-9)
    assert out["milp_receivers"] == out["flow_receivers"]


def test_eq1_values():
    # n = 3, p = 1: Bin(2, 1/2) at 1 = 1/2.  n = 200, p = 1: (1 - 1/199)^198 = 0.3688 ("≈ 0.37").
    assert pr_balanced(3, 1) == pytest.approx(0.5)
    assert pr_balanced(200, 1) == pytest.approx((1 - 1 / 199) ** 198)
    assert pr_balanced(200, 1) == pytest.approx(0.3688, abs=1e-4)


def test_random_selection_matches_eq1():
    out = random_selection_trial(dict(n=20, p=3, rounds=400), SEED)
    # 8000 worker-rounds; the sd of the empirical frequency is about 0.006
    assert out["pr_empirical"] == pytest.approx(out["pr_eq1"], abs=0.03)


def test_random_selection_settings_are_checked_by_name():
    from simlib.papers.contract import ParamError

    with pytest.raises(ParamError, match=r"p must be in \[1, n - 1 = 19\], got 20"):
        random_selection_trial(dict(n=20, p=20), SEED)
    with pytest.raises(ParamError, match="rounds"):
        random_selection_trial(dict(n=20, p=3, rounds=0), SEED)


# ------------------------------------------------------------------------------------ CLI
def test_cli_json(capsys):
    assert main(["selmcast-bsp", "--n", "20", "--p", "0.3", "--layer", "L7", "--scheme", "optimal",
                 "--seed", "0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ct_norm"] == pytest.approx(1.0) and out["status"] == "optimal" and out["p"] == 6
    assert {"scale", "selection_time_s", "t_star_s"} <= set(out)


@pytest.mark.parametrize("argv, flag", [
    (["--n", "10", "--p", "10"], "--p"),
    (["--lam", "1"], "--lam"),
    (["--lam", "-0.1"], "--lam"),
    (["--mu", "0"], "--mu"),
    (["--mu", "fast"], "--mu"),
    (["--layer", "L4"], "--layer"),
    (["--scheme", "random"], "--scheme"),
])
def test_cli_bad_values_exit_2_naming_the_flag(argv, flag, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["selmcast-bsp"] + argv)
    assert exc.value.code == 2
    assert flag in capsys.readouterr().err


def test_cli_milp_reports_solver_status_and_the_receiver_count(capsys):
    # --p 0.375 with n = 8 is 3 receivers; the MILP solves both stages to optimality here
    assert main(["selmcast-bsp", "--n", "8", "--p", "0.375", "--layer", "L7", "--scheme", "milp", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["p"] == 3 and out["status"] == "optimal/optimal"
    assert out["ct_norm"] == pytest.approx(1.0)      # the MILP optimum is t* (SM1)


@pytest.mark.parametrize("kw, name", [
    (dict(n=1), "n"), (dict(n=5001), "n"), (dict(p_frac=1.0), "p_frac"), (dict(p_frac=0.0), "p_frac"),
    (dict(lam=1.0), "lam"), (dict(mu=0.0), "mu"), (dict(mu="1/n"), "mu"), (dict(layer="L4"), "layer"),
    (dict(rounds=0), "rounds"), (dict(k=0), "k"), (dict(model_mb=0.0), "model_mb"),
])
def test_bsp_scenario_checks_each_field_once_naming_it(kw, name):
    with pytest.raises(ValueError, match=f"{name} must"):
        BSPScenario(**kw)


def test_bsp_trials_reject_unknown_settings():
    with pytest.raises(ValueError, match=r"unknown scenario parameter\(s\) \['p'\]"):
        bsp_trial(dict(n=10, p=3), SEED)          # the setting is p_frac (a fraction of n)


def test_the_selection_time_leaves_numba_compilation_out(monkeypatch):
    """A selection that has to compile (forced: a kernel new to the process) and then does almost no
    work: ``select``'s seconds are less than the compilation it waited for (issue 48)."""
    import time
    from types import SimpleNamespace

    from numba import njit

    from simlib.core.jitcache import CompileTimer
    from simlib.papers.selmcast import experiments

    @njit
    def kernel(n):
        return n + 1

    def compiling_selection(b_in, b_eg, p, v, layer, forced, c):
        kernel(len(b_in))
        return SimpleNamespace(x=np.zeros((len(b_in), len(b_in)), dtype=bool))

    monkeypatch.setattr(experiments, "selmcast_bsp", compiling_selection)
    t0 = time.perf_counter()
    with CompileTimer() as compiled:
        x, secs = experiments.select("selmcast", [1.0] * 3, [1.0] * 3, 1, 1.0, "L3", np.random.default_rng(0))
    assert x.shape == (3, 3) and compiled.seconds > 0
    assert 0 <= secs < compiled.seconds <= time.perf_counter() - t0
