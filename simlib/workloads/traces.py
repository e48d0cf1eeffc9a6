"""Per-iteration compute-time traces and their (empirical) distributions.

Seed 000 §II-B / §III-D1 and seed 004 §IV-A2 drive every worker's
per-iteration compute time T (seconds) with a runtime distribution
F_Phi(t) = P(T <= t) taken from measured traces (Fig. 1 of seed 000,
Fig. 3 of seed 004).  This module provides

* :func:`load_trace` / :class:`Trace`: a trace read from CSV, sampled by
  inverse-CDF of its *piecewise-linear* empirical CDF (so draws are continuous),
  with the matching :meth:`Trace.cdf`, :meth:`Trace.quantile`,
  :meth:`Trace.rescaled` (seed 004 rescales every trace to a mean of 1000 ms)
  and :meth:`Trace.conditional_completion_prob` (seed 000 Eq. 4);
* :class:`RecordedTrace`: a real trace, i.e. recorded per-worker *sequences*
  (Alibaba PAI, ByteDance; ``REAL_TRACE_NAMES``), whose distribution view is the
  pooled distribution of all its recorded times;
* :meth:`Trace.compute_times`: the per-worker compute-time source of a run --
  i.i.d. draws for a distribution, :class:`ReplayComputeTimes` (each simulated
  worker replays one recorded worker's sequence, decision T7) for a recorded trace;
* :class:`OnlineECDF`: the controller's "cold start" estimate of F_Phi built
  from the compute times observed so far (seed 000 §IV-B5).

All times are in seconds.  The built-in traces are synthetic stand-ins
(``STANDIN_NAMES``) and real traces (``REAL_TRACE_NAMES``), every one at a mean
of 1.0 s; see ``data/README.md`` and ``data/traces/README.md``.
"""
from __future__ import annotations

import bisect
import csv
import math
import os
import warnings
from dataclasses import dataclass
from numbers import Real
from pathlib import Path

import numpy as np

from simlib.core.seeding import as_seed_sequence, check_rng
from simlib.core.validate import check_array, check_choice, check_int, check_real
from simlib.runtime.cluster import ComputeTimes

__all__ = ["TRACE_NAMES", "STANDIN_NAMES", "REAL_TRACE_NAMES", "TRACE_DIR", "Trace", "RecordedTrace",
           "ReplayComputeTimes", "TraceWrapWarning", "REPLAY_JITTER", "REPLAY_OFFSETS", "TRACE_HELP",
           "load_trace", "check_trace", "check_trace_file", "OnlineECDF"]

#: Synthetic stand-ins for the papers' traces (i.i.d. draws; ``scripts/make_traces.py``).
STANDIN_NAMES = ("cnn", "transformer", "lstm")
#: Real recorded per-worker traces (replayed in order; ``scripts/derive_real_traces.py``, decision T7).
REAL_TRACE_NAMES = ("pai-job1", "pai-job2", "pai-job3", "pai-job4", "bytedance-se", "bytedance-ar",
                    "bytedance-st")
#: Names of the built-in traces (files ``simlib/workloads/trace_data/<name>.csv``, shipped with the package).
TRACE_NAMES = STANDIN_NAMES + REAL_TRACE_NAMES
#: ``--help`` text of a ``--trace`` flag (append the default).
TRACE_HELP = ("compute-time trace: a stand-in (" + ", ".join(STANDIN_NAMES) + "), a real trace replayed per "
              "worker (" + ", ".join(REAL_TRACE_NAMES) + "; decision T7) or a CSV path")
#: Default log-normal sigma of the per-draw multiplicative jitter of copied workers (decision T7).
REPLAY_JITTER = 0.02
#: Where replayed workers start in their recorded sequence (decision T7): "copy" -- the workers
#: replaying one copy of the recording share one seeded offset (the recorded job, step-aligned);
#: "worker" -- every worker its own seeded offset.
REPLAY_OFFSETS = ("copy", "worker")
#: Directory holding the built-in trace files.
TRACE_DIR = Path(__file__).resolve().parent / "trace_data"
#: CSV column holding compute times in seconds.
COLUMN = "compute_time_s"


# --------------------------------------------------------------------------- helpers
def _float_array(name: str, values) -> np.ndarray:
    """``values`` (a real or an array of reals, any shape) as a float ndarray, or ValueError."""
    if isinstance(values, (str, bytes, bool)):
        raise ValueError(f"{name} must be a real number or an array of reals, got {values!r}")
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number or an array of reals, "
                         f"got {values!r}") from None


