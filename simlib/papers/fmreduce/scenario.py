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
from simlib.runtime.capture import offer
from simlib.workloads.traces import TRACE_HELP, check_trace_file, load_trace

from simlib.papers.contract import ParamError, ScenarioBase, param
from simlib.papers.trial import trial_of

from .mesh_links import SHARINGS
from .split import SOLVERS
from .system import PHASES, RunResult, simulate

__all__ = ["Scenario", "REDUCERS", "MODES", "SPLITS", "SHARINGS", "VARIANTS", "variant_label", "variant_scheme",
           "run", "run_trial"]

REDUCERS = ("all", "participants")
MODES = ("blocking", "nonblocking")
SPLITS = ("even", "lp")


@dataclass(frozen=True)
class Scenario(ScenarioBase):
    """One FMReduce experiment.  Sizes in MB, bandwidth unit in Mbps, times in seconds.

    Every field is declared once here (default, range, unit, help, quick-profile
    value); the command line ``python -m simlib fmreduce`` and notebook 30's
    parameter check are generated from these declarations.  ``reducers="participants"``
    is the original partial reduce, which supports blocking only (§3, Fig. 2
    caption).  ``duration_s`` is the fixed period in which rounds are counted
    (FM8); ``trace`` one of the eager-SGD stand-ins or a CSV path, rescaled to
    ``compute_mean_s`` (FM9).
    """

    n: int = param(60, lo=2, hi=10_000, quick=12, stated="§3", help="workers (§3: 60)")
    p: int = param(50, lo=1, hi=10_000, quick=10, stated="Fig. 2 caption",
                   help="participants per round, at most n (Fig. 2: 50)")
    reducers: str = param("all", choices=REDUCERS, stated="Fig. 2 caption",
                          help="all: FMReduce, every worker reduces a block; participants: the original "
                               "partial reduce (blocking only)")
    mode: str = param("nonblocking", choices=MODES,
                      help="blocking: the leader groups the first p ready workers, then they scatter; "
                           "nonblocking: a ready worker scatters at once (§2)")
    split: str = param("lp", choices=SPLITS, stated="§2 problem 1",
                       help="model split: evenly divided or network-aware LP (2), FMReduce's (§2 problem 1)")
    sharing: str = param("fcfs", choices=SHARINGS, stated="§2 problem 3",
                         help="link sharing: fair (fs) or first come first served, FMReduce's (§2 problem 3; FM4)")
    model_mb: float = param(200.0, lo=0.0, lo_open=True, unit="MB", stated="§3", help="model size (§3: 200 MB)")
    duration_s: float = param(600.0, lo=0.0, lo_open=True, unit="s", quick=30.0, flag="--duration", chosen="FM8",
                              help="period in which rounds are counted (FM8)")
    trace: str = param("transformer", check=check_trace_file, allowed=TRACE_HELP.removeprefix("compute-time trace: "),
                       chosen="FM9", help="compute-time trace (FM9)")
    compute_mean_s: float = param(1.0, lo=0.0, lo_open=True, unit="s", flag="--compute-mean", chosen="FM9",
                                  help="mean compute time per iteration; the trace is rescaled to it (FM9)")
    reduce_s_per_mb: float = param(0.0, lo=0.0, unit="s/MB", chosen="FM5",
                                   help="reduce time per MB of input blocks (FM5)")
    bw_unit_mbps: float = param(25.0, lo=0.0, lo_open=True, unit="Mbps", stated="§3",
                                help="bandwidth unit: b_ij = k times this, k ~ N(5, 1) in [1, 10] (§3)")
    lp_solver: str = param("breakpoint", choices=SOLVERS, chosen="FM7",
                           help="solver of LP (2): HiGHS or the exact breakpoint search")

    def check(self):
        if self.p > self.n:
            raise ParamError("p", f"p must be in [1, n = {self.n}], got {self.p}")
        if self.reducers == "participants" and self.mode != "blocking":
            raise ParamError("mode", "mode must be 'blocking' when reducers='participants' (the original "
                                     f"partial reduce supports blocking only), got {self.mode!r}")


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


def variant_scheme(reducers: str, mode: str, **_) -> str:
    """The registered scheme (family of variants) a variant belongs to: ``"fm-nb"``, ``"fm-b"`` or
    ``"pr-b"`` (FMReduce non-blocking / blocking, original partial reduce); see ``paper.SCHEMES``."""
    return ("fm-" if reducers == "all" else "pr-") + ("nb" if mode == "nonblocking" else "b")


def run(sc: Scenario, seed) -> RunResult:
    """Draw the mesh and compute times from ``seed`` (int or SeedSequence) and simulate ``sc``."""
    from .bandwidth import fmreduce_bandwidths   # here: scipy.special is slow to import (--help)

    ss = as_seed_sequence(seed)
    b = fmreduce_bandwidths(sc.n, np.random.default_rng(child_seed(ss, 0)), unit=sc.bw_unit_mbps * Mbps)
    trace = load_trace(sc.trace).rescaled(sc.compute_mean_s)
    ct = trace.compute_times(sc.n, child_seed(ss, 1), chunk=64)
    return simulate(b, sc.p, model_bits=sc.model_mb * MB, duration_s=sc.duration_s, compute_time=ct,
                    reducers=sc.reducers, mode=sc.mode, split=sc.split, sharing=sc.sharing,
                    reduce_s_per_mb=sc.reduce_s_per_mb, lp_solver=sc.lp_solver)


@trial_of(Scenario, example={"n": 6, "p": 3, "duration_s": 10.0, "model_mb": 20.0})
def run_trial(params: Scenario | dict, rng_seed: np.random.SeedSequence) -> dict:
    """Sweep trial and ``python -m simlib fmreduce``'s: a :class:`Scenario` (used as it is: a sweep builds
    each dict setting once and keys its cache on ``to_params()``, :class:`~simlib.papers.trial.Trial`) or,
    called directly, its flat dict (built here, ``Scenario.of``) -> flat metrics (rounds, iterations,
    phase means in s); the run is offered to a timeline capture (:func:`simlib.runtime.capture.offer`)."""
    sc = Scenario.of(params)
    res = run(sc, rng_seed)
    offer({"result": res, "n": sc.n}, "simlib.papers.fmreduce.timeline:fmreduce_events")   # for --timeline
    out = {"rounds": res.rounds, "iterations": res.iterations,
           "rounds_per_min": 60.0 * res.rounds / sc.duration_s,
           "mean_round_time_s": res.mean_round_time_s}
    out.update({f"{ph}_s": res.phase_means_s[ph] for ph in PHASES})
    return out
