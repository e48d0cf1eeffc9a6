"""``--timeline``, ``--timeline-window`` and ``--profile`` on every generated command, and
``Scenario.at_profile()`` (simlib.papers.cli_gen, simlib.papers.profiles)."""
import json
import shutil
import subprocess

import pytest

from simlib import cli
from simlib.papers import profiles
from simlib.papers.cluster_scenario import Scenario
from simlib.papers.fmreduce.scenario import Scenario as FMScenario
from simlib.papers.partial_reduce import profile as pr
from simlib.papers.selective_reduce import profile as sr
from simlib.runtime import timeline as tl
from simlib.training.train_command import TrainScenario


def run_main(argv, capsys):
    try:
        status = cli.main(argv)
    except SystemExit as exc:
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def generated_commands():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return {name: p for name, p in sub.choices.items() if name not in ("claims", "version")}


def test_every_generated_command_has_the_timeline_and_profile_flags():
    commands = generated_commands()
    assert {"run", "train", "fmreduce", "selmcast-bsp", "selmcast-ssp"} <= set(commands)
    for name, p in commands.items():
        flags = {s for a in p._actions for s in a.option_strings}
        assert {"--timeline", "--timeline-window", "--profile"} <= flags, name


RUN = ["run", "--n", "6", "--duration", "20", "--scheme", "selective", "--json"]


def test_run_writes_a_valid_timeline_whose_syncs_give_the_printed_metrics(tmp_path, capsys):
    path = tmp_path / "t.json"
    status, out, err = run_main(RUN + ["--timeline", str(path), "--seed", "4"], capsys)
    assert status == 0 and "ui.perfetto.dev" in err
    printed, doc = json.loads(out), json.loads(path.read_text())
    assert tl.validate_trace(doc) == []
    assert doc["otherData"]["seed"] == 4 and doc["otherData"]["commit"]
    assert json.loads(doc["otherData"]["scenario"])["n"] == 6
    ev = doc["traceEvents"]
    begin = {e["id"]: e for e in ev if e["ph"] == "b" and e["cat"] == "sync"}
    done = [(e["ts"] - begin[e["id"]]["ts"]) / tl.US for e in ev if e["ph"] == "e" and e["cat"] == "sync" and begin[e["id"]]["args"]["finished"]]
    assert len(done) == printed["total_sync"] and sum(done) / len(done) == pytest.approx(printed["avg_sync_time_s"])


@pytest.mark.parametrize("extra, message", [
    (["--timeline-window", "1:2"], "--timeline-window: needs --timeline"),
    (["--timeline", "T", "--timeline-window", "30:40"], "--timeline-window: .*START < 20"),
    (["--timeline", "T", "--timeline-window", "5:4"], "--timeline-window: .*0 <= START < END"),
    (["--timeline", "/no/such/folder/t.json"], "--timeline: folder"),
])
def test_bad_timeline_flags_exit_2_naming_the_flag_before_running(extra, message, tmp_path, capsys):
    extra = [str(tmp_path / "t.json") if x == "T" else x for x in extra]
    status, out, err = run_main(RUN + extra, capsys)
    assert status == 2 and out == ""
    assert __import__("re").search(message, err), err
    assert not (tmp_path / "t.json").exists()


def test_a_command_without_a_schedule_log_refuses_timeline_before_running(tmp_path, capsys):
    """Every registered command writes a timeline now; a command declared without one refuses the flag
    before its trial runs."""
    import argparse

    from simlib.papers.cli_gen import add_command
    from simlib.papers.contract import Command

    ran = []
    parser = argparse.ArgumentParser(prog="t")
    sub = parser.add_subparsers(dest="command")
    add_command(sub, Command("dummy", FMScenario, lambda sc, seed: ran.append(1) or {}, help="x"))
    args = parser.parse_args(["dummy", "--timeline", str(tmp_path / "t.json")])
    with pytest.raises(SystemExit) as exc:
        args.handler(args, args.subparser)
    assert exc.value.code == 2 and not ran and "does not log a schedule" in capsys.readouterr().err
    assert all(p.get_default("handler") is not None for p in generated_commands().values())

    # a command with a timeline whose run offered nothing (e.g. the MILP found no plan): said, nothing written
    add_command(sub, Command("quiet", FMScenario, lambda sc, seed: {"x": 1}, help="x", timeline=True))
    args = parser.parse_args(["quiet", "--timeline", str(tmp_path / "q.json")])
    assert args.handler(args, args.subparser) == 0
    assert "not written" in capsys.readouterr().err and not (tmp_path / "q.json").exists()


def test_the_paper_profile_sets_002s_fitted_values_that_the_scheme_reads():
    base = Scenario.from_params({"scheme": "adpsgd", "n": 8})
    at, before = base.at_profile().to_params(), base.to_params()
    assert (at["model_mb"], at["ad_passive"]) == (pr.PAPER_PROFILE.model_mb, pr.PAPER_PROFILE.ad_passive)
    assert before["model_mb"] != at["model_mb"] and before["ad_passive"] != at["ad_passive"]
    assert {k for k in at if at[k] != before[k]} == {"model_mb", "ad_passive"}
    partial = Scenario.from_params({"scheme": "partial"}).at_profile().to_params()
    assert partial["model_mb"] == pr.PAPER_PROFILE.model_mb
    assert partial["ad_passive"] == Scenario().to_params()["ad_passive"]          # partial does not read it
    assert base.at_profile("default") is base


