"""Test-wide Hypothesis settings.

No per-example deadline anywhere (the machine is shared and numba compiles on
first use). Under CI (``CI`` set) examples are derandomized so a red CI run is
reproducible; locally they stay random to keep exploring.

Profile ``fast`` (``pytest --hypothesis-profile fast``, what ``make test-fast``
selects) runs at most ``FAST_MAX_EXAMPLES`` examples per property, also for the
tests whose own ``@settings`` ask for more: a quick pass while developing, not a
replacement for the full run (``make test``), which keeps every test's own count.
"""
import os

from hypothesis import settings

#: Examples per Hypothesis test under the ``fast`` profile (an upper bound: a test asking fewer keeps its own).
FAST_MAX_EXAMPLES = 10

_CI = bool(os.environ.get("CI"))
settings.register_profile("local", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True)
settings.register_profile("fast", deadline=None, derandomize=_CI, max_examples=FAST_MAX_EXAMPLES)
settings.load_profile("ci" if _CI else "local")


def capped(test_settings: settings, limit: int) -> settings:
    """`test_settings` with `max_examples` lowered to at most `limit` (other fields kept)."""
    if test_settings.max_examples <= limit:
        return test_settings
    return settings(test_settings, max_examples=limit)


def pytest_collection_modifyitems(config, items):
    """Under the ``fast`` profile, cap each Hypothesis test's own ``max_examples`` (Hypothesis reads
    the settings stored on the wrapped test when it runs, so an explicit ``@settings`` would win)."""
    if settings.get_current_profile_name() != "fast":
        return
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if own is not None and getattr(test, "is_hypothesis_test", False):
            test._hypothesis_internal_use_settings = capped(own, FAST_MAX_EXAMPLES)
