"""Per-notebook trial functions: ``trial(params: dict, seed: SeedSequence) -> dict``.

Each module here is the simulation behind one notebook, kept out of the
notebook so it can be imported, tested and run by :func:`simlib.sweep.run_sweep`
in worker processes.
"""
