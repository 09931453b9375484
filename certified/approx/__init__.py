"""Approximate paths: no error bounds, and typed so (:mod:`~certified.approx.results`).

* :mod:`~certified.approx.midpoint` — the integrator's recurrences on mpmath midpoints;
* :mod:`~certified.approx.float64` — float64 RK4, the matrix exponential, Theorem 4.2's
  coordinate by simulation, the open variants.

Used for exploration, plots and as test oracles; never for a certified claim.
"""
