"""The notebook runner's recorded run times and the estimates it prints from them (decision S23).

A *times file* is a small CSV with one row per name (a notebook's file stem),
sorted by name, written atomically under a directory lock.  Times are in
seconds, rounded to 0.1 s, so a re-run changes only the rows whose time moved
by more than the rounding.  The runner's layout is :data:`NOTEBOOK_COLUMNS`
``notebook, profile, wall_s, cpu_s, ok, computed, cached, cold_wall_s, probe_s, cold_probe_s, jobs``
(``cpu_s``: CPU seconds of the runner and every child process it waited for,
the kernel and its sweep workers included; empty where the platform does not
report children's CPU time; ``computed`` / ``cached``: how many of the
notebook's sweep trials were computed and how many read from the trial cache,
empty where unknown; ``cold_wall_s``: the wall time of the last successful run
of the notebook that *started from an empty trial cache* -- kept when a later
run hits the cache, decision S28; ``probe_s`` / ``cold_probe_s``: the CPU seconds of the
machine-pace probe, :mod:`simlib.pipeline.pace`, at the start of the run that measured ``wall_s`` /
``cold_wall_s``, empty where none ran, decision S35; ``jobs``: the most notebooks the run that measured
``wall_s`` ran at once, empty where unknown -- two at once on two cores, a notebook's CPU / wall ratio says
how much of the machine it got, not how much it could use alone); the committed
``data/results/notebook_times.csv`` is one (decision S13).  The layouts before
issue 47 (the first five columns), before S35 (the first eight) and before ``jobs`` (the first ten) are still read.  Another layout -- a
name column, then some of ``profile, wall_s, cpu_s, ok, computed, cached,
cold_wall_s, probe_s, cold_probe_s`` -- can be passed as ``columns`` (``make bench`` keeps its
scripts' times that way; its layout lives in ``benchmarks/run_benchmarks.py``).

The estimate of a run is the sum of the recorded wall times of its members
(:func:`estimate`): the last run's, or for a run from an empty trial cache
(``cold=True``) the cold ones; a member without such a time, or whose last
recorded run failed, has no estimate and is named as such.  Given this run's probe
(``probe_s``), each recorded time that has a probe of its own is scaled by ``probe_s`` over it: the
machine's pace today against the run that recorded it (decision S35).  While a run goes
on, :meth:`Estimate.remaining` scales the rest by the pace measured so far,
shrunk towards 1 by :data:`PACE_PRIOR_S` (decision S28), so a short first
notebook that spends a minute compiling kernels does not multiply the rest; with the probe's
scaling, that is a pace shrunk towards the probe's ratio.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from simlib.core.validate import check_real
from simlib.pipeline.atomic import atomic_write_bytes, locked_directory

__all__ = ["NOTEBOOK_COLUMNS", "LEGACY_NOTEBOOK_COLUMNS", "EARLIER_NOTEBOOK_COLUMNS", "PACE_PRIOR_S", "Timing",
           "Estimate", "check_probe", "format_duration", "read_times", "format_times", "update_times", "estimate", "timing_table", "trials_log", "read_trials_log",
           "makespan", "chain_order"]

#: The notebook runner's times-file layout: the name column, then the :class:`Timing` fields kept.
NOTEBOOK_COLUMNS = ("notebook", "profile", "wall_s", "cpu_s", "ok", "computed", "cached", "cold_wall_s", "probe_s",
                    "cold_probe_s", "jobs")
#: The runner's layout before issue 47 (read as :data:`NOTEBOOK_COLUMNS` with the new fields unknown).
LEGACY_NOTEBOOK_COLUMNS = NOTEBOOK_COLUMNS[:5]
#: The runner's earlier layouts, read as :data:`NOTEBOOK_COLUMNS` with the missing fields unknown: before
#: issue 47, before the probe columns (decision S35) and before ``jobs``.
EARLIER_NOTEBOOK_COLUMNS = (LEGACY_NOTEBOOK_COLUMNS, NOTEBOOK_COLUMNS[:8], NOTEBOOK_COLUMNS[:10])
_FIELDS = ("profile", "wall_s", "cpu_s", "ok", "computed", "cached", "cold_wall_s", "probe_s", "cold_probe_s", "jobs")
#: Seconds of recorded time at pace 1 that the running estimate's pace starts from (decision S28):
#: ``pace = (measured + PACE_PRIOR_S) / (recorded + PACE_PRIOR_S)`` over the finished runs.
PACE_PRIOR_S = 120.0
#: Names listed in an estimate line before "... (+N more)".
_MAX_LISTED = 6


def trials_log(progress_file) -> Path:
    """The file next to a notebook's progress file to which each of its sweeps appends one JSON
    line ``{"name", "total", "cached"}`` (trials in all, trials read from the trial cache); the
    notebook runner sums it into the times file's ``computed`` / ``cached`` (decision S28)."""
    progress_file = Path(progress_file)
    return progress_file.with_name(progress_file.stem + ".trials.jsonl")


