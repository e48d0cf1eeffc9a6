"""`python -m simlib selmcast-ssp`: JSON output and exit status 2 naming the flag."""
import json

import pytest

from simlib.cli import main


def test_selmcast_ssp_prints_json(capsys):
    rc = main(["selmcast-ssp", "--n", "12", "--duration", "5", "--scheme", "orpheus", "--k", "inf",
               "--ssp", "inf", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("npu_utilization", "avg_scale", "total_rounds", "preempted_receivers", "selection_us_per_call"):
        assert key in out
    assert out["params"]["k"] is None and out["params"]["ssp"] is None
    assert out["avg_scale"] == pytest.approx(4 / 12)       # ceil(0.3 * 12) = 4, k removed
    assert out["preempted_receivers"] == 0


def test_selmcast_ssp_engines_print_the_same_run(capsys):
    outs = {}
    for engine in ("compiled", "flow"):
        assert main(["selmcast-ssp", "--n", "10", "--duration", "8", "--engine", engine, "--json"]) == 0
        outs[engine] = json.loads(capsys.readouterr().out)
    assert outs["compiled"]["selection_us_per_call"] is None       # not timed in the compiled loop
    assert outs["flow"]["selection_us_per_call"] > 0
    for key in ("npu_utilization", "avg_scale", "total_rounds", "preempted_receivers"):
        assert outs["compiled"][key] == pytest.approx(outs["flow"][key], rel=1e-9)


@pytest.mark.parametrize("argv, flag", [
    (["--n", "1"], "--n"), (["--p", "0"], "--p"), (["--p", "0.99", "--n", "10"], "--p"),
    (["--eta", "1.5"], "--eta"), (["--ssp", "-1"], "--ssp"), (["--k", "two"], "--k"),
    (["--lam", "1"], "--lam"), (["--mu", "0"], "--mu"), (["--gamma", "2"], "--gamma"),
    (["--layer", "L4"], "--layer"), (["--scheme", "random"], "--scheme"),
    (["--trace", "no_such_trace"], "--trace"), (["--duration", "0"], "--duration"),
    (["--engine", "fast"], "--engine"), (["--compute-mean", "0"], "--compute-mean"), (["--period", "0"], "--period"),
    (["--bbar", "-1"], "--bbar"), (["--model-mb", "0"], "--model-mb"), (["--k", "1.5"], "--k"),
    (["--tau-estimate", "guess"], "--tau-estimate"),
])
def test_selmcast_ssp_rejects_bad_values(argv, flag, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["selmcast-ssp", *argv])
    assert exc.value.code == 2
    assert flag in capsys.readouterr().err


def test_flags_the_hand_written_command_lacked_reach_the_run(capsys):
    """--shared-x (decision B2) and --compute-mean are generated from SSPScenario; each changes the run."""
    outs = {}
    for extra in ([], ["--shared-x"], ["--compute-mean", "2"]):
        assert main(["selmcast-ssp", "--n", "8", "--duration", "6", "--json", *extra]) == 0
        outs[" ".join(extra)] = json.loads(capsys.readouterr().out)
    assert outs["--shared-x"]["params"]["shared_x"] is True and outs["--compute-mean 2"]["params"]["compute_mean_s"] == 2
    base = outs[""]["npu_utilization"], outs[""]["total_rounds"]
    assert (outs["--shared-x"]["npu_utilization"], outs["--shared-x"]["total_rounds"]) != base
    # twice the compute time per iteration in the same 6 s: fewer rounds
    assert outs["--compute-mean 2"]["total_rounds"] < outs[""]["total_rounds"]