def _real_array(name: str, values, lo: float | None = None, *, lo_open: bool = False) -> np.ndarray:
    """Validate a scalar or array of finite reals (any shape); return a float ndarray."""
    arr = _float_array(name, values)
    return check_array(name, arr.ravel(), lo=lo, lo_open=lo_open).reshape(arr.shape)


def _time_array(name: str, values) -> np.ndarray:
    """Scalar or array of times (s) for CDF queries: reals, +-inf allowed, NaN rejected."""
    arr = _float_array(name, values)
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not contain NaN, got {values!r}")
    return arr


def _scalar_or_array(x: np.ndarray):
    return float(x) if x.ndim == 0 else x


def _conditional(f_t: np.ndarray, f_tdt: np.ndarray) -> np.ndarray:
    """(F(t+dt) - F(t)) / (1 - F(t)); 1.0 where 1 - F(t) == 0 (see Trace docs)."""
    survival = 1.0 - f_t
    out = np.ones(np.broadcast(f_t, f_tdt).shape, dtype=float)
    ok = np.broadcast_to(survival > 0.0, out.shape)
    num = np.broadcast_to(f_tdt - f_t, out.shape)
    den = np.broadcast_to(survival, out.shape)
    out[ok] = num[ok] / den[ok]
    return np.clip(out, 0.0, 1.0)


