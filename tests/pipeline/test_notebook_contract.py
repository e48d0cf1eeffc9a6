"""Notebooks whose parameters come from a declared spec (``run = simlib.start(Spec, globals(), ...)``):
the quick profile keeps what the user passed (a value other than the full profile's default),
list parameters accept papermill's text, and the parameters cell's defaults are the spec's."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from simlib.pipeline import paths

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def cells(stem: str) -> list[tuple[str, str]]:
    """(header, source) of every cell of a jupytext percent notebook."""
    text = (NOTEBOOKS / f"{stem}.py").read_text(encoding="utf-8")
    parts = re.split(r"^(# %%.*)$", text, flags=re.M)
    return [(parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2)]


def parameter_cells(stem: str) -> tuple[str, str]:
    """The parameters cell and the validation cell after it."""
    cs = cells(stem)
    i = next(k for k, (head, _) in enumerate(cs) if 'tags=["parameters"]' in head)
    return cs[i][1], cs[i + 1][1]


def run_parameters(stem: str, monkeypatch, **passed) -> dict:
    """Run the parameters cell, papermill's injected cell (``passed``) and the validation cell."""
    params, validation = parameter_cells(stem)
    ns: dict = {}
    exec(params, ns)
    ns.update(passed)
    exec(validation, ns)
    return ns


@pytest.mark.parametrize("stem, passed, expected", [
    # the report: asking for n = 30, p = 25 in the quick profile ran n = 12, p = 10
    ("30_fmreduce_fig2", dict(profile="quick", n=30, p=25), dict(n=30, p=25, trials=2, duration_s=30.0)),
    ("30_fmreduce_fig2", dict(profile="quick", n=50, p=25, trials=4), dict(n=50, p=25, trials=4, trace_trials=1)),
    # without the runner, a value equal to the full default is not "passed" (decision S22): quick replaces it
    ("30_fmreduce_fig2", dict(profile="quick", n=60, trials=4), dict(n=12, trials=4)),
    # papermill -p p_values "[10, 20]" passes the text
    ("30_fmreduce_fig2", dict(profile="quick", p_values="[4, 10]"), dict(p_values=[4, 10], n=12)),
    ("30_fmreduce_fig2", dict(profile="quick", n=20, p_values="[10, 20]"), dict(p_values=[10, 20], n=20, p=10)),
    ("30_fmreduce_fig2", dict(profile="full", p_values="[10, 20]", trials=3), dict(p_values=[10, 20], trials=3, n=60)),
    # notebooks 40 and 41 had the same inline quick block
    ("40_selmcast_sec2_fig1_random_selection", dict(profile="quick", n=100), dict(n=100, trials=2, p_step=13)),
    ("41_selmcast_bsp_fig4-6", dict(profile="quick", n_values="[40, 80]", milp_trials=2),
     dict(n_values=[40, 80], milp_trials=2, trials=2, fig5_n=20, layers=["L3", "L7"])),
    ("41_selmcast_bsp_fig4-6", dict(profile="full", layers="[L7]", p_frac_values="[0.25]"),
     dict(layers=["L7"], p_frac_values=[0.25], n_values=[50, 100, 150, 200])),
    # 000's notebooks (the shared cluster run's declarations)
    ("11_sr_fig5-7_traces", dict(profile="quick", n_values="[40]", theta=float("inf")),
     dict(n_values=[40], theta=float("inf"), trials=2, duration_s=20.0, traces=["cnn", "transformer"])),
    ("13_sr_fig11-12_robustness", dict(profile="quick", e_values="[0.5]", n_error=60),
     dict(e_values=[0.5], n_error=60, n_values=[10, 20])),
    ("21_pr_sec5_heterogeneous_training", dict(profile="quick", target_acc=0.85),
     dict(target_acc=0.85, n=8, p_values=[2, 4], duration_s=40.0)),
    ("91_beyond_internet_scale", dict(profile="quick", n_values="[40, 20]"), dict(n_values=[20, 40], trials=2)),
    ("15_sr_paper_gaps", dict(profile="full", c_values="[5]"), dict(c_values=[5], n=200, dt_values=[
        0.01, 0.05, 0.1, 0.2, 0.5, 1.0])),
    # the SSP notebooks: quick n = 12 and 10 or 15 s, but what the user passed; None items as YAML null
    ("43_selmcast_ssp_fig7_case_study", dict(profile="quick", n=30),
     dict(n=30, trials=1, duration_s=15.0, traces=["lstm", "transformer", "cnn"], ssp=4)),
    ("44_selmcast_ssp_fig8-10", dict(profile="quick", k_values="[2, null]", ssp_values="[0]"),
     dict(k_values=[2, None], ssp_values=[0], n=12, duration_s=10.0, p_values=[0.1, 0.3], traces=["lstm"])),
    ("45_selmcast_ssp_fig11-13", dict(profile="full", volume_exponents="[-2, 3]", traces="[cnn]"),
     dict(volume_exponents=[-2, 3], traces=["cnn"], n=50, trials=10, eta_values=[0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6,
                                                                                0.7, 0.75, 0.8, 0.9, 1.0])),
    ("46_selmcast_ssp_time_to_accuracy", dict(profile="quick", target_acc=0.9, trials=3),
     dict(target_acc=0.9, trials=3, n=12, duration_s=15.0, traces=["lstm"], model="softmax")),
])
def test_quick_profile_keeps_user_parameters_and_lists_come_as_text(stem, passed, expected, monkeypatch):
    ns = run_parameters(stem, monkeypatch, **passed)
    assert {k: ns[k] for k in expected} == expected


