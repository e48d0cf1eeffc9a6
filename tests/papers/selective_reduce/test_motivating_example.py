"""000 §II-D / Fig. 3 through the simulated cluster, with the paper's exact numbers."""
import pytest

from simlib.papers.selective_reduce.experiments.motivating_example import run_schedules

# 000 Fig. 3 caption: (b) all reduce avg(CT) = 10, avg(p) = 5; (c) partial reduce 10, 2;
# (d) progress-aware selection 10, 4; (e) bandwidth-aware selection 6, 2.
FIG3_CAPTION = {"all reduce": (10, 5), "partial reduce (p=2)": (10, 2),
                "progress-aware (paper)": (10, 4), "bandwidth-aware (paper)": (6, 2)}


@pytest.fixture(scope="module")
def table():
    df, _ = run_schedules()
    return df.set_index("schedule")


@pytest.mark.parametrize("name", list(FIG3_CAPTION))
def test_paper_schedules_reproduce_exact_numbers(table, name):
    assert (table.loc[name, "avg_ct_s"], table.loc[name, "avg_scale"]) == FIG3_CAPTION[name]
    assert (table.loc[name, "paper_avg_ct_s"], table.loc[name, "paper_avg_scale"]) == FIG3_CAPTION[name]


def test_selective_reduce_waits_at_2s_then_finds_the_bandwidth_aware_schedule(table):
    row = table.loc["selective reduce"]
    assert (row.avg_ct_s, row.avg_scale) == (6.0, 2.0)
    assert row.groups == "{w2,w4}@3s; {w1,w3}@3s"
    assert row.wasted_wait_s == 0.0  # w1, w2 held at 2 s, and newcomers w3, w4 joined


def test_literal_bag_line6_launches_immediately_instead():
    df, _ = run_schedules(base_rule="pseudocode")
    row = df.set_index("schedule").loc["selective reduce"]
    assert row.groups == "{w2,w1}@2s; {w4,w3}@3s"
    assert (row.avg_ct_s, row.avg_scale) == (10.0, 2.0)


def test_huge_theta_never_waits():
    df, _ = run_schedules(theta=1e9)
    row = df.set_index("schedule").loc["selective reduce"]
    assert row.groups.startswith("{w2,w1}@2s")


def test_the_gantt_key_names_every_colour_the_chart_uses():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    from simlib.papers.selective_reduce.experiments import motivating_example as mex

    table, logs = mex.run_schedules()
    fig, ax = plt.subplots()
    mex.gantt(ax, logs[next(iter(logs))], "x")
    used = {to_hex(c.get_facecolor()[0]) for c in ax.collections}
    keyed = {to_hex(h.get_facecolor()) for h in mex.gantt_key()}
    assert used <= keyed and len(mex.gantt_key()) == 4
    plt.close(fig)
