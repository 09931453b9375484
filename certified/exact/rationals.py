"""Exact numbers in, rigorous decimal bounds out.

Every number that defines an instance is read as an exact rational
(:class:`fractions.Fraction`). Accepted:

* ``int`` and numpy integers; ``fractions.Fraction``; sympy ``Rational``/``Integer``;
* strings ``"p/q"`` (``"-3/4"``) and decimal strings (``"0.125"``, ``"1e-3"``), read as
  exact decimals: ``"0.1"`` is 1/10;
* JSON numbers, which are decimal text and are read the same way (see
  :func:`loads_exact`: they never pass through a binary float);
* a Python ``float`` or numpy float, taken as its **exact binary value**
  (``0.1`` becomes 3602879701896397/36028797018963968); ``decimal.Decimal`` exactly.

Rejected, with an :class:`~certified.errors.InputError` naming the field: booleans,
NaN and infinities, non-numeric strings, and numbers whose exact size would be absurd
(numerator or denominator above :data:`MAX_BITS` bits, e.g. ``"1e999999999"``), which
are refused *before* any big integer is built.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from fractions import Fraction
from numbers import Integral
from collections.abc import Mapping
from typing import Any

import numpy as np
from flint import fmpz

from certified.errors import InputError
from certified.precision import bits_to_digits

__all__ = [
    "MATRIX_ACCEPTED",
    "MAX_BITS",
    "RationalMatrix",
    "parse_matrix",
    "shape_str",
    "ACCEPTED_NUMBERS",
    "JsonNumber",
    "to_fraction",
    "fraction_to_str",
    "decimal_floor",
    "decimal_ceil",
    "exponent10",
    "bounds_to_json",
    "loads_exact",
    "sqrt_up",
]

#: Largest accepted bit length of a numerator or denominator (about 3900 decimal
#: digits): far beyond any float64/float32 value (at most 1075 bits) and any sane
#: hand-written rational, small enough that exact linear algebra stays feasible
#: and below Python's 4300-digit limit on int/str conversion.
MAX_BITS = 13000
_MAX_DIGITS = bits_to_digits(MAX_BITS)  # decimal digits with the same size

ACCEPTED_NUMBERS = ("an integer, a fraction string 'p/q', a decimal string such as "
                    "'0.125' or '1e-3', or a JSON number")

_INT_RE = re.compile(r"[+-]?\d+")
_FRAC_RE = re.compile(r"([+-]?\d+)\s*/\s*([+-]?\d+)")
_DEC_RE = re.compile(r"([+-]?)(?:(\d+)\.?(\d*)|\.(\d+))(?:[eE]([+-]?\d+))?")


class JsonNumber(str):
    """The literal text of a JSON number, kept so it is parsed exactly (no float)."""


class _JsonConstant(str):
    """``NaN``/``Infinity`` literals, which Python's json accepts but we refuse."""