def test_under_the_runner_a_passed_full_default_escapes_the_quick_profile(monkeypatch):
    """`--profile quick -p n 60` (60 = notebook 30's full default): the runner names n in simlib_run, so the
    quick profile keeps 60 and the ledger records it; the unnamed p_values still get their quick values (S22)."""
    facts = {"notebook": "30_fmreduce_fig2", "publish": False, "passed": ["n"]}
    ns = run_parameters("30_fmreduce_fig2", monkeypatch, profile="quick", n=60, simlib_run=facts)
    quick = run_parameters("30_fmreduce_fig2", monkeypatch, profile="quick", n=60)    # without the runner
    assert (ns["n"], quick["n"]) == (60, 12) and ns["p_values"] == quick["p_values"] != [10, 20, 30, 40, 50, 60]
    assert ns["run"].ledger_parameters() == {"profile": "quick", "n": 60}


def test_a_p_sweep_value_above_n_names_the_list_item(monkeypatch):
    with pytest.raises(ValueError, match=r"p_values\[1\]: p must be in \[1, n = 30\], got 40"):
        run_parameters("30_fmreduce_fig2", monkeypatch, profile="full", n=30, p=20, p_values="[10, 40]")
    # quick n = 12 with a passed p = 25: the scenario's rule p <= n, not a silent replacement
    with pytest.raises(ValueError, match=r"p must be in \[1, n = 12\], got 25"):
        run_parameters("30_fmreduce_fig2", monkeypatch, profile="quick", p=25)


@pytest.mark.parametrize("stem, passed, match", [
    # the scenario's own rules, in the validation cell, naming the list item
    ("12_sr_fig8-10_parameters", dict(n=4, p_values="[0.5, 0.1]"),
     r"p_values\[1\]: p \* n must be at least 0.5 \(a group of >= 1 worker\), got 0.1 \* 4"),
    ("11_sr_fig5-7_traces", dict(n_values="[2, 200000]"), r"n_values\[1\] must be an integer in \[2, 100000\]"),
    ("14_sr_fig13-14_skew_latency", dict(alpha_ms_values="[1, -5]"), r"alpha_ms_values\[1\] must be in \[0.0, inf\)"),
    ("13_sr_fig11-12_robustness", dict(e_values="[0.1, -0.1]"), r"e_values\[1\] must be in"),
    ("00_pipeline_example", dict(n=40, group_sizes="[5, 20]"), r"group_sizes\[1\]: groups \* m must be <= n \(40\)"),
    ("10_sr_fig3_motivating_example", dict(p=6), r"p must be an integer in \[1, 5\], got 6"),
    ("20_pr_sec3_spectral_weights", dict(ema_alpha=1.0), r"ema_alpha must be in \[0.0, 1.0\)"),
    ("21_pr_sec5_heterogeneous_training", dict(table_p="[3, 9]"), r"table_p\[1\]: group size P must be in \[2, n = 8\]"),
    ("21_pr_sec5_heterogeneous_training", dict(hl_values="[1, 9]"), r"hl_values\[1\]: hl must be in \[1, n = 8\]"),
    ("22_pr_sec5_nine_systems", dict(table_p="[3, 9]"), r"table_p\[1\]: group size P must be in \[2, n = 8\]"),
    ("22_pr_sec5_nine_systems", dict(backups=8), r"hl_values\[0\]: backups must be in \[0, n - 1 = 7\]"),
    ("22_pr_sec5_nine_systems", dict(fig11_n="[4, 8]"), r"fig11_n must contain 1"),
    ("22_pr_sec5_nine_systems", dict(fig11_n="[1, 2]"), r"fig11_n\[1\]: n must be 1 or at least fig11_p = 4"),
    ("90_beyond_time_to_accuracy", dict(model="resnet"), r"model must be one of \['softmax', 'mlp', 'mlp-relu', 'cnn'\]"),
    ("90_beyond_time_to_accuracy", dict(target_acc=0.99), r"the highest target problem 'mnist1d' supports is"),
    ("91_beyond_internet_scale", dict(n_values="[1000, 200000]"), r"n_values\[1\] must be an integer in"),
    ("92_beyond_real_traces", dict(standin="pai-job4"), "standin 'pai-job4' must not be in real_traces"),
    ("92_beyond_real_traces", dict(fm_n=30, fm_p_values="[10, 40]"), r"fm_p_values\[1\]: p must be in \[1, n = 30\]"),
    ("93_beyond_async_sgd", dict(net_n=4, backups_values="[1, 4]"), r"backups_values\[1\]"),
    ("93_beyond_async_sgd", dict(late="[cancel, ignore]"), r"late\[1\] must be one of"),
])
def test_000_notebooks_refuse_bad_values_naming_the_parameter(stem, passed, match, monkeypatch):
    with pytest.raises(ValueError, match=match):
        run_parameters(stem, monkeypatch, profile="full", **passed)


def test_ssp_notebooks_check_p_against_n_with_the_scenarios_rule(monkeypatch):
    with pytest.raises(ValueError, match=r"p_values\[1\]: p must give between 1 and n - 1 = 9 receivers"):
        run_parameters("44_selmcast_ssp_fig8-10", monkeypatch, profile="full", n=10, p_values="[0.1, 0.95]")
    # quick n = 12 with a passed p = 0.95: ceil(0.95 * 12) = 12 > 11 receivers
    with pytest.raises(ValueError, match=r"p must give between 1 and n - 1 = 11 receivers"):
        run_parameters("43_selmcast_ssp_fig7_case_study", monkeypatch, profile="quick", p=0.95)
    with pytest.raises(ValueError, match=r"volume_exponents\[0\] must be an integer in \[-20, 20\]"):
        run_parameters("45_selmcast_ssp_fig11-13", monkeypatch, profile="full", volume_exponents="[21]")


# ------------------------------------------------------------------ every migrated notebook
def migrated() -> dict:
    """Every notebook's spec class, by stem: each paper's ``Paper.notebooks`` and the notebooks beyond the
    papers (:func:`simlib.papers.registry.notebook_specs`)."""
    from simlib.papers import registry

    return {stem: registry.resolve(ref) for stem, ref in registry.notebook_specs().items()}


def test_every_notebook_is_declared_by_its_paper_or_beyond():
    assert sorted(migrated()) == sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.py"))


def literal_assignments(source: str) -> dict:
    return {node.targets[0].id: ast.literal_eval(node.value) for node in ast.parse(source).body
            if isinstance(node, ast.Assign)}


@pytest.mark.parametrize("stem", sorted(migrated()))
def test_parameters_cell_defaults_are_the_specs(stem):
    import dataclasses

    from simlib.papers.contract import specs
    from simlib.pipeline.run import COMMON_DEFAULTS

    spec_cls = migrated()[stem]
    cell = literal_assignments(parameter_cells(stem)[0])
    defaults = {f.name: list(f.default) if isinstance(f.default, tuple) else f.default
                for f in dataclasses.fields(spec_cls)}
    assert set(cell) == set(COMMON_DEFAULTS) | set(specs(spec_cls))
    assert {k: cell[k] for k in defaults} == defaults
    # what a parameter is compared with to tell whether it was passed (decision S22)
    assert {k: cell[k] for k in COMMON_DEFAULTS} == COMMON_DEFAULTS


