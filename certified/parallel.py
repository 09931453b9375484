"""Worker processes for the sweeps (Ginibre census, boundary maps): one BLAS thread each.

With the default (one BLAS thread per core in every process) two worker processes ran
13× slower than one on 2 cores (measured on the Ginibre census at d = 128).
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

__all__ = ["worker_pool"]

_LIMITS = None  # kept alive for the life of the worker process


def _one_blas_thread() -> None:
    """Worker initializer: limit BLAS to one thread in this process."""
    from threadpoolctl import threadpool_limits

    global _LIMITS
    _LIMITS = threadpool_limits(1)


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool whose workers each use a single BLAS thread."""
    return ProcessPoolExecutor(max_workers=workers, initializer=_one_blas_thread)
