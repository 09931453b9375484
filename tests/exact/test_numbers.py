"""Exact parsing of numbers and outward-rounded decimal output."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from certified.errors import InputError
from certified.exact.rationals import (
    MAX_BITS,
    bounds_to_json,
    decimal_ceil,
    decimal_floor,
    fraction_to_str,
    loads_exact,
    to_fraction,
)


@pytest.mark.parametrize("text, value", [
    ("0.1", Fraction(1, 10)), ("1e-3", Fraction(1, 1000)), ("-3/4", Fraction(-3, 4)),
    ("12", Fraction(12)), (" 7 ", Fraction(7)), ("1.5e2", Fraction(150)), (".5", Fraction(1, 2)),
    ("5.", Fraction(5)), ("-0.000", Fraction(0)), ("1000e-3", Fraction(1)),
    ("-2.50E+1", Fraction(-25)), ("6/-4", Fraction(-3, 2)), ("+0.125", Fraction(1, 8)),
])
def test_strings_are_exact(text, value):
    assert to_fraction(text) == value


def test_python_and_library_types_are_exact():
    assert to_fraction(0.1) == Fraction(3602879701896397, 36028797018963968)
    assert to_fraction(np.float32(0.1)) == Fraction(13421773, 134217728)
    assert to_fraction(np.float64(0.5)) == Fraction(1, 2)
    assert to_fraction(np.int64(-3)) == -3
    assert to_fraction(sympy.Rational(2, 3)) == Fraction(2, 3)
    assert to_fraction(sympy.Integer(5)) == 5
    assert to_fraction(Decimal("0.1")) == Fraction(1, 10)
    assert to_fraction(Fraction(7, 9)) == Fraction(7, 9)


def test_json_numbers_never_pass_through_float():
    obj = loads_exact('{"a": [0.1, 1e-30, 123456789012345678901234567890]}')
    vals = [to_fraction(x) for x in obj["a"]]
    assert vals == [Fraction(1, 10), Fraction(1, 10**30), 123456789012345678901234567890]


@pytest.mark.parametrize("bad, words", [
    ("abc", "not a number"), ("nan", "not a number"), ("inf", "not a number"),
    ("1/0", "zero denominator"), ("1e999999999", "too large"), ("1e-99999999", "too large"),
    ("1e5000", "too large"), ("1" * 5000, "too large"), (True, "boolean"), (None, "NoneType"),
    ("0x10", "not a number"), ("1/2/3", "not a number"), ("", "not a number"),
    (float("inf"), "not a finite"), (float("nan"), "not a finite"),
    (Decimal("NaN"), "not a finite"), (10 ** 5000, "too large"),
    (Fraction(1, 10 ** 5000), "too large"), (sympy.Float(0.5), "not a number"),
], ids=lambda v: type(v).__name__ if not isinstance(v, str) else v[:20])
def test_rejections_name_the_field(bad, words):
    with pytest.raises(InputError) as info:
        to_fraction(bad, "V[1][0]")
    msg = str(info.value)
    assert msg.startswith("V[1][0]: ") and words in msg and "\n" not in msg
    assert len(msg) < 300


def test_json_constants_rejected():
    obj = loads_exact('{"a": [NaN, Infinity, -Infinity]}')
    for x in obj["a"]:
        with pytest.raises(InputError, match="not a finite number"):
            to_fraction(x, "a")


def test_size_limit_boundary():
    ok = Fraction(2 ** (MAX_BITS - 1))
    assert to_fraction(ok) == ok
    with pytest.raises(InputError):
        to_fraction(Fraction(2 ** MAX_BITS))


fractions = st.fractions(max_denominator=10 ** 30).filter(lambda q: abs(q) < 10 ** 30)


@given(fractions, st.integers(min_value=1, max_value=40))
def test_directed_rounding_contains_and_is_tight(q, digits):
    lo, hi = to_fraction(decimal_floor(q, digits)), to_fraction(decimal_ceil(q, digits))
    assert lo <= q <= hi
    if q != 0:
        # Width is at most one unit in the last of `digits` significant places.
        assert hi - lo <= abs(q) * Fraction(10) ** (1 - digits) * 2
    if lo == hi:
        assert lo == q


@given(fractions, fractions)
def test_bounds_to_json_encloses(a, b):
    lo, hi = min(a, b), max(a, b)
    out = bounds_to_json(lo, hi, 12)
    assert to_fraction(out[0]) <= lo and hi <= to_fraction(out[1])


def test_exact_output_format():
    assert fraction_to_str(Fraction(-3, 4)) == "-3/4"
    assert fraction_to_str(Fraction(5)) == "5"
    big = Fraction(10 ** 6000 + 1, 3)  # beyond int.__str__'s default 4300-digit limit
    assert fraction_to_str(big).endswith("/3")


def test_undecided_sign_is_never_falsy():
    from flint import arb

    from certified.errors import UndecidedError
    from certified.exact.arb_convert import sign
    from certified.logic import Truth

    assert sign(arb(2)) == 1 and sign(arb(-1)) == -1 and sign(arb(0)) == 0
    s = sign(arb(0, 1))  # the ball [-1, 1]
    assert s is Truth.UNDECIDED
    with pytest.raises(UndecidedError):
        bool(s)
    with pytest.raises(UndecidedError):
        bool(Truth.UNDECIDED)
    assert (Truth.TRUE & Truth.UNDECIDED) is Truth.UNDECIDED
    assert (Truth.FALSE & Truth.UNDECIDED) is Truth.FALSE
    assert ~Truth.UNDECIDED is Truth.UNDECIDED and bool(~Truth.FALSE)
