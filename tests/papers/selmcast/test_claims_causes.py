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
