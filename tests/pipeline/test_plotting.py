"""Tests for simlib.pipeline.plotting: theme, reproducible figure files, min/median/max plot."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from simlib.pipeline.plotting import (FIGURE_DPI, SCHEME_COLORS, SCHEME_LABELS, SCHEME_MARKERS,  # noqa: E402
                                      SCHEME_ORDER, plot_min_median_max, save_figure, set_theme)


def trial_frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = [{"scheme": s, "n": n, "trial": t, "time": n * (1 + k) + rng.random()}
            for k, s in enumerate(["selective", "custom", "allreduce", "partial"])
            for n in (8, 2, 4) for t in range(5)]
    return pd.DataFrame(rows)


def make_figure():
    fig, ax = plt.subplots(figsize=(3.5, 2.5))
    plot_min_median_max(ax, trial_frame(), "n", "time", "scheme")
    ax.set_title("Speed-up ≥ 2× (µs)")
    return fig


@pytest.fixture
def themed():
    with matplotlib.rc_context():
        set_theme()
        yield
    plt.close("all")


# R's palette.colors("Okabe-Ito"): the eight hues and grey
OKABE_ITO = {"#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999"}


def test_every_registered_scheme_has_a_colour_blind_safe_style():
    from simlib.papers.registry import SCHEMES

    assert set(SCHEME_COLORS) == set(SCHEME_LABELS) == set(SCHEME_MARKERS) == set(SCHEMES)
    assert {"allreduce", "partial", "selective", "selmcast", "orpheus", "optimal", "milp",
            "fm-nb", "fm-b", "pr-b"} <= set(SCHEMES)
    assert SCHEME_ORDER[:3] == ("allreduce", "partial", "selective")   # the legend order 000/002 figures have
    assert SCHEME_LABELS["partial"] == "Partial reduce" and SCHEME_LABELS["selmcast"] == "SelMcast"
    assert set(SCHEME_COLORS.values()) <= OKABE_ITO
    # a figure shows one paper's schemes (the shared cluster's guests, 000 and 002, share theirs): colours
    # and markers differ within it; the groups come from the registry, so a new paper's schemes are checked too
    from simlib.papers import cluster_scenario
    from simlib.papers.registry import PAPERS

    shared = tuple(sorted({s.paper for s in cluster_scenario.SCHEMES.values()}))
    for papers in (shared, *((p.id,) for p in PAPERS if p.id not in shared)):
        names = [k for k, s in SCHEMES.items() if s.paper in papers]
        assert names, papers
        assert len({SCHEME_COLORS[k] for k in names}) == len({SCHEME_MARKERS[k] for k in names}) == len(names)
    with pytest.raises(TypeError):
        SCHEME_COLORS["partial"] = "red"  # read-only, no mutable module state


def test_registered_schemes_keep_their_style_in_any_row_order(themed):
    # the colour of SelMcast used to depend on the order rows appeared in (unregistered hue values)
    df = pd.DataFrame([{"scheme": s, "n": n, "trial": 0, "y": float(n)} for s in ("orpheus", "selmcast")
                       for n in (1, 2)])
    for frame in (df, df.iloc[::-1]):
        fig, ax = plt.subplots()
        plot_min_median_max(ax, frame, "n", "y", "scheme")
        colors = {line.get_label(): line.get_color() for line in ax.get_lines()}
        assert colors == {"SelMcast": SCHEME_COLORS["selmcast"], "Orpheus": SCHEME_COLORS["orpheus"]}
        plt.close(fig)


def test_set_theme_uses_available_font(themed):
    assert matplotlib.rcParams["font.sans-serif"][0] == "DejaVu Sans"
    from matplotlib import font_manager
    path = font_manager.findfont("DejaVu Sans", fallback_to_default=False)
    assert path.endswith(".ttf")


def test_save_figure_is_byte_identical(themed, tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    first = save_figure(make_figure(), "fig_demo", tmp_path / "a")
    # a different SOURCE_DATE_EPOCH must not matter either (no dates are written)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1000")
    second = save_figure(make_figure(), "fig_demo", tmp_path / "b")
    assert [p.name for p in first] == ["fig_demo.png", "fig_demo.pdf"]
    for p, q in zip(first, second):
        assert p.exists() and p.stat().st_size > 1000
        assert p.read_bytes() == q.read_bytes()
    pdf = first[1].read_bytes()
    assert b"CreationDate" not in pdf and b"ModDate" not in pdf and b"(simlib.plotting)" in pdf
    assert b"Software" not in first[0].read_bytes() and b"Matplotlib" not in first[0].read_bytes()
    assert sorted(x.name for x in (tmp_path / "a").iterdir()) == ["fig_demo.pdf", "fig_demo.png"]


def test_save_figure_returns_the_paths_but_a_notebook_displays_nothing(themed, tmp_path):
    """As a cell's last expression, the return value used to render as ``[PosixPath(...), ...]``."""
    from IPython.core.formatters import DisplayFormatter

    saved = save_figure(make_figure(), "quiet", tmp_path)
    assert saved == [tmp_path / "quiet.png", tmp_path / "quiet.pdf"]
    assert all(p.is_file() for p in saved)
    formatter = DisplayFormatter()
    assert "PosixPath" in formatter.format(list(saved))[0]["text/plain"]  # what a plain list shows
    assert formatter.format(saved) == ({}, {})


