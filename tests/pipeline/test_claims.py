"""Tests for simlib.pipeline.claims: upsert semantics, summary text, atomic writes."""
from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import simlib
from simlib.pipeline import claims
from simlib.papers.claim import Claim, observation
from simlib.pipeline.claims import COLUMNS, DEFAULT_LEDGER, STRENGTH_COLUMNS, load_ledger, summarize_ledger

CAUSE = "unexplained: test"


def record_claim(paper, figure, claim, paper_value, our_value, holds, note="", *, ledger_path, **provenance):
    """One single-verdict claim (its direction) written through claims.record; the written row."""
    c = Claim(paper, figure, claim, str(paper_value), str(our_value), direction=holds, note=note,
              cause="" if holds else CAUSE)
    return claims.record(c, ledger_path, **provenance)[0]


@pytest.fixture
def ledger(tmp_path) -> Path:
    return tmp_path / "results" / "claims.csv"


def test_record_creates_ledger_with_string_values(ledger):
    row = record_claim("PR", "Fig. 7", "speed-up vs all-reduce", "1.89–2.55×", 2.25, True,
                       ledger_path=ledger)
    assert row == {"paper": "PR", "figure": "Fig. 7", "claim": "speed-up vs all-reduce", "setting": "default",
                   "paper_value": "1.89–2.55×", "our_value": "2.25", "tolerance": "", "direction": True,
                   "magnitude": None, "holds": True, "cause": "", "note": "", "kind": "claim",
                   "notebook": "", "profile": "", "trials": "", "parameters": "{}", "pairs": "", "sides": "",
                   "interval": "", "undecided": "", "fitted": ""}
    df = load_ledger(ledger)
    header = ("paper,figure,claim,setting,paper_value,our_value,tolerance,direction,magnitude,holds,cause,note,kind,"
              "notebook,profile,trials,parameters,pairs,sides,interval,undecided,fitted")
    assert ",".join(df.columns) == header
    got = df.iloc[0].to_dict()
    assert pd.isna(got.pop("magnitude")) and row.pop("magnitude") is None
    assert got == row
    assert str(df["holds"].dtype) == str(df["direction"].dtype) == str(df["magnitude"].dtype) == "boolean"
    assert ledger.read_text(encoding="utf-8").splitlines()[0] == header


def test_upsert_replaces_in_place(ledger):
    record_claim("PR", "Fig. 7", "speed-up", "2×", "1.9", True, ledger_path=ledger)
    record_claim("PR", "Fig. 8", "speed-up", "2×", "1.1", False, note="slow links", ledger_path=ledger)
    record_claim("SR", "Fig. 7", "speed-up", "3×", 3, True, ledger_path=ledger)
    record_claim("PR", "Fig. 7", "speed-up", "2×", np.float64(2.5), np.bool_(True), note="rerun",
                 ledger_path=ledger)
    df = load_ledger(ledger)
    assert len(df) == 3
    assert df[["paper", "figure"]].values.tolist() == [["PR", "Fig. 7"], ["PR", "Fig. 8"], ["SR", "Fig. 7"]]
    assert df.iloc[0]["our_value"] == "2.5" and df.iloc[0]["note"] == "rerun"
    assert df.iloc[2]["our_value"] == "3"
    before = ledger.read_bytes()
    record_claim("PR", "Fig. 7", "speed-up", "2×", 2.5, True, note="rerun", ledger_path=ledger)
    assert ledger.read_bytes() == before  # re-running a notebook is idempotent


def test_awkward_text_round_trips(ledger):
    note = 'commas, "quotes", µ and\na newline'
    record_claim("P", "Tab. 2", "x", "≈ 10%", "9.7%", False, note=note, ledger_path=ledger)
    assert load_ledger(ledger).iloc[0]["note"] == note


