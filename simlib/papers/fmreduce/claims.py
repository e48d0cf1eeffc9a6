"""Seed 003's claims (§3, Fig. 2) and observations, as tested code: result frames -> :class:`Claim`.

Notebook 30 calls :func:`fig2` with its three sweep frames (``30_fmreduce_fig2``,
``30_fmreduce_p_sweep``, ``30_fmreduce_traces``, as the sweeps return them) and
:func:`lp_ties` with ``30_fmreduce_lp_ties``; :func:`discussion` gives the numbers
its discussion prints.  Rules, fixed before looking at our values:

* "A beats B" (a design choice in Fig. 2): in every otherwise-equal pair of variants
  the median over trials of the paired ratio of rounds A / B is **> 1** (a ratio of
  exactly 1 is a tie, not a win); "B wins" is the converse (**< 1**).  Pairs come from
  :func:`~simlib.papers.fmreduce.experiments.paired_choice`.
* The paper gives no number anywhere in §3; FMReduce's gain over the original partial
  reduce is "remarkable", which we read as **≥** :data:`REMARKABLE` = 1.5× in every
  blocking pair (fixed before running, in the notebook this module replaces).  Since
  that is our reading and not the paper's number, it is a direction verdict of its
  own row, never a magnitude verdict; the p sweep says where in p it holds.
* Strength (decision S24): every verdict above is comparative, so each pair's median carries the
  sign-test interval of the per-trial ratio (:func:`pair_strengths`); a rule is decided per pair on
  its interval (> 1: lower end above 1; < 1: upper end below 1; ≥ 1.5: lower end at least 1.5) and
  is **undecided** when some pair's interval straddles its threshold and none decides it false.  The
  point verdicts above stay the rows' ``direction``.  The observations (the p sweep, other traces,
  LP ties) are not verdicts and carry no interval.
"""
from __future__ import annotations

import dataclasses
from typing import Sequence

import pandas as pd

from simlib.papers.analysis import paired_ratio, require_frame as _need
from simlib.papers.censoring import span_of
from simlib.papers.claim import Claim, observation
from simlib.papers.paired_strength import above, at_least, below, decided, fields, group_strengths

from .experiments import CHOICES, KNOBS, paired_choice, phase_breakdown
from .scenario import Scenario

__all__ = ["PAPER", "REMARKABLE", "BEATS_RULE", "PAPER_SIDES", "PAPER_VALUES", "paper_p", "paper_marks", "beats",
           "loses", "gain_at_least", "p_where", "pair_strengths", "fig2", "lp_ties", "discussion"]

PAPER = "003"
#: Our reading of "a remarkable speedup" (no number in the paper): at least 1.5x in every pair.
REMARKABLE = 1.5
BEATS_RULE = "median over trials of the paired ratio of rounds > 1 in every otherwise-equal pair"
#: What §3 says of each design choice at Fig. 2's p (< n), the one place the ledger rows (their rules and
#: paper values) and notebook 30's paper marks read it: per knob, ``(pairs, side)`` with ``pairs`` the split
#: the pairs share (None: every pair) and ``side`` where the paired ratio of rounds (first option / second,
#: :data:`~simlib.papers.fmreduce.experiments.CHOICES`) lies, "above" or "below" 1.  The paper gives a
#: direction only: no value of Fig. 2 is in its text.
PAPER_SIDES = {"split": ((None, "above"),), "sharing": ((None, "above"),),
               "mode": (("even", "above"), ("lp", "below")), "reducers": ((None, "above"),)}
#: The ledger rows' paper values (per knob, and "p=n": §3's statement at p = n, non-blocking above 1).
PAPER_VALUES = {"split": "always better", "sharing": "always better",
                "mode": "NB > B with even split; B > NB with LP split", "reducers": "faster (remarkable speedup)",
                "p=n": "NB > B"}
_FIRST_SECOND = ", ".join(f"{a}/{b}" for a, b in CHOICES.values())
_NAMES = {"split": ("network-aware", "evenly divided"), "sharing": ("FCFS", "FS"),
          "mode": ("non-blocking", "blocking"), "reducers": ("FMReduce (n reducers)", "original partial reduce")}


# ----------------------------------------------------------------------------- rules

def beats(pairs: pd.DataFrame) -> bool:
    """The first option wins every pair: median paired ratio strictly above 1 (False without pairs)."""
    return bool(len(pairs) and (pairs["median"] > 1).all())


def loses(pairs: pd.DataFrame) -> bool:
    """The second option wins every pair: median paired ratio strictly below 1 (False without pairs)."""
    return bool(len(pairs) and (pairs["median"] < 1).all())


