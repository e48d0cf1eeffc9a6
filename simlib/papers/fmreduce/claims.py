"""Seed 003's claims (§3, Fig. 2) and observations, as tested code: result frames -> :class:`Claim`.

Fig. 2's judged rows are a table, :data:`FIG2_ROWS` (figure, claim, paper value, predicate, cause rule,
value and note templates, strength) over small named predicates (:func:`as_paper_sides`,
:func:`mode_as_paper`, :func:`every_pair_beats`, :func:`remarkable_gain`).
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
from typing import Callable, Sequence

import pandas as pd

from simlib.papers.analysis import paired_ratio, require_frame as _need
from simlib.papers.censoring import span_of
from simlib.papers.claim import Claim, observation
from simlib.papers.paired_strength import above, at_least, below, decided, fields, group_strengths

from .experiments import CHOICES, KNOBS, paired_choice, phase_breakdown
from .scenario import Scenario

__all__ = ["PAPER", "REMARKABLE", "BEATS_RULE", "PAPER_SIDES", "PAPER_VALUES", "paper_p", "paper_marks", "beats",
           "loses", "gain_at_least", "p_where", "pair_strengths", "Fig2", "Fig2Row", "FIG2_ROWS", "fig2_context",
           "as_paper_sides", "mode_as_paper", "every_pair_beats", "remarkable_gain", "fig2", "lp_ties", "discussion"]

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


@dataclasses.dataclass(frozen=True)
class Fig2:
    """What Fig. 2's rows read (:func:`fig2_context`): the setting (``n``, ``p``, ``trace``, ``trials``),
    each knob's pairs at it with their strengths (``pairs``; ``"p=n"``: the mode pairs of FMReduce at
    p = n; ``"remarkable"``: the reducers pairs' strengths against :data:`REMARKABLE`), each knob's pairs
    per p of the sweep (``by_p``), the sweep's p values and n, the p = n frame and the other traces (or None)."""
    n: int
    p: int
    trace: str
    trials: int
    pairs: dict
    by_p: dict
    sweep_ps: tuple
    n_sweep: int
    p_full: pd.DataFrame
    traces: pd.DataFrame | None

    @property
    def where(self) -> str:
        return f"p={self.p}, n={self.n}, {self.trace} trace, {self.trials} trials"

    @property
    def sweep_text(self) -> str:
        return f"p sweep over p = {self.sweep_ps[0]}–{self.sweep_ps[-1]}, n = {self.n_sweep}"

    def text(self, template: str, t: pd.DataFrame) -> str:
        """``template`` with the named values of :data:`_TEXTS` of this context and the row's pairs ``t``."""
        return template.format_map(_Texts(self, t))


class _Texts(dict):
    """The values a row's templates name, computed on first use (:data:`_TEXTS`)."""

    def __init__(self, fig: Fig2, t: pd.DataFrame):
        super().__init__()
        self.fig, self.t = fig, t

    def __missing__(self, key):
        value = self[key] = _TEXTS[key](self.t, self.fig)
        return value


def _mode(fig: Fig2, split: str) -> pd.DataFrame:
    t = fig.pairs["mode"]
    return t[t.split == split]


#: The names a :class:`Fig2Row`'s templates use, each a function of (the row's pairs, the context).
_TEXTS = {
    "range": lambda t, f: _range(t),
    "not_better": lambda t, f: ", ".join(t.loc[t["median"] <= 1, "pair"]) or "none",
    "where": lambda t, f: f.where, "p": lambda t, f: f.p, "n": lambda t, f: f.n, "trace": lambda t, f: f.trace,
    "sweep_text": lambda t, f: f.sweep_text, "beats_rule": lambda t, f: BEATS_RULE,
    "remarkable": lambda t, f: REMARKABLE,
    "even_range": lambda t, f: _range(_mode(f, "even")), "lp_range": lambda t, f: _range(_mode(f, "lp")),
    "lp_b_wins": lambda t, f: _at(p_where(f.by_p["mode"], lambda g: loses(g[g.split == "lp"]))),
    "remarkable_at": lambda t, f: _at(p_where(f.by_p["reducers"], lambda g: gain_at_least(g, REMARKABLE))),
    "extra_reducers": lambda t, f: f.n / f.p - 1,
    "n_full": lambda t, f: _single(f.p_full, "p_full", "n"), "full_trials": lambda t, f: f.p_full["trial"].nunique(),
}


