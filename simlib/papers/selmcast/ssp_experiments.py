"""Helpers the §IV-C notebooks share: their parameter specs, setting validation, means as the
paper reports them, and an "∞" plotting position for the removed k / ssp requirements.

The paper reports the *mean* over 10 trials of each setting (§IV-A2); figures
show the median with a min–max band, claims use the means.

The notebooks' parameters (for :func:`simlib.pipeline.run.start`;
each parameters cell assigns these defaults, a test checks it): scenario values
re-use :class:`.ssp_scenario.SSPScenario`'s declarations (range, unit, quick
value), the rest are the notebook's own.

* :class:`SSPFig7Notebook` — notebook 43 (Fig. 7, the case study);
* :class:`SSPFigs8to10Notebook` — notebook 44 (p/n, k and ssp);
* :class:`SSPFigs11to13Notebook` — notebook 45 (η, data volume, bandwidth variability).

Notebook 46's spec (time to accuracy, beyond the paper) has training values: it is
:class:`simlib.training.notebook_specs.SSPTimeToAccuracyNotebook`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from simlib.papers.contract import ParamError, ParamSpec, ScenarioBase, param, param_list, param_of, specs

from .ssp_scenario import SSPScenario

__all__ = ["validate_settings", "means", "triplet", "with_inf_axis", "TRACE_ORDER",
           "SSPFig7Notebook", "SSPFigs8to10Notebook", "SSPFigs11to13Notebook"]

#: The paper's order of the three workloads (LSTM, Transformer, ResNet-50 = our "cnn").
TRACE_ORDER = ("lstm", "transformer", "cnn")


def validate_settings(settings: list[dict]) -> list[dict]:
    """Raise ValueError (naming the parameter) unless every setting is a valid :class:`SSPScenario`."""
    for s in settings:
        SSPScenario.from_params(s)
    return settings


def means(df: pd.DataFrame, by, metrics) -> pd.DataFrame:
    """Mean over trials of each metric per ``by`` group (the paper's statistic)."""
    return df.groupby(list(by) if not isinstance(by, str) else [by], dropna=False)[list(metrics)].mean()


def triplet(values: dict, fmt: str = "{:.2f}") -> str:
    """'a/b/c' in the paper's trace order for a dict trace -> value (missing traces skipped)."""
    return "/".join(fmt.format(values[t]) for t in TRACE_ORDER if t in values)


def with_inf_axis(df: pd.DataFrame, col: str, inf_at: float) -> pd.DataFrame:
    """Copy of ``df`` with ``<col>_x``: ``col`` where finite, ``inf_at`` where it is None/NaN (∞)."""
    out = df.copy()
    vals = pd.to_numeric(out[col], errors="coerce")
    out[f"{col}_x"] = np.where(vals.isna(), inf_at, vals)
    return out


# ------------------------------------------------------------------ the notebooks' parameters
def _check_scenarios(spec, lists: dict | None = None) -> None:
    """The scenario's cross-field rules (p against n) on a notebook spec: an :class:`SSPScenario` of
    the spec's scenario fields, and one per item of each list parameter in ``lists`` (list name ->
    the scenario field its items set); a failing item is a ParamError naming the list and index."""
    fixed = {name: getattr(spec, name) for name in specs(type(spec)) if name in specs(SSPScenario)}
    SSPScenario(**fixed)
    for name, field in (lists or {}).items():
        for i, value in enumerate(getattr(spec, name)):
            try:
                SSPScenario(**{**fixed, field: value})
            except ParamError as exc:
                raise ParamError(name, f"{name}[{i}]: {exc}") from None


def _trials():
    return param(10, lo=1, quick=1, stated="§IV-A2", help="trials per setting (§IV-A2: 10); the paper reports means")


def _trials_step():
    return param(5, lo=1, quick=1, chosen="S25",
                 help="S25: trials added per batch to the settings of a verdict whose interval straddles its threshold")


def _trials_cap():
    return param(40, lo=1, quick=2, chosen="S25",
                 help="S25: at most this many trials per setting (below trials: none added); still straddling "
                      "there, the verdict is undecided at that many trials")


def _at_ssp_profile():
    return param(True, chosen="SM75",
                 help="also run the figures' grids at 004's SSP paper profile (SM75's fitted stand-ins; max-min "
                      "only) and judge their claims at the ledger setting 'profile'")


def _traces(quick=None):
    kw = {} if quick is None else {"quick": quick}
    return param_list(["lstm", "transformer", "cnn"], of=(SSPScenario, "trace"), stated="§IV-A2",
                      help="compute-time traces, one run per trace (§IV-A2: LSTM, Transformer, ResNet-50)", **kw)


@dataclass(frozen=True)
class SSPFig7Notebook(ScenarioBase):
    """Notebook 43's parameters (Fig. 7: SelMcast and Orpheus at §IV-A2's defaults)."""

    trials: int = _trials()
    trials_step: int = _trials_step()
    trials_cap: int = _trials_cap()
    n: int = param_of(SSPScenario, "n")
    traces: tuple = _traces()
    duration_s: float = param_of(SSPScenario, "duration_s", quick=15.0)
    p: float = param_of(SSPScenario, "p")
    model_mb: float = param_of(SSPScenario, "model_mb")
    bbar_gbps: float = param_of(SSPScenario, "bbar_gbps")
    lam: float = param_of(SSPScenario, "lam")
    mu: float = param_of(SSPScenario, "mu")
    ssp: int | None = param_of(SSPScenario, "ssp")
    k: int | None = param_of(SSPScenario, "k")
    eta: float = param_of(SSPScenario, "eta")
    layer: str = param_of(SSPScenario, "layer")

    def check(self):
        _check_scenarios(self)


@dataclass(frozen=True)
class SSPFigs8to10Notebook(ScenarioBase):
    """Notebook 44's parameters (Fig. 8: p/n; Fig. 9: k; Fig. 10: ssp with k = ssp)."""

    trials: int = _trials()
    trials_step: int = _trials_step()
    trials_cap: int = _trials_cap()
    n: int = param_of(SSPScenario, "n")
    traces: tuple = _traces(quick=["lstm"])
    duration_s: float = param_of(SSPScenario, "duration_s")
    p_values: tuple = param_list([0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4], of=(SSPScenario, "p"),
                                 quick=[0.1, 0.3], stated="§IV-C2",
                                 help="p / n of Fig. 8, each giving 1 to n - 1 receivers")
    k_values: tuple = param_list([1, 2, 4, 8, 16, None], of=(SSPScenario, "k"), quick=[2, None],
                                 help="k of Fig. 9 (None, null in YAML: requirement removed)")
    ssp_values: tuple = param_list([1, 2, 4, 8, 16, None], of=(SSPScenario, "ssp"), quick=[1, None],
                                   help="ssp of Fig. 10, with k = ssp (None, null in YAML: no gate and no k)")
    p: float = param_of(SSPScenario, "p")
    ssp: int | None = param_of(SSPScenario, "ssp")
    k: int | None = param_of(SSPScenario, "k")
    eta: float = param_of(SSPScenario, "eta")
    at_ssp_profile: bool = _at_ssp_profile()

    def check(self):
        _check_scenarios(self, {"p_values": "p"})


@dataclass(frozen=True)
class SSPFigs11to13Notebook(ScenarioBase):
    """Notebook 45's parameters (Fig. 11: η; Fig. 12: model volume; Fig. 13: γ)."""

    trials: int = _trials()
    trials_step: int = _trials_step()
    trials_cap: int = _trials_cap()
    n: int = param_of(SSPScenario, "n")
    traces: tuple = _traces(quick=["lstm"])
    duration_s: float = param_of(SSPScenario, "duration_s")
    eta_values: tuple = param_list([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0],
                                   of=(SSPScenario, "eta"), quick=[0.0, 1.0], stated="§IV-C4",
                                   help="η of Fig. 11 (SelMcast)")
    volume_exponents: tuple = param_list([-4, -3, -2, -1, 0, 1, 2, 3, 4],
                                         item=ParamSpec("int", "exponent e", lo=-20, hi=20), quick=[-1, 1],
                                         stated="§IV-C5",
                                         help="Fig. 12's model volumes: model_mb × 2^e")
    gamma_values: tuple = param_list([0.0, 0.2, 0.4, 0.6, 0.8, 1.0], of=(SSPScenario, "gamma"), quick=[0.0, 1.0],
                                     help="γ of Fig. 13")
    period_s: float = param_of(SSPScenario, "period_s")
    model_mb: float = param_of(SSPScenario, "model_mb")
    eta: float = param_of(SSPScenario, "eta")
    at_ssp_profile: bool = _at_ssp_profile()

    def check(self):
        _check_scenarios(self)
