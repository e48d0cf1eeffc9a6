"""The paper contract: each parameter of a paper's scenario declared once, on its field.

A paper's ``Scenario`` is a frozen dataclass deriving from :class:`ScenarioBase`
whose fields are declared with :func:`param`: default, allowed range or
choices, unit, help text, the quick-profile value and (optionally) the
command-line flag.  The command line (:mod:`simlib.papers.cli_gen`), the
notebooks' parameter check (:func:`simlib.pipeline.run.start`) and
the sweep trial read these declarations, so a default or a range is written in
exactly one place.

* :class:`ParamSpec` is the declaration; :func:`param` puts one on a field,
  :func:`param_list` declares a list whose items are another field's values
  (``param_list(of=(Scenario, "p"), ...)``), :func:`param_of` re-uses a field's
  declaration elsewhere (a notebook's spec); :func:`spec_of`/:func:`specs` read
  them back.
* :func:`check_param` validates one value against its spec; every error is a
  :class:`ParamError` (a ``ValueError``) carrying the parameter's name, so the
  command line can name the flag.
* :class:`ScenarioBase` validates every declared field once, in
  ``__post_init__``, then runs the subclass's :meth:`ScenarioBase.check` (the
  cross-field rules).  Engines take a validated scenario and do not re-check it.
* :func:`param_group` puts a group of parameters (another :class:`ScenarioBase`
  dataclass, e.g. one paper's knobs in a scenario two papers share) on a field;
  its parameters count as the enclosing scenario's, by their own flat names
  (:func:`specs`, :func:`defaults`, ``from_params``, ``to_params``, the
  generated command, :func:`param_of`).  :func:`check_items` runs a rule on
  every item of a list parameter, naming the item.
* :class:`Command` and :class:`Paper` are a paper's entry in
  :data:`simlib.papers.registry.PAPERS`.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Callable

import re

from simlib.core.validate import check_choice, check_int, check_list, check_real

__all__ = ["ParamSpec", "ParamError", "param", "param_list", "param_of", "param_group", "spec_of", "specs",
           "defaults", "groups", "check_param", "check_items", "ScenarioBase", "Command", "Paper", "MISSING",
           "KINDS"]

#: A decision id of docs/decisions/ (``E2``, ``SM50``, ``RP9``).
_DECISION_ID = re.compile(r"\b[A-Z]{1,3}\d{1,3}\b")

#: Value kinds a parameter can have ("list": a list of ``item`` values).
KINDS = ("int", "float", "str", "bool", "list")


class _Missing:
    """Type of :data:`MISSING`."""

    def __repr__(self) -> str:
        return "MISSING"


#: Marker for "no quick-profile value" (the parameter keeps its value in the quick profile).
MISSING = _Missing()
_KEY = "simlib.contract"
_GROUP = "simlib.contract.group"


class ParamError(ValueError):
    """A parameter's value is not allowed; ``name`` is the parameter (``"p"``, ``"p_values"``)."""

    def __init__(self, name: str, message: str):
        super().__init__(message)
        self.name = name


