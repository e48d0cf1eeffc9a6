"""Seed 003's claims module on hand-built sweep frames: every verdict and its boundary.

Rounds are chosen so the paired ratios are exact: e.g. 15 / 10 = 1.5 is exactly the
"remarkable" threshold, 10 / 10 = 1 a tie (never a win).
"""
import pandas as pd
import pytest

from simlib.papers.fmreduce import claims as C
from simlib.papers.fmreduce.scenario import VARIANTS

BASE = 10


def grid(rounds=None, p=50, n=60, trials=2, trace="transformer", extra=None):
    """A sweep-shaped frame: every Fig. 2 variant x trial; ``rounds(v, trial)`` (default BASE)."""
    rows = []
    for v in VARIANTS:
        for t in range(trials):
            r = BASE if rounds is None else rounds(v, t)
            rows.append(dict(v, n=n, p=p, trace=trace, trial=t, rounds=r, compute_s=1.0, form_s=0.5,
                             scatter_s=0.2, broadcast_s=0.3, **(extra or {})))
    return pd.DataFrame(rows)


def paper_like(v, t, lp_mode=0.9, reducers=1.2):
    """Rounds where every Fig. 2 direction holds: LP, FCFS and FMReduce add 30 %, 10 %, 20 %;
    NB adds 10 % with the even split and multiplies by ``lp_mode`` with LP."""
    r = 100.0
    r *= 1.3 if v["split"] == "lp" else 1.0
    r *= 1.1 if v["sharing"] == "fcfs" else 1.0
    r *= reducers if v["reducers"] == "all" else 1.0
    if v["mode"] == "nonblocking":
        r *= lp_mode if v["split"] == "lp" else 1.1
    return r


def sweep(per_p):
    """A p sweep: ``per_p`` maps p -> rounds function."""
    return pd.concat([grid(f, p=p) for p, f in per_p.items()], ignore_index=True)


def by_claim(rows):
    return {c.claim: c for c in rows}


FULL = sweep({50: paper_like, 60: lambda v, t: paper_like(v, t, lp_mode=1.1, reducers=1.0)})


def test_rules_boundaries():
    one = pd.DataFrame({"median": [1.0]})
    assert not C.beats(one) and not C.loses(one)              # a ratio of exactly 1 is a tie
    assert C.beats(pd.DataFrame({"median": [1.0 + 1e-12, 2.0]}))
    assert C.loses(pd.DataFrame({"median": [1.0 - 1e-12]}))
    assert not C.beats(pd.DataFrame({"median": []})) and not C.loses(pd.DataFrame({"median": []}))
    assert C.gain_at_least(pd.DataFrame({"median": [1.5, 2.0]}), 1.5)    # closed at the threshold
    assert not C.gain_at_least(pd.DataFrame({"median": [1.5 - 1e-12, 2.0]}), 1.5)


def test_every_direction_holds_on_paper_like_runs():
    rows = by_claim(C.fig2(grid(paper_like), FULL))
    claims = [c for c in rows.values() if c.kind == "claim"]
    assert len(claims) == 6
    remarkable = next(c for c in claims if "remarkable" in c.claim)
    assert not remarkable.direction                      # 1.2x < 1.5x
    assert remarkable.cause.startswith("paper ambiguity: FM10")
    assert all(c.holds for c in claims if c is not remarkable)
    assert all(c.magnitude is None for c in claims)      # the paper gives no number


def test_a_tied_pair_fails_the_split_claim_and_is_named():
    def tie_one(v, t):   # FM NB FCFS: LP = even -> ratio exactly 1
        r = paper_like(v, t)
        if (v["reducers"], v["mode"], v["sharing"]) == ("all", "nonblocking", "fcfs") and v["split"] == "lp":
            r = paper_like(dict(v, split="even"), t)
        return r
    c = by_claim(C.fig2(grid(tie_one), FULL))["network-aware beats evenly divided in every otherwise-equal pair"]
    assert not c.direction and c.cause.startswith("unexplained")
    assert "FM NB FCFS" in c.note


def test_mode_claim_with_lp_tie_and_its_cause_from_other_traces():
    tie = grid(lambda v, t: paper_like(v, t, lp_mode=1.0))
    c = by_claim(C.fig2(tie, FULL))["non-blocking beats blocking unless the split is network-aware (p < n)"]
    assert not c.direction and c.cause.startswith("unexplained")
    other = grid(paper_like, trace="cnn")
    c = by_claim(C.fig2(tie, FULL, other))["non-blocking beats blocking unless the split is network-aware (p < n)"]
    assert not c.direction and c.cause.startswith("stand-in trace") and "cnn" in c.cause
    # blocking winning with LP just below a tie holds
    c = by_claim(C.fig2(grid(lambda v, t: paper_like(v, t, lp_mode=0.99)), FULL))[
        "non-blocking beats blocking unless the split is network-aware (p < n)"]
    assert c.holds


def test_mode_claim_at_p_equal_n_needs_non_blocking_everywhere():
    # at p = n the claim is "NB beats B" in every pair, LP included
    rows = by_claim(C.fig2(grid(lambda v, t: paper_like(v, t, lp_mode=1.1, reducers=1.0), p=60), FULL))
    assert rows["non-blocking beats blocking unless the split is network-aware (p < n)"].holds
    full_tie = sweep({60: lambda v, t: paper_like(v, t, lp_mode=1.0, reducers=1.0)})
    c = by_claim(C.fig2(grid(paper_like), full_tie))["at p = n non-blocking beats blocking"]
    assert not c.direction
    assert "at p = n non-blocking beats blocking" not in by_claim(C.fig2(grid(paper_like), sweep({50: paper_like})))


