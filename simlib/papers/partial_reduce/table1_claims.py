"""Seed 002 §5.2's statements about all nine systems of Table 1, and §5.3.2's Fig. 11, as tested code
(notebook 22).

§5.2's statements are a table, :data:`TABLE1_ROWS` (arms, claim, paper value, rule, metric, side of 1,
note, RP20 evidence key), each judged by a small named rule (:func:`every_hl`, :func:`up_to`, ...).
:func:`table1` reads the ``22_pr_table1`` frame (one row per arm, HL and trial: ``arm`` is Table 1's
column name, ``AR``, ``ER``, ``AD``, ``BSP``, ``ASP``, ``HETE``, ``BK``, ``CON3``, ``DYN3``, ``CON5``,
``DYN5``, and ``SR3`` for selective reduce); :func:`fig11` reads the ``22_pr_fig11`` frame (``arm``
``AR``, ``BK``, ``PR<P>`` and ``1 worker``, ``n``, ``trial``).  Both return
:class:`~simlib.papers.claim.Claim` rows.

Rules (fixed before looking at our values; those of :mod:`.claims`):

* "A is faster / needs more updates / is cheaper per update than B": the median over trials of the
  paired ratio (trial t of every arm shares its seed), at **every** HL of the frame, strictly on the
  stated side of 1 *for certain*: a run that never reaches the target is censored at its run length
  (a time) or unknown (a count), so a median such runs can move is a bound or n/a
  (:mod:`simlib.papers.censoring`), and a statement it leaves open does not hold;
* "up to X×" (a maximum over Table 1's models and HLs): direction, our largest median ratio over
  the HLs (over HL > 1 where the paper says "heterogeneous") is > 1; magnitude, it is within
  :data:`~.claims.NEAR_REL` = 10 % of X;
* "at most 1.48–2.01×" (one maximum per model): our largest median ratio over HL > 1 lies in the
  closed range;
* "4× faster per update": within 10 % at every HL (as notebook 21);
* "fails to reach the threshold": no run of the arm reaches the target, at every HL;
* "dynamic weights need fewer updates than constant" (§5.2.2): as "A needs fewer updates than B",
  DYN<P> against CON<P>, at every HL;
* Fig. 11's "AR and BK scale worse than PR": at the largest n, the median paired speedup over one
  worker (time of the 1-worker run / time of the n-worker run; a bound when a run never reaches
  the target) of PR is certainly larger.
"""
from __future__ import annotations

import dataclasses
import math
import re
from typing import Callable

import numpy as np
import pandas as pd

from simlib.papers.analysis import require_frame as _need
from simlib.papers.censoring import bounded_stat, fmt_bound, fmt_span, ratio_bounds, span_of
from simlib.papers.claim import DEFAULT_SETTING, Claim, at_setting, observation, within

from simlib.papers.strength import combine_max, in_range, side as _side, strength

from .claims import (NEAR_REL, NEAR_RULE, PAPER, PER_UPDATE_SPEEDUP, RANGE_RULE, TABLE1_ALL, TABLE1_ARMS,
                     TABLE1_DYN_VS_AR, _censored, bounded_within, decided, paired_masks, ratio_text, row_strength,
                     strength_fields)

__all__ = ["CLUSTER_DEFAULT", "EVIDENCE_KEYS", "TABLE1_ALL", "TABLE1_ARMS", "UP_TO", "DYN_VS_AR", "PER_UPDATE",
           "table1_ratios", "claim_arms", "paired_arms", "speedup", "table1", "fig11", "selective_drawn", "filter_sensitivity",
           "filter_verdicts", "filter_observation", "Table1Row", "TABLE1_ROWS", "every_hl", "up_to", "at_most_range",
           "near_factor", "never_reaches", "selective_row"]

#: §5.2.1's "up to" statements: (numerator arm of the time ratio, our PR arm, X); 1.47 is BK/CON5
#: (VGG-19, HL 1), 1.84 BK/DYN3 (VGG-19, HL 1) and 1.74 AD/DYN3 (DenseNet-121, HL 2) in Table 1.
UP_TO = {"BK/CON5": ("BK", "CON5", 1.47), "BK/DYN3": ("BK", "DYN3", 1.84), "AD/DYN3": ("AD", "DYN3", 1.74)}
#: §5.2.2's "at most 1.48–2.01× faster than All-Reduce" (DYN, P = 3, HL > 1): :data:`.claims.TABLE1_DYN_VS_AR`.
DYN_VS_AR = TABLE1_DYN_VS_AR[1:]
#: §5.2.2's "the per-update time is 4× faster than All-Reduce" (P = 3): :data:`.claims.PER_UPDATE_SPEEDUP`.
PER_UPDATE = PER_UPDATE_SPEEDUP[1]
_METRIC = {"time": "time_to_target_s", "updates": "updates_to_target", "per-update": "per_update_s"}
_IDX = {"time": 0, "updates": 1, "per-update": 2}
_NAME = {"time": "time to target", "updates": "#updates to target", "per-update": "time per update"}
_NOTE = ("paired per trial (median of the per-trial ratio); a run that never reaches the target is censored at its "
         "run length (a time) or unknown (a count), so a median it can move is a bound or n/a and a statement it "
         "leaves open does not hold")
