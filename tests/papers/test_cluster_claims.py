"""Observations on the 000/002 cluster schemes (notebooks 20, 90) on hand-built frames."""
import numpy as np
import pandas as pd
import pytest

from simlib.papers import cluster_claims as C


def mixing(sr=(0.9, 0.95), pr=(0.8, 0.8)):
    rows = []
    for n, s, p in zip((40, 80), sr, pr):
        rows += [dict(scheme="selective", n=n, rho=s, trial=0), dict(scheme="partial", n=n, rho=p, trial=0)]
    return pd.DataFrame(rows)


def test_scheme_mixing_worse_at_every_n_and_a_tie():
    (obs,) = C.scheme_mixing(mixing())
    assert obs.kind == "observation" and obs.note.startswith("SR's median rho is above PR's at every n")
    assert obs.our_value == "n=40: SR 0.900 vs PR 0.800, n=80: SR 0.950 vs PR 0.800"
    (obs,) = C.scheme_mixing(mixing(sr=(0.9, 0.8)))            # equal at n = 80: not above
    assert obs.note.startswith("SR's median rho is NOT above")
    assert C.scheme_mixing(mixing().query("scheme == 'partial'")) == []


def tta(times, duration=100.0):
    """``times[scheme]`` = per-trial times to the target (NaN: never); ladder 80 % = the same times,
    90 % = twice them (censored beyond the run)."""
    rows = []
    for scheme, ts in times.items():
        for t, x in enumerate(ts):
            x90 = 2 * x if 2 * x <= duration else np.nan
            rows.append(dict(trace="cnn", n=40, scheme=scheme, trial=t, time_to_target_s=x, time_to_acc80_s=x,
                             time_to_acc90_s=x90, train_model="softmax", target_acc=0.85, train_lr=0.1,
                             train_batch=32))
    return pd.DataFrame(rows)


def test_time_to_accuracy_observations_by_hand():
    df = tta({"selective": [10.0, 10.0], "partial": [20.0, np.nan], "allreduce": [10.0, 10.0]})
    rows = {c.claim: c for c in C.time_to_accuracy(df, duration_s=100.0)}
    pr = rows["selective reduce reaches the target accuracy sooner than partial reduce"]
    # paired ratios 2 and > 10 (PR censored at 100 s): the median is at least 6, not 6
    assert pr.our_value == "median PR/SR time ratio ≥ 6.00× over n, traces"
    assert "at every (trace, n): yes" in pr.note and "1 of 2 pairs censored (numerator 1)" in pr.note and "softmax model, target 85%, lr 0.1, batch 32, 2 trials" in pr.note
    ar = rows["selective reduce reaches the target accuracy sooner than all reduce"]
    assert "at every (trace, n): no" in ar.note                 # a ratio of exactly 1 is not faster
    lad = rows["PR/SR time to 90% test accuracy"]
    assert lad.our_value == "median paired ratio ≥ 3.50× over n, traces"      # 40/20 and > 100/20
    assert lad.note.startswith("PR reached it in 50% of runs, SR in 100%; 1 of 2 pairs censored")
    # both schemes censored in every pair: n/a, never 1.00×
    both = tta({"selective": [np.nan, np.nan], "partial": [np.nan, np.nan]})
    rows = {c.claim: c for c in C.time_to_accuracy(both, duration_s=100.0)}
    pr = rows["selective reduce reaches the target accuracy sooner than partial reduce"]
    assert pr.our_value == "median PR/SR time ratio n/a over n, traces"
    assert "every (trace, n): undetermined" in pr.note
    assert all(c.kind == "observation" for c in rows.values())


def test_ladder_conclusion_boundary_at_the_clear_gain():
    # PR/SR = exactly 1.05 at 80 %: not "clearly faster", and counts as "no gain above 1.05"
    df = tta({"selective": [20.0, 20.0], "partial": [21.0, 21.0]})
    lines = C.ladder_conclusion(df, duration_s=100.0)
    assert lines[0] == ("At the notebook's target (85%) the median paired PR/SR ratio is 1.05–1.05× over "
                        "(trace, n) (no pair of 2 censored).")
    assert lines[1].endswith("targets: none")
    assert lines[2].endswith("targets: 80%, 90%")
    df = tta({"selective": [20.0, 20.0], "partial": [21.02, 21.02]})
    lines = C.ladder_conclusion(df, duration_s=100.0)
    assert lines[1].endswith("targets: 80%, 90%") and lines[2].endswith("targets: none")
    assert lines[3].endswith("targets: none")
    assert lines[4] == "Partial reduce / selective reduce reached the target in: 80%: 100% / 100%, 90%: 100% / 100%"
    # PR censored in one of two pairs at 90 % (ratios 2 and > 2.5): clearly faster whatever its time
    df = tta({"selective": [20.0, 40.0], "partial": [40.0, 60.0]})
    lines = C.ladder_conclusion(df, duration_s=100.0)
    assert lines[1].endswith("targets: 80%, 90%")
    # SR censored in one of two pairs at 90 % (ratios 1 and < 0.9): no gain anywhere, as a bound
    df = tta({"selective": [20.0, 60.0], "partial": [20.0, 45.0]})
    lines = C.ladder_conclusion(df, duration_s=100.0)
    assert lines[2].endswith("targets: 80%, 90%") and lines[3].endswith("targets: none")


def test_bad_frames():
    with pytest.raises(ValueError, match="time_to_target_s"):
        C.time_to_accuracy(pd.DataFrame({"trace": ["a"], "n": [1], "scheme": ["partial"], "trial": [0]}), 100.0)
    with pytest.raises(ValueError, match="no rows"):
        C.scheme_mixing(mixing().iloc[:0])
