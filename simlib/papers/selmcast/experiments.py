"""Trial functions of the SelMcast BSP notebooks (seed 004 §II-C Fig. 1, §IV-B Figs. 4-6).

Each ``*_trial(params, rng_seed) -> dict`` is a :func:`simlib.pipeline.sweep.run_sweep`
trial: ``params`` is one setting, ``rng_seed`` a SeedSequence; fixed children
(:func:`simlib.core.seeding.child_seed`) give the bandwidths (key 0) and
Orpheus's draws (key 1), so every scheme of a trial sees the same switch.

:func:`bsp_trial` runs every scheme on one instance and returns one wide row
(``<scheme>_<metric>``); :func:`long_by_scheme` turns a frame of such rows into
one row per (trial, scheme).  Metrics per scheme:

* ``ct_norm``: executed completion time / the ideal time of the setting's
  ``normalization`` (decision SM1): ``"own"`` (default) divides by t*, the
  stage-1 optimum of model (12) with D = {} for the trial's own layer -- the
  same, selection-independent ideal for every scheme; ``"L3"`` divides by the
  t* of L3 multicast on the same instance (for an L3 trial the same number;
  for L7 the reading under which both layers share the L3 ideal);
  ``ct_norm_plan``: executed / the plan's own model time (the third reading
  of "ideal", SM1);
* ``scale``: receivers per multicast / n; ``receivers``: receivers per worker;
* ``time_ms``: wall time of the selection itself (ms);
* ``t_model_s``, ``ct_s``: the plan's model time of (10)-(11) and its executed time.

The instance is a :class:`.bsp_scenario.BSPScenario` (its fields are the
settings; it checks them once).  Per instance: ``t_star_s`` (the own layer's t*),
``t_ideal_s`` (the divisor of ``ct_norm``), ``t_in_floor_s`` (the part of t* the ingresses alone force:
max_i v / b_i^I for L3, max_i p v / b_i^I for L7) and ``mean_over_min_egress``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import binom

from simlib.core.jitcache import CompileTimer
from simlib.core.seeding import as_seed_sequence, child_seed
from simlib.core.units import Gbps, MB
from simlib.core.validate import check_choice, check_int, check_real
from simlib.papers.selmcast.bandwidth import selmcast_bandwidths
from simlib.papers.contract import ParamError, ParamSpec, ScenarioBase, param, param_group, param_list, param_of
from simlib.papers.selmcast.bsp_scenario import BSP_SCHEMES, NORMALIZATIONS, BSPOptions, BSPScenario
from simlib.papers.selmcast.bsp import selmcast_bsp
from simlib.papers.selmcast.execute import execute_plan, plan_model_time
from simlib.papers.selmcast.optimal_flow import optimal_flow
from simlib.papers.selmcast.optimal_milp import optimal_milp
from simlib.papers.selmcast.orpheus import DeliveryHistory, orpheus_bsp
from simlib.papers.trial import trial_of

__all__ = ["BSP_SCHEMES", "NORMALIZATIONS", "receivers_count", "ingress_ratio", "bsp_instance",
           "ideal_time", "select", "BSPTrialSetting", "MILPTrialSetting", "bsp_trial", "bsp_round_summary", "long_by_scheme", "reading_settings",
           "milp_trial", "RandomSelection", "random_selection_trial", "pr_balanced", "Fig1Notebook", "BSPFiguresNotebook"]

def receivers_count(n: int, p_frac: float) -> int:
    """p as a count: round(p_frac * n), at least 1 and at most n - 1 (decision SM6)."""
    n = check_int("n", n, 2)
    p_frac = check_real("p_frac", p_frac, 0.0, 1.0, lo_open=True, hi_open=True)
    return int(min(max(round(p_frac * n), 1), n - 1))


def ingress_ratio(mu, p: int) -> float:
    """μ as a number: a real > 0, or the string "1/p" for μ = 1/p with p the receiver count (§IV-A2)."""
    if isinstance(mu, str):
        check_choice("mu", mu, ("1/p",))
        return 1.0 / p
    return check_real("mu", mu, 0.0, lo_open=True)


def bsp_instance(sc: BSPScenario, rng_seed: np.random.SeedSequence):
    """(b_in, b_eg, p, v) of one trial: bandwidths from child key 0 (bits/s), p a count, v bits."""
    p = receivers_count(sc.n, sc.p_frac)
    mu = ingress_ratio(sc.mu, p)
    b_eg, b_in = selmcast_bandwidths(sc.n, sc.bbar_gbps * Gbps, sc.lam, mu,
                                     np.random.default_rng(child_seed(rng_seed, 0)), shared_x=sc.shared_x)
    return b_in, b_eg, p, sc.model_mb * MB


def ideal_time(b_in, b_eg, p: int, v: float, layer: str, normalization: str, t_star: float) -> float:
    """The divisor of the normalized completion time (seconds; decision SM1).

    ``t_star`` is the own layer's t* (stage 1 of model (12), D = {}).
    ``normalization="own"`` returns it; ``"L3"`` returns the t* of L3 multicast on
    the same instance (equal to ``t_star`` when ``layer`` is L3).
    """
    normalization = check_choice("normalization", normalization, NORMALIZATIONS)
    if normalization == "own" or layer == "L3":
        return t_star
    return optimal_flow(b_in, b_eg, p, v, "L3").t_star


def select(scheme: str, b_in, b_eg, p: int, v: float, layer: str, rng: np.random.Generator,
           forced=None, c=None):
    """Run one selection scheme; returns ``(x, seconds)`` (n x n bool plan, wall time without the time numba
    spent compiling or loading kernels: :class:`~simlib.core.jitcache.CompileTimer`)."""
    scheme = check_choice("scheme", scheme, BSP_SCHEMES)
    t0 = time.perf_counter()
    with CompileTimer() as compiled:
        if scheme == "selmcast":
            x = selmcast_bsp(b_in, b_eg, p, v, layer, forced, c).x
        elif scheme == "orpheus":
            x = orpheus_bsp(len(b_in), p, rng, forced)
        else:
            x = optimal_flow(b_in, b_eg, p, v, layer, forced).x
    return x, max(time.perf_counter() - t0 - compiled.seconds, 0.0)


def _warm_up() -> None:
    """Load the compiled Pareto kernel so no selection time includes numba's start-up."""
    selmcast_bsp([1.0, 1.0], [1.0, 1.0], 1, 1.0)