_UNDECIDED = ("; undecided (S24) where an HL's 95 % interval of the median straddles 1 (direction) or a bound "
              "of the paper's range (magnitude)")
_UNDECIDED_MAX = ("; undecided (S24) where the interval of the largest median, [largest lower end, largest upper "
                  "end], straddles the threshold")
#: The cluster the causes name by default (TrainScenario's defaults); :func:`table1`'s ``cluster`` replaces it.
CLUSTER_DEFAULT = "002's 8 workers, 10 Gbps, 100 MB, HL workers HL× slower"
_SETTING = (f"setting: the simulated cluster ({CLUSTER_DEFAULT}) and the "
            "replayed learning task (docs/decisions/replay.md) stand in for the paper's GPUs and CNNs; ")


def claim_arms(claim: Claim) -> set[str]:
    """The arms a :func:`table1` claim compares (every ``"paired X/Y"`` of its value): the runs to extend
    when its verdict is undecided (S25); empty for a claim that compares no pair."""
    return {a for pair in re.findall(r"paired (\w+)/(\w+)", claim.our_value) for a in pair}


def table1_ratios(num: str, den: str, what: str, hls=None) -> list[float]:
    """``num``'s value over ``den``'s in Table 1 (``what``: "time", "updates" or "per-update") for
    every model and HL (``hls``: "homogeneous", "heterogeneous" or None for both); N/A cells skipped."""
    i = _IDX[what]
    out = []
    for (_, hl), cells in TABLE1_ALL.items():
        if (hls == "homogeneous" and hl > 1) or (hls == "heterogeneous" and hl == 1):
            continue
        a, b = cells[num][i], cells[den][i]
        if a is not None and b is not None:
            out.append(a / b)
    return out


def paired_arms(df: pd.DataFrame, metric: str, num: str, den: str) -> pd.DataFrame:
    """Per HL: the median, min and max over trials of ``metric(num) / metric(den)`` (arms by name),
    ``trials`` and ``num_smaller`` (see :func:`~.claims.paired`)."""
    return paired_masks(df, metric, df["arm"] == num, df["arm"] == den, ("hl",))


def _per_hl(r: pd.DataFrame, tied: set = frozenset()) -> str:
    """Per HL the median paired ratio (``r`` from :func:`paired_arms`); for an HL in ``tied`` (both arms' runs
    identical in every pair, none censored) no ratio but "n/a": it is 1 by identity, not a measured speed."""
    return "; ".join(f"HL={row.hl:g}: n/a, identical in {int(row.trials)} of {int(row.trials)} pairs" if row.hl in tied
                     else f"HL={row.hl:g}: {ratio_text(row._asdict())} ({int(row.num_smaller)} of {int(row.trials)} "
                          f"trials num < den" + (f", {int(row.censored)} censored" if row.censored else "") + ")"
                     for row in r.itertuples(index=False))


def _tied_hls(d: pd.DataFrame, a: str, b: str, metric: str = "time_to_target_s") -> set:
    """The HLs at which arms ``a`` and ``b`` have the same ``metric`` in every pair and no censored pair."""
    out = set()
    for hl, th in d.groupby("hl"):
        same, censored, pairs = identical_pairs(th, a, b, metric)
        if pairs and same == pairs and not censored:
            out.add(hl)
    return out


def _why(d: pd.DataFrame, a: str, b: str, hl) -> str:
    """Cause text for a run-time comparison of arms ``a`` and ``b``: our updates and per-update ratios."""
    th = d[d["hl"] == hl]
    parts = []
    for what, label in (("updates", "updates to the target"), ("per-update", "time per update")):
        r = paired_arms(th, _METRIC[what], a, b)
        if len(r):
            paper = table1_ratios(a, b, what)
            parts.append(f"{a}/{b} {label} {ratio_text(r.iloc[0])}"
                         + (f" (Table 1: {span_of(paper)})" if paper else ""))
    return _SETTING + f"at HL={hl:g} " + ", ".join(parts)


