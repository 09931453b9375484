"""Studies beside the pipeline: strategies, sweeps and audits.

* :mod:`~certified.studies.strategies` — hypothesis strategies inside and outside each
  theorem's hypotheses (public façade: :mod:`certified.strategies`);
* :mod:`~certified.studies.explore` — boundary maps: sweeps of sampled instances,
  resumable JSON lines;
* :mod:`~certified.studies.engine` — where a sweep's tasks run: local processes or Dask;
* :mod:`~certified.studies.audit` — counterexample records, their replay and verdicts;
* :mod:`~certified.studies.parallel` — worker pools with one BLAS thread each.
"""
