"""Where each of §IV-B's claims holds over SM72's candidates: a claims × candidates map (issue 41).

SM72 (:mod:`.profile`) scores its 36 candidates on Orpheus's four numbers only, so its search table
says nothing about SelMcast's claims.  The map judges every §IV-B claim of notebook 41
(:func:`.claims.bsp_claims`, the wall-clock rows left out) on notebook 41's Figs. 4-6 grids at each
*map candidate* (:func:`map_candidates`): λ over :data:`MAP_LAM` at the paper profile's ideal and
shared x, and the stated reading (notebook 41's own runs, so free from the trial cache).  The table
(:func:`claims_table`, one row per claim and candidate, committed as
``data/results/47_selmcast_claims_map.csv``) gives :func:`claims_map` (claims × candidates, cells
"holds" / "fails" / "undecided") and :func:`where_holds` (the text a failing row's cause cites,
e.g. "holds at 3 of 6 candidates mapped (SM72 map, 10 trials): λ ≤ 0.3 at the L3 t*, independent x"
or "holds at none of the 6 candidates mapped ...").  :func:`with_where` puts that text into the
causes of failing claims the way 000's and 002's searches do (:func:`simlib.papers.claim.cross_settings`).
"""
from __future__ import annotations

import json
from itertools import product
from typing import Iterable, Mapping

import pandas as pd

from simlib.papers.analysis import require_frame
from simlib.papers.claim import Claim, cross_settings

from .profile import DEFAULT_SETTINGS, PAPER_PROFILE, SEARCH_TRIALS, Profile

__all__ = ["MAP_LAM", "MAP_TABLE", "map_candidates", "figure_grids", "map_settings", "split_figures", "candidate_label", "claims_table",
           "claims_map", "where_holds", "with_where", "committed_where_holds"]

#: λ of the map's candidates (the profile's ideal and shared x): SM72's λ grid at steps of 0.1 below the
#: stated 0.5 (which the stated reading's column covers), and the profile's 0.25 (always added).  Each λ
#: not yet run costs notebook 41's Figs. 4-6 grids at 10 trials (22 settings: 40-55 s of CPU,
#: ``benchmarks/bench_claims_map.py``), so the map does not repeat all 36 of SM72's candidates (SM76).
MAP_LAM = (0.1, 0.2, 0.3, 0.4)
#: The committed map table (in ``data/results/``).
MAP_TABLE = "47_selmcast_claims_map.csv"
_KNOBS = ("lam", "normalization", "shared_x")


def map_candidates(lam_values: Iterable[float] = MAP_LAM, profile: Profile = PAPER_PROFILE) -> list[Profile]:
    """The map's candidates: λ over ``lam_values`` and ``profile``'s λ, at ``profile``'s ideal and
    shared x (ascending λ), then the stated reading :data:`~.profile.DEFAULT_SETTINGS` if it is not
    among them."""
    lams = sorted({float(v) for v in lam_values} | {float(profile.lam)})
    out = [Profile(lam, profile.normalization, profile.shared_x) for lam in lams]
    if DEFAULT_SETTINGS.settings() not in [c.settings() for c in out]:
        out.append(DEFAULT_SETTINGS)
    return out


def figure_grids(profile: Profile, *, layers, n_values, p_frac: float, fig5_n: int, p_frac_values) -> dict:
    """Notebook 41's Figs. 4-6 ``bsp_trial`` grids (the same settings, so the same cache keys) under
    ``profile``'s values: ``{"fig4": [...], "fig5": [...], "fig6": [...]}``."""
    common = dict(bbar_gbps=40.0, model_mb=200.0, **profile.settings())

    def grid(layers_, ns, fracs, mu):     # the first axis slowest, as the notebooks' expand_grid
        return [dict(layer=la, n=n, p_frac=f, mu=mu, **common) for la, n, f in product(layers_, ns, fracs)]

    return {"fig4": grid(layers, n_values, [p_frac], 1.0), "fig5": grid(layers, [fig5_n], p_frac_values, 1.0),
            "fig6": grid(["L3"], n_values, [p_frac], "1/p")}