@dataclass(frozen=True)
class BSPTrialSetting(ScenarioBase):
    """:func:`bsp_trial`'s setting: a BSP instance (:class:`BSPScenario`'s parameters, flat) and the schemes
    run on it, in order."""

    instance: BSPScenario = param_group(BSPScenario)
    schemes: tuple = param_list(list(BSP_SCHEMES), item=ParamSpec(kind="str", choices=BSP_SCHEMES, help="a BSP scheme"),
                                help="the schemes run on the instance, in order")


@dataclass(frozen=True)
class MILPTrialSetting(ScenarioBase):
    """:func:`milp_trial`'s setting: a BSP instance (:class:`BSPScenario`'s parameters, flat) and the MILP's
    time limit per stage."""

    instance: BSPScenario = param_group(BSPScenario)
    time_limit_s: float = param_of(BSPOptions, "time_limit_s", flag=None)


@trial_of(BSPTrialSetting, example={"n": 10, "schemes": ["orpheus", "selmcast"]})
def bsp_trial(params: BSPTrialSetting | dict, rng_seed: np.random.SeedSequence) -> dict:
    """One BSP instance, every scheme of ``params.schemes`` (default all three).

    ``params``: a :class:`BSPTrialSetting` (a sweep builds each dict setting once) or its flat dict:
    :class:`BSPScenario` fields (n, p_frac, layer, lam, mu (real or "1/p"), bbar_gbps, model_mb,
    shared_x, rounds (SM2), k and normalization (the ideal ``ct_norm`` divides by, SM1)) plus
    ``schemes``.  With rounds > 1 every scheme keeps its own delivery history and the metrics are
    means over the rounds (bandwidths fixed).
    """
    setting = BSPTrialSetting.of(params)
    schemes, sc = setting.schemes, setting.instance
    layer, rounds = sc.layer, sc.rounds
    b_in, b_eg, p, v = bsp_instance(sc, rng_seed)
    n = b_in.size
    _warm_up()
    t_star = optimal_flow(b_in, b_eg, p, v, layer).t_star
    t_ideal = ideal_time(b_in, b_eg, p, v, layer, sc.normalization, t_star)   # SM1: the common ideal
    # t* can be no smaller than what the ingresses alone need (one copy for L3, p copies for L7)
    t_in_floor = float(((1 if layer == "L3" else p) * v / b_in).max())
    out = {"p": p, "t_star_s": t_star, "t_ideal_s": t_ideal, "t_in_floor_s": t_in_floor,
           "mean_over_min_egress": float(b_eg.mean() / b_eg.min())}
    for scheme in schemes:
        rng = np.random.default_rng(child_seed(rng_seed, 1))
        hist = DeliveryHistory(n, sc.k if rounds > 1 else None)
        acc = {m: [] for m in ("ct_s", "t_model_s", "receivers", "time_ms", "ct_norm_plan")}
        for _ in range(rounds):
            x, secs = select(scheme, b_in, b_eg, p, v, layer, rng, forced=hist.due_matrix(), c=hist.c)
            ct = execute_plan(x, v, b_in, b_eg, layer).completion_s
            t_model = plan_model_time(x, v, b_in, b_eg, layer)
            hist.record(x)
            for m, val in (("ct_s", ct), ("t_model_s", t_model), ("receivers", x.sum() / n),
                           ("time_ms", 1e3 * secs), ("ct_norm_plan", ct / t_model)):
                acc[m].append(val)
        res = {m: float(np.mean(vals)) for m, vals in acc.items()}
        res["time_ms"] = float(np.median(acc["time_ms"]))
        res["ct_norm"] = res["ct_s"] / t_ideal
        res["scale"] = res["receivers"] / n
        out.update({f"{scheme}_{m}": val for m, val in res.items()})
    if "selmcast" in schemes:
        est = selmcast_bsp(b_in, b_eg, p, v, layer)
        out["selmcast_t_est_s"] = est.t_est                      # SM5: heuristic's own estimate
        out["selmcast_n_pareto"] = est.n_pareto
    return out


