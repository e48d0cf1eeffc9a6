"""One paired-strength module for 000, 003 and 004 (issue 41): the committed ledger's texts recompute
byte for byte from the committed result CSVs.

The claims functions of 003 (notebook 30) and 004 (notebooks 41, 43-45, 47) are fed the frames the
notebooks saved in ``data/results/`` and must give, for every row they judge, the strings the last full
reproduction wrote into ``data/results/claims.csv``: value, cause, the strength fields (``sides``,
``interval``, ``pairs``) and the open verdicts.  The ledger was written by the code before
``simlib/papers/selmcast/paired.py`` was merged into ``simlib/papers/paired_strength.py``, so these
tests pin that the merge changed no text.  A full reproduction rewrites CSVs and ledger together,
so they stay the expected outputs afterwards.
"""
import csv

import pandas as pd
import pytest

from simlib.core.paths import COMMITTED_RESULTS

LEDGER = COMMITTED_RESULTS / "claims.csv"
pytestmark = pytest.mark.skipif(not LEDGER.exists(), reason="no committed ledger")


def _frame(name: str) -> pd.DataFrame:
    return pd.read_csv(COMMITTED_RESULTS / f"{name}.csv")


def _ledger(paper: str) -> dict:
    with open(LEDGER, newline="", encoding="utf-8") as f:
        return {(r["figure"], r["claim"], r["setting"]): r for r in csv.DictReader(f) if r["paper"] == paper}


def _mismatches(claims, rows: dict, *, only_strength: bool = False) -> tuple[int, list]:
    """(rows compared, differences) between claims and their committed rows."""
    seen, diffs = 0, []
    for c in claims:
        r = rows.get((c.figure, c.claim, c.setting))
        if only_strength and not c.sides:
            continue
        if r is None:
            diffs.append(("missing row", c.figure, c.claim, c.setting))
            continue
        seen += 1
        got = {"our_value": c.our_value, "cause": c.cause, "sides": c.sides, "interval": c.interval,
               "pairs": "" if c.pairs is None else str(c.pairs), "undecided": ",".join(c.undecided)}
        diffs += [(f, c.figure, c.claim, c.setting, v, r[f]) for f, v in got.items() if v != r[f]]
    return seen, diffs


def test_004_ssp_rows_recompute_from_the_committed_csvs():
    from simlib.papers.selmcast import ssp_claims as sc

    claims = []
    d7 = _frame("43_selmcast_ssp_fig7")
    d7 = d7[d7.tau_estimate == "trace"]
    raw = {f: _frame(f"44_selmcast_ssp_fig{f}") for f in (8, 9, 10)}
    r11, r12, r13 = (_frame(f"45_selmcast_ssp_fig{f}") for f in (11, 12, 13))
    x11 = r11[(r11.scheme == "selmcast") & (r11.line32 == "x")]
    y11 = r11[r11.line32.fillna("y") == "y"]
    for sh, st in sc.SETTINGS.items():           # as notebooks 43-45 judge them
        claims += sc.fig7(sc.reading(d7, sh), setting=st)
        claims += (sc.fig8(sc.reading(raw[8], sh), st) + sc.fig9(sc.reading(raw[9], sh), st)
                   + sc.fig10(sc.reading(raw[10], sh), st))
        claims += sc.fig11(sc.reading(y11, sh), st, df_x=x11 if sh == "maxmin" else None)
        claims += sc.fig12(r12, 200.0, st) if sh == "maxmin" else []
        claims += sc.fig13(sc.reading(r13, sh), st)
    seen, diffs = _mismatches(claims, _ledger("004"))
    assert not diffs
    assert seen == len(claims) >= 60
    assert sum(bool(c.sides) for c in claims) >= 20          # the strength texts are among them
    assert sum(bool(c.undecided) for c in claims) >= 1       # and an undecided verdict


def test_004_bsp_rows_recompute_from_the_committed_csvs():
    """Notebook 41's and 47's paired rows (wide frames: one row per trial, SelMcast's and Orpheus's columns)."""
    from simlib.papers.claim import at_setting
    from simlib.papers.selmcast import claims as C, profile as P, profile_map

    readings = {f: _frame(f"41_selmcast_{f}_readings") for f in ("fig4", "fig5", "fig6")}
    default = C.bsp_claims(_frame("41_selmcast_fig4"), _frame("41_selmcast_fig5"), _frame("41_selmcast_fig6"), None,
                           readings=readings, stated=(0.5, "own"), n_ref=100)
    # as notebook 41: a failing verdict's cause cites where notebook 47's committed map has it hold (SM76)
    default = profile_map.with_where(default, "default", "the stated reading (λ = 0.5, own t*)",
                                     profile_map.committed_where_holds("full"))
    profile = at_setting(C.bsp_claims(_frame("47_selmcast_fig4_profile"), _frame("47_selmcast_fig5_profile"),
                                      _frame("47_selmcast_fig6_profile"), None,
                                      stated=(P.PAPER_PROFILE.lam, P.PAPER_PROFILE.normalization), n_ref=100), "profile")
    rows = _ledger("004")
    for claims in (default, profile):
        seen, diffs = _mismatches(claims, rows, only_strength=True)
        assert not diffs
        assert seen >= 5


