"""Stage 1, exact: numbers, instances and hypotheses, decided in exact arithmetic.

* :mod:`~certified.exact.rationals` — exact parsing of numbers and matrices; outward-
  rounded decimal output;
* :mod:`~certified.exact.linalg` — exact rational linear algebra (FLINT), inertia;
* :mod:`~certified.exact.arb_convert` — Arb balls ↔ exact rationals;
* :mod:`~certified.exact.spectrum` — the exact spectrum of V: isolation, dominance, φ₁;
* :mod:`~certified.exact.hypotheses` — :func:`classify`: one named, exact check per
  hypothesis of each theorem;
* :mod:`~certified.exact.instance` — :class:`Instance` and its JSON format;
* :mod:`~certified.exact.variant_spec` — the open variants' options;
* :mod:`~certified.exact.schema` — the JSON Schemas of instances, records, certificates.

Nothing here computes with balls on trajectories (that is :mod:`certified.enclose`).
"""