def long_by_scheme(df: pd.DataFrame, schemes=BSP_SCHEMES) -> pd.DataFrame:
    """Wide ``bsp_trial`` rows -> one row per (setting, trial, scheme) with unprefixed metric columns."""
    parts = []
    for scheme in schemes:
        cols = [c for c in df.columns if c.startswith(f"{scheme}_")]
        if not cols:
            continue
        other = [c for c in df.columns if not any(c.startswith(f"{s}_") for s in schemes)]
        part = df[other + cols].rename(columns={c: c[len(scheme) + 1:] for c in cols})
        parts.append(part.assign(scheme=scheme))
    return pd.concat(parts, ignore_index=True)


def reading_settings(*, layers, n_values, n_ref: int, p_frac: float, fig5_n: int, fig5_p_frac: float,
                     lam: float, normalization: str, lam_alt: float, normalization_alt: str,
                     fixed: dict | None = None) -> dict:
    """The ``bsp_trial`` settings of the readings notebook 41 runs beside its figures (SM14, SM1).

    The figures use the stated reading (``lam``, ``normalization``).  The other
    readings are the other λ (``lam_alt``) with the stated ideal, and the other
    ideal (``normalization_alt``) with either λ; the ideal changes nothing at L3
    (both ideals are then the L3 t*), so it runs at L7 only.  To stay cheap, each
    runs where the paper quotes a number, with the schemes that number needs:

    * ``"fig4"``: the other λ at every n and layer (Figs. 4c-f), the other ideal at
      ``n_ref`` (Fig. 4d's completion times); SelMcast and Orpheus;
    * ``"fig5"``: every other reading at ``fig5_n`` and the largest p/n
      (``fig5_p_frac``, where Orpheus "approximates about 1.5"); Orpheus only;
    * ``"fig6"``: the other λ at L3, μ = 1/p, every n; SelMcast and Orpheus.

    ``fixed``: settings every row carries, by default ``shared_x=False, bbar_gbps=40.0,
    model_mb=200.0`` (those given replace the defaults).
    Returns ``{"fig4": [...], "fig5": [...], "fig6": [...]}`` (a list may be empty).
    """
    for name, value in (("normalization", normalization), ("normalization_alt", normalization_alt)):
        check_choice(name, value, NORMALIZATIONS)
    layers = [check_choice("layers[i]", layer, ("L3", "L7")) for layer in layers]
    other_lam = [dict(lam=lam_alt, normalization=normalization)] if lam_alt != lam else []
    other_ideal = ([dict(lam=x, normalization=normalization_alt) for x in dict.fromkeys([lam, lam_alt])]
                   if normalization_alt != normalization and "L7" in layers else [])
    fixed = dict(dict(shared_x=False, bbar_gbps=40.0, model_mb=200.0), **(fixed or {}))
    pair, orpheus = ["selmcast", "orpheus"], ["orpheus"]
    return {
        "fig4": ([dict(r, layer=layer, n=n, p_frac=p_frac, mu=1.0, schemes=pair, **fixed)
                  for r in other_lam for layer in layers for n in n_values]
                 + [dict(r, layer="L7", n=n_ref, p_frac=p_frac, mu=1.0, schemes=pair, **fixed) for r in other_ideal]),
        "fig5": ([dict(r, layer=layer, n=fig5_n, p_frac=fig5_p_frac, mu=1.0, schemes=orpheus, **fixed)
                  for r in other_lam for layer in layers]
                 + [dict(r, layer="L7", n=fig5_n, p_frac=fig5_p_frac, mu=1.0, schemes=orpheus, **fixed)
                    for r in other_ideal]),
        "fig6": ([dict(r, layer="L3", n=n, p_frac=p_frac, mu="1/p", schemes=pair, **fixed)
                  for r in other_lam for n in n_values] if "L3" in layers else []),
    }


