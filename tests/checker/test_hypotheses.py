"""Lemma C16: the checker re-decides ``hypotheses_hold`` exactly (Fractions, Schur–Cohn,
Sturm); it agrees with the producer's classification on every shipped example and on
random instances, and its root counts with numpy's roots."""

from __future__ import annotations

import json
import random
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest

from certified.checker import check_certificate
from certified.checker.hypotheses import (decide, dominant, is_positive_definite,
                                          schur_cohn_inside, sturm_count_above)

from . import tamper
from .producer import ROOT, Instance

THEOREMS = ("2.1", "3.1", "4.2", "5.2", "8.5")


def _exact(inst) -> tuple:
    V = [[F(x) for x in row] for row in inst.V]
    B = [[F(x) for x in row] for row in inst.B]
    return V, B, [[F(x) for x in row] for row in inst.X0]


def _diag(*v):
    return [[F(v[i]) if i == j else F(0) for j in range(len(v))] for i in range(len(v))]


def _classify(inst) -> dict:
    from certified.exact.hypotheses import classify

    rep = classify(inst)
    return {t: rep.theorems[t].hypotheses_hold for t in THEOREMS}


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.json")), ids=lambda p: p.stem)
def test_agrees_with_the_producer_on_every_example(path):
    inst = Instance.load(str(path))
    want = _classify(inst)
    V, B, X0 = _exact(inst)
    for t in THEOREMS:
        got = decide(t, V, B, X0)
        assert got is not None, (path.stem, t)  # every shipped example is decided
        assert got == want[t], (path.stem, t, got, want[t])


def test_agrees_with_the_producer_on_random_small_instances():
    rng = random.Random(2026)
    decided = total = 0
    for _ in range(60):
        d = rng.choice([1, 2, 3])
        rnd = lambda: F(rng.randint(-4, 4), rng.choice([1, 2, 3]))  # noqa: E731
        V = [[rnd() for _ in range(d)] for _ in range(d)]
        if rng.random() < 0.3:  # paranormal-like: a repeated dominant eigenvalue
            V = [[F(int(i == j)) * (2 if i < d - 1 else F(1, 2)) for j in range(d)]
                 for i in range(d)]
        Q = [[rnd() for _ in range(d)] for _ in range(d)]
        K = Q if rng.random() < 0.5 else [[rnd() for _ in range(d)] for _ in range(d)]
        X0 = [[rnd() for _ in range(d)] for _ in range(3)]
        inst = Instance.create(V=V, Q=Q, K=K, X0=X0)
        want = _classify(inst)
        Ve, Be, Xe = _exact(inst)
        for t in THEOREMS:
            got = decide(t, Ve, Be, Xe)
            total += 1
            if got is not None:
                decided += 1
                assert got == want[t], (V, Q, K, t, got, want[t])
    assert decided >= 0.9 * total, (decided, total)  # undecided only at exact ties


