"""mpmath interval arithmetic (``mpmath.iv``) as a :class:`~certified.enclose.arith.base.Backend`.

mpmath's interval context rounds lower endpoints down and upper endpoints up in its
arithmetic (+, −, ×, ÷, √: exact integer operations and one directed rounding). Its exp is
accurate but not directed (``iv.exp`` of 2^−64 at 96 bits has an upper end below
e^{2^−64}), so :meth:`MpmathBackend.exp` takes Arb's: at the two end points of a real
interval, on the whole box of a complex one.
"""

from __future__ import annotations

from contextlib import contextmanager
from fractions import Fraction
from typing import Any, Iterator

from flint import acb, arb, ctx, fmpq
from mpmath import iv, mp
from mpmath.libmp import (
    finf,
    fninf,
    from_man_exp,
    from_rational,
    fzero,
    mpf_lt,
    round_ceiling,
    round_floor,
    to_float,
    to_rational,
)

from certified.enclose.arith.base import Backend
from certified.errors import UndecidedError
from certified.exact.arb_convert import EXP_LIMIT, power_of_two


def _special(raw: tuple) -> bool:
    """True for a raw ±inf or nan: a zero mantissa with a nonzero exponent field."""
    return not raw[1] and bool(raw[2])


def _rat(raw: tuple, up: bool) -> Fraction:
    """Exact value of a raw mpf endpoint; outward-rounded when beyond 2^±EXP_LIMIT."""

    sign, man, exp, bc = raw
    if _special(raw):
        # to_rational reads ±inf and nan as 0: [−inf, +inf] would pass for [0, 0].
        raise UndecidedError("an interval endpoint is not finite")
    if man and exp + bc > EXP_LIMIT:
        raise UndecidedError(f"a number of about {power_of_two(exp + bc)} is too large "
                             f"to convert")
    if man and exp + bc < -EXP_LIMIT:
        tiny = Fraction(1, 2 ** EXP_LIMIT)
        return (Fraction(0) if up else -tiny) if sign else (tiny if up else Fraction(0))
    p, q = to_rational(raw)
    return Fraction(int(p), int(q))


def _down(x: arb) -> tuple:
    """A raw mpf ≤ every point of the real ball x (−inf if x is not finite)."""
    if not x.is_finite():
        return fninf
    man, e = x.lower().man_exp()
    return from_man_exp(int(man), int(e), iv.prec, round_floor)


def _up(x: arb) -> tuple:
    """A raw mpf ≥ every point of the real ball x (+inf if x is not finite)."""
    if not x.is_finite():
        return finf
    man, e = x.upper().man_exp()
    return from_man_exp(int(man), int(e), iv.prec, round_ceiling)


#: a rational below log₂ e = 1.442695040888963…
_LOG2E_BELOW = Fraction(14426950408, 10 ** 10)


def _pow2_below(a: fmpq) -> tuple:
    """A raw mpf ≤ e^a for a (huge) a ≥ 0, where Arb's exp overflows:
    e^a = 2^{a·log₂e} ≥ 2^{⌊a·L⌋} for L < log₂ e."""
    q = Fraction(int(a.p), int(a.q))
    return from_man_exp(1, (q * _LOG2E_BELOW).__floor__()) if q > 0 else fzero


