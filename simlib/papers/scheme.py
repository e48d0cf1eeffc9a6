"""A synchronization scheme as the rest of the project sees it: which paper it
comes from, how figures draw it, which scenario class runs it.

Each paper lists its schemes in its contract (``papers/<paper>/paper.py``; the
000/002 cluster run in :data:`simlib.papers.cluster_scenario.SCHEMES`);
:mod:`simlib.papers.registry` merges them into the one table figures and
notebooks use.  For FMReduce a scheme is a family of Fig. 2's variants.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

__all__ = ["Scheme"]


@dataclass(frozen=True)
class Scheme:
    """``name`` (the ``scheme`` parameter value), ``paper`` (seed id, e.g. ``"000"``),
    ``label``/``color``/``marker`` for figures, ``scenario`` (the parameter dataclass
    whose runs use it, or a tuple of them) and, for cluster schemes, ``controller(scenario, p) -> controller``
    building its controller (see :mod:`simlib.papers.cluster_scenario`)."""

    name: str
    paper: str
    label: str
    color: str
    marker: str
    scenario: type | tuple
    controller: Callable | None = None