def test_schur_cohn_and_sturm_agree_with_numpy():
    rng = random.Random(7)
    checked = 0
    for _ in range(1500):
        n = rng.randint(1, 6)
        a = [F(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(n)] + \
            [F(rng.choice([-3, -1, 1, 2, 5]))]
        r = F(rng.randint(1, 20), rng.randint(1, 10))
        roots = np.roots([float(c) for c in reversed(a)])
        if any(abs(abs(z) - float(r)) < 1e-6 for z in roots):
            continue
        got = schur_cohn_inside([c * r ** i for i, c in enumerate(a)])
        if got is None:
            continue
        assert got == sum(abs(z) < float(r) for z in roots), (a, r)
        if len(set(np.round(roots, 6))) == len(roots):
            real = {round(z.real, 8) for z in roots if abs(z.imag) < 1e-9}
            assert sturm_count_above(a, r) == sum(1 for z in real if z > float(r)), (a, r)
        checked += 1
    assert checked > 1000


def test_definiteness_and_spectral_cases():
    D = _diag
    I2, I3 = D(1, 1), D(1, 1, 1)
    assert is_positive_definite([[F(2), F(1)], [F(1), F(2)]])
    assert not is_positive_definite([[F(1), F(2)], [F(2), F(1)]])  # indefinite
    assert not is_positive_definite([[F(1), F(1, 10 ** 40)], [F(0), F(1)]])  # not symmetric
    # an exact tie, decided by the exact factorization (hypotheses.reading)
    assert decide("4.2", D(1, -1), I2, []) is False
    assert decide("5.2", D(1, -1), I2, []) is False  # −1 has the modulus of λ = 1
    assert decide("5.2", [[F(2), F(0), F(0)], [F(0), F(0), F(-2)], [F(0), F(2), F(0)]],
                  D(1, 1, 1), []) is False  # 2 tied with the pair ±2i
    assert decide("4.2", D(-2, 1), I2, []) is False  # the dominant eigenvalue is negative
    assert decide("4.2", D(2, 1), [[F(-1), F(0)], [F(0), F(1)]], []) is False  # ⟨φ, Bφ⟩ < 0
    assert decide("4.2", D(1, 1, F(-1, 2)), I3, []) is False  # λ₁ double: not simple
    assert decide("5.2", D(1, 1, F(-1, 2)), I3, []) is True
    jordan = [[F(1), F(1), F(0)], [F(0), F(1), F(0)], [F(0), F(0), F(0)]]
    assert decide("5.2", jordan, I3, []) is False
    rot = [[F(0), F(-1)], [F(1), F(0)]]  # eigenvalues ±i: equal moduli
    assert decide("4.2", rot, I2, []) is None
    assert dominant([[F(3)]])["mult"] == 1


@pytest.mark.parametrize("name", ["t4_21", "t7_52", "t8_52", "t6_small", "t4_85_ref"])
def test_flipped_hypotheses_hold_is_rejected(certs, name):
    cert = certs[name]
    with tamper.edited(cert, ("hypotheses_hold",), not cert["hypotheses_hold"]) as c:
        rep = check_certificate(c)
    assert not rep.valid and rep.message.startswith("hypotheses_hold: Expected"), rep.message
    with tamper.edited(cert, ("hypotheses_hold",), None) as c:  # null claims nothing
        assert check_certificate(c).valid


def test_lemma_t6_needs_B_symmetric_even_without_a_hypotheses_claim(certs):
    """B made non-symmetric by 10⁻⁴⁰ (Q[0][1]): T6's derivative formula needs B = Bᵀ."""
    cert = json.loads(json.dumps(certs["t6_small"]))
    cert["instance"]["Q"][0][1] = "1e-40"
    cert["hypotheses_hold"] = None
    with tamper.edited(cert, ("hypotheses_hold",), None) as c:
        rep = check_certificate(c)
    assert not rep.valid and rep.message.startswith("tail_lemma: Expected Lemma T6's "
                                                    "hypothesis"), rep.message
    with tamper.edited(cert, ("hypotheses_hold",), True) as c:
        rep = check_certificate(c)
    assert rep.message.startswith("hypotheses_hold: Expected"), rep.message


def test_unknown_theorem_true_claim_cannot_be_confirmed(certs):
    with tamper.edited(certs["t4_21"], ("theorem",), "9.9") as c:
        rep = check_certificate(c)
    assert "cannot confirm" in rep.message, rep.message


_ = Path  # (kept for type hints in editors)


# -- the candidates of the exact factorization (hypotheses._factors_at, paranormal) ----------

def test_rational_roots_with_large_denominators_are_read_exactly():
    """Candidates are the points of Z/L nearest to mpmath's roots (L from Gauss's lemma),
    not a bounded-denominator rounding: denominators of 10²⁰ are read exactly."""
    from certified.checker.hypotheses import _exact_factors
    q = F(123456789012345678901, 98765432109876543210)
    assert _exact_factors([-q, F(1)]) == [("real", [-q, F(1)], {"lambda1": q})]
    t, n = F(3, 10 ** 17 + 3), F(5 * 10 ** 20 + 1, 10 ** 20 + 7)
    p = [-n / 2, t / 2 + n, -t - F(1, 2), F(1)]  # (x − 1/2)(x² − t x + n)
    assert _exact_factors(p) == [("real", [F(-1, 2), F(1)], {"lambda1": F(1, 2)}),
                                 ("pair", [n, -t, F(1)], {"trace": t, "norm": n})]
    # a double rational λ₁ with a 20-digit denominator: semisimple, so V is paranormal
    assert decide("5.2", _diag(q, q, F(1, 3)), _diag(1, 1, 1), []) is True
    J = [[q, F(1), F(0)], [F(0), q, F(0)], [F(0), F(0), F(1, 3)]]  # a Jordan block at q
    assert decide("5.2", J, _diag(1, 1, 1), []) is False
    # an irrational double root: semisimplicity is not decided (None, never False)
    R = [[F(1), F(2)], [F(1), F(1)]]  # eigenvalues 1 ± √2
    Z = [[F(0)] * 2] * 2
    V = [r + z for r, z in zip(R, Z)] + [z + r for r, z in zip(R, Z)]  # diag(R, R)
    assert decide("5.2", V, _diag(1, 1, 1, 1), []) is None


def test_a_real_root_at_the_real_part_of_a_complex_pair():
    """(x − 1)(x² − 2x + 5): roots 1 and 1 ± 2i. Which roots are real is counted exactly,
    so the pair is not mistaken for a second root 1."""
    from certified.checker.hypotheses import _exact_factors, reading
    assert _exact_factors([F(-5), F(7), F(-3), F(1)]) == [
        ("real", [F(-1), F(1)], {"lambda1": F(1)}),
        ("pair", [F(5), F(-2), F(1)], {"trace": F(2), "norm": F(5)})]
    V = [[F(1), F(0), F(0)], [F(0), F(1), F(-2)], [F(0), F(2), F(1)]]
    assert reading(V) == ("complex", {"trace": F(2), "norm": F(5)})


@pytest.mark.parametrize("e, want", [(30, True), (200, True), (400, None)])
def test_near_ties_are_separated_exactly_or_left_undecided(e, want):
    """V = diag(1, −1 + 10^−e): moduli 10^−e apart. mpmath at 40, then 300 digits only
    chooses r; the exact counts accept it. Beyond 300 digits: undecided, never False."""
    V = _diag(1, F(-1) + F(1, 10 ** e))
    assert decide("4.2", V, _diag(1, 1), []) is want
    assert decide("5.2", V, _diag(1, 1), []) is want
    if want:
        inst = Instance.create(V=V, Q=_diag(1, 1), K=_diag(1, 1), X0=[[0, 0], [1, 0]])
        assert _classify(inst)["4.2"] is True


def test_leading_integer_against_sympy():
    """L: the leading coefficient of s scaled to coprime integers (oracle: sympy's
    clear_denoms and primitive)."""
    import sympy

    from certified.checker.hypotheses import _leading_integer
    rng = random.Random(11)
    x = sympy.Symbol("x")
    for _ in range(200):
        s = [F(rng.randint(-30, 30), rng.randint(1, 40)) for _ in range(rng.randint(1, 5))]
        s.append(F(rng.choice([-1, 1]) * rng.randint(1, 50), rng.randint(1, 60)))
        poly = sympy.Poly([sympy.Rational(c.numerator, c.denominator) for c in reversed(s)],
                          x, domain="QQ")
        _, integer = poly.clear_denoms(convert=True)
        _, prim = integer.primitive()
        assert _leading_integer(s) == abs(int(prim.LC())), s


def test_dyadic_is_the_mpf_exactly():
    import mpmath

    from certified.checker.hypotheses import _dyadic
    with mpmath.workdps(50):
        for x in (mpmath.mpf(1) / 3, -mpmath.pi * 2 ** 70, mpmath.mpf(2) ** -300,
                  mpmath.mpf(0), mpmath.mpf(5)):
            r = _dyadic(x)
            assert mpmath.mpf(r.numerator) / r.denominator == x
            assert r.denominator & (r.denominator - 1) == 0  # a power of two


@pytest.mark.parametrize("width", [F(1, 10), F(1, 2 ** 80), F(1, 10 ** 40)])
def test_isolate_reaches_the_width_and_keeps_the_root(width):
    from certified.checker.hypotheses import _isolate, _peval
    s = [F(-2), F(0), F(1)]  # x² − 2: the root √2 above r = 1
    lo, hi = _isolate(s, F(1), width)
    assert F(1) <= lo < hi and hi - lo < width
    assert _peval(s, lo) < 0 < _peval(s, hi)  # the root √2 is inside
    assert hi - lo >= width / 2  # bisection stops at the first width below the target
    # x − 2 above r = 1: Cauchy's bound 3, so the first midpoint is the root itself
    assert _isolate([F(-2), F(1)], F(1), width) == (F(2), F(2))


def test_candidates_inconsistent_with_the_exact_real_count_give_no_factors(monkeypatch):
    """The real roots are counted by Sturm; mpmath's list must show the same number of
    non-real roots in conjugate pairs, else no factorization is read."""
    import mpmath

    from certified.checker import hypotheses as h
    s = [F(-5), F(7), F(-3), F(1)]  # (x − 1)(x² − 2x + 5)
    assert h._factors_at(s, 60) is not None
    monkeypatch.setattr(h, "_approx_roots", lambda s, dps: [
        mpmath.mpc(1), mpmath.mpc(1, 2), mpmath.mpc(1, 2)])  # no conjugate
    assert h._factors_at(s, 60) is None
    monkeypatch.setattr(h, "_approx_roots", lambda s, dps: [
        mpmath.mpc(1.5), mpmath.mpc(1, 2), mpmath.mpc(1, -2)])  # a wrong real root
    assert h._factors_at(s, 60) is None
    monkeypatch.setattr(h, "_approx_roots", lambda s, dps: (_ for _ in ()).throw(
        mpmath.libmp.NoConvergence()))
    assert h._factors_at(s, 60) is None and h._radius(s, 40) is None


def test_dyadic_refuses_what_is_not_finite():
    import mpmath

    from certified.checker.hypotheses import _dyadic
    for x in (mpmath.inf, -mpmath.inf, mpmath.nan):
        with pytest.raises(ValueError, match="not a finite number"):
            _dyadic(x)


# -- the exact helpers against sympy (independent exact algebra) ------------------------------

def _sympy_matrix(M):
    import sympy
    return sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) for x in row] for row in M])


