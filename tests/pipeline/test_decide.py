"""The batch rule (decision S25): more paired trials while a verdict is undecided, up to a cap, each
trial computed once (the sweep's cache)."""
from __future__ import annotations

import os
import uuid
from pathlib import Path

import numpy as np
import pytest

from simlib.papers.claim import Claim
from simlib.papers.strength import side, strength
from simlib.pipeline.decide import settings_until_decided, sweep_until_decided
from simlib.pipeline.sweep import run_sweep

LOG = "SIMLIB_TEST_DECIDE_LOG"


def timed_fn(params, rng_seed):
    """Arm "A" takes ``effect`` × arm "B"'s time, times lognormal noise (sd 0.05) drawn per trial; logs the call."""
    if os.environ.get(LOG):
        (Path(os.environ[LOG]) / f"{params['arm']}-{rng_seed.spawn_key[0]}-{uuid.uuid4().hex}").touch()
    noise = np.random.default_rng(rng_seed).normal(0.0, 0.05, size=2)
    t = params["effect"] * np.exp(noise[0]) if params["arm"] == "A" else np.exp(noise[1])
    return {"time_s": float(t)}


def judge(df):
    """"A is slower than B": the median paired A/B ratio above 1 (S24's interval decides)."""
    piv = df.pivot(index="trial", columns="arm", values="time_s")
    st = strength((piv["A"] / piv["B"]).to_numpy())
    d = side(st, "above")
    ok = bool(np.median(piv["A"] / piv["B"]) > 1)
    return [Claim("002", "Table 1", "A is slower than B", "slower", f"{np.median(piv['A'] / piv['B']):.3f}×",
                  direction=ok, cause="" if ok else "unexplained: test", pairs=st.trials, sides=st.sides_text(),
                  interval=st.interval_text(), undecided=("direction",) if d is None else ())]


@pytest.fixture
def logged(tmp_path, monkeypatch):
    d = tmp_path / "calls"
    d.mkdir()
    monkeypatch.setenv(LOG, str(d))
    return d


def _batches(tmp_path, effect, asked):
    settings = [{"arm": "A", "effect": effect}, {"arm": "B", "effect": effect}]

    def run_batch(trials, undecided):
        asked.append((trials, None if undecided is None else len(undecided)))
        return run_sweep(timed_fn, settings, trials, seed=11, executor="serial", progress=False,
                         cache_dir=tmp_path / "cache")
    return run_batch


def _calls(d: Path) -> list[tuple[str, int]]:
    return sorted((p.name.split("-")[0], int(p.name.split("-")[1])) for p in d.iterdir())


def test_stops_as_soon_as_the_verdict_is_decided(tmp_path, logged):
    asked = []
    out = sweep_until_decided(_batches(tmp_path, 1.5, asked), judge, start=10, step=5, cap=40)
    assert asked == [(10, None)] and out.trials == 10 and out.rounds == ((10, 0),)
    assert out.claims[0].verdict == "holds" and out.undecided == []


def test_adds_batches_while_undecided_and_never_recomputes_a_trial(tmp_path, logged):
    """A 1 % effect under 5 % noise straddles 1 at 10 pairs; each batch computes only its new trials."""
    asked = []
    out = sweep_until_decided(_batches(tmp_path, 1.01, asked), judge, start=10, step=5, cap=40)
    assert [t for t, _ in asked] == list(range(10, out.trials + 1, 5))
    assert len(asked) > 1 and asked[1][1] == 1                  # the second batch is told what is open
    calls = _calls(logged)
    assert calls == sorted((arm, t) for arm in "AB" for t in range(out.trials))   # each (arm, trial) once
    assert len(out.frame) == 2 * out.trials


def never_decides(df):
    """A judge whose interval always straddles 1 (the sweep's own values do not matter here)."""
    n = int(df["trial"].nunique())
    return [Claim("002", "Table 1", "A is slower than B", "slower", "1.00×", direction=False, cause="unexplained: t",
                  pairs=n, sides=f"{n} pairs", interval="0.90–1.10×", undecided="direction")]


