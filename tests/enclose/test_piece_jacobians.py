"""The defect step's tubes and Jacobians in binary64 balls, every piece at once
(Lemma I12, items 8–10; ``certified/enclose/piece_jacobians.py``).

Oracles: exact rationals for the ball operations, mpmath at 60 digits for e^x, and for the
Jacobians an independent mpmath evaluation of the field (its own softmax, no shift, no
centred form) differentiated by central differences at 60 digits; widths against the
Arb path that the binary64 one replaced."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from certified import Instance
from certified.enclose import defect_pieces as dp
from certified.enclose import defect_step as ds
from certified.enclose import piece_jacobians as pj
from certified.enclose.arith import float_balls as fb
from certified.enclose.arith import get_backend
from certified.enclose.field import AttentionField


def _inside(a: fb.FMat, X) -> bool:
    return all(abs(F(x) - F(float(m))) <= F(float(r))
               for x, m, r in zip(np.asarray(X, dtype=object).flat, a.m.flat, a.r.flat))


def _point(rng, a: fb.FMat):
    """Exact rational points of the ball (vertices about a third of the time)."""
    u = rng.uniform(-1, 1, a.m.shape)
    u[rng.uniform(size=u.shape) < 0.3] = 1.0
    return np.vectorize(lambda m, r, v: F(m) + F(r) * F(v), otypes=[object])(a.m, a.r, u)


# -- the new ball operations --------------------------------------------------------------

def test_exp_points_bracket_mpmath_and_are_narrow():
    rng = np.random.default_rng(1)
    v = np.concatenate([rng.uniform(-760, 715, 3000), rng.uniform(-1, 1, 1000),
                        [0.0, -700.0, -699.99, 709.0, 709.01, -1e-300, 5e-324, -0.0]])
    lo, hi = fb._exp_points(v)
    with mpmath.workdps(60):
        for x, a, b in zip(v, lo, hi):
            e = mpmath.exp(mpmath.mpf(float(x)))
            assert mpmath.mpf(float(a)) <= e <= mpmath.mpf(float(b)), x
    normal = (v > -690) & (v < 700)
    assert np.all(np.isfinite(hi[normal]))
    # relative width: the reduction k·ln 2 (|k| ≤ 1010, ln 2 to 2⁻⁵⁴) and 17 roundings
    assert np.max((hi[normal] - lo[normal]) / lo[normal]) < 1e-12
    assert np.all(hi[v > 709.8] == np.inf) and np.all(lo[v < -700] == 0.0)
    lo, hi = fb._exp_points(np.array([np.nan, np.inf, -np.inf]))
    assert hi[0] == np.inf and hi[1] == np.inf and lo[2] == 0.0


def test_elementwise_operations_contain_exact_results():
    rng = np.random.default_rng(2)
    A = fb.FMat(rng.standard_normal((3, 4)) * 7, np.abs(rng.standard_normal((3, 4))) * 1e-3)
    B = fb.FMat(rng.standard_normal((1, 4)), np.abs(rng.standard_normal((1, 4))) * 1e-2)
    pos = fb.FMat(rng.uniform(0.5, 3, (3, 4)), np.full((3, 4), 0.1))
    Mu, Su, Sm, Rc = fb.mul(A, B), fb.sub(A, B), fb.fsum(A, axis=1), fb.recip_positive(pos)
    Ex = fb.exp(fb.FMat(A.m / 7, A.r))
    for _ in range(25):
        X, Y, Pp = _point(rng, A), _point(rng, B), _point(rng, pos)
        assert _inside(Mu, X * Y) and _inside(Su, X - Y)
        assert _inside(Sm, X.sum(axis=1))
        assert _inside(Rc, np.vectorize(lambda p: 1 / p, otypes=[object])(Pp))
        with mpmath.workdps(40):
            ex = [mpmath.exp(mpmath.mpf(x.numerator) / x.denominator / 7) for x in X.flat]
        assert all(abs(e - mpmath.mpf(float(m))) <= mpmath.mpf(float(r))
                   for e, m, r in zip(ex, Ex.m.flat, Ex.r.flat))
    # widths: the exact ball formulas plus rounding
    assert np.all(Mu.r <= (np.abs(A.m) * B.r + A.r * (np.abs(B.m) + B.r)) * (1 + 1e-12)
                  + 1e-14 * np.abs(Mu.m))
    # a ball reaching 0 has no positive reciprocal: non-finite, never a finite wrong one
    assert not fb.is_finite(fb.recip_positive(fb.FMat(np.array([1.0]), np.array([1.0]))))


def test_contains_per_matrix_of_a_stack():
    a = fb.FMat(np.zeros((3, 2, 2)), np.ones((3, 2, 2)))
    inner = fb.FMat(np.zeros((3, 2, 2)), np.full((3, 2, 2), 0.5))
    inner.r[1, 0, 1] = 2.0
    assert fb.contains(a, inner, axis=(-2, -1)).tolist() == [True, False, True]
    assert fb.contains(a, inner) is False


# -- tubes and Jacobians --------------------------------------------------------------------

def _mp_field(inst: Instance, variable: str, Z, t):
    """F(Z, t) in mpmath from the definition: x = e^{tV}z, P = softmax(xᵢᵀQᵀK xⱼ), then
    ẋ = V Σ P x (and ż = e^{−tV}(ẋ − V x) in z). No shift, no centred form."""
    n, d = inst.n, inst.d
    V = mpmath.matrix([[mpmath.mpf(F(x).numerator) / F(x).denominator for x in r]
                       for r in inst.V])
    B = mpmath.matrix([[mpmath.mpf(F(x).numerator) / F(x).denominator for x in r]
                       for r in inst.B])
    E = mpmath.expm(V * t) if variable == "z" else mpmath.eye(d)
    X = [E * mpmath.matrix(Z[i]) for i in range(n)]
    out = []
    for i in range(n):
        s = [(X[i].T * B * X[j])[0] for j in range(n)]
        top = max(s)
        ex = [mpmath.exp(v - top) for v in s]
        tot = sum(ex)
        xd = V * sum((X[j] * (ex[j] / tot) for j in range(n)), mpmath.zeros(d, 1))
        if variable == "z":
            xd = mpmath.inverse(E) * (xd - V * X[i])
        out += [xd[a] for a in range(d)]
    return out


def _mp_jacobian(inst, variable, Z, t):
    n, d = inst.n, inst.d
    eps = mpmath.mpf(10) ** -25
    cols = []
    for k in range(n * d):
        zp = [list(r) for r in Z]
        zm = [list(r) for r in Z]
        zp[k // d][k % d] += eps
        zm[k // d][k % d] -= eps
        fp, fm = _mp_field(inst, variable, zp, t), _mp_field(inst, variable, zm, t)
        cols.append([(a - b) / (2 * eps) for a, b in zip(fp, fm)])
    return [[cols[k][i] for k in range(n * d)] for i in range(n * d)]


CASES = {
    "z, V = 3/2 I": ([["3/2", 0], [0, "3/2"]], "z"),
    "z, matrix V": ([["3/2", "1/3"], ["-1/4", "1/2"]], "z"),
    "x, matrix V": ([["3/2", "1/3"], ["-1/4", "1/2"]], "x"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_piece_jacobians_contain_the_derivative_at_sampled_points(case):
    Vm, variable = CASES[case]
    rng = np.random.default_rng(len(case))
    n, d, m = 4, 2, 3
    X0 = [[f"{v:.3f}" for v in row] for row in rng.uniform(-1, 1, (n, d))]
    inst = Instance.create(V=Vm, Q=[[1, 0], [0, 1]], K=[["1", "1/2"], ["0", "1"]], X0=X0)
    bk = get_backend("flint")
    t0, w = F(1, 3), F(1, 20)
    with bk.workprec(64):
        field = AttentionField(inst, bk, variable)
        centres = rng.uniform(-1, 1, (m, n, d))
        Z = fb.FMat(centres, np.full((m, n, d), 2e-3))
        J = pj.jacobians(field, Z, t0, w)  # leaders piece by piece
        lead = field.leaders(bk.array([[F(x) for x in r] for r in centres[0]]), t0)
        # any leaders are valid (Lemma I1): piece 0's for every piece contains the same
        J0 = pj.jacobians(field, Z, t0, w, lead)
        assert J.shape == (m, n * d, n * d) and fb.is_finite(J)
        with mpmath.workdps(60):
            for j in range(m):
                for _ in range(2):
                    pt = _point(rng, Z[j])
                    s = F(int(rng.integers(0, 1001)), 1000)
                    tt = t0 + w * (j + s)
                    Jm = _mp_jacobian(inst, variable,
                                      [[mpmath.mpf(x.numerator) / x.denominator for x in r]
                                       for r in pt], mpmath.mpf(tt.numerator) / tt.denominator)
                    for a in range(n * d):
                        for b in range(n * d):
                            for X in (J, J0):
                                assert abs(Jm[a][b] - mpmath.mpf(float(X.m[j, a, b]))) \
                                    <= mpmath.mpf(float(X.r[j, a, b])), (case, j, a, b)
        # width: no wider than the Arb path on the same boxes (by 1.6 at most; it is
        # usually narrower), and first order in the box: a thin box gives a thin matrix
        for j in range(m):
            lo, hi = fb.ends(Z[j])
            box = np.array([bk.interval(F(float(a)), F(float(b)))
                            for a, b in zip(lo.flat, hi.flat)], dtype=object).reshape(n, d)
            Ja = field.jacobian(box, bk.interval(t0 + w * j, t0 + w * (j + 1)))
            ra = np.array([[float(x.rad()) for x in row] for row in Ja])
            assert J.r[j].sum(axis=1).max() <= 1.6 * ra.sum(axis=1).max()
        thin = pj.jacobians(field, fb.FMat(centres, np.full((m, n, d), 1e-12)), t0,
                            F(1, 10 ** 12), lead)
        assert thin.r.max() < 1e-9 * max(1.0, np.abs(thin.m).max())


def test_tubes_contain_the_polynomial_and_are_as_narrow_as_horner_in_arb():
    rng = np.random.default_rng(5)
    bk = get_backend("flint")
    K, n, d, m = 6, 2, 2, 4
    coef = [[[F(int(rng.integers(-99, 100)), 64) for _ in range(d)] for _ in range(n)]
            for _ in range(K + 1)]
    w, R = F(1, 32), F(1, 2 ** 40)
    with bk.workprec(64):
        coeffs = [bk.array(c) for c in coef]
        T = pj.tubes(coeffs, w, m, R)
        assert T.shape == (m, n, d)
        for j in range(m):
            for s in (F(0), F(1), F(int(rng.integers(1, 100)), 100)):
                tau = w * (j + s)
                val = [[sum(coef[k][i][a] * tau ** k for k in range(K + 1)) for a in range(d)]
                       for i in range(n)]
                assert _inside(T[j], val)
                # R is inside too: the tube is the polynomial's range widened by R
                assert _inside(T[j], [[v + R for v in row] for row in val])
            acc = coeffs[K]
            tau = bk.interval(w * j, w * (j + 1))
            for k in range(K - 1, -1, -1):
                acc = acc * tau + coeffs[k]
            ra = max(float(x.rad()) for x in acc.flat)
            assert T[j].r.max() <= ra * (1 + 1e-9) + float(R) + 1e-15


# -- the step's use of them -------------------------------------------------------------------

def _step_data(n=4, seed=0):
    rng = np.random.default_rng(seed)
    X0 = [[f"{v:.3f}" for v in row] for row in rng.uniform(-2, 2, (n, 2))]
    inst = Instance.create(V=[[1, 0], [0, 1]], Q=[[1, 0], [0, 1]], K=[[1, 0], [0, 1]], X0=X0)
    return inst


def test_float_and_arb_pieces_agree_and_are_alike_in_width():
    """The same bootstrap on the same data: both S enclose DΦ (they must meet), e within
    a factor 2, and the binary64 S not much wider here, before the attention saturates
    (once it has, its centred z_k − z̄_i makes it much narrower: 0.016 against 0.66 on a
    step of the paper's figure setting at t = 3/2, proofs_notes/integrator.md)."""
    inst = _step_data()
    bk = get_backend("flint")
    with bk.workprec(140):
        field = AttentionField(inst, bk, "z")
        from certified.enclose.lohner_set import LohnerSet
        S = LohnerSet.from_exact([F(x) for r in inst.X0 for x in r], bk)
        c = S.c.reshape(inst.n, inst.d)
        lead = field.leaders(c, F(1, 2))
        Z = field.jets(c, F(1, 2), 30, lead)
        coeffs = [bk.mid_array(z) for z in Z]
        poly = ds._Poly(coeffs)
        rho, M = ds.choose_rho(field, poly, F(1, 2), lead, F(1, 4), 8, 32)
        db = ds.DefectBound(ds._rad_bounds(bk, Z), M, rho)
        h, m, R = rho / 8, 16, F(1, 2 ** 50)
        with bk.workprec(64):
            a = dp._pieces_float(field, F(1, 2), h / m, m, db, R, F(0), coeffs, {}, True)
            b = dp._pieces_arb(field, F(1, 2), h, h / m, m, db, R, F(0), coeffs, {}, True)
    assert not isinstance(a, str) and not isinstance(b, str)
    assert F(1, 2) * b[0] <= a[0] <= 2 * b[0]
    wa = max(sum(float(v.rad()) for v in row) for row in a[2])
    wb = max(sum(float(v.rad()) for v in row) for row in b[2])
    assert wa <= wb * 1.5
    assert all(x.overlaps(y) for x, y in zip(a[2].flat, b[2].flat))
    assert all(x.overlaps(y) for x, y in zip(a[3], b[3]))


def test_a_non_finite_binary64_jacobian_falls_back_to_arb(monkeypatch):
    inst = _step_data(n=3, seed=1)
    bk = get_backend("flint")
    calls = []
    real = dp._pieces_arb

    def spy(*args, **kw):
        calls.append(1)
        return real(*args, **kw)

    real_j = pj.jacobians

    def inf_jacobians(field, Z, t0, w, leaders=None):
        J = real_j(field, Z, t0, w, leaders)
        J.m[0, 0, 0] = np.inf
        return J

    monkeypatch.setattr(dp, "_pieces_arb", spy)
    monkeypatch.setattr(pj, "jacobians", inf_jacobians)
    from certified.enclose.lohner_set import LohnerSet
    with bk.workprec(140):
        field = AttentionField(inst, bk, "z")
        S = LohnerSet.from_exact([F(x) for r in inst.X0 for x in r], bk)
        res = ds.defect_step(field, S, F(0), F(1, 8), 30, F(1, 10 ** 30))
    assert calls and res.h > 0


def test_defect_bounds_at_many_points_bound_the_single_ones():
    rng = np.random.default_rng(4)
    from flint import arb
    d = [[arb(float(abs(rng.standard_normal())) * 10.0 ** -k) for _ in range(3)]
         for k in range(8)]
    db = ds.DefectBound(d, [F(1, 10 ** 6)] * 3, F(1, 4))
    taus = [F(j, 64) for j in range(1, 16)]
    many = db.bounds(taus)
    for tau, b in zip(taus, many):
        one = db.bound(tau)
        assert one <= F(float(b)) <= one * (1 + F(1, 10 ** 12))


def test_stacked_mu_and_variational_equal_the_single_piece_ones():
    rng = np.random.default_rng(6)
    K = fb.FMat(rng.standard_normal((5, 6, 6)), np.abs(rng.standard_normal((5, 6, 6))) * 1e-3)
    mus = dp._mu_many(K)
    Sm = dp._variational_many(K, F(1, 16))
    for j in range(5):
        mu, _ = dp._mu_and_norm(K[j])
        assert F(float(mus[j])) == mu
        Sj = dp._variational_piece(K[j], F(1, 16))
        assert np.array_equal(Sj.m, Sm.m[j]) and np.array_equal(Sj.r, Sm.r[j])
    # a piece whose fixed point needs more iterations than allowed fails the whole stack
    big = fb.FMat(K.m * 1e3, K.r)
    assert dp._variational_many(big, F(1, 16)) is None
