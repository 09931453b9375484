"""Stage 2, enclose: validated integration.

* :mod:`~certified.enclose.arith` — the ball-arithmetic protocol (Arb and mpmath
  backends) and its containment contract;
* :mod:`~certified.enclose.field` — the vector fields (x, z, discrete maps), their Taylor
  jets and Jacobians;
* :mod:`~certified.enclose.lohner_set` — the set c + A·r and its enclosure contract;
* :mod:`~certified.enclose.stepper` — one validated step, returning its parts by name;
* :mod:`~certified.enclose.driver` — :func:`enclose_trajectory`: steps, precision
  escalation, ``certified_until`` and why a run stopped;
* :mod:`~certified.enclose.deadline` — the outer wall-clock cap, checked cooperatively;
* :mod:`~certified.enclose.variant_field` — the open variants' certified fields.

Lemmas I1–I11 and V1 in ``proofs_notes/integrator.md``. Nothing here judges a limit.
"""
