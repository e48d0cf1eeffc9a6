"""The claims ledger: the papers' quantitative claims next to our measured values.

Notebooks call :func:`record_claim` once per claim they check, and
:func:`record_observation` for a measured fact that is not a paper claim (a
reading of an ambiguous passage, a question beyond the papers): observations
have no "holds" and do not count in the summary's "N claims checked".  The
ledger is a small CSV (columns :data:`COLUMNS`) keyed by (paper, figure, claim):
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
from numbers import Real
from pathlib import Path

import numpy as np
import pandas as pd

from simlib.pipeline import paths
from simlib.pipeline.atomic import atomic_write_bytes, locked_directory as _locked
from simlib.core.validate import check_real

__all__ = ["COLUMNS", "DEFAULT_LEDGER", "KINDS", "record_claim", "record_observation", "load_ledger",
           "summarize_ledger"]

COLUMNS = ("paper", "figure", "claim", "paper_value", "our_value", "holds", "note",
           "kind", "profile", "trials", "parameters")
#: Columns of ledgers written before the provenance columns existed (read as kind "claim").
_OLD_COLUMNS = COLUMNS[:7]
KEY = ("paper", "figure", "claim")
KINDS = ("claim", "observation")
#: The committed ledger ``<repository root>/data/results/claims.csv`` -- independent
#: of the current directory.  Written only by a publishing run (see the module docstring).
DEFAULT_LEDGER = paths.COMMITTED_LEDGER


def _check_text(name: str, value, allow_empty: bool = False) -> str:
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        kind = "a str" if allow_empty else "a non-empty str"
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    return value


def _check_value(name: str, value) -> str:
    """A claim value: a non-empty string (kept verbatim) or a real number (stored via str)."""
    if isinstance(value, str):
        return _check_text(name, value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a non-empty str or a real number, got {value!r}")
    v = check_real(name, value, allow_inf=True)
    return str(int(value)) if isinstance(value, (int, np.integer)) else repr(v)


def _check_path(name: str, path) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"{name} must be a str or os.PathLike, got {path!r}")
    return Path(path)


def _read_rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if tuple(reader.fieldnames or ()) not in (COLUMNS, _OLD_COLUMNS):
            raise ValueError(f"ledger_path {str(path)!r} is not a claims ledger: columns "
                             f"{reader.fieldnames} instead of {list(COLUMNS)}")
        rows = []
        for line, row in enumerate(reader, start=2):
            row = {"kind": "claim", "profile": "", "trials": "", "parameters": "", **row}
            allowed = ("True", "False") if row["kind"] == "claim" else ("",)
            if row["holds"] not in allowed:
                raise ValueError(f"ledger_path {str(path)!r} line {line}: holds of a {row['kind']} must be "
                                 f"{' or '.join(allowed) or 'empty'}, got {row['holds']!r}")
            rows.append({**row, "holds": None if row["holds"] == "" else row["holds"] == "True"})
    return rows


def _write_rows(path: Path, rows: list[dict]) -> None:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({**row, "holds": "" if row["holds"] is None else str(bool(row["holds"]))})
    atomic_write_bytes(path, buf.getvalue().encode("utf-8"))


def _provenance(profile, trials, parameters) -> dict:
    """profile / trials / parameters columns: given values, else what the run noted."""
    facts = paths.run_facts()
    passed = paths.passed_parameters()
    profile = profile if profile is not None else facts.get("profile", passed.get("profile", ""))
    trials = trials if trials is not None else facts.get("trials", "")
    if parameters is None:
        parameters = {k: v for k, v in passed.items() if k not in paths.RESULT_NEUTRAL_PARAMETERS}
    if not isinstance(parameters, dict):
        raise ValueError(f"parameters must be None or a dict, got {parameters!r}")
    try:
        params_json = json.dumps(parameters, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"parameters must be JSON-serializable with finite numbers: {exc}") from None
    return {"profile": _check_text("profile", str(profile), allow_empty=True),
            "trials": str(trials), "parameters": params_json}


class LedgerRow(dict):
    """A recorded ledger row (a plain dict) that IPython shows as one readable line.

    A notebook cell ending with ``record_claim(...)`` thus displays
    "claim recorded: Fig. 8: ...: paper X vs ours Y (holds)" instead of a dict.
    """

    def summary(self) -> str:
        verdict = "" if self.get("holds") is None else (" (holds)" if self["holds"] else " (does not hold)")
        return (f"{self.get('kind', 'claim')} recorded: {self['figure']}: {self['claim']}: paper "
                f"{self['paper_value']} vs ours {self['our_value']}{verdict}")

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(self.summary())


def _upsert(row: dict, ledger_path) -> dict:
    if ledger_path is None:
        context = paths.run_context()
        paths.announce(context)
        ledger_path = context.ledger
    path = _check_path("ledger_path", ledger_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path):
        rows = _read_rows(path)
        key = tuple(row[k] for k in KEY)
        for i, old in enumerate(rows):
            if tuple(old[k] for k in KEY) == key:
                rows[i] = row
                break
        else:
            rows.append(row)
        _write_rows(path, rows)
    return LedgerRow(row)


def _row(kind: str, paper, figure, claim, paper_value, our_value, note) -> dict:
    """A checked ledger row of ``kind`` (``holds`` still None)."""
    return {
        "paper": _check_text("paper", paper),
        "figure": _check_text("figure", figure),
        "claim": _check_text("claim", claim),
        "paper_value": _check_value("paper_value", paper_value),
        "our_value": _check_value("our_value", our_value),
        "holds": None,
        "note": _check_text("note", note, allow_empty=True),
        "kind": kind,
    }


def record_claim(paper: str, figure: str, claim: str, paper_value, our_value, holds: bool,
                 note: str = "", ledger_path=None, *, profile: str | None = None,
                 trials: int | None = None, parameters: dict | None = None) -> dict:
    """Insert or replace the ledger row keyed by (paper, figure, claim); return the row.

    ``paper``, ``figure`` and ``claim`` are non-empty strings (e.g.
    ``"Partial reduce (SIGMOD'21)"``, ``"Fig. 7"``, ``"speed-up over all-reduce"``);
    ``paper_value`` and ``our_value`` are non-empty strings kept verbatim
    (``"1.89–2.55×"``) or real numbers (stored as ``str``); ``holds`` is a bool
    (numpy bools accepted); ``note`` is free text.  ``profile``, ``trials``
    and ``parameters`` default to what the running notebook noted
    (``check_notebook_common`` / ``run_notebook_sweep``) and the parameters
    passed to it.  ``ledger_path`` defaults to the run context's ledger.  An
    existing row with the same key is replaced in place, otherwise the row is
    appended.  The CSV (parent directories created as needed) is rewritten
    atomically.
    """
    if not isinstance(holds, (bool, np.bool_)):
        raise ValueError(f"holds must be a bool (True or False), got {holds!r}")
    row = _row("claim", paper, figure, claim, paper_value, our_value, note)
    row["holds"] = bool(holds)
    row.update(_provenance(profile, trials, parameters))
    return _upsert(row, ledger_path)


def record_observation(paper: str, figure: str, claim: str, our_value, note: str = "",
                       paper_value="—", ledger_path=None, *, profile: str | None = None,
                       trials: int | None = None, parameters: dict | None = None) -> dict:
    """Record a measured fact that is not a paper claim (kind ``"observation"``, no ``holds``).

    For readings of ambiguous passages, paper gaps and questions beyond the
    papers: they are listed separately by :func:`summarize_ledger` and never
    counted as claims that hold.  Arguments as :func:`record_claim`;
    ``paper_value`` says what the paper states, if anything (default ``"—"``).
    """
    row = _row("observation", paper, figure, claim, paper_value, our_value, note)
    row.update(_provenance(profile, trials, parameters))
    return _upsert(row, ledger_path)


def load_ledger(path=DEFAULT_LEDGER) -> pd.DataFrame:
    """The ledger as a DataFrame with columns :data:`COLUMNS`.

    ``holds`` is pandas' nullable ``boolean`` (missing for observations); all
    other columns are strings.  A missing file gives an empty frame with the
    same columns.
    """
    path = _check_path("path", path)
    rows = _read_rows(path)
    df = pd.DataFrame.from_records(rows, columns=list(COLUMNS))
    return df.astype({c: ("boolean" if c == "holds" else str) for c in COLUMNS})


def summarize_ledger(path=DEFAULT_LEDGER) -> str:
    """Human-readable summary: ``"N claims checked: H hold, F do not"``.

    Followed by one line per claim that does not hold:
    ``"- <paper>, <figure>: <claim>: paper <paper_value> vs ours <our_value> (<note>)"``;
    then ``"M observations (not paper claims)"`` if there are any, and a
    warning line if rows come from other than the full profile with the
    notebooks' default parameters.  Returns ``"no claims recorded yet"`` if
    the ledger is missing or empty.
    """
    df = load_ledger(path)
    if df.empty:
        return "no claims recorded yet"
    claims_df = df[df["kind"] == "claim"]
    n, n_hold = len(claims_df), int(claims_df["holds"].sum())
    noun = "claim" if n == 1 else "claims"
    lines = [f"{n} {noun} checked: {n_hold} hold, {n - n_hold} do not"]
    for row in claims_df[~claims_df["holds"].astype(bool)].itertuples(index=False):
        line = (f"- {row.paper}, {row.figure}: {row.claim}: "
                f"paper {row.paper_value} vs ours {row.our_value}")
        lines.append(line + (f" ({row.note})" if row.note else ""))
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
