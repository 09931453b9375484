"""The producer's mpmath backend takes exp from Arb: mpmath's interval exp is accurate but
not directed (its upper end of e^{2^-64} at 96 bits is below the value)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from certified.enclose.arith.mpmath_backend import MpmathBackend


@pytest.mark.parametrize("x", [Fraction(1, 2 ** 64), Fraction(-1, 2 ** 64), Fraction(1, 3),
                               Fraction(-700), Fraction(50)])
def test_mpmath_backend_exp_contains_and_is_tight(x):
    bk = MpmathBackend()
    with bk.workprec(96), mpmath.workprec(400):
        e = bk.exp(bk.const(x))
        lo, hi = bk.bounds(e)
        v = mpmath.exp(mpmath.mpf(x.numerator) / x.denominator)
        assert mpmath.mpf(lo.numerator) / lo.denominator <= v
        assert v <= mpmath.mpf(hi.numerator) / hi.denominator
        assert (hi - lo) <= Fraction(1, 2 ** 90) * (abs(lo) + abs(hi)) + Fraction(1, 2 ** 1000)


def test_mpmath_interval_exp_is_not_directed():
    # the reason: if mpmath ever directs its exp, this test says so
    from mpmath import iv
    with mpmath.workprec(400):
        true = mpmath.exp(mpmath.mpf(2) ** -64)
    old = iv.prec
    iv.prec = 96
    try:
        hi = iv.exp(iv.mpf(2) ** -64).b
    finally:
        iv.prec = old
    assert mpmath.mpf(hi) < true


def test_mpmath_backend_complex_exp_contains_the_corners():
    bk = MpmathBackend()
    with bk.workprec(80), mpmath.workprec(300):
        z = bk.complex_box(bk.interval(Fraction(-1, 3), Fraction(1, 4)),
                           bk.interval(Fraction(2), Fraction(9, 4)))
        e = bk.exp(z)
        re, im = bk.re_im(e)
        (rl, rh), (il, ih) = bk.bounds(re), bk.bounds(im)
        for a in (Fraction(-1, 3), Fraction(1, 4)):
            for b in (Fraction(2), Fraction(9, 4)):
                v = mpmath.exp(mpmath.mpc(mpmath.mpf(a.numerator) / a.denominator,
                                          mpmath.mpf(b.numerator) / b.denominator))
                assert rl <= Fraction(mpmath.nstr(v.real, 60)) + Fraction(1, 10 ** 50)
                assert Fraction(mpmath.nstr(v.real, 60)) - Fraction(1, 10 ** 50) <= rh
                assert il <= Fraction(mpmath.nstr(v.imag, 60)) + Fraction(1, 10 ** 50)
                assert Fraction(mpmath.nstr(v.imag, 60)) - Fraction(1, 10 ** 50) <= ih
        # no wider than the exact range of the box by more than Arb's overestimation
        assert rh - rl < 2 and ih - il < 2


@pytest.mark.parametrize("lo, hi", [(0, 100), (-30, 1), (0, 10)])
def test_mpmath_backend_exp_of_a_wide_real_interval_is_end_by_end(lo, hi):
    # exp increases: [e^lo, e^hi] to the working precision, never an end below 0
    bk = MpmathBackend()
    with bk.workprec(120), mpmath.workprec(400):
        e = bk.exp(bk.interval(Fraction(lo), Fraction(hi)))
        a, b = bk.bounds(e)
        for end, v in ((a, mpmath.exp(lo)), (b, mpmath.exp(hi))):
            q = mpmath.mpf(end.numerator) / end.denominator
            assert abs(q - v) <= v * mpmath.mpf(2) ** -110
        assert a > 0 and mpmath.mpf(a.numerator) / a.denominator <= mpmath.exp(lo)


def test_mpmath_backend_exp_beyond_arbs_range():
    # e^{10^800}: Arb overflows; the lower end is 2^{⌊a·L⌋} ≤ e^a (L < log₂ e), the upper +inf.
    # e^{-10^800}: Arb's ball reaches below 0; the lower end is 0 (e^a > 0).
    import mpmath.libmp as L
    bk = MpmathBackend()
    with bk.workprec(64):
        big = bk.exp(bk.const(Fraction(10) ** 800))
        lo, hi = big._mpi_
        k = Fraction(10) ** 800 * Fraction(14426950408, 10 ** 10)  # the argument's lower
        assert hi == L.finf and lo[1] == 1  # end is 10^800 rounded down to 64 bits
        assert (k * (1 - Fraction(1, 2 ** 60))).__floor__() <= lo[2] <= k.__floor__()
        tiny = bk.exp(bk.const(-Fraction(10) ** 800))
        lo, hi = tiny._mpi_
        assert lo == L.fzero and L.mpf_gt(hi, L.fzero)
        assert L.mpf_lt(hi, L.from_man_exp(1, -1000))  # Arb bounds it crudely, but tiny
