"""The claims ledger: the papers' quantitative claims next to our measured values.

Each paper's ``claims.py`` turns result frames into
:class:`~simlib.papers.claim.Claim` records (a direction verdict, a magnitude
verdict where the paper gives a number, the tolerance it is judged by, and the
cause of every failing verdict); notebooks pass them to :func:`record`.
Observations (measured facts that are not paper claims: a reading of an
ambiguous passage, a question beyond the papers) have no verdicts and do not
count in the summary's "N claims checked".  The ledger is a small CSV (columns :data:`COLUMNS`) keyed by
(paper, figure, claim, setting) -- one verdict per claim per setting (decision S19):
recording a claim again replaces its row in place, so re-running a notebook
never duplicates rows.  A comparative verdict carries its strength (decision S24): ``pairs``,
``sides``, ``interval`` and ``undecided`` (the verdicts its interval leaves open; such a row's
``holds`` is empty: it neither holds nor fails); ``fitted`` names the calibration rule whose target
the row's quantity was (shown, counted apart, never as a hold).  Rows that are not comparative leave
them empty, and ledgers written before these columns read with them empty.  Every row records the ``profile``, ``trials`` and
``parameters`` (JSON: a notebook's profile and the parameters passed to it,
``{"profile": "full"}`` = its defaults; decision S22) that produced it.  A notebook records through its
:class:`~simlib.pipeline.run.Run` (``run.record``), which passes its ledger -- the committed
``data/results/claims.csv`` only for a full-profile ``make reproduce``, the run folder's
``results/claims.csv`` otherwise -- and its provenance; a script calls :func:`record` with
both.  Values are stored as strings so that ranges such as
``"1.89–2.55×"`` are kept verbatim.  Every write replaces the whole file
atomically (temporary file + :func:`os.replace`) under an advisory lock, so
readers never see a partial ledger and concurrent notebooks do not lose rows.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
from pathlib import Path
from typing import Iterable

import pandas as pd

from simlib.pipeline import paths
from simlib.pipeline.atomic import atomic_write_bytes, locked_directory as _locked
from simlib.papers.claim import DEFAULT_SETTING, KINDS, PROFILE_SETTING, Claim, mark_fitted
from simlib.pipeline.check import MACHINE_DEPENDENT

__all__ = ["COLUMNS", "DEFAULT_LEDGER", "KINDS", "record", "cite_measurements", "load_ledger", "settings_table",
           "reproduction_table", "markdown_table", "summarize_ledger", "verdict_counts", "row_verdict"]

#: The strength columns (S24) and the calibration mark, after the provenance.
STRENGTH_COLUMNS = ("pairs", "sides", "interval", "undecided", "fitted")
COLUMNS = ("paper", "figure", "claim", "setting", "paper_value", "our_value", "tolerance", "direction", "magnitude",
           "holds", "cause", "note", "kind", "notebook", "profile", "trials", "parameters") + STRENGTH_COLUMNS
#: Columns of ledgers written before the strength columns existed (rows without strength).
_V4_COLUMNS = COLUMNS[:-len(STRENGTH_COLUMNS)]
#: Columns of ledgers written before the setting column existed (every row at the default setting).
_V3_COLUMNS = tuple(c for c in _V4_COLUMNS if c != "setting")
_VERDICTS = ("direction", "magnitude", "holds")
KEY = ("paper", "figure", "claim", "setting")
#: The committed ledger ``<repository root>/data/results/claims.csv`` -- independent
#: of the current directory.  Written only by a publishing run (see the module docstring).
DEFAULT_LEDGER = paths.COMMITTED_LEDGER


def _check_path(name: str, path) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"{name} must be a str or os.PathLike, got {path!r}")
    return Path(path)


def _verdict_text(value) -> str:
    return "" if value is None else str(bool(value))


def _parse_verdict(path: Path, line: int, column: str, text: str, kind: str, undecided: str = ""):
    allowed = ("",) if kind == "observation" else (("True", "False", "") if column == "magnitude"
                                                  or (column == "holds" and undecided) else ("True", "False"))
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
        if columns not in (COLUMNS, _V4_COLUMNS, _V3_COLUMNS):
            raise ValueError(f"ledger_path {str(path)!r} is not a claims ledger: columns "
                             f"{reader.fieldnames} instead of {list(COLUMNS)}")
        rows = []
        for line, row in enumerate(reader, start=2):
            row = {"setting": DEFAULT_SETTING, **dict.fromkeys(STRENGTH_COLUMNS, ""), **row}
            for column in _VERDICTS:
                row[column] = _parse_verdict(path, line, column, row[column], row["kind"], row["undecided"])
            rows.append({c: row[c] for c in COLUMNS})
    return rows


def _write_rows(path: Path, rows: list[dict]) -> None:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({**row, **{c: _verdict_text(row[c]) for c in _VERDICTS}})
    atomic_write_bytes(path, buf.getvalue().encode("utf-8"))


def _provenance(notebook, profile, trials, parameters) -> dict:
    """notebook / profile / trials / parameters columns, checked ("" for an unknown one)."""
    if parameters is None:
        parameters = {}
    if not isinstance(parameters, dict):
        raise ValueError(f"parameters must be None or a dict, got {parameters!r}")
    try:
        params_json = json.dumps(parameters, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"parameters must be JSON-serializable with finite numbers: {exc}") from None
    for name, value in (("notebook", notebook), ("profile", profile)):
        if not isinstance(value, str):
            raise ValueError(f"{name} must be a str, got {value!r}")
    return {"notebook": notebook, "profile": profile, "trials": "" if trials is None else str(trials),
            "parameters": params_json}


class LedgerRow(dict):
    """A recorded ledger row (a plain dict) that IPython shows as one readable line.

    A notebook cell ending with ``record(...)`` thus displays
    "claim recorded: Fig. 8: ...: paper X vs ours Y (direction holds, magnitude fails)".
    """

    def summary(self) -> str:
        if self.get("kind") == "observation":
            verdict = ""
        elif str(self.get("our_value", "")).startswith(MACHINE_DEPENDENT):   # the verdict varies by machine:
            verdict = " (verdict: machine-dependent, in the ledger)"          # kept out of the notebook's output
        else:
            und = self.get("undecided", "").split(",")
            word = lambda v, ok: "undecided" if v in und else ("holds" if ok else "fails")
            parts = [f"direction {word('direction', self['direction'])}"]
            if self.get("magnitude") is not None:
                parts.append(f"magnitude {word('magnitude', self['magnitude'])}")
            if self.get("fitted"):
                parts.append(f"fitted by {self['fitted']}")
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


def row_owners(ledger_path) -> list[tuple[tuple, str]]:
    """``[(key, notebook)]`` of the ledger's rows in file order (``[]`` if there is none): each row's key
    (paper, figure, claim, setting) and the notebook that recorded it last."""
    path = _check_path("ledger_path", ledger_path)
    if not path.exists():
        return []
    with _locked(path):
        return [(tuple(r[k] for k in KEY), r["notebook"]) for r in _read_rows(path)]


def sort_rows(ledger_path, rank) -> bool:
    """Rewrite the ledger with its rows stably sorted by ``rank(key)`` (a row's (paper, figure, claim,
    setting) -> a sortable value), under the ledger's lock; returns whether the order changed.  The notebook
    runner puts the rows of notebooks that ran at once in the order a run one at a time gives (decision S37)."""
    path = _check_path("ledger_path", ledger_path)
    if not path.exists():
        return False
    with _locked(path):
        rows = _read_rows(path)
        ordered = sorted(rows, key=lambda r: rank(tuple(r[k] for k in KEY)))
        if ordered == rows:
            return False
        _write_rows(path, ordered)
    return True


def fitted_marks(papers=None) -> dict[str, tuple[tuple[str, tuple[str, ...]], ...]]:
    """Per paper id, its calibration rules, each with the claims whose quantity it fits (S24), from the
    declarations next to each rule's code that each paper names (``Paper.fitted``;
    :func:`simlib.papers.registry.fitted_marks`): 000's E18, 002's PR16, 004's SM72 (BSP) and SM75 (SSP).
    ``papers``: only these paper ids (None: every paper); resolving a paper's marks imports its profile
    modules (004's: its BSP figures and SSP experiments, 0.2-0.25 s of a notebook kernel's time)."""
    from simlib.papers.registry import PAPERS, fitted_marks as derived

    wanted = None if papers is None else set(papers)
    return derived(None if wanted is None else [p for p in PAPERS if p.id in wanted])


def record(claims: Claim | Iterable[Claim], ledger_path, *, notebook: str = "", profile: str = "",
           trials: int | None = None, parameters: dict | None = None) -> LedgerRows:
    """Insert or replace the ledger rows of ``claims`` (keyed by (paper, figure, claim, setting)).

    ``claims`` is one :class:`~simlib.papers.claim.Claim` or an iterable of them
    (what a paper's ``claims.py`` returns).  ``notebook``, ``profile``, ``trials`` and
    ``parameters`` (the ones passed to the run, a JSON-serializable dict; None: ``{}``) are the
    rows' provenance; :meth:`simlib.pipeline.run.Run.record` passes its own.  An existing row
    with the same key is replaced in place, otherwise the row is appended; the
    CSV is rewritten atomically.  A claim at the paper profile whose quantity a calibration rule
    fitted (:func:`fitted_marks`) is written with that rule in ``fitted`` (S24).  Returns the rows written.
    """
    claims = [claims] if isinstance(claims, Claim) else list(claims)
    for c in claims:
        if not isinstance(c, Claim):
            raise ValueError(f"claims must be Claim records (simlib.papers.claim.Claim), got {c!r}")
    # mark_fitted changes only a claim at the paper profile: a paper with none there needs no marks (and so
    # the import of its profile modules, which a notebook of another paper would pay for on every record)
    profiled = {c.paper for c in claims if c.kind == "claim" and c.setting == PROFILE_SETTING}
    for paper, rules in (fitted_marks(profiled) if profiled else {}).items():
        for rule, statements in rules:
            claims = mark_fitted(claims, rule, statements, paper)
    keys = [(c.paper, c.figure, c.claim, c.setting) for c in claims]
    if len(set(keys)) != len(keys):
        dup = next(k for k in keys if keys.count(k) > 1)
        raise ValueError(f"claims must have distinct (paper, figure, claim, setting) keys, {dup} appears twice")
    prov = _provenance(notebook, profile, trials, parameters)
    rows = [{**{f: getattr(c, f) for f in ("paper", "figure", "claim", "setting", "paper_value", "our_value",
                                              "tolerance", "direction", "magnitude", "cause", "note", "kind",
                                              "sides", "interval", "fitted")},
             "holds": c.holds, **prov, "pairs": "" if c.pairs is None else str(c.pairs),
             "undecided": ",".join(c.undecided)} for c in claims]
    _upsert(rows, ledger_path)
    return LedgerRows(LedgerRow(r) for r in rows)


def cite_measurements(claims: Claim | Iterable[Claim], measurement_file: str) -> list[Claim]:
    """``claims`` that judge wall-clock times, as the results ledger keeps them (decision S26): the
    measured text (``our_value``) replaced by a pointer to ``measurement_file`` (where the full rows
    are kept, :meth:`simlib.pipeline.run.Run.measured_claims`) and the note saying that the verdict
    depends on the machine; paper value, tolerance, verdicts and cause are kept (so a claim's cause
    must not quote a time)."""
    claims = [claims] if isinstance(claims, Claim) else list(claims)
    if not isinstance(measurement_file, str) or not measurement_file.strip():
        raise ValueError(f"measurement_file must be a non-empty str, got {measurement_file!r}")
    tail = f"wall-clock times: the verdict depends on the machine; measured values in {measurement_file}"
    return [dataclasses.replace(c, our_value=f"{MACHINE_DEPENDENT}, see {measurement_file}",
                                note=f"{c.note}; {tail}" if c.note else tail) for c in claims]


def load_ledger(path=DEFAULT_LEDGER) -> pd.DataFrame:
    """The ledger as a DataFrame with columns :data:`COLUMNS`.

    ``direction``, ``magnitude`` and ``holds`` are pandas' nullable ``boolean``
    (missing for observations; ``magnitude`` also where the paper gives no
    number); all other columns are strings.  A missing file is a ``FileNotFoundError``
    naming it (so is the default ``path`` in an installed package, which ships no
    committed ledger: the repository's ``data/results/claims.csv``); a run's ledger is
    ``<run folder>/results/claims.csv``, written when it records its first row.
    """
    path = _check_path("path", path)
    if not path.is_file():
        raise FileNotFoundError(f"path {str(path)!r}: no claims ledger there (the committed one is "
                                f"data/results/claims.csv in the source repository; a run's is "
                                f"<run folder>/results/claims.csv, written when it records its first row)")
    rows = _read_rows(path)
    df = pd.DataFrame.from_records(rows, columns=list(COLUMNS))
    return df.astype({c: ("boolean" if c in _VERDICTS else str) for c in COLUMNS})


def settings_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per paper, where its claims hold (decision S19): one row per paper with the number of claims
    (distinct (figure, claim)) and how many hold (decided, not fitted: :func:`row_verdict`) at the default setting, at the paper profile, only at
    some setting other than the default, and at none of the settings they were judged at; of the
    last, how many carry the cause "likely paper error" or "unexplained" at the default.

    ``df`` is a ledger frame (:func:`load_ledger`); observations are left out.  Columns: ``paper``,
    ``claims``, ``at_default``, ``at_profile`` (claims judged at the profile that hold there),
    ``judged_at_profile``, ``elsewhere_only``, ``neither``, ``likely_paper_error``, ``unexplained``.
    """
    cols = ["paper", "claims", "at_default", "at_profile", "judged_at_profile", "elsewhere_only", "neither",
            "likely_paper_error", "unexplained"]
    claims_df = df[df["kind"] == "claim"]
    out = []
    for paper, rows in claims_df.groupby("paper", sort=True):
        counts = dict.fromkeys(cols[1:], 0)
        for _, claim in rows.groupby(["figure", "claim"], sort=False):
            holds = {r.setting: row_verdict(r._asdict()) == "holds" for r in claim.itertuples(index=False)}
            counts["claims"] += 1
            counts["at_default"] += holds.get(DEFAULT_SETTING, False)
            counts["judged_at_profile"] += PROFILE_SETTING in holds
            counts["at_profile"] += holds.get(PROFILE_SETTING, False)
            other = any(v for k, v in holds.items() if k != DEFAULT_SETTING)
            counts["elsewhere_only"] += other and not holds.get(DEFAULT_SETTING, False)
            if not any(holds.values()):
                counts["neither"] += 1
                default = claim[claim["setting"] == DEFAULT_SETTING]
                kind = (default if len(default) else claim)["cause"].iloc[0].split(":", 1)[0].strip()
                counts["likely_paper_error"] += kind == "likely paper error"
                counts["unexplained"] += kind == "unexplained"
        out.append({"paper": paper, **counts})
    return pd.DataFrame(out, columns=cols)


#: Columns of :func:`headline_markdown`'s table (the README's "What the reproduction finds").
HEADLINE_COLUMNS = ("seed", "claims", "hold at our defaults", "hold at the paper profile", "hold only at another setting",
                    "hold at neither (likely paper error, unexplained)", "counts from")


def headline_markdown(df: pd.DataFrame) -> str:
    """The README's headline table, one row per paper of the ledger frame ``df``: the counts of
    :func:`settings_table` (the profile column as "holds of judged", "—" where no claim was judged at a
    profile) and the command that prints them.  A test keeps the README equal to it for the committed
    ledger."""
    rows = ["| " + " | ".join(HEADLINE_COLUMNS) + " |", "|---|---:|---:|---:|---:|---:|---|"]
    for r in settings_table(df).itertuples(index=False):
        profile = f"{r.at_profile} of {r.judged_at_profile}" if r.judged_at_profile else "—"
        rows.append(f"| {r.paper} | {r.claims} | {r.at_default} | {profile} | {r.elsewhere_only} | "
                    f"{r.neither} ({r.likely_paper_error}, {r.unexplained}) | `python -m simlib claims --paper {r.paper}` |")
    return "\n".join(rows) + "\n"


def row_verdict(row) -> str:
    """A ledger row's verdict (a mapping with ``kind``, ``holds``, ``fitted``): ``"observation"``,
    ``"fitted"`` (a calibration target's row, S24: shown, never counted as a hold), ``"undecided"``
    (``holds`` missing), ``"holds"`` or ``"fails"``."""
    if row["kind"] == "observation":
        return "observation"
    if row.get("fitted", ""):
        return "fitted"
    if pd.isna(row["holds"]):
        return "undecided"
    return "holds" if bool(row["holds"]) else "fails"


def verdict_counts(df: pd.DataFrame) -> pd.DataFrame:
    """Per paper and setting (S24): the claims' verdicts counted apart -- ``holds``, ``fails``,
    ``undecided`` (an interval straddles the threshold) and ``fitted`` (calibration targets, whatever
    their verdict).  ``df``: a ledger frame; observations are left out."""
    cols = ["paper", "setting", "holds", "fails", "undecided", "fitted"]
    claims_df = df[df["kind"] == "claim"]
    verdicts = pd.Series([row_verdict(r) for r in claims_df.to_dict("records")], index=claims_df.index,
                         dtype=object)
    out = []
    for (paper, setting), g in claims_df.groupby(["paper", "setting"], sort=True):
        v = verdicts[g.index]
        out.append({"paper": paper, "setting": setting, **{k: int((v == k).sum()) for k in cols[2:]}})
    return pd.DataFrame(out, columns=cols)


def _status(holds: dict, causes: dict, verdicts: dict) -> str:
    """One claim's status over its settings (``holds``/``causes``/``verdicts``: setting -> holds / a
    failing verdict's cause / :func:`row_verdict`)."""
    if holds.get(DEFAULT_SETTING):
        return "holds at default" + (" and profile" if holds.get(PROFILE_SETTING) else "")
    other = sorted(k for k, v in holds.items() if v and k != DEFAULT_SETTING)
    if other:
        return "holds at " + " and ".join(other) + " only"
    if not causes:          # every setting's verdict is undecided or fitted (S24)
        return " / ".join(sorted(set(verdicts.values())))
    kind = causes.get(DEFAULT_SETTING, next(iter(causes.values()), "")).split(":", 1)[0].strip()
    return kind if kind in ("likely paper error", "unexplained") else f"fails ({kind})"


def reproduction_table(df: pd.DataFrame, paper: str) -> pd.DataFrame:
    """The claims of ``paper`` as a replication report's table (decision S19): one row per claim
    with its verdict at each setting (``holds``/``fails``/``undecided``/``fitted``/``""`` when not judged
    there; :func:`row_verdict`), its status
    ("holds at default [and profile]", "holds at profile only", "likely paper error", "unexplained",
    "fails (<cause kind>)") and the cause at the default.  ``df``: a ledger frame."""
    claims_df = df[(df["kind"] == "claim") & (df["paper"] == paper)]
    settings = [s for s in (DEFAULT_SETTING, PROFILE_SETTING) if s in set(claims_df["setting"])]
    settings += sorted(set(claims_df["setting"]) - set(settings))
    rows = []
    for (figure, claim), g in claims_df.groupby(["figure", "claim"], sort=False):
        verdicts = {r["setting"]: row_verdict(r) for r in g.to_dict("records")}
        holds = {k: v == "holds" for k, v in verdicts.items()}
        causes = {r.setting: r.cause for r in g.itertuples(index=False) if verdicts[r.setting] == "fails"}
        rows.append({"figure": figure, "claim": claim, **{s: verdicts.get(s, "") for s in settings},
                     "status": _status(holds, causes, verdicts), "cause": causes.get(DEFAULT_SETTING, "")})
    return pd.DataFrame(rows, columns=["figure", "claim", *settings, "status", "cause"])


def markdown_table(df: pd.DataFrame) -> str:
    """``df`` as a GitHub Markdown table (cells as text; ``|`` escaped, newlines as spaces)."""
    cell = lambda v: str(v).replace("|", "\\|").replace("\n", " ")
    lines = ["| " + " | ".join(cell(c) for c in df.columns) + " |", "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


def _settings_lines(df: pd.DataFrame) -> list[str]:
    table = settings_table(df)
    lines = ["per paper (claims; holds at default / at profile / only at another setting / at neither, "
             "of which likely paper error, unexplained):"]
    for r in table.itertuples(index=False):
        profile = f"{r.at_profile} of {r.judged_at_profile}" if r.judged_at_profile else "n/a"
        lines.append(f"  {r.paper}: {r.claims} claims; default {r.at_default}, profile {profile}, "
                     f"other setting only {r.elsewhere_only}, neither {r.neither} "
                     f"({r.likely_paper_error} likely paper error, {r.unexplained} unexplained)")
    return lines


def summarize_ledger(path=DEFAULT_LEDGER) -> str:
    """Human-readable summary of a ledger.

    ``"N claims checked at S setting(s) (<settings>): V verdicts: H hold, F fail, U undecided, X fitted
    (direction holds in D of V; magnitude checked in M, holds in K)"`` (S24: an undecided verdict's
    interval straddles its threshold; a fitted row's quantity was a calibration target, counted apart
    whatever its verdict), per paper and setting the same four counts (:func:`verdict_counts`), the
    per-paper table of :func:`settings_table`, then one line per verdict that fails or is undecided:
    ``"- <paper>, <figure> [<setting>]: <claim>: paper <paper_value> vs ours <our_value>
    [direction fails; magnitude undecided at 40 pairs: <interval>] [fitted by E18] -- <cause>"``; then
    ``"M observations (not paper claims)"`` if there are any, and a warning line if rows come
    from other than the full profile with the notebooks' default parameters.
    Returns ``"no claims recorded yet"`` if the ledger has no rows; a missing file is a
    ``FileNotFoundError`` (:func:`load_ledger`).
    """
    df = load_ledger(path)
    if df.empty:
        return "no claims recorded yet"
    claims_df = df[df["kind"] == "claim"]
    n_claims = len(claims_df.drop_duplicates(["paper", "figure", "claim"]))
    settings = sorted(set(claims_df["setting"]))
    v = len(claims_df)
    counts = verdict_counts(df)[["holds", "fails", "undecided", "fitted"]].sum()
    n_dir = int(claims_df["direction"].sum())
    mag = claims_df["magnitude"].dropna()
    noun = "claim" if n_claims == 1 else "claims"
    lines = [f"{n_claims} {noun} checked at {len(settings)} setting{'s' if len(settings) != 1 else ''} "
             f"({', '.join(settings)}): {v} verdict{'s' if v != 1 else ''}: {counts['holds']} hold, "
             f"{counts['fails']} fail, {counts['undecided']} undecided, {counts['fitted']} fitted (direction holds in "
             f"{n_dir} of {v}; magnitude checked in {len(mag)}, holds in {int(mag.sum())})"]
    if n_claims:
        lines.append("per paper and setting (hold / fail / undecided / fitted, the last calibration targets "
                     "not counted as holds):")
        lines += [f"  {r.paper} {r.setting}: {r.holds} hold, {r.fails} fail, {r.undecided} undecided, "
                  f"{r.fitted} fitted" for r in verdict_counts(df).itertuples(index=False)]
        lines += _settings_lines(df)
    for row in claims_df.to_dict("records"):
        if pd.notna(row["holds"]) and bool(row["holds"]):
            continue
        und = row["undecided"].split(",")
        words = [f"{name} undecided" if name in und else f"{name} fails"
                 for name, ok in (("direction", row["direction"]), ("magnitude", row["magnitude"]))
                 if name in und or (not pd.isna(ok) and not ok)]
        strength = f" at {row['pairs']} pairs: {row['interval']}" if row["undecided"] else ""
        line = (f"- {row['paper']}, {row['figure']} [{row['setting']}]: {row['claim']}: "
                f"paper {row['paper_value']} vs ours {row['our_value']} [{' and '.join(words)}{strength}]"
                + (f" [fitted by {row['fitted']}]" if row["fitted"] else ""))
        lines.append(line + (f" -- {row['cause']}" if row["cause"] else ""))
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
