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

Notebook 93 (Begunov & Tyurin's "Do we need asynchronous SGD?", arXiv 2602.03802, on the real
traces) has its rows here too: :func:`collection_summary` / :func:`collection_observations` (m-synchronous
against greedy gradient collection, judged against H_n: :data:`WITHIN_RULE`), :func:`best_backup`,
:func:`network_table`, :func:`outage_table` and :func:`network_observations` (with the network and
outage windows; decisions PS10, T9).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from simlib.papers.analysis import require_frame
from simlib.papers.censoring import (CENSORING_RULE, bounded_stat, fmt_bound, fmt_span, paired_bounds, ratio_bounds,
                                     verdict_above)
from simlib.papers.claim import Claim, observation
from simlib.papers.strength import Strength, median_interval, side, strength
from simlib.workloads.gradient_collection import harmonic

__all__ = ["Quantity", "Comparison", "SR_VS_PR", "FMREDUCE_VS_PR", "SELMCAST_VS_ORPHEUS", "SR_VS_PR_TTA",
           "SELMCAST_VS_ORPHEUS_TTA", "COMPARISONS", "FM_FULL", "FM_BLOCKING", "PR_ORIGINAL", "SURVIVES_RULE",
           "TABLE_COLUMNS", "ratio_table", "sr_vs_pr", "fmreduce_vs_pr", "selmcast_vs_orpheus", "sr_vs_pr_tta",
           "selmcast_vs_orpheus_tta", "survival", "summary_lines", "observations", "ASYNC_SGD_CLAIM", "ASYNC_SGD_SOURCE",
           "WITHIN_RULE", "collection_ratios", "per_m_ratios", "collection_summary", "collection_observations", "best_backup",
           "network_table", "outage_table", "network_observations"]

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


# ----------------------------------------------------------------------------- notebook 93: do we need async SGD?
#: Begunov & Tyurin's claim as issue 44 states it (we do not have the paper's text).
ASYNC_SGD_CLAIM = ("synchronous SGD and m-synchronous SGD (a step uses the first m of the n gradients) are optimal "
                   "up to logarithmic factors under random, time-varying compute times and adversarial participation")
#: Where the claim is from (the ledger rows' figure column).
ASYNC_SGD_SOURCE = "Begunov & Tyurin, arXiv 2602.03802"
#: How a ratio is judged against the claim's bound (decision S24's interval, threshold H_n).
WITHIN_RULE = ("within the bound when the 95 % sign-test interval of the median paired ratio lies below H_n "
               "(decided), beyond it when the interval lies at or above H_n, undecided when it straddles H_n or "
               "there are fewer than 6 pairs (S24)")


def collection_ratios(df: pd.DataFrame) -> pd.DataFrame:
    """The trace-only sweep's frame (one row per (trace, n, late, trial), columns ``greedy_k<k>``, ``best_k<k>``,
    ``best_m_k<k>``, ``sync_k<k>``, :func:`simlib.workloads.gradient_collection.trace_trial`) as one row per
    (trace, n, late, k, arm, trial): ``ratio`` = the arm's time to collect k n gradients over the greedy
    collector's, arm ``"best m"`` or ``"sync (m = n)"``, with ``best_m`` and ``h_n``."""
    ks = sorted(int(c[len("greedy_k"):]) for c in df.columns if c.startswith("greedy_k"))
    require_frame(df, "df", ["trace", "n", "late", "trial"] + [f"{a}_k{k}" for k in ks
                                                                for a in ("greedy", "best", "best_m", "sync")])
    parts = []
    for k in ks:
        base = df[["trace", "n", "late", "trial"]].assign(k=k, h_n=[harmonic(n) for n in df["n"]])
        parts.append(base.assign(arm="best m", ratio=df[f"best_k{k}"] / df[f"greedy_k{k}"],
                                 best_m=df[f"best_m_k{k}"]))
        parts.append(base.assign(arm="sync (m = n)", ratio=df[f"sync_k{k}"] / df[f"greedy_k{k}"], best_m=df["n"]))
    return pd.concat(parts, ignore_index=True)


