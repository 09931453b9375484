"""Stage 3, tail lemmas: from an enclosure at a finite time T to all t ≥ T.

One lemma of ``proofs_notes/tail.md`` (or ``audits.md``) per module; each checks its
hypotheses on exact rational boxes (:mod:`~certified.tail.boxes`) and returns a result
following :class:`~certified.tail.protocol.LemmaResult`, or None with the reason:

* :mod:`~certified.tail.t4_leader_follower` — Lemma T4 (V = λI, λ > 0, any B);
* :mod:`~certified.tail.t6_energy` — Lemma T6 (V = −μI, B ≻ 0: an energy bound);
* :mod:`~certified.tail.t7_projected` — Lemma T7 (Theorem 4.2's coordinate φ₁*);
* :mod:`~certified.tail.t8_paranormal` — Lemma T8 (Theorem 5.2, paranormal V);
* :mod:`~certified.tail.g1_hull` — Lemma G1 (hull vertices on boxes);
* :mod:`~certified.tail.s0_stationary`, :mod:`~certified.tail.s1_symmetric` — Lemmas S0–S2
  (stationary and symmetric configurations, solved to t = ∞ exactly).

Nothing here integrates.
"""
