"""Every paper's contract and every scheme, by name (see :class:`simlib.papers.contract.Paper` and
:class:`simlib.papers.scheme.Scheme`).

:data:`PAPERS` lists each paper's contract (its ``paper.py``): scenarios,
schemes, generated commands; ``python -m simlib`` builds its commands from it
and figures look schemes up in :data:`SCHEMES`.  A new paper is a new package
with a ``paper.py`` plus one line in :data:`PAPERS`.  Simulations import only
their own package, never this module, so a trial's code fingerprint does not
cover other papers.
"""
from __future__ import annotations

from simlib.papers import cluster_scenario
from simlib.papers.fmreduce import paper as fmreduce
from simlib.papers.partial_reduce import paper as partial_reduce
from simlib.papers.selective_reduce import paper as selective_reduce
from simlib.papers.selmcast import paper as selmcast

__all__ = ["PAPERS", "SCHEMES", "scheme", "paper"]

#: Every paper's contract, in seed order.
PAPERS = (selective_reduce.PAPER, partial_reduce.PAPER, fmreduce.PAPER, selmcast.PAPER)


def _schemes(papers) -> dict:
    out = {}
    for s in (s for p in papers for s in p.schemes):
        if out.setdefault(s.name, s) is not s:
            raise ValueError(f"scheme {s.name!r} is registered by two papers")
    return out


#: Every scheme by name; 000/002's cluster schemes first, in the legend order their figures have.
SCHEMES = {**cluster_scenario.SCHEMES, **_schemes(PAPERS)}


def scheme(name: str):
    """The registered scheme ``name``; ValueError listing the known ones otherwise."""
    if name not in SCHEMES:
        raise ValueError(f"scheme must be one of {list(SCHEMES)}, got {name!r}")
    return SCHEMES[name]


def paper(paper_id: str):
    """The contract of seed ``paper_id`` ("000", "002", "003", "004"); ValueError otherwise."""
    for p in PAPERS:
        if p.id == paper_id:
            return p
    raise ValueError(f"paper must be one of {[p.id for p in PAPERS]}, got {paper_id!r}")
