"""Tests for ``python -m simlib`` (simlib.cli)."""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import simlib
from simlib import cli
from simlib.papers import cli_gen

ROOT = Path(__file__).resolve().parents[1]

from simlib.papers.cluster_scenario import Scenario  # noqa: E402


def run_main(argv, capsys):
    """Call cli.main in-process; return (status, stdout, stderr)."""
    try:
        status = cli.main(argv)
    except SystemExit as exc:  # argparse exits for --help and usage errors
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.slow      # a fresh interpreter (1.3 CPU-s, 2026-11-29); test_help_in_process checks the help in-process
def test_module_help_lists_commands():
    proc = subprocess.run([sys.executable, "-m", "simlib", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    for command in ("claims", "version"):
        assert command in proc.stdout


def test_help_in_process(capsys):
    status, out, _ = run_main(["--help"], capsys)
    assert status == 0
    assert "claims" in out and "version" in out


def test_subcommand_help(capsys):
    status, out, _ = run_main(["claims", "--help"], capsys)
    assert status == 0
    assert "--ledger" in out


def test_version(capsys):
    status, out, _ = run_main(["version"], capsys)
    assert status == 0
    assert out.strip() == f"simlib {simlib.__version__}"


@pytest.mark.parametrize("argv, flag", [
    (["--no-such-flag"], "--no-such-flag"),
    (["claims", "--no-such-flag"], "--no-such-flag"),
    (["claims", "--ledger"], "--ledger"),
    (["no-such-command"], "no-such-command"),
])
def test_bad_arguments_exit_2_naming_the_flag(argv, flag, capsys):
    status, _, err = run_main(argv, capsys)
    assert status == 2
    assert flag in err


def test_missing_command_exits_2(capsys):
    status, _, err = run_main([], capsys)
    assert status == 2
    assert "usage" in err


def test_value_error_in_handler_becomes_usage_error(monkeypatch, capsys):
    def register(subparsers):
        p = subparsers.add_parser("boom")
        p.add_argument("--rate")

        def handler(args, parser):
            raise ValueError(f"--rate must be > 0, got {args.rate}")

        p.set_defaults(handler=handler, subparser=p)

    monkeypatch.setattr(cli, "COMMANDS", [*cli.COMMANDS, register])
    status, _, err = run_main(["boom", "--rate", "-1"], capsys)
    assert status == 2
    assert "--rate must be > 0, got -1" in err


def test_arg_type_reports_flag_and_message():
    parser = argparse.ArgumentParser(exit_on_error=False)

    def positive(text):
        value = int(text)
        if value < 1:
            raise ValueError(f"workers must be >= 1, got {value}")
        return value

    parser.add_argument("--workers", type=cli_gen.arg_type(positive, "workers"))
    assert parser.parse_args(["--workers", "3"]).workers == 3
    with pytest.raises(argparse.ArgumentError, match="workers must be >= 1, got 0"):
        parser.parse_args(["--workers", "0"])


def test_claims_refuses_a_missing_ledger(tmp_path, capsys):
    missing = tmp_path / "nope" / "claims.csv"
    status, _, err = run_main(["claims", "--ledger", str(missing)], capsys)
    assert status == 2
    assert "--ledger" in err and "no such file" in err
    status, _, err = run_main(["claims", "--run", str(tmp_path)], capsys)
    assert status == 2 and "--run" in err


def test_claims_names_the_flag_of_a_file_that_is_not_a_ledger(tmp_path, capsys):
    bad = tmp_path / "x.csv"
    bad.write_text("a,b\n1,2\n", encoding="utf-8")
    status, _, err = run_main(["claims", "--ledger", str(bad)], capsys)
    assert status == 2 and f"argument --ledger: {str(bad)!r} is not a claims ledger" in err
    assert "ledger_path" not in err


@pytest.mark.parametrize("argv, simulated", [
    (["run", "--n", "10", "--duration", "3"], "duration_s"),
    (["fmreduce", "--n", "10", "--p", "5", "--duration", "5"], "duration_s"),
    (["selmcast-bsp", "--n", "10"], "completion_s"),        # one BSP round: its completion time
    (["selmcast-ssp", "--n", "10", "--duration", "5"], "duration_s"),
    (["train", "--problem", "digits", "--model", "softmax", "--data", "iid", "--duration", "3"], "duration_s"),
])
def test_every_commands_json_has_its_wall_time_and_simulated_seconds_per_wall_second(argv, simulated, capsys):
    status, out, _ = run_main([*argv, "--json"], capsys)
    result = json.loads(out)
    sim = result["params"][simulated] if simulated in result["params"] else result[simulated]
    assert status == 0 and result["wall_s"] > 0 and result["compile_s"] >= 0
    assert result["sim_s_per_wall_s"] == pytest.approx(sim / result["wall_s"])


def test_with_speed_prefers_the_trials_own_wall_time_and_reads_a_metric_when_no_parameter_has_the_name():
    assert cli_gen.with_speed({"x": 1}, {"duration_s": 10.0}, "duration_s", 2.0) == \
        {"x": 1, "compile_s": 0.0, "wall_s": 2.0, "sim_s_per_wall_s": 5.0}
    assert cli_gen.with_speed({"wall_s": 4.0, "completion_s": 2.0}, {}, "completion_s", 9.0) == \
        {"wall_s": 4.0, "completion_s": 2.0, "compile_s": 0.0, "sim_s_per_wall_s": 0.5}


def test_with_speed_leaves_the_compilation_out_of_the_wall_time():
    # 10 s of simulation in a 7 s command of which 5 s compiled: 2 s of run, 5 simulated s per second
    assert cli_gen.with_speed({}, {"duration_s": 10.0}, "duration_s", 7.0, compile_s=5.0) == \
        {"compile_s": 5.0, "wall_s": 2.0, "sim_s_per_wall_s": 5.0}
    # a trial's own wall time left its compilation out itself: kept; compile_s still reported
    assert cli_gen.with_speed({"wall_s": 1.0}, {"duration_s": 10.0}, "duration_s", 7.0, compile_s=5.0) == \
        {"wall_s": 1.0, "compile_s": 5.0, "sim_s_per_wall_s": 10.0}


def test_claims_shows_a_runs_ledger(tmp_path, capsys):
    from simlib.papers.claim import Claim
    from simlib.pipeline.claims import record

    run = tmp_path / "build" / "runs" / "11_x" / "abc"
    record(Claim("000", "Fig. 5", "c", "1", "2", direction=False, cause="unexplained: test"),
           run / "results" / "claims.csv", profile="quick", trials=2, parameters={"profile": "quick"})
    status, out, _ = run_main(["claims", "--run", str(run)], capsys)
    assert status == 0
    assert out.startswith("1 claim checked at 1 setting (default): 1 verdict: 0 hold, 1 fail, 0 undecided, 0 fitted")
    assert "profile quick" in out


def test_claims_of_one_paper_count_each_setting_then_list_the_claims(tmp_path, capsys):
    from simlib.papers.claim import Claim
    from simlib.pipeline.claims import record

    ledger = tmp_path / "claims.csv"
    record([Claim("002", "T", "a", "1", "2", direction=False, cause="unexplained: test"),
            Claim("002", "T", "b", "1", "1", direction=True, pairs=10, interval="0.9–1.1×", undecided="direction"),
            Claim("002", "T", "a", "1", "1", direction=True, setting="profile"),
            Claim("000", "T", "a", "1", "1", direction=True)], ledger)
    status, out, _ = run_main(["claims", "--ledger", str(ledger), "--paper", "002"], capsys)
    assert status == 0
    assert out.splitlines()[:2] == ["default: 0 hold, 1 fail, 1 undecided, 0 fitted",
                                    "profile: 1 hold, 0 fail, 0 undecided, 0 fitted"]
    assert "| figure | claim | default | profile | status | cause |" in out and "| T | b | undecided |" in out


def test_claims_uses_summarize_ledger(monkeypatch, tmp_path, capsys):
    """The command prints whatever summarize_ledger returns for the --ledger path."""
    import types

    seen = {}

    def fake_summarize(path):
        seen["path"] = Path(path)
        return "No claims recorded (fake)."

    fake = types.ModuleType("simlib.pipeline.claims")
    fake.summarize_ledger = fake_summarize
    monkeypatch.setitem(sys.modules, "simlib.pipeline.claims", fake)
    monkeypatch.setattr(simlib, "claims", fake, raising=False)
    ledger = tmp_path / "claims.csv"
    ledger.write_text("")
    status, out, _ = run_main(["claims", "--ledger", str(ledger)], capsys)
    assert status == 0
    assert out.strip() == "No claims recorded (fake)."
    assert seen["path"] == ledger


def test_claims_default_ledger_path():
    assert cli.DEFAULT_LEDGER == ROOT / "data" / "results" / "claims.csv"
    from simlib.pipeline.claims import DEFAULT_LEDGER

    assert cli.DEFAULT_LEDGER == Path(DEFAULT_LEDGER)


# --- run ------------------------------------------------------------------------

def test_run_prints_json_metrics(capsys):
    from simlib.cli import main

    rc = main(["run", "--scheme", "partial", "--n", "10", "--duration", "5", "--model-mb", "50", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("avg_sync_time_s", "avg_sync_scale", "total_sync", "total_iteration", "wasted_wait_s_per_worker"):
        assert key in out
    assert out["avg_sync_scale"] == 3.0  # p = round(0.3 * 10)


def test_run_every_flag_reaches_its_scenario_parameter(capsys):
    """Each flag of `run` lands in the scenario parameter of the same meaning (units in the name)."""
    from simlib.cli import main

    argv = ["run", "--scheme", "selective", "--n", "10", "--trace", "cnn", "--seed", "3", "--duration", "2",
            "--p", "0.4", "--eta", "0.2", "--theta", "2.5", "--dt", "0.3", "--c", "4", "--lam", "0.1",
            "--alpha", "0.002", "--model-mb", "20", "--bw-error", "0.1", "--cdf", "cold",
            "--progress-model", "conditional", "--base-rule", "pseudocode", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["seed"] == 3
    given = dict(scheme="selective", n=10, trace="cnn", duration_s=2.0, p=0.4, eta=0.2, theta=2.5, dt_s=0.3, c=4,
                 lam=0.1, alpha_s=0.002, model_mb=20.0, bw_error=0.1, cdf="cold", progress_model="conditional",
                 base_rule="pseudocode")
    assert out["params"] == {**Scenario().to_params(), **given}     # every other parameter at its default
    assert out["group_size"] == 4


def test_run_offers_002s_knobs_and_its_result_is_the_trials(capsys):
    """002's knobs are declared on the scenario, so they are flags too; the command runs the sweeps' trial."""
    import numpy as np

    from simlib.cli import main
    from simlib.papers.cluster_scenario import run_trial

    argv = ["run", "--scheme", "partial", "--n", "8", "--p", "0.375", "--hl", "3", "--bandwidth-gbps", "10",
            "--group-filter", "--group-filter-window", "6", "--weights", "dynamic", "--ema-alpha", "0.25",
            "--weights-missing", "initial", "--model-mb", "10", "--duration", "20", "--seed", "2", "--no-progress",
            "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    given = dict(scheme="partial", n=8, p=0.375, hl=3, bandwidth_gbps=10.0, group_filter=True, group_filter_window=6,
                 weights="dynamic", ema_alpha=0.25, weights_missing="initial", model_mb=10.0, duration_s=20.0)
    assert out.pop("params") == {**Scenario().to_params(), **given} and out.pop("seed") == 2
    assert out.pop("wall_s") > 0 and out.pop("sim_s_per_wall_s") > 0 and out.pop("compile_s") >= 0
    assert out == run_trial(given, np.random.SeedSequence(2))


@pytest.mark.parametrize("argv, message", [
    (["run", "--weights", "dynamic", "--scheme", "allreduce"], "scheme 'allreduce' ignores --weights (read by "
                                                               "partial, selective)"),
    (["run", "--scheme", "partial", "--eta", "0.5", "--dt", "0.2"], "scheme 'partial' ignores --eta (read by "
                                                                    "selective), --dt (read by selective)"),
    (["run", "--scheme", "ps-bsp", "--backups", "2", "--quorum", "solo"], "scheme 'ps-bsp' ignores --backups (read "
                                                                          "by ps-backup), --quorum (read by eager)"),
    (["train", "--backups", "8", "--scheme", "partial"], "scheme 'partial' ignores --backups (read by ps-backup)"),
    (["train", "--scheme", "partial", "--weights-missing", "closest"], "ignores --weights-missing (read by "
                                                                       "partial-dynamic)"),
])
@pytest.mark.timeout(60)
def test_an_option_the_scheme_does_not_read_is_refused_naming_the_scheme(argv, message, capsys):
    """One rule for every scheme-specific option (cluster_scenario.SCHEME_PARAMS), not a case per option."""
    status, out, err = run_main(argv, capsys)
    assert status == 2 and out == ""
    assert "argument --scheme: " in err and message in err
    # the same options with a scheme that reads them are accepted (checked without running)
    from simlib.papers.cluster_scenario import Scenario
    from simlib.training.train_command import TrainScenario

    assert Scenario.ignored_by_scheme({"scheme": "partial", "weights": "dynamic", "group_filter": True,
                                       "eta": 0.3}) == {}
    assert TrainScenario.ignored_by_scheme({"scheme": "partial-dynamic", "weights_missing": "closest", "p": 5}) == {}


@pytest.mark.parametrize("argv, flag, message", [
    (["--scheme", "selective", "--dt", "1e-12"], "--dt", "Alg. 3's Δt timer would run up to 1e+14 controller rounds"),
    (["--scheme", "allreduce", "--compute-mean", "1e-9", "--model-mb", "1e-6", "--alpha", "0"], "--compute-mean",
     "the run would simulate about 1.11e+13 iterations, more than 1e+08"),
])
@pytest.mark.timeout(60)
def test_a_run_that_would_take_hours_is_refused_before_it_runs(argv, flag, message, capsys):
    """The work guard (E20): these ran for days (a clock that crawls, not one that stops)."""
    status, out, err = run_main(["run", *argv], capsys)
    assert status == 2 and out == ""
    assert f"argument {flag}: " in err and message in err and "work guard E20" in err


@pytest.mark.parametrize("argv, flag, message", [
    (["--n", "10", "--p", "0.04"], "--p", "p * n must be at least 0.5"),           # a cross-field rule
    (["--hl", "11", "--n", "10"], "--hl", "hl must be in [1, n = 10]"),
    (["--group-filter"], "--scheme", "scheme 'selective' ignores --group-filter (read by partial)"),
    (["--scheme", "partial", "--n", "10", "--group-filter", "--group-filter-window", "2"], "--group-filter-window",
     "at least ceil((n-1)/(p-1))"),
    (["--progress-model", "oracle", "--cdf", "cold"], "--progress-model", "needs cdf='warm'"),
    # below the clock's resolution at the end of the run (ulp(100) = 2**-46) the Δt timer fired at the same
    # instant forever (issue 34); exactly the resolution runs (test_events.py: t + ulp(T) > t for t <= T)
    (["--scheme", "selective", "--dt", "1e-20"], "--dt", "dt_s must be in [1.42e-14, inf) s, the clock's resolution "
                                                         "at duration_s = 100 s"),
    (["--scheme", "selective", "--dt", repr(2.0 ** -47)], "--dt", "got 7.105427357601002e-15"),
])
@pytest.mark.timeout(60)
def test_run_cross_field_rules_exit_2_naming_the_flag(argv, flag, message, capsys):
    status, out, err = run_main(["run", *argv], capsys)
    assert status == 2 and out == ""
    assert f"argument {flag}: " in err and message in err


def test_run_accepts_the_words_of_its_flags(capsys):
    # --theta inf never waits (SR19), --c never (no full syncs), --compute-mean stored, --bandwidth-gbps drawn
    argv = ["run", "--n", "6", "--duration", "3", "--model-mb", "5", "--theta", "inf", "--c", "never",
            "--compute-mean", "stored", "--bandwidth-gbps", "drawn", "--json"]
    status, out, _ = run_main(argv, capsys)
    assert status == 0
    params = json.loads(out)["params"]
    assert params["theta"] == "inf"                   # JSON has no inf: the word the flag accepts
    assert (params["c"], params["compute_mean_s"], params["bandwidth_gbps"]) == (None, None, None)


def test_run_without_a_completed_sync_prints_null_and_says_why(capsys):
    from simlib.cli import main

    # 500 MB over <= 20 Gbps takes longer than 0.5 s: no sync can finish
    rc = main(["run", "--n", "10", "--duration", "0.5", "--json"])
    assert rc == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)  # valid JSON: no NaN
    assert out["total_sync"] == 0
    assert out["avg_sync_time_s"] is None and out["avg_sync_scale"] is None
    assert "no synchronization completed within --duration 0.5 s" in captured.err
    assert "increase --duration" in captured.err


def test_run_rejects_a_trace_in_milliseconds(tmp_path, capsys):
    trace = tmp_path / "ms.csv"
    trace.write_text("compute_time_ms\n800\n1200\n")
    status, _, err = run_main(["run", "--n", "4", "--duration", "1", "--trace", str(trace)], capsys)
    assert status == 2
    assert "compute_time_ms" in err and "compute_time_s" in err


@pytest.mark.slow      # a fresh interpreter, 3 s of simulation before the Ctrl-C (3.4 CPU-s, 2026-11-29)
def test_long_run_stops_cleanly_on_ctrl_c():
    """SIGINT during a long run: exit 130 with one line, no traceback."""
    import os
    import signal
    import time

    proc = subprocess.Popen([sys.executable, "-m", "simlib", "run", "--n", "20", "--duration", "1e6"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(3)  # let the simulation start (the exit status does not depend on when)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "interrupted" in err and "Traceback" not in err
    assert out == ""


# A command whose handler loses Ctrl-C the way a C callback or __del__ does (numba's compile hook:
# "Exception ignored", and the run goes on), or turns it into another error (numba's cache save).
_SWALLOWING_COMMANDS = """
import sys, time
import simlib.cli as cli

class Slow:
    def __del__(self):
        time.sleep(0.05)  # Ctrl-C here is lost: "Exception ignored in ... __del__"

def spin(args, parser):
    print("ready", flush=True)
    while True:
        try:
            Slow()
        except KeyboardInterrupt:
            pass

def fail_after(args, parser):
    print("ready", flush=True)
    try:
        time.sleep(60)
    except KeyboardInterrupt:
        raise RuntimeError("no compiled object yet")

def register(subparsers):
    for name, handler in (("spin", spin), ("fail-after", fail_after)):
        p = subparsers.add_parser(name)
        p.set_defaults(handler=handler, subparser=p)

cli.COMMANDS.append(register)
sys.exit(cli.main([sys.argv[1]]))
"""


@pytest.mark.slow      # a fresh interpreter each (1.3-1.5 CPU-s, 2026-11-29); in-process: test_ctrl_c_while_...
@pytest.mark.parametrize("command", ["spin", "fail-after"])
def test_ctrl_c_ends_a_command_even_when_the_interrupt_is_swallowed_or_turned_into_an_error(command):
    import os
    import signal

    proc = subprocess.Popen([sys.executable, "-c", _SWALLOWING_COMMANDS, command],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdout.readline() == "ready\n"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.count("interrupted (Ctrl-C); no result") == 1
    assert "Traceback" not in err and "RuntimeError" not in err and "Exception ignored" not in err


def test_ctrl_c_while_the_commands_are_being_registered_exits_130(monkeypatch, capsys):
    import simlib.cli as cli

    def interrupted(argv=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["run"]) == 130
    assert capsys.readouterr().err == "python -m simlib: interrupted (Ctrl-C); no result\n"


@pytest.mark.parametrize("argv, flag", [
    (["--n", "1"], "--n"),
    (["--p", "0"], "--p"),
    (["--eta", "1"], "--eta"),
    (["--alpha", "-1"], "--alpha"),
    (["--duration", "abc"], "--duration"),
    (["--trace", "no_such_trace"], "--trace"),
    (["--scheme", "ring"], "--scheme"),
    (["--model-mb", "0"], "--model-mb"),          # as every other command (was accepted by run)
])
def test_run_rejects_bad_values_naming_the_flag(argv, flag, capsys):
    from simlib.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["run", *argv])
    assert exc.value.code == 2
    assert flag in capsys.readouterr().err


def test_json_keeps_the_sign_of_an_infinite_value_and_writes_nan_as_null(capsys):
    cli_gen.print_result({"lo": -math.inf, "hi": math.inf, "x": math.nan}, {"k": math.inf, "m": -math.inf}, 0, True)
    out = json.loads(capsys.readouterr().out)
    assert (out["lo"], out["hi"], out["x"]) == ("-inf", "inf", None)
    assert out["params"] == {"k": "inf", "m": "-inf"}
    cli_gen.print_result({"lo": -math.inf}, {}, 0, False)
    assert capsys.readouterr().out.split() == ["lo", "-inf"]


def test_the_none_word_of_every_flag_is_matched_whatever_its_case(capsys):
    """--k INF, --c Never, --bandwidth-gbps DRAWN: the word (or "none") in any case means None; other
    text is still parsed as a number."""
    from simlib.papers.contract import specs
    from simlib.papers.registry import PAPERS
    from simlib.training.train_command import TrainScenario

    scenarios = {sc for p in PAPERS for sc in p.scenarios} | {TrainScenario}
    words = [(name, spec) for sc in scenarios for name, spec in specs(sc).items() if spec.none_means is not None]
    assert len(words) >= 3
    for name, spec in words:
        for text in (spec.none_means, spec.none_means.upper(), spec.none_means.title(), "None", "NONE", " none "):
            assert cli_gen._parse_text(name, text, spec) is None, (name, text)
    status, out, _ = run_main(["run", "--n", "10", "--duration", "2", "--c", "NEVER", "--bandwidth-gbps", "Drawn",
                               "--json"], capsys)
    assert status == 0 and (json.loads(out)["params"]["c"], json.loads(out)["params"]["bandwidth_gbps"]) == (None, None)


_HELP_IMPORTS = """
import sys
from simlib import cli
try:
    cli.main(sys.argv[1:])
except SystemExit:
    pass
print(sorted(m for m in sys.modules if m.startswith("simlib.training.") and m != "simlib.training.train_help"))
"""


@pytest.mark.slow      # a fresh interpreter each (1.3-1.8 CPU-s, 2026-11-29): what it imports is the point
@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["fmreduce", "--help"]])
def test_help_does_not_import_the_training_stack(argv):
    """Only the command asked for is built (cli.Generated): ``train``'s flags need the training stack,
    the other commands' help does not."""
    import os

    out = subprocess.run([sys.executable, "-c", _HELP_IMPORTS, *argv], cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True).stdout
    assert out.splitlines()[-1] == "[]"


@pytest.mark.parametrize("command", [None, "train", "selmcast-ssp"])
def test_a_parser_built_for_one_command_prints_the_help_of_the_full_one(command, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    argv = [command] if command else []
    full, light = cli.build_parser(), cli.build_parser([*argv, "--help"])
    pick = (lambda p: p._subparsers._group_actions[0].choices[command]) if command else (lambda p: p)
    assert pick(light).format_help() == pick(full).format_help()
    assert cli.requested(["--version"]) is None and cli.requested(["-h", "run", "--n", "4"]) == "run"
