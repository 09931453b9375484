"""The checker's Taylor jets where the scores are large (Lemma C15): the shift column is
exactly 0, and far columns are bounded by their majorant series. Containment against the
producer's recurrences at 600–700 bits on the mpmath backend, and widths."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np

from certified import Instance
from certified.checker.balls import const, set_scale


def _producer_jets(inst: Instance, X0: list, t0: F, K: int, backend: str, bits: int) -> list:
    """The producer's jets Z_0 … Z_K at X0, as exact end points per coefficient (the
    mpmath backend at many bits is the reference; flint the producer's own arithmetic)."""
    from certified.enclose.arith import get_backend
    from certified.enclose.field import AttentionField

    bk = get_backend(backend)
    with bk.workprec(bits):
        Z = AttentionField(inst, bk, "z").jets(bk.array(X0), t0, K)
        return [[bk.bounds(x) for x in c.flat] for c in Z]


def test_jets_at_saturated_scores_keep_their_radii():
    """Where the scores are large (here ≈ 4000: Section 12.1's instance 21 near t = 3.2,
    V = I, QᵀK not symmetric), the shift column U_il = s_il − s_il is exactly 0 in both
    implementations of the recurrences (Lemmas I2 and C15). As the ball x − x it had
    radius 2·rad x, which the exp recurrence multiplied by the score scale at every order:
    the producer's order-30 radius at 140 bits was ≈ 2e58, and no defect step passed
    there. Both enclose the 600-bit mpmath reference, and both radii now grow by at most
    40 an order (measured: ≈ 30, the interval Jacobian's absolute size; 2000 before)."""
    from certified.checker.dynamics import Field
    from certified.studies.explore import family_instance

    base = family_instance("section-12.1", 21, n=3, d=2, seed=0)
    X0 = [[F("-0.65535229"), F("2.53753084")], [F("-0.66996506"), F("2.60590827")],
          [F("-0.6141734"), F("2.60781711")]]
    inst = Instance.create(V=base.V, Q=base.Q, K=base.K, X0=X0)
    t0, K = F(16, 5), 30
    refq = _producer_jets(inst, X0, t0, K, "mpmath", 600)
    prodq = _producer_jets(inst, X0, t0, K, "flint", 140)
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

    X0 = [[F(-243, 128)], [F(-51, 128)], [F(38, 128)], [F(115, 128)], [F(250, 128)]]
    inst = Instance.create(V=[[1]], Q=[[1], [1]], K=[[1], [2]], X0=X0)
    t0, K = F(3, 2), 70
    refq = _producer_jets(inst, X0, t0, K, "mpmath", 700)
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


def _units(x: F, P: int) -> int:
    return int(x * 2 ** P)


def test_far_columns_are_those_below_one_unit_by_the_margin():
    """_far_columns: hi U_0 < −(P ln 2 + 40), the leader excluded, None when none; a
    value beyond binary64 still compares (−inf is far, +inf is not)."""
    import math

    from certified.checker.dynamics import FAR_MARGIN, _far_columns

    P = 10
    edge = P * math.log(2) + FAR_MARGIN  # 46.93…
    vals = [[F(0), F(-47), F(-46)], [F(-10 ** 400), F(0), F(10 ** 400)],
            [F(-47), F(-47), F(0)]]
    Um0 = np.array([[_units(v, P) for v in row] for row in vals], dtype=object)
    ur0 = np.zeros((3, 3), dtype=object)
    far = _far_columns(Um0, ur0, np.array([0, 1, 2]), P)
    assert far.tolist() == [[False, True, False], [True, False, False], [True, True, False]]
    # the radius counts: −47 + 1 = −46 is above the edge
    ur0[0, 1] = _units(F(1), P)
    assert _far_columns(Um0, ur0, np.array([0, 1, 2]), P)[0, 1] == bool(-46 < -edge)
    # the leader column is never far, and no far entry gives None
    assert not _far_columns(Um0, np.zeros((3, 3), dtype=object), np.array([1, 0, 0]), P)[0, 1]
    assert _far_columns(np.zeros((3, 3), dtype=object), np.zeros((3, 3), dtype=object),
                        np.array([0, 1, 2]), P) is None
    assert -47 < -edge < -46


