"""The checker's fixed-point balls and directed mpmath helpers (``certified.checker.balls``,
Lemmas C1 and C1f of proofs_notes/checker.md) against exact oracles: Fractions for the ring
operations, reciprocals, square roots and matrix products, mpmath at 300 bits for exp.
Every test checks containment *and* width (in units 2^-P of the scale)."""

from __future__ import annotations

from fractions import Fraction as F
from math import isqrt

import mpmath
import mpmath.libmp as L
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from certified.checker import balls as B
from certified.checker.balls import Ball, BallError, const, interval, scale, scaled

P0 = 64


def unit() -> F:
    return F(1, 1 << scale())


def rationals(lo: int = -10 ** 6, hi: int = 10 ** 6) -> st.SearchStrategy:
    return st.builds(F, st.integers(lo, hi), st.integers(1, 10 ** 4))


def balls() -> st.SearchStrategy:
    """Balls at the scale P0 with midpoints up to 2^20 and radii up to 2^10 (in value)."""
    return st.builds(Ball, st.integers(-(1 << (P0 + 20)), 1 << (P0 + 20)),
                     st.one_of(st.just(0), st.integers(0, 1 << (P0 + 10))))


def ends(b: Ball) -> tuple[F, F]:
    return b.lo_q(), b.hi_q()


def contains_q(b: Ball, x: F) -> bool:
    return b.lo_q() <= x <= b.hi_q()


# -- construction and reading ------------------------------------------------------------

@given(rationals(), rationals())
def test_const_and_interval_are_the_tightest_scaled_balls(p, q):
    with scaled(P0):
        b = const(p)
        assert contains_q(b, p) and b.r <= 1
        assert (b.r == 0) == ((p * (1 << P0)).denominator == 1)
        lo, hi = min(p, q), max(p, q)
        iv = interval(lo, hi)
        assert contains_q(iv, lo) and contains_q(iv, hi)
        assert iv.hi_q() - iv.lo_q() <= hi - lo + 4 * unit()


def test_from_ends_lo_hi_and_reading():
    with scaled(P0):
        b = Ball.from_ends(-3, 8)
        assert (b.lo(), b.hi()) == (-3, 8) or (b.lo() <= -3 and b.hi() >= 8 and b.r == 6)
        assert b.m == 2 and b.r == 6
        assert Ball.from_ends(5, 5).r == 0 and Ball.from_ends(5, 5).m == 5
        c = Ball(10, 3)
        assert (c.lo(), c.hi(), c.abs_hi()) == (7, 13, 13)
        assert Ball(-10, 3).abs_hi() == 13
        assert c.lo_q() == F(7, 1 << P0) and c.hi_q() == F(13, 1 << P0)
        assert const(F(3, 4)).mid_float() == 0.75
        assert B.one().m == 1 << P0 and B.one().r == 0
    with scaled(1200):  # the slow path of mid_float beyond binary64's exponent range
        assert const(F(-5, 2)).mid_float() == -2.5
        assert Ball(1 << 1300, 0).mid_float() == 2.0 ** 100


def test_contains_intersect_union():
    a, b = Ball(10, 5), Ball(12, 2)
    assert a.contains(b) and not b.contains(a)
    assert a.contains(Ball(5, 0)) and not a.contains_interior(Ball(5, 0))
    assert a.contains_interior(b) and not a.contains_interior(Ball(13, 2))
    assert a.contains(a) and not a.contains_interior(a)
    i = a.intersect(Ball(16, 4))  # [5, 15] ∩ [12, 20] = [12, 15]
    assert (i.lo(), i.hi()) in ((12, 15), (11, 15), (12, 16)) and i.r <= 2
    assert i.lo() <= 12 and i.hi() >= 15
    touching = a.intersect(Ball(20, 5))  # [5, 15] ∩ [15, 25] = {15}
    assert touching.lo() <= 15 <= touching.hi() and touching.r == 0
    with pytest.raises(BallError, match="disjoint"):
        a.intersect(Ball(30, 5))
    u = a.union(Ball(30, 5))
    assert u.lo() <= 5 and u.hi() >= 35 and u.r <= 16