def test_save_figure_fixed_dpi(themed, tmp_path):
    fig = plt.figure(figsize=(2, 1))
    png, _ = save_figure(fig, "blank", tmp_path)
    data = png.read_bytes()
    phys = data.index(b"pHYs") + 4  # physical pixel density, pixels per metre
    assert int.from_bytes(data[phys:phys + 4], "big") == round(FIGURE_DPI / 0.0254)
    png, _ = save_figure(fig, "blank", tmp_path, dpi=100)
    data = png.read_bytes()
    assert int.from_bytes(data[phys:phys + 4], "big") == round(100 / 0.0254)


@pytest.mark.parametrize("name", ["", "a/b", "a\\b", "../x", ".hidden", "fig.png", "fig.PDF", 3, "a b"])
def test_save_figure_rejects_bad_names(tmp_path, name):
    fig = plt.figure()
    with pytest.raises(ValueError, match="name"):
        save_figure(fig, name, tmp_path)
    plt.close(fig)


def test_save_figure_validation(tmp_path):
    with pytest.raises(ValueError, match="fig"):
        save_figure("not a figure", "x", tmp_path)
    fig = plt.figure()
    with pytest.raises(ValueError, match="dpi"):
        save_figure(fig, "x", tmp_path, dpi=0)
    with pytest.raises(ValueError, match="figures_dir"):
        save_figure(fig, "x", 42)
    plt.close(fig)


@pytest.mark.parametrize("band", ["fill", "errorbar"])
def test_plot_draws_one_median_line_per_hue(themed, band):
    df = trial_frame()
    fig, ax = plt.subplots()
    assert plot_min_median_max(ax, df, "n", "time", "scheme", band=band) is ax
    lines = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    assert [ln.get_label() for ln in lines] == ["All reduce", "Partial reduce", "Selective reduce", "custom"]
    assert lines[0].get_color() == SCHEME_COLORS["allreduce"]
    assert len({ln.get_color() for ln in lines}) == 4
    assert all(ln.get_marker() not in (None, "None", "") for ln in lines)
    part = df[df.scheme == "partial"]
    x, y = lines[1].get_data()
    assert list(x) == [2, 4, 8]  # sorted by x
    assert list(y) == [part[part.n == n].time.median() for n in (2, 4, 8)]
    assert len(ax.collections) == 4  # one band per hue
    if band == "fill":
        verts = ax.collections[0].get_paths()[0].vertices
        sub = df[(df.scheme == "allreduce") & (df.n == 2)].time
        assert verts[:, 1].min() == pytest.approx(sub.min()) and verts[:, 1].max() >= sub.max() - 1e-12
    assert ax.get_xlabel() == "n" and ax.get_legend() is not None


def test_plot_without_hue(themed):
    fig, ax = plt.subplots()
    plot_min_median_max(ax, trial_frame(), "n", "time")
    assert len(ax.get_lines()) == 1 and len(ax.collections) == 1


@pytest.mark.parametrize("kwargs, match", [
    ({"x": "nope"}, "x"), ({"y": "nope"}, "y"), ({"hue": "nope"}, "hue"),
    ({"band": "box"}, "band"), ({"alpha": 2}, "alpha"), ({"y": "scheme", "hue": None}, "y must name a numeric"),
    ({"hue": "n"}, "different"), ({"df": pd.DataFrame()}, "df"), ({"ax": None}, "ax"),
])
def test_plot_validation(themed, kwargs, match):
    fig, ax = plt.subplots()
    args = {"ax": ax, "df": trial_frame(), "x": "n", "y": "time", "hue": "scheme"}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        plot_min_median_max(**args)


