"""The backend protocol and the algorithms written once on top of it.

Containment contract (shared by every backend, relied on by every rigorous function):
each scalar is a closed real interval (a "ball"); every arithmetic operation and
every backend method below returns an interval that contains the exact result for
every choice of points in its input intervals. Results may be wider than necessary.
Arrays are numpy object arrays of such scalars; "exact point" means an interval of
width zero.
"""

from __future__ import annotations

import abc
from contextlib import AbstractContextManager
from fractions import Fraction
from typing import Any

import numpy as np

from certified.errors import UndecidedError, ValidationError

__all__ = ["Arithmetic", "Backend"]


def _factorial(m: int) -> int:
    out = 1
    for k in range(2, m + 1):
        out *= k
    return out


class Arithmetic(abc.ABC):
    """Scalars and numpy object arrays of them, with the operations the vector fields
    use. **No guarantee by itself**: :class:`Backend` adds the containment contract
    (and the approximate midpoint arithmetic of :mod:`certified.approx.midpoint` does
    not have it)."""

    name: str = "abstract"

    @abc.abstractmethod
    def workprec(self, bits: int) -> AbstractContextManager[None]:
        """Context manager: work at ``bits`` bits of precision, restored on exit."""

    def precision(self) -> int | None:
        """The working precision in bits (None where it has no meaning): a cache key."""
        return None

    @abc.abstractmethod
    def const(self, q: Fraction) -> Any:
        """The scalar of the exact rational q."""

    @abc.abstractmethod
    def exp(self, x: Any) -> Any:
        """e^x."""

    @abc.abstractmethod
    def mid_point(self, x: Any) -> Any:
        """A point of x (an exact point for a backend)."""

    @abc.abstractmethod
    def to_float(self, x: Any) -> float:
        """A float near x (for heuristics only; never for decisions)."""

    @abc.abstractmethod
    def complex_box(self, re: Any, im: Any) -> Any:
        """The complex scalar re + i·im."""

    @abc.abstractmethod
    def is_complex(self, x: Any) -> bool:
        """Whether x is complex."""

    @abc.abstractmethod
    def re_im(self, x: Any) -> tuple[Any, Any]:
        """The real and imaginary parts."""

    @abc.abstractmethod
    def expm(self, a: np.ndarray) -> np.ndarray:
        """The matrix exponential."""

    # -- arrays ----------------------------------------------------------------------
    def array(self, values: Any) -> np.ndarray:
        """An object array of intervals containing the given rationals."""
        arr = np.asarray(values, dtype=object)
        out = np.empty(arr.shape, dtype=object)
        for idx, v in np.ndenumerate(arr):
            out[idx] = v if not isinstance(v, (int, Fraction)) else self.const(Fraction(v))
        return out

    def zeros(self, shape: tuple[int, ...]) -> np.ndarray:
        z = self.const(Fraction(0))
        out = np.empty(shape, dtype=object)
        out.fill(z)
        return out

    def identity(self, n: int) -> np.ndarray:
        out = self.zeros((n, n))
        one = self.const(Fraction(1))
        for i in range(n):
            out[i, i] = one
        return out

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Interval matrix product (object arrays, 2-D)."""
        return np.dot(a, b)

    def native(self, a: np.ndarray) -> object:
        """The backend's own form of a 2-D array, for repeated products (see
        :meth:`matmul_sum`); object arrays here."""
        return a

    def matmul_sum(self, left: list, right: list) -> np.ndarray:
        """Σ_a left[a] @ right[a] for matrices in :meth:`native` form, as an object array.

        Here one product of the stacked blocks (one dot, one rounding per entry chain)."""
        return self.matmul(np.concatenate(left, axis=1), np.concatenate(right, axis=0))

    @staticmethod
    def _map(fn, a: np.ndarray, dtype: type = object) -> np.ndarray:
        """Apply a scalar function entrywise, keeping the shape."""
        out = np.empty(a.shape, dtype=dtype)
        for idx, v in np.ndenumerate(a):
            out[idx] = fn(v)
        return out

    def exp_array(self, a: np.ndarray) -> np.ndarray:
        return self._map(self.exp, a)

    def mid_array(self, a: np.ndarray) -> np.ndarray:
        return self._map(self.mid_point, a)

    def float_array(self, a: np.ndarray) -> np.ndarray:
        return self._map(self.to_float, a, float)

    def from_floats(self, a: np.ndarray) -> np.ndarray:
        """Exact points equal to the given floats (every finite float is a dyadic)."""
        return self._map(lambda v: self.const(Fraction(float(v))), a)


class Backend(Arithmetic):
    """A rigorous interval arithmetic (see the module's containment contract).

    The operations declared by :class:`Arithmetic` carry the contract here:

    * ``workprec``: Context manager running its block at ``bits`` of working precision.
    * ``const``: An interval containing the rational ``q`` (exact when representable).
    * ``exp``: exp over the interval.
    * ``mid_point``: An exact point (width 0) inside x, near its center.
    * ``complex_box``: A complex interval containing re + i·im (re, im real intervals).
    * ``is_complex``: True for a complex interval.
    * ``re_im``: Real intervals containing the real and imaginary parts.
    """

    # -- precision -------------------------------------------------------------------
    # -- construction ------------------------------------------------------------------
    @abc.abstractmethod
    def interval(self, lo: Fraction, hi: Fraction) -> Any:
        """An interval containing [lo, hi]."""

    # -- elementary functions ------------------------------------------------------------
    @abc.abstractmethod
    def sqrt(self, x: Any) -> Any:
        """sqrt over the (non-negative) interval."""

    # -- inspection ----------------------------------------------------------------------
    @abc.abstractmethod
    def bounds(self, x: Any) -> tuple[Fraction, Fraction]:
        """Exact rational endpoints (lo, hi) with x ⊆ [lo, hi]; raises if not finite."""

    @abc.abstractmethod
    def is_finite(self, x: Any) -> bool:
        """True if x is a bounded interval."""

    @abc.abstractmethod
    def contains(self, outer: Any, inner: Any) -> bool:
        """True only if inner ⊆ outer (proved)."""

    @abc.abstractmethod
    def contains_interior(self, outer: Any, inner: Any) -> bool:
        """True only if inner ⊆ interior(outer) (proved)."""

    @abc.abstractmethod
    def hull(self, a: Any, b: Any) -> Any:
        """An interval containing a ∪ b."""

    # -- complex intervals (for the Cauchy remainder, Lemma I6) ------------------------
    def unit_clip(self, x: Any) -> Any:
        """x ∩ [0, 1], for an enclosure of a real quantity known to lie in [0, 1] (a softmax
        weight); [0, 1] itself when x is not finite (an overflowed enclosure still encloses
        the quantity, and so does [0, 1])."""
        if not self.is_finite(x):
            return self.interval(Fraction(0), Fraction(1))
        try:
            lo, hi = self.bounds(x)
        except UndecidedError:  # endpoints beyond 2^±EXP_LIMIT: [0, 1] is tighter anyway
            return self.interval(Fraction(0), Fraction(1))
        if lo >= 0 and hi <= 1:
            return x
        return self.interval(max(lo, Fraction(0)), min(hi, Fraction(1)))

    def error_ball(self, eps: Fraction, complex_: bool = False) -> Any:
        """[−eps, eps] (times (1 + i) for complex): added to absorb a bounded error."""
        e = self.interval(-eps, eps)
        return self.complex_box(e, e) if complex_ else e

    def abs_upper(self, x: Any) -> Fraction:
        """An upper bound of |w| for every w in x (real or complex)."""
        if self.is_complex(x):
            re, im = self.re_im(x)
            return self.abs_upper(re) + self.abs_upper(im)
        lo, hi = self.bounds(x)
        return max(abs(lo), abs(hi))

    def c_contains_interior(self, outer: Any, inner: Any) -> bool:
        """inner ⊆ interior(outer) for complex intervals (both parts)."""
        (ro, io), (ri, ii) = self.re_im(outer), self.re_im(inner)
        return self.contains_interior(ro, ri) and self.contains_interior(io, ii)

    def c_hull(self, a: Any, b: Any) -> Any:
        (ra, ia), (rb, ib) = self.re_im(a), self.re_im(b)
        return self.complex_box(self.hull(ra, rb), self.hull(ia, ib))

    def c_mid(self, x: Any) -> Any:
        re, im = self.re_im(x)
        return self.complex_box(self.mid_point(re), self.mid_point(im))

    def to_float(self, x: Any) -> float:
        """A float near the center (for heuristics only; never for decisions)."""
        lo, hi = self.bounds(x)
        return float((lo + hi) / 2)

    def rad(self, x: Any) -> Fraction:
        """An upper bound on the radius (half-width)."""
        lo, hi = self.bounds(x)
        return (hi - lo) / 2

    def rad_float(self, x: Any) -> float:
        """The radius as a float: for step-size heuristics only (never for a bound)."""
        return float(self.rad(x))

    def max_rad(self, a: np.ndarray) -> Fraction:
        return max((self.rad(v) for v in a.flat), default=Fraction(0))

    def expm(self, a: np.ndarray) -> np.ndarray:
        """Rigorous enclosure of the matrix exponential of an interval matrix.

        Lemma I5 (``proofs_notes/integrator.md``): scale M = a/2^s so that ‖M‖_∞ ≤ 1/2,
        sum the Taylor series to m terms and add the tail bound
        ‖Σ_{k≥m} M^k/k!‖_∞ ≤ ‖M‖^m/m! · 1/(1 − ‖M‖/(m+1)) entrywise; then square s times.
        """
        n = a.shape[0]
        norm = max(sum(self.abs_upper(e) for e in row) for row in a)
        s = 0
        while norm / 2 ** s > Fraction(1, 2):
            s += 1
        m_scale = a * self.const(Fraction(1, 2 ** s))
        nm = norm / 2 ** s
        # Enough terms for a tail below 2^-1100 (beyond 300 digits); the bound added
        # below keeps the result rigorous whatever m is.
        m = 8
        while nm ** m / _factorial(m) >= Fraction(1, 2 ** 1100) and m < 400:
            m += 1
        term = self.identity(n)
        total = self.identity(n)
        for k in range(1, m):
            term = self.matmul(term, m_scale) * self.const(Fraction(1, k))
            total = total + term
        tail = nm ** m / _factorial(m) / (1 - nm / (m + 1))
        total = total + self.error_ball(tail, complex_=self.is_complex(a.flat[0]))
        for _ in range(s):
            total = self.matmul(total, total)
        return total

    def inv(self, a: np.ndarray) -> np.ndarray:
        """Rigorous enclosure of the inverse of a square interval matrix.

        Lemma I4 (``proofs_notes/integrator.md``): with R an exact approximate inverse
        and E = I − R·A, if δ = ‖E‖_∞ < 1 then A⁻¹ = Σ_k E^k R exists for every A in the
        interval matrix and lies in R + E·R + [−ε, ε] entrywise, ε = δ²/(1 − δ)·‖R‖_∞.
        """
        n = a.shape[0]
        approx = np.linalg.inv(self.float_array(a))
        R = self.from_floats(approx)
        E = self.identity(n) - self.matmul(R, a)
        delta = max(sum(max(abs(x) for x in self.bounds(e)) for e in row) for row in E)
        if not delta < 1:
            raise ValidationError("cannot prove a matrix nonsingular (‖I − R·A‖ ≥ 1)")
        norm_r = max(sum(abs(Fraction(float(x))) for x in row) for row in approx)
        eps = delta * delta / (1 - delta) * norm_r
        tail = self.interval(-eps, eps)
        return R + self.matmul(E, R) + tail
