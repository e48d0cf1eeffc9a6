"""One conformance suite for every paper's scenarios and every sweep trial (review 4 §5, "a common
conformance suite"): what each paper used to test by hand, checked the same way for all of them, so a
fifth paper or a new trial is held to it by the test that finds it.

* every scenario class a paper registers: its defaults round-trip through ``to_params`` /
  ``from_params``, are JSON-serializable (the sweep cache's key) and are described (``describe()``);
* every :class:`~simlib.papers.trial.Trial` in ``simlib.papers`` and ``simlib.training`` (found by
  walking the modules, so a new one fails here until it carries a small ``example`` setting,
  ``@trial_of(..., example={...})``): its setting class round-trips, it returns flat scalars, the same
  seed gives the same metrics, a built setting and its dict give the same metrics and the same cache
  key, and another seed changes something.

:func:`check_scenario` and :func:`check_trial` are the checks, so a paper outside ``simlib`` (the
throwaway sixth paper of ``test_a_sixth_paper_registers_with_one_line``) is held to them too.
"""
from __future__ import annotations

import importlib
import json
import math
import pkgutil

import numpy as np
import pytest

import simlib.papers
import simlib.training
from simlib.papers import registry
from simlib.papers.contract import specs
from simlib.papers.trial import Trial

# Metrics that are wall-clock measurements: they differ between two runs of the same seed.
WALL_CLOCK = ("time_ms", "_time_s", "stage1_s", "stage2_s", "wall_s")


def _trials() -> dict:
    """Every module-level Trial below simlib.papers and simlib.training, by ``module:name``."""
    found = {}
    for package in (simlib.papers, simlib.training):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            module = importlib.import_module(info.name)
            for name, obj in vars(module).items():
                if isinstance(obj, Trial) and obj.__module__ == info.name:
                    found[f"{info.name}:{name}"] = obj
    return found


TRIALS = _trials()
SCENARIOS = sorted({cls for p in registry.PAPERS for cls in p.scenarios}, key=lambda c: (c.__module__, c.__qualname__))


def test_every_trial_carries_a_small_example_and_names_its_setting_class():
    assert len(TRIALS) >= 13
    missing = [name for name, t in TRIALS.items() if not t.example]
    assert not missing, f"sweep trials without a small example setting (@trial_of(..., example={{...}})): {missing}"
    assert all(t.setting is not None for t in TRIALS.values()), "every sweep trial names its setting class"


def test_each_papers_trials_are_found_in_its_package():
    found = {name for p in registry.PAPERS for name in registry.trials(p)}
    assert found == {name for name in TRIALS if name.startswith(tuple(p.package + "." for p in registry.PAPERS))}
    assert "simlib.papers.fmreduce.scenario:run_trial" in found