# ---- the predicates: (pairs, context, row) -> bool
def as_paper_sides(t: pd.DataFrame, fig: Fig2, row) -> bool:
    """Every pair lies on the side of 1 :data:`PAPER_SIDES` states for the row's knob."""
    return _sides_hold(t, row.pairs)


def mode_as_paper(t: pd.DataFrame, fig: Fig2, row) -> bool:
    """§3's mode statement at the context's (p, n) (:func:`_mode_holds`)."""
    return _mode_holds(t, fig.p, fig.n)


def every_pair_beats(t: pd.DataFrame, fig: Fig2, row) -> bool:
    """:func:`beats`: the first option wins every pair."""
    return beats(t)


def remarkable_gain(t: pd.DataFrame, fig: Fig2, row) -> bool:
    """Every pair's gain is at least :data:`REMARKABLE` (our reading of "remarkable")."""
    return gain_at_least(t, REMARKABLE)


# ---- the strength fields (S24): (pairs, context) -> dict
def strength_above(t: pd.DataFrame, fig: Fig2) -> dict:
    return _fields((t, above))


def strength_mode(t: pd.DataFrame, fig: Fig2) -> dict:
    return _mode_fields(t, fig.p, fig.n)


def strength_remarkable(t: pd.DataFrame, fig: Fig2) -> dict:
    return _fields((fig.pairs["remarkable"], at_least))


def _mode_cause(t: pd.DataFrame, fig: Fig2) -> str:
    """Why the mode row fails: a stand-in trace on which it holds, else unexplained."""
    elsewhere = []
    if fig.traces is not None and len(fig.traces):
        for tr, g in fig.traces.groupby("trace"):
            tp = paired_choice(g, "mode")
            if _mode_holds(tp, fig.p, fig.n):
                lp_tr = tp[tp.split == "lp"]
                elsewhere.append(f"{tr} ({lp_tr['median'].min():.3f}–{lp_tr['median'].max():.3f}× with LP)")
    if elsewhere:
        lp = _mode(fig, "lp")
        return fig.text(f"stand-in trace: the claim holds at p = {{p}} with the {', '.join(elsewhere)} stand-in; "
                        f"with the {{trace}} stand-in the LP pairs are within {max(abs(lp['median'] - 1)):.1%} of a "
                        "tie, and blocking wins both LP pairs {lp_b_wins} of the {sweep_text}", t)
    return fig.text("unexplained: NB/B with the LP split {lp_range} at p = {p}; blocking wins both LP "
                    "pairs {lp_b_wins} of the {sweep_text}", t)


@dataclasses.dataclass(frozen=True)
class Fig2Row:
    """One judged row of Fig. 2 and §3 (:data:`FIG2_ROWS`): its ``figure``, ``claim`` and ``paper_value``
    (templates over :data:`_TEXTS`), the pairs it judges (``pairs``: a key of :attr:`Fig2.pairs`), the
    ``predicate`` (pairs, context, row) -> bool giving its direction, the ``cause`` rule when that fails
    (a template, or a function of (pairs, context)), its ``value`` and ``note`` templates and its
    ``strength`` fields (S24).  ``optional``: no row without pairs (p = n when the sweep has none)."""
    figure: str
    claim: str
    paper_value: str
    pairs: str
    predicate: Callable
    cause: str | Callable
    value: str = "{range}"
    note: str = "{beats_rule}; {where}"
    strength: Callable = strength_above
    optional: bool = False

    def judge(self, fig: Fig2) -> Claim | None:
        """This row's claim at ``fig`` (None: an optional row without pairs); undecided: no cause (S24)."""
        t = fig.pairs[self.pairs]
        if self.optional and not len(t):
            return None
        holds = self.predicate(t, fig, self)
        cause = "" if holds else self.cause(t, fig) if callable(self.cause) else fig.text(self.cause, t)
        return _undecided(Claim(PAPER, self.figure, fig.text(self.claim, t), self.paper_value, fig.text(self.value, t),
                                direction=holds, cause=cause, note=fig.text(self.note, t), **self.strength(t, fig)))


