"""Enough trials to decide (decision S25): more paired trials, in batches, while a verdict is undecided.

A comparative verdict is undecided when the confidence interval of its median ratio straddles the
claim's threshold (S24, :mod:`simlib.papers.strength`).  :func:`sweep_until_decided` runs a sweep at
``start`` trials, judges it, and while any verdict is undecided runs the sweep again with ``step``
more trials, up to ``cap``; at the cap an undecided verdict stays undecided ("undecided at N
trials", N in its ``pairs``).  The sweep is the notebooks' (:meth:`simlib.pipeline.run.Run.sweep`):
trial t of a setting is cached under its full parameters and seed (S17), so a batch computes only
the trials it adds, and a trial computed once is never computed again.  :func:`settings_until_decided`
is the same rule per setting: only the settings an undecided verdict reads get the batch's trials
(004's SSP sweeps, notebooks 43-45; 002's Table 1 in notebook 21).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np
import pandas as pd

from simlib.core.validate import check_int
from simlib.papers.claim import Claim

__all__ = ["Decided", "sweep_until_decided", "settings_until_decided", "run_until_decided"]


@dataclass(frozen=True)
class Decided:
    """What :func:`sweep_until_decided` ends with: the last batch's ``frame`` and ``claims``, its
    ``trials``, and ``rounds``: per batch (trials, verdicts undecided after it)."""

    frame: pd.DataFrame
    claims: list
    trials: int
    rounds: tuple

    @property
    def undecided(self) -> list:
        """The claims still undecided (at the cap)."""
        return [c for c in self.claims if c.kind == "claim" and c.verdict == "undecided"]

    def text(self) -> str:
        """``"10 → 15 → 20 trials; 2 verdicts undecided at 20"``."""
        path = " → ".join(str(t) for t, _ in self.rounds)
        n = len(self.undecided)
        return f"{path} trials; {n} verdict{'s' if n != 1 else ''} undecided at {self.trials}"


def sweep_until_decided(run_batch: Callable[[int, list | None], pd.DataFrame],
                        judge: Callable[[pd.DataFrame], list], *, start: int, step: int, cap: int) -> Decided:
    """Run ``run_batch(trials, undecided)`` -- the sweep with trials 0..trials-1, returning its frame
    (``undecided``: None for the first batch, then the claims left undecided, so a caller may extend
    only the settings they compare) -- and ``judge(frame) -> [Claim]``, starting at ``start`` trials;
    while a claim is undecided (:attr:`~simlib.papers.claim.Claim.verdict`), again with ``step`` more
    trials, never beyond ``cap`` (``1 <= start <= cap``, ``step >= 1``)."""
    start = check_int("start", start, lo=1)
    cap = check_int("cap", cap, lo=start)
    step = check_int("step", step, lo=1)
    trials, undecided, rounds = start, None, []
    while True:
        frame = run_batch(trials, undecided)
        claims = list(judge(frame))
        for c in claims:
            if not isinstance(c, Claim):
                raise ValueError(f"judge must return Claim records, got {c!r}")
        undecided = [c for c in claims if c.kind == "claim" and c.verdict == "undecided"]
        rounds.append((trials, len(undecided)))
        if not undecided or trials >= cap:
            return Decided(frame, claims, trials, tuple(rounds))
        trials = min(cap, trials + step)


def settings_until_decided(sweep: Callable[[list, int], pd.DataFrame], settings: list,
                           judge: Callable[[pd.DataFrame], list], open_settings: Callable[[list, list], Iterable[int]],
                           *, start: int, step: int, cap: int) -> Decided:
    """:func:`sweep_until_decided` per setting.  Every setting starts at ``start`` trials; after each
    judgement the settings ``open_settings(settings, undecided)`` names (indices into ``settings``: the
    ones the undecided verdicts read) get the next batch's trial count, the others keep theirs (a
    setting extended once stays extended).  ``sweep(some_settings, trials)`` runs one sweep (the
    notebooks' ``run.sweep``: trials already computed come from the cache) and returns its frame in
    (setting, trial) order with ``trials`` rows per setting (S2); a batch sweeps each group of settings
    that share a trial count and returns the rows in ``settings``' order."""
    n_of = [check_int("start", start, lo=1)] * len(settings)

    def batch(trials: int, undecided: list | None) -> pd.DataFrame:
        if undecided is not None:
            for i in set(open_settings(settings, undecided)):
                if not 0 <= i < len(settings):
                    raise ValueError(f"open_settings gave index {i}, outside the {len(settings)} settings")
                n_of[i] = trials
        parts, order = [], []
        for t in sorted(set(n_of)):
            idx = [i for i, k in enumerate(n_of) if k == t]
            part = sweep([settings[i] for i in idx], t)
            if len(part) != len(idx) * t:
                raise ValueError(f"sweep returned {len(part)} rows for {len(idx)} settings x {t} trials")
            parts.append(part)
            order.append(np.repeat(idx, t))
        if len(parts) == 1:
            return parts[0]
        frame = pd.concat(parts, ignore_index=True)
        return frame.iloc[np.argsort(np.concatenate(order), kind="stable")].reset_index(drop=True)

    return sweep_until_decided(batch, judge, start=start, step=step, cap=cap)


def run_until_decided(run, trial, settings: list, *, name: str, desc: str, judge: Callable[[pd.DataFrame], list],
                      open_settings: Callable[[list, list], Iterable[int]], start: int, step: int,
                      cap: int) -> pd.DataFrame:
    """A notebook's sweep ``name`` under S25, per setting (:func:`settings_until_decided`): ``run.sweep``
    of ``trial`` over ``settings`` at ``start`` trials, then ``step`` more for the settings an undecided
    verdict reads, up to ``cap`` (below ``start``: no batch).  Prints the path ("10 → 15 trials; ...");
    the results CSV ``<name>.csv`` holds every setting at its final trial count.  Returns the frame."""
    out = settings_until_decided(lambda sets, k: run.sweep(trial, sets, name=name, trials=k, desc=desc), settings,
                                 judge, open_settings, start=start, step=step, cap=max(start, cap))
    if len(out.rounds) > 1:       # each batch's sweeps wrote part of the settings: write them all
        out.frame.to_csv(run.results / f"{name}.csv", index=False)
    print(f"{desc}: {out.text()}")
    return out.frame
