"""Seeding: every random draw in simlib comes from a :class:`numpy.random.SeedSequence`
the user can set.

:func:`child_seed` derives a fixed child by key (unlike ``SeedSequence.spawn``,
which is stateful, the child does not depend on how many children were taken
before), so a trial's bandwidths, compute times and estimation errors are drawn
from independent streams that are the same whatever else the run does.
"""
from __future__ import annotations

import numpy as np

from simlib.core.validate import check_int

__all__ = ["child_seed", "as_seed_sequence", "check_rng"]


def child_seed(seed: np.random.SeedSequence, *keys: int) -> np.random.SeedSequence:
    """The child of ``seed`` at spawn key ``seed.spawn_key + keys`` (order-independent)."""
    return np.random.SeedSequence(seed.entropy, spawn_key=tuple(seed.spawn_key) + tuple(keys))


def as_seed_sequence(seed, name: str = "seed") -> np.random.SeedSequence:
    """``seed`` itself if it is a SeedSequence, else ``SeedSequence(seed)`` for an int >= 0."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    return np.random.SeedSequence(check_int(name, seed, 0))


def check_rng(rng, name: str = "rng") -> np.random.Generator:
    """``rng`` if it is a :class:`numpy.random.Generator`, else a ValueError naming ``name``."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"{name} must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng
