"""Notebook parameter validation: list parameters given as text (papermill -p), the parameters every
notebook shares, and the run-folder rules (the Run itself: test_run.py)."""
from __future__ import annotations

import pytest

from simlib.pipeline import paths
from simlib.core.validate import check_int, check_list, check_real
from simlib.pipeline.run import check_notebook_common


def n_item(name, value):
    return check_int(name, value, 2)


@pytest.mark.parametrize("value, expected", [
    ([40, 80], [40, 80]), ((40,), [40]), ("[40, 80]", [40, 80]), ("[10]", [10]), ("- 10\n- 20\n", [10, 20]),
])
def test_check_list_accepts_lists_and_yaml_text(value, expected):
    assert check_list("n_values", value, n_item) == expected


@pytest.mark.parametrize("value, match", [
    (40, r"n_values must be a list such as \[1, 2\] \(papermill: -p n_values"),   # -p n_values 40
    ("40", "n_values must be a list"),                                              # the same, as text
    ("[10, 20", "n_values must be a list"),                                         # malformed YAML
    ("[10, 1]", r"n_values\[1\] must be an integer in \[2, inf\), got 1"),
    ("[10, x]", r"n_values\[1\] must be an integer in \[2, inf\), got 'x'"),
    ([], "at least 1 element"),
    (None, "n_values must be a list"),
])
def test_check_list_errors_name_the_parameter_and_range(value, match):
    with pytest.raises(ValueError, match=match):
        check_list("n_values", value, n_item)


def test_check_list_real_items():
    assert check_list("e_values", "[0, 0.5]", lambda k, x: check_real(k, x, 0.0)) == [0.0, 0.5]
    with pytest.raises(ValueError, match=r"e_values\[0\] must be in \[0.0, inf\), got -1"):
        check_list("e_values", [-1], lambda k, x: check_real(k, x, 0.0))


@pytest.mark.parametrize("kwargs, match", [
    ({"profile": "fast"}, r"profile must be one of \['full', 'quick'\], got 'fast'"),
    ({"workers": 0}, r"workers must be an integer in \[1, inf\), got 0"),
    ({"workers": "2"}, "workers must be an integer"),
    ({"seed": -1}, r"seed must be an integer in \[0, inf\), got -1"),
    ({"trials": 0}, r"trials must be an integer in \[1, inf\), got 0"),
    ({"trials": "five"}, "trials must be an integer"),
])
def test_check_notebook_common_rejects(kwargs, match):
    args = {"profile": "full", "workers": None, "seed": 0, "trials": 1} | kwargs
    with pytest.raises(ValueError, match=match):
        check_notebook_common(**args)


def test_folder_rules(tmp_path):
    ctx = paths.RunContext(False, paths.run_dir("11_x", {"profile": "quick", "workers": 4}), "11_x")
    assert ctx.out_dir == paths.RUNS / "11_x" / paths.parameter_hash({"profile": "quick"})
    assert ctx.figures == ctx.out_dir / "figures" and ctx.ledger == ctx.out_dir / "results" / "claims.csv"
    assert paths.run_dir("11_x", {}, runs=tmp_path) == tmp_path / "11_x" / "defaults"
    ctx = paths.RunContext(True, paths.REPO_ROOT, "11_x")       # a publishing run writes the committed folders
    assert ctx.publish and ctx.figures == paths.COMMITTED_FIGURES and ctx.ledger == paths.COMMITTED_LEDGER


def test_finite_json_writes_non_finite_floats_as_text():
    import math

    got = paths.finite_json({"a": math.inf, "b": -math.inf, "c": math.nan, "d": [1.5, math.inf], "e": "x"})
    assert got == {"a": "inf", "b": "-inf", "c": "nan", "d": [1.5, "inf"], "e": "x"}


def test_parameter_hash_ignores_workers_only():
    assert paths.parameter_hash({}) == paths.parameter_hash({"workers": 3}) == "defaults"
    a = paths.parameter_hash({"profile": "quick"})
    assert a == paths.parameter_hash({"profile": "quick", "workers": 2})
    assert a != paths.parameter_hash({"profile": "quick", "trials": 5})


def test_a_scripts_sweep_writes_to_a_run_folder_named_after_the_script():
    assert paths.script_name(["/somewhere/my_sweep.py"]) == "my_sweep"
    assert paths.script_name(["-c"]) == paths.script_name([]) == paths.script_name([""]) == "python"
    ctx = paths.script_context(["/somewhere/my_sweep.py"])
    assert not ctx.publish and ctx.results == paths.RUNS / "my_sweep" / "defaults" / "results"
