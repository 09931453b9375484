"""The checker's exp, ln 2 and π on integers (``certified.checker.elementary``, Lemma C1e)
against mpmath at 3000 bits: containment *and* width, on arguments from 2^-400 to 10^70,
and on the case where mpmath's own directed exp is wrong."""

from __future__ import annotations

import math

from fractions import Fraction as F

import mpmath
import mpmath.libmp as L
import pytest
from hypothesis import given
from hypothesis import strategies as st

from certified.checker import balls as B
from certified.checker.balls import Ball, BallError, scaled
from certified.checker.elementary import exp_scaled, ln2_scaled, pi_scaled

WIDE = 3000


@pytest.mark.parametrize("W", [1, 10, 64, 200, 1000])
def test_ln2_and_pi_are_enclosed_within_three_units(W):
    with mpmath.workprec(WIDE):
        for (lo, hi), v in ((ln2_scaled(W), mpmath.ln2), (pi_scaled(W), mpmath.pi)):
            assert lo <= v * 2 ** W <= hi
            assert hi - lo <= 2


def _check(a: int, s: int, G: int) -> None:
    lo, hi, n = exp_scaled(a, s, G)
    with mpmath.workprec(WIDE + abs(n).bit_length()):
        v = mpmath.exp(mpmath.mpf(a) / mpmath.mpf(2) ** s - n * mpmath.ln2) * mpmath.mpf(2) ** G
        assert lo <= v <= hi, (a, s, G)
        assert hi - lo <= 4  # two units of 2^-G relative to e^r ∈ (1/2, 2)
        assert 2 ** (G - 1) < lo and hi < 2 ** (G + 1)  # r ∈ [−ln2/2, ln2/2] roughly


@given(st.integers(-2 ** 80, 2 ** 80), st.integers(0, 90), st.sampled_from([20, 64, 232]))
def test_exp_of_moderate_arguments(a, s, G):
    _check(a, s, G)


@given(st.integers(-10 ** 70, 10 ** 70), st.sampled_from([40, 232]))
def test_exp_of_huge_integers(a, G):
    _check(a, 0, G)


@given(st.sampled_from([1, -1, 3, -3, 2 ** 20 + 1]), st.integers(50, 420),
       st.sampled_from([40, 96, 232]))
def test_exp_of_tiny_arguments(a, s, G):
    lo, hi, n = exp_scaled(a, s, G)
    with mpmath.workprec(WIDE):
        v = mpmath.exp(mpmath.mpf(a) / mpmath.mpf(2) ** s) * mpmath.mpf(2) ** (G - n)
        assert lo <= v <= hi and hi - lo <= 4


def test_exp_of_zero_is_exact():
    assert exp_scaled(0, 10, 50) == (1 << 50, 1 << 50, 0)


def test_where_mpmath_directed_exp_is_wrong_the_balls_are_right():
    # mpmath's mpf_exp(2^-64, 96 bits, ceiling) returns 1 + 2^-64 < e^{2^-64}: the reason
    # for this module. The checker's Ball.exp and exp_up enclose the true value.
    x = L.from_man_exp(1, -64)
    wrong = L.mpf_exp(x, 96, L.round_ceiling)
    with mpmath.workprec(WIDE):
        true = mpmath.exp(mpmath.mpf(2) ** -64)
        assert mpmath.mpf(wrong) < true  # if mpmath is fixed one day, this documents it
        with scaled(64):
            e = Ball(0, 1).exp()  # x ∈ [−2^-64, 2^-64]
            assert mpmath.mpf(e.hi_q().numerator) / e.hi_q().denominator >= true
            assert e.r <= 4
            up = B.exp_up(x)
            assert mpmath.mpf(up) >= true and mpmath.mpf(B.exp_down(x)) <= true


