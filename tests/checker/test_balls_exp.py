"""The checker's Ball.exp refuses arguments whose enclosure reaches above 2¹⁶ (an integer
of ~94,000 bits would follow; no quantity of a check is that large) with a BallError the
checker reports, instead of exhausting memory; below the limit it encloses e^x."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from certified.checker.balls import EXP_ARG_MAX, Ball, BallError, const, scaled


def test_exp_of_a_huge_argument_is_a_ball_error():
    with scaled(64):
        with pytest.raises(BallError, match="too wide"):
            const(Fraction(EXP_ARG_MAX) + 1).exp()
        wide = Ball(0, (10 ** 9) << 64)  # [-1e9, 1e9]
        with pytest.raises(BallError):
            wide.exp()


def test_exp_below_the_limit_contains_mpmath_value():
    with scaled(80), mpmath.workdps(60):
        for q in (Fraction(-40), Fraction(1, 3), Fraction(700)):
            b = const(q).exp()
            true = mpmath.exp(mpmath.mpf(q.numerator) / q.denominator)
            lo, hi = b.lo_q(), b.hi_q()
            assert mpmath.mpf(lo.numerator) / lo.denominator <= true
            assert true <= mpmath.mpf(hi.numerator) / hi.denominator
