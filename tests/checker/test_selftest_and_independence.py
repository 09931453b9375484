"""The arithmetic self-test (exit 2, one line, when the FPU mode is not round-to-nearest
with gradual underflow) and the checker's allowlist of imports."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from certified.checker import ArithmeticUnfit, check_certificate, selftest

from .producer import main


def test_selftest_passes_here():
    assert selftest.failures() == []


@pytest.mark.parametrize("what", ["nearest", "underflow", "format"])
def test_selftest_detects_a_wrong_mode(monkeypatch, what):
    """Simulated modes (Python cannot switch the FPU): round toward +∞ (1 + 2⁻⁵³ → next
    float), flush-to-zero (2⁻¹⁰²²/2 → 0), a 24-bit significand."""
    import numpy as np

    if what == "nearest":
        real = selftest._np_add
        monkeypatch.setattr(selftest, "_np_add", lambda a, b: real(a, b) if a + b == a + b
                            and b == 0 else float(np.nextafter(a + b, np.inf)))
    elif what == "underflow":
        monkeypatch.setattr(selftest.np, "array", lambda x, dtype=None: np.zeros(len(x)))
    else:
        monkeypatch.setattr(selftest.sys, "float_info", type("FI", (), dict(
            mant_dig=24, min_exp=-125, max_exp=128, radix=2))())
    bad = selftest.failures()
    assert bad and {"nearest": "round to nearest", "underflow": "gradual underflow",
                    "format": "binary64"}[what] in " ".join(bad)


def test_cli_exits_2_with_one_line_when_the_selftest_fails(certs, tmp_path, monkeypatch,
                                                          capsys):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(certs["t4_21"]))
    monkeypatch.setattr(selftest, "failures", lambda: ["gradual underflow (simulated)"])
    with pytest.raises(ArithmeticUnfit):
        check_certificate(certs["t4_21"])
    assert main(["check", str(path)]) == 2
    lines = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert len(lines) == 1 and "arithmetic self-test failed" in lines[0], lines


#: What the checker may import: the standard library, numpy, mpmath, jsonschema, and from
#: this package only certified.checker.* and certified.errors (plus the package itself).
#: the package and what its __init__ loads (certified.logic: the Truth enum of the errors)
PACKAGE = {"certified", "certified.errors", "certified.logic"}
ALLOWED_THIRD_PARTY = {"numpy", "mpmath", "jsonschema", "attrs", "attr", "referencing", "idna",
                       "threadpoolctl", "__mp_main__",
                       "rpds", "jsonschema_specifications", "typing_extensions"}


def test_checker_imports_only_its_allowlist(certs, tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(certs["t4_21"]))
    code = ("import sys; before = set(sys.modules); import certified.checker as C; "
            "r = C.check_file(sys.argv[1]); import json; "
            "print(json.dumps([r.valid, sorted(set(sys.modules) - before)]))")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                         text=True, timeout=600)
    valid, mods = json.loads(out.stdout.strip().splitlines()[-1])
    assert valid, out.stderr
    std = set(sys.stdlib_module_names)
    bad = []
    for m in mods:
        top = m.split(".")[0]
        if top == "certified":
            if not (m in PACKAGE or m.startswith("certified.checker")):
                bad.append(m)
        elif top.lstrip("_") not in std and top not in std and top not in ALLOWED_THIRD_PARTY:
            bad.append(m)
    assert bad == [], bad


# -- each property against an emulated arithmetic (Python cannot switch the FPU: the
#    operations are handed in, computed exactly with Fractions and rounded as a faulty
#    unit would round) --------------------------------------------------------------------

def _rounded(q, mode: str) -> float:
    """The exact rational q rounded to binary64 in ``mode``: nearest, up, down, zero,
    f32 (a float32 unit), ftz (nearest, subnormal results flushed to 0)."""
    from fractions import Fraction

    import numpy as np

    f = float(q)  # Fraction → float rounds to nearest (ties to even)
    if mode in ("nearest", "ftz", "daz"):
        return 0.0 if mode == "ftz" and abs(f) < 2.0 ** -1022 else f
    if mode == "no_sticky":  # to nearest from the guard bit alone: a lost sticky bit
        if Fraction(f) == q:
            return f
        a = abs(q)
        lo = float(a) if Fraction(float(a)) < a else float(np.nextafter(float(a), 0))
        hi = float(np.nextafter(lo, np.inf))
        if (a - Fraction(lo)) / (Fraction(hi) - Fraction(lo)) >= Fraction(1, 2):  # a "tie"
            m_lo = np.frexp(lo)[0] * 2 ** 53
            r = lo if int(m_lo) % 2 == 0 else hi
        else:
            r = lo
        return r if q > 0 else -r
    if mode in ("ties_away", "ties_zero"):
        if Fraction(f) == q:
            return f
        other = float(np.nextafter(f, np.inf if Fraction(f) < q else -np.inf))
        if abs(Fraction(other) - q) != abs(Fraction(f) - q):
            return f  # not a tie: the nearest
        away = f if abs(f) > abs(other) else other
        return away if mode == "ties_away" else (other if away == f else f)
    if mode == "f32":
        return float(np.float32(f))
    if Fraction(f) == q:
        return f
    up = mode == "up" or (mode == "zero" and q < 0)
    if up:
        return f if Fraction(f) > q else float(np.nextafter(f, np.inf))
    return f if Fraction(f) < q else float(np.nextafter(f, -np.inf))


def _ops(mode: str):
    from fractions import Fraction as Fr

    def arg(x):  # daz: subnormal operands read as 0 (results are kept)
        return Fr(0) if mode == "daz" and 0 < abs(x) < 2.0 ** -1022 else Fr(x)

    def only(op):  # ftz_mul, ftz_div: one instruction flushes its subnormal results
        return "ftz" if mode == "ftz_" + op else ("nearest" if mode.startswith("ftz_") else mode)
    return (lambda a, b: _rounded(arg(a) + arg(b), only("add")),
            lambda a, b: _rounded(arg(a) * arg(b), only("mul")),
            lambda a, b: _rounded(arg(a) / arg(b), only("div")))


MODES = ["nearest", "up", "down", "zero", "ties_away", "ties_zero", "no_sticky", "f32", "ftz",
         "daz", "ftz_mul", "ftz_div"]


@pytest.mark.parametrize("mode", MODES)
def test_each_property_detects_its_fault_and_only_it(mode):
    add, mul, div = _ops(mode)
    # the faults of ftz, daz, ftz_mul, ftz_div are only in subnormals
    fine = ("nearest", "ftz", "daz", "ftz_mul", "ftz_div")
    # a lost sticky bit reads 1 + u + u/128 as a tie (to even: 1), the nearest is 1 + 2u
    assert selftest.addition_rounds_to_nearest(add, 1.0) is (mode in fine)
    # 1/3 and 1/5 are not ties, but fl(1/3)·3 = 1 − 2^-54 is one: ties toward zero give
    # 1 − 2^-53 there, ties away from zero give 1 as ties to even do; without the sticky
    # bit 2^55/5 = …793.6 becomes a tie, whose even neighbour …794 is also the nearest
    assert selftest.division_rounds_to_nearest(div, mul, 1.0) is (
        mode in fine + ("ties_away", "no_sticky"))
    # subnormals: flushed by ftz (all results, or only products or quotients), read as 0
    # by daz, absent from float32; exact elsewhere
    assert selftest.underflow_is_gradual(div, mul, 1.0, 2.0) is (
        mode not in ("f32", "ftz", "daz", "ftz_mul", "ftz_div"))


def test_the_real_operations_pass_every_property():
    for add in (selftest._py_add, selftest._np_add):
        assert selftest.addition_rounds_to_nearest(add, 1.0)
    for div, mul in ((selftest._py_div, selftest._py_mul), (selftest._np_div, selftest._np_mul)):
        assert selftest.division_rounds_to_nearest(div, mul, 1.0)
        assert selftest.underflow_is_gradual(div, mul, 1.0, 2.0)
    assert selftest._np_mul(3.0, 0.5) == 1.5 and selftest._np_div(3.0, 4.0) == 0.75
    assert selftest._py_mul(3.0, 0.5) == 1.5 and selftest._py_div(3.0, 4.0) == 0.75
    assert selftest._np_add(1.0, 2.0) == 3.0 and selftest._py_add(1.0, 2.0) == 3.0


def test_format_property():
    import struct
    import sys

    info = sys.float_info
    assert selftest.format_is_binary64(1.0, info, struct.pack)
    small = type("FI", (), dict(mant_dig=24, min_exp=-125, max_exp=128, radix=2))()
    assert not selftest.format_is_binary64(1.0, small, struct.pack)
    for field, value in (("min_exp", -1022), ("max_exp", 1023), ("radix", 10)):
        fields = dict(mant_dig=53, min_exp=-1021, max_exp=1024, radix=2)
        fields[field] = value
        other = type("FI", (), fields)()
        assert not selftest.format_is_binary64(1.0, other, struct.pack)
    big_endian = lambda fmt, x: struct.pack(">d", x)  # noqa: E731
    assert not selftest.format_is_binary64(1.0, info, big_endian)
    # a unit that stores 1.0 right but not −2.5 (the sign and exponent bits)
    only_one = lambda fmt, x: struct.pack(fmt, x) if x == 1.0 else b"\x00" * 8  # noqa: E731
    assert not selftest.format_is_binary64(1.0, info, only_one)
    assert not selftest.format_is_binary64(-1.0, info, struct.pack)


@pytest.mark.parametrize("kind, passes", [
    ("numpy", True), ("reversed", True), ("fma", True), ("float32", False), ("tf32", False),
    ("shape", False), ("raises", False)])
def test_blas_property(kind, passes):
    from fractions import Fraction as Fr

    import numpy as np

    def product(A, B, rule):
        out = np.zeros((A.shape[0], B.shape[1]))
        for i in range(A.shape[0]):
            for j in range(B.shape[1]):
                out[i, j] = rule([(float(A[i, k]), float(B[k, j])) for k in range(A.shape[1])])
        return out

    rules = {
        "reversed": lambda ps: sum((a * b for a, b in reversed(ps)), 0.0),
        # fused multiply–add: each product exact, one rounding per addition
        "fma": lambda ps: _fma_sum(ps),
        "float32": lambda ps: float(sum((np.float32(a) * np.float32(b) for a, b in ps),
                                        np.float32(0))),
        # TF32: 10-bit significands for the factors, binary64 sums
        "tf32": lambda ps: sum((_tf32(a) * _tf32(b) for a, b in ps), 0.0),
    }

    def _fma_sum(ps):
        s = 0.0
        for a, b in ps:
            s = float(Fr(s) + Fr(a) * Fr(b))
        return s

    def _tf32(x):
        m, e = np.frexp(x)
        return float(np.ldexp(np.round(m * 2 ** 11) / 2 ** 11, e))

    if kind == "numpy":
        mm = None
    elif kind == "shape":
        mm = lambda A, B: np.zeros((2, 2))  # noqa: E731
    elif kind == "raises":
        def mm(A, B):
            raise TypeError("no product")
    else:
        mm = lambda A, B, r=rules[kind]: product(A, B, r)  # noqa: E731
    assert selftest._blas_is_binary64(1.0, 2.0, mm) is passes


@pytest.mark.parametrize("broken", ["format_is_binary64", "addition_rounds_to_nearest",
                                    "division_rounds_to_nearest", "underflow_is_gradual",
                                    "_blas_is_binary64"])
def test_failures_names_each_broken_property_word_for_word(monkeypatch, broken):
    monkeypatch.setattr(selftest, broken, lambda *a, **k: False)
    expected = {
        "format_is_binary64": ["binary64 format"],
        "addition_rounds_to_nearest": ["round to nearest (python addition)",
                                       "round to nearest (numpy addition)"],
        "division_rounds_to_nearest": ["round to nearest (division)"],
        "underflow_is_gradual": ["gradual underflow (2^-1022/2 must not be 0)"],
        "_blas_is_binary64": ["BLAS products in binary64 (a matrix product differs from the "
                              "sequential binary64 sum)"],
    }[broken]
    assert selftest.failures() == expected
    with pytest.raises(ArithmeticUnfit) as err:
        selftest.arithmetic_selftest()
    assert str(err.value) == ("arithmetic self-test failed: " + ", ".join(expected) +
                              " (the checker's binary64 bounds, Lemma C13, assume them)")


def test_only_the_numpy_path_can_fail_alone(monkeypatch):
    # a numpy unit rounding upward while the interpreter rounds to nearest
    add, mul, div = _ops("up")
    monkeypatch.setattr(selftest, "_np_add", add)
    assert selftest.failures() == ["round to nearest (numpy addition)"]
    monkeypatch.undo()
    monkeypatch.setattr(selftest, "_np_div", div)
    assert selftest.failures() == ["round to nearest (division)"]
    monkeypatch.undo()
    add, mul, div = _ops("ftz")
    monkeypatch.setattr(selftest, "_np_div", div)
    monkeypatch.setattr(selftest, "_np_mul", mul)
    assert selftest.failures() == ["gradual underflow (2^-1022/2 must not be 0)"]
