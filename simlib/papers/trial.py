"""A sweep trial that names what it runs: the setting class it takes and the trial each setting stands for.

:func:`simlib.pipeline.sweep.run_sweep` hands each setting to the trial function as given and keys its
cache on it, so ``{"p": 0.3}`` and ``{}`` (default p = 0.3) would be computed twice, and a trial given a
dict builds (and checks) its scenario once per trial.  A trial function that takes a scenario class says
so with :func:`trial_of`::

    def _cache_params(sc: Scenario) -> dict:
        return sc.to_params()            # every default filled in (the default rule)

    @trial_of(Scenario, key=_cache_params, example={"n": 6, "duration_s": 5.0})
    def run_trial(sc: Scenario, seed: np.random.SeedSequence) -> dict:
        ...

``run_trial`` is then a :class:`Trial`: called as before; a sweep builds every dict setting into a
``Scenario`` once, before anything runs (a bad setting stops the sweep there, naming its parameter),
hands the trial that object and keys the cache on ``run_trial.cache_params(setting)``.  A plain
function is given each setting as it is and keyed by it.  ``example`` is a small, fast setting of the
trial, a run that does something: the conformance suite (``tests/papers/test_conformance.py``) runs
every trial at its example, as scikit-learn's checks read an estimator's tags.

A trial whose runs of several settings share work at one seed (RP24's search candidates share their
simulated cluster) says so with ``together=Together(key, run)``: a paired sweep then hands the
settings of one trial index with equal ``key(setting)`` to ``run(settings, seed)`` in one task, which
returns their metrics in order (decision S39).
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Callable

__all__ = ["Trial", "Together", "trial_of", "trial_keyed_by"]


@dataclasses.dataclass(frozen=True)
class Together:
    """How a :class:`Trial` runs several settings at one seed in one task (decision S39).

    ``key(setting) -> str | None`` (``setting`` built, as the trial takes it): settings with the same
    str share work when their seeds are equal (None: the setting runs alone); ``run(settings, seed) ->
    list`` returns, for each setting in order, exactly the metrics ``fn(setting, seed)`` would (the
    shared work is a cost only).  Both module-level functions: a worker finds them with the trial."""
    key: Callable[[object], "str | None"]
    run: Callable[[list, object], list]

    def __post_init__(self):
        if not callable(self.key) or not callable(self.run):
            raise ValueError(f"key and run must be callable, got {self.key!r} and {self.run!r}")


class Trial:
    """A trial function ``fn(setting, seed, **options) -> {metric: scalar}`` with what it takes and its
    cache key rule.

    ``setting`` (or None) is the class of the settings ``fn`` takes: it has ``setting.of(x)`` (``x``
    itself when it is one, else built from the flat dict ``x``) and ``to_params()`` (the flat dict
    back), as every :class:`~simlib.papers.contract.ScenarioBase` has.  ``cache_params(x) -> dict``
    returns every parameter of the run ``x`` stands for (defaults filled in, knobs the run ignores at
    their defaults), so settings that spell one run differently share one cached result; with a
    ``setting`` class and no ``key`` it is ``setting.of(x).to_params()``.  A ``Trial`` stands wherever
    ``fn`` did: calling it calls ``fn``, it carries ``fn``'s name, module and docstring (the sweep cache's
    folder and code fingerprint are ``fn``'s), and it pickles by its module-level name, as a function
    does (so define it at module level).  ``example`` (a flat dict, or None) is a small, fast setting
    of the trial that does something, for the conformance suite.  ``together`` (a :class:`Together`, or
    None) says which settings' runs at one seed a sweep may run in one task (S39).
    """

    def __init__(self, fn: Callable, cache_params: Callable[[object], dict] | None = None, *, setting=None,
                 example: dict | None = None, together: Together | None = None):
        if not callable(fn) or (cache_params is not None and not callable(cache_params)):
            raise ValueError(f"fn and cache_params must be callable, got {fn!r} and {cache_params!r}")
        if setting is not None and not (isinstance(setting, type) and callable(getattr(setting, "of", None))
                                        and callable(getattr(setting, "to_params", None))):
            raise ValueError(f"setting must be None or a class with of() and to_params() (a ScenarioBase), "
                             f"got {setting!r}")
        if cache_params is None and setting is None:
            raise ValueError("give a cache_params rule, a setting class, or both")
        if example is not None and not isinstance(example, dict):
            raise ValueError(f"example must be None or a dict of parameters, got {example!r}")
        if together is not None and not isinstance(together, Together):
            raise ValueError(f"together must be None or a Together, got {together!r}")
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.setting = setting
        self.example = example
        self.together = together
        self._key = cache_params

    def build(self, params):
        """``params`` (a flat dict, or already a ``setting``) as this trial's ``setting`` object, built and
        so checked here (a :class:`~simlib.papers.contract.ParamError` names the parameter); ``params``
        itself when the trial takes no setting class."""
        return params if self.setting is None else self.setting.of(params)

    def cache_params(self, params) -> dict:
        """Every parameter of the run ``params`` (a flat dict or a built setting) stands for: the cache key."""
        setting = self.build(params)
        return self._key(setting) if self._key is not None else setting.to_params()

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __reduce__(self):
        return self.__qualname__     # pickle finds it as ``<__module__>.<__qualname__>``

    def __repr__(self) -> str:
        return f"<trial {self.__module__}.{self.__qualname__}>"


def trial_of(setting, *, key: Callable[[object], dict] | None = None,
             example: dict | None = None, together: Together | None = None) -> Callable[[Callable], Trial]:
    """Decorator: the function becomes a :class:`Trial` taking ``setting`` objects (a sweep builds each
    dict setting once), keyed on ``key(built setting)`` (default: its ``to_params()``), with the small
    setting ``example`` and the rule ``together`` (:class:`Together`, S39) for settings run in one task."""
    return lambda fn: Trial(fn, key, setting=setting, example=example, together=together)


def trial_keyed_by(cache_params: Callable[[dict], dict], *, example: dict | None = None,
                   together: Together | None = None) -> Callable[[Callable], Trial]:
    """Decorator: the function (given each setting as it is) becomes a :class:`Trial` whose cache key is
    ``cache_params(setting)``, with the small setting ``example`` and the rule ``together`` (S39)."""
    return lambda fn: Trial(fn, cache_params, example=example, together=together)
