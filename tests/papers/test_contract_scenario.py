"""ScenarioBase (simlib.papers.contract): every declared field checked and converted once, then the
cross-field rules; lists from YAML text; declarations re-used by name, never re-written."""
import dataclasses
import math

import numpy as np
import pytest

from simlib.papers.contract import (MISSING, ParamError, ScenarioBase, check_items, check_param, defaults, groups,
                                    param, param_group, param_list, param_of, specs)


def even_only(name, value):
    if value % 2:
        raise ValueError(f"{name} must be even, got {value}")
    return value


@dataclasses.dataclass(frozen=True)
class Toy(ScenarioBase):
    n: int = param(60, lo=2, hi=10_000, help="workers", quick=12)
    p: int = param(50, lo=1, hi=10_000, help="participants per round, at most n", quick=10)
    duration_s: float = param(600.0, lo=0.0, lo_open=True, unit="s", help="period", flag="--duration")
    split: str = param("lp", choices=("even", "lp"), help="how the model is split")
    k: int = param(4, lo=0, none_means="inf", help="rounds")
    m: int = param(2, lo=0, check=even_only, allowed="even numbers >= 0", help="an even count")

    def check(self):
        if self.p > self.n:
            raise ParamError("p", f"p must be in [1, n = {self.n}], got {self.p}")


def test_fields_are_converted_once():
    t = Toy(n=np.int64(20), p=np.int32(5), duration_s=3, k=None)
    assert (type(t.n), type(t.p), type(t.duration_s)) == (int, int, float)
    assert t.k is None and t.duration_s == 3.0


@pytest.mark.parametrize("kw, name, match", [
    (dict(n=1), "n", r"n must be an integer in \[2, 10000\], got 1"),
    (dict(p=0), "p", r"p must be an integer in \[1, 10000\]"),
    (dict(duration_s=0.0), "duration_s", r"duration_s must be in \(0.0, inf\)"),
    (dict(split="LP"), "split", "split must be one of"),
    (dict(m=3), "m", "m must be even, got 3"),
    (dict(n=10, p=11), "p", r"p must be in \[1, n = 10\], got 11"),   # the cross-field rule, after the ranges
    (dict(n="ten"), "n", "n must be an integer"),
])
def test_errors_are_param_errors_naming_the_field(kw, name, match):
    with pytest.raises(ParamError, match=match) as exc:
        Toy(**kw)
    assert exc.value.name == name and isinstance(exc.value, ValueError)


def test_cross_field_rule_runs_after_each_field_is_valid():
    # p=0 breaks p's own range; the rule p <= n never sees an unchecked value
    with pytest.raises(ParamError) as exc:
        Toy(n=1, p=0)
    assert exc.value.name == "n"


def test_from_params_rejects_unknown_keys_by_name_and_round_trips():
    with pytest.raises(ParamError, match=r"unknown scenario parameter\(s\) \['nn'\]") as exc:
        Toy.from_params({"nn": 3})
    assert exc.value.name == "nn"
    t = Toy.from_params({"n": 30, "p": 25})
    assert Toy.from_params(t.to_params()) == t


@dataclasses.dataclass(frozen=True)
class Sweep(ScenarioBase):
    trials: int = param(10, lo=1, help="trials per setting", quick=2)
    n: int = param_of(Toy, "n")
    p_values: tuple = param_list([10, 20, 50], of=(Toy, "p"), quick=[4, 8])
    splits: tuple = param_list(["lp"], of=(Toy, "split"))


def test_param_of_and_param_list_reuse_the_declaration():
    s, t = specs(Sweep), specs(Toy)
    assert s["n"] == t["n"] and s["n"].quick == 12
    assert s["p_values"].item == dataclasses.replace(t["p"], quick=MISSING)
    assert s["p_values"].range_text() == "list of [1, 10000]"
    assert Sweep().p_values == (10, 20, 50)        # stored as a tuple: the dataclass stays hashable
    assert param_of(Toy, "n", default=8, quick=MISSING).default == 8
    with pytest.raises(ValueError, match="no declared parameter 'q'"):
        param_of(Toy, "q")