@trial_of(MILPTrialSetting, example={"n": 6, "time_limit_s": 10.0})
def milp_trial(params: MILPTrialSetting | dict, rng_seed: np.random.SeedSequence) -> dict:
    """The HiGHS MILP of model (12) next to the exact max-flow optimum on the same instance.

    ``params``: a :class:`MILPTrialSetting` (a sweep builds each dict setting once) or its flat dict,
    :class:`BSPScenario` fields plus ``time_limit_s`` (per stage, :class:`BSPOptions`).
    """
    setting = MILPTrialSetting.of(params)
    time_limit_s, sc = setting.time_limit_s, setting.instance
    layer = sc.layer
    b_in, b_eg, p, v = bsp_instance(sc, rng_seed)
    flow = optimal_flow(b_in, b_eg, p, v, layer)
    mil = optimal_milp(b_in, b_eg, p, v, layer, time_limit_s=time_limit_s)
    out = {"p": p, "flow_t_star_s": flow.t_star, "flow_receivers": flow.n_receivers,
           "flow_time_ms": 1e3 * flow.seconds, "milp_t_star_s": mil.t_star,
           "milp_receivers": mil.n_receivers, "milp_time_s": mil.seconds,
           "milp_stage1_status": mil.stage1.status, "milp_stage1_gap": mil.stage1.mip_gap,
           "milp_stage1_s": mil.stage1.seconds,
           "milp_stage2_status": mil.stage2.status if mil.stage2 else "not_run",
           "milp_stage2_gap": mil.stage2.mip_gap if mil.stage2 else np.nan,
           "milp_stage2_s": mil.stage2.seconds if mil.stage2 else np.nan,
           "milp_proven": mil.proven}
    if mil.x is not None:
        ct = execute_plan(mil.x, v, b_in, b_eg, layer).completion_s
        out.update(milp_ct_norm=ct / flow.t_star, milp_scale=mil.n_receivers / b_in.size ** 2)
    return out


