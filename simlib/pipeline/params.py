"""The parameters every notebook shares, checked once in its validation cell.

Also notes the run's profile, seed and trials for the claims ledger
(:func:`simlib.pipeline.paths.note_run`).
"""
from __future__ import annotations

from simlib.core.validate import check_choice, check_int
from simlib.pipeline import paths

__all__ = ["PROFILES", "check_notebook_common", "quick_profile"]

#: Fidelity profiles: "full" (paper fidelity) or "quick" (smoke-size runs for tests).
PROFILES = ("full", "quick")


def check_notebook_common(profile, workers, seed=0, trials=1):
    """Validate the parameters every notebook shares; returns ``(profile, workers, seed, trials)``.

    ``profile`` in {"full", "quick"}; ``workers`` None or an integer >= 1;
    ``seed`` an integer >= 0; ``trials`` an integer >= 1.  The values are also
    noted for the claims ledger (:func:`simlib.pipeline.paths.note_run`).
    """
    check_choice("profile", profile, PROFILES)
    if workers is not None:
        workers = check_int("workers", workers, 1)
    seed, trials = check_int("seed", seed, 0), check_int("trials", trials, 1)
    paths.note_run(profile=profile, seed=seed, trials=trials)
    return profile, workers, seed, trials


def quick_profile(profile, **values) -> tuple:
    """The quick profile's smaller values, except for parameters the user passed.

    ``values`` maps a parameter name to ``(current value, quick value)``.  For
    ``profile == "quick"`` each name gets its quick value unless it was passed
    to this run (papermill's injected parameters); otherwise the current
    value.  Returns the values in the order given::

        trials, n_values = quick_profile(profile, trials=(trials, 2), n_values=(n_values, [10, 20]))
    """
    passed = paths.passed_parameters() if profile == "quick" else {}
    out = {name: small if profile == "quick" and name not in passed else current
           for name, (current, small) in values.items()}
    if "trials" in out:
        paths.note_run(trials=out["trials"])
    return tuple(out.values())