@dataclass(frozen=True)
class ParamSpec:
    """How one scenario parameter is declared.

    ``kind`` is one of :data:`KINDS`; ``lo``/``hi`` bound numbers (``None``:
    unbounded; ``lo_open``/``hi_open`` exclude the bound; a closed ``hi=math.inf``
    admits ``inf`` itself as a value, e.g. a threshold that never triggers); ``choices`` lists
    the allowed values of a ``str`` (or any) parameter; ``unit`` is printed in
    help texts ("s", "MB", "Gbps", "" for counts and fractions); ``quick`` is
    the quick profile's value (:data:`MISSING`: unchanged); ``stated`` where the
    paper states the default (``"Table II"``, ``"§IV-A1, line 310"``) or ``chosen``
    the decision entry with which this repository chose it (``"E2"``) -- at most
    one of the two (decision S20); ``flag`` the
    command-line flag (default ``--`` + the name with ``_`` -> ``-``);
    ``none_means`` says what ``None`` stands for when ``None`` is allowed
    (e.g. ``"inf"``: the requirement removed), and is the word the command
    line accepts for it; ``words`` are strings allowed as values besides the
    kind's (``mu = "1/p"``).  ``check(name, value) -> value`` is an extra check
    run after the kind's (e.g. :func:`simlib.workloads.traces.check_trace`),
    ``allowed`` the text of what it allows.  A ``list`` has an ``item`` spec
    and at least ``min_len`` items.
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
    words: tuple = ()
    check: Callable | None = None
    allowed: str | None = None
    item: "ParamSpec | None" = None
    min_len: int = 1
    stated: str | None = None
    chosen: str | None = None

    def __post_init__(self):
        check_choice("kind", self.kind, KINDS)
        if self.stated is not None and self.chosen is not None:
            raise ValueError(f"a parameter's value is either stated by the paper or chosen by this repository, "
                             f"not both (stated={self.stated!r}, chosen={self.chosen!r})")
        for name in ("stated", "chosen"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ValueError(f"{name} must be None or a non-empty str, got {value!r}")
        if self.chosen is not None and not _DECISION_ID.search(self.chosen):
            raise ValueError(f"chosen must name the decision entry that chose the value (e.g. 'E2'), "
                             f"got {self.chosen!r}")
        if not isinstance(self.help, str) or not self.help.strip():
            raise ValueError(f"help must be a non-empty str, got {self.help!r}")
        for name in ("choices", "words"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), tuple):
                object.__setattr__(self, name, tuple(getattr(self, name)))
        if (self.kind == "list") != (self.item is not None):
            raise ValueError("a list parameter needs an item spec, and only a list has one")

    @property
    def source(self) -> str:
        """Where the default comes from: ``"paper: <where>"``, ``"chosen: <decision>"``, or
        ``"run option"`` for a parameter that selects what to run (a scheme, a seed, a reading) and has
        no paper value; ``""`` when the declaration does not say."""
        if self.stated is not None:
            return f"paper: {self.stated}"
        if self.chosen is not None:
            return f"chosen: {self.chosen}"
        return ""

    def range_text(self) -> str:
        """The allowed values as text: ``[2, 10000]``, ``(0, 1)``, ``{even, lp}``, ``true/false``."""
        if self.kind == "list":
            text = f"list of {self.item.range_text()}"
        elif self.allowed is not None:
            text = self.allowed
        elif self.choices is not None:
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
        return " or ".join((text, *self.words, *([self.none_means] if self.none_means else [])))


def _kind_of(default) -> str:
    kind = {bool: "bool", int: "int", float: "float", str: "str"}.get(type(default))
    if kind is None:
        raise ValueError(f"kind must be given for a default of type {type(default).__name__}")
    return kind


def _field(default, spec: ParamSpec) -> dataclasses.Field:
    if spec.kind == "list":
        default = tuple(default)      # dataclasses refuse mutable defaults; lists are stored as tuples
    return dataclasses.field(default=default, metadata={_KEY: spec})


def param(default, *, help: str, kind: str | None = None, **spec) -> dataclasses.Field:
    """A dataclass field carrying its :class:`ParamSpec`.

    ``kind`` defaults to the type of ``default`` (``int``, ``float``, ``str``,
    ``bool``); give it when the default is ``None``.  ``spec`` are the other fields
    of :class:`ParamSpec` by name (``unit``, ``lo``, ``hi``, ``lo_open``, ``hi_open``,
    ``choices``, ``quick``, ``flag``, ``none_means``, ``words``, ``check``,
    ``allowed``; a list parameter is declared with :func:`param_list`).  Example::

        n: int = param(60, lo=2, hi=10_000, help="workers", quick=12)
    """
    unknown = sorted(set(spec) - _PARAM_FIELDS)
    if unknown:
        raise TypeError(f"param() got unexpected keyword argument(s) {unknown}; "
                        f"allowed: help, kind, {', '.join(sorted(_PARAM_FIELDS))}")
    if kind is None:
        if default is None:
            raise ValueError("kind must be given when the default is None")
        kind = _kind_of(default)
    return _field(default, ParamSpec(kind=kind, help=help, **spec))


#: The :class:`ParamSpec` fields :func:`param` takes as keywords besides ``help`` and ``kind``.
_PARAM_FIELDS = frozenset(f.name for f in dataclasses.fields(ParamSpec)) - {"kind", "help", "item", "min_len"}


def _field_spec(cls, name: str) -> tuple[Any, ParamSpec]:
    """``(default, spec)`` of the declared parameter ``name`` of ``cls`` (its groups' included)."""
    declared = _declared(cls)
    if name not in declared:
        raise ValueError(f"{cls.__name__} has no declared parameter {name!r}; declared: {list(declared)}")
    return declared[name]


def param_of(cls, name: str, **overrides) -> dataclasses.Field:
    """The parameter ``name`` of dataclass ``cls`` (or of one of its groups) declared again,
    elsewhere (e.g. in a notebook's parameter spec): same default and spec, with ``overrides``
    (``default``, ``quick``, ``help``, ...).  A new ``default`` drops the original's ``stated``/``chosen``
    (that source was for the other value) unless the overrides give this one's; giving one of the two
    clears the other."""
    default, s = _field_spec(cls, name)
    if "default" in overrides and overrides["default"] != default and not {"stated", "chosen"} & set(overrides):
        overrides.update(stated=None, chosen=None)     # another default: the original's source is not its source
    if "stated" in overrides:
        overrides.setdefault("chosen", None)
    if "chosen" in overrides:
        overrides.setdefault("stated", None)
    default = overrides.pop("default", default)
    return _field(default, dataclasses.replace(s, **overrides))


def param_group(cls) -> dataclasses.Field:
    """A field holding a group of declared parameters: an instance of the :class:`ScenarioBase`
    dataclass ``cls`` (default: ``cls()``, its defaults).

    The group's parameters count as the enclosing scenario's, by their own (flat) names: they
    appear in :func:`specs` and :func:`defaults`, ``from_params`` routes each flat key to its
    group, ``to_params`` flattens, the generated command has one flag per group parameter, and
    :func:`param_of` finds them.  The group checks its own fields and rules when it is built; the
    enclosing scenario's ``check()`` adds the rules across groups.  Names must be unique across
    the scenario and its groups.  Example (000's knobs in the run 000 and 002 share)::

        selective: SelectiveReduceParams = param_group(SelectiveReduceParams)
    """
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls) and issubclass(cls, ScenarioBase)):
        raise ValueError(f"a parameter group must be a ScenarioBase dataclass, got {cls!r}")
    return dataclasses.field(default_factory=cls, metadata={_GROUP: cls})


