"""Enough trials to decide (decision S25): more paired trials, in batches, while a verdict is undecided.

A comparative verdict is undecided when the confidence interval of its median ratio straddles the
claim's threshold (S24, :mod:`simlib.papers.strength`).  :func:`sweep_until_decided` runs a sweep at
``start`` trials, judges it, and while any verdict is undecided runs the sweep again with ``step``
more trials, up to ``cap``; at the cap an undecided verdict stays undecided ("undecided at N
trials", N in its ``pairs``).  The sweep is the notebooks' (:meth:`simlib.pipeline.run.Run.sweep`):
trial t of a setting is cached under its full parameters and seed (S17), so a batch computes only
the trials it adds, and a trial computed once is never computed again.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pandas as pd

from simlib.core.validate import check_int
from simlib.papers.claim import Claim

__all__ = ["Decided", "sweep_until_decided"]


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
