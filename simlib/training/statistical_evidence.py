"""Seed 002 §5.2's statistical statements measured on the replayed learning task (notebook 22, issue 32;
decision RP20): "Eager-Reduce cannot achieve the convergence threshold" (stale gradients) and "the
dynamic partial reduce ... reduce[s] the number of needed updates" are statements about statistical
efficiency -- how much learning one update or one local step buys.  Before a Table 1 verdict on them
says anything, the task must show whether the systems differ in that at all.

Three measurements:

* :func:`steps_to_target` (from the ``22_pr_table1`` frame, no extra runs): per system and HL, the
  updates and the local SGD steps (gradient computations, all workers) to the target, and the steps
  paired against all reduce's (fully synchronous SGD, no staleness);
* :func:`staleness_trial` / :func:`staleness_summary`: one gradient-rule system's schedule (PS ASP,
  HETE, Eager-Reduce, ...) replayed twice -- as logged (each gradient on the replica its worker last
  pulled, stale by the updates in between) and with fresh gradients (each on the global model at its
  apply; :func:`~simlib.training.replay.replay`'s ``fresh_gradients``): same schedule, minibatches,
  step factors and updates, staleness 0.  Their paired time and local steps to the target, and the
  largest gap between the two accuracy curves, say whether staleness changes learning on the task;
* :func:`dynamic_vs_constant`: partial reduce's updates to the target with dynamic over constant
  weights, paired per trial.

:func:`evidence_texts` turns them into the sentences the Table 1 claims' causes carry
(:func:`simlib.papers.partial_reduce.table1_claims.table1`'s ``evidence``) and :func:`observations`
into ledger observations.  Units: seconds, counts.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from simlib.papers.analysis import require_frame
from simlib.papers.censoring import bounded_stat, fmt_bound, ratio_bounds, span_of
from simlib.papers.claim import Claim, observation
from simlib.papers.partial_reduce.table1_claims import paired_arms
# The trial lives with the other Table 1 trials (nine_systems, which builds the sweeps); re-exported here.
from simlib.training.nine_systems import MODES, STALENESS_ARMS, staleness_trial

__all__ = ["STALENESS_ARMS", "MODES", "steps_to_target", "staleness_trial", "staleness_summary",
           "dynamic_vs_constant", "momentum_effect", "momentum_observation", "evidence_texts", "observations"]

_PAPER = "002"


def _med(x: pd.Series) -> float:
    """Median with a run that never reached the target as +inf (NaN when at least half did not)."""
    m = float(np.median(x.astype(float).fillna(np.inf))) if len(x) else math.nan
    return m if math.isfinite(m) else math.nan


def steps_to_target(df: pd.DataFrame, ref: str = "AR") -> pd.DataFrame:
    """Per ``(hl, arm)`` of a ``22_pr_table1`` frame (``arm``, ``hl``, ``trial``, ``updates_to_target``,
    ``iterations_to_target``, ``reached``): ``trials``, ``reached``, the median ``updates`` and
    ``local_steps`` to the target (a run that never reached it counts as infinitely many; NaN when
    that decides the median), and the local steps over ``ref``'s (all reduce: synchronous SGD) paired
    per trial, ``steps_vs_ref`` (a number, or NaN when censored runs leave it open), its bounds
    ``steps_vs_ref_lo`` / ``_hi``, the per-trial ``steps_vs_ref_min`` / ``_max``, and how many pairs
    there are and how many of them hold a run that never reached the target (``steps_vs_ref_pairs``,
    ``steps_vs_ref_censored``)."""
    require_frame(df, "df", ["arm", "hl", "trial", "updates_to_target", "iterations_to_target", "reached"])
    rows = []
    for (hl, arm), g in df.groupby(["hl", "arm"], sort=True):
        row = dict(hl=hl, arm=arm, trials=len(g), reached=int(g["reached"].sum()),
                   updates=_med(g["updates_to_target"]), local_steps=_med(g["iterations_to_target"]))
        r = paired_arms(df[df["hl"] == hl], "iterations_to_target", arm, ref)
        if len(r):
            r = r.iloc[0]
            row.update(steps_vs_ref=r["median"], steps_vs_ref_lo=r["median_lo"], steps_vs_ref_hi=r["median_hi"],
                       steps_vs_ref_min=r["min"], steps_vs_ref_max=r["max"], steps_vs_ref_pairs=int(r["trials"]),
                       steps_vs_ref_censored=int(r["censored"]))
        rows.append(row)
    cols = ["hl", "arm", "trials", "reached", "updates", "local_steps", "steps_vs_ref", "steps_vs_ref_lo",
            "steps_vs_ref_hi", "steps_vs_ref_min", "steps_vs_ref_max", "steps_vs_ref_pairs", "steps_vs_ref_censored"]
    return pd.DataFrame(rows).reindex(columns=cols)


def staleness_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per ``(hl, arm)`` of :func:`staleness_trial` rows (plus ``hl``, ``arm``, ``trial``): ``trials``,
    how many of them reached the target as logged and fresh (``stale_reached``, ``fresh_reached``),
    the median time to the target as logged and fresh (``stale_time_s``, ``fresh_time_s``; NaN when
    runs that never reached it decide the median), the paired fresh/stale ratio of the time
    (``time_ratio``, a number or NaN; bounds ``time_ratio_lo`` / ``_hi``, a run that never reached the
    target censored at ``simulated_s``) and of the local steps (``steps_ratio``, bounds likewise; a
    count never reached is unknown), their per-trial ranges (``time_ratio_min`` / ``_max``), the median
    ``staleness_mean`` and the largest ``curve_gap``."""
    require_frame(df, "df", ["hl", "arm", "trial", "simulated_s", "staleness_mean", "curve_gap"]
                  + [f"{m}_{k}" for m in MODES for k in ("time_s", "steps")])
    rows = []
    for (hl, arm), g in df.groupby(["hl", "arm"], sort=True):
        cap = g["simulated_s"].astype(float)
        t_lo, t_hi = ratio_bounds(g["fresh_time_s"].astype(float), cap, g["stale_time_s"].astype(float), cap)
        s_lo, s_hi = ratio_bounds(g["fresh_steps"].astype(float), g["fresh_steps"].astype(float).fillna(0.0),
                                  g["stale_steps"].astype(float), g["stale_steps"].astype(float).fillna(0.0))
        (tm_lo, tm_hi), (sm_lo, sm_hi) = bounded_stat(t_lo, t_hi), bounded_stat(s_lo, s_hi)
        rows.append(dict(hl=hl, arm=arm, trials=len(g), stale_reached=int(g["stale_time_s"].notna().sum()),
                         fresh_reached=int(g["fresh_time_s"].notna().sum()), stale_time_s=_med(g["stale_time_s"]),
                         fresh_time_s=_med(g["fresh_time_s"]),
                         time_ratio=tm_lo if tm_lo == tm_hi else math.nan, time_ratio_lo=tm_lo, time_ratio_hi=tm_hi,
                         time_ratio_min=float(np.min(t_lo)), time_ratio_max=float(np.max(t_hi)),
                         steps_ratio=sm_lo if sm_lo == sm_hi else math.nan, steps_ratio_lo=sm_lo,
                         steps_ratio_hi=sm_hi, staleness_mean=float(g["staleness_mean"].median()),
                         curve_gap=float(g["curve_gap"].max())))
    return pd.DataFrame(rows)


