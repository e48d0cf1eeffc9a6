"""Read-outs of seed 003's sweeps: paired ratios per design choice, phase breakdown."""
import pandas as pd
import pytest

from simlib.papers.fmreduce.experiments import (fig2_settings, label_variants, p_sweep_settings,
                                                 paired_choice, phase_breakdown)
from simlib.papers.fmreduce.scenario import VARIANTS, Scenario


def frame(rounds_by_label):
    """A sweep-shaped frame: one row per (variant, trial) with the given rounds."""
    rows = []
    for v in VARIANTS:
        label = " ".join(("FM" if v["reducers"] == "all" else "PR", "NB" if v["mode"] == "nonblocking" else "B",
                          "LP" if v["split"] == "lp" else "even", v["sharing"].upper()))
        for t, r in enumerate(rounds_by_label.get(label, (10, 10))):
            rows.append(dict(v, trial=t, rounds=r, compute_s=1.0, form_s=0.5 * t, scatter_s=0.2, broadcast_s=0.3))
    return pd.DataFrame(rows)


def test_paired_choice_ratios_by_hand():
    # FM NB LP FCFS vs FM NB even FCFS: trials (12/10, 9/10, 15/10) -> median 1.2, min 0.9,
    # max 1.5, wins 2 of 3.  Every other pair is 10/10: ratio 1, no wins.
    df = frame({"FM NB LP FCFS": (12, 9, 15), "FM NB even FCFS": (10, 10, 10)})
    t = paired_choice(df, "split").set_index("pair")
    assert len(t) == 6 and "FM NB FCFS" in t.index
    row = t.loc["FM NB FCFS"]
    assert (row["median"], row["min"], row["max"], row["wins"]) == pytest.approx((1.2, 0.9, 1.5, 2 / 3))
    assert (t.drop("FM NB FCFS")["median"] == 1.0).all() and (t.drop("FM NB FCFS")["wins"] == 0).all()
    # mode pairs exist for FMReduce only (original partial reduce is blocking only): 4 pairs
    assert len(paired_choice(df, "mode")) == 4
    assert len(paired_choice(df, "reducers")) == 4
    with pytest.raises(ValueError, match="knob"):
        paired_choice(df, "trace")


def test_phase_breakdown_is_the_median_over_trials():
    df = frame({})
    ph = phase_breakdown(df)
    # form_s = 0.5 * trial over trials 0, 1 -> median 0.25
    assert ph[(ph.variant == "FM NB LP FCFS") & (ph.phase == "form")]["seconds"].item() == pytest.approx(0.25)
    assert set(ph.phase) == {"compute", "form", "scatter", "broadcast"}
    assert label_variants(df).nunique() == 12


def test_settings_are_valid_scenarios():
    for s in fig2_settings(n=60, p=50) + p_sweep_settings([10, 60]):
        Scenario.from_params(s)
    assert len(p_sweep_settings([10, 20, 30])) == 36


def test_lp_tie_settings_pair_the_two_solvers():
    from simlib.papers.fmreduce.experiments import lp_tie_settings

    s = lp_tie_settings([12, 30], duration_s=60.0, model_mb=200.0)
    # 2 n x 3 network-aware FCFS variants (FM B, FM NB, PR B) x 2 solvers
    assert len(s) == 12
    assert {(x["n"], x["p"]) for x in s} == {(12, 4), (30, 10)}
    assert {x["lp_solver"] for x in s} == {"breakpoint", "highs"}
    assert all(x["split"] == "lp" and x["sharing"] == "fcfs" and x["duration_s"] == 60.0 for x in s)
    for x in s:
        Scenario.from_params(x)
    assert {x["p"] for x in lp_tie_settings([3])} == {2}          # never below 2
    with pytest.raises(ValueError, match="sharing"):
        lp_tie_settings([12], sharing="fifo")
    with pytest.raises(ValueError, match="p_fraction"):
        lp_tie_settings([12], p_fraction=0.0)


def test_long_labels_spell_out_every_variant_and_pair():
    from simlib.papers.fmreduce.experiments import long_label
    from simlib.papers.fmreduce.scenario import VARIANTS, variant_label

    longs = {long_label(variant_label(**{k: v[k] for k in ("reducers", "mode", "split", "sharing")}))
             for v in VARIANTS}
    assert len(longs) == len(VARIANTS)                       # spelling out keeps variants apart
    assert long_label("FM NB LP FCFS") == "FMReduce, non-blocking, LP split, FCFS"
    assert long_label("PR B even FS") == "original PR, blocking, even split, fair sharing"
    with pytest.raises(ValueError, match="label"):
        long_label("FM XX")
