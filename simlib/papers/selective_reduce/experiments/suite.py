"""Every seed-000 claim of Figs. 5–14 at one setting of the open parameters (decision E18).

Notebooks 11–14 each run one figure group's grid; the paper-profile search (notebook 16) runs
all four at every candidate.  :func:`figure_settings` builds the four grids (the notebooks'
defaults: §IV-A1 and decision E7) with the open settings merged into every setting;
:func:`judge` turns the four result frames into the claims of ``claims.figs5_7`` …
``figs13_14``; :func:`at_setting` stamps claims with the ledger setting they were judged at
(S19).
"""
from __future__ import annotations

import dataclasses
from typing import Iterable

import pandas as pd

from simlib.core.paths import COMMITTED_RESULTS
from simlib.papers import claim as claim_mod
from simlib.papers.claim import Claim
from simlib.papers.selective_reduce import claims as sr_claims
from simlib.papers.selective_reduce import profile as sr_profile

__all__ = ["GROUPS", "figure_settings", "judge", "claims_table", "at_setting", "cross_causes", "cross_settings",
           "judged_settings", "result_name", "baseline_settings", "judge_baselines", "committed_where_holds", "select_rows", "split_by_group", "unique"]

#: The four figure groups (notebook number, what they cover).
GROUPS = {"11": "Figs. 5–7", "12": "Figs. 8–10", "13": "Figs. 11–12", "14": "Figs. 13–14"}
N_VALUES = (40, 80, 120, 160, 200)
P, ETA, THETA, N = 0.3, 0.3, 1.0, 200


def _grid(**axes) -> list[dict]:
    """Every combination of the axes' values (the last axis varies fastest)."""
    rows = [{}]
    for name, values in axes.items():
        rows = [dict(r, **{name: v}) for r in rows for v in values]
    return rows


def unique(settings: Iterable[dict]) -> list[dict]:
    """The settings without repeats, in first-seen order."""
    seen, out = set(), []
    for s in settings:
        key = tuple(sorted(s.items()))
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out


def figure_settings(open_settings: dict, *, n_values=N_VALUES, n: int = N, duration_s: float = 100.0,
                    e_values=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5), extra: dict | None = None) -> dict[str, list[dict]]:
    """``{group: settings}``: notebooks 11–14's default grids (§IV-A1 settings, E7's sweeps; the same
    keys as the notebooks write, so the trial cache (S17) serves both) with ``open_settings`` (e.g.
    ``{"dt_s": 0.02, "compute_mean_s": 3.0}``) and ``extra`` (e.g. ``{"model_mb": 250.0}``) merged
    into every setting.  ``n`` is Figs. 8–14's cluster size (also Fig. 12's, E7), ``n_values``
    Figs. 5–7's and 11's, ``duration_s`` every run's length (s)."""
    fixed = {**open_settings, **(extra or {})}
    N = N_ERROR = n
    tr = dict(trace=["transformer"], duration_s=[duration_s])
    knobs = dict(p=[P], eta=[ETA], theta=[THETA])
    groups = {
        "11": _grid(trace=["cnn", "transformer"], n=list(n_values), scheme=["allreduce", "partial", "selective"],
                    duration_s=[duration_s], **knobs, lam=[0.05], alpha_s=[0.001], model_mb=[500.0]),
        "12": _grid(scheme=["partial", "selective"], p=[0.1, 0.2, 0.3, 0.4, 0.5], eta=[ETA], theta=[THETA], n=[N], **tr)
              + _grid(scheme=["selective"], p=[P], eta=[0.0, 0.2, 0.4, 0.6, 0.8], theta=[THETA], n=[N], **tr)
              + _grid(scheme=["selective"], p=[P], eta=[ETA], theta=[1.0, 5.0, 10.0, 15.0, 20.0], n=[N], **tr),
        "13": _grid(scheme=["selective"], n=list(n_values), cdf=["warm", "cold"], bw_error=[0.0], **tr)
              + _grid(scheme=["selective"], n=[N_ERROR], cdf=["warm", "cold"], bw_error=list(e_values), **tr)
              + _grid(scheme=["partial"], n=sorted(set(n_values) | {N_ERROR}), **tr),
        "14": _grid(scheme=["allreduce", "partial", "selective"], lam=[0.05, 0.1, 0.2], alpha_s=[0.001], n=[N], **tr)
              + _grid(scheme=["allreduce", "partial", "selective"], lam=[0.05], alpha_s=[0.0, 0.001, 0.005, 0.05],
                      n=[N], **tr),
    }
    return {g: unique(dict(s, **fixed) for s in settings) for g, settings in groups.items()}


