"""The checker on Lemma S3 (two tokens, C23): edits of the three fixtures (tied, complex,
negative) with the digest recomputed, each rejected naming what it breaks, or accepted when
it is another true certificate; the checker's own reading of V's spectrum against numpy's
eigenvalues on random rational spectra."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from certified.checker import check_certificate
from certified.checker.hypotheses import reading

from . import tamper
from .producer import load


def _edit(name: str, f) -> str:
    c = json.loads(json.dumps(load(name)))
    f(c)
    c["digest"] = tamper.digest(c)
    rep = check_certificate(c)
    return "VALID" if rep.valid else rep.message


def test_the_fixtures_check():
    for name in ("s3_42_tied", "s3_42_complex", "s3_42_neg"):
        assert _edit(name, lambda c: None) == "VALID", name


def test_another_left_eigenvector_is_another_true_certificate():
    """ψ scaled by −3 (w₀ with it): still ψV = λψ and w₀ ≠ 0; the bounds do not use ψ."""
    def f(c):
        tl = c["tail_lemma"]
        tl["psi"] = [str(-3 * Fraction(x)) for x in tl["psi"]]
        tl["w0"] = str(-3 * Fraction(tl["w0"]))
    assert _edit("s3_42_neg", f) == "VALID"


def test_a_non_hurwitz_v_is_refused_whatever_the_lyapunov_data():
    """V = diag(−2, 1/2) keeps the reading 'negative' (λ₁ = −2 of largest modulus) but has
    an eigenvalue with positive real part: no P, c pass −(VᵀP + PV + 2cP) ≻ 0."""
    def f(c):
        c["instance"]["V"] = [["-2", "0"], ["0", "1/2"]]
    out = _edit("s3_42_neg", f)
    assert out.startswith(("tail_lemma.psi", "tail_lemma.c")), out


def test_an_indefinite_form_is_refused_naming_the_hypothesis():
    def f(c):
        c["instance"]["K"] = [["1", "0"], ["0", "-1"]]
        c["hypotheses_hold"] = None
    out = _edit("s3_42_neg", f)
    assert out.startswith("tail_lemma: Expected Lemma S3's hypothesis (B + Bᵀ)/2"), out


@pytest.mark.parametrize("name, V", [
    ("s3_42_tied", [["2", "0"], ["0", "1"]]),        # Definition 4.1(i) holds: not S3's
    ("s3_42_tied", [["-1", "1"], ["-1", "-1"]]),     # a pair with Re < 0
    ("s3_42_complex", [["1", "0"], ["0", "1"]]),     # λ = 1 twice: not simple
])
def test_a_v_outside_the_readings_is_refused_naming_the_case(name, V):
    def f(c):
        c["instance"]["V"] = V
        c["hypotheses_hold"] = None
    out = _edit(name, f)
    assert out.startswith("tail_lemma.case: Expected one of Lemma S3's readings"), out


@pytest.mark.parametrize("name, case", [("s3_42_tied", "complex"), ("s3_42_complex", "tied"),
                                        ("s3_42_neg", "tied")])
def test_a_stated_case_other_than_the_checkers_is_refused(name, case):
    out = _edit(name, lambda c: c["tail_lemma"].__setitem__("case", case))
    assert out.startswith("tail_lemma.case: Expected '"), out


def test_a_claimed_refutation_for_a_tied_v_is_refused():
    def f(c):
        c["verdict"], c["evidence"], c["limit"] = "refuted", {"statement": "x"}, None
    out = _edit("s3_42_tied", f)
    assert out.startswith("verdict: Expected 'certified'"), out


def test_the_score_bound_and_attention_bound_at_their_edges():
    """A just below the checker's own upper bound of β(M + Δ/2)Δ is refused; p above
    1/(1 + e^A) by a relative 10⁻¹⁵ is refused, p at 1/(1 + e^A) rounded down (60 digits)
    is accepted."""
    c = load("s3_42_neg")
    A = Fraction(c["tail_lemma"]["A_upper"])
    out = _edit("s3_42_neg", lambda c: c["tail_lemma"].__setitem__(
        "A_upper", str(A * (1 - Fraction(1, 10 ** 12)))))
    assert out.startswith("tail_lemma.A_upper"), out
    with mpmath.workdps(60):
        p = 1 / (1 + mpmath.exp(mpmath.mpf(A.numerator) / A.denominator))
        below = Fraction(mpmath.nstr(p * (1 - mpmath.mpf(10) ** -40), 50))
        above = Fraction(mpmath.nstr(p * (1 + mpmath.mpf(10) ** -15), 50))

    def with_p(q):
        def f(c):
            tl = c["tail_lemma"]
            tl["p_lower"] = str(q)
            g = -2 * Fraction(tl["lambda1"]) * q
            tl["growth_exponent_lower"] = str(g)
            c["evidence"]["growth_exponent_lower"] = str(g)
        return f
    assert _edit("s3_42_neg", with_p(below)) == "VALID"
    out = _edit("s3_42_neg", with_p(above))
    assert out.startswith("tail_lemma.p_lower"), out


def _random_spectrum(rng: random.Random) -> tuple[list[list[Fraction]], list[complex]]:
    """V = S D S⁻¹ with D a rational diagonal or a 2×2 rotation block (a + bi)."""
    d = rng.choice([2, 3])
    vals = [Fraction(rng.randint(-6, 6), rng.choice([1, 2])) for _ in range(d)]
    D = [[vals[i] if i == j else Fraction(0) for j in range(d)] for i in range(d)]
    eig = [complex(v) for v in vals]
    if rng.random() < 0.4:
        a, b = Fraction(rng.randint(-4, 4), 2), Fraction(rng.randint(1, 4), 2)
        D[0][0], D[0][1], D[1][0], D[1][1] = a, -b, b, a
        eig[0], eig[1] = complex(a, b), complex(a, -b)
    S = [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]
    for i in range(d):  # unimodular: S = I plus a strictly upper part
        for j in range(i + 1, d):
            S[i][j] = Fraction(rng.randint(-2, 2))
    Sinv = [[Fraction(int(x)) for x in r] for r in np.round(np.linalg.inv(
        np.array(S, dtype=float))).astype(int)]  # S is unit upper triangular: exact
    V = [[sum(S[i][k] * D[k][l] * Sinv[l][j] for k in range(d) for l in range(d))
          for j in range(d)] for i in range(d)]
    return V, eig


def _numpy_reading(eig: list[complex]) -> str | None:
    top = max(abs(z) for z in eig)
    lead = [z for z in eig if abs(abs(z) - top) < 1e-9]
    pos = [z for z in lead if abs(z.imag) < 1e-12 and z.real > 0]
    if len(lead) == 1:
        z = lead[0]
        return "negative" if abs(z.imag) < 1e-12 and z.real < 0 else None
    if len(lead) == 2 and abs(lead[0] - lead[1].conjugate()) < 1e-9 and abs(lead[0].imag) > 1e-12:
        return "complex" if lead[0].real > 0 else None
    if len(pos) == 1 and sum(abs(z - pos[0]) < 1e-9 for z in eig) == 1:
        return "tied"
    return None


def test_the_reading_agrees_with_numpy_on_random_rational_spectra():
    rng = random.Random(2026)
    seen = {"tied": 0, "complex": 0, "negative": 0, None: 0}
    for _ in range(300):
        V, eig = _random_spectrum(rng)
        got = reading(V)
        want = _numpy_reading(eig)
        assert (got[0] if got else None) == want, (V, eig, got)
        seen[want] += 1
    assert all(v >= 10 for v in seen.values()), seen
