"""The claims ledger: the papers' quantitative claims next to our measured values.

Notebooks call :func:`record_claim` once per claim they check.  The ledger is
a small CSV (columns :data:`COLUMNS`) keyed by (paper, figure, claim): recording
a claim again replaces its row in place, so re-running a notebook never
duplicates rows.  Values are stored as strings so that ranges such as
``"1.89–2.55×"`` are kept verbatim.  Every write replaces the whole file
atomically (temporary file + :func:`os.replace`) under an advisory lock, so
readers never see a partial ledger and concurrent notebooks do not lose rows.
"""
from __future__ import annotations

import contextlib
import csv
import io
import os
from numbers import Real
from pathlib import Path

import numpy as np
import pandas as pd

from simlib.core import paths
from simlib.pipeline.atomic import atomic_write_bytes
from simlib.core.validate import check_real

__all__ = ["COLUMNS", "DEFAULT_LEDGER", "record_claim", "load_ledger", "summarize_ledger"]

COLUMNS = ("paper", "figure", "claim", "paper_value", "our_value", "holds", "note")
KEY = ("paper", "figure", "claim")
#: ``<repository root>/data/results/claims.csv`` -- independent of the current
#: directory, so notebooks run from ``notebooks/`` write to the same ledger.
DEFAULT_LEDGER = paths.RESULTS / "claims.csv"


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


@contextlib.contextmanager
def _locked(path: Path):
    """Exclusive advisory lock on the ledger's directory (no-op where unsupported).

    Locking the directory rather than a side file leaves no lock file behind.
    """
    try:
        import fcntl

        fd = os.open(path.parent, os.O_RDONLY)
    except (ImportError, OSError):  # pragma: no cover - non-POSIX
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _read_rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise ValueError(f"ledger_path {str(path)!r} is not a claims ledger: columns "
                             f"{reader.fieldnames} instead of {list(COLUMNS)}")
        rows = []
        for line, row in enumerate(reader, start=2):
            if row["holds"] not in ("True", "False"):
                raise ValueError(f"ledger_path {str(path)!r} line {line}: holds must be True or False, "
                                 f"got {row['holds']!r}")
            rows.append({**row, "holds": row["holds"] == "True"})
    return rows


def _write_rows(path: Path, rows: list[dict]) -> None:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({**row, "holds": "True" if row["holds"] else "False"})
    atomic_write_bytes(path, buf.getvalue().encode("utf-8"))


def record_claim(paper: str, figure: str, claim: str, paper_value, our_value, holds: bool,
                 note: str = "", ledger_path=DEFAULT_LEDGER) -> dict:
    """Insert or replace the ledger row keyed by (paper, figure, claim); return the row.

    ``paper``, ``figure`` and ``claim`` are non-empty strings (e.g.
    ``"Partial reduce (SIGMOD'21)"``, ``"Fig. 7"``, ``"speed-up over all-reduce"``);
    ``paper_value`` and ``our_value`` are non-empty strings kept verbatim
    (``"1.89–2.55×"``) or real numbers (stored as ``str``); ``holds`` is a bool
    (numpy bools accepted); ``note`` is free text.  An existing row with the
    same key is replaced in place, otherwise the row is appended.  The CSV
    (parent directories created as needed) is rewritten atomically.
    """
    row = {
        "paper": _check_text("paper", paper),
        "figure": _check_text("figure", figure),
        "claim": _check_text("claim", claim),
        "paper_value": _check_value("paper_value", paper_value),
        "our_value": _check_value("our_value", our_value),
        "holds": None,
        "note": _check_text("note", note, allow_empty=True),
    }
    if not isinstance(holds, (bool, np.bool_)):
        raise ValueError(f"holds must be a bool (True or False), got {holds!r}")
    row["holds"] = bool(holds)
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
    return dict(row)


def load_ledger(path=DEFAULT_LEDGER) -> pd.DataFrame:
    """The ledger as a DataFrame with columns :data:`COLUMNS` (``holds`` is bool).

    All other columns are strings.  A missing file gives an empty frame with
    the same columns.
    """
    path = _check_path("path", path)
    rows = _read_rows(path)
    df = pd.DataFrame.from_records(rows, columns=list(COLUMNS))
    return df.astype({c: (bool if c == "holds" else str) for c in COLUMNS})


def summarize_ledger(path=DEFAULT_LEDGER) -> str:
    """Human-readable summary: ``"N claims checked: H hold, F do not"``.

    Followed by one line per claim that does not hold:
    ``"- <paper>, <figure>: <claim>: paper <paper_value> vs ours <our_value> (<note>)"``.
    Returns ``"no claims recorded yet"`` if the ledger is missing or empty.
    """
    df = load_ledger(path)
    if df.empty:
        return "no claims recorded yet"
    n, n_hold = len(df), int(df["holds"].sum())
    noun = "claim" if n == 1 else "claims"
    lines = [f"{n} {noun} checked: {n_hold} hold, {n - n_hold} do not"]
    for row in df[~df["holds"]].itertuples(index=False):
        line = (f"- {row.paper}, {row.figure}: {row.claim}: "
                f"paper {row.paper_value} vs ours {row.our_value}")
        lines.append(line + (f" ({row.note})" if row.note else ""))
    return "\n".join(lines)