def test_series_differ_in_line_style_and_legend_sits_outside(themed):
    """Overlapping medians stay distinguishable; the legend never covers the axes."""
    df = trial_frame()
    fig, ax = plt.subplots()
    plot_min_median_max(ax, df, "n", "time", "scheme")
    lines = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    assert len({str(ln.get_linestyle()) for ln in lines}) == len(lines)
    legend = ax.get_legend()
    assert "5 trials" in legend.get_title().get_text()
    fig.canvas.draw()
    leg_box = legend.get_window_extent()
    ax_box = ax.get_window_extent()
    assert leg_box.x0 >= ax_box.x1  # right of the axes, not on the data
    plt.close(fig)


def test_censored_runs_are_marked(themed):
    df = trial_frame()
    df.loc[(df.scheme == "partial") & (df.n == 8) & (df.trial < 2), "time"] = np.nan  # 2 of 5 never finished
    fig, ax = plt.subplots()
    plot_min_median_max(ax, df, "n", "time", "scheme")
    marks = [ln for ln in ax.get_lines() if ln.get_marker() == "x"]
    assert len(marks) == 1
    x, y = marks[0].get_data()
    assert list(x) == [8]
    assert y[0] == pytest.approx(df[(df.scheme == "partial") & (df.n == 8)].time.median())
    assert "censored" in marks[0].get_label()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[-1].startswith("censored") and labels[:2] == ["All reduce", "Partial reduce"]
    plt.close(fig)


def test_metric_panels_share_one_legend_below(themed):
    from simlib.pipeline.plotting import metric_panels

    df = trial_frame().rename(columns={"time": "avg_sync_time_s"}).assign(total_sync=lambda d: d.n * 2)
    fig = metric_panels(df, x="n", metrics=["avg_sync_time_s", "total_sync"])
    assert all(ax.get_legend() is None for ax in fig.axes)
    [legend] = fig.legends
    assert "5 trials" in legend.get_title().get_text()
    assert [t.get_text() for t in legend.get_texts()][:2] == ["All reduce", "Partial reduce"]
    plt.close(fig)


def test_censored_runs_counted_at_a_value(themed):
    df = trial_frame()
    sel = (df.scheme == "partial") & (df.n == 8)
    df.loc[sel & (df.trial < 3), "time"] = np.nan  # 3 of 5 censored
    fig, ax = plt.subplots()
    plot_min_median_max(ax, df, "n", "time", "scheme", censored_at=100.0)
    line = [ln for ln in ax.get_lines() if ln.get_label() == "Partial reduce"][0]
    x, y = line.get_data()
    assert y[list(x).index(8)] == 100.0  # median of (100, 100, 100, a, b)
    assert [list(ln.get_data()[0]) for ln in ax.get_lines() if ln.get_marker() == "x"] == [[8]]
    plt.close(fig)


def test_censored_runs_drawn_at_their_own_bound_never_at_zero(themed):
    """A speedup of a run that never reached its target is bounded above (1-worker time / cap), row by row."""
    df = trial_frame()
    sel = (df.scheme == "partial") & (df.n == 8)
    df.loc[sel & (df.trial < 3), "time"] = np.nan
    df["bound"] = 0.25 + df["trial"]            # 0.25, 1.25, 2.25 for the three censored runs
    fig, ax = plt.subplots()
    plot_min_median_max(ax, df, "n", "time", "scheme", censored_at="bound")
    line = [ln for ln in ax.get_lines() if ln.get_label() == "Partial reduce"][0]
    x, y = line.get_data()
    finished = sorted(df.loc[sel & (df.trial >= 3), "time"])
    assert y[list(x).index(8)] == np.median([0.25, 1.25, 2.25] + finished) and 0.0 not in list(y)
    assert [list(ln.get_data()[0]) for ln in ax.get_lines() if ln.get_marker() == "x"] == [[8]]
    with pytest.raises(ValueError, match="censored_at must be a number or name a column"):
        plot_min_median_max(ax, df, "n", "time", "scheme", censored_at="nope")
    plt.close(fig)


