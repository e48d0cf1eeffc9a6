"""Every scheme of every paper, by name (see :class:`simlib.papers.scheme.Scheme`).

Figures and notebooks look schemes up here; simulations import only their own
family's table, so a trial's code fingerprint does not cover other papers.
Adding a scheme: one :class:`~simlib.papers.scheme.Scheme` entry in its
family's table, plus its code.
"""
from __future__ import annotations

from simlib.papers import cluster_scenario

__all__ = ["SCHEMES", "scheme"]

SCHEMES = {**cluster_scenario.SCHEMES}


def scheme(name: str):
    """The registered scheme ``name``; ValueError listing the known ones otherwise."""
    if name not in SCHEMES:
        raise ValueError(f"scheme must be one of {list(SCHEMES)}, got {name!r}")
    return SCHEMES[name]
