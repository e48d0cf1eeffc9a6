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
* :class:`OnlineECDF`: the controller's "cold start" estimate of F_Phi built
  from the compute times observed so far (seed 000 §IV-B5).

All times are in seconds.  The built-in traces (``TRACE_NAMES``) are synthetic
stand-ins; see ``data/README.md``.
"""
from __future__ import annotations

import bisect
import csv
import math
import os
from dataclasses import dataclass
from numbers import Real
from pathlib import Path

import numpy as np

from simlib.core.seeding import check_rng
from simlib.core.validate import check_array, check_int, check_real

__all__ = ["TRACE_NAMES", "TRACE_DIR", "Trace", "load_trace", "check_trace", "OnlineECDF"]

#: Names of the built-in traces (files ``simlib/workloads/trace_data/<name>.csv``, shipped with the package).
TRACE_NAMES = ("cnn", "transformer", "lstm")
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
        arr = np.sort(arr)
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
        x = self.samples
        if x.size == 1:
            return _scalar_or_array(np.full(q_arr.shape, x[0]))
        pos = q_arr * (x.size - 1)
        i = np.minimum(np.floor(pos).astype(np.int64), x.size - 2)
        frac = pos - i
        return _scalar_or_array(x[i] + frac * (x[i + 1] - x[i]))

    def sample(self, rng: np.random.Generator, size: int | None = None):
        """Draw compute times (s): ``quantile(U)`` with U ~ U[0, 1) from ``rng``.

        ``size=None`` returns one float, an int returns an array of that length.
        The draws follow exactly :meth:`cdf` (inverse-transform sampling).
        """
        check_rng(rng)
        if size is None:
            return float(self.quantile(rng.random()))
        size = check_int("size", size, lo=0)
        return np.asarray(self.quantile(rng.random(size)), dtype=float).reshape(size)

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


# --------------------------------------------------------------------------- loading
def _read_csv(path: Path) -> np.ndarray:
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = [r for r in csv.reader(fh)]
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"name_or_path: cannot read trace file {str(path)!r}: {exc}") from exc
    rows = [(lineno, [c.strip() for c in r]) for lineno, r in enumerate(rows, start=1)
            if r and any(c.strip() for c in r) and not r[0].lstrip().startswith("#")]
    if not rows:
        raise ValueError(f"name_or_path: trace file {str(path)!r} is empty "
                         f"(expected a column {COLUMN!r} of compute times in seconds)")

    def _is_number(s: str) -> bool:
        try:
            float(s)
            return True
        except ValueError:
            return False

    col = 0
    first = rows[0][1]
    if not all(_is_number(c) for c in first if c):  # header row
        if COLUMN in first:
            col = first.index(COLUMN)
        elif len(first) == 1:
            # a named single column must be the one in seconds: "compute_time_ms" read as
            # seconds would be 1000x off
            raise ValueError(f"name_or_path: trace file {str(path)!r} has the single column "
                             f"{first[0]!r}; expected {COLUMN!r} (compute times in seconds) or no "
                             "header at all")
        else:
            raise ValueError(f"name_or_path: trace file {str(path)!r} has columns {first} but "
                             f"no {COLUMN!r} column (or use a single-column CSV)")
        rows = rows[1:]
    elif len(first) != 1:
        raise ValueError(f"name_or_path: trace file {str(path)!r} has {len(first)} columns and "
                         f"no header; expected a header with {COLUMN!r} or a single column")
    values = []
    for lineno, r in rows:
        cell = r[col] if col < len(r) else ""
        try:
            values.append(float(cell))
        except ValueError:
            raise ValueError(f"name_or_path: trace file {str(path)!r} line {lineno}: "
                             f"{cell!r} is not a number") from None
    if not values:
        raise ValueError(f"name_or_path: trace file {str(path)!r} has a header but no data rows")
    arr = np.asarray(values, dtype=float)
    bad = ~np.isfinite(arr) | (arr <= 0.0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"name_or_path: trace file {str(path)!r}: compute times must be finite "
                         f"and > 0 seconds; data row {i + 1} is {arr[i]!r}")
    return arr


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


def load_trace(name_or_path) -> Trace:
    """Load a trace by built-in name (one of ``TRACE_NAMES``) or from a user CSV path.

    CSV format: a header row with a column ``compute_time_s`` (other columns
    ignored), or a single column without a header (a single column with any
    other header, e.g. ``compute_time_ms``, is an error: its unit is unknown); one compute time
    per row in seconds, finite and > 0.  Blank lines and lines starting with
    ``#`` are skipped.  A path-loaded trace is named after the file stem.
    Raises ValueError for unknown names, missing files and bad data.
    Built-in traces are parsed once per process and then shared (a Trace is
    immutable).
    """
    if isinstance(name_or_path, str) and name_or_path in TRACE_NAMES:
        path = TRACE_DIR / f"{name_or_path}.csv"
        if not path.is_file():
            raise ValueError(f"name_or_path: built-in trace file {str(path)!r} is missing; "
                             f"regenerate it with scripts/make_traces.py")
        st = path.stat()
        key = (st.st_mtime_ns, st.st_size)
        cached = _BUILTIN_CACHE.get(name_or_path)
        if cached is None or cached[0] != key:  # Trace is immutable, so sharing is safe
            cached = (key, Trace(name_or_path, _read_csv(path)))
            _BUILTIN_CACHE[name_or_path] = cached
        return cached[1]
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise ValueError(f"name_or_path must be one of {TRACE_NAMES} or a path to a CSV file, "
                         f"got {name_or_path!r}")
    path = Path(name_or_path)
    if not path.is_file():
        raise ValueError(f"name_or_path must be one of {TRACE_NAMES} or a path to an existing "
                         f"CSV file, got {str(name_or_path)!r}")
    return Trace(path.stem or "trace", _read_csv(path))


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