def _every_hl(d, what, num, den, *, side, statement, says, extra_note="", hls=None):
    """One claim: at every HL (of ``hls``), the median paired ``num/den`` of ``what`` ("time", "updates"
    or "per-update") is > 1 (``side="num"``: num is larger) or < 1 (``side="den"``); the paper value is
    ``says`` and Table 1's range of the same ratio.  Magnitude (where the direction holds): every HL's
    median is a number within Table 1's range over its three models at that level (HL = 1: its
    homogeneous rows; HL > 1: its heterogeneous ones), :data:`~.claims.RANGE_RULE` as notebook 21's
    Table 1 rows; a level whose Table 1 cells are N/A is not judged."""
    r = paired_arms(d if hls is None else d[d["hl"].isin(hls)], _METRIC[what], num, den)
    if r.empty:
        return []
    larger = r["median_lo"] > 1 if side == "num" else r["median_hi"] < 1
    ok = bool(larger.all())
    paper = {hl: table1_ratios(num, den, what, "heterogeneous" if hl > 1 else "homogeneous") for hl in r["hl"]}
    inside = pd.Series([bounded_within(row._asdict(), min(paper[row.hl]), max(paper[row.hl]))
                        if paper[row.hl] else True for row in r.itertuples(index=False)], index=r.index)
    mag = None if not ok or not any(paper.values()) else bool(inside.all())
    st = {row.hl: row_strength(row._asdict()) for row in r.itertuples(index=False)}
    d_dir = decided(_side(st[hl], "above" if side == "num" else "below") for hl in st)
    d_mag = True if mag is None else decided(in_range(st[hl], min(paper[hl]), max(paper[hl])) for hl in st
                                             if paper[hl])
    if not ok:
        cause = "; ".join(_why(d, num, den, row.hl) if not row.censored else _censored(row._asdict())
                          for row in r[~larger].itertuples(index=False))
    elif mag is False:
        cause = "; ".join(_censored(row._asdict()) if row.censored else
                          _why(d, num, den, row.hl) + f"; {num}/{den} {ratio_text(row._asdict())} outside Table 1's "
                          f"{fmt_span(min(paper[row.hl]), max(paper[row.hl]))} at HL {'> 1' if row.hl > 1 else '= 1'}"
                          for row in r[~inside].itertuples(index=False))
    else:
        cause = ""
    per = " per update" if what == "per-update" else ""
    return [Claim(PAPER, "Table 1", statement, f"{says}; Table 1 {num}/{den}{per}: "
                                               f"{span_of(table1_ratios(num, den, what))}",
                  f"median paired {num}/{den}: " + _per_hl(r),
                  direction=ok, magnitude=mag, tolerance="" if mag is None else
                  f"{RANGE_RULE}: every HL's median in Table 1's range at that HL (homogeneous / heterogeneous rows)",
                  cause=cause, note=f"{_NAME[what]}; {_NOTE}; holds if every HL's median is "
                                    f"certainly {'> 1' if side == 'num' else '< 1'}" + extra_note + _UNDECIDED,
                  **strength_fields(st, d_dir, d_mag))]


def _up_to(d, key, statement, says, hls=None):
    num, den, x = UP_TO[key]
    sub = d if hls is None else d[d["hl"].isin(hls)]
    r = paired_arms(sub, "time_to_target_s", num, den)
    if r.empty:
        return []
    top_lo, top_hi = float(r["median_lo"].max()), float(r["median_hi"].max())
    ok_d = top_lo > 1
    ok_m = top_lo == top_hi and within(top_lo, x, NEAR_REL)      # censored runs: not shown within
    hl_top = r.loc[r["median_hi"].idxmax(), "hl"]
    row_top = r[r["hl"] == hl_top].iloc[0]
    cause = "" if ok_d and ok_m else (_censored(row_top) if row_top["censored"] or top_lo != top_hi
                                      else _why(d, num, den, hl_top))
    st = {row.hl: row_strength(row._asdict()) for row in r.itertuples(index=False)}
    top = combine_max(list(st.values()))
    fields = strength_fields(st, _side(top, "above"), in_range(top, x * (1 - NEAR_REL), x * (1 + NEAR_REL)))
    return [Claim(PAPER, "Table 1", statement, f"{says} (Table 1 {num}/{den}: "
                                               f"{span_of(table1_ratios(num, den, 'time'))})",
                  f"largest median paired {num}/{den} time {fmt_bound(top_lo, top_hi)} at HL={hl_top:g}; "
                  + _per_hl(r),
                  direction=bool(ok_d), magnitude=ok_m, tolerance=NEAR_RULE + ", our largest over HL",
                  cause=cause, note=f"time to target, {_NOTE}; direction: the largest median > 1"
                                    + ("" if hls is None else "; heterogeneous HLs only") + _UNDECIDED_MAX, **fields),
            ]


#: The keys of :func:`table1`'s ``evidence``: the statistical claims whose causes carry the task's own
#: measurement (decision RP20; :func:`simlib.training.statistical_evidence.evidence_texts`).
EVIDENCE_KEYS = ("eager", "staleness", "dynamic")