def dynamic_vs_constant(df: pd.DataFrame, table_p=(3, 5)) -> pd.DataFrame:
    """Per ``(hl, P)``: partial reduce's updates to the target with dynamic weights over constant ones
    (arms ``DYN<P>`` / ``CON<P>`` of a ``22_pr_table1`` frame), paired per trial (:func:`paired_arms`:
    ``median`` and its bounds, ``min``, ``max``, ``trials``, ``num_smaller`` = trials DYN needed fewer)."""
    require_frame(df, "df", ["arm", "hl", "trial", "updates_to_target"])
    parts = [paired_arms(df, "updates_to_target", f"DYN{P}", f"CON{P}").assign(P=P) for P in table_p]
    parts = [p for p in parts if len(p)]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def momentum_effect(plain: pd.DataFrame, mom: pd.DataFrame) -> pd.DataFrame:
    """Per ``(hl, arm)`` of ``mom`` (:func:`staleness_trial` rows run with momentum, plus ``hl``, ``arm``,
    ``trial``): the time to the target with momentum (its stale, i.e. as-logged, replay) over the same
    run's without (``plain``: a ``22_pr_table1`` frame, ``time_to_target_s`` and ``duration_s``), paired
    per trial (the schedule does not depend on the training values, so a trial is the same run):
    ``ratio`` (a number, or NaN when censored runs leave it open), ``ratio_lo`` / ``_hi``, the medians
    ``plain_time_s`` / ``momentum_time_s`` and ``reached`` with momentum, and the fresh/stale ratio
    under momentum (``fresh_ratio_lo`` / ``_hi``, :func:`staleness_summary`) (RP21)."""
    require_frame(plain, "plain", ["arm", "hl", "trial", "time_to_target_s", "duration_s"])
    require_frame(mom, "mom", ["arm", "hl", "trial", "stale_time_s", "simulated_s"])
    fresh = staleness_summary(mom).set_index(["hl", "arm"])
    rows = []
    for (hl, arm), g in mom.groupby(["hl", "arm"], sort=True):
        a = g.set_index("trial")
        b = plain[(plain["hl"] == hl) & (plain["arm"] == arm)].set_index("trial")
        a, b = a.align(b, join="inner", axis=0)
        if a.empty:
            continue
        lo, hi = ratio_bounds(a["stale_time_s"].astype(float), a["simulated_s"].astype(float),
                              b["time_to_target_s"].astype(float), b["duration_s"].astype(float))
        m_lo, m_hi = bounded_stat(lo, hi)
        rows.append(dict(hl=hl, arm=arm, trials=len(a), ratio=m_lo if m_lo == m_hi else math.nan, ratio_lo=m_lo,
                         ratio_hi=m_hi, plain_time_s=_med(b["time_to_target_s"]),
                         momentum_time_s=_med(a["stale_time_s"]), reached=int(a["stale_time_s"].notna().sum()),
                         fresh_ratio_lo=fresh.loc[(hl, arm), "time_ratio_lo"],
                         fresh_ratio_hi=fresh.loc[(hl, arm), "time_ratio_hi"]))
    return pd.DataFrame(rows)


