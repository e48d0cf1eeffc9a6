"""Test-wide Hypothesis settings.

No per-example deadline anywhere (the machine is shared and numba compiles on
first use). Under CI (``CI`` set) examples are derandomized so a red CI run is
reproducible; locally they stay random to keep exploring.
"""
import os

from hypothesis import settings

settings.register_profile("local", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "local")
