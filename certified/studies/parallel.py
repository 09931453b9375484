"""Worker processes for the sweeps (Ginibre census, boundary maps): one BLAS thread each.

With the default (one BLAS thread per core in every process) two worker processes ran
13× slower than one on 2 cores (measured on the Ginibre census at d = 128).
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor

from threadpoolctl import threadpool_limits

__all__ = ["usable_cores", "worker_pool"]

_LIMITS = None  # kept alive for the life of the worker process


def _one_blas_thread() -> None:
    """Worker initializer: limit BLAS to one thread in this process."""

    global _LIMITS
    _LIMITS = threadpool_limits(1)


def usable_cores() -> int:
    """Cores this process may use (the affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool whose workers each use a single BLAS thread."""
    return ProcessPoolExecutor(max_workers=workers, initializer=_one_blas_thread)
