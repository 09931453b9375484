"""Arb balls (python-flint) ↔ exact rationals and the spec's decimal enclosures.

Containment contract (Arb's, stated once here and relied on everywhere): an ``arb``
ball ``[m ± r]`` produced by an operation contains the exact result of that operation
for every choice of points in the input balls; it may be wider than necessary. An
``acb`` is a rectangle ``[m_re ± r_re] + i[m_im ± r_im]`` with the same guarantee.

The conversions below are exact (midpoints and radii of Arb balls are dyadic
rationals), so the decimal strings written by :func:`arb_to_json` enclose the ball:
lower ends are rounded down, upper ends up (:func:`certified.exact.rationals.bounds_to_json`).
"""

from __future__ import annotations

from fractions import Fraction

from flint import acb, arb, fmpq

from certified.errors import UndecidedError
from certified.exact.rationals import bounds_to_json
from certified.logic import Truth

__all__ = ["arb_of", "arb_bounds", "arb_to_json", "acb_to_json", "sign"]


def arb_of(q: Fraction) -> arb:
    """A ball containing the rational ``q`` (exact when ``q`` is dyadic and fits)."""
    return arb(fmpq(q.numerator, q.denominator))


#: Exponent range (bits) of endpoints converted to exact rationals. Beyond it a number
#: is either absurdly large (refused) or so small that it is rounded outward to
#: ±2^-EXP_LIMIT / 0, which keeps every enclosure valid and every Fraction small.
EXP_LIMIT = 1 << 16


def power_of_two(e: int) -> str:
    """"2^e" for a message, with e abbreviated when it has more than 20 digits (mpmath's
    and Arb's exponents are unbounded: e^(10^800) has an exponent of 800 digits)."""
    digits = len(str(abs(e)))
    sign = "-" if e < 0 else ""
    return f"2^{e}" if digits <= 20 else f"2^({sign}{digits}-digit exponent)"


def _dyadic(x: arb, up: bool) -> Fraction:
    """The exact value of an exact arb, rounded outward (up if ``up``) when tiny."""
    man, exp = x.man_exp()
    man, exp = int(man), int(exp)
    if exp + man.bit_length() > EXP_LIMIT:
        raise UndecidedError(f"a number of about {power_of_two(exp + man.bit_length())} is "
                             f"too large to convert exactly")
    if exp + man.bit_length() < -EXP_LIMIT:  # |x| < 2^-EXP_LIMIT: round outward
        tiny = Fraction(1, 2 ** EXP_LIMIT)
        if man > 0:
            return tiny if up else Fraction(0)
        return Fraction(0) if up else -tiny
    return Fraction(man * 2 ** exp) if exp >= 0 else Fraction(man, 2 ** -exp)


def arb_bounds(x: arb) -> tuple[Fraction, Fraction]:
    """Rational endpoints ``lo <= m - r`` and ``hi >= m + r`` of a finite ball (exact
    unless an endpoint is below 2^-EXP_LIMIT in magnitude, then rounded outward)."""
    if not x.is_finite():
        raise UndecidedError(f"ball {x} is not finite")
    # mid() and rad() are exact (lower()/upper() would round at the context precision).
    r = _dyadic(x.rad(), up=True)
    return _dyadic(x.mid(), up=False) - r, _dyadic(x.mid(), up=True) + r


def arb_to_json(x: arb, digits: int = 30) -> list[str]:
    """``["lo", "hi"]`` decimal strings enclosing the ball (outward rounded)."""
    lo, hi = arb_bounds(x)
    return bounds_to_json(lo, hi, digits)


def acb_to_json(z: acb, digits: int = 30) -> dict[str, list[str]]:
    """``{"re": [lo, hi], "im": [lo, hi]}`` enclosing a complex ball."""
    return {"re": arb_to_json(z.real, digits), "im": arb_to_json(z.imag, digits)}


def sign(x: arb) -> "int | Truth":
    """The sign of every point of the ball: +1, -1, 0 (the exact zero), or
    ``Truth.UNDECIDED`` when the ball contains 0 and other points.

    ``Truth.UNDECIDED`` is never falsy: ``bool()`` of it raises, so an undecided sign
    cannot silently read as "not positive". Test it with ``is Truth.UNDECIDED``.
    """
    if x.is_zero():
        return 0
    if x > 0:
        return 1
    if x < 0:
        return -1
    return Truth.UNDECIDED
