"""A small family of compute-time shapes around a distribution trace: log-spread and i.i.d. stragglers.

Seed 004 §IV-A2 drives its SSP runs with eager-SGD's measured runtime distributions (Fig. 3), which are
not public; the project's stand-ins (decision T1) copy only their qualitative shape.  Decision SM75
calibrates each stand-in's spread and tail on the paper's baseline numbers; this module is the family
it searches.  :func:`shaped` maps a :class:`~simlib.workloads.traces.Trace` ``X`` (samples x, seconds)
and three knobs to a new trace:

1. **spread** ``s`` (dimensionless, > 0): every sample moved in log space away from (s > 1) or toward
   (s < 1) the samples' geometric mean g: ``y = g · (x / g)^s``.  Modes, order and skew direction stay;
   the log-standard deviation is multiplied by s (so CV grows or shrinks with it).
2. **stragglers** ``f`` (fraction, in [0, 1)) slowed by ``c`` (factor, >= 1): an i.i.d. draw is a
   straggler with probability f and then takes c times as long, i.e. the mixture
   ``F_Z(t) = (1 - f) F_Y(t) + f F_Y(t / c)`` of the piecewise-linear distribution of y (T3).  It is
   stored as the mixture's quantiles at the trace's own n grid points i / (n - 1), so ``Z`` is again a
   trace of n samples sampled by T3's inverse CDF (no extra random numbers, nothing seeded).
3. the result is rescaled to ``X``'s mean (T2: every trace has the mean the paper states; the scenario
   rescales to its ``compute_mean_s`` afterwards, as before).

The logarithms, g and the powers are the C library's scalar ``log``, ``exp`` and ``pow`` (``sqrt`` for s = 1/2),
element by element, not numpy's run-time dispatched SIMD loops: the same bits on every host with the same C
library and FMA (glibc picks its routines by that alone; decision S44).

At the defaults (s = 1, f = 0; c is then irrelevant) :func:`shaped` returns ``X`` itself: the family
contains today's stand-ins bit for bit.  Stragglers are per draw (a worker is not persistently slow):
the stand-ins are i.i.d. draws from one distribution (T3), as the paper's "distribution of the runtime".
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simlib.core.validate import check_real
from simlib.workloads.traces import Trace

__all__ = ["Shape", "DEFAULT_SHAPE", "SPREAD_MAX", "SLOWDOWN_MAX", "shaped", "shape_summary", "wasserstein1"]

#: The largest log-spread factor s (a spread of 10 already turns a CV of 0.07 into one above 1).
SPREAD_MAX = 10.0
#: The largest straggler slowdown c.
SLOWDOWN_MAX = 100.0


@dataclass(frozen=True)
class Shape:
    """One member of the family: ``spread`` s (log-spread factor, > 0), ``straggler_frac`` f (share of
    draws slowed, [0, 1)) and ``straggler_slowdown`` c (their slowdown factor, >= 1).  Validated on
    construction (a ``ValueError`` names the knob and its range)."""

    spread: float = 1.0
    straggler_frac: float = 0.0
    straggler_slowdown: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "spread", check_real("spread", self.spread, lo=0.0, lo_open=True,
                                                                      hi=SPREAD_MAX))
        object.__setattr__(self, "straggler_frac", check_real("straggler_frac", self.straggler_frac, 0.0, 1.0,
                                                              hi_open=True))
        object.__setattr__(self, "straggler_slowdown", check_real("straggler_slowdown", self.straggler_slowdown,
                                                                  lo=1.0, hi=SLOWDOWN_MAX))

    @property
    def is_identity(self) -> bool:
        """True when :func:`shaped` returns the trace unchanged (s = 1 and no straggler slows anything)."""
        return self.spread == 1.0 and (self.straggler_frac == 0.0 or self.straggler_slowdown == 1.0)

    def label(self) -> str:
        """``"s = 0.5, f = 0.02 at 4x"`` (``"as generated"`` for the identity)."""
        if self.is_identity:
            return "as generated"
        out = f"s = {self.spread:g}"
        if self.straggler_frac > 0 and self.straggler_slowdown > 1:
            out += f", f = {self.straggler_frac:g} at {self.straggler_slowdown:g}x"
        return out

    def settings(self) -> dict:
        """The scenario parameters of this shape (``SSPScenario``'s names)."""
        return {"spread": float(self.spread), "straggler_frac": float(self.straggler_frac),
                "straggler_slowdown": float(self.straggler_slowdown)}


#: Today's stand-ins, as generated (``scripts/make_traces.py``, T1).
DEFAULT_SHAPE = Shape()


def _mixture_quantiles(y: np.ndarray, f: float, c: float, n: int) -> np.ndarray:
    """Quantiles at i / (n - 1), i = 0..n-1, of (1 - f) Y + f (c Y) for Y the piecewise-linear
    distribution of the sorted samples ``y`` (T3).  F_Z is piecewise linear between the merged
    breakpoints {y_i} ∪ {c y_i}, so its inverse is exact linear interpolation there."""
    grid = np.linspace(0.0, 1.0, y.size)
    pts = np.unique(np.concatenate([y, c * y]))
    fz = (1.0 - f) * np.interp(pts, y, grid) + f * np.interp(pts / c, y, grid)
    fz = np.maximum.accumulate(fz)          # monotone to the last bit
    q = np.linspace(0.0, 1.0, n)
    return np.interp(q, fz, pts)


def _libm(fn, x: np.ndarray) -> np.ndarray:
    """``fn`` (a scalar function of the C library's ``math``) applied to every element of ``x``, one at a time.

    Decision S44: numpy's ``log``, ``exp`` and ``power`` on float64 dispatch at run time to AVX-512 loops
    where the CPU has them, whose last bits differ from the C library's, so a shaped stand-in trace (and
    every SSP run at 004's paper profile) depended on the host; the C library's scalar routines do not
    (where numpy has no such loops, as on an AVX2 host, they are what numpy calls: the same values)."""
    return np.fromiter(map(fn, x.tolist()), dtype=np.float64, count=x.size)


def shaped(trace: Trace, shape: Shape = DEFAULT_SHAPE) -> Trace:
    """``trace`` with ``shape``'s spread and stragglers, at ``trace``'s mean (see the module docstring);
    ``trace`` itself when the shape is the identity (for any trace, a recorded one included).  Named
    ``"<name> (<shape label>)"``."""
    if not isinstance(shape, Shape):
        raise ValueError(f"shape must be a Shape, got {shape!r}")
    if not isinstance(trace, Trace):
        raise ValueError(f"trace must be a Trace, got {trace!r}")
    if shape.is_identity:
        return trace
    if hasattr(trace, "sequences"):
        raise ValueError(f"trace must be a distribution Trace to be shaped (a recorded trace is replayed as "
                         f"recorded, T7), got {trace!r}")
    if trace.n == 1:
        return trace
    x = trace.samples
    g = math.exp(float(np.mean(_libm(math.log, x))))
    pw = math.sqrt if shape.spread == 0.5 else (lambda r: math.pow(r, shape.spread))  # (numpy's r ** 0.5: sqrt)
    y = g * _libm(pw, x / g) if shape.spread != 1.0 else x
    if shape.straggler_frac > 0 and shape.straggler_slowdown > 1:
        y = _mixture_quantiles(np.sort(y), shape.straggler_frac, shape.straggler_slowdown, x.size)
    return Trace(f"{trace.name} ({shape.label()})", y).rescaled(trace.mean)


def wasserstein1(a: Trace, b: Trace, points: int = 20_001) -> float:
    """The Wasserstein-1 distance (s) between two traces' piecewise-linear distributions:
    ∫_0^1 |Q_a(u) - Q_b(u)| du, by the trapezoid rule on ``points`` equally spaced u."""
    u = np.linspace(0.0, 1.0, int(points))
    return float(np.trapezoid(np.abs(a.quantile(u) - b.quantile(u)), u))


def shape_summary(trace: Trace) -> dict:
    """The shape statistics notebook 48 compares (every one scale-free, i.e. in units of the mean):
    ``cv`` (std / mean), ``p50``, ``p90``, ``p99``, ``p999`` and ``max`` over the mean, and
    ``top1_share`` (the share of the total time in the slowest 1 % of draws)."""
    x = np.sort(np.asarray(trace.samples, dtype=float))
    m = float(x.mean())
    top = x[int(np.floor(0.99 * x.size)):]
    q = trace.quantile(np.array([0.5, 0.9, 0.99, 0.999])) / trace.mean
    return {"cv": float(x.std() / m), "p50": float(q[0]), "p90": float(q[1]), "p99": float(q[2]),
            "p999": float(q[3]), "max": float(x[-1] / trace.mean), "top1_share": float(top.sum() / x.sum())}