@pytest.mark.parametrize("cls", SCENARIOS, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_a_scenarios_defaults_round_trip_and_are_described(cls):
    check_scenario(cls)


def check_scenario(cls):
    """A scenario class's defaults round-trip through ``to_params`` / ``from_params``, are the sweep
    cache's JSON form and are described."""
    sc = cls()
    flat = sc.to_params()
    assert cls.from_params(flat) == sc and cls.of(sc) is sc
    assert json.loads(json.dumps(flat, allow_nan=False)) == flat        # the cache key's form
    table = cls.describe()
    assert all(f"`{name}`" in table or f"| {name} |" in table for name in specs(cls)), table


def _scalars(out: dict) -> None:
    assert isinstance(out, dict) and out
    for key, value in out.items():
        assert isinstance(key, str) and key
        assert value is None or isinstance(value, (bool, int, float, str, np.bool_, np.integer, np.floating)), \
            f"{key} = {value!r} is not a scalar"


def _same(a: dict, b: dict) -> bool:
    """Equal metrics (NaN equal to NaN), wall-clock measurements aside."""
    assert a.keys() == b.keys()
    for key in a:
        if any(key.endswith(w) for w in WALL_CLOCK):
            continue
        x, y = a[key], b[key]
        if isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
            continue
        if x != y:
            return False
    return True


@pytest.mark.parametrize("name", sorted(TRIALS))
def test_a_trial_is_deterministic_flat_and_takes_its_setting_or_the_dict(name):
    check_trial(TRIALS[name])


def check_trial(fn: Trial):
    """A sweep trial at its example setting: the setting round-trips and keys the cache as its dict does,
    the metrics are flat scalars, the same seed gives the same metrics (built setting or dict), another
    seed changes something."""
    given = fn.example
    setting = fn.build(given)
    assert isinstance(setting, fn.setting)
    assert fn.setting.from_params(setting.to_params()) == setting          # the setting round-trips
    key = fn.cache_params(given)
    assert key == fn.cache_params(setting) and json.loads(json.dumps(key, allow_nan=False)) == key
    a = fn(setting, np.random.SeedSequence(11))
    _scalars(a)
    assert _same(a, fn(setting, np.random.SeedSequence(11)))               # same seed, same metrics
    assert _same(a, fn(dict(given), np.random.SeedSequence(11)))           # a dict is built the same way
    others = [fn(setting, np.random.SeedSequence(s)) for s in (12, 13)]
    assert not all(_same(a, o) for o in others), "the seed changes nothing: is it used?"


# ------------------------------------------------------------------ a sixth paper, in a temporary directory
_XREDUCE = {
    "__init__.py": '"""A throwaway sixth paper (seed 005): a package and one line in PAPERS."""\n',
    "scenario.py": '''
from dataclasses import dataclass

import numpy as np

from simlib.papers.contract import ScenarioBase, param
from simlib.papers.trial import trial_of


@dataclass(frozen=True)
class Scenario(ScenarioBase):
    """n workers each drawing a compute time (s), exponential with mean 1 s, for duration_s seconds."""

    n: int = param(8, lo=1, help="workers")
    duration_s: float = param(10.0, lo=0.0, lo_open=True, unit="s", flag="--duration", help="time simulated")


@trial_of(Scenario, example={"n": 3, "duration_s": 2.0})
def run_trial(sc: Scenario, seed) -> dict:
    """Iterations each worker finishes within duration_s (the mean and the slowest's)."""
    sc = Scenario.of(sc)
    draws = np.random.default_rng(seed).exponential(1.0, size=(sc.n, 64)).cumsum(axis=1)
    done = (draws <= sc.duration_s).sum(axis=1)
    return {"mean_iterations": float(done.mean()), "min_iterations": int(done.min())}
''',
    "experiments.py": '''
from dataclasses import dataclass

from simlib.papers.contract import ScenarioBase, param, param_of

from .scenario import Scenario


@dataclass(frozen=True)
class DemoNotebook(ScenarioBase):
    """Notebook 50: iterations over n."""

    trials: int = param(3, lo=1, quick=1, help="trials per setting")
    n: int = param_of(Scenario, "n")
''',
    "paper.py": '''
from simlib.papers.contract import Command, Paper
from simlib.papers.scheme import Scheme

from .scenario import Scenario, run_trial

PAPER = Paper("005", "A Throwaway Sixth Paper (XReduce)", (Scenario,),
              (Scheme("xreduce", "005", "XReduce", "#999999", "o", Scenario),),
              (Command("xreduce", Scenario, run_trial, help="one XReduce run"),),
              package=__package__, short="XReduce",
              notebooks={"50_xreduce_demo": f"{__package__}.experiments:DemoNotebook"},
              exports={"XReduceScenario": f"{__package__}.scenario:Scenario"})
''',
}


def test_a_sixth_paper_registers_with_one_line(tmp_path, monkeypatch, capsys):
    """Issue 46: a new paper is its package plus one line in PAPERS.  The package below is written into a
    temporary directory; registering it (the one line) makes every list shared code used to keep by hand
    include it, and it passes the conformance checks above."""
    import argparse
    import sys

    import simlib
    from simlib.papers.cli_gen import add_command
    from simlib.pipeline import site

    (tmp_path / "xreduce").mkdir()
    for name, text in _XREDUCE.items():
        (tmp_path / "xreduce" / name).write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m == "xreduce" or m.startswith("xreduce.")]:
        monkeypatch.delitem(sys.modules, name)
    xreduce = importlib.import_module("xreduce.paper").PAPER

    monkeypatch.setattr(registry, "PAPERS", (*registry.PAPERS, xreduce))        # the one line

    assert registry.paper("005") is xreduce
    assert registry._schemes(registry.PAPERS)["xreduce"].paper == "005"
    from xreduce.experiments import DemoNotebook
    assert registry.resolve(registry.notebook_specs()["50_xreduce_demo"]) is DemoNotebook
    assert ("005", "XReduce (seed 005)", ("5",)) in registry.notebook_groups()
    assert site.group_of("50_xreduce_demo") == "005" and site.group_of("30_fmreduce_fig2") == "003"
    from xreduce.scenario import Scenario
    assert simlib._exports()["XReduceScenario"] == ("xreduce.scenario", "Scenario")
    assert registry.resolve("xreduce.scenario:Scenario") is Scenario
    assert "005" not in registry.fitted_marks()                                   # nothing of it is fitted

    # the conformance suite: its scenarios, and its trials found in its package, each at its example
    assert list(registry.trials(xreduce)) == ["xreduce.scenario:run_trial"]
    for cls in xreduce.scenarios:
        check_scenario(cls)
    for trial in registry.trials(xreduce).values():
        check_trial(trial)

    # its generated command runs
    parser = argparse.ArgumentParser()
    sub = add_command(parser.add_subparsers(), xreduce.commands[0])
    args = parser.parse_args(["xreduce", "--n", "4", "--duration", "3", "--json"])
    assert args.handler(args, sub) == 0
    assert json.loads(capsys.readouterr().out)["params"]["n"] == 4
