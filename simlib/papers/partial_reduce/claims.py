"""Seed 002's claims (§3.2 Fig. 4, §3.3 Eq. 9, §4, §5.2 Table 1 and Fig. 8), as tested code.

One function per notebook part: :func:`fig4_and_weights` (notebook 20: the spectral
gap and the dynamic weights' worked example), :func:`group_filter` (notebook 21, §4)
and :func:`sec5` (notebook 21: Fig. 8 and Table 1, from the ``21_pr_training`` frame
as the sweep returns it).  Each returns a list of :class:`~simlib.papers.claim.Claim`.

Rules, fixed before looking at our values and uniform over the paper:

* analytic values (ρ from the paper's group frequencies, Eq. (9)'s weights): exact,
  ``|ours - paper| <=`` :data:`EXACT_ABS`;
* one value the paper states ("ρ = 0.625", "4× faster"): within :data:`NEAR_REL` = 10 %
  (closed, :func:`~simlib.papers.claim.within`);
* a paper range against ours ("1.48–2.01×"): the ranges overlap (closed,
  :func:`~simlib.papers.claim.ratio_within`; E12's rule);
* "A is faster / needs fewer updates than B": the median over trials of the paired ratio
  (trial t of every setting shares its seed) is **strictly** on A's side of 1; a run
  that never reaches the target counts as infinitely many updates / seconds;
* Fig. 8's "positively correlated with P" / "performs conversely": Spearman's rank
  correlation of the medians with P at least :data:`SPEARMAN_MIN` = 0.8 in size
  (strictly, as the notebook this module replaces).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np
import pandas as pd

from simlib.papers.analysis import require_frame as _need
from simlib.papers.censoring import bounded_stat, fmt_bound, fmt_span, ratio_bounds
from simlib.papers.claim import DEFAULT_SETTING, Claim, at_setting, ratio_within, within
from simlib.papers.predicates import interior_extremum, trend
from simlib.papers.strength import Strength, in_range, median_interval, side

from .spectral import rho_from_frequencies
from .weights import dynamic_weights

__all__ = ["PAPER", "EXACT_ABS", "NEAR_REL", "NEAR_RULE", "RANGE_RULE", "SPEARMAN_MIN", "FIG4_FREQUENCIES",
           "FIG4_RHO", "EQ9_EXAMPLE", "TABLE1_ARMS", "TABLE1_ALL", "TABLE1", "TABLE1_DYN_VS_AR", "table1_range", "PER_UPDATE_SPEEDUP", "FIG8_BEST_P", "FIG7_MODEL", "paper_marks", "DEFAULT_READING",
           "FIG4_ROWS", "mixes", "above_homogeneous", "FIG8_TRENDS", "falls", "rises", "with_rules", "paired", "paired_masks", "ratio_text", "row_strength", "decided", "strength_fields", "row_fields", "bounded_within", "fig4_and_weights",
           "group_filter", "sec5", "sec5_open_settings"]

PAPER = "002"
EXACT_ABS = 1e-9
NEAR_REL = 0.10
NEAR_RULE = "within 10 % (one paper value)"
RANGE_RULE = "our range overlaps the paper's (closed; E12's rule)"
SPEARMAN_MIN = 0.8
#: Fig. 4's group frequencies (N = 3, P = 2; worker 2 is the slow one in (b)).
FIG4_FREQUENCIES = {"homogeneous": {(0, 1): 1 / 3, (1, 2): 1 / 3, (0, 2): 1 / 3},
                    "heterogeneous": {(0, 1): 1 / 2, (0, 2): 1 / 4, (1, 2): 1 / 4}}
FIG4_RHO = {"homogeneous": 0.5, "heterogeneous": 0.625}
#: §3.3.3's worked example: iterations (5, 4, 2), alpha = 0.5, x_1 = the initial model: weights
#: (derived from Eq. 9) 8/15, 4/15, 1/15 and 2/15 for x_1.
EQ9_EXAMPLE = {"iterations": (5, 4, 2), "alpha": 0.5, "weights": (8 / 15, 4 / 15, 1 / 15), "w_init": 2 / 15}
#: §5.2.2: "DYN (P=3) can be at most 1.48–2.01× faster than All-Reduce" (HL > 1).
TABLE1_DYN_VS_AR = (3, 1.48, 2.01)
#: §5.2.2: "the per-update time is 4× faster than All-Reduce" (Table 1: P = 3).
PER_UPDATE_SPEEDUP = (3, 4.0)
#: §5.2.3: "partial reduce achieves the optimal total run time with P = 3 and 5".
FIG8_BEST_P = (3, 5)
#: Table 1's columns, in its order.
TABLE1_ARMS = ("AR", "ER", "AD", "BSP", "ASP", "HETE", "BK", "CON3", "DYN3", "CON5", "DYN5")
_ROWS = {
    ("ResNet-34", 1): ((530, None, 482, 605, 768, 756, 588, 423, 393, 448, 456),
                       (1226, None, 6342, 1275, 10213, 9935, 1482, 3030, 2706, 1500, 1484),
                       (0.432, 0.217, 0.076, 0.475, 0.075, 0.076, 0.397, 0.140, 0.145, 0.299, 0.307)),
    ("ResNet-34", 3): ((1150, None, 731, 1204, 996, 861, 734, 630, 603, 639, 658),
                       (1425, None, 7029, 1438, 10335, 8789, 1556, 3209, 3017, 1607, 1621),
                       (0.807, 0.349, 0.104, 0.837, 0.096, 0.098, 0.472, 0.196, 0.200, 0.398, 0.406)),
    ("VGG-19", 1): ((580, None, 582, 734, 1099, 757, 732, 493, 398, 499, 588),
                    (2025, None, 11640, 1985, 16713, 11620, 2532, 5301, 4204, 2528, 2890),
                    (0.286, 0.141, 0.050, 0.370, 0.066, 0.065, 0.289, 0.093, 0.095, 0.197, 0.203)),
    ("VGG-19", 3): ((897, None, 1146, 1019, 1391, 909, 867, 626, 608, 731, 687),
                    (2025, None, 11344, 2005, 19625, 12893, 2852, 5451, 5147, 2942, 2761),
                    (0.443, 0.199, 0.062, 0.508, 0.071, 0.071, 0.304, 0.115, 0.118, 0.248, 0.249)),
    ("DenseNet-121", 1): ((964, None, 870, 977, 952, 913, 923, 660, 694, 947, 964),
                          (1176, None, 6850, 1180, 12009, 11556, 1487, 2798, 2746, 1779, 1947),
                          (0.820, 0.397, 0.127, 0.828, 0.079, 0.079, 0.621, 0.236, 0.253, 0.532, 0.495)),
    ("DenseNet-121", 2): ((1432, None, 1224, 1532, 1299, 1243, 1129, 781, 705, 1269, 1009),
                          (1125, None, 7948, 1192, 13273, 12551, 1643, 2886, 2487, 2202, 1666),
                          (1.273, 0.470, 0.154, 1.286, 0.098, 0.099, 0.687, 0.271, 0.283, 0.576, 0.606)),
}
#: Table 1 (CIFAR-10) in full: (model, HL) -> arm -> (run time s, #updates, per-update time s); ER's run
#: time and #updates are N/A (None): it never reaches the threshold.
TABLE1_ALL = {key: {arm: (t, u, pu) for arm, t, u, pu in zip(TABLE1_ARMS, *rows)} for key, rows in _ROWS.items()}
#: The columns notebook 21 simulates: arms AR (all reduce), CON3/DYN3/CON5/DYN5 (partial reduce,
#: P = 3 / 5). The heterogeneous rows are HL = 3, except DenseNet-121's HL = 2.
TABLE1 = {key: {arm: cells[arm] for arm in ("AR", "CON3", "DYN3", "CON5", "DYN5")} for key, cells in TABLE1_ALL.items()}
_TABLE1_NOTE = "paper range: Table 1 over its three CNNs (ResNet-34, VGG-19, DenseNet-121)"
#: The reading of "the initial model x_1" our simulator uses by default (decision PR13).
DEFAULT_READING = "oldest"
_LEARNING = ("setting: the replayed learning task is a small stand-in for the paper's CNNs on CIFAR-10 "
             "(docs/decisions/replay.md), and statistical efficiency is a property of the task; ")


def _cluster(d: pd.DataFrame) -> str:
    """The cause prefix for run-time and per-update disagreements, naming our cluster's setting."""
    def one(col, fmt):
        vals = d[col].dropna().unique() if col in d.columns else []
        return fmt.format(vals[0]) if len(vals) == 1 else None
    parts = [x for x in (one("n", "{:g} workers"), one("bandwidth_gbps", "{:g} Gbps"), one("model_mb", "{:g} MB"),
                         one("trace", "{} stand-in trace"), one("compute_cv", "compute-time cv {:g}")) if x]
    gamma = one("hl_slowdown", "{:g}")      # PR15: 1 + γ(HL − 1); absent or 1: HL× (the default)
    parts.append("HL workers HL× slower" if gamma in (None, "1") else f"HL workers 1 + {gamma}(HL − 1)× slower")
    return (f"setting: the simulated cluster ({', '.join(parts)}) and the replayed "
            "learning task stand in for the paper's GPUs and CNNs; ")


