"""Binary64 balls of the defect step's linear part (Lemma I12): containment against exact
rational oracles, widths against the exact ball formulas, and the piece's flow Jacobian
against mpmath's matrix exponential."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, ctx

from certified.enclose.arith import float_balls as fb
from certified.enclose.defect_pieces import _mu_and_norm, _variational_piece


def _ball(rng, shape, scale=1.0, rad=1e-3):
    m = rng.standard_normal(shape) * scale
    r = np.abs(rng.standard_normal(shape)) * rad
    return fb.FMat(m, r)


def _points(rng, a: fb.FMat):
    """An exact rational point of the ball: a vertex or an interior point."""
    u = rng.uniform(-1, 1, a.m.shape)
    u[rng.uniform(size=u.shape) < 0.3] = 1.0
    return np.vectorize(lambda m, r, v: Fraction(m) + Fraction(r) * Fraction(v),
                        otypes=[object])(a.m, a.r, u)


def _inside(a: fb.FMat, X) -> bool:
    return all(abs(x - Fraction(m)) <= Fraction(r) for x, m, r in zip(X.flat, a.m.flat, a.r.flat))


@pytest.mark.parametrize("seed", range(5))
def test_matmul_contains_exact_products_and_is_tight(seed):
    rng = np.random.default_rng(seed)
    A, B = _ball(rng, (7, 9)), _ball(rng, (9, 5), scale=1e3, rad=1e-1)
    C = fb.matmul(A, B)
    for _ in range(20):
        X, Y = _points(rng, A), _points(rng, B)
        assert _inside(C, X.dot(Y))
    # width: the exact ball formula (|m_a| r_b + r_a(|m_b| + r_b)) plus rounding ≤ 1e-12
    exact = np.abs(A.m) @ B.r + A.r @ (np.abs(B.m) + B.r)
    assert np.all(C.r >= exact * (1 - 1e-15))
    assert np.all(C.r <= exact * (1 + 1e-12) + 1e-12 * (np.abs(A.m) @ np.abs(B.m)))


def test_add_scale_contain_exact_results():
    rng = np.random.default_rng(7)
    A, B = _ball(rng, (4, 4)), _ball(rng, (4, 4))
    s = fb.interval(Fraction(1, 3), Fraction(2, 3))
    S, P = fb.add(A, B), fb.scale(A, s)
    for _ in range(30):
        X, Y = _points(rng, A), _points(rng, B)
        v = Fraction(1, 3) + Fraction(int(rng.integers(0, 4)), 12)
        assert _inside(S, X + Y)
        assert _inside(P, X * v)


def test_interval_and_from_arbs_bracket_exact_values():
    third = fb.interval(Fraction(1, 3), Fraction(1, 3))
    assert abs(Fraction(float(third.m)) - Fraction(1, 3)) <= Fraction(float(third.r))
    assert float(third.r) < 1e-15
    with ctx.workprec(200):
        xs = [arb(1) / 3, arb(-2) / 7 + arb(0, 1e-5), arb(10) ** 300 / 7, arb(2) ** -1060]
        F = fb.from_arbs(xs, (4,))
        for x, m, r in zip(xs, F.m, F.r):
            lo, hi = Fraction(float(m)) - Fraction(float(r)), Fraction(float(m)) + Fraction(float(r))
            xl, xh = x.lower(), x.upper()
            assert arb(lo.numerator) / lo.denominator <= xl
            assert xh <= arb(hi.numerator) / hi.denominator
        assert float(F.r[0]) < 1e-16 and float(F.r[1]) < 2e-5


def test_contains_refuses_nan_and_overhang():
    a = fb.FMat(np.zeros((2, 2)), np.ones((2, 2)))
    assert fb.contains(a, fb.FMat(np.full((2, 2), 0.5), np.full((2, 2), 0.25)))
    assert not fb.contains(a, fb.FMat(np.full((2, 2), 0.5), np.full((2, 2), 0.5)))
    nan = fb.FMat(np.array([[0.0, np.nan], [0.0, 0.0]]), np.zeros((2, 2)))
    assert not fb.contains(a, nan)
    with pytest.raises(ValueError):
        fb.to_arbs(nan)


def test_mu_and_norm_bound_the_exact_values():
    rng = np.random.default_rng(3)
    K = _ball(rng, (6, 6), rad=1e-2)
    mu, nrm = _mu_and_norm(K)
    hi = [[Fraction(m) + Fraction(r) for m, r in zip(rm, rr)] for rm, rr in zip(K.m, K.r)]
    mag = [[abs(Fraction(m)) + Fraction(r) for m, r in zip(rm, rr)] for rm, rr in zip(K.m, K.r)]
    mu_ex = max(hi[i][i] + sum(mag[i][j] for j in range(6) if j != i) for i in range(6))
    n_ex = max(sum(row) for row in mag)
    assert mu_ex <= mu <= mu_ex * (1 + Fraction(1, 10 ** 12)) + Fraction(1, 10 ** 12)
    assert n_ex <= nrm <= n_ex * (1 + Fraction(1, 10 ** 12))


@pytest.mark.parametrize("seed", range(3))
def test_variational_piece_contains_the_exponential(seed):
    """For a point matrix K the piece's flow Jacobian is e^{wK}: S must contain it (mpmath
    at 60 digits as the oracle), with width O(w²‖K‖²) of the thin K's rounding only."""
    rng = np.random.default_rng(seed)
    N, w = 8, Fraction(1, 16)
    K = fb.FMat(rng.standard_normal((N, N)), np.zeros((N, N)))
    S = _variational_piece(K, w)
    assert S is not None
    with mpmath.workdps(60):
        E = mpmath.expm(mpmath.matrix(K.m.tolist()) * mpmath.mpf(w.numerator) / w.denominator)
        for i in range(N):
            for j in range(N):
                assert abs(E[i, j] - mpmath.mpf(S.m[i, j])) <= mpmath.mpf(S.r[i, j])
    # I8 is first order: the width is about w²‖K‖²e^{w‖K‖}, never O(1)
    assert S.r.max() < 4 * float(w) ** 2 * np.abs(K.m).sum(axis=1).max() ** 2
    # and a wide K gives a wide S, still containing every e^{wK'} for K' in K
    Kw = fb.FMat(K.m, np.full((N, N), 0.05))
    Sw = _variational_piece(Kw, w)
    Kp = K.m + 0.05 * np.sign(rng.standard_normal((N, N)))
    with mpmath.workdps(60):
        E = mpmath.expm(mpmath.matrix(Kp.tolist()) * mpmath.mpf(w.numerator) / w.denominator)
        assert all(abs(E[i, j] - mpmath.mpf(Sw.m[i, j])) <= mpmath.mpf(Sw.r[i, j])
                   for i in range(N) for j in range(N))
