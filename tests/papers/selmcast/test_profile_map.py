"""004's claims × candidates map over SM72's candidates (issue 41): hand-built tables with known answers."""
import pandas as pd
import pytest

from simlib.papers.claim import Claim
from simlib.papers.selmcast import profile_map as pm
from simlib.papers.selmcast.profile import DEFAULT_SETTINGS, PAPER_PROFILE, Profile


def _table(states: dict) -> pd.DataFrame:
    """``states``: {claim: {lam: state}} at the L3 ideal, independent x; plus the stated reading 'fails'."""
    rows = []
    for claim, by_lam in states.items():
        for lam, st in by_lam.items():
            rows.append(dict(lam=lam, normalization="L3", shared_x=False, figure="Fig. 4c", claim=claim, state=st,
                             our_value="v", trials=10))
        rows.append(dict(lam=0.5, normalization="own", shared_x=False, figure="Fig. 4c", claim=claim, state="fails",
                         our_value="v", trials=10))
    return pd.DataFrame(rows)


def test_map_candidates_run_lambda_at_the_profiles_ideal_and_add_the_stated_reading():
    cands = pm.map_candidates([0.4, 0.1], PAPER_PROFILE)
    assert [c.lam for c in cands] == [0.1, 0.25, 0.4, 0.5]
    assert all(c.normalization == "L3" and not c.shared_x for c in cands[:3])
    assert cands[-1].settings() == DEFAULT_SETTINGS.settings()
    # the stated reading already among them: not added twice
    assert len(pm.map_candidates([0.5], Profile(0.25, "own", False))) == 2


def test_where_holds_names_the_lambda_range_and_counts():
    t = _table({"low": {0.1: "holds", 0.2: "holds", 0.3: "fails"},
                "none": {0.1: "fails", 0.2: "fails", 0.3: "fails"},
                "mid": {0.1: "fails", 0.2: "holds", 0.3: "undecided"}})
    w = pm.where_holds(t)
    assert w["Fig. 4c", "low"] == ("holds at 2 of 4 candidates mapped (SM72 map, 10 trials): λ ≤ 0.2 at the L3 t*, "
                                   "indep. x")
    assert w["Fig. 4c", "none"] == "holds at none of the 4 candidates mapped (SM72 map, 10 trials)"
    assert w["Fig. 4c", "mid"].startswith("holds at 1 of 4") and "λ = 0.2 at the L3 t*" in w["Fig. 4c", "mid"]
    assert w["Fig. 4c", "mid"].endswith("; undecided at 1")
    t2 = _table({"run": {0.1: "fails", 0.2: "holds", 0.3: "holds", 0.4: "fails"},
                 "gap": {0.1: "holds", 0.2: "fails", 0.3: "holds", 0.4: "fails"}})
    w2 = pm.where_holds(t2)
    assert "0.2 ≤ λ ≤ 0.3 at the L3 t*" in w2["Fig. 4c", "run"]
    assert "λ ∈ {0.1, 0.3} at the L3 t*" in w2["Fig. 4c", "gap"]


def test_claims_map_is_claims_by_candidates_in_lambda_order():
    t = _table({"low": {0.3: "fails", 0.1: "holds", 0.2: "holds"}})
    m = pm.claims_map(t)
    assert list(m.index) == ["Fig. 4c: low"]
    assert list(m.columns) == ["λ 0.1, L3 t*, indep. x", "λ 0.2, L3 t*, indep. x", "λ 0.3, L3 t*, indep. x",
                               "λ 0.5, own t*, indep. x"]
    assert list(m.iloc[0]) == ["holds", "holds", "fails", "fails"]
    with pytest.raises(ValueError, match="state must be"):
        pm.claims_map(t.assign(state="maybe"))


def test_a_failing_cause_cites_the_map_and_a_holding_row_is_kept():
    where = {("Fig. 4c", "a"): "holds at 2 of 4 candidates mapped (SM72 map, 10 trials): λ ≤ 0.2 at the L3 t*, indep. x",
             ("Fig. 4c", "b"): "holds at none of the 4 candidates mapped (SM72 map, 10 trials)"}
    cs = [Claim("004", "Fig. 4c", "a", "1", "2", direction=False, cause="unexplained: x"),
          Claim("004", "Fig. 4c", "b", "1", "2", direction=False, cause="unexplained: y"),
          Claim("004", "Fig. 4c", "c", "1", "2", direction=False, cause="paper ambiguity: SM14: z"),
          Claim("004", "Fig. 4c", "d", "1", "1", direction=True)]
    out = {c.claim: c for c in pm.with_where(cs, "default", "the stated reading", where)}
    assert out["a"].cause.startswith("setting: holds at 2 of 4 candidates mapped")
    assert "ruled out: the open settings" in out["b"].cause
    assert out["c"].cause == "paper ambiguity: SM14: z"          # no map entry: kept
    assert out["d"].holds and not out["d"].cause
    assert pm.with_where(cs, "default", "the stated reading", {}) == cs     # no map: nothing changes


def test_split_figures_cuts_a_concatenated_sweep_back_per_candidate():
    cands = [PAPER_PROFILE, DEFAULT_SETTINGS]
    grids = [pm.figure_grids(c, layers=["L3", "L7"], n_values=[20, 40], p_frac=0.3, fig5_n=40,
                             p_frac_values=[0.1, 0.5]) for c in cands]
    assert [len(g[k]) for g in grids for k in ("fig4", "fig5", "fig6")] == [4, 4, 2] * 2
    settings = pm.map_settings(grids)
    assert len(settings) == 20                          # no setting shared: fig5_n = 40 but p_frac 0.3 not in 0.1/0.5
    frame = pd.DataFrame([dict(s, trial=t) for s in settings for t in range(3)])
    cut = pm.split_figures(frame, grids, 3)
    assert set(cut[1]["fig6"]["mu"]) == {"1/p"} and set(cut[1]["fig6"]["lam"]) == {0.5}
    assert len(cut[0]["fig5"]) == 12 and set(cut[0]["fig5"]["n"]) == {40} and set(cut[0]["fig5"]["lam"]) == {0.25}
    with pytest.raises(ValueError, match="expected 60"):
        pm.split_figures(frame.iloc[:-1], grids, 3)


def test_a_setting_two_figures_share_is_run_once_and_given_to_both():
    # notebook 41's full grids: Fig. 4 at p = 0.3n over n = 50..200, Fig. 5 at n = 200 over p/n incl. 0.3
    # share (layer, n = 200, p = 0.3n) per layer; a sweep runs each setting once (S2), so the map must too.
    grids = [pm.figure_grids(c, layers=["L3", "L7"], n_values=[50, 200], p_frac=0.3, fig5_n=200,
                             p_frac_values=[0.1, 0.3]) for c in (PAPER_PROFILE, DEFAULT_SETTINGS)]
    settings = pm.map_settings(grids)
    assert len(settings) == 2 * (4 + 4 + 2 - 2)         # two shared settings per candidate
    frame = pd.DataFrame([dict(s, trial=t, value=10 * i + t) for i, s in enumerate(settings) for t in range(2)])
    cut = pm.split_figures(frame, grids, 2)
    for c in cut:
        shared4 = c["fig4"][(c["fig4"]["n"] == 200)].sort_values(["layer", "trial"])
        shared5 = c["fig5"][(c["fig5"]["p_frac"] == 0.3)].sort_values(["layer", "trial"])
        assert list(shared4["value"]) == list(shared5["value"]) and len(shared4) == 4
        assert [len(c[k]) for k in ("fig4", "fig5", "fig6")] == [8, 8, 4]
