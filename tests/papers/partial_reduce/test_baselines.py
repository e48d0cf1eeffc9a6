"""002's baselines as schemes of the 000/002 cluster run (simlib.papers.partial_reduce.baselines): each runs
through the scenario, each knob changes the run, bad combinations are refused naming the parameter."""
import numpy as np
import pytest

from simlib.papers import registry
from simlib.papers.cluster_scenario import Scenario, run_trial, simulate
from simlib.papers.contract import ParamError
from simlib.papers.partial_reduce.baselines import BASELINE_READS, BASELINES, BaselineParams
from simlib.runtime.metrics import update_times

BASE = dict(n=8, hl=3, bandwidth_gbps=10.0, model_mb=100.0, trace="cnn", duration_s=30.0)


def log_of(scheme, seed=0, **kw):
    return simulate(Scenario.from_params(dict(BASE, scheme=scheme, **kw)), seed)


def test_002_declares_which_baselines_read_each_of_its_knobs():
    from simlib.papers.cluster_scenario import SCHEME_PARAMS
    from simlib.papers.contract import specs

    assert set(BASELINE_READS) == set(specs(BaselineParams))
    assert all(reads and set(reads) <= set(BASELINES) for reads in BASELINE_READS.values())
    assert all(SCHEME_PARAMS[name] == reads for name, reads in BASELINE_READS.items())
    # a knob ignored by a baseline that does not read it, refused by name
    assert Scenario.ignored_by_scheme({"scheme": "ps-asp", "backups": 1}) == {"backups": ("ps-backup",)}


@pytest.mark.parametrize("scheme", BASELINES)
def test_every_baseline_runs_through_the_scenario_and_is_registered(scheme):
    log = log_of(scheme)
    s = registry.scheme(scheme)
    assert s.paper == "002" and s.label and s.color and s.marker
    assert log.n == 8 and sum(map(len, log.compute_end)) > 8 and log.syncs
    assert log.update_rule == ("average" if scheme == "adpsgd" else "gradient")
    if log.update_rule == "gradient":
        assert len(update_times(log)) > 0
    again = log_of(scheme)
    assert [(r.launch, r.members, r.weights) for r in again.syncs] == [(r.launch, r.members, r.weights)
                                                                       for r in log.syncs]


def test_existing_schemes_run_as_before_with_the_new_parameter_group():
    """The baselines' group adds parameters with defaults; all reduce / partial / selective ignore them."""
    a = run_trial(dict(BASE, scheme="partial", p=3 / 8), np.random.SeedSequence(1))
    b = run_trial(dict(BASE, scheme="partial", p=3 / 8, backups=1, ps_servers=2, hete_c=5.0, quorum="solo"),
                  np.random.SeedSequence(1))
    assert a == b


def test_each_baseline_knob_changes_the_run():
    def updates(scheme, **kw):
        return len(update_times(log_of(scheme, **kw)))

    assert updates("ps-backup", backups=3) != updates("ps-backup", backups=1)
    assert updates("eager", quorum="solo") > updates("eager", quorum="majority")
    one, two, dflt = (log_of("ps-bsp", **kw) for kw in (dict(ps_servers=1), dict(ps_servers=2), {}))
    pull = {k: np.median([r.finish - r.apply for r in lg.syncs if r.finish])
            for k, lg in (("one", one), ("two", two), ("n", dflt))}
    # BSP: all 8 pull at a step's close through the servers' uplinks: 8 M / (s B) with M = 0.08 s at 10 Gbps
    assert pull["one"] == pytest.approx(8 * 0.08, rel=0.02) and pull["two"] == pytest.approx(4 * 0.08, rel=0.02)
    assert pull["n"] == pytest.approx(0.08, rel=0.02)                             # default: one server per worker
    slow = log_of("ps-bsp", server_bandwidth_gbps=2.5)
    assert len(update_times(slow)) < len(update_times(dflt))
    w1 = [r.weights for r in log_of("ps-hete", hete_c=1.0).syncs]
    w4 = [r.weights for r in log_of("ps-hete", hete_c=4.0).syncs]
    assert w1 != w4
    # PS6: ASP's factor per push is 1/n by default (n = 8), the given value otherwise
    assert {r.weights for r in log_of("ps-asp").syncs if r.weights} == {(1 / 8,)}
    assert {r.weights for r in log_of("ps-asp", asp_lr_scale=1.0).syncs if r.weights} == {(1.0,)}
    a, b = (log_of("adpsgd", seed=s) for s in (0, 1))
    assert [r.members for r in a.syncs] != [r.members for r in b.syncs]
    # PS8: ps_step "sum" adds every gradient at the full step (BSP, BK; ASP's default factor becomes 1)
    for scheme in ("ps-bsp", "ps-backup", "ps-asp"):
        assert {r.weights for r in log_of(scheme, ps_step="sum").syncs if r.weights and r.weights[0]} == {(1.0,)}
    assert {r.weights for r in log_of("ps-asp", ps_step="sum", asp_lr_scale=0.5).syncs if r.weights} == {(0.5,)}