def test_stops_at_the_cap_undecided(tmp_path, logged):
    """While the interval keeps straddling 1, the rule stops at the cap, undecided there."""
    asked = []
    out = sweep_until_decided(_batches(tmp_path, 1.0, asked), never_decides, start=6, step=7, cap=20)
    assert [t for t, _ in asked] == [6, 13, 20]                # the last batch is clipped to the cap
    assert out.trials == 20 and out.claims[0].verdict == "undecided" and out.claims[0].pairs == 20
    assert out.text() == "6 → 13 → 20 trials; 1 verdict undecided at 20"
    assert len(_calls(logged)) == 2 * 20


def test_bad_bounds_are_refused_before_anything_runs():
    never = lambda trials, undecided: pytest.fail("ran")
    with pytest.raises(ValueError, match="cap must be"):
        sweep_until_decided(never, judge, start=10, step=5, cap=5)
    with pytest.raises(ValueError, match="step must be"):
        sweep_until_decided(never, judge, start=10, step=0, cap=40)
    with pytest.raises(ValueError, match="start must be"):
        sweep_until_decided(never, judge, start=0, step=1, cap=40)


def judge_pairs(df):
    """One verdict per pair ("pair" column): its A slower than its B (S24's interval decides)."""
    out = []
    for pair, d in df.groupby("pair"):
        piv = d.pivot(index="trial", columns="arm", values="time_s")
        st = strength((piv["A"] / piv["B"]).to_numpy())
        dec = side(st, "above")
        out.append(Claim("002", "Table 1", f"pair {pair}: A is slower than B", "slower", "x", direction=dec is not False,
                         cause="" if dec is not False else "unexplained: test", pairs=st.trials,
                         sides=st.sides_text(), interval=st.interval_text(),
                         undecided=("direction",) if dec is None else ()))
    return out


def test_per_setting_batches_extend_only_the_settings_an_undecided_verdict_reads(tmp_path, logged):
    """Pair 0 (a 50 % effect) decides at 10 trials, pair 1 (1 %, under 5 % noise) does not: only pair 1's two
    settings run batches, each trial once, and the frame keeps the settings' order with their own counts."""
    settings = [{"pair": p, "arm": a, "effect": e} for p, e in ((0, 1.5), (1, 1.01)) for a in "AB"]
    asked = []

    def sweep(sets, trials):
        asked.append(([s["pair"] for s in sets], trials))
        return run_sweep(timed_fn, sets, trials, seed=11, executor="serial", progress=False, cache_dir=tmp_path / "c")

    def open_settings(sets, undecided):
        pairs = {int(c.claim.split()[1].rstrip(":")) for c in undecided}
        return [i for i, s in enumerate(sets) if s["pair"] in pairs]

    out = settings_until_decided(sweep, settings, judge_pairs, open_settings, start=10, step=5, cap=20)
    assert out.trials > 10 and asked[0] == ([0, 0, 1, 1], 10)
    assert all(trials == 10 or pairs == [1, 1] for pairs, trials in asked[1:])   # pair 0 never extended
    counts = out.frame.groupby("pair")["trial"].nunique().to_dict()
    assert counts == {0: 10, 1: out.trials}
    assert list(out.frame["pair"]) == [0] * 20 + [1] * (2 * out.trials)           # settings' order kept
    assert len(_calls(logged)) == 2 * 10 + 2 * out.trials     # every (setting, trial) computed once: no recompute
    assert out.claims[0].pairs == 10 and out.claims[1].pairs == out.trials


def test_per_setting_batches_refuse_an_index_outside_the_settings(tmp_path):
    settings = [{"arm": a, "effect": 1.0} for a in "AB"]

    def sweep(sets, trials):
        return run_sweep(timed_fn, sets, trials, seed=11, executor="serial", progress=False, cache_dir=tmp_path / "c")

    with pytest.raises(ValueError, match="outside the 2 settings"):
        settings_until_decided(sweep, settings, never_decides, lambda s, u: [2], start=6, step=1, cap=8)
