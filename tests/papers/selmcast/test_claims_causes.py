"""The structural arguments behind 004's causes (issues 41, 43): each cause that rests on one is tested here."""
import numpy as np
import pytest

from simlib.papers.selmcast.ssp_selection import Plan, select_ssp


def _receivers_kept(eta, remaining, layer="L3", n=6):
    """Worker 0 multicasts to workers 1-4, each with ``remaining`` of its volume still to send (one L3
    flow: the same for all); workers 2-4 have slow egress (1 Gb/s against 40), p = 1; worker 5 becomes
    ready.  Returns how many receivers worker 0 keeps after Algorithm 2."""
    x = np.zeros((n, n), np.int8)
    vrem = np.zeros((n, n))
    v = np.full(n, 8e9)
    x[0, 1:5] = 1
    vrem[0, 1:5] = remaining * v[0]
    b_eg = np.array([40e9, 40e9, 1e9, 1e9, 1e9, 40e9])
    in_g = np.zeros(n, bool)
    in_g[0] = True
    plan = Plan(x, vrem, v, np.ones(n, np.int64), np.full(n, 40e9), b_eg, np.zeros(n), np.zeros((n, n), np.int64),
                np.zeros((n, n), bool), in_g, np.zeros(n))
    select_ssp(5, plan, eta=eta, layer=layer)
    return int(plan.x[0].sum())


@pytest.mark.parametrize("remaining", [0.2, 0.5, 0.9])
def test_l3_eta_rule_keeps_all_receivers_or_none(remaining):
    """Fig. 11's mechanism: line 9 keeps (i, j) when v_ij < eta v_i; under L3 every receiver has the same
    v_ij, so eta keeps all four receivers exactly when more than (1 - eta) of the volume is sent
    (eta > remaining), and otherwise none: the slow receivers are then dropped down to p = 1."""
    for eta in (0.0, 0.25, 0.5, 0.75, 1.0):
        kept = _receivers_kept(eta, remaining)
        assert kept == (4 if eta > remaining else 1), (eta, remaining, kept)


def _fig13(cnn_peaks_inside=True, mt_grows=True):
    import pandas as pd
    base = dict(n=50, duration_s=600.0, p=0.3, k=4, ssp=4, eta=0.75, blocked_share=0.1, rounds_per_worker=100.0)
    gammas = (0.0, 0.5, 1.0)
    rows = []
    for t in ("lstm", "transformer", "cnn"):
        inside = t == "cnn" and cnn_peaks_inside
        sel_u = (0.60, 0.65, 0.62) if inside else (0.60, 0.57, 0.55)
        sel_mt = (0.5, 0.45, 0.5) if inside or not mt_grows else (0.5, 0.6, 0.7)
        for trial in range(6):
            for g, u, mt, pre in zip(gammas, sel_u, sel_mt, (0.25, 0.30, 0.34)):
                rows.append({**base, "trace": t, "trial": trial, "gamma": g, "scheme": "selmcast",
                             "npu_utilization": u, "avg_scale": 0.55 - 0.02 * g, "avg_multicast_s": mt,
                             "preempted_share": pre})
                rows.append({**base, "trace": t, "trial": trial, "gamma": g, "scheme": "orpheus",
                             "npu_utilization": 0.5 + 0.05 * (g == 0.5), "avg_scale": 0.3,
                             "avg_multicast_s": 0.4 - 0.1 * (g == 0.5), "preempted_share": 0.0})
    return pd.DataFrame(rows)


def test_fig13_utilization_curve_cause_carries_the_measured_multicast_times():
    from simlib.papers.selmcast import ssp_claims as sc
    claims = sc.fig13(_fig13())
    c = next(c for c in claims if c.claim.startswith("SelMcast's (\"a similar result\") utilization climbs"))
    assert c.verdict == "fails" and c.cause.startswith("stand-in trace: T1: on the lstm and transformer stand-ins")
    assert "lstm 0.50 -> 0.70 s" in c.cause and "lstm 25 -> 34 %" in c.cause and "shortest at gamma 0.5/0.5" in c.cause
    # the measurement must show it: SelMcast's multicast time not growing, or cnn failing too -> no such cause
    for frame in (_fig13(mt_grows=False), _fig13(cnn_peaks_inside=False)):
        c = next(c for c in sc.fig13(frame) if c.claim.startswith("SelMcast's (\"a similar result\") utilization"))
        assert c.cause.startswith("unexplained")