def test_rank_against_sympy():
    """Rank of random rational matrices of every rank, square and rectangular (products of
    thin factors), and of the empty matrix."""
    from certified.checker.hypotheses import rank
    rng = random.Random(5)
    for _ in range(300):
        rows, cols, k = rng.randint(1, 5), rng.randint(1, 5), rng.randint(0, 4)
        A = [[F(rng.randint(-3, 3), rng.randint(1, 3)) for _ in range(k)] for _ in range(rows)]
        B = [[F(rng.randint(-3, 3), rng.randint(1, 3)) for _ in range(cols)] for _ in range(k)]
        M = [[sum((A[i][l] * B[l][j] for l in range(k)), F(0)) for j in range(cols)]
             for i in range(rows)]
        if rng.random() < 0.3:  # a zero column first: the pivot search must skip it
            M = [[F(0)] + row for row in M]
        assert rank(M) == _sympy_matrix(M).rank(), M
    assert rank([]) == 0


def test_charpoly_against_sympy():
    """det(xI − V), monic, against sympy's charpoly (random rational 1×1 … 4×4)."""
    import sympy

    from certified.checker.hypotheses import charpoly
    rng = random.Random(3)
    for _ in range(100):
        d = rng.randint(1, 4)
        V = [[F(rng.randint(-5, 5), rng.randint(1, 4)) for _ in range(d)] for _ in range(d)]
        want = _sympy_matrix(V).charpoly(sympy.Symbol("x")).all_coeffs()[::-1]
        got = charpoly(V)
        assert got == [F(int(c.p), int(c.q)) for c in want], V
        assert all(isinstance(c, F) for c in got)