def test_scale_switching_restores_the_previous_scale():
    before = scale()
    with scaled(77):
        assert scale() == 77
        with scaled(99):
            assert scale() == 99
        assert scale() == 77
    assert scale() == before
    with pytest.raises(RuntimeError):
        with scaled(55):
            raise RuntimeError
    assert scale() == before
    B.set_scale(123)
    try:
        assert scale() == 123 and B.one().m == 1 << 123
    finally:
        B.set_scale(before)


def test_repr_shows_the_ends():
    with scaled(P0):
        assert repr(interval(F(1, 4), F(3, 4))) == "[0.25, 0.75]"
        assert B._show(F(1, 3)) == "0." + "3" * 25


# -- ring operations ---------------------------------------------------------------------

@given(balls(), balls())
def test_sums_and_differences_are_exact(a, b):
    with scaled(P0):
        s, d = a + b, a - b
        assert (s.m, s.r) == (a.m + b.m, a.r + b.r)
        assert (d.m, d.r) == (a.m - b.m, a.r + b.r)
        assert ((-a).m, (-a).r) == (-a.m, a.r)
        assert (a + 0) is a and (0 + a) is a
        total = sum([a, b], Ball(0, 0))
        assert (total.m, total.r) == (s.m, s.r)


def test_unsupported_operands_are_refused():
    a = Ball(3, 1)
    for bad in (1.5, "x", 2):
        if bad == 2:
            continue
        with pytest.raises(TypeError):
            a + bad
        with pytest.raises(TypeError):
            a - bad
        with pytest.raises(TypeError):
            a * bad
    with pytest.raises(TypeError):
        a + 1  # only the integer 0 is an additive identity
    with pytest.raises(TypeError):
        a / 0
    with pytest.raises(TypeError):
        a / -2
    with pytest.raises(TypeError):
        a / 1.5


def _corners(a: Ball, b: Ball, op) -> list[F]:
    return [op(x, y) for x in ends(a) for y in ends(b)]


@given(balls(), balls())
def test_products_contain_every_corner_and_are_tight(a, b):
    with scaled(P0):
        p = a * b
        vals = _corners(a, b, lambda x, y: x * y)
        lo, hi = min(vals), max(vals)
        assert p.lo_q() <= lo and hi <= p.hi_q()
        if a.r == 0 or b.r == 0:
            # midpoint–radius form: the exact radius, one unit for the midpoint's floor
            exact_rad = (abs(a.m) * b.r + a.r * abs(b.m) + a.r * b.r) * unit() ** 2
            assert p.hi_q() - p.lo_q() <= 2 * exact_rad + 4 * unit()
            if a.r == 0 and b.r == 0 and (a.m * b.m) % (1 << P0) == 0:
                assert p.r == 0  # an exact product is not widened
        else:  # both wide: the end-point product, one rounding outward each side
            assert p.hi_q() - p.lo_q() <= hi - lo + 3 * unit()


@given(balls(), st.integers(-50, 50))
def test_integer_multiples_are_exact(a, k):
    p = a * k
    assert (p.m, p.r) == (a.m * k, a.r * abs(k))
    q = k * a
    assert (q.m, q.r) == (p.m, p.r)


@given(balls())
def test_reciprocal_contains_both_ends_or_refuses_zero(a):
    with scaled(P0):
        if a.lo() <= 0 <= a.hi():
            with pytest.raises(BallError, match="contains 0"):
                a.recip()
            return
        r = a.recip()
        lo, hi = sorted((1 / a.lo_q(), 1 / a.hi_q()))
        assert r.lo_q() <= lo and hi <= r.hi_q()
        assert r.hi_q() - r.lo_q() <= hi - lo + 3 * unit()


def test_reciprocal_at_the_edges_of_zero():
    with scaled(P0):
        for b in (Ball(0, 0), Ball(5, 5), Ball(-5, 5)):  # 0 is an end
            with pytest.raises(BallError):
                b.recip()
        r = Ball(6, 5).recip()  # [1, 11] units: 1/x ∈ [2^P/11, 2^P] units... in value
        assert contains_q(r, 1 / F(1, 1 << P0)) and contains_q(r, 1 / F(11, 1 << P0))