def momentum_observation(effect: pd.DataFrame, momentum: float, lr: float, plain_lr: float) -> list[Claim]:
    """:func:`momentum_effect` as a ledger observation (RP21)."""
    if effect.empty:
        return []
    return [observation(_PAPER, "Table 1 (RP21)", f"momentum {momentum:g} against plain SGD",
                        "; ".join(f"{r.arm} HL={r.hl:g}: {fmt_bound(r.ratio_lo, r.ratio_hi)} the time "
                                  f"({r.momentum_time_s:.0f} vs {r.plain_time_s:.0f} s, reached {r.reached} of "
                                  f"{r.trials}; fresh/stale under momentum "
                                  f"{fmt_bound(r.fresh_ratio_lo, r.fresh_ratio_hi)})"
                                  for r in effect.itertuples(index=False)),
                        note=f"the same schedules (Table 1's seeds) replayed with momentum {momentum:g} at lr {lr:g} "
                             f"(the same effective step as plain SGD at lr {plain_lr:g}: lr/(1 - μ)); ratio = "
                             "momentum/plain time to the target, paired per trial (RP21)")]


def _parts(steps: pd.DataFrame, stale: pd.DataFrame | None, dyn: pd.DataFrame | None) -> dict:
    """The measurements as sentences: ``steps`` (local steps against all reduce's), ``eager`` (ER's runs
    that reached the target), ``fresh`` (fresh vs stale replays) and ``dynamic`` (DYN/CON updates)."""
    cells = steps[(steps["arm"] != "AR") & steps["steps_vs_ref_lo"].notna()]
    r = cells.dropna(subset=["steps_vs_ref"])
    open_ = cells[cells["steps_vs_ref"].isna()]
    out = {"steps": "local SGD steps to the target over all reduce's (synchronous SGD), paired medians: "
                    + (span_of(r["steps_vs_ref"]) + f" over {len(r)}" + (f" of {len(cells)}" if len(open_) else "")
                       + " system × HL cells"
                       if len(r) else f"n/a in all {len(cells)} system × HL cells")
                    + ("; left open by runs that never reached the target: "
                       + ", ".join(f"{row.arm} HL={row.hl:g} {fmt_bound(row.steps_vs_ref_lo, row.steps_vs_ref_hi)}"
                                   for row in open_.itertuples(index=False)) if len(open_) else "")
                    + f"; {int(cells['steps_vs_ref_censored'].sum())} of {int(cells['steps_vs_ref_pairs'].sum())} "
                      "pairs censored (a run that never reached the target)",
           "eager": "; ".join(f"HL={row.hl:g}: ER reached in {row.reached} of {row.trials} runs with "
                              f"{fmt_bound(row.steps_vs_ref_lo, row.steps_vs_ref_hi)} all reduce's local steps"
                              for row in steps[steps["arm"] == "ER"].itertuples(index=False)),
           "fresh": "", "dynamic": ""}
    if stale is not None and len(stale):
        out["fresh"] = ("the same schedules replayed with fresh gradients (staleness 0) reach it in "
                        + "; ".join(f"{row.arm} HL={row.hl:g} {fmt_bound(row.time_ratio_lo, row.time_ratio_hi)} "
                                    f"the time (reached {row.stale_reached} of {row.trials} as logged, "
                                    f"{row.fresh_reached} of {row.trials} fresh; mean staleness "
                                    f"{row.staleness_mean:.1f} updates, largest accuracy gap {row.curve_gap:.3f})"
                                    for row in stale.itertuples(index=False)))
    if dyn is not None and len(dyn):
        out["dynamic"] = ("DYN/CON updates to the target, paired medians: "
                          + "; ".join(f"P={row.P:g} HL={row.hl:g} {fmt_bound(row.median_lo, row.median_hi)} "
                                      f"(DYN fewer in {row.num_smaller} of {row.trials})"
                                      for row in dyn.itertuples(index=False)))
    return out