def per_m_ratios(df: pd.DataFrame) -> pd.DataFrame:
    """The trace-only frame's every-m columns (``m<m>_k<k>``) over the greedy collector's ``greedy_k<k>``: the median
    over trials per (trace, n, late, m), columns ``trace``, ``n``, ``late``, ``k``, ``m``, ``ratio``."""
    cols = [c for c in df.columns if c.startswith("m") and "_k" in c and c[1:c.index("_k")].isdigit()]
    if not cols:
        raise ValueError("df has no every-m columns m<m>_k<k> (trace_trial's)")
    rows = []
    for c in cols:
        m, k = int(c[1:c.index("_k")]), int(c[c.index("_k") + 2:])
        r = (df[c] / df[f"greedy_k{k}"]).groupby([df["trace"], df["n"], df["late"]], sort=False).median()
        rows += [{"trace": t, "n": n, "late": late, "k": k, "m": m, "ratio": float(v)} for (t, n, late), v in r.items()
                 if not np.isnan(v)]
    return pd.DataFrame(rows)


def _summarize(g: pd.DataFrame, lo: str = "ratio", hi: str = "ratio", threshold: float = 1.0) -> dict:
    s = strength(g[lo].to_numpy(float), g[hi].to_numpy(float), threshold=threshold)
    med_lo, med_hi = bounded_stat(g[lo], g[hi], "median")
    return {"median_lo": med_lo, "median_hi": med_hi, "min": float(g[lo].min()), "max": float(g[hi].max()),
            "trials": s.trials, "below": s.below, "above": s.above, "ci_lo": s.lo, "ci_hi": s.hi,
            "over_1": int((g[lo] > 1).sum()), "under_1": int((g[hi] < 1).sum()),
            "within": side(s, "below"), "interval": s.interval_text(), "sides": s.sides_text()}


def _frame(rows: list) -> pd.DataFrame:
    """Rows of :func:`_summarize` as a frame whose ``within`` keeps True / False / None (object dtype)."""
    out = pd.DataFrame(rows)
    if "within" in out:
        out["within"] = pd.Series([r["within"] for r in rows], index=out.index, dtype=object)
    return out


def collection_summary(ratios: pd.DataFrame) -> pd.DataFrame:
    """Per (trace, n, late, k, arm) of :func:`collection_ratios`: the median paired ratio (``median_lo`` =
    ``median_hi``), min, max, pairs, the median's interval (S24) and ``within`` (:data:`WITHIN_RULE`, threshold
    ``h_n``), plus the median ``best_m``."""
    rows = []
    for key, g in ratios.groupby(["trace", "n", "late", "k", "arm"], sort=False):
        rows.append({**dict(zip(["trace", "n", "late", "k", "arm"], key)), "h_n": float(g["h_n"].iloc[0]),
                     "best_m": float(g["best_m"].median()), **_summarize(g, threshold=float(g["h_n"].iloc[0]))})
    return _frame(rows)


def _worst(g: pd.DataFrame) -> pd.Series:
    """The row of the largest median (its upper bound) of a group."""
    return g.loc[g["median_hi"].idxmax()]


def collection_observations(summary: pd.DataFrame, note: str = "") -> list[Claim]:
    """The trace-only ledger rows: one observation per (trace, n), paper ``"beyond"``: per reading of the late
    gradients (PS10), the largest over S of the median ratio best-m / greedy with its interval against H_n, and
    synchronous SGD's (m = n)."""
    require_frame(summary, "summary", ["trace", "n", "late", "k", "arm", "h_n", "median_lo", "median_hi", "min",
                                       "max", "trials", "below", "ci_lo", "ci_hi", "within", "interval", "best_m"])
    out = []
    state = {True: "within H_n (decided)", False: "beyond H_n (decided)", None: "undecided against H_n"}
    for (trace, n), g in summary.groupby(["trace", "n"], sort=False):
        h = float(g["h_n"].iloc[0])
        parts, notes, sides, intervals = [], [], [], []
        for (late, arm), a in g.groupby(["late", "arm"], sort=False):
            w = _worst(a)
            label = f"{arm}, {late}"
            parts.append(f"{label}: up to {_x(w.median_lo, w.median_hi)} (S = {int(w.k)}n"
                         + (f", m = {w.best_m:g}" if arm == "best m" else "") + ")")
            counts = {v: int(sum(x is v for x in a["within"])) for v in (True, False, None)}
            notes.append(f"{label}: {state[w.within]} at its largest median (S = {int(w.k)}n; min–max "
                         f"{fmt_span(w['min'], w['max'])} over {int(w.trials)} trials); of {len(a)} values of S, "
                         f"{counts[True]} within, {counts[False]} beyond, {counts[None]} undecided")
            sides.append(f"{label}: {int(w.trials)} pairs, {int(w.below)} certainly below H_n")
            intervals.append(f"{label}: {w.interval}")
        out.append(dataclasses.replace(observation(
            paper="beyond", figure=f"{ASYNC_SGD_SOURCE}, trace only",
            claim=f"time to collect S gradients, best m-synchronous / greedy collector, on {trace} (n = {n})",
            our_value="; ".join(parts) + f"; H_n = {h:.2f}",
            paper_value=f"≤ about H_n = {h:.2f} (up to logarithmic factors; {ASYNC_SGD_CLAIM})",
            note=("; ".join(notes) + f". S/n in {sorted(set(int(k) for k in g['k']))}; no network; "
                  f"{WITHIN_RULE}" + (f"; {note}" if note else ""))),
            pairs=int(g["trials"].min()), sides="; ".join(sides),
            interval="; ".join(intervals) + " (95% interval of the median, S24)"))
    return out


