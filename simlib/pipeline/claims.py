"""The claims ledger: the papers' quantitative claims next to our measured values.

Each paper's ``claims.py`` turns result frames into
:class:`~simlib.papers.claim.Claim` records (a direction verdict, a magnitude
verdict where the paper gives a number, the tolerance it is judged by, and the
cause of every failing verdict); notebooks pass them to :func:`record`.
Observations (measured facts that are not paper claims: a reading of an
ambiguous passage, a question beyond the papers) have no verdicts and do not
count in the summary's "N claims checked".  The ledger is a small CSV (columns :data:`COLUMNS`) keyed by (paper, figure, claim):
recording a claim again replaces its row in place, so re-running a notebook
never duplicates rows.  Every row records the ``profile``, ``trials`` and
``parameters`` (the ones passed to the run, JSON; ``{}`` = the notebook's
defaults) that produced it.  Without ``ledger_path`` the row goes to the run
context's ledger (:func:`simlib.pipeline.paths.run_context`): the committed
``data/results/claims.csv`` only for a full-profile ``make reproduce``, the
run folder's ``results/claims.csv`` otherwise.  Values are stored as strings so that ranges such as
``"1.89–2.55×"`` are kept verbatim.  Every write replaces the whole file
atomically (temporary file + :func:`os.replace`) under an advisory lock, so
readers never see a partial ledger and concurrent notebooks do not lose rows.
"""
from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path
from typing import Iterable

import pandas as pd

from simlib.pipeline import paths
from simlib.pipeline.atomic import atomic_write_bytes, locked_directory as _locked
from simlib.papers.claim import KINDS, Claim

__all__ = ["COLUMNS", "DEFAULT_LEDGER", "KINDS", "record", "load_ledger", "summarize_ledger"]

COLUMNS = ("paper", "figure", "claim", "paper_value", "our_value", "tolerance", "direction", "magnitude",
           "holds", "cause", "note", "kind", "notebook", "profile", "trials", "parameters")
#: Columns of ledgers written before direction/magnitude/cause existed (``holds`` read as the direction).
_V2_COLUMNS = ("paper", "figure", "claim", "paper_value", "our_value", "holds", "note",
               "kind", "profile", "trials", "parameters")
_V1_COLUMNS = _V2_COLUMNS[:7]
_VERDICTS = ("direction", "magnitude", "holds")
KEY = ("paper", "figure", "claim")
#: The committed ledger ``<repository root>/data/results/claims.csv`` -- independent
#: of the current directory.  Written only by a publishing run (see the module docstring).
DEFAULT_LEDGER = paths.COMMITTED_LEDGER


def _check_path(name: str, path) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"{name} must be a str or os.PathLike, got {path!r}")
    return Path(path)


def _verdict_text(value) -> str:
    return "" if value is None else str(bool(value))


def _parse_verdict(path: Path, line: int, column: str, text: str, kind: str):
    allowed = ("",) if kind == "observation" else (("True", "False", "") if column == "magnitude"
                                                  else ("True", "False"))
    if text not in allowed:
        raise ValueError(f"ledger_path {str(path)!r} line {line}: {column} of a {kind} must be "
                         f"{' or '.join(repr(a) for a in allowed)}, got {text!r}")
    return None if text == "" else text == "True"


def _read_rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        columns = tuple(reader.fieldnames or ())
        if columns not in (COLUMNS, _V2_COLUMNS, _V1_COLUMNS):
            raise ValueError(f"ledger_path {str(path)!r} is not a claims ledger: columns "
                             f"{reader.fieldnames} instead of {list(COLUMNS)}")
        rows = []
        for line, row in enumerate(reader, start=2):
            row = {"kind": "claim", "profile": "", "trials": "", "parameters": "", "notebook": "",
                   "tolerance": "", "cause": "", **row}
            if columns != COLUMNS:   # an older ledger: its "holds" was the only verdict
                row.update(direction=row["holds"], magnitude="")
            for column in _VERDICTS:
                row[column] = _parse_verdict(path, line, column, row[column], row["kind"])
            rows.append({c: row[c] for c in COLUMNS})
    return rows