def gain_at_least(pairs: pd.DataFrame, factor: float) -> bool:
    """Every pair's median paired ratio is at least ``factor`` (closed; False without pairs)."""
    return bool(len(pairs) and (pairs["median"] >= factor).all())


def _sides_hold(pairs: pd.DataFrame, knob: str) -> bool:
    """Every subset of pairs :data:`PAPER_SIDES` names for ``knob`` lies on its side of 1."""
    rule = {"above": beats, "below": loses}
    return all(rule[side](pairs if split is None else pairs[pairs.split == split])
               for split, side in PAPER_SIDES[knob])


def paper_p() -> int:
    """Fig. 2's p (its caption: p = 50), as the scenario declares it (``Scenario.p``'s default, stated
    "Fig. 2 caption"): where the paper's directions are stated."""
    return int(Scenario().p)


def paper_marks(knob: str) -> list[tuple[int, str | None, str, str]]:
    """What notebook 30 may draw as "paper" on the ratio panel of ``knob`` (one of
    :data:`PAPER_SIDES`): ``(p, pairs, side, label)`` per statement, at Fig. 2's p (:func:`paper_p`),
    read from :data:`PAPER_SIDES` as the ledger rows are.  Seed 003 quantifies no result (Fig. 2's
    values are not in its text), so these are sides of 1, not numbers; :data:`REMARKABLE` is our
    reading, not the paper's, and is not a paper mark."""
    if knob not in PAPER_SIDES:
        raise ValueError(f"knob must be one of {sorted(PAPER_SIDES)}, got {knob!r}")
    p = paper_p()
    return [(p, split, side, f"paper (Fig. 2, p = {p}): {side} 1" + ("" if split is None else
                                                                     f" with the {split} split"))
            for split, side in PAPER_SIDES[knob]]


def pair_strengths(df: pd.DataFrame, knob: str, by=(), threshold: float = 1.0) -> pd.DataFrame:
    """:func:`~simlib.papers.fmreduce.experiments.paired_choice` with a ``strength`` column: per pair the
    :class:`~simlib.papers.strength.Strength` of the per-trial ratio of rounds against ``threshold`` (S24)."""
    t = paired_choice(df, knob, by=by)
    first, second = CHOICES[knob]
    cols = [k for k in KNOBS if k != knob] + list(by)
    st = group_strengths(df, "rounds", cols, first, second, col=knob, threshold=threshold)
    return t.assign(strength=[st[tuple(r[c] for c in cols)] for _, r in t.iterrows()])


def _fields(*parts) -> dict:
    """Strength fields of a verdict decided per pair: ``parts`` are (pairs frame with ``strength``, the
    per-pair decision function); the verdict is undecided when the combined decision is None."""
    groups, decisions = {}, []
    for t, rule in parts:
        for r in t.itertuples():
            groups[r.pair] = r.strength
            decisions.append(rule(r.strength))
    return fields(groups, decided(decisions)) if groups else {}


def _mode_fields(pairs: pd.DataFrame, p: int, n: int) -> dict:
    """:func:`_mode_holds` decided on the pairs' intervals."""
    if p >= n:
        return _fields((pairs, above))
    return _fields((pairs[pairs.split == "even"], above), (pairs[pairs.split == "lp"], below))


def _undecided(c: Claim) -> Claim:
    """An undecided claim carries no cause (S24)."""
    return dataclasses.replace(c, cause="") if c.verdict == "undecided" else c


def p_where(by_p: pd.DataFrame, rule) -> list[int]:
    """The p values (ascending) whose pairs satisfy ``rule`` (a function of one p's pairs)."""
    return sorted(int(q) for q, g in by_p.groupby("p") if rule(g))


def _range(pairs: pd.DataFrame) -> str:
    return f"{span_of(pairs['median'], digits=3)} over {len(pairs)} pairs"


def _at(values: Sequence[int]) -> str:
    """'at p in {10, 20}' / 'at no p'."""
    return "at p in {" + ", ".join(map(str, values)) + "}" if len(values) else "at no p"


def _single(df: pd.DataFrame, name: str, column: str):
    values = df[column].dropna().unique()
    if len(values) != 1:
        raise ValueError(f"{name}: column {column!r} must hold one value, got {sorted(values)}")
    v = values[0]
    return v.item() if hasattr(v, "item") else v


_SWEEP_COLUMNS = ("reducers", "mode", "split", "sharing", "n", "p", "trial", "rounds")


