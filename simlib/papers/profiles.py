"""``--profile paper`` and ``Scenario.at_profile()``: any scenario at its paper's profile, through one hook.

A paper profile is the set of values this repository fitted or read for the settings a paper leaves
open.  Each scenario class registers a :class:`ProfileHook` (:func:`register`) saying, for a run's flat
parameters, which values the profile sets and why; :func:`at_profile` applies it and
:func:`help_text` lists it for ``--help``.  Registered here: the cluster run of 000 and 002 (000's E18
profile, which equals the default; 002's PR16 fit, the values each run reads, PR19); ``train``
registers 002's in :mod:`simlib.training.train_command`; 003 has none; 004's BSP profile
(:mod:`simlib.papers.selmcast.profile`) and its SSP profile (:mod:`simlib.papers.selmcast.ssp_profile`).
A scenario without a hook runs at its default, with a note saying so.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from simlib.core.validate import check_choice

__all__ = ["PROFILE_NAMES", "ProfileHook", "register", "hook_of", "profile_values", "at_profile", "help_text"]

#: The profiles a command accepts: its defaults, or its paper's profile.
PROFILE_NAMES = ("default", "paper")


@dataclass(frozen=True)
class ProfileHook:
    """How a scenario class reaches its paper's profile: ``values(params) -> ({name: value}, note)`` for a
    run's flat parameters ``params`` (only parameters the class declares), and ``help`` (the values and
    the decision that fitted or chose each, for ``--help``)."""

    values: Callable[[dict], tuple[dict, str]]
    help: str


_HOOKS: dict[type, ProfileHook] = {}


def register(cls: type, hook: ProfileHook) -> None:
    """Make ``hook`` the paper profile of scenario class ``cls`` (replacing an earlier one)."""
    _HOOKS[cls] = hook


def hook_of(cls: type) -> ProfileHook | None:
    """The :class:`ProfileHook` of ``cls`` (None: the paper has no profile for it).  A class may name its
    hook's factory instead of registering it (``PROFILE_HOOK = "module:function"``, read on first use), so
    a scenario reaches its paper's profile without importing the paper's calibration code when it is
    defined (that code imports the scenario)."""
    if cls not in _HOOKS and getattr(cls, "PROFILE_HOOK", None):
        module, _, function = cls.PROFILE_HOOK.partition(":")
        register(cls, getattr(importlib.import_module(module), function)())
    return _HOOKS.get(cls)


def profile_values(cls: type, params: dict, name: str = "paper") -> tuple[dict, str]:
    """``({parameter: value}, note)`` that profile ``name`` (:data:`PROFILE_NAMES`) sets on a run of
    ``cls`` with flat ``params``: nothing for ``"default"``; for ``"paper"`` the registered hook's values,
    or nothing with a note when ``cls`` has no paper profile.  ``ValueError`` naming ``profile`` for an
    unknown name."""
    check_choice("profile", name, PROFILE_NAMES)
    if name == "default":
        return {}, "the repository's defaults"
    hook = hook_of(cls)
    if hook is None:
        return {}, f"{cls.__name__} has no paper profile (nothing of its paper is fitted): the default is used"
    return hook.values(params)


def at_profile(scenario, name: str = "paper"):
    """``scenario`` (a :class:`~simlib.papers.contract.ScenarioBase`) with profile ``name``'s values
    (:func:`profile_values`), rebuilt (so checked) from its flat parameters."""
    params = scenario.to_params()
    values, _ = profile_values(type(scenario), params, name)
    return type(scenario).from_params({**params, **values}) if values else scenario


def help_text(cls: type) -> str:
    """``--profile``'s help for a command of scenario class ``cls``: the choices and what ``paper`` sets."""
    hook = hook_of(cls)
    what = hook.help if hook is not None else "this command's paper has no profile: paper = the default"
    return f"run at the repository's defaults or at the paper's profile — {{default, paper}}, default default; {what}"