def _join(*texts) -> str:
    return "; ".join(t for t in texts if t)


def evidence_texts(steps: pd.DataFrame, stale: pd.DataFrame | None = None,
                   dyn: pd.DataFrame | None = None) -> dict:
    """The sentences :func:`~simlib.papers.partial_reduce.table1_claims.table1` appends to the causes of
    the statistical claims (keys ``"eager"``, ``"staleness"``, ``"dynamic"``), from
    :func:`steps_to_target`, :func:`staleness_summary` and :func:`dynamic_vs_constant` (the last two
    optional: their sentences are left out)."""
    p = _parts(steps, stale, dyn)
    er_fresh = p["fresh"] if stale is not None and "ER" in set(stale["arm"]) else ""
    return {"eager": _join(p["eager"], er_fresh, p["steps"]), "staleness": _join(p["fresh"], p["steps"]),
            "dynamic": _join(p["dynamic"], p["steps"])}


def observations(steps: pd.DataFrame, stale: pd.DataFrame | None = None, dyn: pd.DataFrame | None = None,
                 setting: str = "default", target: float | None = None) -> list[Claim]:
    """Ledger observations (002, Table 1) of the three measurements at ``setting`` (``target``: the
    accuracy they count to, for the text)."""
    at = "" if target is None else f" to {target:.0%}"
    p = _parts(steps, stale, dyn)
    per = "; ".join(f"HL={hl:g}: " + ", ".join(f"{row.arm} " + (f"{row.local_steps:.0f}" if math.isfinite(row.local_steps)
                                                               else "n/a") for row in g.itertuples())
                    for hl, g in steps.groupby("hl"))
    out = [observation(_PAPER, "Table 1 (RP20)", f"statistical efficiency: local steps{at} of every system",
                       f"median local steps: {per}; {p['steps']}",
                       note="local SGD steps (all workers) to the target; a run that never reached it is censored: "
                            "its count is a lower bound, a median it decides is n/a and a ratio it enters is a "
                            "bound (RP17); the ratio to all reduce's is paired per trial (RP20)", setting=setting)]
    if p["fresh"]:
        out.append(observation(_PAPER, "Table 1 (RP20)", f"statistical efficiency: stale vs fresh gradients{at}",
                               p["fresh"], setting=setting,
                               note="each gradient-rule schedule replayed as logged and with every gradient taken on "
                                    "the model it is applied to (same schedule, minibatches, step factors); ratio = "
                                    "fresh/stale time to the target, paired per trial (RP20)"))
    if p["dynamic"]:
        out.append(observation(_PAPER, "Table 1 (RP20)", f"statistical efficiency: dynamic vs constant weights{at}",
                               p["dynamic"], setting=setting,
                               note="partial reduce's updates to the target, DYN/CON paired per trial (RP20)"))
    return out