def map_settings(grids: list[dict]) -> list[dict]:
    """The distinct settings of the concatenated :func:`figure_grids` of several candidates (``grids``, in
    order), each once, in first-seen order: what the map's one sweep runs.  A setting can appear in two
    figures of one candidate (Fig. 4's grid at ``p_frac`` and Fig. 5's at ``fig5_n`` share the setting
    ``n = fig5_n, p = p_frac`` when both grids contain it), and a sweep runs a setting once (S2)."""
    seen: dict[str, dict] = {}
    for g in grids:
        for settings in g.values():
            for s in settings:
                seen.setdefault(_setting_key(s), s)
    return list(seen.values())


def split_figures(frame: pd.DataFrame, grids: list[dict], trials: int) -> list[dict]:
    """A sweep over :func:`map_settings` of several candidates' :func:`figure_grids` (``grids``, in
    order), rows in (setting, trial) order with ``trials`` rows per setting (S2), cut back into one
    ``{"fig4": frame, ...}`` per candidate (a setting two figures share gives both its rows)."""
    unique = [_setting_key(s) for s in map_settings(grids)]
    if len(frame) != len(unique) * trials:
        raise ValueError(f"frame has {len(frame)} rows, expected {len(unique) * trials} ({len(unique)} settings x "
                         f"{trials} trials)")
    at = {key: i * trials for i, key in enumerate(unique)}
    return [{fig: pd.concat([frame.iloc[at[_setting_key(s)]:at[_setting_key(s)] + trials] for s in settings],
                            ignore_index=True)
             for fig, settings in g.items()} for g in grids]


def _setting_key(setting: Mapping) -> str:
    return json.dumps(dict(setting), sort_keys=True, default=str)


def candidate_label(lam: float, normalization: str, shared_x: bool) -> str:
    """``"λ 0.25, L3 t*, indep. x"``: a candidate's three knobs."""
    ideal = "own t*" if normalization == "own" else "L3 t*"
    return f"λ {float(lam):g}, {ideal}, {'shared' if shared_x else 'indep.'} x"


def _state(c: Claim) -> str:
    return {"holds": "holds", "fails": "fails", "undecided": "undecided"}[c.verdict]


def claims_table(judged: Mapping[Profile, list[Claim]], trials: int) -> pd.DataFrame:
    """One row per (candidate, claim) of ``judged`` (``{candidate: its claims}``, observations left
    out): the candidate's knobs, ``figure``, ``claim``, ``state`` ("holds" / "fails" / "undecided"),
    ``our_value`` and ``trials`` (per setting)."""
    rows = [dict(prof.settings(), figure=c.figure, claim=c.claim, state=_state(c), our_value=c.our_value,
                 trials=int(trials))
            for prof, claims in judged.items() for c in claims if c.kind == "claim"]
    return pd.DataFrame(rows, columns=[*_KNOBS, "figure", "claim", "state", "our_value", "trials"])


def _labelled(table: pd.DataFrame) -> pd.DataFrame:
    require_frame(table, "table", [*_KNOBS, "figure", "claim", "state"])
    bad = set(table["state"]) - {"holds", "fails", "undecided"}
    if bad:
        raise ValueError(f"table's state must be holds, fails or undecided, got {sorted(bad)}")
    sx = table["shared_x"].map(lambda v: str(v).strip().lower() in ("true", "1", "1.0"))
    return table.assign(shared_x=sx, row=table["figure"] + ": " + table["claim"],
                        candidate=[candidate_label(a, b, c)
                                   for a, b, c in zip(table["lam"], table["normalization"], sx)])


def _order(t: pd.DataFrame) -> list[str]:
    """Candidates by ideal and shared x as the table first gives them, λ ascending within."""
    keys = list(dict.fromkeys(zip(t["normalization"], t["shared_x"])))
    return [candidate_label(lam, n, x) for n, x in keys
            for lam in sorted(set(t[(t["normalization"] == n) & (t["shared_x"] == x)]["lam"]))]


