"""The checker's Taylor jets where the scores are large (Lemma C15): the shift column is
exactly 0, and far columns are bounded by their majorant series. Containment against the
producer's recurrences at 600–700 bits on the mpmath backend, and widths."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np

from certified import Instance
from certified.checker.balls import const, set_scale


def test_jets_at_saturated_scores_keep_their_radii():
    """Where the scores are large (here ≈ 4000: Section 12.1's instance 21 near t = 3.2,
    V = I, QᵀK not symmetric), the shift column U_il = s_il − s_il is exactly 0 in both
    implementations of the recurrences (Lemmas I2 and C15). As the ball x − x it had
    radius 2·rad x, which the exp recurrence multiplied by the score scale at every order:
    the producer's order-30 radius at 140 bits was ≈ 2e58, and no defect step passed
    there. Both enclose the 600-bit mpmath reference, and both radii now grow by at most
    40 an order (measured: ≈ 30, the interval Jacobian's absolute size; 2000 before)."""
    from certified.checker.dynamics import Field
    from certified.enclose.arith import get_backend
    from certified.enclose.field import AttentionField
    from certified.studies.explore import family_instance

    base = family_instance("section-12.1", 21, n=3, d=2, seed=0)
    X0 = [[F("-0.65535229"), F("2.53753084")], [F("-0.66996506"), F("2.60590827")],
          [F("-0.6141734"), F("2.60781711")]]
    inst = Instance.create(V=base.V, Q=base.Q, K=base.K, X0=X0)
    t0, K = F(16, 5), 30
    ref_bk = get_backend("mpmath")
    with ref_bk.workprec(600):
        ref = AttentionField(inst, ref_bk, "z").jets(ref_bk.array(X0), t0, K)
        refq = [[ref_bk.bounds(x) for x in c.flat] for c in ref]
    bk = get_backend("flint")
    with bk.workprec(140):
        prod = AttentionField(inst, bk, "z").jets(bk.array(X0), t0, K)
        prodq = [[bk.bounds(x) for x in c.flat] for c in prod]
    set_scale(180)
    Z0 = np.array([[const(x) for x in row] for row in X0], dtype=object)
    chk = Field(F(1), [list(r) for r in inst.B], 3, "z").jets(Z0, t0, K).all_exact()
    for k in range(K + 1):
        for (lo, hi), c, (rlo, rhi) in zip(prodq[k], chk[k].flat, refq[k]):
            assert lo <= rlo and rhi <= hi, k  # the reference inside the producer's ball
            assert c.lo_q() <= rlo and rhi <= c.hi_q(), k  # and inside the checker's
            assert hi - lo < 2 * F(40) ** k / 10 ** 38, k  # 140 bits: 2^-140 ≈ 7e-43
            assert c.hi_q() - c.lo_q() < 2 * F(40) ** k / 10 ** 50, k  # scale 2^-180


def test_far_columns_are_bounded_by_their_majorant():
    """Columns whose exponential is below one unit of the checker's scale (here
    e^{U_0} ≈ e^{-440} against 2^-232: d = 1, QᵀK = 3, t0 = 3/2) are fixed-point balls
    (0, 1 unit), and the plain exp recurrence multiplied that unit by the score's rate at
    every order. The majorant |E_k| ≤ e^{U_0}·M_k (Lemma C15) keeps them below a unit:
    both ways enclose the 600-bit mpmath reference, and the majorant's order-70 radius is
    at least 10^10 times smaller (measured: 10^13)."""
    from certified.checker.balls import ExactRadii
    from certified.checker.dynamics import Field
    from certified.enclose.arith import get_backend
    from certified.enclose.field import AttentionField

    X0 = [[F(-243, 128)], [F(-51, 128)], [F(38, 128)], [F(115, 128)], [F(250, 128)]]
    inst = Instance.create(V=[[1]], Q=[[1], [1]], K=[[1], [2]], X0=X0)
    t0, K = F(3, 2), 70
    ref_bk = get_backend("mpmath")
    with ref_bk.workprec(700):
        ref = AttentionField(inst, ref_bk, "z").jets(ref_bk.array(X0), t0, K)
        refq = [[ref_bk.bounds(x) for x in c.flat] for c in ref]
    set_scale(232)
    Z0 = np.array([[const(x) for x in row] for row in X0], dtype=object)
    field = Field(F(1), [[F(3)]], 5, "z")
    with_m = field._jets(Z0, t0, K, ExactRadii()).all_exact()
    without = field._jets(Z0, t0, K, ExactRadii(), majorant=False).all_exact()
    assert [x.m for x in with_m[1].flat] == [x.m for x in without[1].flat]
    for k in range(K + 1):
        for a, b, (lo, hi) in zip(with_m[k].flat, without[k].flat, refq[k]):
            assert a.lo_q() <= lo and hi <= a.hi_q(), k
            assert b.lo_q() <= lo and hi <= b.hi_q(), k
    worst = [max(x.r for x in c.flat) for c in (with_m[K], without[K])]
    assert worst[0] * 10 ** 10 < worst[1], worst