def table1(df: pd.DataFrame, cluster: str | None = None, evidence: dict | None = None) -> list[Claim]:
    """§5.2's statements on Table 1 from the ``22_pr_table1`` frame (needs ``arm``, ``hl``, ``trial``,
    ``time_to_target_s``, ``updates_to_target``, ``per_update_s``, ``reached``).  Statements whose
    arms the frame lacks are left out.  ``cluster`` describes the cluster the frame ran on, for the
    causes (default :data:`CLUSTER_DEFAULT`; e.g. the 002 paper profile's label, PR16).  ``evidence``
    maps keys of :data:`EVIDENCE_KEYS` to a measurement on the learning task (RP20) that the failing
    statistical claims' causes end with: ``"eager"`` Eager-Reduce never reaching the threshold,
    ``"staleness"`` PS ASP needing more updates than BSP and HETE (staleness-aware) beating ASP,
    ``"dynamic"`` dynamic weights needing fewer updates."""
    unknown = sorted(set(evidence or {}) - set(EVIDENCE_KEYS))
    if unknown:
        raise ValueError(f"evidence keys must be among {list(EVIDENCE_KEYS)}, got {unknown}")
    out = _table1(df, evidence or {})
    if cluster is None:
        return out
    return [dataclasses.replace(c, cause=c.cause.replace(CLUSTER_DEFAULT, cluster)) for c in out]


def _with_evidence(claims: list[Claim], text: str | None) -> list[Claim]:
    """``claims`` with ``"; on the task: <text>"`` at the end of every failing claim's cause (RP20; an
    undecided claim's too, where it has one)."""
    if not text:
        return claims
    return [dataclasses.replace(c, cause=f"{c.cause}; on the task: {text}") if c.kind == "claim" and not c.holds
            and c.cause else c for c in claims]


# ---- the rules a Table 1 row is judged by: (frame, row, heterogeneous HLs) -> claims
def every_hl(d: pd.DataFrame, row: "Table1Row", het: list) -> list[Claim]:
    """The median paired ratio of ``row.what`` is on ``row.side`` of 1 at every HL (:func:`_every_hl`)."""
    num, den = row.arms
    return _every_hl(d, row.what, num, den, side=row.side, statement=row.statement, says=row.says,
                     extra_note=row.extra_note)


def up_to(d: pd.DataFrame, row: "Table1Row", het: list) -> list[Claim]:
    """"up to X×": the largest median paired time ratio > 1 and within 10 % of X (:data:`UP_TO`, :func:`_up_to`)."""
    return _up_to(d, "/".join(row.arms), row.statement, row.says, hls=het if row.het_only else None)


def at_most_range(d: pd.DataFrame, row: "Table1Row", het: list) -> list[Claim]:
    """§5.2.2's "at most 1.48–2.01× faster than AR" (:data:`DYN_VS_AR`): every HL > 1 median > 1, the largest
    in the closed range."""
    num, den = row.arms
    r = paired_arms(d[d["hl"].isin(het)], _METRIC["time"], num, den)
    if not len(r):
        return []
    top_lo, top_hi = float(r["median_lo"].max()), float(r["median_hi"].max())
    lo, hi = DYN_VS_AR
    ok_d = bool((r["median_lo"] > 1).all())
    ok_m = bool(top_lo == top_hi and lo <= top_lo <= hi)         # censored runs: not shown within
    st = {x.hl: row_strength(x._asdict()) for x in r.itertuples(index=False)}
    return [Claim(
        PAPER, "Table 1", row.statement, row.says, f"median paired {num}/{den} time: " + _per_hl(r),
        direction=ok_d, magnitude=ok_m, tolerance="our largest median over HL > 1 in the closed range",
        cause="" if ok_d and ok_m else (
            _censored(r.loc[r["median_hi"].idxmax()]) if r["censored"].any()
            else _why(d, num, den, r.loc[r["median_hi"].idxmax(), "hl"])),
        note=f"time to target, {_NOTE}; direction: every HL > 1 median > 1" + row.extra_note + _UNDECIDED_MAX,
        **strength_fields(st, decided(_side(v, "above") for v in st.values()),
                          in_range(combine_max(list(st.values())), lo, hi)))]


def near_factor(d: pd.DataFrame, row: "Table1Row", het: list) -> list[Claim]:
    """§5.2.2's "4× faster per update" (:data:`PER_UPDATE`): every HL's median per-update ratio certainly
    > 1 and within 10 % of 4."""
    num, den = row.arms
    r = paired_arms(d, _METRIC["per-update"], num, den)
    if not len(r):
        return []
    ok_d = bool((r["median_lo"] > 1).all())
    ok_m = bool(all(within(m, PER_UPDATE, NEAR_REL) for m in r["median"]))   # NaN (censored): never
    st = {x.hl: row_strength(x._asdict()) for x in r.itertuples(index=False)}
    return [Claim(
        PAPER, "Table 1", row.statement,
        f"{row.says}; Table 1 {num}/{den}: {span_of(table1_ratios(num, den, 'per-update'))}",
        f"median paired {num}/{den} per update: " + _per_hl(r), direction=ok_d, magnitude=ok_m,
        tolerance=NEAR_RULE + ", at every HL",
        cause="" if ok_d and ok_m else _SETTING + "one update's time is set by the cluster and its "
                                                  "model of a slow, shared GPU as an HL× slower worker",
        note=f"time per update, {_NOTE}" + _UNDECIDED,
        **strength_fields(st, decided(_side(v, "above") for v in st.values()),
                          decided(in_range(v, PER_UPDATE * (1 - NEAR_REL), PER_UPDATE * (1 + NEAR_REL))
                                  for v in st.values())))]