def test_sturm_counts_distinct_roots_of_a_polynomial_with_repeated_roots():
    """(x − 2)²(x − 3)³(x + 1): the Sturm sequence ends at gcd(a, a′), not at a constant;
    the count is of distinct real roots above r (a(r) ≠ 0)."""
    from certified.checker.hypotheses import sturm_count_above
    a = [F(1)]
    for root, mult in ((2, 2), (3, 3), (-1, 1)):
        for _ in range(mult):
            a = [F(0)] + a  # a·x …
            a = [a[i] - root * (a[i + 1] if i + 1 < len(a) else 0) for i in range(len(a))]
    assert sturm_count_above(a, F(1)) == 2
    assert sturm_count_above(a, F(5, 2)) == 1
    assert sturm_count_above(a, F(-2)) == 3
    assert sturm_count_above(a, F(4)) == 0


def test_small_polynomial_helpers_exactly():
    from certified.checker.hypotheses import (_cauchy, _deriv, _divmod, _gcd, _squarefree,
                                              _trim)
    assert _trim([F(0)]) == [F(0)] and _trim([F(1), F(0), F(0)]) == [F(1)]
    assert _deriv([F(5)]) == [F(0)] and _deriv([F(1), F(2), F(3)]) == [F(2), F(6)]
    # (x² − 1) = (x − 1)(x + 1): exact division leaves the remainder [0]
    assert _divmod([F(-1), F(0), F(1)], [F(-1), F(1)]) == ([F(1), F(1)], [F(0)])
    assert _divmod([F(3), F(1)], [F(-1), F(1)]) == ([F(1)], [F(4)])
    assert _divmod([F(2)], [F(-1), F(1)]) == ([F(0)], [F(2)])
    g = _gcd([F(-2), F(0), F(2)], [F(3), F(3)])  # gcd(2x² − 2, 3x + 3) = x + 1, monic
    assert g == [F(1), F(1)]
    assert _squarefree([F(2), F(-4), F(2)]) == [F(-1), F(1)]  # 2(x − 1)² → x − 1
    assert _squarefree([F(-6), F(4)]) == [F(-3, 2), F(1)]
    assert _cauchy([F(-6), F(4), F(2)]) == 4  # 2x² + 4x − 6: 1 + max(3, 2)