_NOT_BETTER = "unexplained: pairs not better at {where}: {not_better}"

#: Fig. 2's and §3's judged rows, in the ledger's order; the paper values are :data:`PAPER_VALUES`.
FIG2_ROWS = (
    Fig2Row("Fig. 2", f"{_NAMES['split'][0]} beats {_NAMES['split'][1]} in every otherwise-equal pair",
            PAPER_VALUES["split"], "split", as_paper_sides, _NOT_BETTER,
            note="{beats_rule}; {where}; pairs not better: {not_better}"),
    Fig2Row("Fig. 2", f"{_NAMES['sharing'][0]} beats {_NAMES['sharing'][1]} in every otherwise-equal pair",
            PAPER_VALUES["sharing"], "sharing", as_paper_sides, _NOT_BETTER,
            note="{beats_rule}; {where}; pairs not better: {not_better}"),
    Fig2Row("Fig. 2", "non-blocking beats blocking unless the split is network-aware (p < n)", PAPER_VALUES["mode"],
            "mode", mode_as_paper, _mode_cause, value="NB/B even: {even_range}; LP: {lp_range}",
            note="FMReduce pairs; 'beats' = median paired ratio > 1, 'B wins' = < 1 in every pair; {where}; "
                 "in the {sweep_text} blocking wins both LP pairs {lp_b_wins}", strength=strength_mode),
    Fig2Row("§3 text", "at p = n non-blocking beats blocking", PAPER_VALUES["p=n"], "p=n", every_pair_beats,
            "unexplained: non-blocking does not win every FMReduce pair at p = n",
            note="p = n = {n_full}, FMReduce pairs, {full_trials} trials (S25)", optional=True),
    Fig2Row("Fig. 2", "FMReduce (n reducers) beats the original partial reduce in every blocking pair",
            PAPER_VALUES["reducers"], "reducers", as_paper_sides,
            "unexplained: FMReduce does not win every blocking pair at {where}"),
    Fig2Row("Fig. 2", "FMReduce's gain over the original partial reduce is remarkable (≥ {remarkable:g}× "
                      "in every blocking pair) at p = {p}",
            "remarkable speedup (no number)", "reducers", remarkable_gain,
            "paper ambiguity: FM10, FM13 ('remarkable' has no number); our original partial reduce spreads "
            "the model over the p participants' full mesh (p(p-1) links), so at p = {p} of n = {n} FMReduce adds only "
            "{extra_reducers:.0%} more reducers; a less efficient original (e.g. a ring all-reduce) is not modelled; "
            "the gain is ≥ {remarkable:g}× {remarkable_at} of the {sweep_text}",
            value="{range}; ≥ {remarkable:g}× in every pair {remarkable_at} of the p sweep",
            note="'remarkable' read as ≥ {remarkable:g}× (median paired ratio, closed) in every blocking pair, "
                 "our threshold fixed before running; {where}", strength=strength_remarkable),
)