def test_summary_text(ledger):
    record_claim("PR", "Fig. 7", "speed-up", "1.89–2.55×", "2.1×", True, ledger_path=ledger)
    assert summarize_ledger(ledger).splitlines()[0] == (
        "1 claim checked at 1 setting (default): 1 verdict: 1 hold, 0 fail, 0 undecided, 0 fitted (direction holds in 1 of 1; "
        "magnitude checked in 0, holds in 0)")
    record_claim("PR", "Fig. 9", "accuracy loss", "< 1%", "1.4%", False, note="fewer epochs",
                 ledger_path=ledger)
    record_claim("SR", "Fig. 3", "traffic cut", "40%", "35%", False, ledger_path=ledger)
    assert summarize_ledger(ledger).splitlines() == [
        "3 claims checked at 1 setting (default): 3 verdicts: 1 hold, 2 fail, 0 undecided, 0 fitted (direction holds "
        "in 1 of 3; magnitude checked in 0, holds in 0)",
        "per paper and setting (hold / fail / undecided / fitted, the last calibration targets not counted as holds):",
        "  PR default: 1 hold, 1 fail, 0 undecided, 0 fitted",
        "  SR default: 0 hold, 1 fail, 0 undecided, 0 fitted",
        "per paper (claims; holds at default / at profile / only at another setting / at neither, of which "
        "likely paper error, unexplained):",
        "  PR: 2 claims; default 1, profile n/a, other setting only 0, neither 1 (0 likely paper error, "
        "1 unexplained)",
        "  SR: 1 claims; default 0, profile n/a, other setting only 0, neither 1 (0 likely paper error, "
        "1 unexplained)",
        "- PR, Fig. 9 [default]: accuracy loss: paper < 1% vs ours 1.4% [direction fails] -- unexplained: test",
        "- SR, Fig. 3 [default]: traffic cut: paper 40% vs ours 35% [direction fails] -- unexplained: test"]


def _at(setting, claim, holds, cause=CAUSE):
    return Claim("000", "Fig. 9", claim, "1", "2", direction=holds, cause="" if holds else cause,
                 setting=setting)


def test_one_verdict_per_claim_per_setting(ledger):
    """The same claim at two settings is two rows; recording it again at one setting replaces only that row."""
    claims.record([_at("default", "a", False), _at("profile", "a", True)], ledger)
    claims.record(_at("profile", "a", False), ledger)
    df = load_ledger(ledger)
    assert df["setting"].tolist() == ["default", "profile"]
    assert df["holds"].tolist() == [False, False]


def test_settings_table_counts_each_claim_once(ledger):
    """Hand-made: a holds at both, b only at the profile, c only at a third reading, d nowhere (a likely
    paper error), e nowhere (unexplained) and judged only at the default."""
    error = "likely paper error: groups never below p (test_sr_groups_at_least_p)"
    claims.record([_at("default", "a", True), _at("profile", "a", True),
                   _at("default", "b", False), _at("profile", "b", True),
                   _at("default", "c", False), _at("profile", "c", False), _at("priority", "c", True),
                   _at("default", "d", False, error), _at("profile", "d", False),
                   _at("default", "e", False)], ledger)
    row = claims.settings_table(load_ledger(ledger)).iloc[0].to_dict()
    assert row == {"paper": "000", "claims": 5, "at_default": 1, "at_profile": 2, "judged_at_profile": 4,
                   "elsewhere_only": 2, "neither": 2, "likely_paper_error": 1, "unexplained": 1}
    assert "000: 5 claims; default 1, profile 2 of 4, other setting only 2, neither 2 (1 likely paper error, " \
           "1 unexplained)" in summarize_ledger(ledger)


def test_headline_table_is_the_settings_table_per_paper_with_its_command(ledger):
    """The README's headline table (issue 45), hand-made: 000 as in the test above (profile judged for 4 of
    its 5 claims); 003 judged at the default only (no profile: "—"), one of its two claims holding."""
    error = "likely paper error: groups never below p (test_sr_groups_at_least_p)"
    claims.record([_at("default", "a", True), _at("profile", "a", True),
                   _at("default", "b", False), _at("profile", "b", True),
                   _at("default", "c", False), _at("profile", "c", False), _at("priority", "c", True),
                   _at("default", "d", False, error), _at("profile", "d", False),
                   _at("default", "e", False),
                   Claim("003", "Fig. 2", "f", "1", "2", direction=True),
                   Claim("003", "Fig. 2", "g", "1", "2", direction=False, cause="stand-in trace: x")], ledger)
    lines = claims.headline_markdown(load_ledger(ledger)).splitlines()
    assert lines[0] == ("| seed | claims | hold at our defaults | hold at the paper profile | hold only at another "
                        "setting | hold at neither (likely paper error, unexplained) | counts from |")
    assert lines[2:] == ["| 000 | 5 | 1 | 2 of 4 | 2 | 2 (1, 1) | `python -m simlib claims --paper 000` |",
                         "| 003 | 2 | 1 | — | 0 | 1 (0, 0) | `python -m simlib claims --paper 003` |"]

