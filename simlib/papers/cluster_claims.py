"""Observations beyond the papers on the 000/002 cluster schemes (all reduce, partial reduce,
selective reduce), as tested code: result frames -> :class:`~simlib.papers.claim.Claim`.

* :func:`scheme_mixing` (notebook 20): does selective reduce mix better or worse than
  partial reduce (ρ of E[W], seed 002 §3.2, on seed 000's §IV setting)?
* :func:`time_to_accuracy` (notebook 90): which scheme reaches a test accuracy sooner
  when its schedules are replayed through training, at the notebook's target and at
  every accuracy of the target ladder; :func:`ladder_conclusion` the notebook's
  concluding statement.

These are observations (no paper makes the claim), so they carry no verdict.  Rules:
ratios are paired per trial (trial t of every scheme shares its seed); a run that never
reaches a target is censored at its cap (:mod:`simlib.papers.censoring`), so a ratio it
enters is a bound and a median is a number only when censoring cannot move it.  Selective
reduce is "faster at every (trace, n)" when every median paired ratio other / SR
certainly exceeds 1 (strictly), "not" when one certainly does not, else undetermined; at a
ladder target it is "clearly faster" when every median certainly exceeds :data:`CLEAR_GAIN`
and "no faster anywhere" when none can.
"""
from __future__ import annotations

import pandas as pd

from simlib.papers.analysis import fmt_bound_range, ladder_ratios, ladder_targets
from simlib.papers.analysis import require_frame as _need
from simlib.papers.censoring import CENSORING_RULE, paired_bounds, summary
from simlib.papers.claim import Claim, observation

__all__ = ["CLEAR_GAIN", "SHORT", "scheme_mixing", "time_to_accuracy", "ladder_conclusion"]

#: A gain of more than 5 % (median paired ratio > 1.05) counts as "clearly faster" on the ladder.
CLEAR_GAIN = 1.05
SHORT = {"allreduce": "AR", "partial": "PR", "selective": "SR"}
_PAPERS = "(not measured by the papers)"


# ----------------------------------------------------------------------------- notebook 20

def scheme_mixing(mixing: pd.DataFrame) -> list[Claim]:
    """Selective vs partial reduce's ρ at each n (notebook 20's ``20_pr_mixing`` frame; the
    main-paper rows are those with both schemes at an n).  One observation: the medians per
    n, and whether selective reduce's median ρ is above partial reduce's at every n."""
    _need(mixing, "mixing", ["scheme", "n", "rho"])
    med = mixing[mixing["scheme"].isin(["partial", "selective"])].groupby(["n", "scheme"])["rho"].median()
    med = med.unstack("scheme").dropna()
    if med.empty or not {"partial", "selective"} <= set(med.columns):
        return []
    worse = bool((med["selective"] > med["partial"]).all())
    return [observation(
        "beyond", "002 §3.2 on 000 §IV", "selective reduce mixes worse than partial reduce (larger rho)",
        ", ".join(f"n={int(n)}: SR {r.selective:.3f} vs PR {r.partial:.3f}" for n, r in med.iterrows()),
        note=("SR's median rho is above PR's at every n" if worse else "SR's median rho is NOT above PR's at every n")
             + "; bandwidth-aware grouping keeps regrouping similar workers",
        paper_value="(open question)")]


# ----------------------------------------------------------------------------- notebook 90

def _setting_text(df: pd.DataFrame) -> str:
    def one(col: str, fmt: str):
        if col not in df.columns:
            return None
        vals = df[col].dropna().unique()
        return fmt.format(vals[0]) if len(vals) == 1 else None
    parts = [one("train_model", "{} model"), one("train_problem", "on {}"), one("target_acc", "target {:.0%}"), one("train_lr", "lr {:g}"),
             one("train_batch", "batch {:g}")]
    parts = [p for p in parts if p]
    if len(parts) >= 2 and parts[1].startswith("on "):   # "softmax model on digits"
        parts[:2] = [f"{parts[0]} {parts[1]}"]
    return ", ".join(parts + [f"{df['trial'].nunique()} trials"])