@pytest.mark.parametrize("scheme", ["ps-bsp", "ps-backup", "ps-asp", "ps-hete"])
def test_server_apply_time_slows_every_parameter_server(scheme):
    """PS7: with a 0.1 s apply per push each PS system makes fewer updates in the same 30 s; BSP's step
    closes at least n x 0.1 s after its last push arrives (n pushes, one at a time)."""
    plain, slow = log_of(scheme), log_of(scheme, server_apply_s=0.1)
    assert len(update_times(slow)) < len(update_times(plain))
    if scheme == "ps-bsp":
        gaps = np.diff(update_times(slow))
        assert gaps.min() >= 8 * 0.1


def test_adpsgd_blocking_makes_fewer_exchanges_and_other_schemes_ignore_the_new_knobs():
    """AD3: a blocked neighbour computes less, so the run has fewer exchanges; the knobs of PS7, PS8 and
    AD3 leave every other scheme's schedule unchanged."""
    assert len(log_of("adpsgd", ad_passive="block", model_mb=400.0).syncs) < len(log_of("adpsgd", model_mb=400.0).syncs)
    for scheme in ("allreduce", "partial", "eager"):
        a = log_of(scheme)
        b = log_of(scheme, server_apply_s=0.2, ps_step="sum", ad_passive="block")
        assert [(r.launch, r.members) for r in a.syncs] == [(r.launch, r.members) for r in b.syncs]


def test_adpsgd_atomic_changes_only_adpsgd_and_its_exchanges_never_overlap_on_a_worker():
    """AD4 through the scenario: with ``ad_atomic`` no two exchanges that share a worker move data at the
    same time (each exchange's flows start when both locks are free, so its finish is at least the
    exchange time after the later of its launch and the previous finish of either worker), while the
    default's overlap; every other scheme ignores the knob."""
    free, held = log_of("adpsgd", model_mb=400.0), log_of("adpsgd", model_mb=400.0, ad_atomic=True)
    alone = 400e6 * 8 / 10e9                      # one exchange alone on 10 Gbps ports (s)

    def overlaps(log):
        last = {}                                 # worker -> finish of its latest exchange
        n = 0
        for r in sorted(log.syncs, key=lambda r: r.finish if r.finish is not None else np.inf):
            if r.finish is None:
                continue
            start = r.finish - alone              # when its flows started, had they run alone
            n += any(last.get(m, -np.inf) > start + 1e-9 for m in r.members)
            for m in r.members:
                last[m] = r.finish
        return n

    assert overlaps(held) == 0 and overlaps(free) > 0
    for scheme in ("allreduce", "eager", "ps-asp"):
        a, b = log_of(scheme), log_of(scheme, ad_atomic=True)
        assert [(r.launch, r.members) for r in a.syncs] == [(r.launch, r.members) for r in b.syncs]


@pytest.mark.parametrize("params, name", [
    (dict(scheme="ps-backup", backups=8), "backups"),
    (dict(scheme="ps-bsp", weights="dynamic"), "weights"),
    (dict(scheme="eager", sync_model="eq2_exact"), "sync_model"),
    (dict(scheme="ps-bsp", ps_servers=0), "ps_servers"),
    (dict(scheme="ps-hete", hete_c=0.0), "hete_c"),
    (dict(scheme="eager", quorum="all"), "quorum"),
    (dict(scheme="ps-asp", asp_lr_scale=1.5), "asp_lr_scale"),
    (dict(scheme="ps-asp", asp_lr_scale=0.0), "asp_lr_scale"),
    (dict(scheme="ps-bsp", server_apply_s=-0.1), "server_apply_s"),
    (dict(scheme="ps-bsp", ps_step="median"), "ps_step"),
    (dict(scheme="adpsgd", ad_passive="wait"), "ad_passive"),
    (dict(scheme="allreduce", compute_cv=0.9), "compute_cv"),          # cnn allows cv < 0.55 (PR15)
    (dict(scheme="allreduce", trace="pai-job4", compute_cv=0.3), "compute_cv"),
    (dict(scheme="allreduce", hl_slowdown=-0.5), "hl_slowdown"),
])
def test_bad_baseline_settings_are_refused_naming_the_parameter(params, name):
    with pytest.raises(ParamError) as e:
        Scenario.from_params(dict(BASE, **params))
    assert e.value.name == name and name in str(e.value)