#: Fig. 7(a)'s model (§5.2.2: "VGG-19 on CIFAR10"): Table 1's rows of that model are its numbers.
FIG7_MODEL = "VGG-19"


def paper_marks(figure: str) -> list[tuple[str, str, float | None, float | None, str]]:
    """The numbers 002's text gives for ``figure`` (``"Fig. 7"``, ``"Fig. 8"`` or ``"Fig. 11"``), read from the
    constants the ledger's claims judge (issue 44 item 2: figure and ledger read one place), as ``(figure,
    what, x, y, label)`` rows:

    * Fig. 8 (§5.2.3): the group sizes with the smallest run time, :data:`FIG8_BEST_P` (``what`` "best P",
      ``x`` = P, ``y`` None);
    * Fig. 7 (§5.2.2, Fig. 7(a) is VGG-19): each system's run time to the threshold over all reduce's, from
      :data:`TABLE1_ALL`'s VGG-19 rows (``what`` the arm, ``x`` the HL, ``y`` the ratio; Eager-Reduce's
      ``y`` None: N/A, it never reaches the threshold);
    * Fig. 11 (§5.3.2): none -- the text says only that AR and BK scale worse than partial reduce."""
    if figure == "Fig. 8":
        return [("Fig. 8", "best P", float(P), None, f"paper: smallest run time at P = {' and '.join(map(str, FIG8_BEST_P))}")
                for P in FIG8_BEST_P]
    if figure == "Fig. 7":
        out = []
        for (model, hl), cells in TABLE1_ALL.items():
            if model != FIG7_MODEL:
                continue
            t_ar = cells["AR"][0]
            for arm in TABLE1_ARMS:
                t = cells[arm][0]
                out.append(("Fig. 7", arm, float(hl), None if t is None else t / t_ar,
                            f"paper ({model}, HL {hl}): " + ("N/A, never reaches the threshold" if t is None
                                                               else f"{t / t_ar:.2f}× AR's time")))
        return out
    if figure == "Fig. 11":
        return []
    raise ValueError(f"figure must be 'Fig. 7', 'Fig. 8' or 'Fig. 11', got {figure!r}")


