"""Binary64 midpoint–radius balls for the checker's low-precision work (Lemmas C13–C14).

Contract
--------
An :class:`FB` ``(m, r)`` holds two float64 arrays of one shape and stands for every real
array X with |X − m| ≤ r entrywise (r ≥ 0). Every operation returns a ball that contains
the exact result for every choice of points in its arguments. A ball with an infinite or
NaN entry proves nothing: a containment test answers False when the inner ball is not
finite (NaN compares false), and :meth:`FB.finite` raises :class:`~.balls.BallError`. :class:`FC` is a
complex rectangle re + i·im of two :class:`FB`.

Rounding (``proofs_notes/checker.md``): IEEE 754 binary64, round to nearest. A radius is
computed as a nonnegative expression and inflated by :func:`up` (Lemma C13: ≥ the exact
value, underflow included); a single rounded operation is bracketed by the neighbouring
floats (:func:`dn`, :func:`nx`, Lemma C13b). exp, cos and sin are evaluated by range
reduction with constants from mpmath's directed rounding and polynomials whose rounding
error is bounded a priori (Lemma C14).

What needs many digits (the Taylor polynomial at the set's centre, the centre itself) is
not here but in :mod:`.balls` (exact integers); these balls carry what only needs a few
digits relative to its own size: boxes of the tube, Jacobians, the Picard test, the
Lohner coordinates (scaled by a power of two) and high Taylor orders.
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial

import mpmath.libmp as L
import numpy as np

from .balls import Ball, BallError, scale
from .elementary import ln2_scaled, pi_scaled

__all__ = ["FB", "FC", "add_parts", "bilinear", "bilinear_parts", "ccontract", "up", "dn",
           "nx", "fconst", "finterval", "from_balls", "from_ends", "lower", "meet",
           "mul_parts", "sum_parts", "to_balls", "upper", "exp_bounds"]

U = 2.0 ** -53  # unit roundoff
ETA = 2.0 ** -1000  # absolute slack of every radius: covers underflow (Lemma C13)
TINY = 2.0 ** -1000  # an upper bound of e^v for v ≤ -740
MAXF = np.finfo(np.float64).max


def up(x: np.ndarray, D: int) -> np.ndarray:
    """fl(fl(x·(1 + (D + 4)·2⁻⁵¹)) + 2⁻¹⁰⁰⁰): at least the exact value of a nonnegative
    expression whose computed value is x, if every term passes at most D roundings, there
    are at most 2⁵⁰ products, and a rounded value is multiplied only by constants ≤ 1
    (every other factor a given float or a sum of them): Lemma C13, underflow included."""
    return x * (1.0 + (D + 4) * 2.0 ** -51) + ETA


def dn(x: np.ndarray) -> np.ndarray:
    """The float below x: ≤ the exact result of the one operation that gave x (C13b)."""
    return np.nextafter(x, -np.inf)


def nx(x: np.ndarray) -> np.ndarray:
    """The float above x: ≥ the exact result of the one operation that gave x (C13b)."""
    return np.nextafter(x, np.inf)


# -- Lemma C13's formulas on raw arrays ---------------------------------------------------------
# (midpoint, radius) in, (midpoint, radius) out. FB's operations are these; the jets'
# binary64 tail (dynamics.py) calls them directly on arrays indexed by order, keeping
# |midpoint| with each series, without an FB object per operation.

def add_parts(am: np.ndarray, ar: np.ndarray, bm, br) -> tuple[np.ndarray, np.ndarray]:
    """(m, r) of the sum of the balls am ± ar and bm ± br (C13.2)."""
    m = am + bm
    return m, up(ar + br + 2 * U * np.abs(m), 3)


def mul_parts(am: np.ndarray, ar: np.ndarray, bm, br) -> tuple[np.ndarray, np.ndarray]:
    """(m, r) of the product of the balls am ± ar and bm ± br, entrywise (C13.3)."""
    m = am * bm
    return m, up(np.abs(am) * br + ar * (np.abs(bm) + br) + 2 * U * np.abs(m), 4)


def bilinear_parts(op, a: tuple, b: tuple, L_: int) -> tuple[np.ndarray, np.ndarray]:
    """(m, r) of ``op(a, b)`` for balls given as triples (midpoints, |midpoints|, radii);
    ``op`` and L_ as in :func:`bilinear` (C13.4)."""
    m = op(a[0], b[0])
    # 2Lu multiplies a computed sum, never a factor of a later product (Lemma C13: an
    # underflowed term must not be multiplied by something large)
    return m, up(op(a[1], b[2]) + op(a[2], b[1] + b[2]) + 2 * L_ * U * op(a[1], b[1]), L_ + 3)


def sum_parts(m: np.ndarray, a: np.ndarray, r: np.ndarray, axis: int, keepdims: bool = False
              ) -> tuple[np.ndarray, np.ndarray]:
    """(m, r) of Σ along ``axis`` (L terms) of the balls m ± r, a = |m|:
    |fl(Σ) − Σ| ≤ γ_L Σ|m| (C13)."""
    L_ = m.shape[axis]
    return m.sum(axis=axis, keepdims=keepdims), \
        up(r.sum(axis=axis, keepdims=keepdims) + 2 * L_ * U * a.sum(axis=axis, keepdims=keepdims),
           L_ + 3)


def _arr(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


class FB:
    """Real binary64 ball array m ± r (module docstring states the contract)."""

    __slots__ = ("m", "r")
    __array_ufunc__ = None  # numpy must hand mixed expressions to these methods

    def __init__(self, m, r=None) -> None:
        self.m = m if type(m) is np.ndarray and m.dtype == np.float64 else _arr(m)
        if r is None:
            self.r = np.zeros_like(self.m)
        elif type(r) is np.ndarray and r.shape == self.m.shape and r.dtype == np.float64:
            self.r = r
        else:
            self.r = np.broadcast_to(_arr(r), self.m.shape)

    # -- shape ---------------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return self.m.shape

    def __getitem__(self, idx) -> "FB":
        return FB(self.m[idx], self.r[idx])

    def __setitem__(self, idx, v: "FB") -> None:
        if not self.m.flags.writeable:
            self.m = self.m.copy()
        if not self.r.flags.writeable:
            self.r = self.r.copy()
        self.m[idx], self.r[idx] = v.m, v.r

    def reshape(self, *shape) -> "FB":
        return FB(self.m.reshape(*shape), self.r.reshape(*shape))

    def transpose(self, *axes) -> "FB":
        return FB(self.m.transpose(*axes), self.r.transpose(*axes))

    def copy(self) -> "FB":
        return FB(self.m.copy(), self.r.copy())

    # -- reading -------------------------------------------------------------------------
    def lo(self) -> np.ndarray:
        """Floats ≤ the lower end points."""
        return dn(self.m - self.r)

    def hi(self) -> np.ndarray:
        """Floats ≥ the upper end points."""
        return nx(self.m + self.r)

    def mag(self) -> np.ndarray:
        """Floats ≥ |x| for every point."""
        return nx(np.abs(self.m) + self.r)

    def finite(self) -> "FB":
        if not (np.all(np.isfinite(self.m)) and np.all(np.isfinite(self.r))):
            raise BallError("a binary64 enclosure is not finite")
        return self

    def contains(self, o: "FB") -> np.ndarray:
        """True where o ⊆ self is proved (never for non-finite balls)."""
        return (nx(self.m - self.r) <= o.lo()) & (o.hi() <= dn(self.m + self.r))

    def contains_interior(self, o: "FB") -> np.ndarray:
        return (nx(self.m - self.r) < o.lo()) & (o.hi() < dn(self.m + self.r))

    # -- ring operations (Lemma C13) ------------------------------------------------------
    def __neg__(self) -> "FB":
        return FB(-self.m, self.r)

    def __add__(self, o) -> "FB":
        if isinstance(o, FC):
            return o + self
        o = _fb(o)
        return FB(*add_parts(self.m, self.r, o.m, o.r))

    __radd__ = __add__

    def __sub__(self, o) -> "FB":
        return self + (-o if isinstance(o, FC) else -_fb(o))

    def __rsub__(self, o) -> "FB":
        return _fb(o) + (-self)

    def __mul__(self, o) -> "FB":
        if isinstance(o, FC):
            return o * self
        o = _fb(o)
        return FB(*mul_parts(self.m, self.r, o.m, o.r))

    __rmul__ = __mul__

    def sum(self, axis: int) -> "FB":
        """Σ along ``axis`` (L terms): |fl(Σ) − Σ| ≤ γ_L Σ|m| (Lemma C13)."""
        return FB(*sum_parts(self.m, np.abs(self.m), self.r, axis))

    def sqr(self) -> "FB":
        """x², tight when the ball contains 0 (end points)."""
        lo, hi = self.lo(), self.hi()
        a, b = np.abs(lo), np.abs(hi)
        big, small = np.maximum(a, b), np.minimum(a, b)
        top = nx(big * big)  # one rounding each (an explicit product, not pow)
        bot = np.where((lo <= 0) & (hi >= 0), 0.0, dn(small * small))
        return from_ends(np.maximum(bot, 0.0), top)

    def recip(self) -> "FB":
        """1/x; :class:`BallError` if a ball may contain 0 (1/x is monotone on each side)."""
        lo, hi = self.lo(), self.hi()
        if not np.all((lo > 0) | (hi < 0)):
            raise BallError("a divisor ball contains 0")
        return from_ends(dn(1.0 / hi), nx(1.0 / lo))

    def exp(self) -> "FB":
        """e^x from the end points (exp is increasing; Lemma C14)."""
        lo, hi = exp_bounds(np.stack([self.lo(), self.hi()]))
        return from_ends(lo[0], hi[1])

    def cos_sin(self) -> tuple["FB", "FB"]:
        """(cos x, sin x) as the intersection of two enclosures (Lemma C14):
        :meth:`cos_sin_midpoint` and :meth:`cos_sin_range`."""
        mid_c, mid_s = self.cos_sin_midpoint()
        rng_c, rng_s = self.cos_sin_range()
        return meet(rng_c, mid_c), meet(rng_s, mid_s)

    def cos_sin_midpoint(self) -> tuple["FB", "FB"]:
        """cos(m + δ) ∈ cos m ± (|δ||sin m| + δ²/2), likewise sin."""
        c, s = _cos_sin_points(self.m)
        r = self.r
        r2 = 0.5 * r * r
        return FB(c.m, up(c.r + r * s.mag() + r2, 4)), FB(s.m, up(s.r + r * c.mag() + r2, 4))

    def cos_sin_range(self) -> tuple["FB", "FB"]:
        """Between the values at the end points, extended to ±1 where an extremum kπ (of
        cos) or π/2 + kπ (of sin) may lie in the ball (detected on x/π with a margin of
        10⁻⁶, far above its rounding error for |x| ≤ 2^20); [−1, 1] beyond 2^20."""
        lo, hi = self.lo(), self.hi()
        (cl, sl), (ch, sh) = _cos_sin_points(lo), _cos_sin_points(hi)
        a, b = lo * _INV_PI - 1e-6, hi * _INV_PI + 1e-6  # x/π, widened

        def has(k0: float) -> np.ndarray:  # an integer k ≡ k0 (mod 2) in [a, b]?
            first = np.ceil((a - k0) / 2.0) * 2.0 + k0
            return ~(first > b)  # NaN: yes

        wide = ~((np.abs(lo) <= 2.0 ** 20) & (np.abs(hi) <= 2.0 ** 20))
        c_lo = np.where(has(1.0) | wide, -1.0, np.minimum(cl.lo(), ch.lo()))
        c_hi = np.where(has(0.0) | wide, 1.0, np.maximum(cl.hi(), ch.hi()))
        s_lo = np.where(has(1.5) | wide, -1.0, np.minimum(sl.lo(), sh.lo()))  # −π/2 + 2kπ
        s_hi = np.where(has(0.5) | wide, 1.0, np.maximum(sl.hi(), sh.hi()))
        return (from_ends(np.maximum(c_lo, -1.0), np.minimum(c_hi, 1.0)),
                from_ends(np.maximum(s_lo, -1.0), np.minimum(s_hi, 1.0)))

    def union(self, o: "FB") -> "FB":
        return from_ends(np.minimum(self.lo(), o.lo()), np.maximum(self.hi(), o.hi()))

    def scaled(self, e: int) -> "FB":
        """2^e·x (exact for e ≥ 0 unless it overflows; for e < 0 an underflow is covered)."""
        if e >= 0:
            return FB(np.ldexp(self.m, e), np.ldexp(self.r, e))
        return FB(np.ldexp(self.m, e), up(np.ldexp(self.r, e), 1))

    def widen(self, extra) -> "FB":
        """The same midpoints with the radii increased by ``extra`` (≥ 0)."""
        return FB(self.m, up(self.r + extra, 1))

    def __repr__(self) -> str:
        if self.m.ndim == 0:
            return f"[{float(self.lo())!r}, {float(self.hi())!r}]"
        return f"FB(shape={self.shape})"


def _fb(x) -> FB:
    """A ball for x: FB as is; a Python/numpy number or float array as an exact point."""
    if isinstance(x, FB):
        return x
    if isinstance(x, (int, float, np.ndarray, np.floating)):
        a = _arr(x)
        if isinstance(x, int) and float(a) != x:
            raise BallError("an integer is not a binary64 number")
        return FB(a)
    raise TypeError(f"not a binary64 ball: {type(x).__name__}")


def from_ends(lo: np.ndarray, hi: np.ndarray) -> FB:
    """The ball of [lo, hi] (float end points; the midpoint is any float, the radius the
    next float above each one-rounding difference: Lemma C13b)."""
    m = 0.5 * lo + 0.5 * hi
    return FB(m, nx(np.maximum(hi - m, m - lo)))


def bilinear(op, a: FB, b: FB, L_: int) -> FB:
    """``op(a, b)`` on balls, for a bilinear numpy operation ``op`` each of whose outputs is
    a sum of at most L_ products of an entry of a and an entry of b, summed in any order
    (a matrix product through BLAS, an einsum, products summed over an axis). Lemma C13:
    |fl(Σ m_a m_b) − Σ m_a m_b| ≤ γ_L Σ|m_a||m_b| ≤ 2Lu Σ|m_a||m_b| (+ underflow)."""
    return FB(*bilinear_parts(op, (a.m, np.abs(a.m), a.r), (b.m, np.abs(b.m), b.r), L_))


def fconst(q) -> FB:
    """A ball containing the rational q (or an array of rationals)."""
    qs = np.asarray(q, dtype=object)
    try:  # float(Fraction) and float(int) are correctly rounded
        m = np.array([float(x) if isinstance(x, (Fraction, int)) else float(Fraction(x))
                      for x in qs.flat], dtype=np.float64).reshape(qs.shape)
    except OverflowError:
        raise BallError("a number beyond binary64") from None
    return FB(m, up(2 * U * np.abs(m), 1))  # |q − fl(q)| ≤ u|q| (+ underflow)


def upper(q: Fraction) -> float:
    """A float ≥ the rational q (inf beyond binary64)."""
    try:
        x = float(q)
    except OverflowError:
        return np.inf if q > 0 else -MAXF
    return x if Fraction(x) >= q else float(nx(x))


def lower(q: Fraction) -> float:
    """A float ≤ the rational q."""
    return -upper(-q)


def finterval(pairs) -> FB:
    """Balls containing the rational intervals [lo, hi] (a sequence of pairs)."""
    lo = np.array([lower(a) for a, _ in pairs], dtype=np.float64)
    hi = np.array([upper(b) for _, b in pairs], dtype=np.float64)
    return from_ends(lo, hi)


def from_balls(X: np.ndarray, shift: int = 0) -> FB:
    """Balls containing 2^shift·x for each exact :class:`~.balls.Ball` x of the array X."""
    P = scale()
    ms, rs = [], []
    for x in np.asarray(X, dtype=object).flat:
        m, r = x.m, x.r
        s = max(m.bit_length(), r.bit_length()) - 900  # float() of m, r stays finite
        if s > 0:
            m, r = m >> s, (r >> s) + 2
        else:
            s = 0
        ms.append(np.ldexp(float(m), s + shift - P))
        rs.append(np.ldexp(float(r), s + shift - P))
    m = np.array(ms, dtype=np.float64).reshape(np.shape(X))
    r = np.array(rs, dtype=np.float64).reshape(np.shape(X))
    # float(int) rounds once, ldexp at most once more (underflow): 4u|m| + η per entry.
    return FB(m, up(r + 4 * U * np.abs(m), 4))


def to_balls(x: FB, shift: int = 0) -> np.ndarray:
    """Exact :class:`~.balls.Ball` enclosures of 2^shift times the binary64 balls."""
    x.finite()
    P = scale() + shift
    out = np.empty(x.shape, dtype=object)
    for idx in np.ndindex(x.shape):
        m, r = Fraction(float(x.m[idx])), Fraction(float(x.r[idx]))
        lo, hi = (m - r) * Fraction(2) ** P, (m + r) * Fraction(2) ** P
        out[idx] = Ball.from_ends(lo.numerator // lo.denominator, -((-hi.numerator) // hi.denominator))
    return out


# -- elementary functions (Lemma C14) -------------------------------------------------------------

def _directed(raw: tuple, rnd) -> float:
    return L.to_float(raw, rnd=rnd)


def _split(const_raw_lo: tuple, const_raw_hi: tuple, frac_bits: int
           ) -> tuple[float, float, float]:
    """(C1, C2lo, C2hi): C1 the constant truncated to ``frac_bits`` bits after the point
    (32 significant bits here, so k·C1 is exact for |k| < 2^20: at most 52 bits), and
    C2 = constant − C1 enclosed by directed rounding."""
    c1_raw = L.mpf_shift(L.from_int(L.to_int(L.mpf_shift(const_raw_lo, frac_bits),
                                                 L.round_floor)), -frac_bits)
    lo = _directed(L.mpf_sub(const_raw_lo, c1_raw, 200, L.round_floor), L.round_floor)
    hi = _directed(L.mpf_sub(const_raw_hi, c1_raw, 200, L.round_ceiling), L.round_ceiling)
    return _directed(c1_raw, L.round_nearest), lo, hi


_PREC = 200
# ln 2 and π/2 from series on integers (Lemma C1e), not mpmath's constants, whose directed
# rounding is not guaranteed like that of its arithmetic
_LN2 = _split(*(L.from_man_exp(v, -_PREC) for v in ln2_scaled(_PREC)), 32)  # < 1
_HALF_PI = _split(*(L.from_man_exp(v, -_PREC - 1) for v in pi_scaled(_PREC)), 31)  # in [1, 2)
#: Taylor coefficients as floats (the polynomials of Lemma C14 are those with these
#: coefficients; their distance to 1/j! is part of the bound).
_EXP_C = [float(Fraction(1, factorial(j))) for j in range(18)]  # degree 17
_COS_C = [(-1) ** j * float(Fraction(1, factorial(2 * j))) for j in range(11)]  # t^0 … t^20
_SIN_C = [(-1) ** j * float(Fraction(1, factorial(2 * j + 1))) for j in range(11)]  # t^1 … t^21
_INV_PI = 0.3183098861837907  # fl(1/π): only locates extrema, with a 10⁻⁶ margin
_EXP_ERR = 2.0 ** -47  # |p̂(t) − e^t| for |t| ≤ 0.3466 (Lemma C14)
_TRIG_ERR = 2.0 ** -48  # |ĉ(t) − cos t|, |ŝ(t) − sin t| for |t| ≤ 0.7854 + 2^-30


def _reduce(v: np.ndarray, const: tuple, inv: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """k = rint(v·inv) and t = v − k·constant enclosed as tm ± tr (k·C1 exact for
    |k| < 2^20, C13b)."""
    c1, c2lo, c2hi = const
    k = np.rint(v * inv)
    t1 = v - k * c1  # k·C1 exact (|k| < 2^21); one rounding
    p, q = k * c2lo, k * c2hi
    klo, khi = dn(np.minimum(p, q)), nx(np.maximum(p, q))
    tlo, thi = dn(dn(t1) - khi), nx(nx(t1) - klo)
    tm = 0.5 * tlo + 0.5 * thi
    return k, tm, nx(np.maximum(thi - tm, tm - tlo))


def _horner(coeffs: list[float], x: np.ndarray) -> np.ndarray:
    acc = np.full(x.shape, coeffs[-1])
    for c in reversed(coeffs[:-1]):
        acc = acc * x + c
    return acc


def exp_bounds(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Floats lo ≤ e^v ≤ hi for every float v (Lemma C14): v = k ln 2 + t, |t| ≤ 0.3466,
    e^t by the degree-17 Taylor polynomial in binary64 (error ≤ 2⁻⁴⁷ + 1.5·|t − tm|),
    times 2^k. Beyond the range of binary64 the bounds are 0, 2⁻¹⁰⁰⁰, DBL_MAX or inf."""
    v = _arr(v)
    vc = np.clip(np.nan_to_num(v, nan=0.0), -740.0, 700.0)
    k, tm, tr = _reduce(vc, _LN2, 1.4426950408889634)
    p = _horner(_EXP_C, tm)
    err = up(_EXP_ERR + 1.5 * tr, 2)
    lo = np.maximum(dn(np.ldexp(dn(p - err), k.astype(np.int64))), 0.0)
    hi = nx(np.ldexp(nx(p + err), k.astype(np.int64)))
    lo = np.where(v < -740.0, 0.0, lo)  # e^v < e^-740 < 2^-1000 = TINY there
    hi = np.where(v > 700.0, np.inf, np.where(v < -740.0, TINY, hi))
    bad = ~np.isfinite(v) | (np.abs(tr) > 2.0 ** -30)
    return np.where(bad, 0.0, lo), np.where(bad, np.inf, hi)


