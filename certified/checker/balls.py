"""The checker's exact arithmetic: fixed-point balls on Python integers.

Contract
--------
A :class:`Ball` ``(m, r)`` stands for the closed interval [(m − r)·2^−P, (m + r)·2^−P]
with Python integers m and r ≥ 0 and the module-wide scale P (:func:`scale`). Every
operation returns a ball that contains the exact result for every pair of points of its
arguments. Additions are exact; products and quotients are rounded by one explicit
floor/ceil on integers (proofs in ``proofs_notes/checker.md``, Lemma C1); exp bounds the
exponentials of the two end points by series on integers (:mod:`.elementary`, Lemma C1e).
These balls carry what must be known to the certificate's
precision (the centre's low Taylor orders, the lemma data); boxes that need only a few
digits of their own size are the binary64 balls of :mod:`.fballs`.

This module deliberately shares no code with the integrator (which uses Arb through
python-flint): the checker's trusted base is Python's integers, ``fractions``, and
mpmath's directed rounding of the four operations (correct rounding: its elementary
functions are accurate but not directed, so exp is not taken from it).
"""

from __future__ import annotations

from fractions import Fraction
from math import isqrt

from contextlib import contextmanager
from typing import Iterator

import mpmath.libmp as L
import numpy as np

from .elementary import ceil_div, ceil_shift, exp_scaled

__all__ = ["EXP_ARG_MAX", "sqrt_up", "Ball", "BallError", "ExactRadii", "FloatRadii", "RadiusOverflow", "bdot",
           "scale", "scaled", "set_scale", "const", "interval", "one", "with_radii"]

_P = 200  # fixed-point scale: one unit is 2^-P


#: Largest upper end of an exp argument (2¹⁶): beyond it Ball.exp raises BallError.
EXP_ARG_MAX = 2 ** 16


class BallError(ArithmeticError):
    """An operation the balls cannot enclose (a quotient by a ball containing 0, a square
    root reaching below 0, disjoint enclosures, a non-finite mpmath result): the check
    cannot be completed, so the certificate is not shown valid."""


def scale() -> int:
    """The current fixed-point scale P."""
    return _P


def set_scale(bits: int) -> None:
    """Set the scale P (all balls of one check must share it)."""
    global _P
    _P = int(bits)


@contextmanager
def scaled(bits: int) -> Iterator[None]:
    """Set the scale P for one check and restore the previous one afterwards (forked
    replay workers inherit it)."""
    global _P
    old = _P
    _P = int(bits)
    try:
        yield
    finally:
        _P = old


def one() -> Ball:
    """The exact ball 1 at the current scale (a function: the scale may change)."""
    return Ball(1 << _P, 0)


def _div_floor(a: int, b: int) -> int:
    return a // b


