"""Seed 004's BSP claims (§II-C Fig. 1, §IV-B Figs. 4-6) as :class:`~simlib.papers.claim.Claim` records.

Notebook 40 calls :func:`fig1_claims`; notebook 41 calls :func:`bsp_claims` and
shows :func:`reading_table`.  The inputs are the sweeps' frames as the trial
functions of :mod:`simlib.papers.selmcast.experiments` return them (one wide row
per setting x trial, ``<scheme>_<metric>`` columns), i.e. as saved in
``data/results/40_selmcast_fig1.csv`` and ``41_selmcast_*.csv``.

Rules, fixed before looking at our values and the same for every BSP claim:

* a number the paper gives ("about 1.67", "about 1.3×", "about 33 %") is met
  when our mean over trials is within 10 % of it (:data:`REL_TOL`); where the
  paper quotes one number for a whole figure (Figs. 4f, 6), the smallest and
  the largest of our per-n ratios must both be;
* numbers the paper derives from Eq. (1) (Fig. 1) must agree at its printed
  precision (two decimals; integer endpoints exactly);
* "overlap" (SelMcast vs Optimal): means within 2 % at every setting;
  "consistent" over p/n: SelMcast's mean varies by less than 0.05; "exactly p":
  every scheme's mean receivers within 1 % of p; "tens of ms": below 100 ms.

Readings (decisions SM14 and SM1).  A frame may hold several readings of the
bandwidth variation (column ``lam``) and of the ideal time that normalizes the
completion time (column ``normalization``: "own" or "L3"; a frame without the
column is the "own" reading).  Claims are judged under the ``stated`` reading
only; every other reading present in the frames gives an *observation* of the
same number, saying whether it reproduces the paper's value, and when the
stated reading misses a number the claim's cause names the readings that do
reproduce it.  No reading is ever adopted in place of the stated one.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np
import pandas as pd

from simlib.core.validate import check_choice, check_int, check_real
from simlib.papers.claim import Claim, observation, within
from simlib.papers.selmcast.experiments import NORMALIZATIONS, pr_balanced
from simlib.papers.paired_strength import decided, fields_on_means, group_ratios, groups_strength, wide_values
from simlib.papers.strength import in_range, side

__all__ = ["paper_marks", "PAPER", "REL_TOL", "OVERLAP_REL", "FLAT_SPREAD", "EXACT_P_REL", "FAST_MS", "Reading",
           "fig1_claims", "reference_n", "bsp_claims", "reading_table"]

PAPER = "004"
#: A number the paper gives is met when our mean is within this relative distance of it.
REL_TOL = 0.10
_TOL = "within 10 %"
#: "SelMcast and Optimal overlap": relative gap of the means at every setting.
OVERLAP_REL = 0.02
#: "consistent" normalized completion time over p/n: max - min of SelMcast's means.
FLAT_SPREAD = 0.05
#: A normalized CT within this of 1 counts as at the ideal time (SM1) in the flat-in-p/n row's reading.
IDEAL_TOL = 1e-3
#: "exactly p receivers": relative deviation of every scheme's mean receivers from p.
EXACT_P_REL = 0.01
#: "within tens of milliseconds".
FAST_MS = 100.0


class Reading(NamedTuple):
    """One reading of §IV-A2: the bandwidth variation λ (SM14) and the ideal time (SM1)."""

    lam: float
    normalization: str = "own"

    def label(self, with_normalization: bool = True) -> str:
        """'λ = 0.25, L3 t*' (or 'λ = 0.25' when the normalization does not matter)."""
        text = f"λ = {self.lam:g}"
        if with_normalization:
            text += ", " + ("own layer's t*" if self.normalization == "own" else "L3 t*")
        return text


def _check_reading(stated) -> Reading:
    lam, normalization = stated
    return Reading(check_real("stated.lam", lam, 0.0, 1.0, hi_open=True),
                   check_choice("stated.normalization", normalization, NORMALIZATIONS))


# --------------------------------------------------------------------------- Fig. 1 (§II-C)
def fig1_claims(df: pd.DataFrame, n: int) -> list[Claim]:
    """§II-C, Fig. 1: Pr(m = p) of Eq. (1) and simulated random selection (notebook 40).

    ``df``: the ``random_selection_trial`` frame (columns ``p``, ``pr_empirical``);
    ``n``: its number of workers.  At the paper's n = 200 the paper's numbers
    are claims; at any other n the same quantities are observations.
    """
    n = check_int("n", n, 3)
    p_all = np.arange(1, n)
    pr = pr_balanced(n, p_all)
    below = p_all[pr < 0.1]
    lo, hi = (int(below.min()), int(below.max())) if below.size else (0, 0)
    contiguous = bool(below.size and below.size == hi - lo + 1)
    interval = f"[{lo}, {hi}]" + ("" if contiguous or not below.size else " (not contiguous)")
    mean_emp = df.groupby("p")["pr_empirical"].mean()
    gap = float(np.abs(mean_emp.to_numpy() - pr_balanced(n, mean_emp.index.to_numpy())).max())
    i_min = int(pr.argmin())
    shape = (f"min {pr[i_min]:.4f} at p = {int(p_all[i_min])}; Pr = {pr[0]:.4f} at p = 1 and "
             f"{pr[-1]:.4f} at p = {n - 1}")
    sim = f"Eq. (1); simulated random selection within {gap:.3f} of Eq. (1) at every simulated p"
    if n != 200:
        return [observation(PAPER, "Fig. 1", f"Pr(m = p) at p = 1, n = {n}", f"{pr[0]:.4f}", note=sim),
                observation(PAPER, "Fig. 1", f"p with Pr(m = p) < 0.1, n = {n}",
                            interval if below.size else f"none (the smallest Pr(m = p) is {pr.min():.4f})",
                            note="Eq. (1)"),
                observation(PAPER, "Fig. 1", f"shape of Pr(m = p) over p, n = {n}", shape, note="Eq. (1)")]
    small = bool(pr[0] < 0.5)
    near = within(float(pr[0]), 0.37, 0.005 / 0.37)
    exact = contiguous and (lo, hi) == (18, 181)
    dip = bool(0 < i_min < pr.size - 1)
    return [
        Claim(PAPER, "Fig. 1", "Pr(m = p) at p = 1, n = 200, is small (below 0.5)", "≈ 0.37", f"{pr[0]:.4f}",
              direction=small, magnitude=near, tolerance="±0.005 (the paper's two decimals)",
              cause="" if small and near else "unexplained: Eq. (1) evaluated as printed", note=sim),
        Claim(PAPER, "Fig. 1", "Pr(m = p) < 0.1 for p in [18, 181], n = 200", "[18, 181]", interval,
              direction=contiguous, magnitude=exact, tolerance="exact (integer endpoints)",
              cause="" if contiguous and exact else "unexplained: Eq. (1) evaluated as printed",
              note="direction: the p with Pr(m = p) < 0.1 form one interval; Eq. (1)"),
        Claim(PAPER, "Fig. 1", "Pr(m = p) first decreases, then increases with p (interior minimum), n = 200",
              "decreases drastically, then increases slowly", shape, direction=dip,
              cause="" if dip else "unexplained: Eq. (1) evaluated as printed",
              note="Eq. (1) is symmetric in p <-> n - 1 - p, so the rise after p = 181 is as steep as the drop "
                   "before p = 18; 'drastically, then slowly' holds for the drop vs the middle of the range"),
    ]


# --------------------------------------------------------------------------- helpers on the BSP frames
def _prepared(df: pd.DataFrame | None) -> pd.DataFrame:
    """The frame with a ``normalization`` column ("own" where the sweep predates it)."""
    if df is None:
        return pd.DataFrame(columns=["lam", "normalization"])
    if "normalization" not in df.columns:
        return df.assign(normalization="own")
    return df.assign(normalization=df["normalization"].fillna("own"))


def _of_reading(rows: pd.DataFrame, reading: Reading, by_normalization: bool, prefer: str) -> pd.DataFrame:
    """Rows of ``reading``.  When the number does not depend on the normalization, the rows of
    its λ under one normalization only (``prefer`` if present), so that no trial counts twice."""
    rows = rows[np.isclose(rows["lam"].astype(float), reading.lam, rtol=0, atol=1e-12)]
    if by_normalization:
        return rows[rows["normalization"] == reading.normalization]
    present = set(rows["normalization"])
    return rows[rows["normalization"] == (prefer if prefer in present else min(present, default=prefer))]


def _readings_in(rows: pd.DataFrame, by_normalization: bool) -> list[Reading]:
    pairs = {(float(lam), str(norm)) for lam, norm in zip(rows["lam"], rows["normalization"])}
    if not by_normalization:
        pairs = {(lam, "own") for lam, _ in pairs}
    return sorted(Reading(lam, norm) for lam, norm in pairs)


def _mean(rows: pd.DataFrame, column: str) -> float:
    return float(rows[column].mean()) if column in rows.columns and len(rows) else float("nan")


def _per(rows: pd.DataFrame, by: str, column: str) -> pd.Series:
    if column not in rows.columns or rows.empty:
        return pd.Series(dtype=float)
    return rows.groupby(by)[column].mean()


def _is_mu_one(rows: pd.DataFrame) -> pd.Series:
    return rows["mu"].astype(str).isin(["1", "1.0"])


@dataclass(frozen=True)
class _Number:
    """A number the paper quotes: where it is measured and how a reading scores against it."""

    figure: str
    claim: str
    paper_value: str
    targets: tuple[float, ...]
    tolerance: str
    by_normalization: bool                  # does the number depend on the normalization reading?
    frame: str                              # "fig4", "fig5" or "fig6"
    rows: Callable[[pd.DataFrame], pd.DataFrame]
    value: Callable[[pd.DataFrame], tuple[tuple[float, ...], str] | None]
    direction: Callable[[pd.DataFrame], tuple[bool, str] | None]
    #: the paired comparison behind the direction (S24, SM73): rows -> ({group: per-trial ratios},
    #: claimed side of 1); a magnitude on the same ratios is judged against ``targets`` ± REL_TOL
    paired: Callable[[pd.DataFrame], tuple[dict, str]] | None = None
    ratio_magnitude: bool = False

    def met(self, values: tuple[float, ...]) -> bool:
        return all(within(v, t, REL_TOL) for v, t in zip(values, self.targets))


def _ct_pair(n_ref: int):
    def value(rows):
        if rows.empty:
            return None
        o, s = _mean(rows, "orpheus_ct_norm"), _mean(rows, "selmcast_ct_norm")
        return (o, s), f"{o:.2f} -> {s:.2f} (n = {n_ref})"

    def direction(rows):
        o, s = _mean(rows, "orpheus_ct_norm"), _mean(rows, "selmcast_ct_norm")
        return bool(s < o), f"SelMcast {s:.2f} {'<' if s < o else '>='} Orpheus {o:.2f}"
    return value, direction


def _orpheus_end(rows):
    if rows.empty or "orpheus_ct_norm" not in rows.columns:
        return None
    end = rows["p_frac"].max()
    o = _mean(rows[rows["p_frac"] == end], "orpheus_ct_norm")
    return (o,), f"{o:.2f} at p/n = {end:.2f}"


def _orpheus_drops(rows):
    per = _per(rows, "p_frac", "orpheus_ct_norm")
    if len(per) < 2:
        return None
    first, last = float(per.iloc[0]), float(per.iloc[-1])
    return bool(last < first), (f"Orpheus {first:.2f} at p/n = {per.index[0]:.2f} -> {last:.2f} at "
                                f"p/n = {per.index[-1]:.2f}")


def _ratio_over_n(num: str, den: str, percent: bool):
    def ratios(rows):
        return (_per(rows, "n", num) / _per(rows, "n", den)).dropna()

    def value(rows):
        r = ratios(rows)
        if r.empty:
            return None
        lo, hi = float(r.min()), float(r.max())
        text = f"+{lo - 1:.0%} to +{hi - 1:.0%} over n" if percent else f"{lo:.2f}–{hi:.2f}× over n"
        return (lo, hi), text

    def direction(rows):
        r = ratios(rows)
        return bool((r > 1).all()), f"ratio > 1 at {int((r > 1).sum())} of {len(r)} n"
    return value, direction


def _per_n(num: str, den: str, claim_side: str = "above"):
    """The paired per-trial ratios ``num / den`` (columns of one row: one trial) per n, and the side
    of 1 the paper claims (S24, SM73)."""
    def pairs(rows):
        return wide_values(rows, num, den, by=["n"]) if len(rows) and {num, den} <= set(rows.columns) else {}, claim_side
    return pairs


def _strength(num: "_Number", rows: pd.DataFrame, holds_dir: bool, met: bool) -> dict:
    """The Claim strength fields of a number's paired comparison (empty when it has none)."""
    if num.paired is None:
        return {}
    values, claim_side = num.paired(rows)
    groups = {f"n={k}": g for k, g in groups_strength(values).items()}
    if not groups:
        return {}
    band = (num.targets[0] * (1 - REL_TOL), num.targets[0] * (1 + REL_TOL))
    mag = {k: in_range(g, *band) for k, g in groups.items()} if num.ratio_magnitude else None
    return fields_on_means(groups, {k: side(g, claim_side) for k, g in groups.items()}, holds_dir,
                           None if mag is None else decided(mag.values()), met if num.ratio_magnitude else None)