def test_remarkable_threshold_is_closed_and_says_where_in_p():
    at = by_claim(C.fig2(grid(lambda v, t: paper_like(v, t, reducers=1.5)), FULL))
    key = next(k for k in at if "remarkable" in k)
    assert at[key].holds                                  # exactly 1.5x counts
    below = by_claim(C.fig2(grid(lambda v, t: paper_like(v, t, reducers=1.49)), FULL))
    assert not below[key].direction
    p_sweep = sweep({10: lambda v, t: paper_like(v, t, reducers=2.0),
                     20: lambda v, t: paper_like(v, t, reducers=1.5),
                     30: lambda v, t: paper_like(v, t, reducers=1.49),
                     60: lambda v, t: paper_like(v, t, lp_mode=1.1, reducers=1.0)})
    rows = by_claim(C.fig2(grid(paper_like), p_sweep))
    where = next(c for c in rows.values() if c.kind == "observation" and "p where" in c.claim)
    assert where.our_value == "p in {10, 20}"
    assert "at p in {10, 20}" in rows[key].our_value
    none = by_claim(C.fig2(grid(paper_like), FULL))
    assert next(c for c in none.values() if "p where" in c.claim).our_value == "no p"


def test_reducers_direction_row_fails_on_a_tie():
    rows = by_claim(C.fig2(grid(lambda v, t: paper_like(v, t, reducers=1.0)), FULL))
    c = rows["FMReduce (n reducers) beats the original partial reduce in every blocking pair"]
    assert not c.direction and c.cause.startswith("unexplained")


def test_p_sweep_observations_list_the_failing_points():
    bad = sweep({40: lambda v, t: paper_like(v, t, lp_mode=1.0),
                 60: lambda v, t: paper_like(v, t, lp_mode=1.1, reducers=1.0)})
    rows = by_claim(C.fig2(grid(paper_like), bad))
    mode = next(c for c in rows.values() if c.claim.startswith("pairs where the mode claim fails"))
    assert mode.our_value == "FM LP FCFS at p=40 (1.000×), FM LP FS at p=40 (1.000×)"
    assert rows["pairs where FCFS does not beat FS"].our_value == "none"

    def fcfs_tie(v, t):   # FCFS = FS in the PR B even pair: a ratio of exactly 1 is listed
        if (v["reducers"], v["split"]) == ("participants", "even"):
            v = dict(v, sharing="fs")
        return paper_like(v, t)
    rows = by_claim(C.fig2(grid(paper_like), sweep({40: fcfs_tie})))
    assert rows["pairs where FCFS does not beat FS"].our_value == "PR B even at p=40 (1.000×)"


def test_other_traces_observation():
    rows = C.fig2(grid(paper_like), FULL, pd.concat([grid(paper_like, trace="cnn"),
                                                    grid(lambda v, t: paper_like(v, t, lp_mode=1.0), trace="lstm")]))
    obs = {c.claim: c.our_value for c in rows if c.figure == "Fig. 2, other traces"}
    assert "mode 0.900–1.100× (as the paper says)" in obs["the four design choices with the cnn stand-in"]
    assert "mode 1.000–1.100× (not as the paper says)" in obs["the four design choices with the lstm stand-in"]


def test_lp_ties_observation_by_hand():
    rows = []
    for n in (12, 20):
        for t in range(2):
            for solver in ("breakpoint", "highs"):
                r = {(12, 1, "highs"): 11, (20, 0, "highs"): 9}.get((n, t, solver), 10)
                rows.append(dict(reducers="participants", mode="blocking", split="lp", sharing="fcfs", n=n,
                                 p=n // 3, trial=t, rounds=r, lp_solver=solver, duration_s=120.0))
    (obs,) = C.lp_ties(pd.DataFrame(rows))
    assert obs.kind == "observation"
    assert obs.our_value == ("per trial -10.0% to +10.0%; differ in 2 of 4 runs; median per setting "
                             "-5.0% to +5.0%")
    assert obs.note.endswith("PR B n=12 trial 1 (+10.0%), PR B n=20 trial 0 (-10.0%)")
    with pytest.raises(ValueError, match="lp_solver"):
        C.lp_ties(pd.DataFrame(rows).query("lp_solver == 'highs'"))


def test_discussion_lines():
    lines = C.discussion(grid(paper_like), FULL)
    assert lines[0].startswith("best variant: FM B LP FCFS")        # 100 * 1.3 * 1.1 * 1.2, blocking
    assert "compute + waiting for the round to form: 75%–75%" in lines[1]   # (1 + 0.5) / 2
    assert lines[2] == "  p=50: FM / PR 1.20–1.20×"


def test_bad_frames_name_the_problem():
    with pytest.raises(ValueError, match="rounds"):
        C.fig2(grid().drop(columns="rounds"), FULL)
    with pytest.raises(ValueError, match="column 'p' must hold one value"):
        C.fig2(FULL, FULL)
    with pytest.raises(ValueError, match="no rows"):
        C.fig2(grid().iloc[:0], FULL)