class Ball:
    """[(m − r)·2^−P, (m + r)·2^−P] (module docstring states the contract)."""

    __slots__ = ("m", "r")

    def __init__(self, m: int, r: int = 0) -> None:
        self.m, self.r = m, r

    # -- construction and reading --------------------------------------------------------
    @staticmethod
    def from_ends(lo: int, hi: int) -> "Ball":
        """The ball of the scaled integer interval [lo, hi] (lo ≤ hi)."""
        m = (lo + hi) >> 1
        return Ball(m, max(hi - m, m - lo))

    def lo(self) -> int:
        return self.m - self.r

    def hi(self) -> int:
        return self.m + self.r

    def lo_q(self) -> Fraction:
        return Fraction(self.m - self.r, 1 << _P)

    def hi_q(self) -> Fraction:
        return Fraction(self.m + self.r, 1 << _P)

    def mid_float(self) -> float:
        # fast path only where both the midpoint and 2^P are binary64 numbers
        return self.m / float(1 << _P) if self.m.bit_length() < 1000 and _P < 1000 else \
            float(Fraction(self.m, 1 << _P))

    def contains(self, o: "Ball") -> bool:
        return self.lo() <= o.lo() and o.hi() <= self.hi()

    def contains_interior(self, o: "Ball") -> bool:
        return self.lo() < o.lo() and o.hi() < self.hi()

    def abs_hi(self) -> int:
        """Scaled upper bound of |x|."""
        return abs(self.m) + self.r

    def intersect(self, o: "Ball") -> "Ball":
        """The common part of two enclosures of the same quantity (must overlap)."""
        lo, hi = max(self.lo(), o.lo()), min(self.hi(), o.hi())
        if lo > hi:
            raise BallError("disjoint enclosures of one quantity")
        return Ball.from_ends(lo, hi)

    def union(self, o: "Ball") -> "Ball":
        return Ball.from_ends(min(self.lo(), o.lo()), max(self.hi(), o.hi()))

    def __repr__(self) -> str:
        return f"[{_show(self.lo_q())}, {_show(self.hi_q())}]"

    # -- ring operations -----------------------------------------------------------------
    def __add__(self, o: object) -> "Ball":
        if isinstance(o, Ball):
            return Ball(self.m + o.m, self.r + o.r)
        if isinstance(o, int) and o == 0:
            return self
        return NotImplemented

    __radd__ = __add__

    def __neg__(self) -> "Ball":
        return Ball(-self.m, self.r)

    def __sub__(self, o: object) -> "Ball":
        if isinstance(o, Ball):
            return Ball(self.m - o.m, self.r + o.r)
        return NotImplemented

    def __mul__(self, o: object) -> "Ball":
        if isinstance(o, Ball):
            if self.r == 0 or o.r == 0:
                # |xy − m₁m₂·2^{−2P}| ≤ (|m₁|r₂ + r₁|m₂| + r₁r₂)·2^{−2P}; the floor of the
                # midpoint loses < 1 unit, hence the + 1 (Lemma C1).
                p = self.m * o.m
                rad = abs(self.m) * o.r + self.r * abs(o.m) + self.r * o.r
                exact = p & ((1 << _P) - 1) == 0  # the midpoint needs no rounding
                return Ball(p >> _P, ceil_shift(rad, _P) + (0 if exact else 1))
            # Both wide: the exact product interval from the end points (optimal, where
            # the midpoint–radius bound overestimates), rounded outward once.
            a, b, c, d = self.lo(), self.hi(), o.lo(), o.hi()
            ps = (a * c, a * d, b * c, b * d)
            return Ball.from_ends(min(ps) >> _P, ceil_shift(max(ps), _P))
        if isinstance(o, int):
            return Ball(self.m * o, self.r * abs(o))
        return NotImplemented

    __rmul__ = __mul__

    def recip(self) -> "Ball":
        """1/x; raises :class:`BallError` when the ball contains 0."""
        lo, hi = self.lo(), self.hi()
        if lo <= 0 <= hi:
            raise BallError("a divisor ball contains 0")
        num = 1 << (2 * _P)
        # 1/x is decreasing on each side of 0: [1/hi, 1/lo] scaled by 2^P.
        return Ball.from_ends(_div_floor(num, hi), ceil_div(num, lo))

    def sqrt(self) -> "Ball":
        """√x for a ball with x ≥ 0 (raises :class:`BallError` if it reaches below 0)."""
        lo, hi = self.lo(), self.hi()
        if lo < 0:
            raise BallError("square root of a ball reaching below 0")
        a, b = isqrt(lo << _P), isqrt(hi << _P)  # ⌊√(lo·2^P)⌋ = ⌊√lo_true·2^P⌋
        if b * b != hi << _P:
            b += 1
        return Ball.from_ends(a, b)

    def __truediv__(self, o: object) -> "Ball":
        if isinstance(o, Ball):
            return self * o.recip()
        if isinstance(o, int) and o > 0:
            return Ball.from_ends(_div_floor(self.lo(), o), ceil_div(self.hi(), o))
        return NotImplemented

    # -- elementary functions (series on integers, Lemma C1e) ----------------------------
    def exp(self) -> "Ball":
        if self.hi() > EXP_ARG_MAX << _P:  # e^{2¹⁶} would be a 94,000-bit integer: no
            # quantity of a check is that large; a ball this wide is an enclosure lost
            raise BallError(f"exp of an argument up to {float(self.hi_q()):.3g} (> 2^16): "
                            "the enclosure is too wide")
        # e^{lo·2^−P} and e^{hi·2^−P} bounded on integers (Lemma C1e: mpmath's exp is
        # accurate but not directed), each to P + 32 bits relative, then to the scale. An
        # end below −(P + 2) has e^x·2^P < 2^−2: 0 below it, 1 unit above it, no series
        # (a series of an argument of many bits costs time as the cube of its bits).
        G = _P + 32
        floor = -((_P + 2) << _P)
        if self.lo() < floor:
            lo = 0
        else:
            b, _, n = exp_scaled(self.lo(), _P, G)
            lo = _at_scale(b, n - G, up=False)
        if self.hi() < floor:
            hi = 1
        else:
            _, b, n = exp_scaled(self.hi(), _P, G)
            hi = _at_scale(b, n - G, up=True)
        return Ball.from_ends(lo, hi)


