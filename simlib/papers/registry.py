"""Every paper's contract and every scheme, by name (see :class:`simlib.papers.contract.Paper` and
:class:`simlib.papers.scheme.Scheme`).

:data:`PAPERS` lists each paper's contract (its ``paper.py``): scenarios,
schemes, generated commands; ``python -m simlib`` builds its commands from it
and figures look schemes up in :data:`SCHEMES`.  A new paper is a new package
with a ``paper.py`` plus its name in :data:`PAPERS`: what shared code used to list by
hand comes from the papers' declarations (:class:`~simlib.papers.contract.Paper`): the
notebook -> spec map (:func:`notebook_specs`), the site's groups (:func:`notebook_groups`),
the top-level ``simlib`` names (:func:`exports`), the fitted claims (:func:`fitted_marks`)
and the sweep trials with their example settings (:func:`trials`).  Simulations import only
their own package, never this module, so a trial's code fingerprint does not
cover other papers.  :func:`chosen_settings` lists the settings a paper leaves
open and the decision that chose each (decision S20; docs/settings.md's and the
site's tables).
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import Any, NamedTuple

from simlib.papers import cluster_scenario
from simlib.papers.contract import defaults, groups, specs

__all__ = ["PAPERS", "BEYOND_NOTEBOOKS", "SCHEMES", "scheme", "paper", "resolve", "notebook_specs",
           "notebook_groups", "notebook_chains", "exports", "fitted_marks", "trials", "ChosenSetting", "declared",
           "chosen_settings", "chosen_settings_markdown"]

#: Every paper's contract (its package's ``paper.PAPER``), in seed order: a new paper is one more name here.
PAPERS = tuple(importlib.import_module(f"simlib.papers.{name}.paper").PAPER
               for name in ("selective_reduce", "partial_reduce", "fmreduce", "selmcast"))

#: The notebooks beyond the papers (the site's last group, "beyond"): ``{stem: "module:Spec"}`` as
#: :attr:`~simlib.papers.contract.Paper.notebooks`.
BEYOND_NOTEBOOKS = {"90_beyond_time_to_accuracy": "simlib.training.notebook_specs:TimeToAccuracyNotebook",
                    "91_beyond_internet_scale": "simlib.papers.beyond_notebooks:InternetScaleNotebook",
                    "92_beyond_real_traces": "simlib.training.notebook_specs:RealTracesNotebook",
                    "93_beyond_async_sgd": "simlib.training.async_sgd:AsyncSGDNotebook"}

#: Each paper's package (``simlib.papers.<name>``), by seed id: a parameter group defined there is that paper's.
_PACKAGES = {p.id: p.package for p in PAPERS}
if not all(_PACKAGES.values()):
    raise ValueError(f"every Paper must name its package (package=__package__), got {_PACKAGES}")


def resolve(ref: str):
    """The object ``ref`` (``"module:attribute"``) names, its module imported; ValueError naming ``ref``
    when it names nothing."""
    module, sep, name = ref.partition(":") if isinstance(ref, str) else ("", "", "")
    if not (module and sep and name):
        raise ValueError(f"ref must be 'module:attribute', got {ref!r}")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"ref {ref!r} names nothing: {exc}") from None


def _merged(pairs, what: str) -> dict:
    """``dict(pairs)``; ValueError when a key comes twice with different values."""
    out = {}
    for key, value in pairs:
        if out.setdefault(key, value) != value:
            raise ValueError(f"{what} {key!r} is declared twice: {out[key]!r} and {value!r}")
    return out


def notebook_specs(papers=None) -> dict[str, str]:
    """``{notebook stem: "module:Spec"}`` of every notebook: each paper's (``papers``, default
    :data:`PAPERS`, in order), then :data:`BEYOND_NOTEBOOKS`."""
    papers = PAPERS if papers is None else papers
    return _merged([*((stem, ref) for p in papers for stem, ref in p.notebooks.items()),
                    *BEYOND_NOTEBOOKS.items()], "notebook")


def notebook_groups(papers=None) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """The site's notebook groups, ``(key, heading, first digits of the notebook numbers)``: one per paper
    with notebooks (key its id, heading ``"<short> (seed <id>)"``, digits those of its notebooks), then
    ``("beyond", "Beyond the papers", ...)``; ValueError when two groups share a digit."""
    papers = PAPERS if papers is None else papers
    out = [(p.id, f"{p.short} (seed {p.id})", tuple(sorted({stem[0] for stem in p.notebooks})))
           for p in papers if p.notebooks]
    out.append(("beyond", "Beyond the papers", tuple(sorted({stem[0] for stem in BEYOND_NOTEBOOKS}))))
    _merged(((d, key) for key, _, digits in out for d in digits), "notebook digit")
    return tuple(out)


def notebook_chains(papers=None) -> dict[str, str]:
    """``{notebook stem: chain}`` of the papers' notebooks that their paper splits into chains
    (:attr:`~simlib.papers.contract.Paper.chains`; chain ``"<id> <label>"``, e.g. ``"004 BSP"``): the notebook
    runner runs each chain in its order, beside the others (decision S37); a notebook not listed is in its
    paper's group's chain (:func:`notebook_groups`).  ValueError when a paper's chains name a notebook it does
    not have, name one twice, or leave one out."""
    papers = PAPERS if papers is None else papers
    out = {}
    for p in papers:
        if not p.chains:
            continue
        listed = [stem for stems in p.chains.values() for stem in stems]
        unknown = sorted(set(listed) - set(p.notebooks))
        twice = sorted({s for s in listed if listed.count(s) > 1})
        missing = sorted(set(p.notebooks) - set(listed))
        if unknown or twice or missing:
            raise ValueError(f"paper {p.id}'s chains must list each of its notebooks once: unknown {unknown}, "
                             f"twice {twice}, missing {missing}")
        out.update({stem: f"{p.id} {label}" for label, stems in p.chains.items() for stem in stems})
    return out


def exports(papers=None) -> dict[str, tuple[str, str]]:
    """``{name: (module, attribute)}``: the top-level ``simlib`` names the papers (``papers``, default
    :data:`PAPERS`) export; ValueError when two papers give one name different objects."""
    papers = PAPERS if papers is None else papers
    return _merged(((name, tuple(ref.split(":", 1))) for p in papers for name, ref in p.exports.items()),
                   "export")


def fitted_marks(papers=None) -> dict[str, tuple[tuple[str, tuple[str, ...]], ...]]:
    """Per paper id with a paper profile's fit (``Paper.fitted``), one pair per calibration rule: the rule
    (the declaring module's ``FIT_RULE``) and the statements of the claims whose quantity it fits (S24)."""
    papers = PAPERS if papers is None else papers
    out = {}
    for p in papers:
        refs = (p.fitted,) if isinstance(p.fitted, str) else tuple(p.fitted)
        rules = tuple((resolve(ref.split(":", 1)[0] + ":FIT_RULE"), tuple(resolve(ref))) for ref in refs if ref)
        if rules:
            out[p.id] = rules
    return out


def trials(paper) -> dict:
    """Every module-level sweep trial (:class:`~simlib.papers.trial.Trial`) defined in ``paper``'s
    package, by ``"module:name"`` (its modules imported)."""
    from simlib.papers.trial import Trial

    package = importlib.import_module(paper.package)
    found = {}
    for info in [None, *pkgutil.walk_packages(package.__path__, package.__name__ + ".")]:
        module = package if info is None else importlib.import_module(info.name)
        found.update({f"{module.__name__}:{name}": obj for name, obj in vars(module).items()
                      if isinstance(obj, Trial) and obj.__module__ == module.__name__})
    return found


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