def test_far_start_bounds_exp_times_the_scale():
    """_far_start: F_0 ≥ e^{hi U_0}·2^P and within a relative 2^-40 of it; the smallest
    subnormal where hi/ln 2 + P < −1080; 0 off the far entries."""
    import mpmath

    from certified.checker.dynamics import _far_start

    P = 200
    # the last: hi/ln 2 + P ≈ −1000, above the subnormal branch (at (P + 1080)·7/10 = 896)
    his = [F(-200), F(-500), F(-(P + 1081)), F(-10 ** 6), F(-832)]
    Um0 = np.array([[_units(h, P) for h in his]], dtype=object)
    ur0 = np.array([[0, _units(F(1), P), 0, 0, 0]], dtype=object)  # radius 1 on the second
    far = np.array([[True, True, True, False, True]])
    out = _far_start(Um0, ur0, far, P)
    mpmath.mp.prec = 300
    for j, h in [(0, his[0]), (1, his[1]), (4, his[4])]:
        hi = F(_units(h, P) + int(ur0[0, j]), 2 ** P)
        true = mpmath.exp(mpmath.mpf(hi.numerator) / hi.denominator) * mpmath.mpf(2) ** P
        assert out[0, j] >= true and out[0, j] <= true * (1 + mpmath.mpf(2) ** -40), j
    # e^{-(P + 1081)}·2^P < 2^-1074: the smallest subnormal (either branch gives it)
    assert out[0, 2] == np.nextafter(0.0, 1.0)
    assert out[0, 3] == 0.0  # not far
    deep = _far_start(np.array([[_units(F(-10 ** 5), P)]], dtype=object),
                      np.array([[0]], dtype=object), np.array([[True]]), P)
    assert deep[0, 0] == np.nextafter(0.0, 1.0)
    # the cap: never above 10^-16 (a far entry is below e^-39 < 10^-16 anyway)
    capped = _far_start(np.array([[_units(F(0), P)]], dtype=object),
                        np.array([[0]], dtype=object), np.array([[True]]), P)
    assert 1e-16 <= capped[0, 0] <= np.nextafter(1e-16, 1.0)


def test_a_majorant_beyond_binary64_falls_back_to_the_plain_recurrences():
    """At scale 1000 (exact integer radii) and order 120, a far column's score coefficient
    leaves binary64's range: the majorant cannot be formed, and jets() computes the plain
    recurrences instead of stopping with an OverflowError (found by an independent review)."""
    from certified.checker.balls import ExactRadii, scaled
    from certified.checker.dynamics import Field, _FarOverflow

    X0 = [[F(-243, 128)], [F(-51, 128)], [F(38, 128)], [F(115, 128)], [F(250, 128)]]
    with scaled(1000):
        Z0 = np.array([[const(x) for x in row] for row in X0], dtype=object)
        field = Field(F(1), [[F(3)]], 5, "z")
        import pytest
        with pytest.raises(_FarOverflow):
            field._jets(Z0, F(3), 120, ExactRadii())
        got = field.jets(Z0, F(3), 120).all_exact()
        plain = field._jets(Z0, F(3), 120, ExactRadii(), majorant=False).all_exact()
        assert len(got) == 121
        assert [(x.m, x.r) for c in got for x in c.flat] == \
            [(x.m, x.r) for c in plain for x in c.flat]


def test_integer_balls_in_binary64_contain_and_are_tight():
    """_int_balls (Lemma C13): (m ± r)·2^-P for integer m, r as binary64 balls. Midpoints
    that are not binary64 numbers (2^60 + 1, 3^40) are rounded, and 4u|m| + η covers it:
    containment of both ends, and the radius no larger than r + 4u|m| + η, rounded up."""
    from fractions import Fraction

    import numpy as np

    from certified.checker.balls import ExactRadii
    from certified.checker.dynamics import _int_balls
    from certified.checker.fballs import ETA

    P = 70
    m = np.array([2 ** 60 + 1, -(3 ** 40), 5, 0], dtype=object)
    r = np.array([0, 7, 0, 3], dtype=object)
    got = _int_balls(m, r, P, ExactRadii())
    for i in range(4):
        lo = Fraction(int(m[i]) - int(r[i]), 2 ** P)
        hi = Fraction(int(m[i]) + int(r[i]), 2 ** P)
        assert Fraction(float(got.lo()[i])) <= lo and hi <= Fraction(float(got.hi()[i]))
        mf = abs(Fraction(float(got.m[i])))
        bound = Fraction(int(r[i]), 2 ** P) + 4 * Fraction(1, 2 ** 53) * mf + Fraction(ETA)
        assert Fraction(float(got.r[i])) <= bound * (1 + Fraction(1, 2 ** 48))
    assert got.r[2] >= ETA  # the underflow allowance is always there