def claims_map(table: pd.DataFrame) -> pd.DataFrame:
    """Claims × candidates of a :func:`claims_table` (issue 41's "where each claim holds"): rows
    ``"<figure>: <claim>"`` in the table's order, columns :func:`candidate_label`, cells "holds",
    "fails" or "undecided"."""
    t = _labelled(table)
    wide = t.pivot_table(index="row", columns="candidate", values="state", aggfunc="first", sort=False)
    return wide[_order(t)]


def _lam_text(lams: list[float], searched: list[float]) -> str:
    if len(lams) == 1:
        return f"λ = {lams[0]:g}"
    if lams == searched:
        return "every λ"
    if lams == searched[:len(lams)]:
        return f"λ ≤ {lams[-1]:g}"
    if lams == searched[-len(lams):]:
        return f"λ ≥ {lams[0]:g}"
    i = searched.index(lams[0])
    if lams == searched[i:i + len(lams)]:        # a run of neighbours on the map
        return f"{lams[0]:g} ≤ λ ≤ {lams[-1]:g}"
    return "λ ∈ {" + ", ".join(f"{v:g}" for v in lams) + "}"


def where_holds(table: pd.DataFrame) -> dict[tuple[str, str], str]:
    """``{(figure, claim): where it holds on the map}``: "holds at k of N candidates mapped (SM72 map,
    T trials): λ ≤ 0.3 at the L3 t*, indep. x" (the λ range per ideal and shared x), "holds at every
    one of the N ...", or "holds at none of the N candidates mapped ..."; "; undecided at u" when some
    are undecided."""
    t = _labelled(table)
    n_cand = len(set(zip(t["lam"], t["normalization"], t["shared_x"])))
    how = f"SM72 map, {int(t['trials'].iloc[0]) if 'trials' in t and len(t) else SEARCH_TRIALS} trials"
    out = {}
    for (figure, claim), rows in t.groupby(["figure", "claim"], sort=False):
        hold = rows[rows["state"] == "holds"]
        open_ = int((rows["state"] == "undecided").sum())
        also = f"; undecided at {open_}" if open_ else ""
        if hold.empty:
            out[figure, claim] = f"holds at none of the {n_cand} candidates mapped ({how}){also}"
        elif len(hold) == n_cand:
            out[figure, claim] = f"holds at every one of the {n_cand} candidates mapped ({how})"
        else:
            parts = []
            for (norm, sx), g in hold.groupby(["normalization", "shared_x"], sort=False):
                lams = sorted(rows[(rows["normalization"] == norm) & (rows["shared_x"] == sx)]["lam"])
                ideal = "own t*" if norm == "own" else "L3 t*"
                parts.append(f"{_lam_text(sorted(g['lam']), lams)} at the {ideal}, "
                             f"{'shared' if sx else 'indep.'} x")
            out[figure, claim] = (f"holds at {len(hold)} of {n_cand} candidates mapped ({how}): " + "; ".join(parts)
                                  + also)
    return out


def with_where(claims: list[Claim], setting: str, description: str, where: Mapping[tuple[str, str], str]) -> list[Claim]:
    """``claims`` judged at one ledger ``setting`` (``description`` names its values) with each failing
    verdict's cause citing ``where`` (:func:`where_holds`): an "unexplained" cause becomes "setting:
    <where it holds>" when the map has a candidate where it holds and "... ruled out: the open settings"
    when it has none; any other cause gets "; search: <where>" (:func:`~simlib.papers.claim.cross_settings`)."""
    return cross_settings({setting: (list(claims), description)}, where_holds=where)


def committed_where_holds(profile: str = "full", path=None) -> dict[tuple[str, str], str]:
    """:func:`where_holds` of notebook 47's committed map (``data/results/47_selmcast_claims_map.csv``)
    for a ``"full"`` run; ``{}`` for a quick one (its grids are not the map's) or while none is committed."""
    from simlib.core.paths import COMMITTED_RESULTS

    path = COMMITTED_RESULTS / MAP_TABLE if path is None else path
    return where_holds(pd.read_csv(path)) if profile == "full" and path.exists() else {}