def baseline_settings(open_settings: dict, **layout) -> dict[str, list[dict]]:
    """The all-reduce and partial-reduce settings of :func:`figure_settings`' groups 11 and 12 (``layout``
    as there): the runs E18's baseline statements are judged on (they never read Δt)."""
    groups = figure_settings(open_settings, **layout)
    return {g: [s for s in groups[g] if s["scheme"] in ("allreduce", "partial")] for g in ("11", "12")}


def judge_baselines(frames: dict[str, pd.DataFrame]) -> list[Claim]:
    """E18's scored claims (:data:`~simlib.papers.selective_reduce.profile.BASELINE_CLAIMS`) from the
    frames of :func:`baseline_settings`' runs."""
    claims = sr_claims.figs5_7(frames["11"]) + sr_claims.figs8_10(frames["12"], p=P, eta=ETA, theta=THETA)
    return [c for c in claims if c.claim in sr_profile.BASELINE_CLAIMS]


def _keys(frame: pd.DataFrame, columns: list[str]) -> pd.Series:
    """Each row's values in ``columns`` as a tuple, unset (NaN / None) as one marker."""
    f = frame.reindex(columns=columns).astype(object)
    f = f.where(f.notna(), "<unset>")
    return pd.Series(list(f.itertuples(index=False, name=None)), index=frame.index, dtype=object)


def _setting_columns(df: pd.DataFrame, settings: list[dict]) -> list[str]:
    """The setting columns of ``df`` (a sweep's tidy frame: setting keys, trial, metrics), checking that
    ``settings`` use no other keys."""
    columns = list(df.columns[:list(df.columns).index("trial")])
    extra = sorted(set().union(*settings) - set(columns))
    if extra:
        raise ValueError(f"settings have keys {extra} that are not setting columns of df {columns}")
    return columns


def _select(df: pd.DataFrame, columns: list[str], df_keys: pd.Series, settings: list[dict]) -> pd.DataFrame:
    """:func:`select_rows` with ``df``'s setting ``columns`` and its rows' :func:`_keys` given."""
    if not settings:
        return df.iloc[:0]
    want = set(_keys(pd.DataFrame(settings), columns))
    return df[df_keys.isin(want).to_numpy()]


def select_rows(df: pd.DataFrame, settings: list[dict]) -> pd.DataFrame:
    """The rows of ``df`` (a sweep's tidy frame) whose setting is one of ``settings``: a setting's
    keys must equal the row's values and the row's other setting columns must be unset."""
    if not settings:
        return df.iloc[:0]
    columns = _setting_columns(df, settings)
    return _select(df, columns, _keys(df, columns), settings)


def split_by_group(df: pd.DataFrame, groups: dict[str, list[dict]]) -> dict[str, pd.DataFrame]:
    """``{group: the rows of df run for that group's settings}`` (:func:`figure_settings`)."""
    columns = _setting_columns(df, [s for settings in groups.values() for s in settings])
    keys = _keys(df, columns)      # the rows' keys once for every group
    return {g: _select(df, columns, keys, settings) for g, settings in groups.items()}


def judge(frames: dict[str, pd.DataFrame], *, n: int = N) -> list[Claim]:
    """Every Figs. 5–14 claim from the four groups' frames (:func:`split_by_group`; ``n`` as in
    :func:`figure_settings`)."""
    return (sr_claims.figs5_7(frames["11"])
            + sr_claims.figs8_10(frames["12"], p=P, eta=ETA, theta=THETA)
            + sr_claims.figs11_12(frames["13"], n_error=n)
            + sr_claims.figs13_14(frames["14"]))


def claims_table(claims: Iterable[Claim], **labels) -> pd.DataFrame:
    """The claims (observations left out) as rows: ``labels`` (e.g. the candidate's ``dt_s``,
    ``compute_mean_s``, ``model_mb``), then figure, claim, paper_value, our_value, direction,
    magnitude (None: no number to meet), holds."""
    rows = [{**labels, "figure": c.figure, "claim": c.claim, "paper_value": c.paper_value, "our_value": c.our_value,
             "direction": c.direction, "magnitude": c.magnitude, "holds": c.holds}
            for c in claims if c.kind == "claim"]
    return pd.DataFrame(rows, columns=[*labels, "figure", "claim", "paper_value", "our_value", "direction",
                                       "magnitude", "holds"])