def _cos_sin_points(v: np.ndarray) -> tuple[FB, FB]:
    """Balls of cos v and sin v for floats v (Lemma C14); (0 ± 1) where |v| > 2^20."""
    big = ~(np.abs(v) <= 2.0 ** 20)
    vv = np.where(big, 0.0, v)
    j, tm, tr = _reduce(vv, _HALF_PI, 0.6366197723675814)
    ok = ~big & (np.abs(tm) + tr <= 0.7853981633974483 + 2.0 ** -30)
    x = tm * tm
    c = _horner(_COS_C, x)
    s = tm * _horner(_SIN_C, x)
    err = up(_TRIG_ERR + tr, 1)  # |cos'|, |sin'| ≤ 1 on [tm − tr, tm + tr]
    q = np.mod(j.astype(np.int64), 4)
    # rotation by j·π/2 (exact sign changes and swaps)
    cm = np.choose(q, [c, -s, -c, s])
    sm = np.choose(q, [s, c, -s, -c])
    cr = np.where(ok, err, 1.0)
    return (FB(np.where(ok, cm, 0.0), cr), FB(np.where(ok, sm, 0.0), cr))


# -- complex rectangles ---------------------------------------------------------------------------

class FC:
    """The rectangles re + i·im (two :class:`FB` of one shape)."""

    __slots__ = ("re", "im")
    __array_ufunc__ = None

    def __init__(self, re: FB, im: FB) -> None:
        self.re, self.im = re, im

    @property
    def shape(self) -> tuple:
        return self.re.shape

    def __getitem__(self, idx) -> "FC":
        return FC(self.re[idx], self.im[idx])

    def __setitem__(self, idx, v) -> None:
        v = _fc(v)
        self.re[idx], self.im[idx] = v.re, v.im

    def reshape(self, *shape) -> "FC":
        return FC(self.re.reshape(*shape), self.im.reshape(*shape))

    def copy(self) -> "FC":
        return FC(self.re.copy(), self.im.copy())

    def __neg__(self) -> "FC":
        return FC(-self.re, -self.im)

    def __add__(self, o) -> "FC":
        o = _fc(o)
        return FC(self.re + o.re, self.im + o.im)

    __radd__ = __add__

    def __sub__(self, o) -> "FC":
        return self + (-_fc(o))

    def __rsub__(self, o) -> "FC":
        return _fc(o) + (-self)

    def __mul__(self, o) -> "FC":
        if not isinstance(o, FC):
            o = _fb(o)
            return FC(self.re * o, self.im * o)
        return FC(self.re * o.re - self.im * o.im, self.re * o.im + self.im * o.re)

    __rmul__ = __mul__

    def sum(self, axis: int) -> "FC":
        return FC(self.re.sum(axis), self.im.sum(axis))

    def exp(self) -> "FC":
        e = self.re.exp()
        c, s = self.im.cos_sin()
        return FC(e * c, e * s)

    def recip(self) -> "FC":
        """1/z as the intersection of two enclosures (Lemma C1, vectorized):
        :meth:`recip_rectangle` everywhere and :meth:`recip_first_order` where it applies."""
        rect = self.recip_rectangle()
        first, near = self.recip_first_order()
        if first is None:
            return rect
        re = _pick(near, meet(rect.re, first.re), rect.re)
        im = _pick(near, meet(rect.im, first.im), rect.im)
        return FC(re, im)

    def recip_rectangle(self) -> "FC":
        """z̄/(Re² + Im²)."""
        inv = (self.re.sqr() + self.im.sqr()).recip()
        return FC(self.re * inv, -(self.im * inv))

    def recip_first_order(self) -> tuple["FC | None", np.ndarray]:
        """(1/m − δ/m² ± R²/(|m|²(|m| − R)), near): the first-order form around the centre m
        with R ≥ |z − m|, valid where ``near`` (R < |m| proved); None where it is nowhere."""
        mr, mi = self.re.m, self.im.m
        rr, ri = self.re.r, self.im.r
        R = nx(np.sqrt(up(rr * rr + ri * ri, 2)))  # ≥ |z − m| (sqrt is correctly rounded)
        s2 = mr * mr + mi * mi
        m2 = FB(s2, up(4 * U * (mr * mr + mi * mi), 3))  # |m|²: γ₂ ≤ 4u of the exact sum
        m2lo = m2.lo()
        mabs = dn(np.sqrt(np.maximum(m2lo, 0.0)))  # ≤ |m|
        # den ≤ |m|²(|m| − R); the first-order form only where it is proved positive
        den = dn(np.maximum(m2lo, 0.0) * dn(mabs - R))
        near = (mabs > R) & (den > 0)
        if not np.any(near):
            return None, near
        inv_m2 = FB(np.where(near, s2, 1.0), np.where(near, m2.r, 0.0)).recip()
        one_m = FC(FB(mr) * inv_m2, -(FB(mi) * inv_m2))  # 1/m = m̄/|m|²
        w = -(one_m * one_m)  # −1/m²
        delta = FC(FB(np.zeros_like(mr), self.re.r), FB(np.zeros_like(mi), self.im.r))
        lin = one_m + w * delta
        rad2 = nx(up(R * R, 1) / np.where(near, den, 1.0))
        return FC(lin.re.widen(rad2), lin.im.widen(rad2)), near

    def contains_interior(self, o: "FC") -> np.ndarray:
        return self.re.contains_interior(o.re) & self.im.contains_interior(o.im)

    def mag(self) -> np.ndarray:
        """Floats ≥ |z| for every point."""
        a, b = self.re.mag(), self.im.mag()
        return nx(np.sqrt(up(a * a + b * b, 2)))

    def union(self, o: "FC") -> "FC":
        return FC(self.re.union(o.re), self.im.union(o.im))

def meet(a: FB, b: FB) -> FB:
    """a ∩ b where they overlap (two enclosures of one number always do; where rounding
    of a degenerate case makes them appear disjoint, a is kept)."""
    lo, hi = np.maximum(a.lo(), b.lo()), np.minimum(a.hi(), b.hi())
    ok = lo <= hi
    return from_ends(np.where(ok, lo, a.lo()), np.where(ok, hi, a.hi()))


def _pick(mask: np.ndarray, a: FB, b: FB) -> FB:
    return FB(np.where(mask, a.m, b.m), np.where(mask, a.r, b.r))


def _fc(x) -> FC:
    if isinstance(x, FC):
        return x
    x = _fb(x)
    return FC(x, FB(np.zeros_like(x.m)))


def ccontract(op, a, b, L_: int):
    """:func:`bilinear` for real or complex operands (complex products componentwise)."""
    if not isinstance(a, FC) and not isinstance(b, FC):
        return bilinear(op, a, b, L_)
    a, b = _fc(a), _fc(b)
    re = bilinear(op, a.re, b.re, L_) - bilinear(op, a.im, b.im, L_)
    im = bilinear(op, a.re, b.im, L_) + bilinear(op, a.im, b.re, L_)
    return FC(re, im)
