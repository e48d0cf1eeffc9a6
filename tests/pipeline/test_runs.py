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

    monkeypatch.setattr(runs, "run_notebook_sweep", boom)
    good = dict(scheme="partial", n=4, duration_s=2.0)
    with pytest.raises(ValueError, match="eta"):
        runs.run_scenarios([good, dict(good, scheme="selective", eta=1.5)], trials=1, seed=0, name="x",
                           results_dir=tmp_data / "results", profile="quick")
    with pytest.raises(ValueError, match="bogus"):
        runs.run_scenarios([good, dict(good, bogus=1)], trials=1, seed=0, name="x",
                           results_dir=tmp_data / "results",
                           profile="quick")
    assert not (tmp_data / "results").exists() and not (tmp_data / "cache").exists()


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