@pytest.mark.parametrize("value, expected", [("[10, 20]", (10, 20)), ([5], (5,)), ("- 3\n- 4\n", (3, 4))])
def test_list_parameters_accept_yaml_text(value, expected):
    assert Sweep(p_values=value).p_values == expected


@pytest.mark.parametrize("value, match", [
    ("[10, 0]", r"p_values\[1\] must be an integer in \[1, 10000\], got 0"),
    (10, r"p_values must be a list such as \[1, 2\]"),
    ("[]", "at least 1 element"),
])
def test_list_items_are_checked_with_the_fields_range(value, match):
    with pytest.raises(ParamError, match=match) as exc:
        Sweep(p_values=value)
    assert exc.value.name == "p_values"
    with pytest.raises(ParamError, match=r"splits\[0\] must be one of \['even', 'lp'\]"):
        Sweep(splits=["LP"])


def test_describe_lists_every_parameter_with_range_unit_and_quick_value():
    text = Toy.describe()
    assert "| `duration_s` | 600.0 |  | (0, inf) | s |  | period |" in text
    assert "| `n` | 60 |  | [2, 10000] |  | 12 | workers |" in text
    assert "| `k` | 4 |  | [0, inf) or inf |" in text
    assert "| `m` | 2 |  | even numbers >= 0 |" in text
    assert len(text.splitlines()) == 2 + len(specs(Toy))


def test_param_list_needs_exactly_one_item_source():
    with pytest.raises(ValueError, match="exactly one"):
        param_list([1])
    with pytest.raises(ValueError, match="item spec"):
        check_param("x", 1, dataclasses.replace(specs(Toy)["n"], kind="list"))


def test_words_are_values_besides_the_kinds():
    @dataclasses.dataclass(frozen=True)
    class Mu(ScenarioBase):
        mu: float = param(1.0, lo=0.0, lo_open=True, words=("1/p",), help="ratio")

    assert Mu(mu="1/p").mu == "1/p" and Mu(mu=2).mu == 2.0
    assert specs(Mu)["mu"].range_text() == "(0, inf) or 1/p"
    for bad in ("1/n", 0.0):
        with pytest.raises(ParamError, match=rf"mu must be in \(0, inf\) or 1/p, got {bad!r}"):
            Mu(mu=bad)


# ------------------------------------------------------------------ parameter groups, inf, list items
@dataclasses.dataclass(frozen=True)
class Knobs(ScenarioBase):
    eta: float = param(0.3, lo=0.0, hi=1.0, hi_open=True, help="tolerance", stated="Table II")
    rule: str = param("text", choices=("text", "code"), help="reading")

    def check(self):
        if self.rule == "code" and self.eta > 0.5:
            raise ParamError("eta", f"eta must be <= 0.5 with rule 'code', got {self.eta}")


@dataclasses.dataclass(frozen=True)
class Run(ScenarioBase):
    n: int = param(10, lo=2, help="workers", quick=4)
    knobs: Knobs = param_group(Knobs)

    def check(self):
        if self.knobs.rule == "code" and self.n > 100:
            raise ParamError("rule", f"rule 'code' needs n <= 100, got {self.n}")


def test_a_groups_parameters_are_the_scenarios_by_their_flat_names():
    assert list(specs(Run)) == ["n", "eta", "rule"] and specs(Run)["eta"] == specs(Knobs)["eta"]
    assert defaults(Run) == {"n": 10, "eta": 0.3, "rule": "text"} and groups(Run) == {"knobs": Knobs}
    r = Run.from_params({"n": 5, "eta": 0.1})
    assert r.knobs == Knobs(eta=0.1) and r.n == 5
    assert r.to_params() == {"n": 5, "eta": 0.1, "rule": "text"} and Run.from_params(r.to_params()) == r
    assert Run() == Run(knobs=Knobs()) and "| `eta` | 0.3 | paper: Table II | [0, 1) |" in Run.describe()
    assert param_of(Run, "eta", default=0.2).default == 0.2


