"""Did a reproduction change a result?  ``python -m simlib.pipeline.check`` (``make reproduce-check``).

Compares every committed result file of the working copy with a reference git revision
(default ``HEAD``; decision S27):

* ``data/results/*.csv`` (the claims ledger included) **column by column**: rows are matched by
  their key -- the ledger's (paper, figure, claim, setting), a sweep's setting columns and
  ``trial`` (every column up to ``trial``), else the row number -- and every differing value is
  listed as ``file, column, row key, old, new``; values are compared as the text written (a
  float that moved in its last digit differs);
* ``notebooks/*.ipynb``: each code cell's outputs (after the runner's scrubbing; consecutive
  outputs of one stream compared as one);
* ``figures/*``: byte for byte.

Wall-clock measurements are not results and are left out: everything under
``data/measurements/`` and the files in :data:`MEASUREMENT_FILES` (decision S26).  A ledger row
that judges a wall-clock claim (its ``our_value`` starts with :data:`MACHINE_DEPENDENT`, e.g.
004's MILP times) may change its verdict from one machine or day to the next: its differences are
listed apart, as measurements, and do not make the results differ.  It prints ``results identical
(...)`` or the differences (with a count per file) and exits 1 if there are any; beside differences it names the
numerical kernels the reference's results were computed with (its ``requirements.lock``) and this machine's,
when they are not the same (decision S43: BLAS and numpy's SIMD loops may round differently on other kernels).
``benchmarks/reference/`` keeps the report of each reference run (``--report FILE``).
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from simlib.core.paths import REPO_ROOT

__all__ = ["Difference", "MEASUREMENT_FILES", "MACHINE_DEPENDENT", "is_machine_dependent", "RESULT_GLOBS", "compare_csv", "compare_notebook",
           "compare_bytes", "compare_trees", "numerics_note", "report", "main"]

#: The committed files that are results, as globs relative to the repository root.
RESULT_GLOBS = ("data/results/*.csv", "notebooks/*.ipynb", "figures/*")
#: Committed files inside those globs that are wall-clock measurements, not results (decision S26);
#: everything under ``data/measurements/`` is one too and is never compared.
MEASUREMENT_FILES = frozenset({"data/results/notebook_times.csv"})
#: The claims ledger's row key.
LEDGER_KEY = ("paper", "figure", "claim", "setting")
#: How a ledger row that judges a wall-clock claim starts its ``our_value`` (it cites the measurement file).
MACHINE_DEPENDENT = "machine-dependent"
#: Differences listed before "... and N more".
MAX_LISTED = 200


@dataclass(frozen=True)
class Difference:
    """One differing value: ``file`` (relative path), ``column`` (a CSV column, ``cell N`` of a
    notebook, ``(file)``/``(bytes)``/``(column)``/``(row)`` for whole items), ``key`` (the row key,
    or ""), ``old`` and ``new`` (the reference's and the working copy's text; ``<absent>`` if
    missing)."""

    file: str
    column: str
    key: str
    old: str
    new: str

    def line(self) -> str:
        where = f"{self.file}, {self.column}" + (f", {self.key}" if self.key else "")
        return f"{where}: {self.old} -> {self.new}"


ABSENT = "<absent>"


def _rows(text: str) -> tuple[list[str], list[dict]]:
    reader = csv.DictReader(io.StringIO(text))
    return list(reader.fieldnames or []), list(reader)


def _key_columns(name: str, columns: list[str]) -> list[str]:
    if Path(name).name == "claims.csv" and set(LEDGER_KEY) <= set(columns):
        return list(LEDGER_KEY)
    if "trial" in columns:
        return columns[:columns.index("trial") + 1]
    return []


def _keyed(rows: list[dict], key: list[str]) -> dict[str, dict] | None:
    out = {}
    for row in rows:
        k = ", ".join(f"{c}={row.get(c, '')}" for c in key)
        if k in out:
            return None          # the key does not identify rows: match by row number
        out[k] = row
    return out


def compare_csv(name: str, old_text: str, new_text: str) -> list[Difference]:
    """The differences between two versions of the CSV ``name`` (decision S27): columns present in
    one only, rows present in one only (by key, :func:`_key_columns`), then every differing value
    of the shared columns, in the new file's row and column order."""
    old_cols, old_rows = _rows(old_text)
    new_cols, new_rows = _rows(new_text)
    diffs = [Difference(name, "(column)", c, "present" if c in old_cols else ABSENT,
                        "present" if c in new_cols else ABSENT)
             for c in list(dict.fromkeys(old_cols + new_cols)) if (c in old_cols) != (c in new_cols)]
    key = _key_columns(name, new_cols)
    if not set(key) <= set(old_cols):
        key = []
    old_keyed = _keyed(old_rows, key) if key else None
    new_keyed = _keyed(new_rows, key) if key else None
    if old_keyed is None or new_keyed is None:
        old_keyed = {f"row {i + 1}": r for i, r in enumerate(old_rows)}
        new_keyed = {f"row {i + 1}": r for i, r in enumerate(new_rows)}
    shared = [c for c in new_cols if c in old_cols]
    for k, row in new_keyed.items():
        if k not in old_keyed:
            diffs.append(Difference(name, "(row)", k, ABSENT, "present"))
            continue
        before = old_keyed[k]
        timed = _judges_wall_clock(before) and _judges_wall_clock(row)
        diffs.extend(Difference(name, f"{c} ({MACHINE_DEPENDENT})" if timed else c, k, before[c], row[c])
                     for c in shared if before[c] != row[c])
    diffs.extend(Difference(name, "(row)", k, "present", ABSENT) for k in old_keyed if k not in new_keyed)
    return diffs


