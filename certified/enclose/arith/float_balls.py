"""Binary64 midpoint–radius arrays for the defect step's pieces (Lemma I12).

The flow Jacobians S_j of the defect step's pieces (Lemma I8 on each piece) multiply the
set's Lohner coordinates r ≈ 10⁻³⁰: a few correct digits of S suffice, and Arb balls at
64 bits spent ~11 ms on each 40×40 piece at n = 20. The tubes and the interval Jacobians
of every piece (:mod:`certified.enclose.piece_jacobians`) use the elementwise operations
here (products, sums along an axis, e^x, reciprocals). Here a :class:`FMat` ``(m, r)`` holds
two float64 arrays and stands for every real matrix X with |X − m| ≤ r entrywise; every
operation returns an FMat containing the exact result for every choice of points in its
arguments (the enclosure contract of :mod:`certified.enclose.lohner_set`, in binary64).

Rounding model (``proofs_notes/integrator.md``, Lemma I12): IEEE 754 binary64, round to
nearest, as numpy's float64 ufuncs and BLAS matrix products perform it (sums of products
in any order, with or without fused multiply–add; no Strassen-type algorithm). A radius
is a nonnegative expression inflated by :func:`up`; a single rounded value is bracketed
by its neighbouring floats (``np.nextafter``). A non-finite entry proves nothing:
:func:`contains` answers False for it and :func:`to_arb` raises.

This module is the producer's own; the independent checker has its own binary64 balls
(``certified/checker/fballs.py``) and imports nothing from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import arb

__all__ = ["FMat", "from_arbs", "identity", "interval", "matmul", "scale", "add",
           "contains", "hull_widened", "to_arbs", "is_finite", "up", "sub", "mul",
           "fsum", "exp", "recip_positive", "ends", "from_ends"]

U = 2.0 ** -53  # unit roundoff
ETA = 2.0 ** -1000  # absolute slack of every radius: covers underflow (Lemma I12)


def up(x: np.ndarray, D: int) -> np.ndarray:
    """≥ the exact value of a nonnegative expression computed as x whose terms pass at
    most D roundings (Lemma I12, item 1; underflow covered by ETA)."""
    return x * (1.0 + (D + 4) * 2.0 ** -51) + ETA


@dataclass(frozen=True)
class FMat:
    """A ball of real arrays: every X with |X − m| ≤ r entrywise (r ≥ 0).

    Attributes
    ----------
    m, r : float64 arrays of one shape (here (N, N) or a scalar ())
    """

    m: np.ndarray
    r: np.ndarray

    # Indexing and reshaping act on both arrays alike: they only move entries.
    def __getitem__(self, key) -> "FMat":
        return FMat(self.m[key], self.r[key])

    @property
    def shape(self) -> tuple:
        return self.m.shape

    def reshape(self, *shape) -> "FMat":
        return FMat(self.m.reshape(*shape), self.r.reshape(*shape))

    def transpose(self, *axes) -> "FMat":
        return FMat(self.m.transpose(*axes), self.r.transpose(*axes))


def from_ends(lo: np.ndarray, hi: np.ndarray) -> FMat:
    """The ball of the float intervals [lo, hi] (lo ≤ hi entrywise)."""
    return _from_ends(np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64))


def ends(a: FMat) -> tuple[np.ndarray, np.ndarray]:
    """Floats lo ≤ m − r and hi ≥ m + r (one rounding each, bracketed: Lemma I12, item 2)."""
    with np.errstate(invalid="ignore", over="ignore"):  # inf − inf: NaN, never finite
        return np.nextafter(a.m - a.r, -np.inf), np.nextafter(a.m + a.r, np.inf)


def _from_ends(lo: np.ndarray, hi: np.ndarray) -> FMat:
    """The ball of [lo, hi] (float end points): any midpoint, radius the float above
    each one-rounding difference (Lemma I12, item 2)."""
    with np.errstate(invalid="ignore", over="ignore"):  # inf/NaN: a non-finite ball
        m = 0.5 * lo + 0.5 * hi
        return FMat(m, np.nextafter(np.maximum(hi - m, m - lo), np.inf))


def from_arbs(values: list, shape: tuple) -> FMat:
    """A ball containing every Arb ball of ``values`` (real, finite or not), shaped.

    Arb's end points are exact; ``float()`` of an exact ball is within one unit in the
    last place of it (python-flint rounds it to a double), so the neighbouring floats
    bracket it."""
    lo = np.array([float(x.lower()) for x in values], dtype=np.float64)
    hi = np.array([float(x.upper()) for x in values], dtype=np.float64)
    return _from_ends(np.nextafter(lo, -np.inf).reshape(shape),
                      np.nextafter(hi, np.inf).reshape(shape))


def interval(lo: Fraction, hi: Fraction) -> FMat:
    """A scalar ball containing [lo, hi] (float(Fraction) is correctly rounded)."""
    return _from_ends(np.nextafter(np.float64(float(lo)), -np.inf),
                      np.nextafter(np.float64(float(hi)), np.inf))


def identity(N: int) -> FMat:
    return FMat(np.eye(N), np.zeros((N, N)))


def is_finite(a: FMat) -> bool:
    return bool(np.all(np.isfinite(a.m)) and np.all(np.isfinite(a.r)))


def add(a: FMat, b: FMat) -> FMat:
    """a + b: |fl(m_a + m_b) − (m_a + m_b)| ≤ 2u|m| (item 3)."""
    m = a.m + b.m
    return FMat(m, up(a.r + b.r + 2 * U * np.abs(m), 3))


def sub(a: FMat, b: FMat) -> FMat:
    """a − b (item 3 with b negated, which is exact)."""
    return add(a, FMat(-b.m, b.r))


def mul(a: FMat, b: FMat) -> FMat:
    """a·b entrywise, with numpy broadcasting (item 4: one product per entry)."""
    m = a.m * b.m
    return FMat(m, up(np.abs(a.m) * b.r + a.r * (np.abs(b.m) + b.r) + 2 * U * np.abs(m), 4))


def scale(a: FMat, s: FMat) -> FMat:
    """a·s for a scalar ball s, entrywise (item 4)."""
    return mul(a, s)


def fsum(a: FMat, axis: int) -> FMat:
    """The sum along ``axis`` (L terms): |fl(Σ m) − Σ m| ≤ γ_L Σ|m| in any order of
    summation (item 5 with unit factors)."""
    L = a.m.shape[axis]
    m = a.m.sum(axis=axis)
    return FMat(m, up(a.r.sum(axis=axis) + 2 * L * U * np.abs(a.m).sum(axis=axis), L + 3))


#: ln 2 ∈ LN2 ± 2⁻⁵⁴ (LN2 is the double nearest to ln 2; its error is 2.3·10⁻¹⁷).
_LN2 = FMat(np.float64(0.6931471805599453), np.float64(2.0 ** -54))
#: 1/j! for j = 0 … 16, each as the ball [pred, succ] of the correctly rounded double.
_INV_FACT: list = []
#: Taylor remainder of e^t past degree 16 for |t| ≤ 0.36: Σ_{j>16} |t|^j/j! ≤
#: 2·0.36¹⁷/17! < 1.7·10⁻²² (the ratio of successive terms is < 1/2).
_EXP_TAIL = 2.0 ** -70
#: Beyond these, e^v is bounded without evaluation: e^v < e^−700 < 2⁻¹⁰⁰⁰ = ETA, and
#: e^v > DBL_MAX for v > 709.8.
_EXP_LOW, _EXP_HIGH = -700.0, 709.0


def _exp_points(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Floats lo ≤ e^v ≤ hi for every float v (item 8): v = k·ln 2 + t with k an integer
    and |t| ≤ 0.36 enclosed by ball arithmetic, e^t by the degree-16 Taylor polynomial in
    ball arithmetic plus its remainder, times 2^k (exact, or rounded once: bracketed)."""
    if not _INV_FACT:
        f = Fraction(1)
        for j in range(17):
            _INV_FACT.append(interval(1 / f, 1 / f))
            f *= j + 1
    v = np.asarray(v, dtype=np.float64)
    low, high = v < _EXP_LOW, ~(v <= _EXP_HIGH)  # NaN counts as high
    vc = np.where(low | high, 0.0, v)
    k = np.rint(vc * 1.4426950408889634)  # any integer k is valid; this one keeps t small
    t = sub(FMat(vc, np.zeros_like(vc)), mul(FMat(k, np.zeros_like(k)), _LN2))
    t_lo, t_hi = ends(t)
    small = (t_lo >= -0.36) & (t_hi <= 0.36)  # the whole ball (NaN fails)
    acc = _INV_FACT[16]
    for j in range(15, -1, -1):
        acc = add(mul(acc, t), _INV_FACT[j])
    acc = FMat(acc.m, up(acc.r + _EXP_TAIL, 1))
    lo, hi = ends(acc)
    ki = k.astype(np.int64)
    lo = np.maximum(np.nextafter(np.ldexp(np.maximum(lo, 0.0), ki), -np.inf), 0.0)
    hi = np.nextafter(np.ldexp(hi, ki), np.inf)
    lo = np.where(low, 0.0, np.where(high | ~small, 0.0, lo))
    hi = np.where(low, ETA, np.where(high | ~small, np.inf, hi))
    return lo, hi


