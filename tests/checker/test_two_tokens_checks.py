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


def _set(*path_value):
    def f(c):
        for path, value in path_value:
            obj = c
            for p in path[:-1]:
                obj = obj[p]
            obj[path[-1]] = value
    return f


#: every rejection branch of check_two_tokens and _check_negative, with its full line
BRANCHES = [
    ("s3_42_tied", (("tail_lemma", "lemma"), "S3"),
     "tail_lemma.lemma: Expected 'S3 (two tokens, proofs_notes/audits.md)'. Got 'S3'."),
    ("s3_42_tied", (("timescale",), {"T_first": "0"}),
     "timescale: Expected null (Lemma S3 holds from t = 0, no integration). Got {'T_first': '0'}."),
    ("s3_42_tied", (("evidence",), {"statement": "x"}),
     "evidence: Expected null (the verdict is 'certified'). Got {'statement': 'x'}."),
    ("s3_42_tied", (("limit", "statement"), "x"),
     "limit.statement: Expected 'phi1*(z_i(t)) converges for each i (phi1 the simple real "
     "eigenvalue lambda1 > 0 of largest modulus); at most two limit values, a = lim min and b "
     "= lim max'. Got 'x'."),
    ("s3_42_tied", (("theorem",), "3.1"),
     "tail_lemma: Expected Lemma S3 for Theorem 4.2 with two tokens. Got Theorem 3.1 with 2 "
     "tokens."),
    ("s3_42_neg", (("limit",), {"statement": "x"}),
     "limit: Expected null (the verdict is 'refuted'). Got {'statement': 'x'}."),
    ("s3_42_neg", (("evidence", "growth_exponent_lower"), "0"),
     "evidence.growth_exponent_lower: Expected 0 < g <= 29873/25000000000000 "
     "(tail_lemma.growth_exponent_lower, checked). Got 0."),
    ("s3_42_neg", (("evidence", "statement"), "x"),
     "evidence.statement: Expected '|phi1*(z_1(t)) - phi1*(z_2(t))| >= |w0| exp(g t) for t >= 0 "
     "with g = growth_exponent_lower > 0: phi1*(z_i(t)) does not converge for some i'. Got 'x'."),
    ("s3_42_neg", (("tail_lemma", "psi"), ["1"]),
     "tail_lemma.psi: Expected 2 numbers. Got ['1']."),
    ("s3_42_neg", (("tail_lemma", "psi"), ["0", "0"]),
     "tail_lemma.psi: Expected ψ ≠ 0 with ψV = -2·ψ (a left eigenvector, exactly). Got ['0', '0']."),
    ("s3_42_neg", (("tail_lemma", "P"), [["1", "0"]]),
     "tail_lemma.P: Expected a 2×2 matrix. Got [['1', '0']]."),
    ("s3_42_neg", (("tail_lemma", "ell"), "0"),
     "tail_lemma.ell: Expected ℓ > 0 with P − ℓI symmetric positive definite (exact). Got 0."),
    ("s3_42_neg", (("tail_lemma", "c"), "0"),
     "tail_lemma.c: Expected c > 0 with −(VᵀP + PV + 2cP) positive definite (exact). Got 0."),
    ("s3_42_neg", (("tail_lemma", "p_lower"), "1"),
     "tail_lemma.p_lower: Expected 0 < p <= 1/(1 + exp(A_upper)). Got 1."),
    ("s3_42_neg", (("tail_lemma", "p_lower"), "0"),
     "tail_lemma.p_lower: Expected 0 < p <= 1/(1 + exp(A_upper)). Got 0."),
    ("s3_42_neg", (("tail_lemma", "growth_exponent_lower"), "0"),
     "tail_lemma.growth_exponent_lower: Expected 0 < g <= 2μp = 1.19492004e-09. Got 0."),
    ("s3_42_complex", (("tail_lemma", "trace"), "2"),
     "tail_lemma.trace: Expected 1. Got 2."),
]


@pytest.mark.parametrize("name, edit, want", BRANCHES,
                         ids=[f"{n}:{'.'.join(map(str, e[0]))}={e[1]!r}"[:60] for n, e, _ in BRANCHES])
def test_each_rejection_names_its_field_word_for_word(name, edit, want):
    assert _edit(name, _set(edit)) == want


def test_a_refuted_certificate_for_a_negative_v_needs_the_refutation():
    def f(c):
        c["verdict"], c["evidence"] = "certified", None
    assert _edit("s3_42_neg", f) == ("verdict: Expected 'refuted' (what Lemma S3 proves here). "
                                     "Got 'certified'.")


def test_the_valid_messages_name_the_reading():
    c = load("s3_42_tied")
    assert check_certificate(json.loads(json.dumps(c))).message.startswith(
        "valid: Lemma S3 re-checked (two tokens, tied reading decided exactly); verdict "
        "'certified' for Theorem 4.2")
    c = load("s3_42_neg")
    assert check_certificate(json.loads(json.dumps(c))).message.startswith(
        "valid: Lemma S3 re-checked (two tokens, λ₁ < 0 of largest modulus, Lyapunov bound "
        "re-derived); verdict 'refuted' for Theorem 4.2")


def test_the_multiplicity_and_factor_helpers():
    from certified.checker.hypotheses import _exact_factors, _multiplicity
    F = Fraction
    p = [F(-2), F(5), F(-4), F(1)]  # (x − 1)²(x − 2)
    assert _multiplicity(p, [F(-1), F(1)]) == 2
    assert _multiplicity(p, [F(-2), F(1)]) == 1
    assert _multiplicity(p, [F(-3), F(1)]) == 0
    facs = _exact_factors(p)
    assert sorted(d["lambda1"] for _, _, d in facs) == [1, 2]
    assert _exact_factors([F(-2), F(0), F(1)]) is None  # x² − 2: irrational roots
    assert _exact_factors([F(5, 4), F(-1), F(1)])[0][2] == {"trace": 1, "norm": F(5, 4)}


@pytest.mark.parametrize("V, want", [
    ([[Fraction(-2)]], ("negative", {"lambda1": Fraction(-2)})),  # degree 1: no polyroots
    ([[Fraction(0)]], None),                                      # 0 is not negative
    ([[Fraction(3)]], None),                                      # 4.1(i) holds
    ([[Fraction(0), Fraction(1)], [Fraction(0), Fraction(0)]], None),  # 0 twice
    ([[Fraction(2), Fraction(0)], [Fraction(0), Fraction(-2)]], ("tied", {"lambda1": 2})),
])
def test_the_reading_at_degenerate_spectra(V, want):
    assert reading(V) == want
