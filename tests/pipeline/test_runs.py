"""simlib.pipeline.runs.run_scenarios: validation up front, one row per (setting, trial), the CSV."""
import pandas as pd
import pytest

from simlib.pipeline import paths
from simlib.pipeline import runs


@pytest.fixture
def tmp_data(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "CACHE", tmp_path / "cache")
    return tmp_path


def test_bad_setting_is_rejected_by_name_before_anything_runs(tmp_data, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("the sweep must not start")

    from simlib.pipeline import sweep

    monkeypatch.setattr(sweep, "_run_sweep", boom)       # the sweep itself builds every setting first
    good = dict(scheme="partial", n=4, duration_s=2.0)
    with pytest.raises(ValueError, match="eta"):
        runs.run_scenarios([good, dict(good, scheme="selective", eta=1.5)], trials=1, seed=0, name="x",
                           results_dir=tmp_data / "results", profile="quick")
    with pytest.raises(ValueError, match="bogus"):
        runs.run_scenarios([good, dict(good, bogus=1)], trials=1, seed=0, name="x",
                           results_dir=tmp_data / "results",
                           profile="quick")
    assert not (tmp_data / "results").exists() and not (tmp_data / "cache").exists()


@pytest.mark.parametrize("name", ["../x", "a/b", "..", ".hidden", "", "a\\b", 3])
def test_a_name_that_is_not_a_file_stem_is_refused_before_anything_runs(tmp_data, monkeypatch, name):
    """name="../x" wrote its CSV outside the run's results/."""
    from simlib.pipeline import sweep

    monkeypatch.setattr(sweep, "_run_sweep", lambda *a, **k: pytest.fail("the sweep must not start"))
    with pytest.raises(ValueError, match=r"name must be a file stem .*got "):
        runs.run_scenarios([dict(scheme="partial", n=4, duration_s=2.0)], trials=1, seed=0, name=name,
                           results_dir=tmp_data / "run" / "results", profile="quick")
    assert not (tmp_data / "run").exists() and not (tmp_data / "cache").exists()


def test_one_row_per_setting_and_trial_and_the_csv(tmp_data):
    settings = [dict(scheme="partial", n=6, p=0.5, duration_s=4.0, model_mb=10.0),
                dict(scheme="allreduce", n=6, p=0.5, duration_s=4.0, model_mb=10.0)]
    df = runs.run_scenarios(settings, trials=2, seed=3, name="tiny", results_dir=tmp_data / "results",
                            profile="quick")
    assert len(df) == 4
    assert list(df["scheme"]) == ["partial", "partial", "allreduce", "allreduce"]
    assert list(df["trial"]) == [0, 1, 0, 1]
    for col in ("avg_sync_time_s", "avg_sync_scale", "total_sync", "total_iteration", "wasted_wait_s_per_worker",
                "group_size", "controller_rounds"):
        assert col in df.columns
    assert list(df["group_size"]) == [3, 3, 3, 3]
    assert set(df.loc[df.scheme == "allreduce", "avg_sync_scale"]) == {6.0}
    assert set(df.loc[df.scheme == "partial", "avg_sync_scale"]) == {3.0}
    csv = pd.read_csv(tmp_data / "results" / "tiny.csv")
    pd.testing.assert_frame_equal(csv, df, check_dtype=False)
    # trials cached under the trial function's name (shared by every sweep that runs it)
    assert any((tmp_data / "cache" / "simlib.papers.cluster_scenario.run_trial").iterdir())


def test_scenario_objects_run_as_their_dicts_and_share_their_cache(tmp_data):
    """A Scenario setting (built and checked once, by the caller) gives its dict's metrics, with every
    parameter as a column, and finds the trials its dict spelling cached (one cache key)."""
    from simlib.papers.cluster_scenario import Scenario

    setting = dict(scheme="partial", n=6, p=0.5, duration_s=4.0, model_mb=10.0)
    by_dict = runs.run_scenarios([setting], trials=2, seed=3, name="d", profile="quick")
    cached = sorted((tmp_data / "cache").rglob("*.json"))
    by_scenario = runs.run_scenarios([Scenario.from_params(setting)], trials=2, seed=3, name="s", profile="quick")
    assert sorted((tmp_data / "cache").rglob("*.json")) == cached            # nothing new was computed
    assert list(by_scenario.columns[:len(Scenario().to_params())]) == list(Scenario().to_params())
    pd.testing.assert_frame_equal(by_scenario[by_dict.columns], by_dict, check_exact=True)


# settings as notebooks spell them: partial dicts (a key only some settings give, an int for a float
# parameter), so the frame has blanks and the values as given
SPELLED = [dict(scheme="partial", n=6, p=0.5, duration_s=4, model_mb=10),
           dict(scheme="selective", n=6, duration_s=4.0, model_mb=10.0, eta=0.5),
           dict(scheme="allreduce", n=6, p=0.5, duration_s=4.0, model_mb=10.0)]


def test_each_setting_is_built_once_and_the_trial_gets_it(tmp_data, monkeypatch):
    """Issue 35: run_scenarios builds each dict setting's Scenario once (before anything runs); the
    cache key and every trial use that object, so no Scenario is built from parameters again."""
    from simlib.papers.cluster_scenario import Scenario

    built = []
    original = Scenario.from_params

    def counting(cls, params):
        built.append(dict(params))
        return original(params)

    monkeypatch.setattr(Scenario, "from_params", classmethod(counting))
    df = runs.run_scenarios(SPELLED, trials=2, seed=1, name="once", results_dir=tmp_data / "results",
                            profile="quick")
    assert len(df) == 6 and built == SPELLED        # cold cache: 6 trials ran, 3 builds
    built.clear()
    runs.run_scenarios(SPELLED, trials=2, seed=1, name="once", results_dir=tmp_data / "results", profile="quick")
    assert built == SPELLED                         # from the cache: the same 3 builds, none for the keys


def test_the_csv_and_cache_entries_are_the_dict_paths(tmp_data, monkeypatch):
    """The built scenarios give byte for byte the CSV and the very cache entries of handing the dicts
    to the trial (which builds them itself): the dicts' columns, in their order, values as given."""
    scen = runs.run_scenarios(SPELLED, trials=2, seed=2, name="x", results_dir=tmp_data / "scen", profile="quick")
    monkeypatch.setattr(paths, "CACHE", tmp_data / "dict_cache")
    ref = runs.run_notebook_sweep(runs.run_trial, SPELLED, trials=2, seed=2, name="x",
                                  results_dir=tmp_data / "dicts", profile="quick")
    assert (tmp_data / "scen" / "x.csv").read_bytes() == (tmp_data / "dicts" / "x.csv").read_bytes()
    assert list(scen.columns[:6]) == ["scheme", "n", "p", "duration_s", "model_mb", "eta"]
    assert scen.p.isna().tolist() == [False, False, True, True, False, False]
    entries = {p.relative_to(tmp_data / "cache"): p.read_bytes() for p in (tmp_data / "cache").rglob("*.json")}
    ref_entries = {p.relative_to(tmp_data / "dict_cache"): p.read_bytes()
                   for p in (tmp_data / "dict_cache").rglob("*.json")}
    assert len(entries) == 6 and entries == ref_entries
    pd.testing.assert_frame_equal(scen, ref, check_exact=True)
