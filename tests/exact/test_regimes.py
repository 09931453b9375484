"""Every hypothesis check, including every tie and near-tie named in the Foundation issue.

Oracles are exact: instances are built so that the verdict follows from their
construction (diagonal or block matrices, exact eigenvalues, closed-form φ₁).
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from certified import Instance, classify

I2 = [[1, 0], [0, 1]]
I3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]


def inst(V, Q=None, K=None, X0=None):
    d = len(V)
    eye = [[int(i == j) for j in range(d)] for i in range(d)]
    X0 = X0 or [[j + i for j in range(d)] for i in range(2)]
    return Instance.create(V=V, Q=Q or eye, K=K or eye, X0=X0)


def checks(report, thm):
    return {c.name: c.holds for c in report.theorems[thm].checks}


def holds(report, thm):
    return report.theorems[thm].hypotheses_hold


def rot(a, b):
    return [[a, -b], [b, a]]


def block(*blocks):
    d = sum(len(b) for b in blocks)
    out = [[F(0)] * d for _ in range(d)]
    off = 0
    for b in blocks:
        for i, row in enumerate(b):
            for j, x in enumerate(row):
                out[off + i][off + j] = F(x)
        off += len(b)
    return out


# ---------------------------------------------------------------- Theorem 2.1
def test_2_1_holds_with_k_greater_than_one():
    r = classify(Instance.create(V=[[2]], Q=[[1], [1]], K=[[1], [-1/2]], X0=[[0], [1], [-3]]))
    assert holds(r, "2.1")
    detail = r.theorems["2.1"].checks[2].detail
    assert "= 1/2" in detail and "k = 2" in detail


def test_2_1_repeated_token():
    r = classify(Instance.create(V=[[1]], Q=[[1]], K=[[1]], X0=[[0], ["1/3"], [1], ["2/6"]]))
    assert checks(r, "2.1")["tokens pairwise distinct"] is False
    assert "tokens 1 and 3 coincide" in r.theorems["2.1"].checks[3].detail
    assert not holds(r, "2.1")


@pytest.mark.parametrize("v, qk, ok", [(1, 1, True), (-1, 1, False), (1, -1, False),
                                        (0, 1, False), (1, 0, False)])
def test_2_1_signs(v, qk, ok):
    r = classify(Instance.create(V=[[v]], Q=[[1]], K=[[qk]], X0=[[0], [1]]))
    assert holds(r, "2.1") is ok


def test_2_1_fails_for_d2():
    r = classify(inst(I2))
    assert checks(r, "2.1") == {"d == 1": False, "V > 0": False, "QᵀK > 0": False,
                                "tokens pairwise distinct": True}


# ---------------------------------------------------------------- Theorem 3.1
def test_3_1_identity_spd():
    r = classify(inst(I2, Q=[[2, 1], [0, 1]], K=[[2, 1], [0, 1]]))
    assert holds(r, "3.1")


def test_3_1_nonsymmetric_with_pd_symmetric_part():
    r = classify(inst(I2, Q=I2, K=[[1, 1], [-1, 1]]))  # QᵀK = [[1,1],[-1,1]]
    c = checks(r, "3.1")
    assert c["V == I_d"] and not c["QᵀK symmetric"] and not c["QᵀK positive definite"]
    assert not holds(r, "3.1")
    relaxed = r.theorems["3.1"].informational[0]
    assert relaxed.holds and "(2, 0, 0)" in relaxed.detail


def test_3_1_psd_singular_nonsquare_q_k():
    r = classify(inst(I2, Q=[[1, 1]], K=[[1, 1]]))  # k = 1: QᵀK = [[1,1],[1,1]]
    c = checks(r, "3.1")
    assert c["QᵀK symmetric"] and not c["QᵀK positive definite"]
    assert "(1, 1, 0)" in r.theorems["3.1"].checks[2].detail
    assert r.spectrum["QtK_inertia"] == {"positive": 1, "zero": 1, "negative": 0}


def test_3_1_nonsquare_q_k_positive_definite():
    Q = [[1, 0], [0, 1], [1, 1]]  # k = 3 > d = 2: QᵀQ = [[2,1],[1,2]]
    r = classify(inst(I2, Q=Q, K=Q))
    assert holds(r, "3.1") and r.k == 3


def test_3_1_indefinite():
    r = classify(inst(I2, Q=I2, K=[[1, 0], [0, -1]]))
    assert "indefinite" in r.theorems["3.1"].checks[2].detail
    assert not holds(r, "3.1")


def test_3_1_v_not_identity_names_entry():
    r = classify(inst([[1, F(1, 2)], [0, 1]]))
    c = r.theorems["3.1"].checks[0]
    assert not c.holds and "V[0][1] = 1/2" in c.detail


# ---------------------------------------------------------------- Definition 4.1 ties
def test_4_2_plus_minus_lambda_tie():
    r = classify(inst(block([[2]], [[-2]], [[1]])))
    assert not holds(r, "4.2") and not holds(r, "5.2")
    assert checks(r, "4.2")["largest modulus attained by one eigenvalue"] is False
    assert r.spectrum["dominant_exact_ties"] == 1


def test_4_2_irrational_plus_minus_tie():
    # eigenvalues ±√2 (one irreducible factor x² − 2) and 1
    r = classify(inst(block([[0, 2], [1, 0]], [[1]])))
    assert len(r.spectrum["dominant_eigenvalues"]) == 2 and not holds(r, "4.2")


def test_4_2_complex_pair_same_modulus_as_lambda1():
    # 6/5 ± 8/5 i has modulus exactly 2 = λ₁.
    r = classify(inst(block([[2]], rot(F(6, 5), F(8, 5)))))
    assert len(r.spectrum["dominant_eigenvalues"]) == 3
    assert not holds(r, "4.2") and not holds(r, "5.2")
    assert r.spectrum["dominant_exact_ties"] == 2


def test_4_2_exact_tie_inside_one_irreducible_factor():
    # companion of x³ − 8: 2 and −1 ± √3 i, all of modulus 2, one irreducible factor
    r = classify(inst([[0, 0, 8], [1, 0, 0], [0, 1, 0]]))
    assert len(r.spectrum["dominant_eigenvalues"]) == 3 and not holds(r, "4.2")


def test_4_2_irrational_complex_tie_across_factors():
    # λ₁ = √5 (from x² − 5) against 1 ± 2i (modulus √5): a tie between two factors.
    r = classify(inst(block([[0, 5], [1, 0]], rot(1, 2))))
    # ±√5 and 1 ± 2i all have modulus √5
    assert len(r.spectrum["dominant_eigenvalues"]) == 4 and not holds(r, "4.2")


@pytest.mark.parametrize("eps, ok", [(F(1, 10**9), True), (-F(1, 10**9), False)])
def test_4_2_complex_near_tie(eps, ok):
    s = 1 - eps / 2  # modulus 2s = 2 − eps
    r = classify(inst(block([[2]], rot(F(6, 5) * s, F(8, 5) * s))))
    assert holds(r, "4.2") is ok and holds(r, "5.2") is ok
    # near-ties are separated by refinement; only a conjugate pair is ever "equal"
    assert len(r.spectrum["dominant_eigenvalues"]) == (1 if ok else 2)
    assert r.spectrum["dominant_exact_ties"] == (0 if ok else 1)


@pytest.mark.parametrize("eps, ok", [(F(1, 10**9), True), (-F(1, 10**9), False)])
def test_4_2_real_near_tie(eps, ok):
    r = classify(inst(block([[2]], [[-(2 - eps)]])))
    assert holds(r, "4.2") is ok


def test_4_2_jordan_block_at_lambda1():
    r = classify(inst([[2, 1, 0], [0, 2, 0], [0, 0, 1]]))
    c = checks(r, "4.2")
    assert c["largest modulus attained by one eigenvalue"] and \
        c["that eigenvalue is real and positive"]
    assert not c["that eigenvalue is algebraically simple"]
    assert not holds(r, "5.2") and "Jordan block" in r.theorems["5.2"].checks[2].detail


def test_4_2_negative_leading_eigenvalue():
    r = classify(inst(block([[-3]], [[1]])))
    assert not checks(r, "4.2")["that eigenvalue is real and positive"]


def test_4_2_nondiagonalizable_v_with_simple_dominant_eigenvalue():
    V = [[3, 0, 0], [0, 1, 1], [0, 0, 1]]  # Jordan block at 1, simple dominant 3
    r = classify(inst(V))
    assert holds(r, "4.2") and holds(r, "5.2")
    assert r.spectrum["dim_F"] == 1 and r.spectrum["lambda1"] == "3"


def test_diag_1_1_half():
    r = classify(inst(block([[1]], [[1]], [[F(1, 2)]])))
    assert holds(r, "5.2") and not holds(r, "4.2")
    assert r.spectrum["dim_F"] == 2 and r.spectrum["lambda1"] == "1"


def test_diag_1_1_minus_1():
    r = classify(inst(block([[1]], [[1]], [[-1]])))
    assert not holds(r, "5.2") and not holds(r, "4.2")


# ---------------------------------------------------------------- ⟨Qφ₁, Kφ₁⟩
def test_form_exactly_zero_rational_phi():
    # V = diag(2, 1): φ₁ = e₁; QᵀK = [[0, 1], [0, 0]] so ⟨Qφ₁, Kφ₁⟩ = 0 exactly.
    r = classify(inst(block([[2]], [[1]]), Q=[[1, 0]], K=[[0, 1]]))
    c = r.theorems["4.2"].checks[3]
    assert not c.holds and "exactly zero" in c.detail
    assert r.spectrum["Qphi1_Kphi1"] == "0"


GOLDEN = [[1, 1], [1, 0]]  # λ₁ = (1 + √5)/2 simple, φ₁ ∝ (λ₁, 1): irrational


def test_form_exactly_zero_irrational_phi():
    # φᵀBφ with φ = (g, 1), g² = g + 1: (B00 + B01 + B10) g + B00 + B11 = 0 for this B.
    r = classify(inst(GOLDEN, Q=I2, K=[[1, -1], [0, -1]]))
    c = r.theorems["4.2"].checks[3]
    assert not c.holds and "exactly zero" in c.detail and "number field" in c.detail


@pytest.mark.parametrize("delta, ok", [(F(1, 10**8), True), (-F(1, 10**8), False)])
def test_form_near_zero_irrational_phi(delta, ok):
    r = classify(inst(GOLDEN, Q=I2, K=[[1, -1], [0, -1 + delta]]))
    assert holds(r, "4.2") is ok
    # closed form: ⟨Qφ₁, Kφ₁⟩ = δ / (g² + 1), g the golden ratio (oracle: mpmath, 60 digits)
    with mpmath.workdps(60):
        g = (1 + mpmath.sqrt(5)) / 2
        exact = mpmath.mpf(delta.numerator) / delta.denominator / (g * g + 1)
        lo, hi = (mpmath.mpf(x) for x in r.spectrum["Qphi1_Kphi1"])
        assert lo <= exact <= hi
        assert lo * hi > 0 and hi - lo < mpmath.mpf("1e-25")


def test_form_antisymmetric_b_irrational_phi():
    r = classify(inst(GOLDEN, Q=I2, K=[[0, 1], [-1, 0]]))
    assert "exactly zero" in r.theorems["4.2"].checks[3].detail


def test_phi1_and_lambda1_enclosures_match_closed_form():
    r = classify(inst(GOLDEN))
    with mpmath.workdps(60):
        lam = (1 + mpmath.sqrt(5)) / 2
        norm = mpmath.sqrt(lam * lam + 1)
        lo, hi = (mpmath.mpf(x) for x in r.spectrum["lambda1"])
        assert lo <= lam <= hi and hi - lo < mpmath.mpf("1e-18")
        for (lo, hi), exact in zip(r.spectrum["phi1"], [lam / norm, 1 / norm]):
            lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
            assert lo <= exact <= hi and hi - lo < mpmath.mpf("1e-15")


# ---------------------------------------------------------------- Theorem 8.5
def test_8_5():
    r = classify(inst([[-1, 0], [0, -1]]))
    assert holds(r, "8.5")
    r = classify(inst([[-1, 0], [0, -1]], Q=[[2, 0], [0, 1]], K=[[F(1, 2), 0], [0, 1]]))
    assert holds(r, "8.5")  # QᵀK = I although Q, K ≠ I
    r = classify(inst([[-1, 0], [0, -1]], Q=[[2, 0], [0, 1]], K=[[2, 0], [0, 1]]))
    assert not holds(r, "8.5") and "QᵀK[0][0] = 4" in r.theorems["8.5"].checks[1].detail


# ---------------------------------------------------------------- spectrum section
def test_eigenvalue_enclosures_contain_and_are_narrow():
    r = classify(inst(block([[2]], rot(F(6, 5), F(8, 5)))))
    evs = r.spectrum["eigenvalues"]
    exact = {(F(2), F(0)), (F(6, 5), F(8, 5)), (F(6, 5), F(-8, 5))}
    for ev in evs:
        re = [F(x) for x in ev["re"]]
        im = [F(x) for x in ev["im"]]
        hits = [e for e in exact if re[0] <= e[0] <= re[1] and im[0] <= e[1] <= im[1]]
        assert len(hits) == 1
        assert re[1] - re[0] < F(1, 10**15) and im[1] - im[0] < F(1, 10**15)


def test_discrete_time_note():
    i = Instance.create(V=I2, Q=I2, K=I2, X0=[[1, 0]], time={"discrete": "1/10"})
    r = classify(i)
    assert r.time["mode"] == "discrete" and r.time["det_R"] == "121/100"
    assert "uncertain" in r.time["note"]