def bsp_round_summary(params: BSPScenario | dict, seed, scheme: str = BSPOptions.scheme,
                      time_limit_s: float = BSPOptions.time_limit_s) -> dict:
    """One round of one scheme on the instance ``params`` (a :class:`BSPScenario`, used as it is, or
    its flat dict) and ``seed`` (int or SeedSequence): ``python -m simlib selmcast-bsp``'s output.

    ``scheme``: "selmcast", "orpheus", "optimal" (exact max-flow optimum) or
    "milp" (HiGHS on model (12), ``time_limit_s`` per stage); see :class:`BSPOptions`.
    Returns the normalized completion time (by the ideal of the scenario's
    ``normalization``, default the own layer's t*, SM1), the scale, the
    selection time and the solver status ("n/a" for the heuristics).
    """
    opts = BSPOptions(scheme=scheme, time_limit_s=time_limit_s)
    scheme = opts.scheme
    sc = BSPScenario.of(params)
    layer = sc.layer
    rng_seed = as_seed_sequence(seed)
    b_in, b_eg, p, v = bsp_instance(sc, rng_seed)
    _warm_up()
    t_star = optimal_flow(b_in, b_eg, p, v, layer).t_star
    t_ideal = ideal_time(b_in, b_eg, p, v, layer, sc.normalization, t_star)
    status, gap = "n/a", None
    if scheme == "milp":
        res = optimal_milp(b_in, b_eg, p, v, layer, time_limit_s=opts.time_limit_s)
        if res.x is None:
            return {"scheme": scheme, "p": p, "status": res.stage1.status, "selection_time_s": res.seconds}
        x, secs = res.x, res.seconds
        status = f"{res.stage1.status}/{res.stage2.status}"
        gap = res.stage1.mip_gap
    else:
        x, secs = select(scheme, b_in, b_eg, p, v, layer, np.random.default_rng(child_seed(rng_seed, 1)))
        status = "optimal" if scheme == "optimal" else "n/a"
    ct = execute_plan(x, v, b_in, b_eg, layer).completion_s
    n = b_in.size
    return {"scheme": scheme, "layer": layer, "n": n, "p": p, "ct_norm": ct / t_ideal, "completion_s": ct,
            "t_star_s": t_star, "t_ideal_s": t_ideal, "scale": float(x.sum()) / n ** 2,
            "receivers_per_worker": float(x.sum()) / n, "selection_time_s": secs, "status": status, "mip_gap": gap}


def pr_balanced(n: int, p) -> np.ndarray:
    """Eq. (1) at m = p: probability that a worker is chosen by exactly p of the other n - 1 senders."""
    n = check_int("n", n, 2)
    p = np.asarray(p)
    return binom.pmf(p, n - 1, p / (n - 1))


@dataclass(frozen=True)
class RandomSelection(ScenarioBase):
    """:func:`random_selection_trial`'s setting (Fig. 1): n workers, each multicasting to p random others,
    over ``rounds`` independent BSP rounds."""

    n: int = param_of(BSPScenario, "n")
    p: int = param(1, lo=1, help="receivers per multicast (a count, at most n - 1)")
    rounds: int = param(1, lo=1, help="independent BSP rounds pooled in the trial")

    def check(self):
        if self.p > self.n - 1:
            raise ParamError("p", f"p must be in [1, n - 1 = {self.n - 1}], got {self.p}")


