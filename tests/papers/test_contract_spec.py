"""Parameter declarations of the paper contract (simlib.papers.contract): ranges at their boundaries."""
import dataclasses

import pytest

from simlib.papers.contract import MISSING, ParamSpec, check_param, param, spec_of, specs


@dataclasses.dataclass(frozen=True)
class Toy:
    n: int = param(60, lo=2, hi=10_000, help="workers", quick=12)
    p: float = param(0.3, lo=0.0, hi=1.0, lo_open=True, help="fraction of n")
    k: int = param(4, kind="int", lo=0, none_means="inf", help="rounds")
    split: str = param("lp", choices=("even", "lp"), help="how the model is split")
    shared: bool = param(False, help="one x for both ports")
    other: int = 3


def test_specs_lists_declared_fields_in_order():
    s = specs(Toy)
    assert list(s) == ["n", "p", "k", "split", "shared"]
    assert s["n"].quick == 12 and s["p"].quick is MISSING
    assert spec_of(next(f for f in dataclasses.fields(Toy) if f.name == "other")) is None
    assert (s["n"].kind, s["p"].kind, s["split"].kind, s["shared"].kind) == ("int", "float", "str", "bool")


def test_param_passes_the_spec_fields_by_name_and_refuses_others():
    field = param(1.0, help="a time", unit="s", lo=0.0, hi=2.0, hi_open=True, flag="--t", words=["auto"])
    assert spec_of(field) == ParamSpec(kind="float", help="a time", unit="s", lo=0.0, hi=2.0, hi_open=True,
                                       flag="--t", words=("auto",))
    with pytest.raises(TypeError, match="'lo_opn'"):
        param(1.0, help="a time", lo_opn=True)
    with pytest.raises(TypeError, match="'item'"):       # a list is declared with param_list
        param((1,), kind="list", help="values", item=ParamSpec(kind="int", help="v"))


def test_range_text():
    s = specs(Toy)
    assert s["n"].range_text() == "[2, 10000]"
    assert s["p"].range_text() == "(0, 1]"
    assert s["k"].range_text() == "[0, inf) or inf"
    assert s["split"].range_text() == "{even, lp}"


@pytest.mark.parametrize("name, value, ok", [
    ("n", 2, True), ("n", 1, False), ("n", 10_000, True), ("n", 10_001, False), ("n", 2.5, False),
    ("p", 0.0, False), ("p", 1e-9, True), ("p", 1.0, True), ("p", 1.0000001, False),
    ("k", None, True), ("n", None, False), ("split", "lp", True), ("split", "LP", False),
    ("shared", True, True), ("shared", 1, True), ("shared", "yes", False),
])
def test_check_param_at_the_boundaries(name, value, ok):
    spec = specs(Toy)[name]
    if ok:
        check_param(name, value, spec)
    else:
        with pytest.raises(ValueError, match=name):
            check_param(name, value, spec)


def test_open_integer_bounds_become_closed_ones():
    s = param(1, lo=0, hi=5, lo_open=True, hi_open=True, help="x").metadata
    spec = next(iter(s.values()))
    assert check_param("x", 1, spec) == 1 and check_param("x", 4, spec) == 4
    for bad in (0, 5):
        with pytest.raises(ValueError, match=r"x must be an integer in \[1, 4\]"):
            check_param("x", bad, spec)


def test_kind_is_needed_for_a_none_default():
    with pytest.raises(ValueError, match="kind must be given"):
        param(None, help="x")