@pytest.mark.parametrize("stem", sorted(migrated()))
def test_migrated_notebooks_start_their_run_and_have_no_hand_written_checks(stem):
    validation = parameter_cells(stem)[1]
    spec = migrated()[stem].__name__
    assert f'run = simlib.start({spec}, globals(), notebook="{stem}")' in validation
    text = (NOTEBOOKS / f"{stem}.py").read_text(encoding="utf-8")
    assert not re.search(r"\bcheck_\w+\(", text) and not re.search(r'if +profile *== *"quick"', text)
    # the run's own methods, nothing ambient
    assert not re.search(r"paths\.(FIGURES|RESULTS|run_context)|figures_dir=|run_notebook_sweep|run_scenarios\(", text)


@pytest.mark.parametrize("stem", sorted(migrated()))
def test_full_profile_defaults_pass_and_quick_profile_substitutes_only_unpassed(stem, monkeypatch):
    from simlib.papers.contract import MISSING, specs

    spec_cls = migrated()[stem]
    full = run_parameters(stem, monkeypatch, profile="full")
    quick = run_parameters(stem, monkeypatch, profile="quick")
    for name, spec in specs(spec_cls).items():
        want = full[name] if spec.quick is MISSING else spec.quick
        assert quick[name] == want, name


def test_start_rejects_missing_parameters_and_returns_the_run(monkeypatch):
    import simlib
    from simlib.papers.fmreduce.experiments import Fig2Notebook

    ns = {}
    exec(parameter_cells("30_fmreduce_fig2")[0], ns)
    del ns["sweep_trials"]
    with pytest.raises(ValueError, match=r"the parameters cell must assign \['sweep_trials'\]"):
        simlib.start(Fig2Notebook, ns, notebook="30_fmreduce_fig2")
    ns["sweep_trials"] = 5
    ns.update(profile="quick", trials=7)
    run = simlib.start(Fig2Notebook, ns, notebook="30_fmreduce_fig2")
    # trials = 7 differs from the full default 20: passed, so the quick profile keeps it
    assert (run.profile, run.trials, run.seed, run.notebook) == ("quick", 7, 0, "30_fmreduce_fig2")
    assert run.passed == {"profile": "quick", "trials": 7} and ns["trials"] == 7 and ns["n"] == 12
    assert run.folders.out_dir == paths.RUNS / "30_fmreduce_fig2" / paths.parameter_hash(run.passed)


def run_injected(stem: str, **passed) -> dict:
    """As :func:`run_parameters`, but through papermill's own translator: it writes the injected cell
    (``float('inf')`` for an infinite value), which runs between the parameters and validation cells."""
    from papermill.translators import PythonTranslator

    params, validation = parameter_cells(stem)
    injected = PythonTranslator.codify(passed)
    ns: dict = {}
    exec(params, ns)
    exec(injected, ns)
    exec(validation, ns)
    return ns


@pytest.mark.parametrize("stem, name, value, match", [
    # the two: quick replaced the unread value with its own and wrote the default quick run's folder
    ("30_fmreduce_fig2", "duration_s", float("inf"), r"duration_s must be a finite real number in \(0.0, inf\), got inf"),
    ("22_pr_sec5_nine_systems", "target_acc", float("nan"), r"target_acc must be .*got nan"),
])
def test_papermills_non_finite_values_are_rejected_in_both_profiles(stem, name, value, match):
    for profile in ("full", "quick"):
        with pytest.raises(ValueError, match=match):
            run_injected(stem, profile=profile, **{name: value})


def test_a_passed_infinite_value_the_spec_accepts_is_used_and_gets_its_own_run_folder():
    """theta = inf is in notebook 11's range: the quick profile keeps it (as the full one does), the run
    folder is not the default quick run's, and the ledger's parameters column records it as text."""
    for profile in ("full", "quick"):
        ns = run_injected("11_sr_fig5-7_traces", profile=profile, theta=float("inf"))
        run = ns["run"]
        assert ns["theta"] == float("inf") and run.values["theta"] == float("inf")
        assert run.passed == ({"theta": float("inf")} if profile == "full" else
                              {"profile": profile, "theta": float("inf")})
        assert run.folders.out_dir.name != paths.parameter_hash({"profile": profile})
        assert run.ledger_parameters() == {"profile": profile, "theta": "inf"}