# -- relative precision (mpmath floats, directed rounding) ----------------------------------------
# Fixed-point balls have an absolute unit 2^−P: a bound of 10⁻³⁵ carries only ≈ 27 digits
# at P = 207, fewer than the 30 a certificate stores. Quantities that may be that small —
# the tail bounds δ₀, η₀ of Lemma T4 and κ of Lemma T8 — are bounded in mpmath floats
# instead: P significant bits whatever the magnitude (e^−b for b = 10⁶⁹ included).

def sqrt_up(q: Fraction, bits: int) -> Fraction:
    """A rational > √q for q = n/d ≥ 0, exact integers: (⌊√(n·d·4^bits)⌋ + 1)/(d·2^bits),
    above √q by at most 1/(d·2^bits)."""
    n, d = q.numerator, q.denominator
    return Fraction(isqrt(n * d * 4 ** bits) + 1, d * 2 ** bits)


def mpf_up(q: Fraction) -> tuple:
    """An mpf ≥ the rational q (P significant bits)."""
    return L.from_rational(q.numerator, q.denominator, _P, L.round_ceiling)


def mpf_down(q: Fraction) -> tuple:
    """An mpf ≤ the rational q."""
    return L.from_rational(q.numerator, q.denominator, _P, L.round_floor)


#: Arguments of :func:`exp_up` / :func:`exp_down` beyond 2^this are bounded without a series
_EXP_MPF_BITS = 4096


def _exp_mpf(x: tuple, up: bool) -> tuple:
    """e^x for a finite mpf x, bounded on integers (Lemma C1e), rounded to P bits."""
    man, e = _signed_man_exp(x)
    if man.bit_length() + e > _EXP_MPF_BITS:  # |x| ≥ 2^4096: no series, only a bound
        if man > 0:
            raise BallError("exp of an argument beyond 2^4096")
        # x < 0: 0 ≤ e^x ≤ 2^x ≤ 2^⌈x⌉ (e > 2)
        return L.from_man_exp(1, ceil_shift(man, -e) if e < 0 else man << e) if up \
            else L.fzero
    if e >= 0:
        man, e = man << e, 0
    G = _P + 32
    lo, hi, n = exp_scaled(man, -e, G)
    return L.from_man_exp(hi if up else lo, n - G, _P, L.round_ceiling if up else L.round_floor)


def exp_up(x: tuple) -> tuple:
    """An mpf ≥ e^x for the mpf x."""
    return _exp_mpf(x, up=True)


def exp_down(x: tuple) -> tuple:
    """An mpf ≤ e^x for the mpf x."""
    return _exp_mpf(x, up=False)


def mul_up(*xs: tuple) -> tuple:
    """An mpf ≥ the product of nonnegative mpfs."""
    out = xs[0]
    for x in xs[1:]:
        out = L.mpf_mul(out, x, _P, L.round_ceiling)
    return out


def mul_down(*xs: tuple) -> tuple:
    """An mpf ≤ the product of nonnegative mpfs."""
    out = xs[0]
    for x in xs[1:]:
        out = L.mpf_mul(out, x, _P, L.round_floor)
    return out


def div_up(x: tuple, y: tuple) -> tuple:
    """An mpf ≥ x/y for nonnegative x and positive y."""
    return L.mpf_div(x, y, _P, L.round_ceiling)


def div_down(x: tuple, y: tuple) -> tuple:
    """An mpf ≤ x/y for nonnegative x and positive y."""
    return L.mpf_div(x, y, _P, L.round_floor)