def test_dominant_of_three_distinct_moduli_and_of_a_nilpotent_matrix():
    from certified.checker.hypotheses import dominant
    dom = dominant(_diag(1, 3, -2))
    assert dom["real_positive"] is True and dom["mult"] == 1 and 2 < dom["r"] < 3
    assert dominant(_diag(1, -3, 2))["real_positive"] is False  # −3 leads
    assert dominant([[F(0), F(1)], [F(0), F(0)]]) == {  # p = x²: 0 twice, nothing above r = 0
        "real_positive": False, "mult": 2, "r": 0, "s": [0, 1], "p": [0, 0, 1]}
    for V in ([[F(0)]], [[F(0), F(1)], [F(0), F(0)]]):  # p = x^d: no positive eigenvalue
        assert dominant(V)["real_positive"] is False
        assert decide("4.2", V, _diag(*[1] * len(V)), []) is False
        assert decide("5.2", V, _diag(*[1] * len(V)), []) is False


def test_form_sign_against_the_exact_eigenvector():
    """The sign of φ₁ᵀBφ₁ (1, −1, 0 or None, nothing else), against φ₁ from sympy's exact
    eigenvectors, on random V with a rational dominant eigenvalue, and where g(V)'s first
    column is 0 (the sign is read from another column). A form that is 0 is 0 or None."""
    import sympy

    from certified.checker.hypotheses import _form_sign, _isolate, dominant
    rng = random.Random(9)
    seen = set()
    for _ in range(120):
        d = rng.randint(2, 3)
        lam = [F(rng.randint(3, 6))] + [F(rng.randint(-2, 2), rng.randint(1, 2))
                                         for _ in range(d - 1)]
        S = [[F(rng.randint(-2, 2)) for _ in range(d)] for _ in range(d)]
        if rng.random() < 0.3:  # φ₁ = e₂: g(V)'s first column is 0
            S = [[F(int(i == j)) for j in range(d)] for i in range(d)]
            S[0], S[1] = S[1], S[0]
        Sm = _sympy_matrix(S)
        if Sm.det() == 0:
            continue
        Vm = Sm * sympy.diag(*[sympy.Rational(x.numerator, x.denominator) for x in lam]) \
            * Sm.inv()
        V = [[F(int(Vm[i, j].p), int(Vm[i, j].q)) for j in range(d)] for i in range(d)]
        B = [[F(rng.randint(-3, 3)) for _ in range(d)] for _ in range(d)]
        phi = Sm[:, 0]
        want = (phi.T * _sympy_matrix(B) * phi)[0, 0]
        dom = dominant(V)
        lam_iv = _isolate(dom["s"], dom["r"], dom["r"] / 2 ** 80)
        got = _form_sign(V, B, dom["p"], lam_iv)
        if want != 0:  # 80 bits of λ₁ decide every non-zero form here
            assert got == sympy.sign(want), (V, B, got, want)
        else:  # exactly 0 where the bisection met λ₁, else an interval around 0
            assert got in (0, None), (V, B, got)
        seen.add(got)
    assert seen == {-1, 0, 1, None}