def test_ledger_without_setting_column_reads_as_default(tmp_path):
    old = tmp_path / "claims.csv"
    old.write_text(",".join(c for c in COLUMNS if c not in ("setting",) + STRENGTH_COLUMNS) + "\n"
                   "000,F,c,1,1,,True,,True,,,claim,nb,full,20,{}\n")
    assert load_ledger(old)["setting"].tolist() == ["default"]


def test_missing_and_empty_ledger(tmp_path):
    """A missing file is an error naming it (it used to read as an empty ledger: a typo in the
    path said "no claims recorded yet"); a ledger with no rows is empty."""
    missing = tmp_path / "nope.csv"
    for read in (load_ledger, summarize_ledger):
        with pytest.raises(FileNotFoundError, match=r"path '.*nope\.csv': no claims ledger there"):
            read(missing)
    empty = tmp_path / "empty.csv"
    empty.write_text(",".join(COLUMNS) + "\n")
    assert summarize_ledger(empty) == "no claims recorded yet"
    df = load_ledger(empty)
    assert df.empty and list(df.columns) == list(COLUMNS)


def test_foreign_csv_is_not_overwritten(tmp_path):
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="not a claims ledger"):
        record_claim("P", "F", "c", "1", "1", True, ledger_path=other)
    assert other.read_text() == "a,b\n1,2\n"


@pytest.mark.parametrize("kwargs, match", [
    ({"paper": ""}, "paper"), ({"paper": "  "}, "paper"), ({"figure": 7}, "figure"),
    ({"claim": None}, "claim"), ({"paper_value": ""}, "paper_value"), ({"our_value": 2.5}, "our_value"),
    ({"direction": "yes"}, "direction"), ({"direction": 1}, "direction"), ({"direction": None}, "direction"),
    ({"note": None}, "note"),
])
def test_validation(ledger, kwargs, match):
    args = {"paper": "P", "figure": "F", "claim": "c", "paper_value": "1", "our_value": "1", "direction": True}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        claims.record(Claim(**args), ledger)
    assert not ledger.exists()


def test_record_refuses_what_is_not_a_claim_or_a_path(ledger):
    with pytest.raises(ValueError, match="Claim records"):
        claims.record([{"paper": "P"}], ledger)
    with pytest.raises(ValueError, match="ledger_path"):
        claims.record(Claim("P", "F", "c", "1", "1", direction=True), 3)
    assert not ledger.exists()


def test_write_goes_through_temp_file_and_replace(ledger, monkeypatch):
    record_claim("P", "F", "c", "1", "1", True, ledger_path=ledger)
    seen = []
    real_replace = os.replace

    def spy(src, dst):
        seen.append((Path(src), Path(dst), Path(src).read_text(encoding="utf-8")))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    record_claim("P", "F", "d", "2", "2", False, ledger_path=ledger)
    (src, dst, content), = seen
    assert dst == ledger and src.parent == ledger.parent and src != ledger
    assert content == ledger.read_text(encoding="utf-8")  # complete file staged, then renamed
    assert sorted(p.name for p in ledger.parent.iterdir()) == ["claims.csv"]


@pytest.mark.parametrize("broken", ["replace", "fsync"])
def test_failed_write_leaves_old_ledger_and_no_temp_file(ledger, monkeypatch, broken):
    record_claim("P", "F", "c", "1", "1", True, ledger_path=ledger)
    before = ledger.read_bytes()

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, broken, boom)
    with pytest.raises(OSError, match="disk full"):
        record_claim("P", "F", "d", "2", "2", False, ledger_path=ledger)
    monkeypatch.undo()
    assert ledger.read_bytes() == before
    assert sorted(p.name for p in ledger.parent.iterdir()) == ["claims.csv"]


