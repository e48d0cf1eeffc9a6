"""004's BSP paper profile (decision SM72): the rule, its knobs, and the committed pick."""
import math

import numpy as np
import pandas as pd
import pytest

from simlib.core.paths import COMMITTED_RESULTS
from simlib.papers.claim import Claim, at_setting
from simlib.papers.selmcast import claims as sm_claims
from simlib.papers.selmcast import profile as prof
from simlib.papers.selmcast.experiments import bsp_trial
from simlib.pipeline.claims import fitted_marks
from simlib.pipeline.sweep import trial_seed


def test_targets_are_the_papers_orpheus_numbers():
    # §IV-B2: "from about 1.67 ... and from about 1.67" at n = 100; Fig. 5: "approximates about 1.5"
    assert prof.TARGETS == {"Fig. 4c L3": (1.67, "L3", 100, 0.3), "Fig. 4d L7": (1.67, "L7", 100, 0.3),
                            "Fig. 5 L3": (1.5, "L3", 200, 0.5), "Fig. 5 L7": (1.5, "L7", 200, 0.5)}


def test_distance_is_the_mean_absolute_log_ratio():
    ours = {"Fig. 4c L3": 1.67 * math.exp(0.1), "Fig. 4d L7": 1.67, "Fig. 5 L3": 1.5, "Fig. 5 L7": 1.5 * math.exp(-0.2)}
    assert prof.distance(ours) == pytest.approx((0.1 + 0.2) / 4)
    assert math.isnan(prof.distance({k: v for k, v in list(ours.items())[:3]}))
    assert math.isnan(prof.distance(dict(ours, **{"Fig. 5 L3": 0.0})))


def test_candidates_are_the_declared_grid():
    c = prof.candidates()
    assert len(c) == 9 * 2 * 2 == 36
    assert {p.lam for p in c} == {0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5}
    assert all(p.fitted for p in c) and not prof.DEFAULT_SETTINGS.fitted
    assert prof.DEFAULT_SETTINGS.settings() == {"lam": 0.5, "normalization": "own", "shared_x": False}


def test_l3_runs_ignore_the_ideal_so_candidates_share_them():
    # per (λ, shared x): the two L3 targets once each, the two L7 targets once per ideal -> 6 runs
    assert len(prof.search_settings(prof.candidates())) == 9 * 2 * 6
    a, b = prof.Profile(0.25, "own", False), prof.Profile(0.25, "L3", False)
    assert prof.target_setting("Fig. 4c L3", a) == prof.target_setting("Fig. 4c L3", b)
    assert prof.target_setting("Fig. 4d L7", a) != prof.target_setting("Fig. 4d L7", b)
    s = prof.target_setting("Fig. 5 L7", b, fig5_n=20)
    assert (s["n"], s["p_frac"], s["layer"], s["schemes"]) == (20, 0.5, "L7", ["orpheus"])


def _table(rows):
    return pd.DataFrame(rows, columns=["lam", "normalization", "shared_x", "distance"])


def test_pick_takes_the_smallest_distance():
    t = _table([(0.5, "own", False, 0.3), (0.25, "L3", True, 0.01), (0.3, "own", False, 0.02)])
    assert prof.pick(t).settings() == {"lam": 0.25, "normalization": "L3", "shared_x": True}


def test_ties_go_to_the_candidate_nearest_the_stated_reading():
    t = _table([(0.2, "own", False, 0.05), (0.25, "L3", True, 0.05), (0.25, "L3", False, 0.05 + 1e-12),
                (0.25, "own", True, 0.05)])
    # the larger λ first, then the own ideal, then no shared x
    assert prof.pick(t).settings() == {"lam": 0.25, "normalization": "own", "shared_x": True}
    t2 = _table([(0.25, "L3", True, 0.05), (0.25, "L3", False, 0.05)])
    assert prof.pick(t2).settings() == {"lam": 0.25, "normalization": "L3", "shared_x": False}
    with pytest.raises(ValueError, match="distance"):
        prof.pick(_table([(0.25, "L3", True, float("nan"))]))


