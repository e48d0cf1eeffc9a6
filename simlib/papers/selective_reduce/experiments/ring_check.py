"""Pipeline example: a ring all-reduce simulated as flows vs. seed 000 Eq. (2).

One trial draws seed 000 bandwidths (round(20u, 3) Gbps, u ~ U[lam, 1]) for
``n`` workers, picks ``k`` disjoint random groups of ``m`` workers, runs their
ring all-reduces concurrently on one big switch, and reports the simulated
time of each group against Eq. (2)'s exact and approximate forms.  With
disjoint groups the port sets do not overlap, so the simulation must equal
the exact form; the approximate form overestimates by ``2 alpha + 2v/(m b)``.
"""
from __future__ import annotations

import numpy as np

from simlib.papers.selective_reduce.bandwidth import selective_reduce_bandwidths
from simlib.core.collectives import RingAllReduce
from simlib.core.costmodels import ring_allreduce_time
from simlib.core.events import Simulator
from simlib.core.network import FlowNetwork
from simlib.core.topology import BigSwitch
from simlib.core.units import MB, ms
from simlib.core.validate import check_int, check_real

__all__ = ["trial"]


def trial(params: dict, seed: np.random.SeedSequence) -> dict:
    """Params: n (workers), m (group size), groups (k), lam, alpha_ms, model_mb.
    Returns mean simulated time (s) and the max relative error of both Eq. (2) forms."""
    n = check_int("n", params["n"], 2)
    m = check_int("m", params["m"], 1, n)
    k = check_int("groups", params.get("groups", 1), 1)
    if k * m > n:
        raise ValueError(f"groups * m must be <= n ({n}), got {k} * {m}")
    lam = check_real("lam", params.get("lam", 0.05), 0.0, 1.0)
    alpha = check_real("alpha_ms", params.get("alpha_ms", 1.0), 0.0) * ms
    v = check_real("model_mb", params.get("model_mb", 500.0), 0.0) * MB
    rng = np.random.default_rng(seed)
    bw = selective_reduce_bandwidths(n, lam=lam, rng=rng)
    topo = BigSwitch.symmetric(bw)
    sim = Simulator()
    net = FlowNetwork(topo.capacities, sim)
    perm = rng.permutation(n)
    groups = [perm[i * m:(i + 1) * m].tolist() for i in range(k)]
    ops = [RingAllReduce(sim, net, topo, g, v, alpha) for g in groups]
    sim.run()
    sim_t = np.array([op.finish_time - op.start_time for op in ops])
    exact = np.array([ring_allreduce_time(bw[g], v, alpha, "exact") for g in groups])
    approx = np.array([ring_allreduce_time(bw[g], v, alpha, "approx") for g in groups])
    return {
        "sim_time_s": float(sim_t.mean()),
        "eq2_exact_s": float(exact.mean()),
        "eq2_approx_s": float(approx.mean()),
        "rel_err_exact": float(np.max(np.abs(sim_t - exact) / exact)) if m > 1 else 0.0,
        "rel_err_approx": float(np.max(np.abs(sim_t - approx) / approx)) if m > 1 else 0.0,
        "events": int(sim.events_run),
    }