def test_written_files_follow_the_umask_and_keep_an_existing_files_mode(tmp_path):
    """The ledger (and every file written through atomic_write_bytes: run-folder CSVs, figures, the
    sweep cache) is created as open() would create it, not with the temporary file's 0600."""
    old = os.umask(0o022)
    try:
        a = tmp_path / "a" / "claims.csv"
        record_claim("P", "F", "c", "1", "1", True, ledger_path=a)
        assert a.stat().st_mode & 0o777 == 0o644
        os.umask(0o077)
        b = tmp_path / "b" / "claims.csv"
        record_claim("P", "F", "c", "1", "1", True, ledger_path=b)
        assert b.stat().st_mode & 0o777 == 0o600
        a.chmod(0o640)                                   # a rewrite keeps the file's own mode
        record_claim("P", "F", "d", "1", "1", True, ledger_path=a)
        assert a.stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(old)


def _record_many(path: str, worker: int) -> None:
    for i in range(15):
        record_claim("P", f"Fig. {worker}", f"claim {i}", "1", str(i), True, ledger_path=path)


def test_concurrent_writers_do_not_lose_rows(ledger):
    ledger.parent.mkdir(parents=True)
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_record_many, args=(str(ledger), w)) for w in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    assert [p.exitcode for p in procs] == [0, 0]
    assert len(load_ledger(ledger)) == 30


def test_default_ledger_is_in_the_repository():
    root = Path(simlib.__file__).resolve().parent.parent
    assert DEFAULT_LEDGER == root / "data" / "results" / "claims.csv"


def test_recorded_row_displays_as_one_line(ledger):
    row = record_claim("000", "Fig. 8", "scale grows", "monotone", "20 → 40", False, ledger_path=ledger)
    printed = []

    class Printer:
        def text(self, t):
            printed.append(t)

    row._repr_pretty_(Printer(), False)
    assert printed == ["claim recorded: Fig. 8: scale grows: paper monotone vs ours 20 → 40 (direction fails)"]


def test_rows_record_profile_trials_and_parameters(ledger):
    row = record_claim("P", "F", "c", "1", "1", True, ledger_path=ledger, notebook="11_x", profile="quick", trials=2,
                       parameters={"n_values": [10, 20]})
    assert (row["notebook"], row["profile"], row["trials"], row["parameters"]) == \
        ("11_x", "quick", "2", '{"n_values": [10, 20]}')
    with pytest.raises(ValueError, match="finite numbers"):
        record_claim("P", "F", "c", "1", "1", True, ledger_path=ledger, parameters={"theta": float("inf")})
    with pytest.raises(ValueError, match="notebook must be a str"):
        record_claim("P", "F", "c", "1", "1", True, ledger_path=ledger, notebook=None)
    assert "profile quick" in summarize_ledger(ledger)  # a non-fidelity row is flagged


def test_observations_do_not_count_as_claims(ledger):
    record_claim("P", "F", "c", "1", "1", True, ledger_path=ledger, profile="full", parameters={})
    record_claim("P", "F", "d", "1", "2", False, ledger_path=ledger, profile="full", parameters={})
    obs = claims.record(observation("P", "F", "reading A vs B", "1.84 vs 1.88"), ledger,
                        profile="full", parameters={})[0]
    assert obs["kind"] == "observation" and obs["holds"] is None
    df = load_ledger(ledger)
    assert df["kind"].tolist() == ["claim", "claim", "observation"]
    assert df["holds"].isna().tolist() == [False, False, True]
    assert summarize_ledger(ledger).splitlines() == [
        "2 claims checked at 1 setting (default): 2 verdicts: 1 hold, 1 fail, 0 undecided, 0 fitted (direction holds "
        "in 1 of 2; magnitude checked in 0, holds in 0)",
        "per paper and setting (hold / fail / undecided / fitted, the last calibration targets not counted as holds):",
        "  P default: 1 hold, 1 fail, 0 undecided, 0 fitted",
        "per paper (claims; holds at default / at profile / only at another setting / at neither, of which "
        "likely paper error, unexplained):",
        "  P: 2 claims; default 1, profile n/a, other setting only 0, neither 1 (0 likely paper error, "
        "1 unexplained)",
        "- P, F [default]: d: paper 1 vs ours 2 [direction fails] -- unexplained: test",
        "1 observation (not paper claims) recorded"]