# --------------------------------------------------------------------------- Trace
@dataclass(frozen=True, eq=False)
class Trace:
    """An empirical per-iteration compute-time distribution (seconds).

    ``samples`` is stored sorted ascending, read-only, all finite and > 0.
    With sorted samples x_0 <= ... <= x_{n-1} the distribution used
    everywhere in this class is the *piecewise-linear empirical CDF*:
    F(x_i) = i / (n - 1), linear between consecutive distinct sample values
    (a vertical step where values repeat), F = 0 below x_0 and F = 1 at and
    above x_{n-1}.  It is continuous on [x_0, x_{n-1}] when values are
    distinct.  A one-sample trace is a point mass at x_0.
    :meth:`sample` draws from exactly this distribution (inverse CDF of a
    uniform), :meth:`quantile` is its inverse and :attr:`mean` its expectation.
    """

    name: str
    samples: np.ndarray

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string, got {self.name!r}")
        arr = check_array("samples", self.samples, lo=0.0, lo_open=True, min_len=1)
        # samples already in order (a rescaled or re-spread trace's: monotone maps of sorted samples) are only
        # copied: sorting 20,000 sorted values took ~0.25 ms of every trial with compute_mean_s (issue 48)
        arr = np.sort(arr) if (arr[1:] < arr[:-1]).any() else arr.copy()
        arr.setflags(write=False)
        object.__setattr__(self, "samples", arr)

    def __repr__(self) -> str:
        return (f"Trace(name={self.name!r}, n={self.samples.size}, mean={self.mean:.6g} s, "
                f"min={self.samples[0]:.6g} s, max={self.samples[-1]:.6g} s)")

    # -- summary ---------------------------------------------------------------
    @property
    def n(self) -> int:
        """Number of samples."""
        return int(self.samples.size)

    @property
    def mean(self) -> float:
        """Expectation (s) of the piecewise-linear distribution that :meth:`sample` draws from.

        Equals ``(sum(x) - (x_0 + x_{n-1}) / 2) / (n - 1)`` (trapezoids between
        consecutive order statistics); it differs from the arithmetic sample
        mean by O((x_{n-1} - x_0) / n).
        """
        x = self.samples
        if x.size == 1:
            return float(x[0])
        return float((x.sum() - 0.5 * (x[0] + x[-1])) / (x.size - 1))

    # -- distribution ------------------------------------------------------------
    def cdf(self, t):
        """F_Phi(t) = P(T <= t) for scalar or array ``t`` (seconds); returns float or array.

        0 below the smallest sample, 1 at and above the largest, piecewise
        linear in between (see class docstring).  Right-continuous.
        """
        t_arr = _time_array("t", t)
        x = self.samples
        n = x.size
        k = np.searchsorted(x, t_arr, side="right")  # number of samples <= t
        if n == 1:
            return _scalar_or_array((k >= 1).astype(float))
        out = np.ones(t_arr.shape, dtype=float)
        out[k == 0] = 0.0
        mid = (k > 0) & (k < n)
        i = k[mid] - 1  # x[i] <= t < x[i+1]  (so x[i] < x[i+1])
        tm = t_arr[mid]
        frac = (tm - x[i]) / (x[i + 1] - x[i])
        out[mid] = (i + frac) / (n - 1)
        return _scalar_or_array(out)

    def quantile(self, q):
        """Inverse of :meth:`cdf`: the time (s) t with F(t) = q, for q in [0, 1] (scalar or array).

        Linear interpolation between order statistics at positions q * (n - 1):
        ``numpy.quantile(..., method="linear")``'s definition, written out because
        numpy evaluates the interpolation as ``b - (b - a)(1 - t)`` for t >= 0.5,
        which differs in the last bit for ~1e-5 of the draws and would perturb
        every committed result without changing anything else (decision T6).
        """
        q_arr = _real_array("q", q, lo=0.0)
        if (q_arr > 1.0).any():
            raise ValueError(f"q must have every element in [0.0, 1.0], got {q!r}")
        return _scalar_or_array(self._quantile_of(q_arr))

    def _quantile_of(self, q_arr: np.ndarray) -> np.ndarray:
        """:meth:`quantile` of a float array ``q_arr`` already in [0, 1] (not checked), as an array."""
        x = self.samples
        if x.size == 1:
            return np.full(q_arr.shape, x[0])
        pos = q_arr * (x.size - 1)
        i = np.minimum(np.floor(pos).astype(np.int64), x.size - 2)
        frac = pos - i
        return x[i] + frac * (x[i + 1] - x[i])

    def sample(self, rng: np.random.Generator, size: int | None = None):
        """Draw compute times (s): ``quantile(U)`` with U ~ U[0, 1) from ``rng``.

        ``size=None`` returns one float, an int returns an array of that length.
        The draws follow exactly :meth:`cdf` (inverse-transform sampling).
        """
        check_rng(rng)
        if size is None:
            return float(self.quantile(rng.random()))
        return self._draws(rng, check_int("size", size, lo=0))

    def _draws(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """``sample(rng, size)`` for a checked ``rng`` and int ``size`` >= 0, without checking them again
        (the same values: U = ``rng.random(size)`` is a float array in [0, 1), which :meth:`quantile`
        would only check)."""
        return self._quantile_of(rng.random(size)).reshape(size)

    def conditional_completion_prob(self, elapsed, dt):
        """P(T <= elapsed + dt | T > elapsed) = (F(t+dt) - F(t)) / (1 - F(t)), t = elapsed.

        Probability that a worker whose current iteration has already run for
        ``elapsed`` seconds finishes within the next ``dt`` seconds (seed 000
        §III-D1, Eq. 4).  ``elapsed`` >= 0 and ``dt`` >= 0 (seconds) may be
        scalars or broadcastable arrays.  When 1 - F(t) = 0 (the worker has
        already run at least as long as the longest sample) the result is
        defined as 1.0: this is the limit of the expression as t approaches
        the largest sample from below, i.e. "completion is imminent".
        """
        t = _real_array("elapsed", elapsed, lo=0.0)
        d = _real_array("dt", dt, lo=0.0)
        f_t = np.asarray(self.cdf(t), dtype=float)
        f_tdt = np.asarray(self.cdf(t + d), dtype=float)
        return _scalar_or_array(_conditional(f_t, f_tdt))

    def rescaled(self, mean_s: float, name: str | None = None) -> "Trace":
        """A new Trace with every sample multiplied by one constant so that ``.mean == mean_s``.

        ``mean_s`` > 0 seconds (seed 004 §IV-A2 uses 1.0 s).  The shape (CV,
        quantile ratios) is unchanged.  ``name`` defaults to the current name.
        """
        mean_s = check_real("mean_s", mean_s, lo=0.0, lo_open=True)
        factor = mean_s / self.mean
        return Trace(self.name if name is None else name, self.samples * factor)

    @property
    def cv(self) -> float:
        """Coefficient of variation of the samples: their population standard deviation over their
        arithmetic mean."""
        return float(self.samples.std() / self.samples.mean())

    def with_cv(self, cv: float, name: str | None = None) -> "Trace":
        """A new Trace whose :attr:`cv` is ``cv``: every sample moved away from (or toward) the samples'
        arithmetic mean ``m`` by one factor, ``m + (x - m) · cv / self.cv``, so ``m`` and the shape (skew,
        quantiles in units of the standard deviation) are kept (:attr:`mean`, the trapezoid rule, moves by
        O(range / n)).  ``cv`` >= 0; the smallest sample must stay > 0 (a ``ValueError`` names ``cv`` and
        its largest allowed value)."""
        cv = check_real("cv", cv, lo=0.0)
        m, x = float(self.samples.mean()), self.samples
        k = cv / self.cv if self.cv > 0 else np.inf
        top = self.cv * m / (m - x[0]) if x[0] < m else np.inf
        if cv >= top or (self.cv == 0 and cv > 0):
            raise ValueError(f"cv must be in [0, {top:.4g}) for trace {self.name!r} (its smallest sample must stay "
                             f"> 0), got {cv}")
        return Trace(self.name if name is None else name, m + (x - m) * k)

    def compute_times(self, n: int, seed, *, chunk: int = 256, scale=None) -> ComputeTimes:
        """The compute-time source of a run of ``n`` workers (``next(w)`` / ``take(w, k)``, seconds).

        For a distribution (this class) every worker draws i.i.d. from :meth:`sample` with its own
        generator ``child_seed(seed, w)``, ``chunk`` draws at a time: exactly
        ``ComputeTimes(trace.sample, n, seed, chunk=chunk, scale=scale)``, whose uniforms are shared
        by the runs of the process through its memo (``quantile``: the trace's quantile).  ``seed``: a
        SeedSequence or an int >= 0; ``scale[w]`` multiplies worker ``w``'s times (002's slowed
        workers).  :class:`RecordedTrace` replays recorded sequences instead (decision T7).
        """
        n = check_int("n", n, 1)
        # the sampler is sample() without its per-chunk checks (issue 48: ~0.008 s of a 10-minute SSP run), and
        # sample(rng, k) is quantile(rng.random(k)): the uniforms may come from the process's memo; both need a
        # Trace whose sample and quantile are these (a subclass's own keep their checks and their path)
        plain = type(self).sample is Trace.sample and type(self).quantile is Trace.quantile
        return ComputeTimes(self._draws if plain else self.sample, n, as_seed_sequence(seed),
                            chunk=check_int("chunk", chunk, 1), scale=scale,
                            quantile=self._quantile_of if plain else None)


class TraceWrapWarning(UserWarning):
    """A run needs more iterations of a worker than its recorded trace holds; replay wraps (T7)."""


class RecordedTrace(Trace):
    """A real trace: ``sequences[r]`` is recorded worker ``r``'s compute times (s), step by step.

    ``sequences`` is an R x L array (R recorded workers, L recorded steps, aligned: column ``i``
    is the same recorded step for every worker), all finite and > 0.  As a :class:`Trace` it is
    the *pooled* distribution of all R * L times (``samples``, :meth:`cdf`, :meth:`quantile`,
    :meth:`sample`, :meth:`conditional_completion_prob` as for any trace: selective reduce's
    F_Phi and SSP's tau estimates use it unchanged), except that :attr:`mean` is the arithmetic
    pooled mean -- the long-run mean of a replay -- so ``rescaled(m)`` makes a replay average
    ``m`` seconds.  :meth:`compute_times` replays the sequences (:class:`ReplayComputeTimes`).
    """

    def __init__(self, name: str, sequences):
        seqs = np.array(_float_array("sequences", sequences))  # a copy: made read-only below
        if seqs.ndim != 2 or seqs.size == 0:
            raise ValueError(f"sequences must be a non-empty 2-D array (recorded workers x steps), "
                             f"got shape {seqs.shape}")
        check_array("sequences", seqs.ravel(), lo=0.0, lo_open=True)
        seqs.setflags(write=False)
        object.__setattr__(self, "sequences", seqs)
        super().__init__(name, seqs.ravel())

    def __repr__(self) -> str:
        r, l = self.sequences.shape
        return (f"RecordedTrace(name={self.name!r}, workers={r}, steps={l}, mean={self.mean:.6g} s, "
                f"min={self.samples[0]:.6g} s, max={self.samples[-1]:.6g} s)")

    @property
    def workers(self) -> int:
        """Number of recorded workers R."""
        return int(self.sequences.shape[0])

    @property
    def steps(self) -> int:
        """Number of recorded steps L per worker."""
        return int(self.sequences.shape[1])

    @property
    def mean(self) -> float:
        """Arithmetic mean (s) of all recorded times: the long-run mean of a replay."""
        return float(self.sequences.mean())

    def rescaled(self, mean_s: float, name: str | None = None) -> "RecordedTrace":
        """Every recorded time multiplied by one constant so that the pooled mean is ``mean_s`` (s)."""
        mean_s = check_real("mean_s", mean_s, lo=0.0, lo_open=True)
        return RecordedTrace(self.name if name is None else name, self.sequences * (mean_s / self.mean))

    def with_cv(self, cv: float, name: str | None = None) -> "Trace":
        """Not defined for a recorded trace (its sequences are replayed as recorded): ``ValueError``."""
        raise ValueError(f"cv applies to a distribution trace, not the recorded trace {self.name!r}")

    def compute_times(self, n: int, seed, *, chunk: int = 256, scale=None, jitter: float = REPLAY_JITTER,
                      offsets: str = "copy") -> "ReplayComputeTimes":
        """Replay source for ``n`` workers (decision T7): see :class:`ReplayComputeTimes`."""
        return ReplayComputeTimes(self, n, seed, chunk=chunk, scale=scale, jitter=jitter, offsets=offsets)


class ReplayComputeTimes(ComputeTimes):
    """Compute times (s) of ``n`` simulated workers replaying a :class:`RecordedTrace` (decision T7).

    Simulated worker ``w`` replays recorded worker ``r = w mod R`` (copy ``c = w // R``) in
    recorded order, from a seeded offset ``o``: its ``i``-th time is
    ``sequences[r, (o + i) mod L] * j_i * scale[w]``.

    * ``offsets="copy"`` (default): one offset per copy, uniform on {0, ..., L-1}, shared by the
      R workers of that copy (they replay the recorded job step-aligned); ``"worker"``: an offset
      per worker.  Offsets are drawn from ``default_rng(seed)``.
    * ``jitter`` (log-normal sigma >= 0, default :data:`REPLAY_JITTER`): copies ``c >= 1`` (only
      when ``n > R``) multiply each time by its own ``j_i = exp(jitter * Z - jitter**2 / 2)``
      (mean 1), ``Z`` standard normal from worker ``w``'s generator ``child_seed(seed, w)``, so
      that copies of one recorded worker never coincide; copy 0 replays the recording exactly.
    * A worker that needs more than L times wraps to the start of its sequence; the first time
      any worker does, one :class:`TraceWrapWarning` is issued (once per object, i.e. per run).

    ``next(w)`` / ``take(w, k)`` as :class:`~simlib.runtime.cluster.ComputeTimes`; ``take`` gives
    the values of ``k`` calls to ``next``.
    """

    def __init__(self, trace: RecordedTrace, n: int, seed, *, chunk: int = 256, scale=None,
                 jitter: float = REPLAY_JITTER, offsets: str = "copy"):
        if not isinstance(trace, RecordedTrace):
            raise ValueError(f"trace must be a RecordedTrace, got {trace!r}")
        n = check_int("n", n, 1)
        seed = as_seed_sequence(seed)
        super().__init__(None, n, seed, chunk=check_int("chunk", chunk, 1), scale=scale)
        self._jitter = check_real("jitter", jitter, lo=0.0)
        check_choice("offsets", offsets, REPLAY_OFFSETS)
        self.trace = trace
        r_count, length = trace.sequences.shape
        w = np.arange(n)
        copy = w // r_count
        draws = np.random.default_rng(seed).integers(0, length, size=int(copy[-1]) + 1 if offsets == "copy" else n)
        #: recorded worker, first recorded step, and whether each simulated worker is jittered
        self.recorded = w % r_count
        self.offset = draws[copy] if offsets == "copy" else draws
        self._jittered = (copy >= 1) & (self._jitter > 0)
        self._drawn = np.zeros(n, dtype=np.int64)
        self._warned = False
        self._ahead = False

    #: Worker ``w``'s draws depend on its own stream only (its recorded worker, offset and jitter generator), so
    #: drawing ahead of the simulation gives the same values: the compiled cluster engine runs this source
    #: (issue 48; ``ComputeTimes``' protocol for it).
    per_worker_streams = True

    def drawing_ahead(self, on: bool) -> None:
        """While on, a draw past the recording does not warn (the caller may draw more than the run uses and
        reports what it used with :meth:`used_draws`)."""
        self._ahead = bool(on)

    def used_draws(self, counts) -> None:
        """The run used ``counts[w]`` draws of worker ``w``: the :class:`TraceWrapWarning` of a worker that
        needed more than the recorded steps, once per object, as drawing them one by one gives it."""
        if not self._warned and np.any(np.asarray(counts) > self.trace.steps):
            self._warn()

    def _warn(self) -> None:
        self._warned = True
        warnings.warn(f"trace {self.trace.name!r} records {self.trace.steps} steps per worker and this run "
                      "needs more: workers wrap to the start of their recorded sequence (decision T7)",
                      TraceWrapWarning, stacklevel=4)

    def _fill(self, w: int) -> np.ndarray:
        length = self.trace.steps
        done = int(self._drawn[w])
        if done >= length and not self._warned and not self._ahead:
            self._warn()
        k = self._chunk if done >= length else min(self._chunk, length - done)  # stop at the first wrap
        idx = (self.offset[w] + done + np.arange(k)) % length
        x = self.trace.sequences[self.recorded[w], idx]
        if self._jittered[w]:
            s = self._jitter
            x = x * np.exp(s * self._rngs[w].standard_normal(k) - 0.5 * s * s)
        self._drawn[w] = done + k
        return x


# --------------------------------------------------------------------------- loading
def _rows(path: Path, label: str) -> list[tuple[int, list[str]]]:
    """Non-blank, non-comment CSV rows of ``path`` as (line number, stripped cells)."""
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"{label}: cannot read file {str(path)!r}: {exc}") from exc
    out = []
    for lineno, r in enumerate(rows, start=1):   # a loop, not a generator per row: loaded once per process
        cells = [c.strip() for c in r]              # and trace, but up to 40,000 rows
        if any(cells) and not cells[0].startswith("#"):
            out.append((lineno, cells))
    return out


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def _read_csv(path: Path, label: str) -> np.ndarray:
    """Compute times (s) of a one-column trace file; ValueErrors start with ``label``."""
    rows = _rows(path, label)
    if not rows:
        raise ValueError(f"{label}: file {str(path)!r} is empty "
                         f"(expected a column {COLUMN!r} of compute times in seconds)")
    col = 0
    first = rows[0][1]
    if not all(_is_number(c) for c in first if c):  # header row
        if COLUMN in first:
            col = first.index(COLUMN)
        elif len(first) == 1:
            # a named single column must be the one in seconds: "compute_time_ms" read as
            # seconds would be 1000x off
            raise ValueError(f"{label}: file {str(path)!r} has the single column "
                             f"{first[0]!r}; expected {COLUMN!r} (compute times in seconds) or no "
                             "header at all")
        else:
            raise ValueError(f"{label}: file {str(path)!r} has columns {first} but "
                             f"no {COLUMN!r} column (or use a single-column CSV)")
        rows = rows[1:]
    elif len(first) != 1:
        raise ValueError(f"{label}: file {str(path)!r} has {len(first)} columns and "
                         f"no header; expected a header with {COLUMN!r} or a single column")
    values = []
    for lineno, r in rows:
        cell = r[col] if col < len(r) else ""
        try:
            values.append(float(cell))
        except ValueError:
            raise ValueError(f"{label}: file {str(path)!r} line {lineno}: "
                             f"{cell!r} is not a number") from None
    if not values:
        raise ValueError(f"{label}: file {str(path)!r} has a header but no data rows")
    arr = np.asarray(values, dtype=float)
    bad = ~np.isfinite(arr) | (arr <= 0.0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{label}: file {str(path)!r}: compute times must be finite "
                         f"and > 0 seconds; data row {i + 1} is {arr[i]!r}")
    return arr