def _paired_times(df: pd.DataFrame, num, den, col: str, by: Sequence[str], metric: str = "time_to_target_s",
                  cap: str = "duration_s") -> pd.DataFrame:
    """Per (``by``, trial): bounds ``lo``/``hi`` of ``metric[num] / metric[den]`` (``col`` values), a NaN time
    censored at ``cap`` (:func:`simlib.papers.censoring.ratio_bounds`)."""
    keys = list(by) + ["trial"]
    w = df[df[col].isin([num, den])].pivot(index=keys, columns=col, values=[metric, cap]).astype(float)
    w = w.dropna(subset=[(cap, num), (cap, den)])
    lo, hi = ratio_bounds(w[metric][num].to_numpy(), w[cap][num].to_numpy(), w[metric][den].to_numpy(),
                          w[cap][den].to_numpy())
    return pd.DataFrame({"lo": lo, "hi": hi}, index=w.index).reset_index()


def best_backup(df: pd.DataFrame) -> dict:
    """Per trace, the PS backup arm (``system`` ``"BK<b>"``, or ``"BSP"``: b = 0) with the smallest median time to
    target over trials without outage (a censored run counts at its cap; ties: the smaller b) -- chosen after the
    fact, as "best b" is."""
    require_frame(df, "df", ["trace", "system", "outage_workers", "time_to_target_s", "duration_s"])
    d = df[(df["outage_workers"] == 0) & df["system"].str.match(r"^(BSP|BK\d+)$")]
    t = d["time_to_target_s"].fillna(d["duration_s"])
    med = t.groupby([d["trace"], d["system"]]).median().reset_index()
    med["b"] = med["system"].map(lambda s: 0 if s == "BSP" else int(s[2:]))
    return {tr: g.sort_values(["time_to_target_s", "b"]).iloc[0]["system"] for tr, g in med.groupby("trace")}


def network_table(df: pd.DataFrame, others: Sequence[str]) -> pd.DataFrame:
    """Per trace and other system X of ``others`` (``system`` labels: e.g. ``"ASP"``, ``"AD"``, ``"PR3"``,
    ``"SR3"``): the paired ratio (time to target of the best-b PS backup, :func:`best_backup`) / (X's), censored
    runs as bounds; and per system the paired ratio of the time to collect 30 n gradients with the network
    (``net_k30``) over the greedy collector's on the same draws (``greedy_k30``).  Columns: ``trace``,
    ``quantity``, ``system``, ``label`` (the ratio in words), ``h_n`` and :func:`_summarize`'s (threshold H_n)."""
    require_frame(df, "df", ["trace", "n", "trial", "system", "outage_workers", "time_to_target_s", "duration_s"])
    best = best_backup(df)
    d = df[df["outage_workers"] == 0]
    rows = []
    for trace, g in d.groupby("trace", sort=False):
        h = harmonic(int(g["n"].iloc[0]))
        for x in others:
            p = _paired_times(g, best[trace], x, "system", ["trace"])
            rows.append({"trace": trace, "quantity": "time to target", "system": x, "h_n": h,
                         "label": f"time to target {best[trace]}/{x}",
                         **_summarize(p, "lo", "hi", threshold=h)})
        ks = sorted(int(c[len("net_k"):]) for c in g.columns if c.startswith("net_k"))
        if ks:
            k = ks[-1]
            for s, a in g.groupby("system", sort=False):
                r = (a[f"net_k{k}"] / a[f"greedy_k{k}"]).dropna()
                if len(r):
                    rows.append({"trace": trace, "quantity": f"{k}n gradients / greedy", "system": s, "h_n": h,
                                 "label": f"{s}: time to use {k}n gradients / greedy collector's",
                                 **_summarize(pd.DataFrame({"ratio": r}), threshold=h)})
    return _frame(rows)