def test_a_ledger_from_before_the_setting_column_is_read_at_the_default_setting(tmp_path):
    old = tmp_path / "claims.csv"
    columns = [c for c in COLUMNS if c not in ("setting",) + STRENGTH_COLUMNS]
    row = dict(paper="P", figure="F", claim="c", paper_value="1", our_value="1", direction="True",
               holds="True", kind="claim")
    old.write_text(",".join(columns) + "\n" + ",".join(row.get(c, "") for c in columns) + "\n")
    assert load_ledger(old)["setting"].tolist() == ["default"]
    record_claim("P", "F", "d", "2", "2", False, ledger_path=old, profile="full", parameters={})
    assert old.read_text().splitlines()[0] == ",".join(COLUMNS)
    assert len(load_ledger(old)) == 2


def test_a_ledger_without_separate_verdicts_is_refused(tmp_path):
    """The first ledgers (one ``holds`` column, no direction/magnitude) are no longer read."""
    old = tmp_path / "claims.csv"
    old.write_text("paper,figure,claim,paper_value,our_value,holds,note\nP,F,c,1,1,True,\n")
    with pytest.raises(ValueError, match="not a claims ledger"):
        load_ledger(old)


def test_record_keeps_direction_and_magnitude_apart(ledger):
    from simlib.papers.claim import Claim

    rows = claims.record([
        Claim("004", "Fig. 4c", "Orpheus normalized CT at n = 100", "1.67", "2.32", direction=True,
              magnitude=False, tolerance="within 10 %", cause="paper ambiguity: SM1, the ideal t*"),
        Claim("004", "Fig. 4c", "SelMcast beats Orpheus", "yes", "yes", direction=True)], ledger_path=ledger)
    assert [r["holds"] for r in rows] == [False, True]
    df = load_ledger(ledger)
    assert df["direction"].tolist() == [True, True]
    assert df["magnitude"].isna().tolist() == [False, True] and not bool(df["magnitude"].iloc[0])
    assert df["cause"].tolist() == ["paper ambiguity: SM1, the ideal t*", ""]
    assert summarize_ledger(ledger).splitlines()[::5] == [
        "2 claims checked at 1 setting (default): 2 verdicts: 1 hold, 1 fail, 0 undecided, 0 fitted (direction holds "
        "in 2 of 2; magnitude checked in 1, holds in 0)",
        "- 004, Fig. 4c [default]: Orpheus normalized CT at n = 100: paper 1.67 vs ours 2.32 [magnitude fails] -- "
        "paper ambiguity: SM1, the ideal t*"]


def test_record_rejects_duplicate_keys_before_writing(ledger):
    from simlib.papers.claim import Claim

    c = Claim("000", "Fig. 5", "c", "1", "1", direction=True)
    with pytest.raises(ValueError, match="appears twice"):
        claims.record([c, c], ledger_path=ledger)
    assert not ledger.exists()


def test_reproduction_table_gives_each_claim_its_status(ledger):
    error = "likely paper error: groups never below p (test_sr_groups_at_least_p)"
    claims.record([_at("default", "a", True), _at("profile", "a", True),
                   _at("default", "b", False), _at("profile", "b", True),
                   _at("default", "d", False, error), _at("profile", "d", False),
                   _at("default", "e", False), _at("default", "f", False, "stand-in trace: 1 s"),
                   _at("priority", "f", True)], ledger)
    t = claims.reproduction_table(load_ledger(ledger), "000")
    assert list(t.columns) == ["figure", "claim", "default", "profile", "priority", "status", "cause"]
    assert dict(zip(t.claim, t.status)) == {"a": "holds at default and profile", "b": "holds at profile only",
                                            "d": "likely paper error", "e": "unexplained",
                                            "f": "holds at priority only"}
    assert t.set_index("claim").loc["e", "profile"] == "" and t.set_index("claim").loc["d", "cause"] == error
    assert claims.reproduction_table(load_ledger(ledger), "004").empty