@pytest.mark.parametrize("params, name, match", [
    ({"eta": 1.0}, "eta", r"eta must be in \[0.0, 1.0\)"),                   # the group's range
    ({"eta": 0.7, "rule": "code"}, "eta", "with rule 'code'"),              # the group's own rule
    ({"n": 200, "rule": "code"}, "rule", "needs n <= 100"),                  # the rule across the groups
    ({"knobs": Knobs()}, "knobs", r"unknown scenario parameter\(s\) \['knobs'\]"),   # flat keys only
    ({"etta": 0.1}, "etta", "unknown"),
])
def test_group_errors_name_the_flat_parameter(params, name, match):
    with pytest.raises(ParamError, match=match) as exc:
        Run.from_params(params)
    assert exc.value.name == name


def test_a_group_must_be_its_declared_class_and_names_unique():
    with pytest.raises(ParamError, match="knobs must be a Knobs") as exc:
        Run(knobs={"eta": 0.1})
    assert exc.value.name == "knobs"

    @dataclasses.dataclass(frozen=True)
    class Twice(ScenarioBase):
        eta: float = param(0.1, help="again")
        knobs: Knobs = param_group(Knobs)

    with pytest.raises(ValueError, match="'eta' is declared twice"):
        specs(Twice)
    with pytest.raises(ValueError, match="must be a ScenarioBase dataclass"):
        param_group(dict)


def test_a_closed_infinite_upper_bound_admits_inf_and_only_then():
    @dataclasses.dataclass(frozen=True)
    class Th(ScenarioBase):
        theta: float = param(1.0, lo=0.0, hi=math.inf, help="never waits at inf")
        rate: float = param(1.0, lo=0.0, help="finite")

    assert Th(theta=math.inf).theta == math.inf and specs(Th)["theta"].range_text() == "[0, inf]"
    with pytest.raises(ParamError, match="rate must be a finite real"):
        Th(rate=math.inf)
    with pytest.raises(ParamError, match="theta must be a finite real"):
        Th(theta=math.nan)


def test_check_items_names_the_list_and_the_item():
    check_items("p_values", [10, 20], lambda q: Toy(n=30, p=q))
    with pytest.raises(ParamError, match=r"^p_values\[1\]: p must be in \[1, n = 30\], got 40$") as exc:
        check_items("p_values", [10, 40, 50], lambda q: Toy(n=30, p=q))
    assert exc.value.name == "p_values"


def test_a_default_is_stated_by_the_paper_or_chosen_here_not_both():
    from simlib.papers.contract import ParamSpec

    assert ParamSpec("float", "slot", stated="Table II").source == "paper: Table II"
    assert ParamSpec("float", "slot", chosen="E2").source == "chosen: E2"
    assert ParamSpec("float", "slot").source == ""
    with pytest.raises(ValueError, match="not both"):
        ParamSpec("float", "slot", stated="Table II", chosen="E2")
    with pytest.raises(ValueError, match="must name the decision entry"):
        ParamSpec("float", "slot", chosen="a guess")

    @dataclasses.dataclass(frozen=True)
    class Chosen(ScenarioBase):
        a: float = param(1.0, help="stated", stated="§IV")
        b: float = param(0.1, help="chosen", unit="s", chosen="E2")
    assert Chosen.chosen() == {"b": "E2"}
    assert "| `b` | 0.1 | chosen: E2 |" in Chosen.describe()


