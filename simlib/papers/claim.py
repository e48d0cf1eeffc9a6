"""A checked paper claim (or an observation beyond the papers), as plain values.

Each paper's ``claims.py`` turns result frames into :class:`Claim` records;
:mod:`simlib.pipeline.claims` writes them to the ledger.  A claim keeps two
verdicts apart:

* ``direction`` -- does the qualitative statement hold (who wins, which way a
  curve goes)?
* ``magnitude`` -- where the paper gives a number, is ours within the stated
  ``tolerance`` of it?  ``None`` when the paper gives no number.

Each claim is judged at a named ``setting`` (decision S19): ``"default"`` (the
repository's defaults), ``"profile"`` (the paper profile: calibrated values of
the settings the paper leaves open) or the name of another reading (e.g.
``"priority"``); the same claim recorded at two settings is two ledger rows.

And, whenever either verdict is False, a ``cause``: one of :data:`CAUSES`
followed by ``": "`` and the reason; ``"paper ambiguity"`` must name the
decision id it rests on (e.g. ``"paper ambiguity: SM1, ..."``).
Observations (``kind="observation"``) carry no verdicts.

A comparative verdict (paired per-trial ratios, decision S24) also carries its strength: ``pairs``
(the fewest paired trials behind it), ``sides`` (per compared quantity, the pairs above and below
the threshold) and ``interval`` (the confidence interval of each median ratio).  When an interval
straddles the claim's threshold the verdict is **undecided**: ``undecided`` names the verdicts it
leaves open (``"direction"``, ``"magnitude"`` or both); such a claim neither holds nor fails
(:attr:`Claim.verdict` ``"undecided"``, :attr:`Claim.holds` None) and needs no cause.  Rows that are
not comparative carry none of these.  ``fitted`` names the calibration rule (a decision id, e.g.
``"E18"``) when the claim's quantity was one of the rule's targets: the row is shown, but a
summary counts it as fitted, never as holding.
"""
from __future__ import annotations

import dataclasses
import math
import numbers
import re
from dataclasses import dataclass
from typing import Iterable, Mapping

__all__ = ["Claim", "CAUSES", "KINDS", "DEFAULT_SETTING", "PROFILE_SETTING", "observation", "within", "ratio_within",
           "at_setting", "cross_causes", "cross_settings", "VERDICTS", "UNDECIDABLE", "mark_fitted", "Verdict"]

KINDS = ("claim", "observation")
#: Why a verdict is False.  "stand-in trace": the compute-time traces are synthetic
#: stand-ins (T1); "paper ambiguity": a reading the paper leaves open (name its
#: decision id); "setting": a setting the paper omits or we could not match;
#: "simulation model": the flow-level model differs from the paper's testbed;
#: "unexplained": none of these.
#: "likely paper error": our measurement contradicts the paper's own model (the cause says which
#: measurement and names the test that checks it).
CAUSES = ("stand-in trace", "paper ambiguity", "setting", "simulation model", "likely paper error",
          "unexplained")
#: Conventional setting labels (any short label is allowed; these two are the summary's columns).
DEFAULT_SETTING, PROFILE_SETTING = "default", "profile"
#: :attr:`Claim.verdict`'s values.
VERDICTS = ("holds", "fails", "undecided", "observation")
#: The verdicts ``Claim.undecided`` may name.
UNDECIDABLE = ("direction", "magnitude")
_SETTING = re.compile(r"^[a-z0-9][a-z0-9 ._=()+-]{0,39}$")
_DECISION_ID = re.compile(r"\b[A-Z]{1,3}\d{1,3}\b")
_TEST_NAME = re.compile(r"\btest_\w+")


def _text(name: str, value, allow_empty: bool = False) -> str:
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise ValueError(f"{name} must be a {'' if allow_empty else 'non-empty '}str, got {value!r}")
    return value


def _verdict(name: str, value) -> bool | None:
    if value is None:
        return None
    if type(value).__name__ in ("bool", "bool_"):   # numpy bools too
        return bool(value)
    raise ValueError(f"{name} must be True, False or None, got {value!r}")