# ----------------------------------------------------------------------------- Fig. 2

def _mode_holds(pairs: pd.DataFrame, p: int, n: int) -> bool:
    """§3: non-blocking beats blocking with the even split; with the LP split blocking wins
    when p < n (at p = n non-blocking wins every pair)."""
    if p >= n:
        return beats(pairs)
    return _sides_hold(pairs, "mode")


def fig2(df: pd.DataFrame, p_sweep: pd.DataFrame, traces: pd.DataFrame | None = None,
         p_full: pd.DataFrame | None = None) -> list[Claim]:
    """Fig. 2's four design choices at the paper's (n, p), the p = n statement, and the p sweep.

    ``df``: the 12 variants at one (n, p) (``30_fmreduce_fig2``); ``p_sweep``: the same
    grid over p (``30_fmreduce_p_sweep``); ``traces``: the grid with other stand-in
    traces (``30_fmreduce_traces``; used to classify a failed mode claim and for one
    observation per trace); ``p_full``: the grid at p = n with the trials S25 gives it (the p = n
    statement is judged there; None: on the p sweep's p = n rows).
    """
    _need(df, "df", _SWEEP_COLUMNS + ("trace",))
    _need(p_sweep, "p_sweep", _SWEEP_COLUMNS)
    n, p, trace = _single(df, "df", "n"), _single(df, "df", "p"), _single(df, "df", "trace")
    trials = df["trial"].nunique()
    where = f"p={p}, n={n}, {trace} trace, {trials} trials"
    pairs = {k: pair_strengths(df, k) for k in KNOBS}
    by_p = {k: paired_choice(p_sweep, k, by=["p"]) for k in KNOBS}
    sweep_ps = sorted(int(q) for q in p_sweep["p"].unique())
    sweep_text = f"p sweep over p = {sweep_ps[0]}–{sweep_ps[-1]}, n = {_single(p_sweep, 'p_sweep', 'n')}"
    out = []

    for k in ("split", "sharing"):
        t = pairs[k]
        not_better = ", ".join(t.loc[t["median"] <= 1, "pair"]) or "none"
        holds = _sides_hold(t, k)
        out.append(_undecided(Claim(
            PAPER, "Fig. 2", f"{_NAMES[k][0]} beats {_NAMES[k][1]} in every otherwise-equal pair",
            PAPER_VALUES[k], _range(t), direction=holds,
            cause="" if holds else f"unexplained: pairs not better at {where}: {not_better}",
            note=f"{BEATS_RULE}; {where}; pairs not better: {not_better}", **_fields((t, above)))))

    # mode: NB > B with the even split, B > NB with the LP split (p < n)
    t = pairs["mode"]
    even, lp = t[t.split == "even"], t[t.split == "lp"]
    lp_b_wins = p_where(by_p["mode"], lambda g: loses(g[g.split == "lp"]))
    holds = _mode_holds(t, p, n)
    cause = ""
    if not holds:
        elsewhere = []
        if traces is not None and len(traces):
            for tr, g in traces.groupby("trace"):
                tp = paired_choice(g, "mode")
                if _mode_holds(tp, p, n):
                    lp_tr = tp[tp.split == "lp"]
                    elsewhere.append(f"{tr} ({lp_tr['median'].min():.3f}–{lp_tr['median'].max():.3f}× with LP)")
        if elsewhere:
            cause = (f"stand-in trace: the claim holds at p = {p} with the {', '.join(elsewhere)} stand-in; "
                     f"with the {trace} stand-in the LP pairs are within {max(abs(lp['median'] - 1)):.1%} of a "
                     f"tie, and blocking wins both LP pairs {_at(lp_b_wins)} of the {sweep_text}")
        else:
            cause = (f"unexplained: NB/B with the LP split {_range(lp)} at p = {p}; blocking wins both LP "
                     f"pairs {_at(lp_b_wins)} of the {sweep_text}")
    out.append(_undecided(Claim(
        PAPER, "Fig. 2", "non-blocking beats blocking unless the split is network-aware (p < n)",
        PAPER_VALUES["mode"],
        f"NB/B even: {_range(even)}; LP: {_range(lp)}", direction=holds, cause=cause, **_mode_fields(t, p, n),
        note=f"FMReduce pairs; 'beats' = median paired ratio > 1, 'B wins' = < 1 in every pair; {where}; "
             f"in the {sweep_text} blocking wins both LP pairs {_at(lp_b_wins)}")))

    # p = n: non-blocking beats blocking (checked in the p sweep)
    n_sweep = _single(p_sweep, "p_sweep", "n")
    if p_full is None:
        p_full = p_sweep[p_sweep["p"] == n_sweep]
    else:
        _need(p_full, "p_full", _SWEEP_COLUMNS)
    t_full = pair_strengths(p_full[(p_full["p"] == p_full["n"]) & (p_full["reducers"] == "all")], "mode")
    if len(t_full):
        n_full = _single(p_full, "p_full", "n")
        out.append(_undecided(Claim(
            PAPER, "§3 text", "at p = n non-blocking beats blocking", PAPER_VALUES["p=n"], _range(t_full),
            direction=beats(t_full),
            cause="" if beats(t_full) else "unexplained: non-blocking does not win every FMReduce pair at p = n",
            note=f"p = n = {n_full}, FMReduce pairs, {p_full['trial'].nunique()} trials (S25)", **_fields((t_full, above)))))

    # reducers: FMReduce vs the original partial reduce
    t = pairs["reducers"]
    remarkable_ps = p_where(by_p["reducers"], lambda g: gain_at_least(g, REMARKABLE))
    per_p = "; ".join(f"p={int(q)}: {span_of(g['median'])}" for q, g in by_p["reducers"].groupby("p"))
    out.append(_undecided(Claim(
        PAPER, "Fig. 2", "FMReduce (n reducers) beats the original partial reduce in every blocking pair",
        PAPER_VALUES["reducers"], _range(t), direction=_sides_hold(t, "reducers"),
        cause="" if _sides_hold(t, "reducers") else
        f"unexplained: FMReduce does not win every blocking pair at {where}",
        note=f"{BEATS_RULE}; {where}", **_fields((t, above)))))
    ok = gain_at_least(t, REMARKABLE)
    t_rem = pair_strengths(df, "reducers", threshold=REMARKABLE)
    out.append(_undecided(Claim(
        PAPER, "Fig. 2", f"FMReduce's gain over the original partial reduce is remarkable (≥ {REMARKABLE:g}× "
                         f"in every blocking pair) at p = {p}",
        "remarkable speedup (no number)",
        f"{_range(t)}; ≥ {REMARKABLE:g}× in every pair {_at(remarkable_ps)} of the p sweep",
        direction=ok,
        cause="" if ok else (
            f"paper ambiguity: FM10, FM13 ('remarkable' has no number); our original partial reduce spreads "
            f"the model over the p participants' "
            f"full mesh (p(p-1) links), so at p = {p} of n = {n} FMReduce adds only {n / p - 1:.0%} more "
            f"reducers; a less efficient original (e.g. a ring all-reduce) is not modelled; the gain is "
            f"≥ {REMARKABLE:g}× {_at(remarkable_ps)} of the {sweep_text}"),
        note=f"'remarkable' read as ≥ {REMARKABLE:g}× (median paired ratio, closed) in every blocking pair, "
             f"our threshold fixed before running; {where}", **_fields((t_rem, at_least)))))
    out.append(observation(
        PAPER, "p sweep", f"p where FMReduce's gain over the original partial reduce is ≥ {REMARKABLE:g}× "
                          "in every blocking pair",
        _at(remarkable_ps).removeprefix("at "),
        note=f"{sweep_text}; median paired ratio of rounds per p (rounds in a fixed time: no target, so no pair "
             f"censored): {per_p}"))

    # the p sweep: the (pair, p) points where the paper's direction does not hold
    for k in ("split", "sharing", "mode"):
        tk = by_p[k]
        if k == "mode":   # NB should win with the even split and at p = n, B with the LP split at p < n
            b_should_win = (tk.split == "lp") & (tk.p < n_sweep)
            bad = tk[(b_should_win & (tk["median"] >= 1)) | (~b_should_win & (tk["median"] <= 1))]
            what = ("pairs where the mode claim fails (NB not ahead with the even split or at p = n, "
                    "B not ahead with the LP split at p < n)")
        else:
            bad = tk[tk["median"] <= 1]
            what = f"pairs where {_NAMES[k][0]} does not beat {_NAMES[k][1]}"
        out.append(observation(
            PAPER, "p sweep", what,
            ", ".join(f"{r.pair} at p={int(r.p)} ({r.median:.3f}×)" for r in bad.itertuples()) or "none",
            note=f"{sweep_text}; median paired ratio of rounds over {len(tk)} (pair, p) points"))

    # Fig. 2 with the other stand-in traces
    if traces is not None and len(traces):
        _need(traces, "traces", _SWEEP_COLUMNS + ("trace",))
        for tr, g in traces.groupby("trace"):
            parts = []
            for k in KNOBS:
                tk = paired_choice(g, k)
                verdict = (_mode_holds(tk, _single(g, "traces", "p"), _single(g, "traces", "n"))
                           if k == "mode" else beats(tk))
                parts.append(f"{k} {tk['median'].min():.3f}–{tk['median'].max():.3f}× "
                             f"({'as the paper says' if verdict else 'not as the paper says'})")
            out.append(observation(
                PAPER, "Fig. 2, other traces", f"the four design choices with the {tr} stand-in",
                "; ".join(parts),
                note=f"median paired ratio of rounds, first option / second ({_FIRST_SECOND}); p={_single(g, 'traces', 'p')}, n={_single(g, 'traces', 'n')}, "
                     f"{g['trial'].nunique()} trials; 'remarkable' not checked"))
    return out


