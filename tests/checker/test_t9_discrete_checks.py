"""The checker on Lemma T9's discrete form (C18 with Δt): each claimed field edited, with
the digest recomputed, is rejected naming it (the stored fixture t9_85_discrete, so the
mutation run of benchmarks/mutation_checker.py can use these tests)."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest

from certified.checker import check_certificate
from . import tamper
from .producer import load


def redigest(c: dict) -> dict:
    c["digest"] = tamper.digest(c)
    return c


def _mp(q) -> mpmath.mpf:
    q = Fraction(str(q))
    return mpmath.mpf(q.numerator) / q.denominator


@pytest.fixture(scope="module")
def cert():
    c = load("t9_85_discrete")  # examples/discrete_contracting.json, 8 digits
    assert check_certificate(json.loads(json.dumps(c))).valid
    return c


@pytest.mark.parametrize("key, value, field", [
    ("h", "1/5", "tail_lemma.h"),
    ("mu", "2", "tail_lemma.mu"),
    ("c_lower", lambda c: str(Fraction(c) * Fraction(101, 100)), "tail_lemma.c_lower"),
    ("kappa_lower", lambda k: str(Fraction(k) * Fraction(101, 100)), "tail_lemma.kappa_lower"),
    ("E_T_upper", lambda e: str(Fraction(e) * Fraction(99, 100)), "tail_lemma.E_T_upper"),
    ("q_at_T_upper", lambda q: [str(Fraction(q[0]) / 2)] + q[1:], "tail_lemma.q_at_T_upper[0]"),
    ("rank_bound", 1, "tail_lemma.rank_bound"),
    ("boxes_at_T", lambda b: [[[lo, lo] for lo, hi in row] for row in b],
     "tail_lemma.boxes_at_T"),
])
def test_tampered_fields_are_rejected_naming_them(cert, key, value, field):
    bad = json.loads(json.dumps(cert))
    old = bad["tail_lemma"][key]
    bad["tail_lemma"][key] = value(old) if callable(value) else value
    rep = check_certificate(redigest(bad))
    assert not rep.valid and rep.message.startswith(field), rep.message


def test_a_larger_energy_fails_the_step_size_condition_in_the_checker(cert):
    """E_T doubled and κ lowered to match (κ ≤ e^{−2E_T} still holds): 8hE_T e^{4E_T} >
    κ/r, rejected naming E_T_upper and the condition."""
    bad = json.loads(json.dumps(cert))
    E = Fraction(bad["tail_lemma"]["E_T_upper"]) * 2
    bad["tail_lemma"]["E_T_upper"] = str(E)
    with mpmath.workdps(30):
        bad["tail_lemma"]["kappa_lower"] = mpmath.nstr(mpmath.exp(-2 * _mp(E)) * (1 - mpmath.mpf(10) ** -9), 20)
    bad["tail_lemma"]["c_lower"] = "1/10000000000"
    rep = check_certificate(redigest(bad))
    assert not rep.valid and rep.message.startswith("tail_lemma.E_T_upper") and \
        "step-size condition" in rep.message, rep.message