def _judges_wall_clock(row: dict) -> bool:
    return str(row.get("our_value", "")).startswith(MACHINE_DEPENDENT)


def is_machine_dependent(diff: Difference) -> bool:
    """True for a difference in a ledger row that judges a wall-clock claim (listed apart, not a result)."""
    return diff.column.endswith(f"({MACHINE_DEPENDENT})")


def _outputs(text: str) -> list[tuple[int, str]]:
    """Each code cell's outputs as JSON text, a cell's consecutive outputs of one stream merged
    into one first, as the runner's scrubbing does (``scrub``): where a cell's printed text is
    split depends on when the kernel flushed it, not on the result."""
    import nbformat
    from nbconvert.preprocessors import CoalesceStreamsPreprocessor

    nb = CoalesceStreamsPreprocessor().preprocess(nbformat.from_dict(json.loads(text)), {})[0]
    code = [c for c in nb.get("cells", []) if c.get("cell_type") == "code"]
    return [(i, json.dumps(c.get("outputs", []), sort_keys=True, indent=0)) for i, c in enumerate(code, start=1)]


def _first_change(old: str, new: str) -> tuple[str, str]:
    a, b = old.splitlines(), new.splitlines()
    for x, y in zip(a, b):
        if x != y:
            return x.strip()[:200], y.strip()[:200]
    return (f"{len(a)} lines", f"{len(b)} lines")


def compare_notebook(name: str, old_text: str, new_text: str) -> list[Difference]:
    """The code cells (numbered from 1) whose outputs differ between two versions of the executed
    notebook ``name``, each with its first differing line; a different number of code cells is
    one difference."""
    old, new = _outputs(old_text), _outputs(new_text)
    if len(old) != len(new):
        return [Difference(name, "(code cells)", "", str(len(old)), str(len(new)))]
    diffs = []
    for (i, a), (_, b) in zip(old, new):
        if a != b:
            x, y = _first_change(a, b)
            diffs.append(Difference(name, f"cell {i} outputs", "", x, y))
    return diffs


def compare_bytes(name: str, old: bytes, new: bytes) -> list[Difference]:
    """One difference (the two sha256 prefixes) if ``old`` and ``new`` differ, else none."""
    if old == new:
        return []
    return [Difference(name, "(bytes)", "", hashlib.sha256(old).hexdigest()[:12],
                       hashlib.sha256(new).hexdigest()[:12])]


def _compare(name: str, old: bytes, new: bytes) -> list[Difference]:
    if name.endswith(".csv"):
        return compare_csv(name, old.decode("utf-8"), new.decode("utf-8"))
    if name.endswith(".ipynb"):
        return compare_notebook(name, old.decode("utf-8"), new.decode("utf-8"))
    return compare_bytes(name, old, new)


def is_measurement(name: str) -> bool:
    """True for a committed file that holds wall-clock measurements (never compared)."""
    return name in MEASUREMENT_FILES or name.startswith("data/measurements/")


def compare_trees(old: dict[str, bytes], new: dict[str, bytes]) -> list[Difference]:
    """Differences between two sets of result files ``{relative path: content}``: files in one
    only, then each shared file's (:func:`compare_csv`, :func:`compare_notebook`,
    :func:`compare_bytes`); measurement files (:func:`is_measurement`) are skipped."""
    diffs = []
    for name in sorted(set(old) | set(new)):
        if is_measurement(name):
            continue
        if name not in old or name not in new:
            diffs.append(Difference(name, "(file)", "", "present" if name in old else ABSENT,
                                    "present" if name in new else ABSENT))
        else:
            diffs.extend(_compare(name, old[name], new[name]))
    return diffs


def _git(root: Path, *args: str) -> bytes:
    res = subprocess.run(["git", "-C", str(root), *args], capture_output=True)
    if res.returncode:
        raise ValueError(f"git {' '.join(args)} failed: {res.stderr.decode(errors='replace').strip()}")
    return res.stdout


def _matches(name: str) -> bool:
    from fnmatch import fnmatch

    return any(fnmatch(name, g) and "/" not in name[len(g.split("*")[0]):] for g in RESULT_GLOBS)


