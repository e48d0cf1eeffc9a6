"""Project-wide figure style, reproducible figure files and the papers' plot style.

* :func:`set_theme` applies one seaborn theme (paper context, white grid,
  DejaVu Sans -- shipped with matplotlib, so present on a bare machine -- and a
  colour-blind-safe palette).
* :data:`SCHEME_COLORS`, :data:`SCHEME_LABELS`, :data:`SCHEME_MARKERS` fix the
  look of every registered scheme (:data:`simlib.papers.registry.SCHEMES`) in
  every figure.
* :func:`save_figure` writes ``name.png`` and ``name.pdf`` with fixed dpi and
  fixed metadata, so re-running a notebook produces byte-identical files.
* :func:`plot_min_median_max` draws the median over trials as a line with
  markers and the min..max range as a band, one colour per scheme.
"""
from __future__ import annotations

import io
import os
import re
from collections.abc import Sequence
from pathlib import Path
from types import MappingProxyType

import matplotlib as mpl
import pandas as pd

from simlib.papers.registry import SCHEMES
from simlib.pipeline import paths as paths_mod
from simlib.papers.analysis import summarize
from simlib.pipeline.atomic import atomic_write_bytes
from simlib.core.validate import check_choice, check_int, check_real

__all__ = ["claims_map_figure", 
    "SCHEME_ORDER",
    "SCHEME_COLORS",
    "SCHEME_LABELS",
    "SCHEME_MARKERS",
    "FIGURE_DPI",
    "FONT",
    "set_theme",
    "save_figure",
    "plot_min_median_max",
    "figure_legend",
    "metric_panels",
    "plot_ladder",
]

#: Canonical order of the schemes in legends, and their colours, labels and markers
#: (from :mod:`simlib.papers.registry`).
SCHEME_ORDER = tuple(SCHEMES)
SCHEME_COLORS = MappingProxyType({k: s.color for k, s in SCHEMES.items()})
SCHEME_LABELS = MappingProxyType({k: s.label for k, s in SCHEMES.items()})
SCHEME_MARKERS = MappingProxyType({k: s.marker for k, s in SCHEMES.items()})
#: Line styles in legend order, so overlapping medians stay distinguishable.
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)))
#: Remaining Okabe-Ito colours, used for hue values that are not schemes.
_EXTRA_COLORS = ("#E69F00", "#56B4E9", "#CC79A7", "#F0E442", "#000000")
_EXTRA_MARKERS = ("D", "v", "P", "X", "*")
#: Resolution of PNG output, dots per inch.
FIGURE_DPI = 200
FONT = "DejaVu Sans"
_CREATOR = "simlib.plotting"  # PDF Creator tag (kept from the flat layout so committed PDFs stay byte-identical)
# stable metadata: no dates, no version strings (CreationDate would otherwise be
# "now" unless SOURCE_DATE_EPOCH is set; Software/Producer embed the version)
_PDF_METADATA = {"Creator": _CREATOR, "Producer": "matplotlib", "CreationDate": None, "ModDate": None}
_PNG_METADATA = {"Software": None}
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _rc() -> dict:
    """rcParams used by :func:`set_theme` and (for output stability) by :func:`save_figure`."""
    return {
        "font.family": "sans-serif",
        "font.sans-serif": [FONT],
        "pdf.fonttype": 42,          # embed TrueType (editable text, no Type-3 glyphs)
        "ps.fonttype": 42,
        "svg.hashsalt": _CREATOR,    # deterministic element ids if SVG is ever written
        "savefig.dpi": FIGURE_DPI,
        "figure.dpi": 100,
        "axes.prop_cycle": mpl.cycler(color=[SCHEME_COLORS[s] for s in SCHEME_ORDER] + list(_EXTRA_COLORS)),
    }


def set_theme() -> None:
    """Apply the project's seaborn theme to matplotlib's global rcParams.

    Paper context, ``whitegrid`` style, DejaVu Sans, the scheme colours first
    in the colour cycle.  Call once at the top of a notebook.
    """
    import seaborn as sns

    palette = [SCHEME_COLORS[s] for s in SCHEME_ORDER] + list(_EXTRA_COLORS)
    sns.set_theme(context="paper", style="whitegrid", palette=palette, font=FONT, rc=_rc())


def _check_name(name) -> str:
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise ValueError("name must be a plain file stem of letters, digits, '.', '_' or '-' "
                         f"(no path separators, not starting with '.'), got {name!r}")
    if name.lower().endswith((".png", ".pdf")):
        raise ValueError(f"name must be given without extension (both .png and .pdf are written), got {name!r}")
    return name