# ----------------------------------------------------------------------------- FM7: LP (2) ties

def lp_ties(df: pd.DataFrame) -> list[Claim]:
    """Decision FM7: what the LP solver's choice among optimal splits does to the rounds.

    ``df``: ``30_fmreduce_lp_ties`` (:func:`~simlib.papers.fmreduce.experiments.lp_tie_settings`),
    with column ``lp_solver``.  One observation: the per-trial ratio of rounds HiGHS /
    breakpoint over every (n, p, variant, trial), and where it is not 1.
    """
    _need(df, "df", _SWEEP_COLUMNS + ("lp_solver", "duration_s"))
    d = df.assign(variant=[" ".join(("FM" if r == "all" else "PR", "NB" if m == "nonblocking" else "B"))
                           for r, m in zip(df["reducers"], df["mode"])])
    by = ["n", "p", "variant"]
    keys = by + ["trial"]
    wide = d.pivot_table(index=keys, columns="lp_solver", values="rounds", aggfunc="first").dropna()
    if not {"highs", "breakpoint"} <= set(wide.columns) or wide.empty:
        raise ValueError("df must hold paired runs with lp_solver 'highs' and 'breakpoint'")
    r = (wide["highs"] / wide["breakpoint"]).rename("ratio").reset_index()
    moved = r[r["ratio"] != 1]
    ns = sorted(int(x) for x in r["n"].unique())
    summary = paired_ratio(d.rename(columns={"lp_solver": "solver"}), "rounds", by=by, num="highs",
                           den="breakpoint", scheme_col="solver")
    return [observation(
        PAPER, "LP (2), FM7", "rounds with the HiGHS split / with the breakpoint split (both optimal)",
        f"per trial {r['ratio'].min() - 1:+.1%} to {r['ratio'].max() - 1:+.1%}; differ in {len(moved)} of "
        f"{len(r)} runs; median per setting {summary['median'].min() - 1:+.1%} to "
        f"{summary['median'].max() - 1:+.1%}",
        note=f"n in {ns}, p = n/3, LP variants (FCFS), {r['trial'].nunique()} paired trials of "
             f"{_single(df, 'df', 'duration_s'):g} s; runs that differ: "
             + (", ".join(f"{x.variant} n={int(x.n)} trial {int(x.trial)} ({x.ratio - 1:+.1%})"
                          for x in moved.itertuples()) or "none"))]


# ----------------------------------------------------------------------------- discussion

def discussion(df: pd.DataFrame, p_sweep: pd.DataFrame) -> list[str]:
    """The numbers notebook 30's discussion cites, as printable lines: best and worst variant,
    the share of an iteration spent computing and waiting for the round to form, and the
    median paired ratio of rounds FMReduce / original partial reduce at every p."""
    from .experiments import label_variants

    _need(df, "df", _SWEEP_COLUMNS)
    med = df.assign(variant=label_variants(df)).groupby("variant")["rounds"].median()
    ph = phase_breakdown(df).pivot(index="variant", columns="phase", values="seconds")
    share = (ph["compute"] + ph["form"]) / ph[["compute", "form", "scatter", "broadcast"]].sum(axis=1)
    lines = [f"best variant: {med.idxmax()} ({med.max():.0f} rounds, median); "
             f"worst: {med.idxmin()} ({med.min():.0f})",
             f"compute + waiting for the round to form: {share.min():.0%}–{share.max():.0%} of an iteration"]
    for q, g in paired_choice(p_sweep, "reducers", by=["p"]).groupby("p"):
        lines.append(f"  p={int(q)}: FM / PR {g['median'].min():.2f}–{g['median'].max():.2f}×")
    return lines