def _a(value: Any) -> str:
    """What ``value`` is, in the words of JSON: "a number", "a string", "an object"."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, JsonNumber):  # a str subclass: a number literal's own text
        return "a number"
    if isinstance(value, (str, bytes)):
        return "a string"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (int, float, Fraction)):
        return "a number"
    noun = type(value).__name__
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun

def _show(value: Any) -> str:
    """A short printable form of a user value for error messages."""
    if isinstance(value, int) and value.bit_length() > MAX_BITS:
        return f"an integer of {value.bit_length()} bits"
    if isinstance(value, Fraction) and max(value.numerator.bit_length(),
                                           value.denominator.bit_length()) > MAX_BITS:
        return (f"a fraction of {value.numerator.bit_length()}/"
                f"{value.denominator.bit_length()} bits")
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _too_big(field: str, what: str) -> InputError:
    return InputError(field, f"{_show(what)} is too large to handle exactly",
                      f"numerators and denominators of at most {MAX_BITS} bits "
                      f"(about {_MAX_DIGITS} decimal digits)")


def _check_size(q: Fraction, field: str, shown: Any) -> Fraction:
    if q.numerator.bit_length() > MAX_BITS or q.denominator.bit_length() > MAX_BITS:
        raise _too_big(field, shown)
    return q


def _from_digits(negative: bool, digits: str, exponent: int, field: str,
                 shown: str) -> Fraction:
    """Exact value of ``(-1)**negative * int(digits) * 10**exponent``, size-checked first."""
    if len(digits) > 2 * _MAX_DIGITS + 16:
        raise _too_big(field, shown)
    stripped = digits.lstrip("0").rstrip("0")
    if not stripped:
        return Fraction(0)
    # Trailing zeros of the coefficient move into the exponent; only then is the
    # size of the reduced numerator/denominator known (up to factors of 2 and 5).
    exponent += len(digits.lstrip("0")) - len(stripped)
    if len(stripped) + max(exponent, 0) > _MAX_DIGITS + 1 or -exponent > _MAX_DIGITS + 1:
        raise _too_big(field, shown)
    coeff = int(stripped)
    q = Fraction(coeff * 10 ** exponent) if exponent >= 0 else Fraction(coeff, 10 ** -exponent)
    return _check_size(-q if negative else q, field, shown)


def _from_decimal(dec: Decimal, field: str, shown: str) -> Fraction:
    if not dec.is_finite():
        raise InputError(field, f"{_show(shown)} is not a finite number", ACCEPTED_NUMBERS)
    sign, digits, exponent = dec.as_tuple()
    return _from_digits(bool(sign), "".join(map(str, digits)), int(exponent), field, shown)


def _from_string(text: str, field: str) -> Fraction:
    s = text.strip()
    if _INT_RE.fullmatch(s):
        if len(s.lstrip("+-")) > _MAX_DIGITS + 1:
            raise _too_big(field, text)
        return _check_size(Fraction(int(s)), field, text)
    m = _FRAC_RE.fullmatch(s)
    if m:
        p, q = m.group(1), m.group(2)
        if max(len(p), len(q)) > _MAX_DIGITS + 2:
            raise _too_big(field, text)
        if int(q) == 0:
            raise InputError(field, f"{_show(text)} has a zero denominator", ACCEPTED_NUMBERS)
        return _check_size(Fraction(int(p), int(q)), field, text)
    m = _DEC_RE.fullmatch(s)
    if m:
        sign, int_part, frac_part, only_frac, exp_text = m.groups()
        frac_part = frac_part if only_frac is None else only_frac
        int_part = int_part or ""
        if exp_text is not None and len(exp_text) > 12:  # |exponent| >= 1e11: absurd
            raise _too_big(field, text)
        exponent = int(exp_text or 0) - len(frac_part)
        return _from_digits(sign == "-", int_part + frac_part, exponent, field, text)
    raise InputError(field, f"{_show(text)} is not a number", ACCEPTED_NUMBERS)


def to_fraction(value: Any, field: str = "value") -> Fraction:
    """Read one number exactly.

    Parameters
    ----------
    value : int, str, Fraction, float, Decimal, numpy scalar or sympy Rational
        The number; see the module docstring for what each type means.
    field : str
        Name used in the error message, e.g. ``"V[0][1]"``.

    Returns
    -------
    Fraction
        The exact value.

    Raises
    ------
    InputError
        If ``value`` is not an accepted exact number.
    """
    if isinstance(value, _JsonConstant):
        raise InputError(field, f"{_show(str(value))} is not a finite number", ACCEPTED_NUMBERS)
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        raise InputError(field, f"a boolean ({value!r}) is not a number", ACCEPTED_NUMBERS)
    if isinstance(value, Fraction):
        return _check_size(value, field, value)
    if isinstance(value, Integral):
        return _check_size(Fraction(int(value)), field, int(value))
    if isinstance(value, str):  # includes JsonNumber: decimal text, parsed exactly
        return _from_string(value, field)
    if isinstance(value, Decimal):
        return _from_decimal(value, field, value)
    if getattr(value, "is_Rational", False) is True:  # sympy Integer / Rational
        return _check_size(Fraction(int(value.p), int(value.q)), field, value)
    as_ratio = getattr(value, "as_integer_ratio", None)
    if callable(as_ratio):  # float, numpy floating (incl. float32, longdouble)
        try:
            p, q = as_ratio()
        except (OverflowError, ValueError):
            raise InputError(field, f"{value!r} is not a finite number",
                             ACCEPTED_NUMBERS) from None
        return _check_size(Fraction(int(p), int(q)), field, value)
    raise InputError(field, f"a {type(value).__name__} is not a number", ACCEPTED_NUMBERS)


def float_matrix(m: Any, field: str) -> Any:
    """A float64 copy of a matrix of exact numbers, for the approximate float64 paths and
    pictures; :class:`InputError` naming ``field`` if an entry is beyond float64's range
    (tiny entries become 0 or subnormal: the float paths are approximate anyway).
    Returns a numpy array of the same shape."""

    try:
        return np.array([[float(x) for x in row] for row in m], dtype=float)
    except OverflowError:
        raise InputError(field, "has an entry beyond the float64 range (about 1.8e308)",
                         "entries below 1.8e308 in magnitude for the approximate "
                         "float64 path") from None


def scaled_float_matrix(m: Any) -> Any:
    """m / max |entry| in float64, for heuristics that do not depend on a positive scale
    (eigenvectors, argmax of scores): no entry can overflow, whatever the exact input."""

    rows = [[Fraction(x) for x in row] for row in m]
    top = max((abs(x) for row in rows for x in row), default=Fraction(0)) or Fraction(1)
    return np.array([[float(x / top) for x in row] for row in rows], dtype=float)


def fraction_to_str(q: Fraction) -> str:
    """Exact text of a rational: ``"3"`` or ``"-3/4"`` (the spec's exact format)."""
    # fmpz's conversion has no digit limit, unlike int.__str__ (4300 digits): results
    # of exact algebra may be larger than any accepted input.
    num, den = str(fmpz(q.numerator)), str(fmpz(q.denominator))
    return num if den == "1" else f"{num}/{den}"


def exponent10(q: Fraction) -> int:
    """floor(log10 |q|) for q ≠ 0, exactly, with integers (fmpz's decimal length has no
    digit limit, unlike int.__str__)."""
    a = abs(q)
    e = len(str(fmpz(a.numerator))) - len(str(fmpz(a.denominator)))
    if Fraction(10) ** e > a:
        e -= 1
    elif Fraction(10) ** (e + 1) <= a:
        e += 1
    return e


def _decimal_round(q: Fraction, digits: int, up: bool) -> str:
    """``q`` rounded to ``digits`` significant decimal digits, toward +inf if ``up``."""
    if q == 0:
        return "0"
    if digits < 1:
        raise ValueError("digits must be >= 1")
    e = exponent10(q)
    shift = digits - 1 - e
    scaled = q * Fraction(10) ** shift
    # Directed rounding of the scaled value: floor for lower ends, ceil for upper ends.
    m = -((-scaled.numerator) // scaled.denominator) if up else scaled.numerator // scaled.denominator
    if m == 0:
        return "0"
    # Format m·10^(-shift) by hand: Decimal arithmetic would round to its context
    # precision (28 digits) and silently undo the directed rounding above.
    neg, ds = m < 0, str(fmpz(abs(m)))
    exp10 = len(ds) - 1 - shift  # value = d.ddd × 10^exp10
    mant = ds[0] + ("." + ds[1:].rstrip("0") if ds[1:].rstrip("0") else "")
    return ("-" if neg else "") + mant + (f"e{exp10}" if exp10 else "")


def decimal_floor(q: Fraction, digits: int = 30) -> str:
    """Decimal string of a number <= ``q`` with ``digits`` significant digits."""
    return _decimal_round(q, digits, up=False)


def decimal_ceil(q: Fraction, digits: int = 30) -> str:
    """Decimal string of a number >= ``q`` with ``digits`` significant digits."""
    return _decimal_round(q, digits, up=True)


def bounds_to_json(lo: Fraction, hi: Fraction, digits: int = 30) -> list[str]:
    """The spec's enclosure format ``["lo", "hi"]``: lo rounded down, hi rounded up."""
    if lo > hi:
        raise ValueError("lower bound exceeds upper bound")
    return [decimal_floor(lo, digits), decimal_ceil(hi, digits)]


def loads_exact(text: str) -> Any:
    """Parse JSON keeping every number as its literal text (:class:`JsonNumber`).

    ``NaN``, ``Infinity`` and ``-Infinity`` (which Python's json accepts) come back as
    markers that :func:`to_fraction` rejects with the field's name. A key given twice in
    one object is an :class:`InputError` naming it: Python's json keeps the last value,
    another reader the first, so the file would mean two things.
    """
    return json.loads(text, parse_float=JsonNumber, parse_int=JsonNumber,
                      parse_constant=_JsonConstant, object_pairs_hook=_unique_keys)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise InputError(k, "appears twice in one JSON object", "each key once")
        out[k] = v
    return out


#: A matrix of exact rationals, row by row.
RationalMatrix = tuple[tuple[Fraction, ...], ...]

MATRIX_ACCEPTED = "a non-empty rectangular list of rows of numbers (or a 2-D array)"


def parse_matrix(value: Any, name: str) -> RationalMatrix:
    """Parse a 2-D array of exact numbers, naming ``name[i][j]`` in errors."""
    if hasattr(value, "tolist") and not hasattr(value, "ndim") and hasattr(value, "shape"):
        value = value.tolist()  # a sympy Matrix: rows of sympy numbers
    if hasattr(value, "tolist") and hasattr(value, "ndim"):  # numpy array
        if value.ndim != 2:
            raise InputError(name, f"is a {value.ndim}-D array, not a matrix", MATRIX_ACCEPTED)
        value = value.tolist() if value.dtype.kind in "iub" else [list(r) for r in value]
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__len__"):
        raise InputError(name, f"is {_a(value)}, not a matrix", MATRIX_ACCEPTED)
    if len(value) == 0:
        raise InputError(name, "empty matrix (no rows)", MATRIX_ACCEPTED)
    rows = []
    for i, row in enumerate(value):
        if isinstance(row, (str, bytes, Mapping)) or not hasattr(row, "__len__"):
            raise InputError(f"{name}[{i}]", f"is {_a(row)}, not a row",
                             MATRIX_ACCEPTED)
        if len(row) == 0:
            raise InputError(f"{name}[{i}]", "empty row", MATRIX_ACCEPTED)
        if len(row) != len(value[0]):
            raise InputError(name, f"ragged rows: row 0 has {len(value[0])} entries, "
                                   f"row {i} has {len(row)}", MATRIX_ACCEPTED)
        rows.append(tuple(to_fraction(x, f"{name}[{i}][{j}]") for j, x in enumerate(row)))
    return tuple(rows)


def shape_str(m: RationalMatrix) -> str:
    """'rows×columns' of a matrix, for messages."""
    return f"{len(m)}×{len(m[0])}"


def sqrt_up(q: Fraction, bits: int = 64) -> Fraction:
    """A rational > √q for q = n/d ≥ 0: (⌊√(n·d·4^bits)⌋ + 1)/(d·2^bits), above √q by at
    most 1/(d·2^bits) (the integer square root is exact)."""
    n, d = q.numerator, q.denominator
    return Fraction(math.isqrt(n * d * 4 ** bits) + 1, d * 2 ** bits)
