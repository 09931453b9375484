"""The checker's arithmetic self-test, run before every check (a few microseconds).

Lemma C13's binary64 error bounds (``fballs``) assume IEEE 754 binary64 numbers, rounding
to nearest (ties to even) and gradual underflow. A library loaded into the same process can
change the rounding mode or set flush-to-zero / denormals-are-zero; then η would no longer
bound the rounding error. The test computes, at run time (operands come from arguments, so
nothing is folded at compile time), in Python floats and in numpy float64 arrays (which may
use other instructions than the interpreter):

* the format: 53-bit significand, exponents −1021 … 1024, radix 2, little-endian bit
  pattern of 1.0 and of −2.5;
* round to nearest, ties to even: 1 + 2⁻⁵³ = 1, 1 + 3·2⁻⁵³ = 1 + 2⁻⁵¹, −1 − 2⁻⁵³ = −1,
  1 − 2⁻⁵⁴ = 1, 1 + 2⁻⁵³ + 2⁻⁶⁰ > 1 (not toward zero), 1/3·3 = 1;
* gradual underflow: 2⁻¹⁰²²/2 ≠ 0, (2⁻¹⁰²²/2)·2 = 2⁻¹⁰²², 2⁻¹⁰⁷⁴ > 0;
* BLAS: a numpy matrix product equals the sequential binary64 sum on entries whose value
  is the same in every summation order but not in a lower precision (float32, TF32).

The producer runs the same test at start (``certified`` commands that compute, and
:func:`certified.api.verify`), since its binary64 kernels (Lemma I12) assume the same.

Any failure raises :class:`ArithmeticUnfit` (a :class:`Malformed`: ``certified check``
exits 2 with one line).
"""

from __future__ import annotations

import struct
import sys

import numpy as np

from .errors import Malformed

__all__ = ["ArithmeticUnfit", "arithmetic_selftest", "failures"]


class ArithmeticUnfit(Malformed):
    """The process's floating-point arithmetic is not what Lemma C13 assumes."""


def failures(one: float = 1.0, two: float = 2.0) -> list[str]:
    """The failed properties (empty when all hold)."""
    bad = []
    fi = sys.float_info
    if (fi.mant_dig, fi.min_exp, fi.max_exp, fi.radix) != (53, -1021, 1024, 2) or \
            struct.pack("<d", one) != b"\x00\x00\x00\x00\x00\x00\xf0?" or \
            struct.pack("<d", -2.5 * one) != b"\x00\x00\x00\x00\x00\x00\x04\xc0":
        bad.append("binary64 format")
    u = one / two ** 53  # 2^-53, half an ulp of 1
    for name, ops in (("python", lambda a, b: a + b), ("numpy", _np_add)):
        if not (ops(one, u) == one and ops(one, 3 * u) == one + 4 * u
                and ops(-one, -u) == -one and ops(one, -u / 2) == one
                and ops(one, u + u / 128) > one
                and ops(one, -(u + u / 128)) < one):
            bad.append(f"round to nearest ({name} addition)")
    third = one / (3 * one)
    if third * 3 != one or float(np.float64(one) / np.float64(3 * one)) != third:
        bad.append("round to nearest (division)")
    tiny = two ** -1022 * one
    half = tiny / two
    arr = np.array([tiny, tiny], dtype=np.float64) / np.float64(two)
    if half == 0 or half * two != tiny or (two ** -1074) * one <= 0 \
            or arr[0] == 0 or float(arr[1] * two) != tiny:
        bad.append("gradual underflow (2^-1022/2 must not be 0)")
    if not _blas_is_binary64(one, two):
        bad.append("BLAS products in binary64 (a matrix product differs from the "
                   "sequential binary64 sum)")
    return bad


def _blas_is_binary64(one: float, two: float) -> bool:
    """A matrix product (BLAS dgemm/dgemv through numpy) against the sequential sum in
    Python floats, on sums whose binary64 value is the same in every order but which a
    product or an accumulation in lower precision (float32, TF32, bf16) gets wrong:
    (1 + 2⁻⁵²)² rounds to 1 + 2⁻⁵¹ in binary64 but to 1 in float32, and
    1 + 2⁻³⁰ + 2⁻³⁰ = 1 + 2⁻²⁹ exactly in binary64 in any order, 1 in float32."""
    e = two ** -52 * one
    f = two ** -30 * one
    try:
        A = np.array([[one + e, 0.0, 0.0], [one, f, f], [f, one, f]], dtype=np.float64)
        B = np.array([[one + e, one], [one, one], [one, one]], dtype=np.float64)
        got = A @ B
        if got.shape != (3, 2):
            return False
    except (ValueError, TypeError, IndexError, AttributeError):  # not a binary64 product
        return False
    for i in range(3):
        for j in range(2):
            s = 0.0
            for k in range(3):  # the ordinary way: one product, one rounded sum at a time
                s = s + float(A[i, k]) * float(B[k, j])
            if float(got[i, j]) != s:
                return False
    return float(got[0, 0]) == one + 2 * e and float(got[1, 1]) == one + 2 * f


def _np_add(a: float, b: float) -> float:
    return float((np.array([a, a], dtype=np.float64) + np.float64(b))[1])


def arithmetic_selftest() -> None:
    bad = failures()
    if bad:
        raise ArithmeticUnfit("arithmetic self-test failed: " + ", ".join(bad) +
                              " (the checker's binary64 bounds, Lemma C13, assume them)")