def test_figure_legend_collects_panels_below(themed):
    from simlib.pipeline.plotting import figure_legend

    df = trial_frame()
    fig, axes = plt.subplots(1, 2)
    for ax in axes:
        plot_min_median_max(ax, df, "n", "time", "scheme", legend=False)
    fig.tight_layout()
    legend = figure_legend(fig)
    assert [t.get_text() for t in legend.get_texts()] == ["All reduce", "Partial reduce", "Selective reduce",
                                                           "custom"]
    assert "5 trials" in legend.get_title().get_text()
    fig.canvas.draw()
    assert legend.get_window_extent().y1 <= min(ax.get_window_extent().y0 for ax in axes)  # below the panels
    plt.close(fig)


def test_dodge_sets_equal_series_side_by_side(themed):
    """Two schemes with the same medians (a heuristic that finds the optimum): dodge shifts series i
    of k by (i - (k - 1) / 2) * dodge * x range, so neither hides under the other."""
    df = pd.DataFrame([{"scheme": s, "n": n, "trial": t, "time": float(n)}
                       for s in ("selmcast", "optimal") for n in (40, 120, 200) for t in range(2)])
    fig, ax = plt.subplots()
    plot_min_median_max(ax, df, "n", "time", "scheme")
    plain = [ln.get_xdata() for ln in ax.get_lines()]
    assert list(plain[0]) == list(plain[1]) == [40, 120, 200]              # drawn on top of each other
    fig, ax = plt.subplots()
    plot_min_median_max(ax, df, "n", "time", "scheme", dodge=0.02)
    shifted = [np.asarray(ln.get_xdata(), dtype=float) for ln in ax.get_lines()]
    assert shifted[0] == pytest.approx(np.array([40, 120, 200]) - 0.5 * 0.02 * 160)
    assert shifted[1] == pytest.approx(np.array([40, 120, 200]) + 0.5 * 0.02 * 160)
    assert [list(ln.get_ydata()) for ln in ax.get_lines()] == [[40.0, 120.0, 200.0]] * 2   # values unchanged
    with pytest.raises(ValueError, match="dodge"):
        plot_min_median_max(ax, df, "n", "time", "scheme", dodge=0.5)


def test_plot_ladder_draws_censored_medians_as_bounds_never_as_numbers():
    from simlib.papers.analysis import ladder_ratios
    from simlib.pipeline.plotting import plot_ladder

    rows = []
    # 80 %: ratios 2, 2 (numbers); 90 %: partial censored at 10 s vs 4 s: > 2.5 (a bound); 95 %: nobody: n/a
    for trial in range(2):
        rows += [dict(trace="a", trial=trial, scheme="partial", time_to_acc80_s=4.0, time_to_acc90_s=np.nan,
                      time_to_acc95_s=np.nan),
                 dict(trace="a", trial=trial, scheme="selective", time_to_acc80_s=2.0, time_to_acc90_s=4.0,
                      time_to_acc95_s=np.nan)]
    lad = ladder_ratios(pd.DataFrame(rows), by=["trace"], num="partial", den="selective", censor_at_s=10.0)
    fig, ax = plt.subplots()
    plot_ladder(ax, {"partial": lad}, den="selective")
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    med = lines["PR / SR"] if "PR / SR" in lines else ax.get_lines()[0]
    y = np.asarray(med.get_ydata(), dtype=float)
    assert y[0] == 2.0 and np.isnan(y[1:]).all()                 # only the number is on the line
    up = lines["median at least (censored runs)"]
    assert list(up.get_xdata()) == [0.9] and list(up.get_ydata()) == [2.5]
    assert not any(ln.get_marker() == "v" for ln in ax.get_lines())   # nothing claims "at most"
    plt.close(fig)


def test_claims_map_figure_draws_states_and_refuses_unknown_ones():
    from simlib.pipeline import plotting

    where = pd.DataFrame({"a": ["holds", "fails"], "b": ["undecided", "holds"]}, index=["claim 1", "claim 2"])
    fig = plotting.claims_map_figure(where, marks={"a": "default"}, title="t")
    image = fig.axes[0].images[0].get_array()
    assert image.tolist() == [[0, 2], [1, 0]]          # the states' order: holds, fails, undecided
    plt.close(fig)
    with pytest.raises(ValueError, match="holds"):
        plotting.claims_map_figure(where.replace("fails", "maybe"))
