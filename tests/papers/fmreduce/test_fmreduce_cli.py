"""``python -m simlib fmreduce``: JSON output and exit status 2 naming the flag on bad values."""
import json

import pytest

from simlib.cli import main


def test_fmreduce_json_reports_rounds_and_phases(capsys):
    assert main(["fmreduce", "--n", "8", "--p", "5", "--duration", "30", "--seed", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["params"]["p"] == 5 and out["seed"] == 3
    assert out["rounds"] > 0 and out["iterations"] == 5 * out["rounds"]
    assert {"compute_s", "form_s", "scatter_s", "broadcast_s"} <= set(out)


@pytest.mark.parametrize("argv, flag", [
    (["--p", "61"], "--p"), (["--p", "0"], "--p"), (["--n", "1"], "--n"),
    (["--duration", "0"], "--duration"), (["--mode", "eager"], "--mode"),
    (["--split", "uneven"], "--split"), (["--sharing", "wfq"], "--sharing"),
    (["--reducers", "participants"], "--mode"), (["--trace", "nope"], "--trace"),
    (["--reduce-s-per-mb", "-1"], "--reduce-s-per-mb"), (["--seed", "-1"], "--seed"),
])
def test_fmreduce_bad_values_exit_2_naming_the_flag(argv, flag, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["fmreduce", *argv])
    assert exc.value.code == 2
    assert flag in capsys.readouterr().err