def _numbers(n_ref: int) -> tuple[_Number, ...]:
    ct_value, ct_direction = _ct_pair(n_ref)
    ct_paired = _per_n("selmcast_ct_norm", "orpheus_ct_norm", "below")
    at_ref = {layer: (lambda d, layer=layer: d[(d["layer"] == layer) & (d["n"] == n_ref) & _is_mu_one(d)])
              for layer in ("L3", "L7")}
    of_layer = {layer: (lambda d, layer=layer: d[d["layer"] == layer]) for layer in ("L3", "L7")}
    scale_value, scale_direction = _ratio_over_n("selmcast_scale", "orpheus_scale", percent=False)
    recv_value, recv_direction = _ratio_over_n("selmcast_receivers", "orpheus_receivers", percent=True)
    pair_tol = f"{_TOL}, each of the two values"
    range_tol = f"{_TOL}, the smallest and the largest ratio over n"
    return (
        _Number("Fig. 4c", "normalized CT at n = 100, L3: Orpheus -> SelMcast", "1.67 -> 1.02", (1.67, 1.02),
                pair_tol, False, "fig4", at_ref["L3"], ct_value, ct_direction, ct_paired),
        _Number("Fig. 4d", "normalized CT at n = 100, L7: Orpheus -> SelMcast", "1.67 -> 1.32", (1.67, 1.32),
                pair_tol, True, "fig4", at_ref["L7"], ct_value, ct_direction, ct_paired),
        _Number("Fig. 5 L3", "as p grows Orpheus -> about 1.5 (L3)", "≈ 1.5", (1.5,), _TOL, False, "fig5",
                of_layer["L3"], _orpheus_end, _orpheus_drops),
        _Number("Fig. 5 L7", "as p grows Orpheus -> about 1.5 (L7)", "≈ 1.5", (1.5,), _TOL, True, "fig5",
                of_layer["L7"], _orpheus_end, _orpheus_drops),
        _Number("Fig. 4f", "L7: SelMcast selects more receivers than Orpheus", "≈ 1.3×", (1.3, 1.3), range_tol,
                False, "fig4", lambda d: d[(d["layer"] == "L7") & _is_mu_one(d)], scale_value, scale_direction,
                _per_n("selmcast_scale", "orpheus_scale"), True),
        _Number("Fig. 6", "L3, μ = 1/p: SelMcast selects more receivers than Orpheus", "≈ +33 %", (1.33, 1.33),
                range_tol, False, "fig6", lambda d: d[d["layer"] == "L3"], recv_value, recv_direction,
                _per_n("selmcast_receivers", "orpheus_receivers"), True),
    )


