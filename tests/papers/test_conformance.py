"""One conformance suite for every paper's scenarios and every sweep trial (review 4 §5, "a common
conformance suite"): what each paper used to test by hand, checked the same way for all of them, so a
fifth paper or a new trial is held to it by the test that finds it.

* every scenario class a paper registers: its defaults round-trip through ``to_params`` /
  ``from_params``, are JSON-serializable (the sweep cache's key) and are described (``describe()``);
* every :class:`~simlib.papers.trial.Trial` in ``simlib.papers`` and ``simlib.training`` (found by
  walking the modules, so a new one fails here until it has a small setting below): its setting
  class round-trips, it returns flat scalars, the same seed gives the same metrics, a built setting
  and its dict give the same metrics and the same cache key, and another seed changes something.
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

# One small, fast setting per sweep trial (module:name -> flat dict), each a run that does something.
SMALL = {
    "simlib.papers.cluster_scenario:run_trial": {"scheme": "partial", "n": 6, "duration_s": 5.0},
    "simlib.papers.partial_reduce.experiments.mixing:trial": {"scheme": "partial", "n": 6, "duration_s": 5.0},
    "simlib.papers.selective_reduce.experiments.ring_check:trial": {"n": 8, "m": 2, "groups": 2, "model_mb": 10.0},
    "simlib.papers.fmreduce.scenario:run_trial": {"n": 6, "p": 3, "duration_s": 10.0, "model_mb": 20.0},
    "simlib.papers.selmcast.ssp_scenario:run_trial": {"n": 6, "duration_s": 10.0, "model_mb": 20.0},
    "simlib.papers.selmcast.experiments:bsp_trial": {"n": 10, "schemes": ["orpheus", "selmcast"]},
    "simlib.papers.selmcast.experiments:milp_trial": {"n": 6, "time_limit_s": 10.0},
    "simlib.papers.selmcast.experiments:random_selection_trial": {"n": 10, "p": 3, "rounds": 2},
    "simlib.training.time_to_accuracy:trial": {"scheme": "partial", "n": 4, "duration_s": 4.0},
    "simlib.training.selmcast_ssp_tta:trial": {"n": 4, "duration_s": 4.0, "model_mb": 20.0},
    "simlib.training.nine_systems:trial": {"scheme": "partial", "n": 4, "p": 2, "duration_s": 4.0},
    "simlib.training.nine_systems:per_update_trial": {"scheme": "ps-asp", "n": 4, "duration_s": 4.0},
    "simlib.training.nine_systems:staleness_trial": {"scheme": "ps-asp", "n": 4, "duration_s": 4.0},
}
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


def test_every_trial_has_a_small_setting_here():
    assert set(TRIALS) == set(SMALL), ("a sweep trial without a small setting in SMALL (add one), or a "
                                       f"setting for a trial that is gone: {set(TRIALS) ^ set(SMALL)}")
    assert all(t.setting is not None for t in TRIALS.values()), "every sweep trial names its setting class"


@pytest.mark.parametrize("cls", SCENARIOS, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_a_scenarios_defaults_round_trip_and_are_described(cls):
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


@pytest.mark.parametrize("name", sorted(SMALL))
def test_a_trial_is_deterministic_flat_and_takes_its_setting_or_the_dict(name):
    fn, given = TRIALS[name], SMALL[name]
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
