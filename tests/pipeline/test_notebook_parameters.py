"""Notebook parameter validation: list parameters given as text (papermill -p), the parameters every
notebook shares, the parameters papermill injected (the quick profile keeps them: test_notebook_contract.py)."""
from __future__ import annotations

import pytest

from simlib.pipeline import paths
from simlib.core.validate import check_int, check_list, check_real
from simlib.pipeline.params import check_notebook_common


@pytest.fixture(autouse=True)
def no_run_facts(monkeypatch):
    monkeypatch.setattr(paths, "_run_facts", {})  # check_notebook_common notes facts for the ledger


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


def test_passed_parameters_come_from_papermills_injected_cell(monkeypatch):
    monkeypatch.setattr(paths, "_history", lambda: [
        'profile = "full"\ntrials = 20\n',
        '# Parameters\nprofile = "quick"\nn_values = "[10, 20]"\nworkers = 1\n',
        "x = 1",
    ])
    assert paths.passed_parameters() == {"profile": "quick", "n_values": "[10, 20]", "workers": 1}


def test_passed_parameters_read_papermills_non_finite_floats_and_keep_any_other_expression(monkeypatch):
    import math

    from papermill.translators import PythonTranslator

    injected = PythonTranslator.codify({"a": math.inf, "b": -math.inf, "c": math.nan, "d": [1.5, math.inf]})
    assert "float('-inf')" in injected                                   # how papermill writes them
    # `papermill -r e "2 * 3"` injects an expression: still passed, kept as its text
    monkeypatch.setattr(paths, "_history", lambda: [injected + "e = 2 * 3\nf = float('x')\n"])
    got = paths.passed_parameters()
    assert got["a"] == math.inf and got["b"] == -math.inf and math.isnan(got["c"]) and got["d"] == [1.5, math.inf]
    assert got["e"] == "2 * 3" and got["f"] == "float('x')"
    assert paths.finite_json(got) == {"a": "inf", "b": "-inf", "c": "nan", "d": [1.5, "inf"], "e": "2 * 3",
                                      "f": "float('x')"}


def test_run_context_rules(monkeypatch, tmp_path):
    for name in (paths.PUBLISH_ENV, paths.RUN_DIR_ENV, paths.NOTEBOOK_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(paths, "passed_parameters", lambda: {"profile": "full", "workers": 4})
    monkeypatch.setenv(paths.NOTEBOOK_ENV, "11_x")
    # no runner: a run folder named after the notebook and the result-changing parameters
    ctx = paths.run_context()
    assert not ctx.publish
    assert ctx.out_dir == paths.RUNS / "11_x" / paths.parameter_hash({"profile": "full"})
    assert ctx.figures == ctx.out_dir / "figures" and ctx.ledger == ctx.out_dir / "results" / "claims.csv"
    assert paths.FIGURES == ctx.figures and paths.RESULTS == ctx.results
    # the runner's folder
    monkeypatch.setenv(paths.RUN_DIR_ENV, str(tmp_path))
    assert paths.run_context().out_dir == tmp_path
    # a publishing run writes the committed folders
    monkeypatch.setenv(paths.PUBLISH_ENV, "1")
    ctx = paths.run_context()
    assert ctx.publish and ctx.figures == paths.COMMITTED_FIGURES and ctx.ledger == paths.COMMITTED_LEDGER


def test_parameter_hash_ignores_workers_only():
    assert paths.parameter_hash({}) == paths.parameter_hash({"workers": 3}) == "defaults"
    a = paths.parameter_hash({"profile": "quick"})
    assert a == paths.parameter_hash({"profile": "quick", "workers": 2})
    assert a != paths.parameter_hash({"profile": "quick", "trials": 5})