def add_up(x: tuple, y: tuple) -> tuple:
    """An mpf ≥ x + y."""
    return L.mpf_add(x, y, _P, L.round_ceiling)


def add_down(x: tuple, y: tuple) -> tuple:
    """An mpf ≤ x + y."""
    return L.mpf_add(x, y, _P, L.round_floor)


def le_q(x: tuple, q: Fraction) -> bool:
    """True only if the mpf x ≤ the rational q (compared with a lower bound of q)."""
    return L.mpf_cmp(x, mpf_down(q)) <= 0


def mpf_fraction(x: tuple, cap: Fraction) -> Fraction:
    """A rational in [x, cap] for an mpf 0 ≤ x ≤ cap: min(x, cap) exactly, or cap itself
    when x = man·2^exp has exp < −10⁶ (too small to write out as a fraction; the caller
    uses the result as an upper bound)."""
    sign, man, exp, _ = x
    if not man or exp < -1_000_000:
        return cap if man else Fraction(0)
    return min(cap, Fraction(man << exp) if exp >= 0 else Fraction(man, 1 << -exp))


def _show(q: Fraction) -> str:
    """A display of q with 25 significant digits (for messages only)."""
    from decimal import Context, Decimal  # lazy: only the decimal output path needs it

    ctx = Context(prec=25)
    return str(ctx.divide(Decimal(q.numerator), Decimal(q.denominator)))


def _at_scale(v: int, e: int, up: bool) -> int:
    """⌊v·2^e·2^P⌋ (or ⌈…⌉ with ``up``): the dyadic v·2^e in units of the scale."""
    s = e + _P
    if s >= 0:
        return v << s
    return ceil_shift(v, -s) if up else v >> -s


def _signed_man_exp(x: tuple) -> tuple[int, int]:
    """(signed mantissa, exponent) of a finite raw mpf (``to_man_exp`` drops the sign)."""
    sign, man, exp, _ = x
    if not man:
        if exp:  # inf or nan
            raise BallError("mpmath returned a non-finite value")
        return 0, 0
    return (-man if sign else man), exp


def const(q: Fraction | int) -> Ball:
    """The tightest ball (radius ≤ 1 unit) containing the rational q."""
    q = Fraction(q)
    num = q.numerator << _P
    lo = _div_floor(num, q.denominator)
    hi = ceil_div(num, q.denominator)
    return Ball.from_ends(lo, hi)


def interval(lo: Fraction, hi: Fraction) -> Ball:
    """A ball containing the rational interval [lo, hi]."""
    a, b = const(lo), const(hi)
    return Ball.from_ends(a.lo(), b.hi())


class RadiusOverflow(ArithmeticError):
    """A radius bound left the range of binary64: redo the computation in integers."""


