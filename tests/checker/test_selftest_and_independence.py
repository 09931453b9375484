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
