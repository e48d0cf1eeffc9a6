"""A sweep trial that names the trial each setting stands for.

:func:`simlib.pipeline.sweep.run_sweep` keys its cache on the setting as given, so ``{"p": 0.3}``
and ``{}`` (default p = 0.3) would be computed twice.  A trial function that knows its scenario's
defaults says so with :func:`trial_keyed_by`::

    def _cache_params(params: dict) -> dict:
        return Scenario.from_params(params).to_params()      # every default filled in

    @trial_keyed_by(_cache_params)
    def run_trial(params: dict, seed: np.random.SeedSequence) -> dict:
        ...

``run_trial`` is then a :class:`Trial`: called as before, and the sweep keys its paired trials on
``run_trial.cache_params(setting)``.  A plain function is keyed by its setting as given.
"""
from __future__ import annotations

import functools
from typing import Callable

__all__ = ["Trial", "trial_keyed_by"]


class Trial:
    """A trial function ``fn(params, seed, **options) -> {metric: scalar}`` with its cache key rule.

    ``cache_params(params) -> dict`` returns every parameter of the run ``params`` stands for
    (defaults filled in, knobs the run ignores at their defaults), so settings that spell one run
    differently share one cached result.  A ``Trial`` stands wherever ``fn`` did: calling it calls
    ``fn``, it carries ``fn``'s name, module and docstring (the sweep cache's folder and code
    fingerprint are ``fn``'s), and it pickles by its module-level name, as a function does (so
    define it at module level).
    """

    def __init__(self, fn: Callable, cache_params: Callable[[dict], dict]):
        if not callable(fn) or not callable(cache_params):
            raise ValueError(f"fn and cache_params must be callable, got {fn!r} and {cache_params!r}")
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.cache_params = cache_params

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __reduce__(self):
        return self.__qualname__     # pickle finds it as ``<__module__>.<__qualname__>``

    def __repr__(self) -> str:
        return f"<trial {self.__module__}.{self.__qualname__}>"


def trial_keyed_by(cache_params: Callable[[dict], dict]) -> Callable[[Callable], Trial]:
    """Decorator: the function becomes a :class:`Trial` whose cache key is ``cache_params(setting)``."""
    return lambda fn: Trial(fn, cache_params)
