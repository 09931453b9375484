"""Where a sweep's tasks run: local worker processes, or a Dask cluster.

Every sweep (boundary maps, the Ginibre census, ``certified batch verify``) hands this
module a picklable function and a list of payloads and receives the results **as they
finish**, in any order; the caller appends each one to its resumable JSON lines at once,
so a crash or a lost worker loses at most the tasks in flight.

* ``scheduler=None`` — a local process pool (one BLAS thread per process), or the calling
  process when ``workers == 1``;
* ``scheduler="local"`` — a :class:`dask.distributed.LocalCluster` with ``workers``
  processes of one thread each (its dashboard address is reported);
* ``scheduler="tcp://host:port"`` — an existing Dask scheduler (e.g. started by
  dask-jobqueue on SLURM/PBS, or ``dask scheduler`` / ``dask worker`` by hand).

Dask reschedules the tasks of a lost worker on the others; the task functions here are
pure (a result depends only on its payload), so a task that runs twice gives the same
row, and the caller keeps the first. Dask is an optional dependency:
``pip install 'certified[distributed]'``.
"""

from __future__ import annotations

from concurrent.futures import as_completed
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

from threadpoolctl import threadpool_limits

from certified.errors import InputError
from certified.studies.parallel import usable_cores, worker_pool

__all__ = ["INSTALL_HINT", "Engine", "open_engine", "require_dask"]

INSTALL_HINT = "pip install 'certified[distributed]'"


def require_dask() -> None:
    """Fail at once (before any work) when Dask is not installed."""
    try:
        import distributed  # noqa: F401  # lazy: optional dependency (dask.distributed)
    except ImportError:
        raise InputError("--scheduler", "needs dask.distributed, which is not installed",
                         INSTALL_HINT) from None


class Engine:
    """Runs ``fn(payload)`` for many payloads and yields results as they finish.

    Attributes
    ----------
    description : str
        Where the tasks run (for progress messages), e.g. the Dask dashboard address.
    slots : int
        How many tasks run at once (processes, or the cluster's worker threads when it
        was joined: 0 if it has no workers yet).
    """

    def __init__(self, description: str, submit_all: Callable[[Callable[[Any], Any],
                                                               Sequence[Any]],
                                                              Iterator[Any]],
                 slots: int = 1) -> None:
        self.description = description
        self.slots = slots
        self._submit_all = submit_all

    def map_unordered(self, fn: Callable[[Any], Any], payloads: Sequence[Any]
                      ) -> Iterator[Any]:
        """The results of ``fn`` on every payload, in the order they finish."""
        if not payloads:
            return iter(())
        return self._submit_all(fn, payloads)


def _serial(fn: Callable[[Any], Any], payloads: Sequence[Any]) -> Iterator[Any]:
    for p in payloads:
        yield fn(p)


@contextmanager
def open_engine(scheduler: str | None = None, workers: int | None = None
                ) -> Iterator[Engine]:
    """The engine for ``scheduler`` (None, ``"local"`` or a scheduler address).

    Parameters
    ----------
    scheduler : str, optional
        None: local processes; ``"local"``: a Dask LocalCluster started here and stopped
        on exit; otherwise the address of a running Dask scheduler.
    workers : int, optional
        Processes (local pool or LocalCluster; default: the usable cores). Ignored for an
        existing cluster.
    """
    n = workers or usable_cores()
    if scheduler is None:
        if n == 1:
            yield Engine("this process", _serial)
            return
        with worker_pool(n) as pool:
            def run_pool(fn: Callable[[Any], Any], payloads: Sequence[Any]) -> Iterator[Any]:
                for fut in as_completed([pool.submit(fn, p) for p in payloads]):
                    yield fut.result()

            yield Engine(f"{n} local processes", run_pool, n)
        return
    require_dask()
    from distributed import Client, LocalCluster  # lazy: optional dependency (dask)
    from distributed import as_completed as dask_completed  # lazy: optional dependency

    cluster = None
    try:
        if scheduler == "local":
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=":0")
            client = Client(cluster)
        else:
            try:
                client = Client(scheduler, timeout="20s")
            except (OSError, ValueError, TypeError) as exc:  # unreachable, or not an address
                raise InputError("--scheduler", f"cannot reach {scheduler} ({exc})",
                                 "'local' or the address of a running Dask scheduler, "
                                 "e.g. tcp://127.0.0.1:8786") from None
        with client:
            def run_dask(fn: Callable[[Any], Any], payloads: Sequence[Any]) -> Iterator[Any]:
                # pure=False: two payloads never share a key; a lost worker's task is
                # rescheduled by Dask on the others
                futs = [client.submit(_one_blas_thread_call, fn, p, pure=False)
                        for p in payloads]
                for fut in dask_completed(futs):
                    yield fut.result()

            where = client.dashboard_link or scheduler
            slots = n if cluster is not None else sum(client.nthreads().values())
            yield Engine(f"Dask at {client.scheduler.address} (dashboard {where})", run_dask,
                         slots)
    finally:
        if cluster is not None:
            cluster.close()


def _one_blas_thread_call(fn: Callable[[Any], Any], payload: Any) -> Any:
    """``fn(payload)`` with one BLAS thread (as in the local pool): runs on a Dask worker."""
    with threadpool_limits(1):
        return fn(payload)