@dataclass(frozen=True)
class Claim:
    """One ledger row before provenance: what the paper says, what we measured, the verdicts.

    ``paper`` is the seed id ("000", "002", "003", "004"); ``figure`` e.g.
    ``"Fig. 5"``; ``claim`` the statement (unique within (paper, figure));
    ``paper_value``/``our_value`` text kept verbatim (``"1.89–2.55×"``);
    ``tolerance`` how the magnitude is judged (``"within 10 %"``; empty when
    ``magnitude`` is None); ``note`` free text (settings, trials); ``setting``
    the setting the claim was judged at (a short lower-case label:
    ``"default"``, ``"profile"``, a reading's name).  ``pairs``, ``sides``, ``interval``,
    ``undecided`` (a tuple of :data:`UNDECIDABLE` names, or one name) and ``fitted`` (a decision id):
    the module docstring.
    """

    paper: str
    figure: str
    claim: str
    paper_value: str
    our_value: str
    direction: bool | None
    magnitude: bool | None = None
    tolerance: str = ""
    cause: str = ""
    note: str = ""
    kind: str = "claim"
    setting: str = DEFAULT_SETTING
    pairs: int | None = None
    sides: str = ""
    interval: str = ""
    undecided: tuple = ()
    fitted: str = ""

    def __post_init__(self):
        for name in ("paper", "figure", "claim", "paper_value", "our_value"):
            _text(name, getattr(self, name))
        for name in ("tolerance", "cause", "note"):
            _text(name, getattr(self, name), allow_empty=True)
        if not isinstance(self.setting, str) or not _SETTING.match(self.setting):
            raise ValueError(f"setting must be a short lower-case label (letters, digits, space . _ = ( ) + -; "
                             f"at most 40 characters) such as 'default' or 'profile', got {self.setting!r}")
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {list(KINDS)}, got {self.kind!r}")
        object.__setattr__(self, "direction", _verdict("direction", self.direction))
        object.__setattr__(self, "magnitude", _verdict("magnitude", self.magnitude))
        self._check_strength()
        if self.kind == "observation":
            if self.direction is not None or self.magnitude is not None:
                raise ValueError("an observation has no verdicts: direction and magnitude must be None")
            if self.undecided or self.fitted:
                raise ValueError("an observation has no verdicts: undecided and fitted must be empty")
            return
        if self.direction is None:
            raise ValueError(f"direction of claim {self.claim!r} must be True or False")
        if self.magnitude is not None and not self.tolerance.strip():
            raise ValueError(f"claim {self.claim!r} has a magnitude verdict, so tolerance must say how it "
                             "is judged (e.g. 'within 10 %')")
        if self.verdict == "fails" or (self.verdict == "undecided" and self.cause):
            kind = self.cause.split(":", 1)[0].strip()
            if kind not in CAUSES:
                raise ValueError(f"claim {self.claim!r} does not hold, so cause must start with one of "
                                 f"{list(CAUSES)} followed by ': <reason>', got {self.cause!r}")
            if kind == "likely paper error" and not _TEST_NAME.search(self.cause):
                raise ValueError(f"cause of claim {self.claim!r} is a likely paper error, so it must name the "
                                 f"test of the measurement that contradicts the paper (e.g. test_sr_groups_at_"
                                 f"least_p), got {self.cause!r}")
            if kind == "paper ambiguity" and not _DECISION_ID.search(self.cause):
                raise ValueError(f"cause of claim {self.claim!r} is a paper ambiguity, so it must name the "
                                 f"decision id (e.g. SM1), got {self.cause!r}")
        elif self.verdict == "holds" and self.cause:
            raise ValueError(f"claim {self.claim!r} holds, so cause must be empty, got {self.cause!r}")

    def _check_strength(self) -> None:
        if self.pairs is not None and (not isinstance(self.pairs, numbers.Integral) or isinstance(self.pairs, bool)
                                       or self.pairs < 0):
            raise ValueError(f"pairs must be None or an int >= 0, got {self.pairs!r}")
        if self.pairs is not None:
            object.__setattr__(self, "pairs", int(self.pairs))
        for name in ("sides", "interval", "fitted"):
            _text(name, getattr(self, name), allow_empty=True)
        if self.fitted and not re.fullmatch(r"[A-Z]{1,3}\d{1,3}", self.fitted):
            raise ValueError(f"fitted must be empty or a decision id (e.g. 'E18', 'PR16'), got {self.fitted!r}")
        und = (self.undecided,) if isinstance(self.undecided, str) else tuple(self.undecided)
        und = tuple(u for u in UNDECIDABLE if u in und) if all(u in UNDECIDABLE for u in und) else None
        if und is None:
            raise ValueError(f"undecided must name verdicts among {list(UNDECIDABLE)}, got {self.undecided!r}")
        object.__setattr__(self, "undecided", und)
        if "magnitude" in und and self.magnitude is None:
            raise ValueError(f"claim {self.claim!r}: an undecided magnitude needs a magnitude verdict (the "
                             "median's side of the paper's range) and its tolerance")
        if und and not self.interval.strip():
            raise ValueError(f"claim {self.claim!r} is undecided, so interval must give the interval that "
                             "straddles its threshold")

    @property
    def verdict(self) -> str:
        """``"holds"``, ``"fails"``, ``"undecided"`` or ``"observation"`` (:data:`VERDICTS`).

        A decided failing direction fails the claim whatever its magnitude; an undecided direction
        leaves it undecided; with the direction holding, the magnitude (where checked) decides the
        same way.  ``direction`` / ``magnitude`` keep the median's side (the point estimate)."""
        if self.kind == "observation":
            return "observation"
        if "direction" in self.undecided:
            return "undecided"
        if not self.direction:
            return "fails"
        if "magnitude" in self.undecided:
            return "undecided"
        return "fails" if self.magnitude is False else "holds"

    @property
    def holds(self) -> bool | None:
        """Direction holds and the magnitude (where checked) holds, both decided; None for
        observations and undecided claims (:attr:`verdict`)."""
        v = self.verdict
        return None if v in ("observation", "undecided") else v == "holds"


