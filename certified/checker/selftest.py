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
  1 − 2⁻⁵⁴ = 1, 1 + 2⁻⁵³ + 2⁻⁶⁰ > 1 (not toward zero); fl(1/3) and fl(1/5), one
  rounded down and one up, and fl(1/3)·3 = 1;
* gradual underflow: 2⁻¹⁰²²/2 ≠ 0, (2⁻¹⁰²²/2)·2 = 2⁻¹⁰²², 2⁻¹⁰⁷⁴ > 0;
* BLAS: a numpy matrix product equals the sequential binary64 sum on entries whose value
  is the same in every summation order but not in a lower precision (float32, TF32).

The producer runs the same test at start (``certified`` commands that compute, and
:func:`certified.api.verify`), since its binary64 kernels (Lemma I12) assume the same.

Any failure raises :class:`ArithmeticUnfit` (a :class:`Malformed`: ``certified check``
exits 2 with one line).
"""

from __future__ import annotations

import math
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
    if not format_is_binary64(one, sys.float_info, struct.pack):
        bad.append("binary64 format")
    for name, add in (("python", _py_add), ("numpy", _np_add)):
        if not addition_rounds_to_nearest(add, one):
            bad.append(f"round to nearest ({name} addition)")
    if not (division_rounds_to_nearest(_py_div, _py_mul, one)
            and division_rounds_to_nearest(_np_div, _np_mul, one)):
        bad.append("round to nearest (division)")
    if not (underflow_is_gradual(_py_div, _py_mul, one, two)
            and underflow_is_gradual(_np_div, _np_mul, one, two)):
        bad.append("gradual underflow (2^-1022/2 must not be 0)")
    if not _blas_is_binary64(one, two):
        bad.append("BLAS products in binary64 (a matrix product differs from the "
                   "sequential binary64 sum)")
    return bad


# -- the properties, each given the operations it tests (the tests hand them an emulated
#    arithmetic rounding toward zero, upward, to float32, or flushing subnormals) ---------

def format_is_binary64(one: float, info, pack) -> bool:
    """53-bit significand, exponents −1021 … 1024, radix 2, and the little-endian bit
    patterns of 1.0 and −2.5."""
    return ((info.mant_dig, info.min_exp, info.max_exp, info.radix) == (53, -1021, 1024, 2)
            and pack("<d", one) == b"\x00\x00\x00\x00\x00\x00\xf0?"
            and pack("<d", -2.5 * one) == b"\x00\x00\x00\x00\x00\x00\x04\xc0")


def addition_rounds_to_nearest(add, one: float) -> bool:
    """Ties to even and no directed rounding: with u = 2⁻⁵³ (half an ulp of 1),
    1 + u = 1, 1 + 3u = 1 + 4u, −1 − u = −1, 1 − u/2 = 1, and 1 ± (u + u/128) ≠ 1 (the
    nearest, not toward zero)."""
    u = math.ldexp(one, -53)  # exact in any rounding mode (a float ** is libm's pow)
    return (add(one, u) == one and add(one, 3 * u) == one + 4 * u
            and add(-one, -u) == -one and add(one, -u / 2) == one
            and add(one, u + u / 128) > one
            and add(one, -(u + u / 128)) < one)


def division_rounds_to_nearest(div, mul, one: float) -> bool:
    """fl(1/3) = 6004799503160661·2⁻⁵⁴ (2⁵⁴/3 = …661.33: rounded down) and fl(1/5) =
    7205759403792794·2⁻⁵⁵ (2⁵⁵/5 = …793.6: rounded up), so upward, downward and
    toward-zero division each miss one of them; and fl(fl(1/3)·3) = 1."""
    third, fifth = div(one, 3 * one), div(one, 5 * one)
    return (third == 6004799503160661 * (one / 2 ** 54)
            and fifth == 7205759403792794 * (one / 2 ** 55)
            and mul(third, 3 * one) == one)


def underflow_is_gradual(div, mul, one: float, two: float) -> bool:
    """2⁻¹⁰²²/2 is the subnormal 2⁻¹⁰²³ (not 0) and doubles back to 2⁻¹⁰²²; 2⁻¹⁰⁷⁴ > 0."""
    tiny = mul(math.ldexp(one, -1022), one)
    half = div(tiny, two)
    return half != 0 and mul(half, two) == tiny and mul(math.ldexp(one, -1074), one) > 0


def _py_add(a: float, b: float) -> float:
    return a + b


def _py_mul(a: float, b: float) -> float:
    return a * b


def _py_div(a: float, b: float) -> float:
    return a / b


def _np_mul(a: float, b: float) -> float:
    return float((np.array([a, a], dtype=np.float64) * np.float64(b))[1])


def _np_div(a: float, b: float) -> float:
    return float((np.array([a, a], dtype=np.float64) / np.float64(b))[1])


def _blas_is_binary64(one: float, two: float, matmul=None) -> bool:
    """A matrix product (BLAS dgemm/dgemv through numpy) against the sequential sum in
    Python floats, on sums whose binary64 value is the same in every order but which a
    product or an accumulation in lower precision (float32, TF32, bf16) gets wrong:
    (1 + 2⁻⁵²)² rounds to 1 + 2⁻⁵¹ in binary64 but to 1 in float32, and
    1 + 2⁻³⁰ + 2⁻³⁰ = 1 + 2⁻²⁹ exactly in binary64 in any order, 1 in float32."""
    e = math.ldexp(one, -52)  # powers of two built exactly, whatever the rounding mode
    f = math.ldexp(one, -30)
    try:
        A = np.array([[one + e, 0.0, 0.0], [one, f, f], [f, one, f]], dtype=np.float64)
        B = np.array([[one + e, one], [one, one], [one, one]], dtype=np.float64)
        got = (matmul or np.matmul)(A, B)
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
