"""The paper's "Optimal" baseline: model (12) by lexicographic optimization with HiGHS (seed 004 §III-A).

Stage 1 minimizes t subject to (2)-(5), (8)-(11); stage 2 maximizes sum x_ij
subject to the same constraints and t <= t* (§III-A2).  The paper uses Gurobi
with a 60 s limit per solve; we use HiGHS through :func:`scipy.optimize.milp`
with the same default limit, and record each stage's status, MIP gap and
wall time.  A stage that hits the limit reports its incumbent and says so
(``status`` "time_limit"); if stage 1 found no incumbent the result has
``x = None``.

Variables: x_ij for i != j (constraint (4) by construction) and t.
(10) for L3 is the epigraph of s_i = max_j v_ij x_ij, one row per pair:
b_i^I t >= v_ij x_ij; for L7 one row per sender: b_i^I t >= sum_j v_ij x_ij.
(11): b_j^E t >= sum_i v_ij x_ij.  Volumes are scaled by max v and bandwidths
by max b so that t is O(n) in the solver (reported back in seconds).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from simlib.core.validate import check_choice, check_real
from simlib.papers.selmcast.bsp import check_selection_inputs
from simlib.papers.selmcast.execute import plan_model_time

__all__ = ["MilpStage", "MilpOptimum", "optimal_milp"]

_STATUS = {0: "optimal", 1: "time_limit", 2: "infeasible", 3: "unbounded", 4: "error"}
# Stage 2 keeps t <= t1 * (1 + _T_SLACK): room for the solver's feasibility tolerance only.
_T_SLACK = 1e-9


@dataclass(frozen=True)
class MilpStage:
    """One solve: ``status`` ("optimal", "time_limit", ...), ``objective`` (in the
    stage's units: seconds for stage 1, receivers for stage 2; nan without an
    incumbent), relative ``mip_gap`` (nan if unknown) and wall ``seconds``."""

    status: str
    objective: float
    mip_gap: float
    seconds: float


@dataclass(frozen=True)
class MilpOptimum:
    """``x`` (n x n bool or None), ``t_star`` (model time of ``x``, s), ``n_receivers``,
    the two stages, ``seconds`` in total and ``proven`` (both stages optimal)."""

    x: np.ndarray | None
    t_star: float
    n_receivers: int
    stage1: MilpStage
    stage2: MilpStage | None
    seconds: float

    @property
    def proven(self) -> bool:
        return self.stage1.status == "optimal" and self.stage2 is not None and self.stage2.status == "optimal"


def _solve(c, integrality, bounds, constraints, time_limit_s, gap):
    t0 = time.perf_counter()
    res = milp(c, integrality=integrality, bounds=bounds, constraints=constraints,
               options={"time_limit": time_limit_s, "mip_rel_gap": gap, "disp": False})
    secs = time.perf_counter() - t0
    status = _STATUS.get(res.status, "error")
    mip_gap = float(getattr(res, "mip_gap", np.nan) if getattr(res, "mip_gap", None) is not None else np.nan)
    return res, status, mip_gap, secs


def optimal_milp(b_in, b_eg, p, v, layer: str = "L3", forced=None, *, time_limit_s: float = 60.0,
                 mip_rel_gap: float = 1e-6) -> MilpOptimum:
    """Solve model (12) lexicographically with HiGHS; ``time_limit_s`` per stage (default 60 s,
    as the paper's Gurobi runs); ``mip_rel_gap`` is HiGHS's relative optimality gap.

    Same plan inputs as :func:`simlib.papers.selmcast.bsp.selmcast_bsp` (v may differ per sender).
    """
    t_start = time.perf_counter()
    layer = check_choice("layer", layer, ("L3", "L7"))
    time_limit_s = check_real("time_limit_s", time_limit_s, 0.0, lo_open=True)
    mip_rel_gap = check_real("mip_rel_gap", mip_rel_gap, 0.0, 1.0)
    b_in, b_eg, p, v_arr, forced, _ = check_selection_inputs(b_in, b_eg, p, v, forced)
    n = b_in.size
    v_ref, b_ref = v_arr.max(), max(b_in.max(), b_eg.max())
    vs, bi, be = v_arr / v_ref, b_in / b_ref, b_eg / b_ref
    t_unit = v_ref / b_ref                                # seconds per solver time unit

    ii, jj = np.nonzero(~np.eye(n, dtype=bool))          # variable k <-> pair (ii[k], jj[k])
    m = ii.size
    t_col = m                                             # index of t
    nvar = m + 1
    k = np.arange(m)
    rows = []
    # (3) sum_j x_ij >= p_i
    A3 = sp.csr_array((np.ones(m), (ii, k)), shape=(n, nvar))
    rows.append(LinearConstraint(A3, lb=p.astype(float), ub=np.inf))
    # (10) ingress
    if layer == "L3":   # b_i t - v_i x_ij >= 0 for every pair (epigraph of the max in (9))
        A10 = sp.csr_array((np.concatenate([-vs[ii], bi[ii]]), (np.concatenate([k, k]), np.concatenate([k, np.full(m, t_col)]))),
                           shape=(m, nvar))
    else:               # b_i t - sum_j v_i x_ij >= 0
        A10 = sp.csr_array((np.concatenate([-vs[ii], bi]), (np.concatenate([ii, np.arange(n)]),
                                                            np.concatenate([k, np.full(n, t_col)]))), shape=(n, nvar))
    rows.append(LinearConstraint(A10, lb=0.0, ub=np.inf))
    # (11) egress: b_j t - sum_i v_i x_ij >= 0
    A11 = sp.csr_array((np.concatenate([-vs[ii], be]), (np.concatenate([jj, np.arange(n)]),
                                                        np.concatenate([k, np.full(n, t_col)]))), shape=(n, nvar))
    rows.append(LinearConstraint(A11, lb=0.0, ub=np.inf))
    lb = np.zeros(nvar)
    lb[:m] = forced[ii, jj]                               # (5) forced pairs
    ub = np.ones(nvar)
    ub[t_col] = np.inf                                    # (8): t > 0 follows from p_i >= 1 and (10)
    integrality = np.ones(nvar)
    integrality[t_col] = 0

    # stage 1: minimize t
    c1 = np.zeros(nvar)
    c1[t_col] = 1.0
    res1, st1, gap1, s1 = _solve(c1, integrality, Bounds(lb, ub), rows, time_limit_s, mip_rel_gap)
    stage1 = MilpStage(st1, float(res1.x[t_col] * t_unit) if res1.x is not None else np.nan, gap1, s1)
    if res1.x is None:
        return MilpOptimum(None, np.nan, 0, stage1, None, time.perf_counter() - t_start)

    # stage 2: maximize sum x subject to t <= t1 (the stage-1 incumbent)
    ub2 = ub.copy()
    ub2[t_col] = res1.x[t_col] * (1 + _T_SLACK)
    c2 = np.zeros(nvar)
    c2[:m] = -1.0
    res2, st2, gap2, s2 = _solve(c2, integrality, Bounds(lb, ub2), rows, time_limit_s, mip_rel_gap)
    sol = res2.x if res2.x is not None else res1.x        # stage 1's plan is feasible for stage 2
    stage2 = MilpStage(st2, float(-res2.fun) if res2.x is not None else np.nan, gap2, s2)
    x = np.zeros((n, n), dtype=bool)
    x[ii, jj] = sol[:m] > 0.5
    return MilpOptimum(x, plan_model_time(x, v_arr, b_in, b_eg, layer), int(x.sum()), stage1, stage2,
                       time.perf_counter() - t_start)