_DEFAULT_LABEL = "Δt = 0.1 s, stored 1 s mean; E2, E6"
#: The committed search table whose per-claim map the causes cite (notebook 16).
SEARCH_TABLE = "16_sr_profile_search.csv"


def cross_causes(default: Iterable[Claim], profile: Iterable[Claim], profile_label: str) -> list[Claim]:
    """:func:`simlib.papers.claim.cross_causes` with 000's default named (Δt = 0.1 s, the stored 1 s
    mean; E2, E6)."""
    return claim_mod.cross_causes(default, profile, profile_label, default_label=_DEFAULT_LABEL)


def judged_settings() -> dict[str, sr_profile.Profile]:
    """``{ledger setting: open settings}`` notebooks 11-14 judge every claim at
    (:func:`~simlib.papers.selective_reduce.profile.settings_judged`: the default, the paper profile
    where it differs from the default, Δt's reading E19)."""
    return sr_profile.settings_judged()


def result_name(base: str, setting: str) -> str:
    """The result CSV's name of a notebook's runs at a ledger setting: ``base`` at the default,
    ``base_profile``, ``base_dt_reading``."""
    return base if setting == claim_mod.DEFAULT_SETTING else f"{base}_{setting.replace(' ', '_')}"


def _describe(setting: str, profile: sr_profile.Profile) -> str:
    if setting == claim_mod.DEFAULT_SETTING:
        return f"the default ({_DEFAULT_LABEL})"
    if setting == claim_mod.PROFILE_SETTING:
        return f"the paper profile ({profile.label()})"
    return f"Δt's reading ({profile.label()})"


def committed_where_holds(path=None) -> dict[tuple[str, str], str]:
    """Where each claim holds in notebook 16's committed search (:func:`profile.where_holds`; ``{}``
    when the table is not there).  Notebooks 11-14 read the committed table, as they read
    :data:`~simlib.papers.selective_reduce.profile.PAPER_PROFILE`, which the same search fixes."""
    table = _committed_search() if path is None else (pd.read_csv(path) if path.exists() else None)
    return {} if table is None else sr_profile.where_holds(table)


def cross_settings(claims: dict[str, list[Claim]], *, settings: dict | None = None,
                   where_holds: dict | None = None, profile: str = "full",
                   search: pd.DataFrame | None = None) -> list[Claim]:
    """:func:`simlib.papers.claim.cross_settings` over 000's judged settings: ``claims`` ``{ledger setting:
    the claims judged there}`` (settings of :func:`judged_settings`, or of ``settings`` ``{setting:
    Profile}``), each failing cause citing the other settings and where the search found the claim
    holding (``where_holds``; default: from ``search``, a search table, or the committed one for a
    ``"full"`` run ``profile``, none for a quick one, whose grids are not the search's).  A "stand-in
    trace" cause of a claim the search finds holding with the stored traces' 1 s mean becomes "setting:
    Δt" (the traces' scale is not what it needs)."""
    settings = judged_settings() if settings is None else settings
    stored = set()
    if where_holds is None:
        table = search if search is not None else _committed_search() if profile == "full" else None
        where_holds = {} if table is None else sr_profile.where_holds(table)
        stored = set() if table is None else {k for k, c in sr_profile.holds_at(table).items()
                                              if any(mean == 1.0 for _, mean in c)}
    claims = {s: [_not_the_traces(c) if (c.figure, c.claim) in stored else c for c in cs] for s, cs in claims.items()}
    return claim_mod.cross_settings({s: (list(c), _describe(s, settings[s])) for s, c in claims.items()},
                                    where_holds=where_holds)


def _not_the_traces(c: Claim) -> Claim:
    """A "stand-in trace" cause of a claim the search finds holding with the stored traces (1 s mean) at
    some Δt: the traces' scale is not what it needs, Δt is (issue 41); the old reason is kept after it."""
    if c.kind != "claim" or c.holds or claim_mod._kind(c.cause) != "stand-in trace":
        return c
    return dataclasses.replace(c, cause="setting: Δt (E2): with the stored traces' 1 s mean it holds at another Δt "
                                        "in notebook 16's search (below), so the traces' scale is not what it needs; "
                                        "earlier reason: " + c.cause.split(":", 1)[1].strip())


def _committed_search() -> pd.DataFrame | None:
    path = COMMITTED_RESULTS / SEARCH_TABLE
    return pd.read_csv(path) if path.exists() else None


at_setting = claim_mod.at_setting