@given(st.integers(-2 ** 40, 2 ** 40), st.integers(0, 2 ** 30), st.sampled_from([64, 200]))
def test_ball_exp_contains_both_ends_and_is_tight(m, r, P):
    with scaled(P), mpmath.workprec(WIDE):
        b = Ball(m << (P - 30), r << (P - 30))  # x ∈ [−2^10, 2^10]
        e = b.exp()
        lo_v = mpmath.exp(mpmath.mpf(b.lo()) / mpmath.mpf(2) ** P)
        hi_v = mpmath.exp(mpmath.mpf(b.hi()) / mpmath.mpf(2) ** P)
        e_lo = mpmath.mpf(e.lo()) / mpmath.mpf(2) ** P
        e_hi = mpmath.mpf(e.hi()) / mpmath.mpf(2) ** P
        assert e_lo <= lo_v and hi_v <= e_hi
        unit = mpmath.mpf(2) ** -P
        assert e_hi - e_lo <= hi_v - lo_v + 4 * unit + hi_v * mpmath.mpf(2) ** -(P + 28)


@given(st.integers(-10 ** 6, 10 ** 6), st.integers(-300, 300), st.sampled_from([53, 200]))
def test_exp_up_and_down_bracket_and_are_tight(man, e, P):
    x = L.from_man_exp(man, e)
    with scaled(P), mpmath.workprec(WIDE + 400):
        v = mpmath.exp(mpmath.mpf(x))
        up, dn = mpmath.mpf(B.exp_up(x)), mpmath.mpf(B.exp_down(x))
        assert dn <= v <= up
        assert up - dn <= v * mpmath.mpf(2) ** -(P - 2)


def test_exp_of_arguments_beyond_2_4096():
    with scaled(100):
        huge = L.from_man_exp(3, 5000)
        with pytest.raises(BallError, match="beyond"):
            B.exp_up(huge)
        neg = L.from_man_exp(-3, 5000)
        assert B.exp_down(neg) == L.fzero
        up = B.exp_up(neg)  # 2^⌈x⌉ ≥ e^x for x < 0
        assert up == L.from_man_exp(1, -3 << 5000)
        neg_frac = L.from_man_exp(-(2 ** 4200 + 1), -100)  # x = −(2^4100 + 2^-100)
        assert B.exp_up(neg_frac) == L.from_man_exp(1, -(2 ** 4100))
        # 10^69 (the size of Lemma T4's tail arguments) is summed, not bounded crudely
        b = L.from_int(-10 ** 69)
        with mpmath.workprec(600):
            v = mpmath.exp(mpmath.mpf(-10 ** 69))
            assert mpmath.mpf(B.exp_down(b)) <= v <= mpmath.mpf(B.exp_up(b))
            assert mpmath.mpf(B.exp_up(b)) <= v * (1 + mpmath.mpf(2) ** -90)


def test_constants_of_the_binary64_kernels_and_the_circle():
    from certified.checker import defect, fballs
    with mpmath.workprec(WIDE):
        c1, lo, hi = fballs._LN2
        assert mpmath.mpf(c1) + mpmath.mpf(lo) <= mpmath.ln2 <= mpmath.mpf(c1) + mpmath.mpf(hi)
        c1, lo, hi = fballs._HALF_PI
        assert mpmath.mpf(c1) + mpmath.mpf(lo) <= mpmath.pi / 2 <= mpmath.mpf(c1) + mpmath.mpf(hi)
        p_lo, p_hi = defect._pi()
        assert mpmath.mpf(p_lo.numerator) / p_lo.denominator <= mpmath.pi
        assert mpmath.pi <= mpmath.mpf(p_hi.numerator) / p_hi.denominator
        assert p_hi - p_lo <= F(3, 2 ** 80)


@pytest.mark.parametrize("which", ["ln2", "half_pi"])
def test_split_constants_enclose_and_c1_is_short(which):
    # the split is computed at import; called again here so that a change to it is seen
    from certified.checker import fballs
    if which == "ln2":
        raw, bits = [L.from_man_exp(v, -200) for v in ln2_scaled(200)], 32
    else:
        raw, bits = [L.from_man_exp(v, -201) for v in pi_scaled(200)], 31
    c1, lo, hi = fballs._split(*raw, bits)
    with mpmath.workprec(WIDE):
        true = mpmath.ln2 if which == "ln2" else mpmath.pi / 2
        assert mpmath.mpf(c1) + mpmath.mpf(lo) <= true <= mpmath.mpf(c1) + mpmath.mpf(hi)
        assert 0 < hi - lo <= 2.0 ** -(bits + 50)  # two binary64 roundings of C2
        assert 0 <= true - mpmath.mpf(c1) < mpmath.mpf(2) ** -bits
    assert F(c1) * 2 ** bits == int(F(c1) * 2 ** bits)  # C1 has `bits` bits after the point
    assert (c1, lo, hi) == (fballs._LN2 if which == "ln2" else fballs._HALF_PI)