def test_a_form_that_vanishes_at_an_irrational_eigenvector_is_undecided():
    """V = [[1, 1], [1, 0]]: λ₁ = (1 + √5)/2, φ₁ = (λ₁, 1). B = [[−2, 1], [1, 2]] gives
    φ₁ᵀBφ₁ = −2λ₁² + 2λ₁ + 2 = 0 exactly, which interval arithmetic cannot decide: None,
    never a sign. With B's symmetric part 0 the form is exactly 0: proved not > 0."""
    V = [[F(1), F(1)], [F(1), F(0)]]
    assert decide("4.2", V, [[F(-2), F(1)], [F(1), F(2)]], []) is None
    assert decide("4.2", V, [[F(0), F(1)], [F(-1), F(0)]], []) is False
    assert decide("4.2", V, [[F(1), F(0)], [F(0), F(1)]], []) is True
    # a small positive form (g(V)'s column e₁, φ₁ᵀ(B + Bᵀ)φ₁ = 1/2): proved > 0
    assert decide("4.2", _diag(2, 1), _diag(F(1, 4), 1), []) is True


@pytest.mark.parametrize("small", [F(1, 2), F(-1, 2)])
def test_a_double_eigenvalue_met_exactly_by_the_bisection(small):
    """V = diag(3/2, 3/2, ±1/2): the bisection's first midpoint is λ₁ = 3/2 itself, an
    interval of width 0; λ₁ is still read and V is paranormal."""
    from certified.checker.hypotheses import _isolate, _leading_integer, dominant
    V = _diag(F(3, 2), F(3, 2), small)
    dom = dominant(V)
    assert _isolate(dom["s"], dom["r"], F(1, _leading_integer(dom["s"]))) == (F(3, 2),) * 2
    assert decide("5.2", V, _diag(1, 1, 1), []) is True


@pytest.mark.parametrize("V", [
    [[F(1, 10 ** 350)]],
    _diag(F(1, 10 ** 350), F(-1, 2 * 10 ** 350)),
    _diag(10 ** 300, 3, -10 ** 300 + 1),
])
def test_eigenvalues_far_from_1_are_decided(V):
    """mpmath's root finder sets a root below its absolute tolerance to 0 (a λ of 10⁻³⁵⁰
    gave r = 0: undecided, and with r ≥ 0 accepted, an endless bisection). The roots are
    taken of s scaled by a power of two near Fujiwara's bound; here every case is decided,
    as by the producer."""
    d = len(V)
    inst = Instance.create(V=V, Q=_diag(*[1] * d), K=_diag(*[1] * d),
                           X0=[[0] * d, [1] + [0] * (d - 1)])
    want = _classify(inst)
    for t in ("4.2", "5.2"):
        assert decide(t, V, _diag(*[1] * d), []) is True is want[t]
