"""Binary64 midpoint–radius matrices for the defect step's linear part (Lemma I12).

The flow Jacobians S_j of the defect step's pieces (Lemma I8 on each piece) multiply the
set's Lohner coordinates r ≈ 10⁻³⁰: a few correct digits of S suffice, and Arb balls at
64 bits spent ~11 ms on each 40×40 piece at n = 20. Here a :class:`FMat` ``(m, r)`` holds
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
           "contains", "hull_widened", "to_arbs", "is_finite", "up"]

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


def _from_ends(lo: np.ndarray, hi: np.ndarray) -> FMat:
    """The ball of [lo, hi] (float end points): any midpoint, radius the float above
    each one-rounding difference (Lemma I12, item 2)."""
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


def scale(a: FMat, s: FMat) -> FMat:
    """a·s for a scalar ball s, entrywise (item 4: one product per entry)."""
    m = a.m * s.m
    return FMat(m, up(np.abs(a.m) * s.r + a.r * (np.abs(s.m) + s.r) + 2 * U * np.abs(m), 4))


def matmul(a: FMat, b: FMat) -> FMat:
    """a @ b (shapes (p, L) and (L, q)): |fl(Σ m_a m_b) − Σ m_a m_b| ≤ γ_L Σ|m_a||m_b| + Lη
    in any order of summation (item 5)."""
    L = a.m.shape[1]
    am, bm = np.abs(a.m), np.abs(b.m)
    m = a.m @ b.m
    # 2Lu multiplies a computed sum, never a factor of a later product (item 1)
    return FMat(m, up(am @ b.r + a.r @ (bm + b.r) + 2 * L * U * (am @ bm), L + 3))


def contains(outer: FMat, inner: FMat) -> bool:
    """True only if every entry of ``inner`` lies in ``outer`` (end points bracketed by
    the neighbouring floats; NaN fails every comparison)."""
    o_lo = np.nextafter(outer.m - outer.r, np.inf)
    o_hi = np.nextafter(outer.m + outer.r, -np.inf)
    i_lo = np.nextafter(inner.m - inner.r, -np.inf)
    i_hi = np.nextafter(inner.m + inner.r, np.inf)
    return bool(np.all(o_lo <= i_lo) and np.all(i_hi <= o_hi))


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