def test_markdown_table_escapes_pipes():
    t = pd.DataFrame({"a": ["x|y", "z"], "b": [1, "p\nq"]})
    assert claims.markdown_table(t) == "| a | b |\n|---|---|\n| x\\|y | 1 |\n| z | p q |"


def _strong(claim, setting="default", *, direction=True, undecided=(), fitted="", cause=""):
    return Claim("002", "Table 1", claim, "faster", "1.04×", direction=direction, cause=cause, setting=setting,
                 pairs=10, sides="10 pairs: 7 above 1, 3 below", interval="0.98–1.10×", undecided=undecided,
                 fitted=fitted)


def test_strength_round_trips_and_undecided_rows_have_no_holds(ledger):
    claims.record([_strong("a", undecided="direction"), _strong("b"), _strong("c", fitted="PR16")], ledger)
    df = load_ledger(ledger)
    assert df["holds"].isna().tolist() == [True, False, False]
    assert df["pairs"].tolist() == ["10"] * 3 and df["interval"].tolist() == ["0.98–1.10×"] * 3
    assert df["undecided"].tolist() == ["direction", "", ""] and df["fitted"].tolist() == ["", "", "PR16"]
    # a row recorded again (now decided) replaces the undecided one
    claims.record(_strong("a"), ledger)
    assert load_ledger(ledger)["holds"].tolist() == [True, True, True]


def test_summary_counts_holds_fails_undecided_and_fitted_apart_per_paper_and_setting(ledger):
    """Hand-made: at the default one holds, one fails, one is undecided, two are fitted (one holding, one
    failing: neither counts as a hold or a fail); at the profile one holds."""
    claims.record([_strong("a"), _strong("b", direction=False, cause="unexplained: x"),
                   _strong("c", undecided="direction"), _strong("d", fitted="PR16"),
                   _strong("e", direction=False, cause="setting: y", fitted="PR16"),
                   _strong("a", "profile")], ledger)
    counts = claims.verdict_counts(load_ledger(ledger))
    assert counts.to_dict("records") == [
        {"paper": "002", "setting": "default", "holds": 1, "fails": 1, "undecided": 1, "fitted": 2},
        {"paper": "002", "setting": "profile", "holds": 1, "fails": 0, "undecided": 0, "fitted": 0}]
    lines = summarize_ledger(ledger).splitlines()
    assert lines[0].startswith("5 claims checked at 2 settings (default, profile): 6 verdicts: 2 hold, 1 fail, "
                               "1 undecided, 2 fitted")
    assert "  002 default: 1 hold, 1 fail, 1 undecided, 2 fitted" in lines
    assert ("- 002, Table 1 [default]: c: paper faster vs ours 1.04× [direction undecided at 10 pairs: "
            "0.98–1.10×]") in lines
    # a fitted claim that holds is not counted as holding anywhere
    row = claims.settings_table(load_ledger(ledger)).iloc[0]
    assert (row["at_default"], row["at_profile"]) == (1, 1)
    table = claims.reproduction_table(load_ledger(ledger), "002").set_index("claim")
    assert table.loc["c", "default"] == "undecided" and table.loc["c", "status"] == "undecided"
    assert table.loc["d", "default"] == "fitted"


def test_a_ledger_from_before_the_strength_columns_reads_with_them_empty(tmp_path):
    old = tmp_path / "claims.csv"
    columns = [c for c in COLUMNS if c not in STRENGTH_COLUMNS]
    row = dict(paper="P", figure="F", claim="c", setting="default", paper_value="1", our_value="1",
               direction="True", holds="True", kind="claim")
    old.write_text(",".join(columns) + "\n" + ",".join(row.get(c, "") for c in columns) + "\n")
    df = load_ledger(old)
    assert df["holds"].tolist() == [True] and df["undecided"].tolist() == [""] and df["fitted"].tolist() == [""]
    # an empty holds is allowed only on an undecided row
    old.write_text(",".join(columns) + "\n" + ",".join({**row, "holds": ""}.get(c, "") for c in columns) + "\n")
    with pytest.raises(ValueError, match="holds of a claim must be"):
        load_ledger(old)