def _write_rows(path: Path, rows: list[dict]) -> None:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({**row, **{c: _verdict_text(row[c]) for c in _VERDICTS}})
    atomic_write_bytes(path, buf.getvalue().encode("utf-8"))


def _provenance(profile, trials, parameters) -> dict:
    """notebook / profile / trials / parameters columns: given values, else what the run noted."""
    facts = paths.run_facts()
    passed = paths.passed_parameters()
    profile = profile if profile is not None else facts.get("profile", passed.get("profile", ""))
    trials = trials if trials is not None else facts.get("trials", "")
    if parameters is None:
        parameters = {k: paths.finite_json(v) for k, v in passed.items() if k not in paths.RESULT_NEUTRAL_PARAMETERS}
    if not isinstance(parameters, dict):
        raise ValueError(f"parameters must be None or a dict, got {parameters!r}")
    try:
        params_json = json.dumps(parameters, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"parameters must be JSON-serializable with finite numbers: {exc}") from None
    if not isinstance(profile, str):
        raise ValueError(f"profile must be a str, got {profile!r}")
    return {"notebook": paths.run_context().notebook if facts else "", "profile": profile,
            "trials": str(trials), "parameters": params_json}


class LedgerRow(dict):
    """A recorded ledger row (a plain dict) that IPython shows as one readable line.

    A notebook cell ending with ``record(...)`` thus displays
    "claim recorded: Fig. 8: ...: paper X vs ours Y (direction holds, magnitude fails)".
    """

    def summary(self) -> str:
        if self.get("kind") == "observation":
            verdict = ""
        else:
            parts = [f"direction {'holds' if self['direction'] else 'fails'}"]
            if self.get("magnitude") is not None:
                parts.append(f"magnitude {'holds' if self['magnitude'] else 'fails'}")
            verdict = f" ({', '.join(parts)})"
        return (f"{self.get('kind', 'claim')} recorded: {self['figure']}: {self['claim']}: paper "
                f"{self['paper_value']} vs ours {self['our_value']}{verdict}")

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(self.summary())


class LedgerRows(list):
    """The rows one :func:`record` call wrote; IPython shows one line per row."""

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text("\n".join(r.summary() for r in self))


def _upsert(new_rows: list[dict], ledger_path) -> None:
    if ledger_path is None:
        context = paths.run_context()
        paths.announce(context)
        ledger_path = context.ledger
    path = _check_path("ledger_path", ledger_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path):
        rows = _read_rows(path)
        index = {tuple(old[k] for k in KEY): i for i, old in enumerate(rows)}
        for row in new_rows:
            key = tuple(row[k] for k in KEY)
            if key in index:
                rows[index[key]] = row
            else:
                index[key] = len(rows)
                rows.append(row)
        _write_rows(path, rows)


def record(claims: Claim | Iterable[Claim], ledger_path=None, *, profile: str | None = None,
           trials: int | None = None, parameters: dict | None = None) -> LedgerRows:
    """Insert or replace the ledger rows of ``claims`` (keyed by (paper, figure, claim)).

    ``claims`` is one :class:`~simlib.papers.claim.Claim` or an iterable of them
    (what a paper's ``claims.py`` returns).  ``profile``, ``trials`` and
    ``parameters`` default to what the running notebook noted
    (``check_notebook_common`` / ``run_notebook_sweep``) and the parameters
    passed to it; ``ledger_path`` to the run context's ledger.  An existing row
    with the same key is replaced in place, otherwise the row is appended; the
    CSV is rewritten atomically.  Returns the rows written.
    """
    claims = [claims] if isinstance(claims, Claim) else list(claims)
    for c in claims:
        if not isinstance(c, Claim):
            raise ValueError(f"claims must be Claim records (simlib.papers.claim.Claim), got {c!r}")
    keys = [(c.paper, c.figure, c.claim) for c in claims]
    if len(set(keys)) != len(keys):
        dup = next(k for k in keys if keys.count(k) > 1)
        raise ValueError(f"claims must have distinct (paper, figure, claim) keys, {dup} appears twice")
    prov = _provenance(profile, trials, parameters)
    rows = [{**{f: getattr(c, f) for f in ("paper", "figure", "claim", "paper_value", "our_value",
                                              "tolerance", "direction", "magnitude", "cause", "note", "kind")},
             "holds": c.holds, **prov} for c in claims]
    _upsert(rows, ledger_path)
    return LedgerRows(LedgerRow(r) for r in rows)