# -- the helpers directly (the public functions cache their constants, and a cached value
#    computed before a change would hide it) ---------------------------------------------

@pytest.mark.parametrize("W", [1, 7, 80, 333])
def test_uncached_constants(W):
    from certified.checker import elementary as E
    with mpmath.workprec(WIDE):
        lo, hi = E.ln2_scaled.__wrapped__(W)
        assert lo <= mpmath.ln2 * 2 ** W <= hi and hi - lo <= 2
        lo, hi = E.pi_scaled.__wrapped__(W)
        assert lo <= mpmath.pi * 2 ** W <= hi and hi - lo <= 2


@pytest.mark.parametrize("m, S", [(5, 1), (5, 40), (239, 10), (239, 300), (2, 64), (7, 5)])
def test_atan_of_a_reciprocal(m, S):
    from certified.checker.elementary import _atan_inv
    lo, hi = _atan_inv(m, S)
    with mpmath.workprec(WIDE):
        v = mpmath.atan(mpmath.mpf(1) / m) * 2 ** S
        assert lo <= v <= hi
        # each term is rounded once each way, and ±1 for the tail: a few units
        assert hi - lo <= 2 * (S // 2 + 2) + 2


@pytest.mark.parametrize("H", [8, 20])
@pytest.mark.parametrize("up", [False, True])
@given(st.integers(0, 2 ** 60 - 1), st.sampled_from([8, 24, 100]))
def test_exp_on_the_unit_interval_and_its_reciprocal(up, H, R, G):
    # e^r, 0 ≤ r < 1, in the direction asked, as (e^{r/2^H})^{2^H}; its error is the
    # Taylor sum's (≤ G/H + 2 units) doubled by each of the H squarings: ≤ 2^{H+1}·G units
    # (the caller works H + 16 bits finer, so that the 2^H-fold growth of one unit stays
    # small: at G = 8 and H = 20 an upper bound 1 + 2^-8 squared 20 times is far off);
    # e^{-r} through the reciprocal, in the same direction
    from hypothesis import assume

    from certified.checker.elementary import _exp_reduced, _exp_unit
    assume(H == 8 or G > H + 16)
    T, err = 60, 2 ** (H + 1) * G
    with mpmath.workprec(WIDE):
        r = mpmath.mpf(R) / mpmath.mpf(2) ** T
        got = _exp_unit(R, T, G, up, H)
        v = mpmath.exp(r) * 2 ** G
        assert (got >= v) if up else (got <= v)
        assert abs(got - v) <= err
        neg = _exp_reduced(-R, T, G, up, H)
        w = mpmath.exp(-r) * 2 ** G
        assert (neg >= w) if up else (neg <= w)
        assert abs(neg - w) <= err + 2
        assert _exp_reduced(R, T, G, up, H) == got
        if G == 100 and R > 2 ** 50:
            # at 100 bits the two directions are a few hundred units apart at most, and
            # the reciprocal of the wrong one would cross the value
            assert abs(_exp_unit(R, T, G, True, H) - _exp_unit(R, T, G, False, H)) <= err


def test_the_terms_are_those_of_one_division():
    """The Taylor terms ⌈⌈t·R/2^s⌉/k⌉ and ⌊⌊t·R/2^s⌋/k⌋ equal ⌈t·R/(k·2^s)⌉ and
    ⌊t·R/(k·2^s)⌋ (the identity the shift relies on), checked against Fractions."""
    from certified.checker.elementary import ceil_div, ceil_shift
    for a in (0, 1, 7, 2 ** 61 - 1, 3 ** 90, 10 ** 40 + 17):
        for s in (0, 1, 13, 64):
            for k in (1, 2, 3, 7, 255):
                q = F(a, k << s)
                assert ceil_div(ceil_shift(a, s), k) == math.ceil(q)
                assert (a >> s) // k == math.floor(q)


@pytest.mark.parametrize("G", [100, 323, 324, 2400, 9600])
def test_halvings_and_the_width_at_many_bits(G):
    """H = 8 up to G = 323, then √G/2; at every G the two bounds of e^x, x ≈ 0.35 and
    x ≈ −5.2, are at most 2 units apart and contain mpmath's value at G + 200 bits."""
    from certified.checker.elementary import halvings
    assert halvings(G) == (8 if G < 324 else math.isqrt(G) // 2)
    for a, s in ((35 * 2 ** 60 // 100 + 12345, 60), (-(52 * 2 ** 60 // 10) - 3, 60)):
        lo, hi, n = exp_scaled(a, s, G)
        with mpmath.workprec(G + 200):
            v = mpmath.exp(mpmath.mpf(a) / mpmath.mpf(2) ** s) * mpmath.mpf(2) ** (G - n)
            assert lo <= v <= hi and hi - lo <= 2, (G, a)


@given(st.integers(2 ** 380, 2 ** 400), st.sampled_from([20, 64]))
def test_exp_of_long_mantissas(a, G):
    # x = a·2^-398 ∈ [4, 8) with a mantissa of 400 bits: more bits than ln 2 is taken to,
    # so r is formed at the argument's own scale
    _check(a, 398, G)
    _check(-a, 398, G)


def test_exp_up_of_a_huge_positive_power_of_two_refuses():
    with scaled(64):
        with pytest.raises(BallError, match=r"^exp of an argument beyond 2\^4096$"):
            B.exp_up(L.from_man_exp(1, 5000))
        with pytest.raises(BallError, match=r"^exp of an argument beyond 2\^4096$"):
            B.exp_down(L.from_man_exp(1, 4096))
        # exactly 2^4095 ≤ |x| < 2^4096 is still summed (x < 0: a tiny positive value)
        v = B.exp_up(L.from_man_exp(-1, 4095))
        assert L.mpf_cmp(v, L.fzero) > 0 and L.mpf_cmp(B.exp_down(L.from_man_exp(-1, 4095)),
                                                        v) <= 0


def test_exp_mpf_results_have_the_scale_bits():
    with scaled(80):
        up = B.exp_up(L.from_man_exp(1, -3))
        assert up[3] <= 80  # rounded to P bits
        with mpmath.workprec(WIDE):
            v = mpmath.exp(mpmath.mpf(1) / 8)
            assert v <= mpmath.mpf(up) <= v * (1 + mpmath.mpf(2) ** -78)


def test_ball_exp_far_below_zero_is_a_unit_without_a_series():
    # an argument of 32,000 bits would cost a series of that many bits (time ∝ bits³);
    # below −(P + 2) the exponential is less than a quarter unit
    with scaled(200), mpmath.workprec(WIDE):
        e = Ball(-(1 << 32000) << 200, 0).exp()
        assert e.lo() <= 0 and e.hi() == 1
        P = 200
        e = Ball(-((P + 3) << P), 1 << P).exp()  # [−(P+4), −(P+2)]: the upper end is summed
        hi_v = mpmath.exp(-(P + 2)) * 2 ** P
        assert e.lo() <= 0 and e.hi() >= hi_v and e.hi() <= hi_v + 2
        wide = Ball(-(1 << 32000) << P, (1 << 32000) << P)  # [−2^32001, 0]
        w = wide.exp()
        assert w.lo() <= 0 and w.hi() >= 1 << P and w.hi() <= (1 << P) + 2


@given(st.integers(-2 ** 70, 2 ** 70), st.integers(0, 80))
def test_the_reduction_takes_the_nearest_multiple_of_ln2(a, s):
    lo, hi, n = exp_scaled(a, s, 64)
    with mpmath.workprec(WIDE):
        q = mpmath.mpf(a) / mpmath.mpf(2) ** s / mpmath.ln2
        if a.bit_length() - s >= -(64 + 4) and abs(q - mpmath.floor(q) - mpmath.mpf(1) / 2) > 2 ** -10:
            assert n == int(mpmath.nint(q))