def param_list(default, *, of: tuple | None = None, item: ParamSpec | None = None, help: str | None = None,
               quick=MISSING, flag: str | None = None, min_len: int = 1, stated: str | None = None,
               chosen: str | None = None) -> dataclasses.Field:
    """A list parameter whose items are values of field ``of = (cls, name)`` (its range, unit and
    check: written once, on that field) or of the spec ``item``.  Given as text (``"[10, 20]"``,
    what ``papermill -p`` passes), it is read as YAML/JSON.  Stored as a tuple.  ``stated``/``chosen``:
    where the paper states the list (a figure's x values) or the decision that chose it."""
    if (of is None) == (item is None):
        raise ValueError("give exactly one of of=(cls, name) and item=ParamSpec")
    if of is not None:
        item = dataclasses.replace(_field_spec(*of)[1], quick=MISSING, flag=None, stated=None, chosen=None)
    help = help or f"values of {of[1] if of else 'the item'}: {item.help}"
    return _field(default, ParamSpec(kind="list", help=help, unit=item.unit, quick=quick, flag=flag, item=item,
                                     min_len=min_len, stated=stated, chosen=chosen))


def spec_of(field: dataclasses.Field) -> ParamSpec | None:
    """The :class:`ParamSpec` of a dataclass field declared with :func:`param` (None otherwise)."""
    return field.metadata.get(_KEY)


def groups(cls) -> dict[str, type]:
    """``{field name: group class}`` of the :func:`param_group` fields of dataclass ``cls``."""
    return {f.name: f.metadata[_GROUP] for f in dataclasses.fields(cls) if _GROUP in f.metadata}


