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


@pytest.mark.parametrize("argv, flag", [
    (["--n", "1"], "--n"), (["--p", "0"], "--p"), (["--p", "0.99", "--n", "10"], "--p"),
    (["--eta", "1.5"], "--eta"), (["--ssp", "-1"], "--ssp"), (["--k", "two"], "--k"),
    (["--lam", "1"], "--lam"), (["--mu", "0"], "--mu"), (["--gamma", "2"], "--gamma"),
    (["--layer", "L4"], "--layer"), (["--scheme", "random"], "--scheme"),
    (["--trace", "no_such_trace"], "--trace"), (["--duration", "0"], "--duration"),
])
def test_selmcast_ssp_rejects_bad_values(argv, flag, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["selmcast-ssp", *argv])
    assert exc.value.code == 2
    assert flag in capsys.readouterr().err