@dataclass(frozen=True)
class Verdict:
    """What a claim row's predicate finds (the papers' claims as rows, issue 46): the ``direction`` verdict,
    ``our_value``, the ``magnitude`` verdict (None: the row judges none) and the comparative verdict's
    strength fields (S24; None: none), from which the paper's ``claims`` module makes its :class:`Claim`."""
    direction: bool
    our_value: str
    magnitude: bool | None = None
    strength: dict | None = None


def observation(paper: str, figure: str, claim: str, our_value: str, note: str = "",
                paper_value: str = "—", setting: str = DEFAULT_SETTING) -> Claim:
    """A measured fact that is not a paper claim (a reading of an ambiguous passage, a
    question beyond the papers): no verdicts."""
    return Claim(paper=paper, figure=figure, claim=claim, paper_value=paper_value, our_value=our_value,
                 direction=None, note=note, kind="observation", setting=setting)


def within(ours: float, paper: float, rel: float) -> bool:
    """``|ours - paper| <= rel * |paper|`` (a relative tolerance; NaN never within).

    The bound is closed and forgives float rounding (1e-12 relative), so 1.1 is
    within 10 % of 1.0 although ``1.1 - 1.0`` is ``0.10000000000000009``."""
    if rel < 0:
        raise ValueError(f"rel must be >= 0, got {rel!r}")
    if math.isnan(ours) or math.isnan(paper):
        return False
    return abs(ours - paper) <= rel * abs(paper) * (1 + 1e-12) + 1e-15


def ratio_within(lo: float, hi: float, paper_lo: float, paper_hi: float) -> bool:
    """Whether our range ``[lo, hi]`` overlaps the paper's ``[paper_lo, paper_hi]`` (closed)."""
    if lo > hi or paper_lo > paper_hi:
        raise ValueError(f"ranges must have lo <= hi, got [{lo}, {hi}] and [{paper_lo}, {paper_hi}]")
    return lo <= paper_hi and hi >= paper_lo


def at_setting(claims: Iterable[Claim], setting: str) -> list[Claim]:
    """The same claims judged at ledger setting ``setting`` (S19)."""
    return [dataclasses.replace(c, setting=setting) for c in claims]