def never_reaches(d: pd.DataFrame, row: "Table1Row", het: list) -> list[Claim]:
    """"fails to reach the threshold": no run of the arm reaches the target, at every HL."""
    (arm,) = row.arms
    er = d[d["arm"] == arm].groupby("hl")["reached"].agg(["sum", "size"])
    ok = bool((er["sum"] == 0).all())
    reached = d[(d["arm"] == arm) & (d["reached"] > 0)]
    return [Claim(
        PAPER, "Table 1", row.statement, row.says,
        "; ".join(f"HL={hl:g}: reached in {int(s)} of {int(n)} runs" for hl, (s, n) in er.iterrows()),
        direction=ok,
        cause="" if ok else "setting: on the replayed learning task (docs/decisions/replay.md) ER's "
                            "stale gradients (ER1-ER2) still reach the target, median "
                            f"{reached['time_to_target_s'].median():.0f} s where it does",
        note="holds if no ER run reaches the target at any HL")]


def selective_row(d: pd.DataFrame, row: "Table1Row", het: list) -> list[Claim]:
    """An observation, no paper statement: selective reduce against partial reduce in Table 1's setting."""
    num, den = row.arms
    r = paired_arms(d, _METRIC["time"], num, den)
    if not len(r):
        return []
    same, censored, _ = identical_pairs(d, num, den)
    return [observation(
        PAPER, "Table 1", row.statement,
        f"median paired {num}/{den} time: {_per_hl(r, _tied_hls(d, num, den))}; identical times in {same} of "
        f"{int((d['arm'] == num).sum())} runs; {censored} pairs censored",
        note="no paper has this row; with one bandwidth for every worker, Alg. 2's waiting gain is 0, "
             "so selective reduce never holds a worker and forms the FIFO group of p")]


@dataclasses.dataclass(frozen=True)
class Table1Row:
    """One §5.2 statement on Table 1 (:data:`TABLE1_ROWS`): the ``arms`` it compares (numerator first; left
    out when the frame lacks one), the claim (``statement``), what the paper says (``says``), the ``rule``
    judging it and giving the cause when it fails (:func:`every_hl`, :func:`up_to`, :func:`at_most_range`,
    :func:`near_factor`, :func:`never_reaches`, :func:`selective_row`), the ratio's metric (``what``) and
    the side of 1 the numerator's median must lie on (``side``: "num" above, "den" below), a note's
    ``extra_note``, the :data:`EVIDENCE_KEYS` key whose measurement ends its failing cause (RP20), and
    ``het_only``: judged on the heterogeneous HLs only (left out without any)."""
    arms: tuple
    statement: str
    says: str
    rule: Callable
    what: str = "time"
    side: str = "num"
    extra_note: str = ""
    evidence: str | None = None
    het_only: bool = False


_PS6 = "; ASP's step size per push: decision PS6"
_PR13 = "; dynamic weights' reading of x_1: PR13"

#: §5.2's statements on Table 1, in the ledger's order (see the module's rules).
TABLE1_ROWS = (
    *(Table1Row(("BSP", f"CON{P}"), f"nine systems: PS BSP is (slightly) slower than partial reduce (P={P})",
                "slower (§5.2.1)", every_hl) for P in (3, 5)),
    Table1Row(("ASP", "BSP"), "nine systems: PS ASP needs more updates than PS BSP", "more updates (§5.2.1)",
              every_hl, what="updates", extra_note=_PS6, evidence="staleness"),
    Table1Row(("ASP", "CON3"), "nine systems: PS ASP converges slower than partial reduce (P=3)", "slower (§5.2.1)",
              every_hl, extra_note=_PS6),
    Table1Row(("ASP", "HETE"), "nine systems: PS HETE is faster than PS ASP", "HETE outperforms ASP (§5.2.1)",
              every_hl, extra_note="; HETE's constant: PS3; ASP's step size: PS6", evidence="staleness"),
    Table1Row(("HETE", "CON3"), "nine systems: PS HETE is slower than partial reduce (P=3)",
              "still slower than partial reduce (§5.2.1)", every_hl),
    Table1Row(("BK", "CON5"), "nine systems: partial reduce (P=5) beats PS BK (3 backups), up to 1.47×",
              f"up to {UP_TO['BK/CON5'][2]:.2f}×", up_to),
    Table1Row(("BK", "CON5"), "nine systems: partial reduce (P=5) has a lower per-update time than PS BK",
              "lower (§5.2.1)", every_hl, what="per-update"),
    Table1Row(("BK", "DYN3"), "nine systems: partial reduce (P=3) beats PS BK, up to 1.84×",
              f"up to {UP_TO['BK/DYN3'][2]:.2f}×", up_to),
    *(Table1Row((f"DYN{P}", f"CON{P}"), f"nine systems: dynamic weights need fewer updates than constant (P={P})",
                "fewer updates (§5.2.2)", every_hl, what="updates", side="den", extra_note=_PR13,
                evidence="dynamic") for P in (3, 5)),
    Table1Row(("AR", "DYN3"), "nine systems: DYN (P=3) is at most 1.48–2.01× faster than AR for HL > 1",
              f"at most {DYN_VS_AR[0]:.2f}–{DYN_VS_AR[1]:.2f}× (§5.2.2)", at_most_range, extra_note=_PR13,
              het_only=True),
    Table1Row(("AR", "CON3"), "nine systems: partial reduce (P=3) is 4× faster per update than AR",
              f"{PER_UPDATE:g}× (§5.2.2)", near_factor, what="per-update"),
    Table1Row(("AD", "DYN3"), "nine systems: partial reduce (P=3) beats AD-PSGD in heterogeneous settings, "
                              "up to 1.74×", f"up to {UP_TO['AD/DYN3'][2]:.2f}×", up_to, het_only=True),
    Table1Row(("ER", "AR"), "nine systems: Eager-Reduce is cheaper per update than AR", "smaller (§5.2.2)",
              every_hl, what="per-update", side="den",
              extra_note="; a run that never reaches the target: its duration / its updates"),
    Table1Row(("ER",), "nine systems: Eager-Reduce fails to reach the accuracy threshold", "N/A (§5.2.2)",
              never_reaches, evidence="eager"),
    Table1Row(("SR3", "CON3"), "nine systems: selective reduce (000) in Table 1's setting", "", selective_row),
)


