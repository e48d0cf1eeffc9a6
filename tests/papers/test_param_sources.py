"""Every scenario parameter says where its default comes from (decision S20): stated by the paper
(``stated="§IV-A1"``) or chosen here (``chosen="E2"``, an entry of docs/decisions/*.md); docs/settings.md's
"Settings the papers leave open" tables are the declarations' (:func:`simlib.papers.registry.chosen_settings`)."""
from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import simlib.papers
import simlib.training
from simlib.papers import cluster_command, cluster_scenario, registry
from simlib.papers.contract import ScenarioBase, groups, specs
from simlib.papers.fmreduce import scenario as fmreduce_scenario
from simlib.papers.partial_reduce import scenario as pr_scenario
from simlib.papers.selmcast import bsp_scenario, ssp_scenario
from simlib.training import train_command

ROOT = Path(__file__).resolve().parents[2]

#: Parameters that only select what to run, with no value to state or choose: (class, name) -> why.
RUN_SELECTION = {
    (cluster_scenario.Scenario, "scheme"): "which scheme runs; every figure runs several",
    (pr_scenario.PartialReduceParams, "group_filter"): "switches 002 §4's group-frozen avoidance on (a variant)",
    (pr_scenario.WeightParams, "weights"): "constant or dynamic weights: 002 Table 1's CON and DYN rows",
    (cluster_command.RunOptions, "progress"): "a progress line on stderr, not a setting of the run",
    (fmreduce_scenario.Scenario, "mode"): "blocking or non-blocking: one of Fig. 2's variants",
    (bsp_scenario.BSPScenario, "layer"): "L3 or L7: every BSP figure runs both",
    (bsp_scenario.BSPOptions, "scheme"): "which selection runs on the instance",
    (ssp_scenario.SSPScenario, "scheme"): "SelMcast or Orpheus: every SSP figure runs both",
    (ssp_scenario.SSPScenario, "trace"): "one of the three workloads every SSP figure runs (§IV-A2)",
    (train_command.TrainScenario, "scheme"): "which system trains",
}


def _commands_classes():
    """Every scenario and run-options class of a generated command (the papers' and ``train``)."""
    commands = [c for p in registry.PAPERS for c in p.commands] + [train_command.TRAIN_COMMAND]
    classes = [cluster_scenario.Scenario, *(s for p in registry.PAPERS for s in p.scenarios)]
    classes += [c.scenario for c in commands] + [c.options for c in commands if c.options is not None]
    return list(dict.fromkeys(classes))


def _owner_of(cls, name):
    """The class whose own field (not a group's) declares ``name`` among ``cls`` and its groups."""
    for g in groups(cls).values():
        if name in specs(g):
            return _owner_of(g, name)
    return cls


def _decision_ids() -> set[str]:
    heading = re.compile(r"^#{2,3} ([A-Z]{1,3}\d{1,3})\.", re.M)
    return {m for f in (ROOT / "docs" / "decisions").glob("*.md") for m in heading.findall(f.read_text())}


def _all_spec_classes():
    """Every ScenarioBase dataclass in simlib.papers and simlib.training (scenarios, groups, options,
    notebook specs), each module imported."""
    for pkg in (simlib.papers, simlib.training):
        for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            importlib.import_module(m.name)

    def subclasses(c):
        for s in c.__subclasses__():
            yield s
            yield from subclasses(s)
    return [c for c in dict.fromkeys(subclasses(ScenarioBase)) if c.__module__.startswith("simlib.")]


def test_every_parameter_of_every_command_says_stated_or_chosen():
    missing = []
    for cls in _commands_classes():
        for name, spec in specs(cls).items():
            if not spec.source and (_owner_of(cls, name), name) not in RUN_SELECTION:
                missing.append(f"{cls.__module__}.{cls.__name__}.{name}")
    assert not missing, f"parameters without stated= or chosen= (decision S20): {missing}"


def test_the_run_selection_list_is_short_and_names_only_unsourced_parameters():
    assert len(RUN_SELECTION) <= 12
    for (cls, name), why in RUN_SELECTION.items():
        assert name in specs(cls) and why.strip()
        assert specs(cls)[name].source == "", f"{cls.__name__}.{name} has a source; take it off the list"


def test_every_chosen_id_is_a_decision_entry():
    ids = _decision_ids()
    assert {"E2", "SR12", "FM9", "SM68", "RP16", "S20"} <= ids       # both heading levels are read
    classes = _all_spec_classes()
    assert cluster_scenario.Scenario in classes and len(classes) > 20
    unknown = []
    for cls in classes:
        for name, spec in specs(cls).items():
            for s in (spec, spec.item):
                if s is not None and s.chosen is not None and s.chosen not in ids:
                    unknown.append(f"{cls.__name__}.{name}: {s.chosen}")
    assert not unknown, f"chosen= names no '## <ID>.' entry of docs/decisions/*.md: {unknown}"


def test_a_typo_in_a_chosen_id_would_be_caught():
    assert "E2" in _decision_ids() and "E92" not in _decision_ids()


def test_chosen_settings_lists_the_papers_own_choices():
    s000 = {c.parameter: c for c in registry.chosen_settings("000")}
    assert (s000["dt_s"].default, s000["dt_s"].decision) == (0.1, "E2")
    assert s000["compute_mean_s"].default == "stored"          # None shown as the word it stands for
    assert "ema_alpha" not in s000 and "hete_c" not in s000     # 002's groups of the shared run are 002's
    s002 = {c.parameter: c for c in registry.chosen_settings("002")}
    assert s002["ema_alpha"].decision == "PR2" and "dt_s" not in s002 and "compute_mean_s" in s002
    s004 = {c.parameter: c for c in registry.chosen_settings("004")}
    assert s004["shared_x"].declared_in == "BSPScenario, SSPScenario"
    assert {c.parameter for c in registry.chosen_settings("003")} >= {"duration_s", "trace", "lp_solver"}
    with pytest.raises(ValueError, match="paper must be one of"):
        registry.chosen_settings("001")


def test_stated_parameters_are_not_listed_as_chosen():
    stated = {name for _, name, _, s in registry.declared("000") if s.stated is not None}
    assert {"n", "model_mb", "eta", "theta"} <= stated
    assert not stated & {c.parameter for c in registry.chosen_settings("000")}


def _settings_page_section() -> str:
    text = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    start, end = "<!-- chosen-settings:start -->\n", "<!-- chosen-settings:end -->"
    assert start in text and end in text, "docs/settings.md lacks the generated chosen-settings block"
    return text[text.index(start) + len(start):text.index(end)]


def test_settings_page_lists_the_chosen_settings_as_declared():
    assert _settings_page_section() == registry.chosen_settings_markdown(), (
        "docs/settings.md ('Settings the papers leave open') differs from the declarations; regenerate it with "
        "python -c 'from simlib.papers.registry import chosen_settings_markdown as m; print(m(), end=\"\")'")
