"""Generic bandwidth machinery shared by the papers.  Every value is in bits/s.

* :func:`estimate_with_error`: seed 000 §IV-B5, estimated bandwidth b + b e x,
  x ~ U[-1, 1].
* :class:`TimeVaryingBandwidth`: seed 004 §IV-C6, b = b#(1 - gamma) + gamma b*
  re-drawn every Delta_T seconds.

Each paper's own bandwidth draws live in its package
(``simlib.papers.<paper>.bandwidth``).  Design decisions for points the papers
leave open are recorded in ``docs/decisions/traces_bandwidth.md``.
"""
from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from simlib.core.seeding import check_rng
from simlib.core.validate import check_int, check_real

__all__ = ["estimate_with_error", "error_estimator", "ErrorEstimator", "TimeVaryingBandwidth"]


def estimate_with_error(b, e: float, rng: np.random.Generator, *, floor: float = 1e6) -> np.ndarray:
    """Bandwidth estimates with relative error (seed 000 §IV-B5), bits/s, same shape as ``b``.

    estimate = b + b e x with x ~ U[-1, 1] i.i.d. per element.  ``b``: array
    of true bandwidths (bits/s, finite, >= 0, any shape); ``e`` >= 0 the error
    scale.  For e >= 1 (or e close to 1) the formula can give estimates
    <= 0; every estimate of a positive ``b`` is therefore raised to at least
    ``floor`` (bits/s, > 0, default 1 Mbps).  Entries with b == 0 (e.g. the
    zero diagonal of a link matrix) stay 0.
    """
    arr, e, floor = _checked(b, e, rng, floor)
    return _perturb(arr, e, rng, floor)


def error_estimator(b, e: float, rng: np.random.Generator, *, floor: float = 1e6) -> "ErrorEstimator":
    """``estimate(ids)``: :func:`estimate_with_error` of ``b[ids]`` with fresh errors on every
    call (bits/s), the arguments checked once here rather than on every call (a controller
    asks at every scheduling round).  ``b``: 1-D array of true bandwidths (bits/s)."""
    arr, e, floor = _checked(b, e, rng, floor)
    if arr.ndim != 1:
        raise ValueError(f"b must be a 1-D array of bandwidths, got shape {arr.shape}")
    return ErrorEstimator(arr, e, rng, floor)


@dataclass(frozen=True, eq=False)
class ErrorEstimator:
    """The callable :func:`error_estimator` returns: ``self(ids)`` is ``b[ids] + b[ids] e x`` with
    ``x = rng.uniform(-1, 1, size=len(ids))`` drawn afresh, positive entries floored at ``floor``
    (bits/s).  Its fields (already checked) let a compiled caller draw the same values: one
    ``next_double`` u of ``rng`` per id, x = -1 + 2 u (numpy's ``uniform``)."""

    b: np.ndarray                   # true bandwidths (bits/s), finite, >= 0
    e: float                        # error scale, >= 0
    rng: np.random.Generator
    floor: float                    # bits/s, > 0

    def __call__(self, ids) -> np.ndarray:
        return _perturb(self.b[ids], self.e, self.rng, self.floor)


def _checked(b, e, rng, floor) -> tuple[np.ndarray, float, float]:
    """The arguments of :func:`estimate_with_error`, checked: ``b`` as a new float array (every
    element finite and >= 0 bits/s), ``e`` >= 0 and ``floor`` > 0 bits/s; else ValueError."""
    try:
        arr = np.array(b, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"b must be an array of real bandwidths in bits/s, got {b!r}") from None
    bad = ~np.isfinite(arr) | (arr < 0.0)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"b must have every element finite and in [0.0, inf); "
                         f"element {idx} is {arr[idx]!r}")
    e = check_real("e", e, lo=0.0)
    check_rng(rng)
    return arr, e, check_real("floor", floor, lo=0.0, lo_open=True)


def _perturb(arr: np.ndarray, e: float, rng: np.random.Generator, floor: float) -> np.ndarray:
    """arr + arr e x, x ~ U[-1, 1], positive entries floored at ``floor`` (arguments already checked)."""
    x = rng.uniform(-1.0, 1.0, size=arr.shape)
    est = arr + arr * e * x
    pos = arr > 0.0
    est[pos] = np.maximum(est[pos], floor)
    return est