def paper_marks(n_ref: int = 100) -> list[tuple[str, str, str, str, float | None, float]]:
    """The levels §IV-B states, as ``(figure, layer, metric, scheme, x, y)`` read from the numbers the
    claims judge (issue 43 item 4: figure and ledger read one place): Fig. 4's normalized completion
    times at ``x = n_ref`` (Orpheus and SelMcast, L3 and L7) and Fig. 5's Orpheus "about 1.5" at the
    largest p/n (``x`` None).  Figs. 4f and 6 state ratios (≈ 1.3×, ≈ +33 %), not levels: no mark."""
    out = []
    for num in _numbers(check_int("n_ref", n_ref, 3)):
        layer = "L3" if num.figure in ("Fig. 4c", "Fig. 5 L3") else "L7"
        if num.figure in ("Fig. 4c", "Fig. 4d"):
            out += [("Fig. 4", layer, "ct_norm", scheme, float(n_ref), y)
                    for scheme, y in zip(("orpheus", "selmcast"), num.targets)]
        elif num.figure.startswith("Fig. 5"):
            out.append(("Fig. 5", layer, "ct_norm", "orpheus", None, num.targets[0]))
    return out


def _decisions(reading: Reading, stated: Reading) -> str:
    ids = [i for i, differs in (("SM14", reading.lam != stated.lam),
                                ("SM1", reading.normalization != stated.normalization)) if differs]
    return " and ".join(ids)