def fig2_context(df: pd.DataFrame, p_sweep: pd.DataFrame, traces: pd.DataFrame | None = None,
                 p_full: pd.DataFrame | None = None) -> Fig2:
    """:func:`fig2`'s frames checked and read into a :class:`Fig2`."""
    _need(df, "df", _SWEEP_COLUMNS + ("trace",))
    _need(p_sweep, "p_sweep", _SWEEP_COLUMNS)
    n, p, trace = _single(df, "df", "n"), _single(df, "df", "p"), _single(df, "df", "trace")
    n_sweep = _single(p_sweep, "p_sweep", "n")
    if p_full is None:
        p_full = p_sweep[p_sweep["p"] == n_sweep]
    else:
        _need(p_full, "p_full", _SWEEP_COLUMNS)
    pairs = {k: pair_strengths(df, k) for k in KNOBS}
    pairs["p=n"] = pair_strengths(p_full[(p_full["p"] == p_full["n"]) & (p_full["reducers"] == "all")], "mode")
    pairs["remarkable"] = pair_strengths(df, "reducers", threshold=REMARKABLE)
    return Fig2(n, p, trace, df["trial"].nunique(), pairs, {k: paired_choice(p_sweep, k, by=["p"]) for k in KNOBS},
                tuple(sorted(int(q) for q in p_sweep["p"].unique())), n_sweep, p_full, traces)


def fig2(df: pd.DataFrame, p_sweep: pd.DataFrame, traces: pd.DataFrame | None = None,
         p_full: pd.DataFrame | None = None) -> list[Claim]:
    """Fig. 2's four design choices at the paper's (n, p), the p = n statement (:data:`FIG2_ROWS`), and the
    p sweep's and other traces' observations.

    ``df``: the 12 variants at one (n, p) (``30_fmreduce_fig2``); ``p_sweep``: the same
    grid over p (``30_fmreduce_p_sweep``); ``traces``: the grid with other stand-in
    traces (``30_fmreduce_traces``; used to classify a failed mode claim and for one
    observation per trace); ``p_full``: the grid at p = n with the trials S25 gives it (the p = n
    statement is judged there; None: on the p sweep's p = n rows).
    """
    fig = fig2_context(df, p_sweep, traces, p_full)
    judged = [c for c in (row.judge(fig) for row in FIG2_ROWS) if c is not None]
    return judged + _remarkable_over_p(fig) + _sweep_exceptions(fig) + _other_traces(fig)


def _remarkable_over_p(fig: Fig2) -> list[Claim]:
    """The p values of the sweep where FMReduce's gain is remarkable, with each p's range."""
    per_p = "; ".join(f"p={int(q)}: {span_of(g['median'])}" for q, g in fig.by_p["reducers"].groupby("p"))
    t = fig.pairs["reducers"]
    return [observation(
        PAPER, "p sweep", fig.text("p where FMReduce's gain over the original partial reduce is ≥ {remarkable:g}× "
                                   "in every blocking pair", t),
        fig.text("{remarkable_at}", t).removeprefix("at "),
        note=f"{fig.sweep_text}; median paired ratio of rounds per p (rounds in a fixed time: no target, so no pair "
             f"censored): {per_p}")]


def _sweep_exceptions(fig: Fig2) -> list[Claim]:
    """The (pair, p) points of the sweep where the paper's direction does not hold, per knob."""
    out = []
    for k in ("split", "sharing", "mode"):
        tk = fig.by_p[k]
        if k == "mode":   # NB should win with the even split and at p = n, B with the LP split at p < n
            b_should_win = (tk.split == "lp") & (tk.p < fig.n_sweep)
            bad = tk[(b_should_win & (tk["median"] >= 1)) | (~b_should_win & (tk["median"] <= 1))]
            what = ("pairs where the mode claim fails (NB not ahead with the even split or at p = n, "
                    "B not ahead with the LP split at p < n)")
        else:
            bad = tk[tk["median"] <= 1]
            what = f"pairs where {_NAMES[k][0]} does not beat {_NAMES[k][1]}"
        out.append(observation(
            PAPER, "p sweep", what,
            ", ".join(f"{r.pair} at p={int(r.p)} ({r.median:.3f}×)" for r in bad.itertuples()) or "none",
            note=f"{fig.sweep_text}; median paired ratio of rounds over {len(tk)} (pair, p) points"))
    return out


def _other_traces(fig: Fig2) -> list[Claim]:
    """Fig. 2's four design choices with each other stand-in trace (none without ``traces``)."""
    traces = fig.traces
    if traces is None or not len(traces):
        return []
    _need(traces, "traces", _SWEEP_COLUMNS + ("trace",))
    out = []
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