def _table1(df: pd.DataFrame, evidence: dict) -> list[Claim]:
    """Every row of :data:`TABLE1_ROWS` whose arms (and, if it needs them, heterogeneous HLs) ``df`` has."""
    _need(df, "df", ["arm", "hl", "trial", "time_to_target_s", "updates_to_target", "per_update_s", "reached"])
    arms = set(df["arm"])
    het = [hl for hl in sorted(df["hl"].unique()) if hl > 1]
    out: list[Claim] = []
    for row in TABLE1_ROWS:
        if all(a in arms for a in row.arms) and (het or not row.het_only):
            claims = row.rule(df, row, het)
            out += _with_evidence(claims, evidence.get(row.evidence)) if row.evidence else claims
    return out


def identical_pairs(d: pd.DataFrame, a: str, b: str, metric: str = "time_to_target_s") -> tuple[int, int, int]:
    """(pairs whose ``metric`` is the same for arms ``a`` and ``b``; pairs with a censored (NaN) run,
    which are no tie (RP17); pairs), matching on ``hl`` and ``trial``."""
    x = d[d["arm"] == a].set_index(["hl", "trial"])[metric]
    y = d[d["arm"] == b].set_index(["hl", "trial"])[metric]
    x, y = x.align(y, join="inner")
    return int((x == y).sum()), int((x.isna() | y.isna()).sum()), len(x)


def selective_drawn(df: pd.DataFrame, lam: float = 0.05) -> list[Claim]:
    """Selective reduce's row where it can differ from partial reduce (decision PR17): the observation
    on a ``22_pr_sr_bandwidths`` frame (arms ``SR3``, ``CON3``, ``AR`` at 000 §IV-A1's drawn
    bandwidths, skew ``lam``): per HL the median paired SR3/CON3 and SR3/AR (and CON3/AR) time to
    target, SR3/CON3 updates and time per update, and how many runs of SR3 and CON3 were identical."""
    _need(df, "df", ["arm", "hl", "trial", "time_to_target_s", "updates_to_target", "per_update_s", "reached"])
    if not {"SR3", "CON3"} <= set(df["arm"]):
        return []
    parts = []
    for num, den, what in (("SR3", "CON3", "time"), ("SR3", "AR", "time"), ("CON3", "AR", "time"),
                           ("SR3", "CON3", "updates"), ("SR3", "CON3", "per-update")):
        if den in set(df["arm"]):
            parts.append(f"{num}/{den} {_NAME[what]}: " + _per_hl(paired_arms(df, _METRIC[what], num, den),
                                                                   _tied_hls(df, num, den, _METRIC[what])))
    same, censored, pairs = identical_pairs(df, "SR3", "CON3")
    reached = df.groupby("arm")["reached"].agg(["sum", "size"])
    return [observation(PAPER, "Table 1 (PR17)", "nine systems: selective reduce (000) at 000's drawn bandwidths",
                        "; ".join(parts) + f"; identical times in {same} of {pairs} runs; {censored} pairs censored; reached: "
                        + ", ".join(f"{a} {int(r['sum'])} of {int(r['size'])}" for a, r in reached.iterrows()),
                        note=f"8 workers, each bandwidth round(20u, 3) Gbps, u ~ U[{lam:g}, 1] (000 §IV-A1), drawn per "
                             "trial and shared by the arms of a trial; paired per trial (median of per-trial ratios); "
                             "no paper has this row (PR17)")]