def time_to_accuracy(df: pd.DataFrame, duration_s) -> list[Claim]:
    """Notebook 90's observations from its ``90_beyond_tta`` frame (one row per trace, n,
    scheme, trial; columns ``time_to_target_s`` and the ladder's ``time_to_accNN_s``).

    Two rows at the notebook's target (PR/SR and AR/SR: the range over (trace, n) of the
    median paired time ratios) and two per ladder accuracy.  ``duration_s``: each run's cap,
    seconds or a column name (:mod:`simlib.papers.censoring`: a run that never reached a
    target is censored there; a ratio it enters is a bound, and a median is reported as a
    number only when its censored pairs cannot move it).
    """
    _need(df, "df", ["trace", "n", "scheme", "trial", "time_to_target_s"])
    schemes = set(df["scheme"])
    setting = _setting_text(df)
    cap = duration_s if isinstance(duration_s, str) else f"{duration_s:g} s"
    out = []
    for other, what in (("partial", "partial reduce"), ("allreduce", "all reduce")):
        if not {other, "selective"} <= schemes:
            continue
        r = paired_bounds(df, "time_to_target_s", duration_s, by=["trace", "n"], num=other, den="selective")
        lo, hi = summary(r, "median", "min"), summary(r, "median", "max")
        faster = _every(r["median_lo"] > 1, r["median_hi"] <= 1)
        out.append(observation(
            "beyond", "000 §IV settings", f"selective reduce reaches the target accuracy sooner than {what}",
            f"median {SHORT[other]}/SR time ratio {fmt_bound_range(lo.lo, lo.hi, hi.lo, hi.hi)} over n, traces",
            note=f"SR faster (median paired ratio > 1) at every (trace, n): {faster}; {setting}; "
                 f"{lo.censoring_text()}, censored at the cap ({cap}): {CENSORING_RULE}",
            paper_value=_PAPERS))
    if not ladder_targets(df):
        return out
    ladders = {o: ladder_ratios(df, by=["trace", "n"], num=o, den="selective", censor_at_s=duration_s)
               for o in ("partial", "allreduce") if {o, "selective"} <= schemes}
    for target in ladder_targets(df):
        for other, lad in ladders.items():
            row = lad.set_index("target").loc[target]
            out.append(observation(
                "beyond", "000 §IV settings, target ladder",
                f"{SHORT[other]}/SR time to {target:.0%} test accuracy",
                f"median paired ratio {row['range_text']} over n, traces",
                note=f"{SHORT[other]} reached it in {row['reached_num']:.0%} of runs, SR in "
                     f"{row['reached_den']:.0%}; {int(row['censored'])} of {int(row['pairs'])} pairs censored "
                     f"at the cap ({cap})",
                paper_value=_PAPERS))
    return out


def _every(yes: pd.Series, no: pd.Series) -> str:
    """"yes" when every group certainly satisfies the statement, "no" when one certainly does not,
    else "undetermined (censored runs)"."""
    if bool(yes.all()):
        return "yes"
    return "no" if bool(no.any()) else "undetermined (censored runs)"


def ladder_conclusion(df: pd.DataFrame, duration_s) -> list[str]:
    """Notebook 90's concluding lines, computed from the ladder of PR/SR ratios: the targets at
    which selective reduce is clearly faster than partial reduce at every (trace, n) (every
    median paired ratio certainly > :data:`CLEAR_GAIN`), those where no (trace, n) shows such a
    gain (every median certainly <= it), those censoring leaves undetermined, and how often
    each scheme reached each target.  ``duration_s``: the runs' cap (s or a column name)."""
    _need(df, "df", ["trace", "n", "scheme", "trial", "time_to_target_s"])
    lad = ladder_ratios(df, by=["trace", "n"], num="partial", den="selective",
                        censor_at_s=duration_s).set_index("target")
    r = paired_bounds(df, "time_to_target_s", duration_s, by=["trace", "n"], num="partial", den="selective")
    lo, hi = summary(r, "median", "min"), summary(r, "median", "max")
    target = df["target_acc"].iloc[0] if "target_acc" in df.columns else None
    clear = [a for a in lad.index if lad.loc[a, "min_lo"] > CLEAR_GAIN]
    tied = [a for a in lad.index if lad.loc[a, "max_hi"] <= CLEAR_GAIN]
    open_ = [a for a in lad.index if a not in clear and a not in tied]
    pct = lambda xs: ", ".join(f"{a:.0%}" for a in xs) or "none"   # noqa: E731
    return [
        (f"At the notebook's target ({target:.0%}) the" if target is not None else "At the notebook's target the")
        + f" median paired PR/SR ratio is {fmt_bound_range(lo.lo, lo.hi, hi.lo, hi.hi)} over (trace, n) "
          f"({lo.censoring_text()}).",
        f"Selective reduce is faster than partial reduce at every (trace, n) (ratio > {CLEAR_GAIN:g}) at "
        f"targets: {pct(clear)}",
        f"No (trace, n) shows a gain above {CLEAR_GAIN:g} at targets: {pct(tied)}",
        f"Censored runs leave it undetermined at targets: {pct(open_)}",
        "Partial reduce / selective reduce reached the target in: "
        + ", ".join(f"{a:.0%}: {lad.loc[a, 'reached_num']:.0%} / {lad.loc[a, 'reached_den']:.0%}" for a in lad.index),
    ]