def test_003_rows_recompute_from_the_committed_csvs():
    """Notebook 30's rows (000/003's ``fields``: median-judged verdicts)."""
    from simlib.papers.fmreduce import claims as fm, experiments as fx

    def frame(name):
        d = _frame(name)
        d["variant"] = fx.label_variants(d)
        return d

    claims = fm.fig2(frame("30_fmreduce_fig2"), frame("30_fmreduce_p_sweep"), frame("30_fmreduce_traces"),
                     p_full=frame("30_fmreduce_p_eq_n"))
    seen, diffs = _mismatches(claims, _ledger("003"))
    assert not diffs
    assert seen == len(claims) and sum(bool(c.sides) for c in claims) >= 5


def test_003_fig2_claim_rows_write_the_committed_ledger_rows(tmp_path):
    """Issue 46: Fig. 2 as claim rows (``fmreduce.claims.FIG2_ROWS``) writes, column for column, the rows the
    last full reproduction wrote from the same CSVs -- every column but the run's provenance."""
    from simlib.papers.fmreduce import claims as fm, experiments as fx
    from simlib.pipeline.claims import COLUMNS, record

    def frame(name):
        d = _frame(name)
        d["variant"] = fx.label_variants(d)
        return d

    claims = fm.fig2(frame("30_fmreduce_fig2"), frame("30_fmreduce_p_sweep"), frame("30_fmreduce_traces"),
                     p_full=frame("30_fmreduce_p_eq_n"))
    record(claims, tmp_path / "claims.csv", notebook="30_fmreduce_fig2", profile="full")
    with open(tmp_path / "claims.csv", newline="", encoding="utf-8") as f:
        ours = list(csv.DictReader(f))
    committed = _ledger("003")
    compared = [c for c in COLUMNS if c not in ("notebook", "profile", "trials", "parameters")]
    assert len(ours) == len(claims) == 12 and sum(r["kind"] == "claim" for r in ours) == len(fm.FIG2_ROWS)
    for r in ours:
        want = committed[(r["figure"], r["claim"], r["setting"])]
        assert {c: r[c] for c in compared} == {c: want[c] for c in compared}


def test_002_table1_rows_write_the_committed_ledger_rows(tmp_path):
    """Issue 46: §5.2's Table 1 statements as rows (``table1_claims.TABLE1_ROWS``) write, from the committed
    ``22_pr_table1.csv``, the committed rows column for column; a cause is the start of the committed one
    (notebook 22 then appends the task's measurement, RP20, and the other setting's verdict)."""
    from simlib.papers.partial_reduce import table1_claims as t1
    from simlib.pipeline.claims import COLUMNS, record
    from simlib.training import nine_systems as ns

    df = _frame("22_pr_table1")
    df = df.assign(arm=[ns.arm_label(s, p) for s, p in zip(df["scheme"], df["p"])])
    claims = t1.table1(df)
    record(claims, tmp_path / "claims.csv", notebook="22_pr_sec5_nine_systems", profile="full")
    with open(tmp_path / "claims.csv", newline="", encoding="utf-8") as f:
        ours = list(csv.DictReader(f))
    committed = _ledger("002")
    compared = [c for c in COLUMNS if c not in ("notebook", "profile", "trials", "parameters", "cause")]
    assert len(ours) == len(claims) == len(t1.TABLE1_ROWS) >= 17
    for r in ours:
        want = committed[(r["figure"], r["claim"], r["setting"])]
        assert {c: r[c] for c in compared} == {c: want[c] for c in compared}
        assert want["cause"].startswith(r["cause"]) and bool(want["cause"]) == bool(r["cause"])


def test_000_figs8_10_rows_write_the_committed_ledger_rows(tmp_path):
    """Issue 46: Figs. 9-10 as rows (``selective_reduce.claims.FIG9_10_ROWS``) with Fig. 8's claims write, from
    the committed notebook-12 CSVs at the default setting, the committed rows column for column but the cause,
    which notebook 12 rewrites where a failing claim holds at another setting (empty where ours is)."""
    from simlib.papers.selective_reduce import claims as sr
    from simlib.pipeline.claims import COLUMNS, record

    claims = sr.figs8_10(_frame("12_sr_fig8-10"), p=0.3, eta=0.3, theta=1.0, rescaled=_frame("12_sr_fig9-10_rescaled"))
    record(claims, tmp_path / "claims.csv", notebook="12_sr_fig8-10", profile="full")
    with open(tmp_path / "claims.csv", newline="", encoding="utf-8") as f:
        ours = list(csv.DictReader(f))
    committed = _ledger("000")
    compared = [c for c in COLUMNS if c not in ("notebook", "profile", "trials", "parameters", "cause")]
    assert len(ours) == len(claims) >= len(sr.FIG9_10_ROWS)
    for r in ours:
        want = committed[(r["figure"], r["claim"], r["setting"])]
        assert {c: r[c] for c in compared} == {c: want[c] for c in compared}
        assert bool(want["cause"]) == bool(r["cause"])