class ExactRadii:
    """Radius bounds as Python integers at the scale 2^−P: exact (Lemma C1)."""

    def mag(self, m: np.ndarray) -> np.ndarray:
        """Upper bounds of |m| for an integer array m."""
        return abs(m)

    def of_ints(self, r: np.ndarray) -> np.ndarray:
        return r

    def to_ints(self, r: np.ndarray) -> np.ndarray:
        return r

    def zeros(self, shape: tuple) -> np.ndarray:
        return np.zeros(shape, dtype=object)

    def check(self, r: np.ndarray) -> None:
        """Nothing to check: integers do not overflow."""

    def absolute(self, r: np.ndarray, P: int) -> np.ndarray:
        """Floats of the radii r·2^−P (float() and ldexp: at most two roundings)."""
        return np.ldexp(np.asarray(r, dtype=object).astype(np.float64), -P)

    def dot(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a.dot(b)

    def prod_sum(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Σ over axis 0 of a·b (broadcasting)."""
        return (a * b).sum(axis=0)

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a + b

    def sum(self, a: np.ndarray, axis: int) -> np.ndarray:
        return a.sum(axis=axis)

    def mul_int(self, a: np.ndarray, w: np.ndarray) -> np.ndarray:
        """a·w for nonnegative integers w."""
        return a * w

    def shift_up(self, a: np.ndarray, s: int) -> np.ndarray:
        """⌈a / 2^s⌉ + 1: the radius of a product rounded to the scale (Lemma C1)."""
        return -((-a) >> s) + 1

    def div_up(self, a: np.ndarray, k: int) -> np.ndarray:
        """⌈a / k⌉ + 1: the radius after the midpoint's floor division by k."""
        return -((-a) // k) + 1

    # Ball products on integer arrays: (m, |m| bound, radius) per factor; the midpoints are
    # summed exactly and floored to the scale, the radius terms rounded up (Lemma C1).
    def ball_dot(self, am, aa, ar, bm, ba, br) -> tuple[np.ndarray, np.ndarray]:
        """Matrix (or matrix–vector) product."""
        rad = self.add(self.add(self.dot(aa, br), self.dot(ar, ba)), self.dot(ar, br))
        return am.dot(bm) >> _P, self.shift_up(rad, _P)

    def ball_conv(self, am, aa, ar, bm, ba, br) -> tuple[np.ndarray, np.ndarray]:
        """Σ over axis 0 of the entrywise products (broadcasting): a Cauchy convolution."""
        rad = self.add(self.add(self.prod_sum(aa, br), self.prod_sum(ar, ba)),
                       self.prod_sum(ar, br))
        return (am * bm).sum(axis=0) >> _P, self.shift_up(rad, _P)


def _up(x: np.ndarray, depth: int) -> np.ndarray:
    """fl(x·(1 + (depth + 2)·2^−51)): ≥ every real that x approximates from below by at most
    ``depth`` roundings to nearest of nonnegative, non-underflowing numbers (Lemma C1f)."""
    return x * (1.0 + (depth + 2) * 2.0 ** -51)


class FloatRadii(ExactRadii):
    """Radius bounds as binary64 numbers (Lemma C1f): a bound b of an integer quantity x
    at the scale 2^−P stands for x ≤ b·2^σ, with σ = max(0, P − FLOAT_SPAN) chosen so that
    products of two bounds stay below binary64's overflow at any P ≤ FLOAT_MAX_SCALE.
    Every stored bound is 0 or ≥ 2^−σ (≥ 2^−500), so nothing underflows, and every
    rounded sum, product or dot product is inflated by its number of roundings. Infinite
    or NaN bounds (overflow) raise :class:`RadiusOverflow` at :meth:`to_ints`; the caller
    then uses :class:`ExactRadii`."""

    def __init__(self) -> None:
        self.sigma = max(0, _P - FLOAT_SPAN)
        self._unit = 2.0 ** -self.sigma  # one unit of the scale, as a bound

    def mag(self, m: np.ndarray) -> np.ndarray:
        a = np.abs(m)
        try:  # float(int) rounds to nearest once, ldexp is exact (≥ 2^−σ: normal)
            f = np.ldexp(a.astype(np.float64), -self.sigma)
        except OverflowError:  # beyond binary64: ⌊|m|/2^σ⌋ + 1 ≥ |m|/2^σ in integers first
            try:
                f = ((a >> self.sigma) + 1).astype(np.float64)
            except OverflowError:
                raise RadiusOverflow("a midpoint beyond binary64") from None
        return _up(f, 1)  # _up makes the rounded conversion an upper bound

    of_ints = mag

    def to_ints(self, r: np.ndarray) -> np.ndarray:
        x = np.ldexp(r, self.sigma)  # exact: a normal number times a power of two, or inf
        if not np.all(np.isfinite(x)):
            raise RadiusOverflow("a radius bound beyond binary64")
        out = np.empty(r.shape, dtype=object)
        out.flat[:] = [int(v) + 1 for v in np.floor(x).flat]  # ≥ x, exact integers
        return out

    def check(self, r: np.ndarray) -> None:
        """Raise :class:`RadiusOverflow` if a bound is infinite or NaN (an overflow on the
        way: every later bound built from it is void)."""
        if not np.all(np.isfinite(r)):
            raise RadiusOverflow("a radius bound beyond binary64")

    def absolute(self, r: np.ndarray, P: int) -> np.ndarray:
        """Floats whose exact values are ≥ (the radii r)·2^−P up to one rounding of the
        scaling (an underflow included: the caller adds its margin, Lemma C13)."""
        return np.ldexp(r, self.sigma - P)

    def zeros(self, shape: tuple) -> np.ndarray:
        return np.zeros(shape)

    def dot(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        # each term: 1 product and ≤ L − 1 additions, in any order (2 spare)
        return _up(a.dot(b), a.shape[-1] + 2)

    def prod_sum(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        L = np.broadcast_shapes(a.shape, b.shape)[0]
        return _up((a * b).sum(axis=0), L + 2)

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return _up(a + b, 1)

    def sum(self, a: np.ndarray, axis: int) -> np.ndarray:
        return _up(a.sum(axis=axis), a.shape[axis])

    def mul_int(self, a: np.ndarray, w: np.ndarray) -> np.ndarray:
        return _up(a * w.astype(np.float64), 2)

    def shift_up(self, a: np.ndarray, s: int) -> np.ndarray:
        # a bounds a product of two quantities (2^2σ per unit): ⌈a·2^2σ/2^s⌉ + 1 units are
        # ≤ (a·2^{σ−s} + 2)·2^σ. The scaling is exact unless it underflows (then off by
        # < 2^−1074, which 2^−20 of a unit, ≥ 2^−520, covers); one rounded addition.
        if self.sigma == 0:  # a ≥ 1 (or 0), s ≤ 1000: a·2^−s is normal, ldexp and ceil exact
            return _up(np.ceil(np.ldexp(a, -s)) + 1.0, 1)
        return _up(np.ldexp(a, self.sigma - s) + (2 + 2.0 ** -20) * self._unit, 1)

    def div_up(self, a: np.ndarray, k: int) -> np.ndarray:
        if self.sigma == 0:
            return _up(np.ceil(_up(a / float(k), 1)) + 1.0, 1)
        return _up(_up(a / float(k), 1) + 2 * self._unit, 1)  # ⌈x/k⌉ + 1 ≤ x/k + 2


#: FloatRadii keeps its bounds within 2^FLOAT_SPAN per unit of the midpoints' scale, and
#: is used up to the scale FLOAT_MAX_SCALE (so that σ ≤ 500: products of two bounds are
#: ≥ 2^−1000, normal numbers). Beyond it, exact integer radii.
FLOAT_SPAN, FLOAT_MAX_SCALE = 200, 700


def with_radii(compute):
    """``compute(R)`` with binary64 radius bounds (Lemma C1f) where the scale allows, and
    again with exact integer radii if a bound leaves binary64's range (or P > FLOAT_MAX_SCALE)."""
    if _P <= FLOAT_MAX_SCALE:
        try:
            return compute(FloatRadii())
        except RadiusOverflow:
            pass
    return compute(ExactRadii())


def _parts(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer arrays of the midpoints and radii of an array of :class:`Ball`."""
    m = np.array([x.m for x in X.flat], dtype=object).reshape(X.shape)
    return m, np.array([x.r for x in X.flat], dtype=object).reshape(X.shape)


def bdot(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """The matrix (or matrix–vector) product of arrays of real :class:`Ball`.

    Each entry is Σ_k a_k b_k with a_k = (m_k ± r_k)·2^−P: the exact value lies within
    (Σ|m_k| s_k + r_k|n_k| + r_k s_k)·2^−2P of (Σ m_k n_k)·2^−2P (b_k = (n_k ± s_k)·2^−P),
    summed exactly in integers and rounded once: the midpoint by a floor (< 1 unit, hence
    the + 1), the radius up (Lemma C1) — the radius terms in binary64 with every rounding
    accounted for (Lemma C1f; in integers beyond binary64's range). The same bound as
    entrywise :class:`Ball` products
    when one factor is a point; for two wide factors it may exceed the end-point product by
    at most the r·s term. Integer arrays instead of Ball objects: ≈ 20× faster for the
    N×N products of the Lohner and variational checks.
    """
    (am, ar), (bm, br) = _parts(A), _parts(B)

    def product(R: ExactRadii) -> tuple[np.ndarray, np.ndarray]:
        m, r = R.ball_dot(am, R.mag(am), R.of_ints(ar), bm, R.mag(bm), R.of_ints(br))
        return m, R.to_ints(r)
    m, r = with_radii(product)
    out = np.empty(np.shape(m), dtype=object)
    out.flat[:] = [Ball(x, y) for x, y in zip(np.ravel(m), np.ravel(r))]
    return out