def exp(a: FMat) -> FMat:
    """e^x for every x in the ball (e^x is increasing: the bounds at the end points)."""
    lo, hi = ends(a)
    return from_ends(_exp_points(lo)[0], _exp_points(hi)[1])


def recip_positive(a: FMat) -> FMat:
    """1/x for every x in a ball of positive reals (item 2: one correctly rounded
    division at each end). Where the ball reaches 0 or below, the entry is non-finite."""
    lo, hi = ends(a)
    pos = lo > 0
    safe_lo, safe_hi = np.where(pos, lo, 1.0), np.where(pos, hi, 1.0)
    r_lo = np.nextafter(1.0 / safe_hi, -np.inf)
    r_hi = np.where(pos, np.nextafter(1.0 / safe_lo, np.inf), np.inf)
    return from_ends(np.where(pos, r_lo, -np.inf), r_hi)


def matmul(a: FMat, b: FMat) -> FMat:
    """a @ b (shapes (…, p, L) and (…, L, q), stacked as numpy's matmul):
    |fl(Σ m_a m_b) − Σ m_a m_b| ≤ γ_L Σ|m_a||m_b| + Lη in any order of summation
    (item 5)."""
    L = a.m.shape[-1]
    am, bm = np.abs(a.m), np.abs(b.m)
    m = a.m @ b.m
    # 2Lu multiplies a computed sum, never a factor of a later product (item 1)
    return FMat(m, up(am @ b.r + a.r @ (bm + b.r) + 2 * L * U * (am @ bm), L + 3))


