"""The paper profile of the cluster run shared by 000 and 002 (``--profile paper`` on ``run``; decision S29).

:class:`simlib.papers.cluster_scenario.Scenario` names :func:`cluster_profile` as its hook
(``PROFILE_HOOK``), read by :func:`simlib.papers.profiles.hook_of` on first use.
"""
from __future__ import annotations

from simlib.papers.profiles import ProfileHook

__all__ = ["cluster_profile"]


def _cluster_values(params: dict) -> tuple[dict, str]:
    """000's profile (E18) for ``selective``/``allreduce`` runs, 002's (PR16; the values the run reads, PR19)
    for the other schemes."""
    from simlib.papers.partial_reduce import profile as pr
    from simlib.papers.selective_reduce import profile as sr

    if params.get("scheme") in ("selective", "allreduce"):
        return (sr.PAPER_PROFILE.settings(),
                f"000's profile ({sr.PAPER_PROFILE.label()}): E18's search picked the default, so this run "
                "is the default run")
    values = pr.knobs_read(params)
    return values, f"002's profile ({pr.PAPER_PROFILE.label()}), the values this scheme reads (PR19)"


def _cluster_help() -> str:
    from simlib.papers.partial_reduce import profile as pr
    from simlib.papers.selective_reduce import profile as sr

    return (f"paper: schemes selective/allreduce take 000's profile, {sr.PAPER_PROFILE.label()} -- equal to the "
            f"default (E18 picked it); the others take 002's, {pr.PAPER_PROFILE.label()}, only the values the "
            "run reads (PR19)")


def cluster_profile() -> ProfileHook:
    """The hook of the cluster run shared by 000 and 002 (:class:`simlib.papers.cluster_scenario.Scenario`)."""
    return ProfileHook(_cluster_values, _cluster_help())