def filter_sensitivity(off: pd.DataFrame, on: pd.DataFrame) -> pd.DataFrame:
    """Per ``(hl, arm)``: partial reduce's Table 1 arms with 002 §4's group filter on (frame ``on``)
    over the same runs with it off (``off``, the ``22_pr_table1`` frame), paired per trial (decision
    PR18): ``time`` and ``updates`` (:func:`~.claims.paired_masks` rows' ``median`` or a bound text),
    ``identical`` (trials whose time to target did not change), ``censored`` (pairs with a run that never
    reached the target: no tie, RP17), ``tied`` (the time and the updates the same in every pair, none
    censored: the ratios are 1 by identity) and ``trials`` (pairs; an arm and HL without any is left out)."""
    for name, d in (("off", off), ("on", on)):
        _need(d, name, ["arm", "hl", "trial", "time_to_target_s", "updates_to_target"])
    cols = [c for c in ("arm", "hl", "trial", "time_to_target_s", "updates_to_target", "duration_s", "run_updates")
            if c in off.columns and c in on.columns]
    both = pd.concat([off.loc[off["arm"].isin(set(on["arm"])) & off["hl"].isin(set(on["hl"])), cols].assign(_f="off"),
                      on[cols].assign(_f="on")], ignore_index=True)
    rows = []
    for (hl, arm), g in both.groupby(["hl", "arm"], sort=True):
        row = dict(hl=hl, arm=arm)
        for what in ("time", "updates"):
            r = paired_masks(g, _METRIC[what], g["_f"] == "on", g["_f"] == "off")
            row[what] = ratio_text(r.iloc[0]) if len(r) else "n/a"
        arms = g.assign(arm=g["_f"])
        same, censored, pairs = identical_pairs(arms, "on", "off")
        same_u, _, _ = identical_pairs(arms, "on", "off", _METRIC["updates"])
        row.update(identical=same, censored=censored, tied=bool(pairs) and same == same_u == pairs and not censored,
                   trials=pairs)
        if pairs:
            rows.append(row)
    return pd.DataFrame(rows, columns=["hl", "arm", "time", "updates", "identical", "censored", "tied", "trials"])


def filter_verdicts(off: pd.DataFrame, on: pd.DataFrame) -> pd.DataFrame:
    """The Table 1 claims judged on ``off`` (restricted to ``on``'s HLs) and on the same frame with
    ``on``'s partial-reduce runs in place of their filter-off runs (PR18): one row per claim,
    ``off`` / ``on`` (holds; None: undecided, S24), for the claims both judge."""
    hls = set(on["hl"])
    base = off[off["hl"].isin(hls)]
    mixed = pd.concat([base[~base["arm"].isin(set(on["arm"]))], on], ignore_index=True)
    a = {c.claim: c.holds for c in table1(base) if c.kind == "claim"}
    b = {c.claim: c.holds for c in table1(mixed) if c.kind == "claim"}
    return pd.DataFrame([(k, a[k], b[k]) for k in a if k in b], columns=["claim", "off", "on"])


def _word(holds) -> str:
    return "undecided" if holds is None or pd.isna(holds) else ("holds" if holds else "fails")


def filter_observation(off: pd.DataFrame, on: pd.DataFrame) -> list[Claim]:
    """The group filter's sensitivity (PR18) as a ledger observation: the paired on/off ratios per arm
    and HL (:func:`filter_sensitivity`) and the claims whose verdict changes (:func:`filter_verdicts`)."""
    sens = filter_sensitivity(off, on)
    if sens.empty:
        return []
    v = filter_verdicts(off, on)
    flips = v[v["off"].map(_word) != v["on"].map(_word)]
    return [observation(PAPER, "Table 1 (PR18)", "nine systems: partial reduce's arms with 002 §4's group filter on",
                        "on/off time, updates: " + "; ".join(
                            (f"{r.arm} HL={r.hl:g} n/a, identical in {r.trials} of {r.trials} pairs" if r.tied else
                             f"{r.arm} HL={r.hl:g} {r.time}, {r.updates} ({r.identical} of {r.trials} identical, "
                             f"{r.censored} pairs censored)")
                            for r in sens.itertuples(index=False))
                        + f"; Table 1 verdicts changed: {len(flips)} of {len(v)}"
                        + "".join(f"; {r.claim}: {_word(r.off)} -> {_word(r.on)}" for r in flips.itertuples(index=False)),
                        note="the same seeds with the filter off (Table 1's runs) and on (window T of PR12), paired per "
                             "trial; verdicts over the HLs run with the filter (PR18)")]


