"""Larger matrices: the interval-solve path for φ₁ (d > 16) and its exact fallback.

No timing here (see benchmarks/); these check the verdicts against exact oracles.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np

from certified import Instance, classify
from certified.exact.spectrum import EXACT_EIGVEC_MAX_D


def test_perron_frobenius_float32_matrix_is_a_good_triple():
    rng = np.random.default_rng(7)
    d = 40
    V = rng.uniform(0.01, 1.0, size=(d, d)).astype(np.float32)  # positive entries
    inst = Instance.create(V=V, Q=np.eye(d), K=np.eye(d), X0=np.zeros((1, d)))
    r = classify(inst)
    assert d > EXACT_EIGVEC_MAX_D
    assert r.theorems["4.2"].hypotheses_hold and r.theorems["5.2"].hypotheses_hold
    assert r.spectrum["method"] == "interval solve"
    lo, hi = (F(x) for x in r.spectrum["Qphi1_Kphi1"])  # = ‖φ₁‖² = 1 for Q = K = I
    assert lo <= 1 <= hi and hi - lo < F(1, 10**10)
    # φ₁ of a positive matrix is positive (Perron–Frobenius), within the enclosure
    assert all(F(lo_) > 0 for lo_, _ in r.spectrum["phi1"])


def test_negated_positive_matrix_fails():
    rng = np.random.default_rng(8)
    V = -rng.uniform(0.01, 1.0, size=(24, 24)).astype(np.float32)
    r = classify(Instance.create(V=V, Q=np.eye(24), K=np.eye(24), X0=np.zeros((1, 24))))
    checks = {c.name: c.holds for c in r.theorems["4.2"].checks}
    assert checks["largest modulus attained by one eigenvalue"]
    assert not checks["that eigenvalue is real and positive"]


def test_interval_path_falls_back_to_exact_zero():
    # golden-ratio block plus 18 small eigenvalues; antisymmetric QᵀK makes the form
    # exactly 0, which no enclosure can decide: the number-field fallback must.
    d = 20
    V = [[F(0)] * d for _ in range(d)]
    V[0][0], V[0][1], V[1][0] = F(1), F(1), F(1)
    for i in range(2, d):
        V[i][i] = F(1, i + 1)
        if i + 1 < d:
            V[i][i + 1] = F(1, 3)
    K = [[F(0)] * d for _ in range(d)]
    for i in range(0, d - 1, 2):
        K[i][i + 1], K[i + 1][i] = F(1), F(-1)
    r = classify(Instance.create(V=V, Q=np.eye(d, dtype=int), K=K, X0=[[0] * d]))
    c = r.theorems["4.2"].checks[3]
    assert not c.holds and "exactly zero" in c.detail and "number field" in c.detail