def read_trials_log(progress_file) -> tuple[int, int] | None:
    """``(computed, cached)`` trials summed over the sweeps in :func:`trials_log`, ``(0, 0)`` if it
    is empty and None if there is none (no sweep ran, or a malformed line)."""
    path = trials_log(progress_file)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
        records = [json.loads(line) for line in lines if line.strip()]
        total = sum(int(r["total"]) for r in records)
        cached = sum(int(r["cached"]) for r in records)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return total - cached, cached


def format_duration(seconds: float) -> str:
    """``seconds`` as ``"42s"``, ``"1m40s"`` or ``"1h05m"`` (rounded to whole seconds)."""
    seconds = int(round(seconds))
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s" if m else f"{s}s"


def _check_seconds(name: str, value) -> float:
    """``value`` as a float if it is a finite number of seconds >= 0; else ValueError naming ``name``."""
    return check_real(name, value, 0.0)


@dataclass(frozen=True)
class Timing:
    """One recorded run: ``name`` took ``wall_s`` seconds (``cpu_s`` CPU seconds, if known);
    ``computed`` / ``cached``: its sweep trials computed / read from the trial cache (None:
    unknown); ``cold_wall_s``: the wall time of its last successful run from an empty trial cache
    (None: none recorded); ``probe_s`` / ``cold_probe_s``: the machine-pace probe's CPU seconds at the
    start of the run that measured ``wall_s`` / ``cold_wall_s`` (None: no probe ran; decision S35); ``jobs``: the
    most notebooks that run had at once (None: unknown)."""

    name: str
    wall_s: float
    ok: bool
    profile: str = ""
    cpu_s: float | None = None
    computed: int | None = None
    cached: int | None = None
    cold_wall_s: float | None = None
    probe_s: float | None = None
    cold_probe_s: float | None = None
    jobs: int | None = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name or "\n" in self.name:
            raise ValueError(f"name must be a non-empty one-line str, got {self.name!r}")
        _check_seconds("wall_s", self.wall_s)
        for name in ("cpu_s", "cold_wall_s"):
            if getattr(self, name) is not None:
                _check_seconds(name, getattr(self, name))
        for name in ("probe_s", "cold_probe_s"):
            if getattr(self, name) is not None:
                check_probe(name, getattr(self, name))
        if self.jobs is not None and (isinstance(self.jobs, bool) or not isinstance(self.jobs, int) or self.jobs < 1):
            raise ValueError(f"jobs must be None or an integer >= 1 (notebooks at once), got {self.jobs!r}")
        for name in ("computed", "cached"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ValueError(f"{name} must be None or an integer >= 0 (trials), got {value!r}")
        if not isinstance(self.ok, bool):
            raise ValueError(f"ok must be True or False, got {self.ok!r}")
        if not isinstance(self.profile, str):
            raise ValueError(f"profile must be a str, got {self.profile!r}")


def check_probe(name: str, value) -> float:
    """``value`` as a float if it is a probe time: a finite number of CPU seconds > 0 (a ratio divides by
    it); else ValueError naming ``name``."""
    return check_real(name, value, 0.0, lo_open=True)


def _check_columns(columns) -> tuple:
    """``columns`` as a tuple if it is a times-file layout: a name column (an identifier other than
    the fields), then some of :data:`_FIELDS` in that order, ``wall_s`` and ``ok`` among them."""
    columns = tuple(columns)
    rest = columns[1:]
    if (not columns or not isinstance(columns[0], str) or not columns[0].isidentifier() or columns[0] in _FIELDS
            or not set(rest) <= set(_FIELDS) or list(rest) != [f for f in _FIELDS if f in rest]
            or not {"wall_s", "ok"} <= set(rest)):
        raise ValueError(f"columns must be a name column followed by some of {list(_FIELDS)} in that order, "
                         f"wall_s and ok included (e.g. {list(NOTEBOOK_COLUMNS)}), got {list(columns)}")
    return columns


def read_times(path, columns=NOTEBOOK_COLUMNS) -> dict[str, Timing]:
    """The times file ``path`` as ``{name: Timing}`` (``{}`` if it does not exist).

    Raises ``ValueError`` naming the file (and line) if its columns are not
    ``columns`` or a value is malformed.
    """
    columns = _check_columns(columns)
    path = Path(path)
    if not path.exists():
        return {}
    if not path.is_file():
        raise ValueError(f"times file {str(path)!r} is not a file")
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        found = tuple(reader.fieldnames or ())
        if found != columns and not (columns == NOTEBOOK_COLUMNS and found in EARLIER_NOTEBOOK_COLUMNS):
            raise ValueError(f"times file {str(path)!r}: columns {reader.fieldnames} instead of {list(columns)}")
        out: dict[str, Timing] = {}
        for line, row in enumerate(reader, start=2):
            try:
                name = row[columns[0]]
                if name in out:
                    raise ValueError(f"{columns[0]} {name!r} appears twice")
                if row["ok"] not in ("True", "False"):
                    raise ValueError(f"ok must be True or False, got {row['ok']!r}")
                out[name] = Timing(name, float(row["wall_s"]), row["ok"] == "True", row.get("profile") or "",
                                   _optional(row, "cpu_s", float), _optional(row, "computed", int),
                                   _optional(row, "cached", int), _optional(row, "cold_wall_s", float),
                                   _optional(row, "probe_s", float), _optional(row, "cold_probe_s", float),
                                   _optional(row, "jobs", int))
            except (ValueError, TypeError) as exc:
                raise ValueError(f"times file {str(path)!r} line {line}: {exc}") from None
    return out


def _optional(row: dict, column: str, kind):
    text = row.get(column) or ""
    return kind(text) if text else None


def _tenths(seconds: float) -> str:
    return f"{round(seconds, 1):.1f}"


def _hundredths(seconds: float) -> str:
    return f"{round(seconds, 2):.2f}"


def format_times(rows: Iterable[Timing], columns=NOTEBOOK_COLUMNS) -> str:
    """The CSV text of ``rows``: sorted by name, seconds with one decimal (probe seconds with two), ``ok`` as
    True/False."""
    columns = _check_columns(columns)
    rows = sorted(rows, key=lambda r: r.name)
    names = [r.name for r in rows]
    if len(set(names)) != len(names):
        raise ValueError(f"rows must have distinct names, got {names}")
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for r in rows:
        values = {columns[0]: r.name, "profile": r.profile, "wall_s": _tenths(r.wall_s),
                  "cpu_s": "" if r.cpu_s is None else _tenths(r.cpu_s), "ok": str(r.ok),
                  "computed": "" if r.computed is None else str(r.computed),
                  "cached": "" if r.cached is None else str(r.cached),
                  "cold_wall_s": "" if r.cold_wall_s is None else _tenths(r.cold_wall_s),
                  "probe_s": "" if r.probe_s is None else _hundredths(r.probe_s),
                  "cold_probe_s": "" if r.cold_probe_s is None else _hundredths(r.cold_probe_s),
                  "jobs": "" if r.jobs is None else str(r.jobs)}
        writer.writerow([values[c] for c in columns])
    return buf.getvalue()


def update_times(path, new: Iterable[Timing], columns=NOTEBOOK_COLUMNS, *,
                 keep: Callable[[str], bool] | None = None) -> Path:
    """Replace the rows of ``new`` in the times file ``path`` and keep the others; return the path.

    ``keep(name)`` (default: keep all) decides which of the other rows stay.  A new row without a
    ``cold_wall_s`` keeps the old row's, with its ``cold_probe_s`` (the last cold time stays until a cold
    run replaces it).
    An existing file that cannot be read as a times file is replaced: it only
    holds estimates, which the next runs record again.  The directory is created.
    """
    columns = _check_columns(columns)
    path = Path(path)
    new = list(new)
    path.parent.mkdir(parents=True, exist_ok=True)
    with locked_directory(path):
        try:
            rows = read_times(path, columns)
        except ValueError:
            rows = {}
        rows = {name: r for name, r in rows.items() if keep is None or keep(name)}
        for r in new:
            old = rows.get(r.name)
            if r.cold_wall_s is None and old is not None and old.cold_wall_s is not None:
                r = dataclasses.replace(r, cold_wall_s=old.cold_wall_s, cold_probe_s=old.cold_probe_s)
            rows[r.name] = r
        text = format_times(rows.values(), columns)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            atomic_write_bytes(path, text.encode("utf-8"))
    return path


@dataclass(frozen=True)
class Estimate:
    """Estimated wall time of running ``names`` (in order) from recorded times.

    ``per_name[name]`` is the last recorded wall time in seconds (scaled by the probe's ratio, below), or
    None for a name with no usable record: ``new`` (never recorded, or recorded for another
    profile), ``failed`` (its last recorded run failed) or, for a run from an empty trial cache,
    ``not_cold`` (no time recorded from an empty trial cache).

    ``probe_s``: this run's machine-pace probe in CPU seconds (None: none ran); ``probe_pace``: the
    estimate over the recorded times it comes from, over the names whose record has a probe of its own
    (each scaled by ``probe_s`` over its record's probe; decision S35), None if no record was scaled;
    ``unprobed``: names with a recorded time but no probe in their record (kept as recorded).
    """

    per_name: dict = field(default_factory=dict)
    new: tuple = ()
    failed: tuple = ()
    #: names with a recorded time but none from an empty trial cache (a ``cold`` estimate only)
    not_cold: tuple = ()
    probe_s: float | None = None
    probe_pace: float | None = None
    unprobed: tuple = ()

    @property
    def total_s(self) -> float:
        """Sum of the known estimates, in seconds (0 if none)."""
        return float(sum(v for v in self.per_name.values() if v is not None))

    @property
    def n_known(self) -> int:
        return sum(v is not None for v in self.per_name.values())

    def line(self, noun: str = "notebook", source: str | None = None) -> str:
        """One line: how many, the estimated total and which have no estimate.

        ``"22 notebooks, estimated 14m20s (recorded in data/results/notebook_times.csv);
        no estimate for 2 of 22 notebooks (new: 46_x, 90_y)"``.
        """
        n = len(self.per_name)
        what = f"{n} {noun}{'' if n == 1 else 's'}"
        where = f" in {source}" if source else ""
        if n == 0:
            return f"{what}"
        if self.n_known:
            text = f"{what}, estimated {format_duration(self.total_s)} (recorded times{where}{self._probe_note()})"
        elif not self.failed and not self.not_cold:
            return f"{what}; no estimate yet (no recorded times{where})"
        else:
            text = f"{what} (recorded times{where})"
        missing = n - self.n_known
        if missing:
            parts = [f"{label}: {_listing(names)}" for label, names in
                     (("new", self.new), ("failed last time", self.failed),
                      ("no time from an empty trial cache", self.not_cold)) if names]
            text += f"; no estimate for {missing} of {what} ({'; '.join(parts)})"
        return text

    def _probe_note(self) -> str:
        """``"; machine pace 1.32× the recorded runs', probe 3.10 s vs 2.35 s"`` (the recorded runs' probe,
        time-weighted: ``probe_s / probe_pace``), plus the names left as recorded; "" without a scaled record."""
        if self.probe_pace is None:
            return ""
        text = (f"; machine pace {self.probe_pace:.2f}× the recorded runs', probe {self.probe_s:.2f} s vs "
                f"{self.probe_s / self.probe_pace:.2f} s")
        n = len(self.unprobed)
        return text + (f"; {n} recorded without a probe, kept as recorded" if n else "")

    def remaining(self, measured: dict, prior_s: float = PACE_PRIOR_S) -> tuple[float, float] | None:
        """``(remaining_s, pace)`` after the runs in ``measured`` ({name: wall seconds, or None for
        a run that failed}) finished.

        ``pace`` is how much longer than recorded the finished runs with an estimate took (this
        machine's speed changes from day to day, decision S18; failed runs do not count):
        ``(measured + prior_s) / (recorded + prior_s)`` over them, i.e. their measured total over
        their estimated total with ``prior_s`` seconds at pace 1 added to both (decision S28), so
        that a first notebook recorded at 3 s that spends a minute compiling kernels does not
        multiply every later estimate by 20; once several minutes have run, the measured pace
        dominates.  With the probe's scaling (``probe_pace``, decision S35) the estimates are already at
        the probe's pace, so ``pace`` is measured against them and shrunk towards the probe's ratio to the
        recorded times instead of towards 1.
        ``remaining_s`` is the estimates of the names not run yet times ``pace``.
        None if no finished run counts, none with an estimate is left, or the pace is undefined
        (a recorded total and ``prior_s`` of 0 s).
        """
        prior_s = _check_seconds("prior_s", prior_s)
        done = [n for n, v in measured.items() if v is not None and self.per_name.get(n) is not None]
        est_done = sum(self.per_name[n] for n in done)
        left = [v for n, v in self.per_name.items() if n not in measured and v is not None]
        if not done or not left or est_done + prior_s <= 0:
            return None
        pace = (sum(float(measured[n]) for n in done) + prior_s) / (est_done + prior_s)
        return pace * sum(left), pace

    def remaining_line(self, measured: dict, noun: str = "notebook", prior_s: float = PACE_PRIOR_S) -> str | None:
        """``"remaining ≈ 12m30s for 3 notebooks (pace so far 1.70× the recorded times)"``,
        or None where :meth:`remaining` is None; names without an estimate are said separately."""
        est = self.remaining(measured, prior_s)
        if est is None:
            return None
        rest = [n for n in self.per_name if n not in measured]
        unknown = sum(self.per_name[n] is None for n in rest)
        return self.remaining_text(est[0], len(rest) - unknown, unknown, f"pace so far {est[1]:.2f}×", noun)

    def remaining_text(self, seconds: float, known: int, unknown: int, pace: str, noun: str = "notebook",
                       at_once: str = "") -> str:
        """``"remaining ≈ {seconds} for {known} {noun}s{at_once} ({pace} the recorded times)"`` (or "the
        probe-scaled estimates"), with ``", plus {unknown} without an estimate"`` when some have none: the
        remaining-time line of a run one at a time (:meth:`remaining_line`) and of notebooks at once (S37)."""
        against = "the recorded times" if self.probe_pace is None else "the probe-scaled estimates"
        text = (f"remaining ≈ {format_duration(seconds)} for {known} {noun}{'' if known == 1 else 's'}{at_once} "
                f"({pace} {against})")
        return text + (f", plus {unknown} without an estimate" if unknown else "")


def _listing(names) -> str:
    names = list(names)
    shown = ", ".join(names[:_MAX_LISTED])
    return shown + (f", ... (+{len(names) - _MAX_LISTED} more)" if len(names) > _MAX_LISTED else "")


def estimate(names: Iterable[str], recorded: dict[str, Timing], profile: str | None = None, *,
             cold: bool = False, probe_s: float | None = None) -> Estimate:
    """Estimate the run of ``names`` from ``recorded`` (:func:`read_times`).

    A record counts only if its run succeeded and, when ``profile`` is given,
    was made with that profile.  ``cold=True`` (a run from an empty trial cache, which computes
    every trial) uses each record's ``cold_wall_s`` only: a name without one has no estimate
    (listed as new), since the last run's time may have read its trials from the cache.
    ``probe_s`` (this run's machine-pace probe, CPU seconds > 0; None: none) scales each time whose
    record has a probe (``probe_s``, or ``cold_probe_s`` for a cold time) by ``probe_s`` over that
    probe; a time without one stays as recorded (decision S35).
    """
    names = list(names)
    if not isinstance(cold, bool):
        raise ValueError(f"cold must be True or False, got {cold!r}")
    if probe_s is not None:
        probe_s = check_probe("probe_s", probe_s)
    for name in names:
        if not isinstance(name, str) or not name:
            raise ValueError(f"names must be non-empty strs, got {name!r}")
    if not isinstance(recorded, dict):
        raise ValueError(f"recorded must be a dict of name -> Timing, got {type(recorded).__name__}")
    per_name, new, failed, not_cold, unprobed = {}, [], [], [], []
    raw_probed = scaled_probed = 0.0
    for name in dict.fromkeys(names):
        rec = recorded.get(name)
        if rec is None or (profile is not None and rec.profile != profile):
            per_name[name] = None
            new.append(name)
        elif not rec.ok:
            per_name[name] = None
            failed.append(name)
        elif cold and rec.cold_wall_s is None:
            per_name[name] = None
            not_cold.append(name)
        else:
            seconds, then = (rec.cold_wall_s, rec.cold_probe_s) if cold else (rec.wall_s, rec.probe_s)
            if probe_s is not None and then is not None:
                raw_probed += seconds
                seconds = seconds * (probe_s / then)
                scaled_probed += seconds
            elif probe_s is not None:
                unprobed.append(name)
            per_name[name] = seconds
    pace = scaled_probed / raw_probed if raw_probed > 0 else None
    return Estimate(per_name, tuple(new), tuple(failed), tuple(not_cold), probe_s if pace else None, pace,
                    tuple(unprobed) if pace else ())


def timing_table(rows: Iterable[tuple], name_header: str = "notebook") -> str:
    """A plain-text table of ``(name, estimated_s | None, measured_s | None, ok)`` rows and a total.

    Missing times show as ``-``; a failed run is marked ``FAILED``.  The total
    row sums each column; if some rows have no estimate, it says how many do.
    """
    rows = list(rows)
    body = []
    for name, est, measured, ok in rows:
        body.append((str(name), "-" if est is None else format_duration(est),
                     "-" if measured is None else format_duration(measured), "" if ok else "FAILED"))
    known = [r[1] for r in rows if r[1] is not None]
    total_label = "total" if len(known) == len(rows) else f"total (estimate for {len(known)} of {len(rows)})"
    total = (total_label, format_duration(sum(known)) if known else "-",
             format_duration(sum(r[2] for r in rows if r[2] is not None)), "")
    header = (name_header, "estimated", "measured", "")
    width = [max(len(r[i]) for r in (header, *body, total)) for i in range(3)]

    def fmt(r):
        return f"{r[0]:<{width[0]}}  {r[1]:>{width[1]}}  {r[2]:>{width[2]}}  {r[3]}".rstrip()

    return "\n".join([fmt(header), *map(fmt, body), fmt(total)])


def _check_jobs_cores(jobs, cores) -> float:
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1, got {jobs!r}")
    return check_real("cores", cores, 0.0, lo_open=True)


def chain_order(chains: dict, work: dict) -> list:
    """The keys of ``chains`` ({key: [member names, in run order]}) that still have members, longest remaining
    work first (``work[name]``: CPU seconds, None or missing counted as 0), ties by key order: the order in
    which the notebook runner starts chains when several may start (decision S37)."""
    left = {k: sum(work.get(n) or 0.0 for n in members) for k, members in chains.items() if members}
    rank = {k: i for i, k in enumerate(chains)}
    return sorted(left, key=lambda k: (-left[k], rank[k]))


def makespan(chains: dict, seconds: dict, parallelism: dict, *, jobs: int, cores: float,
             cap: float | None = None) -> float:
    """Wall seconds to run ``chains`` ({key: [member names, in order]}) with at most ``jobs`` members at once,
    each chain's members one after another, on ``cores`` cores (decision S37).

    Member ``n`` alone takes ``seconds[n]`` (None or missing: 0) at ``parallelism[n]`` busy cores on
    average (its recorded CPU over wall seconds; None or missing: all ``cores``): its work is
    ``seconds[n] * parallelism[n]`` CPU seconds, done at most ``cores`` at a time, and at most ``cap`` (e.g.
    the sweeps' worker processes when fewer than the recorded run's; None: no cap).  Members running together share the cores
    in proportion to their parallelism when it adds up to more than ``cores`` (a fluid model: no
    memory or cache contention).  A free slot starts the next member of the chain with the longest
    remaining work (:func:`chain_order`), as the runner does.  With ``jobs=1`` and every parallelism
    within ``cores`` this is the sum of ``seconds`` whatever the order.
    """
    cores = _check_jobs_cores(jobs, cores)
    limit = cores if cap is None else min(cores, check_real("cap", cap, 0.0, lo_open=True))
    demand = {n: parallelism.get(n) or cores for ms in chains.values() for n in ms}
    rate = {n: min(limit, p) for n, p in demand.items()}
    left = {n: (seconds.get(n) or 0.0) * demand[n] for n in demand}      # CPU seconds
    queue = {k: list(ms) for k, ms in chains.items()}
    running: dict = {}          # name -> chain key
    now = 0.0
    while True:
        busy = set(running.values())
        for k in chain_order({k: ms for k, ms in queue.items() if k not in busy}, left):
            if len(running) >= jobs:
                break
            running[queue[k].pop(0)] = k
        if not running:
            return now
        share = min(1.0, cores / sum(rate[n] for n in running))
        step, first = min((left[n] / (rate[n] * share), n) for n in running)
        for n in running:
            left[n] = max(0.0, left[n] - step * rate[n] * share)
        now += step
        del running[first]
        for n in [n for n in running if left[n] <= 1e-9]:
            del running[n]