def table1_range(ratio, heterogeneous: bool) -> tuple[float, float]:
    """``(min, max)`` of ``ratio(cells)`` over Table 1's three models, where ``cells`` is one
    :data:`TABLE1` row (arm -> (run time, #updates, per-update time)); ``heterogeneous``
    picks the HL > 1 rows, else HL = 1."""
    vals = [ratio(c) for (_, hl), c in TABLE1.items() if (hl > 1) == bool(heterogeneous)]
    return float(min(vals)), float(max(vals))


def _frac(x: float) -> str:
    return str(Fraction(float(x)).limit_denominator(1000))


# ----------------------------------------------------------------------------- notebook 20

def mixes(rho: float, rho_homogeneous: float) -> bool:
    """Fig. 4(a)'s direction: 0 < ρ < 1 (the groups connect all workers, slower than all reduce's ρ = 0)."""
    return bool(0 < rho < 1)


def above_homogeneous(rho: float, rho_homogeneous: float) -> bool:
    """Fig. 4(b)'s direction: a slower worker raises ρ above the homogeneous one."""
    return bool(rho > rho_homogeneous)


#: Fig. 4's ρ from the paper's group frequencies, one row each: (figure, claim, :data:`FIG4_FREQUENCIES` /
#: :data:`FIG4_RHO` key (the paper value), the direction's predicate on (ρ, homogeneous ρ), note); the
#: magnitude is exact (:data:`EXACT_ABS`).
FIG4_ROWS = (
    ("Fig. 4(a)", "rho = 0.5 for N=3, P=2, homogeneous", "homogeneous", mixes,
     "from the paper's equal group frequencies; direction: 0 < rho < 1 (the groups connect all workers, slower "
     "than all reduce's rho = 0)"),
    ("Fig. 4(b)", "rho = 0.625 when one worker is 2x slower", "heterogeneous", above_homogeneous,
     "from the paper's group frequencies 1/2, 1/4, 1/4; direction: above the homogeneous rho"),
)


def fig4_and_weights(mixing: pd.DataFrame) -> list[Claim]:
    """Fig. 4 (ρ from the paper's frequencies and from simulated FIFO schedules), ρ = 0 for all
    reduce (§3.2), and Eq. (9)'s worked example.

    ``mixing``: notebook 20's ``20_pr_mixing`` frame (columns ``scheme``, ``n``, ``hl``,
    ``trace``, ``rho``): the N = 3 rows are Fig. 4's setting (``hl`` 1 and 2), the others
    the main paper's schemes.
    """
    _need(mixing, "mixing", ["scheme", "n", "hl", "trace", "rho"])
    rho = {k: rho_from_frequencies(f, 3) for k, f in FIG4_FREQUENCIES.items()}
    out = []
    hom = rho["homogeneous"]
    for figure, claim, key, direction, note in FIG4_ROWS:
        ok, up = abs(rho[key] - FIG4_RHO[key]) <= EXACT_ABS, direction(rho[key], hom)
        out.append(Claim(PAPER, figure, claim, f"{FIG4_RHO[key]}", f"{rho[key]:.4f}", direction=up, magnitude=ok,
                         tolerance=f"exact (|Δ| ≤ {EXACT_ABS:g})",
                         cause="" if ok and up else "unexplained: Eq. (6) on the paper's frequencies", note=note))

    fig4 = mixing[mixing["n"] == 3]
    if len(fig4) and fig4["hl"].nunique() >= 2:
        med = fig4.groupby(["trace", "hl"])["rho"].median()
        lo_hl, hi_hl = sorted(fig4["hl"].unique())[0], sorted(fig4["hl"].unique())[-1]
        traces = sorted(fig4["trace"].unique())
        raised = [bool(med[(tr, hi_hl)] > med[(tr, lo_hl)]) for tr in traces]
        far = [f"{tr} HL={hl:g} ({med[(tr, hl)]:.3f} vs {FIG4_RHO[key]})" for tr in traces
               for hl, key in ((lo_hl, "homogeneous"), (hi_hl, "heterogeneous"))
               if not within(med[(tr, hl)], FIG4_RHO[key], NEAR_REL)]
        causes = ([] if all(raised) else ["unexplained: a slower worker does not raise the simulated rho"]) + (
            [] if not far else ["stand-in trace: the rho of a simulated FIFO schedule depends on the compute-time "
                                "distribution (synthetic stand-ins, T1); more than 10 % off for "
                                + ", ".join(far) + "; the paper's 1/2, 1/4, 1/4 are the frequencies of one "
                                "illustrated schedule"])
        out.append(Claim(
            PAPER, "Fig. 4", "heterogeneity raises rho (simulated FIFO schedules)", "0.5 → 0.625",
            "; ".join(f"{med[(tr, lo_hl)]:.3f} → {med[(tr, hi_hl)]:.3f} ({tr})" for tr in traces),
            direction=all(raised), magnitude=not far, tolerance=f"{NEAR_RULE}, each trace and HL",
            cause="; ".join(causes),
            note=f"median over trials; N=3, P=2, worker 0 HL={hi_hl:g}x slower; our group frequencies come "
                 "from the simulated arrival order"))

    ar = mixing[(mixing["scheme"] == "allreduce") & (mixing["n"] != 3)]
    pr = mixing[(mixing["scheme"] == "partial") & (mixing["n"] != 3)]
    if len(ar) and len(pr):
        worst = float(ar["rho"].abs().max())
        m_ar, m_pr = ar.groupby("n")["rho"].median(), pr.groupby("n")["rho"].median()
        common = m_ar.index.intersection(m_pr.index)
        faster = bool(len(common) and (m_ar[common] < m_pr[common]).all())
        ok = worst <= EXACT_ABS
        out.append(Claim(
            PAPER, "§3.2", "all reduce (P = N) gives rho = 0", "0", f"max |rho| {worst:.1e} over "
            f"{len(ar)} runs; partial reduce {m_pr.min():.3f}–{m_pr.max():.3f}",
            direction=faster, magnitude=ok, tolerance=f"exact (|rho| ≤ {EXACT_ABS:g} in every run)",
            cause="" if faster and ok else "unexplained: an all-reduce schedule does not average all workers",
            note="simulated all-reduce schedules of the main paper's setting (n = "
                 f"{', '.join(str(int(x)) for x in sorted(ar['n'].unique()))}); direction: all reduce's "
                 "median rho below partial reduce's at every n"))

    ex = EQ9_EXAMPLE
    ws, w0 = dynamic_weights(ex["iterations"], alpha=ex["alpha"], missing="initial")
    ok = bool(np.allclose(list(ws) + [w0], list(ex["weights"]) + [ex["w_init"]], rtol=0, atol=EXACT_ABS))
    lighter = bool(np.all(np.diff(ws) < 0))         # the staler the member, the smaller its weight
    out.append(Claim(
        PAPER, "Eq. 9", "EMA weights, iterations (5,4,2), alpha=0.5, x_1 = initial model",
        "(derived) 8/15, 4/15, 1/15; x_1: 2/15", ", ".join(_frac(w) for w in ws) + f"; x_1: {_frac(w0)}",
        direction=lighter, magnitude=ok, tolerance=f"exact (|Δ| ≤ {EXACT_ABS:g} per weight)",
        cause="" if lighter and ok else "unexplained: dynamic_weights differs from Eq. (9) by hand",
        note="direction: the staler the member, the smaller its weight (§3.3.2)"))
    return out


