"""Seed 003 §3's experiments as sweep inputs and their paired read-outs.

* :func:`fig2_settings` — Fig. 2's 12 variants (8 FMReduce + 4 original
  partial reduce) at one parameter point; :func:`p_sweep_settings` the same
  grid over p (beyond the paper).  The trial function is
  :func:`simlib.papers.fmreduce.scenario.run_trial`.
* :func:`paired_choice` — for one design choice, the per-trial ratio of a
  metric between the two options in every otherwise-equal pair of variants
  (trials share bandwidths and compute draws, so the ratio is paired).
* :func:`phase_breakdown` — median per-phase time of each variant.
* :class:`Fig2Notebook` — notebook 30's parameters: the scenario fields it sets
  (their ranges, units and quick values are :class:`.scenario.Scenario`'s) and
  its own (trials, the other traces, the p sweep), for
  :func:`simlib.pipeline.run.start`.
* :func:`lp_tie_settings` — decision FM7's check: the LP-split variants at small
  n with both LP solvers, which may return different optimal splits.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from simlib.core.validate import check_choice, check_real
from simlib.papers.contract import ScenarioBase, check_items, param, param_list, param_of

from .scenario import VARIANTS, Scenario, variant_label
from .system import PHASES

__all__ = ["CHOICES", "KNOBS", "fig2_settings", "p_sweep_settings", "paired_choice", "phase_breakdown",
           "label_variants", "Fig2Notebook", "lp_tie_settings", "LP_TIE_N_VALUES", "LP_TIE_TRIALS",
           "LP_TIE_DURATION_S", "LONG_WORDS", "CHOICE_WORDS", "long_label"]

#: The four design choices of §3: knob -> (option the paper expects to win, the other).
CHOICES = {"split": ("lp", "even"), "sharing": ("fcfs", "fs"), "mode": ("nonblocking", "blocking"),
           "reducers": ("all", "participants")}
KNOBS = tuple(CHOICES)


@dataclass(frozen=True)
class Fig2Notebook(ScenarioBase):
    """Notebook 30's parameters (its parameters cell assigns these defaults; a test checks it)."""

    trials: int = param(10, lo=1, quick=2, help="trials per Fig. 2 variant")
    n: int = param_of(Scenario, "n")
    p: int = param_of(Scenario, "p")
    model_mb: float = param_of(Scenario, "model_mb")
    duration_s: float = param_of(Scenario, "duration_s")
    trace: str = param_of(Scenario, "trace")
    compute_mean_s: float = param_of(Scenario, "compute_mean_s")
    reduce_s_per_mb: float = param_of(Scenario, "reduce_s_per_mb")
    other_traces: tuple = param_list(["cnn", "lstm"], of=(Scenario, "trace"), quick=["cnn"], chosen="FM9",
                                     help="Fig. 2 again with these traces")
    trace_trials: int = param(5, lo=1, quick=1, help="trials per variant with the other traces")
    p_values: tuple = param_list([10, 20, 30, 40, 50, 60], of=(Scenario, "p"), quick=[4, 8, 12],
                                 help="the p sweep (beyond the paper), each at most n")
    sweep_trials: int = param(5, lo=1, quick=1, help="trials per variant and p of the p sweep")
    trials_step: int = param(5, lo=1, quick=1, help="S25: trials added while a Fig. 2 or p = n verdict is undecided")
    trials_cap: int = param(40, lo=1, quick=2, help="S25: at most this many trials (Fig. 2 and p = n; below trials: none added), then undecided")

    def check(self):
        fixed = dict(n=self.n, model_mb=self.model_mb, duration_s=self.duration_s, trace=self.trace,
                     compute_mean_s=self.compute_mean_s, reduce_s_per_mb=self.reduce_s_per_mb)
        Scenario(p=self.p, **fixed)                     # the scenario's own cross-field rules (p <= n)
        check_items("p_values", self.p_values, lambda q: Scenario(p=q, **fixed))


def fig2_settings(**fixed) -> list[dict]:
    """The 12 variants of Fig. 2, each merged with the ``fixed`` Scenario fields."""
    return [dict(v, **fixed) for v in VARIANTS]


def p_sweep_settings(p_values, n: int = 60, **fixed) -> list[dict]:
    """The 12 variants for every p in ``p_values`` (each in [1, n])."""
    return [dict(v, p=int(p), n=n, **fixed) for p in p_values for v in VARIANTS]


#: FM7's check (notebook 30): small meshes, where LP (2) often has several optimal splits
#: (integer bandwidth units give h(lam) flat tops), a few trials, and a period short enough
#: that the per-round HiGHS solves of the blocking variants stay cheap (seconds).
LP_TIE_N_VALUES = (12, 20, 30)
LP_TIE_TRIALS = 3
LP_TIE_DURATION_S = 120.0