def test_param_of_keeps_the_source_of_the_same_default_and_drops_it_for_another():
    @dataclasses.dataclass(frozen=True)
    class Src(ScenarioBase):
        n: int = param(200, lo=2, help="workers", stated="§IV-A1")
        dt: float = param(0.1, lo=0.0, help="slot", chosen="E2")

    @dataclasses.dataclass(frozen=True)
    class Spec(ScenarioBase):
        same: int = param_of(Src, "n", quick=10)
        other: int = param_of(Src, "n", default=8)
        other_stated: int = param_of(Src, "n", default=8, stated="002 §5.2")
        restated: float = param_of(Src, "dt", stated="§II-D")
        items: tuple = param_list([40, 80], of=(Src, "n"), stated="Fig. 5")
        plain: tuple = param_list([0.1], of=(Src, "dt"))

    s = specs(Spec)
    assert (s["same"].stated, s["same"].chosen) == ("§IV-A1", None)
    assert (s["other"].stated, s["other"].chosen) == (None, None)
    assert (s["other_stated"].stated, s["restated"].stated, s["restated"].chosen) == ("002 §5.2", "§II-D", None)
    assert s["items"].source == "paper: Fig. 5" and s["items"].item.source == ""
    assert s["plain"].source == "" and s["plain"].item.source == ""


def test_a_groups_parameter_passed_flat_says_where_it_belongs():
    """Scenario(n=40, eta=0.3) used to fail with the dataclass's bare TypeError."""
    from simlib.papers.cluster_scenario import Scenario
    from simlib.papers.selective_reduce.scenario import SelectiveReduceParams

    with pytest.raises(TypeError, match=r"unexpected keyword argument 'eta': it is a parameter of the group "
                                        r"'selective' \(SelectiveReduceParams\); pass selective="
                                        r"SelectiveReduceParams\(eta=\.\.\.\) or use Scenario\.from_params"):
        Scenario(n=40, eta=0.3)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'bogus'; its fields are \['scheme', 'n'"):
        Scenario(n=40, bogus=1)
    # the two ways the message names both work
    assert Scenario(n=40, selective=SelectiveReduceParams(eta=0.2)) == Scenario.from_params({"n": 40, "eta": 0.2})


def test_the_work_guard_estimates_by_hand_and_refuses_at_its_bounds():
    """E20: iterations = n duration / (mean compute + 2 (g - 1)(alpha + v / (g b_max))), rounds = duration / dt."""
    from simlib.core.units import MB
    from simlib.papers import cluster_scenario as cs
    from simlib.papers.contract import ParamError

    sc = cs.Scenario.from_params(dict(scheme="allreduce", n=10, duration_s=50.0, compute_mean_s=2.0, alpha_s=0.01,
                                      model_mb=100.0, bandwidth_gbps=10.0))
    sync = 2 * 9 * (0.01 + 100 * MB / (10 * 10e9))
    assert sc.work() == pytest.approx((10 * 50.0 / (2.0 + sync), 0.0, 2.0, sync))
    sc = cs.Scenario.from_params(dict(scheme="selective", n=10, p=0.3, duration_s=50.0, dt_s=0.5, alpha_s=0.0,
                                      model_mb=1.0, compute_mean_s=1.0))
    g = 3                                                       # round(0.3 * 10); b_max: 000's 20 Gbps
    assert sc.work()[1] == 100.0 and sc.work()[3] == pytest.approx(2 * (g - 1) * MB / (g * 20e9))
    assert cs.Scenario.from_params(dict(scheme="ps-asp", n=10, compute_mean_s=1.0)).work()[3] == 0.0
    # at the bounds: exactly MAX passes, just past it is refused by name
    edge = 100.0 / cs.MAX_CONTROLLER_ROUNDS
    cs.Scenario.from_params(dict(scheme="selective", duration_s=100.0, dt_s=edge))
    with pytest.raises(ParamError, match=r"dt_s must be at least duration_s / 1e\+08 = 1e-06 s") as exc:
        cs.Scenario.from_params(dict(scheme="selective", duration_s=100.0, dt_s=edge * 0.99))
    assert exc.value.name == "dt_s"
    mean = 2 * 100.0 / cs.MAX_ITERATIONS                       # ps-asp: no sync term, n = 2
    cs.Scenario.from_params(dict(scheme="ps-asp", n=2, duration_s=100.0, compute_mean_s=mean))
    with pytest.raises(ParamError, match=r"about 1\.01e\+08 iterations") as exc:
        cs.Scenario.from_params(dict(scheme="ps-asp", n=2, duration_s=100.0, compute_mean_s=mean * 0.99))
    assert exc.value.name == "compute_mean_s"
