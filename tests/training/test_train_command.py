"""``python -m simlib train`` (simlib.training.train_command): every system of 002 Table 1 plus selective
reduce, trained on the simulated cluster; its JSON output; bad values exit 2 naming the flag."""
import json

import pytest

from simlib import cli
from simlib.papers.cli_gen import flag_of
from simlib.papers.contract import specs
from simlib.training.train_command import TRAIN_SCHEMES, TrainScenario

QUICK = ["--problem", "digits", "--model", "softmax", "--lr", "0.1", "--data", "iid", "--duration", "20",
         "--model-mb", "10", "--target-acc", "0.8"]


def train(capsys, *args):
    assert cli.main(["train", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("scheme", TRAIN_SCHEMES)
def test_every_system_trains_and_prints_the_table_1_metrics(scheme, capsys):
    out = train(capsys, "--scheme", scheme, "--n", "8", "--hl", "3", "--p", "3", "--seed", "0", *QUICK)
    assert {"time_to_target_s", "updates_to_target", "per_update_s", "final_acc"} <= set(out)
    assert 0.0 <= out["final_acc"] <= 1.0 and out["params"]["scheme"] == scheme
    if out["time_to_target_s"] is not None:
        assert out["per_update_s"] == pytest.approx(out["time_to_target_s"] / out["updates_to_target"])


def test_never_reached_is_null_and_partial_dynamic_is_a_different_run(capsys):
    out = train(capsys, "--scheme", "ps-bsp", *QUICK[:-4], "--model-mb", "10", "--duration", "2",
                "--target-acc", "0.92")
    assert out["time_to_target_s"] is None and out["updates_to_target"] is None
    # updates happened: the time per update over the whole run (was null whenever the target was missed)
    assert out["updates"] > 0 and out["per_update_s"] == pytest.approx(2.0 / out["updates"])
    assert out["target_acc"] == out["params"]["target_acc"] == 0.92
    con = TrainScenario(scheme="partial", hl=3).scenario()
    dyn = TrainScenario(scheme="partial-dynamic", hl=3).scenario()
    assert (con.scheme, con.weighting.weights, dyn.scheme, dyn.weighting.weights) == \
        ("partial", "constant", "partial", "dynamic")
    assert con.group_size == 3 and TrainScenario(p=5).scenario().group_size == 5


@pytest.mark.parametrize("args, flag", [
    (["--p", "9"], "--p"),
    (["--n", "4", "--hl", "5"], "--hl"),
    (["--scheme", "ps-backup", "--backups", "8"], "--backups"),
    (["--scheme", "gossip"], "--scheme"),
    (["--target-acc", "0.99"], "--target-acc"),
    (["--hete-c", "0"], "--hete-c"),
])
def test_bad_values_exit_2_naming_the_flag(args, flag, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["train", *args])
    assert e.value.code == 2
    assert f"argument {flag}" in capsys.readouterr().err


def test_help_lists_every_flag_with_its_range_and_unit(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "10000")
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name, spec in specs(TrainScenario).items():
        assert f"{flag_of(name, spec)} " in text
        if spec.choices is None:
            assert f"{spec.range_text()}{' ' + spec.unit if spec.unit else ''}, default" in text, name


def test_the_default_target_is_printed_where_it_was_used(capsys):
    """--target-acc default: the problem's (digits 85 %), printed as the metric and in params (was null)."""
    from simlib.training.learning import default_target

    out = train(capsys, *QUICK[:-2])
    assert out["target_acc"] == out["params"]["target_acc"] == default_target("digits") == 0.85


def test_the_cluster_run_and_the_replay_are_built_once_with_the_scenario():
    """TrainScenario builds (and so checks) its cluster Scenario and its TrainingParams once, when it is
    built; scenario() and training() hand those out, and a replaced scenario gets its own."""
    import dataclasses

    ts = TrainScenario(scheme="partial-dynamic", n=6, p=2)
    assert ts.scenario() is ts.scenario() and ts.training() is ts.training()
    assert (ts.scenario().p, ts.scenario().weighting.weights, ts.training().lr) == (2 / 6, "dynamic", ts.lr)
    other = dataclasses.replace(ts, n=4, lr=0.2)
    assert (other.scenario().n, other.scenario().p, other.training().lr) == (4, 2 / 4, 0.2)
    assert ts.scenario().n == 6 and ts == TrainScenario.from_params(ts.to_params())
    with pytest.raises(ValueError, match="hl"):
        TrainScenario(n=4, hl=5)            # the cluster rule fires when the TrainScenario is built
