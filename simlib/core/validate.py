"""Parameter validation shared by every public entry point.

Each helper raises ``ValueError`` whose message names the parameter, the
allowed range and the offending value, e.g.
``"p must be in (0, 1], got 1.5"``.  They return the (converted) value so
callers can write ``n = check_int("n", n, lo=1)``.
"""
from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Callable, Iterable, Sequence

__all__ = [
    "check_int",
    "check_real",
    "check_choice",
    "check_probability",
    "check_array",
    "check_list",
    "from_params",
]


def _fmt_interval(lo, hi, lo_open: bool, hi_open: bool) -> str:
    left = "(" if lo_open or lo is None else "["
    right = ")" if hi_open or hi is None else "]"
    lo_s = "-inf" if lo is None else repr(lo)
    hi_s = "inf" if hi is None else repr(hi)
    return f"{left}{lo_s}, {hi_s}{right}"


def check_real(
    name: str,
    value,
    lo: float | None = None,
    hi: float | None = None,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
    allow_inf: bool = False,
) -> float:
    """Return ``float(value)`` if it is a finite real in the interval, else raise ``ValueError``."""
    # the message is only formatted on failure: this runs on every simulated event
    if type(value) is float:                # the common case, without the abstract-class check of Real
        v = value
    elif isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a real number in {_fmt_interval(lo, hi, lo_open, hi_open)}, "
                         f"got {value!r}")
    else:
        v = float(value)
    if math.isnan(v) or (math.isinf(v) and not allow_inf):
        raise ValueError(f"{name} must be a finite real number in {_fmt_interval(lo, hi, lo_open, hi_open)}, "
                         f"got {value!r}")
    if (lo is not None and (v < lo or (lo_open and v == lo))) or \
            (hi is not None and (v > hi or (hi_open and v == hi))):
        raise ValueError(f"{name} must be in {_fmt_interval(lo, hi, lo_open, hi_open)}, got {value!r}")
    return v


def check_int(name: str, value, lo: int | None = None, hi: int | None = None) -> int:
    """Return ``int(value)`` if it is an integer in ``[lo, hi]``, else raise ``ValueError``."""
    if type(value) is int and (lo is None or value >= lo) and (hi is None or value <= hi):
        return value                        # the common case, without the abstract-class check of Integral
    if isinstance(value, bool):
        raise ValueError(f"{name} must be an integer in {_fmt_interval(lo, hi, False, False)}, got {value!r}")
    if not isinstance(value, Integral):
        if isinstance(value, Real) and math.isfinite(float(value)) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer in {_fmt_interval(lo, hi, False, False)}, "
                             f"got {value!r}")
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ValueError(f"{name} must be an integer in {_fmt_interval(lo, hi, False, False)}, got {value!r}")
    return v


def check_probability(name: str, value) -> float:
    """A real in ``[0, 1]``."""
    return check_real(name, value, 0.0, 1.0)


def check_choice(name: str, value, choices: Iterable) -> object:
    """Return ``value`` if it is one of ``choices``, else raise ``ValueError`` listing them."""
    choices = list(choices)
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def check_array(name: str, values: Sequence, lo: float | None = None, hi: float | None = None,
                *, lo_open: bool = False, min_len: int = 0):
    """Validate a 1-D sequence of finite reals elementwise; return a float numpy array."""
    import numpy as np

    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D sequence of reals, got shape {arr.shape}")
    if arr.size < min_len:
        raise ValueError(f"{name} must have at least {min_len} elements, got {arr.size}")
    bad = ~np.isfinite(arr)
    if lo is not None:
        bad |= (arr <= lo) if lo_open else (arr < lo)
    if hi is not None:
        bad |= arr > hi
    if bad.any():
        i = int(np.flatnonzero(bad)[0])     # the message is only formatted on failure (hot callers)
        raise ValueError(f"{name} must have every element finite and in {_fmt_interval(lo, hi, lo_open, False)}; "
                         f"element {i} is {arr[i]!r}")
    return arr


def check_list(name: str, value, check_item: Callable[[str, object], object], *, min_len: int = 1) -> list:
    """Validate a list parameter elementwise; returns the list of checked items.

    ``value`` is a list or tuple, or a string holding one in YAML/JSON
    (``"[40, 80]"``: what ``papermill -p n_values "[40, 80]"`` passes).  Each
    item is checked with ``check_item(f"{name}[{i}]", item)``, e.g.
    ``lambda k, v: check_int(k, v, 2)``.  A scalar is an error that shows how
    to pass a list.
    """
    if isinstance(value, str):
        import yaml

        try:
            parsed = yaml.safe_load(value)
        except yaml.YAMLError:
            parsed = value
        if not isinstance(parsed, list):
            raise ValueError(f"{name} must be a list such as [1, 2] (YAML/JSON when given as text), "
                             f"got {value!r}")
        value = parsed
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{name} must be a list such as [1, 2] (papermill: -p {name} \"[1, 2]\"), "
                         f"got {value!r}")
    if len(value) < min_len:
        raise ValueError(f"{name} must have at least {min_len} element(s), got {list(value)!r}")
    return [check_item(f"{name}[{i}]", item) for i, item in enumerate(value)]


def from_params(cls, params: dict):
    """``cls(**params)`` for a dataclass ``cls``, rejecting keys that are not its fields by name
    (sweeps pass flat setting dicts; a typo must not be silently ignored)."""
    import dataclasses

    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(params) - names)
    if unknown:
        raise ValueError(f"unknown scenario parameter(s) {unknown}; allowed: {sorted(names)}")
    return cls(**params)