def test_000s_profile_is_its_default_and_003_has_none():
    sel = Scenario.from_params({"scheme": "selective"})
    assert sr.PAPER_PROFILE.settings() == sr.DEFAULT_SETTINGS.settings()     # E18 picked the default
    assert sel.at_profile() == sel
    assert FMScenario().at_profile() == FMScenario()
    _, note = profiles.profile_values(FMScenario, FMScenario().to_params())
    assert "no paper profile" in note


def test_train_at_the_paper_profile():
    ts = TrainScenario.from_params({"scheme": "allreduce"})
    assert ts.model_mb != pr.PAPER_PROFILE.model_mb and ts.at_profile().model_mb == pr.PAPER_PROFILE.model_mb


def test_an_unknown_profile_is_refused_by_name(capsys):
    with pytest.raises(ValueError, match="profile must be one of"):
        Scenario().at_profile("fitted")
    status, _, err = run_main(["run", "--profile", "fitted"], capsys)
    assert status == 2 and "--profile" in err and "invalid choice" in err


def test_profile_paper_on_the_command_line(capsys):
    status, out, err = run_main(["run", "--n", "6", "--duration", "5", "--scheme", "partial", "--profile", "paper",
                                 "--json"], capsys)
    assert status == 0 and json.loads(out)["params"]["model_mb"] == pr.PAPER_PROFILE.model_mb
    assert "--profile paper: 002's profile" in err and "PR16" in err
    status, out, err = run_main(["run", "--n", "6", "--duration", "5", "--scheme", "selective", "--profile", "paper",
                                 "--json"], capsys)
    assert status == 0 and "E18's search picked the default" in err
    assert json.loads(out)["params"]["dt_s"] == sr.DEFAULT_SETTINGS.dt_s
    status, _, err = run_main(["run", "--scheme", "partial", "--profile", "paper", "--model-mb", "200"], capsys)
    assert status == 2 and "--model-mb" in err and "--profile paper sets model_mb" in err


def test_help_lists_the_profile_values_and_their_decisions(capsys):
    status, out, _ = run_main(["run", "--help"], capsys)
    flat = " ".join(out.split())
    assert status == 0 and "E18" in flat and "PR16" in flat and "1000 MB" in flat
    status, out, _ = run_main(["fmreduce", "--help"], capsys)
    assert "has no profile" in " ".join(out.split())


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
@pytest.mark.parametrize("argv", [RUN, ["fmreduce", "--n", "8", "--p", "6", "--duration", "20"],
                                  ["selmcast-bsp", "--n", "12"]], ids=["run", "fmreduce", "selmcast-bsp"])
def test_chromium_parses_the_timeline(argv, tmp_path, capsys):
    """Headless Chromium loads the file as JSON and walks it as the trace viewer's importer needs (a page
    that reads the events, keeps the ones with known phases and checks each async pair); the result lands
    in the DOM, which --dump-dom prints."""
    path = tmp_path / "t.json"
    assert run_main(argv + ["--timeline", str(path)], capsys)[0] == 0
    page = tmp_path / "check.html"
    page.write_text("<html><body><script>const doc = " + path.read_text() + """;
const ev = doc.traceEvents, open = {}; let bad = 0, x = 0;
for (const e of ev) {
  if (!["X","b","e","s","f","C","i","M"].includes(e.ph)) bad++;
  if (e.ph === "X") { x++; if (!(e.dur >= 0)) bad++; }
  if (e.ph === "b") open[e.cat + e.id] = (open[e.cat + e.id] || 0) + 1;
  if (e.ph === "e") open[e.cat + e.id] -= 1;
}
for (const k in open) if (open[k] !== 0) bad++;
document.body.textContent = "RESULT " + ev.length + " " + x + " " + bad;
</script></body></html>""")
    res = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    line = next((w for w in res.stdout.splitlines() if "RESULT" in w), None)
    assert line is not None, res.stderr[-2000:]
    n, x, bad = map(int, line.split("RESULT ")[1].split("<")[0].split())
    assert n == len(json.loads(path.read_text())["traceEvents"]) and x > 0 and bad == 0


def test_004_paper_profiles_are_sm72s_pick_for_bsp_and_sm75s_shapes_for_ssp():
    from simlib.papers.selmcast import profile as sm
    from simlib.papers.selmcast.bsp_scenario import BSPScenario
    from simlib.papers.selmcast.ssp_scenario import SSPScenario

    base = BSPScenario()
    at = base.at_profile()
    assert (base.lam, base.normalization) == (0.5, "own")          # the stated reading (SM14, SM1)
    assert (at.lam, at.normalization, at.shared_x) == (sm.PAPER_PROFILE.lam, sm.PAPER_PROFILE.normalization,
                                                       sm.PAPER_PROFILE.shared_x)
    assert at.lam != base.lam
    from simlib.papers.selmcast import ssp_profile as ssp

    ssp_at = SSPScenario().at_profile()                             # the lstm stand-in, at its fitted shape
    assert ssp_at.shape == ssp.PAPER_SHAPES["lstm"] != SSPScenario().shape
    assert SSPScenario(trace="pai-job1").at_profile() == SSPScenario(trace="pai-job1")