def _read_recorded_csv(path: Path, label: str) -> np.ndarray:
    """The R x L matrix (recorded worker x step) of a derived real-trace file.

    Format (``scripts/derive_real_traces.py``): ``#`` comment lines, the header
    ``step,worker_0,...,worker_{R-1}``, then one row per recorded step; times finite and > 0
    in one unit per file (the loader rescales to a pooled mean of 1 s).
    """
    rows = _rows(path, label)
    if not rows or rows[0][1][:1] != ["step"] or len(rows[0][1]) < 2:
        raise ValueError(f"{label}: file {str(path)!r} must start with the header "
                         "'step,worker_0,...' (written by scripts/derive_real_traces.py)")
    width = len(rows[0][1])
    values = []
    for lineno, r in rows[1:]:
        if len(r) != width:
            raise ValueError(f"{label}: file {str(path)!r} line {lineno}: {len(r)} columns, "
                             f"expected {width}")
        try:
            row = [float(c) for c in r[1:]]
        except ValueError:
            raise ValueError(f"{label}: file {str(path)!r} line {lineno}: not a number in {r}") from None
        if not all(math.isfinite(x) and x > 0.0 for x in row):
            raise ValueError(f"{label}: file {str(path)!r} line {lineno}: compute times must be "
                             f"finite and > 0, got {r[1:]}")
        values.append(row)
    if not values:
        raise ValueError(f"{label}: file {str(path)!r} has a header but no data rows")
    return np.asarray(values, dtype=float).T