@given(balls(), balls())
def test_quotients(a, b):
    with scaled(P0):
        if b.lo() <= 0 <= b.hi():
            with pytest.raises(BallError):
                a / b
            return
        q = a / b
        vals = _corners(a, b, lambda x, y: x / y)
        assert q.lo_q() <= min(vals) and max(vals) <= q.hi_q()


@given(balls(), st.integers(1, 1000))
def test_division_by_a_positive_integer(a, k):
    with scaled(P0):
        q = a / k
        lo, hi = a.lo_q() / k, a.hi_q() / k
        assert q.lo_q() <= lo and hi <= q.hi_q()
        assert q.hi_q() - q.lo_q() <= hi - lo + 3 * unit()


@given(st.integers(0, 1 << (P0 + 30)), st.integers(0, 1 << (P0 + 10)))
def test_square_roots(m, r):
    with scaled(P0):
        b = Ball(m, r)
        if b.lo() < 0:
            with pytest.raises(BallError, match="below 0"):
                b.sqrt()
            return
        s = b.sqrt()
        for x in ends(b):  # √x ∈ s ⟺ (lo(s) ≤ 0 or lo(s)² ≤ x) and x ≤ hi(s)², hi(s) ≥ 0
            assert s.lo_q() <= 0 or s.lo_q() ** 2 <= x
            assert s.hi_q() >= 0 and x <= s.hi_q() ** 2
        # tight: ⌊√(lo·2^P)⌋ and ⌈√(hi·2^P)⌉ in scaled integers, then one more unit at
        # most on each side where the midpoint–radius form rounds an odd width
        assert s.lo() >= -1 and (s.lo() + 2) ** 2 > b.lo() << P0
        assert s.hi() <= 1 or (s.hi() - 2) ** 2 < b.hi() << P0


def test_square_root_of_exact_squares_is_exact():
    with scaled(P0):
        for k in (0, 1, 3, 1 << 20):
            x = const(F(k * k))
            s = x.sqrt()
            assert s.lo_q() == k and s.hi_q() == k
        assert Ball(0, 0).sqrt().r == 0
        with pytest.raises(BallError):
            Ball(-1, 0).sqrt()


# -- exp ---------------------------------------------------------------------------------

