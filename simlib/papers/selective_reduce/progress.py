"""Progress models of seed 000: the probability that a training worker becomes
ready within the next Δt, as Alg. 2 (line 26) needs it.

A progress model is called as ``model(ids, elapsed, dt) -> probabilities``
(``elapsed``: seconds each worker has been computing; ``dt`` in s) and is
attached to the running cluster once (``attach(cluster)``), which the oracle
needs to see each worker's true finish time.

* ``"paper"`` — :class:`TraceProgress`: F_Φ(elapsed + Δt), Alg. 2 line 26 as written.
* ``"conditional"`` — :class:`ConditionalProgress`: P(T ≤ elapsed + Δt | T > elapsed),
  the left-hand side of Eq. (4).
* ``"oracle"`` — :class:`OracleProgress`: 1 if the worker's current iteration ends
  within Δt, else 0 (exact knowledge, as §II-D's discussion assumes).

``dist`` is anything with ``cdf`` and ``conditional_completion_prob`` (a
:class:`~simlib.workloads.traces.Trace`, or an online ECDF for a cold start).

``kernel_spec()`` gives the controller's compiled pass
(:func:`simlib.papers.selective_reduce.kernels.round_pass`) the same model as
arrays; for a ``dist`` of another type it asks for the Python call instead.
"""
from __future__ import annotations

import numpy as np

from simlib.core.validate import check_choice
from simlib.workloads.traces import OnlineECDF, Trace

from . import kernels

__all__ = ["PROGRESS_MODELS", "TraceProgress", "ConditionalProgress", "OracleProgress", "make_progress"]

PROGRESS_MODELS = ("paper", "conditional", "oracle")


class TraceProgress:
    """F_Φ(elapsed + Δt) (000 Alg. 2 line 26)."""

    conditional = False

    def __init__(self, dist):
        self.dist = dist
        self._model = None

    def attach(self, cluster) -> None:
        pass

    @property
    def kernel_spec_fixed(self) -> bool:
        """True if :meth:`kernel_spec` never changes (a known distribution, not a learning one)."""
        return isinstance(self.dist, Trace)

    def kernel_spec(self) -> kernels.CdfModel:
        """This model now, as :func:`~simlib.papers.selective_reduce.kernels.round_pass` evaluates it."""
        d = self.dist
        if isinstance(d, Trace):
            if self._model is None:
                x, table, x0, inv_w = kernels.linear_cdf_table(d.samples)
                self._model = kernels.cdf_model(kernels.KIND_LINEAR, self.conditional, x, table, x0, inv_w)
            return self._model
        if isinstance(d, OnlineECDF):
            main, buf = d.sorted_parts()
            return kernels.cdf_model(kernels.KIND_STEP, self.conditional, main, x2=buf, count=d.count, prior=d.prior)
        return kernels.callback_spec()

    def __call__(self, ids, elapsed, dt) -> np.ndarray:
        return np.asarray(self.dist.cdf(np.asarray(elapsed) + dt), dtype=float)


class ConditionalProgress(TraceProgress):
    """P(T ≤ elapsed + Δt | T > elapsed) (the left-hand side of 000 Eq. 4)."""

    conditional = True

    def __call__(self, ids, elapsed, dt) -> np.ndarray:
        return np.asarray(self.dist.conditional_completion_prob(np.asarray(elapsed), dt), dtype=float)


class OracleProgress:
    """1 if the worker's current compute phase ends within Δt (000 §II-D), else 0."""

    def __init__(self):
        self.cluster = None

    def attach(self, cluster) -> None:
        self.cluster = cluster
        self._workers = cluster.workers()

    kernel_spec_fixed = True

    def kernel_spec(self) -> kernels.CdfModel:
        """This model as :func:`~simlib.papers.selective_reduce.kernels.round_pass` evaluates it."""
        return kernels.oracle_spec()

    def __call__(self, ids, elapsed, dt) -> np.ndarray:
        ids = np.asarray(ids, dtype=np.int64)
        return (self._workers.compute_finish[ids] <= self.cluster.sim.now + dt + 1e-12).astype(float)


def make_progress(name: str, dist=None):
    """The progress model ``name`` (one of :data:`PROGRESS_MODELS`) over ``dist``."""
    check_choice("progress_model", name, PROGRESS_MODELS)
    if name == "oracle":
        return OracleProgress()
    if dist is None:
        raise ValueError(f"progress_model {name!r} needs a compute-time distribution (dist)")
    return TraceProgress(dist) if name == "paper" else ConditionalProgress(dist)