def test_calibration_targets_are_marked_fitted_at_the_profile_only(ledger):
    """The marks come from the declarations next to E18 and PR16; the same statement at the default, or
    another statement at the profile, is not fitted."""
    from simlib.papers.partial_reduce import profile as pr
    from simlib.papers.selective_reduce import profile as sr

    sr_claim, pr_claim = sr.BASELINE_CLAIMS[0], next(iter(pr.FITTED_CLAIMS))
    rows = claims.record([Claim("000", "Fig. 5", sr_claim, "grows", "grows", direction=True, setting="profile"),
                          Claim("000", "Fig. 5", sr_claim, "grows", "grows", direction=True),
                          Claim("002", "Table 1", pr_claim, "smaller", "0.9×", direction=True, setting="profile"),
                          Claim("002", "Table 1", "other", "smaller", "0.9×", direction=True, setting="profile"),
                          Claim("004", "Table 1", pr_claim, "smaller", "0.9×", direction=True, setting="profile")],
                         ledger)
    assert [r["fitted"] for r in rows] == ["E18", "", "PR16", "", ""]
    counts = claims.verdict_counts(load_ledger(ledger)).set_index(["paper", "setting"])
    assert counts.loc[("000", "profile"), "fitted"] == 1 and counts.loc[("000", "profile"), "holds"] == 0
    assert counts.loc[("000", "default"), "holds"] == 1


def test_claims_away_from_the_paper_profile_resolve_no_calibration_marks(tmp_path):
    """Only a claim at the paper profile can be fitted (S24), so recording others imports no paper's profile
    modules (004's import its BSP figures and SSP experiments: 0.2-0.25 s in every notebook that records);
    a profile claim of 000 resolves 000's marks alone.  In a fresh interpreter, as a notebook's kernel."""
    import subprocess
    import sys

    script = f"""
import sys
from simlib.pipeline import claims
from simlib.papers.claim import Claim
claims.record([Claim("000", "Fig. 3", "a", "1", "1", direction=True),
               Claim("004", "Fig. 1", "b", "1", "1", direction=True, setting="default")], {str(tmp_path / "a.csv")!r})
profiles = ["simlib.papers." + m for m in ("selective_reduce.profile", "partial_reduce.profile",
                                          "selmcast.profile", "selmcast.ssp_profile")]
print([m for m in profiles if m in sys.modules])
from simlib.papers.selective_reduce.profile import BASELINE_CLAIMS
rows = claims.record(Claim("000", "Fig. 5", BASELINE_CLAIMS[0], "1", "1", direction=True, setting="profile"),
                     {str(tmp_path / "b.csv")!r})
print([m for m in profiles if m in sys.modules], rows[0]["fitted"])
"""
    out = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True,
                         cwd=str(Path(simlib.__file__).parents[1])).stdout.splitlines()
    assert out == ["[]", "['simlib.papers.selective_reduce.profile'] E18"]


def test_a_wall_clock_row_keeps_its_verdict_out_of_the_notebook_line(tmp_path):
    """A row from cite_measurements judges times measured on this machine: the ledger keeps its verdict,
    the line a notebook prints does not (it would differ from one reproduction to the next, issue 47)."""
    timed = claims.cite_measurements(Claim("004", "Fig. 4b", "MILP time super-linear", "super-linear", "x",
                                           direction=False, cause="setting: SM10"), "data/measurements/t.csv")
    plain = Claim("004", "Fig. 4b", "scale", "0.5", "0.4", direction=False, cause="setting: SM10")
    rows = claims.record(timed + [plain], tmp_path / "claims.csv")
    assert rows[0].summary().endswith("ours machine-dependent, see data/measurements/t.csv "
                                      "(verdict: machine-dependent, in the ledger)")
    assert rows[1].summary().endswith("(direction fails)")
    assert claims.load_ledger(tmp_path / "claims.csv").iloc[0]["direction"] == False  # noqa: E712 (pandas NA-aware)