def load_ledger(path=DEFAULT_LEDGER) -> pd.DataFrame:
    """The ledger as a DataFrame with columns :data:`COLUMNS`.

    ``direction``, ``magnitude`` and ``holds`` are pandas' nullable ``boolean``
    (missing for observations; ``magnitude`` also where the paper gives no
    number); all other columns are strings.  A missing file gives an empty
    frame with the same columns -- so does the default ``path`` in an installed
    package, which ships no committed ledger (the repository's
    ``data/results/claims.csv``); a run's ledger is ``<run folder>/results/claims.csv``.
    """
    path = _check_path("path", path)
    rows = _read_rows(path)
    df = pd.DataFrame.from_records(rows, columns=list(COLUMNS))
    return df.astype({c: ("boolean" if c in _VERDICTS else str) for c in COLUMNS})


def summarize_ledger(path=DEFAULT_LEDGER) -> str:
    """Human-readable summary of a ledger.

    ``"N claims checked: H hold, F do not (direction holds in D of N; magnitude
    checked in M, holds in K)"``, then one line per claim that does not hold:
    ``"- <paper>, <figure>: <claim>: paper <paper_value> vs ours <our_value>
    [direction fails; magnitude fails] -- <cause>"``; then ``"M observations
    (not paper claims)"`` if there are any, and a warning line if rows come
    from other than the full profile with the notebooks' default parameters.
    Returns ``"no claims recorded yet"`` if the ledger is missing or empty.
    """
    df = load_ledger(path)
    if df.empty:
        return "no claims recorded yet"
    claims_df = df[df["kind"] == "claim"]
    n, n_hold = len(claims_df), int(claims_df["holds"].sum())
    n_dir = int(claims_df["direction"].sum())
    mag = claims_df["magnitude"].dropna()
    noun = "claim" if n == 1 else "claims"
    lines = [f"{n} {noun} checked: {n_hold} hold, {n - n_hold} do not (direction holds in {n_dir} of {n}; "
             f"magnitude checked in {len(mag)}, holds in {int(mag.sum())})"]
    for row in claims_df[~claims_df["holds"].astype(bool)].itertuples(index=False):
        fails = [v for v, ok in (("direction", row.direction), ("magnitude", row.magnitude))
                 if not pd.isna(ok) and not ok]
        line = (f"- {row.paper}, {row.figure}: {row.claim}: "
                f"paper {row.paper_value} vs ours {row.our_value} [{' and '.join(fails)} fails]")
        lines.append(line + (f" -- {row.cause}" if row.cause else ""))
    n_obs = int((df["kind"] == "observation").sum())
    if n_obs:
        lines.append(f"{n_obs} observation{'s' if n_obs != 1 else ''} (not paper claims) recorded")
    custom = df[(df["profile"] != "full") | ~df["parameters"].isin(["{}", '{"profile": "full"}'])]
    custom = custom[custom["profile"] != ""]  # rows written before provenance was recorded
    if len(custom):
        profiles = sorted(set(custom["profile"]))
        lines.append(f"note: {len(custom)} row(s) come from a run with profile {'/'.join(profiles)} "
                     "or custom parameters, not the paper-fidelity defaults")
    return "\n".join(lines)