def outage_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per trace and system run with and without the outage (``outage_workers`` > 0 and 0): the paired ratio of
    its time to target with the outage over without (censored runs as bounds; threshold 1)."""
    require_frame(df, "df", ["trace", "n", "trial", "system", "outage_workers", "time_to_target_s", "duration_s"])
    d = df.assign(_o=np.where(df["outage_workers"] > 0, "outage", "none"))
    rows = []
    for (trace, s), g in d.groupby(["trace", "system"], sort=False):
        if set(g["_o"]) != {"outage", "none"}:
            continue
        p = _paired_times(g, "outage", "none", "_o", ["trace"])
        rows.append({"trace": trace, "system": s, "outage_workers": int(g["outage_workers"].max()),
                     **_summarize(p, "lo", "hi")})
    return _frame(rows)


def network_observations(net: pd.DataFrame, outage: pd.DataFrame, note: str = "") -> list[Claim]:
    """The with-network ledger rows, paper ``"beyond"``: per trace, the best-b PS backup's time to target against
    each asynchronous / partial system (ratio and interval against H_n; > 1: the other system sooner) and every
    system's 30 n gradients over the greedy collector's; and per trace, each system's slowdown under the outage
    (``outage``, :func:`outage_table`)."""
    out = []
    for trace, g in net.groupby("trace", sort=False):
        h = float(g["h_n"].iloc[0])
        parts = [f"{r.label} {_x(r.median_lo, r.median_hi)}" for r in g.itertuples()]
        out.append(dataclasses.replace(observation(
            paper="beyond", figure=f"{ASYNC_SGD_SOURCE}, with the network",
            claim=f"best-b PS backup (m-synchronous, stale gradients dropped) against asynchronous and partial "
                  f"systems on {trace}",
            our_value="; ".join(parts) + f"; H_n = {h:.2f}",
            paper_value=f"≤ about H_n = {h:.2f} (no communication in the paper's model)",
            note="; ".join(f"{r.label}: "
                           f"{ {True: 'within H_n', False: 'beyond H_n', None: 'undecided'}[r.within]}; certainly "
                           f"above 1 in {r.over_1}, below 1 in {r.under_1} of {r.trials} pairs" for r in g.itertuples())
                 + f". {WITHIN_RULE}" + (f"; {note}" if note else "")),
            pairs=int(g["trials"].min()), sides="; ".join(f"{r.label}: {r.sides}"
                                                          for r in g.itertuples()),
            interval="; ".join(f"{r.label}: {r.interval}" for r in g.itertuples())
                     + " (95% interval of the median, S24)"))
    for trace, g in outage.groupby("trace", sort=False):
        k = int(g["outage_workers"].iloc[0])
        out.append(dataclasses.replace(observation(
            paper="beyond", figure=f"{ASYNC_SGD_SOURCE}, outage windows",
            claim=f"time to target with {k} workers gone for a window / without, on {trace}",
            our_value="; ".join(f"{r.system} {_x(r.median_lo, r.median_hi)}" for r in g.itertuples()),
            paper_value="m-synchronous SGD stays near-optimal under adversarial participation",
            note="; ".join(f"{r.system}: min–max {fmt_span(r.min, r.max)}, certainly slower in {r.over_1} of "
                           f"{r.trials} pairs" for r in g.itertuples()) + (f"; {note}" if note else "")),
            pairs=int(g["trials"].min()), sides="; ".join(f"{r.system}: {r.sides}" for r in g.itertuples()),
            interval="; ".join(f"{r.system}: {r.interval}" for r in g.itertuples())
                     + " (95% interval of the median, S24)"))
    return out