def _evaluate(frames: dict[str, pd.DataFrame], stated: Reading, n_ref: int):
    """Per paper number: ``(number, the stated reading's rows, its key, [(reading, values, text, met)])``
    with one entry per reading present (a number that does not depend on the normalization is
    keyed by its λ alone, normalization "own")."""
    out = []
    for num in _numbers(n_ref):
        rows = num.rows(frames[num.frame])
        results = []
        for reading in _readings_in(rows, num.by_normalization):
            got = num.value(_of_reading(rows, reading, num.by_normalization, stated.normalization))
            if got is not None:
                results.append((reading, got[0], got[1], num.met(got[0])))
        key = stated if num.by_normalization else Reading(stated.lam, "own")
        out.append((num, _of_reading(rows, key, num.by_normalization, stated.normalization), key, results))
    return out


# --------------------------------------------------------------------------- Figs. 4-6 (§IV-B)
def reference_n(n_values) -> int:
    """The n at which Fig. 4's completion times are compared: the paper's 100 when it was run,
    else the middle of ``n_values``."""
    n_values = sorted(check_int("n_values[i]", n, 3) for n in n_values)
    if not n_values:
        raise ValueError("n_values must hold at least one n, got []")
    return 100 if 100 in n_values else n_values[len(n_values) // 2]


def _frames(fig4, fig5, fig6, readings) -> dict[str, pd.DataFrame]:
    readings = readings or {}
    unknown = set(readings) - {"fig4", "fig5", "fig6"}
    if unknown:
        raise ValueError(f"readings keys must be among ['fig4', 'fig5', 'fig6'], got {sorted(unknown)}")
    out = {}
    for key, df in (("fig4", fig4), ("fig5", fig5), ("fig6", fig6)):
        extra = readings.get(key)
        out[key] = _prepared(df if extra is None or extra.empty else pd.concat([df, extra], ignore_index=True))
    return out


def bsp_claims(fig4: pd.DataFrame, fig5: pd.DataFrame, fig6: pd.DataFrame, milp: pd.DataFrame | None = None,
               *, readings: dict | None = None, stated=(0.5, "own"), n_ref: int = 100) -> list[Claim]:
    """§IV-B (Figs. 4-6) claims for notebook 41, judged under the ``stated`` reading.

    ``fig4`` (p = 0.3n, μ = 1, over n), ``fig5`` (over p/n at one n) and ``fig6``
    (L3, μ = 1/p, over n) are the figures' ``bsp_trial`` frames; ``readings``
    maps "fig4"/"fig5"/"fig6" to the frames of the other readings run beside
    them (``experiments.reading_settings``; None or missing: none), which give
    observations.  ``milp`` is the ``milp_trial`` frame (None: no MILP rows).
    ``stated`` = (λ, normalization) of the figures (the paper's: λ = 0.5, the
    own layer's t*); ``n_ref`` the n at which the paper quotes Fig. 4's
    completion times (100; :func:`reference_n`).
    """
    stated = _check_reading(stated)
    n_ref = check_int("n_ref", n_ref, 3)
    frames = _frames(fig4, fig5, fig6, readings)
    out: list[Claim] = []
    for num, rows, key, results in _evaluate(frames, stated, n_ref):
        out.extend(_number_rows(num, rows, key, results, n_ref))
    main = {k: _of_reading(f, stated, True, stated.normalization) for k, f in frames.items()}
    out.extend(_fig4_claims(main["fig4"]))
    out.extend(_overlap_claims(main))
    out.extend(_flat_claims(main["fig5"]))
    if milp is not None and len(milp):
        out.extend(_milp_claims(milp, main["fig4"]))
    return out


def _number_rows(num: _Number, rows: pd.DataFrame, stated: Reading, results, n_ref: int) -> list[Claim]:
    """The claim of one paper number under the stated reading (``rows``) and an observation per other
    reading in ``results``."""
    def label(reading: Reading) -> str:
        return reading.label(num.by_normalization)

    note_n = "" if n_ref == 100 or num.figure not in ("Fig. 4c", "Fig. 4d") else f"; measured at n = {n_ref}"
    out = []
    mine = [r for r in results if r[0] == stated]
    others = [r for r in results if r[0] != stated]
    for reading, values, text, met in others:
        out.append(observation(
            PAPER, num.figure, f"{num.claim} [reading {label(reading)}]", text, paper_value=num.paper_value,
            note=f"the stated reading is {label(stated)}; this reading ({_decisions(reading, stated)}) "
                 f"{'reproduces' if met else 'does not reproduce'} the paper's value ({num.tolerance}){note_n}"))
    if not mine:
        return out
    _, values, text, met = mine[0]
    dirn = num.direction(rows)
    note = f"mean over trials; reading {label(stated)} (decisions SM14, SM1){note_n}"
    if dirn is None:       # too few points for the qualitative part: report the number only
        out.append(observation(PAPER, num.figure, num.claim, text, paper_value=num.paper_value, note=note))
        return out
    holds_dir, dir_text = dirn
    cause = ""
    if not met:
        matching = [(r, t) for r, _, t, ok in others if ok]
        if matching:
            ids = sorted({i for r, _ in matching for i in _decisions(r, stated).split(" and ")})
            cause = (f"paper ambiguity: {' and '.join(ids)}: within 10 % under "
                     + "; ".join(f"{label(r)} ({t})" for r, t in matching))
        elif others:
            cause = ("unexplained: not within 10 % under any reading run ("
                     + "; ".join(f"{label(r)}: {t}" for r, _, t, _ in others) + ")")
        else:
            cause = "unexplained: no other reading of λ (SM14) or of the ideal time (SM1) was run"
    if not holds_dir:
        cause = f"unexplained: {dir_text}" + (f"; magnitude: {cause}" if cause else "")
    strength = _strength(num, rows, holds_dir, met)
    und = strength.get("undecided", ())
    if "direction" in und or (holds_dir and und):
        cause = ""                  # the verdict is undecided: no cause (S24)
    out.append(Claim(PAPER, num.figure, num.claim, num.paper_value, text, direction=holds_dir, magnitude=met,
                     tolerance=num.tolerance, cause=cause, note=f"{note}; direction: {dir_text}", **strength))
    return out


def _fig4_claims(d: pd.DataFrame) -> list[Claim]:
    """Fig. 4 without a paper number: SelMcast always better, its gain falling with n, exactly p at L3, speed."""
    out = []
    for layer, fig in (("L3", "Fig. 4c"), ("L7", "Fig. 4d")):
        rows = d[(d["layer"] == layer) & _is_mu_one(d)]
        o, s = _per(rows, "n", "orpheus_ct_norm"), _per(rows, "n", "selmcast_ct_norm")
        if o.empty or s.empty:
            continue
        better = s < o
        text = ", ".join(f"{o[n]:.2f} -> {s[n]:.2f} (n = {n})" for n in o.index)
        groups = {f"n={k}": g for k, g in groups_strength(wide_values(rows, "selmcast_ct_norm", "orpheus_ct_norm",
                                                                          by=["n"])).items()}
        strength = fields_on_means(groups, {k: side(g, "below") for k, g in groups.items()}, bool(better.all()))
        out.append(Claim(PAPER, fig, f"SelMcast's normalized CT below Orpheus's at every n ({layer})",
                         "always outperforms Orpheus", text, direction=bool(better.all()),
                         cause="" if better.all() or strength.get("undecided") else
                         f"unexplained: SelMcast not below Orpheus at n = {list(better.index[~better])}",
                         note="Orpheus -> SelMcast, means over trials; strength: paired per-trial SelMcast / Orpheus "
                              "normalized CT (S24, SM73)", **strength))
        if len(o) >= 2:
            gain = o / s
            falls = bool(gain.iloc[-1] < gain.iloc[0])
            out.append(Claim(
                PAPER, fig, f"SelMcast's gain (Orpheus / SelMcast normalized CT) lower at the largest n than at "
                            f"the smallest ({layer})", "the gain decreases slightly with n",
                f"{gain.iloc[0]:.2f}× at n = {gain.index[0]} -> {gain.iloc[-1]:.2f}× at n = {gain.index[-1]}",
                direction=falls,
                cause="" if falls else f"unexplained: per n {', '.join(f'{g:.2f}×' for g in gain)}",
                note="ratio of means over trials"))
    l3 = d[(d["layer"] == "L3") & _is_mu_one(d)]
    schemes = [s for s in ("selmcast", "orpheus", "optimal") if f"{s}_receivers" in l3.columns]
    if len(l3) and schemes:
        dev = max(float((_per(l3, "n", f"{s}_receivers") / _per(l3, "n", "p") - 1).abs().max()) for s in schemes)
        exact = bool(dev <= EXACT_P_REL * (1 + 1e-12))
        gain = (_per(l3, "n", "selmcast_receivers") / _per(l3, "n", "orpheus_receivers")).dropna()
        no_gain = bool((gain - 1 <= EXACT_P_REL * (1 + 1e-12)).all())
        cause = "" if exact and no_gain else (
            f"unexplained: max deviation {dev:.2%} of p; SelMcast / Orpheus receivers up to {gain.max():.3f}×")
        out.append(Claim(PAPER, "Fig. 4e", "L3, μ = 1: every scheme selects exactly p receivers", "exactly p",
                         f"max deviation {dev:.2%} of p", direction=no_gain, magnitude=exact,
                         tolerance="within 1 % of p (every scheme's mean receivers per worker, every n)",
                         cause=cause,
                         note="direction: no receiver gain, SelMcast's mean receivers at most 1 % above "
                              "Orpheus's at every n; means over trials"))
    n_big = d["n"].max() if len(d) else None
    big = d[(d["n"] == n_big) & _is_mu_one(d)]
    if len(big) and {"selmcast_time_ms", "orpheus_time_ms"} <= set(big.columns):
        sm, orp = float(big["selmcast_time_ms"].median()), float(big["orpheus_time_ms"].median())
        fast = bool(max(sm, orp) < FAST_MS)
        opt = (f"; exact optimum {big['optimal_time_ms'].median():.0f} ms"
               if "optimal_time_ms" in big.columns else "")
        out.append(Claim(
            PAPER, "Fig. 4a-b", "SelMcast and Orpheus select within tens of ms at n = 200", "tens of ms",
            f"SelMcast {sm:.1f} ms, Orpheus {orp:.2f} ms at n = {n_big}{opt}", direction=fast,
            cause="" if fast else f"unexplained: median selection time at or above {FAST_MS:g} ms",
            note="below 100 ms; median over layers and trials, measured inside the sweep's worker processes "
                 "(depends on machine load; benchmarks/bench_selmcast_bsp.py times it alone)"))
    return out


def _overlap_claims(main: dict[str, pd.DataFrame]) -> list[Claim]:
    """Figs. 4-6: SelMcast's and Optimal's means within 2 % at every setting."""
    keys = ["layer", "n", "p_frac", "mu"]
    gaps = {"normalized CT": [], "multicast scale": []}
    for name, d in main.items():
        if d.empty or "optimal_ct_norm" not in d.columns:
            continue
        g = d.assign(mu=d["mu"].astype(str)).groupby(keys)
        for label, metric in (("normalized CT", "ct_norm"), ("multicast scale", "scale")):
            sm, op = g[f"selmcast_{metric}"].mean(), g[f"optimal_{metric}"].mean()
            gaps[label].extend((abs(sm[k] - op[k]) / op[k], name, k, sm[k], op[k]) for k in sm.index)
    out = []
    for label, found in gaps.items():
        if not found:
            continue
        worst, name, (layer, n, p_frac, mu), sm, op = max(found, key=lambda t: t[0])
        ok = bool(worst <= OVERLAP_REL * (1 + 1e-12))
        where = f"{name.replace('fig', 'Fig. ')}, {layer}, n = {n}, p/n = {p_frac:g}, μ = {mu}"
        out.append(Claim(
            PAPER, "Figs. 4-6", f"SelMcast and Optimal overlap: {label}", "overlap", f"max rel. gap {worst:.1%}",
            direction=ok,
            cause="" if ok else (f"unexplained: the largest gap is at {where}: SelMcast {sm:.3f}, Optimal {op:.3f}; "
                                 "Algorithm 1's Pareto improvement is greedy, our Optimal exact (SM8), the paper's "
                                 "Gurobi under a 60 s limit (SM10)"),
            note=f"means per setting, all settings of Figs. 4-6, within 2 %; largest at {where}; "
                 "Optimal = exact max-flow optimum (SM8)"))
    return out


def _flat_claims(d: pd.DataFrame) -> list[Claim]:
    out = []
    for layer in sorted(set(d["layer"])) if len(d) else []:
        rows = d[d["layer"] == layer]
        sm = _per(rows, "p_frac", "selmcast_ct_norm")
        if len(sm) < 2:
            continue
        spread = float(sm.max() - sm.min())
        flat = bool(spread < FLAT_SPREAD * (1 - 1e-12))     # a nominal 0.05 is not "less than 0.05"
        ct = rows["selmcast_ct_norm"]
        # a ratio to the ideal time (a lower bound) reads 1.000-1.000 when every run attains it: say so, and how
        # many runs have no completion time (censored), instead of a range that looks like a tie of nothing
        at_ideal, done = int((ct - 1.0).abs().le(IDEAL_TOL).sum()), int(ct.notna().sum())
        out.append(Claim(
            PAPER, f"Fig. 5 {layer}", f"SelMcast normalized CT flat in p/n ({layer})", "consistent",
            f"spread {spread:.4f} (means {sm.min():.4f}–{sm.max():.4f}); at the ideal time (within "
            f"{IDEAL_TOL:.1%}) in {at_ideal} of {done} runs, {len(ct) - done} censored", direction=flat,
            cause="" if flat else f"unexplained: SelMcast's mean varies by {spread:.3f} over p/n",
            note=f"max - min of the means below {FLAT_SPREAD:g}; p/n = {[float(f) for f in sm.index]}"))
    return out


#: The claims of :func:`bsp_claims` that judge wall-clock times (selection and MILP solver times):
#: their measured values change from run to run and machine to machine, so the notebook records
#: them apart (decision S26: ``run.measured_claims``; the results ledger cites the measurement file).
TIMING_CLAIMS = frozenset({
    "SelMcast and Orpheus select within tens of ms at n = 200",
    "Optimal (MILP) median time grows super-linearly with n (L3)",
    "Optimal (MILP) median time grows super-linearly with n (L7)",
    "the L7 model solves faster than the L3 model (median MILP time at every n)",
    "Optimal's (MILP) time depends on the instance; hits the time limit in some runs",
})
#: The sweep columns of :func:`~simlib.papers.selmcast.experiments.bsp_trial` and ``milp_trial`` that
#: are wall-clock times (decision S26): a notebook passes them as ``run.sweep(..., measured=...)``.
BSP_TIMING_COLUMNS = ("selmcast_time_ms", "orpheus_time_ms", "optimal_time_ms")
MILP_TIMING_COLUMNS = ("flow_time_ms", "milp_time_s", "milp_stage1_s", "milp_stage2_s")


def _milp_claims(milp: pd.DataFrame, fig4: pd.DataFrame) -> list[Claim]:
    """§IV-B1 on Optimal's (MILP) computation time."""
    med = milp.groupby(["layer", "n"])["milp_time_s"].median()
    sizes = sorted(set(milp["n"]))
    where = f"n = {', '.join(str(n) for n in sizes)}"
    big = fig4[fig4["n"] == fig4["n"].max()] if len(fig4) else fig4
    opt = (f"; exact max-flow optimum {big['optimal_time_ms'].median():.0f} ms at n = {fig4['n'].max()}"
           if "optimal_time_ms" in big.columns and len(big) else "")
    limit = (f"{milp['time_limit_s'].max():g} s per stage" if "time_limit_s" in milp.columns
             else "the time limit per stage")
    setting = (f"setting: SM10, the MILP runs only at {where} (HiGHS, this machine), the paper's at "
               "n = 50-200 (Gurobi, 6 cores)")
    out = []
    for layer, fig in (("L3", "Fig. 4a"), ("L7", "Fig. 4b")):
        if layer not in med.index.get_level_values("layer"):
            continue
        m = med.xs(layer, level="layer")
        if len(m) < 2:
            continue
        n0, n1 = int(m.index.min()), int(m.index.max())
        growth = float(m[n1] / m[n0])
        superlinear = bool(growth > n1 / n0)
        # SM77: the verdict also needs the sign-test interval of the per-trial ratio t(n1) / t(n0) (trial t of
        # both sizes shares its seed) wholly above n1 / n0 and on the medians' side; wall-clock ratios of
        # instance-dependent solves flip between reproductions otherwise
        ratios = group_ratios(milp, "milp_time_s", "layer", n1, n0, col="n").get(layer, np.empty(0))
        groups = groups_strength({f"{layer}, n = {n1} / {n0}": ratios}, threshold=n1 / n0)
        fields = fields_on_means(groups, {k: side(g, "above") for k, g in groups.items()}, superlinear)
        out.append(Claim(
            PAPER, fig, f"Optimal (MILP) median time grows super-linearly with n ({layer})",
            "super-linear (Gurobi, n = 50-200)",
            f"HiGHS median {m[n0]:.3f} s at n = {n0} -> {m[n1]:.3f} s at n = {n1} "
            f"({growth:.1f}× for {n1 / n0:.1f}× n){opt}", direction=superlinear,
            cause="" if superlinear or fields["undecided"] else setting,
            note=f"super-linear: time ratio above the n ratio; {limit}", **fields))
    layers = set(med.index.get_level_values("layer"))
    if {"L3", "L7"} <= layers:
        both = med.unstack("layer").dropna()
        faster = bool(len(both) and (both["L7"] < both["L3"]).all())
        ratios = ", ".join(f"{r:.0f}× (n = {n})" for n, r in (both["L3"] / both["L7"]).items())
        out.append(Claim(
            PAPER, "Fig. 4a-b", "the L7 model solves faster than the L3 model (median MILP time at every n)",
            "much simpler to solve", f"L3 / L7 median time: {ratios}", direction=faster,
            cause="" if faster else "unexplained: the L7 MILP is not faster at every n", note="HiGHS"))
    l3 = med.xs("L3", level="layer") if "L3" in layers else pd.Series(dtype=float)
    out.append(observation(
        PAPER, "Fig. 4a", "Optimal (MILP) median time at n = 200 (L3)",
        f"{l3[200]:.1f} s (HiGHS)" if 200 in l3.index else f"not run (SM10: the MILP runs at {where})",
        paper_value="> 27 s (Gurobi)", note="the exact max-flow optimum draws the Optimal line (SM8)"))
    spread = milp.groupby(["layer", "n"])["milp_time_s"].agg(lambda t: t.max() / t.min())
    limited = int((~milp["milp_proven"].astype(bool)).sum()) if "milp_proven" in milp.columns else 0
    out.append(observation(
        PAPER, "Fig. 4a-b", "Optimal's (MILP) time depends on the instance; hits the time limit in some runs",
        f"max / min time over trials {spread.min():.1f}–{spread.max():.1f}× per (layer, n); "
        f"{limited} of {len(milp)} runs hit the time limit", paper_value="instance-dependent; reaches 60 s",
        note=f"HiGHS at {where}"))
    return out


def reading_table(fig4: pd.DataFrame, fig5: pd.DataFrame, fig6: pd.DataFrame, *, readings: dict | None = None,
                  stated=(0.5, "own"), n_ref: int = 100) -> pd.DataFrame:
    """Which reading reproduces which of §IV-B's numbers (arguments as :func:`bsp_claims`).

    One row per paper number, one column per reading present, the stated one
    first: "ours ✓" within 10 % of the paper, "ours ✗" not, "" where not run.  A
    number that does not depend on the normalization shows the same value under
    both normalizations.
    """
    stated = _check_reading(stated)
    frames = _frames(fig4, fig5, fig6, readings)
    evaluated = _evaluate(frames, stated, check_int("n_ref", n_ref, 3))
    present = {Reading(float(lam), str(norm)) for f in frames.values()
               for lam, norm in zip(f["lam"], f["normalization"])}
    columns = [stated] + sorted(present - {stated}, key=lambda r: (-r.lam, r.normalization != stated.normalization))
    table = []
    for num, _, _, results in evaluated:
        row = {"figure": num.figure, "claim": num.claim, "paper": num.paper_value}
        for col in columns:
            hit = [r for r in results if r[0] == (col if num.by_normalization else Reading(col.lam, "own"))]
            row[col.label()] = f"{hit[0][2]} {'✓' if hit[0][3] else '✗'}" if hit else ""
        table.append(row)
    return pd.DataFrame(table).set_index(["figure", "claim"])
