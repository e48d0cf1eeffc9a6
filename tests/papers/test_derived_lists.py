"""Step one of issue 46 item 1: every list shared code keeps by hand equals the one derived from the
papers' declarations (``Paper.notebooks``, ``short``, ``exports``, ``fitted``, ``package``; each trial's
``example``).  The next commit drops the literals and derives them."""
import simlib
from simlib.papers import registry
from simlib.pipeline import claims, site
from tests.papers.test_conformance import SMALL, TRIALS
from tests.pipeline.test_notebook_contract import migrated


def test_the_notebook_to_spec_map_is_the_papers():
    assert {stem: registry.resolve(ref) for stem, ref in registry.notebook_specs().items()} == migrated()


def test_the_site_groups_are_the_papers():
    assert registry.notebook_groups() == site.GROUPS


def test_the_exports_are_the_papers():
    derived = registry.exports()
    assert {k: v for k, v in simlib._EXPORTS.items() if k in derived} == derived
    assert set(derived) == {"Scenario", "simulate", "run_trial", "FMReduceScenario", "fmreduce_trial", "BSPScenario",
                            "bsp_trial", "SSPScenario", "ssp_trial"}


def test_the_fitted_marks_are_the_papers():
    assert registry.fitted_marks() == claims.fitted_marks()


def test_the_packages_are_the_papers():
    assert {p.id: p.package for p in registry.PAPERS} == registry._PACKAGES


def test_each_trials_example_is_its_small_setting():
    assert {name: t.example for name, t in TRIALS.items()} == SMALL
    found = {name for p in registry.PAPERS for name in registry.trials(p)}
    assert found == {name for name in TRIALS if name.startswith(tuple(p.package + "." for p in registry.PAPERS))}
