"""Seed 003 §3's experiment as one function: parameters + seed -> bandwidths, compute draws -> run -> metrics.

:class:`Scenario` holds every knob with the paper's values (n = 60, p = 50,
b_ij = k * 25 Mbps, k ~ N(5, 1) in [1, 10], 200 MB model) and ours where the
paper has none (docs/decisions/fmreduce.md); :func:`run_trial` is the
sweep-friendly wrapper returning a flat metrics dict.

Randomness: the trial's SeedSequence gives the bandwidths (child key 0) and
every worker's compute-time stream (key 1, then the worker id), so every
variant sees the same mesh and the same per-worker draws for the same seed.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlib.core.seeding import as_seed_sequence, child_seed
from simlib.core.units import MB, Mbps
from simlib.core.validate import check_choice, check_int, check_real, from_params
from simlib.workloads.traces import TRACE_NAMES, load_trace

from .bandwidth import fmreduce_bandwidths
from .mesh_links import SHARINGS
from .split import SOLVERS
from .system import PHASES, RunResult, simulate

__all__ = ["Scenario", "REDUCERS", "MODES", "SPLITS", "SHARINGS", "VARIANTS", "variant_label", "run", "run_trial"]

REDUCERS = ("all", "participants")
MODES = ("blocking", "nonblocking")
SPLITS = ("even", "lp")


@dataclass(frozen=True)
class Scenario:
    """One FMReduce experiment.  Sizes in MB, bandwidth unit in Mbps, times in seconds.

    ``reducers="participants"`` is the original partial reduce, which supports
    blocking only (§3, Fig. 2 caption).  ``duration_s`` is the fixed period in
    which rounds are counted (FM8); ``trace`` one of the eager-SGD stand-ins or
    a CSV path, rescaled to ``compute_mean_s`` (FM9).
    """

    n: int = 60
    p: int = 50
    reducers: str = "all"
    mode: str = "nonblocking"
    split: str = "lp"
    sharing: str = "fcfs"
    model_mb: float = 200.0
    duration_s: float = 600.0
    trace: str = "transformer"
    compute_mean_s: float = 1.0
    reduce_s_per_mb: float = 0.0
    bw_unit_mbps: float = 25.0
    lp_solver: str = "breakpoint"

    def __post_init__(self):
        n = check_int("n", self.n, 2, 10_000)
        check_int("p", self.p, 1, n)
        check_choice("reducers", self.reducers, REDUCERS)
        check_choice("mode", self.mode, MODES)
        check_choice("split", self.split, SPLITS)
        check_choice("sharing", self.sharing, SHARINGS)
        check_choice("lp_solver", self.lp_solver, SOLVERS)
        if self.reducers == "participants" and self.mode != "blocking":
            raise ValueError("mode must be 'blocking' when reducers='participants' (the original partial "
                             f"reduce supports blocking only), got {self.mode!r}")
        check_real("model_mb", self.model_mb, 0.0, lo_open=True)
        check_real("duration_s", self.duration_s, 0.0, lo_open=True)
        check_real("compute_mean_s", self.compute_mean_s, 0.0, lo_open=True)
        check_real("reduce_s_per_mb", self.reduce_s_per_mb, 0.0)
        check_real("bw_unit_mbps", self.bw_unit_mbps, 0.0, lo_open=True)
        if not isinstance(self.trace, str) or not self.trace:
            raise ValueError(f"trace must be one of {TRACE_NAMES} or a CSV path, got {self.trace!r}")

    @classmethod
    def from_params(cls, params: dict) -> "Scenario":
        """Build from a dict, rejecting unknown keys by name."""
        return from_params(cls, params)


def _variants() -> list[dict]:
    out = []
    for reducers in REDUCERS:
        for mode in MODES:
            if reducers == "participants" and mode == "nonblocking":
                continue
            for split in SPLITS:
                for sharing in SHARINGS:
                    out.append(dict(reducers=reducers, mode=mode, split=split, sharing=sharing))
    return out


#: Fig. 2's 12 experiments: 8 FMReduce variants + 4 original partial reduce (blocking only).
VARIANTS: list[dict] = _variants()


def variant_label(reducers: str, mode: str, split: str, sharing: str) -> str:
    """Short name of a variant, e.g. ``"FM NB LP FCFS"`` / ``"PR B even FS"``."""
    return " ".join(("FM" if reducers == "all" else "PR", "NB" if mode == "nonblocking" else "B",
                     "LP" if split == "lp" else "even", sharing.upper()))


def run(sc: Scenario, seed) -> RunResult:
    """Draw the mesh and compute times from ``seed`` (int or SeedSequence) and simulate ``sc``."""
    ss = as_seed_sequence(seed)
    b = fmreduce_bandwidths(sc.n, np.random.default_rng(child_seed(ss, 0)), unit=sc.bw_unit_mbps * Mbps)
    trace = load_trace(sc.trace).rescaled(sc.compute_mean_s)
    ct = trace.compute_times(sc.n, child_seed(ss, 1), chunk=64)
    return simulate(b, sc.p, model_bits=sc.model_mb * MB, duration_s=sc.duration_s, compute_time=ct,
                    reducers=sc.reducers, mode=sc.mode, split=sc.split, sharing=sc.sharing,
                    reduce_s_per_mb=sc.reduce_s_per_mb, lp_solver=sc.lp_solver)


def run_trial(params: dict, rng_seed: np.random.SeedSequence) -> dict:
    """Sweep trial: :class:`Scenario` fields -> flat metrics (rounds, iterations, phase means in s)."""
    sc = Scenario.from_params(params)
    res = run(sc, rng_seed)
    out = {"rounds": res.rounds, "iterations": res.iterations,
           "rounds_per_min": 60.0 * res.rounds / sc.duration_s,
           "mean_round_time_s": res.mean_round_time_s}
    out.update({f"{ph}_s": res.phase_means_s[ph] for ph in PHASES})
    return out