@given(st.integers(-60, 60), st.integers(1, 64), st.integers(0, 1 << 40))
def test_exp_contains_and_is_tight(num, den, rad):
    with scaled(P0), mpmath.workprec(300):
        b = Ball((num << P0) // den, rad)
        e = b.exp()
        for x in ends(b):
            v = mpmath.exp(mpmath.mpf(x.numerator) / x.denominator)
            assert mpmath.mpf(e.lo_q().numerator) / e.lo_q().denominator <= v
            assert v <= mpmath.mpf(e.hi_q().numerator) / e.hi_q().denominator
        lo = mpmath.exp(mpmath.mpf(b.lo_q().numerator) / b.lo_q().denominator)
        hi = mpmath.exp(mpmath.mpf(b.hi_q().numerator) / b.hi_q().denominator)
        width = mpmath.mpf((e.hi_q() - e.lo_q()).numerator) / (e.hi_q() - e.lo_q()).denominator
        # mpmath's directed exp at P + 32 bits (relative), then the floor/ceil to units
        assert width <= hi - lo + 3 * mpmath.mpf(2) ** -P0 + hi * mpmath.mpf(2) ** -(P0 + 30)


def test_exp_at_the_argument_limit():
    with scaled(40):
        ok = const(F(B.EXP_ARG_MAX))
        assert ok.exp().hi() > 0  # exactly at the limit: allowed
        with pytest.raises(BallError, match="too wide"):
            Ball(ok.m + 1, 0).exp()


# -- relative precision: mpmath with directed rounding -----------------------------------

def _q(x: tuple) -> F:
    sign, man, exp, _ = x
    v = F(man) * F(2) ** exp
    return -v if sign else v


@given(rationals(1, 10 ** 9), rationals(1, 10 ** 9))
def test_directed_mpf_helpers_bracket_the_exact_values(p, q):
    with scaled(P0):
        rel = F(1, 1 << (P0 - 2))
        up, dn = B.mpf_up(p), B.mpf_down(p)
        assert _q(dn) <= p <= _q(up) and _q(up) - _q(dn) <= rel * p
        a, b = B.mpf_up(p), B.mpf_up(q)
        for op, exact in ((B.mul_up, _q(a) * _q(b)), (B.mul_down, _q(a) * _q(b))):
            got = _q(op(a, b))
            assert (got >= exact) if op is B.mul_up else (got <= exact)
            assert abs(got - exact) <= rel * exact
        three = _q(B.mul_up(a, b, a))
        assert three >= _q(a) ** 2 * _q(b) and three <= (1 + 2 * rel) * _q(a) ** 2 * _q(b)
        assert _q(B.mul_down(a, b, a)) <= _q(a) ** 2 * _q(b)
        assert _q(B.mul_down(a, b, a)) >= (1 - 2 * rel) * _q(a) ** 2 * _q(b)
        assert _q(B.mul_up(a)) == _q(a) and _q(B.mul_down(b)) == _q(b)
        ex = _q(a) / _q(b)
        assert ex <= _q(B.div_up(a, b)) <= ex * (1 + rel)
        assert ex * (1 - rel) <= _q(B.div_down(a, b)) <= ex
        s = _q(a) + _q(b)
        assert s <= _q(B.add_up(a, b)) <= s * (1 + rel)
        assert s * (1 - rel) <= _q(B.add_down(a, b)) <= s
        assert B.le_q(dn, p) and not B.le_q(B.mpf_up(p + p * rel * 8), p)


@given(st.integers(-3000, 3000))
def test_exp_up_and_down(k):
    with scaled(P0), mpmath.workprec(400):
        x = B.mpf_up(F(k, 7))
        v = mpmath.exp(mpmath.mpf(x))
        up, dn = mpmath.mpf(B.exp_up(x)), mpmath.mpf(B.exp_down(x))
        assert dn <= v <= up
        assert up - dn <= v * mpmath.mpf(2) ** (-(P0 - 2))


def test_mpf_fraction():
    with scaled(P0):
        cap = F(10)
        assert B.mpf_fraction(B.mpf_up(F(3, 8)), cap) == F(3, 8)
        assert B.mpf_fraction(B.mpf_up(F(12)), cap) == cap
        assert B.mpf_fraction(L.fzero, cap) == 0
        tiny = L.from_man_exp(3, -1_000_001)
        assert B.mpf_fraction(tiny, cap) == cap  # too small to write out: the cap
        edge = L.from_man_exp(3, -1_000_000)
        assert B.mpf_fraction(edge, cap) == F(3, 1 << 1_000_000)
        big = L.from_man_exp(5, 2)
        assert B.mpf_fraction(big, F(100)) == 20


def test_scaled_floor_and_ceiling_of_dyadics():
    # _at_scale(v, e): ⌊v·2^e·2^P⌋ or ⌈…⌉, shifting either way
    with scaled(10):
        for v, e in ((1, -12), (-1, -12), (5, 0), (-7, -30), (0, -3), (3, 4), (-3, -10)):
            exact = F(v) * F(2) ** (e + 10)
            assert B._at_scale(v, e, up=False) == exact.__floor__()
            assert B._at_scale(v, e, up=True) == exact.__ceil__()
        assert B._signed_man_exp(L.from_man_exp(-3, 4)) == (-3, 4)
        assert B._signed_man_exp(L.fzero) == (0, 0)
        for bad in (L.finf, L.fninf, L.fnan):
            with pytest.raises(BallError, match="non-finite"):
                B._signed_man_exp(bad)


def test_ball_exp_of_a_wide_ball_reaching_far_below_zero():
    # [−2^40, 30]: the lower end is below −(P + 2), the upper one is summed and, with
    # e^30 > 2^32, shifted left into the scale
    with scaled(20), mpmath.workprec(300):
        e = Ball.from_ends(-(1 << 60), 30 << 20).exp()
        v = mpmath.exp(30) * 2 ** 20
        assert e.lo() <= 0 and v <= e.hi() <= v * (1 + mpmath.mpf(2) ** -40) + 1


@given(st.builds(F, st.integers(0, 10 ** 12), st.integers(1, 10 ** 6)), st.integers(1, 200))
def test_sqrt_up(q, bits):
    s = B.sqrt_up(q, bits)
    assert s * s > q
    assert s - F(1, q.denominator * 2 ** bits) <= F(isqrt(q.numerator * q.denominator * 4 ** bits),
                                                     q.denominator * 2 ** bits)
    # within 1/(d·2^bits) of √q: (s − 1/(d 2^bits))² ≤ q
    assert (s - F(1, q.denominator * 2 ** bits)) ** 2 <= q


# -- matrix products with binary64 or integer radius bounds -------------------------------

def _ball_matrix(rows, cols, data, P) -> np.ndarray:
    out = np.empty((rows, cols), dtype=object)
    out.flat[:] = [Ball(m, r) for m, r in data]
    return out


@pytest.mark.parametrize("P", [64, 300, 800])
@given(st.lists(st.tuples(st.integers(-(1 << 90), 1 << 90), st.integers(0, 1 << 70)),
                min_size=12, max_size=12))
def test_bdot_contains_the_point_products_and_is_tight(P, data):
    with scaled(P):
        A = _ball_matrix(2, 3, data[:6], P)
        Bm = _ball_matrix(3, 2, data[6:], P)
        C = B.bdot(A, Bm)
        assert C.shape == (2, 2)
        for i in range(2):
            for j in range(2):
                mid = sum(A[i, k].m * Bm[k, j].m for k in range(3))
                rad = sum(abs(A[i, k].m) * Bm[k, j].r + A[i, k].r * abs(Bm[k, j].m)
                          + A[i, k].r * Bm[k, j].r for k in range(3))
                u2 = F(1, 1 << (2 * P))
                lo, hi = (mid - rad) * u2, (mid + rad) * u2  # ⊇ every point product
                assert C[i, j].lo_q() <= lo and hi <= C[i, j].hi_q()
                # the binary64 radius bounds cost a relative 2^-40 at most, plus units
                assert C[i, j].hi_q() - C[i, j].lo_q() <= (hi - lo) * (1 + F(1, 2 ** 40)) + \
                    8 * F(1, 1 << P) * (1 + (1 << max(0, P - 200)) * F(1, 1 << P) * 0)


def test_bdot_matrix_vector_and_point_balls():
    with scaled(64):
        A = np.array([[const(F(1, 3)), const(F(2))], [const(F(-5)), const(F(1, 7))]],
                     dtype=object)
        v = np.array([const(F(3)), const(F(-1, 2))], dtype=object)
        w = B.bdot(A, v)
        assert w.shape == (2,)
        assert contains_q(w[0], F(1, 3) * 3 - 1) and contains_q(w[1], F(-15) - F(1, 14))
        assert all(x.r <= 8 for x in w)


def test_with_radii_falls_back_to_exact_integers():
    seen = []

    def compute(R):
        seen.append(type(R).__name__)
        if isinstance(R, B.FloatRadii):
            raise B.RadiusOverflow("test")
        return "exact"
    with scaled(100):
        assert B.with_radii(compute) == "exact"
    assert seen == ["FloatRadii", "ExactRadii"]
    seen.clear()
    with scaled(B.FLOAT_MAX_SCALE + 1):
        assert B.with_radii(compute) == "exact"
    assert seen == ["ExactRadii"]
    seen.clear()
    with scaled(B.FLOAT_MAX_SCALE):
        B.with_radii(lambda R: seen.append(type(R).__name__))
    assert seen == ["FloatRadii"]


def test_bdot_beyond_binary64_uses_integer_radii():
    # midpoints of 2^1100 units at P = 64 leave binary64: the product is still enclosed
    with scaled(64):
        A = np.array([[Ball(1 << 1100, 1 << 1000)]], dtype=object)
        Bm = np.array([[Ball(3 << 64, 1)]], dtype=object)
        C = B.bdot(A, Bm)[0, 0]
        mid, rad = (1 << 1100) * (3 << 64), (1 << 1100) + (1 << 1000) * (3 << 64) + (1 << 1000)
        u2 = F(1, 1 << 128)
        assert C.lo_q() <= (mid - rad) * u2 and (mid + rad) * u2 <= C.hi_q()
        assert C.hi_q() - C.lo_q() <= 2 * rad * u2 + 4 * unit()


class TestFloatRadii:
    """Lemma C1f: each operation's binary64 result is ≥ the exact one, within a few
    roundings, and conversions back to integers are upper bounds."""

    def test_mag_and_to_ints_are_upper_bounds(self):
        with scaled(300):
            R = B.FloatRadii()
            assert R.sigma == 100
            m = np.array([12345678901234567890123 << 90, -(7 << 200), 0], dtype=object)
            f = R.mag(m)
            back = R.to_ints(f)
            for x, y in zip(m, back):  # bounds of |m|, in units again (σ undone)
                assert y >= abs(x) and y <= abs(x) * (1 + F(1, 2 ** 48)) + 2 ** 100
            with pytest.raises(B.RadiusOverflow):
                R.to_ints(np.array([np.inf]))
            with pytest.raises(B.RadiusOverflow):
                R.check(np.array([1.0, np.nan]))
            R.check(np.array([1.0, 2.0]))
        with scaled(64):
            R = B.FloatRadii()
            assert R.sigma == 0
            huge = np.array([1 << 1100], dtype=object)
            with pytest.raises(B.RadiusOverflow):
                R.mag(huge)

    def test_mag_beyond_float_range_within_sigma(self):
        with scaled(700):  # σ = 500: |m| ≈ 2^1500 is beyond binary64 before the shift
            R = B.FloatRadii()
            m = np.array([(1 << 1500) + 12345], dtype=object)
            f = R.mag(m)
            assert F(float(f[0])) * (1 << 500) >= (1 << 1500) + 12345
            assert F(float(f[0])) <= F(1 << 1000) * (1 + F(1, 2 ** 45))

    @pytest.mark.parametrize("P", [64, 350])
    def test_arithmetic_is_rounded_up(self, P):
        with scaled(P):
            R, X = B.FloatRadii(), B.ExactRadii()
            a = np.array([3.0, 1e10, 2.0 ** 60 + 1024], dtype=np.float64)
            b = np.array([7.0, 3.0, 5.0], dtype=np.float64)
            exact = lambda v: [F(x) for x in np.ravel(v)]
            assert all(g >= F(x) + F(y) for g, x, y in zip(exact(R.add(a, b)), a, b))
            assert F(float(R.dot(a, b))) >= sum(F(x) * F(y) for x, y in zip(a, b))
            ps = R.prod_sum(a.reshape(3, 1), b.reshape(3, 1))
            assert F(float(ps[0])) >= sum(F(x) * F(y) for x, y in zip(a, b))
            assert F(float(R.sum(a, 0))) >= sum(F(x) for x in a)
            w = np.array([2, 3, 4], dtype=object)
            assert all(F(g) >= F(x) * y for g, x, y in zip(R.mul_int(a, w), a, w))
            for s in (3, 70):
                got = R.shift_up(a, s)
                for g, x in zip(got, a):
                    # ⌈x·2^{2σ}/2^s⌉ + 1 units, in units of 2^σ
                    need = F(-((-int(F(x) * 2 ** (2 * R.sigma)).__floor__()) >> s) + 1,
                             2 ** R.sigma)
                    assert F(g) >= need and F(g) <= need * (1 + F(1, 2 ** 40)) + 4
            for k in (1, 3, 1000):
                got = R.div_up(a, k)
                for g, x in zip(got, a):
                    need = F(-((-int(F(x) * 2 ** R.sigma)) // k) + 1, 2 ** R.sigma)
                    assert F(g) >= need and F(g) <= need * (1 + F(1, 2 ** 40)) + 4
            # exact radii: integers, no rounding
            ai = np.array([3, 10 ** 30, 5], dtype=object)
            bi = np.array([7, 3, 1], dtype=object)
            assert list(X.add(ai, bi)) == [10, 10 ** 30 + 3, 6]
            assert X.dot(ai, bi) == 21 + 3 * 10 ** 30 + 5
            assert list(X.shift_up(ai, 2)) == [2, 10 ** 30 // 4 + 1 + (10 ** 30 % 4 > 0), 3]
            assert list(X.div_up(ai, 3)) == [2, -((-10 ** 30) // 3) + 1, 3]
            assert list(X.mul_int(ai, bi)) == [21, 3 * 10 ** 30, 5]
            assert X.sum(ai, 0) == 10 ** 30 + 8
            assert list(X.prod_sum(ai.reshape(3, 1), bi.reshape(3, 1))) == [21 + 3 * 10 ** 30 + 5]
            assert list(X.mag(np.array([-4, 5], dtype=object))) == [4, 5]
            assert X.of_ints(ai) is ai and X.to_ints(ai) is ai
            assert X.zeros((2,)).dtype == object and R.zeros((2,)).dtype == np.float64
            X.check(ai)

    def test_absolute_scales_to_values(self):
        with scaled(300):
            R, X = B.FloatRadii(), B.ExactRadii()
            assert float(R.absolute(np.array([2.0 ** 10]), 300)[0]) == 2.0 ** (10 + 100 - 300)
            assert float(X.absolute(np.array([1 << 10], dtype=object), 300)[0]) == 2.0 ** -290


# -- targeted cases (from mutation testing: each fails if the rule it names changes) -----

def test_contains_needs_both_ends():
    a = Ball(10, 5)                       # [5, 15]
    assert not a.contains(Ball(14, 3))    # [11, 17]: the upper end is outside
    assert not a.contains(Ball(6, 3))     # [3, 9]: the lower end is outside
    assert not a.contains_interior(Ball(8, 3))  # [5, 11]: touches the lower end


def test_a_product_off_the_scale_by_one_bit_is_rounded():
    # m1·m2 = 2^P + 1: the scaled value 1 + 2^-P is not a multiple of the unit, so the
    # floor of the midpoint must be paid for with a radius unit
    with scaled(P0):
        p = Ball((1 << P0) + 1, 0) * Ball(1, 0)
        assert contains_q(p, F((1 << P0) + 1, 1 << (2 * P0)))
        assert p.r == 1
        q = Ball(1 << P0, 0) * Ball(3 << P0, 0)  # exactly 3 at the scale: no rounding unit
        assert (q.m, q.r) == (3 << P0, 0)


@pytest.mark.parametrize("bad, message", [
    (lambda: Ball(0, 0).recip(), "a divisor ball contains 0"),
    (lambda: Ball(-1, 0).sqrt(), "square root of a ball reaching below 0"),
    (lambda: Ball(0, 1).intersect(Ball(10, 1)), "disjoint enclosures of one quantity"),
    (lambda: B._signed_man_exp(L.finf), "mpmath returned a non-finite value"),
])
def test_ball_errors_say_what_failed(bad, message):
    with scaled(P0), pytest.raises(BallError) as err:
        bad()
    assert str(err.value) == message


def test_exp_beyond_the_argument_limit_says_so():
    with scaled(P0), pytest.raises(BallError) as err:
        const(F(B.EXP_ARG_MAX + 1)).exp()
    assert str(err.value) == "exp of an argument up to 6.55e+04 (> 2^16): the enclosure is too wide"


@given(rationals(-10 ** 9, -1), rationals(-10 ** 9, 10 ** 9))
def test_directed_helpers_on_negative_values(p, q):
    # mpmath's default rounding is toward zero, which is the floor only for positive values
    with scaled(P0):
        assert _q(B.mpf_down(p)) <= p <= _q(B.mpf_up(p))
        a, b = B.mpf_down(p), B.mpf_up(q)
        s = _q(a) + _q(b)
        assert _q(B.add_down(a, b)) <= s <= _q(B.add_up(a, b))


def test_directed_results_are_rounded_to_the_scale():
    # P significant bits: an exact product or sum of two P-bit numbers would have more
    with scaled(40):
        a, b = B.mpf_up(F(1, 3)), B.mpf_up(F(1, 7))
        for r in (B.mul_up(a, b), B.mul_down(a, b), B.add_up(a, L.from_man_exp(1, -200)),
                  B.add_down(a, L.from_man_exp(1, -200)), B.div_up(a, b), B.div_down(a, b)):
            assert r[3] <= 40


def test_exact_radii_sum_along_an_axis():
    X = B.ExactRadii()
    a = np.array([[1, 2], [3, 4]], dtype=object)
    assert list(X.sum(a, 0)) == [4, 6] and list(X.sum(a, 1)) == [3, 7]
    R = B.FloatRadii()
    f = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert list(R.sum(f, 0)) == list(B._up(np.array([4.0, 6.0]), 2))
    assert list(R.sum(f, 1)) == list(B._up(np.array([3.0, 7.0]), 2))


class TestLemmaC1fConstants:
    """The inflations of Lemma C1f, value for value: one rounding of a sum or a product,
    L + 2 for a dot product of length L, ⌈·⌉ + 1 for a rescaling, the σ-unit margins."""

    def test_up(self):
        for x, d in ((1.0, 0), (3.0, 1), (2.0 ** -500, 7)):
            assert B._up(np.array([x]), d)[0] == x * (1.0 + (d + 2) * 2.0 ** -51)
        # at least one rounding to nearest of each of d steps: (1 + 2^-53)^d < 1 + (d+2)2^-51
        assert B._up(np.array([1.0]), 0)[0] > 1.0 + 2.0 ** -51

    def test_operations(self):
        with scaled(64):
            R = B.FloatRadii()  # σ = 0
            a, b = np.array([3.0, 5.0]), np.array([7.0, 11.0])
            assert list(R.add(a, b)) == list(B._up(a + b, 1))
            assert R.dot(a, b) == B._up(np.array(a.dot(b)), 2 + 2)
            A = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
            assert list(R.dot(A, np.array([1.0, 1.0, 1.0]))) == list(B._up(A.sum(axis=1), 3 + 2))
            col = np.array([[1.0], [2.0], [3.0]])
            row = np.array([[1.0, 10.0]])
            assert R.prod_sum(col, row).tolist() == B._up((col * row).sum(axis=0), 3 + 2).tolist()
            assert list(R.mul_int(a, np.array([2, 3], dtype=object))) == list(
                B._up(np.array([6.0, 15.0]), 2))
            assert list(R.shift_up(np.array([10.0]), 2)) == list(B._up(np.array([4.0]), 1))
            assert list(R.div_up(np.array([10.0]), 3)) == list(
                B._up(np.ceil(B._up(np.array([10.0 / 3.0]), 1)) + 1.0, 1))
            assert list(R.mag(np.array([5, -7], dtype=object))) == list(
                B._up(np.array([5.0, 7.0]), 1))
            assert list(R.to_ints(np.array([2.5, 3.0]))) == [3, 4]
        with scaled(300):
            R = B.FloatRadii()  # σ = 100: the unit margins
            x = np.array([2.0 ** 40])
            assert list(R.shift_up(x, 150)) == list(
                B._up(np.ldexp(x, -50) + (2 + 2.0 ** -20) * 2.0 ** -100, 1))
            assert list(R.div_up(x, 3)) == list(
                B._up(B._up(x / 3.0, 1) + 2 * 2.0 ** -100, 1))

    def test_overflow_messages(self):
        with scaled(64):
            R = B.FloatRadii()
            for call, msg in ((lambda: R.to_ints(np.array([np.inf])), "a radius bound beyond binary64"),
                              (lambda: R.check(np.array([np.nan])), "a radius bound beyond binary64"),
                              (lambda: R.mag(np.array([1 << 1100], dtype=object)),
                               "a midpoint beyond binary64")):
                with pytest.raises(B.RadiusOverflow) as err:
                    call()
                assert str(err.value) == msg


def test_ball_products_on_integer_arrays():
    # ExactRadii.ball_dot / ball_conv: the midpoints summed exactly and floored, the
    # radius terms |a|s + r|b| + rs summed and rounded up with one unit (Lemma C1)
    with scaled(8):
        X = B.ExactRadii()
        am = np.array([[300, -5]], dtype=object)
        ar = np.array([[2, 1]], dtype=object)
        bm = np.array([[7], [600]], dtype=object)
        br = np.array([[0], [3]], dtype=object)
        m, r = X.ball_dot(am, abs(am), ar, bm, abs(bm), br)
        assert m[0, 0] == (300 * 7 - 5 * 600) >> 8
        rad = 300 * 0 + 2 * 7 + 2 * 0 + 5 * 3 + 1 * 600 + 1 * 3
        assert r[0, 0] == -((-rad) >> 8) + 1
        cm, cr = X.ball_conv(am.T, abs(am.T), ar.T, bm, abs(bm), br)
        assert list(cm) == [(300 * 7 - 5 * 600) >> 8]
        assert list(cr) == [-((-rad) >> 8) + 1]