def _declared(cls) -> dict[str, tuple[Any, ParamSpec]]:
    """``{name: (default, spec)}`` of every declared parameter of ``cls``, its groups' flattened in
    field order; a name declared twice is a ``ValueError``."""
    out = {}
    for f in dataclasses.fields(cls):
        if _GROUP in f.metadata:
            items = _declared(f.metadata[_GROUP]).items()
        elif (s := spec_of(f)) is not None:
            items = [(f.name, (f.default, s))]
        else:
            continue
        for name, declared in items:
            if name in out:
                raise ValueError(f"{cls.__name__}: parameter {name!r} is declared twice (names must be unique "
                                 "across a scenario and its groups)")
            out[name] = declared
    return out


def specs(cls) -> dict[str, ParamSpec]:
    """``{name: ParamSpec}`` of every declared parameter of dataclass ``cls`` (its :func:`param`
    fields and its groups' parameters, flat), in field order."""
    return {name: s for name, (_, s) in _declared(cls).items()}


def defaults(cls) -> dict[str, Any]:
    """``{name: default}`` of every declared parameter of dataclass ``cls`` (groups flattened;
    lists as tuples)."""
    return {name: d for name, (d, _) in _declared(cls).items()}


def check_param(name: str, value, spec: ParamSpec):
    """``value`` checked against ``spec`` (converted: ints to int, reals to float, lists to
    tuples); :class:`ParamError` naming ``name`` and the allowed range otherwise.  ``None``
    passes only when ``spec.none_means`` is set."""
    try:
        return _check(name, value, spec)
    except ParamError:
        raise
    except ValueError as exc:
        raise ParamError(name, str(exc)) from None


def _check(name: str, value, spec: ParamSpec):
    if value is None:
        if spec.none_means is None:
            raise ValueError(f"{name} must be in {spec.range_text()}, got None")
        return None
    if isinstance(value, str) and value in spec.words:
        return value
    if spec.kind == "list":
        return tuple(check_list(name, value, lambda k, v: _check(k, v, spec.item), min_len=spec.min_len))
    if spec.choices is not None:
        value = check_choice(name, value, spec.choices)
    elif spec.kind == "bool":
        if value not in (True, False):
            raise ValueError(f"{name} must be true or false, got {value!r}")
        value = bool(value)
    elif spec.kind == "str":
        if not isinstance(value, str) or not value:
            raise ValueError(f"{name} must be a non-empty str, got {value!r}")
    else:
        try:
            value = _check_number(name, value, spec)
        except ValueError:
            if not (spec.words or spec.none_means):
                raise
            raise ValueError(f"{name} must be in {spec.range_text()}, got {value!r}") from None
    return spec.check(name, value) if spec.check is not None else value


def _check_number(name: str, value, spec: ParamSpec):
    if spec.kind == "int":
        lo = None if spec.lo is None else (math.floor(spec.lo) + 1 if spec.lo_open else math.ceil(spec.lo))
        hi = None if spec.hi is None else (math.ceil(spec.hi) - 1 if spec.hi_open else math.floor(spec.hi))
        return check_int(name, value, lo, hi)
    allow_inf = spec.hi is not None and math.isinf(spec.hi) and not spec.hi_open
    return check_real(name, value, spec.lo, spec.hi, lo_open=spec.lo_open, hi_open=spec.hi_open,
                      allow_inf=allow_inf)


def check_items(name: str, values, rule: Callable) -> None:
    """Run ``rule(item)`` (e.g. build the scenario with that item) on every item of the list
    parameter ``name``; a :class:`ParamError` it raises becomes one naming ``name`` and the item's
    index: ``p_values[1]: p must be in [1, n = 30], got 40``."""
    for i, value in enumerate(values):
        try:
            rule(value)
        except ParamError as exc:
            raise ParamError(name, f"{name}[{i}]: {exc}") from None


def _misplaced(cls, name: str) -> str:
    """Why ``cls(name=...)`` is refused, and where ``name`` belongs (a group of ``cls``, or nowhere)."""
    where = [(field, group) for field, group in groups(cls).items() if name in specs(group)]
    text = f"{cls.__name__}() got an unexpected keyword argument {name!r}"
    if where:
        field, group = where[0]
        return (f"{text}: it is a parameter of the group {field!r} ({group.__name__}); pass "
                f"{field}={group.__name__}({name}=...) or use {cls.__name__}.from_params({{{name!r}: ...}}), "
                "which routes flat names to their groups")
    return f"{text}; its fields are {[f.name for f in dataclasses.fields(cls)]}"


