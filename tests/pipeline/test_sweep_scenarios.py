"""Scenario objects as sweep settings (issue 35): run_sweep hands a scenario setting to the trial as it
is (built and checked once, by the caller), its columns and cache key are its ``to_params()``, so a
scenario and the equal dict share one cache entry; dict settings keep their keys."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

from simlib.papers.contract import ParamError, ScenarioBase, param
from simlib.papers.trial import Trial, trial_keyed_by, trial_of
from simlib.pipeline import sweep
from simlib.pipeline.sweep import Executor, run_sweep

RECEIVED: list = []     # (type name, x) of every call of scenario_fn in this process
CHECKS: list = []       # every Toy whose check() ran in this process


@dataclasses.dataclass(frozen=True)
class Toy(ScenarioBase):
    x: int = param(1, lo=0, help="a count")
    scale: float = param(1.0, lo=0.0, lo_open=True, help="a factor")

    def check(self):
        CHECKS.append(self)
        if self.x > 100 * self.scale:
            raise ParamError("x", f"x must be in [0, 100 scale = {100 * self.scale:g}], got {self.x}")


def scenario_fn(params, rng_seed):
    """A trial that takes a Toy or its flat dict (``Toy.of``) and reports a draw scaled by the setting."""
    toy = Toy.of(params)
    RECEIVED.append((type(params).__name__, toy.x))
    return {"y": toy.x * toy.scale * float(np.random.default_rng(rng_seed).random())}


@trial_keyed_by(lambda params: Toy.of(params).to_params())
def keyed_fn(params, rng_seed):
    return scenario_fn(params, rng_seed)


def _sweep(fn, settings, cache, **kw):
    RECEIVED.clear()
    return run_sweep(fn, settings, 2, executor="serial", progress=False, cache_dir=cache, **kw)


def test_a_scenario_setting_reaches_the_trial_as_it_is_and_flat_in_the_frame(tmp_path):
    toys = [Toy(x=2), Toy(x=3, scale=2.0)]
    CHECKS.clear()
    df = _sweep(scenario_fn, toys, None)
    assert RECEIVED == [("Toy", 2), ("Toy", 2), ("Toy", 3), ("Toy", 3)]
    assert CHECKS == []                                  # the trial built no scenario: it got the caller's
    assert list(df.columns) == ["x", "scale", "trial", "y"]
    ref = _sweep(scenario_fn, [t.to_params() for t in toys], None)     # the same runs as dicts
    assert RECEIVED == [("dict", 2), ("dict", 2), ("dict", 3), ("dict", 3)]
    pd.testing.assert_frame_equal(df, ref, check_exact=True)
    assert df.y.iloc[2] == pytest.approx(2 * 3 / 2 * df.y.iloc[0])    # paired draws: same u per trial


@pytest.mark.parametrize("fn", [scenario_fn, keyed_fn], ids=["plain", "Trial"])
def test_a_scenario_and_the_equal_dict_share_one_cache_entry(tmp_path, fn):
    first = _sweep(fn, [Toy(x=4, scale=0.5)], tmp_path)
    assert len(RECEIVED) == 2 and len(list(tmp_path.glob("*.json"))) == 2
    again = _sweep(fn, [{"x": 4, "scale": 0.5}], tmp_path)
    assert RECEIVED == [] and len(list(tmp_path.glob("*.json"))) == 2          # both trials from the cache
    pd.testing.assert_frame_equal(first, again, check_exact=True)
    assert _sweep(fn, [{"scale": 0.5, "x": 4}], tmp_path).y.tolist() == first.y.tolist() and RECEIVED == []
    if fn is keyed_fn:          # a Trial fills the defaults in: {"x": 4} is Toy(x=4, scale=1.0)
        _sweep(fn, [Toy(x=4)], tmp_path)
        assert len(RECEIVED) == 2
        _sweep(fn, [{"x": 4}], tmp_path)
        assert RECEIVED == []
    record = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert record["params"] in ({"x": 4, "scale": 0.5}, {"x": 4, "scale": 1.0})


def test_a_dict_settings_cache_key_is_the_dict_as_given():
    """Dict settings keep the key they had before scenario settings existed: the canonical JSON of the
    dict as given (plain fn) or of ``fn.cache_params(dict)`` (a Trial), whatever the dict leaves out."""
    canon = sweep._canonical_json({"x": 4}, "s")
    assert sweep._key_params(scenario_fn, {"x": 4}, canon, True) == '{"x":4}'
    assert sweep._key_params(keyed_fn, {"x": 4}, canon, True) == '{"scale":1.0,"x":4}'
    assert sweep._key_params(keyed_fn, {"x": 4}, canon, False) == '{"x":4}'     # unpaired: as given


def test_the_paper_trials_key_a_scenario_as_its_equal_dict():
    """The cluster and SSP trials (Trials): a Scenario, the dict of its parameters and a partial dict
    naming the same run give one cache key."""
    from simlib.papers import cluster_scenario as cs
    from simlib.papers.selmcast import ssp_scenario as ssp

    for mod, cls, given in ((cs, cs.Scenario, {"scheme": "partial", "n": 12, "p": 0.25}),
                            (ssp, ssp.SSPScenario, {"scheme": "orpheus", "n": 10})):
        sc = cls.from_params(given)
        keys = {sweep._key_params(mod.run_trial, s, sweep._canonical_json(p, "s"), True)
                for s, p in ((sc, sc.to_params()), (sc.to_params(), sc.to_params()), (given, given))}
        assert len(keys) == 1, keys


def test_unpaired_seeds_of_a_scenario_are_its_equal_dicts():
    a = _sweep(scenario_fn, [Toy(x=5)], None, paired=False)
    b = _sweep(scenario_fn, [{"x": 5, "scale": 1.0}], None, paired=False)
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_scenario_settings_run_in_worker_processes(tmp_path):
    toys = [Toy(x=1), Toy(x=2)]
    serial = run_sweep(scenario_fn, toys, 2, executor="serial", progress=False)
    pool = run_sweep(scenario_fn, toys, 2, executor=Executor("processes", workers=2), progress=False)
    pd.testing.assert_frame_equal(serial, pool, check_exact=True)


@pytest.mark.parametrize("settings, match", [
    ([Toy(x=1), {"x": 1, "scale": 1.0}], r"settings\[1\] duplicates settings\[0\]"),
    ([Toy(x=1), 3], r"settings\[1\] must be a dict or a scenario"),
])
def test_scenario_settings_are_validated_like_dicts(settings, match):
    with pytest.raises(ValueError, match=match):
        run_sweep(scenario_fn, settings, 1, executor="serial", progress=False)


def test_columns_name_a_scenario_setting_as_the_dict_it_was_built_from(tmp_path):
    """``columns``: the frame shows each setting as the caller's dict (its keys, its values as given,
    blanks where a dict leaves a key out) while the trial still gets the scenario and the cache key is
    the scenario's, so the frame equals the dict sweep's and the cache is shared."""
    dicts = [{"x": 2}, {"x": 3, "scale": 2}]
    CHECKS.clear()
    toys = [Toy.of(d) for d in dicts]
    assert len(CHECKS) == 2
    df = _sweep(keyed_fn, toys, tmp_path, columns=dicts)
    assert [r[0] for r in RECEIVED] == ["Toy"] * 4 and len(CHECKS) == 2     # no scenario built again
    ref = _sweep(keyed_fn, dicts, tmp_path)
    assert RECEIVED == []                                                    # the dict sweep found them cached
    pd.testing.assert_frame_equal(df, ref, check_exact=True)
    assert list(df.columns) == list(ref.columns) == ["x", "scale", "trial", "y"]
    assert df.scale.isna().tolist() == [True, True, False, False] and df.scale.iloc[2] == 2


def test_columns_keep_the_dicts_duplicate_rule_and_the_settings_seeds():
    # {} and {"x": 1} name one Toy: as dicts they are two settings (two rows each), and so labelled
    df = _sweep(scenario_fn, [Toy(), Toy()], None, columns=[{}, {"x": 1}])
    ref = _sweep(scenario_fn, [{}, {"x": 1}], None)
    pd.testing.assert_frame_equal(df, ref, check_exact=True)
    with pytest.raises(ValueError, match=r"settings\[1\] duplicates settings\[0\]"):
        _sweep(scenario_fn, [Toy(x=1), Toy(x=2)], None, columns=[{}, {}])    # the frame could not tell them apart
    # unpaired seeds hash the setting itself, not its columns
    a = _sweep(scenario_fn, [Toy(x=5)], None, paired=False, columns=[{"x": 5}])
    b = _sweep(scenario_fn, [Toy(x=5)], None, paired=False)
    assert a.y.tolist() == b.y.tolist()


@pytest.mark.parametrize("columns, match", [
    ([{"x": 2}], r"columns\[0\] gives x = 2, but settings\[0\] has x = 1"),
    ([{"y": 1}], r"columns\[0\] names 'y', which is not a parameter of settings\[0\]"),
    ([{"x": 1}, {"x": 1}], r"one dict per setting \(1\)"),
    ([3], r"columns\[0\] must be a dict"),
])
def test_columns_must_name_their_settings(columns, match):
    with pytest.raises(ValueError, match=match):
        run_sweep(scenario_fn, [Toy(x=1)], 1, executor="serial", progress=False, columns=columns)


@trial_of(Toy)
def toy_trial(params, rng_seed):
    """A Trial that takes Toy settings: the sweep builds each dict setting once."""
    return scenario_fn(params, rng_seed)


def test_a_trial_of_a_setting_class_gets_each_dict_built_once_before_anything_runs(tmp_path):
    """``@trial_of(Toy)``: every dict setting is built (so checked) once, however many trials; the trial
    receives the Toy; the frame shows the dicts as given; the cache key fills the defaults in."""
    dicts = [{"x": 2}, {"x": 3, "scale": 2}]
    CHECKS.clear()
    df = _sweep(toy_trial, dicts, tmp_path)
    assert len(CHECKS) == 2                                             # one build per setting, not per trial
    assert [r[0] for r in RECEIVED] == ["Toy"] * 4
    ref = _sweep(scenario_fn, dicts, None)                              # a plain function given the dicts
    pd.testing.assert_frame_equal(df, ref, check_exact=True)            # same columns, same metrics
    _sweep(toy_trial, [{"x": 2, "scale": 1.0}, Toy(x=3, scale=2.0)], tmp_path)
    assert RECEIVED == []                                               # the same runs: cached under one key
    record = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert set(record["params"]) == {"x", "scale"}


def test_a_trial_of_a_setting_class_rejects_a_bad_setting_by_index_and_name_before_running(tmp_path):
    RECEIVED.clear()
    with pytest.raises(ParamError, match=r"settings\[1\]: x must be in \[0, 100 scale = 50\]") as err:
        run_sweep(toy_trial, [{"x": 1}, {"x": 60, "scale": 0.5}], 1, executor="serial", progress=False,
                  cache_dir=tmp_path / "cache")
    assert err.value.name == "x"
    assert RECEIVED == [] and not (tmp_path / "cache").exists()        # nothing ran, nothing was written
    with pytest.raises(ValueError, match=r"settings\[0\] must be a dict or a Toy"):
        run_sweep(toy_trial, [3], 1, executor="serial", progress=False)


def test_trial_arguments_are_checked():
    with pytest.raises(ValueError, match="setting must be None or a class"):
        Trial(scenario_fn, setting=3)
    with pytest.raises(ValueError, match="give a cache_params rule, a setting class, or both"):
        Trial(scenario_fn)
    with pytest.raises(ValueError, match="example must be None or a dict of parameters"):
        trial_of(Toy, example=[("x", 7)])(scenario_fn)
    assert trial_of(Toy, example={"x": 7})(scenario_fn).example == {"x": 7} and toy_trial.example is None
    assert toy_trial.cache_params({"x": 7}) == {"x": 7, "scale": 1.0}
    assert toy_trial.build({"x": 7}) == Toy(x=7) and toy_trial.build(Toy(x=7)) == Toy(x=7)


def test_the_paper_trials_take_their_scenario_classes():
    """Every sweep trial of the papers and the training harness names its setting class, so a notebook's
    dict settings are built once by the sweep (issue 35)."""
    from simlib.papers import cluster_scenario as cs
    from simlib.papers.fmreduce import scenario as fm
    from simlib.papers.partial_reduce.experiments import mixing
    from simlib.papers.selective_reduce.experiments import ring_check
    from simlib.papers.selmcast import experiments as bsp
    from simlib.papers.selmcast import ssp_scenario as ssp
    from simlib.training import nine_systems as ns
    from simlib.training import selmcast_ssp_tta as ssp_tta
    from simlib.training import statistical_evidence as se
    from simlib.training import time_to_accuracy as tta

    expected = {cs.run_trial: cs.Scenario, mixing.trial: cs.Scenario, fm.run_trial: fm.Scenario,
                ssp.run_trial: ssp.SSPScenario, ring_check.trial: ring_check.RingCheck,
                ns.trial: ns.SystemSetting, ns.per_update_trial: ns.SystemSetting,
                se.staleness_trial: ns.SystemSetting, tta.trial: tta.TrainedScenario,
                ssp_tta.trial: ssp_tta.TrainedSSPScenario, bsp.bsp_trial: bsp.BSPTrialSetting,
                bsp.milp_trial: bsp.MILPTrialSetting, bsp.random_selection_trial: bsp.RandomSelection}
    for fn, cls in expected.items():
        assert isinstance(fn, Trial) and fn.setting is cls, fn