_BUILTIN_CACHE: dict[str, tuple[tuple[int, int], Trace]] = {}


def check_trace(name: str, value) -> str:
    """Validate a trace parameter: a built-in name (``TRACE_NAMES``) or an existing CSV path.

    Returns ``value``; raises ``ValueError`` naming the parameter otherwise.
    The file's content is checked when the trace is loaded.
    """
    if isinstance(value, str) and (value in TRACE_NAMES or Path(value).is_file()):
        return value
    raise ValueError(f"{name} must be one of {list(TRACE_NAMES)} or the path of an existing CSV file, "
                     f"got {value!r}")


def check_trace_file(name: str, value) -> str:
    """:func:`check_trace`, then the trace is loaded: a missing or malformed file is a ``ValueError``
    too (a ``--trace`` flag fails as ``argument --trace: ...``; a scenario names its field)."""
    check_trace(name, value)
    load_trace(value)
    return value


def _load_builtin(name: str) -> Trace:
    path = TRACE_DIR / f"{name}.csv"
    label = f"trace {name!r}"
    script = "scripts/make_traces.py" if name in STANDIN_NAMES else "scripts/derive_real_traces.py"
    if not path.is_file():
        raise ValueError(f"{label}: built-in data file {str(path)!r} is missing; regenerate it with {script}")
    st = path.stat()
    key = (st.st_mtime_ns, st.st_size)
    cached = _BUILTIN_CACHE.get(name)
    if cached is None or cached[0] != key:  # a Trace is immutable, so sharing is safe
        if name in STANDIN_NAMES:
            trace = Trace(name, _read_csv(path, label))
        else:
            seqs = _read_recorded_csv(path, label)
            trace = RecordedTrace(name, seqs / seqs.mean())  # T2: every built-in trace at mean 1 s
        cached = (key, trace)
        _BUILTIN_CACHE[name] = cached
    return cached[1]