def mark_fitted(claims: Iterable[Claim], rule: str, statements: Iterable[str], paper: str,
                setting: str = PROFILE_SETTING) -> list[Claim]:
    """``claims`` with ``fitted=rule`` on every claim of ``paper`` judged at ``setting`` whose statement is
    one of ``statements`` (the calibration rule's targets, declared once next to the rule's code: e.g.
    :data:`simlib.papers.selective_reduce.profile.BASELINE_CLAIMS` for E18).  Other claims are unchanged."""
    statements = set(statements)
    return [dataclasses.replace(c, fitted=rule) if c.kind == "claim" and c.paper == paper and c.setting == setting
            and c.claim in statements else c for c in claims]


def _kind(cause: str) -> str:
    return cause.split(":", 1)[0].strip()


def cross_causes(default: Iterable[Claim], profile: Iterable[Claim], profile_label: str, *,
                 default_label: str, where_holds: Mapping[tuple[str, str], str] | None = None) -> list[Claim]:
    """The claims judged at the default (setting ``default``) and at a paper profile (``profile``;
    ``profile_label`` and ``default_label`` say each one's values): :func:`cross_settings` with those
    two settings."""
    return cross_settings({DEFAULT_SETTING: (list(default), f"the default ({default_label})"),
                           PROFILE_SETTING: (list(profile), f"the paper profile ({profile_label})")},
                          where_holds=where_holds)


def cross_settings(judged: Mapping[str, tuple[list[Claim], str]], *,
                   where_holds: Mapping[tuple[str, str], str] | None = None) -> list[Claim]:
    """The claims judged at several settings (``judged``: ``{setting: (claims, description)}``, the
    description naming the setting's values, e.g. ``"the default (Δt = 0.1 s)"``), each stamped with
    its setting and each failing verdict's cause carrying what the other settings measured (issue 30's
    "causes that carry their evidence"; issue 41's "where each claim holds"):

    * fails here, holds at another judged setting: cause "setting: holds at <the other>: <its value>";
    * fails at every judged setting: ``where_holds`` (``{(figure, claim): text}``, from a committed
      search over the open settings, e.g. ``"holds at 3 of 16 candidates searched (E18, 5 trials): Δt
      ≤ 0.02 s at the 1 s mean"``, or ``"holds at none of the 16 candidates searched ..."``) says
      where it does hold.  An "unexplained" cause becomes "setting: <where it holds>" when the search
      found a candidate, and says "ruled out: the open settings" only when the search found none; with
      no search entry it only adds what the other settings measured.  Any other cause is kept, the
      search's text appended;
    * a holding or undecided claim (S24) or an observation is unchanged.

    Claims are matched by (figure, claim); one judged at only one setting gets only the search's text.
    """
    where_holds = where_holds or {}
    key = lambda c: (c.figure, c.claim)
    stamped = {s: [c for c in at_setting(claims, s)] for s, (claims, _) in judged.items()}
    by = {s: {key(c): c for c in cs} for s, cs in stamped.items()}
    out = []
    for setting, claims in stamped.items():
        for c in claims:
            others = [(by[o][key(c)], judged[o][1]) for o in stamped if o != setting and key(c) in by[o]]
            if c.kind != "claim" or c.holds or c.verdict == "undecided":   # an undecided claim needs no cause
                out.append(c)
                continue
            holding = [(o, name) for o, name in others if o.holds]
            if holding:
                o, name = holding[0]
                out.append(dataclasses.replace(c, cause=f"setting: holds at {name}: {o.our_value}"))
                continue
            too = "".join(f"; it fails at {name} too: {o.our_value}" for o, name in others)
            where = where_holds.get(key(c), "")
            if _kind(c.cause) != "unexplained":
                cause = c.cause + (f"; search: {where}" if where else "")
            elif where.startswith("holds at none"):
                cause = f"{c.cause}; ruled out: the open settings -- it {where}{too}"
            elif where:
                cause = f"setting: {where}; at the judged settings {c.cause}{too}"
            else:
                cause = f"{c.cause}{too}"
            out.append(dataclasses.replace(c, cause=cause))
    return out
