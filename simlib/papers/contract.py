"""The paper contract: each parameter of a paper's scenario declared once, on its field.

A paper's ``Scenario`` is a frozen dataclass whose fields are declared with
:func:`param`: default, allowed range or choices, unit, help text, the
quick-profile value and (optionally) the command-line flag.  The command line,
the notebooks' parameter check and the sweep trial are generated from these
declarations, so a default or a range is written in exactly one place.

:class:`ParamSpec` is the declaration; :func:`spec_of` reads it back from a
dataclass field; :func:`check_param` validates one value against it (the
message names the parameter and its allowed range, as every check in
:mod:`simlib.core.validate`).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from simlib.core.validate import check_choice, check_int, check_real

__all__ = ["ParamSpec", "param", "spec_of", "specs", "check_param", "MISSING", "KINDS"]

#: Value kinds a parameter can have.
KINDS = ("int", "float", "str", "bool")


class _Missing:
    """Type of :data:`MISSING`."""

    def __repr__(self) -> str:
        return "MISSING"


#: Marker for "no quick-profile value" (the parameter keeps its value in the quick profile).
MISSING = _Missing()
_KEY = "simlib.contract"


@dataclass(frozen=True)
class ParamSpec:
    """How one scenario parameter is declared.

    ``kind`` is one of :data:`KINDS`; ``lo``/``hi`` bound numbers (``None``:
    unbounded; ``lo_open``/``hi_open`` exclude the bound); ``choices`` lists
    the allowed values of a ``str`` (or any) parameter; ``unit`` is printed in
    help texts ("s", "MB", "Gbps", "" for counts and fractions); ``quick`` is
    the quick profile's value (:data:`MISSING`: unchanged); ``flag`` the
    command-line flag (default ``--`` + the name with ``_`` -> ``-``);
    ``none_means`` says what ``None`` stands for when ``None`` is allowed
    (e.g. ``"inf"``: the requirement removed; ``"as stored"``), and is the
    word the command line accepts for it.
    """

    kind: str
    help: str
    unit: str = ""
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    hi_open: bool = False
    choices: tuple | None = None
    quick: Any = MISSING
    flag: str | None = None
    none_means: str | None = None

    def __post_init__(self):
        check_choice("kind", self.kind, KINDS)
        if not isinstance(self.help, str) or not self.help.strip():
            raise ValueError(f"help must be a non-empty str, got {self.help!r}")
        if self.choices is not None and not isinstance(self.choices, tuple):
            object.__setattr__(self, "choices", tuple(self.choices))

    def range_text(self) -> str:
        """The allowed values as text: ``[2, 10000]``, ``(0, 1)``, ``{even, lp}``, ``true/false``."""
        if self.choices is not None:
            text = "{" + ", ".join(map(str, self.choices)) + "}"
        elif self.kind == "bool":
            text = "true/false"
        elif self.kind in ("int", "float"):
            left = "(" if self.lo_open or self.lo is None else "["
            right = ")" if self.hi_open or self.hi is None else "]"
            lo = "-inf" if self.lo is None else f"{self.lo:g}"
            hi = "inf" if self.hi is None else f"{self.hi:g}"
            text = f"{left}{lo}, {hi}{right}"
        else:
            text = "text"
        return text + (f" or {self.none_means}" if self.none_means else "")


def param(default, *, help: str, kind: str | None = None, unit: str = "", lo=None, hi=None,
          lo_open: bool = False, hi_open: bool = False, choices=None, quick=MISSING,
          flag: str | None = None, none_means: str | None = None) -> dataclasses.Field:
    """A dataclass field carrying its :class:`ParamSpec`.

    ``kind`` defaults to the type of ``default`` (``int``, ``float``, ``str``,
    ``bool``); give it when the default is ``None``.  Example::

        n: int = param(60, lo=2, hi=10_000, help="workers", quick=12)
    """
    if kind is None:
        if default is None:
            raise ValueError("kind must be given when the default is None")
        kind = {bool: "bool", int: "int", float: "float", str: "str"}.get(type(default))
        if kind is None:
            raise ValueError(f"kind must be given for a default of type {type(default).__name__}")
    spec = ParamSpec(kind=kind, help=help, unit=unit, lo=lo, hi=hi, lo_open=lo_open, hi_open=hi_open,
                     choices=choices, quick=quick, flag=flag, none_means=none_means)
    return dataclasses.field(default=default, metadata={_KEY: spec})


def spec_of(field: dataclasses.Field) -> ParamSpec | None:
    """The :class:`ParamSpec` of a dataclass field declared with :func:`param` (None otherwise)."""
    return field.metadata.get(_KEY)


def specs(cls) -> dict[str, ParamSpec]:
    """``{name: ParamSpec}`` of every :func:`param` field of dataclass ``cls``, in field order."""
    return {f.name: s for f in dataclasses.fields(cls) if (s := spec_of(f)) is not None}


def check_param(name: str, value, spec: ParamSpec):
    """``value`` checked against ``spec`` (converted: ints to int, reals to float); ValueError
    naming ``name`` and the allowed range otherwise.  ``None`` passes only when
    ``spec.none_means`` is set."""
    if value is None:
        if spec.none_means is None:
            raise ValueError(f"{name} must be in {spec.range_text()}, got None")
        return None
    if spec.choices is not None:
        return check_choice(name, value, spec.choices)
    if spec.kind == "bool":
        if value not in (True, False):
            raise ValueError(f"{name} must be true or false, got {value!r}")
        return bool(value)
    if spec.kind == "str":
        if not isinstance(value, str) or not value:
            raise ValueError(f"{name} must be a non-empty str, got {value!r}")
        return value
    if spec.kind == "int":
        lo = None if spec.lo is None else (math.floor(spec.lo) + 1 if spec.lo_open else math.ceil(spec.lo))
        hi = None if spec.hi is None else (math.ceil(spec.hi) - 1 if spec.hi_open else math.floor(spec.hi))
        return check_int(name, value, lo, hi)
    return check_real(name, value, spec.lo, spec.hi, lo_open=spec.lo_open, hi_open=spec.hi_open)