class SavedFiles(list):
    """The files :func:`save_figure` wrote (a list of Path).  It shows nothing as the last
    expression of a notebook cell, so executed notebooks carry no stray ``[PosixPath(...)]``
    output; ``print`` or ``list(...)`` still show the paths."""

    def _ipython_display_(self) -> None:
        pass


def save_figure(fig, name: str, figures_dir, dpi: int = FIGURE_DPI, *, publish: bool = False) -> SavedFiles:
    """Write ``fig`` to ``<figures_dir>/<name>.png`` and ``.pdf``; return both paths
    (a :class:`SavedFiles`: a list that a notebook does not display).

    Output is reproducible: PNG without the ``Software`` text chunk (and
    matplotlib writes no timestamp), PDF with fixed ``Creator``/``Producer``
    and no ``CreationDate``/``ModDate`` (so ``SOURCE_DATE_EPOCH`` is irrelevant),
    fixed ``dpi`` (dots per inch, PNG only) and tight bounding box.  Saving the
    same figure again gives byte-identical files.  Each file is rendered in
    memory and written atomically.  ``figures_dir`` is created if missing
    (relative paths are relative to the current directory).  The committed
    ``figures/`` is written only by a publishing run (a full-profile ``make
    reproduce``, whose :class:`~simlib.pipeline.run.Run` passes ``publish=True``);
    any other call naming it is a ``ValueError``.  A notebook calls
    ``run.save_figure(fig, name)``, which passes its figures folder.
    """
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):
        raise ValueError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    name = _check_name(name)
    if not isinstance(figures_dir, (str, os.PathLike)):
        raise ValueError(f"figures_dir must be a str or os.PathLike, got {figures_dir!r}")
    dpi = check_int("dpi", dpi, lo=10, hi=2400)
    out_dir = Path(figures_dir)
    if not publish and (out_dir.resolve() == paths_mod.COMMITTED_FIGURES.resolve()
                        or out_dir.resolve().is_relative_to(paths_mod.COMMITTED_MEASUREMENTS.resolve())):
        raise ValueError(f"figures_dir {str(figures_dir)!r} is in a committed folder (the committed figures/ folder "
                         "or data/measurements/), which only a publishing run (full-profile `make reproduce`) "
                         "writes; use the run's figures folder (run.save_figure)")
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    stable_rc = {"svg.hashsalt": _CREATOR, "pdf.compression": 6, "pdf.fonttype": 42}
    with mpl.rc_context(stable_rc):
        for fmt, metadata in (("png", _PNG_METADATA), ("pdf", _PDF_METADATA)):
            buf = io.BytesIO()
            fig.savefig(buf, format=fmt, dpi=dpi, metadata=dict(metadata), bbox_inches="tight")
            paths.append(atomic_write_bytes(out_dir / f"{name}.{fmt}", buf.getvalue()))
    return SavedFiles(paths)


def _style_for(values: list) -> dict:
    """Colour, label and marker for each hue value: schemes fixed, others cycled."""
    styles, extra = {}, 0
    for v in values:
        if v in SCHEME_COLORS:
            styles[v] = (SCHEME_COLORS[v], SCHEME_LABELS[v], SCHEME_MARKERS[v])
        else:
            styles[v] = (_EXTRA_COLORS[extra % len(_EXTRA_COLORS)], str(v),
                         _EXTRA_MARKERS[extra % len(_EXTRA_MARKERS)])
            extra += 1
    return styles


def _trials_text(counts) -> str:
    lo, hi = int(min(counts)), int(max(counts))
    return f"{lo} trial{'s' if hi != 1 else ''}" if lo == hi else f"{lo}–{hi} trials"