def test_search_table_has_every_target_its_residual_and_the_distance():
    vals = {"Fig. 4c L3": 2.0, "Fig. 4d L7": 1.67, "Fig. 5 L3": 1.5, "Fig. 5 L7": 1.2}
    fake = lambda s: vals[[t for t in prof.TARGETS if prof.target_setting(t, p0) == s][0]]  # noqa: E731
    p0 = prof.Profile(0.3, "L3", False)
    t = prof.search_table([p0], fake)
    row = t.iloc[0]
    assert row["Fig. 4c L3 residual"] == pytest.approx(math.log(2.0 / 1.67))
    assert row["Fig. 5 L7 paper"] == 1.5
    assert row["distance"] == pytest.approx((math.log(2.0 / 1.67) + math.log(1.5 / 1.2)) / 4)
    assert prof.candidate_row(t, p0)["lam"] == 0.3


def test_profile_rejects_values_outside_the_declared_ranges():
    with pytest.raises(ValueError, match="lam"):
        prof.Profile(1.0, "own", False)
    with pytest.raises(ValueError, match="normalization"):
        prof.Profile(0.25, "L7", False)
    with pytest.raises(ValueError, match="shared_x"):
        prof.Profile(0.25, "own", "yes")


def _orpheus(setting, trials=4):
    return np.mean([bsp_trial(setting, trial_seed(0, t))["orpheus_ct_norm"] for t in range(trials)])


def test_each_knob_changes_orpheus_as_its_entry_says():
    base = prof.Profile(0.5, "own", False)
    small = dict(fig4_n=20)
    s = prof.target_setting("Fig. 4c L3", base, **small)
    # λ (SM14): a narrower spread makes Orpheus's slowest egress less slow; at L3 it tends to ~1/(1 - λ)
    narrow = _orpheus(prof.target_setting("Fig. 4c L3", prof.Profile(0.25, "own", False), **small))
    assert narrow < _orpheus(s)
    # the ideal (SM1): at L7 the L3 t* is no larger than the L7 one, so the L3 ideal never lowers the time;
    # at L3 the two ideals are one run
    own7 = _orpheus(prof.target_setting("Fig. 4d L7", base, **small))
    l3_7 = _orpheus(prof.target_setting("Fig. 4d L7", prof.Profile(0.5, "L3", False), **small))
    assert l3_7 > own7
    # shared x (B2): the same egress draws, the ingresses follow them; at L7 (ingress-bound) another time
    shared = prof.target_setting("Fig. 4d L7", prof.Profile(0.5, "own", True), **small)
    assert _orpheus(shared) != own7
    assert prof.at_profile([dict(n=20, lam=0.5)], prof.Profile(0.25, "L3", True)) == [
        dict(n=20, lam=0.25, normalization="L3", shared_x=True)]


def test_fitted_claims_are_the_ledgers_orpheus_rows_and_are_marked_at_the_profile_only():
    names = {num.claim for num in sm_claims._numbers(100)}
    assert set(prof.FITTED_CLAIMS) <= names
    assert fitted_marks()["004"][0] == (prof.FIT_RULE, prof.FITTED_CLAIMS)
    c = Claim("004", "Fig. 5 L3", "as p grows Orpheus -> about 1.5 (L3)", "≈ 1.5", "1.47", direction=True, tolerance="within 10 %",
              magnitude=True)
    other = Claim("004", "Fig. 6", "L3, μ = 1/p: SelMcast selects more receivers than Orpheus", "≈ +33 %", "+30 %", tolerance="within 10 %",
                  direction=True, magnitude=True)
    from simlib.papers.claim import mark_fitted
    rule, statements = fitted_marks()["004"][0]
    at_p = mark_fitted(at_setting([c, other], "profile"), rule, statements, "004")
    assert [x.fitted for x in at_p] == ["SM72", ""]
    assert [x.fitted for x in mark_fitted([c], rule, statements, "004")] == [""]


def test_committed_profile_is_the_rules_pick_from_the_committed_search():
    path = COMMITTED_RESULTS / prof.SEARCH_TABLE
    if not path.exists():
        pytest.skip("notebook 47 not yet reproduced (its search table is written by the full reproduction)")
    assert prof.pick(pd.read_csv(path)).settings() == prof.PAPER_PROFILE.settings()
