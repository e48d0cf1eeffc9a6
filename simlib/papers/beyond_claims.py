"""Beyond the papers: each paper's central comparison on a stand-in and on real traces (notebook 92).

The notebook reruns, on the synthetic stand-in trace and on the real per-worker
traces (decision T7), the comparison each paper rests on, and this module turns
its sweep frames (as the sweeps return them, = ``data/results/<name>.csv``) into

* a long **ratio table** (:func:`sr_vs_pr`, :func:`fmreduce_vs_pr`,
  :func:`selmcast_vs_orpheus`, :func:`sr_vs_pr_tta`, :func:`selmcast_vs_orpheus_tta`):
  one row per (quantity, setting, trace) with the per-trial paired ratio
  summarized over trials (``median``, ``min``, ``max``, ``trials``, ``wins``);
  every ratio is oriented so that **> 1 means the paper's scheme is better**
  (shorter sync / time to target, larger scale / iterations / rounds / utilization);
* :func:`survival` -- per quantity, setting and real trace: does the paper's
  conclusion hold there (:data:`SURVIVES_RULE`), and on the stand-in;
* :func:`summary_lines` -- the sentences of the notebook's "which conclusions
  survive" cell, per paper;
* :func:`observations` -- the ledger rows: one observation
  (:func:`simlib.papers.claim.observation`, paper ``"beyond"``) per (comparison, real
  trace), naming the trace and quoting the stand-in's values beside it.

Trials are paired (common random numbers): trial t of both schemes, and of every
trace, shares its seed, so a ratio compares two schedules on the same bandwidths.
The module imports no paper package: frames carry everything it needs (the
FMReduce frame a ``variant`` label column, e.g. ``"FM NB LP FCFS"``).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from simlib.papers.analysis import require_frame
from simlib.papers.censoring import CENSORING_RULE, fmt_bound, fmt_span, paired_bounds, ratio_bounds, verdict_above
from simlib.papers.claim import Claim, observation
from simlib.papers.strength import Strength, median_interval

__all__ = ["Quantity", "Comparison", "SR_VS_PR", "FMREDUCE_VS_PR", "SELMCAST_VS_ORPHEUS", "SR_VS_PR_TTA",
           "SELMCAST_VS_ORPHEUS_TTA", "COMPARISONS", "FM_FULL", "FM_BLOCKING", "PR_ORIGINAL", "SURVIVES_RULE",
           "TABLE_COLUMNS", "ratio_table", "sr_vs_pr", "fmreduce_vs_pr", "selmcast_vs_orpheus", "sr_vs_pr_tta",
           "selmcast_vs_orpheus_tta", "survival", "summary_lines", "observations"]

#: FMReduce with every design choice the paper recommends (n reducers, non-blocking, LP split, FCFS).
FM_FULL = "FM NB LP FCFS"
#: FMReduce's reducers only (n reducers), blocking like the original: isolates the reducers choice.
FM_BLOCKING = "FM B LP FCFS"
#: The original partial reduce (p reducers, blocking only) with the same split and sharing.
PR_ORIGINAL = "PR B LP FCFS"
#: When a conclusion "survives" on a trace.
SURVIVES_RULE = ("the median over trials of the paired ratio (paper's scheme better > 1) is > 1 "
                 "(strictly; a tie at 1 does not survive); with censored runs, undetermined unless every "
                 "value the censored pairs allow gives the same answer")
#: Columns of every ratio table, in order.  With censoring (times to a target), ``median`` is NaN
#: unless the censored pairs leave it determined; ``median_lo``/``median_hi`` bound it, ``min`` is the
#: lower bound of the minimum and ``max`` the upper bound of the maximum; ``censored``: pairs with a
#: censored run (0 for quantities without censoring); ``ci_lo``/``ci_hi``: the median's 95 % sign-test
#: interval over the pairs (decision S24; a censored pair enters with its bounds; (0, inf) below 6 pairs).
TABLE_COLUMNS = ("paper", "figure", "comparison", "quantity", "setting", "trace", "median", "min", "max",
                 "trials", "wins", "reached_num", "reached_den", "median_lo", "median_hi", "censored",
                 "ci_lo", "ci_hi")


@dataclass(frozen=True)
class Quantity:
    """One paired ratio ``metric[num] / metric[den]`` (> 1: the paper's scheme is better)."""

    label: str      # e.g. "sync time PR/SR"
    metric: str     # frame column
    num: str        # value of the scheme column in the numerator
    den: str


@dataclass(frozen=True)
class Comparison:
    """A paper's central comparison: who against whom, on which quantities, what the paper says."""

    paper: str          # seed id
    figure: str         # where in the paper
    name: str           # e.g. "SR vs PR"
    quantities: tuple   # of Quantity
    paper_value: str    # what the paper reports (on its own traces), verbatim
    scheme_col: str = "scheme"
    censored: bool = False   # metric is a time to target, NaN = not reached (censored at duration_s)


SR_VS_PR = Comparison(
    "000", "§IV-B1", "SR vs PR",
    (Quantity("sync time PR/SR", "avg_sync_time_s", "partial", "selective"),
     Quantity("scale SR/PR", "avg_sync_scale", "selective", "partial"),
     Quantity("total iteration SR/PR", "total_iteration", "selective", "partial")),
    "up to 1.89–2.55×, 1.19–1.25×, 1.1–1.17× (its traces)")
FMREDUCE_VS_PR = Comparison(
    "003", "Fig. 2", "FMReduce vs partial reduce",
    (Quantity(f"rounds {FM_FULL} / {PR_ORIGINAL}", "rounds", FM_FULL, PR_ORIGINAL),
     Quantity(f"rounds {FM_BLOCKING} / {PR_ORIGINAL}", "rounds", FM_BLOCKING, PR_ORIGINAL)),
    "remarkable speedup (no number)", scheme_col="variant")
SELMCAST_VS_ORPHEUS = Comparison(
    "004", "Fig. 7", "SelMcast vs Orpheus (SSP)",
    (Quantity("utilization SelMcast/Orpheus", "npu_utilization", "selmcast", "orpheus"),
     Quantity("scale SelMcast/Orpheus", "avg_scale", "selmcast", "orpheus")),
    "scale 0.3 → 0.55; utilization 0.63–0.65 → 0.68–0.70 (its traces)")
SR_VS_PR_TTA = Comparison(
    "000", "§IV settings, time to accuracy", "SR vs PR time to accuracy",
    (Quantity("time to target PR/SR", "time_to_target_s", "partial", "selective"),),
    "(not measured by the papers)", censored=True)
SELMCAST_VS_ORPHEUS_TTA = Comparison(
    "004", "§IV-C settings, time to accuracy", "SelMcast vs Orpheus time to accuracy",
    (Quantity("time to target Orpheus/SelMcast", "time_to_target_s", "orpheus", "selmcast"),),
    "(claimed qualitatively, not measured)", censored=True)
#: Every comparison of notebook 92, in the order the notebook reports them.
COMPARISONS = (SR_VS_PR, FMREDUCE_VS_PR, SELMCAST_VS_ORPHEUS, SR_VS_PR_TTA, SELMCAST_VS_ORPHEUS_TTA)


# ----------------------------------------------------------------------------- the ratio table

def _setting(by: Sequence[str], values) -> str:
    return ", ".join(f"{c} = {v:g}" if isinstance(v, (int, float, np.number)) else f"{c} = {v}"
                     for c, v in zip(by, values)) or "—"


def ratio_table(df: pd.DataFrame, comparison: Comparison, by: Sequence[str] = ()) -> pd.DataFrame:
    """Paired ratios of every quantity of ``comparison``, per (``by`` setting, trace).

    ``df`` has one row per (setting, trial, scheme): columns ``trace``, ``trial``, the
    comparison's scheme column, ``by`` and the metrics (plus ``duration_s`` when the
    comparison is ``censored``: a time to target that is NaN is censored at the run's
    ``duration_s``, :mod:`simlib.papers.censoring`).  Returns :data:`TABLE_COLUMNS`:
    ``median``/``min``/``max`` of the per-trial ratio, ``trials`` (pairs), ``wins``
    (share of trials whose ratio is certainly > 1) and, for censored comparisons,
    ``reached_num`` / ``reached_den`` (share of the two schemes' runs that reached the
    target; NaN otherwise), the median's bounds and the count of censored pairs.
    """
    by = [by] if isinstance(by, str) else list(by)
    sc = comparison.scheme_col
    extra = ["duration_s"] if comparison.censored else []
    require_frame(df, "df", ["trace", "trial", sc, *by, *extra, *{q.metric for q in comparison.quantities}])
    keys = by + ["trace", "trial"]
    trace_order = {t: i for i, t in enumerate(dict.fromkeys(df["trace"]))}   # rows follow the frame's traces
    rows = []
    for q in comparison.quantities:
        for s in (q.num, q.den):
            if s not in set(df[sc]):
                raise ValueError(f"df[{sc!r}] lacks {s!r} (needed for {q.label!r}); it has {sorted(set(df[sc]))}")
        d = df[df[sc].isin([q.num, q.den])]
        dup = d.duplicated(keys + [sc], keep=False)
        if dup.any():
            raise ValueError(f"{int(dup.sum())} rows share their ({', '.join(keys + [sc])}) key: another "
                             "setting column varies; pass it in `by` or filter the frame first")
        if comparison.censored:
            w = d.pivot(index=keys, columns=sc, values=[q.metric, "duration_s"]).astype(float)
            w = w[w["duration_s"][[q.num, q.den]].notna().all(axis=1)]
            blo, bhi = ratio_bounds(w[q.metric][q.num].to_numpy(), w["duration_s"][q.num].to_numpy(),
                                    w[q.metric][q.den].to_numpy(), w["duration_s"][q.den].to_numpy())
            ci = {k if isinstance(k, tuple) else (k,): median_interval(g["lo"], g["hi"]) for k, g in
                  pd.DataFrame({"lo": blo, "hi": bhi}, index=w.index).groupby(level=by + ["trace"])}
            t = paired_bounds(d, q.metric, "duration_s", by=by + ["trace"], num=q.num, den=q.den, scheme_col=sc)
            t = t.assign(_o=t["trace"].map(trace_order)).sort_values(by + ["_o"], kind="stable")
            for r in t.itertuples(index=False):
                rec = r._asdict()
                rows.append({"paper": comparison.paper, "figure": comparison.figure, "comparison": comparison.name,
                             "quantity": q.label, "setting": _setting(by, [rec[c] for c in by]), "trace": r.trace,
                             "median": r.median_lo if r.median_lo == r.median_hi else np.nan,
                             "min": r.min_lo, "max": r.max_hi, "trials": int(r.pairs), "wins": r.wins / r.pairs,
                             "reached_num": r.reached_num, "reached_den": r.reached_den,
                             "median_lo": r.median_lo, "median_hi": r.median_hi,
                             "censored": int(r.censored_num + r.censored_den + r.censored_both),
                             **dict(zip(("ci_lo", "ci_hi"), ci[tuple(rec[c] for c in by + ["trace"])]))})
            continue
        wide = d.pivot(index=keys, columns=sc, values=q.metric).astype(float)
        wide = wide[wide[[q.num, q.den]].notna().all(axis=1)]
        per = (wide[q.num] / wide[q.den]).rename("ratio").reset_index()
        per = per.assign(_o=per["trace"].map(trace_order)).sort_values(by + ["_o"], kind="stable")
        for group, g in per.groupby(by + ["trace"], sort=False):
            group = group if isinstance(group, tuple) else (group,)
            med = float(g["ratio"].median())
            rows.append({"paper": comparison.paper, "figure": comparison.figure, "comparison": comparison.name,
                         "quantity": q.label, "setting": _setting(by, group[:-1]), "trace": group[-1],
                         "median": med, "min": float(g["ratio"].min()),
                         "max": float(g["ratio"].max()), "trials": int(len(g)),
                         "wins": float((g["ratio"] > 1).mean()), "reached_num": np.nan, "reached_den": np.nan,
                         "median_lo": med, "median_hi": med, "censored": 0,
                         **dict(zip(("ci_lo", "ci_hi"), median_interval(g["ratio"])))})
    return pd.DataFrame(rows, columns=list(TABLE_COLUMNS))


def sr_vs_pr(df: pd.DataFrame) -> pd.DataFrame:
    """000 §IV-B1 on each trace: PR/SR sync time, SR/PR scale and total iteration per ``n``
    (frame of :func:`simlib.papers.cluster_scenario.run_trial`)."""
    return ratio_table(df, SR_VS_PR, by=["n"])


def fmreduce_vs_pr(df: pd.DataFrame) -> pd.DataFrame:
    """003 Fig. 2 on each trace: rounds of :data:`FM_FULL` and :data:`FM_BLOCKING` over
    :data:`PR_ORIGINAL` per ``p`` (frame of :func:`simlib.papers.fmreduce.scenario.run_trial`
    with a ``variant`` label column)."""
    return ratio_table(df, FMREDUCE_VS_PR, by=["p"])


def selmcast_vs_orpheus(df: pd.DataFrame) -> pd.DataFrame:
    """004 Fig. 7 on each trace: SelMcast/Orpheus NPU utilization and multicast scale per ``n``
    (frame of :func:`simlib.papers.selmcast.ssp_scenario.run_trial`)."""
    return ratio_table(df, SELMCAST_VS_ORPHEUS, by=["n"])


def sr_vs_pr_tta(df: pd.DataFrame) -> pd.DataFrame:
    """PR/SR time to the target accuracy per ``n`` (frame of
    :func:`simlib.training.time_to_accuracy.trial`; not reached = ``duration_s``)."""
    return ratio_table(df, SR_VS_PR_TTA, by=["n"])


def selmcast_vs_orpheus_tta(df: pd.DataFrame) -> pd.DataFrame:
    """Orpheus/SelMcast time to the target accuracy per ``n`` (frame of
    :func:`simlib.training.selmcast_ssp_tta.trial`; not reached = ``duration_s``)."""
    return ratio_table(df, SELMCAST_VS_ORPHEUS_TTA, by=["n"])


# ----------------------------------------------------------------------------- verdict per trace

def _check_table(table) -> pd.DataFrame:
    require_frame(table, "table", TABLE_COLUMNS)
    return table


def survival(table: pd.DataFrame, standin: str) -> pd.DataFrame:
    """Per (comparison, quantity, setting, real trace): the trace's median ratio (and its bounds)
    beside the stand-in's, ``decided`` (S24: True when the median's interval ``ci_lo``–``ci_hi`` lies above
    1, False when at or below it, None -- undecided -- when it straddles 1 or there are fewer than 6 pairs),
    ``survives`` (:data:`SURVIVES_RULE` on the trace: True, False or None
    when censoring leaves it undetermined), ``standin_holds`` (the same rule on the stand-in) and
    ``change`` = trace median / stand-in median (NaN when either is not determined).

    ``table`` is one or more ratio tables concatenated; every trace other than ``standin``
    counts as real.  Raises ``ValueError`` when ``standin`` is missing for a quantity."""
    table = _check_table(table)
    keys = ["paper", "figure", "comparison", "quantity", "setting"]
    ref = table[table.trace == standin].set_index(keys)[["median", "median_lo", "median_hi"]]
    rest = table[table.trace != standin]
    missing = sorted({k for k in map(tuple, rest[keys].drop_duplicates().to_numpy()) if k not in ref.index})
    if missing:
        raise ValueError(f"standin {standin!r} has no row for {missing[0][2:]} (the table's traces: "
                         f"{sorted(set(table.trace))})")
    out = rest[keys + ["trace", "median", "min", "max", "trials", "wins", "reached_num", "reached_den",
                       "median_lo", "median_hi", "censored", "ci_lo", "ci_hi"]].copy()
    ks = list(map(tuple, out[keys].to_numpy()))
    for col in ("median", "median_lo", "median_hi"):
        out[f"standin_{col}"] = [float(ref.loc[k, col]) for k in ks]
    out["survives"] = [verdict_above(lo, hi) for lo, hi in zip(out["median_lo"], out["median_hi"])]
    out["decided"] = [None if v is None else bool(v)
                      for v in (verdict_above(lo, hi) for lo, hi in zip(out["ci_lo"], out["ci_hi"]))]
    out["standin_holds"] = [verdict_above(lo, hi) for lo, hi in zip(out["standin_median_lo"], out["standin_median_hi"])]
    out["change"] = out["median"] / out["standin_median"]
    return out.reset_index(drop=True)


def _x(lo: float, hi: float | None = None) -> str:
    return fmt_bound(lo, lo if hi is None else hi)


def _span(g: pd.DataFrame) -> str:
    """The range over rows of bounded medians: ``"0.80×–1.60×"``, or each end's bound."""
    a, b = _x(g["median_lo"].min(), g["median_hi"].min()), _x(g["median_lo"].max(), g["median_hi"].max())
    return f"{a}–{b}" if (g["median_lo"] == g["median_hi"]).all() else f"{a} to {b}"


_STATE = {True: "holds", False: "does not hold", None: "undetermined: censored runs"}


def summary_lines(table: pd.DataFrame, standin: str) -> list[str]:
    """One sentence per (comparison, quantity, setting): the stand-in's median ratio, on how many
    real traces the conclusion survives (:data:`SURVIVES_RULE`) with the range of their medians,
    the traces where it does not (with their ratios) and those censoring leaves undetermined."""
    surv = survival(table, standin)
    lines = []
    for (paper, comp, q, setting), g in surv.groupby(["paper", "comparison", "quantity", "setting"], sort=False):
        ref = _x(g["standin_median_lo"].iloc[0], g["standin_median_hi"].iloc[0])
        fails = g[g["survives"].map(lambda v: v is False)]
        open_ = g[g["survives"].map(lambda v: v is None)]
        lost = ", ".join(f"{t} ({_x(lo, hi)})" for t, lo, hi in zip(fails.trace, fails.median_lo, fails.median_hi))
        where = "" if setting == "—" else f" ({setting})"
        line = (f"{paper} {comp}, {q}{where}: stand-in {standin} {ref} ({_STATE[g['standin_holds'].iloc[0]]}); "
                f"survives on {int(g['survives'].map(lambda v: v is True).sum())} of {len(g)} real traces "
                f"(medians {_span(g)}); not on: {lost or 'none'}")
        if len(open_):
            line += "; undetermined (censored runs) on: " + ", ".join(
                f"{t} ({_x(lo, hi)})" for t, lo, hi in zip(open_.trace, open_.median_lo, open_.median_hi))
        lines.append(line)
    return lines


def observations(table: pd.DataFrame, standin: str, note: str = "") -> list[Claim]:
    """The ledger rows: one observation per (comparison, real trace), paper ``"beyond"``.

    ``claim`` names the comparison, the trace and the quantities; ``our_value`` gives the
    trace's median paired ratio of each quantity (and setting) with the stand-in's in
    parentheses; the note names the stand-in and says, per quantity, whether the paper's
    conclusion survives (:data:`SURVIVES_RULE`), whether the median's interval decides it (S24; the
    row's ``pairs``, ``sides`` and ``interval``), the trials and the min–max over them
    (and, for times to accuracy, how often each scheme reached the target), then ``note``."""
    surv = survival(table, standin)
    out = []
    by_comp = {c.name: c for c in COMPARISONS}
    for (paper, figure, comp, trace), g in surv.groupby(["paper", "figure", "comparison", "trace"], sort=False):
        parts, notes, sides, intervals = [], [], [], []
        for r in g.itertuples(index=False):
            where = "" if r.setting == "—" else f" [{r.setting}]"
            parts.append(f"{r.quantity}{where} {_x(r.median_lo, r.median_hi)} "
                         f"(stand-in {_x(r.standin_median_lo, r.standin_median_hi)})")
            reached = (", no target: no pair censored" if np.isnan(r.reached_num) else
                       f", reached by numerator/denominator scheme in {r.reached_num:.0%}/{r.reached_den:.0%}, "
                       f"{r.censored} of {r.trials} pairs censored")
            verdict = {True: "survives", False: "does not survive", None: "undetermined (censored runs)"}[r.survives]
            span = fmt_span(r.min, r.max)          # one value when every trial prints the same
            spread = (f"min–max {r.min:.2f}–{r.max:.2f}× (bounds) over {r.trials} trials" if r.censored else
                      f"min–max {span} over {r.trials} trials" if "–" in span else f"{span} in all {r.trials} trials")
            # only the interval and the pairs certainly better are known here (``below`` is not used)
            st = Strength(int(r.trials), int(round(r.wins * r.trials)), 0, float(r.ci_lo), float(r.ci_hi))
            strength_text = {True: "decided: its interval lies above 1", False: "decided: its interval is at or "
                             "below 1", None: f"undecided at {r.trials} pairs (S24)"}[r.decided]
            notes.append(f"{r.quantity}{where}: {verdict}, {strength_text} ({spread}, certainly better in "
                         f"{r.wins:.0%}{reached})")
            sides.append(f"{r.quantity}{where}: {r.trials} pairs, {st.above} certainly better")
            intervals.append(f"{r.quantity}{where}: {st.interval_text()}")
        quantities = ", ".join(dict.fromkeys(g["quantity"]))
        c = by_comp.get(comp)
        out.append(dataclasses.replace(observation(
            paper="beyond", figure=f"{paper} {figure}, real traces",
            claim=f"{comp} on {trace}: {quantities}",
            our_value="; ".join(parts),
            paper_value=c.paper_value if c is not None else "—",
            note=(f"stand-in = {standin}; " + "; ".join(notes) + ". Median paired ratios, > 1: the paper's "
                  f"scheme better; survives = {SURVIVES_RULE}"
                  + (f"; censoring: {CENSORING_RULE}" if g["censored"].sum() or not np.isnan(g["reached_num"]).all()
                     else "") + (f"; {note}" if note else ""))),
            pairs=int(g["trials"].min()), sides="; ".join(sides),
            interval="; ".join(intervals) + " (95% interval of the median, S24)"))
    return out