def plot_min_median_max(ax, df: pd.DataFrame, x: str, y: str, hue: str | None = None, *,
                        band: str = "fill", alpha: float = 0.2, legend: bool = True,
                        censored_at: float | str | None = None, dodge: float = 0.0):
    """Median of ``y`` over trials vs ``x`` with a min..max band, one colour per ``hue``.

    ``df`` holds one row per trial (e.g. from :func:`simlib.pipeline.sweep.run_sweep`).
    For every hue value the median at each ``x`` is drawn as a line with
    markers (colour, marker *and* line style differ per series, so medians
    that overlap stay distinguishable); the range from the minimum to the
    maximum is drawn as a shaded band (``band="fill"``, opacity ``alpha``) or
    as error bars (``band="errorbar"``).  NaN values of ``y`` are runs that
    never reached their target (censored): statistics use the finished runs
    -- or, with ``censored_at``, count each censored run at that value (e.g.
    the run length: the statistics are then lower bounds) or, when it names a column,
    at that row's own bound (e.g. the upper bound of a speedup; never 0 for "not
    reached") -- and every point with censored runs gets a black ``x`` (legend entry
    "censored runs": the point is a bound, not a measurement).  Registered scheme names
    (:data:`simlib.papers.registry.SCHEMES`: "allreduce", "selmcast", ...) get
    :data:`SCHEME_COLORS`/:data:`SCHEME_LABELS` and come first, in :data:`SCHEME_ORDER`; other
    hue values follow in order of appearance.
    ``dodge`` (a fraction of the x range, in [0, 0.1]) shifts series ``i`` of ``k``
    horizontally by ``(i - (k - 1) / 2) * dodge * (max x - min x)``, so series with
    equal values (a heuristic that finds the optimum) stay visible side by side
    instead of one hiding under the other; 0 (default) draws them at their x.
    ``hue=None`` draws a single series.  The legend (``legend=True``) sits
    outside the axes, right of them, titled with the number of trials, so it
    never covers data.  Sets axis labels to the column names if they are
    empty.  Returns ``ax``.
    """
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise ValueError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    if not isinstance(df, pd.DataFrame) or df.empty:
        raise ValueError("df must be a non-empty pandas DataFrame")
    for pname, col in (("x", x), ("y", y)) + ((("hue", hue),) if hue is not None else ()):
        if not isinstance(col, str) or col not in df.columns:
            raise ValueError(f"{pname} must name a column of df {list(df.columns)}, got {col!r}")
    if len({x, y} | ({hue} if hue else set())) != (3 if hue else 2):
        raise ValueError(f"x, y and hue must be different columns, got {x!r}, {y!r}, {hue!r}")
    if not pd.api.types.is_numeric_dtype(df[y]) or pd.api.types.is_bool_dtype(df[y]):
        raise ValueError(f"y must name a numeric column, column {y!r} has dtype {df[y].dtype}")
    band = check_choice("band", band, ("fill", "errorbar"))
    alpha = check_real("alpha", alpha, 0.0, 1.0)
    if not isinstance(legend, bool):
        raise ValueError(f"legend must be a bool, got {legend!r}")
    if isinstance(censored_at, str):
        if censored_at not in df.columns or censored_at in (x, y, hue):
            raise ValueError(f"censored_at must be a number or name a column of df other than x, y and hue, "
                             f"got {censored_at!r}")
    elif censored_at is not None:
        censored_at = check_real("censored_at", censored_at)
    dodge = check_real("dodge", dodge, 0.0, 0.1)

    data = df[[x, y] + ([hue] if hue else [])]
    data = data.assign(_censored=data[y].isna())
    if censored_at is not None:
        data[y] = data[y].fillna(df[censored_at].astype(float) if isinstance(censored_at, str) else censored_at)
    if hue is None:
        data = data.assign(_series=y)
        hue_col = "_series"
    else:
        hue_col = hue
    stats = summarize(data.drop(columns="_censored"), [hue_col, x], y)
    runs = data.groupby([hue_col, x], sort=False, dropna=False).agg(
        runs=("_censored", "size"), censored=("_censored", "sum")).reset_index()
    stats = stats.merge(runs, on=[hue_col, x], how="left")
    seen = list(pd.unique(stats[hue_col]))
    order = [s for s in SCHEME_ORDER if s in seen] + [v for v in seen if v not in SCHEME_ORDER]
    styles = _style_for(order)
    censored_drawn = False
    x_span = float(stats[x].max() - stats[x].min()) if dodge else 0.0
    for i, value in enumerate(order):
        s = stats[stats[hue_col] == value].sort_values(x, kind="stable")
        if dodge:
            s = s.assign(**{x: s[x] + (i - (len(order) - 1) / 2) * dodge * x_span})
        color, label, marker = styles[value]
        if hue is None:
            color, label = _EXTRA_COLORS[-1], y
        if band == "fill":
            ax.fill_between(s[x], s["min"], s["max"], color=color, alpha=alpha, linewidth=0)
        else:
            ax.errorbar(s[x], s["median"], yerr=[s["median"] - s["min"], s["max"] - s["median"]],
                        fmt="none", ecolor=color, elinewidth=1, capsize=3)
        ax.plot(s[x], s["median"], color=color, marker=marker, label=label,
                linestyle=LINESTYLES[i % len(LINESTYLES)], markerfacecolor="none" if i % 2 else color)
        cens = s[s["censored"] > 0]
        if len(cens):
            y_mark = cens["median"].where(cens["median"].notna(), cens["max"])
            ax.plot(cens[x], y_mark, linestyle="none", marker="x", color="black", markersize=7,
                    label="_censored" if censored_drawn else "censored runs (never reached target)")
            censored_drawn = True
    if not ax.get_xlabel():
        ax.set_xlabel(x)
    if not ax.get_ylabel():
        ax.set_ylabel(y)
    ax._simlib_trials = _trials_text(stats["runs"])  # read by figure_legend
    if legend and (hue is not None or censored_drawn):
        handles = _legend_entries([ax])
        ax.legend(list(handles.values()), list(handles), title=f"median, min–max band\n({ax._simlib_trials})",
                  loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, frameon=False)
    return ax