class ScenarioBase:
    """Mixin of a paper's frozen dataclass scenario: every :func:`param` field is checked against
    its spec and converted once, at construction; then :meth:`check` runs the cross-field rules.

    ::

        @dataclass(frozen=True)
        class Scenario(ScenarioBase):
            n: int = param(60, lo=2, hi=10_000, help="workers")
            p: int = param(50, lo=1, hi=10_000, help="participants per round, at most n")

            def check(self):
                if self.p > self.n:
                    raise ParamError("p", f"p must be in [1, n = {self.n}], got {self.p}")
    """

    def __new__(cls, *args, **kwargs):
        # runs before the dataclass __init__, whose TypeError for a group's parameter passed flat
        # (Scenario(eta=0.3)) would not say where it belongs
        if kwargs and dataclasses.is_dataclass(cls):
            fields = {f.name for f in dataclasses.fields(cls)}
            for name in kwargs:
                if name not in fields:
                    raise TypeError(_misplaced(cls, name))
        return super().__new__(cls)

    def __post_init__(self):
        for f in dataclasses.fields(self):
            if _GROUP in f.metadata:         # a group checked itself when it was built
                if not isinstance(value := getattr(self, f.name), f.metadata[_GROUP]):
                    raise ParamError(f.name, f"{f.name} must be a {f.metadata[_GROUP].__name__}, got {value!r}")
            elif (spec := spec_of(f)) is not None:
                object.__setattr__(self, f.name, check_param(f.name, getattr(self, f.name), spec))
        self.check()

    def check(self) -> None:
        """Cross-field rules; raise :class:`ParamError` naming the parameter to change."""

    @classmethod
    def from_params(cls, params: dict):
        """Build from a flat dict (a sweep setting), each key a field or a parameter of a
        :func:`param_group` (routed to its group); keys that are neither are refused by name."""
        grouped = groups(cls)
        owner = {name: g for g, gcls in grouped.items() for name in _flat_names(gcls)}
        names = [f.name for f in dataclasses.fields(cls) if f.name not in grouped] + list(owner)
        unknown = sorted(set(params) - set(names))
        if unknown:
            raise ParamError(unknown[0], f"unknown scenario parameter(s) {unknown}; allowed: {sorted(names)}")
        own = {k: v for k, v in params.items() if k not in owner}
        parts = {g: gcls.from_params({k: v for k, v in params.items() if owner.get(k) == g})
                 for g, gcls in grouped.items()}
        return cls(**own, **parts)

    @classmethod
    def of(cls, setting):
        """``setting`` as a ``cls``: itself when it already is one (built, so checked, once: no second
        check), else ``cls.from_params(setting)`` of a flat dict.  A trial or command entry point calls
        it on what it is given, so a sweep or a command can hand down the scenario it built."""
        return setting if isinstance(setting, cls) else cls.from_params(setting)

    def used_params(self) -> dict:
        """The parameters as a run uses them (what a command prints): :meth:`to_params`, with a
        ``None`` that stands for a value computed from the others (``none_means``) replaced by that
        value where the scenario knows it (override)."""
        return self.to_params()

    def to_params(self) -> dict:
        """The fields as a flat dict (lists as lists; groups flattened): ``from_params(to_params())``
        is the same scenario."""
        out = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if _GROUP in f.metadata:
                out.update(value.to_params())
            else:
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    def at_profile(self, name: str = "paper"):
        """This scenario at profile ``name`` (``"default"`` or ``"paper"``: the values its paper's profile
        fitted or chose; :func:`simlib.papers.profiles.at_profile`), rebuilt and checked; itself when the
        profile sets nothing.  ``ValueError`` naming ``profile`` for another name."""
        from simlib.papers import profiles

        return profiles.at_profile(self, name)

    @classmethod
    def describe(cls) -> str:
        """A Markdown table of the declared parameters: name, default, source (stated by the paper
        or chosen here), allowed values, unit, quick value, meaning."""
        rows = ["| parameter | default | source | allowed | unit | quick | meaning |",
                "|---|---|---|---|---|---|---|"]
        for name, (default, s) in _declared(cls).items():
            quick = "" if s.quick is MISSING else repr(s.quick)
            rows.append(f"| `{name}` | {default!r} | {s.source} | {s.range_text()} | {s.unit} | {quick} | "
                        f"{s.help} |")
        return "\n".join(rows)

    @classmethod
    def chosen(cls) -> dict[str, str]:
        """``{name: decision id}`` of the parameters whose default this repository chose (the paper
        leaves them open; decision S20), in field order."""
        return {name: s.chosen for name, (_, s) in _declared(cls).items() if s.chosen is not None}