def contains(outer: FMat, inner: FMat, axis: tuple | None = None):
    """True only if every entry of ``inner`` lies in ``outer`` (end points bracketed by
    the neighbouring floats; NaN fails every comparison). With ``axis``, a boolean array:
    the answer for each index of the other axes (a stack of matrices: axis=(-2, -1))."""
    o_lo = np.nextafter(outer.m - outer.r, np.inf)
    o_hi = np.nextafter(outer.m + outer.r, -np.inf)
    i_lo = np.nextafter(inner.m - inner.r, -np.inf)
    i_hi = np.nextafter(inner.m + inner.r, np.inf)
    if axis is None:
        return bool(np.all(o_lo <= i_lo) and np.all(i_hi <= o_hi))
    return np.all(o_lo <= i_lo, axis=axis) & np.all(i_hi <= o_hi, axis=axis)


def hull_widened(a: FMat, b: FMat, factor: float = 1.25) -> FMat:
    """A ball containing both, its radius widened by ``factor`` (a candidate box for a
    fixed-point test: any larger set is as valid, the test decides)."""
    lo = np.minimum(np.nextafter(a.m - a.r, -np.inf), np.nextafter(b.m - b.r, -np.inf))
    hi = np.maximum(np.nextafter(a.m + a.r, np.inf), np.nextafter(b.m + b.r, np.inf))
    h = _from_ends(lo, hi)
    return FMat(h.m, h.r * factor)


def to_arbs(a: FMat) -> list:
    """The entries as exact-centred Arb balls (a float is exact in Arb; Arb rounds a
    radius up). Raises ValueError on a non-finite entry."""
    if not is_finite(a):
        raise ValueError("non-finite binary64 ball")
    return [arb(float(m), float(r)) for m, r in zip(a.m.flat, a.r.flat)]