def lp_tie_settings(n_values, duration_s: float = LP_TIE_DURATION_S, p_fraction: float = 1 / 3,
                    sharing: str = "fcfs", **fixed) -> list[dict]:
    """The three network-aware variants (FMReduce blocking and non-blocking, original partial
    reduce) with ``lp_solver`` = ``"breakpoint"`` and ``"highs"`` for every n in ``n_values``,
    p = max(2, round(p_fraction * n)); ``fixed`` holds other Scenario fields.

    Both solvers reach the same optimum of LP (2) (tests) but, where the optimum is not
    unique, may return different splits; pairing the two solvers per trial (same mesh, same
    compute draws) measures what that choice does to the rounds (decision FM7).
    """
    p_fraction = check_real("p_fraction", p_fraction, 0.0, 1.0, lo_open=True)
    variants = [v for v in VARIANTS if v["split"] == "lp" and v["sharing"] == sharing]
    if not variants:
        raise ValueError(f"sharing must be one of {sorted({v['sharing'] for v in VARIANTS})}, got {sharing!r}")
    return [dict(v, n=int(n), p=max(2, min(int(n), round(p_fraction * n))), duration_s=duration_s,
                 lp_solver=solver, **fixed)
            for n in n_values for v in variants for solver in ("breakpoint", "highs")]


def label_variants(df: pd.DataFrame) -> pd.Series:
    """Variant label (e.g. ``"FM NB LP FCFS"``) of every row of a sweep frame."""
    return pd.Series([variant_label(*r) for r in df[["reducers", "mode", "split", "sharing"]].itertuples(index=False, name=None)],
                     index=df.index, name="variant") if len(df) else pd.Series([], dtype=object, name="variant")


def paired_choice(df: pd.DataFrame, knob: str, metric: str = "rounds", by=()) -> pd.DataFrame:
    """Per-trial ratio ``metric(first option) / metric(second option)`` of ``knob`` (see
    :data:`CHOICES`) in every pair of variants equal in the other knobs and ``by`` columns.

    Returns one row per pair: the other knobs, ``by``, ``pair`` (a label with the
    knob left out), ``median``/``min``/``max`` of the ratio over trials and
    ``wins`` (fraction of trials where the first option is strictly better).
    """
    check_choice("knob", knob, KNOBS)
    first, second = CHOICES[knob]
    others = [k for k in KNOBS if k != knob]
    keys = others + list(by) + ["trial"]
    wide = df.pivot_table(index=keys, columns=knob, values=metric, aggfunc="first").dropna()
    if wide.empty:
        return pd.DataFrame(columns=others + list(by) + ["pair", "median", "min", "max", "wins"])
    ratio = (wide[first] / wide[second]).rename("ratio").reset_index()
    ratio["win"] = (wide[first] > wide[second]).to_numpy()
    out = ratio.groupby(others + list(by)).agg(median=("ratio", "median"), min=("ratio", "min"),
                                                max=("ratio", "max"), wins=("win", "mean")).reset_index()
    out["pair"] = [" ".join(w for w in variant_label(**{k: r[k] for k in others}, **{knob: first}).split()
                            if w not in _OPTION_WORDS[knob])
                   for _, r in out.iterrows()]
    return out


_OPTION_WORDS = {"split": {"LP", "even"}, "sharing": {"FCFS", "FS"}, "mode": {"NB", "B"},
                 "reducers": {"FM", "PR"}}

#: The words of a short variant label (:func:`.scenario.variant_label`) spelled out for figure legends.
LONG_WORDS = {"FM": "FMReduce", "PR": "original PR", "NB": "non-blocking", "B": "blocking", "LP": "LP split",
              "even": "even split", "FCFS": "FCFS", "FS": "fair sharing"}
#: Each design choice in words, for figure titles: knob -> (the option expected to win, the other).
CHOICE_WORDS = {"split": ("LP (2) split", "even split"), "sharing": ("FCFS", "fair sharing"),
                "mode": ("non-blocking", "blocking"), "reducers": ("all reduce (FMReduce)", "participants (PR)")}


def long_label(label: str) -> str:
    """A short variant label or pair label spelled out: ``"FM NB LP FCFS"`` -> ``"FMReduce, non-blocking,
    LP split, FCFS"`` (ValueError on an unknown word)."""
    words = label.split()
    unknown = [w for w in words if w not in LONG_WORDS]
    if unknown:
        raise ValueError(f"label must consist of {sorted(LONG_WORDS)}, got {label!r}")
    return ", ".join(LONG_WORDS[w] for w in words)


def phase_breakdown(df: pd.DataFrame, by=()) -> pd.DataFrame:
    """Median over trials of each variant's mean per-phase time (s), long format:
    columns ``variant``, ``by``..., ``phase``, ``seconds``."""
    d = df.assign(variant=label_variants(df))
    cols = [f"{ph}_s" for ph in PHASES]
    med = d.groupby(["variant", *by])[cols].median().reset_index()
    long = med.melt(id_vars=["variant", *by], value_vars=cols, var_name="phase", value_name="seconds")
    long["phase"] = long["phase"].str.removesuffix("_s")
    return long
