"""Seed 003's claims module on hand-built sweep frames: every verdict and its boundary.

Rounds are chosen so the paired ratios are exact: e.g. 15 / 10 = 1.5 is exactly the
"remarkable" threshold, 10 / 10 = 1 a tie (never a win).  Every trial has the same rounds unless a
test says otherwise, and a grid has 6 trials (the fewest whose sign-test interval reaches 95 %, S24),
so every interval is the point and every verdict is decided.
"""
import numpy as np
import pandas as pd
import pytest

from simlib.papers.fmreduce import claims as C
from simlib.papers.fmreduce.scenario import VARIANTS

BASE = 10


def grid(rounds=None, p=50, n=60, trials=6, trace="transformer", extra=None):
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


# ----------------------------------------------------------------------------- strength (S24)
# At 10 pairs the sign-test interval of the median is [x(2), x(9)]: the second smallest and the second
# largest per-trial ratio (2 P(Binom(10, 1/2) <= 1) = 2.1 % <= 5 % < 2 P(B <= 2) = 10.9 %).

SPLIT = "network-aware beats evenly divided in every otherwise-equal pair"


def split_ratios(ratios):
    """Paper-like rounds at len(ratios) trials, except the FM NB FCFS pair: LP / even = ratios[t]."""
    def rounds(v, t):
        if (v["reducers"], v["mode"], v["sharing"], v["split"]) == ("all", "nonblocking", "fcfs", "lp"):
            return paper_like(dict(v, split="even"), t) * ratios[t]
        return paper_like(v, t)
    return grid(rounds, trials=len(ratios))


def test_split_hand_derived_intervals_hold_fail_undecided():
    f = lambda r: by_claim(C.fig2(split_ratios(r), FULL))[SPLIT]
    # one trial below 1 but x(2) = 1.01 > 1: holds
    c = f([0.98, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06, 1.07, 1.08, 1.09])
    assert c.verdict == "holds" and c.pairs == 10 and "FM NB FCFS: 1.01–1.08×" in c.interval
    assert "FM NB FCFS: 10 pairs: 9 above 1, 1 below" in c.sides
    # median 1.015 > 1 but x(2) = 0.98: undecided, no cause
    c = f([0.97, 0.98, 0.99, 1.0, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06])
    assert c.direction and c.verdict == "undecided" and c.holds is None and c.cause == ""
    # x(9) = 0.99 < 1: fails, the pair named
    c = f([0.9, 0.91, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97, 0.99, 1.2])
    assert c.verdict == "fails" and c.cause.startswith("unexplained") and "FM NB FCFS" in c.cause


def test_remarkable_interval_is_closed_at_the_threshold():
    rem = lambda df: next(c for c in C.fig2(df, FULL) if "remarkable" in c.claim)
    exact = lambda v, t: paper_like(v, t, reducers=1.5)                  # every trial exactly 1.5x
    assert rem(grid(exact, trials=10)).verdict == "holds"
    # FMReduce / PR = 1.5 x r in pair B even FCFS: x(2) = 1.5 * 0.9 < 1.5 < x(9): undecided
    r = [0.8, 0.9, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.1, 1.2]
    def wobble(v, t):
        x = exact(v, t)
        return x * r[t] if (v["reducers"], v["mode"], v["split"], v["sharing"]) == ("all", "blocking", "even",
                                                                                      "fcfs") else x
    c = rem(grid(wobble, trials=10))
    assert c.direction and c.verdict == "undecided" and "B even FCFS: 10 pairs" in c.sides and "above 1.5" in c.sides


def test_p_equals_n_is_judged_on_its_own_grid():
    full = grid(lambda v, t: paper_like(v, t, lp_mode=1.1, reducers=1.0), p=60, trials=10)
    c = by_claim(C.fig2(grid(paper_like), FULL, p_full=full))["at p = n non-blocking beats blocking"]
    assert c.verdict == "holds" and c.pairs == 10 and "10 trials" in c.note


