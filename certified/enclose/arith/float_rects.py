"""Binary64 complex rectangles for the defect step's disk cover (Lemma I12, items 11–12).

A :class:`FRect` is a pair of :class:`~certified.enclose.arith.float_balls.FMat` balls
(re, im) of one shape and stands for every complex array whose real and imaginary parts
lie in them. Every operation encloses its exact result for every choice of points in
its arguments (the enclosure contract of :mod:`certified.enclose.lohner_set`, here for
complex values), by the real ball operations of Lemma I12 and, for e^z, a proved cosine
and sine. Used to test, for thousands of complex boxes of time at once, that every
softmax row sum stays away from 0 (Lemma I10, item 3).

The independent checker has its own complex balls (``certified/checker/fballs.py``) and
imports nothing from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from certified.enclose.arith import float_balls as fb

__all__ = ["FRect", "cos_sin", "exp", "mul", "add", "sub", "matmul_real", "fsum",
           "excludes_zero", "real"]

#: π/2 ∈ PIO2 ± 2⁻⁵³ (the double nearest to π/2 is off by 6.1·10⁻¹⁷).
_PIO2 = fb.FMat(np.float64(1.5707963267948966), np.float64(2.0 ** -53))
_COS_DEG, _SIN_DEG = 24, 23  # Taylor degrees; remainders T^26/26! and T^25/25!
_COEF: dict = {}


@dataclass(frozen=True)
class FRect:
    """Complex rectangles re + i·im, two real balls of one shape."""

    re: fb.FMat
    im: fb.FMat

    def __getitem__(self, key) -> "FRect":
        return FRect(self.re[key], self.im[key])

    @property
    def shape(self) -> tuple:
        return self.re.shape

    def reshape(self, *shape) -> "FRect":
        return FRect(self.re.reshape(*shape), self.im.reshape(*shape))


def real(a: fb.FMat) -> FRect:
    return FRect(a, fb.FMat(np.zeros_like(a.m), np.zeros_like(a.m)))


def add(a: FRect, b: FRect) -> FRect:
    return FRect(fb.add(a.re, b.re), fb.add(a.im, b.im))


def sub(a: FRect, b: FRect) -> FRect:
    return FRect(fb.sub(a.re, b.re), fb.sub(a.im, b.im))


def mul(a: FRect, b: FRect) -> FRect:
    """(a_r + i a_i)(b_r + i b_i) = (a_r b_r − a_i b_i) + i(a_r b_i + a_i b_r), entrywise."""
    return FRect(fb.sub(fb.mul(a.re, b.re), fb.mul(a.im, b.im)),
                 fb.add(fb.mul(a.re, b.im), fb.mul(a.im, b.re)))


def matmul_real(a: FRect, b: fb.FMat) -> FRect:
    """a @ b for a real ball matrix b (item 5 on each part)."""
    return FRect(fb.matmul(a.re, b), fb.matmul(a.im, b))


def fsum(a: FRect, axis: int) -> FRect:
    return FRect(fb.fsum(a.re, axis), fb.fsum(a.im, axis))


def _coefficients() -> tuple[list, list, fb.FMat, fb.FMat]:
    """Balls of (−1)^j/(2j)!, (−1)^j/(2j+1)! and floats ≥ 1/26!, 1/25!."""
    if not _COEF:
        fact = [Fraction(1)]
        for j in range(1, 27):
            fact.append(fact[-1] * j)
        _COEF["cos"] = [fb.interval(Fraction((-1) ** j) / fact[2 * j], Fraction((-1) ** j) / fact[2 * j])
                        for j in range(_COS_DEG // 2 + 1)]
        _COEF["sin"] = [fb.interval(Fraction((-1) ** j) / fact[2 * j + 1],
                                    Fraction((-1) ** j) / fact[2 * j + 1])
                        for j in range(_SIN_DEG // 2 + 1)]
        _COEF["rc"] = fb.interval(1 / fact[_COS_DEG + 2], 1 / fact[_COS_DEG + 2])
        _COEF["rs"] = fb.interval(1 / fact[_SIN_DEG + 2], 1 / fact[_SIN_DEG + 2])
    return _COEF["cos"], _COEF["sin"], _COEF["rc"], _COEF["rs"]


def _clip_unit(a: fb.FMat) -> fb.FMat:
    """a ∩ [−1, 1] (cosines and sines lie there); non-finite ends become ±1."""
    lo, hi = fb.ends(a)
    lo = np.where(np.isnan(lo), -1.0, np.maximum(lo, -1.0))
    hi = np.where(np.isnan(hi), 1.0, np.minimum(hi, 1.0))
    return fb.from_ends(np.minimum(lo, hi), hi)


def cos_sin(y: fb.FMat) -> tuple[fb.FMat, fb.FMat]:
    """Balls of cos y and sin y for every y in the ball (item 11).

    y = k·π/2 + t with k = rint(y_mid·2/π) (any integer is valid) and t enclosed in balls;
    cos t and sin t by their Taylor polynomials of degrees 24 and 23 in t (Horner in t²)
    plus the Lagrange remainders T^26/26! and T^25/25! with T ≥ |t| on the ball (every
    derivative of cos and sin is at most 1 in modulus); the quadrant by exact sign changes
    and swaps; the result intersected with [−1, 1]."""
    cc, sc, rc, rs = _coefficients()
    with np.errstate(all="ignore"):
        k = np.rint(np.nan_to_num(y.m, nan=0.0, posinf=0.0, neginf=0.0) * 0.6366197723675814)
        k = np.where(np.abs(k) < 2.0 ** 40, k, 0.0)  # beyond: t is wide, the clip answers
        t = fb.sub(y, fb.mul(fb.FMat(k, np.zeros_like(k)), _PIO2))
        t2 = fb.mul(t, t)
        c = cc[-1]
        for a in reversed(cc[:-1]):
            c = fb.add(fb.mul(c, t2), a)
        s = sc[-1]
        for a in reversed(sc[:-1]):
            s = fb.add(fb.mul(s, t2), a)
        s = fb.mul(s, t)
        T = fb.up(np.abs(t.m) + t.r, 1)
        pw = np.ones_like(T)
        for _ in range(_SIN_DEG + 2):  # T^25: 25 roundings
            pw = pw * T
        rem_s = fb.up(pw * (rs.m + rs.r), 30)        # ≥ T^25/25!
        rem_c = fb.up(pw * T * (rc.m + rc.r), 30)    # ≥ T^26/26!
        c = fb.FMat(c.m, fb.up(c.r + np.nan_to_num(rem_c, nan=np.inf), 1))
        s = fb.FMat(s.m, fb.up(s.r + np.nan_to_num(rem_s, nan=np.inf), 1))
        q = np.mod(k, 4).astype(np.int64)
        # cos(t + qπ/2), sin(t + qπ/2): (c, s), (−s, c), (−c, −s), (s, −c)
        cm = np.choose(q, [c.m, -s.m, -c.m, s.m])
        cr = np.choose(q, [c.r, s.r, c.r, s.r])
        sm = np.choose(q, [s.m, c.m, -s.m, -c.m])
        sr = np.choose(q, [s.r, c.r, s.r, c.r])
    return _clip_unit(fb.FMat(cm, cr)), _clip_unit(fb.FMat(sm, sr))


def exp(z: FRect) -> FRect:
    """e^z = e^x(cos y + i sin y) on rectangles (items 8, 11; item 4 for the products)."""
    ex = fb.exp(z.re)
    c, s = cos_sin(z.im)
    return FRect(fb.mul(ex, c), fb.mul(ex, s))


def excludes_zero(a: FRect) -> np.ndarray:
    """True where the rectangle's real or imaginary part has one strict sign (bracketed
    end points, item 2; NaN answers False)."""
    rl, rh = fb.ends(a.re)
    il, ih = fb.ends(a.im)
    with np.errstate(invalid="ignore"):
        return (rl > 0) | (rh < 0) | (il > 0) | (ih < 0)