def _legend_entries(axes) -> dict:
    """label -> handle over ``axes``, each label once, the censored-runs marker last."""
    handles = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    return dict(sorted(handles.items(), key=lambda item: item[0].startswith("censored")))


def figure_legend(fig, title: str | None = None, ncols: int = 4):
    """One legend for all panels of ``fig``, centred below them (it never covers data).

    For figures with several panels drawn by :func:`plot_min_median_max` with
    ``legend=False``; call it after ``fig.tight_layout()``.  Entries are
    collected from every axes (duplicates once); the default title gives the
    number of trials.  Returns the legend (None if there is nothing to show).
    """
    handles = _legend_entries(fig.axes)
    if not handles:
        return None
    if title is None:
        counts = sorted({getattr(ax, "_simlib_trials", "") for ax in fig.axes} - {""})
        title = "median, min–max band" + (f" ({', '.join(counts)})" if counts else "")
    return fig.legend(list(handles.values()), list(handles), loc="upper center", bbox_to_anchor=(0.5, 0.0),
                      ncols=min(len(handles), ncols), frameon=False, title=title)


#: Axis labels of the metrics the notebooks plot.
METRIC_LABELS = {
    "avg_sync_time_s": "Average sync time (s)",
    "avg_sync_scale": "Average sync scale",
    "total_iteration": "Total iteration",
    "total_sync": "Total sync",
    "wasted_wait_s_per_worker": "Wasted wait per worker (s)",
    "updates_to_target": "Updates to target",
    "time_per_update_s": "Time per update (s)",
    "time_to_target_s": "Time to target (s)",
    "final_acc": "Final test accuracy",
}