def load_trace(name_or_path) -> Trace:
    """Load a trace by built-in name (one of ``TRACE_NAMES``) or from a user CSV path.

    Stand-ins (``STANDIN_NAMES``) and user CSVs give a :class:`Trace`; real traces
    (``REAL_TRACE_NAMES``) a :class:`RecordedTrace` whose pooled mean is 1.0 s (decision T2).
    CSV format: a header row with a column ``compute_time_s`` (other
    columns ignored), or a single column without a header (a single column with any
    other header, e.g. ``compute_time_ms``, is an error: its unit is unknown); one compute time
    per row in seconds, finite and > 0.  Blank lines and lines starting with
    ``#`` are skipped.  A path-loaded trace is named after the file stem.
    Raises ValueError naming the trace and the file for unknown names, missing files and bad data.
    Built-in traces are parsed once per process and then shared (a Trace is
    immutable).
    """
    if isinstance(name_or_path, str) and name_or_path in TRACE_NAMES:
        return _load_builtin(name_or_path)
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise ValueError(f"trace must be one of {list(TRACE_NAMES)} or a path to a CSV file, "
                         f"got {name_or_path!r}")
    path = Path(name_or_path)
    if not path.is_file():
        raise ValueError(f"trace must be one of {list(TRACE_NAMES)} or a path to an existing "
                         f"CSV file, got {str(name_or_path)!r}")
    return Trace(path.stem or "trace", _read_csv(path, f"trace {path.stem or 'trace'!r}"))


