"""A notebook's parameters, checked once in its validation cell.

:func:`notebook_params` checks every parameter against a spec declared in the
paper's package (a :class:`~simlib.papers.contract.ScenarioBase` dataclass whose
fields re-use the scenario's declarations) and applies the quick profile to the
parameters the user did not pass; every notebook's validation cell is one call
of it.  :func:`check_notebook_common` checks the parameters every notebook
shares.  Both note the run's profile, seed and trials for the claims ledger
(:func:`simlib.pipeline.paths.note_run`).
"""
from __future__ import annotations

from simlib.core.validate import check_choice, check_int
from simlib.papers.contract import MISSING, specs
from simlib.pipeline import paths

__all__ = ["PROFILES", "COMMON", "notebook_params", "check_notebook_common"]

#: Fidelity profiles: "full" (paper fidelity) or "quick" (smoke-size runs for tests).
PROFILES = ("full", "quick")


#: Parameters every notebook has besides its spec's: fidelity profile, sweep processes, root seed.
COMMON = ("profile", "workers", "seed")


def notebook_params(spec_cls, namespace: dict) -> dict:
    """A notebook's parameters, checked against ``spec_cls``; returns ``{name: value}`` of
    :data:`COMMON` and every field of the spec (lists as lists), for ``globals().update(...)``.

    ``namespace`` is the notebook's ``globals()`` after its parameters cell (and
    papermill's injected one): it must assign every field of ``spec_cls``.  In the
    quick profile a field declared with a ``quick`` value gets it, unless the
    user passed that parameter (:func:`simlib.pipeline.paths.passed_parameters`).
    List parameters may be YAML/JSON text (``papermill -p p_values "[10, 20]"``).
    A passed parameter the spec does not declare, or a value outside its range, is
    a ``ValueError`` naming it; the spec's ``check()`` adds the cross-field rules.
    """
    declared = specs(spec_cls)
    profile = check_choice("profile", namespace.get("profile", "full"), PROFILES)
    passed = paths.passed_parameters()
    unknown = sorted(set(passed) - set(declared) - set(COMMON))
    if unknown:
        raise ValueError(f"unknown notebook parameter(s) {unknown}; {spec_cls.__name__} declares "
                         f"{[*COMMON, *declared]}")
    missing = [name for name in declared if name not in namespace]
    if missing:
        raise ValueError(f"the parameters cell must assign {missing} (declared by {spec_cls.__name__})")
    quick = profile == "quick"
    values = {name: spec.quick if quick and spec.quick is not MISSING and name not in passed else namespace[name]
              for name, spec in declared.items()}
    out = spec_cls(**values).to_params()
    profile, workers, seed, _ = check_notebook_common(profile, namespace.get("workers"), namespace.get("seed", 0),
                                                      out.get("trials", 1))
    return {"profile": profile, "workers": workers, "seed": seed, **out}


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