def speedup(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 11's speedup: per (arm, n, trial), the time to target of the 1-worker run of the same trial
    (``arm == "1 worker"``) divided by this run's, with censoring (:mod:`simlib.papers.censoring`): a
    run that never reaches the target is censored at its ``duration_s``, so its speedup is a bound.
    Returns ``arm``, ``n``, ``trial``, ``speedup`` (NaN unless a number), ``speedup_lo``, ``speedup_hi``
    (its bounds: ``[0, t_1 / cap]`` when this run never reached the target) and ``reached``."""
    _need(df, "df", ["arm", "n", "trial", "time_to_target_s", "duration_s"])
    one = df[df["arm"] == "1 worker"].set_index("trial")
    rest = df[df["arm"] != "1 worker"]
    rest = rest[rest["trial"].isin(one.index)]
    t = rest["time_to_target_s"].astype(float)
    lo, hi = ratio_bounds(rest["trial"].map(one["time_to_target_s"]).astype(float),
                          rest["trial"].map(one["duration_s"]).astype(float), t, rest["duration_s"].astype(float))
    return pd.DataFrame({"arm": rest["arm"].to_numpy(), "n": rest["n"].to_numpy(), "trial": rest["trial"].to_numpy(),
                         "speedup": np.where(lo == hi, lo, np.nan), "speedup_lo": lo, "speedup_hi": hi,
                         "reached": t.notna().astype(int).to_numpy()})


def fig11(df: pd.DataFrame, pr: str = "PR4", cluster: str | None = None,
          setting: str = DEFAULT_SETTING) -> list[Claim]:
    """§5.3.2: AR and PS BK scale worse than partial reduce (arm ``pr``), from the ``22_pr_fig11``
    frame: at the largest n, PR's median paired speedup over one worker is certainly larger (its
    lower bound above the other's upper bound; censored runs give bounds, :func:`speedup`).  Judged
    at ledger setting ``setting`` (S19; ``"profile"``: the runs at 002's paper profile, PR19);
    ``cluster`` describes the cluster the frame ran on, for the causes (default: n workers at
    :data:`CLUSTER_DEFAULT`'s other values)."""
    base = _SETTING.replace("002's 8 workers", "n workers") if cluster is None else _SETTING.replace(
        CLUSTER_DEFAULT, cluster)
    return at_setting(_fig11(df, pr, base), setting)


def _fig11(df: pd.DataFrame, pr: str, base: str) -> list[Claim]:
    s = speedup(df)
    if s.empty or pr not in set(s["arm"]):
        return []
    top = s["n"].max()
    med = {(a, n): bounded_stat(g["speedup_lo"], g["speedup_hi"]) for (a, n), g in s.groupby(["arm", "n"])}
    ns = sorted(s["n"].unique())
    out = []
    for other, name in (("AR", "all reduce"), ("BK", "PS BK (a quarter of the workers as backups)")):
        if (other, top) not in med or (pr, top) not in med:
            continue
        (a_lo, a_hi), (b_lo, b_hi) = med[(pr, top)], med[(other, top)]
        ok = bool(a_lo > b_hi)
        open_ = not ok and not a_hi <= b_lo
        curve = ", ".join(f"n={n:g}: {fmt_bound(*med[(other, n)])} vs {fmt_bound(*med[(pr, n)])}" for n in ns
                          if (other, n) in med and (pr, n) in med)
        st = _speedup_strength(s[s.n == top], pr, other)
        sub = s[(s.arm.isin([other, pr])) & (s.n == top)]
        reached = (f"at n={top:g} {other} reaches the target in {int(sub[sub.arm == other].reached.sum())} of "
                   f"{int((sub.arm == other).sum())} runs, {pr} in {int(sub[sub.arm == pr].reached.sum())} of "
                   f"{int((sub.arm == pr).sum())}")
        out.append(Claim(
            PAPER, "Fig. 11", f"nine systems: {name} scales worse than partial reduce ({pr})",
            "limited scalability vs. improved scalability (§5.3.2)",
            f"median speedup over 1 worker, {other} vs {pr}: {curve}", direction=ok,
            cause="" if ok else (
                ("setting: runs that never reached the target within the run length leave the comparison "
                 "undetermined; " if open_ else base) + reached),
            note="speedup = 1-worker time to target / n-worker time, median over trials; a run that never "
                 "reaches the target is censored at its run length, so its speedup is a bound (≤ or ≥) or n/a; "
                 f"holds if {pr}'s median at the largest n is certainly larger; undecided (S24) where the 95 % "
                 f"interval of the median paired {pr}/{other} speedup ratio at the largest n straddles 1",
            **strength_fields({top: st}, _side(st, "above"), label="n")))
    return out


def _speedup_strength(at_n: pd.DataFrame, pr: str, other: str):
    """The strength (S24) of the paired ratio ``pr``'s speedup / ``other``'s (= other's time / pr's) over the
    trials of ``at_n`` (one n), from the speedups' bounds."""
    a = at_n[at_n.arm == pr].set_index("trial")
    b = at_n[at_n.arm == other].set_index("trial")
    a, b = a.align(b, join="inner", axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        lo = a["speedup_lo"].to_numpy(float) / b["speedup_hi"].to_numpy(float)
        hi = a["speedup_hi"].to_numpy(float) / b["speedup_lo"].to_numpy(float)
    return strength(np.nan_to_num(lo, nan=0.0), np.where(np.isnan(hi), np.inf, hi))