def _flat_names(cls) -> list[str]:
    """Every key ``cls.from_params`` accepts: its non-group fields and its groups' keys."""
    grouped = groups(cls)
    return [f.name for f in dataclasses.fields(cls) if f.name not in grouped] + \
        [name for gcls in grouped.values() for name in _flat_names(gcls)]


@dataclass(frozen=True)
class Command:
    """A ``python -m simlib <name>`` command generated from a scenario (:mod:`simlib.papers.cli_gen`).

    ``trial(scenario, seed_sequence, **options) -> dict`` runs one scenario (the
    ``scenario`` instance the command built and checked from its flags, handed down
    as is) and returns flat metrics; ``options`` is an optional
    :class:`ScenarioBase` dataclass of run options that are not scenario
    parameters (e.g. which scheme to run), passed to ``trial`` as keywords;
    ``exclude`` names scenario fields the command does not offer (they keep
    their defaults); ``simulated`` names the parameter (or, if none has that name,
    the metric) that is the run's simulated time in s, for the printed
    ``sim_s_per_wall_s``; ``timeline``: the trial offers its run's log to a timeline capture
    (:func:`simlib.runtime.timeline.offer`), so ``--timeline`` can write it.
    """

    name: str
    scenario: type
    trial: Callable
    help: str
    description: str = ""
    options: type | None = None
    exclude: tuple = ()
    simulated: str = "duration_s"
    timeline: bool = False


@dataclass(frozen=True)
class Paper:
    """One paper's contract: seed ``id`` ("003"), ``title``, its scenario classes, its schemes
    (:class:`simlib.papers.scheme.Scheme`) and its generated commands, plus what shared code derives
    from :data:`simlib.papers.registry.PAPERS` instead of listing by hand:

    * ``package``: the paper's package (``__package__`` of its ``paper.py``); a parameter group defined
      there is this paper's (:func:`simlib.papers.registry.declared`), its sweep trials are found there;
    * ``short``: the name the site's notebook index heads the paper's group with ("FMReduce": "FMReduce
      (seed 003)");
    * ``notebooks``: ``{notebook stem: "module:Spec"}``, each notebook of the paper and the spec class its
      ``simlib.start`` takes (named, not imported: a spec may live in ``simlib.training``, above this
      layer); the site groups notebooks by their numbers' first digits;
    * ``exports``: ``{name: "module:attribute"}``, the top-level ``simlib.<name>`` objects of the paper
      (imported on first use, :mod:`simlib`);
    * ``fitted``: per calibration rule of the paper profile, ``"module:NAME"`` of the statements of the
      claims whose quantity the rule fits (that module's ``FIT_RULE``; decision S24); a tuple of such
      references (one string for one rule), ``()`` when nothing is fitted;
    * ``chains``: ``{label: (notebook stem, ...)}``, the paper's notebooks split into sets that read no file,
      trial and ledger row the others write, so the notebook runner may run each set beside the others (each in
      its order; :func:`simlib.papers.registry.notebook_chains`, decision S37); every notebook in exactly one set.
      ``{}``: the paper's notebooks are one chain.
    """

    id: str
    title: str
    scenarios: tuple
    schemes: tuple
    commands: tuple = ()
    package: str = ""
    short: str = ""
    notebooks: dict = dataclasses.field(default_factory=dict)
    exports: dict = dataclasses.field(default_factory=dict)
    fitted: tuple | str = ()
    chains: dict = dataclasses.field(default_factory=dict)