@pytest.mark.parametrize("seed", range(4))
def test_no_row_holds_while_a_scipy_interval_straddles(seed):
    """Noisy rounds (10 trials): where scipy's sign-test interval of a pair's median ratio straddles 1,
    the 'beats' rows that compare that pair do not hold (an independent recomputation of S24)."""
    from scipy.stats import quantile_test
    from simlib.papers.fmreduce.experiments import CHOICES, KNOBS

    rng = np.random.default_rng(seed)
    noise = rng.lognormal(0, 0.08, (len(VARIANTS), 10))
    keys = [tuple(sorted(v.items())) for v in VARIANTS]
    df = grid(lambda v, t: paper_like(v, t) * noise[keys.index(tuple(sorted(v.items()))), t], trials=10)
    rows = by_claim(C.fig2(df, FULL))
    checked = 0
    for knob, claim in (("split", SPLIT), ("sharing", "FCFS beats FS in every otherwise-equal pair"),
                        ("reducers", "FMReduce (n reducers) beats the original partial reduce in every blocking pair")):
        first, second = CHOICES[knob]
        others = [k for k in KNOBS if k != knob]
        wide = df.pivot_table(index=others + ["trial"], columns=knob, values="rounds")
        for _, g in (wide[first] / wide[second]).dropna().groupby(level=others):
            ci = quantile_test(g.to_numpy(), q=1.0, p=0.5).confidence_interval(0.95)
            if ci.low < 1 < ci.high:
                assert rows[claim].holds is not True, (knob, claim)
                checked += 1
                break
    assert checked >= 1


def marked_rounds(flip=None):
    """Rounds built from notebook 30's paper marks alone: the first option of each knob has its rounds
    multiplied by the knob's factor in the pairs a mark says lie above 1 and divided by it where it says
    below (the side of knob ``flip``'s marks swapped); the factors differ so every pair's ratio stays on
    the side its own knob's mark gives."""
    factor = {"split": 1.3, "sharing": 1.1, "mode": 1.1, "reducers": 1.2}
    marks = {k: C.paper_marks(k) for k in C.PAPER_SIDES}

    def rounds(v, t):
        r = 100.0
        for k, first in (("split", "lp"), ("sharing", "fcfs"), ("mode", "nonblocking"), ("reducers", "all")):
            if v[k] != first:
                continue
            for _, split, side, _ in marks[k]:
                if split is None or v["split"] == split:
                    up = (side == "above") != (k == flip)
                    r = r * factor[k] if up else r / factor[k]
        return r
    return rounds


def test_the_paper_marks_are_the_claims_directions():
    """Runs on the marks' sides make every Fig. 2 direction row hold; moving one knob's marks to the other
    side makes exactly that row fail.  The marks sit at the scenario's stated p (Fig. 2's caption: 50)
    and carry no number: the paper gives none."""
    p = C.paper_p()
    assert p == 50 and all(m[0] == p for k in C.PAPER_SIDES for m in C.paper_marks(k))
    rows = {c.claim: c for c in C.fig2(grid(marked_rounds()), FULL) if c.kind == "claim" and "remarkable" not in c.claim
            and c.figure == "Fig. 2"}
    assert len(rows) == 4 and all(c.direction for c in rows.values())
    assert {c.paper_value for c in rows.values()} == {C.PAPER_VALUES[k] for k in C.PAPER_SIDES}
    for k, words in (("split", "network-aware"), ("sharing", "FCFS"), ("mode", "non-blocking"),
                     ("reducers", "FMReduce")):
        flipped = {c.claim: c.direction for c in C.fig2(grid(marked_rounds(flip=k)), FULL)
                   if c.claim in rows}
        assert [name for name, ok in flipped.items() if not ok] == [next(r for r in rows if r.startswith(words))], k
    assert all("paper" in m[3] and "1" in m[3] for k in C.PAPER_SIDES for m in C.paper_marks(k))
    with pytest.raises(ValueError, match="knob must be one of"):
        C.paper_marks("p")