@trial_of(RandomSelection, example={"n": 10, "p": 3, "rounds": 2})
def random_selection_trial(params: RandomSelection | dict, rng_seed: np.random.SeedSequence) -> dict:
    """Fraction of workers receiving exactly p multicasts under random selection (Fig. 1).

    ``params``: a :class:`RandomSelection` (a sweep builds each dict setting once) or its flat dict:
    n, p (a count), rounds (independent BSP rounds pooled in the trial).
    """
    setting = RandomSelection.of(params)
    n, p, rounds = setting.n, setting.p, setting.rounds
    rng = np.random.default_rng(child_seed(rng_seed, 1))
    hits = 0
    for _ in range(rounds):
        m = orpheus_bsp(n, p, rng).sum(axis=0)
        hits += int((m == p).sum())
    return {"pr_empirical": hits / (n * rounds), "pr_eq1": float(pr_balanced(n, p))}


# ------------------------------------------------------------------ the notebooks' parameters
@dataclass(frozen=True)
class Fig1Notebook(ScenarioBase):
    """Notebook 40's parameters (Fig. 1: random selection), for :func:`simlib.pipeline.run.start`."""

    trials: int = param(10, lo=1, quick=2, help="trials per p")
    n: int = param_of(BSPScenario, "n", quick=40)
    p_step: int = param(4, lo=1, quick=13, help="simulate p in 1, 1 + p_step, ... and n - 1")
    rounds: int = param(10, lo=1, quick=2, help="random-selection rounds pooled per trial")


@dataclass(frozen=True)
class BSPFiguresNotebook(ScenarioBase):
    """Notebook 41's parameters (Figs. 4-6, the MILP check, the multi-round demonstration); ranges and
    units are :class:`BSPScenario`'s and :class:`BSPOptions`'."""

    trials: int = param(10, lo=1, quick=2, help="trials per setting")
    n_values: tuple = param_list([50, 100, 150, 200], of=(BSPScenario, "n"), quick=[10, 20], stated="§IV-B1",
                                 help="n of Figs. 4 and 6")
    layers: tuple = param_list(["L3", "L7"], of=(BSPScenario, "layer"))
    p_frac: float = param_of(BSPScenario, "p_frac")
    p_frac_values: tuple = param_list([0.1, 0.2, 0.3, 0.4, 0.5], of=(BSPScenario, "p_frac"), quick=[0.2, 0.4],
                                      stated="§IV-B2",
                                      help="p / n of Fig. 5")
    fig5_n: int = param_of(BSPScenario, "n", quick=20, help="n of Fig. 5 (the paper does not say; its default)")
    lam: float = param_of(BSPScenario, "lam")
    shared_x: bool = param_of(BSPScenario, "shared_x")
    normalization: str = param_of(BSPScenario, "normalization")
    lam_alt: float = param_of(BSPScenario, "lam", default=0.25, chosen="SM14",
                              help="the other reading of λ, run beside the figures (SM14)")
    normalization_alt: str = param_of(BSPScenario, "normalization", default="L3", chosen="SM1",
                                      help="the other reading of the ideal, run beside the figures (SM1)")
    milp_n_values: tuple = param_list([10, 15, 20], of=(BSPScenario, "n"), quick=[6],
                                      help="n where the HiGHS MILP runs (the paper: 50..200)")
    milp_trials: int = param(10, lo=1, quick=1, chosen="SM77",
                             help="trials per MILP setting (the growth verdicts need >= 6 paired trials, SM77)")
    milp_time_limit_s: float = param_of(BSPOptions, "time_limit_s", quick=10.0,
                                        help="MILP time limit per solve, as the paper's Gurobi runs")
    rounds_demo: int = param_of(BSPScenario, "rounds", default=10, quick=3, chosen="SM2",
                                help="rounds of the multi-round demonstration (SM2)")
    k_demo: int = param_of(BSPScenario, "k")