# ----------------------------------------------------------------------------- notebook 21, §4

def group_filter(rho_plain: float, rho_filtered: float) -> list[Claim]:
    """§4 group-frozen avoidance: a FIFO schedule frozen into two pairs (ρ = 1: the sync graph
    is disconnected) becomes connected (ρ < 1) with the group filter.  ``rho_plain`` and
    ``rho_filtered`` come from ``experiments.frozen_groups.run``."""
    frozen, connected = rho_plain >= 1 - EXACT_ABS, rho_filtered < 1 - EXACT_ABS
    ok = bool(frozen and connected)
    return [Claim(PAPER, "§4", "group filter un-freezes a frozen FIFO schedule", "connected sync graph",
                  f"rho {rho_plain:.3f} → {rho_filtered:.3f}", direction=ok,
                  cause="" if ok else ("unexplained: the plain FIFO schedule is not frozen (rho < 1)" if not frozen
                                       else "unexplained: the filtered schedule stays disconnected (rho = 1)"),
                  note=f"rho = 1 (within {EXACT_ABS:g}) iff the sync graph is disconnected; workers 0, 1 at "
                       "1.0 s and 2, 3 at 1.3 s, P = 2")]


# ----------------------------------------------------------------------------- notebook 21, §5

def with_rules(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` (the ``21_pr_training`` frame) with ``P`` (group size; all reduce: n) and
    ``rule`` ("CON", "DYN (<reading>)", "all reduce") columns."""
    _need(df, "df", ["scheme", "n", "p", "weights", "weights_missing"])
    P = (df["p"].astype(float).fillna(1.0) * df["n"]).round().astype(int)
    dyn = "DYN (" + df["weights_missing"].fillna("").astype(str) + ")"
    rule = np.where(df["scheme"] == "allreduce", "all reduce", np.where(df["weights"] == "dynamic", dyn, "CON"))
    return df.assign(P=P, rule=rule)


def paired(df: pd.DataFrame, metric: str, num: tuple, den: tuple, by: Sequence[str] = ("hl",)) -> pd.DataFrame:
    """Paired per-trial ratio ``metric(num) / metric(den)`` of two arms ``(P, rule)`` of a
    :func:`with_rules` frame, within each ``by`` group, with censoring (:func:`paired_masks`)."""
    return paired_masks(df, metric, (df["P"] == num[0]) & (df["rule"] == num[1]),
                        (df["P"] == den[0]) & (df["rule"] == den[1]), by)


def paired_masks(df: pd.DataFrame, metric: str, num: pd.Series, den: pd.Series,
                 by: Sequence[str] = ("hl",)) -> pd.DataFrame:
    """:func:`paired` with the two arms given as boolean row masks of ``df`` (columns ``by`` and
    ``trial`` identify a pair).

    A missing value (target never reached) is censored (:mod:`simlib.papers.censoring`): a time
    to target at the run's ``duration_s``, updates to target at the run's ``run_updates`` (the
    updates it made in all; each when the frame has the column), any other metric at 0 (nothing
    known).  One row per group: ``median`` (NaN unless the censored pairs leave it determined),
    its bounds ``median_lo`` / ``median_hi``, ``min`` / ``max`` (the lower bound of the minimum, the
    upper bound of the maximum), ``trials`` (pairs), ``num_smaller`` / ``num_larger`` (pairs where num's
    metric is certainly strictly smaller / larger), ``censored`` (pairs with a censored run) and
    ``ci_lo`` / ``ci_hi``: the median's 95 % interval over the pairs (decision S24,
    :func:`simlib.papers.strength.median_interval`; a censored pair enters with its bounds)."""
    by = list(by)
    cols = by + ["median", "median_lo", "median_hi", "min", "max", "trials", "num_smaller", "num_larger", "censored",
                 "ci_lo", "ci_hi"]
    cap = {"time_to_target_s": "duration_s", "updates_to_target": "run_updates"}.get(metric)
    cap = cap if cap in df.columns else None

    def arm(mask):
        a = df[mask].set_index(by + ["trial"])
        t = a[metric].astype(float)
        return pd.DataFrame({"t": t, "c": a[cap].astype(float) if cap else t.fillna(0.0)})

    a, b = arm(num).align(arm(den), join="inner", axis=0)
    if a.empty:
        return pd.DataFrame(columns=cols)
    lo, hi = ratio_bounds(a["t"], a["c"], b["t"], b["c"])
    r = pd.DataFrame({"lo": lo, "hi": hi, "smaller": (hi < 1).astype(int), "larger": (lo > 1).astype(int),
                      "cens": (a["t"].isna() | b["t"].isna()).astype(int).to_numpy()}, index=a.index)
    rows = []
    for key, g in r.groupby(level=by):
        key = key if isinstance(key, tuple) else (key,)
        m_lo, m_hi = bounded_stat(g["lo"], g["hi"])
        ci_lo, ci_hi = median_interval(g["lo"], g["hi"])
        rows.append(dict(zip(by, key), median=m_lo if m_lo == m_hi else np.nan, median_lo=m_lo, median_hi=m_hi,
                         min=float(g["lo"].min()), max=float(g["hi"].max()), trials=len(g),
                         num_smaller=int(g["smaller"].sum()), num_larger=int(g["larger"].sum()),
                         censored=int(g["cens"].sum()), ci_lo=ci_lo, ci_hi=ci_hi))
    return pd.DataFrame(rows, columns=cols)


def row_strength(row) -> Strength:
    """A :func:`paired_masks` row's :class:`~simlib.papers.strength.Strength` against 1 (S24)."""
    return Strength(int(row["trials"]), int(row["num_larger"]), int(row["num_smaller"]), float(row["ci_lo"]),
                    float(row["ci_hi"]))


def decided(values) -> bool | None:
    """All of several decisions (:func:`~simlib.papers.strength.side` / ``in_range`` values): False if any
    is False, else None (undecided) if any is None, else True."""
    values = list(values)
    return False if any(v is False for v in values) else (None if any(v is None for v in values) else True)


def strength_fields(groups: dict, direction: bool | None, magnitude: bool | None = True, label: str = "HL") -> dict:
    """The :class:`~simlib.papers.claim.Claim` strength fields (S24) of a verdict over ``groups``
    (``{group value: Strength}``): ``pairs`` (the fewest), per group its ``sides`` and ``interval``, and
    ``undecided`` naming the verdicts whose decision (``direction`` / ``magnitude``: the decided value,
    None = undecided; pass True for a magnitude that is not judged) is None."""
    return dict(pairs=min(s.trials for s in groups.values()),
                sides="; ".join(f"{label}={k:g}: {s.sides_text()}" for k, s in groups.items()),
                interval="; ".join(f"{label}={k:g}: {s.interval_text()}" for k, s in groups.items())
                + f" ({groups[next(iter(groups))].level:.0%} interval of the median, S24)",
                undecided=tuple(n for n, v in (("direction", direction), ("magnitude", magnitude)) if v is None))


def row_fields(row, claim_side: str, paper_range=None, label: str = "HL") -> dict:
    """:func:`strength_fields` of one :func:`paired_masks` row (group ``row[label.lower()]``): the direction
    decided on ``claim_side`` ("above" / "below" 1), the magnitude against ``paper_range`` (lo, hi; None:
    not judged)."""
    st = row_strength(row)
    mag = True if paper_range is None else in_range(st, *paper_range)
    return strength_fields({row[label.lower()]: st}, side(st, claim_side), mag, label)


def ratio_text(row) -> str:
    """A :func:`paired_masks` row's median as text: ``"1.23×"``, a bound (``"≥ 1.80×"``) or ``"n/a"``."""
    return fmt_bound(row["median_lo"], row["median_hi"])


def bounded_within(row, paper_lo: float, paper_hi: float) -> bool:
    """Magnitude of a :func:`paired_masks` median against the paper's range ``[paper_lo, paper_hi]``:
    the closed-range test when the median is a number; False otherwise (its bounds lie outside the
    range, or censored runs leave it undetermined: not shown to be within)."""
    lo, hi = row["median_lo"], row["median_hi"]
    return bool(lo == hi and ratio_within(lo, hi, paper_lo, paper_hi))


_CENSORED = ("a run that never reaches the target is censored at its run length (a time) or unknown (a count); "
             "a median such runs can move is a bound or n/a, and a statement it leaves open does not hold")


def _censored_pairs(censored: int, pairs: int) -> str:
    """``"; 1 of 40 pairs censored"`` for a value that bounds stand in for, ``""`` when no pair was censored."""
    return f"; {censored} of {pairs} pairs censored" if censored else ""


def _censored(row) -> str:
    """The cause of a statement that censored runs leave undetermined."""
    return (f"setting: runs that never reached the target within the run length leave the median paired ratio "
            f"at {ratio_text(row)} ({int(row['censored'])} of {int(row['trials'])} pairs censored)")


def _one(pr: pd.DataFrame, hl) -> pd.Series | None:
    row = pr[pr["hl"] == hl]
    return None if row.empty else row.iloc[0]


def sec5(df: pd.DataFrame, setting: str = DEFAULT_SETTING) -> list[Claim]:
    """Fig. 8 (HL = 1, constant weights, over P) and Table 1 (each HL, the Table-1 group sizes:
    the P values with dynamic-weight runs) from the ``21_pr_training`` frame, judged at ledger
    setting ``setting`` (S19: ``"default"``, or ``"profile"`` for the runs at 002's paper profile,
    PR16, PR19; the causes name the cluster the frame's columns describe).

    Needs columns ``scheme``, ``hl``, ``p``, ``n``, ``weights``, ``weights_missing``,
    ``trial``, ``time_to_target_s``, ``updates_to_target``, ``time_per_update_s``,
    ``final_acc``.  Rows for settings the frame lacks (e.g. P = 3 in a small run) are left out.
    """
    return at_setting(_sec5(df), setting)


def _sec5(df: pd.DataFrame) -> list[Claim]:
    _need(df, "df", ["scheme", "hl", "p", "n", "weights", "weights_missing", "trial", "time_to_target_s",
                     "updates_to_target", "time_per_update_s", "final_acc"])
    d = with_rules(df)
    out = _fig8(d)
    t1 = _Table1Runs.of(d)
    if t1 is None:
        return out
    return out + [c for claims in _TABLE1_CLAIMS for c in claims(d, t1)]


# ---- Fig. 8: HL = 1, constant weights, over P
def falls(r: float) -> bool:
    """Fig. 8's "performs conversely": Spearman's r_s over P below -:data:`SPEARMAN_MIN` (strictly)."""
    return bool(r < -SPEARMAN_MIN)


def rises(r: float) -> bool:
    """Fig. 8's "positively correlated with P": r_s above :data:`SPEARMAN_MIN` (strictly)."""
    return bool(r > SPEARMAN_MIN)


#: Fig. 8's two trends over P, one row each: (claim, paper value, metric, how one median prints, the
#: predicate on Spearman's r_s, the cause when it fails, the note); ``{r}`` is r_s, ``{Ps}`` the P values,
#: ``{lim}`` :data:`SPEARMAN_MIN`.
FIG8_TRENDS = (
    ("#updates to target falls as P grows", "decreasing", "updates_to_target", "{:.0f}", falls,
     _LEARNING + "Spearman {r:.2f} over P",
     "Spearman {r:.2f} over P={Ps}; holds if < -{lim:g}; HL=1, constant weights, median over trials"),
    ("per-update time rises with P", "increasing", "time_per_update_s", "{:.2f}s", rises,
     "unexplained: Spearman {r:.2f} over P", "Spearman {r:.2f}; holds if > {lim:g}"),
)


def _fig8(d: pd.DataFrame) -> list[Claim]:
    """Fig. 8's rows (:data:`FIG8_TRENDS`, then the best P) from the HL = 1, constant-weight partial-reduce
    runs of a :func:`with_rules` frame, medians over trials per P; none with fewer than two P values."""
    f8 = d[(d["scheme"] == "partial") & (d["hl"] == 1) & (d["rule"] == "CON")]
    if f8["P"].nunique() < 2:
        return []
    med = f8.groupby("P")[["updates_to_target", "time_per_update_s", "time_to_target_s"]].median()
    Ps = list(med.index)
    out = []
    for claim, paper, metric, value, holds, cause, note in FIG8_TRENDS:
        r = trend(Ps, med[metric])
        ok = holds(r)
        out.append(Claim(PAPER, "Fig. 8", claim, paper, " → ".join(value.format(x) for x in med[metric]),
                         direction=ok, cause="" if ok else cause.format(r=r), note=note.format(r=r, Ps=Ps, lim=SPEARMAN_MIN)))
    tt = med["time_to_target_s"].fillna(np.inf)
    best = int(tt.idxmin())
    interior = len(tt) >= 3 and interior_extremum(tt.to_numpy(), "min")
    mag = best in FIG8_BEST_P
    out.append(Claim(
        PAPER, "Fig. 8", "total run time is smallest at an intermediate P (paper: P = 3 and 5)",
        "minimum at P = 3 and 5", f"minimum at P = {best}: " + ", ".join(
            f"P={P}: {x:.1f}s" for P, x in tt.items()),
        direction=bool(interior), magnitude=mag,
        tolerance=f"exact: the P with the smallest median time is one of {list(FIG8_BEST_P)}",
        cause="" if interior and mag else _LEARNING + (
            f"here #updates fall {med['updates_to_target'].iloc[0] / med['updates_to_target'].iloc[-1]:.1f}× "
            f"from P={Ps[0]} to {Ps[-1]} while the per-update time rises "
            f"{med['time_per_update_s'].iloc[-1] / med['time_per_update_s'].iloc[0]:.1f}×"),
        note="median time to target over trials, HL=1, constant weights; direction: the smallest median "
             "lies strictly inside the P range; the paper adds that the best P varies by workload"))
    return out


# ---- Table 1: paired comparisons per HL and group size P
@dataclass(frozen=True)
class _Table1Runs:
    """What a :func:`with_rules` frame has of Table 1: n, the group sizes with dynamic-weight runs
    (``table_p``), the HL values, the most heterogeneous one (``het``) and the readings of x_1 run."""

    n: int
    table_p: list
    hls: list
    het: float
    readings: list

    @classmethod
    def of(cls, d: pd.DataFrame) -> "_Table1Runs | None":
        """None when the frame has no dynamic-weight or no all-reduce runs (nothing of Table 1 to judge)."""
        table_p = sorted(int(P) for P in d.loc[d["rule"].str.startswith("DYN"), "P"].unique())
        hls = sorted(d["hl"].dropna().unique())
        if not table_p or "all reduce" not in set(d["rule"]):
            return None
        return cls(int(d["n"].iloc[0]), table_p, hls, hls[-1],
                   sorted(r[5:-1] for r in d["rule"].unique() if r.startswith("DYN")))


def _dyn_fewer_updates(d: pd.DataFrame, t1: _Table1Runs) -> list[Claim]:
    """Per P and reading of x_1, at the most heterogeneous HL: dynamic weights need fewer updates than
    constant ones (the median paired DYN/CON certainly < 1), within Table 1's range at P = 3 and 5."""
    out = []
    het = t1.het
    th = d[d["hl"] == het]
    for P in t1.table_p:
        paper = table1_range(lambda c, P=P: c[f"DYN{P}"][1] / c[f"CON{P}"][1], het > 1) if P in (3, 5) else None
        for reading in t1.readings:
            row = _one(paired(th, "updates_to_target", (P, f"DYN ({reading})"), (P, "CON")), het)
            if row is None:
                continue
            con = th[(th.P == P) & (th.rule == "CON")]["updates_to_target"].median()
            dyn = th[(th.P == P) & (th.rule == f"DYN ({reading})")]["updates_to_target"].median()
            ok = bool(row["median_hi"] < 1)
            mag = None if paper is None else bounded_within(row, *paper)
            causes = []
            if not ok or mag is False:
                if reading == "initial":
                    acc = th[(th.P == P)].groupby("rule")["final_acc"].median()
                    causes.append("paper ambiguity: PR13, the literal reading gives the missing versions' weight "
                                  "to the training initialization, which pulls every synced model back (median "
                                  f"final accuracy {acc[f'DYN ({reading})']:.3f} vs {acc['CON']:.3f} with constant "
                                  "weights)")
                elif row["censored"]:
                    causes.append(_censored(row))
                else:
                    causes.append(_LEARNING + f"DYN/CON per trial {row['min']:.2f}–{row['max']:.2f}")
            out.append(Claim(
                PAPER, "Table 1", f"HL={het:g}, P={P}: dynamic weights need fewer updates than constant ({reading})",
                "DYN < CON" + ("" if paper is None else f" (DYN/CON {fmt_span(*paper)})"),
                f"median paired DYN/CON {fmt_bound(row['median_lo'], row['median_hi'], digits=3)} (DYN certainly "
                f"fewer in {int(row['num_smaller'])} of {int(row['trials'])} trials"
                f"{_censored_pairs(int(row['censored']), int(row['trials']))}); medians DYN {dyn:.0f} vs CON "
                f"{con:.0f}",
                direction=ok, magnitude=mag, tolerance="" if paper is None else RANGE_RULE, cause="; ".join(causes),
                **row_fields(row, "below", paper),
                note=f"#updates to target, paired per trial; direction: median ratio certainly < 1; "
                     f"'{DEFAULT_READING}' is our default reading of x_1 (PR13); " + _CENSORED + "; "
                     + _TABLE1_NOTE))
    return out


def _pr_beats_ar(d: pd.DataFrame, t1: _Table1Runs) -> list[Claim]:
    """Per HL and P: partial reduce (constant weights) reaches the target before all reduce (the median
    paired AR/PR time certainly > 1), within Table 1's range at P = 3 and 5."""
    out = []
    n = t1.n
    for hl in t1.hls:
        th = d[d["hl"] == hl]
        for P in t1.table_p:
            row = _one(paired(th, "time_to_target_s", (n, "all reduce"), (P, "CON")), hl)
            if row is None:
                continue
            paper = table1_range(lambda c, P=P: c["AR"][0] / c[f"CON{P}"][0], hl > 1) if P in (3, 5) else None
            ok = bool(row["median_lo"] > 1)
            mag = None if paper is None else bounded_within(row, *paper)
            cause = ""
            if (not ok or mag is False) and row["censored"]:
                cause = _censored(row)
            elif not ok or mag is False:
                upd = _one(paired(th, "updates_to_target", (P, "CON"), (n, "all reduce")), hl)
                put = _one(paired(th, "time_per_update_s", (n, "all reduce"), (P, "CON")), hl)
                cause = (_cluster(d) + f"here P={P} needs {ratio_text(upd)} the updates of all reduce and one "
                         f"update is {ratio_text(put)} faster" + (
                             "" if P not in (3, 5) else
                             " (Table 1: "
                             f"{fmt_span(*table1_range(lambda c, P=P: c[f'CON{P}'][1] / c['AR'][1], hl > 1))}"
                             " the updates, "
                             f"{fmt_span(*table1_range(lambda c, P=P: c['AR'][2] / c[f'CON{P}'][2], hl > 1))}"
                             " faster)"))
            out.append(Claim(
                PAPER, "Table 1", f"HL={hl:g}: partial reduce (P={P}) beats all reduce in run time",
                "PR faster ('always outperforms', §5.2.2)" + ("" if paper is None else f"; AR/PR {fmt_span(*paper)}"),
                f"median paired AR/PR time {ratio_text(row)} (PR certainly faster in "
                f"{int(row['num_larger'])} of {int(row['trials'])} trials)",
                direction=ok, magnitude=mag, tolerance="" if paper is None else RANGE_RULE, cause=cause,
                **row_fields(row, "above", paper),
                note="time to target accuracy, constant weights, paired per trial; direction: median AR/PR "
                     "ratio certainly > 1; " + _CENSORED + "; " + _TABLE1_NOTE))
    return out


def _dyn_beats_ar(d: pd.DataFrame, t1: _Table1Runs) -> list[Claim]:
    """§5.2.2's "DYN (P = 3) is at most 1.48–2.01× faster than all reduce" (:data:`TABLE1_DYN_VS_AR`), at the
    most heterogeneous HL > 1 with our default reading of x_1."""
    P3, lo, hi = TABLE1_DYN_VS_AR
    het = t1.het
    th = d[d["hl"] == het]
    row = _one(paired(th, "time_to_target_s", (t1.n, "all reduce"), (P3, f"DYN ({DEFAULT_READING})")), het) \
        if het > 1 and P3 in t1.table_p else None
    if row is None:
        return []
    ok_d, ok_m = bool(row["median_lo"] > 1), bounded_within(row, lo, hi)
    return [Claim(
        PAPER, "Table 1", f"HL={het:g}: DYN (P={P3}) is 1.48–2.01× faster than all reduce",
        f"up to {lo:.2f}–{hi:.2f}×", f"{ratio_text(row)} (median paired AR/DYN time)",
        direction=ok_d, magnitude=ok_m, tolerance=RANGE_RULE, **row_fields(row, "above", (lo, hi)),
        cause="" if ok_d and ok_m else (
            _censored(row) if row["censored"] else _cluster(d) + "run time to a target accuracy depends on both"),
        note=f"time to target, dynamic weights ({DEFAULT_READING}, PR13), paired per trial; the paper's "
             "range is over three CNNs, HL = 2 or 3 (§5.2.2)")]


def _per_update_speedup(d: pd.DataFrame, t1: _Table1Runs) -> list[Claim]:
    """§5.2.2's "the per-update time is 4× faster than all reduce" (:data:`PER_UPDATE_SPEEDUP`), at every HL."""
    P4, factor = PER_UPDATE_SPEEDUP
    if P4 not in t1.table_p:
        return []
    rows = {hl: _one(paired(d[d["hl"] == hl], "time_per_update_s", (t1.n, "all reduce"), (P4, "CON")), hl)
            for hl in t1.hls}
    rows = {hl: r for hl, r in rows.items() if r is not None}
    if not rows:
        return []
    ok_d = all(r["median_lo"] > 1 for r in rows.values())
    ok_m = all(within(r["median"], factor, NEAR_REL) for r in rows.values())   # NaN (censored): never
    ranges = "; ".join(f"HL {'> 1' if h else '= 1'}: "
                       f"{fmt_span(*table1_range(lambda c: c['AR'][2] / c[f'CON{P4}'][2], h))}"
                       for h in (False, True))
    return [Claim(
        PAPER, "Table 1", f"per-update time of partial reduce (P={P4}) is {factor:g}× shorter than all "
                          "reduce's", f"{factor:g}× (§5.2.2)",
        "; ".join(f"HL={hl:g}: {ratio_text(r)}" for hl, r in rows.items()),
        direction=ok_d, magnitude=ok_m, tolerance=f"{NEAR_RULE}, at every HL",
        **strength_fields({hl: row_strength(r) for hl, r in rows.items()},
                          decided(side(row_strength(r), "above") for r in rows.values()),
                          decided(in_range(row_strength(r), factor * (1 - NEAR_REL), factor * (1 + NEAR_REL))
                                  for r in rows.values())),
        cause="" if ok_d and ok_m else _cluster(d) + "one update's time is set by the cluster",
        note=f"median paired AR/PR time per update, constant weights; Table 1's ratios: {ranges}")]


def _more_updates(d: pd.DataFrame, t1: _Table1Runs) -> list[Claim]:
    """§5.2.2's "partial reduce needs more updates than all reduce", at every HL, P and weighting rule."""
    worse = []
    for hl in t1.hls:
        th = d[d["hl"] == hl]
        for rule in sorted(r for r in th["rule"].unique() if r != "all reduce"):
            for P in sorted(th.loc[th["rule"] == rule, "P"].unique()):
                if P not in t1.table_p:
                    continue
                row = _one(paired(th, "updates_to_target", (P, rule), (t1.n, "all reduce")), hl)
                if row is not None:
                    worse.append((hl, P, rule, row))
    if not worse:
        return []
    ok = all(r["median_lo"] > 1 for *_, r in worse)
    lo_, hi_ = ([r[c] for *_, r in worse] for c in ("median_lo", "median_hi"))
    span = (f"{min(lo_):.2f}–{max(lo_):.2f}×" if lo_ == hi_ else
            f"{fmt_bound(min(lo_), min(hi_))} to {fmt_bound(max(lo_), max(hi_))}")
    return [Claim(
        PAPER, "Table 1", "partial reduce needs more updates than all reduce", "more updates (§5.2.2)",
        f"median paired PR/AR {span} over {len(worse)} (HL, P, rule)"
        + _censored_pairs(sum(int(r["censored"]) for *_, r in worse), sum(int(r["trials"]) for *_, r in worse)),
        direction=ok,
        cause="" if ok else _LEARNING + "not (certainly) more updates at " + ", ".join(
            f"HL={hl:g} P={P} {rule} ({ratio_text(r)})" for hl, P, rule, r in worse if not r["median_lo"] > 1),
        note="#updates to target, paired per trial, holds if every median ratio is certainly > 1; "
             + _CENSORED)]


#: Table 1's statements in ledger order, each a named builder ``(frame, runs) -> claims``.
_TABLE1_CLAIMS = (_dyn_fewer_updates, _pr_beats_ar, _dyn_beats_ar, _per_update_speedup, _more_updates)


def sec5_open_settings(settings: Sequence[dict], undecided: Sequence[Claim], n: int) -> set[int]:
    """The indices of ``settings`` (notebook 21's runs: dicts with ``scheme``, ``hl`` and ``p`` as a share of
    ``n`` workers) that an undecided :func:`sec5` verdict of ``undecided`` reads, for S25's batches: at the
    HL the claim names ("HL=3"), the partial-reduce runs at the group size it names ("P=3", every weighting
    rule) and, when the claim compares with all reduce, all reduce's runs.  A claim naming no HL reads none."""
    out = set()
    for c in undecided:
        hl, group = re.search(r"HL=(\d+)", c.claim), re.search(r"P=(\d+)", c.claim)
        if hl is None:
            continue
        for i, s in enumerate(settings):
            if s["hl"] != int(hl.group(1)):
                continue
            if ((s["scheme"] == "allreduce" and "all reduce" in c.claim)
                    or (s["scheme"] == "partial" and group is not None and round(s["p"] * n) == int(group.group(1)))):
                out.add(i)
    return out