def metric_panels(df: pd.DataFrame, x: str, metrics: Sequence[str], hue: str = "scheme",
                  title: str | None = None, xlabel: str | None = None, ncols: int | None = None):
    """One panel per metric: median over trials with a min–max band, one line per ``hue``.

    One legend for the whole figure, below the panels (it never covers data),
    titled with the number of trials.
    """
    metrics = list(metrics)
    ncols = ncols or len(metrics)
    nrows = -(-len(metrics) // ncols)
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(nrows, ncols, figsize=(3.2 * ncols, 2.7 * nrows), squeeze=False)
    for i, (ax, m) in enumerate(zip(axes.flat, metrics)):
        plot_min_median_max(ax, df, x=x, y=m, hue=hue, legend=False)
        ax.set_ylabel(METRIC_LABELS.get(m, m))
        ax.set_xlabel(xlabel or x)
        ax.set_title(f"({chr(97 + i)})", loc="left", fontsize="medium")
    for ax in list(axes.flat)[len(metrics):]:
        ax.set_visible(False)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    figure_legend(fig)
    return fig


def plot_ladder(ax, ladders: dict, den: str) -> None:
    """Paired time-to-target ratio against the target accuracy (median line, min–max band
    over the groups), one line per ``num`` scheme of ``ladders`` (``num`` -> the frame of
    :func:`simlib.papers.analysis.ladder_ratios` for ``num`` / ``den``).  Censoring is drawn as
    censoring (:mod:`simlib.papers.censoring`): the line joins only medians that are numbers; a
    median known only as a bound is a triangle at the bound (▲ "at least", ▼ "at most"), an
    unknown one ("n/a") is not drawn; the band spans the bounds where they are finite."""
    import numpy as np

    bound_drawn = False
    for num, lad in ladders.items():
        line, = ax.plot(lad["target"], lad["median"], "-", marker=SCHEME_MARKERS.get(num, "o"),
                        color=SCHEME_COLORS.get(num),
                        label=f"{SCHEME_LABELS.get(num, num)} / {SCHEME_LABELS.get(den, den)}")
        if {"min_lo", "max_hi", "median_lo", "median_hi"} <= set(lad.columns):
            lo_band, hi_band = lad["min_lo"], lad["max_hi"]
            finite = np.isfinite(hi_band) & (lo_band > 0)
            ax.fill_between(lad["target"], lo_band.where(finite), hi_band.where(finite), color=line.get_color(),
                            alpha=0.2, linewidth=0)
            open_ = lad["median_lo"] != lad["median_hi"]
            at_least = open_ & np.isinf(lad["median_hi"]) & (lad["median_lo"] > 0)
            at_most = open_ & (lad["median_lo"] <= 0) & np.isfinite(lad["median_hi"])
            for mask, col, mk, text in ((at_least, "median_lo", "^", "median at least (censored runs)"),
                                        (at_most, "median_hi", "v", "median at most (censored runs)")):
                if mask.any():
                    ax.plot(lad.loc[mask, "target"], lad.loc[mask, col], linestyle="none", marker=mk,
                            color=line.get_color(), markersize=7, label=f"_{text}" if bound_drawn else text)
                    bound_drawn = True
        else:
            ax.fill_between(lad["target"], lad["min"], lad["max"], color=line.get_color(), alpha=0.2, linewidth=0)
    ax.axhline(1.0, color="0.5", lw=0.8)
    ax.set_xlabel("target test accuracy")
    ax.set_ylabel("paired time-to-target ratio")
    ax.legend(loc="upper left", fontsize="small")


#: Cell colours of a claims map: holds, fails, undecided (issue 41).
CLAIMS_MAP_STATES = {"holds": "#2a7f62", "fails": "#f2f2f2", "undecided": "#e0b04c"}


def claims_map_figure(where: pd.DataFrame, *, marks: dict | None = None, title: str = "", xlabel: str = ""):
    """A claims × candidates map (issue 41's "where each claim holds"): ``where`` has one row per claim,
    one column per candidate and cells ``"holds"``, ``"fails"`` or ``"undecided"``
    (:data:`CLAIMS_MAP_STATES`; e.g. ``selective_reduce.profile.claims_map``); ``marks`` ``{column:
    text}`` labels columns above the map (the default, the profile).  Returns the figure."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    bad = sorted(set(where.to_numpy().ravel()) - set(CLAIMS_MAP_STATES) - {None})
    if bad or where.empty:
        raise ValueError(f"where must be a non-empty frame of {list(CLAIMS_MAP_STATES)}, got {bad or 'no cells'}")
    states = list(CLAIMS_MAP_STATES)
    codes = where.apply(lambda col: col.map(states.index)).to_numpy(dtype=float)
    wide = where.shape[1] > 40                   # too many candidates to label one by one
    fig, ax = plt.subplots(figsize=(12.0 if wide else max(5.0, 0.45 * where.shape[1] + 4.5),
                                    0.24 * len(where) + (1.4 if wide else 1.8)))
    ax.imshow(codes, cmap=ListedColormap([CLAIMS_MAP_STATES[s] for s in states]), vmin=-0.5, vmax=len(states) - 0.5,
              aspect="auto", interpolation="nearest")
    if wide:
        ax.set_xticks([])
    else:
        ax.set_xticks(range(where.shape[1]), [str(c) for c in where.columns], rotation=60, ha="right", fontsize=7)
        ax.set_xticks([x - 0.5 for x in range(1, where.shape[1])], minor=True)
    ax.set_yticks(range(len(where)), [str(r)[:70] for r in where.index], fontsize=7)
    ax.set_yticks([y - 0.5 for y in range(1, len(where))], minor=True)
    ax.grid(which="minor", color="white", linewidth=0.6)
    ax.grid(which="major", visible=False)
    ax.tick_params(which="minor", length=0)
    for column, text in (marks or {}).items():
        if column in where.columns:
            ax.text(list(where.columns).index(column), -0.8, text, ha="center", va="bottom", fontsize=7,
                    color="crimson")
    ax.set_xlabel(xlabel)
    ax.set_title(title, pad=16)
    ax.legend(handles=[Patch(facecolor=CLAIMS_MAP_STATES[s], edgecolor="0.6", label=s) for s in states],
              loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    fig.tight_layout()
    return fig