# --------------------------------------------------------------------------- OnlineECDF
class OnlineECDF:
    """Running empirical CDF of observed compute times: seed 000 §IV-B5 "cold start".

    When the runtime distribution is not known in advance, the controller
    uses the distribution of compute times observed so far.  ``cdf(t)`` is
    the (step) empirical CDF: the fraction of observations <= t.  Before any
    observation it returns ``prior`` (default 0.0: "no worker is predicted to
    finish", so a cold controller never waits on a prediction).

    Cost: ``observe`` is O(sqrt(n)) amortised (insertion into a small sorted
    buffer that is merged into a sorted numpy array when it exceeds
    ~sqrt(n) elements); a scalar ``cdf`` query is O(log n).  Observations are
    seconds, finite and >= 0.
    """

    __slots__ = ("_prior", "_main", "_buf", "_count")

    _MIN_BUFFER = 64

    def __init__(self, prior: float = 0.0):
        self._prior = check_real("prior", prior, 0.0, 1.0)
        self._main = np.empty(0, dtype=float)
        self._buf: list[float] = []
        self._count = 0

    def __repr__(self) -> str:
        return f"OnlineECDF(count={self._count}, prior={self._prior})"

    @property
    def prior(self) -> float:
        """Value of :meth:`cdf` before any observation (in [0, 1])."""
        return self._prior

    @property
    def count(self) -> int:
        """Number of observations so far."""
        return self._count

    def _maybe_merge(self, force: bool = False) -> None:
        if not self._buf:
            return
        limit = max(self._MIN_BUFFER, int(math.isqrt(self._count)))
        if force or len(self._buf) > limit:
            buf = np.asarray(self._buf, dtype=float)
            self._main = np.insert(self._main, np.searchsorted(self._main, buf, side="right"), buf)
            self._buf = []

    def observe(self, x: float) -> None:
        """Record one compute time ``x`` (seconds, finite, >= 0)."""
        x = check_real("x", x, lo=0.0)
        bisect.insort(self._buf, x)
        self._count += 1
        self._maybe_merge()

    def observe_many(self, xs) -> None:
        """Record a 1-D sequence of compute times (seconds, finite, >= 0)."""
        arr = check_array("xs", xs, lo=0.0)
        if arr.size == 0:
            return
        self._count += int(arr.size)
        arr = np.sort(arr)
        self._main = np.insert(self._main, np.searchsorted(self._main, arr, side="right"), arr)
        self._maybe_merge()

    def sorted_parts(self) -> tuple[np.ndarray, np.ndarray]:
        """The observations as two sorted arrays (s) whose union is every observation,
        without merging or copying the main one (for compiled CDF evaluation; do not modify)."""
        return self._main, np.asarray(self._buf, dtype=float)

    def set_sorted_parts(self, main: np.ndarray, buf: np.ndarray) -> None:
        """Make the observations the union of two sorted arrays (s), in the form :meth:`sorted_parts`
        returns: ``buf`` the recent ones the next :meth:`observe` inserts into, ``main`` the merged rest
        (how a compiled loop that observed for this ECDF hands its state back; not checked)."""
        self._main = np.array(main, dtype=float)
        self._buf = np.asarray(buf, dtype=float).tolist()
        self._count = self._main.size + len(self._buf)

    def samples(self) -> np.ndarray:
        """All observations so far, sorted ascending (a copy, seconds)."""
        self._maybe_merge(force=True)
        return self._main.copy()

    def cdf(self, t):
        """Fraction of observations <= t (scalar or array t, seconds); ``prior`` if none yet."""
        if isinstance(t, Real) and not isinstance(t, bool):
            tf = float(t)
            if math.isnan(tf):
                raise ValueError(f"t must not be NaN, got {t!r}")
            if self._count == 0:
                return self._prior
            k = int(np.searchsorted(self._main, tf, side="right")) + bisect.bisect_right(self._buf, tf)
            return k / self._count
        t_arr = _time_array("t", t)
        if self._count == 0:
            return _scalar_or_array(np.full(t_arr.shape, self._prior))
        k = np.searchsorted(self._main, t_arr, side="right")
        if self._buf:
            k = k + np.searchsorted(np.asarray(self._buf), t_arr, side="right")
        return _scalar_or_array(k / self._count)

    def conditional_completion_prob(self, elapsed, dt):
        """(F(t+dt) - F(t)) / (1 - F(t)) with t = ``elapsed``, F = this ECDF (seconds).

        Same convention as :meth:`Trace.conditional_completion_prob`: 1.0
        where 1 - F(t) = 0.  Before any observation F is the constant
        ``prior``, so the result is 0.0 (or 1.0 if ``prior`` == 1).
        """
        t = _real_array("elapsed", elapsed, lo=0.0)
        d = _real_array("dt", dt, lo=0.0)
        f_t = np.asarray(self.cdf(t), dtype=float)
        f_tdt = np.asarray(self.cdf(t + d), dtype=float)
        return _scalar_or_array(_conditional(f_t, f_tdt))
