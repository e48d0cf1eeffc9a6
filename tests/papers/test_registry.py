"""The registry (simlib.papers.registry): every paper's contract, every scheme once, every generated
command on the command line with each flag's range and unit from its scenario."""
import dataclasses

import pytest

from simlib.cli import build_parser
from simlib.papers import registry
from simlib.papers.cli_gen import flag_of
from simlib.papers.contract import Paper, ScenarioBase, specs
from simlib.papers.scheme import Scheme


def test_papers_are_listed_once_with_their_schemes():
    ids = [p.id for p in registry.PAPERS]
    # the four seeds rebuilt here, in seed order, each once; a new paper adds itself, not a line here (issue 46)
    assert {"000", "002", "003", "004"} <= set(ids) and ids == sorted(set(ids))
    for p in registry.PAPERS:
        assert p.schemes and all(registry.scheme(s.name) is s and s.paper == p.id for s in p.schemes)
        assert all(dataclasses.is_dataclass(c) for c in p.scenarios)
    assert {s.name for p in registry.PAPERS for s in p.schemes} == set(registry.SCHEMES)
    assert registry.paper("003").commands[0].name == "fmreduce"
    with pytest.raises(ValueError, match="paper must be one of"):
        registry.paper("999")
    with pytest.raises(ValueError, match="scheme must be one of"):
        registry.scheme("gossip")


def test_a_scheme_name_registered_by_two_papers_is_refused():
    a = Scheme("x", "005", "X", "#000000", "o", ScenarioBase)
    b = dataclasses.replace(a, paper="006")
    assert registry._schemes([Paper("005", "t", (), (a,))]) == {"x": a}
    with pytest.raises(ValueError, match="'x' is registered by two papers"):
        registry._schemes([Paper("005", "t", (), (a,)), Paper("006", "t", (), (b,))])


def test_a_papers_chains_must_list_each_of_its_notebooks_once():
    nbs = {"50_a": "m:A", "51_b": "m:B", "52_c": "m:C"}
    ok = Paper("005", "t", (), (), notebooks=nbs, chains={"x": ("50_a", "52_c"), "y": ("51_b",)})
    assert registry.notebook_chains([ok, Paper("006", "t", (), (), notebooks={"60_d": "m:D"})]) == {
        "50_a": "005 x", "52_c": "005 x", "51_b": "005 y"}
    for chains, word in [({"x": ("50_a", "52_c")}, "missing \\['51_b'\\]"),
                         ({"x": ("50_a", "51_b", "52_c", "53_d")}, "unknown \\['53_d'\\]"),
                         ({"x": ("50_a", "51_b"), "y": ("51_b", "52_c")}, "twice \\['51_b'\\]")]:
        with pytest.raises(ValueError, match=word):
            registry.notebook_chains([dataclasses.replace(ok, chains=chains)])


COMMANDS = [c for p in registry.PAPERS for c in p.commands]


@pytest.mark.parametrize("command", COMMANDS, ids=[c.name for c in COMMANDS])
def test_generated_help_lists_every_flag_with_its_range_and_unit(command, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "10000")      # argparse wraps help lines at hyphens ("bytedance- ar") otherwise
    with pytest.raises(SystemExit):
        build_parser().parse_args([command.name, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    declared = {**specs(command.scenario), **(specs(command.options) if command.options else {})}
    for name, spec in declared.items():
        if name in command.exclude:
            assert f"{flag_of(name, spec)} " not in text
            continue
        assert f"{flag_of(name, spec)} " in text
        if spec.choices is None:
            assert f"{spec.range_text()}{' ' + spec.unit if spec.unit else ''}, default" in text, name


def test_every_fmreduce_variant_belongs_to_a_registered_family():
    from collections import Counter

    from simlib.papers.fmreduce.scenario import VARIANTS, variant_label, variant_scheme

    families = {variant_label(**v): variant_scheme(**v) for v in VARIANTS}
    assert Counter(families.values()) == {"fm-nb": 4, "fm-b": 4, "pr-b": 4}
    prefix = {"fm-nb": "FM NB ", "fm-b": "FM B ", "pr-b": "PR B "}
    assert all(label.startswith(prefix[f]) and registry.scheme(f).paper == "003" for label, f in families.items())


def test_the_command_000_and_002_share_is_registered_once(capsys):
    assert registry.paper("000").commands == registry.paper("002").commands
    assert [c.name for c in registry.paper("000").commands] == ["run"]
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.strip().startswith("run ")]
    assert listed == ["run"]