class MpmathBackend(Backend):
    """Endpoint intervals from ``mpmath.iv`` (directed rounding)."""

    name = "mpmath"

    def precision(self) -> int:
        return iv.prec

    @contextmanager
    def workprec(self, bits: int) -> Iterator[None]:
        # mpmath's interval context has no workprec(); save and restore in finally.
        old = iv.prec
        iv.prec = bits
        try:
            yield
        finally:
            iv.prec = old

    def const(self, q: Fraction) -> Any:
        prec = iv.prec
        lo = from_rational(q.numerator, q.denominator, prec, round_floor)
        hi = from_rational(q.numerator, q.denominator, prec, round_ceiling)
        return self._iv(lo, hi)

    def interval(self, lo: Fraction, hi: Fraction) -> Any:
        return self.hull(self.const(lo), self.const(hi))

    def exp(self, x: Any) -> Any:
        # Real: exp increases, so Arb's e^a and e^b at the exact end points a, b, their
        # outer ends rounded outward (a ball around the whole interval would carry Arb's
        # ~30-bit radius into both ends, even below 0). Complex: Arb's exp of the box
        # (e^{a+ib} = e^a(cos b + i sin b)). End points are read from Arb's exact
        # lower/upper bounds as mpf (any exponent: e^{10^30} is a number here too).
        with ctx.workprec(iv.prec + 16):
            if self.is_complex(x):
                e = acb(self._arb(x.real), self._arb(x.imag)).exp()
                return self.complex_box(self._iv(_down(e.real), _up(e.real)),
                                        self._iv(_down(e.imag), _up(e.imag)))
            lo, hi = self._ends(x)
            e_lo, e_hi = arb(lo).exp(), arb(hi).exp()
            low = _down(e_lo) if e_lo.is_finite() else _pow2_below(lo)
            if mpf_lt(low, fzero):  # e^a > 0: Arb's ball of a tiny e^a may reach below 0
                low = fzero
            return self._iv(low, _up(e_hi))

    @staticmethod
    def _iv(lo: tuple, hi: tuple) -> Any:
        """The interval of two raw mpf end points (make_mpf wraps them without
        re-rounding at mp.prec, 53 bits)."""
        return iv.mpf((mp.make_mpf(lo), mp.make_mpf(hi)))

    def _ends(self, x: Any) -> tuple[fmpq, fmpq]:
        """The exact end points of the real interval x."""
        lo, hi = self.bounds(x)
        return fmpq(lo.numerator, lo.denominator), fmpq(hi.numerator, hi.denominator)

    def _arb(self, x: Any) -> arb:
        """An Arb ball containing the real interval x."""
        lo, hi = self._ends(x)
        return arb(lo).union(arb(hi))

    def sqrt(self, x: Any) -> Any:
        return iv.sqrt(x)

    def rad_float(self, x: Any) -> float:
        if not self.is_finite(x):
            return float("inf")
        a, b = x._mpi_
        return (to_float(b) - to_float(a)) / 2

    def bounds(self, x: Any) -> tuple[Fraction, Fraction]:
        a, b = x._mpi_
        try:
            return _rat(a, up=False), _rat(b, up=True)
        except (ValueError, OverflowError):
            raise UndecidedError(f"interval {x} is not finite") from None

    def mid_point(self, x: Any) -> Any:
        m = x.mid.a  # an exact endpoint of the enclosure of the midpoint
        return iv.mpf((m.a, m.a)) if hasattr(m, "a") else iv.mpf(m)

    def is_finite(self, x: Any) -> bool:
        return not any(_special(t) for t in x._mpi_)

    def contains(self, outer: Any, inner: Any) -> bool:
        if not (self.is_finite(outer) and self.is_finite(inner)):
            return False  # as a validation test, "not shown" (Arb answers the same way)
        lo_o, hi_o = self.bounds(outer)
        lo_i, hi_i = self.bounds(inner)
        return lo_o <= lo_i and hi_i <= hi_o

    def contains_interior(self, outer: Any, inner: Any) -> bool:
        if not (self.is_finite(outer) and self.is_finite(inner)):
            return False
        lo_o, hi_o = self.bounds(outer)
        lo_i, hi_i = self.bounds(inner)
        return lo_o < lo_i and hi_i < hi_o

    def complex_box(self, re: Any, im: Any) -> Any:
        return iv.mpc(re, im)

    def is_complex(self, x: Any) -> bool:
        return type(x).__name__ == "ivmpc"

    def re_im(self, x: Any) -> tuple[Any, Any]:
        return (x.real, x.imag) if self.is_complex(x) else (x, iv.mpf(0))

    def hull(self, a: Any, b: Any) -> Any:
        lo = min(a.a, b.a, key=lambda t: self.bounds(t)[0])
        hi = max(a.b, b.b, key=lambda t: self.bounds(t)[1])
        return iv.mpf((lo.a, hi.b))
