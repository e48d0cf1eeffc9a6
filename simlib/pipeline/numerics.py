"""The numerical kernels a process's floating-point results depend on beyond package versions (decision S43).

numpy and scipy dispatch at run time by the CPU: OpenBLAS picks its GEMM kernels by the core type it detects
(``OPENBLAS_CORETYPE`` overrides it) and numpy its SIMD loops (``NPY_DISABLE_CPU_FEATURES`` turns targets off).
Two machines with the same packages but other kernels may round a product or an ``exp`` differently in the last
bit, and a replayed training run then drifts (measured in S43).  :func:`numerics_identity` names those kernels: a
Dask node must match the client's (S16), and a full reproduction records them in ``requirements.lock`` so that
``make reproduce-check`` can say when a difference may come from them.
"""
from __future__ import annotations

#: The line of ``requirements.lock`` that records the kernels of the run that wrote it.
LOCK_PREFIX = "# numerics (decision S43): "


def numerics_identity() -> str:
    """The numerical kernels this process's floating-point results depend on beyond package versions (decision
    S43): the BLAS library and the core type it dispatched to (OpenBLAS picks its GEMM kernels by the CPU, or by
    ``OPENBLAS_CORETYPE``), and numpy's SIMD dispatch targets the CPU supports and ``NPY_DISABLE_CPU_FEATURES``
    leaves on, e.g. ``"blas openblas Haswell; numpy X86_V3"``.  Two processes with equal identities (and equal
    packages) give bit-identical trials; otherwise products and transcendental functions may round differently."""
    import numpy  # noqa: F401  (numpy's and scipy's own OpenBLAS builds, loaded so that threadpool_info sees
    import scipy.linalg  # noqa: F401  both whatever this process imported before)
    from threadpoolctl import threadpool_info

    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:                               # numpy's private table moved: say so rather than guess
        simd = "unknown"
    else:
        simd = " ".join(sorted(f for f in __cpu_dispatch__ if __cpu_features__.get(f))) or "baseline"
    blas = sorted({f"{i.get('internal_api')} {i.get('architecture')}" for i in threadpool_info()
                   if i.get("user_api") == "blas"}) or ["none loaded"]
    return f"blas {', '.join(blas)}; numpy {simd}"


def lock_numerics(text: str) -> str | None:
    """The kernels recorded in a ``requirements.lock``'s text (:data:`LOCK_PREFIX`), or None if it records none."""
    for line in text.splitlines():
        if line.startswith(LOCK_PREFIX):
            return line[len(LOCK_PREFIX):].strip()
    return None
