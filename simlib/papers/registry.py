"""Every paper's contract and every scheme, by name (see :class:`simlib.papers.contract.Paper` and
:class:`simlib.papers.scheme.Scheme`).

:data:`PAPERS` lists each paper's contract (its ``paper.py``): scenarios,
schemes, generated commands; ``python -m simlib`` builds its commands from it
and figures look schemes up in :data:`SCHEMES`.  A new paper is a new package
with a ``paper.py`` plus one line in :data:`PAPERS`.  Simulations import only
their own package, never this module, so a trial's code fingerprint does not
cover other papers.  :func:`chosen_settings` lists the settings a paper leaves
open and the decision that chose each (decision S20; docs/settings.md's and the
site's tables).
"""
from __future__ import annotations

from typing import Any, NamedTuple

from simlib.papers import cluster_scenario
from simlib.papers.contract import defaults, groups, specs
from simlib.papers.fmreduce import paper as fmreduce
from simlib.papers.partial_reduce import paper as partial_reduce
from simlib.papers.selective_reduce import paper as selective_reduce
from simlib.papers.selmcast import paper as selmcast

__all__ = ["PAPERS", "SCHEMES", "scheme", "paper", "ChosenSetting", "declared", "chosen_settings",
           "chosen_settings_markdown"]

#: Every paper's contract, in seed order.
PAPERS = (selective_reduce.PAPER, partial_reduce.PAPER, fmreduce.PAPER, selmcast.PAPER)

#: Each paper's package (``simlib.papers.<name>``), by seed id: a parameter group defined there is that paper's.
_PACKAGES = {p.id: m.__name__.rpartition(".")[0]
             for p, m in zip(PAPERS, (selective_reduce, partial_reduce, fmreduce, selmcast))}


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


class ChosenSetting(NamedTuple):
    """A parameter whose default this repository chose (decision S20): its name, default (``None``
    shown as the word it stands for, e.g. ``"stored"``), decision id, help text, and the scenario or
    options classes that declare it (``"BSPScenario, SSPScenario"``)."""

    parameter: str
    default: Any
    decision: str
    help: str
    declared_in: str

    def default_text(self) -> str:
        """The default as the tables print it (``0.1``, ``600``, ``stored``)."""
        return f"{self.default:g}" if isinstance(self.default, float) else str(self.default)


def _owner(cls) -> str | None:
    """The seed id of the paper whose package defines ``cls`` (None: shared, e.g. the cluster run)."""
    return next((pid for pid, pkg in _PACKAGES.items() if cls.__module__.startswith(pkg + ".")), None)


def declared(paper_id: str) -> list[tuple]:
    """``(class, name, default, ParamSpec)`` of every parameter of paper ``paper_id``'s scenarios and
    of its commands' run options, in declaration order.  In a scenario two papers share (000/002's
    cluster run) a parameter group that another paper's package defines is left out (002's
    ``partial``, ``weighting`` and ``baselines`` groups are not 000's)."""
    p = paper(paper_id)
    classes = dict.fromkeys([*p.scenarios, *(c.options for c in p.commands if c.options is not None)])
    out = []
    for cls in classes:
        foreign = {name for g in groups(cls).values() if _owner(g) not in (None, paper_id) for name in specs(g)}
        default = defaults(cls)
        out += [(cls, name, default[name], spec) for name, spec in specs(cls).items() if name not in foreign]
    return out


def chosen_settings(paper_id: str) -> list[ChosenSetting]:
    """The settings paper ``paper_id`` leaves open and this repository chose: each parameter declared
    with ``chosen=<decision id>`` (see :func:`declared` for which count as the paper's), one row per
    (parameter, default, decision) however many scenarios declare it."""
    rows: dict[tuple, list] = {}
    for cls, name, default, spec in declared(paper_id):
        if spec.chosen is not None:
            shown = spec.none_means if default is None and spec.none_means else default
            rows.setdefault((name, shown, spec.chosen, spec.help), []).append(cls.__name__)
    return [ChosenSetting(*key, ", ".join(where)) for key, where in rows.items()]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def chosen_settings_markdown() -> str:
    """The "Settings the papers leave open" tables of ``docs/settings.md``: per paper, one row per chosen
    setting (parameter, default, decision, meaning, declared in); a test keeps that page equal to it."""
    parts = []
    for p in PAPERS:
        rows = [f"**{p.id}** — {p.title}", "", "| parameter | default | decision | meaning | declared in |",
                "|---|---|---|---|---|"]
        rows += [f"| `{c.parameter}` | {_cell(c.default_text())} | {c.decision} | {_cell(c.help)} | {c.declared_in} |"
                 for c in chosen_settings(p.id)]
        parts.append("\n".join(rows))
    return "\n\n".join(parts) + "\n"