def reference_files(root: Path, rev: str) -> dict[str, bytes]:
    """The result files of git revision ``rev`` of the repository at ``root``."""
    listing = _git(root, "ls-tree", "-r", "--name-only", rev, "--", "data/results", "notebooks", "figures")
    names = [n for n in listing.decode("utf-8").splitlines() if _matches(n)]
    return {n: _git(root, "show", f"{rev}:{n}") for n in names}


def working_files(root: Path) -> dict[str, bytes]:
    """The result files of the working copy at ``root``."""
    out = {}
    for pattern in RESULT_GLOBS:
        for path in sorted(root.glob(pattern)):
            if path.is_file():
                out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def numerics_note(reference: str | None, here: str, against: str) -> str | None:
    """A line for a report whose results differ: the numerical kernels (decision S43) ``against``'s results were
    computed with (``reference``, from its ``requirements.lock``; None: not recorded) against this machine's
    (``here``), when they are not the same; None when they are."""
    if reference == here:
        return None
    was = reference or "kernels its requirements.lock does not record (recorded since S43)"
    return (f"numerical kernels (decision S43): {against}'s results were computed with {was}; this machine's are "
            f"{here}. On other kernels BLAS products and numpy's transcendental functions may round differently in "
            "their last bit and a replayed training run drift from there, so such differences are expected in "
            "results that depend on them; a difference in a result that depends on neither is not.")


def report(diffs: list[Difference], n_files: int, against: str, numerics: str | None = None) -> str:
    """The text printed: ``results identical (...)`` or the differences, a count per file first, then
    one per line, then ``numerics`` (:func:`numerics_note`) if given; differences of machine-dependent ledger
    rows (:func:`is_machine_dependent`) are listed apart and do not count as results."""
    ignored = f"measurement files ignored: {', '.join(sorted(MEASUREMENT_FILES))}, data/measurements/"
    timed = [d for d in diffs if is_machine_dependent(d)]
    diffs = [d for d in diffs if not is_machine_dependent(d)]
    apart = ([f"{len(timed)} difference(s) in ledger rows that judge wall-clock claims (machine-dependent, "
              "not results):"] + [d.line() for d in timed]) if timed else []
    if not diffs:
        return "\n".join([f"results identical: {n_files} result files compared with {against} ({ignored})"] + apart)
    per_file: dict[str, int] = {}
    for d in diffs:
        per_file[d.file] = per_file.get(d.file, 0) + 1
    lines = [f"results differ from {against}: {len(diffs)} difference(s) in {len(per_file)} of {n_files} files "
             f"({ignored})", "per file:"]
    lines += [f"  {n:6d}  {f}" for f, n in sorted(per_file.items())]
    lines.append("file, column, row key: old -> new")
    lines += [d.line() for d in diffs[:MAX_LISTED]]
    if len(diffs) > MAX_LISTED:
        lines.append(f"... and {len(diffs) - MAX_LISTED} more")
    return "\n".join(lines + ([numerics] if numerics else []) + apart)


def _numerics_note(root: Path, rev: str) -> str | None:
    """:func:`numerics_note` for revision ``rev``'s ``requirements.lock`` and this process's kernels."""
    from simlib.pipeline.numerics import lock_numerics, numerics_identity

    try:
        recorded = lock_numerics(_git(root, "show", f"{rev}:requirements.lock").decode("utf-8", errors="replace"))
    except ValueError:                                 # no lock in that revision
        recorded = None
    return numerics_note(recorded, numerics_identity(), rev)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m simlib.pipeline.check",
        description="Compare the committed result files (data/results/*.csv with the ledger, the executed "
                    "notebooks' outputs, figures/) of the working copy with a git revision, column by column; "
                    "wall-clock measurements (data/measurements/, data/results/notebook_times.csv) are ignored. "
                    "Exit status 1 if any result differs.")
    ap.add_argument("--against", default="HEAD", metavar="REV",
                    help="the reference git revision (default: HEAD, i.e. what a reproduction started from)")
    ap.add_argument("--root", type=Path, default=REPO_ROOT, metavar="DIR",
                    help="the repository (default: this checkout)")
    ap.add_argument("--report", type=Path, metavar="FILE",
                    help="also write the report to FILE (e.g. benchmarks/reference/<commit>_<date>_check.txt)")
    args = ap.parse_args(argv)
    root = args.root.resolve()
    try:
        old = reference_files(root, args.against)
    except (ValueError, OSError) as exc:
        ap.error(f"--against {args.against!r}: {exc}")
    new = working_files(root)
    diffs = compare_trees(old, new)
    text = report(diffs, len(set(old) | set(new)), args.against, _numerics_note(root, args.against))
    print(text)
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(text + "\n", encoding="utf-8")
    return 1 if any(not is_machine_dependent(d) for d in diffs) else 0


if __name__ == "__main__":
    sys.exit(main())