# --------------------------------------------------------------------------- seed 004 §IV-C6
class _LatestArrays:
    """The most recently used arrays by key, at most ``max_bytes`` in all (a memo of a pure
    function: what it returns is what recomputing would give; arrays are read-only)."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self._items: OrderedDict = OrderedDict()
        self._bytes = 0

    def get(self, key):
        arr = self._items.get(key)
        if arr is not None:
            self._items.move_to_end(key)
        return arr

    def put(self, key, arr: np.ndarray) -> None:
        if arr.nbytes > self.max_bytes or key in self._items:
            return
        self._items[key] = arr
        self._bytes += arr.nbytes
        while self._bytes > self.max_bytes:
            _, old = self._items.popitem(last=False)
            self._bytes -= old.nbytes


#: Period draws of :meth:`TimeVaryingBandwidth.schedule`, shared by the runs of one process
#: (128 MiB: 26 ten-minute n = 50 schedules of seed 004's Fig. 13, 4.8 MB each).
_DRAWS = _LatestArrays(128 * 2**20)


@dataclass(frozen=True, eq=False)
class TimeVaryingBandwidth:
    """Piecewise-constant time-varying bandwidth of seed 004 §IV-C6 (bits/s).

    b(t) = b# (1 - gamma) + gamma b*_k  for t in [k Delta_T, (k+1) Delta_T), k >= 1,
    b(t) = b#                           for t in [0, Delta_T),

    where b# = ``draw(rng_0)`` is drawn once "at the beginning of the training"
    and b*_k = ``draw(rng_k)`` freshly for every period k "using the same
    scheme".  ``draw(rng) -> ndarray`` is any generator above (e.g.
    ``lambda r: selective_reduce_bandwidths(50, r)``; for selmcast, stack the
    pair: ``lambda r: np.stack(selmcast_bandwidths(50, 40e9, 0.5, 1.0, r))``).
    ``gamma`` in [0, 1]; ``period`` = Delta_T > 0 seconds; ``seed`` an int >= 0
    or a ``numpy.random.SeedSequence``.

    Period k's generator is ``default_rng(SeedSequence(entropy, spawn_key=
    base_spawn_key + (k,)))`` (k = 0 for b#), so :meth:`at` is a pure function
    of t: the result does not depend on which times were queried before.
    Recent periods are cached (``cache_size`` entries).
    """

    draw: Callable[[np.random.Generator], np.ndarray]
    gamma: float
    period: float
    seed: int | np.random.SeedSequence
    cache_size: int = 64
    _base: np.random.SeedSequence = field(init=False, repr=False)
    _cache: OrderedDict = field(init=False, repr=False)
    _shape: tuple | None = field(init=False, repr=False, default=None)

    def __post_init__(self):
        if not callable(self.draw):
            raise ValueError(f"draw must be a callable draw(rng) -> array, got {self.draw!r}")
        object.__setattr__(self, "gamma", check_real("gamma", self.gamma, 0.0, 1.0))
        object.__setattr__(self, "period", check_real("period", self.period, lo=0.0, lo_open=True))
        object.__setattr__(self, "cache_size", check_int("cache_size", self.cache_size, lo=1))
        if isinstance(self.seed, np.random.SeedSequence):
            base = self.seed
        else:
            base = np.random.SeedSequence(check_int("seed", self.seed, lo=0))
        object.__setattr__(self, "_base", base)
        object.__setattr__(self, "_cache", OrderedDict())
        self._draw_period(0)  # validate draw() now and fix the output shape

    def _rng(self, k: int) -> np.random.Generator:
        b = self._base
        seq = np.random.SeedSequence(b.entropy, spawn_key=tuple(b.spawn_key) + (k,),
                                     pool_size=b.pool_size)
        return np.random.default_rng(seq)

    def _draw_period(self, k: int) -> np.ndarray:
        cached = self._cache.get(k)
        if cached is not None:
            self._cache.move_to_end(k)
            return cached
        try:
            arr = np.array(self.draw(self._rng(k)), dtype=float)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"draw must return an array of bandwidths in bits/s: {exc}") from exc
        if not np.isfinite(arr).all() or (arr < 0).any():
            raise ValueError("draw must return finite bandwidths >= 0 bits/s")
        shape = self._shape
        if shape is None:
            object.__setattr__(self, "_shape", arr.shape)
        elif arr.shape != shape:
            raise ValueError(f"draw must return arrays of one shape; got {arr.shape}, "
                             f"expected {shape}")
        arr.setflags(write=False)
        self._cache[k] = arr
        if len(self._cache) > self.cache_size:
            # keep b# (period 0) cached; drop the least recently used other period
            for key in self._cache:
                if key != 0:
                    del self._cache[key]
                    break
        return arr

    @property
    def initial(self) -> np.ndarray:
        """b#, the bandwidth drawn at the beginning (bits/s, a copy)."""
        return self._draw_period(0).copy()

    def period_index(self, t: float) -> int:
        """Index k of the period containing time ``t`` >= 0 s (k Delta_T <= t < (k+1) Delta_T).

        Consistent with :meth:`change_times`: at t == k * period exactly the
        period k has started.
        """
        t = check_real("t", t, lo=0.0)
        p = self.period
        k = int(math.floor(t / p))
        if (k + 1) * p <= t:
            k += 1
        elif k > 0 and k * p > t:
            k -= 1
        return k

    def at(self, t: float) -> np.ndarray:
        """Bandwidths (bits/s) in force at time ``t`` >= 0 seconds (a new array)."""
        k = self.period_index(t)
        b0 = self._draw_period(0)
        if k == 0 or self.gamma == 0.0:
            return b0.copy()
        bk = self._draw_period(k)
        if self.gamma == 1.0:
            return bk.copy()
        return b0 * (1.0 - self.gamma) + self.gamma * bk

    def __call__(self, t: float) -> np.ndarray:
        """Same as :meth:`at` (so the object is the ``bandwidth(t)`` callable simulators take)."""
        return self.at(t)

    def schedule(self, t_end: float) -> np.ndarray:
        """Bandwidths (bits/s) from every change time k Delta_T <= ``t_end`` s, k = 1..K, in one pass.

        Shape ``(K, *shape)``; row k - 1 equals ``at(k * period)`` bit for bit (same
        per-period generators, same arithmetic) without the per-query validation
        and cache, which cost most of a 6,000-period run's time.
        """
        k_last = self.period_index(check_real("t_end", t_end, lo=0.0))
        b0 = self._draw_period(0)
        if k_last == 0:
            return np.empty((0,) + b0.shape)
        if self.gamma == 0.0:
            return np.broadcast_to(b0, (k_last,) + b0.shape).copy()
        bk = self._period_draws(k_last)
        if self.gamma == 1.0:
            return bk.copy()
        return b0 * (1.0 - self.gamma) + self.gamma * bk

    def _period_draws(self, k_last: int) -> np.ndarray:
        """draw() of periods 1..k_last, shape ``(k_last, *shape)`` (read-only; bits/s).

        They depend only on the draw, the seed and k_last -- not on gamma or period -- so a
        sweep's runs that share them (paired trials: both schemes and every gamma of one trial)
        compute them once per process: :data:`_DRAWS` remembers the latest ones when ``draw``
        hashes by value (e.g. a frozen dataclass, like seed 004's
        :class:`~simlib.papers.selmcast.bandwidth.SelMcastBandwidthDraw`).  The values are the
        same either way."""
        b = self._base
        entropy = b.entropy if isinstance(b.entropy, int) else tuple(b.entropy)
        key = (self.draw, entropy, tuple(b.spawn_key), b.pool_size, k_last)
        try:
            bk = _DRAWS.get(key)
        except TypeError:                    # an unhashable draw: nothing to share
            key, bk = None, None
        if bk is not None:
            return bk
        try:
            bk = np.array([self.draw(self._rng(k)) for k in range(1, k_last + 1)], dtype=float)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"draw must return arrays of bandwidths in bits/s of one shape: {exc}") from exc
        if bk.shape[1:] != self._shape:
            raise ValueError(f"draw must return arrays of one shape; got {bk.shape[1:]}, expected {self._shape}")
        if not np.isfinite(bk).all() or (bk < 0).any():
            raise ValueError("draw must return finite bandwidths >= 0 bits/s")
        bk.setflags(write=False)
        if key is not None:
            _DRAWS.put(key, bk)
        return bk

    def change_times(self, t_end: float) -> np.ndarray:
        """Times (s) in (0, t_end] at which the bandwidth is updated: Delta_T, 2 Delta_T, ...

        (With gamma == 0 the value does not actually change; the times are
        still reported.)
        """
        t_end = check_real("t_end", t_end, lo=0.0)
        k_last = self.period_index(t_end)
        return np.arange(1, k_last + 1, dtype=float) * self.period
